//! Forbidden patterns (`forbid { ... }`): whether each one, once it matches, matches in
//! every state that follows, so that pruning where it matches keeps `--expand focus` exact.
//!
//! # Why pruning a monotone forbidden pattern is sound
//!
//! A state where a forbidden pattern matches is pruned: it has no successors and is not
//! final. Under `--expand all` that is the whole meaning. `--expand focus` reaches a final
//! state `F` through states made of some of `F`'s applications (the analysis of
//! [`super`] shows every order of them is a path). When the rules only fill cells (each
//! application sets an attribute that was none to a value, and nothing else changes:
//! [`super::Monotone`] and no other effect), such a state `S` is `F` with some cells still
//! empty. A pattern is *monotone* when a match in `S` stays a match as `S`'s empty cells
//! fill; then a match in `S` would be one in `F`, which was not pruned: no state on the way
//! to an unpruned final state is pruned, and focus and all find the same final states.
//!
//! The calculus below proves a pattern monotone from its text. Each expression gets a
//! [`Move`]: how it changes, for a fixed match, as cells fill. An attribute some rule sets is
//! *fixed*: none until its cell is filled, then one value for ever; other attributes are
//! constant. Ordering comparisons and arithmetic are none while an operand is, so over fixed
//! and constant operands they are fixed too, and a fixed condition only turns from false to
//! true. `sum` of non-negative fixed terms and `count` over a pattern whose matches only
//! appear grow; `all` over a constant set of matches of a condition that only turns true
//! only turns true. `==` and `!=` see none, so they only count when they cannot change: a
//! conjunction whose conjuncts say an attribute is filled (`x.val != none`, `x.val == 3`, an
//! ordering comparison or arithmetic reading it) and the cells of a pattern full
//! (`count(P { val == none }) == 0`, `all(val != none for P)`) holds, once it holds, with
//! those attributes and aggregates over `P` constant, so its other conjuncts may compare
//! them freely (`... and sum(d.val for P) != o.val`).
//!
//! The pattern's matches themselves persist: the rules change no edges and no nodes. Its
//! conditions, read as one conjunction, must only turn true, and a nested `not { Q }` must
//! say of something that only turns false (`Q`'s conditions constant, or only turning
//! false).

use crate::diag::Span;
use crate::grammar::Grammar;
use crate::model::{AttrId, NodeTypeId, Value, VarId};
use crate::rule::{AggOp, BinOp, Effect, Expr, ExprKind, Pattern, UnOp};

use super::refusal::{refuse, Refusal, RefusalKind};
use super::Monotone;

/// How a quantity moves, for a fixed match, as cells fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Move {
    /// The same in every state.
    Const,
    /// None until the cells it reads are filled, then one value.
    Fixed,
    /// Only grows (a condition: only turns from false to true), none at first at most.
    Up,
    /// Only shrinks (a condition: only turns from true to false), never none.
    Down,
    Any,
}

impl Move {
    /// Can only grow (or be none at first): constant and fixed quantities qualify.
    fn rises(self) -> bool {
        matches!(self, Move::Const | Move::Fixed | Move::Up)
    }

    fn falls(self) -> bool {
        matches!(self, Move::Const | Move::Fixed | Move::Down)
    }

    /// As a condition (none reads as false): only turns true.
    fn turns_true(self) -> bool {
        self.rises()
    }

    fn flip(self) -> Move {
        match self {
            Move::Up => Move::Down,
            Move::Down => Move::Up,
            m => m,
        }
    }

    /// The move of a combination that rises when both parts do, and likewise falls.
    fn join(self, o: Move) -> Move {
        match (self, o) {
            (Move::Const, m) | (m, Move::Const) => m,
            (Move::Fixed, Move::Fixed) => Move::Fixed,
            (a, b) if a.rises() && b.rises() => Move::Up,
            (a, b) if a.falls() && b.falls() => Move::Down,
            _ => Move::Any,
        }
    }
}

/// What a conjunction that holds guarantees: attributes filled, patterns full.
#[derive(Clone, Default)]
struct Known {
    filled: Vec<(VarId, AttrId)>,
    full: Vec<Pattern>,
}

