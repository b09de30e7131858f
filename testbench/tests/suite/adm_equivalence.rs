//! The switch's admission ([`nt_hdl::sadm`]) on the cycle kernel against [`AdmModel`],
//! every output in every cycle, at 4 ports (one lane) and 16 (two lanes), under the
//! seeded, self-checking workload of [`nt_sim::adm_workload`]: one verdict per request in
//! order and in time, counters equal to what was admitted and has not left, and the
//! guarantee that a limit is exceeded by at most `5K - 1` packets: a band's, the output's
//! (all bands) and the header limits of band 0.
use nt_hdl::sadm::Admission;
use nt_sim::adm_workload::{
    drive, knobs, read, tofino_knobs, AdmWorkload, BandCfg, Knobs, LimCfg, Seen, View,
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
        let (s, v) = run::<4, 1, 4, 16, 16, 12>(seed, 20_000, &k);
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
