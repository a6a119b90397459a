//! Layers from declaration to start graph: what each kind makes, how a puzzle line's
//! sections are read, and one test per diagnostic (declarations and sections).

use super::{read_puzzles, Puzzle};
use crate::diag::Source;
use crate::grammar::Grammar;
use crate::layer::{Content, Layers};
use crate::model::Value;

const HEAD: &str = "values 1..4
node Cell { row: int, col: int, val: value?, parity: int? }
node Group { left: int? }
node Cage { sum: int? }
node Thermo
edge in: Cell -> Group
edge cage: Cell -> Cage
edge on: Cell -> Thermo
edge up: Cell -> Cell
grid 4x4 of Cell
groups rows, columns via in
";

const LAYERS: &str = "layer region: regions of Group
layer cages: regions of Cage
layer sums: cages.sum
layer parity: parity
layer left: rows.left
layer thermos: lines of Thermo next up
";

fn grammar(body: &str) -> Grammar {
    let text = format!("{HEAD}{body}");
    crate::load_str("t.graft", &text).unwrap_or_else(|d| panic!("{d}"))
}

/// The rendered errors of checking `HEAD` + `body`.
fn check_errors(body: &str) -> String {
    let text = format!("{HEAD}{body}");
    match crate::load_str("t.graft", &text) {
        Ok(_) => panic!("no error in:\n{text}"),
        Err(d) => d.to_string(),
    }
}

fn read(g: &Grammar, lines: &str) -> Result<Vec<Puzzle>, String> {
    let source = Source::new("p.txt", lines);
    read_puzzles(g, &source).map_err(|ds| ds.iter().map(|d| source.render(d)).collect())
}

fn read_one(g: &Grammar, line: &str) -> Puzzle {
    let mut p = read(g, line).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.len(), 1);
    p.remove(0)
}

fn read_error(g: &Grammar, line: &str) -> String {
    match read(g, line) {
        Ok(_) => panic!("no error for {line:?}"),
        Err(e) => e,
    }
}

const EMPTY: &str = "................";

#[test]
fn each_kind_of_layer_makes_its_nodes_edges_and_values() {
    let g = grammar(LAYERS);
    let line = format!(
        "{EMPTY} | region: AABB AABB CCDD CCDD | cages: xx.. y... y... .... | sums: . 7 . . . . . . 3 . . . . . . . \
         | parity: 1... .... .... ...0 | left: 4 . 2 . | thermos: r1c1 r2c2 r3c3, r4c1 r4c2"
    );
    let p = read_one(&g, &line);
    let own = g.with_layers(&p.layers);
    let node = |name: &str| {
        let i = own.names.iter().position(|n| n == name);
        crate::model::NodeId::from_index(i.unwrap_or_else(|| panic!("no node {name}")))
    };
    let attr = |n: &str, a: &str| {
        let ty = own.types.node(own.base.ty(node(n)));
        own.base.attr(node(n), ty.attr(a).unwrap())
    };
    let edge = |a: &str, l: &str, b: &str| {
        let l = own.types.find_label(l).unwrap();
        own.base.has_edge(node(a), l, node(b))
    };
    // Regions: one node per token, in order of first appearance, an edge from each cell.
    let regions: Vec<&str> = own.names.iter().skip(g.names.len()).collect();
    assert_eq!(
        regions,
        [
            "region_A",
            "region_B",
            "region_C",
            "region_D",
            "cages_x",
            "cages_y",
            "thermos_1",
            "thermos_2"
        ]
    );
    assert!(edge("r1c2", "in", "region_A") && edge("r4c4", "in", "region_D"));
    assert!(edge("r1c1", "cage", "cages_x") && edge("r3c1", "cage", "cages_y"));
    assert!(!edge("r1c3", "cage", "cages_x"));
    // Region attributes at any cell of the region; cell and row attributes in order.
    assert_eq!(attr("cages_x", "sum"), Value::Int(7));
    assert_eq!(attr("cages_y", "sum"), Value::Int(3));
    assert_eq!(attr("r1c1", "parity"), Value::Int(1));
    assert_eq!(attr("r4c4", "parity"), Value::Int(0));
    assert_eq!(attr("r1c2", "parity"), Value::None);
    assert_eq!(attr("row1", "left"), Value::Int(4));
    assert_eq!(attr("row2", "left"), Value::None);
    assert_eq!(attr("row3", "left"), Value::Int(2));
    // Lines: membership and `next` along each line, not across lines.
    assert!(edge("r2c2", "on", "thermos_1") && edge("r4c2", "on", "thermos_2"));
    assert!(edge("r1c1", "up", "r2c2") && edge("r2c2", "up", "r3c3"));
    assert!(!edge("r3c3", "up", "r4c1") && edge("r4c1", "up", "r4c2"));
    // The file's own grammar is untouched.
    assert_eq!(g.names.len(), g.base.capacity());
    assert_eq!(own.names.len(), own.base.capacity());
}

