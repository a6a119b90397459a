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
#[derive(Debug, PartialEq, Eq)]
pub struct Packed {
    words: SmallVec<[u64; 2]>,
    last: u32,
}

impl Clone for Packed {
    fn clone(&self) -> Self {
        Packed {
            words: SmallVec::from_slice(&self.words),
            last: self.last,
        }
    }

    /// Copies the words as one slice (a state is copied for every transition).
    fn clone_from(&mut self, src: &Self) {
        copy_words(&mut self.words, &src.words);
        self.last = src.last;
    }
}

fn copy_words(to: &mut SmallVec<[u64; 2]>, from: &[u64]) {
    if to.len() == from.len() {
        to.copy_from_slice(from);
    } else {
        *to = SmallVec::from_slice(from);
    }
}

/// The states of a depth-first walk's current path, unpacked (their packed words beside
/// them), shallowest first; entries from `len` on are buffers kept for reuse.
pub struct Path<M: Mask> {
    states: Vec<(SmallVec<[u64; 2]>, Work<M>)>,
    len: usize,
}

impl<M: Mask> Path<M> {
    /// Entry `i`, a buffer added (a copy of `start`) where the path never went so deep.
    fn grow(&mut self, i: usize, start: &Work<M>) -> &mut (SmallVec<[u64; 2]>, Work<M>) {
        if self.states.len() == i {
            self.states.push((SmallVec::new(), start.clone()));
        }
        &mut self.states[i]
    }
}

impl<M: Mask> Default for Path<M> {
    fn default() -> Self {
        Path {
            states: Vec::new(),
            len: 0,
        }
    }
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
    /// The lowest bit of each slot's field in a word.
    lows: u64,
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
            lows: (0..u64::BITS / bits).fold(0, |l, f| l | 1 << (f * bits)),
        }
    }

    /// Where slot `s` is packed: its word, and the mask of its field there.
    #[inline]
    fn field(&self, s: usize) -> (usize, u64) {
        let shift = (s % self.per_word as usize) as u32 * self.bits;
        (
            s / self.per_word as usize,
            ((1u64 << self.bits) - 1) << shift,
        )
    }

    #[inline]
    fn get(&self, p: &Packed, s: usize) -> u8 {
        let (w, mask) = self.field(s);
        ((p.words[w] & mask) >> mask.trailing_zeros()) as u8
    }

    #[inline]
    fn set(&self, p: &mut Packed, s: usize, v: u8) {
        let (w, mask) = self.field(s);
        p.words[w] = (p.words[w] & !mask) | (u64::from(v) << mask.trailing_zeros());
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

    /// True when `p` is `parent` with one more slot placed, the slot `p.last`.
    fn extends(&self, parent: &[u64], p: &Packed) -> bool {
        let (at, slot) = self.field(p.last as usize);
        parent.len() == p.words.len()
            && parent
                .iter()
                .zip(&p.words)
                .enumerate()
                .all(|(i, (&a, &b))| {
                    if i == at {
                        a & slot == 0 && b & slot != 0 && a == b & !slot
                    } else {
                        a == b
                    }
                })
    }

    /// The indexes of `p`: from its parent's by one placement where the parent is on
    /// `path` (a depth-first walk expands a state's children right after it, or after
    /// their siblings' subtrees), else from its parent unpacked from the start. Leaves
    /// `p` deepest on the path, below its parent.
    fn rebuild<'p>(&self, p: &Packed, path: &'p mut Path<M>) -> &'p Work<M> {
        let placed = (p.last as usize) < self.tables.n && self.get(p, p.last as usize) != 0;
        while path.len > 0 && !(placed && self.extends(&path.states[path.len - 1].0, p)) {
            path.len -= 1;
        }
        if path.len == 0 {
            // Unpack the parent rather than the state: a breadth-first walk expands
            // siblings one after another, and each sibling after this state then costs
            // one placement. A state without a parent is unpacked itself.
            let mut root = p.clone();
            if placed {
                self.set(&mut root, p.last as usize, 0);
            }
            let (words, w) = path.grow(0, &self.start);
            self.unpack(&root, w);
            copy_words(words, &root.words);
            path.len = 1;
            if !placed {
                return &path.states[0].1;
            }
        }
        path.grow(path.len, &self.start);
        let (above, below) = path.states.split_at_mut(path.len);
        let (words, w) = &mut below[0];
        let s = p.last as usize;
        w.clone_from(&above[path.len - 1].1);
        self.tables
            .place_unchecked::<DYN>(w, s, u32::from(self.get(p, s)) - 1);
        w.last = p.last;
        copy_words(words, &p.words);
        path.len += 1;
        w
    }

    /// True when every slot of `p` holds a value: each word's fields folded onto their
    /// lowest bits, against the lowest bits of the fields in use.
    fn filled(&self, p: &Packed) -> bool {
        let (per_word, lows) = (self.per_word as usize, self.lows);
        p.words.iter().enumerate().all(|(i, &w)| {
            let fields = (self.tables.n - i * per_word).min(per_word);
            let want = if fields == per_word {
                lows
            } else {
                lows & ((1u64 << (fields as u32 * self.bits)) - 1)
            };
            let folded = (0..self.bits).fold(0, |m, k| m | w >> k);
            folded & want == want
        })
    }

    fn vals(&self, p: &Packed) -> Vec<u8> {
        (0..self.tables.n).map(|s| self.get(p, s)).collect()
    }
}

