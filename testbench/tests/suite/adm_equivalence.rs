//! The switch's admission ([`nt_hdl::sadm`]) on the cycle kernel against [`AdmModel`],
//! every output in every cycle, at 4 ports (one lane) and 16 (two lanes), under the
//! seeded, self-checking workload of [`nt_sim::adm_workload`]: one verdict per request in
//! order and in time, counters equal to what was admitted and has not left, and the
//! guarantee that a limit is exceeded by at most `5K - 1` packets: a band's, the output's
//! (all bands) and the header limits of band 0. With Bolt ([`nt_hdl::sbolt`]): the
//! same, every Bolt decision checked against the tokens it read, and with data packets of
//! an output apart, the tokens against the thesis's algorithm.
use nt_hdl::sadm::Admission;
use nt_hdl::swif::{BOLT_DATA, BOLT_INC, BOLT_LAST};
use nt_sim::adm_workload::{
    bolt_knobs, drive, knobs, read, tofino_knobs, AdmWorkload, BandCfg, BoltCfgV, BoltSeen, Drive,
    Knobs, LimCfg, Req, Seen, View,
};
use nt_sim::kernel::Kernel;
use nt_testbench::adm_model::AdmModel;
use nt_testbench::equiv::lockstep;

/// Runs the block and the model side by side, every output in every cycle; returns what
/// the workload saw and the last view.
fn run<
    const N: usize,
    const K: usize,
    const M: usize,
    const NB: usize,
    const KNB: usize,
    const CC: usize,
>(
    seed: u64,
    cycles: u64,
    k: &Knobs,
) -> (Seen, View) {
    let mut kern = Kernel::new(Admission::<N, K, M, NB, KNB, CC>::new()).expect("kernel");
    let mut m = AdmModel::new(N, K);
    let mut w = AdmWorkload::new(seed, N, K, k.clone());
    let view = lockstep(
        seed,
        cycles,
        &mut kern,
        &mut m,
        read,
        |c, v| w.step(c, v),
        drive,
    );
    (*w.finish(), view)
}

fn p4(seed: u64, cycles: u64, k: &Knobs) -> Seen {
    run::<4, 1, 4, 16, 16, 12>(seed, cycles, k).0
}

fn p16(seed: u64, cycles: u64, k: &Knobs) -> Seen {
    run::<16, 2, 8, 64, 128, 10>(
        seed,
        cycles,
        &Knobs {
            cells: 512,
            ..k.clone()
        },
    )
    .0
}

fn report(what: &str, s: &Seen) {
    println!(
        "{what}: {} requests, {} admitted, {} trimmed ({} returned, {} into band 0's header room), {} refused ({} well-formed, {} at a band limit, {} at a port limit), most over a band limit {} packets / {} bytes, over a port limit {} / {}, largest queue {} bytes, most cells {}, latency <= {}",
        s.reqs,
        s.admitted,
        s.trimmed,
        s.returned,
        s.hdr_over_band,
        s.refused,
        s.refused_ok,
        s.at_limit,
        s.at_port_limit,
        s.max_over_pkts,
        s.max_over_bytes,
        s.max_over_port_pkts,
        s.max_over_port_bytes,
        s.max_queue_bytes,
        s.max_used_cells,
        s.max_latency
    );
}

/// Limits that bind (an incast on output 0): the RTL equals the model, and no (output,
/// band) or output holds more than its limit plus 4 packets (K = 1); headers take band 0's
/// room above its own limits.
#[test]
fn sadm_p4_matches_its_model_and_keeps_its_limits() {
    for seed in 1..=2 {
        let s = p4(seed, 20_000, &knobs());
        report(&format!("p4 seed {seed}"), &s);
        assert!(
            s.reqs > 3_000 && s.admitted > 1_000,
            "seed {seed}: too little traffic"
        );
        assert!(s.at_limit > 200, "seed {seed}: the limits never bound");
        assert!(s.trimmed > 100, "seed {seed}: too few trimmed");
        assert!(s.returned > 20, "seed {seed}: too few returned");
        assert!(
            s.max_over_pkts <= 4,
            "seed {seed}: over a packet limit by {}",
            s.max_over_pkts
        );
        assert!(
            s.at_port_limit > 200,
            "seed {seed}: the port limits never bound"
        );
        assert!(
            (0..=4).contains(&s.max_over_port_pkts),
            "seed {seed}: over the port's packet limit by {} (negative: never reached)",
            s.max_over_port_pkts
        );
        assert!(
            s.hdr_over_band > 20,
            "seed {seed}: headers never used band 0's header room"
        );
        assert!(
            s.max_latency <= 8,
            "seed {seed}: a verdict {} cycles late",
            s.max_latency
        );
    }
    let s = p4(
        3,
        20_000,
        &Knobs {
            reset_p: 0.002,
            ..knobs()
        },
    );
    report("p4 seed 3, resets", &s);
    assert!(s.admitted > 1_000);
}

