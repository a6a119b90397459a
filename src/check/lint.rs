//! Warnings about a file that checks: declarations nothing uses, rules that can never
//! match, and rules that would make the state space infinite. A warning never stops a run.

use crate::diag::Diagnostic;
use crate::grammar::Grammar;
use crate::layer::LayerKind;
use crate::model::{LabelId, NodeTypeId};
use crate::rule::{Condition, Effect, PathExpr, Pattern, Rule};

/// Every warning about `g`, in source order.
pub fn warnings(g: &Grammar) -> Vec<Diagnostic> {
    let used = Usage::of(g);
    let mut out = Vec::new();
    unused_declarations(g, &used, &mut out);
    for rule in g.rules.iter() {
        if let Some(d) = never_matches(g, &used, rule) {
            out.push(d);
        } else if let Some(d) = grows_forever(rule) {
            out.push(d);
        }
    }
    out.sort_by_key(|d| d.span.start);
    out
}

/// Which types and labels the start graph, the rules and the final condition name.
struct Usage {
    /// By type index: some node of the start graph (or one a layer adds) has this type.
    in_graph: Vec<bool>,
    /// By type index: some rule creates a node of this type.
    created: Vec<bool>,
    /// By type index: named anywhere (graph, patterns, effects, grid).
    types: Vec<bool>,
    /// By label index: some edge of the start graph has this label.
    edges_in_graph: Vec<bool>,
    /// By label index: some rule creates an edge with this label.
    edges_created: Vec<bool>,
    /// By label index: named anywhere (graph, patterns, paths, effects).
    labels: Vec<bool>,
}

impl Usage {
    fn of(g: &Grammar) -> Usage {
        let (nt, nl) = (g.types.nodes.len(), g.types.labels.len());
        let mut u = Usage {
            in_graph: vec![false; nt],
            created: vec![false; nt],
            types: vec![false; nt],
            edges_in_graph: vec![false; nl],
            edges_created: vec![false; nl],
            labels: vec![false; nl],
        };
        for n in g.base.find_nodes() {
            u.in_graph[g.base.ty(n).index()] = true;
        }
        for (_, l, _) in g.base.find_edges() {
            u.edges_in_graph[l.index()] = true;
        }
        // A puzzle line's layers add nodes and edges to its start graph.
        for layer in g.layers.iter() {
            match &layer.kind {
                LayerKind::Regions { ty, label } => {
                    u.in_graph[ty.index()] = true;
                    u.edges_in_graph[label.index()] = true;
                }
                LayerKind::Lines { ty, label, next } => {
                    u.in_graph[ty.index()] = true;
                    u.edges_in_graph[label.index()] = true;
                    if let Some(next) = next {
                        u.edges_in_graph[next.index()] = true;
                    }
                }
                LayerKind::RegionAttr { .. }
                | LayerKind::LineAttr { .. }
                | LayerKind::CellAttr { .. }
                | LayerKind::NodeAttr { .. } => {}
            }
        }
        if let Some(grid) = &g.grid {
            u.types[grid.cell_type.index()] = true;
            if let Some(t) = grid.given_type {
                u.types[t.index()] = true;
            }
        }
        for rule in g.rules.iter() {
            u.pattern(&rule.lhs);
            for e in &rule.effects {
                match e {
                    Effect::NewNode { ty, .. } => {
                        u.created[ty.index()] = true;
                        u.types[ty.index()] = true;
                    }
                    Effect::NewEdge { label, .. } => {
                        u.edges_created[label.index()] = true;
                        u.labels[label.index()] = true;
                    }
                    Effect::DelEdge { label, .. } => u.labels[label.index()] = true,
                    Effect::Set { .. } | Effect::DelNode { .. } => {}
                }
            }
        }
        if let Some(c) = &g.final_cond {
            u.condition(c);
        }
        for p in g.forbids.iter() {
            u.pattern(p);
        }
        for t in 0..nt {
            u.types[t] |= u.in_graph[t];
        }
        for l in 0..nl {
            u.labels[l] |= u.edges_in_graph[l];
        }
        // A supertype is used through its subtypes.
        for t in 0..nt {
            if u.types[t] {
                let mut p = g.types.nodes[t].parent;
                let mut steps = 0;
                while let Some(q) = p {
                    u.types[q.index()] = true;
                    p = g.types.node(q).parent;
                    steps += 1;
                    if steps > nt {
                        break;
                    }
                }
            }
        }
        u
    }

