//! Jobs on several threads whose outputs stream back in job order, with back-pressure.
//!
//! Each job emits items while it runs and ends with a result. The calling thread receives
//! the items and results of job 0, then of job 1, and so on, as one thread running the
//! jobs in order would. Memory stays bounded whatever the jobs produce: a job's
//! undelivered items wait in a small queue, all queues together hold a bounded number,
//! and a worker that would exceed either waits until the caller has taken some. Workers
//! start only a bounded number of jobs ahead of the one being delivered.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Items one job may hold undelivered before it waits.
pub const JOB_ITEMS: usize = 256;

/// Items all jobs together may hold undelivered before jobs other than the one being
/// delivered wait (that one may always fill its own queue, so delivery never stalls).
pub const TOTAL_ITEMS: usize = 1024;

/// Jobs per thread that may start ahead of the one being delivered: enough that threads
/// rarely idle behind a long job, few enough that finished results stay few.
pub const JOBS_AHEAD: usize = 64;

/// What the calling thread receives from job `i`: its items in the order emitted, then
/// its result.
pub enum Event<T, R> {
    /// One item the job emitted (a solution, say).
    Item(T),
    /// The job finished with this result; no item of it follows.
    Done(R),
}

/// A job's way to emit items.
pub struct Emitter<'a, T> {
    to: Target<'a, T>,
}

enum Target<'a, T> {
    /// Straight to the caller (one thread).
    Direct(&'a mut dyn FnMut(T) -> bool),
    /// Into job `job`'s queue.
    Queue(&'a dyn Push<T>, usize),
}

impl<T> Emitter<'_, T> {
    /// Hands `item` on, waiting while the queues are full. False when the caller wants
    /// nothing more: the job should stop soon (the item is dropped).
    pub fn emit(&mut self, item: T) -> bool {
        match &mut self.to {
            Target::Direct(f) => f(item),
            Target::Queue(queues, job) => queues.push(*job, item),
        }
    }
}

trait Push<T> {
    fn push(&self, job: usize, item: T) -> bool;
}

/// One started job's undelivered output.
struct Queue<T, R> {
    items: VecDeque<T>,
    done: Option<R>,
}

struct State<T, R> {
    /// The queues of jobs `base..next`, in order.
    queues: VecDeque<Queue<T, R>>,
    /// The job being delivered.
    base: usize,
    /// The next job to start.
    next: usize,
    /// Items in all queues.
    held: usize,
    /// Set when the caller wants nothing more.
    stopped: bool,
    /// The caller waits on `ready` (so an item for it must wake it).
    caller_waits: bool,
    /// Workers waiting on `space`.
    blocked: usize,
}

struct Shared<T, R> {
    state: Mutex<State<T, R>>,
    /// Signalled when the job being delivered has output.
    ready: Condvar,
    /// Signalled when queues have room or the window moved.
    space: Condvar,
    jobs: usize,
    window: usize,
}

impl<T, R> Shared<T, R> {
    fn lock(&self) -> MutexGuard<'_, State<T, R>> {
        // A job that panicked is reported when the thread scope joins; its queue is still
        // consistent, since no lock is held while a job runs.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'g>(
        &self,
        cv: &Condvar,
        g: MutexGuard<'g, State<T, R>>,
    ) -> MutexGuard<'g, State<T, R>> {
        cv.wait(g).unwrap_or_else(PoisonError::into_inner)
    }

    /// The next job to run on a worker, once the window allows; `None` when there is none.
    fn take_job(&self) -> Option<usize> {
        let mut s = self.lock();
        loop {
            if s.stopped || s.next >= self.jobs {
                return None;
            }
            if s.next < s.base + self.window {
                let i = s.next;
                s.next += 1;
                s.queues.push_back(Queue {
                    items: VecDeque::new(),
                    done: None,
                });
                return Some(i);
            }
            s.blocked += 1;
            s = self.wait(&self.space, s);
            s.blocked -= 1;
        }
    }

    fn finish(&self, job: usize, result: R) {
        let mut s = self.lock();
        if s.stopped {
            return;
        }
        let base = s.base;
        s.queues[job - base].done = Some(result);
        if job == base && s.caller_waits {
            self.ready.notify_one();
        }
    }

    fn stop(&self) {
        self.lock().stopped = true;
        self.space.notify_all();
    }
}

impl<T, R> Push<T> for Shared<T, R> {
    fn push(&self, job: usize, item: T) -> bool {
        let mut s = self.lock();
        loop {
            if s.stopped {
                return false;
            }
            let own = s.queues[job - s.base].items.len();
            let full = own >= JOB_ITEMS || (job != s.base && s.held >= TOTAL_ITEMS);
            if !full {
                break;
            }
            s.blocked += 1;
            s = self.wait(&self.space, s);
            s.blocked -= 1;
        }
        let base = s.base;
        s.queues[job - base].items.push_back(item);
        s.held += 1;
        if job == base && s.caller_waits {
            self.ready.notify_one();
        }
        true
    }
}

