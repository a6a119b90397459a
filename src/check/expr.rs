//! Expressions: resolve names (attribute, parameter, domain value), infer int / value /
//! bool, turn integer literals compared with values into domain values.

use std::sync::Arc;

use super::{list_or, Checker};
use crate::diag::Span;
use crate::model::{AttrType, BaseType, NodeTypeId, Value, VarId};
use crate::rule::{AggId, AggOp, Aggregate, BinOp, Expr, ExprKind, Param, UnOp};
use crate::syntax::ast;

/// A pattern node visible to an expression.
#[derive(Clone, Debug)]
pub(super) struct ScopeNode {
    pub name: String,
    pub var: VarId,
    pub ty: NodeTypeId,
    pub span: Span,
}

/// What names an expression can see.
#[derive(Clone, Copy)]
pub(super) struct Scope<'a> {
    pub nodes: &'a [ScopeNode],
    /// The node whose braces the expression stands in: its attributes are bare names.
    pub this: Option<&'a ScopeNode>,
    pub params: &'a [Param],
    /// The variable an aggregate's first own node takes (one past the enclosing pattern's
    /// own); `None` where aggregates cannot stand (generators, start-graph values).
    pub next: Option<u32>,
}

impl Scope<'_> {
    pub const EMPTY: Scope<'static> = Scope {
        nodes: &[],
        this: None,
        params: &[],
        next: None,
    };

    pub fn node(&self, name: &str) -> Option<&ScopeNode> {
        // Later declarations shadow nothing (names are unique), so any match is the one.
        self.nodes.iter().find(|n| n.name == name)
    }

    /// The names of the nodes in scope, for "did you mean".
    pub fn node_names(&self) -> Vec<&str> {
        self.nodes.iter().map(|n| n.name.as_str()).collect()
    }
}

/// The type of an expression. `None` is the literal `none`, which fits any optional type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    Int,
    Value,
    Bool,
    None,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Value => "value",
            Ty::Bool => "bool",
            Ty::None => "none",
        }
    }

    fn of(base: BaseType) -> Ty {
        match base {
            BaseType::Int => Ty::Int,
            BaseType::Value => Ty::Value,
            BaseType::Bool => Ty::Bool,
        }
    }
}

/// A lowered expression with its type.
#[derive(Clone, Debug)]
pub(super) struct Typed {
    pub expr: Expr,
    pub ty: Ty,
    /// The expression may be `none` at run time.
    pub optional: bool,
}

impl Typed {
    fn int_literal(&self) -> Option<i64> {
        match self.expr.kind {
            ExprKind::Const(Value::Int(n)) if self.ty == Ty::Int => Some(n),
            _ => None,
        }
    }
}

