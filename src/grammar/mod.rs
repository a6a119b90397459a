//! A checked rule file: types, value domain, start graph, rules and final condition.

pub mod puzzle;

use std::sync::Arc;

use crate::diag::{Source, Span};
use crate::layer::apply::{add_layers, Named};
use crate::layer::{Layer, LayerBase, Layers};
use crate::model::{AttrId, Domain, Graph, NodeId, NodeNames, NodeTypeId, TypeSystem, Value};
use crate::rule::{Condition, Pattern, Rule};

/// The cells made by `grid RxC of T`: the order puzzles and `start` blocks fill them in.
///
/// A grid has rows x columns *positions*; with `shape { ... }` some of them are holes,
/// which have no node. Puzzle lines and `start` blocks give a token per position (a hole's
/// is ignored); [`Givens`] and `cells` hold the cells only.
#[derive(Clone, Debug)]
pub struct Grid {
    /// Rows, counted from 1 in names (`r1c1`).
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// The cells, row-major, holes skipped. Without holes, cell (r, c), 1-based, is
    /// `cells[(r - 1) * cols + (c - 1)]`.
    pub cells: Vec<NodeId>,
    /// One entry per position, row-major: the cell there, `None` at a hole.
    pub layout: Vec<Option<NodeId>>,
    /// The type of an empty cell.
    pub cell_type: NodeTypeId,
    /// `grid ... given T`: a given cell becomes a node of type `T` (attributes of the same
    /// name are copied) instead of having its value attribute set.
    pub given_type: Option<NodeTypeId>,
    /// The attribute that holds a cell's value: of `given_type` when there is one, else of
    /// `cell_type`.
    pub value_attr: AttrId,
    /// Box shape (rows, columns) from `groups boxes RxC`, used to draw separators.
    pub boxes: Option<(u32, u32)>,
    /// The `grid` declaration, for diagnostics.
    pub span: Span,
}

impl Grid {
    /// The number of cells (rows times columns, less the holes).
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// The number of positions: rows times columns, holes included.
    pub fn area(&self) -> usize {
        self.layout.len()
    }

    /// True when `shape { ... }` left some position without a cell.
    pub fn has_holes(&self) -> bool {
        self.cells.len() != self.layout.len()
    }

    /// True when the position at row-major index `pos` is a hole.
    pub fn is_hole(&self, pos: usize) -> bool {
        matches!(self.layout.get(pos), Some(None))
    }

    /// The 0-based row and column of `cell`; `None` when it is not a grid cell.
    pub fn position_of(&self, cell: NodeId) -> Option<(usize, usize)> {
        let cols = (self.cols as usize).max(1);
        let pos = self.layout.iter().position(|&c| c == Some(cell))?;
        Some((pos / cols, pos % cols))
    }

    /// The cell at 0-based row `r` and column `c`; `None` at a hole or outside the grid.
    pub fn cell_at(&self, r: usize, c: usize) -> Option<NodeId> {
        if r >= self.rows as usize || c >= self.cols as usize {
            return None;
        }
        self.layout
            .get(r * self.cols as usize + c)
            .copied()
            .flatten()
    }

    /// True for a grid without cells.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

/// The givens of a `start` block or of one puzzle line: one entry per grid cell.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Givens {
    /// The domain index of each cell's given value, `None` for an empty cell.
    pub values: Vec<Option<u16>>,
    /// Where each cell's character stands, for diagnostics.
    pub spans: Vec<Span>,
}