/// Two lanes: the bound is 9 packets.
#[test]
fn sadm_p16_matches_its_model_and_keeps_its_limits() {
    let s = p16(4, 12_000, &knobs());
    report("p16 seed 4", &s);
    assert!(
        s.reqs > 5_000 && s.at_limit > 200,
        "too little traffic or no limit bound"
    );
    assert!(s.trimmed > 100, "too few trimmed");
    assert!(s.returned > 20, "too few returned");
    assert!(
        s.max_over_pkts <= 9,
        "over a packet limit by {}",
        s.max_over_pkts
    );
    assert!(s.at_port_limit > 200, "the port limits never bound");
    assert!(
        (0..=9).contains(&s.max_over_port_pkts),
        "over the port's packet limit by {} (negative: never reached)",
        s.max_over_port_pkts
    );
    assert!(
        s.hdr_over_band > 20,
        "headers never used band 0's header room"
    );
    assert!(
        s.max_latency <= 12,
        "a verdict {} cycles late",
        s.max_latency
    );
}

/// The dynamic threshold (Choudhury and Hahne): an incast on output 0, band 0, with
/// static limits out of reach. Without the threshold the hot queue takes most of the
/// buffer; with it the queue stays near `alpha / (1 + alpha)` of the buffer (plus the few
/// packets admitted on stale counts) and grows with alpha. The RTL equals the model.
#[test]
fn sadm_dynamic_threshold_bounds_a_hot_queue_by_alpha() {
    let loose = BandCfg {
        lim_pkts: 60_000,
        lim_bytes: 1 << 30,
        dt_a: 0,
    };
    let total = 2048.0 * 32.0;
    let base = Knobs {
        band: [loose; 4],
        bands: 1,
        hot: 0.9,
        dep_p: 0.1,
        headroom: 0,
        port: LimCfg::OFF,
        hdr: LimCfg::OFF,
        ..knobs()
    };
    let s = p4(
        5,
        15_000,
        &Knobs {
            dt_on: false,
            ..base.clone()
        },
    );
    report("p4, incast, no threshold", &s);
    assert!(
        s.max_queue_bytes as f64 > 0.8 * total,
        "the hot queue held only {}",
        s.max_queue_bytes
    );
    let mut held = vec![];
    for a in [2u8, 4, 6] {
        let alpha = 2f64.powi(a as i32 - 4);
        let k = Knobs {
            band: [BandCfg { dt_a: a, ..loose }; 4],
            dt_on: true,
            ..base.clone()
        };
        let s = p4(5, 15_000, &k);
        report(&format!("p4, incast, threshold alpha {alpha}"), &s);
        let bound = alpha / (1.0 + alpha) * total + 4.0 * 1500.0 * (1.0 + alpha);
        assert!(
            (s.max_queue_bytes as f64) <= bound,
            "alpha {alpha}: the hot queue held {} bytes, bound {bound}",
            s.max_queue_bytes
        );
        held.push(s.max_queue_bytes);
    }
    assert!(
        held[0] < held[1] && held[1] < held[2],
        "the hot queue does not grow with alpha: {held:?}"
    );
}

