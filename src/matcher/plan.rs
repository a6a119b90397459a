//! Search plans: a pattern compiled once into an ordered list of binding and checking
//! steps, so that matching never decides the search order at run time.

use crate::model::{AttrId, LabelId, NodeTypeId, VarId};
use crate::rule::{BinOp, Expr, ExprKind, PathExpr, Pattern};

use super::fold::AggPlan;
use super::index::LookupKey;
use super::path::PathNfa;

#[derive(Clone, Debug)]
pub enum Step {
    /// Bind `var` to each live node of type `ty` (or a subtype).
    Scan { var: VarId, ty: NodeTypeId },
    /// Bind `var` to each neighbour of `from` over `label` (out-edges when `forward`).
    Follow {
        from: VarId,
        label: LabelId,
        forward: bool,
        var: VarId,
        ty: NodeTypeId,
    },
    /// Bind `var` to each live node of type `ty` whose `attr` equals `value` (an expression
    /// over bound variables), found in the graph index; without an index, a scan. The
    /// equality stays in the plan as a condition, so both ways give the same matches.
    Lookup {
        var: VarId,
        ty: NodeTypeId,
        attr: AttrId,
        value: Expr,
    },
    /// Bind `var` to each node reachable from `from` by path `nfa` (an index).
    Reach {
        from: VarId,
        nfa: usize,
        var: VarId,
        ty: NodeTypeId,
    },
    /// Both ends bound: the edge must exist.
    CheckEdge {
        src: VarId,
        label: LabelId,
        tgt: VarId,
    },
    /// Both ends bound: the path must exist.
    CheckPath { src: VarId, nfa: usize, tgt: VarId },
    /// Every variable the condition reads is bound: it must hold.
    Cond(Expr),
    /// A condition that is one equality of attributes, parameters or constants (the
    /// commonest: `d.val == x.val`, `val == none`), compared without walking an expression.
    Eq(Operand, Operand),
}

/// A side of an [`Step::Eq`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    Attr(VarId, AttrId),
    Param(u32),
    Const(crate::model::Value),
}

impl Operand {
    fn of(e: &Expr) -> Option<Operand> {
        match e.kind {
            ExprKind::Attr(v, a) => Some(Operand::Attr(v, a)),
            ExprKind::Param(i) => Some(Operand::Param(i)),
            ExprKind::Const(c) => Some(Operand::Const(c)),
            _ => None,
        }
    }
}

/// The step that checks condition `c`: an [`Step::Eq`] when it is a plain equality.
fn cond_step(c: &Expr) -> Step {
    if let ExprKind::Binary(BinOp::Eq, a, b) = &c.kind {
        if let (Some(x), Some(y)) = (Operand::of(a), Operand::of(b)) {
            return Step::Eq(x, y);
        }
    }
    Step::Cond(c.clone())
}

/// A compiled pattern with its NACs compiled the same way.
#[derive(Clone, Debug)]
pub struct SearchPlan {
    pub steps: Vec<Step>,
    pub nfas: Vec<PathNfa>,
    pub nacs: Vec<SearchPlan>,
    /// The aggregates of the conditions, compiled.
    pub aggs: Vec<AggPlan>,
    /// The binding array must be at least this long.
    pub depth: usize,
}

impl SearchPlan {
    /// Orders the pattern greedily: conditions as soon as their variables are bound (with
    /// an aggregate, once all the pattern's nodes are, so that its own nodes differ from
    /// every one of them),
    /// edges between bound nodes as checks, then the next node reached over a plain edge
    /// from a bound node, then over a path, then looked up by an attribute that a
    /// condition equates with bound values, and only then a scan of its type.
    pub fn compile(p: &Pattern) -> SearchPlan {
        Self::compile_from(p, None)
    }

    /// As [`Self::compile`], for matching with the pattern's own node `root` already bound
    /// (by the caller, in the binding array): a match "rooted" at a given node.
    pub fn compile_rooted(p: &Pattern, root: VarId) -> SearchPlan {
        Self::compile_from(p, Some(root))
    }

