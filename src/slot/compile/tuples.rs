//! Match tuples of one width stored in one flat buffer: the slot compiler lists thousands
//! per NAC for each puzzle of a layered batch, where an allocation per tuple would be
//! most of its cost.

use crate::model::NodeId;

/// Tuples of `width` nodes each (a match's nodes, by variable), in one buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tuples {
    width: usize,
    flat: Vec<NodeId>,
}

impl Tuples {
    /// No tuples yet, each to hold `width` nodes.
    pub fn new(width: usize) -> Tuples {
        Tuples {
            width,
            flat: Vec::new(),
        }
    }

    /// [`Tuples::new`] with room for `tuples` tuples before it grows.
    pub fn with_room(width: usize, tuples: usize) -> Tuples {
        Tuples {
            width,
            flat: Vec::with_capacity(width * tuples),
        }
    }

    /// Adds `t`, which holds `width` nodes.
    pub fn push(&mut self, t: &[NodeId]) {
        // A tuple of another width would shift every later one.
        assert_eq!(t.len(), self.width, "a tuple of another width");
        self.flat.extend_from_slice(t);
    }

    /// Adds every tuple of `other` (of the same width).
    pub fn append(&mut self, other: &Tuples) {
        debug_assert!(other.flat.is_empty() || other.width == self.width);
        self.flat.extend_from_slice(&other.flat);
    }

    /// The tuples in the order added. (A width of zero holds no tuple.)
    pub fn iter(&self) -> std::slice::ChunksExact<'_, NodeId> {
        self.flat.chunks_exact(self.width.max(1))
    }

    /// Sorts the tuples and keeps each once.
    pub fn sort_dedup(&mut self) {
        let mut rows: Vec<&[NodeId]> = self.iter().collect();
        rows.sort_unstable();
        rows.dedup();
        self.flat = rows.concat();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_sort_and_keep_each_once() {
        let n = NodeId::from_index;
        let mut t = Tuples::new(2);
        for (a, b) in [(3, 1), (0, 2), (3, 1), (0, 1)] {
            t.push(&[n(a), n(b)]);
        }
        let mut more = Tuples::new(2);
        more.push(&[n(0), n(2)]);
        t.append(&more);
        t.sort_dedup();
        let rows: Vec<&[NodeId]> = t.iter().collect();
        assert_eq!(rows, [&[n(0), n(1)][..], &[n(0), n(2)], &[n(3), n(1)]]);
    }
}
