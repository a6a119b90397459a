//! Chooses the state representation for a grammar (packed slots where the rules allow,
//! whole graphs otherwise), places givens, and runs the exploration loop on it.

pub mod heuristics;

use std::sync::OnceLock;
use std::time::Instant;

use crate::analysis::{Monotone, Refusal};
use crate::diag::{Diagnostic, Span};
use crate::grammar::{Givens, Grammar};
use crate::model::{Graph, Value};
use crate::slot::solver::DYN;
use crate::slot::{
    self, ColouringSpace, Conflict, FocusSpace, FullSpace, Mask, SlotModel, Tables, Work,
};

use crate::explore::config::{Config, EngineChoice, Expand, Order};
use crate::explore::halt::Halt;
use crate::explore::parallel::explore_parallel;
use crate::explore::policy::ValueOrder;
use crate::explore::report::{Counts, Report, StopReason};
use crate::explore::restarts::explore_restarts;
use crate::explore::space::Space;
use crate::graph::graph_space::GraphSpace;

/// Evaluates `$e` with the const `$w` set to `$words` when it is 1 to 4 (slot bitsets of
/// up to 256 slots, whose loops then unroll), else to [`DYN`] (read at run time).
macro_rules! by_words {
    ($words:expr, $w:ident => $e:expr) => {
        match $words {
            1 => {
                const $w: usize = 1;
                $e
            }
            2 => {
                const $w: usize = 2;
                $e
            }
            3 => {
                const $w: usize = 3;
                $e
            }
            4 => {
                const $w: usize = 4;
                $e
            }
            _ => {
                const $w: usize = DYN;
                $e
            }
        }
    };
}

/// The slot tables at the narrowest mask width that holds the domain.
enum Width {
    W16(Tables<u16>),
    W32(Tables<u32>),
    W64(Tables<u64>),
    W128(Tables<u128>),
}

/// Which engine a grammar runs on.
pub enum EngineKind {
    Slot(Box<SlotModel>),
    /// The reason the slot engine does not apply.
    Graph(Refusal),
}

/// A grammar compiled once, ready to explore any number of start graphs.
pub struct Engine<'g> {
    pub grammar: &'g Grammar,
    pub kind: EngineKind,
    width: Option<Width>,
    /// Slot values of the base graph, before givens.
    base_values: Vec<Option<u16>>,
    /// The slot each grid cell's given fills, when givens only set a slot (no retyping).
    cell_slots: Option<Vec<u32>>,
    /// The slots' conflict graph, built the first time a colouring focus runs.
    conflict: OnceLock<Conflict>,
}

