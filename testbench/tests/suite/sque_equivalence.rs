//! The switch's queues and schedulers ([`nt_hdl::sque`]) on the cycle kernel against
//! [`SqueModel`], every output in every cycle, at 4 ports (one lane, one replica) and 16
//! (two lanes, two replicas), under the seeded, self-checking workload of
//! [`nt_sim::sque_workload`]: every packet handed to its output once, in order per input
//! and band, strict priority kept, departures reported with their band and bytes, and
//! everything gone after a drain; with deflected headers (Tofino-style trimming's
//! deflect-on-drop), each recirculated for its frame's length, released (`rel`, `cong`)
//! and counted (`recirculated`) before it goes out in band 0 of its output.
use nt_hdl::sque::SwitchQueues;
use nt_sim::kernel::Kernel;
use nt_sim::sque_workload::{drive, knobs, read, Drive, Knobs, Meta, Seen, SqueWorkload, Vd};
use nt_testbench::equiv::lockstep;
use nt_testbench::sque_model::SqueModel;

#[allow(clippy::too_many_arguments)]
fn run<
    const N: usize,
    const K: usize,
    const M: usize,
    const CA: usize,
    const CC: usize,
    const RP: usize,
    const NB: usize,
    const KNB: usize,
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
    let mut kern = Kernel::new(SwitchQueues::<
        N,
        K,
        M,
        CA,
        CC,
        RP,
        NB,
        KNB,
        KRP,
        NRP,
        NK,
        N4K,
        KP,
    >::new())
    .expect("kernel");
    let mut m = SqueModel::new(N, K, CA, RP);
    let mut w = SqueWorkload::new(seed, N, 1 << CA, cycles, k.clone());
    let last = lockstep(
        seed,
        cycles,
        &mut kern,
        &mut m,
        read,
        |c, v| w.step(c, v),
        drive,
    );
    let s = *w.finish().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    // every rel pulse counted, the last ones a cycle later (no rel pulse after a drain)
    if k.reset_p == 0.0 {
        assert_eq!(
            last.recirculated as u64, s.recirculated,
            "seed {seed}: recirculated after the drain"
        );
    }
    let util: Vec<String> = (0..N)
        .map(|o| format!("{:.3}", s.busy[o] as f64 / s.backlogged[o].max(1) as f64))
        .collect();
    println!(
        "seed {seed}, {N} ports: {} admitted, {} left (bands {:?}); busy / backlogged per output {}",
        s.admitted,
        s.left,
        s.bands,
        util.join(" ")
    );
    if s.deflected > 0 {
        println!(
            "seed {seed}, {N} ports, {} pipes: {} deflected, {} recirculated, at most {} held by a pipe; pop to descriptor at most {} cycles, at least the words + {}",
            k.pipes,
            s.deflected,
            s.recirculated,
            s.max_dod_held,
            s.max_recirc_wait,
            s.min_recirc_over_words.unwrap_or(0)
        );
    }
    s
}

fn p4(seed: u64, cycles: u64, k: &Knobs) -> Seen {
    run::<4, 1, 4, 11, 12, 1, 16, 16, 1, 4, 4, 16, 4>(seed, cycles, k)
}

fn p16(seed: u64, cycles: u64, k: &Knobs) -> Seen {
    run::<16, 2, 8, 9, 10, 2, 64, 128, 4, 32, 32, 128, 8>(seed, cycles, k)
}

/// Strict priority under an incast on output 0: the RTL equals the model, and every
/// check of the workload holds.
#[test]
fn sque_p4_matches_its_model_under_strict_priority() {
    for seed in 1..=2 {
        let s = p4(seed, 20_000, &knobs());
        assert!(s.left > 1_500, "too little traffic: {s:?}");
        assert!(s.bands.iter().all(|&b| b > 100), "a band starved: {s:?}");
    }
}

/// WRR, resets.
#[test]
fn sque_p4_wrr_and_resets() {
    let s = p4(
        3,
        20_000,
        &Knobs {
            wrr: true,
            reset_p: 0.001,
            ..knobs()
        },
    );
    assert!(s.left > 1_000, "{s:?}");
}

/// 16 ports: two lanes, two replicas.
#[test]
fn sque_p16_matches_its_model() {
    let s = p16(4, 10_000, &knobs());
    assert!(s.left > 2_000, "too little traffic: {s:?}");
}

