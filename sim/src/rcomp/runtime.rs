// The operations of a model compiled by `nt_sim::rcomp` (this file is compiled into nt-sim
// for its tests and copied verbatim into every generated model).
//
// A value of up to 64 bits is a `u64`; a wider one a `[u64; K]`, least significant word
// first. Every value keeps the bits above its width at 0; the generated code masks after
// each operation that can set them (not, add, subtract, multiply, negate, shift left).
#![allow(dead_code)]

#[inline(always)]
pub fn nshl(x: u64, n: u64) -> u64 {
    if n < 64 {
        x << n
    } else {
        0
    }
}

#[inline(always)]
pub fn nshr(x: u64, n: u64) -> u64 {
    if n < 64 {
        x >> n
    } else {
        0
    }
}

#[inline(always)]
pub fn nmask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Bits `off .. off + w` of `x` (w <= 64), 0 past bit 63.
#[inline(always)]
pub fn nget(x: u64, off: u64, w: u32) -> u64 {
    nshr(x, off) & nmask(w)
}

/// `x` with bits `off .. off + w` replaced by `v` (bits past 63 dropped).
#[inline(always)]
pub fn nset(x: u64, off: u64, w: u32, v: u64) -> u64 {
    let m = nshl(nmask(w), off);
    (x & !m) | (nshl(v, off) & m)
}

#[inline(always)]
pub fn wfrom<const K: usize>(x: u64) -> [u64; K] {
    let mut r = [0u64; K];
    r[0] = x;
    r
}

/// Truncates or zero-extends by whole words (the caller masks to the bit width).
#[inline(always)]
pub fn wresize<const A: usize, const B: usize>(x: [u64; A]) -> [u64; B] {
    let mut r = [0u64; B];
    let n = if A < B { A } else { B };
    r[..n].copy_from_slice(&x[..n]);
    r
}

/// Clears the bits at and above `w`.
#[inline(always)]
pub fn wmask<const K: usize>(mut x: [u64; K], w: u32) -> [u64; K] {
    for (i, v) in x.iter_mut().enumerate() {
        let lo = i as u32 * 64;
        if lo >= w {
            *v = 0;
        } else if w - lo < 64 {
            *v &= (1u64 << (w - lo)) - 1;
        }
    }
    x
}

#[inline(always)]
pub fn wand<const K: usize>(a: [u64; K], b: [u64; K]) -> [u64; K] {
    let mut r = a;
    for i in 0..K {
        r[i] &= b[i];
    }
    r
}

#[inline(always)]
pub fn wor<const K: usize>(a: [u64; K], b: [u64; K]) -> [u64; K] {
    let mut r = a;
    for i in 0..K {
        r[i] |= b[i];
    }
    r
}

#[inline(always)]
pub fn wxor<const K: usize>(a: [u64; K], b: [u64; K]) -> [u64; K] {
    let mut r = a;
    for i in 0..K {
        r[i] ^= b[i];
    }
    r
}

#[inline(always)]
pub fn wnot<const K: usize>(a: [u64; K]) -> [u64; K] {
    let mut r = a;
    for v in r.iter_mut() {
        *v = !*v;
    }
    r
}

#[inline(always)]
pub fn wadd<const K: usize>(a: [u64; K], b: [u64; K]) -> [u64; K] {
    let mut r = [0u64; K];
    let mut c = 0u64;
    for i in 0..K {
        let (s1, o1) = a[i].overflowing_add(b[i]);
        let (s2, o2) = s1.overflowing_add(c);
        r[i] = s2;
        c = (o1 | o2) as u64;
    }
    r
}

#[inline(always)]
pub fn wneg<const K: usize>(a: [u64; K]) -> [u64; K] {
    wadd(wnot(a), wfrom(1))
}

#[inline(always)]
pub fn wsub<const K: usize>(a: [u64; K], b: [u64; K]) -> [u64; K] {
    wadd(a, wneg(b))
}

#[inline(always)]
pub fn wmul<const K: usize>(a: [u64; K], b: [u64; K]) -> [u64; K] {
    let mut r = [0u64; K];
    for i in 0..K {
        let mut c = 0u128;
        for j in 0..K - i {
            let t = a[i] as u128 * b[j] as u128 + r[i + j] as u128 + c;
            r[i + j] = t as u64;
            c = t >> 64;
        }
    }
    r
}

