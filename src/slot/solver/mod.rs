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
mod build;
#[cfg(test)]
pub(crate) use build::appendable;
mod group_pairs;
mod groups;
mod matching;
mod place;

use std::sync::Arc;

use super::group::{Group, GroupNac};
use super::mask::Mask;

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

/// A word with its lowest `count` bits set (all of them from 64 on).
fn low_bits(count: usize) -> u64 {
    if count >= WORD_BITS {
        !0
    } else {
        (1u64 << count) - 1
    }
}

/// The word count of slot bitsets read from [`Tables::words`] at run time. Any other `W`
/// given to the hot methods is the word count itself, known at compile time so that the
/// loops over a bitset's words unroll and their bounds checks fold away.
pub const DYN: usize = 0;

/// Flat, read-only tables of a [`SlotModel`](super::model::SlotModel) for one mask width.
/// What no hub changes (the values, the tables' rows, the groups) is shared by `Arc`
/// with the tables of the rule file's regrouped puzzles, which are built per puzzle.
#[derive(Clone, Debug, Default)]
pub struct Tables<M: Mask> {
    /// Slots.
    pub n: usize,
    /// Values.
    pub d: usize,
    /// Words per slot bitset.
    pub words: usize,
    pub full: M,
    pub allowed: Arc<[M]>,
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
    /// Hubs each slot reads: `reads[read_start[s]..read_start[s + 1]]`; both empty when
    /// every hub's readers are its writers (each slot reads the hubs it writes).
    read_start: Vec<u32>,
    reads: Vec<u32>,
    /// Per hub, its readers as a slot bitset (`words` words each).
    hub_readers: Vec<u64>,
    /// Per hub, its writers as a slot bitset.
    hub_members: Vec<u64>,
    /// `table[hub_table[h] * d + y]`: values blocked while a writer of `h` holds `y`.
    hub_table: Vec<u32>,
    table: Arc<[M]>,
    /// Exactly-once hubs: the first `once`.
    pub once: usize,
    /// Whether blocking is symmetric (see [`SlotModel::symmetric`](super::model::SlotModel::symmetric)): then a filling is
    /// reachable exactly when no related pair blocks, whatever the order it was filled in.
    pub symmetric: bool,
    /// NACs over a group's content and their groups (see [`super::group`]).
    group_nacs: Vec<Arc<GroupNac>>,
    groups: Arc<Vec<Group>>,
    /// Per slot, the groups holding it: `slot_groups[group_start[s]..group_start[s + 1]]`.
    group_start: Arc<[u32]>,
    slot_groups: Arc<[u32]>,
    /// Per slot, the groups to look at when its candidates change:
    /// `slot_watched[watch_start[s]..watch_start[s + 1]]`. A group over the same members as
    /// an earlier one, with the same listed contents, is left out: propagating the earlier
    /// one does its work.
    watch_start: Arc<[u32]>,
    slot_watched: Arc<[u32]>,
    /// Words of a group bitset (none without groups).
    group_words: usize,
    /// The first house remainder (see [`Group::implied_by`]): they follow the groups NACs
    /// make, and are propagated once those settle.
    first_remainder: usize,
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

impl<M: Mask> Tables<M> {
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
        if self.read_start.is_empty() {
            let (start, end) = self.slot_info[s].writes;
            return &self.writes[start as usize..end as usize];
        }
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

    /// The values slot `s` holds or may take: its value alone once it is filled, else its
    /// candidates.
    pub fn values_at<const W: usize>(&self, w: &Work<M>, s: usize) -> u128 {
        match w.vals[s] {
            0 => self.cand::<W>(w, s).to_u128(),
            v => 1u128 << (v - 1),
        }
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
