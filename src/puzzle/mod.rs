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
    let cells = CellReader::new(grammar, grid);
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
            read_sections(grammar, &cells, &reader, body, at)
        } else {
            (cells.read_givens(body, at, false)).map(|givens| (givens, Layers::default()))
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
    cells: &CellReader,
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
    let givens = cells.read_givens(givens_text, givens_at, true)?;
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

/// What reading a line's cells needs of the rule file, worked out once for all its
/// lines: a file of many puzzles reads a line in about the time it takes to solve one.
struct CellReader<'g> {
    grammar: &'g Grammar,
    grid: &'g Grid,
    /// Every value is named by one character, so a line may give one per cell.
    compact_allowed: bool,
    /// `0` is an empty cell: no value is named so.
    empty_zero: bool,
    /// The value each ASCII character names, by its byte.
    by_byte: [Option<u16>; 128],
    /// Whether each ASCII character stands for a cell, by its byte: those naming a value,
    /// `.`, and `0` where it is an empty cell.
    is_cell: [bool; 128],
}

impl<'g> CellReader<'g> {
    fn new(grammar: &'g Grammar, grid: &'g Grid) -> CellReader<'g> {
        let domain = &grammar.domain;
        let empty_zero = domain.find("0").is_none();
        let mut by_byte = [None; 128];
        // The first value of a name, where two share it (the reverse order leaves it).
        for (x, name) in (0..domain.len() as u16).map(|x| (x, domain.name(x))).rev() {
            if let &[b] = name.as_bytes() {
                if b.is_ascii() {
                    by_byte[usize::from(b)] = Some(x);
                }
            }
        }
        // `.` is an empty cell whatever the values are named, `0` where no value is.
        by_byte[usize::from(b'.')] = None;
        let mut is_cell = by_byte.map(|x| x.is_some());
        is_cell[usize::from(b'.')] = true;
        is_cell[usize::from(b'0')] |= empty_zero;
        CellReader {
            grammar,
            grid,
            compact_allowed: domain.single_chars(),
            empty_zero,
            by_byte,
            is_cell,
        }
    }

    /// The givens of a line (or of its first section, `whole`: nothing may follow the
    /// cells): compact when the first word has a character per position, otherwise
    /// separated, its first words the positions' tokens. Tokens at holes are dropped:
    /// givens are per cell.
    fn read_givens(&self, text: &str, at: usize, whole: bool) -> Result<Givens, Vec<Diagnostic>> {
        let grid = self.grid;
        let area = grid.area();
        // The first word alone: a compact line is nothing else, and listing every word
        // of it took a good part of reading it.
        let (first_span, first) = first_word(text, at).unwrap_or((Span::new(at, at), ""));
        let compact = self.compact_allowed
            && if first.is_ascii() {
                first.len() == area
            } else {
                first.chars().count() == area
            };
        if !compact {
            return self.read_separated(text, at, whole);
        }
        if whole {
            let after = first_span.end - at;
            if let Some((span, extra)) = first_word(&text[after..], first_span.end) {
                return Err(vec![Diagnostic::error(
                    span,
                    format!(
                        "unexpected `{extra}` after the {area} cells: expected `|` and a layer's section (a comment starts with `#`)"
                    ),
                )]);
            }
        }
        let at = first_span.start;
        if !first.is_ascii() {
            let mut cells = first.char_indices().map(|(j, ch)| {
                (
                    Span::new(at + j, at + j + ch.len_utf8()),
                    &first[j..j + ch.len_utf8()],
                )
            });
            return self.read_tokens(&mut cells, true);
        }
        // A byte a cell (each below 128), looked up in the tables; checked before any is
        // taken.
        let bytes = first.as_bytes();
        let is_cell = |b: u8| self.is_cell[usize::from(b & 127)];
        let value = |b: u8| self.by_byte[usize::from(b & 127)];
        // All of them at once, without a branch a byte; the first that is not, only then.
        if !bytes.iter().fold(true, |all, &b| all & is_cell(b)) {
            let bad = (0..area).find(|&pos| !is_cell(bytes[pos]) && !grid.is_hole(pos));
            if let Some(pos) = bad {
                return self.bad(
                    Span::new(at + pos, at + pos + 1),
                    &first[pos..pos + 1],
                    true,
                );
            }
        }
        let span = |pos: usize| Span::new(at + pos, at + pos + 1);
        let (values, spans) = if grid.has_holes() {
            let cells = (0..area).filter(|&pos| !grid.is_hole(pos));
            cells.map(|pos| (value(bytes[pos]), span(pos))).unzip()
        } else {
            // Every position a cell: no test per byte.
            let values = bytes.iter().map(|&b| value(b)).collect();
            (values, (0..area).map(span).collect())
        };
        Ok(Givens { values, spans })
    }

    /// The givens of a line whose cells are separated by blanks (or of its first section,
    /// `whole`).
    fn read_separated(
        &self,
        text: &str,
        at: usize,
        whole: bool,
    ) -> Result<Givens, Vec<Diagnostic>> {
        let grid = self.grid;
        let area = grid.area();
        let words = words(text, at);
        let first = words.first().map_or("", |w| w.1);
        if words.len() < area {
            let (found, form) = if self.compact_allowed && first.chars().count() > 1 {
                (first.chars().count(), "one character per cell")
            } else {
                (words.len(), "one word per cell")
            };
            let hint = if self.compact_allowed {
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
            if let Some(&(span, extra)) = words.get(area) {
                return Err(vec![Diagnostic::error(
                    span,
                    format!(
                        "unexpected `{extra}` after the {area} cells: expected `|` and a layer's section (a comment starts with `#`)"
                    ),
                )]);
            }
        }
        self.read_tokens(&mut words.iter().take(area).copied(), false)
    }

    /// The givens of one token a position (`compact`: a character each).
    fn read_tokens(
        &self,
        tokens: &mut dyn Iterator<Item = (Span, &str)>,
        compact: bool,
    ) -> Result<Givens, Vec<Diagnostic>> {
        let area = self.grid.area();
        let mut values = Vec::with_capacity(area);
        let mut spans = Vec::with_capacity(area);
        for (pos, (span, word)) in tokens.enumerate() {
            if self.grid.is_hole(pos) {
                continue;
            }
            let v = if word == "." || (word == "0" && self.empty_zero) {
                None
            } else {
                let x = match word.as_bytes() {
                    &[b] if b.is_ascii() && compact => self.by_byte[usize::from(b)],
                    _ => self.grammar.domain.find(word),
                };
                match x {
                    Some(x) => Some(x),
                    None => return self.bad(span, word, compact),
                }
            };
            values.push(v);
            spans.push(span);
        }
        Ok(Givens { values, spans })
    }

    /// The error for a token that names no value.
    fn bad<T>(&self, span: Span, word: &str, compact: bool) -> Result<T, Vec<Diagnostic>> {
        let what = if compact { "character" } else { "cell" };
        Err(vec![Diagnostic::error(
            span,
            format!(
                "unexpected {what} `{word}`: expected a value ({}) or `.`",
                self.grammar.domain.describe()
            ),
        )])
    }
}

/// The first blank-separated word of `text` (which starts at byte `at` of the file), with
/// its span; `None` when it is all blanks.
fn first_word(text: &str, at: usize) -> Option<(Span, &str)> {
    let start = text.len() - text.trim_start().len();
    let rest = &text[start..];
    // Byte by byte where the text is ASCII (nearly every line), as `words` reads it.
    let end = if rest.is_ascii() {
        rest.bytes()
            .position(|b| b <= b' ' && (b == b' ' || (b'\t'..=b'\r').contains(&b)))
    } else {
        rest.find(char::is_whitespace)
    };
    let len = end.unwrap_or(rest.len());
    (len > 0).then(|| (Span::new(at + start, at + start + len), &rest[..len]))
}
