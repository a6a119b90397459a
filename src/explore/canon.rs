//! Canonical forms of host graphs. Nodes of the start graph keep their identity (cells stay
//! distinguishable, so symmetric solutions are never merged); nodes created by rules are
//! anonymous and put in a canonical order, so that two orders of creating the same nodes
//! give one state. The order comes from colour refinement, with individualisation of one
//! node at a time where refinement leaves ties, keeping the least encoding: exact, not a
//! hash.

use crate::model::{Graph, NodeId, Value};

/// How to put the states of one grammar into canonical form.
#[derive(Clone, Copy, Debug)]
pub struct Canon {
    /// Nodes `0..base` are the start graph's; later ones were created by rules.
    pub base: usize,
    /// Some rule creates nodes: created nodes need a canonical order.
    pub creates: bool,
    /// Some rule changes edges: the key must include them.
    pub edges: bool,
}

impl Canon {
    /// Renumbers created nodes into canonical order and drops dead ones.
    pub fn canonicalize(&self, g: &mut Graph) {
        if !self.creates || g.capacity() == self.base {
            return;
        }
        let created: Vec<NodeId> = (self.base..g.capacity())
            .map(NodeId::from_index)
            .filter(|&n| g.is_alive(n))
            .collect();
        let order = if created.len() <= 1 {
            created.clone()
        } else {
            canonical_order(g, self.base, &created, self.edges)
        };
        // perm: old id -> new id. Base nodes stay; created live nodes take base.. in
        // canonical order; dead created nodes go to the end and are trimmed.
        let mut perm: Vec<NodeId> = (0..g.capacity()).map(NodeId::from_index).collect();
        let mut next = self.base;
        for &n in &order {
            perm[n.index()] = NodeId::from_index(next);
            next += 1;
        }
        for i in self.base..g.capacity() {
            if !g.is_alive(NodeId::from_index(i)) {
                perm[i] = NodeId::from_index(next);
                next += 1;
            }
        }
        if perm.iter().enumerate().any(|(i, p)| p.index() != i) {
            g.permute(&perm);
        }
        g.trim();
    }

    /// The exact key of a canonical graph.
    pub fn key(&self, g: &Graph, out: &mut Vec<u8>) {
        out.clear();
        encode(g, self.edges, out);
    }
}

fn encode_value(v: Value, out: &mut Vec<u8>) {
    match v {
        Value::None => out.push(0),
        Value::Bool(b) => out.extend_from_slice(&[1, b as u8]),
        Value::Int(n) => {
            out.push(2);
            out.extend_from_slice(&n.to_le_bytes());
        }
        Value::Val(i) => {
            out.push(3);
            out.extend_from_slice(&i.to_le_bytes());
        }
    }
}

fn encode(g: &Graph, edges: bool, out: &mut Vec<u8>) {
    out.extend_from_slice(&(g.capacity() as u32).to_le_bytes());
    for i in 0..g.capacity() {
        let d = g.node(NodeId::from_index(i));
        if !d.alive {
            out.push(0xff);
            continue;
        }
        out.extend_from_slice(&d.ty.0.to_le_bytes());
        for &v in &d.attrs {
            encode_value(v, out);
        }
    }
    if edges {
        for (s, l, t) in g.find_edges() {
            out.extend_from_slice(&s.0.to_le_bytes());
            out.extend_from_slice(&l.0.to_le_bytes());
            out.extend_from_slice(&t.0.to_le_bytes());
        }
    }
}

