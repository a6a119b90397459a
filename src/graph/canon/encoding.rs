//! The bytes of a canonical key: a graph written out with its created nodes in a given order.

use crate::model::{Graph, NodeId, Value};

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

/// The key of `g` with its live created nodes renumbered `base..` in `order`: the start
/// nodes that differ from `start` (by index), a separator, the created nodes in order,
/// then (when `edges`) every edge, renumbered and sorted. The whole graph is written, so
/// two graphs with equal keys are equal up to renaming created nodes.
pub fn encode_ordered(
    g: &Graph,
    start: &Graph,
    base: usize,
    order: &[NodeId],
    edges: bool,
    out: &mut Vec<u8>,
) {
    out.clear();
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