struct Cx<'g> {
    g: &'g Grammar,
    /// The attributes rules set, with the type of the node they set them on.
    set: Vec<(NodeTypeId, AttrId)>,
    /// The type of each variable in scope, by variable.
    types: Vec<NodeTypeId>,
}

fn not_monotone<T>(span: Span, reason: impl Into<String>) -> Result<T, Refusal> {
    refuse(span, RefusalKind::NotMonotone, reason)
}

/// Checks every `forbid` of `g`: `Ok` when each is monotone (or there are none), else the
/// first that is not, and why.
pub fn check(g: &Grammar) -> Result<(), Refusal> {
    let Some(first) = g.forbids.first() else {
        return Ok(());
    };
    if let Err(r) = Monotone::analyse(g) {
        return not_monotone(
            first.span,
            format!(
                "`forbid` prunes soundly only when the rules fill cells and change nothing else, and here: {}",
                r.reason
            ),
        );
    }
    let mut set = Vec::new();
    for r in g.rules.iter() {
        for e in &r.effects {
            match e {
                Effect::Set { var, attr, .. } => {
                    let ty = r.lhs.node(*var).expect("a left-side node").ty;
                    set.push((ty, *attr));
                }
                _ => {
                    return not_monotone(
                        first.span,
                        format!("`forbid` prunes soundly only when the rules fill cells, and rule `{}` creates or deletes", r.name),
                    )
                }
            }
        }
    }
    for p in g.forbids.iter() {
        let mut cx = Cx {
            g,
            set: set.clone(),
            types: Vec::new(),
        };
        cx.pattern(p, &Known::default(), true)?;
    }
    Ok(())
}

impl<'g> Cx<'g> {
    fn changing(&self, v: VarId, a: AttrId) -> bool {
        let Some(&ty) = self.types.get(v.index()) else {
            return true;
        };
        let types = &self.g.types;
        self.set
            .iter()
            .any(|&(t, b)| b == a && (types.is_subtype(ty, t) || types.is_subtype(t, ty)))
    }

    fn bind(&mut self, p: &Pattern) {
        self.types.truncate(p.bound as usize);
        self.types.extend(p.nodes.iter().map(|n| n.ty));
    }

    /// Checks that a match of `p`, once it holds, holds as cells fill (`up`), or once it
    /// fails, fails (`!up`, a nested NAC's pattern). Returns the guarantees its conditions
    /// give when it holds.
    fn pattern(&mut self, p: &Pattern, outer: &Known, up: bool) -> Result<Known, Refusal> {
        self.bind(p);
        let known = if up {
            self.guards(&p.conds, outer)
        } else {
            outer.clone()
        };
        for c in &p.conds {
            let m = self.expr(c, &known)?;
            let ok = if up {
                m.turns_true()
            } else {
                m == Move::Const || m == Move::Down
            };
            if !ok {
                let why = if up {
                    "this condition of a forbidden pattern can turn from true to false as cells fill (a forbidden pattern must stay matched once it matches: compare filled cells, or say they are filled first with `val != none`)"
                } else {
                    "this condition of a NAC inside a forbidden pattern can turn from false to true as cells fill, so the NAC could stop the forbidden pattern from matching later"
                };
                return not_monotone(c.span, why);
            }
        }
        for n in &p.nacs {
            self.pattern(n, &known, !up)?;
            self.bind(p);
        }
        Ok(known)
    }

    /// The guarantees of a conjunction that holds: `outer`'s and those of `conds`.
    fn guards(&self, conds: &[Expr], outer: &Known) -> Known {
        let mut k = outer.clone();
        for c in conds {
            self.guard(c, &mut k);
        }
        k
    }

