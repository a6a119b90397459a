//! `--expand all` over a slot grammar: every enabled placement of every state, states kept
//! packed to a few bits per slot.
//!
//! When blocking is symmetric (see [`super::model::SlotModel::symmetric`]) every subset of
//! a reachable state is reachable, so the reachable states are exactly the consistent
//! extensions of the start, and each is generated once by placing its slots in increasing
//! order: a state only extends slots after the last one it placed. That spanning tree of
//! the state graph needs no visited set; the transitions of each state are still all its
//! enabled placements, counted. Otherwise successors go through the exact visited set.

use smallvec::SmallVec;

use crate::grammar::Grammar;
use crate::model::Graph;

use crate::explore::{Expansion, Space, Successors};

use super::forbid::ForbidScratch;
use super::mask::Mask;
use super::model::{FinalKind, SlotModel};
use super::solver::{Tables, Work, DYN};
use super::BaseGraph;

/// A state: slot values packed `bits` to a slot, whole slots per word, and the last slot
/// placed by a transition (for orderly generation; not part of the key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packed {
    words: SmallVec<[u64; 2]>,
    last: u32,
}

pub struct FullSpace<'a, M: Mask> {
    pub(super) grammar: &'a Grammar,
    pub(super) model: &'a SlotModel,
    pub(super) tables: &'a Tables<M>,
    pub(super) base: BaseGraph<'a>,
    start: Work<M>,
    start_vals: Vec<u8>,
    orderly: bool,
    /// Whether a `forbid` pattern matches the start state: then there is none.
    start_forbidden: bool,
    bits: u32,
    per_word: u32,
}

impl<'a, M: Mask> FullSpace<'a, M> {
    pub fn new(
        grammar: &'a Grammar,
        model: &'a SlotModel,
        tables: &'a Tables<M>,
        base: BaseGraph<'a>,
        start: Work<M>,
    ) -> Self {
        let bits = u32::BITS - (tables.d as u32).leading_zeros();
        let start_forbidden = model.forbids.as_ref().is_some_and(|f| {
            f.forbidden(grammar, model, &mut ForbidScratch::default(), &start.vals)
        });
        FullSpace {
            grammar,
            model,
            tables,
            base,
            start_vals: start.vals.clone(),
            start,
            // A subset of a state no monotone `forbid` matches is matched by none either,
            // so it is reachable too.
            orderly: model.symmetric.is_ok() && model.forbids.as_ref().is_none_or(|f| f.monotone()),
            start_forbidden,
            bits,
            per_word: u64::BITS / bits,
        }
    }

    #[inline]
    fn get(&self, p: &Packed, s: usize) -> u8 {
        let (w, o) = (
            s / self.per_word as usize,
            (s % self.per_word as usize) as u32 * self.bits,
        );
        ((p.words[w] >> o) & ((1 << self.bits) - 1)) as u8
    }

    #[inline]
    fn set(&self, p: &mut Packed, s: usize, v: u8) {
        let (w, o) = (
            s / self.per_word as usize,
            (s % self.per_word as usize) as u32 * self.bits,
        );
        let mask = ((1u64 << self.bits) - 1) << o;
        p.words[w] = (p.words[w] & !mask) | (u64::from(v) << o);
    }

    fn pack(&self, vals: &[u8]) -> Packed {
        let words = vals.len().div_ceil(self.per_word as usize).max(1);
        let mut p = Packed {
            words: SmallVec::from_elem(0, words),
            last: u32::MAX,
        };
        for (s, &v) in vals.iter().enumerate() {
            self.set(&mut p, s, v);
        }
        p
    }

    /// Rebuilds the indexes of a packed state on top of the start state.
    fn unpack(&self, p: &Packed, w: &mut Work<M>) {
        w.clone_from(&self.start);
        for s in 0..self.tables.n {
            let v = self.get(p, s);
            if v != 0 && self.start_vals[s] == 0 {
                self.tables.place_unchecked::<DYN>(w, s, u32::from(v) - 1);
            }
        }
        w.last = p.last;
    }

