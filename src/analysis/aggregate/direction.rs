//! The direction calculus of condition 5: how each part of a NAC's condition moves as the
//! cells of its group fill, and the completion of aggregates written without the filled
//! cell.

use crate::diag::Span;
use crate::model::{NodeTypeId, Value};
use crate::rule::{AggOp, Aggregate, BinOp, Expr, ExprKind, Pattern, UnOp};

use super::group::{constant_in_fill, is_share, Completion};
use super::{not_monotone, related, Cx, NacCx, MAX_FACTOR};
use crate::analysis::refusal::Refusal;

/// How a quantity moves as cells fill: not at all, only up (a condition: only from false
/// to true), only down, or either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dir {
    Const,
    Up,
    Down,
    Any,
}

impl Dir {
    /// The direction of a sum of two such quantities (or of `and`, `or` of conditions).
    pub(super) fn join(self, o: Dir) -> Dir {
        match (self, o) {
            (Dir::Const, x) | (x, Dir::Const) => x,
            (a, b) if a == b => a,
            _ => Dir::Any,
        }
    }

    fn flip(self) -> Dir {
        match self {
            Dir::Up => Dir::Down,
            Dir::Down => Dir::Up,
            d => d,
        }
    }

    /// From whether each member's change can raise and can lower the quantity.
    pub(super) fn of(raises: bool, lowers: bool) -> Dir {
        match (raises, lowers) {
            (false, false) => Dir::Const,
            (true, false) => Dir::Up,
            (false, true) => Dir::Down,
            (true, true) => Dir::Any,
        }
    }
}

/// What the calculus knows of a subexpression of the NAC's condition, as a function of the
/// group's content after the application.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape {
    pub(super) dir: Dir,
    /// It may be none (an optional attribute, a `min` or `max` of nothing). Where it is
    /// not constant it only goes from none to defined, never back.
    pub(super) maybe_none: bool,
    /// A condition that holds exactly when every cell of the group is filled: once it
    /// holds, nothing the condition reads changes any more.
    pub(super) full: bool,
}

impl Shape {
    pub(super) fn new(dir: Dir, maybe_none: bool) -> Shape {
        Shape {
            dir,
            maybe_none,
            full: false,
        }
    }
}

