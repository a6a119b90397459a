//! Any host graph drawn so it reads: nodes with a row and column at their place, group
//! nodes beside their members (rows to the left, columns above, others in the gaps between
//! their cells), every other node in a row per type below; edges coloured by label.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;

use super::svg::{escape, text_width, Anchor, PathData, Svg};
use super::Panel;
use crate::grammar::Grammar;
use crate::model::{Graph, LabelId, NodeId, Value};
use crate::output::text::{node_line, node_name};

/// The lattice step: cells stand two steps apart, group nodes in the gaps between them.
const STEP: f64 = 40.0;
const CELL_W: f64 = 60.0;
const CELL_H: f64 = 36.0;
const GROUP_W: f64 = 44.0;
const GROUP_H: f64 = 22.0;
const MARGIN: f64 = 20.0;
const NAME: f64 = 10.0;
const VALUE: f64 = 13.0;
/// A label with more edges than this is told by its colour in the legend, not written on
/// each edge.
const LABELLED_EDGES: usize = 16;
const COLOURS: [&str; 8] = [
    "#4e79a7", "#e15759", "#59a14f", "#b07aa1", "#f28e2b", "#76b7b2", "#9c755f", "#edc948",
];

/// How a node is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Has a row and column.
    Cell,
    /// Joined to cells.
    Group,
    Other,
}

struct Placed {
    node: NodeId,
    role: Role,
    /// Centre.
    at: (f64, f64),
    size: (f64, f64),
}

/// The node's row and column: its `row` and `col` int attributes, or its place in the
/// grid.
fn place(grammar: &Grammar, graph: &Graph, n: NodeId) -> Option<(i64, i64)> {
    let ty = grammar.types.node(graph.ty(n));
    let get = |name: &str| match graph.attr(n, ty.attr(name)?) {
        Value::Int(x) => Some(x),
        _ => None,
    };
    if let (Some(r), Some(c)) = (get("row"), get("col")) {
        return Some((r, c));
    }
    let (r, c) = grammar.grid.as_ref()?.position_of(n)?;
    Some((r as i64 + 1, c as i64 + 1))
}