    fn pattern(&mut self, p: &Pattern) {
        for n in &p.nodes {
            self.types[n.ty.index()] = true;
        }
        for e in &p.edges {
            self.path(&e.path);
        }
        for nac in &p.nacs {
            self.pattern(nac);
        }
        // An aggregate's pattern names types and labels as a NAC's does.
        for cond in &p.conds {
            let mut inner = Vec::new();
            cond.visit_aggregates(&mut |agg| inner.push(&agg.pattern));
            for q in inner {
                self.pattern(q);
            }
        }
    }

    fn path(&mut self, p: &PathExpr) {
        match p {
            PathExpr::Label(l) => self.labels[l.index()] = true,
            PathExpr::Inverse(q) | PathExpr::Star(q) | PathExpr::Plus(q) | PathExpr::Opt(q) => {
                self.path(q)
            }
            PathExpr::Seq(qs) | PathExpr::Alt(qs) => qs.iter().for_each(|q| self.path(q)),
        }
    }

    fn condition(&mut self, c: &Condition) {
        match c {
            Condition::Exists(p) => self.pattern(p),
            Condition::Not(c) => self.condition(c),
            Condition::And(cs) | Condition::Or(cs) => cs.iter().for_each(|c| self.condition(c)),
        }
    }

    /// Some node of type `t` (or a subtype) exists in the start graph or can be created.
    fn can_exist(&self, g: &Grammar, t: NodeTypeId) -> bool {
        (0..g.types.nodes.len()).any(|s| {
            (self.in_graph[s] || self.created[s])
                && g.types.is_subtype(NodeTypeId::from_index(s), t)
        })
    }

    /// Some edge labelled `l` exists in the start graph or can be created.
    fn edge_can_exist(&self, l: LabelId) -> bool {
        self.edges_in_graph[l.index()] || self.edges_created[l.index()]
    }
}

fn unused_declarations(g: &Grammar, used: &Usage, out: &mut Vec<Diagnostic>) {
    for (i, t) in g.types.nodes.iter().enumerate() {
        if !used.types[i] {
            out.push(
                Diagnostic::warning(t.span, format!("node type `{}` is never used", t.name))
                    .with_note(
                        "no node of the start graph has it, and no rule or condition names it",
                    )
                    .with_help("remove it, or use it in a rule or the start graph"),
            );
        }
    }
    for (i, l) in g.types.labels.iter().enumerate() {
        if !used.labels[i] {
            out.push(
                Diagnostic::warning(l.span, format!("edge label `{}` is never used", l.name))
                    .with_note(
                        "no edge of the start graph has it, and no rule or condition names it",
                    )
                    .with_help("remove it, or use it in a rule or the start graph"),
            );
        }
    }
}

/// A rule whose left side names a node type no node can have, or an edge label no edge
/// can carry: it can never apply.
fn never_matches(g: &Grammar, used: &Usage, rule: &Rule) -> Option<Diagnostic> {
    let p = &rule.lhs;
    if let Some(n) = p.nodes.iter().find(|n| !used.can_exist(g, n.ty)) {
        let ty = &g.types.node(n.ty).name;
        return Some(
            Diagnostic::warning(
                n.span,
                format!(
                    "rule `{}` can never apply: no node of type `{ty}` exists or is created",
                    rule.name
                ),
            )
            .with_help(format!(
                "add `{ty}` nodes to the start graph, or a rule that creates them"
            )),
        );
    }
    let e = p
        .edges
        .iter()
        .find(|e| e.path.as_label().is_some_and(|l| !used.edge_can_exist(l)))?;
    let label = &g.types.label(e.path.as_label()?).name;
    Some(
        Diagnostic::warning(
            e.span,
            format!("rule `{}` can never apply: no `{label}` edge exists or is created", rule.name),
        )
        .with_help(format!("add `{label}` edges to the start graph (by hand or with `edges`), or a rule that creates them")),
    )
}

