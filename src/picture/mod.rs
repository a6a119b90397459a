//! Pictures, as SVG written here (no external program): a grid graph as a puzzle board, any
//! graph laid out so it reads, and a run's state space; the state space also as Graphviz
//! DOT and in the Aldebaran `.aut` format of model checkers (CADP, mCRL2).
//!
//! What is drawn is decided from the graph — node types, edge labels, which cells a node
//! joins — and, for an edge between neighbours, from what the rules do with it (see
//! `meaning`), never from the names of rules or types.

mod board;
mod graph_picture;
mod lts;
mod lts_picture;
mod meaning;
mod structure;
mod svg;

pub use lts::{Lts, State, StateKind};

use std::collections::BTreeSet;

use crate::engine::Engine;
use crate::grammar::Grammar;
use crate::model::{Graph, NodeId};

/// A picture's elements and size, ready to stand alone ([`Panel::to_svg`]) or beside
/// others on a [`sheet`].
#[derive(Clone, Debug)]
pub struct Panel {
    /// Width in pixels.
    pub width: f64,
    /// Height in pixels.
    pub height: f64,
    body: String,
}

impl Panel {
    /// The picture as an SVG document.
    pub fn to_svg(&self) -> String {
        let mut doc = svg::Svg::new();
        doc.raw(&self.body);
        doc.finish(self.width, self.height)
    }
}

/// The board of `graph`, a state of `engine`'s grammar: the grid's cells at their places,
/// the values `start` held as givens (bold) and the others as placed (blue), every group
/// and every edge between cells marked, with a legend. `None` when the grammar has no
/// grid. A grid without group nodes shows the groups the rules imply instead (cells that
/// block each other pairwise, as the slot engine compiled them).
pub fn board(engine: &Engine, graph: &Graph, start: &Graph, title: &str) -> Option<Panel> {
    board::board(
        engine.grammar(),
        graph,
        start,
        &implied_groups(engine),
        title,
    )
}

/// Sets of two or more cells that the rules keep pairwise distinct (a NAC index whose
/// writers are its readers), for grammars that have no group nodes to show it.
fn implied_groups(engine: &Engine) -> Vec<Vec<NodeId>> {
    let Some(model) = engine.slot_model() else {
        return Vec::new();
    };
    let mut seen = BTreeSet::new();
    model
        .hubs
        .iter()
        .filter_map(|h| {
            let writers: BTreeSet<u32> = h.writers.iter().copied().collect();
            let readers: BTreeSet<u32> = h.readers.iter().copied().collect();
            (writers == readers && writers.len() >= 2).then(|| {
                let mut cells: Vec<NodeId> =
                    writers.iter().map(|&s| model.slots[s as usize].0).collect();
                cells.sort();
                cells.dedup();
                cells
            })
        })
        .filter(|cells| seen.insert(cells.clone()))
        .collect()
}

/// `graph` (a state of `grammar`) as nodes and edges: nodes with a row and column at their
/// place, group nodes beside their members, other nodes in a row per type; edges coloured
/// by label, with a legend.
pub fn graph(grammar: &Grammar, graph: &Graph, start: &Graph, title: &str) -> Panel {
    graph_picture::graph_picture(grammar, graph, start, title)
}

/// The board where the grammar has a grid, else the graph.
pub fn state(engine: &Engine, graph: &Graph, start: &Graph, title: &str) -> Panel {
    board(engine, graph, start, title)
        .unwrap_or_else(|| graph_picture::graph_picture(engine.grammar(), graph, start, title))
}

/// A recorded state space drawn: states in layers by distance from the start, the start,
/// final states, dead ends and states cut by the cap marked, with a legend.
pub fn space(grammar: &Grammar, lts: &Lts, title: &str) -> Panel {
    lts_picture::lts_picture(grammar, lts, title)
}

/// Panels side by side in rows (up to `per_row` a row), with lines of text below: one SVG
/// document.
pub fn sheet(panels: &[Panel], per_row: usize, notes: &[String]) -> String {
    const GAP: f64 = 8.0;
    let per_row = per_row.max(1);
    let mut doc = svg::Svg::new();
    let mut y = 0.0;
    let mut width: f64 = 0.0;
    for row in panels.chunks(per_row) {
        let mut x = 0.0;
        let mut tallest: f64 = 0.0;
        for p in row {
            doc.embed(&p.body, x, y);
            x += p.width + GAP;
            tallest = tallest.max(p.height);
        }
        width = width.max(x - GAP);
        y += tallest + GAP;
    }
    for note in notes {
        y += 4.0;
        doc.text(
            "note",
            (16.0, y + 12.0),
            12.0,
            svg::Anchor::Start,
            "fill=\"#333333\"",
            note,
        );
        width = width.max(32.0 + svg::text_width(note, 12.0));
        y += 16.0;
    }
    doc.finish(width.max(1.0), (y + 8.0).max(1.0))
}