#[test]
fn lines_without_sections_read_as_before_and_layers_not_given_are_empty() {
    let g = grammar(LAYERS);
    let p = read(
        &g,
        &format!("{EMPTY} a comment # with | a bar\n1 . . . . . . . . . . . . . . 4\n"),
    )
    .unwrap();
    assert!(p.iter().all(|p| p.layers.is_empty()));
    assert_eq!(p[0].layers.sections.len(), 6);
    assert_eq!(p[1].givens.values[15], Some(3));
    let p = read_one(
        &g,
        &format!("{EMPTY} | parity: 1111 .... .... ....  # a comment | not a section"),
    );
    let given: Vec<bool> = p.layers.sections.iter().map(Option::is_some).collect();
    assert_eq!(given, [false, false, false, true, false, false]);
    assert_eq!(
        p.layers.sections[3],
        Some(Content::Values(
            (0..16).map(|i| (i < 4).then_some(Value::Int(1))).collect()
        ))
    );
}

#[test]
fn value_and_bool_attributes_read_their_own_tokens() {
    let text = "values A B C D
node Cell { row: int, col: int, val: value?, dark: bool? }
node Group { hint: value? }
edge in: Cell -> Group
grid 2x2 of Cell
groups rows
layer hint: rows.hint
layer dark: dark
";
    let g = crate::load_str("t.graft", text).unwrap();
    let p = read_one(&g, "A... | hint: .D | dark: 1 0 true false");
    assert_eq!(
        p.layers.sections[0],
        Some(Content::Values(vec![None, Some(Value::Val(3))]))
    );
    assert_eq!(
        p.layers.sections[1],
        Some(Content::Values(
            [true, false, true, false]
                .map(|b| Some(Value::Bool(b)))
                .to_vec()
        ))
    );
    let e = read_error(&g, "A... | hint: E.");
    assert!(
        e.contains("1:14: error: unexpected `E` in layer `hint`: expected a value (A..D) or `.`"),
        "{e}"
    );
    let e = read_error(&g, "A... | dark: 1 0 yes .");
    assert!(
        e.contains("expected `1` or `0` (true or false) or `.`"),
        "{e}"
    );
}

#[test]
fn bad_sections_are_located_and_name_what_was_expected() {
    let g = grammar(LAYERS);
    let e = read_error(&g, &format!("{EMPTY} | regoin: AABBAABBCCDDCCDD"));
    assert!(
        e.contains(
            "p.txt:1:20: error: unknown layer `regoin`: expected the name of a declared layer"
        ),
        "{e}"
    );
    assert!(
        e.contains("the rule file declares `region`, `cages`, `sums`, `parity`, `left`, `thermos`"),
        "{e}"
    );
    let e = read_error(&g, &format!("{EMPTY} | AABBAABBCCDDCCDD"));
    assert!(
        e.contains(
            "1:20: error: expected a layer's name and `:` after `|`, found `AABBAABBCCDDCCDD`"
        ),
        "{e}"
    );
    let e = read_error(&g, &format!("{EMPTY} | region: AABB AABB CCDD CCD"));
    assert!(e.contains("1:28: error: layer `region` has 4 words of 15 characters, expected 16 tokens (one region name per cell)"), "{e}");
    let e = read_error(&g, &format!("{EMPTY} | left: 1 2 3"));
    assert!(e.contains("expected 4 tokens (one token per row)"), "{e}");
    let e = read_error(&g, &format!("{EMPTY} | region: AABB AABB CC-D CCDD"));
    assert!(
        e.contains("1:40: error: unexpected `-` in layer `region`: expected a region name"),
        "{e}"
    );
    let e = read_error(&g, &format!("{EMPTY} | parity: 1... .... .x.. ...."));
    assert!(
        e.contains("1:39: error: unexpected `x` in layer `parity`: expected a number or `.`"),
        "{e}"
    );
    let e = read_error(
        &g,
        &format!("{EMPTY} | parity: 1111 .... .... .... | parity: ................"),
    );
    assert!(
        e.contains("1:50: error: layer `parity` is given twice on this line"),
        "{e}"
    );
    let e = read_error(&g, &format!("{EMPTY} extra | parity: 1111 .... .... ...."));
    assert!(e.contains("1:18: error: unexpected `extra` after the 16 cells: expected `|` and a layer's section"), "{e}");
}

