use crate::bits::LiteralType;

// Patched (vendor/README.md): the published type kept one `bool` per bit and ran every
// operation bit by bit. This one packs the bits into 64-bit words: bit `i` is bit `i % 8` of
// `bytes[i / 8]`. The storage stays `[u8; N]` (the size the published `[bool; N]` had),
// because an array of `(N + 63) / 64` words needs generic const expressions; only the first
// `(N + 7) / 8` bytes are used. Invariant: every bit at or above `N`, and every byte past the
// used ones, is zero, so the derived `PartialEq` and `Hash` compare values.
#[derive(Debug, Clone, Copy, PartialEq, Hash)]
pub struct BitVec<const N: usize> {
    bytes: [u8; N],
}

impl<const N: usize> From<[bool; N]> for BitVec<N> {
    fn from(x: [bool; N]) -> Self {
        let mut ret = Self::zero();
        for (i, b) in x.iter().enumerate() {
            if *b {
                ret.bytes[i / 8] |= 1 << (i % 8);
            }
        }
        ret
    }
}

impl<const N: usize> BitVec<N> {
    const NBYTES: usize = (N + 7) / 8;
    const NWORDS: usize = (N + 63) / 64;

    #[inline(always)]
    fn zero() -> Self {
        BitVec { bytes: [0; N] }
    }

    /// The mask of the valid bits of the top word.
    #[inline(always)]
    fn top_mask() -> u64 {
        if N % 64 == 0 {
            !0
        } else {
            (1_u64 << (N % 64)) - 1
        }
    }

    /// Word `i` (bits `64 i .. 64 i + 63`); zero past the top.
    #[inline(always)]
    pub(crate) fn word(&self, i: usize) -> u64 {
        if i >= Self::NWORDS {
            return 0;
        }
        let lo = i * 8;
        if lo + 8 <= N {
            // Bytes past the used ones are zero, so a whole word can always be read when the
            // storage has it.
            let mut buf = [0_u8; 8];
            buf.copy_from_slice(&self.bytes[lo..lo + 8]);
            return u64::from_le_bytes(buf);
        }
        let hi = (lo + 8).min(Self::NBYTES);
        let mut buf = [0_u8; 8];
        buf[..hi - lo].copy_from_slice(&self.bytes[lo..hi]);
        u64::from_le_bytes(buf)
    }

    /// The 64 bits from bit `at` up (zero past the top).
    #[inline(always)]
    pub(crate) fn word_at(&self, at: usize) -> u64 {
        if at >= N {
            return 0;
        }
        let (q, r) = (at / 64, at % 64);
        let lo = self.word(q) >> r;
        if r == 0 {
            lo
        } else {
            lo | self.word(q + 1) << (64 - r)
        }
    }

    /// Bits `at .. at + M` as a vector of `M` bits (zero past the top).
    #[inline(always)]
    pub(crate) fn extract<const M: usize>(&self, at: usize) -> BitVec<M> {
        BitVec::<M>::from_words(|i| self.word_at(at + 64 * i))
    }

    #[inline(always)]
    fn set_word(&mut self, i: usize, w: u64) {
        let w = if i + 1 == Self::NWORDS {
            w & Self::top_mask()
        } else {
            w
        };
        let lo = i * 8;
        if lo + 8 <= N {
            self.bytes[lo..lo + 8].copy_from_slice(&w.to_le_bytes());
            return;
        }
        let hi = (lo + 8).min(Self::NBYTES);
        self.bytes[lo..hi].copy_from_slice(&w.to_le_bytes()[..hi - lo]);
    }

    /// The vector whose word `i` is `f(i)` (cut to `N` bits).
    #[inline(always)]
    pub(crate) fn from_words<F: Fn(usize) -> u64>(f: F) -> Self {
        let mut ret = Self::zero();
        for i in 0..Self::NWORDS {
            ret.set_word(i, f(i));
        }
        ret
    }

    /// The vector with every bit set.
    pub fn ones() -> Self {
        Self::from_words(|_| !0)
    }

