//! The shape of a NAC's blocking relation, which decides its hubs: a group node that
//! factors it exactly, or cells that fall into cliques of mutual blocking.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::model::NodeId;

/// True when "c reaches h" joined with "h reaches d" gives exactly the NAC's (c, d) pairs
/// (`c`, `h`, `w`: positions in the match tuples; `exact`: the (c, w) pairs of these
/// same tuples).
///
/// Every tuple's own pair is in its hub's join, so the join covers `exact` but for a cell
/// paired with itself (the join leaves those out): it is exact when `exact` has no such
/// pair and each hub's join stays inside `exact`.
pub fn factors<'a>(
    tuples: impl IntoIterator<Item = &'a [NodeId]>,
    exact: &FxHashSet<(NodeId, NodeId)>,
    c: usize,
    h: usize,
    w: usize,
) -> bool {
    if exact.iter().any(|(a, b)| a == b) {
        return false;
    }
    // Each hub's cells and witnesses, in the order hubs are first met.
    let mut index: FxHashMap<NodeId, usize> = FxHashMap::default();
    let mut hubs: Vec<(Vec<NodeId>, Vec<NodeId>)> = Vec::new();
    for t in tuples {
        let i = *index.entry(t[h]).or_insert_with(|| {
            hubs.push(Default::default());
            hubs.len() - 1
        });
        hubs[i].0.push(t[c]);
        hubs[i].1.push(t[w]);
    }
    hubs.iter_mut().all(|(cs, ds)| {
        for list in [&mut *cs, &mut *ds] {
            list.sort_unstable();
            list.dedup();
        }
        cs.iter()
            .all(|&c| ds.iter().all(|&d| c == d || exact.contains(&(c, d))))
    })
}

