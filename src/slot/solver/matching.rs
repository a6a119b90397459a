//! Which values a group's empty members can take in a perfect matching to a multiset of
//! values (a content less the placed values): the global cardinality constraint's domain
//! filter, on the value graph.
//!
//! Places of one value are alike, so the matching is kept per value with its count, not
//! per place: augmenting paths visit values (Kuhn's algorithm with capacities), and the
//! alternating cycles that tell which other pairs some perfect matching holds (Berge) run
//! over the distinct values left, two for a row of a binary puzzle instead of its eight
//! places.

use smallvec::SmallVec;

use super::super::mask::Mask;

/// A matching of empty members to the distinct values left, each value taking as many
/// members as it is left times.
pub(super) struct Matching {
    /// The distinct values left, increasing.
    values: SmallVec<[u8; 16]>,
    /// Per distinct value, how many members it takes: the times it is left.
    capacity: SmallVec<[u32; 16]>,
    /// Per distinct value, how many members the matching gives it so far.
    filled: SmallVec<[u32; 16]>,
    /// Per member, its candidates as a set of indexes into `values`.
    candidates: SmallVec<[u128; 16]>,
    /// Per member, the index of the value it is matched to.
    at: SmallVec<[usize; 16]>,
    /// The values an augmenting path has visited.
    visited: u128,
}

/// No value yet.
const NONE: usize = usize::MAX;

impl Matching {
    pub(super) fn new() -> Matching {
        Matching {
            values: SmallVec::new(),
            capacity: SmallVec::new(),
            filled: SmallVec::new(),
            candidates: SmallVec::new(),
            at: SmallVec::new(),
            visited: 0,
        }
    }

    /// Whether every member (its candidates in `empties`) can take one of the values of
    /// `left` (increasing, as many as members; a value repeated is as many places), no
    /// place taken twice. Leaves the matching for [`Matching::keep_every`].
    pub(super) fn complete<N: Mask>(&mut self, empties: &[(u32, N)], left: &[u8]) -> bool {
        debug_assert_eq!(empties.len(), left.len());
        self.values.clear();
        self.capacity.clear();
        for run in left.chunk_by(|a, b| a == b) {
            self.values.push(run[0]);
            self.capacity.push(run.len() as u32);
        }
        self.filled.clear();
        self.filled.resize(self.values.len(), 0);
        self.candidates.clear();
        self.candidates.extend(empties.iter().map(|&(_, c)| {
            let mut candidates = 0u128;
            for (v, &x) in self.values.iter().enumerate() {
                if !(c & N::bit(u32::from(x))).is_zero() {
                    candidates |= 1 << v;
                }
            }
            candidates
        }));
        self.at.clear();
        self.at.resize(empties.len(), NONE);
        (0..empties.len()).all(|i| {
            self.visited = 0;
            self.augment(i)
        })
    }

    /// Kuhn's step: finds member `i` a value, moving others along an alternating path.
    fn augment(&mut self, i: usize) -> bool {
        let mut options = self.candidates[i] & !self.visited;
        while options != 0 {
            let v = options.trailing_zeros() as usize;
            options &= options - 1;
            if self.visited >> v & 1 == 1 {
                // Visited by a path tried below since `options` was read.
                continue;
            }
            self.visited |= 1 << v;
            if self.filled[v] < self.capacity[v] {
                self.filled[v] += 1;
                self.at[i] = v;
                return true;
            }
            for j in 0..self.at.len() {
                if self.at[j] == v && self.augment(j) {
                    // `j` moved on: its place at `v` is `i`'s.
                    self.at[i] = v;
                    return true;
                }
            }
        }
        false
    }

    /// Adds to `keep` (per member) every value some perfect matching gives it, given the
    /// one [`Matching::complete`] found: member `i` can take value `v` when `v` is its own,
    /// or when some member at `v` can move on, and so on, to `i`'s value (an alternating
    /// cycle; every place being taken, no path ends at a free one).
    pub(super) fn keep_every<N: Mask>(&self, keep: &mut [N]) {
        let n = self.values.len();
        // reach[v]: the values some chain of moves from `v` arrives at, a move being "a
        // member at this value can take that one".
        let mut reach: SmallVec<[u128; 16]> = SmallVec::from_elem(0, n);
        for (&v, &candidates) in self.at.iter().zip(&self.candidates) {
            reach[v] |= candidates & !(1 << v);
        }
        // Warshall's closure over bit rows.
        for m in 0..n {
            for v in 0..n {
                if reach[v] >> m & 1 == 1 {
                    reach[v] |= reach[m];
                }
            }
        }
        for ((kept, &own), &candidates) in keep.iter_mut().zip(&self.at).zip(&self.candidates) {
            let mut options = candidates;
            while options != 0 {
                let v = options.trailing_zeros() as usize;
                options &= options - 1;
                if v == own || reach[v] >> own & 1 == 1 {
                    *kept |= N::bit(u32::from(self.values[v]));
                }
            }
        }
    }
}
