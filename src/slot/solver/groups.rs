//! Propagating NACs over a group's content (see [`crate::slot::group`]): a group whose
//! values differ keeps in each empty member only the values of some content it can still
//! end with; any other group drops the values its NAC blocks; a full group is judged once.
//!
//! A state's buffer holds, after the exactly-once words, a bitset of the groups to look at
//! (a member was placed or lost a candidate) and one of the groups already judged full.

use std::ops::Range;

use smallvec::SmallVec;

use super::super::group::{Contents, Group};
use super::super::mask::Mask;
use super::group_pairs::supported_in_place;
use super::matching::Matching;
use super::{low_bits, Tables, Work, WORD_BITS};

impl<M: Mask> Tables<M> {
    /// Where the bitset of groups to look at starts in a state's buffer; the bitset of
    /// groups judged full follows it.
    #[inline]
    fn groups_at<const W: usize>(&self) -> usize {
        self.lacks_at::<W>(0) + self.d
    }

    /// True when the grammar has NACs over a group's content.
    #[inline]
    pub fn has_groups(&self) -> bool {
        self.group_words != 0
    }

    #[inline]
    fn groups_of(&self, s: usize) -> &[u32] {
        &self.slot_groups[self.group_start[s] as usize..self.group_start[s + 1] as usize]
    }

    /// Marks the groups to be looked at as `y` is placed in `s` (called before the hubs
    /// take it): those holding `s`, and those holding an empty slot that loses a candidate
    /// by it. Groups whose members keep their candidates are left: propagating them again
    /// would find what it found before. Out of line: placing in grammars without groups
    /// stays as small as it was.
    #[inline(never)]
    pub(super) fn touch_groups_placing<const W: usize>(&self, w: &mut Work<M>, s: usize, y: u32) {
        self.touch_groups::<W>(w, s);
        if self.slot_info[s].equal_only {
            let words = self.words_of::<W>();
            self.touch_losing::<W>(w, y as usize, &self.peers[s * words..(s + 1) * words]);
            return;
        }
        for (h, row) in self.writes(s) {
            let mut add = self.table[row + y as usize] & !self.hub::<W>(w, h);
            while !add.is_zero() {
                let x = add.pop_first() as usize;
                self.touch_losing::<W>(w, x, self.readers::<W>(h));
            }
        }
    }

    /// Marks the groups holding the empty slots of `slots` (a slot bitset) that still
    /// have `x`.
    #[inline]
    fn touch_losing<const W: usize>(&self, w: &mut Work<M>, x: usize, slots: &[u64]) {
        let words = self.words_of::<W>();
        let open_at = self.open_at::<W>();
        for (j, &slots) in slots.iter().enumerate().take(words) {
            let mut lose = w.bits[x * words + j] & w.bits[open_at + j] & slots;
            while lose != 0 {
                let s = j * WORD_BITS + lose.trailing_zeros() as usize;
                lose &= lose - 1;
                self.touch_groups::<W>(w, s);
            }
        }
    }

    /// Marks the groups holding `s` to be looked at.
    #[inline]
    pub(super) fn touch_groups<const W: usize>(&self, w: &mut Work<M>, s: usize) {
        if self.group_words == 0 {
            return;
        }
        let at = self.groups_at::<W>();
        let watched = self.watch_start[s] as usize..self.watch_start[s + 1] as usize;
        for &g in &self.slot_watched[watched] {
            w.bits[at + g as usize / WORD_BITS] |= 1 << (g as usize % WORD_BITS);
        }
    }

    /// Marks the groups whose members are all filled in `w` (givens, which no NAC judged)
    /// as judged: a group's NAC only speaks of contents a rule completed.
    ///
    /// A house's remainder (a group implied by others) is settled too where the givens
    /// fill one of those others with a content outside its listing: that content no NAC
    /// judged, so what the remainder was derived from does not hold.
    pub fn settle_full_groups(&self, w: &mut Work<M>) {
        let at = self.groups_at::<{ super::DYN }>() + self.group_words;
        let full = |group: &Group| group.members.iter().all(|&m| w.vals[m as usize] != 0);
        let unjudged = |group: &Group| {
            full(group)
                && (group.feasible.as_deref()).is_some_and(|c| !holds_listed(c, group, &w.vals))
        };
        for (g, group) in self.groups.iter().enumerate() {
            let off = full(group)
                || (group.implied_by.iter()).any(|&o| unjudged(&self.groups[o as usize]));
            if off {
                w.bits[at + g / WORD_BITS] |= 1 << (g % WORD_BITS);
            }
        }
    }