/// Runs `job(i, emitter)` for `i` in `0..n` on up to `threads` threads (idle threads take
/// the next job), and calls `deliver(i, event)` on this thread with each job's items and
/// then its result, in increasing `i`. When `deliver` returns false nothing more is
/// delivered, no further job starts, and running jobs' `emit` returns false.
pub fn ordered_streams<T: Send, R: Send>(
    n: usize,
    threads: usize,
    job: impl Fn(usize, &mut Emitter<'_, T>) -> R + Sync,
    mut deliver: impl FnMut(usize, Event<T, R>) -> bool,
) {
    let threads = threads.clamp(1, n.max(1));
    if threads == 1 {
        for i in 0..n {
            let mut going = true;
            let result = {
                let mut direct = |t| {
                    going = going && deliver(i, Event::Item(t));
                    going
                };
                job(
                    i,
                    &mut Emitter {
                        to: Target::Direct(&mut direct),
                    },
                )
            };
            if !going || !deliver(i, Event::Done(result)) {
                return;
            }
        }
        return;
    }
    let shared = Shared {
        state: Mutex::new(State {
            queues: VecDeque::new(),
            base: 0,
            next: 0,
            held: 0,
            stopped: false,
            caller_waits: false,
            blocked: 0,
        }),
        ready: Condvar::new(),
        space: Condvar::new(),
        jobs: n,
        window: threads * JOBS_AHEAD,
    };
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (shared, job) = (&shared, &job);
            scope.spawn(move || {
                while let Some(i) = shared.take_job() {
                    let result = job(
                        i,
                        &mut Emitter {
                            to: Target::Queue(shared, i),
                        },
                    );
                    shared.finish(i, result);
                }
            });
        }
        let mut batch = VecDeque::new();
        loop {
            let (i, done) = {
                let mut s = shared.lock();
                loop {
                    if s.base >= n {
                        return;
                    }
                    if let Some(q) = s.queues.front_mut() {
                        if !q.items.is_empty() {
                            std::mem::swap(&mut q.items, &mut batch);
                            s.held -= batch.len();
                            break (s.base, None);
                        }
                        if let Some(r) = q.done.take() {
                            s.queues.pop_front();
                            s.base += 1;
                            break (s.base - 1, Some(r));
                        }
                    }
                    s.caller_waits = true;
                    s = shared.wait(&shared.ready, s);
                    s.caller_waits = false;
                }
            };
            shared.space.notify_all();
            let going = batch.drain(..).all(|t| deliver(i, Event::Item(t)))
                && done.is_none_or(|r| deliver(i, Event::Done(r)));
            if !going {
                shared.stop();
                return;
            }
        }
    });
}

/// Runs `job(i)` for `i` in `0..n` on up to `threads` threads (idle threads take the
/// next job), and calls `deliver(i, result)` on this thread in increasing `i`. When
/// `deliver` returns false no further job starts and no further result is delivered.
pub fn ordered_jobs<R: Send>(
    n: usize,
    threads: usize,
    job: impl Fn(usize) -> R + Sync,
    mut deliver: impl FnMut(usize, R) -> bool,
) {
    ordered_streams::<(), R>(
        n,
        threads,
        |i, _| job(i),
        |i, event| match event {
            Event::Item(()) => true,
            Event::Done(r) => deliver(i, r),
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Job `i` emits `i * 300` numbers (more than a queue holds), then returns `i`.
    fn run(threads: usize, jobs: usize) -> Vec<(usize, Option<usize>, Option<usize>)> {
        let mut seen = Vec::new();
        ordered_streams(
            jobs,
            threads,
            |i, out| {
                for k in 0..i * 300 {
                    out.emit(k);
                }
                i
            },
            |i, e| {
                seen.push(match e {
                    Event::Item(k) => (i, Some(k), None),
                    Event::Done(r) => (i, None, Some(r)),
                });
                true
            },
        );
        seen
    }

    #[test]
    fn streams_arrive_in_job_order_for_any_thread_count() {
        let one = run(1, 40);
        assert_eq!(one.len(), (0..40).map(|i| i * 300 + 1).sum::<usize>());
        for threads in [2, 3, 8] {
            assert_eq!(run(threads, 40), one, "{threads} threads");
        }
    }

    #[test]
    fn undelivered_items_stay_bounded() {
        let held = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        ordered_streams(
            200,
            4,
            |_, out| {
                for _ in 0..1000 {
                    let now = held.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    out.emit(());
                }
            },
            |_, e| {
                if let Event::Item(()) = e {
                    held.fetch_sub(1, Ordering::SeqCst);
                }
                true
            },
        );
        // The queues, the batch being delivered, and one item per worker on its way in.
        let bound = TOTAL_ITEMS + 2 * JOB_ITEMS + 4;
        assert!(most.load(Ordering::SeqCst) <= bound, "{most:?} held");
    }

    #[test]
    fn a_stop_ends_the_jobs_early() {
        let started = AtomicUsize::new(0);
        let mut items = 0;
        ordered_streams(
            10_000,
            3,
            |_, out| {
                started.fetch_add(1, Ordering::SeqCst);
                while out.emit(()) {}
            },
            |_, _| {
                items += 1;
                items < 5000
            },
        );
        assert_eq!(items, 5000);
        assert!(started.load(Ordering::SeqCst) <= 3 * JOBS_AHEAD + 3);
    }
}
