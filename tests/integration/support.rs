//! Shared helpers: run the `grafter` binary, find rule files and data, read its JSON lines.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_grafter");

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `rules/NAME.graft`.
pub fn rule(name: &str) -> PathBuf {
    root().join("rules").join(format!("{name}.graft"))
}

/// A puzzle file the default tests read: `tests/data/REL` (tests/data/README.md says
/// where each comes from).
pub fn data(rel: &str) -> PathBuf {
    root().join("tests").join("data").join(rel)
}

/// A file of the larger puzzle collection outside the repository, for opt-in tests:
/// `$GRAFTER_DATA/REL`, or `../shared/data/REL` beside the repository when `GRAFTER_DATA` is
/// unset. `None`, after a line on stderr naming the missing file, when it is not there, so
/// the caller can skip.
pub fn external_data(rel: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("GRAFTER_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("..").join("shared").join("data"));
    let path = dir.join(rel);
    if path.is_file() {
        Some(path)
    } else {
        eprintln!(
            "skipped: needs {} (set GRAFTER_DATA to the folder that holds {rel})",
            path.display()
        );
        None
    }
}

/// A file in `tests/fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    root().join("tests").join("fixtures").join(rel)
}

/// Every rule file directly in `rules/`, sorted by name.
pub fn rule_files() -> Vec<PathBuf> {
    graft_files(&root().join("rules"), false)
}

/// Every rule file in `rules/` and its subfolders, sorted by path.
pub fn all_rule_files() -> Vec<PathBuf> {
    graft_files(&root().join("rules"), true)
}

fn graft_files(dir: &Path, deep: bool) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a readable directory entry").path();
        if path.is_dir() && deep {
            files.extend(graft_files(&path, true));
        } else if path.extension() == Some(OsStr::new("graft")) {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// What one run of the binary did.
#[derive(Debug)]
pub struct Run {
    pub args: Vec<String>,
    /// The exit status; -1 when killed by a signal.
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// What a finished process with arguments `args` left: its status, stdout (UTF-8) and
    /// stderr.
    pub fn of(args: Vec<String>, out: std::process::Output) -> Run {
        Run {
            args,
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Asserts the run exited with `code` and did not panic; returns it for chaining.
    pub fn expect_code(&self, code: i32) -> &Self {
        assert!(
            self.code == code && !self.stderr.contains("panicked"),
            "grafter {}\nexpected exit {code}, got {}\n--- stderr ---\n{}\n--- stdout (first 2000 bytes) ---\n{}",
            self.args.join(" "),
            self.code,
            self.stderr,
            &self.stdout[..floor(&self.stdout, 2000)]
        );
        self
    }

    /// Asserts success (exit 0).
    pub fn ok(&self) -> &Self {
        self.expect_code(0)
    }

    /// The stdout of a `--count` run: one number per line.
    pub fn counts(&self) -> Vec<u64> {
        self.stdout
            .lines()
            .map(|l| {
                l.trim().parse().unwrap_or_else(|_| {
                    panic!("grafter {}: not a count line: {l:?}", self.args.join(" "))
                })
            })
            .collect()
    }

    /// The stdout of a `--format json` run, grouped by puzzle (see [`Puzzle`]).
    pub fn puzzles(&self) -> Vec<Puzzle> {
        self.json_lines(parse_results)
    }

    /// The stdout of a `--count --format json` run: a summary per puzzle.
    pub fn summaries(&self) -> Vec<Puzzle> {
        self.json_lines(parse_summaries)
    }

    fn json_lines(&self, parse: fn(&str) -> Result<Vec<Puzzle>, String>) -> Vec<Puzzle> {
        parse(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "grafter {}: bad JSON lines: {e}\n{}",
                self.args.join(" "),
                &self.stdout[..floor(&self.stdout, 2000)]
            )
        })
    }
}

fn floor(s: &str, mut n: usize) -> usize {
    if n >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// Runs `grafter ARGS...` to completion, in the repository root (so relative paths in
/// arguments and messages read `tests/fixtures/...`).
pub fn grafter<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    let out = Command::new(BIN)
        .current_dir(root())
        .args(&args)
        .output()
        .expect("the grafter binary runs");
    let args = args.iter().map(|a| a.to_string_lossy().into_owned());
    Run::of(args.collect(), out)
}

/// `grafter solve RULES [--puzzles PUZZLES] --count`, asserting exit 0.
pub fn count(rules: &Path, puzzles: Option<&Path>, extra: &[&str]) -> Vec<u64> {
    let mut args: Vec<&OsStr> = vec![OsStr::new("solve"), rules.as_os_str()];
    if let Some(p) = puzzles {
        args.extend([OsStr::new("--puzzles"), p.as_os_str()]);
    }
    args.push(OsStr::new("--count"));
    args.extend(extra.iter().map(OsStr::new));
    let run = grafter(args);
    run.ok();
    run.counts()
}

/// `grafter solve RULES [--puzzles PUZZLES] --format json EXTRA...`, asserting exit 0.
pub fn solve_json(rules: &Path, puzzles: Option<&Path>, extra: &[&str]) -> Vec<Puzzle> {
    let mut args: Vec<&OsStr> = vec![OsStr::new("solve"), rules.as_os_str()];
    if let Some(p) = puzzles {
        args.extend([OsStr::new("--puzzles"), p.as_os_str()]);
    }
    args.extend([OsStr::new("--format"), OsStr::new("json")]);
    args.extend(extra.iter().map(OsStr::new));
    let run = grafter(args);
    run.ok();
    run.puzzles()
}

/// The puzzles of a puzzle file: (puzzle text, the count written after it if any).
/// Skips blank lines and lines starting with `#`, as grafter does.
pub fn puzzle_lines(path: &Path) -> Vec<(String, Option<u64>)> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut words = l.split_whitespace();
            let puzzle = words.next().expect("a puzzle").to_string();
            let count = words.next().and_then(|w| w.parse().ok());
            (puzzle, count)
        })
        .collect()
}

