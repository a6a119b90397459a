//! The playground's runs: each a worker process (`grafter serve --worker`) watched until
//! it ends — ended when it passes its time, its memory or its output, or does not stop
//! when asked — its lines kept for the page to fetch.
//!
//! A process of its own per run is what makes the caps hold: loading a rule file, drawing
//! a board or recording a state space do not poll the run's limits, and a short file can
//! ask for a million cells; a thread could not be ended, a process can.

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::json;

use super::limits::{Caps, Job};

/// How often a run's process is looked at: its exit, its time and its memory.
const WATCH_EVERY: Duration = Duration::from_millis(10);
/// Time a worker has past its timeout to end by itself before it is ended: the run stops
/// at its timeout, but loading, drawing and the state space do not poll it.
const GRACE: Duration = Duration::from_secs(2);
/// Time a worker has after a stop before it is ended (it may be loading a file).
const STOP_GRACE: Duration = Duration::from_secs(1);
/// Bytes of lines a run may write; past them it is ended.
const MAX_OUTPUT: usize = 32 << 20;
/// How long a finished run's lines are kept for the page.
const KEEP: Duration = Duration::from_secs(300);
/// Finished runs kept at most; the oldest go first.
const KEEP_RUNS: usize = 32;
/// Bytes of a worker's stderr kept, for the message when it fails.
const MAX_STDERR: u64 = 8192;

/// The runs of one server.
pub struct Runs {
    caps: Caps,
    /// The `grafter` binary, run as the worker.
    exe: PathBuf,
    table: Mutex<Table>,
    /// Told whenever a run gains a line or ends.
    changed: Condvar,
}

#[derive(Default)]
struct Table {
    next: u64,
    runs: BTreeMap<u64, Run>,
}

#[derive(Default)]
struct Run {
    /// JSON lines, in the order written.
    lines: Vec<String>,
    bytes: usize,
    /// When the process ended and its last line was added.
    ended: Option<Instant>,
    /// The worker's stdin once its job is written: a stop is written here.
    stdin: Option<ChildStdin>,
    stop_asked: Option<Instant>,
}

/// Why a run was not started.
pub enum StartError {
    /// As many runs as the cap allows are going.
    Busy(usize),
    /// The worker could not be started.
    Spawn(io::Error),
}

/// A run's lines from some point on.
pub struct Batch {
    pub lines: Vec<String>,
    /// The number of lines read once these are.
    pub next: usize,
    /// True once the run has ended and these are its last lines.
    pub done: bool,
}

/// What ended a run's process from outside.
#[derive(Clone, Copy)]
enum Ended {
    Time,
    Memory,
    Stop,
    Output,
}

impl Runs {
    pub fn new(caps: Caps, exe: PathBuf) -> Arc<Runs> {
        Arc::new(Runs {
            caps,
            exe,
            table: Mutex::new(Table::default()),
            changed: Condvar::new(),
        })
    }

    pub fn caps(&self) -> &Caps {
        &self.caps
    }

