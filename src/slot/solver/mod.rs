//! The slot engine's working state and its moves, value-major: for each value a bitset of
//! the slots that may still take it ("boards", one after another), read through the bitset
//! of empty slots. Placing a value empties the slot and, for each hub it writes, clears the
//! hub's readers from the boards of the values it blocks: a few word operations instead of
//! one update per neighbour. Forced moves are found for the whole state at once by counting
//! boards bit-sliced.
//!
//! This file holds the [`Tables`] and the [`Work`] state; `place` places values and
//! propagates, `branch` chooses where to branch and lists moves.

mod arcs;
mod branch;
mod group_pairs;
mod groups;
mod matching;
mod place;

use super::group::{Group, GroupNac};
use super::mask::Mask;
use super::model::SlotModel;

/// Slots in one word of a slot bitset (`u64`).
pub const WORD_BITS: usize = u64::BITS as usize;

/// Exactly-once hubs tracked by bits of one `u64` (per slot `once_of`, per value the hubs
/// lacking it, `Work::dirty_hubs`); hubs past them are rescanned at every propagation,
/// which usual puzzles (27 hubs for a 9x9 Sudoku, 48 for a 16x16) do not reach.
const TRACKED_ONCE: usize = u64::BITS as usize;

/// Slot bitsets of at most this many words (512 slots, a 22x22 grid) keep the solver's
/// scratch bitsets on the stack; larger ones allocate at each call.
const STACK_WORDS: usize = 8;

/// Words of the per-slot peer sets kept at most (1 MiB); past it the peers are read
/// through the hubs, which costs more per placement but no memory per slot.
const MAX_PEER_WORDS: usize = 1 << 17;

/// The word count of slot bitsets read from [`Tables::words`] at run time. Any other `W`
/// given to the hot methods is the word count itself, known at compile time so that the
/// loops over a bitset's words unroll and their bounds checks fold away.
pub const DYN: usize = 0;

/// Flat, read-only tables of a [`SlotModel`] for one mask width.
#[derive(Clone, Debug)]
pub struct Tables<M: Mask> {
    /// Slots.
    pub n: usize,
    /// Values.
    pub d: usize,
    /// Words per slot bitset.
    pub words: usize,
    pub full: M,
    pub allowed: Vec<M>,
    /// What placing in each slot reads first, in one record.
    slot_info: Vec<SlotInfo>,
    /// Hubs each slot writes: `writes[slot_info[s].writes]`.
    writes: Vec<u32>,
    /// Beside each entry of `writes`, where its hub's rows start in `table`
    /// (`hub_table[h] * d`): placing reads them without going through the hub.
    write_rows: Vec<u32>,
    /// Per slot, the readers of the hubs it writes (`words` words per slot), where it is
    /// `equal_only`.
    peers: Vec<u64>,
    /// Hubs each slot reads.
    read_start: Vec<u32>,
    reads: Vec<u32>,
    /// Per hub, its readers as a slot bitset (`words` words each).
    hub_readers: Vec<u64>,
    /// Per hub, its writers as a slot bitset.
    hub_members: Vec<u64>,
    /// `table[hub_table[h] * d + y]`: values blocked while a writer of `h` holds `y`.
    hub_table: Vec<u32>,
    table: Vec<M>,
    /// Exactly-once hubs: the first `once`.
    pub once: usize,
    /// Whether blocking is symmetric (see [`SlotModel::symmetric`]): then a filling is
    /// reachable exactly when no related pair blocks, whatever the order it was filled in.
    pub symmetric: bool,
    /// NACs over a group's content and their groups (see [`super::group`]).
    group_nacs: Vec<GroupNac>,
    groups: Vec<Group>,
    /// Per slot, the groups holding it: `slot_groups[group_start[s]..group_start[s + 1]]`.
    group_start: Vec<u32>,
    slot_groups: Vec<u32>,
    /// Per slot, the groups to look at when its candidates change:
    /// `slot_watched[watch_start[s]..watch_start[s + 1]]`. A group over the same members as
    /// an earlier one, with the same listed contents, is left out: propagating the earlier
    /// one does its work.
    watch_start: Vec<u32>,
    slot_watched: Vec<u32>,
    /// Words of a group bitset (none without groups).
    group_words: usize,
    /// Slots writing relation hubs (tables other than "the same value"), where the focus
    /// may run (the model blocks symmetrically): `arcs[arc_start[k]..arc_start[k + 1]]`
    /// holds, for `arc_slots[k]`, each such hub with where its rows start in `table`.
    arc_slots: Vec<u32>,
    arc_start: Vec<u32>,
    arcs: Vec<(u32, u32)>,
    /// The bit buffer of the empty state (see [`Work`]): board `x` holds the slots that
    /// allow `x`, every slot is empty, no hub holds a value.
    init_bits: Vec<u64>,
}

