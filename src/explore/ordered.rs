//! Jobs on several threads whose outputs stream back in job order, with back-pressure.
//!
//! Each job emits items while it runs and ends with a result. The calling thread receives
//! the items and results of job 0, then of job 1, and so on, as one thread running the
//! jobs in order would. Memory stays bounded whatever the jobs produce: a job's
//! undelivered items wait in a small queue, all queues together hold a bounded number,
//! and a worker that would exceed either waits until the caller has taken some. Workers
//! start only a bounded number of jobs ahead of the one being delivered.
//!
//! The calling thread either only delivers ([`CallerRole::Delivers`]) or is one of the
//! workers ([`CallerRole::Works`]): between its jobs, and at each item its own job emits, it
//! delivers what is ready. A working caller suits many short jobs (a batch of puzzles): a
//! caller that only delivered would be a thread more than there are cores (the 17-clue
//! batch on two threads took 0.75x of one thread's time with a caller woken for every job,
//! and takes 0.53x with a working one). It does not suit jobs that stream much output
//! while others run long (a search tree's subtrees): while the caller runs a job that
//! emits nothing, no output is delivered, and a worker whose queue is full waits for it.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Items one job may hold undelivered before it waits. (The caller's own job, once it is
/// the one being delivered, hands its items over as it emits them.)
pub const JOB_ITEMS: usize = 256;

/// Items all jobs together may hold undelivered before jobs other than the one being
/// delivered wait (that one may always fill its own queue, so delivery never stalls).
pub const TOTAL_ITEMS: usize = 1024;

/// Jobs per thread that may start ahead of the one being delivered: enough that threads
/// rarely idle behind a long job, few enough that finished results stay few.
pub const JOBS_AHEAD: usize = 64;

/// Finished jobs, or items of the job being delivered, that wait for the caller before a
/// worker wakes it. Waking the caller for every short job (a puzzle of a batch takes tens
/// of microseconds) costs two context switches each, several percent of such a batch's
/// time; the caller takes everything ready at once.
const WAKE_AFTER: usize = 16;

/// How long a waiting caller sleeps before it looks for output on its own, so that a few
/// items or results wait no longer than this for a worker to wake it.
const PATIENCE: Duration = Duration::from_millis(2);

/// What the calling thread does besides delivering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallerRole {
    /// It only delivers: output streams while any job runs (a search tree's subtrees,
    /// whose solutions are printed as they are found).
    Delivers,
    /// It runs jobs too, delivering between them and while its own job emits: for many
    /// short jobs (a batch of puzzles).
    Works,
}

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
    /// Into job `job`'s queue, from a worker.
    Queue(&'a dyn Push<T>, usize),
    /// From job `job`, run by the caller.
    Own(&'a mut dyn OwnPush<T>, usize),
}

impl<T> Emitter<'_, T> {
    /// Hands `item` on, waiting while the queues are full. False when the caller wants
    /// nothing more: the job should stop soon (the item is dropped).
    pub fn emit(&mut self, item: T) -> bool {
        match &mut self.to {
            Target::Direct(f) => f(item),
            Target::Queue(queues, job) => queues.push(*job, item),
            Target::Own(caller, job) => caller.push_own(*job, item),
        }
    }
}

trait Push<T> {
    fn push(&self, job: usize, item: T) -> bool;
}

/// The caller's side of [`Push`]: it may deliver while its own job emits.
trait OwnPush<T> {
    fn push_own(&mut self, job: usize, item: T) -> bool;
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
    /// Queues at the front that hold their job's result.
    finished: usize,
    /// Items in all queues.
    held: usize,
    /// Set when the caller wants nothing more.
    stopped: bool,
    /// The caller waits on `ready` (so a worker should wake it once output is ready).
    caller_waits: bool,
    /// Workers waiting on `space`.
    blocked: usize,
}

