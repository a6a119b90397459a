//! An f-puzzles document lowered to what grafter needs: the families of constraints it
//! uses (which pick the rule file) and, per layer, the tokens of its puzzle line.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::cells::{self, Pos, Side};
use super::families::FAMILIES;
use super::model::{self, number, Document};

/// One puzzle, lowered.
#[derive(Debug)]
pub struct Lowered {
    /// Rows and columns, and the values 1..size.
    pub size: i64,
    /// The standard boxes' rows and columns, when the regions are the standard boxes.
    pub boxes: Option<(i64, i64)>,
    /// The families used, by index in [`FAMILIES`], with the parameter each one's text
    /// takes (`{P}`), "" for none.
    pub families: BTreeMap<usize, String>,
    /// Per cell, row-major, its given value.
    pub givens: Vec<Option<i64>>,
    /// Per layer, its section's text (without the name), in the order they were made.
    pub sections: Vec<(String, String)>,
    /// The cosmetic keys present, which state no rule.
    pub ignored: BTreeSet<String>,
}

/// The box shape f-puzzles uses for a size: as many rows as the largest divisor not
/// above its square root, so 6 is 2x3 and a prime size has boxes of one row.
pub fn box_shape(size: i64) -> (i64, i64) {
    let mut h = 1;
    for d in 1..=size {
        if d * d <= size && size % d == 0 {
            h = d;
        }
    }
    (h, size / h)
}

/// Builds the lowered puzzle; an error says what was expected.
pub fn lower(doc: &Document) -> Result<Lowered, String> {
    let size = match doc.size.as_ref().and_then(number) {
        Some(n) if (4..=16).contains(&n) => n,
        Some(n) => return Err(format!("`size` is {n}: expected a grid of 4 to 16 rows")),
        None => return Err("no `size`: expected the grid's number of rows, 4 to 16".to_string()),
    };
    let mut b = Builder::new(size);
    b.grid(doc)?;
    b.keys(doc)?;
    Ok(b.done())
}

struct Builder {
    size: i64,
    boxes: Option<(i64, i64)>,
    families: BTreeMap<usize, String>,
    givens: Vec<Option<i64>>,
    regions: Vec<usize>,
    /// Lines layers: their lines, in order.
    lines: BTreeMap<&'static str, Vec<Vec<Pos>>>,
    /// Line attribute layers: one token per line of their lines layer.
    line_attrs: BTreeMap<&'static str, Vec<String>>,
    /// Cell attribute layers.
    cell_attrs: BTreeMap<&'static str, Vec<Option<String>>>,
    /// Row and column attribute layers.
    side_attrs: BTreeMap<&'static str, Vec<Option<String>>>,
    ignored: BTreeSet<String>,
}

impl Builder {
    fn new(size: i64) -> Builder {
        Builder {
            size,
            boxes: None,
            families: BTreeMap::new(),
            givens: vec![None; (size * size) as usize],
            regions: Vec::new(),
            lines: BTreeMap::new(),
            line_attrs: BTreeMap::new(),
            cell_attrs: BTreeMap::new(),
            side_attrs: BTreeMap::new(),
            ignored: BTreeSet::new(),
        }
    }

    fn use_family(&mut self, name: &str, param: String) {
        let i = FAMILIES
            .iter()
            .position(|f| f.name == name)
            .unwrap_or_else(|| unreachable!("no family `{name}`"));
        self.families.insert(i, param);
    }

    fn line(&mut self, family: &str, layer: &'static str, cells: Vec<Pos>) {
        self.use_family(family, String::new());
        self.lines.entry(layer).or_default().push(cells);
    }

    fn line_attr(&mut self, layer: &'static str, token: String) {
        self.line_attrs.entry(layer).or_default().push(token);
    }

    fn cell_attr(
        &mut self,
        family: &str,
        layer: &'static str,
        p: Pos,
        token: &str,
    ) -> Result<(), String> {
        self.use_family(family, String::new());
        let n = (self.size * self.size) as usize;
        let slot = &mut self
            .cell_attrs
            .entry(layer)
            .or_insert_with(|| vec![None; n])[p.index(self.size)];
        if let Some(old) = slot {
            if old != token {
                return Err(format!(
                    "cell `R{}C{}` is marked twice ({layer} {old} and {token}): expected one mark of a kind per cell",
                    p.row, p.col
                ));
            }
        }
        *slot = Some(token.to_string());
        Ok(())
    }

