//! NAC tables: a NAC becomes tables "witness value y blocks placed values x", one per
//! tuple of the unchanging attributes its conditions read.

use std::collections::hash_map::Entry;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::matcher::{GraphIndex, Matcher};
use crate::model::{AttrId, Graph, NodeId, Value, VarId};
use crate::rule::{Aggregate, Env, Expr, Pattern};

use super::super::model::SlotModel;
use super::fixed::{FixedNacs, LayerVocabulary, Mark, Verdicts};
use super::hubs::add_hubs;
use super::instances::Instances;
use super::star::Star;
use super::{matches_by_left_side, HostIndex, RuleCompiler, Tuples, MAX_NAC_MATCHES};
use crate::analysis::slot_fill::not_slot;
use crate::analysis::Refusal;

#[cfg(test)]
thread_local! {
    /// Set by tests to compile every NAC the general way, and list every rule's instances
    /// with the matcher, to compare with the shortcuts.
    pub(super) static GENERAL_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// How many NACs compiled as stars, for tests to see the shortcut taken.
    pub(super) static STARS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl RuleCompiler<'_> {
    /// Compiles the rule's NACs. Those no layer can reach replay their effect from `reuse`
    /// where it holds them, and record it in `record` where it is given.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn compile_nacs(
        &self,
        model: &mut SlotModel,
        (host, index): (&Graph, &HostIndex),
        instances: &Instances,
        groups: &[usize],
        (ri, vocabulary): (usize, Option<&LayerVocabulary>),
        reuse: Option<&FixedNacs>,
        mut record: Option<&mut FixedNacs>,
    ) -> Result<(), Refusal> {
        // Verdicts go to the rule file's record, and come from it for each puzzle.
        let verdicts = reuse.or(record.as_deref()).map(|f| f.verdicts.clone());
        for (i, nac) in self.r.lhs.nacs.iter().enumerate() {
            let fixed = !groups.contains(&i)
                && vocabulary
                    .is_some_and(|v| v.cannot_reach(self.g, (&self.r.lhs, self.value), nac));
            if fixed && reuse.is_some_and(|f| f.replay((ri, i), model)) {
                continue;
            }
            // A NAC whose effect the layers decide by the values they set: replayed where
            // a puzzle of the batch had them before.
            let by_values = reuse.or(record.as_deref()).map(|f| f.by_values.clone());
            let values_key = match (&by_values, vocabulary) {
                (Some(_), Some(v)) if !fixed && !groups.contains(&i) => v
                    .values_read(self.g, (&self.r.lhs, self.value), nac)
                    .map(|values| ((ri, i), values)),
                _ => None,
            };
            if let (Some(by_values), Some(key)) = (&by_values, &values_key) {
                if by_values.replay(key, model) {
                    if let Some(record) = record.as_deref_mut() {
                        record.hub_ends.push(((ri, i), model.hubs.len()));
                    }
                    continue;
                }
            }
            let mark = match (&record, fixed) {
                (Some(_), true) => Some(Mark::of(model)),
                _ if values_key.is_some() => Some(Mark::of(model)),
                _ => None,
            };
            let kept = KeptForNac {
                key: (ri, i),
                verdicts: verdicts.as_ref(),
                vocabulary,
                reuse,
                record: record.as_deref_mut(),
            };
            if groups.contains(&i) {
                self.compile_group_nac(model, (host, index), nac, instances, kept)?;
            } else if let Some(e) = nac.conds.iter().find(|e| !self.is_structural(e, nac)) {
                return not_slot(
                    e.span,
                    format!(
                        "rule `{}` compares a cell's value with an aggregate in a NAC: the slot engine's tables hold value-by-value relations, and it evaluates aggregates only over the group of the filled cell (a cage's `sum(...) + v`)",
                        self.r.name
                    ),
                );
            } else if !self.compiled_as_star(model, host, nac, instances) {
                // The reason names the rule, as every refusal of a rule does: a file with
                // many rules says which one fell back.
                self.compile_nac(model, (host, index), nac, instances, kept)
                    .map_err(|mut refusal| {
                        refusal.reason = format!("rule `{}`: {}", self.r.name, refusal.reason);
                        refusal
                    })?;
            }
            match (values_key, &by_values, mark) {
                (Some(key), Some(by_values), Some(mark)) => by_values.record(key, model, mark),
                (None, _, Some(mark)) => {
                    if let Some(record) = record.as_deref_mut() {
                        record.record((ri, i), model, mark);
                    }
                }
                _ => {}
            }
            if let Some(record) = record.as_deref_mut() {
                record.hub_ends.push(((ri, i), model.hubs.len()));
            }
        }
        Ok(())
    }

    /// Compiles `nac` from the group nodes' members when it is the all-different shape
    /// (see [`Star`]); false, with nothing added, when it is not.
    fn compiled_as_star(
        &self,
        model: &mut SlotModel,
        host: &Graph,
        nac: &Pattern,
        instances: &Instances,
    ) -> bool {
        #[cfg(test)]
        if GENERAL_ONLY.get() {
            return false;
        }
        let done = Star::of(self, nac)
            .and_then(|star| star.compile(&self.g.types, model, host, self.attr, instances))
            .is_some();
        #[cfg(test)]
        STARS.set(STARS.get() + usize::from(done));
        done
    }

    /// True when `e` holds no aggregate, or reads only what no rule changes, of the NAC's
    /// own nodes, anywhere in its aggregates (a cell's place along a line): then it is
    /// evaluated with the NAC's structure, once per match on the start graph.
    fn is_structural(&self, e: &Expr, nac: &Pattern) -> bool {
        if !e.has_aggregate() {
            return true;
        }
        let changing: Vec<AttrId> = self.dynamic.iter().map(|k| k.1).collect();
        let mut fixed = !e.reads_params();
        e.visit_attrs(&mut |v, a| fixed &= v.0 >= nac.bound && !changing.contains(&a));
        e.visit_aggregates(&mut |a| {
            fixed &= !crate::analysis::forbid::reads_any(&a.pattern, a.body.as_ref(), &changing)
        });
        fixed
    }

    /// Compiles a NAC into tables and hubs. Its witness is the one NAC node whose changing
    /// attribute its conditions read; the unchanging attributes they read besides (of the
    /// left side or of the NAC's nodes) are known per match of its structure, so the
    /// matches alike in them share one table.
    fn compile_nac(
        &self,
        model: &mut SlotModel,
        (host, index): (&Graph, &HostIndex),
        nac: &Pattern,
        instances: &Instances,
        kept: KeptForNac,
    ) -> Result<(), Refusal> {
        let (g, r, c, attr) = (self.g, self.r, self.c, self.attr);
        let types = &g.types;
        let NacShape {
            witness,
            dyn_conds,
            static_conds,
            reads,
            match_reads,
        } = self.nac_shape(nac)?;
        // The NAC's structure as a pattern of its own, over the left side's nodes (so
        // variables keep their numbers) without the left side's conditions.
        let structure = Pattern {
            bound: 0,
            nodes: r.lhs.nodes.iter().chain(&nac.nodes).cloned().collect(),
            edges: nac.edges.clone(),
            conds: static_conds,
            nacs: Vec::new(),
            span: nac.span,
        };
        let lhs_len = nac.bound as usize;
        // NAC matches (their own nodes) per static left-side match: the rule file's, where
        // no layer can change the structure (a bar's neighbours).
        let unchanging = kept
            .vocabulary
            .is_some_and(|v| v.pattern_free(g, &structure));
        let listed = kept
            .reuse
            .filter(|_| unchanging)
            .and_then(|f| f.matches(kept.key))
            .cloned()
            .or_else(|| {
                let index = index.get_or_init(|| GraphIndex::new(types, host, &[]));
                let m = Matcher::new(types, host, &[]).with_index(index);
                matches_by_left_side(&m, &structure, lhs_len).map(Arc::new)
            });
        let Some(matches) = listed else {
            return not_slot(
                nac.span,
                format!(
                    "this NAC's structure has more than {MAX_NAC_MATCHES} matches on the start graph, too many to compile into tables"
                ),
            );
        };
        if let Some(record) = kept.record.filter(|_| unchanging) {
            record.keep_matches(kept.key, matches.clone());
        }
        // A NAC over a node whose existence changes (a cell that may be deleted, or the
        // stand-in of a node not yet created) tests emptiness, not a value.
        if let Some(rep) = &model.replaced {
            let stand_in = |n: NodeId| n.index() >= g.base.capacity();
            let cell = |n: NodeId| model.slot_of.contains_key(&(n, attr)) && !stand_in(n);
            let wi = witness.map(|(v, _)| v.index());
            let bad = matches.all().any(|t| {
                (lhs_len..t.len()).any(|i| cell(t[i]) || (stand_in(t[i]) && Some(i) != wi))
            });
            if bad {
                return not_slot(
                    nac.span,
                    format!(
                        "this NAC can match a cell the rules delete or a `{}` they create other than through the value it compares, so it tests whether a cell is filled",
                        types.node(rep.ty).name
                    ),
                );
            }
        }
        let holds = |params: &[Value], statics: &[Value], y: Value| {
            let env = StaticEnv {
                params,
                reads: &reads,
                statics,
                witness,
                value: y,
            };
            dyn_conds.iter().all(|e| e.holds(&env))
        };
        let lhs_reads = &reads[match_reads..];
        let d = model.d;
        let mut parts = Parts::new(d);
        // Per left-side binding: the parts its matches fall into, each with whether one
        // of those matches has a witness that is a slot (an index into `reach_lists`).
        // Sized for a binding per slot, the most common case (a cell per instance).
        let bindings = model.slots.len();
        let mut reached: FxHashMap<&[NodeId], usize> =
            FxHashMap::with_capacity_and_hasher(bindings, Default::default());
        let mut reach_lists: Vec<SmallVec<[(usize, bool); 2]>> = Vec::with_capacity(bindings);
        let mut witnesses_of: FxHashMap<u32, SmallVec<[NodeId; 4]>> =
            FxHashMap::with_capacity_and_hasher(bindings, Default::default());
        // (parameters, the left side's unchanging attributes read, part): on the stack.
        type Key = (SmallVec<[Value; 2]>, SmallVec<[Value; 2]>, usize);
        let mut judged: FxHashMap<Key, (u128, bool)> = FxHashMap::default();
        // Where the key is the one parameter, a value, and the part (the condition reads
        // nothing else of the left side: a bar, a dot, an order), the verdicts are kept by
        // index instead, values of one part together: every instance looks one up.
        let dense = lhs_reads.is_empty() && self.r.params.len() == 1;
        let mut judged_dense: Vec<Option<(u128, bool)>> = Vec::new();
        let mut blocked = Vec::new();
        // The binding of the instance before and its parts: instances come slot by slot,
        // and the values placed in one slot most often share a binding.
        let mut last: Option<(&[NodeId], usize)> = None;
        for (&(s, x), i) in instances.iter() {
            // An instance's matches depend on its left-side binding only, most often the
            // same for every value placed in one slot: read once per binding.
            let known = match last {
                Some((b, at)) if b == &i.binding[..] => Some(at),
                _ => reached.get(&i.binding[..]).copied(),
            };
            let reach = match known {
                Some(at) => at,
                None => {
                    let found = matches.get(&i.binding[..]);
                    if let Some((wv, _)) = witness {
                        // The hub model needs the witnesses to depend only on the cell.
                        let mut ws: SmallVec<[NodeId; 4]> =
                            found.clone().map(|t| t[wv.index()]).collect();
                        ws.sort_unstable();
                        ws.dedup();
                        let differs = match witnesses_of.entry(s) {
                            Entry::Vacant(first) => {
                                first.insert(ws);
                                false
                            }
                            Entry::Occupied(first) => *first.get() != ws,
                        };
                        if differs {
                            return not_slot(
                                nac.span,
                                format!(
                                    "which nodes this NAC looks at for {} depends on the value placed; the slot engine needs it to depend on the cell only",
                                    model.slot_name(g, s)
                                ),
                            );
                        }
                    }
                    let mut these: SmallVec<[(usize, bool); 2]> = SmallVec::new();
                    for t in found {
                        let p = parts.add(&reads[..match_reads], host, t);
                        let slot = witness.is_some_and(|(wv, wa)| {
                            model.slot_of.contains_key(&(t[wv.index()], wa))
                        });
                        match these.iter_mut().find(|(q, _)| *q == p) {
                            Some((_, any)) => *any |= slot,
                            None => these.push((p, slot)),
                        }
                    }
                    reach_lists.push(these);
                    reached.insert(&i.binding[..], reach_lists.len() - 1);
                    reach_lists.len() - 1
                }
            };
            last = Some((&i.binding[..], reach));
            for &(p, witness_slot) in &reach_lists[reach] {
                let part = &mut parts.list[p];
                let judge_part = |params: &[Value], lhs_values: &[Value]| {
                    let statics: SmallVec<[Value; 4]> =
                        part.statics.iter().chain(lhs_values).copied().collect();
                    let judge = || {
                        let mut ys = 0u128;
                        for y in 0..d {
                            if holds(params, &statics, Value::Val(y as u16)) {
                                ys |= 1u128 << y;
                            }
                        }
                        (ys, holds(params, &statics, Value::None))
                    };
                    match kept.verdicts {
                        Some(v) => v.get_or(
                            (kept.key, SmallVec::from_slice(params), statics.clone()),
                            judge,
                        ),
                        None => judge(),
                    }
                };
                let at = match i.params[..] {
                    [Value::Val(y)] if dense && usize::from(y) < d => Some(p * d + usize::from(y)),
                    _ => None,
                };
                let (ys, holds_empty) = match at {
                    Some(at) => {
                        if judged_dense.len() <= at {
                            judged_dense.resize((p + 1) * d, None);
                        }
                        *judged_dense[at].get_or_insert_with(|| judge_part(&i.params, &[]))
                    }
                    None => {
                        let lhs_values: SmallVec<[Value; 2]> = lhs_reads
                            .iter()
                            .map(|&(v, a)| host.attr(i.binding[v.index()], a))
                            .collect();
                        let key = (SmallVec::from_slice(&i.params), lhs_values, p);
                        *judged
                            .entry(key)
                            .or_insert_with_key(|key| judge_part(&key.0, &key.1))
                    }
                };
                if witness.is_none() {
                    // A NAC on unchanging attributes only: it blocks instances for good.
                    if holds_empty {
                        blocked.push((s, x));
                    }
                    continue;
                }
                // The hub model needs the values a witness value blocks to depend only on
                // the value placed (and the part).
                if *part.blocking_of[usize::from(x)].get_or_insert(ys) != ys {
                    return not_slot(
                        nac.span,
                        format!(
                            "which values this NAC blocks `{}` with depends on the cell; the slot engine needs it to depend on the value only",
                            g.domain.name(x)
                        ),
                    );
                }
                if witness_slot && holds_empty {
                    return not_slot(
                        nac.span,
                        "this NAC holds while its witness is empty, so filling a cell can enable a rule",
                    );
                }
            }
        }
        let Some((wvar, wattr)) = witness else {
            let allowed = Arc::make_mut(&mut model.allowed);
            for (s, x) in blocked {
                allowed[s as usize] &= !(1u128 << x);
            }
            return Ok(());
        };
        // Per part, the table: witness value y -> placed values x that the NAC blocks.
        // Parts with the same table share its hubs (a group whose cells differ in what the
        // condition reads of them but not in what it blocks stays one group).
        let mut by_table: Vec<(Vec<u128>, Tuples)> = Vec::new();
        for part in parts.list {
            let mut table = vec![0u128; d];
            for (x, ys) in part.blocking_of.iter().enumerate() {
                let Some(ys) = *ys else { continue };
                for (y, row) in table.iter_mut().enumerate() {
                    if ys & (1u128 << y) != 0 {
                        *row |= 1u128 << x;
                    }
                }
            }
            // Matches whose unchanging attributes rule out every pair of values (a
            // neighbour's bar that is `none`) block nothing.
            if table.iter().all(|&row| row == 0) {
                continue;
            }
            match by_table.iter_mut().find(|(t, _)| *t == table) {
                Some((_, tuples)) => tuples.append(&part.tuples),
                None => by_table.push((table, part.tuples)),
            }
        }
        for (table, mut tuples) in by_table {
            tuples.sort_dedup();
            let table_id = model.add_table(table);
            add_hubs(
                model,
                host,
                nac,
                &tuples,
                (c.index(), attr),
                (wvar.index(), wattr),
                table_id,
            );
        }
        Ok(())
    }

    /// What `nac`'s conditions read, for [`RuleCompiler::compile_nac`]: refused where
    /// they compare more than one changing attribute, or the NAC joins the left side
    /// elsewhere than at the cell filled.
    pub(super) fn nac_shape<'n>(&self, nac: &'n Pattern) -> Result<NacShape<'n>, Refusal> {
        let c = self.c;
        if !nac.nacs.is_empty() {
            return not_slot(nac.span, "a NAC inside a NAC needs the general engine");
        }
        // Conditions on the witness's value, the parameter or the left side make the
        // tables; the rest is the NAC's static structure.
        let mut witness: Option<(VarId, AttrId)> = None;
        let mut dyn_conds: SmallVec<[&Expr; 4]> = SmallVec::new();
        let mut static_conds = Vec::new();
        for e in &nac.conds {
            let reads_lhs = {
                let mut any = false;
                e.visit_attrs(&mut |v, _| any |= v.0 < nac.bound && v != c);
                any
            };
            if e.reads_params() || reads_lhs || self.reads_dynamic(e, Some(nac)).is_some() {
                let mut bad = false;
                e.visit_attrs(&mut |v, a| {
                    if !self.is_dynamic(Some(nac), v, a) {
                        return;
                    }
                    if v.0 < nac.bound {
                        bad = true;
                        return;
                    }
                    match witness {
                        None => witness = Some((v, a)),
                        Some(w) if w == (v, a) => {}
                        Some(_) => bad = true,
                    }
                });
                if bad {
                    return not_slot(
                        e.span,
                        "a NAC condition that compares a changing attribute may read only that one changing attribute, of one NAC node, besides the parameter, constants and unchanging attributes",
                    );
                }
                dyn_conds.push(e);
            } else {
                static_conds.push(e.clone());
            }
        }
        for e in &nac.edges {
            for v in [e.src, e.tgt] {
                if v.0 < nac.bound && v != c {
                    return not_slot(
                        e.span,
                        "a NAC may join the rule's left side only at the cell it fills",
                    );
                }
            }
        }
        // What the changing conditions read besides the witness: unchanging attributes of
        // the cell and the NAC's nodes, which split the matches into parts, then those of
        // the left side's other nodes (a `Val` node), which follow the value placed: the
        // instances of one part must block alike whatever these read, as they do when the
        // value is read from such a node.
        let mut reads: Vec<(VarId, AttrId)> = Vec::new();
        let mut lhs_reads: Vec<(VarId, AttrId)> = Vec::new();
        for e in &dyn_conds {
            e.visit_attrs(&mut |v, a| {
                let list = if v == c || v.0 >= nac.bound {
                    &mut reads
                } else {
                    &mut lhs_reads
                };
                if Some((v, a)) != witness && !list.contains(&(v, a)) {
                    list.push((v, a));
                }
            });
        }
        let match_reads = reads.len();
        reads.extend(lhs_reads);
        Ok(NacShape {
            witness,
            dyn_conds,
            static_conds,
            reads,
            match_reads,
        })
    }
}

