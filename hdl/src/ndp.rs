//! The NDP program (thesis Algorithm 5, SPEC §6): the match-action stages of NDP's
//! ingress pipeline, with one ifElseRAW register extern holding each receive message's
//! `pull_offset`.
//!
//! Receiver (a DATA record whose `GetRxMsgInfo` did not fail):
//! * intact packet: ACK carrying its `pkt_offset`, with PULL, the packet that completed
//!   its message too (Algorithm 5 line 19 raises `CtrlPktEvent(genACK, genNACK,
//!   pull_offset)` for every DATA packet; §3.4.2: "the NDP client PULLs a data packet
//!   every time it receives one"). `pull_offset` is
//!   `rtt_pkts + intact packets received`: the register is initialised to
//!   `rtt_pkts + 1` on a message's first packet and incremented on every new one (a
//!   duplicate is acknowledged again with the unchanged offset, so a lost ACK is repaired
//!   by the sender's retransmission).
//! * trimmed (CHOP) packet: NACK carrying its `pkt_offset`, with PULL, `pull_offset`
//!   unchanged (`rtt_pkts` when it is the message's first packet).
//!
//! The packet generator paces the PULLs (`cfg.pace`); a failed lookup raises nothing
//! (`stat.failed`): the sender's timeout recovers the packet.
//!
//! Sender (control records): ACK → `DeliveredEvent` with the offset's bit; NACK →
//! `CreditTxEvent` retransmitting that offset; PULL → `CreditTxEvent` with
//! `credit = pull_offset`. One packet may carry ACK or NACK and PULL; its events are raised
//! together.
//!
//! # Timing
//! A record taken in cycle `t` (`info.valid & info.ready`) has its `CtrlPktEvent` on
//! `ctrl` in `t+3` (the register answers in `t+2`: [`crate::statereg::RESP_LATENCY`]; the
//! event's other fields wait in the `ctrl` output register meanwhile) and its
//! delivered/credit events in `t+1`. The next record is taken once every event of the
//! last one has been accepted: a DATA record every 4 cycles when `ctrl` is ready.
use crate::ingress::{PktInfo, PktInfoSink, FLAG_ACK, FLAG_CHOP, FLAG_DATA, FLAG_NACK, FLAG_PULL};
use crate::packetization::MAX_PKTS;
use crate::program::{CreditOut, CtrlEventOut, DeliveredOut, FreedIn, ProgramCfg, ProgramStats};
use crate::statereg::{StateReg, OP_IF_ELSE_RAW};
use rust_hdl::prelude::*;

/// A pending `CtrlPktEvent` (without its pull offset, which the register supplies).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct CtrlFields {
    pub flags: Bits<8>,
    pub rx_id: Bits<16>,
    pub dst_ip: Bits<32>,
    pub dst_port: Bits<16>,
    pub src_port: Bits<16>,
    pub tx_msg_id: Bits<16>,
    pub msg_len: Bits<16>,
    pub pkt_offset: Bits<8>,
    pub pull_grant: Bits<16>,
    pub grant_prio: Bits<8>,
}

