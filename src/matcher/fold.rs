//! Aggregates (`count(...)`, `sum(... for ...)`, ...) compiled once with the plan whose
//! conditions hold them, and evaluated as a fold over the matches of their pattern that
//! extend the current binding.

use std::ops::ControlFlow;

use crate::model::{NodeId, Value};
use crate::rule::{AggId, AggOp, Aggregate, Expr, Fold};

use super::plan::SearchPlan;
use super::search::{BindingEnv, Matcher, UNBOUND};

/// An aggregate with its pattern compiled to a search plan. The plan's own `aggs` hold the
/// aggregates of the pattern's conditions and of the body.
#[derive(Clone, Debug)]
pub struct AggPlan {
    pub id: AggId,
    pub op: AggOp,
    pub body: Option<Expr>,
    /// The variables the aggregate sees: those of the enclosing patterns.
    pub bound: usize,
    pub plan: SearchPlan,
}

impl AggPlan {
    /// Compiles every aggregate of `exprs` that is not inside another one (those compile
    /// with the plan of the aggregate that holds them).
    pub fn compile_all<'e>(exprs: impl IntoIterator<Item = &'e Expr>) -> Vec<AggPlan> {
        let mut out = Vec::new();
        for e in exprs {
            e.visit_aggregates(&mut |a| out.push(AggPlan::compile(a)));
        }
        out
    }

    fn compile(agg: &Aggregate) -> AggPlan {
        let mut plan = SearchPlan::compile(&agg.pattern);
        plan.aggs.extend(AggPlan::compile_all(agg.body.as_ref()));
        plan.depth = plan.depth.max(agg.depth() as usize);
        AggPlan {
            id: agg.id,
            op: agg.op,
            body: agg.body.clone(),
            bound: agg.pattern.bound as usize,
            plan,
        }
    }
}

/// Where a [`BindingEnv`] evaluates aggregates: the matcher to match their patterns with
/// and the compiled aggregates of the plan (or effects) whose expressions it evaluates.
#[derive(Clone, Copy)]
pub struct Folds<'a> {
    pub matcher: &'a Matcher<'a>,
    pub plans: &'a [AggPlan],
}

impl Folds<'_> {
    /// The value of `agg` under `binding`.
    pub fn eval(&self, agg: &Aggregate, binding: &[NodeId]) -> Value {
        match self.plans.iter().find(|p| p.id == agg.id) {
            Some(plan) => self.matcher.fold(plan, binding),
            None => {
                debug_assert!(false, "aggregate {:?} compiled with its plan", agg.id);
                Value::None
            }
        }
    }
}

