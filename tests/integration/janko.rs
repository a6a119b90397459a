//! Janko's published puzzles of the overlapping and shaped Sudoku kinds, solved by the rule
//! files in `rules/`: every puzzle exactly once, with the published solution.
//!
//! The puzzles are read from `../shared/data/janko/` (or `$GRAFTER_DATA/janko/`), which is
//! not part of the repository; without it each test says so on stderr and skips. A
//! dataset's `problem` is converted here to a puzzle line: one character per position,
//! `-` (an empty cell, or a hole of the shape) becomes `.`.

use std::time::Duration;

use crate::support::{external_data, parse_json, rule, solve_json, temp_path, Json};

/// One published puzzle: its id, its puzzle line and its solution as grafter prints a
/// grid in JSON (a blank at each hole).
struct Published {
    id: String,
    line: String,
    solution: String,
}

/// The layer of `rows` lines after the `rows cols` header, as one token per position.
fn tokens(text: &str) -> Result<(usize, usize, Vec<String>), String> {
    let mut lines = text.lines();
    let head: Vec<usize> = lines
        .next()
        .ok_or("no header")?
        .split_whitespace()
        .map(|w| w.parse().map_err(|_| format!("bad header word {w:?}")))
        .collect::<Result<_, _>>()?;
    let (rows, cols) = match head.as_slice() {
        [r, c, ..] => (*r, *c),
        _ => return Err("header without rows and columns".into()),
    };
    let cells: Vec<String> = lines
        .take(rows)
        .flat_map(|l| l.split_whitespace().map(String::from))
        .collect();
    if cells.len() != rows * cols {
        return Err(format!("{} tokens for {rows}x{cols}", cells.len()));
    }
    Ok((rows, cols, cells))
}

/// Every puzzle of `../shared/data/janko/KIND.json`, or `None` (after a note) without it.
fn published(kind: &str) -> Option<Vec<Published>> {
    let path = external_data(&format!("janko/{kind}.json"))?;
    let text = std::fs::read_to_string(&path).unwrap();
    let json = parse_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let Some(data) = json.get("data").and_then(Json::as_object) else {
        panic!("{}: no \"data\" object", path.display());
    };
    let mut out = Vec::new();
    for (id, entry) in data {
        let field = |k: &str| {
            entry
                .get(k)
                .and_then(Json::as_str)
                .unwrap_or_else(|| panic!("{kind} {id}: no {k:?}"))
        };
        let (_, _, problem) =
            tokens(field("problem")).unwrap_or_else(|e| panic!("{kind} {id}: {e}"));
        let (_, _, solution) =
            tokens(field("solution")).unwrap_or_else(|e| panic!("{kind} {id}: {e}"));
        let line = problem
            .iter()
            .map(|t| if t == "-" { "." } else { t.as_str() })
            .collect();
        let solution = solution
            .iter()
            .map(|t| if t == "-" { " " } else { t.as_str() })
            .collect();
        out.push(Published {
            id: id.clone(),
            line,
            solution,
        });
    }
    Some(out)
}

/// Solves every puzzle of `kind` with `rules/RULES.graft` and asserts one solution each,
/// the published one; prints puzzles, exact, median and worst time.
fn assert_kind(kind: &str, rules: &str) {
    let Some(puzzles) = published(kind) else {
        return;
    };
    assert!(!puzzles.is_empty(), "{kind}: no puzzles");
    let path = temp_path(&format!("janko-{kind}"), "txt");
    let lines: String = puzzles
        .iter()
        .map(|p| format!("{} {}\n", p.line, p.id))
        .collect();
    std::fs::write(&path, lines).unwrap();
    let results = solve_json(&rule(rules), Some(&path), &["--threads", "1"]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(
        results.len(),
        puzzles.len(),
        "{kind}: one summary per puzzle"
    );
    let mut times = Vec::new();
    let mut wrong = Vec::new();
    for (p, r) in puzzles.iter().zip(&results) {
        times.push(Duration::from_secs_f64(
            r.summary
                .get("seconds")
                .and_then(Json::as_f64)
                .unwrap_or(0.0),
        ));
        if r.grids != [p.solution.clone()] {
            wrong.push(format!(
                "{} ({} solutions{})",
                p.id,
                r.grids.len(),
                if r.grids.len() == 1 {
                    ", not the published one"
                } else {
                    ""
                }
            ));
        }
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    eprintln!(
        "{kind}: {} puzzles, {} exact, median {:.2} ms, worst {:.2} ms",
        puzzles.len(),
        puzzles.len() - wrong.len(),
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1])
    );
    assert!(wrong.is_empty(), "{kind}: not exact: {}", wrong.join(", "));
}

#[test]
#[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
fn janko_samurai() {
    assert_kind("SamuraiSudoku", "samurai-21x21");
}

#[test]
#[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
fn janko_butterfly() {
    assert_kind("ButterflySudoku", "butterfly-12x12");
}

#[test]
#[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
fn janko_gattai_8() {
    assert_kind("Gattai8Sudoku", "gattai-8-21x33");
}

#[test]
#[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
fn janko_shogun() {
    assert_kind("ShogunSudoku", "shogun-21x45");
}

#[test]
#[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
fn janko_sohei() {
    assert_kind("SoheiSudoku", "sohei-21x21");
}

#[test]
#[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
fn janko_sumo() {
    assert_kind("SumoSudoku", "sumo-33x33");
}

#[test]
#[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
fn janko_windmill() {
    assert_kind("WindmillSudoku", "windmill-21x21");
}

#[test]
#[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
fn janko_clueless_1() {
    assert_kind("Clueless1Sudoku", "clueless-1-27x27");
}

#[test]
#[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
fn janko_clueless_2() {
    assert_kind("Clueless2Sudoku", "clueless-2-27x27");
}
