//! Canonical keys: hand-made cases, twins, the halt, and properties over random small
//! graphs (keys do not depend on creation order; equal keys exactly when isomorphic, against
//! a brute-force check of every renaming).

use std::time::{Duration, Instant};

use proptest::prelude::*;
use smallvec::smallvec;

use super::*;
use crate::explore::config::Limits;
use crate::model::{LabelId, NodeTypeId, Value};

const T: NodeTypeId = NodeTypeId(0);
const L: LabelId = LabelId(0);

fn canon(base: usize) -> Canon {
    Canon::new(base, true, true)
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

#[test]
fn many_equal_created_nodes_are_twins_not_a_factorial_search() {
    let c = canon(2);
    // 40 equal created nodes without edges: 40! orders, one class of twins.
    let started = Instant::now();
    let a = key_of(&c, with_created(&[9; 40]));
    assert!(started.elapsed() < Duration::from_secs(5));
    let mut values = [9; 40];
    values[17] = 8;
    assert_eq!(a, key_of(&c, with_created(&[9; 40])));
    assert_ne!(a, key_of(&c, with_created(&values)));
    // Twins that point at the same start node, and twins with self-loops, beside others.
    let build = |order: &[u32]| {
        let mut g = with_created(&[9; 6]);
        for (k, &n) in order.iter().enumerate() {
            let n = NodeId(n);
            if k < 3 {
                g.add_edge(n, L, NodeId(0));
            } else {
                g.add_edge(n, L, n);
            }
        }
        g
    };
    assert_eq!(
        key_of(&c, build(&[2, 3, 4, 5, 6, 7])),
        key_of(&c, build(&[7, 5, 2, 6, 3, 4]))
    );
}

#[test]
fn disjoint_symmetric_pieces_are_pruned_by_automorphisms() {
    let c = canon(2);
    // 30 created pairs a -> b: 30! leaves without pruning, a few hundred with it.
    let pairs = |shift: u32| {
        let mut g = with_created(&[9; 60]);
        for i in 0..30u32 {
            let a = 2 + (i + shift) % 30;
            g.add_edge(NodeId(a), L, NodeId(32 + i));
        }
        g
    };
    let started = Instant::now();
    assert_eq!(key_of(&c, pairs(0)), key_of(&c, pairs(7)));
    assert!(started.elapsed() < Duration::from_secs(10));
    let mut other = pairs(0);
    other.add_edge(NodeId(33), L, NodeId(34));
    assert_ne!(key_of(&c, pairs(0)), key_of(&c, other));
}

/// A 4-cycle of equal created nodes, its nodes created in the order `ids` walks it.
fn cycle(ids: [u32; 4]) -> Graph {
    let mut g = with_created(&[9, 9, 9, 9]);
    for k in 0..4 {
        g.add_edge(NodeId(ids[k]), L, NodeId(ids[(k + 1) % 4]));
    }
    g
}

#[test]
fn a_halt_ends_the_search_with_an_exact_key() {
    let stopped = Canon {
        halt: Some(Halt::new(
            Limits {
                timeout: Some(Duration::ZERO),
                ..Limits::default()
            },
            Instant::now(),
            None,
            None,
        )),
        ..canon(2)
    };
    let (a, b) = (cycle([2, 3, 4, 5]), cycle([2, 4, 3, 5]));
    // Without the halt the two creation orders give one key; stopped, each its own (the
    // search did not run), while a graph still has one key.
    assert_eq!(key_of(&canon(2), a.clone()), key_of(&canon(2), b.clone()));
    assert_ne!(key_of(&stopped, a.clone()), key_of(&stopped, b));
    assert_eq!(key_of(&stopped, a.clone()), key_of(&stopped, a));
}

/// Start nodes of the random graphs.
const BASE: usize = 2;

/// A random small graph: node `(type, value)`s (start nodes first) and edges
/// `(source, label, target)` over all of them. Few types, values and labels, so that ties
/// and symmetries are common.
#[derive(Clone, Debug)]
struct Spec {
    nodes: Vec<(u32, i64)>,
    edges: Vec<(usize, u32, usize)>,
}

fn spec(max_created: usize) -> impl Strategy<Value = Spec> {
    (0..=max_created).prop_flat_map(|created| {
        let n = BASE + created;
        (
            prop::collection::vec((0..2u32, 0..2i64), n),
            prop::collection::vec((0..n, 0..2u32, 0..n), 0..=2 * n),
        )
            .prop_map(|(nodes, edges)| Spec { nodes, edges })
    })
}

/// The graph of `spec` with its created nodes renamed by `perm` (created node `i` gets id
/// `BASE + perm[i]`).
fn build(spec: &Spec, perm: &[usize]) -> Graph {
    let id = |i: usize| if i < BASE { i } else { BASE + perm[i - BASE] };
    let mut nodes = vec![(0, 0); spec.nodes.len()];
    for (i, &n) in spec.nodes.iter().enumerate() {
        nodes[id(i)] = n;
    }
    let mut g = Graph::new();
    for (ty, v) in nodes {
        g.add_node(NodeTypeId(ty), smallvec![Value::Int(v)]);
    }
    for &(s, l, t) in &spec.edges {
        g.add_edge(
            NodeId::from_index(id(s)),
            LabelId(l),
            NodeId::from_index(id(t)),
        );
    }
    g
}

/// Created nodes all equal, in directed cycles of the given lengths (label 0), with one
/// extra edge when given: regular graphs, where refinement alone splits nothing and the
/// first leaf of the search depends on the order of creation.
fn cycles(lengths: &[usize], extra: Option<(usize, usize)>) -> Spec {
    let total: usize = lengths.iter().sum();
    let mut nodes = vec![(0, 0); BASE + total];
    nodes[0] = (1, 1);
    let mut edges = Vec::new();
    let mut at = BASE;
    for &len in lengths {
        for k in 0..len {
            edges.push((at + k, 0, at + (k + 1) % len));
        }
        at += len;
    }
    if let Some((s, t)) = extra {
        edges.push((BASE + s % total, 1, BASE + t % total));
    }
    Spec { nodes, edges }
}

fn cycle_lengths() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1..=5usize, 1..=4)
        .prop_filter("at most 8 nodes", |l| l.iter().sum::<usize>() <= 8)
}

