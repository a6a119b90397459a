//! Source files, byte spans and diagnostics rendered as `file:line:col: error: message`.

use std::borrow::Cow;
use std::fmt;

/// A half-open byte range `[start, end)` into a [`Source`]'s text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// The first byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The bytes `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// One problem in a user's file, located by a span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where the problem is; empty (0..0) when it has no place in the text.
    pub span: Span,
    /// What is wrong, in one line: what was expected and what was found.
    pub message: String,
    /// Extra lines printed after the caret line, each as `note: ...`.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span` with no notes.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            span,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// Adds a `note:` line (a hint, or where the other half of a clash is).
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

/// A named text: a rule file or a puzzle file. Diagnostics are rendered against it.
#[derive(Clone, Debug)]
pub struct Source {
    /// The path or name diagnostics show.
    pub name: String,
    /// The whole text, without a byte-order mark.
    pub text: String,
}

/// The UTF-8 byte-order mark some editors write at the start of a file; it is not text.
const BOM: char = '\u{feff}';

impl Source {
    /// A source named `name`; a leading byte-order mark is dropped, so positions count
    /// from the first character a user sees.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Source {
        let mut text = text.into();
        if text.starts_with(BOM) {
            text.drain(..BOM.len_utf8());
        }
        Source {
            name: name.into(),
            text,
        }
    }

    /// A source from a file's bytes, which must be UTF-8: otherwise the error points at the
    /// first byte that is not (its line shown with that byte and the rest replaced).
    pub fn from_bytes(name: impl Into<String>, bytes: Vec<u8>) -> Result<Source, Diagnostics> {
        match String::from_utf8(bytes) {
            Ok(text) => Ok(Source::new(name, text)),
            Err(e) => {
                let bytes = e.into_bytes();
                let bad = match std::str::from_utf8(&bytes) {
                    Err(e) => e.valid_up_to(),
                    Ok(_) => 0,
                };
                // The valid prefix keeps its offsets in the lossy text (less a dropped
                // byte-order mark), so line and column hold for the file as it is.
                let source = Source::new(name, String::from_utf8_lossy(&bytes).into_owned());
                let bom = if bytes.starts_with("\u{feff}".as_bytes()) {
                    BOM.len_utf8()
                } else {
                    0
                };
                let at = bad - bom;
                let error = Diagnostic::error(
                    Span::new(at, at + 1),
                    format!(
                        "the file is not valid UTF-8 (byte 0x{:02X})",
                        bytes.get(bad).copied().unwrap_or(0)
                    ),
                )
                .with_note("grafter reads UTF-8 text: save the file as UTF-8");
                Err(Diagnostics {
                    source,
                    items: vec![error],
                })
            }
        }
    }

    /// 1-based line and column (in characters) of a byte offset; offsets past the end
    /// or inside a character are clamped to the nearest valid position.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = self.text[line_start..offset].chars().count() + 1;
        (line, col)
    }

    /// The text of the line holding `offset`, without its newline.
    fn line_text(&self, offset: usize) -> &str {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let start = self.text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let end = self.text[offset..]
            .find('\n')
            .map_or(self.text.len(), |i| offset + i);
        self.text[start..end].trim_end_matches('\r')
    }

    /// `file:line:col: error: message`, then the offending line and a caret under the span.
    /// Control and invisible characters are shown escaped (`\u{1}`), in the message as in
    /// the line, so that a message never carries raw terminal codes or hides what it
    /// points at.
    pub fn render(&self, d: &Diagnostic) -> String {
        let (line, col) = self.line_col(d.span.start);
        let text = self.line_text(d.span.start);
        let end_chars = {
            let end = d.span.end.max(d.span.start + 1);
            let (end_line, end_col) = self.line_col(end);
            if end_line == line && end_col > col {
                end_col - col
            } else {
                1
            }
        };
        let gutter = line.to_string().len();
        let pad: String = text
            .chars()
            .take(col - 1)
            .map(|c| match c {
                '\t' => "\t".to_string(),
                c => " ".repeat(shown_width(c)),
            })
            .collect();
        let width: usize = text
            .chars()
            .skip(col - 1)
            .take(end_chars)
            .map(shown_width)
            .sum::<usize>()
            .max(1);
        let mut out = format!(
            "{}:{}:{}: error: {}\n{:gutter$} |\n{} | {}\n{:gutter$} | {}{}\n",
            escape(&self.name),
            line,
            col,
            escape(&d.message),
            "",
            line,
            escape(text),
            "",
            pad,
            "^".repeat(width),
        );
        for note in &d.notes {
            out.push_str(&format!("{:gutter$} = note: {}\n", "", escape(note)));
        }
        out
    }
}

