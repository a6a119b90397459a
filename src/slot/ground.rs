//! A `forbid` instance grounded on the structure no rule changes: its conditions as a term
//! over slots, evaluated exactly on a state and over the candidates of its empty slots.
//!
//! On the slot engine a pattern's nodes, and the matches of its NACs and aggregates, are
//! fixed once its own nodes are (rules only set attributes). So an instance is a boolean
//! term: attributes become slots or constants, a NAC becomes "no match of these whose
//! conditions hold", an aggregate a fold over a fixed list of matches, each with the
//! condition under which it counts. Evaluating the term is what the general matcher would
//! do on the state's graph, without walking the graph.
//!
//! The same term evaluated over intervals ([`Bounds`]: each empty slot somewhere between
//! its least and greatest candidate) says when the pattern matches in *every* completion
//! of the state: then no final state, which fills every slot, lies below it. The
//! evaluation is sound, not exact: a slot read twice is read as two independent ones.

use std::ops::ControlFlow;
use std::rc::Rc;
use std::sync::Arc;

use crate::grammar::Grammar;
use crate::matcher::{Matcher, SearchPlan};
use crate::model::{AttrId, NodeId, Value, VarId};
use crate::rule::expr::{binary, to_int, to_value, unary};
#[cfg(test)]
use crate::rule::Fold;
use crate::rule::{AggOp, BinOp, Expr, ExprKind, Pattern, UnOp};

use super::model::SlotModel;
use super::shared_ground::{GroundCache, Grounded, Spent};

/// Term nodes listed at most over all instances; past it the rest are left to the matcher.
pub const MAX_TERM_NODES: usize = 1 << 23;

/// What an aggregate reads of nodes bound outside it (see [`GroundCache::outer_reads`]).
type OuterReads = Rc<[(VarId, AttrId)]>;

