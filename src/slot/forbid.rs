//! `forbid { ... }` patterns on the slot engine: each pattern's matches over the structure
//! no rule changes (its instances), each checked again when a slot it reads is filled, as
//! a term over slots ([`super::ground`]) or by the general matcher on a mirror of the
//! state's graph.
//!
//! Slot rules only set attributes, so the nodes and edges a pattern can match are those of
//! the start graph: a match in any state is a match of the pattern without its conditions
//! on changing attributes, its NACs and its aggregates (the instance), whose conditions
//! then hold. Whether they hold depends only on the slots the instance reads (its nodes',
//! and those of the nodes its aggregates and NACs can reach), so a state whose parent no
//! pattern matched is forbidden exactly when an instance reading a slot filled since then
//! matches. An instance is grounded once, its NACs and aggregates expanded to the matches
//! their structure has under it, and evaluated as the matcher would; where grounding is
//! refused (a term too large) the matcher evaluates it on the mirror, as on whole graphs.
//!
//! Forward checking: where the patterns are monotone (once matched, matched in every
//! extension: see [`crate::analysis::forbid`]), a value whose placement alone makes an
//! instance match can never be part of a final state, so it leaves the slot's candidates
//! before the focus counts them. Only the instances a step touched are tried: the others
//! read what they read before, when they were tried already. A grounded instance is also
//! evaluated over its empty slots' candidates: when it matches in every completion, the
//! state is dead, and a candidate with which it does is taken (final states fill every
//! slot on the focus path, so no final state lies below either): by bounds, then, over few
//! slots and candidates, exactly over the assignments the related pairs allow
//! ([`super::layout`]). Where those assignments are few enough to list once, over every
//! value the slots allow or over a start state's candidates, the focus search narrows by
//! the list instead ([`super::start_tables`]). Instances alike but for their slots share
//! a shape ([`super::shapes`]): their bounds program is laid out once and renamed. An
//! instance the puzzles of a rule file ground alike (one line, one clue) is grounded and
//! laid out once for all of them ([`super::shared_ground`]); an instance over one region
//! the layers draw (a renban run) takes the shape of a region of its size grounded before
//! ([`super::region_ground`]).

use std::ops::ControlFlow;
use std::sync::Arc;

use crate::analysis::final_cond::{conjuncts, not_exists};
use crate::analysis::slot_fill::not_slot;
use crate::analysis::{forbid, Refusal};
use crate::grammar::Grammar;
use crate::matcher::{GraphIndex, Matcher, SearchPlan, UNBOUND};
use crate::model::{grouped, AttrId, Graph, NodeId};
use crate::rule::{Expr, Pattern};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::bounds_program::BoundsProgram;
use super::compact_table::{CompactTable, TableScratch};
use super::ground::{Bounds, Grounder, MAX_TERM_NODES};
use super::layout::{self, Admit, Pairs, Writes};
use super::mask::Mask;
use super::model::SlotModel;
use super::region_ground::RegionPattern;
use super::shapes::{Shape, ShapeCache};
use super::shared_ground::{GroundCache, InstanceReads, RelatedPairs};
use super::solver::{Tables, Work};
use super::start_tables::{Instance as Listable, StartTables, TableCache};
use super::term_program::TermProgram;

/// Instances listed at most, over all patterns; past it the grammar runs on whole graphs
/// (a pattern over unrelated nodes, such as three cells joined by conditions only).
const MAX_INSTANCES: usize = 1 << 20;

/// Slot reads listed at most, over all instances.
const MAX_READS: usize = 1 << 24;

/// Slots an instance reads at most to be laid out whole (see [`layout`]).
const MAX_LAID_OUT: usize = 12;
const _: () = assert!(
    MAX_LAID_OUT <= 16,
    "a layout's assignment is keyed by 16 bytes"
);

/// Assignments of an instance's empty slots (the product of their candidate counts) at
/// most to be laid out: related pairs prune most of them, which a search of
/// [`layout::MAX_STEPS`] steps then covers.
const MAX_ASSIGNMENTS: u64 = 1 << 12;

/// The `forbid` patterns of one start graph, compiled to instances.
#[derive(Clone, Debug)]
pub struct SlotForbids {
    /// Per pattern, its plans: the one that checks its conditions and NACs with its nodes
    /// bound is read as a state is checked.
    plans: Vec<Arc<PatternPlans>>,
    /// Per instance, its pattern and the nodes its own variables bind.
    instances: Vec<Instance>,
    /// Per instance, whether it comes from the final condition: it is not forbidden on
    /// the way, only narrowed by its bounds.
    bounds_only: Vec<bool>,
    /// Per instance, its conditions as a term over slots, where it could be grounded.
    ground: Vec<Option<Arc<GroundInstance>>>,
    /// Per grounded instance, the pairs of slots it reads that a hub relates, by position
    /// in its reads (see [`layout`]).
    pairs: Vec<Arc<Pairs>>,
    /// Whether some instance is left to the matcher, which needs the mirror graph.
    mirrored: bool,
    /// Per instance, the slots it reads: `reads[read_start[i]..read_start[i + 1]]`.
    read_start: Vec<u32>,
    reads: Vec<u32>,
    /// Per slot, the instances reading it: `watch[watch_start[s]..watch_start[s + 1]]`.
    watch_start: Vec<u32>,
    watch: Vec<u32>,
    /// Whether every pattern is monotone, so forward checking is sound.
    monotone: bool,
    /// Whether the final condition's conjuncts, besides those on empty slots, are all
    /// `not { ... }` parts whose every instance is grounded: then a full state is final
    /// exactly when none of those instances' terms holds (see [`Self::final_holds`]).
    final_grounded: bool,
    /// Where the grounded instances' start tables are listed, shared by the rule file's
    /// puzzles.
    pub(super) tables: TableCache,
}

#[derive(Clone, Debug)]
struct Instance {
    pattern: u32,
    binding: Box<[NodeId]>,
}

/// A pattern's search plans, which depend on it alone: a rule file's puzzles share them
/// (see [`GroundCache::plans`]).
#[derive(Debug)]
pub struct PatternPlans {
    /// Checks its conditions and NACs with its nodes bound.
    check: SearchPlan,
    /// Lists the matches of its structure (see [`structure`]).
    structure: SearchPlan,
}

/// An instance's conditions as a term over slots, laid out for exact evaluation and for
/// narrowing (see [`BoundsProgram`]), with its shape (its programs over the positions of
/// its reads) and the slots it reads, sorted: shared by the puzzles of a rule file that
/// ground it alike (see [`GroundCache::instance_key`]).
#[derive(Debug)]
pub struct GroundInstance {
    program: TermProgram,
    bounds: BoundsProgram,
    shape: Arc<Shape>,
    reads: Vec<u32>,
}

impl GroundInstance {
    /// The instance of `shape` over the slots `reads` (sorted, distinct), by position.
    pub(super) fn renamed(shape: Arc<Shape>, reads: Vec<u32>) -> GroundInstance {
        let rename = |pos: u32| reads[pos as usize];
        GroundInstance {
            program: shape.term.renamed(rename),
            bounds: shape.bounds.renamed(rename),
            shape,
            reads,
        }
    }

    /// Whether no state makes it match: it reads no slot and does not hold (a sight
    /// line's condition where the puzzle gives no clue). Such an instance is not kept.
    fn never_matches(&self) -> bool {
        self.reads.is_empty() && !self.program.holds(&[])
    }
}

/// A worker's mirror of the state being looked at: the start graph with the state's slot
/// values written in, and buffers reused from call to call.
#[derive(Default)]
pub struct ForbidScratch {
    graph: Option<Graph>,
    /// Nodes by type and what paths reach: the structure, the same in every state.
    index: Option<GraphIndex<'static>>,
    /// The slot values written into `graph` (0 = none, else the value's index plus one).
    shadow: Vec<u8>,
    /// The values of the last state known to match no pattern.
    clean: Vec<u8>,
    /// Per slot read by an instance being narrowed: its least and greatest candidate.
    range: Vec<(u16, u16)>,
    /// The bounds of each node of the program being narrowed with.
    cache: Vec<Bounds>,
    touched: Vec<u32>,
    binding: Vec<NodeId>,
    changed: Vec<u32>,
    near: Vec<u32>,
    /// Per instance and per slot, the round that last listed it (duplicates skipped).
    seen_instance: Vec<u32>,
    seen_slot: Vec<u32>,
    round: u32,
    /// Per grounded instance and assignment of the slots it reads (a byte each, the
    /// value's index plus one), whether the instance matches: layouts meet the same
    /// assignments again and again, from round to round and state to state.
    verdicts: FxHashMap<(u32, u128), bool>,
    /// The patterns `verdicts` was filled for (their address): a scratch serves one.
    verdicts_of: usize,
    /// Per grounded instance, whether its last shaving by bounds took a candidate: then
    /// it is shaved before it is laid out (see [`SlotForbids::narrow`]).
    shave_first: Vec<bool>,
    tables: TableScratch,
}