/// `x << n` in K words (bits shifted past the top dropped).
#[inline(always)]
pub fn wshl<const K: usize>(x: [u64; K], n: u64) -> [u64; K] {
    let mut r = [0u64; K];
    if n >= 64 * K as u64 {
        return r;
    }
    let (q, s) = ((n / 64) as usize, (n % 64) as u32);
    for i in (q..K).rev() {
        let lo = x[i - q];
        r[i] = if s == 0 {
            lo
        } else {
            let below = if i > q { x[i - q - 1] >> (64 - s) } else { 0 };
            (lo << s) | below
        };
    }
    r
}

#[inline(always)]
pub fn wshr<const K: usize>(x: [u64; K], n: u64) -> [u64; K] {
    let mut r = [0u64; K];
    if n >= 64 * K as u64 {
        return r;
    }
    let (q, s) = ((n / 64) as usize, (n % 64) as u32);
    for i in 0..K - q {
        let hi = x[i + q];
        r[i] = if s == 0 {
            hi
        } else {
            let above = if i + q + 1 < K {
                x[i + q + 1] << (64 - s)
            } else {
                0
            };
            (hi >> s) | above
        };
    }
    r
}

/// A wide shift amount or index as a `u64` (`u64::MAX` when it does not fit).
#[inline(always)]
pub fn wsat<const K: usize>(x: [u64; K]) -> u64 {
    if x[1..].iter().any(|&v| v != 0) {
        u64::MAX
    } else {
        x[0]
    }
}

#[inline(always)]
pub fn wany<const K: usize>(x: [u64; K]) -> bool {
    x.iter().any(|&v| v != 0)
}

#[inline(always)]
pub fn wall<const K: usize>(x: [u64; K], w: u32) -> bool {
    wmask(wnot(x), w) == [0u64; K]
}

#[inline(always)]
pub fn wpar<const K: usize>(x: [u64; K]) -> bool {
    x.iter().map(|v| v.count_ones()).sum::<u32>() & 1 == 1
}

#[inline(always)]
pub fn wlt<const K: usize>(a: [u64; K], b: [u64; K]) -> bool {
    for i in (0..K).rev() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
    }
    false
}

/// Bits `off .. off + w` of `x` (w <= 64), 0 past the top word.
#[inline(always)]
pub fn wget<const K: usize>(x: [u64; K], off: u64, w: u32) -> u64 {
    if off >= 64 * K as u64 {
        return 0;
    }
    let (q, s) = ((off / 64) as usize, (off % 64) as u32);
    let mut v = x[q] >> s;
    if s != 0 && q + 1 < K {
        v |= x[q + 1] << (64 - s);
    }
    v & nmask(w)
}

/// Bits `off .. off + w` of `x` as R words (the caller masks to `w`).
#[inline(always)]
pub fn wgetw<const K: usize, const R: usize>(x: [u64; K], off: u64) -> [u64; R] {
    wresize(wshr(x, off))
}

#[inline(always)]
pub fn wbit<const K: usize>(x: [u64; K], i: u64) -> u64 {
    if i >= 64 * K as u64 {
        0
    } else {
        (x[(i / 64) as usize] >> (i % 64)) & 1
    }
}

/// `x` with bits `off .. off + w` replaced by `v` (w <= 64; bits past the top dropped).
#[inline(always)]
pub fn wset<const K: usize>(x: [u64; K], off: u64, w: u32, v: u64) -> [u64; K] {
    let m = wshl(wfrom::<K>(nmask(w)), off);
    let vv = wand(wshl(wfrom::<K>(v), off), m);
    wor(wand(x, wnot(m)), vv)
}

/// `x` with bits `off .. off + w` replaced by the R-word `v` (its bits above `w` are 0).
#[inline(always)]
pub fn wsetw<const K: usize, const R: usize>(
    x: [u64; K],
    off: u64,
    w: u32,
    v: [u64; R],
) -> [u64; K] {
    let m = wshl(wmask(wnot([0u64; K]), w), off);
    let vv = wand(wshl(wresize::<R, K>(v), off), m);
    wor(wand(x, wnot(m)), vv)
}