/// Per slot, what placing there reads first.
#[derive(Clone, Copy, Debug)]
struct SlotInfo {
    /// The first 64 exactly-once hubs (by position in `once`) that hold the slot. Hubs
    /// past the 64th are always rescanned.
    once_of: u64,
    /// Where its hubs are in `writes`.
    writes: (u32, u32),
    /// Whether every hub it writes blocks exactly the value held (as in "all different"
    /// groups); then placing `y` takes `y` from the slot's `peers` in one pass.
    equal_only: bool,
}

/// Per row, the values `pairs` lists for it in the order listed: where each row starts
/// (one more entry at the end) and the values, flat. What a vector per row would hold,
/// without an allocation per row: a layered puzzle builds these tables anew.
pub(in crate::slot) fn grouped<I>(rows: usize, pairs: impl Fn() -> I) -> (Vec<u32>, Vec<u32>)
where
    I: Iterator<Item = (u32, u32)>,
{
    let mut start = vec![0u32; rows + 1];
    for (r, _) in pairs() {
        start[r as usize + 1] += 1;
    }
    for r in 0..rows {
        start[r + 1] += start[r];
    }
    let mut next = start.clone();
    let mut values = vec![0u32; start[rows] as usize];
    for (r, v) in pairs() {
        values[next[r as usize] as usize] = v;
        next[r as usize] += 1;
    }
    (start, values)
}

