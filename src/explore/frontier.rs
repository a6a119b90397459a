//! The frontier of states waiting to be expanded: a stack (DFS), a queue (BFS) or a single
//! place (linear: one path, never backtracking), with a pool of spent states whose buffers
//! are reused so that the hot path does not allocate.

use std::collections::VecDeque;

use super::config::Order;

pub struct Frontier<S> {
    order: Order,
    items: VecDeque<S>,
    pool: Vec<S>,
}

impl<S> Frontier<S> {
    pub fn new(order: Order) -> Self {
        Frontier {
            order,
            items: VecDeque::new(),
            pool: Vec::new(),
        }
    }

    pub fn push(&mut self, s: S) {
        // A linear order keeps the first successor of each state (the frontier holds at
        // most one state) and hands the others back unexplored.
        if self.order == Order::Linear && !self.items.is_empty() {
            self.recycle(s);
            return;
        }
        self.items.push_back(s);
    }

    pub fn pop(&mut self) -> Option<S> {
        match self.order {
            Order::Dfs | Order::Linear => self.items.pop_back(),
            Order::Bfs => self.items.pop_front(),
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Returns a spent state's buffer for reuse.
    pub fn recycle(&mut self, s: S) {
        if self.pool.len() < 4096 {
            self.pool.push(s);
        }
    }

    pub fn take_spare(&mut self) -> Option<S> {
        self.pool.pop()
    }
}

/// The successors of one state, filled by a [`super::Space`]. Buffers come from the
/// frontier's pool.
pub struct Successors<'a, S> {
    pub(super) items: Vec<S>,
    pub(super) pool: &'a mut Frontier<S>,
    /// Successors found dead while they were built (counted as explored dead ends).
    pub dead: u64,
}

impl<S> Successors<'_, S> {
    /// A copy of `s`, written into a spent buffer when the pool has one (no allocation),
    /// else a fresh clone: the one place a state is cloned per transition.
    pub fn copy_of(&mut self, s: &S) -> S
    where
        S: Clone,
    {
        match self.pool.take_spare() {
            Some(mut spare) => {
                spare.clone_from(s);
                spare
            }
            None => s.clone(),
        }
    }

    pub fn push(&mut self, s: S) {
        self.items.push(s);
    }

    /// Hands back a buffer that did not become a successor.
    pub fn discard(&mut self, s: S) {
        self.pool.recycle(s);
    }
}
