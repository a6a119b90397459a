//! Standard output written a block at a time and flushed on a clock, so that a batch of
//! many small runs is not one system call a run, and what it wrote is still seen soon.
//!
//! A run's output is flushed at once when nothing was flushed for a tick (the first
//! solution, a slow batch's every result); between those, it waits in the buffer for the
//! buffer to fill or for the ticking thread ([`Paced::tick_until`]) to flush it, started
//! the first time output waits (a run of one puzzle, or of slow ones, has none: a thread
//! takes address space that a run near `ulimit -v` may not spare). A terminal gets every
//! result at once, as it comes.

use std::io::{self, BufWriter, Stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Standard output, shared by the thread that writes results and the one that ticks.
pub struct Paced {
    state: Mutex<State>,
    /// How long written output may wait before it is flushed.
    every: Duration,
    /// Flush after every write (standard output is a terminal).
    at_once: bool,
}

struct State {
    out: BufWriter<Stdout>,
    /// When the output was last flushed (or could have been: nothing waited).
    flushed: Instant,
    /// The error a tick's flush met, for the writer to report.
    failed: Option<io::Error>,
}

impl Paced {
    /// Standard output, flushed at least every `every` while output waits; after each
    /// write when `at_once`.
    pub fn new(every: Duration, at_once: bool) -> Paced {
        Paced {
            state: Mutex::new(State {
                out: BufWriter::new(io::stdout()),
                // The first output is flushed at once.
                flushed: long_ago(every),
                failed: None,
            }),
            every,
            at_once,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A thread that panicked holding it left a buffer and an instant: still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes `bytes`, flushing them too when output has waited a tick already, or
    /// always on a terminal; true when they were left to wait (for a tick to flush). An
    /// error a tick met is returned here.
    pub fn write(&self, bytes: &[u8]) -> io::Result<bool> {
        let mut s = self.state();
        if let Some(e) = s.failed.take() {
            return Err(e);
        }
        s.out.write_all(bytes)?;
        if self.at_once || s.flushed.elapsed() >= self.every {
            s.out.flush()?;
            s.flushed = Instant::now();
            return Ok(false);
        }
        Ok(true)
    }

    /// Flushes what waits (at the end of the output); an error a tick met is returned.
    pub fn flush(&self) -> io::Result<()> {
        let mut s = self.state();
        if let Some(e) = s.failed.take() {
            return Err(e);
        }
        s.out.flush()
    }

    /// Flushes what waits every tick until `stop` is set (and this thread unparked).
    /// When a flush fails, keeps the error for the next [`Paced::write`] or
    /// [`Paced::flush`], calls `failed` (which should stop the runs: nothing more can be
    /// shown) and returns.
    pub fn tick_until(&self, stop: &AtomicBool, failed: impl FnOnce()) {
        let mut next = Instant::now() + self.every;
        loop {
            let now = Instant::now();
            if now < next {
                std::thread::park_timeout(next - now);
            }
            if stop.load(Ordering::Acquire) {
                return;
            }
            if Instant::now() < next {
                // Woken early, not stopped: sleep out the tick.
                continue;
            }
            next = Instant::now() + self.every;
            let mut s = self.state();
            if s.out.buffer().is_empty() {
                // Nothing waits: the next write need not wait a tick.
                s.flushed = s.flushed.min(long_ago(self.every));
                continue;
            }
            match s.out.flush() {
                Ok(()) => s.flushed = Instant::now(),
                Err(e) => {
                    s.failed = Some(e);
                    drop(s);
                    failed();
                    return;
                }
            }
        }
    }
}

/// An instant `every` before now (or now, on a clock that started less than that ago).
fn long_ago(every: Duration) -> Instant {
    let now = Instant::now();
    now.checked_sub(every).unwrap_or(now)
}
