//! The Homa and Homa-Tr programs (thesis Algorithm 6, §3.3.4; SPEC §6): SRPT grants from
//! the priority-scheduler extern, overcommitment [`OVERCOMMIT`], grant priorities carried
//! in IPv4 `tos`; Homa-Tr adds NDP's trimming recovery (a trimmed DATA packet is NACKed).
//!
//! Externs: two register arrays per receive message (`received`: intact packets received;
//! `granted`: the grant offset, initially `rtt_pkts`), the priority scheduler (entries:
//! messages not fully granted, `prio` = remaining packets, `a` = the grant they could have
//! now, `b` = their grant), and a small table per receive message of what a GRANT needs
//! (sender address, context, `tx_msg_id`, length, ackNo).
//!
//! # Receiver (a DATA record whose `GetRxMsgInfo` did not fail)
//! * `total_pkts <= rtt_pkts` (never granted), or a duplicate: ACK(`pkt_offset = ackNo`).
//! * Otherwise, after counting the packet: the message is removed from the scheduler when
//!   it is complete or fully granted, else upserted with `prio = total − received`,
//!   `a = min(received + rtt_pkts, total)`, `b = granted`. Then the scheduler returns the
//!   best-ranked message with `a > b` (its grant would grow) and its rank among all the
//!   messages it holds; if `rank < OVERCOMMIT` it is granted: GRANT(`pkt_offset = its
//!   ackNo`, `grant_offset = a`, `grant_prio = rank + 1`), `granted = a`, and its entry is
//!   updated (`b = a`). Otherwise the packet is ACKed (`pkt_offset = ackNo`). When the
//!   packet completed its message and the GRANT went to another message, the completed
//!   message is ACKed as well, so its sender learns it is done.
//! * A trimmed (CHOP) packet: Homa-Tr NACKs its `pkt_offset`; Homa ignores it (the
//!   sender's timeout recovers it). It counts as no packet received; when it is the
//!   first of its message, it initialises the message's registers.
//! * A message freed by the reassembly module (delivered or timed out) is removed from the
//!   scheduler (`freed`): queued, and its REMOVE loaded into the command registers while no
//!   record is in progress, before the next record is taken.
//!
//! # Sender (control records)
//! ACK(n) → `DeliveredEvent` for offsets below `n`. GRANT → the same for its `pkt_offset`,
//! and `CreditTxEvent` with `credit = grant_offset` and `rank = grant_prio` (the later
//! packets' `tos`). NACK (Homa-Tr) → `CreditTxEvent` retransmitting that offset.
//!
//! # Timing
//! One record at a time. A record taken in cycle `t`:
//! * a control record: its events are out in `t+1`;
//! * a trimmed DATA packet (Homa-Tr): its NACK is out in `t+1`;
//! * an intact DATA packet of a message that is never scheduled (`total <= rtt_pkts`), or
//!   a duplicate: its ACK is out in `t+2` (ST_REG; it needs nothing from the registers,
//!   whose operations were issued in `t`); the next record can be taken in `t+4`;
//! * otherwise the registers answer in `t+2` ([`crate::statereg::RESP_LATENCY`]; ST_RESP
//!   computes the scheduler entry into the command registers), the command is on
//!   `sched.cmd` in `t+3` (ST_SCHED), the query in `t+4`, its answer in `t+6` (ST_LATCH,
//!   which also reads the GRANT fields), and the GRANT or ACK is out in `t+8`; the
//!   granted message's update leaves the command registers in `t+8` too, and the next
//!   record can be taken in `t+10`.
//!
//! The scheduler's `cmd` port is driven from registers only (`cmd_*`), so no path runs
//! from the program's logic into the scheduler's command logic. Line rate (a 65-byte
//! packet every 9 cycles) needs at most 9 cycles per record on average: every 65-byte
//! packet that is not the last of a scheduled message takes 4, and a scheduled message's
//! other packets are 1 KiB (130 cycles on the wire); the ingress stage queues four
//! records.
use crate::ingress::{PktInfo, PktInfoSink, FLAG_ACK, FLAG_CHOP, FLAG_DATA, FLAG_NACK, FLAG_PULL};
use crate::ndp::CtrlFields;
use crate::packetization::MAX_PKTS;
use crate::prisched::{PrioSched, OP_REMOVE, OP_UPSERT, PRED_A_GT_B};
use crate::program::{
    CreditOut, CtrlEventOut, DeliveredOut, FreedIn, ProgramCfg, ProgramStats, PRIO_LEVELS,
};
use crate::statereg::{StateReg, OP_IF_ELSE_RAW, OP_WRITE};
use rust_hdl::prelude::*;

