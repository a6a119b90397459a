//! The general engine: states are whole host graphs, transitions are every match of every
//! rule, and states are merged by canonical key (up to renaming created nodes).

use std::ops::ControlFlow;

use crate::grammar::Grammar;
use crate::matcher::CompiledCondition;
use crate::model::Graph;

use super::apply::CompiledRule;
use super::canon::Canon;
use super::frontier::Successors;
use super::space::{Expansion, Space};

pub struct GraphSpace<'g> {
    grammar: &'g Grammar,
    rules: Vec<CompiledRule<'g>>,
    final_cond: Option<CompiledCondition>,
    start: Graph,
    canon: Canon,
}

impl<'g> GraphSpace<'g> {
    /// A space starting from `start` (the base graph with givens placed).
    pub fn new(grammar: &'g Grammar, start: Graph) -> Self {
        let rules: Vec<_> = grammar.rules.iter().map(CompiledRule::new).collect();
        let canon = Canon {
            base: grammar.base.capacity(),
            creates: grammar.rules.iter().any(|r| r.creates_nodes()),
            edges: grammar.rules.iter().any(|r| r.changes_edges()),
        };
        let mut start = start;
        canon.canonicalize(&mut start);
        GraphSpace {
            grammar,
            rules,
            final_cond: grammar.final_cond.as_ref().map(CompiledCondition::compile),
            start,
            canon,
        }
    }

    /// True when no rule has a match in `g` (GROOVE's default final condition).
    fn is_stuck(&self, g: &Graph) -> bool {
        let (types, domain) = (&self.grammar.types, &self.grammar.domain);
        self.rules.iter().all(|r| {
            r.for_each_match(types, domain, g, &mut |_, _| ControlFlow::Break(()))
                .is_continue()
        })
    }
}

impl Space for GraphSpace<'_> {
    type State = Graph;

    fn initial(&self) -> Option<Graph> {
        Some(self.start.clone())
    }

    fn expand(&self, state: &Graph, succ: &mut Successors<'_, Graph>) -> Expansion {
        let (types, domain) = (&self.grammar.types, &self.grammar.domain);
        let mut transitions = 0;
        for rule in &self.rules {
            let _ = rule.for_each_match(types, domain, state, &mut |params, binding| {
                let mut next = rule.apply(types, state, params, binding);
                self.canon.canonicalize(&mut next);
                succ.push(next);
                transitions += 1;
                ControlFlow::Continue(())
            });
        }
        Expansion { transitions }
    }

    fn is_final(&self, state: &Graph, expansion: &Expansion) -> bool {
        match &self.final_cond {
            Some(c) => c.holds(&self.grammar.types, state),
            None => expansion.transitions == 0 || self.is_stuck(state),
        }
    }

    fn needs_visited(&self) -> bool {
        true
    }

    fn key(&self, state: &Graph, out: &mut Vec<u8>) {
        self.canon.key(state, out);
    }

    fn to_graph(&self, state: &Graph) -> Graph {
        state.clone()
    }
}