struct Shared<T, R> {
    state: Mutex<State<T, R>>,
    /// Signalled when output is ready for the caller.
    ready: Condvar,
    /// Signalled when queues have room or the window moved.
    space: Condvar,
    jobs: usize,
    window: usize,
}

impl<T, R> Shared<T, R> {
    fn lock(&self) -> MutexGuard<'_, State<T, R>> {
        // A job that panicked stops every job (see `StopOnPanic`) and is reported when the
        // workers' scope ends; its queue is still consistent, since no lock is held while
        // a job runs.
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
            if let Some(i) = self.start(&mut s) {
                return Some(i);
            }
            s = self.block(s);
        }
    }

    /// The next job, if the window allows one now.
    fn start(&self, s: &mut State<T, R>) -> Option<usize> {
        if s.stopped || s.next >= self.jobs || s.next >= s.base + self.window {
            return None;
        }
        let i = s.next;
        s.next += 1;
        s.queues.push_back(Queue {
            items: VecDeque::new(),
            done: None,
        });
        Some(i)
    }

    /// True when the caller has output to take.
    fn ready(&self, s: &State<T, R>) -> bool {
        s.finished > 0 || s.queues.front().is_some_and(|q| !q.items.is_empty())
    }

    /// Waits on `space`, first waking the caller if it has output to take (it may be what
    /// keeps this worker waiting).
    fn block<'g>(&self, mut s: MutexGuard<'g, State<T, R>>) -> MutexGuard<'g, State<T, R>> {
        if self.ready(&s) && s.caller_waits {
            self.ready.notify_one();
        }
        s.blocked += 1;
        s = self.wait(&self.space, s);
        s.blocked -= 1;
        s
    }

    fn finish(&self, job: usize, result: R) {
        let mut s = self.lock();
        if s.stopped {
            return;
        }
        let base = s.base;
        s.queues[job - base].done = Some(result);
        if job - base == s.finished {
            s.finished += 1;
            while s.queues.get(s.finished).is_some_and(|q| q.done.is_some()) {
                s.finished += 1;
            }
            // Once every job has started, each result may be among the last: no waiting.
            let due = s.finished >= WAKE_AFTER || s.blocked > 0 || s.next >= self.jobs;
            if due && s.caller_waits {
                self.ready.notify_one();
            }
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
            s = self.block(s);
        }
        let base = s.base;
        let own = &mut s.queues[job - base].items;
        own.push_back(item);
        let due = job == base && (own.len() >= WAKE_AFTER || s.blocked > 0);
        s.held += 1;
        if due && s.caller_waits {
            self.ready.notify_one();
        }
        true
    }
}

/// Runs `job(i, emitter)` for `i` in `0..n` on up to `threads` threads (idle threads take
/// the next job; this one among them where `role` is [`CallerRole::Works`]), and calls
/// `deliver(i, event)` on this thread with each job's items and then its result, in
/// increasing `i`. When `deliver` returns false nothing more is delivered, no further job
/// starts, and running jobs' `emit` returns false. A working caller calls `deliver` from
/// within its own job's `emit`, for that job's items and earlier jobs' output: a job must
/// not hold across `emit` anything `deliver` takes.
pub fn ordered_streams<T: Send, R: Send>(
    n: usize,
    threads: usize,
    role: CallerRole,
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
            finished: 0,
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
    let workers = match role {
        CallerRole::Delivers => threads,
        CallerRole::Works => threads - 1,
    };
    let work = || {
        let _unwinding = StopOnPanic(&shared);
        while let Some(i) = shared.take_job() {
            let result = job(
                i,
                &mut Emitter {
                    to: Target::Queue(&shared, i),
                },
            );
            shared.finish(i, result);
        }
    };
    super::pool::alongside(workers, &work, || {
        let _unwinding = StopOnPanic(&shared);
        let mut caller = Caller {
            shared: &shared,
            deliver: &mut deliver,
            batch: VecDeque::new(),
            own_delivered: false,
        };
        loop {
            match caller.deliver_ready() {
                Delivery::Some => continue,
                Delivery::Over => return,
                Delivery::None => {}
            }
            let own = match role {
                CallerRole::Delivers => None,
                CallerRole::Works => shared.start(&mut shared.lock()),
            };
            if let Some(i) = own {
                caller.own_delivered = false;
                let result = job(
                    i,
                    &mut Emitter {
                        to: Target::Own(&mut caller, i),
                    },
                );
                shared.finish(i, result);
            } else {
                caller.wait_ready();
            }
        }
    });
}

