//! The slot engine (NACs answered from indexes) against the general matcher (NACs matched
//! on whole graphs), and one thread against several: the same states, transitions, dead
//! ends and solutions, in the same order.

use std::ffi::OsStr;

use crate::support::{
    all_rule_files, data, fixture, grafter, parse_json, rule, solve_json, temp_path, Json, Puzzle,
    Run,
};

/// Solutions, states, transitions and dead ends.
type Space = (u64, u64, u64, u64);

/// The numbers of a run that do not depend on the engine.
fn space(p: &Puzzle) -> Space {
    (
        p.stat("solutions"),
        p.stat("states"),
        p.stat("transitions"),
        p.stat("dead_ends"),
    )
}

fn engine_of(p: &Puzzle) -> String {
    p.summary
        .get("engine")
        .and_then(|e| e.as_str())
        .unwrap_or_default()
        .to_string()
}

/// Runs `--expand all` on both engines and compares every count and the solutions.
fn assert_engines_agree(rules: &str, puzzles: Option<&std::path::Path>) {
    let file = rule(rules);
    let slot = solve_json(&file, puzzles, &["--expand", "all"]);
    let graph = solve_json(&file, puzzles, &["--expand", "all", "--engine", "graph"]);
    assert_eq!(slot.len(), graph.len());
    for (s, g) in slot.iter().zip(&graph) {
        assert_eq!(engine_of(s), "slot", "{rules}: expected the slot engine");
        assert_eq!(engine_of(g), "graph");
        assert_eq!(space(s), space(g), "{rules} puzzle {}", s.number);
        assert_eq!(
            s.sorted_grids(),
            g.sorted_grids(),
            "{rules} puzzle {}",
            s.number
        );
    }
}

#[test]
fn group_nacs_from_indexes_match_the_matcher() {
    // 72,837 states, 436,549 transitions, 688 dead ends on both.
    assert_engines_agree("sudoku-4x4-centre", None);
    assert_engines_agree("sudoku-4x4-letters", None);
    assert_engines_agree("latin-4x4", None);
}

#[test]
fn group_nacs_agree_on_every_4x4_puzzle() {
    assert_engines_agree("sudoku-4x4", Some(&fixture("puzzles/4x4-first-row.txt")));
    // Puzzles with six givens or more keep the general engine's spaces small (the file
    // also holds the empty grid, whose 61.6 million states are for the slot engine).
    let lines = std::fs::read_to_string(data("variants/4x4.txt")).unwrap();
    let some: String = lines
        .lines()
        .filter(|l| l.chars().take(16).filter(|c| *c != '.').count() >= 6)
        .take(8)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(some.lines().count(), 8);
    let path = crate::support::temp_path("engines-4x4", "txt");
    std::fs::write(&path, some).unwrap();
    assert_engines_agree("sudoku-4x4", Some(&path));
    let _ = std::fs::remove_file(path);
}

/// Every rule file (the encodings too) has the same solutions on the engine it runs on as on
/// the general matcher; `grafter check` names the engine, and for a file the slot engine
/// does not take, the rule (or the `forbid` pattern) and the reason.
#[test]
fn every_rule_file_solves_alike_on_both_engines() {
    for path in all_rule_files() {
        let name = path.display().to_string();
        let auto = solve_json(&path, None, &[]).remove(0);
        let graph = solve_json(&path, None, &["--engine", "graph"]).remove(0);
        assert_eq!(engine_of(&graph), "graph", "{name}");
        assert_eq!(auto.stat("solutions"), graph.stat("solutions"), "{name}");
        assert_eq!(auto.sorted_grids(), graph.sorted_grids(), "{name}");
        let check = grafter(["check".as_ref(), path.as_os_str()]);
        check.ok();
        let engine = check
            .stdout
            .lines()
            .find(|l| l.starts_with("engine: "))
            .unwrap_or_default();
        match engine_of(&auto).as_str() {
            "slot" => assert!(engine.starts_with("engine: slot ("), "{name}: {engine}"),
            _ => assert!(
                engine.starts_with("engine: graph (not slot-filling: ")
                    && (engine.contains("rule `") || engine.contains("`forbid` patterns")),
                "{name}: {engine}"
            ),
        }
    }
}

