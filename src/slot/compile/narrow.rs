//! Puzzles whose layers only narrow what the rules may place run on the rule file's engine,
//! with those values taken from the start candidates instead of a compilation of their own.
//!
//! An even/odd Sudoku's layer marks cells (`parity`), and only the left side of the rule
//! that fills a cell reads the mark (`c: Cell { val == none, parity == none or v % 2 ==
//! parity }`). Such a layer adds no node or edge, sets no attribute a rule changes, and no
//! NAC, `forbid` pattern or group aggregate reads what it sets: the puzzle's model is then
//! the rule file's, less the (cell, value) placements its left side no longer allows.
//! Compiling that model puzzle by puzzle (instances, NAC tables, solver tables) cost about
//! twenty times the search of an even/odd 9x9. A compilation of the narrower placements
//! builds the same model, but for its values, only where the layered left side allows no
//! placement the file's did not, and where its hubs and tables come out the same: every
//! table is "the same value" over the whole domain (all-different groups, whose tables a
//! compilation builds over the values placed), and each puzzle leaves every cell some
//! value and every hub's readers every value they had, which a solvable puzzle does (else
//! it compiles). The file's blocking must be symmetric, so that what the model derived
//! from the wider placements (focus soundness) holds for the narrower ones. A batch reads
//! each puzzle's marks from its layers ([`super::PuzzleMarks`]), and builds its graph
//! only for marks no earlier puzzle had.

use std::sync::{Mutex, PoisonError};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::analysis::open::is_none_check;
use crate::analysis::slot_fill::slot_fill;
use crate::grammar::Grammar;
use crate::matcher::BindingEnv;
use crate::model::{Graph, NodeId, Value};
use crate::rule::{Expr, Pattern};

use super::super::model::{is_same_value, SlotModel};
use super::fixed::LayerVocabulary;
use super::instances::{LoneNode, Read};
use super::marks::{LayerPositions, Marks};

/// How a rule file's layered puzzles narrow its engine: the rules whose left side reads
/// what the layers set, each as the one node it matches.
#[derive(Debug)]
pub struct Narrowing {
    rules: Vec<LoneRule>,
    /// Per hub of the rule file's model, the values its readers allow together.
    hub_values: Vec<u128>,
    /// Where the layers set their marks, for reading a puzzle's without its graph.
    positions: LayerPositions,
}

/// A rule whose left side is one node, no edges, and conditions without aggregates that
/// read a layer's attributes.
#[derive(Debug)]
struct LoneRule {
    /// The left side but its `val == none` test.
    node: LoneNode,
    value: Expr,
    /// Per parameter value, the value placed, when it depends on the parameter alone
    /// (`set c.val = v`): evaluated once, not per cell and puzzle.
    placed: Option<Vec<Value>>,
    /// Parameter value i places value i (`set c.val = v`): the values of a verdict are
    /// its bits.
    places_itself: bool,
    /// The verdicts found so far, by the tuple of attributes read (see [`LoneNode::verdict`]).
    verdicts: Mutex<FxHashMap<Read, u128>>,
    /// One entry per parameter value (one empty entry for a rule without parameters).
    params: Vec<Vec<Value>>,
    /// Every node of the left side's type in the rule file's base graph.
    nodes: Vec<BareNode>,
}

/// A node a lone rule's left side matches, as the rule file's base graph has it.
#[derive(Debug)]
struct BareNode {
    node: NodeId,
    /// Its verdict there (see [`LoneNode::verdict`]).
    verdict: u128,
    /// Its slot in the rule file's model (`None`: not a slot, so a puzzle that marks it
    /// compiles).
    slot: Option<u32>,
}

/// The most verdicts a puzzle's narrowing looks up by comparison before hashing: marks
/// take a few values, and comparing a node's attributes with them is cheaper than hashing.
const FEW_READS: usize = 8;

/// Per slot, the values a puzzle's layers take away: (slot, values), by slot.
pub type Removed = Vec<(u32, u128)>;

