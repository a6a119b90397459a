//! Bad input: one fixture per diagnostic in tests/fixtures/bad/, each asserting exit 1, the
//! `file:line:col: error:` location, a message substring and that nothing panicked.

use crate::support::{grafter, Run};

const BAD: &str = "tests/fixtures/bad";

/// Asserts a run failed with exit 1 and a diagnostic at `file:line:col` containing every
/// one of `needles`.
pub fn assert_diagnostic(run: &Run, file: &str, line: usize, col: usize, needles: &[&str]) {
    run.expect_code(1);
    let at = format!("{file}:{line}:{col}: error:");
    let msg = run
        .stderr
        .lines()
        .find(|l| l.contains(&at))
        .unwrap_or_else(|| {
            panic!(
                "grafter {}: no line with {at:?} in stderr:\n{}",
                run.args.join(" "),
                run.stderr
            )
        });
    for n in needles {
        assert!(
            msg.contains(n),
            "grafter {}: {at:?} line lacks {n:?}: {msg}\n{}",
            run.args.join(" "),
            run.stderr
        );
    }
    assert!(
        run.stdout.trim().is_empty() || !run.stdout.contains("\"solution\""),
        "no solutions after an error"
    );
}

fn check(name: &str) -> (String, Run) {
    let file = format!("{BAD}/{name}");
    let run = grafter(["check", &file]);
    (file, run)
}

fn solve_with(rules: &str, puzzles: &str) -> (String, Run) {
    let file = format!("{BAD}/{puzzles}");
    let run = grafter(["solve", rules, "--puzzles", &file, "--count"]);
    (file, run)
}

#[test]
fn syntax_error() {
    let (f, run) = check("syntax.graft");
    assert_diagnostic(&run, &f, 4, 32, &["expected"]);
}

#[test]
fn unknown_node_type() {
    let (f, run) = check("unknown-type.graft");
    assert_diagnostic(&run, &f, 19, 6, &["unknown node type", "Cel"]);
}

#[test]
fn unknown_edge_label() {
    let (f, run) = check("unknown-label.graft");
    assert_diagnostic(&run, &f, 20, 12, &["unknown edge label", "inn"]);
}

#[test]
fn unknown_node() {
    let (f, run) = check("unknown-node.graft");
    assert_diagnostic(&run, &f, 10, 31, &["unknown node", "r5c3"]);
}

#[test]
fn value_outside_the_domain() {
    let (f, run) = check("outside-domain.graft");
    assert_diagnostic(&run, &f, 24, 31, &["outside the domain", "5"]);
}

#[test]
fn givens_that_clash_in_a_start_block() {
    let (f, run) = check("start-clash.graft");
    assert_diagnostic(&run, &f, 15, 9, &["clashes with"]);
}

#[test]
fn solve_reports_the_same_diagnostics_as_check() {
    let f = format!("{BAD}/unknown-label.graft");
    let run = grafter(["solve", &f, "--count"]);
    assert_diagnostic(&run, &f, 20, 12, &["unknown edge label"]);
}

#[test]
fn every_diagnostic_of_a_file_is_reported() {
    let (f, run) = check("two-errors.graft");
    assert_diagnostic(&run, &f, 19, 6, &["unknown node type"]);
    assert_diagnostic(&run, &f, 20, 12, &["unknown edge label"]);
}

#[test]
fn givens_that_clash_in_a_puzzle_line() {
    let (f, run) = solve_with("rules/sudoku-4x4.graft", "clash.txt");
    assert_diagnostic(&run, &f, 2, 3, &["clashes with"]);
}

/// A clash that only the puzzle's own cages make is found as its run starts, on the engine
/// it is solved with: the puzzles before it are solved and printed, nothing after it.
#[test]
fn givens_that_clash_in_a_later_puzzle_line() {
    let file = format!("{BAD}/killer-clash.txt");
    for threads in ["1", "2"] {
        let args = ["--puzzles", &file, "--threads", threads];
        let run = grafter([&["solve", "rules/killer-4x4.graft", "--count"][..], &args].concat());
        assert_diagnostic(
            &run,
            &file,
            4,
            10,
            &["given `1` at r3c2 clashes with `1` at r2c1"],
        );
        // Puzzle 1 is the first of tests/fixtures/layers/killer-4x4.txt: 2 solutions.
        assert_eq!(run.stdout, "2\n", "threads {threads}");
        let svg = grafter(
            [
                &["solve", "rules/killer-4x4.graft", "--format", "svg"][..],
                &args,
            ]
            .concat(),
        );
        assert_diagnostic(&svg, &file, 4, 10, &["clashes with"]);
        // The whole-graph engine would find no solution: the clash is reported all the same.
        let solve = [
            "solve",
            "rules/killer-4x4.graft",
            "--count",
            "--engine",
            "graph",
        ];
        let graph = grafter([&solve[..], &args].concat());
        assert_diagnostic(&graph, &file, 4, 10, &["clashes with"]);
        assert_eq!(graph.stdout, "2\n", "threads {threads}");
    }
    // `grafter draw` checks the puzzle it draws, and only that one.
    let draw = [
        "draw",
        "rules/killer-4x4.graft",
        "--puzzles",
        &file,
        "--puzzle",
    ];
    let run = grafter([&draw[..], &["2"]].concat());
    assert_diagnostic(&run, &file, 4, 10, &["clashes with"]);
    let run = grafter([&draw[..], &["3"]].concat());
    run.expect_code(0);
    assert!(run.stdout.starts_with("<svg"), "{}", run.stdout);
}

#[test]
fn puzzle_line_of_the_wrong_length() {
    let (f, run) = solve_with("rules/sudoku-4x4.graft", "short.txt");
    assert_diagnostic(&run, &f, 1, 1, &["expected 16", "15"]);
}

#[test]
fn puzzle_line_with_a_foreign_character() {
    let (f, run) = solve_with("rules/sudoku-4x4.graft", "foreign.txt");
    assert_diagnostic(&run, &f, 1, 10, &["unexpected character", "x"]);
}

#[test]
fn a_missing_file_is_bad_input_not_a_panic() {
    let run = grafter(["check", "tests/fixtures/bad/no-such-file.graft"]);
    run.expect_code(1);
    assert!(run.stderr.contains("no-such-file.graft"), "{}", run.stderr);
}
