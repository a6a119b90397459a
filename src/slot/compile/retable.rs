//! Puzzles whose layers only set marks that NAC conditions read run on the rule file's
//! model, those NACs' hubs tabled from the puzzle's marks, instead of a compilation of
//! their own.
//!
//! A consecutive Sudoku's layers put bars between neighbours (`right`, `below`), and the
//! NACs over a neighbour read them: with a bar, values that are not consecutive block
//! each other; without, consecutive ones do. The NAC's structure (a cell and its
//! neighbour) is the rule file's, whose compilation keeps its matches ([`FixedNacs`]);
//! only the marks its conditions read differ, and they split the matches into parts, a
//! table each. Every other NAC, and every rule's left side, no layer reaches, so their
//! effect on the model is the file's. A puzzle's model is then the file's with the hubs
//! of those NACs built again: each match's marks read from the puzzle line's layers
//! ([`PuzzleMarks`](super::PuzzleMarks), without building its graph), matches alike in
//! them grouped, each group's table taken from a cache shared by the batch (a bar or
//! none: a few tables for a whole batch), and the hubs made from the groups as a
//! compilation makes them ([`add_hubs`]). Compiling those NACs puzzle by puzzle, over
//! every (cell, value) a rule places, was half of a consecutive 9x9's time.
//!
//! The cases a compilation handles beyond that are left to it: a rule whose left side has
//! nodes besides the cell or whose parameters are more than one, a NAC that compares no
//! changing value (it narrows cells for good), a witness that is not a slot (a value
//! held for ever, which narrows the cell), a NAC whose structure reads a mark (its matches
//! differ by puzzle), a table NAC that holds with its witness empty (refused), a NAC
//! over a group (an aggregate), an all-different star, `forbid` patterns and final
//! conditions beyond "every cell filled".

use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::analysis::slot_fill::slot_fill;
use crate::grammar::Grammar;
use crate::model::{AttrId, NodeId, Value, VarId};
use crate::rule::Expr;

use super::super::model::{FinalKind, SlotModel};
use super::super::solver::WORD_BITS;
use super::fixed::{FixedNacs, LayerVocabulary};
use super::hubs::{add_hubs, add_witness_hubs};
use super::instances::Read;
use super::marks::{LayerPositions, Marks};
use super::nac::StaticEnv;
use super::star::Star;
use super::tuples::Tuples;
use super::{set_attrs, RuleCompiler, MAX_HUB_WORDS};

/// How a rule file's layered puzzles table the NACs their marks reach.
#[derive(Debug)]
pub struct Retabling {
    /// In the order of their hubs.
    nacs: Vec<TabledNac>,
    /// Where blocking is symmetric in every puzzle whose arcs each way between two slots
    /// have transposed tables (see [`Mirrored`]); `None` where it must be checked whole.
    mirrored: Option<Mirrored>,
    /// Where the layers set their marks, for reading a puzzle's without its graph.
    positions: LayerPositions,
}

/// A NAC whose conditions read marks a layer sets, and what its tables are made of.
#[derive(Debug)]
struct TabledNac {
    /// (rule, NAC).
    key: (usize, usize),
    /// Its hubs in the rule file's model.
    hubs: Range<usize>,
    /// The conditions that make its tables, and the unchanging attributes they read
    /// besides the witness (the marks among them).
    conds: Vec<Expr>,
    reads: Vec<(VarId, AttrId)>,
    witness: (VarId, AttrId),
    /// The filled cell's variable and the attribute it fills.
    cell: (usize, AttrId),
    /// The matches of its structure, in the order a compilation meets them (slot by
    /// slot).
    matches: Tuples,
    /// Per match, (witness, writer slot, reader slot) where each witness is a hub of its
    /// own whatever the part (see [`TabledNac::of`]); else empty.
    arcs: Vec<(NodeId, u32, u32)>,
    /// By node index, the values the rule places there.
    placed: Vec<u128>,
    d: usize,
    /// Per marks read and values placed, the table (witness value y -> values x it
    /// blocks); `None` where the NAC holds with its witness empty, which a compilation
    /// refuses. Shared by every puzzle of the batch.
    tables: Mutex<FxHashMap<(Read, u128), Option<Table>>>,
}

