//! `grafter import janko`: a janko.at dataset file (`{"name", "data": {id: {"problem"}}}`, one
//! of twenty kinds) turned into rule files, puzzle files and a manifest.
//!
//! Puzzles whose rules are the same (one kind and size; one shape for kakuro) share a rule
//! file `NAME.graft`, written from a library file of `rules/` (`template`), and a puzzle
//! file `NAME.txt` with a line per puzzle: its givens, then its layers (`kinds`).

mod dataset;
mod kinds;
mod template;

use std::collections::HashMap;

use super::{Entry, Imported};
use dataset::Problem;
pub use kinds::KINDS;
use template::Header;

/// The janko dataset of `kind` imported, for the opt-in tests that read it from
/// `../shared/data/janko` (or `$GRAFTER_DATA/janko`): `None`, said, where it is not there.
#[cfg(test)]
pub(crate) fn imported_for_tests(kind: &str) -> Option<Imported> {
    let data = std::env::var_os("GRAFTER_DATA").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
        std::path::PathBuf::from,
    );
    let path = data.join("janko").join(format!("{kind}.json"));
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!(
            "skipped: {} is not there (set GRAFTER_DATA)",
            path.display()
        );
        return None;
    };
    Some(import(&format!("{kind}.json"), &text).expect("the dataset reads"))
}

/// Imports the dataset file `name`, whose text is `text`. Only a file that cannot be read
/// as a dataset at all is an `Err`; a puzzle that cannot be converted is reported in
/// [`Imported::errors`] as `FILE: puzzle ID: error: ...`.
pub fn import(name: &str, text: &str) -> Result<Imported, String> {
    let data = dataset::read(name, text)?;
    let shown = name;
    if !kinds::KINDS.contains(&data.kind.as_str()) {
        return Err(format!(
            "{shown}: error: unknown kind `{}` (the file's \"name\", or its file name); \
             expected one of {}",
            data.kind,
            kinds::KINDS.join(", ")
        ));
    }
    // Each rule file: its name, its text, its puzzle lines.
    struct File {
        name: String,
        rules: String,
        lines: Vec<String>,
    }
    let mut files: Vec<File> = Vec::new();
    let mut by_rules: HashMap<(String, Header), usize> = HashMap::new();
    let mut taken: HashMap<String, usize> = HashMap::new();
    let mut manifest = Vec::new();
    let mut errors = Vec::new();
    for (id, problem) in &data.puzzles {
        let converted = problem
            .clone()
            .and_then(|text| Problem::parse(&text))
            .and_then(|mut p| kinds::convert(&data.kind, &mut p));
        let c = match converted {
            Ok(c) => c,
            Err(e) => {
                errors.push(format!("{shown}: puzzle {id}: error: {e}"));
                continue;
            }
        };
        let key = (c.rules.clone(), c.header.clone());
        let at = *by_rules.entry(key).or_insert_with(|| {
            // Another file of the same name (a kakuro of another shape): number it.
            let n = taken.entry(c.rules.clone()).or_insert(0);
            *n += 1;
            let name = if *n == 1 {
                c.rules.clone()
            } else {
                format!("{}-{}", c.rules, n)
            };
            files.push(File {
                name,
                rules: template::instantiate(c.library, &c.header),
                lines: Vec::new(),
            });
            files.len() - 1
        });
        let file = &mut files[at];
        file.lines.push(format!("{}   # {id}", c.line));
        manifest.push(Entry {
            id: id.clone(),
            rule: format!("{}.graft", file.name),
            puzzles: format!("{}.txt", file.name),
            line: file.lines.len(),
        });
    }
    let mut out = Vec::new();
    for f in files {
        out.push((format!("{}.graft", f.name), f.rules));
        let mut text = format!(
            "# {} puzzles of {}: one a line, the givens then the layers; the ids after `#`.\n",
            data.kind, shown
        );
        for l in &f.lines {
            text += l;
            text.push('\n');
        }
        out.push((format!("{}.txt", f.name), text));
    }
    Ok(Imported {
        kind: data.kind,
        files: out,
        manifest,
        errors,
    })
}
