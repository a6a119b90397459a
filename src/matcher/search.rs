//! Backtracking execution of a search plan over a host graph, with NACs.

use std::ops::ControlFlow;

use crate::model::{AttrId, Graph, NodeId, TypeSystem, Value, VarId};
use crate::rule::Env;

use super::plan::{SearchPlan, Step};

/// The value of an unbound slot in a binding array.
pub const UNBOUND: NodeId = NodeId(u32::MAX);

/// Reads attributes through a binding array and parameters through a slice.
pub struct BindingEnv<'a> {
    pub graph: &'a Graph,
    pub binding: &'a [NodeId],
    pub params: &'a [Value],
}

impl Env for BindingEnv<'_> {
    fn param(&self, index: u32) -> Value {
        self.params
            .get(index as usize)
            .copied()
            .unwrap_or(Value::None)
    }

    fn attr(&self, var: VarId, attr: AttrId) -> Value {
        match self.binding.get(var.index()) {
            Some(&n) if n != UNBOUND => self
                .graph
                .node(n)
                .attrs
                .get(attr.index())
                .copied()
                .unwrap_or(Value::None),
            _ => Value::None,
        }
    }
}

/// Finds matches of search plans in one graph.
pub struct Matcher<'a> {
    pub types: &'a TypeSystem,
    pub graph: &'a Graph,
    pub params: &'a [Value],
}

impl<'a> Matcher<'a> {
    pub fn new(types: &'a TypeSystem, graph: &'a Graph, params: &'a [Value]) -> Self {
        Matcher {
            types,
            graph,
            params,
        }
    }

    /// Calls `f` with every match of `plan` that extends `binding` (whose variables before
    /// the plan's own are already bound) and that no NAC extends. `f` may stop the search.
    pub fn for_each_match(
        &self,
        plan: &SearchPlan,
        binding: &mut Vec<NodeId>,
        f: &mut dyn FnMut(&[NodeId]) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        if binding.len() < plan.depth {
            binding.resize(plan.depth, UNBOUND);
        }
        self.step(plan, 0, binding, f)
    }

    /// True when `plan` has a match extending `binding`.
    pub fn exists(&self, plan: &SearchPlan, binding: &mut Vec<NodeId>) -> bool {
        self.for_each_match(plan, binding, &mut |_| ControlFlow::Break(()))
            .is_break()
    }

    fn step(
        &self,
        plan: &SearchPlan,
        i: usize,
        binding: &mut Vec<NodeId>,
        f: &mut dyn FnMut(&[NodeId]) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let Some(step) = plan.steps.get(i) else {
            // A NAC binds only its own variables and unbinds them on the way back, so
            // the binding is as it was after each check.
            for nac in &plan.nacs {
                if self.exists(nac, binding) {
                    return ControlFlow::Continue(());
                }
            }
            return f(binding);
        };
        let g = self.graph;
        match step {
            Step::Scan { var, ty } => {
                for n in g.find_nodes() {
                    if self.types.is_subtype(g.ty(n), *ty) {
                        self.bind(plan, i, binding, *var, n, f)?;
                    }
                }
            }
            Step::Follow {
                from,
                label,
                forward,
                var,
                ty,
            } => {
                let src = binding[from.index()];
                let adjacent = if *forward { g.out(src) } else { g.inc(src) };
                let lo = adjacent.partition_point(|&(l, _)| l < *label);
                for &(l, n) in &adjacent[lo..] {
                    if l != *label {
                        break;
                    }
                    if g.is_alive(n) && self.types.is_subtype(g.ty(n), *ty) {
                        self.bind(plan, i, binding, *var, n, f)?;
                    }
                }
            }
            Step::Reach { from, nfa, var, ty } => {
                let src = binding[from.index()];
                for n in plan.nfas[*nfa].find_reachable(g, src) {
                    if self.types.is_subtype(g.ty(n), *ty) {
                        self.bind(plan, i, binding, *var, n, f)?;
                    }
                }
            }
            Step::CheckEdge { src, label, tgt } => {
                if g.has_edge(binding[src.index()], *label, binding[tgt.index()]) {
                    return self.step(plan, i + 1, binding, f);
                }
            }
            Step::CheckPath { src, nfa, tgt } => {
                if plan.nfas[*nfa].connects(g, binding[src.index()], binding[tgt.index()]) {
                    return self.step(plan, i + 1, binding, f);
                }
            }
            Step::Cond(e) => {
                let env = BindingEnv {
                    graph: g,
                    binding,
                    params: self.params,
                };
                if e.holds(&env) {
                    return self.step(plan, i + 1, binding, f);
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Binds `var` to `n` when no other bound variable holds `n` (injective matching).
    fn bind(
        &self,
        plan: &SearchPlan,
        i: usize,
        binding: &mut Vec<NodeId>,
        var: VarId,
        n: NodeId,
        f: &mut dyn FnMut(&[NodeId]) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        if binding.contains(&n) {
            return ControlFlow::Continue(());
        }
        binding[var.index()] = n;
        let flow = self.step(plan, i + 1, binding, f);
        binding[var.index()] = UNBOUND;
        flow
    }
}
