//! The general engine: states are whole host graphs, transitions are every match of every
//! rule (or, with a focus, the matches that fill one open node), and states are merged by
//! canonical key (up to renaming created nodes).
//!
//! Where the grammar is monotone (see [`crate::analysis`]: every rule consumes one open
//! node, nothing enables a rule, blocking is pairwise and symmetric) the rules are matched
//! once, on the start graph: each state carries the set of start applications still
//! enabled, and an application's successor drops those it disables. Otherwise every state
//! is matched anew.

use std::cell::RefCell;
use std::ops::ControlFlow;

use crate::grammar::Grammar;
use crate::matcher::{
    CompiledCondition, GraphIndex, LookupKey, Matcher, SearchPlan, SearchPoll, SharedReach, UNBOUND,
};
use crate::model::{AttrId, Graph, NodeId, NodeTypeId, Value, VarId};
use crate::rule::{Condition, Effect, Pattern};

use super::app_table::{Table, TablePlans};
use super::apply::CompiledRule;
use super::canon::Canon;
use crate::analysis::{forbid, Monotone, Refusal};
use crate::explore::halt::Halt;
use crate::explore::space::{Expansion, Space};
use crate::explore::successors::Successors;

/// A state of the graph engine: the host graph and, when the space has a [`Table`], the
/// applications still enabled and the open nodes still open (bit sets over the table's
/// applications and open nodes). Both sets follow from the graph, so the graph alone is
/// the state's identity.
#[derive(Clone, Debug)]
pub struct GraphState {
    pub graph: Graph,
    enabled: Vec<u64>,
    open: Vec<u64>,
}

/// A `forbid` pattern, compiled: matched on the whole graph, and from each of its nodes
/// when it is anchorable (see [`forbid::anchorable`]).
struct Forbid {
    whole: CompiledCondition,
    /// Per own node: its variable, its type, and the plan matching from it.
    roots: Option<Vec<(VarId, NodeTypeId, SearchPlan)>>,
}

impl Forbid {
    fn compile(p: &Pattern, set: &[AttrId]) -> Forbid {
        Forbid {
            whole: CompiledCondition::compile(&Condition::Exists(p.clone())),
            roots: forbid::anchorable(p, set).then(|| {
                p.own_vars()
                    .map(|v| {
                        (
                            v,
                            p.node(v).expect("own").ty,
                            SearchPlan::compile_rooted(p, v),
                        )
                    })
                    .collect()
            }),
        }
    }
}

/// The state space of a grammar from one start graph, on whole graphs.
pub struct GraphSpace<'g> {
    grammar: &'g Grammar,
    rules: Vec<CompiledRule<'g>>,
    final_cond: Option<CompiledCondition>,
    start: Graph,
    canon: Canon,
    /// What the graph index of each state holds: every lookup of the rules' plans.
    keys: Vec<LookupKey>,
    /// The start graph's applications, when the grammar is monotone; else why not.
    table: Result<Table, Refusal>,
    /// Set by [`GraphSpace::try_focus`]: branch on one open node's applications only.
    focus: bool,
    /// What paths reach, shared by all states when they all have the start graph's edges
    /// (no rule changes edges or deletes nodes).
    reach: Option<SharedReach>,
    /// `forbid { ... }` patterns: a successor where one matches is pruned.
    forbids: Vec<Forbid>,
    /// Whether they only match more as cells fill, which keeps focus expansion exact.
    forbids_monotone: Result<(), Refusal>,
}

/// One transition's rule application: the rule (by index), its parameters' values and the
/// host nodes its left side bound, in pattern order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub rule: usize,
    pub params: Vec<Value>,
    pub binding: Vec<NodeId>,
}

/// Working memory of focus expansion, reused from state to state.
#[derive(Default)]
pub struct GraphScratch {
    count: Vec<u32>,
}

/// The members of a bit set, in increasing order.
fn ones(set: &[u64]) -> impl Iterator<Item = usize> + '_ {
    set.iter().enumerate().flat_map(|(w, &word)| {
        let mut rest = word;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                w * 64 + b
            })
        })
    })
}

impl<'g> GraphSpace<'g> {
    /// A space starting from `start` (the base graph with givens placed) that expands
    /// every match of every rule. Decides here whether the grammar is monotone on this
    /// start graph (one pairwise check of its applications).
    pub fn new(grammar: &'g Grammar, start: Graph) -> Self {
        Self::build(grammar, start, None)
    }

