//! Recognises grammars whose rules only fill slots and compiles them to a [`SlotModel`].
//!
//! A slot is an attribute of a start-graph node that some rule sets. The grammar is a slot
//! grammar when every rule: sets exactly one attribute of its single left-side node `c`,
//! requires that attribute to be `none`, places a value that depends only on its parameter
//! or on attributes no rule changes, reads no other changing attribute in its left side,
//! and has NACs whose only changing attribute is one slot of one NAC node (the witness)
//! compared with constants or the parameter. No rule creates or deletes nodes or edges, so
//! the graph structure is shared by all states and only slot values vary.
//!
//! Each NAC then becomes a static relation "placing x in c is blocked when witness d holds
//! y" (a table `y -> mask of x`), found by matching the NAC's structure once on the start
//! graph. The relation is stored through hubs: a hub has writers (witness slots), readers
//! (slots it blocks) and a table; its mask is the union of the table rows of its writers'
//! values. Where the NAC has a node g such that "c reaches g" and "g reaches d" factor the
//! NAC exactly (a group node), one hub per g serves all its cells; otherwise each witness
//! is its own hub. Either way the relation is exact: the factorisation is checked against
//! the full list of NAC matches.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::ControlFlow;

use crate::diag::Span;
use crate::grammar::Grammar;
use crate::matcher::{Matcher, SearchPlan};
use crate::model::{AttrId, Graph, NodeId, NodeTypeId, TypeSystem, Value, VarId};
use crate::rule::{BinOp, Env, Expr, ExprKind, Pattern, Rule};

use super::model::{Hub, SlotModel};

/// Why a grammar is not a slot grammar; the engine falls back to whole graphs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotSlot {
    pub reason: String,
    pub span: Span,
}

fn not_slot<T>(span: Span, reason: impl Into<String>) -> Result<T, NotSlot> {
    Err(NotSlot {
        reason: reason.into(),
        span,
    })
}

/// An attribute identified by the type that declares it, so that reads through a subtype
/// and writes through a supertype meet.
type AttrKey = (NodeTypeId, AttrId);

fn attr_key(types: &TypeSystem, mut ty: NodeTypeId, attr: AttrId) -> AttrKey {
    while let Some(p) = types.node(ty).parent {
        if types.node(p).attrs.len() > attr.index() {
            ty = p;
        } else {
            break;
        }
    }
    (ty, attr)
}

/// The most values a slot grammar may have (the widest mask).
pub const MAX_VALUES: usize = 128;

pub fn compile(g: &Grammar) -> Result<SlotModel, NotSlot> {
    let types = &g.types;
    let d = g.domain.len();
    if d == 0 || d > MAX_VALUES {
        return not_slot(
            Span::default(),
            format!("the slot engine handles 1 to {MAX_VALUES} values, the domain has {d}"),
        );
    }
    if g.rules.is_empty() {
        return not_slot(Span::default(), "there are no rules");
    }
    // Which attributes rules set.
    let mut dynamic: BTreeSet<AttrKey> = BTreeSet::new();
    let mut targets = Vec::new();
    for r in &g.rules {
        let t = target_of(r)?;
        let ty = r.lhs.nodes[0].ty;
        dynamic.insert(attr_key(types, ty, t.1));
        targets.push(t);
    }
    // Slots: every start node with a changing attribute, in node order.
    let mut slots = Vec::new();
    let mut slot_of: HashMap<(NodeId, AttrId), u32> = HashMap::new();
    for n in g.base.find_nodes() {
        let ty = g.base.ty(n);
        for a in 0..types.node(ty).attrs.len() {
            let a = AttrId::from_index(a);
            if dynamic.contains(&attr_key(types, ty, a)) {
                slot_of.insert((n, a), slots.len() as u32);
                slots.push((n, a));
            }
        }
    }
    let mut model = SlotModel::new(g, slots, slot_of, d);
    for (ri, r) in g.rules.iter().enumerate() {
        let (c, attr, value) = targets[ri];
        let rule = RuleCompiler {
            g,
            r,
            c,
            attr,
            dynamic: &dynamic,
        };
        rule.compile(&mut model, ri, value)?;
    }
    model.finish(g);
    Ok(model)
}

/// The rule's one effect, `set c.attr = value`, where `c` is its one left-side node.
fn target_of(r: &Rule) -> Result<(VarId, AttrId, &Expr), NotSlot> {
    if r.lhs.nodes.len() != 1 {
        return not_slot(
            r.lhs.span,
            format!(
                "rule `{}` matches {} nodes; the slot engine needs exactly one (the cell it fills)",
                r.name,
                r.lhs.nodes.len()
            ),
        );
    }
    match r.effects.as_slice() {
        [crate::rule::Effect::Set {
            var, attr, value, ..
        }] => Ok((*var, *attr, value)),
        _ => not_slot(
            r.span,
            format!(
                "rule `{}` does more than set one attribute (it creates, deletes or sets several)",
                r.name
            ),
        ),
    }
}

