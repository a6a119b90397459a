//! The successors of one state, merged into the frontier one at a time as a space makes
//! them, so that no state's successors are all built before any is merged, and the run's
//! limits hold while a state with millions of successors is expanded.

use super::config::Order;
use super::frontier::Frontier;
use super::halt::{resident_bytes, Lent};
use super::report::StopReason;
use super::store::StateStore;

/// The exact visited set and how a state is keyed for it.
pub struct Visited<'a, S> {
    pub store: &'a mut StateStore,
    pub key: &'a dyn Fn(&S, &mut Vec<u8>),
    /// A buffer for one key, reused.
    pub buf: &'a mut Vec<u8>,
}

impl<S> Visited<'_, S> {
    /// Records `s`; true when it was not seen before.
    fn insert(&mut self, s: &S) -> bool {
        (self.key)(s, self.buf);
        self.store.insert(self.buf)
    }

    /// Forgets `s`, a state dropped from the frontier before it was explored.
    fn remove(&mut self, s: &S) {
        (self.key)(s, self.buf);
        self.store.remove(self.buf);
    }
}

/// How the exploration loop takes successors: deduplicated, bounded by the states the
/// run may still explore, with its limits polled.
pub struct Merge<'a, S> {
    pub visited: Option<Visited<'a, S>>,
    /// States the run may still explore (`--max-states` minus those explored), when
    /// limited: the frontier never holds more, since the rest could never be explored.
    pub room: Option<u64>,
    /// The run's halt, ticked once per successor (or stretch of a long search): it
    /// counts that as work done and says why the run must stop now, if it must.
    pub halt: Lent<'a>,
}

/// What merging one state's successors came to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Successors found dead while they were built (counted as explored dead ends).
    pub dead: u64,
    /// A limit that stopped the expansion part-way: the state's verdict is unknown.
    pub stop: Option<StopReason>,
    /// True when states were dropped for want of room: the run cannot be complete.
    pub dropped: bool,
    /// Successors this state added to the frontier (the newest states there).
    pub pushed: usize,
}

enum Sink<'a, S> {
    /// Into a list, for callers that look at the successors themselves.
    Collect(Vec<S>),
    Merge(Merging<'a, S>),
}

/// A merge under way.
struct Merging<'a, S> {
    merge: Merge<'a, S>,
    /// This state's successors now in the frontier (its newest items).
    pushed: usize,
    /// No further successor can be kept: the expansion may end.
    full: bool,
    dropped: bool,
    stop: Option<StopReason>,
}

impl<S> Merging<'_, S> {
    #[inline(always)]
    fn take(&mut self, frontier: &mut Frontier<S>, s: S) {
        if self.stop.is_none() {
            self.stop = self.merge.halt.tick();
        }
        if self.full || self.stop.is_some() {
            frontier.recycle(s);
            return;
        }
        if let Some(room) = self.merge.room {
            // A stack explores this state's successors before anything older: the oldest
            // states make room. A queue explores what it holds first: the newcomer goes.
            while frontier.order() == Order::Dfs
                && frontier.len() as u64 >= room
                && frontier.len() > self.pushed
            {
                let Some(old) = frontier.evict_oldest() else {
                    break;
                };
                if let Some(v) = self.merge.visited.as_mut() {
                    v.remove(&old);
                }
                frontier.recycle(old);
                self.dropped = true;
            }
            if frontier.len() as u64 >= room {
                self.full = true;
                self.dropped = true;
                frontier.recycle(s);
                return;
            }
        }
        // The frontier and the visited set grow by doubling: a doubling the system refuses
        // stops the run as the memory limit does, rather than aborting it.
        let visited = self.merge.visited.as_mut();
        if !frontier.try_reserve() || visited.is_some_and(|v| !v.store.try_reserve()) {
            self.stop = Some(StopReason::Memory(resident_bytes().unwrap_or(0)));
            frontier.recycle(s);
            return;
        }
        if let Some(v) = self.merge.visited.as_mut() {
            if !v.insert(&s) {
                frontier.recycle(s);
                return;
            }
        }
        if frontier.push(s) {
            self.pushed += 1;
        }
    }
}