    /// Whether a group NAC blocks placing `y` in `s`, exactly as the rule's NAC would.
    pub fn group_blocked(&self, w: &Work<M>, s: usize, y: u32) -> bool {
        let value = |m: u32| match w.vals[m as usize] {
            0 => None,
            v => Some(u16::from(v) - 1),
        };
        // A house's remainder is no rule's NAC: it never blocks a placement.
        self.groups_of(s).iter().any(|&g| {
            let group = &self.groups[g as usize];
            group.implied_by.is_empty()
                && self.group_nacs[group.nac as usize]
                    .blocks(group, s as u32, y as u16, &|_, m| value(m))
        })
    }

    /// Takes `x` from the candidates of empty slot `s`.
    #[inline]
    fn remove<const W: usize>(&self, w: &mut Work<M>, s: usize, x: usize) {
        let words = self.words_of::<W>();
        w.bits[x * words + s / WORD_BITS] &= !(1 << (s % WORD_BITS));
        // The places of `x` changed in the exactly-once hubs holding `s`.
        w.dirty_values |= M::bit(x as u32);
        self.touch_groups::<W>(w, s);
    }

    /// Propagates the groups marked to be looked at, a batch at a time: first those NACs
    /// make, then the house remainders, which narrow least often. Returns after the first
    /// batch that takes a candidate, so that the hubs' singles, cheaper, run before any
    /// group is looked at again (a killer 9x9 batch: 9 % fewer instructions than taking
    /// every group to its fixpoint first). `None` on a dead state (a full group its NAC
    /// blocks, or an empty member left without values); otherwise whether some candidate
    /// was taken. Kept out of line: grammars without groups never call it, and their
    /// propagation loop stays as small as it was.
    #[inline(never)]
    pub(super) fn propagate_groups<const W: usize>(&self, w: &mut Work<M>) -> Option<bool> {
        let first = self.first_remainder;
        Some(
            self.propagate_batch::<W>(w, 0..first)?
                || self.propagate_batch::<W>(w, first..self.groups.len())?,
        )
    }

    /// Propagates the marked groups of `range` once each. A batch that takes no candidate
    /// marks none: every group of `range` is then as propagated as it gets.
    fn propagate_batch<const W: usize>(
        &self,
        w: &mut Work<M>,
        range: Range<usize>,
    ) -> Option<bool> {
        let at = self.groups_at::<W>();
        let gw = self.group_words;
        let mut changed = false;
        for i in range.start / WORD_BITS..range.end.div_ceil(WORD_BITS) {
            // The bits of word `i` that `range` covers.
            let below = |n: usize| low_bits(n.saturating_sub(i * WORD_BITS));
            let covered = below(range.end) & !below(range.start);
            let mut todo = w.bits[at + i] & !w.bits[at + gw + i] & covered;
            w.bits[at + i] &= !covered;
            while todo != 0 {
                let g = i * WORD_BITS + todo.trailing_zeros() as usize;
                todo &= todo - 1;
                match self.propagate_group::<W>(w, g)? {
                    Some(look) => {
                        changed |= look.changed;
                        // Its own narrowing marked it again, but a second look finds
                        // nothing more: what a content (or the NAC, which reads placed
                        // values only) supports stays supported once the rest is taken,
                        // and so does what a layout search kept exactly. Not so where
                        // that search gave up, as it may succeed on a smaller group.
                        if look.changed && !look.inexact {
                            w.bits[at + i] &= !(1 << (g % WORD_BITS));
                        }
                    }
                    None => w.bits[at + gw + i] |= 1 << (g % WORD_BITS),
                }
            }
        }
        Some(changed)
    }

