//! Exploring on several threads with the results of one thread: jobs are handed out
//! dynamically, and their results delivered in job order.
//!
//! Within one run, a space that is a tree (no visited set: focus spaces, orderly full
//! spaces) is first explored on one thread for a few thousand states, so that small trees
//! never start a thread. A larger one starts over, split breadth-first from the root into
//! subtrees of similar depth (and so, in a search tree, of similar size); DFS visits them
//! in order, so delivering each subtree's solutions in subtree order prints them exactly
//! as one thread would.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use super::config::{Config, Order};
use super::explorer::{explore, explore_budget, explore_from};
use super::frontier::Frontier;
use super::report::{Counts, StopReason};
use super::space::Space;
use super::successors::Successors;

/// Runs `job(i)` for `i` in `0..n` on up to `threads` threads (idle threads take the
/// next job), and calls `deliver(i, result)` on this thread in increasing `i`. When
/// `deliver` returns false no further job starts and no further result is delivered.
pub fn ordered_jobs<R: Send>(
    n: usize,
    threads: usize,
    job: impl Fn(usize) -> R + Sync,
    mut deliver: impl FnMut(usize, R) -> bool,
) {
    let threads = threads.clamp(1, n.max(1));
    if threads == 1 {
        for i in 0..n {
            if !deliver(i, job(i)) {
                return;
            }
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop, job) = (&next, &stop, &job);
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n || tx.send((i, job(i))).is_err() {
                    return;
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut want = 0;
        for (i, r) in rx.iter() {
            pending.insert(i, r);
            while let Some(r) = pending.remove(&want) {
                if !deliver(want, r) {
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
                want += 1;
            }
        }
    });
}

/// A piece of the split tree, in DFS order: a final state met while splitting, or a
/// subtree still to explore.
enum Piece<S> {
    Solution(S),
    Subtree(S),
}

/// Receives each final state, in order.
pub type SolutionSink<'a, T> = &'a mut dyn FnMut(&T);

/// Below this many runs (puzzles) per thread, runs go one after another, each splitting
/// its own search tree over the threads (a file of a few puzzles of very different sizes
/// gains nothing from running them side by side); from it on, side by side.
pub const RUNS_PER_THREAD: usize = 4;

/// True when `runs` runs on `threads` threads should go side by side, one thread each.
pub fn runs_side_by_side(runs: usize, threads: usize) -> bool {
    threads > 1 && runs >= RUNS_PER_THREAD * threads
}

/// Subtrees per thread: enough that uneven subtrees even out.
const SUBTREES_PER_THREAD: usize = 32;

/// States a run may take on the calling thread alone: starting threads costs tens of
/// microseconds, as much as a few hundred states of a typical search. A larger run
/// repeats this much work, a millisecond or so.
const SOLO_STATES: u64 = 2048;

/// Explores `space` on `threads` threads when it is a tree explored depth-first without
/// state or solution limits; otherwise on this thread. Counts equal a single-threaded
/// run's, and `on_solution` sees the solutions in the same order.
pub fn explore_parallel<S>(
    space: &S,
    config: &Config,
    threads: usize,
    mut on_solution: Option<SolutionSink<'_, S::State>>,
) -> (Counts, Option<StopReason>)
where
    S: Space + Sync,
    S::State: Send + Sync,
{
    let limits = config.limits;
    if threads <= 1
        || space.needs_visited()
        || config.order != Order::Dfs
        || limits.max_states.is_some()
        || limits.max_solutions.is_some()
    {
        return match on_solution {
            Some(f) => explore(space, config, f),
            None => explore(space, config, &mut |_| {}),
        };
    }
    let want = on_solution.is_some();
    let started = Instant::now();
    let Some(start) = space.initial() else {
        let counts = Counts {
            states: 1,
            dead_ends: 1,
            ..Counts::default()
        };
        return (counts, None);
    };
    // The solo attempt holds its solutions back: if it runs out of states they are found
    // again by the split run.
    let mut held = Vec::new();
    if let Some((counts, stop)) = explore_budget(
        space,
        config,
        start.clone(),
        started,
        SOLO_STATES,
        &mut |s| {
            if want {
                held.push(s.clone());
            }
        },
    ) {
        if let Some(f) = on_solution.as_mut() {
            held.iter().for_each(f);
        }
        return (counts, stop);
    }
    drop(held);
    let mut counts = Counts::default();
    // Split breadth-first, keeping DFS order: each subtree is replaced by its root's
    // verdict (a solution) followed by its children.
    let mut pieces = vec![Piece::Subtree(start)];
    let mut scratch = S::Scratch::default();
    let mut spare: Frontier<S::State> = Frontier::new(Order::Dfs);
    let target = threads * SUBTREES_PER_THREAD;
    for _ in 0..64 {
        let subtrees = pieces
            .iter()
            .filter(|p| matches!(p, Piece::Subtree(_)))
            .count();
        if subtrees == 0 || subtrees >= target {
            break;
        }
        let mut next = Vec::with_capacity(pieces.len() * 2);
        for piece in pieces {
            let state = match piece {
                Piece::Subtree(s) => s,
                solution => {
                    next.push(solution);
                    continue;
                }
            };
            counts.states += 1;
            let mut succ = Successors::collect(&mut spare);
            let exp = space.expand(&state, &mut scratch, &mut succ);
            counts.transitions += exp.transitions;
            counts.states += succ.dead;
            counts.dead_ends += succ.dead;
            let children = succ.into_items();
            if space.is_final(&state, &exp) {
                counts.solutions += 1;
                next.push(Piece::Solution(state));
            } else if exp.transitions == 0 {
                counts.dead_ends += 1;
            }
            next.extend(children.into_iter().map(Piece::Subtree));
        }
        pieces = next;
    }
    let cancel = AtomicBool::new(false);
    let mut stop = None;
    // A small tree may be used up by the split itself: then no thread is worth starting.
    let subtrees = pieces
        .iter()
        .filter(|p| matches!(p, Piece::Subtree(_)))
        .count();
    let threads = if subtrees == 0 { 1 } else { threads };
    ordered_jobs(
        pieces.len(),
        threads,
        |i| match &pieces[i] {
            Piece::Solution(_) => (Counts::default(), None, Vec::new()),
            Piece::Subtree(s) => {
                let mut found = Vec::new();
                let (c, st) =
                    explore_from(space, config, s.clone(), started, Some(&cancel), &mut |x| {
                        if want {
                            found.push(x.clone());
                        }
                    });
                if st.is_some() {
                    cancel.store(true, Ordering::Relaxed);
                }
                (c, st, found)
            }
        },
        |i, (c, st, found)| {
            if let Some(f) = on_solution.as_mut() {
                if let Piece::Solution(s) = &pieces[i] {
                    f(s);
                }
                for s in &found {
                    f(s);
                }
            }
            counts.add(&c);
            if st.is_some() && stop.is_none() {
                stop = st;
            }
            true
        },
    );
    (counts, stop)
}
