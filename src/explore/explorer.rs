//! The one exploration loop: pop a state, expand it, record what it is, push what is new.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::config::{Config, Order};
use super::frontier::{Frontier, Successors};
use super::halt::{Halt, POLL_STATES};
use super::report::{Counts, StopReason};
use super::space::Space;
use super::store::StateStore;

/// Explores `space` in `config.order` until the frontier is empty or a limit is reached,
/// calling `on_solution` for each final state in the order found.
pub fn explore<S: Space>(
    space: &S,
    config: &Config,
    on_solution: &mut dyn FnMut(&S::State),
) -> (Counts, Option<StopReason>) {
    let started = Instant::now();
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

fn walk<S: Space>(
    space: &S,
    config: &Config,
    start: S::State,
    started: Instant,
    cancel: Option<&AtomicBool>,
    budget: Option<u64>,
    on_solution: &mut dyn FnMut(&S::State),
) -> Option<(Counts, Option<StopReason>)> {
    let limits = config.limits;
    let mut halt = Halt::new(limits, started, config.interrupt, cancel);
    let mut counts = Counts::default();
    let mut frontier = Frontier::new(config.order);
    let mut store = space.needs_visited().then(StateStore::new);
    let mut scratch = S::Scratch::default();
    let mut key = Vec::new();
    let mut batch = Vec::new();
    if let Some(store) = store.as_mut() {
        space.key(&start, &mut key);
        store.insert(&key);
    }
    frontier.push(start);

    while let Some(state) = frontier.pop() {
        if limits.max_states.is_some_and(|m| counts.states >= m) {
            return Some((counts, Some(StopReason::MaxStates(counts.states))));
        }
        if counts.states % POLL_STATES == 0 {
            if let Some(stop) = halt.poll() {
                return Some((counts, Some(stop)));
            }
        }
        if budget.is_some_and(|b| counts.states >= b) {
            return None;
        }
        counts.states += 1;
        let mut succ = Successors {
            items: std::mem::take(&mut batch),
            pool: &mut frontier,
            dead: 0,
        };
        let exp = space.expand(&state, &mut scratch, &mut succ);
        let dead = succ.dead;
        batch = std::mem::take(&mut succ.items);
        counts.transitions += exp.transitions;
        counts.states += dead;
        counts.dead_ends += dead;
        if space.is_final(&state, &exp) {
            counts.solutions += 1;
            on_solution(&state);
        } else if exp.transitions == 0 {
            counts.dead_ends += 1;
        }
        let mut push = |s: S::State, frontier: &mut Frontier<S::State>| match store.as_mut() {
            Some(store) => {
                space.key(&s, &mut key);
                if store.insert(&key) {
                    frontier.push(s);
                } else {
                    frontier.recycle(s);
                }
            }
            None => frontier.push(s),
        };
        // A stack pops the last pushed first: push in reverse so a DFS visits successors
        // in the order the space produced them.
        if config.order == Order::Dfs {
            for s in batch.drain(..).rev() {
                push(s, &mut frontier);
            }
        } else {
            for s in batch.drain(..) {
                push(s, &mut frontier);
            }
        }
        frontier.recycle(state);
        if limits.max_solutions.is_some_and(|m| counts.solutions >= m) && !frontier.is_empty() {
            return Some((counts, Some(StopReason::MaxSolutions(counts.solutions))));
        }
    }
    Some((counts, None))
}