#[cfg(test)]
thread_local! {
    /// How many aggregates and instances were taken from a rule file's shared groundings,
    /// for tests to see the sharing taken.
    pub(super) static SHARED_TAKEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// How many of those were whole instances.
    pub(super) static INSTANCES_TAKEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// How many instances were renamed from a region of the same shape.
    pub(super) static REGIONS_TAKEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A condition or value over slots.
#[derive(Clone, Debug)]
pub enum Term {
    Const(Value),
    /// A slot's value: none while it is empty.
    Slot(u32),
    Unary(UnOp, Box<Term>),
    Binary(BinOp, Box<Term>, Box<Term>),
    ToInt(Box<Term>, Arc<[i64]>),
    ToValue(Box<Term>, Arc<[i64]>),
    /// An aggregate over a fixed list of matches (a NAC is `not any`).
    Fold(AggOp, Vec<Item>),
}

/// One match of an aggregate's pattern: it counts when `when` holds, adding `body`.
#[derive(Clone, Debug)]
pub struct Item {
    pub(super) when: Term,
    pub(super) body: Term,
}

/// What grounding needs: the start graph's matcher, the slots and the attributes rules set.
pub struct Grounder<'a> {
    pub g: &'a Grammar,
    pub model: &'a SlotModel,
    pub matcher: &'a Matcher<'a>,
    /// Attributes some rule sets: conditions on them are not part of the structure.
    pub set: &'a [AttrId],
    /// Term nodes still allowed.
    pub budget: usize,
    /// The search plan of each aggregate's or NAC's structure, by the pattern's address
    /// (patterns outlive the grounder, so no other takes it): every instance grounds the
    /// same few patterns.
    plans: Vec<(&'a Pattern, Rc<SearchPlan>)>,
    /// Where the puzzles of a rule file share what they ground, and per pattern and body
    /// (by address) what they read outside themselves, where they may share.
    shared: Option<&'a GroundCache>,
    shareable: Vec<(*const Pattern, *const Expr, Option<OuterReads>)>,
    /// Since the shared grounding under way began, the least of what was left of the
    /// budget at each step less what the step asked (a term node, or room for a list of
    /// matches): the budget it started with, less this, is what it needs (see
    /// [`super::shared_ground::Spent::needs`]).
    floor: usize,
    /// Lists [`Self::ground_matches`] keeps between calls: a binding, and matches' ones.
    scratch: (Vec<NodeId>, Vec<NodeId>),
}

impl<'a> Grounder<'a> {
    pub fn new(
        g: &'a Grammar,
        model: &'a SlotModel,
        matcher: &'a Matcher<'a>,
        set: &'a [AttrId],
        budget: usize,
        shared: Option<&'a GroundCache>,
    ) -> Grounder<'a> {
        Grounder {
            g,
            model,
            matcher,
            set,
            budget,
            plans: Vec::new(),
            shared,
            shareable: Vec::new(),
            floor: usize::MAX,
            scratch: (Vec::new(), Vec::new()),
        }
    }

    /// The condition under which the match `m` of `p`'s structure is a match of `p`: its
    /// conditions on what changes hold and none of its NACs matches. `None` when it
    /// cannot be grounded (a parameter) or the budget ran out.
    pub fn pattern(&mut self, p: &'a Pattern, m: &[NodeId]) -> Option<Term> {
        let mut parts = Vec::new();
        for c in &p.conds {
            c.conjuncts(&mut parts);
        }
        let mut term = Term::Const(Value::Bool(true));
        for c in parts {
            if !super::forbid::is_fixed(c, self.set) {
                term = and(term, self.expr(c, m)?);
                if term.is_false() {
                    // A conjunct that fails whatever the slots hold (a clue a layer left
                    // out, read as none): the match never counts, and what is left of
                    // the pattern need not be grounded.
                    return Some(term);
                }
            }
        }
        for q in &p.nacs {
            let items = self.matches(q, m, None)?;
            term = and(
                term,
                Term::Unary(UnOp::Not, Box::new(Term::Fold(AggOp::Any, items))),
            );
        }
        Some(term)
    }

    /// The rule file's shared groundings, where this grounder may take from them.
    pub fn shared(&self) -> Option<&'a GroundCache> {
        self.shared
    }

    /// [`Self::pattern`], and what it asked of the budget: a rule file's puzzles share
    /// the grounded instance and take as much (see [`Self::spend`]).
    pub fn pattern_spent(&mut self, p: &'a Pattern, m: &[NodeId]) -> Option<(Term, Spent)> {
        self.spending(|g| g.pattern(p, m))
    }

    /// Takes from the budget what grounding asked of it elsewhere, as grounding here would
    /// take it; false, taking nothing, where the budget would run out part way (the caller
    /// then grounds, and fails where grounding does).
    pub fn spend(&mut self, spent: Spent) -> bool {
        let Some(headroom) = spent.take(&mut self.budget) else {
            return false;
        };
        self.floor = self.floor.min(headroom);
        #[cfg(test)]
        SHARED_TAKEN.set(SHARED_TAKEN.get() + 1);
        true
    }

    /// `ground`'s result, and what it asked of the budget where it succeeded.
    fn spending<T>(&mut self, ground: impl FnOnce(&mut Self) -> Option<T>) -> Option<(T, Spent)> {
        let (start, outer) = (self.budget, std::mem::replace(&mut self.floor, usize::MAX));
        let grounded = ground(self);
        let floor = self.floor;
        self.floor = outer.min(floor);
        let spent = Spent {
            consumed: start - self.budget,
            needs: start - floor.min(start),
        };
        grounded.map(|x| (x, spent))
    }

    /// One item per match of `q`'s structure extending `m`: from the rule file's shared
    /// groundings where `q` and `body` read nothing the layers change.
    fn matches(
        &mut self,
        q: &'a Pattern,
        m: &[NodeId],
        body: Option<&'a Expr>,
    ) -> Option<Vec<Item>> {
        let Some(cache) = self.shared_cache(q, body, m) else {
            return self.ground_matches(q, m, body);
        };
        if let Some(hit) = cache.get(q, body, m) {
            // Taken as grounding would take it: the same items, the same budget spent,
            // and none where the budget would have run out.
            if self.spend(hit.spent) {
                return Some(hit.items.clone());
            }
        }
        let (items, spent) = self.spending(|g| g.ground_matches(q, m, body))?;
        cache.insert(
            q,
            body,
            m,
            Grounded {
                items: items.clone(),
                spent,
            },
        );
        Some(items)
    }

    /// The shared groundings, where `q` with `body` at `m` may take from them.
    fn shared_cache(
        &mut self,
        q: &Pattern,
        body: Option<&Expr>,
        m: &[NodeId],
    ) -> Option<&'a GroundCache> {
        let cache = self.shared?;
        let (qp, bp) = (
            std::ptr::from_ref(q),
            body.map_or(std::ptr::null(), std::ptr::from_ref),
        );
        let outer = match self.shareable.iter().find(|(p, b, _)| *p == qp && *b == bp) {
            Some((_, _, outer)) => outer.clone(),
            None => {
                let outer: Option<OuterReads> =
                    cache.outer_reads(&self.g.types, q, body).map(Into::into);
                self.shareable.push((qp, bp, outer.clone()));
                outer
            }
        };
        outer
            .is_some_and(|outer| cache.reads_no_layer(&outer, m))
            .then_some(cache)
    }

    /// [`Self::matches`], grounded here.
    fn ground_matches(
        &mut self,
        q: &'a Pattern,
        m: &[NodeId],
        body: Option<&'a Expr>,
    ) -> Option<Vec<Item>> {
        let plan = match self.plans.iter().find(|(p, _)| std::ptr::eq(*p, q)) {
            Some((_, plan)) => plan.clone(),
            None => {
                let plan = Rc::new(SearchPlan::compile(&super::forbid::structure(q, self.set)));
                self.plans.push((q, plan.clone()));
                plan
            }
        };
        // The binding, then the matches' bindings one after another, in lists kept from
        // the grounding before (a grounding within this one starts lists of its own): a
        // list per match was an allocation per member of every aggregate grounded.
        let mut binding = std::mem::take(&mut self.scratch.0);
        binding.clear();
        binding.extend_from_slice(m);
        let width = q.var_end() as usize;
        let mut found = std::mem::take(&mut self.scratch.1);
        found.clear();
        let mut matches = 0;
        let mut over = false;
        let budget = self.budget;
        let _ = self.matcher.for_each_match(&plan, &mut binding, &mut |qm| {
            found.extend_from_slice(&qm[..width]);
            matches += 1;
            over = matches > budget;
            if over {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        self.scratch.0 = binding;
        if over {
            return None;
        }
        self.floor = self.floor.min(budget - matches);
        let mut items = Vec::with_capacity(matches);
        for k in 0..matches {
            let qm = &found[k * width..(k + 1) * width];
            let when = self.pattern(q, qm)?;
            let body = match body {
                Some(b) => self.expr(b, qm)?,
                None => Term::Const(Value::Bool(true)),
            };
            items.push(Item { when, body });
        }
        self.scratch.1 = found;
        Some(items)
    }

    fn expr(&mut self, e: &'a Expr, m: &[NodeId]) -> Option<Term> {
        self.budget = self.budget.checked_sub(1)?;
        self.floor = self.floor.min(self.budget);
        Some(match &e.kind {
            ExprKind::Const(v) => Term::Const(*v),
            ExprKind::Param(_) => return None,
            ExprKind::Attr(var, a) => {
                let n = *m.get(var.index())?;
                match self.model.slot_of.get(&(n, *a)) {
                    Some(&s) => Term::Slot(s),
                    None => Term::Const(self.g.base.attr(n, *a)),
                }
            }
            ExprKind::Unary(op, x) => match self.expr(x, m)? {
                Term::Const(v) => Term::Const(unary(*op, v)),
                x => Term::Unary(*op, Box::new(x)),
            },
            ExprKind::Binary(op, a, b) => binary_folded(*op, self.expr(a, m)?, self.expr(b, m)?),
            ExprKind::ToInt(x, ints) => match self.expr(x, m)? {
                Term::Const(v) => Term::Const(to_int(v, ints)),
                x => Term::ToInt(Box::new(x), ints.clone()),
            },
            ExprKind::ToValue(x, ints) => match self.expr(x, m)? {
                Term::Const(v) => Term::Const(to_value(v, ints)),
                x => Term::ToValue(Box::new(x), ints.clone()),
            },
            ExprKind::Aggregate(a) => {
                Term::Fold(a.op, self.matches(&a.pattern, m, a.body.as_ref())?)
            }
        })
    }
}

/// `a op b`, computed where the constants decide it: both operands constant, or one
/// that settles a conjunction or a disjunction alone (the other has no effect to keep).
/// A clue a layer leaves out is a constant none, so an instance of a sight line without
/// a clue folds to false here, and is dropped (see `SlotForbids::compile`).
fn binary_folded(op: BinOp, a: Term, b: Term) -> Term {
    match (op, a, b) {
        (BinOp::And, Term::Const(v), _) | (BinOp::And, _, Term::Const(v))
            if v != Value::Bool(true) =>
        {
            Term::Const(Value::Bool(false))
        }
        (BinOp::Or, Term::Const(Value::Bool(true)), _)
        | (BinOp::Or, _, Term::Const(Value::Bool(true))) => Term::Const(Value::Bool(true)),
        (BinOp::And | BinOp::Or, a, b) => Term::Binary(op, Box::new(a), Box::new(b)),
        (op, Term::Const(x), Term::Const(y)) => Term::Const(binary(op, x, y)),
        (op, a, b) => Term::Binary(op, Box::new(a), Box::new(b)),
    }
}

fn and(a: Term, b: Term) -> Term {
    match (a, b) {
        (Term::Const(Value::Bool(true)), x) | (x, Term::Const(Value::Bool(true))) => x,
        (a, b) => binary_folded(BinOp::And, a, b),
    }
}

impl Term {
    /// Whether this is the constant false: a condition no state makes hold.
    pub fn is_false(&self) -> bool {
        matches!(self, Term::Const(Value::Bool(false)))
    }

    /// Whether the condition holds where the slots hold `vals` (0 = empty, else the
    /// value's index plus one).
    #[cfg(test)]
    pub fn holds(&self, vals: &[u8]) -> bool {
        self.eval(vals) == Value::Bool(true)
    }

    /// The term's value, as [`Expr::eval`] gives it on the state's graph: the reference
    /// for [`super::term_program::TermProgram`], which the search evaluates (kept for the
    /// tests).
    #[cfg(test)]
    pub fn eval(&self, vals: &[u8]) -> Value {
        match self {
            Term::Const(v) => *v,
            Term::Slot(s) => super::slot_value(vals[*s as usize]),
            Term::Unary(op, x) => unary(*op, x.eval(vals)),
            Term::Binary(BinOp::And, a, b) => Value::Bool(a.holds(vals) && b.holds(vals)),
            Term::Binary(BinOp::Or, a, b) => Value::Bool(a.holds(vals) || b.holds(vals)),
            Term::Binary(op, a, b) => binary(*op, a.eval(vals), b.eval(vals)),
            Term::ToInt(x, ints) => to_int(x.eval(vals), ints),
            Term::ToValue(x, ints) => to_value(x.eval(vals), ints),
            Term::Fold(op, items) => {
                let mut f = Fold::new(*op);
                for it in items {
                    if it.when.holds(vals) && f.add(it.body.eval(vals)) {
                        break;
                    }
                }
                f.finish()
            }
        }
    }

    /// The values the term may take over every completion of the state: slots filled in
    /// `vals` as they are, an empty slot `s` anywhere in `range(s)` (its least and greatest
    /// candidate's index).
    #[cfg(test)]
    pub fn bounds(&self, vals: &[u8], range: &impl Fn(u32) -> (u16, u16)) -> Bounds {
        match self {
            Term::Const(v) => Bounds::of(*v),
            Term::Slot(s) => slot_bounds(*s, vals, range),
            Term::Unary(op, x) => x.bounds(vals, range).unary(*op),
            Term::Binary(op, a, b) => a.bounds(vals, range).binary(*op, b.bounds(vals, range)),
            Term::ToInt(x, ints) => x.bounds(vals, range).to_int(ints),
            Term::ToValue(x, ints) => x.bounds(vals, range).to_value(ints),
            Term::Fold(op, items) => fold_bounds(
                *op,
                items.len(),
                |k| items[k].when.bounds(vals, range),
                |k| items[k].body.bounds(vals, range),
            ),
        }
    }

    /// This node as one operation on the slots it reads, where it is a comparison of two
    /// slots or a slot's integer: the bulk of sight lines' and cages' terms, which both
    /// programs ([`super::bounds_program`], [`super::term_program`]) lay out without their
    /// operands.
    pub(super) fn fused(&self) -> Option<Fused> {
        match self {
            Term::Binary(op, a, b) => match (&**a, &**b) {
                (Term::Slot(a), Term::Slot(b)) if op.is_comparison() => {
                    Some(Fused::Compare(*op, *a, *b))
                }
                _ => None,
            },
            Term::ToInt(x, ints) => match &**x {
                Term::Slot(s) => Some(Fused::SlotInt(*s, ints.clone())),
                _ => None,
            },
            _ => None,
        }
    }

    /// Where this node is an `all` or an `any` whose every match counts (`when` the
    /// constant true) and compares two slots: whether it is an `all`, and the comparisons.
    /// A skyscraper's `all(e.val < d.val for e ...)` is one, whose matches would otherwise
    /// be two nodes each, a constant and a comparison, and a fold reading them; both
    /// programs lay it out as one step.
    pub(super) fn compares_folded(&self) -> Option<(bool, Box<[Comparison]>)> {
        let Term::Fold(op @ (AggOp::All | AggOp::Any), items) = self else {
            return None;
        };
        let compares: Box<[Comparison]> = items
            .iter()
            .map(|it| match (&it.when, it.body.fused()) {
                (Term::Const(Value::Bool(true)), Some(Fused::Compare(o, a, b))) => Some((o, a, b)),
                _ => None,
            })
            .collect::<Option<_>>()?;
        (!compares.is_empty()).then_some((*op == AggOp::All, compares))
    }

    /// What this node does to its operands' bounds, for [`super::bounds_program`].
    pub(super) fn step(&self) -> Step {
        match self {
            Term::Const(v) => Step::Const(Bounds::of(*v)),
            Term::Slot(s) => Step::Slot(*s),
            Term::Unary(op, _) => Step::Unary(*op),
            Term::Binary(op, _, _) => Step::Binary(*op),
            Term::ToInt(_, ints) => Step::ToInt(ints.clone()),
            Term::ToValue(_, ints) => Step::ToValue(ints.clone()),
            Term::Fold(op, _) => Step::Fold(*op),
        }
    }

    /// Calls `f` with each operand in order (a fold's: each match's `when`, then its
    /// `body`).
    pub(super) fn for_each_operand(&self, f: &mut impl FnMut(&Term)) {
        match self {
            Term::Const(_) | Term::Slot(_) => {}
            Term::Unary(_, x) | Term::ToInt(x, _) | Term::ToValue(x, _) => f(x),
            Term::Binary(_, a, b) => {
                f(a);
                f(b);
            }
            Term::Fold(_, items) => {
                for it in items {
                    f(&it.when);
                    f(&it.body);
                }
            }
        }
    }

    /// The term's nodes, each match of a fold counted as one more: a program lays out at
    /// most two operations for each.
    pub fn nodes(&self) -> usize {
        let mut n = 1;
        if let Term::Fold(_, items) = self {
            n += items.len();
        }
        self.for_each_operand(&mut |x| n += x.nodes());
        n
    }

    /// The slots the term reads, each once per occurrence.
    pub fn visit_slots(&self, f: &mut impl FnMut(u32)) {
        match self {
            Term::Const(_) => {}
            Term::Slot(s) => f(*s),
            Term::Unary(_, x) | Term::ToInt(x, _) | Term::ToValue(x, _) => x.visit_slots(f),
            Term::Binary(_, a, b) => {
                a.visit_slots(f);
                b.visit_slots(f);
            }
            Term::Fold(_, items) => {
                for it in items {
                    it.when.visit_slots(f);
                    it.body.visit_slots(f);
                }
            }
        }
    }
}

/// Two slots compared: the operator, then the slots.
pub type Comparison = (BinOp, u32, u32);

/// A term node read straight from slots (see [`Term::fused`]).
#[derive(Clone, Debug)]
pub enum Fused {
    /// Two slots compared by an equality or an ordering.
    Compare(BinOp, u32, u32),
    /// A slot's value's integer.
    SlotInt(u32, Arc<[i64]>),
}

impl Fused {
    /// The bounds step that computes it.
    pub(super) fn step(self) -> Step {
        match self {
            Fused::Compare(op, a, b) => Step::Compare(op, a, b),
            Fused::SlotInt(s, ints) => Step::SlotInt(s, ints),
        }
    }
}

/// What one node of a term does to its operands' bounds.
#[derive(Clone, Debug)]
pub enum Step {
    Const(Bounds),
    Slot(u32),
    /// Two slots compared (`Binary` over two `Slot`s, in one step).
    Compare(BinOp, u32, u32),
    /// A slot's value's integer (`ToInt` over a `Slot`, in one step).
    SlotInt(u32, Arc<[i64]>),
    Unary(UnOp),
    Binary(BinOp),
    ToInt(Arc<[i64]>),
    ToValue(Arc<[i64]>),
    /// Over its operands taken in pairs: each match's `when`, then its `body`.
    Fold(AggOp),
    /// `all` (true) or `any` (false) over matches that all count, each comparing two
    /// slots (see [`Term::compares_folded`]), in one step.
    AllCompare(bool, Box<[Comparison]>),
}

impl Step {
    /// The node's bounds from its operands' (`arg(k)`: the k-th operand's), a slot's from
    /// the state (`vals`) and the candidates (`range`): as `Term::bounds` (kept for the tests) computes them.
    // Inlined into the bounds program's loop, its only caller: left to itself the compiler
    // has called it instead, a tenth more instructions on a skyscraper's sight lines.
    #[inline(always)]
    pub fn bounds(
        &self,
        args: usize,
        arg: impl Fn(usize) -> Bounds,
        vals: &[u8],
        range: &impl Fn(u32) -> (u16, u16),
    ) -> Bounds {
        match self {
            Step::Const(b) => *b,
            Step::Slot(s) => slot_bounds(*s, vals, range),
            Step::Compare(op, a, b) => {
                let (t, f) = compare_slots(*op, *a, *b, vals, range);
                Bounds::truth(t, f)
            }
            Step::SlotInt(s, ints) => slot_bounds(*s, vals, range).to_int(ints),
            Step::Unary(op) => arg(0).unary(*op),
            Step::Binary(op) => arg(0).binary(*op, arg(1)),
            Step::ToInt(ints) => arg(0).to_int(ints),
            Step::ToValue(ints) => arg(0).to_value(ints),
            Step::Fold(op) => fold_bounds(*op, args / 2, |k| arg(2 * k), |k| arg(2 * k + 1)),
            Step::AllCompare(all, compares) => {
                // `fold_bounds` over matches that surely count, read straight from the
                // comparisons' truths.
                let (mut hold, mut miss) = (true, false);
                for &(o, a, b) in compares.iter() {
                    let (t, f) = compare_slots(o, a, b, vals, range);
                    let (good, bad) = if *all { (t, f) } else { (f, t) };
                    hold &= good;
                    miss |= bad;
                    if !hold {
                        break;
                    }
                }
                if *all {
                    Bounds::truth(hold, miss)
                } else {
                    Bounds::truth(miss, hold)
                }
            }
        }
    }
}

/// Whether two slots compared may be true, and may be untrue: what
/// `slot_bounds(a).binary(op, slot_bounds(b))` says, read from their spans (a slot holds
/// a domain value, never none, in every completion).
#[inline(always)]
fn compare_slots(
    op: BinOp,
    a: u32,
    b: u32,
    vals: &[u8],
    range: &impl Fn(u32) -> (u16, u16),
) -> (bool, bool) {
    let span = |s: u32| match vals[s as usize] {
        0 => range(s),
        v => (u16::from(v) - 1, u16::from(v) - 1),
    };
    let ((alo, ahi), (blo, bhi)) = (span(a), span(b));
    match op {
        BinOp::Lt => (alo < bhi, ahi >= blo),
        BinOp::Le => (alo <= bhi, ahi > blo),
        BinOp::Gt => (ahi > blo, alo <= bhi),
        BinOp::Ge => (ahi >= blo, alo < bhi),
        BinOp::Eq | BinOp::Ne => {
            let same = alo.max(blo) <= ahi.min(bhi);
            let differ = !(alo == ahi && blo == bhi && alo == blo);
            if op == BinOp::Eq {
                (same, differ)
            } else {
                (differ, same)
            }
        }
        _ => {
            let c = slot_bounds(a, vals, range).binary(op, slot_bounds(b, vals, range));
            (c.may_true(), c.may_untrue())
        }
    }
}

/// A slot's bounds: its value when filled, else its candidates' span.
fn slot_bounds(s: u32, vals: &[u8], range: &impl Fn(u32) -> (u16, u16)) -> Bounds {
    match vals[s as usize] {
        0 => {
            let (lo, hi) = range(s);
            Bounds::span(Kind::Val, i64::from(lo), i64::from(hi))
        }
        v => Bounds::of(super::slot_value(v)),
    }
}

/// What kind of value a term has (expressions are type-checked, so one per term but for
/// `none`, which has every kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Bool,
    Int,
    Val,
    /// Only ever `none`.
    Nothing,
}

/// The values a term may take: `none` if `none` is set, and every value of `kind` from
/// `lo` to `hi` (none of them when `lo > hi`). Booleans are 0 and 1, domain values their
/// index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub kind: Kind,
    pub none: bool,
    pub lo: i64,
    pub hi: i64,
}

