//! One side of one case, run in its own child process so that its peak memory is its own:
//! repeated, timed, and reported to the parent as `key value` lines on stdout.

use std::time::{Duration, Instant};

use grafter::explore::{ordered_jobs, Config, Engine, EngineChoice, Expand, Limits, Report};
use grafter::Givens;

use crate::cases::{Case, PuzzleSet, Reference, Work};
use crate::dlx::Cover;
use crate::Plan;

/// A case whose first run is shorter than this is run K times and the median taken.
const SHORT: Duration = Duration::from_secs(2);

/// Which side of a case a child runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Grafter,
    Reference,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Grafter => "grafter",
            Side::Reference => "reference",
        }
    }

    pub fn parse(s: &str) -> Option<Side> {
        [Side::Grafter, Side::Reference]
            .into_iter()
            .find(|x| x.name() == s)
    }
}

/// What one repetition found: solutions per puzzle and states over all puzzles.
#[derive(PartialEq, Eq)]
struct Found {
    counts: Vec<u64>,
    states: u64,
    /// The engine that ran (`slot`, `graph`, or `dlx`).
    engine: &'static str,
}

/// Runs `side` of `case` and prints its report; grafter on `threads` threads, the
/// reference on one. Exits non-zero on an engine error or when two repetitions disagree.
pub fn run_child(case: &Case, side: Side, plan: Plan) {
    let grammar = case.load_grammar();
    let puzzles = case.load_puzzles(&grammar, plan.first);
    let reps = plan.reps;
    let cap = (case.work == Work::UpToTwo).then_some(2);
    let load_kb = peak_kb();
    match (side, case.reference) {
        (Side::Reference, Reference::Dlx) => {
            let cover = Cover::from_grammar(&grammar).unwrap_or_else(|e| fail(case, &e));
            finish(case, reps, load_kb, &mut || dlx_once(&cover, &puzzles, cap));
        }
        (Side::Reference, Reference::Published(..)) => {
            fail(case, "a published figure has nothing to run")
        }
        (side, _) => {
            let engine = Engine::new(&grammar);
            let config = Config {
                expand: if case.work == Work::ExpandAll {
                    Expand::All
                } else {
                    Expand::Focus
                },
                engine: if side == Side::Reference {
                    EngineChoice::Graph
                } else {
                    EngineChoice::Auto
                },
                limits: Limits {
                    max_solutions: cap,
                    ..Limits::default()
                },
                ..Config::default()
            };
            let threads = if side == Side::Grafter {
                plan.threads
            } else {
                1
            };
            finish(case, reps, load_kb, &mut || {
                grafter_once(case, &engine, &config, &puzzles, threads)
            });
        }
    }
}

/// `load_kb`: the peak before the first repetition (grammar and puzzles loaded).
fn finish(case: &Case, reps: usize, load_kb: u64, once: &mut dyn FnMut() -> Found) {
    let mut times = Vec::new();
    let mut first: Option<Found> = None;
    while times.len() < reps.max(1) {
        let started = Instant::now();
        let found = once();
        let took = started.elapsed();
        times.push(took);
        match &first {
            Some(f) if *f != found => fail(case, "two repetitions found different counts"),
            Some(_) => {}
            None => first = Some(found),
        }
        if times.len() == 1 && took >= SHORT {
            break;
        }
    }
    times.sort();
    let median = (times[(times.len() - 1) / 2] + times[times.len() / 2]) / 2;
    let found = first.expect("at least one repetition");
    let counts: Vec<String> = found.counts.iter().map(u64::to_string).collect();
    println!("seconds {}", median.as_secs_f64());
    println!("reps {}", times.len());
    println!("states {}", found.states);
    println!("peak_kb {}", peak_kb());
    println!("load_kb {load_kb}");
    println!("engine {}", found.engine);
    println!("counts {}", counts.join(" "));
}

/// Solves every puzzle. On several threads it does as the CLI does: a single puzzle splits
/// its search tree across the threads, many puzzles run side by side, one thread each.
fn grafter_once(
    case: &Case,
    engine: &Engine,
    config: &Config,
    puzzles: &PuzzleSet,
    threads: usize,
) -> Found {
    let solve = |i: usize, config: &Config| -> Report {
        let mut givens = Givens::default();
        puzzles.givens_into(i, &mut givens.values);
        let report = engine
            .solve(Some(&givens), config, None)
            .unwrap_or_else(|d| fail(case, &format!("puzzle {}: {}", i + 1, d.message)));
        if report.stop.is_some() && config.limits.max_solutions.is_none() {
            fail(case, &format!("puzzle {}: stopped early", i + 1));
        }
        report
    };
    let mut found = Found {
        counts: Vec::with_capacity(puzzles.len()),
        states: 0,
        engine: "slot",
    };
    let mut add = |report: Report| {
        found.engine = report.engine;
        found.counts.push(report.counts.solutions);
        found.states += report.counts.states;
        true
    };
    if puzzles.len() == 1 {
        add(solve(0, &Config { threads, ..*config }));
    } else {
        ordered_jobs(puzzles.len(), threads, |i| solve(i, config), |_, r| add(r));
    }
    found
}

fn dlx_once(cover: &Cover, puzzles: &PuzzleSet, cap: Option<u64>) -> Found {
    let mut givens = Vec::new();
    let counts = (0..puzzles.len())
        .map(|i| {
            puzzles.givens_into(i, &mut givens);
            cover.count(&givens, cap)
        })
        .collect();
    Found {
        counts,
        states: 0,
        engine: "dlx",
    }
}

/// This process's peak resident set (VmHWM) in KiB; 0 where /proc is not there.
fn peak_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn fail(case: &Case, why: &str) -> ! {
    eprintln!("error: {}: {why}", case.name);
    std::process::exit(1)
}
