//! The switch's queues and schedulers ([`nt_hdl::sque`]) on the cycle kernel against
//! [`SqueModel`], every output in every cycle, at 4 ports (one lane, one replica) and 16
//! (two lanes, two replicas), under the seeded, self-checking workload of
//! [`nt_sim::sque_workload`]: every packet handed to its output once, in order per input
//! and band, strict priority kept, departures reported with their band and bytes, and
//! everything gone after a drain.
use nt_hdl::sque::SwitchQueues;
use nt_sim::kernel::Kernel;
use nt_sim::sque_workload::{drive, knobs, read, Knobs, Seen, SqueWorkload};
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
    >::new())
    .expect("kernel");
    let mut m = SqueModel::new(N, K, CA, RP);
    let mut w = SqueWorkload::new(seed, N, 1 << CA, cycles, k.clone());
    lockstep(
        seed,
        cycles,
        &mut kern,
        &mut m,
        read,
        |c, v| w.step(c, v),
        drive,
    );
    let s = *w.finish().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
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
    s
}

fn p4(seed: u64, cycles: u64, k: &Knobs) -> Seen {
    run::<4, 1, 4, 11, 12, 1, 16, 16, 1, 4, 4, 16>(seed, cycles, k)
}

fn p16(seed: u64, cycles: u64, k: &Knobs) -> Seen {
    run::<16, 2, 8, 9, 10, 2, 64, 128, 4, 32, 32, 128>(seed, cycles, k)
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
