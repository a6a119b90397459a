//! The janko kinds: which library file each is written with, the header its size needs, and
//! the puzzle line (givens and layers) each puzzle's `problem` becomes.

use super::dataset::Problem;
use super::template::{library, Header};

/// One puzzle, converted: the rule file it is solved with (by name, made from a library
/// file and a header) and its puzzle line.
pub struct Converted {
    /// The rule file's name without `.graft`; puzzles with the same name share the file.
    pub rules: String,
    pub library: (&'static str, &'static str),
    pub header: Header,
    pub line: String,
}

/// The kinds, by their dataset name.
pub const KINDS: [&str; 20] = [
    "Sudoku",
    "JigsawSudoku",
    "KillerSudoku",
    "ConsecutiveSudoku",
    "EvenOddSudoku",
    "MarginSudoku",
    "SkyscraperSudoku",
    "Skyscraper",
    "Renban",
    "Thermometer",
    "Kakuro",
    "SamuraiSudoku",
    "ButterflySudoku",
    "Gattai8Sudoku",
    "ShogunSudoku",
    "SoheiSudoku",
    "SumoSudoku",
    "WindmillSudoku",
    "Clueless1Sudoku",
    "Clueless2Sudoku",
];

/// Converts one puzzle of `kind` (one of [`KINDS`]).
pub fn convert(kind: &str, p: &mut Problem) -> Result<Converted, String> {
    let shaped = |lib: (&'static str, &'static str), p: &mut Problem| shaped(lib, p);
    let c = match kind {
        "Sudoku" => sudoku(p)?,
        "JigsawSudoku" => regions(p, library::JIGSAW, "jigsaw", "region")?,
        "KillerSudoku" => killer(p)?,
        "ConsecutiveSudoku" => consecutive(p)?,
        "EvenOddSudoku" => even_odd(p)?,
        "MarginSudoku" => margin(p)?,
        "SkyscraperSudoku" => skyscraper_sudoku(p)?,
        "Skyscraper" => skyscraper(p)?,
        "Renban" => regions(p, library::RENBAN, "renban", "run")?,
        "Thermometer" => thermometer(p)?,
        "Kakuro" => kakuro(p)?,
        "SamuraiSudoku" => shaped(library::SAMURAI, p)?,
        "ButterflySudoku" => shaped(library::BUTTERFLY, p)?,
        "Gattai8Sudoku" => shaped(library::GATTAI_8, p)?,
        "ShogunSudoku" => shaped(library::SHOGUN, p)?,
        "SoheiSudoku" => shaped(library::SOHEI, p)?,
        "SumoSudoku" => shaped(library::SUMO, p)?,
        "WindmillSudoku" => shaped(library::WINDMILL, p)?,
        "Clueless1Sudoku" => shaped(library::CLUELESS_1, p)?,
        "Clueless2Sudoku" => shaped(library::CLUELESS_2, p)?,
        _ => {
            return Err(format!(
                "unknown kind `{kind}`; expected one of {}",
                KINDS.join(", ")
            ))
        }
    };
    p.end()?;
    Ok(c)
}

/// A section's tokens, blank-separated (`-` becomes `.`: empty, no mark, no region).
fn words(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| if t == "-" { "." } else { t.as_str() })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Checks that every token is `-` or a number from 1 to `max`.
fn givens(tokens: &[String], max: usize) -> Result<String, String> {
    for t in tokens {
        if t != "-" && !matches!(t.parse::<usize>(), Ok(v) if (1..=max).contains(&v)) {
            return Err(format!("expected a given 1 to {max} or `-`, found `{t}`"));
        }
    }
    Ok(words(tokens))
}

/// A square grid, its side.
fn square(p: &Problem) -> Result<usize, String> {
    if p.rows != p.cols || p.rows < 2 {
        return Err(format!(
            "expected a square grid of at least 2x2, found {}x{}",
            p.rows, p.cols
        ));
    }
    Ok(p.rows)
}