impl<M: Mask> Space for FullSpace<'_, M> {
    type State = Packed;
    /// The unpacked states of the walk's path, and the mirror `forbid` patterns are
    /// checked on.
    type Scratch = (Path<M>, ForbidScratch);

    fn initial(&self) -> Option<Packed> {
        (!self.start_forbidden).then(|| self.pack(&self.start.vals))
    }

    fn expand(
        &self,
        state: &Packed,
        (path, mirror): &mut (Path<M>, ForbidScratch),
        succ: &mut Successors<'_, Packed>,
    ) -> Expansion {
        let w = self.rebuild(state, path);
        let t = self.tables;
        let from = if self.orderly {
            state.last.wrapping_add(1) as usize
        } else {
            0
        };
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
        let full = || self.filled(state);
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

#[cfg(test)]
mod tests {
    use std::collections::{HashSet, VecDeque};

    use super::{FullSpace, Packed, Path};
    use crate::explore::config::Order;
    use crate::explore::frontier::Frontier;
    use crate::explore::{Space, Successors};
    use crate::slot::solver::DYN;
    use crate::slot::{compile, BaseGraph, Tables};

    /// The 3x3 Latin square with `lt` edges between `links` (pairs of cells) and `nacs`
    /// on them.
    fn linked_latin(links: [(&str, &str); 2], nacs: &str) -> String {
        let [(a, b), (c, d)] = links;
        format!(
            "values 1..3
            node Cell {{ row: int, col: int, val: value? }}
            node Group
            edge in: Cell -> Group
            edge lt: Cell -> Cell
            grid 3x3 of Cell
            groups rows, columns
            {a} -lt-> {b}
            {c} -lt-> {d}
            rule place(v: value) {{
              c: Cell {{ val == none }}
              not {{ c -in-> g: Group <-in- d: Cell {{ val == v }} }}
              {nacs}
              set c.val = v
            }}
            final: not {{ c: Cell {{ val == none }} }}"
        )
    }

    /// Two pairs of cells rising along `lt`: placements written through tables as well
    /// as the equal-values peers.
    fn rising_latin() -> String {
        linked_latin(
            [("r1c1", "r1c2"), ("r2c1", "r2c2")],
            "not { c -lt-> d: Cell { val <= v } }
             not { d: Cell { val >= v } -lt-> c }",
        )
    }

    /// A cell waits for a larger value in the cell it points to: blocking is one-sided,
    /// so the space goes through the visited set and its states are reached by
    /// placements in any order.
    fn waiting_latin() -> String {
        linked_latin(
            [("r1c1", "r1c2"), ("r2c2", "r2c3")],
            "not { c -lt-> d: Cell { val <= v } }",
        )
    }

    /// How the walk picks the next state: the explorer's depth-first and breadth-first
    /// orders, and a seeded pick from anywhere in the frontier (paths cut anywhere).
    #[derive(Clone, Copy, Debug)]
    enum Pick {
        Dfs,
        Bfs,
        Random(u64),
    }

    /// Walks the whole space of `text` from `givens` (slot, value from 0) in `pick`'s
    /// order, and checks that every state's indexes, as `expand` rebuilt them from the
    /// path, are those unpacked from the start. Returns the number of states and whether
    /// the space went through the visited set.
    fn rebuilt_as_unpacked(
        name: &str,
        text: &str,
        givens: &[(usize, u32)],
        pick: Pick,
    ) -> (usize, bool) {
        let g = crate::load_str(name, text).expect("the rule file loads");
        let model = compile(&g).expect("slots");
        let tables = Tables::<u16>::new(&model);
        let base = g.start_graph(None);
        let mut start = tables.empty();
        for &(s, y) in givens {
            assert!(
                tables.place::<DYN>(&mut start, s, y),
                "{name}: given {s} = {y}"
            );
        }
        let space = FullSpace::new(&g, &model, &tables, BaseGraph::Built(&base), start);
        let mut scratch = <FullSpace<'_, u16> as Space>::Scratch::default();
        let mut fresh = tables.empty();
        let mut pool = Frontier::new(Order::Dfs);
        let mut todo: VecDeque<Packed> = space.initial().into_iter().collect();
        let mut seen = HashSet::new();
        let mut rng = match pick {
            Pick::Random(seed) => seed,
            _ => 0,
        };
        let mut states = 0;
        while let Some(state) = match pick {
            Pick::Dfs => todo.pop_back(),
            Pick::Bfs => todo.pop_front(),
            Pick::Random(_) => {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let len = todo.len().max(1) as u64;
                todo.swap_remove_back((rng % len) as usize)
            }
        } {
            states += 1;
            let mut succ = Successors::collect(&mut pool);
            space.expand(&state, &mut scratch, &mut succ);
            let children = succ.into_items();
            let path: &Path<u16> = &scratch.0;
            space.unpack(&state, &mut fresh);
            assert_eq!(
                path.states[path.len - 1].1,
                fresh,
                "{name} {pick:?}: {state:?}"
            );
            for child in children {
                let mut key = Vec::new();
                space.key(&child, &mut key);
                if !space.needs_visited() || seen.insert(key) {
                    todo.push_back(child);
                }
            }
        }
        (states, space.needs_visited())
    }

    /// A space to walk: file, text, givens, its states if known, whether it goes through
    /// the visited set.
    type Case<'a> = (&'a str, &'a str, &'a [(usize, u32)], usize, bool);

    #[test]
    fn a_state_rebuilt_from_its_parent_is_the_state_unpacked() {
        let kakuro = include_str!("../../rules/kakuro-4x4.graft");
        let latin = crate::test_grammars::LATIN_3X3;
        let (rising, waiting) = (rising_latin(), waiting_latin());
        let spaces: [Case; 6] = [
            ("latin.graft", latin, &[], 0, false),
            ("latin.graft", latin, &[(0, 0), (5, 2)], 0, false),
            ("rising.graft", &rising, &[], 0, false),
            ("waiting.graft", &waiting, &[], 0, true),
            ("waiting.graft", &waiting, &[(4, 1)], 0, true),
            ("kakuro-4x4.graft", kakuro, &[], 5_803, false),
        ];
        for (name, text, givens, states, visited) in spaces {
            for pick in [Pick::Dfs, Pick::Bfs, Pick::Random(7), Pick::Random(2024)] {
                let (n, through) = rebuilt_as_unpacked(name, text, givens, pick);
                if states > 0 {
                    assert_eq!(n, states, "{name} {pick:?}");
                }
                assert!(n > 20, "{name} {givens:?} {pick:?}: only {n} states");
                assert_eq!(through, visited, "{name}: the visited set");
            }
        }
    }

    /// A row of `n` cells over `values 1..d`, no NACs.
    fn row(d: u32, n: usize) -> String {
        format!(
            "values 1..{d}
            node Cell {{ row: int, col: int, val: value? }}
            grid 1x{n} of Cell
            rule place(v: value) {{ c: Cell {{ val == none }} set c.val = v }}
            final: not {{ c: Cell {{ val == none }} }}"
        )
    }

    #[test]
    fn filled_reads_every_slot_from_the_packed_words() {
        for d in [1u32, 2, 3, 4, 7, 8, 16, 100, 128] {
            let bits = u32::BITS - d.leading_zeros();
            let per_word = (u64::BITS / bits) as usize;
            for n in [1, per_word - 1, per_word, per_word + 1, 2 * per_word] {
                let g = crate::load_str("row.graft", &row(d, n)).expect("the rule file loads");
                let model = compile(&g).expect("slots");
                let tables = Tables::<u128>::new(&model);
                let base = g.start_graph(None);
                let space =
                    FullSpace::new(&g, &model, &tables, BaseGraph::Built(&base), tables.empty());
                assert_eq!((space.bits, space.per_word as usize), (bits, per_word));
                for empty in [None, Some(0), Some(n / 2), Some(n - 1)] {
                    let vals: Vec<u8> = (0..n)
                        .map(|s| match empty {
                            Some(e) if e == s => 0,
                            _ => (s % d as usize) as u8 + 1,
                        })
                        .collect();
                    let p = space.pack(&vals);
                    assert_eq!(space.filled(&p), empty.is_none(), "d {d}, n {n}, {empty:?}");
                }
            }
        }
    }
}
