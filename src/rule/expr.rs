//! Typed attribute expressions of patterns, NACs, effects and generators, and their value.
//!
//! Semantics: `==` and `!=` compare any two values, `none` included. Ordering comparisons
//! and arithmetic on `none` (or undefined arithmetic: division by zero, overflow) give
//! `none`, and a comparison or condition that is `none` counts as false. So `d.val <= v`
//! is false while `d.val` is empty. Values of the domain compare by declaration order.
//!
//! Aggregates ([`ExprKind::Aggregate`]) fold an expression over the matches of a pattern
//! that sees the enclosing nodes: `count` counts the matches, `sum` adds the defined ints,
//! `min` and `max` keep the least and greatest defined value (none when there is none), `all`
//! and `any` ask whether every or some match satisfies a condition. A sum that overflows is
//! none, as arithmetic is.
//!
//! Values take part in arithmetic through their integer ([`ExprKind::ToInt`]): the number a
//! value is written as on an integer domain (`values 1..9`), its 1-based position in the
//! domain otherwise (`int(v)`). An integer becomes a value again through
//! [`ExprKind::ToValue`], which is `none` when no value has that integer.

use std::sync::Arc;

use crate::diag::Span;
use crate::model::{AttrId, Value, VarId};

use super::pattern::Pattern;

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
    /// An equality or an ordering: a boolean of two values of one kind.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

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

/// What an aggregate computes over the matches of its pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggOp {
    /// `count(PATTERN)`: the number of matches.
    Count,
    /// `sum(EXPR for PATTERN)`: the sum of the ints EXPR takes (none skipped).
    Sum,
    /// `min(EXPR for PATTERN)`: the least value EXPR takes (none skipped); none if none.
    Min,
    /// `max(EXPR for PATTERN)`: the greatest.
    Max,
    /// `all(COND for PATTERN)`: every match satisfies COND (true when there is none).
    All,
    /// `any(COND for PATTERN)`: some match satisfies COND.
    Any,
}

impl AggOp {
    /// The word the language writes it with.
    pub fn name(self) -> &'static str {
        match self {
            AggOp::Count => "count",
            AggOp::Sum => "sum",
            AggOp::Min => "min",
            AggOp::Max => "max",
            AggOp::All => "all",
            AggOp::Any => "any",
        }
    }
}

/// Identifies an aggregate in its grammar: compiled plans find theirs by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AggId(pub u32);

/// `count(PATTERN)`, `sum(EXPR for PATTERN)`, ...: a fold over the matches of `pattern`,
/// which sees the enclosing nodes (variables `0..pattern.bound`) and binds its own after
/// them. As for a NAC, matching is injective: its own nodes differ from every enclosing node
/// and from each other.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Aggregate {
    /// Unique in the grammar.
    pub id: AggId,
    pub op: AggOp,
    /// The expression folded, over the enclosing and the pattern's nodes; `None` for
    /// `count`.
    pub body: Option<Expr>,
    pub pattern: Pattern,
}

impl Aggregate {
    /// Calls `f` on every variable of the enclosing patterns that the aggregate reads: an
    /// attribute, or a node its pattern's edges start or end at.
    fn visit_outer_vars(&self, f: &mut dyn FnMut(VarId)) {
        let bound = self.pattern.bound;
        let mut outer = |v: VarId| {
            if v.0 < bound {
                f(v)
            }
        };
        if let Some(b) = &self.body {
            b.visit_vars(&mut outer);
        }
        self.pattern.visit_vars(&mut outer);
    }

    /// The binding array length its evaluation needs.
    pub fn depth(&self) -> u32 {
        let body = self.body.as_ref().map_or(0, Expr::depth);
        self.pattern.depth().max(body)
    }
}

/// The result of an aggregate, fed the value of its expression at one match after another.
#[derive(Clone, Debug)]
pub struct Fold {
    op: AggOp,
    acc: Value,
    /// The result is known whatever the remaining matches are.
    settled: bool,
}

impl Fold {
    pub fn new(op: AggOp) -> Fold {
        let acc = match op {
            AggOp::Count | AggOp::Sum => Value::Int(0),
            AggOp::Min | AggOp::Max => Value::None,
            AggOp::All => Value::Bool(true),
            AggOp::Any => Value::Bool(false),
        };
        Fold {
            op,
            acc,
            settled: false,
        }
    }

