//! Recognises grammars whose rules only fill slots and compiles them to a [`SlotModel`].
//!
//! A slot is a value some rule gives a start-graph cell once and never changes. A rule
//! fills a slot in one of two ways: it sets one attribute of its cell `c` and requires that
//! attribute to be `none` (`set c.val = ...`), or it deletes `c` and creates a node in its
//! place whose one value attribute holds the value (`del c` + `new m: T { val = ... }`, the
//! seed's first encoding). Its other left-side nodes (a `Val` node the value is read from)
//! must be static: no rule changes them and the rule reads none of their changing
//! attributes. The value placed depends only on the parameter and static attributes; the
//! NACs read one changing value each (the witness), compared with the parameter, static
//! attributes of the left side and constants. So the graph structure is shared by all
//! states and only slot values vary; a created node is identified by its cell, which the
//! compiler checks (two cells must not be replaced by indistinguishable nodes).
//!
//! Each NAC then becomes a static relation "placing x in c is blocked when witness d holds
//! y" (a table `y -> mask of x`), found by matching the NAC's structure once on the start
//! graph (for replacements, with one stand-in for each cell's future node). The relation is
//! stored through hubs: a hub has writers (witness slots), readers (slots it blocks) and a
//! table; its mask is the union of the table rows of its writers' values. Where the NAC has
//! a node g such that "c reaches g" and "g reaches d" factor the NAC exactly (a group node),
//! one hub per g serves all its cells; otherwise each witness is its own hub. Either way the
//! relation is exact: the factorisation is checked against the full list of NAC matches, and
//! the table against every (cell, value) the rule can place.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::ControlFlow;

use smallvec::SmallVec;

use crate::diag::Span;
use crate::grammar::Grammar;
use crate::matcher::{BindingEnv, GraphIndex, Matcher, SearchPlan};
use crate::model::{AttrId, BaseType, Graph, NodeId, NodeTypeId, TypeSystem, Value, VarId};
use crate::rule::{BinOp, Effect, Env, Expr, ExprKind, Pattern, Rule};

use super::model::{Hub, Replacement, SlotModel};
use super::relation::{cliques, factors};

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

/// The most matches of one NAC's structure the compiler lists; past it the grammar runs
/// on the graph engine, which matches NACs where they are needed instead of all at once.
pub const MAX_NAC_MATCHES: usize = 1 << 22;

/// The most 64-bit words of the solver's per-hub slot sets (hubs times slots / 64):
/// 128 MiB each for readers and members.
pub const MAX_HUB_WORDS: u64 = 1 << 24;

/// What a rule does to the cell it fills.
struct Target<'r> {
    /// The left-side variable of the cell.
    c: VarId,
    /// The slot's attribute: the cell's own, or the value attribute of the created node.
    attr: AttrId,
    /// The value placed.
    value: &'r Expr,
    /// For `del c` + `new m: T { ... }`: the created type and its attribute assignments.
    created: Option<(NodeTypeId, &'r [(AttrId, Expr)])>,
}

/// A rule's effects as a slot fill, or why they are not one.
fn target_of<'r>(types: &TypeSystem, r: &'r Rule) -> Result<Target<'r>, NotSlot> {
    match r.effects.as_slice() {
        [Effect::Set {
            var, attr, value, ..
        }] => Ok(Target {
            c: *var,
            attr: *attr,
            value,
            created: None,
        }),
        [Effect::DelNode { var, .. }, Effect::NewNode {
            ty, attrs, span, ..
        }] => {
            let c_ty = r.lhs.node(*var).map(|n| n.ty).expect("a left-side node");
            if types.is_subtype(*ty, c_ty) || types.is_subtype(c_ty, *ty) {
                return not_slot(
                    *span,
                    format!(
                        "rule `{}` creates a node of a type related to the cell it deletes, so filled and empty cells could match the same patterns",
                        r.name
                    ),
                );
            }
            let def = types.node(*ty);
            let mut values = attrs
                .iter()
                .filter(|(a, _)| def.attrs[a.index()].ty.base == BaseType::Value);
            match (values.next(), values.next()) {
                (Some((a, e)), None) => Ok(Target {
                    c: *var,
                    attr: *a,
                    value: e,
                    created: Some((*ty, attrs)),
                }),
                _ => not_slot(
                    *span,
                    format!(
                        "rule `{}` replaces a cell by a node that must set exactly one value attribute (the value it places)",
                        r.name
                    ),
                ),
            }
        }
        _ => not_slot(
            r.span,
            format!(
                "rule `{}` neither sets one attribute of one node nor replaces one node by a new one (`del c` and `new m: T {{ ... }}`)",
                r.name
            ),
        ),
    }
}