/// The successors of one state, filled by a [`super::Space`]. Buffers come from the
/// frontier's pool.
pub struct Successors<'a, S> {
    frontier: &'a mut Frontier<S>,
    sink: Sink<'a, S>,
    /// Successors found dead while they were built (counted as explored dead ends).
    pub dead: u64,
}

impl<'a, S> Successors<'a, S> {
    /// Successors gathered into a list (see [`Successors::into_items`]); `pool` lends
    /// spent buffers.
    pub fn collect(pool: &'a mut Frontier<S>) -> Self {
        Successors {
            frontier: pool,
            sink: Sink::Collect(Vec::new()),
            dead: 0,
        }
    }

    /// Successors merged into `frontier` as they come (see [`Successors::finish`]).
    #[inline]
    pub fn merging(frontier: &'a mut Frontier<S>, merge: Merge<'a, S>) -> Self {
        Successors {
            frontier,
            sink: Sink::Merge(Merging {
                merge,
                pushed: 0,
                full: false,
                dropped: false,
                stop: None,
            }),
            dead: 0,
        }
    }

    /// The successors gathered, in the order made (empty when merging).
    pub fn into_items(self) -> Vec<S> {
        match self.sink {
            Sink::Collect(items) => items,
            Sink::Merge(_) => Vec::new(),
        }
    }

    /// True when no further successor can be used: a limit stopped the run, or the
    /// frontier holds every state the run may still explore. A space making many
    /// successors ends its expansion here.
    pub fn is_done(&self) -> bool {
        match &self.sink {
            Sink::Collect(_) => false,
            Sink::Merge(m) => m.full || m.stop.is_some(),
        }
    }

    /// Counts a stretch of a long search between two successors as work done (see
    /// [`Merge::halt`]); true when the run must stop.
    pub fn tick(&mut self) -> bool {
        match &mut self.sink {
            Sink::Collect(_) => false,
            Sink::Merge(m) => {
                if m.stop.is_none() {
                    m.stop = m.merge.halt.tick();
                }
                m.stop.is_some()
            }
        }
    }

    /// A copy of `s`, written into a spent buffer when the pool has one (no allocation),
    /// else a fresh clone: the one place a state is cloned per transition.
    #[inline]
    pub fn copy_of(&mut self, s: &S) -> S
    where
        S: Clone,
    {
        match self.frontier.take_spare() {
            Some(mut spare) => {
                spare.clone_from(s);
                spare
            }
            None => s.clone(),
        }
    }

    /// Hands back a buffer that did not become a successor.
    pub fn discard(&mut self, s: S) {
        self.frontier.recycle(s);
    }

    /// Takes one successor: kept in the frontier unless seen before, or out of room, or
    /// the run is stopping.
    #[inline]
    pub fn push(&mut self, s: S) {
        match &mut self.sink {
            Sink::Collect(items) => items.push(s),
            Sink::Merge(m) => m.take(self.frontier, s),
        }
    }