/// Verdicts kept at most (under 1 MiB a worker); past it they are forgotten and kept anew.
const MAX_VERDICTS: usize = 1 << 14;

impl SlotForbids {
    /// The instances of `g`'s `forbid` patterns over its start graph, and those of its
    /// final condition's `not { ... }` parts that can be grounded, or `None` when there are
    /// none. Refused where cells are filled by replacement (the instances would change) or
    /// the `forbid` instances are too many to list.
    /// `shared`: what the puzzles of one rule file share of their grounding; `shapes`:
    /// the instance shapes met so far (see [`ShapeCache`]).
    pub fn compile(
        g: &Grammar,
        model: &SlotModel,
        shared: Option<&GroundCache>,
        shapes: &ShapeCache,
    ) -> Result<Option<SlotForbids>, Refusal> {
        Self::compile_within(g, model, MAX_TERM_NODES, shared, shapes)
    }

    /// [`Self::compile`], grounding at most `budget` term nodes.
    fn compile_within(
        g: &Grammar,
        model: &SlotModel,
        budget: usize,
        shared: Option<&GroundCache>,
        shapes: &ShapeCache,
    ) -> Result<Option<SlotForbids>, Refusal> {
        if model.replaced.is_some() {
            return match g.forbids.first() {
                Some(first) => not_slot(
                    first.span,
                    "`forbid` patterns need the cells to stay in place: here rules replace them",
                ),
                None => Ok(None),
            };
        }
        // What a final state must not hold besides empty slots: on the focus path, where
        // final states fill every slot, a state all of whose completions hold it is dead.
        let rest: Vec<_> = g
            .final_cond
            .as_deref()
            .into_iter()
            .flat_map(conjuncts)
            .filter(|c| !model.is_all_filled(g, c))
            .collect();
        let finals: Vec<&Pattern> = rest.iter().filter_map(|c| not_exists(c)).collect();
        if g.forbids.is_empty() && finals.is_empty() {
            return Ok(None);
        }
        let set = forbid::set_attrs(g);
        // Per node, its slots: needed only where an instance is mirrored, not grounded.
        let slots_of = std::cell::OnceCell::new();
        let slots_of = || {
            slots_of.get_or_init(|| {
                let mut of: FxHashMap<NodeId, SmallVec<[u32; 2]>> = FxHashMap::default();
                for (s, &(n, _)) in model.slots.iter().enumerate() {
                    of.entry(n).or_default().push(s as u32);
                }
                of
            })
        };
        let matcher = Matcher::new(&g.types, &g.base, &[]);
        let mut grounder = Grounder::new(g, model, &matcher, &set, budget, shared);
        let mut out = SlotForbids {
            plans: Vec::new(),
            instances: Vec::new(),
            bounds_only: Vec::new(),
            ground: Vec::new(),
            pairs: Vec::new(),
            mirrored: false,
            read_start: vec![0],
            reads: Vec::new(),
            watch_start: Vec::new(),
            watch: Vec::new(),
            monotone: forbid::check(g).is_ok(),
            final_grounded: finals.len() == rest.len(),
            tables: TableCache::default(),
        };
        let patterns = g.forbids.iter().map(|p| (p, false));
        for (pi, (p, of_final)) in patterns
            .chain(finals.into_iter().map(|p| (p, true)))
            .enumerate()
        {
            let compile = || PatternPlans {
                check: SearchPlan::compile(&Pattern {
                    bound: p.var_end(),
                    nodes: Vec::new(),
                    edges: Vec::new(),
                    conds: p.conds.clone(),
                    nacs: p.nacs.clone(),
                    span: p.span,
                }),
                structure: SearchPlan::compile(&structure(p, &set)),
            };
            let plans = match shared {
                Some(cache) => cache.plans(pi, compile),
                None => Arc::new(compile()),
            };
            out.plans.push(plans.clone());
            let plan = &plans.structure;
            let mut binding = Vec::new();
            let mut found: Vec<Vec<NodeId>> = Vec::new();
            let mut too_many = false;
            let _ = matcher.for_each_match(plan, &mut binding, &mut |m| {
                found.push(m[..p.var_end() as usize].to_vec());
                too_many = out.instances.len() + found.len() > MAX_INSTANCES;
                if too_many {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            if too_many && of_final {
                out.final_grounded = false;
                continue;
            }
            if too_many {
                return not_slot(
                    p.span,
                    format!("this `forbid` pattern has more than {MAX_INSTANCES} matches over the cells' structure for the slot engine to list"),
                );
            }
            let layer_reads = shared.and_then(|c| c.instance_reads(&g.types, p));
            // Where instances are not shared by node, they may be by region shape.
            let region = match (shared, &layer_reads) {
                (Some(_), None) => RegionPattern::of(p, &set),
                _ => None,
            };
            out.ground.reserve(found.len());
            out.bounds_only.reserve(found.len());
            out.read_start.reserve(found.len());
            out.instances.reserve(found.len());
            for m in found {
                let grounded = ground_instance(
                    &mut grounder,
                    shapes,
                    p,
                    &m,
                    (layer_reads.as_ref(), region.as_ref()),
                );
                if grounded.as_ref().is_some_and(|g| g.never_matches()) {
                    continue;
                }
                if of_final && grounded.is_none() {
                    out.final_grounded = false;
                    continue;
                }
                match &grounded {
                    Some(grounded) => out.reads.extend_from_slice(&grounded.reads),
                    None => {
                        out.mirrored = true;
                        let mut nodes: Vec<NodeId> = p.own_vars().map(|v| m[v.index()]).collect();
                        reads_beyond(&matcher, (&p.conds, &p.nacs, None), &m, &set, &mut nodes);
                        nodes.sort_unstable();
                        nodes.dedup();
                        let mut reads: Vec<u32> = nodes
                            .iter()
                            .flat_map(|n| slots_of().get(n).into_iter().flatten().copied())
                            .collect();
                        reads.sort_unstable();
                        reads.dedup();
                        out.reads.extend(reads);
                    }
                }
                out.ground.push(grounded);
                out.bounds_only.push(of_final);
                if out.reads.len() > MAX_READS {
                    return not_slot(
                        p.span,
                        format!("the `forbid` patterns read more than {MAX_READS} slots over all their matches, more than the slot engine lists"),
                    );
                }
                out.read_start.push(out.reads.len() as u32);
                out.instances.push(Instance {
                    pattern: pi as u32,
                    binding: m.into_boxed_slice(),
                });
            }
        }
        out.index_reads(model, shared);
        Ok(Some(out))
    }

    /// The instances of a puzzle whose every instance is grounded over one region its
    /// layers draw (see [`super::region_ground::DrawnForbids`]): `instances`, each its
    /// pattern, the node it binds and its grounding, in the order a compilation lists
    /// them; the plans, tables and verdicts are `file`'s, the forbids of its rule file's
    /// model, which holds the same patterns and no final condition besides filled cells.
    /// `None` past the limits a compilation refuses at, which it then says.
    pub(super) fn of_grounded(
        file: &SlotForbids,
        model: &SlotModel,
        shared: &GroundCache,
        instances: Vec<(u32, NodeId, Arc<GroundInstance>)>,
    ) -> Option<SlotForbids> {
        if instances.len() > MAX_INSTANCES {
            return None;
        }
        let mut out = SlotForbids {
            plans: file.plans.clone(),
            instances: Vec::with_capacity(instances.len()),
            bounds_only: Vec::with_capacity(instances.len()),
            ground: Vec::with_capacity(instances.len()),
            pairs: Vec::new(),
            mirrored: false,
            read_start: Vec::with_capacity(instances.len() + 1),
            reads: Vec::new(),
            watch_start: Vec::new(),
            watch: Vec::new(),
            monotone: file.monotone,
            final_grounded: file.final_grounded,
            tables: file.tables.clone(),
        };
        out.read_start.push(0);
        for (pattern, node, grounded) in instances {
            if grounded.never_matches() {
                // As a compilation leaves it out.
                continue;
            }
            out.reads.extend_from_slice(&grounded.reads);
            if out.reads.len() > MAX_READS {
                return None;
            }
            out.read_start.push(out.reads.len() as u32);
            out.ground.push(Some(grounded));
            out.bounds_only.push(false);
            out.instances.push(Instance {
                pattern,
                binding: Box::new([node]),
            });
        }
        out.index_reads(model, Some(shared));
        Some(out)
    }

    /// Lists, from the instances and their reads, the pairs of each one's reads a hub
    /// relates and, per slot, the instances reading it.
    fn index_reads(&mut self, model: &SlotModel, shared: Option<&GroundCache>) {
        self.pairs = self.related_pairs(model, shared);
        // Per slot, the instances reading it, in order: flat, without a list per slot.
        let (watch_start, watch) = grouped(model.slots.len(), || {
            (0..self.instances.len())
                .flat_map(|i| self.reads_of(i).iter().map(move |&s| (s, i as u32)))
        });
        (self.watch_start, self.watch) = (watch_start, watch);
    }

    /// Per instance, the pairs of its reads a hub relates (none where it is not grounded,
    /// or reads more than [`MAX_LAID_OUT`] slots).
    /// Taken from the rule file's `shared` ones where the model's hubs are those they were
    /// listed with (layers that only set clues leave them alone).
    fn related_pairs(&self, model: &SlotModel, shared: Option<&GroundCache>) -> Vec<Arc<Pairs>> {
        let mut writes = None;
        let mut pairs = Vec::new();
        let mut list = |reads: &[u32]| -> Arc<Pairs> {
            let writes = writes.get_or_insert_with(|| Writes::new(model, |_| true));
            writes.among(model, reads, &mut pairs);
            Arc::from(&pairs[..])
        };
        let mut all = |mut known: Option<&mut RelatedPairs>| {
            (0..self.instances.len())
                .map(|i| {
                    let reads = self.reads_of(i);
                    if self.ground[i].is_none() || reads.len() > MAX_LAID_OUT {
                        return Arc::from([]);
                    }
                    // Looked up by the slice: a key is boxed only for pairs not kept yet.
                    match known.as_deref_mut() {
                        Some(known) => match known.get(reads) {
                            Some(kept) => kept.clone(),
                            None => known.entry(Box::from(reads)).or_insert(list(reads)).clone(),
                        },
                        None => list(reads),
                    }
                })
                .collect()
        };
        match shared {
            Some(c) => c.with_related_pairs(&model.hubs, all),
            None => all(None),
        }
    }

    /// What two compilations of the same puzzle must agree on: the instances, what each
    /// reads and how it is grounded, and the verdicts.
    #[cfg(test)]
    pub(crate) fn shape(&self) -> String {
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            self.instances,
            self.bounds_only,
            self.ground,
            self.pairs,
            self.read_start,
            self.reads,
            self.watch_start,
            self.watch,
            (self.mirrored, self.monotone, self.final_grounded),
            self.plans.len()
        )
    }

    /// Whether every pattern is monotone: then a subset of a state no pattern matches is
    /// matched by none either, and candidates can be checked ahead.
    pub fn monotone(&self) -> bool {
        self.monotone
    }

    fn reads_of(&self, i: usize) -> &[u32] {
        &self.reads[self.read_start[i] as usize..self.read_start[i + 1] as usize]
    }

    fn watchers(&self, s: u32) -> &[u32] {
        let s = s as usize;
        &self.watch[self.watch_start[s] as usize..self.watch_start[s + 1] as usize]
    }

    /// Whether the final condition holds on the full state `vals`, where its grounded
    /// instances decide it (the same answer the matcher gives on the state's graph, for
    /// a term each rather than a graph); `None` where only the matcher can tell.
    pub fn final_holds(&self, vals: &[u8]) -> Option<bool> {
        self.final_grounded.then(|| {
            !self
                .ground
                .iter()
                .zip(&self.bounds_only)
                .any(|(t, &of_final)| of_final && t.as_ref().is_some_and(|t| t.program.holds(vals)))
        })
    }

    /// Whether instance `i` matches on the scratch's mirror.
    fn matches(&self, g: &Grammar, scratch: &mut ForbidScratch, i: usize) -> bool {
        if let Some(t) = &self.ground[i] {
            return t.program.holds(&scratch.shadow);
        }
        let inst = &self.instances[i];
        let plan = &self.plans[inst.pattern as usize].check;
        let ForbidScratch {
            graph,
            index,
            binding,
            ..
        } = scratch;
        let (Some(graph), Some(index)) = (graph.as_ref(), index.as_ref()) else {
            unreachable!("synced before checking")
        };
        binding.clear();
        binding.extend_from_slice(&inst.binding);
        binding.resize(plan.depth.max(inst.binding.len()), UNBOUND);
        Matcher::new(&g.types, graph, &[])
            .with_index(index)
            .exists(plan, binding)
    }

    /// Whether some instance reading one of `slots` matches on the mirror.
    fn matches_at(&self, g: &Grammar, scratch: &mut ForbidScratch, slots: &[u32]) -> bool {
        scratch.next_round(self.instances.len(), 0);
        for &s in slots {
            for &i in self.watchers(s) {
                if scratch.seen_instance[i as usize] == scratch.round
                    || self.bounds_only[i as usize]
                {
                    continue;
                }
                scratch.seen_instance[i as usize] = scratch.round;
                if self.matches(g, scratch, i as usize) {
                    return true;
                }
            }
        }
        false
    }

    /// Writes `vals` into the scratch's mirror of `base` (its graph only where an instance
    /// is left to the matcher).
    pub fn sync(&self, g: &Grammar, model: &SlotModel, scratch: &mut ForbidScratch, vals: &[u8]) {
        scratch.shadow.resize(vals.len(), 0);
        if !self.mirrored {
            scratch.shadow.copy_from_slice(vals);
            return;
        }
        let base = &g.base;
        // Without lookups by attribute, the index holds only what no step changes.
        scratch
            .index
            .get_or_insert_with(|| GraphIndex::new(&g.types, base, &[]));
        let graph = scratch.graph.get_or_insert_with(|| base.clone());
        for (s, (&v, old)) in vals.iter().zip(scratch.shadow.iter_mut()).enumerate() {
            if v != *old {
                let (n, a) = model.slots[s];
                graph.set_attr(n, a, super::slot_value(v));
                *old = v;
            }
        }
    }

    /// Whether some pattern matches the state whose values are `vals`, every instance
    /// checked (a start state, which has no parent to compare with).
    pub fn forbidden(
        &self,
        g: &Grammar,
        model: &SlotModel,
        scratch: &mut ForbidScratch,
        vals: &[u8],
    ) -> bool {
        self.sync(g, model, scratch, vals);
        (0..self.instances.len()).any(|i| !self.bounds_only[i] && self.matches(g, scratch, i))
    }

    /// Whether placing value index `y` in slot `s` of the state whose values are `parent`
    /// (matched by no pattern) makes a pattern match.
    pub fn forbidden_placing(
        &self,
        g: &Grammar,
        model: &SlotModel,
        scratch: &mut ForbidScratch,
        parent: &[u8],
        s: u32,
        y: u32,
    ) -> bool {
        self.sync(g, model, scratch, parent);
        self.set(model, scratch, s, y as u8 + 1);
        let hit = self.matches_at(g, scratch, &[s]);
        self.set(model, scratch, s, parent[s as usize]);
        hit
    }

    /// Propagates `w`, which extends `parent` (matched by no pattern), to a fixed point of
    /// the tables' propagation and the patterns: false when a pattern matches what it
    /// fills, else, where the patterns are monotone, with every candidate taken whose
    /// placement would make a pattern match next to a slot just filled (see the module's
    /// forward checking). `start`: `w` is a start state, whose every instance is narrowed.
    #[allow(clippy::too_many_arguments)]
    pub fn settle<M: Mask, const W: usize>(
        &self,
        g: &Grammar,
        model: &SlotModel,
        t: &Tables<M>,
        scratch: &mut ForbidScratch,
        parent: &[u8],
        w: &mut Work<M>,
        (start, tables): (bool, &StartTables),
    ) -> bool {
        scratch.clean.clear();
        scratch.clean.extend_from_slice(parent);
        let mut first = start;
        loop {
            if !t.propagate::<W>(w) {
                return false;
            }
            self.sync(g, model, scratch, &w.vals);
            let mut changed = std::mem::take(&mut scratch.changed);
            changed.clear();
            changed.extend(filled_since(&scratch.clean, &w.vals));
            let verdict = if changed.is_empty() && !first {
                Some(true)
            } else if self.matches_at(g, scratch, &changed) {
                Some(false)
            } else if !self.monotone {
                Some(true)
            } else {
                scratch.clean.clone_from(&w.vals);
                let mut touched = std::mem::take(&mut scratch.touched);
                touched.clear();
                if first {
                    touched.extend(0..self.instances.len() as u32);
                } else {
                    scratch.next_round(self.instances.len(), 0);
                    for &s in &changed {
                        for &i in self.watchers(s) {
                            let seen = &mut scratch.seen_instance[i as usize];
                            if std::mem::replace(seen, scratch.round) != scratch.round {
                                touched.push(i);
                            }
                        }
                    }
                }
                first = false;
                let taken = self.forward_check::<M, W>(g, model, (t, tables), scratch, &touched, w);
                scratch.touched = touched;
                // Taking candidates may force placements: propagate and check again.
                match taken {
                    None => Some(false),
                    Some(true) => None,
                    Some(false) => Some(true),
                }
            };
            scratch.changed = changed;
            if let Some(alive) = verdict {
                return alive;
            }
        }
    }

    /// Narrows the empty slots the instances `touched` read: takes each candidate whose
    /// placement makes one of them match, and each with which a grounded one matches in
    /// every completion. `None` when a grounded one already does (the state is dead),
    /// else whether any candidate was taken.
    fn forward_check<M: Mask, const W: usize>(
        &self,
        g: &Grammar,
        model: &SlotModel,
        (t, tables): (&Tables<M>, &StartTables),
        scratch: &mut ForbidScratch,
        touched: &[u32],
        w: &mut Work<M>,
    ) -> Option<bool> {
        scratch.next_round(self.instances.len(), w.vals.len());
        let round = scratch.round;
        let mut near = std::mem::take(&mut scratch.near);
        near.clear();
        // Grounded instances are narrowed by their bounds below, which covers this: where
        // the patterns are monotone, a match with the other slots empty is a match in
        // every completion.
        for &i in touched
            .iter()
            .filter(|&&i| self.ground[i as usize].is_none())
        {
            scratch.seen_instance[i as usize] = round;
            for &e in self.reads_of(i as usize) {
                if w.vals[e as usize] == 0
                    && std::mem::replace(&mut scratch.seen_slot[e as usize], round) != round
                {
                    near.push(e);
                }
            }
        }
        let mut taken = false;
        for &e in &near {
            let mut cands = t.cand::<W>(w, e as usize);
            while !cands.is_zero() {
                let x = cands.pop_first();
                self.set(model, scratch, e, x as u8 + 1);
                // Only the instances touched (marked this round): the others read what
                // they read at the parent, where their forward check ran.
                let hit = self.watchers(e).iter().any(|&i| {
                    scratch.seen_instance[i as usize] == round
                        && self.matches(g, scratch, i as usize)
                });
                if hit {
                    t.exclude::<W>(w, e as usize, x);
                    taken = true;
                }
            }
            self.set(model, scratch, e, 0);
        }
        scratch.near = near;
        let narrowed = self.narrow::<M, W>((t, tables), scratch, touched, w)?;
        Some(taken | narrowed)
    }

    /// The pass of [`Self::forward_check`] over the grounded instances of `touched`: by
    /// their start tables where they have one, else by bounds and layouts.
    fn narrow<M: Mask, const W: usize>(
        &self,
        (t, tables): (&Tables<M>, &StartTables),
        scratch: &mut ForbidScratch,
        touched: &[u32],
        w: &mut Work<M>,
    ) -> Option<bool> {
        let owner = self as *const SlotForbids as usize;
        if scratch.verdicts_of != owner {
            scratch.verdicts.clear();
            scratch.shave_first.clear();
            scratch.verdicts_of = owner;
        }
        scratch.shave_first.resize(self.instances.len(), true);
        let ForbidScratch {
            shadow,
            range,
            cache,
            verdicts,
            shave_first,
            tables: table_scratch,
            ..
        } = scratch;
        range.resize(shadow.len(), (0, 0));
        let mut taken = false;
        for &i in touched {
            if let Some(table) = tables.get(i) {
                taken |= self.filter_by_table::<M, W>(t, (table, table_scratch), i, w)?;
                continue;
            }
            let Some(program) = self.ground[i as usize].as_ref().map(|t| &t.bounds) else {
                continue;
            };
            let reads = self.reads_of(i as usize);
            // The assignments the empty slots' candidates allow, as `layout::assignments`.
            let mut assignments: u64 = 1;
            for &e in reads {
                if shadow[e as usize] == 0 {
                    let c = t.cand::<W>(w, e as usize).to_u128();
                    assignments = assignments.saturating_mul(u64::from(c.count_ones()));
                    range[e as usize] = span(c)?;
                }
            }
            let root = program.bounds(shadow, &|s| range[s as usize], cache);
            if root.surely_true() {
                return None;
            }
            if !root.may_true() {
                // No completion can match: no candidate makes one (bounds only narrow as
                // the ranges do).
                continue;
            }
            // Laid out exactly where few enough assignments are left: that takes what the
            // bounds' shaving below would, and more, so the shaving can be spared. First
            // where the candidates allow few enough assignments to lay out (a sight line
            // with a few empty cells, where the shaving's tries cost more than the
            // layout), and where the last shaving took nothing. Not where shaving may
            // take candidates (a renban's range, where it leaves the layout few
            // assignments), nor where the layout cannot finish. Which comes first
            // changes the cost only: an exact layout keeps the same values either way (a
            // shaved value is in no assignment the layout admits).
            let lay = t.symmetric && reads.len() <= MAX_LAID_OUT;
            let laid_first = lay && (!shave_first[i as usize] || assignments <= MAX_ASSIGNMENTS);
            if laid_first {
                if let Some(exact) = self.lay_out::<M, W>(t, i as usize, shadow, verdicts, w)? {
                    taken |= exact;
                    continue;
                }
            }
            let mut shaved = false;
            for &e in reads {
                if shadow[e as usize] != 0 {
                    continue;
                }
                // From the least candidate up and from the greatest down, until one stays:
                // bounds seldom take a value between two they keep, and each try costs a
                // whole evaluation.
                let mut cands = t.cand::<W>(w, e as usize).to_u128();
                for from_top in [false, true] {
                    while cands != 0 {
                        let x = if from_top {
                            127 - cands.leading_zeros()
                        } else {
                            cands.trailing_zeros()
                        };
                        shadow[e as usize] = x as u8 + 1;
                        if !program
                            .again(e, shadow, &|s| range[s as usize], cache)
                            .surely_true()
                        {
                            break;
                        }
                        t.exclude::<W>(w, e as usize, x);
                        shaved = true;
                        cands &= !(1u128 << x);
                    }
                }
                shadow[e as usize] = 0;
                // What the shaving left is the slot's candidates now.
                range[e as usize] = span(cands)?;
                // The program's bounds brought back to `e` empty over what is left.
                program.again(e, shadow, &|s| range[s as usize], cache);
            }
            shave_first[i as usize] = shaved;
            taken |= shaved;
            // Laid out now whether or not a completion can still match (the layout also
            // takes what the related pairs leave no room for), so that the values kept
            // are those of the layout above whichever comes first: the state, not the
            // worker's history, decides them. Where it was laid out above and nothing was
            // shaved, the layout would meet what it met there.
            if lay && (shaved || !laid_first) {
                taken |= self
                    .lay_out::<M, W>(t, i as usize, shadow, verdicts, w)?
                    .unwrap_or(false);
            }
        }
        Some(taken)
    }

    /// Takes from the empty slots grounded instance `i` reads each candidate with which it
    /// matches in every assignment of them that blocks no related pair (see [`layout`]):
    /// what bounds cannot see, such as a building hidden by the ones before it in every
    /// order the line allows. `None` when no assignment is left; else whether a candidate
    /// was taken, `None` inside when the candidates allow too many assignments or the
    /// search ran out of steps (nothing is taken then).
    fn lay_out<M: Mask, const W: usize>(
        &self,
        t: &Tables<M>,
        i: usize,
        shadow: &mut [u8],
        verdicts: &mut FxHashMap<(u32, u128), bool>,
        w: &mut Work<M>,
    ) -> Option<Option<bool>> {
        let term = &self.ground[i]
            .as_ref()
            .expect("a grounded instance")
            .program;
        let reads = self.reads_of(i);
        let held: SmallVec<[Option<u8>; 16]> = reads
            .iter()
            .map(|&s| shadow[s as usize].checked_sub(1))
            .collect();
        let empty: SmallVec<[u32; 16]> = reads
            .iter()
            .copied()
            .filter(|&s| shadow[s as usize] == 0)
            .collect();
        if empty.is_empty() {
            return Some(Some(false));
        }
        let cands: SmallVec<[M; 16]> = empty.iter().map(|&s| t.cand::<W>(w, s as usize)).collect();
        // Where the candidates allow too many assignments the search would mostly run out
        // of steps: the bounds' narrowing is left to do what it can.
        if layout::assignments(&cands) > MAX_ASSIGNMENTS {
            return Some(None);
        }
        let mut keep = cands.clone();
        let mut admit = Unmatched {
            term,
            instance: i as u32,
            reads,
            empty: &empty,
            shadow,
            verdicts,
            prune: self.monotone && !self.bounds_only[i],
        };
        if !layout::supported(
            t.relation_rows(),
            t.d,
            &self.pairs[i],
            &held,
            &mut keep,
            &mut admit,
        ) {
            return Some(None);
        }
        let mut taken = false;
        for ((&s, &c), &k) in empty.iter().zip(&cands).zip(&keep) {
            if k.is_zero() {
                return None;
            }
            let mut gone = c & !k;
            while !gone.is_zero() {
                let x = gone.pop_first();
                t.exclude::<W>(w, s as usize, x);
                taken = true;
            }
        }
        Some(Some(taken))
    }

    /// The grounded instances that may have a start table (see [`StartTables`]): none
    /// where candidates are not narrowed ahead (the patterns are not monotone) or
    /// blocking is not symmetric (the layouts' condition).
    fn listable<'a, M: Mask>(
        &'a self,
        t: &Tables<M>,
    ) -> impl Iterator<Item = Option<Listable<'a>>> + 'a {
        let tabled = self.monotone && t.symmetric;
        (0..self.instances.len()).map(move |i| {
            let shape = self.ground[i]
                .as_ref()
                .filter(|_| tabled)
                .map(|t| &*t.shape)?;
            let reads = self.reads_of(i);
            (!reads.is_empty() && reads.len() <= MAX_LAID_OUT).then(|| Listable {
                shape,
                reads,
                pairs: &self.pairs[i],
            })
        })
    }

    /// The start tables listed over every value the slots allow.
    pub fn tables_allowed<M: Mask>(&self, t: &Tables<M>) -> StartTables {
        StartTables::allowed(&self.tables, t, self.listable(t))
    }

    /// Adds to `tables` those listed over the candidates of `start`, a settled state.
    pub fn tables_below<M: Mask, const W: usize>(
        &self,
        tables: &mut StartTables,
        t: &Tables<M>,
        start: &Work<M>,
    ) {
        tables.below::<M, W>(&self.tables, t, start, self.listable(t))
    }

    /// Narrows the empty slots instance `i` reads by its start table: `None` when no
    /// assignment of it is left, else whether a candidate was taken. Unlike a layout, the
    /// table also holds the pairs whose both ends are filled to their relation: no state
    /// the solver fills breaks one, since blocking is symmetric where there are tables.
    fn filter_by_table<M: Mask, const W: usize>(
        &self,
        t: &Tables<M>,
        (table, scratch): (&CompactTable, &mut TableScratch),
        i: u32,
        w: &mut Work<M>,
    ) -> Option<bool> {
        let reads = self.reads_of(i as usize);
        let before: SmallVec<[u128; 16]> = reads
            .iter()
            .map(|&s| t.values_at::<W>(w, s as usize))
            .collect();
        let mut cands = before.clone();
        if !table.filter(&mut cands, scratch) {
            return None;
        }
        let mut taken = false;
        for ((&s, &b), &c) in reads.iter().zip(&before).zip(&cands) {
            let mut gone = b & !c;
            while gone != 0 {
                t.exclude::<W>(w, s as usize, gone.trailing_zeros());
                gone &= gone - 1;
                taken = true;
            }
        }
        Some(taken)
    }

    /// Sets slot `s` of the mirror to `v` (0 = none), outside `sync`: a candidate tried
    /// and taken back.
    fn set(&self, model: &SlotModel, scratch: &mut ForbidScratch, s: u32, v: u8) {
        scratch.shadow[s as usize] = v;
        if self.mirrored {
            let (n, a) = model.slots[s as usize];
            scratch
                .graph
                .as_mut()
                .expect("synced before checking")
                .set_attr(n, a, super::slot_value(v));
        }
    }
}

/// Admits an assignment of an instance's slots with which its term does not hold.
struct Unmatched<'a> {
    term: &'a TermProgram,
    instance: u32,
    reads: &'a [u32],
    /// The reads empty in the state: written for each assignment, then emptied again.
    empty: &'a [u32],
    shadow: &'a mut [u8],
    verdicts: &'a mut FxHashMap<(u32, u128), bool>,
    /// Whether an assignment part way that already matches prunes: where the patterns
    /// are monotone, every completion of it matches too.
    prune: bool,
}

