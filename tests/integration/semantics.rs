//! Exploration semantics and the command-line contract: `--expand all` state counts, focus
//! versus all and dfs versus bfs, summaries, limits, exit codes and the puzzle-file format.

use crate::brute;
use crate::support::{
    all_rule_files, count, data, fixture, grafter, puzzle_lines, rule, solve_json, Json, Puzzle,
};
use crate::variant::Variant;

/// The `--expand all` summary of the one puzzle a run solves.
fn expand_all(rules: &str, puzzles: Option<&str>) -> Puzzle {
    let p = puzzles.map(fixture);
    let mut out = solve_json(&rule(rules), p.as_deref(), &["--expand", "all"]);
    assert_eq!(out.len(), 1);
    out.remove(0)
}

fn assert_space(p: &Puzzle, solutions: u64, states: u64, transitions: u64, dead_ends: u64) {
    assert_eq!(
        (
            p.stat("solutions"),
            p.stat("states"),
            p.stat("transitions"),
            p.stat("dead_ends")
        ),
        (solutions, states, transitions, dead_ends),
        "(solutions, states, transitions, dead ends) in {:?}",
        p.summary
    );
    assert_eq!(p.summary.get("expand").and_then(Json::as_str), Some("all"));
    assert_eq!(
        p.summary.get("complete").and_then(Json::as_bool),
        Some(true)
    );
    assert_eq!(p.summary.get("stop"), Some(&Json::Null));
}

#[test]
fn expand_all_space_of_the_centre_example() {
    assert_space(
        &expand_all("sudoku-4x4-centre", None),
        4,
        72_837,
        436_549,
        688,
    );
}

#[test]
fn expand_all_space_of_the_example_without_centre_group() {
    assert_space(&expand_all("sudoku-4x4", None), 12, 104_233, 643_152, 840);
}

#[test]
fn expand_all_space_with_first_row_given() {
    assert_space(
        &expand_all("sudoku-4x4", Some("puzzles/4x4-first-row.txt")),
        12,
        104_489,
        643_800,
        816,
    );
}

#[test]
fn expand_all_space_of_a_futoshiki_matches_brute_force() {
    // Inequalities make the space depend on NACs over `<=` and `>=` and on undefined `none`.
    // The start block's space is too big for the brute force; this puzzle gives 11 cells.
    let rf = crate::variant::rule_file("futoshiki-5x5");
    let puzzle = "futoshiki-5x5.txt";
    let lines = puzzle_lines(&fixture(&format!("puzzles/{puzzle}")));
    let givens = rf.variant.parse_givens(&lines[0].0);
    let space = brute::space(&rf.variant, &givens, 2_000_000).expect("a small space");
    assert!(space.dead_ends > 0 && space.solutions > 0, "{space:?}");
    let p = expand_all("futoshiki-5x5", Some(&format!("puzzles/{puzzle}")));
    assert_space(
        &p,
        space.solutions,
        space.states,
        space.transitions,
        space.dead_ends,
    );
}

#[test]
fn summaries_name_the_defaults() {
    let out = solve_json(&rule("sudoku-4x4-centre"), None, &[]);
    assert_eq!(out.len(), 1);
    let s = &out[0].summary;
    assert_eq!(s.get("puzzle").and_then(Json::as_u64), Some(1));
    assert_eq!(s.get("solutions").and_then(Json::as_u64), Some(4));
    assert_eq!(s.get("expand").and_then(Json::as_str), Some("focus"));
    assert_eq!(s.get("order").and_then(Json::as_str), Some("dfs"));
    assert_eq!(s.get("complete").and_then(Json::as_bool), Some(true));
    assert_eq!(s.get("stop"), Some(&Json::Null));
    assert!(
        out[0].stat("states") > 0 && out[0].stat("transitions") > 0,
        "{s:?}"
    );
    out[0].stat("dead_ends");
    // Focus expansion only branches on one cell at a time: far fewer states than `all`.
    assert!(out[0].stat("states") < 72_837);
    let bfs = solve_json(&rule("sudoku-4x4-centre"), None, &["--order", "bfs"]);
    assert_eq!(
        bfs[0].summary.get("order").and_then(Json::as_str),
        Some("bfs")
    );
}

#[test]
fn the_centre_example_has_the_brute_force_solutions() {
    let out = solve_json(&rule("sudoku-4x4-centre"), None, &[]);
    let v = Variant::sudoku(4, 2, 2, Variant::digits(4)).with_window(2, 2, 2, 2);
    let mut expected: Vec<String> = brute::solutions(&v, &v.parse_givens("..3...1....3...1"))
        .iter()
        .map(|s| s.iter().map(|&x| v.values[x].as_str()).collect())
        .collect();
    expected.sort();
    assert_eq!(expected.len(), 4);
    assert_eq!(out[0].sorted_grids(), expected);
}