/// Messages granted at once (SPEC §6).
pub const OVERCOMMIT: u64 = 3;

/// What a GRANT for a message needs, kept per receive message.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct GrantInfo {
    pub src_ip: Bits<32>,
    pub src_port: Bits<16>,
    pub dst_port: Bits<16>,
    pub tx_msg_id: Bits<16>,
    pub msg_len: Bits<16>,
    pub ack_no: Bits<8>,
}

const ST_IDLE: u64 = 0;
const ST_REG: u64 = 1;
const ST_RESP: u64 = 2;
const ST_SCHED: u64 = 3;
const ST_QUERY: u64 = 4;
const ST_WAIT: u64 = 5;
const ST_LATCH: u64 = 6;
const ST_DECIDE: u64 = 7;
const ST_OUT: u64 = 8;

/// The Homa program (`trim = false`) or Homa-Tr (`trim = true`) for `N = 2^A` receive
/// messages.
#[derive(LogicBlock)]
pub struct HomaProgram<const A: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub cfg: ProgramCfg,
    pub info: PktInfoSink,
    pub freed: FreedIn,
    pub delivered: DeliveredOut,
    pub credit: CreditOut,
    pub ctrl: CtrlEventOut<A>,
    pub stat: ProgramStats,

    received: StateReg<A, N, 8>,
    granted: StateReg<A, N, 8>,
    sched: PrioSched<A, N>,
    ginfo: RAM<GrantInfo, A>,
    /// Freed receive messages waiting for their REMOVE (one per message; drained while idle,
    /// before the next record).
    freed_q: crate::fifo::Fifo<Bits<16>, 4, 5>,

    st: DFF<Bits<4>>,
    cur: DFF<PktInfo>,
    /// `total` of the record in `cur`, from the cycle after it was taken.
    tot: DFF<Bits<8>>,
    /// The scheduler's command, from registers (loaded by ST_RESP, ST_DECIDE or a freed
    /// message's REMOVE; held until `sched.cmd.ready`).
    cmd_v: DFF<bool>,
    cmd_op: DFF<Bits<2>>,
    cmd_id: DFF<Bits<16>>,
    cmd_prio: DFF<Bits<16>>,
    cmd_a: DFF<Bits<16>>,
    cmd_b: DFF<Bits<16>>,
    g_found: DFF<bool>,
    g_id: DFF<Bits<16>>,
    g_prio: DFF<Bits<16>>,
    g_want: DFF<Bits<16>>,
    g_rank: DFF<Bits<8>>,
    ctrl_v: DFF<bool>,
    ctrl_f: DFF<CtrlFields>,
    ctrl2_v: DFF<bool>,
    ctrl2_f: DFF<CtrlFields>,
    dlv_v: DFF<bool>,
    dlv_id: DFF<Bits<16>>,
    dlv_below: DFF<Bits<8>>,
    crd_v: DFF<bool>,
    crd_id: DFF<Bits<16>>,
    crd_rtx: DFF<bool>,
    crd_bits: DFF<Bits<MAX_PKTS>>,
    crd_set: DFF<bool>,
    crd_credit: DFF<Bits<16>>,
    crd_rank: DFF<Bits<8>>,
    cnt_rec: DFF<Bits<32>>,
    cnt_fail: DFF<Bits<32>>,
    cnt_ctrl: DFF<Bits<32>>,
    cnt_dlv: DFF<Bits<32>>,
    cnt_crd: DFF<Bits<32>>,

    r: Signal<Local, PktInfo>,
    c: Signal<Local, PktInfo>,
    gi: Signal<Local, GrantInfo>,
    gr: Signal<Local, GrantInfo>,
    rcv: Signal<Local, Bits<8>>,
    grt: Signal<Local, Bits<8>>,
    take: Signal<Local, bool>,
    is_data: Signal<Local, bool>,
    intact: Signal<Local, bool>,
    inc: Signal<Local, Bits<8>>,
    id16: Signal<Local, Bits<16>>,
    cur_id16: Signal<Local, Bits<16>>,
    g_id16: Signal<Local, Bits<16>>,
    out_id16: Signal<Local, Bits<16>>,
    fr_id16: Signal<Local, Bits<16>>,
    len_up: Signal<Local, Bits<16>>,
    total16: Signal<Local, Bits<16>>,
    total: Signal<Local, Bits<8>>,
    want: Signal<Local, Bits<8>>,
    reach: Signal<Local, Bits<8>>,
    scheduled: Signal<Local, bool>,
    done: Signal<Local, bool>,
    ack_cur: Signal<Local, CtrlFields>,
    obit: Signal<Local, Bits<MAX_PKTS>>,
    free_cmd: Signal<Local, bool>,
    busy_out: Signal<Local, bool>,
    grant_it: Signal<Local, bool>,
    ack_no8: Signal<Local, Bits<8>>,
    ack_no9: Signal<Local, Bits<9>>,
    prio8: Signal<Local, Bits<8>>,

    st_idle: Constant<Bits<4>>,
    st_reg: Constant<Bits<4>>,
    st_resp: Constant<Bits<4>>,
    st_sched: Constant<Bits<4>>,
    st_query: Constant<Bits<4>>,
    st_wait: Constant<Bits<4>>,
    st_latch: Constant<Bits<4>>,
    st_decide: Constant<Bits<4>>,
    st_out: Constant<Bits<4>>,
    op_ifelse: Constant<Bits<3>>,
    op_write: Constant<Bits<3>>,
    op_upsert: Constant<Bits<2>>,
    op_remove: Constant<Bits<2>>,
    pred_grow: Constant<Bits<2>>,
    overcommit: Constant<Bits<8>>,
    one_8: Constant<Bits<8>>,
    zero_8: Constant<Bits<8>>,
    zero_16: Constant<Bits<16>>,
    one_32: Constant<Bits<32>>,
    prio_max: Constant<Bits<8>>,
    zero_32: Constant<Bits<32>>,
    c1023: Constant<Bits<16>>,
    sh10: Constant<Bits<5>>,
    one_bits: Constant<Bits<MAX_PKTS>>,
    zero_bits: Constant<Bits<MAX_PKTS>>,
    flag_data: Constant<Bits<8>>,
    flag_ack: Constant<Bits<8>>,
    flag_nack: Constant<Bits<8>>,
    flag_grant: Constant<Bits<8>>,
    flag_chop: Constant<Bits<8>>,
    trim: Constant<bool>,
}

