//! Benchmark of distributed runs (the `distributed` feature): one search tree counted
//! (the empty 6x6, 28,200,960 solutions) and one whole state space (`--expand all` of the
//! empty 4x4, 61,556,225 states), each on one machine and on 1, 2 and 3 processes on
//! 127.0.0.1, with the medians of wall time and each process's peak memory.
//!
//! `cargo bench --features distributed --bench cluster [-- --reps K --threads N --case
//! NAME]`. Each run is the `grafter` binary, as a user starts it; process 0's output is
//! checked against the run on one machine (a mismatch fails the benchmark). Peak memory
//! is each process's VmHWM, read from /proc while it runs.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_grafter");

const USAGE: &str = "\
usage: cargo bench --features distributed --bench cluster -- [OPTIONS]
  --reps K       runs of each configuration, median shown (default 3)
  --threads N    worker threads per process (default 1)
  --case NAME    only this case (repeatable): 6x6-count 4x4-all
";

struct Case {
    name: &'static str,
    what: &'static str,
    rules: &'static str,
    /// The puzzle: one empty grid of this many cells.
    cells: usize,
    extra: &'static [&'static str],
    /// What the run's count measures, per second.
    unit: &'static str,
    /// The work done, in `unit`s.
    work: f64,
}

const CASES: &[Case] = &[
    Case {
        name: "6x6-count",
        what: "(b) empty 6x6, count all (28,200,960 solutions)",
        rules: "rules/sudoku-6x6.graft",
        cells: 36,
        extra: &["--count"],
        unit: "solutions/s",
        work: 28_200_960.0,
    },
    Case {
        name: "4x4-all",
        what: "(c) empty 4x4, `--expand all` (61,556,225 states)",
        rules: "rules/sudoku-4x4.graft",
        cells: 16,
        extra: &["--expand", "all", "--count"],
        unit: "states/s",
        work: 61_556_225.0,
    },
];

/// One run: wall time, each process's peak resident memory in KiB, process 0's output.
struct Measured {
    seconds: f64,
    peaks_kb: Vec<u64>,
    stdout: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn peak_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Runs the children to the end, reading their peak memory as they go.
fn watch(mut children: Vec<Child>) -> Result<(f64, Vec<u64>, String), String> {
    let started = Instant::now();
    let mut peaks = vec![0u64; children.len()];
    let mut ended = vec![None; children.len()];
    while ended.iter().any(Option::is_none) {
        for (i, c) in children.iter_mut().enumerate() {
            if ended[i].is_some() {
                continue;
            }
            if let Some(kb) = peak_kb(c.id()) {
                peaks[i] = peaks[i].max(kb);
            }
            if let Some(status) = c.try_wait().map_err(|e| e.to_string())? {
                ended[i] = Some(status);
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut stdout = String::new();
    for (i, c) in children.into_iter().enumerate() {
        let out = c.wait_with_output().map_err(|e| e.to_string())?;
        if !ended[i].is_some_and(|s| s.success()) {
            return Err(format!(
                "process {i} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        if i == 0 {
            stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        }
    }
    Ok((seconds, peaks, stdout))
}

fn command(case: &Case, puzzle: &Path, threads: usize) -> Command {
    let mut c = Command::new(BIN);
    c.current_dir(root())
        .args(["solve", case.rules, "--puzzles"])
        .arg(puzzle)
        .args(case.extra)
        .args(["--threads", &threads.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// One run on one machine (`processes` none) or on `processes` processes.
fn run_once(
    case: &Case,
    puzzle: &Path,
    threads: usize,
    processes: Option<usize>,
) -> Result<Measured, String> {
    let children = match processes {
        None => vec![command(case, puzzle, threads)
            .spawn()
            .map_err(|e| e.to_string())?],
        Some(n) => {
            let listeners: Vec<TcpListener> = (0..n)
                .map(|_| TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string()))
                .collect::<Result<_, _>>()?;
            let hosts = std::env::temp_dir()
                .join(format!("grafter-bench-hosts-{}.txt", std::process::id()));
            let text: String = listeners
                .iter()
                .map(|l| format!("{}\n", l.local_addr().expect("an address")))
                .collect();
            std::fs::write(&hosts, text).map_err(|e| e.to_string())?;
            drop(listeners);
            (0..n)
                .map(|i| {
                    command(case, puzzle, threads)
                        .args(["--processes", &n.to_string(), "--process", &i.to_string()])
                        .arg("--hostfile")
                        .arg(&hosts)
                        .spawn()
                        .map_err(|e| e.to_string())
                })
                .collect::<Result<_, _>>()?
        }
    };
    let (seconds, peaks_kb, stdout) = watch(children)?;
    Ok(Measured {
        seconds,
        peaks_kb,
        stdout,
    })
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() -> ExitCode {
    let mut reps = 3;
    let mut threads = 1;
    let mut names: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = || args.next().and_then(|v| v.parse::<usize>().ok());
        match a.as_str() {
            "--reps" => reps = number().unwrap_or(0).max(1),
            "--threads" => threads = number().unwrap_or(0).max(1),
            "--case" => names.push(args.next().unwrap_or_default()),
            "--bench" => {}
            _ => {
                eprint!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    println!("| case | run | wall, median of {reps} | rate | speed-up | peak memory per process (largest) | peak memory, all processes |");
    println!("|---|---|---|---|---|---|---|");
    for case in CASES
        .iter()
        .filter(|c| names.is_empty() || names.iter().any(|n| n == c.name))
    {
        let puzzle = std::env::temp_dir().join(format!(
            "grafter-bench-{}-{}.txt",
            case.name,
            std::process::id()
        ));
        std::fs::write(&puzzle, format!("{}\n", ".".repeat(case.cells)))
            .expect("the puzzle is written");
        let mut reference: Option<(String, f64)> = None;
        for processes in [None, Some(1), Some(2), Some(3)] {
            let label = match processes {
                None => format!("one machine, {threads} thread(s)"),
                Some(n) => format!("{n} process(es) x {threads} thread(s)"),
            };
            eprint!("{} {label}:", case.name);
            let mut times = Vec::new();
            let mut peak = 0u64;
            let mut total = 0u64;
            for _ in 0..reps {
                match run_once(case, &puzzle, threads, processes) {
                    Ok(m) => {
                        eprint!(" {:.2} s", m.seconds);
                        times.push(m.seconds);
                        peak = peak.max(m.peaks_kb.iter().copied().max().unwrap_or(0));
                        total = total.max(m.peaks_kb.iter().sum());
                        match &reference {
                            None => reference = Some((m.stdout.clone(), 0.0)),
                            Some((out, _)) if *out != m.stdout => {
                                eprintln!(
                                    "\nerror: {} {label} printed {:?}, one machine {:?}",
                                    case.name, m.stdout, out
                                );
                                return ExitCode::FAILURE;
                            }
                            _ => {}
                        }
                    }
                    Err(e) => {
                        eprintln!("\nerror: {} {label}: {e}", case.name);
                        return ExitCode::FAILURE;
                    }
                }
            }
            eprintln!();
            let t = median(times);
            let base = match &mut reference {
                Some((_, b)) if *b == 0.0 => {
                    *b = t;
                    t
                }
                Some((_, b)) => *b,
                None => t,
            };
            println!(
                "| {} | {label} | {t:.2} s | {:.0} {} | {:.2}x | {} MiB | {} MiB |",
                case.what,
                case.work / t,
                case.unit,
                base / t,
                peak / 1024,
                total / 1024
            );
        }
        let _ = std::fs::remove_file(&puzzle);
    }
    ExitCode::SUCCESS
}
