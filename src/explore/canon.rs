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
    /// Drops dead created nodes, so that they do not pile up; live created nodes keep
    /// their creation order (the key reads them in canonical order, so the graph need not
    /// be renumbered).
    pub fn canonicalize(&self, g: &mut Graph) {
        if !self.creates || g.capacity() <= self.base {
            return;
        }
        let created = (self.base..g.capacity()).map(NodeId::from_index);
        if created.clone().all(|n| g.is_alive(n)) {
            return;
        }
        let live: Vec<NodeId> = created.filter(|&n| g.is_alive(n)).collect();
        g.permute(&permutation(g, self.base, &live));
        g.trim();
    }

    /// The exact key of `g`, a state that started as `start`: the start nodes that differ
    /// from `start` (by index), then the live created nodes in canonical order, then (when
    /// rules change edges) every edge with created nodes renumbered. Equal keys mean equal
    /// graphs up to renaming created nodes; encoding only what changed keeps keys short.
    pub fn key(&self, g: &Graph, start: &Graph, out: &mut Vec<u8>) {
        out.clear();
        let order = if self.creates && g.capacity() > self.base {
            let created: Vec<NodeId> = (self.base..g.capacity())
                .map(NodeId::from_index)
                .filter(|&n| g.is_alive(n))
                .collect();
            canonical_order(g, self.base, created, start, self.edges)
        } else {
            Vec::new()
        };
        encode_ordered(g, start, self.base, &order, self.edges, out);
    }
}

/// The permutation (old id -> new id) that puts `order` at `base..` and every other
/// created node after it, where `trim` drops the dead ones. Start nodes stay.
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

/// LEB128.
fn put_uint(mut x: u64, out: &mut Vec<u8>) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

fn encode_value(v: Value, out: &mut Vec<u8>) {
    match v {
        Value::None => out.push(0),
        Value::Bool(b) => out.push(1 + b as u8),
        Value::Int(n) => {
            out.push(3);
            // Zigzag, so small negative numbers stay short.
            put_uint(((n << 1) ^ (n >> 63)) as u64, out);
        }
        Value::Val(i) => {
            out.push(4);
            put_uint(u64::from(i), out);
        }
    }
}

fn encode_node(g: &Graph, n: NodeId, out: &mut Vec<u8>) {
    let d = g.node(n);
    if !d.alive {
        out.push(0);
        return;
    }
    put_uint(u64::from(d.ty.0) + 1, out);
    for &v in &d.attrs {
        encode_value(v, out);
    }
}

