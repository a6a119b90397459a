//! The integration test binary: runs `grafter` on the rule files, data and fixtures, and
//! compares with an independent checker and brute-force enumerator.

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
mod encodings;
mod engines;
mod fuzz;
mod heuristics;
mod layout;
mod limits;
mod limits_check;
mod random_variants;
mod refusals;
mod semantics;
mod solutions;
mod stops;
mod support;
mod values;
mod variant;
mod watch;
