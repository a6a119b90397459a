//! A puzzle's layers added to the base graph: region and line nodes with their edges, then
//! attribute values. The result is an ordinary grammar whose base graph is the puzzle's.

use std::collections::HashMap;

use smallvec::SmallVec;

use super::{Content, LayerKind, Layers};
use crate::grammar::Grammar;
use crate::model::{Graph, LabelId, NodeId, NodeTypeId, Value};

impl Grammar {
    /// The grammar of one puzzle: this one with `layers` added to its base graph (read and
    /// checked by [`read`](super::read), so every token fits). Costs a copy of the grammar;
    /// when `layers` is empty, use `self` instead.
    pub fn with_layers(&self, layers: &Layers) -> Grammar {
        let mut g = self.clone();
        let Some(grid) = &self.grid else {
            return g;
        };
        let contents = || self.layers.iter().zip(&layers.sections).enumerate();
        // Structure first, so that attributes of region nodes find them.
        let mut regions: Vec<HashMap<&str, NodeId>> = vec![HashMap::new(); self.layers.len()];
        for (i, (layer, content)) in contents() {
            match (&layer.kind, content) {
                (LayerKind::Regions { ty, label }, Some(Content::Regions(tokens))) => {
                    for (&cell, token) in grid.cells.iter().zip(tokens) {
                        let Some(token) = token.as_deref() else {
                            continue;
                        };
                        let node = match regions[i].get(token) {
                            Some(&n) => n,
                            None => {
                                let n = add_node(&mut g, format!("{}_{token}", layer.name), *ty);
                                regions[i].insert(token, n);
                                n
                            }
                        };
                        g.base.add_edge(cell, *label, node);
                    }
                }
                (LayerKind::Lines { ty, label, next }, Some(Content::Lines(lines))) => {
                    for (k, members) in lines.iter().enumerate() {
                        let line = add_node(&mut g, format!("{}_{}", layer.name, k + 1), *ty);
                        let members: Vec<NodeId> = members.iter().map(|&c| grid.cells[c]).collect();
                        link_line(&mut g.base, line, &members, *label, *next);
                    }
                }
                _ => {}
            }
        }
        for (_, (layer, content)) in contents() {
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
                    let Some(Some(Content::Regions(tokens))) = layers.sections.get(*owner) else {
                        continue;
                    };
                    for (i, v) in set {
                        let node = tokens[i].as_deref().and_then(|t| regions[*owner].get(t));
                        if let Some(&node) = node {
                            g.base.set_attr(node, *attr, v);
                        }
                    }
                }
                LayerKind::CellAttr { attr, .. } => {
                    for (i, v) in set {
                        g.base.set_attr(grid.cells[i], *attr, v);
                    }
                }
                LayerKind::NodeAttr { nodes, attr, .. } => {
                    for (i, v) in set {
                        g.base.set_attr(nodes[i], *attr, v);
                    }
                }
                _ => {}
            }
        }
        g
    }
}

/// A node of type `ty` named `name`, every attribute none.
fn add_node(g: &mut Grammar, name: String, ty: NodeTypeId) -> NodeId {
    let attrs: SmallVec<[Value; 4]> =
        SmallVec::from_elem(Value::None, g.types.node(ty).attrs.len());
    g.names.push(name);
    g.base.add_node(ty, attrs)
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
