//! Indexes over one host graph, built once per state and shared by every search plan run
//! on it: live nodes by type, nodes by the value of an attribute that plans look up, and
//! the nodes each path expression reaches from a start node (computed on first use).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::model::{AttrId, Graph, NodeId, NodeTypeId, TypeSystem, Value};

use super::path::PathNfa;

/// A (node type, attribute) pair that some plan looks nodes up by.
pub type LookupKey = (NodeTypeId, AttrId);

pub struct GraphIndex {
    /// Per node type: the live nodes of that type or a subtype, in id order.
    by_type: Vec<Vec<NodeId>>,
    /// Per lookup key: (attribute value, node) for the live nodes of the key's type, sorted.
    lookups: Vec<(LookupKey, Vec<(Value, NodeId)>)>,
    /// (path id, start node) -> the nodes the path reaches, sorted.
    reach: RefCell<HashMap<(u32, NodeId), Rc<[NodeId]>>>,
}

impl GraphIndex {
    /// Indexes `g`; `keys` are the lookups the plans to be run use (see
    /// [`super::SearchPlan::lookup_keys`]). Cost: one pass over the nodes per type level
    /// plus a sort per key.
    pub fn new(types: &TypeSystem, g: &Graph, keys: &[LookupKey]) -> GraphIndex {
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
            reach: RefCell::new(HashMap::new()),
        }
    }

    /// The live nodes of type `ty` or a subtype, in id order.
    pub fn nodes_of(&self, ty: NodeTypeId) -> &[NodeId] {
        &self.by_type[ty.index()]
    }

    /// The live nodes of type `ty` (or a subtype) whose `attr` equals `v`, in id order;
    /// `None` when the index was not built for this key.
    pub fn lookup(&self, ty: NodeTypeId, attr: AttrId, v: Value) -> Option<impl Iterator<Item = NodeId> + '_> {
        let (_, list) = self.lookups.iter().find(|(k, _)| *k == (ty, attr))?;
        let lo = list.partition_point(|&(x, _)| x < v);
        Some(list[lo..].iter().take_while(move |&&(x, _)| x == v).map(|&(_, n)| n))
    }

    /// The nodes `nfa` reaches from `start` in `g` (the graph this index was built for).
    pub fn reachable(&self, nfa: &PathNfa, g: &Graph, start: NodeId) -> Rc<[NodeId]> {
        let key = (nfa.id(), start);
        if let Some(r) = self.reach.borrow().get(&key) {
            return Rc::clone(r);
        }
        let r: Rc<[NodeId]> = nfa.find_reachable(g, start).into();
        self.reach.borrow_mut().insert(key, Rc::clone(&r));
        r
    }
}
