//! Bit sets over the value domain, one bit per value; the solver is generic over the width.

use std::fmt::Debug;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

/// The values of the value set `set` (bit x: value x), lowest first: one step per value
/// held, not per value of the domain.
pub fn values_of(set: u128) -> impl Iterator<Item = u8> {
    let mut left = set;
    std::iter::from_fn(move || {
        (left != 0).then(|| {
            let x = left.trailing_zeros() as u8;
            left &= left - 1;
            x
        })
    })
}

pub trait Mask:
    Copy
    + Eq
    + Debug
    + Default
    + Send
    + Sync
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + 'static
{
    const ZERO: Self;
    /// 64-bit words one mask takes in a state's buffer.
    const WORDS: usize;
    /// The mask stored at `words[i..i + WORDS]`.
    fn load(words: &[u64], i: usize) -> Self;
    /// Stores the mask at `words[i..i + WORDS]`.
    fn store(self, words: &mut [u64], i: usize);
    fn bit(i: u32) -> Self;
    fn count(self) -> u32;
    /// The lowest set bit's index (undefined on zero).
    fn first(self) -> u32;
    fn from_u128(m: u128) -> Self;
    fn to_u128(self) -> u128;
    fn is_zero(self) -> bool {
        self == Self::ZERO
    }
    /// Removes and returns the lowest set bit's index.
    fn pop_first(&mut self) -> u32 {
        let i = self.first();
        *self &= !Self::bit(i);
        i
    }
}

macro_rules! mask {
    ($t:ty) => {
        impl Mask for $t {
            const ZERO: Self = 0;
            const WORDS: usize = 1;
            #[inline]
            fn load(words: &[u64], i: usize) -> Self {
                words[i] as $t
            }
            #[inline]
            fn store(self, words: &mut [u64], i: usize) {
                words[i] = self as u64;
            }
            #[inline]
            fn bit(i: u32) -> Self {
                1 << i
            }
            #[inline]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline]
            fn first(self) -> u32 {
                self.trailing_zeros()
            }
            #[inline]
            fn from_u128(m: u128) -> Self {
                m as $t
            }
            #[inline]
            fn to_u128(self) -> u128 {
                u128::from(self)
            }
        }
    };
}

mask!(u16);
mask!(u32);
mask!(u64);

impl Mask for u128 {
    const ZERO: Self = 0;
    const WORDS: usize = 2;
    #[inline]
    fn load(words: &[u64], i: usize) -> Self {
        u128::from(words[i]) | u128::from(words[i + 1]) << 64
    }
    #[inline]
    fn store(self, words: &mut [u64], i: usize) {
        words[i] = self as u64;
        words[i + 1] = (self >> 64) as u64;
    }
    #[inline]
    fn bit(i: u32) -> Self {
        1 << i
    }
    #[inline]
    fn count(self) -> u32 {
        self.count_ones()
    }
    #[inline]
    fn first(self) -> u32 {
        self.trailing_zeros()
    }
    #[inline]
    fn from_u128(m: u128) -> Self {
        m
    }
    #[inline]
    fn to_u128(self) -> u128 {
        self
    }
}
