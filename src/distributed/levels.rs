//! A whole state space over every worker, breadth-first and level by level, the way the
//! distributed explicit-state model checkers do it: every state has one owner, the worker
//! its exact key hashes to (a fixed, seedless hash), and only its owner keeps it. A
//! worker expands the states it owns at the current level and sends each successor to
//! that successor's owner, which drops it if it has seen it (its share of the visited
//! set holds exact keys: a hash never decides alone) and keeps it for the next level
//! otherwise. The next level begins once every worker has expanded its share and every
//! successor has arrived: a round of the exchange ends only then.
//!
//! A space that is a tree (each state made once, as orderly generation makes them) needs
//! no visited set; its states are spread by the hash of their encoding. A level is kept
//! as its states' encodings end to end, as they arrive (a packed 4x4 state: 21 bytes),
//! so memory per worker is its share of two levels, and, where states repeat, of the
//! visited set.
//! Limits are checked by every worker as it goes (time, interrupts, memory) and at each
//! level's end on the totals (states, solutions).
//!
//! Solutions reach worker 0 with the path by which the level order first reaches them;
//! it prints them sorted in the order a run on one thread finds them: by path in a tree
//! explored depth-first, by level and then path breadth-first.

use std::collections::HashMap;
use std::time::Instant;

use crate::explore::config::{Config, Order};
use crate::explore::frontier::Frontier;
use crate::explore::halt::Halt;
use crate::explore::report::{Counts, StopReason};
use crate::explore::space::Space;
use crate::explore::store::StateStore;
use crate::explore::successors::Successors;

use super::context::Node;
use super::hash::{owner, stable_hash};
use super::wire::{put_bytes, Reader, Writer};
use super::StateSink;

/// Bytes of successors a worker sends in one round at most (per round, not per
/// receiver): rounds stay a few milliseconds long and buffers a few MB.
const ROUND_BYTES: usize = 4 << 20;

/// Message tags.
const STATES: u64 = 0;
const STATUS: u64 = 1;
const SOLUTIONS: u64 = 2;
const SIZE: u64 = 3;

/// The states of one level at their owner, end to end, as they travel: each its
/// encoding's length (LEB128) and encoding, then, when solutions are printed, its path of
/// `depth` child numbers as big-endian `u32`s (so that comparing bytes compares paths).
#[derive(Default)]
struct Level {
    bytes: Vec<u8>,
    len: usize,
}

/// One state of a level: its encoding and path bytes.
struct Record<'a> {
    code: &'a [u8],
    path: &'a [u8],
}

/// Reads the records of `bytes`, whose paths are `path_bytes` long.
fn records(bytes: &[u8], path_bytes: usize) -> impl Iterator<Item = (usize, Record<'_>)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        let mut r = Reader::new(&bytes[at..], 0);
        let code = r.bytes();
        at = bytes.len() - r.rest();
        let path = &bytes[at..at + path_bytes];
        at += path_bytes;
        Some((start, Record { code, path }))
    })
}

