//! Indexes over one host graph, built once per state and shared by every search plan run
//! on it: live nodes by type, nodes by the value of an attribute that plans look up, and
//! the nodes each path expression reaches from a start node (computed on first use).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::model::{AttrId, Graph, NodeId, NodeTypeId, TypeSystem, Value};

use super::path::PathNfa;

/// A (node type, attribute) pair that some plan looks nodes up by.
pub type LookupKey = (NodeTypeId, AttrId);

/// The most nodes a reach cache holds, over all its entries (64 MiB of ids): past it,
/// paths are followed again rather than remembered.
pub const MAX_REACH_NODES: usize = 1 << 24;

/// (path id, start node) -> the nodes the path reaches, sorted; at most
/// [`MAX_REACH_NODES`] nodes in all.
#[derive(Default)]
struct ReachMap {
    map: HashMap<(u32, NodeId), Arc<[NodeId]>>,
    nodes: usize,
}

impl ReachMap {
    /// The nodes `nfa` reaches from `start`, remembered while the cache has room.
    fn reachable(&mut self, nfa: &PathNfa, g: &Graph, start: NodeId) -> Arc<[NodeId]> {
        let key = (nfa.id(), start);
        if let Some(r) = self.map.get(&key) {
            return Arc::clone(r);
        }
        let r: Arc<[NodeId]> = nfa.find_reachable(g, start).into();
        if self.nodes + r.len() <= MAX_REACH_NODES {
            self.nodes += r.len();
            self.map.insert(key, Arc::clone(&r));
        }
        r
    }
}

/// What paths reach, shared by the indexes of graphs that have the same edges (states of a
/// grammar whose rules change no edge): each path is followed once per start node.
#[derive(Default)]
pub struct SharedReach(Mutex<ReachMap>);

pub struct GraphIndex<'s> {
    /// Per node type: the live nodes of that type or a subtype, in id order.
    by_type: Vec<Vec<NodeId>>,
    /// Per lookup key: (attribute value, node) for the live nodes of the key's type, sorted.
    lookups: Vec<(LookupKey, Vec<(Value, NodeId)>)>,
    /// What paths reach in this graph, when no shared cache serves it.
    reach: RefCell<ReachMap>,
    shared: Option<&'s SharedReach>,
}

