//! What `grafter check` says about a rule file: its types, grid, rules and the engine
//! and expansion a run would use, gathered once and written as text or as JSON.

use std::io::{self, Write};

use serde::Serialize;

use grafter::{Engine, PuzzleLines, Refusal, Source};

/// The facts `grafter check` reports, in the order the text gives them; serialised as the
/// `"type":"check"` JSON object the README documents.
#[derive(Serialize)]
#[serde(tag = "type", rename = "check")]
struct Check<'g> {
    file: &'g str,
    /// The value names, in order.
    values: Vec<&'g str>,
    nodes: Vec<NodeType<'g>>,
    edges: Vec<EdgeLabel<'g>>,
    grid: Option<GridShape>,
    rules: Vec<RuleShape<'g>>,
    /// `declared` (a `final:` condition) or `stuck` (no rule applies).
    #[serde(rename = "final")]
    final_cond: &'static str,
    engine: EngineFacts,
    /// The rules' shapes fill slots (the slot engine may still refuse the NACs).
    slot_filling: Fact,
    /// The rules consume open nodes and never enable one another.
    monotone: Fact,
    expand_focus: FocusFact,
    /// What the file probably does not mean (also printed on stderr).
    warnings: Vec<Warning>,
}

/// A warning's place (1-based line and column), message and help lines.
#[derive(Serialize)]
struct Warning {
    line: usize,
    col: usize,
    message: String,
    help: Vec<String>,
}

#[derive(Serialize)]
struct NodeType<'g> {
    name: &'g str,
    parent: Option<&'g str>,
    /// Nodes of this type in the start graph.
    count: usize,
}

#[derive(Serialize)]
struct EdgeLabel<'g> {
    label: &'g str,
    source: &'g str,
    target: &'g str,
    /// Edges with this label in the start graph.
    count: usize,
}

#[derive(Serialize)]
struct GridShape {
    rows: u32,
    cols: u32,
    /// Positions with a cell, and the holes of a shaped grid.
    cells: usize,
    holes: usize,
    givens: usize,
}

#[derive(Serialize)]
struct RuleShape<'g> {
    name: &'g str,
    nodes: usize,
    nacs: usize,
    effects: usize,
}

/// The engine a run gets: `slot` with its tables' sizes, or `graph` with the refusal that
/// keeps the rules off the slot engine.
#[derive(Serialize)]
struct EngineFacts {
    name: &'static str,
    slots: Option<usize>,
    nac_indexes: Option<usize>,
    exactly_once_groups: Option<usize>,
    /// For a file with layers on the slot engine, how a puzzle line's engine is built:
    /// `narrowed` (this model, less the values its marks rule out), `regrouped` (this model
    /// with its regions' hubs added), `retabled` (this model with the hubs of the NACs its
    /// marks reach tabled from them) or `compiled` (its own, replaying what no layer
    /// reaches).
    puzzle_lines: Option<&'static str>,
    refusal: Option<Place>,
}

/// A property of the grammar: it holds, or the refusal says where and why not.
#[derive(Serialize)]
struct Fact {
    holds: bool,
    refusal: Option<Place>,
}

#[derive(Serialize)]
struct FocusFact {
    sound: bool,
    /// Why runs fall back to `--expand all`, when they do.
    fallback: Option<String>,
}

/// A refusal's place in the rule file (1-based line and column) and its reason.
#[derive(Serialize)]
struct Place {
    line: usize,
    col: usize,
    reason: String,
    /// `file:line:col: reason`, as the text gives it.
    located: String,
}

impl Place {
    fn of(refusal: &Refusal, source: &Source) -> Place {
        let (line, col) = source.line_col(refusal.span.start);
        Place {
            line,
            col,
            reason: refusal.reason.clone(),
            located: refusal.located(source),
        }
    }
}

impl Fact {
    fn of<T>(fact: &Result<T, Refusal>, source: &Source) -> Fact {
        Fact {
            holds: fact.is_ok(),
            refusal: fact.as_ref().err().map(|r| Place::of(r, source)),
        }
    }
}

