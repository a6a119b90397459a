//! NACs over a group's content (a killer cage's `sum(...) + v > k.sum`) on the slot engine:
//! the group's cells, the NAC's condition evaluated exactly on their values, and the
//! contents (sets, or multisets where values may repeat) a group may end with.
//!
//! The analysis ([`crate::analysis::aggregate`]) accepts such a NAC when its condition is
//! a function of the group's content once the cell is filled, the same for every cell of
//! the group, that only turns from false to true as cells fill. So placing `x` in a cell
//! is blocked exactly when the condition holds on the group's values with `x` added, and a
//! final state's group holds a content on which it is false (its last cell filled saw that
//! content). The second fact lets the solver keep, in each empty cell, only the values of
//! some content the group can still end with.

use std::cell::OnceCell;
use std::sync::Arc;

use smallvec::SmallVec;

use super::mask::values_of;
use crate::model::{AttrId, Value, VarId};
use crate::rule::{AggId, AggOp, Aggregate, Env, Expr, Fold};

/// One NAC with aggregates over the filled cell's group, shared by all its groups.
#[derive(Clone, Debug)]
pub struct GroupNac {
    /// The NAC's conditions: it blocks when all hold.
    pub conds: Vec<Expr>,
    /// The aggregates over the group the conditions hold.
    pub aggs: Vec<GroupAgg>,
    /// The conditions as written (without their places in the file), shared by every
    /// rule file that writes them alike, and their hash: the key of the groups' listings.
    pub written: Arc<[Expr]>,
    pub fingerprint: u64,
}

/// An aggregate over the group without the filled cell: each other cell `d` counts when
/// `conds` hold on its value, and adds `body`.
#[derive(Clone, Debug)]
pub struct GroupAgg {
    pub id: AggId,
    pub op: AggOp,
    /// The variable of `d` and the attribute holding its value.
    pub d: VarId,
    pub attr: AttrId,
    pub conds: Vec<Expr>,
    pub body: Option<Expr>,
    /// The NAC's first aggregate that folds alike (the same operation, `d`, `attr`,
    /// conditions and body, written again: a kakuro run's `sum(...)` in each of three
    /// alternatives), whose value is this one's; its own index when none before it does.
    pub first: usize,
}

/// One group of one such NAC: the match of the NAC's own nodes (a cage) and the cells
/// joined to them as the filled cell is.
#[derive(Clone, Debug)]
pub struct Group {
    /// Index into the model's group NACs.
    pub nac: u32,
    /// The member slots, in increasing order.
    pub members: Vec<u32>,
    /// The unchanging attributes the conditions read (the cage's sum).
    pub statics: Vec<(VarId, AttrId, Value)>,
    /// The contents the group may end with (its condition false once full, and the
    /// conditions of every other group over the same members too); `None` when they are
    /// too many to list. Shared: alike groups of every puzzle of a batch read one listing.
    pub feasible: Option<Arc<Contents>>,
    /// Members related through a hub other than by equal values (neighbours on a
    /// thermometer along a row), each as (position, position, table): while the first
    /// holds `x` the second cannot take the table's row `x`. Listed where the contents are;
    /// the solver reads them only where blocking is symmetric, so that a content must
    /// respect them whatever order its members were filled in.
    pub pairs: Vec<(u16, u16, u32)>,
    /// Empty for a group a NAC makes. For the remainder of a house (see
    /// `compile::remainder`), the groups inside the house whose contents imply its own:
    /// such a group only takes candidates, and judges nothing a rule places.
    pub implied_by: Vec<u32>,
}

/// The contents a group may end with, each a multiset of `n` values listed in increasing
/// order (a set where the members' values differ).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contents {
    /// Values per content: the group's size.
    pub n: usize,
    /// Per content, the values it holds, as a mask.
    pub masks: Vec<u128>,
    /// Per content, its `n` values in increasing order, one content after another.
    pub values: Vec<u8>,
    /// Whether some content holds a value twice.
    pub repeats: bool,
    /// One past the largest value any content holds.
    end: usize,
    /// Per value below `end`, the most times a content holds it.
    most: Vec<u8>,
}