impl<'g> Engine<'g> {
    pub fn new(grammar: &'g Grammar) -> Engine<'g> {
        match slot::compile(grammar) {
            Ok(model) => {
                let width = Some(match model.d {
                    0..=16 => Width::W16(Tables::new(&model)),
                    17..=32 => Width::W32(Tables::new(&model)),
                    33..=64 => Width::W64(Tables::new(&model)),
                    _ => Width::W128(Tables::new(&model)),
                });
                let base_values = slot::compile::slot_values(&grammar.types, &model, &grammar.base);
                let cell_slots = grammar.grid.as_ref().and_then(|grid| {
                    if grid.given_type.is_some() {
                        return None;
                    }
                    grid.cells
                        .iter()
                        .map(|&c| model.slot_of.get(&(c, grid.value_attr)).copied())
                        .collect::<Option<Vec<u32>>>()
                });
                Engine {
                    grammar,
                    kind: EngineKind::Slot(Box::new(model)),
                    width,
                    base_values,
                    cell_slots,
                    conflict: OnceLock::new(),
                }
            }
            Err(why) => Engine {
                grammar,
                kind: EngineKind::Graph(why),
                width: None,
                base_values: Vec::new(),
                cell_slots: None,
                conflict: OnceLock::new(),
            },
        }
    }

    /// The slot model, when the grammar has one.
    pub fn slot_model(&self) -> Option<&SlotModel> {
        match &self.kind {
            EngineKind::Slot(m) => Some(m),
            EngineKind::Graph(_) => None,
        }
    }

    /// Why `--expand focus` cannot be used, if it cannot.
    pub fn focus_unsound(&self) -> Option<String> {
        match &self.kind {
            EngineKind::Slot(m) => m.focus_sound.clone().err().map(|r| r.reason),
            // Whole graphs have a focus of their own where the rules fill or delete one
            // empty cell each (checked here from the rules, and again on each start graph).
            EngineKind::Graph(why) => Monotone::analyse(self.grammar).err().map(|u| {
                format!(
                    "the rules are not slot-filling ({}), and on whole graphs: {}",
                    why.located(&self.grammar.source),
                    u.reason
                )
            }),
        }
    }

    /// The start graph: the base graph with `givens` (or the file's `start` block) placed.
    pub fn start_graph(&self, givens: Option<&Givens>) -> Graph {
        let g = self.grammar;
        let mut graph = g.base.clone();
        let (Some(grid), Some(givens)) = (&g.grid, givens.or(g.start.as_ref())) else {
            return graph;
        };
        for (&cell, value) in grid.cells.iter().zip(&givens.values) {
            let Some(x) = value else { continue };
            match grid.given_type {
                None => graph.set_attr(cell, grid.value_attr, Value::Val(*x)),
                Some(t) => {
                    let old = g.types.node(graph.ty(cell));
                    let new = g.types.node(t);
                    let mut attrs = smallvec::SmallVec::from_elem(Value::None, new.attrs.len());
                    for (i, a) in new.attrs.iter().enumerate() {
                        if let Some(j) = old.attr(&a.name) {
                            attrs[i] = graph.attr(cell, j);
                        }
                    }
                    attrs[grid.value_attr.index()] = Value::Val(*x);
                    graph.retype(cell, t, attrs);
                }
            }
        }
        graph
    }

    /// Checks that the givens (the file's `start` block when `None`) do not clash: no given
    /// is blocked by another. The slot engine checks this exactly; whole-graph grammars
    /// have no notion of a given to check against.
    pub fn check_givens(&self, givens: Option<&Givens>) -> Result<(), Diagnostic> {
        let (EngineKind::Slot(model), Some(width)) = (&self.kind, &self.width) else {
            return Ok(());
        };
        let givens = givens.or(self.grammar.start.as_ref());
        let values = self.slot_start_values(model, givens);
        match width {
            Width::W16(t) => self.clash_free(model, t, &values, givens),
            Width::W32(t) => self.clash_free(model, t, &values, givens),
            Width::W64(t) => self.clash_free(model, t, &values, givens),
            Width::W128(t) => self.clash_free(model, t, &values, givens),
        }
    }

    /// Explores from the start graph with `givens` placed (the file's `start` block when
    /// `None`). Calls `on_solution` with each final state when given. Fails only when
    /// givens clash with each other.
    pub fn solve(
        &self,
        givens: Option<&Givens>,
        config: &Config,
        on_solution: Option<&mut dyn FnMut(&Graph)>,
    ) -> Result<Report, Diagnostic> {
        let started = Instant::now();
        let givens = givens.or(self.grammar.start.as_ref());
        let mut expand = config.expand;
        let forced_graph = config.engine == EngineChoice::Graph;
        let graph_engine = forced_graph || !matches!(self.kind, EngineKind::Slot(_));
        let mut fallback = match expand {
            // Whether whole graphs allow focus depends on the start graph too: decided
            // when their space is built below.
            Expand::Focus if graph_engine && !config.policy.focus.is_colouring() => None,
            Expand::Focus if forced_graph => Some(
                "--engine graph branches on the cell with the fewest applications only".to_string(),
            ),
            Expand::Focus => self.focus_unsound(),
            Expand::All => None,
        };
        if fallback.is_some() {
            expand = Expand::All;
        }
        let mut config = Config { expand, ..*config };
        let mut sink = on_solution;
        let mut attempts = 1;
        let (counts, stop, engine) = match (&self.kind, &self.width) {
            (EngineKind::Slot(model), Some(width)) if !forced_graph => {
                let values = self.slot_start_values(model, givens);
                let r = match width {
                    Width::W16(t) => self.run_slot(model, t, &values, givens, &config, &mut sink),
                    Width::W32(t) => self.run_slot(model, t, &values, givens, &config, &mut sink),
                    Width::W64(t) => self.run_slot(model, t, &values, givens, &config, &mut sink),
                    Width::W128(t) => self.run_slot(model, t, &values, givens, &config, &mut sink),
                }?;
                attempts = r.2;
                (r.0, r.1, "slot")
            }
            _ => {
                let halt = Halt::new(config.limits, started, config.interrupt, None);
                let mut space = GraphSpace::halted(self.grammar, self.start_graph(givens), halt);
                if expand == Expand::Focus {
                    if let Err(u) = space.try_focus() {
                        fallback = Some(format!("on whole graphs: {}", u.reason));
                        expand = Expand::All;
                        config.expand = Expand::All;
                    }
                }
                // Tabulating the applications took part of the time: the search gets
                // what is left, and its timeout is reported from the start.
                if let Some(t) = config.limits.timeout {
                    config.limits.timeout = Some(t.saturating_sub(started.elapsed()));
                }
                let (c, s) = run(&space, &config, &mut sink);
                let s = s.map(|s| match s {
                    StopReason::Timeout(_) => StopReason::Timeout(started.elapsed()),
                    s => s,
                });
                (c, s, "graph")
            }
        };
        Ok(Report {
            counts,
            stop,
            order: config.order,
            expand,
            policy: config.policy,
            attempts,
            fallback,
            engine,
            elapsed: started.elapsed(),
        })
    }

    #[allow(clippy::type_complexity)]
    fn run_slot<M: Mask>(
        &self,
        model: &SlotModel,
        tables: &Tables<M>,
        values: &[Option<u16>],
        givens: Option<&Givens>,
        config: &Config,
        sink: &mut Option<&mut dyn FnMut(&Graph)>,
    ) -> Result<(Counts, Option<StopReason>, u32), Diagnostic> {
        let work = by_words!(tables.words, W => {
            self.start_work::<M, W>(model, tables, values, givens)
        })?;
        let policy = &config.policy;
        Ok(match config.expand {
            Expand::Focus if policy.focus.is_colouring() => {
                let conflict = self.conflict.get_or_init(|| Conflict::new(model));
                let base = &self.grammar.base;
                let mut space =
                    ColouringSpace::new(self.grammar, model, tables, conflict, base, work, policy);
                // Only a linear run with random values can end differently next time.
                let attempts = match (config.order, policy.value) {
                    (Order::Linear, ValueOrder::Random) => policy.restarts,
                    _ => 1,
                };
                explore_restarts(attempts, config, |i, config| {
                    space.reseed(policy.seed, i);
                    run(&space, config, sink)
                })
            }
            Expand::Focus => {
                let (counts, stop) = by_words!(tables.words, W => {
                    self.run_focus::<M, W>(model, tables, work, config, sink)
                });
                (counts, stop, 1)
            }
            Expand::All => {
                let space = FullSpace::new(self.grammar, model, tables, &self.grammar.base, work);
                let (counts, stop) = run(&space, config, sink);
                (counts, stop, 1)
            }
        })
    }

    /// The focus search with `W` words per slot bitset (see [`DYN`]): the search's loops
    /// over words unroll for the common small grids.
    fn run_focus<M: Mask, const W: usize>(
        &self,
        model: &SlotModel,
        tables: &Tables<M>,
        work: Work<M>,
        config: &Config,
        sink: &mut Option<&mut dyn FnMut(&Graph)>,
    ) -> (Counts, Option<StopReason>) {
        let base = &self.grammar.base;
        let space = FocusSpace::<M, W>::new(self.grammar, model, tables, base, work);
        run(&space, config, sink)
    }

    /// Places the start graph's slot values, reporting the first that clashes with an
    /// earlier one.
    /// Every slot's start value: the base graph's, with the givens placed. Read straight
    /// from the givens where they only fill slots; through the start graph otherwise.
    fn slot_start_values(&self, model: &SlotModel, givens: Option<&Givens>) -> Vec<Option<u16>> {
        let Some(givens) = givens else {
            return self.base_values.clone();
        };
        match &self.cell_slots {
            Some(cells) => {
                let mut values = self.base_values.clone();
                for (&s, &v) in cells.iter().zip(&givens.values) {
                    if v.is_some() {
                        values[s as usize] = v;
                    }
                }
                values
            }
            None => slot::compile::slot_values(
                &self.grammar.types,
                model,
                &self.start_graph(Some(givens)),
            ),
        }
    }

    /// Places the start values on their own, only to report the first clash.
    fn clash_free<M: Mask>(
        &self,
        model: &SlotModel,
        tables: &Tables<M>,
        values: &[Option<u16>],
        givens: Option<&Givens>,
    ) -> Result<(), Diagnostic> {
        self.start_work::<M, DYN>(model, tables, values, givens)
            .map(drop)
    }

    fn start_work<M: Mask, const W: usize>(
        &self,
        model: &SlotModel,
        tables: &Tables<M>,
        values: &[Option<u16>],
        givens: Option<&Givens>,
    ) -> Result<Work<M>, Diagnostic> {
        let mut work = tables.empty();
        let mut placed: Vec<usize> = Vec::new();
        for (s, v) in values.iter().enumerate() {
            let Some(y) = *v else { continue };
            if tables.blocked(&work, s, u32::from(y)) {
                return Err(self.clash(model, tables, values, &placed, s, y, givens));
            }
            tables.place_unchecked::<W>(&mut work, s, u32::from(y));
            placed.push(s);
        }
        Ok(work)
    }

    #[allow(clippy::too_many_arguments)]
    fn clash<M: Mask>(
        &self,
        model: &SlotModel,
        tables: &Tables<M>,
        values: &[Option<u16>],
        placed: &[usize],
        s: usize,
        y: u16,
        givens: Option<&Givens>,
    ) -> Diagnostic {
        let g = self.grammar;
        let cell_name = |s: usize| {
            let n = model.slots[s].0;
            g.names
                .get(n.index())
                .cloned()
                .unwrap_or_else(|| format!("#{}", n.0))
        };
        let span_of = |s: usize| -> Span {
            let n = model.slots[s].0;
            g.grid
                .as_ref()
                .and_then(|grid| grid.cells.iter().position(|&c| c == n))
                .and_then(|i| givens.and_then(|gv| gv.spans.get(i).copied()))
                .unwrap_or_default()
        };
        let name = g.domain.name(y);
        let other = placed.iter().copied().find(|&t| {
            let mut w = tables.empty();
            tables.place_unchecked::<DYN>(&mut w, t, u32::from(values[t].unwrap_or(0)));
            tables.blocked(&w, s, u32::from(y))
        });
        let message = match other {
            Some(t) => format!(
                "given `{name}` at {} clashes with `{}` at {}",
                cell_name(s),
                g.domain.name(values[t].unwrap_or(0)),
                cell_name(t)
            ),
            None => format!(
                "given `{name}` at {} is not a value any rule can place there",
                cell_name(s)
            ),
        };
        Diagnostic::error(span_of(s), message)
    }
}

fn run<S>(
    space: &S,
    config: &Config,
    sink: &mut Option<&mut dyn FnMut(&Graph)>,
) -> (Counts, Option<StopReason>)
where
    S: Space + Sync,
    S::State: Send + Sync,
{
    match sink {
        Some(f) => explore_parallel(
            space,
            config,
            config.threads,
            Some(&mut |s| f(&space.to_graph(s))),
        ),
        None => explore_parallel(space, config, config.threads, None),
    }
}
