//! The slot engine as one runnable thing: a slot model with its tables, placing givens and
//! running the search the planned expansion names.

use crate::analysis::Refusal;
use std::sync::{Arc, OnceLock};

use crate::diag::{Diagnostic, Span};
use crate::grammar::puzzle::PuzzleGrammar;
use crate::grammar::{Givens, Grammar};

use super::solver::DYN;
use super::{
    compile::{compile_reusing, FixedNacs, Narrowing, PuzzleMarks, Regrouping, Removed, Retabling},
    BaseGraph, ColouringSpace, Conflict, FocusSpace, FullSpace, Mask, SlotModel, Tables, Work,
};

use crate::explore::config::{Config, Expand, Order};
use crate::explore::parallel::{explore_to_graphs, GraphSink};
use crate::explore::policy::ValueOrder;
use crate::explore::report::{Counts, StopReason};
use crate::explore::restarts::explore_restarts;

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

impl Width {
    fn of(model: &SlotModel) -> Width {
        match model.d {
            0..=16 => Width::W16(Tables::new(model)),
            17..=32 => Width::W32(Tables::new(model)),
            33..=64 => Width::W64(Tables::new(model)),
            _ => Width::W128(Tables::new(model)),
        }
    }

    /// The tables of `model`, which has `self`'s slots, values, tables and groups but hubs
    /// of its own.
    fn regrouped(&self, file: &SlotModel, model: (&SlotModel, bool)) -> Width {
        match self {
            Width::W16(t) => Width::W16(t.regrouped(file, model)),
            Width::W32(t) => Width::W32(t.regrouped(file, model)),
            Width::W64(t) => Width::W64(t.regrouped(file, model)),
            Width::W128(t) => Width::W128(t.regrouped(file, model)),
        }
    }

    /// The tables of `model`, which has `self`'s slots, values and groups but hubs of its
    /// own, and maybe tables after the file's (see [`Tables::retabled`]).
    fn retabled(&self, file: &SlotModel, model: &SlotModel) -> Width {
        match self {
            Width::W16(t) => Width::W16(t.retabled(file, model)),
            Width::W32(t) => Width::W32(t.retabled(file, model)),
            Width::W64(t) => Width::W64(t.retabled(file, model)),
            Width::W128(t) => Width::W128(t.retabled(file, model)),
        }
    }
}

/// Calls `$run` with the tables at their width.
macro_rules! by_width {
    ($width:expr, $t:ident => $run:expr) => {
        match $width {
            Width::W16($t) => $run,
            Width::W32($t) => $run,
            Width::W64($t) => $run,
            Width::W128($t) => $run,
        }
    };
}

/// How the engine of a puzzle line with layers is built from its rule file's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PuzzleLines {
    /// The file's model, less the values the line's marks rule out (see `Narrowing`).
    Narrowed,
    /// The file's model with the line's regions' hubs and groups in place of the file's
    /// own regions' (see `Regrouping`).
    Regrouped,
    /// The file's model with the hubs of the NACs the line's marks reach tabled from
    /// them (see `Retabling`).
    Retabled,
    /// A compilation of its own, replaying what no layer reaches.
    Compiled,
}

impl PuzzleLines {
    /// Its name in `grafter check --format json`.
    pub fn name(self) -> &'static str {
        match self {
            PuzzleLines::Narrowed => "narrowed",
            PuzzleLines::Regrouped => "regrouped",
            PuzzleLines::Retabled => "retabled",
            PuzzleLines::Compiled => "compiled",
        }
    }

    /// What it means, as `grafter check` says it.
    pub fn describe(self) -> &'static str {
        match self {
            PuzzleLines::Narrowed => {
                "run on this engine, less the values their marks rule out (a line that allows more is compiled)"
            }
            PuzzleLines::Regrouped => {
                "run on this engine's model, their regions' groups in place of the file's own (only the solver's tables, the contents of the groups a sum or count reads over the regions, and a `forbid` pattern's instances over the regions, built per line; a line whose regions need another value table than the file's, where the file has one, or that draws a region of a size no line grounded yet for a `forbid` pattern, is compiled)"
            }
            PuzzleLines::Retabled => {
                "run on this engine's model, the hubs of the NACs that read their marks tabled from those marks (only those hubs and the solver's tables built per line; a line whose marks make a NAC hold with its witness empty is compiled)"
            }
            PuzzleLines::Compiled => {
                "each compiled, with what no layer reaches taken from this engine"
            }
        }
    }
}

