//! Graphs listed node by node, and the summary block of a run.

use crate::explore::Report;
use crate::grammar::Grammar;
use crate::model::{Graph, NodeId};

/// Each live node as `name: Type { attr = value, ... }`, one per line.
pub fn list_nodes(grammar: &Grammar, graph: &Graph) -> String {
    let mut out = String::new();
    for n in graph.find_nodes() {
        out.push_str(&node_line(grammar, graph, n));
        out.push('\n');
    }
    out
}

/// The name of a node: its start-graph name, or `#id` for a created node.
pub fn node_name(grammar: &Grammar, n: NodeId) -> String {
    if n.index() < grammar.base.capacity() {
        if let Some(name) = grammar.names.get(n.index()) {
            return name.to_owned();
        }
    }
    format!("new{}", n.0)
}

/// One node as a line: its name, type and attributes, then its outgoing edges.
pub fn node_line(grammar: &Grammar, graph: &Graph, n: NodeId) -> String {
    let ty = grammar.types.node(graph.ty(n));
    let attrs: Vec<String> = ty
        .attrs
        .iter()
        .zip(&graph.node(n).attrs)
        .filter(|(_, v)| !v.is_none())
        .map(|(a, &v)| format!("{} = {}", a.name, grammar.domain.show(v)))
        .collect();
    if attrs.is_empty() {
        format!("{}: {}", node_name(grammar, n), ty.name)
    } else {
        format!(
            "{}: {} {{ {} }}",
            node_name(grammar, n),
            ty.name,
            attrs.join(", ")
        )
    }
}

/// The fixed summary block printed after a run.
pub fn summary(report: &Report) -> String {
    report.to_string()
}