impl Contents {
    /// The contents listed in `lists` (each `n` values in increasing order).
    pub fn new<L: AsRef<[u8]>>(n: usize, lists: impl IntoIterator<Item = L>) -> Contents {
        let mut c = Contents {
            n,
            masks: Vec::new(),
            values: Vec::new(),
            repeats: false,
            end: 0,
            most: Vec::new(),
        };
        for l in lists {
            let l = l.as_ref();
            debug_assert_eq!(l.len(), n);
            let mask = l.iter().fold(0u128, |m, &x| m | 1u128 << x);
            c.repeats |= mask.count_ones() as usize != n;
            c.end = c.end.max((u128::BITS - mask.leading_zeros()) as usize);
            c.most.resize(c.end, 0);
            for run in l.chunk_by(|a, b| a == b) {
                let m = &mut c.most[usize::from(run[0])];
                *m = (*m).max(run.len() as u8);
            }
            c.masks.push(mask);
            c.values.extend_from_slice(l);
        }
        c
    }

    /// Per value below [`Self::end`], the most times a content holds it.
    pub fn most(&self) -> &[u8] {
        &self.most
    }

    /// One past the largest value any content holds.
    pub fn end(&self) -> usize {
        self.end
    }

    /// The contents, each as its values in increasing order.
    pub fn lists(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.values
            .chunks_exact(self.n.max(1))
            .take(self.masks.len())
    }

    /// The contents listed as value sets (bit x: value x), each of `n` values.
    pub fn of_sets(n: usize, sets: impl IntoIterator<Item = u128>) -> Contents {
        let lists = sets
            .into_iter()
            .map(|set| values_of(set).collect::<SmallVec<[u8; 16]>>());
        Contents::new(n, lists)
    }

    /// The contents both `self` and `other` list.
    pub fn intersect(&self, other: &Contents) -> Contents {
        let theirs: std::collections::HashSet<&[u8]> = other.lists().collect();
        Contents::new(self.n, self.lists().filter(|l| theirs.contains(l)))
    }
}

impl GroupNac {
    /// Whether the NAC blocks placing `x` in member `c` of `group` while each other
    /// member `m`, the group's `i`-th, holds `value(i, m)` (by position where the values
    /// are listed in member order, by slot where they are read off a state).
    pub fn blocks(
        &self,
        group: &Group,
        c: u32,
        x: u16,
        value: &dyn Fn(usize, u32) -> Option<u16>,
    ) -> bool {
        // Each fold once per placement judged, however often the conditions name it.
        let folded: SmallVec<[OnceCell<Value>; 8]> =
            self.aggs.iter().map(|_| OnceCell::new()).collect();
        let env = GroupEnv {
            nac: self,
            group,
            c,
            x,
            value,
            folded: &folded,
        };
        self.conds.iter().all(|e| e.holds(&env))
    }

    /// Whether a group whose members hold `values` (in member order, all filled) is a
    /// content the NAC allows its last cell to complete: the NAC does not block the first
    /// member's value with the others placed (the analysis makes the choice of cell moot).
    pub fn allows_full(&self, group: &Group, values: &[u16]) -> bool {
        let value = |i: usize, _: u32| Some(values[i]);
        !self.blocks(group, group.members[0], values[0], &value)
    }

    /// The aggregates [`GroupNac::allows_full`] folds for `values` (over every member but
    /// the first), by aggregate. They read the members' values only (a member's
    /// conditions and body see no attribute of the group and no parameter), so one
    /// listing of a group's contents serves every value of its unchanging attributes: a
    /// killer cage's folds are the same whatever its sum.
    pub fn folds_full(&self, group: &Group, values: &[u16]) -> SmallVec<[Value; 8]> {
        let folded: SmallVec<[OnceCell<Value>; 8]> =
            self.aggs.iter().map(|_| OnceCell::new()).collect();
        self.on_full(group, values, &folded, |env| {
            (0..self.aggs.len()).map(|i| env.fold(i)).collect()
        })
    }

    /// [`GroupNac::allows_full`] with the aggregates already folded, as
    /// [`GroupNac::folds_full`] gives them.
    pub fn allows_full_folded(&self, group: &Group, values: &[u16], folds: &[Value]) -> bool {
        let folded: SmallVec<[OnceCell<Value>; 8]> =
            folds.iter().map(|&v| OnceCell::from(v)).collect();
        self.on_full(group, values, &folded, |env| {
            !self.conds.iter().all(|e| e.holds(env))
        })
    }