/// The key of `g` with its live created nodes renumbered `base..` in `order`.
fn encode_ordered(
    g: &Graph,
    start: &Graph,
    base: usize,
    order: &[NodeId],
    edges: bool,
    out: &mut Vec<u8>,
) {
    for i in 0..base {
        let n = NodeId::from_index(i);
        if i >= start.capacity() || g.node(n) != start.node(n) {
            put_uint(i as u64 + 1, out);
            encode_node(g, n, out);
        }
    }
    out.push(0);
    put_uint(order.len() as u64, out);
    for &n in order {
        encode_node(g, n, out);
    }
    if edges {
        let mut new_id: Vec<u32> = (0..g.capacity() as u32).collect();
        for (i, &n) in order.iter().enumerate() {
            new_id[n.index()] = (base + i) as u32;
        }
        let mut all: Vec<(u32, u32, u32)> = g
            .find_edges()
            .map(|(s, l, t)| (new_id[s.index()], l.0, new_id[t.index()]))
            .collect();
        all.sort_unstable();
        for (s, l, t) in all {
            put_uint(u64::from(s), out);
            put_uint(u64::from(l), out);
            put_uint(u64::from(t), out);
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
fn canonical_order(
    g: &Graph,
    base: usize,
    mut created: Vec<NodeId>,
    start: &Graph,
    edges: bool,
) -> Vec<NodeId> {
    let less = |a: NodeId, b: NodeId| cmp_static(g, base, a, b) == Ordering::Less;
    // Often the nodes were created in order (a focus fills cells in id order), and then
    // strictly increasing signatures are the order, ties impossible.
    if created.windows(2).all(|w| less(w[0], w[1])) {
        return created;
    }
    created.sort_unstable_by(|&a, &b| cmp_static(g, base, a, b));
    if created.windows(2).all(|w| less(w[0], w[1])) {
        return created;
    }
    // Colour = rank of the signature among the distinct ones.
    let mut colours = vec![0u32; created.len()];
    for i in 1..created.len() {
        colours[i] = colours[i - 1] + u32::from(less(created[i - 1], created[i]));
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
            let out = g
                .out(n)
                .iter()
                .filter_map(|&(l, m)| Some((0u8, l.0, local_of(m)?)));
            let inc = g
                .inc(n)
                .iter()
                .filter_map(|&(l, m)| Some((1u8, l.0, local_of(m)?)));
            out.chain(inc).collect()
        })
        .collect();
    let colours = refine(colours, &links);
    let mut best: Option<(Vec<u8>, Vec<usize>)> = None;
    let leaf = Leaf {
        g,
        start,
        base,
        created: &created,
        edges,
        links: &links,
    };
    search(&leaf, colours, &mut best);
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

/// A node's colour and its neighbours' (direction, label, colour), sorted.
type RefineKey = (u32, Vec<(u8, u32, u32)>);

fn refine(mut colours: Vec<u32>, links: &[Vec<(u8, u32, usize)>]) -> Vec<u32> {
    loop {
        let classes = count_classes(&colours);
        let keys: Vec<RefineKey> = (0..colours.len())
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

/// What the search for the least encoding needs at every leaf.
struct Leaf<'a> {
    g: &'a Graph,
    start: &'a Graph,
    base: usize,
    created: &'a [NodeId],
    edges: bool,
    links: &'a [Vec<(u8, u32, usize)>],
}

fn search(leaf: &Leaf<'_>, colours: Vec<u32>, best: &mut Option<(Vec<u8>, Vec<usize>)>) {
    if count_classes(&colours) == colours.len() {
        let mut order: Vec<usize> = (0..colours.len()).collect();
        order.sort_by_key(|&i| colours[i]);
        let nodes: Vec<NodeId> = order.iter().map(|&i| leaf.created[i]).collect();
        let mut key = Vec::new();
        encode_ordered(leaf.g, leaf.start, leaf.base, &nodes, leaf.edges, &mut key);
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
        search(leaf, refine(split, leaf.links), best);
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
        let start = with_created(&[]);
        c.canonicalize(&mut g);
        let mut k = Vec::new();
        c.key(&g, &start, &mut k);
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
        assert_eq!(
            key_of(&c, with_created(&[3, 1, 2])),
            key_of(&c, with_created(&[1, 2, 3]))
        );
        assert_ne!(
            key_of(&c, with_created(&[3, 1, 2])),
            key_of(&c, with_created(&[1, 2, 4]))
        );
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
        assert_eq!(
            key_of(&c, two_cycles.clone()),
            key_of(&c, two_cycles_renamed)
        );
        assert_eq!(
            key_of(&c, four_cycle.clone()),
            key_of(&c, four_cycle_renamed)
        );
        assert_ne!(key_of(&c, two_cycles), key_of(&c, four_cycle));
    }

    #[test]
    fn only_dead_created_nodes_are_moved() {
        let c = canon(2);
        let mut g = with_created(&[3, 1, 2]);
        let before = g.clone();
        c.canonicalize(&mut g);
        assert_eq!(g, before);
        g.remove_node(NodeId(3));
        c.canonicalize(&mut g);
        assert_eq!(g.capacity(), 4);
        assert_eq!(g.attr(NodeId(3), crate::model::AttrId(0)), Value::Int(2));
    }

    #[test]
    fn keys_name_changed_start_nodes_only() {
        let c = canon(2);
        let start = with_created(&[]);
        let mut g = start.clone();
        let mut k = Vec::new();
        c.key(&g, &start, &mut k);
        assert_eq!(k, vec![0, 0]);
        g.set_attr(NodeId(1), crate::model::AttrId(0), Value::Int(5));
        c.key(&g, &start, &mut k);
        assert_eq!(k, vec![2, 1, 3, 10, 0, 0]);
    }
}