impl Admit for Unmatched<'_> {
    fn may_add(&mut self, held: &[Option<u8>], at: usize, x: u8) -> bool {
        if !self.prune {
            return true;
        }
        // The last empty position too, though `admits` would test the complete
        // assignment: its verdict's key and map cost more than the test (a renban line
        // x100 took 1.5 % more instructions when the last position was left to it).
        for (&s, v) in self.reads.iter().zip(held) {
            if let Some(v) = v {
                self.shadow[s as usize] = v + 1;
            }
        }
        self.shadow[self.reads[at] as usize] = x + 1;
        let holds = self.term.holds(self.shadow);
        for &s in self.empty {
            self.shadow[s as usize] = 0;
        }
        !holds
    }

    fn admits(&mut self, held: &[Option<u8>]) -> bool {
        // At most `MAX_LAID_OUT` reads, a byte each (values below 128, plus one).
        let assignment = held.iter().enumerate().fold(0u128, |key, (k, v)| {
            key | u128::from(v.expect("complete") + 1) << (8 * k)
        });
        if self.verdicts.len() >= MAX_VERDICTS {
            self.verdicts.clear();
        }
        let (term, reads, empty, shadow) = (self.term, self.reads, self.empty, &mut *self.shadow);
        let holds = *self
            .verdicts
            .entry((self.instance, assignment))
            .or_insert_with(|| {
                for (&s, v) in reads.iter().zip(held) {
                    shadow[s as usize] = v.expect("complete") + 1;
                }
                let holds = term.holds(shadow);
                for &s in empty {
                    shadow[s as usize] = 0;
                }
                holds
            });
        !holds
    }
}