#[test]
fn region_attributes_need_a_region_and_one_value_each() {
    let g = grammar(LAYERS);
    let e = read_error(
        &g,
        &format!("{EMPTY} | sums: . 7 . . . . . . . . . . . . . ."),
    );
    assert!(e.contains("1:28: error: layer `sums` sets a value at r1c2, which is in no region of layer `cages`: expected `.` there"), "{e}");
    let e = read_error(
        &g,
        &format!("{EMPTY} | cages: xx.. .... .... .... | sums: 3 4 . . . . . . . . . . . . . ."),
    );
    assert!(
        e.contains("error: layer `sums` gives region `cages_x` a second value"),
        "{e}"
    );
    // The same value twice is no contradiction.
    read_one(
        &g,
        &format!("{EMPTY} | cages: xx.. .... .... .... | sums: 3 3 . . . . . . . . . . . . . ."),
    );
}

#[test]
fn lines_name_cells_of_the_grid_once_each() {
    let g = grammar(LAYERS);
    let e = read_error(&g, &format!("{EMPTY} | thermos: r1c1 r5c1"));
    assert!(e.contains("1:34: error: unknown cell `r5c1` in layer `thermos`: expected a cell of the grid (r1c1 .. r4c4)"), "{e}");
    let e = read_error(&g, &format!("{EMPTY} | thermos: r1c1 r1c2 r1c1"));
    assert!(
        e.contains("cell `r1c1` is twice on line 1 of layer `thermos`"),
        "{e}"
    );
    let e = read_error(&g, &format!("{EMPTY} | thermos: r1c1 r1c2,, r2c2"));
    assert!(
        e.contains("1:39: error: empty line in layer `thermos`"),
        "{e}"
    );
    let p = read_one(&g, &format!("{EMPTY} | thermos:"));
    assert_eq!(p.layers.sections[5], Some(Content::Lines(Vec::new())));
}

#[test]
fn generated_names_must_be_new() {
    let g = grammar("a_b: Group\nlayer a: regions of Group\nlayer a_b: regions of Group\n");
    let e = read_error(&g, &format!("{EMPTY} | a: b... .... .... ...."));
    assert!(
        e.contains("1:23: error: this makes a node `a_b`, a name already taken"),
        "{e}"
    );
    // The two layers' names meet whether or not a node of the file starts `a_`, and
    // whichever layer the line gives first.
    let a = "a: b_c b_c b_c b_c . . . . . . . . . . . .";
    let a_b = "a_b: c... .... .... ....";
    for file in [
        &g,
        &grammar("layer a: regions of Group\nlayer a_b: regions of Group\n"),
    ] {
        let e = read_error(file, &format!("{EMPTY} | {a} | {a_b}"));
        assert!(
            e.contains("1:70: error: this makes a node `a_b_c`, a name already taken"),
            "{e}"
        );
        let e = read_error(file, &format!("{EMPTY} | {a_b} | {a}"));
        assert!(
            e.contains("this makes a node `a_b_c`, a name already taken"),
            "{e}"
        );
    }
}

