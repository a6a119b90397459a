//! Typed attribute expressions of patterns, NACs, effects and generators, and their value.
//!
//! Semantics: `==` and `!=` compare any two values, `none` included. Ordering comparisons
//! and arithmetic on `none` (or undefined arithmetic: division by zero, overflow) give
//! `none`, and a comparison or condition that is `none` counts as false. So `d.val <= v`
//! is false while `d.val` is empty. Values of the domain compare by declaration order.
//!
//! Values take part in arithmetic through their integer ([`ExprKind::ToInt`]): the number a
//! value is written as on an integer domain (`values 1..9`), its 1-based position in the
//! domain otherwise (`int(v)`). An integer becomes a value again through
//! [`ExprKind::ToValue`], which is `none` when no value has that integer.

use std::sync::Arc;

use crate::diag::Span;
use crate::model::{AttrId, Value, VarId};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Not,
    Neg,
    Abs,
    /// `int(v)`: a value's integer. Lowered to [`ExprKind::ToInt`], which carries the
    /// domain's integers; on an int it is the int itself.
    Int,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::And => "and",
            BinOp::Or => "or",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExprKind {
    Const(Value),
    /// A rule parameter, by position.
    Param(u32),
    /// An attribute of the node bound to a pattern variable.
    Attr(VarId, AttrId),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A domain value's integer, `ints[index]`.
    ToInt(Box<Expr>, Arc<[i64]>),
    /// The domain value whose integer the int is (its index in `ints`); `none` when none is.
    ToValue(Box<Expr>, Arc<[i64]>),
}

/// A type-checked expression. The span points at its text for diagnostics.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// Where an expression reads its parameters and attributes from.
pub trait Env {
    fn param(&self, index: u32) -> Value;
    fn attr(&self, var: VarId, attr: AttrId) -> Value;
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    pub fn constant(v: Value) -> Expr {
        Expr::new(ExprKind::Const(v), Span::default())
    }

    /// Evaluates the expression. Never panics: undefined operations give `Value::None`.
    pub fn eval(&self, env: &impl Env) -> Value {
        match &self.kind {
            ExprKind::Const(v) => *v,
            ExprKind::Param(i) => env.param(*i),
            ExprKind::Attr(var, a) => env.attr(*var, *a),
            ExprKind::Unary(op, e) => unary(*op, e.eval(env)),
            ExprKind::Binary(BinOp::And, a, b) => {
                Value::Bool(a.eval(env) == Value::Bool(true) && b.eval(env) == Value::Bool(true))
            }
            ExprKind::Binary(BinOp::Or, a, b) => {
                Value::Bool(a.eval(env) == Value::Bool(true) || b.eval(env) == Value::Bool(true))
            }
            ExprKind::Binary(op, a, b) => binary(*op, a.eval(env), b.eval(env)),
            ExprKind::ToInt(e, ints) => match e.eval(env) {
                Value::Val(i) => ints
                    .get(usize::from(i))
                    .map_or(Value::None, |&n| Value::Int(n)),
                Value::Int(n) => Value::Int(n),
                _ => Value::None,
            },
            ExprKind::ToValue(e, ints) => match e.eval(env) {
                Value::Int(n) => ints
                    .iter()
                    .position(|&m| m == n)
                    .map_or(Value::None, |i| Value::Val(i as u16)),
                v @ Value::Val(_) => v,
                _ => Value::None,
            },
        }
    }

    /// True when the expression, read as a condition, holds.
    pub fn holds(&self, env: &impl Env) -> bool {
        self.eval(env) == Value::Bool(true)
    }

    /// Calls `f` on every pattern variable the expression reads.
    pub fn visit_attrs(&self, f: &mut impl FnMut(VarId, AttrId)) {
        match &self.kind {
            ExprKind::Const(_) | ExprKind::Param(_) => {}
            ExprKind::Attr(v, a) => f(*v, *a),
            ExprKind::Unary(_, e) | ExprKind::ToInt(e, _) | ExprKind::ToValue(e, _) => {
                e.visit_attrs(f)
            }
            ExprKind::Binary(_, a, b) => {
                a.visit_attrs(f);
                b.visit_attrs(f);
            }
        }
    }