    fn compile_from(p: &Pattern, root: Option<VarId>) -> SearchPlan {
        let mut bound = vec![false; p.var_end() as usize];
        for b in bound.iter_mut().take(p.bound as usize) {
            *b = true;
        }
        if let Some(r) = root {
            bound[r.index()] = true;
        }
        let mut steps = Vec::new();
        let mut nfas = Vec::new();
        let mut edge_done = vec![false; p.edges.len()];
        let mut cond_done = vec![false; p.conds.len()];
        let nfa_of: Vec<Option<usize>> = p
            .edges
            .iter()
            .map(|e| {
                e.path.as_label().is_none().then(|| {
                    nfas.push(PathNfa::compile(&e.path));
                    nfas.len() - 1
                })
            })
            .collect();
        let ty_of = |v: VarId| p.node(v).expect("own variable").ty;
        let ready = |c: &Expr, bound: &[bool]| {
            c.max_var() <= bound.len()
                && all_bound(c, bound)
                && (!c.has_aggregate() || p.own_vars().all(|v| bound[v.index()]))
        };
        loop {
            // Everything that can be checked now.
            for (i, c) in p.conds.iter().enumerate() {
                if !cond_done[i] && ready(c, &bound) {
                    cond_done[i] = true;
                    steps.push(cond_step(c));
                }
            }
            for (i, e) in p.edges.iter().enumerate() {
                if !edge_done[i] && bound[e.src.index()] && bound[e.tgt.index()] {
                    edge_done[i] = true;
                    steps.push(match (e.path.as_label(), nfa_of[i]) {
                        (Some(label), _) => Step::CheckEdge {
                            src: e.src,
                            label,
                            tgt: e.tgt,
                        },
                        (None, Some(nfa)) => Step::CheckPath {
                            src: e.src,
                            nfa,
                            tgt: e.tgt,
                        },
                        (None, None) => unreachable!("paths have an NFA"),
                    });
                }
            }
            let Some(next) = p.own_vars().find(|v| !bound[v.index()]) else {
                break;
            };
            // Prefer a plain edge from a bound node, then a path, then a scan.
            let follow = p.edges.iter().enumerate().find_map(|(i, e)| {
                if edge_done[i] || e.path.as_label().is_none() {
                    return None;
                }
                let label = e.path.as_label()?;
                if bound[e.src.index()] && !bound[e.tgt.index()] {
                    Some((i, e.src, label, true, e.tgt))
                } else if bound[e.tgt.index()] && !bound[e.src.index()] {
                    Some((i, e.tgt, label, false, e.src))
                } else {
                    None
                }
            });
            if let Some((i, from, label, forward, var)) = follow {
                edge_done[i] = true;
                bound[var.index()] = true;
                steps.push(Step::Follow {
                    from,
                    label,
                    forward,
                    var,
                    ty: ty_of(var),
                });
                continue;
            }
            // A path from a bound node, forwards; else one to a bound node, read backwards
            // (its inverse's NFA compiled here), rather than a scan checking every node.
            let reach = p.edges.iter().enumerate().find_map(|(i, e)| {
                let nfa = nfa_of[i]?;
                if edge_done[i] {
                    None
                } else if bound[e.src.index()] && !bound[e.tgt.index()] {
                    Some((i, e.src, Some(nfa), e.tgt))
                } else if bound[e.tgt.index()] && !bound[e.src.index()] {
                    Some((i, e.tgt, None, e.src))
                } else {
                    None
                }
            });
            let reach = reach.map(|(i, from, nfa, var)| {
                let nfa = nfa.unwrap_or_else(|| {
                    let back = PathExpr::Inverse(Box::new(p.edges[i].path.clone()));
                    nfas.push(PathNfa::compile(&back));
                    nfas.len() - 1
                });
                (i, from, nfa, var)
            });
            if let Some((i, from, nfa, var)) = reach {
                edge_done[i] = true;
                bound[var.index()] = true;
                steps.push(Step::Reach {
                    from,
                    nfa,
                    var,
                    ty: ty_of(var),
                });
                continue;
            }
            let lookup = p.own_vars().filter(|v| !bound[v.index()]).find_map(|v| {
                p.conds
                    .iter()
                    .enumerate()
                    .find_map(|(i, c)| {
                        (!cond_done[i])
                            .then(|| equated_attr(c, v, &bound))
                            .flatten()
                    })
                    .map(|(attr, value)| (v, attr, value))
            });
            if let Some((var, attr, value)) = lookup {
                bound[var.index()] = true;
                steps.push(Step::Lookup {
                    var,
                    ty: ty_of(var),
                    attr,
                    value,
                });
                continue;
            }
            bound[next.index()] = true;
            steps.push(Step::Scan {
                var: next,
                ty: ty_of(next),
            });
        }
        // Conditions that read variables of no pattern (parameters only) were emitted in
        // the first pass; any left read unbound variables, which the checker rejects.
        for (i, c) in p.conds.iter().enumerate() {
            if !cond_done[i] {
                steps.push(cond_step(c));
            }
        }
        SearchPlan {
            steps,
            nfas,
            nacs: p.nacs.iter().map(SearchPlan::compile).collect(),
            aggs: AggPlan::compile_all(&p.conds),
            depth: p.depth() as usize,
        }
    }
}

impl SearchPlan {
    /// Every (type, attribute) this plan and its NACs look nodes up by, without repeats:
    /// what a [`super::GraphIndex`] must hold to serve the plan.
    pub fn lookup_keys(&self, out: &mut Vec<LookupKey>) {
        for s in &self.steps {
            if let Step::Lookup { ty, attr, .. } = s {
                if !out.contains(&(*ty, *attr)) {
                    out.push((*ty, *attr));
                }
            }
        }
        for nac in &self.nacs {
            nac.lookup_keys(out);
        }
        for agg in &self.aggs {
            agg.plan.lookup_keys(out);
        }
    }
}

/// When `c` is `v.attr == e` (either way round) with `e` over bound variables only, the
/// attribute and `e`.
fn equated_attr(c: &Expr, v: VarId, bound: &[bool]) -> Option<(AttrId, Expr)> {
    let ExprKind::Binary(BinOp::Eq, a, b) = &c.kind else {
        return None;
    };
    [(a, b), (b, a)]
        .into_iter()
        .find_map(|(x, e)| match x.kind {
            ExprKind::Attr(var, attr) if var == v && all_bound(e, bound) && !e.has_aggregate() => {
                Some((attr, (**e).clone()))
            }
            _ => None,
        })
}

fn all_bound(e: &Expr, bound: &[bool]) -> bool {
    let mut ok = true;
    e.visit_vars(&mut |v| ok &= bound.get(v.index()).copied().unwrap_or(false));
    ok
}