/// Headroom: no other limit, an incast that fills the buffer. Without headroom the
/// admitted packets take all but a packet's cells; with 1,000 cells of headroom they stay
/// below `cells - headroom` plus the packets admitted on a free count three decisions old
/// (at most 47 cells each).
#[test]
fn sadm_headroom_keeps_cells_free() {
    let loose = BandCfg {
        lim_pkts: 60_000,
        lim_bytes: 1 << 30,
        dt_a: 0,
    };
    let mut used = vec![];
    for h in [0u16, 1000] {
        let k = Knobs {
            band: [loose; 4],
            hot: 0.9,
            headroom: h,
            dep_p: 0.05,
            port: LimCfg::OFF,
            hdr: LimCfg::OFF,
            ..knobs()
        };
        let s = p4(6, 12_000, &k);
        report(&format!("p4, 2,048 cells, headroom {h}"), &s);
        used.push(s.max_used_cells);
    }
    assert!(
        used[0] > 2048 - 47,
        "without headroom the buffer never filled: {used:?}"
    );
    assert!(
        used[1] <= 2048 - 1000 + 4 * 47,
        "headroom 1,000 yet {} cells held",
        used[1]
    );
    assert!(
        used[1] > 2048 - 1000 - 47,
        "headroom 1,000: the buffer never filled to it: {used:?}"
    );
}

/// An ingress that breaks the spacing (a request every cycle on every input): requests
/// are lost and counted, in the RTL exactly as in the model.
#[test]
fn sadm_counts_requests_lost_to_a_full_hold() {
    let k = Knobs {
        gap: 1,
        load: 0.9,
        check: false,
        ..knobs()
    };
    let (_, view) = run::<4, 1, 4, 16, 16, 12>(8, 3_000, &k);
    assert!(
        view.lost > 1_000,
        "only {} cycles with a lost request",
        view.lost
    );
}

fn report_tofino(what: &str, s: &Seen, v: &View) {
    println!(
        "{what}: {} requests, {} admitted, {} trimmed at a red meter ({} returned), {} deflected, {} refused ({} at a deflection limit); most over a deflection limit {}, over a meter's bucket {} bytes; cycles optimistic / half / pessimistic {:?}; counters metered {} deflected {}",
        s.reqs,
        s.admitted,
        s.metered,
        s.returned,
        s.deflected,
        s.refused,
        s.at_dod_limit,
        s.max_over_dod,
        s.max_over_meter,
        s.mode_cycles,
        v.metered,
        v.deflected
    );
}

/// Tofino-style trimming (paper 002 §3-§5) in the admission, an incast on output 0 from
/// two pipes: frames red at the meter of their output's mode are trimmed at ingress,
/// green ones that do not fit are deflected while their pipe's recirculation path has
/// room, congestion signals move the outputs' modes. The RTL equals the model every
/// cycle; the workload checks the modes against the signals, the deflection counts
/// against deflections and releases, and the bounds: a pipe's deflected headers and what
/// passes at each meter exceed their limits by at most `5K - 1` frames.
#[test]
fn sadm_tofino_meters_trim_and_deflect() {
    for (seed, pipes) in [(11u64, 2u8), (12, 4)] {
        let mut k = tofino_knobs();
        k.tof.pipes = pipes;
        let (s, v) = run::<4, 1, 4, 16, 16, 12>(seed, 12_000, &k);
        report_tofino(&format!("p4 seed {seed}, {pipes} pipes"), &s, &v);
        assert!(
            s.metered > 500,
            "seed {seed}: too few trimmed at a red meter"
        );
        assert!(s.deflected > 100, "seed {seed}: too few deflected");
        assert!(s.returned > 20, "seed {seed}: too few returned");
        assert!(
            s.at_dod_limit > 20,
            "seed {seed}: the deflection limit never bound"
        );
        assert!(
            (0..=4).contains(&s.max_over_dod),
            "seed {seed}: over the deflection limit by {} (negative: never reached)",
            s.max_over_dod
        );
        assert!(
            (-1500..=4 * 1500).contains(&s.max_over_meter),
            "seed {seed}: a meter passed {} bytes over its bucket (far below: it never filled)",
            s.max_over_meter
        );
        assert!(
            s.mode_cycles.iter().all(|&c| c > 1_000),
            "seed {seed}: a mode never held: {:?}",
            s.mode_cycles
        );
    }
    // with resets, and two lanes
    let (s, _) = run::<4, 1, 4, 16, 16, 12>(
        13,
        20_000,
        &Knobs {
            reset_p: 0.002,
            ..tofino_knobs()
        },
    );
    assert!(s.deflected > 50 && s.metered > 200);
    // a small buffer: with deflections (each held to the free cells less headroom, as a
    // trimmed header is) the admitted frames never hold more cells than there are
    // (headroom 200 cells: 4 frames of 1,500 bytes admitted on stale counts take 4 x 47)
    let (s, _) = run::<4, 1, 4, 16, 16, 12>(
        15,
        20_000,
        &Knobs {
            cells: 600,
            headroom: 200,
            ..tofino_knobs()
        },
    );
    println!(
        "p4 seed 15, 600 cells: {} deflected, most cells held {}",
        s.deflected, s.max_used_cells
    );
    assert!(s.deflected > 50, "too few deflected");
    assert!(
        s.max_used_cells <= 600,
        "the admitted frames held {} cells of 600",
        s.max_used_cells
    );
    let mut k = tofino_knobs();
    k.tof.pipes = 4;
    k.cells = 512;
    let (s, v) = run::<16, 2, 8, 64, 128, 10>(14, 12_000, &k);
    report_tofino("p16 seed 14, 4 pipes", &s, &v);
    assert!(s.metered > 500 && s.deflected > 100 && s.at_dod_limit > 20);
    assert!(
        (0..=9).contains(&s.max_over_dod),
        "over the deflection limit by {}",
        s.max_over_dod
    );
    assert!(
        (-1500..=9 * 1500).contains(&s.max_over_meter),
        "a meter passed {} bytes over its bucket",
        s.max_over_meter
    );
}