impl Narrowing {
    /// The narrowing of `g`'s layered puzzles on `model`, compiled from `g` without
    /// layers; `None` when a layer may change more than which values the rules place.
    pub fn of(g: &Grammar, model: &SlotModel) -> Option<Narrowing> {
        let cell_attrs_only = super::marks::marks_only(g);
        // A final condition's `not { ... }` parts beside "every cell filled" are forbid
        // patterns of the model, so `forbids` keeps them off this path too.
        let simple_model = model.is_plain() && model.symmetric.is_ok();
        // The tables a compilation builds depend on the values placed: a table's columns
        // are those some reader may take, and a table with none is dropped. Where every
        // table is "the same value" over the whole domain (all-different groups), a puzzle
        // whose every hub keeps every value in some reader builds the same hubs and tables
        // (see `removed`); other tables could come out narrower, merge or vanish.
        let all_different = (model.tables.iter()).all(|t| is_same_value(t, model.d));
        if g.layers.is_empty() || !cell_attrs_only || !simple_model || !all_different {
            return None;
        }
        let vocabulary = LayerVocabulary::of(g);
        let fill = slot_fill(g).ok()?;
        let slot_attr = fill.targets.first()?.attr;
        // A layer must not set what rules change (by index, which may only refuse too much).
        if fill
            .targets
            .iter()
            .any(|t| vocabulary.sets(t.attr) || t.attr != slot_attr)
        {
            return None;
        }
        let mut rules = Vec::new();
        for (r, t) in g.rules.iter().zip(&fill.targets) {
            let nacs_free = r.lhs.nacs.iter().all(|n| vocabulary.pattern_free(g, n));
            if !nacs_free || !vocabulary.expr_free(g, t.value) {
                return None;
            }
            if vocabulary.cannot_reach_lhs(g, &r.lhs, t.value) {
                continue;
            }
            let lhs = Pattern {
                conds: (r.lhs.conds.iter())
                    .filter(|e| !is_none_check(e, t.c, t.attr))
                    .cloned()
                    .collect(),
                nacs: Vec::new(),
                ..r.lhs.clone()
            };
            let node = LoneNode::of(&lhs, t.c).filter(|_| r.params.len() <= 1)?;
            let params: Vec<Vec<Value>> = if r.params.is_empty() {
                vec![vec![]]
            } else {
                (0..model.d).map(|x| vec![Value::Val(x as u16)]).collect()
            };
            let mut reads_node = t.value.has_aggregate();
            t.value.visit_attrs(&mut |_, _| reads_node = true);
            let placed = (!reads_node).then(|| {
                let env = |p| BindingEnv {
                    graph: &g.base,
                    binding: &[],
                    params: p,
                    folds: None,
                };
                params.iter().map(|p| t.value.eval(&env(p))).collect()
            });
            let ty = node.ty;
            let places_itself = placed.as_ref().is_some_and(|placed: &Vec<Value>| {
                (placed.iter().enumerate()).all(|(i, &x)| x == Value::Val(i as u16))
            });
            let mut rule = LoneRule {
                node,
                value: t.value.clone(),
                placed,
                places_itself,
                verdicts: Mutex::default(),
                params,
                nodes: Vec::new(),
            };
            let mut verdicts = FxHashMap::default();
            rule.nodes = g
                .base
                .find_nodes()
                .filter(|&n| g.types.is_subtype(g.base.ty(n), ty))
                .map(|n| BareNode {
                    node: n,
                    verdict: rule.verdict(&mut verdicts, &g.base, n),
                    slot: model.slot_of.get(&(n, slot_attr)).copied(),
                })
                .collect();
            rule.verdicts = Mutex::new(verdicts);
            // The model's values are the rule's placements, no NAC having removed some
            // unconditionally: then the hubs a compilation builds follow from the values
            // allowed alone (see `keeps_hubs`).
            let as_placed = rule.nodes.iter().all(|bare| {
                let placed = rule.values(&g.base, bare.node, bare.verdict);
                match bare.slot {
                    Some(s) => placed == Some(model.allowed[s as usize]),
                    None => placed == Some(0),
                }
            });
            if !as_placed {
                return None;
            }
            rules.push(rule);
        }
        let hub_values = (model.hubs.iter())
            .map(|h| union(&model.allowed, &h.readers))
            .collect();
        Some(Narrowing {
            rules,
            hub_values,
            positions: LayerPositions::of(g),
        })
    }

    /// Where a puzzle's layers set their marks ([`PuzzleMarks::of`](super::PuzzleMarks::of) reads them there).
    pub fn positions(&self) -> &LayerPositions {
        &self.positions
    }

