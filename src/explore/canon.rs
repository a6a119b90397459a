//! Canonical forms of host graphs. Nodes of the start graph keep their identity (cells stay
//! distinguishable, so symmetric solutions are never merged); nodes created by rules are
//! anonymous and put in a canonical order, so that two orders of creating the same nodes
//! give one state. The order comes from each created node's own signature (type,
//! attributes, edges to start nodes); where signatures tie, colour refinement over the
//! edges between created nodes and individualisation of one node at a time decide, keeping
//! the least encoding: exact, not a hash.

use std::cmp::Ordering;

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
    /// Renumbers created nodes into canonical order and drops dead ones. A graph whose
    /// created nodes are already in order (the common case when a rule adds one node to a
    /// canonical state) is left as it is.
    pub fn canonicalize(&self, g: &mut Graph) {
        if !self.creates || g.capacity() <= self.base {
            return;
        }
        let created: Vec<NodeId> = (self.base..g.capacity())
            .map(NodeId::from_index)
            .filter(|&n| g.is_alive(n))
            .collect();
        let order = canonical_order(g, self.base, &created, self.edges);
        let in_place = order
            .iter()
            .enumerate()
            .all(|(i, n)| n.index() == self.base + i);
        if !in_place {
            g.permute(&permutation(g, self.base, &order));
        }
        g.trim();
    }

    /// The exact key of a canonical graph.
    pub fn key(&self, g: &Graph, out: &mut Vec<u8>) {
        out.clear();
        encode(g, self.edges, out);
    }
}

/// The permutation (old id -> new id) that puts `order` at `base..` and every dead created
/// node after it, where `trim` drops it. Start nodes stay.
fn permutation(g: &Graph, base: usize, order: &[NodeId]) -> Vec<NodeId> {
    let mut perm: Vec<NodeId> = (0..g.capacity()).map(NodeId::from_index).collect();
    let mut next = base;
    for &n in order {
        perm[n.index()] = NodeId::from_index(next);
        next += 1;
    }
    for (i, p) in perm.iter_mut().enumerate().skip(base) {
        if !g.is_alive(NodeId::from_index(i)) {
            *p = NodeId::from_index(next);
            next += 1;
        }
    }
    perm
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
        encode_node(g, NodeId::from_index(i), out);
    }
    if edges {
        for (s, l, t) in g.find_edges() {
            encode_edge(s, l.0, t, out);
        }
    }
}

fn encode_node(g: &Graph, n: NodeId, out: &mut Vec<u8>) {
    let d = g.node(n);
    if !d.alive {
        out.push(0xff);
        return;
    }
    out.extend_from_slice(&d.ty.0.to_le_bytes());
    for &v in &d.attrs {
        encode_value(v, out);
    }
}

fn encode_edge(s: NodeId, l: u32, t: NodeId, out: &mut Vec<u8>) {
    out.extend_from_slice(&s.0.to_le_bytes());
    out.extend_from_slice(&l.to_le_bytes());
    out.extend_from_slice(&t.0.to_le_bytes());
}

/// The key `encode` would give after renumbering the created nodes into `order` (and
/// dropping dead created nodes), without building that graph.
fn encode_ordered(g: &Graph, base: usize, order: &[NodeId], edges: bool, out: &mut Vec<u8>) {
    out.extend_from_slice(&((base + order.len()) as u32).to_le_bytes());
    for i in 0..base {
        encode_node(g, NodeId::from_index(i), out);
    }
    for &n in order {
        encode_node(g, n, out);
    }
    if edges {
        let mut new_id = vec![NodeId(u32::MAX); g.capacity()];
        for (i, id) in new_id.iter_mut().enumerate().take(base) {
            *id = NodeId::from_index(i);
        }
        for (i, &n) in order.iter().enumerate() {
            new_id[n.index()] = NodeId::from_index(base + i);
        }
        let mut all: Vec<(NodeId, u32, NodeId)> = g
            .find_edges()
            .map(|(s, l, t)| (new_id[s.index()], l.0, new_id[t.index()]))
            .collect();
        all.sort_unstable();
        for (s, l, t) in all {
            encode_edge(s, l, t, out);
        }
    }
}

