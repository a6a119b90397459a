//! `--expand focus` over a slot grammar: at each state branch on the slot with the fewest
//! candidates (DSatur's most saturated vertex), or on the cells of an exactly-once group
//! that can still take some value when they are fewer; forced moves are applied inside a
//! successor without storing intermediate states.
//!
//! Why this finds exactly the final states of `--expand all` is shown once, in
//! [`crate::analysis`] (checked when the model is built, as
//! [`super::model::SlotModel::focus_sound`], else the explorer falls back): every final
//! state extending the current one holds some candidate of the focus slot, so branching on
//! the focus's candidates partitions them. A slot with one candidate is forced, one with
//! none (or a value no cell of an exactly-once group can take) proves no final state
//! extends the current one. An exactly-once group (as many members as values, pairwise blocking equal
//! values) holds each value once in every final state, so branching on the members that
//! can take one value partitions them too.

use std::sync::OnceLock;

use crate::grammar::Grammar;
use crate::model::Graph;

use crate::explore::{Expansion, Space, Successors};

use super::forbid::ForbidScratch;
use super::mask::Mask;
use super::model::SlotModel;
use super::solver::{Tables, Work};
use super::start_tables::StartTables;
use super::BaseGraph;

pub struct FocusSpace<'a, M: Mask, const W: usize> {
    pub(super) grammar: &'a Grammar,
    pub(super) model: &'a SlotModel,
    pub(super) tables: &'a Tables<M>,
    pub(super) start: Option<Work<M>>,
    /// The grounded instances' tables (of `forbid` patterns and the final condition) over
    /// every value their slots allow.
    tables_allowed: StartTables,
    /// Those and the ones listed over `start`'s candidates, listed when the search first
    /// branches: a start settled whole needs none.
    tables_below: OnceLock<StartTables>,
    pub(super) base: BaseGraph<'a>,
}

impl<'a, M: Mask, const W: usize> FocusSpace<'a, M, W> {
    /// `start` holds the givens; it is propagated here.
    pub fn new(
        grammar: &'a Grammar,
        model: &'a SlotModel,
        tables: &'a Tables<M>,
        base: BaseGraph<'a>,
        mut start: Work<M>,
    ) -> Self {
        let mut tables_allowed = StartTables::default();
        let alive = tables.propagate::<W>(&mut start)
            && model.forbids.as_ref().is_none_or(|f| {
                // Every instance checked once, then candidates next to the filled slots.
                let mut scratch = ForbidScratch::default();
                let none = vec![0; start.vals.len()];
                tables_allowed = f.tables_allowed(tables);
                !f.forbidden(grammar, model, &mut scratch, &start.vals)
                    && f.settle::<M, W>(
                        grammar,
                        model,
                        tables,
                        &mut scratch,
                        &none,
                        &mut start,
                        (true, &tables_allowed),
                    )
            });
        FocusSpace {
            grammar,
            model,
            tables,
            start: alive.then_some(start),
            tables_allowed,
            tables_below: OnceLock::new(),
            base,
        }
    }

    /// The tables the states below the start settle with (see `tables_below`): the same
    /// whichever worker lists them, being listed from the start.
    fn tables_below(&self) -> &StartTables {
        self.tables_below.get_or_init(|| {
            let mut below = self.tables_allowed.clone();
            if let (Some(f), Some(start)) = (&self.model.forbids, &self.start) {
                f.tables_below::<M, W>(&mut below, self.tables, start);
            }
            below
        })
    }

    fn branch(
        &self,
        (state, below): (&Work<M>, &StartTables),
        scratch: &mut ForbidScratch,
        succ: &mut Successors<'_, Work<M>>,
        (s, y): (u32, u32),
    ) {
        let mut child = succ.copy_of(state);
        let t = self.tables;
        let alive = t.place::<W>(&mut child, s as usize, y)
            && match &self.model.forbids {
                None => t.propagate::<W>(&mut child),
                Some(f) => f.settle::<M, W>(
                    self.grammar,
                    self.model,
                    t,
                    scratch,
                    &state.vals,
                    &mut child,
                    (false, below),
                ),
            };
        if alive {
            succ.push(child);
        } else {
            succ.dead += 1;
            succ.discard(child);
        }
    }
}

impl<M: Mask, const W: usize> Space for FocusSpace<'_, M, W> {
    type State = Work<M>;
    /// The mirror `forbid` patterns are checked on.
    type Scratch = ForbidScratch;

    fn initial(&self) -> Option<Work<M>> {
        self.start.clone()
    }

    fn expand(
        &self,
        state: &Work<M>,
        scratch: &mut ForbidScratch,
        succ: &mut Successors<'_, Work<M>>,
    ) -> Expansion {
        let t = self.tables;
        let Some((s, k)) = t.best_slot::<W>(state) else {
            return Expansion { transitions: 0 };
        };
        let at = (state, self.tables_below());
        if let Some((h, y, kv)) = t.best_value::<W>(state, k) {
            t.for_each_place::<W>(state, h, y, |m| self.branch(at, scratch, succ, (m, y)));
            return Expansion {
                transitions: u64::from(kv),
            };
        }
        let mut c = t.cand::<W>(state, s as usize);
        while !c.is_zero() {
            let y = c.pop_first();
            self.branch(at, scratch, succ, (s, y));
        }
        Expansion {
            transitions: u64::from(k),
        }
    }

    fn is_final(&self, state: &Work<M>, _: &Expansion) -> bool {
        // Focus is only chosen when finals need every slot filled.
        super::is_final_filled(self.grammar, self.model, self.base, &state.vals, state.left)
    }

    fn needs_visited(&self) -> bool {
        false
    }

    fn key(&self, _: &Work<M>, _: &mut Vec<u8>) {}

    fn to_graph(&self, state: &Work<M>) -> Graph {
        super::write_graph(self.model, self.base.get(), &state.vals)
    }
}