/// A header without words after the dimensions.
fn no_extra(p: &Problem) -> Result<(), String> {
    match p.extra.first() {
        None => Ok(()),
        Some(w) => Err(format!(
            "expected the header `rows cols`, found `{w}` after them"
        )),
    }
}

/// The boxes of an n x n Sudoku: rows by columns, the rows the largest divisor of n not
/// above its square root (3x3 for 9, 2x3 for 6, 4x4 for 16); none for a prime n.
fn boxes(n: usize) -> Result<(usize, usize), String> {
    let r = (1..=n)
        .take_while(|r| r * r <= n)
        .filter(|r| n.is_multiple_of(*r))
        .last()
        .unwrap_or(1);
    if r == 1 {
        return Err(format!(
            "a {n}x{n} Sudoku has no boxes: expected a size with a divisor"
        ));
    }
    Ok((r, n / r))
}

/// The header of an n x n Latin square or Sudoku of 1..n.
fn latin(n: usize, boxes: Option<(usize, usize)>) -> Header {
    Header {
        values: Some(format!("1..{n}")),
        grid: Some((n, n)),
        boxes,
        ..Header::default()
    }
}

fn sudoku(p: &mut Problem) -> Result<Converted, String> {
    no_extra(p)?;
    let n = square(p)?;
    let header = latin(n, Some(boxes(n)?));
    let line = givens(&p.grid("givens")?, n)?;
    Ok(Converted {
        rules: format!("sudoku-{n}x{n}"),
        library: library::SUDOKU,
        header,
        line,
    })
}

/// Givens, then a region map: jigsaw regions, renban runs.
fn regions(
    p: &mut Problem,
    lib: (&'static str, &'static str),
    stem: &str,
    layer: &str,
) -> Result<Converted, String> {
    no_extra(p)?;
    let n = square(p)?;
    let g = givens(&p.grid("givens")?, n)?;
    let map = p.grid("the region map")?;
    if map.iter().any(|t| t == "-") {
        return Err("expected a region for every cell, found `-` in the region map".into());
    }
    Ok(Converted {
        rules: format!("{stem}-{n}x{n}"),
        library: lib,
        header: latin(n, None),
        line: format!("{g} | {layer}: {}", words(&map)),
    })
}

/// Cage sums (a number at one cell of each cage), then the cage map.
fn killer(p: &mut Problem) -> Result<Converted, String> {
    no_extra(p)?;
    let n = square(p)?;
    let sums = p.grid("cage sums")?;
    for t in &sums {
        if t != "-" && t.parse::<u32>().is_err() {
            return Err(format!("expected a cage sum or `-`, found `{t}`"));
        }
    }
    let cages = p.grid("the cage map")?;
    if cages.iter().any(|t| t == "-") {
        return Err("expected a cage for every cell, found `-` in the cage map".into());
    }
    let empty = vec![".".to_string(); n * n].join(" ");
    Ok(Converted {
        rules: format!("killer-{n}x{n}"),
        library: library::KILLER,
        header: latin(n, Some(boxes(n)?)),
        line: format!(
            "{empty} | cages: {} | sums: {}",
            words(&cages),
            words(&sums)
        ),
    })
}

/// Givens, then a bitmask per cell of the borders with a bar: 1 right, 2 bottom, 4 left,
/// 8 top. A bar is read from either cell beside it.
fn consecutive(p: &mut Problem) -> Result<Converted, String> {
    no_extra(p)?;
    let n = square(p)?;
    let g = givens(&p.grid("givens")?, n)?;
    let masks = p
        .grid("bar masks")?
        .iter()
        .map(|t| match t.parse::<u8>() {
            Ok(m) if m < 16 => Ok(m),
            _ => Err(format!("expected a bar mask 0 to 15, found `{t}`")),
        })
        .collect::<Result<Vec<u8>, String>>()?;
    let bit = |r: usize, c: usize, b: u8| masks[r * n + c] & b != 0;
    let (mut right, mut below) = (Vec::new(), Vec::new());
    for r in 0..n {
        for c in 0..n {
            let rt = bit(r, c, 1) || (c + 1 < n && bit(r, c + 1, 4));
            let bl = bit(r, c, 2) || (r + 1 < n && bit(r + 1, c, 8));
            right.push(if rt { "1" } else { "0" });
            below.push(if bl { "1" } else { "0" });
        }
    }
    Ok(Converted {
        rules: format!("consecutive-{n}x{n}"),
        library: library::CONSECUTIVE,
        header: latin(n, None),
        line: format!(
            "{g} | right: {} | below: {}",
            right.join(" "),
            below.join(" ")
        ),
    })
}

