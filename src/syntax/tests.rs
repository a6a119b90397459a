//! Parser tests: the language reference's examples parse, errors name what was expected.

use super::*;

const CENTRE: &str = r#"
// rules/sudoku-4x4-centre.graft
values 1..4

node Cell { row: int, col: int, val: value? }
node Group
edge in: Cell -> Group

grid 4x4 of Cell
groups rows, columns, boxes 2x2
group centre = r2c2 r2c3 r3c2 r3c3

start {                            // givens, row-major, '.' = empty
  . . 3 .
  . . 1 .
  . . . 3
  . . . 1
}

rule place(v: value) {
  c: Cell { val == none }
  not { c -in-> g: Group <-in- d: Cell { val == v } }   // NAC
  set c.val = v
}

final: not { c: Cell { val == none } }
"#;

fn parse_str(text: &str) -> Result<ast::File, Vec<Diagnostic>> {
    parse(&Source::new("t.graft", text))
}

fn error_of(text: &str) -> String {
    match parse_str(text) {
        Ok(f) => panic!("parsed: {f:?}"),
        Err(d) => {
            let s = Source::new("t.graft", text);
            d.iter().map(|d| s.render(d)).collect()
        }
    }
}

#[test]
fn the_centre_example_parses() {
    let f = parse_str(CENTRE).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(f.items.len(), 10);
}

#[test]
fn a_misplaced_effect_names_what_was_expected() {
    let e = error_of("values 1..4\nrule r { c: Cell not { c set c.val = 1 } }");
    assert!(
        e.starts_with("t.graft:2:26: error: expected a pattern element"),
        "{e}"
    );
    assert!(e.contains("`}`"), "{e}");
    assert!(e.contains("found `set`"), "{e}");
}

#[test]
fn a_missing_colon_in_an_edge_declaration() {
    let e = error_of("values 1..4\nedge in Cell -> Group");
    assert!(
        e.starts_with("t.graft:2:9: error: expected `:`, found `Cell`"),
        "{e}"
    );
}

#[test]
fn a_pattern_after_an_effect() {
    let e = error_of("values 1..4\nrule r { c: Cell set c.val = 1 c: Cell }");
    assert!(
        e.contains("expected an effect (set, new, del), an operator or `}`, found `c`"),
        "{e}"
    );
}

#[test]
fn a_missing_operand_and_an_unclosed_edge() {
    let e = error_of("values 1..4\nrule r { c: Cell { val == } }");
    assert!(
        e.contains("2:27: error: expected an expression, found `}`"),
        "{e}"
    );
    let e = error_of("values 1..4\nrule r { c -in- d }");
    assert!(
        e.contains("expected `->` or a path operator (* + ?), found `-`"),
        "{e}"
    );
}

#[test]
fn end_of_file_and_unknown_shapes() {
    let e = error_of("values 1..4\nnode");
    assert!(
        e.contains("2:5: error: expected a name, found end of file"),
        "{e}"
    );
    let e = error_of("values 1..4\ngroups rows, cols");
    assert!(
        e.contains("expected `rows`, `columns`, `boxes`, `diagonals` or `regions`, found `cols`"),
        "{e}"
    );
    let e = error_of("values 1..4\nnode Cell\n%");
    assert!(e.contains("3:1: error: expected a declaration"), "{e}");
    assert!(e.contains("found `%`"), "{e}");
}

#[test]
fn keywords_are_whole_words() {
    // `nodes` is a name, `node` a keyword: `nodes: T` is a node of the start graph.
    let f = parse_str("values 1..4 node T nodes: T").unwrap_or_else(|d| panic!("{d:?}"));
    assert!(matches!(f.items[2], ast::Item::NodeDef(_)));
    let e = error_of("values 1..4 node node");
    assert!(e.contains("expected a name, found `node`"), "{e}");
}

#[test]
fn paths_bind_postfix_then_sequence_then_alternative() {
    let f = parse_str("values 1 rule r { a -~x*.y|z+-> b }").unwrap_or_else(|d| panic!("{d:?}"));
    let ast::Item::Rule(r) = &f.items[1] else {
        panic!()
    };
    let ast::PatternElem::Chain(c) = &r.pattern.elems[0] else {
        panic!()
    };
    let ast::PathKind::Alt(alts) = &c.steps[0].0.path.kind else {
        panic!("{:?}", c.steps[0].0.path)
    };
    assert!(matches!(alts[0].kind, ast::PathKind::Seq(_)));
    assert!(matches!(alts[1].kind, ast::PathKind::Plus(_)));
    let ast::PathKind::Seq(seq) = &alts[0].kind else {
        panic!()
    };
    let ast::PathKind::Inverse(inv) = &seq[0].kind else {
        panic!()
    };
    assert!(matches!(inv.kind, ast::PathKind::Star(_)));
}