impl Cx<'_> {
    /// The shape of a subexpression of the NAC's condition.
    pub(super) fn shape(&self, k: &NacCx, e: &Expr) -> Result<Shape, Refusal> {
        let nac = k.nac;
        // What reads only `c`'s value, the same for each, is a constant (a count's share
        // where the count never counts `c`).
        if let Some(v) = constant_in_fill(e, k.fill, &self.fills(k)) {
            return Ok(Shape::new(Dir::Const, v.is_none()));
        }
        match &e.kind {
            ExprKind::Const(v) => Ok(Shape::new(Dir::Const, v.is_none())),
            ExprKind::Param(i) => {
                let p = &k.r.params[*i as usize].name;
                not_monotone(
                    e.span,
                    format!("beside an aggregate, the NAC reads the parameter `{p}` other than as the filled cell's share of a sum (`sum(...) + {p}`): its blocking would differ from cell to cell of the group"),
                )
            }
            ExprKind::Attr(v, _) => {
                if v.0 >= nac.bound {
                    Ok(Shape::new(Dir::Const, true))
                } else {
                    let n = &k.r.lhs.node(*v).expect("a left-side node").name;
                    not_monotone(
                        e.span,
                        format!("beside an aggregate, the NAC reads `{n}`, a node of the rule's left side: its blocking would differ from cell to cell of the group"),
                    )
                }
            }
            ExprKind::Unary(UnOp::Not, x) => {
                if let ExprKind::Aggregate(a) = &x.kind {
                    if a.op == AggOp::Any && self.reads_group(k, a) {
                        let f = self.fill(k, a, x.span)?;
                        if f.empties {
                            return Ok(Shape {
                                dir: Dir::Up,
                                maybe_none: false,
                                full: true,
                            });
                        }
                    }
                }
                let s = self.shape(k, x)?;
                let dir = if s.maybe_none && s.dir != Dir::Const {
                    Dir::Any
                } else {
                    s.dir.flip()
                };
                Ok(Shape::new(dir, s.maybe_none))
            }
            ExprKind::Unary(UnOp::Neg, x) => {
                let s = self.shape(k, x)?;
                Ok(Shape::new(s.dir.flip(), s.maybe_none))
            }
            ExprKind::Unary(UnOp::Abs | UnOp::Int, x) => {
                let s = self.shape(k, x)?;
                Ok(Shape::new(
                    if s.dir == Dir::Const {
                        Dir::Const
                    } else {
                        Dir::Any
                    },
                    s.maybe_none,
                ))
            }
            ExprKind::ToInt(x, ints) => {
                let s = self.shape(k, x)?;
                let ordered = ints.windows(2).all(|w| w[0] < w[1]);
                Ok(Shape::new(
                    if ordered || s.dir == Dir::Const {
                        s.dir
                    } else {
                        Dir::Any
                    },
                    s.maybe_none,
                ))
            }
            ExprKind::ToValue(x, _) => {
                // An int outside the domain is none: definedness could be lost.
                let s = self.shape(k, x)?;
                Ok(Shape::new(
                    if s.dir == Dir::Const {
                        Dir::Const
                    } else {
                        Dir::Any
                    },
                    true,
                ))
            }
            ExprKind::Binary(BinOp::Add | BinOp::Sub, ..) => self.additive(k, e),
            // The literals `flatten` takes as factors: a product with 0 is read whole below,
            // else `additive` would meet it again as its own term.
            ExprKind::Binary(BinOp::Mul, x, y)
                if [x, y]
                    .iter()
                    .any(|z| matches!(z.kind, ExprKind::Const(Value::Int(n)) if n != 0)) =>
            {
                self.additive(k, e)
            }
            ExprKind::Binary(BinOp::Mul | BinOp::Div | BinOp::Rem, x, y) => {
                let (a, b) = (self.shape(k, x)?, self.shape(k, y)?);
                let dir = if a.dir == Dir::Const && b.dir == Dir::Const {
                    Dir::Const
                } else {
                    Dir::Any
                };
                Ok(Shape::new(dir, true))
            }
            ExprKind::Binary(BinOp::And, x, y) => {
                let (a, b) = (self.shape(k, x)?, self.shape(k, y)?);
                if a.full || b.full {
                    // Once the group is full, nothing either side reads changes.
                    return Ok(Shape {
                        dir: Dir::Up,
                        maybe_none: false,
                        full: a.full && b.full,
                    });
                }
                Ok(Shape::new(a.dir.join(b.dir), false))
            }
            ExprKind::Binary(BinOp::Or, x, y) => {
                let (a, b) = (self.shape(k, x)?, self.shape(k, y)?);
                Ok(Shape::new(a.dir.join(b.dir), false))
            }
            ExprKind::Binary(op, x, y) => self.comparison(k, *op, x, y),
            ExprKind::Aggregate(a) => {
                if !self.reads_group(k, a) {
                    return self.static_aggregate(k, a, e.span);
                }
                let f = self.fill(k, a, e.span)?;
                if let Completion::Term(_) = f.completion {
                    return self.missing_completion(k, a, e.span);
                }
                Ok(Shape {
                    full: f.empties && a.op == AggOp::All,
                    ..f.shape
                })
            }
        }
    }

    /// True when the aggregate is read as one over `c`'s group: it changes as rules apply,
    /// or it binds a node that could be one of the rule's (then matching, injective, leaves
    /// that node out, and only the group's shape makes that alike for every cell).
    fn reads_group(&self, k: &NacCx, a: &Aggregate) -> bool {
        let types = self.types();
        let lhs: Vec<NodeTypeId> = k.r.lhs.nodes.iter().map(|n| n.ty).collect();
        let mut touches = false;
        visit_nodes(&a.pattern, &mut |ty| {
            touches |= lhs.iter().any(|&t| related(types, t, ty));
        });
        if let Some(b) = &a.body {
            b.visit_aggregates(&mut |inner| {
                visit_nodes(&inner.pattern, &mut |ty| {
                    touches |= lhs.iter().any(|&t| related(types, t, ty));
                })
            });
        }
        touches || self.aggregate_changes(a, &[])
    }

    /// An aggregate that no rule application changes and that binds none of the rule's
    /// node types: constant, when it reads nothing of the rule's left side.
    fn static_aggregate(&self, k: &NacCx, a: &Aggregate, span: Span) -> Result<Shape, Refusal> {
        let mut lhs = false;
        a.pattern.visit_vars(&mut |v| lhs |= v.0 < k.nac.bound);
        if let Some(b) = &a.body {
            b.visit_vars(&mut |v| lhs |= v.0 < k.nac.bound);
        }
        if lhs || a.pattern.reads_params() || a.body.as_ref().is_some_and(Expr::reads_params) {
            return not_monotone(
                span,
                format!(
                    "beside an aggregate over the group, `{}(...)` reads the rule's parameters or left side: the NAC's blocking would differ from cell to cell of the group",
                    a.op.name()
                ),
            );
        }
        Ok(Shape::new(
            Dir::Const,
            matches!(a.op, AggOp::Min | AggOp::Max),
        ))
    }

    fn missing_completion<T>(&self, k: &NacCx, a: &Aggregate, span: Span) -> Result<T, Refusal> {
        let c = &k.r.lhs.node(k.c).expect("own").name;
        let text = &self.g.source.text;
        let v = text.get(k.fill.span.start..k.fill.span.end).unwrap_or("v");
        not_monotone(
            span,
            format!(
                "`{}(...)` reads the group without `{c}`, the cell the rule fills, and what `{c}` adds depends on its value: add `{c}`'s share beside it (for a sum of `d.val`, `+ {v}`) so that the NAC reads the group as it is once `{c}` is filled, alike for every cell of it",
                a.op.name(),
            ),
        )
    }

    /// `x op y` for a comparison `op`.
    fn comparison(&self, k: &NacCx, op: BinOp, x: &Expr, y: &Expr) -> Result<Shape, Refusal> {
        // `count(empty cells) == 0` (or `<= 0`, `< 1`): the group is full.
        for (a, b, flipped) in [(x, y, false), (y, x, true)] {
            let ExprKind::Aggregate(agg) = &a.kind else {
                continue;
            };
            if agg.op != AggOp::Count || !self.reads_group(k, agg) {
                continue;
            }
            let zero = matches!(b.kind, ExprKind::Const(Value::Int(0)));
            let one = matches!(b.kind, ExprKind::Const(Value::Int(1)));
            let op = if flipped { mirror(op) } else { op };
            let reaches_zero =
                (op == BinOp::Eq || op == BinOp::Le) && zero || op == BinOp::Lt && one;
            if reaches_zero {
                let f = self.fill(k, agg, a.span)?;
                if f.shape.dir == Dir::Down || f.shape.dir == Dir::Const {
                    return Ok(Shape {
                        dir: Dir::Up,
                        maybe_none: false,
                        full: f.empties,
                    });
                }
            }
        }
        let (a, b) = (self.shape(k, x)?, self.shape(k, y)?);
        let rises = |p: Shape, q: Shape| {
            matches!(p.dir, Dir::Const | Dir::Up) && matches!(q.dir, Dir::Const | Dir::Down)
        };
        let dir = if a.dir == Dir::Const && b.dir == Dir::Const {
            Dir::Const
        } else {
            match op {
                BinOp::Gt | BinOp::Ge if rises(a, b) => Dir::Up,
                BinOp::Gt | BinOp::Ge if rises(b, a) => Dir::Down,
                BinOp::Lt | BinOp::Le if rises(b, a) => Dir::Up,
                BinOp::Lt | BinOp::Le if rises(a, b) => Dir::Down,
                _ => Dir::Any,
            }
        };
        let ordering = !matches!(op, BinOp::Eq | BinOp::Ne);
        Ok(Shape::new(dir, ordering && (a.maybe_none || b.maybe_none)))
    }

    /// A chain of `+`, `-` and products with integer literals: each changing aggregate
    /// paired with the term that completes it. The aggregates over the group that are sums
    /// of one share per cell (`count`, `sum`) are taken together: the chain moves as the
    /// same combination of one cell's shares does when it fills (`sum(...) + 9 * count(empty
    /// cells)` only falls, as a cell's share goes from 9 to its value).
    fn additive(&self, k: &NacCx, e: &Expr) -> Result<Shape, Refusal> {
        let mut terms = Vec::new();
        flatten(e, 1, &mut terms);
        if terms.iter().any(|t| t.0.unsigned_abs() > MAX_FACTOR) {
            return not_monotone(
                e.span,
                format!("beside an aggregate over cells that rules fill, factors must lie within ±{MAX_FACTOR}, so that sums cannot overflow"),
            );
        }
        let mut used = vec![false; terms.len()];
        let mut total = Shape::new(Dir::Const, false);
        let mut add = |s: Shape, factor: i64| {
            total.dir = total
                .dir
                .join(if factor > 0 { s.dir } else { s.dir.flip() });
            total.maybe_none |= s.maybe_none;
        };
        let values = self.g.domain.len();
        let mut cell: (i64, Vec<i64>) = (0, vec![0; values]);
        let mut linear = false;
        for i in 0..terms.len() {
            let (factor, t) = terms[i];
            let ExprKind::Aggregate(a) = &t.kind else {
                continue;
            };
            if !self.reads_group(k, a) {
                continue;
            }
            let f = self.fill(k, a, t.span)?;
            if let Completion::Term(shares) = &f.completion {
                let j = (0..terms.len()).find(|&j| {
                    !used[j]
                        && j != i
                        && terms[j].0 == factor
                        && is_share(terms[j].1, k.fill, shares)
                });
                match j {
                    Some(j) => used[j] = true,
                    None => return self.missing_completion(k, a, t.span),
                }
            }
            used[i] = true;
            match &f.shares {
                Some((before, after)) => {
                    linear = true;
                    cell.0 += factor * before;
                    for (sum, a) in cell.1.iter_mut().zip(after) {
                        *sum += factor * a;
                    }
                }
                None => add(f.shape, factor),
            }
        }
        if linear {
            let rises = cell.1.iter().any(|&a| a > cell.0);
            let falls = cell.1.iter().any(|&a| a < cell.0);
            add(Shape::new(Dir::of(rises, falls), false), 1);
        }
        for (i, &(factor, t)) in terms.iter().enumerate() {
            if !used[i] {
                add(self.shape(k, t)?, factor);
            }
        }
        Ok(total)
    }
}