    fn guard(&self, c: &Expr, k: &mut Known) {
        match &c.kind {
            ExprKind::Binary(BinOp::And, a, b) => {
                self.guard(a, k);
                self.guard(b, k);
            }
            ExprKind::Binary(BinOp::Ne, a, b) => {
                for (x, y) in [(a, b), (b, a)] {
                    if matches!(y.kind, ExprKind::Const(Value::None)) {
                        strict_attrs(x, &mut k.filled);
                    }
                }
            }
            ExprKind::Binary(BinOp::Eq, a, b) => {
                for (x, y) in [(a, b), (b, a)] {
                    if let ExprKind::Const(v) = y.kind {
                        if !v.is_none() {
                            strict_attrs(x, &mut k.filled);
                        }
                    }
                    // `count(P { val == none }) == 0`: P is full.
                    if let (ExprKind::Aggregate(agg), ExprKind::Const(Value::Int(0))) =
                        (&x.kind, &y.kind)
                    {
                        if agg.op == AggOp::Count {
                            if let Some(full) = self.empty_cells_of(&agg.pattern) {
                                k.full.push(full.clone());
                            }
                        }
                    }
                }
            }
            ExprKind::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, a, b) => {
                strict_attrs(a, &mut k.filled);
                strict_attrs(b, &mut k.filled);
            }
            // `all(d.val != none for P)`: P is full.
            ExprKind::Aggregate(agg) if agg.op == AggOp::All => {
                let own = VarId(agg.pattern.bound);
                if agg.pattern.nodes.len() == 1
                    && agg.body.as_ref().is_some_and(|b| is_filled_check(b, own))
                {
                    k.full.push(agg.pattern.clone());
                }
            }
            _ => {}
        }
    }

    /// When `p` is one node `d` whose last condition is `d.a == none`: `p`, which must have
    /// that condition for `count(p) == 0` to say the cells of `p` without it are full.
    fn empty_cells_of<'p>(&self, p: &'p Pattern) -> Option<&'p Pattern> {
        let own = VarId(p.bound);
        (p.nodes.len() == 1 && p.nacs.is_empty() && p.conds.iter().any(|c| is_empty_check(c, own)))
            .then_some(p)
    }

    /// True when `q` (an aggregate's pattern) ranges over cells `known` says are full.
    fn over_full(&self, q: &Pattern, known: &Known) -> bool {
        known.full.iter().any(|f| same_cells(f, q))
    }

    fn expr(&mut self, e: &Expr, known: &Known) -> Result<Move, Refusal> {
        Ok(match &e.kind {
            ExprKind::Const(_) | ExprKind::Param(_) => Move::Const,
            ExprKind::Attr(v, a) => {
                if !self.changing(*v, *a) || known.filled.contains(&(*v, *a)) {
                    Move::Const
                } else {
                    Move::Fixed
                }
            }
            ExprKind::Unary(op, x) => {
                let m = self.expr(x, known)?;
                match (op, m) {
                    (_, Move::Const | Move::Fixed) => m,
                    // `not` of a condition that is never none.
                    (UnOp::Not, Move::Down) => Move::Up,
                    (UnOp::Not, Move::Up) if never_none(x) => Move::Down,
                    (UnOp::Neg, _) => m.flip(),
                    _ => Move::Any,
                }
            }
            ExprKind::ToInt(x, ints) | ExprKind::ToValue(x, ints) => {
                let m = self.expr(x, known)?;
                if matches!(m, Move::Const | Move::Fixed) || ints.windows(2).all(|w| w[0] < w[1]) {
                    m
                } else {
                    Move::Any
                }
            }
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (self.expr(a, known)?, self.expr(b, known)?);
                let both_fixed = matches!(x, Move::Const | Move::Fixed)
                    && matches!(y, Move::Const | Move::Fixed);
                match op {
                    BinOp::And | BinOp::Or => {
                        let (x, y) = (as_condition(x), as_condition(y));
                        if x == Move::Const && y == Move::Const {
                            Move::Const
                        } else if x.turns_true() && y.turns_true() {
                            Move::Up
                        } else if x.falls() && y.falls() {
                            Move::Down
                        } else {
                            Move::Any
                        }
                    }
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                        let (small, big) = if matches!(op, BinOp::Lt | BinOp::Le) {
                            (x, y)
                        } else {
                            (y, x)
                        };
                        if x == Move::Const && y == Move::Const {
                            Move::Const
                        } else if both_fixed {
                            Move::Fixed
                        } else if small.falls() && big.rises() {
                            Move::Up
                        } else if small.rises() && big.falls() && !maybe_none(a) && !maybe_none(b) {
                            Move::Down
                        } else {
                            Move::Any
                        }
                    }
                    BinOp::Eq | BinOp::Ne => self.equality(*op, a, b, x, y),
                    BinOp::Add => x.join(y),
                    BinOp::Sub => x.join(y.flip()),
                    BinOp::Mul => match (const_int(a), const_int(b)) {
                        (Some(n), _) => scale(y, n),
                        (_, Some(n)) => scale(x, n),
                        _ if both_fixed => Move::Fixed,
                        _ => Move::Any,
                    },
                    BinOp::Div | BinOp::Rem if both_fixed => {
                        if x == Move::Const && y == Move::Const {
                            Move::Const
                        } else {
                            Move::Fixed
                        }
                    }
                    BinOp::Div | BinOp::Rem => Move::Any,
                }
            }
            ExprKind::Aggregate(agg) => {
                let saved = self.types.clone();
                let q = &agg.pattern;
                self.bind(q);
                // Over cells the conjunction says are full, the aggregate no longer moves.
                let mut base = known.clone();
                if self.over_full(q, known) {
                    let set: Vec<AttrId> = self.set.iter().map(|&(_, a)| a).collect();
                    base.filled
                        .extend(q.own_vars().flat_map(|v| set.iter().map(move |&a| (v, a))));
                }
                // The matches of the aggregate's pattern: how they come and go.
                let matches = self.matches(q, &base)?;
                self.bind(q);
                let inner = self.guards(&q.conds, &base);
                let body = match &agg.body {
                    Some(b) => Some(self.expr(b, &inner)?),
                    None => None,
                };
                self.types = saved;
                match (agg.op, body) {
                    (AggOp::Count, _) => matches,
                    (AggOp::Sum, Some(m)) => {
                        let terms = if m == Move::Const {
                            Move::Const
                        } else if m == Move::Fixed && nonnegative(agg.body.as_ref()) {
                            Move::Up
                        } else {
                            Move::Any
                        };
                        match (matches, terms) {
                            (Move::Const, Move::Const) => Move::Const,
                            (Move::Const | Move::Up, Move::Up | Move::Const)
                                if nonnegative(agg.body.as_ref()) =>
                            {
                                Move::Up
                            }
                            _ => Move::Any,
                        }
                    }
                    (AggOp::Max, Some(m))
                        if matches!(m, Move::Const | Move::Fixed) && matches.rises() =>
                    {
                        if matches == Move::Const && m == Move::Const {
                            Move::Const
                        } else {
                            Move::Up
                        }
                    }
                    (AggOp::Min, Some(m))
                        if matches!(m, Move::Const | Move::Fixed) && matches.rises() =>
                    {
                        if matches == Move::Const && m == Move::Const {
                            Move::Const
                        } else {
                            Move::Down
                        }
                    }
                    (AggOp::All, Some(m)) => {
                        let m = as_condition(m);
                        if matches == Move::Const && m == Move::Const {
                            Move::Const
                        } else if matches.falls() && m.turns_true() {
                            Move::Up
                        } else {
                            Move::Any
                        }
                    }
                    (AggOp::Any, Some(m)) => {
                        let m = as_condition(m);
                        if matches == Move::Const && m == Move::Const {
                            Move::Const
                        } else if matches.rises() && m.turns_true() {
                            Move::Up
                        } else {
                            Move::Any
                        }
                    }
                    _ => Move::Any,
                }
            }
        })
    }

    /// How the matches of an aggregate's pattern come and go: `Const` when its conditions
    /// are constant, `Up` when a match, once there, stays, `Down` when it only goes.
    fn matches(&mut self, q: &Pattern, known: &Known) -> Result<Move, Refusal> {
        self.bind(q);
        let guarded = self.guards(&q.conds, known);
        let mut up = true;
        let mut down = true;
        let mut constant = true;
        for c in &q.conds {
            let g = as_condition(self.expr(c, &guarded)?);
            let plain = as_condition(self.expr(c, known)?);
            constant &= plain == Move::Const;
            up &= g.turns_true();
            down &= plain == Move::Const || plain == Move::Down;
        }
        for n in &q.nacs {
            let saved = self.types.clone();
            let m = self.matches(n, known)?;
            self.types = saved;
            constant &= m == Move::Const;
            up &= m.falls() && m != Move::Fixed;
            down &= m.rises();
        }
        Ok(if constant {
            Move::Const
        } else if up {
            Move::Up
        } else if down {
            Move::Down
        } else {
            Move::Any
        })
    }

    fn equality(&self, op: BinOp, a: &Expr, b: &Expr, x: Move, y: Move) -> Move {
        if x == Move::Const && y == Move::Const {
            return Move::Const;
        }
        let is_none = |e: &Expr| matches!(e.kind, ExprKind::Const(Value::None));
        let literal = |e: &Expr| matches!(e.kind, ExprKind::Const(v) if !v.is_none());
        for (m, other) in [(x, b), (y, a)] {
            if m == Move::Fixed && is_none(other) {
                // `x == none` only turns false, `x != none` only true.
                return if op == BinOp::Eq {
                    Move::Down
                } else {
                    Move::Up
                };
            }
            if m == Move::Fixed && literal(other) {
                return if op == BinOp::Eq {
                    Move::Up
                } else {
                    Move::Down
                };
            }
        }
        // A count that only falls reaching 0 (counts are never below 0), or one that only
        // grows leaving it.
        for (m, other) in [(x, b), (y, a)] {
            if matches!(other.kind, ExprKind::Const(Value::Int(0))) {
                match (op, m) {
                    (BinOp::Eq, Move::Down) | (BinOp::Ne, Move::Up) if nonnegative_count(a, b) => {
                        return Move::Up
                    }
                    _ => {}
                }
            }
        }
        Move::Any
    }
}

