//! Canonical forms of host graphs. Nodes of the start graph keep their identity (cells stay
//! distinguishable, so symmetric solutions are never merged); nodes created by rules are
//! anonymous and put in a canonical order, so that two orders of creating the same nodes
//! give one state. The order comes from each created node's own signature (type,
//! attributes, edges to start nodes); where signatures tie, twins are collapsed and an
//! individualisation–refinement search with automorphism pruning ([`search`]) decides,
//! keeping the least encoding: exact, not a hash.

mod encoding;
mod partition;
mod search;
#[cfg(test)]
mod tests;

use std::cmp::Ordering;

use crate::model::{Graph, NodeId};

use crate::explore::halt::Halt;
use encoding::encode_ordered;
use partition::{cmp_static, Coloured};

/// How to put the states of one grammar into canonical form.
#[derive(Clone, Copy)]
pub struct Canon {
    /// Nodes `0..base` are the start graph's; later ones were created by rules.
    pub base: usize,
    /// Some rule creates nodes: created nodes need a canonical order.
    pub creates: bool,
    /// Some rule changes edges: the key must include them.
    pub edges: bool,
    /// Polled during a long search for a canonical order. Once it says stop, keys are
    /// written in creation order: still exact (equal keys, equal graphs) but isomorphic
    /// graphs may get different keys, which only matters to a run that is stopping anyway.
    /// Default: none.
    pub halt: Option<Halt<'static>>,
}

impl Canon {
    /// A canonical form for a grammar whose start graph has `base` nodes, without a halt.
    pub fn new(base: usize, creates: bool, edges: bool) -> Canon {
        Canon {
            base,
            creates,
            edges,
            halt: None,
        }
    }

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
    /// graphs up to renaming created nodes, and (unless the halt stopped the search)
    /// graphs equal up to renaming created nodes get equal keys.
    pub fn key(&self, g: &Graph, start: &Graph, out: &mut Vec<u8>) {
        if !self.creates || g.capacity() <= self.base {
            encode_ordered(g, start, self.base, &[], self.edges, out);
            return;
        }
        let created: Vec<NodeId> = (self.base..g.capacity())
            .map(NodeId::from_index)
            .filter(|&n| g.is_alive(n))
            .collect();
        self.canonical_key(g, start, created, out);
    }

    /// Writes the key of `g` with `created` (its live created nodes) in canonical order.
    /// When every node's own signature differs (as when each created cell has its own row
    /// and column) that order is the sorted one; otherwise the search decides.
    fn canonical_key(&self, g: &Graph, start: &Graph, mut created: Vec<NodeId>, out: &mut Vec<u8>) {
        let base = self.base;
        let less = |a: NodeId, b: NodeId| cmp_static(g, base, a, b) == Ordering::Less;
        // Often the nodes were created in order (a focus fills cells in id order), and then
        // strictly increasing signatures are the order, ties impossible.
        if !created.windows(2).all(|w| less(w[0], w[1])) {
            created.sort_unstable_by(|&a, &b| cmp_static(g, base, a, b));
        }
        if created.windows(2).all(|w| less(w[0], w[1])) {
            encode_ordered(g, start, base, &created, self.edges, out);
            return;
        }
        // Colour = rank of the signature among the distinct ones.
        let mut colours = vec![0u32; created.len()];
        for i in 1..created.len() {
            colours[i] = colours[i - 1] + u32::from(less(created[i - 1], created[i]));
        }
        let graph = Coloured::new(g, base, &created, &colours);
        let mut nodes = Vec::with_capacity(created.len());
        let found = search::canonical_key(&graph, self.halt, |order, key| {
            nodes.clear();
            for &v in order {
                nodes.extend_from_slice(&graph.members[v as usize]);
            }
            encode_ordered(g, start, base, &nodes, self.edges, key);
        });
        match found {
            Some(key) => *out = key,
            // Stopped: creation order, exact but not canonical.
            None => {
                created.sort_unstable();
                encode_ordered(g, start, base, &created, self.edges, out);
            }
        }
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