    /// One group: `None` when dead; `Some(None)` when full and allowed (judged for good);
    /// `Some(Some(look))` otherwise.
    fn propagate_group<const W: usize>(&self, w: &mut Work<M>, g: usize) -> Option<Option<Look>> {
        let group = &self.groups[g];
        let nac = &self.group_nacs[group.nac as usize];
        // The candidates as the solver's masks (a killer's cage: 16 bits, not 128).
        let mut empties: SmallVec<[(u32, M); 16]> = SmallVec::new();
        for &m in &group.members {
            if w.vals[m as usize] == 0 {
                empties.push((m, self.cand::<W>(w, m as usize)));
            }
        }
        let value = |m: u32| match w.vals[m as usize] {
            0 => None,
            v => Some(u16::from(v) - 1),
        };
        if empties.is_empty() {
            if let Some(contents) = &group.feasible {
                // Judged by the contents, which every group over these members allows.
                return if holds_listed(contents, group, &w.vals) {
                    Some(None)
                } else {
                    None
                };
            }
            let first = group.members[0];
            let x = value(first).unwrap_or(0);
            return if nac.blocks(group, first, x, &|_, m| value(m)) {
                None
            } else {
                Some(None)
            };
        }
        // Collected rather than `from_elem`, which fills a 16-byte mask (a domain of more
        // than 64 values) one element at a time.
        let mut keep: SmallVec<[M; 16]> = empties.iter().map(|_| M::ZERO).collect();
        let mut inexact = false;
        match &group.feasible {
            Some(contents) => {
                let placed = group.members.iter().filter_map(|&m| value(m));
                supported(contents, placed, &empties, &mut keep);
                // A content respects its members' relations in any order of filling only
                // where blocking is symmetric. A pair with a filled end is kept by the
                // candidates already (the filled member's hub took what it blocks from
                // the other), so where no pair joins two empty members and the contents
                // repeat values, the matching above kept exactly what a layout would.
                let open = |&(i, j, _): &(u16, u16, u32)| {
                    let empty = |p: u16| w.vals[group.members[usize::from(p)] as usize] == 0;
                    empty(i) && empty(j)
                };
                let layouts = !contents.repeats || group.pairs.iter().any(open);
                if self.symmetric && !group.pairs.is_empty() && layouts {
                    let held: SmallVec<[Option<u8>; 16]> = group
                        .members
                        .iter()
                        .map(|&m| value(m).map(|x| x as u8))
                        .collect();
                    inexact =
                        !supported_in_place(&self.table, self.d, group, contents, &held, &mut keep);
                }
            }
            None => {
                for (k, &(m, c)) in keep.iter_mut().zip(&empties) {
                    let mut left = c;
                    while !left.is_zero() {
                        let x = left.pop_first();
                        if !nac.blocks(group, m, x as u16, &|_, s| value(s)) {
                            *k |= M::bit(x);
                        }
                    }
                }
            }
        }
        let mut changed = false;
        for (&k, &(m, c)) in keep.iter().zip(&empties) {
            if k.is_zero() {
                return None;
            }
            let mut gone = c & !k;
            changed |= !gone.is_zero();
            while !gone.is_zero() {
                let x = gone.pop_first() as usize;
                self.remove::<W>(w, m as usize, x);
            }
        }
        Some(Some(Look { changed, inexact }))
    }
}

/// What one look at a group that is not full did.
struct Look {
    /// Whether it took a candidate.
    changed: bool,
    /// Whether its layout search gave up, so that a second look may take more.
    inexact: bool,
}

/// Whether the values `vals` holds in the members of full `group` (each stored one above
/// its index) make one of `contents`.
pub(super) fn holds_listed(contents: &Contents, group: &Group, vals: &[u8]) -> bool {
    let values = group.members.iter().map(|&m| vals[m as usize] - 1);
    if !contents.repeats {
        // Sets (a killer's cages): the values held as a mask, each once (a member more
        // than a content holds makes a value twice), one of theirs.
        let mask = values.fold(0u128, |mask, x| {
            mask | 1u128.checked_shl(u32::from(x)).unwrap_or(0)
        });
        return mask.count_ones() as usize == group.members.len() && contents.masks.contains(&mask);
    }
    let mut held: SmallVec<[u8; 16]> = values.collect();
    held.sort_unstable();
    contents.lists().any(|l| l == &held[..])
}

/// Keeps in `keep` (beside `empties`, each an empty member with its candidates) the values
/// some content of `contents` gives that member: a content holding the group's placed
/// values, whose other values the empty members can take one each. Where contents repeat
/// values (a quadruple's circle across boxes) exactly: a perfect matching of members to the
/// values left holds the pair. Where they are sets, a cheaper rule that may keep more: each
/// member can take some value left and each value left some member. Contents that could add
/// nothing new are skipped untried, and the search stops once every candidate is kept.
pub(super) fn supported<N: Mask>(
    contents: &Contents,
    placed_values: impl Iterator<Item = u16>,
    empties: &[(u32, N)],
    keep: &mut [N],
) {
    // The placed values, as a mask and, where contents repeat values, counted (sized to
    // the values the contents hold): sets, the common case, need no count.
    let mut placed = N::ZERO;
    if !contents.repeats {
        let mut filled = 0;
        for x in placed_values {
            placed |= N::bit(u32::from(x));
            filled += 1;
        }
        // A value placed twice: no set holds it.
        if placed.count() == filled {
            supported_sets(contents, placed, empties, keep);
        }
        return;
    }
    let mut placed_count = SmallVec::<[u8; 16]>::from_elem(0, contents.end());
    for x in placed_values {
        placed |= N::bit(u32::from(x));
        if let Some(n) = placed_count.get_mut(usize::from(x)) {
            *n += 1;
        }
    }
    supported_multisets(contents, (placed, &placed_count), empties, keep);
}

