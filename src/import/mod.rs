//! `grafter import FORMAT IN --out DIR`: puzzles in another tool's format turned into rule
//! and puzzle files, with a manifest saying where each puzzle went.

pub mod fpuzzles;

use std::io::{self, Write};
use std::path::Path;

/// One line of `manifest.tsv`: an input puzzle and where it went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The puzzle's id in the input (its line number, from 1, for line-based formats).
    pub id: String,
    /// The rule file, relative to the output folder.
    pub rule: String,
    /// The puzzle file, relative to the output folder.
    pub puzzles: String,
    /// The puzzle's line in the puzzle file, from 1 (the `"puzzle"` of `solve`'s output).
    pub line: usize,
}

/// Writes `DIR/manifest.tsv`: `id<TAB>rule file<TAB>puzzle file<TAB>line`, one line per
/// puzzle, in input order.
pub fn write_manifest(dir: &Path, entries: &[Entry]) -> io::Result<()> {
    let mut out = io::BufWriter::new(std::fs::File::create(dir.join("manifest.tsv"))?);
    for e in entries {
        writeln!(out, "{}\t{}\t{}\t{}", e.id, e.rule, e.puzzles, e.line)?;
    }
    out.flush()
}
