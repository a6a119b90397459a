//! Exploration settings: order, expansion, focus policy, limits, threads.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::policy::Policy;
use super::progress::Progress;

/// The order states are taken from the frontier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Depth-first (a stack). The default: memory grows with depth, not breadth.
    #[default]
    Dfs,
    /// Breadth-first (a queue).
    Bfs,
    /// One path, never backtracking: the first successor of each state is followed and the
    /// others dropped (the seeds' greedy heuristics).
    Linear,
}

impl Order {
    /// The name `--order` takes.
    pub fn name(self) -> &'static str {
        match self {
            Order::Dfs => "dfs",
            Order::Bfs => "bfs",
            Order::Linear => "linear",
        }
    }
}

/// Which applications of each state are explored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Expand {
    /// Branch on the matches of the most constrained slot only; sound for grammars that
    /// fill slots (checked, with a fall-back to `All` and its reason).
    #[default]
    Focus,
    /// Every match of every rule: GROOVE's semantics.
    All,
}

impl Expand {
    /// The name `--expand` takes.
    pub fn name(self) -> &'static str {
        match self {
            Expand::Focus => "focus",
            Expand::All => "all",
        }
    }
}

/// Limits that stop a run cleanly. `None` means no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Stop once this many states have been explored (range: 1..).
    pub max_states: Option<u64>,
    /// Stop once this many solutions have been found (range: 1..).
    pub max_solutions: Option<u64>,
    /// Stop once this much wall-clock time has passed.
    pub timeout: Option<Duration>,
    /// Stop once the process holds this many bytes of memory (resident set; read where
    /// the system tells it: `/proc/self/statm` on Linux).
    pub max_memory: Option<u64>,
}

/// Which state representation to use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EngineChoice {
    /// Packed slots where the grammar allows, whole graphs otherwise.
    #[default]
    Auto,
    /// Whole host graphs and the general matcher, always (for comparison and debugging).
    Graph,
}

/// How to run one exploration: order, expansion, policy, limits, engine and threads. Build
/// it from [`Config::default`] with the `with_` methods; each field documents its default.
#[derive(Clone, Copy, Debug, Default)]
pub struct Config {
    /// Default: `dfs`.
    pub order: Order,
    /// Default: `focus` (falls back to `all` where unsound).
    pub expand: Expand,
    /// Under `focus`: which slot to branch on, the value order, restarts. Default: the
    /// exact focus with forced moves, smallest value first, one attempt.
    pub policy: Policy,
    /// Default: none.
    pub limits: Limits,
    /// Default: `Auto`.
    pub engine: EngineChoice,
    /// Worker threads for one run (0 or 1: this thread only). Counts and the order of
    /// solutions do not depend on it. Default: 0.
    pub threads: usize,
    /// A flag that stops the run with [`super::StopReason::Interrupted`] when set (by a
    /// signal handler, say). Default: none.
    pub interrupt: Option<&'static AtomicBool>,
    /// When the run began: `--timeout` counts, and a timeout is reported, from here, so
    /// work done before the exploration (compiling tables, restarts) counts too. Default:
    /// none, when the exploration starts.
    pub started: Option<Instant>,
    /// Where the run publishes its counts as it goes, for a live display; every run and
    /// worker with the same one adds to it. Default: none (nothing is published).
    pub progress: Option<&'static Progress>,
}

/// The worker threads for a batch of runs: as `asked` (at least 1), else every core the
/// system offers. The one place where "all cores" is decided; runs and batches take the
/// resolved number.
pub fn resolve_threads(asked: Option<usize>) -> usize {
    asked
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// A configuration built step by step from the defaults documented on each field, as
/// `Config::default().with_order(Order::Bfs).with_timeout(Duration::from_secs(5))`.
impl Config {
    /// Sets [`Config::order`].
    pub fn with_order(self, order: Order) -> Self {
        Config { order, ..self }
    }

    /// Sets [`Config::expand`].
    pub fn with_expand(self, expand: Expand) -> Self {
        Config { expand, ..self }
    }

    /// Sets [`Config::policy`].
    pub fn with_policy(self, policy: Policy) -> Self {
        Config { policy, ..self }
    }

    /// Sets [`Config::engine`].
    pub fn with_engine(self, engine: EngineChoice) -> Self {
        Config { engine, ..self }
    }

    /// Sets [`Config::threads`].
    pub fn with_threads(self, threads: usize) -> Self {
        Config { threads, ..self }
    }

    /// Sets every limit at once.
    pub fn with_limits(self, limits: Limits) -> Self {
        Config { limits, ..self }
    }

    /// Stops after `n` states.
    pub fn with_max_states(mut self, n: u64) -> Self {
        self.limits.max_states = Some(n);
        self
    }

    /// Stops after `n` solutions.
    pub fn with_max_solutions(mut self, n: u64) -> Self {
        self.limits.max_solutions = Some(n);
        self
    }

    /// Stops after `timeout` of wall-clock time.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.limits.timeout = Some(timeout);
        self
    }

    /// Stops once the process holds `bytes` of memory.
    pub fn with_max_memory(mut self, bytes: u64) -> Self {
        self.limits.max_memory = Some(bytes);
        self
    }

    /// Counts the timeout from `started` (see [`Config::started`]).
    pub fn with_started(self, started: Instant) -> Self {
        Config {
            started: Some(started),
            ..self
        }
    }

    /// Publishes the run's counts to `progress` as it goes (see [`Config::progress`]).
    pub fn with_progress(self, progress: &'static Progress) -> Self {
        Config {
            progress: Some(progress),
            ..self
        }
    }

    /// Stops the run, with [`StopReason::Interrupted`](super::StopReason::Interrupted), once
    /// `flag` is set.
    pub fn with_interrupt(self, flag: &'static AtomicBool) -> Self {
        Config {
            interrupt: Some(flag),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builder_sets_what_it_names_and_keeps_the_defaults() {
        let c = Config::default()
            .with_order(Order::Bfs)
            .with_max_states(10)
            .with_timeout(Duration::from_secs(2));
        assert_eq!(c.order, Order::Bfs);
        assert_eq!(c.limits.max_states, Some(10));
        assert_eq!(c.limits.timeout, Some(Duration::from_secs(2)));
        assert_eq!(c.expand, Expand::Focus);
        assert_eq!(c.limits.max_solutions, None);
        assert_eq!(c.threads, 0);
    }
}