    /// An arrow whose circle of three or more cells reads as one number: each circle cell
    /// weighted by its place, each line the circle then its shaft. Returns the shafts' cells.
    fn long_arrow(&mut self, circle: &[Pos], lines: &[Vec<String>]) -> Result<Vec<Pos>, String> {
        let n = self.size;
        let mut shafts = Vec::new();
        for (i, &p) in circle.iter().enumerate() {
            let weight = 10_i64.pow((circle.len() - 1 - i) as u32);
            self.cell_attr("arrow-long", "arrow_weights", p, &weight.to_string())?;
        }
        for line in lines {
            let mut cells = circle.to_vec();
            for p in cells::inside_all(line, n, "an arrow")? {
                if !cells.contains(&p) {
                    cells.push(p);
                }
            }
            if cells.len() > circle.len() {
                shafts.extend_from_slice(&cells[circle.len()..]);
                self.line("arrow-long", "long_arrows", cells);
            }
        }
        Ok(shafts)
    }

    fn side_attr(
        &mut self,
        family: &str,
        layer: &'static str,
        k: i64,
        token: String,
        what: &str,
    ) -> Result<(), String> {
        self.use_family(family, String::new());
        let n = self.size as usize;
        let slot = &mut self
            .side_attrs
            .entry(layer)
            .or_insert_with(|| vec![None; n])[(k - 1) as usize];
        if slot.as_ref().is_some_and(|old| *old != token) {
            return Err(format!("two {what} clues for one line: expected one"));
        }
        *slot = Some(token);
        Ok(())
    }

    /// Givens and regions from `grid`.
    fn grid(&mut self, doc: &Document) -> Result<(), String> {
        let n = self.size;
        let grid = &doc.grid;
        if !grid.is_empty() {
            if grid.len() as i64 != n {
                return Err(format!(
                    "`grid` has {} rows: expected {n}, as `size` says (a square grid)",
                    grid.len()
                ));
            }
            if let Some((r, row)) = grid
                .iter()
                .enumerate()
                .find(|(_, row)| row.len() as i64 != n)
            {
                return Err(format!(
                    "row {} of `grid` has {} cells: expected {n} (a square grid)",
                    r + 1,
                    row.len()
                ));
            }
        }
        let (h, w) = box_shape(n);
        let mut explicit = false;
        self.regions = Vec::with_capacity((n * n) as usize);
        for r in 0..n {
            for c in 0..n {
                let cell = grid
                    .get(r as usize)
                    .and_then(|row| row.get(c as usize))
                    .and_then(Option::as_ref);
                let default = ((r / h) * (n / w) + c / w) as usize;
                let Some(cell) = cell else {
                    self.regions.push(default);
                    continue;
                };
                let at = format!("R{}C{}", r + 1, c + 1);
                if cell.given {
                    if let Some(v) = cell.value.as_ref().filter(|v| !v.is_null()) {
                        match number(v) {
                            Some(x) if (1..=n).contains(&x) => {
                                self.givens[(r * n + c) as usize] = Some(x)
                            }
                            _ => {
                                return Err(format!(
                                    "the given at {at} is {v}: expected a value 1 to {n}"
                                ))
                            }
                        }
                    }
                }
                if cell
                    .given_pencil_marks
                    .as_ref()
                    .is_some_and(|m| !m.is_empty())
                {
                    return Err(format!(
                        "cell {at} has `givenPencilMarks`, which the importer cannot state yet: expected none"
                    ));
                }
                match cell.region {
                    None => self.regions.push(default),
                    Some(k) if (0..n).contains(&k) => {
                        explicit |= k as usize != default;
                        self.regions.push(k as usize);
                    }
                    Some(k) => {
                        return Err(format!(
                            "cell {at} is in region {k}: expected a region 0 to {}",
                            n - 1
                        ))
                    }
                }
            }
        }
        for k in 0..n as usize {
            let count = self.regions.iter().filter(|&&r| r == k).count();
            if count as i64 != n {
                return Err(format!(
                    "region {k} has {count} cells: expected {n}, one per value"
                ));
            }
        }
        if !explicit {
            self.boxes = Some((h, w));
        }
        Ok(())
    }