/// What a table NAC's conditions read (see [`RuleCompiler::nac_shape`]).
pub(super) struct NacShape<'n> {
    /// The one NAC node whose changing attribute the conditions compare, with it.
    pub(super) witness: Option<(VarId, AttrId)>,
    /// The conditions that read the witness, the parameters or the left side: they make
    /// the tables.
    pub(super) dyn_conds: SmallVec<[&'n Expr; 4]>,
    /// The rest: the NAC's static structure.
    pub(super) static_conds: Vec<Expr>,
    /// The unchanging attributes `dyn_conds` read besides the witness: the first
    /// `match_reads` of the cell and the NAC's nodes, which split its matches into parts,
    /// then those of the left side's other nodes.
    pub(super) reads: Vec<(VarId, AttrId)>,
    pub(super) match_reads: usize,
}

/// What a puzzle's compilation of one NAC takes from its rule file's, and what the rule
/// file's records for its puzzles: the verdicts of its conditions, the matches of its
/// structure where no layer can change them, a group NAC's conditions and aggregates.
pub(super) struct KeptForNac<'a> {
    /// (rule, NAC).
    pub(super) key: (usize, usize),
    verdicts: Option<&'a Verdicts>,
    vocabulary: Option<&'a LayerVocabulary>,
    pub(super) reuse: Option<&'a FixedNacs>,
    pub(super) record: Option<&'a mut FixedNacs>,
}

