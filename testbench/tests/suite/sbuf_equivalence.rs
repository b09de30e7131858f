//! The shared packet buffer ([`nt_hdl::sbuf`]) on the cycle kernel against
//! [`SbufModel`], every output in every cycle, at 4 and 16 ports, under the seeded,
//! self-checking workload of [`nt_sim::sbuf_workload`]: every admitted frame of the right
//! length leaves its output whole and in order, no other does, and every cell comes back
//! to the free lists. And line rate on every port at once.
use nt_hdl::sbuf::SharedBuffer;
use nt_sim::kernel::Kernel;
use nt_sim::sbuf_workload::{bolt_knobs, drive, knobs, line_rate, read, Knobs, SbufWorkload, Seen};
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
        "{what}: {} frames in, {} out ({} trimmed, {} returned), {} bad, least busy output {:.3}, {} words lost, {} SRCs out, {} lost",
        s.frames_in, s.frames_out, s.trimmed_out, s.returned_out, s.bad, s.min_util, s.ovr,
        s.src_out, s.src_drop
    );
}

#[test]
fn sbuf_p4_matches_its_model_under_random_traffic() {
    for seed in 1..=2 {
        let s = p4(seed, 15_000, &knobs());
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

/// Bolt's half in the buffer: a data packet's flags rewritten (word 6), and the SRCs
/// built from its first 8 words into its port's slots and sent at packet boundaries,
/// checked word for word against `swframe::src_header`; every SRC either leaves or is
/// counted lost (no free slot) or had too few words.
#[test]
fn sbuf_bolt_matches_its_model_and_sends_every_src() {
    let mut lost = 0;
    for seed in 5..=6 {
        let s = p4(seed, 15_000, &bolt_knobs());
        report(&format!("p4 Bolt seed {seed}"), &s);
        assert!(s.frames_out > 300, "seed {seed}: too little traffic");
        assert!(s.src_out > 100, "seed {seed}: too few SRCs");
        lost += s.src_drop;
    }
    // short frames with SRCs behind long frames from other inputs fill a port's 4 slots
    assert!(lost > 0, "no SRC ever found the slots full");
    let s = p4(
        7,
        15_000,
        &Knobs {
            p_reset: 0.001,
            ..bolt_knobs()
        },
    );
    report("p4 Bolt seed 7, resets", &s);
    assert!(s.src_out > 50);
    let s = p16(8, 6_000, &bolt_knobs());
    report("p16 Bolt seed 8", &s);
    assert!(s.src_out > 100, "too few SRCs");
    // an SRC for every 64-byte frame, each input to its own output at about half the line
    // rate: an output then carries ~94% (17 cycles a frame with its SRC), and every SRC
    // leaves, one at each packet boundary
    let s = p4(
        9,
        6_000,
        &Knobs {
            p_bolt: 1.0,
            p_src: 1.0,
            p_gap: 0.5,
            ..line_rate(64)
        },
    );
    report("p4 Bolt, an SRC for each frame", &s);
    assert!(
        s.frames_in > 1000 && s.src_out == s.frames_in && s.src_drop == 0,
        "{s:?}"
    );
}

#[test]
fn sbuf_p16_matches_its_model_under_random_traffic() {
    let s = p16(3, 8_000, &knobs());
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
    let s = p4(5, 10_000, &k);
    report("p4 seed 5, late verdicts", &s);
    assert!(s.ovr > 100, "the data FIFOs never overflowed");
}

/// Line rate on every port at once, for the frame sizes that need the most rows per
/// word (a row and one word) and the smallest frames.
#[test]
fn sbuf_keeps_line_rate_on_every_port() {
    for (len, util) in [(72, 0.99), (64, 0.99), (1088, 0.99)] {
        let s = p4(6, 3_000, &line_rate(len));
        report(&format!("p4, {len}-byte frames"), &s);
        assert!(
            s.min_util >= util,
            "p4, {len} B: an output busy {:.3} of cycles",
            s.min_util
        );
    }
    for (len, util) in [(136, 0.99), (64, 0.99), (1088, 0.99)] {
        let s = p16(7, 3_000, &line_rate(len));
        report(&format!("p16, {len}-byte frames"), &s);
        assert!(
            s.min_util >= util,
            "p16, {len} B: an output busy {:.3} of cycles",
            s.min_util
        );
    }
}
