//! Aggregates and NACs of `forbid` patterns and final conditions, grounded once for all the
//! puzzles of a rule file: where the layers only set attributes (a skyscraper's clues, a
//! sum outside the grid) and an aggregate reads none that they set, its matches, and so
//! its grounded items, are the same on every puzzle's graph.
//!
//! The node ids of a puzzle's graph are the bare graph's when its layers add no node, and
//! the patterns are the rule file's own (its layered grammars share them), so an aggregate
//! at a binding is known by its pattern's and body's addresses and the binding's nodes.
//! A whole instance (a sight line with its clue) is known by its pattern's address, its
//! binding's nodes and the values it reads there that the layers set: two puzzles whose
//! clue on a line is the same share its grounding, and its programs.

use std::hash::Hash;
use std::sync::{Arc, Mutex};

use rustc_hash::{FxHashMap, FxHashSet};

use crate::grammar::Grammar;
use crate::layer::{base_write_types, sets_on};
use crate::matcher::CompiledCondition;
use crate::model::{AttrId, NodeId, NodeTypeId, TypeSystem, Value, VarId};
use crate::rule::{Condition, Expr, Pattern};

use super::forbid::{GroundInstance, PatternPlans};
use super::ground::Item;
use super::layout::Pairs;
use super::model::Hub;

/// One aggregate's (or NAC's) items at one binding, and what grounding them asked of the
/// budget: a puzzle that takes them takes the same from its own, and grounds them itself
/// where its budget would have run out, so that the outcome is the one grounding gives.
#[derive(Debug)]
pub struct Grounded {
    pub items: Vec<Item>,
    pub spent: Spent,
}

/// What grounding asked of the budget.
#[derive(Clone, Copy, Debug)]
pub struct Spent {
    /// Term nodes it took.
    pub consumed: usize,
    /// The least budget with which it succeeds.
    pub needs: usize,
}

impl Spent {
    /// Takes from `budget` what grounding took, as grounding there would take it: the
    /// budget left before, less what it needs (its headroom); `None`, taking nothing,
    /// where the budget would run out part way.
    pub fn take(self, budget: &mut usize) -> Option<usize> {
        let headroom = budget.checked_sub(self.needs)?;
        *budget -= self.consumed;
        Some(headroom)
    }
}

/// (pattern address, body address or 0, the binding's nodes).
type GroundKey = (usize, usize, Box<[NodeId]>);

/// (pattern address, the binding's nodes, the values read there that the layers set).
pub type InstanceKey = (usize, Box<[NodeId]>, Box<[Value]>);

/// Per list of slots (sorted), the pairs among them that hubs relate, by position.
pub type RelatedPairs = FxHashMap<Box<[u32]>, Arc<Pairs>>;

/// Hubs, and the related pairs listed over them.
type PairsOver = (Vec<Hub>, RelatedPairs);

/// A grounded instance, and what grounding it spent.
pub type SharedInstance = (Arc<GroundInstance>, Spent);

/// The grounded aggregates of a rule file's puzzles, shared by every puzzle of a batch and
/// filled by whichever grounds one first.
#[derive(Clone, Debug, Default)]
pub struct GroundCache {
    map: Arc<Mutex<FxHashMap<GroundKey, Arc<Grounded>>>>,
    /// Whole instances, grounded and laid out, with what grounding them spent.
    instances: Arc<Mutex<FxHashMap<InstanceKey, SharedInstance>>>,
    /// What the layers set; `None` (nothing shared) where they add nodes or edges.
    writes: Option<Arc<LayerWrites>>,
    /// The rule file's final condition and `forbid` patterns, which the keys point into:
    /// held, so that no other pattern takes their addresses while the cache lives, and
    /// compared, so that only grammars sharing them take from it.
    patterns: Option<FilePatterns>,
    /// The start tables of the puzzles' grounded instances, which any grammar may share
    /// (they are known by what decides them).
    pub tables: super::start_tables::TableCache,
    /// The shapes of the puzzles' grounded instances, which any grammar may share.
    pub shapes: super::shapes::ShapeCache,
    /// The shapes of instances over one region, by the region's size: shared also where
    /// layers draw the regions (see [`super::region_ground`]).
    pub regions: super::region_ground::RegionTemplates,
    /// The hubs of the first puzzle that asked, and the related pairs of the slots its
    /// instances read (see [`Self::with_related_pairs`]).
    pairs: Arc<Mutex<Option<PairsOver>>>,
    /// Per `forbid` pattern and final condition, in the order they are compiled, its
    /// search plans: they depend on the pattern alone, so every puzzle takes the first's.
    plans: Arc<Mutex<Vec<Option<Arc<PatternPlans>>>>>,
    /// The part of the final condition that filled cells do not decide, compiled, with
    /// the addresses of the conjuncts it holds (within the rule file's condition).
    final_rest: Arc<Mutex<Option<FinalRest>>>,
}

