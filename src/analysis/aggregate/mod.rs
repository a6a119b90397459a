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
use crate::model::{NodeTypeId, TypeSystem, VarId};
use crate::rule::{Aggregate, Expr, ExprKind, PathExpr, Pattern, Rule};

use super::final_cond::Open;
use super::refusal::{refuse, Refusal, RefusalKind};

use direction::{Dir, Shape};

mod direction;
mod group;

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
}
