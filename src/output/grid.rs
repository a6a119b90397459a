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

/// One row of [`grid_rows`]: `None` at a hole.
pub type Row<'g> = Vec<Option<&'g str>>;

/// Each position's value name, row-major: `.` for an empty cell, `None` at a hole.
fn position_names<'g>(grammar: &'g Grammar, grid: &Grid, graph: &Graph) -> Vec<Option<&'g str>> {
    let mut values = cell_values(grammar, grid, graph).into_iter();
    grid.layout
        .iter()
        .map(|cell| {
            cell.and_then(|_| values.next())
                .map(|v| cell_name(grammar, v))
        })
        .collect()
}

/// Each position's text, row-major: the cell's value (`.` when empty), `None` at a hole.
fn position_texts(grammar: &Grammar, grid: &Grid, graph: &Graph) -> Vec<Option<String>> {
    position_names(grammar, grid, graph)
        .into_iter()
        .map(|n| n.map(str::to_string))
        .collect()
}

/// The grid row by row: each cell's value name, `.` when it is empty, and `None` (JSON's
/// `null`) at a hole of a shaped grid.
pub fn grid_rows<'g>(grammar: &'g Grammar, graph: &Graph) -> Option<Vec<Row<'g>>> {
    let grid = grammar.grid.as_ref()?;
    let cols = (grid.cols as usize).max(1);
    Some(
        position_names(grammar, grid, graph)
            .chunks(cols)
            .map(<[_]>::to_vec)
            .collect(),
    )
}

/// Row-major cell values as one string: one character per position when every value is
/// one character, else values separated by blanks. Empty cells are `.`; a hole is a blank
/// (compact) or an empty word (separated: two blanks in a row).
pub fn grid_line(grammar: &Grammar, graph: &Graph) -> Option<String> {
    let grid = grammar.grid.as_ref()?;
    let cells = position_texts(grammar, grid, graph);
    Some(if grammar.domain.single_chars() {
        cells.iter().map(|c| c.as_deref().unwrap_or(" ")).collect()
    } else {
        let words: Vec<&str> = cells.iter().map(|c| c.as_deref().unwrap_or("")).collect();
        words.join(" ")
    })
}

/// The grid drawn row by row, with `|` and `-` between boxes when the file has boxes.
/// Holes are blank, as are the separators between holes.
pub fn draw_grid(grammar: &Grammar, graph: &Graph) -> Option<String> {
    let grid = grammar.grid.as_ref()?;
    let cells = position_texts(grammar, grid, graph);
    let width = cells
        .iter()
        .flatten()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(1);
    let (rows, cols) = (grid.rows as usize, grid.cols as usize);
    let (box_rows, box_cols) = grid.boxes.unwrap_or((grid.rows, grid.cols));
    let (box_rows, box_cols) = (box_rows.max(1) as usize, box_cols.max(1) as usize);
    let here = |r: usize, c: usize| c < cols && cells[r * cols + c].is_some();
    let mut out = String::new();
    for r in 0..rows {
        if r > 0 && r % box_rows == 0 {
            // A rule under the box row: dashes over the columns with a cell above or below.
            let near = |c: usize| c < cols && (here(r - 1, c) || here(r, c));
            let mut line = String::new();
            for c in 0..cols {
                if c > 0 {
                    let (left, right) = (near(c - 1), near(c));
                    let dash = |near: bool| if near { '-' } else { ' ' };
                    if c % box_cols == 0 {
                        // A cross where rules meet, a dash where one ends at a hole.
                        line.push(dash(left));
                        line.push(if left && right {
                            '+'
                        } else {
                            dash(left || right)
                        });
                        line.push(dash(right));
                    } else {
                        line.push(dash(left || right));
                    }
                }
                let fill = if near(c) { '-' } else { ' ' };
                line.extend(std::iter::repeat_n(fill, width));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        let mut line = String::new();
        for c in 0..cols {
            if c > 0 {
                line.push(' ');
                if c % box_cols == 0 {
                    // Between two cells only: a hole's edge needs no bar.
                    let bar = here(r, c - 1) && here(r, c);
                    line.push_str(if bar { "| " } else { "  " });
                }
            }
            let text = cells[r * cols + c].as_deref().unwrap_or("");
            line.push_str(&format!("{text:>width$}"));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    Some(out)
}