/// Solves the puzzles of a file (those with at least `min_givens` givens) with each option
/// set and asserts the same sorted solutions per puzzle, and as many as the file says.
fn assert_same_solutions(rules: &str, file: &str, options: &[&[&str]], min_givens: usize) {
    let lines: Vec<(String, Option<u64>)> = puzzle_lines(&data(file))
        .into_iter()
        .filter(|(p, _)| p.chars().filter(|&c| c != '.').count() >= min_givens)
        .collect();
    assert!(
        lines.len() >= 30,
        "{file}: {} puzzles with {min_givens} givens or more",
        lines.len()
    );
    let path = crate::support::temp_path("same", "txt");
    let text: String = lines.iter().map(|(p, _)| format!("{p}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let runs: Vec<Vec<Puzzle>> = options
        .iter()
        .map(|o| solve_json(&rule(rules), Some(&path), o))
        .collect();
    std::fs::remove_file(&path).ok();
    for (run, o) in runs.iter().zip(options) {
        assert_eq!(
            run.len(),
            lines.len(),
            "{file} {o:?}: one summary per puzzle"
        );
    }
    for (i, (text, expected)) in lines.iter().enumerate() {
        let base = runs[0][i].sorted_grids();
        assert_eq!(
            Some(base.len() as u64),
            *expected,
            "{file} puzzle {text} {:?}",
            options[0]
        );
        for (run, o) in runs.iter().zip(options).skip(1) {
            assert!(
                run[i].sorted_grids() == base,
                "{file} puzzle {text}: {o:?} gives other solutions than {:?}",
                options[0]
            );
        }
    }
}

const MODES: &[&[&str]] = &[
    &["--expand", "focus", "--order", "dfs"],
    &["--expand", "focus", "--order", "bfs"],
    &["--expand", "all", "--order", "dfs"],
    &["--expand", "all", "--order", "bfs"],
];

// `--expand all` on an empty 4x4 grid explores 50-60 million states (about 17 s each), and
// the data files hold eight of them: the default suite compares the modes on every puzzle
// with at least one given, pins the empty grids' spaces once (below), and the ignored test
// compares the modes on every line (`cargo test --release -- --ignored`).

#[test]
fn focus_all_dfs_bfs_agree_on_4x4() {
    assert_same_solutions("sudoku-4x4", "variants/4x4.txt", MODES, 1);
}

#[test]
fn focus_all_dfs_bfs_agree_on_4x4_centre() {
    assert_same_solutions("sudoku-4x4-centre", "variants/4x4-centre.txt", MODES, 1);
}

#[test]
fn focus_all_dfs_bfs_agree_on_4x4_letters() {
    assert_same_solutions("sudoku-4x4-letters", "variants/4x4-letters.txt", MODES, 0);
}

#[test]
fn dfs_and_bfs_agree_on_6x6_and_antiknight() {
    let both: &[&[&str]] = &[&["--order", "dfs"], &["--order", "bfs"]];
    assert_same_solutions("sudoku-6x6", "variants/6x6.txt", both, 0);
    assert_same_solutions("anti-knight-9x9", "variants/9x9-antiknight.txt", both, 0);
}

#[test]
#[ignore = "slow: the full --expand all spaces of the empty 4x4 grids (several minutes)"]
fn focus_all_dfs_bfs_agree_on_every_line_including_empty_grids() {
    assert_same_solutions("sudoku-4x4", "variants/4x4.txt", MODES, 0);
    assert_same_solutions("sudoku-4x4-centre", "variants/4x4-centre.txt", MODES, 0);
}

/// The biggest spaces in the suite: 61.6 and 52.7 million states (about 35 s together).
#[test]
fn expand_all_space_of_the_empty_grids() {
    let empty = Some("puzzles/empty-4x4.txt");
    assert_space(
        &expand_all("sudoku-4x4", empty),
        288,
        61_556_225,
        526_297_216,
        186_624,
    );
    assert_space(
        &expand_all("sudoku-4x4-centre", empty),
        168,
        52_718_385,
        446_219_296,
        167_880,
    );
}

#[test]
fn max_solutions_stops_with_exit_3_and_partial_results() {
    let run = grafter([
        "solve".as_ref(),
        rule("sudoku-4x4").as_os_str(),
        "--puzzles".as_ref(),
        fixture("puzzles/empty-4x4.txt").as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "--max-solutions".as_ref(),
        "1".as_ref(),
    ]);
    run.expect_code(3);
    let p = run.puzzles();
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].grids.len(), 1, "the one solution found is printed");
    assert_eq!(
        p[0].summary.get("complete").and_then(Json::as_bool),
        Some(false)
    );
    assert_ne!(
        p[0].summary.get("stop"),
        Some(&Json::Null),
        "the summary says why it stopped"
    );
    let v = Variant::sudoku(4, 2, 2, Variant::digits(4));
    crate::checker::check(&v, &[None; 16], &p[0].grids[0]).unwrap();
}