/// Line rate: every input sends 8-word packets to its own output (the worst size) every
/// 8 cycles, no stalls; each output's reader is busy in every cycle it has a packet to send.
#[test]
fn sque_keeps_every_output_busy_with_the_smallest_packets() {
    for (ports, s) in [
        (
            4,
            p4(
                5,
                6_000,
                &Knobs {
                    load: 1.0,
                    refuse_p: 0.0,
                    own: true,
                    words: (8, 8),
                    stall_p: 0.0,
                    ..knobs()
                },
            ),
        ),
        (
            16,
            p16(
                6,
                6_000,
                &Knobs {
                    load: 1.0,
                    refuse_p: 0.0,
                    own: true,
                    words: (8, 8),
                    stall_p: 0.0,
                    ..knobs()
                },
            ),
        ),
    ] {
        for o in 0..ports {
            let u = s.busy[o] as f64 / s.backlogged[o].max(1) as f64;
            assert!(
                u > 0.99,
                "{ports} ports, output {o}: busy {u:.3} of its backlogged cycles"
            );
        }
    }
}

/// Deflected headers at 4 ports (one lane): two pipes; four pipes with resets; two pipes
/// deflecting most frames, short ones at line rate, so that each server is asked for
/// twice its rate (its FIFO fills up to the deflection limit); four pipes whose servers
/// hold headers for 1 to 3 cycles only, so that returns meet in the lane (the higher
/// pipe waits, its server holds a done header); and holds of 512 (`W` = 0).
#[test]
fn sque_p4_recirculates_deflected_headers() {
    let s = p4(
        11,
        20_000,
        &Knobs {
            pipes: 2,
            dod_p: 0.3,
            ..knobs()
        },
    );
    assert!(s.deflected > 500, "too few deflected: {s:?}");
    assert_eq!(s.recirculated, s.deflected, "{s:?}");
    assert!(s.left > 1_500, "too little traffic: {s:?}");
    let s = p4(
        12,
        20_000,
        &Knobs {
            pipes: 4,
            dod_p: 0.3,
            reset_p: 0.001,
            ..knobs()
        },
    );
    assert!(s.deflected > 300, "too few deflected: {s:?}");
    let s = p4(
        13,
        10_000,
        &Knobs {
            pipes: 2,
            dod_p: 0.9,
            load: 1.0,
            refuse_p: 0.0,
            words: (8, 12),
            lim_dod: 40,
            ..knobs()
        },
    );
    assert!(s.deflected > 1_000, "too few deflected: {s:?}");
    assert_eq!(s.recirculated, s.deflected, "{s:?}");
    assert!(s.max_dod_held >= 20, "the pipes never backed up: {s:?}");
    let s = p4(
        16,
        8_000,
        &Knobs {
            pipes: 4,
            dod_p: 0.6,
            load: 1.0,
            refuse_p: 0.0,
            words: (8, 12),
            dod_words: Some((1, 3)),
            ..knobs()
        },
    );
    assert!(s.deflected > 500, "too few deflected: {s:?}");
    assert_eq!(s.recirculated, s.deflected, "{s:?}");
    let s = p4(
        17,
        6_000,
        &Knobs {
            pipes: 2,
            dod_p: 0.3,
            dod_words: Some((0, 0)),
            lim_dod: 2,
            ..knobs()
        },
    );
    assert!(s.deflected >= 10, "too few deflected: {s:?}");
    assert_eq!(s.recirculated, s.deflected, "{s:?}");
    assert!(s.max_recirc_wait >= 512, "{s:?}");
}

/// Deflected headers at 16 ports (two lanes, a FIFO per lane and pipe): four pipes, and
/// three; and four pipes with holds of 1 to 3 cycles, so that returns of both lanes
/// meet in each lane and the servers turn between the lanes' FIFOs.
#[test]
fn sque_p16_recirculates_deflected_headers() {
    for (seed, pipes) in [(14, 4), (15, 3)] {
        let s = p16(
            seed,
            10_000,
            &Knobs {
                pipes,
                dod_p: 0.3,
                ..knobs()
            },
        );
        assert!(s.deflected > 500, "too few deflected: {s:?}");
        assert_eq!(s.recirculated, s.deflected, "{s:?}");
        assert!(s.left > 2_000, "too little traffic: {s:?}");
    }
    let s = p16(
        16,
        6_000,
        &Knobs {
            pipes: 4,
            dod_p: 0.6,
            load: 1.0,
            refuse_p: 0.0,
            words: (8, 12),
            dod_words: Some((1, 3)),
            ..knobs()
        },
    );
    assert!(s.deflected > 1_000, "too few deflected: {s:?}");
    assert_eq!(s.recirculated, s.deflected, "{s:?}");
}

