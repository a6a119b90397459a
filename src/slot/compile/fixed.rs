//! What a puzzle's layers cannot change, compiled once per rule file: NAC tables, the
//! instances of rules whose left side no layer reaches, the matches of NAC structures.
//!
//! A batch of layered puzzles (a killer's cages and sums) compiles the slot engine anew
//! for each puzzle, since the layers add structure the NACs may read. But a NAC whose
//! structure, together with its rule's left side, can bind no node a layer adds, follow no
//! edge label a layer adds and read no attribute a layer sets, has the same matches on
//! every puzzle's graph: a layer's nodes come after the base graph's, so base node ids
//! hold. Its effect on the model (tables, hubs, narrowed values) is then recorded when
//! the rule file compiles, and replayed for each puzzle instead of matched again. So are
//! the instances of a rule whose left side and value no layer can reach, and the matches
//! of a NAC's structure that a layer reaches only through values its conditions read (a
//! consecutive bar): the NAC is compiled per puzzle, over the rule file's matches. A NAC
//! that reaches no layer's node or edge but reads attributes a layer sets on the base
//! graph (a skyscraper line's number of empty plots) has an effect decided by those
//! values: it is recorded by them, once per batch, and replayed for every puzzle whose
//! layers give them alike.

use std::collections::HashMap;
use std::sync::Arc;

use smallvec::SmallVec;

use crate::grammar::Grammar;
use crate::layer::{base_write_types, sets_on, LayerKind};
use crate::model::{AttrId, LabelId, NodeId, NodeTypeId, Value};
use crate::rule::{Expr, PathExpr, Pattern};

use super::super::group::GroupNac;
use super::super::model::{Hub, SlotModel, Slots};
use super::super::shared_ground::GroundCache;
use super::instances::Instances;
use super::kept::Kept;
use super::tuples::ByLeftSide;

/// What compiling one NAC added to the model.
#[derive(Clone, Debug)]
struct Effect {
    /// The hubs added, each with its table (tables are shared by content, so a table's
    /// index depends on what the model held before).
    hubs: Vec<(Slots, Slots, Vec<u128>)>,
    /// Tables added without a hub of their own.
    tables: Vec<Vec<u128>>,
    /// Per slot, the values this NAC removed from those some rule may place.
    removed: Vec<u128>,
}

/// The recorded effects of a rule file's layer-independent NACs, keyed by (rule, NAC),
/// and the instances of its layer-independent left sides, keyed by rule.
#[derive(Clone, Debug, Default)]
pub struct FixedNacs {
    /// The slots the effects are numbered over.
    slots: Arc<Vec<(NodeId, AttrId)>>,
    effects: HashMap<(usize, usize), Effect>,
    /// Per rule, the instances of a left side no layer reaches (shared, not copied, by
    /// every puzzle's compilation).
    instances: HashMap<usize, Arc<Instances>>,
    /// Per NAC a layer reaches only through the values its conditions read (a bar, a
    /// dot), the matches of its structure, alike on every puzzle's graph.
    matches: HashMap<(usize, usize), Arc<ByLeftSide>>,
    /// Per group NAC, its conditions and aggregates (read from the rule alone).
    group_nac_of: HashMap<(usize, usize), Arc<GroupNac>>,
    /// What NAC conditions say of unchanging values, for the NACs a layer reaches.
    pub(super) verdicts: Verdicts,
    /// The effects of the NACs a layer reaches only through attribute values it sets on
    /// the base graph, by (rule, NAC) and those values.
    pub(super) by_values: EffectsByValues,
    /// Per rule, its NACs over a group: the analysis that finds them reads the rules, the
    /// types, the domain and the final condition, which no layer changes, never the graph.
    pub(super) group_nacs: Option<Arc<[Vec<usize>]>>,
    /// Per NAC (rule, NAC), in the order compiled, how many hubs the model held after it:
    /// the hubs of NAC k are those from the end of NAC k - 1 to its own.
    pub(super) hub_ends: Vec<((usize, usize), usize)>,
    /// The aggregates of `forbid` patterns and final conditions grounded so far by the
    /// rule file and its puzzles, where no layer changes what they read.
    pub(super) grounds: GroundCache,
}

/// A NAC condition's verdict on one placement's unchanging values: the witness values
/// with which it holds, and whether it holds with the witness empty. A function of the
/// rule file's NAC, the parameters and those values only, so every puzzle of a batch
/// shares it: a layer's marks (a bar, a dot) take a few values, read by every puzzle.
/// Keyed by (rule, NAC), parameters and the unchanging values read.
#[derive(Clone, Debug)]
pub(super) struct Verdicts(Arc<Kept<VerdictKey, (u128, bool)>>);