impl<M: Mask> Tables<M> {
    pub fn new(m: &SlotModel) -> Tables<M> {
        let n = m.slots.len();
        let words = n.div_ceil(WORD_BITS).max(1);
        // Hubs are renumbered with the exactly-once hubs first, in their order, so that
        // scans over those read the first hub masks directly.
        let mut is_once = vec![false; m.hubs.len()];
        for &h in &m.once {
            is_once[h as usize] = true;
        }
        let mut order = m.once.clone();
        order.extend((0..m.hubs.len() as u32).filter(|&h| !is_once[h as usize]));
        let mut hub_readers = vec![0u64; m.hubs.len() * words];
        let mut hub_members = vec![0u64; m.hubs.len() * words];
        for (h, hub) in order.iter().map(|&h| &m.hubs[h as usize]).enumerate() {
            for &w in &hub.writers {
                hub_members[h * words + w as usize / WORD_BITS] |= 1 << (w as usize % WORD_BITS);
            }
            for &r in &hub.readers {
                hub_readers[h * words + r as usize / WORD_BITS] |= 1 << (r as usize % WORD_BITS);
            }
        }
        // Per slot, the hubs (renumbered) it writes and those it reads, in hub order.
        let renumbered = || order.iter().map(|&h| &m.hubs[h as usize]).enumerate();
        let (write_start, writes) = grouped(n, || {
            renumbered().flat_map(|(h, hub)| hub.writers.iter().map(move |&w| (w, h as u32)))
        });
        let (read_start, reads) = grouped(n, || {
            renumbered().flat_map(|(h, hub)| hub.readers.iter().map(move |&r| (r, h as u32)))
        });
        let written = |s: usize| &writes[write_start[s] as usize..write_start[s + 1] as usize];
        let keep_peers = n * words <= MAX_PEER_WORDS;
        // Per table, whether it is "the same value": asked of every hub each slot writes.
        let identities: Vec<bool> = m
            .tables
            .iter()
            .map(|t| (0..m.d).all(|y| t[y] == 1u128 << y))
            .collect();
        let identity = |t: u32| identities[t as usize];
        let equal_only: Vec<bool> = (0..n)
            .map(written)
            .map(|hs| {
                keep_peers
                    && hs
                        .iter()
                        .all(|&h| identity(m.hubs[order[h as usize] as usize].table))
            })
            .collect();
        let mut peers = vec![0u64; if keep_peers { n * words } else { 0 }];
        for (s, hs) in (0..n).map(written).enumerate() {
            if equal_only[s] {
                for &h in hs {
                    for j in 0..words {
                        peers[s * words + j] |= hub_readers[h as usize * words + j];
                    }
                }
            }
        }
        let mut arc_slots = Vec::new();
        let mut arc_lists: Vec<Vec<(u32, u32)>> = Vec::new();
        if m.symmetric.is_ok() {
            for (s, hs) in (0..n).map(written).enumerate() {
                let list: Vec<(u32, u32)> = hs
                    .iter()
                    .map(|&h| (h, m.hubs[order[h as usize] as usize].table))
                    .filter(|&(_, t)| !identity(t))
                    .map(|(h, t)| (h, t * m.d as u32))
                    .collect();
                if !list.is_empty() {
                    arc_slots.push(s as u32);
                    arc_lists.push(list);
                }
            }
        }
        let mut arc_start = vec![0u32];
        let mut arcs = Vec::new();
        for l in arc_lists {
            arcs.extend(l);
            arc_start.push(arcs.len() as u32);
        }
        let write_rows = writes
            .iter()
            .map(|&h| m.hubs[order[h as usize] as usize].table * m.d as u32)
            .collect();
        let mut init_boards = vec![0u64; m.d * words];
        for (s, &a) in m.allowed.iter().enumerate() {
            for x in 0..m.d {
                if a & (1u128 << x) != 0 {
                    init_boards[x * words + s / WORD_BITS] |= 1 << (s % WORD_BITS);
                }
            }
        }
        let mut once_of = vec![0u64; n];
        for (k, &h) in order[..m.once.len()].iter().enumerate().take(TRACKED_ONCE) {
            for &w in &m.hubs[h as usize].writers {
                once_of[w as usize] |= 1 << k;
            }
        }
        let mut init_bits = init_boards;
        init_bits.extend((0..words).map(|i| {
            let slots = (n - i * WORD_BITS).min(WORD_BITS);
            if slots == WORD_BITS {
                !0
            } else {
                (1u64 << slots) - 1
            }
        }));
        init_bits.resize(init_bits.len() + m.hubs.len() * M::WORDS, 0);
        let tracked = m.once.len().min(TRACKED_ONCE);
        let lacking = if tracked == TRACKED_ONCE {
            !0
        } else {
            (1u64 << tracked) - 1
        };
        init_bits.extend(std::iter::repeat_n(lacking, m.d));
        // Groups: every one to be looked at (dirty), none judged full (settled).
        let group_words = m.groups.len().div_ceil(WORD_BITS);
        init_bits.extend((0..group_words).map(|i| {
            let left = m.groups.len() - i * WORD_BITS;
            if left >= WORD_BITS {
                !0
            } else {
                (1u64 << left) - 1
            }
        }));
        init_bits.resize(init_bits.len() + group_words, 0);
        let mut listed: std::collections::HashSet<&[u32]> = std::collections::HashSet::new();
        let twin: Vec<bool> = m
            .groups
            .iter()
            .map(|group| group.feasible.is_some() && !listed.insert(&group.members))
            .collect();
        let in_groups = |watch: bool| {
            let twin = &twin;
            m.groups
                .iter()
                .enumerate()
                .filter(move |&(gi, _)| !(watch && twin[gi]))
                .flat_map(|(gi, group)| group.members.iter().map(move |&s| (s, gi as u32)))
        };
        let (group_start, slot_groups) = grouped(n, || in_groups(false));
        let (watch_start, slot_watched) = grouped(n, || in_groups(true));
        Tables {
            n,
            d: m.d,
            words,
            full: M::from_u128(m.full_mask()),
            allowed: m.allowed.iter().map(|&a| M::from_u128(a)).collect(),
            slot_info: (0..n)
                .map(|s| SlotInfo {
                    once_of: once_of[s],
                    writes: (write_start[s], write_start[s + 1]),
                    equal_only: equal_only[s],
                })
                .collect(),
            writes,
            write_rows,
            peers,
            read_start,
            reads,
            hub_readers,
            hub_members,
            hub_table: order.iter().map(|&h| m.hubs[h as usize].table).collect(),
            table: m
                .tables
                .iter()
                .flat_map(|t| t.iter().map(|&r| M::from_u128(r)))
                .collect(),
            once: m.once.len(),
            symmetric: m.symmetric.is_ok(),
            group_nacs: m.group_nacs.clone(),
            groups: m.groups.clone(),
            group_start,
            slot_groups,
            watch_start,
            slot_watched,
            group_words,
            arc_slots,
            arc_start,
            arcs,
            init_bits,
        }
    }

    /// Words per slot bitset: `W`, or the run-time count when `W` is [`DYN`].
    #[inline(always)]
    fn words_of<const W: usize>(&self) -> usize {
        debug_assert!(W == DYN || W == self.words);
        if W == DYN {
            self.words
        } else {
            W
        }
    }

    /// The hubs slot `s` writes, each with where its rows start in `table`.
    #[inline]
    fn writes(&self, s: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let (start, end) = self.slot_info[s].writes;
        let range = start as usize..end as usize;
        self.writes[range.clone()]
            .iter()
            .zip(&self.write_rows[range])
            .map(|(&h, &row)| (h as usize, row as usize))
    }

    /// Every hub table's rows, `d` a table: row `x` of table `t` (`t * d + x`) holds the
    /// values a reader cannot take while a writer holds `x`.
    pub fn relation_rows(&self) -> &[M] {
        &self.table
    }

    #[inline]
    fn reads(&self, s: usize) -> &[u32] {
        &self.reads[self.read_start[s] as usize..self.read_start[s + 1] as usize]
    }

