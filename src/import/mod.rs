//! `grafter import FORMAT IN --out DIR`: puzzles in other formats turned into rule files,
//! puzzle files and a manifest that says which command solves each puzzle.

mod janko;

use std::fmt::Write as _;
use std::path::Path;

use crate::args::{ImportArgs, ImportFormat};

/// The exit status when some puzzles could not be imported (the others were).
const SOME_FAILED: u8 = 1;

/// Runs the subcommand: every puzzle it can read is written to `--out`, each one it cannot
/// is reported on stderr, and the exit status says whether any failed. `Err` is a failure
/// of the whole input (unreadable, not the format) or of the output directory.
pub fn run(args: &ImportArgs) -> Result<u8, String> {
    let imported = match args.format {
        ImportFormat::Janko => janko::import(&args.input)?,
    };
    std::fs::create_dir_all(&args.out).map_err(|e| {
        format!(
            "{}: error: cannot create the directory: {e}",
            args.out.display()
        )
    })?;
    for (name, text) in &imported.files {
        let path = args.out.join(name);
        std::fs::write(&path, text)
            .map_err(|e| format!("{}: error: cannot write: {e}", path.display()))?;
    }
    write_manifest(&args.out, &imported.manifest)?;
    for e in &imported.errors {
        eprintln!("{e}");
    }
    eprintln!(
        "imported {} of {} puzzles of {} into {} ({} rule files)",
        imported.manifest.len(),
        imported.manifest.len() + imported.errors.len(),
        imported.kind,
        args.out.display(),
        imported
            .files
            .iter()
            .filter(|(n, _)| n.ends_with(".graft"))
            .count(),
    );
    Ok(if imported.errors.is_empty() {
        0
    } else {
        SOME_FAILED
    })
}

/// What an importer made of one input: the files to write (name relative to the output
/// directory, text), one manifest entry per imported puzzle, and a message per puzzle that
/// could not be imported.
pub struct Imported {
    /// What the input held, for the closing line (`KillerSudoku`).
    pub kind: String,
    pub files: Vec<(String, String)>,
    pub manifest: Vec<Entry>,
    pub errors: Vec<String>,
}

/// One line of `manifest.tsv`: `grafter solve DIR/RULES --puzzles DIR/PUZZLES` lists the
/// puzzle `id` as `"puzzle": line`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    /// The rule file, relative to the output directory.
    pub rules: String,
    /// The puzzle file, relative to the output directory.
    pub puzzles: String,
    /// The puzzle's line among the puzzle file's puzzles, from 1.
    pub line: usize,
}

/// Writes `DIR/manifest.tsv`: `id<TAB>rule file<TAB>puzzle file<TAB>line`, a line per
/// entry, in the entries' order. Tabs and line breaks in an id would break the format:
/// they become blanks.
pub fn write_manifest(dir: &Path, entries: &[Entry]) -> Result<(), String> {
    let mut text = String::new();
    for e in entries {
        let id: String =
            e.id.chars()
                .map(|c| {
                    if c == '\t' || c == '\n' || c == '\r' {
                        ' '
                    } else {
                        c
                    }
                })
                .collect();
        let _ = writeln!(text, "{id}\t{}\t{}\t{}", e.rules, e.puzzles, e.line);
    }
    let path = dir.join("manifest.tsv");
    std::fs::write(&path, text).map_err(|e| format!("{}: error: cannot write: {e}", path.display()))
}
