//! Branching: the slot or exactly-once value with the fewest choices, and a state's moves.

use super::super::mask::Mask;
use super::{Tables, Work, DYN, STACK_WORDS, WORD_BITS};

impl<M: Mask> Tables<M> {
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
        let mut at_least = [[0u64; 3]; STACK_WORDS];
        if words <= STACK_WORDS {
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
                        return Some(((i * WORD_BITS) as u32 + eq.trailing_zeros(), k as u32));
                    }
                }
            }
        }
        let planes = (u32::BITS - (self.d as u32).leading_zeros()) as usize;
        // counts[p * words + i]: bit p of each slot's candidate count. A count
        // needs at most 8 bits (at most 128 values), so 8 planes of stacked words.
        let mut counts = [0u64; 8 * STACK_WORDS];
        let mut heap;
        let counts: &mut [u64] = if planes * words <= counts.len() {
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
                    return Some(((i * WORD_BITS) as u32 + eq.trailing_zeros(), k));
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
                f((j * WORD_BITS) as u32 + places.trailing_zeros());
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
                if (i + 1) * WORD_BITS <= from {
                    continue;
                }
                if i * WORD_BITS < from {
                    b &= !0u64 << (from - i * WORD_BITS);
                }
                while b != 0 {
                    let s = i * WORD_BITS + b.trailing_zeros() as usize;
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
