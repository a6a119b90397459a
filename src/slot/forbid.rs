//! `forbid { ... }` patterns on the slot engine: each pattern's matches over the structure
//! no rule changes (its instances), each checked again when a slot it reads is filled, by
//! the general matcher on a mirror of the state's graph.
//!
//! Slot rules only set attributes, so the nodes and edges a pattern can match are those of
//! the start graph: a match in any state is a match of the pattern without its conditions
//! on changing attributes, its NACs and its aggregates (the instance), whose conditions
//! then hold. Whether they hold depends only on the slots the instance reads (its nodes',
//! and those of the nodes its aggregates and NACs can reach), so a state whose parent no
//! pattern matched is forbidden exactly when an instance reading a slot filled since then
//! matches. The conditions themselves are never re-implemented: the matcher evaluates them
//! on the mirror, as on the whole-graph engine.
//!
//! Forward checking: where the patterns are monotone (once matched, matched in every
//! extension: see [`crate::analysis::forbid`]), a value whose placement alone makes an
//! instance match can never be part of a final state, so it leaves the slot's candidates
//! before the focus counts them. Only the instances a step touched are tried: the others
//! read what they read before, when they were tried already.

use std::collections::HashMap;
use std::ops::ControlFlow;

use crate::analysis::slot_fill::not_slot;
use crate::analysis::{forbid, Refusal};
use crate::grammar::Grammar;
use crate::matcher::{GraphIndex, Matcher, SearchPlan, UNBOUND};
use crate::model::{AttrId, Graph, NodeId, Value};
use crate::rule::{Expr, Pattern};

use super::mask::Mask;
use super::model::SlotModel;
use super::solver::{Tables, Work};

/// Instances listed at most, over all patterns; past it the grammar runs on whole graphs
/// (a pattern over unrelated nodes, such as three cells joined by conditions only).
const MAX_INSTANCES: usize = 1 << 20;

/// Slot reads listed at most, over all instances.
const MAX_READS: usize = 1 << 24;

/// The `forbid` patterns of one start graph, compiled to instances.
#[derive(Clone, Debug)]
pub struct SlotForbids {
    /// Per pattern, the plan that checks its conditions and NACs with its nodes bound.
    checks: Vec<SearchPlan>,
    /// Per instance, its pattern and the nodes its own variables bind.
    instances: Vec<Instance>,
    /// Per instance, the slots it reads: `reads[read_start[i]..read_start[i + 1]]`.
    read_start: Vec<u32>,
    reads: Vec<u32>,
    /// Per slot, the instances reading it: `watch[watch_start[s]..watch_start[s + 1]]`.
    watch_start: Vec<u32>,
    watch: Vec<u32>,
    /// Whether every pattern is monotone, so forward checking is sound.
    monotone: bool,
}

#[derive(Clone, Debug)]
struct Instance {
    pattern: u32,
    binding: Box<[NodeId]>,
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
    binding: Vec<NodeId>,
    changed: Vec<u32>,
    near: Vec<u32>,
    /// Per instance and per slot, the round that last listed it (duplicates skipped).
    seen_instance: Vec<u32>,
    seen_slot: Vec<u32>,
    round: u32,
}

