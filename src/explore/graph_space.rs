//! The general engine: states are whole host graphs, transitions are every match of every
//! rule (or, with a focus, the matches that fill one open node), and states are merged by
//! canonical key (up to renaming created nodes).

use std::ops::ControlFlow;

use smallvec::SmallVec;

use crate::grammar::Grammar;
use crate::matcher::{CompiledCondition, GraphIndex, LookupKey};
use crate::model::{Graph, NodeId, Value};

use super::apply::CompiledRule;
use super::canon::Canon;
use super::frontier::Successors;
use super::graph_focus::{GraphFocus, Unsound};
use super::space::{Expansion, Space};

pub struct GraphSpace<'g> {
    grammar: &'g Grammar,
    rules: Vec<CompiledRule<'g>>,
    final_cond: Option<CompiledCondition>,
    start: Graph,
    canon: Canon,
    /// What the graph index of each state holds: every lookup of the rules' plans.
    keys: Vec<LookupKey>,
    /// Set by [`GraphSpace::try_focus`]: branch on one open node's matches only.
    focus: Option<GraphFocus>,
}

/// Working memory of focus expansion, reused from state to state.
#[derive(Default)]
pub struct GraphScratch {
    found: Vec<Found>,
    count: Vec<u32>,
}

/// One match found while choosing the focus, kept until the focus is known.
struct Found {
    rule: usize,
    params: SmallVec<[Value; 2]>,
    binding: SmallVec<[NodeId; 8]>,
}

impl<'g> GraphSpace<'g> {
    /// A space starting from `start` (the base graph with givens placed) that expands
    /// every match of every rule.
    pub fn new(grammar: &'g Grammar, start: Graph) -> Self {
        let rules: Vec<_> = grammar.rules.iter().map(CompiledRule::new).collect();
        let canon = Canon {
            base: grammar.base.capacity(),
            creates: grammar.rules.iter().any(|r| r.creates_nodes()),
            edges: grammar.rules.iter().any(|r| r.changes_edges()),
        };
        let mut keys = Vec::new();
        for r in &rules {
            r.plan.lookup_keys(&mut keys);
        }
        let mut start = start;
        canon.canonicalize(&mut start);
        GraphSpace {
            grammar,
            rules,
            final_cond: grammar.final_cond.as_ref().map(CompiledCondition::compile),
            start,
            canon,
            keys,
            focus: None,
        }
    }

    /// Expands by focus from now on, when that is sound for this start graph (`focus` comes
    /// from [`GraphFocus::analyse`] on this space's grammar); otherwise says why and leaves
    /// the space expanding every match.
    pub fn try_focus(&mut self, focus: GraphFocus) -> Result<(), Unsound> {
        focus.check_start(self.grammar, &self.rules, &self.start, &self.keys)?;
        focus.open.lookup_keys(&mut self.keys);
        self.focus = Some(focus);
        Ok(())
    }

    /// True when no rule has a match in `g` (GROOVE's default final condition).
    fn is_stuck(&self, g: &Graph) -> bool {
        let (types, domain) = (&self.grammar.types, &self.grammar.domain);
        let index = GraphIndex::new(types, g, &self.keys);
        self.rules.iter().all(|r| {
            r.for_each_match(types, domain, g, Some(&index), &mut |_, _| ControlFlow::Break(()))
                .is_continue()
        })
    }

    fn push(&self, rule: &CompiledRule<'_>, state: &Graph, params: &[Value], binding: &[NodeId], succ: &mut Successors<'_, Graph>) {
        let mut next = rule.apply(&self.grammar.types, state, params, binding);
        self.canon.canonicalize(&mut next);
        succ.push(next);
    }

    /// Every match of every rule.
    fn expand_all(&self, state: &Graph, index: &GraphIndex, succ: &mut Successors<'_, Graph>) -> u64 {
        let (types, domain) = (&self.grammar.types, &self.grammar.domain);
        let mut transitions = 0;
        for rule in &self.rules {
            let _ = rule.for_each_match(types, domain, state, Some(index), &mut |params, binding| {
                self.push(rule, state, params, binding, succ);
                transitions += 1;
                ControlFlow::Continue(())
            });
        }
        transitions
    }

    /// The matches that fill the open node with the fewest (the lowest id among equals);
    /// none when some open node has none, which proves the state dead.
    fn expand_focus(
        &self,
        focus: &GraphFocus,
        state: &Graph,
        index: &GraphIndex,
        scratch: &mut GraphScratch,
        succ: &mut Successors<'_, Graph>,
    ) -> u64 {
        let (types, domain) = (&self.grammar.types, &self.grammar.domain);
        let open = focus.open_nodes(types, state, index);
        if open.is_empty() {
            return 0;
        }
        let GraphScratch { found, count } = scratch;
        found.clear();
        count.clear();
        count.resize(state.capacity(), 0);
        for (ri, rule) in self.rules.iter().enumerate() {
            let f = focus.focus_var[ri].index();
            let end = rule.rule.lhs.var_end() as usize;
            let _ = rule.for_each_match(types, domain, state, Some(index), &mut |params, binding| {
                count[binding[f].index()] += 1;
                found.push(Found {
                    rule: ri,
                    params: SmallVec::from_slice(params),
                    binding: SmallVec::from_slice(&binding[..end]),
                });
                ControlFlow::Continue(())
            });
        }
        let chosen = *open
            .iter()
            .min_by_key(|n| (count[n.index()], n.index()))
            .expect("some open node");
        let mut transitions = 0;
        for m in found.iter().filter(|m| m.binding[focus.focus_var[m.rule].index()] == chosen) {
            self.push(&self.rules[m.rule], state, &m.params, &m.binding, succ);
            transitions += 1;
        }
        transitions
    }
}

impl Space for GraphSpace<'_> {
    type State = Graph;
    type Scratch = GraphScratch;

    fn initial(&self) -> Option<Graph> {
        Some(self.start.clone())
    }

    fn expand(&self, state: &Graph, scratch: &mut GraphScratch, succ: &mut Successors<'_, Graph>) -> Expansion {
        let index = GraphIndex::new(&self.grammar.types, state, &self.keys);
        let transitions = match &self.focus {
            None => self.expand_all(state, &index, succ),
            Some(f) => self.expand_focus(f, state, &index, scratch, succ),
        };
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
