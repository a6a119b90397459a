//! Janko's published puzzles of twenty kinds, through `grafter import janko` and the
//! manifest's command: every puzzle exactly once, with the published solution.
//!
//! The puzzles are read from `../shared/data/janko/` (or `$GRAFTER_DATA/janko/`), which is
//! not part of the repository; without it each test says so on stderr and skips. Each test
//! imports one dataset file into a temporary folder, runs `grafter solve DIR/RULES
//! --puzzles DIR/PUZZLES --format json` for each rule file of the manifest, and checks
//! each puzzle's solutions (`"puzzle": LINE`) against its published one. With
//! `--nocapture` each prints a line of the table in BENCHMARKS.md:
//!
//! ```text
//! cargo test --release --test integration janko_ -- --ignored --nocapture --test-threads 1
//! ```

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::support::{external_data, grafter, parse_json, temp_path, Json};

/// Puzzles of the dataset that have two solutions under the rules their kind states
/// (janko.at publishes them among the Killer Sudokus without saying more): the published
/// solution is the one whose two main diagonals also hold 1..9 once, as in a Killer
/// X-Sudoku. The test checks exactly that.
const DIAGONAL_KILLERS: [&str; 3] = ["197_9x9", "719_9x9", "727_9x9"];

/// A published solution as grafter prints a grid: rows of cells, `None` at a hole.
type Grid = Vec<Vec<Option<String>>>;

/// The published solution of `kind` as grafter's grid: `-` is a hole of a shaped grid (the
/// samurai family, kakuro's black cells); a thermometer's `x` (filled) is 1, `-` is 0.
fn published(kind: &str, solution: &str) -> Grid {
    solution
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split_whitespace()
                .map(|t| match (kind, t) {
                    ("Thermometer", "x") => Some("1".to_string()),
                    ("Thermometer", "-") => Some("0".to_string()),
                    (_, "-") => None,
                    _ => Some(t.to_string()),
                })
                .collect()
        })
        .collect()
}

