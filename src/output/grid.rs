//! Solutions drawn as grids, and a grid's cells as one line.

use crate::grammar::{Grammar, Grid};
use crate::model::{Graph, NodeId, Value};

/// The value held by grid cell `i` of `graph`, looked up by node; a cell that changed
/// type keeps its id, so the grid's value attribute is read from whatever type it has.
fn cell_value(grammar: &Grammar, grid: &Grid, graph: &Graph, cell: NodeId) -> Value {
    if !graph.is_alive(cell) {
        return Value::None;
    }
    let ty = grammar.types.node(graph.ty(cell));
    let attr_name = grid
        .given_type
        .map(|t| &grammar.types.node(t).attrs[grid.value_attr.index()].name)
        .unwrap_or_else(|| &grammar.types.node(grid.cell_type).attrs[grid.value_attr.index()].name);
    match ty.attr(attr_name) {
        Some(a) => graph.attr(cell, a),
        None => Value::None,
    }
}

fn cell_text(grammar: &Grammar, v: Value) -> String {
    match v {
        Value::Val(x) => grammar.domain.name(x).to_string(),
        _ => ".".to_string(),
    }
}

/// Row-major cell values as one string: one character per cell when every value is one
/// character, else values separated by blanks. Empty cells are `.`.
pub fn grid_line(grammar: &Grammar, graph: &Graph) -> Option<String> {
    let grid = grammar.grid.as_ref()?;
    let cells: Vec<String> = grid
        .cells
        .iter()
        .map(|&c| cell_text(grammar, cell_value(grammar, grid, graph, c)))
        .collect();
    Some(if grammar.domain.single_chars() {
        cells.concat()
    } else {
        cells.join(" ")
    })
}

/// The grid drawn row by row, with `|` and `-` between boxes when the file has boxes.
pub fn draw_grid(grammar: &Grammar, graph: &Graph) -> Option<String> {
    let grid = grammar.grid.as_ref()?;
    let cells: Vec<String> = grid
        .cells
        .iter()
        .map(|&c| cell_text(grammar, cell_value(grammar, grid, graph, c)))
        .collect();
    let width = cells.iter().map(|c| c.chars().count()).max().unwrap_or(1);
    let (box_rows, box_cols) = grid.boxes.unwrap_or((grid.rows, grid.cols));
    let mut out = String::new();
    let mut rule_line = String::new();
    for r in 0..grid.rows {
        if r > 0 && box_rows > 0 && r % box_rows == 0 {
            if rule_line.is_empty() {
                let mut parts = Vec::new();
                let mut c = 0;
                while c < grid.cols {
                    let n = box_cols.min(grid.cols - c) as usize;
                    parts.push("-".repeat(n * (width + 1) - 1));
                    c += box_cols.max(1);
                }
                rule_line = parts.join("-+-");
            }
            out.push_str(&rule_line);
            out.push('\n');
        }
        let mut line = String::new();
        for c in 0..grid.cols {
            if c > 0 {
                line.push(' ');
                if box_cols > 0 && c % box_cols == 0 {
                    line.push_str("| ");
                }
            }
            let text = &cells[(r * grid.cols + c) as usize];
            line.push_str(&format!("{text:>width$}"));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    Some(out)
}
