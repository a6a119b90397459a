//! A puzzle line's layer sections read into [`Content`]: tokens counted, each token checked
//! against its layer's type, and the sections of a line checked together (a region
//! attribute needs a region, generated names must be new). The file's own layer content
//! (`layer NAME: ... = { ... }`) is read the same way.

use std::collections::{HashMap, HashSet};

use rustc_hash::FxHashMap;

use crate::diag::{Diagnostic, Span};
use crate::grammar::Grammar;
use crate::layer::{Content, Layer, LayerKind};
use crate::model::{AttrType, BaseType, Value};

/// A section as read: its content and where each token stands (per cell, row or column; per
/// member for lines, in order).
#[derive(Clone, Debug)]
pub struct Section {
    pub content: Content,
    pub spans: Vec<Span>,
}

/// Reads the sections of a file's puzzle lines for one grammar. Built once per file: it
/// holds the lookups every line needs.
pub struct Reader<'g> {
    grammar: &'g Grammar,
    /// Grid cells by name (`r1c1`), to their index in the grid.
    cells: HashMap<&'g str, usize>,
    /// The names of the base graph's nodes: a layer's nodes must not take one.
    names: HashSet<&'g str>,
    /// Per declared layer, true when the nodes it makes (`NAME_TOKEN`) cannot take a name:
    /// no node of the file and no other layer's node has a name starting `NAME_`. Its
    /// own names differ from each other by construction, so a line needs no check.
    clash_free: Vec<bool>,
}

impl<'g> Reader<'g> {
    pub fn new(grammar: &'g Grammar) -> Reader<'g> {
        let name = |n: crate::model::NodeId| grammar.names.get(n.index());
        let cells = grammar
            .grid
            .iter()
            .flat_map(|g| g.cells.iter().enumerate())
            .filter_map(|(i, &c)| Some((name(c)?, i)))
            .collect();
        // A line's layers replace the file's own: their nodes are not taken names.
        let all = grammar
            .layer_base
            .as_ref()
            .map_or(&grammar.names, |b| &b.names);
        let names: HashSet<&str> = all.iter().collect();
        let makers: Vec<&str> = grammar
            .layers
            .iter()
            .filter(|l| matches!(l.kind, LayerKind::Regions { .. } | LayerKind::Lines { .. }))
            .map(|l| l.name.as_str())
            .collect();
        let clash_free = grammar
            .layers
            .iter()
            .map(|l| {
                let prefix = format!("{}_", l.name);
                let other_prefix = |m: &&str| {
                    *m != l.name && (m.starts_with(&prefix) || l.name.starts_with(&format!("{m}_")))
                };
                !names.iter().any(|n| n.starts_with(&prefix)) && !makers.iter().any(other_prefix)
            })
            .collect();
        Reader {
            grammar,
            cells,
            names,
            clash_free,
        }
    }

    /// The declared layers' names, for "expected one of" messages.
    pub fn declared(&self) -> String {
        let names: Vec<String> = self
            .grammar
            .layers
            .iter()
            .map(|l| format!("`{}`", l.name))
            .collect();
        if names.is_empty() {
            "the rule file declares no layers (`layer NAME: ...`)".to_string()
        } else {
            format!("the rule file declares {}", names.join(", "))
        }
    }

    /// Reads the tokens of one section of `layer` (the text after `NAME:`, which starts at
    /// byte `at` of the puzzle file); `whole` is the section with its name, for a message
    /// about the section as a whole.
    pub fn section(
        &self,
        layer: &Layer,
        text: &str,
        at: usize,
        whole: Span,
    ) -> Result<Section, Diagnostic> {
        match &layer.kind {
            LayerKind::Lines { .. } => self.lines(layer, text, at),
            LayerKind::Regions { .. } => {
                let tokens = self.cell_tokens(layer, text, at, whole)?;
                let mut cells = Vec::with_capacity(tokens.len());
                let mut names: Vec<String> = Vec::new();
                let mut numbered: FxHashMap<&str, u32> = FxHashMap::default();
                // Regions named by one character (most are), numbered by that byte
                // without hashing: this runs per cell of every line.
                let mut by_byte = [u32::MAX; 128];
                for &(span, token) in &tokens {
                    if token == "." {
                        cells.push(None);
                    } else if token.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                        let mut number = || {
                            names.push(token.to_string());
                            names.len() as u32 - 1
                        };
                        let i = match token.as_bytes() {
                            &[b] => {
                                let i = &mut by_byte[usize::from(b)];
                                if *i == u32::MAX {
                                    *i = number();
                                }
                                *i
                            }
                            _ => *numbered.entry(token).or_insert_with(number),
                        };
                        cells.push(Some(i));
                    } else {
                        return Err(Diagnostic::error(
                            span,
                            format!(
                                "unexpected `{token}` in layer `{}`: expected a region name (letters, digits, `_`) or `.` for no region",
                                layer.name
                            ),
                        ));
                    }
                }
                let spans = tokens.iter().map(|t| t.0).collect();
                Ok(Section {
                    content: Content::Regions { names, cells },
                    spans,
                })
            }
            LayerKind::RegionAttr { ty, .. }
            | LayerKind::LineAttr { ty, .. }
            | LayerKind::CellAttr { ty, .. }
            | LayerKind::NodeAttr { ty, .. } => {
                let tokens = match &layer.kind {
                    LayerKind::NodeAttr { nodes, .. } => {
                        tokens(layer, nodes.len(), text, at, whole)?
                    }
                    // As many words as the lines layer has lines: `check_line` counts.
                    LayerKind::LineAttr { .. } => words(text, at),
                    _ => self.cell_tokens(layer, text, at, whole)?,
                };
                let values = tokens
                    .iter()
                    .map(|&(span, token)| self.value(layer, *ty, token, span))
                    .collect::<Result<Vec<_>, _>>()?;
                let spans = tokens.iter().map(|t| t.0).collect();
                Ok(Section {
                    content: Content::Values(values),
                    spans,
                })
            }
        }
    }

