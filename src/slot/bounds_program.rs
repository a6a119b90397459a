//! A grounded term laid out for repeated evaluation over candidates: each node's bounds
//! are kept, so that after one whole evaluation a change of one slot (a candidate tried
//! while narrowing) recomputes only the nodes above that slot's occurrences.
//!
//! Narrowing tries the least and greatest candidates of every empty slot a term reads,
//! each try a question about the whole term; on a skyscraper's sight lines these tries
//! are most of the search. The nodes are the term's own, in an order where operands come
//! before the node that reads them, but for a comparison of two slots, a slot's integer,
//! and an `all` or `any` of comparisons whose matches all count, each one node with the
//! slots it reads ([`Term::fused`], [`Term::compares_folded`]); each computes its bounds exactly
//! as `Term::bounds` does (the reference the tests compare with).

use std::sync::Arc;

use super::ground::{Bounds, Fused, Step, Term};

/// A term's nodes, operands first, with what lies above each slot.
#[derive(Clone, Debug)]
pub struct BoundsProgram {
    steps: Vec<Step>,
    /// The slots the term reads, sorted, each once (the `k`-th has the `k`-th list of
    /// [`Links::above`]).
    slots: Vec<u32>,
    /// How the nodes hang together: the same in every renaming, so shared by them.
    links: Arc<Links>,
}

/// A program's nodes' operands, and per slot the nodes above it.
#[derive(Debug, Default)]
struct Links {
    /// Per node, where its operands' indices start in `operands` (one more entry at the
    /// end).
    operand_start: Vec<u32>,
    operands: Vec<u32>,
    /// Per slot (by its place among the slots read), where its list starts in `above`
    /// (one more entry at the end).
    above_start: Vec<u32>,
    /// Per slot, the nodes whose bounds may change with it, in evaluation order.
    above: Vec<u32>,
}

impl Links {
    /// The indices of node `i`'s operands.
    #[inline]
    fn operands_of(&self, i: usize) -> &[u32] {
        &self.operands[self.operand_start[i] as usize..self.operand_start[i + 1] as usize]
    }

    /// The nodes above the `k`-th slot read.
    fn above(&self, k: usize) -> &[u32] {
        &self.above[self.above_start[k] as usize..self.above_start[k + 1] as usize]
    }
}

impl BoundsProgram {
    pub fn new(term: &Term) -> BoundsProgram {
        let mut size = 0;
        count(term, &mut size);
        let mut steps = Vec::with_capacity(size);
        let mut links = Links {
            operand_start: Vec::with_capacity(size + 1),
            operands: Vec::with_capacity(size),
            ..Links::default()
        };
        links.operand_start.push(0);
        lay_out(term, &mut Vec::new(), (&mut steps, &mut links));
        // Per node, the node reading it (none for the root).
        let mut parent = vec![u32::MAX; steps.len()];
        for i in 0..steps.len() {
            for &k in links.operands_of(i) {
                parent[k as usize] = i as u32;
            }
        }
        // Per slot, the nodes above its occurrences: walked up from each, stopping where
        // an earlier walk for the same slot passed, then put in evaluation order.
        let mut leaves: Vec<(u32, u32)> = Vec::new();
        for (i, step) in steps.iter().enumerate() {
            match step {
                Step::Slot(s) | Step::SlotInt(s, _) => leaves.push((*s, i as u32)),
                Step::Compare(_, a, b) => leaves.extend([(*a, i as u32), (*b, i as u32)]),
                Step::AllCompare(_, compares) => leaves.extend(
                    compares
                        .iter()
                        .flat_map(|&(_, a, b)| [(a, i as u32), (b, i as u32)]),
                ),
                _ => {}
            }
        }
        leaves.sort_unstable();
        let mut marked = vec![u32::MAX; steps.len()];
        let mut slots = Vec::new();
        for same in leaves.chunk_by(|a, b| a.0 == b.0) {
            let s = same[0].0;
            let start = links.above.len();
            for &(_, leaf) in same {
                let mut at = leaf;
                while at != u32::MAX && marked[at as usize] != s {
                    marked[at as usize] = s;
                    links.above.push(at);
                    at = parent[at as usize];
                }
            }
            links.above[start..].sort_unstable();
            slots.push(s);
            links.above_start.push(start as u32);
        }
        links.above_start.push(links.above.len() as u32);
        BoundsProgram {
            steps,
            slots,
            links: Arc::new(links),
        }
    }