    /// Adds one match, where the expression is `v` (anything for `count`). True once the
    /// result is settled (`any` met true, `all` met a match that fails, a sum overflowed),
    /// so that the caller may stop.
    #[inline]
    pub fn add(&mut self, v: Value) -> bool {
        if self.settled {
            return true;
        }
        match self.op {
            AggOp::Count | AggOp::Sum => {
                let step = match (self.op, v) {
                    (AggOp::Count, _) => Some(1),
                    (_, Value::Int(n)) => Some(n),
                    _ => None,
                };
                if let (Some(n), Value::Int(acc)) = (step, self.acc) {
                    match acc.checked_add(n) {
                        Some(x) => self.acc = Value::Int(x),
                        None => {
                            self.acc = Value::None;
                            self.settled = true;
                        }
                    }
                }
            }
            AggOp::Min | AggOp::Max => {
                let better = match (self.acc, v) {
                    (_, Value::None) => false,
                    (Value::None, _) => true,
                    (Value::Int(a), Value::Int(b)) => (b < a) == (self.op == AggOp::Min) && a != b,
                    (Value::Val(a), Value::Val(b)) => (b < a) == (self.op == AggOp::Min) && a != b,
                    _ => false,
                };
                if better {
                    self.acc = v;
                }
            }
            AggOp::All => {
                if v != Value::Bool(true) {
                    self.acc = Value::Bool(false);
                    self.settled = true;
                }
            }
            AggOp::Any => {
                if v == Value::Bool(true) {
                    self.acc = Value::Bool(true);
                    self.settled = true;
                }
            }
        }
        self.settled
    }

    pub fn finish(self) -> Value {
        self.acc
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
    /// A domain value's integer, `ints[index]`; a condition's 0 or 1 (`int(d.val > 5)`,
    /// with [`CONDITION_INTS`]).
    ToInt(Box<Expr>, Arc<[i64]>),
    /// The domain value whose integer the int is (its index in `ints`); `none` when none is.
    ToValue(Box<Expr>, Arc<[i64]>),
    /// A fold over the matches of a pattern (see [`Aggregate`]).
    Aggregate(Box<Aggregate>),
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
    /// The aggregate's value under the current binding.
    fn aggregate(&self, agg: &Aggregate) -> Value;
}

impl Expr {
    /// This expression with every span, its own and its aggregates' patterns', the empty
    /// one: conditions written alike in two places (two rule files from one template)
    /// compare and hash alike.
    pub fn without_spans(&self) -> Expr {
        let inner = |x: &Expr| Box::new(x.without_spans());
        let kind = match &self.kind {
            ExprKind::Const(v) => ExprKind::Const(*v),
            ExprKind::Param(i) => ExprKind::Param(*i),
            ExprKind::Attr(v, a) => ExprKind::Attr(*v, *a),
            ExprKind::Unary(op, x) => ExprKind::Unary(*op, inner(x)),
            ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, inner(a), inner(b)),
            ExprKind::ToInt(x, ints) => ExprKind::ToInt(inner(x), ints.clone()),
            ExprKind::ToValue(x, ints) => ExprKind::ToValue(inner(x), ints.clone()),
            ExprKind::Aggregate(a) => ExprKind::Aggregate(Box::new(Aggregate {
                id: a.id,
                op: a.op,
                body: a.body.as_ref().map(Expr::without_spans),
                pattern: a.pattern.without_spans(),
            })),
        };
        Expr {
            kind,
            span: Span::default(),
        }
    }

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
            ExprKind::ToInt(e, ints) => to_int(e.eval(env), ints),
            ExprKind::ToValue(e, ints) => to_value(e.eval(env), ints),
            ExprKind::Aggregate(a) => env.aggregate(a),
        }
    }

    /// True when the expression, read as a condition, holds.
    pub fn holds(&self, env: &impl Env) -> bool {
        self.eval(env) == Value::Bool(true)
    }

    /// Calls `f` on every attribute of a pattern variable the expression reads, inside
    /// aggregates too (there only the enclosing patterns' variables, not the aggregate's own).
    pub fn visit_attrs(&self, f: &mut dyn FnMut(VarId, AttrId)) {
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
            ExprKind::Aggregate(agg) => {
                let bound = agg.pattern.bound;
                let mut outer = |v: VarId, a: AttrId| {
                    if v.0 < bound {
                        f(v, a)
                    }
                };
                if let Some(b) = &agg.body {
                    b.visit_attrs(&mut outer);
                }
                agg.pattern.visit_attrs(&mut outer);
            }
        }
    }

    /// Calls `f` on every pattern variable the expression depends on: those whose attributes
    /// it reads and, inside aggregates, the enclosing nodes their patterns are attached to.
    pub fn visit_vars(&self, f: &mut dyn FnMut(VarId)) {
        match &self.kind {
            ExprKind::Aggregate(agg) => agg.visit_outer_vars(f),
            ExprKind::Unary(_, e) | ExprKind::ToInt(e, _) | ExprKind::ToValue(e, _) => {
                e.visit_vars(f)
            }
            ExprKind::Binary(_, a, b) => {
                a.visit_vars(f);
                b.visit_vars(f);
            }
            ExprKind::Attr(v, _) => f(*v),
            ExprKind::Const(_) | ExprKind::Param(_) => {}
        }
    }

    /// Calls `f` on each aggregate of the expression that is not inside another.
    pub fn visit_aggregates<'e>(&'e self, f: &mut impl FnMut(&'e Aggregate)) {
        match &self.kind {
            ExprKind::Aggregate(agg) => f(agg),
            ExprKind::Unary(_, e) | ExprKind::ToInt(e, _) | ExprKind::ToValue(e, _) => {
                e.visit_aggregates(f)
            }
            ExprKind::Binary(_, a, b) => {
                a.visit_aggregates(f);
                b.visit_aggregates(f);
            }
            ExprKind::Const(_) | ExprKind::Param(_) | ExprKind::Attr(..) => {}
        }
    }

    /// Adds to `out` the parts of a condition `a and b and ...` joined by `and`.
    pub fn conjuncts<'e>(&'e self, out: &mut Vec<&'e Expr>) {
        match &self.kind {
            ExprKind::Binary(BinOp::And, a, b) => {
                a.conjuncts(out);
                b.conjuncts(out);
            }
            _ => out.push(self),
        }
    }

    /// True when the expression holds an aggregate.
    pub fn has_aggregate(&self) -> bool {
        let mut any = false;
        self.visit_aggregates(&mut |_| any = true);
        any
    }

    /// The binding array length its aggregates need (0 without aggregates).
    pub fn depth(&self) -> u32 {
        let mut d = 0;
        self.visit_aggregates(&mut |a| d = d.max(a.depth()));
        d
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
            ExprKind::Aggregate(agg) => {
                agg.body.as_ref().is_some_and(Expr::reads_params) || agg.pattern.reads_params()
            }
        }
    }

    /// The largest variable index it depends on plus one (0 when none).
    pub fn max_var(&self) -> usize {
        let mut m = 0;
        self.visit_vars(&mut |v| m = m.max(v.index() + 1));
        m
    }
}