    /// The runs going now.
    pub fn going(&self) -> usize {
        self.lock().going()
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        // A handler that panicked leaves the table as consistent as any other moment.
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts a worker on `job`: its number, to fetch its lines and stop it.
    pub fn start(self: &Arc<Self>, job: &Job) -> Result<u64, StartError> {
        let mut table = self.lock();
        table.forget_old();
        let going = table.going();
        if going >= self.caps.runs {
            return Err(StartError::Busy(going));
        }
        let mut child = Command::new(&self.exe)
            .args(["serve", "--worker"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(StartError::Spawn)?;
        let id = table.next;
        table.next += 1;
        table.runs.insert(id, Run::default());
        drop(table);
        let mut job_line = serde_json::to_string(job).expect("a job always serialises");
        job_line.push('\n');
        let (stdin, stdout, stderr) = (
            child.stdin.take().expect("piped"),
            child.stdout.take().expect("piped"),
            child.stderr.take().expect("piped"),
        );
        let runs = Arc::clone(self);
        thread::spawn(move || runs.hand_job(id, stdin, job_line));
        let runs = Arc::clone(self);
        thread::spawn(move || runs.watch(id, child, stdout, stderr));
        Ok(id)
    }

    /// Writes the job on the worker's stdin, then keeps the pipe for a stop (passing on
    /// one asked for meanwhile). In a thread of its own: a megabyte waits for the worker
    /// to read it.
    fn hand_job(&self, id: u64, mut stdin: ChildStdin, job_line: String) {
        if stdin.write_all(job_line.as_bytes()).is_err() {
            return; // The worker is gone; the watch says how.
        }
        let mut table = self.lock();
        if let Some(run) = table.runs.get_mut(&id) {
            if run.stop_asked.is_some() {
                let _ = stdin.write_all(b"stop\n");
            }
            run.stdin = Some(stdin);
        }
    }

    /// Watches the worker until it ends, reading its lines; ends it when it passes a cap;
    /// then adds the `end` line.
    fn watch(&self, id: u64, mut child: Child, stdout: impl Read + Send, stderr: impl Read + Send) {
        let started = Instant::now();
        let (ended_by, status, stderr) = thread::scope(|scope| {
            scope.spawn(|| self.read_lines(id, stdout));
            let errors = scope.spawn(|| {
                let mut text = String::new();
                let mut stderr = stderr;
                let _ = stderr.by_ref().take(MAX_STDERR).read_to_string(&mut text);
                // The rest is drained, so that the worker never waits on a full pipe.
                let _ = io::copy(&mut stderr, &mut io::sink());
                text
            });
            let mut ended_by = None;
            let status = loop {
                match child.try_wait() {
                    Ok(Some(status)) => break Some(status),
                    Ok(None) => {}
                    Err(_) => break None,
                }
                if let Some(why) = self.overrun(id, started, child.id()) {
                    ended_by = Some(why);
                    let _ = child.kill();
                    break child.wait().ok();
                }
                thread::sleep(WATCH_EVERY);
            };
            (ended_by, status, errors.join().unwrap_or_default())
        });
        let seconds = started.elapsed().as_secs_f64();
        let end = match ended_by {
            Some(why) => json!({
                "type": "end", "ended_by": why.name(), "message": self.message(why),
                "seconds": seconds,
            }),
            None if status.is_some_and(|s| s.success()) => {
                json!({"type": "end", "ended_by": null, "message": null, "seconds": seconds})
            }
            None => json!({
                "type": "end", "ended_by": "failure", "seconds": seconds,
                "message": format!("the run failed ({}): {}",
                    status.map_or("no exit status".to_string(), |s| s.to_string()),
                    stderr.trim()),
            }),
        };
        let mut table = self.lock();
        if let Some(run) = table.runs.get_mut(&id) {
            run.lines.push(end.to_string());
            run.ended = Some(Instant::now());
            run.stdin = None;
        }
        drop(table);
        self.changed.notify_all();
    }

    /// Adds each JSON line the worker writes to the run.
    fn read_lines(&self, id: u64, stdout: impl Read) {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            // A worker writes nothing else; a line that is not JSON is not passed on.
            if serde_json::from_str::<serde::de::IgnoredAny>(&line).is_err() {
                continue;
            }
            let mut table = self.lock();
            if let Some(run) = table.runs.get_mut(&id) {
                run.bytes += line.len();
                run.lines.push(line);
            }
            drop(table);
            self.changed.notify_all();
        }
    }

    /// The cap the run has passed, if any: time (with grace), memory, output, or a stop
    /// it did not heed.
    fn overrun(&self, id: u64, started: Instant, pid: u32) -> Option<Ended> {
        let caps = &self.caps;
        if started.elapsed() > Duration::from_secs_f64(caps.timeout) + GRACE {
            return Some(Ended::Time);
        }
        if resident_bytes(pid).is_some_and(|held| held > caps.max_memory) {
            return Some(Ended::Memory);
        }
        let table = self.lock();
        let run = table.runs.get(&id)?;
        if run.bytes > MAX_OUTPUT {
            return Some(Ended::Output);
        }
        if run.stop_asked.is_some_and(|t| t.elapsed() > STOP_GRACE) {
            return Some(Ended::Stop);
        }
        None
    }

    fn message(&self, why: Ended) -> String {
        let caps = &self.caps;
        match why {
            Ended::Time => format!(
                "the run went on past the server's time cap ({} s) and was ended",
                caps.timeout
            ),
            Ended::Memory => format!(
                "the run's process held more than the server's memory cap ({} MiB) and was ended",
                caps.max_memory >> 20
            ),
            Ended::Stop => format!(
                "the run did not stop within {} s of being asked (it was not exploring yet) and was ended",
                STOP_GRACE.as_secs()
            ),
            Ended::Output => format!(
                "the run wrote more than {} MiB of results and was ended",
                MAX_OUTPUT >> 20
            ),
        }
    }

    /// The lines of run `id` from `after` on, waiting up to `wait` for one when there is
    /// none yet; `None` when there is no such run (or it was forgotten).
    pub fn lines(&self, id: u64, after: usize, wait: Duration) -> Option<Batch> {
        let deadline = Instant::now() + wait;
        let mut table = self.lock();
        loop {
            let run = table.runs.get(&id)?;
            let now = Instant::now();
            if run.lines.len() > after || run.ended.is_some() || now >= deadline {
                let lines = run.lines.get(after..).unwrap_or_default().to_vec();
                return Some(Batch {
                    next: after.max(run.lines.len()),
                    done: run.ended.is_some(),
                    lines,
                });
            }
            table = self
                .changed
                .wait_timeout(table, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Asks run `id` to stop: its exploration ends at its next poll, as a limit ends it,
    /// and what it found stays. False when there is no such run.
    pub fn stop(&self, id: u64) -> bool {
        let mut table = self.lock();
        let Some(run) = table.runs.get_mut(&id) else {
            return false;
        };
        if run.ended.is_none() && run.stop_asked.is_none() {
            run.stop_asked = Some(Instant::now());
            if let Some(stdin) = &mut run.stdin {
                let _ = stdin.write_all(b"stop\n");
            }
        }
        true
    }
}

impl Table {
    fn going(&self) -> usize {
        self.runs.values().filter(|r| r.ended.is_none()).count()
    }

    /// Drops finished runs kept longer than [`KEEP`], and the oldest past [`KEEP_RUNS`].
    fn forget_old(&mut self) {
        self.runs
            .retain(|_, r| r.ended.is_none_or(|t| t.elapsed() < KEEP));
        let finished: Vec<u64> = self
            .runs
            .iter()
            .filter(|(_, r)| r.ended.is_some())
            .map(|(&id, _)| id)
            .collect();
        for id in finished
            .iter()
            .take(finished.len().saturating_sub(KEEP_RUNS))
        {
            self.runs.remove(id);
        }
    }
}

impl Ended {
    fn name(self) -> &'static str {
        match self {
            Ended::Time => "time",
            Ended::Memory => "memory",
            Ended::Stop => "stop",
            Ended::Output => "output",
        }
    }
}

/// The resident memory of process `pid` in bytes, where the system tells it (Linux's
/// `/proc/PID/statm`, in 4 KiB pages as `grafter`'s own limit reads it).
fn resident_bytes(pid: u32) -> Option<u64> {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}
