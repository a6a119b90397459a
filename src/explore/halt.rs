//! Why a run must stop now: its deadline, an interrupt (Ctrl-C, SIGTERM), another
//! worker's stop, or the process's memory — polled every millisecond or so of work.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use super::config::Limits;
use super::report::StopReason;

/// The time aimed at between two polls: short enough that a limit holds within a few
/// milliseconds, long enough that polling costs nothing next to the work.
const POLL_GAP: Duration = Duration::from_millis(1);

/// The most units of work between two polls, for units that take nanoseconds.
const MAX_STRIDE: u32 = 1024;

/// The least time between two readings of the process's memory (a file read on Linux,
/// a few microseconds).
const MEMORY_GAP: Duration = Duration::from_millis(2);

/// The conditions that stop a run from outside its state and solution counts, and the
/// pace at which they are polled. Cheap to copy; one per worker.
#[derive(Clone, Copy)]
pub struct Halt<'a> {
    stops: Stops<'a>,
    pace: Pace,
}

/// What a poll looks at: the limits, the flags, the clock the timeout counts from.
#[derive(Clone, Copy)]
pub struct Stops<'a> {
    limits: Limits,
    started: Instant,
    /// Set by a signal handler (or a caller) to stop every run: reported as
    /// [`StopReason::Interrupted`].
    interrupt: Option<&'a AtomicBool>,
    /// Set by another worker of the same run when it stopped: reported as a timeout (the
    /// worker that stopped first reports the real reason).
    cancel: Option<&'a AtomicBool>,
}

/// When the next poll is due: the only part of a [`Halt`] that work changes.
#[derive(Clone, Copy)]
pub struct Pace {
    /// Units of work between two polls, adapted so that polls come about every
    /// [`POLL_GAP`]: a state of a large graph may take milliseconds to build, a packed
    /// state nanoseconds.
    stride: u32,
    /// Units left before the next poll.
    left: u32,
    last_poll: Instant,
    last_memory: Option<Instant>,
    /// Polls made by [`Pace::tick`], wrapping: a walk compares it to see that a poll
    /// came, and only then looks at the clock.
    polls: u32,
}

/// A run's [`Halt`] lent to one expansion, which ticks it once per successor: two
/// references, so that the tick stays a decrement inlined into the space's loop.
pub struct Lent<'a> {
    stops: &'a Stops<'a>,
    pace: &'a mut Pace,
}

impl<'a> Halt<'a> {
    pub fn new(
        limits: Limits,
        started: Instant,
        interrupt: Option<&'a AtomicBool>,
        cancel: Option<&'a AtomicBool>,
    ) -> Halt<'a> {
        Halt {
            stops: Stops {
                limits,
                started,
                interrupt,
                cancel,
            },
            // The run's start stands for the last poll: one clock reading less per run,
            // which counts where runs take microseconds (a batch of puzzles).
            pace: Pace {
                stride: 1,
                left: 0,
                last_poll: started,
                last_memory: None,
                polls: 0,
            },
        }
    }

    /// Counts one unit of work (a state, a successor, a stretch of a long search) and
    /// polls when one is due, the first unit included: why the run must stop, if it must.
    #[inline]
    pub fn tick(&mut self) -> Option<StopReason> {
        self.pace.tick(&self.stops)
    }

    /// Why the run must stop now, if it must.
    pub fn poll(&mut self) -> Option<StopReason> {
        self.pace.poll(&self.stops)
    }

    /// Polls made by ticks so far (wrapping): it changes once a poll, about every
    /// [`POLL_GAP`] of work.
    #[inline]
    pub fn polls(&self) -> u32 {
        self.pace.polls
    }

    /// When a tick last polled.
    pub fn last_poll(&self) -> Instant {
        self.pace.last_poll
    }

    /// This halt, lent to one expansion.
    #[inline]
    pub fn lend(&mut self) -> Lent<'_> {
        Lent {
            stops: &self.stops,
            pace: &mut self.pace,
        }
    }
}