/// A condition's move: never none once it is Up/Down from `and`/`or`; fixed conditions only
/// turn true (none reads as false).
fn as_condition(m: Move) -> Move {
    match m {
        Move::Fixed => Move::Up,
        m => m,
    }
}

fn scale(m: Move, n: i64) -> Move {
    match n {
        0 => Move::Const,
        n if n > 0 => m,
        _ => m.flip(),
    }
}

fn const_int(e: &Expr) -> Option<i64> {
    match e.kind {
        ExprKind::Const(Value::Int(n)) => Some(n),
        _ => None,
    }
}

/// True when the expression can never be none (conditions built by `and`/`or`, counts).
fn never_none(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Binary(BinOp::And | BinOp::Or, _, _) => true,
        ExprKind::Aggregate(a) => matches!(a.op, AggOp::Count | AggOp::All | AggOp::Any),
        ExprKind::Const(v) => !v.is_none(),
        _ => false,
    }
}

fn maybe_none(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Aggregate(a) => {
            !matches!(a.op, AggOp::Count | AggOp::Sum | AggOp::All | AggOp::Any)
        }
        ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => maybe_none(a) || maybe_none(b),
        ExprKind::Binary(BinOp::Mul, a, b) => {
            (const_int(a).is_none() && maybe_none(a)) || (const_int(b).is_none() && maybe_none(b))
        }
        _ => !never_none(e),
    }
}

