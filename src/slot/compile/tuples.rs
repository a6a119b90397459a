//! Match tuples of one width stored in one flat buffer, and grouped by their left-side
//! part: the slot compiler lists thousands per NAC for each puzzle of a layered batch,
//! where an allocation per tuple, or per left side, would be most of its cost.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

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

    /// How many nodes each tuple holds.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The `i`-th tuple added.
    pub fn get(&self, i: usize) -> &[NodeId] {
        &self.flat[i * self.width..(i + 1) * self.width]
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

/// A NAC's matches grouped by their left-side part (their first `lhs_len` nodes), all in
/// one buffer: each left side's matches together, in the order they were added.
#[derive(Debug)]
pub struct ByLeftSide {
    width: usize,
    flat: Vec<NodeId>,
    /// Per left side, its number.
    index: LeftSides,
    /// Left side `k`'s tuples are `starts[k]..starts[k + 1]` (by tuple index) in `flat`.
    starts: Vec<u32>,
}

/// The numbers of a [`ByLeftSide`]'s left sides.
#[derive(Debug)]
enum LeftSides {
    /// Left sides of one node (a cell), the most common: per node index, the left side's
    /// number plus one (0 where the node is none), read without hashing: hashing was about
    /// half of grouping a thermometer line's matches and looking them up.
    ByNode(Vec<u32>),
    /// Left sides of any other length; those of one or two nodes (a cell and its value
    /// node) are keys without allocation.
    Hashed(FxHashMap<SmallVec<[NodeId; 2]>, u32>),
}

impl LeftSides {
    /// No left side yet, for `rows` matches whose left sides are `lhs_len` nodes long.
    fn new(all: &Tuples, lhs_len: usize, rows: usize) -> LeftSides {
        if lhs_len == 1 {
            let end = all.iter().map(|t| t[0].index() + 1).max().unwrap_or(0);
            return LeftSides::ByNode(vec![0; end]);
        }
        // Sized for a left side per match, at most a grid's worth: growing the map by
        // doubling was most of the grouping's cost.
        LeftSides::Hashed(FxHashMap::with_capacity_and_hasher(
            rows.min(1 << 12),
            Default::default(),
        ))
    }

    /// The number of left side `lhs`, `next` where it has none yet (then it is given it).
    fn number(&mut self, lhs: &[NodeId], next: u32) -> u32 {
        match self {
            LeftSides::ByNode(of) => {
                let k = &mut of[lhs[0].index()];
                if *k == 0 {
                    *k = next + 1;
                }
                *k - 1
            }
            LeftSides::Hashed(index) => *index.entry(SmallVec::from_slice(lhs)).or_insert(next),
        }
    }

    /// The number of left side `lhs`, if it has one.
    fn get(&self, lhs: &[NodeId]) -> Option<u32> {
        match self {
            LeftSides::ByNode(of) => {
                debug_assert_eq!(lhs.len(), 1);
                of.get(lhs[0].index()).and_then(|&k| k.checked_sub(1))
            }
            LeftSides::Hashed(index) => index.get(lhs).copied(),
        }
    }
}

impl ByLeftSide {
    /// Groups `all`'s tuples by their first `lhs_len` nodes, keeping their order within
    /// each group: a counting sort, two passes and no comparison.
    pub fn group(all: &Tuples, lhs_len: usize) -> ByLeftSide {
        let width = all.width;
        let rows = all.flat.len() / width.max(1);
        let mut index = LeftSides::new(all, lhs_len, rows);
        // Per tuple its left side's number; per left side its count.
        let mut of: Vec<u32> = Vec::with_capacity(rows);
        let mut counts: Vec<u32> = Vec::with_capacity(rows.min(1 << 12));
        // The matcher binds the left side first, so one left side's matches mostly come
        // together: the number of the match before is tried without hashing.
        let mut last: Option<(&[NodeId], u32)> = None;
        for t in all.iter() {
            let lhs = &t[..lhs_len];
            let k = match last {
                Some((before, k)) if before == lhs => k,
                _ => {
                    let next = counts.len() as u32;
                    let k = index.number(lhs, next);
                    if k == next {
                        counts.push(0);
                    }
                    k
                }
            };
            last = Some((lhs, k));
            counts[k as usize] += 1;
            of.push(k);
        }
        let mut starts = Vec::with_capacity(counts.len() + 1);
        starts.push(0);
        for c in &counts {
            starts.push(starts[starts.len() - 1] + c);
        }
        // Each left side's next free place, from its start.
        let mut next = counts;
        let groups = next.len();
        next.copy_from_slice(&starts[..groups]);
        let mut flat = vec![NodeId::from_index(0); all.flat.len()];
        for (t, &k) in all.iter().zip(&of) {
            let at = next[k as usize] as usize * width;
            flat[at..at + width].copy_from_slice(t);
            next[k as usize] += 1;
        }
        ByLeftSide {
            width,
            flat,
            index,
            starts,
        }
    }

    /// The matches whose left side is `lhs`, in the order added (none when it has none).
    pub fn get(&self, lhs: &[NodeId]) -> std::slice::ChunksExact<'_, NodeId> {
        let w = self.width.max(1);
        let (from, to) = match self.index.get(lhs) {
            Some(k) => (self.starts[k as usize], self.starts[k as usize + 1]),
            None => (0, 0),
        };
        self.flat[from as usize * w..to as usize * w].chunks_exact(w)
    }

    /// How many nodes each match holds.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Every match, left side by left side.
    pub fn all(&self) -> std::slice::ChunksExact<'_, NodeId> {
        self.flat.chunks_exact(self.width.max(1))
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

    /// Grouped by the first node (numbered by node) or the first two (hashed), each group
    /// in the order added; a left side without matches has none.
    #[test]
    fn matches_grouped_by_left_side_keep_their_order() {
        let n = NodeId::from_index;
        let mut t = Tuples::new(3);
        for (a, b, c) in [
            (5, 1, 9),
            (2, 7, 7),
            (5, 0, 3),
            (2, 1, 1),
            (5, 1, 2),
            (4, 4, 4),
        ] {
            t.push(&[n(a), n(b), n(c)]);
        }
        let grouped = ByLeftSide::group(&t, 1);
        let rows = |lhs: usize| -> Vec<Vec<usize>> {
            grouped
                .get(&[n(lhs)])
                .map(|t| t.iter().map(|x| x.index()).collect())
                .collect()
        };
        assert_eq!(rows(5), [[5, 1, 9], [5, 0, 3], [5, 1, 2]]);
        assert_eq!(rows(2), [[2, 7, 7], [2, 1, 1]]);
        assert_eq!(rows(4), [[4, 4, 4]]);
        assert!(rows(3).is_empty());
        // Past every left side's node.
        assert!(rows(9).is_empty());
        assert_eq!(grouped.all().count(), 6);
        let by_two = ByLeftSide::group(&t, 2);
        assert_eq!(by_two.get(&[n(5), n(1)]).count(), 2);
        assert_eq!(by_two.get(&[n(5), n(0)]).count(), 1);
    }
}
