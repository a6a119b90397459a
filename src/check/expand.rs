//! `grafter expand`: a grammar printed back as a rule file with every generator replaced by
//! the plain nodes and edges it made. Checking the output gives the same start graph.

use std::fmt::Write;

use crate::grammar::Grammar;
use crate::model::Value;
use crate::syntax::{self, ast};

/// The rule file of `g` with explicit nodes and edges; rules and `final:` are copied from
/// the source text.
pub fn print_expanded(g: &Grammar) -> String {
    let mut out = String::new();
    let values: Vec<&str> = g.domain.values.iter().map(|v| v.name.as_str()).collect();
    let _ = writeln!(out, "values {}\n", values.join(" "));
    for t in &g.types.nodes {
        let inherited = t.parent.map_or(0, |p| g.types.node(p).attrs.len());
        let _ = write!(out, "node {}", t.name);
        if let Some(p) = t.parent {
            let _ = write!(out, " : {}", g.types.node(p).name);
        }
        let own: Vec<String> = t
            .attrs
            .iter()
            .skip(inherited)
            .map(|a| format!("{}: {}", a.name, a.ty))
            .collect();
        if !own.is_empty() {
            let _ = write!(out, " {{ {} }}", own.join(", "));
        }
        out.push('\n');
    }
    for l in &g.types.labels {
        let _ = writeln!(
            out,
            "edge {}: {} -> {}",
            l.name,
            g.types.node(l.source).name,
            g.types.node(l.target).name
        );
    }
    out.push('\n');
    let name = |n: crate::model::NodeId| g.names.get(n.index()).unwrap_or("?");
    for n in g.base.find_nodes() {
        let data = g.base.node(n);
        let ty = g.types.node(data.ty);
        let _ = write!(out, "{}: {}", name(n), ty.name);
        let attrs: Vec<String> = ty
            .attrs
            .iter()
            .zip(&data.attrs)
            .filter(|(_, v)| !v.is_none())
            .map(|(a, v)| format!("{} = {}", a.name, literal(g, *v)))
            .collect();
        if !attrs.is_empty() {
            let _ = write!(out, " {{ {} }}", attrs.join(", "));
        }
        out.push('\n');
    }
    for (s, l, t) in g.base.find_edges() {
        let _ = writeln!(out, "{} -{}-> {}", name(s), g.types.label(l).name, name(t));
    }
    if let Some(grid) = &g.grid {
        let cells: Vec<&str> = grid.cells.iter().map(|&c| name(c)).collect();
        let _ = write!(
            out,
            "\ngrid {}x{} = {}",
            grid.rows,
            grid.cols,
            cells.join(" ")
        );
        if let Some(t) = grid.given_type {
            let _ = write!(out, " given {}", g.types.node(t).name);
        }
        let cols = grid.cols.max(1) as usize;
        if grid.has_holes() {
            out.push_str(" shape {\n");
            for row in grid.layout.chunks(cols) {
                let mask: String = row
                    .iter()
                    .map(|c| if c.is_some() { '#' } else { '.' })
                    .collect();
                let _ = writeln!(out, "  {mask}");
            }
            out.push('}');
        }
        out.push('\n');
        if let Some(start) = &g.start {
            out.push_str("\nstart {\n");
            let mut values = start.values.iter();
            for row in grid.layout.chunks(cols) {
                let cells: Vec<&str> = row
                    .iter()
                    .map(|cell| match cell {
                        None => "-",
                        Some(_) => values
                            .next()
                            .copied()
                            .flatten()
                            .map_or(".", |i| g.domain.name(i)),
                    })
                    .collect();
                let _ = writeln!(out, "  {}", cells.join(" "));
            }
            out.push_str("}\n");
        }
    }
    // Rules and `final:` keep their source text; the source parsed before, so it parses again.
    if let Ok(file) = syntax::parse(&g.source) {
        for item in &file.items {
            if let ast::Item::Rule(_) | ast::Item::Final(_) | ast::Item::Forbid(_) = item {
                let span = item.span();
                if let Some(text) = g.source.text.get(span.start..span.end) {
                    let _ = writeln!(out, "\n{text}");
                }
            }
        }
    }
    out
}

/// A value as the language writes it in an attribute's initialiser.
fn literal(g: &Grammar, v: Value) -> String {
    match v {
        // A value named by an integer is written as that integer; other names are quoted
        // so they can never be read as an attribute or parameter.
        Value::Val(i) => match g.domain.values.get(i as usize) {
            Some(d) if d.int.is_some() => d.name.clone(),
            Some(d) => format!("'{}'", d.name),
            None => "none".to_string(),
        },
        Value::Int(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::None => "none".to_string(),
    }
}
