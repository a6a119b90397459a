//! Rules compiled for the graph engine: matching (with parameters) and application.

use std::ops::ControlFlow;

use smallvec::SmallVec;

use crate::matcher::{AggPlan, BindingEnv, Folds, GraphIndex, Matcher, SearchPlan, SearchPoll};
use crate::model::{AttrId, Domain, Graph, NodeId, TypeSystem, Value};
use crate::rule::{Effect, Rule};

/// What [`CompiledRule::for_each_match`] calls with each match: the parameters and the
/// binding; it may stop the search.
pub type OnMatch<'a> = dyn FnMut(&[Value], &[NodeId]) -> ControlFlow<()> + 'a;

/// A rule with its left side compiled to a search plan.
pub struct CompiledRule<'g> {
    pub rule: &'g Rule,
    pub plan: SearchPlan,
    /// The aggregates of the effects' expressions, compiled.
    effect_aggs: Vec<AggPlan>,
}

impl<'g> CompiledRule<'g> {
    pub fn new(rule: &'g Rule) -> Self {
        let exprs = rule.effects.iter().flat_map(|e| match e {
            Effect::Set { value, .. } => vec![value],
            Effect::NewNode { attrs, .. } => attrs.iter().map(|(_, x)| x).collect(),
            _ => Vec::new(),
        });
        CompiledRule {
            rule,
            plan: SearchPlan::compile(&rule.lhs),
            effect_aggs: AggPlan::compile_all(exprs),
        }
    }

    /// Calls `f(params, binding)` for every match: every assignment of domain values to
    /// the parameters times every match of the left side that no NAC extends. `index`, when
    /// given, must have been built for `graph` with this rule's lookup keys. `poll`, when
    /// given, can stop the search (then it returns `Break`).
    pub fn for_each_match(
        &self,
        types: &TypeSystem,
        domain: &Domain,
        graph: &Graph,
        index: Option<&GraphIndex>,
        poll: Option<&SearchPoll>,
        f: &mut OnMatch<'_>,
    ) -> ControlFlow<()> {
        let k = self.rule.params.len();
        let d = domain.len();
        if k > 0 && d == 0 {
            return ControlFlow::Continue(());
        }
        let mut idx = vec![0usize; k];
        let mut params: Vec<Value> = vec![Value::Val(0); k];
        let mut binding = Vec::new();
        loop {
            for (p, &i) in params.iter_mut().zip(&idx) {
                *p = Value::Val(i as u16);
            }
            let matcher = Matcher::new(types, graph, &params);
            let matcher = match index {
                Some(x) => matcher.with_index(x),
                None => matcher,
            };
            let matcher = match poll {
                Some(p) => matcher.with_poll(p),
                None => matcher,
            };
            matcher.for_each_match(&self.plan, &mut binding, &mut |b| f(&params, b))?;
            // Next parameter tuple (an odometer over the domain).
            let mut pos = 0;
            loop {
                if pos == k {
                    return ControlFlow::Continue(());
                }
                idx[pos] += 1;
                if idx[pos] < d {
                    break;
                }
                idx[pos] = 0;
                pos += 1;
            }
        }
    }

    /// Applies a rule whose effects are all `set`s to `graph` in place, and returns what
    /// each set attribute held before, for [`CompiledRule::undo_sets`]: a trial
    /// application without copying the graph.
    pub fn apply_sets(
        &self,
        types: &TypeSystem,
        graph: &mut Graph,
        params: &[Value],
        binding: &[NodeId],
    ) -> SmallVec<[(NodeId, AttrId, Value); 2]> {
        let mut sets: SmallVec<[(NodeId, AttrId, Value); 2]> = SmallVec::new();
        {
            let g: &Graph = graph;
            let matcher = Matcher::new(types, g, params);
            let env = BindingEnv {
                graph: g,
                binding,
                params,
                folds: Some(Folds {
                    matcher: &matcher,
                    plans: &self.effect_aggs,
                }),
            };
            for e in &self.rule.effects {
                if let Effect::Set {
                    var, attr, value, ..
                } = e
                {
                    sets.push((binding[var.index()], *attr, value.eval(&env)));
                }
            }
        }
        for (n, a, v) in sets.iter_mut() {
            let old = graph.attr(*n, *a);
            graph.set_attr(*n, *a, *v);
            *v = old;
        }
        sets
    }

    /// Restores what [`CompiledRule::apply_sets`] changed.
    pub fn undo_sets(graph: &mut Graph, sets: &[(NodeId, AttrId, Value)]) {
        for &(n, a, v) in sets.iter().rev() {
            graph.set_attr(n, a, v);
        }
    }

    /// The graph after applying the rule at a match. Every expression is evaluated on the
    /// graph before the change; effects run as sets, edge deletions, node deletions, node
    /// creations, edge creations.
    pub fn apply(
        &self,
        types: &TypeSystem,
        graph: &Graph,
        params: &[Value],
        binding: &[NodeId],
    ) -> Graph {
        let matcher = Matcher::new(types, graph, params);
        let env = BindingEnv {
            graph,
            binding,
            params,
            folds: Some(Folds {
                matcher: &matcher,
                plans: &self.effect_aggs,
            }),
        };
        let mut values: SmallVec<[Value; 8]> = SmallVec::new();
        for e in &self.rule.effects {
            match e {
                Effect::Set { value, .. } => values.push(value.eval(&env)),
                Effect::NewNode { attrs, .. } => {
                    values.extend(attrs.iter().map(|(_, x)| x.eval(&env)))
                }
                _ => {}
            }
        }
        let mut g = graph.clone();
        let mut vars: SmallVec<[NodeId; 16]> = SmallVec::from_slice(binding);
        let mut next_value = values.iter().copied();
        for e in &self.rule.effects {
            match e {
                Effect::Set { var, attr, .. } => {
                    let v = next_value.next().expect("evaluated");
                    g.set_attr(vars[var.index()], *attr, v);
                }
                Effect::DelEdge {
                    src, label, tgt, ..
                } => {
                    g.remove_edge(vars[src.index()], *label, vars[tgt.index()]);
                }
                Effect::DelNode { var, .. } => g.remove_node(vars[var.index()]),
                Effect::NewNode { var, ty, attrs, .. } => {
                    let mut a: SmallVec<[Value; 4]> =
                        SmallVec::from_elem(Value::None, types.node(*ty).attrs.len());
                    for (id, _) in attrs {
                        a[id.index()] = next_value.next().expect("evaluated");
                    }
                    let n = g.add_node(*ty, a);
                    if vars.len() <= var.index() {
                        vars.resize(var.index() + 1, crate::matcher::UNBOUND);
                    }
                    vars[var.index()] = n;
                }
                Effect::NewEdge {
                    src, label, tgt, ..
                } => {
                    let (s, t) = (vars[src.index()], vars[tgt.index()]);
                    if g.is_alive(s) && g.is_alive(t) {
                        g.add_edge(s, *label, t);
                    }
                }
            }
        }
        g
    }
}
