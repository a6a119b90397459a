//! Graphviz DOT of a host graph.

use crate::grammar::Grammar;
use crate::model::Graph;

use super::text::{node_line, node_name};

/// The graph in Graphviz DOT: a box per node labelled with its attributes, an arrow per
/// edge labelled with its label.
pub fn to_dot(grammar: &Grammar, graph: &Graph) -> String {
    let mut out = String::from("digraph grafter {\n  node [shape=box, fontname=\"monospace\"];\n");
    for n in graph.find_nodes() {
        out.push_str(&format!(
            "  {} [label={}];\n",
            quote(&node_name(grammar, n)),
            quote(&node_line(grammar, graph, n))
        ));
    }
    for (s, l, t) in graph.find_edges() {
        out.push_str(&format!(
            "  {} -> {} [label={}];\n",
            quote(&node_name(grammar, s)),
            quote(&node_name(grammar, t)),
            quote(&grammar.types.label(l).name)
        ));
    }
    out.push_str("}\n");
    out
}

/// A DOT string literal: quotes and backslashes escaped (a backslash would start one of
/// DOT's label escapes), line breaks as `\n`.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