impl ForbidScratch {
    /// Starts a round of listing: every instance (and slot) unseen.
    fn next_round(&mut self, instances: usize, slots: usize) {
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.seen_instance.fill(0);
            self.seen_slot.fill(0);
            self.round = 1;
        }
        if self.seen_instance.len() < instances {
            self.seen_instance.resize(instances, 0);
        }
        if self.seen_slot.len() < slots {
            self.seen_slot.resize(slots, 0);
        }
    }
}

/// The match `m` of `p`'s structure grounded, and laid out; taken from the rule file's
/// shared instances where `layer_reads` says what it reads of the layers, and the same
/// was grounded for another puzzle, or where `p` has a `region` shape and a region of
/// the same shape was. `None` where it cannot be grounded (see [`Grounder::pattern`]).
fn ground_instance<'a>(
    grounder: &mut Grounder<'a>,
    shapes: &ShapeCache,
    p: &'a Pattern,
    m: &[NodeId],
    (layer_reads, region): (Option<&InstanceReads>, Option<&RegionPattern>),
) -> Option<Arc<GroundInstance>> {
    let shared = grounder.shared();
    let key = shared
        .zip(layer_reads)
        .and_then(|(c, reads)| c.instance_key(grounder.g, p, reads, m));
    if let Some((c, key)) = shared.zip(key.as_ref()) {
        if let Some((hit, spent)) = c.instance(key) {
            if grounder.spend(spent) {
                #[cfg(test)]
                super::ground::INSTANCES_TAKEN.set(super::ground::INSTANCES_TAKEN.get() + 1);
                return Some(hit);
            }
        }
    }
    let members = shared
        .zip(region)
        .and_then(|(c, region)| Some((c, region.members(grounder.g, grounder.model, p, m)?)));
    if let Some((c, members)) = &members {
        if let Some((shape, reads, spent)) = c.regions.instance(members) {
            if grounder.spend(spent) {
                #[cfg(test)]
                super::ground::REGIONS_TAKEN.set(super::ground::REGIONS_TAKEN.get() + 1);
                return Some(Arc::new(GroundInstance::renamed(shape, reads)));
            }
        }
    }
    let (term, spent) = grounder.pattern_spent(p, m)?;
    let mut occurrences = 0;
    term.visit_slots(&mut |_| occurrences += 1);
    let mut reads = Vec::with_capacity(occurrences);
    term.visit_slots(&mut |s| reads.push(s));
    reads.sort_unstable();
    reads.dedup();
    let program = TermProgram::new(&term);
    let (shape, bounds) = shapes.shape_of(&term, &program, &reads);
    let grounded = Arc::new(GroundInstance {
        program,
        bounds,
        shape,
        reads,
    });
    if let (Some(c), Some(key)) = (shared, key) {
        c.insert_instance(key, (grounded.clone(), spent));
    }
    if let Some((c, members)) = members {
        c.regions
            .learn(members, &grounded.shape, &grounded.reads, spent);
    }
    Some(grounded)
}

