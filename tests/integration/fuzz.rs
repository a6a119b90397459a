//! A seeded mutation fuzzer over the rule files and puzzle lines: whatever the input, the
//! binary never panics or aborts, every error is `file:line:col: error: ...`, limits hold.
//!
//! Each case mutates a rule file of `rules/` or `tests/fixtures/` whose grid has at most
//! [`MAX_CELLS`] cells (bytes and tokens: deleted, duplicated, swapped; punctuation,
//! keywords, digits, huge numbers, bytes that are not UTF-8, a byte-order mark, control
//! characters inserted) or a few lines of a puzzle file of
//! `tests/fixtures/puzzles/` or `tests/data/`, and runs `grafter check` or `grafter solve`
//! on it with small limits. The default run is a fixed seed and a small budget; a long run:
//!
//! ```text
//! GRAFTER_FUZZ_CASES=200000 cargo test --release fuzz -- --nocapture
//! ```
//!
//! and `GRAFTER_FUZZ_SEED=N` varies the cases. A failing case keeps its input files and
//! prints their paths, the command line, the seed and the case number;
//! `GRAFTER_FUZZ_FIRST=K GRAFTER_FUZZ_CASES=1` (with its seed) runs case K alone.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::support::{all_rule_files, data, fixture, parse_json, root, Json, BIN};

/// The per-run limits every solving case is given.
const MAX_STATES: u64 = 2000;
const TIMEOUT_SECS: u64 = 2;
/// The largest grid a corpus rule file may have. The limits fixtures' grids (10,000 to
/// 262,144 cells) take seconds to build before any limit can stop a run, and their
/// mutations read like any other file's: they made up half the test's time. Their own
/// tests (`limits_check`) check them unmutated, and solve the 100x100 one to its timeout.
const MAX_CELLS: usize = 4096;
/// A run that takes longer than this is killed and fails the test: far above the limits,
/// so a loaded machine does not make the test flaky, far below "runs on and on". The
/// slowest seeds, on the 4x65536 grids the corpus held then (3.6 s to check, 7.5 s in all
/// alone), took 30 s on a machine running three test suites at once; the slowest now take
/// 3 to 5 s.
const WALL_BOUND: Duration = Duration::from_secs(60);
/// The address space a run may take (`ulimit -v`, KiB): a run past it aborts, which the
/// test reports, rather than taking the machine's memory.
const MEMORY_KIB: u64 = 2 * 1024 * 1024;
/// How far past its deadline one run's own summary may say it ran.
const DEADLINE_SLACK_SECS: f64 = 1.5;

const DEFAULT_SEED: u64 = 0x6772_6166_7465_7221;
const DEFAULT_CASES: usize = 2500;

/// SplitMix64: a tiny, well-mixed generator, so the test needs no dependency and a seed
/// gives the same cases on every machine.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const KEYWORDS: &[&str] = &[
    "values",
    "node",
    "edge",
    "edges",
    "grid",
    "of",
    "given",
    "groups",
    "group",
    "rows",
    "columns",
    "boxes",
    "diagonals",
    "regions",
    "block",
    "at",
    "start",
    "rule",
    "not",
    "set",
    "new",
    "del",
    "where",
    "final",
    "none",
    "value",
    "int",
    "bool",
    "abs",
    "and",
    "or",
    "true",
    "false",
    "Cell",
    "Group",
    "in",
    "val",
    "row",
    "col",
    "r1c1",
    "v",
];
const PUNCTUATION: &[&str] = &[
    "{", "}", "(", ")", "[", "]", "<", ">", "-", "->", "<-", "~", "|", "*", "+", "?", ":", ";",
    ",", ".", "..", "=", "==", "!=", "<=", "!", "&", "/", "%", "\"", "'", "#", "//", "/*", "x",
    "\\", "@", "$", "^", "`",
];
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "9",
    "10",
    "-1",
    "255",
    "256",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999",
    "1e309",
    "0x10",
    "1.5",
    "00000000000000000001",
];
/// Bytes that are not UTF-8 (a lone continuation byte, a truncated sequence, an encoded
/// surrogate, an overlong form), a byte-order mark, control characters and other odd text.
const ODD_BYTES: &[&[u8]] = &[
    b"\xff",
    b"\x80",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\xef\xbb\xbf",
    b"\x00",
    b"\x1b[31m",
    b"\r",
    b"\t",
    b"\x0b",
    b"\x0c",
    b"\x7f",
    b"\x08",
    "\u{2028}".as_bytes(),
    "\u{202e}".as_bytes(),
    "é".as_bytes(),
    "\u{1f600}".as_bytes(),
    "\u{fffd}".as_bytes(),
];

