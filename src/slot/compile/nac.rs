//! NAC tables: a NAC becomes a table "witness value y blocks placed values x".

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::matcher::{BindingEnv, GraphIndex, Matcher};
use crate::model::{AttrId, Graph, NodeId, Value, VarId};
use crate::rule::{Aggregate, Env, Expr, Pattern};

use super::super::model::SlotModel;
use super::fixed::{FixedNacs, LayerVocabulary, Mark};
use super::hubs::add_hubs;
use super::instances::{Instance, Instances};
use super::{matches_by_left_side, RuleCompiler, MAX_NAC_MATCHES};
use crate::analysis::slot_fill::not_slot;
use crate::analysis::Refusal;

impl RuleCompiler<'_> {
    /// Compiles the rule's NACs. Those no layer can reach replay their effect from `reuse`
    /// where it holds them, and record it in `record` where it is given.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn compile_nacs(
        &self,
        model: &mut SlotModel,
        host: &Graph,
        instances: &Instances,
        groups: &[usize],
        (ri, vocabulary): (usize, Option<&LayerVocabulary>),
        reuse: Option<&FixedNacs>,
        mut record: Option<&mut FixedNacs>,
    ) -> Result<(), Refusal> {
        for (i, nac) in self.r.lhs.nacs.iter().enumerate() {
            let fixed = !groups.contains(&i)
                && vocabulary.is_some_and(|v| v.cannot_reach(self.g, &self.r.lhs, nac));
            if fixed && reuse.is_some_and(|f| f.replay((ri, i), model)) {
                continue;
            }
            let mark = match (&record, fixed) {
                (Some(_), true) => Some(Mark::of(model)),
                _ => None,
            };
            if groups.contains(&i) {
                self.compile_group_nac(model, host, nac, instances)?;
            } else if let Some(e) = nac.conds.iter().find(|e| !self.is_structural(e, nac)) {
                return not_slot(
                    e.span,
                    format!(
                        "rule `{}` compares a cell's value with an aggregate in a NAC: the slot engine's tables hold value-by-value relations, and it evaluates aggregates only over the group of the filled cell (a cage's `sum(...) + v`)",
                        self.r.name
                    ),
                );
            } else {
                // The reason names the rule, as every refusal of a rule does: a file with
                // many rules says which one fell back.
                self.compile_nac(model, host, nac, instances)
                    .map_err(|mut refusal| {
                        refusal.reason = format!("rule `{}`: {}", self.r.name, refusal.reason);
                        refusal
                    })?;
            }
            if let (Some(record), Some(mark)) = (record.as_deref_mut(), mark) {
                record.record((ri, i), model, mark);
            }
        }
        Ok(())
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

    /// Compiles a NAC into a table and hubs. Its witness is the one NAC node whose changing
    /// attribute its conditions read.
    fn compile_nac(
        &self,
        model: &mut SlotModel,
        host: &Graph,
        nac: &Pattern,
        instances: &Instances,
    ) -> Result<(), Refusal> {
        let (g, r, c, attr) = (self.g, self.r, self.c, self.attr);
        let types = &g.types;
        if !nac.nacs.is_empty() {
            return not_slot(nac.span, "a NAC inside a NAC needs the general engine");
        }
        // Conditions on the witness's value (with the parameter and static attributes of
        // the left side) make the table; the rest is the NAC's static structure.
        let mut witness: Option<(VarId, AttrId)> = None;
        let mut dyn_conds = Vec::new();
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
                    let dynamic = self.is_dynamic(Some(nac), v, a);
                    if v.0 < nac.bound {
                        bad |= dynamic;
                    } else if !dynamic {
                        bad = true;
                    } else {
                        match witness {
                            None => witness = Some((v, a)),
                            Some(w) if w == (v, a) => {}
                            Some(_) => bad = true,
                        }
                    }
                });
                if bad {
                    return not_slot(
                        e.span,
                        "a NAC condition that compares a changing attribute may read only that one attribute of one NAC node, the parameter, constants and unchanging attributes of the rule's left side",
                    );
                }
                dyn_conds.push(e.clone());
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
        // NAC matches (their own nodes) per static left-side match.
        let index = GraphIndex::new(types, host, &[]);
        let Some(matches) = matches_by_left_side(
            &Matcher::new(types, host, &[]).with_index(&index),
            &structure,
            lhs_len,
        ) else {
            return not_slot(
                nac.span,
                format!(
                    "this NAC's structure has more than {MAX_NAC_MATCHES} matches on the start graph, too many to compile into tables"
                ),
            );
        };
        // A NAC over a node whose existence changes (a cell that may be deleted, or the
        // stand-in of a node not yet created) tests emptiness, not a value.
        if let Some(rep) = &model.replaced {
            let stand_in = |n: NodeId| n.index() >= g.base.capacity();
            let cell = |n: NodeId| model.slot_of.contains_key(&(n, attr)) && !stand_in(n);
            let wi = witness.map(|(v, _)| v.index());
            let bad = matches.values().flatten().any(|t| {
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
        let witness_attr = witness.unwrap_or((VarId(u32::MAX), AttrId::from_index(0)));
        let holds = |i: &Instance, y: Value| {
            let env = TableEnv {
                instance: BindingEnv {
                    graph: host,
                    binding: &i.binding,
                    params: &i.params,
                    folds: None,
                },
                witness: witness_attr,
                value: y,
            };
            dyn_conds.iter().all(|e| e.holds(&env))
        };
        let Some((wvar, wattr)) = witness else {
            // A NAC on unchanging attributes only: it blocks instances for good.
            let mut blocked = Vec::new();
            for (&(s, x), i) in instances {
                if matches.contains_key(&i.binding) && holds(i, Value::None) {
                    blocked.push((s, x));
                }
            }
            for (s, x) in blocked {
                model.allowed[s as usize] &= !(1u128 << x);
            }
            return Ok(());
        };
        let wi = wvar.index();
        // Per instance: the witnesses the structure reaches, and the witness values that
        // block it. The hub model needs the first to depend only on the cell and the
        // second only on the value placed.
        let d = model.d;
        let mut witnesses_of: BTreeMap<u32, BTreeSet<NodeId>> = BTreeMap::new();
        let mut blocking_of: BTreeMap<u16, u128> = BTreeMap::new();
        let mut tuples: Vec<Vec<NodeId>> = Vec::new();
        let mut listed_bindings: HashSet<&Vec<NodeId>> = HashSet::new();
        // What the changing conditions read besides the witness: the parameters and the
        // left side's unchanging attributes. Instances alike in those block alike.
        let mut lhs_reads: Vec<(VarId, AttrId)> = Vec::new();
        for e in &dyn_conds {
            e.visit_attrs(&mut |v, a| {
                if v.0 < nac.bound && !lhs_reads.contains(&(v, a)) {
                    lhs_reads.push((v, a));
                }
            });
        }
        type Key = (Vec<Value>, Vec<Value>);
        let mut judged: HashMap<Key, (u128, bool)> = HashMap::new();
        for (&(s, x), i) in instances {
            let found = matches.get(&i.binding).map_or(&[][..], Vec::as_slice);
            // An instance's matches depend on its left-side binding only, most often the
            // same for every value placed in one slot: read once per binding.
            if listed_bindings.insert(&i.binding) {
                let ws: BTreeSet<NodeId> = found.iter().map(|t| t[wi]).collect();
                if witnesses_of.entry(s).or_insert_with(|| ws.clone()) != &ws {
                    return not_slot(
                        nac.span,
                        format!(
                            "which nodes this NAC looks at for {} depends on the value placed; the slot engine needs it to depend on the cell only",
                            model.slot_name(g, s)
                        ),
                    );
                }
                tuples.extend(found.iter().cloned());
            }
            let key = (
                i.params.clone(),
                lhs_reads
                    .iter()
                    .map(|&(v, a)| host.attr(i.binding[v.index()], a))
                    .collect(),
            );
            let (ys, holds_empty) = *judged.entry(key).or_insert_with(|| {
                let mut ys = 0u128;
                for y in 0..d {
                    if holds(i, Value::Val(y as u16)) {
                        ys |= 1u128 << y;
                    }
                }
                (ys, holds(i, Value::None))
            });
            if blocking_of.entry(x).or_insert(ys) != &ys {
                return not_slot(
                    nac.span,
                    format!(
                        "which values this NAC blocks `{}` with depends on the cell; the slot engine needs it to depend on the value only",
                        g.domain.name(x)
                    ),
                );
            }
            let witness_slot = found
                .iter()
                .any(|t| model.slot_of.contains_key(&(t[wi], wattr)));
            if witness_slot && holds_empty {
                return not_slot(
                    nac.span,
                    "this NAC holds while its witness is empty, so filling a cell can enable a rule",
                );
            }
        }
        tuples.sort_unstable();
        tuples.dedup();
        // The table: witness value y -> placed values x that the NAC blocks.
        let mut table = vec![0u128; d];
        for (&x, &ys) in &blocking_of {
            for (y, row) in table.iter_mut().enumerate() {
                if ys & (1u128 << y) != 0 {
                    *row |= 1u128 << x;
                }
            }
        }
        let table_id = model.add_table(table);
        add_hubs(
            model,
            host,
            nac,
            &tuples,
            (c.index(), attr),
            (wi, wattr),
            table_id,
        );
        Ok(())
    }
}

/// Evaluates a NAC's changing condition for one instance, with the witness's attribute set
/// to `value`.
struct TableEnv<'a> {
    /// The instance's left-side match and parameters, on the host graph.
    instance: BindingEnv<'a>,
    witness: (VarId, AttrId),
    value: Value,
}

impl Env for TableEnv<'_> {
    fn param(&self, index: u32) -> Value {
        self.instance.param(index)
    }

    fn attr(&self, var: VarId, attr: AttrId) -> Value {
        if (var, attr) == self.witness {
            return self.value;
        }
        self.instance.attr(var, attr)
    }

    /// Slot grammars have no aggregates (the analysis refuses them).
    fn aggregate(&self, agg: &Aggregate) -> Value {
        self.instance.aggregate(agg)
    }
}