/// The matches of a NAC's structure, split by the unchanging attributes of the cell and of
/// the NAC's own nodes that its changing conditions read: the matches of one part block
/// alike, through one table.
struct Parts {
    list: Vec<Part>,
    index: FxHashMap<SmallVec<[Value; 4]>, usize>,
    /// Values of the domain.
    d: usize,
}

/// Matches alike in the unchanging attributes read.
struct Part {
    /// The values of those attributes, in the order of the reads.
    statics: SmallVec<[Value; 4]>,
    /// The matches (left side's nodes, then the NAC's), listed once per left-side binding.
    tuples: Tuples,
    /// Per placed value x (by index), the witness values y that block it, once an
    /// instance placing x reached the part.
    blocking_of: Vec<Option<u128>>,
}

impl Parts {
    fn new(d: usize) -> Parts {
        Parts {
            list: Vec::new(),
            index: FxHashMap::default(),
            d,
        }
    }

    /// Files match `t` under the values `reads` finds in it on `host`; its part's index.
    fn add(&mut self, reads: &[(VarId, AttrId)], host: &Graph, t: &[NodeId]) -> usize {
        // Most NACs read nothing that splits them (a Sudoku's): one part, no lookup.
        if reads.is_empty() && !self.list.is_empty() {
            self.list[0].tuples.push(t);
            return 0;
        }
        let statics: SmallVec<[Value; 4]> = reads
            .iter()
            .map(|&(v, a)| host.attr(t[v.index()], a))
            .collect();
        let p = match self.index.get(&statics) {
            Some(&p) => p,
            None => {
                self.index.insert(statics.clone(), self.list.len());
                self.list.push(Part {
                    statics,
                    tuples: Tuples::new(t.len()),
                    blocking_of: vec![None; self.d],
                });
                self.list.len() - 1
            }
        };
        self.list[p].tuples.push(t);
        p
    }
}

/// Evaluates a NAC's changing condition for one part of its matches: the parameters, the
/// unchanging attributes read (`reads`, holding `statics`) and the witness's attribute set
/// to `value`.
pub(super) struct StaticEnv<'a> {
    pub(super) params: &'a [Value],
    pub(super) reads: &'a [(VarId, AttrId)],
    pub(super) statics: &'a [Value],
    pub(super) witness: Option<(VarId, AttrId)>,
    pub(super) value: Value,
}

impl Env for StaticEnv<'_> {
    fn param(&self, index: u32) -> Value {
        self.params
            .get(index as usize)
            .copied()
            .unwrap_or(Value::None)
    }

    fn attr(&self, var: VarId, attr: AttrId) -> Value {
        if Some((var, attr)) == self.witness {
            return self.value;
        }
        self.reads
            .iter()
            .position(|&r| r == (var, attr))
            .map_or(Value::None, |i| self.statics[i])
    }

    /// The analysis refuses aggregates in table NACs before they get here.
    fn aggregate(&self, _: &Aggregate) -> Value {
        Value::None
    }
}
