//! Rules: parameters, the left-hand pattern with nested NACs, effects, and `final:`.
//!
//! Variables: a rule's pattern binds `0..n`; a NAC inside it binds from its enclosing
//! pattern's `var_end`, and nested NACs likewise; nodes created by effects come after
//! `lhs.depth()`, so no two ever collide.

use super::expr::{Scope, ScopeNode};
use super::Checker;
use crate::diag::{Diagnostic, Span};
use crate::model::{AttrType, BaseType, LabelId, NodeTypeId, VarId};
use crate::rule::{Condition, Effect, Param, PatEdge, PatNode, PathExpr, Pattern, Rule};
use crate::syntax::ast;

impl Checker<'_> {
    pub(super) fn lower_rule(&mut self, r: &ast::RuleDecl) {
        if let Some(first) = self.rules.iter().find(|x| x.name == r.name.name) {
            let line = self.line_of(first.span);
            self.diags.push(
                Diagnostic::error(r.name.span, format!("duplicate rule `{}`", r.name.name))
                    .with_note(format!("the first is at line {line}")),
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
                            )),
                    );
                    continue;
                }
                let Some(ty) = self.resolve_type(ty_name) else {
                    broken.push(name.clone());
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
            if !broken.contains(&n.name.name) {
                let scope = Scope {
                    nodes: visible,
                    this: None,
                    params,
                };
                let msg = self.unknown_node(&n.name.name, scope);
                self.error(
                    n.name.span,
                    format!("{msg} (declare it with `{}: Type`)", n.name.name),
                );
            }
            return None;
        };
        let scope = Scope {
            nodes: visible,
            this: Some(node),
            params,
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
    fn check_edge_ends(
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

    fn lower_effects(
        &mut self,
        effects: &[ast::Effect],
        lhs: &Pattern,
        lhs_nodes: &[ScopeNode],
        params: &[Param],
    ) -> Vec<Effect> {
        // Created nodes first, so `new a -l-> n` may come before `new n: T`.
        let mut created: Vec<ScopeNode> = Vec::new();
        for e in effects {
            let ast::Effect::NewNode { name, ty, span, .. } = e else {
                continue;
            };
            if let Some(first) = lhs_nodes
                .iter()
                .chain(&created)
                .find(|n| n.name == name.name)
            {
                let line = self.line_of(first.span);
                self.diags.push(
                    Diagnostic::error(name.span, format!("duplicate node `{}`", name.name))
                        .with_note(format!("the first is at line {line}")),
                );
                continue;
            }
            if let Some(t) = self.resolve_type(ty) {
                created.push(ScopeNode {
                    name: name.name.clone(),
                    var: VarId(lhs.depth() + created.len() as u32),
                    ty: t,
                    span: *span,
                });
            }
        }
        let scope = Scope {
            nodes: lhs_nodes,
            this: None,
            params,
        };
        let mut out: Vec<Effect> = Vec::new();
        let mut set_seen: Vec<(VarId, crate::model::AttrId)> = Vec::new();
        for e in effects {
            match e {
                ast::Effect::Set {
                    node,
                    attr,
                    value,
                    span,
                } => {
                    let Some(n) = lhs_nodes.iter().find(|n| n.name == node.name) else {
                        let msg = if created.iter().any(|n| n.name == node.name) {
                            format!("`set` on the new node `{}`: expected its value in `new {}: Type {{ {} = ... }}`", node.name, node.name, attr.name)
                        } else {
                            self.unknown_node(&node.name, scope)
                        };
                        self.error(node.span, msg);
                        continue;
                    };
                    let Some(a) = self.types.node(n.ty).attr(&attr.name) else {
                        let expected = self.attr_list(n.ty);
                        let msg = format!(
                            "unknown attribute `{}` of `{}`: {expected}",
                            attr.name,
                            self.type_name(n.ty)
                        );
                        self.error(attr.span, msg);
                        continue;
                    };
                    if set_seen.contains(&(n.var, a)) {
                        self.error(
                            *span,
                            format!(
                                "duplicate `set {}.{}`: expected one value per attribute",
                                node.name, attr.name
                            ),
                        );
                        continue;
                    }
                    set_seen.push((n.var, a));
                    let at = self.types.node(n.ty).attrs[a.index()].ty;
                    let what = format!("`{}.{}`", node.name, attr.name);
                    if let Some(value) = self.lower_assigned(value, at, &what, scope) {
                        out.push(Effect::Set {
                            var: n.var,
                            attr: a,
                            value,
                            span: *span,
                        });
                    }
                }
                ast::Effect::NewNode {
                    name, attrs, span, ..
                } => {
                    let Some(n) = created.iter().find(|n| n.name == name.name) else {
                        continue;
                    };
                    if let Some(attrs) = self.lower_new_attrs(n.ty, attrs, scope, *span) {
                        out.push(Effect::NewNode {
                            var: n.var,
                            ty: n.ty,
                            attrs,
                            span: *span,
                        });
                    }
                }
                ast::Effect::DelNode { name, span } => {
                    match lhs_nodes.iter().find(|n| n.name == name.name) {
                        Some(n) => out.push(Effect::DelNode {
                            var: n.var,
                            span: *span,
                        }),
                        None => {
                            let msg = self.unknown_node(&name.name, scope);
                            self.error(name.span, msg);
                        }
                    }
                }
                ast::Effect::NewEdge {
                    src,
                    step,
                    tgt,
                    span,
                }
                | ast::Effect::DelEdge {
                    src,
                    step,
                    tgt,
                    span,
                } => {
                    let is_new = matches!(e, ast::Effect::NewEdge { .. });
                    let visible: Vec<ScopeNode> = lhs_nodes
                        .iter()
                        .chain(if is_new { &created[..] } else { &[] })
                        .cloned()
                        .collect();
                    let ends = [src, tgt].map(|n| {
                        let found = visible.iter().find(|s| s.name == n.name).cloned();
                        if found.is_none() {
                            let msg = self.unknown_node(
                                &n.name,
                                Scope {
                                    nodes: &visible,
                                    this: None,
                                    params,
                                },
                            );
                            self.error(n.span, msg);
                        }
                        found
                    });
                    let label = match step.path.as_label() {
                        Some(l) => self.resolve_label(l),
                        None => {
                            self.error(
                                step.path.span,
                                "a path in an effect: expected one edge label",
                            );
                            None
                        }
                    };
                    let ([Some(a), Some(b)], Some(label)) = (ends, label) else {
                        continue;
                    };
                    let (s, t) = match step.dir {
                        ast::Dir::Out => (a, b),
                        ast::Dir::In => (b, a),
                    };
                    if !self.check_edge_ends(label, &s, &t, *span, is_new) {
                        continue;
                    }
                    let (src, tgt, span) = (s.var, t.var, *span);
                    out.push(if is_new {
                        Effect::NewEdge {
                            src,
                            label,
                            tgt,
                            span,
                        }
                    } else {
                        Effect::DelEdge {
                            src,
                            label,
                            tgt,
                            span,
                        }
                    });
                }
            }
        }
        // The engine applies effects in this order (see `Rule::effects`).
        out.sort_by_key(|e| match e {
            Effect::Set { .. } => 0,
            Effect::DelEdge { .. } => 1,
            Effect::DelNode { .. } => 2,
            Effect::NewNode { .. } => 3,
            Effect::NewEdge { .. } => 4,
        });
        out
    }

    fn lower_new_attrs(
        &mut self,
        ty: NodeTypeId,
        inits: &[ast::AttrInit],
        scope: Scope,
        span: Span,
    ) -> Option<Vec<(crate::model::AttrId, crate::rule::Expr)>> {
        let defs = self.types.node(ty).attrs.clone();
        let mut out = Vec::new();
        let mut ok = true;
        for init in inits {
            let Some(a) = self.types.node(ty).attr(&init.name.name) else {
                let expected = self.attr_list(ty);
                let msg = format!(
                    "unknown attribute `{}` of `{}`: {expected}",
                    init.name.name,
                    self.type_name(ty)
                );
                self.error(init.name.span, msg);
                ok = false;
                continue;
            };
            if out.iter().any(|(b, _)| *b == a) {
                self.error(
                    init.name.span,
                    format!("duplicate attribute `{}`", init.name.name),
                );
                ok = false;
                continue;
            }
            let what = format!("attribute `{}` of `{}`", init.name.name, self.type_name(ty));
            match self.lower_assigned(&init.value, defs[a.index()].ty, &what, scope) {
                Some(e) => out.push((a, e)),
                None => ok = false,
            }
        }
        let missing: Vec<String> = defs
            .iter()
            .enumerate()
            .filter(|(i, d)| !d.ty.optional && !out.iter().any(|(a, _)| a.index() == *i))
            .map(|(_, d)| format!("`{}`", d.name))
            .collect();
        if !missing.is_empty() {
            let msg = format!(
                "a new `{}` needs a value for {}: expected every attribute that is not optional",
                self.type_name(ty),
                missing.join(", ")
            );
            self.error(span, msg);
            ok = false;
        }
        ok.then_some(out)
    }

    pub(super) fn lower_final(&mut self, f: &ast::FinalDecl) -> Option<Condition> {
        self.lower_condition(&f.cond)
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
