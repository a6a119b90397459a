//! Instances: every (slot, value) a rule can place, and the node that replaces each cell.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::grammar::Grammar;
use crate::matcher::{BindingEnv, Matcher, SearchPlan};
use crate::model::{AttrId, Graph, NodeId, NodeTypeId, TypeSystem, Value, VarId};
use crate::rule::{Expr, Pattern};

use super::super::model::{Replacement, SlotModel};
use super::marks::Marks;
use super::recognise::var_type;
use super::RuleCompiler;
use crate::analysis::open::is_none_check;
use crate::analysis::slot_fill::not_slot;
use crate::analysis::Refusal;

/// One way a rule fills slot `s` with value `x`: the left side's static match and the
/// parameters.
#[derive(Debug)]
pub(super) struct Instance {
    /// Inline: a rule file's instances number slots times values, and a layered puzzle
    /// lists them anew.
    pub(super) binding: SmallVec<[NodeId; 4]>,
    pub(super) params: SmallVec<[Value; 2]>,
}

/// Per rule: its instances, keyed by (slot, placed value), in key order. A sorted list,
/// not a map: it is built once, whole, and then only read in order (a layered puzzle
/// builds one per rule its layers reach).
#[derive(Debug, Default)]
pub(super) struct Instances {
    list: Vec<((u32, u16), Instance)>,
    /// By the index of each instance's first node (the filled cell), the values placed
    /// there: worked out the first time a star NAC asks, once for all the puzzles that
    /// share these instances with their rule file.
    placed: OnceLock<Vec<u128>>,
}

impl Instances {
    /// Sorts `list` by key; `None` when two instances share a key.
    fn sorted(mut list: Vec<((u32, u16), Instance)>) -> Option<Instances> {
        // Matches mostly come slot by slot already: the sort is then one pass.
        list.sort_by_key(|&(key, _)| key);
        let twice = list.windows(2).any(|w| w[0].0 == w[1].0);
        (!twice).then_some(Instances {
            list,
            placed: OnceLock::new(),
        })
    }

    /// By node index, the values the instances place there (bit x: value x); a node
    /// past its end has none placed.
    pub(super) fn placed(&self) -> &[u128] {
        self.placed.get_or_init(|| {
            let mut placed = Vec::new();
            for (&(_, x), i) in self.iter() {
                let n = i.binding[0].index();
                if n >= placed.len() {
                    placed.resize(n + 1, 0);
                }
                placed[n] |= 1u128 << x;
            }
            placed
        })
    }

    /// Each instance with its key, in key order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&(u32, u16), &Instance)> {
        self.list.iter().map(|(key, i)| (key, i))
    }

    /// The keys, in order.
    pub(super) fn keys(&self) -> impl Iterator<Item = &(u32, u16)> {
        self.list.iter().map(|(key, _)| key)
    }
}