/// The addresses of a final condition's conjuncts, and their conjunction compiled.
type FinalRest = (Vec<usize>, Arc<CompiledCondition>);

/// A rule file's final condition and `forbid` patterns.
type FilePatterns = (Option<Arc<Condition>>, Arc<Vec<Pattern>>);

/// The attributes the layers of a rule file set, on which nodes.
#[derive(Debug)]
struct LayerWrites {
    nodes: FxHashSet<(NodeId, AttrId)>,
    /// The types of those nodes, with the attribute.
    types: Vec<(NodeTypeId, AttrId)>,
}

/// The most aggregates kept: past it they are forgotten and grounded again.
const MAX_GROUNDED: usize = 1 << 14;

impl GroundCache {
    /// An empty cache for the puzzles of `g`, which shares nothing where a layer of `g`
    /// adds nodes or edges (regions, lines).
    pub fn of(g: &Grammar) -> GroundCache {
        let cells = g.grid.as_ref().map_or(&[][..], |grid| &grid.cells[..]);
        let mut nodes_set = FxHashSet::default();
        for layer in g.layers.iter() {
            let Some((nodes, attr)) = layer.kind.base_writes(cells) else {
                // Regions or lines: nothing grounded is shared (no writes), but the plans are.
                return GroundCache {
                    patterns: Some((g.final_cond.clone(), g.forbids.clone())),
                    ..GroundCache::default()
                };
            };
            nodes_set.extend(nodes.iter().map(|&n| (n, attr)));
        }
        // Their types only once the layers are known to share.
        let writes = LayerWrites {
            nodes: nodes_set,
            types: base_write_types(&g.layers, cells, &g.base),
        };
        GroundCache {
            map: Arc::default(),
            instances: Arc::default(),
            writes: Some(Arc::new(writes)),
            patterns: Some((g.final_cond.clone(), g.forbids.clone())),
            tables: Default::default(),
            shapes: Default::default(),
            regions: Default::default(),
            pairs: Arc::default(),
            plans: Arc::default(),
            final_rest: Arc::default(),
        }
    }

    /// The compiled conjunction of the final condition's conjuncts at `addresses`: the
    /// one kept, or `compile`'s, kept.
    pub fn final_rest(
        &self,
        addresses: Vec<usize>,
        compile: impl FnOnce() -> CompiledCondition,
    ) -> Arc<CompiledCondition> {
        // As with the groundings, a poisoned lock shares nothing.
        let Ok(mut kept) = self.final_rest.lock() else {
            return Arc::new(compile());
        };
        match &*kept {
            Some((known, c)) if *known == addresses => c.clone(),
            _ => {
                let c = Arc::new(compile());
                *kept = Some((addresses, c.clone()));
                c
            }
        }
    }

    /// The plans of the `i`-th pattern compiled: the ones kept, or `compile`'s, kept.
    pub fn plans(&self, i: usize, compile: impl FnOnce() -> PatternPlans) -> Arc<PatternPlans> {
        let known = self
            .plans
            .lock()
            .ok()
            .and_then(|p| p.get(i).cloned().flatten());
        if let Some(known) = known {
            return known;
        }
        let plans = Arc::new(compile());
        if let Ok(mut kept) = self.plans.lock() {
            if kept.len() <= i {
                kept.resize(i + 1, None);
            }
            kept[i] = Some(plans.clone());
        }
        plans
    }