fn report_bolt(what: &str, s: &Seen, v: &View) {
    let b = &s.bolt;
    println!(
        "{what}: {} requests, {} admitted, {} trimmed, {} refused; {} Bolt data packets: {} SRC, {} congested with DEC already set, {} PRU earned, {} at the PRU cap, {} FIRST and LAST, {} PRU spent, {} SM spent, {} INC cleared, {} none of those; SRC counter {}",
        s.reqs,
        s.admitted,
        s.trimmed,
        s.refused,
        b.data,
        b.src,
        b.dec_kept,
        b.earn,
        b.at_cap,
        b.first_last,
        b.pru_spend,
        b.sm_spend,
        b.inc_clear,
        b.plain,
        v.srcs
    );
}

/// Every branch of Bolt's decision was taken (`what` names the run).
fn assert_bolt_coverage(what: &str, b: &BoltSeen) {
    for (n, name) in [
        (b.src, "SRCs"),
        (
            b.dec_kept,
            "congested packets with DEC already set (no SRC)",
        ),
        (b.earn, "PRU tokens earned"),
        (b.pru_spend, "PRU tokens spent"),
        (b.sm_spend, "SM tokens spent"),
        (b.inc_clear, "INC cleared"),
    ] {
        assert!(n > 0, "{what}: no {name}: {b:?}");
    }
}