/// Splits text into tokens: runs of letters, digits and `_`, and single other bytes.
fn tokens(bytes: &[u8]) -> Vec<&[u8]> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let mut j = i + 1;
        if word(bytes[i]) {
            while j < bytes.len() && word(bytes[j]) {
                j += 1;
            }
        }
        out.push(&bytes[i..j]);
        i = j;
    }
    out
}

/// Something to insert: punctuation, a keyword, digits, a huge number or odd bytes.
fn insertion(rng: &mut SplitMix64) -> Vec<u8> {
    match rng.below(5) {
        0 => rng.pick(PUNCTUATION).as_bytes().to_vec(),
        1 => rng.pick(KEYWORDS).as_bytes().to_vec(),
        2 => (0..1 + rng.below(4))
            .map(|_| b'0' + rng.below(10) as u8)
            .collect(),
        3 => rng.pick(NUMBERS).as_bytes().to_vec(),
        _ => rng.pick(ODD_BYTES).to_vec(),
    }
}

/// One mutation of `input`, at the byte or the token level.
fn mutate(input: &[u8], rng: &mut SplitMix64) -> Vec<u8> {
    if input.is_empty() {
        return insertion(rng);
    }
    if rng.one_in(2) {
        let toks = tokens(input);
        let mut toks: Vec<Vec<u8>> = toks.into_iter().map(<[u8]>::to_vec).collect();
        let i = rng.below(toks.len());
        match rng.below(5) {
            0 => {
                toks.remove(i);
            }
            1 => {
                let t = toks[i].clone();
                toks.insert(i, t);
            }
            2 => {
                let j = rng.below(toks.len());
                toks.swap(i, j);
            }
            3 => {
                // Another token of the same file, so names and numbers land where others
                // of their kind stand.
                let j = rng.below(toks.len());
                toks[i] = toks[j].clone();
            }
            _ => toks[i] = insertion(rng),
        }
        return toks.concat();
    }
    let mut out = input.to_vec();
    let at = rng.below(out.len() + 1);
    let len = 1 + rng.below(16.min(out.len()));
    let end = (at + len).min(out.len());
    match rng.below(5) {
        0 => {
            out.drain(at..end);
        }
        1 => {
            let part: Vec<u8> = out[at..end].to_vec();
            out.splice(at..at, part);
        }
        2 => {
            // Swap two ranges of the same length.
            let other = rng.below(out.len().saturating_sub(len) + 1);
            if end - at == len && other + len <= out.len() && (other + len <= at || end <= other) {
                for k in 0..len {
                    out.swap(at + k, other + k);
                }
            }
        }
        3 if rng.one_in(4) => {
            // A byte-order mark or odd bytes at the very start, where editors put them.
            let odd = rng.pick(ODD_BYTES).to_vec();
            out.splice(0..0, odd);
        }
        _ => {
            let ins = insertion(rng);
            out.splice(at..at, ins);
        }
    }
    out
}

