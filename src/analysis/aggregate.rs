//! NACs with aggregates over the cells rules fill (condition 5 of the proof in [`super`]):
//! which are accepted, and the facts about each that the proof needs.
//!
//! An accepted NAC reads one *group*: the cells `d` joined to the NAC's static nodes by the
//! same edges that join the filled cell `c` to them (`c -cage-> k` and `k <-cage- d`). Its
//! condition, once each aggregate is completed with `c`'s own contribution (`sum(...) + v`),
//! is a function of the group's content after the application, the same for every cell of
//! the group; and it only ever turns from false to true as cells fill. Both are decided
//! here by evaluating each aggregate's conditions and expression on an empty cell and on a
//! cell holding each value of the domain, and by a calculus of directions over the NAC's
//! condition (`Up`: can only grow as cells fill).

use crate::diag::Span;
use crate::grammar::Grammar;
use crate::model::{AttrId, NodeTypeId, TypeSystem, Value, VarId};
use crate::rule::{AggOp, Aggregate, BinOp, Env, Expr, ExprKind, PathExpr, Pattern, Rule, UnOp};

use super::final_cond::Open;
use super::refusal::{refuse, Refusal, RefusalKind};

fn not_monotone<T>(span: Span, reason: impl Into<String>) -> Result<T, Refusal> {
    refuse(span, RefusalKind::NotMonotone, reason)
}

/// Types related by subtyping either way.
fn related(types: &TypeSystem, a: NodeTypeId, b: NodeTypeId) -> bool {
    types.is_subtype(a, b) || types.is_subtype(b, a)
}

/// The largest domain integer the analysis takes, and the largest factor of an aggregate in
/// a sum: products of the two summed over any graph fit an i64, so no sum overflows to none.
const MAX_INT: i64 = 1 << 20;
const MAX_FACTOR: u64 = 1 << 10;

/// How a quantity moves as cells fill: not at all, only up (a condition: only from false
/// to true), only down, or either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dir {
    Const,
    Up,
    Down,
    Any,
}

