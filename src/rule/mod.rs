//! Rules: a left-hand pattern with NACs and the effects applied to each match.

pub mod expr;
pub mod pattern;

pub use expr::{AggId, AggOp, Aggregate, BinOp, Env, Expr, ExprKind, Fold, UnOp};
pub use pattern::{Condition, PatEdge, PatNode, PathExpr, Pattern};

use crate::diag::Span;
use crate::model::{AttrId, AttrType, LabelId, NodeTypeId, VarId};

/// A rule parameter. Parameters range over the value domain: a match binds each one to a
/// value, and distinct values make distinct matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub ty: AttrType,
    pub span: Span,
}

/// One change a rule makes. Expressions are evaluated on the graph before any change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// `set c.val = expr`.
    Set {
        var: VarId,
        attr: AttrId,
        value: Expr,
        span: Span,
    },
    /// `new n: T { a = expr, ... }`: creates a node bound to `var` (numbered after the
    /// left side's variables) for later effects. Attributes not given start as `none`.
    NewNode {
        var: VarId,
        ty: NodeTypeId,
        attrs: Vec<(AttrId, Expr)>,
        span: Span,
    },
    /// `del c`: deletes the node and every edge touching it.
    DelNode { var: VarId, span: Span },
    /// `new a -l-> b`.
    NewEdge {
        src: VarId,
        label: LabelId,
        tgt: VarId,
        span: Span,
    },
    /// `del a -l-> b`.
    DelEdge {
        src: VarId,
        label: LabelId,
        tgt: VarId,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub name: String,
    pub params: Vec<Param>,
    /// The left side; its NACs are `lhs.nacs`.
    pub lhs: Pattern,
    /// Applied in this order: sets, edge deletions, node deletions, node creations, edge
    /// creations (the checker sorts them so).
    pub effects: Vec<Effect>,
    pub span: Span,
}

impl Rule {
    /// True when applying the rule can change the set of nodes.
    pub fn changes_nodes(&self) -> bool {
        self.effects
            .iter()
            .any(|e| matches!(e, Effect::NewNode { .. } | Effect::DelNode { .. }))
    }

    /// True when applying the rule can create nodes.
    pub fn creates_nodes(&self) -> bool {
        self.effects
            .iter()
            .any(|e| matches!(e, Effect::NewNode { .. }))
    }

    /// True when a condition of its pattern or NACs, or an expression of its effects,
    /// holds an aggregate.
    pub fn has_aggregate(&self) -> bool {
        self.lhs.has_aggregate()
            || self.effects.iter().any(|e| match e {
                Effect::Set { value, .. } => value.has_aggregate(),
                Effect::NewNode { attrs, .. } => attrs.iter().any(|(_, x)| x.has_aggregate()),
                _ => false,
            })
    }

    /// True when applying the rule can change the set of edges (node deletion removes
    /// incident edges too).
    pub fn changes_edges(&self) -> bool {
        self.effects.iter().any(|e| {
            matches!(
                e,
                Effect::NewEdge { .. } | Effect::DelEdge { .. } | Effect::DelNode { .. }
            )
        })
    }
}