/// Killer cages (NACs with `sum` and `count` over a cage) on the slot engine: every state,
/// transition, dead end and solution of `--expand all` as the general matcher finds them,
/// with each puzzle line's own cages and sums, and givens that keep the spaces small.
#[test]
fn group_nacs_with_aggregates_match_the_matcher() {
    let layers = std::fs::read_to_string(fixture("layers/killer-4x4.txt")).unwrap();
    let givens = ["1234341.........", "12..34..2.......", ".2.4..1.....3..2"];
    let lines: Vec<String> = layers
        .lines()
        .filter(|l| l.starts_with('.'))
        .take(3)
        .flat_map(|l| {
            let rest = &l[l.find('|').unwrap()..];
            givens.iter().map(move |g| format!("{g} {rest}"))
        })
        .collect();
    let path = temp_path("killer-givens", "txt");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    assert_engines_agree("killer-4x4", Some(&path));
    let _ = std::fs::remove_file(path);
}

#[test]
fn comparison_nacs_from_tables_match_the_matcher() {
    // Futoshiki's `<` NACs become tables over (witness value, placed value).
    assert_engines_agree("futoshiki-5x5", Some(&fixture("puzzles/futoshiki-5x5.txt")));
}

#[test]
fn edge_nacs_match_the_matcher() {
    // Anti-knight: a NAC over one edge, indexed per witness cell. Its 9x9 space under
    // `--expand all` is too large for the general engine, so focus results are compared
    // with the general engine's full space on a puzzle with few empty cells.
    let file = rule("anti-knight-9x9");
    let lines = std::fs::read_to_string(data("variants/9x9-antiknight.txt")).unwrap();
    let first = lines
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    // Fill all but the last 12 cells from the focus solution of the first puzzle.
    let path = crate::support::temp_path("engines-knight", "txt");
    std::fs::write(&path, format!("{first}\n")).unwrap();
    let solved = solve_json(&file, Some(&path), &[]);
    let grid = &solved[0].grids[0];
    let partial: String = grid
        .chars()
        .enumerate()
        .map(|(i, c)| if i >= 69 { '.' } else { c })
        .collect();
    std::fs::write(&path, format!("{partial}\n")).unwrap();
    let slot = solve_json(&file, Some(&path), &["--expand", "all"]);
    let graph = solve_json(
        &file,
        Some(&path),
        &["--expand", "all", "--engine", "graph"],
    );
    assert_eq!(space(&slot[0]), space(&graph[0]));
    assert!(slot[0].stat("states") > 12, "the space is not trivial");
    assert_eq!(slot[0].sorted_grids(), graph[0].sorted_grids());
    let _ = std::fs::remove_file(path);
}