    /// Every constraint key.
    fn keys(&mut self, doc: &Document) -> Result<(), String> {
        let n = self.size;
        for (key, value) in &doc.rest {
            if model::COSMETIC.contains(&key.as_str()) {
                self.ignored.insert(key.clone());
            } else if !model::METADATA.contains(&key.as_str()) && !value.is_null() {
                return Err(format!(
                    "unknown key `{key}`: expected an f-puzzles constraint (killercage, thermometer, arrow, ...)"
                ));
            }
        }
        if !doc.cage.is_empty() {
            self.ignored.insert("cage".to_string());
        }
        if doc.diagonal_minus {
            self.use_family("diagonal-down", String::new());
        }
        if doc.diagonal_plus {
            self.use_family("diagonal-up", String::new());
        }
        if doc.antiking {
            self.use_family("anti-king", String::new());
        }
        if doc.antiknight {
            self.use_family("anti-knight", String::new());
        }
        if doc.disjointgroups {
            let Some((h, w)) = self.boxes else {
                return Err("`disjointgroups` with irregular regions: expected the standard boxes, whose places it compares".to_string());
            };
            self.use_family("disjoint-groups", String::new());
            let tokens: Vec<String> = (0..n * n)
                .map(|i| format!("p{}", (i / n % h) * w + i % n % w + 1))
                .collect();
            self.cell_attrs
                .insert("disjoint", tokens.into_iter().map(Some).collect());
        }
        for cage in &doc.extraregion {
            let cells = cells::inside_all(&cage.cells, n, "an extra region")?;
            self.line("extra-regions", "extra", cells);
        }
        for cage in &doc.killercage {
            let cells = cells::inside_all(&cage.cells, n, "a killer cage")?;
            if let Some(total) = optional_number(&cage.value, "a killer cage's sum")? {
                self.line("sums", "sums", cells.clone());
                self.line_attr("totals", total.to_string());
            }
            self.line("extra-regions", "extra", cells);
        }
        for clue in &doc.littlekillersum {
            let Some(total) = optional_number(&clue.value, "a little killer's sum")? else {
                continue;
            };
            let start = cells::parse(&clue.cell)?;
            let (dr, dc) = match clue.direction.as_str() {
                "UL" => (-1, -1),
                "UR" => (-1, 1),
                "DL" => (1, -1),
                "DR" => (1, 1),
                d => {
                    return Err(format!(
                        "a little killer points `{d}`: expected UL, UR, DL or DR"
                    ))
                }
            };
            let mut cells = Vec::new();
            let mut p = Pos {
                row: start.row + dr,
                col: start.col + dc,
            };
            while p.inside(n) {
                cells.push(p);
                p = Pos {
                    row: p.row + dr,
                    col: p.col + dc,
                };
            }
            if cells.is_empty() || start.inside(n) {
                return Err(format!(
                    "a little killer at `{}` pointing {} crosses no cell: expected a clue just outside the grid pointing into it",
                    clue.cell, clue.direction
                ));
            }
            self.line("sums", "sums", cells);
            self.line_attr("totals", total.to_string());
        }
        for (marks, token) in [(&doc.odd, "1"), (&doc.even, "0")] {
            for m in marks {
                let p = cells::inside(&m.cell, n, "an odd or even mark")?;
                self.cell_attr("parity", "parity", p, token)?;
            }
        }
        for (marks, token) in [(&doc.minimum, "-1"), (&doc.maximum, "1")] {
            for m in marks {
                let p = cells::inside(&m.cell, n, "a minimum or maximum mark")?;
                self.cell_attr("minimum-maximum", "extreme", p, token)?;
            }
        }
        for (marks, token) in [
            (&doc.rowindexer, "1"),
            (&doc.columnindexer, "2"),
            (&doc.boxindexer, "3"),
        ] {
            if !marks.is_empty() && token == "3" && self.boxes.is_none() {
                return Err(
                    "`boxindexer` with irregular regions: expected the standard boxes".to_string(),
                );
            }
            for m in marks {
                for p in cells::inside_all(&m.cells, n, "an indexer")? {
                    self.cell_attr("indexers", "indexers", p, token)?;
                }
            }
        }
        let line_keys: [(&Vec<model::Lines>, &str, &'static str, &str); 11] = [
            (
                &doc.thermometer,
                "thermometer",
                "thermometers",
                "a thermometer",
            ),
            (
                &doc.slowthermometer,
                "slow-thermometer",
                "slow_thermometers",
                "a slow thermometer",
            ),
            (&doc.palindrome, "palindrome", "palindromes", "a palindrome"),
            (&doc.renban, "renban", "renbans", "a renban line"),
            (&doc.nabner, "nabner", "nabners", "a nabner line"),
            (
                &doc.entropicline,
                "entropic",
                "entropics",
                "an entropic line",
            ),
            (&doc.modularline, "modular", "modulars", "a modular line"),
            (&doc.betweenline, "between", "betweens", "a between line"),
            (
                &doc.doublearrow,
                "double-arrow",
                "double_arrows",
                "a double arrow",
            ),
            (
                &doc.regionsumline,
                "region-sum",
                "region_sums",
                "a region sum line",
            ),
            (&doc.zipperline, "zipper", "zippers", "a zipper line"),
        ];
        for (elements, family, layer, what) in line_keys {
            for e in elements {
                for line in &e.lines {
                    let cells = cells::inside_all(line, n, what)?;
                    if cells.len() >= 2 {
                        self.line(family, layer, cells);
                    }
                }
            }
        }
        // The lines of each difference are a layer of their own, whose `next` label the
        // NAC reads with that difference.
        let mut gaps = BTreeSet::new();
        for e in &doc.whispers {
            let g = optional_number(&e.value, "a whisper's difference")?.unwrap_or((n + 1) / 2);
            if !(1..n).contains(&g) {
                return Err(format!(
                    "a whisper's difference is {g}: expected 1 to {}",
                    n - 1
                ));
            }
            for line in &e.lines {
                let cells = cells::inside_all(line, n, "a whisper line")?;
                if cells.len() >= 2 {
                    gaps.insert(g);
                    self.lines.entry(whisper_layer(g)).or_default().push(cells);
                }
            }
        }
        if !gaps.is_empty() {
            let list: Vec<String> = gaps.iter().map(i64::to_string).collect();
            self.use_family("whispers", list.join(","));
        }
        let (mut long_circles, mut long_shafts) = (Vec::new(), Vec::new());
        for arrow in &doc.arrow {
            let circle = cells::inside_all(&arrow.cells, n, "an arrow's circle")?;
            if circle.is_empty() {
                return Err("an arrow's circle has no cell: expected 1 or more".to_string());
            }
            if circle.len() > 2 {
                long_shafts.extend(self.long_arrow(&circle, &arrow.lines)?);
                long_circles.extend(circle);
                continue;
            }
            for line in &arrow.lines {
                let mut cells = circle.clone();
                for p in cells::inside_all(line, n, "an arrow")? {
                    if !cells.contains(&p) {
                        cells.push(p);
                    }
                }
                if cells.len() > circle.len() {
                    for &p in &circle {
                        self.cell_attr("arrow", "circles", p, "1")?;
                    }
                    self.line("arrow", "arrows", cells);
                    self.line_attr("arrow_sizes", circle.len().to_string());
                }
            }
        }
        // A long circle's cells carry their weight in every line they are on: a shaft
        // through one would count its cell as a digit.
        if let Some(p) = long_shafts.iter().find(|p| long_circles.contains(p)) {
            return Err(format!(
                "an arrow's shaft crosses `R{}C{}`, a cell of a circle of three or more cells: expected such circles apart from every shaft",
                p.row, p.col
            ));
        }
        // Dots: with `negative` (or `nonconsecutive` for the difference of 1), every pair
        // that is not marked is not in a marked relation.
        let negative = |k: &str| doc.negative.iter().any(|x| x == k);
        let mut gaps = BTreeSet::new();
        for dot in &doc.difference {
            let g = optional_number(&dot.value, "a difference dot")?.unwrap_or(1);
            gaps.insert(g);
            let cells = pair(&dot.cells, n, "a difference dot")?;
            self.line("difference-dots", "differences", cells);
            self.line_attr("difference_gaps", g.to_string());
        }
        let mut forbidden_gaps = BTreeSet::new();
        if doc.nonconsecutive {
            forbidden_gaps.insert(1);
        }
        if negative("difference") {
            forbidden_gaps.extend(if gaps.is_empty() {
                BTreeSet::from([1])
            } else {
                gaps
            });
        }
        if !forbidden_gaps.is_empty() {
            self.use_family("difference-dots", String::new());
            let p: Vec<String> = forbidden_gaps
                .iter()
                .map(|g| format!("abs(val - v) == {g}"))
                .collect();
            self.use_family("negative-difference", p.join(" or "));
        }
        let mut factors = BTreeSet::new();
        for dot in &doc.ratio {
            let f = optional_number(&dot.value, "a ratio dot")?.unwrap_or(2);
            factors.insert(f);
            let cells = pair(&dot.cells, n, "a ratio dot")?;
            self.line("ratio-dots", "ratios", cells);
            self.line_attr("ratio_factors", f.to_string());
        }
        if negative("ratio") {
            self.use_family("ratio-dots", String::new());
            let factors = if factors.is_empty() {
                BTreeSet::from([2])
            } else {
                factors
            };
            let p: Vec<String> = factors
                .iter()
                .map(|f| format!("val == v * {f} or val * {f} == v"))
                .collect();
            self.use_family("negative-ratio", p.join(" or "));
        }
        for mark in &doc.xv {
            let total = match mark.value.as_ref().and_then(Value::as_str).map(str::trim) {
                Some("X" | "x") => 10,
                Some("V" | "v") => 5,
                _ => match mark.value.as_ref().and_then(number) {
                    Some(t) => t,
                    None => {
                        return Err(format!(
                            "an XV mark has value {}: expected \"X\" or \"V\"",
                            mark.value
                                .as_ref()
                                .map_or("none".to_string(), Value::to_string)
                        ))
                    }
                },
            };
            let cells = pair(&mark.cells, n, "an XV mark")?;
            self.line("xv", "xvs", cells);
            self.line_attr("xv_totals", total.to_string());
        }
        if negative("xv") {
            self.use_family("xv", String::new());
            self.use_family("negative-xv", String::new());
        }
        for clone in &doc.clone {
            let a = cells::inside_all(&clone.cells, n, "a clone")?;
            let b = cells::inside_all(&clone.clone_cells, n, "a clone")?;
            if a.len() != b.len() {
                return Err(format!(
                    "a clone has {} cells and {} clone cells: expected as many of each",
                    a.len(),
                    b.len()
                ));
            }
            for (p, q) in a.into_iter().zip(b) {
                if p != q {
                    self.line("clone", "clones", vec![p, q]);
                }
            }
        }
        let mut digits = BTreeSet::new();
        for quad in &doc.quadruple {
            let cells = cells::inside_all(&quad.cells, n, "a quadruple")?;
            if cells.len() != 4 {
                return Err(format!(
                    "a quadruple has {} cells: expected the four around its circle",
                    cells.len()
                ));
            }
            let mut times: BTreeMap<i64, usize> = BTreeMap::new();
            for v in &quad.values {
                match number(v) {
                    Some(d) if (1..=n).contains(&d) => *times.entry(d).or_default() += 1,
                    _ => return Err(format!("a quadruple holds {v}: expected values 1 to {n}")),
                }
            }
            if quad.values.len() > cells.len() {
                return Err(format!(
                    "a quadruple lists {} values for {} cells: expected at most one per cell",
                    quad.values.len(),
                    cells.len()
                ));
            }
            for (d, t) in times {
                digits.insert(d);
                let (lines, attrs) = quadruple_layers(d);
                self.lines.entry(lines).or_default().push(cells.clone());
                self.line_attr(attrs, t.to_string());
            }
        }
        if !digits.is_empty() {
            let list: Vec<String> = digits.iter().map(i64::to_string).collect();
            self.use_family("quadruple", list.join(","));
        }
        for clue in &doc.sandwichsum {
            let Some(total) = optional_number(&clue.value, "a sandwich clue")? else {
                continue;
            };
            let (side, k) = cells::outside(&clue.cell, n, "a sandwich clue")?;
            let layer = match side {
                Side::Left | Side::Right => "sandwich_rows",
                Side::Top | Side::Bottom => "sandwich_columns",
            };
            self.side_attr("sandwich", layer, k, total.to_string(), "sandwich")?;
        }
        for clue in &doc.xsum {
            let Some(total) = optional_number(&clue.value, "an x-sum clue")? else {
                continue;
            };
            let (side, k) = cells::outside(&clue.cell, n, "an x-sum clue")?;
            let layer = match side {
                Side::Left => "x_sum_left",
                Side::Right => "x_sum_right",
                Side::Top => "x_sum_top",
                Side::Bottom => "x_sum_bottom",
            };
            self.side_attr("x-sum", layer, k, total.to_string(), "x-sum")?;
        }
        for clue in &doc.skyscraper {
            let Some(total) = optional_number(&clue.value, "a skyscraper clue")? else {
                continue;
            };
            let (side, k) = cells::outside(&clue.cell, n, "a skyscraper clue")?;
            let layer = match side {
                Side::Left => "skyscraper_left",
                Side::Right => "skyscraper_right",
                Side::Top => "skyscraper_top",
                Side::Bottom => "skyscraper_bottom",
            };
            self.side_attr("skyscraper", layer, k, total.to_string(), "skyscraper")?;
        }
        Ok(())
    }

    fn done(self) -> Lowered {
        let mut sections = Vec::new();
        let letters = "ABCDEFGHIJKLMNOP";
        let regions: Vec<String> = self
            .regions
            .iter()
            .map(|&k| letters[k..k + 1].to_string())
            .collect();
        sections.push(("region".to_string(), regions.join(" ")));
        for (layer, lines) in &self.lines {
            let text: Vec<String> = lines
                .iter()
                .map(|l| l.iter().map(|p| p.name()).collect::<Vec<_>>().join(" "))
                .collect();
            sections.push((layer.to_string(), text.join(", ")));
        }
        for (layer, tokens) in &self.line_attrs {
            sections.push((layer.to_string(), tokens.join(" ")));
        }
        for (layer, tokens) in self.cell_attrs.iter().chain(&self.side_attrs) {
            let text: Vec<&str> = tokens.iter().map(|t| t.as_deref().unwrap_or(".")).collect();
            sections.push((layer.to_string(), text.join(" ")));
        }
        Lowered {
            size: self.size,
            boxes: self.boxes,
            families: self.families,
            givens: self.givens,
            sections,
            ignored: self.ignored,
        }
    }
}

/// The layers of the quadruples showing digit `d`: their lines, their `times`.
/// The layer of the whisper lines of difference `g` (1 to 15).
fn whisper_layer(g: i64) -> &'static str {
    const LINES: [&str; 15] = [
        "whispers_1",
        "whispers_2",
        "whispers_3",
        "whispers_4",
        "whispers_5",
        "whispers_6",
        "whispers_7",
        "whispers_8",
        "whispers_9",
        "whispers_10",
        "whispers_11",
        "whispers_12",
        "whispers_13",
        "whispers_14",
        "whispers_15",
    ];
    LINES[(g - 1) as usize]
}

