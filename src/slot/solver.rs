//! The slot engine's working state and its moves, value-major: for each value a bitset of
//! the slots that may still take it ("boards", one after another), read through the bitset
//! of empty slots. Placing a value empties the slot and, for each hub it writes, clears the
//! hub's readers from the boards of the values it blocks: a few word operations instead of
//! one update per neighbour. Forced moves are found for the whole state at once by counting
//! boards bit-sliced.

use super::mask::Mask;
use super::model::SlotModel;

/// The word count of slot bitsets read from [`Tables::words`] at run time. Any other `W`
/// given to the hot methods is the word count itself, known at compile time so that the
/// loops over a bitset's words unroll and their bounds checks fold away.
pub const DYN: usize = 0;

/// Flat, read-only tables of a [`SlotModel`] for one mask width.
#[derive(Clone, Debug)]
pub struct Tables<M: Mask> {
    /// Slots.
    pub n: usize,
    /// Values.
    pub d: usize,
    /// Words per slot bitset.
    pub words: usize,
    pub full: M,
    pub allowed: Vec<M>,
    /// What placing in each slot reads first, in one record.
    slot_info: Vec<SlotInfo>,
    /// Hubs each slot writes: `writes[slot_info[s].writes]`.
    writes: Vec<u32>,
    /// Beside each entry of `writes`, where its hub's rows start in `table`
    /// (`hub_table[h] * d`): placing reads them without going through the hub.
    write_rows: Vec<u32>,
    /// Per slot, the readers of the hubs it writes (`words` words per slot), where it is
    /// `equal_only`.
    peers: Vec<u64>,
    /// Hubs each slot reads.
    read_start: Vec<u32>,
    reads: Vec<u32>,
    /// Per hub, its readers as a slot bitset (`words` words each).
    hub_readers: Vec<u64>,
    /// Per hub, its writers as a slot bitset.
    hub_members: Vec<u64>,
    /// `table[hub_table[h] * d + y]`: values blocked while a writer of `h` holds `y`.
    hub_table: Vec<u32>,
    table: Vec<M>,
    /// Exactly-once hubs: the first `once`.
    pub once: usize,
    /// The bit buffer of the empty state (see [`Work`]): board `x` holds the slots that
    /// allow `x`, every slot is empty, no hub holds a value.
    init_bits: Vec<u64>,
}

