//! One test per diagnostic of the checker: location and wording, and that all are collected.

use super::tests::{errors, CENTRE};

/// The first rendered line holding `needle`, as `line:col: error: message`.
fn line_with(all: &str, needle: &str) -> String {
    all.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle:?} in:\n{all}"))
        .trim_start_matches("t.graft:")
        .to_string()
}

const HEAD: &str = "values 1..4\nnode Cell { row: int, col: int, val: value? }\nnode Group\nedge in: Cell -> Group\n";

fn with_head(body: &str) -> String {
    format!("{HEAD}{body}\n")
}

#[test]
fn unknown_names_say_what_was_expected() {
    let e = errors(&with_head("grid 4x4 of Cel\nrule r { c: Cell -inn-> g: Group  where c.vl == 1  where x == 1 }\nx: Foo"));
    assert_eq!(
        line_with(&e, "unknown node type"),
        "5:13: error: unknown node type `Cel`: expected `Cell` or `Group`"
    );
    assert!(
        line_with(&e, "unknown edge label").contains("unknown edge label `inn`: expected `in`"),
        "{e}"
    );
    assert!(
        line_with(&e, "unknown attribute")
            .contains("unknown attribute `vl` of `Cell`: expected `row`, `col` or `val`"),
        "{e}"
    );
    assert!(
        line_with(&e, "unknown name").contains("unknown name `x`: expected a value (1..4)"),
        "{e}"
    );
    assert!(e.contains("7:4: error: unknown node type `Foo`"), "{e}");
}

#[test]
fn unknown_nodes_in_the_graph_and_in_patterns() {
    let e = errors(&with_head(
        "grid 4x4 of Cell\ngroup g = r1c1 r5c3\nrule r { c -in-> g: Group }",
    ));
    assert!(
        line_with(&e, "r5c3").starts_with("6:16: error: unknown node `r5c3`"),
        "{e}"
    );
    assert!(
        line_with(&e, "unknown node `c`").contains("(declare it with `c: Type`)"),
        "{e}"
    );
}

#[test]
fn duplicates_point_back_at_the_first() {
    let e = errors(&with_head("node Cell\nedge in: Group -> Cell\nrule r { c: Cell c: Cell }\nrule r { }\na: Group\na: Group"));
    assert!(e.contains("duplicate node type `Cell`"), "{e}");
    assert!(e.contains("duplicate edge label `in`"), "{e}");
    assert!(e.contains("duplicate node `c`"), "{e}");
    assert!(e.contains("duplicate rule `r`"), "{e}");
    assert!(e.contains("duplicate node `a`"), "{e}");
    assert!(e.contains("note: the first is at line 2"), "{e}");
}

#[test]
fn a_value_outside_the_domain() {
    let e = errors(&with_head("rule r { c: Cell { val == 7 } }"));
    assert_eq!(
        line_with(&e, "outside"),
        "5:27: error: value `7` is outside the domain: expected one of 1..4"
    );
    let e = errors(&with_head("rule r { c: Cell  set c.val = 0 }"));
    assert!(e.contains("value `0` is outside the domain"), "{e}");
}

#[test]
fn type_errors_name_both_types() {
    // On letters a value is no number, so it neither compares with nor adds to an int.
    let letters = with_head(
        "rule r(v: value) { c: Cell { row == v }  where c.row + v > 1  where c.row  set c.row = none  set c.val = c.row }",
    )
    .replace("values 1..4", "values A B C D");
    let e = errors(&letters);
    assert!(
        e.contains("`+` needs int operands: expected int, found value (the values A..D are not all numbers: `int(v)` gives a value's position, 1 for the first)"),
        "{e}"
    );
    assert!(
        e.contains("`==` compares int with value: expected both sides of one type"),
        "{e}"
    );
    assert!(
        e.contains("`+` needs int operands: expected int, found value"),
        "{e}"
    );
    assert!(
        e.contains("a condition must be bool: expected a comparison, found int"),
        "{e}"
    );
    assert!(
        e.contains("`c.row` is not optional: expected int, found none"),
        "{e}"
    );
    assert!(
        e.contains("`c.val` has type value?: expected value, found int"),
        "{e}"
    );

    // On 1..4 values are numbers: the comparison, the sum and the assignment check.
    let e = errors(&with_head(
        "rule r(v: value) { c: Cell { row == v }  where c.row + v > 1  where c.row  set c.row = none  set c.val = c.row }",
    ));
    assert!(!e.contains("compares int with value"), "{e}");
    assert!(!e.contains("needs int operands"), "{e}");
    assert!(!e.contains("has type value?"), "{e}");
    assert!(e.contains("a condition must be bool"), "{e}");
}

