//! The type graph: node types with attributes and single inheritance, and edge labels.

use super::ids::{AttrId, LabelId, NodeTypeId};
use crate::diag::Span;

/// What an attribute or a rule parameter may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AttrType {
    pub base: BaseType,
    /// `?`: the attribute may be `none`.
    pub optional: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BaseType {
    Int,
    /// A member of the grammar's value domain.
    Value,
    Bool,
}

impl std::fmt::Display for AttrType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let base = match self.base {
            BaseType::Int => "int",
            BaseType::Value => "value",
            BaseType::Bool => "bool",
        };
        write!(f, "{base}{}", if self.optional { "?" } else { "" })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttrDef {
    pub name: String,
    pub ty: AttrType,
}

#[derive(Clone, Debug)]
pub struct NodeType {
    pub name: String,
    pub parent: Option<NodeTypeId>,
    /// Every attribute, inherited ones first, so an `AttrId` of a supertype is valid in
    /// all its subtypes.
    pub attrs: Vec<AttrDef>,
    pub span: Span,
}

impl NodeType {
    pub fn attr(&self, name: &str) -> Option<AttrId> {
        self.attrs
            .iter()
            .position(|a| a.name == name)
            .map(AttrId::from_index)
    }
}

#[derive(Clone, Debug)]
pub struct EdgeLabel {
    pub name: String,
    pub source: NodeTypeId,
    pub target: NodeTypeId,
    pub span: Span,
}

/// All declared types and labels, with the subtype relation precomputed.
#[derive(Clone, Debug, Default)]
pub struct TypeSystem {
    pub nodes: Vec<NodeType>,
    pub labels: Vec<EdgeLabel>,
    /// `subtype[a * n + b]`: `a` is `b` or inherits from it.
    subtype: Vec<bool>,
}

impl TypeSystem {
    /// Builds the subtype table; call once after all types are added. Parents must be
    /// declared (checked by the caller) and acyclic.
    pub fn new(nodes: Vec<NodeType>, labels: Vec<EdgeLabel>) -> TypeSystem {
        let n = nodes.len();
        let mut subtype = vec![false; n * n];
        for a in 0..n {
            let mut t = Some(NodeTypeId::from_index(a));
            let mut steps = 0;
            while let Some(cur) = t {
                subtype[a * n + cur.index()] = true;
                t = nodes[cur.index()].parent;
                steps += 1;
                if steps > n {
                    break; // a cycle; the checker reports it
                }
            }
        }
        TypeSystem {
            nodes,
            labels,
            subtype,
        }
    }

    #[inline]
    pub fn is_subtype(&self, a: NodeTypeId, b: NodeTypeId) -> bool {
        self.subtype[a.index() * self.nodes.len() + b.index()]
    }

    pub fn node(&self, t: NodeTypeId) -> &NodeType {
        &self.nodes[t.index()]
    }

    pub fn label(&self, l: LabelId) -> &EdgeLabel {
        &self.labels[l.index()]
    }

    pub fn find_node(&self, name: &str) -> Option<NodeTypeId> {
        self.nodes
            .iter()
            .position(|t| t.name == name)
            .map(NodeTypeId::from_index)
    }

    pub fn find_label(&self, name: &str) -> Option<LabelId> {
        self.labels
            .iter()
            .position(|l| l.name == name)
            .map(LabelId::from_index)
    }
}