const NONE_ONLY: Bounds = Bounds {
    kind: Kind::Nothing,
    none: true,
    lo: 1,
    hi: 0,
};

impl Bounds {
    fn of(v: Value) -> Bounds {
        match v {
            Value::None => NONE_ONLY,
            Value::Bool(b) => Bounds::span(Kind::Bool, i64::from(b), i64::from(b)),
            Value::Int(n) => Bounds::span(Kind::Int, n, n),
            Value::Val(i) => Bounds::span(Kind::Val, i64::from(i), i64::from(i)),
        }
    }

    fn span(kind: Kind, lo: i64, hi: i64) -> Bounds {
        Bounds {
            kind,
            none: false,
            lo,
            hi,
        }
    }

    /// A boolean that may be true, may be false, or both (never none).
    fn truth(may_true: bool, may_false: bool) -> Bounds {
        Bounds::span(Kind::Bool, i64::from(!may_false), i64::from(may_true))
    }

    fn has_values(&self) -> bool {
        self.lo <= self.hi
    }

    /// Some completion makes it `true`.
    pub fn may_true(&self) -> bool {
        self.kind == Kind::Bool && self.lo <= 1 && self.hi >= 1
    }

    /// Some completion makes it anything but `true` (a condition that does not hold).
    pub fn may_untrue(&self) -> bool {
        self.none || (self.has_values() && !(self.kind == Kind::Bool && self.lo >= 1))
    }

