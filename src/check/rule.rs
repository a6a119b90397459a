//! Rules: parameters, the left-hand pattern with nested NACs, effects, and `final:`.
//!
//! Variables: a rule's pattern binds `0..n`; a NAC inside it binds from its enclosing
//! pattern's `var_end`, and nested NACs likewise; nodes created by effects come after
//! `lhs.depth()`, so no two ever collide.

use super::expr::{Scope, ScopeNode};
use super::Checker;
use crate::diag::{Diagnostic, Span};
use crate::model::{AttrType, BaseType, LabelId, VarId};
use crate::rule::{Condition, Param, PatEdge, PatNode, PathExpr, Pattern, Rule};
use crate::syntax::ast;

impl Checker<'_> {
    pub(super) fn lower_rule(&mut self, r: &ast::RuleDecl) {
        self.broken_vars.clear();
        if let Some(first) = self.rules.iter().find(|x| x.name == r.name.name) {
            let line = self.line_of(first.span);
            self.diags.push(
                Diagnostic::error(r.name.span, format!("duplicate rule `{}`", r.name.name))
                    .with_note(format!("the first is at line {line}"))
                    .with_label(first.span, "the first is here"),
            );
        }
        let mut params: Vec<Param> = Vec::new();
        for p in &r.params {
            if params.iter().any(|q| q.name == p.name.name) {
                self.error(
                    p.name.span,
                    format!("duplicate parameter `{}`", p.name.name),
                );
                continue;
            }
            let Some(ty) = self.lower_attr_type(&p.ty) else {
                continue;
            };
            let value = AttrType {
                base: BaseType::Value,
                optional: false,
            };
            if ty != value {
                self.error(
                    p.ty.span,
                    format!(
                        "parameters range over the value domain: expected `value`, found `{ty}`"
                    ),
                );
                continue;
            }
            params.push(Param {
                name: p.name.name.clone(),
                ty,
                span: p.span,
            });
        }
        let (lhs, nodes) = self.lower_pattern(&r.pattern, 0, &[], &params);
        let effects = self.lower_effects(&r.effects, &lhs, &nodes, &params);
        self.rules.push(Rule {
            name: r.name.name.clone(),
            params,
            lhs,
            effects,
            span: r.span,
        });
    }

    /// Lowers a pattern whose own nodes are numbered from `bound`; `outer` are the nodes
    /// of the enclosing patterns. Returns the pattern and its own nodes.
    pub(super) fn lower_pattern(
        &mut self,
        block: &ast::PatternBlock,
        bound: u32,
        outer: &[ScopeNode],
        params: &[Param],
    ) -> (Pattern, Vec<ScopeNode>) {
        // Pass 1: every node declared with a type, so that elements may refer to nodes
        // declared after them and NACs see them all.
        let mut own: Vec<ScopeNode> = Vec::new();
        let mut nodes: Vec<PatNode> = Vec::new();
        let mut broken: Vec<String> = Vec::new();
        for elem in &block.elems {
            let ast::PatternElem::Chain(chain) = elem else {
                continue;
            };
            let refs = std::iter::once(&chain.first).chain(chain.steps.iter().map(|(_, n)| n));
            for n in refs {
                let Some(ty_name) = &n.ty else { continue };
                let name = &n.name.name;
                if let Some(first) = outer.iter().chain(&own).find(|s| &s.name == name) {
                    let line = self.line_of(first.span);
                    self.diags.push(
                        Diagnostic::error(n.name.span, format!("duplicate node `{name}`"))
                            .with_note(format!(
                                "the first is at line {line}; refer to it by name alone"
                            ))
                            .with_label(first.span, "the first is here"),
                    );
                    continue;
                }
                let Some(ty) = self.resolve_type(ty_name) else {
                    broken.push(name.clone());
                    self.broken_vars.insert(name.clone());
                    continue;
                };
                own.push(ScopeNode {
                    name: name.clone(),
                    var: VarId(bound + own.len() as u32),
                    ty,
                    span: n.name.span,
                });
                nodes.push(PatNode {
                    name: name.clone(),
                    ty,
                    span: n.span,
                });
            }
        }
        let visible: Vec<ScopeNode> = outer.iter().chain(&own).cloned().collect();
        let mut pattern = Pattern {
            bound,
            nodes,
            edges: Vec::new(),
            conds: Vec::new(),
            nacs: Vec::new(),
            span: block.span,
        };
        // Pass 2: references, conditions, edges and NACs.
        for elem in &block.elems {
            match elem {
                ast::PatternElem::Where(e) => {
                    let scope = Scope {
                        nodes: &visible,
                        this: None,
                        params,
                        next: Some(pattern.var_end()),
                    };
                    if let Some(c) = self.lower_cond(e, scope) {
                        pattern.conds.push(c);
                    }
                }
                ast::PatternElem::Not(nac) => {
                    let (p, _) = self.lower_pattern(nac, pattern.var_end(), &visible, params);
                    pattern.nacs.push(p);
                }
                ast::PatternElem::Chain(chain) => {
                    let mut prev =
                        self.lower_node_ref(&chain.first, &visible, &broken, params, &mut pattern);
                    for (step, n) in &chain.steps {
                        let next = self.lower_node_ref(n, &visible, &broken, params, &mut pattern);
                        let path = self.lower_path(&step.path);
                        if let (Some(a), Some(b), Some(path)) = (prev, next, path) {
                            let (src, tgt) = match step.dir {
                                ast::Dir::Out => (a, b),
                                ast::Dir::In => (b, a),
                            };
                            let span = step.span;
                            self.check_pattern_edge(&path, src, tgt, span);
                            pattern.edges.push(PatEdge {
                                src: src.var,
                                tgt: tgt.var,
                                path,
                                span,
                            });
                        }
                        prev = next;
                    }
                }
            }
        }
        (pattern, own)
    }

    /// Resolves a node of a chain and lowers its `{ conditions }`.
    fn lower_node_ref<'v>(
        &mut self,
        n: &ast::NodeRef,
        visible: &'v [ScopeNode],
        broken: &[String],
        params: &[Param],
        pattern: &mut Pattern,
    ) -> Option<&'v ScopeNode> {
        let Some(node) = visible.iter().find(|s| s.name == n.name.name) else {
            if !broken.contains(&n.name.name) && !self.broken_vars.contains(&n.name.name) {
                let scope = Scope {
                    nodes: visible,
                    this: None,
                    params,
                    next: None,
                };
                let msg = self.unknown_node(&n.name.name, scope);
                self.error(
                    n.name.span,
                    format!("{msg} (declare it with `{}: Type`)", n.name.name),
                );
                self.suggest_last(&n.name.name, &scope.node_names());
            }
            return None;
        };
        let scope = Scope {
            nodes: visible,
            this: Some(node),
            params,
            next: Some(pattern.var_end()),
        };
        for c in &n.conds {
            if let Some(e) = self.lower_cond(c, scope) {
                pattern.conds.push(e);
            }
        }
        Some(node)
    }

    pub(super) fn lower_path(&mut self, p: &ast::Path) -> Option<PathExpr> {
        let many = |cx: &mut Self, ps: &[ast::Path]| -> Option<Vec<PathExpr>> {
            let lowered: Vec<Option<PathExpr>> = ps.iter().map(|p| cx.lower_path(p)).collect();
            lowered.into_iter().collect()
        };
        Some(match &p.kind {
            ast::PathKind::Label(l) => PathExpr::Label(self.resolve_label(l)?),
            ast::PathKind::Inverse(q) => PathExpr::Inverse(Box::new(self.lower_path(q)?)),
            ast::PathKind::Seq(qs) => PathExpr::Seq(many(self, qs)?),
            ast::PathKind::Alt(qs) => PathExpr::Alt(many(self, qs)?),
            ast::PathKind::Star(q) => PathExpr::Star(Box::new(self.lower_path(q)?)),
            ast::PathKind::Plus(q) => PathExpr::Plus(Box::new(self.lower_path(q)?)),
            ast::PathKind::Opt(q) => PathExpr::Opt(Box::new(self.lower_path(q)?)),
        })
    }

    /// A plain label (or its inverse) must fit the nodes' types: one end type a subtype of
    /// the other, since a pattern node of a supertype may match a node of the label's type.
    fn check_pattern_edge(
        &mut self,
        path: &PathExpr,
        src: &ScopeNode,
        tgt: &ScopeNode,
        span: Span,
    ) {
        let (label, src, tgt) = match path {
            PathExpr::Label(l) => (*l, src, tgt),
            PathExpr::Inverse(inner) => match inner.as_ref() {
                PathExpr::Label(l) => (*l, tgt, src),
                _ => return,
            },
            _ => return,
        };
        self.check_edge_ends(label, src, tgt, span, false);
    }

    /// `strict`: the node's type must be a subtype of the end type (for created edges).
    pub(super) fn check_edge_ends(
        &mut self,
        label: LabelId,
        src: &ScopeNode,
        tgt: &ScopeNode,
        span: Span,
        strict: bool,
    ) -> bool {
        let l = self.types.label(label).clone();
        for (node, end, role) in [(src, l.source, "source"), (tgt, l.target, "target")] {
            let fits = self.types.is_subtype(node.ty, end)
                || (!strict && self.types.is_subtype(end, node.ty));
            if !fits {
                let msg = format!(
                    "edge `{}` needs a `{}` as its {role}: found `{}` of type `{}`",
                    l.name,
                    self.type_name(end),
                    node.name,
                    self.type_name(node.ty)
                );
                self.error(span, msg);
                return false;
            }
        }
        true
    }

    pub(super) fn lower_final(&mut self, f: &ast::FinalDecl) -> Option<Condition> {
        self.broken_vars.clear();
        self.lower_condition(&f.cond)
    }

    pub(super) fn lower_forbid(&mut self, f: &ast::ForbidDecl) -> Pattern {
        self.broken_vars.clear();
        let mut p = self.lower_pattern(&f.pattern, 0, &[], &[]).0;
        p.span = f.span;
        p
    }

    fn lower_condition(&mut self, c: &ast::Cond) -> Option<Condition> {
        Some(match &c.kind {
            ast::CondKind::Pattern(block) => {
                Condition::Exists(self.lower_pattern(block, 0, &[], &[]).0)
            }
            ast::CondKind::Not(inner) => Condition::Not(Box::new(self.lower_condition(inner)?)),
            ast::CondKind::And(cs) | ast::CondKind::Or(cs) => {
                let parts: Vec<Option<Condition>> =
                    cs.iter().map(|c| self.lower_condition(c)).collect();
                let parts: Vec<Condition> = parts.into_iter().collect::<Option<_>>()?;
                if matches!(c.kind, ast::CondKind::And(_)) {
                    Condition::And(parts)
                } else {
                    Condition::Or(parts)
                }
            }
        })
    }
}