    /// True when the expression reads a rule parameter.
    pub fn reads_params(&self) -> bool {
        match &self.kind {
            ExprKind::Param(_) => true,
            ExprKind::Const(_) | ExprKind::Attr(..) => false,
            ExprKind::Unary(_, e) | ExprKind::ToInt(e, _) | ExprKind::ToValue(e, _) => {
                e.reads_params()
            }
            ExprKind::Binary(_, a, b) => a.reads_params() || b.reads_params(),
        }
    }

    /// The largest variable index read plus one (0 when none is read).
    pub fn max_var(&self) -> usize {
        let mut m = 0;
        self.visit_attrs(&mut |v, _| m = m.max(v.index() + 1));
        m
    }
}

fn unary(op: UnOp, v: Value) -> Value {
    match (op, v) {
        (UnOp::Not, Value::Bool(b)) => Value::Bool(!b),
        (UnOp::Neg, Value::Int(n)) => n.checked_neg().map_or(Value::None, Value::Int),
        (UnOp::Abs, Value::Int(n)) => n.checked_abs().map_or(Value::None, Value::Int),
        (UnOp::Int, Value::Int(n)) => Value::Int(n),
        _ => Value::None,
    }
}

fn binary(op: BinOp, a: Value, b: Value) -> Value {
    use std::cmp::Ordering;
    let order = |a: Value, b: Value| -> Option<Ordering> {
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => Some(x.cmp(&y)),
            (Value::Val(x), Value::Val(y)) => Some(x.cmp(&y)),
            (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(&y)),
            _ => None,
        }
    };
    let arith = |f: fn(i64, i64) -> Option<i64>| match (a, b) {
        (Value::Int(x), Value::Int(y)) => f(x, y).map_or(Value::None, Value::Int),
        _ => Value::None,
    };
    match op {
        BinOp::Eq => Value::Bool(a == b),
        BinOp::Ne => Value::Bool(a != b),
        BinOp::Lt => order(a, b).map_or(Value::None, |o| Value::Bool(o.is_lt())),
        BinOp::Le => order(a, b).map_or(Value::None, |o| Value::Bool(o.is_le())),
        BinOp::Gt => order(a, b).map_or(Value::None, |o| Value::Bool(o.is_gt())),
        BinOp::Ge => order(a, b).map_or(Value::None, |o| Value::Bool(o.is_ge())),
        BinOp::Add => arith(i64::checked_add),
        BinOp::Sub => arith(i64::checked_sub),
        BinOp::Mul => arith(i64::checked_mul),
        BinOp::Div => arith(i64::checked_div),
        BinOp::Rem => arith(i64::checked_rem),
        BinOp::And | BinOp::Or => unreachable!("short-circuit operators are handled in eval"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoEnv;
    impl Env for NoEnv {
        fn param(&self, _: u32) -> Value {
            Value::Val(2)
        }
        fn attr(&self, _: VarId, _: AttrId) -> Value {
            Value::None
        }
    }

    fn bin(op: BinOp, a: ExprKind, b: ExprKind) -> Expr {
        Expr::new(
            ExprKind::Binary(
                op,
                Box::new(Expr::new(a, Span::default())),
                Box::new(Expr::new(b, Span::default())),
            ),
            Span::default(),
        )
    }

    #[test]
    fn comparisons_with_none_are_false_but_equality_sees_it() {
        let none_le_v = bin(
            BinOp::Le,
            ExprKind::Attr(VarId(0), AttrId(0)),
            ExprKind::Param(0),
        );
        assert!(!none_le_v.holds(&NoEnv));
        let none_eq_none = bin(
            BinOp::Eq,
            ExprKind::Attr(VarId(0), AttrId(0)),
            ExprKind::Const(Value::None),
        );
        assert!(none_eq_none.holds(&NoEnv));
    }

    #[test]
    fn undefined_arithmetic_is_none_not_a_panic() {
        let div = bin(
            BinOp::Div,
            ExprKind::Const(Value::Int(1)),
            ExprKind::Const(Value::Int(0)),
        );
        assert_eq!(div.eval(&NoEnv), Value::None);
        let overflow = bin(
            BinOp::Mul,
            ExprKind::Const(Value::Int(i64::MAX)),
            ExprKind::Const(Value::Int(2)),
        );
        assert_eq!(overflow.eval(&NoEnv), Value::None);
    }
}
