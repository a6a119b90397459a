//! Monotone grammars on the graph engine: when rules need matching only on the start graph
//! and `--expand focus` is sound.
//!
//! This covers grammars the slot engine cannot take: rules that delete a cell and create
//! another node in its place, take values from nodes of the graph, or reach witnesses over
//! paths.
//!
//! Focus expansion branches, at each state, on the applications that consume one open node
//! (the one with the fewest). It finds exactly the final states of `--expand all` when:
//!
//! 1. `final:` says no node is open (`not { n: T ... }`, alone or in an `and`);
//! 2. every rule consumes one open node `f` of its left side (`del f`, or `set f.a = e`
//!    where open means `a == none` and `e` is never none) and otherwise only creates nodes
//!    that cannot be open; its other left-side nodes are of types no rule creates or
//!    changes; it changes no edges;
//! 3. no NAC node can be bound to an open node (so a NAC match survives every rule
//!    application), NACs do not nest, and each NAC has at most one node (the witness) of a
//!    type some rule creates or fills;
//! 4. on the start graph, the open nodes have no edges when some rule deletes them (so
//!    deleting one cannot cut a path), and blocking is symmetric: for any two applications
//!    `u`, `t` enabled there (consuming different nodes), `u`'s result blocks `t` exactly
//!    when `t`'s result blocks `u`.
//!
//! Then (2, 3) an application never enables another and its effect does not depend on the
//! state; (3) a NAC match in a state uses at most one node that differs from the start
//! graph, made by one earlier application, so blocking is pairwise; with (4) the states
//! reachable are the pairwise unblocked sets of start-enabled applications, reachable in any
//! order. A final state (1) consumes every open node, among them the focus, by an
//! application enabled now; so branching on the focus's applications misses none, and a
//! focus with none proves the state dead. The same facts let a state's enabled
//! applications be computed from its parent's (see [`Table`]), in either expansion.

use std::cell::RefCell;
use std::ops::ControlFlow;

use crate::diag::Span;
use crate::grammar::Grammar;
use crate::matcher::{GraphIndex, LookupKey, Matcher, SearchPlan, SearchPoll, SharedReach};
use crate::model::{AttrId, BaseType, Graph, NodeId, NodeTypeId, TypeSystem, Value, VarId};
use crate::rule::{BinOp, Condition, Effect, Expr, ExprKind, Pattern, Rule, UnOp};

use super::apply::CompiledRule;
use crate::explore::halt::Halt;

/// The most applications a start graph's [`Table`] is built for: it checks every pair
/// (64 M NAC matches and an 8 MiB bit matrix at the limit).
pub const MAX_TABLE_APPS: usize = 1 << 13;

/// Why focus expansion is not sound on the graph engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsound {
    pub reason: String,
    pub span: Span,
}

fn unsound<T>(span: Span, reason: impl Into<String>) -> Result<T, Unsound> {
    Err(Unsound {
        reason: reason.into(),
        span,
    })
}

/// What the graph engine needs to expand by focus: how to find open nodes and which
/// left-side node each rule consumes.
#[derive(Clone, Debug)]
pub struct GraphFocus {
    /// Matches each open node (variable 0).
    pub open: SearchPlan,
    /// Per rule: the variable of the open node it consumes.
    pub focus_var: Vec<VarId>,
    /// Per rule: it consumes by filling (so the filled node is what it adds), not deleting.
    fills: Vec<bool>,
    /// Per rule: for each NAC with a witness, the witness variable, its type and the NAC
    /// compiled to match from the witness (blocking checks need only those matches).
    rooted: Vec<Vec<(VarId, NodeTypeId, SearchPlan)>>,
    /// Some rule deletes the node it consumes.
    deletes: bool,
}

/// One application enabled on the start graph: a rule, its parameters and the nodes its
/// left side binds (start nodes only: rules never match created nodes).
pub struct Application {
    pub rule: usize,
    pub params: Vec<Value>,
    pub binding: Vec<NodeId>,
}

