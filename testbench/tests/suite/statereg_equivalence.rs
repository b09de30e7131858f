//! The rust-hdl stateful register externs against [`StateRegModel`] under seeded
//! operations on both ports (all five operations, wrapping additions, both ports on the
//! same register in the same cycle), every response every cycle; and Algorithm 5's use:
//! ifElseRAW initialises a message's credit on its first packet and adds on the others.
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

#[test]
fn state_registers_match_the_golden_model() {
    let mut k = Kernel::new(StateReg16x32::new()).expect("kernel");
    let mut w = StateRegWorkload::new(5900, 16);
    let mut m = StateRegModel::new(16, 32);
    let (mut same, mut ops) = (0u64, 0u64);
    for t in 0..100_000u64 {
        let (i, e) = w.drive(k.uut_mut());
        k.settle().expect("settle");
        let want = m.cycle([i, e]);
        assert_eq!(resp(k.uut()), want, "cycle {t}");
        same += matches!((i, e), (Some(a), Some(b)) if a.idx == b.idx) as u64;
        ops += i.is_some() as u64 + e.is_some() as u64;
        k.tick().expect("tick");
    }
    println!("statereg: {ops} operations, {same} cycles with both ports on one register");
    assert!(same > 10_000);
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
        if t > 0 {
            got.push(k.uut().ingress_resp.new.val().to_u64());
        }
        k.tick().expect("tick");
    }
    assert_eq!(got, vec![12, 13, 14, 15, 12]);
}
