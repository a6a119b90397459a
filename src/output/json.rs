//! JSON lines, written with serde: one object a line, each with a `type` naming its shape
//! (`solution` and `summary` here; `heuristics` beside its text table, `check` beside its
//! text). The README's command-line section documents every field; the integration tests
//! read them back field by field.

use serde::Serialize;

use crate::explore::Report;
use crate::grammar::Grammar;
use crate::model::Graph;

use super::grid::{grid_rows, Row};
use super::text::node_line;

/// One found solution. Exactly one of `grid` and `nodes` is present.
#[derive(Serialize)]
#[serde(tag = "type", rename = "solution")]
struct Solution<'a> {
    /// The puzzle's number, from 1 (1 without `--puzzles`).
    puzzle: usize,
    /// The solution's number within the puzzle, from 1, in the order found.
    solution: u64,
    /// The grid row by row: value names, `.` for an empty cell, `null` where a row has
    /// no cell.
    #[serde(skip_serializing_if = "Option::is_none")]
    grid: Option<Vec<Row<'a>>>,
    /// For files without a grid: each node as `name: Type { attr = value, ... }`.
    #[serde(skip_serializing_if = "Option::is_none")]
    nodes: Option<Vec<String>>,
}

/// One puzzle's run: its counts, why it stopped, and how it ran.
#[derive(Serialize)]
#[serde(tag = "type", rename = "summary")]
struct Summary<'a> {
    puzzle: usize,
    solutions: u64,
    states: u64,
    transitions: u64,
    dead_ends: u64,
    /// True when the whole space was explored.
    complete: bool,
    /// Why the run stopped early: `max-states`, `max-solutions`, `timeout`,
    /// `interrupted`, `memory`; `null` when complete.
    stop: Option<&'static str>,
    expand: &'static str,
    focus: &'static str,
    value: &'static str,
    attempts: u32,
    order: &'static str,
    engine: &'static str,
    /// Why `--expand focus` fell back to `all`, when it did.
    fallback: Option<&'a str>,
    seconds: f64,
}

/// One JSON line of `value`. The types here hold strings, numbers, booleans, options and
/// arrays only, which always serialise.
pub(crate) fn line(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("grafter's JSON types always serialise")
}

/// A float of `digits` decimals at most, so a time reads `0.012346`, not
/// `0.012345678901`.
pub(crate) fn rounded(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

/// `{"type":"solution","puzzle":1,"solution":2,"grid":[["1","2"],["2","1"]]}`, or
/// `"nodes":[...]` in place of `grid` for files without a grid.
pub fn solution(grammar: &Grammar, puzzle: usize, number: u64, graph: &Graph) -> String {
    let grid = grid_rows(grammar, graph);
    let nodes = grid.is_none().then(|| {
        graph
            .find_nodes()
            .map(|n| node_line(grammar, graph, n))
            .collect()
    });
    line(&Solution {
        puzzle,
        solution: number,
        grid,
        nodes,
    })
}

/// The summary object of one puzzle's run: `{"type":"summary","puzzle":1,...}`.
pub fn summary(puzzle: usize, report: &Report) -> String {
    let c = &report.counts;
    line(&Summary {
        puzzle,
        solutions: c.solutions,
        states: c.states,
        transitions: c.transitions,
        dead_ends: c.dead_ends,
        complete: report.complete(),
        stop: report.stop.map(|s| s.name()),
        expand: report.expand.name(),
        focus: report.policy.focus.name(),
        value: report.policy.value.name(),
        attempts: report.attempts,
        order: report.order.name(),
        engine: report.engine,
        fallback: report.fallback.as_deref(),
        seconds: rounded(report.elapsed.as_secs_f64(), 6),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_keep_six_decimals_at_most() {
        assert_eq!(rounded(0.012_345_678_9, 6).to_string(), "0.012346");
        assert_eq!(rounded(3.0, 6).to_string(), "3");
    }

    #[test]
    fn a_solution_of_a_grid_file_is_its_rows_of_value_names() {
        let grammar = crate::load_str("latin.graft", crate::test_grammars::LATIN_3X3).unwrap();
        let engine = crate::Engine::new(&grammar);
        let mut first = None;
        engine
            .solve(
                None,
                &crate::Config::default().with_max_solutions(1),
                Some(&mut |g: &Graph| {
                    first.get_or_insert_with(|| solution(&grammar, 1, 1, g));
                }),
            )
            .unwrap();
        let text = first.expect("a solution");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["type"], "solution");
        let rows = v["grid"].as_array().expect("rows");
        assert_eq!(rows.len(), 3);
        for row in rows {
            let names: Vec<&str> = row
                .as_array()
                .expect("a row")
                .iter()
                .map(|c| c.as_str().expect("a value name"))
                .collect();
            let mut sorted = names.clone();
            sorted.sort();
            assert_eq!(sorted, ["1", "2", "3"], "a Latin square's row: {text}");
        }
        assert!(v.get("nodes").is_none(), "{text}");
    }
}
