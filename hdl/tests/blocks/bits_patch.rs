//! Checks of the patched `Bits` of `vendor/rust-hdl-core` (word-packed wide vectors, 64-bit
//! short vectors, shifts without `BigUint`) against a bit-by-bit model: the published
//! crate's algorithms on one `bool` per bit. Every block's simulation runs on `Bits`, so the
//! co-simulations check the patch too; these tests cover widths and operations the blocks
//! may not reach (every width class, shifts past the width, carries across words).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::cmp::Ordering;

/// One `bool` per bit, least significant first: the published representation.
#[derive(Clone, Debug, PartialEq)]
struct Model(Vec<bool>);

impl Model {
    fn of<const N: usize>(b: Bits<N>) -> Model {
        Model((0..N).map(|i| b.get_bit(i)).collect())
    }
    fn to_bits<const N: usize>(&self) -> Bits<N> {
        let mut b = Bits::<N>::default();
        for (i, v) in self.0.iter().enumerate() {
            b = b.replace_bit(i, *v);
        }
        b
    }
    fn map2(&self, o: &Model, f: impl Fn(bool, bool) -> bool) -> Model {
        Model(self.0.iter().zip(&o.0).map(|(a, b)| f(*a, *b)).collect())
    }
    fn add(&self, o: &Model) -> Model {
        let mut c = false;
        Model(
            self.0
                .iter()
                .zip(&o.0)
                .map(|(a, b)| {
                    let s = a ^ b ^ c;
                    c = (a & b) | (b & c) | (a & c);
                    s
                })
                .collect(),
        )
    }
    fn not(&self) -> Model {
        Model(self.0.iter().map(|a| !a).collect())
    }
    fn sub(&self, o: &Model) -> Model {
        let mut one = vec![false; self.0.len()];
        one[0] = true;
        self.add(&o.not()).add(&Model(one))
    }
    fn shr(&self, k: usize) -> Model {
        let n = self.0.len();
        Model((0..n).map(|i| i + k < n && self.0[i + k]).collect())
    }
    fn shl(&self, k: usize) -> Model {
        Model((0..self.0.len()).map(|i| i >= k && self.0[i - k]).collect())
    }
    fn cmp(&self, o: &Model) -> Ordering {
        for i in (0..self.0.len()).rev() {
            match (self.0[i], o.0[i]) {
                (true, false) => return Ordering::Greater,
                (false, true) => return Ordering::Less,
                _ => {}
            }
        }
        Ordering::Equal
    }
    fn low_u64(&self) -> u64 {
        self.0
            .iter()
            .take(64)
            .enumerate()
            .fold(0, |x, (i, b)| x | (*b as u64) << i)
    }
}

/// A random value with long runs of ones and zeros, so that carries and borrows cross words.
fn random<const N: usize>(rng: &mut ChaCha8Rng) -> Bits<N> {
    let mut m = vec![false; N];
    match rng.gen_range(0..4) {
        0 => m.iter_mut().for_each(|b| *b = rng.gen()),
        1 => m.iter_mut().for_each(|b| *b = true),
        2 => {
            let k = rng.gen_range(0..N);
            m.iter_mut().take(k).for_each(|b| *b = true);
        }
        _ => {
            let k = rng.gen_range(0..N);
            m[k] = true;
        }
    }
    Model(m).to_bits()
}

