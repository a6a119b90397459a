//! The `start` block: one given or `.` per grid cell, row-major; and the scanner it shares
//! with `regions` layouts.

use super::Checker;
use crate::diag::Span;
use crate::grammar::Givens;
use crate::syntax::ast;

/// The cells of a block's text with their spans, comments and blanks skipped. With
/// `one_char`, every other character is a cell; else cells are separated by blanks.
pub(super) fn scan(raw: &ast::RawBlock, one_char: bool) -> Vec<(String, Span)> {
    let text = raw.text.as_str();
    let base = raw.span.start;
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        let rest = &text[i..];
        if c.is_whitespace() {
            i += c.len_utf8();
        } else if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |e| e + 2);
        } else {
            let len = if one_char {
                c.len_utf8()
            } else {
                rest.find(|ch: char| ch.is_whitespace())
                    .unwrap_or(rest.len())
            };
            out.push((rest[..len].to_string(), Span::new(base + i, base + i + len)));
            i += len;
        }
    }
    out
}

impl Checker<'_> {
    pub(super) fn lower_start(&mut self, s: &ast::StartBlock) {
        let Some(grid) = self.grid.as_ref() else {
            self.error(
                s.span,
                "a start block needs a grid: expected `grid RxC of Type` before it",
            );
            return;
        };
        let expected = grid.area();
        let holes: Vec<bool> = (0..expected).map(|p| grid.is_hole(p)).collect();
        let cells = scan(&s.body, self.domain.single_chars());
        let found = cells.len();
        let zero_is_empty = self.domain.find("0").is_none();
        let mut givens = Givens::default();
        for (pos, (text, span)) in cells.into_iter().enumerate() {
            // A hole takes any token (`.` or `-` by convention) so the block lines up with
            // the shape.
            if holes.get(pos).copied().unwrap_or(false) {
                continue;
            }
            let value = if text == "." || (text == "0" && zero_is_empty) {
                None
            } else if let Some(v) = self.domain.find(&text) {
                Some(v)
            } else {
                let what = if text.chars().count() == 1 {
                    "character "
                } else {
                    ""
                };
                let msg = format!(
                    "unexpected {what}`{text}`: expected a value ({}) or `.`",
                    self.domain.describe()
                );
                self.error(span, msg);
                None
            };
            givens.values.push(value);
            givens.spans.push(span);
        }
        if found != expected {
            let holes = if holes.contains(&true) {
                " (one per position, holes included)"
            } else {
                ""
            };
            self.error(
                s.span,
                format!("start block has {found} cells, expected {expected}{holes}"),
            );
        }
        self.start = Some(givens);
    }
}
