//! Puzzle files: one start graph's givens per line, and its layers, checked against a
//! grammar's grid and layer declarations.
//!
//! A line gives its cells row-major in one of two forms: compact, one character per cell
//! (`1.3.`, the common form for one-character values), or separated, one blank-separated
//! word per cell (`1 . 3 10`, needed where values are longer than a character). Either
//! way `.` is an empty cell, as is `0` where 0 is not a value, and text after the cells is
//! a comment. A shaped grid takes a token per position, holes included (any token, `.` or
//! `-` by convention, stands at a hole and is ignored), so a line reads like its layout.
//!
//! A line with `|` has sections: the givens, then `NAME: TOKENS` for each layer it carries
//! (`..3. | cages: AABB.. | sums: 10 . . 7 ..`), each compact or separated; a comment then
//! starts with `#`.

pub(crate) mod sections;
#[cfg(test)]
mod tests;

use crate::diag::{Diagnostic, Source, Span};
use crate::grammar::{Givens, Grammar, Grid};
use crate::layer::Layers;
use sections::{words, Reader, Section};

/// One puzzle of a file: its number (1-based, counting puzzles, not lines), givens and
/// layers.
#[derive(Clone, Debug)]
pub struct Puzzle {
    /// 1-based, counting puzzles only.
    pub number: usize,
    /// The 1-based line of the file it stands on.
    pub line: usize,
    /// One entry per grid cell.
    pub givens: Givens,
    /// What the line gives each declared layer (empty without sections).
    pub layers: Layers,
}

/// Reads every puzzle line of `source` for `grammar`'s grid and layers. Blank lines and
/// lines starting with `#` are skipped. Collects a diagnostic for every bad line.
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
    let reader = Reader::new(grammar);
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
        let at = line_start + line.len() - body.len();
        let before_comment = body.find('#').map_or(body, |c| &body[..c]);
        let read = if before_comment.contains('|') {
            read_sections(grammar, grid, &reader, body, at)
        } else {
            read_givens(grammar, grid, body, at, false).map(|givens| (givens, Layers::default()))
        };
        match read {
            Ok((givens, mut layers)) => {
                layers.sections.resize(grammar.layers.len(), None);
                puzzles.push(Puzzle {
                    number: puzzles.len() + 1,
                    line: i + 1,
                    givens,
                    layers,
                });
            }
            Err(mut found) => errors.append(&mut found),
        }
    }
    if errors.is_empty() {
        Ok(puzzles)
    } else {
        Err(errors)
    }
}