    pub fn to_u128(&self) -> u128 {
        assert!(N <= 128);
        self.word(0) as u128 | (self.word(1) as u128) << 64
    }

    pub fn all(&self) -> bool {
        (0..Self::NWORDS).all(|i| {
            self.word(i)
                == if i + 1 == Self::NWORDS {
                    Self::top_mask()
                } else {
                    !0
                }
        })
    }

    pub fn any(&self) -> bool {
        (0..Self::NWORDS).any(|i| self.word(i) != 0)
    }

    pub fn xor(&self) -> bool {
        (0..Self::NWORDS).fold(0, |acc, i| acc ^ self.word(i).count_ones()) & 1 == 1
    }

    pub fn get_bit(&self, ndx: usize) -> bool {
        assert!(ndx < N);
        self.bytes[ndx / 8] & (1 << (ndx % 8)) != 0
    }

    pub fn replace_bit(&self, ndx: usize, val: bool) -> BitVec<N> {
        assert!(ndx < N);
        let mut t = *self;
        if val {
            t.bytes[ndx / 8] |= 1 << (ndx % 8);
        } else {
            t.bytes[ndx / 8] &= !(1 << (ndx % 8));
        }
        t
    }

    pub fn resize<const M: usize>(&self) -> BitVec<M> {
        BitVec::<M>::from_words(|i| self.word(i))
    }

    #[inline(always)]
    fn wordwise<F: Fn(u64, u64) -> u64>(&self, rhs: &Self, op: F) -> Self {
        Self::from_words(|i| op(self.word(i), rhs.word(i)))
    }
}

impl<const N: usize> std::ops::Shr<LiteralType> for BitVec<N> {
    type Output = BitVec<N>;

    fn shr(self, rhs: LiteralType) -> Self::Output {
        if rhs >= N as LiteralType {
            return Self::zero();
        }
        let q = (rhs / 64) as usize;
        let r = (rhs % 64) as u32;
        Self::from_words(|i| {
            let lo = self.word(i + q) >> r;
            if r == 0 {
                lo
            } else {
                lo | self.word(i + q + 1) << (64 - r)
            }
        })
    }
}

impl<const N: usize, const M: usize> std::ops::Shr<BitVec<M>> for BitVec<N> {
    type Output = BitVec<N>;

    fn shr(self, rhs: BitVec<M>) -> Self::Output {
        let rhs: LiteralType = rhs.into();
        self >> rhs
    }
}

impl<const N: usize> std::ops::Shl<LiteralType> for BitVec<N> {
    type Output = BitVec<N>;

    fn shl(self, rhs: LiteralType) -> Self::Output {
        if rhs >= N as LiteralType {
            return Self::zero();
        }
        let q = (rhs / 64) as usize;
        let r = (rhs % 64) as u32;
        Self::from_words(|i| {
            if i < q {
                return 0;
            }
            let hi = self.word(i - q) << r;
            if r == 0 || i == q {
                hi
            } else {
                hi | self.word(i - q - 1) >> (64 - r)
            }
        })
    }
}

impl<const N: usize, const M: usize> std::ops::Shl<BitVec<M>> for BitVec<N> {
    type Output = BitVec<N>;

    fn shl(self, rhs: BitVec<M>) -> Self::Output {
        let rhs: LiteralType = rhs.into();
        self << rhs
    }
}

impl<const N: usize> std::ops::BitOr for BitVec<N> {
    type Output = BitVec<N>;

    fn bitor(self, rhs: Self) -> Self::Output {
        self.wordwise(&rhs, |a, b| a | b)
    }
}

impl<const N: usize> std::ops::BitAnd for BitVec<N> {
    type Output = BitVec<N>;

    fn bitand(self, rhs: Self) -> Self::Output {
        self.wordwise(&rhs, |a, b| a & b)
    }
}

impl<const N: usize> std::ops::BitXor for BitVec<N> {
    type Output = BitVec<N>;

    fn bitxor(self, rhs: Self) -> Self::Output {
        self.wordwise(&rhs, |a, b| a ^ b)
    }
}