impl<const A: usize, const N: usize> HomaProgram<A, N> {
    /// Homa (`trim = false`) or Homa-Tr (`trim = true`).
    pub fn new(trim: bool) -> Self {
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
            received: StateReg::new(),
            granted: StateReg::new(),
            sched: PrioSched::new(),
            ginfo: Default::default(),
            freed_q: crate::fifo::Fifo::new(),
            st: Default::default(),
            cur: Default::default(),
            tot: Default::default(),
            cmd_v: Default::default(),
            cmd_op: Default::default(),
            cmd_id: Default::default(),
            cmd_prio: Default::default(),
            cmd_a: Default::default(),
            cmd_b: Default::default(),
            g_found: Default::default(),
            g_id: Default::default(),
            g_prio: Default::default(),
            g_want: Default::default(),
            g_rank: Default::default(),
            ctrl_v: Default::default(),
            ctrl_f: Default::default(),
            ctrl2_v: Default::default(),
            ctrl2_f: Default::default(),
            dlv_v: Default::default(),
            dlv_id: Default::default(),
            dlv_below: Default::default(),
            crd_v: Default::default(),
            crd_id: Default::default(),
            crd_rtx: Default::default(),
            crd_bits: Default::default(),
            crd_set: Default::default(),
            crd_credit: Default::default(),
            crd_rank: Default::default(),
            cnt_rec: Default::default(),
            cnt_fail: Default::default(),
            cnt_ctrl: Default::default(),
            cnt_dlv: Default::default(),
            cnt_crd: Default::default(),
            r: Default::default(),
            c: Default::default(),
            gi: Default::default(),
            gr: Default::default(),
            rcv: Default::default(),
            grt: Default::default(),
            take: Default::default(),
            is_data: Default::default(),
            intact: Default::default(),
            inc: Default::default(),
            id16: Default::default(),
            cur_id16: Default::default(),
            g_id16: Default::default(),
            out_id16: Default::default(),
            fr_id16: Default::default(),
            len_up: Default::default(),
            total16: Default::default(),
            total: Default::default(),
            want: Default::default(),
            reach: Default::default(),
            scheduled: Default::default(),
            done: Default::default(),
            ack_cur: Default::default(),
            obit: Default::default(),
            free_cmd: Default::default(),
            busy_out: Default::default(),
            grant_it: Default::default(),
            ack_no8: Default::default(),
            ack_no9: Default::default(),
            prio8: Default::default(),
            st_idle: Constant::new(ST_IDLE.into()),
            st_reg: Constant::new(ST_REG.into()),
            st_resp: Constant::new(ST_RESP.into()),
            st_sched: Constant::new(ST_SCHED.into()),
            st_query: Constant::new(ST_QUERY.into()),
            st_wait: Constant::new(ST_WAIT.into()),
            st_latch: Constant::new(ST_LATCH.into()),
            st_decide: Constant::new(ST_DECIDE.into()),
            st_out: Constant::new(ST_OUT.into()),
            op_ifelse: Constant::new(OP_IF_ELSE_RAW.into()),
            op_write: Constant::new(OP_WRITE.into()),
            op_upsert: Constant::new(OP_UPSERT.into()),
            op_remove: Constant::new(OP_REMOVE.into()),
            pred_grow: Constant::new(PRED_A_GT_B.into()),
            overcommit: Constant::new(OVERCOMMIT.into()),
            one_8: Constant::new(1.into()),
            zero_8: Constant::new(0.into()),
            zero_16: Constant::new(0.into()),
            one_32: Constant::new(1.into()),
            prio_max: Constant::new((PRIO_LEVELS - 1).into()),
            zero_32: Constant::new(0.into()),
            c1023: Constant::new(1023.into()),
            sh10: Constant::new(10.into()),
            one_bits: Constant::new(1.into()),
            zero_bits: Constant::new(0.into()),
            flag_data: Constant::new(FLAG_DATA.into()),
            flag_ack: Constant::new(FLAG_ACK.into()),
            flag_nack: Constant::new(FLAG_NACK.into()),
            flag_grant: Constant::new(FLAG_PULL.into()),
            flag_chop: Constant::new(FLAG_CHOP.into()),
            trim: Constant::new(trim),
        }
    }
}

