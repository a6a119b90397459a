//! The shape of a NAC's blocking relation, which decides its hubs: a group node that
//! factors it exactly, or cells that fall into cliques of mutual blocking.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::NodeId;

/// True when "c reaches h" joined with "h reaches d" gives exactly the NAC's (c, d) pairs
/// (`c`, `h`, `w`: positions in the match tuples).
pub fn factors(
    tuples: &[Vec<NodeId>],
    exact: &BTreeSet<(NodeId, NodeId)>,
    c: usize,
    h: usize,
    w: usize,
) -> bool {
    let mut by_hub: BTreeMap<NodeId, (BTreeSet<NodeId>, BTreeSet<NodeId>)> = BTreeMap::new();
    for t in tuples {
        let e = by_hub.entry(t[h]).or_default();
        e.0.insert(t[c]);
        e.1.insert(t[w]);
    }
    let mut joined = BTreeSet::new();
    for (cs, ds) in by_hub.values() {
        for &c in cs {
            for &d in ds {
                if c != d {
                    joined.insert((c, d));
                }
            }
        }
    }
    joined == *exact
}

/// The groups of slots when `pairs` (a slot blocking itself aside) is exactly "distinct
/// members of the same group", each group of two or more, in slot order.
pub fn cliques(pairs: &BTreeSet<(u32, u32)>) -> Option<Vec<Vec<u32>>> {
    let mut parent: BTreeMap<u32, u32> = BTreeMap::new();
    fn root(parent: &mut BTreeMap<u32, u32>, s: u32) -> u32 {
        let p = *parent.entry(s).or_insert(s);
        if p == s {
            return s;
        }
        let r = root(parent, p);
        parent.insert(s, r);
        r
    }
    let mut distinct = 0usize;
    for &(a, b) in pairs.iter().filter(|(a, b)| a != b) {
        distinct += 1;
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        parent.insert(ra.max(rb), ra.min(rb));
    }
    let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for s in parent.keys().copied().collect::<Vec<_>>() {
        let r = root(&mut parent, s);
        groups.entry(r).or_default().push(s);
    }
    let complete: usize = groups.values().map(|g| g.len() * (g.len() - 1)).sum();
    (distinct == complete && distinct > 0).then(|| groups.into_values().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every ordered pair of distinct members, and each member with itself.
    fn groups(gs: &[&[u32]]) -> BTreeSet<(u32, u32)> {
        gs.iter()
            .flat_map(|g| g.iter().flat_map(move |&a| g.iter().map(move |&b| (a, b))))
            .collect()
    }

    #[test]
    fn cliques_are_found_and_partial_ones_refused() {
        let pairs = groups(&[&[0, 1, 2], &[3, 5], &[4]]);
        assert_eq!(cliques(&pairs), Some(vec![vec![0, 1, 2], vec![3, 5]]));
        // A path 0 - 1 - 2 (anti-knight-like: not transitive).
        let path: BTreeSet<(u32, u32)> = [(0, 1), (1, 0), (1, 2), (2, 1)].into_iter().collect();
        assert_eq!(cliques(&path), None);
        // One direction only.
        let one_way: BTreeSet<(u32, u32)> = [(0, 1)].into_iter().collect();
        assert_eq!(cliques(&one_way), None);
        // Nothing but self-blocking.
        assert_eq!(cliques(&groups(&[&[7]])), None);
    }

    #[test]
    fn a_group_node_factors_only_the_pairs_it_joins() {
        let n = NodeId::from_index;
        // Tuples (c, g, d): cells 0 and 1 in group 10, cell 2 alone in group 11.
        let tuples = vec![
            vec![n(0), n(10), n(1)],
            vec![n(1), n(10), n(0)],
            vec![n(2), n(11), n(2)],
        ];
        let exact: BTreeSet<(NodeId, NodeId)> = [(n(0), n(1)), (n(1), n(0)), (n(2), n(2))]
            .into_iter()
            .collect();
        // The join leaves out (2, 2): a cell never blocks itself through its group.
        assert!(!factors(&tuples, &exact, 0, 1, 2));
        let exact: BTreeSet<(NodeId, NodeId)> = [(n(0), n(1)), (n(1), n(0))].into_iter().collect();
        let tuples = &tuples[..2];
        assert!(factors(tuples, &exact, 0, 1, 2));
        // With the witness as its own hub the pairs are rebuilt one by one.
        assert!(factors(tuples, &exact, 0, 2, 2));
    }
}
