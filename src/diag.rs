//! Source files, byte spans and diagnostics rendered as `file:line:col: error: message`.

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use codespan_reporting::files::Error as FilesError;

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

/// How serious a diagnostic is. Errors stop a file from loading; warnings never do (the
/// command line turns them into errors only when asked, `--deny-warnings`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The file cannot be used as written.
    #[default]
    Error,
    /// The file works, but probably not as meant.
    Warning,
}

impl Severity {
    /// `error` or `warning`, as the first line of a rendered diagnostic says.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One problem in a user's file, located by a span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// An error or a warning.
    pub severity: Severity,
    /// Where the problem is; empty (0..0) when it has no place in the text.
    pub span: Span,
    /// What is wrong, in one line: what was expected and what was found.
    pub message: String,
    /// Other places that explain it (the first of two declarations, the brace a block
    /// opened with), each with a short message shown beside it.
    pub labels: Vec<(Span, String)>,
    /// Extra lines printed after the snippet, each as `= note: ...`.
    pub notes: Vec<String>,
    /// What to do about it, each printed as `= help: ...` ("did you mean `Cell`?").
    pub help: Vec<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            span,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
            help: Vec::new(),
        }
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }

    /// Adds a `note:` line: a fact that explains the problem.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Adds a `help:` line: what to do about it.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help.push(help.into());
        self
    }

    /// Adds a second place, shown with `message` beside it.
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push((span, message.into()));
        self
    }

    /// Adds "did you mean `x`?" when one of `candidates` is close to `name`.
    pub fn with_suggestion<'a>(
        self,
        name: &str,
        candidates: impl IntoIterator<Item = &'a str>,
    ) -> Diagnostic {
        match suggest(name, candidates) {
            Some(best) => self.with_help(format!("did you mean `{best}`?")),
            None => self,
        }
    }
}

/// The candidate closest to `name`, when it is close enough to be what was meant: an edit
/// distance (transpositions counted once) of at most a third of the longer word, and at
/// least one letter in common. Ties go to the first candidate.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name || c.is_empty() {
            continue;
        }
        let d = if c.eq_ignore_ascii_case(name) {
            0
        } else {
            strsim::damerau_levenshtein(name, c)
        };
        let longer = name.chars().count().max(c.chars().count());
        if d < longer && d * 3 <= longer.max(3) && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// A named text: a rule file or a puzzle file. Diagnostics are rendered against it.
