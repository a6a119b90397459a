//! The rule files an import writes: a library file of `rules/`, compiled in, with its
//! size-dependent header (values, grid, boxes, shape) set for the puzzles' size and its own
//! puzzle (the `start` block, the layers' `= { ... }` content) left out.

/// The library files the janko kinds are written with.
pub mod library {
    pub const SUDOKU: (&str, &str) = (
        "sudoku-9x9",
        include_str!("../../../rules/sudoku-9x9.graft"),
    );
    pub const JIGSAW: (&str, &str) = (
        "jigsaw-6x6",
        include_str!("../../../rules/jigsaw-6x6.graft"),
    );
    pub const KILLER: (&str, &str) = (
        "killer-4x4",
        include_str!("../../../rules/killer-4x4.graft"),
    );
    pub const CONSECUTIVE: (&str, &str) = (
        "consecutive-6x6",
        include_str!("../../../rules/consecutive-6x6.graft"),
    );
    pub const EVEN_ODD: (&str, &str) = (
        "even-odd-6x6",
        include_str!("../../../rules/even-odd-6x6.graft"),
    );
    pub const MARGIN: (&str, &str) = (
        "margin-6x6",
        include_str!("../../../rules/margin-6x6.graft"),
    );
    pub const SKYSCRAPER_SUDOKU: (&str, &str) = (
        "skyscraper-sudoku-4x4",
        include_str!("../../../rules/skyscraper-sudoku-4x4.graft"),
    );
    pub const SKYSCRAPER: (&str, &str) = (
        "skyscraper-4x4",
        include_str!("../../../rules/skyscraper-4x4.graft"),
    );
    pub const RENBAN: (&str, &str) = (
        "renban-6x6",
        include_str!("../../../rules/renban-6x6.graft"),
    );
    pub const THERMOMETER: (&str, &str) = (
        "thermometer-puzzle-4x4",
        include_str!("../../../rules/thermometer-puzzle-4x4.graft"),
    );
    pub const KAKURO: (&str, &str) = (
        "kakuro-4x4",
        include_str!("../../../rules/kakuro-4x4.graft"),
    );
    pub const SAMURAI: (&str, &str) = (
        "samurai-21x21",
        include_str!("../../../rules/samurai-21x21.graft"),
    );
    pub const BUTTERFLY: (&str, &str) = (
        "butterfly-12x12",
        include_str!("../../../rules/butterfly-12x12.graft"),
    );
    pub const GATTAI_8: (&str, &str) = (
        "gattai-8-21x33",
        include_str!("../../../rules/gattai-8-21x33.graft"),
    );
    pub const SHOGUN: (&str, &str) = (
        "shogun-21x45",
        include_str!("../../../rules/shogun-21x45.graft"),
    );
    pub const SOHEI: (&str, &str) = (
        "sohei-21x21",
        include_str!("../../../rules/sohei-21x21.graft"),
    );
    pub const SUMO: (&str, &str) = (
        "sumo-33x33",
        include_str!("../../../rules/sumo-33x33.graft"),
    );
    pub const WINDMILL: (&str, &str) = (
        "windmill-21x21",
        include_str!("../../../rules/windmill-21x21.graft"),
    );
    pub const CLUELESS_1: (&str, &str) = (
        "clueless-1-27x27",
        include_str!("../../../rules/clueless-1-27x27.graft"),
    );
    pub const CLUELESS_2: (&str, &str) = (
        "clueless-2-27x27",
        include_str!("../../../rules/clueless-2-27x27.graft"),
    );
}

/// The size-dependent parts of a rule file; `None` keeps the library file's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Header {
    /// The `values` line's items (`1..16`).
    pub values: Option<String>,
    /// The grid's rows and columns.
    pub grid: Option<(usize, usize)>,
    /// The boxes' rows and columns, where the library file has `boxes`.
    pub boxes: Option<(usize, usize)>,
    /// A shape for the grid: one string of `#` (a cell) and `.` (a hole) per row.
    pub shape: Option<Vec<String>>,
    /// Generator lines added after the library file's first `groups` line.
    pub groups: Vec<String>,
}

