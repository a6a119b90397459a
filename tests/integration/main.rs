//! The integration test binary: runs `grafter` on the rule files, data and fixtures, and
//! compares with an independent checker and brute-force enumerator.

mod bad_input;
mod brute;
mod checker;
mod counts;
mod diagnostics;
mod encodings;
mod engines;
mod heuristics;
mod limits_check;
mod random_variants;
mod semantics;
mod solutions;
mod support;
mod variant;
mod watch;
