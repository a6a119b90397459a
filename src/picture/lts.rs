//! A run's state space recorded as a labelled transition system (states, labelled
//! transitions, the start, final states and dead ends), capped, and written as Graphviz DOT
//! or in the Aldebaran `.aut` format that CADP and mCRL2 read.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write;

use crate::explore::frontier::Frontier;
use crate::explore::successors::Successors;
use crate::explore::{Expand, Order, Space};
use crate::grammar::Grammar;
use crate::graph::graph_space::{GraphScratch, Step};
use crate::graph::GraphSpace;
use crate::model::Graph;
use crate::output::dot::quote;
use crate::output::grid::grid_line;
use crate::output::text::node_name;

/// What a recorded state is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateKind {
    /// Transitions leave it and it is not final.
    Inner,
    /// The final condition holds.
    Final,
    /// Not final, and no transition leaves it.
    Dead,
}

/// One state of the recorded space.
#[derive(Clone, Debug)]
pub struct State {
    /// Inner, final or dead.
    pub kind: StateKind,
    /// Transitions from the start to the state's first discovery (breadth-first).
    pub depth: u32,
    /// Transitions leaving it to states beyond the cap (not recorded).
    pub cut: u64,
    /// The grid as one line (`12.4...`), for grammars with a grid.
    pub grid: Option<String>,
}

/// A labelled transition system: state 0 is the start.
#[derive(Clone, Debug)]
pub struct Lts {
    /// The states by number.
    pub states: Vec<State>,
    /// (from, label, to).
    pub transitions: Vec<(u32, String, u32)>,
    /// The cap on states the recording was made under.
    pub cap: usize,
    /// The expansion used, and why `focus` fell back to `all` when it did.
    pub expand: Expand,
    /// Why `--expand focus` was not used, when it was asked for and is unsound.
    pub fallback: Option<String>,
}

impl Lts {
    /// Records the space of `grammar` from `start` breadth-first, on whole graphs (every
    /// state a host graph, as GROOVE's simulator shows it), keeping at most `cap` states.
    /// Every recorded state is expanded, so its kind is known; transitions to states past
    /// the cap are counted in [`State::cut`] and left out.
    pub fn record(grammar: &Grammar, start: Graph, expand: Expand, cap: usize) -> Lts {
        let mut space = GraphSpace::new(grammar, start);
        let fallback = match expand {
            Expand::Focus => space.try_focus().err().map(|r| r.reason),
            Expand::All => None,
        };
        let expand = if fallback.is_some() {
            Expand::All
        } else {
            expand
        };
        let cap = cap.max(1);
        let mut lts = Lts {
            states: Vec::new(),
            transitions: Vec::new(),
            cap,
            expand,
            fallback,
        };
        let Some(first) = space.initial() else {
            return lts;
        };
        let mut ids: HashMap<Vec<u8>, u32> = HashMap::new();
        let mut key = Vec::new();
        space.key(&first, &mut key);
        ids.insert(key.clone(), 0);
        lts.states.push(lts.new_state(grammar, &space, &first, 0));
        let mut queue = VecDeque::from([(0u32, first)]);
        let mut pool = Frontier::new(Order::Bfs);
        let mut scratch = GraphScratch::default();
        let mut steps: Vec<Step> = Vec::new();
        while let Some((id, state)) = queue.pop_front() {
            steps.clear();
            let mut succ = Successors::collect(&mut pool);
            let exp = space.expand_steps(&state, &mut scratch, &mut succ, &mut steps);
            let successors = succ.into_items();
            let kind = if space.is_final(&state, &exp) {
                StateKind::Final
            } else if exp.transitions == 0 {
                StateKind::Dead
            } else {
                StateKind::Inner
            };
            let depth = lts.states[id as usize].depth;
            lts.states[id as usize].kind = kind;
            for (step, next) in steps.iter().zip(successors) {
                space.key(&next, &mut key);
                let to = match ids.get(&key) {
                    Some(&to) => to,
                    None if lts.states.len() < cap => {
                        let to = lts.states.len() as u32;
                        ids.insert(key.clone(), to);
                        lts.states
                            .push(lts.new_state(grammar, &space, &next, depth + 1));
                        queue.push_back((to, next));
                        to
                    }
                    None => {
                        lts.states[id as usize].cut += 1;
                        continue;
                    }
                };
                lts.transitions.push((id, label(grammar, step), to));
            }
        }
        lts
    }

