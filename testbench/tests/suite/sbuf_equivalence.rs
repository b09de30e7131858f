//! The shared packet buffer ([`nt_hdl::sbuf`]) on the cycle kernel against
//! [`SbufModel`], every output in every cycle, at 4 and 16 ports, under the seeded,
//! self-checking workload of [`nt_sim::sbuf_workload`]: every admitted frame of the right
//! length leaves its output whole and in order, no other does, and every cell comes back
//! to the free lists. And line rate on every port at once.
use nt_hdl::sbuf::SharedBuffer;
use nt_sim::kernel::Kernel;
use nt_sim::sbuf_workload::{drive, knobs, line_rate, read, Knobs, SbufWorkload, Seen};
use nt_testbench::equiv::lockstep;
use nt_testbench::sbuf_model::SbufModel;

fn run<
    const N: usize,
    const CA: usize,
    const CC: usize,
    const N2: usize,
    const R: usize,
    const NR: usize,
    const NRW: usize,
    const NN: usize,
>(
    seed: u64,
    cycles: u64,
    k: &Knobs,
) -> Seen {
    let mut kern =
        Kernel::new(SharedBuffer::<N, CA, CC, N2, R, NR, NRW, NN>::new()).expect("kernel");
    let mut m = SbufModel::new(N, CA, R);
    let mut w = SbufWorkload::new(seed, N, CA, cycles, k.clone());
    let view = lockstep(
        seed,
        cycles,
        &mut kern,
        &mut m,
        read,
        |c, v| w.step(c, v),
        drive,
    );
    let s = w
        .finish(&view)
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    *s
}

fn p4(seed: u64, cycles: u64, k: &Knobs) -> Seen {
    run::<4, 11, 12, 8, 4, 16, 64, 16>(seed, cycles, k)
}

fn p16(seed: u64, cycles: u64, k: &Knobs) -> Seen {
    run::<16, 9, 10, 32, 4, 64, 1024, 256>(seed, cycles, k)
}

fn report(what: &str, s: &Seen) {
    println!(
        "{what}: {} frames in, {} out ({} trimmed, {} returned), {} bad, least busy output {:.3}, {} words lost",
        s.frames_in, s.frames_out, s.trimmed_out, s.returned_out, s.bad, s.min_util, s.ovr
    );
}

#[test]
fn sbuf_p4_matches_its_model_under_random_traffic() {
    for seed in 1..=2 {
        let s = p4(seed, 30_000, &knobs());
        report(&format!("p4 seed {seed}"), &s);
        assert!(
            s.frames_out > 300 && s.bad > 5,
            "seed {seed}: too little traffic"
        );
        assert!(s.trimmed_out > 30, "seed {seed}: too few trimmed");
        assert!(s.returned_out > 15, "seed {seed}: too few returned");
        assert_eq!(
            s.ovr, 0,
            "seed {seed}: verdicts in time, yet words were lost"
        );
    }
    // resets at random
    let s = p4(
        4,
        30_000,
        &Knobs {
            p_reset: 0.001,
            ..knobs()
        },
    );
    report("p4 seed 4, resets", &s);
    assert!(s.frames_out > 200);
}

#[test]
fn sbuf_p16_matches_its_model_under_random_traffic() {
    let s = p16(3, 12_000, &knobs());
    report("p16 seed 3", &s);
    assert!(s.frames_out > 300 && s.bad > 5, "too little traffic");
    assert!(s.trimmed_out > 30, "too few trimmed");
    assert!(s.returned_out > 15, "too few returned");
    assert_eq!(s.ovr, 0, "verdicts in time, yet words were lost");
}

/// Verdicts up to 300 cycles late: the data FIFOs fill, words and whole frames are lost
/// and counted (`ovr`), and the RTL still matches the model cycle for cycle.
#[test]
fn sbuf_late_verdicts_lose_words_as_specified() {
    let k = Knobs {
        verdict_delay: 300,
        check: false,
        ..knobs()
    };
    let s = p4(5, 20_000, &k);
    report("p4 seed 5, late verdicts", &s);
    assert!(s.ovr > 100, "the data FIFOs never overflowed");
}

/// Line rate on every port at once, for the frame sizes that need the most rows per
/// word (a row and one word) and the smallest frames.
#[test]
fn sbuf_keeps_line_rate_on_every_port() {
    for (len, util) in [(72, 0.99), (64, 0.99), (1088, 0.99)] {
        let s = p4(6, 6_000, &line_rate(len));
        report(&format!("p4, {len}-byte frames"), &s);
        assert!(
            s.min_util >= util,
            "p4, {len} B: an output busy {:.3} of cycles",
            s.min_util
        );
    }
    for (len, util) in [(136, 0.99), (64, 0.99), (1088, 0.99)] {
        let s = p16(7, 6_000, &line_rate(len));
        report(&format!("p16, {len}-byte frames"), &s);
        assert!(
            s.min_util >= util,
            "p16, {len} B: an output busy {:.3} of cycles",
            s.min_util
        );
    }
}