/// Directed (no workload): RTL against the model every cycle while verdicts are lost, and
/// `lost` read at three points. A: every input sends an admitted verdict every cycle and
/// nothing completes, so from cycle 16 on every tag FIFO overflows in every cycle: 184
/// cycles in 200, counted once each. B (after a reset): every input deflects a header
/// every 8 cycles into pipe 0, each held 512 cycles (`W` = 0) and completing at once, so
/// the recirculation FIFOs (both lanes' at 16 ports, in the same cycles) fill and
/// overflow: at most one count per cycle. C (after a reset): as B, but the last input
/// sends plain verdicts every cycle that never complete: its tag FIFO overflows in every
/// cycle from the 17th, the recirculation FIFOs' overflows fall in some of them (none
/// after: the others stop deflecting 40 cycles before the end), 984 counts in 1,000
/// cycles.
#[allow(clippy::too_many_arguments)]
fn overflow<
    const N: usize,
    const K: usize,
    const M: usize,
    const CA: usize,
    const CC: usize,
    const RP: usize,
    const NB: usize,
    const KNB: usize,
    const KRP: usize,
    const NRP: usize,
    const NK: usize,
    const N4K: usize,
    const KP: usize,
>() -> [u32; 3] {
    let mut kern = Kernel::new(SwitchQueues::<
        N,
        K,
        M,
        CA,
        CC,
        RP,
        NB,
        KNB,
        KRP,
        NRP,
        NK,
        N4K,
        KP,
    >::new())
    .expect("kernel");
    let mut m = SqueModel::new(N, K, CA, RP);
    // (start, end) of the phases, each followed by a reset
    let phases = [(0u64, 200u64), (210, 1_210), (1_220, 2_220)];
    let mut lost = [0u32; 3];
    let mut cells = vec![0u32; N];
    let header = Meta {
        s: 0,
        words: 8,
        empty: 0,
        bad: false,
    };
    lockstep(
        0,
        2_230,
        &mut kern,
        &mut m,
        read,
        |c, v| {
            let mut d = Drive {
                vd: vec![None; N],
                cp: vec![None; N],
                dq_count: vec![0; N],
                dep: vec![false; N],
                weight: [1; 4],
                pipe_of: vec![0; N],
                ..Drive::default()
            };
            for (x, &(_, end)) in phases.iter().enumerate() {
                if c == end + 3 {
                    lost[x] = v.lost;
                    d.reset = true;
                }
            }
            for (x, &pop) in cells.iter_mut().zip(&v.cp_pop) {
                *x += u32::from(pop);
            }
            let plain = |i: usize| Vd {
                admit: true,
                out: i as u8,
                band: 1,
                bytes: 100,
                dod: false,
                words: 13,
            };
            let dod = |i: usize| Vd {
                admit: true,
                out: i as u8,
                band: 0,
                bytes: 64,
                dod: true,
                words: 0,
            };
            let (a, b, cc) = (phases[0], phases[1], phases[2]);
            for (i, &n) in cells.iter().enumerate() {
                let cell = ((i as u32) << (CA - 4)) + n % (1 << (CA - 4));
                if (a.0..a.1).contains(&c) {
                    d.vd[i] = Some(plain(i));
                } else if (b.0..b.1).contains(&c) || (cc.0..cc.1).contains(&c) {
                    if (cc.0..cc.1).contains(&c) && i == N - 1 {
                        d.vd[i] = Some(plain(i));
                        continue;
                    }
                    // (in C not in its last cycles, so that every header's push is in
                    // a cycle the tag FIFO overflows)
                    if c % 8 == 0 && c + 40 < cc.1 {
                        d.vd[i] = Some(dod(i));
                    }
                    d.cp[i] = Some((cell, header));
                }
            }
            Ok(d)
        },
        drive,
    );
    println!("{N} ports: lost {lost:?}");
    assert_eq!(lost[0], 184, "{N} ports: phase A");
    assert!(
        lost[1] > 100 && lost[1] <= 1_000,
        "{N} ports: phase B lost {}",
        lost[1]
    );
    assert_eq!(lost[2], 984, "{N} ports: phase C");
    lost
}

/// Lost verdicts and lost deflected headers, counted once per cycle (see [`overflow`]).
#[test]
fn sque_counts_lost_verdicts_and_headers_once_per_cycle() {
    overflow::<4, 1, 4, 11, 12, 1, 16, 16, 1, 4, 4, 16, 4>();
    overflow::<16, 2, 8, 9, 10, 2, 64, 128, 4, 32, 32, 128, 8>();
}