/// A JSON value, as `serde_json` reads it.
pub use serde_json::Value as Json;

/// Parses one JSON text (one line of grafter's output).
pub fn parse_json(text: &str) -> Result<Json, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// A `"type":"solution"` line, every field as the README documents it: unknown fields
/// are refused, so a field added without the schema's documentation and tests fails here.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolutionLine {
    #[serde(rename = "type")]
    pub kind: String,
    pub puzzle: u64,
    pub solution: u64,
    /// Row by row, value names (`.` for an empty cell, `null` where a row has no cell).
    pub grid: Option<Vec<Vec<Option<String>>>>,
    /// Files without a grid: the nodes as `name: Type { ... }`.
    pub nodes: Option<Vec<String>>,
}

/// A `"type":"summary"` line. Fields that may be `null` must still be present
/// (`deserialize_with` turns off serde's leniency for a missing `Option`). Reading a line
/// into it checks the schema; tests read the values from [`Puzzle::summary`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct SummaryLine {
    #[serde(rename = "type")]
    pub kind: String,
    pub puzzle: u64,
    pub solutions: u64,
    pub states: u64,
    pub transitions: u64,
    pub dead_ends: u64,
    pub complete: bool,
    #[serde(deserialize_with = "Option::deserialize")]
    pub stop: Option<String>,
    pub expand: String,
    pub focus: String,
    pub value: String,
    pub attempts: u64,
    pub order: String,
    pub engine: String,
    #[serde(deserialize_with = "Option::deserialize")]
    pub fallback: Option<String>,
    pub seconds: f64,
}

impl SolutionLine {
    /// The grid as one line, as the tests compare grids: one character per cell when
    /// every cell's value name is one character, else names separated by blanks.
    pub fn grid_line(&self) -> Option<String> {
        let cells: Vec<&str> = self
            .grid
            .as_ref()?
            .iter()
            .flatten()
            .map(|c| c.as_deref().unwrap_or(" "))
            .collect();
        Some(if cells.iter().all(|c| c.chars().count() == 1) {
            cells.concat()
        } else {
            cells.join(" ")
        })
    }
}

/// One puzzle's part of a `--format json` run.
#[derive(Debug)]
pub struct Puzzle {
    /// The 1-based puzzle number.
    pub number: u64,
    /// The `grid` of each solution object as one line (see [`SolutionLine::grid_line`]),
    /// in output order.
    pub grids: Vec<String>,
    /// The solution objects, in output order.
    pub solutions: Vec<SolutionLine>,
    /// The summary object.
    pub summary: Json,
}

impl Puzzle {
    /// A numeric summary field.
    pub fn stat(&self, key: &str) -> u64 {
        self.summary
            .get(key)
            .and_then(Json::as_u64)
            .unwrap_or_else(|| {
                panic!(
                    "summary of puzzle {} lacks a number {key:?}: {:?}",
                    self.number, self.summary
                )
            })
    }

    /// The solution grids, sorted.
    pub fn sorted_grids(&self) -> Vec<String> {
        let mut g = self.grids.clone();
        g.sort();
        g
    }
}

/// Groups JSON lines into puzzles: the solutions of a puzzle, numbered 1.., then its summary.
/// Checks each line's fields and their types against the schema ([`SolutionLine`],
/// [`SummaryLine`]), the numbering, a grid's rows of equal length, and that the summary's
/// `solutions` is the number of solution lines.
pub fn parse_results(stdout: &str) -> Result<Vec<Puzzle>, String> {
    parse_lines(stdout, true)
}

