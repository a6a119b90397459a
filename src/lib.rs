//! grafter: a graph-rewriting rule engine. A rule file describes typed nodes and edges, a
//! start graph, rules with negative application conditions (NACs) and a final condition;
//! grafter explores the state space the rules span and lists every final state.
//!
//! The pipeline: [`syntax`] parses text into a spanned AST, [`check`] resolves names,
//! expands generators and type-checks into a [`Grammar`], [`explore`] runs the state space
//! and [`output`] prints what it found.

#![forbid(unsafe_code)]

pub mod check;
pub mod diag;
pub mod explore;
pub mod grammar;
pub mod matcher;
pub mod output;
pub mod puzzle;
pub mod model;
pub mod rule;
pub mod slot;
pub mod syntax;

pub use diag::{Diagnostic, Diagnostics, Source, Span};
pub use grammar::{Givens, Grammar, Grid};

/// Parses and checks a rule file's text. `name` is used in diagnostics.
pub fn load_str(name: &str, text: &str) -> Result<Grammar, Diagnostics> {
    check::check(Source::new(name, text))
}
