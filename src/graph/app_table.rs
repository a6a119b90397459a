//! The application table of a monotone grammar on a start graph: the rule applications
//! enabled there and which disables which, so states carry enabled sets instead of
//! matching rules again (see [`crate::analysis`] for why this is sound).

use std::cell::RefCell;
use std::ops::ControlFlow;

use crate::analysis::symmetry::check_symmetric;
use crate::analysis::{Monotone, Refusal, RefusalKind};
use crate::diag::Span;
use crate::grammar::Grammar;
use crate::matcher::{GraphIndex, LookupKey, Matcher, SearchPlan, SearchPoll, SharedReach};
use crate::model::{Graph, NodeId, NodeTypeId, TypeSystem, Value, VarId};
use crate::rule::Pattern;

use super::apply::CompiledRule;
use crate::explore::halt::Halt;

/// The most applications a start graph's [`Table`] is built for: it checks every pair
/// (64 M NAC matches and an 8 MiB bit matrix at the limit).
pub const MAX_TABLE_APPS: usize = 1 << 13;

fn not_focus_sound<T>(span: Span, reason: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::new(span, RefusalKind::NotFocusSound, reason))
}

/// The search plans a [`Table`] is built with: how to find open nodes and, per rule,
/// each NAC compiled to match from its witness.
#[derive(Clone, Debug)]
pub struct TablePlans {
    /// Matches each open node (variable 0).
    pub open: SearchPlan,
    /// Per rule: the variable of the open node it consumes.
    pub consumed: Vec<VarId>,
    /// Per rule: it consumes by filling (so the filled node is what it adds), not deleting.
    fills: Vec<bool>,
    /// Per rule: for each NAC with a witness, the witness variable, its type and the NAC
    /// compiled to match from the witness (blocking checks need only those matches).
    rooted: Vec<Vec<(VarId, NodeTypeId, SearchPlan)>>,
    /// Some rule deletes the node it consumes.
    deletes: bool,
    /// Per rule: its NACs with aggregates over cells rules fill, compiled to match from the
    /// rule's binding; a state's applications are checked against them anew.
    aggregate: Vec<Vec<SearchPlan>>,
    /// Per rule: the same NACs reduced to their structure (nodes and edges), each with its
    /// aggregates' patterns reduced likewise: every cell an aggregate may read is found by
    /// matching them, since no rule changes edges.
    reads: Vec<Vec<(SearchPlan, Vec<SearchPlan>)>>,
}

/// The pattern's nodes and edges only.
fn structure(p: &Pattern) -> Pattern {
    Pattern {
        conds: Vec::new(),
        nacs: Vec::new(),
        ..p.clone()
    }
}

/// One application enabled on the start graph: a rule, its parameters and the nodes its
/// left side binds (start nodes only: rules never match created nodes).
pub struct Application {
    pub rule: usize,
    pub params: Vec<Value>,
    pub binding: Vec<NodeId>,
}

/// The applications enabled on a start graph and how they disable each other. In a grammar
/// that passes [`Monotone::analyse`] and [`TablePlans::table`], the applications enabled
/// in a reachable state are exactly the start graph's that no application on the way
/// there disabled, so states carry that set instead of matching the rules again.
pub struct Table {
    pub apps: Vec<Application>,
    /// The open nodes of the start graph, in id order.
    pub open: Vec<NodeId>,
    /// Per application: the index in `open` of the node it consumes.
    pub consumes: Vec<u32>,
    /// Words in a bit set over the applications.
    pub words: usize,
    /// Per application, `words` words: the applications it disables, those it blocks and
    /// every one that consumes the same node (itself included).
    disables: Vec<u64>,
    /// Per rule: its NACs with aggregates over filled cells (see [`TablePlans`]).
    pub aggregate: Vec<Vec<SearchPlan>>,
    /// Per open node (index in `open`): the applications with such a NAC that may read it,
    /// so that filling the node may block them.
    pub watch: Vec<Vec<u32>>,
}

impl Table {
    pub fn disables(&self, a: usize) -> &[u64] {
        &self.disables[a * self.words..(a + 1) * self.words]
    }