/// Whether every candidate of `empties` is in `keep`: nothing more to look for.
fn all_kept<N: Mask>(empties: &[(u32, N)], keep: &[N]) -> bool {
    empties
        .iter()
        .zip(keep)
        .all(|(&(_, c), &kept)| (c & !kept).is_zero())
}

/// Whether the values of `rest`, one for each of `empties`, could add a value to `keep`:
/// some member lacks one of them that it can take, every member can take one of them and
/// each of them some member.
fn worth_trying<N: Mask>(empties: &[(u32, N)], keep: &[N], rest: N) -> bool {
    let new = empties
        .iter()
        .zip(keep)
        .any(|(&(_, c), &kept)| !(c & rest & !kept).is_zero());
    new && !empties.iter().any(|&(_, c)| (c & rest).is_zero())
        && empties.iter().fold(N::ZERO, |u, &(_, c)| u | (c & rest)) == rest
}

/// [`supported`] where the contents are sets and the values `placed` differ: a set's
/// values are each empty member's, as long as every member has one and every value some
/// member. Not every such pair lies on a matching, but finding out costs more than the
/// few states it saves (killer cages, where the sets are many and the hubs already keep
/// the values apart).
fn supported_sets<N: Mask>(contents: &Contents, placed: N, empties: &[(u32, N)], keep: &mut [N]) {
    let k = empties.len() as u32;
    // What the empty members can take between them: a content needing a value outside it
    // is passed over at once (most of a cage's contents, once a few cells are narrowed).
    let open = empties.iter().fold(N::ZERO, |u, &(_, c)| u | c);
    for &set in &contents.masks {
        // Within the solver's masks: the contents hold values of the domain only.
        let set = N::from_u128(set);
        if set & placed != placed || !(set & !placed & !open).is_zero() {
            continue;
        }
        // The values left for the empty members: the set less the placed values.
        let rest = set & !placed;
        if rest.count() != k || !worth_trying(empties, keep, rest) {
            continue;
        }
        for (kept, &(_, c)) in keep.iter_mut().zip(empties) {
            *kept |= c & rest;
        }
        if all_kept(empties, keep) {
            return;
        }
    }
}

/// [`supported`] where contents repeat values, exactly: `placed` as a mask and counted
/// per value.
fn supported_multisets<N: Mask>(
    contents: &Contents,
    (placed, placed_count): (N, &[u8]),
    empties: &[(u32, N)],
    keep: &mut [N],
) {
    let k = empties.len();
    let mut left: SmallVec<[u8; 16]> = SmallVec::new();
    let mut seen = SmallVec::<[u8; 16]>::from_elem(0, contents.end());
    let mut matching = Matching::new();
    let open = empties.iter().fold(N::ZERO, |u, &(_, c)| u | c);
    for (&set, list) in contents.masks.iter().zip(contents.lists()) {
        let set = N::from_u128(set);
        if set & placed != placed || !(set & !placed & !open).is_zero() {
            continue;
        }
        // The values left for the empty members: the content less the placed values.
        left.clear();
        for &x in list {
            let xi = usize::from(x);
            seen[xi] += 1;
            if seen[xi] > placed_count[xi] {
                left.push(x);
            }
        }
        for &x in list {
            seen[usize::from(x)] = 0;
        }
        if left.len() != k {
            continue;
        }
        let rest = left.iter().fold(N::ZERO, |m, &x| m | N::bit(u32::from(x)));
        if !worth_trying(empties, keep, rest) {
            continue;
        }
        if k == 1 {
            keep[0] |= empties[0].1 & rest;
        } else if empties.iter().all(|&(_, c)| c & rest == rest) {
            // Every empty member can take every value left: any order of them is a
            // filling, so each member takes each (a thermometer puzzle's row of empty
            // cells, each 0 or 1, with its count).
            for kept in keep.iter_mut() {
                *kept |= rest;
            }
        } else if matching.complete(empties, &left) {
            // A perfect matching, then every pair some perfect matching holds.
            matching.keep_every(keep);
        } else {
            continue;
        }
        if all_kept(empties, keep) {
            return;
        }
    }
}