fn gather<'g>(engine: &Engine<'g>) -> Check<'g> {
    let grammar = engine.grammar();
    let source = &grammar.source;
    let domain = &grammar.domain;
    let types = &grammar.types;
    let nodes = types
        .nodes
        .iter()
        .enumerate()
        .map(|(i, t)| NodeType {
            name: &t.name,
            parent: t.parent.map(|p| types.node(p).name.as_str()),
            count: grammar
                .base
                .find_nodes()
                .filter(|&n| grammar.base.ty(n).index() == i)
                .count(),
        })
        .collect();
    let edges = types
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| EdgeLabel {
            label: &l.name,
            source: &types.node(l.source).name,
            target: &types.node(l.target).name,
            count: grammar
                .base
                .find_edges()
                .filter(|&(_, lab, _)| lab.index() == i)
                .count(),
        })
        .collect();
    let grid = grammar.grid.as_ref().map(|grid| GridShape {
        rows: grid.rows,
        cols: grid.cols,
        cells: grid.len(),
        holes: grid.area() - grid.len(),
        givens: grammar
            .start
            .as_ref()
            .map_or(0, |s| s.values.iter().filter(|v| v.is_some()).count()),
    });
    let rules = grammar
        .rules
        .iter()
        .map(|r| RuleShape {
            name: &r.name,
            nodes: r.lhs.nodes.len(),
            nacs: r.lhs.nacs.len(),
            effects: r.effects.len(),
        })
        .collect();
    let engine_facts = match engine.slot_compilation() {
        Ok(m) => EngineFacts {
            name: "slot",
            slots: Some(m.slots.len()),
            nac_indexes: Some(m.hubs.len()),
            exactly_once_groups: Some(m.once.len()),
            puzzle_lines: engine.puzzle_lines().map(PuzzleLines::name),
            refusal: None,
        },
        Err(why) => EngineFacts {
            name: "graph",
            slots: None,
            nac_indexes: None,
            exactly_once_groups: None,
            puzzle_lines: None,
            refusal: Some(Place::of(why, source)),
        },
    };
    let facts = grafter::analyse(grammar);
    let fallback = engine.focus_unsound();
    Check {
        file: &source.name,
        values: (0..domain.len() as u16).map(|i| domain.name(i)).collect(),
        nodes,
        edges,
        grid,
        rules,
        final_cond: if grammar.final_cond.is_some() {
            "declared"
        } else {
            "stuck"
        },
        engine: engine_facts,
        slot_filling: Fact::of(&facts.slot_fill, source),
        monotone: Fact::of(&facts.monotone, source),
        expand_focus: FocusFact {
            sound: fallback.is_none(),
            fallback,
        },
        warnings: grammar
            .warnings
            .iter()
            .map(|w| {
                let (line, col) = source.line_col(w.span.start);
                Warning {
                    line,
                    col,
                    message: w.message.clone(),
                    help: w.help.clone(),
                }
            })
            .collect(),
    }
}

/// Writes the summary of `engine`'s grammar to `out` as text, a line per fact.
pub fn write(out: &mut dyn Write, engine: &Engine) -> io::Result<()> {
    let grammar = engine.grammar();
    let check = gather(engine);
    writeln!(out, "{}: ok", check.file)?;
    writeln!(
        out,
        "values: {} ({})",
        grammar.domain.describe(),
        check.values.len()
    )?;
    for t in &check.nodes {
        let parent = t.parent.map(|p| format!(" : {p}")).unwrap_or_default();
        writeln!(out, "node {}{parent}: {} nodes", t.name, t.count)?;
    }
    for l in &check.edges {
        writeln!(
            out,
            "edge {}: {} -> {}: {} edges",
            l.label, l.source, l.target, l.count
        )?;
    }
    if let Some(g) = &check.grid {
        let holes = if g.holes > 0 {
            format!(", {} cells, {} holes", g.cells, g.holes)
        } else {
            String::new()
        };
        writeln!(
            out,
            "grid: {}x{} ({} givens{holes})",
            g.rows, g.cols, g.givens
        )?;
    }
    for l in grammar.layers.iter() {
        writeln!(
            out,
            "layer {}: {} per puzzle line",
            l.name,
            l.kind.describe()
        )?;
    }
    for r in &check.rules {
        writeln!(
            out,
            "rule {}: {} nodes, {} NACs, {} effects",
            r.name, r.nodes, r.nacs, r.effects
        )?;
    }
    writeln!(
        out,
        "final: {}",
        match check.final_cond {
            "declared" => "as declared",
            _ => "no rule applies",
        }
    )?;
    let e = &check.engine;
    match (&e.refusal, e.slots, e.nac_indexes, e.exactly_once_groups) {
        (None, Some(slots), Some(hubs), Some(once)) => {
            writeln!(
                out,
                "engine: slot ({slots} slots, {hubs} NAC indexes, {once} exactly-once groups)"
            )?;
            if let Some(how) = engine.puzzle_lines() {
                writeln!(out, "puzzle lines: {}", how.describe())?;
            }
        }
        (refusal, ..) => writeln!(
            out,
            "engine: graph (not slot-filling: {})",
            refusal.as_ref().map_or("", |p| p.located.as_str())
        )?,
    }
    write!(out, "{}", grafter::analyse(grammar).sheet(&grammar.source))?;
    match &check.expand_focus.fallback {
        None => writeln!(out, "expand focus: sound")?,
        Some(why) => writeln!(out, "expand focus: falls back to all: {why}")?,
    }
    Ok(())
}

/// Writes the summary of `engine`'s grammar to `out` as one JSON line.
pub fn write_json(out: &mut dyn Write, engine: &Engine) -> io::Result<()> {
    serde_json::to_writer(&mut *out, &gather(engine))?;
    writeln!(out)
}