/// True for characters a terminal would not show as themselves: controls (but tab and
/// newline), bidirectional marks, zero-width characters and the byte-order mark.
fn is_invisible(c: char) -> bool {
    (c.is_control() && c != '\t' && c != '\n')
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// How many columns `c` takes in a rendered message.
fn shown_width(c: char) -> usize {
    if is_invisible(c) {
        c.escape_unicode().count()
    } else {
        1
    }
}

/// `text` with every invisible character written as its escape (`\u{1}`).
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_invisible) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_invisible(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Every diagnostic found while loading a file, in source order.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    /// The file the diagnostics point into.
    pub source: Source,
    /// Each problem, in source order.
    pub items: Vec<Diagnostic>,
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.items {
            write!(f, "{}", self.source.render(d))?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters() {
        let s = Source::new("f.graft", "ab\ncé x\n");
        assert_eq!(s.line_col(0), (1, 1));
        assert_eq!(s.line_col(3), (2, 1));
        // 'é' is two bytes: "x" starts at byte 7 and is the fourth character.
        assert_eq!(s.line_col(7), (2, 4));
    }

    #[test]
    fn render_puts_a_caret_under_the_span() {
        let s = Source::new("f.graft", "values 1..4\nnode Cel { }\n");
        let d = Diagnostic::error(Span::new(17, 20), "unknown type `Cel`");
        let text = s.render(&d);
        assert!(
            text.starts_with("f.graft:2:6: error: unknown type `Cel`\n"),
            "{text}"
        );
        assert!(text.contains("2 | node Cel { }\n"), "{text}");
        assert!(text.contains("  |      ^^^\n"), "{text}");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_located() {
        let bytes = b"values 1..4\nnode C\xE9ll\n".to_vec();
        let err = Source::from_bytes("f.graft", bytes).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("f.graft:2:7: error: the file is not valid UTF-8 (byte 0xE9)\n"),
            "{text}"
        );
        // After a byte-order mark, columns count from the first visible character.
        let bytes = b"\xEF\xBB\xBFab\xFF".to_vec();
        let text = Source::from_bytes("f", bytes).unwrap_err().to_string();
        assert!(text.starts_with("f:1:3: error:"), "{text}");
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        let s = Source::from_bytes("f", b"\xEF\xBB\xBFvalues 1..4".to_vec()).unwrap();
        assert_eq!(s.text, "values 1..4");
        assert_eq!(Source::new("f", "\u{feff}x").text, "x");
    }

    #[test]
    fn control_characters_are_escaped_in_messages() {
        let s = Source::new("f", "ab\u{1}c\n");
        let d = Diagnostic::error(Span::new(2, 3), "found `\u{1}`");
        let text = s.render(&d);
        assert!(!text.contains('\u{1}'), "{text:?}");
        assert!(text.starts_with("f:1:3: error: found `\\u{1}`\n"), "{text}");
        assert!(text.contains("1 | ab\\u{1}c\n"), "{text}");
        // The caret spans the escape.
        assert!(text.contains("  |   ^^^^^\n"), "{text}");
    }
}