    /// Whether `g` grounds the patterns this cache was made for (it is the rule file's
    /// grammar, or one of its puzzles'): only then may it take from it.
    pub fn serves(&self, g: &Grammar) -> bool {
        self.patterns.as_ref().is_some_and(|(final_cond, forbids)| {
            let same_final = match (final_cond, &g.final_cond) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            };
            same_final && Arc::ptr_eq(forbids, &g.forbids)
        })
    }

    /// Where `q` with `body` may be shared: the attributes they read of nodes bound
    /// outside them, to be checked at each binding ([`Self::reads_no_layer`]); `None`
    /// where one of their own nodes may hold an attribute a layer sets, or a layer adds
    /// nodes or edges.
    pub fn outer_reads(
        &self,
        types: &TypeSystem,
        q: &Pattern,
        body: Option<&Expr>,
    ) -> Option<Vec<(VarId, AttrId)>> {
        self.reads_beyond(types, |read| visit_pattern(q, body, &mut Vec::new(), read))
    }

    /// The attributes `visit` reads of variables it does not declare, sorted; `None`
    /// where one it declares may hold an attribute a layer sets, or a layer adds nodes
    /// or edges.
    fn reads_beyond(
        &self,
        types: &TypeSystem,
        visit: impl FnOnce(&mut dyn FnMut(VarId, Option<NodeTypeId>, AttrId)),
    ) -> Option<Vec<(VarId, AttrId)>> {
        let writes = self.writes.as_deref()?;
        let mut outer = Vec::new();
        let mut own_free = true;
        visit(
            &mut |v: VarId, ty: Option<NodeTypeId>, a: AttrId| match ty {
                Some(ty) => own_free &= !sets_on(&writes.types, types, ty, a),
                None => outer.push((v, a)),
            },
        );
        outer.sort_unstable();
        outer.dedup();
        own_free.then_some(outer)
    }

    /// Whether the nodes `binding` gives the variables of `outer` hold none of the
    /// attributes read there that a layer sets.
    pub fn reads_no_layer(&self, outer: &[(VarId, AttrId)], binding: &[NodeId]) -> bool {
        let Some(writes) = self.writes.as_deref() else {
            return false;
        };
        outer.iter().all(|&(v, a)| {
            binding
                .get(v.index())
                .is_some_and(|&n| !writes.nodes.contains(&(n, a)))
        })
    }

    /// Calls `f` with the related pairs of instances' reads listed over `hubs`, to look
    /// up and add to, where `hubs` are those of the first puzzle that asked (the pairs
    /// depend on the hubs alone); with `None` otherwise.
    pub fn with_related_pairs<R>(
        &self,
        hubs: &[Hub],
        f: impl FnOnce(Option<&mut RelatedPairs>) -> R,
    ) -> R {
        let Ok(mut kept) = self.pairs.lock() else {
            return f(None);
        };
        let kept = kept.get_or_insert_with(|| (hubs.to_vec(), RelatedPairs::default()));
        if kept.0[..] != *hubs {
            return f(None);
        }
        if kept.1.len() >= MAX_GROUNDED {
            kept.1.clear();
        }
        f(Some(&mut kept.1))
    }

    /// The items of `q` with `body` at `binding`, when grounded.
    pub fn get(
        &self,
        q: &Pattern,
        body: Option<&Expr>,
        binding: &[NodeId],
    ) -> Option<Arc<Grounded>> {
        let key = key(q, body, binding);
        self.map.lock().ok()?.get(&key).cloned()
    }

    pub fn insert(&self, q: &Pattern, body: Option<&Expr>, binding: &[NodeId], g: Grounded) {
        keep(&self.map, key(q, body, binding), Arc::new(g));
    }

    /// What an instance of `p` reads of its own nodes, to key it by ([`Self::instance`]);
    /// `None` where the nodes its aggregates and NACs match may hold an attribute a layer
    /// sets, or a layer adds nodes or edges.
    pub fn instance_reads(&self, types: &TypeSystem, p: &Pattern) -> Option<InstanceReads> {
        // The instance's own variables are bound: as outer ones to an aggregate.
        self.reads_beyond(types, |read| visit_body(p, None, &mut Vec::new(), read))
            .map(Into::into)
    }

    /// The key of the instance of `p` at `binding`, which reads `reads` of its nodes:
    /// the values among them that a layer of `g` sets.
    pub fn instance_key(
        &self,
        g: &Grammar,
        p: &Pattern,
        reads: &InstanceReads,
        binding: &[NodeId],
    ) -> Option<InstanceKey> {
        let writes = self.writes.as_deref()?;
        let mut values = Vec::new();
        for &(v, a) in reads.iter() {
            let n = *binding.get(v.index())?;
            if writes.nodes.contains(&(n, a)) {
                values.push(g.base.attr(n, a));
            }
        }
        Some((
            std::ptr::from_ref(p) as usize,
            binding.into(),
            values.into(),
        ))
    }

    /// The instance grounded at `key`, if one is.
    pub fn instance(&self, key: &InstanceKey) -> Option<SharedInstance> {
        self.instances.lock().ok()?.get(key).cloned()
    }

    pub fn insert_instance(&self, key: InstanceKey, grounded: SharedInstance) {
        keep(&self.instances, key, grounded);
    }
}

