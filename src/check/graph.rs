//! The start graph written by hand (`a: Cell { ... }`, `a -in-> g`) and the `edges`
//! generator; the node and edge helpers every generator uses.

use smallvec::SmallVec;

use super::expr::{Scope, ScopeNode};
use super::pairs::{find_pairs, TooMany, MAX_CANDIDATES, MAX_EDGES};
use super::Checker;
use crate::diag::{Diagnostic, Span};
use crate::model::{AttrId, Graph, LabelId, NodeId, NodeTypeId, Value, VarId};
use crate::rule::{Aggregate, Env};
use crate::syntax::ast;

/// Constant expressions (attribute values of hand-written nodes) read nothing.
struct NoEnv;

impl Env for NoEnv {
    fn param(&self, _: u32) -> Value {
        Value::None
    }

    fn attr(&self, _: VarId, _: AttrId) -> Value {
        Value::None
    }

    /// The checker refuses aggregates outside rules and `final:`.
    fn aggregate(&self, _: &Aggregate) -> Value {
        Value::None
    }
}

impl Checker<'_> {
    /// Adds a node of the start graph under a unique name.
    pub(super) fn add_base_node(
        &mut self,
        name: &str,
        ty: NodeTypeId,
        attrs: SmallVec<[Value; 4]>,
        span: Span,
    ) -> Option<NodeId> {
        if self.name_taken(name, span) {
            return None;
        }
        let id = self.graph.add_node(ty, attrs);
        self.names.push(name.to_string());
        self.node_spans.push(span);
        self.node_by_name.insert(name.to_string(), id);
        Some(id)
    }

    /// Makes `name` a second name of node `n` (a group two generators made), so that the
    /// file may use either; `n` keeps its first name in output.
    pub(super) fn alias_node(&mut self, name: &str, n: NodeId, span: Span) {
        if !self.name_taken(name, span) {
            self.node_by_name.insert(name.to_string(), n);
        }
    }

    /// True, after an error, when a node is already called `name`.
    fn name_taken(&mut self, name: &str, span: Span) -> bool {
        let Some(&first) = self.node_by_name.get(name) else {
            return false;
        };
        let first = self.node_spans.get(first.index()).copied();
        let line = first.map_or(0, |s| self.line_of(s));
        let mut d = Diagnostic::error(span, format!("duplicate node `{name}`"))
            .with_note(format!("the first is at line {line}"));
        if let Some(first) = first {
            d = d.with_label(first, "the first is here");
        }
        self.diags.push(d);
        true
    }

    /// All attributes `none`; an error naming `what` if one of them is not optional.
    pub(super) fn empty_attrs(
        &mut self,
        ty: NodeTypeId,
        what: &str,
        span: Span,
    ) -> Option<SmallVec<[Value; 4]>> {
        let t = self.types.nodes.get(ty.index())?;
        let required: Vec<String> = t
            .attrs
            .iter()
            .filter(|a| !a.ty.optional)
            .map(|a| format!("`{}: {}`", a.name, a.ty))
            .collect();
        if !required.is_empty() {
            let tn = t.name.clone();
            self.error(
                span,
                format!(
                    "{what} of type `{tn}` start with every attribute none, but `{tn}` has {}: expected only optional attributes (`?`)",
                    required.join(", ")
                ),
            );
            return None;
        }
        Some(t.attrs.iter().map(|_| Value::None).collect())
    }

    /// Looks up a node of the start graph by name.
    pub(super) fn find_base_node(&mut self, name: &ast::Ident) -> Option<NodeId> {
        let found = self.node_by_name.get(&name.name).copied();
        if found.is_none() && self.hole_names.contains(&name.name) {
            self.error(
                name.span,
                format!(
                    "`{}` is a hole of the grid's shape: expected a cell (a `#` of the shape)",
                    name.name
                ),
            );
        } else if found.is_none() && !self.broken_nodes.contains(&name.name) {
            self.error(
                name.span,
                format!("unknown node `{}`: expected a node of the start graph (declare it with `{}: Type`)", name.name, name.name),
            );
        }
        found
    }

    /// Adds `s -l-> t` to the start graph when the ends have the label's types.
    pub(super) fn add_base_edge(&mut self, s: NodeId, l: LabelId, t: NodeId, span: Span) {
        let label = self.types.label(l).clone();
        for (node, end, role) in [(s, label.source, "source"), (t, label.target, "target")] {
            let ty = self.graph.ty(node);
            if !self.types.is_subtype(ty, end) {
                let name = self.names.get(node.index()).cloned().unwrap_or_default();
                self.error(
                    span,
                    format!(
                        "edge `{}` needs a `{}` as its {role}: found `{name}` of type `{}`",
                        label.name,
                        self.type_name(end),
                        self.type_name(ty)
                    ),
                );
                return;
            }
        }
        self.graph.add_edge(s, l, t);
    }

    pub(super) fn lower_node_def(&mut self, d: &ast::NodeDef) {
        let Some(ty) = self.resolve_type(&d.ty) else {
            self.broken_nodes.insert(d.name.name.clone());
            return;
        };
        let defs = self.types.node(ty).attrs.clone();
        let mut attrs: SmallVec<[Value; 4]> = defs.iter().map(|_| Value::None).collect();
        let mut given = vec![false; defs.len()];
        for init in &d.attrs {
            let Some(a) = self.types.node(ty).attr(&init.name.name) else {
                let expected = self.attr_list(ty);
                self.error(
                    init.name.span,
                    format!(
                        "unknown attribute `{}` of `{}`: {expected}",
                        init.name.name,
                        self.type_name(ty)
                    ),
                );
                self.suggest_last(&init.name.name, &self.attr_names(ty));
                continue;
            };
            if std::mem::replace(&mut given[a.index()], true) {
                self.error(
                    init.name.span,
                    format!("duplicate attribute `{}`", init.name.name),
                );
                continue;
            }
            let what = format!("attribute `{}` of `{}`", init.name.name, self.type_name(ty));
            if let Some(e) =
                self.lower_assigned(&init.value, defs[a.index()].ty, &what, Scope::EMPTY)
            {
                attrs[a.index()] = e.eval(&NoEnv);
            }
        }
        let missing: Vec<String> = defs
            .iter()
            .zip(&given)
            .filter(|(a, g)| !**g && !a.ty.optional)
            .map(|(a, _)| format!("`{}`", a.name))
            .collect();
        if !missing.is_empty() {
            self.error(
                d.span,
                format!(
                    "node `{}` needs a value for {}: expected every attribute of `{}` that is not optional",
                    d.name.name,
                    missing.join(", "),
                    self.type_name(ty)
                ),
            );
        }
        self.add_base_node(&d.name.name, ty, attrs, d.name.span);
    }

    pub(super) fn lower_edge_def(&mut self, d: &ast::EdgeDef) {
        let mut prev = self.find_base_node(&d.first);
        for (step, next) in &d.steps {
            let node = self.find_base_node(next);
            let label = match step.path.as_label() {
                Some(l) => self.resolve_label(l),
                None => {
                    self.error(
                        step.path.span,
                        "a path in the start graph: expected one edge label",
                    );
                    None
                }
            };
            if let (Some(a), Some(l), Some(b)) = (prev, label, node) {
                let (s, t) = match step.dir {
                    ast::Dir::Out => (a, b),
                    ast::Dir::In => (b, a),
                };
                self.add_base_edge(s, l, t, step.span.to(next.span));
            }
            prev = node;
        }
    }

    /// `edges c -l-> d where cond`: one edge per ordered pair of distinct nodes of the
    /// label's end types for which the condition holds, within the limits of
    /// [`find_pairs`].
    pub(super) fn lower_edges(&mut self, d: &ast::EdgesDecl) {
        let Some(l) = self.resolve_label(&d.label) else {
            return;
        };
        if d.src.name == d.tgt.name {
            self.error(
                d.tgt.span,
                format!(
                    "`{}` names both ends: expected two different names",
                    d.tgt.name
                ),
            );
            return;
        }
        let label = self.types.label(l).clone();
        let nodes = [
            ScopeNode {
                name: d.src.name.clone(),
                var: VarId(0),
                ty: label.source,
                span: d.src.span,
            },
            ScopeNode {
                name: d.tgt.name.clone(),
                var: VarId(1),
                ty: label.target,
                span: d.tgt.span,
            },
        ];
        let scope = Scope {
            nodes: &nodes,
            this: None,
            params: &[],
            next: None,
        };
        let cond = match &d.cond {
            Some(c) => match self.lower_cond(c, scope) {
                Some(e) => Some(e),
                None => return,
            },
            None => None,
        };
        let of_type = |g: &Graph, ty| -> Vec<NodeId> {
            g.find_nodes()
                .filter(|&n| self.types.is_subtype(g.ty(n), ty))
                .collect()
        };
        let sources = of_type(&self.graph, label.source);
        let targets = of_type(&self.graph, label.target);
        match find_pairs(&self.graph, &sources, &targets, cond.as_ref()) {
            Ok(pairs) => {
                for (s, t) in pairs {
                    self.graph.add_edge(s, l, t);
                }
            }
            Err(TooMany::Edges(n)) => self.diags.push(
                Diagnostic::error(
                    d.span,
                    format!("this generator would create {n} `{}` edges (limit {MAX_EDGES})", label.name),
                )
                .with_note("it makes one edge per pair of distinct nodes its `where` condition accepts; narrow the condition (e.g. `where d.row == c.row`) or generate over fewer nodes"),
            ),
            Err(TooMany::Candidates(n)) => self.diags.push(
                Diagnostic::error(
                    d.span,
                    format!("this generator would test its condition on {n} pairs of nodes (limit {MAX_CANDIDATES})"),
                )
                .with_note(format!("an equality between an attribute of `{}` and one of `{}` (e.g. `{}.row == {}.row`) finds the pairs without testing every one", d.tgt.name, d.src.name, d.tgt.name, d.src.name)),
            ),
        }
    }
}
