//! Benchmark: grafter beside clingo on janko.at's killer Sudokus, in one run, printing
//! per-puzzle medians, worst cases and ratios.
//!
//! `cargo bench --bench killer [-- --reps K --threads N]`. The puzzles are read from the
//! shared data (`janko/KillerSudoku.json`; `$GRAFTER_DATA` or `../shared/data`) and turned
//! here into puzzle lines whose layers carry the cages and sums, for a layered killer rule
//! file of each size. grafter solves each puzzle and proves it unique (every solution
//! enumerated) on one thread, paying per puzzle the compilation its layers need; clingo
//! (`pip install clingo`) does the same in a Python child, timed there per puzzle. The two
//! counts must agree for every puzzle, else the run fails (exit 1); puzzles whose count is
//! not one (the data holds a few, as transcribed) are named. Then the whole batch runs on
//! one thread and on `--threads` (default: every core), wall times compared.

mod clingo;
mod janko;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use grafter::{read_puzzles, run_batch, Config, Engine, Event, Puzzle, Source};

/// The allocator the `grafter` binary runs with, so that the figures are the command line's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Options {
    reps: usize,
    threads: usize,
}

const USAGE: &str = "\
usage: GRAFTER_DATA=../shared/data cargo bench --bench killer -- [OPTIONS]
  --reps K       runs per puzzle, median shown (default 5)
  --threads N    threads of the batch's second run (default: every core)
  -h, --help     this text
";

fn options() -> Result<Options, String> {
    let mut o = Options {
        reps: 5,
        threads: std::thread::available_parallelism().map_or(2, usize::from),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = || -> Result<usize, String> {
            let v = args.next().ok_or(format!("{a} expects a number"))?;
            v.parse()
                .map_err(|_| format!("{a} expects a number, found `{v}`"))
        };
        match a.as_str() {
            "--reps" => o.reps = number()?.max(1),
            "--threads" => o.threads = number()?.max(1),
            // `cargo bench` passes `--bench` to every bench program.
            "--bench" => {}
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unexpected argument `{a}`")),
        }
    }
    Ok(o)
}

/// Solves one puzzle with the engine its layers make; its solution count.
fn solve_one(engine: &Engine, p: &Puzzle, config: &Config) -> u64 {
    engine.with_layers(&p.layers, |e| {
        let report = e
            .solve(Some(&p.givens), config, None)
            .unwrap_or_else(|d| panic!("puzzle {}: {}", p.number, d.message));
        assert!(report.stop.is_none(), "puzzle {}: stopped", p.number);
        report.counts.solutions
    })
}

/// Per puzzle, the median time of `reps` solves on this thread, and the count.
fn per_puzzle(engine: &Engine, puzzles: &[Puzzle], reps: usize) -> Vec<(Duration, u64)> {
    let config = Config {
        threads: 1,
        ..Config::default()
    };
    puzzles
        .iter()
        .map(|p| {
            let mut times = Vec::with_capacity(reps);
            let mut count = 0;
            for _ in 0..reps {
                let started = Instant::now();
                count = solve_one(engine, p, &config);
                times.push(started.elapsed());
            }
            (median(&mut times), count)
        })
        .collect()
}

/// Runs of each batch: a batch takes milliseconds, and on a shared machine a thread
/// sometimes waits as long for a core, so the median is of many.
const BATCH_REPS: usize = 15;

/// The median wall time of `reps` runs of the whole batch on `threads` threads.
fn batch(engine: &Engine, puzzles: &[Puzzle], threads: usize, reps: usize) -> Duration {
    let config = Config {
        threads,
        ..Config::default()
    };
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let started = Instant::now();
        run_batch(
            puzzles.len(),
            threads,
            &config,
            |i, config, _: &mut dyn FnMut(()) -> bool| solve_one(engine, &puzzles[i], config),
            |_, event: Event<(), u64>| match event {
                Event::Item(()) => true,
                Event::Done(_) => true,
            },
        );
        times.push(started.elapsed());
    }
    median(&mut times)
}