/// Everything a rule file says, checked and with every generator expanded.
#[derive(Clone, Debug)]
pub struct Grammar {
    /// The rule file, for diagnostics. Shared, with the other parts no layer changes: a
    /// layered puzzle's grammar copies only the base graph, and its names where a layer
    /// adds nodes.
    pub source: Arc<Source>,
    /// The values (`values 1..9`, `values a b c`), by index.
    pub domain: Arc<Domain>,
    /// Node types with their attributes, and edge labels.
    pub types: Arc<TypeSystem>,
    /// The start graph before givens are placed.
    pub base: Graph,
    /// The name of each node of `base` (`r1c1`, `row1`, `box3`, `centre`, ...).
    pub names: NodeNames,
    /// The cells of `grid RxC of T`, when the file has a grid.
    pub grid: Option<Grid>,
    /// The `start` block's givens, when the file has one.
    pub start: Option<Givens>,
    /// The rules, in declaration order.
    pub rules: Arc<Vec<Rule>>,
    /// `final:`; absent means GROOVE's default: a state where no rule applies.
    pub final_cond: Option<Arc<Condition>>,
    /// `forbid { ... }`: a state where one of these patterns matches is pruned (it has no
    /// successors and is not final).
    pub forbids: Arc<Vec<Pattern>>,
    /// What the file probably does not mean (an unused declaration, a rule that can never
    /// apply, one that grows forever); loading succeeds with them.
    pub warnings: Arc<Vec<crate::diag::Diagnostic>>,
    /// The layers a puzzle line may carry, in declaration order (`layer NAME: ...`).
    pub layers: Arc<Vec<Layer>>,
    /// When the file gives its own puzzle layer content (`layer NAME: ... = { ... }`, added
    /// to `base`), the base graph without it, from which puzzle lines start.
    pub layer_base: Option<Box<LayerBase>>,
}

impl Grammar {
    /// The base graph a puzzle's layers are added to: the file's without its own layer
    /// content, where it has some.
    pub fn bare_graph(&self) -> &Graph {
        self.layer_base.as_ref().map_or(&self.base, |b| &b.graph)
    }

    /// The grammar of one puzzle: this one with `layers` added to its base graph (read and
    /// checked against this grammar, so every token fits), in place of the file's own layer
    /// content if it has any. Costs a copy of the base graph, and of its names where the
    /// layers add nodes (the rest is shared); when `layers` is empty and the file has no
    /// layer content, `self` is that grammar.
    pub fn with_layers(&self, layers: &Layers) -> Grammar {
        // A puzzle's layers replace the file's own, as its givens replace `start`: the base
        // graph is copied once, from where the puzzle starts (the names on a layer's first
        // node).
        let (base, names) = match &self.layer_base {
            Some(bare) => (&bare.graph, &bare.names),
            None => (&self.base, &self.names),
        };
        let mut g = Grammar {
            source: self.source.clone(),
            domain: self.domain.clone(),
            types: self.types.clone(),
            base: base.clone(),
            names: names.clone(),
            grid: self.grid.clone(),
            start: self.start.clone(),
            rules: self.rules.clone(),
            final_cond: self.final_cond.clone(),
            forbids: self.forbids.clone(),
            warnings: self.warnings.clone(),
            layers: self.layers.clone(),
            layer_base: self.layer_base.clone(),
        };
        if let Some(grid) = &self.grid {
            let mut named = Named {
                graph: &mut g.base,
                names: &mut g.names,
                types: &self.types,
            };
            add_layers(&self.layers, layers, &grid.cells, &mut named);
        }
        g
    }

    /// The start graph: the base graph with `givens` (or the file's `start` block) placed.
    /// A puzzle with layers starts from [`Grammar::with_layers`]'s base graph instead.
    pub fn start_graph(&self, givens: Option<&Givens>) -> Graph {
        let mut graph = self.base.clone();
        let (Some(grid), Some(givens)) = (&self.grid, givens.or(self.start.as_ref())) else {
            return graph;
        };
        for (&cell, value) in grid.cells.iter().zip(&givens.values) {
            let Some(x) = value else { continue };
            match grid.given_type {
                None => graph.set_attr(cell, grid.value_attr, Value::Val(*x)),
                Some(t) => {
                    let old = self.types.node(graph.ty(cell));
                    let new = self.types.node(t);
                    let mut attrs = smallvec::SmallVec::from_elem(Value::None, new.attrs.len());
                    for (i, a) in new.attrs.iter().enumerate() {
                        if let Some(j) = old.attr(&a.name) {
                            attrs[i] = graph.attr(cell, j);
                        }
                    }
                    attrs[grid.value_attr.index()] = Value::Val(*x);
                    graph.retype(cell, t, attrs);
                }
            }
        }
        graph
    }
}
