//! Placing a value, and propagating the moves it forces.

use super::super::mask::Mask;
use super::{Tables, Work, DYN, STACK_WORDS, TRACKED_ONCE, WORD_BITS};

impl<M: Mask> Tables<M> {
    /// Places `y` in `s` without checking that it is a candidate (givens, and rebuilding a
    /// state from its packed form).
    #[inline]
    pub fn place_unchecked<const W: usize>(&self, w: &mut Work<M>, s: usize, y: u32) {
        let words = self.words_of::<W>();
        let (i, b) = (s / WORD_BITS, 1u64 << (s % WORD_BITS));
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
        if self.has_groups() {
            self.touch_groups_placing::<W>(w, s, y);
        }
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
        self.place_through_tables::<W>(w, s, y);
    }

    /// The rest of placing `y` in `s` where some hub `s` writes blocks more than the value
    /// held: each value it blocks is taken from the hub's readers, value by value.
    #[inline(never)]
    fn place_through_tables<const W: usize>(&self, w: &mut Work<M>, s: usize, y: u32) {
        let words = self.words_of::<W>();
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
                if h < self.once.min(TRACKED_ONCE) {
                    w.bits[self.lacks_at::<W>(x)] &= !(1 << h);
                }
                for (bw, &r) in w.bits[x * words..(x + 1) * words].iter_mut().zip(readers) {
                    *bw &= !r;
                }
            }
        }
    }

    /// Takes `x` from the candidates of the empty slot `s`: a pruning found outside the
    /// tables (a `forbid` pattern's forward check, see [`super::super::forbid`]).
    pub fn exclude<const W: usize>(&self, w: &mut Work<M>, s: usize, x: u32) {
        let words = self.words_of::<W>();
        let (i, b) = (s / WORD_BITS, 1u64 << (s % WORD_BITS));
        let word = &mut w.bits[x as usize * words + i];
        if *word & b != 0 {
            *word &= !b;
            w.dirty_values |= M::bit(x);
            self.touch_groups::<W>(w, s);
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
        let (i, b) = (s / WORD_BITS, 1u64 << (s % WORD_BITS));
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
    pub(super) fn count_once_twice<const W: usize>(
        &self,
        w: &Work<M>,
        once: &mut [u64],
        twice: &mut [u64],
    ) {
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

    /// Applies forced moves until none is left: slots with one candidate, values that
    /// only one member of an exactly-once hub can still take, and values no content of a
    /// group NAC's group allows (see [`super::super::group`]). False on a dead state (a slot
    /// without candidates, or a value no member of an exactly-once hub can take).
    pub fn propagate<const W: usize>(&self, w: &mut Work<M>) -> bool {
        let words = self.words_of::<W>();
        let mut once = [0u64; STACK_WORDS];
        let mut twice = [0u64; STACK_WORDS];
        let mut empty = [0u64; STACK_WORDS];
        let mut heap_once;
        let mut heap_twice;
        let mut heap_empty;
        let (once, twice, empty): (&mut [u64], &mut [u64], &mut [u64]) = if words <= STACK_WORDS {
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
                    let s = i * WORD_BITS + singles.trailing_zeros() as usize;
                    singles &= singles - 1;
                    // Its one candidate, read from every board without a branch (the
                    // loop's exit would be hard to predict).
                    let (mut x, mut found) = (0, 0);
                    for (v, board) in self.boards::<W>(w).chunks_exact(words).enumerate() {
                        let has = (board[i] >> (s % WORD_BITS)) as usize & 1;
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
            if self.once < TRACKED_ONCE {
                scan &= (1 << self.once) - 1;
            }
            let mut untracked = TRACKED_ONCE..self.once;
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
                let every = h >= TRACKED_ONCE || hubs & (1 << h) != 0;
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
                    let board = self.board::<W>(w, x);
                    // Counted without a branch a word; the place found only for a single.
                    let count: u32 = (empty.iter().zip(board))
                        .map(|(&m, &bw)| (bw & m).count_ones())
                        .sum();
                    match count {
                        0 => {
                            w.dirty_hubs = !0;
                            w.dirty_values = self.full;
                            return false;
                        }
                        1 => {
                            let (j, c) = (empty.iter().zip(board))
                                .map(|(&m, &bw)| bw & m)
                                .enumerate()
                                .find(|&(_, c)| c != 0)
                                .unwrap_or_default();
                            let at = j * WORD_BITS + c.trailing_zeros() as usize;
                            self.place_unchecked::<W>(w, at, x as u32);
                            // No longer empty: its stale bits must not count for the
                            // hub's other values.
                            empty[at / WORD_BITS] &= !(1 << (at % WORD_BITS));
                            progress = true;
                        }
                        _ => {}
                    }
                }
            }
            if progress {
                continue;
            }
            if !self.arc_slots.is_empty() && self.propagate_arcs::<W>(w) {
                continue;
            }
            // Last, the groups whose content changed: the costliest step, on the fewest
            // candidates.
            if !self.has_groups() {
                return true;
            }
            match self.propagate_groups::<W>(w) {
                None => return false,
                Some(true) => {}
                Some(false) => return true,
            }
        }
    }
}
