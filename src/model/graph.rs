//! The host graph: typed nodes with attribute values and labelled directed edges.
//!
//! Nodes live in an arena indexed by [`NodeId`]; a deleted node leaves a dead entry so
//! that ids stay stable. The adjacency lists sit behind an `Arc` and are copied only when
//! a rule changes an edge, so states of grammars that only set attributes share them.

use std::sync::Arc;

use smallvec::SmallVec;

use super::ids::{AttrId, LabelId, NodeId, NodeTypeId};
use super::value::Value;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct NodeData {
    pub ty: NodeTypeId,
    pub alive: bool,
    /// One value per attribute of `ty`, in the type's attribute order.
    pub attrs: SmallVec<[Value; 4]>,
}

// By hand: `SmallVec`'s own `Clone` copies item by item; values are `Copy`, so a slice
// copy does. States are cloned once per transition, so this is on the hot path.
impl Clone for NodeData {
    fn clone(&self) -> Self {
        NodeData {
            ty: self.ty,
            alive: self.alive,
            attrs: SmallVec::from_slice(&self.attrs),
        }
    }
}

type Adjacent = SmallVec<[(LabelId, NodeId); 4]>;

#[derive(Debug, Default, PartialEq, Eq, Hash)]
struct Adjacency {
    /// Outgoing `(label, target)` per node, sorted.
    out: Vec<Adjacent>,
    /// Incoming `(label, source)` per node, sorted.
    inc: Vec<Adjacent>,
}

impl Clone for Adjacency {
    fn clone(&self) -> Self {
        let copy = |lists: &Vec<Adjacent>| lists.iter().map(|l| Adjacent::from_slice(l)).collect();
        Adjacency {
            out: copy(&self.out),
            inc: copy(&self.inc),
        }
    }
}

/// A simple graph: at most one edge with a given label between two nodes, as in GROOVE.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Graph {
    nodes: Vec<NodeData>,
    adj: Arc<Adjacency>,
    edge_count: usize,
}

impl Graph {
    /// The empty graph.
    pub fn new() -> Graph {
        Graph::default()
    }

    /// Every id ever allocated, dead ones included.
    pub fn capacity(&self) -> usize {
        self.nodes.len()
    }