/// The rule file for `header` from the library file `(name, text)`.
///
/// The library files keep the lines this edits on lines of their own: `values ...`,
/// `grid RxC of ...` (with `shape {` closed by a line `}`), `groups ... boxes RxC ...`,
/// `layer NAME: ... = {` closed by a `}` line (or on the same line), and `start {` closed by a
/// `}` line.
pub fn instantiate((name, text): (&str, &str), header: &Header) -> String {
    let mut out = format!(
        "// Written by `grafter import janko` from rules/{name}.graft: its rules, with the\n\
         // grid set for these puzzles; the puzzles' givens and layers are in the puzzle file.\n"
    );
    let mut lines = text.lines();
    let mut grouped = false;
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("values ") {
            match &header.values {
                Some(v) => out += &format!("values {v}\n"),
                None => out += &format!("{line}\n"),
            }
        } else if t.starts_with("grid ") {
            let mut line = match header.grid {
                Some((r, c)) => replace_dims(line, "grid ", r, c),
                None => line.to_string(),
            };
            if let Some(shape) = &header.shape {
                if let Some(at) = line.find("shape {") {
                    skip_block(&mut lines);
                    line.truncate(at);
                }
                out += &format!("{}shape {{\n", line.trim_end().to_string() + " ");
                for row in shape {
                    out += &format!("  {row}\n");
                }
                out += "}\n";
            } else {
                out += &format!("{line}\n");
            }
        } else if t.starts_with("groups ") {
            match header.boxes {
                Some((r, c)) if t.contains("boxes ") => {
                    out += &format!("{}\n", replace_dims(line, "boxes ", r, c))
                }
                _ => out += &format!("{line}\n"),
            }
            if !grouped {
                grouped = true;
                for g in &header.groups {
                    out += &format!("{g}\n");
                }
            }
        } else if t.starts_with("layer ") && line.contains("= {") {
            let at = line.find("= {").unwrap_or(line.len());
            out += &format!("{}\n", line[..at].trim_end());
            if !line[at..].contains('}') {
                skip_block(&mut lines);
            }
        } else if t.starts_with("start {") || t.starts_with("start{") {
            skip_block(&mut lines);
        } else {
            out += &format!("{line}\n");
        }
    }
    out
}

/// Skips lines up to and with the one that closes a block (a line starting with `}`).
fn skip_block<'a>(lines: &mut impl Iterator<Item = &'a str>) {
    for l in lines.by_ref() {
        if l.trim_start().starts_with('}') {
            break;
        }
    }
}

/// `line` with the `RxC` after `word` set to `r`x`c`.
fn replace_dims(line: &str, word: &str, r: usize, c: usize) -> String {
    let Some(at) = line.find(word) else {
        return line.to_string();
    };
    let start = at + word.len();
    let rest = &line[start..];
    let end = rest
        .find(|ch: char| !(ch.is_ascii_digit() || ch == 'x'))
        .unwrap_or(rest.len());
    format!("{}{r}x{c}{}", &line[..start], &rest[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_replaces_the_size_and_drops_the_files_own_puzzle() {
        let text = "values 1..4\ngrid 4x4 of Cell\ngroups rows, columns, boxes 2x2 via in\n\
                    layer cages: regions of Cage = {   // x\n  ab\n}\nlayer s: rows.s = { 1 2 }\n\
                    start {  // 3\n  ..\n}\nrule r {}\n";
        let h = Header {
            values: Some("1..9".into()),
            grid: Some((9, 9)),
            boxes: Some((3, 3)),
            shape: None,
            groups: vec!["groups diagonals via in".into()],
        };
        let out = instantiate(("t", text), &h);
        let body: Vec<&str> = out.lines().skip(2).collect();
        assert_eq!(
            body,
            [
                "values 1..9",
                "grid 9x9 of Cell",
                "groups rows, columns, boxes 3x3 via in",
                "groups diagonals via in",
                "layer cages: regions of Cage",
                "layer s: rows.s",
                "rule r {}"
            ]
        );
    }

    #[test]
    fn a_shape_replaces_the_library_files_shape() {
        let text = "grid 2x2 of Cell shape {\n  ##\n  #.\n}\nrule r {}\n";
        let h = Header {
            grid: Some((1, 3)),
            shape: Some(vec!["#.#".into()]),
            ..Header::default()
        };
        let out = instantiate(("t", text), &h);
        let body: Vec<&str> = out.lines().skip(2).collect();
        assert_eq!(
            body,
            ["grid 1x3 of Cell shape {", "  #.#", "}", "rule r {}"]
        );
    }
}