fn median(xs: &mut [Duration]) -> Duration {
    xs.sort();
    (xs[(xs.len() - 1) / 2] + xs[xs.len() / 2]) / 2
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
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
    let killers = match janko::load() {
        Ok(k) => k,
        Err(e) => {
            eprintln!("skipped: the janko killers are not there ({e})");
            return ExitCode::SUCCESS;
        }
    };
    println!(
        "killer Sudoku, janko.at: {} puzzles; grafter {} rep(s) per puzzle, one thread; batch on 1 and {} threads",
        killers.len(),
        o.reps,
        o.threads
    );
    println!(
        "{:<6} {:>4} {:>12} {:>12} {:>12} {:>12} {:>8} {:>12} {:>12} {:>7}",
        "size",
        "n",
        "grafter med",
        "grafter max",
        "clingo med",
        "clingo max",
        "ratio",
        "batch 1 thr",
        "batch N thr",
        "N/1"
    );
    let mut failed = false;
    let (mut wall1, mut wall_n) = (Duration::ZERO, Duration::ZERO);
    for n in [4, 6, 9] {
        let set: Vec<&janko::Killer> = killers.iter().filter(|k| k.n == n).collect();
        if set.is_empty() {
            continue;
        }
        let text = janko::rule_text(n);
        let grammar = grafter::load_str(&format!("killer-{n}x{n}-layers.graft"), &text)
            .unwrap_or_else(|d| panic!("{d}"));
        let lines: Vec<String> = set.iter().map(|k| k.line()).collect();
        let source = Source::new("janko-killers.txt", lines.join("\n") + "\n");
        let puzzles = read_puzzles(&grammar, &source).unwrap_or_else(|d| {
            panic!(
                "{}",
                d.iter()
                    .map(|x| x.message.clone())
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        });
        let engine = Engine::new(&grammar);
        let mut ours = per_puzzle(&engine, &puzzles, o.reps);
        let theirs = match clingo::solve(&set) {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("clingo not run: {e}");
                None
            }
        };
        for (i, k) in set.iter().enumerate() {
            let count = ours[i].1;
            let other = theirs.as_ref().map(|t| t[i].1);
            if other.is_some_and(|c| c != count) {
                eprintln!(
                    "error: {}: grafter found {count} solutions, clingo {}",
                    k.name,
                    other.unwrap_or(0)
                );
                failed = true;
            } else if count != 1 {
                println!("note: {}: {count} solutions (both solvers)", k.name);
            }
        }
        let worst = ours.iter().map(|x| x.0).max().unwrap_or_default();
        let mut times: Vec<Duration> = ours.drain(..).map(|x| x.0).collect();
        let med = median(&mut times);
        let (c_med, c_max) = match &theirs {
            Some(t) => {
                let mut ct: Vec<Duration> =
                    t.iter().map(|x| Duration::from_secs_f64(x.0)).collect();
                let max = ct.iter().copied().max().unwrap_or_default();
                (Some(median(&mut ct)), Some(max))
            }
            None => (None, None),
        };
        let b1 = batch(&engine, &puzzles, 1, BATCH_REPS);
        let bn = batch(&engine, &puzzles, o.threads, BATCH_REPS);
        wall1 += b1;
        wall_n += bn;
        println!(
            "{:<6} {:>4} {:>12} {:>12} {:>12} {:>12} {:>8} {:>12} {:>12} {:>7.2}",
            format!("{n}x{n}"),
            set.len(),
            ms(med),
            ms(worst),
            c_med.map_or("-".into(), ms),
            c_max.map_or("-".into(), ms),
            c_med.map_or("-".into(), |c| format!(
                "{:.1}x",
                c.as_secs_f64() / med.as_secs_f64()
            )),
            ms(b1),
            ms(bn),
            bn.as_secs_f64() / b1.as_secs_f64()
        );
    }
    println!(
        "all sizes: batch wall {} on 1 thread, {} on {} threads ({:.2}x)",
        ms(wall1),
        ms(wall_n),
        o.threads,
        wall_n.as_secs_f64() / wall1.as_secs_f64()
    );
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