/// Calls `f` with the type of every node `p` binds, in nested NACs and aggregates too.
fn visit_nodes(p: &Pattern, f: &mut dyn FnMut(NodeTypeId)) {
    for n in &p.nodes {
        f(n.ty);
    }
    for n in &p.nacs {
        visit_nodes(n, f);
    }
    for c in &p.conds {
        c.visit_aggregates(&mut |a| {
            visit_nodes(&a.pattern, f);
            if let Some(b) = &a.body {
                b.visit_aggregates(&mut |inner| visit_nodes(&inner.pattern, f));
            }
        });
    }
}
/// `x op y` read as `y op' x`.
fn mirror(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        op => op,
    }
}

/// The terms of a chain of `+` and `-`, each with its sign.
fn flatten<'e>(e: &'e Expr, factor: i64, out: &mut Vec<(i64, &'e Expr)>) {
    let literal = |x: &Expr| match x.kind {
        ExprKind::Const(Value::Int(n)) if n != 0 => Some(n),
        _ => None,
    };
    match &e.kind {
        ExprKind::Binary(BinOp::Add, a, b) => {
            flatten(a, factor, out);
            flatten(b, factor, out);
        }
        ExprKind::Binary(BinOp::Sub, a, b) => {
            flatten(a, factor, out);
            flatten(b, -factor, out);
        }
        ExprKind::Unary(UnOp::Neg, a) => flatten(a, -factor, out),
        ExprKind::Binary(BinOp::Mul, a, b) if literal(a).is_some() || literal(b).is_some() => {
            let (n, x) = match literal(a) {
                Some(n) => (n, b),
                None => (literal(b).unwrap_or(1), a),
            };
            flatten(x, factor.saturating_mul(n), out)
        }
        _ => out.push((factor, e)),
    }
}