/// Homa / Homa-Tr for 16 receive messages.
pub type HomaProgram16 = HomaProgram<4, 16>;

impl<const A: usize, const N: usize> Logic for HomaProgram<A, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, st, cur, tot, cmd_v, cmd_op, cmd_id, cmd_prio, cmd_a, cmd_b, g_found,
            g_id, g_prio, g_want, g_rank, ctrl_v, ctrl_f, ctrl2_v, ctrl2_f, dlv_v, dlv_id,
            dlv_below, crd_v, crd_id, crd_rtx, crd_bits, crd_set, crd_credit, crd_rank, cnt_rec,
            cnt_fail, cnt_ctrl, cnt_dlv, cnt_crd
        );
        self.received.clock.next = self.clock.val();
        self.received.reset.next = self.reset.val();
        self.granted.clock.next = self.clock.val();
        self.granted.reset.next = self.reset.val();
        self.sched.clock.next = self.clock.val();
        self.sched.reset.next = self.reset.val();
        self.ginfo.read_clock.next = self.clock.val();
        self.ginfo.write_clock.next = self.clock.val();
        self.freed_q.clock.next = self.clock.val();
        self.freed_q.reset.next = self.reset.val();

        // Defaults.
        self.received.ingress.valid.next = false;
        self.received.ingress.op.next = self.op_ifelse.val();
        self.received.ingress.pred.next = false;
        self.received.ingress.a.next = self.zero_8.val();
        self.received.ingress.b.next = self.zero_8.val();
        self.received.egress.valid.next = false;
        self.received.egress.op.next = self.op_ifelse.val();
        self.received.egress.pred.next = false;
        self.received.egress.a.next = self.zero_8.val();
        self.received.egress.b.next = self.zero_8.val();
        self.granted.ingress.valid.next = false;
        self.granted.ingress.op.next = self.op_ifelse.val();
        self.granted.ingress.pred.next = false;
        self.granted.ingress.a.next = self.cfg.rtt_pkts.val();
        self.granted.ingress.b.next = self.zero_8.val();
        self.granted.egress.valid.next = false;
        self.granted.egress.op.next = self.op_write.val();
        self.granted.egress.pred.next = false;
        self.granted.egress.b.next = self.zero_8.val();
        // The scheduler's command comes from registers only.
        self.sched.cmd.valid.next = self.cmd_v.q.val();
        self.sched.cmd.op.next = self.cmd_op.q.val();
        self.sched.cmd.id.next = self.cmd_id.q.val();
        self.sched.cmd.prio.next = self.cmd_prio.q.val();
        self.sched.cmd.a.next = self.cmd_a.q.val();
        self.sched.cmd.b.next = self.cmd_b.q.val();
        if self.cmd_v.q.val() & self.sched.cmd.ready.val() {
            self.cmd_v.d.next = false;
        }
        self.sched.query.valid.next = false;
        self.sched.query.pred.next = self.pred_grow.val();
        self.sched.query.q.next = self.zero_16.val();
        self.ginfo.write_enable.next = false;
        self.freed_q.pop.next = false;

        // Messages the reassembly module freed leave the scheduler.
        self.freed_q.push.next = self.freed.valid.val();
        self.freed_q.push_data.next = self.freed.id.val();

        // The record being handled and its derived values: `total` from `cur` (ST_REG's
        // decision; registered as `tot` for ST_RESP), the scheduler entry from the
        // registers' answers (ST_RESP).
        self.c.next = self.cur.q.val();
        self.cur_id16.next = self.c.val().rx_msg_id;
        self.len_up.next = self.c.val().msg_len + self.c1023.val();
        self.total16.next = self.len_up.val() >> self.sh10.val();
        self.total.next = self.total16.val().get_bits::<8>(0);
        self.tot.d.next = self.total.val();
        self.scheduled.next =
            (self.total.val() > self.cfg.rtt_pkts.val()) & self.c.val().is_new_pkt;
        self.rcv.next = self.received.ingress_resp.new.val();
        self.grt.next = self.granted.ingress_resp.new.val();
        self.reach.next = self.rcv.val() + self.cfg.rtt_pkts.val();
        self.want.next = self.tot.q.val();
        if self.reach.val() < self.tot.q.val() {
            self.want.next = self.reach.val();
        }
        self.prio8.next = self.tot.q.val() - self.rcv.val();
        self.done.next =
            (self.rcv.val() >= self.tot.q.val()) | (self.grt.val() >= self.tot.q.val());
        self.ack_no9.next = self.c.val().ack_no;
        self.ack_no8.next = self.ack_no9.val().get_bits::<8>(0);
        self.ack_cur.next.flags = self.flag_ack.val();
        self.ack_cur.next.rx_id = self.c.val().rx_msg_id;
        self.ack_cur.next.dst_ip = self.c.val().src_ip;
        self.ack_cur.next.dst_port = self.c.val().src_port;
        self.ack_cur.next.src_port = self.c.val().dst_port;
        self.ack_cur.next.tx_msg_id = self.c.val().tx_msg_id;
        self.ack_cur.next.msg_len = self.c.val().msg_len;
        self.ack_cur.next.pkt_offset = self.ack_no8.val();
        self.ack_cur.next.pull_grant = self.zero_16.val();
        self.ack_cur.next.grant_prio = self.zero_8.val();

        // Take a record.
        self.r.next = self.info.info.val();
        self.busy_out.next =
            self.ctrl_v.q.val() | self.ctrl2_v.q.val() | self.dlv_v.q.val() | self.crd_v.q.val();
        self.info.ready.next = (self.st.q.val() == self.st_idle.val())
            & !self.busy_out.val()
            & !self.cmd_v.q.val()
            & !self.freed_q.nonempty.val()
            & !self.reset.val();
        self.take.next = self.info.valid.val() & self.info.ready.val();
        self.is_data.next = (self.r.val().flags & self.flag_data.val()) != self.zero_8.val();
        self.intact.next = (self.r.val().flags & self.flag_chop.val()) == self.zero_8.val();
        self.inc.next = self.zero_8.val();
        if self.intact.val() & self.r.val().is_new_pkt {
            self.inc.next = self.one_8.val();
        }
        self.obit.next = self.one_bits.val() << self.r.val().pkt_offset;
        self.id16.next = self.r.val().rx_msg_id;
        self.received.ingress.idx.next = self.id16.val().get_bits::<A>(0);
        self.granted.ingress.idx.next = self.id16.val().get_bits::<A>(0);
        self.received.egress.idx.next = self.id16.val().get_bits::<A>(0);

        // A freed message's REMOVE, while idle: into the command registers.
        self.fr_id16.next = self.freed_q.head.val();
        self.free_cmd.next = (self.st.q.val() == self.st_idle.val())
            & self.freed_q.nonempty.val()
            & !self.cmd_v.q.val();
        if self.free_cmd.val() {
            self.cmd_v.d.next = true;
            self.cmd_op.d.next = self.op_remove.val();
            self.cmd_id.d.next = self.fr_id16.val();
            self.freed_q.pop.next = true;
        }

        if self.take.val() {
            self.cnt_rec.d.next = self.cnt_rec.q.val() + self.one_32.val();
            self.cur.d.next = self.r.val();
            if self.is_data.val() {
                if self.r.val().fail {
                    self.cnt_fail.d.next = self.cnt_fail.q.val() + self.one_32.val();
                } else {
                    // Count the packet (a trimmed one counts 0); read the grant. Both are
                    // initialised by the message's first packet, trimmed or not.
                    self.received.ingress.valid.next = true;
                    self.received.ingress.pred.next = self.r.val().is_new_msg;
                    self.received.ingress.a.next = self.inc.val();
                    self.received.ingress.b.next = self.inc.val();
                    self.granted.ingress.valid.next = true;
                    self.granted.ingress.pred.next = self.r.val().is_new_msg;
                    if self.intact.val() {
                        self.st.d.next = self.st_reg.val();
                    } else {
                        self.st.d.next = self.st_out.val();
                    }
                }
                if !self.r.val().fail & !self.intact.val() & self.trim.val() {
                    // Homa-Tr: NACK the trimmed packet.
                    self.ctrl_v.d.next = true;
                    self.ctrl_f.d.next.flags = self.flag_nack.val();
                    self.ctrl_f.d.next.rx_id = self.r.val().rx_msg_id;
                    self.ctrl_f.d.next.dst_ip = self.r.val().src_ip;
                    self.ctrl_f.d.next.dst_port = self.r.val().src_port;
                    self.ctrl_f.d.next.src_port = self.r.val().dst_port;
                    self.ctrl_f.d.next.tx_msg_id = self.r.val().tx_msg_id;
                    self.ctrl_f.d.next.msg_len = self.r.val().msg_len;
                    self.ctrl_f.d.next.pkt_offset = self.r.val().pkt_offset;
                    self.ctrl_f.d.next.pull_grant = self.zero_16.val();
                    self.ctrl_f.d.next.grant_prio = self.zero_8.val();
                    self.cnt_ctrl.d.next = self.cnt_ctrl.q.val() + self.one_32.val();
                }
            } else {
                // Sender: ACK / GRANT → delivered below pkt_offset; GRANT → credit and
                // rank; NACK → retransmit.
                if (self.r.val().flags & (self.flag_ack.val() | self.flag_grant.val()))
                    != self.zero_8.val()
                {
                    self.dlv_v.d.next = true;
                    self.cnt_dlv.d.next = self.cnt_dlv.q.val() + self.one_32.val();
                }
                if (self.r.val().flags & (self.flag_nack.val() | self.flag_grant.val()))
                    != self.zero_8.val()
                {
                    self.crd_v.d.next = true;
                    self.cnt_crd.d.next = self.cnt_crd.q.val() + self.one_32.val();
                }
                self.dlv_id.d.next = self.r.val().tx_msg_id;
                self.dlv_below.d.next = self.r.val().pkt_offset;
                self.crd_id.d.next = self.r.val().tx_msg_id;
                self.crd_rtx.d.next =
                    (self.r.val().flags & self.flag_nack.val()) != self.zero_8.val();
                self.crd_bits.d.next = self.obit.val();
                self.crd_set.d.next =
                    (self.r.val().flags & self.flag_grant.val()) != self.zero_8.val();
                self.crd_credit.d.next = self.r.val().pull_grant;
                // The priority from the network, clamped to the levels there are.
                self.crd_rank.d.next = self.r.val().grant_prio;
                if self.r.val().grant_prio > self.prio_max.val() {
                    self.crd_rank.d.next = self.prio_max.val();
                }
            }
        }

        // ST_REG (the registers' operations are on their way): keep what a GRANT needs;
        // a message that is never scheduled, or a duplicate, is ACKed now.
        self.gi.next.src_ip = self.c.val().src_ip;
        self.gi.next.src_port = self.c.val().src_port;
        self.gi.next.dst_port = self.c.val().dst_port;
        self.gi.next.tx_msg_id = self.c.val().tx_msg_id;
        self.gi.next.msg_len = self.c.val().msg_len;
        self.gi.next.ack_no = self.ack_no8.val();
        self.ginfo.write_address.next = self.cur_id16.val().get_bits::<A>(0);
        self.ginfo.write_data.next = self.gi.val();
        if self.st.q.val() == self.st_reg.val() {
            self.ginfo.write_enable.next = true;
            if self.scheduled.val() {
                self.st.d.next = self.st_resp.val();
            } else {
                self.ctrl_v.d.next = true;
                self.ctrl_f.d.next = self.ack_cur.val();
                self.cnt_ctrl.d.next = self.cnt_ctrl.q.val() + self.one_32.val();
                self.st.d.next = self.st_out.val();
            }
        }

        // ST_RESP: the registers answered; register the scheduler's command (the message
        // leaves it when complete or fully granted, else its entry is upserted).
        if self.st.q.val() == self.st_resp.val() {
            self.cmd_v.d.next = true;
            self.cmd_id.d.next = self.cur_id16.val();
            if self.done.val() {
                self.cmd_op.d.next = self.op_remove.val();
            } else {
                self.cmd_op.d.next = self.op_upsert.val();
            }
            self.cmd_prio.d.next = bit_cast::<16, 8>(self.prio8.val());
            self.cmd_a.d.next = bit_cast::<16, 8>(self.want.val());
            self.cmd_b.d.next = bit_cast::<16, 8>(self.grt.val());
            self.st.d.next = self.st_sched.val();
        }

        // ST_SCHED: the command is on `sched.cmd` until taken.
        if (self.st.q.val() == self.st_sched.val()) & self.sched.cmd.ready.val() {
            self.st.d.next = self.st_query.val();
        }

        // ST_QUERY / ST_WAIT: the best grantable message.
        if self.st.q.val() == self.st_query.val() {
            self.sched.query.valid.next = true;
            self.st.d.next = self.st_wait.val();
        }
        if self.st.q.val() == self.st_wait.val() {
            self.st.d.next = self.st_latch.val();
        }

        // ST_LATCH: the answer; read its GRANT fields.
        self.g_id16.next = self.g_id.q.val();
        self.ginfo.read_address.next = self.g_id16.val().get_bits::<A>(0);
        if self.st.q.val() == self.st_latch.val() {
            self.g_found.d.next = self.sched.resp.found.val();
            self.g_id.d.next = self.sched.resp.id.val();
            self.g_prio.d.next = self.sched.resp.prio.val();
            self.g_want.d.next = self.sched.resp.a.val();
            self.g_rank.d.next = self.sched.resp.rank.val();
            self.g_id16.next = self.sched.resp.id.val();
            self.ginfo.read_address.next = self.g_id16.val().get_bits::<A>(0);
            self.st.d.next = self.st_decide.val();
        }

        // ST_DECIDE: GRANT the chosen message, or ACK this one.
        self.grant_it.next = self.g_found.q.val() & (self.g_rank.q.val() < self.overcommit.val());
        self.granted.egress.idx.next = self.g_id16.val().get_bits::<A>(0);
        self.granted.egress.a.next = self.g_want.q.val().get_bits::<8>(0);
        self.gr.next = self.ginfo.read_data.val();
        if self.st.q.val() == self.st_decide.val() {
            self.cnt_ctrl.d.next = self.cnt_ctrl.q.val() + self.one_32.val();
            self.ctrl_v.d.next = true;
            if self.grant_it.val() {
                self.ctrl_f.d.next.flags = self.flag_grant.val();
                self.ctrl_f.d.next.rx_id = self.g_id.q.val();
                self.ctrl_f.d.next.dst_ip = self.gr.val().src_ip;
                self.ctrl_f.d.next.dst_port = self.gr.val().src_port;
                self.ctrl_f.d.next.src_port = self.gr.val().dst_port;
                self.ctrl_f.d.next.tx_msg_id = self.gr.val().tx_msg_id;
                self.ctrl_f.d.next.msg_len = self.gr.val().msg_len;
                self.ctrl_f.d.next.pkt_offset = self.gr.val().ack_no;
                self.ctrl_f.d.next.pull_grant = self.g_want.q.val();
                self.ctrl_f.d.next.grant_prio = self.g_rank.q.val() + self.one_8.val();
                self.granted.egress.valid.next = true;
                if (self.g_id.q.val() != self.cur_id16.val()) & self.c.val().is_last_pkt {
                    self.ctrl2_v.d.next = true;
                    self.ctrl2_f.d.next = self.ack_cur.val();
                    self.cnt_ctrl.d.next =
                        self.cnt_ctrl.q.val() + self.one_32.val() + self.one_32.val();
                }
                // The granted message's entry is no longer grantable until its next
                // packet: its update goes out from the command registers in ST_OUT.
                self.cmd_v.d.next = true;
                self.cmd_op.d.next = self.op_upsert.val();
                self.cmd_id.d.next = self.g_id.q.val();
                self.cmd_prio.d.next = self.g_prio.q.val();
                self.cmd_a.d.next = self.g_want.q.val();
                self.cmd_b.d.next = self.g_want.q.val();
            } else {
                self.ctrl_f.d.next = self.ack_cur.val();
            }
            self.st.d.next = self.st_out.val();
        }

        // ST_OUT: wait for the events and the scheduler's command to leave.
        if (self.st.q.val() == self.st_out.val()) & !self.busy_out.val() & !self.cmd_v.q.val() {
            self.st.d.next = self.st_idle.val();
        }

        // Event outputs.
        if self.ctrl_v.q.val() & self.ctrl.ready.val() {
            self.ctrl_v.d.next = self.ctrl2_v.q.val();
            self.ctrl_f.d.next = self.ctrl2_f.q.val();
            self.ctrl2_v.d.next = false;
        }
        if self.dlv_v.q.val() & self.delivered.ready.val() {
            self.dlv_v.d.next = false;
        }
        if self.crd_v.q.val() & self.credit.ready.val() {
            self.crd_v.d.next = false;
        }
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
        self.delivered.ack_bitmap.next = self.zero_bits.val();
        self.delivered.below_flag.next = true;
        self.delivered.below.next = self.dlv_below.q.val();

        self.credit.valid.next = self.crd_v.q.val();
        self.credit.tx_msg_id.next = self.crd_id.q.val();
        self.credit.rtx_flag.next = self.crd_rtx.q.val();
        self.credit.rtx_bitmap.next = self.crd_bits.q.val();
        self.credit.credit_flag.next = self.crd_set.q.val();
        self.credit.new_credit.next = self.crd_credit.q.val();
        self.credit.allow_tx.next = true;
        self.credit.rank_flag.next = self.crd_set.q.val();
        self.credit.new_rank.next = self.crd_rank.q.val();

        self.stat.records.next = self.cnt_rec.q.val();
        self.stat.failed.next = self.cnt_fail.q.val();
        self.stat.ctrl_events.next = self.cnt_ctrl.q.val();
        self.stat.delivered_events.next = self.cnt_dlv.q.val();
        self.stat.credit_events.next = self.cnt_crd.q.val();

        if self.reset.val() {
            self.st.d.next = self.st_idle.val();
            self.cmd_v.d.next = false;
            self.ctrl_v.d.next = false;
            self.ctrl2_v.d.next = false;
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
