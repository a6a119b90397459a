//! Backtracking execution of a search plan over a host graph, with NACs.

use std::cell::Cell;
use std::ops::ControlFlow;

use crate::model::{AttrId, Graph, NodeId, TypeSystem, Value, VarId};
use crate::rule::{Aggregate, Env};

use super::fold::Folds;
use super::index::GraphIndex;
use super::plan::{Operand, SearchPlan, Step};

/// The value of an unbound slot in a binding array.
pub const UNBOUND: NodeId = NodeId(u32::MAX);

/// Reads attributes through a binding array and parameters through a slice, and evaluates
/// aggregates through `folds`.
pub struct BindingEnv<'a> {
    pub graph: &'a Graph,
    pub binding: &'a [NodeId],
    pub params: &'a [Value],
    /// How aggregates are evaluated; `None` where none can stand (the slot engine's
    /// compiler, whose grammars have none), and then they read as none.
    pub folds: Option<Folds<'a>>,
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

    fn aggregate(&self, agg: &Aggregate) -> Value {
        match &self.folds {
            Some(f) => f.eval(agg, self.binding),
            None => Value::None,
        }
    }
}

/// Candidate bindings tried between two calls of a [`SearchPoll`]'s hook: a few hundred
/// microseconds of search.
pub const POLL_STEPS: u32 = 4096;

/// Lets a long search stop (one with few or no matches on a large graph): its hook is
/// called every [`POLL_STEPS`] candidate bindings; once it answers true, every search
/// through this poll ends at once, returning `Break`. A search stopped so may have missed
/// matches, and `exists`/`blocked` answers given while stopping mean nothing.
pub struct SearchPoll<'a> {
    hook: &'a dyn Fn() -> bool,
    steps: Cell<u32>,
    stopped: Cell<bool>,
}

impl<'a> SearchPoll<'a> {
    pub fn new(hook: &'a dyn Fn() -> bool) -> Self {
        SearchPoll {
            hook,
            steps: Cell::new(0),
            stopped: Cell::new(false),
        }
    }

    /// True once the hook asked to stop.
    pub fn stopped(&self) -> bool {
        self.stopped.get()
    }

    /// Counts one step; true when the search must stop.
    #[inline]
    fn tick(&self) -> bool {
        if self.stopped.get() {
            return true;
        }
        let steps = self.steps.get() + 1;
        if steps < POLL_STEPS {
            self.steps.set(steps);
            return false;
        }
        self.steps.set(0);
        let stop = (self.hook)();
        self.stopped.set(stop);
        stop
    }
}

/// Finds matches of search plans in one graph.
pub struct Matcher<'a> {
    pub types: &'a TypeSystem,
    pub graph: &'a Graph,
    pub params: &'a [Value],
    /// Indexes of `graph`, when built: type scans, lookups and paths use them.
    pub index: Option<&'a GraphIndex<'a>>,
    /// Polled as the search goes, when given, so that it can be stopped.
    pub poll: Option<&'a SearchPoll<'a>>,
}

impl<'a> Matcher<'a> {
    pub fn new(types: &'a TypeSystem, graph: &'a Graph, params: &'a [Value]) -> Self {
        Matcher {
            types,
            graph,
            params,
            index: None,
            poll: None,
        }
    }

    /// Polls `poll` as the search goes (see [`SearchPoll`]).
    pub fn with_poll(self, poll: &'a SearchPoll<'a>) -> Self {
        Matcher {
            poll: Some(poll),
            ..self
        }
    }

