//! The node pairs an `edges` generator connects: a hash join on the equalities of its
//! condition where it has some, every pair otherwise, both within fixed limits.

use std::collections::HashMap;

use crate::model::{AttrId, Graph, NodeId, Value, VarId};
use crate::rule::{Aggregate, BinOp, Env, Expr, ExprKind};

/// The most (source, target) pairs one generator may test: about a second of work.
pub const MAX_CANDIDATES: u64 = 1 << 25;

/// The most edges one generator may create: a few hundred MB of graph.
pub const MAX_EDGES: u64 = 1 << 22;

/// Why a generator's pairs were not listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TooMany {
    /// Testing the condition would take this many pairs.
    Candidates(u64),
    /// The condition accepts this many pairs.
    Edges(u64),
}

/// Reads attributes of the two nodes an `edges` condition is evaluated for: the source
/// is `VarId(0)`, the target `VarId(1)`.
struct PairEnv<'g> {
    graph: &'g Graph,
    pair: [NodeId; 2],
}

impl Env for PairEnv<'_> {
    fn param(&self, _: u32) -> Value {
        Value::None
    }

    fn attr(&self, var: VarId, attr: AttrId) -> Value {
        self.pair
            .get(var.index())
            .and_then(|&n| self.graph.node(n).attrs.get(attr.index()).copied())
            .unwrap_or(Value::None)
    }

    /// The checker refuses aggregates in generators.
    fn aggregate(&self, _: &Aggregate) -> Value {
        Value::None
    }
}

/// Which ends an expression reads: bit 0 the source, bit 1 the target.
fn ends_read(e: &Expr) -> u8 {
    let mut ends = 0;
    e.visit_attrs(&mut |v, _| ends |= 1 << v.index().min(7));
    ends
}

/// A condition split for a hash join: `source key == target key` for each equality whose
/// sides read one end each; `rest` must hold as well.
struct Join<'e> {
    source_keys: Vec<&'e Expr>,
    target_keys: Vec<&'e Expr>,
    rest: Vec<&'e Expr>,
    /// A constant part is false: no pair qualifies.
    never: bool,
}

impl<'e> Join<'e> {
    fn of(cond: Option<&'e Expr>, graph: &Graph) -> Join<'e> {
        let mut join = Join {
            source_keys: Vec::new(),
            target_keys: Vec::new(),
            rest: Vec::new(),
            never: false,
        };
        let mut parts = Vec::new();
        if let Some(c) = cond {
            c.conjuncts(&mut parts);
        }
        let no_pair = PairEnv {
            graph,
            pair: [NodeId(u32::MAX); 2],
        };
        for e in parts {
            if ends_read(e) == 0 {
                join.never |= !e.holds(&no_pair);
                continue;
            }
            if let ExprKind::Binary(BinOp::Eq, a, b) = &e.kind {
                match (ends_read(a), ends_read(b)) {
                    (0 | 1, 0 | 2) => {
                        join.source_keys.push(a);
                        join.target_keys.push(b);
                        continue;
                    }
                    (0 | 2, 0 | 1) => {
                        join.source_keys.push(b);
                        join.target_keys.push(a);
                        continue;
                    }
                    _ => {}
                }
            }
            join.rest.push(e);
        }
        join
    }

    fn key(keys: &[&Expr], env: &PairEnv) -> Vec<Value> {
        keys.iter().map(|k| k.eval(env)).collect()
    }
}

/// Every (source, target) pair of distinct nodes for which `cond` holds, in source then
/// target order, or how many there would be when that passes a limit. Cost: one pass
/// over each side, plus one evaluation per pair that agrees on the condition's equalities
/// (every pair when it has none).
pub fn find_pairs(
    graph: &Graph,
    sources: &[NodeId],
    targets: &[NodeId],
    cond: Option<&Expr>,
) -> Result<Vec<(NodeId, NodeId)>, TooMany> {
    let join = Join::of(cond, graph);
    if join.never {
        return Ok(Vec::new());
    }
    let env = |s, t| PairEnv {
        graph,
        pair: [s, t],
    };
    let mut by_key: HashMap<Vec<Value>, Vec<NodeId>> = HashMap::new();
    for &t in targets {
        let key = Join::key(&join.target_keys, &env(t, t));
        by_key.entry(key).or_default().push(t);
    }
    let candidates_of = |s: NodeId| -> &[NodeId] {
        let key = Join::key(&join.source_keys, &env(s, s));
        by_key.get(&key).map_or(&[], Vec::as_slice)
    };
    let mut candidates: u64 = 0;
    let mut own: u64 = 0;
    for &s in sources {
        let found = candidates_of(s);
        candidates = candidates.saturating_add(found.len() as u64);
        own += u64::from(found.binary_search(&s).is_ok());
    }
    if join.rest.is_empty() {
        // The join is the whole condition: every candidate but a node with itself is an
        // edge, so the count is known before any is made.
        let edges = candidates - own;
        if edges > MAX_EDGES {
            return Err(TooMany::Edges(edges));
        }
    } else if candidates > MAX_CANDIDATES {
        return Err(TooMany::Candidates(candidates));
    }
    let mut pairs = Vec::new();
    let mut count: u64 = 0;
    for &s in sources {
        for &t in candidates_of(s) {
            if s != t && join.rest.iter().all(|e| e.holds(&env(s, t))) {
                count += 1;
                // Past the limit, only count, so the message can say how many.
                if count <= MAX_EDGES {
                    pairs.push((s, t));
                }
            }
        }
    }
    if count > MAX_EDGES {
        return Err(TooMany::Edges(count));
    }
    Ok(pairs)
}
