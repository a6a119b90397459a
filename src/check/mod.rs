//! AST to checked grammar: resolve names, build the types and the domain, expand the
//! generators into the start graph, type-check rules. Every diagnostic is collected.

mod effect;
mod expand;
mod expr;
mod graph;
mod grid;
mod groups;
mod layers;
mod lines;
mod lint;
mod pairs;
mod rule;
mod start;
mod types;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_errors;
#[cfg(test)]
mod tests_shapes;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

pub use expand::print_expanded;

use crate::diag::{Diagnostic, Diagnostics, Source, Span};
use crate::grammar::{Givens, Grammar, Grid};
use crate::layer::Layer;
use crate::model::{Domain, Graph, LabelId, NodeId, TypeSystem};
use crate::rule::{Condition, Pattern, Rule};
use crate::syntax::{self, ast};

/// Parses and checks a rule file.
pub fn check(source: Source) -> Result<Grammar, Diagnostics> {
    let file = match syntax::parse(&source) {
        Ok(file) => file,
        Err(items) => return Err(Diagnostics { source, items }),
    };
    let mut cx = Checker::new(&source.text);
    cx.lower_file(&file);
    if !cx.diags.is_empty() {
        let mut items = cx.diags;
        items.sort_by_key(|d| d.span.start);
        return Err(Diagnostics { source, items });
    }
    let mut grammar = Grammar {
        domain: cx.domain.into(),
        types: cx.types.into(),
        base: cx.graph,
        names: cx.names.into(),
        grid: cx.grid,
        start: cx.start,
        rules: cx.rules.into(),
        final_cond: cx.final_cond.map(Arc::new),
        forbids: cx.forbids.into(),
        warnings: Vec::new().into(),
        layers: cx.layers.into(),
        layer_base: None,
        source: source.into(),
    };
    grammar.warnings = lint::warnings(&grammar).into();
    layers::add_own_content(grammar, &file)
}

/// The state of one check: what is built so far and every problem found.
pub(crate) struct Checker<'s> {
    text: &'s str,
    diags: Vec<Diagnostic>,
    domain: Domain,
    types: TypeSystem,
    graph: Graph,
    /// The name of each base node, by `NodeId`.
    names: Vec<String>,
    node_by_name: HashMap<String, NodeId>,
    /// Where each base node was declared or generated.
    node_spans: Vec<Span>,
    /// Names of hand-written nodes that had errors: later uses stay quiet about them.
    broken_nodes: HashSet<String>,
    /// Pattern nodes of the rule or condition being lowered whose type was unknown: the
    /// error is reported once, where the type is named, not again at every use.
    broken_vars: HashSet<String>,
    /// The names cells would have at the holes of a shaped grid (`r1c10`), so that a use
    /// of one is told it is a hole rather than unknown.
    hole_names: HashSet<String>,
    /// The groups generators made, by label and sorted members: a group made twice (the
    /// box two overlapping sub-grids share) is kept once.
    made_groups: HashMap<(LabelId, Vec<NodeId>), NodeId>,
    grid: Option<Grid>,
    start: Option<Givens>,
    rules: Vec<Rule>,
    final_cond: Option<Condition>,
    forbids: Vec<Pattern>,
    layers: Vec<Layer>,
    /// The id the next aggregate takes: unique in the grammar.
    next_agg: u32,
}

