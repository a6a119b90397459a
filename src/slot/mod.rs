//! The slot engine: grammars whose rules only fill empty attributes ("slots") run on
//! packed states over one shared graph structure, with NACs answered from hub indexes.

mod bounds_program;
pub mod colouring;
pub mod colouring_state;
mod compact_table;
pub mod compile;
pub mod conflict;
pub mod engine;
pub mod focus;
pub mod forbid;
pub mod full;
mod ground;
pub mod group;
mod layout;
pub mod mask;
pub mod model;
pub mod pick;
mod region_ground;
pub mod relation;
mod shapes;
mod shared_ground;
pub mod solver;
mod start_tables;
mod term_program;

pub use colouring::ColouringSpace;
#[cfg(test)]
pub use compile::compile;
pub use conflict::Conflict;
pub use engine::SlotEngine;
pub use focus::FocusSpace;
pub use full::FullSpace;
pub use mask::Mask;
pub use model::{FinalKind, SlotModel};
pub use solver::{Tables, Work};

use crate::grammar::puzzle::PuzzleGrammar;
use crate::model::{Graph, Value};

/// The graph a run writes its states into: the rule file's base graph, or a regrouped
/// puzzle's, built the first time a state is written (counting solutions never does).
#[derive(Clone, Copy)]
pub enum BaseGraph<'a> {
    Built(&'a Graph),
    Puzzle(&'a PuzzleGrammar<'a>),
}

impl<'a> BaseGraph<'a> {
    pub fn get(self) -> &'a Graph {
        match self {
            BaseGraph::Built(g) => g,
            BaseGraph::Puzzle(p) => &p.get().base,
        }
    }
}

/// Whether a state whose slots hold `vals` (`left` of them empty) is final, in the spaces
/// that only run when final states need every slot filled (focus and the colouring foci).
pub fn is_final_filled(
    grammar: &crate::grammar::Grammar,
    model: &SlotModel,
    base: BaseGraph<'_>,
    vals: &[u8],
    left: u32,
) -> bool {
    left == 0
        && match &model.final_kind {
            FinalKind::Full => true,
            FinalKind::FullAnd(c) => model
                .forbids
                .as_ref()
                .and_then(|f| f.final_holds(vals))
                .unwrap_or_else(|| c.holds(&grammar.types, &write_graph(model, base.get(), vals))),
            FinalKind::Cond(_) | FinalKind::Stuck => false,
        }
}

/// A slot's packed value (0 = none, else the value's index plus one) as the graph holds it.
pub fn slot_value(v: u8) -> Value {
    match v {
        0 => Value::None,
        v => Value::Val(u16::from(v) - 1),
    }
}

/// The host graph of a state: `base` with every slot set from `vals` (0 = none); a cell
/// filled by replacement is deleted and its new node created.
pub fn write_graph(model: &SlotModel, base: &Graph, vals: &[u8]) -> Graph {
    let mut g = base.clone();
    for (s, &(n, a)) in model.slots.iter().enumerate() {
        let v = slot_value(vals[s]);
        match &model.replaced {
            None => g.set_attr(n, a, v),
            Some(_) if v.is_none() => {}
            Some(r) => {
                let mut attrs = r.attrs[s].clone();
                attrs[a.index()] = v;
                g.remove_node(n);
                g.add_node(r.ty, attrs);
            }
        }
    }
    g
}

/// For tests: numbers below `n` from an xorshift64 sequence started at `seed`, the same on
/// every run, so a randomised test tries the same cases each time.
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    }
}