fn start_graph() -> Graph {
    let mut g = Graph::new();
    for _ in 0..BASE {
        g.add_node(NodeTypeId(0), smallvec![Value::Int(0)]);
    }
    g
}

fn key(g: &Graph) -> Vec<u8> {
    let mut k = Vec::new();
    canon(BASE).key(g, &start_graph(), &mut k);
    k
}

/// Whether some renaming of created nodes maps `a` onto `b`, trying every one.
fn isomorphic(a: &Graph, b: &Graph) -> bool {
    if a.capacity() != b.capacity() || a.edge_count() != b.edge_count() {
        return false;
    }
    let n = a.capacity() - BASE;
    if (0..BASE).any(|i| a.node(NodeId::from_index(i)) != b.node(NodeId::from_index(i))) {
        return false;
    }
    let mut perm: Vec<usize> = (0..n).collect();
    let maps = |perm: &[usize]| {
        let id = |m: NodeId| {
            let i = m.index();
            NodeId::from_index(if i < BASE { i } else { BASE + perm[i - BASE] })
        };
        (0..n).all(|i| {
            a.node(NodeId::from_index(BASE + i)) == b.node(id(NodeId::from_index(BASE + i)))
        }) && a.find_edges().all(|(s, l, t)| b.has_edge(id(s), l, id(t)))
    };
    // Heap's algorithm.
    let mut c = vec![0; n];
    if maps(&perm) {
        return true;
    }
    let mut i = 0;
    while i < n {
        if c[i] < i {
            perm.swap(if i % 2 == 0 { 0 } else { c[i] }, i);
            if maps(&perm) {
                return true;
            }
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    false
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn keys_do_not_depend_on_creation_order(
        (s, perm) in spec(9).prop_flat_map(|s| {
            let n = s.nodes.len() - BASE;
            (Just(s), Just((0..n).collect::<Vec<usize>>()).prop_shuffle())
        })
    ) {
        let identity: Vec<usize> = (0..perm.len()).collect();
        prop_assert_eq!(key(&build(&s, &identity)), key(&build(&s, &perm)));
    }

    #[test]
    fn equal_keys_exactly_when_isomorphic(
        (s, t, perm, flip) in spec(7).prop_flat_map(|s| {
            let n = s.nodes.len() - BASE;
            let total = s.nodes.len();
            (
                Just(s),
                prop::collection::vec((0..total, 0..2u32, 0..total), 0..=2 * total),
                Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
                prop::option::of((0..total, 0..2u32, 0..total)),
            )
        })
    ) {
        let identity: Vec<usize> = (0..perm.len()).collect();
        let a = build(&s, &identity);
        // A renamed copy with one edge toggled (often isomorphic again, by symmetry), and
        // the same nodes with other random edges.
        let mut b = build(&s, &perm);
        if let Some((x, l, y)) = flip {
            let (x, y) = (NodeId::from_index(x), NodeId::from_index(y));
            if !b.remove_edge(x, LabelId(l), y) {
                b.add_edge(x, LabelId(l), y);
            }
        }
        let c = build(&Spec { nodes: s.nodes.clone(), edges: t }, &perm);
        for other in [b, c] {
            prop_assert_eq!(key(&a) == key(&other), isomorphic(&a, &other));
        }
    }

    #[test]
    fn regular_graphs_get_keys_exactly_when_isomorphic(
        (a, b, extra, perm) in (cycle_lengths(), cycle_lengths()).prop_flat_map(|(a, b)| {
            let n: usize = a.iter().sum();
            (
                Just(a),
                Just(b),
                prop::option::of((0..8usize, 0..8usize)),
                Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
            )
        })
    ) {
        let first = cycles(&a, extra);
        let identity: Vec<usize> = (0..perm.len()).collect();
        let g = build(&first, &identity);
        prop_assert_eq!(key(&g), key(&build(&first, &perm)));
        let other = cycles(&b, extra);
        let h = build(&other, &(0..other.nodes.len() - BASE).collect::<Vec<usize>>());
        prop_assert_eq!(key(&g) == key(&h), isomorphic(&g, &h));
    }
}