impl Default for Verdicts {
    fn default() -> Self {
        Verdicts(Arc::new(Kept::new(MAX_VERDICTS)))
    }
}

type VerdictKey = ((usize, usize), SmallVec<[Value; 2]>, SmallVec<[Value; 4]>);

/// The most verdicts a thread keeps (each thread keeps its own: see `Kept`): past it
/// they are forgotten and found again. A batch's marks read a few hundred.
const MAX_VERDICTS: usize = 1 << 14;

impl Verdicts {
    /// The verdict for `key`, from `judge` the first time.
    pub(super) fn get_or(
        &self,
        key: VerdictKey,
        judge: impl FnOnce() -> (u128, bool),
    ) -> (u128, bool) {
        if let Some(v) = self.0.find(&key, |&v| v) {
            return v;
        }
        let v = judge();
        self.0.keep(key, v);
        v
    }
}

/// The effects of NACs by the layer values they read: filled by the rule file and its
/// puzzles, shared by a batch.
#[derive(Clone, Debug)]
pub(super) struct EffectsByValues(Arc<Kept<ValuesKey, Arc<Effect>>>);

impl Default for EffectsByValues {
    fn default() -> Self {
        EffectsByValues(Arc::new(Kept::new(MAX_BY_VALUES)))
    }
}

#[cfg(test)]
thread_local! {
    /// How many NAC effects were replayed by values, for tests to see them replayed.
    pub(super) static REPLAYED_BY_VALUES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// (rule, NAC), and the values the layers set of the attributes it reads, in the order
/// of the layers and their nodes.
pub(super) type ValuesKey = ((usize, usize), Box<[Value]>);

/// The most effects by values a thread keeps (each may hold hubs over every slot): a
/// batch's lines take a few counts.
const MAX_BY_VALUES: usize = 1 << 6;

impl EffectsByValues {
    /// Replays on `model` the effect recorded for `key`; false when none is.
    pub(super) fn replay(&self, key: &ValuesKey, model: &mut SlotModel) -> bool {
        let Some(effect) = self.0.find(key, Arc::clone) else {
            return false;
        };
        effect.apply(model);
        #[cfg(test)]
        REPLAYED_BY_VALUES.set(REPLAYED_BY_VALUES.get() + 1);
        true
    }

    /// Records what the NAC of `key` added to `model` since `mark` (see
    /// [`FixedNacs::record`]).
    pub(super) fn record(&self, key: ValuesKey, model: &mut SlotModel, mark: Mark) {
        self.0.keep(key, Arc::new(Effect::since(model, mark)));
    }
}

/// The model before a NAC compiles, to tell afterwards what it added.
pub(super) struct Mark {
    hubs: usize,
    tables: usize,
    /// The values allowed before, while the NAC compiles over every value allowed: what it
    /// removes must not hide behind what another NAC, which a layer may change, removed.
    allowed: Arc<Vec<u128>>,
}

impl Mark {
    /// Marks `model` and allows every value until [`FixedNacs::record`] restores them.
    pub(super) fn of(model: &mut SlotModel) -> Mark {
        let all = Arc::new(vec![!0; model.allowed.len()]);
        let allowed = std::mem::replace(&mut model.allowed, all);
        Mark {
            hubs: model.hubs.len(),
            tables: model.tables.len(),
            allowed,
        }
    }
}

impl FixedNacs {
    /// An empty record over the slots of `model`.
    pub(super) fn over(model: &SlotModel) -> FixedNacs {
        FixedNacs {
            slots: model.slots.clone(),
            effects: HashMap::new(),
            instances: HashMap::new(),
            matches: HashMap::new(),
            group_nac_of: HashMap::new(),
            verdicts: Verdicts::default(),
            by_values: EffectsByValues::default(),
            group_nacs: None,
            hub_ends: Vec::new(),
            grounds: GroundCache::default(),
        }
    }

    /// How many NACs' effects are recorded.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.effects.len()
    }

    /// True when the effects recorded here may be replayed on `model`: same slots.
    pub(super) fn fits(&self, model: &SlotModel) -> bool {
        Arc::ptr_eq(&self.slots, &model.slots) || self.slots == model.slots
    }

    /// How many rules' instances are kept.
    #[cfg(test)]
    pub(super) fn kept_instances(&self) -> usize {
        self.instances.len()
    }

    /// Keeps rule `ri`'s instances, which no layer can change.
    pub(super) fn keep_instances(&mut self, ri: usize, instances: Arc<Instances>) {
        self.instances.insert(ri, instances);
    }

    /// Rule `ri`'s instances, when kept.
    pub(super) fn instances(&self, ri: usize) -> Option<&Arc<Instances>> {
        self.instances.get(&ri)
    }

    /// How many NACs' structure matches are kept.
    #[cfg(test)]
    pub(super) fn kept_matches(&self) -> usize {
        self.matches.len()
    }

    /// Keeps the matches of NAC `key`'s structure, which no layer can change.
    pub(super) fn keep_matches(&mut self, key: (usize, usize), matches: Arc<ByLeftSide>) {
        self.matches.insert(key, matches);
    }

    /// The matches of NAC `key`'s structure, when kept.
    pub(super) fn matches(&self, key: (usize, usize)) -> Option<&Arc<ByLeftSide>> {
        self.matches.get(&key)
    }

    /// How many group NACs are kept.
    #[cfg(test)]
    pub(super) fn kept_group_nacs(&self) -> usize {
        self.group_nac_of.len()
    }

    /// Keeps group NAC `key`'s conditions and aggregates.
    pub(super) fn keep_group_nac(&mut self, key: (usize, usize), nac: Arc<GroupNac>) {
        self.group_nac_of.insert(key, nac);
    }

    /// Group NAC `key`'s conditions and aggregates, when kept.
    pub(super) fn group_nac(&self, key: (usize, usize)) -> Option<&Arc<GroupNac>> {
        self.group_nac_of.get(&key)
    }

    /// Whether the hubs of every NAC of `g`'s rules are recorded, in the order compiled,
    /// up to the last of `model` (compiled with this record): which NAC made which hubs.
    pub(super) fn records_every_nac(&self, g: &Grammar, model: &SlotModel) -> bool {
        let nacs: usize = g.rules.iter().map(|r| r.lhs.nacs.len()).sum();
        self.hub_ends.len() == nacs
            && (self.hub_ends.last()).is_none_or(|&(_, end)| end == model.hubs.len())
    }

    /// Records what NAC `nac` of rule `rule` added to `model` since `mark`, and narrows
    /// the values allowed before by what it removed.
    pub(super) fn record(&mut self, key: (usize, usize), model: &mut SlotModel, mark: Mark) {
        self.effects.insert(key, Effect::since(model, mark));
    }

    /// Replays the recorded effect of NAC `key` on `model`; false when none is recorded.
    pub(super) fn replay(&self, key: (usize, usize), model: &mut SlotModel) -> bool {
        let Some(effect) = self.effects.get(&key) else {
            return false;
        };
        effect.apply(model);
        true
    }
}