/// One way a rule fills slot `s` with value `x`: the left side's static match and the
/// parameters.
struct Instance {
    binding: Vec<NodeId>,
    params: Vec<Value>,
}

/// Per rule: its instances, keyed by (slot, placed value).
type Instances = BTreeMap<(u32, u16), Instance>;

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
    let targets = g
        .rules
        .iter()
        .map(|r| target_of(types, r))
        .collect::<Result<Vec<_>, _>>()?;
    let replaced = targets[0].created.map(|(ty, _)| (ty, targets[0].attr));
    for (r, t) in g.rules.iter().zip(&targets) {
        if t.created.map(|(ty, _)| (ty, t.attr)) != replaced {
            return not_slot(
                r.span,
                "the rules fill cells in different ways (setting an attribute, or replacing the cell by nodes of different types)",
            );
        }
    }
    // Which attributes rules set, and the slots: every start node with one of them, or,
    // for replacements, every node some rule may delete.
    let mut dynamic: BTreeSet<AttrKey> = BTreeSet::new();
    let mut slots = Vec::new();
    let mut slot_of: HashMap<(NodeId, AttrId), u32> = HashMap::new();
    match replaced {
        None => {
            for (r, t) in g.rules.iter().zip(&targets) {
                dynamic.insert(attr_key(types, var_type(&r.lhs, None, t.c), t.attr));
            }
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
        }
        Some((ty, attr)) => {
            dynamic.insert(attr_key(types, ty, attr));
            let deleted: Vec<NodeTypeId> = g
                .rules
                .iter()
                .zip(&targets)
                .map(|(r, t)| var_type(&r.lhs, None, t.c))
                .collect();
            for n in g.base.find_nodes() {
                let nty = g.base.ty(n);
                if deleted.iter().any(|&c| types.is_subtype(nty, c)) {
                    if !g.base.out(n).is_empty() || !g.base.inc(n).is_empty() {
                        return not_slot(
                            g.rules[0].span,
                            format!(
                                "the rules delete `{}`, which has edges its replacement would not have",
                                g.names.get(n.index()).cloned().unwrap_or_default()
                            ),
                        );
                    }
                    slot_of.insert((n, attr), slots.len() as u32);
                    slots.push((n, attr));
                }
            }
        }
    }
    let mut model = SlotModel::new(g, slots, slot_of, d);
    let rules: Vec<RuleCompiler> = g
        .rules
        .iter()
        .zip(&targets)
        .map(|(r, t)| RuleCompiler {
            g,
            r,
            c: t.c,
            attr: t.attr,
            value: t.value,
            created: t.created.map(|(ty, _)| ty),
            dynamic: &dynamic,
        })
        .collect();
    let mut instances = Vec::with_capacity(rules.len());
    for (ri, rule) in rules.iter().enumerate() {
        instances.push(rule.instances(&mut model, ri)?);
    }
    // Replacements: one stand-in per cell for the node that will take its place, so that
    // NACs over created nodes match on the start graph like NACs over cells do.
    let host: Cow<Graph> = match replaced {
        None => Cow::Borrowed(&g.base),
        Some((ty, attr)) => {
            let created: Vec<_> = targets
                .iter()
                .map(|t| t.created.expect("a replacement"))
                .collect();
            let replacement = replacement(g, &model, &rules, &instances, ty, attr, &created)?;
            let mut host = g.base.clone();
            for (s, attrs) in replacement.attrs.iter().enumerate() {
                let stand_in = host.add_node(ty, attrs.clone());
                model.slot_of.insert((stand_in, attr), s as u32);
            }
            model.replaced = Some(replacement);
            Cow::Owned(host)
        }
    };
    for (rule, inst) in rules.iter().zip(&instances) {
        rule.compile_nacs(&mut model, &host, inst)?;
    }
    let words = model.slots.len().div_ceil(64).max(1) as u64;
    let hub_words = model.hubs.len() as u64 * words;
    if hub_words > MAX_HUB_WORDS {
        return not_slot(
            g.rules[0].span,
            format!(
                "the slot engine would keep {} hubs over {} slots, {} MiB of tables (limit {} MiB)",
                model.hubs.len(),
                model.slots.len(),
                (hub_words * 8) >> 20,
                (MAX_HUB_WORDS * 8) >> 20
            ),
        );
    }
    check_givens(g, &model)?;
    model.finish(g);
    Ok(model)
}