    /// `read` of the conditions' environment where the group's members hold `values` and
    /// the first is the one placed, aggregates kept in `folded`.
    fn on_full<R>(
        &self,
        group: &Group,
        values: &[u16],
        folded: &[OnceCell<Value>],
        read: impl FnOnce(&GroupEnv<'_>) -> R,
    ) -> R {
        let value = |i: usize, _: u32| Some(values[i]);
        read(&GroupEnv {
            nac: self,
            group,
            c: group.members[0],
            x: values[0],
            value: &value,
            folded,
        })
    }
}

/// The NAC's condition for one placement: the parameter is the value placed, attributes
/// are the group's unchanging ones, aggregates fold over the other members' values.
struct GroupEnv<'a> {
    nac: &'a GroupNac,
    group: &'a Group,
    c: u32,
    x: u16,
    /// The value of the group's `i`-th member, slot `m`: `value(i, m)`.
    value: &'a dyn Fn(usize, u32) -> Option<u16>,
    /// By aggregate, its value once folded (kept at the first of those alike).
    folded: &'a [OnceCell<Value>],
}

impl Env for GroupEnv<'_> {
    fn param(&self, _: u32) -> Value {
        Value::Val(self.x)
    }

    fn attr(&self, var: VarId, attr: AttrId) -> Value {
        self.group
            .statics
            .iter()
            .find(|s| s.0 == var && s.1 == attr)
            .map_or(Value::None, |s| s.2)
    }

    fn aggregate(&self, agg: &Aggregate) -> Value {
        match self.nac.aggs.iter().position(|a| a.id == agg.id) {
            Some(i) => self.fold(i),
            None => Value::None,
        }
    }
}

impl GroupEnv<'_> {
    /// The NAC's `i`-th aggregate folded over the other members (once for those alike).
    fn fold(&self, i: usize) -> Value {
        let first = self.nac.aggs[i].first;
        let folded = &self.folded[first];
        if let Some(&v) = folded.get() {
            return v;
        }
        let a = &self.nac.aggs[first];
        let mut fold = Fold::new(a.op);
        for (i, &m) in self.group.members.iter().enumerate() {
            if m == self.c {
                continue;
            }
            let cell = Cell {
                d: a.d,
                attr: a.attr,
                value: (self.value)(i, m).map_or(Value::None, Value::Val),
            };
            if a.conds.iter().all(|e| e.holds(&cell)) {
                let v = a.body.as_ref().map_or(Value::None, |b| b.eval(&cell));
                if fold.add(v) {
                    break;
                }
            }
        }
        *folded.get_or_init(|| fold.finish())
    }
}

/// One member `d` of a group, read through its value only.
struct Cell {
    d: VarId,
    attr: AttrId,
    value: Value,
}

impl Env for Cell {
    fn param(&self, _: u32) -> Value {
        Value::None
    }

    fn attr(&self, var: VarId, attr: AttrId) -> Value {
        if (var, attr) == (self.d, self.attr) {
            self.value
        } else {
            Value::None
        }
    }

    fn aggregate(&self, _: &Aggregate) -> Value {
        Value::None
    }
}

/// The most value sets of one group listed: past it the group is propagated by its NAC
/// alone, cell by cell.
pub const MAX_FEASIBLE: u64 = 1 << 12;

/// Every multiset of `n` values from `domain` in which the values of `once` appear at most
/// once (values in increasing order, the multisets in lexicographic order), or `None` when
/// there are more than [`MAX_FEASIBLE`].
pub fn multisets(domain: u128, once: u128, n: usize) -> Option<Vec<Vec<u8>>> {
    let values: Vec<u8> = values_of(domain).collect();
    // room[i]: how many places the values from the i-th on can fill (at most n), so that a
    // prefix that cannot be completed is not followed. It never grows with i.
    let mut room = vec![0usize; values.len() + 1];
    for i in (0..values.len()).rev() {
        room[i] = if once >> values[i] & 1 == 1 {
            (room[i + 1] + 1).min(n)
        } else {
            n
        };
    }
    let mut out = Vec::new();
    let mut pick = Vec::with_capacity(n);
    let listed = extend_multisets(&values, once, &room, 0, n, &mut pick, &mut out);
    listed.then_some(out)
}

/// Lists into `out` the completions of `pick` to `n` values from `values[from..]`; false
/// once `out` holds more than [`MAX_FEASIBLE`].
fn extend_multisets(
    values: &[u8],
    once: u128,
    room: &[usize],
    from: usize,
    n: usize,
    pick: &mut Vec<u8>,
    out: &mut Vec<Vec<u8>>,
) -> bool {
    if pick.len() == n {
        out.push(pick.clone());
        return out.len() as u64 <= MAX_FEASIBLE;
    }
    for (i, &x) in values.iter().enumerate().skip(from) {
        if room[i] < n - pick.len() {
            break;
        }
        pick.push(x);
        let next = if once >> x & 1 == 1 { i + 1 } else { i };
        if !extend_multisets(values, once, room, next, n, pick, out) {
            return false;
        }
        pick.pop();
    }
    true
}

