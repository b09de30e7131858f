use nt_hdl::statereg::*;
use nt_sim::kernel::Kernel;
use rust_hdl::prelude::*;

type K = Kernel<StateReg16x32>;
/// One port's operation: (op, idx, a), or idle.
type Op = Option<(u64, u64, u64)>;
/// One cycle's responses: (old, new) per port.
type Resp = [Option<(u64, u64)>; 2];

fn kernel() -> K {
    Kernel::with_clock(StateReg16x32::new(), |b| &mut b.clock).expect("kernel")
}

/// Sets one port's operation (`None`: idle).
fn set(p: &mut RegOpIn<4, 32>, o: Op) {
    let (op, idx, a) = o.unwrap_or((OP_READ, 0, 0));
    p.valid.next = o.is_some();
    p.op.next = op.into();
    p.idx.next = idx.into();
    p.a.next = a.into();
    p.b.next = 0u64.into();
    p.pred.next = false;
}

/// The responses now: (ingress, egress) as `(old, new)`.
fn resp(k: &K) -> Resp {
    let u = k.uut();
    let r = |v: bool, o: &Signal<Out, Bits<32>>, n: &Signal<Out, Bits<32>>| {
        v.then(|| (o.val().to_u64(), n.val().to_u64()))
    };
    [
        r(
            u.ingress_resp.valid.val(),
            &u.ingress_resp.old,
            &u.ingress_resp.new,
        ),
        r(
            u.egress_resp.valid.val(),
            &u.egress_resp.old,
            &u.egress_resp.new,
        ),
    ]
}

/// Runs `ops` (one (ingress, egress) pair per cycle, then idle) and returns every
/// cycle's responses.
fn run(k: &mut K, ops: &[[Op; 2]], extra: usize) -> Vec<Resp> {
    let mut out = vec![];
    for t in 0..ops.len() + extra {
        let o = ops.get(t).copied().unwrap_or([None, None]);
        let u = k.uut_mut();
        u.reset.next = false;
        set(&mut u.ingress, o[0]);
        set(&mut u.egress, o[1]);
        k.settle().expect("settle");
        out.push(resp(k));
        k.tick().expect("tick");
    }
    out
}

/// Both ports on one register in one cycle: ingress adds, egress sees its result and
/// adds too; the responses come two cycles later.
#[test]
fn ingress_goes_first_on_a_shared_register() {
    let mut k = kernel();
    let r = run(
        &mut k,
        &[
            [Some((OP_RAW, 3, 5)), Some((OP_RAW, 3, 7))],
            [None, Some((OP_READ, 3, 0))],
        ],
        2,
    );
    assert_eq!(r[0], [None, None]);
    assert_eq!(r[1], [None, None]);
    assert_eq!(r[2], [Some((0, 5)), Some((5, 12))]);
    assert_eq!(r[3], [None, Some((12, 12))], "read back the cycle after");
}

/// Back-to-back operations on one register, alternating ports and mixing WRITE with
/// additions: each sees the one before (forwarded from stage 1), and the RAM holds the
/// last value afterwards.
#[test]
fn back_to_back_operations_see_each_other() {
    let mut k = kernel();
    let ops = [
        [Some((OP_RAW, 9, 1)), None],
        [None, Some((OP_RAW, 9, 2))],
        [Some((OP_RAW, 9, 4)), Some((OP_WRITE, 9, 100))],
        [Some((OP_RAW, 9, 8)), Some((OP_RAW, 2, 1))],
        [None, Some((OP_RAW, 9, 16))],
        [Some((OP_WRITE, 2, 7)), Some((OP_RAW, 9, 32))],
    ];
    let r = run(&mut k, &ops, 4);
    let want: Vec<Resp> = vec![
        [Some((0, 1)), None],
        [None, Some((1, 3))],
        [Some((3, 7)), Some((7, 100))],
        [Some((100, 108)), Some((0, 1))],
        [None, Some((108, 124))],
        [Some((1, 7)), Some((124, 156))],
    ];
    assert_eq!(&r[2..8], &want[..]);
    // Two cycles later, from the RAM (no forwarding left).
    let r = run(&mut k, &[[Some((OP_READ, 9, 0)), Some((OP_READ, 2, 0))]], 2);
    assert_eq!(r[2], [Some((156, 156)), Some((7, 7))]);
}

/// Reset: the register reads 0 afterwards, and the operations of the reset cycle and
/// of the cycle before are dropped.
#[test]
fn reset_clears_and_drops_operations_in_flight() {
    let mut k = kernel();
    run(
        &mut k,
        &[[Some((OP_WRITE, 4, 55)), Some((OP_WRITE, 5, 66))]],
        2,
    );
    // An operation, then a reset cycle with another one.
    run(&mut k, &[[Some((OP_RAW, 4, 1)), None]], 0);
    let u = k.uut_mut();
    u.reset.next = true;
    set(&mut u.ingress, Some((OP_RAW, 5, 1)));
    set(&mut u.egress, None);
    k.settle().expect("settle");
    k.tick().expect("tick");
    let r = run(&mut k, &[[Some((OP_RAW, 4, 3)), Some((OP_READ, 5, 0))]], 2);
    assert_eq!(
        r[0],
        [None, None],
        "the operation before the reset is dropped"
    );
    assert_eq!(
        r[1],
        [None, None],
        "the operation in the reset cycle is dropped"
    );
    assert_eq!(r[2], [Some((0, 3)), Some((0, 0))]);
}
