//! Shared helpers: run the `grafter` binary, find rule files and data, read its JSON lines.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Rule files in `rules/` written for a construct the language does not have yet: left out
/// of the tests over every rule file until it lands, each with an ignored test of its own.
/// `killer-4x4.graft` needs aggregates (`sum(...)`, `count(...)`).
pub const PENDING: &[&str] = &["killer-4x4.graft"];

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
        } else if path.extension() == Some(OsStr::new("graft"))
            && !path
                .file_name()
                .is_some_and(|n| PENDING.iter().any(|p| OsStr::new(p) == n))
        {
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
        parse_results(&self.stdout).unwrap_or_else(|e| {
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
    Run {
        args: args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
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

/// One puzzle's part of a `--format json` run.
#[derive(Debug)]
pub struct Puzzle {
    /// The 1-based puzzle number.
    pub number: u64,
    /// The `grid` of each solution object, in output order.
    pub grids: Vec<String>,
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
/// Checks the numbering and that the summary's `solutions` is the number of solution lines.
pub fn parse_results(stdout: &str) -> Result<Vec<Puzzle>, String> {
    let mut out = Vec::new();
    let mut grids = Vec::new();
    for (i, line) in stdout.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v = Json::parse(line).map_err(|e| format!("line {}: {e}: {line}", i + 1))?;
        let puzzle = v
            .get("puzzle")
            .and_then(Json::as_u64)
            .ok_or_else(|| format!("line {}: no \"puzzle\" number: {line}", i + 1))?;
        let expected = out.len() as u64 + 1;
        if puzzle != expected {
            return Err(format!(
                "line {}: puzzle {puzzle}, expected {expected}",
                i + 1
            ));
        }
        if let Some(n) = v.get("solution") {
            let n = n
                .as_u64()
                .ok_or_else(|| format!("line {}: bad solution number", i + 1))?;
            if n != grids.len() as u64 + 1 {
                return Err(format!(
                    "line {}: solution {n}, expected {}",
                    i + 1,
                    grids.len() + 1
                ));
            }
            let grid = v
                .get("grid")
                .and_then(Json::as_str)
                .ok_or_else(|| format!("line {}: no \"grid\" string", i + 1))?;
            grids.push(grid.to_string());
        } else {
            let n = v.get("solutions").and_then(Json::as_u64).ok_or_else(|| {
                format!("line {}: neither a solution nor a summary: {line}", i + 1)
            })?;
            if n != grids.len() as u64 {
                return Err(format!(
                    "line {}: summary says {n} solutions, {} solution lines came before it",
                    i + 1,
                    grids.len()
                ));
            }
            out.push(Puzzle {
                number: puzzle,
                grids: std::mem::take(&mut grids),
                summary: v,
            });
        }
    }
    if !grids.is_empty() {
        return Err(format!(
            "{} solution lines after the last summary",
            grids.len()
        ));
    }
    Ok(out)
}

/// A JSON value: just enough to read grafter's JSON lines.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// The number's text, as written.
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(BTreeMap<String, Json>),
}

impl Json {
    /// Parses one complete JSON text.
    pub fn parse(text: &str) -> Result<Json, String> {
        let mut p = Parser {
            s: text.as_bytes(),
            i: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("trailing text at byte {}", p.i));
        }
        Ok(v)
    }

    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.get(key),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Num(n) => n.parse().ok(),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Num(n) => n.parse().ok(),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, b: u8) -> Result<(), String> {
        self.ws();
        if self.peek() == Some(b) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at byte {}", b as char, self.i))
        }
    }

    fn literal(&mut self, word: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(format!("bad literal at byte {}", self.i))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.peek().ok_or("unexpected end")? {
            b'n' => self.literal("null", Json::Null),
            b't' => self.literal("true", Json::Bool(true)),
            b'f' => self.literal("false", Json::Bool(false)),
            b'"' => Ok(Json::Str(self.string()?)),
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.i += 1;
                    return Ok(Json::Arr(items));
                }
                loop {
                    items.push(self.value()?);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(items));
                        }
                        _ => return Err(format!("expected , or ] at byte {}", self.i)),
                    }
                }
            }
            b'{' => {
                self.i += 1;
                let mut map = BTreeMap::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(map));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    self.eat(b':')?;
                    let v = self.value()?;
                    if map.insert(k.clone(), v).is_some() {
                        return Err(format!("duplicate key {k:?}"));
                    }
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(map));
                        }
                        _ => return Err(format!("expected , or }} at byte {}", self.i)),
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = self.i;
                while self.i < self.s.len()
                    && matches!(
                        self.s[self.i],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.i += 1;
                }
                Ok(Json::Num(
                    String::from_utf8_lossy(&self.s[start..self.i]).into_owned(),
                ))
            }
            c => Err(format!("unexpected {:?} at byte {}", c as char, self.i)),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        if self.peek() != Some(b'"') {
            return Err(format!("expected a string at byte {}", self.i));
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let c = self.peek().ok_or("unterminated string")?;
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
                b'\\' => {
                    let e = self.peek().ok_or("unterminated escape")?;
                    self.i += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'u' => {
                            let hex = self.s.get(self.i..self.i + 4).ok_or("short \\u escape")?;
                            self.i += 4;
                            let code = u32::from_str_radix(
                                std::str::from_utf8(hex).map_err(|e| e.to_string())?,
                                16,
                            )
                            .map_err(|e| e.to_string())?;
                            char::from_u32(code).unwrap_or('\u{fffd}')
                        }
                        _ => return Err(format!("bad escape at byte {}", self.i)),
                    };
                    let mut buf = [0; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                _ => out.push(c),
            }
        }
    }
}

/// A fresh path in the system temp directory, unique to this process and `tag`.
pub fn temp_path(tag: &str, ext: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("grafter-it-{}-{tag}-{n}.{ext}", std::process::id()))
}

#[test]
fn json_reader_reads_a_summary_line() {
    let v = Json::parse(
        r#"{"puzzle":1,"solutions":4,"states":72837,"complete":true,"stop":null,"expand":"all","x":[1,{"a":"b\"c"}]}"#,
    )
    .unwrap();
    assert_eq!(v.get("states").and_then(Json::as_u64), Some(72837));
    assert_eq!(v.get("complete").and_then(Json::as_bool), Some(true));
    assert_eq!(v.get("stop"), Some(&Json::Null));
    assert_eq!(v.get("expand").and_then(Json::as_str), Some("all"));
    assert!(Json::parse(r#"{"a":1,}"#).is_err());
    assert!(Json::parse(r#"{"a":1} x"#).is_err());
}

#[test]
fn results_are_grouped_by_puzzle_and_checked() {
    let ok = "{\"puzzle\":1,\"solution\":1,\"grid\":\"12\"}\n{\"puzzle\":1,\"solutions\":1}\n{\"puzzle\":2,\"solutions\":0}\n";
    let p = parse_results(ok).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(p[0].grids, vec!["12".to_string()]);
    assert!(p[1].grids.is_empty());
    assert!(parse_results("{\"puzzle\":1,\"solutions\":2}\n").is_err());
    assert!(parse_results("{\"puzzle\":2,\"solutions\":0}\n").is_err());
}
