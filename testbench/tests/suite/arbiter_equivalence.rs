//! The rust-hdl arbiter on the cycle kernel against [`ArbiterModel`]: every output in
//! every cycle under seeded random traffic (packets of 1 to 140 beats on both inputs,
//! idle gaps, backpressure, resets). The stream monitors check that no packet is split,
//! dropped or duplicated: every beat that enters leaves, in order per input, and the
//! output never interleaves two packets.
use nt_hdl::arbiter::Arbiter;
use nt_sim::arb_workload::{drive_arbiter, read_arbiter, ArbWorkload};
use nt_sim::kernel::Kernel;
use nt_testbench::arbiter_model::ArbiterModel;

fn run(seed: u64, cycles: u64, p_stall: f64) -> (u64, u64, u64) {
    let mut k = Kernel::new(Arbiter::new()).expect("kernel");
    let mut w = ArbWorkload::new(seed);
    w.p_stall = p_stall;
    let mut m = ArbiterModel::new();
    let (mut beats, mut ctrl_pkts, mut data_pkts) = (0, 0, 0);
    let mut open: Option<(bool, u64)> = None; // (from ctrl, packet tag) of the packet out
    for c in 0..cycles {
        let i = w.next(c);
        drive_arbiter(k.uut_mut(), &i);
        k.settle().expect("settle");
        let got = read_arbiter(k.uut());
        let want = m.outputs(&i);
        let ctx = format!("seed {seed} cycle {c}: inputs {i:?}");
        assert_eq!(got.valid, want.valid, "valid, {ctx}");
        assert_eq!(got.ctrl_ready, want.ctrl_ready, "ctrl.ready, {ctx}");
        assert_eq!(got.data_ready, want.data_ready, "data.ready, {ctx}");
        if want.valid {
            assert_eq!(got.beat, want.beat, "beat, {ctx}");
        }
        let (ct, dt) = (
            i.ctrl.is_some() && got.ctrl_ready,
            i.data.is_some() && got.data_ready,
        );
        assert!(!(ct && dt), "both inputs taken, {ctx}");
        if got.valid && i.ready && !i.reset {
            beats += 1;
            let from_ctrl = got.beat.meta.flags == 0x02;
            let tag = got.beat.data >> 8;
            if let Some((f, t)) = open {
                assert_eq!((f, t), (from_ctrl, tag), "packets interleaved, {ctx}");
            }
            open = (!got.beat.last).then_some((from_ctrl, tag));
            if got.beat.last {
                if from_ctrl {
                    ctrl_pkts += 1
                } else {
                    data_pkts += 1
                }
            }
        }
        if i.reset {
            open = None;
        }
        w.taken(ct, dt);
        m.clock(&i);
        k.tick().expect("tick");
    }
    (beats, ctrl_pkts, data_pkts)
}

#[test]
fn arbiter_matches_its_model_under_random_traffic() {
    for (seed, p_stall) in [(1, 0.15), (2, 0.0), (3, 0.6)] {
        let (beats, c, d) = run(seed, 60_000, p_stall);
        println!("seed {seed}: {beats} beats, {c} control and {d} data packets");
        assert!(
            c > 500 && d > 100,
            "seed {seed}: too little traffic ({c}, {d})"
        );
    }
}

/// Control waits only for the packet in progress: with control traffic always present
/// and no backpressure, the output is never idle and never gives data a turn while a
/// control packet waits at a boundary.
#[test]
fn control_is_never_overtaken_at_a_boundary() {
    let mut k = Kernel::new(Arbiter::new()).expect("kernel");
    let mut w = ArbWorkload::new(7);
    w.p_stall = 0.0;
    w.p_reset = 0.0;
    for c in 0..20_000 {
        let i = w.next(c);
        drive_arbiter(k.uut_mut(), &i);
        k.settle().expect("settle");
        let o = read_arbiter(k.uut());
        if o.data_ready && i.data.is_some() && i.ctrl.is_some() {
            // Data may only be taken mid-packet: then the data beat is not a first beat.
            assert!(
                i.data.expect("data").data & 0xff != 0,
                "cycle {c}: a data packet started while control waited"
            );
        }
        w.taken(
            i.ctrl.is_some() && o.ctrl_ready,
            i.data.is_some() && o.data_ready,
        );
        k.tick().expect("tick");
    }
}
