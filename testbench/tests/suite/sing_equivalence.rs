//! The switch's ingress ([`nt_hdl::sing`]) on the cycle kernel against [`SingModel`],
//! every output in every cycle, at 4 and 16 ports, under the seeded, self-checking
//! workload of [`nt_sim::sing_workload`]: every kept frame's words 9 cycles after they
//! came in and nothing else, one request per kept frame 8 cycles after its first word,
//! and every frame counted once by its fate.
use nt_hdl::sing::SwitchIngress;
use nt_sim::kernel::Kernel;
use nt_sim::sing_workload::{drive, knobs, read, Knobs, Seen, SingWorkload};
use nt_testbench::equiv::lockstep;
use nt_testbench::sing_model::SingModel;

fn run<const N: usize, const N8: usize, const NN: usize>(
    seed: u64,
    cycles: u64,
    k: &Knobs,
) -> Seen {
    let mut kern = Kernel::new(SwitchIngress::<N, N8, NN>::new()).expect("kernel");
    let mut m = SingModel::new(N);
    let mut w = SingWorkload::new(seed, N, k.clone());
    lockstep(
        seed,
        cycles,
        &mut kern,
        &mut m,
        read,
        |c, v| w.step(c, v),
        drive,
    );
    let s = *w.finish();
    println!(
        "seed {seed}, {N} ports: {} frames, {} kept (bands {:?}), {} malformed, {} without a route, {} words out",
        s.frames, s.kept, s.bands, s.malformed, s.no_route, s.words_out
    );
    s
}

fn busy(s: &Seen) {
    assert!(s.kept > 200, "too few frames kept: {s:?}");
    assert!(
        s.malformed > 20 && s.no_route > 20,
        "too few bad frames: {s:?}"
    );
    assert!(s.bands.iter().all(|&b| b > 0), "a band never used: {s:?}");
}

/// Bands by `tos`, gaps, every kind of bad frame: the RTL equals the model and every
/// frame meets its fate.
#[test]
fn sing_p4_matches_its_model_and_keeps_only_good_frames() {
    for seed in 1..=2 {
        busy(&run::<4, 32, 16>(seed, 20_000, &knobs()));
    }
}

/// Bands by flags, more gaps, and resets.
#[test]
fn sing_p4_bands_by_flags_and_resets() {
    let s = run::<4, 32, 16>(
        3,
        20_000,
        &Knobs {
            band_by_flags: true,
            gap_p: 0.05,
            reset_p: 0.002,
            ..knobs()
        },
    );
    assert!(s.kept > 100 && s.malformed > 50, "{s:?}");
    assert!(s.bands[0] > 0 && s.bands[1] > 0 && s.bands[3] > 0, "{s:?}");
    assert_eq!(s.bands[2], 0, "band 2 by flags: {s:?}");
}

/// 16 ports (a 16-entry table).
#[test]
fn sing_p16_matches_its_model() {
    busy(&run::<16, 128, 256>(4, 8_000, &knobs()));
}
