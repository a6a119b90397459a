//! Solutions drawn as grids, and a grid's cells as one line.

use std::collections::HashMap;

use crate::grammar::{Grammar, Grid};
use crate::model::{Graph, NodeId, Value};

/// The name of the attribute that holds a cell's value (of the given type when there is one).
fn value_attr_name<'a>(grammar: &'a Grammar, grid: &Grid) -> &'a str {
    let ty = grid.given_type.unwrap_or(grid.cell_type);
    &grammar.types.node(ty).attrs[grid.value_attr.index()].name
}

/// The value held by a live grid cell; a cell that changed type keeps its id, so the
/// value attribute is read by name from whatever type it has.
fn cell_value(grammar: &Grammar, graph: &Graph, cell: NodeId, attr_name: &str) -> Value {
    match grammar.types.node(graph.ty(cell)).attr(attr_name) {
        Some(a) => graph.attr(cell, a),
        None => Value::None,
    }
}

/// The `row` and `col` attribute values of a node, when its type has both.
fn position(grammar: &Grammar, graph: &Graph, n: NodeId) -> Option<(Value, Value)> {
    let ty = grammar.types.node(graph.ty(n));
    Some((
        graph.attr(n, ty.attr("row")?),
        graph.attr(n, ty.attr("col")?),
    ))
}

/// Every grid cell's value, row-major. Rules may delete a cell and create another node in
/// its place (the seed's first encoding replaces an empty `Node` by a `NodeVal`): a dead
/// cell's value is then read from the live node with the same `row` and `col` that has the
/// value attribute. A dead entry keeps its attributes, so the dead cell's position is known.
pub(crate) fn cell_values(grammar: &Grammar, grid: &Grid, graph: &Graph) -> Vec<Value> {
    let attr_name = value_attr_name(grammar, grid);
    let mut by_position: Option<HashMap<(Value, Value), Value>> = None;
    grid.cells
        .iter()
        .map(|&c| {
            if graph.is_alive(c) {
                return cell_value(grammar, graph, c, attr_name);
            }
            let Some(pos) = position(grammar, graph, c) else {
                return Value::None;
            };
            let index = by_position.get_or_insert_with(|| {
                graph
                    .find_nodes()
                    .filter_map(|n| {
                        let v = cell_value(grammar, graph, n, attr_name);
                        Some((position(grammar, graph, n)?, v))
                    })
                    .filter(|(_, v)| !v.is_none())
                    .collect()
            });
            index.get(&pos).copied().unwrap_or(Value::None)
        })
        .collect()
}

/// A cell's value name, `.` when it has none.
fn cell_name(grammar: &Grammar, v: Value) -> &str {
    match v {
        Value::Val(x) => grammar.domain.name(x),
        _ => ".",
    }
}

fn cell_text(grammar: &Grammar, v: Value) -> String {
    cell_name(grammar, v).to_string()
}

/// One row of [`grid_rows`]: `None` where the row has no cell.
pub type Row<'g> = Vec<Option<&'g str>>;

/// The grid row by row: each cell's value name, `.` when it is empty. A position
/// without a cell is `None` (JSON's `null`); the grids the language makes today are
/// rectangles of cells, so there is none yet.
pub fn grid_rows<'g>(grammar: &'g Grammar, graph: &Graph) -> Option<Vec<Row<'g>>> {
    let grid = grammar.grid.as_ref()?;
    let values = cell_values(grammar, grid, graph);
    let cols = (grid.cols as usize).max(1);
    Some(
        values
            .chunks(cols)
            .map(|row| row.iter().map(|&v| Some(cell_name(grammar, v))).collect())
            .collect(),
    )
}

/// Row-major cell values as one string: one character per cell when every value is one
/// character, else values separated by blanks. Empty cells are `.`.
pub fn grid_line(grammar: &Grammar, graph: &Graph) -> Option<String> {
    let grid = grammar.grid.as_ref()?;
    let cells: Vec<String> = cell_values(grammar, grid, graph)
        .into_iter()
        .map(|v| cell_text(grammar, v))
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
    let cells: Vec<String> = cell_values(grammar, grid, graph)
        .into_iter()
        .map(|v| cell_text(grammar, v))
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