#[derive(Clone, Debug)]
pub struct Source {
    /// The path or name diagnostics show.
    pub name: String,
    /// The whole text, without a byte-order mark.
    pub text: String,
    /// Where each line of `text` starts, listed on the first diagnostic rendered: each
    /// diagnostic then reads only the lines it points at, so that a puzzle file with an
    /// error on each of its lines renders in time linear in its length.
    line_starts: OnceLock<Vec<usize>>,
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
            line_starts: OnceLock::new(),
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
        let offset = self.clamp(offset);
        let line = self.line_of(offset);
        let col = self.text[self.line_starts()[line]..offset].chars().count() + 1;
        (line + 1, col)
    }

    /// `offset`, at most the text's length and moved back to a character boundary.
    fn clamp(&self, offset: usize) -> usize {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }

    /// Where each line starts (the first at 0).
    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        })
    }

    /// The 0-based line holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.line_starts().partition_point(|&start| start <= offset) - 1
    }

    /// One line for the diagnostics of this file left out past a limit: how many of each
    /// severity, and the lines they span (in any order), so that a batch of thousands of
    /// bad lines says what it holds without flooding the terminal. Empty for none.
    pub fn render_left_out(&self, rest: &[Diagnostic], how_to_show: &str) -> String {
        // Lines follow offsets: two lines looked up, whatever the count.
        let starts = rest.iter().map(|d| d.span.start);
        let (Some(first), Some(last)) = (starts.clone().min(), starts.max()) else {
            return String::new();
        };
        let (from, to) = (self.line_col(first).0, self.line_col(last).0);
        let errors = rest
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let counted = |n: usize, what: &str| match n {
            1 => format!("1 more {what}"),
            n => format!("{n} more {what}s"),
        };
        let what = match (errors, rest.len() - errors) {
            (e, 0) => counted(e, "error"),
            (0, w) => counted(w, "warning"),
            (e, w) => format!("{} and {}", counted(e, "error"), counted(w, "warning")),
        };
        let lines = match from == to {
            true => format!("line {from}"),
            false => format!("lines {from} to {to}"),
        };
        format!(
            "note: {what} not shown ({lines} of {}); {how_to_show}\n",
            escape(&self.name)
        )
    }

    /// `file:line:col: error: message`, then the offending line with a caret under the
    /// span, the other labelled places, and the notes and help. Plain text, no colour.
    pub fn render(&self, d: &Diagnostic) -> String {
        self.render_styled(d, false)
    }

    /// As [`Source::render`], with colour (ANSI escapes) when `colour` is set: for a
    /// terminal. Control and invisible characters are shown escaped (`\u{1}`), in the
    /// message as in the line, so that a message never carries raw terminal codes or hides
    /// what it points at.
    pub fn render_styled(&self, d: &Diagnostic, colour: bool) -> String {
        let (line, col) = self.line_col(d.span.start);
        let mut out = format!(
            "{}:{}:{}: {}: {}\n",
            escape(&self.name),
            line,
            col,
            d.severity.name(),
            escape(&d.message)
        );
        if colour {
            out = paint(&out, d.severity);
        }
        // The snippet is codespan's rich form without its first line, which says less
        // than ours: the `file:line:col:` form is what editors and scripts read.
        let snippet = self.snippet(d, colour);
        out.push_str(snippet.split_once('\n').map_or("", |(_, rest)| rest));
        out
    }

    /// codespan-reporting's rendering of `d`, over the text with invisible characters
    /// escaped (spans moved to match).
    fn snippet(&self, d: &Diagnostic, colour: bool) -> String {
        use codespan_reporting::diagnostic::{Diagnostic as Report, Label, Severity as Level};
        use codespan_reporting::files::SimpleFile;
        use codespan_reporting::term::{self, termcolor, Chars, Config, Styles, StylesWriter};

        // The lines the spans touch, from the first one's start to the last one's end:
        // codespan shows no other, and reading the whole text for each diagnostic made a
        // file of many errors take quadratic time.
        let spans = std::iter::once(d.span).chain(d.labels.iter().map(|(span, _)| *span));
        let (low, high) = spans.fold((self.text.len(), 0), |(low, high), span| {
            (low.min(span.start), high.max(span.end.max(span.start)))
        });
        let (low, high) = (self.clamp(low.min(high)), self.clamp(high));
        let (first, last) = (self.line_of(low), self.line_of(high));
        let begin = self.line_starts()[first];
        let end = (self.line_starts().get(last + 1).copied()).unwrap_or(self.text.len());
        let shown = Shown::new(&self.text[begin..end]);
        let window = |span: Span| {
            let start = span.start.clamp(begin, end) - begin;
            shown.range(Span::new(start, span.end.clamp(begin, end) - begin))
        };
        let file = Window {
            file: SimpleFile::new(escape(&self.name).into_owned(), shown.text.as_ref()),
            first_line: first,
        };
        let mut labels = vec![Label::primary((), window(d.span))];
        labels.extend(d.labels.iter().map(|(span, message)| {
            Label::secondary((), window(*span)).with_message(escape(message))
        }));
        let notes = d
            .notes
            .iter()
            .map(|n| format!("note: {}", escape(n)))
            .chain(d.help.iter().map(|h| format!("help: {}", escape(h))))
            .collect();
        let report = match d.severity {
            Severity::Error => Report::new(Level::Error),
            Severity::Warning => Report::new(Level::Warning),
        }
        .with_message(escape(&d.message))
        .with_labels(labels)
        .with_notes(notes);
        let config = Config {
            chars: Chars::ascii(),
            ..Config::default()
        };
        let rendered = if colour {
            let styles = Styles::default();
            let mut buffer = termcolor::Buffer::ansi();
            term::emit_to_write_style(
                &mut StylesWriter::new(&mut buffer, &styles),
                &config,
                &file,
                &report,
            )
            .ok()
            .map(|()| String::from_utf8_lossy(buffer.as_slice()).into_owned())
        } else {
            term::emit_into_string(&config, &file, &report).ok()
        };
        // Rendering fails only on spans outside the text, which `Shown::range` rules out.
        rendered.unwrap_or_default()
    }
}