/// Explores the whole space of `space` level by level over every worker of `node`'s run;
/// worker 0 calls `sink` with each solution in the order of `config.order` (depth-first
/// only for a tree). The space must encode its states. Every worker returns the same
/// counts and stop.
pub fn explore_levels<S: Space>(
    node: &mut Node,
    space: &S,
    config: &Config,
    sink: StateSink<'_, S::State>,
) -> (Counts, Option<StopReason>) {
    let want = node.want_solutions;
    let ex = &mut *node.exchange;
    let (me, workers) = (ex.worker(), ex.workers());
    let started = config.started.unwrap_or_else(Instant::now);
    let Some(start) = space.initial() else {
        return (super::dead_start(), None);
    };
    let repeats = space.needs_visited();
    let mut key = Vec::new();
    let mut code = Vec::new();
    // The owner of `s`, with its encoding left in `code`.
    let owner_of = |s: &S::State, key: &mut Vec<u8>, code: &mut Vec<u8>| {
        code.clear();
        let encoded = space.encode(s, code);
        debug_assert!(encoded, "explore_levels runs spaces that encode");
        let h = if repeats {
            space.key(s, key);
            stable_hash(key)
        } else {
            stable_hash(code)
        };
        owner(h, workers)
    };
    let mut visited = StateStore::new();
    let mut level = Level::default();
    if owner_of(&start, &mut key, &mut code) == me {
        if repeats {
            visited.insert(&key);
        }
        put_bytes(&mut level.bytes, &code);
        level.len = 1;
    }
    let mut depth = 0usize;
    let mut halt = Halt::new(config.limits, started, config.interrupt, None);
    let mut scratch = S::Scratch::default();
    let mut pool: Frontier<S::State> = Frontier::new(Order::Bfs);
    // This worker's counts so far; the run's, as of the last round.
    let mut mine = Counts::default();
    let mut total = Counts::default();
    let mut stop: Option<StopReason> = None;
    // Worker 0: every solution's path bytes and encoding.
    let mut solutions: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    loop {
        // Each level opens with a round that sums the workers' shares of it: the run
        // ends at an empty level, and its limits on the totals are checked here, where
        // every worker knows the same totals and whether states are left.
        let mut size = Writer::new();
        size.u64(SIZE).u64(level.len as u64);
        ex.broadcast(&size.bytes);
        let mut left = 0u64;
        for m in ex.end_round() {
            let mut r = Reader::new(&m.bytes, m.from);
            r.u64();
            left += r.u64();
        }
        let limits = config.limits;
        if left == 0 {
            break;
        }
        if limits.max_states.is_some_and(|m| total.states >= m) {
            stop = Some(StopReason::MaxStates(total.states));
            break;
        }
        if limits.max_solutions.is_some_and(|m| total.solutions >= m) {
            stop = Some(StopReason::MaxSolutions(total.solutions));
            break;
        }
        let path_bytes = if want { 4 * depth } else { 0 };
        let mut next = Level::default();
        // Where the path of each state new at this level sits in `next`, to keep its
        // least path (only when solutions are printed and states repeat).
        let mut placed: HashMap<Box<[u8]>, usize> = HashMap::new();
        let mut todo = records(&level.bytes, path_bytes);
        let mut done = false;
        loop {
            let mut out: Vec<Writer> = (0..workers).map(|_| Writer::new()).collect();
            let mut found = Writer::new();
            let mut sent = 0;
            let mut my_stop = None;
            while sent < ROUND_BYTES && my_stop.is_none() {
                let Some((_, record)) = todo.next() else {
                    done = true;
                    break;
                };
                let state = space
                    .decode(record.code)
                    .expect("a state this run encoded decodes");
                mine.states += 1;
                let mut succ = Successors::collect(&mut pool);
                let exp = space.expand(&state, &mut scratch, &mut succ);
                let dead = succ.dead;
                let children = succ.into_items();
                mine.transitions += exp.transitions;
                mine.states += dead;
                mine.dead_ends += dead;
                if space.is_final(&state, &exp) {
                    mine.solutions += 1;
                    if want {
                        found.bytes(record.path).bytes(record.code);
                    }
                } else if exp.transitions == 0 {
                    mine.dead_ends += 1;
                }
                for (i, child) in children.into_iter().enumerate() {
                    let o = owner_of(&child, &mut key, &mut code);
                    let w = &mut out[o];
                    let len = w.bytes.len();
                    w.bytes(&code);
                    if want {
                        w.bytes.extend_from_slice(record.path);
                        w.bytes.extend_from_slice(&(i as u32).to_be_bytes());
                    }
                    sent += w.bytes.len() - len;
                    pool.recycle(child);
                }
                pool.recycle(state);
                my_stop = halt.tick();
            }
            done |= my_stop.is_some();
            for (to, w) in out.into_iter().enumerate() {
                if !w.bytes.is_empty() {
                    let mut m = Writer::new();
                    m.u64(STATES);
                    m.bytes.extend_from_slice(&w.bytes);
                    ex.send(to, m.bytes);
                }
            }
            let mut status = Writer::new();
            status
                .u64(STATUS)
                .u64(u64::from(done))
                .stop(my_stop)
                .counts(&mine);
            ex.broadcast(&status.bytes);
            if !found.bytes.is_empty() {
                let mut m = Writer::new();
                m.u64(SOLUTIONS);
                m.bytes.extend_from_slice(&found.bytes);
                ex.send(0, m.bytes);
            }
            let mut all_done = true;
            let mut sum = Counts::default();
            for m in ex.end_round() {
                let mut r = Reader::new(&m.bytes, m.from);
                match r.u64() {
                    STATES => {
                        let payload = &m.bytes[m.bytes.len() - r.rest()..];
                        let child_path = if want { 4 * (depth + 1) } else { 0 };
                        if !repeats {
                            // Each state arrives once: the records join the level as sent.
                            next.len += records(payload, child_path).count();
                            next.bytes.extend_from_slice(payload);
                            continue;
                        }
                        for (_, record) in records(payload, child_path) {
                            let state = space
                                .decode(record.code)
                                .expect("a state another worker encoded decodes");
                            space.key(&state, &mut key);
                            pool.recycle(state);
                            if visited.insert(&key) {
                                put_bytes(&mut next.bytes, record.code);
                                if want {
                                    placed.insert(key.as_slice().into(), next.bytes.len());
                                }
                                next.bytes.extend_from_slice(record.path);
                                next.len += 1;
                            } else if let Some(&at) = placed.get(key.as_slice()) {
                                let kept = &mut next.bytes[at..at + child_path];
                                if record.path < &*kept {
                                    kept.copy_from_slice(record.path);
                                }
                            }
                        }
                    }
                    STATUS => {
                        all_done &= r.u64() == 1;
                        stop = stop.or(r.stop());
                        sum.add(&r.counts());
                    }
                    _ => {
                        while !r.is_empty() {
                            let path = r.bytes().to_vec();
                            solutions.push((path, r.bytes().to_vec()));
                        }
                    }
                }
            }
            total = sum;
            if all_done || stop.is_some() {
                break;
            }
        }
        drop(todo);
        level = next;
        depth += 1;
        if stop.is_some() {
            break;
        }
    }
    if let Some(sink) = sink {
        match config.order {
            Order::Bfs => {
                solutions.sort_unstable_by(|a, b| (a.0.len(), &a.0).cmp(&(b.0.len(), &b.0)))
            }
            _ => solutions.sort_unstable_by(|a, b| a.0.cmp(&b.0)),
        }
        for (_, bytes) in &solutions {
            sink(&space.decode(bytes).expect("a solution decodes"));
        }
    }
    (total, stop)
}
