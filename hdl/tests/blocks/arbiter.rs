use nt_hdl::arbiter::*;
use nt_sim::kernel::Kernel;

/// Presents packets of `len` beats on an input until taken; returns beats seen out as
/// (cycle, from_ctrl, last).
fn run(
    ctrl_pkts: &[usize],
    ctrl_start: u64,
    data_pkts: &[usize],
    ready: impl Fn(u64) -> bool,
    cycles: u64,
) -> Vec<(u64, bool, bool)> {
    let mut k = Kernel::with_clock(Arbiter::new(), |a| &mut a.clock).expect("kernel");
    let (mut ci, mut cb, mut di, mut db) = (0usize, 0usize, 0usize, 0usize);
    let mut out = vec![];
    for c in 0..cycles {
        let r = ready(c);
        let u = k.uut_mut();
        u.source.ready.next = r;
        u.ctrl.valid.next = c >= ctrl_start && ci < ctrl_pkts.len();
        u.ctrl.last.next = ci < ctrl_pkts.len() && cb + 1 == ctrl_pkts[ci];
        u.ctrl.flags.next = 2u64.into();
        u.data.valid.next = di < data_pkts.len();
        u.data.last.next = di < data_pkts.len() && db + 1 == data_pkts[di];
        u.data.flags.next = 1u64.into();
        k.settle().expect("settle");
        let u = k.uut();
        if u.source.valid.val() && r {
            let from_ctrl = u.source.flags.val().index() == 2;
            out.push((c, from_ctrl, u.source.last.val()));
            if from_ctrl {
                cb += 1;
                if cb == ctrl_pkts[ci] {
                    ci += 1;
                    cb = 0;
                }
            } else {
                db += 1;
                if db == data_pkts[di] {
                    di += 1;
                    db = 0;
                }
            }
        }
        k.tick().expect("tick");
    }
    out
}

#[test]
fn control_goes_first_and_packets_are_never_split() {
    let out = run(&[2, 2], 0, &[9, 9], |_| true, 40);
    let order: Vec<bool> = out.iter().map(|b| b.1).collect();
    // Both wait at cycle 0: control first (2 + 2 beats), then data (9 + 9).
    let mut want = vec![true; 4];
    want.extend(vec![false; 18]);
    assert_eq!(order, want);
    // No gaps: one beat per cycle from cycle 0.
    for (i, b) in out.iter().enumerate() {
        assert_eq!(b.0, i as u64);
    }
}

#[test]
fn control_arriving_mid_packet_waits_for_the_boundary() {
    // Data starts alone; control arrives at cycle 3 and goes right after the packet.
    let out = run(&[2], 3, &[9, 9], |_| true, 40);
    let from: Vec<bool> = out.iter().map(|b| b.1).collect();
    let mut want = vec![false; 9];
    want.extend([true, true]);
    want.extend(vec![false; 9]);
    assert_eq!(from, want);
    assert_eq!(
        out.len() as u64,
        out.last().expect("beats").0 + 1,
        "no gaps"
    );
}

#[test]
fn a_packet_in_progress_keeps_the_output_under_backpressure() {
    let out = run(&[3], 0, &[9], |c| c % 3 != 1, 60);
    let from: Vec<bool> = out.iter().map(|b| b.1).collect();
    let first_data = from.iter().position(|f| !f).expect("data");
    assert!(from[..first_data].iter().all(|&f| f));
    assert!(from[first_data..].iter().all(|&f| !f));
    assert_eq!(out.len(), 12);
}