    /// As [`GraphSpace::new`], polling `halt` while the applications are tabulated and
    /// while canonical forms are searched, so that a run's limits hold there too.
    pub fn halted(grammar: &'g Grammar, start: Graph, halt: Halt<'static>) -> Self {
        Self::build(grammar, start, Some(halt))
    }

    fn build(grammar: &'g Grammar, start: Graph, halt: Option<Halt<'static>>) -> Self {
        let rules: Vec<_> = grammar.rules.iter().map(CompiledRule::new).collect();
        let mut canon = Canon::new(
            grammar.base.capacity(),
            grammar.rules.iter().any(|r| r.creates_nodes()),
            grammar.rules.iter().any(|r| r.changes_edges()),
        );
        let mut keys = Vec::new();
        for r in &rules {
            r.plan.lookup_keys(&mut keys);
        }
        let static_edges = grammar.rules.iter().all(|r| {
            r.effects.iter().all(|e| {
                !matches!(
                    e,
                    Effect::NewEdge { .. } | Effect::DelEdge { .. } | Effect::DelNode { .. }
                )
            })
        });
        let mut start = start;
        canon.canonicalize(&mut start);
        let table = Monotone::analyse(grammar).and_then(|m| {
            let f = TablePlans::new(grammar, &m);
            let mut all_keys = keys.clone();
            f.open.lookup_keys(&mut all_keys);
            f.table(grammar, &rules, &start, &all_keys, halt)
        });
        canon.halt = halt;
        GraphSpace {
            grammar,
            rules,
            final_cond: grammar
                .final_cond
                .as_deref()
                .map(CompiledCondition::compile),
            start,
            canon,
            keys,
            table,
            focus: false,
            reach: static_edges.then(SharedReach::default),
            forbids: {
                let set = forbid::set_attrs(grammar);
                grammar
                    .forbids
                    .iter()
                    .map(|p| Forbid::compile(p, &set))
                    .collect()
            },
            forbids_monotone: crate::analysis::forbid::check(grammar),
        }
    }

    /// Drops from `enabled` the applications whose result a `forbid` pattern matches in
    /// `graph`. When the patterns are monotone such an application stays forbidden in every
    /// later state, as a blocked one does, so the focus counts only those that can still
    /// lead somewhere (forward checking).
    fn drop_forbidden(&self, table: &Table, graph: &mut Graph, enabled: &mut [u64]) {
        if self.forbids.is_empty() || self.forbids_monotone.is_err() {
            return;
        }
        let types = &self.grammar.types;
        let live: Vec<usize> = ones(enabled).collect();
        for t in live {
            let app = &table.apps[t];
            // Monotone forbids come with rules that only set attributes.
            let sets = self.rules[app.rule].apply_sets(types, graph, &app.params, &app.binding);
            let forbidden = sets.iter().any(|&(n, ..)| self.forbidden_at(graph, n));
            CompiledRule::undo_sets(graph, &sets);
            if forbidden {
                enabled[t / 64] &= !(1 << (t % 64));
            }
        }
    }

    /// True when a `forbid` pattern matches in `g`: the state is pruned.
    fn forbidden(&self, g: &Graph) -> bool {
        self.forbids
            .iter()
            .any(|f| f.whole.holds(&self.grammar.types, g))
    }

    /// As [`GraphSpace::forbidden`], for a graph whose only change from one where no
    /// pattern matched is node `n`'s attributes, when the patterns are monotone: a new
    /// match of an anchorable pattern binds `n`.
    fn forbidden_at(&self, g: &Graph, n: NodeId) -> bool {
        let types = &self.grammar.types;
        let ty = g.ty(n);
        self.forbids.iter().any(|f| match &f.roots {
            None => f.whole.holds(types, g),
            Some(roots) => roots.iter().any(|(var, var_ty, plan)| {
                if !types.is_subtype(ty, *var_ty) {
                    return false;
                }
                let mut binding = vec![UNBOUND; plan.depth.max(var.index() + 1)];
                binding[var.index()] = n;
                Matcher::new(types, g, &[]).exists(plan, &mut binding)
            }),
        })
    }

    /// Why focus expansion (and matching once) is unsound for this grammar and start graph.
    pub fn focus_unsound(&self) -> Option<&Refusal> {
        self.table
            .as_ref()
            .err()
            .or(self.forbids_monotone.as_ref().err())
    }

