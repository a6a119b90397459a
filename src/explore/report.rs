//! What an exploration found and why it stopped.

use std::fmt;
use std::time::Duration;

use super::config::{Expand, Order};
use super::policy::Policy;

/// Why a run stopped before exhausting the state space. Reaching a limit is not an error:
/// the partial results stay valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// `--max-states`: this many states were explored.
    MaxStates(u64),
    /// `--max-solutions`: this many solutions were found.
    MaxSolutions(u64),
    /// `--timeout`: this much time had passed since the run started.
    Timeout(Duration),
    /// An interrupt (Ctrl-C, SIGTERM) or the caller's flag.
    Interrupted,
    /// The process held this many bytes, at or above `--max-memory`.
    Memory(u64),
    /// The process's address space came near its soft limit (`ulimit -v`), past which an
    /// allocation would abort it; `--max-memory` does not move this stop.
    AddressSpace {
        /// The address space's size, in bytes.
        used: u64,
        /// The limit, in bytes.
        limit: u64,
    },
}

impl StopReason {
    /// A short machine-readable name: `max-states`, `max-solutions`, `timeout`,
    /// `interrupted`, `memory` (either memory stop).
    pub fn name(self) -> &'static str {
        match self {
            StopReason::MaxStates(_) => "max-states",
            StopReason::MaxSolutions(_) => "max-solutions",
            StopReason::Timeout(_) => "timeout",
            StopReason::Interrupted => "interrupted",
            StopReason::Memory(_) | StopReason::AddressSpace { .. } => "memory",
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::MaxStates(n) => write!(f, "stopped after {n} states (--max-states)"),
            StopReason::MaxSolutions(n) => {
                write!(f, "stopped after {n} solutions (--max-solutions)")
            }
            StopReason::Timeout(d) => {
                write!(f, "stopped after {:.3} s (--timeout)", d.as_secs_f64())
            }
            StopReason::Interrupted => write!(f, "interrupted"),
            StopReason::Memory(n) => write!(
                f,
                "stopped at {} MiB of memory (--max-memory)",
                n / (1024 * 1024)
            ),
            StopReason::AddressSpace { used, limit } => write!(
                f,
                "stopped at {} MiB of address space, near its limit of {} MiB (ulimit -v)",
                used / (1024 * 1024),
                limit / (1024 * 1024)
            ),
        }
    }
}

/// The counts of one exploration. `states` counts every state explored, `transitions`
/// every rule application leaving an explored state, `dead_ends` the explored states that
/// are not final and allow no application.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Final states found.
    pub solutions: u64,
    /// States explored.
    pub states: u64,
    /// Rule applications leaving explored states.
    pub transitions: u64,
    /// Explored states that are not final and allow no application.
    pub dead_ends: u64,
}

impl Counts {
    /// Adds another run's counts (a subtree's, or another attempt's).
    pub fn add(&mut self, other: &Counts) {
        self.solutions += other.solutions;
        self.states += other.states;
        self.transitions += other.transitions;
        self.dead_ends += other.dead_ends;
    }
}

/// What a run found and why it ended. Its `Display` is the text summary the command line
/// prints.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Report {
    /// What was found.
    pub counts: Counts,
    /// `None` when the whole space was explored.
    pub stop: Option<StopReason>,
    /// The exploration order.
    pub order: Order,
    /// The expansion actually used.
    pub expand: Expand,
    /// The focus, value order and restarts asked for (the focus applies under `focus`).
    pub policy: Policy,
    /// The attempts made: more than one only for restarted linear runs.
    pub attempts: u32,
    /// Why `focus` was not used when it was asked for.
    pub fallback: Option<String>,
    /// Which engine ran: `slot` (packed states) or `graph` (general host graphs).
    pub engine: &'static str,
    /// Wall-clock time of the run, planning and tabulation included.
    pub elapsed: Duration,
}

impl Report {
    /// True when the whole state space was explored (no limit or interrupt stopped it).
    pub fn complete(&self) -> bool {
        self.stop.is_none()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.counts;
        writeln!(f, "solutions: {}", c.solutions)?;
        writeln!(f, "states: {}", c.states)?;
        writeln!(f, "transitions: {}", c.transitions)?;
        writeln!(f, "dead ends: {}", c.dead_ends)?;
        writeln!(
            f,
            "expand: {}   order: {}   engine: {}   time: {:.3} s",
            self.expand.name(),
            self.order.name(),
            self.engine,
            self.elapsed.as_secs_f64()
        )?;
        let policy = &self.policy;
        if self.expand == Expand::Focus && policy.focus.is_colouring() {
            writeln!(
                f,
                "focus: {}   value: {}   seed: {}   attempts: {}",
                policy.focus.name(),
                policy.value.name(),
                policy.seed,
                self.attempts
            )?;
        }
        if let Some(why) = &self.fallback {
            writeln!(f, "note: focus not used: {why}")?;
        }
        match self.stop {
            None => writeln!(f, "complete: yes"),
            Some(stop) => writeln!(f, "complete: no, {stop}"),
        }
    }
}