/// Givens (of the `start` block or of a puzzle line) are placed as filled slots, so a given
/// must make the same graph as a rule filling its cell: it sets the slot attribute of a
/// cell whose type it keeps, or, where rules replace cells, retypes the cell to the created
/// type with the attributes the rule would give it.
fn check_givens(g: &Grammar, model: &SlotModel) -> Result<(), NotSlot> {
    let Some(grid) = &g.grid else {
        return Ok(());
    };
    let refuse = |cell: NodeId, why: &str| {
        let name = g.names.get(cell.index()).cloned().unwrap_or_default();
        not_slot(grid.span, format!("a given in {name} {why}"))
    };
    for &cell in &grid.cells {
        let Some(&s) = model.slot_of.get(&(cell, grid.value_attr)) else {
            return refuse(cell, "sets an attribute no rule fills");
        };
        let ty = g.base.ty(cell);
        match (&model.replaced, grid.given_type) {
            (None, None) => {}
            (None, Some(t)) if t == ty => {}
            (None, Some(_)) => return refuse(cell, "changes the cell's type, which no rule does"),
            (Some(r), Some(t)) if t == r.ty => {
                // The given's attributes are copied by name from the cell (as the start
                // graph does); they must be the replacement's.
                let (old, new) = (g.types.node(ty), g.types.node(t));
                let copied = new
                    .attrs
                    .iter()
                    .enumerate()
                    .map(|(j, a)| match old.attr(&a.name) {
                        Some(k) if j != grid.value_attr.index() => g.base.attr(cell, k),
                        _ => Value::None,
                    });
                if !copied.eq(r.attrs[s as usize].iter().copied()) {
                    return refuse(
                        cell,
                        &format!(
                            "would be a `{}` with other attributes than the one the rules create there",
                            new.name
                        ),
                    );
                }
            }
            (Some(r), _) => {
                return refuse(
                    cell,
                    &format!(
                        "would not be the `{}` the rules create in its place",
                        g.types.node(r.ty).name
                    ),
                );
            }
        }
    }
    Ok(())
}

