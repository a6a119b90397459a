//! A puzzle's node attributes as the narrowing of layered puzzles reads them: from a
//! built graph, or from the rule file's graph and the values the puzzle's layers set.
//!
//! An even/odd puzzle's layer only sets a mark on some cells; the narrowing reads each
//! cell's marks and, for marks not seen before, evaluates the rule's left side on the
//! puzzle's graph. Reading the marks from the layers leaves that graph unbuilt for every
//! puzzle whose marks are all known: copying the base graph was a quarter of an even/odd
//! 9x9's time.

use crate::grammar::puzzle::PuzzleGrammar;
use crate::grammar::Grammar;
use crate::layer::{Content, LayerKind};
use crate::model::{AttrId, Graph, NodeId, Value};

/// A start graph's node attributes, and the graph itself when a condition must be
/// evaluated on it.
pub trait Marks {
    /// Node `n`'s attribute `a`: none when the node's type lacks it.
    fn mark(&self, n: NodeId, a: AttrId) -> Value;
    fn graph(&self) -> &Graph;
}

impl Marks for Graph {
    fn mark(&self, n: NodeId, a: AttrId) -> Value {
        self.node(n)
            .attrs
            .get(a.index())
            .copied()
            .unwrap_or(Value::None)
    }

    fn graph(&self) -> &Graph {
        self
    }
}

/// Whether every layer of `g` only sets attributes of the base graph's nodes (cells, rows,
/// columns): marks, no node or edge added.
pub fn marks_only(g: &Grammar) -> bool {
    (g.layers.iter()).all(|l| {
        matches!(
            l.kind,
            LayerKind::CellAttr { .. } | LayerKind::NodeAttr { .. }
        )
    })
}

/// Where each layer that sets node attributes sets them: per declared layer, by node
/// index, the position of the node's token in a puzzle line's section (`u32::MAX` where
/// it has none). The same for every puzzle of a file.
#[derive(Debug)]
pub struct LayerPositions {
    of_layer: Vec<Option<(AttrId, Vec<u32>)>>,
}

impl LayerPositions {
    pub fn of(g: &Grammar) -> LayerPositions {
        let nodes = g
            .layer_base
            .as_ref()
            .map_or(&g.base, |b| &b.graph)
            .capacity();
        let of_layer = (g.layers.iter())
            .map(|layer| {
                let (attr, targets) = match (&layer.kind, &g.grid) {
                    (LayerKind::CellAttr { attr, .. }, Some(grid)) => (*attr, &grid.cells),
                    (LayerKind::NodeAttr { attr, nodes, .. }, _) => (*attr, nodes),
                    _ => return None,
                };
                let mut at = vec![u32::MAX; nodes];
                for (i, n) in targets.iter().enumerate() {
                    at[n.index()] = i as u32;
                }
                Some((attr, at))
            })
            .collect();
        LayerPositions { of_layer }
    }
}

/// A puzzle's node attributes: those of the graph its layers start from, with the values
/// they set on its nodes (cells, rows, columns) in their place.
pub struct PuzzleMarks<'a> {
    start: &'a Graph,
    /// Per layer that sets node attributes, in declaration order (a later one for the
    /// same attribute of a node wins, as in the graph).
    set: Vec<LayerMarks<'a>>,
    puzzle: &'a PuzzleGrammar<'a>,
}

/// The values one layer of a puzzle's line sets.
struct LayerMarks<'a> {
    attr: AttrId,
    /// By node index, the position of its value in `values`.
    at: &'a [u32],
    values: &'a [Option<Value>],
}

impl<'a> PuzzleMarks<'a> {
    /// `puzzle`'s marks, its layers' positions `at` (of its rule file); `None` when its
    /// layers add nodes (regions, lines), whose attributes only its graph holds.
    pub fn of(puzzle: &'a PuzzleGrammar<'a>, at: &'a LayerPositions) -> Option<PuzzleMarks<'a>> {
        let g = puzzle.file();
        let start = g.bare_graph();
        let mut set = Vec::new();
        // As `Grammar::with_layers`: a file without a grid takes no layer content.
        if g.grid.is_some() {
            let sections = (at.of_layer.iter()).zip(&puzzle.layers().sections);
            for (positions, content) in sections {
                match (positions, content) {
                    (_, None) => {}
                    (Some((attr, at)), Some(Content::Values(values))) => set.push(LayerMarks {
                        attr: *attr,
                        at,
                        values,
                    }),
                    _ => return None,
                }
            }
        }
        Some(PuzzleMarks { start, set, puzzle })
    }
}

impl Marks for PuzzleMarks<'_> {
    fn mark(&self, n: NodeId, a: AttrId) -> Value {
        let layered = (self.set.iter().rev())
            .filter(|layer| layer.attr == a)
            .find_map(|layer| *layer.values.get(*layer.at.get(n.index())? as usize)?);
        layered.unwrap_or_else(|| self.start.mark(n, a))
    }

    /// The puzzle's graph, built on the first call.
    fn graph(&self) -> &Graph {
        &self.puzzle.get().base
    }
}
