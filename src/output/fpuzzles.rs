//! A solution as an f-puzzles link: the grid's values in f-puzzles' JSON, LZ-string
//! compressed into the `load=` parameter, so a setter opens it where they drew it.

use serde_json::json;

use super::grid::grid_rows;
use crate::grammar::Grammar;
use crate::model::Graph;

/// `https://www.f-puzzles.com/?load=...` for a square grid's values; `None` for a file
/// without a square grid.
pub fn link(grammar: &Grammar, graph: &Graph) -> Option<String> {
    let rows = grid_rows(grammar, graph)?;
    let size = rows.len();
    if rows.iter().any(|r| r.len() != size) {
        return None;
    }
    let grid: Vec<Vec<serde_json::Value>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|c| match c.and_then(|v| v.parse::<u32>().ok()) {
                    Some(v) => json!({ "value": v, "given": true }),
                    None => json!({}),
                })
                .collect()
        })
        .collect();
    let doc = json!({ "size": size, "grid": grid });
    Some(format!(
        "https://www.f-puzzles.com/?load={}",
        lz_str::compress_to_base64(doc.to_string().as_str())
    ))
}
