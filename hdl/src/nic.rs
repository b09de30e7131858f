//! The NIC top block (thesis Fig. 3.1): the fixed blocks of nanoTransport with one
//! transport program plugged into its ingress pipeline.
//!
//! ```text
//!  mac_rx ─► parser ─► ingress core ─► program (match-action, externs) ─► delivered/credit ─┐
//!                        │ GetRxMsgInfo   │ CtrlPktEvent                                     ▼
//!                        ▼                ▼                                     app_tx ─► packetization
//!  app_rx ◄──────── reassembly      packet generator ──► arbiter (control first) ◄────────────┘
//!                                                            │
//!  status ◄── packetization                                  ▼
//!                                              deparser (headers, checksum) ─► mac_tx
//! ```
//!
//! [`nic_block!`] builds a top block for a program type (and, optionally, the reassembly,
//! packetization and packet-generator sizes); [`NicNdp`] is the NDP NIC with 16 messages
//! per direction, [`NicNdp128`] the same with 128 (for synthesis and for hosts that
//! receive many large messages at once), [`NicHoma128`] and [`NicHomaTr128`] likewise,
//! [`NicNdpFpga`] the 16-message NDP NIC with the smaller buffers of an FPGA build;
//! [`NicBolt`] and [`NicBolt128`] run Bolt ([`crate::bolt`]) and carry the Bolt TX stamp
//! ([`crate::boltstamp`], a pass-through in the other tops) between the deparser and
//! MAC TX, and a parser that accepts SRC packets. Every top has the same ports:
//! * `mac_rx` / `mac_tx`: 64-bit Ethernet frames, `last` and `empty` (bytes unused in the
//!   last word), one word per cycle each way.
//! * `app_tx`: messages to send (TX app header `dst_ip | dst_context | msg_len`, then the
//!   payload words) with the local context beside the header, and back the message id
//!   given to a header (`alloc`, `id`: the id its `status` event will carry); `app_rx`: delivered
//!   messages (RX app header `src_ip | src_context | msg_len`, then the payload), with
//!   the local context; `status`: one event per sent message (delivered, given up,
//!   refused) with its `tx_msg_id`.
//! * `cfg`: this host's MAC and IP, the switch's MAC (every frame's next hop), `rtt_pkts`
//!   (the initial credit), the retransmission `timeout` and `max_retries` (timeouts
//!   without progress before a message is given up), the receive-side inactivity
//!   `rx_timeout`, `pull_gap` (cycles between paced PULLs: 136 for 1088-byte frames) and
//!   `pace_nacks` (NDP: NACKs take PULL pacing slots too, so retransmissions are
//!   PULL-clocked).
//!   `rx_timeout` must exceed a sender's whole retry window, `timeout × (max_retries + 1)`,
//!   or a message a sender still retransmits could be dropped by the receiver.
//! * `stat`: the main counters; every block's own counters are in its `stat`.
//! * `trace`: what crosses the program's boundary each cycle ([`NicTrace`]): the record
//!   the program takes, the control-packet event it raises, the receive message freed,
//!   and its credit and cumulative-acknowledgement events to the packetization module;
//!   for monitoring windows and for the program models, on every engine.
//!
//! The NIC owns the cycle counter (`now`) that its timers use.
use crate::deparser::MacSource;
use crate::packetization::{TxAppSink, TxStatusOut};
use crate::parser::MacSink;
use crate::reassembly::RxMsgSource;
use crate::Clocked;
use rust_hdl::prelude::*;

/// IP protocol numbers (SPEC §2).
pub const PROTO_NDP: u64 = 155;
pub const PROTO_HOMA: u64 = 154;

/// Runtime configuration of a NIC.
#[derive(LogicInterface, Default)]
pub struct NicCfg {
    pub mac: Signal<In, Bits<48>>,
    pub ip: Signal<In, Bits<32>>,
    pub switch_mac: Signal<In, Bits<48>>,
    pub rtt_pkts: Signal<In, Bits<8>>,
    pub timeout: Signal<In, Bits<32>>,
    pub max_retries: Signal<In, Bits<8>>,
    pub rx_timeout: Signal<In, Bits<32>>,
    pub pull_gap: Signal<In, Bits<16>>,
    /// NDP: NACKs wait for a PULL pacing slot, as PULLs do (PULL-clocked retransmissions;
    /// `pktgen.rs`). Ignored by programs that do not pace.
    pub pace_nacks: Signal<In, bool>,
}

/// What crosses the program's boundary each cycle, exported for monitoring: the network
/// simulator's window series and the program models ([`NicProbe`]) read them, on every
/// engine (the emitted Verilog has them as `trace$*` outputs). Pure wires: no logic.
#[derive(LogicInterface, Default)]
pub struct NicTrace {
    /// The program took record `record_info` this cycle (`info.valid & info.ready`).
    pub record: Signal<Out, bool>,
    pub record_info: Signal<Out, crate::ingress::PktInfo>,
    /// The program raised a control-packet event and the packet generator took it; its
    /// fields (`ctrl_rx_id` zero-extended to 16 bits).
    pub ctrl: Signal<Out, bool>,
    pub ctrl_flags: Signal<Out, Bits<8>>,
    pub ctrl_rx_id: Signal<Out, Bits<16>>,
    pub ctrl_dst_ip: Signal<Out, Bits<32>>,
    pub ctrl_dst_port: Signal<Out, Bits<16>>,
    pub ctrl_src_port: Signal<Out, Bits<16>>,
    pub ctrl_tx_msg_id: Signal<Out, Bits<16>>,
    pub ctrl_msg_len: Signal<Out, Bits<16>>,
    pub ctrl_pkt_offset: Signal<Out, Bits<8>>,
    pub ctrl_pull_grant: Signal<Out, Bits<16>>,
    pub ctrl_grant_prio: Signal<Out, Bits<8>>,
    /// The reassembly module freed receive message `freed_id` this cycle.
    pub freed: Signal<Out, bool>,
    pub freed_id: Signal<Out, Bits<16>>,
    /// A `CreditTxEvent` set message `credit_id`'s credit to `credit` this cycle.
    pub credit_set: Signal<Out, bool>,
    pub credit_id: Signal<Out, Bits<16>>,
    pub credit: Signal<Out, Bits<16>>,
    /// A `DeliveredEvent` acknowledged every offset below `acked_below` of message
    /// `acked_id` this cycle.
    pub acked: Signal<Out, bool>,
    pub acked_id: Signal<Out, Bits<16>>,
    pub acked_below: Signal<Out, Bits<8>>,
}