    /// Expands by focus from now on when that is sound; otherwise says why and leaves the
    /// space expanding every match.
    pub fn try_focus(&mut self) -> Result<(), Refusal> {
        match (&self.table, &self.forbids_monotone) {
            (Ok(_), Ok(())) => {
                self.focus = true;
                Ok(())
            }
            (Err(u), _) | (_, Err(u)) => Err(u.clone()),
        }
    }

    /// The applications enabled in `state` found by matching the rules, as indexes into
    /// the table, sorted; `None` without a table. For tests: it must equal the set the
    /// state carries.
    pub fn enabled_by_matching(&self, state: &GraphState) -> Option<Vec<usize>> {
        let table = self.table.as_ref().ok()?;
        let (types, domain) = (&self.grammar.types, &self.grammar.domain);
        let index = self.index(&state.graph);
        let mut out = Vec::new();
        for (ri, rule) in self.rules.iter().enumerate() {
            let end = rule.rule.lhs.var_end() as usize;
            let _ = rule.for_each_match(
                types,
                domain,
                &state.graph,
                Some(&index),
                None,
                &mut |params, b| {
                    let found = table
                        .apps
                        .iter()
                        .position(|a| a.rule == ri && a.params == params && a.binding == b[..end]);
                    // A match the start graph did not have: report it as an impossible index.
                    out.push(found.unwrap_or(usize::MAX));
                    ControlFlow::Continue(())
                },
            );
        }
        out.sort_unstable();
        Some(out)
    }

    /// As [`Space::expand`], recording in `steps` the rule application that makes each
    /// successor, in the order the successors are made (for pictures of the space).
    pub fn expand_steps(
        &self,
        state: &GraphState,
        scratch: &mut GraphScratch,
        succ: &mut Successors<'_, GraphState>,
        steps: &mut Vec<Step>,
    ) -> Expansion {
        let transitions = match &self.table {
            Ok(t) => self.expand_table(t, state, scratch, succ, Some(steps)),
            Err(_) => self.expand_matching(state, succ, Some(steps)),
        };
        Expansion { transitions }
    }

    /// The applications the state carries as enabled, sorted.
    pub fn enabled(&self, state: &GraphState) -> Vec<usize> {
        ones(&state.enabled).collect()
    }

