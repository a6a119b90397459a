//! The one exploration loop: pop a state, expand it (merging its successors into the
//! frontier as they come), record what it is.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::config::Config;
use super::frontier::Frontier;
use super::halt::Halt;
use super::progress::Meter;
use super::report::{Counts, StopReason};
use super::space::Space;
use super::store::StateStore;
use super::successors::{Merge, Successors, Visited};
use super::trail::Trail;

/// Explores `space` in `config.order` until the frontier is empty or a limit is reached,
/// calling `on_solution` for each final state in the order found.
pub fn explore<S: Space>(
    space: &S,
    config: &Config,
    on_solution: &mut dyn FnMut(&S::State),
) -> (Counts, Option<StopReason>) {
    let started = config.started.unwrap_or_else(Instant::now);
    match space.initial() {
        Some(s) => explore_from(space, config, s, started, None, on_solution),
        None => (
            Counts {
                states: 1,
                dead_ends: 1,
                ..Counts::default()
            },
            None,
        ),
    }
}

/// Explores from `start`. Limits count from this call; the timeout from `started`. When
/// `cancel` is set (by another worker) the run stops as if timed out.
pub fn explore_from<S: Space>(
    space: &S,
    config: &Config,
    start: S::State,
    started: Instant,
    cancel: Option<&AtomicBool>,
    on_solution: &mut dyn FnMut(&S::State),
) -> (Counts, Option<StopReason>) {
    let mut on_solution = |s: &S::State, _: &[u32]| on_solution(s);
    match walk(
        space,
        config,
        start,
        started,
        cancel,
        Budget::default(),
        None,
        &mut on_solution,
    ) {
        Ended::Done(counts, stop) => (counts, stop),
        Ended::GaveUp(_) => unreachable!("a walk without a budget does not give up"),
    }
}

/// As [`explore_from`] without cancellation, giving up (`None`) once `budget` states are
/// explored and more are waiting.
pub fn explore_budget<S: Space>(
    space: &S,
    config: &Config,
    start: S::State,
    started: Instant,
    budget: u64,
    on_solution: &mut dyn FnMut(&S::State),
) -> Option<(Counts, Option<StopReason>)> {
    let budget = Budget {
        states: Some(budget),
        until: None,
    };
    let mut on_solution = |s: &S::State, _: &[u32]| on_solution(s);
    match walk(
        space,
        config,
        start,
        started,
        None,
        budget,
        None,
        &mut on_solution,
    ) {
        Ended::Done(counts, stop) => Some((counts, stop)),
        Ended::GaveUp(_) => None,
    }
}

/// What a depth-first walk that stops at a deadline found, and what it left.
#[cfg(any(feature = "distributed", test))]
pub struct Walked {
    pub counts: Counts,
    pub stop: Option<StopReason>,
    /// The subtrees not explored, by their roots' paths from the walk's start, in the
    /// order the walk would have taken them; empty when the walk finished or stopped.
    pub rest: Vec<Vec<u32>>,
}

/// Explores the tree below `start` depth-first (as [`explore_from`]) until `until`, and
/// hands back the subtrees not explored by the paths of their roots. `on_solution` gets
/// each final state with its path from `start`. For trees explored depth-first only.
#[cfg(any(feature = "distributed", test))]
pub fn explore_until<S: Space>(
    space: &S,
    config: &Config,
    start: S::State,
    started: Instant,
    until: Instant,
    on_solution: &mut dyn FnMut(&S::State, &[u32]),
) -> Walked {
    debug_assert!(!space.needs_visited() && config.order == super::config::Order::Dfs);
    let budget = Budget {
        states: None,
        until: Some(until),
    };
    let mut trail = Trail::default();
    let mut rest = Vec::new();
    let walked = walk(
        space,
        config,
        start,
        started,
        None,
        budget,
        Some((&mut trail, &mut rest)),
        on_solution,
    );
    match walked {
        Ended::Done(counts, stop) => Walked {
            counts,
            stop,
            rest: Vec::new(),
        },
        Ended::GaveUp(counts) => Walked {
            counts,
            stop: None,
            rest,
        },
    }
}

