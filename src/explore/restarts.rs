//! Restarts: a randomised run repeated, each attempt with a fresh seed, until one reaches a
//! final state or the attempts run out (seed 002's `max_iter`), within the limits of the
//! whole run.

use std::time::Instant;

use super::config::Config;
use super::report::{Counts, StopReason};

/// Calls `attempt(i, config)` for `i` in `0..attempts` until one finds a solution or stops
/// at a limit. Each attempt gets what is left of the state limit and the timeout. Returns
/// the counts summed over the attempts, why the last one stopped, and the attempts made.
pub fn explore_restarts(
    attempts: u32,
    config: &Config,
    mut attempt: impl FnMut(u32, &Config) -> (Counts, Option<StopReason>),
) -> (Counts, Option<StopReason>, u32) {
    let started = Instant::now();
    let limits = config.limits;
    let mut total = Counts::default();
    let mut made = 0;
    for i in 0..attempts.max(1) {
        let mut left = *config;
        if let Some(m) = limits.max_states {
            if total.states >= m {
                return (total, Some(StopReason::MaxStates(total.states)), made);
            }
            left.limits.max_states = Some(m - total.states);
        }
        if let Some(t) = limits.timeout {
            let spent = started.elapsed();
            if spent >= t {
                return (total, Some(StopReason::Timeout(spent)), made);
            }
            left.limits.timeout = Some(t - spent);
        }
        let (counts, stop) = attempt(i, &left);
        made += 1;
        total.add(&counts);
        // Limits speak of the whole run: report the totals.
        let stop = stop.map(|s| match s {
            StopReason::MaxStates(_) => StopReason::MaxStates(total.states),
            StopReason::MaxSolutions(_) => StopReason::MaxSolutions(total.solutions),
            StopReason::Timeout(_) => StopReason::Timeout(started.elapsed()),
        });
        if stop.is_some() || counts.solutions > 0 {
            return (total, stop, made);
        }
    }
    (total, None, made)
}
