//! One aggregate over the group of a NAC: which cells it reads, how each cell's share moves
//! as it fills, and how the aggregate without the filled cell relates to the whole group.

use crate::diag::Span;
use crate::model::{AttrId, Value, VarId};
use crate::rule::{AggOp, Aggregate, Env, Expr, ExprKind};

use super::direction::{Dir, Shape};
use super::{not_monotone, Cx, NacCx};
use crate::analysis::refusal::Refusal;

/// How a written aggregate (over the group without `c`) relates to the same aggregate over
/// the whole group after the application.
#[derive(Clone, Debug)]
pub(super) enum Completion {
    /// They differ by a constant: `c` adds the same whatever its value (nothing, or one to
    /// a count).
    Constant,
    /// The whole one is the written one plus `c`'s share, which depends on `c`'s value: a
    /// term of the condition must add it. Per value `c` may get, its share.
    Term(Vec<(Value, i64)>),
}

/// What one aggregate over the group is.
#[derive(Clone, Debug)]
pub(super) struct Fill {
    pub(super) shape: Shape,
    pub(super) completion: Completion,
    /// `count` of, `any` over, or `all` failing at, exactly the empty cells of the group.
    pub(super) empties: bool,
    /// For `count` and `sum`: what one cell of the group adds while empty, and once filled
    /// with each value of the domain. A sum of such aggregates over the group moves as the
    /// same sum of one cell's shares does.
    pub(super) shares: Option<(i64, Vec<i64>)>,
}

/// Reads the cell attribute `(var, attr)` as `value`; nothing else is readable.
struct At {
    var: VarId,
    attr: AttrId,
    value: Value,
}

impl Env for At {
    fn param(&self, _: u32) -> Value {
        Value::None
    }

    fn attr(&self, var: VarId, attr: AttrId) -> Value {
        if (var, attr) == (self.var, self.attr) {
            self.value
        } else {
            Value::None
        }
    }

    fn aggregate(&self, _: &Aggregate) -> Value {
        Value::None
    }
}