/// A rule that creates nodes without consuming anything of its match (no deletion, no
/// attribute set, no NAC): once it applies it applies again to the same match, forever,
/// each time with new nodes.
fn grows_forever(rule: &Rule) -> Option<Diagnostic> {
    let creates = rule.creates_nodes();
    let consumes = rule.effects.iter().any(|e| {
        matches!(
            e,
            Effect::Set { .. } | Effect::DelNode { .. } | Effect::DelEdge { .. }
        )
    });
    if !creates || consumes || !rule.lhs.nacs.is_empty() {
        return None;
    }
    Some(
        Diagnostic::warning(
            rule.span,
            format!(
                "rule `{}` creates nodes and nothing stops it from applying again: the state space is likely infinite",
                rule.name
            ),
        )
        .with_note("it deletes and changes nothing it matches and has no NAC, so every application leaves its match in place")
        .with_help("add a NAC that the created nodes block (`not { ... }`), or delete or set something the rule matches"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check;
    use crate::diag::Source;

    fn warnings_of(text: &str) -> Vec<String> {
        let g = check(Source::new("t.graft", text)).unwrap_or_else(|d| panic!("{d}"));
        warnings(&g).into_iter().map(|d| d.message).collect()
    }

    const HEAD: &str =
        "values 1..2\nnode Cell { val: value? }\nnode Group\nedge in: Cell -> Group\n";

    #[test]
    fn unused_types_and_labels_are_named() {
        let w = warnings_of(&format!(
            "{HEAD}node Extra\nedge far: Cell -> Cell\nc: Cell\ng: Group\nc -in-> g\n\
             rule r(v: value) {{ c: Cell {{ val == none }} set c.val = v }}\n"
        ));
        assert_eq!(
            w,
            [
                "node type `Extra` is never used",
                "edge label `far` is never used"
            ]
        );
    }

    #[test]
    fn types_and_labels_named_only_inside_an_aggregate_are_used() {
        let text = HEAD.to_owned()
            + "node Zone\nedge z: Cell -> Zone\n\
               rule place(v: value) {\n\
                 c: Cell { val == none }\n\
                 not { c -in-> g: Group where count(g <-in- e: Cell -z-> q: Zone) > 1 }\n\
                 set c.val = v\n\
               }\n";
        let w = warnings_of(&text);
        assert!(
            w.iter().all(|m| !m.contains("Zone") && !m.contains("`z`")),
            "{w:?}"
        );
    }

    #[test]
    fn a_rule_over_types_nothing_has_never_applies() {
        let w = warnings_of(&format!(
            "{HEAD}c: Cell\nrule r(v: value) {{ c: Cell {{ val == none }} -in-> g: Group set c.val = v }}\n"
        ));
        assert_eq!(
            w,
            ["rule `r` can never apply: no node of type `Group` exists or is created"]
        );
        let w = warnings_of(&format!(
            "{HEAD}c: Cell\ng: Group\nrule r(v: value) {{ c: Cell {{ val == none }} -in-> g: Group set c.val = v }}\n"
        ));
        assert_eq!(
            w,
            ["rule `r` can never apply: no `in` edge exists or is created"]
        );
    }

    #[test]
    fn a_rule_that_only_creates_grows_forever() {
        let w = warnings_of(&format!(
            "{HEAD}c: Cell\ng: Group\nc -in-> g\nrule grow {{ g: Group new h: Group }}\n"
        ));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("rule `grow` creates nodes and nothing stops it"),
            "{w:?}"
        );
        // A NAC that the created node blocks bounds it.
        let w = warnings_of(&format!(
            "{HEAD}c: Cell\ng: Group\nc -in-> g\nrule grow {{ g: Group not {{ h: Group }} new h: Group }}\n"
        ));
        assert!(w.is_empty(), "{w:?}");
    }
}