impl Lent<'_> {
    /// As [`Halt::tick`].
    #[inline]
    pub fn tick(&mut self) -> Option<StopReason> {
        self.pace.tick(self.stops)
    }
}

impl Pace {
    #[inline]
    fn tick(&mut self, stops: &Stops<'_>) -> Option<StopReason> {
        if self.left > 0 {
            self.left -= 1;
            return None;
        }
        let now = Instant::now();
        let gap = now - self.last_poll;
        self.last_poll = now;
        self.polls = self.polls.wrapping_add(1);
        if gap > 2 * POLL_GAP {
            self.stride = (self.stride / 2).max(1);
        } else if gap < POLL_GAP / 2 {
            self.stride = (self.stride * 2).min(MAX_STRIDE);
        }
        self.left = self.stride - 1;
        self.poll(stops)
    }

    fn poll(&mut self, stops: &Stops<'_>) -> Option<StopReason> {
        if stops.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Some(StopReason::Interrupted);
        }
        let cancelled = stops.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
        if cancelled
            || stops
                .limits
                .timeout
                .is_some_and(|t| stops.started.elapsed() >= t)
        {
            return Some(StopReason::Timeout(stops.started.elapsed()));
        }
        let due = self.last_memory.is_none_or(|t| t.elapsed() >= MEMORY_GAP);
        if due && (stops.limits.max_memory.is_some() || address_space_limit().is_some()) {
            let now = Instant::now();
            self.last_memory = Some(now);
            let shared = memory_now(now, false);
            // A shared reading past the limit may be another run's, since freed (a batch's
            // puzzle that stopped on it): a run stops only on a reading of its own.
            if shared.and_then(|m| stops.memory_over(m)).is_some() {
                let own = memory_now(now, true);
                if let Some(stop) = own.and_then(|m| stops.memory_over(m)) {
                    return Some(stop);
                }
            }
        }
        None
    }
}

impl Stops<'_> {
    /// The stop a reading calls for: the resident memory at `--max-memory`, or the
    /// address space near `ulimit -v` (past which an allocation aborts the process).
    fn memory_over(&self, (size, resident): (u64, u64)) -> Option<StopReason> {
        if self.limits.max_memory.is_some_and(|max| resident >= max) {
            return Some(StopReason::Memory(resident));
        }
        address_space_limit()
            .filter(|&limit| size >= limit / 8 * 7)
            .map(|limit| StopReason::AddressSpace { used: size, limit })
    }
}

/// The last reading of the process's memory, and when it was taken.
static LAST: Mutex<Option<(Instant, Memory)>> = Mutex::new(None);

/// The process's memory as read at most [`MEMORY_GAP`] before `now`, by this run or
/// another (read now where `fresh`): memory is the process's, so the runs of a
/// batch (each a few microseconds, each polling once at its start) share one reading
/// instead of a file read apiece, which took 6 % of a batch of 9x9 jigsaws. A limit is
/// then seen up to one gap later than a run reading its own would see it.
fn memory_now(now: Instant, fresh: bool) -> Memory {
    let mut last = LAST.lock().unwrap_or_else(PoisonError::into_inner);
    match *last {
        Some((at, memory)) if !fresh && now.saturating_duration_since(at) < MEMORY_GAP => memory,
        _ => {
            let memory = statm();
            #[cfg(test)]
            tests::READINGS.fetch_add(1, Ordering::Relaxed);
            *last = Some((now, memory));
            memory
        }
    }
}

/// The process's address space and resident memory in bytes, where the system tells
/// them.
type Memory = Option<(u64, u64)>;

/// The soft `ulimit -v`, read once; `None` without one. A run stops at seven eighths of
/// it: the eighth left covers what one poll's gap may allocate.
fn address_space_limit() -> Option<u64> {
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    *LIMIT.get_or_init(super::memory::address_space_limit)
}