/// How a walk ended.
enum Ended {
    /// The frontier ran empty, or a limit stopped it.
    Done(Counts, Option<StopReason>),
    /// Its budget ran out with states still waiting; what it explored so far.
    GaveUp(#[cfg_attr(not(feature = "distributed"), allow(dead_code))] Counts),
}

/// When a walk gives up with states still waiting (see [`explore_budget`]).
#[derive(Clone, Copy, Default)]
struct Budget {
    /// Once this many states are explored.
    states: Option<u64>,
    /// Once this instant has passed (read every few hundred states).
    until: Option<Instant>,
}

/// How often a walk with a deadline reads the clock, in states.
const CLOCK_STRIDE: u64 = 256;

impl Budget {
    /// True when a walk that explored `states` should give up; it explores one at least.
    fn spent(&self, states: u64) -> bool {
        self.states.is_some_and(|b| states >= b)
            || self.until.is_some_and(|t| {
                states > 0 && states.is_multiple_of(CLOCK_STRIDE) && Instant::now() >= t
            })
    }
}

/// The walk, its counts published to `config.progress` when there is one: as it goes,
/// then whole at its end, or taken back when it gives up without handing its subtrees
/// back (its states are then explored again).
#[allow(clippy::too_many_arguments)]
fn walk<S: Space>(
    space: &S,
    config: &Config,
    start: S::State,
    started: Instant,
    cancel: Option<&AtomicBool>,
    budget: Budget,
    trail: Option<(&mut Trail, &mut Vec<Vec<u32>>)>,
    on_solution: &mut dyn FnMut(&S::State, &[u32]),
) -> Ended {
    let mut meter = config.progress.map(Meter::new);
    // A walk that hands its unexplored subtrees back keeps what it explored; one that
    // gives up without a trail has its states explored again.
    let hands_back = trail.is_some();
    let walked = walk_metered(
        space,
        config,
        start,
        started,
        cancel,
        budget,
        trail,
        on_solution,
        &mut meter,
    );
    if let Some(mut meter) = meter {
        match &walked {
            Ended::Done(counts, _) => meter.publish(counts),
            Ended::GaveUp(counts) if hands_back => meter.publish(counts),
            Ended::GaveUp(_) => meter.retract(),
        }
    }
    walked
}

/// The loop itself, showing its counts to `meter` at each poll. With a trail, a walk that
/// runs out of budget writes the paths of the states it leaves into the list beside it.
#[allow(clippy::too_many_arguments)]
fn walk_metered<S: Space>(
    space: &S,
    config: &Config,
    start: S::State,
    started: Instant,
    cancel: Option<&AtomicBool>,
    budget: Budget,
    mut trail: Option<(&mut Trail, &mut Vec<Vec<u32>>)>,
    on_solution: &mut dyn FnMut(&S::State, &[u32]),
    meter: &mut Option<Meter<'_>>,
) -> Ended {
    let limits = config.limits;
    let mut halt = Halt::new(limits, started, config.interrupt, cancel);
    let mut counts = Counts::default();
    let mut frontier = Frontier::new(config.order);
    let mut store = space.needs_visited().then(StateStore::new);
    let mut scratch = S::Scratch::default();
    let mut key = Vec::new();
    let key_of = |s: &S::State, out: &mut Vec<u8>| space.key(s, out);
    // True once states were dropped for want of room: the run is then incomplete.
    let mut dropped = false;
    if let Some(store) = store.as_mut() {
        space.key(&start, &mut key);
        store.insert(&key);
    }
    frontier.push(start);

    while let Some(state) = frontier.pop() {
        if limits.max_states.is_some_and(|m| counts.states >= m) {
            return Ended::Done(counts, Some(StopReason::MaxStates(counts.states)));
        }
        if let Some(stop) = halt.tick() {
            return Ended::Done(counts, Some(stop));
        }
        if let Some(meter) = meter.as_mut() {
            meter.observe(&halt, &counts);
        }
        if let Some((trail, _)) = trail.as_mut() {
            trail.take();
        }
        if budget.spent(counts.states) {
            if let Some((trail, rest)) = trail {
                rest.push(trail.path().to_vec());
                while frontier.pop().is_some() {
                    rest.push(trail.take().to_vec());
                }
            }
            return Ended::GaveUp(counts);
        }
        counts.states += 1;
        let merge = Merge {
            visited: store.as_mut().map(|store| Visited {
                store,
                key: &key_of,
                buf: &mut key,
            }),
            room: limits.max_states.map(|m| m.saturating_sub(counts.states)),
            halt: halt.lend(),
        };
        let mut succ = Successors::merging(&mut frontier, merge);
        let exp = space.expand(&state, &mut scratch, &mut succ);
        let merged = succ.finish();
        counts.transitions += exp.transitions;
        counts.states += merged.dead;
        counts.dead_ends += merged.dead;
        dropped |= merged.dropped;
        if let Some(stop) = merged.stop {
            // Stopped part-way through the state's successors: whether it is final or
            // dead is not known, so it is counted as neither.
            return Ended::Done(counts, Some(stop));
        }
        if let Some((trail, _)) = trail.as_mut() {
            trail.expanded(merged.pushed);
        }
        if space.is_final(&state, &exp) {
            counts.solutions += 1;
            on_solution(&state, trail.as_ref().map_or(&[], |(t, _)| t.path()));
        } else if exp.transitions == 0 {
            counts.dead_ends += 1;
        }
        frontier.recycle(state);
        if limits.max_solutions.is_some_and(|m| counts.solutions >= m) && !frontier.is_empty() {
            return Ended::Done(counts, Some(StopReason::MaxSolutions(counts.solutions)));
        }
    }
    if dropped {
        return Ended::Done(counts, Some(StopReason::MaxStates(counts.states)));
    }
    Ended::Done(counts, None)
}
