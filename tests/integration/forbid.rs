//! Forbidden patterns (`forbid { ... }`): pruning against the brute force, `--expand
//! focus` against `--expand all`, the refusal of a pattern that is not monotone, and
//! syntax errors.

use crate::brute;
use crate::checker::check_all;
use crate::support::{fixture, grafter, solve_json, temp_path};
use crate::variant::Variant;

/// Two arrows on a 4x4 Sudoku, stated only as forbidden patterns: focus and all list the
/// same solutions, and they are the brute force's.
#[test]
fn forbidden_arrows_agree_with_the_brute_force_and_across_expansions() {
    let v = Variant::sudoku(4, 2, 2, Variant::digits(4))
        .with_arrow(&[(2, 2), (1, 1), (2, 1)])
        .with_arrow(&[(4, 1), (3, 2), (4, 2)]);
    let file = fixture("forbid/arrow-4x4.graft");
    let givens = v.parse_givens(&crate::variant::start_givens(
        &std::fs::read_to_string(&file).unwrap(),
    ));
    let focus = solve_json(&file, None, &["--expand", "focus"]);
    let all = solve_json(&file, None, &["--expand", "all"]);
    assert_eq!(focus[0].grids.len() as u64, brute::count(&v, &givens));
    check_all(&v, &givens, &focus[0].grids).unwrap();
    assert_eq!(focus[0].sorted_grids(), all[0].sorted_grids());
    let check = grafter(["check".as_ref(), file.as_os_str()]);
    check.ok();
    assert!(
        check.stdout.contains("forbidden patterns monotone: yes\n"),
        "{}",
        check.stdout
    );
    assert!(
        check.stdout.contains("expand focus: sound\n"),
        "{}",
        check.stdout
    );
}

/// A pattern that can stop matching as cells fill is refused for focus, word for word, and
/// the run falls back to `--expand all`, where the solution is still reached (filling
/// r4c4 before r4c3).
#[test]
fn a_forbid_that_is_not_monotone_falls_back_to_all() {
    let rel = "tests/fixtures/forbid/not-monotone.graft";
    let check = grafter(["check", rel]);
    check.ok();
    let line = format!("forbidden patterns monotone: no ({rel}:22:20: this condition of a forbidden pattern can turn from true to false as cells fill (a forbidden pattern must stay matched once it matches: compare filled cells, or say they are filled first with `val != none`))");
    assert!(
        check.stdout.lines().any(|l| l == line),
        "expected the line\n{line}\n--- stdout ---\n{}",
        check.stdout
    );
    let p = solve_json(&fixture("forbid/not-monotone.graft"), None, &[]);
    assert_eq!(p[0].grids.len(), 1);
    assert!(p[0].grids[0].ends_with("21"), "{:?}", p[0].grids);
    let run = grafter(["solve", rel]);
    assert!(run.stdout.contains("expand: all "), "{}", run.stdout);
}

/// A broken `forbid` is a located syntax error; `forbid` stays usable as a name.
#[test]
fn forbid_syntax_errors_are_located() {
    let path = temp_path("forbid-broken", "graft");
    std::fs::write(
        &path,
        "values 1..2\nnode Cell { val: value? }\nforbid { c: Cell { val == } }\n",
    )
    .unwrap();
    let run = grafter(["check".as_ref(), path.as_os_str()]);
    run.expect_code(1);
    let prefix = format!("{}:3:", path.display());
    assert!(
        run.stderr
            .lines()
            .any(|l| l.starts_with(&prefix) && l.contains(": error: ")),
        "{}",
        run.stderr
    );
    let named = temp_path("forbid-name", "graft");
    std::fs::write(&named, "values 1..2\nnode T\nforbid: T\n").unwrap();
    grafter(["check".as_ref(), named.as_os_str()]).ok();
}

/// The numbers of a run that do not depend on the engine: solutions, states, transitions
/// and dead ends.
fn space(p: &crate::support::Puzzle) -> (u64, u64, u64, u64) {
    (
        p.stat("solutions"),
        p.stat("states"),
        p.stat("transitions"),
        p.stat("dead_ends"),
    )
}

/// The slot engine checks `forbid` patterns on instances found once on the start graph;
/// the general matcher matches them on every state. Under `--expand all` both list the
/// same states, transitions, dead ends and solutions — for a monotone pattern (forward
/// checked: its forbidden placements are no transitions) and for one that is not (a
/// forbidden placement is a transition to a dead end); the focus and the colouring foci
/// find the same solutions.
#[test]
fn forbidden_patterns_on_the_slot_engine_match_the_matcher() {
    for name in ["forbid/arrow-4x4.graft", "forbid/not-monotone.graft"] {
        let file = fixture(name);
        let slot = solve_json(&file, None, &["--expand", "all"]).remove(0);
        let graph = solve_json(&file, None, &["--expand", "all", "--engine", "graph"]).remove(0);
        assert_eq!(slot.summary["engine"], "slot", "{name}");
        assert_eq!(space(&slot), space(&graph), "{name}");
        assert_eq!(slot.sorted_grids(), graph.sorted_grids(), "{name}");
        for focus in ["propagate", "dsatur", "fewest"] {
            let run = solve_json(&file, None, &["--focus", focus]).remove(0);
            assert_eq!(
                run.sorted_grids(),
                graph.sorted_grids(),
                "{name} --focus {focus}"
            );
        }
    }
    // Between lines: a pattern over two ends and a middle of one line, with counts that
    // find the ends; the library's puzzle with two more givens keeps the whole-graph
    // engine's space small.
    let puzzles = temp_path("between-givens", "txt");
    let line =
        std::fs::read_to_string(crate::support::rule("fpuzzles/between-4x4").with_extension("txt"))
            .unwrap()
            .lines()
            .find(|l| !l.starts_with('#') && !l.trim().is_empty())
            .unwrap()
            .to_string();
    let (givens, layers) = line.split_once('|').unwrap();
    let mut givens: Vec<char> = givens.trim().chars().collect();
    givens[4] = '2';
    givens[15] = '3';
    let line = format!("{} |{layers}\n", givens.iter().collect::<String>());
    std::fs::write(&puzzles, line).unwrap();
    let file = crate::support::rule("fpuzzles/between-4x4");
    let slot = solve_json(&file, Some(&puzzles), &["--expand", "all"]).remove(0);
    let graph = solve_json(
        &file,
        Some(&puzzles),
        &["--expand", "all", "--engine", "graph"],
    )
    .remove(0);
    assert_eq!(slot.summary["engine"], "slot");
    assert_eq!(space(&slot), space(&graph));
    assert_eq!(slot.sorted_grids(), graph.sorted_grids());
    assert_eq!(slot.stat("solutions"), 2);
    let _ = std::fs::remove_file(puzzles);
}
