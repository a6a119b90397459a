//! A bounded memo for every thread: what one puzzle's compilation found, kept for the
//! next (a batch's puzzles repeat their cages' listings and their marks' verdicts).
//!
//! Each thread keeps its own part. A batch on two threads looked its entries up
//! thousands of times a second through one lock, whose cache line (and the count of
//! every shared listing it handed out) then went back and forth between the cores: the
//! second thread's puzzles took a tenth longer. A thread finds again, once, what another
//! already found: a few hundred listings a batch.

use std::fmt;
use std::hash::Hash;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rustc_hash::{FxBuildHasher, FxHashMap};

/// Parts a memo is split into; threads past this many share parts.
const PARTS: usize = 16;

/// At most `most` entries per part: past it, the part forgets all and finds them again
/// (a memo's memory grows with the threads, up to [`PARTS`] times `most` entries). A
/// poisoned lock keeps nothing (the caller computes anew).
pub(super) struct Kept<K, V> {
    parts: [Part<K, V>; PARTS],
    most: usize,
}

/// One thread's part, on a cache line of its own.
#[repr(align(128))]
struct Part<K, V>(Mutex<FxHashMap<K, V>>);

/// This thread's part of every memo.
fn part() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static PART: usize = NEXT.fetch_add(1, Ordering::Relaxed) % PARTS;
    }
    PART.with(|p| *p)
}

impl<K: Eq + Hash, V> Kept<K, V> {
    /// An empty memo of at most `most` entries a thread (`const`, so that it can be a
    /// `static`).
    pub(super) const fn new(most: usize) -> Self {
        Kept {
            parts: [const { Part(Mutex::new(FxHashMap::with_hasher(FxBuildHasher))) }; PARTS],
            most,
        }
    }

    /// What `read` makes of the entry this thread keeps for `key`, if any.
    pub(super) fn find<R>(&self, key: &K, read: impl FnOnce(&V) -> R) -> Option<R> {
        self.parts[part()].0.lock().ok()?.get(key).map(read)
    }

    /// Keeps `value` for `key`, for this thread.
    pub(super) fn keep(&self, key: K, value: V) {
        if let Ok(mut map) = self.parts[part()].0.lock() {
            if map.len() >= self.most {
                map.clear();
            }
            map.insert(key, value);
        }
    }
}

impl<K, V> fmt::Debug for Kept<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kept: usize = (self.parts.iter())
            .map(|p| p.0.lock().map_or(0, |m| m.len()))
            .sum();
        write!(f, "Kept({kept}, at most {} a thread)", self.most)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_finds_what_it_kept_within_the_bound() {
        let kept: Kept<u32, u32> = Kept::new(2);
        kept.keep(1, 10);
        kept.keep(2, 20);
        assert_eq!(kept.find(&1, |v| *v), Some(10));
        assert_eq!(kept.find(&2, |v| *v), Some(20));
        // A third entry passes the bound: the part forgets the others.
        kept.keep(3, 30);
        assert_eq!(kept.find(&1, |v| *v), None);
        assert_eq!(kept.find(&3, |v| *v), Some(30));
        // A thread of its own starts from its own part (the first threads have parts of
        // their own: this test's thread and a new one may share one only past PARTS).
        let mine = part();
        std::thread::scope(|s| {
            s.spawn(|| {
                if part() != mine {
                    assert_eq!(kept.find(&3, |v| *v), None);
                }
                kept.keep(4, 40);
                assert_eq!(kept.find(&4, |v| *v), Some(40));
            });
        });
        assert_eq!(format!("{kept:?}").split(',').next(), Some("Kept(2"));
    }
}
