//! Arbiter between the packet generator's control packets and the packetization module's
//! data packets (thesis §3.2, Fig 3.1): control first, switching only at packet
//! boundaries.
//!
//! ```text
//!   ctrl  (frames + Listing 3.2 metadata) ──┐
//!                                           ├─► mux ──► source ──► egress pipeline
//!   data  (frames + Listing 3.2 metadata) ──┘    ▲
//!                                  lock: the input whose packet is in progress
//! ```
//!
//! # Interface
//! * `ctrl`, `data`: packet streams, one 64-bit word per beat, `last` on a packet's final
//!   word, the egress metadata (Listing 3.2) beside every beat.
//! * `source`: the merged stream; a packet is never interleaved with another.
//!
//! # Rules
//! * At a packet boundary (no packet in progress), a waiting control packet goes first;
//!   a data packet goes when no control packet waits.
//! * Once a packet's first beat is out, the arbiter stays on that input until its `last`
//!   beat has been accepted, whatever the other input does.
//!
//! # Latency and throughput
//! Zero cycles: `source` is the selected input, combinationally (valid, data, metadata
//! forward; ready goes back). Back-to-back packets from either side leave without a gap:
//! the choice for the next packet is made in the cycle after a `last` beat, from registers
//! only. Registered state: one bit for "packet in progress" and one for the input.
use rust_hdl::prelude::*;

/// A packet stream into the arbiter (beats with Listing 3.2 metadata).
#[derive(LogicInterface, Default)]
pub struct TxFrameSink {
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub data: Signal<In, Bits<64>>,
    pub last: Signal<In, bool>,
    pub remote_ip: Signal<In, Bits<32>>,
    pub remote_port: Signal<In, Bits<16>>,
    pub msg_len: Signal<In, Bits<16>>,
    pub pkt_offset: Signal<In, Bits<8>>,
    pub local_port: Signal<In, Bits<16>>,
    pub tx_msg_id: Signal<In, Bits<16>>,
    pub credit: Signal<In, Bits<16>>,
    pub rank: Signal<In, Bits<8>>,
    pub flags: Signal<In, Bits<8>>,
    pub is_new_msg: Signal<In, bool>,
    pub is_rtx: Signal<In, bool>,
}

/// The merged packet stream out of the arbiter.
#[derive(LogicInterface, Default)]
pub struct TxFrameSource {
    pub valid: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
    pub data: Signal<Out, Bits<64>>,
    pub last: Signal<Out, bool>,
    pub remote_ip: Signal<Out, Bits<32>>,
    pub remote_port: Signal<Out, Bits<16>>,
    pub msg_len: Signal<Out, Bits<16>>,
    pub pkt_offset: Signal<Out, Bits<8>>,
    pub local_port: Signal<Out, Bits<16>>,
    pub tx_msg_id: Signal<Out, Bits<16>>,
    pub credit: Signal<Out, Bits<16>>,
    pub rank: Signal<Out, Bits<8>>,
    pub flags: Signal<Out, Bits<8>>,
    pub is_new_msg: Signal<Out, bool>,
    pub is_rtx: Signal<Out, bool>,
}

/// Control-first, packet-boundary arbiter. See the module documentation.
#[derive(LogicBlock, Default)]
pub struct Arbiter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ctrl: TxFrameSink,
    pub data: TxFrameSink,
    pub source: TxFrameSource,
    /// A packet is in progress (its first beat is out, its last is not).
    busy: DFF<bool>,
    /// The input of the packet in progress: true for `ctrl`.
    busy_ctrl: DFF<bool>,
    /// The input selected this cycle.
    pick_ctrl: Signal<Local, bool>,
}

impl Arbiter {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Logic for Arbiter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, busy_ctrl);
        if self.busy.q.val() {
            self.pick_ctrl.next = self.busy_ctrl.q.val();
        } else {
            self.pick_ctrl.next = self.ctrl.valid.val();
        }
        self.ctrl.ready.next = self.pick_ctrl.val() & self.source.ready.val() & !self.reset.val();
        self.data.ready.next = !self.pick_ctrl.val() & self.source.ready.val() & !self.reset.val();
        if self.pick_ctrl.val() {
            self.source.valid.next = self.ctrl.valid.val() & !self.reset.val();
            self.source.data.next = self.ctrl.data.val();
            self.source.last.next = self.ctrl.last.val();
            self.source.remote_ip.next = self.ctrl.remote_ip.val();
            self.source.remote_port.next = self.ctrl.remote_port.val();
            self.source.msg_len.next = self.ctrl.msg_len.val();
            self.source.pkt_offset.next = self.ctrl.pkt_offset.val();
            self.source.local_port.next = self.ctrl.local_port.val();
            self.source.tx_msg_id.next = self.ctrl.tx_msg_id.val();
            self.source.credit.next = self.ctrl.credit.val();
            self.source.rank.next = self.ctrl.rank.val();
            self.source.flags.next = self.ctrl.flags.val();
            self.source.is_new_msg.next = self.ctrl.is_new_msg.val();
            self.source.is_rtx.next = self.ctrl.is_rtx.val();
        } else {
            self.source.valid.next = self.data.valid.val() & !self.reset.val();
            self.source.data.next = self.data.data.val();
            self.source.last.next = self.data.last.val();
            self.source.remote_ip.next = self.data.remote_ip.val();
            self.source.remote_port.next = self.data.remote_port.val();
            self.source.msg_len.next = self.data.msg_len.val();
            self.source.pkt_offset.next = self.data.pkt_offset.val();
            self.source.local_port.next = self.data.local_port.val();
            self.source.tx_msg_id.next = self.data.tx_msg_id.val();
            self.source.credit.next = self.data.credit.val();
            self.source.rank.next = self.data.rank.val();
            self.source.flags.next = self.data.flags.val();
            self.source.is_new_msg.next = self.data.is_new_msg.val();
            self.source.is_rtx.next = self.data.is_rtx.val();
        }
        // A beat leaves: a packet is in progress until its last beat.
        if self.source.valid.val() & self.source.ready.val() {
            self.busy.d.next = !self.source.last.val();
            self.busy_ctrl.d.next = self.pick_ctrl.val();
        }
        if self.reset.val() {
            self.busy.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
}