/// The least and greatest value index of a candidate mask; `None` when it is empty.
pub(super) fn span(cands: u128) -> Option<(u16, u16)> {
    (cands != 0).then(|| {
        (
            cands.trailing_zeros() as u16,
            (127 - cands.leading_zeros()) as u16,
        )
    })
}

/// The slots empty in `parent` and filled in `vals`.
fn filled_since<'a>(parent: &'a [u8], vals: &'a [u8]) -> impl Iterator<Item = u32> + 'a {
    parent
        .iter()
        .zip(vals)
        .enumerate()
        .filter(|(_, (&p, &v))| p == 0 && v != 0)
        .map(|(s, _)| s as u32)
}

/// `p` with only what no state changes: its nodes, edges and the conditions that read no
/// attribute a rule sets and hold no aggregate. Its matches on the start graph include
/// every match of `p` in every state.
pub(super) fn structure(p: &Pattern, set: &[AttrId]) -> Pattern {
    Pattern {
        bound: p.bound,
        nodes: p.nodes.clone(),
        edges: p.edges.clone(),
        conds: p
            .conds
            .iter()
            .flat_map(|c| {
                let mut parts = Vec::new();
                c.conjuncts(&mut parts);
                parts
            })
            .filter(|c| is_fixed(c, set))
            .cloned()
            .collect(),
        nacs: Vec::new(),
        span: p.span,
    }
}

