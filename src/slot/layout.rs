//! Values laid out over a few slots at once: the values each empty slot takes in some
//! assignment of all of them that blocks no related pair (hubs that relate the slots, read
//! from the solver's tables) and that a test of the whole assignment admits. Groups use it
//! with their contents, grounded conditions with their exact value: what one slot at a time
//! cannot see (a height placed by its line's count of empty plots, a thermometer filled by
//! its row's count, a building seen or hidden by the ones before it).

use smallvec::SmallVec;

use crate::model::grouped;

use super::mask::Mask;
use super::model::SlotModel;

/// The most values tried in one search: past it the candidates stay as they are.
pub const MAX_STEPS: usize = 1 << 14;

/// What one search writes and the relations it checks, owned by its caller: the search
/// indexes plain slices of them at every value it tries (as small vectors of their own,
/// they were a good part of laying out a thermometer puzzle's rows).
struct Buffers<M: Mask> {
    held: SmallVec<[Option<u8>; 16]>,
    seen: SmallVec<[M; 16]>,
    /// Per empty position (by its place in the order they are placed), the relations to
    /// check as it is placed where the other position's value blocks this one's: their
    /// rows give the values blocked at once.
    from_other: Checks,
    /// The same where this one's value blocks the other's: checked value by value.
    to_other: Checks,
}

/// Relations by position, flat: the `k`-th position's are `list[start[k]..start[k + 1]]`
/// (`start` has a place more than there are positions). Built here rather than by
/// [`grouped()`], whose lists are vectors on the heap and which would walk the pairs
/// twice for each of the two lists (1.4 % more instructions on a skyscraper sudoku).
struct Checks {
    start: SmallVec<[u32; 17]>,
    list: Relations,
}

impl Checks {
    /// The lists as a search reads them.
    fn flat(&self) -> Flat<'_> {
        Flat {
            start: &self.start,
            list: &self.list,
        }
    }
}

/// [`Checks`] borrowed: plain slices, read at every value a search tries.
#[derive(Clone, Copy)]
struct Flat<'a> {
    start: &'a [u32],
    list: &'a [(u16, u32)],
}

