//! The rust-hdl switch against [`SwitchModel`] under the seeded [`SwitchWorkload`]: random
//! frames of 64..=1088 bytes from every port (a hot-spot destination so queues fill, trims,
//! returns and drops happen), malformed and unrouted frames, idle gaps, gaps inside frames
//! and TX backpressure. Every output port (`tx` valid/data/last/empty, `rx.ready`, every
//! counter and every band's occupancy) is compared every cycle, so the frame sequence of
//! every output port is the model's too; the runs must show every kind of event. After the
//! seeded cycles the traffic stops and every link runs until the switch is empty (still
//! compared every cycle), and the counters must balance: every frame in, plus every SRC
//! generated, is a frame out or a drop of exactly one kind.
//!
//! `NT_SWITCH_SEED` and `NT_SWITCH_CYCLES` replay one seed / change the length.
use nt_hdl::mode::SwitchMode;
use nt_hdl::switch::{Switch, BOLT_DEC, BOLT_SRC};
use nt_sim::kernel::Kernel;
use nt_sim::switch_workload::{
    apply_setup, drive_switch, read_switch, PortStats, SwitchSetup, SwitchWorkload, TrafficKnobs,
};
use nt_sim::wire::{from_words, ipv4_checksum, Word, BOLT_OFFSET};
use nt_testbench::switch_model::SwitchModel;

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number"))
    })
}

#[derive(Debug, Default)]
struct Run {
    /// Sum of every port's counters at the end.
    total: PortStats,
    /// Frames out per port.
    frames: Vec<usize>,
    /// Words out / cycles, over all ports.
    words: u64,
    rollbacks: u64,
    /// Rollbacks of trimmed, returned or deflected headers (length mismatches found at
    /// the frame's end).
    header_rollbacks: u64,
    /// Rollbacks of frames dropped at word 4 (counted as malformed, not as that drop).
    drop_rollbacks: u64,
    /// Cycles the switch took to empty after the traffic stopped.
    drain: u64,
    /// Peak occupancy of any (port, band).
    peak_occ: u64,
    /// Bolt: SRC frames out, data frames out with DEC set, extremes of the token counters.
    src_frames: u64,
    dec_frames: u64,
    pru_max: u64,
    sm_min: i64,
    sm_max: i64,
    /// Tofino: the most records an input's DoD queue held, and the port modes seen (bit m
    /// for mode m).
    dodq_max: u64,
    tmodes: u64,
}

fn run<
    const N: usize,
    const NN: usize,
    const NB: usize,
    const NNB: usize,
    const NR: usize,
    const NP: usize,