/// The NIC's main counters (wrapping).
#[derive(LogicInterface, Default)]
pub struct NicStats {
    /// Frames in from the MAC, and those that passed the parser's checks.
    pub rx_frames: Signal<Out, Bits<32>>,
    pub rx_passed: Signal<Out, Bits<32>>,
    pub rx_data: Signal<Out, Bits<32>>,
    pub rx_ctrl: Signal<Out, Bits<32>>,
    pub rx_trimmed: Signal<Out, Bits<32>>,
    /// DATA packets dropped because no receive message could be allocated.
    pub rx_lookup_fail: Signal<Out, Bits<32>>,
    /// DATA packets of messages already delivered (late duplicates, acknowledged again).
    pub rx_late_dups: Signal<Out, Bits<32>>,
    /// Messages delivered to the application, and dropped by the receive timer.
    pub rx_delivered: Signal<Out, Bits<32>>,
    pub rx_timeouts: Signal<Out, Bits<32>>,
    /// DATA packets sent (and of those retransmitted), control packets sent.
    pub tx_data: Signal<Out, Bits<32>>,
    pub tx_retransmitted: Signal<Out, Bits<32>>,
    /// Timeouts that found nothing to retransmit and probed with the next packet.
    pub tx_probes: Signal<Out, Bits<32>>,
    pub tx_ctrl: Signal<Out, Bits<32>>,
    /// Sent messages fully delivered, and given up.
    pub tx_completed: Signal<Out, Bits<32>>,
    pub tx_given_up: Signal<Out, Bits<32>>,
    /// NACKs that waited for a PULL pacing slot, and NACKs sent at once because the
    /// packet generator's NACK queue was full (`cfg.pace_nacks`).
    pub tx_nacks_paced: Signal<Out, Bits<32>>,
    pub tx_nacks_unpaced: Signal<Out, Bits<32>>,
    /// Frames MAC TX sent (data and control).
    pub tx_frames: Signal<Out, Bits<32>>,
    /// Receive messages with a PULL waiting for its pacing slot.
    pub pulls_queued: Signal<Out, Bits<8>>,
    /// Frames the parser dropped, by reason (its `stat.drop_*`, `crate::parser`).
    pub rx_drop_overflow: Signal<Out, Bits<32>>,
    pub rx_drop_too_long: Signal<Out, Bits<32>>,
    pub rx_drop_truncated: Signal<Out, Bits<32>>,
    pub rx_drop_not_ipv4: Signal<Out, Bits<32>>,
    pub rx_drop_bad_ip_header: Signal<Out, Bits<32>>,
    pub rx_drop_bad_length: Signal<Out, Bits<32>>,
    pub rx_drop_bad_checksum: Signal<Out, Bits<32>>,
    pub rx_drop_not_for_us: Signal<Out, Bits<32>>,
    pub rx_drop_bad_protocol: Signal<Out, Bits<32>>,
    pub rx_drop_bad_transport: Signal<Out, Bits<32>>,
    /// Failed receive-message lookups by reason (the reassembly module's `alloc_fail`,
    /// `bad_req`, `len_conflicts`).
    pub rx_no_buffer: Signal<Out, Bits<32>>,
    pub rx_bad_request: Signal<Out, Bits<32>>,
    pub rx_len_conflicts: Signal<Out, Bits<32>>,
    /// Control-packet events the packetization module dropped: no active message
    /// (`bad_events`), a claim that is not the message's (`bad_peer`), offsets never sent
    /// (`bad_offset`).
    pub tx_ctrl_stale: Signal<Out, Bits<32>>,
    pub tx_ctrl_bad_peer: Signal<Out, Bits<32>>,
    pub tx_ctrl_bad_offset: Signal<Out, Bits<32>>,
}

/// A NIC top block's ports, for a testbench.
pub struct NicPorts<'a> {
    pub reset: &'a mut Signal<In, bool>,
    pub cfg: &'a mut NicCfg,
    pub mac_rx: &'a mut MacSink,
    pub mac_tx: &'a mut MacSource,
    pub app_tx: &'a mut TxAppSink,
    pub app_rx: &'a mut RxMsgSource,
    pub status: &'a mut TxStatusOut,
}

/// What every NIC top block built by [`nic_block!`] offers a testbench.
pub trait NicTop: Block + Clocked + Send {
    /// The program's name (`ndp`, `homa`, `homatr`).
    const PROGRAM: &'static str;
    /// The ports, to drive inputs and read outputs.
    fn ports(&mut self) -> NicPorts<'_>;
    fn mac_tx(&self) -> &MacSource;
    fn app_tx(&self) -> &TxAppSink;
    fn app_rx(&self) -> &RxMsgSource;
    fn status(&self) -> &TxStatusOut;
    fn stat(&self) -> &NicStats;
    /// The message id the packetization module allocates in this (settled) cycle, if
    /// any: the id of the message whose header `app_tx` takes now (the `app_tx.alloc` and
    /// `app_tx.id` outputs).
    fn tx_alloc(&self) -> Option<u16>;
    /// Handshakes between the stages in this (settled) cycle (simulation only).
    fn probe(&self) -> NicProbe;
}