/// Stops every job when a job panics on this thread: the caller would wait for the
/// panicked job's result, and workers for a caller gone, for ever; stopped, they end,
/// and the panic reaches the caller as the workers' scope ends.
struct StopOnPanic<'a, T, R>(&'a Shared<T, R>);

impl<T, R> Drop for StopOnPanic<'_, T, R> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

/// What one look at the front of the queues gave the caller.
enum Delivery {
    /// Output was delivered.
    Some,
    /// Nothing is ready yet.
    None,
    /// Every job is delivered, or the caller wants nothing more.
    Over,
}

/// The calling thread: it delivers in job order, and runs jobs itself in between.
struct Caller<'a, T, R, D> {
    shared: &'a Shared<T, R>,
    deliver: &'a mut D,
    /// Items taken from a queue, being delivered.
    batch: VecDeque<T>,
    /// The caller's own job is the one being delivered and its queued items are out: its
    /// further items go straight to `deliver`.
    own_delivered: bool,
}

impl<T, R, D: FnMut(usize, Event<T, R>) -> bool> Caller<'_, T, R, D> {
    /// Delivers the front queue's items, or its result if it has one.
    fn deliver_ready(&mut self) -> Delivery {
        let shared = self.shared;
        let (i, done, unblock) = {
            let mut s = shared.lock();
            if s.stopped || s.base >= shared.jobs {
                return Delivery::Over;
            }
            let Some(q) = s.queues.front_mut() else {
                return Delivery::None;
            };
            if !q.items.is_empty() {
                std::mem::swap(&mut q.items, &mut self.batch);
                s.held -= self.batch.len();
                (s.base, None, s.blocked > 0)
            } else if let Some(r) = q.done.take() {
                s.queues.pop_front();
                s.base += 1;
                s.finished -= 1;
                (s.base - 1, Some(r), s.blocked > 0)
            } else {
                return Delivery::None;
            }
        };
        if unblock {
            shared.space.notify_all();
        }
        let deliver = &mut *self.deliver;
        let going = self.batch.drain(..).all(|t| deliver(i, Event::Item(t)))
            && done.is_none_or(|r| deliver(i, Event::Done(r)));
        if !going {
            self.batch.clear();
            shared.stop();
            return Delivery::Over;
        }
        Delivery::Some
    }

    /// Sleeps until output may be ready, or [`PATIENCE`] has passed.
    fn wait_ready(&self) {
        let shared = self.shared;
        let mut s = shared.lock();
        if s.stopped || s.base >= shared.jobs || shared.ready(&s) {
            return;
        }
        s.caller_waits = true;
        let (mut s, _) = shared
            .ready
            .wait_timeout(s, PATIENCE)
            .unwrap_or_else(PoisonError::into_inner);
        s.caller_waits = false;
    }
}