/// The applications enabled on a start graph and how they disable each other. In a grammar
/// that passes [`GraphFocus::analyse`] and [`GraphFocus::table`], the applications enabled
/// in a reachable state are exactly the start graph's that no application on the way
/// there disabled, so states carry that set instead of matching the rules again.
pub struct Table {
    pub apps: Vec<Application>,
    /// The open nodes of the start graph, in id order.
    pub open: Vec<NodeId>,
    /// Per application: the index in `open` of the node it consumes.
    pub focus: Vec<u32>,
    /// Words in a bit set over the applications.
    pub words: usize,
    /// Per application, `words` words: the applications it disables, those it blocks and
    /// every one that consumes the same node (itself included).
    disables: Vec<u64>,
}

impl Table {
    pub fn disables(&self, a: usize) -> &[u64] {
        &self.disables[a * self.words..(a + 1) * self.words]
    }
}

impl GraphFocus {
    /// Checks conditions 1 to 3 (see the module documentation) on the grammar.
    pub fn analyse(g: &Grammar) -> Result<GraphFocus, Unsound> {
        let types = &g.types;
        if g.rules.is_empty() {
            return unsound(Span::default(), "there are no rules");
        }
        let open = open_pattern(g)?;
        let t = open.nodes[0].ty;
        let tn = &types.node(t).name;
        let none_attr = open.conds.iter().find_map(|c| none_check(c, VarId(0)));
        let related =
            |a: NodeTypeId, b: NodeTypeId| types.is_subtype(a, b) || types.is_subtype(b, a);
        let mut created = Vec::new();
        for r in &g.rules {
            for e in &r.effects {
                if let Effect::NewNode { ty, span, .. } = e {
                    if types.is_subtype(*ty, t) {
                        return unsound(
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
        let changing = |ty: NodeTypeId| related(ty, t) || created.iter().any(|&c| related(ty, c));
        let deletes = g.rules.iter().any(|r| {
            r.effects
                .iter()
                .any(|e| matches!(e, Effect::DelNode { .. }))
        });
        let mut focus_var = Vec::new();
        let mut fills = Vec::new();
        let mut rooted = Vec::new();
        for r in &g.rules {
            let f = focus_of(types, r, open, t, &related)?;
            for v in r.lhs.own_vars().filter(|&v| v != f) {
                let node = r.lhs.node(v).expect("own variable");
                if changing(node.ty) {
                    return unsound(
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
            check_effects(types, r, f, none_attr)?;
            let mut witnesses = Vec::new();
            for nac in &r.lhs.nacs {
                if let Some(w) = check_nac(types, r, nac, t, none_attr, deletes, &changing)? {
                    let ty = nac.node(w).expect("own").ty;
                    witnesses.push((w, ty, SearchPlan::compile_rooted(nac, w)));
                }
            }
            focus_var.push(f);
            fills.push(
                !r.effects
                    .iter()
                    .any(|e| matches!(e, Effect::DelNode { .. })),
            );
            rooted.push(witnesses);
        }
        Ok(GraphFocus {
            open: SearchPlan::compile(open),
            focus_var,
            fills,
            rooted,
            deletes,
        })
    }

    /// Checks condition 4 on a start graph and returns the table of its applications:
    /// `rules` compiled from the grammar, `keys` the lookups their plans use. Cost: one rule
    /// application per enabled application, and a NAC match from each node it adds per
    /// pair of applications.
    pub fn table(
        &self,
        g: &Grammar,
        rules: &[CompiledRule<'_>],
        start: &Graph,
        keys: &[LookupKey],
        halt: Option<Halt<'_>>,
    ) -> Result<Table, Unsound> {
        let types = &g.types;
        // Tabulating takes a NAC match per pair of applications, seconds on a large
        // graph: the run's limits are polled throughout, and a stop leaves no table.
        let halt = RefCell::new(halt);
        let stopping = || {
            halt.borrow_mut()
                .as_mut()
                .is_some_and(|h| h.tick().is_some())
        };
        let poll = SearchPoll::new(&stopping);
        let stopped = || {
            unsound(
                Span::default(),
                "the run stopped before the table of which application disables which was built",
            )
        };
        // Rules change no edges and deleted nodes have none (checked below), so every
        // graph here has the start graph's edges.
        let shared = SharedReach::default();
        let index = GraphIndex::new(types, start, keys).with_shared_reach(&shared);
        let open = self.open_nodes(types, start, &index);
        if self.deletes {
            if let Some(&n) = open
                .iter()
                .find(|&&n| !start.out(n).is_empty() || !start.inc(n).is_empty())
            {
                return unsound(
                    Span::default(),
                    format!(
                        "rules delete open nodes and the open node {} has edges, so deleting it could cut a path a NAC follows",
                        node_name(g, n)
                    ),
                );
            }
        }
        let mut apps = Vec::new();
        for (ri, r) in rules.iter().enumerate() {
            let end = r.rule.lhs.var_end() as usize;
            let flow = r.for_each_match(
                types,
                &g.domain,
                start,
                Some(&index),
                Some(&poll),
                &mut |params, b| {
                    if apps.len() >= MAX_TABLE_APPS {
                        return ControlFlow::Break(());
                    }
                    apps.push(Application {
                        rule: ri,
                        params: params.to_vec(),
                        binding: b[..end].to_vec(),
                    });
                    ControlFlow::Continue(())
                },
            );
            if poll.stopped() {
                return stopped();
            }
            if flow.is_break() {
                return unsound(
                    Span::default(),
                    format!(
                        "the start graph has more than {MAX_TABLE_APPS} rule applications, and checking that they block each other symmetrically takes a NAC match per pair"
                    ),
                );
            }
        }
        let node_of = |a: &Application| a.binding[self.focus_var[a.rule].index()];
        let focus: Vec<u32> = apps
            .iter()
            .map(|a| {
                open.binary_search(&node_of(a))
                    .expect("rules consume open nodes") as u32
            })
            .collect();
        let n = apps.len();
        let words = n.div_ceil(64);
        // Bit t of row u: u's result blocks t (a bit matrix: n * n bits).
        let mut disables = Vec::new();
        if disables.try_reserve_exact(n * words).is_err() {
            return unsound(
                Span::default(),
                format!("no memory for the table of which of {n} applications disables which"),
            );
        }
        disables.resize(n * words, 0u64);
        let bit = |m: &[u64], u: usize, t: usize| m[u * words + t / 64] >> (t % 64) & 1 == 1;
        let mut binding = Vec::new();
        for (ui, u) in apps.iter().enumerate() {
            let after = rules[u.rule].apply(types, start, &u.params, &u.binding);
            let index = GraphIndex::new(types, &after, keys).with_shared_reach(&shared);
            // What `u` adds: the nodes it creates and the node it fills. A NAC match that
            // `u` makes uses one of them as the NAC's witness, and is found from it.
            let mut added: Vec<NodeId> = (start.capacity()..after.capacity())
                .map(NodeId::from_index)
                .filter(|&x| after.is_alive(x))
                .collect();
            if self.fills[u.rule] {
                added.push(node_of(u));
            }
            for (ti, t) in apps.iter().enumerate() {
                if focus[ti] == focus[ui] {
                    continue;
                }
                if stopping() {
                    return stopped();
                }
                let m = Matcher::new(types, &after, &t.params).with_index(&index);
                let blocked = self.rooted[t.rule].iter().any(|(w, wty, plan)| {
                    added.iter().any(|&x| {
                        if !types.is_subtype(after.ty(x), *wty) {
                            return false;
                        }
                        binding.clear();
                        binding.extend_from_slice(&t.binding);
                        binding.resize(plan.depth, crate::matcher::UNBOUND);
                        binding[w.index()] = x;
                        m.exists(plan, &mut binding)
                    })
                });
                if blocked {
                    disables[ui * words + ti / 64] |= 1 << (ti % 64);
                }
            }
        }
        for u in 0..n {
            for t in 0..n {
                if bit(&disables, u, t) && !bit(&disables, t, u) {
                    return unsound(
                        rules[apps[u].rule].rule.span,
                        format!(
                            "blocking is not symmetric on this start graph: {} blocks {}, but not the other way round, so the order of applications matters",
                            describe(g, rules, &apps[u]),
                            describe(g, rules, &apps[t])
                        ),
                    );
                }
            }
        }
        for u in 0..n {
            for t in 0..n {
                if focus[u] == focus[t] {
                    disables[u * words + t / 64] |= 1 << (t % 64);
                }
            }
        }
        Ok(Table {
            apps,
            open,
            focus,
            words,
            disables,
        })
    }

    /// The open nodes of `graph`, in id order.
    pub fn open_nodes(&self, types: &TypeSystem, graph: &Graph, index: &GraphIndex) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut binding = Vec::new();
        let _ = Matcher::new(types, graph, &[])
            .with_index(index)
            .for_each_match(&self.open, &mut binding, &mut |b| {
                out.push(b[0]);
                ControlFlow::Continue(())
            });
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The one-node pattern of `final: not { n: T ... }` (alone or in an `and`).
fn open_pattern(g: &Grammar) -> Result<&Pattern, Unsound> {
    let expected = "expected `final: not { n: T ... }` (alone or joined by `and`), saying that no node is left to fill";
    fn not_exists(c: &Condition) -> Option<&Pattern> {
        match c {
            Condition::Not(inner) => match inner.as_ref() {
                Condition::Exists(p) => Some(p),
                _ => None,
            },
            _ => None,
        }
    }
    let p =
        match &g.final_cond {
            None => return unsound(
                Span::default(),
                "there is no `final:` condition, so a final state need not have every node filled",
            ),
            Some(Condition::And(cs)) => cs.iter().find_map(not_exists),
            Some(c) => not_exists(c),
        };
    let Some(p) = p else {
        return unsound(
            Span::default(),
            format!("`final:` does not say which nodes must be filled: {expected}"),
        );
    };
    if p.nodes.len() != 1 || !p.edges.is_empty() || !p.nacs.is_empty() {
        return unsound(
            p.span,
            format!("the open nodes of `final:` must be one node with conditions on its own attributes: {expected}"),
        );
    }
    if p.conds.iter().any(|c| c.max_var() > 1 || c.reads_params()) {
        return unsound(
            p.span,
            format!("a condition of `final:` reads more than its node: {expected}"),
        );
    }
    Ok(p)
}

/// The attribute `a` when `c` is `v.a == none` (either way round).
fn none_check(c: &Expr, v: VarId) -> Option<AttrId> {
    let ExprKind::Binary(BinOp::Eq, a, b) = &c.kind else {
        return None;
    };
    [(a, b), (b, a)]
        .into_iter()
        .find_map(|(x, y)| match (&x.kind, &y.kind) {
            (ExprKind::Attr(var, attr), ExprKind::Const(Value::None)) if *var == v => Some(*attr),
            _ => None,
        })
}

/// True when `a` with variable `from` read as `to` is `b` (spans aside).
fn same_expr(a: &Expr, b: &Expr, from: VarId, to: VarId) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::Const(x), ExprKind::Const(y)) => x == y,
        (ExprKind::Param(x), ExprKind::Param(y)) => x == y,
        (ExprKind::Attr(v, x), ExprKind::Attr(w, y)) => {
            x == y && (if *v == from { *w == to } else { v == w })
        }
        (ExprKind::Unary(o, x), ExprKind::Unary(p, y)) => o == p && same_expr(x, y, from, to),
        (ExprKind::Binary(o, x1, x2), ExprKind::Binary(p, y1, y2)) => {
            o == p && same_expr(x1, y1, from, to) && same_expr(x2, y2, from, to)
        }
        _ => false,
    }
}

/// The rule's one left-side node that may be open; it must carry the open condition.
fn focus_of(
    types: &TypeSystem,
    r: &Rule,
    open: &Pattern,
    t: NodeTypeId,
    related: &dyn Fn(NodeTypeId, NodeTypeId) -> bool,
) -> Result<VarId, Unsound> {
    let tn = &types.node(t).name;
    let candidates: Vec<VarId> = r
        .lhs
        .own_vars()
        .filter(|&v| related(r.lhs.node(v).expect("own").ty, t))
        .collect();
    let f = match candidates.as_slice() {
        [f] => *f,
        [] => {
            return unsound(
                r.lhs.span,
                format!(
                    "rule `{}` matches no `{tn}`, the type `final:` says must be filled",
                    r.name
                ),
            )
        }
        [_, second, ..] => {
            let n = r.lhs.node(*second).expect("own");
            return unsound(
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
        return unsound(
            node.span,
            format!(
                "rule `{}` matches `{}` as a `{}`, which may or may not be an open `{tn}`",
                r.name,
                node.name,
                types.node(node.ty).name
            ),
        );
    }
    for oc in &open.conds {
        if !r.lhs.conds.iter().any(|c| same_expr(oc, c, VarId(0), f)) {
            return unsound(
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

/// Effects: exactly one consumption of `f`, plus node creations.
fn check_effects(
    types: &TypeSystem,
    r: &Rule,
    f: VarId,
    none_attr: Option<AttrId>,
) -> Result<(), Unsound> {
    let fname = &r.lhs.node(f).expect("own").name;
    let mut consumed = 0;
    for e in &r.effects {
        match e {
            Effect::DelNode { var, .. } if *var == f => consumed += 1,
            Effect::Set {
                var, attr, value, ..
            } if *var == f && Some(*attr) == none_attr => {
                if !never_none(types, r, None, value) {
                    return unsound(
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
                return unsound(
                    *span,
                    format!(
                        "rule `{}` sets an attribute other than the one that marks `{fname}` open",
                        r.name
                    ),
                )
            }
            Effect::DelNode { span, .. } => {
                return unsound(
                    *span,
                    format!("rule `{}` deletes a node other than `{fname}`", r.name),
                )
            }
            Effect::NewEdge { span, .. } | Effect::DelEdge { span, .. } => {
                return unsound(
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
        return unsound(
            r.span,
            format!(
                "rule `{}` must delete `{fname}` or fill the attribute that marks it open, once",
                r.name
            ),
        );
    }
    Ok(())
}

/// The type of a variable of rule `r`, inside `nac` when given.
fn var_type(r: &Rule, nac: Option<&Pattern>, v: VarId) -> Option<NodeTypeId> {
    r.lhs
        .node(v)
        .or_else(|| nac.and_then(|p| p.node(v)))
        .map(|n| n.ty)
}

/// True when `e` can never be none: a parameter, a constant other than none, or an
/// attribute of type `value` that is not optional (values are never computed).
fn never_none(types: &TypeSystem, r: &Rule, nac: Option<&Pattern>, e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Param(_) => true,
        ExprKind::Const(v) => !v.is_none(),
        ExprKind::Attr(v, a) => var_type(r, nac, *v).is_some_and(|ty| {
            let at = types.node(ty).attrs[a.index()].ty;
            at.base == BaseType::Value && !at.optional
        }),
        _ => false,
    }
}

/// True when condition `c` fails whenever `d.a` is none: an ordering or arithmetic that
/// reads it (none propagates, and a condition that is none counts as false), `== e` with
/// `e` never none, `!= none`, and conjunctions and disjunctions of these.
fn implies_filled(
    types: &TypeSystem,
    r: &Rule,
    nac: &Pattern,
    c: &Expr,
    d: VarId,
    a: AttrId,
) -> bool {
    let none_with = |e: &Expr| none_propagates(e, d, a);
    match &c.kind {
        ExprKind::Binary(BinOp::And, x, y) => {
            implies_filled(types, r, nac, x, d, a) || implies_filled(types, r, nac, y, d, a)
        }
        ExprKind::Binary(BinOp::Or, x, y) => {
            implies_filled(types, r, nac, x, d, a) && implies_filled(types, r, nac, y, d, a)
        }
        ExprKind::Binary(BinOp::Eq, x, y) => [(x, y), (y, x)]
            .into_iter()
            .any(|(p, q)| none_with(p) && never_none(types, r, Some(nac), q)),
        ExprKind::Binary(BinOp::Ne, x, y) => [(x, y), (y, x)]
            .into_iter()
            .any(|(p, q)| none_with(p) && q.kind == ExprKind::Const(Value::None)),
        _ => none_with(c),
    }
}

/// True when `e` is none whenever `d.a` is: it is `d.a`, or an ordering, arithmetic or
/// conversion with an operand that is.
fn none_propagates(e: &Expr, d: VarId, a: AttrId) -> bool {
    match &e.kind {
        ExprKind::Attr(v, b) => *v == d && *b == a,
        ExprKind::Unary(UnOp::Neg | UnOp::Abs | UnOp::Int, x)
        | ExprKind::ToInt(x, _)
        | ExprKind::ToValue(x, _) => none_propagates(x, d, a),
        ExprKind::Binary(
            BinOp::Lt
            | BinOp::Le
            | BinOp::Gt
            | BinOp::Ge
            | BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem,
            x,
            y,
        ) => none_propagates(x, d, a) || none_propagates(y, d, a),
        _ => false,
    }
}

/// Condition 3 for one NAC of rule `r`.
fn check_nac(
    types: &TypeSystem,
    r: &Rule,
    nac: &Pattern,
    t: NodeTypeId,
    none_attr: Option<AttrId>,
    deletes: bool,
    changing: &dyn Fn(NodeTypeId) -> bool,
) -> Result<Option<VarId>, Unsound> {
    let tn = &types.node(t).name;
    if let Some(inner) = nac.nacs.first() {
        return unsound(
            inner.span,
            "a NAC inside a NAC: adding nodes could then remove a NAC match and enable a rule",
        );
    }
    let mut witness: Option<VarId> = None;
    for v in nac.own_vars() {
        let node = nac.node(v).expect("own");
        if types.is_subtype(node.ty, t) || types.is_subtype(t, node.ty) {
            if deletes {
                return unsound(
                    node.span,
                    format!(
                        "NAC node `{}` may match a `{tn}` that a rule deletes, so deleting could enable a rule",
                        node.name
                    ),
                );
            }
            let filled = none_attr.is_some_and(|a| {
                nac.conds
                    .iter()
                    .any(|c| implies_filled(types, r, nac, c, v, a))
            });
            if !filled {
                return unsound(
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
                return unsound(
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

fn node_name(g: &Grammar, n: NodeId) -> String {
    g.names
        .get(n.index())
        .cloned()
        .unwrap_or_else(|| format!("#{}", n.0))
}

/// `place(n = r1c1, x = v2)`, for messages.
fn describe(g: &Grammar, rules: &[CompiledRule<'_>], a: &Application) -> String {
    let r = rules[a.rule].rule;
    let mut parts: Vec<String> = r
        .params
        .iter()
        .zip(&a.params)
        .map(|(p, &v)| format!("{} = {}", p.name, g.domain.show(v)))
        .collect();
    parts.extend(
        r.lhs
            .nodes
            .iter()
            .zip(&a.binding[r.lhs.bound as usize..])
            .map(|(p, &n)| format!("{} = {}", p.name, node_name(g, n))),
    );
    format!("`{}({})`", r.name, parts.join(", "))
}

#[cfg(test)]
mod tests {
    use crate::engine::Engine;
    use crate::graph::graph_space::GraphSpace;

    const HEAD: &str = "values 1..2
        node Cell { row: int, col: int, val: value? }
        node Group
        edge in: Cell -> Group
        edge lt: Cell -> Cell
        grid 1x2 of Cell
        groups rows
        r1c1 -lt-> r1c2
        ";

    /// Why focus is unsound for `HEAD` followed by `rest`, if it is.
    fn why(rest: &str) -> Option<String> {
        let g =
            crate::load_str("t.graft", &format!("{HEAD}{rest}")).unwrap_or_else(|d| panic!("{d}"));
        let space = GraphSpace::new(&g, Engine::new(&g).start_graph(None));
        space.focus_unsound().map(|u| u.reason.clone())
    }

    const FINAL: &str = "final: not { c: Cell { val == none } }";

    #[test]
    fn a_slot_filling_rule_is_monotone() {
        let rule = "rule place(v: value) {
            c: Cell { val == none }
            not { c -in-> g: Group <-in- d: Cell { val == v } }
            set c.val = v
        }";
        assert_eq!(why(&format!("{rule} {FINAL}")), None);
        let none = why(rule).unwrap();
        assert!(none.contains("no `final:`"), "{none}");
    }

    #[test]
    fn a_nac_that_may_see_an_empty_cell_is_refused() {
        let rule = "rule place(v: value) {
            c: Cell { val == none }
            not { c -in-> g: Group <-in- d: Cell }
            set c.val = v
        }";
        let r = why(&format!("{rule} {FINAL}")).unwrap();
        assert!(r.contains("NAC node `d` may match an open `Cell`"), "{r}");
    }

    #[test]
    fn one_sided_blocking_is_refused() {
        // c < d is checked from c only: d's value blocks c, never the other way round.
        let rule = "rule place(v: value) {
            c: Cell { val == none }
            not { c -lt-> d: Cell { val <= v } }
            set c.val = v
        }";
        let r = why(&format!("{rule} {FINAL}")).unwrap();
        assert!(r.contains("blocking is not symmetric"), "{r}");
        assert!(r.contains("c = r1c2") && r.contains("c = r1c1"), "{r}");
        // Checked from both ends, blocking is symmetric.
        let both = "rule place(v: value) {
            c: Cell { val == none }
            not { c -lt-> d: Cell { val <= v } }
            not { d: Cell { val >= v } -lt-> c }
            set c.val = v
        }";
        assert_eq!(why(&format!("{both} {FINAL}")), None);
    }

    #[test]
    fn nested_nacs_and_edge_changes_are_refused() {
        let nested = "rule place(v: value) {
            c: Cell { val == none }
            not { c -in-> g: Group not { g <-in- d: Cell { val == v } } }
            set c.val = v
        }";
        let r = why(&format!("{nested} {FINAL}")).unwrap();
        assert!(r.contains("a NAC inside a NAC"), "{r}");
        let edges = "rule place(v: value) {
            c: Cell { val == none }
            d: Cell
            set c.val = v
            new c -lt-> d
        }";
        let r = why(&format!("{edges} {FINAL}")).unwrap();
        assert!(r.contains("matches two nodes that may be open"), "{r}");
        let linking = "rule place(v: value) {
            c: Cell { val == none }
            g: Group
            set c.val = v
            new c -in-> g
        }";
        let r = why(&format!("{linking} {FINAL}")).unwrap();
        assert!(r.contains("changes edges"), "{r}");
    }

    #[test]
    fn a_rule_must_fill_what_final_asks_for() {
        let keeps = "rule touch(v: value) {
            c: Cell { val == none }
            set c.row = 3
        }";
        let r = why(&format!("{keeps} {FINAL}")).unwrap();
        assert!(r.contains("sets an attribute other than"), "{r}");
        let any = "rule place(v: value) {
            c: Cell
            set c.val = v
        }";
        let r = why(&format!("{any} {FINAL}")).unwrap();
        assert!(r.contains("does not require `c` to be open"), "{r}");
    }
}