/// One side is a `count`, which is never below 0.
fn nonnegative_count(a: &Expr, b: &Expr) -> bool {
    [a, b]
        .iter()
        .any(|e| matches!(&e.kind, ExprKind::Aggregate(g) if g.op == AggOp::Count))
}

/// True when the summed expression is never negative where it is defined.
fn nonnegative(e: Option<&Expr>) -> bool {
    let Some(e) = e else { return false };
    match &e.kind {
        ExprKind::Const(Value::Int(n)) => *n >= 0,
        ExprKind::ToInt(_, ints) => ints.iter().all(|&n| n >= 0),
        ExprKind::Binary(BinOp::Add | BinOp::Mul, a, b) => {
            nonnegative(Some(a)) && nonnegative(Some(b))
        }
        ExprKind::Unary(UnOp::Abs, _) => true,
        ExprKind::Aggregate(g) => g.op == AggOp::Count,
        _ => false,
    }
}

/// Collects the attributes `e` reads where a none would make it none: through arithmetic
/// and comparisons, not through `==`, `and`, `or` or aggregates.
fn strict_attrs(e: &Expr, out: &mut Vec<(VarId, AttrId)>) {
    match &e.kind {
        ExprKind::Attr(v, a) => out.push((*v, *a)),
        ExprKind::Unary(UnOp::Neg | UnOp::Abs | UnOp::Int, x)
        | ExprKind::ToInt(x, _)
        | ExprKind::ToValue(x, _) => strict_attrs(x, out),
        ExprKind::Binary(
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::Lt
            | BinOp::Le
            | BinOp::Gt
            | BinOp::Ge,
            a,
            b,
        ) => {
            strict_attrs(a, out);
            strict_attrs(b, out);
        }
        _ => {}
    }
}

