//! Helper threads kept between runs, so that each batch or split search starts its
//! workers in microseconds rather than spawning them.
//!
//! A thread spawned while its parent is busy waits on the parent's core until the
//! scheduler moves it, which on the machines measured here took a millisecond or more
//! while the other core sat idle: as long as a batch of thirty 6x6 killer puzzles, and
//! every batch and split search paid it. A thread that has run before sleeps on its own
//! core and is woken there at once. Helpers are kept per count asked for, for the
//! process's life, by `rayon_core` (whose scope lets them borrow from the caller's stack);
//! a pool serves one call at a time, so that no call waits behind another's work.

use std::sync::{Mutex, PoisonError};

use rayon_core::{ThreadPool, ThreadPoolBuilder};

/// The kept pools, by the number of threads each has; `None` while one is in use.
static POOLS: Mutex<Vec<(usize, Option<ThreadPool>)>> = Mutex::new(Vec::new());

/// Runs `work` `helpers` times on kept threads while `body` runs on this one, and
/// returns `body`'s result once every `work` has returned too. Each `work` runs on a
/// thread of its own unless an earlier one has ended (a kept thread then takes the
/// next): `work` that loops until its jobs are gone suits this. Where the kept threads
/// are busy (another caller's, or this call is made from one of their jobs) or the
/// system refuses threads, they are spawned for the call, as before there were any.
pub fn alongside<R>(helpers: usize, work: &(dyn Fn() + Sync), body: impl FnOnce() -> R) -> R {
    if helpers == 0 {
        return body();
    }
    match CheckedOut::take(helpers) {
        Some(out) => out.pool().in_place_scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(|_| work());
            }
            body()
        }),
        None => std::thread::scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(work);
            }
            body()
        }),
    }
}

/// A kept pool in use by one call: a second caller cannot queue its work behind the
/// first's (or behind its own, from a job, and wait for itself). Given back when dropped.
struct CheckedOut {
    helpers: usize,
    pool: Option<ThreadPool>,
}

impl CheckedOut {
    /// The idle pool of exactly `helpers` threads, made on first use; `None` when it is
    /// in use or the system refused to start its threads.
    fn take(helpers: usize) -> Option<CheckedOut> {
        let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
        let mut alike = pools.iter_mut().filter(|(n, _)| *n == helpers).peekable();
        if alike.peek().is_some() {
            let pool = alike.find_map(|(_, p)| p.take())?;
            return Some(CheckedOut {
                helpers,
                pool: Some(pool),
            });
        }
        let pool = ThreadPoolBuilder::new()
            .num_threads(helpers)
            .thread_name(|i| format!("grafter-helper-{i}"))
            .build()
            .ok()?;
        // Each new thread runs once and goes to sleep while this one waits: woken later,
        // it is placed on an idle core, where a thread that never ran before stays queued
        // behind this one.
        pool.broadcast(|_| ());
        pools.push((helpers, None));
        Some(CheckedOut {
            helpers,
            pool: Some(pool),
        })
    }

    fn pool(&self) -> &ThreadPool {
        self.pool
            .as_ref()
            .expect("a checked-out pool is held until dropped")
    }
}

impl Drop for CheckedOut {
    fn drop(&mut self) {
        let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = pools
            .iter_mut()
            .find(|(n, p)| *n == self.helpers && p.is_none());
        if let Some((_, p)) = slot {
            *p = self.pool.take();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    /// Every helper's work runs once per call, beside the body, on the threads kept for
    /// that count (a kept thread whose work ended may take another's: the work of a batch
    /// loops until no job is left, so it then finds none). Counts no other test of the
    /// library asks for, so that no other caller holds their pools.
    #[test]
    fn each_work_runs_once_on_kept_threads() {
        for helpers in [0, 5, 6] {
            for _ in 0..3 {
                let ran = AtomicUsize::new(0);
                let names = Mutex::new(Vec::new());
                let work = || {
                    ran.fetch_add(1, Ordering::SeqCst);
                    let name = std::thread::current().name().map(str::to_owned);
                    names.lock().unwrap().push(name.unwrap_or_default());
                };
                assert_eq!(alongside(helpers, &work, || 7), 7);
                assert_eq!(ran.load(Ordering::SeqCst), helpers);
                let names = names.into_inner().unwrap();
                let ours = |n: &String| (0..helpers).any(|i| *n == format!("grafter-helper-{i}"));
                assert!(names.iter().all(ours), "{names:?}");
            }
            if helpers > 0 {
                let pools = POOLS.lock().unwrap();
                let made = pools.iter().filter(|(n, _)| *n == helpers).count();
                assert_eq!(made, 1, "a pool made again");
            }
        }
    }

    /// A call made while the kept threads are in use, by the body or by a helper's own
    /// work, gets threads of its own instead of waiting behind the work it is part of.
    #[test]
    fn calls_inside_calls_do_not_wait_for_themselves() {
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let inner = AtomicUsize::new(0);
            let leaf = || {
                inner.fetch_add(1, Ordering::SeqCst);
            };
            // The outer work waits for a nested call of the same count to finish.
            let work = || alongside(2, &leaf, || ());
            alongside(2, &work, || alongside(2, &leaf, || ()));
            done.send(inner.load(Ordering::SeqCst)).ok();
        });
        let inner = finished
            .recv_timeout(Duration::from_secs(60))
            .expect("nested calls waited for each other");
        assert_eq!(inner, 2 * 2 + 2);
    }

    /// The helpers run at the same time as the body: a body that waits for them returns.
    #[test]
    fn helpers_run_while_the_body_waits_for_them() {
        let arrived = AtomicUsize::new(0);
        let work = || {
            arrived.fetch_add(1, Ordering::SeqCst);
        };
        let started = Instant::now();
        alongside(2, &work, || {
            while arrived.load(Ordering::SeqCst) < 2 {
                assert!(
                    started.elapsed() < Duration::from_secs(20),
                    "helpers never ran"
                );
                std::thread::yield_now();
            }
        });
    }
}
