//! Regular path expressions over edge labels, compiled to an NFA and matched by a
//! breadth-first search over (node, NFA state) pairs.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::model::{Graph, LabelId, NodeId};
use crate::rule::PathExpr;

/// Numbers compiled paths, so that a graph index can cache what each one reaches.
static NEXT_ID: AtomicU32 = AtomicU32::new(0);

/// One NFA move: follow an edge with `label`, forwards (`out`) or backwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step {
    label: LabelId,
    forward: bool,
    to: u32,
}

/// A Thompson NFA: state 0 is the start, `accept` the only accepting state.
#[derive(Clone, Debug, Default)]
pub struct PathNfa {
    /// Unique among the paths compiled in this process.
    id: u32,
    steps: Vec<Vec<Step>>,
    eps: Vec<Vec<u32>>,
    accept: u32,
}

impl PathNfa {
    pub fn compile(path: &PathExpr) -> PathNfa {
        let mut nfa = PathNfa {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            ..PathNfa::default()
        };
        let start = nfa.state();
        let accept = nfa.state();
        nfa.build(path, start, accept, true);
        nfa.accept = accept;
        nfa
    }

    pub fn id(&self) -> u32 {
        self.id
    }

    fn state(&mut self) -> u32 {
        self.steps.push(Vec::new());
        self.eps.push(Vec::new());
        (self.steps.len() - 1) as u32
    }

    /// Adds transitions from `from` to `to` that read `path`; `forward` is false inside
    /// an odd number of inversions.
    fn build(&mut self, path: &PathExpr, from: u32, to: u32, forward: bool) {
        match path {
            PathExpr::Label(l) => self.steps[from as usize].push(Step {
                label: *l,
                forward,
                to,
            }),
            PathExpr::Inverse(p) => self.build_inverse(p, from, to, forward),
            PathExpr::Seq(parts) => {
                let mut cur = from;
                for (i, p) in parts.iter().enumerate() {
                    let next = if i + 1 == parts.len() {
                        to
                    } else {
                        self.state()
                    };
                    self.build(p, cur, next, forward);
                    cur = next;
                }
                if parts.is_empty() {
                    self.eps[from as usize].push(to);
                }
            }
            PathExpr::Alt(parts) => {
                for p in parts {
                    self.build(p, from, to, forward);
                }
            }
            PathExpr::Star(p) => {
                let mid = self.state();
                self.eps[from as usize].push(mid);
                self.eps[mid as usize].push(to);
                self.build(p, mid, mid, forward);
            }
            PathExpr::Plus(p) => {
                let mid = self.state();
                self.build(p, from, mid, forward);
                self.build(p, mid, mid, forward);
                self.eps[mid as usize].push(to);
            }
            PathExpr::Opt(p) => {
                self.eps[from as usize].push(to);
                self.build(p, from, to, forward);
            }
        }
    }

    /// The inverse of `p` reads `p`'s sequence backwards with every edge flipped.
    fn build_inverse(&mut self, p: &PathExpr, from: u32, to: u32, forward: bool) {
        match p {
            PathExpr::Seq(parts) => {
                let reversed: Vec<PathExpr> = parts
                    .iter()
                    .rev()
                    .map(|q| PathExpr::Inverse(Box::new(q.clone())))
                    .collect();
                self.build(&PathExpr::Seq(reversed), from, to, forward);
            }
            PathExpr::Inverse(q) => self.build(q, from, to, forward),
            PathExpr::Label(_) => self.build(p, from, to, !forward),
            PathExpr::Alt(parts) => {
                for q in parts {
                    self.build_inverse(q, from, to, forward);
                }
            }
            PathExpr::Star(q) => self.build(
                &PathExpr::Star(Box::new(PathExpr::Inverse(q.clone()))),
                from,
                to,
                forward,
            ),
            PathExpr::Plus(q) => self.build(
                &PathExpr::Plus(Box::new(PathExpr::Inverse(q.clone()))),
                from,
                to,
                forward,
            ),
            PathExpr::Opt(q) => self.build(
                &PathExpr::Opt(Box::new(PathExpr::Inverse(q.clone()))),
                from,
                to,
                forward,
            ),
        }
    }

    /// Every node reachable from `start` along a path the expression accepts, sorted.
    pub fn find_reachable(&self, g: &Graph, start: NodeId) -> Vec<NodeId> {
        let states = self.steps.len();
        let mut seen = vec![false; g.capacity() * states];
        let mut queue = vec![(start, 0u32)];
        let mut out = Vec::new();
        let mark = |seen: &mut Vec<bool>, n: NodeId, s: u32| {
            let i = n.index() * states + s as usize;
            !std::mem::replace(&mut seen[i], true)
        };
        mark(&mut seen, start, 0);
        while let Some((n, s)) = queue.pop() {
            if s == self.accept {
                out.push(n);
            }
            for &e in &self.eps[s as usize] {
                if mark(&mut seen, n, e) {
                    queue.push((n, e));
                }
            }
            for step in &self.steps[s as usize] {
                let adjacent = if step.forward { g.out(n) } else { g.inc(n) };
                let lo = adjacent.partition_point(|&(l, _)| l < step.label);
                for &(l, m) in &adjacent[lo..] {
                    if l != step.label {
                        break;
                    }
                    if g.is_alive(m) && mark(&mut seen, m, step.to) {
                        queue.push((m, step.to));
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// True when some accepted path leads from `a` to `b`.
    pub fn connects(&self, g: &Graph, a: NodeId, b: NodeId) -> bool {
        self.find_reachable(g, a).binary_search(&b).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NodeTypeId, Value};
    use smallvec::smallvec;

    fn chain(n: usize) -> (Graph, Vec<NodeId>) {
        let mut g = Graph::new();
        let ids: Vec<_> = (0..n)
            .map(|_| g.add_node(NodeTypeId(0), smallvec![Value::None]))
            .collect();
        for w in ids.windows(2) {
            g.add_edge(w[0], LabelId(0), w[1]);
        }
        (g, ids)
    }

    #[test]
    fn star_reaches_the_whole_chain_forwards_and_inverse_backwards() {
        let (g, ids) = chain(4);
        let l = PathExpr::Label(LabelId(0));
        let star = PathNfa::compile(&PathExpr::Star(Box::new(l.clone())));
        assert_eq!(star.find_reachable(&g, ids[1]), ids[1..].to_vec());
        let back = PathNfa::compile(&PathExpr::Plus(Box::new(PathExpr::Inverse(Box::new(
            l.clone(),
        )))));
        assert_eq!(back.find_reachable(&g, ids[2]), ids[..2].to_vec());
        let both = PathNfa::compile(&PathExpr::Star(Box::new(PathExpr::Alt(vec![
            l.clone(),
            PathExpr::Inverse(Box::new(l)),
        ]))));
        assert_eq!(both.find_reachable(&g, ids[2]), ids);
    }

    #[test]
    fn sequences_count_edges() {
        let (g, ids) = chain(4);
        let l = PathExpr::Label(LabelId(0));
        let two = PathNfa::compile(&PathExpr::Seq(vec![l.clone(), l.clone()]));
        assert_eq!(two.find_reachable(&g, ids[0]), vec![ids[2]]);
        let inv_two = PathNfa::compile(&PathExpr::Inverse(Box::new(PathExpr::Seq(vec![
            l.clone(),
            l,
        ]))));
        assert_eq!(inv_two.find_reachable(&g, ids[3]), vec![ids[1]]);
    }
}