/// The program-boundary events of a NIC's `trace` outputs this cycle: the fields of
/// [`NicProbe`] that both engines fill (the native one from the block, the library
/// engines from the `trace$*` ports).
pub fn trace_probe(t: &NicTrace) -> NicProbe {
    NicProbe {
        record: t.record.val().then(|| t.record_info.val()),
        ctrl: t.ctrl.val().then(|| CtrlEvent {
            flags: t.ctrl_flags.val().to_u64() as u8,
            rx_id: t.ctrl_rx_id.val().to_u64() as u16,
            dst_ip: t.ctrl_dst_ip.val().to_u64() as u32,
            dst_port: t.ctrl_dst_port.val().to_u64() as u16,
            src_port: t.ctrl_src_port.val().to_u64() as u16,
            tx_msg_id: t.ctrl_tx_msg_id.val().to_u64() as u16,
            msg_len: t.ctrl_msg_len.val().to_u64() as u16,
            pkt_offset: t.ctrl_pkt_offset.val().to_u64() as u8,
            pull_grant: t.ctrl_pull_grant.val().to_u64() as u16,
            grant_prio: t.ctrl_grant_prio.val().to_u64() as u8,
        }),
        ctrl_event: t.ctrl.val(),
        freed: t.freed.val().then(|| t.freed_id.val().to_u64() as u16),
        credit_set: t.credit_set.val().then(|| {
            (
                t.credit_id.val().to_u64() as u16,
                t.credit.val().to_u64() as u16,
            )
        }),
        acked_below: t.acked.val().then(|| {
            (
                t.acked_id.val().to_u64() as u16,
                t.acked_below.val().to_u64() as u8,
            )
        }),
        ..Default::default()
    }
}

/// A control-packet event the program raised (the packet generator took it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CtrlEvent {
    pub flags: u8,
    pub rx_id: u16,
    pub dst_ip: u32,
    pub dst_port: u16,
    pub src_port: u16,
    pub tx_msg_id: u16,
    pub msg_len: u16,
    pub pkt_offset: u8,
    pub pull_grant: u16,
    pub grant_prio: u8,
}

impl CtrlEvent {
    /// The event on a program's `ctrl` port (whether or not it is valid).
    pub fn of<const A: usize>(c: &crate::program::CtrlEventOut<A>) -> Self {
        CtrlEvent {
            flags: c.flags.val().to_u64() as u8,
            rx_id: c.rx_id.val().to_u64() as u16,
            dst_ip: c.dst_ip.val().to_u64() as u32,
            dst_port: c.dst_port.val().to_u64() as u16,
            src_port: c.src_port.val().to_u64() as u16,
            tx_msg_id: c.tx_msg_id.val().to_u64() as u16,
            msg_len: c.msg_len.val().to_u64() as u16,
            pkt_offset: c.pkt_offset.val().to_u64() as u8,
            pull_grant: c.pull_grant.val().to_u64() as u16,
            grant_prio: c.grant_prio.val().to_u64() as u8,
        }
    }
}

/// Which stage boundaries moved a word in a cycle, and what crossed the program's
/// boundary: the budget measurements' and the program models' view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NicProbe {
    /// The record the program took this cycle.
    pub record: Option<crate::ingress::PktInfo>,
    /// The control-packet event the program raised this cycle.
    pub ctrl: Option<CtrlEvent>,
    /// The receive message the reassembly module freed this cycle.
    pub freed: Option<u16>,
    /// A `CreditTxEvent` that set a message's credit this cycle: `(tx_msg_id, credit)`.
    pub credit_set: Option<(u16, u16)>,
    /// A `DeliveredEvent` with a cumulative acknowledgement this cycle:
    /// `(tx_msg_id, offsets below this one delivered)`.
    pub acked_below: Option<(u16, u8)>,
    /// MAC RX took a word.
    pub mac_rx: bool,
    /// The ingress pipeline passed a word to the reassembly module (and it was the last).
    pub ingress_out: bool,
    pub ingress_out_last: bool,
    /// The program raised a control-packet event.
    pub ctrl_event: bool,
    /// The application took a delivered word.
    pub app_rx: bool,
    /// The application wrote a word.
    pub app_tx: bool,
    /// The packetization module sent a word (into the arbiter).
    pub packetize_out: bool,
    /// The deparser took a word.
    pub egress_in: bool,
    /// MAC TX sent a word.
    pub mac_tx: bool,
}

