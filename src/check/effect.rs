//! Effects of a rule: `set`, `new`, `del`, checked against the left side's nodes and
//! sorted into the order the engine applies them.

use super::expr::{Scope, ScopeNode};
use super::Checker;
use crate::diag::{Diagnostic, Span};
use crate::model::{AttrId, NodeTypeId, VarId};
use crate::rule::{Effect, Expr, Param, Pattern};
use crate::syntax::ast;

impl Checker<'_> {
    pub(super) fn lower_effects(
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
                        .with_note(format!("the first is at line {line}"))
                        .with_label(first.span, "the first is here"),
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
            next: Some(lhs.var_end()),
        };
        let mut out: Vec<Effect> = Vec::new();
        let mut set_seen: Vec<(VarId, AttrId)> = Vec::new();
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
                        } else if self.broken_vars.contains(&node.name) {
                            continue;
                        } else {
                            self.unknown_node(&node.name, scope)
                        };
                        self.error(node.span, msg);
                        self.suggest_last(&node.name, &scope.node_names());
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
                        self.suggest_last(&attr.name, &self.attr_names(n.ty));
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
                        None if self.broken_vars.contains(&name.name) => {}
                        None => {
                            let msg = self.unknown_node(&name.name, scope);
                            self.error(name.span, msg);
                            self.suggest_last(&name.name, &scope.node_names());
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
                        if found.is_none() && !self.broken_vars.contains(&n.name) {
                            let msg = self.unknown_node(
                                &n.name,
                                Scope {
                                    nodes: &visible,
                                    this: None,
                                    params,
                                    next: None,
                                },
                            );
                            self.error(n.span, msg);
                            let names: Vec<&str> =
                                visible.iter().map(|s| s.name.as_str()).collect();
                            self.suggest_last(&n.name, &names);
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
    ) -> Option<Vec<(AttrId, Expr)>> {
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
                self.suggest_last(&init.name.name, &self.attr_names(ty));
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
}