/// The graph `graph` of `grammar` drawn; values that `start` already held are givens.
pub fn graph_picture(grammar: &Grammar, graph: &Graph, start: &Graph, title: &str) -> Panel {
    let nodes: Vec<NodeId> = graph.find_nodes().collect();
    let mut placed: Vec<Placed> = Vec::new();
    let mut index: HashMap<NodeId, usize> = HashMap::new();
    // Cells on the lattice's even points.
    let places: HashMap<NodeId, (i64, i64)> = nodes
        .iter()
        .filter_map(|&n| place(grammar, graph, n).map(|p| (n, p)))
        .collect();
    let (min_r, min_c) = places
        .values()
        .fold((i64::MAX, i64::MAX), |(r, c), &(pr, pc)| {
            (r.min(pr), c.min(pc))
        });
    // Lattice coordinates (x, y) of every placed node, cells and groups.
    let mut lattice: HashMap<NodeId, (i64, i64)> = HashMap::new();
    let mut taken: BTreeSet<(i64, i64)> = BTreeSet::new();
    for (&n, &(r, c)) in &places {
        let p = (2 * (c - min_c) + 2, 2 * (r - min_r) + 2);
        if taken.insert(p) {
            lattice.insert(n, p);
        }
    }
    // Group nodes: joined to cells, themselves without a place.
    let mut members: BTreeMap<NodeId, Vec<NodeId>> = BTreeMap::new();
    for &n in &nodes {
        if lattice.contains_key(&n) {
            continue;
        }
        let mut ms: Vec<NodeId> = graph
            .out(n)
            .iter()
            .chain(graph.inc(n))
            .map(|&(_, m)| m)
            .filter(|m| lattice.contains_key(m))
            .collect();
        ms.sort();
        ms.dedup();
        if !ms.is_empty() {
            members.insert(n, ms);
        }
    }
    for (&g, ms) in &members {
        let ps: Vec<(i64, i64)> = ms.iter().map(|m| lattice[m]).collect();
        let same_row = ps.iter().all(|p| p.1 == ps[0].1);
        let same_col = ps.iter().all(|p| p.0 == ps[0].0);
        let want = if same_row && ms.len() > 1 {
            // Left of the row, further left when taken.
            let x0 = ps.iter().map(|p| p.0).min().unwrap_or(0) - 2;
            (0..)
                .map(|k| (x0 - 2 * k, ps[0].1))
                .find(|p| !taken.contains(p))
        } else if same_col && ms.len() > 1 {
            let y0 = ps.iter().map(|p| p.1).min().unwrap_or(0) - 2;
            (0..)
                .map(|k| (ps[0].0, y0 - 2 * k))
                .find(|p| !taken.contains(p))
        } else {
            // The gap point nearest the members' centre, then the nearest free one.
            let n = ps.len() as f64;
            let cx = ps.iter().map(|p| p.0 as f64).sum::<f64>() / n;
            let cy = ps.iter().map(|p| p.1 as f64).sum::<f64>() / n;
            let odd = |v: f64| 2 * ((v - 1.0) / 2.0).round() as i64 + 1;
            let (ox, oy) = (odd(cx), odd(cy));
            (0i64..)
                .flat_map(|ring| {
                    let mut ring_points = Vec::new();
                    for dx in -ring..=ring {
                        for dy in -ring..=ring {
                            if dx.abs().max(dy.abs()) == ring {
                                ring_points.push((ox + 2 * dx, oy + 2 * dy));
                            }
                        }
                    }
                    ring_points.sort_by_key(|&(x, y)| ((x - ox).pow(2) + (y - oy).pow(2), y, x));
                    ring_points
                })
                .find(|p| !taken.contains(p))
        };
        if let Some(p) = want {
            taken.insert(p);
            lattice.insert(g, p);
        }
    }
    // Shift so that every lattice point is at 1 or more.
    let min_x = lattice.values().map(|p| p.0).min().unwrap_or(1).min(1);
    let min_y = lattice.values().map(|p| p.1).min().unwrap_or(1).min(1);
    let top = MARGIN + 30.0;
    let mut bottom = top;
    let mut right: f64 = MARGIN;
    for &n in &nodes {
        let Some(&(x, y)) = lattice.get(&n) else {
            continue;
        };
        let role = if places.contains_key(&n) {
            Role::Cell
        } else {
            Role::Group
        };
        let size = if role == Role::Cell {
            (CELL_W, CELL_H)
        } else {
            (
                GROUP_W.max(text_width(&node_name(grammar, n), NAME) + 6.0),
                GROUP_H,
            )
        };
        let at = (
            MARGIN + (x - min_x) as f64 * STEP + CELL_W / 2.0,
            top + (y - min_y) as f64 * STEP + CELL_H / 2.0,
        );
        bottom = bottom.max(at.1 + size.1 / 2.0);
        right = right.max(at.0 + size.0 / 2.0);
        index.insert(n, placed.len());
        placed.push(Placed {
            node: n,
            role,
            at,
            size,
        });
    }
    // The rest: a row per type, in the order of their neighbours' places.
    let rest: Vec<NodeId> = nodes
        .iter()
        .copied()
        .filter(|n| !index.contains_key(n))
        .collect();
    let mut by_type: BTreeMap<u32, Vec<NodeId>> = BTreeMap::new();
    for &n in &rest {
        by_type.entry(graph.ty(n).0).or_default().push(n);
    }
    let mut y = if placed.is_empty() {
        top
    } else {
        bottom + 2.0 * STEP
    };
    let mut xs: HashMap<NodeId, f64> = placed.iter().map(|p| (p.node, p.at.0)).collect();
    for (_, mut row) in by_type {
        // Barycentre of the neighbours placed so far, else the node's order.
        let key = |n: NodeId, xs: &HashMap<NodeId, f64>| {
            let near: Vec<f64> = graph
                .out(n)
                .iter()
                .chain(graph.inc(n))
                .filter_map(|&(_, m)| xs.get(&m).copied())
                .collect();
            if near.is_empty() {
                f64::MAX
            } else {
                near.iter().sum::<f64>() / near.len() as f64
            }
        };
        row.sort_by(|&a, &b| key(a, &xs).total_cmp(&key(b, &xs)).then(a.cmp(&b)));
        let mut x = MARGIN;
        for n in row {
            let label = other_label(grammar, graph, n);
            let w = (text_width(&node_name(grammar, n), NAME).max(text_width(&label, NAME)) + 12.0)
                .max(GROUP_W);
            let size = (w, CELL_H);
            let at = (x + w / 2.0, y + CELL_H / 2.0);
            x += w + 24.0;
            right = right.max(x);
            xs.insert(n, at.0);
            index.insert(n, placed.len());
            placed.push(Placed {
                node: n,
                role: Role::Other,
                at,
                size,
            });
        }
        bottom = y + CELL_H;
        y += CELL_H + 2.0 * STEP;
    }
    draw(
        grammar,
        graph,
        start,
        title,
        &placed,
        &index,
        (right + MARGIN, bottom + MARGIN),
    )
}