#[test]
fn expressions_follow_the_precedence_table() {
    let f = parse_str("values 1 rule r { where not a == 1 or b and -c * 2 + 1 < 3 }")
        .unwrap_or_else(|d| panic!("{d:?}"));
    let ast::Item::Rule(r) = &f.items[1] else {
        panic!()
    };
    let ast::PatternElem::Where(e) = &r.pattern.elems[0] else {
        panic!()
    };
    let ast::ExprKind::Binary(crate::rule::BinOp::Or, l, rhs) = &e.kind else {
        panic!("{e:?}")
    };
    assert!(matches!(
        l.kind,
        ast::ExprKind::Unary(crate::rule::UnOp::Not, _)
    ));
    assert!(matches!(
        rhs.kind,
        ast::ExprKind::Binary(crate::rule::BinOp::And, _, _)
    ));
}

#[test]
fn a_huge_number_is_an_error_not_a_panic() {
    let e = error_of("values 1..99999999999999999999");
    assert!(e.contains("is too large"), "{e}");
}

#[test]
fn blocks_keep_their_raw_text_and_grids_their_names() {
    let f = parse_str("values 1 grid 1x2 = a b given T groups regions { AB // } in a comment\n }")
        .unwrap_or_else(|d| panic!("{d:?}"));
    let ast::Item::Grid(g) = &f.items[1] else {
        panic!()
    };
    let ast::GridKind::Names { names, given } = &g.kind else {
        panic!()
    };
    assert_eq!(names.len(), 2);
    assert_eq!(given.as_ref().map(|g| g.name.as_str()), Some("T"));
    let ast::Item::Groups(gs) = &f.items[2] else {
        panic!()
    };
    let ast::GroupShapeKind::Regions(raw) = &gs.shapes[0].kind else {
        panic!()
    };
    assert!(raw.text.contains("AB // } in a comment"), "{:?}", raw.text);
}

/// The one `where` condition of the rule of `text`.
fn where_of(text: &str) -> ast::Expr {
    let f = parse_str(text).unwrap_or_else(|d| panic!("{d:?}"));
    let Some(ast::Item::Rule(r)) = f.items.last() else {
        panic!("{f:?}")
    };
    let Some(ast::PatternElem::Where(e)) = r.pattern.elems.last() else {
        panic!("{r:?}")
    };
    e.clone()
}

#[test]
fn aggregates_are_calls_of_their_name_with_a_pattern() {
    use crate::rule::AggOp;
    let e = where_of(
        "values 1 rule r { k: Cage where sum(d.val for k <-cage- d: Cell { val != none }) + 1 > k.sum }",
    );
    let ast::ExprKind::Binary(_, lhs, _) = &e.kind else {
        panic!("{e:?}")
    };
    let ast::ExprKind::Binary(_, sum, _) = &lhs.kind else {
        panic!("{lhs:?}")
    };
    let ast::ExprKind::Aggregate(AggOp::Sum, Some(body), pattern) = &sum.kind else {
        panic!("{sum:?}")
    };
    assert!(matches!(body.kind, ast::ExprKind::Attr(..)));
    assert_eq!(pattern.elems.len(), 1);
    let ast::PatternElem::Chain(chain) = &pattern.elems[0] else {
        panic!()
    };
    assert_eq!(chain.steps[0].1.name.name, "d");
    assert_eq!(chain.steps[0].1.conds.len(), 1);
    for (text, op) in [
        ("count(k <-cage- d: Cell) > 0", AggOp::Count),
        ("min(d.val for d: Cell) == 1", AggOp::Min),
        (
            "max(d.val for d: Cell where d.row > 1 not { d -in-> g: G }) == 1",
            AggOp::Max,
        ),
        ("all(d.val != none for d: Cell)", AggOp::All),
        ("not any (d.val == 1 for d: Cell)", AggOp::Any),
    ] {
        let e = where_of(&format!("values 1 rule r {{ where {text} }}"));
        let mut found = None;
        fn first(e: &ast::Expr, out: &mut Option<AggOp>) {
            match &e.kind {
                ast::ExprKind::Aggregate(op, ..) => *out = out.or(Some(*op)),
                ast::ExprKind::Binary(_, a, b) => {
                    first(a, out);
                    first(b, out);
                }
                ast::ExprKind::Unary(_, a) => first(a, out),
                _ => {}
            }
        }
        first(&e, &mut found);
        assert_eq!(found, Some(op), "{text}");
    }
}

#[test]
fn aggregate_words_stay_names_without_a_call() {
    // A cage's `sum`, a node named `count`, an attribute `max` and `for`: all names.
    let f = parse_str(
        "values 1 node Cage { sum: int, max: int } count: Cage { sum = 3, max = 1 }
         rule r { for: Cage { sum == max } where for.sum > 0 }",
    )
    .unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(f.items.len(), 4);
}

#[test]
fn a_broken_aggregate_names_what_was_expected() {
    let e = error_of("values 1..4\nrule r { where sum(d.val k <-cage- d: Cell) > 1 }");
    assert!(e.contains("2:26: error: expected"), "{e}");
    assert!(e.contains("`for`"), "{e}");
    let e = error_of("values 1..4\nrule r { where count() > 1 }");
    assert!(e.contains("2:22: error: expected a pattern element"), "{e}");
}
