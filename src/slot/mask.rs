//! Bit sets over the value domain, one bit per value; the solver is generic over the width.

use std::fmt::Debug;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

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
    const BITS: u32;
    fn bit(i: u32) -> Self;
    fn count(self) -> u32;
    /// The lowest set bit's index (undefined on zero).
    fn first(self) -> u32;
    fn from_u128(m: u128) -> Self;
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
            const BITS: u32 = <$t>::BITS;
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
        }
    };
}

mask!(u16);
mask!(u32);
mask!(u64);
mask!(u128);