/// The second line of a node without a place: its attributes.
fn other_label(grammar: &Grammar, graph: &Graph, n: NodeId) -> String {
    let ty = grammar.types.node(graph.ty(n));
    let attrs: Vec<String> = ty
        .attrs
        .iter()
        .zip(&graph.node(n).attrs)
        .filter(|(_, v)| !v.is_none())
        .map(|(a, &v)| format!("{}={}", a.name, grammar.domain.show(v)))
        .collect();
    if attrs.is_empty() {
        ty.name.clone()
    } else {
        attrs.join(" ")
    }
}

/// The point where the segment from `from` to the centre of a box of `size` at `at`
/// leaves the box.
fn border(at: (f64, f64), size: (f64, f64), from: (f64, f64)) -> (f64, f64) {
    let (dx, dy) = (from.0 - at.0, from.1 - at.1);
    if dx == 0.0 && dy == 0.0 {
        return at;
    }
    let sx = if dx == 0.0 {
        f64::MAX
    } else {
        (size.0 / 2.0) / dx.abs()
    };
    let sy = if dy == 0.0 {
        f64::MAX
    } else {
        (size.1 / 2.0) / dy.abs()
    };
    let s = sx.min(sy).min(1.0);
    (at.0 + dx * s, at.1 + dy * s)
}