/// Per slot, what placing there reads first.
#[derive(Clone, Copy, Debug)]
struct SlotInfo {
    /// The first 64 exactly-once hubs (by position in `once`) that hold the slot. Hubs
    /// past the 64th are always rescanned.
    once_of: u64,
    /// Where its hubs are in `writes`.
    writes: (u32, u32),
    /// Whether every hub it writes blocks exactly the value held (as in "all different"
    /// groups); then placing `y` takes `y` from the slot's `peers` in one pass.
    equal_only: bool,
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
        let words = n.div_ceil(64).max(1);
        let mut writes = vec![Vec::new(); n];
        let mut reads = vec![Vec::new(); n];
        // Hubs are renumbered with the exactly-once hubs first, in their order, so that
        // scans over those read the first hub masks directly.
        let mut is_once = vec![false; m.hubs.len()];
        for &h in &m.once {
            is_once[h as usize] = true;
        }
        let mut order = m.once.clone();
        order.extend((0..m.hubs.len() as u32).filter(|&h| !is_once[h as usize]));
        let mut hub_readers = vec![0u64; m.hubs.len() * words];
        let mut hub_members = vec![0u64; m.hubs.len() * words];
        for (h, hub) in order.iter().map(|&h| &m.hubs[h as usize]).enumerate() {
            for &w in &hub.writers {
                writes[w as usize].push(h as u32);
                hub_members[h * words + w as usize / 64] |= 1 << (w % 64);
            }
            for &r in &hub.readers {
                reads[r as usize].push(h as u32);
                hub_readers[h * words + r as usize / 64] |= 1 << (r % 64);
            }
        }
        // Peers are kept while they take at most 1 MiB.
        let keep_peers = n * words <= 1 << 17;
        let identity = |t: u32| {
            let t = &m.tables[t as usize];
            (0..m.d).all(|y| t[y] == 1u128 << y)
        };
        let equal_only: Vec<bool> = writes
            .iter()
            .map(|hs| {
                keep_peers
                    && hs
                        .iter()
                        .all(|&h| identity(m.hubs[order[h as usize] as usize].table))
            })
            .collect();
        let mut peers = vec![0u64; if keep_peers { n * words } else { 0 }];
        for (s, hs) in writes.iter().enumerate() {
            if equal_only[s] {
                for &h in hs {
                    for j in 0..words {
                        peers[s * words + j] |= hub_readers[h as usize * words + j];
                    }
                }
            }
        }
        let (write_start, writes) = flatten(&writes);
        let write_rows = writes
            .iter()
            .map(|&h| m.hubs[order[h as usize] as usize].table * m.d as u32)
            .collect();
        let (read_start, reads) = flatten(&reads);
        let mut init_boards = vec![0u64; m.d * words];
        for (s, &a) in m.allowed.iter().enumerate() {
            for x in 0..m.d {
                if a & (1u128 << x) != 0 {
                    init_boards[x * words + s / 64] |= 1 << (s % 64);
                }
            }
        }
        let mut once_of = vec![0u64; n];
        for (k, &h) in order[..m.once.len()].iter().enumerate().take(64) {
            for &w in &m.hubs[h as usize].writers {
                once_of[w as usize] |= 1 << k;
            }
        }
        let mut init_bits = init_boards;
        init_bits.extend((0..words).map(|i| {
            let slots = (n - i * 64).min(64);
            if slots == 64 {
                !0
            } else {
                (1u64 << slots) - 1
            }
        }));
        init_bits.resize(init_bits.len() + m.hubs.len() * M::WORDS, 0);
        let tracked = m.once.len().min(64);
        let lacking = if tracked == 64 {
            !0
        } else {
            (1u64 << tracked) - 1
        };
        init_bits.extend(std::iter::repeat_n(lacking, m.d));
        Tables {
            n,
            d: m.d,
            words,
            full: M::from_u128(m.full_mask()),
            allowed: m.allowed.iter().map(|&a| M::from_u128(a)).collect(),
            slot_info: (0..n)
                .map(|s| SlotInfo {
                    once_of: once_of[s],
                    writes: (write_start[s], write_start[s + 1]),
                    equal_only: equal_only[s],
                })
                .collect(),
            writes,
            write_rows,
            peers,
            read_start,
            reads,
            hub_readers,
            hub_members,
            hub_table: order.iter().map(|&h| m.hubs[h as usize].table).collect(),
            table: m
                .tables
                .iter()
                .flat_map(|t| t.iter().map(|&r| M::from_u128(r)))
                .collect(),
            once: m.once.len(),
            init_bits,
        }
    }

    /// Words per slot bitset: `W`, or the run-time count when `W` is [`DYN`].
    #[inline(always)]
    fn words_of<const W: usize>(&self) -> usize {
        debug_assert!(W == DYN || W == self.words);
        if W == DYN {
            self.words
        } else {
            W
        }
    }

    pub fn hubs(&self) -> usize {
        self.hub_table.len()
    }

    /// The hubs slot `s` writes, each with where its rows start in `table`.
    #[inline]
    fn writes(&self, s: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let (start, end) = self.slot_info[s].writes;
        let range = start as usize..end as usize;
        self.writes[range.clone()]
            .iter()
            .zip(&self.write_rows[range])
            .map(|(&h, &row)| (h as usize, row as usize))
    }

    #[inline]
    fn reads(&self, s: usize) -> &[u32] {
        &self.reads[self.read_start[s] as usize..self.read_start[s + 1] as usize]
    }

    #[inline]
    fn readers<const W: usize>(&self, h: usize) -> &[u64] {
        let words = self.words_of::<W>();
        &self.hub_readers[h * words..(h + 1) * words]
    }

    #[inline]
    pub fn members<const W: usize>(&self, h: usize) -> &[u64] {
        let words = self.words_of::<W>();
        &self.hub_members[h * words..(h + 1) * words]
    }

    /// An empty working state: nothing placed, every slot's candidates its allowed values.
    pub fn empty(&self) -> Work<M> {
        Work {
            vals: vec![0; self.n],
            bits: self.init_bits.clone(),
            left: self.n as u32,
            last: u32::MAX,
            dirty_values: self.full,
            dirty_hubs: !0,
        }
    }

    /// Board `x`: the slots that may still take `x` (filled slots too: mask with `open`).
    #[inline]
    fn board<'w, const W: usize>(&self, w: &'w Work<M>, x: usize) -> &'w [u64] {
        let words = self.words_of::<W>();
        &w.bits[x * words..(x + 1) * words]
    }

    /// Every board, one after another.
    #[inline]
    fn boards<'w, const W: usize>(&self, w: &'w Work<M>) -> &'w [u64] {
        &w.bits[..self.d * self.words_of::<W>()]
    }

    /// Where the bitset of empty slots starts in a state's buffer.
    #[inline]
    fn open_at<const W: usize>(&self) -> usize {
        self.d * self.words_of::<W>()
    }

    /// The empty slots.
    #[inline]
    fn open<'w, const W: usize>(&self, w: &'w Work<M>) -> &'w [u64] {
        let at = self.open_at::<W>();
        &w.bits[at..at + self.words_of::<W>()]
    }

    /// Where hub `h`'s mask is in a state's buffer.
    #[inline]
    fn hub_at<const W: usize>(&self, h: usize) -> usize {
        self.open_at::<W>() + self.words_of::<W>() + h * M::WORDS
    }

    /// Where, in a state's buffer, the word of the first 64 exactly-once hubs that do not
    /// hold `x` yet is.
    #[inline]
    fn lacks_at<const W: usize>(&self, x: usize) -> usize {
        self.hub_at::<W>(self.hub_table.len()) + x
    }

    /// The values hub `h` holds.
    #[inline]
    fn hub<const W: usize>(&self, w: &Work<M>, h: usize) -> M {
        M::load(&w.bits, self.hub_at::<W>(h))
    }

    /// The values slot `s` may still take (none once it is filled).
    #[inline]
    pub fn cand<const W: usize>(&self, w: &Work<M>, s: usize) -> M {
        let (i, b) = (s / 64, 1u64 << (s % 64));
        let mut c = M::ZERO;
        if self.open::<W>(w)[i] & b == 0 {
            return c;
        }
        let boards = self.boards::<W>(w);
        for (x, board) in boards.chunks_exact(self.words_of::<W>()).enumerate() {
            if board[i] & b != 0 {
                c |= M::bit(x as u32);
            }
        }
        c
    }

    /// Places `y` in `s` without checking that it is a candidate (givens, and rebuilding a
    /// state from its packed form).
    #[inline]
    pub fn place_unchecked<const W: usize>(&self, w: &mut Work<M>, s: usize, y: u32) {
        let words = self.words_of::<W>();
        let (i, b) = (s / 64, 1u64 << (s % 64));
        w.vals[s] = y as u8 + 1;
        let open = &mut w.bits[self.open_at::<W>() + i];
        if *open & b != 0 {
            *open &= !b;
            w.left -= 1;
        }
        // `s` stays on the boards of its other candidates: readers mask boards with `open`.
        // A hidden single may now show in the groups holding `s` (it left every board), and
        // for the values taken from readers, in any group.
        let info = self.slot_info[s];
        w.dirty_hubs |= info.once_of;
        if info.equal_only {
            let range = info.writes.0 as usize..info.writes.1 as usize;
            let bit = M::bit(y);
            let mut add = M::ZERO;
            for &h in &self.writes[range] {
                let at = self.hub_at::<W>(h as usize);
                let hub = M::load(&w.bits, at);
                add |= bit & !hub;
                (hub | bit).store(&mut w.bits, at);
            }
            // Clearing the readers of a hub that already held `y` again changes nothing.
            w.dirty_values |= add;
            w.bits[self.lacks_at::<W>(y as usize)] &= !info.once_of;
            let peers = &self.peers[s * words..(s + 1) * words];
            let y = y as usize;
            for (bw, &p) in w.bits[y * words..(y + 1) * words].iter_mut().zip(peers) {
                *bw &= !p;
            }
            return;
        }
        for (h, row) in self.writes(s) {
            let hub = self.hub::<W>(w, h);
            let mut add = self.table[row + y as usize] & !hub;
            if add.is_zero() {
                continue;
            }
            (hub | add).store(&mut w.bits, self.hub_at::<W>(h));
            w.dirty_values |= add;
            let readers = self.readers::<W>(h);
            while !add.is_zero() {
                let x = add.pop_first() as usize;
                if h < self.once.min(64) {
                    w.bits[self.lacks_at::<W>(x)] &= !(1 << h);
                }
                for (bw, &r) in w.bits[x * words..(x + 1) * words].iter_mut().zip(readers) {
                    *bw &= !r;
                }
            }
        }
    }

    /// True when placing `y` in `s` is blocked by the values already placed.
    pub fn blocked(&self, w: &Work<M>, s: usize, y: u32) -> bool {
        self.allowed[s] & M::bit(y) == M::ZERO
            || self
                .reads(s)
                .iter()
                .any(|&h| self.hub::<DYN>(w, h as usize) & M::bit(y) != M::ZERO)
    }

    /// Places `y` in `s` if it is still a candidate there; false otherwise.
    #[inline]
    pub fn place<const W: usize>(&self, w: &mut Work<M>, s: usize, y: u32) -> bool {
        let (i, b) = (s / 64, 1u64 << (s % 64));
        if self.open::<W>(w)[i] & b == 0 {
            return w.vals[s] == y as u8 + 1;
        }
        if self.board::<W>(w, y as usize)[i] & b == 0 {
            return false;
        }
        self.place_unchecked::<W>(w, s, y);
        true
    }

    /// Counts, per empty slot, whether it has at least one (`once`) and at least two
    /// (`twice`) candidates, over all boards at once.
    #[inline]
    fn count_once_twice<const W: usize>(&self, w: &Work<M>, once: &mut [u64], twice: &mut [u64]) {
        once.fill(0);
        twice.fill(0);
        for board in self.boards::<W>(w).chunks_exact(self.words_of::<W>()) {
            for ((o, t), &x) in once.iter_mut().zip(twice.iter_mut()).zip(board) {
                *t |= *o & x;
                *o |= x;
            }
        }
        for ((o, t), &open) in once.iter_mut().zip(twice.iter_mut()).zip(self.open::<W>(w)) {
            *o &= open;
            *t &= open;
        }
    }

    /// Applies forced moves until none is left: slots with one candidate, and values that
    /// only one member of an exactly-once hub can still take. False on a dead state (a slot
    /// without candidates, or a value no member of an exactly-once hub can take).
    pub fn propagate<const W: usize>(&self, w: &mut Work<M>) -> bool {
        let words = self.words_of::<W>();
        let mut once = [0u64; 8];
        let mut twice = [0u64; 8];
        let mut empty = [0u64; 8];
        let mut heap_once;
        let mut heap_twice;
        let mut heap_empty;
        let (once, twice, empty): (&mut [u64], &mut [u64], &mut [u64]) = if words <= 8 {
            (&mut once[..words], &mut twice[..words], &mut empty[..words])
        } else {
            heap_once = vec![0u64; words];
            heap_twice = vec![0u64; words];
            heap_empty = vec![0u64; words];
            (&mut heap_once, &mut heap_twice, &mut heap_empty)
        };
        loop {
            self.count_once_twice::<W>(w, once, twice);
            let mut singles_found = false;
            for i in 0..words {
                if self.open::<W>(w)[i] & !once[i] != 0 {
                    return false;
                }
                let mut singles = once[i] & !twice[i];
                while singles != 0 {
                    let s = i * 64 + singles.trailing_zeros() as usize;
                    singles &= singles - 1;
                    // Its one candidate, read from every board without a branch (the
                    // loop's exit would be hard to predict).
                    let (mut x, mut found) = (0, 0);
                    for (v, board) in self.boards::<W>(w).chunks_exact(words).enumerate() {
                        let has = (board[i] >> (s % 64)) as usize & 1;
                        x |= has * v;
                        found |= has;
                    }
                    if found == 0 {
                        // An earlier single in this pass took its last candidate.
                        return false;
                    }
                    self.place_unchecked::<W>(w, s, x as u32);
                    singles_found = true;
                }
            }
            if singles_found {
                continue;
            }
            let mut progress = false;
            // Only (group, value) pairs whose count of places changed since the last scan.
            let hubs = std::mem::take(&mut w.dirty_hubs);
            let values = std::mem::replace(&mut w.dirty_values, M::ZERO);
            // The first 64 exactly-once hubs to scan: those wholly changed, and those
            // lacking a changed value; the others are always scanned.
            let mut scan = hubs;
            let mut v = values;
            while !v.is_zero() {
                scan |= w.bits[self.lacks_at::<W>(v.pop_first() as usize)];
            }
            if self.once < 64 {
                scan &= (1 << self.once) - 1;
            }
            let mut untracked = 64..self.once;
            loop {
                let h = if scan != 0 {
                    let h = scan.trailing_zeros() as usize;
                    scan &= scan - 1;
                    h
                } else if let Some(h) = untracked.next() {
                    h
                } else {
                    break;
                };
                let every = h >= 64 || hubs & (1 << h) != 0;
                let look = if every { self.full } else { values };
                let mut missing = self.full & !self.hub::<W>(w, h) & look;
                if missing.is_zero() {
                    continue;
                }
                // The hub's empty members, for every value below.
                let open = self.open::<W>(w);
                for ((e, &m), &o) in empty.iter_mut().zip(self.members::<W>(h)).zip(open) {
                    *e = m & o;
                }
                while !missing.is_zero() {
                    let x = missing.pop_first() as usize;
                    let mut count = 0;
                    let mut at = 0;
                    for (j, (&m, &bw)) in empty.iter().zip(self.board::<W>(w, x)).enumerate() {
                        let c = bw & m;
                        if c != 0 {
                            count += c.count_ones();
                            at = j * 64 + c.trailing_zeros() as usize;
                        }
                    }
                    match count {
                        0 => {
                            w.dirty_hubs = !0;
                            w.dirty_values = self.full;
                            return false;
                        }
                        1 => {
                            self.place_unchecked::<W>(w, at, x as u32);
                            // No longer empty: its stale bits must not count for the
                            // hub's other values.
                            empty[at / 64] &= !(1 << (at % 64));
                            progress = true;
                        }
                        _ => {}
                    }
                }
            }
            if !progress {
                return true;
            }
        }
    }

    /// The empty slot with the fewest candidates (ties: the lowest index), and its count;
    /// `None` when every slot is filled. Counts come from a bit-sliced adder over the
    /// boards.
    pub fn best_slot<const W: usize>(&self, w: &Work<M>) -> Option<(u32, u32)> {
        if w.left == 0 {
            return None;
        }
        let words = self.words_of::<W>();
        // Most often some slot has at most two candidates: saturating counts up to three,
        // without branches, find it.
        let mut at_least = [[0u64; 3]; 8];
        if words <= 8 {
            let at_least = &mut at_least[..words];
            for board in self.boards::<W>(w).chunks_exact(words) {
                for (t, &b) in at_least.iter_mut().zip(board) {
                    t[2] |= t[1] & b;
                    t[1] |= t[0] & b;
                    t[0] |= b;
                }
            }
            let open = self.open::<W>(w);
            for k in 0..3 {
                for (i, (t, &o)) in at_least.iter().zip(open).enumerate() {
                    let eq = match k {
                        0 => o & !t[0],
                        _ => o & t[k - 1] & !t[k],
                    };
                    if eq != 0 {
                        return Some(((i * 64) as u32 + eq.trailing_zeros(), k as u32));
                    }
                }
            }
        }
        let planes = (u32::BITS - (self.d as u32).leading_zeros()) as usize;
        // counts[p * words + i]: bit p of each slot's candidate count.
        let mut counts = [0u64; 64];
        let mut heap;
        let counts: &mut [u64] = if planes * words <= 64 {
            &mut counts[..planes * words]
        } else {
            heap = vec![0u64; planes * words];
            &mut heap
        };
        for board in self.boards::<W>(w).chunks_exact(words) {
            for (i, &b) in board.iter().enumerate() {
                let mut carry = b;
                for p in 0..planes {
                    if carry == 0 {
                        break;
                    }
                    let c = &mut counts[p * words + i];
                    let next = *c & carry;
                    *c ^= carry;
                    carry = next;
                }
            }
        }
        for k in 0..=self.d as u32 {
            for i in 0..words {
                let mut eq = self.open::<W>(w)[i];
                for p in 0..planes {
                    let plane = counts[p * words + i];
                    eq &= if k >> p & 1 == 1 { plane } else { !plane };
                }
                if eq != 0 {
                    return Some(((i * 64) as u32 + eq.trailing_zeros(), k));
                }
            }
        }
        None
    }

    /// The exactly-once hub and missing value with the fewest places left, when fewer
    /// than `than`.
    pub fn best_value<const W: usize>(&self, w: &Work<M>, than: u32) -> Option<(u32, u32, u32)> {
        // After propagation every missing value has two places or more.
        if than <= 2 {
            return None;
        }
        let mut best: Option<(u32, u32, u32)> = None;
        let mut bound = than;
        for h in 0..self.once as u32 {
            let mut missing = self.full & !self.hub::<W>(w, h as usize);
            while !missing.is_zero() {
                let x = missing.pop_first() as usize;
                let k: u32 = self
                    .members::<W>(h as usize)
                    .iter()
                    .zip(self.board::<W>(w, x))
                    .zip(self.open::<W>(w))
                    .map(|((&m, &bw), &o)| (bw & m & o).count_ones())
                    .sum();
                if k < bound {
                    bound = k;
                    best = Some((h, x as u32, k));
                }
            }
        }
        best
    }

    /// Calls `f(slot)` for each member of hub `h` that may still take `y`, in slot order.
    pub fn for_each_place<const W: usize>(
        &self,
        w: &Work<M>,
        h: u32,
        y: u32,
        mut f: impl FnMut(u32),
    ) {
        let members = self.members::<W>(h as usize);
        let board = self.board::<W>(w, y as usize);
        let open = self.open::<W>(w);
        for (j, ((&m, &bw), &o)) in members.iter().zip(board).zip(open).enumerate() {
            let mut places = bw & m & o;
            while places != 0 {
                f((j * 64) as u32 + places.trailing_zeros());
                places &= places - 1;
            }
        }
    }

    /// Calls `f(slot, value)` for every enabled placement in a slot at or after `from`,
    /// value by value, each value's slots in increasing order.
    pub fn for_each_move(&self, w: &Work<M>, from: usize, mut f: impl FnMut(u32, u32)) {
        for x in 0..self.d {
            for i in 0..self.words {
                let mut b = self.board::<DYN>(w, x)[i] & self.open::<DYN>(w)[i];
                if (i + 1) * 64 <= from {
                    continue;
                }
                if i * 64 < from {
                    b &= !0u64 << (from - i * 64);
                }
                while b != 0 {
                    let s = i * 64 + b.trailing_zeros() as usize;
                    b &= b - 1;
                    f(s as u32, x as u32);
                }
            }
        }
    }

    /// Enabled placements in a state: the sum of its slots' candidate counts.
    pub fn transitions(&self, w: &Work<M>) -> u64 {
        let open = self.open::<DYN>(w);
        self.boards::<DYN>(w)
            .chunks_exact(self.words)
            .flat_map(|board| board.iter().zip(open).map(|(&b, &open)| b & open))
            .map(|b| u64::from(b.count_ones()))
            .sum()
    }
}