#[test]
fn max_states_stops_with_exit_3() {
    let run = grafter([
        "solve".as_ref(),
        rule("sudoku-4x4").as_os_str(),
        "--puzzles".as_ref(),
        fixture("puzzles/empty-4x4.txt").as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "--expand".as_ref(),
        "all".as_ref(),
        "--max-states".as_ref(),
        "1000".as_ref(),
    ]);
    run.expect_code(3);
    let p = run.puzzles();
    assert_eq!(
        p[0].summary.get("complete").and_then(Json::as_bool),
        Some(false)
    );
    assert!(p[0].stat("solutions") < 288);
}

#[test]
fn a_limit_that_is_not_reached_changes_nothing() {
    let out = solve_json(
        &rule("sudoku-4x4-centre"),
        None,
        &[
            "--max-solutions",
            "5",
            "--max-states",
            "1000000",
            "--timeout",
            "600",
        ],
    );
    assert_eq!(out[0].grids.len(), 4);
    assert_eq!(
        out[0].summary.get("complete").and_then(Json::as_bool),
        Some(true)
    );
}

#[test]
fn bad_usage_exits_2() {
    let r = rule("sudoku-4x4");
    for args in [
        vec!["solve".as_ref(), r.as_os_str(), "--frobnicate".as_ref()],
        vec![
            "solve".as_ref(),
            r.as_os_str(),
            "--order".as_ref(),
            "sideways".as_ref(),
        ],
        vec![
            "solve".as_ref(),
            r.as_os_str(),
            "--expand".as_ref(),
            "some".as_ref(),
        ],
        vec![
            "solve".as_ref(),
            r.as_os_str(),
            "--max-states".as_ref(),
            "many".as_ref(),
        ],
        vec!["frobnicate".as_ref()],
    ] {
        let run = grafter(&args);
        run.expect_code(2);
        assert!(
            !run.stderr.trim().is_empty(),
            "grafter {:?}: a usage message on stderr",
            run.args
        );
    }
}

#[test]
fn check_accepts_every_rule_file() {
    for path in all_rule_files() {
        grafter(["check".as_ref(), path.as_os_str()]).ok();
    }
    for f in ["x-sudoku-4x4.graft", "x-sudoku-6x6.graft"] {
        grafter(["check".as_ref(), fixture(f).as_os_str()]).ok();
    }
}

#[test]
fn plain_solve_prints_solutions_and_exits_0() {
    let run = grafter(["solve".as_ref(), rule("sudoku-4x4-centre").as_os_str()]);
    run.ok();
    assert!(!run.stdout.trim().is_empty());
}

#[test]
fn puzzle_files_skip_comments_and_blank_lines_and_accept_0_for_empty() {
    let f = fixture("puzzles/format.txt");
    let v = Variant::sudoku(4, 2, 2, Variant::digits(4)).with_window(2, 2, 2, 2);
    let third = brute::count(&v, &v.parse_givens("1234............"));
    assert_eq!(
        count(&rule("sudoku-4x4-centre"), Some(&f), &[]),
        vec![4, 4, third]
    );
    let p = solve_json(&rule("sudoku-4x4-centre"), Some(&f), &[]);
    assert_eq!(
        p.iter().map(|p| p.number).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    assert_eq!(p[0].sorted_grids(), p[1].sorted_grids());
}

#[test]
fn count_prints_one_line_per_puzzle_and_nothing_else() {
    let run = grafter([
        "solve".as_ref(),
        rule("sudoku-4x4").as_os_str(),
        "--puzzles".as_ref(),
        data("variants/4x4.txt").as_os_str(),
        "--count".as_ref(),
    ]);
    run.ok();
    assert_eq!(run.stdout.lines().count(), 40);
    assert!(
        run.stdout
            .lines()
            .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit())),
        "{}",
        run.stdout
    );
}
