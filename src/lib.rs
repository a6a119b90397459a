//! grafter: a graph-rewriting rule engine. A rule file describes typed nodes and edges, a
//! start graph, rules with negative application conditions (NACs) and a final condition;
//! grafter explores the state space the rules span and lists every final state.
//!
//! The pipeline: [`load`] parses a rule file and checks it into a [`Grammar`];
//! [`Engine::new`] compiles the grammar once (packed slots where the rules allow, whole
//! graphs otherwise); [`Engine::solve`] explores the state space from one start graph under
//! a [`Config`] and returns a [`Report`]; [`run_batch`] schedules many puzzles over threads
//! as the command line does; [`output`] prints what was found.
//!
//! ```
//! use grafter::{Config, Engine};
//!
//! let grammar = grafter::load_str("latin.graft", r#"
//!     values 1..3
//!     node Cell { row: int, col: int, val: value? }
//!     node Group
//!     edge in: Cell -> Group
//!     grid 3x3 of Cell
//!     groups rows, columns
//!     rule place(v: value) {
//!       c: Cell { val == none }
//!       not { c -in-> g: Group <-in- d: Cell { val == v } }
//!       set c.val = v
//!     }
//!     final: not { c: Cell { val == none } }
//! "#).unwrap();
//! let report = Engine::new(&grammar).solve(None, &Config::default(), None).unwrap();
//! assert_eq!(report.counts.solutions, 12); // the 3x3 Latin squares
//!
//! // A configuration is built from documented defaults; a report prints as the command
//! // line's summary.
//! let config = Config::default().with_max_solutions(5);
//! let report = Engine::new(&grammar).solve(None, &config, None).unwrap();
//! assert!(report.to_string().ends_with("complete: no, stopped after 5 solutions (--max-solutions)\n"));
//! ```
//!
//! Many puzzles are scheduled over threads as the command line does with [`run_batch`]. A
//! puzzle line may carry layers (its own regions, marks, cages, lines: [`read_puzzles`]),
//! which give it a start graph of its own: [`Engine::with_layers`] runs it on an engine
//! compiled for [`Grammar::with_layers`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The modules are private: a program uses the flat API below, so the layout inside can
// change without breaking it.
mod analysis;
mod check;
mod diag;
// The spreads are compiled for the unit tests too, which run them over a local exchange;
// only the joining over TCP (timely) needs the feature.
#[cfg(any(feature = "distributed", test))]
pub mod distributed;
mod engine;
mod explore;
mod grammar;
mod graph;
pub mod import;
mod layer;
mod matcher;
mod model;
pub mod output;
pub mod picture;
mod puzzle;
mod rule;
mod slot;
mod syntax;
#[cfg(test)]
mod test_grammars;

pub use analysis::{analyse, Facts, Refusal, RefusalKind};
pub use check::print_expanded;
pub use diag::{escape, Diagnostic, Diagnostics, Source, Span};
pub use engine::heuristics::{self, Heuristic, Tally};
pub use engine::{Engine, Plan};
pub use explore::memory::{default_max_memory, default_max_memory_of, parse_size};
pub use explore::{
    chunk_size, explore, ordered_jobs, resolve_threads, run_batch, Config, Counts, EngineChoice,
    Event, Expand, Focus, Limits, Order, Policy, Progress, Report, Space, StopReason, ValueOrder,
};
pub use grammar::{Givens, Grammar, Grid};
pub use graph::GraphSpace;
pub use layer::{Content, Layer, LayerKind, Layers};
pub use model::Graph;
pub use puzzle::{read_puzzles, Puzzle};
pub use slot::engine::PuzzleLines;

/// Parses and checks a rule file: the spanned AST is resolved, generators expanded and
/// types checked into a [`Grammar`], or every error found is returned.
pub fn load(source: Source) -> Result<Grammar, Diagnostics> {
    check::check(source)
}

/// Parses and checks a rule file's text. `name` is used in diagnostics.
pub fn load_str(name: &str, text: &str) -> Result<Grammar, Diagnostics> {
    load(Source::new(name, text))
}
