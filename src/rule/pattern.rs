//! Graph patterns: the left side of a rule, its NACs, and graph conditions.

use crate::diag::Span;
use crate::model::{LabelId, NodeTypeId, VarId};

use super::expr::Expr;

/// A node of a pattern, bound to variable `bound + i` for the i-th node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PatNode {
    pub name: String,
    pub ty: NodeTypeId,
    pub span: Span,
}

/// A regular expression over edge labels, read from the source node to the target node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathExpr {
    Label(LabelId),
    /// The expression read backwards: `~gr` follows `gr` edges from target to source.
    Inverse(Box<PathExpr>),
    Seq(Vec<PathExpr>),
    Alt(Vec<PathExpr>),
    Star(Box<PathExpr>),
    Plus(Box<PathExpr>),
    Opt(Box<PathExpr>),
}

impl PathExpr {
    /// The label when the expression is one plain edge.
    pub fn as_label(&self) -> Option<LabelId> {
        match self {
            PathExpr::Label(l) => Some(*l),
            _ => None,
        }
    }
}

/// `src -path-> tgt`. A plain label is one edge; anything else is a path of edges.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PatEdge {
    pub src: VarId,
    pub tgt: VarId,
    pub path: PathExpr,
    pub span: Span,
}

/// A pattern. Variables `0..bound` belong to enclosing patterns (a NAC sees the rule's
/// nodes); this pattern's own nodes are `bound..bound + nodes.len()`. Matching is
/// injective: distinct variables take distinct host nodes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    pub bound: u32,
    pub nodes: Vec<PatNode>,
    pub edges: Vec<PatEdge>,
    /// Conditions over attributes and parameters; all must hold.
    pub conds: Vec<Expr>,
    /// Negative application conditions: a match is rejected when any NAC extends it.
    pub nacs: Vec<Pattern>,
    pub span: Span,
}

impl Pattern {
    /// This pattern with every span the empty one (see [`Expr::without_spans`]).
    pub fn without_spans(&self) -> Pattern {
        Pattern {
            bound: self.bound,
            nodes: self
                .nodes
                .iter()
                .map(|n| PatNode {
                    span: Span::default(),
                    ..n.clone()
                })
                .collect(),
            edges: self
                .edges
                .iter()
                .map(|e| PatEdge {
                    span: Span::default(),
                    ..e.clone()
                })
                .collect(),
            conds: self.conds.iter().map(Expr::without_spans).collect(),
            nacs: self.nacs.iter().map(Pattern::without_spans).collect(),
            span: Span::default(),
        }
    }

    /// One past the last variable this pattern binds.
    pub fn var_end(&self) -> u32 {
        self.bound + self.nodes.len() as u32
    }

    /// The variables this pattern binds itself.
    pub fn own_vars(&self) -> impl Iterator<Item = VarId> {
        (self.bound..self.var_end()).map(VarId)
    }

    pub fn node(&self, v: VarId) -> Option<&PatNode> {
        v.0.checked_sub(self.bound)
            .and_then(|i| self.nodes.get(i as usize))
    }

    /// The number of variables needed to match this pattern, every nested NAC and every
    /// aggregate of its conditions.
    pub fn depth(&self) -> u32 {
        let conds = self.conds.iter().map(Expr::depth);
        self.nacs
            .iter()
            .map(Pattern::depth)
            .chain(conds)
            .fold(self.var_end(), u32::max)
    }

    /// Calls `f` on every attribute its conditions and nested NACs read (inside aggregates,
    /// of enclosing variables only).
    pub fn visit_attrs(&self, f: &mut dyn FnMut(VarId, crate::model::AttrId)) {
        for c in &self.conds {
            c.visit_attrs(f);
        }
        for n in &self.nacs {
            n.visit_attrs(f);
        }
    }

    /// Calls `f` on every variable its edges, conditions and nested NACs depend on, its own
    /// included.
    pub fn visit_vars(&self, f: &mut dyn FnMut(VarId)) {
        for e in &self.edges {
            f(e.src);
            f(e.tgt);
        }
        for c in &self.conds {
            c.visit_vars(f);
        }
        for n in &self.nacs {
            n.visit_vars(f);
        }
    }

    /// True when a condition here or in a nested NAC reads a rule parameter.
    pub fn reads_params(&self) -> bool {
        self.conds.iter().any(Expr::reads_params) || self.nacs.iter().any(Pattern::reads_params)
    }

    /// True when a condition here or in a nested NAC holds an aggregate.
    pub fn has_aggregate(&self) -> bool {
        self.conds.iter().any(Expr::has_aggregate) || self.nacs.iter().any(Pattern::has_aggregate)
    }
}

/// A graph condition, as used by `final:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// Holds when the pattern has a match.
    Exists(Pattern),
    Not(Box<Condition>),
    And(Vec<Condition>),
    Or(Vec<Condition>),
}