impl SlotForbids {
    /// The instances of `g`'s `forbid` patterns over its start graph, or `None` when it has
    /// none. Refused where cells are filled by replacement (the instances would change) or
    /// the instances are too many to list.
    pub fn compile(g: &Grammar, model: &SlotModel) -> Result<Option<SlotForbids>, Refusal> {
        let Some(first) = g.forbids.first() else {
            return Ok(None);
        };
        if model.replaced.is_some() {
            return not_slot(
                first.span,
                "`forbid` patterns need the cells to stay in place: here rules replace them",
            );
        }
        let set = forbid::set_attrs(g);
        let mut slots_of: HashMap<NodeId, Vec<u32>> = HashMap::new();
        for (s, &(n, _)) in model.slots.iter().enumerate() {
            slots_of.entry(n).or_default().push(s as u32);
        }
        let matcher = Matcher::new(&g.types, &g.base, &[]);
        let mut out = SlotForbids {
            checks: Vec::new(),
            instances: Vec::new(),
            read_start: vec![0],
            reads: Vec::new(),
            watch_start: Vec::new(),
            watch: Vec::new(),
            monotone: forbid::check(g).is_ok(),
        };
        for (pi, p) in g.forbids.iter().enumerate() {
            out.checks.push(SearchPlan::compile(&Pattern {
                bound: p.var_end(),
                nodes: Vec::new(),
                edges: Vec::new(),
                conds: p.conds.clone(),
                nacs: p.nacs.clone(),
                span: p.span,
            }));
            let plan = SearchPlan::compile(&structure(p, &set));
            let mut binding = Vec::new();
            let mut found: Vec<Vec<NodeId>> = Vec::new();
            let mut too_many = false;
            let _ = matcher.for_each_match(&plan, &mut binding, &mut |m| {
                found.push(m[..p.var_end() as usize].to_vec());
                too_many = out.instances.len() + found.len() > MAX_INSTANCES;
                if too_many {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            if too_many {
                return not_slot(
                    p.span,
                    format!("this `forbid` pattern has more than {MAX_INSTANCES} matches over the cells' structure for the slot engine to list"),
                );
            }
            for m in found {
                let mut nodes: Vec<NodeId> = p.own_vars().map(|v| m[v.index()]).collect();
                reads_beyond(&matcher, (&p.conds, &p.nacs, None), &m, &set, &mut nodes);
                nodes.sort_unstable();
                nodes.dedup();
                let mut reads: Vec<u32> = nodes
                    .iter()
                    .flat_map(|n| slots_of.get(n).into_iter().flatten().copied())
                    .collect();
                reads.sort_unstable();
                out.reads.extend(reads);
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
        let mut watching = vec![Vec::new(); model.slots.len()];
        for i in 0..out.instances.len() {
            for &s in out.reads_of(i) {
                watching[s as usize].push(i as u32);
            }
        }
        out.watch_start.push(0);
        for list in watching {
            out.watch.extend(list);
            out.watch_start.push(out.watch.len() as u32);
        }
        Ok(Some(out))
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

    /// Whether instance `i` matches on the scratch's mirror.
    fn matches(&self, g: &Grammar, scratch: &mut ForbidScratch, i: usize) -> bool {
        let inst = &self.instances[i];
        let plan = &self.checks[inst.pattern as usize];
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
                if scratch.seen_instance[i as usize] == scratch.round {
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

    /// Writes `vals` into the scratch's mirror of `base`.
    pub fn sync(&self, g: &Grammar, model: &SlotModel, scratch: &mut ForbidScratch, vals: &[u8]) {
        let base = &g.base;
        // Without lookups by attribute, the index holds only what no step changes.
        scratch
            .index
            .get_or_insert_with(|| GraphIndex::new(&g.types, base, &[]));
        let graph = scratch.graph.get_or_insert_with(|| base.clone());
        scratch.shadow.resize(vals.len(), 0);
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
        (0..self.instances.len()).any(|i| self.matches(g, scratch, i))
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
        let (n, a) = model.slots[s as usize];
        set(scratch, n, a, super::slot_value(y as u8 + 1));
        let hit = self.matches_at(g, scratch, &[s]);
        set(scratch, n, a, super::slot_value(parent[s as usize]));
        hit
    }

    /// Propagates `w`, which extends `parent` (matched by no pattern), to a fixed point of
    /// the tables' propagation and the patterns: false when a pattern matches what it
    /// fills, else, where the patterns are monotone, with every candidate taken whose
    /// placement alone would make a pattern match next to a slot just filled.
    pub fn settle<M: Mask, const W: usize>(
        &self,
        g: &Grammar,
        model: &SlotModel,
        t: &Tables<M>,
        scratch: &mut ForbidScratch,
        parent: &[u8],
        w: &mut Work<M>,
    ) -> bool {
        scratch.clean.clear();
        scratch.clean.extend_from_slice(parent);
        loop {
            if !t.propagate::<W>(w) {
                return false;
            }
            self.sync(g, model, scratch, &w.vals);
            let mut changed = std::mem::take(&mut scratch.changed);
            changed.clear();
            changed.extend(filled_since(&scratch.clean, &w.vals));
            let verdict = if changed.is_empty() {
                Some(true)
            } else if self.matches_at(g, scratch, &changed) {
                Some(false)
            } else {
                scratch.clean.clone_from(&w.vals);
                let taken =
                    self.monotone && self.forward_check::<M, W>(g, model, t, scratch, &changed, w);
                // Taking candidates may force placements: propagate and check again.
                (!taken).then_some(true)
            };
            scratch.changed = changed;
            if let Some(alive) = verdict {
                return alive;
            }
        }
    }

    /// Takes from the empty slots that share an instance with a slot of `changed` each
    /// candidate whose placement makes one of that slot's instances match. Whether any
    /// was taken.
    fn forward_check<M: Mask, const W: usize>(
        &self,
        g: &Grammar,
        model: &SlotModel,
        t: &Tables<M>,
        scratch: &mut ForbidScratch,
        changed: &[u32],
        w: &mut Work<M>,
    ) -> bool {
        scratch.next_round(self.instances.len(), w.vals.len());
        let round = scratch.round;
        let mut near = std::mem::take(&mut scratch.near);
        near.clear();
        for &s in changed {
            for &i in self.watchers(s) {
                if std::mem::replace(&mut scratch.seen_instance[i as usize], round) == round {
                    continue;
                }
                for &e in self.reads_of(i as usize) {
                    if w.vals[e as usize] == 0
                        && std::mem::replace(&mut scratch.seen_slot[e as usize], round) != round
                    {
                        near.push(e);
                    }
                }
            }
        }
        let mut taken = false;
        for &e in &near {
            let (n, a) = model.slots[e as usize];
            let mut cands = t.cand::<W>(w, e as usize);
            while !cands.is_zero() {
                let x = cands.pop_first();
                set(scratch, n, a, super::slot_value(x as u8 + 1));
                // Only the instances a slot of `changed` touched (marked this round): the
                // others read what they read at the parent, where their forward check ran.
                let hit = self.watchers(e).iter().any(|&i| {
                    scratch.seen_instance[i as usize] == round
                        && self.matches(g, scratch, i as usize)
                });
                if hit {
                    t.exclude::<W>(w, e as usize, x);
                    taken = true;
                }
            }
            set(scratch, n, a, Value::None);
        }
        scratch.near = near;
        taken
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

/// Sets an attribute of the mirror, outside `sync` (a candidate tried and taken back).
fn set(scratch: &mut ForbidScratch, n: NodeId, a: AttrId, v: Value) {
    scratch
        .graph
        .as_mut()
        .expect("synced before checking")
        .set_attr(n, a, v);
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
fn structure(p: &Pattern, set: &[AttrId]) -> Pattern {
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
fn is_fixed(c: &Expr, set: &[AttrId]) -> bool {
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