/// Colour refinement over the created nodes, then individualisation until every colour
/// is unique; among the leaves the one with the least encoding wins.
fn canonical_order(g: &Graph, base: usize, created: &[NodeId], edges: bool) -> Vec<NodeId> {
    let index_of = |n: NodeId| -> Option<usize> { created.iter().position(|&c| c == n) };
    // Static part of each created node's signature: type, attributes, edges to start nodes.
    let statics: Vec<Vec<u8>> = created
        .iter()
        .map(|&n| {
            let mut sig = Vec::new();
            let d = g.node(n);
            sig.extend_from_slice(&d.ty.0.to_le_bytes());
            for &v in &d.attrs {
                encode_value(v, &mut sig);
            }
            let mut fixed: Vec<(u8, u32, u32)> = Vec::new();
            for &(l, m) in g.out(n) {
                if m.index() < base {
                    fixed.push((0, l.0, m.0));
                }
            }
            for &(l, m) in g.inc(n) {
                if m.index() < base {
                    fixed.push((1, l.0, m.0));
                }
            }
            fixed.sort_unstable();
            for (d, l, m) in fixed {
                sig.push(d);
                sig.extend_from_slice(&l.to_le_bytes());
                sig.extend_from_slice(&m.to_le_bytes());
            }
            sig
        })
        .collect();
    // Created neighbours of each created node, by local index.
    let links: Vec<Vec<(u8, u32, usize)>> = created
        .iter()
        .map(|&n| {
            let mut v = Vec::new();
            for &(l, m) in g.out(n) {
                if let Some(j) = index_of(m) {
                    v.push((0, l.0, j));
                }
            }
            for &(l, m) in g.inc(n) {
                if let Some(j) = index_of(m) {
                    v.push((1, l.0, j));
                }
            }
            v
        })
        .collect();
    let initial = rank(&statics);
    let colours = refine(initial, &links);
    let mut best: Option<(Vec<u8>, Vec<usize>)> = None;
    search(g, base, created, edges, &links, colours, &mut best);
    let (_, order) = best.expect("at least one leaf");
    order.into_iter().map(|i| created[i]).collect()
}

fn rank<T: Ord + Clone>(keys: &[T]) -> Vec<u32> {
    let mut sorted: Vec<T> = keys.to_vec();
    sorted.sort();
    sorted.dedup();
    keys.iter()
        .map(|k| sorted.binary_search(k).expect("present") as u32)
        .collect()
}

fn refine(mut colours: Vec<u32>, links: &[Vec<(u8, u32, usize)>]) -> Vec<u32> {
    loop {
        let classes = count_classes(&colours);
        let keys: Vec<(u32, Vec<(u8, u32, u32)>)> = (0..colours.len())
            .map(|i| {
                let mut nb: Vec<(u8, u32, u32)> = links[i]
                    .iter()
                    .map(|&(d, l, j)| (d, l, colours[j]))
                    .collect();
                nb.sort_unstable();
                (colours[i], nb)
            })
            .collect();
        let next = rank(&keys);
        if count_classes(&next) == classes {
            return next;
        }
        colours = next;
    }
}

fn count_classes(colours: &[u32]) -> usize {
    let mut c = colours.to_vec();
    c.sort_unstable();
    c.dedup();
    c.len()
}

fn search(
    g: &Graph,
    base: usize,
    created: &[NodeId],
    edges: bool,
    links: &[Vec<(u8, u32, usize)>],
    colours: Vec<u32>,
    best: &mut Option<(Vec<u8>, Vec<usize>)>,
) {
    if count_classes(&colours) == colours.len() {
        let mut order: Vec<usize> = (0..colours.len()).collect();
        order.sort_by_key(|&i| colours[i]);
        let mut h = g.clone();
        let mut perm: Vec<NodeId> = (0..h.capacity()).map(NodeId::from_index).collect();
        let mut next = base;
        for &i in &order {
            perm[created[i].index()] = NodeId::from_index(next);
            next += 1;
        }
        for (i, p) in perm.iter_mut().enumerate().skip(base) {
            if !g.is_alive(NodeId::from_index(i)) {
                *p = NodeId::from_index(next);
                next += 1;
            }
        }
        h.permute(&perm);
        h.trim();
        let mut key = Vec::new();
        encode(&h, edges, &mut key);
        if best.as_ref().is_none_or(|(k, _)| key < *k) {
            *best = Some((key, order));
        }
        return;
    }
    // Individualise each member of the first tied class in turn.
    let mut by_colour: Vec<(u32, usize)> = colours.iter().copied().zip(0..).collect();
    by_colour.sort_unstable();
    let tied = by_colour
        .windows(2)
        .find(|w| w[0].0 == w[1].0)
        .map(|w| w[0].0)
        .expect("a tie");
    for i in (0..colours.len()).filter(|&i| colours[i] == tied) {
        let split: Vec<u32> = colours
            .iter()
            .enumerate()
            .map(|(j, &c)| 2 * c + u32::from(c == tied && j != i))
            .collect();
        search(g, base, created, edges, links, refine(split, links), best);
    }
}