    /// `true` in every completion.
    pub fn surely_true(&self) -> bool {
        self.may_true() && !self.may_untrue()
    }

    /// The single value it has in every completion, if it has one.
    fn certain(&self) -> Option<Value> {
        match (self.none, self.has_values()) {
            (true, false) => Some(Value::None),
            (false, true) if self.lo == self.hi => Some(match self.kind {
                Kind::Bool => Value::Bool(self.lo == 1),
                Kind::Int => Value::Int(self.lo),
                Kind::Val => Value::Val(self.lo as u16),
                Kind::Nothing => Value::None,
            }),
            _ => None,
        }
    }

    /// Ints from `lo` to `hi` computed in i128; `none` added where they leave i64.
    fn ints(none: bool, lo: i128, hi: i128) -> Bounds {
        let fits = |x: i128| i64::try_from(x).is_ok();
        if fits(lo) && fits(hi) {
            Bounds {
                kind: Kind::Int,
                none,
                lo: lo as i64,
                hi: hi as i64,
            }
        } else {
            Bounds {
                kind: Kind::Int,
                none: true,
                lo: lo.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
                hi: hi.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
            }
        }
    }

    fn unary(self, op: UnOp) -> Bounds {
        let numeric = self.has_values()
            && match op {
                UnOp::Not => self.kind == Kind::Bool,
                UnOp::Neg | UnOp::Abs | UnOp::Int => self.kind == Kind::Int,
            };
        if !numeric {
            return NONE_ONLY;
        }
        let (lo, hi) = (i128::from(self.lo), i128::from(self.hi));
        match op {
            UnOp::Not => Bounds {
                lo: 1 - self.hi,
                hi: 1 - self.lo,
                ..self
            },
            UnOp::Int => self,
            UnOp::Neg => Bounds::ints(self.none, -hi, -lo),
            UnOp::Abs if lo >= 0 => Bounds::ints(self.none, lo, hi),
            UnOp::Abs if hi <= 0 => Bounds::ints(self.none, -hi, -lo),
            UnOp::Abs => Bounds::ints(self.none, 0, hi.max(-lo)),
        }
    }