impl<'s> Checker<'s> {
    fn new(text: &'s str) -> Checker<'s> {
        Checker {
            text,
            diags: Vec::new(),
            domain: Domain::default(),
            types: TypeSystem::default(),
            graph: Graph::new(),
            names: Vec::new(),
            node_by_name: HashMap::new(),
            node_spans: Vec::new(),
            broken_nodes: HashSet::new(),
            broken_vars: HashSet::new(),
            hole_names: HashSet::new(),
            made_groups: HashMap::new(),
            grid: None,
            start: None,
            rules: Vec::new(),
            final_cond: None,
            forbids: Vec::new(),
            layers: Vec::new(),
            next_agg: 0,
        }
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, message));
    }

    /// Adds "did you mean ...?" to the diagnostic just reported, when one of `candidates`
    /// is close to the unknown `name` it reports.
    fn suggest_last<S: AsRef<str>>(&mut self, name: &str, candidates: &[S]) {
        if let Some(last) = self.diags.pop() {
            let d = last.with_suggestion(name, candidates.iter().map(AsRef::as_ref));
            self.diags.push(d);
        }
    }

    /// 1-based line of a byte offset, for notes that point back at a first declaration.
    fn line_of(&self, span: Span) -> usize {
        let end = span.start.min(self.text.len());
        self.text
            .as_bytes()
            .get(..end)
            .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
            + 1
    }

    /// Items are lowered in dependency order, not file order: the values and types first,
    /// then the nodes (hand-written ones before generated ones, so a grid over named nodes
    /// sees them), then edges (generated edges see every node), then the layers (which
    /// name generated nodes), then the start block and the rules.
    fn lower_file(&mut self, file: &ast::File) {
        let values: Vec<_> = file
            .items
            .iter()
            .filter_map(|i| match i {
                ast::Item::Values(v) => Some(v),
                _ => None,
            })
            .collect();
        match values.as_slice() {
            [] => self.error(
                Span::new(0, 0),
                "expected a `values` line (e.g. `values 1..9`), found none",
            ),
            [first, rest @ ..] => {
                self.lower_values(first);
                for v in rest {
                    self.diags.push(
                        Diagnostic::error(
                            v.span,
                            "duplicate `values` line: a file has exactly one",
                        )
                        .with_note(format!("the first is at line {}", self.line_of(first.span)))
                        .with_label(first.span, "the first is here"),
                    );
                }
            }
        }
        self.lower_types(&file.items);
        for item in &file.items {
            if let ast::Item::NodeDef(d) = item {
                self.lower_node_def(d);
            }
        }
        for item in &file.items {
            match item {
                ast::Item::Grid(d) => self.lower_grid(d),
                ast::Item::Groups(d) => self.lower_groups(d),
                ast::Item::Group(d) => self.lower_group(d),
                ast::Item::Line(d) => self.lower_line(d),
                _ => {}
            }
        }
        for item in &file.items {
            match item {
                ast::Item::EdgeDef(d) => self.lower_edge_def(d),
                ast::Item::Edges(d) => self.lower_edges(d),
                _ => {}
            }
        }
        let layers: Vec<&ast::LayerDecl> = file
            .items
            .iter()
            .filter_map(|i| match i {
                ast::Item::Layer(d) => Some(d),
                _ => None,
            })
            .collect();
        self.lower_layers(&layers);
        let mut start_seen: Option<Span> = None;
        let mut final_seen: Option<Span> = None;
        for item in &file.items {
            match item {
                ast::Item::Start(s) => {
                    if let Some(first) = start_seen {
                        self.duplicate(s.span, "start block", first);
                    } else {
                        start_seen = Some(s.span);
                        self.lower_start(s);
                    }
                }
                ast::Item::Rule(r) => self.lower_rule(r),
                ast::Item::Final(f) => {
                    if let Some(first) = final_seen {
                        self.duplicate(f.span, "`final:` condition", first);
                    } else {
                        final_seen = Some(f.span);
                        self.final_cond = self.lower_final(f);
                    }
                }
                ast::Item::Forbid(f) => {
                    let p = self.lower_forbid(f);
                    self.forbids.push(p);
                }
                _ => {}
            }
        }
    }

    /// "duplicate X: ..." with a note pointing at the first one.
    fn duplicate(&mut self, span: Span, what: &str, first: Span) {
        let note = format!("the first is at line {}", self.line_of(first));
        self.diags.push(
            Diagnostic::error(span, format!("duplicate {what}: a file has at most one"))
                .with_note(note)
                .with_label(first, "the first is here"),
        );
    }
}

/// `a, b or c` for "expected one of" lists; `none` when empty.
fn list_or(items: &[String]) -> String {
    match items {
        [] => "none".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}
