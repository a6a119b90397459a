//! Benchmark: grafter beside a dancing-links counter (and its own general engine, and
//! GROOVE's published figure) on the same puzzles and groups, printing times and ratios.
//!
//! `cargo bench --bench compare [-- OPTIONS]`. Each side of each case runs in a child
//! process (this executable with `--case NAME --side grafter|reference`) so that the peak
//! memory it reports is its own. Every puzzle's count is checked: grafter against the
//! reference and against the data's stated counts; a mismatch fails the run (exit 1).

mod cases;
mod dlx;
mod run;
mod table;

use std::process::{Command, ExitCode, Stdio};

use cases::{Case, Reference, Work, CASES};
use run::Side;
use table::{Measured, Row};

const USAGE: &str = "\
usage: cargo bench --bench compare -- [OPTIONS]
  --quick          a fast subset: the first 1000 puzzles of each file, no slow cases, K = 3
  --reps K         runs of a case whose first run takes under 2 s, median reported (default 5)
  --first N        only the first N puzzles of each file (default: all)
  --case NAME      run only this case (repeatable); names: 17clue top95 hard375 multi
                   6x6-empty 16x16 jigsaw 4x4-all 4x4-centre-all
  --skip-slow-ref  do not run the reference of slow cases (the ~70 s DLX on the empty 6x6)
";

#[derive(Default)]
struct Options {
    quick: bool,
    reps: Option<usize>,
    first: Option<usize>,
    cases: Vec<String>,
    side: Option<Side>,
    skip_slow_ref: bool,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |what: &str| args.next().ok_or(format!("{a} expects {what}"));
        match a.as_str() {
            "--quick" => o.quick = true,
            "--skip-slow-ref" => o.skip_slow_ref = true,
            "--reps" => {
                o.reps = Some(
                    value("a count")?
                        .parse()
                        .map_err(|e| format!("--reps: {e}"))?,
                )
            }
            "--first" => {
                o.first = Some(
                    value("a count")?
                        .parse()
                        .map_err(|e| format!("--first: {e}"))?,
                )
            }
            "--case" => o.cases.push(value("a case name")?),
            "--side" => {
                o.side = Some(Side::parse(&value("a side")?).ok_or("--side: grafter or reference")?)
            }
            // cargo bench passes --bench to every bench binary.
            "--bench" => {}
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if let Some(bad) = o.cases.iter().find(|n| cases::find(n).is_none()) {
        return Err(format!("unknown case `{bad}`"));
    }
    Ok(o)
}

fn main() -> ExitCode {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprint!(
                "{}{USAGE}",
                if e.is_empty() {
                    String::new()
                } else {
                    format!("error: {e}\n")
                }
            );
            return ExitCode::from(2);
        }
    };
    let reps = o.reps.unwrap_or(if o.quick { 3 } else { 5 });
    let first = o.first.or(o.quick.then_some(1000));
    if let Some(side) = o.side {
        let [name] = o.cases.as_slice() else {
            eprintln!("error: --side needs exactly one --case");
            return ExitCode::from(2);
        };
        run::run_child(cases::find(name).expect("checked"), side, reps, first);
        return ExitCode::SUCCESS;
    }
    let chosen: Vec<&'static Case> = CASES
        .iter()
        .filter(|c| {
            if o.cases.is_empty() {
                !(o.quick && c.slow)
            } else {
                o.cases.iter().any(|n| n == c.name)
            }
        })
        .collect();
    print_header(reps, first);
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for case in chosen {
        eprint!("{}: grafter ", case.name);
        let grafter = match spawn(case, Side::Grafter, reps, first) {
            Ok(m) => {
                eprint!("{:.3} s", m.seconds);
                m
            }
            Err(e) => {
                eprintln!();
                failures.push(e);
                continue;
            }
        };
        let skip =
            matches!(case.reference, Reference::Published(..)) || (o.skip_slow_ref && case.slow);
        let reference = if skip {
            None
        } else {
            eprint!(", reference ");
            match spawn(case, Side::Reference, reps, first) {
                Ok(m) => {
                    eprint!("{:.3} s", m.seconds);
                    Some(m)
                }
                Err(e) => {
                    failures.push(e);
                    None
                }
            }
        };
        failures.extend(verify(case, first, &grafter, reference.as_ref()));
        let row = Row {
            case,
            grafter,
            reference,
        };
        eprintln!();
        rows.push(row);
    }
    println!("{}", table::HEADER);
    for r in &rows {
        println!("{}", r.markdown());
    }
    if failures.is_empty() {
        println!("\nAll counts agree: grafter, the reference and the data.");
        ExitCode::SUCCESS
    } else {
        eprintln!("\nFAILED: {} count mismatch(es) or errors:", failures.len());
        for f in failures.iter().take(20) {
            eprintln!("  {f}");
        }
        ExitCode::FAILURE
    }
}