    /// The tokens of a section with one per cell: one per position of the grid, as a
    /// puzzle line's givens, with those at the holes of a shaped grid dropped.
    fn cell_tokens<'t>(
        &self,
        layer: &Layer,
        text: &'t str,
        at: usize,
        whole: Span,
    ) -> Result<Vec<(Span, &'t str)>, Diagnostic> {
        let Some(grid) = self.grammar.grid.as_ref() else {
            return tokens(layer, 0, text, at, whole);
        };
        let all = tokens(layer, grid.area(), text, at, whole)?;
        Ok(all
            .into_iter()
            .enumerate()
            .filter(|&(pos, _)| !grid.is_hole(pos))
            .map(|(_, t)| t)
            .collect())
    }

    /// One token of an attribute layer: `.` sets nothing.
    fn value(
        &self,
        layer: &Layer,
        ty: AttrType,
        token: &str,
        span: Span,
    ) -> Result<Option<Value>, Diagnostic> {
        if token == "." {
            return Ok(None);
        }
        let domain = &self.grammar.domain;
        let found = match ty.base {
            BaseType::Int => token.parse().ok().map(Value::Int),
            BaseType::Value => domain.find(token).map(Value::Val),
            BaseType::Bool => match token {
                "1" | "true" => Some(Value::Bool(true)),
                "0" | "false" => Some(Value::Bool(false)),
                _ => None,
            },
        };
        found.map(Some).ok_or_else(|| {
            // Written only for the message: a line's every token is read here.
            let expected = match ty.base {
                BaseType::Int => "a number".to_string(),
                BaseType::Value => format!("a value ({})", domain.describe()),
                BaseType::Bool => "`1` or `0` (true or false)".to_string(),
            };
            Diagnostic::error(
                span,
                format!(
                    "unexpected `{token}` in layer `{}`: expected {expected} or `.`",
                    layer.name
                ),
            )
        })
    }

    /// `r1c1 r1c2 r1c3, r4c4 r3c4`: lines of cell names separated by `,`.
    fn lines(&self, layer: &Layer, text: &str, at: usize) -> Result<Section, Diagnostic> {
        let mut lines = Vec::new();
        let mut spans = Vec::new();
        if text.trim().is_empty() {
            return Ok(Section {
                content: Content::Lines(lines),
                spans,
            });
        }
        let mut offset = 0;
        for part in text.split(',') {
            let part_at = at + offset;
            offset += part.len() + 1;
            let names = words(part, part_at);
            if names.is_empty() {
                let span = Span::new(part_at, part_at + part.len());
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "empty line in layer `{}`: expected cell names (`r1c1 r1c2`) between commas",
                        layer.name
                    ),
                ));
            }
            let mut members: Vec<usize> = Vec::with_capacity(names.len());
            for (span, name) in names {
                let Some(&cell) = self.cells.get(name) else {
                    let grid = self.grammar.grid.as_ref();
                    let size = grid.map_or(String::new(), |g| {
                        format!(" (r1c1 .. r{}c{})", g.rows, g.cols)
                    });
                    return Err(Diagnostic::error(
                        span,
                        format!(
                            "unknown cell `{name}` in layer `{}`: expected a cell of the grid{size}",
                            layer.name
                        ),
                    ));
                };
                if members.contains(&cell) {
                    return Err(Diagnostic::error(
                        span,
                        format!(
                            "cell `{name}` is twice on line {} of layer `{}`: expected each member once",
                            lines.len() + 1,
                            layer.name
                        ),
                    ));
                }
                members.push(cell);
                spans.push(span);
            }
            lines.push(members);
        }
        Ok(Section {
            content: Content::Lines(lines),
            spans,
        })
    }

    /// Checks the sections of one line together: a region attribute's token must stand at
    /// a cell of a region of that line, one region gets one value, and no generated node
    /// takes a name already used.
    pub fn check_line(&self, sections: &[Option<Section>]) -> Vec<Diagnostic> {
        let content = |k: usize| sections.get(k).and_then(Option::as_ref).map(|s| &s.content);
        let mut errors = Vec::new();
        let declared = &self.grammar.layers;
        let mut made: HashSet<String> = HashSet::new();
        for ((layer, section), &clash_free) in declared.iter().zip(sections).zip(&self.clash_free) {
            let Some(section) = section else { continue };
            match (&layer.kind, &section.content) {
                (LayerKind::Regions { .. } | LayerKind::Lines { .. }, _) if clash_free => {}
                (LayerKind::Regions { .. }, Content::Regions { names, cells }) => {
                    // Each region's name, at its first cell.
                    let mut named = 0;
                    for (region, &span) in cells.iter().zip(&section.spans) {
                        if *region == Some(named as u32) {
                            let name = format!("{}_{}", layer.name, names[named]);
                            self.check_new(&name, span, &mut made, &mut errors);
                            named += 1;
                        }
                    }
                }
                (LayerKind::Lines { .. }, Content::Lines(lines)) => {
                    let mut first = 0;
                    for (k, line) in lines.iter().enumerate() {
                        let name = format!("{}_{}", layer.name, k + 1);
                        let span = section.spans[first];
                        self.check_new(&name, span, &mut made, &mut errors);
                        first += line.len();
                    }
                }
                (LayerKind::LineAttr { lines, .. }, Content::Values(values)) => {
                    let owner = &declared[*lines];
                    let count = match content(*lines) {
                        Some(Content::Lines(l)) => l.len(),
                        _ => 0,
                    };
                    if values.len() != count {
                        let span = match (section.spans.first(), section.spans.last()) {
                            (Some(a), Some(b)) => a.to(*b),
                            _ => layer.span,
                        };
                        errors.push(Diagnostic::error(
                            span,
                            format!(
                                "layer `{}` has {} token{}, expected {count}: one per line of layer `{}`, in order",
                                layer.name,
                                values.len(),
                                if values.len() == 1 { "" } else { "s" },
                                owner.name
                            ),
                        ));
                    }
                }
                (LayerKind::RegionAttr { regions, .. }, Content::Values(values)) => {
                    let owner = &declared[*regions];
                    let cells = match content(*regions) {
                        Some(Content::Regions { names, cells }) => Some((names, cells)),
                        _ => None,
                    };
                    // Per region (by number), the value its first token gave.
                    let mut set: Vec<Option<Value>> = vec![None; cells.map_or(0, |(n, _)| n.len())];
                    for (i, (value, &span)) in values.iter().zip(&section.spans).enumerate() {
                        let Some(value) = value else { continue };
                        let region = cells.and_then(|(names, cells)| Some((cells[i]?, names)));
                        let Some((region, names)) = region else {
                            let cell = self.cell_name(i);
                            errors.push(Diagnostic::error(
                                span,
                                format!(
                                    "layer `{}` sets a value at {cell}, which is in no region of layer `{}`: expected `.` there",
                                    layer.name, owner.name
                                ),
                            ));
                            continue;
                        };
                        match &mut set[region as usize] {
                            Some(first) if *first != *value => {
                                let region = &names[region as usize];
                                errors.push(Diagnostic::error(
                                    span,
                                    format!(
                                        "layer `{}` gives region `{}_{region}` a second value: expected one value per region, or the same",
                                        layer.name, owner.name
                                    ),
                                ));
                            }
                            Some(_) => {}
                            first => *first = Some(*value),
                        }
                    }
                }
                _ => {}
            }
        }
        errors
    }

    /// Records `name` as made by a layer; an error if it is taken.
    fn check_new(
        &self,
        name: &str,
        span: Span,
        made: &mut HashSet<String>,
        errors: &mut Vec<Diagnostic>,
    ) {
        if self.names.contains(name) || made.contains(name) {
            errors.push(Diagnostic::error(
                span,
                format!("this makes a node `{name}`, a name already taken: expected names that make new node names"),
            ));
        } else {
            made.insert(name.to_string());
        }
    }

    /// The name of grid cell `i` (`r2c3`).
    fn cell_name(&self, i: usize) -> String {
        let grid = self.grammar.grid.as_ref();
        grid.and_then(|g| g.cells.get(i))
            .and_then(|c| self.grammar.names.get(c.index()))
            .map(str::to_owned)
            .unwrap_or_else(|| format!("cell {}", i + 1))
    }
}