impl RuleCompiler<'_> {
    /// Checks the left side and finds every (slot, value) the rule can place: one per
    /// static match of its left side and parameter value.
    pub(super) fn instances(&self, model: &mut SlotModel, ri: usize) -> Result<Instances, Refusal> {
        let (g, r, c, attr, value) = (self.g, self.r, self.c, self.attr, self.value);
        let types = &g.types;
        let replaces = self.created.is_some();
        // The left side: `c.attr == none` (when setting) plus static conditions.
        let mut has_none_check = false;
        let mut static_conds = Vec::new();
        for e in &r.lhs.conds {
            if !replaces && is_none_check(e, c, attr) {
                has_none_check = true;
            } else if self.reads_dynamic(e, None).is_some() {
                return not_slot(
                    e.span,
                    format!(
                        "rule `{}` reads a changing attribute in its left side; only `{}.{}` == none may be tested",
                        r.name,
                        r.lhs.node(c).map_or("", |n| n.name.as_str()),
                        types.node(var_type(&r.lhs, None, c)).attrs.get(attr.index()).map_or("", |a| a.name.as_str()),
                    ),
                );
            } else {
                static_conds.push(e.clone());
            }
        }
        if !replaces && !has_none_check {
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
        // The other left-side nodes must be static: not cells, and (for replacements) not
        // of a type that created nodes could have.
        for v in r.lhs.own_vars().filter(|&v| v != c) {
            let ty = var_type(&r.lhs, None, v);
            let changes = model
                .slots
                .iter()
                .any(|&(n, _)| types.is_subtype(g.base.ty(n), ty))
                || self.created.is_some_and(|t| types.is_subtype(t, ty));
            if changes {
                return not_slot(
                    r.lhs.node(v).map_or(r.lhs.span, |n| n.span),
                    format!(
                        "rule `{}` matches `{}`, which can be a cell that rules fill; only the cell filled may change",
                        r.name,
                        r.lhs.node(v).map_or("", |n| n.name.as_str())
                    ),
                );
            }
        }
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
        let mut listed = Vec::new();
        // Both kinds of clash are found whatever the order of the matches (the one-node
        // listing and the matcher meet them in different orders): a value outside the
        // domain is noted, a (slot, value) met twice shows once the list is sorted.
        // Past one instance per (slot, value) some key is met twice: storing stops there
        // (the matches are still read, for a value outside the domain).
        let room = model.slots.len() * model.d;
        let (mut outside, mut twice) = (false, false);
        let mut each_match = |b: &[NodeId], p: &[Value]| {
            let env = BindingEnv {
                graph: &g.base,
                binding: b,
                params: p,
                folds: None,
            };
            let node = b[c.index()];
            match (value.eval(&env), model.slot_of.get(&(node, attr))) {
                (Value::Val(_), Some(_)) if listed.len() == room => twice = true,
                (Value::Val(x), Some(&s)) => {
                    let i = Instance {
                        binding: SmallVec::from_slice(&b[..lhs.var_end() as usize]),
                        params: SmallVec::from_slice(p),
                    };
                    listed.push(((s, x), i));
                }
                _ => outside = true,
            }
        };
        // The matches in any order: instances are keyed, and a clash is refused whichever
        // instance came first.
        // Tests compare what the matcher lists (see `star`'s tests).
        #[cfg(test)]
        let lone = LoneNode::of(&lhs, c).filter(|_| !super::nac::GENERAL_ONLY.get());
        #[cfg(not(test))]
        let lone = LoneNode::of(&lhs, c);
        match lone {
            Some(lone) => lone.for_each_match(types, &g.base, &params, each_match),
            None => {
                for p in &params {
                    let m = Matcher::new(types, &g.base, p);
                    let _ = m.for_each_match(&plan, &mut Vec::new(), &mut |b| {
                        each_match(b, p);
                        ControlFlow::Continue(())
                    });
                }
            }
        }
        if outside {
            return not_slot(
                value.span,
                format!(
                    "rule `{}` places a value that is not a domain value, or in a cell that is no slot",
                    r.name
                ),
            );
        }
        let sorted = Instances::sorted(listed).filter(|_| !twice);
        let Some(instances) = sorted else {
            return not_slot(
                r.span,
                format!(
                    "rule `{}` places the same value in one cell in several ways",
                    r.name
                ),
            );
        };
        self.adopt(model, ri, &instances)?;
        Ok(instances)
    }

    /// Makes rule `ri` the one that fills the slots of its `instances` and allows there the
    /// values they place; refuses two rules filling one cell.
    pub(super) fn adopt(
        &self,
        model: &mut SlotModel,
        ri: usize,
        instances: &Instances,
    ) -> Result<(), Refusal> {
        let (g, r) = (self.g, self.r);
        let rule_of = Arc::make_mut(&mut model.rule_of);
        for &(s, _) in instances.keys() {
            match rule_of[s as usize] {
                Some(other) if other != ri => {
                    return not_slot(
                        r.span,
                        format!("two rules fill the same cell ({})", model.slot_name(g, s)),
                    );
                }
                _ => rule_of[s as usize] = Some(ri),
            }
        }
        let allowed = Arc::make_mut(&mut model.allowed);
        for &(s, x) in instances.keys() {
            allowed[s as usize] |= 1u128 << x;
        }
        Ok(())
    }
}

/// A left side of one node, no edges and conditions without aggregates (`c: Cell { val ==
/// none, parity == none or v % 2 == parity }`): its matches are the live nodes of its type
/// whose conditions hold, and the conditions read only the parameters and the node's
/// attributes, so the verdicts of one node serve every node alike in the attributes read.
/// A layered puzzle lists its instances anew; the matcher's search and the conditions'
/// evaluation per node and value were most of that. (The narrowing of `narrow` keeps one
/// per rule file, to judge the cells a puzzle's marks change.)
#[derive(Debug)]
pub(super) struct LoneNode {
    pub(super) ty: NodeTypeId,
    conds: Vec<Expr>,
    /// The node's attributes the conditions read.
    reads: Vec<AttrId>,
}

/// A node's attributes that a lone left side's conditions read, in their order.
pub(super) type Read = SmallVec<[Value; 4]>;

impl LoneNode {
    /// The left side `lhs` (its `c.attr == none` test left out) as one node, if it is one.
    pub(super) fn of(lhs: &Pattern, c: VarId) -> Option<LoneNode> {
        if lhs.nodes.len() != 1 || !lhs.edges.is_empty() || c.index() != 0 {
            return None;
        }
        if lhs.conds.iter().any(Expr::has_aggregate) {
            return None;
        }
        let mut reads = Vec::new();
        for e in &lhs.conds {
            e.visit_attrs(&mut |_, a| {
                if !reads.contains(&a) {
                    reads.push(a);
                }
            });
        }
        Some(LoneNode {
            ty: lhs.nodes[0].ty,
            conds: lhs.conds.clone(),
            reads,
        })
    }

    /// The attributes of node `n` the conditions read, as they read them: an attribute
    /// the node lacks is none.
    pub(super) fn read(&self, marks: &impl Marks, n: NodeId) -> Read {
        self.reads.iter().map(|&a| marks.mark(n, a)).collect()
    }

