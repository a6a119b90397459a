//! Chooses the state representation for a grammar (packed slots where the rules allow,
//! whole graphs otherwise), plans a run once, and hands it to that engine.

pub mod heuristics;
pub mod plan;

pub use plan::Plan;

use std::time::Instant;

use crate::analysis::{forbid, Monotone, Refusal};
use crate::diag::Diagnostic;
use crate::grammar::puzzle::PuzzleGrammar;
use crate::grammar::{Givens, Grammar};
use crate::layer::Layers;
use crate::model::Graph;
use crate::slot::engine::PuzzleLines;
use crate::slot::{SlotEngine, SlotModel};

use crate::explore::config::{Config, EngineChoice, Expand};
use crate::explore::parallel::explore_to_graphs;
use crate::explore::report::Report;
use crate::graph::GraphEngine;

/// Which engine a grammar runs on.
enum Kind<'g> {
    Slot(Box<SlotEngine<'g>>),
    /// The reason the slot engine does not apply.
    Graph(Refusal),
}

/// Called with the plan of each run once it is settled, before the run explores.
/// Shared, so that the engine of a puzzle with layers tells the same listener.
type PlanListener<'g> = std::sync::Arc<dyn Fn(&Plan) + Send + Sync + 'g>;

/// The grammar an engine runs: a rule file's (or a puzzle's, built), or a regrouped,
/// narrowed or retabled puzzle's, built only when something reads it.
#[derive(Clone, Copy)]
enum Rules<'g> {
    Built(&'g Grammar),
    Puzzle(&'g PuzzleGrammar<'g>),
}

/// A grammar compiled once, ready to explore any number of start graphs.
pub struct Engine<'g> {
    grammar: Rules<'g>,
    kind: Kind<'g>,
    listener: Option<PlanListener<'g>>,
}

impl<'g> Engine<'g> {
    /// Compiles `grammar`: to the slot engine where its rules only fill slots, else to the
    /// whole-graph engine (the reason kept for `check` and the report).
    pub fn new(grammar: &'g Grammar) -> Engine<'g> {
        Engine::reusing(grammar, None)
    }

    /// [`Engine::new`], reusing what `base`'s slot engine compiled that layers do not change.
    fn reusing(grammar: &'g Grammar, base: Option<&Engine<'_>>) -> Engine<'g> {
        let base = base.and_then(|b| match &b.kind {
            Kind::Slot(s) => Some(&**s),
            Kind::Graph(_) => None,
        });
        let kind = match base.map_or_else(
            || SlotEngine::new(grammar),
            |b| SlotEngine::reusing(grammar, b),
        ) {
            Ok(slot) => Kind::Slot(Box::new(slot)),
            Err(why) => Kind::Graph(why),
        };
        Engine {
            grammar: Rules::Built(grammar),
            kind,
            listener: None,
        }
    }

    /// Calls `listener` with the plan of each run as soon as it is settled, before the
    /// run explores: so a caller can say which engine runs and why `--expand focus` fell
    /// back before a long run, not only in its report. Each run calls it (every puzzle of
    /// a batch, from the thread that runs it), so it should be cheap.
    pub fn with_plan_listener(self, listener: impl Fn(&Plan) + Send + Sync + 'g) -> Self {
        Engine {
            listener: Some(std::sync::Arc::new(listener)),
            ..self
        }
    }

    /// Tells the listener, if any, the settled `plan`.
    fn announce(&self, plan: &Plan) {
        if let Some(listener) = &self.listener {
            listener(plan);
        }
    }

    /// Runs `f` with the engine of a puzzle whose line carries `layers`: this engine when
    /// they are empty and the file has no layer content of its own, else one for the
    /// grammar with the layers added. Layers change the start graph, from which the slot
    /// engine compiles its tables, so each such puzzle pays a copy of the base graph and a
    /// compilation of what its layers reach (the tables of NACs they cannot reach come from
    /// this engine); where they only take values away from what a rule places (marks read
    /// by a cell's left side alone), the puzzle shares this engine's model instead, and
    /// where they only add groups to the all-different NAC (a jigsaw's regions), it takes
    /// this engine's model with those groups' hubs in place of the file's own regions'.
    /// Those two read the marks and the regions from the layers: the puzzle's grammar
    /// (`grammar()`) is then built only when something asks for it, such as a solution
    /// written out as a graph or marks no earlier puzzle had.
    pub fn with_layers<R>(&self, layers: &Layers, f: impl FnOnce(&Engine<'_>) -> R) -> R {
        if layers.is_empty() && self.rules().layer_base.is_none() {
            return f(self);
        }
        let puzzle = PuzzleGrammar::new(self.rules(), layers);
        let shared = match &self.kind {
            Kind::Slot(s) => (s.regrouped(&puzzle))
                .or_else(|| s.narrowed(&puzzle))
                .or_else(|| s.retabled(&puzzle)),
            Kind::Graph(_) => None,
        };
        let engine = match shared {
            Some(slot) => Engine {
                grammar: Rules::Puzzle(&puzzle),
                kind: Kind::Slot(Box::new(slot)),
                listener: self.listener.clone(),
            },
            None => Engine {
                listener: self.listener.clone(),
                ..Engine::reusing(puzzle.get(), Some(self))
            },
        };
        f(&engine)
    }

    /// The grammar's rules, `start` block and all but its base graph and node names: for a
    /// regrouped, narrowed or retabled puzzle, its rule file's, which does not build the
    /// puzzle's graph.
    fn rules(&self) -> &'g Grammar {
        match self.grammar {
            Rules::Built(g) => g,
            Rules::Puzzle(p) => p.file(),
        }
    }