/// Witness value y -> the placed values x it blocks.
type Table = Arc<[u128]>;

/// The most tables a NAC keeps: marks take a few values, so a batch reads a few; past
/// it they are forgotten and worked out again.
const MAX_TABLES: usize = 1 << 12;

impl Retabling {
    /// The retabling of `g`'s layered puzzles on `model`, compiled from `g` with the
    /// record `fixed`; `None` when a layer may change more than the marks some table
    /// NACs read.
    pub fn of(g: &Grammar, model: &SlotModel, fixed: &FixedNacs) -> Option<Retabling> {
        let marks_only = super::marks::marks_only(g);
        // The final condition is "every cell filled", which reads no mark.
        let simple_model = model.is_plain() && matches!(model.final_kind, FinalKind::Full);
        if g.layers.is_empty() || !marks_only || !simple_model {
            return None;
        }
        let vocabulary = LayerVocabulary::of(g);
        let fill = slot_fill(g).ok()?;
        // A layer that set the attribute the rules fill would set start values.
        if fill.targets.iter().any(|t| vocabulary.sets(t.attr)) {
            return None;
        }
        let group_nacs = fixed.group_nacs.as_ref()?;
        let recorded = fixed.records_every_nac(g, model);
        let lhs_free = (g.rules.iter().zip(&fill.targets))
            .all(|(r, t)| vocabulary.cannot_reach_lhs(g, &r.lhs, t.value));
        if !recorded || !lhs_free {
            return None;
        }
        let dynamic = set_attrs(g, &fill.targets);
        let mut tabled = Vec::new();
        let mut start = 0;
        for &((ri, i), end) in &fixed.hub_ends {
            let (r, t) = (&g.rules[ri], &fill.targets[ri]);
            let nac = &r.lhs.nacs[i];
            // As `compile_nacs` tells the NACs it replays: their hubs are the file's.
            let replayed =
                !group_nacs[ri].contains(&i) && vocabulary.cannot_reach(g, (&r.lhs, t.value), nac);
            if !replayed {
                if group_nacs[ri].contains(&i) {
                    return None;
                }
                let rc = RuleCompiler {
                    g,
                    r,
                    c: t.c,
                    attr: t.attr,
                    value: t.value,
                    created: None,
                    dynamic: &dynamic,
                };
                tabled.push(TabledNac::of(&rc, (ri, i), model, fixed, start..end)?);
            }
            start = end;
        }
        (!tabled.is_empty()).then(|| Retabling {
            mirrored: Mirrored::of(model, &tabled),
            nacs: tabled,
            positions: LayerPositions::of(g),
        })
    }

    /// Where the layers set the marks, for [`super::PuzzleMarks::of`].
    pub fn positions(&self) -> &LayerPositions {
        &self.positions
    }

