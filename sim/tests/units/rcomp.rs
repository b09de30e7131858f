//! Unit tests of `nt_sim::rcomp`: the committed blocks compile; the wide-value runtime.
mod parse;

use nt_sim::rcomp::*;

fn committed(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../verilog-out")
        .join(format!("{name}.v"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every committed block elaborates and orders into one pass (no combinational loop,
/// no latch), and generates.
#[test]
fn committed_blocks_schedule_in_one_pass() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../verilog-out");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("v") {
            continue;
        }
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        let d = elaborate(&committed(&name), &name).unwrap();
        let s = stats(&d).unwrap();
        eprintln!(
            "{name}: {} signals, {} statements, {} cyclic groups, {} latches",
            s.signals, s.chunks, s.cyclic_groups, s.latches
        );
        assert_eq!((s.cyclic_groups, s.latches), (0, 0), "{name}");
        let src = generate(&d, &d.block_ports()).unwrap();
        assert!(src.contains("pub unsafe extern \"C\" fn ntv_cycle"));
        n += 1;
    }
    assert!(n >= 20, "only {n} committed blocks found");
}

/// Bit-by-bit reference arithmetic on `K`-word values.
fn bits<const K: usize>(x: [u64; K]) -> Vec<bool> {
    (0..64 * K)
        .map(|i| (x[i / 64] >> (i % 64)) & 1 == 1)
        .collect()
}
fn from_bits<const K: usize>(b: &[bool]) -> [u64; K] {
    let mut r = [0u64; K];
    for (i, &v) in b.iter().enumerate().take(64 * K) {
        if v {
            r[i / 64] |= 1 << (i % 64);
        }
    }
    r
}
fn ref_add(a: &[bool], b: &[bool]) -> Vec<bool> {
    let mut c = false;
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            let s = x ^ y ^ c;
            c = (x & y) | (c & (x ^ y));
            s
        })
        .collect()
}

#[test]
fn runtime_wide_operations_match_a_bit_by_bit_model() {
    use rand::{Rng, SeedableRng};
    use runtime::*;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    for _ in 0..2000 {
        let w: u32 = rng.gen_range(65..=256);
        let a = wmask::<4>(rng.gen(), w);
        let b = wmask::<4>(rng.gen(), w);
        let (ba, bb) = (bits(a), bits(b));
        let n = rng.gen_range(0..300u64);
        // add, subtract (a + ~b + 1), multiply by shift-and-add
        assert_eq!(wadd(a, b), from_bits::<4>(&ref_add(&ba, &bb)));
        let nb: Vec<bool> = bb.iter().map(|v| !v).collect();
        let one = bits(wfrom::<4>(1));
        assert_eq!(
            wsub(a, b),
            from_bits::<4>(&ref_add(&ref_add(&ba, &nb), &one))
        );
        let mut acc = vec![false; 256];
        for i in 0..256 {
            if bb[i] {
                let sh: Vec<bool> = (0..256).map(|k| k >= i && ba[k - i]).collect();
                acc = ref_add(&acc, &sh);
            }
        }
        assert_eq!(wmul(a, b), from_bits::<4>(&acc));
        // shifts, including past the width
        let shl: Vec<bool> = (0..256)
            .map(|k| (k as u64) >= n && ba[k - n as usize])
            .collect();
        let shr: Vec<bool> = (0..256)
            .map(|k| k as u64 + n < 256 && ba[k + n as usize])
            .collect();
        assert_eq!(wshl(a, n), from_bits::<4>(&shl));
        assert_eq!(wshr(a, n), from_bits::<4>(&shr));
        // compares, reductions
        let lt = (0..256)
            .rev()
            .find(|&k| ba[k] != bb[k])
            .is_some_and(|k| bb[k]);
        assert_eq!(wlt(a, b), lt);
        assert_eq!(wany(a), ba.iter().any(|&v| v));
        assert_eq!(wall(a, w), ba[..w as usize].iter().all(|&v| v));
        assert!(wall(wmask([u64::MAX; 4], w), w));
        assert_eq!(wpar(a), ba.iter().filter(|&&v| v).count() % 2 == 1);
        // fields: read, write (narrow and wide), single bits
        let off = rng.gen_range(0..260u64);
        let fw: u32 = rng.gen_range(1..=64);
        let f: u64 = rng.gen::<u64>() & nmask(fw);
        let get: Vec<bool> = (0..64)
            .map(|k| k < fw as usize && (off as usize + k) < 256 && ba[off as usize + k])
            .collect();
        assert_eq!(wget(a, off, fw), from_bits::<1>(&get)[0]);
        let mut set = ba.clone();
        for k in 0..fw as usize {
            if off as usize + k < 256 {
                set[off as usize + k] = (f >> k) & 1 == 1;
            }
        }
        assert_eq!(wset(a, off, fw, f), from_bits::<4>(&set));
        let ww: u32 = rng.gen_range(65..=128);
        let fv = wmask::<2>(rng.gen(), ww);
        let fb = bits(fv);
        let mut setw = ba.clone();
        for k in 0..ww as usize {
            if off as usize + k < 256 {
                setw[off as usize + k] = fb[k];
            }
        }
        assert_eq!(wsetw(a, off, ww, fv), from_bits::<4>(&setw));
        let getw: Vec<bool> = (0..128)
            .map(|k| k < ww as usize && (off as usize + k) < 256 && ba[off as usize + k])
            .collect();
        assert_eq!(wmask(wgetw::<4, 2>(a, off), ww), from_bits::<2>(&getw));
        assert_eq!(wbit(a, off), (off < 256 && ba[off as usize]) as u64);
        // narrow helpers
        let x: u64 = rng.gen();
        assert_eq!(nshl(x, n), if n < 64 { x << n } else { 0 });
        assert_eq!(nshr(x, n), if n < 64 { x >> n } else { 0 });
        assert_eq!(
            nget(x, off, fw),
            if off < 64 { (x >> off) & nmask(fw) } else { 0 }
        );
        assert_eq!(
            nget(nset(x, off % 64, fw, f), off % 64, fw),
            f & nmask(fw.min(64 - (off % 64) as u32))
        );
        assert_eq!(wsat(wfrom::<4>(x)), x);
        assert_eq!(wsat(wshl(wfrom::<4>(1), 70)), u64::MAX);
    }
}