/// Bolt's switch logic beside the admission, 4 ports (one lane): the RTL equals the model
/// every cycle (the verdicts' Bolt fields, the tokens, the SRC counter); the workload
/// checks each decision against the tokens it read and the queued bytes S2 read, and
/// every branch is taken: the hot output congested (SRC, or DEC kept), the others mostly
/// not (PRU tokens earned and spent, SM tokens spent when an output's supply has built
/// up, INC cleared when neither). Then resets, a PRU cap of 1 and supply matching off;
/// then mostly data packets at short queues with a PRU cap of 1, so that decisions in
/// flight spend a token another has spent.
#[test]
fn sadm_bolt_p4_matches_its_model() {
    for seed in [21u64, 22] {
        let (s, v) = run::<4, 1, 4, 16, 16, 12>(seed, 20_000, &bolt_knobs());
        report_bolt(&format!("p4 Bolt seed {seed}"), &s, &v);
        assert_bolt_coverage(&format!("p4 seed {seed}"), &s.bolt);
        assert!(s.admitted > 600 && s.trimmed > 60, "seed {seed}: {s:?}");
        assert_eq!(v.srcs as u64, s.bolt.src, "seed {seed}");
    }
    let mut k = Knobs {
        reset_p: 0.002,
        ..bolt_knobs()
    };
    k.bolt.pru_cap = 1;
    k.bolt.sm_off = true;
    let (s, v) = run::<4, 1, 4, 16, 16, 12>(23, 20_000, &k);
    report_bolt("p4 Bolt seed 23, resets, PRU cap 1, SM off", &s, &v);
    let b = s.bolt;
    assert!(
        b.sm_spend == 0
            && [
                b.src,
                b.dec_kept,
                b.earn,
                b.at_cap,
                b.pru_spend,
                b.inc_clear
            ]
            .iter()
            .all(|&x| x > 0),
        "{b:?}"
    );
    let (s, v) = run::<4, 1, 4, 16, 16, 12>(28, 20_000, &pru_heavy());
    report_bolt("p4 Bolt seed 28, mostly data, PRU cap 1", &s, &v);
    println!(
        "p4 seed 28: {} PRU spends of a token already spent",
        s.bolt_pru_stale
    );
    assert!(s.bolt.pru_spend > 200 && s.bolt_pru_stale > 6, "{s:?}");
}

/// Mostly data packets (60 %), queues drained fast, a threshold of 6,000 bytes, a PRU cap
/// of 1: PRU tokens earned and spent all the time, often by decisions in flight together.
fn pru_heavy() -> Knobs {
    let mut k = Knobs {
        data_p: 0.6,
        dep_p: 0.3,
        hot: 0.3,
        ..bolt_knobs()
    };
    k.bolt.cc_thresh = 6_000;
    k.bolt.pru_cap = 1;
    k
}

/// Two lanes (16 ports): decisions of one output in both lanes in a cycle, their bytes,
/// earned tokens and spends summed in P5. The RTL equals the model. Then the PRU-heavy
/// load.
#[test]
fn sadm_bolt_p16_matches_its_model() {
    for seed in [24u64, 25] {
        let (s, v) = run::<16, 2, 8, 64, 128, 10>(
            seed,
            8_000,
            &Knobs {
                cells: 512,
                ..bolt_knobs()
            },
        );
        report_bolt(&format!("p16 Bolt seed {seed}"), &s, &v);
        assert_bolt_coverage(&format!("p16 seed {seed}"), &s.bolt);
        assert!(s.admitted > 600 && s.trimmed > 60, "seed {seed}: {s:?}");
        assert_eq!(v.srcs as u64, s.bolt.src, "seed {seed}");
    }
    let (s, v) = run::<16, 2, 8, 64, 128, 10>(
        29,
        8_000,
        &Knobs {
            cells: 512,
            ..pru_heavy()
        },
    );
    report_bolt("p16 Bolt seed 29, mostly data, PRU cap 1", &s, &v);
    println!(
        "p16 seed 29: {} PRU spends of a token already spent",
        s.bolt_pru_stale
    );
    assert!(s.bolt.pru_spend > 200 && s.bolt_pru_stale > 6, "{s:?}");
}

