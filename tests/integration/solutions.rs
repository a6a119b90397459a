//! Every solution grafter reports passes the independent checker: on each rule file's start
//! block and on every puzzle of every file in data/variants/.

use crate::checker::check_all;
use crate::support::{data, puzzle_lines, rule, solve_json, Json};
use crate::variant::{rule_file, rule_files, start_givens};

#[test]
fn start_block_solutions_pass_the_checker() {
    for rf in rule_files() {
        let text = std::fs::read_to_string(rule(rf.name)).unwrap();
        let givens = rf.variant.parse_givens(&start_givens(&text));
        let puzzles = solve_json(&rule(rf.name), None, &[]);
        assert_eq!(
            puzzles.len(),
            1,
            "rules/{}.graft: the start block is the one puzzle",
            rf.name
        );
        let p = &puzzles[0];
        assert_eq!(p.number, 1);
        assert_eq!(
            p.grids.len() as u64,
            rf.start_solutions,
            "rules/{}.graft",
            rf.name
        );
        assert_eq!(
            p.summary.get("complete").and_then(Json::as_bool),
            Some(true),
            "rules/{}.graft",
            rf.name
        );
        check_all(&rf.variant, &givens, &p.grids)
            .unwrap_or_else(|e| panic!("rules/{}.graft: {e}", rf.name));
    }
}

/// Solves a data file with JSON output and checks every solution of every puzzle, and that
/// each puzzle has as many as the data file says.
fn assert_file_solutions(rules: &str, file: &str) {
    let rf = rule_file(rules);
    let lines = puzzle_lines(&data(file));
    let puzzles = solve_json(&rule(rules), Some(&data(file)), &[]);
    assert_eq!(puzzles.len(), lines.len(), "{file}: one summary per puzzle");
    for (p, (text, expected)) in puzzles.iter().zip(&lines) {
        let givens = rf.variant.parse_givens(text);
        let context = format!("{file} puzzle {} ({text})", p.number);
        assert_eq!(Some(p.grids.len() as u64), *expected, "{context}");
        assert_eq!(p.stat("solutions"), p.grids.len() as u64, "{context}");
        assert_eq!(
            p.summary.get("complete").and_then(Json::as_bool),
            Some(true),
            "{context}"
        );
        check_all(&rf.variant, &givens, &p.grids).unwrap_or_else(|e| panic!("{context}: {e}"));
    }
}

#[test]
fn solutions_4x4() {
    assert_file_solutions("sudoku-4x4", "variants/4x4.txt");
}

#[test]
fn solutions_4x4_centre() {
    assert_file_solutions("sudoku-4x4-centre", "variants/4x4-centre.txt");
}

#[test]
fn solutions_4x4_letters() {
    assert_file_solutions("sudoku-4x4-letters", "variants/4x4-letters.txt");
}

#[test]
fn solutions_6x6() {
    assert_file_solutions("sudoku-6x6", "variants/6x6.txt");
}

#[test]
fn solutions_8x8() {
    assert_file_solutions("sudoku-8x8", "variants/8x8.txt");
}

#[test]
fn solutions_9x9() {
    assert_file_solutions("sudoku-9x9", "variants/9x9.txt");
}

#[test]
fn solutions_9x9_x() {
    assert_file_solutions("x-sudoku-9x9", "variants/9x9-x.txt");
}

#[test]
fn solutions_9x9_windoku() {
    assert_file_solutions("windoku-9x9", "variants/9x9-windoku.txt");
}

#[test]
fn solutions_9x9_jigsaw() {
    assert_file_solutions("jigsaw-9x9", "variants/9x9-jigsaw.txt");
}

#[test]
fn solutions_9x9_antiknight() {
    assert_file_solutions("anti-knight-9x9", "variants/9x9-antiknight.txt");
}

#[test]
fn solutions_12x12() {
    assert_file_solutions("sudoku-12x12", "variants/12x12.txt");
}

#[test]
fn solutions_16x16() {
    assert_file_solutions("sudoku-16x16", "variants/16x16.txt");
}

#[test]
fn solutions_of_multi_line_1() {
    // Line 2 (477,462 solutions) is only counted, in counts.rs.
    let path = crate::support::temp_path("multi1", "txt");
    let line = std::fs::read_to_string(data("sudoku9/multi.txt"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    std::fs::write(&path, format!("{line}\n")).unwrap();
    let rf = rule_file("sudoku-9x9");
    let puzzles = solve_json(&rule("sudoku-9x9"), Some(&path), &[]);
    std::fs::remove_file(&path).ok();
    assert_eq!(puzzles.len(), 1);
    assert_eq!(puzzles[0].grids.len(), 12_690);
    let givens = rf
        .variant
        .parse_givens(line.split_whitespace().next().unwrap());
    check_all(&rf.variant, &givens, &puzzles[0].grids).unwrap();
}
