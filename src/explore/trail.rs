//! The paths of a depth-first walk's states: for each state taken from the stack, the
//! child numbers that lead to it from where the walk began, kept with O(1) work per state
//! from how many children each expansion pushed.
//!
//! A walk takes states in pre-order, so the states still on the stack when it stops are
//! children of the nodes on the current path; their paths follow without being stored.
//! A distributed run hands such paths to other workers, which rebuild a subtree's root by
//! replaying its path from the start (see `replay`, built with the `distributed` feature).

#[cfg(any(feature = "distributed", test))]
use super::{frontier::Frontier, space::Space, successors::Successors};

/// Where a depth-first walk is.
#[derive(Debug, Default)]
pub struct Trail {
    /// The path of the state taken last.
    path: Vec<u32>,
    /// Per node on that path (the start first): the number of its next child to be taken,
    /// and how many of its children are still on the stack.
    open: Vec<(u32, u32)>,
    begun: bool,
}

impl Trail {
    /// A state was taken from the stack: its path.
    pub fn take(&mut self) -> &[u32] {
        if !self.begun {
            self.begun = true;
            return &self.path;
        }
        while self.open.last().is_some_and(|&(_, left)| left == 0) {
            self.open.pop();
        }
        let depth = self.open.len();
        let (next, left) = self
            .open
            .last_mut()
            .expect("a state taken after the start has a parent with children left");
        self.path.truncate(depth - 1);
        self.path.push(*next);
        *next += 1;
        *left -= 1;
        &self.path
    }

    /// The state taken last pushed `children` states onto the stack.
    pub fn expanded(&mut self, children: usize) {
        self.open.push((0, children as u32));
    }

    /// The path of the state taken last.
    pub fn path(&self) -> &[u32] {
        &self.path
    }
}

#[cfg(any(feature = "distributed", test))]
/// The state `path` leads to from `start`: each number picks a child in the order the
/// space makes them (the order a walk pushes them). `None` when a number has no child.
pub fn replay<S: Space>(space: &S, start: &S::State, path: &[u32]) -> Option<S::State> {
    let mut state = start.clone();
    let mut scratch = S::Scratch::default();
    let mut pool = Frontier::new(super::config::Order::Dfs);
    for &i in path {
        let mut succ = Successors::collect(&mut pool);
        space.expand(&state, &mut scratch, &mut succ);
        state = succ.into_items().into_iter().nth(i as usize)?;
    }
    Some(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A walk of a tree whose nodes above depth 3 have 2 to 4 children (by their path):
    /// the paths `take` gives are the pre-order paths.
    #[test]
    fn paths_follow_a_preorder_walk() {
        // Pre-order with a stack of (depth, path), children pushed last-first.
        let mut stack = vec![(0usize, Vec::<u32>::new())];
        let mut trail = Trail::default();
        let mut seen = Vec::new();
        while let Some((d, path)) = stack.pop() {
            assert_eq!(trail.take(), path.as_slice());
            seen.push(path.clone());
            let children = if d < 3 {
                (d as u32 + path.iter().sum::<u32>()) % 3 + 2
            } else {
                0
            };
            trail.expanded(children as usize);
            for c in (0..children).rev() {
                let mut p = path.clone();
                p.push(c);
                stack.push((d + 1, p));
            }
        }
        assert!(seen.len() > 10);
        let mut sorted = seen.clone();
        sorted.sort();
        assert_eq!(seen, sorted, "pre-order is lexicographic order of paths");
    }
}
