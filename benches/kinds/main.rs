//! Benchmark: every janko kind's median time per puzzle beside classic Sudoku of the same
//! grid size, and whether it stays within 3x of it (issue 13).
//!
//! `GRAFTER_DATA=../shared/data cargo bench --bench kinds [-- --reps K --timeout SECS
//! --kind NAME]` (defaults: 5 runs, 30 s a run, every kind). Each dataset file of `janko/`
//! in the shared data (`$GRAFTER_DATA`, or `../shared/data` beside the repository; without
//! it the bench says so and exits 0) is converted by the importer `grafter import janko`
//! calls, in memory, and each puzzle is solved and proved unique (every solution listed) on
//! one thread as the library API and `grafter solve` do it: the rule file compiled once,
//! then per puzzle the engine its layers make and the search, which is also timed alone. A
//! puzzle's time is the median of K runs (one run when the first takes over a second). The
//! classic side is `rules/sudoku-NxN.graft` on the committed puzzles of
//! `benches/kinds/classic/` (`classic.rs` says why they are generated), timed the same way,
//! once at the start and again right after each kind, whose rows are compared with that
//! second timing (a long run's machine load drifts). A kind's puzzles are reported by grid
//! size; sizes with no classic rule file (5x5, 7x7, 10x10, the overlapping shapes,
//! kakuro's rectangles) share one row, without a ratio.

mod classic;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use grafter::import::janko::KINDS;
use grafter::{read_puzzles, Config, Engine, Grammar, Puzzle, Source};

/// The allocator the `grafter` binary runs with, so that the figures are the command line's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The bound the issue sets: a kind's median at most this many times the classic's.
const WITHIN: f64 = 3.0;

const USAGE: &str = "\
usage: GRAFTER_DATA=../shared/data cargo bench --bench kinds -- [OPTIONS]
  --reps K         runs per puzzle, median shown (default 5; one run when the first takes over 1 s)
  --timeout SECS   time limit of one run (default 30)
  --kind NAME      only this janko kind (repeatable; default: every kind)
  --make-classic   write benches/kinds/classic/ anew and exit
  -h, --help       this text
";

struct Options {
    reps: usize,
    timeout: Duration,
    kinds: Vec<String>,
    make_classic: bool,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        reps: 5,
        timeout: Duration::from_secs(30),
        kinds: Vec::new(),
        make_classic: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} expects a value"));
        match a.as_str() {
            "--reps" => {
                let v = value()?;
                o.reps = v
                    .parse::<usize>()
                    .map_err(|_| format!("--reps: `{v}`"))?
                    .max(1);
            }
            "--timeout" => {
                let v = value()?;
                o.timeout = Duration::from_secs_f64(
                    v.parse::<f64>().map_err(|_| format!("--timeout: `{v}`"))?,
                );
            }
            "--kind" => {
                let v = value()?;
                if !KINDS.contains(&v.as_str()) {
                    return Err(format!("--kind: `{v}` is not one of {}", KINDS.join(", ")));
                }
                o.kinds.push(v);
            }
            "--make-classic" => o.make_classic = true,
            "-h" | "--help" => return Err(String::new()),
            // `cargo bench` passes `--bench` to every bench program.
            "--bench" => {}
            _ => return Err(format!("unexpected argument `{a}`")),
        }
    }
    Ok(o)
}

/// The data folder: `$GRAFTER_DATA`, else `../shared/data` beside the repository.
fn data_dir() -> PathBuf {
    std::env::var_os("GRAFTER_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"))
}

/// One puzzle timed: the median of its runs and of their searches alone (`None` when the
/// time limit stopped it), and what its last run found.
struct Timed {
    time: Option<Duration>,
    search: Option<Duration>,
    states: u64,
    solutions: u64,
    engine: &'static str,
}