#[test]
fn a_node_used_as_a_value_suggests_an_attribute() {
    let e = errors(&with_head("rule r { c: Cell d: Cell { val == c } }"));
    assert!(
        e.contains("`c` is a node, not a value: expected an attribute such as `c.row`"),
        "{e}"
    );
}

#[test]
fn parameters_range_over_values() {
    let e = errors(&with_head("rule r(n: int, v: value, v: value) { }"));
    assert!(
        e.contains("parameters range over the value domain: expected `value`, found `int`"),
        "{e}"
    );
    assert!(e.contains("duplicate parameter `v`"), "{e}");
}

#[test]
fn edges_must_fit_their_label_types() {
    let e = errors(&with_head(
        "a: Cell { row = 1, col = 1 }\ng: Group\ng -in-> a\nrule r { x: Group -in-> y: Group }",
    ));
    assert!(
        e.contains("edge `in` needs a `Cell` as its source: found `g` of type `Group`"),
        "{e}"
    );
    assert!(
        e.contains("edge `in` needs a `Cell` as its source: found `x` of type `Group`"),
        "{e}"
    );
}

#[test]
fn hand_written_nodes_need_their_required_attributes() {
    let e = errors(&with_head("a: Cell { col = 1, val = 9, bad = 2 }"));
    assert!(e.contains("node `a` needs a value for `row`"), "{e}");
    assert!(e.contains("value `9` is outside the domain"), "{e}");
    assert!(e.contains("unknown attribute `bad` of `Cell`"), "{e}");
}

#[test]
fn start_block_size_and_characters() {
    let text = CENTRE.replace(". . . 1\n}", ". . .\n}");
    let e = errors(&text);
    assert!(
        e.contains("error: start block has 15 cells, expected 16"),
        "{e}"
    );
    let text = CENTRE.replace(". . 3 .\n", ". x 3 .\n");
    let e = errors(&text);
    assert_eq!(
        line_with(&e, "unexpected"),
        "13:5: error: unexpected character `x`: expected a value (1..4) or `.`"
    );
}

#[test]
fn generator_shapes_that_do_not_fit() {
    let e = errors(&with_head("grid 4x6 of Cell\ngroups boxes 3x2, diagonals\ngroup w = block 2x2 at r4c1\ngroups regions { AABB }"));
    assert!(e.contains("boxes 3x2 do not tile the 4x6 grid"), "{e}");
    assert!(
        e.contains("diagonals need a square grid: expected as many rows as columns, found 4x6"),
        "{e}"
    );
    assert!(e.contains("block 2x2 at r4c1 runs off the 4x6 grid"), "{e}");
    assert!(e.contains("regions layout has 4 cells, expected 24"), "{e}");
}

#[test]
fn generators_need_a_grid_and_one_group_label() {
    let e = errors(&with_head("groups rows\nstart { . }"));
    assert!(e.contains("`groups` needs a grid"), "{e}");
    assert!(e.contains("a start block needs a grid"), "{e}");
    let e = errors(&with_head(
        "edge box: Cell -> Group\ngrid 4x4 of Cell\ngroups rows",
    ));
    assert!(e.contains("several edge labels lead from `Cell` to a group type (`in` or `box`): expected `via LABEL`"), "{e}");
    let e = errors("values 1\nnode Cell { val: value? }\ngrid 1x1 of Cell\ngroups rows");
    assert!(
        e.contains("no edge label leads from `Cell` to a group type"),
        "{e}"
    );
    let e = errors("values 1\nnode Cell { val: value? }\nnode G { n: int }\nedge in: Cell -> G\ngrid 1x1 of Cell\ngroups rows");
    assert!(
        e.contains("`n: int`: expected only optional attributes"),
        "{e}"
    );
}

#[test]
fn the_cell_value_attribute_must_be_unique() {
    let e = errors("values 1\nnode Cell { a: value?, b: value? }\ngrid 1x1 of Cell");
    assert!(
        e.contains("`Cell` has several attributes of type `value?` (`a`, `b`)"),
        "{e}"
    );
    let e = errors("values 1\nnode Cell { a: value }\ngrid 1x1 of Cell");
    assert!(e.contains("start empty, but it has `a: value`"), "{e}");
}