    /// The index of one state's graph.
    fn index<'a>(&'a self, g: &Graph) -> GraphIndex<'a> {
        let index = GraphIndex::new(&self.grammar.types, g, &self.keys);
        match &self.reach {
            Some(r) => index.with_shared_reach(r),
            None => index,
        }
    }

    /// True when no rule has a match in `g` (GROOVE's default final condition).
    fn is_stuck(&self, g: &Graph) -> bool {
        let (types, domain) = (&self.grammar.types, &self.grammar.domain);
        let index = self.index(g);
        self.rules.iter().all(|r| {
            r.for_each_match(types, domain, g, Some(&index), None, &mut |_, _| {
                ControlFlow::Break(())
            })
            .is_continue()
        })
    }

    /// Every match of every rule, found by matching, until the successors are done with
    /// (a limit stopped the run, or the frontier is full).
    fn expand_matching(
        &self,
        state: &GraphState,
        succ: &mut Successors<'_, GraphState>,
        mut steps: Option<&mut Vec<Step>>,
    ) -> u64 {
        let (types, domain) = (&self.grammar.types, &self.grammar.domain);
        let g = &state.graph;
        let index = self.index(g);
        let succ = RefCell::new(succ);
        // The search polls the run's limits itself: a long search that finds no match
        // (a rule over several nodes of a large graph) must stop too.
        let hook = || succ.borrow_mut().tick();
        let poll = SearchPoll::new(&hook);
        let mut transitions = 0;
        for (ri, rule) in self.rules.iter().enumerate() {
            let end = rule.rule.lhs.var_end() as usize;
            let flow = rule.for_each_match(
                types,
                domain,
                g,
                Some(&index),
                Some(&poll),
                &mut |params, binding| {
                    let mut next = rule.apply(types, g, params, binding);
                    self.canon.canonicalize(&mut next);
                    if let Some(steps) = steps.as_deref_mut() {
                        steps.push(Step {
                            rule: ri,
                            params: params.to_vec(),
                            binding: binding[..end].to_vec(),
                        });
                    }
                    let mut out = succ.borrow_mut();
                    if self.forbidden(&next) {
                        out.dead += 1;
                    } else {
                        out.push(GraphState {
                            graph: next,
                            enabled: Vec::new(),
                            open: Vec::new(),
                        });
                    }
                    transitions += 1;
                    if out.is_done() {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                },
            );
            if flow.is_break() {
                break;
            }
        }
        transitions
    }

    /// The successor by application `a` of the table.
    fn successor(&self, table: &Table, state: &GraphState, a: usize) -> GraphState {
        let app = &table.apps[a];
        let mut graph = self.rules[app.rule].apply(
            &self.grammar.types,
            &state.graph,
            &app.params,
            &app.binding,
        );
        self.canon.canonicalize(&mut graph);
        let mut enabled: Vec<u64> = state
            .enabled
            .iter()
            .zip(table.disables(a))
            .map(|(&e, &d)| e & !d)
            .collect();
        let f = table.consumes[a] as usize;
        // Filling `f` may have made an aggregate NAC of an application that reads it match;
        // once it does it always will (condition 5 of the analysis).
        for &t in &table.watch[f] {
            let t = t as usize;
            if enabled[t / 64] >> (t % 64) & 1 == 1
                && table.blocked_by_aggregate(&self.grammar.types, &graph, t)
            {
                enabled[t / 64] &= !(1 << (t % 64));
            }
        }
        self.drop_forbidden(table, &mut graph, &mut enabled);
        let mut open = state.open.clone();
        open[f / 64] &= !(1 << (f % 64));
        GraphState {
            graph,
            enabled,
            open,
        }
    }

    /// Every enabled application, or with a focus those that consume the open node with
    /// the fewest (the lowest id among equals); none when some open node has none, which
    /// proves the state dead.
    fn expand_table(
        &self,
        table: &Table,
        state: &GraphState,
        scratch: &mut GraphScratch,
        succ: &mut Successors<'_, GraphState>,
        mut steps: Option<&mut Vec<Step>>,
    ) -> u64 {
        let chosen = if self.focus {
            let count = &mut scratch.count;
            count.clear();
            count.resize(table.open.len(), 0);
            for a in ones(&state.enabled) {
                count[table.consumes[a] as usize] += 1;
            }
            match ones(&state.open).min_by_key(|&o| (count[o], o)) {
                None => return 0,
                Some(o) => Some(o as u32),
            }
        } else {
            None
        };
        let mut transitions = 0;
        for a in ones(&state.enabled) {
            if succ.is_done() {
                break;
            }
            if chosen.is_none_or(|o| table.consumes[a] == o) {
                if let Some(steps) = steps.as_deref_mut() {
                    let app = &table.apps[a];
                    steps.push(Step {
                        rule: app.rule,
                        params: app.params.clone(),
                        binding: app.binding.clone(),
                    });
                }
                let next = self.successor(table, state, a);
                let filled = table.open[table.consumes[a] as usize];
                let forbidden = if self.forbids_monotone.is_ok() {
                    self.forbidden_at(&next.graph, filled)
                } else {
                    self.forbidden(&next.graph)
                };
                if forbidden {
                    succ.dead += 1;
                } else {
                    succ.push(next);
                }
                transitions += 1;
            }
        }
        transitions
    }
}

