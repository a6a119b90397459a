//! A group's contents laid out member by member: where hubs relate members of one group
//! other than by equal values (a thermometer's cells along a row whose count is given), the
//! values each empty member takes in some filling that respects both a content and those
//! relations (see [`crate::slot::layout`]). Contents alone know which values a group ends
//! with, not where they go.

use super::super::group::{Contents, Group};
use super::super::layout::{self, Admit};
use super::super::mask::Mask;

/// A filling is admitted when its values are a content; a value past the most any content
/// holds of it prunes.
struct ByContents<'a> {
    contents: &'a Contents,
    /// Per value, how many members hold it: an array, not a small vector, as it is read
    /// and written at every value the search tries.
    count: [u8; 128],
}

impl Admit for ByContents<'_> {
    fn may_add(&mut self, _: &[Option<u8>], _: usize, x: u8) -> bool {
        let x = usize::from(x);
        self.count[x] < self.contents.most()[x]
    }

    fn placed(&mut self, x: u8, on: bool) {
        let n = &mut self.count[usize::from(x)];
        if on {
            *n += 1;
        } else {
            *n -= 1;
        }
    }

    fn admits(&mut self, _: &[Option<u8>]) -> bool {
        // A content (sorted) whose every run of a value is as long as that value's count:
        // the counts add up to the group's size, as the content's length does, so no
        // value outside it is held.
        let count = &self.count;
        self.contents.lists().any(|l| {
            (l.chunk_by(|a, b| a == b))
                .all(|run| usize::from(count[usize::from(run[0])]) == run.len())
        })
    }
}

/// Narrows `keep` (per empty member of `group`, in member order, its candidates) to the
/// values some layout of the group takes: each member a value, a content of `contents`,
/// no pair of [`Group::pairs`] blocked (`table` as the solver's, `d` rows each). `held`:
/// per member, its value where filled. Left as it is when the search runs out of steps;
/// the result says whether it was narrowed exactly (then a second look finds nothing).
pub(super) fn supported_in_place<M: Mask>(
    table: &[M],
    d: usize,
    group: &Group,
    contents: &Contents,
    held: &[Option<u8>],
    keep: &mut [M],
) -> bool {
    let end = contents.end();
    let mut count = [0u8; 128];
    for &x in held.iter().flatten() {
        let x = usize::from(x);
        // A value no content holds: no layout.
        if x >= end {
            keep.fill(M::ZERO);
            return true;
        }
        count[x] += 1;
    }
    let below_end = M::from_u128(if end >= 128 { !0 } else { (1u128 << end) - 1 });
    for k in keep.iter_mut() {
        *k &= below_end;
    }
    let mut admit = ByContents { contents, count };
    layout::supported(table, d, &group.pairs, held, keep, &mut admit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slot::layout::tests::Case;

    /// Against every assignment of the empty members: on random groups of up to five
    /// members over three values, random contents, relations, fillings and candidates, a
    /// value is kept exactly when some assignment within the candidates has a listed
    /// content and blocks no pair with an empty member.
    #[test]
    fn kept_values_are_those_of_some_layout() {
        let mut below = crate::slot::xorshift(0x7061_6972_7331);
        let mut narrowed = 0;
        for _ in 0..3000 {
            let n = 2 + below(4) as usize;
            // Contents: a random choice among the multisets of n values.
            let lists: Vec<Vec<u8>> = crate::slot::group::multisets(0b111, 0, n)
                .expect("few")
                .into_iter()
                .filter(|_| below(3) == 0)
                .collect();
            let Some(case) = Case::random(n, &mut below) else {
                continue;
            };
            if lists.is_empty() {
                continue;
            }
            let contents = Contents::new(n, lists);
            let group = Group {
                nac: 0,
                members: (0..n as u32).collect(),
                statics: Vec::new(),
                feasible: None,
                pairs: case.pairs.clone(),
                implied_by: Vec::new(),
            };
            let mut keep = Case::narrow(&case.cands);
            // Small cases: the search finishes, and says it narrowed exactly.
            assert!(supported_in_place(
                &case.table,
                case.d,
                &group,
                &contents,
                &case.held,
                &mut keep,
            ));
            let keep: Vec<u128> = keep.iter().map(|k| k.to_u128()).collect();
            let want = case.kept(|vals| {
                let mut sorted: Vec<u8> = vals.iter().map(|v| v.expect("set")).collect();
                sorted.sort_unstable();
                contents.lists().any(|l| l == &sorted[..])
            });
            assert_eq!(
                keep, want,
                "{group:?} {contents:?} held {:?} cands {:?}",
                case.held, case.cands
            );
            narrowed += usize::from(keep != case.cands);
        }
        assert!(narrowed > 300, "only {narrowed} cases narrowed");
    }
}
