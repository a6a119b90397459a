//! Recognition: whether each rule and each given fills a slot; the refusals say why not.

use crate::grammar::Grammar;
use crate::model::{AttrId, BaseType, NodeId, NodeTypeId, TypeSystem, Value, VarId};
use crate::rule::{BinOp, Effect, Expr, ExprKind, Pattern, Rule};

use super::super::model::SlotModel;
use super::{not_slot, NotSlot};

/// What a rule does to the cell it fills.
pub(super) struct Target<'r> {
    /// The left-side variable of the cell.
    pub(super) c: VarId,
    /// The slot's attribute: the cell's own, or the value attribute of the created node.
    pub(super) attr: AttrId,
    /// The value placed.
    pub(super) value: &'r Expr,
    /// For `del c` + `new m: T { ... }`: the created type and its attribute assignments.
    pub(super) created: Option<(NodeTypeId, &'r [(AttrId, Expr)])>,
}

/// A rule's effects as a slot fill, or why they are not one.
pub(super) fn target_of<'r>(types: &TypeSystem, r: &'r Rule) -> Result<Target<'r>, NotSlot> {
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

/// Givens (of the `start` block or of a puzzle line) are placed as filled slots, so a given
/// must make the same graph as a rule filling its cell: it sets the slot attribute of a
/// cell whose type it keeps, or, where rules replace cells, retypes the cell to the created
/// type with the attributes the rule would give it.
pub(super) fn check_givens(g: &Grammar, model: &SlotModel) -> Result<(), NotSlot> {
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

/// True when `e` is `c.attr == none` (either way round).
pub(super) fn is_none_check(e: &Expr, c: VarId, attr: AttrId) -> bool {
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
pub(super) fn var_type(lhs: &Pattern, nac: Option<&Pattern>, v: VarId) -> NodeTypeId {
    lhs.node(v)
        .or_else(|| nac.and_then(|n| n.node(v)))
        .map(|n| n.ty)
        .expect("variable of the rule")
}
