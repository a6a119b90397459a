//! A grid graph drawn as a puzzle board: cells at their places, givens in bold and placed
//! values in blue, regions as thick borders, extra groups shaded, diagonals, cages, lines,
//! and the edges between cells as what they mean; a legend says what each mark is.

use std::collections::{BTreeMap, HashMap};

use super::meaning::{grid_index, ordering, Ordering};
use super::structure::{read_board, Board, Reach, Relation, Shape};
use super::svg::{num, text_width, Anchor, PathData, Svg};
use super::Panel;
use crate::grammar::Grammar;
use crate::model::{Graph, NodeId};

/// A cell's side in pixels.
const S: f64 = 40.0;
/// The page's margin.
const MARGIN: f64 = 16.0;
const TITLE: f64 = 14.0;
const LEGEND: f64 = 12.0;
const GIVEN: &str = "#111111";
const PLACED: &str = "#1f5fbf";
/// Fills of extra groups, light enough for values to read on them.
const SHADES: [&str; 6] = [
    "#f6d55c", "#8fd3f4", "#b5e48c", "#f4a3c0", "#c9b6f2", "#ffc38a",
];
/// Colours of relations' marks and links, and of lines.
const MARKS: [&str; 5] = ["#222222", "#d1495b", "#00798c", "#7a4fb5", "#e07a10"];
const LINES: [&str; 4] = ["#9aa5b1", "#b08968", "#84a59d", "#a3a0d6"];

/// The board of `graph` (a state of `grammar`, whose grid it needs), with the values of
/// `start` drawn as givens; `None` without a grid.
pub fn board(
    grammar: &Grammar,
    graph: &Graph,
    start: &Graph,
    implied: &[Vec<NodeId>],
    title: &str,
) -> Option<Panel> {
    let b = read_board(grammar, graph, start, implied)?;
    Some(Drawing::new(grammar, &b).draw(title))
}

/// One legend entry: a swatch drawn by `swatch` at a point, and its text.
struct Entry {
    swatch: Swatch,
    text: String,
}