/// Edges of `n` to start nodes: outgoing, then incoming (each list sorted, as the graph
/// keeps them), with a direction tag so the two lists cannot run together.
fn fixed_edges(g: &Graph, base: usize, n: NodeId) -> impl Iterator<Item = (u8, u32, u32)> + '_ {
    let out = g
        .out(n)
        .iter()
        .filter(move |(_, m)| m.index() < base)
        .map(|&(l, m)| (0u8, l.0, m.0));
    let inc = g
        .inc(n)
        .iter()
        .filter(move |(_, m)| m.index() < base)
        .map(|&(l, m)| (1u8, l.0, m.0));
    out.chain(inc)
}

/// Compares two created nodes by what they are on their own: type, attributes, edges to
/// start nodes. Isomorphism-invariant, since start nodes keep their ids.
fn cmp_static(g: &Graph, base: usize, a: NodeId, b: NodeId) -> Ordering {
    let (da, db) = (g.node(a), g.node(b));
    da.ty
        .cmp(&db.ty)
        .then_with(|| da.attrs.as_slice().cmp(db.attrs.as_slice()))
        .then_with(|| fixed_edges(g, base, a).cmp(fixed_edges(g, base, b)))
}

/// The created nodes in canonical order. When every node's own signature differs (as when
/// each created cell has its own row and column) that order is the sorted one; otherwise
/// colour refinement and individualisation break the ties.
fn canonical_order(g: &Graph, base: usize, created: &[NodeId], edges: bool) -> Vec<NodeId> {
    let mut sorted: Vec<usize> = (0..created.len()).collect();
    sorted.sort_by(|&i, &j| cmp_static(g, base, created[i], created[j]));
    // Colour = rank of the signature among the distinct ones.
    let mut colours = vec![0u32; created.len()];
    let mut distinct = true;
    for w in 1..sorted.len() {
        let (p, i) = (sorted[w - 1], sorted[w]);
        let tie = cmp_static(g, base, created[p], created[i]) == Ordering::Equal;
        distinct &= !tie;
        colours[i] = colours[p] + u32::from(!tie);
    }
    if distinct {
        return sorted.into_iter().map(|i| created[i]).collect();
    }
    // Created neighbours of each created node, by local index.
    let mut local = vec![usize::MAX; g.capacity() - base];
    for (i, n) in created.iter().enumerate() {
        local[n.index() - base] = i;
    }
    let local_of = |m: NodeId| -> Option<usize> {
        m.index()
            .checked_sub(base)
            .map(|k| local[k])
            .filter(|&k| k != usize::MAX)
    };
    let links: Vec<Vec<(u8, u32, usize)>> = created
        .iter()
        .map(|&n| {
            let out = g.out(n).iter().filter_map(|&(l, m)| Some((0u8, l.0, local_of(m)?)));
            let inc = g.inc(n).iter().filter_map(|&(l, m)| Some((1u8, l.0, local_of(m)?)));
            out.chain(inc).collect()
        })
        .collect();
    let colours = refine(colours, &links);
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
        let nodes: Vec<NodeId> = order.iter().map(|&i| created[i]).collect();
        let mut key = Vec::new();
        encode_ordered(g, base, &nodes, edges, &mut key);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LabelId, NodeTypeId};
    use smallvec::smallvec;

    const T: NodeTypeId = NodeTypeId(0);
    const L: LabelId = LabelId(0);

    fn canon(base: usize) -> Canon {
        Canon {
            base,
            creates: true,
            edges: true,
        }
    }

    fn key_of(c: &Canon, mut g: Graph) -> Vec<u8> {
        c.canonicalize(&mut g);
        let mut k = Vec::new();
        c.key(&g, &mut k);
        k
    }

    /// Two start nodes, then created nodes with the given values, in this order.
    fn with_created(values: &[i64]) -> Graph {
        let mut g = Graph::new();
        g.add_node(T, smallvec![Value::Int(-1)]);
        g.add_node(T, smallvec![Value::Int(-2)]);
        for &v in values {
            g.add_node(T, smallvec![Value::Int(v)]);
        }
        g
    }

    #[test]
    fn creation_order_does_not_matter() {
        let c = canon(2);
        assert_eq!(key_of(&c, with_created(&[3, 1, 2])), key_of(&c, with_created(&[1, 2, 3])));
        assert_ne!(key_of(&c, with_created(&[3, 1, 2])), key_of(&c, with_created(&[1, 2, 4])));
    }

    #[test]
    fn dead_created_nodes_are_dropped_but_dead_start_nodes_kept() {
        let c = canon(2);
        let mut a = with_created(&[5, 7]);
        a.remove_node(NodeId(2));
        let b = with_created(&[7]);
        assert_eq!(key_of(&c, a), key_of(&c, b.clone()));
        let mut d = b.clone();
        d.remove_node(NodeId(0));
        assert_ne!(key_of(&c, d), key_of(&c, b));
    }

    #[test]
    fn ties_are_broken_by_edges_to_start_nodes_and_between_created_nodes() {
        let c = canon(2);
        // Two equal created nodes; one points at start node 0, the other at start node 1.
        let build = |first_to: u32| {
            let mut g = with_created(&[9, 9]);
            g.add_edge(NodeId(2), L, NodeId(first_to));
            g.add_edge(NodeId(3), L, NodeId(1 - first_to));
            g
        };
        assert_eq!(key_of(&c, build(0)), key_of(&c, build(1)));
        // A path of three equal created nodes hanging off start node 0, built in two orders:
        // 0 -> x -> y -> z.
        let path = |ids: [u32; 3]| {
            let mut g = with_created(&[9, 9, 9]);
            g.add_edge(NodeId(0), L, NodeId(ids[0]));
            g.add_edge(NodeId(ids[0]), L, NodeId(ids[1]));
            g.add_edge(NodeId(ids[1]), L, NodeId(ids[2]));
            g
        };
        assert_eq!(key_of(&c, path([2, 3, 4])), key_of(&c, path([4, 2, 3])));
        assert_eq!(key_of(&c, path([2, 3, 4])), key_of(&c, path([3, 4, 2])));
        // The same path hanging off start node 1 is another state.
        let mut other = with_created(&[9, 9, 9]);
        other.add_edge(NodeId(1), L, NodeId(2));
        other.add_edge(NodeId(2), L, NodeId(3));
        other.add_edge(NodeId(3), L, NodeId(4));
        assert_ne!(key_of(&c, path([2, 3, 4])), key_of(&c, other));
    }

    #[test]
    fn symmetric_created_nodes_need_individualisation() {
        let c = canon(2);
        // Two created 2-cycles and a created 4-cycle are not isomorphic, though colour
        // refinement alone gives every node the same colour in both.
        let cycles = |pairs: &[(u32, u32)]| {
            let mut g = with_created(&[9, 9, 9, 9]);
            for &(a, b) in pairs {
                g.add_edge(NodeId(a), L, NodeId(b));
            }
            g
        };
        let two_cycles = cycles(&[(2, 3), (3, 2), (4, 5), (5, 4)]);
        let two_cycles_renamed = cycles(&[(2, 4), (4, 2), (3, 5), (5, 3)]);
        let four_cycle = cycles(&[(2, 3), (3, 4), (4, 5), (5, 2)]);
        let four_cycle_renamed = cycles(&[(5, 3), (3, 2), (2, 4), (4, 5)]);
        assert_eq!(key_of(&c, two_cycles.clone()), key_of(&c, two_cycles_renamed));
        assert_eq!(key_of(&c, four_cycle.clone()), key_of(&c, four_cycle_renamed));
        assert_ne!(key_of(&c, two_cycles), key_of(&c, four_cycle));
    }

    #[test]
    fn canonical_graphs_are_left_alone() {
        let c = canon(2);
        let mut g = with_created(&[1, 2, 3]);
        c.canonicalize(&mut g);
        let before = g.clone();
        c.canonicalize(&mut g);
        assert_eq!(g, before);
        assert_eq!(g.attr(NodeId(2), crate::model::AttrId(0)), Value::Int(1));
    }
}
