//! Why a run must stop now: its deadline, an interrupt (Ctrl-C, SIGTERM), another
//! worker's stop, or the process's memory — polled every few hundred states.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::config::Limits;
use super::report::StopReason;

/// States between two polls of the clock and the flags: a poll costs about as much as a
/// few states, and a few hundred states take well under a millisecond.
pub const POLL_STATES: u64 = 256;

/// Polls between two readings of the process's memory (a file read on Linux).
const POLLS_PER_MEMORY: u32 = 16;

/// The conditions that stop a run from outside its state and solution counts. Cheap to
/// copy; one per worker.
#[derive(Clone, Copy)]
pub struct Halt<'a> {
    limits: Limits,
    started: Instant,
    /// Set by a signal handler (or a caller) to stop every run: reported as
    /// [`StopReason::Interrupted`].
    interrupt: Option<&'a AtomicBool>,
    /// Set by another worker of the same run when it stopped: reported as a timeout (the
    /// worker that stopped first reports the real reason).
    cancel: Option<&'a AtomicBool>,
    polls: u32,
}

impl<'a> Halt<'a> {
    pub fn new(
        limits: Limits,
        started: Instant,
        interrupt: Option<&'a AtomicBool>,
        cancel: Option<&'a AtomicBool>,
    ) -> Halt<'a> {
        Halt {
            limits,
            started,
            interrupt,
            cancel,
            polls: 0,
        }
    }

    /// Why the run must stop now, if it must. Call it every [`POLL_STATES`] states or
    /// steps of comparable cost.
    pub fn poll(&mut self) -> Option<StopReason> {
        if self.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Some(StopReason::Interrupted);
        }
        let cancelled = self.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
        if cancelled
            || self
                .limits
                .timeout
                .is_some_and(|t| self.started.elapsed() >= t)
        {
            return Some(StopReason::Timeout(self.started.elapsed()));
        }
        if let Some(max) = self.limits.max_memory {
            self.polls += 1;
            if self.polls >= POLLS_PER_MEMORY {
                self.polls = 0;
                if let Some(used) = resident_bytes().filter(|&u| u >= max) {
                    return Some(StopReason::Memory(used));
                }
            }
        }
        None
    }
}

/// The process's resident memory in bytes, where the system tells it (Linux's
/// `/proc/self/statm`); `None` elsewhere.
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size())
}

/// The page size `statm` counts in: 4 KiB on the platforms grafter runs on.
fn page_size() -> u64 {
    4096
}

/// The machine's physical memory in bytes (Linux's `/proc/meminfo`); `None` elsewhere.
pub fn physical_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn an_interrupt_stops_before_anything_else() {
        let flag = AtomicBool::new(true);
        let limits = Limits {
            timeout: Some(Duration::ZERO),
            ..Limits::default()
        };
        let mut halt = Halt::new(limits, Instant::now(), Some(&flag), None);
        assert_eq!(halt.poll(), Some(StopReason::Interrupted));
        flag.store(false, Ordering::Relaxed);
        assert!(matches!(halt.poll(), Some(StopReason::Timeout(_))));
    }

    #[test]
    fn memory_is_read_every_few_polls() {
        if resident_bytes().is_none() {
            eprintln!("skipped: no /proc/self/statm on this system");
            return;
        }
        let limits = Limits {
            max_memory: Some(1),
            ..Limits::default()
        };
        let mut halt = Halt::new(limits, Instant::now(), None, None);
        let polls = (0..POLLS_PER_MEMORY).filter_map(|_| halt.poll()).count();
        assert_eq!(polls, 1);
    }
}