    #[inline]
    fn readers<const W: usize>(&self, h: usize) -> &[u64] {
        let words = self.words_of::<W>();
        &self.hub_readers[h * words..(h + 1) * words]
    }

    #[inline]
    pub fn members<const W: usize>(&self, h: usize) -> &[u64] {
        let words = self.words_of::<W>();
        &self.hub_members[h * words..(h + 1) * words]
    }

    /// An empty working state: nothing placed, every slot's candidates its allowed values.
    pub fn empty(&self) -> Work<M> {
        Work {
            vals: vec![0; self.n],
            bits: self.init_bits.clone(),
            left: self.n as u32,
            last: u32::MAX,
            dirty_values: self.full,
            dirty_hubs: !0,
        }
    }

    /// Board `x`: the slots that may still take `x` (filled slots too: mask with `open`).
    #[inline]
    fn board<'w, const W: usize>(&self, w: &'w Work<M>, x: usize) -> &'w [u64] {
        let words = self.words_of::<W>();
        &w.bits[x * words..(x + 1) * words]
    }

    /// Every board, one after another.
    #[inline]
    fn boards<'w, const W: usize>(&self, w: &'w Work<M>) -> &'w [u64] {
        &w.bits[..self.d * self.words_of::<W>()]
    }

    /// Where the bitset of empty slots starts in a state's buffer.
    #[inline]
    fn open_at<const W: usize>(&self) -> usize {
        self.d * self.words_of::<W>()
    }

    /// The empty slots.
    #[inline]
    fn open<'w, const W: usize>(&self, w: &'w Work<M>) -> &'w [u64] {
        let at = self.open_at::<W>();
        &w.bits[at..at + self.words_of::<W>()]
    }

    /// Where hub `h`'s mask is in a state's buffer.
    #[inline]
    fn hub_at<const W: usize>(&self, h: usize) -> usize {
        self.open_at::<W>() + self.words_of::<W>() + h * M::WORDS
    }

    /// Where, in a state's buffer, the word of the first 64 exactly-once hubs that do not
    /// hold `x` yet is.
    #[inline]
    fn lacks_at<const W: usize>(&self, x: usize) -> usize {
        self.hub_at::<W>(self.hub_table.len()) + x
    }

    /// The values hub `h` holds.
    #[inline]
    fn hub<const W: usize>(&self, w: &Work<M>, h: usize) -> M {
        M::load(&w.bits, self.hub_at::<W>(h))
    }

    /// The values slot `s` may still take (none once it is filled).
    #[inline]
    pub fn cand<const W: usize>(&self, w: &Work<M>, s: usize) -> M {
        let (i, b) = (s / WORD_BITS, 1u64 << (s % WORD_BITS));
        let mut c = M::ZERO;
        if self.open::<W>(w)[i] & b == 0 {
            return c;
        }
        let boards = self.boards::<W>(w);
        for (x, board) in boards.chunks_exact(self.words_of::<W>()).enumerate() {
            if board[i] & b != 0 {
                c |= M::bit(x as u32);
            }
        }
        c
    }
}

/// A state of the slot engine with its indexes: per slot its value (0 = none, else the
/// value's index plus one), and one buffer of bits (one allocation, one copy) holding
/// per value the bitset of slots that may take it ("board"), meaningful for empty slots
/// only (a filled slot keeps its bits: every reader masks with the empty slots, which is
/// cheaper than clearing the slot from every board at each placement); then the bitset of
/// empty slots; then per hub its mask; then per value the first 64 exactly-once hubs
/// that lack it. [`Tables`] knows where each part starts.
#[derive(Debug, PartialEq, Eq)]
pub struct Work<M: Mask> {
    pub vals: Vec<u8>,
    bits: Vec<u64>,
    /// The number of empty slots.
    pub left: u32,
    /// The highest slot placed by a transition (orderly generation), `u32::MAX` if none.
    pub last: u32,
    /// Values whose places changed in every exactly-once hub since the last scan.
    pub dirty_values: M,
    /// Exactly-once hubs (by position in `once`, the first 64) whose every value's places
    /// may have changed since the last scan.
    pub dirty_hubs: u64,
}

impl<M: Mask> Clone for Work<M> {
    fn clone(&self) -> Self {
        Work {
            vals: self.vals.clone(),
            bits: self.bits.clone(),
            left: self.left,
            last: self.last,
            dirty_values: self.dirty_values,
            dirty_hubs: self.dirty_hubs,
        }
    }

    /// Reuses the buffers: the hot path clones into spent states.
    fn clone_from(&mut self, src: &Self) {
        self.vals.clone_from(&src.vals);
        self.bits.clone_from(&src.bits);
        self.left = src.left;
        self.last = src.last;
        self.dirty_values = src.dirty_values;
        self.dirty_hubs = src.dirty_hubs;
    }
}

#[cfg(test)]
mod tests;