/// Solves one puzzle on one thread, every solution listed, as `grafter solve` does. A run
/// is the engine its layers make (a copy of the grammar and the tables the layers reach;
/// nothing for a puzzle without layers) and the search; the search is also timed alone.
fn time_puzzle(engine: &Engine, p: &Puzzle, config: &Config, reps: usize) -> Timed {
    let mut times = Vec::with_capacity(reps);
    let mut searches = Vec::with_capacity(reps);
    loop {
        let started = Instant::now();
        let (report, search) = engine.with_layers(&p.layers, |e| {
            let started = Instant::now();
            let report = e
                .solve(Some(&p.givens), config, None)
                .unwrap_or_else(|d| panic!("puzzle {}: {}", p.number, d.message));
            (report, started.elapsed())
        });
        let took = started.elapsed();
        let stopped = report.stop.is_some();
        if !stopped {
            times.push(took);
            searches.push(search);
        }
        // A puzzle of over a second is timed once: its time dwarfs the machine's noise.
        if stopped || times.len() == reps || took > Duration::from_secs(1) {
            return Timed {
                time: (!stopped).then(|| median(&mut times)),
                search: (!stopped).then(|| median(&mut searches)),
                states: report.counts.states,
                solutions: report.counts.solutions,
                engine: report.engine,
            };
        }
    }
}

fn median(xs: &mut [Duration]) -> Duration {
    xs.sort();
    (xs[(xs.len() - 1) / 2] + xs[xs.len() / 2]) / 2
}

/// A set of puzzles' figures: median time, median search alone and worst time (`None`:
/// past the time limit), median states, the engines that ran.
struct Summary {
    puzzles: usize,
    median: Option<Duration>,
    search: Option<Duration>,
    worst: Option<Duration>,
    states: u64,
    engines: String,
}

/// The median of times where `None` (stopped at the limit) sorts last; `None` when the
/// middle is a stopped one.
fn median_of(times: impl Iterator<Item = Option<Duration>>) -> Option<Duration> {
    let mut xs: Vec<Duration> = times.map(|t| t.unwrap_or(Duration::MAX)).collect();
    xs.sort();
    let (a, b) = (xs[(xs.len() - 1) / 2], xs[xs.len() / 2]);
    (b != Duration::MAX).then(|| (a + b) / 2)
}

fn summarise(timed: &[&Timed]) -> Summary {
    let mut states: Vec<u64> = timed.iter().map(|t| t.states).collect();
    states.sort();
    let mut engines: Vec<&str> = timed.iter().map(|t| t.engine).collect();
    engines.sort();
    engines.dedup();
    let stopped = timed.iter().any(|t| t.time.is_none());
    Summary {
        puzzles: timed.len(),
        median: median_of(timed.iter().map(|t| t.time)),
        search: median_of(timed.iter().map(|t| t.search)),
        worst: timed
            .iter()
            .filter_map(|t| t.time)
            .max()
            .filter(|_| !stopped),
        states: states[(states.len() - 1) / 2],
        engines: engines.join("/"),
    }
}

fn show(d: Option<Duration>, limit: Duration) -> String {
    match d {
        None => format!("> {} s", limit.as_secs_f64()),
        Some(d) if d < Duration::from_millis(1) => format!("{:.1} µs", d.as_secs_f64() * 1e6),
        Some(d) if d < Duration::from_secs(1) => format!("{:.2} ms", d.as_secs_f64() * 1e3),
        Some(d) => format!("{:.2} s", d.as_secs_f64()),
    }
}

