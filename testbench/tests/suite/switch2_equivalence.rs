//! The new switch ([`nt_hdl::switch2`]) on the cycle kernel against [`Switch2Model`] (its
//! four blocks' models wired as the top wires them), every output in every cycle, at 4
//! and 16 ports, under the seeded, self-checking workload of
//! [`nt_sim::switch2_workload`]: every kept frame that comes out is whole (or, trimmed,
//! its rewritten 64-byte header), at its output, once and in order; limits hold; nothing
//! is lost inside; everything drains.
use nt_hdl::switch2::SharedSwitch;
use nt_sim::adm_workload::LimCfg;
use nt_sim::kernel::Kernel;
use nt_sim::switch2_workload::{
    bolt_knobs, drive, knobs, read, tofino_knobs, Knobs, Seen, Switch2Workload,
};
use nt_testbench::equiv::lockstep;
use nt_testbench::switch2_model::Switch2Model;

#[allow(clippy::too_many_arguments)]
fn run<
    const N: usize,
    const N8: usize,
    const NN: usize,
    const K: usize,
    const M: usize,
    const NB: usize,
    const KNB: usize,
    const CA: usize,
    const CC: usize,
    const N2: usize,
    const R: usize,
    const NR: usize,
    const NRW: usize,
    const RP: usize,
    const KRP: usize,
    const NRP: usize,
    const NK: usize,
    const N4K: usize,
    const KP: usize,
>(
    seed: u64,
    cycles: u64,
    k: &Knobs,
) -> Seen {
    let mut kern = Kernel::new(SharedSwitch::<
        N,
        N8,
        NN,
        K,
        M,
        NB,
        KNB,
        CA,
        CC,
        N2,
        R,
        NR,
        NRW,
        RP,
        KRP,
        NRP,
        NK,
        N4K,
        KP,
    >::new())
    .expect("kernel");
    let mut m = Switch2Model::new(N, K, CA, R, RP);
    let mut w = Switch2Workload::new(seed, N, K, cycles, k.clone());
    let view = lockstep(
        seed,
        cycles,
        &mut kern,
        &mut m,
        read,
        |c, v| w.step(c, v),
        drive,
    );
    let s = *w
        .finish(&view)
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    println!(
        "seed {seed}, {N} ports: {} frames sent, {} delivered (bands {:?}), {} admitted, {} refused, most over a packet limit {} (a port limit {}), latency {}..{} cycles, {} trimmed ({} returned; {} at a meter, {} deflected, {} recirculated, at most {} in a pipe)",
        s.sent, s.delivered, s.bands, view.admitted, view.refused, s.max_over_pkts, s.max_over_port_pkts, s.min_latency, s.max_latency, s.trimmed, s.returned, s.metered, s.deflected, s.recirculated, s.max_dod
    );
    s
}

fn p4(seed: u64, cycles: u64, k: &Knobs) -> Seen {
    run::<4, 32, 16, 1, 4, 16, 16, 11, 12, 8, 4, 16, 64, 1, 1, 4, 4, 16, 4>(seed, cycles, k)
}

fn p16(seed: u64, cycles: u64, k: &Knobs) -> Seen {
    run::<16, 128, 256, 2, 8, 64, 128, 9, 10, 32, 4, 64, 1024, 2, 4, 32, 32, 128, 8>(
        seed, cycles, k,
    )
}

/// An incast share on output 0 with limits that bind, broken frames, links that stall:
/// the RTL equals the model and every frame meets its fate.
#[test]
fn switch2_p4_matches_its_model_end_to_end() {
    for seed in 1..=2 {
        let s = p4(seed, 10_000, &knobs());
        assert!(s.delivered > 200, "too little delivered: {s:?}");
        assert!(s.max_over_pkts >= 0, "the limits never bound: {s:?}");
        assert!(
            s.max_over_port_pkts >= 0,
            "the port limit never bound: {s:?}"
        );
        assert!(s.trimmed > 8, "too few trimmed: {s:?}");
        assert!(s.returned >= 3, "too few returned: {s:?}");
    }
}

/// Drop-tail: trimming off, no frame leaves trimmed.
#[test]
fn switch2_p4_drop_tail_never_trims() {
    let s = p4(
        5,
        6_000,
        &Knobs {
            trim: false,
            drain: 2_000,
            ..knobs()
        },
    );
    assert!(s.delivered > 150, "too little delivered: {s:?}");
    assert_eq!(s.trimmed, 0, "{s:?}");
}

