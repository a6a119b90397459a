//! True candidates: per cell, the values it takes over the solutions found, printed as a
//! grid of text or as one JSON object.

use serde::Serialize;

use super::grid::grid_rows;
use crate::grammar::Grammar;
use crate::model::Graph;

/// The values each cell took, row-major, in the domain's order.
#[derive(Debug, Default)]
pub struct Candidates {
    /// Per row, per position, the values seen (`None` at a hole).
    rows: Vec<Vec<Option<Vec<String>>>>,
    /// The solutions added.
    solutions: u64,
}

impl Candidates {
    /// Adds one solution's values.
    pub fn add(&mut self, grammar: &Grammar, graph: &Graph) {
        let Some(rows) = grid_rows(grammar, graph) else {
            return;
        };
        if self.rows.is_empty() {
            self.rows = rows
                .iter()
                .map(|r| r.iter().map(|c| c.map(|_| Vec::new())).collect())
                .collect();
        }
        for (seen, row) in self.rows.iter_mut().zip(rows) {
            for (seen, value) in seen.iter_mut().zip(row) {
                if let (Some(seen), Some(v)) = (seen.as_mut(), value) {
                    if v != "." && !seen.iter().any(|s| s == v) {
                        seen.push(v.to_string());
                    }
                }
            }
        }
        self.solutions += 1;
    }

    /// The grid as text: each cell's candidates run together (separated by `,` when a
    /// value is longer than one character), `-` where no solution was found, columns
    /// aligned; a line after it says whether the candidates are complete.
    pub fn to_text(&self, grammar: &Grammar, complete: bool) -> String {
        let sorted = self.sorted(grammar);
        let single = grammar.domain.single_chars();
        let texts: Vec<Vec<String>> = sorted
            .iter()
            .map(|row| {
                row.iter()
                    .map(|c| match c {
                        None => String::new(),
                        Some(v) if v.is_empty() => "-".to_string(),
                        Some(v) => v.join(if single { "" } else { "," }),
                    })
                    .collect()
            })
            .collect();
        let width = texts.iter().flatten().map(String::len).max().unwrap_or(1);
        let mut out = String::new();
        for row in &texts {
            let cells: Vec<String> = row.iter().map(|t| format!("{t:<width$}")).collect();
            out.push_str(cells.join(" ").trim_end());
            out.push('\n');
        }
        let s = if self.solutions == 1 { "" } else { "s" };
        if complete {
            out.push_str(&format!(
                "candidates: complete, over {} solution{s}\n",
                self.solutions
            ));
        } else {
            out.push_str(&format!(
                "candidates: partial, over the {} solution{s} found before the run stopped\n",
                self.solutions
            ));
        }
        out
    }

    /// `{"type":"candidates","puzzle":1,"complete":true,"solutions":2,"grid":[[["1","2"],...]]}`:
    /// per cell its values (`null` at a hole).
    pub fn to_json(&self, grammar: &Grammar, puzzle: usize, complete: bool) -> String {
        #[derive(Serialize)]
        struct Object<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            puzzle: usize,
            complete: bool,
            solutions: u64,
            grid: &'a [Vec<Option<Vec<String>>>],
        }
        let grid = self.sorted(grammar);
        serde_json::to_string(&Object {
            kind: "candidates",
            puzzle,
            complete,
            solutions: self.solutions,
            grid: &grid,
        })
        .expect("candidates always serialise")
    }

    /// The candidates in the domain's order.
    fn sorted(&self, grammar: &Grammar) -> Vec<Vec<Option<Vec<String>>>> {
        let rank = |v: &String| grammar.domain.find(v).map_or(u16::MAX, |x| x);
        self.rows
            .iter()
            .map(|row| {
                row.iter()
                    .map(|c| {
                        c.clone().map(|mut v| {
                            v.sort_by_key(rank);
                            v
                        })
                    })
                    .collect()
            })
            .collect()
    }
}