impl<'s> GraphIndex<'s> {
    /// Indexes `g`; `keys` are the lookups the plans to be run use (see
    /// [`super::SearchPlan::lookup_keys`]). Cost: one pass over the nodes per type level
    /// plus a sort per key.
    pub fn new(types: &TypeSystem, g: &Graph, keys: &[LookupKey]) -> GraphIndex<'s> {
        let mut by_type = vec![Vec::new(); types.nodes.len()];
        for n in g.find_nodes() {
            let mut t = Some(g.ty(n));
            while let Some(ty) = t {
                by_type[ty.index()].push(n);
                t = types.node(ty).parent;
            }
        }
        let lookups = keys
            .iter()
            .map(|&(ty, attr)| {
                let mut list: Vec<(Value, NodeId)> = by_type[ty.index()]
                    .iter()
                    .map(|&n| (g.attr(n, attr), n))
                    .collect();
                list.sort_unstable();
                ((ty, attr), list)
            })
            .collect();
        GraphIndex {
            by_type,
            lookups,
            reach: RefCell::new(ReachMap::default()),
            shared: None,
        }
    }

    /// Takes what paths reach from `shared`, which must only serve graphs with the same
    /// edges as this one.
    pub fn with_shared_reach(self, shared: &'s SharedReach) -> GraphIndex<'s> {
        GraphIndex {
            shared: Some(shared),
            ..self
        }
    }

    /// The live nodes of type `ty` or a subtype, in id order.
    pub fn nodes_of(&self, ty: NodeTypeId) -> &[NodeId] {
        &self.by_type[ty.index()]
    }

    /// The live nodes of type `ty` (or a subtype) whose `attr` equals `v`, in id order;
    /// `None` when the index was not built for this key.
    pub fn lookup(
        &self,
        ty: NodeTypeId,
        attr: AttrId,
        v: Value,
    ) -> Option<impl Iterator<Item = NodeId> + '_> {
        let (_, list) = self.lookups.iter().find(|(k, _)| *k == (ty, attr))?;
        let lo = list.partition_point(|&(x, _)| x < v);
        Some(
            list[lo..]
                .iter()
                .take_while(move |&&(x, _)| x == v)
                .map(|&(_, n)| n),
        )
    }

    /// The nodes `nfa` reaches from `start` in `g` (the graph this index was built for).
    pub fn reachable(&self, nfa: &PathNfa, g: &Graph, start: NodeId) -> Arc<[NodeId]> {
        match self.shared {
            Some(shared) => shared
                .0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .reachable(nfa, g, start),
            None => self.reach.borrow_mut().reachable(nfa, g, start),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;

    use super::*;
    use crate::engine::Engine;
    use crate::matcher::plan::Step;
    use crate::matcher::{Matcher, SearchPlan};

    fn load(file: &str) -> crate::Grammar {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        crate::load_str(file, &std::fs::read_to_string(path).unwrap()).unwrap()
    }

    /// Every match of every rule of `g` on its start graph, with or without an index.
    fn matches(g: &crate::Grammar, indexed: bool) -> Vec<Vec<NodeId>> {
        let start = Engine::new(g).start_graph(None);
        let mut out = Vec::new();
        for r in g.rules.iter() {
            let plan = SearchPlan::compile(&r.lhs);
            let mut keys = Vec::new();
            plan.lookup_keys(&mut keys);
            let index = GraphIndex::new(&g.types, &start, &keys);
            let params = [Value::Val(0)];
            let m = Matcher::new(&g.types, &start, &params);
            let m = if indexed { m.with_index(&index) } else { m };
            let mut binding = Vec::new();
            let end = r.lhs.var_end() as usize;
            let _ = m.for_each_match(&plan, &mut binding, &mut |b| {
                out.push(b[..end].to_vec());
                ControlFlow::Continue(())
            });
        }
        out
    }

    #[test]
    fn index_and_scans_find_the_same_matches() {
        for file in [
            "rules/encodings/attributes-4x4-centre.graft",
            "rules/encodings/neighbours-4x4.graft",
            "rules/encodings/groups-9x9.graft",
            "rules/futoshiki-5x5.graft",
        ] {
            let g = load(file);
            let with = matches(&g, true);
            assert!(!with.is_empty(), "{file}");
            assert_eq!(with, matches(&g, false), "{file}");
        }
    }

    #[test]
    fn equated_attributes_are_looked_up() {
        let g = load("rules/encodings/attributes-4x4.graft");
        let plan = SearchPlan::compile(&g.rules[0].lhs);
        let lookups = |p: &SearchPlan| {
            p.steps
                .iter()
                .filter(|s| matches!(s, Step::Lookup { .. }))
                .count()
        };
        // `m: NodeVal { row == n.row, ... }` in each NAC.
        assert!(plan.nacs.iter().all(|n| lookups(n) == 1), "{:?}", plan.nacs);
        let mut keys = Vec::new();
        plan.lookup_keys(&mut keys);
        assert_eq!(keys.len(), 3, "row, col and val of NodeVal: {keys:?}");
    }

    #[test]
    fn paths_are_followed_once_per_start_node() {
        let g = load("rules/encodings/neighbours-4x4.graft");
        let start = Engine::new(&g).start_graph(None);
        let plan = SearchPlan::compile(&g.rules[0].lhs);
        let nfa = &plan.nacs[0].nfas[0];
        let shared = SharedReach::default();
        let a = GraphIndex::new(&g.types, &start, &[]).with_shared_reach(&shared);
        let id = |name: &str| NodeId::from_index(g.names.iter().position(|n| n == name).unwrap());
        let r1c2 = id("r1c2");
        let row: Vec<NodeId> = a.reachable(nfa, &start, r1c2).to_vec();
        // (gr|~gr)+ from r1c2 reaches its whole row, itself included (r1c2 -> r1c3 -> r1c2).
        assert_eq!(row, ["r1c1", "r1c2", "r1c3", "r1c4"].map(id).to_vec());
        let b = GraphIndex::new(&g.types, &start, &[]).with_shared_reach(&shared);
        assert!(Arc::ptr_eq(
            &a.reachable(nfa, &start, r1c2),
            &b.reachable(nfa, &start, r1c2)
        ));
    }
}