impl<T, R, D: FnMut(usize, Event<T, R>) -> bool> OwnPush<T> for Caller<'_, T, R, D> {
    /// Queues the item while earlier jobs are undelivered (delivering what is ready, and
    /// waiting only when the queues are full and nothing is), then delivers it directly.
    fn push_own(&mut self, job: usize, item: T) -> bool {
        let shared = self.shared;
        while !self.own_delivered {
            let mut s = shared.lock();
            if s.stopped {
                return false;
            }
            if s.base == job {
                drop(s);
                // Its queued items go first; then the front holds nothing ready.
                loop {
                    match self.deliver_ready() {
                        Delivery::Some => {}
                        Delivery::None => break,
                        Delivery::Over => return false,
                    }
                }
                self.own_delivered = true;
                break;
            }
            let base = s.base;
            let own = s.queues[job - base].items.len();
            if own < JOB_ITEMS && s.held < TOTAL_ITEMS {
                s.queues[job - base].items.push_back(item);
                s.held += 1;
                let ready = shared.ready(&s);
                drop(s);
                // Keep the workers flowing while this job runs.
                return !ready || !matches!(self.deliver_ready(), Delivery::Over);
            }
            drop(s);
            match self.deliver_ready() {
                Delivery::Some => {}
                Delivery::None => self.wait_ready(),
                Delivery::Over => return false,
            }
        }
        let going = (self.deliver)(job, Event::Item(item));
        if !going {
            // Its further items look under the lock, and see the stop.
            self.own_delivered = false;
            shared.stop();
        }
        going
    }
}

