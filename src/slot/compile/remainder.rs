//! What a house leaves to the cells no group inside it covers: implied groups.
//!
//! A house is a hub whose d cells block each other on equal values over d values (a row of
//! a 9x9): every final state holds each value in it once. Where groups whose contents are
//! listed lie wholly inside it (killer cages), the house's other cells, its remainder, hold
//! the values those groups' contents leave: for a 9x9 row with two cages of sums 10 and 24,
//! the three other cells hold one of the sets of three the row's nine values less a cage
//! content of each make. Solvers of such puzzles call it the rule of 45. It is no rule of
//! the file but follows from them, so the remainder becomes a group of its own whose
//! contents are those sets: it takes candidates while the search runs, never blocks a
//! placement the rules allow, and turns itself off where the givens fill one of its groups
//! with a content the group's NAC would have refused had a rule filled it.

use std::sync::Arc;

use super::super::group::{Contents, Group};
use super::super::model::SlotModel;
use super::kept::Kept;
use crate::model::grouped;

/// The most partial choices of contents explored for one house: past it, its remainder
/// is left out.
const MAX_CHOICES: usize = 1 << 14;

/// The most remainders a thread keeps (each keeps its own: see `Kept`); past it they are
/// found again.
const MAX_KEPT: usize = 1 << 12;