/// One layer: givens and the marks `E` (even) and `O` (odd).
fn even_odd(p: &mut Problem) -> Result<Converted, String> {
    no_extra(p)?;
    let n = square(p)?;
    let cells = p.grid("givens and marks")?;
    let mut g = Vec::new();
    let mut marks = Vec::new();
    for t in &cells {
        let (given, mark) = match t.as_str() {
            "E" => ("-".to_string(), "0"),
            "O" => ("-".to_string(), "1"),
            _ => (t.clone(), "."),
        };
        g.push(given);
        marks.push(mark);
    }
    Ok(Converted {
        rules: format!("even-odd-{n}x{n}"),
        library: library::EVEN_ODD,
        header: latin(n, Some(boxes(n)?)),
        line: format!("{} | parity: {}", givens(&g, n)?, marks.join(" ")),
    })
}

/// Four lines of clues — top (per column), bottom, left (per row), right — as
/// `(top, bottom, left, right)`, each token a number or `-`.
fn clue_lines(p: &mut Problem, n: usize) -> Result<[Vec<String>; 4], String> {
    let mut read = |what: &str| -> Result<Vec<String>, String> {
        let line = p.line(n, what)?;
        for t in &line {
            if t != "-" && t.parse::<u32>().is_err() {
                return Err(format!("expected a clue or `-` in {what}, found `{t}`"));
            }
        }
        Ok(line)
    };
    Ok([
        read("the top clues")?,
        read("the bottom clues")?,
        read("the left clues")?,
        read("the right clues")?,
    ])
}

/// Clues around the grid (the sum of the first three values seen from each side), then
/// givens. Each clue's three cells are a region of `across` or `down` with its sum.
fn margin(p: &mut Problem) -> Result<Converted, String> {
    no_extra(p)?;
    let n = square(p)?;
    if n < 6 {
        return Err(format!(
            "expected a grid of at least 6x6 for margin sums, found {n}x{n}"
        ));
    }
    let [top, bottom, left, right] = clue_lines(p, n)?;
    let g = givens(&p.grid("givens")?, n)?;
    let mut across = vec![".".to_string(); n * n];
    let mut down = across.clone();
    let mut across_sums = across.clone();
    let mut down_sums = across.clone();
    for i in 0..n {
        for (clue, name, first) in [(&left[i], "L", 0), (&right[i], "R", n - 3)] {
            if clue != "-" {
                for c in first..first + 3 {
                    across[i * n + c] = format!("{name}{}", i + 1);
                }
                across_sums[i * n + first] = clue.clone();
            }
        }
        for (clue, name, first) in [(&top[i], "T", 0), (&bottom[i], "B", n - 3)] {
            if clue != "-" {
                for r in first..first + 3 {
                    down[r * n + i] = format!("{name}{}", i + 1);
                }
                down_sums[first * n + i] = clue.clone();
            }
        }
    }
    Ok(Converted {
        rules: format!("margin-{n}x{n}"),
        library: library::MARGIN,
        header: latin(n, Some(boxes(n)?)),
        line: format!(
            "{g} | across: {} | down: {} | across_sums: {} | down_sums: {}",
            across.join(" "),
            down.join(" "),
            across_sums.join(" "),
            down_sums.join(" ")
        ),
    })
}

/// The clue layers of a skyscraper grid.
fn sight_sections(clues: &[Vec<String>; 4]) -> String {
    let [top, bottom, left, right] = clues;
    format!(
        "top: {} | bottom: {} | left: {} | right: {}",
        words(top),
        words(bottom),
        words(left),
        words(right)
    )
}

