//! "Final needs every open cell filled": reading `final: not { n: T ... }` as the set of
//! cells a final state must have filled.

use crate::diag::Span;
use crate::grammar::Grammar;
use crate::model::{AttrId, NodeTypeId, VarId};
use crate::rule::{Condition, Pattern};

use super::open::none_check;
use super::refusal::{refuse, Refusal, RefusalKind};

/// The open cells `final:` names: nodes of type `ty` matching `pattern` (variable 0), whose
/// attribute `none_attr`, when the pattern tests one, is none while they are open.
#[derive(Clone, Copy, Debug)]
pub struct Open<'g> {
    pub pattern: &'g Pattern,
    pub ty: NodeTypeId,
    pub none_attr: Option<AttrId>,
}

/// The pattern `p` when `c` is `not { p }`.
pub fn not_exists(c: &Condition) -> Option<&Pattern> {
    match c {
        Condition::Not(inner) => match inner.as_ref() {
            Condition::Exists(p) => Some(p),
            _ => None,
        },
        _ => None,
    }
}

/// The conjuncts of `final:` (one when it is not an `and`).
pub fn conjuncts(c: &Condition) -> Vec<&Condition> {
    match c {
        Condition::And(cs) => cs.iter().collect(),
        c => vec![c],
    }
}

/// When `c` is `not { n: T }` or `not { n: T { a == none } }` (one node, no edges, no
/// NACs): the pattern and the attribute it tests, if any.
pub fn fill_condition(c: &Condition) -> Option<(&Pattern, Option<AttrId>)> {
    let p = not_exists(c)?;
    if p.nodes.len() != 1 || !p.edges.is_empty() || !p.nacs.is_empty() {
        return None;
    }
    match p.conds.as_slice() {
        [] => Some((p, None)),
        [cond] => none_check(cond, VarId(p.bound)).map(|a| (p, Some(a))),
        _ => None,
    }
}

/// The one-node pattern of `final: not { n: T ... }` (alone or in an `and`): condition 1
/// of [`super::monotone`].
pub fn open_cells(g: &Grammar) -> Result<Open<'_>, Refusal> {
    let expected = "expected `final: not { n: T ... }` (alone or joined by `and`), saying that no node is left to fill";
    let refused = |span, reason: String| refuse(span, RefusalKind::NotMonotone, reason);
    let Some(cond) = &g.final_cond else {
        return refused(
            Span::default(),
            "there is no `final:` condition, so a final state need not have every node filled"
                .into(),
        );
    };
    let Some(p) = conjuncts(cond).into_iter().find_map(not_exists) else {
        return refused(
            Span::default(),
            format!("`final:` does not say which nodes must be filled: {expected}"),
        );
    };
    if p.nodes.len() != 1 || !p.edges.is_empty() || !p.nacs.is_empty() {
        return refused(
            p.span,
            format!("the open nodes of `final:` must be one node with conditions on its own attributes: {expected}"),
        );
    }
    if p.conds.iter().any(|c| c.max_var() > 1 || c.reads_params()) {
        return refused(
            p.span,
            format!("a condition of `final:` reads more than its node: {expected}"),
        );
    }
    Ok(Open {
        pattern: p,
        ty: p.nodes[0].ty,
        none_attr: p.conds.iter().find_map(|c| none_check(c, VarId(0))),
    })
}