impl<const N: usize> std::ops::Not for BitVec<N> {
    type Output = BitVec<N>;

    fn not(self) -> Self::Output {
        Self::from_words(|i| !self.word(i))
    }
}

impl<const N: usize> std::ops::Add<BitVec<N>> for BitVec<N> {
    type Output = BitVec<N>;

    fn add(self, rhs: BitVec<N>) -> Self::Output {
        let mut ret = Self::zero();
        let mut carry = false;
        for i in 0..Self::NWORDS {
            let (s1, c1) = self.word(i).overflowing_add(rhs.word(i));
            let (s2, c2) = s1.overflowing_add(carry as u64);
            ret.set_word(i, s2);
            carry = c1 | c2;
        }
        ret
    }
}

impl<const N: usize> std::ops::Sub<BitVec<N>> for BitVec<N> {
    type Output = BitVec<N>;

    fn sub(self, rhs: BitVec<N>) -> Self::Output {
        let mut ret = Self::zero();
        let mut borrow = false;
        for i in 0..Self::NWORDS {
            let (d1, b1) = self.word(i).overflowing_sub(rhs.word(i));
            let (d2, b2) = d1.overflowing_sub(borrow as u64);
            ret.set_word(i, d2);
            borrow = b1 | b2;
        }
        ret
    }
}

impl<const N: usize> std::cmp::PartialOrd for BitVec<N> {
    fn partial_cmp(&self, other: &BitVec<N>) -> Option<std::cmp::Ordering> {
        for i in (0..Self::NWORDS).rev() {
            match self.word(i).cmp(&other.word(i)) {
                std::cmp::Ordering::Equal => {}
                o => return Some(o),
            }
        }
        Some(std::cmp::Ordering::Equal)
    }
}

// From an unsigned integer: its low N bits.
macro_rules! define_vec_from_uint {
    ($name:ident) => {
        impl<const N: usize> From<$name> for BitVec<N> {
            fn from(x: $name) -> Self {
                let x = x as u128;
                Self::from_words(|i| match i {
                    0 => x as u64,
                    1 => (x >> 64) as u64,
                    _ => 0,
                })
            }
        }
    };
}

// From a signed integer: sign-extended to N bits (as the published bit loop did).
macro_rules! define_vec_from_int {
    ($name:ident) => {
        impl<const N: usize> From<$name> for BitVec<N> {
            fn from(x: $name) -> Self {
                let x = x as i128;
                Self::from_words(|i| match i {
                    0 => x as u64,
                    1 => (x >> 64) as u64,
                    _ => (x >> 127) as u64,
                })
            }
        }
    };
}

define_vec_from_uint!(u8);
define_vec_from_uint!(u16);
define_vec_from_uint!(u32);
define_vec_from_uint!(u64);
define_vec_from_uint!(u128);
define_vec_from_uint!(usize);
define_vec_from_int!(i8);
define_vec_from_int!(i16);
define_vec_from_int!(i32);
define_vec_from_int!(i64);
define_vec_from_int!(i128);

// To an unsigned integer: the low bits that fit (as the published shift loop did).
macro_rules! define_uint_from_vec {
    ($name:ident) => {
        impl<const N: usize> From<BitVec<N>> for $name {
            fn from(t: BitVec<N>) -> Self {
                (t.word(0) as u128 | (t.word(1) as u128) << 64) as $name
            }
        }
    };
}

// To a signed integer: the two's complement value of the N bits.
macro_rules! define_int_from_vec {
    ($name: ident, $width: expr) => {
        impl<const N: usize> From<BitVec<N>> for $name {
            fn from(t: BitVec<N>) -> Self {
                assert!(N <= $width);
                let raw = t.word(0) as u128 | (t.word(1) as u128) << 64;
                let shift = 128 - N as u32;
                (((raw << shift) as i128) >> shift) as $name
            }
        }
    };
}

define_uint_from_vec!(u8);
define_uint_from_vec!(u16);
define_uint_from_vec!(u32);
define_uint_from_vec!(u64);
define_uint_from_vec!(u128);
define_uint_from_vec!(usize);

