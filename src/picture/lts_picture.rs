//! A recorded state space drawn GROOVE-style: states in layers by their distance from the
//! start, transitions as labelled arrows, the start, final states, dead ends and states
//! with transitions left out by the cap each marked; small grids drawn inside the states.

use std::collections::{BTreeMap, HashMap};

use super::lts::{Lts, StateKind};
use super::svg::{text_width, Anchor, PathData, Svg};
use super::Panel;
use crate::grammar::Grammar;

const MARGIN: f64 = 20.0;
/// Past this many transitions, labels are left to tooltips.
const LABELLED: usize = 80;
/// Past this many states in a layer, the layer wraps onto further rows.
const WRAP: usize = 24;
/// Grids drawn inside states when there are at most this many states and cells.
const MINI_STATES: usize = 80;
const MINI_CELLS: usize = 36;
const FINAL: (&str, &str) = ("#dff3e4", "#1a7f37");
const DEAD: (&str, &str) = ("#f4c7c3", "#b3261e");

/// The state space as a picture.
pub fn lts_picture(grammar: &Grammar, lts: &Lts, title: &str) -> Panel {
    let cols = grammar.grid.as_ref().map_or(0, |g| g.cols as usize);
    let mini = lts.states.len() <= MINI_STATES
        && grammar.grid.as_ref().is_some_and(|g| g.len() <= MINI_CELLS)
        && grammar.domain.single_chars()
        && cols > 0;
    // A state's box: a circle of radius r, or a box holding its grid.
    let (w, h) = if mini {
        let rows = grammar.grid.as_ref().map_or(1, |g| g.rows as usize);
        (cols as f64 * 8.0 + 14.0, rows as f64 * 11.0 + 18.0)
    } else {
        (30.0, 30.0)
    };
    let (gap_x, gap_y) = (w + 18.0, h + 56.0);
    // Layers by depth, ordered by the mean place of their predecessors.
    let mut layers: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, s) in lts.states.iter().enumerate() {
        layers.entry(s.depth).or_default().push(i);
    }
    let mut preds: HashMap<usize, Vec<usize>> = HashMap::new();
    for &(a, _, b) in &lts.transitions {
        preds.entry(b as usize).or_default().push(a as usize);
    }
    let mut at: Vec<(f64, f64)> = vec![(0.0, 0.0); lts.states.len()];
    let widest = layers
        .values()
        .map(|l| l.len().min(WRAP))
        .max()
        .unwrap_or(1);
    let full = widest as f64 * gap_x;
    let capped = lts.cap_message();
    let mut y = MARGIN + if capped.is_some() { 62.0 } else { 44.0 } + h / 2.0;
    // Each layer's top and bottom, for a band behind it.
    let mut bands: Vec<(u32, f64, f64)> = Vec::new();
    for (&depth, layer) in layers.iter_mut() {
        let band_top = y - h / 2.0 - 14.0;
        let placed_x = |i: usize, at: &Vec<(f64, f64)>| {
            let xs: Vec<f64> = preds
                .get(&i)
                .into_iter()
                .flatten()
                .filter(|&&p| lts.states[p].depth < lts.states[i].depth)
                .map(|&p| at[p].0)
                .collect();
            if xs.is_empty() {
                0.0
            } else {
                xs.iter().sum::<f64>() / xs.len() as f64
            }
        };
        layer.sort_by(|&a, &b| {
            placed_x(a, &at)
                .total_cmp(&placed_x(b, &at))
                .then(a.cmp(&b))
        });
        for row in layer.chunks(WRAP) {
            let span = row.len() as f64 * gap_x;
            let x0 = MARGIN + (full - span) / 2.0 + gap_x / 2.0;
            for (k, &i) in row.iter().enumerate() {
                at[i] = (x0 + k as f64 * gap_x, y);
            }
            y += gap_y;
        }
        bands.push((depth, band_top, y - gap_y + h / 2.0 + 18.0));
    }
    // Arrows back up bow out to the left: make room for them.
    let reach = lts
        .transitions
        .iter()
        .filter(|&&(a, _, b)| a != b && at[b as usize].1 <= at[a as usize].1 + 1.0)
        .map(|&(a, _, b)| {
            let (pa, pb) = (at[a as usize], at[b as usize]);
            // The curve's leftmost point, and room for a label beside it.
            let room = if lts.transitions.len() <= LABELLED {
                80.0
            } else {
                12.0
            };
            (pa.0 + pb.0) / 2.0 - (0.45 * (pa.1 - pb.1).abs() + w) / 2.0 - room
        })
        .fold(f64::MAX, f64::min);
    let shift = (MARGIN - reach).max(0.0);
    for p in &mut at {
        p.0 += shift;
    }
    let full = full + shift;
    let mut svg = Svg::new();
    svg.raw(
        "<defs>\n<marker id=\"step\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0 L10 5 L0 10 z\" fill=\"#555555\"/></marker>\n</defs>\n",
    );
    svg.text(
        "title",
        (MARGIN, MARGIN + 12.0),
        14.0,
        Anchor::Start,
        "font-weight=\"600\"",
        title,
    );
    let counts = format!(
        "{} states, {} transitions, {} final, {} dead ends (--expand {}{})",
        lts.states.len(),
        lts.transitions.len(),
        lts.count(StateKind::Final),
        lts.count(StateKind::Dead),
        lts.expand.name(),
        if lts.fallback.is_some() {
            ", as focus is unsound here"
        } else {
            ""
        }
    );
    svg.text(
        "counts",
        (MARGIN, MARGIN + 30.0),
        12.0,
        Anchor::Start,
        "fill=\"#333333\"",
        &counts,
    );
    if capped.is_some() {
        let short = format!(
            "capped at {} states: {} transitions to further states are left out (+N under their source); --max-states raises the cap",
            lts.cap,
            lts.cut_transitions()
        );
        svg.text(
            "cap",
            (MARGIN, MARGIN + 48.0),
            12.0,
            Anchor::Start,
            "fill=\"#b3261e\"",
            &short,
        );
    }
    // Bands behind the layers, every other one shaded, each with its distance.
    for (k, &(depth, top, bottom)) in bands.iter().enumerate() {
        if k % 2 == 1 {
            svg.rect(
                "layer",
                MARGIN / 2.0,
                top,
                full + MARGIN,
                bottom - top,
                "fill=\"#f3f4f6\"",
            );
        }
        svg.text(
            "layer-depth",
            (MARGIN / 2.0 + 2.0, top + 10.0),
            8.0,
            Anchor::Start,
            "fill=\"#888888\"",
            &depth.to_string(),
        );
    }
    // Transitions between the same two states share one arrow.
    let mut arrows: BTreeMap<(u32, u32), Vec<&str>> = BTreeMap::new();
    for (a, label, b) in &lts.transitions {
        arrows.entry((*a, *b)).or_default().push(label);
    }
    let write_labels = lts.transitions.len() <= LABELLED;
    let edge_of = |p: (f64, f64), toward: (f64, f64)| {
        // Where the line toward `toward` leaves the box at `p`.
        let (dx, dy) = (toward.0 - p.0, toward.1 - p.1);
        let sx = if dx == 0.0 {
            f64::MAX
        } else {
            (w / 2.0 + 2.0) / dx.abs()
        };
        let sy = if dy == 0.0 {
            f64::MAX
        } else {
            (h / 2.0 + 2.0) / dy.abs()
        };
        let s = sx.min(sy).min(1.0);
        (p.0 + dx * s, p.1 + dy * s)
    };
    // Labels go where they overlap no state and no other label, or are left to the
    // tooltip.
    let mut taken: Vec<Rect> = at
        .iter()
        .map(|&(x, y)| Rect::around((x, y), w + 4.0, h + 4.0))
        .collect();
    let mut left_out = 0usize;
    for (&(a, b), labels) in &arrows {
        let (pa, pb) = (at[a as usize], at[b as usize]);
        let text = labels.join(" | ");
        svg.open("transition", "");
        svg.title(&format!("s{a} -> s{b}: {text}"));
        let style = "fill=\"none\" stroke=\"#555555\" stroke-width=\"1\" marker-end=\"url(#step)\"";
        // The arrow as a quadratic curve (from, control, to); a loop as two.
        let curve = if a == b {
            let top = (pa.0, pa.1 - h / 2.0);
            let d = PathData::new()
                .move_to((top.0 - 6.0, top.1))
                .quad_to((top.0 - 14.0, top.1 - 30.0), (top.0, top.1 - 22.0))
                .quad_to((top.0 + 14.0, top.1 - 30.0), (top.0 + 6.0, top.1))
                .build();
            svg.path("step", &d, style);
            (
                (top.0 - 20.0, top.1 - 30.0),
                (top.0, top.1 - 30.0),
                (top.0 + 20.0, top.1 - 30.0),
            )
        } else if pb.1 > pa.1 + 1.0 {
            let from = edge_of(pa, pb);
            let to = edge_of(pb, pa);
            svg.path(
                "step",
                &PathData::new().move_to(from).line_to(to).build(),
                style,
            );
            (from, ((from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0), to)
        } else {
            // Back or sideways: a curve bowing out to the left, clear of the downward
            // arrows.
            let mid = ((pa.0 + pb.0) / 2.0, (pa.1 + pb.1) / 2.0);
            let rise = (pa.1 - pb.1).abs();
            let ctrl = (
                mid.0 - 0.45 * rise - w,
                mid.1 - if rise < 1.0 { h + 20.0 } else { 0.0 },
            );
            let from = edge_of(pa, ctrl);
            let to = edge_of(pb, ctrl);
            svg.path(
                "step",
                &PathData::new().move_to(from).quad_to(ctrl, to).build(),
                style,
            );
            (from, ctrl, to)
        };
        if write_labels {
            let size = 9.0;
            let width = text_width(&text, size);
            // Right of the arrow at its middle, then further along, then left of it.
            let spot = [0.5, 0.4, 0.6, 0.3, 0.7]
                .into_iter()
                .flat_map(|t| [(t, true), (t, false)])
                .find_map(|(t, right)| {
                    let (x, y) = on_curve(curve, t);
                    let x = if right { x + 2.0 } else { x - 6.0 - width };
                    let r = Rect {
                        x,
                        y: y - size - 2.0,
                        w: width + 4.0,
                        h: size + 6.0,
                    };
                    (r.x > 0.0 && !taken.iter().any(|o| o.overlaps(&r))).then_some(r)
                });
            match spot {
                Some(r) => {
                    svg.text(
                        "step-label",
                        (r.x + 2.0, r.y + size + 2.0),
                        size,
                        Anchor::Start,
                        "fill=\"#333333\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\"",
                        &text,
                    );
                    taken.push(r);
                }
                None => left_out += 1,
            }
        }
        svg.close();
    }
    for (i, s) in lts.states.iter().enumerate() {
        let p = at[i];
        let (fill, stroke) = match s.kind {
            StateKind::Final => FINAL,
            StateKind::Dead => DEAD,
            StateKind::Inner => ("white", "#555555"),
        };
        let kind = match s.kind {
            StateKind::Final => "final",
            StateKind::Dead => "dead",
            StateKind::Inner => "inner",
        };
        let class = format!(
            "state {kind}{}{}",
            if i == 0 { " start" } else { "" },
            if s.cut > 0 { " cut" } else { "" }
        );
        svg.open(&class, &format!(" data-state=\"{i}\""));
        let mut tip = format!("s{i}: {kind}");
        if let Some(g) = &s.grid {
            tip.push_str(&format!("\n{g}"));
        }
        if s.cut > 0 {
            tip.push_str(&format!("\n{} transitions to states past the cap", s.cut));
        }
        svg.title(&tip);
        let width = if i == 0 { 2.5 } else { 1.2 };
        let dash = if s.cut > 0 {
            " stroke-dasharray=\"3 2\""
        } else {
            ""
        };
        let style = format!("fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{width}\"{dash}");
        if mini {
            svg.rect(
                "state-box",
                p.0 - w / 2.0,
                p.1 - h / 2.0,
                w,
                h,
                &format!("rx=\"6\" {style}"),
            );
            if s.kind == StateKind::Final {
                svg.rect(
                    "state-final",
                    p.0 - w / 2.0 + 2.5,
                    p.1 - h / 2.0 + 2.5,
                    w - 5.0,
                    h - 5.0,
                    &format!("rx=\"4\" fill=\"none\" stroke=\"{stroke}\""),
                );
            }
            svg.text(
                "state-name",
                (p.0, p.1 - h / 2.0 + 10.0),
                8.0,
                Anchor::Middle,
                "fill=\"#555555\"",
                &format!("s{i}"),
            );
            if let Some(g) = &s.grid {
                let chars: Vec<char> = g.chars().collect();
                for (r, row) in chars.chunks(cols).enumerate() {
                    let line: String = row.iter().collect();
                    svg.text(
                        "state-grid",
                        (p.0, p.1 - h / 2.0 + 21.0 + r as f64 * 11.0),
                        10.0,
                        Anchor::Middle,
                        "fill=\"#111111\" font-family=\"DejaVu Sans Mono, monospace\" letter-spacing=\"1\"",
                        &line,
                    );
                }
            }
        } else {
            svg.circle("state-box", p, w / 2.0, &style);
            if s.kind == StateKind::Final {
                svg.circle(
                    "state-final",
                    p,
                    w / 2.0 - 3.0,
                    &format!("fill=\"none\" stroke=\"{stroke}\""),
                );
            }
            let name = format!("s{i}");
            let size = if text_width(&name, 9.0) > w - 6.0 {
                7.0
            } else {
                9.0
            };
            svg.centred("state-name", p, size, "fill=\"#111111\"", &name);
        }
        if i == 0 {
            let left = (p.0 - w / 2.0 - 2.0, p.1);
            svg.line(
                "start-arrow",
                (left.0 - 24.0, left.1),
                left,
                "stroke=\"#111111\" stroke-width=\"1.5\" marker-end=\"url(#step)\"",
            );
        }
        if s.cut > 0 {
            let bottom = (p.0, p.1 + h / 2.0 + 2.0);
            svg.line(
                "cut-stub",
                bottom,
                (bottom.0, bottom.1 + 12.0),
                "stroke=\"#999999\" stroke-width=\"1\" stroke-dasharray=\"2 2\"",
            );
            svg.text(
                "cut-count",
                (bottom.0 + 3.0, bottom.1 + 13.0),
                8.0,
                Anchor::Start,
                "fill=\"#999999\"",
                &format!("+{}", s.cut),
            );
        }
        svg.close();
    }
    // The legend.
    let mut ly = y - gap_y + h / 2.0 + 28.0;
    let mut width = MARGIN * 2.0 + full;
    let mut entries: Vec<(&str, &str, String)> = vec![
        (
            "white",
            "#111111",
            "start: the arrow from the left, a thick outline".to_string(),
        ),
        (
            FINAL.0,
            FINAL.1,
            "final: the final condition holds (double outline)".to_string(),
        ),
        (
            DEAD.0,
            DEAD.1,
            "dead end: not final, and no rule applies".to_string(),
        ),
    ];
    if left_out > 0 || !write_labels {
        entries.push((
            "white",
            "white",
            "transitions without a label: their label is their tooltip".to_string(),
        ));
    }
    if capped.is_some() {
        entries.push((
            "white",
            "#999999",
            "dashed: some transitions lead past the cap (+N below)".to_string(),
        ));
    }
    for (fill, stroke, text) in entries {
        svg.rect(
            "swatch",
            MARGIN,
            ly,
            16.0,
            12.0,
            &format!("rx=\"3\" fill=\"{fill}\" stroke=\"{stroke}\""),
        );
        svg.text(
            "legend",
            (MARGIN + 24.0, ly + 10.0),
            11.0,
            Anchor::Start,
            "fill=\"#333333\"",
            &text,
        );
        width = width.max(MARGIN * 2.0 + 24.0 + text_width(&text, 11.0));
        ly += 17.0;
    }
    width = width
        .max(MARGIN * 2.0 + text_width(&counts, 12.0))
        .max(MARGIN * 2.0 + text_width(title, 14.0) * 1.05);
    Panel {
        width,
        height: ly + MARGIN / 2.0,
        body: svg.into_body(),
    }
}

/// A box on the page, for keeping labels apart.
#[derive(Clone, Copy, Debug)]
struct Rect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Rect {
    fn around((x, y): (f64, f64), w: f64, h: f64) -> Rect {
        Rect {
            x: x - w / 2.0,
            y: y - h / 2.0,
            w,
            h,
        }
    }

    fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
}

/// The point at `t` of a quadratic Bézier curve.
fn on_curve((a, c, b): ((f64, f64), (f64, f64), (f64, f64)), t: f64) -> (f64, f64) {
    let u = 1.0 - t;
    (
        u * u * a.0 + 2.0 * u * t * c.0 + t * t * b.0,
        u * u * a.1 + 2.0 * u * t * c.1 + t * t * b.1,
    )
}
