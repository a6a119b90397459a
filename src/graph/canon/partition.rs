//! Created nodes as a vertex-coloured graph with label-coloured edges, twins collapsed,
//! and equitable refinement of ordered partitions of its vertices.
//!
//! Start nodes keep their identity, so a created node's edges to start nodes belong to its
//! colour; what is left to canonise is the graph of edges between created nodes.

use std::cmp::Ordering;

use crate::model::{Graph, NodeId};

/// An edge end seen from one vertex: direction (0 out, 1 in), label, other vertex.
pub type Link = (u8, u32, u32);

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
pub fn cmp_static(g: &Graph, base: usize, a: NodeId, b: NodeId) -> Ordering {
    let (da, db) = (g.node(a), g.node(b));
    da.ty
        .cmp(&db.ty)
        .then_with(|| da.attrs.as_slice().cmp(db.attrs.as_slice()))
        .then_with(|| fixed_edges(g, base, a).cmp(fixed_edges(g, base, b)))
}

/// The graph the canonical search works on. Each vertex is a class of twins: created
/// nodes with the same colour and the same edges to every other node. Swapping two twins
/// is an automorphism, so a class can stand as one vertex whose colour says how many it
/// holds; between two classes there are all edges of a kind or none. Collapsing them makes
/// sets of interchangeable nodes (as many equal created nodes without edges) cost nothing.
pub struct Coloured {
    /// The created nodes of each vertex, in increasing id.
    pub members: Vec<Vec<NodeId>>,
    /// The colour of each vertex: the rank of (node colour, class size).
    pub colours: Vec<u32>,
    /// The edge ends of each vertex, sorted and without repeats.
    pub links: Vec<Vec<Link>>,
}

/// Marks an edge of a node to itself, so that self-loops compare equal across twins.
const SELF: u32 = u32::MAX;

impl Coloured {
    /// The coloured graph of `created` (live created nodes of `g`, sorted by
    /// [`cmp_static`]) whose colours (`colours[i]` for `created[i]`) are the ranks of their
    /// static signatures.
    pub fn new(g: &Graph, base: usize, created: &[NodeId], colours: &[u32]) -> Coloured {
        let mut local = vec![u32::MAX; g.capacity() - base];
        for (i, n) in created.iter().enumerate() {
            local[n.index() - base] = i as u32;
        }
        let local_of = |m: NodeId| -> Option<u32> {
            m.index()
                .checked_sub(base)
                .map(|k| local[k])
                .filter(|&k| k != u32::MAX)
        };
        // Each node's edge ends to created nodes, itself written as SELF.
        let lists: Vec<Vec<Link>> = created
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let mark = |k: u32| if k == i as u32 { SELF } else { k };
                let out = g
                    .out(n)
                    .iter()
                    .filter_map(|&(l, m)| Some((0u8, l.0, mark(local_of(m)?))));
                let inc = g
                    .inc(n)
                    .iter()
                    .filter_map(|&(l, m)| Some((1u8, l.0, mark(local_of(m)?))));
                let mut list: Vec<Link> = out.chain(inc).collect();
                list.sort_unstable();
                list
            })
            .collect();
        // Twins have equal (colour, list); classes are ordered by that key, an invariant.
        let mut order: Vec<usize> = (0..created.len()).collect();
        order.sort_by(|&a, &b| (colours[a], &lists[a]).cmp(&(colours[b], &lists[b])));
        let mut class = vec![0u32; created.len()];
        let mut members: Vec<Vec<NodeId>> = Vec::new();
        let mut firsts: Vec<usize> = Vec::new();
        for (k, &i) in order.iter().enumerate() {
            let same = k > 0 && {
                let j = order[k - 1];
                colours[i] == colours[j] && lists[i] == lists[j]
            };
            if !same {
                members.push(Vec::new());
                firsts.push(i);
            }
            class[i] = members.len() as u32 - 1;
            members.last_mut().expect("a class").push(created[i]);
        }
        for m in &mut members {
            m.sort_unstable();
        }
        let links = firsts
            .iter()
            .enumerate()
            .map(|(c, &i)| {
                let mut list: Vec<Link> = lists[i]
                    .iter()
                    .map(|&(d, l, k)| {
                        (
                            d,
                            l,
                            if k == SELF {
                                c as u32
                            } else {
                                class[k as usize]
                            },
                        )
                    })
                    .collect();
                list.sort_unstable();
                list.dedup();
                list
            })
            .collect();
        let keys: Vec<(u32, usize)> = firsts
            .iter()
            .zip(&members)
            .map(|(&i, m)| (colours[i], m.len()))
            .collect();
        Coloured {
            members,
            colours: rank(&keys),
            links,
        }
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }
}

/// Each key's rank among the distinct keys.
pub fn rank<T: Ord>(keys: &[T]) -> Vec<u32> {
    let mut sorted: Vec<&T> = keys.iter().collect();
    sorted.sort_unstable();
    sorted.dedup();
    keys.iter()
        .map(|k| sorted.binary_search(&k).expect("present") as u32)
        .collect()
}

/// The number of distinct colours.
pub fn count_cells(colours: &[u32]) -> usize {
    let mut seen = vec![false; colours.len()];
    let mut cells = 0;
    for &c in colours {
        if !std::mem::replace(&mut seen[c as usize], true) {
            cells += 1;
        }
    }
    cells
}

/// Refines `colours` (ranks, so each is below their count) to the coarsest equitable
/// partition below it: vertices keep a colour only while they have the same number of
/// neighbours of each (direction, label, colour). The order of cells refines the order
/// they had, and every step is isomorphism-invariant, so isomorphic inputs give
/// isomorphic outputs. Costs O(m log m) per round, at most one round per new cell.
pub fn refine(colours: &mut Vec<u32>, links: &[Vec<Link>]) {
    let mut cells = count_cells(colours);
    let mut seen: Vec<Link> = Vec::new();
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(colours.len());
    while cells < colours.len() {
        seen.clear();
        spans.clear();
        for list in links {
            let from = seen.len();
            seen.extend(list.iter().map(|&(d, l, j)| (d, l, colours[j as usize])));
            seen[from..].sort_unstable();
            spans.push((from, seen.len()));
        }
        let keys: Vec<(u32, &[Link])> = colours
            .iter()
            .zip(&spans)
            .map(|(&c, &(a, b))| (c, &seen[a..b]))
            .collect();
        let next = rank(&keys);
        let now = count_cells(&next);
        *colours = next;
        if now == cells {
            return;
        }
        cells = now;
    }
}

/// `colours` with `v` split off in front of its cell (then refined by the caller).
pub fn individualise(colours: &[u32], v: usize) -> Vec<u32> {
    let cell = colours[v];
    let split: Vec<u32> = colours
        .iter()
        .enumerate()
        .map(|(j, &c)| 2 * c + u32::from(c == cell && j != v))
        .collect();
    rank(&split)
}

/// The members of the first cell with more than one vertex, in increasing vertex order;
/// empty when the partition is discrete.
pub fn first_open_cell(colours: &[u32]) -> Vec<usize> {
    let mut size = vec![0u32; colours.len()];
    for &c in colours {
        size[c as usize] += 1;
    }
    match size.iter().position(|&s| s > 1) {
        None => Vec::new(),
        Some(cell) => (0..colours.len())
            .filter(|&v| colours[v] == cell as u32)
            .collect(),
    }
}