define_int_from_vec!(i8, 8);
define_int_from_vec!(i16, 16);
define_int_from_vec!(i32, 32);
define_int_from_vec!(i64, 64);
define_int_from_vec!(i128, 128);

#[cfg(test)]
mod tests {
    use std::num::Wrapping;

    use super::BitVec;

    #[test]
    fn or_test() {
        let a: BitVec<32> = 45_u32.into();
        let b: BitVec<32> = 10395_u32.into();
        let c = a | b;
        let c_u32: u32 = c.into();
        assert_eq!(c_u32, 45_u32 | 10395_u32)
    }
    #[test]
    fn and_test() {
        let a: BitVec<32> = 45_u32.into();
        let b: BitVec<32> = 10395_u32.into();
        let c = a & b;
        let c_u32: u32 = c.into();
        assert_eq!(c_u32, 45_u32 & 10395_u32)
    }
    #[test]
    fn xor_test() {
        let a: BitVec<32> = 45_u32.into();
        let b: BitVec<32> = 10395_u32.into();
        let c = a ^ b;
        let c_u32: u32 = c.into();
        assert_eq!(c_u32, 45_u32 ^ 10395_u32)
    }
    #[test]
    fn not_test() {
        let a: BitVec<32> = 45_u32.into();
        let c = !a;
        let c_u32: u32 = c.into();
        assert_eq!(c_u32, !45_u32);
    }
    #[test]
    fn shr_test() {
        let a: BitVec<32> = 10395_u32.into();
        let c = a >> 4;
        let c_u32: u32 = c.into();
        assert_eq!(c_u32, 10395_u32 >> 4);
    }
    #[test]
    fn shr_test_pair() {
        let a: BitVec<32> = 10395_u32.into();
        let b: BitVec<4> = 4_u32.into();
        let c = a >> b;
        let c_u32: u32 = c.into();
        assert_eq!(c_u32, 10395_u32 >> 4);
    }
    #[test]
    fn shl_test() {
        let a: BitVec<32> = 10395_u32.into();
        let c = a << 24;
        let c_u32: u32 = c.into();
        assert_eq!(c_u32, 10395_u32 << 24);
    }
    #[test]
    fn shl_test_pair() {
        let a: BitVec<32> = 10395_u32.into();
        let b: BitVec<4> = 4_u32.into();
        let c = a << b;
        let c_u32: u32 = c.into();
        assert_eq!(c_u32, 10395_u32 << 4);
    }
    #[test]
    fn add_works() {
        let a: BitVec<32> = 10234_u32.into();
        let b: BitVec<32> = 19423_u32.into();
        let c = a + b;
        let c_u32: u32 = c.into();
        assert_eq!(c_u32, 10234_u32 + 19423_u32);
    }
    #[test]
    fn add_works_with_overflow() {
        let x = 2_042_102_334_u32;
        let y = 2_942_142_512_u32;
        let a: BitVec<32> = x.into();
        let b: BitVec<32> = y.into();
        let c = a + b;
        let c_u32: u32 = c.into();
        assert_eq!(Wrapping(c_u32), Wrapping(x) + Wrapping(y));
    }
    #[test]
    fn sub_works() {
        let x = 2_042_102_334_u32;
        let y = 2_942_142_512_u32;
        let a: BitVec<32> = x.into();
        let b: BitVec<32> = y.into();
        let c = a - b;
        let c_u32: u32 = c.into();
        assert_eq!(Wrapping(c_u32), Wrapping(x) - Wrapping(y));
    }
    #[test]
    fn eq_works() {
        let x = 2_032_142_351_u32;
        let y = 2_942_142_512_u32;
        let a: BitVec<32> = x.into();
        let b: BitVec<32> = x.into();
        let c: BitVec<32> = y.into();
        assert_eq!(a, b);
        assert_ne!(a, c)
    }
    #[test]
    fn all_works() {
        let a: BitVec<48> = 0xFFFF_FFFF_FFFF_u64.into();
        assert!(a.all());
        assert!(a.any());
    }
}