/// The integers of `false` and `true` for [`ExprKind::ToInt`] of a condition: counting
/// with a condition (`count(...) + int(v == 0)`) is the Iverson bracket.
pub const CONDITION_INTS: [i64; 2] = [0, 1];

/// A value's integer (`ints[index]`), a condition's (`ints[0]` for false, `ints[1]` for
/// true: [`CONDITION_INTS`] makes them 0 and 1); an int is itself, anything else none.
pub fn to_int(v: Value, ints: &[i64]) -> Value {
    let at = |i: usize| ints.get(i).map_or(Value::None, |&n| Value::Int(n));
    match v {
        Value::Val(i) => at(usize::from(i)),
        Value::Bool(b) => at(usize::from(b)),
        Value::Int(n) => Value::Int(n),
        _ => Value::None,
    }
}

/// The value whose integer an int is (none when none is); a value is itself.
pub fn to_value(v: Value, ints: &[i64]) -> Value {
    match v {
        Value::Int(n) => ints
            .iter()
            .position(|&m| m == n)
            .map_or(Value::None, |i| Value::Val(i as u16)),
        v @ Value::Val(_) => v,
        _ => Value::None,
    }
}

/// The value of `op v` (none where undefined).
pub fn unary(op: UnOp, v: Value) -> Value {
    match (op, v) {
        (UnOp::Not, Value::Bool(b)) => Value::Bool(!b),
        (UnOp::Neg, Value::Int(n)) => n.checked_neg().map_or(Value::None, Value::Int),
        (UnOp::Abs, Value::Int(n)) => n.checked_abs().map_or(Value::None, Value::Int),
        (UnOp::Int, Value::Int(n)) => Value::Int(n),
        _ => Value::None,
    }
}

/// The value of `a op b` for every operator but `and` and `or` (none where undefined).
pub fn binary(op: BinOp, a: Value, b: Value) -> Value {
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
        fn aggregate(&self, _: &Aggregate) -> Value {
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

    fn fold(op: AggOp, values: &[Value]) -> Value {
        let mut f = Fold::new(op);
        for &v in values {
            f.add(v);
        }
        f.finish()
    }

    #[test]
    fn folds_skip_none_and_settle_early() {
        use Value::{Bool, Int, None as N, Val};
        assert_eq!(fold(AggOp::Count, &[N, Int(3), N]), Int(3));
        assert_eq!(fold(AggOp::Count, &[]), Int(0));
        assert_eq!(fold(AggOp::Sum, &[Int(2), N, Int(5)]), Int(7));
        assert_eq!(fold(AggOp::Sum, &[]), Int(0));
        assert_eq!(fold(AggOp::Sum, &[Int(i64::MAX), Int(1), Int(-5)]), N);
        assert_eq!(fold(AggOp::Min, &[N, Int(4), Int(2), Int(9)]), Int(2));
        assert_eq!(fold(AggOp::Max, &[Val(1), N, Val(7), Val(3)]), Val(7));
        assert_eq!(fold(AggOp::Min, &[N, N]), N);
        assert_eq!(fold(AggOp::Max, &[]), N);
        assert_eq!(fold(AggOp::All, &[]), Bool(true));
        assert_eq!(fold(AggOp::All, &[Bool(true), N]), Bool(false));
        assert_eq!(fold(AggOp::Any, &[]), Bool(false));
        assert_eq!(fold(AggOp::Any, &[N, Bool(false), Bool(true)]), Bool(true));
        let mut any = Fold::new(AggOp::Any);
        assert!(!any.add(Bool(false)));
        assert!(any.add(Bool(true)));
        let mut all = Fold::new(AggOp::All);
        assert!(all.add(N), "an undefined condition fails `all`");
    }
}
