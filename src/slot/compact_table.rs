//! A compact table (after Demeulenaere et al., CP 2016): the assignments a few positions may
//! take together, listed once and kept as one bitset of tuples per position and value, so
//! that the values some listed assignment within the candidates still takes come out of
//! word operations instead of a search. Stateless: the tuples still valid are found anew
//! at each call (a few words for the lines it serves), not kept reversibly from state to
//! state.

/// Listed assignments of `positions` positions over `d` values.
#[derive(Clone, Debug)]
pub struct CompactTable {
    positions: usize,
    d: usize,
    /// Tuples, and words of a tuple bitset.
    count: usize,
    words: usize,
    /// The tuples with value `v` at position `p`:
    /// `supports[(p * d + v) * words..][..words]`.
    supports: Box<[u64]>,
    /// Per position, the values some tuple has there.
    values: Box<[u128]>,
}

/// Buffers a [`CompactTable::filter`] reuses.
#[derive(Clone, Debug, Default)]
pub struct TableScratch {
    valid: Vec<u64>,
    any: Vec<u64>,
}

impl CompactTable {
    /// The table of `tuples`, each `positions` values below `d` (at most 128), one after
    /// another.
    pub fn new(positions: usize, d: usize, tuples: &[u8]) -> CompactTable {
        debug_assert!(d <= 128 && positions > 0 && tuples.len().is_multiple_of(positions));
        let count = tuples.len() / positions;
        let words = count.div_ceil(64).max(1);
        let mut supports = vec![0u64; positions * d * words].into_boxed_slice();
        let mut values = vec![0u128; positions].into_boxed_slice();
        for (k, tuple) in tuples.chunks_exact(positions).enumerate() {
            for (p, &v) in tuple.iter().enumerate() {
                let v = usize::from(v);
                supports[(p * d + v) * words + k / 64] |= 1u64 << (k % 64);
                values[p] |= 1u128 << v;
            }
        }
        CompactTable {
            positions,
            d,
            count,
            words,
            supports,
            values,
        }
    }

    /// The tuples listed.
    pub fn tuples(&self) -> usize {
        self.count
    }

    /// The bytes the table holds.
    pub fn bytes(&self) -> usize {
        self.supports.len() * 8 + self.values.len() * 16
    }

    fn support(&self, p: usize, v: u32) -> &[u64] {
        let at = (p * self.d + v as usize) * self.words;
        &self.supports[at..at + self.words]
    }

    /// Narrows `cands` (per position, the values it may take) to the values some tuple
    /// within all of them takes; false when no tuple is within them.
    pub fn filter(&self, cands: &mut [u128], scratch: &mut TableScratch) -> bool {
        debug_assert_eq!(cands.len(), self.positions);
        if self.count == 0 {
            return false;
        }
        let TableScratch { valid, any } = scratch;
        valid.clear();
        valid.resize(self.words, !0);
        any.resize(self.words, 0);
        for (p, &c) in cands.iter().enumerate() {
            let c = c & self.values[p];
            if c == self.values[p] {
                // Every tuple has one of these values here: nothing to take.
                continue;
            }
            any.fill(0);
            for_each_bit(c, |v| {
                for (a, &s) in any.iter_mut().zip(self.support(p, v)) {
                    *a |= s;
                }
            });
            let mut left = 0;
            for (t, &a) in valid.iter_mut().zip(any.iter()) {
                *t &= a;
                left |= *t;
            }
            if left == 0 {
                return false;
            }
        }
        for (p, c) in cands.iter_mut().enumerate() {
            let mut kept = 0;
            for_each_bit(*c & self.values[p], |v| {
                if valid
                    .iter()
                    .zip(self.support(p, v))
                    .any(|(t, s)| t & s != 0)
                {
                    kept |= 1u128 << v;
                }
            });
            *c = kept;
        }
        true
    }
}

fn for_each_bit(mut bits: u128, mut f: impl FnMut(u32)) {
    while bits != 0 {
        f(bits.trailing_zeros());
        bits &= bits - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against every tuple, on random tables and candidates.
    #[test]
    fn kept_values_are_those_of_some_tuple_within_the_candidates() {
        let mut below = crate::slot::xorshift(0x0074_6162_6c65);
        let (mut narrowed, mut emptied) = (0, 0);
        for _ in 0..2000 {
            let positions = 1 + below(4) as usize;
            let d = 1 + below(5) as usize;
            // Sometimes more than one word of tuples.
            let most = if below(4) == 0 { 200 } else { 12 };
            let count = below(most) as usize;
            let tuples: Vec<u8> = (0..count * positions)
                .map(|_| below(d as u64) as u8)
                .collect();
            let table = CompactTable::new(positions, d, &tuples);
            let cands: Vec<u128> = (0..positions)
                .map(|_| below(1 << d) as u128 | (below(2) as u128 * (1 << d)))
                .collect();
            let mut want = vec![0u128; positions];
            let mut some = false;
            for tuple in tuples.chunks_exact(positions) {
                if tuple.iter().zip(&cands).all(|(&v, c)| c >> v & 1 == 1) {
                    some = true;
                    for (w, &v) in want.iter_mut().zip(tuple) {
                        *w |= 1 << v;
                    }
                }
            }
            let mut got = cands.clone();
            let kept = table.filter(&mut got, &mut TableScratch::default());
            assert_eq!(kept, some, "tuples {tuples:?} cands {cands:?}");
            if kept {
                assert_eq!(got, want, "tuples {tuples:?} cands {cands:?}");
                narrowed += usize::from(got != cands);
            } else {
                emptied += 1;
            }
        }
        assert!(
            narrowed > 300 && emptied > 300,
            "{narrowed} narrowed, {emptied} emptied"
        );
    }
}
