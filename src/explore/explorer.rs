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
    walk(space, config, start, started, cancel, None, on_solution).expect("no budget")
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
    walk(
        space,
        config,
        start,
        started,
        None,
        Some(budget),
        on_solution,
    )
}

/// The walk, its counts published to `config.progress` when there is one: as it goes,
/// then whole at its end, or taken back when it gives up (its states are explored again).
fn walk<S: Space>(
    space: &S,
    config: &Config,
    start: S::State,
    started: Instant,
    cancel: Option<&AtomicBool>,
    budget: Option<u64>,
    on_solution: &mut dyn FnMut(&S::State),
) -> Option<(Counts, Option<StopReason>)> {
    let mut meter = config.progress.map(Meter::new);
    let walked = walk_metered(
        space,
        config,
        start,
        started,
        cancel,
        budget,
        on_solution,
        &mut meter,
    );
    if let Some(mut meter) = meter {
        match &walked {
            Some((counts, _)) => meter.publish(counts),
            None => meter.retract(),
        }
    }
    walked
}

/// The loop itself, showing its counts to `meter` at each poll.
#[allow(clippy::too_many_arguments)]
fn walk_metered<S: Space>(
    space: &S,
    config: &Config,
    start: S::State,
    started: Instant,
    cancel: Option<&AtomicBool>,
    budget: Option<u64>,
    on_solution: &mut dyn FnMut(&S::State),
    meter: &mut Option<Meter<'_>>,
) -> Option<(Counts, Option<StopReason>)> {
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
            return Some((counts, Some(StopReason::MaxStates(counts.states))));
        }
        if let Some(stop) = halt.tick() {
            return Some((counts, Some(stop)));
        }
        if let Some(meter) = meter.as_mut() {
            meter.observe(&halt, &counts);
        }
        if budget.is_some_and(|b| counts.states >= b) {
            return None;
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
            return Some((counts, Some(stop)));
        }
        if space.is_final(&state, &exp) {
            counts.solutions += 1;
            on_solution(&state);
        } else if exp.transitions == 0 {
            counts.dead_ends += 1;
        }
        frontier.recycle(state);
        if limits.max_solutions.is_some_and(|m| counts.solutions >= m) && !frontier.is_empty() {
            return Some((counts, Some(StopReason::MaxSolutions(counts.solutions))));
        }
    }
    if dropped {
        return Some((counts, Some(StopReason::MaxStates(counts.states))));
    }
    Some((counts, None))
}
