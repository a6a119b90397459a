//! Restarts: a randomised run repeated, each attempt with a fresh seed, until one reaches a
//! final state or the attempts run out (seed 002's `max_iter`), within the limits of the
//! whole run.

use std::time::Instant;

use super::config::Config;
use super::report::{Counts, StopReason};

/// Calls `attempt(i, config)` for `i` in `0..attempts` until one finds a solution or stops
/// at a limit. Each attempt gets what is left of the state limit; the timeout counts from
/// the start of the whole run (`config.started`, else this call). Returns
/// the counts summed over the attempts, why the last one stopped, and the attempts made.
pub fn explore_restarts(
    attempts: u32,
    config: &Config,
    mut attempt: impl FnMut(u32, &Config) -> (Counts, Option<StopReason>),
) -> (Counts, Option<StopReason>, u32) {
    let started = config.started.unwrap_or_else(Instant::now);
    let limits = config.limits;
    let mut total = Counts::default();
    let mut made = 0;
    for i in 0..attempts.max(1) {
        let mut left = config.with_started(started);
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
        }
        let (counts, stop) = attempt(i, &left);
        made += 1;
        total.add(&counts);
        // Limits speak of the whole run: report the totals.
        let stop = stop.map(|s| match s {
            StopReason::MaxStates(_) => StopReason::MaxStates(total.states),
            StopReason::MaxSolutions(_) => StopReason::MaxSolutions(total.solutions),
            other => other,
        });
        if stop.is_some() || counts.solutions > 0 {
            return (total, stop, made);
        }
    }
    (total, None, made)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::Limits;

    fn attempt(states: u64, solutions: u64) -> (Counts, Option<StopReason>) {
        let counts = Counts {
            states,
            solutions,
            dead_ends: 1 - solutions,
            ..Counts::default()
        };
        (counts, None)
    }

    #[test]
    fn stops_at_the_first_solution() {
        let (c, stop, made) =
            explore_restarts(10, &Config::default(), |i, _| attempt(5, u64::from(i == 3)));
        assert_eq!(
            (c.states, c.solutions, c.dead_ends, stop, made),
            (20, 1, 3, None, 4)
        );
    }

    #[test]
    fn runs_out_of_attempts_without_a_stop() {
        let (c, stop, made) = explore_restarts(7, &Config::default(), |_, _| attempt(2, 0));
        assert_eq!((c.states, c.dead_ends, stop, made), (14, 7, None, 7));
        // No attempt at all is one attempt.
        let (_, _, made) = explore_restarts(0, &Config::default(), |_, _| attempt(2, 0));
        assert_eq!(made, 1);
    }

    #[test]
    fn the_state_limit_spans_every_attempt() {
        let config = Config {
            limits: Limits {
                max_states: Some(10),
                ..Limits::default()
            },
            ..Config::default()
        };
        let mut given = Vec::new();
        let (c, stop, made) = explore_restarts(100, &config, |_, cfg| {
            given.push(cfg.limits.max_states);
            attempt(4, 0)
        });
        assert_eq!(given, vec![Some(10), Some(6), Some(2)]);
        assert_eq!(
            (c.states, stop, made),
            (12, Some(StopReason::MaxStates(12)), 3)
        );
    }
}
