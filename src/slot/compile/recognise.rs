//! Recognition on the start graph: whether each given fills a slot as a rule would (the
//! rules themselves are recognised by [`crate::analysis::slot_fill`]).

use crate::analysis::slot_fill::not_slot;
use crate::analysis::{open, Refusal};
use crate::grammar::Grammar;
use crate::model::{NodeId, NodeTypeId, Value, VarId};
use crate::rule::Pattern;

use super::super::model::SlotModel;

/// Givens (of the `start` block or of a puzzle line) are placed as filled slots, so a given
/// must make the same graph as a rule filling its cell: it sets the slot attribute of a
/// cell whose type it keeps, or, where rules replace cells, retypes the cell to the created
/// type with the attributes the rule would give it.
pub(super) fn check_givens(g: &Grammar, model: &SlotModel) -> Result<(), Refusal> {
    let Some(grid) = &g.grid else {
        return Ok(());
    };
    let refuse = |cell: NodeId, why: &str| {
        let name = g.names.get(cell.index()).unwrap_or_default().to_owned();
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

/// The type of a variable in a rule whose left side is `lhs` and which is inside `nac`.
pub(super) fn var_type(lhs: &Pattern, nac: Option<&Pattern>, v: VarId) -> NodeTypeId {
    open::var_type(lhs, nac, v).expect("variable of the rule")
}