/// The groups of slots when `pairs` (sorted, each pair once; a slot blocking itself aside) is
/// exactly "distinct members of the same group", each group of two or more, in slot order.
pub fn cliques(pairs: &[(u32, u32)]) -> Option<Vec<Vec<u32>>> {
    // A relation of cliques is symmetric: most that are not (a bar to the right-hand
    // neighbour, an arrow) fail here, before anything is allocated.
    if pairs
        .iter()
        .any(|&(a, b)| a != b && pairs.binary_search(&(b, a)).is_err())
    {
        return None;
    }
    let distinct: Vec<(u32, u32)> = pairs.iter().copied().filter(|(a, b)| a != b).collect();
    let mut slots: Vec<u32> = distinct.iter().flat_map(|&(a, b)| [a, b]).collect();
    slots.sort_unstable();
    slots.dedup();
    // Each pair by positions in `slots`.
    let at = |s: u32| slots.binary_search(&s).expect("listed");
    let placed: Vec<(usize, usize)> = distinct.iter().map(|&(a, b)| (at(a), at(b))).collect();
    // The members of a clique pair with as many others each: most relations that are
    // not cliques (a chain of neighbours, a knight's move) fail this before any union.
    let mut degree = vec![0usize; slots.len()];
    for &(a, _) in &placed {
        degree[a] += 1;
    }
    if placed.iter().any(|&(a, b)| degree[a] != degree[b]) {
        return None;
    }
    // Union-find over positions in `slots`, each class rooted at its least slot.
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut parent: Vec<usize> = (0..slots.len()).collect();
    for &(a, b) in &placed {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    let mut groups: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
    for (i, &s) in slots.iter().enumerate() {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(s);
    }
    let complete: usize = groups.values().map(|g| g.len() * (g.len() - 1)).sum();
    (distinct.len() == complete && !distinct.is_empty()).then(|| groups.into_values().collect())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// Every ordered pair of distinct members, and each member with itself.
    fn groups(gs: &[&[u32]]) -> BTreeSet<(u32, u32)> {
        gs.iter()
            .flat_map(|g| g.iter().flat_map(move |&a| g.iter().map(move |&b| (a, b))))
            .collect()
    }

    #[test]
    fn cliques_are_found_and_partial_ones_refused() {
        let listed = |set: BTreeSet<(u32, u32)>| set.into_iter().collect::<Vec<_>>();
        let pairs = listed(groups(&[&[0, 1, 2], &[3, 5], &[4]]));
        assert_eq!(cliques(&pairs), Some(vec![vec![0, 1, 2], vec![3, 5]]));
        // A path 0 - 1 - 2 (anti-knight-like: not transitive).
        assert_eq!(cliques(&[(0, 1), (1, 0), (1, 2), (2, 1)]), None);
        // One direction only.
        assert_eq!(cliques(&[(0, 1)]), None);
        // Nothing but self-blocking.
        assert_eq!(cliques(&listed(groups(&[&[7]]))), None);
    }

    #[test]
    fn a_group_node_factors_only_the_pairs_it_joins() {
        let n = NodeId::from_index;
        // Tuples (c, g, d): cells 0 and 1 in group 10, cell 2 alone in group 11.
        let tuples = [
            [n(0), n(10), n(1)],
            [n(1), n(10), n(0)],
            [n(2), n(11), n(2)],
        ];
        let exact = FxHashSet::from_iter([(n(0), n(1)), (n(1), n(0)), (n(2), n(2))]);
        // The join leaves out (2, 2): a cell never blocks itself through its group.
        assert!(!factors(tuples.iter().map(|t| &t[..]), &exact, 0, 1, 2));
        let exact = FxHashSet::from_iter([(n(0), n(1)), (n(1), n(0))]);
        let tuples = &tuples[..2];
        assert!(factors(tuples.iter().map(|t| &t[..]), &exact, 0, 1, 2));
        // With the witness as its own hub the pairs are rebuilt one by one.
        assert!(factors(tuples.iter().map(|t| &t[..]), &exact, 0, 2, 2));
    }

    /// The definition: the join of "c reaches h" and "h reaches d", cells paired with
    /// themselves left out, equals the pairs.
    fn factors_by_definition(tuples: &[Vec<NodeId>], h: usize) -> bool {
        let exact: BTreeSet<(NodeId, NodeId)> = tuples.iter().map(|t| (t[0], t[2])).collect();
        let mut by_hub: BTreeMap<NodeId, (BTreeSet<NodeId>, BTreeSet<NodeId>)> = BTreeMap::new();
        for t in tuples {
            let e = by_hub.entry(t[h]).or_default();
            e.0.insert(t[0]);
            e.1.insert(t[2]);
        }
        let joined: BTreeSet<(NodeId, NodeId)> = by_hub
            .values()
            .flat_map(|(cs, ds)| {
                cs.iter()
                    .flat_map(move |&c| ds.iter().map(move |&d| (c, d)))
            })
            .filter(|(c, d)| c != d)
            .collect();
        joined == exact
    }

    #[test]
    fn factoring_agrees_with_its_definition_on_random_relations() {
        let n = NodeId::from_index;
        let mut below = crate::slot::xorshift(0x2545_f491_4f6c_dd1d);
        let mut next = |n: u64| below(n) as usize;
        let (mut yes, mut no) = (0, 0);
        for _ in 0..3000 {
            // Cells 0..6, hubs 10..13; groups built whole, then some tuples dropped or
            // added, so that both answers come up.
            let mut tuples = Vec::new();
            for hub in 10..10 + next(3) + 1 {
                let members: Vec<usize> = (0..6).filter(|_| next(2) == 0).collect();
                for &c in &members {
                    for &d in members.iter().filter(|&&d| d != c) {
                        tuples.push(vec![n(c), n(hub), n(d)]);
                    }
                }
            }
            for _ in 0..next(3) {
                if !tuples.is_empty() && next(2) == 0 {
                    tuples.swap_remove(next(tuples.len() as u64));
                } else {
                    tuples.push(vec![n(next(6)), n(10 + next(3)), n(next(6))]);
                }
            }
            for h in [1, 2] {
                let exact: FxHashSet<(NodeId, NodeId)> =
                    tuples.iter().map(|t| (t[0], t[2])).collect();
                let fast = factors(tuples.iter().map(Vec::as_slice), &exact, 0, h, 2);
                assert_eq!(
                    fast,
                    factors_by_definition(&tuples, h),
                    "{tuples:?} through {h}"
                );
                if fast {
                    yes += 1;
                } else {
                    no += 1;
                }
            }
        }
        assert!(yes > 500 && no > 500, "{yes} factored, {no} not");
    }
}
