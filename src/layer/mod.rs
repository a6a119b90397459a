//! Per-puzzle layers: what a rule file declares a puzzle line may carry beside its givens
//! (regions, attributes, lines of cells), the content one line gives, and the start graph
//! that content makes.
//!
//! A layer is declared once (`layer cages: regions of Cage`, checked by `check`); a puzzle
//! line's section `cages: AABB...` is read into [`Content`] and checked against the grid
//! (`puzzle::sections`); [`Grammar::with_layers`](crate::grammar::Grammar::with_layers) adds
//! what the content makes to the base graph as plain nodes, edges and attribute values
//! ([`apply`]), so every engine and `grafter expand` see an ordinary start graph.

pub mod apply;

use crate::diag::Span;
use crate::model::{
    AttrId, AttrType, Graph, LabelId, NodeId, NodeNames, NodeTypeId, TypeSystem, Value,
};

/// A checked `layer NAME: ...` declaration.
#[derive(Clone, Debug)]
pub struct Layer {
    /// The name a puzzle line's section starts with (`cages` in `cages: AABB`).
    pub name: String,
    /// What a section's tokens make.
    pub kind: LayerKind,
    /// The declaration, for diagnostics.
    pub span: Span,
}

/// What a layer's tokens make.
#[derive(Clone, Debug)]
pub enum LayerKind {
    /// `regions of T [via L]`: one token per cell; cells with the same token share a node of
    /// `ty` named `NAME_TOKEN`, with a `label` edge from each; `.` is no region.
    Regions {
        /// The type of the region nodes.
        ty: NodeTypeId,
        /// The label of the edge from each cell to its region.
        label: LabelId,
    },
    /// `R.attr` for a regions layer `R`: one token per cell; a token at any cell of a region
    /// sets that region node's `attr`; `.` sets nothing.
    RegionAttr {
        /// The regions layer, by its index among the grammar's layers.
        regions: usize,
        /// The attribute set.
        attr: AttrId,
        /// Its type, which each token must have.
        ty: AttrType,
    },
    /// `L.attr` for a lines layer `L`: one token per line of that layer, in order, setting
    /// the line node's `attr`; `.` sets nothing.
    LineAttr {
        /// The lines layer, by its index among the grammar's layers.
        lines: usize,
        /// The attribute set.
        attr: AttrId,
        /// Its type, which each token must have.
        ty: AttrType,
    },
    /// `attr`: one token per cell, setting the cell's attribute.
    CellAttr {
        /// The attribute set.
        attr: AttrId,
        /// Its type, which each token must have.
        ty: AttrType,
    },
    /// `rows.attr`, `columns.attr`: one token per node of `nodes`, setting its attribute.
    NodeAttr {
        /// `row1 ..` or `col1 ..`, in order.
        nodes: Vec<NodeId>,
        /// `row` or `column`, for messages.
        what: &'static str,
        /// The attribute set.
        attr: AttrId,
        /// Its type, which each token must have.
        ty: AttrType,
    },
    /// `lines of T [via L] [next L]`: lines of cell names separated by `,`; each line is a
    /// node of `ty` named `NAME_1`, `NAME_2`, ... with a `label` edge from each member and,
    /// with `next`, a `next` edge from each member to the one after it.
    Lines {
        /// The type of the line nodes.
        ty: NodeTypeId,
        /// The label of the edge from each member to its line.
        label: LabelId,
        /// The label of the edge from each member to the next, if any.
        next: Option<LabelId>,
    },
}

/// The node types and attributes `layers` set on nodes of the base graph `base` (whose
/// grid's cells are `cells`), sorted, each once.
pub fn base_write_types(
    layers: &[Layer],
    cells: &[NodeId],
    base: &Graph,
) -> Vec<(NodeTypeId, AttrId)> {
    let mut writes: Vec<_> = (layers.iter())
        .filter_map(|l| l.kind.base_writes(cells))
        .flat_map(|(nodes, attr)| nodes.iter().map(move |&n| (base.ty(n), attr)))
        .collect();
    writes.sort_unstable();
    writes.dedup();
    writes
}

/// Whether some layer of `writes` ([`base_write_types`]) sets `attr` on nodes that a
/// node of type `ty` may be.
pub fn sets_on(
    writes: &[(NodeTypeId, AttrId)],
    types: &TypeSystem,
    ty: NodeTypeId,
    attr: AttrId,
) -> bool {
    (writes.iter()).any(|&(t, a)| a == attr && types.is_subtype(t, ty))
}

impl LayerKind {
    /// The nodes of the base graph this layer sets an attribute on (the grid's `cells`, or
    /// its row or column nodes), with the attribute; `None` for a layer that draws regions
    /// or lines, or sets an attribute of their nodes.
    pub fn base_writes<'a>(&'a self, cells: &'a [NodeId]) -> Option<(&'a [NodeId], AttrId)> {
        match self {
            LayerKind::CellAttr { attr, .. } => Some((cells, *attr)),
            LayerKind::NodeAttr { nodes, attr, .. } => Some((&nodes[..], *attr)),
            LayerKind::Regions { .. }
            | LayerKind::Lines { .. }
            | LayerKind::RegionAttr { .. }
            | LayerKind::LineAttr { .. } => None,
        }
    }

    /// What one section of this layer holds, for messages ("one token per cell").
    pub fn describe(&self) -> String {
        match self {
            LayerKind::Regions { .. } => "one region name per cell".to_string(),
            LayerKind::RegionAttr { .. } | LayerKind::CellAttr { .. } => {
                "one token per cell".to_string()
            }
            LayerKind::NodeAttr { what, .. } => format!("one token per {what}"),
            LayerKind::LineAttr { .. } => "one token per line".to_string(),
            LayerKind::Lines { .. } => "lines of cell names separated by `,`".to_string(),
        }
    }
}

/// What one puzzle line gives its layers, in the grammar's declaration order; `None` where
/// the line has no section for a layer (the layer is then empty).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layers {
    /// One entry per declared layer.
    pub sections: Vec<Option<Content>>,
}

impl Layers {
    /// True when no layer has content: the puzzle's start graph is the rule file's.
    pub fn is_empty(&self) -> bool {
        self.sections.iter().all(Option::is_none)
    }
}

/// The content of one section, checked against the grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    /// Per cell, its region (an index into `names`, the regions' tokens in the order
    /// they first appear); `None` for no region.
    Regions {
        /// The regions' tokens (`A`, `3`).
        names: Vec<String>,
        /// Per cell, its region's number.
        cells: Vec<Option<u32>>,
    },
    /// Per cell (or per row or column node, or per line), the value to set; `None` sets
    /// nothing.
    Values(Vec<Option<Value>>),
    /// Each line's members, as indices into the grid's cells, in order.
    Lines(Vec<Vec<usize>>),
}

/// The base graph without the file's own layer content (`layer NAME: ... = { ... }`), from
/// which every puzzle line's start graph is built: a line's layers replace the file's, as
/// its givens replace the `start` block's.
#[derive(Clone, Debug)]
pub struct LayerBase {
    /// The base graph before the file's layer content was added.
    pub graph: Graph,
    /// The name of each of its nodes.
    pub names: NodeNames,
}