/// `line` (one line with its newline) in the colour of its severity, as codespan paints
/// its own headers.
fn paint(line: &str, severity: Severity) -> String {
    let code = match severity {
        Severity::Error => "\x1b[1;31m",
        Severity::Warning => "\x1b[1;33m",
    };
    format!("{code}{}\x1b[0m\n", line.trim_end_matches('\n'))
}

/// A text as diagnostics show it: invisible characters escaped, and a map from the
/// original's byte offsets to the shown text's.
struct Shown<'t> {
    text: Cow<'t, str>,
    /// For each escaped character: its original offset and how many bytes it grew by.
    grown: Vec<(usize, usize)>,
}

impl<'t> Shown<'t> {
    fn new(text: &'t str) -> Shown<'t> {
        if !text.chars().any(|c| is_invisible(c) || c == '\r') {
            return Shown {
                text: Cow::Borrowed(text),
                grown: Vec::new(),
            };
        }
        let mut shown = String::with_capacity(text.len() + 8);
        let mut grown = Vec::new();
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == '\r' && chars.peek().is_some_and(|&(_, n)| n == '\n') {
                // A line ending's carriage return is shown as nothing a terminal acts on.
                shown.push(' ');
            } else if is_invisible(c) {
                shown.extend(c.escape_unicode());
                grown.push((i, c.escape_unicode().count() - c.len_utf8()));
            } else {
                shown.push(c);
            }
        }
        Shown {
            text: Cow::Owned(shown),
            grown,
        }
    }

    /// Where original byte `offset` stands in the shown text.
    fn offset(&self, offset: usize) -> usize {
        offset
            + self
                .grown
                .iter()
                .take_while(|&&(at, _)| at < offset)
                .map(|&(_, by)| by)
                .sum::<usize>()
    }

    /// A span as a range of the shown text, clamped to it and to character boundaries.
    fn range(&self, span: Span) -> std::ops::Range<usize> {
        let text = self.text.as_ref();
        let clamp = |o: usize| {
            let mut o = o.min(text.len());
            while !text.is_char_boundary(o) {
                o -= 1;
            }
            o
        };
        let start = clamp(self.offset(span.start));
        let end = clamp(self.offset(span.end.max(span.start))).max(start);
        start..end
    }
}

/// Some lines of a source as codespan's file, numbered as in the whole source: its first
/// line is line `first_line + 1`.
struct Window<'t> {
    file: codespan_reporting::files::SimpleFile<String, &'t str>,
    first_line: usize,
}

impl<'a> codespan_reporting::files::Files<'a> for Window<'_> {
    type FileId = ();
    type Name = String;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<String, FilesError> {
        Ok(self.file.name().clone())
    }

    fn source(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Ok(self.file.source())
    }

    fn line_index(&'a self, (): (), byte_index: usize) -> Result<usize, FilesError> {
        self.file.line_index((), byte_index)
    }

    fn line_number(&'a self, (): (), line_index: usize) -> Result<usize, FilesError> {
        Ok(self.first_line + line_index + 1)
    }

    fn line_range(
        &'a self,
        (): (),
        line_index: usize,
    ) -> Result<std::ops::Range<usize>, FilesError> {
        self.file.line_range((), line_index)
    }
}

