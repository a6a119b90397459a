//! The seed's three Sudoku encodings (`rules/encodings/`): attributes (an empty cell is
//! deleted and a filled one created in its place), neighbours (paths along row, column and
//! box chains) and groups (edges to group nodes), against `rules/sudoku-*.graft` and the
//! pinned `--expand all` spaces.

use std::path::{Path, PathBuf};

use grafter::output::grid_line;
use grafter::{explore, read_puzzles, Config, Engine, GraphSpace, Source};

use crate::support::{
    data, fixture, grafter, puzzle_lines, root, rule, solve_json, temp_path, Json, Puzzle,
};

const ENCODINGS: [&str; 3] = ["attributes", "neighbours", "groups"];

fn encoding(name: &str) -> PathBuf {
    root()
        .join("rules")
        .join("encodings")
        .join(format!("{name}.graft"))
}

/// The sorted solution grids of each puzzle of `puzzles` (the file's `start` block when
/// `None`), explored through the library on the whole-graph engine with focus expansion,
/// whose soundness is checked per start graph here (the command line picks the slot engine).
fn focus_solutions(rules: &Path, puzzles: Option<&Path>) -> Vec<Vec<String>> {
    let name = rules.display().to_string();
    let grammar = grafter::load_str(&name, &std::fs::read_to_string(rules).unwrap())
        .unwrap_or_else(|d| panic!("{d}"));
    let engine = Engine::new(&grammar);
    let givens: Vec<Option<grafter::Givens>> = match puzzles {
        None => vec![None],
        Some(p) => {
            let source = Source::new(p.display().to_string(), std::fs::read_to_string(p).unwrap());
            let list = read_puzzles(&grammar, &source).unwrap_or_else(|d| panic!("{d:?}"));
            list.into_iter().map(|p| Some(p.givens)).collect()
        }
    };
    givens
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let mut space = GraphSpace::new(&grammar, engine.start_graph(g.as_ref()));
            space.try_focus().unwrap_or_else(|u| {
                panic!("{name} puzzle {}: focus is unsound: {}", i + 1, u.reason)
            });
            let mut grids = Vec::new();
            let (_, stop) = explore(&space, &Config::default(), &mut |g| {
                grids.push(grid_line(&grammar, &g.graph).expect("a grid"))
            });
            assert_eq!(stop, None, "{name} puzzle {}", i + 1);
            grids.sort();
            grids
        })
        .collect()
}

/// The sorted solutions of `rules/NAME.graft` on each puzzle, from the command line.
fn reference(name: &str, puzzles: &Path) -> Vec<Vec<String>> {
    solve_json(&rule(name), Some(puzzles), &[])
        .iter()
        .map(Puzzle::sorted_grids)
        .collect()
}

fn assert_agree(file: &str, got: &[Vec<String>], expected: &[Vec<String>]) {
    assert_eq!(got.len(), expected.len(), "{file}: one result per puzzle");
    for (i, (g, x)) in got.iter().zip(expected).enumerate() {
        assert_eq!(
            g,
            x,
            "{file}, puzzle {}: other solutions than the reference",
            i + 1
        );
    }
}

#[test]
fn every_4x4_encoding_solves_every_4x4_puzzle_like_the_reference() {
    let puzzles = data("variants/4x4.txt");
    let expected = reference("sudoku-4x4", &puzzles);
    // The file's own counts hold for the reference, so the encodings are checked against
    // known answers, the empty grid's 288 solutions among them.
    let counts: Vec<Option<u64>> = puzzle_lines(&puzzles).into_iter().map(|(_, c)| c).collect();
    let sizes: Vec<Option<u64>> = expected.iter().map(|s| Some(s.len() as u64)).collect();
    assert_eq!(sizes, counts);
    for e in ENCODINGS {
        let file = format!("{e}-4x4");
        assert_agree(
            &file,
            &focus_solutions(&encoding(&file), Some(&puzzles)),
            &expected,
        );
    }
}

#[test]
fn every_centre_encoding_solves_every_centre_puzzle_like_the_reference() {
    let puzzles = data("variants/4x4-centre.txt");
    let expected = reference("sudoku-4x4-centre", &puzzles);
    for e in ENCODINGS {
        let file = format!("{e}-4x4-centre");
        assert_agree(
            &file,
            &focus_solutions(&encoding(&file), Some(&puzzles)),
            &expected,
        );
    }
}

