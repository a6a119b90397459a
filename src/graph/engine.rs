//! The whole-graph engine as one runnable thing: a start graph's space, tabulated within
//! the run's limits, and its exploration within what is left of them.

use std::time::Instant;

use crate::grammar::Grammar;
use crate::model::Graph;

use super::GraphSpace;
use crate::analysis::Refusal;

use crate::explore::config::{Config, Expand};
use crate::explore::halt::Halt;
use crate::explore::parallel::{explore_to_graphs, GraphSink};
use crate::explore::report::{Counts, StopReason};

/// Any grammar, run on whole host graphs with the general matcher.
pub struct GraphEngine<'g> {
    grammar: &'g Grammar,
}

impl<'g> GraphEngine<'g> {
    pub fn new(grammar: &'g Grammar) -> GraphEngine<'g> {
        GraphEngine { grammar }
    }

    /// The space from `start`. Tabulating its applications counts against the limits of a
    /// run that began at `started`; under `Expand::Focus` it also checks that the focus is
    /// sound on this start graph, the one part of the plan that needs it.
    pub fn space(
        &self,
        start: Graph,
        config: &Config,
        started: Instant,
    ) -> (GraphSpace<'g>, Result<(), Refusal>) {
        let halt = Halt::new(config.limits, started, config.interrupt, None);
        let mut space = GraphSpace::halted(self.grammar, start, halt);
        let focus = match config.expand {
            Expand::Focus => space.try_focus(),
            Expand::All => Ok(()),
        };
        (space, focus)
    }

    /// Explores `space` with the expansion `config` names, within what is left of a run
    /// that began at `started`.
    pub fn explore(
        &self,
        space: &GraphSpace<'g>,
        config: &Config,
        started: Instant,
        sink: &mut GraphSink<'_>,
    ) -> (Counts, Option<StopReason>) {
        let mut config = *config;
        // Tabulating the applications took part of the time: the search gets what is
        // left, and its timeout is reported from the start.
        if let Some(t) = config.limits.timeout {
            config.limits.timeout = Some(t.saturating_sub(started.elapsed()));
        }
        let (counts, stop) = explore_to_graphs(space, &config, sink);
        let stop = stop.map(|s| match s {
            StopReason::Timeout(_) => StopReason::Timeout(started.elapsed()),
            s => s,
        });
        (counts, stop)
    }
}