/// A line with sections: `GIVENS | NAME: TOKENS | ...  # comment` (a `|` before any `#`).
fn read_sections(
    grammar: &Grammar,
    grid: &Grid,
    reader: &Reader,
    body: &str,
    at: usize,
) -> Result<(Givens, Layers), Vec<Diagnostic>> {
    let body = body.find('#').map_or(body, |c| &body[..c]);
    let mut parts = Vec::new();
    let mut start = 0;
    for piece in body.split('|') {
        parts.push((at + start, piece));
        start += piece.len() + 1;
    }
    let (givens_at, givens_text) = parts[0];
    let givens = read_givens(grammar, grid, givens_text, givens_at, true)?;
    let declared = &grammar.layers;
    let mut sections: Vec<Option<Section>> = vec![None; declared.len()];
    let mut seen: Vec<Option<Span>> = vec![None; declared.len()];
    let mut errors = Vec::new();
    for &(part_at, text) in &parts[1..] {
        let lead = text.len() - text.trim_start().len();
        let text_at = part_at + lead;
        let text = text.trim();
        let whole = Span::new(text_at, text_at + text.len());
        let name_end = text.find(':').filter(|&c| {
            let name = text[..c].trim_end();
            !name.is_empty()
                && name
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
        });
        let Some(colon) = name_end else {
            let found = words(text, text_at)
                .first()
                .map_or(("an empty section".to_string(), whole), |&(s, w)| {
                    (format!("`{w}`"), s)
                });
            errors.push(
                Diagnostic::error(
                    found.1,
                    format!(
                        "expected a layer's name and `:` after `|`, found {}",
                        found.0
                    ),
                )
                .with_note(reader.declared()),
            );
            continue;
        };
        let name = text[..colon].trim_end();
        let name_span = Span::new(text_at, text_at + name.len());
        let Some(k) = declared.iter().position(|l| l.name == name) else {
            errors.push(
                Diagnostic::error(
                    name_span,
                    format!("unknown layer `{name}`: expected the name of a declared layer"),
                )
                .with_note(reader.declared()),
            );
            continue;
        };
        if seen[k].replace(name_span).is_some() {
            errors.push(Diagnostic::error(
                name_span,
                format!("layer `{name}` is given twice on this line: expected each layer once"),
            ));
            continue;
        }
        let tokens = &text[colon + 1..];
        match reader.section(&declared[k], tokens, text_at + colon + 1, whole) {
            Ok(s) => sections[k] = Some(s),
            Err(d) => errors.push(d),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let errors = reader.check_line(&sections);
    if !errors.is_empty() {
        return Err(errors);
    }
    let layers = Layers {
        sections: (sections.into_iter())
            .map(|s| s.map(|s| s.content))
            .collect(),
    };
    Ok((givens, layers))
}

/// The givens of a line (or of its first section, `whole`: nothing may follow the cells):
/// compact when the first word has a character per position, otherwise separated, its
/// first words the positions' tokens. Tokens at holes are dropped: givens are per cell.
fn read_givens(
    grammar: &Grammar,
    grid: &Grid,
    text: &str,
    at: usize,
    whole: bool,
) -> Result<Givens, Vec<Diagnostic>> {
    let domain = &grammar.domain;
    let compact_allowed = domain.single_chars();
    let empty_zero = domain.find("0").is_none();
    let words = words(text, at);
    let first = words.first().map_or("", |w| w.1);
    let area = grid.area();
    let compact = compact_allowed && first.chars().count() == area;
    let used = if compact { 1 } else { area };
    if !compact && words.len() < area {
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
        let (shape, hint) = if grid.has_holes() {
            (
                ", holes included",
                format!(
                    "{hint}; a shaped grid takes a token at each hole too (`-` or `.`, ignored)"
                ),
            )
        } else {
            ("", hint.to_string())
        };
        let start = words.first().map_or(at, |w| w.0.start);
        let end = words.last().map_or(start, |w| w.0.end);
        return Err(vec![Diagnostic::error(
            Span::new(start, end.max(start)),
            format!(
                "puzzle has {found} cells ({form}), expected {area} (the grid is {}x{}{shape})",
                grid.rows, grid.cols
            ),
        )
        .with_note(hint)]);
    }
    if whole {
        if let Some(&(span, extra)) = words.get(used) {
            return Err(vec![Diagnostic::error(
                span,
                format!(
                    "unexpected `{extra}` after the {area} cells: expected `|` and a layer's section (a comment starts with `#`)"
                ),
            )]);
        }
    }
    // The values named by one ASCII character, looked up by that byte: a file of many
    // puzzles reads a line in the time it takes to solve one, and comparing each
    // character with every value's name took a good part of that.
    let mut by_byte = [None; 128];
    if compact {
        for (x, name) in (0..domain.len() as u16).map(|x| (x, domain.name(x))).rev() {
            if let &[b] = name.as_bytes() {
                if b.is_ascii() {
                    by_byte[usize::from(b)] = Some(x);
                }
            }
        }
    }
    let mut values = Vec::with_capacity(area);
    let mut spans = Vec::with_capacity(area);
    // False on a token that names no value (a light return: this runs per cell).
    let mut take = |pos: usize, span: Span, word: &str| -> bool {
        if grid.is_hole(pos) {
            return true;
        }
        let v = if word == "." || (word == "0" && empty_zero) {
            None
        } else {
            match match word.as_bytes() {
                &[b] if b.is_ascii() && compact => by_byte[usize::from(b)],
                _ => domain.find(word),
            } {
                Some(x) => Some(x),
                None => return false,
            }
        };
        values.push(v);
        spans.push(span);
        true
    };
    let bad = |span: Span, word: &str| {
        let what = if compact { "character" } else { "cell" };
        Err(vec![Diagnostic::error(
            span,
            format!(
                "unexpected {what} `{word}`: expected a value ({}) or `.`",
                domain.describe()
            ),
        )])
    };
    if compact && first.is_ascii() {
        // A byte a cell, read as `take` reads a one-character token (`.`, and `0` where
        // no value is named so, first), without making a token of it.
        let at = words[0].0.start;
        for (pos, b) in first.bytes().enumerate() {
            if grid.is_hole(pos) {
                continue;
            }
            let span = Span::new(at + pos, at + pos + 1);
            let v = if b == b'.' || (b == b'0' && empty_zero) {
                None
            } else {
                match by_byte[usize::from(b)] {
                    Some(x) => Some(x),
                    None => return bad(span, &first[pos..pos + 1]),
                }
            };
            values.push(v);
            spans.push(span);
        }
    } else if compact {
        let at = words[0].0.start;
        for (pos, (j, ch)) in first.char_indices().enumerate() {
            let (span, word) = (
                Span::new(at + j, at + j + ch.len_utf8()),
                &first[j..j + ch.len_utf8()],
            );
            if !take(pos, span, word) {
                return bad(span, word);
            }
        }
    } else {
        for (pos, &(span, word)) in words.iter().take(area).enumerate() {
            if !take(pos, span, word) {
                return bad(span, word);
            }
        }
    }
    Ok(Givens { values, spans })
}