/// Defines a NIC top block `$name` around the program type `$prog`: `$homa` selects the
/// Homa transport layout, `$proto` the IP protocol, `$pace` NDP's PULL pacing. The 16-message
/// blocks are the default; `messages: 128` builds the 128-message blocks; the long form
/// names the reassembly, packetization and packet generator types, their buffer classes
/// and the packet generator's `C` (the width of its `pulls_queued` count), which must
/// match the program's message count.
#[macro_export]
macro_rules! nic_block {
    ($(#[$doc:meta])* $name:ident, $prog:ty, $prog_new:expr, program: $pname:expr, homa: $homa:expr, protocol: $proto:expr, pace: $pace:expr) => {
        $crate::nic_block!(
            $(#[$doc])* $name, $prog, $prog_new, program: $pname, homa: $homa, protocol: $proto, pace: $pace, bolt: false
        );
    };
    ($(#[$doc:meta])* $name:ident, $prog:ty, $prog_new:expr, program: $pname:expr, homa: $homa:expr, protocol: $proto:expr, pace: $pace:expr, bolt: $bolt:expr) => {
        $crate::nic_block!(
            $(#[$doc])* $name, $prog, $prog_new, program: $pname, homa: $homa, protocol: $proto, pace: $pace, bolt: $bolt,
            reassembly: $crate::reassembly::Reassembly16,
            packetization: $crate::packetization::Packetization16,
            pktgen: $crate::pktgen::PacketGen16,
            bufs: $crate::pool::BufferConfig::n16(),
            pull_bits: 5,
            id_bits: 4
        );
    };
    ($(#[$doc:meta])* $name:ident, $prog:ty, $prog_new:expr, program: $pname:expr, homa: $homa:expr, protocol: $proto:expr, pace: $pace:expr, messages: 128) => {
        $crate::nic_block!(
            $(#[$doc])* $name, $prog, $prog_new, program: $pname, homa: $homa, protocol: $proto, pace: $pace, bolt: false, messages: 128
        );
    };
    ($(#[$doc:meta])* $name:ident, $prog:ty, $prog_new:expr, program: $pname:expr, homa: $homa:expr, protocol: $proto:expr, pace: $pace:expr, bolt: $bolt:expr, messages: 128) => {
        $crate::nic_block!(
            $(#[$doc])* $name, $prog, $prog_new, program: $pname, homa: $homa, protocol: $proto, pace: $pace, bolt: $bolt,
            reassembly: $crate::reassembly::Reassembly128,
            packetization: $crate::packetization::Packetization128,
            pktgen: $crate::pktgen::PacketGen<7, 128, 8>,
            bufs: $crate::pool::BufferConfig::n128(),
            pull_bits: 8,
            id_bits: 7
        );
    };
    ($(#[$doc:meta])* $name:ident, $prog:ty, $prog_new:expr, program: $pname:expr, homa: $homa:expr, protocol: $proto:expr, pace: $pace:expr, bolt: $bolt:expr,
     reassembly: $reasm:ty, packetization: $pkt:ty, pktgen: $pg:ty, bufs: $bufs:expr, pull_bits: $pull_bits:literal, id_bits: $id_bits:literal) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name {
            pub clock: Signal<In, Clock>,
            pub reset: Signal<In, bool>,
            pub cfg: $crate::nic::NicCfg,
            pub mac_rx: $crate::parser::MacSink,
            pub mac_tx: $crate::deparser::MacSource,
            pub app_tx: $crate::packetization::TxAppSink,
            pub app_rx: $crate::reassembly::RxMsgSource,
            pub status: $crate::packetization::TxStatusOut,
            pub stat: $crate::nic::NicStats,
            pub trace: $crate::nic::NicTrace,

            pub parser: $crate::parser::Parser,
            pub core: $crate::ingress::IngressCore,
            pub prog: $prog,
            pub reasm: $reasm,
            pub pkt: $pkt,
            pub pg: $pg,
            pub arb: $crate::arbiter::Arbiter,
            pub dep: $crate::deparser::Deparser,
            pub stamp: $crate::boltstamp::BoltStamp,
            now: DFF<Bits<64>>,
            /// The claim of the record the program took last (its source address and
            /// context, destination context, msg_len): the packetization module checks
            /// that record's delivered and credit events against it.
            claim_ip: DFF<Bits<32>>,
            claim_peer_port: DFF<Bits<16>>,
            claim_local_port: DFF<Bits<16>>,
            claim_len: DFF<Bits<16>>,
            one_64: Constant<Bits<64>>,
            three_32: Constant<Bits<32>>,
            gap_a: Signal<Local, Bits<32>>,
            gap_b: Signal<Local, Bits<32>>,
            zero_64: Constant<Bits<64>>,
            protocol: Constant<Bits<8>>,
            pace: Constant<bool>,
        }

        impl $name {
            /// A NIC with its buffer classes (`BufferConfig::n16()` unless given).
            pub fn new() -> Self {
                let bufs = $bufs;
                Self {
                    clock: Default::default(),
                    reset: Default::default(),
                    cfg: Default::default(),
                    mac_rx: Default::default(),
                    mac_tx: Default::default(),
                    app_tx: Default::default(),
                    app_rx: Default::default(),
                    status: Default::default(),
                    stat: Default::default(),
                    trace: Default::default(),
                    parser: $crate::parser::Parser::with_bolt($homa, $bolt),
                    core: $crate::ingress::IngressCore::new(),
                    prog: $prog_new,
                    reasm: <$reasm>::new(&bufs),
                    pkt: <$pkt>::new(&bufs),
                    pg: <$pg>::new(),
                    arb: $crate::arbiter::Arbiter::new(),
                    dep: $crate::deparser::Deparser::new($homa),
                    stamp: $crate::boltstamp::BoltStamp::new($bolt),
                    now: Default::default(),
                    claim_ip: Default::default(),
                    claim_peer_port: Default::default(),
                    claim_local_port: Default::default(),
                    claim_len: Default::default(),
                    one_64: Constant::new(1.into()),
                    three_32: Constant::new(3.into()),
                    gap_a: Default::default(),
                    gap_b: Default::default(),
                    zero_64: Constant::new(0.into()),
                    protocol: Constant::new(($proto).into()),
                    pace: Constant::new($pace),
                }
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl $crate::nic::NicTop for $name {
            const PROGRAM: &'static str = $pname;
            fn ports(&mut self) -> $crate::nic::NicPorts<'_> {
                $crate::nic::NicPorts {
                    reset: &mut self.reset,
                    cfg: &mut self.cfg,
                    mac_rx: &mut self.mac_rx,
                    mac_tx: &mut self.mac_tx,
                    app_tx: &mut self.app_tx,
                    app_rx: &mut self.app_rx,
                    status: &mut self.status,
                }
            }
            fn mac_tx(&self) -> &$crate::deparser::MacSource {
                &self.mac_tx
            }
            fn app_tx(&self) -> &$crate::packetization::TxAppSink {
                &self.app_tx
            }
            fn app_rx(&self) -> &$crate::reassembly::RxMsgSource {
                &self.app_rx
            }
            fn status(&self) -> &$crate::packetization::TxStatusOut {
                &self.status
            }
            fn stat(&self) -> &$crate::nic::NicStats {
                &self.stat
            }
            fn probe(&self) -> $crate::nic::NicProbe {
                $crate::nic::NicProbe {
                    mac_rx: self.mac_rx.valid.val() & self.mac_rx.ready.val(),
                    ingress_out: self.core.data.valid.val() & self.core.data.ready.val(),
                    ingress_out_last: self.core.data.valid.val()
                        & self.core.data.ready.val()
                        & self.core.data.last.val(),
                    app_rx: self.app_rx.valid.val() & self.app_rx.ready.val(),
                    app_tx: self.app_tx.valid.val() & self.app_tx.ready.val(),
                    packetize_out: self.pkt.source.valid.val() & self.pkt.source.ready.val(),
                    egress_in: self.dep.sink.valid.val() & self.dep.sink.ready.val(),
                    mac_tx: self.mac_tx.valid.val() & self.mac_tx.ready.val(),
                    ..$crate::nic::trace_probe(&self.trace)
                }
            }
            fn tx_alloc(&self) -> Option<u16> {
                self.app_tx.alloc.val().then(|| self.app_tx.id.val().to_u64() as u16)
            }
        }

        impl $crate::Clocked for $name {
            fn clock_input(&mut self) -> &mut Signal<In, Clock> {
                &mut self.clock
            }
        }

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, now, claim_ip, claim_peer_port, claim_local_port, claim_len);
                self.now.d.next = self.now.q.val() + self.one_64.val();
                if self.reset.val() {
                    self.now.d.next = self.zero_64.val();
                }
                self.parser.clock.next = self.clock.val();
                self.parser.reset.next = self.reset.val();
                self.core.clock.next = self.clock.val();
                self.core.reset.next = self.reset.val();
                self.prog.clock.next = self.clock.val();
                self.prog.reset.next = self.reset.val();
                self.reasm.clock.next = self.clock.val();
                self.reasm.reset.next = self.reset.val();
                self.pkt.clock.next = self.clock.val();
                self.pkt.reset.next = self.reset.val();
                self.pg.clock.next = self.clock.val();
                self.pg.reset.next = self.reset.val();
                self.arb.clock.next = self.clock.val();
                self.arb.reset.next = self.reset.val();
                self.dep.clock.next = self.clock.val();
                self.dep.reset.next = self.reset.val();
                self.stamp.clock.next = self.clock.val();
                self.stamp.reset.next = self.reset.val();
                self.stamp.rtt_pkts.next = self.cfg.rtt_pkts.val();

                // MAC RX → parser → fixed ingress stage → program and reassembly.
                self.parser.sink.valid.next = self.mac_rx.valid.val();
                self.parser.sink.data.next = self.mac_rx.data.val();
                self.parser.sink.last.next = self.mac_rx.last.val();
                self.parser.sink.empty.next = self.mac_rx.empty.val();
                self.mac_rx.ready.next = self.parser.sink.ready.val();
                self.parser.cfg.mac.next = self.cfg.mac.val();
                self.parser.cfg.ip.next = self.cfg.ip.val();
                self.parser.cfg.protocol.next = self.protocol.val();
                self.core.pkt.valid.next = self.parser.source.valid.val();
                self.core.pkt.data.next = self.parser.source.data.val();
                self.core.pkt.last.next = self.parser.source.last.val();
                self.core.pkt.empty.next = self.parser.source.empty.val();
                self.core.pkt.hdr.next = self.parser.source.hdr.val();
                self.parser.source.ready.next = self.core.pkt.ready.val();
                self.reasm.info_req.valid.next = self.core.info_req.valid.val();
                self.reasm.info_req.mark_received.next = self.core.info_req.mark_received.val();
                self.reasm.info_req.src_ip.next = self.core.info_req.src_ip.val();
                self.reasm.info_req.src_port.next = self.core.info_req.src_port.val();
                self.reasm.info_req.tx_msg_id.next = self.core.info_req.tx_msg_id.val();
                self.reasm.info_req.msg_len.next = self.core.info_req.msg_len.val();
                self.reasm.info_req.pkt_offset.next = self.core.info_req.pkt_offset.val();
                self.core.info_req.ready.next = self.reasm.info_req.ready.val();
                self.core.info_resp.valid.next = self.reasm.info_resp.valid.val();
                self.core.info_resp.fail.next = self.reasm.info_resp.fail.val();
                self.core.info_resp.rx_msg_id.next = self.reasm.info_resp.rx_msg_id.val();
                self.core.info_resp.is_new_msg.next = self.reasm.info_resp.is_new_msg.val();
                self.core.info_resp.is_new_pkt.next = self.reasm.info_resp.is_new_pkt.val();
                self.core.info_resp.is_last_pkt.next = self.reasm.info_resp.is_last_pkt.val();
                self.core.info_resp.ack_no.next = self.reasm.info_resp.ack_no.val();
                self.core.info_resp.done.next = self.reasm.info_resp.done.val();
                self.reasm.sink.valid.next = self.core.data.valid.val();
                self.reasm.sink.data.next = self.core.data.data.val();
                self.reasm.sink.last.next = self.core.data.last.val();
                self.reasm.sink.remote_ip.next = self.core.data.remote_ip.val();
                self.reasm.sink.remote_port.next = self.core.data.remote_port.val();
                self.reasm.sink.msg_len.next = self.core.data.msg_len.val();
                self.reasm.sink.pkt_offset.next = self.core.data.pkt_offset.val();
                self.reasm.sink.local_port.next = self.core.data.local_port.val();
                self.reasm.sink.rx_msg_id.next = self.core.data.rx_msg_id.val();
                self.reasm.sink.tx_msg_id.next = self.core.data.tx_msg_id.val();
                self.core.data.ready.next = self.reasm.sink.ready.val();
                self.prog.info.valid.next = self.core.info.valid.val();
                self.prog.info.info.next = self.core.info.info.val();
                self.core.info.ready.next = self.prog.info.ready.val();
                // A program raises a record's events before it takes the next record
                // (`crate::program`), so the events check against the last record taken.
                if self.core.info.valid.val() & self.prog.info.ready.val() {
                    self.claim_ip.d.next = self.core.info.info.val().src_ip;
                    self.claim_peer_port.d.next = self.core.info.info.val().src_port;
                    self.claim_local_port.d.next = self.core.info.info.val().dst_port;
                    self.claim_len.d.next = self.core.info.info.val().msg_len;
                }
                self.prog.cfg.rtt_pkts.next = self.cfg.rtt_pkts.val();
                self.prog.freed.valid.next = self.reasm.stat.freed_valid.val();
                self.prog.freed.id.next = self.reasm.stat.freed_id.val();
                // Program events → packetization and packet generator.
                self.pkt.delivered.valid.next = self.prog.delivered.valid.val();
                self.pkt.delivered.tx_msg_id.next = self.prog.delivered.tx_msg_id.val();
                self.pkt.delivered.ack_bitmap.next = self.prog.delivered.ack_bitmap.val();
                self.pkt.delivered.below_flag.next = self.prog.delivered.below_flag.val();
                self.pkt.delivered.below.next = self.prog.delivered.below.val();
                self.pkt.delivered.peer_ip.next = self.claim_ip.q.val();
                self.pkt.delivered.peer_port.next = self.claim_peer_port.q.val();
                self.pkt.delivered.local_port.next = self.claim_local_port.q.val();
                self.pkt.delivered.msg_len.next = self.claim_len.q.val();
                self.pkt.credit.peer_ip.next = self.claim_ip.q.val();
                self.pkt.credit.peer_port.next = self.claim_peer_port.q.val();
                self.pkt.credit.local_port.next = self.claim_local_port.q.val();
                self.pkt.credit.msg_len.next = self.claim_len.q.val();
                self.prog.delivered.ready.next = self.pkt.delivered.ready.val();
                self.pkt.credit.valid.next = self.prog.credit.valid.val();
                self.pkt.credit.tx_msg_id.next = self.prog.credit.tx_msg_id.val();
                self.pkt.credit.rtx_flag.next = self.prog.credit.rtx_flag.val();
                self.pkt.credit.rtx_bitmap.next = self.prog.credit.rtx_bitmap.val();
                self.pkt.credit.credit_flag.next = self.prog.credit.credit_flag.val();
                self.pkt.credit.new_credit.next = self.prog.credit.new_credit.val();
                self.pkt.credit.allow_tx.next = self.prog.credit.allow_tx.val();
                self.pkt.credit.rank_flag.next = self.prog.credit.rank_flag.val();
                self.pkt.credit.new_rank.next = self.prog.credit.new_rank.val();
                self.prog.credit.ready.next = self.pkt.credit.ready.val();
                self.pg.event.valid.next = self.prog.ctrl.valid.val();
                self.pg.event.flags.next = self.prog.ctrl.flags.val();
                self.pg.event.rx_id.next = self.prog.ctrl.rx_id.val();
                self.pg.event.dst_ip.next = self.prog.ctrl.dst_ip.val();
                self.pg.event.dst_port.next = self.prog.ctrl.dst_port.val();
                self.pg.event.src_port.next = self.prog.ctrl.src_port.val();
                self.pg.event.tx_msg_id.next = self.prog.ctrl.tx_msg_id.val();
                self.pg.event.msg_len.next = self.prog.ctrl.msg_len.val();
                self.pg.event.pkt_offset.next = self.prog.ctrl.pkt_offset.val();
                self.pg.event.pull_grant.next = self.prog.ctrl.pull_grant.val();
                self.pg.event.grant_prio.next = self.prog.ctrl.grant_prio.val();
                self.prog.ctrl.ready.next = self.pg.event.ready.val();
                // Reassembly → application.
                self.reasm.now.next = self.now.q.val();
                self.reasm.cfg.timeout.next = self.cfg.rx_timeout.val();
                self.reasm.cfg.conflict_idle.next = self.cfg.timeout.val() + self.cfg.timeout.val();
                self.app_rx.valid.next = self.reasm.source.valid.val();
                self.app_rx.data.next = self.reasm.source.data.val();
                self.app_rx.last.next = self.reasm.source.last.val();
                self.app_rx.local_port.next = self.reasm.source.local_port.val();
                self.reasm.source.ready.next = self.app_rx.ready.val();
                // Application → packetization → arbiter (with the packet generator) → deparser → MAC TX.
                self.pkt.now.next = self.now.q.val();
                self.pkt.cfg.rtt_pkts.next = self.cfg.rtt_pkts.val();
                self.pkt.cfg.timeout.next = self.cfg.timeout.val();
                self.pkt.cfg.max_timeouts.next = self.cfg.max_retries.val();
                // A released slot waits about rx_timeout / 125 cycles before its next
                // incarnation (T/128 + T/8192 + T/16384 + 3 >= T/127): 128 incarnations
                // then span more than a receiver's late-duplicate window.
                self.gap_a.next = bit_cast::<32, 25>(self.cfg.rx_timeout.val().get_bits::<25>(7))
                    + bit_cast::<32, 19>(self.cfg.rx_timeout.val().get_bits::<19>(13));
                self.gap_b.next = bit_cast::<32, 18>(self.cfg.rx_timeout.val().get_bits::<18>(14))
                    + self.three_32.val();
                self.pkt.cfg.reuse_gap.next = self.gap_a.val() + self.gap_b.val();
                self.pkt.app.valid.next = self.app_tx.valid.val();
                self.pkt.app.data.next = self.app_tx.data.val();
                self.pkt.app.last.next = self.app_tx.last.val();
                self.pkt.app.src_port.next = self.app_tx.src_port.val();
                self.app_tx.ready.next = self.pkt.app.ready.val();
                self.app_tx.alloc.next = self.pkt.app.alloc.val();
                self.app_tx.id.next = self.pkt.app.id.val();
                self.trace.record.next = self.prog.info.valid.val() & self.prog.info.ready.val();
                self.trace.record_info.next = self.prog.info.info.val();
                self.trace.ctrl.next = self.prog.ctrl.valid.val() & self.prog.ctrl.ready.val();
                self.trace.ctrl_flags.next = self.prog.ctrl.flags.val();
                self.trace.ctrl_rx_id.next = bit_cast::<16, $id_bits>(self.prog.ctrl.rx_id.val());
                self.trace.ctrl_dst_ip.next = self.prog.ctrl.dst_ip.val();
                self.trace.ctrl_dst_port.next = self.prog.ctrl.dst_port.val();
                self.trace.ctrl_src_port.next = self.prog.ctrl.src_port.val();
                self.trace.ctrl_tx_msg_id.next = self.prog.ctrl.tx_msg_id.val();
                self.trace.ctrl_msg_len.next = self.prog.ctrl.msg_len.val();
                self.trace.ctrl_pkt_offset.next = self.prog.ctrl.pkt_offset.val();
                self.trace.ctrl_pull_grant.next = self.prog.ctrl.pull_grant.val();
                self.trace.ctrl_grant_prio.next = self.prog.ctrl.grant_prio.val();
                self.trace.freed.next = self.reasm.stat.freed_valid.val();
                self.trace.freed_id.next = self.reasm.stat.freed_id.val();
                self.trace.credit_set.next = self.prog.credit.valid.val()
                    & self.prog.credit.ready.val()
                    & self.prog.credit.credit_flag.val();
                self.trace.credit_id.next = self.prog.credit.tx_msg_id.val();
                self.trace.credit.next = self.prog.credit.new_credit.val();
                self.trace.acked.next = self.prog.delivered.valid.val()
                    & self.prog.delivered.ready.val()
                    & self.prog.delivered.below_flag.val();
                self.trace.acked_id.next = self.prog.delivered.tx_msg_id.val();
                self.trace.acked_below.next = self.prog.delivered.below.val();
                self.status.valid.next = self.pkt.status.valid.val();
                self.status.tx_msg_id.next = self.pkt.status.tx_msg_id.val();
                self.status.code.next = self.pkt.status.code.val();
                self.pkt.status.ready.next = self.status.ready.val();
                self.pg.cfg.pace.next = self.pace.val();
                self.pg.cfg.gap.next = self.cfg.pull_gap.val();
                self.pg.cfg.pace_nacks.next = self.cfg.pace_nacks.val();
                self.pg.cfg.rtt_pkts.next = self.cfg.rtt_pkts.val();
                self.arb.data.valid.next = self.pkt.source.valid.val();
                self.arb.data.data.next = self.pkt.source.data.val();
                self.arb.data.last.next = self.pkt.source.last.val();
                self.arb.data.remote_ip.next = self.pkt.source.remote_ip.val();
                self.arb.data.remote_port.next = self.pkt.source.remote_port.val();
                self.arb.data.msg_len.next = self.pkt.source.msg_len.val();
                self.arb.data.pkt_offset.next = self.pkt.source.pkt_offset.val();
                self.arb.data.local_port.next = self.pkt.source.local_port.val();
                self.arb.data.tx_msg_id.next = self.pkt.source.tx_msg_id.val();
                self.arb.data.credit.next = self.pkt.source.credit.val();
                self.arb.data.rank.next = self.pkt.source.rank.val();
                self.arb.data.flags.next = self.pkt.source.flags.val();
                self.arb.data.is_new_msg.next = self.pkt.source.is_new_msg.val();
                self.arb.data.is_rtx.next = self.pkt.source.is_rtx.val();
                self.pkt.source.ready.next = self.arb.data.ready.val();
                self.arb.ctrl.valid.next = self.pg.source.valid.val();
                self.arb.ctrl.data.next = self.pg.source.data.val();
                self.arb.ctrl.last.next = self.pg.source.last.val();
                self.arb.ctrl.remote_ip.next = self.pg.source.remote_ip.val();
                self.arb.ctrl.remote_port.next = self.pg.source.remote_port.val();
                self.arb.ctrl.msg_len.next = self.pg.source.msg_len.val();
                self.arb.ctrl.pkt_offset.next = self.pg.source.pkt_offset.val();
                self.arb.ctrl.local_port.next = self.pg.source.local_port.val();
                self.arb.ctrl.tx_msg_id.next = self.pg.source.tx_msg_id.val();
                self.arb.ctrl.credit.next = self.pg.source.credit.val();
                self.arb.ctrl.rank.next = self.pg.source.rank.val();
                self.arb.ctrl.flags.next = self.pg.source.flags.val();
                self.arb.ctrl.is_new_msg.next = self.pg.source.is_new_msg.val();
                self.arb.ctrl.is_rtx.next = self.pg.source.is_rtx.val();
                self.pg.source.ready.next = self.arb.ctrl.ready.val();
                self.dep.sink.valid.next = self.arb.source.valid.val();
                self.dep.sink.data.next = self.arb.source.data.val();
                self.dep.sink.last.next = self.arb.source.last.val();
                self.dep.sink.remote_ip.next = self.arb.source.remote_ip.val();
                self.dep.sink.remote_port.next = self.arb.source.remote_port.val();
                self.dep.sink.msg_len.next = self.arb.source.msg_len.val();
                self.dep.sink.pkt_offset.next = self.arb.source.pkt_offset.val();
                self.dep.sink.local_port.next = self.arb.source.local_port.val();
                self.dep.sink.tx_msg_id.next = self.arb.source.tx_msg_id.val();
                self.dep.sink.credit.next = self.arb.source.credit.val();
                self.dep.sink.rank.next = self.arb.source.rank.val();
                self.dep.sink.flags.next = self.arb.source.flags.val();
                self.dep.sink.is_new_msg.next = self.arb.source.is_new_msg.val();
                self.dep.sink.is_rtx.next = self.arb.source.is_rtx.val();
                self.arb.source.ready.next = self.dep.sink.ready.val();
                self.dep.cfg.mac.next = self.cfg.mac.val();
                self.dep.cfg.ip.next = self.cfg.ip.val();
                self.dep.cfg.switch_mac.next = self.cfg.switch_mac.val();
                self.dep.cfg.protocol.next = self.protocol.val();
                self.stamp.sink.valid.next = self.dep.source.valid.val();
                self.stamp.sink.data.next = self.dep.source.data.val();
                self.stamp.sink.last.next = self.dep.source.last.val();
                self.stamp.sink.empty.next = self.dep.source.empty.val();
                self.dep.source.ready.next = self.stamp.sink.ready.val();
                self.mac_tx.valid.next = self.stamp.source.valid.val();
                self.mac_tx.data.next = self.stamp.source.data.val();
                self.mac_tx.last.next = self.stamp.source.last.val();
                self.mac_tx.empty.next = self.stamp.source.empty.val();
                self.stamp.source.ready.next = self.mac_tx.ready.val();


                // Counters.
                self.stat.rx_frames.next = self.parser.stat.frames.val();
                self.stat.rx_passed.next = self.parser.stat.passed.val();
                self.stat.rx_data.next = self.core.stat.data_pkts.val();
                self.stat.rx_ctrl.next = self.core.stat.ctrl_pkts.val();
                self.stat.rx_trimmed.next = self.core.stat.trimmed.val();
                self.stat.rx_lookup_fail.next = self.core.stat.drop_fail.val();
                self.stat.rx_late_dups.next = self.core.stat.late_dups.val();
                self.stat.rx_delivered.next = self.reasm.stat.delivered.val();
                self.stat.rx_timeouts.next = self.reasm.stat.timeouts.val();
                self.stat.tx_data.next = self.pkt.stat.sent.val();
                self.stat.tx_retransmitted.next = self.pkt.stat.retransmitted.val();
                self.stat.tx_probes.next = self.pkt.stat.probes.val();
                self.stat.tx_ctrl.next = self.pg.stat.packets.val();
                self.stat.tx_completed.next = self.pkt.stat.completed.val();
                self.stat.tx_given_up.next = self.pkt.stat.given_up.val();
                self.stat.tx_nacks_paced.next = self.pg.stat.nacks_paced.val();
                self.stat.tx_nacks_unpaced.next = self.pg.stat.nacks_unpaced.val();
                self.stat.tx_frames.next = self.dep.packets.val();
                self.stat.pulls_queued.next = bit_cast::<8, $pull_bits>(self.pg.pulls_queued.val());
                self.stat.rx_drop_overflow.next = self.parser.stat.drop_overflow.val();
                self.stat.rx_drop_too_long.next = self.parser.stat.drop_too_long.val();
                self.stat.rx_drop_truncated.next = self.parser.stat.drop_truncated.val();
                self.stat.rx_drop_not_ipv4.next = self.parser.stat.drop_not_ipv4.val();
                self.stat.rx_drop_bad_ip_header.next = self.parser.stat.drop_bad_ip_header.val();
                self.stat.rx_drop_bad_length.next = self.parser.stat.drop_bad_length.val();
                self.stat.rx_drop_bad_checksum.next = self.parser.stat.drop_bad_checksum.val();
                self.stat.rx_drop_not_for_us.next = self.parser.stat.drop_not_for_us.val();
                self.stat.rx_drop_bad_protocol.next = self.parser.stat.drop_bad_protocol.val();
                self.stat.rx_drop_bad_transport.next = self.parser.stat.drop_bad_transport.val();
                self.stat.rx_no_buffer.next = self.reasm.stat.alloc_fail.val();
                self.stat.rx_bad_request.next = self.reasm.stat.bad_req.val();
                self.stat.rx_len_conflicts.next = self.reasm.stat.len_conflicts.val();
                self.stat.tx_ctrl_stale.next = self.pkt.stat.bad_events.val();
                self.stat.tx_ctrl_bad_peer.next = self.pkt.stat.bad_peer.val();
                self.stat.tx_ctrl_bad_offset.next = self.pkt.stat.bad_offset.val();
            }
        }
    };
}

nic_block!(
    /// The NDP NIC (Algorithm 5), 16 messages per direction.
    NicNdp,
    crate::ndp::NdpProgram16,
    crate::ndp::NdpProgram16::new(),
    program: "ndp",
    homa: false,
    protocol: PROTO_NDP,
    pace: true
);

nic_block!(
    /// The NDP NIC with 128 messages per direction (thesis Table 3.2's second row):
    /// `Reassembly128`, `Packetization128` (944 KiB of buffers each), a 128-message packet
    /// generator and NDP program.
    NicNdp128,
    crate::ndp::NdpProgram<7, 128>,
    crate::ndp::NdpProgram::<7, 128>::new(),
    program: "ndp",
    homa: false,
    protocol: PROTO_NDP,
    pace: true,
    messages: 128
);

nic_block!(
    /// The NDP NIC as built for an FPGA (issue 31): [`NicNdp`] with half as much buffer
    /// memory in each direction (`BufferConfig::fpga16()`: two 38 KiB buffers instead of
    /// four, 126 KiB in 2^14 words), so that it fits the 208 DP16KD of an ECP5-85F; the
    /// same cycles in every other respect.
    NicNdpFpga,
    crate::ndp::NdpProgram16,
    crate::ndp::NdpProgram16::new(),
    program: "ndp",
    homa: false,
    protocol: PROTO_NDP,
    pace: true,
    bolt: false,
    reassembly: crate::reassembly::Reassembly16Fpga,
    packetization: crate::packetization::Packetization16Fpga,
    pktgen: crate::pktgen::PacketGen16,
    bufs: crate::pool::BufferConfig::fpga16(),
    pull_bits: 5,
    id_bits: 4
);

nic_block!(
    /// The Homa NIC (Algorithm 6: SRPT grants, overcommitment 3), 16 messages per
    /// direction.
    NicHoma,
    crate::homa::HomaProgram16,
    crate::homa::HomaProgram16::new(false),
    program: "homa",
    homa: true,
    protocol: PROTO_HOMA,
    pace: false
);

nic_block!(
    /// The Homa-Tr NIC (Homa with NDP's trimming recovery), 16 messages per direction.
    NicHomaTr,
    crate::homa::HomaProgram16,
    crate::homa::HomaProgram16::new(true),
    program: "homatr",
    homa: true,
    protocol: PROTO_HOMA,
    pace: false
);

nic_block!(
    /// The Homa NIC with 128 messages per direction: `Reassembly128`, `Packetization128`
    /// (16 buffers of 38 KiB among 944 KiB each), a 128-message Homa program and packet
    /// generator. The network simulator uses it where a host receives more concurrent
    /// large messages than the 16-message NIC has 38 KiB buffers for (four): the thesis
    /// incast's receiver.
    NicHoma128,
    crate::homa::HomaProgram<7, 128>,
    crate::homa::HomaProgram::<7, 128>::new(false),
    program: "homa",
    homa: true,
    protocol: PROTO_HOMA,
    pace: false,
    messages: 128
);

nic_block!(
    /// The Homa-Tr NIC with 128 messages per direction (as [`NicHoma128`], with NDP's
    /// trimming recovery).
    NicHomaTr128,
    crate::homa::HomaProgram<7, 128>,
    crate::homa::HomaProgram::<7, 128>::new(true),
    program: "homatr",
    homa: true,
    protocol: PROTO_HOMA,
    pace: false,
    messages: 128
);

nic_block!(
    /// The Bolt NIC (thesis Algorithm 8 on the NDP layout, [`crate::bolt`]): per-message
    /// windows held as credit, SRC handling, and the Bolt TX stamp; 16 messages per
    /// direction.
    NicBolt,
    crate::bolt::BoltProgram16,
    crate::bolt::BoltProgram16::new(),
    program: "bolt",
    homa: false,
    protocol: PROTO_NDP,
    pace: false,
    bolt: true
);

nic_block!(
    /// The Bolt NIC with 128 messages per direction.
    NicBolt128,
    crate::bolt::BoltProgram<7, 128>,
    crate::bolt::BoltProgram::<7, 128>::new(),
    program: "bolt",
    homa: false,
    protocol: PROTO_NDP,
    pace: false,
    bolt: true,
    messages: 128
);