    /// True when one of application `a`'s aggregate NACs matches in `graph`.
    pub fn blocked_by_aggregate(&self, types: &TypeSystem, graph: &Graph, a: usize) -> bool {
        let app = &self.apps[a];
        let m = Matcher::new(types, graph, &app.params);
        self.aggregate[app.rule].iter().any(|nac| {
            let mut binding = app.binding.clone();
            m.exists(nac, &mut binding)
        })
    }
}

impl TablePlans {
    /// Compiles the plans for a grammar that passed [`Monotone::analyse`].
    pub fn new(g: &Grammar, m: &Monotone) -> TablePlans {
        let rooted = g
            .rules
            .iter()
            .zip(&m.witnesses)
            .map(|(r, ws)| {
                ws.iter()
                    .map(|w| {
                        let nac = &r.lhs.nacs[w.nac];
                        (w.var, w.ty, SearchPlan::compile_rooted(nac, w.var))
                    })
                    .collect()
            })
            .collect();
        let nacs_of = |ri: usize| {
            let r = &g.rules[ri];
            m.aggregate_nacs[ri].iter().map(move |&i| &r.lhs.nacs[i])
        };
        let aggregate = (0..g.rules.len())
            .map(|ri| nacs_of(ri).map(SearchPlan::compile).collect())
            .collect();
        let reads = (0..g.rules.len())
            .map(|ri| {
                nacs_of(ri)
                    .map(|nac| {
                        let mut aggs = Vec::new();
                        for c in &nac.conds {
                            c.visit_aggregates(&mut |a| {
                                aggs.push(SearchPlan::compile(&structure(&a.pattern)))
                            });
                        }
                        (SearchPlan::compile(&structure(nac)), aggs)
                    })
                    .collect()
            })
            .collect();
        TablePlans {
            open: SearchPlan::compile(m.open.pattern),
            consumed: m.consumed.clone(),
            fills: m.fills.clone(),
            rooted,
            deletes: m.deletes,
            aggregate,
            reads,
        }
    }

    /// Per open node, the applications whose aggregate NACs may read it.
    fn watch(
        &self,
        types: &TypeSystem,
        start: &Graph,
        open: &[NodeId],
        apps: &[Application],
    ) -> Vec<Vec<u32>> {
        let mut watch: Vec<Vec<u32>> = vec![Vec::new(); open.len()];
        let m = Matcher::new(types, start, &[]);
        let mut binding = Vec::new();
        for (ai, a) in apps.iter().enumerate() {
            for (nac, aggs) in &self.reads[a.rule] {
                binding.clear();
                binding.extend_from_slice(&a.binding);
                let _ = m.for_each_match(nac, &mut binding, &mut |b| {
                    for agg in aggs {
                        let mut inner = b.to_vec();
                        let _ = m.for_each_match(agg, &mut inner, &mut |x| {
                            // The rule's own cell is among them: harmless, as filling it
                            // disables the application anyway.
                            for &n in x {
                                if let Ok(o) = open.binary_search(&n) {
                                    if watch[o].last() != Some(&(ai as u32)) {
                                        watch[o].push(ai as u32);
                                    }
                                }
                            }
                            ControlFlow::Continue(())
                        });
                    }
                    ControlFlow::Continue(())
                });
            }
        }
        watch
    }