#[test]
fn threads_change_neither_counts_nor_order() {
    let strip = |ps: Vec<Puzzle>| -> Vec<(Vec<String>, Space)> {
        ps.iter().map(|p| (p.grids.clone(), space(p))).collect()
    };
    // 490,152 solutions (196 MB of JSON lines a run): compared as printed, line by line,
    // rather than read into grids, which took ten times as long as the runs.
    const SUMMARY: &str = r#"{"type":"summary""#;
    let multi = data("sudoku9/multi.txt");
    let file = rule("sudoku-9x9");
    let solve_with = |threads: &str| {
        let args = ["solve".as_ref(), file.as_os_str(), "--puzzles".as_ref()];
        let rest = ["--format", "json", "--threads", threads];
        let run = grafter(
            args.into_iter()
                .chain([multi.as_os_str()])
                .chain(rest.map(OsStr::new)),
        );
        run.ok();
        run
    };
    let (one, two) = (solve_with("1"), solve_with("2"));
    let summaries = |run: &Run| -> Vec<Json> {
        (run.stdout.lines())
            .filter(|l| l.starts_with(SUMMARY))
            .map(|l| {
                let mut s = parse_json(l).expect("a summary line");
                // The one field that differs between runs.
                if let Some(fields) = s.as_object_mut() {
                    fields.remove("seconds");
                }
                s
            })
            .collect()
    };
    let summarised = summaries(&one);
    let counted: Vec<_> = (summarised.iter())
        .map(|s| s.get("solutions").and_then(Json::as_u64))
        .collect();
    assert_eq!(counted, [Some(12_690), Some(477_462)]);
    for (puzzle, count) in [(1, 12_690), (2, 477_462)] {
        let line = format!(r#"{{"type":"solution","puzzle":{puzzle},"#);
        let lines = one.stdout.lines().filter(|l| l.starts_with(&line)).count();
        assert_eq!(lines, count, "puzzle {puzzle}: a line per solution");
    }
    assert_eq!(summarised, summaries(&two), "same counts");
    fn listed(run: &Run) -> impl Iterator<Item = &str> {
        (run.stdout.lines()).filter(|l| !l.starts_with(SUMMARY))
    }
    let differs = (listed(&one).zip(listed(&two))).position(|(a, b)| a != b);
    assert_eq!(
        differs.map(|i| (i, listed(&one).nth(i), listed(&two).nth(i))),
        None,
        "solutions in the same order: the first line that differs"
    );
    assert_eq!(listed(&one).count(), listed(&two).count());
    // A single run split across threads: the empty 4x4 under focus (288 solutions), and a
    // 104,489-state space under all.
    let file = rule("sudoku-4x4");
    for (puzzles, extra) in [
        ("puzzles/empty-4x4.txt", &[][..]),
        ("puzzles/4x4-first-row.txt", &["--expand", "all"][..]),
    ] {
        let p = fixture(puzzles);
        let one = strip(solve_json(
            &file,
            Some(&p),
            &[extra, &["--threads", "1"]].concat(),
        ));
        let three = strip(solve_json(
            &file,
            Some(&p),
            &[extra, &["--threads", "3"]].concat(),
        ));
        assert_eq!(one, three, "{puzzles} {extra:?}");
    }
}

/// Files the slot engine must refuse, because a given or a created node would not be the
/// graph that filling a slot stands for: they run on whole graphs, `grafter check` names
/// the reason, and the counts are the general matcher's.
#[test]
fn files_the_slot_engine_must_refuse_run_on_whole_graphs() {
    let cases: [(&str, &str, Space); 5] = [
        (
            "created-supertype-of-cell",
            "creates a node of a type related to the cell it deletes",
            (16, 81, 216, 0),
        ),
        (
            "given-other-attributes",
            "a given in r1c1 would be a `NodeVal` with other attributes",
            (1, 12, 18, 2),
        ),
        (
            "given-other-type",
            "a given in r1c1 would not be the `NodeVal` the rules create",
            (2, 17, 28, 2),
        ),
        (
            "given-retypes-set-cell",
            "a given in r1c1 changes the cell's type",
            (12, 5_485, 24_456, 204),
        ),
        (
            "given-sets-deleted-cell",
            "a given in r1c1 would not be the `NodeVal` the rules create",
            (2, 35, 72, 4),
        ),
    ];
    for (name, reason, expected) in cases {
        let file = fixture(&format!("not-slot/{name}.graft"));
        let run = grafter(["check".as_ref(), file.as_os_str()]);
        run.ok();
        assert!(
            run.stdout.contains("engine: graph (not slot-filling: ") && run.stdout.contains(reason),
            "{name}: {}",
            run.stdout
        );
        let p = solve_json(&file, None, &["--expand", "all"]).remove(0);
        assert_eq!(engine_of(&p), "graph", "{name}");
        assert_eq!(space(&p), expected, "{name}");
    }
}

/// A NAC whose condition counts what a puzzle's layer adds (the negative constraint: two
/// neighbours one twice the other must have a ratio dot between them) is compiled per
/// puzzle, never from the file's graph without dots: every count of `--expand all` as the
/// general matcher finds it, on puzzles with all, and half, of one solution's dots.
#[test]
fn nac_conditions_counting_a_layer_compile_per_puzzle() {
    let file = fixture("layers/negative-ratio-4x4.graft");
    let puzzles = fixture("layers/negative-ratio-4x4.txt");
    let slot = solve_json(&file, Some(&puzzles), &["--expand", "all"]);
    let graph = solve_json(
        &file,
        Some(&puzzles),
        &["--expand", "all", "--engine", "graph"],
    );
    assert_eq!(slot.len(), 3);
    for (s, g) in slot.iter().zip(&graph) {
        assert_eq!(engine_of(s), "slot");
        assert_eq!(space(s), space(g), "puzzle {}", s.number);
        assert_eq!(s.sorted_grids(), g.sorted_grids(), "puzzle {}", s.number);
    }
    let counts: Vec<u64> = slot.iter().map(|p| p.stat("solutions")).collect();
    assert_eq!(counts, [1, 0, 1]);
}
