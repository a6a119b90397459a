//! One run over several processes, on one machine or many (the `distributed` feature).
//!
//! Each process runs the same command with its own `--process` number; they join through
//! a host file into one run of W workers (threads), on timely dataflow's exchange and
//! progress tracking (see [`exchange`] for the small interface the run is written
//! against). Worker 0 writes the output. Three kinds of work are spread:
//!
//! - many runs (the puzzles of a file) side by side, their output in order ([`batch`]);
//! - one search tree, cut into subtrees in rounds ([`split`]);
//! - one whole state space (`--expand all`), level by level, each state kept by the
//!   worker its key hashes to ([`levels`]).
//!
//! Whatever cannot be spread exactly (a linear walk, a depth-first walk with a visited
//! set or with state and solution limits) runs on worker 0 alone, as on one machine. The
//! output is the same as one machine's in every case.
//!
//! Without the feature only the unit tests build this module: they drive the spreads over
//! a local exchange (`tests.rs`); joining over TCP (`cluster.rs`, `timely_exchange.rs`) is
//! the feature's alone, and what only it calls goes unused there.
#![cfg_attr(not(feature = "distributed"), allow(dead_code, unused_imports))]

mod batch;
#[cfg(feature = "distributed")]
mod cluster;
mod connect;
mod context;
pub mod exchange;
mod failure;
mod hash;
mod hostfile;
mod levels;
mod split;
#[cfg(test)]
mod tests;
#[cfg(feature = "distributed")]
mod timely_exchange;
mod wire;

#[cfg(feature = "distributed")]
pub use cluster::{Cluster, ClusterSpec, Worker};
pub use connect::JoinError;
pub use failure::LOST;
pub use hash::stable_hash;
pub use hostfile::read_hosts;

use crate::explore::config::{Config, Expand, Order};
use crate::explore::explorer::explore;
use crate::explore::ordered::Event;
use crate::explore::parallel::GraphSink;
use crate::explore::report::{Counts, StopReason};
use crate::explore::space::Space;

use context::Node;
use wire::{Reader, Writer};

/// Where worker 0 hands each solution, when it writes them.
type StateSink<'a, S> = Option<&'a mut dyn FnMut(&S)>;

/// One run of a batch: `run(i, config, emit)` emits the run's output in pieces (false:
/// stop) and returns its result.
pub type BatchRun<'a> =
    dyn Fn(usize, &Config, &mut dyn FnMut(Vec<u8>) -> bool) -> Vec<u8> + Sync + 'a;

/// The counts of a run whose start state is dead.
fn dead_start() -> Counts {
    Counts {
        states: 1,
        dead_ends: 1,
        ..Counts::default()
    }
}

/// How one exploration is spread.
enum Spread {
    /// Level by level, states owned by hash ([`levels`]).
    Levels,
    /// Subtrees in rounds ([`split`]).
    Split,
    /// On worker 0 alone.
    Alone,
}

fn spread<S: Space>(space: &S, config: &Config, want_solutions: bool) -> Spread {
    let limits = config.limits;
    let encodes = space
        .initial()
        .is_some_and(|s| space.encode(&s, &mut Vec::new()));
    match config.order {
        Order::Linear => Spread::Alone,
        // A depth-first walk's order of solutions follows from paths only in a tree.
        Order::Dfs | Order::Bfs
            if config.expand == Expand::All
                && encodes
                && (config.order == Order::Bfs || !space.needs_visited() || !want_solutions) =>
        {
            Spread::Levels
        }
        Order::Dfs
            if !space.needs_visited()
                && limits.max_states.is_none()
                && limits.max_solutions.is_none() =>
        {
            Spread::Split
        }
        _ => Spread::Alone,
    }
}

/// Explores `space` over every worker of the distributed run this thread serves, when it
/// serves one (`None` otherwise: the caller explores here). Worker 0 hands each solution
/// to `sink`; every worker returns the same counts and stop.
pub fn explore_here<S: Space>(
    space: &S,
    config: &Config,
    sink: &mut GraphSink<'_>,
) -> Option<(Counts, Option<StopReason>)> {
    context::with_node(|node| {
        let mut graphs = sink
            .as_mut()
            .map(|f| move |s: &S::State| f(&space.to_graph(s)));
        let sink = graphs.as_mut().map(|f| f as &mut dyn FnMut(&S::State));
        match spread(space, config, node.want_solutions) {
            Spread::Levels => levels::explore_levels(node, space, config, sink),
            Spread::Split => split::explore_split(node, space, config, sink),
            Spread::Alone => alone(node, space, config, sink),
        }
    })
}

/// Explores on worker 0 while the others wait, then tells them what it found.
fn alone<S: Space>(
    node: &mut Node,
    space: &S,
    config: &Config,
    sink: StateSink<'_, S::State>,
) -> (Counts, Option<StopReason>) {
    let ex = &mut *node.exchange;
    if ex.worker() == 0 {
        let (counts, stop) = match sink {
            Some(f) => explore(space, config, f),
            None => explore(space, config, &mut |_| {}),
        };
        let mut w = Writer::new();
        w.counts(&counts).stop(stop);
        ex.broadcast(&w.bytes);
    }
    let messages = ex.end_round();
    let m = messages.first().expect("worker 0's counts");
    let mut r = Reader::new(&m.bytes, m.from);
    (r.counts(), r.stop())
}

/// True when `runs` runs on `workers` workers should go side by side ([`run_batch`]);
/// false when they should go one after another, each spread over every worker: the
/// threads' rule, over the run's workers.
pub fn side_by_side(runs: usize, workers: usize) -> bool {
    crate::explore::parallel::runs_side_by_side(runs, workers)
}

/// Worker 0's `value`, on every worker of the distributed run this thread serves: how
/// the workers take one decision together (a round of its own).
///
/// # Panics
///
/// When the thread serves no distributed run.
pub fn decide(value: u64) -> u64 {
    context::with_node(|node| {
        let ex = &mut *node.exchange;
        if ex.worker() == 0 {
            let mut w = Writer::new();
            w.u64(value);
            ex.broadcast(&w.bytes);
        }
        let messages = ex.end_round();
        let m = messages.first().expect("worker 0's value");
        Reader::new(&m.bytes, m.from).u64()
    })
    .expect("decide is called on a worker of a distributed run")
}

/// Runs `run(i, config, emit)` for every `i` in `0..n` over every worker of the
/// distributed run this thread serves; worker 0 calls `deliver(i, event)` with each run's
/// items and then its result, in increasing `i`, as [`crate::run_batch`] does over
/// threads. Items and results are bytes, since they may come from another process.
///
/// # Panics
///
/// When the thread serves no distributed run (see [`Cluster::run`]).
pub fn run_batch(
    n: usize,
    config: &Config,
    run: &BatchRun<'_>,
    deliver: &mut dyn FnMut(usize, Event<Vec<u8>, Vec<u8>>) -> bool,
) {
    context::with_node(|node| batch::run_batch(node, n, config, run, deliver))
        .expect("run_batch is called on a worker of a distributed run");
}