    /// True when `n` holds `read` in the attributes the conditions read.
    pub(super) fn reads(&self, marks: &impl Marks, n: NodeId, read: &Read) -> bool {
        self.reads.len() == read.len()
            && (self.reads.iter().zip(read)).all(|(&a, v)| marks.mark(n, a) == *v)
    }

    /// True when the conditions read the same attributes of `n` in both.
    pub(super) fn reads_alike(&self, a: &impl Marks, b: &impl Marks, n: NodeId) -> bool {
        (self.reads.iter()).all(|&r| a.mark(n, r) == b.mark(n, r))
    }

    /// Bit i: the conditions hold for node `n` of `graph` under `params[i]` (at most
    /// [`crate::analysis::slot_fill::MAX_VALUES`] of them). The same for every node with
    /// the same [`LoneNode::read`].
    pub(super) fn verdict(&self, graph: &Graph, n: NodeId, params: &[Vec<Value>]) -> u128 {
        params.iter().enumerate().fold(0, |v, (i, p)| {
            let env = BindingEnv {
                graph,
                binding: &[n],
                params: p,
                folds: None,
            };
            v | u128::from(self.conds.iter().all(|e| e.holds(&env))) << i
        })
    }

    /// Calls `f` with each match (the node alone) and the parameters it holds under, one
    /// of `params`: node by node, each node's parameters in order.
    fn for_each_match(
        &self,
        types: &TypeSystem,
        graph: &Graph,
        params: &[Vec<Value>],
        mut f: impl FnMut(&[NodeId], &[Value]),
    ) {
        // Per tuple of the attributes read, which of `params` the conditions hold under.
        let mut verdicts: FxHashMap<Read, u128> = FxHashMap::default();
        for n in graph.find_nodes() {
            if !types.is_subtype(graph.ty(n), self.ty) {
                continue;
            }
            let mut holds = *verdicts
                .entry(self.read(graph, n))
                .or_insert_with(|| self.verdict(graph, n, params));
            while holds != 0 {
                f(&[n], &params[holds.trailing_zeros() as usize]);
                holds &= holds - 1;
            }
        }
    }
}

/// The node each cell is replaced by, its value attribute left `none`: the created node's
/// attributes must depend only on the cell, and differ between cells, so that a state
/// of filled slots and the graph it stands for determine each other.
pub(super) fn replacement(
    g: &Grammar,
    model: &SlotModel,
    rules: &[RuleCompiler],
    instances: &[Arc<Instances>],
    ty: NodeTypeId,
    attr: AttrId,
    created: &[(NodeTypeId, &[(AttrId, Expr)])],
) -> Result<Replacement, Refusal> {
    let width = g.types.node(ty).attrs.len();
    let mut per_slot: Vec<Option<SmallVec<[Value; 4]>>> = vec![None; model.slots.len()];
    for ((rule, inst), (_, assigns)) in rules.iter().zip(instances).zip(created) {
        for (&(s, _), i) in inst.iter() {
            let env = BindingEnv {
                graph: &g.base,
                binding: &i.binding,
                params: &i.params,
                folds: None,
            };
            let mut attrs = SmallVec::from_elem(Value::None, width);
            for (a, e) in assigns.iter() {
                if *a != attr {
                    attrs[a.index()] = e.eval(&env);
                }
            }
            match &per_slot[s as usize] {
                Some(prev) if *prev != attrs => {
                    return not_slot(
                        rule.r.span,
                        format!(
                            "rule `{}` gives the node it creates for {} attributes that depend on the value placed",
                            rule.r.name,
                            model.slot_name(g, s)
                        ),
                    );
                }
                _ => per_slot[s as usize] = Some(attrs),
            }
        }
    }
    let attrs: Vec<SmallVec<[Value; 4]>> = per_slot
        .into_iter()
        .map(|a| a.unwrap_or_else(|| SmallVec::from_elem(Value::None, width)))
        .collect();
    let mut seen = HashMap::new();
    for (s, a) in attrs.iter().enumerate() {
        if let Some(t) = seen.insert(a.clone(), s as u32) {
            return not_slot(
                rules[0].r.span,
                format!(
                    "the nodes created for {} and {} would be indistinguishable, so filling one or the other could give the same graph",
                    model.slot_name(g, t),
                    model.slot_name(g, s as u32)
                ),
            );
        }
    }
    Ok(Replacement { ty, attrs })
}

/// The start graph's value of every slot (a replaced cell's value read from the node that
/// took its place, which for a given keeps the cell's identity).
pub fn slot_values(types: &TypeSystem, model: &SlotModel, graph: &Graph) -> Vec<Option<u16>> {
    let replaced = model.replaced.as_ref().map(|r| r.ty);
    model
        .slots
        .iter()
        .map(|&(n, a)| {
            if replaced.is_some_and(|t| !types.is_subtype(graph.ty(n), t)) {
                return None;
            }
            match graph.node(n).attrs.get(a.index()) {
                Some(Value::Val(x)) if graph.is_alive(n) => Some(*x),
                _ => None,
            }
        })
        .collect()
}