/// The node each cell is replaced by, its value attribute left `none`: the created node's
/// attributes must depend only on the cell, and differ between cells, so that a state
/// of filled slots and the graph it stands for determine each other.
fn replacement(
    g: &Grammar,
    model: &SlotModel,
    rules: &[RuleCompiler],
    instances: &[Instances],
    ty: NodeTypeId,
    attr: AttrId,
    created: &[(NodeTypeId, &[(AttrId, Expr)])],
) -> Result<Replacement, NotSlot> {
    let width = g.types.node(ty).attrs.len();
    let mut per_slot: Vec<Option<SmallVec<[Value; 4]>>> = vec![None; model.slots.len()];
    for ((rule, inst), (_, assigns)) in rules.iter().zip(instances).zip(created) {
        for (&(s, _), i) in inst {
            let env = BindingEnv {
                graph: &g.base,
                binding: &i.binding,
                params: &i.params,
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

/// One rule being compiled: the cell variable `c` it fills and the slot attribute.
struct RuleCompiler<'a> {
    g: &'a Grammar,
    r: &'a Rule,
    c: VarId,
    attr: AttrId,
    value: &'a Expr,
    /// The type of the node that replaces the cell (`del c` + `new`); `None` when the rule
    /// sets the cell instead.
    created: Option<NodeTypeId>,
    /// The attributes some rule sets.
    dynamic: &'a BTreeSet<AttrKey>,
}

impl RuleCompiler<'_> {
    fn is_dynamic(&self, nac: Option<&Pattern>, v: VarId, a: AttrId) -> bool {
        let key = attr_key(&self.g.types, var_type(&self.r.lhs, nac, v), a);
        self.dynamic.contains(&key)
    }

    /// A changing attribute that `e` reads (inside `nac` when given), if any.
    fn reads_dynamic(&self, e: &Expr, nac: Option<&Pattern>) -> Option<(VarId, AttrId)> {
        let mut found = None;
        e.visit_attrs(&mut |v, a| {
            if self.is_dynamic(nac, v, a) {
                found = Some((v, a));
            }
        });
        found
    }

    /// Checks the left side and finds every (slot, value) the rule can place: one per
    /// static match of its left side and parameter value.
    fn instances(&self, model: &mut SlotModel, ri: usize) -> Result<Instances, NotSlot> {
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
        let mut instances = Instances::new();
        let mut clash: Option<Span> = None;
        for p in &params {
            let m = Matcher::new(types, &g.base, p);
            let mut binding = Vec::new();
            let _ = m.for_each_match(&plan, &mut binding, &mut |b| {
                let env = BindingEnv {
                    graph: &g.base,
                    binding: b,
                    params: p,
                };
                let node = b[c.index()];
                match (value.eval(&env), model.slot_of.get(&(node, attr))) {
                    (Value::Val(x), Some(&s)) => {
                        let i = Instance {
                            binding: b[..lhs.var_end() as usize].to_vec(),
                            params: p.clone(),
                        };
                        if instances.insert((s, x), i).is_some() {
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
        Ok(instances)
    }

    fn compile_nacs(
        &self,
        model: &mut SlotModel,
        host: &Graph,
        instances: &Instances,
    ) -> Result<(), NotSlot> {
        for nac in &self.r.lhs.nacs {
            self.compile_nac(model, host, nac, instances)?;
        }
        Ok(())
    }

    /// Compiles a NAC into a table and hubs. Its witness is the one NAC node whose changing
    /// attribute its conditions read.
    fn compile_nac(
        &self,
        model: &mut SlotModel,
        host: &Graph,
        nac: &Pattern,
        instances: &Instances,
    ) -> Result<(), NotSlot> {
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
        let plan = SearchPlan::compile(&structure);
        // NAC matches (their own nodes) per static left-side match.
        let mut matches: HashMap<Vec<NodeId>, Vec<Vec<NodeId>>> = HashMap::new();
        let mut listed = 0usize;
        let flow = {
            let index = GraphIndex::new(types, host, &[]);
            let m = Matcher::new(types, host, &[]).with_index(&index);
            let mut binding = Vec::new();
            m.for_each_match(&plan, &mut binding, &mut |b| {
                listed += 1;
                if listed > MAX_NAC_MATCHES {
                    return ControlFlow::Break(());
                }
                matches
                    .entry(b[..lhs_len].to_vec())
                    .or_default()
                    .push(b[..structure.var_end() as usize].to_vec());
                ControlFlow::Continue(())
            })
        };
        if flow.is_break() {
            return not_slot(
                nac.span,
                format!(
                    "this NAC's structure has more than {MAX_NAC_MATCHES} matches on the start graph, too many to compile into tables"
                ),
            );
        }
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
        for (&(s, x), i) in instances {
            let found = matches.get(&i.binding).map_or(&[][..], Vec::as_slice);
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
            let mut ys = 0u128;
            for y in 0..d {
                if holds(i, Value::Val(y as u16)) {
                    ys |= 1u128 << y;
                }
            }
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
            if witness_slot && holds(i, Value::None) {
                return not_slot(
                    nac.span,
                    "this NAC holds while its witness is empty, so filling a cell can enable a rule",
                );
            }
            tuples.extend(found.iter().cloned());
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
        // Reader/witness pairs, exact.
        let ci = c.index();
        let exact: BTreeSet<(NodeId, NodeId)> = tuples.iter().map(|t| (t[ci], t[wi])).collect();
        let hub_var = nac
            .own_vars()
            .filter(|v| v.index() != wi)
            .find(|v| factors(&tuples, &exact, ci, v.index(), wi));
        let witness_slot = |n: NodeId| model.slot_of.get(&(n, wattr)).copied();
        let reader_slot = |n: NodeId| model.slot_of.get(&(n, attr)).copied();
        if hub_var.is_none() {
            // No group node, but the cells may still fall into groups: where "blocks each
            // other" splits the slots into cliques (same row, same box by arithmetic, same
            // chain), one hub per clique says the same as one per witness, and exactly-once
            // groups become visible.
            let slot_pairs: Option<BTreeSet<(u32, u32)>> = exact
                .iter()
                .map(|&(cn, dn)| Some((reader_slot(cn)?, witness_slot(dn)?)))
                .collect();
            if let Some(groups) = slot_pairs.as_ref().and_then(cliques) {
                for members in groups {
                    model.hubs.push(Hub {
                        writers: members.clone(),
                        readers: members,
                        table: table_id,
                    });
                }
                return Ok(());
            }
        }
        let mut hubs: BTreeMap<NodeId, (BTreeSet<u32>, BTreeSet<u32>)> = BTreeMap::new();
        let mut fixed: Vec<(u32, NodeId)> = Vec::new();
        let pairs: Vec<(NodeId, NodeId, NodeId)> = match hub_var {
            Some(h) => tuples
                .iter()
                .map(|t| (t[h.index()], t[ci], t[wi]))
                .collect(),
            None => exact.iter().map(|&(cn, dn)| (dn, cn, dn)).collect(),
        };
        for (hub, cn, dn) in pairs {
            let reader = reader_slot(cn);
            match witness_slot(dn) {
                Some(w) => {
                    let entry = hubs.entry(hub).or_default();
                    entry.0.insert(w);
                    entry.1.extend(reader);
                }
                None => {
                    // Through a group, the cell still reads the hub's other writers.
                    if hub_var.is_some() {
                        hubs.entry(hub).or_default().1.extend(reader);
                    }
                    fixed.extend(reader.map(|s| (s, dn)));
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
            if let Value::Val(y) = host.attr(dn, wattr) {
                model.allowed[s as usize] &= !model.tables[table_id as usize][y as usize];
            }
        }
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
