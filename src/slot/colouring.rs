//! The colouring foci over a slot grammar: each state branches on the one slot a greedy
//! colouring heuristic picks (DSatur, fewest options, Welsh–Powell, SaturBFS, ...), its
//! values in the policy's order, and places nothing else — no forced moves, one slot per
//! step, as the seeds colour one vertex per step. `--order linear` then follows the first
//! successor only (the greedy run, which never backtracks); `dfs` and `bfs` search exactly.
//!
//! Exactness under `dfs`/`bfs` rests on the same grounds as the default focus (see
//! [`super::focus`]): every final state extending a state holds some candidate of any one
//! empty slot, so branching on all of one slot's candidates partitions the final states.
//! The engine only offers these foci where that holds.

use crate::explore::policy::{attempt_seed, mix, Focus, Policy, ValueOrder};
use crate::explore::{Expansion, Space, Successors};
use crate::grammar::Grammar;
use crate::model::Graph;

use super::colouring_state::Colouring;
use super::conflict::Conflict;
use super::forbid::ForbidScratch;
use super::mask::Mask;
use super::model::SlotModel;
use super::pick::{pick, Pick};
use super::solver::{Tables, Work, DYN};
use super::BaseGraph;
pub struct ColouringSpace<'a, M: Mask> {
    grammar: &'a Grammar,
    model: &'a SlotModel,
    tables: &'a Tables<M>,
    conflict: &'a Conflict,
    base: BaseGraph<'a>,
    focus: Focus,
    value: ValueOrder,
    start: Colouring<M>,
}

impl<'a, M: Mask> ColouringSpace<'a, M> {
    /// `start` holds the givens, placed and not propagated. The random stream is attempt
    /// 0's of `policy.seed`; [`Self::reseed`] starts another.
    pub fn new(
        grammar: &'a Grammar,
        model: &'a SlotModel,
        tables: &'a Tables<M>,
        conflict: &'a Conflict,
        base: BaseGraph<'a>,
        start: Work<M>,
        policy: &Policy,
    ) -> Self {
        let n = start.vals.len();
        let mut seen = vec![M::ZERO; n];
        let mut free = vec![0u32; n];
        for (s, (seen, free)) in seen.iter_mut().zip(&mut free).enumerate() {
            for &t in conflict.neighbours(s) {
                match start.vals[t as usize] {
                    0 => *free += 1,
                    v => *seen |= M::bit(u32::from(v) - 1),
                }
            }
        }
        ColouringSpace {
            grammar,
            model,
            tables,
            conflict,
            base,
            focus: policy.focus,
            value: policy.value,
            start: Colouring {
                work: start,
                seen,
                free,
                walk: Vec::new(),
                head: 0,
                rng: attempt_seed(policy.seed, 0),
            },
        }
    }

    /// Starts the next run's random stream: attempt `attempt` of `seed`.
    pub fn reseed(&mut self, seed: u64, attempt: u32) {
        self.start.rng = attempt_seed(seed, attempt);
    }

    /// The successor that places `y` in `s`, the focus chose by `p`.
    fn child(
        &self,
        state: &Colouring<M>,
        p: &Pick,
        y: u32,
        succ: &mut Successors<'_, Colouring<M>>,
    ) {
        let mut child = succ.copy_of(state);
        let s = p.slot as usize;
        let placed = self.tables.place::<DYN>(&mut child.work, s, y);
        debug_assert!(placed, "values come from the slot's candidates");
        for &t in self.conflict.neighbours(s) {
            child.seen[t as usize] |= M::bit(y);
            child.free[t as usize] -= 1;
        }
        if self.focus.walks() {
            child.walk.truncate(p.walk_len as usize);
            child.walk.push(p.slot);
            child.head = p.head;
        }
        child.rng = mix(state.rng ^ u64::from(y + 1));
        succ.push(child);
    }
}

impl<M: Mask> Space for ColouringSpace<'_, M> {
    type State = Colouring<M>;
    /// The focus slot's values, in the order tried, and the mirror `forbid` patterns are
    /// checked on.
    type Scratch = (Vec<u32>, ForbidScratch);

    fn initial(&self) -> Option<Colouring<M>> {
        let vals = &self.start.work.vals;
        let forbidden = self.model.forbids.as_ref().is_some_and(|f| {
            f.forbidden(
                self.grammar,
                self.model,
                &mut ForbidScratch::default(),
                vals,
            )
        });
        (!forbidden).then(|| self.start.clone())
    }

    fn expand(
        &self,
        state: &Colouring<M>,
        (values, mirror): &mut (Vec<u32>, ForbidScratch),
        succ: &mut Successors<'_, Colouring<M>>,
    ) -> Expansion {
        let t = self.tables;
        let Some((fewest, k)) = t.best_slot::<DYN>(&state.work) else {
            return Expansion { transitions: 0 };
        };
        // An empty slot without candidates stays without: no final state extends this
        // one, whichever slot the heuristic would colour next. Stopping here changes no
        // run's verdict, only how soon a stuck run ends.
        if k == 0 {
            return Expansion { transitions: 0 };
        }
        let p = pick(self.focus, t, self.conflict, state, fewest);
        let mut c = t.cand::<DYN>(&state.work, p.slot as usize);
        values.clear();
        while !c.is_zero() {
            let y = c.pop_first();
            // The boards hold the pairwise NACs; a group NAC and a `forbid` pattern are
            // checked here.
            let mut forbidden = |y| {
                self.model.forbids.as_ref().is_some_and(|f| {
                    let (g, m, vals) = (self.grammar, self.model, &state.work.vals);
                    f.forbidden_placing(g, m, mirror, vals, p.slot, y)
                })
            };
            if !t.group_blocked(&state.work, p.slot as usize, y) && !forbidden(y) {
                values.push(y);
            }
        }
        if self.value == ValueOrder::Random {
            // Fisher–Yates: the first value is uniform among the candidates.
            let mut r = state.rng;
            for i in (1..values.len()).rev() {
                r = mix(r);
                values.swap(i, (r % (i as u64 + 1)) as usize);
            }
        }
        for &y in values.iter() {
            self.child(state, &p, y, succ);
        }
        Expansion {
            transitions: values.len() as u64,
        }
    }

    fn is_final(&self, state: &Colouring<M>, _: &Expansion) -> bool {
        // The engine only offers colouring foci when finals need every slot filled.
        let w = &state.work;
        super::is_final_filled(self.grammar, self.model, self.base, &w.vals, w.left)
    }

    fn needs_visited(&self) -> bool {
        false
    }

    fn key(&self, _: &Colouring<M>, _: &mut Vec<u8>) {}

    fn to_graph(&self, state: &Colouring<M>) -> Graph {
        super::write_graph(self.model, self.base.get(), &state.work.vals)
    }
}