/// Mutations of one puzzle line: cells replaced by other characters of the line or odd
/// ones, or any mutation of [`mutate`].
fn mutate_line(line: &[u8], rng: &mut SplitMix64) -> Vec<u8> {
    let mut out = line.to_vec();
    if !out.is_empty() && !rng.one_in(3) {
        // Mostly characters a puzzle line may hold, so the line still reads and the
        // search runs on givens that may clash.
        let i = rng.below(out.len());
        out[i] = match rng.below(8) {
            0..=3 => out[rng.below(out.len())],
            4 | 5 => b"0123456789ABCDEFG."[rng.below(18)],
            6 => b" \t#xyz*"[rng.below(7)],
            _ => rng.below(256) as u8,
        };
        return out;
    }
    mutate(&out, rng)
}

/// What one case runs.
#[derive(Clone, Debug)]
enum Input {
    /// `grafter check` on a mutated rule file.
    Check { rules: Vec<u8> },
    /// `grafter solve` on a mutated rule file's own start graph.
    SolveStart { rules: Vec<u8> },
    /// `grafter solve RULES --puzzles P` with mutated puzzle lines (and sometimes a
    /// mutated rule file).
    SolvePuzzles { rules: Vec<u8>, puzzles: Vec<u8> },
}

/// A rule file the cases start from.
struct RuleText {
    text: Vec<u8>,
    /// The cells of its `grid` line, to pair it with puzzle lines of that length.
    cells: Option<usize>,
}

/// The corpus: every rule file (but those with grids over [`MAX_CELLS`]), and every line of
/// every puzzle file.
struct Corpus {
    rules: Vec<RuleText>,
    lines: Vec<Vec<u8>>,
}

fn grid_cells(text: &[u8]) -> Option<usize> {
    let text = String::from_utf8_lossy(text);
    let line = text.lines().find(|l| l.trim_start().starts_with("grid "))?;
    let dims = line.split_whitespace().nth(1)?;
    let (r, c) = dims.split_once('x')?;
    Some(r.parse::<usize>().ok()? * c.parse::<usize>().ok()?)
}

fn files_under(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

impl Corpus {
    fn load() -> Corpus {
        let mut rule_paths = all_rule_files();
        files_under(&fixture(""), "graft", &mut rule_paths);
        rule_paths.sort();
        let rules = rule_paths
            .into_iter()
            .map(|p| {
                let text = std::fs::read(p).expect("a readable rule file");
                let cells = grid_cells(&text);
                RuleText { text, cells }
            })
            .filter(|r| r.cells.is_none_or(|n| n <= MAX_CELLS))
            .collect();
        let mut puzzle_paths = Vec::new();
        files_under(&fixture("puzzles"), "txt", &mut puzzle_paths);
        files_under(&fixture("bad"), "txt", &mut puzzle_paths);
        files_under(&data(""), "txt", &mut puzzle_paths);
        puzzle_paths.sort();
        let mut lines = Vec::new();
        for p in puzzle_paths {
            let bytes = std::fs::read(&p).expect("a readable puzzle file");
            lines.extend(bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec));
        }
        Corpus { rules, lines }
    }

    /// The case numbered `index` of a run with `seed`: the same on every machine and
    /// whatever the thread that runs it.
    fn case(&self, seed: u64, index: usize) -> (Input, Vec<&'static str>) {
        let mut rng = SplitMix64(seed ^ (index as u64).wrapping_mul(0xA076_1D64_78BD_642F));
        rng.next();
        let mutations = |rng: &mut SplitMix64, text: &[u8]| {
            let mut out = text.to_vec();
            for _ in 0..how_many(rng) {
                out = mutate(&out, rng);
            }
            out
        };
        let input = match rng.below(10) {
            0..=3 => Input::Check {
                rules: mutations(&mut rng, &rule_for_case(self, index).text),
            },
            4..=6 => Input::SolveStart {
                rules: mutations(&mut rng, &rule_for_case(self, index).text),
            },
            _ => {
                let mut puzzles = Vec::new();
                let mut first_len = None;
                for _ in 0..1 + rng.below(3) {
                    let line = rng.pick(&self.lines).clone();
                    first_len.get_or_insert_with(|| {
                        line.split(|b| b.is_ascii_whitespace())
                            .next()
                            .map_or(0, <[u8]>::len)
                    });
                    let line = if rng.one_in(5) {
                        line
                    } else {
                        let mut l = line;
                        for _ in 0..how_many(&mut rng) {
                            l = mutate_line(&l, &mut rng);
                        }
                        l
                    };
                    puzzles.extend_from_slice(&line);
                    puzzles.push(b'\n');
                }
                // Mostly a rule file whose grid has as many cells as the first line, so
                // the search runs; sometimes any, so lengths clash.
                let fitting: Vec<&RuleText> = self
                    .rules
                    .iter()
                    .filter(|r| r.cells.is_some() && r.cells == first_len)
                    .collect();
                let rules = if fitting.is_empty() || rng.one_in(5) {
                    rng.pick(&self.rules).text.clone()
                } else {
                    rng.pick(&fitting).text.clone()
                };
                let rules = if rng.one_in(5) {
                    mutations(&mut rng, &rules)
                } else {
                    rules
                };
                Input::SolvePuzzles { rules, puzzles }
            }
        };
        let mut options = Vec::new();
        if !matches!(input, Input::Check { .. }) {
            if rng.one_in(4) {
                options.extend(["--expand", "all"]);
            }
            match rng.below(8) {
                0 => options.extend(["--order", "bfs"]),
                1 => options.extend(["--order", "linear", "--focus", "dsatur"]),
                _ => {}
            }
            if rng.one_in(8) {
                options.extend(["--engine", "graph"]);
            }
            match rng.below(3) {
                0 => options.push("--count"),
                1 => options.extend(["--format", "json"]),
                _ => {}
            }
            options.extend(["--threads", if rng.one_in(2) { "1" } else { "2" }]);
        }
        (input, options)
    }
}

