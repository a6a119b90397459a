//! Monotone grammars (conditions 1 to 3 of the module documentation of [`super`]): every
//! rule consumes one open node and nothing a rule does can enable another.

use crate::diag::Span;
use crate::grammar::Grammar;
use crate::model::{AttrId, NodeTypeId, TypeSystem, VarId};
use crate::rule::{Effect, Pattern, Rule};

use super::aggregate;
use super::final_cond::{open_cells, Open};
use super::open::{implies_filled, never_none, same_expr};
use super::refusal::{refuse, Refusal, RefusalKind};

/// A NAC's one node that rules may create or fill: blocking checks match the NAC from it.
#[derive(Clone, Copy, Debug)]
pub struct Witness {
    /// The NAC's index in the rule's left side.
    pub nac: usize,
    pub var: VarId,
    pub ty: NodeTypeId,
}

/// What a monotone grammar's rules do to the open nodes.
#[derive(Clone, Debug)]
pub struct Monotone<'g> {
    pub open: Open<'g>,
    /// Per rule: the variable of the open node it consumes.
    pub consumed: Vec<VarId>,
    /// Per rule: it consumes by filling (so the filled node is what it adds), not deleting.
    pub fills: Vec<bool>,
    /// Per rule: the witness of each NAC that has one.
    pub witnesses: Vec<Vec<Witness>>,
    /// Per rule: the NACs with aggregates over cells rules fill (condition 5), which a
    /// state's applications must be checked against anew.
    pub aggregate_nacs: Vec<Vec<usize>>,
    /// Some rule deletes the node it consumes.
    pub deletes: bool,
}

fn not_monotone<T>(span: Span, reason: impl Into<String>) -> Result<T, Refusal> {
    refuse(span, RefusalKind::NotMonotone, reason)
}

/// Types related by subtyping either way: a node of one may be a node of the other.
fn related(types: &TypeSystem, a: NodeTypeId, b: NodeTypeId) -> bool {
    types.is_subtype(a, b) || types.is_subtype(b, a)
}