impl Checker<'_> {
    /// Lowers an expression; `None` when it has an error (already reported).
    pub(super) fn lower_expr(&mut self, e: &ast::Expr, scope: Scope) -> Option<Typed> {
        let span = e.span;
        let typed = |kind, ty, optional| Typed {
            expr: Expr::new(kind, span),
            ty,
            optional,
        };
        Some(match &e.kind {
            ast::ExprKind::Int(n) => typed(ExprKind::Const(Value::Int(*n)), Ty::Int, false),
            ast::ExprKind::None => typed(ExprKind::Const(Value::None), Ty::None, true),
            ast::ExprKind::Bool(b) => typed(ExprKind::Const(Value::Bool(*b)), Ty::Bool, false),
            ast::ExprKind::Quoted(name) => match self.domain.find(name) {
                Some(i) => typed(ExprKind::Const(Value::Val(i)), Ty::Value, false),
                None => {
                    let d = self.domain.describe();
                    self.error(
                        span,
                        format!("unknown value `'{name}'`: expected one of {d}"),
                    );
                    let values: Vec<String> = (0..self.domain.len())
                        .map(|i| self.domain.name(i as u16).to_string())
                        .collect();
                    self.suggest_last(name, &values);
                    return None;
                }
            },
            ast::ExprKind::Name(name) => return self.lower_name(name, span, scope),
            ast::ExprKind::Attr(node, attr) => {
                let Some(n) = scope.node(&node.name) else {
                    if !self.broken_vars.contains(&node.name) {
                        self.error(node.span, self.unknown_node(&node.name, scope));
                        self.suggest_last(&node.name, &scope.node_names());
                    }
                    return None;
                };
                let (var, ty) = (n.var, n.ty);
                let Some(a) = self
                    .types
                    .nodes
                    .get(ty.index())
                    .and_then(|t| t.attr(&attr.name))
                else {
                    let expected = self.attr_list(ty);
                    let tn = self.type_name(ty).to_string();
                    self.error(
                        attr.span,
                        format!("unknown attribute `{}` of `{tn}`: {expected}", attr.name),
                    );
                    self.suggest_last(&attr.name, &self.attr_names(ty));
                    return None;
                };
                let at = self.types.nodes[ty.index()].attrs[a.index()].ty;
                typed(ExprKind::Attr(var, a), Ty::of(at.base), at.optional)
            }
            ast::ExprKind::Unary(UnOp::Int, inner) => {
                let inner = self.lower_expr(inner, scope)?;
                if !matches!(inner.ty, Ty::Value | Ty::Int | Ty::Bool) {
                    self.error(
                        inner.expr.span,
                        format!(
                            "`int` needs a value or a condition: expected value or bool, found {}",
                            inner.ty.name()
                        ),
                    );
                    return None;
                }
                let optional = inner.optional;
                let ints = if inner.ty == Ty::Bool {
                    Arc::from(crate::rule::expr::CONDITION_INTS)
                } else {
                    self.domain_ints()
                };
                typed(
                    ExprKind::ToInt(Box::new(inner.expr), ints),
                    Ty::Int,
                    optional,
                )
            }
            ast::ExprKind::Unary(op, inner) => {
                let mut inner = self.lower_expr(inner, scope)?;
                let want = if *op == UnOp::Not { Ty::Bool } else { Ty::Int };
                if want == Ty::Int {
                    inner = self.numeric(inner);
                }
                if inner.ty != want {
                    let what = match op {
                        UnOp::Not => "`not`",
                        UnOp::Neg => "`-`",
                        UnOp::Abs | UnOp::Int => "`abs`",
                    };
                    let hint = self.int_hint(inner.ty);
                    self.error(
                        inner.expr.span,
                        format!(
                            "{what} needs {} operand: expected {}, found {}{hint}",
                            article(want),
                            want.name(),
                            inner.ty.name()
                        ),
                    );
                    return None;
                }
                let optional = inner.optional;
                typed(ExprKind::Unary(*op, Box::new(inner.expr)), want, optional)
            }
            ast::ExprKind::Binary(op, a, b) => {
                let a = self.lower_expr(a, scope);
                let b = self.lower_expr(b, scope);
                return self.lower_binary(*op, a?, b?, span);
            }
            ast::ExprKind::Aggregate(op, body, block) => {
                return self.lower_aggregate(*op, body.as_deref(), block, scope, span)
            }
        })
    }

    /// `count(PATTERN)`, `sum(EXPR for PATTERN)`, ...: the pattern is lowered as a NAC is
    /// (it sees the enclosing nodes, its own come after them), EXPR sees both. `count` and
    /// `sum` are ints, `min` and `max` keep EXPR's type and may be none, `all` and `any` are
    /// bool.
    fn lower_aggregate(
        &mut self,
        op: AggOp,
        body: Option<&ast::Expr>,
        block: &ast::PatternBlock,
        scope: Scope,
        span: Span,
    ) -> Option<Typed> {
        let name = op.name();
        let Some(bound) = scope.next else {
            self.error(
                span,
                format!("`{name}(...)` cannot stand here: aggregates belong in rules (patterns, NACs, effects) and `final:`, expected an expression without one"),
            );
            return None;
        };
        let errors = self.diags.len();
        let (pattern, own) = self.lower_pattern(block, bound, scope.nodes, scope.params);
        let visible: Vec<ScopeNode> = scope.nodes.iter().chain(&own).cloned().collect();
        let inner = Scope {
            nodes: &visible,
            this: scope.this,
            params: scope.params,
            next: Some(pattern.var_end()),
        };
        let body = match body {
            Some(b) => Some(self.lower_expr(b, inner)?),
            None => None,
        };
        if self.diags.len() > errors {
            return None;
        }
        let (body, ty, optional) = match (op, body) {
            (AggOp::Count, _) => (None, Ty::Int, false),
            (AggOp::Sum, Some(b)) => {
                let b = self.numeric(b);
                if b.ty != Ty::Int {
                    let hint = self.int_hint(b.ty);
                    self.error(
                        b.expr.span,
                        format!(
                            "`sum` adds ints: expected an int expression, found {}{hint}",
                            b.ty.name()
                        ),
                    );
                    return None;
                }
                (Some(b.expr), Ty::Int, false)
            }
            (AggOp::Min | AggOp::Max, Some(b)) => {
                if !matches!(b.ty, Ty::Int | Ty::Value) {
                    self.error(
                        b.expr.span,
                        format!(
                            "`{name}` orders ints or values: expected an int or a value expression, found {}",
                            b.ty.name()
                        ),
                    );
                    return None;
                }
                (Some(b.expr), b.ty, true)
            }
            (AggOp::All | AggOp::Any, Some(b)) => {
                if b.ty != Ty::Bool {
                    self.error(
                        b.expr.span,
                        format!(
                            "`{name}` tests a condition at each match: expected a comparison, found {}",
                            b.ty.name()
                        ),
                    );
                    return None;
                }
                (Some(b.expr), Ty::Bool, false)
            }
            // The grammar gives every form but `count` an expression.
            (_, None) => return None,
        };
        let id = AggId(self.next_agg);
        self.next_agg += 1;
        let agg = Aggregate {
            id,
            op,
            body,
            pattern,
        };
        Some(Typed {
            expr: Expr::new(ExprKind::Aggregate(Box::new(agg)), span),
            ty,
            optional,
        })
    }

    fn lower_name(&mut self, name: &str, span: Span, scope: Scope) -> Option<Typed> {
        if let Some(this) = scope.this {
            if let Some(a) = self
                .types
                .nodes
                .get(this.ty.index())
                .and_then(|t| t.attr(name))
            {
                let at = self.types.nodes[this.ty.index()].attrs[a.index()].ty;
                return Some(Typed {
                    expr: Expr::new(ExprKind::Attr(this.var, a), span),
                    ty: Ty::of(at.base),
                    optional: at.optional,
                });
            }
        }
        if let Some(i) = scope.params.iter().position(|p| p.name == name) {
            let pt = scope.params[i].ty;
            return Some(Typed {
                expr: Expr::new(ExprKind::Param(i as u32), span),
                ty: Ty::of(pt.base),
                optional: pt.optional,
            });
        }
        if let Some(v) = self.domain.find(name) {
            return Some(Typed {
                expr: Expr::new(ExprKind::Const(Value::Val(v)), span),
                ty: Ty::Value,
                optional: false,
            });
        }
        let message = if let Some(n) = scope.node(name) {
            let example = self
                .types
                .nodes
                .get(n.ty.index())
                .and_then(|t| t.attrs.first())
                .map_or("attr".to_string(), |a| a.name.clone());
            format!(
                "`{name}` is a node, not a value: expected an attribute such as `{name}.{example}`"
            )
        } else {
            let mut kinds = Vec::new();
            if let Some(this) = scope.this {
                kinds.push(format!("an attribute of `{}`", self.type_name(this.ty)));
            }
            if !scope.params.is_empty() {
                kinds.push("a parameter".to_string());
            }
            kinds.push(format!("a value ({})", self.domain.describe()));
            format!("unknown name `{name}`: expected {}", list_or(&kinds))
        };
        self.error(span, message);
        let mut names: Vec<String> = scope.this.map_or(Vec::new(), |t| self.attr_names(t.ty));
        names.extend(scope.params.iter().map(|p| p.name.clone()));
        names.extend((0..self.domain.len()).map(|i| self.domain.name(i as u16).to_string()));
        names.extend(["none", "true", "false"].map(String::from));
        self.suggest_last(name, &names);
        None
    }

    fn lower_binary(&mut self, op: BinOp, a: Typed, b: Typed, span: Span) -> Option<Typed> {
        let sym = op.symbol();
        let optional = a.optional || b.optional;
        let (a, b, ty) = match op {
            BinOp::And | BinOp::Or => {
                for side in [&a, &b] {
                    if side.ty != Ty::Bool {
                        self.error(
                            side.expr.span,
                            format!(
                                "`{sym}` needs bool operands: expected bool, found {}",
                                side.ty.name()
                            ),
                        );
                        return None;
                    }
                }
                (a, b, Ty::Bool)
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => {
                let (a, b) = (self.numeric(a), self.numeric(b));
                for side in [&a, &b] {
                    if side.ty != Ty::Int {
                        let hint = self.int_hint(side.ty);
                        self.error(
                            side.expr.span,
                            format!(
                                "`{sym}` needs int operands: expected int, found {}{hint}",
                                side.ty.name()
                            ),
                        );
                        return None;
                    }
                }
                (a, b, Ty::Int)
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let ordering = !matches!(op, BinOp::Eq | BinOp::Ne);
                let (a, b) = self.unify(a, b, sym)?;
                if ordering {
                    for side in [&a, &b] {
                        if side.ty == Ty::None {
                            self.error(
                                side.expr.span,
                                format!("`{sym}` cannot order `none`: expected an int or a value (use `==` or `!=` to test for none)"),
                            );
                            return None;
                        }
                    }
                }
                (a, b, Ty::Bool)
            }
        };
        // Ordering and arithmetic on `none` give `none`; `==`, `!=`, `and`, `or` never do.
        let optional = optional && !matches!(op, BinOp::Eq | BinOp::Ne | BinOp::And | BinOp::Or);
        Some(Typed {
            expr: Expr::new(
                ExprKind::Binary(op, Box::new(a.expr), Box::new(b.expr)),
                span,
            ),
            ty,
            optional,
        })
    }

    /// Makes both sides of a comparison one type: an integer literal beside a value is the
    /// domain value written that way; `none` fits anything.
    fn unify(&mut self, a: Typed, b: Typed, sym: &str) -> Option<(Typed, Typed)> {
        if a.ty == b.ty || a.ty == Ty::None || b.ty == Ty::None {
            return Some((a, b));
        }
        if a.ty == Ty::Value && b.int_literal().is_some() {
            let b = self.int_as_value(b)?;
            return Some((a, b));
        }
        if b.ty == Ty::Value && a.int_literal().is_some() {
            let a = self.int_as_value(a)?;
            return Some((a, b));
        }
        // A value beside a computed int compares as its number (`d.val == v + 1`).
        if self.domain.is_numeric()
            && matches!((a.ty, b.ty), (Ty::Value, Ty::Int) | (Ty::Int, Ty::Value))
        {
            return Some((self.numeric(a), self.numeric(b)));
        }
        let hint = self.int_hint(if a.ty == Ty::Value { a.ty } else { b.ty });
        self.error(
            b.expr.span,
            format!(
                "`{sym}` compares {} with {}: expected both sides of one type{hint}",
                a.ty.name(),
                b.ty.name()
            ),
        );
        None
    }

    /// Each domain value's integer, for [`ExprKind::ToInt`] and [`ExprKind::ToValue`].
    fn domain_ints(&self) -> Arc<[i64]> {
        Arc::from(self.domain.ints())
    }

    /// A value of a numeric domain as its number, for arithmetic; anything else as it is.
    fn numeric(&self, t: Typed) -> Typed {
        if t.ty != Ty::Value || !self.domain.is_numeric() {
            return t;
        }
        let span = t.expr.span;
        Typed {
            expr: Expr::new(ExprKind::ToInt(Box::new(t.expr), self.domain_ints()), span),
            ty: Ty::Int,
            optional: t.optional,
        }
    }

    /// Why a value did not count as a number, where that is the problem.
    fn int_hint(&self, found: Ty) -> String {
        if found == Ty::Value && !self.domain.is_numeric() {
            format!(
                " (the values {} are not all numbers: `int(v)` gives a value's position, 1 for the first)",
                self.domain.describe()
            )
        } else {
            String::new()
        }
    }

    /// An integer literal standing where a value is expected.
    fn int_as_value(&mut self, t: Typed) -> Option<Typed> {
        let n = t.int_literal()?;
        match self.domain.find_int(n) {
            Some(v) => Some(Typed {
                expr: Expr::new(ExprKind::Const(Value::Val(v)), t.expr.span),
                ty: Ty::Value,
                optional: false,
            }),
            None => {
                let d = self.domain.describe();
                self.error(
                    t.expr.span,
                    format!("value `{n}` is outside the domain: expected one of {d}"),
                );
                None
            }
        }
    }

    /// Lowers a condition, which must be bool.
    pub(super) fn lower_cond(&mut self, e: &ast::Expr, scope: Scope) -> Option<Expr> {
        let t = self.lower_expr(e, scope)?;
        if t.ty != Ty::Bool {
            self.error(
                t.expr.span,
                format!(
                    "a condition must be bool: expected a comparison, found {}",
                    t.ty.name()
                ),
            );
            return None;
        }
        Some(t.expr)
    }

    /// Lowers an expression assigned to something of type `target` (`what` names it).
    pub(super) fn lower_assigned(
        &mut self,
        e: &ast::Expr,
        target: AttrType,
        what: &str,
        scope: Scope,
    ) -> Option<Expr> {
        let mut t = self.lower_expr(e, scope)?;
        let want = Ty::of(target.base);
        if want == Ty::Value && t.int_literal().is_some() {
            t = self.int_as_value(t)?;
        } else if want == Ty::Value && t.ty == Ty::Int && self.domain.is_numeric() {
            // A computed number becomes the value written as it, or `none` when no value is.
            let span = t.expr.span;
            t = Typed {
                expr: Expr::new(
                    ExprKind::ToValue(Box::new(t.expr), self.domain_ints()),
                    span,
                ),
                ty: Ty::Value,
                optional: true,
            };
        }
        if t.ty == Ty::None {
            if !target.optional {
                self.error(
                    t.expr.span,
                    format!("{what} is not optional: expected {target}, found none"),
                );
                return None;
            }
            return Some(t.expr);
        }
        if t.ty != want {
            self.error(
                t.expr.span,
                format!(
                    "{what} has type {target}: expected {}, found {}",
                    want.name(),
                    t.ty.name()
                ),
            );
            return None;
        }
        if t.optional && !target.optional {
            self.error(
                t.expr.span,
                format!("{what} is not optional, but this may be none: expected {target}"),
            );
            return None;
        }
        Some(t.expr)
    }

    pub(super) fn unknown_node(&self, name: &str, scope: Scope) -> String {
        let known: Vec<String> = scope
            .nodes
            .iter()
            .map(|n| format!("`{}`", n.name))
            .collect();
        if known.is_empty() {
            format!("unknown node `{name}`: no node is declared here")
        } else {
            format!("unknown node `{name}`: expected {}", list_or(&known))
        }
    }
}

fn article(t: Ty) -> &'static str {
    match t {
        Ty::Int => "an int",
        Ty::Value => "a value",
        Ty::Bool => "a bool",
        Ty::None => "a",
    }
}