    fn vals(&self, p: &Packed) -> Vec<u8> {
        (0..self.tables.n).map(|s| self.get(p, s)).collect()
    }
}

impl<M: Mask> Space for FullSpace<'_, M> {
    type State = Packed;
    /// The unpacked state being expanded, and the mirror `forbid` patterns are checked on.
    type Scratch = (Option<Work<M>>, ForbidScratch);

    fn initial(&self) -> Option<Packed> {
        (!self.start_forbidden).then(|| self.pack(&self.start.vals))
    }

    fn expand(
        &self,
        state: &Packed,
        (scratch, mirror): &mut (Option<Work<M>>, ForbidScratch),
        succ: &mut Successors<'_, Packed>,
    ) -> Expansion {
        let w = scratch.get_or_insert_with(|| self.start.clone());
        self.unpack(state, w);
        let t = self.tables;
        let from = if self.orderly {
            state.last.wrapping_add(1) as usize
        } else {
            0
        };
        let w = &*w;
        let (grammar, model) = (self.grammar, self.model);
        if let Some(f) = &model.forbids {
            // A placement a `forbid` pattern then matches leads nowhere.
            let mut transitions = 0;
            t.for_each_move(w, 0, |s, y| {
                if t.has_groups() && t.group_blocked(w, s as usize, y) {
                    return;
                }
                if f.forbidden_placing(grammar, model, mirror, &w.vals, s, y) {
                    // Forward checking drops it where the patterns are monotone; otherwise
                    // it is a transition to a dead end, as on whole graphs.
                    if !f.monotone() {
                        transitions += 1;
                        succ.dead += 1;
                    }
                    return;
                }
                transitions += 1;
                if (s as usize) < from {
                    return;
                }
                let mut child = succ.copy_of(state);
                self.set(&mut child, s as usize, y as u8 + 1);
                child.last = s;
                succ.push(child);
            });
            return Expansion { transitions };
        }
        // A group NAC is checked move by move: the boards hold the pairwise NACs only.
        let enabled = |s: u32, y: u32| !t.has_groups() || !t.group_blocked(w, s as usize, y);
        t.for_each_move(w, from, |s, y| {
            if !enabled(s, y) {
                return;
            }
            let mut child = succ.copy_of(state);
            self.set(&mut child, s as usize, y as u8 + 1);
            child.last = s;
            succ.push(child);
        });
        let transitions = if t.has_groups() {
            let mut n = 0;
            t.for_each_move(w, 0, |s, y| n += u64::from(enabled(s, y)));
            n
        } else {
            t.transitions(w)
        };
        Expansion { transitions }
    }

    fn is_final(&self, state: &Packed, exp: &Expansion) -> bool {
        let full = || (0..self.tables.n).all(|s| self.get(state, s) != 0);
        match &self.model.final_kind {
            FinalKind::Full => full(),
            FinalKind::FullAnd(c) => full() && c.holds(&self.grammar.types, &self.to_graph(state)),
            FinalKind::Cond(c) => c.holds(&self.grammar.types, &self.to_graph(state)),
            FinalKind::Stuck => exp.transitions == 0,
        }
    }

    fn needs_visited(&self) -> bool {
        !self.orderly
    }

    fn key(&self, state: &Packed, out: &mut Vec<u8>) {
        out.clear();
        for w in &state.words {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }

    fn to_graph(&self, state: &Packed) -> Graph {
        super::write_graph(self.model, self.base.get(), &self.vals(state))
    }

    /// The packed words, then the last slot placed, little-endian.
    fn encode(&self, state: &Packed, out: &mut Vec<u8>) -> bool {
        for w in &state.words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&state.last.to_le_bytes());
        true
    }

    fn decode(&self, bytes: &[u8]) -> Option<Packed> {
        let words = self.tables.n.div_ceil(self.per_word as usize).max(1);
        if bytes.len() != words * 8 + 4 {
            return None;
        }
        let (packed, last) = bytes.split_at(words * 8);
        Some(Packed {
            words: packed
                .chunks_exact(8)
                .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
                .collect(),
            last: u32::from_le_bytes(last.try_into().expect("4 bytes")),
        })
    }
}