fn load_puzzles(grammar: &Grammar, name: &str, text: &str) -> Vec<Puzzle> {
    read_puzzles(grammar, &Source::new(name, text)).unwrap_or_else(|d| {
        panic!(
            "{name}: {}",
            d.iter()
                .map(|x| x.message.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

/// The classic `n`x`n` set timed, or `Err` when its committed file is missing.
fn time_classic(n: usize, config: &Config, reps: usize) -> Result<Summary, String> {
    let rules = classic::rule_file(n).expect("a classic size");
    let path = classic::puzzle_file(n);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: {e} (write it with --make-classic)", path.display()))?;
    let grammar = classic::load(&rules);
    let puzzles = load_puzzles(&grammar, &path.display().to_string(), &text);
    let engine = Engine::new(&grammar);
    let timed: Vec<Timed> = puzzles
        .iter()
        .map(|p| time_puzzle(&engine, p, config, reps))
        .collect();
    if let Some(t) = timed.iter().position(|t| t.solutions != 1) {
        return Err(format!(
            "{}: puzzle {} has {} solutions, not one",
            path.display(),
            t + 1,
            timed[t].solutions
        ));
    }
    Ok(summarise(&timed.iter().collect::<Vec<_>>()))
}

/// One kind imported and every puzzle timed, by grid size (rows, columns); each puzzle
/// whose count is not one is named in `odd`.
fn time_kind(
    kind: &str,
    text: &str,
    config: &Config,
    reps: usize,
    odd: &mut Vec<String>,
) -> Result<BTreeMap<(u32, u32), Vec<Timed>>, String> {
    let imported = grafter::import::janko::import(&format!("{kind}.json"), text)?;
    for e in &imported.errors {
        odd.push(e.clone());
    }
    let files: BTreeMap<&str, &str> = imported
        .files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let mut by_size: BTreeMap<(u32, u32), Vec<Timed>> = BTreeMap::new();
    for (name, rules) in files.iter().filter(|(n, _)| n.ends_with(".graft")) {
        let grammar = grafter::load_str(name, rules).map_err(|d| format!("{name}: {d}"))?;
        let grid = grammar.grid.as_ref().ok_or(format!("{name}: no grid"))?;
        let size = (grid.rows, grid.cols);
        let puzzle_file = name.replace(".graft", ".txt");
        let puzzles = load_puzzles(&grammar, &puzzle_file, files[puzzle_file.as_str()]);
        let engine = Engine::new(&grammar);
        for p in &puzzles {
            let t = time_puzzle(&engine, p, config, reps);
            if t.solutions != 1 || t.time.is_none() {
                let id = imported
                    .manifest
                    .iter()
                    .find(|e| e.rule == *name && e.line == p.number)
                    .map_or("?", |e| e.id.as_str());
                odd.push(match t.time {
                    None => format!("{kind} {id}: stopped at the time limit"),
                    Some(_) => format!("{kind} {id}: {} solutions", t.solutions),
                });
            }
            by_size.entry(size).or_default().push(t);
        }
    }
    Ok(by_size)
}

/// The size column of the row of sizes without a classic.
fn shapes(sizes: &[(u32, u32)]) -> String {
    let names: Vec<String> = sizes.iter().map(|(r, c)| format!("{r}x{c}")).collect();
    if names.len() <= 3 {
        names.join(", ")
    } else {
        format!(
            "{} shapes, {} to {}",
            names.len(),
            names[0],
            names[names.len() - 1]
        )
    }
}

/// A line of the table: a kind's puzzles of one size beside the classic of that size.
fn row(kind: &str, size: &str, s: &Summary, classic: Option<&Summary>, limit: Duration) -> String {
    let ratio = |k: Option<Duration>| {
        k.zip(classic.and_then(|c| c.median))
            .map(|(k, c)| k.as_secs_f64() / c.as_secs_f64())
    };
    let (total, search) = (ratio(s.median), ratio(s.search));
    // Tenths only where they can matter against the bound.
    let times = |r: Option<f64>| match r {
        None => "-".to_string(),
        Some(r) if r < 10.0 => format!("{r:.1}x"),
        Some(r) => format!("{r:.0}x"),
    };
    let (classic_median, within) = match classic {
        None => ("no classic of this shape".to_string(), "-"),
        Some(c) => (
            show(c.median, limit),
            if total.is_some_and(|r| r <= WITHIN) {
                "yes"
            } else {
                "no"
            },
        ),
    };
    format!(
        "| {kind} | {size} | {} | {} | {} | {} | {} | {} | {classic_median} | {} | {} | {within} |",
        s.puzzles,
        s.engines,
        s.states,
        show(s.median, limit),
        show(s.worst, limit),
        show(s.search, limit),
        times(total),
        times(search),
    )
}

fn main() -> ExitCode {
    let o = match options() {
        Ok(o) => o,
        Err(e) if e.is_empty() => {
            eprint!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprint!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if o.make_classic {
        return match classic::make() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let janko = data_dir().join("janko");
    if !janko.is_dir() {
        println!(
            "skipped: the janko data is not there ({}; set GRAFTER_DATA)",
            janko.display()
        );
        return ExitCode::SUCCESS;
    }
    let config = Config::default().with_threads(1).with_timeout(o.timeout);
    println!(
        "janko kinds beside classic Sudoku of the same size: one thread, every solution \
         listed, median of {} run(s) per puzzle, {} s limit per run",
        o.reps,
        o.timeout.as_secs_f64()
    );
    println!(
        "| kind | size | puzzles | engine | states (median) | median | worst | search alone (median) \
         | classic median | ratio | ratio, search alone | within {WITHIN}x |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    // The classics first: they are quick, and a missing set stops the run before the long
    // part.
    let mut classics: BTreeMap<usize, Summary> = BTreeMap::new();
    for &(n, _, _) in &classic::SIZES {
        match time_classic(n, &config, o.reps) {
            Ok(s) => {
                classics.insert(n, s);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let mut odd = Vec::new();
    let mut failed = false;
    let kinds: Vec<&str> = KINDS
        .iter()
        .copied()
        .filter(|k| o.kinds.is_empty() || o.kinds.iter().any(|x| x == k))
        .collect();
    for kind in kinds {
        let path = janko.join(format!("{kind}.json"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            println!("| {kind} | not in the data | | | | | | | | | | |");
            continue;
        };
        let by_size = match time_kind(kind, &text, &config, o.reps, &mut odd) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: {kind}: {e}");
                failed = true;
                continue;
            }
        };
        let classic_side = |&(r, c): &(u32, u32)| {
            (r == c && classic::rule_file(r as usize).is_some()).then_some(r as usize)
        };
        let mut others: Vec<&Timed> = Vec::new();
        let mut other_sizes = Vec::new();
        for (size, timed) in &by_size {
            let Some(n) = classic_side(size) else {
                others.extend(timed);
                other_sizes.push(*size);
                continue;
            };
            let s = summarise(&timed.iter().collect::<Vec<_>>());
            // The classic timed again now, beside the kind: over a long run the machine's
            // load drifts, and a ratio against a timing from minutes before would measure
            // the drift too.
            let beside = time_classic(n, &config, o.reps).ok();
            let classic = beside.as_ref().unwrap_or(&classics[&n]);
            println!(
                "{}",
                row(kind, &format!("{n}x{n}"), &s, Some(classic), o.timeout)
            );
        }
        if !others.is_empty() {
            let s = summarise(&others);
            println!("{}", row(kind, &shapes(&other_sizes), &s, None, o.timeout));
        }
        let _ = std::io::stdout().flush();
    }
    println!();
    println!(
        "classic sets (rules/sudoku-NxN.graft, benches/kinds/classic/NxN.txt), as timed at \
         the start (each row above is against its size timed again right after its kind):"
    );
    for (n, c) in &classics {
        println!(
            "  {n}x{n}: {} puzzles, median {}, worst {}, states (median) {}, engine {}",
            c.puzzles,
            show(c.median, o.timeout),
            show(c.worst, o.timeout),
            c.states,
            c.engines
        );
    }
    for line in &odd {
        println!("note: {line}");
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