/// As [`parse_results`] for a `--count --format json` run: summaries alone, whose
/// `solutions` no solution line precedes.
pub fn parse_summaries(stdout: &str) -> Result<Vec<Puzzle>, String> {
    parse_lines(stdout, false)
}

/// JSON lines grouped by puzzle; `listed`: the solutions come before each summary, else
/// there are none.
fn parse_lines(stdout: &str, listed: bool) -> Result<Vec<Puzzle>, String> {
    let mut out = Vec::new();
    let mut solutions: Vec<SolutionLine> = Vec::new();
    for (i, line) in stdout.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |e: String| format!("line {}: {e}: {line}", i + 1);
        let v = parse_json(line).map_err(at)?;
        let expected = out.len() as u64 + 1;
        match v.get("type").and_then(Json::as_str) {
            Some("solution") if !listed => return Err(at("a solution line under --count".into())),
            Some("solution") => {
                let s: SolutionLine =
                    serde_json::from_value(v.clone()).map_err(|e| at(e.to_string()))?;
                if s.puzzle != expected {
                    return Err(at(format!("puzzle {}, expected {expected}", s.puzzle)));
                }
                if s.solution != solutions.len() as u64 + 1 {
                    return Err(at(format!(
                        "solution {}, expected {}",
                        s.solution,
                        solutions.len() + 1
                    )));
                }
                match (&s.grid, &s.nodes) {
                    (Some(rows), None) => {
                        if rows.is_empty() || rows.iter().any(|r| r.len() != rows[0].len()) {
                            return Err(at("grid rows of unequal length".into()));
                        }
                    }
                    (None, Some(_)) => {}
                    _ => return Err(at("not exactly one of grid and nodes".into())),
                }
                solutions.push(s);
            }
            Some("summary") => {
                let s: SummaryLine =
                    serde_json::from_value(v.clone()).map_err(|e| at(e.to_string()))?;
                if s.puzzle != expected {
                    return Err(at(format!("puzzle {}, expected {expected}", s.puzzle)));
                }
                if listed && s.solutions != solutions.len() as u64 {
                    return Err(at(format!(
                        "summary says {} solutions, {} solution lines came before it",
                        s.solutions,
                        solutions.len()
                    )));
                }
                if s.complete != s.stop.is_none() {
                    return Err(at("complete, yet a stop reason (or the reverse)".into()));
                }
                let solutions = std::mem::take(&mut solutions);
                out.push(Puzzle {
                    number: s.puzzle,
                    grids: solutions
                        .iter()
                        .filter_map(SolutionLine::grid_line)
                        .collect(),
                    solutions,
                    summary: v,
                });
            }
            other => return Err(at(format!("type {other:?}, expected solution or summary"))),
        }
    }
    if !solutions.is_empty() {
        return Err(format!(
            "{} solution lines after the last summary",
            solutions.len()
        ));
    }
    Ok(out)
}

/// A fresh path in the system temp directory, unique to this process and `tag`.
pub fn temp_path(tag: &str, ext: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("grafter-it-{}-{tag}-{n}.{ext}", std::process::id()))
}

#[test]
fn results_are_grouped_by_puzzle_and_checked() {
    let summary = |puzzle: u64, solutions: u64| {
        format!(
            r#"{{"type":"summary","puzzle":{puzzle},"solutions":{solutions},"states":3,"transitions":2,"dead_ends":0,"complete":true,"stop":null,"expand":"focus","focus":"propagate","value":"smallest","attempts":1,"order":"dfs","engine":"slot","fallback":null,"seconds":0.001}}"#
        )
    };
    let solution = r#"{"type":"solution","puzzle":1,"solution":1,"grid":[["1","2"],["2","1"]]}"#;
    let ok = format!("{solution}\n{}\n{}\n", summary(1, 1), summary(2, 0));
    let p = parse_results(&ok).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(p[0].grids, vec!["1221".to_string()]);
    assert!(p[1].grids.is_empty());
    // Wrong counts and numbering, missing and unknown fields, wrong types.
    assert!(parse_results(&summary(1, 2)).is_err());
    assert!(parse_results(&summary(2, 0)).is_err());
    assert!(parse_results(&summary(1, 0).replace(r#""stop":null,"#, "")).is_err());
    assert!(parse_results(&summary(1, 0).replace(r#""seconds""#, r#""secs""#)).is_err());
    assert!(parse_results(&summary(1, 0).replace(r#""states":3"#, r#""states":"3""#)).is_err());
    let two_kinds = solution.replace('}', r#","nodes":[]}"#);
    assert!(parse_results(&format!("{two_kinds}\n{}\n", summary(1, 1))).is_err());
    let ragged = solution.replace(r#"["2","1"]"#, r#"["2"]"#);
    assert!(parse_results(&format!("{ragged}\n{}\n", summary(1, 1))).is_err());
}