fn print_header(reps: usize, first: Option<usize>) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|m| m.trim_start_matches([' ', '\t', ':']).to_string())
            })
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("grafter compare: {cores} cores, {cpu}");
    println!(
        "K = {reps} (a case whose first run takes under 2 s is run K times, the median is shown with the number of runs); puzzles: {}",
        first.map_or("all".to_string(), |n| format!("the first {n} of each file"))
    );
    println!(
        "ratio = reference time / grafter time for the same work (above 1: grafter is faster);"
    );
    println!("against a published figure, grafter's rate / the published rate.\n");
}

/// Runs one side of a case in a child process and reads its report.
fn spawn(case: &Case, side: Side, reps: usize, first: Option<usize>) -> Result<Measured, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.args([
        "--case",
        case.name,
        "--side",
        side.name(),
        "--reps",
        &reps.to_string(),
    ]);
    if let Some(n) = first {
        cmd.args(["--first", &n.to_string()]);
    }
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("{}: cannot start the {} child: {e}", case.name, side.name()))?;
    if !out.status.success() {
        return Err(format!(
            "{}: the {} child failed ({})",
            case.name,
            side.name(),
            out.status
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')))
            .ok_or(format!(
                "{}: the {} child did not report `{key}`",
                case.name,
                side.name()
            ))
    };
    let number = |key: &str| -> Result<f64, String> {
        field(key)?.parse().map_err(|e| format!("{key}: {e}"))
    };
    Ok(Measured {
        seconds: number("seconds")?,
        reps: number("reps")? as usize,
        states: number("states")? as u64,
        peak_kb: number("peak_kb")? as u64,
        load_kb: number("load_kb")? as u64,
        engine: field("engine")?.to_string(),
        counts: field("counts")?
            .split_whitespace()
            .map(|w| w.parse().map_err(|e| format!("counts: {e}")))
            .collect::<Result<_, _>>()?,
    })
}

/// Every disagreement between grafter, the reference and the data's stated counts.
fn verify(case: &Case, first: Option<usize>, g: &Measured, r: Option<&Measured>) -> Vec<String> {
    let grammar = case.load_grammar();
    let puzzles = case.load_puzzles(&grammar, first);
    let cap = (case.work == Work::UpToTwo).then_some(2u64);
    let mut bad = Vec::new();
    let engines = match case.reference {
        Reference::GraphEngine => ("slot", "graph"),
        _ => ("slot", "dlx"),
    };
    if g.engine != engines.0 || r.is_some_and(|r| r.engine != engines.1) {
        let other = r.map_or("-", |r| r.engine.as_str());
        bad.push(format!(
            "{}: engines {} and {other}, expected {engines:?}",
            case.name, g.engine
        ));
    }
    if g.counts.len() != puzzles.len() {
        bad.push(format!(
            "{}: grafter counted {} puzzles of {}",
            case.name,
            g.counts.len(),
            puzzles.len()
        ));
    }
    for (i, (&got, want)) in g.counts.iter().zip(&puzzles.expected).enumerate() {
        if let Some(want) = want.map(|w| cap.map_or(w, |c| w.min(c))) {
            if got != want {
                bad.push(format!(
                    "{}: puzzle {}: grafter {got}, the data {want}",
                    case.name,
                    i + 1
                ));
            }
        }
    }
    if let Some(r) = r {
        if r.counts != g.counts {
            let i = g
                .counts
                .iter()
                .zip(&r.counts)
                .position(|(a, b)| a != b)
                .unwrap_or(r.counts.len());
            bad.push(format!(
                "{}: puzzle {}: grafter {:?}, reference {:?}",
                case.name,
                i + 1,
                g.counts.get(i),
                r.counts.get(i)
            ));
        }
        if case.work == Work::ExpandAll && r.states != g.states {
            bad.push(format!(
                "{}: states: grafter {}, reference {}",
                case.name, g.states, r.states
            ));
        }
    }
    if let Some(want) = case.states.filter(|_| case.work == Work::ExpandAll) {
        if g.states != want {
            bad.push(format!(
                "{}: states: grafter {}, the data {want}",
                case.name, g.states
            ));
        }
    }
    bad
}
