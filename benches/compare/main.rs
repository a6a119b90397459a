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
mod verify;

use std::process::{Command, ExitCode, Stdio};

use cases::{Case, Reference, CASES};
use run::Side;
use table::{Measured, Row};

/// The allocator the `grafter` binary runs with, so that the figures are the command line's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "\
usage: cargo bench --bench compare -- [OPTIONS]
  --quick          a fast subset: the first 1000 puzzles of each file, no slow cases, K = 3
  --reps K         runs of a case whose first pass takes under 2 s, median shown (default 5)
  --first N        only the first N puzzles of each file (default: all)
  --threads N      grafter's threads for the threaded run (default: every core; 1: none)
  --case NAME      run only this case (repeatable); names: 17clue top95 hard375 multi
                   6x6-empty 16x16 jigsaw 4x4-all 4x4-centre-all
  --skip-slow-ref  do not run the reference of slow cases (the ~70 s DLX on the empty 6x6)
";

/// What every child of one benchmark run is told.
#[derive(Clone, Copy)]
pub struct Plan {
    pub reps: usize,
    pub first: Option<usize>,
    pub threads: usize,
}

#[derive(Default)]
struct Options {
    quick: bool,
    reps: Option<usize>,
    first: Option<usize>,
    threads: Option<usize>,
    cases: Vec<String>,
    side: Option<Side>,
    skip_slow_ref: bool,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |what: &str| args.next().ok_or(format!("{a} expects {what}"));
        let mut count = || -> Result<usize, String> {
            let v = value("a number")?;
            v.parse()
                .map_err(|_| format!("{a} expects a number, found `{v}`"))
        };
        match a.as_str() {
            "--quick" => o.quick = true,
            "--skip-slow-ref" => o.skip_slow_ref = true,
            "--reps" => o.reps = Some(count()?),
            "--first" => o.first = Some(count()?),
            "--threads" => o.threads = Some(count()?),
            "--case" => o.cases.push(value("a case name")?),
            "--side" => {
                let s = value("a side")?;
                o.side = Some(Side::parse(&s).ok_or("--side expects grafter or reference")?);
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
        Err(e) if e.is_empty() => {
            eprint!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprint!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let plan = Plan {
        reps: o.reps.unwrap_or(if o.quick { 3 } else { 5 }).max(1),
        first: o.first.or(o.quick.then_some(1000)),
        threads: grafter::resolve_threads(o.threads),
    };
    if let Some(side) = o.side {
        let [name] = o.cases.as_slice() else {
            eprintln!("error: --side needs exactly one --case");
            return ExitCode::from(2);
        };
        run::run_child(cases::find(name).expect("checked"), side, plan);
        return ExitCode::SUCCESS;
    }
    let chosen = CASES.iter().filter(|c| {
        if o.cases.is_empty() {
            !(o.quick && c.slow)
        } else {
            o.cases.iter().any(|n| n == c.name)
        }
    });
    print_header(plan);
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for case in chosen {
        let skip_reference =
            matches!(case.reference, Reference::Published(..)) || (o.skip_slow_ref && case.slow);
        eprint!("{}:", case.name);
        let mut measure = |label: &str, side: Side, threads: usize| {
            eprint!(" {label}");
            let m = spawn(case, side, Plan { threads, ..plan });
            match &m {
                Ok(m) => eprint!(" {:.3} s", m.seconds),
                Err(e) => failures.push(e.clone()),
            }
            m.ok()
        };
        let grafter = measure("grafter", Side::Grafter, 1);
        let threaded = (plan.threads > 1)
            .then(|| {
                measure(
                    &format!("on {} threads", plan.threads),
                    Side::Grafter,
                    plan.threads,
                )
            })
            .flatten();
        let reference = (!skip_reference)
            .then(|| measure("reference", Side::Reference, 1))
            .flatten();
        eprintln!();
        let Some(grafter) = grafter else { continue };
        failures.extend(verify::verify(
            case,
            plan.first,
            &grafter,
            threaded.as_ref(),
            reference.as_ref(),
        ));
        rows.push(Row {
            case,
            grafter,
            threaded,
            reference,
        });
    }
    println!("{}", table::header(plan.threads));
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

fn print_header(plan: Plan) {
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
    let puzzles = plan
        .first
        .map_or("all".to_string(), |n| format!("the first {n} of each file"));
    println!("grafter compare: {cores} cores, {cpu}; puzzles: {puzzles}");
    println!(
        "K = {}: a case whose first pass over its puzzles takes under 2 s is run K more times, \
         each run of as many passes as fill 0.2 s; each cell is the rate in the case's unit, \
         then the median time of one pass and the number of runs.",
        plan.reps
    );
    println!(
        "ratio = reference time / grafter time for the same work (above 1: grafter is faster); \
         against a published figure, grafter's rate / the published rate. CPU: the same ratio \
         of the CPU time the work took, which other load on the machine disturbs less.\n"
    );
}

/// Runs one side of a case in a child process and reads its report.
fn spawn(case: &Case, side: Side, plan: Plan) -> Result<Measured, String> {
    let who = format!("{}: the {} child", case.name, side.name());
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.args(["--case", case.name, "--side", side.name()]);
    cmd.args([
        "--reps",
        &plan.reps.to_string(),
        "--threads",
        &plan.threads.to_string(),
    ]);
    if let Some(n) = plan.first {
        cmd.args(["--first", &n.to_string()]);
    }
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("{who} did not start: {e}"))?;
    if !out.status.success() {
        return Err(format!("{who} failed ({})", out.status));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')))
            .ok_or(format!("{who} did not report `{key}`"))
    };
    let number = |key: &str| -> Result<f64, String> {
        field(key)?
            .parse()
            .map_err(|e| format!("{who}: {key}: {e}"))
    };
    Ok(Measured {
        seconds: number("seconds")?,
        cpu_seconds: number("cpu_seconds")?,
        reps: number("reps")? as usize,
        states: number("states")? as u64,
        peak_kb: number("peak_kb")? as u64,
        load_kb: number("load_kb")? as u64,
        engine: field("engine")?.to_string(),
        counts: field("counts")?
            .split_whitespace()
            .map(|w| w.parse().map_err(|e| format!("{who}: counts: {e}")))
            .collect::<Result<_, _>>()?,
    })
}
