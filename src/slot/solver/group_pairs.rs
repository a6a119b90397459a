//! A group's contents laid out member by member: where hubs relate members of one group
//! other than by equal values (a thermometer's cells along a row whose count is given), the
//! values each empty member takes in some filling that respects both a content and those
//! relations. Contents alone know which values a group ends with, not where they go.

use smallvec::SmallVec;

use super::super::group::{Contents, Group};
use super::super::mask::Mask;

/// The most members placed in one search: past it the group keeps what its contents gave.
const MAX_STEPS: usize = 1 << 14;

/// The relations to check as one empty member is placed: (other position, table, whether
/// the other member's value blocks this one's).
type Checks = SmallVec<[(u16, u32, bool); 4]>;

/// One group's search: its members' values as far as placed, and what each empty member
/// was seen to take.
struct Layout<'a, M: Mask> {
    table: &'a [M],
    d: usize,
    contents: &'a Contents,
    /// Per member position, its value (`None` while empty and not yet placed here).
    held: SmallVec<[Option<u8>; 16]>,
    /// Per value, how many members hold it, and the most any content holds.
    count: SmallVec<[u8; 16]>,
    most: SmallVec<[u8; 16]>,
    /// The empty members' positions, in the order they are placed.
    order: &'a [usize],
    /// Per empty member (by its place in `order`), what to check once it is placed.
    checks: SmallVec<[Checks; 16]>,
    /// Per empty member, its candidates, and the values some complete layout gave it.
    cands: &'a [u128],
    seen: SmallVec<[u128; 16]>,
    steps: usize,
}

impl<M: Mask> Layout<'_, M> {
    /// Whether `x` in the `k`-th empty member respects every relation to the members placed.
    fn respects(&self, k: usize, x: u8) -> bool {
        self.checks[k].iter().all(|&(other, t, from_other)| {
            let y = self.held[usize::from(other)].expect("placed before");
            let (row, blocked) = if from_other { (y, x) } else { (x, y) };
            self.table[t as usize * self.d + usize::from(row)] & M::bit(u32::from(blocked))
                == M::ZERO
        })
    }

    /// Places the empty members from the `k`-th on; false once every candidate is seen or
    /// the steps run out (nothing more to learn).
    fn place(&mut self, k: usize) -> bool {
        if k == self.order.len() {
            let mut content: SmallVec<[u8; 16]> = SmallVec::new();
            for (x, &n) in self.count.iter().enumerate() {
                content.extend(std::iter::repeat_n(x as u8, usize::from(n)));
            }
            if self.contents.lists().any(|l| l == &content[..]) {
                for (s, &at) in self.seen.iter_mut().zip(self.order) {
                    *s |= 1u128 << self.held[at].expect("placed");
                }
            }
            return self.seen.iter().zip(self.cands).any(|(s, c)| s != c);
        }
        let at = self.order[k];
        let mut left = self.cands[k];
        while left != 0 {
            let x = left.trailing_zeros() as u8;
            left &= left - 1;
            self.steps += 1;
            if self.steps > MAX_STEPS {
                return false;
            }
            let xi = usize::from(x);
            if self.count[xi] >= self.most[xi] || !self.respects(k, x) {
                continue;
            }
            self.held[at] = Some(x);
            self.count[xi] += 1;
            let more = self.place(k + 1);
            self.count[xi] -= 1;
            self.held[at] = None;
            if !more {
                return false;
            }
        }
        true
    }
}

