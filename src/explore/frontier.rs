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

    /// Adds `s`; false when a linear order handed it back instead.
    #[inline]
    pub fn push(&mut self, s: S) -> bool {
        // A linear order keeps the first successor of each state (the frontier holds at
        // most one state) and hands the others back unexplored.
        if self.order == Order::Linear && !self.items.is_empty() {
            self.recycle(s);
            return false;
        }
        self.items.push_back(s);
        true
    }

    /// Makes room for one more state; false when the system refuses the memory. Called
    /// per successor: the common case, room to spare, is a comparison.
    #[inline]
    pub fn try_reserve(&mut self) -> bool {
        self.items.len() < self.items.capacity() || self.items.try_reserve(1).is_ok()
    }

    pub fn order(&self) -> Order {
        self.order
    }

    /// Removes the state that would be taken last (the bottom of a stack, the back of a
    /// queue).
    pub fn evict_oldest(&mut self) -> Option<S> {
        match self.order {
            Order::Dfs | Order::Linear => self.items.pop_front(),
            Order::Bfs => self.items.pop_back(),
        }
    }

    /// Reverses the `k` states pushed last, so that a stack takes them in the order they
    /// were pushed.
    pub fn reverse_newest(&mut self, k: usize) {
        let n = self.items.len();
        let k = k.min(n);
        for i in 0..k / 2 {
            self.items.swap(n - k + i, n - 1 - i);
        }
    }

    #[inline]
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
    #[inline]
    pub fn recycle(&mut self, s: S) {
        if self.pool.len() < 4096 {
            self.pool.push(s);
        }
    }

    #[inline]
    pub fn take_spare(&mut self) -> Option<S> {
        self.pool.pop()
    }
}