/// Bolt decides at ingress and does not change admission: with the same seed (the same
/// requests, flags included), Bolt on and off admit, trim, return, deflect and refuse the
/// same frames in the same cycles (ideal trimming at 4 ports, Tofino-style at 16); with
/// Bolt off no packet is a Bolt data packet and no flag changes.
#[test]
fn sadm_bolt_leaves_admission_unchanged() {
    let on = bolt_knobs();
    let mut off = on.clone();
    off.bolt.on = false;
    let (a, _) = run::<4, 1, 4, 16, 16, 12>(26, 8_000, &on);
    let (b, vb) = run::<4, 1, 4, 16, 16, 12>(26, 8_000, &off);
    println!(
        "p4 seed 26, Bolt on / off: {} / {} Bolt data packets, {} / {} admitted, {} / {} trimmed, {} / {} refused",
        a.bolt.data, b.bolt.data, a.admitted, b.admitted, a.trimmed, b.trimmed, a.refused, b.refused
    );
    assert!(a.bolt.data > 500 && b.bolt.data == 0 && vb.srcs == 0);
    assert_eq!(
        (a.verdict_hash, a.admitted, a.trimmed, a.returned, a.refused),
        (b.verdict_hash, b.admitted, b.trimmed, b.returned, b.refused),
        "Bolt changed admission"
    );
    let mut t = Knobs {
        cells: 512,
        data_p: on.data_p,
        reset_first: true,
        ..tofino_knobs()
    };
    t.tof.pipes = 4;
    let u = Knobs {
        bolt: on.bolt,
        ..t.clone()
    };
    let (a, _) = run::<16, 2, 8, 64, 128, 10>(27, 6_000, &t);
    let (b, _) = run::<16, 2, 8, 64, 128, 10>(27, 6_000, &u);
    println!(
        "p16 seed 27, Tofino-style, Bolt off / on: {} / {} Bolt data packets, {} / {} admitted, {} / {} metered, {} / {} deflected, {} / {} refused",
        a.bolt.data, b.bolt.data, a.admitted, b.admitted, a.metered, b.metered, a.deflected, b.deflected, a.refused, b.refused
    );
    assert!(b.bolt.data > 500 && a.bolt.data == 0 && a.deflected > 20 && a.metered > 20);
    assert_eq!(
        (
            a.verdict_hash,
            a.admitted,
            a.trimmed,
            a.metered,
            a.deflected,
            a.refused
        ),
        (
            b.verdict_hash,
            b.admitted,
            b.trimmed,
            b.metered,
            b.deflected,
            b.refused
        ),
        "Bolt changed Tofino-style admission"
    );
}

/// SPEC §3 / thesis Algorithms 7 and 9 when an output's data packets are at least 5 cycles
/// apart in P2 (requests with DATA to an output `M + 4` cycles apart). An independent
/// reference in the workload keeps per output the supply token `sm = min(sm + 8 (t -
/// t_last) - L, MTU)`, less an MTU per SM token spent (`t` a decision's P2 cycle, 3 before
/// its verdict; from 0 at the end of the reset, at most `2^20` while idle), and the PRU
/// tokens (earned on LAST without FIRST up to the cap, spent on INC), with congestion from
/// the queued bytes S2 read. Every decision's SRC and flags, and the tokens it read, equal
/// the reference's, and every output's `pru` and `sm` equal the reference's in every
/// cycle once its last decision's update is in (5 cycles after its P2). The last run
/// spaces them so far apart that the supply reaches its idle cap.
#[test]
fn sadm_bolt_tokens_follow_the_thesis_when_arrivals_are_apart() {
    let mut total = BoltSeen::default();
    let (mut tokens, mut capped) = (0, 0);
    // (ports, seed, cycles, data, load, PRU cap, apart)
    for (n, seed, cycles, data_p, load, pru_cap, apart) in [
        (4usize, 31u64, 10_000u64, 0.25, 0.3, 2u8, 8u64),
        (4, 32, 10_000, 0.08, 0.5, 1, 8),
        (16, 33, 6_000, 0.1, 0.3, 1, 12),
        (16, 34, 6_000, 0.05, 0.3, 0, 12),
        (4, 35, 136_000, 0.5, 0.05, 2, 133_000),
    ] {
        let mut k = Knobs {
            data_p,
            load,
            hot: 0.3,
            bolt_apart: apart,
            bolt_ref: true,
            ..bolt_knobs()
        };
        k.bolt.pru_cap = pru_cap;
        let (s, v) = if n == 4 {
            run::<4, 1, 4, 16, 16, 12>(seed, cycles, &k)
        } else {
            run::<16, 2, 8, 64, 128, 10>(seed, cycles, &Knobs { cells: 512, ..k })
        };
        let what =
            format!("p{n} seed {seed}, data packets {apart} cycles apart, PRU cap {pru_cap}");
        report_bolt(&what, &s, &v);
        let r = s.bolt_ref;
        println!(
            "{what}: the thesis's reference checked {} decisions ({} SRC, {} DEC kept, {} PRU earned, {} at the cap, {} FIRST and LAST, {} PRU spent, {} SM spent, {} INC cleared, {} none), {} of them at the idle cap, and the tokens of {} (output, cycle) pairs ({} at the idle cap); {} floored",
            r.data, r.src, r.dec_kept, r.earn, r.at_cap, r.first_last, r.pru_spend, r.sm_spend, r.inc_clear, r.plain, s.bolt_ref_read_idle_cap, s.bolt_ref_tokens, s.bolt_ref_idle_cap, s.bolt_ref_floored
        );
        assert_eq!(
            r, s.bolt,
            "{what}: the reference did not see every decision"
        );
        assert_eq!(s.bolt_ref_floored, 0, "{what}: a token reached the floor");
        assert!(
            r.data > 0 && s.bolt_ref_tokens > cycles * n as u64 / 2,
            "{what}: tokens seldom settled"
        );
        for (t, x) in [
            (&mut total.data, r.data),
            (&mut total.src, r.src),
            (&mut total.dec_kept, r.dec_kept),
            (&mut total.earn, r.earn),
            (&mut total.at_cap, r.at_cap),
            (&mut total.first_last, r.first_last),
            (&mut total.pru_spend, r.pru_spend),
            (&mut total.sm_spend, r.sm_spend),
            (&mut total.inc_clear, r.inc_clear),
            (&mut total.plain, r.plain),
        ] {
            *t += x;
        }
        tokens += s.bolt_ref_tokens;
        capped += s.bolt_ref_read_idle_cap;
        if apart > cycles / 2 {
            assert!(
                s.bolt_ref_idle_cap > 0 && s.bolt_ref_read_idle_cap > 0,
                "{what}: the supply never reached its idle cap"
            );
        }
    }
    println!("the thesis's reference, all runs: {total:?}; {tokens} token checks, {capped} decisions read a supply at the idle cap");
    assert_bolt_coverage("all runs", &total);
    assert!(
        total.at_cap > 0 && total.first_last > 0 && total.plain > 0,
        "{total:?}"
    );
}

