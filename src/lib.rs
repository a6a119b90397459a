//! grafter: a graph-rewriting rule engine. A rule file describes typed nodes and edges, a
//! start graph, rules with negative application conditions (NACs) and a final condition;
//! grafter explores the state space the rules span and lists every final state.
//!
//! The pipeline: [`syntax`] parses text into a spanned AST, [`check`] resolves names,
//! expands generators and type-checks into a [`Grammar`], [`explore`] runs the state space
//! and [`output`] prints what it found.
//!
//! ```
//! use grafter::engine::Engine;
//! use grafter::explore::Config;
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
//! Many puzzles are scheduled over threads as the command line does with
//! [`explore::run_batch`].

#![forbid(unsafe_code)]

pub mod analysis;
pub mod check;
pub mod diag;
pub mod engine;
pub mod explore;
pub mod grammar;
pub mod graph;
pub mod matcher;
pub mod model;
pub mod output;
pub mod puzzle;
pub mod rule;
pub mod slot;
pub mod syntax;

pub use diag::{Diagnostic, Diagnostics, Source, Span};
pub use grammar::{Givens, Grammar, Grid};

/// Parses and checks a rule file's text. `name` is used in diagnostics.
pub fn load_str(name: &str, text: &str) -> Result<Grammar, Diagnostics> {
    check::check(Source::new(name, text))
}
