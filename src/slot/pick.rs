//! The slot a colouring focus branches on, read off a colouring state: each of the seeds'
//! greedy heuristics is a rule for choosing the next vertex to colour.
//!
//! Every rule scans the slots once (Welsh–Powell also reads each slot's candidates), so a
//! step costs O(slots) or O(slots x values); the walks resume where the state's walk
//! left off.

use crate::explore::policy::Focus;

use super::colouring_state::Colouring;
use super::conflict::Conflict;
use super::mask::Mask;
use super::solver::{Tables, DYN};

/// A focus's choice, and where the walk stands once the slot is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pick {
    pub slot: u32,
    /// The queue's new head (breadth-first walks).
    pub head: u32,
    /// The walk entries to keep before the slot is appended (a depth-first walk drops the
    /// finished slots from the top of its stack).
    pub walk_len: u32,
}

/// The slot `focus` colours next in `state`. Every empty slot has a candidate (the caller
/// stops at a slot without one); `fewest` is the empty slot with the fewest candidates,
/// the lowest on ties.
pub fn pick<M: Mask>(
    focus: Focus,
    t: &Tables<M>,
    conflict: &Conflict,
    state: &Colouring<M>,
    fewest: u32,
) -> Pick {
    let plain = |slot| Pick {
        slot,
        head: 0,
        walk_len: 0,
    };
    let vals = &state.work.vals;
    match focus {
        Focus::Propagate | Focus::Fewest => plain(fewest),
        Focus::Position => plain(first_empty(vals)),
        Focus::Degree => plain(
            conflict
                .by_degree()
                .iter()
                .copied()
                .find(|&s| vals[s as usize] == 0)
                .unwrap_or(fewest),
        ),
        Focus::Dsatur => plain(most_saturated(state, true)),
        Focus::WelshPowell => plain(welsh_powell(t, conflict, state)),
        Focus::SaturBfs | Focus::Breadth => breadth(focus, conflict, state),
        Focus::Depth => depth(conflict, state),
    }
}

fn first_empty(vals: &[u8]) -> u32 {
    vals.iter().position(|&v| v == 0).unwrap_or(0) as u32
}

fn saturation<M: Mask>(state: &Colouring<M>, s: usize) -> u32 {
    state.seen[s].count()
}

/// The empty slot with the most distinct values among its placed neighbours; ties by the
/// most empty neighbours when `by_free` (DSatur), then the lowest slot.
fn most_saturated<M: Mask>(state: &Colouring<M>, by_free: bool) -> u32 {
    let mut best: Option<(u32, u32, u32)> = None;
    for (s, &v) in state.work.vals.iter().enumerate() {
        if v != 0 {
            continue;
        }
        let key = (
            saturation(state, s),
            if by_free { state.free[s] } else { 0 },
        );
        if best.is_none_or(|(_, sat, free)| key > (sat, free)) {
            best = Some((s as u32, key.0, key.1));
        }
    }
    best.map_or(0, |b| b.0)
}

/// Welsh–Powell, one step at a time: the colour class being built is the smallest value
/// some empty slot can still take (a class is finished exactly when no empty slot can take
/// its value, since placements never free a value), and the slot is the first by degree
/// that can take it. Its smallest candidate is that value.
fn welsh_powell<M: Mask>(t: &Tables<M>, conflict: &Conflict, state: &Colouring<M>) -> u32 {
    let mut best: Option<(u32, u32)> = None;
    for &s in conflict.by_degree() {
        if state.work.vals[s as usize] != 0 {
            continue;
        }
        // Every empty slot has a candidate; a later slot wins only with a smaller value.
        let low = t.cand::<DYN>(&state.work, s as usize).first();
        if best.is_none_or(|(_, v)| low < v) {
            best = Some((s, low));
        }
    }
    best.map_or(0, |b| b.0)
}

/// SaturBFS and the plain breadth-first walk: the queue's head is the first slot of the
/// walk with an empty neighbour; colour its neighbours (the most saturated first for
/// SaturBFS, in slot order for the plain walk) before moving on. When the queue runs dry
/// — at the start, or when the walk's slots have no empty neighbour left although some
/// slot is empty — a new walk starts from the most saturated empty slot (SaturBFS) or the
/// first one (plain).
fn breadth<M: Mask>(focus: Focus, conflict: &Conflict, state: &Colouring<M>) -> Pick {
    let walk = &state.walk;
    let mut head = state.head as usize;
    while head < walk.len() && state.free[walk[head] as usize] == 0 {
        head += 1;
    }
    let saturated = focus == Focus::SaturBfs;
    let slot = match walk.get(head) {
        Some(&v) => {
            let mut next = conflict
                .neighbours(v as usize)
                .iter()
                .copied()
                .filter(|&s| state.work.vals[s as usize] == 0);
            if saturated {
                // The first of the most saturated, in neighbour order.
                next.fold(None, |best: Option<u32>, s| match best {
                    Some(b) if saturation(state, s as usize) <= saturation(state, b as usize) => {
                        Some(b)
                    }
                    _ => Some(s),
                })
            } else {
                next.next()
            }
            .expect("the head has an empty neighbour")
        }
        None if saturated => most_saturated(state, false),
        None => first_empty(&state.work.vals),
    };
    Pick {
        slot,
        head: head as u32,
        walk_len: walk.len() as u32,
    }
}

/// The depth-first walk: from the last slot of the walk that still has an empty neighbour
/// (the slots above it are finished: all their neighbours are coloured, for good), colour
/// its first empty neighbour; with none left, start from the first empty slot.
fn depth<M: Mask>(conflict: &Conflict, state: &Colouring<M>) -> Pick {
    let walk = &state.walk;
    let mut len = walk.len();
    while len > 0 && state.free[walk[len - 1] as usize] == 0 {
        len -= 1;
    }
    let slot = match len {
        0 => first_empty(&state.work.vals),
        _ => conflict
            .neighbours(walk[len - 1] as usize)
            .iter()
            .copied()
            .find(|&s| state.work.vals[s as usize] == 0)
            .expect("the top has an empty neighbour"),
    };
    Pick {
        slot,
        head: 0,
        walk_len: len as u32,
    }
}