/// True for characters a terminal would not show as themselves: controls (but tab and
/// newline), bidirectional marks, zero-width characters and the byte-order mark.
fn is_invisible(c: char) -> bool {
    (c.is_control() && c != '\t' && c != '\n')
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
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
    fn diagnostics_left_out_are_counted_by_severity_over_their_lines() {
        let source = Source::new("f.txt", "a\nb\nc\nd\n");
        let at = |line: usize| Span::new(2 * line, 2 * line + 1);
        let error = |line| Diagnostic::error(at(line), "e");
        let warning = |line| Diagnostic::warning(at(line), "w");
        let left_out = |rest: &[Diagnostic]| source.render_left_out(rest, "HOW");
        assert_eq!(left_out(&[]), "");
        assert_eq!(
            left_out(&[error(2)]),
            "note: 1 more error not shown (line 3 of f.txt); HOW\n"
        );
        // Out of order, the span is still the least and greatest line.
        assert_eq!(
            left_out(&[error(3), error(0), error(1)]),
            "note: 3 more errors not shown (lines 1 to 4 of f.txt); HOW\n"
        );
        assert_eq!(
            left_out(&[warning(1), warning(2)]),
            "note: 2 more warnings not shown (lines 2 to 3 of f.txt); HOW\n"
        );
        assert_eq!(
            left_out(&[error(0), warning(1), error(1)]),
            "note: 2 more errors and 1 more warning not shown (lines 1 to 2 of f.txt); HOW\n"
        );
    }

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

    /// A diagnostic's snippet as codespan renders it over the whole text (without
    /// invisible characters), the first line left out as `render` does.
    fn over_whole_text(s: &Source, d: &Diagnostic) -> String {
        use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
        use codespan_reporting::files::SimpleFile;
        use codespan_reporting::term::{self, Chars, Config};
        let file = SimpleFile::new(s.name.clone(), s.text.as_str());
        let mut labels = vec![Label::primary((), d.span.start..d.span.end)];
        labels.extend(
            (d.labels.iter())
                .map(|(span, m)| Label::secondary((), span.start..span.end).with_message(m)),
        );
        let report = Report::error().with_message(&d.message).with_labels(labels);
        let config = Config {
            chars: Chars::ascii(),
            ..Config::default()
        };
        let text = term::emit_into_string(&config, &file, &report).expect("spans in the text");
        text.split_once('\n')
            .map_or("", |(_, rest)| rest)
            .to_string()
    }

    #[test]
    fn a_diagnostic_shows_its_lines_numbered_as_in_the_whole_file() {
        let text: String = (1..=12)
            .map(|i| format!("line {i} of the file\n"))
            .collect();
        let s = Source::new("f", format!("{text}last"));
        let at = |line: usize, col: usize| s.line_starts()[line - 1] + col - 1;
        let cases = [
            Diagnostic::error(Span::new(at(1, 1), at(1, 5)), "first line"),
            Diagnostic::error(Span::new(at(11, 6), at(11, 8)), "a two-digit line")
                .with_label(Span::new(at(9, 1), at(9, 5)), "before it"),
            Diagnostic::error(Span::new(at(3, 3), at(3, 3)), "empty span")
                .with_label(Span::new(at(12, 1), at(12, 4)), "after it"),
            Diagnostic::error(Span::new(at(4, 6), at(6, 3)), "over three lines"),
            Diagnostic::error(Span::new(at(13, 1), at(13, 5)), "the last line, unended"),
            Diagnostic::error(Span::new(at(13, 5), at(13, 5)), "the end of the text"),
        ];
        for d in &cases {
            let rendered = s.render(d);
            let (header, snippet) = rendered.split_once('\n').expect("a header line");
            let (line, col) = s.line_col(d.span.start);
            assert_eq!(header, format!("f:{line}:{col}: error: {}", d.message));
            assert_eq!(snippet, over_whole_text(&s, d), "{}", d.message);
        }
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
