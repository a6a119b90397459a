//! One side of one case, run in its own child process so that its peak memory is its own:
//! repeated, timed, and reported to the parent as `key value` lines on stdout.

use std::time::{Duration, Instant};

use grafter::{run_batch, Config, Engine, EngineChoice, Event, Expand, Givens, Limits, Report};

use crate::cases::{Case, PuzzleSet, Reference, Work};
use crate::dlx::Cover;
use crate::Plan;

/// A case whose first pass is shorter than this is run K times and the median taken.
const SHORT: Duration = Duration::from_secs(2);
/// How long one of those runs lasts, at least: passes over the puzzles are repeated.
const RUN: Duration = Duration::from_millis(200);

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

/// Times `once`: a first pass checks and calibrates; when it is shorter than [`SHORT`],
/// K more runs follow, each of enough passes to last about [`RUN`] (so that a short case
/// is timed over many passes), and the median time per pass is reported.
/// `load_kb`: the peak before the first pass (grammar and puzzles loaded).
fn finish(case: &Case, reps: usize, load_kb: u64, once: &mut dyn FnMut() -> Found) {
    let mut timed = |passes: u32| {
        let (started, cpu_started) = (Instant::now(), cpu_ns());
        let found = once();
        for _ in 1..passes {
            if once() != found {
                fail(case, "two passes found different counts");
            }
        }
        let cpu = Duration::from_nanos(cpu_ns().saturating_sub(cpu_started));
        (started.elapsed() / passes, cpu / passes, found)
    };
    let (took, cpu, found) = timed(1);
    let (mut times, mut cpu_times) = (vec![took], vec![cpu]);
    if took < SHORT {
        let passes = (RUN.as_secs_f64() / took.as_secs_f64().max(1e-6)).ceil() as u32;
        (times, cpu_times) = (Vec::new(), Vec::new());
        for _ in 0..reps {
            let (t, c, again) = timed(passes.clamp(1, 10_000));
            if again != found {
                fail(case, "two runs found different counts");
            }
            times.push(t);
            cpu_times.push(c);
        }
    }
    let wall = median(&mut times);
    let counts: Vec<String> = found.counts.iter().map(u64::to_string).collect();
    println!("cpu_seconds {}", median(&mut cpu_times).as_secs_f64());
    println!("seconds {}", wall.as_secs_f64());
    println!("reps {}", times.len());
    println!("states {}", found.states);
    println!("peak_kb {}", peak_kb());
    println!("load_kb {load_kb}");
    println!("engine {}", found.engine);
    println!("counts {}", counts.join(" "));
}

/// Solves every puzzle, scheduled over the threads as the command line does
/// ([`run_batch`]).
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
    run_batch(
        puzzles.len(),
        threads,
        config,
        |i, config, _: &mut dyn FnMut(()) -> bool| solve(i, config),
        |_, event| match event {
            Event::Item(()) => true,
            Event::Done(report) => add(report),
        },
    );
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

fn median(xs: &mut [Duration]) -> Duration {
    xs.sort();
    (xs[(xs.len() - 1) / 2] + xs[xs.len() / 2]) / 2
}

/// Time this thread has spent on a CPU, in ns (0 where the kernel does not say): unlike
/// wall time, it does not grow while other processes hold the cores. One-thread runs do
/// all their work on this thread.
fn cpu_ns() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    stat.split_whitespace()
        .next()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0)
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