    fn new_state(
        &self,
        grammar: &Grammar,
        space: &GraphSpace,
        s: &<GraphSpace as Space>::State,
        depth: u32,
    ) -> State {
        State {
            kind: StateKind::Inner,
            depth,
            cut: 0,
            grid: grid_line(grammar, &space.to_graph(s)),
        }
    }

    /// True when the cap left states out.
    pub fn is_capped(&self) -> bool {
        self.states.iter().any(|s| s.cut > 0)
    }

    /// Transitions left out because they lead past the cap.
    pub fn cut_transitions(&self) -> u64 {
        self.states.iter().map(|s| s.cut).sum()
    }

    /// States of a kind.
    pub fn count(&self, kind: StateKind) -> usize {
        self.states.iter().filter(|s| s.kind == kind).count()
    }

    /// The message for a capped recording, naming the cap and how to raise it.
    pub fn cap_message(&self) -> Option<String> {
        self.is_capped().then(|| {
            format!(
                "the state space has more than {} states: shown are the first {} found breadth-first and the {} transitions between them; {} transitions to further states are left out (marked at their source). Raise --max-states to record more",
                self.cap,
                self.states.len(),
                self.transitions.len(),
                self.cut_transitions()
            )
        })
    }

    /// The space in the Aldebaran format: `des (0, T, N)`, then one `(from, "label", to)`
    /// line per transition. Labels are 7-bit ASCII, as the format asks.
    pub fn to_aut(&self) -> String {
        let mut out = format!(
            "des (0, {}, {})\n",
            self.transitions.len(),
            self.states.len()
        );
        for (from, label, to) in &self.transitions {
            let _ = writeln!(out, "({from}, \"{}\", {to})", aut_label(label));
        }
        out
    }

    /// The space in Graphviz DOT: the start with an arrow from nowhere, final states as
    /// double circles, dead ends filled red, states with transitions left out dashed.
    pub fn to_dot(&self) -> String {
        let mut out = String::from(
            "digraph space {\n  rankdir=TB;\n  node [shape=circle, fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n  start [shape=point];\n  start -> s0;\n",
        );
        for (i, s) in self.states.iter().enumerate() {
            let mut attrs = Vec::new();
            match s.kind {
                StateKind::Final => attrs.push("shape=doublecircle, color=\"#1a7f37\"".to_string()),
                StateKind::Dead => {
                    attrs.push("style=filled, fillcolor=\"#f4c7c3\", color=\"#b3261e\"".to_string())
                }
                StateKind::Inner => {}
            }
            if s.cut > 0 {
                attrs.push("style=dashed".to_string());
            }
            if let Some(g) = &s.grid {
                attrs.push(format!("tooltip={}", quote(g)));
            }
            let _ = writeln!(
                out,
                "  s{i} [label=\"s{i}\"{}{}];",
                if attrs.is_empty() { "" } else { ", " },
                attrs.join(", ")
            );
        }
        for (from, label, to) in &self.transitions {
            let _ = writeln!(out, "  s{from} -> s{to} [label={}];", quote(label));
        }
        out.push_str("}\n");
        out
    }
}

/// A transition's label: the rule's name with its parameters' values and the nodes its
/// left side bound, `place(3, r1c1)`.
fn label(grammar: &Grammar, step: &Step) -> String {
    let rule = &grammar.rules[step.rule];
    let args: Vec<String> = step
        .params
        .iter()
        .map(|&v| grammar.domain.show(v).to_string())
        .chain(step.binding.iter().map(|&n| node_name(grammar, n)))
        .collect();
    if args.is_empty() {
        rule.name.clone()
    } else {
        format!("{}({})", rule.name, args.join(", "))
    }
}

/// A label as the Aldebaran format takes it: printable 7-bit ASCII without `"`.
fn aut_label(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aut_labels_are_ascii_without_quotes() {
        assert_eq!(aut_label("place(3, r1c1)"), "place(3, r1c1)");
        assert_eq!(aut_label("a\"b\u{e9}\n"), "a_b__");
    }
}
