//! Slot-filling grammars: every rule fills one empty cell, by setting one attribute or by
//! replacing the cell with a new node, all in the same way. Each validator returns the
//! spanned refusal the packed slot engine reports when it cannot take the grammar.

use crate::diag::Span;
use crate::grammar::Grammar;
use crate::model::{AttrId, BaseType, NodeTypeId, TypeSystem, VarId};
use crate::rule::{Effect, Expr, ExprKind, Rule};

use super::refusal::{refuse, Refusal, RefusalKind};

/// The most values a slot grammar may have (the widest mask).
pub const MAX_VALUES: usize = 128;

/// What a rule does to the cell it fills.
pub struct Target<'r> {
    /// The left-side variable of the cell.
    pub c: VarId,
    /// The slot's attribute: the cell's own, or the value attribute of the created node.
    pub attr: AttrId,
    /// The value placed.
    pub value: &'r Expr,
    /// For `del c` + `new m: T { ... }`: the created type and its attribute assignments.
    pub created: Option<(NodeTypeId, &'r [(AttrId, Expr)])>,
}

/// How a slot grammar's rules fill cells: per rule, its target.
pub struct SlotFill<'g> {
    pub targets: Vec<Target<'g>>,
    /// Set when rules replace cells: the created type and its value attribute.
    pub replaced: Option<(NodeTypeId, AttrId)>,
}

pub fn not_slot<T>(span: Span, reason: impl Into<String>) -> Result<T, Refusal> {
    refuse(span, RefusalKind::NotSlot, reason)
}

/// Recognises a slot-filling grammar: the named checks in order, the first refusal wins.
pub fn slot_fill(g: &Grammar) -> Result<SlotFill<'_>, Refusal> {
    check_domain(g)?;
    check_has_rules(g)?;
    check_no_aggregates(g)?;
    let targets = g
        .rules
        .iter()
        .map(|r| target_of(&g.types, r))
        .collect::<Result<Vec<_>, _>>()?;
    let replaced = check_same_way(g, &targets)?;
    Ok(SlotFill { targets, replaced })
}

/// Masks hold 1 to [`MAX_VALUES`] values.
fn check_domain(g: &Grammar) -> Result<(), Refusal> {
    let d = g.domain.len();
    if d == 0 || d > MAX_VALUES {
        return not_slot(
            Span::default(),
            format!("the slot engine handles 1 to {MAX_VALUES} values, the domain has {d}"),
        );
    }
    Ok(())
}

fn check_has_rules(g: &Grammar) -> Result<(), Refusal> {
    if g.rules.is_empty() {
        return not_slot(Span::default(), "there are no rules");
    }
    Ok(())
}

/// The slot engine's tables hold values cell by cell; an aggregate reads many cells at once.
/// NACs may hold aggregates (the compiler takes those over the filled cell's group, see
/// [`crate::slot::group`]); a rule's own pattern and its effects may not.
fn check_no_aggregates(g: &Grammar) -> Result<(), Refusal> {
    for r in g.rules.iter() {
        let effects = r.effects.iter().flat_map(|e| match e {
            Effect::Set { value, .. } => vec![value],
            Effect::NewNode { attrs, .. } => attrs.iter().map(|(_, x)| x).collect(),
            _ => Vec::new(),
        });
        let found = r.lhs.conds.iter().chain(effects).find_map(first_aggregate);
        if let Some(e) = found {
            let ExprKind::Aggregate(a) = &e.kind else {
                continue;
            };
            return not_slot(
                e.span,
                format!(
                    "rule `{}` uses `{}(...)` outside a NAC: the slot engine evaluates aggregates only in NACs, the graph engine everywhere",
                    r.name,
                    a.op.name()
                ),
            );
        }
    }
    Ok(())
}

/// The first aggregate in `e`, as the expression that stands for it.
fn first_aggregate(e: &Expr) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Aggregate(_) => Some(e),
        ExprKind::Unary(_, x) | ExprKind::ToInt(x, _) | ExprKind::ToValue(x, _) => {
            first_aggregate(x)
        }
        ExprKind::Binary(_, x, y) => first_aggregate(x).or_else(|| first_aggregate(y)),
        ExprKind::Const(_) | ExprKind::Param(_) | ExprKind::Attr(..) => None,
    }
}

/// Every rule fills cells the same way: all set an attribute, or all replace the cell by a
/// node of the same type. Returns the replacement's type and value attribute, if any.
fn check_same_way(
    g: &Grammar,
    targets: &[Target],
) -> Result<Option<(NodeTypeId, AttrId)>, Refusal> {
    let way = |t: &Target| t.created.map(|(ty, _)| (ty, t.attr));
    let replaced = way(&targets[0]);
    for (r, t) in g.rules.iter().zip(targets) {
        if way(t) != replaced {
            return not_slot(
                r.span,
                "the rules fill cells in different ways (setting an attribute, or replacing the cell by nodes of different types)",
            );
        }
    }
    Ok(replaced)
}

/// A rule's effects as a slot fill, or why they are not one.
pub fn target_of<'r>(types: &TypeSystem, r: &'r Rule) -> Result<Target<'r>, Refusal> {
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
