//! Values as numbers: arithmetic on the values of a numeric domain (`abs(d.val - v) == 1`),
//! `int(v)` on any domain, numbers assigned back as values, and puzzle lines with one
//! blank-separated word per cell. Counts are checked against the brute-force enumerator
//! on both engines, and every solution against the independent checker.

use crate::brute;
use crate::checker::check_all;
use crate::support::{count, grafter, rule, solve_json, temp_path};
use crate::variant::{rule_file, Variant};

/// Puzzles of the non-consecutive 6x6: the empty grid, the rule file's start block, and
/// two with a unique solution.
const NONCONSECUTIVE: [&str; 4] = [
    "....................................",
    ".......4....................6.......",
    "31.2.6.4...34..3511.3.2.53...2.6413.",
    "..5.46.....3.26..1.5....531.6..6..3.",
];

fn write_temp(tag: &str, ext: &str, text: &str) -> std::path::PathBuf {
    let path = temp_path(tag, ext);
    std::fs::write(&path, text).expect("a temporary file");
    path
}

#[test]
fn nonconsecutive_counts_match_brute_force_on_both_engines() {
    let rf = rule_file("nonconsecutive-6x6");
    let puzzles = write_temp("nonconsecutive", "txt", &(NONCONSECUTIVE.join("\n") + "\n"));
    let expected: Vec<u64> = NONCONSECUTIVE
        .iter()
        .map(|p| brute::count(&rf.variant, &rf.variant.parse_givens(p)))
        .collect();
    assert_eq!(expected, [48, 3, 1, 1]);
    let file = rule(rf.name);
    assert_eq!(count(&file, Some(&puzzles), &[]), expected);
    assert_eq!(
        count(&file, Some(&puzzles), &["--engine", "graph"]),
        expected
    );
    for (p, text) in solve_json(&file, Some(&puzzles), &[])
        .iter()
        .zip(NONCONSECUTIVE)
    {
        assert_eq!(
            p.summary.get("engine").and_then(|e| e.as_str()),
            Some("slot")
        );
        check_all(&rf.variant, &rf.variant.parse_givens(text), &p.grids).unwrap();
    }
    std::fs::remove_file(puzzles).ok();
}

/// The whole `--expand all` space of a puzzle with 20 givens (76,032 states).
#[test]
fn nonconsecutive_state_spaces_agree_between_engines() {
    let rf = rule_file("nonconsecutive-6x6");
    let puzzles = write_temp(
        "nonconsecutive-all",
        "txt",
        &format!("{}\n", NONCONSECUTIVE[2]),
    );
    let file = rule(rf.name);
    let slot = solve_json(&file, Some(&puzzles), &["--expand", "all"]);
    let graph = solve_json(
        &file,
        Some(&puzzles),
        &["--expand", "all", "--engine", "graph"],
    );
    for (s, g) in slot.iter().zip(&graph) {
        for stat in ["solutions", "states", "transitions", "dead_ends"] {
            assert_eq!(s.stat(stat), g.stat(stat), "puzzle {} {stat}", s.number);
        }
        assert!(s.stat("states") > 1);
        assert_eq!(s.sorted_grids(), g.sorted_grids());
    }
    std::fs::remove_file(puzzles).ok();
}

/// The non-consecutive 4x4 over `values` written as `digits` or as letters: on letters a
/// value's number is `int(v)`, its position.
fn nonconsecutive_4x4(values: &str, int: &str) -> String {
    format!(
        "values {values}
node Cell {{ row: int, col: int, val: value? }}
node Group
edge in: Cell -> Group
edge beside: Cell -> Cell
grid 4x4 of Cell
groups rows, columns, boxes 2x2
edges c -beside-> d where abs(c.row - d.row) + abs(c.col - d.col) == 1
rule place(v: value) {{
  c: Cell {{ val == none }}
  not {{ c -in-> g: Group <-in- d: Cell {{ val == v }} }}
  not {{ c -beside-> d: Cell {{ abs({int}) == 1 }} }}
  set c.val = v
}}
final: not {{ c: Cell {{ val == none }} }}
"
    )
}

