//! A run's counts while it goes, for whoever watches it (the command line's live line):
//! the exploration loop publishes them at its polls, and they can be read at any time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::halt::Halt;
use super::report::Counts;

/// The least time between two publications of one worker's counts: a reader polling at
/// 10 Hz sees counts at most this old, and a worker that polls every few microseconds
/// pays for a publication (four atomic additions) only this often.
const PUBLISH_GAP: Duration = Duration::from_millis(50);

/// Counts published by every run that has it in its [`Config`](super::Config): the sums
/// over the runs and, within a run, over its workers. While a run goes they lag its real
/// counts by at most about 50 ms (`PUBLISH_GAP`); once every run that publishes here has ended
/// they are the sums of the counts their reports give.
#[derive(Debug, Default)]
pub struct Progress {
    solutions: AtomicU64,
    states: AtomicU64,
    transitions: AtomicU64,
    dead_ends: AtomicU64,
}

impl Progress {
    /// Nothing counted yet. `const`, so a program can keep one in a `static`.
    pub const fn new() -> Progress {
        Progress {
            solutions: AtomicU64::new(0),
            states: AtomicU64::new(0),
            transitions: AtomicU64::new(0),
            dead_ends: AtomicU64::new(0),
        }
    }

    /// The counts published so far.
    pub fn counts(&self) -> Counts {
        Counts {
            solutions: self.solutions.load(Ordering::Relaxed),
            states: self.states.load(Ordering::Relaxed),
            transitions: self.transitions.load(Ordering::Relaxed),
            dead_ends: self.dead_ends.load(Ordering::Relaxed),
        }
    }

    /// Adds counts found outside the exploration loop (a split's first levels).
    pub(crate) fn add(&self, c: &Counts) {
        self.solutions.fetch_add(c.solutions, Ordering::Relaxed);
        self.states.fetch_add(c.states, Ordering::Relaxed);
        self.transitions.fetch_add(c.transitions, Ordering::Relaxed);
        self.dead_ends.fetch_add(c.dead_ends, Ordering::Relaxed);
    }

    /// Takes back counts published by a walk whose work is done again elsewhere.
    fn sub(&self, c: &Counts) {
        self.solutions.fetch_sub(c.solutions, Ordering::Relaxed);
        self.states.fetch_sub(c.states, Ordering::Relaxed);
        self.transitions.fetch_sub(c.transitions, Ordering::Relaxed);
        self.dead_ends.fetch_sub(c.dead_ends, Ordering::Relaxed);
    }
}

/// One walk's publisher: it looks at the walk's counts only when the walk's [`Halt`] has
/// polled since it last looked (a comparison per state), and publishes what they grew by
/// at most every [`PUBLISH_GAP`], so the loop between polls is unchanged.
pub(crate) struct Meter<'a> {
    progress: &'a Progress,
    /// What this walk has published so far.
    published: Counts,
    /// The halt's poll count when the meter last looked.
    polls: u32,
    next: Instant,
}

impl<'a> Meter<'a> {
    pub fn new(progress: &'a Progress) -> Meter<'a> {
        Meter {
            progress,
            published: Counts::default(),
            polls: 0,
            next: Instant::now() + PUBLISH_GAP,
        }
    }

    /// Publishes `counts` when the halt polled since the last look and the gap has passed.
    #[inline]
    pub fn observe(&mut self, halt: &Halt<'_>, counts: &Counts) {
        if halt.polls() != self.polls {
            self.polls = halt.polls();
            if halt.last_poll() >= self.next {
                self.next = halt.last_poll() + PUBLISH_GAP;
                self.publish(counts);
            }
        }
    }

    /// Publishes what `counts` grew by since the last publication.
    pub fn publish(&mut self, counts: &Counts) {
        let c = counts;
        let p = &self.published;
        self.progress.add(&Counts {
            solutions: c.solutions - p.solutions,
            states: c.states - p.states,
            transitions: c.transitions - p.transitions,
            dead_ends: c.dead_ends - p.dead_ends,
        });
        self.published = *counts;
    }

    /// Takes back everything this walk published (its work is done again elsewhere).
    pub fn retract(self) {
        self.progress.sub(&self.published);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publications_add_up_to_the_last_counts_and_retract_to_nothing() {
        let progress = Progress::new();
        progress.add(&Counts {
            states: 2,
            ..Counts::default()
        });
        let mut meter = Meter::new(&progress);
        let mut c = Counts {
            solutions: 1,
            states: 10,
            transitions: 12,
            dead_ends: 3,
        };
        meter.publish(&c);
        c.states = 25;
        c.solutions = 4;
        meter.publish(&c);
        let want = Counts { states: 27, ..c };
        assert_eq!(progress.counts(), want);
        meter.retract();
        assert_eq!(
            progress.counts(),
            Counts {
                states: 2,
                ..Counts::default()
            }
        );
    }
}