fn quadruple_layers(d: i64) -> (&'static str, &'static str) {
    const LINES: [&str; 16] = [
        "quadruples_1",
        "quadruples_2",
        "quadruples_3",
        "quadruples_4",
        "quadruples_5",
        "quadruples_6",
        "quadruples_7",
        "quadruples_8",
        "quadruples_9",
        "quadruples_10",
        "quadruples_11",
        "quadruples_12",
        "quadruples_13",
        "quadruples_14",
        "quadruples_15",
        "quadruples_16",
    ];
    const TIMES: [&str; 16] = [
        "quadruple_times_1",
        "quadruple_times_2",
        "quadruple_times_3",
        "quadruple_times_4",
        "quadruple_times_5",
        "quadruple_times_6",
        "quadruple_times_7",
        "quadruple_times_8",
        "quadruple_times_9",
        "quadruple_times_10",
        "quadruple_times_11",
        "quadruple_times_12",
        "quadruple_times_13",
        "quadruple_times_14",
        "quadruple_times_15",
        "quadruple_times_16",
    ];
    (LINES[(d - 1) as usize], TIMES[(d - 1) as usize])
}

/// Two orthogonally adjacent cells, as a dot or a mark joins.
fn pair(names: &[String], size: i64, what: &str) -> Result<Vec<Pos>, String> {
    let cells = cells::inside_all(names, size, what)?;
    match cells.as_slice() {
        [a, b] if (a.row - b.row).abs() + (a.col - b.col).abs() == 1 => Ok(cells),
        _ => Err(format!(
            "{what} joins {}: expected two cells side by side",
            names.join(" ")
        )),
    }
}

/// A number given as a number or a string; `None` when absent or empty.
fn optional_number(v: &Option<Value>, what: &str) -> Result<Option<i64>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(v) => number(v)
            .map(Some)
            .ok_or_else(|| format!("{what} is {v}: expected a whole number")),
    }
}