/// The NDP program for `N = 2^A` receive messages.
#[derive(LogicBlock)]
pub struct NdpProgram<const A: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub cfg: ProgramCfg,
    pub info: PktInfoSink,
    /// Not needed: the register is initialised by a message's first packet.
    pub freed: FreedIn,
    pub delivered: DeliveredOut,
    pub credit: CreditOut,
    pub ctrl: CtrlEventOut<A>,
    pub stat: ProgramStats,

    /// `pull_offset` per receive message (Algorithm 5's `credit`).
    pull: StateReg<A, N, 16>,
    /// A DATA record's register operation is 1 / 2 cycles old (its answer is due when 2).
    s1_v: DFF<bool>,
    s2_v: DFF<bool>,
    ctrl_v: DFF<bool>,
    ctrl_f: DFF<CtrlFields>,
    dlv_v: DFF<bool>,
    dlv_id: DFF<Bits<16>>,
    dlv_bits: DFF<Bits<MAX_PKTS>>,
    crd_v: DFF<bool>,
    crd_id: DFF<Bits<16>>,
    crd_rtx: DFF<bool>,
    crd_bits: DFF<Bits<MAX_PKTS>>,
    crd_set: DFF<bool>,
    crd_credit: DFF<Bits<16>>,
    cnt_rec: DFF<Bits<32>>,
    cnt_fail: DFF<Bits<32>>,
    cnt_ctrl: DFF<Bits<32>>,
    cnt_dlv: DFF<Bits<32>>,
    cnt_crd: DFF<Bits<32>>,

    r: Signal<Local, PktInfo>,
    take: Signal<Local, bool>,
    is_data: Signal<Local, bool>,
    intact: Signal<Local, bool>,
    inc: Signal<Local, Bits<16>>,
    id16: Signal<Local, Bits<16>>,
    out_id16: Signal<Local, Bits<16>>,
    cf: Signal<Local, CtrlFields>,
    obit: Signal<Local, Bits<MAX_PKTS>>,

    op_ifelse: Constant<Bits<3>>,
    one_16: Constant<Bits<16>>,
    zero_16: Constant<Bits<16>>,
    one_32: Constant<Bits<32>>,
    zero_32: Constant<Bits<32>>,
    zero_8: Constant<Bits<8>>,
    one_bits: Constant<Bits<MAX_PKTS>>,
    flag_data: Constant<Bits<8>>,
    flag_ack: Constant<Bits<8>>,
    flag_nack: Constant<Bits<8>>,
    flag_pull: Constant<Bits<8>>,
    flag_chop: Constant<Bits<8>>,
    ack_pull: Constant<Bits<8>>,
    nack_pull: Constant<Bits<8>>,
}

impl<const A: usize, const N: usize> NdpProgram<A, N> {
    pub fn new() -> Self {
        assert!((1..=8).contains(&A), "message id bits A={A} must be 1..=8");
        assert_eq!(N, 1 << A, "N={N} must be 2^A");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            info: Default::default(),
            freed: Default::default(),
            delivered: Default::default(),
            credit: Default::default(),
            ctrl: Default::default(),
            stat: Default::default(),
            pull: StateReg::new(),
            s1_v: Default::default(),
            s2_v: Default::default(),
            ctrl_v: Default::default(),
            ctrl_f: Default::default(),
            dlv_v: Default::default(),
            dlv_id: Default::default(),
            dlv_bits: Default::default(),
            crd_v: Default::default(),
            crd_id: Default::default(),
            crd_rtx: Default::default(),
            crd_bits: Default::default(),
            crd_set: Default::default(),
            crd_credit: Default::default(),
            cnt_rec: Default::default(),
            cnt_fail: Default::default(),
            cnt_ctrl: Default::default(),
            cnt_dlv: Default::default(),
            cnt_crd: Default::default(),
            r: Default::default(),
            take: Default::default(),
            is_data: Default::default(),
            intact: Default::default(),
            inc: Default::default(),
            id16: Default::default(),
            out_id16: Default::default(),
            cf: Default::default(),
            obit: Default::default(),
            op_ifelse: Constant::new(OP_IF_ELSE_RAW.into()),
            one_16: Constant::new(1.into()),
            zero_16: Constant::new(0.into()),
            one_32: Constant::new(1.into()),
            zero_32: Constant::new(0.into()),
            zero_8: Constant::new(0.into()),
            one_bits: Constant::new(1.into()),
            flag_data: Constant::new(FLAG_DATA.into()),
            flag_ack: Constant::new(FLAG_ACK.into()),
            flag_nack: Constant::new(FLAG_NACK.into()),
            flag_pull: Constant::new(FLAG_PULL.into()),
            flag_chop: Constant::new(FLAG_CHOP.into()),
            ack_pull: Constant::new((FLAG_ACK | FLAG_PULL).into()),
            nack_pull: Constant::new((FLAG_NACK | FLAG_PULL).into()),
        }
    }
}

impl<const A: usize, const N: usize> Default for NdpProgram<A, N> {
    fn default() -> Self {
        Self::new()
    }
}

/// The NDP program for 16 receive messages.
pub type NdpProgram16 = NdpProgram<4, 16>;

