//! What `grafter check` prints about a rule file: its types, grid, rules and the engine
//! and expansion a run would use.

use std::io::{self, Write};

use grafter::Engine;

/// Writes the summary of `engine`'s grammar to `out`.
pub fn write(out: &mut dyn Write, engine: &Engine) -> io::Result<()> {
    let grammar = engine.grammar();
    writeln!(out, "{}: ok", grammar.source.name)?;
    writeln!(
        out,
        "values: {} ({})",
        grammar.domain.describe(),
        grammar.domain.len()
    )?;
    for (i, t) in grammar.types.nodes.iter().enumerate() {
        let count = grammar
            .base
            .find_nodes()
            .filter(|&n| grammar.base.ty(n).index() == i)
            .count();
        let parent = t
            .parent
            .map(|p| format!(" : {}", grammar.types.node(p).name))
            .unwrap_or_default();
        writeln!(out, "node {}{parent}: {count} nodes", t.name)?;
    }
    for (i, l) in grammar.types.labels.iter().enumerate() {
        let count = grammar
            .base
            .find_edges()
            .filter(|&(_, lab, _)| lab.index() == i)
            .count();
        writeln!(
            out,
            "edge {}: {} -> {}: {count} edges",
            l.name,
            grammar.types.node(l.source).name,
            grammar.types.node(l.target).name
        )?;
    }
    if let Some(grid) = &grammar.grid {
        let givens = grammar
            .start
            .as_ref()
            .map_or(0, |s| s.values.iter().filter(|v| v.is_some()).count());
        writeln!(out, "grid: {}x{} ({givens} givens)", grid.rows, grid.cols)?;
    }
    for l in &grammar.layers {
        writeln!(
            out,
            "layer {}: {} per puzzle line",
            l.name,
            l.kind.describe()
        )?;
    }
    for r in &grammar.rules {
        writeln!(
            out,
            "rule {}: {} nodes, {} NACs, {} effects",
            r.name,
            r.lhs.nodes.len(),
            r.lhs.nacs.len(),
            r.effects.len()
        )?;
    }
    writeln!(
        out,
        "final: {}",
        if grammar.final_cond.is_some() {
            "as declared"
        } else {
            "no rule applies"
        }
    )?;
    match engine.slot_compilation() {
        Ok(m) => writeln!(
            out,
            "engine: slot ({} slots, {} NAC indexes, {} exactly-once groups)",
            m.slots.len(),
            m.hubs.len(),
            m.once.len()
        )?,
        Err(why) => writeln!(
            out,
            "engine: graph (not slot-filling: {})",
            why.located(&grammar.source)
        )?,
    }
    write!(out, "{}", grafter::analyse(grammar).sheet(&grammar.source))?;
    match engine.focus_unsound() {
        None => writeln!(out, "expand focus: sound")?,
        Some(why) => writeln!(out, "expand focus: falls back to all: {why}")?,
    }
    Ok(())
}