/// What one slot run found, and the attempts it took (restarts).
pub type SlotRun = (Counts, Option<StopReason>, u32);

/// A slot-filling grammar compiled once, ready to explore any number of start graphs.
/// The engine of a puzzle whose layers only narrow the values placed shares the compiled
/// parts with its rule file's engine (see `Narrowing`); one whose layers only add groups
/// to an all-different NAC takes the file's model with their hubs in place of the file's
/// own regions' (see `Regrouping`). Both hold the file's grammar with the puzzle's, to
/// be built when something reads its graph (a state written out).
pub struct SlotEngine<'g> {
    /// The rules; for a regrouped or narrowed puzzle, its rule file's grammar (the
    /// puzzle's but for the base graph, which `puzzle` builds when a state is written out).
    grammar: &'g Grammar,
    puzzle: Option<&'g PuzzleGrammar<'g>>,
    model: Arc<SlotModel>,
    width: Arc<Width>,
    /// Slot values of the base graph, before givens.
    base_values: Arc<[Option<u16>]>,
    /// The slot each grid cell's given fills, when givens only set a slot (no retyping).
    cell_slots: Option<Arc<[u32]>>,
    /// The slots' conflict graph, built the first time a colouring focus runs.
    conflict: Arc<OnceLock<Conflict>>,
    /// The tables of NACs and the instances of left sides no layer reaches, for the
    /// engines of layered puzzles.
    fixed: Arc<FixedNacs>,
    /// How layered puzzles may run on this engine's model, when they may.
    narrowing: Option<Arc<Narrowing>>,
    /// How layered puzzles may add their groups to this engine's model, when they may.
    regrouping: Option<Arc<Regrouping>>,
    /// How layered puzzles may table the NACs their marks reach on this engine's model,
    /// when they may.
    retabling: Option<Arc<Retabling>>,
    /// The values this puzzle's layers take from the model's slots, by slot: taken from
    /// the candidates before anything is placed.
    narrowed: Removed,
}

impl<'g> SlotEngine<'g> {
    /// Compiles `grammar` to slots, or says why its rules are not slot-filling.
    pub fn new(grammar: &'g Grammar) -> Result<SlotEngine<'g>, Refusal> {
        SlotEngine::compiled(grammar, None)
    }

    /// [`SlotEngine::new`] for `grammar` with a puzzle's layers added, reusing from
    /// `base` (the engine of the same rule file) the tables its layers cannot change (a
    /// puzzle whose layers only narrow the values placed, only add groups or only set
    /// marks that NACs read takes [`SlotEngine::narrowed`], [`SlotEngine::regrouped`] or
    /// [`SlotEngine::retabled`] instead).
    pub fn reusing(grammar: &'g Grammar, base: &SlotEngine<'_>) -> Result<SlotEngine<'g>, Refusal> {
        SlotEngine::compiled(grammar, Some(&base.fixed))
    }

    /// The engine of `puzzle`, a puzzle line of this engine's rule file, when its layers
    /// only narrow the values placed: this engine's model less those values (see
    /// [`Narrowing`]), read from the layers' marks; its graph is built only for marks no
    /// earlier puzzle had, or when a state is written out.
    pub fn narrowed<'p>(&self, puzzle: &'p PuzzleGrammar<'p>) -> Option<SlotEngine<'p>> {
        let narrowing = self.narrowing.as_ref()?;
        let marks = PuzzleMarks::of(puzzle, narrowing.positions())?;
        let removed = narrowing.removed(&self.model, &self.grammar.base, &marks)?;
        let shared = (
            self.model.clone(),
            self.width.clone(),
            self.conflict.clone(),
        );
        Some(self.beside(puzzle, shared, removed))
    }