/// Runs the block and the model side by side for `cycles` cycles (a reset in cycle 0, no
/// limit binding, Bolt with `bolt`), with the requests `script` gives per cycle (input,
/// flags; 100 bytes to output `out`); returns every cycle's view.
fn directed<
    const N: usize,
    const K: usize,
    const M: usize,
    const NB: usize,
    const KNB: usize,
    const CC: usize,
>(
    cycles: u64,
    bolt: BoltCfgV,
    script: impl Fn(u64) -> Vec<(usize, u8, u8)>,
) -> Vec<View> {
    let mut kern = Kernel::new(Admission::<N, K, M, NB, KNB, CC>::new()).expect("kernel");
    let mut m = AdmModel::new(N, K);
    let mut views = vec![];
    lockstep(
        0,
        cycles,
        &mut kern,
        &mut m,
        read,
        |c, v| {
            views.push(v.clone());
            let mut d = Drive {
                reset: c == 0,
                req: vec![None; N],
                dep: vec![None; N],
                band: [BandCfg {
                    lim_pkts: 1000,
                    lim_bytes: 1 << 20,
                    dt_a: 4,
                }; 4],
                free_rows: 512,
                port: LimCfg::OFF,
                hdr: LimCfg::OFF,
                cong: vec![false; N],
                bolt,
                ..Default::default()
            };
            for (i, out, bf) in script(c) {
                d.req[i] = Some(Req {
                    out,
                    bytes: 100,
                    words: 13,
                    empty: 4,
                    ok: true,
                    bf,
                    ..Default::default()
                });
            }
            Ok(d)
        },
        drive,
    );
    views
}

/// The cycles of the verdicts of Bolt data packets to output `o`, and their verdicts.
fn bolt_verdicts(views: &[View], o: u8) -> Vec<(usize, nt_sim::adm_workload::Verdict)> {
    let mut r = vec![];
    for (c, v) in views.iter().enumerate() {
        for x in v.vd.iter().flatten() {
            if x.bm && x.out == o {
                r.push((c, *x));
            }
        }
    }
    r
}

