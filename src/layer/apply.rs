//! A puzzle's layers added to a base graph: region and line nodes with their edges, then
//! attribute values, all plain nodes, edges and values.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use smallvec::SmallVec;

use super::{Content, Layer, LayerKind, Layers};
use crate::model::{Graph, LabelId, NodeId, NodeTypeId, TypeSystem, Value};

/// A graph being built with its node names, which the nodes a layer adds extend.
pub struct Named<'a> {
    /// The graph the layers add to.
    pub graph: &'a mut Graph,
    /// The name of each of its nodes, by id.
    pub names: &'a mut Arc<Vec<String>>,
    /// The types of its nodes.
    pub types: &'a TypeSystem,
}

/// Adds what `contents` gives the declared `layers` (read and checked, so every token
/// fits) to the graph over the grid's `cells`: region and line nodes with their edges
/// first, so that attributes of region nodes find them, then attribute values.
pub fn add_layers(layers: &[Layer], contents: &Layers, cells: &[NodeId], g: &mut Named) {
    let all = || layers.iter().zip(&contents.sections).enumerate();
    let mut regions: Vec<FxHashMap<&str, NodeId>> = vec![FxHashMap::default(); layers.len()];
    let mut line_nodes: Vec<Vec<NodeId>> = vec![Vec::new(); layers.len()];
    for (i, (layer, content)) in all() {
        match (&layer.kind, content) {
            (LayerKind::Regions { ty, label }, Some(Content::Regions(tokens))) => {
                for (&cell, token) in cells.iter().zip(tokens) {
                    let Some(token) = token.as_deref() else {
                        continue;
                    };
                    let node = match regions[i].get(token) {
                        Some(&n) => n,
                        None => {
                            let n = add_node(g, format!("{}_{token}", layer.name), *ty);
                            regions[i].insert(token, n);
                            n
                        }
                    };
                    g.graph.add_edge(cell, *label, node);
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
                let Some(Some(Content::Regions(tokens))) = contents.sections.get(*owner) else {
                    continue;
                };
                for (i, v) in set {
                    let node = tokens[i].as_deref().and_then(|t| regions[*owner].get(t));
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

/// A node of type `ty` named `name`, every attribute none.
fn add_node(g: &mut Named, name: String, ty: NodeTypeId) -> NodeId {
    let attrs: SmallVec<[Value; 4]> =
        SmallVec::from_elem(Value::None, g.types.node(ty).attrs.len());
    // Shared with the rule file's grammar until a layer adds a node.
    Arc::make_mut(g.names).push(name);
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