impl Effect {
    /// What a NAC added to `model` since `mark`; the values allowed before are narrowed
    /// by what it removed.
    fn since(model: &mut SlotModel, mark: Mark) -> Effect {
        let added = &model.hubs[mark.hubs..];
        let hubs = added
            .iter()
            .map(|h| {
                let table = model.tables[h.table as usize].clone();
                (h.writers.clone(), h.readers.clone(), table)
            })
            .collect();
        let tables = model.tables[mark.tables..].to_vec();
        let removed: Vec<u128> = model.allowed.iter().map(|after| !after).collect();
        model.allowed = mark.allowed;
        for (allowed, removed) in Arc::make_mut(&mut model.allowed).iter_mut().zip(&removed) {
            *allowed &= !removed;
        }
        Effect {
            hubs,
            tables,
            removed,
        }
    }

    /// Adds this effect to `model`.
    fn apply(&self, model: &mut SlotModel) {
        for table in &self.tables {
            model.add_table(table.clone());
        }
        for (writers, readers, table) in &self.hubs {
            let table = model.add_table(table.clone());
            model.hubs.push(Hub {
                writers: writers.clone(),
                readers: readers.clone(),
                table,
            });
        }
        for (allowed, removed) in Arc::make_mut(&mut model.allowed)
            .iter_mut()
            .zip(&self.removed)
        {
            *allowed &= !removed;
        }
    }
}

/// What a grammar's layers add: node types, edge labels, and attributes of base nodes.
pub(super) struct LayerVocabulary {
    types: Vec<NodeTypeId>,
    labels: Vec<LabelId>,
    attrs: Vec<AttrId>,
    /// Those attributes with the types of the nodes they are set on: an attribute is known
    /// by its index within its type, so a row's clue may share the cells' value's.
    writes: Vec<(NodeTypeId, AttrId)>,
}

