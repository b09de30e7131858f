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