>(
    setup: &SwitchSetup,
    knobs: TrafficKnobs,
    seed: u64,
    cycles: u64,
) -> Result<Run, String> {
    let mut k = Kernel::new(Switch::<N, NN, NB, NNB, NR, NP>::new()).map_err(|e| e.to_string())?;
    apply_setup(k.uut_mut(), setup);
    let mut w = SwitchWorkload::new(seed, N, knobs);
    let mut m = SwitchModel::new(setup);
    let mut cur: Vec<Vec<Word>> = vec![vec![]; N];
    let mut r = Run {
        frames: vec![0; N],
        ..Run::default()
    };
    // The seeded cycles, then the drain: no new frames, every link ready, until the
    // switch is empty.
    let drain_max = 200_000;
    for t in 0..cycles + drain_max {
        let draining = t >= cycles;
        let mut inp = w.next(!draining);
        if draining {
            if w.drained() && m.idle() {
                r.drain = t - cycles;
                break;
            }
            if t + 1 == cycles + drain_max {
                return Err(format!(
                    "not empty {drain_max} cycles after the traffic stopped"
                ));
            }
            for x in inp.iter_mut() {
                x.tx_ready = true;
            }
        }
        drive_switch(k.uut_mut(), &inp);
        k.settle().map_err(|e| e.to_string())?;
        let got = read_switch(k.uut());
        let want = m.outputs();
        for p in 0..N {
            if got[p] != want[p] {
                return Err(format!(
                    "cycle {t} port {p}: inputs {:?}\n  block {:?}\n  model {:?}",
                    inp[p], got[p], want[p]
                ));
            }
            if let (Some(x), true) = (got[p].tx, inp[p].tx_ready) {
                r.words += 1;
                cur[p].push(x);
                if x.last {
                    let f = from_words(&std::mem::take(&mut cur[p]));
                    let src = f.len() == 64 && f[34] == 0 && f[BOLT_OFFSET + 4] == BOLT_SRC;
                    // Trimmed or returned headers and SRCs keep a valid IPv4 checksum.
                    if f.len() == 64
                        && (f[34] & 0x10 != 0 || src)
                        && f[12..14] == [8, 0]
                        && ipv4_checksum(&f[14..34]) != 0
                    {
                        return Err(format!("cycle {t} port {p}: bad checksum {f:02x?}"));
                    }
                    if src {
                        r.src_frames += 1;
                    } else if f.len() > BOLT_OFFSET + 4
                        && f[34] & 0x01 != 0
                        && f[BOLT_OFFSET + 4] & BOLT_DEC != 0
                    {
                        r.dec_frames += 1;
                    }
                    r.frames[p] += 1;
                }
            }
            for b in 0..4 {
                r.peak_occ = r.peak_occ.max(got[p].stat.occ_bytes[b]);
            }
            r.pru_max = r.pru_max.max(got[p].stat.pru);
            r.sm_min = r.sm_min.min(got[p].stat.sm);
            r.sm_max = r.sm_max.max(got[p].stat.sm);
            r.dodq_max = r.dodq_max.max(got[p].stat.dod_q);
            r.tmodes |= 1 << got[p].stat.tmode;
        }
        m.step(&inp);
        k.tick().map_err(|e| e.to_string())?;
    }
    let out = m.outputs();
    for o in out {
        let s = o.stat;
        let t = &mut r.total;
        t.rx_frames += s.rx_frames;
        t.tx_frames += s.tx_frames;
        t.drop_malformed += s.drop_malformed;
        t.drop_no_route += s.drop_no_route;
        t.drop_full += s.drop_full;
        t.trimmed += s.trimmed;
        t.returned += s.returned;
        t.drop_header += s.drop_header;
        t.src_sent += s.src_sent;
        t.src_drop += s.src_drop;
        t.dod_trims += s.dod_trims;
        t.dod_drop += s.dod_drop;
    }
    r.rollbacks = m.rollbacks.iter().sum();
    r.header_rollbacks = m.header_rollbacks.iter().sum();
    r.drop_rollbacks = m.drop_rollbacks.iter().sum();
    // Every frame in (and every SRC the switch made) is a frame out or one drop.
    let t = &r.total;
    let inn = t.rx_frames + t.src_sent;
    let out =
        t.tx_frames + t.drop_malformed + t.drop_no_route + t.drop_full + t.drop_header + t.dod_drop;
    if inn != out {
        return Err(format!(
            "counters do not balance: rx_frames + src_sent = {inn}, tx_frames + drops = {out}: {t:?}"
        ));
    }
    Ok(r)
}

fn seeds(default: &[u64]) -> Vec<u64> {
    match env_u64("NT_SWITCH_SEED") {
        Some(s) => vec![s],
        None => default.to_vec(),
    }
}

/// Runs `setup` for every seed; panics with the seed on a mismatch.
fn check<
    const N: usize,
    const NN: usize,
    const NB: usize,
    const NNB: usize,
    const NR: usize,
    const NP: usize,
>(
    name: &str,
    setup: &SwitchSetup,
    knobs: &TrafficKnobs,
    default_seeds: &[u64],
    default_cycles: u64,
) -> Vec<Run> {
    let cycles = env_u64("NT_SWITCH_CYCLES").unwrap_or(default_cycles);
    seeds(default_seeds)
        .into_iter()
        .map(|seed| {
            let t0 = std::time::Instant::now();
            let r = run::<N, NN, NB, NNB, NR, NP>(setup, knobs.clone(), seed, cycles)
                .unwrap_or_else(|e| {
                    panic!("switch {name} N={N} seed {seed} ({cycles} cycles; replay with NT_SWITCH_SEED={seed}): {e}")
                });
            println!(
                "switch {name} N={N} seed {seed}: {cycles} cycles (+{} to drain) in {:.1} s, frames out {:?}, words out {}, rollbacks {} (headers {}, word-4 drops {}), peak occupancy {} B, totals {:?}",
                r.drain,
                t0.elapsed().as_secs_f64(),
                r.frames,
                r.words,
                r.rollbacks,
                r.header_rollbacks,
                r.drop_rollbacks,
                r.peak_occ,
                r.total
            );
            r
        })
        .collect()
}

