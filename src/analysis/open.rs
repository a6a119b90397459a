//! Open cells and none checks: which conditions say an attribute is still empty, and which
//! expressions can never fill one with none.

use crate::model::{AttrId, BaseType, NodeTypeId, TypeSystem, Value, VarId};
use crate::rule::{BinOp, Expr, ExprKind, Pattern};

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

/// True when condition `c` (of `nac`, under left side `lhs`) fails whenever `d.a` is none.
pub fn implies_filled(
    types: &TypeSystem,
    lhs: &Pattern,
    nac: &Pattern,
    c: &Expr,
    d: VarId,
    a: AttrId,
) -> bool {
    let ExprKind::Binary(op, x, y) = &c.kind else {
        return false;
    };
    let is_target = |e: &Expr| e.kind == ExprKind::Attr(d, a);
    [(x, y), (y, x)].into_iter().any(|(p, q)| {
        is_target(p)
            && match op {
                // An ordering with none is undefined, which counts as false.
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => true,
                BinOp::Eq => never_none(types, lhs, Some(nac), q),
                BinOp::Ne => q.kind == ExprKind::Const(Value::None),
                _ => false,
            }
    })
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
        (ExprKind::Binary(o, x1, x2), ExprKind::Binary(p, y1, y2)) => {
            o == p && same_expr(x1, y1, from, to) && same_expr(x2, y2, from, to)
        }
        _ => false,
    }
}