/// Keeps `value` for `key` in `map`, which forgets everything past [`MAX_GROUNDED`]
/// entries; a poisoned lock keeps nothing (the grounding is done again).
fn keep<K: Eq + Hash, V>(map: &Mutex<FxHashMap<K, V>>, key: K, value: V) {
    if let Ok(mut map) = map.lock() {
        if map.len() >= MAX_GROUNDED {
            map.clear();
        }
        map.insert(key, value);
    }
}

/// What an instance reads of its own nodes' attributes (see [`GroundCache::instance_reads`]).
pub type InstanceReads = Box<[(VarId, AttrId)]>;

fn key(q: &Pattern, body: Option<&Expr>, binding: &[NodeId]) -> GroundKey {
    (
        std::ptr::from_ref(q) as usize,
        body.map_or(0, |b| std::ptr::from_ref(b) as usize),
        binding.into(),
    )
}

/// Calls `read` with each attribute `p` (with `body`, an aggregate's) reads, its NACs' and
/// its aggregates' included, with the type the innermost pattern of `scope` and `p`
/// declares for its variable, or `None` for a variable bound outside them all.
fn visit_pattern<'p>(
    p: &'p Pattern,
    body: Option<&'p Expr>,
    scope: &mut Vec<&'p Pattern>,
    read: &mut dyn FnMut(VarId, Option<NodeTypeId>, AttrId),
) {
    scope.push(p);
    visit_body(p, body, scope, read);
    scope.pop();
}

/// [`visit_pattern`] with `p`'s own variables left out of `scope`: read as bound outside.
fn visit_body<'p>(
    p: &'p Pattern,
    body: Option<&'p Expr>,
    scope: &mut Vec<&'p Pattern>,
    read: &mut dyn FnMut(VarId, Option<NodeTypeId>, AttrId),
) {
    // An expression's own reads, and its aggregates' of the variables outside them, here;
    // each aggregate's other reads in its own scope.
    let mut inner = Vec::new();
    for e in p.conds.iter().chain(body) {
        e.visit_attrs(&mut |v, a| {
            let ty = scope.iter().rev().find_map(|p| p.node(v)).map(|n| n.ty);
            read(v, ty, a);
        });
        e.visit_aggregates(&mut |agg| inner.push(agg));
    }
    for agg in inner {
        visit_pattern(&agg.pattern, agg.body.as_ref(), scope, read);
    }
    for q in &p.nacs {
        visit_pattern(q, None, scope, read);
    }
}