#[test]
fn declarations_are_checked_against_the_types() {
    let e = check_errors("layer x: regions of Cell\n");
    assert!(
        e.contains("12:21: error: region nodes of type `Cell` start with every attribute none"),
        "{e}"
    );
    let e = check_errors("layer x: regions of Group via cage\n");
    assert!(
        e.contains(
            "edge `cage` goes from `Cell` to `Cage`: expected a label from `Cell` to `Group`"
        ),
        "{e}"
    );
    let e = check_errors("layer x: colour\n");
    assert!(e.contains("unknown attribute `colour` of `Cell` (the type of the grid cells): expected `row`, `col`, `val` or `parity`"), "{e}");
    let e = check_errors("layer x: row\n");
    assert!(
        e.contains("`row: int` of `Cell` is not optional: expected `row: int?`"),
        "{e}"
    );
    let e = check_errors("layer x: val\n");
    assert!(
        e.contains("`val` holds a cell's value, which the givens set"),
        "{e}"
    );
    let e = check_errors("layer x: columns.top\n");
    assert!(
        e.contains("unknown attribute `top` of `Group` (the type of the columns)"),
        "{e}"
    );
    let e = check_errors("layer x: boxes.left\n");
    assert!(e.contains("error: expected"), "{e}");
    let e = check_errors("layer x: cages.sum\n");
    assert!(
        e.contains(
            "unknown layer `cages`: expected `rows`, `columns`, a regions or a lines layer (none)"
        ),
        "{e}"
    );
    let e = check_errors("layer p: parity\nlayer x: p.sum\n");
    assert!(
        e.contains("layer `p` is neither a regions nor a lines layer"),
        "{e}"
    );
    let e = check_errors("layer p: parity\nlayer p: parity\n");
    assert!(e.contains("duplicate layer `p`"), "{e}");
    let e = check_errors("layer t: lines of Thermo next on\n");
    assert!(
        e.contains(
            "edge `on` goes from `Cell` to `Thermo`: expected a label from `Cell` to `Cell`"
        ),
        "{e}"
    );
    let text = "values 1..4\nnode Cell { row: int, col: int, val: value?, p: int? }\nnode Group { left: int? }\nedge in: Cell -> Group\ngrid 4x4 of Cell\ngroups columns\nlayer x: rows.left\n";
    let e = crate::load_str("t.graft", text).unwrap_err().to_string();
    assert!(e.contains("7:10: error: `rows.left` sets the groups `groups rows` makes: expected a node `row1`, found none"), "{e}");
}

#[test]
fn layer_stays_a_name_and_a_file_gives_its_own_content() {
    // `layer`, `lines` and `next` are words only in a declaration.
    let g = grammar("layer: Group\nlines: Group\nnext: Group\nr1c1 -in-> layer\n");
    for name in ["layer", "lines", "next"] {
        assert!(g.names.iter().any(|n| n == name), "{name}");
    }
    let g = grammar("layer region: regions of Group = {\n  AABB\n  AABB // rows 3 and 4 below\n  CCDD CCDD\n}\n");
    assert_eq!(g.names.iter().next_back(), Some("region_D"));
    let bare = g
        .layer_base
        .as_ref()
        .expect("the file's own layers are kept apart");
    assert_eq!(bare.names.len() + 4, g.names.len());
    // A puzzle line's layers replace the file's: without a section, no regions.
    let p = read_one(&g, EMPTY);
    assert_eq!(g.with_layers(&p.layers).names.len(), bare.names.len());
    let p = read_one(&g, &format!("{EMPTY} | region: ABCD ABCD ABCD ABCD"));
    let names = g.with_layers(&p.layers).names;
    let last: Vec<&str> = names.iter().rev().take(4).collect();
    assert_eq!(last, ["region_D", "region_C", "region_B", "region_A"]);
    let e = check_errors("layer region: regions of Group = { AABB AABB CCDD CCD }\n");
    assert!(
        e.contains("12:36: error: layer `region` has 4 words of 15 characters"),
        "{e}"
    );
}

#[test]
fn empty_layers_are_empty() {
    assert!(Layers::default().is_empty());
    assert!(Layers {
        sections: vec![None, None]
    }
    .is_empty());
}

mod words {
    use crate::diag::Span;
    use crate::puzzle::sections::words;
    use proptest::prelude::*;

