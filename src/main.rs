//! The `grafter` command line.
fn main() {}
