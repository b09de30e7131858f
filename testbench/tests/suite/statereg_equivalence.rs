//! The rust-hdl stateful register externs against [`StateRegModel`] under seeded
//! operations on both ports (all five operations, wrapping additions, both ports on the
//! same register in the same cycle, back-to-back operations on one register, which the
//! block forwards past its RAM, and resets between them), every response every cycle; and
//! Algorithm 5's use: ifElseRAW initialises a message's credit on its first packet and
//! adds on the others.
use nt_hdl::statereg::{StateReg16x32, OP_IF_ELSE_RAW};
use nt_sim::kernel::Kernel;
use nt_sim::statereg_workload::StateRegWorkload;
use nt_testbench::statereg_model::StateRegModel;

fn resp(u: &StateReg16x32) -> [Option<(u64, u64)>; 2] {
    let r = |v: bool, o: u64, n: u64| v.then_some((o, n));
    [
        r(
            u.ingress_resp.valid.val(),
            u.ingress_resp.old.val().to_u64(),
            u.ingress_resp.new.val().to_u64(),
        ),
        r(
            u.egress_resp.valid.val(),
            u.egress_resp.old.val().to_u64(),
            u.egress_resp.new.val().to_u64(),
        ),
    ]
}

/// Every cycle's responses against the model; a reset cycle every 9,973 cycles (its
/// operations and those of the cycle before are dropped).
#[test]
fn state_registers_match_the_golden_model() {
    let seed = 5900;
    let mut k = Kernel::new(StateReg16x32::new()).expect("kernel");
    let mut w = StateRegWorkload::new(seed, 16);
    let mut m = StateRegModel::new(16, 32);
    let (mut same, mut ops, mut chained, mut resets) = (0u64, 0u64, 0u64, 0u64);
    let mut last: [Option<u8>; 2] = [None, None];
    for t in 0..100_000u64 {
        let (i, e) = w.drive(k.uut_mut());
        let reset = t % 9_973 == 5_000;
        k.uut_mut().reset.next = reset;
        k.settle().expect("settle");
        let want = if reset {
            resets += 1;
            m.reset()
        } else {
            m.cycle([i, e])
        };
        assert_eq!(resp(k.uut()), want, "seed {seed}, cycle {t}");
        same += matches!((i, e), (Some(a), Some(b)) if a.idx == b.idx) as u64;
        ops += i.is_some() as u64 + e.is_some() as u64;
        // An operation on a register written by the last cycle's (not yet in the RAM).
        chained += [i, e]
            .iter()
            .flatten()
            .filter(|o| last.contains(&Some(o.idx)))
            .count() as u64;
        last = [i.map(|o| o.idx), e.map(|o| o.idx)];
        k.tick().expect("tick");
    }
    println!(
        "statereg: {ops} operations, {same} cycles with both ports on one register, \
         {chained} operations on a register written the cycle before, {resets} resets"
    );
    assert!(same > 10_000);
    assert!(chained > 20_000);
    assert_eq!(resets, 10);
}

/// NDP's credit (Algorithm 5): `credit = init` on a message's first packet, `credit += 1`
/// on each later one; the new value is the pull offset.
#[test]
fn if_else_raw_keeps_ndps_credit() {
    let mut k = Kernel::new(StateReg16x32::new()).expect("kernel");
    let mut got = vec![];
    for (t, first) in [true, false, false, false, true, false]
        .into_iter()
        .enumerate()
    {
        let u = k.uut_mut();
        u.ingress.valid.next = true;
        u.ingress.op.next = OP_IF_ELSE_RAW.into();
        u.ingress.idx.next = 5u64.into();
        u.ingress.a.next = 12u64.into();
        u.ingress.b.next = 1u64.into();
        u.ingress.pred.next = first;
        u.egress.valid.next = false;
        k.settle().expect("settle");
        if t > 1 {
            got.push(k.uut().ingress_resp.new.val().to_u64());
        }
        k.tick().expect("tick");
    }
    k.uut_mut().ingress.valid.next = false;
    k.settle().expect("settle");
    got.push(k.uut().ingress_resp.new.val().to_u64());
    assert_eq!(got, vec![12, 13, 14, 15, 12]);
}