impl Cx<'_> {
    /// Reads a changing aggregate of the NAC: its group must be the NAC's, its pattern one
    /// cell `d` with conditions and expression over `d`'s filled attribute and constants.
    pub(super) fn fill(&self, k: &NacCx, a: &Aggregate, span: Span) -> Result<Fill, Refusal> {
        let types = self.types();
        let name = a.op.name();
        let p = &a.pattern;
        let attr = self.open.none_attr.expect("checked by check_nac");
        let c = &k.r.lhs.node(k.c).expect("own").name;
        let refused = |why: String| not_monotone(span, why);
        let [d] = p.nodes.as_slice() else {
            return refused(format!(
                "`{name}(...)` over cells that rules fill must bind one cell, the one it reads (it binds {})",
                p.nodes.len()
            ));
        };
        let dv = VarId(p.bound);
        if !types.is_subtype(d.ty, self.open.ty) || !self.filled_type(d.ty) {
            // Also for an aggregate that changes nothing: it binds a node that could be one
            // of the rule's, and only a group of cells is read alike by each of its cells.
            return refused(format!(
                "`{name}(...)` binds `{}`, a `{}`: over cells that rules fill it must bind a `{}`",
                d.name,
                types.node(d.ty).name,
                types.node(self.open.ty).name
            ));
        }
        if !p.nacs.is_empty()
            || p.has_aggregate()
            || a.body.as_ref().is_some_and(Expr::has_aggregate)
        {
            return refused(format!(
                "`{name}(...)` over cells that rules fill may hold no NAC and no other aggregate"
            ));
        }
        // The group: `d` joined to the NAC's nodes exactly as `c` is.
        let mut sig = Vec::new();
        for e in &p.edges {
            let (other, out) = match (e.src == dv, e.tgt == dv) {
                (true, false) => (e.tgt, true),
                (false, true) => (e.src, false),
                _ => {
                    return refused(format!(
                    "`{name}(...)`: each edge of its pattern must join `{}` to a node of the NAC",
                    d.name
                ))
                }
            };
            if other.0 < k.nac.bound || other.0 >= k.nac.var_end() {
                return refused(format!(
                    "`{name}(...)` joins `{}` to a node of the rule's left side: it must read a group of the NAC's own nodes (`k <-cage- {}`)",
                    d.name, d.name
                ));
            }
            sig.push((&e.path, other, out));
        }
        let same = sig.len() == k.edges.len()
            && sig.iter().all(|s| k.edges.contains(s))
            && k.edges.iter().all(|s| sig.contains(s));
        if !same {
            return refused(format!(
                "`{name}(...)` must range over the group `{c}` belongs to: `{}` joined to the NAC's nodes by the same edges as `{c}` (so that every cell of the group reads it alike)",
                d.name
            ));
        }
        // Conditions and expression read `d`'s filled attribute and constants only.
        let only_d = |e: &Expr| {
            let mut ok = !e.reads_params();
            e.visit_vars(&mut |v| ok &= v == dv);
            e.visit_attrs(&mut |_, b| ok &= b == attr);
            ok
        };
        if let Some(bad) = p.conds.iter().chain(a.body.as_ref()).find(|e| !only_d(e)) {
            return not_monotone(
                bad.span,
                format!(
                    "`{name}(...)` over cells that rules fill may read only `{}.{}` and constants, so that whether a cell counts and what it adds depend on its value alone",
                    d.name,
                    types.node(self.open.ty).attrs[attr.index()].name
                ),
            );
        }
        let at = |value| At {
            var: dv,
            attr,
            value,
        };
        let member = |value| p.conds.iter().all(|x| x.holds(&at(value)));
        let body = |value| a.body.as_ref().map_or(Value::None, |b| b.eval(&at(value)));
        let values: Vec<Value> = (0..self.g.domain.len())
            .map(|i| Value::Val(i as u16))
            .collect();
        let fills = self.fills(k);
        let m0 = member(Value::None);
        let mut risen = false;
        let mut fallen = false;
        if m0 && values.iter().any(|&x| member(x)) && !values.iter().all(|&x| member(x)) {
            return refused(format!(
                "`{name}(...)` counts an empty `{}` and, once filled, only some values: as cells fill it could both gain and lose cells",
                d.name
            ));
        }
        let mut empties = false;
        let mut per_cell = None;
        let completion;
        match a.op {
            AggOp::Count | AggOp::Sum => {
                let weight = |m: bool, v: Value| match (a.op, m, v) {
                    (_, false, _) => 0,
                    (AggOp::Count, true, _) => 1,
                    (_, true, Value::Int(n)) => n,
                    _ => 0,
                };
                let before = weight(m0, body(Value::None));
                let after: Vec<i64> = values.iter().map(|&x| weight(member(x), body(x))).collect();
                risen = after.iter().any(|&a| a > before);
                fallen = after.iter().any(|&a| a < before);
                per_cell = Some((before, after));
                let shares: Vec<(Value, i64)> = fills
                    .iter()
                    .map(|&x| (x, weight(member(x), body(x))))
                    .collect();
                completion = if shares.iter().all(|s| s.1 == shares[0].1) {
                    Completion::Constant
                } else {
                    Completion::Term(shares)
                };
                empties = a.op == AggOp::Count && m0 && values.iter().all(|&x| !member(x));
            }
            AggOp::Min | AggOp::Max => {
                let before = if m0 { body(Value::None) } else { Value::None };
                if !before.is_none() {
                    return refused(format!(
                        "`{name}(...)` takes a value from an empty `{}`, which filling it would change",
                        d.name
                    ));
                }
                // Only values come in: a maximum rises, a minimum falls.
                risen = a.op == AggOp::Max;
                fallen = a.op == AggOp::Min;
                if fills.iter().any(|&x| member(x) && !body(x).is_none()) {
                    return refused(format!(
                        "`{name}(...)` reads the group without `{c}`, the cell the rule fills, and the language has no way to add `{c}`'s value to a {name}: the NAC cannot read the group as it will be (test the whole group in `final:`, or write the constraint cell by cell)"
                    ));
                }
                completion = Completion::Constant;
            }
            AggOp::All | AggOp::Any => {
                let truth = |v: Value| v == Value::Bool(true);
                // Per cell: does it make `any` true, or keep `all` true?
                let term = |m: bool, v: Value| match a.op {
                    AggOp::Any => m && truth(v),
                    _ => !m || truth(v),
                };
                let before = term(m0, body(Value::None));
                for &x in &values {
                    let after = term(member(x), body(x));
                    risen |= after && !before;
                    fallen |= before && !after;
                }
                let neutral = a.op == AggOp::All;
                if fills.iter().any(|&x| term(member(x), body(x)) != neutral) {
                    return refused(format!(
                        "`{name}(...)` reads the group without `{c}`, the cell the rule fills, and `{c}`'s value would change it: the NAC cannot read the group as it will be"
                    ));
                }
                completion = Completion::Constant;
                empties = if a.op == AggOp::Any {
                    before && values.iter().all(|&x| !term(member(x), body(x)))
                } else {
                    !before && values.iter().all(|&x| term(member(x), body(x)))
                };
            }
        }
        Ok(Fill {
            shape: Shape::new(
                Dir::of(risen, fallen),
                matches!(a.op, AggOp::Min | AggOp::Max),
            ),
            completion,
            empties,
            shares: per_cell,
        })
    }
}

