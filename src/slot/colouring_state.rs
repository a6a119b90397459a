//! A state of a colouring run: the slot state, and the saturation, free degrees and walk the
//! colouring heuristics read, kept beside the state so picking a slot never rescans the graph.

use super::mask::Mask;
use super::solver::Work;

/// A state of a colouring run: the slot state, and what the heuristics read off the
/// colouring so far, kept up to date at each placement in O(degree).
#[derive(Debug, PartialEq, Eq)]
pub struct Colouring<M: Mask> {
    pub work: Work<M>,
    /// Per slot, the values its placed neighbours hold; its saturation is their number.
    pub(super) seen: Vec<M>,
    /// Per slot, its empty neighbours (its degree among the uncoloured).
    pub(super) free: Vec<u32>,
    /// The slots the walk placed, in order: a queue read from `head` for breadth-first
    /// walks, a stack for depth-first ones. Empty for foci that do not walk.
    pub(super) walk: Vec<u32>,
    pub(super) head: u32,
    /// This state's random stream (for `--value random`).
    pub(super) rng: u64,
}

impl<M: Mask> Clone for Colouring<M> {
    fn clone(&self) -> Self {
        Colouring {
            work: self.work.clone(),
            seen: self.seen.clone(),
            free: self.free.clone(),
            walk: self.walk.clone(),
            head: self.head,
            rng: self.rng,
        }
    }

    /// Reuses the buffers: every transition clones into a spent state.
    fn clone_from(&mut self, src: &Self) {
        self.work.clone_from(&src.work);
        self.seen.clone_from(&src.seen);
        self.free.clone_from(&src.free);
        self.walk.clone_from(&src.walk);
        self.head = src.head;
        self.rng = src.rng;
    }
}