/// Every subset of `domain` with `n` values, in increasing order of their masks' lowest
/// differing bit, or `None` when there are more than [`MAX_FEASIBLE`].
pub fn subsets(domain: u128, n: usize) -> Option<Vec<u128>> {
    let values: Vec<u32> = values_of(domain).map(u32::from).collect();
    let mut count: u64 = 1;
    for i in 0..n.min(values.len()) as u64 {
        count = count * (values.len() as u64 - i) / (i + 1);
        if count > MAX_FEASIBLE {
            return None;
        }
    }
    if n > values.len() {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    let mut pick: Vec<usize> = (0..n).collect();
    loop {
        out.push(pick.iter().fold(0u128, |m, &i| m | 1u128 << values[i]));
        // The next combination: the rightmost index that can move, moved, the rest after it.
        let Some(i) = (0..n).rev().find(|&i| pick[i] < values.len() - n + i) else {
            return Some(out);
        };
        pick[i] += 1;
        for j in i + 1..n {
            pick[j] = pick[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_are_every_set_of_that_size_once() {
        let domain = 0b1011_0110u128;
        for n in 0..=5 {
            let got = subsets(domain, n).expect("few");
            // Brute force: every mask within the domain with n bits.
            let mut want: Vec<u128> = (0..256u128)
                .filter(|&m| m & !domain == 0 && m.count_ones() as usize == n)
                .collect();
            let mut sorted = got.clone();
            sorted.sort_unstable();
            want.sort_unstable();
            assert_eq!(sorted, want, "{n} values");
            assert_eq!(got.len(), want.len(), "{n} values: no repeats");
        }
        // Past the limit: C(16, 8) = 12,870 sets are not listed.
        assert_eq!(subsets(0xffff, 8), None);
        assert_eq!(subsets(0xffff, 2).map(|s| s.len()), Some(120));
    }

    #[test]
    fn multisets_are_every_multiset_of_that_size_once() {
        let domain = 0b1011_0100u128;
        let values = [2u8, 4, 5, 7];
        for once in [0u128, 0b100, 0b1010_0000, domain] {
            for n in 0..=5 {
                let got = multisets(domain, once, n).expect("few");
                // Brute force: every sequence over the values, sorted, deduplicated, the
                // values of `once` at most once.
                let mut want = std::collections::BTreeSet::new();
                for code in 0..values.len().pow(n as u32) {
                    let mut seq: Vec<u8> = (0..n)
                        .map(|k| values[code / values.len().pow(k as u32) % values.len()])
                        .collect();
                    seq.sort_unstable();
                    if seq
                        .windows(2)
                        .all(|w| w[0] != w[1] || once >> w[0] & 1 == 0)
                    {
                        want.insert(seq);
                    }
                }
                let got_set: std::collections::BTreeSet<_> = got.iter().cloned().collect();
                assert_eq!(got_set, want, "{n} values, once {once:b}");
                assert_eq!(got.len(), want.len(), "{n} values: no repeats");
                assert!(
                    got.windows(2).all(|w| w[0] < w[1]),
                    "in lexicographic order"
                );
            }
        }
        // C(16 + 8 - 1, 8) = 490,314 multisets are past the limit.
        assert_eq!(multisets(0xffff, 0, 8), None);
        assert_eq!(multisets(0x1ff, 0, 4).map(|s| s.len()), Some(495));
        // Seven of 0..5, 1..5 at most once: which of the five, the rest 0 (2^5).
        assert_eq!(multisets(0x3f, 0x3e, 7).map(|s| s.len()), Some(32));
    }

    #[test]
    fn contents_intersect_keeps_the_common_multisets() {
        let a = Contents::new(2, [vec![0, 0], vec![0, 1], vec![1, 2]]);
        let b = Contents::new(2, [vec![1, 2], vec![0, 0], vec![2, 2]]);
        let both = a.intersect(&b);
        assert_eq!(both.lists().collect::<Vec<_>>(), [&[0u8, 0][..], &[1, 2]]);
        assert_eq!(both.masks, [1, 0b110]);
        assert!(both.repeats);
        assert!(!Contents::new(2, [vec![1, 2]]).repeats);
    }
}
