//! JSON lines: one object per solution and one summary object per puzzle.

use crate::explore::Report;
use crate::grammar::Grammar;
use crate::model::Graph;

use super::grid::grid_line;
use super::text::node_line;

/// A JSON string literal.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `{"puzzle":1,"solution":2,"grid":"..."}`, or `"nodes":[...]` for files without a grid.
pub fn solution(grammar: &Grammar, puzzle: usize, number: u64, graph: &Graph) -> String {
    match grid_line(grammar, graph) {
        Some(line) => format!(
            "{{\"puzzle\":{puzzle},\"solution\":{number},\"grid\":{}}}",
            quote(&line)
        ),
        None => {
            let nodes: Vec<String> = graph
                .find_nodes()
                .map(|n| quote(&node_line(grammar, graph, n)))
                .collect();
            format!(
                "{{\"puzzle\":{puzzle},\"solution\":{number},\"nodes\":[{}]}}",
                nodes.join(",")
            )
        }
    }
}

/// The summary object of one puzzle's run.
pub fn summary(puzzle: usize, report: &Report) -> String {
    let c = &report.counts;
    format!(
        "{{\"puzzle\":{puzzle},\"solutions\":{},\"states\":{},\"transitions\":{},\"dead_ends\":{},\"complete\":{},\"stop\":{},\"expand\":\"{}\",\"focus\":\"{}\",\"value\":\"{}\",\"attempts\":{},\"order\":\"{}\",\"engine\":\"{}\",\"fallback\":{},\"seconds\":{:.6}}}",
        c.solutions,
        c.states,
        c.transitions,
        c.dead_ends,
        report.complete(),
        report.stop.map_or("null".to_string(), |s| quote(s.name())),
        report.expand.name(),
        report.policy.focus.name(),
        report.policy.value.name(),
        report.attempts,
        report.order.name(),
        report.engine,
        report.fallback.as_deref().map_or("null".to_string(), quote),
        report.elapsed.as_secs_f64()
    )
}
