//! Arc consistency over relation hubs (thermometers, whispers, dots): a value every
//! candidate of an empty writer blocks is taken from the hub's readers before the writer
//! is placed, so that the branching sees it.
//!
//! Sound where the focus runs: its models block symmetrically (see
//! [`super::super::model::SlotModel::focus_sound`]), so a full state holds no pair one
//! of whose values blocks the other, whichever was placed first; the writer will hold one
//! of its candidates, and each blocks the value in every reader.

use super::super::mask::Mask;
use super::{Tables, Work, STACK_WORDS, WORD_BITS};

impl<M: Mask> Tables<M> {
    /// Takes from each relation hub's readers the values every candidate of its empty
    /// writer blocks. Whether some candidate was taken.
    #[inline(never)]
    pub(super) fn propagate_arcs<const W: usize>(&self, w: &mut Work<M>) -> bool {
        let words = self.words_of::<W>();
        let mut open = [0u64; STACK_WORDS];
        let mut heap;
        let open: &mut [u64] = if words <= STACK_WORDS {
            &mut open[..words]
        } else {
            heap = vec![0u64; words];
            &mut heap
        };
        open.copy_from_slice(self.open::<W>(w));
        let mut changed = false;
        for (k, &a) in self.arc_slots.iter().enumerate() {
            let a = a as usize;
            let (i, b) = (a / WORD_BITS, 1u64 << (a % WORD_BITS));
            if open[i] & b == 0 {
                continue;
            }
            let cands = self.cand::<W>(w, a);
            for &(h, row) in &self.arcs[self.arc_start[k] as usize..self.arc_start[k + 1] as usize]
            {
                let mut blocked = self.full;
                let mut left = cands;
                while !left.is_zero() && !blocked.is_zero() {
                    blocked &= self.table[row as usize + left.pop_first() as usize];
                }
                let readers = self.readers::<W>(h as usize);
                while !blocked.is_zero() {
                    let x = blocked.pop_first() as usize;
                    for j in 0..words {
                        let mut gone = w.bits[x * words + j] & readers[j] & open[j];
                        if j == i {
                            gone &= !b;
                        }
                        if gone == 0 {
                            continue;
                        }
                        w.bits[x * words + j] &= !gone;
                        changed = true;
                        w.dirty_values |= M::bit(x as u32);
                        while gone != 0 {
                            let s = j * WORD_BITS + gone.trailing_zeros() as usize;
                            gone &= gone - 1;
                            self.touch_groups::<W>(w, s);
                        }
                    }
                }
            }
        }
        changed
    }
}
