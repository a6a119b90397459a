//! The whole-graph engine as one runnable thing: a start graph's space, tabulated within
//! the run's limits, and its exploration within what is left of them.

use std::time::Instant;

use crate::grammar::Grammar;
use crate::model::Graph;

use super::GraphSpace;
use crate::analysis::Refusal;

use crate::explore::config::{Config, Expand};
use crate::explore::halt::Halt;

/// Any grammar, run on whole host graphs with the general matcher.
pub struct GraphEngine<'g> {
    grammar: &'g Grammar,
}

impl<'g> GraphEngine<'g> {
    pub fn new(grammar: &'g Grammar) -> GraphEngine<'g> {
        GraphEngine { grammar }
    }

    /// The space from `start`. Tabulating its applications counts against the limits of
    /// the run (its timeout from `config.started`); under `Expand::Focus` it also checks that the focus is
    /// sound on this start graph, the one part of the plan that needs it.
    pub fn space(&self, start: Graph, config: &Config) -> (GraphSpace<'g>, Result<(), Refusal>) {
        let started = config.started.unwrap_or_else(Instant::now);
        let halt = Halt::new(config.limits, started, config.interrupt, None);
        let mut space = GraphSpace::halted(self.grammar, start, halt);
        let focus = match config.expand {
            Expand::Focus => space.try_focus(),
            Expand::All => Ok(()),
        };
        (space, focus)
    }
}