    fn binary(self, op: BinOp, b: Bounds) -> Bounds {
        let a = self;
        match op {
            BinOp::Eq | BinOp::Ne => {
                let same =
                    (a.none && b.none) || (a.kind == b.kind && a.lo.max(b.lo) <= a.hi.min(b.hi));
                let differ = match (a.certain(), b.certain()) {
                    (Some(x), Some(y)) => x != y,
                    _ => true,
                };
                if op == BinOp::Eq {
                    Bounds::truth(same, differ)
                } else {
                    Bounds::truth(differ, same)
                }
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let comparable =
                    a.has_values() && b.has_values() && a.kind == b.kind && a.kind != Kind::Nothing;
                if !comparable {
                    return NONE_ONLY;
                }
                // `a < b` may hold when a's least is below b's greatest, and may fail when
                // a's greatest reaches b's least; the others alike.
                let (t, f) = match op {
                    BinOp::Lt => (a.lo < b.hi, a.hi >= b.lo),
                    BinOp::Le => (a.lo <= b.hi, a.hi > b.lo),
                    BinOp::Gt => (a.hi > b.lo, a.lo <= b.hi),
                    _ => (a.hi >= b.lo, a.lo < b.hi),
                };
                Bounds {
                    none: a.none || b.none,
                    ..Bounds::truth(t, f)
                }
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => {
                if !(a.has_values() && b.has_values() && a.kind == Kind::Int && b.kind == Kind::Int)
                {
                    return NONE_ONLY;
                }
                arith(op, a, b)
            }
            BinOp::And => Bounds::truth(
                a.may_true() && b.may_true(),
                a.may_untrue() || b.may_untrue(),
            ),
            BinOp::Or => Bounds::truth(
                a.may_true() || b.may_true(),
                a.may_untrue() && b.may_untrue(),
            ),
        }
    }

    fn to_int(self, ints: &[i64]) -> Bounds {
        match self.kind {
            Kind::Int => self,
            // A value indexes the domain's integers, a condition (0 or 1) its two.
            Kind::Val | Kind::Bool if self.has_values() => {
                let lo = self.lo.max(0) as usize;
                let hi = (self.hi.max(-1) + 1) as usize;
                let inside = ints.get(lo..hi.min(ints.len())).unwrap_or(&[]);
                let (Some(&min), Some(&max)) = (inside.iter().min(), inside.iter().max()) else {
                    return NONE_ONLY;
                };
                Bounds {
                    kind: Kind::Int,
                    none: self.none || hi > ints.len(),
                    lo: min,
                    hi: max,
                }
            }
            _ => NONE_ONLY,
        }
    }

    fn to_value(self, ints: &[i64]) -> Bounds {
        if self.kind == Kind::Val {
            return self;
        }
        if self.kind != Kind::Int || !self.has_values() {
            return NONE_ONLY;
        }
        let hits: Vec<usize> = (0..ints.len())
            .filter(|&i| (self.lo..=self.hi).contains(&ints[i]))
            .collect();
        let (Some(&lo), Some(&hi)) = (hits.first(), hits.last()) else {
            return NONE_ONLY;
        };
        // An int in the range that no value has gives none.
        let mut distinct: Vec<i64> = hits.iter().map(|&i| ints[i]).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let width = i128::from(self.hi) - i128::from(self.lo) + 1;
        Bounds {
            kind: Kind::Val,
            none: self.none || width > distinct.len() as i128,
            lo: lo as i64,
            hi: hi as i64,
        }
    }
}

/// Interval arithmetic on two ints' bounds; `none` where the exact operation may give it
/// (a division by zero, an overflow, a `none` operand).
fn arith(op: BinOp, a: Bounds, b: Bounds) -> Bounds {
    let none = a.none || b.none;
    let (al, ah, bl, bh) = (
        i128::from(a.lo),
        i128::from(a.hi),
        i128::from(b.lo),
        i128::from(b.hi),
    );
    match op {
        BinOp::Add => Bounds::ints(none, al + bl, ah + bh),
        BinOp::Sub => Bounds::ints(none, al - bh, ah - bl),
        BinOp::Mul => {
            let c = [al * bl, al * bh, ah * bl, ah * bh];
            Bounds::ints(none, *c.iter().min().unwrap(), *c.iter().max().unwrap())
        }
        BinOp::Div => {
            // Over the divisor's nonzero parts: quotients are extreme at the corners.
            let zero = bl <= 0 && bh >= 0;
            let parts = [(bl, bh.min(-1)), (bl.max(1), bh)];
            let mut out: Option<(i128, i128)> = None;
            for (l, h) in parts.into_iter().filter(|(l, h)| l <= h) {
                for q in [al / l, al / h, ah / l, ah / h] {
                    out = Some(out.map_or((q, q), |(x, y)| (x.min(q), y.max(q))));
                }
            }
            match out {
                Some((lo, hi)) => Bounds::ints(none || zero, lo, hi),
                None => NONE_ONLY,
            }
        }
        _ => {
            // A remainder has the dividend's sign and is smaller than the divisor.
            let m = bl.abs().max(bh.abs()) - 1;
            // Division by zero, and `i64::MIN % -1`, which overflows.
            let zero = (bl <= 0 && bh >= 0) || (al == i128::from(i64::MIN) && bl <= -1 && bh >= -1);
            if m < 0 {
                return NONE_ONLY;
            }
            let lo = if al >= 0 { 0 } else { al.max(-m) };
            let hi = if ah <= 0 { 0 } else { ah.min(m) };
            Bounds::ints(none || zero, lo, hi)
        }
    }
}

/// The bounds of a fold over `n` matches, the k-th counting when `when(k)` holds and
/// adding `body(k)` (asked only where it may count).
fn fold_bounds(
    op: AggOp,
    n: usize,
    when: impl Fn(usize) -> Bounds,
    body: impl Fn(usize) -> Bounds,
) -> Bounds {
    match op {
        AggOp::Count => {
            let (mut lo, mut hi) = (0i128, 0i128);
            for k in 0..n {
                let w = when(k);
                lo += i128::from(w.surely_true());
                hi += i128::from(w.may_true());
            }
            Bounds::ints(false, lo, hi)
        }
        AggOp::Sum => {
            let (mut lo, mut hi) = (0i128, 0i128);
            for k in 0..n {
                let w = when(k);
                if !w.may_true() {
                    continue;
                }
                let b = body(k);
                // A match that may not count, or whose body may be none, may add nothing.
                let zero = !w.surely_true() || b.none || b.kind != Kind::Int;
                let (mut l, mut h) = if b.kind == Kind::Int && b.has_values() {
                    (i128::from(b.lo), i128::from(b.hi))
                } else {
                    (0, 0)
                };
                if zero {
                    (l, h) = (l.min(0), h.max(0));
                }
                lo += l;
                hi += h;
            }
            // A sum whose partial sums may overflow may be none (`ints` says so).
            Bounds::ints(false, lo, hi)
        }
        AggOp::Min | AggOp::Max => {
            let min = op == AggOp::Min;
            let mut kind = Kind::Nothing;
            let (mut reach, mut sure): (Option<i64>, Option<i64>) = (None, None);
            let mut far: Option<i64> = None;
            for k in 0..n {
                let w = when(k);
                if !w.may_true() {
                    continue;
                }
                let b = body(k);
                if !b.has_values() || b.kind == Kind::Nothing {
                    continue;
                }
                kind = b.kind;
                // `reach`: the most extreme value any match may give; `far`: the least
                // extreme; `sure`: the bound a match that surely counts sets.
                let (near_end, far_end) = if min { (b.lo, b.hi) } else { (b.hi, b.lo) };
                let pick = |x: Option<i64>, y: i64, towards_min: bool| {
                    Some(x.map_or(y, |x| if towards_min { x.min(y) } else { x.max(y) }))
                };
                reach = pick(reach, near_end, min);
                far = pick(far, far_end, !min);
                if w.surely_true() && !b.none {
                    sure = pick(sure, far_end, min);
                }
            }
            let Some(reach) = reach else {
                return NONE_ONLY;
            };
            let other = sure.or(far).unwrap_or(reach);
            let (lo, hi) = if min { (reach, other) } else { (other, reach) };
            Bounds {
                kind,
                none: sure.is_none(),
                lo,
                hi,
            }
        }
        AggOp::All | AggOp::Any => {
            // `any` is `all` with true and untrue swapped: `hold` is whether every counted
            // match may give what `all` needs (true) or `any` avoids (untrue), `miss`
            // whether one may give the other.
            let all = op == AggOp::All;
            let (mut hold, mut miss) = (true, false);
            for k in 0..n {
                let w = when(k);
                if !w.may_true() {
                    continue;
                }
                let b = body(k);
                let (good, bad) = if all {
                    (b.may_true(), b.may_untrue())
                } else {
                    (b.may_untrue(), b.may_true())
                };
                hold &= w.may_untrue() || good;
                miss |= bad;
                if !hold {
                    break; // settled: the rest cannot change it
                }
            }
            if all {
                Bounds::truth(hold, miss)
            } else {
                Bounds::truth(miss, hold)
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn slot(s: u32) -> Box<Term> {
        Box::new(Term::Slot(s))
    }

    fn int(n: i64) -> Box<Term> {
        Box::new(Term::Const(Value::Int(n)))
    }

    fn ints() -> Arc<[i64]> {
        Arc::from(vec![1i64, 2, 3, 4])
    }

    fn to_int(s: u32) -> Box<Term> {
        Box::new(Term::ToInt(slot(s), ints()))
    }

    /// Every complete assignment of `empty`'s slots (values 0..4) within `cands`.
    fn completions(vals: &[u8], cands: &[u8]) -> Vec<Vec<u8>> {
        let mut out = vec![vals.to_vec()];
        for s in 0..vals.len() {
            if vals[s] != 0 {
                continue;
            }
            out = out
                .into_iter()
                .flat_map(|v| {
                    (0..4u8).filter(|x| cands[s] & (1 << x) != 0).map(move |x| {
                        let mut w = v.clone();
                        w[s] = x + 1;
                        w
                    })
                })
                .collect();
        }
        out
    }

    /// Terms over three slots, built from the operators `forbid` patterns use.
    pub(in crate::slot) fn terms() -> Vec<Term> {
        let sum = Term::Binary(BinOp::Add, to_int(0), to_int(1));
        let item = |when: Term, body: Term| Item { when, body };
        let filled = |s: u32| Term::Binary(BinOp::Ne, slot(s), Box::new(Term::Const(Value::None)));
        // The fold `op` of the filled slots' ints.
        let of_filled = |op: AggOp| {
            Term::Fold(
                op,
                (0..3)
                    .map(|s| item(filled(s), Term::ToInt(slot(s), ints())))
                    .collect(),
            )
        };
        // The fold `op` of comparisons of two slots, every match counting.
        let compared = |op: AggOp, compares: [Comparison; 3]| {
            Term::Fold(
                op,
                compares
                    .into_iter()
                    .map(|(o, a, b)| {
                        item(
                            Term::Const(Value::Bool(true)),
                            Term::Binary(o, slot(a), slot(b)),
                        )
                    })
                    .collect(),
            )
        };
        // A condition counted as 0 or 1 (`int(d.val == 1)`).
        let bracket =
            |cond: Term| Term::ToInt(Box::new(cond), crate::rule::expr::CONDITION_INTS.into());
        vec![
            Term::Binary(BinOp::Ne, Box::new(Term::ToValue(slot(0), ints())), slot(1)),
            // The slots holding the first value, and whether slot 2 holds more than slot 0.
            Term::Binary(
                BinOp::Eq,
                Box::new(Term::Binary(
                    BinOp::Add,
                    (0..3).fold(int(0), |sum, s| {
                        let first = Term::Binary(BinOp::Eq, to_int(s), int(1));
                        Box::new(Term::Binary(BinOp::Add, sum, Box::new(bracket(first))))
                    }),
                    Box::new(bracket(Term::Binary(BinOp::Gt, slot(2), slot(0)))),
                )),
                int(2),
            ),
            Term::Binary(BinOp::Gt, Box::new(sum.clone()), to_int(2)),
            Term::Binary(
                BinOp::Eq,
                Box::new(Term::Unary(
                    UnOp::Abs,
                    Box::new(Term::Binary(BinOp::Sub, to_int(0), to_int(2))),
                )),
                int(1),
            ),
            Term::Binary(BinOp::Lt, slot(0), slot(1)),
            Term::Binary(
                BinOp::Or,
                Box::new(Term::Binary(BinOp::Le, slot(1), slot(0))),
                Box::new(Term::Binary(BinOp::Ge, slot(1), slot(2))),
            ),
            Term::Binary(BinOp::Ge, Box::new(of_filled(AggOp::Sum)), int(7)),
            Term::Binary(
                BinOp::Gt,
                Box::new(Term::Fold(
                    AggOp::Count,
                    (0..3)
                        .map(|s| {
                            item(
                                Term::Fold(
                                    AggOp::All,
                                    (0..s)
                                        .map(|e| {
                                            item(
                                                Term::Const(Value::Bool(true)),
                                                Term::Binary(BinOp::Lt, slot(e), slot(s)),
                                            )
                                        })
                                        .collect(),
                                ),
                                Term::Const(Value::Bool(true)),
                            )
                        })
                        .collect(),
                )),
                int(1),
            ),
            // Every comparison, in an `any` and an `all` whose matches all count (one
            // step each).
            Term::Binary(
                BinOp::Or,
                Box::new(compared(
                    AggOp::Any,
                    [(BinOp::Eq, 0, 1), (BinOp::Ne, 1, 2), (BinOp::Ge, 2, 0)],
                )),
                Box::new(compared(
                    AggOp::All,
                    [(BinOp::Le, 0, 2), (BinOp::Gt, 1, 0), (BinOp::Ne, 2, 0)],
                )),
            ),
            Term::Binary(
                BinOp::Ge,
                Box::new(Term::Binary(
                    BinOp::Sub,
                    Box::new(of_filled(AggOp::Max)),
                    Box::new(of_filled(AggOp::Min)),
                )),
                Box::new(Term::Fold(
                    AggOp::Count,
                    (0..3)
                        .map(|s| item(filled(s), Term::Const(Value::Bool(true))))
                        .collect(),
                )),
            ),
            Term::Unary(
                UnOp::Not,
                Box::new(Term::Fold(
                    AggOp::Any,
                    (0..3)
                        .map(|s| {
                            item(
                                Term::Binary(
                                    BinOp::Eq,
                                    Box::new(Term::Binary(BinOp::Rem, to_int(s), int(2))),
                                    int(0),
                                ),
                                Term::Binary(
                                    BinOp::Eq,
                                    Box::new(Term::ToValue(
                                        Box::new(Term::Binary(BinOp::Div, to_int(s), int(2))),
                                        ints(),
                                    )),
                                    slot(2),
                                ),
                            )
                        })
                        .collect(),
                )),
            ),
        ]
    }

    /// A binary node folded where constants decide it evaluates as the node itself, on
    /// every assignment of two slots: constants of each kind and none, and operands that
    /// read slots (a value, a comparison that may be none, an integer).
    #[test]
    fn constants_fold_as_the_node_evaluates() {
        let operands: Vec<Term> = [
            Value::None,
            Value::Bool(false),
            Value::Bool(true),
            Value::Int(0),
            Value::Int(3),
            Value::Val(1),
        ]
        .into_iter()
        .map(Term::Const)
        .chain([
            Term::Slot(0),
            Term::Binary(BinOp::Lt, slot(0), slot(1)),
            *to_int(1),
        ])
        .collect();
        let ops = [
            BinOp::Eq,
            BinOp::Ne,
            BinOp::Lt,
            BinOp::Le,
            BinOp::Gt,
            BinOp::Ge,
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Div,
            BinOp::Rem,
            BinOp::And,
            BinOp::Or,
        ];
        let (mut folded_count, mut short_circuits) = (0, 0);
        for op in ops {
            for a in &operands {
                for b in &operands {
                    let plain = Term::Binary(op, Box::new(a.clone()), Box::new(b.clone()));
                    let folded = binary_folded(op, a.clone(), b.clone());
                    if let Term::Const(_) = folded {
                        folded_count += 1;
                        if !matches!((a, b), (Term::Const(_), Term::Const(_))) {
                            short_circuits += 1;
                        }
                    }
                    for x in 0..=4u8 {
                        for y in 0..=4u8 {
                            assert_eq!(
                                folded.eval(&[x, y]),
                                plain.eval(&[x, y]),
                                "{plain:?} at {x}, {y}"
                            );
                        }
                    }
                }
            }
        }
        // Every pair of constants folds, and a conjunction or disjunction that one
        // constant settles folds whatever the other side reads.
        assert!(folded_count >= 13 * 36, "{folded_count} folded");
        assert_eq!(short_circuits, 2 * 3 * 5 + 2 * 3, "short circuits");
    }

    /// The bounds hold every value the term takes in a completion, and a term surely true
    /// is true in each of them: on every partial assignment and candidate set of three slots.
    #[test]
    fn bounds_hold_every_completion() {
        let mut checked = 0;
        // Per slot: filled with one of four values (no candidates), or empty with some.
        let per_slot: Vec<(u8, u8)> = (1..=4)
            .map(|v| (v, 0))
            .chain((1..16).map(|c| (0, c)))
            .collect();
        for t in terms() {
            for code in 0..per_slot.len().pow(3) {
                let pick =
                    |s: usize| per_slot[code / per_slot.len().pow(s as u32) % per_slot.len()];
                let vals: Vec<u8> = (0..3).map(|s| pick(s).0).collect();
                let cands: Vec<u8> = (0..3).map(|s| pick(s).1).collect();
                {
                    let range = |s: u32| {
                        let c = cands[s as usize];
                        (c.trailing_zeros() as u16, 7 - c.leading_zeros() as u16)
                    };
                    let b = t.bounds(&vals, &range);
                    let outcomes: Vec<Value> = completions(&vals, &cands)
                        .iter()
                        .map(|v| t.eval(v))
                        .collect();
                    for v in &outcomes {
                        let inside = match *v {
                            Value::None => b.none,
                            Value::Bool(x) => {
                                b.kind == Kind::Bool && (b.lo..=b.hi).contains(&i64::from(x))
                            }
                            Value::Int(n) => b.kind == Kind::Int && (b.lo..=b.hi).contains(&n),
                            Value::Val(i) => {
                                b.kind == Kind::Val && (b.lo..=b.hi).contains(&i64::from(i))
                            }
                        };
                        assert!(
                            inside,
                            "{t:?} at {vals:?} cands {cands:?}: {v:?} outside {b:?}"
                        );
                    }
                    if b.surely_true() {
                        assert!(outcomes.iter().all(|v| *v == Value::Bool(true)));
                        checked += 1;
                    }
                }
            }
        }
        // The bounds are not vacuous: many states are proved to match every completion.
        assert!(checked > 1000, "only {checked} states proved");
    }
}