fn skyscraper_sudoku(p: &mut Problem) -> Result<Converted, String> {
    no_extra(p)?;
    let n = square(p)?;
    let clues = clue_lines(p, n)?;
    let g = givens(&p.grid("givens")?, n)?;
    Ok(Converted {
        rules: format!("skyscraper-sudoku-{n}x{n}"),
        library: library::SKYSCRAPER_SUDOKU,
        header: latin(n, Some(boxes(n)?)),
        line: format!("{g} | {}", sight_sections(&clues)),
    })
}

/// Header `n n [max] [D]`: heights 1..n, or 0..max with 0 an empty plot when max < n (each
/// line then has n - max of them); `D`: the main diagonals hold different heights too.
fn skyscraper(p: &mut Problem) -> Result<Converted, String> {
    let n = square(p)?;
    let mut max = n;
    let mut diagonals = false;
    for w in p.extra.clone() {
        match w.parse::<usize>() {
            _ if w == "D" => diagonals = true,
            Ok(m) if (1..=n).contains(&m) => max = m,
            _ => {
                return Err(format!(
                    "expected the largest height (1 to {n}) or `D` in the header, found `{w}`"
                ))
            }
        }
    }
    let clues = clue_lines(p, n)?;
    let cells = p.grid("givens")?;
    for t in &cells {
        if t != "-" && !matches!(t.parse::<usize>(), Ok(v) if v <= max) {
            return Err(format!("expected a height 0 to {max} or `-`, found `{t}`"));
        }
    }
    let mut header = Header {
        values: Some(if max == n {
            format!("1..{n}")
        } else {
            format!("0..{max}")
        }),
        grid: Some((n, n)),
        ..Header::default()
    };
    if diagonals {
        header.groups.push("groups diagonals via in".into());
    }
    let mut line = format!("{} | {}", words(&cells), sight_sections(&clues));
    if max < n {
        let blanks = vec![(n - max).to_string(); n].join(" ");
        line += &format!(" | row_blanks: {blanks} | column_blanks: {blanks}");
    }
    let d = if diagonals { "-d" } else { "" };
    Ok(Converted {
        rules: format!("skyscraper-{n}x{n}-{max}{d}"),
        library: library::SKYSCRAPER,
        header,
        line,
    })
}

/// Counts per column, then per row, then `T.P` per cell: thermometer T, position P from
/// the bulb.
fn thermometer(p: &mut Problem) -> Result<Converted, String> {
    no_extra(p)?;
    let (rows, cols) = (p.rows, p.cols);
    let count = |t: &String| t == "-" || t.parse::<u32>().is_ok();
    let columns = p.line(cols, "the column counts")?;
    let row_counts = p.line(rows, "the row counts")?;
    if let Some(t) = columns.iter().chain(&row_counts).find(|t| !count(t)) {
        return Err(format!("expected a count or `-`, found `{t}`"));
    }
    let cells = p.grid("thermometer cells")?;
    let mut thermos: std::collections::BTreeMap<u32, Vec<(u32, usize)>> = Default::default();
    let mut off = Vec::new();
    for (i, t) in cells.iter().enumerate() {
        if t == "-" {
            off.push(i);
            continue;
        }
        let parsed = t
            .split_once('.')
            .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
        let Some((thermo, pos)) = parsed else {
            return Err(format!(
                "expected a thermometer cell `T.P` or `-`, found `{t}`"
            ));
        };
        thermos.entry(thermo).or_default().push((pos, i));
    }
    let mut lines = Vec::new();
    for (t, mut members) in thermos {
        members.sort();
        if members
            .iter()
            .enumerate()
            .any(|(k, &(pos, _))| pos as usize != k + 1)
        {
            return Err(format!(
                "expected thermometer {t}'s positions to run 1, 2, ... from its bulb"
            ));
        }
        let names: Vec<String> = members
            .iter()
            .map(|&(_, i)| format!("r{}c{}", i / cols + 1, i % cols + 1))
            .collect();
        lines.push(names.join(" "));
    }
    // A cell on no thermometer is never filled.
    let g: Vec<&str> = (0..rows * cols)
        .map(|i| if off.contains(&i) { "0" } else { "." })
        .collect();
    let mut header = Header {
        grid: Some((rows, cols)),
        ..Header::default()
    };
    header.values = None;
    Ok(Converted {
        rules: format!("thermometer-{rows}x{cols}"),
        library: library::THERMOMETER,
        header,
        line: format!(
            "{} | thermos: {} | row_counts: {} | column_counts: {}",
            g.join(" "),
            lines.join(", "),
            words(&row_counts),
            words(&columns)
        ),
    })
}

