//! Source files, byte spans and diagnostics rendered as `file:line:col: error: message`.

use std::fmt;

/// A half-open byte range `[start, end)` into a [`Source`]'s text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
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
    pub span: Span,
    pub message: String,
    /// Extra lines printed after the caret line, each as `note: ...`.
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            span,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

/// A named text: a rule file or a puzzle file. Diagnostics are rendered against it.
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub text: String,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Source {
        Source {
            name: name.into(),
            text: text.into(),
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
    pub fn render(&self, d: &Diagnostic) -> String {
        let (line, col) = self.line_col(d.span.start);
        let text = self.line_text(d.span.start);
        let width = {
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
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let mut out = format!(
            "{}:{}:{}: error: {}\n{:gutter$} |\n{} | {}\n{:gutter$} | {}{}\n",
            self.name,
            line,
            col,
            d.message,
            "",
            line,
            text,
            "",
            pad,
            "^".repeat(width),
        );
        for note in &d.notes {
            out.push_str(&format!("{:gutter$} = note: {}\n", "", note));
        }
        out
    }
}

/// Every diagnostic found while loading a file, in source order.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    pub source: Source,
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
}