    /// Uses `index`, which must have been built for this matcher's graph.
    pub fn with_index(self, index: &'a GraphIndex<'a>) -> Self {
        Matcher {
            index: Some(index),
            ..self
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
            Step::Scan { var, ty } => self.scan(plan, i, binding, *var, *ty, f)?,
            Step::Lookup {
                var,
                ty,
                attr,
                value,
            } => {
                let env = BindingEnv {
                    graph: g,
                    binding,
                    params: self.params,
                    folds: None,
                };
                let v = value.eval(&env);
                match self.index.and_then(|x| x.lookup(*ty, *attr, v)) {
                    Some(nodes) => {
                        for n in nodes {
                            self.bind(plan, i, binding, *var, n, f)?;
                        }
                    }
                    // The equality follows as a condition and filters the scan.
                    None => self.scan(plan, i, binding, *var, *ty, f)?,
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
                let nfa = &plan.nfas[*nfa];
                let reached = match self.index {
                    Some(x) => x.reachable(nfa, g, src),
                    None => nfa.find_reachable(g, src).into(),
                };
                for &n in reached.iter() {
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
                let (a, b, nfa) = (binding[src.index()], binding[tgt.index()], &plan.nfas[*nfa]);
                let connected = match self.index {
                    Some(x) => x.reachable(nfa, g, a).binary_search(&b).is_ok(),
                    None => nfa.connects(g, a, b),
                };
                if connected {
                    return self.step(plan, i + 1, binding, f);
                }
            }
            Step::Eq(a, b) => {
                if self.operand(binding, *a) == self.operand(binding, *b) {
                    return self.step(plan, i + 1, binding, f);
                }
            }
            Step::Cond(e) => {
                let env = BindingEnv {
                    graph: g,
                    binding,
                    params: self.params,
                    folds: Some(Folds {
                        matcher: self,
                        plans: &plan.aggs,
                    }),
                };
                if e.holds(&env) {
                    return self.step(plan, i + 1, binding, f);
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// The value of one side of an equality; an unbound variable reads as none, as in
    /// [`BindingEnv`].
    #[inline]
    fn operand(&self, binding: &[NodeId], o: Operand) -> Value {
        match o {
            Operand::Attr(v, a) => match binding[v.index()] {
                UNBOUND => Value::None,
                n => self
                    .graph
                    .node(n)
                    .attrs
                    .get(a.index())
                    .copied()
                    .unwrap_or(Value::None),
            },
            Operand::Param(i) => self.params.get(i as usize).copied().unwrap_or(Value::None),
            Operand::Const(c) => c,
        }
    }

    /// Binds `var` to each live node of type `ty` or a subtype in turn.
    fn scan(
        &self,
        plan: &SearchPlan,
        i: usize,
        binding: &mut Vec<NodeId>,
        var: VarId,
        ty: crate::model::NodeTypeId,
        f: &mut dyn FnMut(&[NodeId]) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let g = self.graph;
        match self.index {
            Some(x) => {
                for &n in x.nodes_of(ty) {
                    self.bind(plan, i, binding, var, n, f)?;
                }
            }
            None => {
                for n in g.find_nodes() {
                    if self.types.is_subtype(g.ty(n), ty) {
                        self.bind(plan, i, binding, var, n, f)?;
                    }
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
        if self.poll.is_some_and(|p| p.tick()) {
            return ControlFlow::Break(());
        }
        if binding.contains(&n) {
            return ControlFlow::Continue(());
        }
        binding[var.index()] = n;
        let flow = self.step(plan, i + 1, binding, f);
        binding[var.index()] = UNBOUND;
        flow
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poll_stops_a_search_that_finds_nothing() {
        let g = crate::load_str(
            "t.graft",
            "values 1..2
            node Cell { row: int, col: int, val: value? }
            grid 9x9 of Cell
            rule far {
              a: Cell
              b: Cell
              c: Cell { row == a.row + b.row + 20 }
              set a.val = 1
            }",
        )
        .unwrap();
        let plan = SearchPlan::compile(&g.rules[0].lhs);
        let search = |poll: Option<&SearchPoll>| {
            let m = Matcher::new(&g.types, &g.base, &[]);
            let m = match poll {
                Some(p) => m.with_poll(p),
                None => m,
            };
            let mut found = 0;
            let flow = m.for_each_match(&plan, &mut Vec::new(), &mut |_| {
                found += 1;
                ControlFlow::Continue(())
            });
            (flow, found)
        };
        // 81 * 80 * 79 bindings of a, b, c: about 125 polls to the end.
        assert_eq!(search(None), (ControlFlow::Continue(()), 0));
        let calls = Cell::new(0);
        let hook = || {
            calls.set(calls.get() + 1);
            calls.get() == 3
        };
        let poll = SearchPoll::new(&hook);
        assert_eq!(search(Some(&poll)), (ControlFlow::Break(()), 0));
        assert!(poll.stopped());
        assert_eq!(calls.get(), 3);
        // A stopped poll stops the next search at once.
        assert_eq!(search(Some(&poll)).0, ControlFlow::Break(()));
        assert_eq!(calls.get(), 3);
    }
}