fn draw(
    grammar: &Grammar,
    graph: &Graph,
    start: &Graph,
    title: &str,
    placed: &[Placed],
    index: &HashMap<NodeId, usize>,
    (mut width, mut height): (f64, f64),
) -> Panel {
    let mut svg = Svg::new();
    let edges: Vec<(NodeId, LabelId, NodeId)> = graph.find_edges().collect();
    let labels: BTreeSet<LabelId> = edges.iter().map(|e| e.1).collect();
    let colour: HashMap<LabelId, &str> = labels
        .iter()
        .enumerate()
        .map(|(i, &l)| (l, COLOURS[i % COLOURS.len()]))
        .collect();
    let mut defs = String::from("<defs>\n");
    for (&l, c) in &colour {
        let _ = writeln!(
            defs,
            "<marker id=\"arrow{}\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0 0 L10 5 L0 10 z\" fill=\"{c}\"/></marker>",
            l.0
        );
    }
    defs.push_str("</defs>\n");
    svg.raw(&defs);
    svg.text(
        "title",
        (MARGIN, MARGIN + 12.0),
        14.0,
        Anchor::Start,
        "font-weight=\"600\"",
        title,
    );
    let mut counts: BTreeMap<LabelId, usize> = BTreeMap::new();
    for &(_, l, _) in &edges {
        *counts.entry(l).or_default() += 1;
    }
    // Edges first, so that nodes cover their ends.
    for &(s, l, t) in &edges {
        let write_label = counts[&l] <= LABELLED_EDGES;
        let (Some(&a), Some(&b)) = (index.get(&s), index.get(&t)) else {
            continue;
        };
        let (pa, pb) = (&placed[a], &placed[b]);
        let c = colour[&l];
        let name = &grammar.types.label(l).name;
        // Edges to a row's node on the left bow upwards, to a column's above bow left,
        // so that they pass between the cells rather than through them.
        let (dx, dy) = (pb.at.0 - pa.at.0, pb.at.1 - pa.at.1);
        let bow = if pa.role == Role::Cell && pb.role == Role::Group
            || pa.role == Role::Group && pb.role == Role::Cell
        {
            let span = (dx.abs() / (2.0 * STEP)).max(dy.abs() / (2.0 * STEP));
            if dy.abs() < 1.0 && span > 1.0 {
                Some((0.0, -(40.0 + 50.0 * (span / 16.0).min(1.0))))
            } else if dx.abs() < 1.0 && span > 1.0 {
                Some((-(40.0 + 50.0 * (span / 16.0).min(1.0)), 0.0))
            } else {
                None
            }
        } else {
            None
        };
        let mid = ((pa.at.0 + pb.at.0) / 2.0, (pa.at.1 + pb.at.1) / 2.0);
        let style = format!(
            "fill=\"none\" stroke=\"{c}\" stroke-width=\"1\" stroke-opacity=\"0.6\" marker-end=\"url(#arrow{})\"",
            l.0
        );
        svg.open("edge", &format!(" data-label=\"{}\"", escape(name)));
        let label_at = match bow {
            Some((bx, by)) => {
                let ctrl = (mid.0 + bx, mid.1 + by);
                let from = border(pa.at, pa.size, ctrl);
                let to = border(pb.at, pb.size, ctrl);
                let d = PathData::new().move_to(from).quad_to(ctrl, to).build();
                svg.path("edge-line", &d, &style);
                (mid.0 + bx / 2.0, mid.1 + by / 2.0)
            }
            None => {
                let from = border(pa.at, pa.size, pb.at);
                let to = border(pb.at, pb.size, pa.at);
                let d = PathData::new().move_to(from).line_to(to).build();
                svg.path("edge-line", &d, &style);
                mid
            }
        };
        if write_label {
            svg.text(
                "edge-label",
                (label_at.0, label_at.1 - 3.0),
                NAME,
                Anchor::Middle,
                &format!("fill=\"{c}\""),
                name,
            );
        }
        svg.close();
    }
    for p in placed {
        let n = p.node;
        let (x, y) = (p.at.0 - p.size.0 / 2.0, p.at.1 - p.size.1 / 2.0);
        let (fill, stroke) = match p.role {
            Role::Cell => ("white", "#888888"),
            Role::Group => ("#eef3fb", "#5b7db1"),
            Role::Other => ("#f5f5f5", "#888888"),
        };
        svg.open(
            "node",
            &format!(" data-node=\"{}\"", escape(&node_name(grammar, n))),
        );
        svg.title(&node_line(grammar, graph, n));
        svg.rect(
            "node-box",
            x,
            y,
            p.size.0,
            p.size.1,
            &format!("rx=\"5\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1\""),
        );
        let name = node_name(grammar, n);
        match p.role {
            Role::Group => svg.centred("node-name", p.at, NAME, "fill=\"#33507a\"", &name),
            Role::Cell => {
                svg.text(
                    "node-name",
                    (p.at.0, y + NAME + 1.0),
                    NAME,
                    Anchor::Middle,
                    "fill=\"#666666\"",
                    &name,
                );
                if let Some((text, given)) = cell_value(grammar, graph, start, n) {
                    let style = if given {
                        "fill=\"#111111\" font-weight=\"700\""
                    } else {
                        "fill=\"#1f5fbf\""
                    };
                    svg.text(
                        if given {
                            "node-value given"
                        } else {
                            "node-value placed"
                        },
                        (p.at.0, y + p.size.1 - 5.0),
                        VALUE,
                        Anchor::Middle,
                        style,
                        &text,
                    );
                }
            }
            Role::Other => {
                svg.text(
                    "node-name",
                    (p.at.0, y + NAME + 2.0),
                    NAME,
                    Anchor::Middle,
                    "fill=\"#333333\"",
                    &name,
                );
                let label = other_label(grammar, graph, n);
                svg.text(
                    "node-attrs",
                    (p.at.0, y + p.size.1 - 6.0),
                    NAME,
                    Anchor::Middle,
                    "fill=\"#666666\"",
                    &label,
                );
            }
        }
        svg.close();
    }
    // The legend: one line per label, its colour, and how many edges.
    let mut y = height;
    for (&l, &n) in &counts {
        let c = colour[&l];
        svg.line(
            "swatch",
            (MARGIN, y + 6.0),
            (MARGIN + 20.0, y + 6.0),
            &format!("stroke=\"{c}\" stroke-width=\"2\""),
        );
        let label = &grammar.types.label(l);
        let text = format!(
            "{}: {} -> {} ({n} edges)",
            label.name,
            grammar.types.node(label.source).name,
            grammar.types.node(label.target).name
        );
        svg.text(
            "legend",
            (MARGIN + 28.0, y + 10.0),
            12.0,
            Anchor::Start,
            "fill=\"#333333\"",
            &text,
        );
        width = width.max(MARGIN * 2.0 + 28.0 + text_width(&text, 12.0));
        y += 18.0;
    }
    height = y + MARGIN / 2.0;
    width = width.max(MARGIN * 2.0 + text_width(title, 14.0) * 1.05);
    Panel {
        width,
        height,
        body: svg.into_body(),
    }
}

/// A cell's value as text and whether `start` held it already (a given).
fn cell_value(
    grammar: &Grammar,
    graph: &Graph,
    start: &Graph,
    n: NodeId,
) -> Option<(String, bool)> {
    let ty = grammar.types.node(graph.ty(n));
    let (i, _) = ty
        .attrs
        .iter()
        .enumerate()
        .find(|(_, a)| a.ty.base == crate::model::BaseType::Value)?;
    let v = graph.node(n).attrs[i];
    let Value::Val(x) = v else {
        return None;
    };
    let given = start.is_alive(n)
        && grammar
            .types
            .node(start.ty(n))
            .attr(&ty.attrs[i].name)
            .is_some_and(|a| start.attr(n, a) == v);
    Some((grammar.domain.name(x).to_string(), given))
}