fn small_limits(ports: usize) -> SwitchSetup {
    let mut s = SwitchSetup::new(ports);
    s.limit_bytes = [3000, 6000, 5000, 8000];
    s.limit_pkts = [12, 8, 10, 6];
    s
}

fn common(r: &Run) {
    let t = &r.total;
    assert!(t.rx_frames > 200, "{t:?}");
    assert!(t.drop_malformed > 5, "{t:?}");
    assert!(t.drop_no_route > 2, "{t:?}");
    assert!(
        r.rollbacks > 0,
        "length mismatches rolled back: {}",
        r.rollbacks
    );
    assert!(r.frames.iter().all(|&f| f > 10), "{:?}", r.frames);
}

#[test]
fn switch_n4_droptail_strict_priority_matches_the_model() {
    let s = small_limits(4);
    for r in check::<4, 16, 16, 64, 80, 20>(
        "droptail-sp",
        &s,
        &TrafficKnobs::default(),
        &[41, 42],
        20_000,
    ) {
        common(&r);
        assert!(r.total.drop_full > 20, "{:?}", r.total);
        assert!(
            r.drop_rollbacks > 0,
            "frames dropped at word 4, then found malformed: {}",
            r.drop_rollbacks
        );
        assert_eq!((r.total.trimmed, r.total.returned), (0, 0));
    }
}

#[test]
fn switch_n4_trim_strict_priority_with_return_matches_the_model() {
    let mut s = small_limits(4);
    s.mode = SwitchMode::Trim;
    s.ret = true;
    s.limit_bytes[0] = 700;
    let knobs = TrafficKnobs {
        load: 0.5,
        hot: 0.6,
        ..TrafficKnobs::default()
    };
    for r in check::<4, 16, 16, 64, 80, 20>("trim-sp-ret", &s, &knobs, &[43, 44], 20_000) {
        common(&r);
        let t = &r.total;
        assert!(t.trimmed > 50, "{t:?}");
        assert!(t.returned > 5, "{t:?}");
        assert!(r.header_rollbacks > 0, "malformed frames never trimmed");
        assert!(t.drop_full > 5, "non-DATA packets dropped: {t:?}");
    }
}

#[test]
fn switch_n4_trim_wrr_bands_by_flags_matches_the_model() {
    let mut s = small_limits(4);
    s.mode = SwitchMode::Trim;
    s.wrr = true;
    s.band_by_flags = true;
    s.weight = [3, 2, 0, 1];
    s.limit_bytes[0] = 600;
    let knobs = TrafficKnobs {
        load: 0.5,
        hot: 0.5,
        ..TrafficKnobs::default()
    };
    for r in check::<4, 16, 16, 64, 80, 20>("trim-wrr-flags", &s, &knobs, &[45], 20_000) {
        common(&r);
        let t = &r.total;
        assert!(t.trimmed > 50, "{t:?}");
        assert!(t.drop_header > 5, "headers dropped without return: {t:?}");
        assert!(r.header_rollbacks > 0, "malformed frames never trimmed");
        assert_eq!(t.returned, 0);
    }
}

#[test]
fn switch_n4_droptail_wrr_matches_the_model() {
    let mut s = small_limits(4);
    s.mode = SwitchMode::DropTail;
    s.wrr = true;
    s.weight = [1, 4, 2, 1];
    for r in
        check::<4, 16, 16, 64, 80, 20>("droptail-wrr", &s, &TrafficKnobs::default(), &[46], 15_000)
    {
        common(&r);
    }
}