/// Runs `job(i)` for `i` in `0..n` on up to `threads` threads, this one among them (idle
/// threads take the next job), and calls `deliver(i, result)` on this thread in increasing `i`. When
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
        CallerRole::Works,
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
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::Instant;

    const ROLES: [CallerRole; 2] = [CallerRole::Delivers, CallerRole::Works];

    /// What one job does: emits `items` numbers, sleeping `sleep_us` after `sleep_at` of
    /// them, and goes on emitting after a refusal unless it `obeys`.
    struct Spec {
        items: usize,
        sleep_at: usize,
        sleep_us: u64,
        obeys: bool,
    }

    /// A small xorshift generator, so that a failing case can be run again from its seed.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n.max(1)
        }
    }

    /// One run's deliveries: (job, item or `usize::MAX` for the result, result).
    type Seen = Vec<(usize, usize, usize)>;

    /// Runs `specs` on `threads` threads, `deliver` refusing its `stop_at`-th call; what was
    /// delivered, whether `deliver` was called after refusing, and the most items held.
    fn go(specs: &[Spec], threads: usize, role: CallerRole, stop_at: usize) -> (Seen, bool, usize) {
        let (held, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let mut seen = Vec::new();
        let (mut refused, mut after_refusal) = (false, false);
        ordered_streams(
            specs.len(),
            threads,
            role,
            |i, out| {
                let spec = &specs[i];
                for k in 0..spec.items {
                    if k == spec.sleep_at {
                        std::thread::sleep(Duration::from_micros(spec.sleep_us));
                    }
                    most.fetch_max(held.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                    if !out.emit(k) {
                        held.fetch_sub(1, Ordering::SeqCst);
                        if spec.obeys {
                            break;
                        }
                    }
                }
                i * 7
            },
            |i, e| {
                if refused {
                    after_refusal = true;
                    return false;
                }
                if seen.len() == stop_at {
                    refused = true;
                    return false;
                }
                seen.push(match e {
                    Event::Item(k) => {
                        held.fetch_sub(1, Ordering::SeqCst);
                        (i, k, 0)
                    }
                    Event::Done(r) => (i, usize::MAX, r),
                });
                true
            },
        );
        (seen, after_refusal, most.load(Ordering::SeqCst))
    }

    /// Random jobs (none to 150 of them, each emitting none to 600 items, some sleeping,
    /// some going on after a refusal) on 2 to 4 threads, either role, stopped at a random
    /// delivery or not: the deliveries are one thread's, up to the stop; nothing is
    /// delivered after a refusal; the items held stay bounded.
    #[test]
    fn random_jobs_deliver_as_one_thread_does() {
        for seed in 1..=40u64 {
            let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let n = [r.below(4), r.below(12), r.below(150)][r.below(3) as usize] as usize;
            let specs: Vec<Spec> = (0..n)
                .map(|_| Spec {
                    items: [0, r.below(20), r.below(600)][r.below(3) as usize] as usize,
                    sleep_at: r.below(20) as usize,
                    sleep_us: [0, 0, r.below(300)][r.below(3) as usize],
                    obeys: r.below(2) == 0,
                })
                .collect();
            let (all, _, _) = go(&specs, 1, CallerRole::Works, usize::MAX);
            let stop_at = match r.below(3) {
                0 => usize::MAX,
                _ => r.below(all.len() as u64 + 1) as usize,
            };
            let want = &all[..stop_at.min(all.len())];
            for threads in 2..=4 {
                for role in ROLES {
                    let (seen, after, most) = go(&specs, threads, role, stop_at);
                    let case = format!("seed {seed}, {threads} threads, {role:?}");
                    assert_eq!(seen, want, "{case}");
                    assert!(!after, "{case}: delivered after a refusal");
                    assert!(
                        most <= TOTAL_ITEMS + 2 * JOB_ITEMS + threads,
                        "{case}: {most}"
                    );
                }
            }
        }
    }

    /// Job `i` emits `i * 300` numbers (more than a queue holds), then returns `i`.
    fn run(
        threads: usize,
        role: CallerRole,
        jobs: usize,
    ) -> Vec<(usize, Option<usize>, Option<usize>)> {
        let mut seen = Vec::new();
        ordered_streams(
            jobs,
            threads,
            role,
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
        let one = run(1, CallerRole::Works, 40);
        assert_eq!(one.len(), (0..40).map(|i| i * 300 + 1).sum::<usize>());
        for threads in [2, 3, 8] {
            for role in ROLES {
                assert_eq!(run(threads, role, 40), one, "{threads} threads, {role:?}");
            }
        }
    }

    #[test]
    fn undelivered_items_stay_bounded() {
        for role in ROLES {
            let held = AtomicUsize::new(0);
            let most = AtomicUsize::new(0);
            ordered_streams(
                200,
                4,
                role,
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
            assert!(
                most.load(Ordering::SeqCst) <= bound,
                "{role:?}: {most:?} held"
            );
        }
    }

    /// A working caller runs jobs too, and an item a worker's job emits reaches the caller
    /// while that job still runs (the worker's first job waits for its own item; the
    /// caller's jobs are short).
    #[test]
    fn the_caller_works_and_items_arrive_while_their_job_runs() {
        let caller = std::thread::current().id();
        let (by_caller, probe) = (AtomicUsize::new(0), AtomicUsize::new(usize::MAX));
        let arrived = AtomicBool::new(false);
        let mut results = Vec::new();
        ordered_streams(
            400,
            2,
            CallerRole::Works,
            |i, out| {
                let on_caller = std::thread::current().id() == caller;
                if on_caller {
                    by_caller.fetch_add(1, Ordering::SeqCst);
                }
                let first =
                    || probe.compare_exchange(usize::MAX, i, Ordering::SeqCst, Ordering::SeqCst);
                if on_caller || first().is_err() {
                    std::thread::sleep(Duration::from_micros(100));
                    return true;
                }
                out.emit(i);
                let until = Instant::now() + Duration::from_secs(10);
                while !arrived.load(Ordering::SeqCst) && Instant::now() < until {
                    std::thread::sleep(Duration::from_micros(100));
                }
                arrived.load(Ordering::SeqCst)
            },
            |_, e| {
                match e {
                    Event::Item(_) => arrived.store(true, Ordering::SeqCst),
                    Event::Done(r) => results.push(r),
                }
                true
            },
        );
        assert_eq!(results.len(), 400);
        let probe = probe.load(Ordering::SeqCst);
        assert!(probe < 400, "no worker ran a job");
        assert!(
            results[probe],
            "job {probe}'s item waited for its job to end"
        );
        assert!(
            by_caller.load(Ordering::SeqCst) > 0,
            "the caller ran no job"
        );
    }

    /// A delivering caller runs no job, and streams the front job's items while a later
    /// job runs long: the front job never waits for it (a working caller running that long
    /// job would make the front job's worker wait once its queue is full).
    #[test]
    fn a_delivering_caller_streams_while_a_later_job_runs_long() {
        let caller = std::thread::current().id();
        let took = std::sync::Mutex::new(Duration::ZERO);
        let on_caller = AtomicBool::new(false);
        ordered_streams(
            2,
            2,
            CallerRole::Delivers,
            |i, out| {
                if std::thread::current().id() == caller {
                    on_caller.store(true, Ordering::SeqCst);
                }
                if i == 1 {
                    std::thread::sleep(Duration::from_secs(2));
                    return;
                }
                let started = Instant::now();
                for k in 0..(4 * TOTAL_ITEMS) {
                    out.emit(k);
                }
                *took.lock().unwrap() = started.elapsed();
            },
            |_, _| true,
        );
        assert!(!on_caller.load(Ordering::SeqCst), "the caller ran a job");
        let took = *took.lock().unwrap();
        assert!(
            took < Duration::from_secs(1),
            "the front job waited {took:?}"
        );
    }

    /// A caller's own job that goes on emitting after `deliver` refused: nothing more is
    /// delivered, its result included.
    #[test]
    fn nothing_is_delivered_after_a_refusal() {
        for _ in 0..50 {
            let mut calls = 0;
            ordered_streams(
                2,
                2,
                CallerRole::Works,
                |i, out| {
                    for k in 0..10 {
                        out.emit(k);
                    }
                    i
                },
                |_, _| {
                    calls += 1;
                    false
                },
            );
            assert_eq!(calls, 1, "delivered after a refusal");
        }
    }

    #[test]
    fn a_stop_ends_the_jobs_early() {
        for role in ROLES {
            let started = AtomicUsize::new(0);
            let mut items = 0;
            ordered_streams(
                10_000,
                3,
                role,
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
            assert!(
                started.load(Ordering::SeqCst) <= 3 * JOBS_AHEAD + 3,
                "{role:?}"
            );
        }
    }

    /// A job that runs jobs of its own on as many threads (a run that splits its search
    /// inside a batch): the inner jobs get threads even while the outer workers wait for
    /// the caller, which is running that job.
    #[test]
    fn jobs_that_run_jobs_finish() {
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut total = 0;
            ordered_jobs(
                1000,
                2,
                |i| {
                    let mut sum = 0;
                    ordered_jobs(
                        4,
                        2,
                        |k| i + k,
                        |_, r| {
                            sum += r;
                            true
                        },
                    );
                    sum
                },
                |_, r| {
                    total += r;
                    true
                },
            );
            done.send(total).ok();
        });
        let total = finished
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the jobs' own jobs never ran");
        assert_eq!(total, (0..1000).map(|i| 4 * i + 6).sum::<usize>());
    }

    /// A job that panics, on a worker or on the calling thread, ends the call with its
    /// panic instead of leaving the others waiting for its result.
    #[test]
    fn a_panicking_job_ends_the_call() {
        for role in ROLES {
            for on_caller in [false, true] {
                let (done, finished) = std::sync::mpsc::channel();
                std::thread::spawn(move || {
                    let caller = std::thread::current().id();
                    let panicked = std::panic::catch_unwind(|| {
                        ordered_streams(
                            200,
                            2,
                            role,
                            |i, out: &mut Emitter<'_, usize>| {
                                // Long enough that both threads take jobs past the 20th.
                                std::thread::sleep(std::time::Duration::from_micros(200));
                                let here = std::thread::current().id() == caller;
                                if i >= 20 && here == on_caller {
                                    panic!("job {i} fails");
                                }
                                out.emit(i);
                            },
                            |_, _| true,
                        );
                    });
                    done.send(panicked.is_err()).ok();
                });
                // A caller that only delivers runs no job: nothing panics there.
                let want = !(on_caller && role == CallerRole::Delivers);
                let panicked = finished
                    .recv_timeout(std::time::Duration::from_secs(60))
                    .expect("a panicked job left the call waiting");
                assert_eq!(panicked, want, "{role:?}, on the caller: {on_caller}");
            }
        }
    }
}