    /// The values `layered` (the graph `bare` that [`Narrowing::of`] read, with a puzzle's
    /// layers, or its marks read from them) takes from the slots of `model` (the one
    /// [`Narrowing::of`] read, whose slots and hubs it keeps); `None` when the puzzle must
    /// be compiled: it allows a placement `bare` does not, or it changes a hub (see
    /// [`keeps_hubs`]). `layered`'s graph is read only for marks not seen before.
    pub fn removed(
        &self,
        model: &SlotModel,
        bare: &Graph,
        layered: &impl Marks,
    ) -> Option<Removed> {
        let mut removed: Removed = Vec::new();
        for rule in &self.rules {
            // Puzzles of one file share their marks' few values: the verdicts stay.
            let mut verdicts = rule.verdicts.lock().unwrap_or_else(PoisonError::into_inner);
            // This puzzle's first few, compared before any is hashed.
            let mut few: SmallVec<[(Read, u128); FEW_READS]> = SmallVec::new();
            for &BareNode {
                node: n,
                verdict: before,
                slot,
            } in &rule.nodes
            {
                if rule.node.reads_alike(bare, layered, n) {
                    continue;
                }
                let after = match few
                    .iter()
                    .find(|(read, _)| rule.node.reads(layered, n, read))
                {
                    Some(&(_, after)) => after,
                    None => {
                        let after = rule.verdict(&mut verdicts, layered, n);
                        if few.len() < FEW_READS {
                            few.push((rule.node.read(layered, n), after));
                        }
                        after
                    }
                };
                if after & !before != 0 {
                    return None;
                }
                let lost = match rule.places_itself {
                    true => before & !after,
                    false => rule.values(bare, n, before & !after)?,
                };
                let s = slot?;
                let lost = lost & model.allowed[s as usize];
                if lost != 0 {
                    removed.push((s, lost));
                }
            }
        }
        // A node two rules' types match is listed by both.
        removed.sort_unstable_by_key(|&(s, _)| s);
        removed.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 |= later.1;
            }
            same
        });
        keeps_hubs(model, &self.hub_values, &removed).then_some(removed)
    }
}

/// True when a compilation of the model less `removed` would build the same hubs and
/// tables: no slot loses every value (a hub reads only cells some value may fill), and
/// every hub's readers together still allow every value they allowed (`hub_values`: an
/// all-different table covers the values placed where its NAC matches).
fn keeps_hubs(model: &SlotModel, hub_values: &[u128], removed: &Removed) -> bool {
    if removed.is_empty() {
        return true;
    }
    let mut after = model.allowed.to_vec();
    for &(s, xs) in removed {
        after[s as usize] &= !xs;
        if after[s as usize] == 0 {
            return false;
        }
    }
    (model.hubs.iter().zip(hub_values)).all(|(h, &before)| union(&after, &h.readers) == before)
}

/// The values `readers` allow together.
fn union(allowed: &[u128], readers: &[u32]) -> u128 {
    readers.iter().fold(0, |u, &r| u | allowed[r as usize])
}

/// The most verdicts a rule keeps; past it they are found again (a layer of numbers, not
/// marks, could take many values).
const MAX_READS_KEPT: usize = 1 << 10;

impl LoneRule {
    /// The values placed in node `n` of `g` under the parameter values of `verdict`'s bits;
    /// `None` if one is no domain value.
    fn values(&self, g: &Graph, n: NodeId, mut verdict: u128) -> Option<u128> {
        let mut values = 0u128;
        while verdict != 0 {
            let i = verdict.trailing_zeros() as usize;
            verdict &= verdict - 1;
            let placed = match &self.placed {
                Some(placed) => placed[i],
                None => self.value.eval(&BindingEnv {
                    graph: g,
                    binding: &[n],
                    params: &self.params[i],
                    folds: None,
                }),
            };
            match placed {
                Value::Val(x) => values |= 1u128 << x,
                _ => return None,
            }
        }
        Some(values)
    }

    /// [`LoneNode::verdict`], kept in `verdicts` by the attributes read.
    fn verdict(&self, verdicts: &mut FxHashMap<Read, u128>, g: &impl Marks, n: NodeId) -> u128 {
        let read = self.node.read(g, n);
        if let Some(&v) = verdicts.get(&read) {
            return v;
        }
        let v = self.node.verdict(g.graph(), n, &self.params);
        if verdicts.len() < MAX_READS_KEPT {
            verdicts.insert(read, v);
        }
        v
    }
}
