//! The integration test binary: runs `grafter` on the rule files, data and fixtures, and
//! compares with an independent checker and brute-force enumerator.

mod brute;
mod checker;
mod support;
mod variant;
