//! A puzzle's layers added to a base graph: region and line nodes with their edges, then
//! attribute values, all plain nodes, edges and values.

use smallvec::SmallVec;

use super::{Content, Layer, LayerKind, Layers};
use crate::model::{grouped, Graph, LabelId, NodeId, NodeNames, NodeTypeId, TypeSystem, Value};

/// A graph being built with its node names, which the nodes a layer adds extend.
pub struct Named<'a> {
    /// The graph the layers add to.
    pub graph: &'a mut Graph,
    /// The name of each of its nodes, by id.
    pub names: &'a mut NodeNames,
    /// The types of its nodes.
    pub types: &'a TypeSystem,
}

/// Adds what `contents` gives the declared `layers` (read and checked, so every token
/// fits) to the graph over the grid's `cells`: region and line nodes with their edges
/// first, so that attributes of region nodes find them, then attribute values.
pub fn add_layers(layers: &[Layer], contents: &Layers, cells: &[NodeId], g: &mut Named) {
    let all = || layers.iter().zip(&contents.sections).enumerate();
    // Per layer, its region nodes by region number.
    let mut regions: Vec<Vec<NodeId>> = vec![Vec::new(); layers.len()];
    let mut line_nodes: Vec<Vec<NodeId>> = vec![Vec::new(); layers.len()];
    for (i, (layer, content)) in all() {
        match (&layer.kind, content) {
            (LayerKind::Regions { ty, label }, Some(Content::Regions { names, cells: of })) => {
                let drawn = RegionMembers::of(cells, of, names.len());
                for (name, members) in names.iter().zip(drawn.iter()) {
                    let node = add_node(g, format!("{}_{name}", layer.name), *ty);
                    regions[i].push(node);
                    for &cell in members {
                        g.graph.add_edge(cell, *label, node);
                    }
                }
            }
            (LayerKind::Lines { ty, label, next }, Some(Content::Lines(lines))) => {
                for (k, members) in lines.iter().enumerate() {
                    let line = add_node(g, format!("{}_{}", layer.name, k + 1), *ty);
                    let members: Vec<NodeId> = members.iter().map(|&c| cells[c]).collect();
                    link_line(g.graph, line, &members, *label, *next);
                    line_nodes[i].push(line);
                }
            }
            _ => {}
        }
    }
    for (_, (layer, content)) in all() {
        let Some(Content::Values(values)) = content else {
            continue;
        };
        let set = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| Some((i, (*v)?)));
        match &layer.kind {
            LayerKind::RegionAttr {
                regions: owner,
                attr,
                ..
            } => {
                let Some(Some(Content::Regions { cells: of, .. })) = contents.sections.get(*owner)
                else {
                    continue;
                };
                for (i, v) in set {
                    let node = of[i].and_then(|r| regions[*owner].get(r as usize));
                    if let Some(&node) = node {
                        g.graph.set_attr(node, *attr, v);
                    }
                }
            }
            LayerKind::LineAttr { lines, attr, .. } => {
                for (i, v) in set {
                    if let Some(&node) = line_nodes[*lines].get(i) {
                        g.graph.set_attr(node, *attr, v);
                    }
                }
            }
            LayerKind::CellAttr { attr, .. } => {
                for (i, v) in set {
                    g.graph.set_attr(cells[i], *attr, v);
                }
            }
            LayerKind::NodeAttr { nodes, attr, .. } => {
                for (i, v) in set {
                    g.graph.set_attr(nodes[i], *attr, v);
                }
            }
            _ => {}
        }
    }
}

/// The members of each region a `regions of T` layer draws, in grid order (the order
/// their edges are added to the graph in), held flat. The slot engine reads a jigsaw's
/// regions from here without building the graph.
pub struct RegionMembers {
    /// Region `r`'s members are `members[start[r]..start[r + 1]]`.
    start: Vec<u32>,
    members: Vec<NodeId>,
}

impl RegionMembers {
    /// The regions `cells` draws over the grid's `grid` cells: `cells[i]` the region of
    /// `grid[i]`, numbered in the order they first appear, `regions` of them.
    pub fn of(grid: &[NodeId], cells: &[Option<u32>], regions: usize) -> RegionMembers {
        let (start, members) = grouped(regions, || {
            (grid.iter().zip(cells)).filter_map(|(&cell, region)| Some(((*region)?, cell)))
        });
        RegionMembers { start, members }
    }

    /// How many regions.
    pub fn regions(&self) -> usize {
        self.start.len() - 1
    }

    /// Each region's members, by region number.
    pub fn iter(&self) -> impl Iterator<Item = &[NodeId]> + '_ {
        (self.start.windows(2)).map(|w| &self.members[w[0] as usize..w[1] as usize])
    }
}

/// A node of type `ty` named `name`, every attribute none.
fn add_node(g: &mut Named, name: String, ty: NodeTypeId) -> NodeId {
    let attrs: SmallVec<[Value; 4]> =
        SmallVec::from_elem(Value::None, g.types.node(ty).attrs.len());
    g.names.push(name);
    g.graph.add_node(ty, attrs)
}

/// The edges of a line of cells: `member -on-> line` for each member and, with `next`,
/// `member -next-> following member` along the line. Shared by every generator of lines.
pub fn link_line(
    graph: &mut Graph,
    line: NodeId,
    members: &[NodeId],
    on: LabelId,
    next: Option<LabelId>,
) {
    for &m in members {
        graph.add_edge(m, on, line);
    }
    if let Some(next) = next {
        for pair in members.windows(2) {
            graph.add_edge(pair[0], next, pair[1]);
        }
    }
}