impl Space for GraphSpace<'_> {
    type State = GraphState;
    type Scratch = GraphScratch;

    fn initial(&self) -> Option<GraphState> {
        let (enabled, open) = match &self.table {
            Ok(t) => {
                let mut enabled = vec![0u64; t.words];
                for a in 0..t.apps.len() {
                    enabled[a / 64] |= 1 << (a % 64);
                }
                self.drop_forbidden(t, &mut self.start.clone(), &mut enabled);
                let mut open = vec![0u64; t.open.len().div_ceil(64)];
                for o in 0..t.open.len() {
                    open[o / 64] |= 1 << (o % 64);
                }
                (enabled, open)
            }
            Err(_) => (Vec::new(), Vec::new()),
        };
        // A start graph a `forbid` pattern matches is dead on arrival.
        (!self.forbidden(&self.start)).then(|| GraphState {
            graph: self.start.clone(),
            enabled,
            open,
        })
    }

    fn expand(
        &self,
        state: &GraphState,
        scratch: &mut GraphScratch,
        succ: &mut Successors<'_, GraphState>,
    ) -> Expansion {
        let transitions = match &self.table {
            Ok(t) => self.expand_table(t, state, scratch, succ, None),
            Err(_) => self.expand_matching(state, succ, None),
        };
        Expansion { transitions }
    }

    fn is_final(&self, state: &GraphState, expansion: &Expansion) -> bool {
        // With a table, `final:` says no node is open: skip matching while one is.
        if self.table.is_ok() && state.open.iter().any(|&w| w != 0) {
            return false;
        }
        match &self.final_cond {
            Some(c) => c.holds(&self.grammar.types, &state.graph),
            None => expansion.transitions == 0 || self.is_stuck(&state.graph),
        }
    }

    fn needs_visited(&self) -> bool {
        true
    }

    fn key(&self, state: &GraphState, out: &mut Vec<u8>) {
        self.canon.key(&state.graph, &self.start, out);
    }

    fn to_graph(&self, state: &GraphState) -> Graph {
        state.graph.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;
    use crate::explore::frontier::Frontier;
    use crate::explore::Order;

    #[test]
    fn bit_sets_list_their_members() {
        let set = [0b1010u64, 1 << 63];
        assert_eq!(ones(&set).collect::<Vec<_>>(), vec![1, 3, 127]);
        assert_eq!(ones(&[0, 0]).count(), 0);
    }

    /// Walks the first `limit` states of a rule file's `--expand all` space breadth-first
    /// and checks that the applications each state carries are exactly those matching
    /// finds.
    fn carried_sets_match(file: &str, limit: usize) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let g = crate::load_str(file, &std::fs::read_to_string(path).unwrap()).unwrap();
        let space = GraphSpace::new(&g, Engine::new(&g).start_graph(None));
        assert!(
            space.focus_unsound().is_none(),
            "{file}: {:?}",
            space.focus_unsound()
        );
        let mut frontier = Frontier::new(Order::Bfs);
        let mut queue = std::collections::VecDeque::from([space.initial().unwrap()]);
        let mut seen = std::collections::HashSet::new();
        let mut scratch = GraphScratch::default();
        let mut checked = 0;
        while let Some(state) = queue.pop_front() {
            assert_eq!(
                Some(space.enabled(&state)),
                space.enabled_by_matching(&state),
                "{file}: state {checked}"
            );
            checked += 1;
            if checked == limit {
                return;
            }
            let mut succ = Successors::collect(&mut frontier);
            space.expand(&state, &mut scratch, &mut succ);
            for s in succ.into_items() {
                let mut key = Vec::new();
                space.key(&s, &mut key);
                if seen.insert(key) {
                    queue.push_back(s);
                }
            }
        }
        panic!("{file}: the space has fewer than {limit} states");
    }

    #[test]
    fn carried_applications_are_those_matching_finds() {
        for (file, states) in [
            ("rules/encodings/attributes-4x4.graft", 2000),
            ("rules/encodings/neighbours-4x4-centre.graft", 2000),
            ("rules/encodings/groups-4x4.graft", 2000),
            ("rules/sudoku-4x4.graft", 2000),
            ("rules/futoshiki-5x5.graft", 2000),
            ("rules/anti-knight-9x9.graft", 200),
            // Aggregate NACs, checked anew as cells fill, and a static aggregate.
            ("rules/killer-4x4.graft", 2000),
            ("rules/killer-6x6.graft", 500),
            ("tests/fixtures/aggregates/renban-window-6x6.graft", 500),
        ] {
            carried_sets_match(file, states);
        }
    }

    /// A grammar outside the monotone class (no `final:`, rules create edges) is matched in
    /// every state, and nodes it creates are merged up to isomorphism.
    #[test]
    fn created_nodes_with_edges_merge_up_to_isomorphism() {
        let g = crate::load_str(
            "t.graft",
            "values 1..2
            node A
            node B
            edge e: A -> B
            edge f: B -> B
            a1: A
            a2: A
            rule link {
              a: A
              not { a -e-> b: B }
              new b: B
              new c: B
              new a -e-> b
              new b -f-> c
            }",
        )
        .unwrap();
        let space = GraphSpace::new(&g, g.base.clone());
        assert!(space.focus_unsound().is_some());
        let config = crate::explore::Config::default();
        let mut finals = Vec::new();
        let (counts, stop) =
            crate::explore::explore(&space, &config, &mut |s| finals.push(s.graph.node_count()));
        assert_eq!(stop, None);
        // {}, {a1}, {a2}, {a1, a2}: the last reached both ways, with its four created
        // nodes in either creation order.
        assert_eq!(
            (counts.states, counts.transitions, counts.solutions),
            (4, 4, 1)
        );
        assert_eq!(finals, vec![6]);
    }
}