/// True when `c` reads no attribute in `set`, no parameter and no aggregate.
pub(super) fn is_fixed(c: &Expr, set: &[AttrId]) -> bool {
    let mut fixed = !c.has_aggregate() && !c.reads_params();
    c.visit_attrs(&mut |_, a| fixed &= !set.contains(&a));
    fixed
}

/// Adds to `nodes` every node that an aggregate of `conds` (or of `body`, an aggregate's
/// body) or a NAC of `nacs` can match (their structure, over the start graph), extending
/// the match `m` they are evaluated under.
fn reads_beyond(
    matcher: &Matcher,
    (conds, nacs, body): (&[Expr], &[Pattern], Option<&Expr>),
    m: &[NodeId],
    set: &[AttrId],
    nodes: &mut Vec<NodeId>,
) {
    let mut inner: Vec<(&Pattern, Option<&Expr>)> = nacs.iter().map(|q| (q, None)).collect();
    for c in conds.iter().chain(body) {
        c.visit_aggregates(&mut |a| inner.push((&a.pattern, a.body.as_ref())));
    }
    for (q, body) in inner {
        let plan = SearchPlan::compile(&structure(q, set));
        let mut binding = m.to_vec();
        let mut found: Vec<Vec<NodeId>> = Vec::new();
        let _ = matcher.for_each_match(&plan, &mut binding, &mut |qm| {
            found.push(qm[..q.var_end() as usize].to_vec());
            ControlFlow::Continue(())
        });
        for qm in found {
            nodes.extend(q.own_vars().map(|v| qm[v.index()]));
            reads_beyond(matcher, (&q.conds, &q.nacs, body), &qm, set, nodes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load_str;
    use crate::slot::model::FinalKind;
    use crate::slot::solver::DYN;

    /// Grounded instances say what the matcher says on the mirror: the arrows' `forbid`
    /// patterns compiled with and without grounding, on random partial fillings.
    #[test]
    fn grounded_instances_match_as_the_matcher_does() {
        let text = include_str!("../../tests/fixtures/forbid/arrow-4x4.graft");
        let g = load_str("arrow-4x4.graft", text).expect("the fixture loads");
        let model = super::super::compile(&g).expect("on the slot engine");
        let grounded = SlotForbids::compile(&g, &model, None, &ShapeCache::default())
            .unwrap()
            .unwrap();
        let matched = SlotForbids::compile_within(&g, &model, 0, None, &ShapeCache::default())
            .unwrap()
            .unwrap();
        assert!(grounded.ground.iter().all(Option::is_some) && !grounded.mirrored);
        assert!(matched.ground.iter().all(Option::is_none) && matched.mirrored);
        assert!(!grounded.instances.is_empty());
        let (mut a, mut b) = (ForbidScratch::default(), ForbidScratch::default());
        let mut below = crate::slot::xorshift(0x9e37_79b9_7f4a_7c15);
        let (mut hits, mut misses) = (0, 0);
        for _ in 0..4000 {
            let vals: Vec<u8> = (0..model.slots.len())
                .map(|_| below(model.d as u64 + 1) as u8)
                .collect();
            let x = grounded.forbidden(&g, &model, &mut a, &vals);
            assert_eq!(
                x,
                matched.forbidden(&g, &model, &mut b, &vals),
                "at {vals:?}"
            );
            if x {
                hits += 1;
            } else {
                misses += 1;
            }
        }
        assert!(hits > 100 && misses > 100, "{hits} forbidden, {misses} not");
    }

    /// The final condition's grounded instances decide a full state as the matcher does on
    /// its graph: every Latin square of order 4 under the clues of the two 4x4 skyscraper
    /// files (their solutions among them), and random full grids.
    #[test]
    fn grounded_final_conditions_hold_as_the_matcher_says() {
        let files = [
            (
                "skyscraper-4x4.graft",
                include_str!("../../rules/skyscraper-4x4.graft"),
            ),
            (
                "skyscraper-sudoku-4x4.graft",
                include_str!("../../rules/skyscraper-sudoku-4x4.graft"),
            ),
        ];
        let mut below = crate::slot::xorshift(0x0066_696e_616c);
        for (name, text) in files {
            let g = load_str(name, text).expect("the rule file loads");
            let model = super::super::compile(&g).expect("on the slot engine");
            let f = model.forbids.as_ref().expect("grounded instances");
            // One instance per clue given (4 + 2 + 4 + 1): a side without its clue folds
            // to false and is not kept, of 4 sides x 8 or 12 groups.
            assert_eq!(f.instances.len(), 11, "{name}");
            let FinalKind::FullAnd(c) = &model.final_kind else {
                panic!("{name}: a final condition beyond filled cells");
            };
            let grid = g.grid.as_ref().expect("a grid");
            let slot = |r: usize, col: usize| {
                let n = grid.cells[r * grid.cols as usize + col];
                model.slot_of[&(n, grid.value_attr)] as usize
            };
            let rows: Vec<[u8; 4]> = permutations([1, 2, 3, 4]);
            let mut squares = Vec::new();
            for &a in &rows {
                for &b in &rows {
                    for &c in &rows {
                        for &d in &rows {
                            let square = [a, b, c, d];
                            if (0..4).all(|j| {
                                (0..4).map(|i| 1u8 << square[i][j]).fold(0, |m, b| m | b) == 0b11110
                            }) {
                                squares.push(square);
                            }
                        }
                    }
                }
            }
            assert_eq!(squares.len(), 576);
            let mut states: Vec<Vec<u8>> = Vec::new();
            for square in &squares {
                let mut vals = vec![0; model.slots.len()];
                for (r, row) in square.iter().enumerate() {
                    for (col, &v) in row.iter().enumerate() {
                        vals[slot(r, col)] = v;
                    }
                }
                states.push(vals);
            }
            for _ in 0..500 {
                states.push((0..model.slots.len()).map(|_| below(4) as u8 + 1).collect());
            }
            let (mut held, mut failed) = (0, 0);
            for vals in &states {
                let graph = crate::slot::write_graph(&model, &g.base, vals);
                let by_matcher = c.holds(&g.types, &graph);
                assert_eq!(f.final_holds(vals), Some(by_matcher), "{name} at {vals:?}");
                if by_matcher {
                    held += 1;
                } else {
                    failed += 1;
                }
            }
            assert!(
                held >= 2 && failed > 100,
                "{name}: {held} held, {failed} failed"
            );
        }
    }

    /// The 24 orders of four items.
    fn permutations(items: [u8; 4]) -> Vec<[u8; 4]> {
        let mut out = Vec::new();
        for (i, &a) in items.iter().enumerate() {
            for (j, &b) in items.iter().enumerate() {
                for (k, &c) in items.iter().enumerate() {
                    if i != j && j != k && i != k {
                        // The fourth index: the one the three others leave (computed
                        // only for three distinct ones, whose sum is at most 6).
                        let l = 6 - i - j - k;
                        out.push([a, b, c, items[l]]);
                    }
                }
            }
        }
        out
    }

    /// A start table narrows an instance's slots as laying them out does, wherever the
    /// layout finishes: on random partial fillings of a skyscraper's and a renban's rule
    /// files, every instance with a table.
    #[test]
    fn start_tables_narrow_as_the_layout_does() {
        let files = [
            (
                "skyscraper-4x4.graft",
                include_str!("../../rules/skyscraper-4x4.graft"),
            ),
            (
                "renban-6x6.graft",
                include_str!("../../rules/renban-6x6.graft"),
            ),
        ];
        let mut below = crate::slot::xorshift(0x0073_7461_7274);
        for (name, text) in files {
            let g = load_str(name, text).expect("the rule file loads");
            let model = super::super::compile(&g).expect("on the slot engine");
            let f = model.forbids.as_ref().expect("grounded instances");
            let t = Tables::<u64>::new(&model);
            let tables = f.tables_allowed(&t);
            assert!(tables.count() > 10, "{name}: {} tables", tables.count());
            let (mut compared, mut narrowed, mut dead) = (0, 0, 0);
            let mut scratch = TableScratch::default();
            let mut verdicts = FxHashMap::default();
            for _ in 0..300 {
                let mut w = t.empty();
                let placed = below(model.slots.len() as u64 / 2);
                for _ in 0..placed {
                    let s = below(model.slots.len() as u64) as usize;
                    let c = t.cand::<DYN>(&w, s).to_u128();
                    if c != 0 {
                        let x = below(u64::from(c.count_ones())) as usize;
                        let y = (0..128).filter(|y| c >> y & 1 == 1).nth(x).unwrap();
                        if !t.place::<DYN>(&mut w, s, y) || !t.propagate::<DYN>(&mut w) {
                            break;
                        }
                    }
                }
                let mut shadow = w.vals.clone();
                for i in 0..f.instances.len() as u32 {
                    let Some(table) = tables.get(i) else {
                        continue;
                    };
                    // A filled instance is settled by its match, not laid out.
                    if f.reads_of(i as usize)
                        .iter()
                        .all(|&s| shadow[s as usize] != 0)
                    {
                        continue;
                    }
                    let laid = &mut w.clone();
                    let Some(exact) =
                        f.lay_out::<u64, DYN>(&t, i as usize, &mut shadow, &mut verdicts, laid)
                    else {
                        let by_table = &mut w.clone();
                        let kept =
                            f.filter_by_table::<u64, DYN>(&t, (table, &mut scratch), i, by_table);
                        assert_eq!(kept, None, "{name}: instance {i} at {:?}", w.vals);
                        dead += 1;
                        continue;
                    };
                    if exact.is_none() {
                        continue;
                    }
                    let by_table = &mut w.clone();
                    let taken = f
                        .filter_by_table::<u64, DYN>(&t, (table, &mut scratch), i, by_table)
                        .expect("an assignment is left");
                    for &s in f.reads_of(i as usize) {
                        assert_eq!(
                            t.cand::<DYN>(laid, s as usize),
                            t.cand::<DYN>(by_table, s as usize),
                            "{name}: instance {i}, slot {s} at {:?}",
                            w.vals
                        );
                    }
                    assert_eq!(Some(taken), exact);
                    compared += 1;
                    narrowed += usize::from(taken);
                }
            }
            assert!(
                compared > 1000 && narrowed > 100 && dead > 10,
                "{name}: {compared} compared, {narrowed} narrowed, {dead} without an assignment"
            );
        }
    }

    /// A rule file's puzzles share each pattern's search plans, also where a layer adds
    /// regions (so that nothing grounded is shared), and list the same instances as
    /// plans of their own do; and they share the compiled final condition.
    #[test]
    fn puzzles_of_a_rule_file_share_their_patterns_plans() {
        for (name, text) in [
            (
                "skyscraper-4x4.graft",
                include_str!("../../rules/skyscraper-4x4.graft"),
            ),
            (
                "renban-6x6.graft",
                include_str!("../../rules/renban-6x6.graft"),
            ),
        ] {
            let g = load_str(name, text).expect("the rule file loads");
            let model = super::super::compile(&g).expect("on the slot engine");
            let cache = GroundCache::of(&g);
            assert!(cache.serves(&g), "{name}");
            let compiled = |shared: Option<&GroundCache>| {
                SlotForbids::compile(&g, &model, shared, &ShapeCache::default())
                    .expect("it compiles")
                    .expect("it has patterns")
            };
            let (first, again, alone) = (
                compiled(Some(&cache)),
                compiled(Some(&cache)),
                compiled(None),
            );
            assert!(!first.plans.is_empty(), "{name}");
            for ((a, b), c) in first.plans.iter().zip(&again.plans).zip(&alone.plans) {
                assert!(Arc::ptr_eq(a, b) && !Arc::ptr_eq(a, c), "{name}");
            }
            let bindings = |f: &SlotForbids| -> Vec<Box<[NodeId]>> {
                f.instances.iter().map(|i| i.binding.clone()).collect()
            };
            assert_eq!(bindings(&again), bindings(&alone), "{name}");
            assert_eq!(
                (&again.reads, &again.read_start),
                (&alone.reads, &alone.read_start)
            );
            // The related pairs too, listed once for the hubs they were listed over.
            assert_eq!(again.pairs, alone.pairs, "{name}");
            let listed_once = (first.pairs.iter().zip(&again.pairs))
                .all(|(a, b)| a.is_empty() || Arc::ptr_eq(a, b));
            assert!(listed_once, "{name}");
            // The final condition's part beyond filled cells, likewise.
            let rest = |shared: Option<&GroundCache>| {
                let mut m = model.clone();
                m.finish(&g, shared);
                match m.final_kind {
                    FinalKind::FullAnd(c) | FinalKind::Cond(c) => Some(c),
                    FinalKind::Full | FinalKind::Stuck => None,
                }
            };
            match (rest(Some(&cache)), rest(Some(&cache)), rest(None)) {
                (Some(a), Some(b), Some(c)) => {
                    assert!(Arc::ptr_eq(&a, &b) && !Arc::ptr_eq(&a, &c), "{name}")
                }
                (None, None, None) => assert!(name.starts_with("renban"), "{name}"),
                _ => panic!("{name}: the final condition classified differently"),
            }
        }
    }

    /// Renban runs drawn anew by each puzzle's layer: an instance renamed from a run of the
    /// same length grounded before (in the same puzzle or an earlier one) is the one
    /// grounding it gives, programs, slots and shape alike.
    #[test]
    fn region_instances_are_renamed_as_grounding_gives() {
        let text = include_str!("../../rules/renban-6x6.graft");
        let empty = ". ".repeat(36);
        let batch = [
            "A A B B C C D D E E F F G G H H I I J J K K L L M M N N O O P P Q Q R R",
            "A B C D E F A B C D E F A B C D E F G G G H H H G G G H H H . . . . . .",
            "A A A A B B C C C C B B . . . . D D E . F F F D E . . . . D E E E E E D",
        ]
        .map(|runs| format!("{empty}| run: {runs}"))
        .join("\n");
        let (instances, taken) = regions_renamed_as_grounded("renban-6x6.graft", text, &batch);
        // Runs of 2, 3, 4, 5 and 6 cells, the first of each length grounded.
        assert!(
            instances > 30 && taken + 6 >= instances,
            "{taken} of {instances} renamed"
        );
    }

    /// Every janko renban line, imported as `grafter import janko` imports them:
    /// [`region_instances_are_renamed_as_grounding_gives`] over real runs. Reads
    /// `../shared/data/janko` (or `$GRAFTER_DATA/janko`), so it is opt-in.
    #[test]
    #[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
    fn janko_runs_are_renamed_as_grounding_gives() {
        let Some(imported) = crate::import::janko::imported_for_tests("Renban") else {
            return;
        };
        let (mut instances, mut taken) = (0, 0);
        for (name, rules, batch) in imported.batches() {
            let (i, t) = regions_renamed_as_grounded(name, rules, batch);
            (instances, taken) = (instances + i, taken + t);
        }
        assert!(
            instances > 400 && taken * 10 > instances * 9,
            "{taken} of {instances} renamed"
        );
    }

    /// Compiles the `forbid` patterns of each puzzle of `batch` (lines for the rule file
    /// `rules`) with the rule file's cache, then without: every instance the same.
    /// Returns how many instances there were, and how many were renamed.
    fn regions_renamed_as_grounded(name: &str, rules: &str, batch: &str) -> (usize, usize) {
        let g = load_str(name, rules).expect("the rule file loads");
        let source = crate::diag::Source::new("batch.txt", batch.to_string());
        let puzzles = crate::read_puzzles(&g, &source).expect("the batch reads");
        let cache = GroundCache::of(&g);
        let (mut instances, mut taken) = (0, 0);
        for p in &puzzles {
            let at = format!("{name} puzzle {}", p.number);
            let layered = g.with_layers(&p.layers);
            assert!(cache.serves(&layered), "{at}");
            let model = super::super::compile(&layered).expect("on the slot engine");
            let compiled = |shared: Option<&GroundCache>, shapes: &ShapeCache| {
                SlotForbids::compile(&layered, &model, shared, shapes)
                    .expect("it compiles")
                    .expect("it has patterns")
            };
            let before = super::super::ground::REGIONS_TAKEN.get();
            let renamed = compiled(Some(&cache), &cache.shapes);
            taken += super::super::ground::REGIONS_TAKEN.get() - before;
            let grounded = compiled(None, &ShapeCache::default());
            assert_eq!(renamed.ground.len(), grounded.ground.len(), "{at}");
            // Each puzzle's runs are hubs of its own: no pairs from another's.
            assert_eq!(renamed.pairs, grounded.pairs, "{at}");
            for (a, b) in renamed.ground.iter().zip(&grounded.ground) {
                let (a, b) = (a.as_ref().expect("grounded"), b.as_ref().expect("grounded"));
                assert_eq!(a.program, b.program, "{at}");
                assert_eq!(a.reads, b.reads, "{at}");
                assert_eq!(a.shape.term, b.shape.term, "{at}");
                let bounds = |i: &GroundInstance| format!("{:?}", i.bounds);
                assert_eq!(bounds(a), bounds(b), "{at}");
                instances += 1;
            }
        }
        (instances, taken)
    }

    /// Only patterns over one region node whose aggregates each range over its cells,
    /// reading what rules set on them, have a region shape.
    #[test]
    fn region_patterns_read_their_members_slots_alone() {
        let text = include_str!("../../rules/renban-6x6.graft");
        let forbid = "forbid { r: Run where max(d.val for r <-run- d: Cell) - min(d.val for r <-run- d: Cell)\n                      >= count(r <-run- d: Cell) }";
        assert!(text.contains(forbid));
        let shaped = |pattern: &str| {
            let text = text.replacen(forbid, pattern, 1);
            let g = load_str("renban-6x6.graft", &text).expect("the rule file loads");
            let set = forbid::set_attrs(&g);
            RegionPattern::of(&g.forbids[0], &set).is_some()
        };
        assert!(shaped(forbid));
        assert!(shaped(
            "forbid { r: Run where count(r <-run- d: Cell { val == none }) == 0 }"
        ));
        assert!(shaped(
            "forbid { r: Run  not { d: Cell -run-> r  where d.val == 6 } }"
        ));
        // A member's row is its own, fixed: two runs of one length read different ones.
        assert!(!shaped(
            "forbid { r: Run where sum(d.row for r <-run- d: Cell) > 9 and count(r <-run- d: Cell { val == none }) == 0 }"
        ));
        // Two members related, or a cell beside the run.
        assert!(!shaped(
            "forbid { r: Run where count(r <-run- d: Cell -in-> h: Group) > 9 }"
        ));
        assert!(!shaped(
            "forbid { r: Run  c: Cell -run-> r  where c.val == 1 }"
        ));
    }

    /// Groundings taken from a rule file's shared ones come out as grounding them would,
    /// whatever budget is left: the same instances grounded, the same left to the
    /// matcher where the budget runs out part way.
    #[test]
    fn shared_groundings_spend_the_budget_as_grounding_does() {
        let text = include_str!("../../rules/skyscraper-4x4.graft");
        // And with an aggregate whose matches ground to nothing (a line's length), last in
        // its condition: its matches are more than the term nodes it takes, so that a
        // budget can run out at it with nothing after it to spend the rest.
        let sized = text.replacen(
            "-east+-> d)) != g.left }",
            "-east+-> d)) + count(d: Cell -in-> g) - 4 != g.left }",
            1,
        );
        assert_ne!(sized, text);
        for text in [text, &sized[..]] {
            budgets_spent_alike(text);
        }
    }

    fn budgets_spent_alike(text: &str) {
        let g = load_str("skyscraper-4x4.graft", text).expect("the rule file loads");
        let model = super::super::compile(&g).expect("on the slot engine");
        let cache = GroundCache::of(&g);
        // Everything grounded once, at full budget, into the cache.
        SlotForbids::compile(&g, &model, Some(&cache), &ShapeCache::default())
            .expect("it compiles");
        // What grounding decided: the instances kept and grounded, the slots each reads.
        let shown = |f: Option<SlotForbids>| {
            f.map(|f| {
                let instances: Vec<_> = f.instances.iter().map(|i| i.binding.clone()).collect();
                let grounded: Vec<bool> = f.ground.iter().map(Option::is_some).collect();
                (instances, grounded, f.reads, f.read_start, f.mirrored)
            })
        };
        let grounded = |f: &Option<SlotForbids>| f.as_ref().map_or(0, |f| f.instances.len());
        let all =
            grounded(&SlotForbids::compile(&g, &model, None, &ShapeCache::default()).unwrap());
        let mut partly = 0;
        super::super::ground::SHARED_TAKEN.set(0);
        // Every budget up to one that grounds them all.
        for budget in 0.. {
            let alone =
                SlotForbids::compile_within(&g, &model, budget, None, &ShapeCache::default())
                    .unwrap();
            let kept = grounded(&alone);
            partly += usize::from((1..all).contains(&kept));
            let shared = SlotForbids::compile_within(
                &g,
                &model,
                budget,
                Some(&cache),
                &ShapeCache::default(),
            )
            .unwrap();
            assert_eq!(shown(shared), shown(alone), "budget {budget}");
            if kept == all {
                break;
            }
        }
        assert!(
            partly > 10,
            "only {partly} budgets ground part of the instances"
        );
        let taken = super::super::ground::SHARED_TAKEN.get();
        assert!(taken > 100, "only {taken} groundings taken from the cache");
    }
}