    /// Ends the expansion: a stack gets this state's successors so that the first made
    /// is explored first.
    #[inline(always)]
    pub fn finish(self) -> Merged {
        match self.sink {
            Sink::Collect(_) => Merged {
                dead: self.dead,
                ..Merged::default()
            },
            Sink::Merge(m) => {
                if self.frontier.order() == Order::Dfs {
                    self.frontier.reverse_newest(m.pushed);
                }
                Merged {
                    dead: self.dead,
                    stop: m.stop,
                    dropped: m.dropped,
                    pushed: m.pushed,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::config::Limits;
    use crate::explore::halt::Halt;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Instant;

    /// Merges `items` as the successors of one state into `frontier` with `room`.
    fn merge_all(
        frontier: &mut Frontier<u32>,
        store: &mut StateStore,
        room: Option<u64>,
        items: impl IntoIterator<Item = u32>,
    ) -> Merged {
        let mut buf = Vec::new();
        let key = |s: &u32, out: &mut Vec<u8>| {
            out.clear();
            out.extend_from_slice(&s.to_le_bytes());
        };
        let mut halt = Halt::new(Limits::default(), Instant::now(), None, None);
        let mut succ = Successors::merging(
            frontier,
            Merge {
                visited: Some(Visited {
                    store,
                    key: &key,
                    buf: &mut buf,
                }),
                room,
                halt: halt.lend(),
            },
        );
        for s in items {
            succ.push(s);
            if succ.is_done() {
                break;
            }
        }
        succ.finish()
    }

    fn drain(frontier: &mut Frontier<u32>) -> Vec<u32> {
        std::iter::from_fn(|| frontier.pop()).collect()
    }

    #[test]
    fn a_stack_explores_the_first_successor_first_and_skips_repeats() {
        let mut frontier = Frontier::new(Order::Dfs);
        let mut store = StateStore::new();
        let merged = merge_all(&mut frontier, &mut store, None, [1, 2, 1, 3]);
        assert_eq!(
            merged,
            Merged {
                pushed: 3,
                ..Merged::default()
            }
        );
        assert_eq!(drain(&mut frontier), vec![1, 2, 3]);
    }

    #[test]
    fn a_full_stack_drops_its_oldest_states_and_forgets_them() {
        let mut frontier = Frontier::new(Order::Dfs);
        let mut store = StateStore::new();
        merge_all(&mut frontier, &mut store, Some(3), [1, 2, 3]);
        assert_eq!(frontier.pop(), Some(1));
        // State 1's successors come before 2 and 3, which make room and are forgotten.
        let merged = merge_all(&mut frontier, &mut store, Some(3), [10, 11, 12, 13]);
        assert!(merged.dropped);
        assert_eq!(drain(&mut frontier), vec![10, 11, 12]);
        assert_eq!(store.len(), 4);
        assert!(store.insert(&2u32.to_le_bytes()));
        assert!(store.insert(&3u32.to_le_bytes()));
        assert!(!store.insert(&1u32.to_le_bytes()));
    }

    #[test]
    fn a_full_queue_keeps_what_it_holds() {
        let mut frontier = Frontier::new(Order::Bfs);
        let mut store = StateStore::new();
        merge_all(&mut frontier, &mut store, Some(2), [1, 2]);
        let merged = merge_all(&mut frontier, &mut store, Some(2), [3, 4]);
        assert!(merged.dropped);
        assert_eq!(drain(&mut frontier), vec![1, 2]);
    }

    #[test]
    fn a_stop_ends_the_merge() {
        let mut frontier = Frontier::new(Order::Bfs);
        let interrupt = AtomicBool::new(false);
        let mut halt = Halt::new(Limits::default(), Instant::now(), Some(&interrupt), None);
        let mut succ = Successors::merging(
            &mut frontier,
            Merge {
                visited: None,
                room: None,
                halt: halt.lend(),
            },
        );
        let mut made = 0;
        while !succ.is_done() {
            if made == 1 {
                interrupt.store(true, Ordering::Relaxed);
            }
            succ.push(made);
            made += 1;
        }
        let merged = succ.finish();
        // The halt polls on the first tick, then on the second or third (its stride starts
        // at one and at most doubles per poll): the flag set before the second is seen
        // there or on the next, and the successor whose tick saw it is not kept.
        assert!((2..=3).contains(&made), "{made} successors made");
        assert_eq!(merged.stop, Some(StopReason::Interrupted));
        assert_eq!(drain(&mut frontier), (0..made - 1).collect::<Vec<_>>());
    }
}
