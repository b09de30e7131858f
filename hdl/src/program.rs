//! The ports between a transport program and the NIC's fixed blocks.
//!
//! A program is the protocol-specific part of the ingress pipeline (thesis §3.2.1): its
//! match-action stages and the stateful externs they call. It takes one
//! [`crate::ingress::PktInfo`] record per received packet (header fields and, for DATA,
//! the `GetRxMsgInfo` answer) and raises events towards the fixed blocks:
//! * [`DeliveredOut`]: the packetization module's `DeliveredEvent` (Algorithm 2);
//! * [`CreditOut`]: its `CreditTxEvent` (Algorithm 3);
//! * [`CtrlEventOut`]: the packet generator's `CtrlPktEvent`.
//!
//! A program raises every event of a record before it takes the next record: the NIC
//! top latches each taken record's source address and context, destination context and
//! `msg_len`, and the packetization module drops a delivered or credit event whose
//! message does not match them (`crate::packetization`, "Control packets are checked").
//!
//! Every program block has the same ports (`cfg`, `info`, `delivered`, `credit`, `ctrl`,
//! `stat`), so `crate::nic` can plug any of them between the same blocks.
//! `docs/programming.md` shows how to write one.
use crate::packetization::MAX_PKTS;
use rust_hdl::prelude::*;

/// Priority levels a program may give its packets (the switch's bands, SPEC §1: 0 is
/// the highest). Packets carry their priority in the IPv4 DSCP field (`tos >> 2`), never
/// in the ECN bits (`crate::deparser`); a priority received from the network (Homa's
/// `grant_prio`) is clamped to `PRIO_LEVELS - 1`.
pub const PRIO_LEVELS: u64 = 4;

/// `DeliveredEvent` towards the packetization module (its `delivered`, mirrored).
#[derive(LogicInterface, Default)]
pub struct DeliveredOut {
    pub valid: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
    pub tx_msg_id: Signal<Out, Bits<16>>,
    pub ack_bitmap: Signal<Out, Bits<MAX_PKTS>>,
    pub below_flag: Signal<Out, bool>,
    pub below: Signal<Out, Bits<8>>,
}

/// `CreditTxEvent` towards the packetization module (its `credit`, mirrored).
#[derive(LogicInterface, Default)]
pub struct CreditOut {
    pub valid: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
    pub tx_msg_id: Signal<Out, Bits<16>>,
    pub rtx_flag: Signal<Out, bool>,
    pub rtx_bitmap: Signal<Out, Bits<MAX_PKTS>>,
    pub credit_flag: Signal<Out, bool>,
    pub new_credit: Signal<Out, Bits<16>>,
    pub allow_tx: Signal<Out, bool>,
    pub rank_flag: Signal<Out, bool>,
    pub new_rank: Signal<Out, Bits<8>>,
}

/// `CtrlPktEvent` towards the packet generator (its `event`, mirrored).
#[derive(LogicInterface, Default)]
pub struct CtrlEventOut<const A: usize> {
    pub valid: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
    pub flags: Signal<Out, Bits<8>>,
    pub rx_id: Signal<Out, Bits<A>>,
    pub dst_ip: Signal<Out, Bits<32>>,
    pub dst_port: Signal<Out, Bits<16>>,
    pub src_port: Signal<Out, Bits<16>>,
    pub tx_msg_id: Signal<Out, Bits<16>>,
    pub msg_len: Signal<Out, Bits<16>>,
    pub pkt_offset: Signal<Out, Bits<8>>,
    pub pull_grant: Signal<Out, Bits<16>>,
    pub grant_prio: Signal<Out, Bits<8>>,
}

/// A receive message the reassembly module freed (delivered or timed out): its id.
#[derive(LogicInterface, Default)]
pub struct FreedIn {
    pub valid: Signal<In, bool>,
    pub id: Signal<In, Bits<16>>,
}

/// Runtime configuration every program gets.
#[derive(LogicInterface, Default)]
pub struct ProgramCfg {
    /// Packets a message may send before it is pulled or granted (the BDP).
    pub rtt_pkts: Signal<In, Bits<8>>,
}

/// Counters every program keeps (wrapping).
#[derive(LogicInterface, Default)]
pub struct ProgramStats {
    /// Records taken.
    pub records: Signal<Out, Bits<32>>,
    /// DATA records whose `GetRxMsgInfo` failed (no event; the sender retransmits).
    pub failed: Signal<Out, Bits<32>>,
    /// Control-packet events raised.
    pub ctrl_events: Signal<Out, Bits<32>>,
    /// Delivered events raised.
    pub delivered_events: Signal<Out, Bits<32>>,
    /// Credit events raised.
    pub credit_events: Signal<Out, Bits<32>>,
}