    /// The model of a puzzle of the rule file `g` whose marks are `marks`: `model` with
    /// the hubs of the NACs they reach tabled from them; `None` when it must be compiled
    /// (a NAC would hold with its witness empty, or the hubs would be too many).
    pub fn retabled(
        &self,
        model: &SlotModel,
        g: &Grammar,
        marks: &impl Marks,
    ) -> Option<SlotModel> {
        // Room for every hub at once: growing the list a hub at a time copied it again
        // and again (a hub is over a hundred bytes). A NAC with arcs makes at most a hub
        // per arc; the others about as many as the file's.
        let room = model.hubs.len()
            + (self.nacs.iter())
                .map(|n| n.arcs.len().saturating_sub(n.hubs.len()))
                .sum::<usize>();
        let mut retabled = model.with_hubs(Vec::with_capacity(room));
        // Per NAC and match, the table of its arc's hub (`NO_TABLE` where it blocks
        // nothing), where the arcs decide symmetry.
        let mut tables_of: Vec<Vec<u32>> = match &self.mirrored {
            Some(_) => (self.nacs.iter())
                .map(|n| vec![NO_TABLE; n.arcs.len()])
                .collect(),
            None => Vec::new(),
        };
        let mut at = 0;
        for (k, nac) in self.nacs.iter().enumerate() {
            retabled
                .hubs
                .extend_from_slice(&model.hubs[at..nac.hubs.start]);
            nac.add_hubs(
                &mut retabled,
                g,
                marks,
                tables_of.get_mut(k).map(|t| &mut t[..]),
            )?;
            at = nac.hubs.end;
        }
        retabled.hubs.extend_from_slice(&model.hubs[at..]);
        let words = model.slots.len().div_ceil(WORD_BITS).max(1) as u64;
        if retabled.hubs.len() as u64 * words > MAX_HUB_WORDS {
            return None;
        }
        match &self.mirrored {
            Some(mirrored) if mirrored.holds(&retabled, &tables_of) => {
                #[cfg(test)]
                MIRRORED.set(MIRRORED.get() + 1);
                retabled.symmetric = Ok(());
                retabled.finish_symmetric(g);
            }
            _ => retabled.finish_hubs(g),
        }
        Some(retabled)
    }
}

/// No table: an arc whose marks block nothing makes no hub.
const NO_TABLE: u32 = u32::MAX;