/// The process's address space and resident memory in bytes (Linux's
/// `/proc/self/statm`); `None` elsewhere.
fn statm() -> Memory {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let mut fields = statm.split_whitespace();
    let size: u64 = fields.next()?.parse().ok()?;
    let resident: u64 = fields.next()?.parse().ok()?;
    Some((size * page_size(), resident * page_size()))
}

/// The process's resident memory in bytes, where the system tells it (Linux's
/// `/proc/self/statm`); `None` elsewhere.
pub fn resident_bytes() -> Option<u64> {
    statm().map(|(_, resident)| resident)
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

    /// Limits of `max(resident)` bytes of memory, `resident` being the process's now;
    /// `None` (the test skipped, and saying so) where the system does not tell it.
    fn memory_limit(max: impl Fn(u64) -> u64) -> Option<Limits> {
        let Some(resident) = resident_bytes() else {
            eprintln!("skipped: no /proc/self/statm on this system");
            return None;
        };
        Some(Limits {
            max_memory: Some(max(resident)),
            ..Limits::default()
        })
    }

    #[test]
    fn memory_is_read_at_most_every_memory_gap() {
        let Some(limits) = memory_limit(|_| 1) else {
            return;
        };
        let mut halt = Halt::new(limits, Instant::now(), None, None);
        let started = Instant::now();
        let stops = (0..16).filter_map(|_| halt.poll()).count();
        if started.elapsed() < MEMORY_GAP {
            assert_eq!(stops, 1);
        }
        std::thread::sleep(MEMORY_GAP);
        assert!(matches!(halt.poll(), Some(StopReason::Memory(_))));
    }

    /// Shared readings of the process's memory taken by [`memory_now`].
    pub(super) static READINGS: std::sync::atomic::AtomicUsize =
        std::sync::atomic::AtomicUsize::new(0);

    #[test]
    fn runs_share_one_reading_of_memory() {
        let Some(limits) = memory_limit(|_| u64::MAX) else {
            return;
        };
        let started = Instant::now();
        let before = READINGS.load(Ordering::Relaxed);
        // A batch's runs: each polls once, at its start.
        for _ in 0..1000 {
            let mut halt = Halt::new(limits, Instant::now(), None, None);
            assert!(halt.poll().is_none());
        }
        // Other tests' runs may read too, once a gap between them all (and a run that
        // stops, once more of its own).
        let read = READINGS.load(Ordering::Relaxed) - before;
        let gaps = (started.elapsed().as_micros() / MEMORY_GAP.as_micros()) as usize;
        assert!(read <= 2 * gaps + 2, "{read} readings in {gaps} gaps");
    }

    #[test]
    fn a_reading_past_the_limit_is_confirmed_before_a_run_stops() {
        // This run's limit lies between the memory the process holds now and what
        // another run saw (it stopped, and its memory was freed): far more.
        let Some(limits) = memory_limit(|resident| 2 * resident + (1 << 29)) else {
            return;
        };
        let seen = 4 * limits.max_memory.unwrap_or(0);
        *LAST.lock().unwrap() = Some((Instant::now(), Some((0, seen))));
        let mut halt = Halt::new(limits, Instant::now(), None, None);
        assert!(halt.poll().is_none());
    }

    #[test]
    fn polls_come_often_when_units_are_slow_and_rarely_when_fast() {
        let mut halt = Halt::new(Limits::default(), Instant::now(), None, None);
        for _ in 0..100_000 {
            halt.tick();
        }
        // A preempted poll halves the stride; the next doubles it again.
        assert!(
            halt.pace.stride >= MAX_STRIDE / 2,
            "fast units: {}",
            halt.pace.stride
        );
        let mut halt = Halt::new(Limits::default(), Instant::now(), None, None);
        for _ in 0..20 {
            std::thread::sleep(POLL_GAP * 3);
            halt.tick();
        }
        assert_eq!(halt.pace.stride, 1, "slow units");
    }
}