    /// Live nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.iter().filter(|n| n.alive).count()
    }

    /// Edges.
    pub fn edge_count(&self) -> usize {
        self.edge_count
    }

    /// Live node ids in increasing order.
    pub fn find_nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.alive)
            .map(|(i, _)| NodeId::from_index(i))
    }

    /// Every edge as `(source, label, target)`, sorted by source, then label, then target.
    pub fn find_edges(&self) -> impl Iterator<Item = (NodeId, LabelId, NodeId)> + '_ {
        self.adj.out.iter().enumerate().flat_map(|(s, list)| {
            list.iter()
                .map(move |&(l, t)| (NodeId::from_index(s), l, t))
        })
    }

    /// The type, attributes and liveness of `n`.
    #[inline]
    pub fn node(&self, n: NodeId) -> &NodeData {
        &self.nodes[n.index()]
    }

    /// True when `n` was allocated and not deleted.
    #[inline]
    pub fn is_alive(&self, n: NodeId) -> bool {
        self.nodes.get(n.index()).is_some_and(|d| d.alive)
    }

    /// The type of `n`.
    #[inline]
    pub fn ty(&self, n: NodeId) -> NodeTypeId {
        self.nodes[n.index()].ty
    }

    /// The value of `n`'s attribute `a` (`Value::None` when unset).
    #[inline]
    pub fn attr(&self, n: NodeId, a: AttrId) -> Value {
        self.nodes[n.index()].attrs[a.index()]
    }

    /// Sets `n`'s attribute `a` to `v`.
    pub fn set_attr(&mut self, n: NodeId, a: AttrId, v: Value) {
        self.nodes[n.index()].attrs[a.index()] = v;
    }

    /// Outgoing `(label, target)` pairs of `n`, sorted.
    #[inline]
    pub fn out(&self, n: NodeId) -> &[(LabelId, NodeId)] {
        &self.adj.out[n.index()]
    }

    /// Incoming `(label, source)` pairs of `n`, sorted.
    #[inline]
    pub fn inc(&self, n: NodeId) -> &[(LabelId, NodeId)] {
        &self.adj.inc[n.index()]
    }

    /// True when the edge `s -l-> t` exists.
    pub fn has_edge(&self, s: NodeId, l: LabelId, t: NodeId) -> bool {
        self.adj.out[s.index()].binary_search(&(l, t)).is_ok()
    }

    /// A new node of type `ty` with these attribute values, its id the next unused one.
    pub fn add_node(&mut self, ty: NodeTypeId, attrs: SmallVec<[Value; 4]>) -> NodeId {
        let id = NodeId::from_index(self.nodes.len());
        self.nodes.push(NodeData {
            ty,
            alive: true,
            attrs,
        });
        let adj = Arc::make_mut(&mut self.adj);
        adj.out.push(SmallVec::new());
        adj.inc.push(SmallVec::new());
        id
    }

    /// Changes a node's type and attribute values in place (used for givens that change a
    /// cell's type, as in encodings with a separate type for filled cells).
    pub fn retype(&mut self, n: NodeId, ty: NodeTypeId, attrs: SmallVec<[Value; 4]>) {
        let d = &mut self.nodes[n.index()];
        d.ty = ty;
        d.attrs = attrs;
    }

    /// Adds an edge; returns false when it was already there.
    pub fn add_edge(&mut self, s: NodeId, l: LabelId, t: NodeId) -> bool {
        let pos = match self.adj.out[s.index()].binary_search(&(l, t)) {
            Ok(_) => return false,
            Err(p) => p,
        };
        let adj = Arc::make_mut(&mut self.adj);
        adj.out[s.index()].insert(pos, (l, t));
        let list = &mut adj.inc[t.index()];
        let pos = list.binary_search(&(l, s)).unwrap_or_else(|p| p);
        list.insert(pos, (l, s));
        self.edge_count += 1;
        true
    }

    /// Removes an edge; returns false when it was not there.
    pub fn remove_edge(&mut self, s: NodeId, l: LabelId, t: NodeId) -> bool {
        let Ok(pos) = self.adj.out[s.index()].binary_search(&(l, t)) else {
            return false;
        };
        let adj = Arc::make_mut(&mut self.adj);
        adj.out[s.index()].remove(pos);
        let list = &mut adj.inc[t.index()];
        if let Ok(p) = list.binary_search(&(l, s)) {
            list.remove(p);
        }
        self.edge_count -= 1;
        true
    }

    /// Deletes a node and every edge touching it (no dangling edges remain).
    pub fn remove_node(&mut self, n: NodeId) {
        if !self.is_alive(n) {
            return;
        }
        let out: Vec<_> = self.out(n).to_vec();
        for (l, t) in out {
            self.remove_edge(n, l, t);
        }
        let inc: Vec<_> = self.inc(n).to_vec();
        for (l, s) in inc {
            self.remove_edge(s, l, n);
        }
        self.nodes[n.index()].alive = false;
    }

    /// Reorders the node arena: node `i` moves to `perm[i]`. Used to put created nodes in
    /// canonical order. `perm` must be a permutation of `0..capacity()`.
    pub fn permute(&mut self, perm: &[NodeId]) {
        let n = self.nodes.len();
        let mut nodes = vec![None; n];
        for (i, d) in self.nodes.drain(..).enumerate() {
            nodes[perm[i].index()] = Some(d);
        }
        self.nodes = nodes.into_iter().map(|d| d.expect("permutation")).collect();
        let mut adj = Adjacency {
            out: vec![SmallVec::new(); n],
            inc: vec![SmallVec::new(); n],
        };
        for (s, list) in self.adj.out.iter().enumerate() {
            for &(l, t) in list {
                adj.out[perm[s].index()].push((l, perm[t.index()]));
                adj.inc[perm[t.index()].index()].push((l, perm[s]));
            }
        }
        for list in adj.out.iter_mut().chain(adj.inc.iter_mut()) {
            list.sort_unstable();
        }
        self.adj = Arc::new(adj);
    }

    /// Drops dead nodes at the end of the arena so that equal graphs compare equal.
    pub fn trim(&mut self) {
        while self.nodes.last().is_some_and(|d| !d.alive) {
            self.nodes.pop();
            let adj = Arc::make_mut(&mut self.adj);
            adj.out.pop();
            adj.inc.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smallvec::smallvec;

    #[test]
    fn edges_are_simple_and_removed_with_their_nodes() {
        let mut g = Graph::new();
        let a = g.add_node(NodeTypeId(0), smallvec![Value::None]);
        let b = g.add_node(NodeTypeId(0), smallvec![Value::Int(2)]);
        assert!(g.add_edge(a, LabelId(0), b));
        assert!(!g.add_edge(a, LabelId(0), b));
        assert!(g.add_edge(b, LabelId(1), a));
        assert_eq!(g.edge_count(), 2);
        assert_eq!(g.inc(b), &[(LabelId(0), a)]);
        g.remove_node(a);
        assert_eq!(g.edge_count(), 0);
        assert!(g.out(b).is_empty());
        assert_eq!(g.find_nodes().collect::<Vec<_>>(), vec![b]);
    }

    #[test]
    fn adjacency_is_shared_until_an_edge_changes() {
        let mut g = Graph::new();
        let a = g.add_node(NodeTypeId(0), smallvec![Value::None]);
        g.add_edge(a, LabelId(0), a);
        let mut h = g.clone();
        h.set_attr(a, AttrId(0), Value::Val(1));
        assert!(Arc::ptr_eq(&g.adj, &h.adj));
        h.remove_edge(a, LabelId(0), a);
        assert!(!Arc::ptr_eq(&g.adj, &h.adj));
        assert!(g.has_edge(a, LabelId(0), a));
    }
}