    /// Checks condition 4 on a start graph and returns the table of its applications:
    /// `rules` compiled from the grammar, `keys` the lookups their plans use. Cost: one rule
    /// application per enabled application, and a NAC match from each node it adds per
    /// pair of applications.
    pub fn table(
        &self,
        g: &Grammar,
        rules: &[CompiledRule<'_>],
        start: &Graph,
        keys: &[LookupKey],
        halt: Option<Halt<'_>>,
    ) -> Result<Table, Refusal> {
        let types = &g.types;
        // Tabulating takes a NAC match per pair of applications, seconds on a large
        // graph: the run's limits are polled throughout, and a stop leaves no table.
        let halt = RefCell::new(halt);
        let stopping = || {
            halt.borrow_mut()
                .as_mut()
                .is_some_and(|h| h.tick().is_some())
        };
        let poll = SearchPoll::new(&stopping);
        let stopped = || {
            not_focus_sound(
                Span::default(),
                "the run stopped before the table of which application disables which was built",
            )
        };
        // Rules change no edges and deleted nodes have none (checked below), so every
        // graph here has the start graph's edges.
        let shared = SharedReach::default();
        let index = GraphIndex::new(types, start, keys).with_shared_reach(&shared);
        let open = self.open_nodes(types, start, &index);
        if self.deletes {
            if let Some(&n) = open
                .iter()
                .find(|&&n| !start.out(n).is_empty() || !start.inc(n).is_empty())
            {
                return not_focus_sound(
                    Span::default(),
                    format!(
                        "rules delete open nodes and the open node {} has edges, so deleting it could cut a path a NAC follows",
                        node_name(g, n)
                    ),
                );
            }
        }
        let mut apps = Vec::new();
        for (ri, r) in rules.iter().enumerate() {
            let end = r.rule.lhs.var_end() as usize;
            let flow = r.for_each_match(
                types,
                &g.domain,
                start,
                Some(&index),
                Some(&poll),
                &mut |params, b| {
                    if apps.len() >= MAX_TABLE_APPS {
                        return ControlFlow::Break(());
                    }
                    apps.push(Application {
                        rule: ri,
                        params: params.to_vec(),
                        binding: b[..end].to_vec(),
                    });
                    ControlFlow::Continue(())
                },
            );
            if poll.stopped() {
                return stopped();
            }
            if flow.is_break() {
                return not_focus_sound(
                    Span::default(),
                    format!(
                        "the start graph has more than {MAX_TABLE_APPS} rule applications, and checking that they block each other symmetrically takes a NAC match per pair"
                    ),
                );
            }
        }
        let node_of = |a: &Application| a.binding[self.consumed[a.rule].index()];
        let consumes: Vec<u32> = apps
            .iter()
            .map(|a| {
                open.binary_search(&node_of(a))
                    .expect("rules consume open nodes") as u32
            })
            .collect();
        let n = apps.len();
        let words = n.div_ceil(64);
        // Bit t of row u: u's result blocks t (a bit matrix: n * n bits).
        let mut disables = Vec::new();
        if disables.try_reserve_exact(n * words).is_err() {
            return not_focus_sound(
                Span::default(),
                format!("no memory for the table of which of {n} applications disables which"),
            );
        }
        disables.resize(n * words, 0u64);
        let bit = |m: &[u64], u: usize, t: usize| m[u * words + t / 64] >> (t % 64) & 1 == 1;
        let mut binding = Vec::new();
        for (ui, u) in apps.iter().enumerate() {
            let after = rules[u.rule].apply(types, start, &u.params, &u.binding);
            let index = GraphIndex::new(types, &after, keys).with_shared_reach(&shared);
            // What `u` adds: the nodes it creates and the node it fills. A NAC match that
            // `u` makes uses one of them as the NAC's witness, and is found from it.
            let mut added: Vec<NodeId> = (start.capacity()..after.capacity())
                .map(NodeId::from_index)
                .filter(|&x| after.is_alive(x))
                .collect();
            if self.fills[u.rule] {
                added.push(node_of(u));
            }
            for (ti, t) in apps.iter().enumerate() {
                if consumes[ti] == consumes[ui] {
                    continue;
                }
                if stopping() {
                    return stopped();
                }
                let m = Matcher::new(types, &after, &t.params).with_index(&index);
                let blocked = self.rooted[t.rule].iter().any(|(w, wty, plan)| {
                    added.iter().any(|&x| {
                        if !types.is_subtype(after.ty(x), *wty) {
                            return false;
                        }
                        binding.clear();
                        binding.extend_from_slice(&t.binding);
                        binding.resize(plan.depth, crate::matcher::UNBOUND);
                        binding[w.index()] = x;
                        m.exists(plan, &mut binding)
                    })
                });
                if blocked {
                    disables[ui * words + ti / 64] |= 1 << (ti % 64);
                }
            }
        }
        // Only pairs where `u` blocks `t` can be one-sided that way round.
        let blocking = (0..n)
            .flat_map(|u| (0..n).map(move |t| (u, t)))
            .filter(|&(u, t)| bit(&disables, u, t));
        check_symmetric(
            blocking,
            |u, t| bit(&disables, u, t),
            |u, t, _| {
                Refusal::new(
                    rules[apps[u].rule].rule.span,
                    RefusalKind::NotFocusSound,
                    format!(
                        "blocking is not symmetric on this start graph: {} blocks {}, but not the other way round, so the order of applications matters",
                        describe(g, rules, &apps[u]),
                        describe(g, rules, &apps[t])
                    ),
                )
            },
        )?;
        for u in 0..n {
            for t in 0..n {
                if consumes[u] == consumes[t] {
                    disables[u * words + t / 64] |= 1 << (t % 64);
                }
            }
        }
        let watch = self.watch(types, start, &open, &apps);
        Ok(Table {
            apps,
            open,
            consumes,
            words,
            disables,
            aggregate: self.aggregate.clone(),
            watch,
        })
    }

    /// The open nodes of `graph`, in id order.
    pub fn open_nodes(&self, types: &TypeSystem, graph: &Graph, index: &GraphIndex) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut binding = Vec::new();
        let _ = Matcher::new(types, graph, &[])
            .with_index(index)
            .for_each_match(&self.open, &mut binding, &mut |b| {
                out.push(b[0]);
                ControlFlow::Continue(())
            });
        out.sort_unstable();
        out.dedup();
        out
    }
}

