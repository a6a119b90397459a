//! Runs of the binary watched from outside: peak memory, wall time, a signal sent
//! mid-run, and a kill when it overstays — for the tests that limits and stops hold.

use std::ffi::OsStr;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::support::{root, Run, BIN};

/// What a watched run did, beside its output.
#[derive(Debug)]
pub struct Watched {
    pub run: Run,
    /// The largest resident set seen (`VmHWM`, KiB), where `/proc` tells it.
    pub peak_kib: Option<u64>,
    /// When the peak was first seen, and the memory lines of `/proc`'s status then: what
    /// a failed bound reports.
    pub at_peak: String,
    pub elapsed: Duration,
    /// True when the run overstayed `deadline` and was killed.
    pub killed: bool,
}

/// How to watch a run.
#[derive(Clone, Debug)]
pub struct Watch {
    /// Kill the run after this long (the test then fails on `killed`).
    pub deadline: Duration,
    /// Send this signal (a `kill -SIG` name: `INT`, `TERM`) after this long.
    pub signal: Option<(&'static str, Duration)>,
    /// Close our end of stdout after reading this many bytes (a `| head -c N`).
    pub read_stdout: Option<usize>,
}

impl Default for Watch {
    fn default() -> Self {
        Watch {
            deadline: Duration::from_secs(60),
            signal: None,
            read_stdout: None,
        }
    }
}

/// The high-water mark of a process's resident set, in KiB, and the memory and thread
/// lines of its status.
fn memory_status(pid: u32) -> Option<(u64, String)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib = line.split_whitespace().nth(1)?.parse().ok()?;
    let lines: Vec<&str> = status
        .lines()
        .filter(|l| l.starts_with("Vm") || l.starts_with("Rss") || l.starts_with("Threads"))
        .collect();
    Some((kib, lines.join(", ").replace('\t', " ")))
}

/// Runs `grafter ARGS...` in the repository root, watching it as `watch` says.
pub fn watched<I, S>(args: I, watch: &Watch) -> Watched
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    let started = Instant::now();
    let mut child = Command::new(BIN)
        .current_dir(root())
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the grafter binary runs");
    let pid = child.id();
    // Readers on their own threads, so a full pipe never stalls the child (unless a test
    // asks for that by closing stdout early).
    let mut stdout = child.stdout.take().expect("piped stdout");
    let limit = watch.read_stdout;
    let out_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        match limit {
            None => {
                stdout.read_to_end(&mut bytes).ok();
            }
            Some(n) => {
                let mut part = stdout.take(n as u64);
                part.read_to_end(&mut bytes).ok();
                // Dropping the pipe here closes it: the child's next write gets EPIPE.
            }
        }
        bytes
    });
    let mut stderr = child.stderr.take().expect("piped stderr");
    let err_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stderr.read_to_end(&mut bytes).ok();
        bytes
    });
    let mut peak = None;
    let mut at_peak = String::new();
    let mut signalled = false;
    let mut killed = false;
    let status = loop {
        if let Some((kib, status)) = memory_status(pid) {
            if peak.is_none_or(|p| kib > p) {
                peak = Some(kib);
                at_peak = format!("after {:?}: {status}", started.elapsed());
            }
        }
        if let Some(status) = child.try_wait().expect("waiting for grafter") {
            break status;
        }
        let elapsed = started.elapsed();
        if let Some((sig, after)) = watch.signal {
            if !signalled && elapsed >= after {
                Command::new("kill")
                    .args([format!("-{sig}"), pid.to_string()])
                    .status()
                    .expect("kill runs");
                signalled = true;
            }
        }
        if elapsed >= watch.deadline && !killed {
            child.kill().ok();
            killed = true;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = started.elapsed();
    let stdout = out_reader.join().expect("stdout reader");
    let stderr = err_reader.join().expect("stderr reader");
    Watched {
        run: Run {
            args: args
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            code: status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        },
        peak_kib: peak,
        at_peak,
        elapsed,
        killed,
    }
}

impl Watched {
    /// Asserts the run ended on its own within its deadline, with `code`, no panic and
    /// at most `max_mib` MiB resident at its peak (where `/proc` tells it).
    pub fn expect(&self, code: i32, max_mib: u64) -> &Self {
        assert!(
            !self.killed,
            "grafter {}: overstayed, killed after {:?}",
            self.run.args.join(" "),
            self.elapsed
        );
        self.run.expect_code(code);
        if let Some(kib) = self.peak_kib {
            assert!(
                kib <= max_mib * 1024,
                "grafter {}: peak {} MiB, bound {max_mib} MiB; first seen {}; ended after {:?}, \
                 status {}, stdout {} bytes, stderr: {}",
                self.run.args.join(" "),
                kib / 1024,
                self.at_peak,
                self.elapsed,
                self.run.code,
                self.run.stdout.len(),
                self.run.stderr.chars().take(500).collect::<String>()
            );
        }
        self
    }
}

#[test]
fn a_watched_run_reports_its_peak_memory() {
    // Half a second of search, so `/proc` is read many times before the process exits.
    let w = watched(
        [
            "solve",
            "rules/sudoku-6x6.graft",
            "--puzzles",
            "tests/fixtures/puzzles/empty-6x6.txt",
            "--count",
            "--timeout",
            "0.5",
        ],
        &Watch::default(),
    );
    w.expect(3, 256);
    let count: u64 = w.run.stdout.trim().parse().expect("a count");
    assert!(count > 0, "no solution counted in half a second");
    if cfg!(target_os = "linux") {
        assert!(w.peak_kib.is_some_and(|k| k > 0), "no VmHWM read");
    }
}
