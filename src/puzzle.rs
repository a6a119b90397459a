//! Puzzle files: one start graph's givens per line, checked against a grammar's grid.

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
/// with `#` are skipped; text after the first blank is a comment. Collects a diagnostic for
/// every bad line.
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
    if !domain.single_chars() {
        return Err(vec![Diagnostic::error(
            Span::default(),
            format!(
                "the values ({}) are not all single characters, so a puzzle line cannot give one character per cell",
                domain.describe()
            ),
        )]);
    }
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
        let cells_text = body.split_whitespace().next().unwrap_or("");
        let mut values = Vec::new();
        let mut spans = Vec::new();
        let mut bad = false;
        for (j, ch) in cells_text.char_indices() {
            let at = line_start + lead + j;
            let span = Span::new(at, at + ch.len_utf8());
            let v = if ch == '.' || (ch == '0' && empty_zero) {
                None
            } else if let Some(x) = domain.from_char(ch) {
                Some(x)
            } else {
                errors.push(Diagnostic::error(
                    span,
                    format!(
                        "unexpected character `{ch}`: expected a value ({}) or `.`",
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
        if values.len() != grid.len() {
            let at = line_start + lead;
            errors.push(Diagnostic::error(
                Span::new(at, at + cells_text.len()),
                format!(
                    "puzzle has {} cells, expected {} (the grid is {}x{})",
                    values.len(),
                    grid.len(),
                    grid.rows,
                    grid.cols
                ),
            ));
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