    /// The words of `text` as `char::is_whitespace` separates them, char by char.
    pub(super) fn reference(text: &str, at: usize) -> Vec<(Span, &str)> {
        let mut out = Vec::new();
        let mut start = None;
        for (j, ch) in text.char_indices().chain([(text.len(), ' ')]) {
            match (start, ch.is_whitespace()) {
                (None, false) => start = Some(j),
                (Some(s), true) => {
                    out.push((Span::new(at + s, at + j), &text[s..j]));
                    start = None;
                }
                _ => {}
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        /// ASCII lines (read byte by byte) and the rest split alike: every blank
        /// `char::is_whitespace` names separates, the vertical tab and no-break space
        /// included.
        #[test]
        fn split_where_chars_are_blank(
            text in proptest::collection::vec(
                prop::sample::select(vec![
                    "a", "1", ".", "|", " ", "\t", "\n", "\u{b}", "\u{c}", "\r", "\u{a0}",
                    "\u{3000}", "é", "ab", "  ",
                ]),
                0..40,
            ).prop_map(|parts| parts.concat()),
            at in 0usize..100,
        ) {
            prop_assert_eq!(words(&text, at), reference(&text, at));
        }
    }
}

#[test]
fn regions_are_numbered_as_they_first_appear_whatever_their_names_length() {
    let g = grammar("layer region: regions of Group via in\n");
    let line = "................ | region: b b a a b b a a cc cc d d cc cc d d\n";
    let puzzles = read_puzzles(&g, &Source::new("p.txt", line)).expect("reads");
    let Some(Content::Regions { names, cells }) = &puzzles[0].layers.sections[0] else {
        panic!("no regions: {:?}", puzzles[0].layers.sections);
    };
    assert_eq!(names, &["b", "a", "cc", "d"]);
    let want = [0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3];
    assert_eq!(cells, &want.map(Some).to_vec());
}

/// A line's cells as the module's documentation says they read, against a plain reader of
/// that text: the same givens and spans, or an error at the same place.
mod cells {
    use super::super::read_puzzles;
    use crate::diag::{Source, Span};
    use crate::grammar::Grammar;
    use proptest::prelude::*;

    /// What a line's cells read as: each cell's value and span, or where the first error
    /// is.
    type Cells = Result<(Vec<Option<u16>>, Vec<Span>), Span>;

    /// The rule files: values `1..4` (`0` an empty cell), `0..3` (`0` a value), and a
    /// shaped grid (holes at the corners), each 4x4.
    fn grammars() -> Vec<Grammar> {
        let file = |values: &str, shape: &str| {
            let text =
                format!("values {values}\nnode Cell {{ val: value? }}\ngrid 4x4 of Cell{shape}\n");
            crate::load_str("t.graft", &text).unwrap_or_else(|d| panic!("{d}"))
        };
        vec![
            file("1..4", ""),
            file("0..3", ""),
            file("1..4", " shape {\n  .##.\n  ####\n  ####\n  .##.\n}"),
        ]
    }

    /// Char by char, as the module's documentation reads a line: compact when every value
    /// is one character and the first word has a character per position, else a word
    /// per position; `.` empty, `0` empty where no value is named so, holes skipped.
    fn reference(g: &Grammar, line: &str) -> Cells {
        let grid = g.grid.as_ref().expect("a grid");
        let domain = &g.domain;
        let words = super::words::reference(line, 0);
        let area = grid.area();
        let single = (0..domain.len() as u16).all(|x| domain.name(x).chars().count() == 1);
        let first = words.first().map_or("", |w| w.1);
        let tokens: Vec<(Span, &str)> = if single && first.chars().count() == area {
            let at = words[0].0.start;
            (first.char_indices())
                .map(|(j, ch)| {
                    (
                        Span::new(at + j, at + j + ch.len_utf8()),
                        &first[j..j + ch.len_utf8()],
                    )
                })
                .collect()
        } else if words.len() >= area {
            words[..area].to_vec()
        } else {
            let start = words.first().map_or(0, |w| w.0.start);
            return Err(Span::new(start, words.last().map_or(start, |w| w.0.end)));
        };
        let zero_empty = domain.find("0").is_none();
        let (mut values, mut spans) = (Vec::new(), Vec::new());
        for (pos, (span, token)) in tokens.into_iter().enumerate() {
            if grid.is_hole(pos) {
                continue;
            }
            values.push(match token {
                "." => None,
                "0" if zero_empty => None,
                _ => Some(domain.find(token).ok_or(span)?),
            });
            spans.push(span);
        }
        Ok((values, spans))
    }

    fn read(g: &Grammar, line: &str) -> Cells {
        match read_puzzles(g, &Source::new("p.txt", line)) {
            Ok(mut puzzles) => {
                assert_eq!(puzzles.len(), 1, "{line:?}");
                let givens = puzzles.remove(0).givens;
                Ok((givens.values, givens.spans))
            }
            Err(errors) => Err(errors[0].span),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

        /// Lines of cells in either form, some with a wrong character, some too short,
        /// some not ASCII, some with a comment after the cells.
        #[test]
        fn cells_read_as_documented(
            which in 0usize..3,
            cells in proptest::collection::vec(
                prop::sample::select(vec!["1", "2", "3", "4", "0", ".", "x", "é", "-"]),
                14..18,
            ),
            separated in any::<bool>(),
            lead in prop::sample::select(vec!["", " ", "\t", "\u{a0}"]),
            tail in prop::sample::select(vec!["", " # note", " 1", "\t2", "\u{b}3", "\u{3000}5"]),
        ) {
            let g = &grammars()[which];
            let body = cells.concat();
            let body = if separated { cells.join(" ") } else { body };
            let line = format!("{lead}{body}{tail}");
            // Not a comment line nor a line of sections: those read otherwise.
            prop_assume!(!line.trim_start().starts_with('#'));
            prop_assert_eq!(read(g, &line), reference(g, &line), "{:?}", line);
        }
    }
}
