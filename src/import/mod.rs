//! `grafter import FORMAT IN --out DIR`: puzzles in another tool's format turned into rule
//! and puzzle files, with a manifest saying where each puzzle went.

pub mod fpuzzles;
pub mod janko;

use std::io::{self, Write};
use std::path::Path;

/// One line of `manifest.tsv`: `grafter solve DIR/RULE --puzzles DIR/PUZZLES` lists the
/// puzzle `id` as `"puzzle": line`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The puzzle's id in the input (its line number, from 1, for line-based formats).
    pub id: String,
    /// The rule file, relative to the output folder.
    pub rule: String,
    /// The puzzle file, relative to the output folder.
    pub puzzles: String,
    /// The puzzle's line among the puzzle file's puzzles, from 1 (the `"puzzle"` of
    /// `solve`'s output).
    pub line: usize,
}

/// What an importer made of one input: the files to write, one manifest entry per imported
/// puzzle, and a message per puzzle that could not be imported.
#[derive(Debug, Default)]
pub struct Imported {
    /// What the input held, for the closing line (`KillerSudoku`).
    pub kind: String,
    /// The files to write: a name relative to the output folder, and the text.
    pub files: Vec<(String, String)>,
    /// The manifest's lines, in input order.
    pub manifest: Vec<Entry>,
    /// Per puzzle not imported, `FILE: puzzle ID: error: ...`.
    pub errors: Vec<String>,
}

impl Imported {
    /// Each rule file with the puzzle file written after it, as (rule file's name, its
    /// text, the puzzles' text): what the opt-in tests over a janko dataset run.
    #[cfg(test)]
    pub(crate) fn batches(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        self.files.chunks(2).map(|pair| match pair {
            [(name, rules), (_, batch)] => (name.as_str(), rules.as_str(), batch.as_str()),
            _ => panic!("a rule file and its puzzles"),
        })
    }
}

/// Writes `DIR/manifest.tsv`: `id<TAB>rule file<TAB>puzzle file<TAB>line`, one line per
/// entry, in the entries' order. Tabs and line breaks in an id would break the format:
/// they become blanks.
pub fn write_manifest(dir: &Path, entries: &[Entry]) -> io::Result<()> {
    let mut out = io::BufWriter::new(std::fs::File::create(dir.join("manifest.tsv"))?);
    for e in entries {
        let id: String =
            e.id.chars()
                .map(|c| {
                    if matches!(c, '\t' | '\n' | '\r') {
                        ' '
                    } else {
                        c
                    }
                })
                .collect();
        writeln!(out, "{id}\t{}\t{}\t{}", e.rule, e.puzzles, e.line)?;
    }
    out.flush()
}