impl<'g> Monotone<'g> {
    /// Checks conditions 1 to 3 on the grammar.
    pub fn analyse(g: &'g Grammar) -> Result<Monotone<'g>, Refusal> {
        let types = &g.types;
        if g.rules.is_empty() {
            return not_monotone(Span::default(), "there are no rules");
        }
        let open = open_cells(g)?;
        let created = created_types(g, &open)?;
        let changing = |ty: NodeTypeId| {
            related(types, ty, open.ty) || created.iter().any(|&c| related(types, ty, c))
        };
        let deletes = g.rules.iter().any(deletes_a_node);
        if let Some(p) = open.pattern.conds.iter().find(|c| c.has_aggregate()) {
            return not_monotone(
                p.span,
                "the open nodes of `final:` must be one node with conditions on its own attributes, without aggregates",
            );
        }
        let cx = aggregate::Cx {
            g,
            open: &open,
            created: &created,
            deletes,
        };
        let mut monotone = Monotone {
            open,
            consumed: Vec::new(),
            fills: Vec::new(),
            witnesses: Vec::new(),
            aggregate_nacs: Vec::new(),
            deletes,
        };
        for r in g.rules.iter() {
            let f = consumed_of(types, r, &open)?;
            check_static_reads(types, r, f, &changing)?;
            check_aggregate_reads(&cx, r)?;
            check_effects(types, r, f, open.none_attr)?;
            let fill = r.effects.iter().find_map(|e| match e {
                Effect::Set {
                    var, attr, value, ..
                } if *var == f && Some(*attr) == open.none_attr => Some(value),
                _ => None,
            });
            let mut witnesses = Vec::new();
            let mut aggregate_nacs = Vec::new();
            for (i, nac) in r.lhs.nacs.iter().enumerate() {
                if cx.changing_in_pattern(nac).is_some() {
                    cx.check_nac(r, nac, f, fill)?;
                    aggregate_nacs.push(i);
                } else if let Some(var) = check_nac(types, r, nac, &open, deletes, &changing)? {
                    let ty = nac.node(var).expect("own").ty;
                    witnesses.push(Witness { nac: i, var, ty });
                }
            }
            monotone.consumed.push(f);
            monotone.fills.push(!deletes_a_node(r));
            monotone.witnesses.push(witnesses);
            monotone.aggregate_nacs.push(aggregate_nacs);
        }
        Ok(monotone)
    }
}

/// The rule's pattern and effects read no aggregate that rules change: such an aggregate
/// could enable the rule, or make its effect depend on the state.
fn check_aggregate_reads(cx: &aggregate::Cx, r: &Rule) -> Result<(), Refusal> {
    if let Some(e) = r.lhs.conds.iter().find_map(|c| cx.changing_aggregate(c)) {
        return not_monotone(
            e.span,
            format!(
                "rule `{}` tests an aggregate over cells that rules fill in its own pattern, so filling a cell could enable it: write the test as a NAC (`not {{ where ... }}`)",
                r.name
            ),
        );
    }
    for e in &r.effects {
        let exprs: Vec<&crate::rule::Expr> = match e {
            Effect::Set { value, .. } => vec![value],
            Effect::NewNode { attrs, .. } => attrs.iter().map(|(_, x)| x).collect(),
            _ => Vec::new(),
        };
        if let Some(x) = exprs.into_iter().find_map(|x| cx.changing_aggregate(x)) {
            return not_monotone(
                x.span,
                format!(
                    "rule `{}` computes an effect from an aggregate over cells that rules fill, so its effect would depend on the order of applications",
                    r.name
                ),
            );
        }
    }
    Ok(())
}

fn deletes_a_node(r: &Rule) -> bool {
    r.effects
        .iter()
        .any(|e| matches!(e, Effect::DelNode { .. }))
}

/// The types rules create, none of which may be open.
fn created_types(g: &Grammar, open: &Open) -> Result<Vec<NodeTypeId>, Refusal> {
    let types = &g.types;
    let tn = &types.node(open.ty).name;
    let mut created = Vec::new();
    for r in g.rules.iter() {
        for e in &r.effects {
            if let Effect::NewNode { ty, span, .. } = e {
                if types.is_subtype(*ty, open.ty) {
                    return not_monotone(
                        *span,
                        format!(
                            "rule `{}` creates a `{}`, which `final:` counts as open (a `{tn}`)",
                            r.name,
                            types.node(*ty).name
                        ),
                    );
                }
                created.push(*ty);
            }
        }
    }
    Ok(created)
}

/// The rule's one left-side node that may be open, the node it consumes; it must carry the
/// open condition.
fn consumed_of(types: &TypeSystem, r: &Rule, open: &Open) -> Result<VarId, Refusal> {
    let t = open.ty;
    let tn = &types.node(t).name;
    let candidates: Vec<VarId> = r
        .lhs
        .own_vars()
        .filter(|&v| related(types, r.lhs.node(v).expect("own").ty, t))
        .collect();
    let f = match candidates.as_slice() {
        [f] => *f,
        [] => {
            return not_monotone(
                r.lhs.span,
                format!(
                    "rule `{}` matches no `{tn}`, the type `final:` says must be filled",
                    r.name
                ),
            )
        }
        [_, second, ..] => {
            let n = r.lhs.node(*second).expect("own");
            return not_monotone(
                n.span,
                format!(
                    "rule `{}` matches two nodes that may be open `{tn}`s; it must fill one and read only nodes that never change",
                    r.name
                ),
            );
        }
    };
    let node = r.lhs.node(f).expect("own");
    if !types.is_subtype(node.ty, t) {
        return not_monotone(
            node.span,
            format!(
                "rule `{}` matches `{}` as a `{}`, which may or may not be an open `{tn}`",
                r.name,
                node.name,
                types.node(node.ty).name
            ),
        );
    }
    for oc in &open.pattern.conds {
        if !r.lhs.conds.iter().any(|c| same_expr(oc, c, VarId(0), f)) {
            return not_monotone(
                oc.span,
                format!(
                    "rule `{}` does not require `{}` to be open: expected the condition of `final:` on it",
                    r.name, node.name
                ),
            );
        }
    }
    Ok(f)
}

/// The rule's other left-side nodes are of types no rule creates, fills or deletes.
fn check_static_reads(
    types: &TypeSystem,
    r: &Rule,
    consumed: VarId,
    changing: &dyn Fn(NodeTypeId) -> bool,
) -> Result<(), Refusal> {
    for v in r.lhs.own_vars().filter(|&v| v != consumed) {
        let node = r.lhs.node(v).expect("own variable");
        if changing(node.ty) {
            return not_monotone(
                node.span,
                format!(
                    "rule `{}` also matches `{}`, a `{}`, which rules create, fill or delete; only the node it fills may change",
                    r.name,
                    node.name,
                    types.node(node.ty).name
                ),
            );
        }
    }
    Ok(())
}

/// Effects: exactly one consumption of `f`, plus node creations.
fn check_effects(
    types: &TypeSystem,
    r: &Rule,
    f: VarId,
    none_attr: Option<AttrId>,
) -> Result<(), Refusal> {
    let fname = &r.lhs.node(f).expect("own").name;
    let mut consumed = 0;
    for e in &r.effects {
        match e {
            Effect::DelNode { var, .. } if *var == f => consumed += 1,
            Effect::Set {
                var, attr, value, ..
            } if *var == f && Some(*attr) == none_attr => {
                if !never_none(types, &r.lhs, None, value) {
                    return not_monotone(
                        value.span,
                        format!(
                            "rule `{}` may fill `{fname}` with none, leaving it open",
                            r.name
                        ),
                    );
                }
                consumed += 1;
            }
            Effect::NewNode { .. } => {}
            Effect::Set { span, .. } => {
                return not_monotone(
                    *span,
                    format!(
                        "rule `{}` sets an attribute other than the one that marks `{fname}` open",
                        r.name
                    ),
                )
            }
            Effect::DelNode { span, .. } => {
                return not_monotone(
                    *span,
                    format!("rule `{}` deletes a node other than `{fname}`", r.name),
                )
            }
            Effect::NewEdge { span, .. } | Effect::DelEdge { span, .. } => {
                return not_monotone(
                    *span,
                    format!(
                        "rule `{}` changes edges, which could change what NACs reach",
                        r.name
                    ),
                )
            }
        }
    }
    if consumed != 1 {
        return not_monotone(
            r.span,
            format!(
                "rule `{}` must delete `{fname}` or fill the attribute that marks it open, once",
                r.name
            ),
        );
    }
    Ok(())
}

/// Condition 3 for one NAC of rule `r`: its witness, if it has one.
fn check_nac(
    types: &TypeSystem,
    r: &Rule,
    nac: &Pattern,
    open: &Open,
    deletes: bool,
    changing: &dyn Fn(NodeTypeId) -> bool,
) -> Result<Option<VarId>, Refusal> {
    let tn = &types.node(open.ty).name;
    if let Some(inner) = nac.nacs.first() {
        return not_monotone(
            inner.span,
            "a NAC inside a NAC: adding nodes could then remove a NAC match and enable a rule",
        );
    }
    let mut witness: Option<VarId> = None;
    for v in nac.own_vars() {
        let node = nac.node(v).expect("own");
        if related(types, node.ty, open.ty) {
            if deletes {
                return not_monotone(
                    node.span,
                    format!(
                        "NAC node `{}` may match a `{tn}` that a rule deletes, so deleting could enable a rule",
                        node.name
                    ),
                );
            }
            let filled = open.none_attr.is_some_and(|a| {
                nac.conds
                    .iter()
                    .any(|c| implies_filled(types, &r.lhs, nac, c, v, a))
            });
            if !filled {
                return not_monotone(
                    node.span,
                    format!(
                        "NAC node `{}` may match an open `{tn}`, so filling it could enable a rule: expected a condition that fails while it is empty (such as `val == x.val`)",
                        node.name
                    ),
                );
            }
        }
        if changing(node.ty) {
            if let Some(w) = witness {
                return not_monotone(
                    node.span,
                    format!(
                        "NAC nodes `{}` and `{}` may both be nodes that rules create or fill; the focus needs at most one per NAC",
                        nac.node(w).expect("own").name,
                        node.name
                    ),
                );
            }
            witness = Some(v);
        }
    }
    Ok(witness)
}