/// A state of the slot engine with its indexes: per slot its value (0 = none, else the
/// value's index plus one), and one buffer of bits (one allocation, one copy) holding
/// per value the bitset of slots that may take it ("board"), meaningful for empty slots
/// only (a filled slot keeps its bits: every reader masks with the empty slots, which is
/// cheaper than clearing the slot from every board at each placement); then the bitset of
/// empty slots; then per hub its mask; then per value the first 64 exactly-once hubs
/// that lack it. [`Tables`] knows where each part starts.
#[derive(Debug, PartialEq, Eq)]
pub struct Work<M: Mask> {
    pub vals: Vec<u8>,
    bits: Vec<u64>,
    /// The number of empty slots.
    pub left: u32,
    /// The highest slot placed by a transition (orderly generation), `u32::MAX` if none.
    pub last: u32,
    /// Values whose places changed in every exactly-once hub since the last scan.
    pub dirty_values: M,
    /// Exactly-once hubs (by position in `once`, the first 64) whose every value's places
    /// may have changed since the last scan.
    pub dirty_hubs: u64,
}

impl<M: Mask> Clone for Work<M> {
    fn clone(&self) -> Self {
        Work {
            vals: self.vals.clone(),
            bits: self.bits.clone(),
            left: self.left,
            last: self.last,
            dirty_values: self.dirty_values,
            dirty_hubs: self.dirty_hubs,
        }
    }

    /// Reuses the buffers: the hot path clones into spent states.
    fn clone_from(&mut self, src: &Self) {
        self.vals.clone_from(&src.vals);
        self.bits.clone_from(&src.bits);
        self.left = src.left;
        self.last = src.last;
        self.dirty_values = src.dirty_values;
        self.dirty_hubs = src.dirty_hubs;
    }
}
