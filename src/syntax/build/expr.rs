//! pest's parse tree to the spanned AST: expressions, left-associative, with their depth
//! bounded so that later recursive passes cannot overflow the stack.

use pest::iterators::Pair;

use super::{kids, next_ident, span_of, Builder, MAX_CHAIN};
use crate::diag::Span;
use crate::rule::{AggOp, BinOp, UnOp};
use crate::syntax::ast::*;
use crate::syntax::Rule;

impl Builder {
    pub(super) fn expr(&mut self, p: Pair<Rule>) -> Expr {
        self.expr_at(p).0
    }

    /// The expression and the depth of its tree.
    fn expr_at(&mut self, p: Pair<Rule>) -> (Expr, usize) {
        let span = span_of(&p);
        let rule = p.as_rule();
        match rule {
            Rule::expr => {
                if !self.enter(span) {
                    return (placeholder(span), 0);
                }
                let out = match kids(p).next() {
                    Some(c) => self.expr_at(c),
                    None => (placeholder(span), 0),
                };
                self.leave();
                out
            }
            Rule::or_expr | Rule::and_expr => {
                let op = if rule == Rule::or_expr {
                    BinOp::Or
                } else {
                    BinOp::And
                };
                let mut it = kids(p);
                let Some(first) = it.next() else {
                    return (placeholder(span), 0);
                };
                let mut acc = self.expr_at(first);
                for c in it {
                    let rhs = self.expr_at(c);
                    acc = self.binary(op, acc, rhs);
                }
                acc
            }
            Rule::cmp_expr | Rule::sum | Rule::product => {
                let mut it = kids(p);
                let Some(first) = it.next() else {
                    return (placeholder(span), 0);
                };
                let mut acc = self.expr_at(first);
                while let (Some(op), Some(c)) = (it.next(), it.next()) {
                    let rhs = self.expr_at(c);
                    acc = self.binary(bin_op(op.as_str()), acc, rhs);
                }
                acc
            }
            Rule::not_expr | Rule::unary => {
                let is_op = |r: Rule| matches!(r, Rule::negation | Rule::minus);
                let children: Vec<_> = kids(p).collect();
                let ops = children.iter().filter(|c| is_op(c.as_rule())).count();
                let Some(operand) = children.into_iter().find(|c| !is_op(c.as_rule())) else {
                    return (placeholder(span), 0);
                };
                let (mut e, mut depth) = self.expr_at(operand);
                // `-5` is the literal -5, so that constants stay constants.
                if let (1, Rule::unary, ExprKind::Int(n)) = (ops, rule, &e.kind) {
                    return (
                        Expr {
                            kind: ExprKind::Int(-n),
                            span,
                        },
                        depth,
                    );
                }
                if depth + ops > MAX_CHAIN {
                    self.too_deep(span);
                    return (placeholder(span), 0);
                }
                let op = if rule == Rule::not_expr {
                    UnOp::Not
                } else {
                    UnOp::Neg
                };
                for _ in 0..ops {
                    e = Expr {
                        kind: ExprKind::Unary(op, Box::new(e)),
                        span,
                    };
                    depth += 1;
                }
                (e, depth)
            }
            Rule::abs_call | Rule::int_call => match kids(p).next() {
                Some(c) => {
                    let op = if rule == Rule::abs_call {
                        UnOp::Abs
                    } else {
                        UnOp::Int
                    };
                    let (inner, depth) = self.expr_at(c);
                    let kind = ExprKind::Unary(op, Box::new(inner));
                    (Expr { kind, span }, depth + 1)
                }
                None => (placeholder(span), 0),
            },
            Rule::count_call | Rule::fold_call => (self.aggregate(p), 1),
            Rule::int => {
                let kind = ExprKind::Int(self.int(&p));
                (Expr { kind, span }, 1)
            }
            Rule::none => (leaf(ExprKind::None, span), 1),
            Rule::true_lit => (leaf(ExprKind::Bool(true), span), 1),
            Rule::false_lit => (leaf(ExprKind::Bool(false), span), 1),
            Rule::quoted => {
                let text = kids(p).next().map(|t| t.as_str().to_string());
                (leaf(ExprKind::Quoted(text.unwrap_or_default()), span), 1)
            }
            Rule::attr_ref => {
                let mut it = kids(p);
                let node = next_ident(&mut it);
                let attr = next_ident(&mut it);
                (leaf(ExprKind::Attr(node, attr), span), 1)
            }
            _ => (leaf(ExprKind::Name(p.as_str().to_string()), span), 1),
        }
    }

    /// `count(PATTERN)` or `op(EXPR for PATTERN)`. The pattern nests like a NAC's, so it
    /// counts towards the nesting bound.
    fn aggregate(&mut self, p: Pair<Rule>) -> Expr {
        let span = span_of(&p);
        let count = p.as_rule() == Rule::count_call;
        let mut it = kids(p).peekable();
        let op = if count {
            AggOp::Count
        } else {
            match it.next().map(|o| o.as_str()) {
                Some("sum") => AggOp::Sum,
                Some("min") => AggOp::Min,
                Some("max") => AggOp::Max,
                Some("all") => AggOp::All,
                _ => AggOp::Any,
            }
        };
        if !self.enter(span) {
            return placeholder(span);
        }
        let body = if count {
            None
        } else {
            it.next().map(|e| Box::new(self.expr(e)))
        };
        let elems: Vec<PatternElem> = it.filter_map(|e| self.pattern_elem(e)).collect();
        self.leave();
        let pattern_span = match (elems.first(), elems.last()) {
            (Some(a), Some(b)) => elem_span(a).to(elem_span(b)),
            _ => span,
        };
        let pattern = Box::new(PatternBlock {
            elems,
            span: pattern_span,
        });
        leaf(ExprKind::Aggregate(op, body, pattern), span)
    }

    fn binary(
        &mut self,
        op: BinOp,
        (a, da): (Expr, usize),
        (b, db): (Expr, usize),
    ) -> (Expr, usize) {
        let span = a.span.to(b.span);
        let depth = 1 + da.max(db);
        if depth > MAX_CHAIN {
            self.too_deep(span);
            return (placeholder(span), 0);
        }
        let kind = ExprKind::Binary(op, Box::new(a), Box::new(b));
        (Expr { kind, span }, depth)
    }
}

/// Where a pattern element stands.
fn elem_span(e: &PatternElem) -> Span {
    match e {
        PatternElem::Chain(c) => c.span,
        PatternElem::Where(x) => x.span,
        PatternElem::Not(b) => b.span,
    }
}

fn leaf(kind: ExprKind, span: Span) -> Expr {
    Expr { kind, span }
}

/// Stands in for an expression that had an error already reported.
fn placeholder(span: Span) -> Expr {
    leaf(ExprKind::None, span)
}

fn bin_op(s: &str) -> BinOp {
    match s {
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        _ => BinOp::Rem,
    }
}
