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
#[cfg(feature = "distributed")]
mod distributed;
mod draw;
mod encodings;
mod engines;
mod final_bounds;
mod forbid;
mod fpuzzles;
mod fuzz;
mod heuristics;
mod janko;
mod json;
mod layers;
mod layout;
mod library;
mod limits;
mod limits_check;
mod lines;
mod playground;
mod progress;
mod random_variants;
mod refusals;
mod semantics;
mod serve;
mod shapes;
mod solutions;
mod stops;
mod support;
mod teaching;
mod values;
mod variant;
mod watch;