impl<'a> Flat<'a> {
    /// The relations of the `k`-th position.
    fn at(self, k: usize) -> &'a [(u16, u32)] {
        &self.list[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

/// Relations, each as (other position, table).
type Relations = SmallVec<[(u16, u32); 16]>;

impl<M: Mask> Buffers<M> {
    /// The buffers of a search placing the positions of `order`, the empty ones of
    /// `held`, with `pairs` checked as the later of each two is placed (two filled
    /// positions were checked when they were filled).
    fn new(pairs: &Pairs, held: &[Option<u8>], order: &[usize]) -> Buffers<M> {
        // Where each position is placed: filled ones before every empty one.
        let mut rank: SmallVec<[u32; 16]> = SmallVec::from_elem(0, held.len());
        for (k, &p) in order.iter().enumerate() {
            rank[p] = k as u32 + 1;
        }
        // One pass over the pairs to count each position's, one to list them (a sight
        // line's pairs are many).
        let n = order.len();
        let mut from_start: SmallVec<[u32; 17]> = SmallVec::from_elem(0, n + 1);
        let mut to_start = from_start.clone();
        for &(i, j, _) in pairs {
            let (ri, rj) = (rank[usize::from(i)], rank[usize::from(j)]);
            if ri > rj {
                to_start[ri as usize] += 1;
            } else if rj > ri {
                from_start[rj as usize] += 1;
            }
        }
        for k in 0..n {
            from_start[k + 1] += from_start[k];
            to_start[k + 1] += to_start[k];
        }
        let mut from: Relations = SmallVec::from_elem((0, 0), from_start[n] as usize);
        let mut to: Relations = SmallVec::from_elem((0, 0), to_start[n] as usize);
        // Each at its position's next free place: the starts move on as they fill, and
        // are put back after.
        for &(i, j, t) in pairs {
            let (ri, rj) = (rank[usize::from(i)], rank[usize::from(j)]);
            if ri > rj {
                let at = &mut to_start[ri as usize - 1];
                to[*at as usize] = (j, t);
                *at += 1;
            } else if rj > ri {
                let at = &mut from_start[rj as usize - 1];
                from[*at as usize] = (i, t);
                *at += 1;
            }
        }
        for start in [&mut from_start, &mut to_start] {
            start.copy_within(0..n, 1);
            start[0] = 0;
        }
        Buffers {
            held: held.iter().copied().collect(),
            seen: SmallVec::from_elem(M::ZERO, n),
            from_other: Checks {
                start: from_start,
                list: from,
            },
            to_other: Checks {
                start: to_start,
                list: to,
            },
        }
    }
}

/// Related pairs of positions, each as (position, position, table): while the first holds
/// `x` the second cannot take what row `x` of the table blocks.
pub type Pairs = [(u16, u16, u32)];

/// Per slot, the hubs it writes whose tables a filter keeps: where [`Self::among`] finds
/// the related pairs of a few slots. Flat: where each slot's hubs start, then the hubs.
pub struct Writes {
    start: Vec<u32>,
    hubs: Vec<u32>,
    /// What [`Self::among`] keeps from call to call.
    scratch: AmongScratch,
}

/// Per slot, its position among the slots at hand plus one (0: not among them); per hub,
/// the positions among them it reads, and the call that found them.
#[derive(Default)]
struct AmongScratch {
    position: Vec<u16>,
    reads: Vec<u64>,
    found: Vec<u32>,
    call: u32,
}

impl Writes {
    /// The hubs of `model` whose table `keep` accepts, listed under each writer.
    pub fn new(model: &SlotModel, keep: impl Fn(u32) -> bool) -> Writes {
        let kept: Vec<bool> = model.hubs.iter().map(|hub| keep(hub.table)).collect();
        let (start, hubs) = grouped(model.slots.len(), || {
            (model.hubs.iter().enumerate())
                .filter(|&(h, _)| kept[h])
                .flat_map(|(h, hub)| hub.writers.iter().map(move |&w| (w, h as u32)))
        });
        Writes {
            start,
            hubs,
            scratch: AmongScratch::default(),
        }
    }

    /// The hubs slot `s` writes.
    fn of(&self, s: u32) -> &[u32] {
        of(&self.start, &self.hubs, s)
    }

    /// The related pairs of `slots` (sorted, distinct), by position in it, into `pairs`
    /// (cleared first): one buffer serves every instance or group, and a list of the
    /// exact size is taken from it.
    pub fn among(&mut self, model: &SlotModel, slots: &[u32], pairs: &mut Vec<(u16, u16, u32)>) {
        pairs.clear();
        if slots.len() <= 64 {
            self.among_few(model, slots, pairs);
        } else {
            self.among_many(model, slots, pairs);
        }
    }

    /// [`Self::among`] for any number of slots: every pair each hub relates, sorted.
    fn among_many(&self, model: &SlotModel, slots: &[u32], pairs: &mut Vec<(u16, u16, u32)>) {
        for (i, &a) in slots.iter().enumerate() {
            for &h in self.of(a) {
                let hub = &model.hubs[h as usize];
                for &b in &hub.readers {
                    match slots.binary_search(&b) {
                        Ok(j) if j != i => pairs.push((i as u16, j as u16, hub.table)),
                        _ => {}
                    }
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
    }

    /// [`Self::among`] for at most 64 slots: per slot, the others each table relates it
    /// to as a mask, then listed in order. A hub's readers among the slots are found once
    /// a call, by each slot's position kept in a list over all slots (a hub relates a slot
    /// to most of the others, and several hubs the same pair: listing every pair found,
    /// each by a binary search, then sorting them, was most of laying out the sight lines
    /// of a skyscraper Sudoku).
    fn among_few(&mut self, model: &SlotModel, slots: &[u32], pairs: &mut Vec<(u16, u16, u32)>) {
        let sc = &mut self.scratch;
        if sc.position.len() < model.slots.len() || sc.reads.len() < model.hubs.len() {
            sc.position.resize(model.slots.len(), 0);
            sc.reads.resize(model.hubs.len(), 0);
            sc.found.resize(model.hubs.len(), 0);
        }
        sc.call = sc.call.wrapping_add(1);
        if sc.call == 0 {
            sc.found.fill(0);
            sc.call = 1;
        }
        for (i, &s) in slots.iter().enumerate() {
            sc.position[s as usize] = i as u16 + 1;
        }
        // Per table, the positions related to the slot at hand.
        let mut related: SmallVec<[(u32, u64); 4]> = SmallVec::new();
        for (i, &a) in slots.iter().enumerate() {
            related.clear();
            for &h in of(&self.start, &self.hubs, a) {
                let hub = &model.hubs[h as usize];
                let h = h as usize;
                if sc.found[h] != sc.call {
                    sc.found[h] = sc.call;
                    sc.reads[h] = (hub.readers.iter())
                        .map(|&b| sc.position[b as usize])
                        .filter(|&p| p != 0)
                        .fold(0u64, |m, p| m | 1 << (p - 1));
                }
                let mask = sc.reads[h] & !(1 << i);
                if mask == 0 {
                    continue;
                }
                match related.iter_mut().find(|(t, _)| *t == hub.table) {
                    Some((_, m)) => *m |= mask,
                    None => related.push((hub.table, mask)),
                }
            }
            related.sort_unstable();
            let mut any = related.iter().fold(0u64, |u, &(_, m)| u | m);
            while any != 0 {
                let j = any.trailing_zeros();
                any &= any - 1;
                for &(t, m) in &related {
                    if m >> j & 1 != 0 {
                        pairs.push((i as u16, j as u16, t));
                    }
                }
            }
        }
        for &s in slots {
            sc.position[s as usize] = 0;
        }
    }
}

/// The hubs slot `s` writes, of [`Writes`]' flat lists (apart, for [`Writes::among_few`]
/// to read them while it writes its scratch).
fn of<'a>(start: &[u32], hubs: &'a [u32], s: u32) -> &'a [u32] {
    &hubs[start[s as usize] as usize..start[s as usize + 1] as usize]
}

/// The assignments of candidates `cands` (the product of their counts), saturating.
pub fn assignments<N: Mask>(cands: &[N]) -> u64 {
    cands
        .iter()
        .try_fold(1u64, |n, c| n.checked_mul(u64::from(c.count())))
        .unwrap_or(u64::MAX)
}

/// What a complete assignment must also satisfy, and what prunes before it is complete.
pub trait Admit {
    /// Whether position `at` may take `x` beside those placed (`held`); false prunes.
    fn may_add(&mut self, _held: &[Option<u8>], _at: usize, _x: u8) -> bool {
        true
    }

    /// `x` placed (`true`) or taken back (`false`).
    fn placed(&mut self, _x: u8, _on: bool) {}

    /// Whether a complete assignment (every position `Some`) is admitted.
    fn admits(&mut self, held: &[Option<u8>]) -> bool;
}

/// One search: the positions' values as far as placed, and what each empty one was seen
/// to take.
struct Search<'a, M: Mask, A: Admit> {
    table: &'a [M],
    d: usize,
    held: &'a mut [Option<u8>],
    /// The empty positions, in the order they are placed.
    order: &'a [usize],
    /// [`Buffers`]' relations, per empty position by its place in `order`.
    from_other: Flat<'a>,
    to_other: Flat<'a>,
    /// Per empty position, its candidates and the values it was seen to take, in the
    /// solver's masks (a search's every step reads them: a narrow domain's are a word).
    cands: &'a [M],
    seen: &'a mut [M],
    steps: usize,
    max_steps: usize,
    /// Whether every assignment is wanted (see [`each_assignment`]), not only the values:
    /// then `admit` says whether to go on.
    every: bool,
    admit: &'a mut A,
}

impl<M: Mask, A: Admit> Search<'_, M, A> {
    /// The values the positions placed block in the `k`-th empty position through the
    /// relations read from them: each such relation's row gives them at once.
    fn blocked(&self, k: usize) -> M {
        self.from_other
            .at(k)
            .iter()
            .fold(M::ZERO, |m, &(other, t)| {
                let y = self.held[usize::from(other)].expect("placed before");
                m | self.table[t as usize * self.d + usize::from(y)]
            })
    }

    /// Whether `x` in an empty position blocks no value of those placed, through the
    /// relations read from it (`to_other`, its list: looked up once per position, not
    /// once per value tried).
    fn respects(&self, to_other: &[(u16, u32)], x: u8) -> bool {
        to_other.iter().all(|&(other, t)| {
            let y = self.held[usize::from(other)].expect("placed before");
            self.table[t as usize * self.d + usize::from(x)] & M::bit(u32::from(y)) == M::ZERO
        })
    }

    /// Places the empty positions from the `k`-th on; false once every candidate is seen
    /// or the steps run out (nothing more to learn).
    fn place(&mut self, k: usize) -> bool {
        if k == self.order.len() {
            if self.every {
                // Every assignment is offered; a refusal ends the search.
                return self.admit.admits(self.held);
            }
            // An assignment whose every value was seen already can teach nothing: its
            // test, the costly part of a leaf, is spared.
            let fresh =
                self.seen.iter().zip(self.order).any(|(&s, &at)| {
                    s & M::bit(u32::from(self.held[at].expect("placed"))) == M::ZERO
                });
            if fresh && self.admit.admits(self.held) {
                for (s, &at) in self.seen.iter_mut().zip(self.order) {
                    *s |= M::bit(u32::from(self.held[at].expect("placed")));
                }
            }
            return self.seen.iter().zip(self.cands).any(|(s, c)| s != c);
        }
        let at = self.order[k];
        let blocked = self.blocked(k);
        let to_other = self.to_other.at(k);
        let mut left = self.cands[k];
        while !left.is_zero() {
            let x = left.pop_first() as u8;
            self.steps += 1;
            if self.steps > self.max_steps {
                return false;
            }
            if blocked & M::bit(u32::from(x)) != M::ZERO
                || !self.respects(to_other, x)
                || !self.admit.may_add(self.held, at, x)
            {
                continue;
            }
            self.held[at] = Some(x);
            self.admit.placed(x, true);
            let more = self.place(k + 1);
            self.admit.placed(x, false);
            self.held[at] = None;
            if !more {
                return false;
            }
        }
        true
    }
}

/// Narrows `keep` (per empty position of `held`, in order, its candidates) to the values
/// some assignment of every empty position takes: within the candidates, blocking no pair
/// of `pairs` that has an empty end (`table` as the solver's, `d` rows a table), admitted
/// by `admit`. Left as it is when the search runs out of [`MAX_STEPS`]; the result says
/// whether it was narrowed exactly. Candidates are in the solver's masks, as the search
/// reads them at every value it tries.
pub fn supported<M: Mask, A: Admit>(
    table: &[M],
    d: usize,
    pairs: &Pairs,
    held: &[Option<u8>],
    keep: &mut [M],
    admit: &mut A,
) -> bool {
    let order: SmallVec<[usize; 16]> = (0..held.len()).filter(|&p| held[p].is_none()).collect();
    debug_assert_eq!(order.len(), keep.len());
    let cands: SmallVec<[M; 16]> = keep.iter().copied().collect();
    let mut buffers = Buffers::new(pairs, held, &order);
    let finished = Search::new((table, d), &mut buffers, &order, &cands, admit).place(0);
    let all_seen = buffers.seen.iter().zip(&cands).all(|(s, c)| s == c);
    if finished || all_seen {
        keep.copy_from_slice(&buffers.seen);
    }
    finished || all_seen
}

/// Offers `admit` every assignment of `cands.len()` positions within `cands` (per
/// position, its candidates) that blocks no pair of `pairs`, as [`supported`] meets them,
/// until it refuses one; false when it did, or when the offers took over `max_steps`
/// values tried (some were not offered). Candidates as for [`supported`].
pub fn each_assignment<M: Mask, A: Admit>(
    (table, d, pairs): (&[M], usize, &Pairs),
    cands: &[M],
    max_steps: usize,
    admit: &mut A,
) -> bool {
    let held: SmallVec<[Option<u8>; 16]> = SmallVec::from_elem(None, cands.len());
    let order: SmallVec<[usize; 16]> = (0..cands.len()).collect();
    let mut buffers = Buffers::new(pairs, &held, &order);
    let mut search = Search::new((table, d), &mut buffers, &order, cands, admit);
    search.max_steps = max_steps;
    search.every = true;
    search.place(0)
}

impl<'a, M: Mask, A: Admit> Search<'a, M, A> {
    /// A search placing the positions of `order`, the empty ones of `buffers`' held,
    /// within `cands` (one each, in that order).
    fn new(
        (table, d): (&'a [M], usize),
        buffers: &'a mut Buffers<M>,
        order: &'a [usize],
        cands: &'a [M],
        admit: &'a mut A,
    ) -> Self {
        let Buffers {
            held,
            seen,
            from_other,
            to_other,
        } = buffers;
        Search {
            table,
            d,
            held,
            order,
            from_other: from_other.flat(),
            to_other: to_other.flat(),
            cands,
            seen,
            steps: 0,
            max_steps: MAX_STEPS,
            every: false,
            admit,
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A random case over three values: `n` positions, two tables, pairs over them, some
    /// positions filled, candidates for the others.
    pub(in crate::slot) struct Case {
        pub d: usize,
        pub table: Vec<u16>,
        pub pairs: Vec<(u16, u16, u32)>,
        pub held: Vec<Option<u8>>,
        pub empty: Vec<usize>,
        pub cands: Vec<u128>,
    }

    impl Case {
        /// `None` when every position came out filled.
        pub(in crate::slot) fn random(
            n: usize,
            below: &mut impl FnMut(u64) -> u64,
        ) -> Option<Case> {
            let d = 3usize;
            let table: Vec<u16> = (0..2 * d).map(|_| below(8) as u16).collect();
            let mut pairs = Vec::new();
            for i in 0..n as u16 {
                for j in 0..n as u16 {
                    if i != j && below(3) == 0 {
                        pairs.push((i, j, below(2) as u32));
                    }
                }
            }
            let held: Vec<Option<u8>> = (0..n)
                .map(|_| (below(3) == 0).then(|| below(d as u64) as u8))
                .collect();
            let empty: Vec<usize> = (0..n).filter(|&p| held[p].is_none()).collect();
            let cands: Vec<u128> = empty.iter().map(|_| 1 + below(7) as u128).collect();
            (!empty.is_empty()).then_some(Case {
                d,
                table,
                pairs,
                held,
                empty,
                cands,
            })
        }

        /// `cands` in the tables' masks, as a search takes them.
        pub(in crate::slot) fn narrow(cands: &[u128]) -> Vec<u16> {
            cands.iter().map(|&c| u16::from_u128(c)).collect()
        }

        /// Per empty position, the values it takes in some assignment within the
        /// candidates that blocks no pair with an empty end and that `admits`: every
        /// assignment tried.
        pub(in crate::slot) fn kept(
            &self,
            mut admits: impl FnMut(&[Option<u8>]) -> bool,
        ) -> Vec<u128> {
            let (d, held) = (self.d, &self.held);
            let mut want = vec![0u128; self.empty.len()];
            for code in 0..d.pow(self.empty.len() as u32) {
                let mut vals = held.clone();
                let mut within = true;
                for (k, &p) in self.empty.iter().enumerate() {
                    let x = (code / d.pow(k as u32) % d) as u8;
                    within &= self.cands[k] >> x & 1 == 1;
                    vals[p] = Some(x);
                }
                let blocked = self.pairs.iter().any(|&(i, j, t)| {
                    let (i, j) = (usize::from(i), usize::from(j));
                    let (x, y) = (vals[i].expect("set"), vals[j].expect("set"));
                    (held[i].is_none() || held[j].is_none())
                        && self.table[t as usize * d + usize::from(x)] >> y & 1 == 1
                });
                if within && !blocked && admits(&vals) {
                    for (k, &p) in self.empty.iter().enumerate() {
                        want[k] |= 1 << vals[p].expect("set");
                    }
                }
            }
            want
        }
    }

    /// Admits the assignments whose values' weighted sum is in a random set.
    struct Sums {
        weights: Vec<u64>,
        allowed: u64,
    }

    impl Admit for Sums {
        fn admits(&mut self, held: &[Option<u8>]) -> bool {
            let sum: u64 = held
                .iter()
                .zip(&self.weights)
                .map(|(v, w)| u64::from(v.expect("complete")) * w)
                .sum();
            self.allowed >> (sum % 64) & 1 == 1
        }
    }

    /// Collects what it is offered, admitting all.
    struct Offered(Vec<Vec<u8>>);

    impl Admit for Offered {
        fn admits(&mut self, held: &[Option<u8>]) -> bool {
            self.0
                .push(held.iter().map(|v| v.expect("complete")).collect());
            true
        }
    }

    /// Every assignment within the candidates that blocks no pair is offered once, as
    /// listing every assignment finds them; none when the steps run out first.
    #[test]
    fn every_assignment_that_blocks_no_pair_is_offered_once() {
        let mut below = crate::slot::xorshift(0x0065_7665_7279);
        let (mut listed, mut cut) = (0, 0);
        for _ in 0..2000 {
            let n = 1 + below(5) as usize;
            let Some(mut case) = Case::random(n, &mut below) else {
                continue;
            };
            // Every position empty, over its candidates (a filled one over its value).
            let cands: Vec<u128> = (0..n)
                .map(|p| match case.held[p] {
                    Some(x) => 1 << x,
                    None => case.cands[case.empty.iter().position(|&e| e == p).unwrap()],
                })
                .collect();
            case.held = vec![None; n];
            case.empty = (0..n).collect();
            case.cands.clone_from(&cands);
            let mut want = Vec::new();
            for code in 0..case.d.pow(n as u32) {
                let vals: Vec<u8> = (0..n)
                    .map(|k| (code / case.d.pow(k as u32) % case.d) as u8)
                    .collect();
                let within = vals.iter().zip(&cands).all(|(&x, c)| c >> x & 1 == 1);
                let blocked = case.pairs.iter().any(|&(i, j, t)| {
                    let (x, y) = (vals[usize::from(i)], vals[usize::from(j)]);
                    case.table[t as usize * case.d + usize::from(x)] >> y & 1 == 1
                });
                if within && !blocked {
                    want.push(vals);
                }
            }
            let pairs = case.pairs.clone();
            let mut offered = Offered(Vec::new());
            let steps = if below(4) == 0 { 3 } else { MAX_STEPS };
            let finished = each_assignment(
                (&case.table[..], case.d, &pairs[..]),
                &Case::narrow(&cands),
                steps,
                &mut offered,
            );
            if !finished {
                cut += 1;
                continue;
            }
            offered.0.sort();
            want.sort();
            assert_eq!(offered.0, want, "pairs {pairs:?} cands {cands:?}");
            listed += usize::from(want.len() > 1);
        }
        assert!(listed > 300 && cut > 50, "{listed} listed, {cut} cut short");
    }

    /// Against every assignment, on random positions, relations, fillings, candidates and
    /// tests of the whole assignment.
    #[test]
    fn kept_values_are_those_of_some_admitted_assignment() {
        let mut below = crate::slot::xorshift(0x6c61_796f_7574);
        let mut narrowed = 0;
        for _ in 0..3000 {
            let n = 1 + below(5) as usize;
            let Some(case) = Case::random(n, &mut below) else {
                continue;
            };
            let mut admit = Sums {
                weights: (0..n).map(|_| 1 + below(5)).collect(),
                allowed: below(u64::MAX),
            };
            let mut keep = Case::narrow(&case.cands);
            // Small cases: the search finishes, and says it narrowed exactly.
            assert!(supported(
                &case.table,
                case.d,
                &case.pairs,
                &case.held,
                &mut keep,
                &mut admit,
            ));
            let keep: Vec<u128> = keep.iter().map(|k| k.to_u128()).collect();
            let want = case.kept(|vals| admit.admits(vals));
            assert_eq!(
                keep, want,
                "pairs {:?} held {:?} cands {:?}",
                case.pairs, case.held, case.cands
            );
            narrowed += usize::from(keep != case.cands);
        }
        assert!(narrowed > 300, "only {narrowed} cases narrowed");
    }

    /// The related pairs of a few slots are those listed pair by pair and sorted, over
    /// rule files whose hubs use one table (Sudoku) or several (consecutive bars, cages).
    #[test]
    fn few_slots_relate_as_many_do() {
        let mut below = crate::slot::xorshift(0x2545_f491_4f6c_dd1d);
        let mut listed = 0;
        for (name, text) in [
            (
                "sudoku-9x9.graft",
                include_str!("../../rules/sudoku-9x9.graft"),
            ),
            (
                "consecutive-6x6.graft",
                include_str!("../../rules/consecutive-6x6.graft"),
            ),
            (
                "killer-4x4.graft",
                include_str!("../../rules/killer-4x4.graft"),
            ),
        ] {
            let g = crate::load_str(name, text).expect("the rule file loads");
            let model = super::super::compile(&g).expect("on the slot engine");
            let mut writes = Writes::new(&model, |_| true);
            let n = model.slots.len() as u64;
            for _ in 0..300 {
                let k = 2 + below(n.min(64) - 1) as usize;
                let mut slots: Vec<u32> = (0..k).map(|_| below(n) as u32).collect();
                slots.sort_unstable();
                slots.dedup();
                let (mut few, mut many) = (Vec::new(), Vec::new());
                writes.among_few(&model, &slots, &mut few);
                writes.among_many(&model, &slots, &mut many);
                assert_eq!(few, many, "{name}: {slots:?}");
                listed += few.len();
            }
        }
        assert!(listed > 10_000, "only {listed} pairs");
    }
}