/// How many mutations a case makes: mostly one, so many cases still check and reach the
/// search; sometimes up to four.
fn how_many(rng: &mut SplitMix64) -> usize {
    match rng.below(8) {
        0..=4 => 1,
        5 | 6 => 2,
        _ => 3 + rng.below(2),
    }
}

/// The rule file case `index` starts from: every file in turn, so each is fuzzed alike.
fn rule_for_case(corpus: &Corpus, index: usize) -> &RuleText {
    &corpus.rules[index % corpus.rules.len()]
}

/// What went wrong in one case.
struct Finding {
    index: usize,
    what: String,
    command: String,
    kept: Vec<PathBuf>,
    stderr: String,
}

/// How one case went.
struct Outcome {
    /// `None` when the run behaved.
    finding: Option<Finding>,
    elapsed: Duration,
    /// The exit status (-1: killed).
    code: i32,
    /// The run met input that is not UTF-8 with the whole-file message (see
    /// [`NO_POSITION`]).
    no_position: bool,
}

/// Runs one case.
fn run_case(dir: &Path, index: usize, input: &Input, options: &[&str]) -> Outcome {
    let rules_path = dir.join(format!("case-{index}.graft"));
    let puzzles_path = dir.join(format!("case-{index}.txt"));
    let (rules, puzzles) = match input {
        Input::Check { rules } | Input::SolveStart { rules } => (rules, None),
        Input::SolvePuzzles { rules, puzzles } => (rules, Some(puzzles)),
    };
    std::fs::write(&rules_path, rules).expect("the case's rule file is written");
    let mut kept = vec![rules_path.clone()];
    let mut args: Vec<OsString> = Vec::new();
    if let Input::Check { .. } = input {
        args.extend(["check".into(), rules_path.clone().into()]);
    } else {
        args.extend(["solve".into(), rules_path.clone().into()]);
        if let Some(p) = puzzles {
            std::fs::write(&puzzles_path, p).expect("the case's puzzle file is written");
            kept.push(puzzles_path.clone());
            args.extend(["--puzzles".into(), puzzles_path.clone().into()]);
        }
        args.extend([
            "--max-states".into(),
            MAX_STATES.to_string().into(),
            "--timeout".into(),
            TIMEOUT_SECS.to_string().into(),
        ]);
        args.extend(options.iter().map(OsString::from));
    }
    let command = format!(
        "grafter {}",
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let out_path = dir.join(format!("case-{index}.out"));
    let err_path = dir.join(format!("case-{index}.err"));
    let not_utf8: Vec<&Path> = [(&rules_path, Some(rules)), (&puzzles_path, puzzles)]
        .into_iter()
        .filter(|(_, bytes)| bytes.is_some_and(|b| std::str::from_utf8(b).is_err()))
        .map(|(p, _)| p.as_path())
        .collect();
    let started = Instant::now();
    let ran = run_bounded(&args, &out_path, &err_path);
    let elapsed = started.elapsed();
    let stdout = std::fs::read(&out_path).unwrap_or_default();
    let stderr = std::fs::read(&err_path).unwrap_or_default();
    std::fs::remove_file(&out_path).ok();
    std::fs::remove_file(&err_path).ok();
    let stderr_text = String::from_utf8_lossy(&stderr).into_owned();
    let code = *ran.as_ref().unwrap_or(&-1);
    let verdict = match ran {
        Err(elapsed) => Err(format!("overstayed: killed after {elapsed:?}")),
        Ok(code) => judge(
            code,
            &stdout,
            &stderr,
            &[&rules_path, &puzzles_path],
            &not_utf8,
            options,
        ),
    };
    match verdict {
        Ok(no_position) => {
            for p in &kept {
                std::fs::remove_file(p).ok();
            }
            Outcome {
                finding: None,
                elapsed,
                code,
                no_position,
            }
        }
        Err(what) => Outcome {
            finding: Some(Finding {
                index,
                what,
                command,
                kept,
                stderr: stderr_text,
            }),
            elapsed,
            code,
            no_position: false,
        },
    }
}

/// Runs the binary with `args` under the memory bound, stdout and stderr to files; the exit
/// status (-1 for a signal), or the time it was killed after when it overstayed.
fn run_bounded(args: &[OsString], out: &Path, err: &Path) -> Result<i32, Duration> {
    let mut command = if cfg!(unix) {
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(format!(
                "ulimit -v {MEMORY_KIB} 2>/dev/null; exec \"$0\" \"$@\""
            ))
            .arg(BIN);
        c
    } else {
        Command::new(BIN)
    };
    let started = Instant::now();
    let mut child = command
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(out).expect("stdout file"))
        .stderr(std::fs::File::create(err).expect("stderr file"))
        .spawn()
        .expect("the grafter binary runs");
    // Most runs take a few milliseconds: poll often at first, then back off.
    let mut pause = Duration::from_micros(500);
    loop {
        if let Some(status) = child.try_wait().expect("waiting for grafter") {
            return Ok(status.code().unwrap_or(-1));
        }
        if started.elapsed() > WALL_BOUND {
            child.kill().ok();
            child.wait().ok();
            return Err(started.elapsed());
        }
        std::thread::sleep(pause);
        if started.elapsed() > Duration::from_millis(100) {
            pause = Duration::from_millis(10);
        }
    }
}

