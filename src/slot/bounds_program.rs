//! A grounded term laid out for repeated evaluation over candidates: each node's bounds
//! are kept, so that after one whole evaluation a change of one slot (a candidate tried
//! while narrowing) recomputes only the nodes above that slot's occurrences.
//!
//! Narrowing tries the least and greatest candidates of every empty slot a term reads,
//! each try a question about the whole term; on a skyscraper's sight lines that was
//! nearly all of the search's time. The nodes are the term's own, in an order where
//! operands come before the node that reads them, and each computes its bounds exactly as
//! [`Term::bounds`] does (the reference the tests compare with).

use super::ground::{Bounds, Step, Term};

/// A term's nodes, operands first, with what lies above each slot.
#[derive(Clone, Debug)]
pub struct BoundsProgram {
    steps: Vec<Step>,
    /// Per node, where its operands' indices start in `operands` (one more entry at the
    /// end).
    operand_start: Vec<u32>,
    operands: Vec<u32>,
    /// The slots the term reads, sorted, each once; per slot, where its list starts in
    /// `above` (one more entry at the end).
    slots: Vec<u32>,
    above_start: Vec<u32>,
    /// Per slot, the nodes whose bounds may change with it, in evaluation order.
    above: Vec<u32>,
}

impl BoundsProgram {
    pub fn new(term: &Term) -> BoundsProgram {
        let mut p = BoundsProgram {
            steps: Vec::new(),
            operand_start: vec![0],
            operands: Vec::new(),
            slots: Vec::new(),
            above_start: Vec::new(),
            above: Vec::new(),
        };
        // Per node, its parent (the root has none), to walk up from each slot.
        let mut parent: Vec<Option<u32>> = Vec::new();
        p.lay_out(term, &mut parent);
        let mut leaves: Vec<(u32, u32)> = p
            .steps
            .iter()
            .enumerate()
            .filter_map(|(i, step)| match step {
                Step::Slot(s) => Some((*s, i as u32)),
                _ => None,
            })
            .collect();
        leaves.sort_unstable();
        for same in leaves.chunk_by(|a, b| a.0 == b.0) {
            let mut nodes: Vec<u32> = Vec::new();
            for &(_, leaf) in same {
                let mut at = Some(leaf);
                while let Some(i) = at {
                    nodes.push(i);
                    at = parent[i as usize];
                }
            }
            nodes.sort_unstable();
            nodes.dedup();
            p.slots.push(same[0].0);
            p.above_start.push(p.above.len() as u32);
            p.above.extend(nodes);
        }
        p.above_start.push(p.above.len() as u32);
        p
    }

    /// Lays out `term` after its operands; its index.
    fn lay_out(&mut self, term: &Term, parent: &mut Vec<Option<u32>>) -> u32 {
        let (step, args) = term.parts();
        let indices: Vec<u32> = args.into_iter().map(|a| self.lay_out(a, parent)).collect();
        let me = self.steps.len() as u32;
        for &i in &indices {
            parent[i as usize] = Some(me);
        }
        self.steps.push(step);
        parent.push(None);
        self.operands.extend(indices);
        self.operand_start.push(self.operands.len() as u32);
        me
    }

    /// Node `i`'s bounds from its operands' in `cache`.
    #[inline]
    fn step(
        &self,
        i: usize,
        vals: &[u8],
        range: &impl Fn(u32) -> (u16, u16),
        cache: &[Bounds],
    ) -> Bounds {
        let args =
            &self.operands[self.operand_start[i] as usize..self.operand_start[i + 1] as usize];
        self.steps[i].bounds(args.len(), |k| cache[args[k] as usize], vals, range)
    }

    /// The term's bounds over the state `vals` and the candidates `range`, every node's
    /// kept in `cache` for [`Self::again`].
    pub fn bounds(
        &self,
        vals: &[u8],
        range: &impl Fn(u32) -> (u16, u16),
        cache: &mut Vec<Bounds>,
    ) -> Bounds {
        cache.clear();
        for i in 0..self.steps.len() {
            let b = self.step(i, vals, range, cache);
            cache.push(b);
        }
        cache[self.steps.len() - 1]
    }

    /// The term's bounds after slot `s` alone changed (its value in `vals` or its span in
    /// `range`) since `cache` was last brought up to date.
    pub fn again(
        &self,
        s: u32,
        vals: &[u8],
        range: &impl Fn(u32) -> (u16, u16),
        cache: &mut [Bounds],
    ) -> Bounds {
        if let Ok(k) = self.slots.binary_search(&s) {
            let nodes = &self.above[self.above_start[k] as usize..self.above_start[k + 1] as usize];
            for &i in nodes {
                cache[i as usize] = self.step(i as usize, vals, range, cache);
            }
        }
        cache[self.steps.len() - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::super::ground::tests::terms;
    use super::*;

    /// Per slot: filled with one of four values (no candidates), or empty with some.
    fn states() -> Vec<(u8, u8)> {
        (1..=4)
            .map(|v| (v, 0))
            .chain((1..16).map(|c| (0, c)))
            .collect()
    }

    fn span(cands: u8) -> (u16, u16) {
        (
            cands.trailing_zeros() as u16,
            7 - cands.leading_zeros() as u16,
        )
    }

    /// The program's bounds, evaluated whole and again after one slot changed, are the
    /// term's, on every partial assignment and candidate set of three slots.
    #[test]
    fn programs_bound_as_their_terms_do() {
        let per_slot = states();
        let k = per_slot.len();
        let mut again = 0;
        for t in terms() {
            let program = BoundsProgram::new(&t);
            let mut cache = Vec::new();
            for code in 0..k.pow(3) {
                let pick = |s: usize| per_slot[code / k.pow(s as u32) % k];
                let mut vals: Vec<u8> = (0..3).map(|s| pick(s).0).collect();
                let mut cands: Vec<u8> = (0..3).map(|s| pick(s).1).collect();
                let expected = t.bounds(&vals, &|s| span(cands[s as usize]));
                let got = program.bounds(&vals, &|s| span(cands[s as usize]), &mut cache);
                assert_eq!(got, expected, "{t:?} at {vals:?} cands {cands:?}");
                // One slot moved to another state: only what lies above it is redone.
                let s = code % 3;
                (vals[s], cands[s]) = per_slot[(code / 3 + 7) % k];
                let expected = t.bounds(&vals, &|s| span(cands[s as usize]));
                let got = program.again(s as u32, &vals, &|s| span(cands[s as usize]), &mut cache);
                assert_eq!(
                    got, expected,
                    "{t:?} at {vals:?} cands {cands:?}, slot {s} changed"
                );
                again += 1;
            }
        }
        assert!(again > 10_000);
    }
}
