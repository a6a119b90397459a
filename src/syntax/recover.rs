//! What a syntax error's neighbourhood says: where to resume parsing, which brace a
//! missing `}` closes, and which keyword a misspelt first word was meant to be.

/// Words that begin a declaration at the start of a line.
const DECLARATIONS: &[&str] = &[
    "values", "node", "edge", "edges", "grid", "groups", "group", "start", "rule", "final",
    "layer", "line",
];

/// Words that begin something inside a rule or a condition.
const INNER: &[&str] = &["not", "where", "set", "new", "del", "and", "or"];

/// The parts of a text that are not code: comments and quoted values.
fn code_mask(text: &str) -> Vec<bool> {
    let bytes = text.as_bytes();
    let mut code = vec![true; bytes.len()];
    let mut i = 0;
    while i < bytes.len() {
        let skip = if bytes[i..].starts_with(b"//") {
            bytes[i..]
                .iter()
                .position(|&b| b == b'\n')
                .unwrap_or(bytes.len() - i)
        } else if bytes[i..].starts_with(b"/*") {
            bytes[i + 2..]
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(bytes.len() - i, |p| p + 4)
        } else if bytes[i] == b'\'' {
            bytes[i + 1..]
                .iter()
                .position(|&b| b == b'\'' || b == b'\n')
                .map_or(bytes.len() - i, |p| p + 2)
        } else {
            0
        };
        if skip == 0 {
            i += 1;
        } else {
            let end = (i + skip).min(bytes.len());
            code[i..end].iter_mut().for_each(|c| *c = false);
            i = end;
        }
    }
    code
}

/// The word (letters, digits, `_`) at the start of `s`.
fn word(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The start of the first line after the one holding `after` where a fresh parse can
/// resume after a syntax error: a line whose first column, outside comments, holds a
/// declaration keyword, or any name once the braces opened since the error's line are
/// closed (a node or edge of the start graph). Declarations inside rules are indented by
/// convention, so a keyword in the first column starts a new declaration.
pub fn next_declaration(text: &str, after: usize) -> Option<usize> {
    let code = code_mask(text);
    let bytes = text.as_bytes();
    let line_start = text.get(..after)?.rfind('\n').map_or(0, |i| i + 1);
    let mut depth: usize = 0;
    let mut i = line_start;
    let mut at_line_start = false;
    while i < bytes.len() {
        if at_line_start && code[i] {
            let w = word(&text[i..]);
            let name = w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
            if DECLARATIONS.contains(&w) || (name && depth == 0) {
                return Some(i);
            }
        }
        match bytes[i] {
            b'{' if code[i] => depth += 1,
            b'}' if code[i] => depth = depth.saturating_sub(1),
            _ => {}
        }
        at_line_start = bytes[i] == b'\n';
        i += 1;
    }
    None
}

/// The innermost `{` of `text[from..pos]` not closed before `pos`, outside comments.
pub fn open_brace(text: &str, from: usize, pos: usize) -> Option<usize> {
    let code = code_mask(text);
    let mut open = Vec::new();
    for (i, b) in text
        .bytes()
        .enumerate()
        .take(pos.min(text.len()))
        .skip(from)
    {
        match b {
            b'{' if code[i] => open.push(i),
            b'}' if code[i] => {
                open.pop();
            }
            _ => {}
        }
    }
    open.pop()
}

/// The first word of `pos`'s line, when it is not a keyword, with the keywords it may
/// have been meant as: declarations in the first column, rule words when indented.
pub fn leading_word(text: &str, pos: usize) -> Option<(&str, &'static [&'static str])> {
    let pos = pos.min(text.len());
    let start = text.get(..pos)?.rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    let body = line.trim_start_matches([' ', '\t']);
    let w = word(body);
    if w.is_empty() || w.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if DECLARATIONS.contains(&w) || INNER.contains(&w) {
        return None;
    }
    let keywords = if body.len() == line.len() {
        DECLARATIONS
    } else {
        INNER
    };
    Some((w, keywords))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resumes_at_the_next_declaration_in_the_first_column() {
        let text = "rule a {\n  node x\nc: Cell\n}\n/* rule b */\nrule c { }\nvale 1..3\n";
        let next = next_declaration(text, 2).expect("a declaration follows");
        assert_eq!(&text[next..next + 6], "rule c");
        let next = next_declaration(text, next).expect("a name in the first column");
        assert_eq!(&text[next..next + 4], "vale");
        assert_eq!(next_declaration(text, next), None);
    }

    #[test]
    fn the_innermost_open_brace_is_found() {
        let text = "rule a { not { c } // }\n";
        assert_eq!(open_brace(text, 0, text.len()), Some(7));
        assert_eq!(open_brace("a { '}' ", 0, 8), Some(2));
    }

    #[test]
    fn a_leading_word_is_offered_the_keywords_of_its_place() {
        let text = "rulle place(v: value) {\n  nott { }\n";
        assert_eq!(leading_word(text, 6), Some(("rulle", DECLARATIONS)));
        assert_eq!(leading_word(text, 30), Some(("nott", INNER)));
        assert_eq!(leading_word("rule x", 5), None);
    }
}
