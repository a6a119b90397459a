//! A bounded memo shared by every thread: what one puzzle's compilation found, kept for
//! the next (a batch's puzzles repeat their cages' listings and their marks' verdicts).

use std::fmt;
use std::hash::Hash;
use std::sync::Mutex;

use rustc_hash::{FxBuildHasher, FxHashMap};

/// At most `most` entries: past it, all are forgotten and found again. A poisoned lock
/// keeps nothing (the caller computes anew).
pub(super) struct Kept<K, V> {
    map: Mutex<FxHashMap<K, V>>,
    most: usize,
}

impl<K: Eq + Hash, V> Kept<K, V> {
    /// An empty memo of at most `most` entries (`const`, so that it can be a `static`).
    pub(super) const fn new(most: usize) -> Self {
        Kept {
            map: Mutex::new(FxHashMap::with_hasher(FxBuildHasher)),
            most,
        }
    }

    /// What `read` makes of the entry for `key`, if one is kept.
    pub(super) fn find<R>(&self, key: &K, read: impl FnOnce(&V) -> R) -> Option<R> {
        self.map.lock().ok()?.get(key).map(read)
    }

    /// Keeps `value` for `key`.
    pub(super) fn keep(&self, key: K, value: V) {
        if let Ok(mut map) = self.map.lock() {
            if map.len() >= self.most {
                map.clear();
            }
            map.insert(key, value);
        }
    }
}

impl<K, V> fmt::Debug for Kept<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kept = self.map.lock().map_or(0, |m| m.len());
        write!(f, "Kept({kept} of {})", self.most)
    }
}