#[test]
fn int_gives_letters_their_position() {
    let digits = write_temp(
        "nc-digits",
        "graft",
        &nonconsecutive_4x4("1..4", "d.val - v"),
    );
    let letters = write_temp(
        "nc-letters",
        "graft",
        &nonconsecutive_4x4("A B C D", "int(d.val) - int(v)"),
    );
    let brute = brute::count(
        &Variant::sudoku(4, 2, 2, Variant::digits(4)).with_nonconsecutive(),
        &[None; 16],
    );
    for file in [&digits, &letters] {
        assert_eq!(count(file, None, &[]), [brute]);
        assert_eq!(count(file, None, &["--engine", "graph"]), [brute]);
    }
    // On letters a value is not a number by itself: the message says how to get one.
    let bare = write_temp(
        "nc-bare",
        "graft",
        &nonconsecutive_4x4("A B C D", "d.val - v"),
    );
    let run = grafter(["check".as_ref(), bare.as_os_str()]);
    run.expect_code(1);
    assert!(
        run.stderr.contains("`-` needs int operands: expected int, found value (the values A..D are not all numbers: `int(v)` gives a value's position, 1 for the first)"),
        "{}",
        run.stderr
    );
    for f in [digits, letters, bare] {
        std::fs::remove_file(f).ok();
    }
}

#[test]
fn a_computed_number_is_assigned_as_the_value_written_so() {
    // Each cell takes its left neighbour's number plus one; from 3 the fourth cell would
    // need 5, which is no value, so that run finds nothing.
    let text = "values 1..4
node Cell { row: int, col: int, val: value? }
grid 1x4 of Cell
rule next {
  c: Cell { val == none }
  d: Cell { col == c.col - 1, val != none }
  set c.val = d.val + 1
}
final: not { c: Cell { val == none } }
";
    let file = write_temp("successor", "graft", text);
    let puzzles = write_temp("successor", "txt", "1...\n2...\n");
    let found = solve_json(&file, Some(&puzzles), &[]);
    assert_eq!(found[0].grids, ["1234"]);
    assert!(found[1].grids.is_empty());
    assert_eq!(
        found[1].summary.get("complete").and_then(|c| c.as_bool()),
        Some(true)
    );
    for f in [file, puzzles] {
        std::fs::remove_file(f).ok();
    }
}

#[test]
fn puzzle_lines_may_separate_their_cells() {
    // Values longer than one character need the separated form.
    let text = "values 1..10
node Cell { row: int, col: int, val: value? }
node Group
edge in: Cell -> Group
grid 1x10 of Cell
groups rows
rule place(v: value) {
  c: Cell { val == none }
  not { c -in-> g: Group <-in- d: Cell { val == v } }
  set c.val = v
}
final: not { c: Cell { val == none } }
";
    let file = write_temp("ten", "graft", text);
    let puzzles = write_temp(
        "ten",
        "txt",
        "1 2 3 4 5 6 7 8 . .   two ways\n. 2 3 4 5 6 7 8 9 10\n",
    );
    let found = solve_json(&file, Some(&puzzles), &[]);
    assert_eq!(
        found[0].sorted_grids(),
        ["1 2 3 4 5 6 7 8 10 9", "1 2 3 4 5 6 7 8 9 10"]
    );
    assert_eq!(found[1].grids, ["1 2 3 4 5 6 7 8 9 10"]);

    // A line with too few cells says which forms there are.
    let short = write_temp("ten-short", "txt", "1 2 3\n");
    let run = grafter([
        "solve".as_ref(),
        file.as_os_str(),
        "--puzzles".as_ref(),
        short.as_os_str(),
    ]);
    run.expect_code(1);
    assert!(
        run.stderr.contains(
            ":1:1: error: puzzle has 3 cells (one word per cell), expected 10 (the grid is 1x10)"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("separate the cells by blanks (`1 . 3 10`)"),
        "{}",
        run.stderr
    );
    for f in [file, puzzles, short] {
        std::fs::remove_file(f).ok();
    }

    // On one-character values both forms give the same puzzles.
    let compact = write_temp("4x4-compact", "txt", "1...........3...\n");
    let separated = write_temp(
        "4x4-separated",
        "txt",
        "1 . . .  . . . .  . . . .  3 . . .\n",
    );
    let sudoku = rule("sudoku-4x4");
    let a = solve_json(&sudoku, Some(&compact), &[]);
    let b = solve_json(&sudoku, Some(&separated), &[]);
    assert_eq!(a[0].grids, b[0].grids);
    assert!(!a[0].grids.is_empty());
    for f in [compact, separated] {
        std::fs::remove_file(f).ok();
    }
}