/// Adds the remainder of each house that some listed groups lie wholly inside, where its
/// contents say more than "any values of the house".
pub(super) fn add_remainders(model: &mut SlotModel) {
    let d = model.d;
    if model.groups.is_empty() || d >= u128::BITS as usize {
        return;
    }
    // Each value once in a house's final cells: d cells, d values, none twice. That a
    // final state fills every cell holds wherever remainders act: group NACs reach the slot
    // engine only for rules that fill cells, and groups take candidates only where the
    // focus runs, which needs a final condition that every cell is filled.
    // Each table asked once; the cheap tests first (a killer's hubs are hundreds).
    let same = model.same_value_tables();
    let is_house = |h: &super::super::model::Hub| {
        h.writers.len() == d && same[h.table as usize] && h.writers == h.readers
    };
    let mut houses: Vec<&[u32]> = model
        .hubs
        .iter()
        .filter(|h| is_house(h))
        .map(|h| &h.writers[..])
        .collect();
    houses.sort_unstable();
    houses.dedup();
    // Per slot, the houses holding it, in one list: a group lies inside the houses all
    // its members share.
    let (start, held_by) = grouped(model.slots.len(), || {
        (houses.iter().enumerate()).flat_map(|(h, house)| house.iter().map(move |&s| (s, h as u32)))
    });
    let houses_of = |s: u32| &held_by[start[s as usize] as usize..start[s as usize + 1] as usize];
    // (house, group) for each listed group and each house holding all its members.
    let mut inside: Vec<(u32, u32)> = Vec::new();
    for (gi, g) in model.groups.iter().enumerate() {
        let Some((&first, others)) = g.members.split_first() else {
            continue;
        };
        if g.feasible.is_none() || !g.implied_by.is_empty() {
            continue;
        }
        for &h in houses_of(first) {
            if others.iter().all(|&m| houses_of(m).contains(&h)) {
                inside.push((h, gi as u32));
            }
        }
    }
    inside.sort_unstable();
    let mut implied = Vec::new();
    let (mut chosen, mut covered, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    for run in inside.chunk_by(|a, b| a.0 == b.0) {
        let house = houses[run[0].0 as usize];
        // Groups inside the house, pairwise apart (the first of overlapping ones).
        chosen.clear();
        covered.clear();
        for &(_, gi) in run {
            let g = &model.groups[gi as usize];
            if g.members.iter().all(|m| !covered.contains(m)) {
                chosen.push(gi);
                covered.extend_from_slice(&g.members);
            }
        }
        rest.clear();
        rest.extend(house.iter().copied().filter(|m| !covered.contains(m)));
        if chosen.is_empty() || rest.is_empty() {
            continue;
        }
        // A group over the same cells already says what it can.
        if model.groups.iter().any(|g| g.members == rest) {
            continue;
        }
        let listed: Option<Vec<Arc<Contents>>> = (chosen.iter())
            .map(|&gi| model.groups[gi as usize].feasible.clone())
            .collect();
        let Some(contents) = listed.and_then(|listed| remainder_of(listed, d)) else {
            continue;
        };
        // Two houses may leave the same cells (a row and a box): one group keeps what
        // both say, and stands down where either's groups do.
        if let Some(twin) = implied.iter_mut().find(|g: &&mut Group| g.members == rest) {
            let both = (twin.feasible.as_deref()).map(|c| Arc::new(c.intersect(&contents)));
            twin.feasible = both;
            twin.implied_by.extend_from_slice(&chosen);
            continue;
        }
        implied.push(Group {
            // A cage's NAC, never evaluated on the remainder: its contents are listed, and
            // `group_blocked` passes over a group implied by others.
            nac: model.groups[chosen[0] as usize].nac,
            members: rest.clone(),
            statics: Vec::new(),
            feasible: Some(contents),
            pairs: Vec::new(),
            implied_by: chosen.clone(),
        });
    }
    Arc::make_mut(&mut model.groups).extend(implied);
}

/// The contents of a house's remainder beside groups with the contents `listed`, in a
/// domain of `d` values; `None` where they are too many to find or say nothing (every set
/// of the remainder's size). Kept for the thread by the listings' addresses, as the
/// listings themselves are (see `group::feasible_contents`): a killer batch's houses hold
/// the same few cage sizes and sums. An entry holds its listings, so that no address is
/// reused while it is kept.
fn remainder_of(mut listed: Vec<Arc<Contents>>, d: usize) -> Option<Arc<Contents>> {
    type Key = (usize, Vec<usize>);
    type Remainder = (Vec<Arc<Contents>>, Option<Arc<Contents>>);
    static KEPT: Kept<Key, Remainder> = Kept::new(MAX_KEPT);
    listed.sort_unstable_by_key(|c| Arc::as_ptr(c) as usize);
    let key: Key = (d, listed.iter().map(|c| Arc::as_ptr(c) as usize).collect());
    if let Some(found) = KEPT.find(&key, |(_, found)| found.clone()) {
        return found;
    }
    // `add_remainders` leaves out domains of 128 values or more.
    let full = (1u128 << d) - 1;
    let size = d - listed.iter().map(|c| c.n).sum::<usize>();
    let sets: Vec<Vec<u128>> = (listed.iter())
        .map(|c| {
            // Inside a house a group's values differ.
            (c.masks.iter().copied())
                .filter(|m| m.count_ones() as usize == c.n && m & !full == 0)
                .collect()
        })
        .collect();
    let found = remainders(&sets, full)
        .map(|mut left| {
            left.sort_unstable();
            left.dedup();
            left
        })
        .filter(|left| (left.len() as u128) < binomial(d as u128, size as u128))
        .map(|left| Arc::new(Contents::of_sets(size, left)));
    KEPT.keep(key, (listed, found.clone()));
    found
}

/// The values `full` less one set of each of `sets`, the sets chosen pairwise disjoint:
/// every way the groups can fill their part of the house. Built group by group over the
/// distinct unions so far (at most "d choose k" of them, however many the choices);
/// `None` past [`MAX_CHOICES`] unions tried.
fn remainders(sets: &[Vec<u128>], full: u128) -> Option<Vec<u128>> {
    let mut used = vec![0u128];
    let mut tried = 0usize;
    for list in sets {
        let mut next = Vec::with_capacity(used.len() * list.len());
        for &u in &used {
            tried += list.len();
            if tried > MAX_CHOICES {
                return None;
            }
            next.extend(list.iter().filter(|&&s| s & u == 0).map(|&s| u | s));
        }
        next.sort_unstable();
        next.dedup();
        used = next;
    }
    Some(used.into_iter().map(|u| full & !u).collect())
}

/// n choose k, saturating.
fn binomial(n: u128, k: u128) -> u128 {
    (0..k.min(n)).fold(1u128, |c, i| c.saturating_mul(n - i) / (i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every way to take one set of each list, pairwise disjoint, by brute force.
    fn brute(sets: &[Vec<u128>], full: u128) -> Vec<u128> {
        let mut out = vec![0u128];
        for list in sets {
            out = out
                .iter()
                .flat_map(|&used| {
                    list.iter()
                        .filter(move |&&s| s & used == 0)
                        .map(move |&s| used | s)
                })
                .collect();
        }
        let mut left: Vec<u128> = out.into_iter().map(|u| full & !u).collect();
        left.sort_unstable();
        left.dedup();
        left
    }

    #[test]
    fn remainders_are_every_disjoint_choice() {
        let full = (1u128 << 9) - 1;
        // Sets of 1..9 summing to `sum`, of `n` values (values 0..8 stand for 1..9).
        let cage = |n: u32, sum: u32| -> Vec<u128> {
            (0..1u128 << 9)
                .filter(|m| m.count_ones() == n)
                .filter(|m| {
                    (0..9)
                        .filter(|x| m >> x & 1 == 1)
                        .map(|x| x + 1)
                        .sum::<u32>()
                        == sum
                })
                .collect()
        };
        let cases = [
            vec![cage(2, 10), cage(3, 24)],
            vec![cage(2, 3), cage(2, 17), cage(3, 6)],
            vec![cage(4, 20), cage(4, 20)],
            vec![cage(1, 5), cage(2, 9), cage(2, 9), cage(3, 15)],
        ];
        for sets in &cases {
            let mut got = remainders(sets, full).expect("few choices");
            got.sort_unstable();
            got.dedup();
            assert_eq!(got, brute(sets, full));
        }
        // The 24 in three must be 7, 8, 9, and 10 in two then cannot use them: the three
        // cells left hold 6 values' sets, never one with 7, 8 or 9.
        let left = brute(&cases[0], full);
        assert!(!left.is_empty());
        assert!(left.iter().all(|m| m & (0b111 << 6) == 0));
        assert_eq!(binomial(9, 3), 84);
        assert_eq!(binomial(9, 0), 1);
    }
}
