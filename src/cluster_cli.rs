//! `grafter solve` over several processes (`--processes N --process I --hostfile FILE`,
//! the `distributed` feature): the process joins its run, then every worker does what
//! `solve` does over threads, and worker 0 (on process 0) writes the output. Every
//! process of the run exits with the same status.

use std::io::{self, BufWriter, Write};

use clap::CommandFactory;

use grafter::distributed::{read_hosts, stable_hash, Cluster, ClusterSpec, Worker};
use grafter::{Config, Engine, Event, Layers, Source};

use super::args::{Cli, SolveArgs};
use super::signals::Interrupts;
use super::{exit_code, read_source, run_one, Failure, Pieces, Run, STOPPED};

/// Calls `f` with the engine for a puzzle's layers: the file's own, or one compiled for
/// the puzzle line's.
fn on_engine<R>(engine: &Engine, layers: Option<&Layers>, f: impl FnOnce(&Engine<'_>) -> R) -> R {
    match layers {
        None => f(engine),
        Some(layers) => engine.with_layers(layers, f),
    }
}

/// How long a process waits for the others by default.
const JOIN_TIMEOUT_SECS: u64 = 60;

/// Runs `runs` (of the puzzles file read, or the rule file's own puzzle) as one
/// distributed run.
pub fn solve(
    engine: &Engine,
    args: &SolveArgs,
    config: &Config,
    threads: usize,
    (puzzles, runs): (Option<&Source>, &[Run]),
    interrupts: Option<&Interrupts>,
) -> Result<u8, Failure> {
    let (Some(processes), Some(process), Some(hostfile)) =
        (args.processes, args.process, args.hostfile.as_ref())
    else {
        unreachable!("clap requires --process and --hostfile with --processes")
    };
    let (processes, process) = (processes as usize, process as usize);
    if process >= processes {
        Cli::command()
            .error(
                clap::error::ErrorKind::ValueValidation,
                format!("--process {process} is not below --processes {processes}: processes are numbered from 0"),
            )
            .exit();
    }
    let hosts = read_source(hostfile)?;
    let addresses =
        read_hosts(&hosts, processes).map_err(|d| Failure::BadInput(hosts.render(&d)))?;
    let spec = ClusterSpec {
        addresses,
        process,
        threads,
        join_timeout: args
            .join_timeout
            .unwrap_or(std::time::Duration::from_secs(JOIN_TIMEOUT_SECS)),
        fingerprint: fingerprint(engine, args, config, runs),
        want_solutions: !args.count,
    };
    let cluster = Cluster::join(spec).map_err(|e| Failure::Lost(format!("error: {e}\n")))?;
    let config = Config {
        threads: 1,
        ..*config
    };
    Ok(cluster.run(|worker| {
        let result = if grafter::distributed::side_by_side(runs.len(), worker.workers) {
            side_by_side(worker, engine, args, &config, (puzzles, runs))
        } else {
            one_by_one(worker, engine, args, &config, (puzzles, runs))
        };
        if !worker.writes_output() {
            return 0;
        }
        let result = result.map(|stopped| {
            interrupts
                .and_then(Interrupts::status)
                .unwrap_or(if stopped { STOPPED } else { 0 })
        });
        exit_code(result)
    }))
}

/// What every process must agree on: the rule file, the puzzles, and every option that
/// changes what the run does or prints.
fn fingerprint(engine: &Engine, args: &SolveArgs, config: &Config, runs: &[Run]) -> u64 {
    let mut text = engine.grammar().source.text.clone();
    for (number, givens, layers) in runs {
        text += &format!(
            "\n{number}:{:?}:{layers:?}",
            givens.as_ref().map(|g| &g.values)
        );
    }
    let limits = config.limits;
    text += &format!(
        "\n{:?} {:?} {:?} {:?} {:?} {:?} {:?} {} {}",
        config.order,
        config.expand,
        config.policy,
        config.engine,
        limits.max_states,
        limits.max_solutions,
        limits.timeout,
        args.count,
        matches!(args.format, super::args::Format::Json),
    );
    stable_hash(text.as_bytes())
}

/// Few runs: one after another, each explored over every worker; worker 0 writes. True
/// when a run stopped.
fn one_by_one(
    worker: Worker,
    engine: &Engine,
    args: &SolveArgs,
    config: &Config,
    (puzzles, runs): (Option<&Source>, &[Run]),
) -> Result<bool, Failure> {
    let stdout = io::stdout();
    // Only worker 0 takes stdout: another worker of its process must not wait for it.
    let mut out = worker
        .writes_output()
        .then(|| BufWriter::new(stdout.lock()));
    let mut stopped = false;
    let mut failure = None;
    for (number, givens, layers) in runs {
        let report = on_engine(engine, layers.as_ref(), |engine| {
            if let Some(out) = out.as_mut().filter(|_| failure.is_none()) {
                match run_one(engine, args, config, puzzles, *number, givens.as_ref(), out) {
                    Ok(report) => Some(report),
                    Err(f) => {
                        super::stop_runs(config);
                        failure = Some(f);
                        None
                    }
                }
            } else {
                engine.solve(givens.as_ref(), config, None).ok()
            }
        });
        let interrupted = report
            .as_ref()
            .is_some_and(|r| r.stop == Some(grafter::StopReason::Interrupted));
        stopped |= report.is_some_and(|r| r.stop.is_some());
        // Every worker leaves the remaining runs out, or none does: worker 0 decides.
        let going = !interrupted && failure.is_none();
        if grafter::distributed::decide(u64::from(going)) == 0 {
            break;
        }
    }
    if let Some(f) = failure {
        return Err(f);
    }
    if let Some(out) = out.as_mut() {
        out.flush()?;
    }
    Ok(stopped)
}

/// Many runs: side by side over every worker, their output in order at worker 0. True
/// when a run stopped.
fn side_by_side(
    worker: Worker,
    engine: &Engine,
    args: &SolveArgs,
    config: &Config,
    (puzzles, runs): (Option<&Source>, &[Run]),
) -> Result<bool, Failure> {
    let stdout = io::stdout();
    let mut out = worker
        .writes_output()
        .then(|| BufWriter::new(stdout.lock()));
    let mut stopped = false;
    let mut failure = None;
    grafter::distributed::run_batch(
        runs.len(),
        config,
        &|i, config, emit| {
            if super::runs_stopped(config) {
                return encode(&Ok(true));
            }
            let (number, givens, layers) = &runs[i];
            let mut pieces = Pieces {
                text: Vec::new(),
                emit,
            };
            let result = on_engine(engine, layers.as_ref(), |engine| {
                run_one(
                    engine,
                    args,
                    config,
                    puzzles,
                    *number,
                    givens.as_ref(),
                    &mut pieces,
                )
            })
            .and_then(|report| {
                pieces.flush()?;
                Ok(report.stop.is_some())
            });
            encode(&result)
        },
        &mut |_, event| {
            let Some(out) = out.as_mut() else {
                return true;
            };
            let written = match event {
                Event::Item(text) => out
                    .write_all(&text)
                    .and_then(|()| out.flush())
                    .map_err(Failure::Io),
                Event::Done(bytes) => decode(&bytes).map(|stop| stopped |= stop),
            };
            written.map_err(|f| failure = Some(f)).is_ok()
        },
    );
    if let Some(f) = failure {
        return Err(f);
    }
    if let Some(out) = out.as_mut() {
        out.flush()?;
    }
    Ok(stopped)
}

/// A run's result as bytes: 0 or 1 (done, or stopped by a limit), 2 and the rendered
/// diagnostics, 3 and an output error's text.
fn encode(result: &Result<bool, Failure>) -> Vec<u8> {
    match result {
        Ok(stopped) => vec![u8::from(*stopped)],
        Err(Failure::BadInput(text)) | Err(Failure::Lost(text)) => {
            let mut b = vec![2];
            b.extend_from_slice(text.as_bytes());
            b
        }
        Err(Failure::Io(e)) => {
            let mut b = vec![3];
            b.extend_from_slice(e.to_string().as_bytes());
            b
        }
    }
}

fn decode(bytes: &[u8]) -> Result<bool, Failure> {
    let text = || String::from_utf8_lossy(&bytes[1..]).into_owned();
    match bytes.first() {
        Some(0) => Ok(false),
        Some(1) => Ok(true),
        Some(2) => Err(Failure::BadInput(text())),
        _ => Err(Failure::Io(io::Error::other(text()))),
    }
}