impl Matcher<'_> {
    /// Folds the aggregate's expression over the matches of its pattern that extend the
    /// enclosing variables of `outer`; stops early once the result is settled.
    pub fn fold(&self, agg: &AggPlan, outer: &[NodeId]) -> Value {
        let mut binding: Vec<NodeId> = outer[..agg.bound.min(outer.len())].to_vec();
        binding.resize(agg.plan.depth.max(agg.bound), UNBOUND);
        let mut fold = Fold::new(agg.op);
        let _ = self.for_each_match(&agg.plan, &mut binding, &mut |m| {
            let v = match &agg.body {
                None => Value::None,
                Some(body) => body.eval(&BindingEnv {
                    graph: self.graph,
                    binding: m,
                    params: self.params,
                    folds: Some(Folds {
                        matcher: self,
                        plans: &agg.plan.aggs,
                    }),
                }),
            };
            if fold.add(v) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        fold.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Value;

    /// r1c1 = 1, r1c2 empty, r2c1 = 3, r2c2 = 2; each rule binds `c` to r1c2.
    fn grammar(rules: &str) -> crate::Grammar {
        crate::load_str(
            "t.graft",
            &format!(
                "values 1..4
                node Cell {{ row: int, col: int, val: value? }}
                node Group
                edge in: Cell -> Group
                grid 2x2 of Cell
                groups rows
                start {{ 1 . 3 2 }}
                {rules}"
            ),
        )
        .unwrap_or_else(|d| panic!("{d}"))
    }

    /// Whether the condition holds with `c` at r1c2.
    fn holds(cond: &str) -> bool {
        let g = grammar(&format!(
            "rule r {{ c: Cell {{ row == 1 and col == 2 }} where {cond} set c.val = 1 }}"
        ));
        let plan = SearchPlan::compile(&g.rules[0].lhs);
        let start = g.start_graph(None);
        Matcher::new(&g.types, &start, &[]).exists(&plan, &mut Vec::new())
    }

    #[test]
    fn aggregates_fold_over_matches_that_leave_out_the_enclosing_nodes() {
        for cond in [
            "count(d: Cell) == 3",
            "count(d: Cell { val == none }) == 0",
            "count(c -in-> g: Group <-in- d: Cell) == 1",
            "sum(d.val for d: Cell) == 6",
            "sum(d.val for c -in-> g: Group <-in- d: Cell) == 1",
            "sum(d.row for d: Cell where d.val > 1) == 4",
            "min(d.val for d: Cell) == 1",
            "max(d.val for d: Cell) == 3",
            "max(d.val for d: Cell { row == 5 }) == none",
            "min(d.val + 10 for d: Cell { row == 2 }) == 12",
            "all(d.val != none for d: Cell)",
            "not all(d.val > 1 for d: Cell)",
            "all(false for d: Cell { row == 5 })",
            "any(d.val == 3 for d: Cell)",
            "not any(d.val == 4 for d: Cell)",
            "not any(true for d: Cell { row == 5 })",
            // An aggregate inside another: cells whose row-mates (but c) add up to more than 2.
            "count(d: Cell where sum(e.val for d -in-> g: Group <-in- e: Cell) > 2) == 1",
            // A NAC inside: cells none of whose row-mates holds 3.
            "sum(d.val for d: Cell not { d -in-> g: Group <-in- e: Cell { val == 3 } }) == 4",
        ] {
            assert!(holds(cond), "{cond}");
        }
        for cond in [
            "count(d: Cell) == 4",
            "sum(d.val for d: Cell) == 7",
            "max(d.val for d: Cell) < 3",
        ] {
            assert!(!holds(cond), "{cond}");
        }
    }

    #[test]
    fn effects_and_final_conditions_evaluate_aggregates() {
        let g = grammar(
            "rule r { c: Cell { row == 1 and col == 2 } set c.val = count(d: Cell { val != none }) }
             final: not { g: Group where sum(d.val for g <-in- d: Cell) != 5 and sum(d.val for g <-in- d: Cell) != 6 }",
        );
        let rule = crate::graph::apply::CompiledRule::new(&g.rules[0]);
        let start = g.start_graph(None);
        let mut binding = Vec::new();
        let plan = &rule.plan;
        let m = Matcher::new(&g.types, &start, &[]);
        assert!(m.exists(plan, &mut binding));
        let c = start
            .find_nodes()
            .find(|&n| {
                start.node(n).attrs[0] == Value::Int(1) && start.node(n).attrs[1] == Value::Int(2)
            })
            .unwrap();
        let after = rule.apply(&g.types, &start, &[], &[c]);
        // Three cells are filled: c gets the value 3 (index 2).
        assert_eq!(after.node(c).attrs[2], Value::Val(2));
        let fin = crate::matcher::CompiledCondition::compile(g.final_cond.as_ref().unwrap());
        // Rows add up to 1 and 5 before, to 4 and 5 after: final holds after only when no
        // row adds to something else than 5 or 6.
        assert!(!fin.holds(&g.types, &start));
        assert!(!fin.holds(&g.types, &after));
        let mut full = after.clone();
        full.set_attr(c, crate::model::AttrId(2), Value::Val(4 - 1));
        assert!(fin.holds(&g.types, &full), "rows 1 + 4 and 3 + 2");
    }
}