#[cfg(test)]
thread_local! {
    /// Puzzles whose symmetry [`Mirrored`] decided.
    pub(super) static MIRRORED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Two slots, the lower first.
type SlotPair = (u32, u32);

/// An arc of a tabled NAC: (NAC, match).
type TabledArc = (u32, u32);

/// The arcs of the tabled NACs by pair of slots, where each pair has two, one each way,
/// and the rule file's other hubs each block their own writers alike both ways (a
/// consecutive Sudoku's bars, read by a NAC from either neighbour; its rows, columns and
/// boxes). Then a puzzle's blocking is symmetric where each pair's two arcs make hubs of
/// transposed tables, or neither makes one: the verdict
/// [`SlotModel::finish_hubs`] reaches over every hub (by the same test, pair by pair),
/// read from each match's table without listing, sorting and grouping the hubs' arcs.
#[derive(Debug)]
struct Mirrored {
    /// Per pair, its two arcs.
    pairs: Vec<[TabledArc; 2]>,
}

impl Mirrored {
    /// `None` where some NAC's witnesses are not hubs of their own, some other hub of
    /// `model` (the rule file's) is not symmetric in itself, or a pair's arcs are not
    /// one each way.
    fn of(model: &SlotModel, nacs: &[TabledNac]) -> Option<Mirrored> {
        if nacs.iter().any(|n| n.arcs.is_empty()) {
            return None;
        }
        let tabled: Vec<Range<usize>> = nacs.iter().map(|n| n.hubs.clone()).collect();
        if !model.self_symmetric_besides(&tabled) {
            return None;
        }
        // (the pair, the reader, the arc).
        let mut arcs: Vec<(SlotPair, u32, TabledArc)> = Vec::new();
        for (k, nac) in nacs.iter().enumerate() {
            for (m, &(_, w, r)) in nac.arcs.iter().enumerate() {
                arcs.push(((r.min(w), r.max(w)), r, (k as u32, m as u32)));
            }
        }
        arcs.sort_unstable();
        let pairs = (arcs.chunk_by(|a, b| a.0 == b.0))
            .map(|pair| match *pair {
                [(_, r, a), (_, s, b)] if r != s => Some([a, b]),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Mirrored { pairs })
    }

    /// Whether blocking is symmetric in `model`, a puzzle's, whose arcs' tables are
    /// `tables_of` (per NAC and match).
    fn holds(&self, model: &SlotModel, tables_of: &[Vec<u32>]) -> bool {
        // Per pair of tables asked, whether they are each other's transposes: a few.
        let mut transposed: SmallVec<[((u32, u32), bool); 8]> = SmallVec::new();
        self.pairs.iter().all(|&[(k, m), (l, n)]| {
            let (t, u) = (
                tables_of[k as usize][m as usize],
                tables_of[l as usize][n as usize],
            );
            match (t, u) {
                (NO_TABLE, NO_TABLE) => true,
                (NO_TABLE, _) | (_, NO_TABLE) => false,
                _ => match transposed.iter().find(|(key, _)| *key == (t, u)) {
                    Some(&(_, known)) => known,
                    None => {
                        let known = model.tables_transposed(t, u);
                        transposed.push(((t, u), known));
                        known
                    }
                },
            }
        })
    }
}

impl TabledNac {
    /// NAC `key` of `rc`'s rule, whose hubs in `model` are `hubs`, when a puzzle's marks
    /// change only its tables: a left side of the one cell filled, placing its parameter;
    /// conditions without aggregates that compare one witness, a slot in every match,
    /// and read nothing else of the left side; the matches of its structure kept.
    fn of(
        rc: &RuleCompiler<'_>,
        key: (usize, usize),
        model: &SlotModel,
        fixed: &FixedNacs,
        hubs: Range<usize>,
    ) -> Option<TabledNac> {
        let (r, nac) = (rc.r, &rc.r.lhs.nacs[key.1]);
        let plain = r.lhs.nodes.len() == 1
            && r.params.len() == 1
            && !nac.conds.iter().any(Expr::has_aggregate)
            && Star::of(rc, nac).is_none();
        if !plain {
            return None;
        }
        let shape = rc.nac_shape(nac).ok()?;
        let (wv, wattr) = shape.witness?;
        let matches = fixed.matches(key)?;
        let instances = fixed.instances(key.0)?;
        let places_itself = instances.iter().all(|(&(s, x), i)| {
            i.binding[..] == [model.slots[s as usize].0] && i.params[..] == [Value::Val(x)]
        });
        if !places_itself {
            return None;
        }
        let mut listed = Tuples::new(matches.width());
        let mut arcs = Vec::new();
        let mut last = None;
        for (&(reader, _), i) in instances.iter() {
            if last == Some(&i.binding[..]) {
                continue;
            }
            last = Some(&i.binding[..]);
            for t in matches.get(&i.binding) {
                let witness = t[wv.index()];
                let writer = *model.slot_of.get(&(witness, wattr))?;
                listed.push(t);
                arcs.push((witness, writer, reader));
            }
        }
        // `add_hubs` makes a hub per witness where no other node of the NAC can be one
        // and the cells do not fall into cliques, which a relation that never holds both
        // ways (nor of a slot with itself) cannot: then any part's matches give the hubs
        // straight from these arcs.
        let mut pairs: Vec<(u32, u32)> = arcs.iter().map(|&(_, w, r)| (r, w)).collect();
        pairs.sort_unstable();
        let one_way = (pairs.iter()).all(|&(r, w)| r != w && pairs.binary_search(&(w, r)).is_err());
        let hub_free = nac.own_vars().all(|v| v == wv);
        if !(one_way && hub_free) {
            arcs.clear();
        }
        Some(TabledNac {
            key,
            hubs,
            conds: shape.dyn_conds.iter().map(|&e| e.clone()).collect(),
            reads: shape.reads,
            witness: (wv, wattr),
            cell: (rc.c.index(), rc.attr),
            matches: listed,
            arcs,
            placed: instances.placed().to_vec(),
            d: model.d,
            tables: Mutex::default(),
        })
    }

    /// Adds this NAC's hubs for a puzzle with `marks` to `model`, as a compilation does:
    /// its matches split by the marks they read, each part's table over the values placed
    /// in its cells, parts with one table together; `None` where a compilation refuses.
    /// Where `tables_of` is given (per match, as [`Mirrored`] reads it), each match's
    /// table goes there.
    fn add_hubs(
        &self,
        model: &mut SlotModel,
        g: &Grammar,
        marks: &impl Marks,
        mut tables_of: Option<&mut [u32]>,
    ) -> Option<()> {
        let nac = &g.rules[self.key.0].lhs.nacs[self.key.1];
        let (ci, attr) = self.cell;
        // A bar or none: a few parts, found by comparison; each with the values placed
        // in its cells and its matches (by index).
        let mut parts: SmallVec<[(Read, u128, Vec<u32>); 4]> = SmallVec::new();
        // Each match's marks, read into one buffer: a part keeps a copy only when it is
        // new, and its matches are listed in room for all of them (most fall into one).
        let mut read = Read::new();
        let matches = self.matches.iter().len();
        for (m, t) in self.matches.iter().enumerate() {
            read.clear();
            for &(v, a) in &self.reads {
                read.push(marks.mark(t[v.index()], a));
            }
            let placed = self.placed.get(t[ci].index()).copied().unwrap_or(0);
            match parts.iter_mut().find(|(r, _, _)| *r == read) {
                Some((_, values, listed)) => {
                    *values |= placed;
                    listed.push(m as u32);
                }
                None => {
                    let mut listed = Vec::with_capacity(matches - m);
                    listed.push(m as u32);
                    parts.push((read.clone(), placed, listed));
                }
            }
        }
        let mut by_table: SmallVec<[(Table, Vec<u32>); 4]> = SmallVec::new();
        for (read, values, listed) in parts {
            let table = self.table(read, values)?;
            // Marks that rule out every pair of values (a bar that is `none`) block
            // nothing.
            if table.iter().all(|&row| row == 0) {
                continue;
            }
            match by_table.iter_mut().find(|(t, _)| *t == table) {
                Some((_, all)) => all.extend(listed),
                None => by_table.push((table, listed)),
            }
        }
        let (wv, wattr) = self.witness;
        for (table, listed) in by_table {
            let table_id = model.add_table(table.to_vec());
            if let Some(of) = tables_of.as_deref_mut() {
                for &m in &listed {
                    of[m as usize] = table_id;
                }
            }
            if !self.arcs.is_empty() {
                let arcs = listed.iter().map(|&m| self.arcs[m as usize]).collect();
                add_witness_hubs(model, arcs, table_id);
                continue;
            }
            let mut tuples = Tuples::new(self.matches.width());
            for &m in &listed {
                tuples.push(self.matches.get(m as usize));
            }
            tuples.sort_dedup();
            // Every witness is a slot: the graph is not read.
            add_hubs(
                model,
                &g.base,
                nac,
                &tuples,
                (ci, attr),
                (wv.index(), wattr),
                table_id,
            );
        }
        Some(())
    }

    /// The table of the matches that read `read`, over the values `placed` in their
    /// cells: from the batch's cache, else worked out from the conditions.
    fn table(&self, read: Read, placed: u128) -> Option<Table> {
        let key = (read, placed);
        let mut tables = self.tables.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(table) = tables.get(&key) {
            return table.clone();
        }
        let table = self.judge(&key.0, placed);
        if tables.len() >= MAX_TABLES {
            tables.clear();
        }
        tables.insert(key, table.clone());
        table
    }

    /// Witness value y -> the values x of `placed` it blocks where the marks read are
    /// `read`; `None` when the NAC holds with the witness empty for some x.
    fn judge(&self, read: &[Value], placed: u128) -> Option<Table> {
        let mut table = vec![0u128; self.d];
        let mut xs = placed;
        while xs != 0 {
            let x = xs.trailing_zeros() as u16;
            xs &= xs - 1;
            let params = [Value::Val(x)];
            let holds = |value: Value| {
                let env = StaticEnv {
                    params: &params,
                    reads: &self.reads,
                    statics: read,
                    witness: Some(self.witness),
                    value,
                };
                self.conds.iter().all(|e| e.holds(&env))
            };
            if holds(Value::None) {
                return None;
            }
            for (y, row) in table.iter_mut().enumerate() {
                if holds(Value::Val(y as u16)) {
                    *row |= 1u128 << x;
                }
            }
        }
        Some(table.into())
    }
}