/// True when `e` is `c.attr == none` (either way round).
fn is_none_check(e: &Expr, c: VarId, attr: AttrId) -> bool {
    let is_target = |x: &Expr| x.kind == ExprKind::Attr(c, attr);
    let is_none = |x: &Expr| x.kind == ExprKind::Const(Value::None);
    match &e.kind {
        ExprKind::Binary(BinOp::Eq, a, b) => {
            (is_target(a) && is_none(b)) || (is_none(a) && is_target(b))
        }
        _ => false,
    }
}

/// The type of a variable in a rule whose left side is `lhs` and which is inside `nac`.
fn var_type(lhs: &Pattern, nac: Option<&Pattern>, v: VarId) -> NodeTypeId {
    lhs.node(v)
        .or_else(|| nac.and_then(|n| n.node(v)))
        .map(|n| n.ty)
        .expect("variable of the rule")
}

/// One rule being compiled: the cell variable `c` it fills and the attribute it sets.
struct RuleCompiler<'a> {
    g: &'a Grammar,
    r: &'a Rule,
    c: VarId,
    attr: AttrId,
    /// The attributes some rule sets.
    dynamic: &'a BTreeSet<AttrKey>,
}

impl RuleCompiler<'_> {
    /// A changing attribute that `e` reads (inside `nac` when given), if any.
    fn reads_dynamic(&self, e: &Expr, nac: Option<&Pattern>) -> Option<(VarId, AttrId)> {
        let mut found = None;
        e.visit_attrs(&mut |v, a| {
            let key = attr_key(&self.g.types, var_type(&self.r.lhs, nac, v), a);
            if self.dynamic.contains(&key) {
                found = Some((v, a));
            }
        });
        found
    }

    fn compile(&self, model: &mut SlotModel, ri: usize, value: &Expr) -> Result<(), NotSlot> {
        let (g, r, c, attr) = (self.g, self.r, self.c, self.attr);
        let types = &g.types;
        // The left side: `c.attr == none` plus static conditions.
        let mut has_none_check = false;
        let mut static_conds = Vec::new();
        for e in &r.lhs.conds {
            if is_none_check(e, c, attr) {
                has_none_check = true;
            } else if self.reads_dynamic(e, None).is_some() {
                return not_slot(
                e.span,
                format!(
                    "rule `{}` reads a changing attribute in its left side; only `{}` == none may be tested",
                    r.name, r.lhs.nodes[0].name
                ),
            );
            } else {
                static_conds.push(e.clone());
            }
        }
        if !has_none_check {
            return not_slot(
            r.lhs.span,
            format!(
                "rule `{}` does not require the attribute it sets to be none, so it may overwrite a value",
                r.name
            ),
        );
        }
        if self.reads_dynamic(value, None).is_some() {
            return not_slot(
                value.span,
                "the value placed depends on a changing attribute",
            );
        }
        if r.params.len() > 1 {
            return not_slot(
                r.span,
                format!("rule `{}` has more than one parameter", r.name),
            );
        }
        // Instances: every static match of the left side and every parameter value.
        let lhs = Pattern {
            bound: 0,
            nodes: r.lhs.nodes.clone(),
            edges: r.lhs.edges.clone(),
            conds: static_conds,
            nacs: Vec::new(),
            span: r.lhs.span,
        };
        let plan = SearchPlan::compile(&lhs);
        let params: Vec<Vec<Value>> = if r.params.is_empty() {
            vec![vec![]]
        } else {
            (0..model.d).map(|x| vec![Value::Val(x as u16)]).collect()
        };
        // instance (slot, placed value) -> parameters
        let mut instances: BTreeMap<(u32, u16), Vec<Value>> = BTreeMap::new();
        let mut clash: Option<Span> = None;
        for p in &params {
            let m = Matcher::new(types, &g.base, p);
            let mut binding = Vec::new();
            let _ = m.for_each_match(&plan, &mut binding, &mut |b| {
                let env = crate::matcher::BindingEnv {
                    graph: &g.base,
                    binding: b,
                    params: p,
                };
                let node = b[c.index()];
                match (value.eval(&env), model.slot_of.get(&(node, attr))) {
                    (Value::Val(x), Some(&s)) => {
                        if instances.insert((s, x), p.clone()).is_some() {
                            clash = Some(r.span);
                        }
                    }
                    _ => clash = Some(value.span),
                }
                ControlFlow::Continue(())
            });
        }
        if let Some(span) = clash {
            return not_slot(
            span,
            format!(
                "rule `{}` places a value that is not a domain value, or the same value in one cell in several ways",
                r.name
            ),
        );
        }
        for &(s, _) in instances.keys() {
            match model.rule_of[s as usize] {
                Some(other) if other != ri => {
                    return not_slot(
                        r.span,
                        format!("two rules fill the same cell ({})", model.slot_name(g, s)),
                    );
                }
                _ => model.rule_of[s as usize] = Some(ri),
            }
        }
        for &(s, x) in instances.keys() {
            model.allowed[s as usize] |= 1u128 << x;
        }
        // NACs.
        for nac in &r.lhs.nacs {
            self.compile_nac(model, nac, &instances)?;
        }
        Ok(())
    }

    /// Compiles a NAC into a table and hubs. Its witness is the one NAC node whose changing
    /// attribute its conditions read.
    fn compile_nac(
        &self,
        model: &mut SlotModel,
        nac: &Pattern,
        instances: &BTreeMap<(u32, u16), Vec<Value>>,
    ) -> Result<(), NotSlot> {
        let (g, r, c, attr) = (self.g, self.r, self.c, self.attr);
        let types = &g.types;
        if !nac.nacs.is_empty() {
            return not_slot(nac.span, "a NAC inside a NAC needs the general engine");
        }
        let mut witness: Option<(VarId, AttrId)> = None;
        let mut dyn_conds = Vec::new();
        let mut static_conds = Vec::new();
        for e in &nac.conds {
            if e.reads_params() || self.reads_dynamic(e, Some(nac)).is_some() {
                let mut bad = false;
                e.visit_attrs(&mut |v, a| {
                    let key = attr_key(types, var_type(&r.lhs, Some(nac), v), a);
                    let dynamic = self.dynamic.contains(&key);
                    if !dynamic || v.0 < nac.bound {
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
                    "a NAC condition that compares a changing attribute may read only that one attribute of one NAC node, the parameter and constants",
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
        // The NAC's structure as a pattern of its own: c is variable 0, as in the rule.
        let lhs_node = &r.lhs.nodes[0];
        let structure = Pattern {
            bound: 0,
            nodes: std::iter::once(lhs_node.clone())
                .chain(nac.nodes.iter().cloned())
                .collect(),
            edges: nac.edges.clone(),
            conds: nac
                .conds
                .iter()
                .filter(|e| !dyn_conds.contains(e))
                .cloned()
                .collect(),
            nacs: Vec::new(),
            span: nac.span,
        };
        let plan = SearchPlan::compile(&structure);
        let mut tuples: Vec<Vec<NodeId>> = Vec::new();
        {
            let m = Matcher::new(types, &g.base, &[]);
            let mut binding = Vec::new();
            let _ = m.for_each_match(&plan, &mut binding, &mut |b| {
                tuples.push(b[..structure.var_end() as usize].to_vec());
                ControlFlow::Continue(())
            });
        }
        let Some((wvar, wattr)) = witness else {
            // A NAC on unchanging attributes only: it blocks instances for good.
            for (&(s, x), params) in instances {
                let node = model.slots[s as usize].0;
                let blocked = tuples.iter().any(|t| {
                    t[c.index()] == node && {
                        let env = TableEnv {
                            params,
                            witness: None,
                            value: Value::None,
                        };
                        dyn_conds.iter().all(|e| e.holds(&env))
                    }
                });
                if blocked {
                    model.allowed[s as usize] &= !(1u128 << x);
                }
            }
            return Ok(());
        };
        // The table: witness value y -> placed values x that the NAC blocks.
        let d = model.d;
        let param_of = |x: usize| -> Vec<Value> {
            if r.params.is_empty() {
                vec![]
            } else {
                vec![Value::Val(x as u16)]
            }
        };
        let placed_of_param: Option<usize> = match &r.effects[0] {
            crate::rule::Effect::Set { value, .. } => match value.kind {
                ExprKind::Param(0) => Some(0),
                _ => None,
            },
            _ => None,
        };
        if !r.params.is_empty() && placed_of_param.is_none() {
            return not_slot(
                r.span,
                format!("rule `{}` has a parameter but does not place it", r.name),
            );
        }
        let holds = |y: Value, x: usize| {
            let params = param_of(x);
            let env = TableEnv {
                params: &params,
                witness: Some((wvar, wattr)),
                value: y,
            };
            dyn_conds.iter().all(|e| e.holds(&env))
        };
        let mut table = vec![0u128; d];
        for (y, row) in table.iter_mut().enumerate() {
            for x in 0..d {
                if holds(Value::Val(y as u16), x) {
                    *row |= 1u128 << x;
                }
            }
        }
        if (0..d).any(|x| holds(Value::None, x)) {
            return not_slot(
                nac.span,
                "this NAC holds while its witness is empty, so filling a cell can enable a rule",
            );
        }
        let table_id = model.add_table(table);
        // Reader/witness pairs, exact.
        let wi = wvar.index();
        let exact: BTreeSet<(NodeId, NodeId)> = tuples.iter().map(|t| (t[0], t[wi])).collect();
        let hub_var = (structure.bound..structure.var_end())
            .map(VarId)
            .filter(|v| v.index() != 0 && v.index() != wi)
            .find(|v| factors(&tuples, &exact, v.index(), wi));
        let witness_slot = |n: NodeId| model.slot_of.get(&(n, wattr)).copied();
        let reader_slot = |n: NodeId| model.slot_of.get(&(n, attr)).copied();
        let mut hubs: BTreeMap<NodeId, (BTreeSet<u32>, BTreeSet<u32>)> = BTreeMap::new();
        let mut fixed: Vec<(u32, NodeId)> = Vec::new();
        match hub_var {
            Some(h) => {
                for t in &tuples {
                    let entry = hubs.entry(t[h.index()]).or_default();
                    if let Some(s) = reader_slot(t[0]) {
                        entry.1.insert(s);
                    }
                    match witness_slot(t[wi]) {
                        Some(w) => {
                            entry.0.insert(w);
                        }
                        None => fixed.push((reader_slot(t[0]).unwrap_or(u32::MAX), t[wi])),
                    }
                }
            }
            None => {
                for &(cn, dn) in &exact {
                    match witness_slot(dn) {
                        Some(w) => {
                            let entry = hubs.entry(dn).or_default();
                            entry.0.insert(w);
                            if let Some(s) = reader_slot(cn) {
                                entry.1.insert(s);
                            }
                        }
                        None => fixed.push((reader_slot(cn).unwrap_or(u32::MAX), dn)),
                    }
                }
            }
        }
        for (_, (writers, readers)) in hubs {
            if !writers.is_empty() && !readers.is_empty() {
                model.hubs.push(Hub {
                    writers: writers.into_iter().collect(),
                    readers: readers.into_iter().collect(),
                    table: table_id,
                });
            }
        }
        // Witnesses that are not slots hold their start value for ever.
        for (s, dn) in fixed {
            if s == u32::MAX {
                continue;
            }
            if let Value::Val(y) = g.base.attr(dn, wattr) {
                model.allowed[s as usize] &= !model.tables[table_id as usize][y as usize];
            }
        }
        Ok(())
    }
}

/// True when "c reaches h" joined with "h reaches d" gives exactly the NAC's (c, d) pairs.
fn factors(tuples: &[Vec<NodeId>], exact: &BTreeSet<(NodeId, NodeId)>, h: usize, w: usize) -> bool {
    let mut by_hub: BTreeMap<NodeId, (BTreeSet<NodeId>, BTreeSet<NodeId>)> = BTreeMap::new();
    for t in tuples {
        let e = by_hub.entry(t[h]).or_default();
        e.0.insert(t[0]);
        e.1.insert(t[w]);
    }
    let mut joined = BTreeSet::new();
    for (cs, ds) in by_hub.values() {
        for &c in cs {
            for &d in ds {
                if c != d {
                    joined.insert((c, d));
                }
            }
        }
    }
    joined == *exact
}

/// Evaluates a NAC's changing condition with the witness's attribute set to `value`.
struct TableEnv<'a> {
    params: &'a [Value],
    /// The witness's variable and attribute; `None` for a NAC without one.
    witness: Option<(VarId, AttrId)>,
    value: Value,
}

impl Env for TableEnv<'_> {
    fn param(&self, index: u32) -> Value {
        self.params
            .get(index as usize)
            .copied()
            .unwrap_or(Value::None)
    }

    fn attr(&self, var: VarId, attr: AttrId) -> Value {
        if Some((var, attr)) == self.witness {
            self.value
        } else {
            Value::None
        }
    }
}

/// The start graph's value of every slot.
pub fn slot_values(model: &SlotModel, graph: &Graph) -> Vec<Option<u16>> {
    model
        .slots
        .iter()
        .map(|&(n, a)| match graph.attr(n, a) {
            Value::Val(x) => Some(x),
            _ => None,
        })
        .collect()
}