    /// The engine of `puzzle`, a puzzle line of this engine's rule file, when its layers
    /// only add groups to an all-different NAC: this model with their hubs (see
    /// [`Regrouping`]), read from the layers without building the puzzle's graph.
    pub fn regrouped<'p>(&self, puzzle: &'p PuzzleGrammar<'p>) -> Option<SlotEngine<'p>> {
        let regrouping = self.regrouping.as_ref()?;
        let (model, appends) = regrouping.regrouped(&self.model, puzzle.file(), puzzle.layers())?;
        // Its layers add no slot and set no value: the slots and their start values are
        // the rule file's.
        let own = (
            Arc::new(self.width.regrouped(&self.model, (&model, appends))),
            Arc::default(),
        );
        let parts = (Arc::new(model), own.0, own.1);
        Some(self.beside(puzzle, parts, Removed::new()))
    }

    /// The engine of `puzzle`, a puzzle line of this engine's rule file, when its layers
    /// only set marks that NACs read: this model with those NACs' hubs tabled from the
    /// marks (see `Retabling`), read from the layers without building the puzzle's
    /// graph.
    pub fn retabled<'p>(&self, puzzle: &'p PuzzleGrammar<'p>) -> Option<SlotEngine<'p>> {
        let retabling = self.retabling.as_ref()?;
        let marks = PuzzleMarks::of(puzzle, retabling.positions())?;
        let model = retabling.retabled(&self.model, puzzle.file(), &marks)?;
        let width = self.width.retabled(&self.model, &model);
        let parts = (Arc::new(model), Arc::new(width), Arc::default());
        Some(self.beside(puzzle, parts, Removed::new()))
    }