/// Narrows `keep` (per empty member of `group`, in member order, its candidates) to the
/// values some layout of the group takes: each member a value, a content of `contents`,
/// no pair of [`Group::pairs`] blocked (`table` as the solver's, `d` rows each). `held`:
/// per member, its value where filled. Left as it is when the search runs out of steps.
pub(super) fn supported_in_place<M: Mask>(
    table: &[M],
    d: usize,
    group: &Group,
    contents: &Contents,
    held: &[Option<u8>],
    keep: &mut [u128],
) {
    let order: SmallVec<[usize; 16]> = (0..held.len()).filter(|&p| held[p].is_none()).collect();
    debug_assert_eq!(order.len(), keep.len());
    // Where each member is placed: filled members before every empty one.
    let mut rank: SmallVec<[usize; 16]> = SmallVec::from_elem(0, held.len());
    for (k, &p) in order.iter().enumerate() {
        rank[p] = k + 1;
    }
    let mut checks: SmallVec<[Checks; 16]> = SmallVec::from_elem(SmallVec::new(), order.len());
    for &(i, j, t) in &group.pairs {
        let (ri, rj) = (rank[usize::from(i)], rank[usize::from(j)]);
        // Checked when the later of the two is placed; two filled members were checked
        // when they were filled.
        if ri > rj {
            checks[ri - 1].push((j, t, false));
        } else if rj > ri {
            checks[rj - 1].push((i, t, true));
        }
    }
    let end = contents.end();
    let mut most: SmallVec<[u8; 16]> = SmallVec::from_elem(0, end);
    for list in contents.lists() {
        for run in list.chunk_by(|a, b| a == b) {
            let m = &mut most[usize::from(run[0])];
            *m = (*m).max(run.len() as u8);
        }
    }
    let mut count: SmallVec<[u8; 16]> = SmallVec::from_elem(0, end);
    for &x in held.iter().flatten() {
        match count.get_mut(usize::from(x)) {
            Some(n) => *n += 1,
            None => return keep.fill(0),
        }
    }
    let below_end = if end >= 128 { !0 } else { (1u128 << end) - 1 };
    let cands: SmallVec<[u128; 16]> = keep.iter().map(|&c| c & below_end).collect();
    let mut layout = Layout::<M> {
        table,
        d,
        contents,
        held: held.iter().copied().collect(),
        count,
        most,
        order: &order,
        checks,
        cands: &cands,
        seen: SmallVec::from_elem(0, order.len()),
        steps: 0,
    };
    let finished = layout.place(0);
    let all_seen = layout.seen.iter().zip(&cands).all(|(s, c)| s == c);
    if finished || all_seen {
        keep.copy_from_slice(&layout.seen);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against every assignment of the empty members: on random groups of up to five
    /// members over three values, random contents, relations, fillings and candidates, a
    /// value is kept exactly when some assignment within the candidates has a listed
    /// content and blocks no pair.
    #[test]
    fn kept_values_are_those_of_some_layout() {
        let mut below = crate::slot::xorshift(0x7061_6972_7331);
        let d = 3usize;
        let mut narrowed = 0;
        for _ in 0..3000 {
            let n = 2 + below(4) as usize;
            // Contents: a random choice among the multisets of n values.
            let lists: Vec<Vec<u8>> = crate::slot::group::multisets(0b111, 0, n)
                .expect("few")
                .into_iter()
                .filter(|_| below(3) == 0)
                .collect();
            if lists.is_empty() {
                continue;
            }
            let contents = Contents::new(n, lists);
            // Two random tables and pairs over them.
            let table: Vec<u16> = (0..2 * d).map(|_| below(8) as u16).collect();
            let mut pairs = Vec::new();
            for i in 0..n as u16 {
                for j in 0..n as u16 {
                    if i != j && below(4) == 0 {
                        pairs.push((i, j, below(2) as u32));
                    }
                }
            }
            let group = Group {
                nac: 0,
                members: (0..n as u32).collect(),
                statics: Vec::new(),
                feasible: None,
                pairs,
            };
            let held: Vec<Option<u8>> = (0..n)
                .map(|_| (below(3) == 0).then(|| below(d as u64) as u8))
                .collect();
            let empty: Vec<usize> = (0..n).filter(|&p| held[p].is_none()).collect();
            if empty.is_empty() {
                continue;
            }
            let cands: Vec<u128> = empty.iter().map(|_| 1 + below(7) as u128).collect();
            let mut keep = cands.clone();
            supported_in_place(&table, d, &group, &contents, &held, &mut keep);
            // Every assignment of the empty members, by brute force.
            let mut want = vec![0u128; empty.len()];
            for code in 0..d.pow(empty.len() as u32) {
                let mut vals = held.clone();
                let mut within = true;
                for (k, &p) in empty.iter().enumerate() {
                    let x = (code / d.pow(k as u32) % d) as u8;
                    within &= cands[k] >> x & 1 == 1;
                    vals[p] = Some(x);
                }
                let vals: Vec<u8> = vals.into_iter().map(|v| v.expect("all set")).collect();
                let mut sorted = vals.clone();
                sorted.sort_unstable();
                let listed = contents.lists().any(|l| l == &sorted[..]);
                // Pairs of two filled members are not checked again: the solver's hubs
                // kept them apart when they were filled.
                if within && listed && !blocked_beside_empty(&group, &held, &vals, &table, d) {
                    for (k, &p) in empty.iter().enumerate() {
                        want[k] |= 1 << vals[p];
                    }
                }
            }
            assert_eq!(
                keep, want,
                "{group:?} {contents:?} held {held:?} cands {cands:?} table {table:?}"
            );
            narrowed += usize::from(keep != cands);
        }
        assert!(narrowed > 300, "only {narrowed} cases narrowed");
    }

    /// Whether some pair with an empty member is blocked.
    fn blocked_beside_empty(
        group: &Group,
        held: &[Option<u8>],
        vals: &[u8],
        table: &[u16],
        d: usize,
    ) -> bool {
        group.pairs.iter().any(|&(i, j, t)| {
            let (i, j) = (usize::from(i), usize::from(j));
            (held[i].is_none() || held[j].is_none())
                && table[t as usize * d + usize::from(vals[i])] >> vals[j] & 1 == 1
        })
    }
}
