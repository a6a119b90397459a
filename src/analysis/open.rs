//! Open cells and none checks: which conditions say an attribute is still empty, and which
//! expressions can never fill one with none.

use crate::model::{AttrId, BaseType, NodeTypeId, TypeSystem, Value, VarId};
use crate::rule::{BinOp, Expr, ExprKind, Pattern, UnOp};

/// The attribute `a` when `c` is `v.a == none` (either way round).
pub fn none_check(c: &Expr, v: VarId) -> Option<AttrId> {
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

/// True when `e` is `c.attr == none` (either way round).
pub fn is_none_check(e: &Expr, c: VarId, attr: AttrId) -> bool {
    none_check(e, c) == Some(attr)
}

/// The type of variable `v` of a rule whose left side is `lhs`, inside `nac` when given.
pub fn var_type(lhs: &Pattern, nac: Option<&Pattern>, v: VarId) -> Option<NodeTypeId> {
    lhs.node(v)
        .or_else(|| nac.and_then(|p| p.node(v)))
        .map(|n| n.ty)
}

/// True when `e` can never be none: a parameter, a constant other than none, or an
/// attribute of type `value` that is not optional (values are never computed).
pub fn never_none(types: &TypeSystem, lhs: &Pattern, nac: Option<&Pattern>, e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Param(_) => true,
        ExprKind::Const(v) => !v.is_none(),
        ExprKind::Attr(v, a) => var_type(lhs, nac, *v).is_some_and(|ty| {
            let at = types.node(ty).attrs[a.index()].ty;
            at.base == BaseType::Value && !at.optional
        }),
        _ => false,
    }
}

/// True when condition `c` (of `nac`, under left side `lhs`) fails whenever `d.a` is none:
/// an ordering or arithmetic that reads it (none propagates, and a condition that is none
/// counts as false), `== e` with `e` never none, `!= none`, and conjunctions and
/// disjunctions of these.
pub fn implies_filled(
    types: &TypeSystem,
    lhs: &Pattern,
    nac: &Pattern,
    c: &Expr,
    d: VarId,
    a: AttrId,
) -> bool {
    let none_with = |e: &Expr| none_propagates(e, d, a);
    match &c.kind {
        ExprKind::Binary(BinOp::And, x, y) => {
            implies_filled(types, lhs, nac, x, d, a) || implies_filled(types, lhs, nac, y, d, a)
        }
        ExprKind::Binary(BinOp::Or, x, y) => {
            implies_filled(types, lhs, nac, x, d, a) && implies_filled(types, lhs, nac, y, d, a)
        }
        ExprKind::Binary(BinOp::Eq, x, y) => [(x, y), (y, x)]
            .into_iter()
            .any(|(p, q)| none_with(p) && never_none(types, lhs, Some(nac), q)),
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

/// True when `a` with variable `from` read as `to` is `b` (spans aside).
pub fn same_expr(a: &Expr, b: &Expr, from: VarId, to: VarId) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::Const(x), ExprKind::Const(y)) => x == y,
        (ExprKind::Param(x), ExprKind::Param(y)) => x == y,
        (ExprKind::Attr(v, x), ExprKind::Attr(w, y)) => {
            x == y && (if *v == from { *w == to } else { v == w })
        }
        (ExprKind::Unary(o, x), ExprKind::Unary(p, y)) => o == p && same_expr(x, y, from, to),
        (ExprKind::ToInt(x, s), ExprKind::ToInt(y, t))
        | (ExprKind::ToValue(x, s), ExprKind::ToValue(y, t)) => s == t && same_expr(x, y, from, to),
        (ExprKind::Binary(o, x1, x2), ExprKind::Binary(p, y1, y2)) => {
            o == p && same_expr(x1, y1, from, to) && same_expr(x2, y2, from, to)
        }
        _ => false,
    }
}