/// Decisions that read a token another decision has already spent (within 5 cycles, or
/// in the other lane in the same cycle): a PRU token spent twice floors at 0, not below
/// and not at the cap; an SM token spent twice takes both (SPEC §3's tokens per output,
/// the module's "`pru` floors at 0, `sm` takes both spends").
#[test]
fn sadm_bolt_stale_spends_floor_pru_and_take_both_sm() {
    let cfg = BoltCfgV {
        on: true,
        cc_thresh: 100_000,
        mtu: 1500,
        pru_cap: 4,
        sm_off: false,
    };
    let (data_inc, data_last) = (BOLT_DATA | BOLT_INC, BOLT_DATA | BOLT_LAST);
    // one lane: a PRU token earned, then two INC packets of inputs 0 and 1 decided in
    // consecutive cycles, both reading the one token (an RTL that computed `pru + g - s`
    // in 9 bits and capped the wrapped difference would jump to the cap here)
    let v = directed::<4, 1, 4, 16, 16, 12>(50, cfg, |c| match c {
        2 => vec![(0, 1, data_last)],
        20 => vec![(0, 1, data_inc), (1, 1, data_inc)],
        _ => vec![],
    });
    let vd = bolt_verdicts(&v, 1);
    assert_eq!(vd.len(), 3, "{vd:?}");
    let (t1, t2) = (vd[1].0 - 3, vd[2].0 - 3);
    println!(
        "p4: PRU spends in P2 cycles {t1} and {t2} read {} and {} tokens; PRU {:?} from cycle {}",
        v[t1].pru[1],
        v[t2].pru[1],
        (t1..v.len()).map(|c| v[c].pru[1]).collect::<Vec<_>>(),
        t1
    );
    assert!(t2 > t1 && t2 < t1 + 5 && v[t1].pru[1] == 1 && v[t2].pru[1] == 1);
    assert!(
        vd[1..].iter().all(|(_, x)| x.bf == data_inc && !x.src),
        "{vd:?}"
    );
    assert_eq!(v[t1 + 5].pru[1], 0);
    assert!(
        v[t2 + 5..].iter().all(|x| x.pru[1] == 0),
        "two spends of one PRU token did not floor at 0"
    );
    // two lanes: inputs 0 (lane 0) and 8 (lane 1) decide in the same cycle; output 1 with
    // supply for one SM token, output 2 with one PRU token
    let v = directed::<16, 2, 8, 64, 128, 10>(400, cfg, |c| match c {
        300 => vec![(0, 1, data_inc), (8, 1, data_inc)],
        310 => vec![(1, 2, data_last)],
        330 => vec![(0, 2, data_inc), (8, 2, data_inc)],
        _ => vec![],
    });
    let vd = bolt_verdicts(&v, 1);
    assert!(vd.len() == 2 && vd[0].0 == vd[1].0, "{vd:?}");
    let t = vd[0].0 - 3;
    let s = v[t].sm[1] as i32 as i64;
    let mtu = cfg.mtu as i64;
    // both read the same supply (enough for one, less than two: the second spends what
    // the first has) and keep INC by an SM token; the supply takes both
    assert!(
        (100 + mtu..2 * (100 + mtu)).contains(&s) && v[t].pru[1] == 0,
        "{s}"
    );
    assert!(vd.iter().all(|(_, x)| x.bf == data_inc), "{vd:?}");
    let e = (s + 40 - 200).min(mtu + 40) - 2 * mtu;
    println!(
        "p16: two SM spends in P2 cycle {t} read supply {s}; supply {} at {} (expected {e})",
        v[t + 5].sm[1] as i32,
        t + 5
    );
    assert_eq!(v[t + 5].sm[1] as i32 as i64, e);
    let vd = bolt_verdicts(&v, 2);
    assert!(vd.len() == 3 && vd[1].0 == vd[2].0, "{vd:?}");
    let t = vd[1].0 - 3;
    assert!(v[t].pru[2] == 1 && vd[1..].iter().all(|(_, x)| x.bf == data_inc));
    println!(
        "p16: two PRU spends in P2 cycle {t} read 1 token; PRU {:?} from cycle {t}",
        (t..t + 8).map(|c| v[c].pru[2]).collect::<Vec<_>>()
    );
    assert!(
        v[t + 5..].iter().all(|x| x.pru[2] == 0),
        "two spends of one PRU token in one cycle did not floor at 0"
    );
}
