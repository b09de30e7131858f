use nt_hdl::homa::*;
use nt_hdl::ingress::{PktInfo, FLAG_ACK, FLAG_DATA, FLAG_PULL};
use nt_sim::kernel::Kernel;

/// An intact DATA record: packet 0 of message `id` (`len` bytes), its first.
fn first_packet(id: u64, len: u64) -> PktInfo {
    PktInfo {
        flags: FLAG_DATA.into(),
        src_ip: 0x0a00_0002u64.into(),
        src_port: 7u64.into(),
        dst_port: 9u64.into(),
        tx_msg_id: (0x100 + id).into(),
        msg_len: len.into(),
        rx_msg_id: id.into(),
        is_new_msg: true,
        is_new_pkt: true,
        is_last_pkt: len <= 1024,
        ack_no: 1u64.into(),
        ..Default::default()
    }
}

/// The module's Timing section, cycle by cycle: records offered back to back, every
/// output ready. A message that is never scheduled is ACKed 2 cycles after its record
/// is taken and the next record is taken 4 cycles after it; a scheduled one is
/// GRANTed 8 cycles after, and the next record is taken 10 cycles after it.
#[test]
fn records_take_the_documented_cycles() {
    let mut k = Kernel::with_clock(HomaProgram16::new(false), |b| &mut b.clock).expect("kernel");
    let records = [
        first_packet(1, 16),
        first_packet(2, 8192),
        first_packet(3, 16),
    ];
    let (mut taken, mut events) = (vec![], vec![]);
    let mut next = 0;
    for t in 0..40u64 {
        let u = k.uut_mut();
        u.reset.next = t == 0;
        u.cfg.rtt_pkts.next = 2u64.into();
        u.ctrl.ready.next = true;
        u.delivered.ready.next = true;
        u.credit.ready.next = true;
        u.freed.valid.next = false;
        u.info.valid.next = t > 0 && next < records.len();
        u.info.info.next = records[next.min(records.len() - 1)];
        k.settle().expect("settle");
        let u = k.uut();
        if u.info.valid.val() && u.info.ready.val() {
            taken.push(t);
            next += 1;
        }
        if u.ctrl.valid.val() {
            events.push((t, u.ctrl.flags.val().to_u64(), u.ctrl.rx_id.val().to_u64()));
        }
        k.tick().expect("tick");
    }
    let t0 = taken[0];
    assert_eq!(taken, vec![t0, t0 + 4, t0 + 14], "records taken");
    assert_eq!(
        events,
        vec![
            (t0 + 2, FLAG_ACK, 1),
            (t0 + 4 + 8, FLAG_PULL, 2),
            (t0 + 14 + 2, FLAG_ACK, 3)
        ],
        "control events (cycle, flags, rx_id)"
    );
}