    /// The grammar whose base graph states are written into: the puzzle's, built now if
    /// it is not yet.
    fn written_grammar(&self) -> &'g Grammar {
        self.puzzle.map_or(self.grammar, |p| p.get())
    }

    /// The engine of `puzzle`, of this engine's rule file, with the same slots and start
    /// values: `model`, its tables and conflict graph, and `narrowed` taken from the
    /// candidates.
    fn beside<'p>(
        &self,
        puzzle: &'p PuzzleGrammar<'p>,
        (model, width, conflict): (Arc<SlotModel>, Arc<Width>, Arc<OnceLock<Conflict>>),
        narrowed: Removed,
    ) -> SlotEngine<'p> {
        SlotEngine {
            grammar: puzzle.file(),
            puzzle: Some(puzzle),
            model,
            width,
            base_values: self.base_values.clone(),
            cell_slots: self.cell_slots.clone(),
            conflict,
            fixed: self.fixed.clone(),
            // Only a rule file's own engine shares its model with puzzles.
            narrowing: None,
            regrouping: None,
            retabling: None,
            narrowed,
        }
    }

    fn compiled(
        grammar: &'g Grammar,
        reuse: Option<&FixedNacs>,
    ) -> Result<SlotEngine<'g>, Refusal> {
        let (model, fixed) = compile_reusing(grammar, reuse)?;
        let width = Width::of(&model);
        let base_values = super::compile::slot_values(&grammar.types, &model, &grammar.base);
        let cell_slots = grammar.grid.as_ref().and_then(|grid| {
            if grid.given_type.is_some() {
                return None;
            }
            grid.cells
                .iter()
                .map(|&c| model.slot_of.get(&(c, grid.value_attr)).copied())
                .collect::<Option<Arc<[u32]>>>()
        });
        // Only the rule file's own engine: a layered puzzle's model holds its layers.
        let narrowing = reuse
            .is_none()
            .then(|| Narrowing::of(grammar, &model))
            .flatten()
            .map(Arc::new);
        let regrouping = reuse
            .is_none()
            .then(|| Regrouping::of(grammar, &model, &fixed))
            .flatten()
            .map(Arc::new);
        let retabling = reuse
            .is_none()
            .then(|| Retabling::of(grammar, &model, &fixed))
            .flatten()
            .map(Arc::new);
        Ok(SlotEngine {
            grammar,
            puzzle: None,
            model: Arc::new(model),
            width: Arc::new(width),
            base_values: base_values.into(),
            cell_slots,
            conflict: Arc::default(),
            fixed: Arc::new(fixed),
            narrowing,
            regrouping,
            retabling,
            narrowed: Removed::new(),
        })
    }

    pub fn model(&self) -> &SlotModel {
        &self.model
    }

    /// How a puzzle line's layers are built into its engine; `None` for a file without
    /// layers.
    pub fn puzzle_lines(&self) -> Option<PuzzleLines> {
        if self.grammar.layers.is_empty() {
            return None;
        }
        Some(match (&self.narrowing, &self.regrouping, &self.retabling) {
            (Some(_), _, _) => PuzzleLines::Narrowed,
            (None, Some(_), _) => PuzzleLines::Regrouped,
            (None, None, Some(_)) => PuzzleLines::Retabled,
            (None, None, None) => PuzzleLines::Compiled,
        })
    }

    /// Checks that `givens` (already defaulted to the file's `start` block) do not clash:
    /// no given is blocked by another.
    pub fn check_givens(&self, givens: Option<&Givens>) -> Result<(), Diagnostic> {
        let values = self.start_values(givens);
        by_width!(&*self.width, t => self.clash_free(t, &values, givens))
    }

    /// Explores from `givens` (already defaulted to the file's `start` block) with the
    /// expansion `config` names, which the plan has already made sound.
    pub fn solve(
        &self,
        givens: Option<&Givens>,
        config: &Config,
        sink: &mut GraphSink<'_>,
    ) -> Result<SlotRun, Diagnostic> {
        let values = self.start_values(givens);
        by_width!(&*self.width, t => self.run(t, &values, givens, config, sink))
    }

    fn run<M: Mask>(
        &self,
        tables: &Tables<M>,
        values: &[Option<u16>],
        givens: Option<&Givens>,
        config: &Config,
        sink: &mut GraphSink<'_>,
    ) -> Result<SlotRun, Diagnostic> {
        let work = by_words!(tables.words, W => {
            self.start_work::<M, W>(tables, values, givens)
        })?;
        let base = match self.puzzle {
            Some(p) => BaseGraph::Puzzle(p),
            None => BaseGraph::Built(&self.grammar.base),
        };
        // `forbid` instances are matched on the puzzle's graph: a narrowed puzzle keeps its
        // file's (a regrouped model has none).
        let grammar = match &self.model.forbids {
            Some(_) => self.written_grammar(),
            None => self.grammar,
        };
        let model = &self.model;
        let policy = &config.policy;
        Ok(match config.expand {
            Expand::Focus if policy.focus.is_colouring() => {
                let conflict = self.conflict.get_or_init(|| Conflict::new(model));
                let mut space =
                    ColouringSpace::new(grammar, model, tables, conflict, base, work, policy);
                // Only a linear run with random values can end differently next time.
                let attempts = match (config.order, policy.value) {
                    (Order::Linear, ValueOrder::Random) => policy.restarts,
                    _ => 1,
                };
                explore_restarts(attempts, config, |i, config| {
                    space.reseed(policy.seed, i);
                    explore_to_graphs(&space, config, sink)
                })
            }
            Expand::Focus => {
                let (counts, stop) = by_words!(tables.words, W => {
                    let space = FocusSpace::<M, W>::new(grammar, model, tables, base, work);
                    explore_to_graphs(&space, config, sink)
                });
                (counts, stop, 1)
            }
            Expand::All => {
                let space = FullSpace::new(grammar, model, tables, base, work);
                let (counts, stop) = explore_to_graphs(&space, config, sink);
                (counts, stop, 1)
            }
        })
    }

    /// Every slot's start value: the base graph's, with the givens placed. Read straight
    /// from the givens where they only fill slots; through the start graph otherwise.
    fn start_values(&self, givens: Option<&Givens>) -> Vec<Option<u16>> {
        let Some(givens) = givens else {
            return self.base_values.to_vec();
        };
        match &self.cell_slots {
            Some(cells) => {
                let mut values = self.base_values.to_vec();
                for (&s, &v) in cells.iter().zip(&givens.values) {
                    if v.is_some() {
                        values[s as usize] = v;
                    }
                }
                values
            }
            None => super::compile::slot_values(
                &self.grammar.types,
                &self.model,
                &self.written_grammar().start_graph(Some(givens)),
            ),
        }
    }

    /// Places the start values on their own, only to report the first clash.
    fn clash_free<M: Mask>(
        &self,
        tables: &Tables<M>,
        values: &[Option<u16>],
        givens: Option<&Givens>,
    ) -> Result<(), Diagnostic> {
        self.start_work::<M, DYN>(tables, values, givens).map(drop)
    }

    /// Places the start values, reporting the first that clashes with an earlier one.
    fn start_work<M: Mask, const W: usize>(
        &self,
        tables: &Tables<M>,
        values: &[Option<u16>],
        givens: Option<&Givens>,
    ) -> Result<Work<M>, Diagnostic> {
        let mut work = tables.empty();
        // Every slot and value is still to be looked at, so taking values from the
        // candidates here is as if the model had never allowed them.
        for &(s, mut xs) in &self.narrowed {
            while xs != 0 {
                tables.exclude::<W>(&mut work, s as usize, xs.trailing_zeros());
                xs &= xs - 1;
            }
        }
        for (s, v) in values.iter().enumerate() {
            let Some(y) = *v else { continue };
            // Before any propagation a value stays on an empty slot's board exactly while
            // no placed value blocks it: `place` reads one bit where `blocked` reads hubs.
            debug_assert_eq!(
                tables.cand::<W>(&work, s) & M::bit(u32::from(y)) == M::ZERO,
                self.blocked_at_start(tables, &work, s, y)
            );
            if !tables.place::<W>(&mut work, s, u32::from(y)) {
                return Err(self.clash(tables, values, s, y, givens));
            }
        }
        tables.settle_full_groups(&mut work);
        Ok(work)
    }

    /// True when no rule may place `y` in `s` in this puzzle, or a value placed in `w`
    /// blocks it.
    fn blocked_at_start<M: Mask>(&self, tables: &Tables<M>, w: &Work<M>, s: usize, y: u16) -> bool {
        !self.placeable(tables, s, y) || tables.blocked(w, s, u32::from(y))
    }

    /// True when some rule may place `y` in `s` in this puzzle.
    fn placeable<M: Mask>(&self, tables: &Tables<M>, s: usize, y: u16) -> bool {
        let narrowed = self
            .narrowed
            .binary_search_by_key(&(s as u32), |&(t, _)| t)
            .is_ok_and(|i| self.narrowed[i].1 >> y & 1 == 1);
        !narrowed && tables.allowed[s] & M::bit(u32::from(y)) != M::ZERO
    }

    /// The diagnostic for given `y` at slot `s`, blocked by one of the slots placed before it (or
    /// by no rule allowing it there at all).
    fn clash<M: Mask>(
        &self,
        tables: &Tables<M>,
        values: &[Option<u16>],
        s: usize,
        y: u16,
        givens: Option<&Givens>,
    ) -> Diagnostic {
        let (g, model) = (self.grammar, &self.model);
        let cell_name = |s: usize| {
            let n = model.slots[s].0;
            g.names
                .get(n.index())
                .map(str::to_owned)
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
        // The slots placed before `s`, listed only here: a start without a clash keeps no list.
        let mut placed = (0..s).filter(|&t| values[t].is_some());
        let other = self
            .placeable(tables, s, y)
            .then(|| {
                placed.find(|&t| {
                    let mut w = tables.empty();
                    tables.place_unchecked::<DYN>(&mut w, t, u32::from(values[t].unwrap_or(0)));
                    tables.blocked(&w, s, u32::from(y))
                })
            })
            .flatten();
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
        let d = Diagnostic::error(span_of(s), message);
        match other {
            // The other given's place in the same text, when it has one.
            Some(t) if span_of(t) != Span::default() => {
                d.with_label(span_of(t), "the given it clashes with")
            }
            _ => d,
        }
    }
}