enum Swatch {
    Text(&'static str, &'static str),
    Thick,
    Shade(&'static str),
    Stroke(&'static str, bool),
    Dot(&'static str),
    Sign,
}

struct Drawing<'a> {
    grammar: &'a Grammar,
    b: &'a Board,
    /// Top-left corner of cell (0, 0).
    x0: f64,
    y0: f64,
    svg: Svg,
    legend: Vec<Entry>,
}

/// Room for numbers outside the grid, per side: (left, top, right, bottom).
fn clue_room(b: &Board) -> (bool, bool, bool, bool) {
    let mut room = (false, false, false, false);
    for g in &b.groups {
        if let Shape::RowOrColumn(h) = g.shape {
            match (h, g.numbers.len()) {
                (_, 0) => {}
                (true, 1) => room.0 = true,
                (false, 1) => room.1 = true,
                (true, _) => (room.0, room.2) = (true, true),
                (false, _) => (room.1, room.3) = (true, true),
            }
        }
    }
    room
}

/// Names listed shortly: `a, b, c` or `a, b, ... z (12)`.
fn names(list: &[&str]) -> String {
    match list.len() {
        0..=4 => list.join(", "),
        n => format!("{}, {}, ... {} ({n})", list[0], list[1], list[n - 1]),
    }
}

impl<'a> Drawing<'a> {
    fn new(grammar: &'a Grammar, b: &'a Board) -> Self {
        let room = clue_room(b);
        Drawing {
            grammar,
            b,
            x0: MARGIN + if room.0 { 0.8 * S } else { 0.0 },
            y0: MARGIN + TITLE + 8.0 + if room.1 { 0.8 * S } else { 0.0 },
            svg: Svg::new(),
            legend: Vec::new(),
        }
    }

    fn corner(&self, i: usize) -> (f64, f64) {
        let c = &self.b.cells[i];
        (
            self.x0 + f64::from(c.col) * S,
            self.y0 + f64::from(c.row) * S,
        )
    }

    fn centre(&self, i: usize) -> (f64, f64) {
        let (x, y) = self.corner(i);
        (x + S / 2.0, y + S / 2.0)
    }

    fn cell_name(&self, i: usize) -> String {
        crate::output::text::node_name(self.grammar, self.b.cells[i].node)
    }

    fn draw(mut self, title: &str) -> Panel {
        let (grid_w, grid_h) = (f64::from(self.b.cols) * S, f64::from(self.b.rows) * S);
        let room = clue_room(self.b);
        self.svg.text(
            "title",
            (MARGIN, MARGIN + TITLE * 0.8),
            TITLE,
            Anchor::Start,
            "font-weight=\"600\"",
            title,
        );
        for i in 0..self.b.cells.len() {
            let (x, y) = self.corner(i);
            self.svg.rect(
                "cell",
                x,
                y,
                S,
                S,
                "fill=\"white\" stroke=\"#b8b8b8\" stroke-width=\"1\"",
            );
        }
        self.shades();
        self.diagonals();
        self.regions();
        self.lines();
        self.cages();
        self.relations();
        self.values();
        self.clues();
        self.summary_entries();
        // The legend below the grid, one entry a line.
        let right = self.x0 + grid_w + if room.2 { 0.8 * S } else { 0.0 };
        let mut y = self.y0 + grid_h + if room.3 { 0.8 * S } else { 0.0 } + 12.0;
        let mut width = right + MARGIN;
        for e in std::mem::take(&mut self.legend) {
            let (sx, sy) = (MARGIN, y);
            self.swatch(&e.swatch, sx, sy);
            self.svg.text(
                "legend",
                (sx + 26.0, sy + LEGEND * 0.8),
                LEGEND,
                Anchor::Start,
                "fill=\"#333333\"",
                &e.text,
            );
            width = width.max(sx + 26.0 + text_width(&e.text, LEGEND) + MARGIN);
            y += LEGEND + 6.0;
        }
        width = width.max(MARGIN * 2.0 + text_width(title, TITLE) * 1.05);
        Panel {
            width,
            height: y + MARGIN - 6.0,
            body: std::mem::take(&mut self.svg).into_body(),
        }
    }

    fn swatch(&mut self, swatch: &Swatch, x: f64, y: f64) {
        let (w, h) = (18.0, LEGEND);
        let svg = &mut self.svg;
        match *swatch {
            Swatch::Text(fill, weight) => svg.text(
                "swatch",
                (x + w / 2.0, y + h * 0.85),
                h,
                Anchor::Middle,
                &format!("fill=\"{fill}\" font-weight=\"{weight}\""),
                "5",
            ),
            Swatch::Thick => svg.line(
                "swatch",
                (x, y + h / 2.0),
                (x + w, y + h / 2.0),
                "stroke=\"#111111\" stroke-width=\"3\"",
            ),
            Swatch::Shade(fill) => svg.rect(
                "swatch",
                x,
                y,
                w,
                h,
                &format!("fill=\"{fill}\" fill-opacity=\"0.55\" stroke=\"#b8b8b8\""),
            ),
            Swatch::Stroke(colour, dashed) => svg.line(
                "swatch",
                (x, y + h / 2.0),
                (x + w, y + h / 2.0),
                &format!(
                    "stroke=\"{colour}\" stroke-width=\"2\"{}",
                    if dashed {
                        " stroke-dasharray=\"4 3\""
                    } else {
                        ""
                    }
                ),
            ),
            Swatch::Dot(fill) => svg.circle(
                "swatch",
                (x + w / 2.0, y + h / 2.0),
                h * 0.35,
                &format!("fill=\"{fill}\" stroke=\"#111111\" stroke-width=\"1\""),
            ),
            Swatch::Sign => svg.text(
                "swatch",
                (x + w / 2.0, y + h * 0.85),
                h,
                Anchor::Middle,
                "fill=\"#111111\" font-weight=\"700\"",
                "<",
            ),
        }
    }

    /// Extra groups, each filled with a colour (groups of one type and size that do not
    /// overlap share one).
    fn shades(&mut self) {
        let mut families: BTreeMap<(String, usize), Vec<usize>> = BTreeMap::new();
        for (gi, g) in self.b.groups.iter().enumerate() {
            if g.shape == Shape::Extra {
                let ty =
                    g.ty.map_or(String::new(), |t| self.grammar.types.node(t).name.clone());
                families.entry((ty, g.members.len())).or_default().push(gi);
            }
        }
        let mut colour = 0;
        for (_, gs) in families {
            let disjoint = gs.iter().enumerate().all(|(i, &a)| {
                gs[i + 1..].iter().all(|&b| {
                    let (ma, mb) = (&self.b.groups[a].members, &self.b.groups[b].members);
                    ma.iter().all(|m| !mb.contains(m))
                })
            });
            let sets: Vec<Vec<usize>> = if disjoint {
                vec![gs]
            } else {
                gs.into_iter().map(|g| vec![g]).collect()
            };
            for set in sets {
                let fill = SHADES[colour % SHADES.len()];
                colour += 1;
                let mut listed = Vec::new();
                for &gi in &set {
                    let g = &self.b.groups[gi];
                    listed.push(g.name.as_str());
                    self.svg.open(
                        "shade",
                        &format!(" data-group=\"{}\"", super::svg::escape(&g.name)),
                    );
                    self.svg.title(&g.name);
                    for &m in &g.members {
                        let (x, y) = self.corner(m);
                        self.svg.rect(
                            "shade",
                            x,
                            y,
                            S,
                            S,
                            &format!("fill=\"{fill}\" fill-opacity=\"0.45\""),
                        );
                    }
                    self.svg.close();
                }
                let text = format!("shaded: {}", names(&listed));
                self.legend.push(Entry {
                    swatch: Swatch::Shade(fill),
                    text,
                });
            }
        }
    }

    fn diagonals(&mut self) {
        let mut listed = Vec::new();
        for g in &self.b.groups {
            if let Shape::Diagonal(order) = &g.shape {
                let (a, z) = (self.centre(order[0]), self.centre(order[order.len() - 1]));
                self.svg.line(
                    "diagonal",
                    a,
                    z,
                    "stroke=\"#d1495b\" stroke-width=\"3\" stroke-opacity=\"0.45\" stroke-linecap=\"round\"",
                );
                listed.push(g.name.as_str());
            }
        }
        if !listed.is_empty() {
            let text = format!("diagonal: {}", names(&listed));
            self.legend.push(Entry {
                swatch: Swatch::Stroke("#d1495b", false),
                text,
            });
        }
    }

    /// Thick lines between cells of different regions and around the grid's outline.
    fn regions(&mut self) {
        let mut region_of: HashMap<usize, usize> = HashMap::new();
        let mut listed = Vec::new();
        for (gi, g) in self.b.groups.iter().enumerate() {
            if g.shape == Shape::Region {
                listed.push(g.name.as_str());
                for &m in &g.members {
                    region_of.insert(m, gi);
                }
            }
        }
        let style = "stroke=\"#111111\" stroke-width=\"3\" stroke-linecap=\"square\"";
        for i in 0..self.b.cells.len() {
            let c = &self.b.cells[i];
            let (x, y) = self.corner(i);
            // Each side once: from the cell above or to the left where there is one.
            let sides = [
                (c.row.checked_sub(1).map(|r| (r, c.col)), (x, y), (x + S, y)),
                (c.col.checked_sub(1).map(|k| (c.row, k)), (x, y), (x, y + S)),
                (Some((c.row + 1, c.col)), (x, y + S), (x + S, y + S)),
                (Some((c.row, c.col + 1)), (x + S, y), (x + S, y + S)),
            ];
            for (k, (near, a, z)) in sides.into_iter().enumerate() {
                let other = near.and_then(|p| self.b.at.get(&p).copied());
                let class = match other {
                    None => "outline",
                    // The far side draws the sides it shares below and to the right.
                    Some(_) if k >= 2 => continue,
                    Some(o)
                        if region_of.get(&i) != region_of.get(&o)
                            && (region_of.contains_key(&i) || region_of.contains_key(&o)) =>
                    {
                        "region-border"
                    }
                    Some(_) => continue,
                };
                self.svg.line(class, a, z, style);
            }
        }
        if !listed.is_empty() {
            let text = format!("thick borders: regions {}", names(&listed));
            self.legend.push(Entry {
                swatch: Swatch::Thick,
                text,
            });
        }
    }

    /// Lines through their members' centres, a circle at the first.
    fn lines(&mut self) {
        let mut n = 0;
        for g in &self.b.groups {
            let Shape::Line(order, label) = &g.shape else {
                continue;
            };
            let colour = LINES[n % LINES.len()];
            n += 1;
            let points: Vec<(f64, f64)> = order.iter().map(|&m| self.centre(m)).collect();
            self.svg.open(
                "line",
                &format!(" data-group=\"{}\"", super::svg::escape(&g.name)),
            );
            self.svg.title(&g.name);
            self.svg.circle(
                "line-start",
                points[0],
                0.3 * S,
                &format!("fill=\"{colour}\" fill-opacity=\"0.75\""),
            );
            self.svg.polyline(
                "line",
                &points,
                &format!("fill=\"none\" stroke=\"{colour}\" stroke-opacity=\"0.75\" stroke-width=\"{}\" stroke-linecap=\"round\" stroke-linejoin=\"round\"", num(0.2 * S)),
            );
            self.svg.close();
            let text = format!(
                "line from its circle: {} ({} cells, `{}` edges)",
                g.name,
                order.len(),
                self.grammar.types.label(*label).name
            );
            self.legend.push(Entry {
                swatch: Swatch::Stroke(colour, false),
                text,
            });
        }
    }

    /// Dashed outlines inside the cells of each cage, its number in the first cell's corner.
    fn cages(&mut self) {
        let inset = 0.09 * S;
        let mut listed = Vec::new();
        for g in &self.b.groups {
            let Shape::Cage(number) = &g.shape else {
                continue;
            };
            listed.push(g.name.as_str());
            let member = |r: i64, k: i64| {
                r >= 0
                    && k >= 0
                    && self
                        .b
                        .at
                        .get(&(r as u32, k as u32))
                        .is_some_and(|i| g.members.binary_search(i).is_ok())
            };
            let mut d = PathData::new();
            for &m in &g.members {
                let c = &self.b.cells[m];
                let (r, k) = (i64::from(c.row), i64::from(c.col));
                let (x, y) = self.corner(m);
                // Each side facing outside the cage, inset; its ends reach the next cell's
                // side where the outline goes on (further on a concave corner).
                for (dr, dc) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                    if member(r + dr, k + dc) {
                        continue;
                    }
                    // Along the side: the two directions perpendicular to (dr, dc).
                    let (ar, ac) = (dc.abs(), dr.abs());
                    let end = |sign: i64| {
                        let along = member(r + sign * ar, k + sign * ac);
                        let around = member(r + sign * ar + dr, k + sign * ac + dc);
                        match (along, around) {
                            (true, true) => S / 2.0 + inset,
                            (true, false) => S / 2.0,
                            _ => S / 2.0 - inset,
                        }
                    };
                    let (cx, cy) = (x + S / 2.0, y + S / 2.0);
                    let (nx, ny) = (dc as f64 * (S / 2.0 - inset), dr as f64 * (S / 2.0 - inset));
                    let (ux, uy) = (ac as f64, ar as f64);
                    let (lo, hi) = (end(-1), end(1));
                    d = d
                        .move_to((cx + nx - ux * lo, cy + ny - uy * lo))
                        .line_to((cx + nx + ux * hi, cy + ny + uy * hi));
                }
            }
            self.svg.open(
                "cage",
                &format!(" data-group=\"{}\"", super::svg::escape(&g.name)),
            );
            self.svg.title(&format!("{} = {number}", g.name));
            self.svg.path(
                "cage",
                &d.build(),
                "fill=\"none\" stroke=\"#333333\" stroke-width=\"1.2\" stroke-dasharray=\"4 3\"",
            );
            let first = g.members[0];
            let (x, y) = self.corner(first);
            let size = 0.26 * S;
            let w = text_width(number, size) + 3.0;
            self.svg.rect(
                "cage-sum-bg",
                x + inset - 1.0,
                y + inset - 1.0,
                w,
                size + 1.0,
                "fill=\"white\"",
            );
            self.svg.text(
                "cage-sum",
                (x + inset + 0.5, y + inset + size * 0.8),
                size,
                Anchor::Start,
                "fill=\"#111111\"",
                number,
            );
            self.svg.close();
        }
        if !listed.is_empty() {
            let text = format!("dashed cage, its number in the corner: {}", names(&listed));
            self.legend.push(Entry {
                swatch: Swatch::Stroke("#333333", true),
                text,
            });
        }
    }

    /// Edges between cells: signs and marks between neighbours, links between cells apart.
    fn relations(&mut self) {
        for (ri, rel) in self.b.relations.iter().enumerate() {
            // Marks between neighbours start from black; links, thin, from a colour.
            let colour = match rel.reach {
                Reach::Neighbours => MARKS[ri % MARKS.len()],
                Reach::Apart => MARKS[(ri + 1) % MARKS.len()],
            };
            let order = if rel.directed && rel.reach == Reach::Neighbours {
                let (s, t) = rel.edges[0];
                match (
                    grid_index(self.grammar, self.b.cells[s].node),
                    grid_index(self.grammar, self.b.cells[t].node),
                ) {
                    (Some(s), Some(t)) => ordering(self.grammar, s, t),
                    _ => None,
                }
            } else {
                None
            };
            // With groups only the rules imply (no group nodes), edges inside them are the
            // means by which the rules find those groups (chains along a row): said, not
            // drawn.
            if order.is_none() && self.within_implied_groups(rel) {
                let text = format!(
                    "`{}` edges ({}): each inside a group the rules imply, so not drawn",
                    rel.name,
                    rel.edges.len()
                );
                self.legend.push(Entry {
                    swatch: Swatch::Stroke("#b8b8b8", true),
                    text,
                });
                continue;
            }
            let edges = self.shown_edges(rel);
            let mut drawn = std::collections::BTreeSet::new();
            for &(s, t) in &edges {
                // A pair joined both ways is drawn once.
                if !drawn.insert((s.min(t), s.max(t))) && !rel.directed {
                    continue;
                }
                let (a, z) = (self.centre(s), self.centre(t));
                let (ux, uy) = unit(a, z);
                let mid = ((a.0 + z.0) / 2.0, (a.1 + z.1) / 2.0);
                let class = format!("rel rel-{}", rel.name);
                match (rel.reach, order) {
                    (Reach::Neighbours, Some(o)) => {
                        // The sign's point at the smaller end.
                        let toward = if o == Ordering::Less { -1.0 } else { 1.0 };
                        let (a, w) = (0.11 * S, 0.14 * S);
                        let tip = (mid.0 + toward * ux * a, mid.1 + toward * uy * a);
                        let back = (mid.0 - toward * ux * a, mid.1 - toward * uy * a);
                        let d = PathData::new()
                            .move_to((back.0 - uy * w, back.1 + ux * w))
                            .line_to(tip)
                            .line_to((back.0 + uy * w, back.1 - ux * w))
                            .build();
                        self.svg.path(
                            &format!("{class} ineq"),
                            &d,
                            "fill=\"none\" stroke=\"#111111\" stroke-width=\"2.5\" stroke-linecap=\"round\" stroke-linejoin=\"round\"",
                        );
                    }
                    (Reach::Neighbours, None) if rel.directed => {
                        let (a, w) = (0.1 * S, 0.1 * S);
                        let d = PathData::new()
                            .move_to((mid.0 - ux * a - uy * w, mid.1 - uy * a + ux * w))
                            .line_to((mid.0 + ux * a, mid.1 + uy * a))
                            .line_to((mid.0 - ux * a + uy * w, mid.1 - uy * a - ux * w))
                            .close()
                            .build();
                        self.svg
                            .path(&format!("{class} arrow"), &d, &format!("fill=\"{colour}\""));
                    }
                    (Reach::Neighbours, None) => {
                        self.svg.circle(
                            &format!("{class} mark"),
                            mid,
                            0.11 * S,
                            &format!("fill=\"{colour}\" stroke=\"#111111\" stroke-width=\"1\""),
                        );
                    }
                    (Reach::Apart, _) => {
                        let cut = 0.22 * S;
                        let from = (a.0 + ux * cut, a.1 + uy * cut);
                        let to = (z.0 - ux * cut, z.1 - uy * cut);
                        self.svg.line(
                            &format!("{class} link"),
                            from,
                            to,
                            &format!("stroke=\"{colour}\" stroke-width=\"2\" stroke-opacity=\"0.8\" stroke-linecap=\"round\""),
                        );
                        self.svg.circle(
                            &format!("{class} link-end"),
                            to,
                            2.5,
                            &format!("fill=\"{colour}\""),
                        );
                    }
                }
            }
            let what = match (rel.reach, order, rel.directed) {
                (Reach::Neighbours, Some(_), _) => "the sign points at the smaller value",
                (Reach::Neighbours, None, true) => "a mark pointing from source to target",
                (Reach::Neighbours, None, false) => "a mark between neighbours",
                (Reach::Apart, _, _) => "a link between the cells",
            };
            let mut text = format!("`{}` edges: {what} ({} edges", rel.name, rel.edges.len());
            if rel.uniform {
                let at = self.cell_name(self.example_cell(rel));
                text.push_str(&format!(
                    ": every pair at these offsets, shown at {at} only"
                ));
            }
            text.push(')');
            let swatch = match (rel.reach, order) {
                (Reach::Neighbours, Some(_)) => Swatch::Sign,
                (Reach::Neighbours, None) => Swatch::Dot(colour),
                (Reach::Apart, _) => Swatch::Stroke(colour, false),
            };
            self.legend.push(Entry { swatch, text });
        }
    }

    /// True when the groups are those the rules imply and every edge of `rel` joins two
    /// cells of one of them.
    fn within_implied_groups(&self, rel: &Relation) -> bool {
        if self.b.groups.is_empty() || self.b.groups.iter().any(|g| g.ty.is_some()) {
            return false;
        }
        rel.edges.iter().all(|&(s, t)| {
            self.b
                .groups
                .iter()
                .any(|g| g.members.binary_search(&s).is_ok() && g.members.binary_search(&t).is_ok())
        })
    }

    /// The cell nearest the centre among those with the most edges of `rel`.
    fn example_cell(&self, rel: &Relation) -> usize {
        let mut degree: HashMap<usize, usize> = HashMap::new();
        for &(s, _) in &rel.edges {
            *degree.entry(s).or_default() += 1;
        }
        let (mr, mc) = (
            f64::from(self.b.rows - 1) / 2.0,
            f64::from(self.b.cols - 1) / 2.0,
        );
        let most = degree.values().copied().max().unwrap_or(0);
        degree
            .iter()
            .filter(|&(_, &d)| d == most)
            .map(|(&i, _)| i)
            .min_by(|&a, &b| {
                let dist = |i: usize| {
                    let c = &self.b.cells[i];
                    (f64::from(c.row) - mr).powi(2) + (f64::from(c.col) - mc).powi(2)
                };
                dist(a).total_cmp(&dist(b)).then(a.cmp(&b))
            })
            .unwrap_or(0)
    }

    /// The edges drawn: all of them, or for a uniform label those of one example cell.
    fn shown_edges(&self, rel: &Relation) -> Vec<(usize, usize)> {
        if !rel.uniform {
            return rel.edges.clone();
        }
        let at = self.example_cell(rel);
        rel.edges
            .iter()
            .copied()
            .filter(|&(s, _)| s == at)
            .collect()
    }

    fn values(&mut self) {
        for i in 0..self.b.cells.len() {
            let c = &self.b.cells[i];
            let (x, y) = self.corner(i);
            if let Some(v) = &c.value {
                let size = if v.chars().count() > 1 {
                    0.42 * S
                } else {
                    0.55 * S
                };
                let (class, style) = if c.given {
                    ("given", format!("fill=\"{GIVEN}\" font-weight=\"700\""))
                } else {
                    ("placed", format!("fill=\"{PLACED}\""))
                };
                let v = v.clone();
                self.svg
                    .centred(class, (x + S / 2.0, y + S / 2.0 + 1.0), size, &style, &v);
            }
            if !c.notes.is_empty() {
                let text = c.notes.join(" ");
                self.svg.text(
                    "cell-note",
                    (x + S - 2.5, y + S - 3.0),
                    0.2 * S,
                    Anchor::End,
                    "fill=\"#666666\"",
                    &text,
                );
            }
        }
    }

    /// Numbers set on rows and columns, outside the grid beside them.
    fn clues(&mut self) {
        for g in &self.b.groups {
            let Shape::RowOrColumn(horizontal) = g.shape else {
                continue;
            };
            let (first, last) = (g.members[0], g.members[g.members.len() - 1]);
            let (a, z) = (self.centre(first), self.centre(last));
            for (k, (_, n)) in g.numbers.iter().take(2).enumerate() {
                let at = match (horizontal, k) {
                    (true, 0) => (a.0 - 0.8 * S, a.1),
                    (true, _) => (z.0 + 0.8 * S, z.1),
                    (false, 0) => (a.0, a.1 - 0.8 * S),
                    (false, _) => (z.0, z.1 + 0.8 * S),
                };
                self.svg
                    .centred("clue", at, 0.4 * S, "fill=\"#111111\"", &n.to_string());
            }
        }
    }

    /// Legend lines for what every board has: values, and the rows and columns.
    fn summary_entries(&mut self) {
        let (rows, cols) = self
            .b
            .groups
            .iter()
            .fold((0, 0), |(r, c), g| match g.shape {
                Shape::RowOrColumn(true) => (r + 1, c),
                Shape::RowOrColumn(false) => (r, c + 1),
                _ => (r, c),
            });
        let mut head = vec![
            Entry {
                swatch: Swatch::Text(GIVEN, "700"),
                text: "given".to_string(),
            },
            Entry {
                swatch: Swatch::Text(PLACED, "400"),
                text: "placed by the rules".to_string(),
            },
        ];
        if !self.b.groups.is_empty() && self.b.groups.iter().all(|g| g.ty.is_none()) {
            head.push(Entry {
                swatch: Swatch::Stroke("#b8b8b8", true),
                text: "no group nodes: the groups drawn are cells the rules keep distinct"
                    .to_string(),
            });
        }
        if rows + cols > 0 {
            head.push(Entry {
                swatch: Swatch::Stroke("#b8b8b8", false),
                text: format!("{rows} row groups and {cols} column groups, drawn by the grid"),
            });
        }
        head.append(&mut self.legend);
        self.legend = head;
    }
}

/// The unit vector from `a` to `z`.
fn unit(a: (f64, f64), z: (f64, f64)) -> (f64, f64) {
    let (dx, dy) = (z.0 - a.0, z.1 - a.1);
    let len = (dx * dx + dy * dy).sqrt().max(1e-9);
    (dx / len, dy / len)
}