/// Checks one run: an exit status of the contract, no panic, every stderr line a part of a
/// `file:line:col: error:` diagnostic about one of `inputs` or a note, and in JSON
/// output the limits held. `Ok(true)` when it took [`NO_POSITION`]'s allowance.
fn judge(
    code: i32,
    stdout: &[u8],
    stderr: &[u8],
    inputs: &[&Path],
    not_utf8: &[&Path],
    options: &[&str],
) -> Result<bool, String> {
    let err = String::from_utf8_lossy(stderr);
    if code == -1 {
        return Err("killed by a signal".into());
    }
    if err.contains("panicked") || code == 101 || code == 134 {
        return Err(format!("exit {code}: panic or abort"));
    }
    if ![0, 1, 3].contains(&code) {
        return Err(format!("exit {code}: not 0, 1 or 3"));
    }
    let no_position = check_stderr(&err, inputs, not_utf8)?;
    if code == 1 && !err.contains(": error: ") {
        return Err("exit 1 without an error message".into());
    }
    if code != 1 && err.contains(": error: ") {
        return Err(format!("exit {code} with an error message"));
    }
    if options.windows(2).any(|w| w == ["--format", "json"]) && code != 1 {
        let out = String::from_utf8_lossy(stdout);
        for line in out.lines() {
            let v = parse_json(line).map_err(|e| format!("stdout is not JSON lines: {e}"))?;
            if let Some(states) = v.get("states").and_then(Json::as_u64) {
                if states > MAX_STATES {
                    return Err(format!("{states} states under --max-states {MAX_STATES}"));
                }
            }
            if let Some(secs) = v.get("seconds").and_then(Json::as_f64) {
                if secs > TIMEOUT_SECS as f64 + DEADLINE_SLACK_SECS {
                    return Err(format!("ran {secs} s under --timeout {TIMEOUT_SECS}"));
                }
            }
        }
    }
    Ok(no_position)
}

