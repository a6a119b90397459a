//! The integration test binary: runs `grafter` on the rule files, data and fixtures, and
//! compares with an independent checker and brute-force enumerator.

mod aggregates;
mod analysis;
mod bad_input;
mod brute;
mod canon;
mod checker;
mod cli;
mod counts;
mod diagnostics;
mod draw;
mod encodings;
mod engines;
mod fpuzzles;
mod fuzz;
mod heuristics;
mod janko;
mod json;
mod layers;
mod layout;
mod limits;
mod limits_check;
mod lines;
mod progress;
mod random_variants;
mod refusals;
mod semantics;
mod shapes;
mod solutions;
mod stops;
mod support;
mod teaching;
mod values;
mod variant;
mod watch;
