//! f-puzzles import: a file with one puzzle a line (an f-puzzles string, a link, or JSON)
//! to rule files from the constraint library, puzzle files with one line per puzzle and
//! its layers, and the manifest.

mod cells;
mod decode;
pub mod families;
mod lower;
mod model;
mod write;

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::Path;

use super::Entry;

/// What an import made and what it met.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The manifest's lines, in input order.
    pub entries: Vec<Entry>,
    /// Per bad line, `FILE:LINE: error: ...`.
    pub errors: Vec<String>,
    /// The cosmetic keys met, each once.
    pub ignored: BTreeSet<String>,
}

/// One puzzle turned into a rule file's text and a puzzle line.
#[derive(Debug)]
pub struct Converted {
    /// The rule file's text.
    pub rule: String,
    /// A name for it, without `.graft`.
    pub stem: String,
    /// The puzzle line.
    pub line: String,
    /// Cosmetic keys it had.
    pub ignored: BTreeSet<String>,
}

/// Converts one line of an f-puzzles file; an error says what was wrong.
pub fn convert(line: &str) -> Result<Converted, String> {
    let json = decode::to_json(line)?;
    let doc: model::Document = serde_json::from_str(&json)
        .map_err(|e| format!("the puzzle is not f-puzzles JSON: {e}"))?;
    let lowered = lower::lower(&doc)?;
    Ok(Converted {
        rule: write::rule_file(&lowered),
        stem: write::stem(&lowered),
        line: write::puzzle_line(&lowered),
        ignored: lowered.ignored,
    })
}

/// Imports every puzzle of `text` (read from `name`) into `out`: a rule file per set of
/// families, a puzzle file beside each, and `manifest.tsv`. Bad lines are reported and
/// skipped; the rest still import.
pub fn import(name: &str, text: &str, out: &Path) -> io::Result<Outcome> {
    std::fs::create_dir_all(out)?;
    let mut outcome = Outcome::default();
    // Rule text -> (file stem, puzzle lines).
    let mut files: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
    let mut stems: BTreeSet<String> = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match convert(trimmed) {
            Ok(c) => {
                outcome.ignored.extend(c.ignored);
                let (stem, lines) = files.entry(c.rule).or_insert_with(|| {
                    let mut stem = c.stem.clone();
                    let mut k = 2;
                    while stems.contains(&stem) {
                        stem = format!("{}-{k}", c.stem);
                        k += 1;
                    }
                    stems.insert(stem.clone());
                    (stem, Vec::new())
                });
                lines.push(format!("{}    # line {number}", c.line));
                outcome.entries.push(Entry {
                    id: number.to_string(),
                    rule: format!("{stem}.graft"),
                    puzzles: format!("{stem}.txt"),
                    line: lines.len(),
                });
            }
            Err(e) => outcome
                .errors
                .push(format!("{name}:{number}: error: puzzle {number}: {e}")),
        }
    }
    for (rule, (stem, lines)) in &files {
        std::fs::write(out.join(format!("{stem}.graft")), rule)?;
        let mut text = lines.join("\n");
        text.push('\n');
        std::fs::write(out.join(format!("{stem}.txt")), text)?;
    }
    super::write_manifest(out, &outcome.entries)?;
    Ok(outcome)
}
