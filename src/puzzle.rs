//! Puzzle files: one start graph's givens per line, checked against a grammar's grid.
//!
//! A line gives its cells row-major in one of two forms: compact, one character per cell
//! (`1.3.`, the common form for one-character values), or separated, one blank-separated
//! word per cell (`1 . 3 10`, needed where values are longer than a character). Either
//! way `.` is an empty cell, as is `0` where 0 is not a value, and text after the cells is
//! a comment.

use crate::diag::{Diagnostic, Source, Span};
use crate::grammar::{Givens, Grammar};

/// One puzzle of a file: its number (1-based, counting puzzles, not lines) and givens.
#[derive(Clone, Debug)]
pub struct Puzzle {
    /// 1-based, counting puzzles only.
    pub number: usize,
    /// The 1-based line of the file it stands on.
    pub line: usize,
    /// One entry per grid cell.
    pub givens: Givens,
}

/// Reads every puzzle line of `source` for `grammar`'s grid. Blank lines and lines starting
/// with `#` are skipped. A line whose first word has a character per cell is compact;
/// otherwise it is separated, its first words the cells. Collects a diagnostic for every
/// bad line.
pub fn read_puzzles(grammar: &Grammar, source: &Source) -> Result<Vec<Puzzle>, Vec<Diagnostic>> {
    let Some(grid) = &grammar.grid else {
        return Err(vec![Diagnostic::error(
            Span::default(),
            format!(
                "{} has no grid, so a puzzle line has no cells to fill: expected a `grid` in the rule file",
                grammar.source.name
            ),
        )]);
    };
    let domain = &grammar.domain;
    let compact_allowed = domain.single_chars();
    let empty_zero = domain.find("0").is_none();
    let mut puzzles = Vec::new();
    let mut errors = Vec::new();
    let mut offset = 0;
    for (i, raw) in source.text.split_inclusive('\n').enumerate() {
        let line_start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let body = line.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let lead = line.len() - body.len();
        let words = words(body, line_start + lead);
        let first = words.first().map_or("", |w| w.1);
        let compact = compact_allowed && first.chars().count() == grid.len();
        let cells: Vec<(Span, &str)> = if compact {
            let at = words[0].0.start;
            first
                .char_indices()
                .map(|(j, ch)| {
                    (
                        Span::new(at + j, at + j + ch.len_utf8()),
                        &first[j..j + ch.len_utf8()],
                    )
                })
                .collect()
        } else if words.len() >= grid.len() {
            words
                .iter()
                .take(grid.len())
                .map(|&(s, w)| (s, w))
                .collect()
        } else {
            let at = line_start + lead;
            let (found, form) = if compact_allowed && first.chars().count() > 1 {
                (first.chars().count(), "one character per cell")
            } else {
                (words.len(), "one word per cell")
            };
            let hint = if compact_allowed {
                "write one character per cell (`1.3.`), or separate the cells by blanks (`1 . 3 .`)"
            } else {
                "the values are longer than one character, so separate the cells by blanks (`1 . 3 10`)"
            };
            let end = words.last().map_or(at, |w| w.0.end);
            errors.push(
                Diagnostic::error(
                    Span::new(at, end.max(at)),
                    format!(
                        "puzzle has {found} cells ({form}), expected {} (the grid is {}x{})",
                        grid.len(),
                        grid.rows,
                        grid.cols
                    ),
                )
                .with_note(hint),
            );
            continue;
        };
        let mut values = Vec::with_capacity(cells.len());
        let mut spans = Vec::with_capacity(cells.len());
        let mut bad = false;
        for (span, word) in cells {
            let v = if word == "." || (word == "0" && empty_zero) {
                None
            } else if let Some(x) = domain.find(word) {
                Some(x)
            } else {
                let what = if compact { "character" } else { "cell" };
                errors.push(Diagnostic::error(
                    span,
                    format!(
                        "unexpected {what} `{word}`: expected a value ({}) or `.`",
                        domain.describe()
                    ),
                ));
                bad = true;
                break;
            };
            values.push(v);
            spans.push(span);
        }
        if bad {
            continue;
        }
        puzzles.push(Puzzle {
            number: puzzles.len() + 1,
            line: i + 1,
            givens: Givens { values, spans },
        });
    }
    if errors.is_empty() {
        Ok(puzzles)
    } else {
        Err(errors)
    }
}
/// The blank-separated words of `text`, which starts at byte `at` of the file, with their
/// spans.
fn words(text: &str, at: usize) -> Vec<(Span, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (j, ch) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (start, ch.is_whitespace()) {
            (None, false) => start = Some(j),
            (Some(s), true) => {
                out.push((Span::new(at + s, at + j), &text[s..j]));
                start = None;
            }
            _ => {}
        }
    }
    out
}