fn node_name(g: &Grammar, n: NodeId) -> String {
    g.names
        .get(n.index())
        .map(str::to_owned)
        .unwrap_or_else(|| format!("#{}", n.0))
}

/// `place(n = r1c1, x = v2)`, for messages.
fn describe(g: &Grammar, rules: &[CompiledRule<'_>], a: &Application) -> String {
    let r = rules[a.rule].rule;
    let mut parts: Vec<String> = r
        .params
        .iter()
        .zip(&a.params)
        .map(|(p, &v)| format!("{} = {}", p.name, g.domain.show(v)))
        .collect();
    parts.extend(
        r.lhs
            .nodes
            .iter()
            .zip(&a.binding[r.lhs.bound as usize..])
            .map(|(p, &n)| format!("{} = {}", p.name, node_name(g, n))),
    );
    format!("`{}({})`", r.name, parts.join(", "))
}

#[cfg(test)]
mod tests {
    use crate::engine::Engine;
    use crate::graph::graph_space::GraphSpace;

    const HEAD: &str = "values 1..2
        node Cell { row: int, col: int, val: value? }
        node Group
        edge in: Cell -> Group
        edge lt: Cell -> Cell
        grid 1x2 of Cell
        groups rows
        r1c1 -lt-> r1c2
        ";

    /// Why focus is unsound for `HEAD` followed by `rest`, if it is.
    fn why(rest: &str) -> Option<String> {
        let g =
            crate::load_str("t.graft", &format!("{HEAD}{rest}")).unwrap_or_else(|d| panic!("{d}"));
        let space = GraphSpace::new(&g, Engine::new(&g).start_graph(None));
        space.focus_unsound().map(|u| u.reason.clone())
    }

    const FINAL: &str = "final: not { c: Cell { val == none } }";

    #[test]
    fn a_slot_filling_rule_is_monotone() {
        let rule = "rule place(v: value) {
            c: Cell { val == none }
            not { c -in-> g: Group <-in- d: Cell { val == v } }
            set c.val = v
        }";
        assert_eq!(why(&format!("{rule} {FINAL}")), None);
        let none = why(rule).unwrap();
        assert!(none.contains("no `final:`"), "{none}");
    }

    #[test]
    fn a_nac_that_may_see_an_empty_cell_is_refused() {
        let rule = "rule place(v: value) {
            c: Cell { val == none }
            not { c -in-> g: Group <-in- d: Cell }
            set c.val = v
        }";
        let r = why(&format!("{rule} {FINAL}")).unwrap();
        assert!(r.contains("NAC node `d` may match an open `Cell`"), "{r}");
    }

    #[test]
    fn one_sided_blocking_is_refused() {
        // c < d is checked from c only: d's value blocks c, never the other way round.
        let rule = "rule place(v: value) {
            c: Cell { val == none }
            not { c -lt-> d: Cell { val <= v } }
            set c.val = v
        }";
        let r = why(&format!("{rule} {FINAL}")).unwrap();
        assert!(r.contains("blocking is not symmetric"), "{r}");
        assert!(r.contains("c = r1c2") && r.contains("c = r1c1"), "{r}");
        // Checked from both ends, blocking is symmetric.
        let both = "rule place(v: value) {
            c: Cell { val == none }
            not { c -lt-> d: Cell { val <= v } }
            not { d: Cell { val >= v } -lt-> c }
            set c.val = v
        }";
        assert_eq!(why(&format!("{both} {FINAL}")), None);
    }

    #[test]
    fn nested_nacs_and_edge_changes_are_refused() {
        let nested = "rule place(v: value) {
            c: Cell { val == none }
            not { c -in-> g: Group not { g <-in- d: Cell { val == v } } }
            set c.val = v
        }";
        let r = why(&format!("{nested} {FINAL}")).unwrap();
        assert!(r.contains("a NAC inside a NAC"), "{r}");
        let edges = "rule place(v: value) {
            c: Cell { val == none }
            d: Cell
            set c.val = v
            new c -lt-> d
        }";
        let r = why(&format!("{edges} {FINAL}")).unwrap();
        assert!(r.contains("matches two nodes that may be open"), "{r}");
        let linking = "rule place(v: value) {
            c: Cell { val == none }
            g: Group
            set c.val = v
            new c -in-> g
        }";
        let r = why(&format!("{linking} {FINAL}")).unwrap();
        assert!(r.contains("changes edges"), "{r}");
    }

    #[test]
    fn a_rule_must_fill_what_final_asks_for() {
        let keeps = "rule touch(v: value) {
            c: Cell { val == none }
            set c.row = 3
        }";
        let r = why(&format!("{keeps} {FINAL}")).unwrap();
        assert!(r.contains("sets an attribute other than"), "{r}");
        let any = "rule place(v: value) {
            c: Cell
            set c.val = v
        }";
        let r = why(&format!("{any} {FINAL}")).unwrap();
        assert!(r.contains("does not require `c` to be open"), "{r}");
    }

    #[test]
    fn deleting_open_nodes_with_edges_is_refused() {
        let text = "values 1..2
            node Cell { row: int, col: int, val: value? }
            node Mark { val: value }
            node Group
            edge in: Cell -> Group
            grid 1x2 of Cell
            groups rows
            rule place(v: value) { c: Cell { val == none } del c new m: Mark { val = v } }
            final: not { c: Cell { val == none } }";
        let g = crate::load_str("t.graft", text).unwrap_or_else(|d| panic!("{d}"));
        let space = GraphSpace::new(&g, Engine::new(&g).start_graph(None));
        let why = space.focus_unsound().expect("refused");
        assert_eq!(
            why.reason,
            "rules delete open nodes and the open node r1c1 has edges, so deleting it could cut a path a NAC follows"
        );
        assert_eq!(why.kind, crate::analysis::RefusalKind::NotFocusSound);
    }

    #[test]
    fn one_sided_blocking_names_both_applications() {
        let rule = "rule place(v: value) {
            c: Cell { val == none }
            not { c -lt-> d: Cell { val <= v } }
            set c.val = v
        }";
        assert_eq!(
            why(&format!("{rule} {FINAL}")).as_deref(),
            Some("blocking is not symmetric on this start graph: `place(v = 1, c = r1c2)` blocks `place(v = 1, c = r1c1)`, but not the other way round, so the order of applications matters")
        );
    }
}