/// One layer: `0` a white cell, `-` a black one, `D,R` a black cell with the sum of the run
/// below it and of the run right of it (either may be empty). The black cells are the
/// holes of the grid's shape, so each shape has a rule file of its own.
fn kakuro(p: &mut Problem) -> Result<Converted, String> {
    no_extra(p)?;
    let (rows, cols) = (p.rows, p.cols);
    let cells = p.grid("kakuro cells")?;
    let white: Vec<bool> = cells.iter().map(|t| t == "0").collect();
    let mut across = vec![".".to_string(); rows * cols];
    let mut down = across.clone();
    let mut across_sums = across.clone();
    let mut down_sums = across.clone();
    for (i, t) in cells.iter().enumerate() {
        if t == "0" || t == "-" {
            continue;
        }
        let Some((d, r)) = t.split_once(',') else {
            return Err(format!(
                "expected `0`, `-` or a clue `down,right`, found `{t}`"
            ));
        };
        let sum = |s: &str| -> Result<Option<u32>, String> {
            match s {
                "" => Ok(None),
                _ => s
                    .parse::<u32>()
                    .map(Some)
                    .map_err(|_| format!("expected a clue `down,right` of numbers, found `{t}`")),
            }
        };
        let (row, col) = (i / cols, i % cols);
        for (total, step, name, layer, sums) in [
            (sum(r)?, (0, 1), "a", &mut across, &mut across_sums),
            (sum(d)?, (1, 0), "d", &mut down, &mut down_sums),
        ] {
            let Some(total) = total else { continue };
            let (mut r, mut c) = (row + step.0, col + step.1);
            let mut first = true;
            while r < rows && c < cols && white[r * cols + c] {
                layer[r * cols + c] = format!("{name}{}", i + 1);
                if first {
                    sums[r * cols + c] = total.to_string();
                    first = false;
                }
                r += step.0;
                c += step.1;
            }
            if first {
                return Err(format!(
                    "the clue `{t}` at r{}c{} has no run",
                    row + 1,
                    col + 1
                ));
            }
        }
    }
    let shape: Vec<String> = (0..rows)
        .map(|r| {
            (0..cols)
                .map(|c| if white[r * cols + c] { '#' } else { '.' })
                .collect()
        })
        .collect();
    let g: Vec<&str> = white.iter().map(|&w| if w { "." } else { "-" }).collect();
    Ok(Converted {
        rules: format!("kakuro-{rows}x{cols}"),
        library: library::KAKURO,
        header: Header {
            grid: Some((rows, cols)),
            shape: Some(shape),
            ..Header::default()
        },
        line: format!(
            "{} | across: {} | down: {} | across_sums: {} | down_sums: {}",
            g.join(" "),
            across.join(" "),
            down.join(" "),
            across_sums.join(" "),
            down_sums.join(" ")
        ),
    })
}

/// Givens only, on the library file's own shape: one token per position, `-` at a hole.
fn shaped(lib: (&'static str, &'static str), p: &mut Problem) -> Result<Converted, String> {
    no_extra(p)?;
    let (name, _) = lib;
    let dims = name.rsplit('-').next().unwrap_or("");
    if dims != format!("{}x{}", p.rows, p.cols) {
        return Err(format!(
            "expected a {dims} grid for {name}, found {}x{}",
            p.rows, p.cols
        ));
    }
    let line = givens(&p.grid("givens")?, 9)?;
    Ok(Converted {
        rules: name.to_string(),
        library: lib,
        header: Header::default(),
        line,
    })
}