impl Cx<'_> {
    /// What `c` may be filled with.
    pub(super) fn fills(&self, k: &NacCx) -> Vec<Value> {
        match k.fill.kind {
            ExprKind::Const(v) => vec![v],
            _ => (0..self.g.domain.len())
                .map(|i| Value::Val(i as u16))
                .collect(),
        }
    }
}

/// The value of `term` when it reads the fill expression, nothing else (no aggregate), and
/// is the same whatever `c` is filled with: `int(int(v) == 0)` on a domain without 0.
pub(super) fn constant_in_fill(term: &Expr, fill: &Expr, fills: &[Value]) -> Option<Value> {
    if !reads_fill(term, fill)? {
        return None;
    }
    let mut values = fills
        .iter()
        .map(|&value| term.eval(&Filled { fill, value }));
    let first = values.next()?;
    values.all(|v| v == first).then_some(first)
}

/// Whether `term` reads the fill expression; `None` when it reads anything else.
fn reads_fill(term: &Expr, fill: &Expr) -> Option<bool> {
    match &term.kind {
        ExprKind::Const(_) => Some(false),
        ExprKind::Param(_) | ExprKind::Attr(..) => (term.kind == fill.kind).then_some(true),
        ExprKind::Unary(_, e) | ExprKind::ToInt(e, _) | ExprKind::ToValue(e, _) => {
            reads_fill(e, fill)
        }
        ExprKind::Binary(_, a, b) => Some(reads_fill(a, fill)? | reads_fill(b, fill)?),
        ExprKind::Aggregate(_) => None,
    }
}

/// True when `term` is `c`'s share of an aggregate: it reads nothing but what the fill
/// expression reads, and with the fill being each value it may be, it is the share.
pub(super) fn is_share(term: &Expr, fill: &Expr, shares: &[(Value, i64)]) -> bool {
    if term.has_aggregate() {
        return false;
    }
    shares.iter().all(|&(value, share)| {
        let env = Filled { fill, value };
        term.eval(&env) == Value::Int(share)
    })
}

/// Reads the fill expression (a parameter or an attribute) as `value`, nothing else.
struct Filled<'a> {
    fill: &'a Expr,
    value: Value,
}

impl Env for Filled<'_> {
    fn param(&self, index: u32) -> Value {
        match self.fill.kind {
            ExprKind::Param(i) if i == index => self.value,
            _ => Value::None,
        }
    }

    fn attr(&self, var: VarId, attr: AttrId) -> Value {
        match self.fill.kind {
            ExprKind::Attr(v, a) if (v, a) == (var, attr) => self.value,
            _ => Value::None,
        }
    }

    fn aggregate(&self, _: &Aggregate) -> Value {
        Value::None
    }
}