/// The message a file that is not UTF-8 gets while its first bad byte is not located:
/// accepted, and counted in the summary, only for inputs that are indeed not UTF-8, until
/// such input is reported at `file:line:col` like any other error; then delete this.
const NO_POSITION: &str = ": error: cannot read: stream did not contain valid UTF-8";

/// Every line of stderr belongs to a diagnostic (`FILE:LINE:COL: error: ...` or
/// `warning: ...`, the source line with a caret under it, `= note:` and `= help:` lines)
/// about one of `inputs`, or is a stop note (`puzzle N: ...`), the note that focus falls
/// back (`note: --expand focus falls back to all: ...`) or the count of messages past the
/// error limit (`note: 6 more errors not shown (lines 55 to 57 of FILE); ...`). `Ok(true)`
/// when a line was [`NO_POSITION`]'s message about one of `not_utf8`.
fn check_stderr(err: &str, inputs: &[&Path], not_utf8: &[&Path]) -> Result<bool, String> {
    let mut no_position = false;
    let mut lines = err.split('\n').peekable();
    while let Some(line) = lines.next() {
        if line.is_empty() && lines.peek().is_none() {
            break;
        }
        if not_utf8
            .iter()
            .any(|p| line == format!("{}{NO_POSITION}", p.display()))
        {
            no_position = true;
            continue;
        }
        if line.starts_with("note: --expand focus falls back to all: ") {
            continue;
        }
        // Past `--error-limit`, the rest about one input counted in a line.
        if line.starts_with("note: ")
            && line.ends_with("; `--error-limit 0` shows them all")
            && inputs
                .iter()
                .any(|p| line.contains(&format!(" of {}); ", p.display())))
        {
            continue;
        }
        if let Some(rest) = line.strip_prefix("puzzle ") {
            let (n, _) = rest.split_once(": ").ok_or("a bad stop note")?;
            if n.parse::<u64>().is_ok() {
                continue;
            }
        }
        let input = inputs
            .iter()
            .map(|p| p.to_string_lossy())
            .find(|p| line.starts_with(&format!("{p}:")))
            .ok_or_else(|| format!("stderr line not a diagnostic: {line:?}"))?;
        let rest = &line[input.len() + 1..];
        let mut parts = rest.splitn(3, ':');
        let (l, c, tail) = (parts.next(), parts.next(), parts.next());
        let numbers = [l, c]
            .iter()
            .all(|n| n.is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())));
        if !numbers
            || !tail.is_some_and(|t| t.starts_with(" error: ") || t.starts_with(" warning: "))
        {
            return Err(format!("not `file:line:col: error:`: {line:?}"));
        }
        // The snippet up to a blank line: where (`--> file:line:col`), the source lines
        // in a `|` gutter with a caret under the place, `= note:` and `= help:` lines.
        let (mut pointer, mut caret) = (false, false);
        while let Some(l) = lines
            .next_if(|l| l.starts_with([' ', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']))
        {
            let body = l.trim_start();
            if body.starts_with("--> ") {
                pointer = true;
            } else if l.contains(" | ") || l.trim_end().ends_with('|') || body.trim_end() == "." {
                // `.` stands in the gutter where lines between two labels are left out.
                caret |= l.contains('^');
            } else if !(body.starts_with("= note: ") || body.starts_with("= help: ")) {
                return Err(format!("diagnostic line outside the snippet: {l:?}"));
            }
        }
        if !pointer || !caret {
            return Err(format!(
                "diagnostic without its `-->` line or caret: {line:?}"
            ));
        }
        // The blank line that ends a diagnostic.
        lines.next_if(|l| l.is_empty());
    }
    Ok(no_position)
}

/// A finding's message with the case's paths and numbers taken out, to count findings of
/// one kind.
fn kind_of(what: &str, dir: &Path) -> String {
    let what = what.replace(&*dir.to_string_lossy(), "");
    let mut out = String::new();
    for c in what.chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('N') {
                out.push('N');
            }
        } else {
            out.push(c);
        }
    }
    out.chars().take(160).collect()
}

fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let text = text.trim();
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={text:?} is not a number")))
}

#[test]
fn mutated_rule_files_and_puzzle_lines_never_break_the_contract() {
    let seed = env_number("GRAFTER_FUZZ_SEED").unwrap_or(DEFAULT_SEED);
    let cases = env_number("GRAFTER_FUZZ_CASES").map_or(DEFAULT_CASES, |n| n as usize);
    // The number of the first case, to rerun one case of a long run.
    let first = env_number("GRAFTER_FUZZ_FIRST").unwrap_or(0) as usize;
    let corpus = Corpus::load();
    assert!(corpus.rules.len() >= 20, "the rule files are found");
    assert!(corpus.lines.len() >= 500, "the puzzle lines are found");
    let dir = std::env::temp_dir().join(format!("grafter-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp directory");
    let started = Instant::now();
    let next = AtomicUsize::new(first);
    let findings: Mutex<Vec<Finding>> = Mutex::new(Vec::new());
    let no_position = AtomicUsize::new(0);
    let slowest: Mutex<Vec<(Duration, usize)>> = Mutex::new(Vec::new());
    // Runs that ended 0 (done), 1 (bad input), 3 (stopped by a limit): the share that gets
    // past the checker into the search shows the mutations are not all rejected at once.
    let exits: [AtomicUsize; 4] = Default::default();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= first + cases {
                    break;
                }
                let (input, options) = corpus.case(seed, index);
                let outcome = run_case(&dir, index, &input, &options);
                if let Some(f) = outcome.finding {
                    findings.lock().unwrap_or_else(|e| e.into_inner()).push(f);
                }
                if let Ok(code) = usize::try_from(outcome.code) {
                    if code < exits.len() {
                        exits[code].fetch_add(1, Ordering::Relaxed);
                    }
                }
                if outcome.no_position {
                    no_position.fetch_add(1, Ordering::Relaxed);
                }
                let mut slow = slowest.lock().unwrap_or_else(|e| e.into_inner());
                slow.push((outcome.elapsed, index));
                slow.sort_by(|a, b| b.cmp(a));
                slow.truncate(3);
            });
        }
    });
    let mut findings = findings.into_inner().unwrap_or_else(|e| e.into_inner());
    findings.sort_by_key(|f| f.index);
    let slowest = slowest.into_inner().unwrap_or_else(|e| e.into_inner());
    eprintln!(
        "fuzz: {cases} cases, seed {seed:#x}, {workers} workers, {:.1} s, {} failing; \
         exit 0: {}, 1: {}, 3: {}; {} non-UTF-8 inputs reported without a position; \
         slowest cases: {}",
        started.elapsed().as_secs_f64(),
        findings.len(),
        exits[0].load(Ordering::Relaxed),
        exits[1].load(Ordering::Relaxed),
        exits[3].load(Ordering::Relaxed),
        no_position.into_inner(),
        slowest
            .iter()
            .map(|(t, i)| format!("{i} ({:.2} s)", t.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if findings.is_empty() {
        std::fs::remove_dir_all(&dir).ok();
        return;
    }
    let mut report = format!(
        "{} of {cases} fuzz cases failed (GRAFTER_FUZZ_SEED={seed:#x}); inputs kept in {}\n",
        findings.len(),
        dir.display()
    );
    let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
    for f in &findings {
        *kinds.entry(kind_of(&f.what, &dir)).or_default() += 1;
    }
    for (kind, n) in &kinds {
        report.push_str(&format!("{n:>6} x {kind}\n"));
    }
    for f in findings.iter().take(20) {
        report.push_str(&format!(
            "\ncase {}: {}\n  {}\n  input: {}\n  stderr: {}\n",
            f.index,
            f.what,
            f.command,
            f.kept
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
            f.stderr
                .lines()
                .take(6)
                .collect::<Vec<_>>()
                .join("\n          ")
        ));
    }
    panic!("{report}");
}

#[test]
fn the_fuzzer_is_deterministic_and_mutates() {
    let corpus = Corpus::load();
    let a = format!("{:?}", corpus.case(7, 42));
    let b = format!("{:?}", corpus.case(7, 42));
    assert_eq!(a, b, "a seed and a case number give one case");
    let distinct: std::collections::HashSet<String> = (0..50)
        .map(|i| format!("{:?}", corpus.case(7, i)))
        .collect();
    assert!(distinct.len() >= 45, "cases differ: {}", distinct.len());
    let mut rng = SplitMix64(1);
    let text = b"rule place(v: value) { c: Cell { val == none } }";
    let changed = (0..100).filter(|_| mutate(text, &mut rng) != text).count();
    assert!(changed >= 80, "mutations change the text: {changed} of 100");
}

#[test]
fn the_stderr_check_accepts_diagnostics_and_rejects_other_text() {
    let f = Path::new("/tmp/x.graft");
    let good = "/tmp/x.graft:2:6: error: unknown node type `Cel`\n  --> /tmp/x.graft:2:6\n  |\n2 | node Cel\n  |      ^^^\n  |\n  = note: a hint\n  = help: did you mean `Cell`?\n\n/tmp/x.graft:3:1: warning: unused\n  --> /tmp/x.graft:3:1\n  |\n3 | node X\n  | ^\n\nnote: --expand focus falls back to all: on whole graphs: why\npuzzle 1: stopped after 2000 states (--max-states)\n";
    assert_eq!(check_stderr(good, &[f], &[]), Ok(false));
    let old = "/tmp/x.graft: error: cannot read: stream did not contain valid UTF-8\n";
    assert_eq!(check_stderr(old, &[f], &[f]), Ok(true));
    for bad in [
        "/tmp/x.graft: error: cannot read: stream did not contain valid UTF-8\n",
        "thread 'main' panicked at src/main.rs:1:1\n",
        "/tmp/x.graft:2:6: error: no snippet\n",
        "/tmp/y.graft:2:6: error: another file\n  --> /tmp/y.graft:2:6\n  |\n2 | x\n  | ^\n",
        "/tmp/x.graft:2:6: error: no pointer\n  |\n2 | x\n  | ^\n",
        "/tmp/x.graft:2:6: error: no caret\n  --> /tmp/x.graft:2:6\n  |\n2 | x\n",
        "error: something\n",
    ] {
        assert!(
            check_stderr(bad, &[f], &[]).is_err(),
            "{bad:?} was accepted"
        );
    }
}
