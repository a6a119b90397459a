//! The slot engine's working state and its moves: placing a value updates the hubs it
//! writes and narrows the candidates of their readers; propagation applies forced moves.

use super::mask::Mask;
use super::model::SlotModel;

/// Flat, read-only tables of a [`SlotModel`] for one mask width.
#[derive(Clone, Debug)]
pub struct Tables<M: Mask> {
    pub n: usize,
    pub d: usize,
    pub full: M,
    pub allowed: Vec<M>,
    /// Hubs each slot writes: `writes[write_start[s]..write_start[s + 1]]`.
    write_start: Vec<u32>,
    writes: Vec<u32>,
    /// Hubs each slot reads.
    read_start: Vec<u32>,
    reads: Vec<u32>,
    /// Readers of each hub.
    reader_start: Vec<u32>,
    readers: Vec<u32>,
    /// Members (writers) of each hub.
    member_start: Vec<u32>,
    members: Vec<u32>,
    /// `table[hub_table[h] * d + y]`.
    hub_table: Vec<u32>,
    table: Vec<M>,
    /// Exactly-once hubs.
    pub once: Vec<u32>,
}

fn flatten(lists: &[Vec<u32>]) -> (Vec<u32>, Vec<u32>) {
    let mut start = Vec::with_capacity(lists.len() + 1);
    let mut flat = Vec::new();
    start.push(0);
    for l in lists {
        flat.extend_from_slice(l);
        start.push(flat.len() as u32);
    }
    (start, flat)
}

impl<M: Mask> Tables<M> {
    pub fn new(m: &SlotModel) -> Tables<M> {
        let n = m.slots.len();
        let mut writes = vec![Vec::new(); n];
        let mut reads = vec![Vec::new(); n];
        for (h, hub) in m.hubs.iter().enumerate() {
            for &w in &hub.writers {
                writes[w as usize].push(h as u32);
            }
            for &r in &hub.readers {
                reads[r as usize].push(h as u32);
            }
        }
        let (write_start, writes) = flatten(&writes);
        let (read_start, reads) = flatten(&reads);
        let readers: Vec<Vec<u32>> = m.hubs.iter().map(|h| h.readers.clone()).collect();
        let (reader_start, readers) = flatten(&readers);
        let members: Vec<Vec<u32>> = m.hubs.iter().map(|h| h.writers.clone()).collect();
        let (member_start, members) = flatten(&members);
        Tables {
            n,
            d: m.d,
            full: M::from_u128(m.full_mask()),
            allowed: m.allowed.iter().map(|&a| M::from_u128(a)).collect(),
            write_start,
            writes,
            read_start,
            reads,
            reader_start,
            readers,
            member_start,
            members,
            hub_table: m.hubs.iter().map(|h| h.table).collect(),
            table: m
                .tables
                .iter()
                .flat_map(|t| t.iter().map(|&r| M::from_u128(r)))
                .collect(),
            once: m.once.clone(),
        }
    }

    pub fn hubs(&self) -> usize {
        self.hub_table.len()
    }

    #[inline]
    fn writes(&self, s: usize) -> &[u32] {
        &self.writes[self.write_start[s] as usize..self.write_start[s + 1] as usize]
    }

    #[inline]
    fn reads(&self, s: usize) -> &[u32] {
        &self.reads[self.read_start[s] as usize..self.read_start[s + 1] as usize]
    }

    #[inline]
    fn readers(&self, h: usize) -> &[u32] {
        &self.readers[self.reader_start[h] as usize..self.reader_start[h + 1] as usize]
    }

    #[inline]
    pub fn members(&self, h: usize) -> &[u32] {
        &self.members[self.member_start[h] as usize..self.member_start[h + 1] as usize]
    }

    #[inline]
    fn row(&self, h: usize, y: u32) -> M {
        self.table[self.hub_table[h] as usize * self.d + y as usize]
    }

    /// An empty working state: nothing placed, every slot's candidates its allowed values.
    pub fn empty(&self) -> Work<M> {
        Work {
            vals: vec![0; self.n],
            cand: self.allowed.clone(),
            hub: vec![M::ZERO; self.hubs()],
            open: self.n as u32,
            last: u32::MAX,
        }
    }

    /// Places `y` in slot `s` without checking that it is a candidate (givens, and
    /// rebuilding a state from its packed form). Returns the slot whose placement blocks
    /// `y` here, if one does.
    pub fn place_unchecked(&self, w: &mut Work<M>, s: usize, y: u32) {
        w.vals[s] = y as u8 + 1;
        w.open -= 1;
        w.cand[s] = M::ZERO;
        for &h in self.writes(s) {
            let h = h as usize;
            let add = self.row(h, y) & !w.hub[h];
            if add.is_zero() {
                continue;
            }
            w.hub[h] |= add;
            for &r in self.readers(h) {
                w.cand[r as usize] &= !add;
            }
        }
    }

    /// True when placing `y` in `s` is blocked by the values already placed.
    pub fn blocked(&self, w: &Work<M>, s: usize, y: u32) -> bool {
        self.allowed[s] & M::bit(y) == M::ZERO
            || self
                .reads(s)
                .iter()
                .any(|&h| w.hub[h as usize] & M::bit(y) != M::ZERO)
    }