#[test]
fn given_types_and_hand_written_grids() {
    let e = errors(
        "values 1\nnode A { row: int }\nnode B { val: value, n: int }\ngrid 1x1 of A given B",
    );
    assert!(
        e.contains("a given cell cannot fill `n: int` of `B`"),
        "{e}"
    );
    let e = errors("values 1\nnode A { val: value? }\na: A\nb: A\ngrid 1x3 = a b a");
    assert!(e.contains("node `a` is twice in the grid"), "{e}");
    let e = errors("values 1\nnode A { val: value? }\na: A\ngrid 1x2 = a");
    assert!(e.contains("grid 1x2 needs 2 nodes, found 1"), "{e}");
}

#[test]
fn types_values_and_files_themselves() {
    let e = errors("node A : B\nnode C : D2\nnode D2 : C\nnode E { x: float }");
    assert!(e.contains("expected a `values` line"), "{e}");
    assert!(e.contains("unknown node type `B`"), "{e}");
    assert!(e.contains("node type `C` inherits from itself"), "{e}");
    assert!(
        e.contains("unknown attribute type `float`: expected int, value or bool"),
        "{e}"
    );
    let e = errors("values 1..3 3 B..A\nvalues 1");
    assert!(e.contains("duplicate value `3`"), "{e}");
    assert!(e.contains("bad range `B..A`"), "{e}");
    assert!(e.contains("duplicate `values` line"), "{e}");
}

#[test]
fn effects_check_their_nodes() {
    let e = errors(&with_head("rule r { c: Cell  not { d: Cell }  set d.val = 1  del x  new n: Cell  set n.val = 1  new c -in-> c }"));
    assert!(e.contains("unknown node `d`: expected `c`"), "{e}");
    assert!(e.contains("unknown node `x`"), "{e}");
    assert!(
        e.contains("a new `Cell` needs a value for `row`, `col`"),
        "{e}"
    );
    assert!(e.contains("`set` on the new node `n`"), "{e}");
    assert!(
        e.contains("edge `in` needs a `Group` as its target: found `c` of type `Cell`"),
        "{e}"
    );
}

#[test]
fn every_error_is_collected_in_source_order() {
    let e = errors(&with_head(
        "grid 4x4 of Cel\nrule r { c: Cell -inn-> g: Group }\nfinal: { x: Nope }",
    ));
    let lines: Vec<&str> = e.lines().filter(|l| l.starts_with("t.graft:")).collect();
    assert_eq!(lines.len(), 3, "{e}");
    assert!(lines[0].starts_with("t.graft:5:"), "{e}");
    assert!(lines[2].starts_with("t.graft:7:"), "{e}");
}

#[test]
fn no_input_makes_it_panic() {
    // Every prefix of a valid file, and every byte replaced by a troublesome character.
    let text = CENTRE;
    for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
        let _ = super::check(crate::diag::Source::new("t.graft", &text[..end]));
    }
    for i in (0..text.len()).step_by(3) {
        for c in ["}", "{", "-", "0", "x", "é", "(", "not", " "] {
            let mut t = text.to_string();
            t.replace_range(i..i + 1, c);
            let _ = super::check(crate::diag::Source::new("t.graft", t));
        }
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let long_sum = vec!["1"; 10_000].join(" + ");
    let deep_parens = format!("{}1{}", "(".repeat(5_000), ")".repeat(5_000));
    let deep_nacs = format!("c: Cell {} {}", "not { ".repeat(5_000), "}".repeat(5_000));
    let deep_not = format!("where {} true", "not ".repeat(10_000));
    let deep_neg = format!("where {} 1 == 1", "- ".repeat(10_000));
    for body in [
        format!("where {long_sum} == 1"),
        format!("where {deep_parens} == 1"),
        deep_nacs,
        deep_not,
        deep_neg,
    ] {
        let text = with_head(&format!("rule r {{ {body} }}"));
        let r = super::check(crate::diag::Source::new("t.graft", text));
        if let Err(e) = r {
            let e = e.to_string();
            assert!(e.contains("error"), "{e}");
        }
    }
}

#[test]
fn a_node_of_an_unknown_type_is_reported_once() {
    let e = errors(&with_head(
        "rule r(v: value) {\n  c: Cel { val == none }\n  not { c -in-> g: Group <-in- d: Cell { val == v } }\n  where c.row == 1\n  set c.val = v\n}",
    ));
    assert_eq!(e.matches(": error: ").count(), 1, "{e}");
    assert!(e.contains("6:6: error: unknown node type `Cel`"), "{e}");
}