/// Bolt: SRC generation (with a return queue that sometimes has no room), DEC/INC
/// rewriting, PRU tokens up to their cap, and the supply token on both sides of zero, on
/// random Bolt flags; every SRC and every rewritten data packet compared word by word.
/// Supply matching is on for odd seeds and off (`cfg.sm_off`) for even ones, so the
/// default seeds run both and a replayed seed (`NT_SWITCH_SEED`) gets its own setting.
#[test]
fn switch_n4_bolt_matches_the_model() {
    let mut s = small_limits(4);
    s.mode = SwitchMode::Bolt;
    s.cc_thresh = 2000;
    s.pru_cap = 5;
    let knobs = TrafficKnobs {
        load: 0.5,
        hot: 0.5,
        ..TrafficKnobs::default()
    };
    let mut runs = vec![];
    for seed in seeds(&[47, 48]) {
        s.sm = seed % 2 == 1;
        let name = if s.sm { "bolt" } else { "bolt-sm-off" };
        runs.extend(check::<4, 16, 16, 64, 80, 20>(
            name,
            &s,
            &knobs,
            &[seed],
            20_000,
        ));
    }
    s.sm = true;
    for r in runs {
        common(&r);
        let t = &r.total;
        assert!(t.src_sent > 50, "{t:?}");
        assert!(
            r.drop_rollbacks > 0,
            "frames dropped at word 4, then found malformed: {}",
            r.drop_rollbacks
        );
        assert!(
            r.src_frames + 8 * 4 >= t.src_sent && r.src_frames <= t.src_sent,
            "SRC frames out {} vs generated {}",
            r.src_frames,
            t.src_sent
        );
        assert!(
            r.dec_frames > 20,
            "data frames out with DEC: {}",
            r.dec_frames
        );
        assert_eq!(r.pru_max, 5, "PRU tokens reach their cap");
        assert!(
            r.sm_min < 0 && r.sm_max == 1088,
            "SM range {}..{}",
            r.sm_min,
            r.sm_max
        );
        assert_eq!((t.trimmed, t.returned), (0, 0));
    }
    // Every data packet congested, links almost stalled: return queues fill, SRCs are lost
    // and counted.
    s.cc_thresh = 0;
    let knobs = TrafficKnobs {
        load: 0.7,
        hot: 0.3,
        tx_ready: 0.05,
        ..TrafficKnobs::default()
    };
    let drops: u64 = check::<4, 16, 16, 64, 80, 20>("bolt-stalled", &s, &knobs, &[49], 15_000)
        .iter()
        .map(|r| r.total.src_drop)
        .sum();
    assert!(drops > 0, "SRCs lost to a full return queue");
}

/// Tofino-style trimming with 1, 2 and 4 pipes: meters at ingress in every mode, deflected
/// packets through the recirculation servers, released headers, congestion signals with
/// short T0/T1 so every port mode occurs; then nearly stalled links, so DoD queues fill and
/// deflected packets are lost and counted.
#[test]
fn switch_n4_tofino_matches_the_model() {
    let mut s = small_limits(4);
    s.mode = SwitchMode::TofinoTrim;
    s.ret = true;
    s.limit_bytes[0] = 900;
    s.t0 = 400;
    s.t1 = 300;
    s.meter_burst = 3000;
    let knobs = TrafficKnobs {
        load: 0.8,
        hot: 0.7,
        tx_ready: 0.9,
        ..TrafficKnobs::default()
    };
    for (pipes, seed) in [(1, 50), (2, 51), (4, 54)] {
        s.pipes = pipes;
        let name = format!("tofino-{pipes}-pipes");
        for r in check::<4, 16, 16, 64, 80, 20>(&name, &s, &knobs, &[seed], 15_000) {
            common(&r);
            let t = &r.total;
            assert!(t.trimmed > 10, "ingress trims: {t:?}");
            assert!(t.dod_trims > 10, "trims after recirculation: {t:?}");
            assert!(r.dodq_max > 1, "DoD queue depth {}", r.dodq_max);
            assert!(r.header_rollbacks > 0, "malformed frames never trimmed");
            println!("tofino {pipes} pipes: deepest DoD queue {}", r.dodq_max);
            assert_eq!(
                r.tmodes, 0b111,
                "optimistic, half-pessimistic and pessimistic"
            );
        }
    }
    s.pipes = 2;
    let knobs = TrafficKnobs {
        load: 0.7,
        hot: 0.3,
        tx_ready: 0.05,
        ..TrafficKnobs::default()
    };
    let runs = check::<4, 16, 16, 64, 80, 20>("tofino-stalled", &s, &knobs, &[53], 15_000);
    let drops: u64 = runs.iter().map(|r| r.total.dod_drop).sum();
    assert!(drops > 0, "deflected packets lost to full DoD queues");
}

#[test]
fn switch_n16_trim_matches_the_model() {
    let mut s = small_limits(16);
    s.mode = SwitchMode::Trim;
    s.ret = true;
    s.limit_bytes[0] = 900;
    let knobs = TrafficKnobs {
        load: 0.2,
        hot: 0.3,
        ..TrafficKnobs::default()
    };
    for r in check::<16, 256, 64, 1024, 1088, 272>("trim-sp-ret", &s, &knobs, &[1601], 3_000) {
        let t = &r.total;
        assert!(t.rx_frames > 100, "{t:?}");
        assert!(t.trimmed > 5, "{t:?}");
    }
}
