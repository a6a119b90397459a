//! One search tree over every worker: the tree is cut into subtrees, named by the paths
//! of their roots from the start, and explored in rounds. In each round every worker
//! takes its share of the waiting subtrees (every W-th, in depth-first order) and walks
//! them depth-first until the round's deadline; a subtree it could not finish is cut
//! again into the subtrees its walk left (the rest of its stack), which join the waiting
//! list for the next round. The first round is short and rounds lengthen, so a small tree
//! ends on worker 0 in the first, and a large one is soon cut into many more subtrees
//! than workers.
//!
//! Depth-first order is the order of paths (a path before its extensions), so worker 0
//! prints each solution, rebuilt from its path, once no waiting subtree comes before it:
//! solutions appear in the order of a run on one thread, and counts are the same.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use crate::explore::config::Config;
use crate::explore::explorer::explore_until;
use crate::explore::report::{Counts, StopReason};
use crate::explore::space::Space;
use crate::explore::trail::replay;

use super::context::Node;
use super::wire::{Reader, Writer};
use super::StateSink;

/// The first round's length: a tree this quick is explored by worker 0 alone. (Unit
/// tests cut their small trees sooner, so that they are spread.)
const FIRST_SLICE: Duration = if cfg!(test) {
    Duration::from_micros(20)
} else {
    Duration::from_millis(2)
};

/// The longest round: a worker whose subtrees end early waits at most this long for the
/// others, and a stop (timeout, interrupt) reaches every worker within it.
const LONGEST_SLICE: Duration = Duration::from_millis(200);

/// Message tags.
const STATUS: u64 = 0;
const SOLUTIONS: u64 = 1;

/// Explores the tree of `space` (explored depth-first, no visited set) over every worker
/// of `node`'s run; worker 0 calls `sink` with each solution in depth-first order. Every
/// worker returns the same counts and stop.
pub fn explore_split<S: Space>(
    node: &mut Node,
    space: &S,
    config: &Config,
    mut sink: StateSink<'_, S::State>,
) -> (Counts, Option<StopReason>) {
    let want = node.want_solutions;
    let ex = &mut *node.exchange;
    let (me, workers) = (ex.worker(), ex.workers());
    let started = config.started.unwrap_or_else(Instant::now);
    let Some(start) = space.initial() else {
        return (super::dead_start(), None);
    };
    let mut waiting: Vec<Vec<u32>> = vec![Vec::new()];
    let mut total = Counts::default();
    let mut stop = None;
    let mut slice = FIRST_SLICE;
    let mut printer = Printer::new(space, &start);
    // Worker 0: paths of solutions not yet printed.
    let mut held: BTreeSet<Vec<u32>> = BTreeSet::new();
    while !waiting.is_empty() && stop.is_none() {
        let until = Instant::now() + slice;
        let mut counts = Counts::default();
        let mut my_stop = None;
        let mut rest: Vec<Vec<u32>> = Vec::new();
        let mut found: Vec<Vec<u32>> = Vec::new();
        for path in waiting.iter().skip(me).step_by(workers) {
            if my_stop.is_some() || Instant::now() >= until {
                rest.push(path.clone());
                continue;
            }
            let root = replay(space, &start, path).expect("a waiting subtree's path leads to it");
            let walked = explore_until(space, config, root, started, until, &mut |_, sub| {
                if want {
                    found.push(joined(path, sub));
                }
            });
            counts.add(&walked.counts);
            my_stop = walked.stop;
            rest.extend(walked.rest.iter().map(|sub| joined(path, sub)));
        }
        let mut status = Writer::new();
        status
            .u64(STATUS)
            .counts(&counts)
            .stop(my_stop)
            .u64(rest.len() as u64);
        for p in &rest {
            status.path(p);
        }
        ex.broadcast(&status.bytes);
        if want && !found.is_empty() {
            let mut w = Writer::new();
            w.u64(SOLUTIONS).u64(found.len() as u64);
            for p in &found {
                w.path(p);
            }
            ex.send(0, w.bytes);
        }
        waiting.clear();
        for m in ex.end_round() {
            let mut r = Reader::new(&m.bytes, m.from);
            match r.u64() {
                STATUS => {
                    total.add(&r.counts());
                    let s = r.stop();
                    stop = stop.or(s);
                    for _ in 0..r.usize() {
                        waiting.push(r.path());
                    }
                }
                _ => {
                    for _ in 0..r.usize() {
                        held.insert(r.path());
                    }
                }
            }
        }
        waiting.sort_unstable();
        // Every solution before the first waiting subtree is known (after a stop, every
        // solution that will be).
        if let Some(sink) = sink.as_mut() {
            while let Some(first) = held.first() {
                if stop.is_none() && waiting.first().is_some_and(|w| w < first) {
                    break;
                }
                let path = held.pop_first().expect("a first path");
                sink(printer.state(&path));
            }
        }
        slice = (slice * 2).min(LONGEST_SLICE);
    }
    (total, stop)
}

/// `prefix` followed by `rest`.
fn joined(prefix: &[u32], rest: &[u32]) -> Vec<u32> {
    let mut p = Vec::with_capacity(prefix.len() + rest.len());
    p.extend_from_slice(prefix);
    p.extend_from_slice(rest);
    p
}

/// Rebuilds states from their paths, keeping the states along the last path: paths come
/// in depth-first order, so consecutive ones share most of their way.
struct Printer<'s, S: Space> {
    space: &'s S,
    /// `states[k]`: the state at depth `k` of `path` (the start first).
    states: Vec<S::State>,
    path: Vec<u32>,
}

impl<'s, S: Space> Printer<'s, S> {
    fn new(space: &'s S, start: &S::State) -> Self {
        Printer {
            space,
            states: vec![start.clone()],
            path: Vec::new(),
        }
    }

    fn state(&mut self, path: &[u32]) -> &S::State {
        let shared = self
            .path
            .iter()
            .zip(path)
            .take_while(|(a, b)| a == b)
            .count();
        self.states.truncate(shared + 1);
        for &i in &path[shared..] {
            let last = self.states.last().expect("the start at least");
            let child = replay(self.space, last, &[i]).expect("a solution's path leads to it");
            self.states.push(child);
        }
        self.path = path.to_vec();
        self.states.last().expect("the state at the path's end")
    }
}