/// The `needed` tokens of a section: separated by blanks (as many words as tokens), or
/// compact, one character per token (blanks between characters ignored, so that a grid may
/// be written a row per word).
fn tokens<'t>(
    layer: &Layer,
    needed: usize,
    text: &'t str,
    at: usize,
    whole: Span,
) -> Result<Vec<(Span, &'t str)>, Diagnostic> {
    let words = words(text, at);
    if words.len() == needed {
        return Ok(words);
    }
    let chars: usize = words.iter().map(|w| w.1.chars().count()).sum();
    if chars == needed {
        return Ok(words
            .iter()
            .flat_map(|&(span, word)| {
                word.char_indices().map(move |(j, ch)| {
                    let at = span.start + j;
                    (
                        Span::new(at, at + ch.len_utf8()),
                        &word[j..j + ch.len_utf8()],
                    )
                })
            })
            .collect());
    }
    let span = match (words.first(), words.last()) {
        (Some(a), Some(b)) => a.0.to(b.0),
        _ => whole,
    };
    Err(Diagnostic::error(
        span,
        format!(
            "layer `{}` has {} word{} of {chars} characters, expected {needed} tokens ({})",
            layer.name,
            words.len(),
            if words.len() == 1 { "" } else { "s" },
            layer.kind.describe()
        ),
    )
    .with_note(format!(
        "write {needed} characters, one per token (`AABB..`), or {needed} words separated by blanks (`A A B 10 ..`)"
    )))
}

/// The blank-separated words of `text`, which starts at byte `at` of the file, with their
/// spans.
pub fn words(text: &str, at: usize) -> Vec<(Span, &str)> {
    // A word and a blank a cell (`. 3 .`): sized once, not grown eight times a line.
    let mut out = Vec::with_capacity(text.len() / 2 + 1);
    let mut start = None;
    let mut word_at = |j: usize, blank: bool| match (start, blank) {
        (None, false) => start = Some(j),
        (Some(s), true) => {
            out.push((Span::new(at + s, at + j), &text[s..j]));
            start = None;
        }
        _ => {}
    };
    // Byte by byte where the text is ASCII (puzzle lines nearly always are: a line of a
    // batch is read in about the time its puzzle takes to solve), else char by char, so
    // that every Unicode blank separates.
    if text.is_ascii() {
        for (j, b) in text.bytes().enumerate() {
            // `char::is_whitespace` on ASCII: tab to carriage return, and the space.
            word_at(j, b == b' ' || (b'\t'..=b'\r').contains(&b));
        }
    } else {
        for (j, ch) in text.char_indices() {
            word_at(j, ch.is_whitespace());
        }
    }
    word_at(text.len(), true);
    out
}