/// WRR and bands by flags.
#[test]
fn switch2_p4_wrr_by_flags() {
    let s = p4(
        3,
        15_000,
        &Knobs {
            wrr: true,
            band_by_flags: true,
            // room in band 0 for the headers of band 1's refused DATA packets
            band: {
                let mut b = knobs().band;
                b[0].lim_pkts = 64;
                b[1].lim_bytes = 3_000;
                b
            },
            hdr: LimCfg {
                pkts: 64,
                bytes: 1 << 20,
            },
            drain: 8_000,
            ..knobs()
        },
    );
    assert!(s.delivered > 300, "{s:?}");
    assert!(s.trimmed > 5, "too few trimmed: {s:?}");
}

fn p8(seed: u64, cycles: u64, k: &Knobs) -> Seen {
    run::<8, 64, 64, 1, 8, 32, 32, 10, 11, 16, 4, 32, 256, 1, 1, 8, 8, 32, 4>(seed, cycles, k)
}

/// 8 ports, one lane of 8: a size the network simulator runs on the model
/// (`nt_sim::switch2_sim::ModelSwitch`); the RTL built at it equals the model, trimming
/// and returning headers to their senders.
#[test]
fn switch2_p8_matches_its_model_end_to_end() {
    let s = p8(9, 6_000, &knobs());
    assert!(s.delivered > 100, "too little delivered: {s:?}");
    assert!(
        s.trimmed > 0 && s.returned > 0,
        "none trimmed or returned: {s:?}"
    );
}

/// 16 ports, two lanes.
#[test]
fn switch2_p16_matches_its_model_end_to_end() {
    let s = p16(4, 5_000, &knobs());
    assert!(s.delivered > 120, "too little delivered: {s:?}");
    assert!(s.trimmed > 5, "too few trimmed: {s:?}");
    assert!(s.returned > 3, "too few returned: {s:?}");
}

/// Tofino-style trimming end to end: frames red at their meter leave as headers (or go
/// back to their senders), frames that find their output full are deflected on drop,
/// held for their length in their pipe's recirculation path, then leave as headers in
/// band 0 and signal congestion; the RTL equals the model every cycle and every
/// deflected header comes back.
#[test]
fn switch2_p4_tofino_style_trimming_recirculates() {
    for (seed, pipes) in [(6, 2), (7, 4)] {
        let mut k = tofino_knobs();
        k.tof.pipes = pipes;
        let s = p4(seed, 10_000, &k);
        assert!(s.delivered > 150, "too little delivered: {s:?}");
        assert!(s.metered > 6, "too few trimmed at a meter: {s:?}");
        assert!(s.deflected > 8, "too few deflected: {s:?}");
        assert_eq!(s.deflected, s.recirculated, "{s:?}");
        assert!(s.trimmed >= s.metered, "{s:?}");
    }
}

/// Tofino-style trimming at 16 ports, two lanes, four pipes.
#[test]
fn switch2_p16_tofino_style_trimming_recirculates() {
    let mut k = tofino_knobs();
    k.tof.pipes = 4;
    let s = p16(8, 5_000, &k);
    assert!(s.metered > 6, "too few trimmed at a meter: {s:?}");
    assert!(s.deflected > 4, "too few deflected: {s:?}");
    assert_eq!(s.deflected, s.recirculated, "{s:?}");
}

/// Bolt (`mode = "bolt"`): the admission's policy decides, the buffer rewrites each data
/// packet's flags (only DEC set or INC cleared, checked per frame) and sends SRCs back out
/// of the port the data came in on, each checked word for word against the frame it
/// answers; every SRC out is counted, and none beyond the verdicts that asked for one.
#[test]
fn switch2_bolt_matches_its_model_and_answers_with_srcs() {
    let s = p4(11, 10_000, &bolt_knobs());
    println!("p4 Bolt: {s:?}");
    assert!(s.delivered > 180, "too little delivered: {s:?}");
    assert!(s.srcs > 20, "too few SRCs: {s:?}");
    assert_eq!(s.trimmed, 0, "{s:?}");
    let s = p16(12, 5_000, &bolt_knobs());
    println!("p16 Bolt: {s:?}");
    assert!(s.srcs > 5, "too few SRCs: {s:?}");
}