    /// The grammar this engine runs (a regrouped, narrowed or retabled puzzle's is built
    /// on the first call).
    pub fn grammar(&self) -> &'g Grammar {
        match self.grammar {
            Rules::Built(g) => g,
            Rules::Puzzle(p) => p.get(),
        }
    }

    /// The slot model, when the grammar has one.
    pub fn slot_model(&self) -> Option<&SlotModel> {
        self.slot_compilation().ok()
    }

    /// The slot model, or why the rules are not slot-filling (they run on whole graphs).
    pub fn slot_compilation(&self) -> Result<&SlotModel, &Refusal> {
        match &self.kind {
            Kind::Slot(s) => Ok(s.model()),
            Kind::Graph(why) => Err(why),
        }
    }

    /// How puzzle lines with layers run on the slot engine (see
    /// `SlotEngine::puzzle_lines`); `None` on whole graphs or without layers.
    pub fn puzzle_lines(&self) -> Option<PuzzleLines> {
        match &self.kind {
            Kind::Slot(s) => s.puzzle_lines(),
            Kind::Graph(_) => None,
        }
    }

    /// Why `--expand focus` cannot be used, if it cannot.
    pub fn focus_unsound(&self) -> Option<String> {
        match &self.kind {
            Kind::Slot(s) => s.model().focus_sound.clone().err().map(|r| r.reason),
            // Whole graphs have a focus of their own where the rules fill or delete one
            // empty cell each (checked here from the rules, and again on each start graph).
            Kind::Graph(why) => Monotone::analyse(self.grammar())
                .err()
                .or_else(|| forbid::check(self.grammar()).err())
                .map(|u| {
                    format!(
                        "the rules are not slot-filling ({}), and on whole graphs: {}",
                        why.located(&self.grammar().source),
                        u.reason
                    )
                }),
        }
    }

    /// The engine `config` runs on: the slot engine unless `--engine graph` asks otherwise
    /// or the rules are not slot-filling.
    fn slot_engine(&self, config: &Config) -> Option<&SlotEngine<'g>> {
        match (&self.kind, config.engine) {
            (Kind::Slot(s), EngineChoice::Auto) => Some(s),
            _ => None,
        }
    }

    /// What a run with `config` will do. On whole graphs, whether `--expand focus` holds
    /// also depends on the start graph: [`Engine::solve`] settles that with
    /// [`Plan::fall_back`] once the start graph's space is built.
    pub fn plan(&self, config: &Config) -> Plan {
        let forced_graph = config.engine == EngineChoice::Graph;
        let slot = self.slot_engine(config).is_some();
        let fallback = match config.expand {
            // Decided on the start graph (see above).
            Expand::Focus if !slot && !config.policy.focus.is_colouring() => None,
            Expand::Focus if forced_graph => Some(
                "--engine graph branches on the cell with the fewest applications only".to_string(),
            ),
            Expand::Focus => self.focus_unsound(),
            Expand::All => None,
        };
        Plan {
            engine: if slot { "slot" } else { "graph" },
            expand: if fallback.is_some() {
                Expand::All
            } else {
                config.expand
            },
            fallback,
            threads: config.threads.max(1),
            order: config.order,
            policy: config.policy,
        }
    }

    /// The start graph: the base graph with `givens` (or the file's `start` block) placed.
    pub fn start_graph(&self, givens: Option<&Givens>) -> Graph {
        self.grammar().start_graph(givens)
    }

    /// Checks that the givens (the file's `start` block when `None`) do not clash: no given
    /// is blocked by another. The slot engine checks this exactly; whole-graph grammars
    /// have no notion of a given to check against.
    pub fn check_givens(&self, givens: Option<&Givens>) -> Result<(), Diagnostic> {
        match &self.kind {
            Kind::Slot(s) => s.check_givens(givens.or(self.rules().start.as_ref())),
            Kind::Graph(_) => Ok(()),
        }
    }

    /// Explores from the start graph with `givens` placed (the file's `start` block when
    /// `None`), as [`Engine::plan`] says. Calls `on_solution` with each final state when
    /// given. Fails only when givens clash with each other.
    pub fn solve(
        &self,
        givens: Option<&Givens>,
        config: &Config,
        on_solution: Option<&mut dyn FnMut(&Graph)>,
    ) -> Result<Report, Diagnostic> {
        let started = config.started.unwrap_or_else(Instant::now);
        let config = &config.with_started(started);
        let givens = givens.or(self.rules().start.as_ref());
        let mut plan = self.plan(config);
        let mut sink = on_solution;
        let (counts, stop, attempts) = match self.slot_engine(config) {
            Some(slot) => {
                self.announce(&plan);
                slot.solve(givens, &plan.config(config), &mut sink)?
            }
            None => {
                // The whole-graph engine does not see clashes (it finds no solution): a
                // grammar the slot engine compiles has its givens checked there, as
                // `--engine graph` runs of it always had.
                self.check_givens(givens)?;
                let graph = GraphEngine::new(self.grammar());
                let start = self.start_graph(givens);
                let (space, focus) = graph.space(start, &plan.config(config));
                if let Err(u) = focus {
                    plan.fall_back(format!("on whole graphs: {}", u.reason));
                }
                self.announce(&plan);
                let (counts, stop) = explore_to_graphs(&space, &plan.config(config), &mut sink);
                (counts, stop, 1)
            }
        };
        Ok(Report {
            counts,
            stop,
            order: plan.order,
            expand: plan.expand,
            policy: plan.policy,
            attempts,
            fallback: plan.fallback,
            engine: plan.engine,
            elapsed: started.elapsed(),
        })
    }
}