impl LayerVocabulary {
    pub(super) fn of(g: &Grammar) -> LayerVocabulary {
        let mut v = LayerVocabulary {
            types: Vec::new(),
            labels: Vec::new(),
            attrs: Vec::new(),
            writes: Vec::new(),
        };
        let cells = g.grid.as_ref().map_or(&[][..], |grid| &grid.cells[..]);
        for layer in g.layers.iter() {
            match &layer.kind {
                LayerKind::Regions { ty, label } => {
                    v.types.push(*ty);
                    v.labels.push(*label);
                }
                LayerKind::Lines { ty, label, next } => {
                    v.types.push(*ty);
                    v.labels.push(*label);
                    v.labels.extend(*next);
                }
                // On layer nodes only, which the types above keep out of reach.
                LayerKind::RegionAttr { .. } | LayerKind::LineAttr { .. } => {}
                // On cells and row or column nodes of the base graph.
                LayerKind::CellAttr { attr, .. } | LayerKind::NodeAttr { attr, .. } => {
                    v.attrs.push(*attr);
                }
            }
        }
        v.writes = base_write_types(&g.layers, cells, &g.base);
        v
    }

    /// True when NAC `nac` of a rule with left side `lhs`, placing `value`, matches and
    /// blocks alike on every puzzle's graph: none of its or the left side's nodes can be a
    /// layer's node, none of their edges follows a layer's label, and neither a condition
    /// (on a changing attribute or only on unchanging ones, of any node) nor the value
    /// placed reads an attribute a layer sets (in the NAC compared by index alone, which
    /// may only refuse too much).
    pub(super) fn cannot_reach(
        &self,
        g: &Grammar,
        (lhs, value): (&Pattern, &Expr),
        nac: &Pattern,
    ) -> bool {
        self.cannot_reach_lhs(g, lhs, value) && self.pattern_free(g, nac) && nac.nacs.is_empty()
    }

    /// True when a rule's left side `lhs` and the `value` it places match and evaluate
    /// alike on every puzzle's graph (its NACs aside), by the same tests as
    /// [`LayerVocabulary::cannot_reach`], but for the attributes read, which are compared
    /// with the layers' by their nodes' types where the left side declares them: a cell's
    /// value is not a row's clue of the same index.
    pub(super) fn cannot_reach_lhs(&self, g: &Grammar, lhs: &Pattern, value: &Expr) -> bool {
        self.lhs_structure_free(g, lhs, value) && self.lhs_attrs_free(g, lhs, value)
    }

    /// [`Self::cannot_reach_lhs`] but for the attributes read: no node of a layer's type,
    /// no edge along a layer's label, in the left side or its conditions' aggregates.
    fn lhs_structure_free(&self, g: &Grammar, lhs: &Pattern, value: &Expr) -> bool {
        let node_free = lhs
            .nodes
            .iter()
            .all(|n| !self.types.iter().any(|&t| g.types.is_subtype(t, n.ty)));
        let edge_free = lhs.edges.iter().all(|e| !self.path_reads(&e.path));
        node_free
            && edge_free
            && (lhs.conds.iter().chain([value])).all(|e| self.expr_free_as(g, e, false))
    }

    /// Whether the left side's conditions and the value placed read no attribute on a
    /// node of a type a layer sets it on (a read of a node whose type is not declared
    /// counts as one).
    fn lhs_attrs_free(&self, g: &Grammar, lhs: &Pattern, value: &Expr) -> bool {
        if self.attrs.is_empty() {
            return true;
        }
        let mut read = Vec::new();
        let scope = &mut vec![lhs];
        for e in lhs.conds.iter().chain([value]) {
            self.attrs_read(e, scope, &mut read);
        }
        (read.iter()).all(|&(ty, a)| ty.is_some_and(|ty| !sets_on(&self.writes, &g.types, ty, a)))
    }

    /// True when `e` reads no attribute a layer sets, and each of its aggregates ranges
    /// over nothing a layer adds (a count of the dots between two cells reads the dots).
    pub(super) fn expr_free(&self, g: &Grammar, e: &Expr) -> bool {
        self.expr_free_as(g, e, true)
    }

    /// [`Self::expr_free`], leaving the attributes read out where `attrs` is false.
    fn expr_free_as(&self, g: &Grammar, e: &Expr, attrs: bool) -> bool {
        let mut free = true;
        if attrs {
            e.visit_attrs(&mut |_, a| free &= !self.attrs.contains(&a));
        }
        e.visit_aggregates(&mut |agg| {
            free &= self.pattern_free_as(g, &agg.pattern, attrs)
                && (agg.body.as_ref()).is_none_or(|b| self.expr_free_as(g, b, attrs));
        });
        free
    }