/// The JSON grid of a solution line.
fn grid(line: &Json) -> Grid {
    line.get("grid")
        .and_then(Json::as_array)
        .map(|rows| {
            rows.iter()
                .map(|row| {
                    row.as_array()
                        .map(|cells| cells.iter().map(|c| c.as_str().map(String::from)).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// True when both main diagonals of a square grid hold different values.
fn diagonals_differ(g: &Grid) -> bool {
    let n = g.len();
    let distinct = |cells: Vec<&Option<String>>| {
        let mut seen: Vec<&Option<String>> = cells.clone();
        seen.sort();
        seen.dedup();
        seen.len() == cells.len()
    };
    distinct((0..n).map(|i| &g[i][i]).collect())
        && distinct((0..n).map(|i| &g[i][n - 1 - i]).collect())
}

/// One puzzle's result: its solutions and the seconds its run took.
struct Solved {
    grids: Vec<Grid>,
    seconds: f64,
}

/// Runs the manifest's command for one rule file and its puzzle file: the results by
/// puzzle line.
fn solve(dir: &Path, rules: &str, puzzles: &str) -> BTreeMap<u64, Solved> {
    let run = grafter([
        "solve".as_ref(),
        dir.join(rules).as_os_str(),
        "--puzzles".as_ref(),
        dir.join(puzzles).as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    run.ok();
    let mut out: BTreeMap<u64, Solved> = BTreeMap::new();
    for line in run.stdout.lines() {
        let json = parse_json(line).unwrap();
        let puzzle = json
            .get("puzzle")
            .and_then(Json::as_u64)
            .expect("a puzzle number");
        let entry = out.entry(puzzle).or_insert(Solved {
            grids: Vec::new(),
            seconds: 0.0,
        });
        match json.get("type").and_then(Json::as_str) {
            Some("solution") => entry.grids.push(grid(&json)),
            Some("summary") => {
                entry.seconds = json.get("seconds").and_then(Json::as_f64).unwrap_or(0.0);
                assert_eq!(
                    json.get("complete").and_then(Json::as_bool),
                    Some(true),
                    "{rules} puzzle {puzzle}: the run is complete"
                );
            }
            _ => {}
        }
    }
    out
}

/// Imports `../shared/data/janko/KIND.json`, solves every puzzle by the manifest and
/// asserts each has one solution, the published one; prints puzzles, exact, median and
/// worst time.
fn assert_kind(kind: &str) {
    let Some(path) = external_data(&format!("janko/{kind}.json")) else {
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let json = parse_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let data = json
        .get("data")
        .and_then(Json::as_object)
        .expect("a \"data\" object");
    let dir = temp_path(&format!("janko-{kind}"), "d");
    let run = grafter([
        "import".as_ref(),
        "janko".as_ref(),
        path.as_os_str(),
        "--out".as_ref(),
        dir.as_os_str(),
    ]);
    run.ok();
    let manifest = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap();
    let entries: Vec<Vec<&str>> = manifest.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(
        entries.len(),
        data.len(),
        "{kind}: one manifest line per puzzle"
    );
    let mut runs: BTreeMap<(&str, &str), BTreeMap<u64, Solved>> = BTreeMap::new();
    for e in &entries {
        assert_eq!(e.len(), 4, "{kind}: manifest line {e:?}");
        runs.entry((e[1], e[2])).or_default();
    }
    for ((rules, puzzles), results) in runs.iter_mut() {
        *results = solve(&dir, rules, puzzles);
    }
    let mut times = Vec::new();
    let mut wrong = Vec::new();
    for e in &entries {
        let (id, line): (&str, u64) = (e[0], e[3].parse().expect("a line number"));
        let solution = data[id]
            .get("solution")
            .and_then(Json::as_str)
            .expect("a solution");
        let expected = published(kind, solution);
        let Some(solved) = runs[&(e[1], e[2])].get(&line) else {
            wrong.push(format!("{id} (no result for line {line})"));
            continue;
        };
        times.push(Duration::from_secs_f64(solved.seconds));
        let exact = if kind == "KillerSudoku" && DIAGONAL_KILLERS.contains(&id) {
            solved.grids.len() == 2
                && solved.grids.contains(&expected)
                && solved.grids.iter().filter(|g| diagonals_differ(g)).count() == 1
                && diagonals_differ(&expected)
        } else {
            solved.grids == [expected]
        };
        if !exact {
            wrong.push(format!("{id} ({} solutions)", solved.grids.len()));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    times.sort();
    let s = |d: Duration| d.as_secs_f64();
    eprintln!(
        "| {kind} | {} | {} | {:.3} s | {:.3} s |",
        entries.len(),
        entries.len() - wrong.len(),
        s(times[times.len() / 2]),
        s(times[times.len() - 1])
    );
    assert!(wrong.is_empty(), "{kind}: not exact: {}", wrong.join(", "));
    assert!(
        times.iter().all(|t| t.as_secs() < 60),
        "{kind}: a puzzle took 60 s or more"
    );
}

macro_rules! kinds {
    ($($test:ident: $kind:literal,)*) => {$(
        #[test]
        #[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
        fn $test() {
            assert_kind($kind);
        }
    )*};
}

kinds! {
    janko_sudoku: "Sudoku",
    janko_jigsaw: "JigsawSudoku",
    janko_killer: "KillerSudoku",
    janko_consecutive: "ConsecutiveSudoku",
    janko_even_odd: "EvenOddSudoku",
    janko_margin: "MarginSudoku",
    janko_skyscraper_sudoku: "SkyscraperSudoku",
    janko_skyscraper: "Skyscraper",
    janko_renban: "Renban",
    janko_thermometer: "Thermometer",
    janko_kakuro: "Kakuro",
    janko_samurai: "SamuraiSudoku",
    janko_butterfly: "ButterflySudoku",
    janko_gattai_8: "Gattai8Sudoku",
    janko_shogun: "ShogunSudoku",
    janko_sohei: "SoheiSudoku",
    janko_sumo: "SumoSudoku",
    janko_windmill: "WindmillSudoku",
    janko_clueless_1: "Clueless1Sudoku",
    janko_clueless_2: "Clueless2Sudoku",
}