/// The first `n` puzzles of `sudoku9/top95.txt`, as a puzzle file.
fn top95_head(n: usize) -> PathBuf {
    let lines = puzzle_lines(&data("sudoku9/top95.txt"));
    let path = temp_path("top95", "txt");
    let text: String = lines
        .iter()
        .take(n)
        .map(|(p, _)| format!("{p}\n"))
        .collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// Every 9x9 encoding on the first puzzles of top95 (hard, unique). All 95 take minutes on
/// the graph engine; `focus_9x9_encodings_solve_all_of_top95` (ignored) runs them.
#[test]
fn every_9x9_encoding_solves_hard_puzzles_like_the_reference() {
    let puzzles = top95_head(4);
    let expected = reference("sudoku-9x9", &puzzles);
    for e in ENCODINGS {
        let file = format!("{e}-9x9");
        assert_agree(
            &file,
            &focus_solutions(&encoding(&file), Some(&puzzles)),
            &expected,
        );
    }
    std::fs::remove_file(&puzzles).ok();
}

#[test]
#[ignore = "minutes: every 9x9 encoding on all of top95"]
fn focus_9x9_encodings_solve_all_of_top95() {
    let puzzles = data("sudoku9/top95.txt");
    let expected = reference("sudoku-9x9", &puzzles);
    for e in ENCODINGS {
        let file = format!("{e}-9x9");
        let started = std::time::Instant::now();
        let got = focus_solutions(&encoding(&file), Some(&puzzles));
        eprintln!(
            "{file}: 95 puzzles in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        assert_agree(&file, &got, &expected);
    }
}

#[test]
fn the_9x9_start_blocks_have_the_reference_solutions() {
    let expected = solve_json(&rule("sudoku-9x9"), None, &[])[0].sorted_grids();
    assert_eq!(expected.len(), 2);
    for e in ENCODINGS {
        let file = format!("{e}-9x9");
        assert_eq!(
            focus_solutions(&encoding(&file), None),
            vec![expected.clone()],
            "{file}"
        );
    }
}

/// The `--expand all` summary of one run of an encoding, with `extra` options.
fn expand_all(file: &str, puzzles: Option<&Path>, extra: &[&str]) -> Puzzle {
    let mut args = vec!["--expand", "all"];
    args.extend_from_slice(extra);
    let mut out = solve_json(&encoding(file), puzzles, &args);
    assert_eq!(out.len(), 1);
    out.remove(0)
}

/// (solutions, states, transitions, dead ends).
type Counts = (u64, u64, u64, u64);

fn space(p: &Puzzle) -> Counts {
    (
        p.stat("solutions"),
        p.stat("states"),
        p.stat("transitions"),
        p.stat("dead_ends"),
    )
}

/// GROOVE's semantics: the three encodings span the same space as `rules/sudoku-4x4*.graft`
/// (data/README.md's counts), with created nodes merged up to isomorphism, on the slot
/// engine and on whole graphs alike.
#[test]
fn expand_all_spaces_of_the_4x4_encodings() {
    let first_row = fixture("puzzles/4x4-first-row.txt");
    let cases: [(&str, Option<&Path>, Counts); 3] = [
        ("4x4-centre", None, (4, 72_837, 436_549, 688)),
        ("4x4", None, (12, 104_233, 643_152, 840)),
        ("4x4", Some(&first_row), (12, 104_489, 643_800, 816)),
    ];
    for (variant, puzzles, expected) in cases {
        let reference = {
            let mut out = solve_json(
                &rule(&format!("sudoku-{variant}")),
                puzzles,
                &["--expand", "all"],
            );
            out.remove(0)
        };
        for e in ENCODINGS {
            let file = format!("{e}-{variant}");
            for (engine, name) in [("auto", "slot"), ("graph", "graph")] {
                let p = expand_all(&file, puzzles, &["--engine", engine]);
                assert_eq!(
                    space(&p),
                    expected,
                    "{file} {puzzles:?} on {name}: (solutions, states, transitions, dead ends)"
                );
                assert_eq!(
                    p.summary.get("engine").and_then(Json::as_str),
                    Some(name),
                    "{file}"
                );
                assert_eq!(
                    p.summary.get("complete").and_then(Json::as_bool),
                    Some(true),
                    "{file}"
                );
                assert_eq!(
                    p.sorted_grids(),
                    reference.sorted_grids(),
                    "{file} {puzzles:?} on {name}"
                );
            }
        }
    }
}

/// The whole state spaces of the empty 4x4 grids (data/README.md): 61,556,225 and
/// 52,718,385 states, identical for the three encodings, on the slot engine.
#[test]
fn expand_all_spaces_of_the_empty_4x4_encodings() {
    let empty = temp_path("empty", "txt");
    std::fs::write(&empty, "................\n").unwrap();
    let cases: [(&str, Counts); 2] = [
        ("4x4", (288, 61_556_225, 526_297_216, 186_624)),
        ("4x4-centre", (168, 52_718_385, 446_219_296, 167_880)),
    ];
    for (variant, expected) in cases {
        for e in ENCODINGS {
            let file = format!("{e}-{variant}");
            let p = expand_all(&file, Some(&empty), &[]);
            assert_eq!(
                space(&p),
                expected,
                "{file}: (solutions, states, transitions, dead ends)"
            );
            assert_eq!(
                p.summary.get("engine").and_then(Json::as_str),
                Some("slot"),
                "{file}"
            );
        }
    }
    std::fs::remove_file(&empty).ok();
}

/// Two orders of filling the same cells give one state (created `NodeVal`s are anonymous;
/// the cells keep their identity).
#[test]
fn created_cells_are_merged_up_to_isomorphism() {
    // A solved grid with r1c1, r2c3, r3c2 and r4c4 emptied: each has one possible value and
    // none blocks another, so the states are the 2^4 subsets of placements, with 4 * 2^3
    // transitions. Without merging, the orders of placement would be states of their own.
    let puzzle = temp_path("iso", "txt");
    std::fs::write(&puzzle, ".23434.22.43432.\n").unwrap();
    let reference = solve_json(&rule("sudoku-4x4"), Some(&puzzle), &["--expand", "all"]).remove(0);
    assert_eq!(space(&reference), (1, 16, 32, 0));
    for e in ENCODINGS {
        for engine in ["auto", "graph"] {
            let p = expand_all(&format!("{e}-4x4"), Some(&puzzle), &["--engine", engine]);
            assert_eq!(space(&p), space(&reference), "{e}-4x4 --engine {engine}");
            assert_eq!(p.grids, vec!["1234341221434321".to_string()], "{e}-4x4");
        }
    }
    std::fs::remove_file(&puzzle).ok();
}

/// A few 4x4 puzzles (1, 2 and 3 solutions) whose `--expand all` spaces are small.
fn few_4x4_puzzles() -> PathBuf {
    let path = temp_path("few", "txt");
    std::fs::write(
        &path,
        ".1...24..31..423\n.1.......43.2..1\n......4.3.12...4\n",
    )
    .unwrap();
    path
}

/// `grafter solve` prints each solution as a grid, also where the cell nodes were deleted
/// and `NodeVal` nodes created in their place.
#[test]
fn solutions_print_as_grids() {
    let puzzles = few_4x4_puzzles();
    let expected = reference("sudoku-4x4", &puzzles);
    assert_eq!(
        expected.iter().map(Vec::len).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    for e in ENCODINGS {
        let file = encoding(&format!("{e}-4x4"));
        let got: Vec<Vec<String>> = solve_json(&file, Some(&puzzles), &[])
            .iter()
            .map(Puzzle::sorted_grids)
            .collect();
        assert_eq!(got, expected, "{e}-4x4");
        let run = grafter([
            "solve".as_ref(),
            file.as_os_str(),
            "--puzzles".as_ref(),
            puzzles.as_os_str(),
        ]);
        run.ok();
        // The first puzzle's one solution, drawn row by row (with box rules where the
        // file declares boxes).
        let rows: Vec<String> = run
            .stdout
            .lines()
            .filter(|l| !l.starts_with("puzzle") && !l.contains('-'))
            .map(|l| l.chars().filter(char::is_ascii_digit).collect())
            .collect();
        let first = ["4132", "3241", "2314", "1423"].map(String::from);
        assert!(
            rows.windows(4).any(|w| w == first),
            "{e}-4x4:\n{}",
            run.stdout
        );
        assert!(
            !run.stdout.contains(". ."),
            "{e}-4x4: an empty cell in a solution:\n{}",
            run.stdout
        );
    }
    std::fs::remove_file(&puzzles).ok();
}

/// `--expand focus` runs on the encodings, on the slot engine (the cell a rule deletes is a
/// slot filled by its replacement) and on whole graphs, with the reference solutions.
#[test]
fn focus_runs_on_both_engines() {
    let puzzles = few_4x4_puzzles();
    let reference = reference("sudoku-4x4", &puzzles);
    for e in ENCODINGS {
        for (engine, name) in [("auto", "slot"), ("graph", "graph")] {
            let runs = solve_json(
                &encoding(&format!("{e}-4x4")),
                Some(&puzzles),
                &["--engine", engine],
            );
            let mut got = Vec::new();
            for p in &runs {
                let s = &p.summary;
                assert_eq!(
                    s.get("expand").and_then(Json::as_str),
                    Some("focus"),
                    "{e} on {name}: {s:?}"
                );
                assert_eq!(
                    s.get("engine").and_then(Json::as_str),
                    Some(name),
                    "{e}: {s:?}"
                );
                assert!(
                    s.get("fallback").and_then(Json::as_str).is_none(),
                    "{e} on {name}: {s:?}"
                );
                got.push(p.sorted_grids());
            }
            assert_agree(&format!("{e} on {name}"), &got, &reference);
        }
    }
    std::fs::remove_file(&puzzles).ok();
}

/// The encodings pass `grafter check`, run on the slot engine, and their NACs form the
/// same exactly-once groups as the group nodes of `rules/` (found from the cells that
/// block each other where there is no group node).
#[test]
fn check_summarises_the_encodings() {
    for e in ENCODINGS {
        for (v, groups) in [("4x4", 12), ("4x4-centre", 13), ("9x9", 27)] {
            let run = grafter(["check".as_ref(), encoding(&format!("{e}-{v}")).as_os_str()]);
            run.ok();
            let expected = format!("NAC indexes, {groups} exactly-once groups)");
            assert!(
                run.stdout.contains("engine: slot (") && run.stdout.contains(&expected),
                "{e}-{v}: {}",
                run.stdout
            );
        }
    }
}

/// Every encoding on every puzzle of `variants/4x4.txt` and all of top95 from the command
/// line (the slot engine), against the reference and the data's counts.
#[test]
fn encodings_solve_the_puzzle_sets_on_the_slot_engine() {
    for (size, set) in [("4x4", "variants/4x4.txt"), ("9x9", "sudoku9/top95.txt")] {
        let puzzles = data(set);
        let expected = reference(&format!("sudoku-{size}"), &puzzles);
        let counts: Vec<Option<u64>> = puzzle_lines(&puzzles).into_iter().map(|(_, c)| c).collect();
        let sizes: Vec<Option<u64>> = expected.iter().map(|s| Some(s.len() as u64)).collect();
        if set.contains("4x4") {
            assert_eq!(sizes, counts, "{set}");
        } else {
            assert!(
                sizes.iter().all(|&c| c == Some(1)),
                "{set}: one solution each"
            );
        }
        for e in ENCODINGS {
            let runs = solve_json(&encoding(&format!("{e}-{size}")), Some(&puzzles), &[]);
            assert!(
                runs.iter()
                    .all(|p| p.summary.get("engine").and_then(Json::as_str) == Some("slot")),
                "{e}-{size}"
            );
            let got: Vec<Vec<String>> = runs.iter().map(Puzzle::sorted_grids).collect();
            assert_agree(&format!("{e}-{size} on {set}"), &got, &expected);
        }
    }
}

/// Replacements the slot engine cannot hold run on whole graphs, and `grafter check` says
/// which rule part stops the slot engine.
#[test]
fn replacements_outside_the_slot_engine_say_why() {
    let text = std::fs::read_to_string(encoding("attributes-4x4")).unwrap();
    let created = "new m: NodeVal { row = n.row, col = n.col, val = x.val }";
    assert!(text.contains(created));
    let cases = [
        (
            text.replace(
                created,
                "new m: NodeVal { row = n.row, col = 1, val = x.val }",
            ),
            "would be indistinguishable",
        ),
        (
            text.replace(
                "  del n\n",
                "  not { k: Node { row == n.row, col == n.col + 1 } }\n  del n\n",
            ),
            "can match a cell the rules delete",
        ),
    ];
    for (i, (variant, reason)) in cases.into_iter().enumerate() {
        assert_ne!(variant, text, "case {i} changes the file");
        let path = temp_path(&format!("replaced{i}"), "graft");
        std::fs::write(&path, variant).unwrap();
        let run = grafter(["check".as_ref(), path.as_os_str()]);
        run.ok();
        assert!(
            run.stdout.contains("engine: graph (not slot-filling: ") && run.stdout.contains(reason),
            "case {i}: {}",
            run.stdout
        );
        let p = solve_json(&path, None, &[]).remove(0);
        assert_eq!(
            p.summary.get("engine").and_then(Json::as_str),
            Some("graph")
        );
        std::fs::remove_file(&path).ok();
    }
}