impl<const A: usize, const N: usize> Logic for NdpProgram<A, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_v, s2_v, ctrl_v, ctrl_f, dlv_v, dlv_id, dlv_bits, crd_v, crd_id,
            crd_rtx, crd_bits, crd_set, crd_credit, cnt_rec, cnt_fail, cnt_ctrl, cnt_dlv, cnt_crd
        );
        self.pull.clock.next = self.clock.val();
        self.pull.reset.next = self.reset.val();

        // Take a record when the last one's events are all out.
        self.r.next = self.info.info.val();
        self.info.ready.next = !self.s1_v.q.val()
            & !self.s2_v.q.val()
            & !self.ctrl_v.q.val()
            & !self.dlv_v.q.val()
            & !self.crd_v.q.val()
            & !self.reset.val();
        self.take.next = self.info.valid.val() & self.info.ready.val();
        self.is_data.next = (self.r.val().flags & self.flag_data.val()) != self.zero_8.val();
        self.intact.next = (self.r.val().flags & self.flag_chop.val()) == self.zero_8.val();
        self.inc.next = self.zero_16.val();
        if self.intact.val() & self.r.val().is_new_pkt {
            self.inc.next = self.one_16.val();
        }
        self.obit.next = self.one_bits.val() << self.r.val().pkt_offset;
        if self.take.val() {
            self.cnt_rec.d.next = self.cnt_rec.q.val() + self.one_32.val();
        }

        // Receiver: ifElseRAW on pull_offset, then ACK/NACK with PULL.
        self.id16.next = self.r.val().rx_msg_id;
        self.pull.ingress.valid.next = self.take.val() & self.is_data.val() & !self.r.val().fail;
        self.pull.ingress.op.next = self.op_ifelse.val();
        self.pull.ingress.idx.next = self.id16.val().get_bits::<A>(0);
        self.pull.ingress.pred.next = self.r.val().is_new_msg;
        self.pull.ingress.a.next = bit_cast::<16, 8>(self.cfg.rtt_pkts.val()) + self.inc.val();
        self.pull.ingress.b.next = self.inc.val();
        self.pull.egress.valid.next = false;
        self.pull.egress.op.next = self.op_ifelse.val();
        self.pull.egress.idx.next = self.id16.val().get_bits::<A>(0);
        self.pull.egress.pred.next = false;
        self.pull.egress.a.next = self.zero_16.val();
        self.pull.egress.b.next = self.zero_16.val();

        // Algorithm 5 line 19: every DATA packet's CtrlPktEvent carries the pull offset,
        // the packet that completed its message too (§3.4.2: "the NDP client PULLs a data
        // packet every time it receives one"); the sender drops a PULL for a message it
        // has already freed (its generation no longer matches).
        self.cf.next.flags = self.nack_pull.val();
        if self.intact.val() {
            self.cf.next.flags = self.ack_pull.val();
        }
        self.cf.next.rx_id = self.r.val().rx_msg_id;
        self.cf.next.dst_ip = self.r.val().src_ip;
        self.cf.next.dst_port = self.r.val().src_port;
        self.cf.next.src_port = self.r.val().dst_port;
        self.cf.next.tx_msg_id = self.r.val().tx_msg_id;
        self.cf.next.msg_len = self.r.val().msg_len;
        self.cf.next.pkt_offset = self.r.val().pkt_offset;
        self.cf.next.pull_grant = self.zero_16.val();
        self.cf.next.grant_prio = self.zero_8.val();
        // The event waits in the output register (idle: the record was taken only when
        // `ctrl` was empty) for the register's answer.
        if self.pull.ingress.valid.val() {
            self.ctrl_f.d.next = self.cf.val();
        }
        self.s1_v.d.next = self.pull.ingress.valid.val();
        self.s2_v.d.next = self.s1_v.q.val();
        if self.take.val() & self.is_data.val() & self.r.val().fail {
            self.cnt_fail.d.next = self.cnt_fail.q.val() + self.one_32.val();
        }
        if self.s2_v.q.val() {
            self.ctrl_v.d.next = true;
            self.ctrl_f.d.next.pull_grant = self.pull.ingress_resp.new.val();
            self.cnt_ctrl.d.next = self.cnt_ctrl.q.val() + self.one_32.val();
        } else if self.ctrl_v.q.val() & self.ctrl.ready.val() {
            self.ctrl_v.d.next = false;
        }

        // Sender: ACK → DeliveredEvent; NACK / PULL → CreditTxEvent.
        if self.take.val() & !self.is_data.val() {
            if (self.r.val().flags & self.flag_ack.val()) != self.zero_8.val() {
                self.dlv_v.d.next = true;
                self.cnt_dlv.d.next = self.cnt_dlv.q.val() + self.one_32.val();
            }
            if (self.r.val().flags & (self.flag_nack.val() | self.flag_pull.val()))
                != self.zero_8.val()
            {
                self.crd_v.d.next = true;
                self.cnt_crd.d.next = self.cnt_crd.q.val() + self.one_32.val();
            }
            self.dlv_id.d.next = self.r.val().tx_msg_id;
            self.dlv_bits.d.next = self.obit.val();
            self.crd_id.d.next = self.r.val().tx_msg_id;
            self.crd_rtx.d.next = (self.r.val().flags & self.flag_nack.val()) != self.zero_8.val();
            self.crd_bits.d.next = self.obit.val();
            self.crd_set.d.next = (self.r.val().flags & self.flag_pull.val()) != self.zero_8.val();
            self.crd_credit.d.next = self.r.val().pull_grant;
        }
        if self.dlv_v.q.val() & self.delivered.ready.val() {
            self.dlv_v.d.next = false;
        }
        if self.crd_v.q.val() & self.credit.ready.val() {
            self.crd_v.d.next = false;
        }

        // Outputs.
        self.ctrl.valid.next = self.ctrl_v.q.val();
        self.ctrl.flags.next = self.ctrl_f.q.val().flags;
        self.out_id16.next = self.ctrl_f.q.val().rx_id;
        self.ctrl.rx_id.next = self.out_id16.val().get_bits::<A>(0);
        self.ctrl.dst_ip.next = self.ctrl_f.q.val().dst_ip;
        self.ctrl.dst_port.next = self.ctrl_f.q.val().dst_port;
        self.ctrl.src_port.next = self.ctrl_f.q.val().src_port;
        self.ctrl.tx_msg_id.next = self.ctrl_f.q.val().tx_msg_id;
        self.ctrl.msg_len.next = self.ctrl_f.q.val().msg_len;
        self.ctrl.pkt_offset.next = self.ctrl_f.q.val().pkt_offset;
        self.ctrl.pull_grant.next = self.ctrl_f.q.val().pull_grant;
        self.ctrl.grant_prio.next = self.ctrl_f.q.val().grant_prio;

        self.delivered.valid.next = self.dlv_v.q.val();
        self.delivered.tx_msg_id.next = self.dlv_id.q.val();
        self.delivered.ack_bitmap.next = self.dlv_bits.q.val();
        self.delivered.below_flag.next = false;
        self.delivered.below.next = self.zero_8.val();

        self.credit.valid.next = self.crd_v.q.val();
        self.credit.tx_msg_id.next = self.crd_id.q.val();
        self.credit.rtx_flag.next = self.crd_rtx.q.val();
        self.credit.rtx_bitmap.next = self.crd_bits.q.val();
        self.credit.credit_flag.next = self.crd_set.q.val();
        self.credit.new_credit.next = self.crd_credit.q.val();
        self.credit.allow_tx.next = true;
        self.credit.rank_flag.next = false;
        self.credit.new_rank.next = self.zero_8.val();

        self.stat.records.next = self.cnt_rec.q.val();
        self.stat.failed.next = self.cnt_fail.q.val();
        self.stat.ctrl_events.next = self.cnt_ctrl.q.val();
        self.stat.delivered_events.next = self.cnt_dlv.q.val();
        self.stat.credit_events.next = self.cnt_crd.q.val();

        if self.reset.val() {
            self.s1_v.d.next = false;
            self.s2_v.d.next = false;
            self.ctrl_v.d.next = false;
            self.dlv_v.d.next = false;
            self.crd_v.d.next = false;
            self.cnt_rec.d.next = self.zero_32.val();
            self.cnt_fail.d.next = self.zero_32.val();
            self.cnt_ctrl.d.next = self.zero_32.val();
            self.cnt_dlv.d.next = self.zero_32.val();
            self.cnt_crd.d.next = self.zero_32.val();
        }
    }
}