fn check_width<const N: usize>(seed: u64, rounds: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..rounds {
        let a = random::<N>(&mut rng);
        let b = random::<N>(&mut rng);
        let (ma, mb) = (Model::of(a), Model::of(b));
        assert_eq!(Model::of(a + b), ma.add(&mb), "{N}: {a:x} + {b:x}");
        assert_eq!(Model::of(a - b), ma.sub(&mb), "{N}: {a:x} - {b:x}");
        assert_eq!(Model::of(a & b), ma.map2(&mb, |x, y| x & y));
        assert_eq!(Model::of(a | b), ma.map2(&mb, |x, y| x | y));
        assert_eq!(Model::of(a ^ b), ma.map2(&mb, |x, y| x ^ y));
        assert_eq!(Model::of(!a), ma.not(), "{N}: !{a:x}");
        assert_eq!(a.cmp(&b), ma.cmp(&mb), "{N}: {a:x} <=> {b:x}");
        assert_eq!(a == b, ma == mb);
        assert_eq!(a.any(), ma.0.iter().any(|x| *x));
        assert_eq!(a.all(), ma.0.iter().all(|x| *x));
        assert_eq!(a.xor(), ma.0.iter().filter(|x| **x).count() % 2 == 1);
        let k = rng.gen_range(0..N + 70);
        assert_eq!(Model::of(a >> k as u64), ma.shr(k), "{N}: {a:x} >> {k}");
        assert_eq!(Model::of(a << k as u64), ma.shl(k), "{N}: {a:x} << {k}");
        if k < 128 {
            let kb: Bits<8> = (k as u64).into();
            assert_eq!(a >> kb, a >> k as u64);
            assert_eq!(a << kb, a << k as u64);
        }
        // Fields: get_bits, set_bits, bit_cast both ways.
        let at = rng.gen_range(0..N);
        let f16: Bits<16> = a.get_bits::<16>(at);
        assert_eq!(
            Model::of(f16),
            Model(ma.shr(at).0[..16.min(N)].to_vec()).pad(16)
        );
        let f72: Bits<72> = a.get_bits::<72>(at);
        assert_eq!(
            Model::of(f72),
            Model(ma.shr(at).0[..72.min(N)].to_vec()).pad(72)
        );
        let mut c = a;
        if at + 16 <= N {
            c.set_bits::<16>(at, f16 ^ Bits::<16>::from(0xA5A5));
            let mut mc = ma.clone();
            let want = Model::of(f16 ^ Bits::<16>::from(0xA5A5));
            mc.0[at..at + 16].copy_from_slice(&want.0);
            assert_eq!(Model::of(c), mc);
        }
        let wide: Bits<520> = bit_cast::<520, N>(a);
        assert_eq!(Model::of(wide), ma.clone().pad(520));
        let narrow: Bits<40> = bit_cast::<40, N>(a);
        assert_eq!(Model::of(narrow), Model(ma.0[..40.min(N)].to_vec()).pad(40));
        if N <= 64 {
            let v: u64 = a.into();
            assert_eq!(v, ma.low_u64());
        }
        if N <= 128 {
            let v = a.to_u128();
            let want =
                ma.0.iter()
                    .enumerate()
                    .fold(0_u128, |x, (i, b)| x | (*b as u128) << i);
            assert_eq!(v, want);
        }
    }
}

impl Model {
    fn pad(mut self, n: usize) -> Model {
        self.0.resize(n, false);
        self
    }
}

#[test]
fn patched_bits_match_the_bit_by_bit_model_at_every_width_class() {
    check_width::<1>(1, 200);
    check_width::<16>(2, 500);
    check_width::<32>(3, 500);
    check_width::<33>(4, 500);
    check_width::<48>(5, 500);
    check_width::<63>(6, 500);
    check_width::<64>(7, 500);
    check_width::<65>(8, 500);
    check_width::<72>(9, 500);
    check_width::<127>(10, 300);
    check_width::<128>(11, 300);
    check_width::<277>(12, 200);
    check_width::<512>(13, 200);
}

#[test]
fn patched_bits_keep_the_published_literal_rules() {
    // Up to 32 bits a literal that does not fit panics; wider vectors keep its low bits.
    let x: Bits<48> = 0xFFFF_1234_5678_9ABC_u64.into();
    assert_eq!(x, Bits::<48>::from(0x1234_5678_9ABC_u64));
    let y: Bits<100> = u64::MAX.into();
    assert_eq!(y.get_bits::<64>(0), Bits::<64>::from(u64::MAX));
    assert!(!y.get_bits::<36>(64).any());
    assert!(std::panic::catch_unwind(|| Bits::<8>::from(256_u64)).is_err());
    assert_eq!(Bits::<64>::mask(), Bits::<64>::from(u64::MAX));
    assert!(Bits::<512>::mask().all());
    // Subtraction wraps at the width, above and below 64 bits.
    assert_eq!(
        Bits::<40>::from(0) - Bits::<40>::from(1),
        Bits::<40>::mask()
    );
    assert_eq!(
        Bits::<96>::from(0) - Bits::<96>::from(1),
        Bits::<96>::mask()
    );
}