impl Dir {
    /// The direction of a sum of two such quantities (or of `and`, `or` of conditions).
    fn join(self, o: Dir) -> Dir {
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
    fn of(raises: bool, lowers: bool) -> Dir {
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
struct Shape {
    dir: Dir,
    /// It may be none (an optional attribute, a `min` or `max` of nothing). Where it is
    /// not constant it only goes from none to defined, never back.
    maybe_none: bool,
    /// A condition that holds exactly when every cell of the group is filled: once it
    /// holds, nothing the condition reads changes any more.
    full: bool,
}

impl Shape {
    fn new(dir: Dir, maybe_none: bool) -> Shape {
        Shape {
            dir,
            maybe_none,
            full: false,
        }
    }
}

/// How a written aggregate (over the group without `c`) relates to the same aggregate over
/// the whole group after the application.
#[derive(Clone, Debug)]
enum Completion {
    /// They differ by a constant: `c` adds the same whatever its value (nothing, or one to
    /// a count).
    Constant,
    /// The whole one is the written one plus `c`'s share, which depends on `c`'s value: a
    /// term of the condition must add it. Per value `c` may get, its share.
    Term(Vec<(Value, i64)>),
}

/// What one aggregate over the group is.
#[derive(Clone, Debug)]
struct Fill {
    shape: Shape,
    completion: Completion,
    /// `count` of, `any` over, or `all` failing at, exactly the empty cells of the group.
    empties: bool,
    /// For `count` and `sum`: what one cell of the group adds while empty, and once filled
    /// with each value of the domain. A sum of such aggregates over the group moves as the
    /// same sum of one cell's shares does.
    shares: Option<(i64, Vec<i64>)>,
}

/// Reads the cell attribute `(var, attr)` as `value`; nothing else is readable.
struct At {
    var: VarId,
    attr: AttrId,
    value: Value,
}

impl Env for At {
    fn param(&self, _: u32) -> Value {
        Value::None
    }

    fn attr(&self, var: VarId, attr: AttrId) -> Value {
        if (var, attr) == (self.var, self.attr) {
            self.value
        } else {
            Value::None
        }
    }

    fn aggregate(&self, _: &Aggregate) -> Value {
        Value::None
    }
}

/// What the analysis knows of the grammar when it reads aggregates.
pub struct Cx<'a> {
    pub g: &'a Grammar,
    pub open: &'a Open<'a>,
    /// The types rules create.
    pub created: &'a [NodeTypeId],
    /// Some rule deletes the node it consumes.
    pub deletes: bool,
}

/// One NAC of one rule being read.
struct NacCx<'a> {
    r: &'a Rule,
    nac: &'a Pattern,
    /// The cell the rule fills.
    c: VarId,
    /// The value it fills it with.
    fill: &'a Expr,
    /// The edges joining `c` to the NAC's nodes: (path, other end, `c` is the source).
    edges: Vec<(&'a PathExpr, VarId, bool)>,
}

impl Cx<'_> {
    fn types(&self) -> &TypeSystem {
        &self.g.types
    }

    /// True when rules fill nodes of type `ty` (and create and delete none of them).
    fn filled_type(&self, ty: NodeTypeId) -> bool {
        let t = self.types();
        related(t, ty, self.open.ty)
            && !self.deletes
            && !self.created.iter().any(|&c| related(t, ty, c))
    }

    /// True when rules create, fill or delete nodes of type `ty`.
    fn changing(&self, ty: NodeTypeId) -> bool {
        let t = self.types();
        related(t, ty, self.open.ty) || self.created.iter().any(|&c| related(t, ty, c))
    }

    /// The first aggregate of `e` whose value can change as rules apply: it binds a node
    /// rules create or delete, or reads the attribute that rules fill of a node it binds.
    pub fn changing_aggregate<'e>(&self, e: &'e Expr) -> Option<&'e Expr> {
        match &e.kind {
            ExprKind::Aggregate(a) => self.aggregate_changes(a, &[]).then_some(e),
            ExprKind::Unary(_, x) | ExprKind::ToInt(x, _) | ExprKind::ToValue(x, _) => {
                self.changing_aggregate(x)
            }
            ExprKind::Binary(_, x, y) => self
                .changing_aggregate(x)
                .or_else(|| self.changing_aggregate(y)),
            ExprKind::Const(_) | ExprKind::Param(_) | ExprKind::Attr(..) => None,
        }
    }

    /// The first changing aggregate in the conditions of `p` or its nested NACs.
    pub fn changing_in_pattern<'p>(&self, p: &'p Pattern) -> Option<&'p Expr> {
        p.conds
            .iter()
            .find_map(|c| self.changing_aggregate(c))
            .or_else(|| p.nacs.iter().find_map(|n| self.changing_in_pattern(n)))
    }

    /// `filled`: per variable of the enclosing patterns, whether it is a node rules fill
    /// that the aggregates around this one bind (the rule's own nodes are not: reading the
    /// consumed cell is the monotone analysis' business).
    fn aggregate_changes(&self, a: &Aggregate, filled: &[bool]) -> bool {
        let mut filled = filled.to_vec();
        filled.resize(a.pattern.bound as usize, false);
        self.pattern_changes(&a.pattern, &mut filled)
            || a.body
                .as_ref()
                .is_some_and(|b| self.expr_changes(b, &filled))
    }

    fn pattern_changes(&self, p: &Pattern, filled: &mut Vec<bool>) -> bool {
        filled.resize(p.bound as usize, false);
        for n in &p.nodes {
            if self.changing(n.ty) && !self.filled_type(n.ty) {
                return true;
            }
            filled.push(self.filled_type(n.ty));
        }
        p.conds.iter().any(|c| self.expr_changes(c, filled))
            || p.nacs
                .iter()
                .any(|n| self.pattern_changes(n, &mut filled.clone()))
    }

    fn expr_changes(&self, e: &Expr, filled: &[bool]) -> bool {
        let mut reads = false;
        e.visit_attrs(&mut |v, a| {
            reads |= filled.get(v.index()) == Some(&true) && Some(a) == self.open.none_attr;
        });
        let mut nested = false;
        e.visit_aggregates(&mut |a| nested |= self.aggregate_changes(a, filled));
        reads || nested
    }

    /// Condition 5 for `nac`, a NAC of `r` with a changing aggregate: `r` consumes `c` by
    /// setting its open attribute to `fill` (`None` when it deletes `c`).
    pub fn check_nac(
        &self,
        r: &Rule,
        nac: &Pattern,
        c: VarId,
        fill: Option<&Expr>,
    ) -> Result<(), Refusal> {
        let types = self.types();
        let cname = &r.lhs.node(c).expect("own").name;
        let at = nac.span;
        if self.g.rules.len() != 1 {
            return not_monotone(
                at,
                "a NAC with an aggregate over cells that rules fill needs one rule filling the cells: each cell's NAC must read its group the same way",
            );
        }
        let Some(fill) = fill else {
            return not_monotone(
                at,
                "a NAC with an aggregate over cells that rules fill needs rules that fill cells, not delete them",
            );
        };
        if self.open.none_attr.is_none() || self.open.pattern.conds.len() != 1 {
            return not_monotone(
                self.open.pattern.span,
                "a NAC with an aggregate over cells that rules fill needs `final:` to ask every cell of the type filled (`not { c: T { val == none } }`)",
            );
        }
        let ints = self.g.domain.ints();
        if ints.iter().any(|n| n.abs() > MAX_INT) {
            return not_monotone(
                at,
                format!("a NAC with an aggregate over cells that rules fill needs values within ±{MAX_INT}, so that sums cannot overflow"),
            );
        }
        if let Some(inner) = nac.nacs.first() {
            return not_monotone(
                inner.span,
                "a NAC inside a NAC with an aggregate: removing matches as cells fill could enable a rule",
            );
        }
        for n in &nac.nodes {
            if self.changing(n.ty) {
                return not_monotone(
                    n.span,
                    format!(
                        "NAC node `{}` is a `{}`, which rules fill or create; beside an aggregate, a NAC may bind only nodes that never change (the aggregate reads the cells)",
                        n.name,
                        types.node(n.ty).name
                    ),
                );
            }
            if let Some(m) = r
                .lhs
                .own_vars()
                .filter(|&v| v != c)
                .filter_map(|v| r.lhs.node(v))
                .find(|m| related(types, m.ty, n.ty))
            {
                return not_monotone(
                    n.span,
                    format!(
                        "NAC node `{}` could be the rule's node `{}`, so the NAC would read its group differently for different applications",
                        n.name, m.name
                    ),
                );
            }
        }
        let own = |v: VarId| v.0 >= nac.bound && v.0 < nac.var_end();
        let mut edges = Vec::new();
        for e in &nac.edges {
            match (e.src == c, e.tgt == c) {
                (true, false) if own(e.tgt) => edges.push((&e.path, e.tgt, true)),
                (false, true) if own(e.src) => edges.push((&e.path, e.src, false)),
                (false, false) if own(e.src) && own(e.tgt) => {}
                _ => {
                    return not_monotone(
                        e.span,
                        format!(
                            "beside an aggregate, a NAC's edges may join `{cname}` to the NAC's own nodes and those nodes to each other, nothing else of the rule"
                        ),
                    )
                }
            }
        }
        let k = NacCx {
            r,
            nac,
            c,
            fill,
            edges,
        };
        let mut phi = Shape::new(Dir::Const, false);
        let mut worst: Option<(Span, Dir)> = None;
        for cond in &nac.conds {
            let s = self.shape(&k, cond)?;
            phi.full |= s.full;
            phi.dir = phi.dir.join(s.dir);
            if !matches!(s.dir, Dir::Const | Dir::Up) && worst.is_none() {
                worst = Some((cond.span, s.dir));
            }
        }
        if phi.full {
            return Ok(());
        }
        match worst {
            None => Ok(()),
            Some((span, dir)) => not_monotone(
                span,
                format!(
                    "this condition can turn from true to false as cells fill ({}), so filling a cell could enable a rule: a NAC with an aggregate must only grow (a sum of non-negative values exceeding a bound, a count of empty cells reaching 0 `and` a test of the full group)",
                    if dir == Dir::Down { "it only shrinks" } else { "it moves either way" }
                ),
            ),
        }
    }

    /// The shape of a subexpression of the NAC's condition.
    fn shape(&self, k: &NacCx, e: &Expr) -> Result<Shape, Refusal> {
        let nac = k.nac;
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
            ExprKind::Binary(BinOp::Mul, x, y)
                if [x, y]
                    .iter()
                    .any(|z| matches!(z.kind, ExprKind::Const(Value::Int(_)))) =>
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

    /// Reads a changing aggregate of the NAC: its group must be the NAC's, its pattern one
    /// cell `d` with conditions and expression over `d`'s filled attribute and constants.
    fn fill(&self, k: &NacCx, a: &Aggregate, span: Span) -> Result<Fill, Refusal> {
        let types = self.types();
        let name = a.op.name();
        let p = &a.pattern;
        let attr = self.open.none_attr.expect("checked by check_nac");
        let c = &k.r.lhs.node(k.c).expect("own").name;
        let refused = |why: String| not_monotone(span, why);
        let [d] = p.nodes.as_slice() else {
            return refused(format!(
                "`{name}(...)` over cells that rules fill must bind one cell, the one it reads (it binds {})",
                p.nodes.len()
            ));
        };
        let dv = VarId(p.bound);
        if !types.is_subtype(d.ty, self.open.ty) || !self.filled_type(d.ty) {
            // Also for an aggregate that changes nothing: it binds a node that could be one
            // of the rule's, and only a group of cells is read alike by each of its cells.
            return refused(format!(
                "`{name}(...)` binds `{}`, a `{}`: over cells that rules fill it must bind a `{}`",
                d.name,
                types.node(d.ty).name,
                types.node(self.open.ty).name
            ));
        }
        if !p.nacs.is_empty()
            || p.has_aggregate()
            || a.body.as_ref().is_some_and(Expr::has_aggregate)
        {
            return refused(format!(
                "`{name}(...)` over cells that rules fill may hold no NAC and no other aggregate"
            ));
        }
        // The group: `d` joined to the NAC's nodes exactly as `c` is.
        let mut sig = Vec::new();
        for e in &p.edges {
            let (other, out) = match (e.src == dv, e.tgt == dv) {
                (true, false) => (e.tgt, true),
                (false, true) => (e.src, false),
                _ => {
                    return refused(format!(
                    "`{name}(...)`: each edge of its pattern must join `{}` to a node of the NAC",
                    d.name
                ))
                }
            };
            if other.0 < k.nac.bound || other.0 >= k.nac.var_end() {
                return refused(format!(
                    "`{name}(...)` joins `{}` to a node of the rule's left side: it must read a group of the NAC's own nodes (`k <-cage- {}`)",
                    d.name, d.name
                ));
            }
            sig.push((&e.path, other, out));
        }
        let same = sig.len() == k.edges.len()
            && sig.iter().all(|s| k.edges.contains(s))
            && k.edges.iter().all(|s| sig.contains(s));
        if !same {
            return refused(format!(
                "`{name}(...)` must range over the group `{c}` belongs to: `{}` joined to the NAC's nodes by the same edges as `{c}` (so that every cell of the group reads it alike)",
                d.name
            ));
        }
        // Conditions and expression read `d`'s filled attribute and constants only.
        let only_d = |e: &Expr| {
            let mut ok = !e.reads_params();
            e.visit_vars(&mut |v| ok &= v == dv);
            e.visit_attrs(&mut |_, b| ok &= b == attr);
            ok
        };
        if let Some(bad) = p.conds.iter().chain(a.body.as_ref()).find(|e| !only_d(e)) {
            return not_monotone(
                bad.span,
                format!(
                    "`{name}(...)` over cells that rules fill may read only `{}.{}` and constants, so that whether a cell counts and what it adds depend on its value alone",
                    d.name,
                    types.node(self.open.ty).attrs[attr.index()].name
                ),
            );
        }
        let at = |value| At {
            var: dv,
            attr,
            value,
        };
        let member = |value| p.conds.iter().all(|x| x.holds(&at(value)));
        let body = |value| a.body.as_ref().map_or(Value::None, |b| b.eval(&at(value)));
        let values: Vec<Value> = (0..self.g.domain.len())
            .map(|i| Value::Val(i as u16))
            .collect();
        // What `c` may be filled with.
        let fills: Vec<Value> = match k.fill.kind {
            ExprKind::Const(v) => vec![v],
            _ => values.clone(),
        };
        let m0 = member(Value::None);
        let mut risen = false;
        let mut fallen = false;
        if m0 && values.iter().any(|&x| member(x)) && !values.iter().all(|&x| member(x)) {
            return refused(format!(
                "`{name}(...)` counts an empty `{}` and, once filled, only some values: as cells fill it could both gain and lose cells",
                d.name
            ));
        }
        let mut empties = false;
        let mut per_cell = None;
        let completion;
        match a.op {
            AggOp::Count | AggOp::Sum => {
                let weight = |m: bool, v: Value| match (a.op, m, v) {
                    (_, false, _) => 0,
                    (AggOp::Count, true, _) => 1,
                    (_, true, Value::Int(n)) => n,
                    _ => 0,
                };
                let before = weight(m0, body(Value::None));
                let after: Vec<i64> = values.iter().map(|&x| weight(member(x), body(x))).collect();
                risen = after.iter().any(|&a| a > before);
                fallen = after.iter().any(|&a| a < before);
                per_cell = Some((before, after));
                let shares: Vec<(Value, i64)> = fills
                    .iter()
                    .map(|&x| (x, weight(member(x), body(x))))
                    .collect();
                completion = if shares.iter().all(|s| s.1 == shares[0].1) {
                    Completion::Constant
                } else {
                    Completion::Term(shares)
                };
                empties = a.op == AggOp::Count && m0 && values.iter().all(|&x| !member(x));
            }
            AggOp::Min | AggOp::Max => {
                let before = if m0 { body(Value::None) } else { Value::None };
                if !before.is_none() {
                    return refused(format!(
                        "`{name}(...)` takes a value from an empty `{}`, which filling it would change",
                        d.name
                    ));
                }
                // Only values come in: a maximum rises, a minimum falls.
                risen = a.op == AggOp::Max;
                fallen = a.op == AggOp::Min;
                if fills.iter().any(|&x| member(x) && !body(x).is_none()) {
                    return refused(format!(
                        "`{name}(...)` reads the group without `{c}`, the cell the rule fills, and the language has no way to add `{c}`'s value to a {name}: the NAC cannot read the group as it will be (test the whole group in `final:`, or write the constraint cell by cell)"
                    ));
                }
                completion = Completion::Constant;
            }
            AggOp::All | AggOp::Any => {
                let truth = |v: Value| v == Value::Bool(true);
                // Per cell: does it make `any` true, or keep `all` true?
                let term = |m: bool, v: Value| match a.op {
                    AggOp::Any => m && truth(v),
                    _ => !m || truth(v),
                };
                let before = term(m0, body(Value::None));
                for &x in &values {
                    let after = term(member(x), body(x));
                    risen |= after && !before;
                    fallen |= before && !after;
                }
                let neutral = a.op == AggOp::All;
                if fills.iter().any(|&x| term(member(x), body(x)) != neutral) {
                    return refused(format!(
                        "`{name}(...)` reads the group without `{c}`, the cell the rule fills, and `{c}`'s value would change it: the NAC cannot read the group as it will be"
                    ));
                }
                completion = Completion::Constant;
                empties = if a.op == AggOp::Any {
                    before && values.iter().all(|&x| !term(member(x), body(x)))
                } else {
                    !before && values.iter().all(|&x| term(member(x), body(x)))
                };
            }
        }
        Ok(Fill {
            shape: Shape::new(
                Dir::of(risen, fallen),
                matches!(a.op, AggOp::Min | AggOp::Max),
            ),
            completion,
            empties,
            shares: per_cell,
        })
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

/// True when `term` is `c`'s share of an aggregate: it reads nothing but what the fill
/// expression reads, and with the fill being each value it may be, it is the share.
fn is_share(term: &Expr, fill: &Expr, shares: &[(Value, i64)]) -> bool {
    if term.has_aggregate() {
        return false;
    }
    shares.iter().all(|&(value, share)| {
        let env = Filled { fill, value };
        term.eval(&env) == Value::Int(share)
    })
}

/// Reads the fill expression (a parameter or an attribute) as `value`, nothing else.
struct Filled<'a> {
    fill: &'a Expr,
    value: Value,
}

impl Env for Filled<'_> {
    fn param(&self, index: u32) -> Value {
        match self.fill.kind {
            ExprKind::Param(i) if i == index => self.value,
            _ => Value::None,
        }
    }

    fn attr(&self, var: VarId, attr: AttrId) -> Value {
        match self.fill.kind {
            ExprKind::Attr(v, a) if (v, a) == (var, attr) => self.value,
            _ => Value::None,
        }
    }

    fn aggregate(&self, _: &Aggregate) -> Value {
        Value::None
    }
}
