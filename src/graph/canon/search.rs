//! The individualisation–refinement search for a canonical labelling, with automorphism
//! pruning, after nauty, bliss and Traces.
//!
//! Every node of the search tree is an equitable ordered partition; its children
//! individualise each vertex of its first non-singleton cell in turn and refine again;
//! leaves are discrete partitions, that is orders of the vertices. The tree depends only
//! on the graph up to isomorphism, so the least key over its leaves is a certificate.
//! Two leaves with equal keys give an automorphism; automorphisms that fix the current
//! path prune the children in one orbit but the first, and a leaf equal to an earlier one
//! abandons the rest of its subtree (it is the image of a subtree already searched).

use crate::explore::halt::Halt;

use super::partition::{first_open_cell, individualise, refine, Coloured};

/// A leaf: the vertices in order, the path of individualised vertices, the key.
struct Leaf {
    order: Vec<u32>,
    path: Vec<u32>,
    key: Vec<u8>,
}

/// How the search goes on after a subtree.
enum Flow {
    Continue,
    /// Back to the tree node at this depth: the subtree below it is searched.
    Jump(usize),
    /// The run must stop.
    Stop,
}

struct Search<'a, F> {
    graph: &'a Coloured,
    encode: F,
    halt: Option<Halt<'static>>,
    nodes: u64,
    first: Option<Leaf>,
    best: Option<Leaf>,
    /// Automorphisms found, each as the image of every vertex.
    automorphisms: Vec<Vec<u32>>,
    path: Vec<u32>,
}

/// The least key over the leaves of the search tree of `graph`, where `encode(order, out)`
/// writes the key of one order of its vertices: the key of the canonical order. `None`
/// when `halt` says the run must stop first.
pub fn canonical_key<F>(graph: &Coloured, halt: Option<Halt<'static>>, encode: F) -> Option<Vec<u8>>
where
    F: FnMut(&[u32], &mut Vec<u8>),
{
    let mut colours = graph.colours.clone();
    refine(&mut colours, &graph.links);
    let mut search = Search {
        graph,
        encode,
        halt,
        nodes: 0,
        first: None,
        best: None,
        automorphisms: Vec::new(),
        path: Vec::new(),
    };
    match search.visit(colours) {
        Flow::Stop => None,
        _ => search.best.map(|b| b.key),
    }
}

impl<F> Search<'_, F>
where
    F: FnMut(&[u32], &mut Vec<u8>),
{
    fn visit(&mut self, colours: Vec<u32>) -> Flow {
        let cell = first_open_cell(&colours);
        if cell.is_empty() {
            return self.leaf(&colours);
        }
        self.nodes += 1;
        if let Some(halt) = self.halt.as_mut() {
            if halt.tick().is_some() {
                return Flow::Stop;
            }
        }
        let depth = self.path.len();
        let mut tried: Vec<usize> = Vec::new();
        let mut orbits = Orbits::default();
        for v in cell {
            if !tried.is_empty() {
                orbits.update(&self.automorphisms, &self.path, self.graph.len());
                if tried.iter().any(|&u| orbits.same(u, v)) {
                    continue;
                }
            }
            tried.push(v);
            let mut child = individualise(&colours, v);
            refine(&mut child, &self.graph.links);
            self.path.push(v as u32);
            let flow = self.visit(child);
            self.path.pop();
            match flow {
                Flow::Continue => {}
                Flow::Jump(to) if to == depth => {}
                other => return other,
            }
        }
        Flow::Continue
    }

    fn leaf(&mut self, colours: &[u32]) -> Flow {
        let mut order = vec![0u32; colours.len()];
        for (v, &c) in colours.iter().enumerate() {
            order[c as usize] = v as u32;
        }
        let mut key = Vec::new();
        (self.encode)(&order, &mut key);
        let leaf = Leaf {
            order,
            path: self.path.clone(),
            key,
        };
        let Some(first) = &self.first else {
            self.best = Some(Leaf {
                order: leaf.order.clone(),
                path: leaf.path.clone(),
                key: leaf.key.clone(),
            });
            self.first = Some(leaf);
            return Flow::Continue;
        };
        let best = self.best.as_ref().expect("set with the first leaf");
        let equal = if leaf.key == first.key {
            Some(first)
        } else if leaf.key == best.key {
            Some(best)
        } else {
            None
        };
        if let Some(earlier) = equal {
            // The automorphism maps the earlier leaf onto this one; it fixes their common
            // path and maps the earlier branch below it onto this one, which holds nothing new.
            let mut image = vec![0u32; leaf.order.len()];
            for (&a, &b) in earlier.order.iter().zip(&leaf.order) {
                image[a as usize] = b;
            }
            let common = earlier
                .path
                .iter()
                .zip(&leaf.path)
                .take_while(|(a, b)| a == b)
                .count();
            self.automorphisms.push(image);
            return Flow::Jump(common);
        }
        if leaf.key < best.key {
            self.best = Some(leaf);
        }
        Flow::Continue
    }
}

/// The orbits of the automorphisms that fix a path, as a union–find over vertices,
/// rebuilt when automorphisms were added.
#[derive(Default)]
struct Orbits {
    parent: Vec<u32>,
    /// Automorphisms taken into account.
    seen: usize,
}

impl Orbits {
    fn update(&mut self, automorphisms: &[Vec<u32>], path: &[u32], n: usize) {
        if self.parent.len() != n {
            self.parent = (0..n as u32).collect();
        }
        for a in &automorphisms[self.seen..] {
            if path.iter().all(|&p| a[p as usize] == p) {
                for (v, &w) in a.iter().enumerate() {
                    let (x, y) = (self.find(v as u32), self.find(w));
                    if x != y {
                        self.parent[x.max(y) as usize] = x.min(y);
                    }
                }
            }
        }
        self.seen = automorphisms.len();
    }

    fn find(&mut self, mut v: u32) -> u32 {
        while self.parent[v as usize] != v {
            let up = self.parent[self.parent[v as usize] as usize];
            self.parent[v as usize] = up;
            v = up;
        }
        v
    }

    fn same(&mut self, a: usize, b: usize) -> bool {
        self.find(a as u32) == self.find(b as u32)
    }
}
