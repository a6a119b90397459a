//! Exploring on several threads with the results of one thread: subtrees are handed out
//! dynamically, and their solutions stream back in subtree order.
//!
//! Within one run, a space that is a tree (no visited set: focus spaces, orderly full
//! spaces) is first explored on one thread for a few thousand states, so that small trees
//! never start a thread. A larger one starts over, split breadth-first from the root into
//! subtrees of similar depth (and so, in a search tree, of similar size); DFS visits them
//! in order, so delivering each subtree's solutions in subtree order prints them exactly
//! as one thread would. Solutions wait in bounded queues ([`super::ordered`]), so memory
//! does not grow with their number.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::config::{Config, Order};
use super::explorer::{explore, explore_budget, explore_from};
use super::frontier::Frontier;
use super::ordered::{ordered_streams, CallerRole, Event};
use super::report::{Counts, StopReason};
use super::space::Space;
use super::successors::Successors;
use crate::model::Graph;

/// A piece of the split tree, in DFS order: a final state met while splitting, or a
/// subtree still to explore.
enum Piece<S> {
    Solution(S),
    Subtree(S),
}

/// Receives each final state, in order.
pub type SolutionSink<'a, T> = &'a mut dyn FnMut(&T);

/// Receives each final state as a host graph, in order, when a caller wants them.
pub type GraphSink<'a> = Option<&'a mut dyn FnMut(&Graph)>;

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

/// Explores `space` on `config.threads` threads (as the plan resolved them), handing each
/// solution to `sink` as a host graph.
pub fn explore_to_graphs<S>(
    space: &S,
    config: &Config,
    sink: &mut GraphSink<'_>,
) -> (Counts, Option<StopReason>)
where
    S: Space + Sync,
    S::State: Send + Sync,
{
    // A worker of a distributed run spreads the exploration over the run's workers.
    #[cfg(any(feature = "distributed", test))]
    if let Some(done) = crate::distributed::explore_here(space, config, sink) {
        return done;
    }
    match sink {
        Some(f) => explore_parallel(
            space,
            config,
            config.threads,
            Some(&mut |s| f(&space.to_graph(s))),
        ),
        None => explore_parallel(space, config, config.threads, None),
    }
}

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
    let started = config.started.unwrap_or_else(Instant::now);
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
    // The subtrees' walks publish their own counts; the split's are published here.
    if let Some(progress) = config.progress {
        progress.add(&counts);
    }
    let cancel = AtomicBool::new(false);
    // The reason of the subtree that stopped first: the others stop because it did.
    let first_stop = Mutex::new(None);
    // A small tree may be used up by the split itself: then no thread is worth starting.
    let subtrees = pieces
        .iter()
        .filter(|p| matches!(p, Piece::Subtree(_)))
        .count();
    let threads = if subtrees == 0 { 1 } else { threads };
    ordered_streams(
        pieces.len(),
        threads,
        CallerRole::Delivers,
        |i, out| match &pieces[i] {
            Piece::Solution(_) => Counts::default(),
            Piece::Subtree(s) => {
                let (c, st) =
                    explore_from(space, config, s.clone(), started, Some(&cancel), &mut |x| {
                        if want {
                            out.emit(x.clone());
                        }
                    });
                if let Some(st) = st {
                    if !cancel.swap(true, Ordering::Relaxed) {
                        *first_stop.lock().unwrap_or_else(|e| e.into_inner()) = Some(st);
                    }
                }
                c
            }
        },
        |i, event| {
            match event {
                Event::Item(s) => {
                    if let Some(f) = on_solution.as_mut() {
                        f(&s);
                    }
                }
                Event::Done(c) => {
                    if let (Some(f), Piece::Solution(s)) = (on_solution.as_mut(), &pieces[i]) {
                        f(s);
                    }
                    counts.add(&c);
                }
            }
            true
        },
    );
    let stop = first_stop.into_inner().unwrap_or_else(|e| e.into_inner());
    (counts, stop)
}