    /// Places `y` in `s`; false when a slot is left without candidates (a dead state).
    /// With `forced`, slots left with one candidate are queued in `w.forced`.
    #[inline]
    pub fn place(&self, w: &mut Work<M>, s: usize, y: u32, queue: &mut Vec<(u32, u32)>) -> bool {
        if w.vals[s] != 0 {
            return w.vals[s] as u32 == y + 1;
        }
        if w.cand[s] & M::bit(y) == M::ZERO {
            return false;
        }
        w.vals[s] = y as u8 + 1;
        w.open -= 1;
        w.cand[s] = M::ZERO;
        for &h in self.writes(s) {
            let h = h as usize;
            let add = self.row(h, y) & !w.hub[h];
            if add.is_zero() {
                continue;
            }
            w.hub[h] |= add;
            for &r in self.readers(h) {
                let r = r as usize;
                if w.vals[r] != 0 {
                    continue;
                }
                let before = w.cand[r];
                let c = before & !add;
                if c != before {
                    w.cand[r] = c;
                    if c.is_zero() {
                        return false;
                    }
                    if c.count() == 1 {
                        queue.push((r as u32, c.first()));
                    }
                }
            }
        }
        true
    }

    /// Applies forced moves until none is left: slots with one candidate, and values that
    /// only one member of an exactly-once hub can still take. False on a dead state.
    pub fn propagate(&self, w: &mut Work<M>, queue: &mut Vec<(u32, u32)>) -> bool {
        loop {
            while let Some((s, y)) = queue.pop() {
                if !self.place(w, s as usize, y, queue) {
                    queue.clear();
                    return false;
                }
            }
            let mut progress = false;
            for &h in &self.once {
                let h = h as usize;
                let (mut once, mut twice) = (M::ZERO, M::ZERO);
                for &m in self.members(h) {
                    let c = w.cand[m as usize];
                    twice |= once & c;
                    once |= c;
                }
                let missing = self.full & !w.hub[h];
                if missing & !once != M::ZERO {
                    queue.clear();
                    return false;
                }
                let mut singles = missing & once & !twice;
                while !singles.is_zero() {
                    let y = singles.pop_first();
                    let m = self
                        .members(h)
                        .iter()
                        .copied()
                        .find(|&m| w.cand[m as usize] & M::bit(y) != M::ZERO);
                    if let Some(m) = m {
                        queue.push((m, y));
                        progress = true;
                    }
                }
            }
            if !progress {
                return true;
            }
        }
    }

    /// The unfilled slot with the fewest candidates (ties: the lowest index), and its
    /// count; `None` when every slot is filled.
    pub fn best_slot(&self, w: &Work<M>) -> Option<(u32, u32)> {
        let mut best: Option<(u32, u32)> = None;
        for s in 0..self.n {
            if w.vals[s] != 0 {
                continue;
            }
            let k = w.cand[s].count();
            if best.is_none_or(|(_, bk)| k < bk) {
                best = Some((s as u32, k));
                if k <= 1 {
                    break;
                }
            }
        }
        best
    }

    /// The exactly-once hub and missing value with the fewest places left, when fewer
    /// than `than`.
    pub fn best_value(&self, w: &Work<M>, than: u32) -> Option<(u32, u32, u32)> {
        let mut best: Option<(u32, u32, u32)> = None;
        let mut bound = than;
        for &h in &self.once {
            let members = self.members(h as usize);
            let mut missing = self.full & !w.hub[h as usize];
            while !missing.is_zero() {
                let y = missing.pop_first();
                let k = members
                    .iter()
                    .filter(|&&m| w.cand[m as usize] & M::bit(y) != M::ZERO)
                    .count() as u32;
                if k < bound {
                    bound = k;
                    best = Some((h, y, k));
                }
            }
        }
        best
    }

    /// Enabled placements in a state: the sum of its slots' candidate counts.
    pub fn transitions(&self, w: &Work<M>) -> u64 {
        (0..self.n)
            .filter(|&s| w.vals[s] == 0)
            .map(|s| u64::from(w.cand[s].count()))
            .sum()
    }
}

/// A state of the slot engine with its indexes: per slot its value (0 = none, else value
/// + 1) and its candidates; per hub its mask; the number of empty slots.
#[derive(Debug, PartialEq, Eq)]
pub struct Work<M: Mask> {
    pub vals: Vec<u8>,
    pub cand: Vec<M>,
    pub hub: Vec<M>,
    pub open: u32,
    /// The highest slot placed by a transition (orderly generation), `u32::MAX` if none.
    pub last: u32,
}

impl<M: Mask> Clone for Work<M> {
    fn clone(&self) -> Self {
        Work {
            vals: self.vals.clone(),
            cand: self.cand.clone(),
            hub: self.hub.clone(),
            open: self.open,
            last: self.last,
        }
    }

    /// Reuses the buffers: the hot path clones into spent states.
    fn clone_from(&mut self, src: &Self) {
        self.vals.clone_from(&src.vals);
        self.cand.clone_from(&src.cand);
        self.hub.clone_from(&src.hub);
        self.open = src.open;
        self.last = src.last;
    }
}