/// `v.a == none` (either way round).
fn is_empty_check(e: &Expr, v: VarId) -> bool {
    match &e.kind {
        ExprKind::Binary(BinOp::Eq, a, b) => [(a, b), (b, a)].iter().any(|(x, y)| {
            matches!(x.kind, ExprKind::Attr(w, _) if w == v)
                && matches!(y.kind, ExprKind::Const(Value::None))
        }),
        _ => false,
    }
}

/// `v.a != none` (either way round).
fn is_filled_check(e: &Expr, v: VarId) -> bool {
    match &e.kind {
        ExprKind::Binary(BinOp::Ne, a, b) => [(a, b), (b, a)].iter().any(|(x, y)| {
            matches!(x.kind, ExprKind::Attr(w, _) if w == v)
                && matches!(y.kind, ExprKind::Const(Value::None))
        }),
        _ => false,
    }
}

/// True when `full` (the pattern of a fullness test) and `q` range over the same cells:
/// the same nodes and edges, and `q`'s conditions those of `full` less its `== none` test.
fn same_cells(full: &Pattern, q: &Pattern) -> bool {
    let own = VarId(full.bound);
    let rest: Vec<&Expr> = full
        .conds
        .iter()
        .filter(|c| !is_empty_check(c, own))
        .collect();
    full.bound == q.bound
        && full.nodes.len() == q.nodes.len()
        && full.nodes.iter().zip(&q.nodes).all(|(a, b)| a.ty == b.ty)
        && full.edges.len() == q.edges.len()
        && full
            .edges
            .iter()
            .zip(&q.edges)
            .all(|(a, b)| a.src == b.src && a.tgt == b.tgt && a.path == b.path)
        && q.nacs.is_empty()
        && full.nacs.is_empty()
        && rest.len() == q.conds.len()
        && rest
            .iter()
            .zip(&q.conds)
            .all(|(a, b)| super::open::same_expr(a, b, own, own))
}

/// The attributes some rule sets.
pub fn set_attrs(g: &Grammar) -> Vec<AttrId> {
    let mut out = Vec::new();
    for r in g.rules.iter() {
        for e in &r.effects {
            if let Effect::Set { attr, .. } = e {
                out.push(*attr);
            }
        }
    }
    out
}

/// True when `p` reads the attributes in `set` only in its own conditions, of its own
/// nodes (not inside an aggregate or a NAC): then a match that a state has and its parent
/// did not binds the cell the step filled, and matching may start there.
pub fn anchorable(p: &Pattern, set: &[AttrId]) -> bool {
    let mut inner = false;
    for c in &p.conds {
        c.visit_aggregates(&mut |a| inner |= reads_any(&a.pattern, a.body.as_ref(), set));
    }
    for n in &p.nacs {
        inner |= reads_any(n, None, set);
    }
    !inner
}

/// True when `body` or anything of `p` (nested patterns included) reads an attribute of
/// `set`.
pub fn reads_any(p: &Pattern, body: Option<&Expr>, set: &[AttrId]) -> bool {
    let mut hit = false;
    let mut any = |e: &Expr| {
        let mut f = |_: VarId, a: AttrId| hit |= set.contains(&a);
        e.visit_attrs(&mut f);
        let mut nested = false;
        e.visit_aggregates(&mut |a| nested |= reads_any(&a.pattern, a.body.as_ref(), set));
        nested
    };
    let mut nested = body.is_some_and(&mut any);
    for c in &p.conds {
        nested |= any(c);
    }
    nested || hit || p.nacs.iter().any(|n| reads_any(n, None, set))
}