    /// True when no node, edge, condition or NAC of `p` can read what a layer adds.
    pub(super) fn pattern_free(&self, g: &Grammar, p: &Pattern) -> bool {
        self.pattern_free_as(g, p, true)
    }

    /// [`Self::pattern_free`], leaving the attributes read out where `attrs` is false.
    fn pattern_free_as(&self, g: &Grammar, p: &Pattern, attrs: bool) -> bool {
        p.nodes
            .iter()
            .all(|n| !self.types.iter().any(|&t| g.types.is_subtype(t, n.ty)))
            && p.edges.iter().all(|e| !self.path_reads(&e.path))
            && p.conds.iter().all(|c| self.expr_free_as(g, c, attrs))
            && p.nacs.iter().all(|q| self.pattern_free_as(g, q, attrs))
    }

    /// Where NAC `nac` of a rule with left side `lhs`, placing `value`, reaches no
    /// layer's node or edge label but reads attributes a layer sets (of base nodes, then):
    /// the values the layers of `g` set of those attributes, which decide its effect with
    /// the rule file's. `None` where it reaches a layer otherwise, or reads none.
    pub(super) fn values_read(
        &self,
        g: &Grammar,
        (lhs, value): (&Pattern, &Expr),
        nac: &Pattern,
    ) -> Option<Box<[Value]>> {
        let structure_free = self.lhs_structure_free(g, lhs, value)
            && self.pattern_free_as(g, nac, false)
            && nac.nacs.is_empty();
        if !structure_free {
            return None;
        }
        // The attributes read that a layer sets, with the type of the node read where the
        // patterns declare it.
        let mut read = Vec::new();
        let scope = &mut vec![lhs, nac];
        for e in lhs.conds.iter().chain([value]).chain(&nac.conds) {
            self.attrs_read(e, scope, &mut read);
        }
        if read.is_empty() {
            return None;
        }
        let cells = g.grid.as_ref().map_or(&[][..], |grid| &grid.cells[..]);
        let mut values = Vec::new();
        for layer in g.layers.iter() {
            let Some((nodes, attr)) = layer.kind.base_writes(cells) else {
                continue;
            };
            let reads_it = |n: NodeId| {
                read.iter().any(|&(ty, a)| {
                    a == attr && ty.is_none_or(|ty| g.types.is_subtype(g.base.ty(n), ty))
                })
            };
            if nodes.iter().any(|&n| reads_it(n)) {
                values.extend(nodes.iter().map(|&n| g.base.attr(n, attr)));
            }
        }
        Some(values.into())
    }

    /// Adds to `read` the attributes a layer sets that `e` reads, its aggregates included,
    /// each with the type the innermost pattern of `scope` declares for the node read.
    fn attrs_read<'p>(
        &self,
        e: &'p Expr,
        scope: &mut Vec<&'p Pattern>,
        read: &mut Vec<(Option<NodeTypeId>, AttrId)>,
    ) {
        e.visit_attrs(&mut |v, a| {
            if self.attrs.contains(&a) {
                let ty = scope.iter().rev().find_map(|p| p.node(v)).map(|n| n.ty);
                read.push((ty, a));
            }
        });
        let mut inner = Vec::new();
        e.visit_aggregates(&mut |agg| inner.push(agg));
        for agg in inner {
            self.pattern_attrs_read(&agg.pattern, scope, read);
            if let Some(body) = &agg.body {
                scope.push(&agg.pattern);
                self.attrs_read(body, scope, read);
                scope.pop();
            }
        }
    }

    /// [`Self::attrs_read`] of every condition of `p` and its NACs.
    fn pattern_attrs_read<'p>(
        &self,
        p: &'p Pattern,
        scope: &mut Vec<&'p Pattern>,
        read: &mut Vec<(Option<NodeTypeId>, AttrId)>,
    ) {
        scope.push(p);
        for c in &p.conds {
            self.attrs_read(c, scope, read);
        }
        for q in &p.nacs {
            self.pattern_attrs_read(q, scope, read);
        }
        scope.pop();
    }

    /// True when a layer sets attribute `a` (of any type: compared by index alone).
    pub(super) fn sets(&self, a: AttrId) -> bool {
        self.attrs.contains(&a)
    }

    fn path_reads(&self, path: &PathExpr) -> bool {
        match path {
            PathExpr::Label(l) => self.labels.contains(l),
            PathExpr::Inverse(p) | PathExpr::Star(p) | PathExpr::Plus(p) | PathExpr::Opt(p) => {
                self.path_reads(p)
            }
            PathExpr::Seq(ps) | PathExpr::Alt(ps) => ps.iter().any(|p| self.path_reads(p)),
        }
    }
}