    /// The same program reading slot `rename(s)` where this one reads slot `s`; `rename`
    /// keeps the slots' order, so the per-slot lists stay sorted (and are shared).
    pub fn renamed(&self, rename: impl Fn(u32) -> u32) -> BoundsProgram {
        let steps = self
            .steps
            .iter()
            .map(|step| match step {
                Step::Slot(s) => Step::Slot(rename(*s)),
                Step::Compare(o, a, b) => Step::Compare(*o, rename(*a), rename(*b)),
                Step::SlotInt(s, ints) => Step::SlotInt(rename(*s), ints.clone()),
                Step::AllCompare(all, compares) => Step::AllCompare(
                    *all,
                    compares
                        .iter()
                        .map(|&(o, a, b)| (o, rename(a), rename(b)))
                        .collect(),
                ),
                step => step.clone(),
            })
            .collect();
        let slots: Vec<u32> = self.slots.iter().map(|&s| rename(s)).collect();
        debug_assert!(slots.is_sorted(), "a renaming that keeps the order");
        BoundsProgram {
            steps,
            slots,
            links: self.links.clone(),
        }
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
        let args = self.links.operands_of(i);
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
            for &i in self.links.above(k) {
                cache[i as usize] = self.step(i as usize, vals, range, cache);
            }
        }
        cache[self.steps.len() - 1]
    }
}

/// Lays out `term` after its operands into `steps` and `links`; its index. `stack` holds
/// the indices of the operands laid out so far, above what the callers hold.
fn lay_out(term: &Term, stack: &mut Vec<u32>, (steps, links): (&mut Vec<Step>, &mut Links)) -> u32 {
    let base = stack.len();
    let step = term
        .fused()
        .map(Fused::step)
        .or_else(|| {
            term.compares_folded()
                .map(|(all, c)| Step::AllCompare(all, c))
        })
        .unwrap_or_else(|| {
            term.for_each_operand(&mut |a| {
                let i = lay_out(a, stack, (&mut *steps, &mut *links));
                stack.push(i);
            });
            term.step()
        });
    let me = steps.len() as u32;
    steps.push(step);
    links.operands.extend(stack.drain(base..));
    links.operand_start.push(links.operands.len() as u32);
    me
}

/// Adds the number of `term`'s nodes to `size`.
fn count(term: &Term, size: &mut usize) {
    *size += 1;
    term.for_each_operand(&mut |a| count(a, size));
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
        let (mut again, mut fused) = (0, 0);
        for t in terms() {
            let program = BoundsProgram::new(&t);
            fused += program
                .steps
                .iter()
                .filter(|s| matches!(s, Step::AllCompare(..)))
                .count();
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
        // The sight line's `all`s (two with matches: one each for slots 1 and 2), and the
        // `any` and the `all` of every comparison, each one step.
        assert_eq!(fused, 4, "folds of comparisons laid out as one step");
    }

    /// A program renamed to other slots, in the same order, bounds over them as the
    /// original does over its own, whole and after one slot changed.
    #[test]
    fn renamed_programs_bound_as_the_original_does() {
        let per_slot = states();
        let k = per_slot.len();
        // Slot s becomes slot 2s + 1; the slots between hold what no program reads.
        let moved = |s: u32| 2 * s + 1;
        let mut checked = 0;
        for t in terms() {
            let program = BoundsProgram::new(&t);
            let renamed = program.renamed(moved);
            let (mut cache, mut moved_cache) = (Vec::new(), Vec::new());
            for code in 0..k.pow(3) {
                let pick = |s: usize| per_slot[code / k.pow(s as u32) % k];
                let mut vals: Vec<u8> = (0..3).map(|s| pick(s).0).collect();
                let mut cands: Vec<u8> = (0..3).map(|s| pick(s).1).collect();
                let spread = |vals: &[u8], cands: &[u8]| {
                    let mut wide = vec![(4u8, 0u8); 7];
                    for s in 0..3 {
                        wide[moved(s as u32) as usize] = (vals[s], cands[s]);
                    }
                    wide.into_iter().unzip::<u8, u8, Vec<u8>, Vec<u8>>()
                };
                let expected = program.bounds(&vals, &|s| span(cands[s as usize]), &mut cache);
                let (wide_vals, wide_cands) = spread(&vals, &cands);
                let got = renamed.bounds(
                    &wide_vals,
                    &|s| span(wide_cands[s as usize]),
                    &mut moved_cache,
                );
                assert_eq!(got, expected, "{t:?} at {vals:?} cands {cands:?}");
                let s = code % 3;
                (vals[s], cands[s]) = per_slot[(code / 3 + 7) % k];
                let expected =
                    program.again(s as u32, &vals, &|s| span(cands[s as usize]), &mut cache);
                let (wide_vals, wide_cands) = spread(&vals, &cands);
                let got = renamed.again(
                    moved(s as u32),
                    &wide_vals,
                    &|s| span(wide_cands[s as usize]),
                    &mut moved_cache,
                );
                assert_eq!(
                    got, expected,
                    "{t:?} at {vals:?} cands {cands:?}, slot {s} changed"
                );
                checked += 1;
            }
        }
        assert!(checked > 10_000);
    }
}
