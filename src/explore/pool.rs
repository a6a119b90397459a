//! Helper threads kept between runs, so that each batch or split search starts its
//! workers in microseconds rather than spawning them.
//!
//! A thread spawned while its parent is busy waits on the parent's core until the
//! scheduler moves it, which on the machines measured here took a millisecond or more
//! while the other core sat idle: as long as a batch of thirty 6x6 killer puzzles, and
//! every batch and split search paid it. A thread that has run before sleeps on its own
//! core and is woken there at once. Helpers are kept per count asked for, for the
//! process's life, by `rayon_core` (whose scope lets them borrow from the caller's stack).

use std::sync::{Arc, Mutex, PoisonError};

use rayon_core::{ThreadPool, ThreadPoolBuilder};

/// Runs `work` `helpers` times on kept threads while `body` runs on this one, and
/// returns `body`'s result once every `work` has returned too. Each `work` runs on a
/// thread of its own unless an earlier one has ended (a kept thread then takes the
/// next): `work` that loops until its jobs are gone suits this. Where no kept threads can be had
/// (the system refuses threads; or this is one of them) they are spawned for the call.
pub fn alongside<R>(helpers: usize, work: &(dyn Fn() + Sync), body: impl FnOnce() -> R) -> R {
    if helpers == 0 {
        return body();
    }
    match kept(helpers) {
        // A helper asking for its own pool's threads would wait for itself.
        Some(pool) if pool.current_thread_index().is_none() => pool.in_place_scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(|_| work());
            }
            body()
        }),
        _ => std::thread::scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(work);
            }
            body()
        }),
    }
}

/// The kept pool of exactly `helpers` threads, made on first use; `None` when the system
/// refused to start them.
fn kept(helpers: usize) -> Option<Arc<ThreadPool>> {
    static POOLS: Mutex<Vec<(usize, Arc<ThreadPool>)>> = Mutex::new(Vec::new());
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, pool)) = pools.iter().find(|(n, _)| *n == helpers) {
        return Some(Arc::clone(pool));
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(helpers)
        .thread_name(|i| format!("grafter-helper-{i}"))
        .build()
        .ok()?;
    // Each new thread runs once and goes to sleep while this one waits: woken later, it
    // is placed on an idle core, where a thread that never ran before stays queued
    // behind this one.
    pool.broadcast(|_| ());
    let pool = Arc::new(pool);
    pools.push((helpers, Arc::clone(&pool)));
    Some(pool)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    /// Every helper's work runs once per call, beside the body, on the threads kept for
    /// that count (a kept thread whose work ended may take another's: the work of a batch
    /// loops until no job is left, so it then finds none).
    #[test]
    fn each_work_runs_once_on_kept_threads() {
        for helpers in [0, 1, 3] {
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
                let (a, b) = (kept(helpers).unwrap(), kept(helpers).unwrap());
                assert!(Arc::ptr_eq(&a, &b), "a pool made again");
                assert_eq!(a.current_num_threads(), helpers);
            }
        }
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
