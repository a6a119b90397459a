//! The exact visited set: every state's key is stored whole, so equality of keys (not of
//! hashes) decides whether a state was seen.

use std::collections::HashSet;

/// Keys are a state's packed slots (slot engine) or its canonical encoding (graph engine).
#[derive(Default)]
pub struct StateStore {
    seen: HashSet<Box<[u8]>>,
    bytes: usize,
}

impl StateStore {
    pub fn new() -> StateStore {
        StateStore::default()
    }

    /// Records `key`; true when it was not there before.
    pub fn insert(&mut self, key: &[u8]) -> bool {
        if self.seen.contains(key) {
            return false;
        }
        self.bytes += key.len();
        self.seen.insert(key.into())
    }

    /// Makes room for one more key; false when the system refuses the memory. Called
    /// per successor: the common case, room to spare, is a comparison.
    #[inline]
    pub fn try_reserve(&mut self) -> bool {
        self.seen.len() < self.seen.capacity() || self.seen.try_reserve(1).is_ok()
    }

    /// Forgets `key` (a state dropped before it was explored); true when it was there.
    pub fn remove(&mut self, key: &[u8]) -> bool {
        let found = self.seen.remove(key);
        if found {
            self.bytes -= key.len();
        }
        found
    }

    pub fn len(&self) -> usize {
        self.seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// Bytes held by keys (not counting the table itself).
    pub fn key_bytes(&self) -> usize {
        self.bytes
    }
}
