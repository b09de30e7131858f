//! The Bolt program (thesis Algorithm 8 and §4.4.2; SPEC §2, §6): Bolt's host logic as a
//! nanoTransport program, on the NDP transport layout (IP protocol 155) with Bolt's 9
//! bytes in the padding (frame bytes 50-58; [`crate::boltstamp`] writes them on TX).
//!
//! Each sent message has a congestion window `cwnd` (packets), held as its credit: the
//! packetization module may send offsets below `credit = acked + cwnd`, where `acked` is
//! the receiver's cumulative `ackNo`. A message starts with `cwnd = rtt_pkts` (its first
//! window, sent at once, marked FIRST by the stamp).
//!
//! Receiver (a DATA record whose `GetRxMsgInfo` did not fail):
//! * intact packet: ACK with its `pkt_offset` and `pull_offset = ackNo` (the smallest
//!   missing offset); `grant_prio = 1` (IPv4 `tos` bit 2, DSCP bit 0, which the stamp turns into the
//!   Bolt INC flag) when the packet still carries INC: no switch on its path ran out of
//!   tokens (Algorithm 7), so the sender may grow its window (Algorithm 8 line 9).
//! * trimmed packet (a trimming switch on the path): NACK with its `pkt_offset`.
//!
//! Sender, per message (state in a RAM indexed by the low `A` bits of `tx_msg_id`, tagged
//! with the whole `tx_msg_id`: a new message's first record starts from the initial state):
//! * ACK: `DeliveredEvent` (the offset's bit and every offset below this ACK's `ackNo`);
//!   `cwnd += 1` when the ACK carries INC (line 9); `cwnd += 1` once per window when the
//!   ACK's offset reaches `seq_no_at_last_ai`, which then becomes `acked + cwnd` (the next
//!   offset the window allows: lines 11-13); then `CreditTxEvent` with
//!   `credit = acked + cwnd`. `cwnd` saturates at 255.
//! * NACK: `CreditTxEvent` retransmitting that offset.
//! * SRC (transport flags 0, Bolt SRC; lines 1-7): `rtt_src = now − t_data_tx` (the
//!   reflected TX time; `now` counts cycles since reset, as the stamp's clock does);
//!   `reaction_factor = flow.rate / link_rate = cwnd / rtt_pkts` (a message's rate is
//!   `cwnd` packets per base RTT and `rtt_pkts` is the BDP at the link rate, so the
//!   `link_rate` byte is not needed while host and bottleneck links have one rate);
//!   `target_q = q_size / MTU × reaction_factor` with MTU = 1088 bytes (17 × 64). The
//!   window shrinks by one when `rtt_src / target_q ≤ now − last_dec_time`, computed without
//!   a divider as `rtt_src × 17 × rtt_pkts ≤ ⌊q_size / 64⌋ × cwnd × (now − last_dec_time)`
//!   with 16-bit saturating operands (16 × 16 multipliers), and never below 1; then
//!   `last_dec_time = now` and `CreditTxEvent` with `credit = acked + cwnd` (whenever the
//!   test passes, also at a window of 1).
//! * Any other control record changes nothing (and does not claim a message's state).
//!
//! `acked`, `seq_no_at_last_ai` and the `ackNo` read from an ACK are 8-bit and saturate at
//! 255 (a message has at most 38 packets, so only a corrupt ACK gets there).
//!
//! A failed lookup raises nothing (`stat.failed`): the sender's timeout recovers the packet.
//!
//! # Timing
//! A DATA record taken in cycle `t` has its `CtrlPktEvent` on `ctrl` in `t+1`. A control
//! record is applied over three stages, one cycle of logic each:
//! * S1 (`t+1`): the message's state arrives from the RAM (it answers a cycle after its
//!   address) and is claimed or taken as is; `now` is sampled (every time above is this
//!   cycle's); the record's saturated operands (`ackNo`, `rtt_src`, `q_size / 64`).
//! * S2 (`t+2`): the ACK's `acked` and `cwnd`, the SRC's elapsed time and its first two
//!   products (`rtt_src × 17 × rtt_pkts`, `q × cwnd`), the credits a decrement or none gives.
//! * S3 (`t+3`): the SRC's last products and the decrement test; `seq_no_at_last_ai`; the
//!   state written back; the delivered/credit events registered (on their ports in `t+4`).
//!
//! The next record is taken once the last one has left S3 and every event of it has been
//! accepted, so a record always reads the state its predecessor wrote.
use crate::ingress::{PktInfoSink, FLAG_ACK, FLAG_CHOP, FLAG_DATA, FLAG_NACK};
use crate::packetization::MAX_PKTS;
use crate::program::{CreditOut, CtrlEventOut, DeliveredOut, FreedIn, ProgramCfg, ProgramStats};
use crate::swif::{BOLT_INC, BOLT_SRC};
use rust_hdl::prelude::*;

/// The largest window (packets).
pub const MAX_CWND: u64 = 255;
/// The MTU in 64-byte units (1088 bytes: 64 of headers, 1024 of payload).
pub const MTU_UNITS: u64 = 17;

/// One sent message's Bolt state.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct TxCc {
    pub tag: Bits<16>,
    pub cwnd: Bits<8>,
    pub acked: Bits<8>,
    pub ai_seq: Bits<8>,
    pub last_dec: Bits<32>,
}

/// The control record being applied (sender side).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct CcRec {
    pub tx_msg_id: Bits<16>,
    pub pkt_offset: Bits<8>,
    pub ack_no: Bits<16>,
    pub ack: bool,
    pub nack: bool,
    pub src: bool,
    pub inc: bool,
    pub q_size: Bits<24>,
    pub t_tx: Bits<32>,
}

/// The Bolt program for `N = 2^A` messages per direction.
#[derive(LogicBlock)]
pub struct BoltProgram<const A: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub cfg: ProgramCfg,
    pub info: PktInfoSink,
    /// Not needed: a message's state is tagged with its `tx_msg_id`.
    pub freed: FreedIn,
    pub delivered: DeliveredOut,
    pub credit: CreditOut,
    pub ctrl: CtrlEventOut<A>,
    pub stat: ProgramStats,

    cc: RAM<TxCc, A>,
    seen: DFF<Bits<N>>,
    now: DFF<Bits<32>>,
    s1_v: DFF<bool>,
    s1: DFF<CcRec>,
    // S1 -> S2.
    s2_v: DFF<bool>,
    s2: DFF<CcRec>,
    s2_cur: DFF<TxCc>,
    s2_now: DFF<Bits<32>>,
    s2_ack8: DFF<Bits<8>>,
    s2_rtt16: DFF<Bits<16>>,
    s2_q16: DFF<Bits<16>>,
    // S2 -> S3.
    s3_v: DFF<bool>,
    s3: DFF<CcRec>,
    s3_cur: DFF<TxCc>,
    s3_now: DFF<Bits<32>>,
    s3_ack8: DFF<Bits<8>>,
    /// An ACK's new `acked` and `cwnd`, and whether its offset reached `ai_seq`.
    s3_acked: DFF<Bits<8>>,
    s3_cw: DFF<Bits<8>>,
    s3_ai_hit: DFF<bool>,
    /// A decrement's `cwnd` (never below 1).
    s3_cw_dec: DFF<Bits<8>>,
    /// `acked + cwnd` unchanged, and after a decrement.
    s3_credit_keep: DFF<Bits<16>>,
    s3_credit_dec: DFF<Bits<16>>,
    s3_lhs: DFF<Bits<32>>,
    s3_p: DFF<Bits<32>>,
    s3_el16: DFF<Bits<16>>,
    ctrl_v: DFF<bool>,
    ctrl_f: DFF<crate::ndp::CtrlFields>,
    dlv_v: DFF<bool>,
    dlv_id: DFF<Bits<16>>,
    dlv_bits: DFF<Bits<MAX_PKTS>>,
    dlv_below: DFF<Bits<8>>,
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

    r: Signal<Local, crate::ingress::PktInfo>,
    take: Signal<Local, bool>,
    is_data: Signal<Local, bool>,
    intact: Signal<Local, bool>,
    bflags: Signal<Local, Bits<8>>,
    rbolt: Signal<Local, Bits<72>>,
    rid16: Signal<Local, Bits<16>>,
    s1_id16: Signal<Local, Bits<16>>,
    s3_id16: Signal<Local, Bits<16>>,
    s3_idx: Signal<Local, Bits<A>>,
    /// The state's fields at S2 (a field is not sliced in place).
    cur_last: Signal<Local, Bits<32>>,
    cur_cw: Signal<Local, Bits<8>>,
    cur_acked: Signal<Local, Bits<8>>,
    cur_ai: Signal<Local, Bits<8>>,
    s3_cur_v: Signal<Local, TxCc>,
    cw_dec: Signal<Local, Bits<8>>,
    s1_ack: Signal<Local, Bits<16>>,
    rec: Signal<Local, CcRec>,
    idx: Signal<Local, Bits<A>>,
    s1_idx: Signal<Local, Bits<A>>,
    fresh: Signal<Local, bool>,
    cur: Signal<Local, TxCc>,
    nxt: Signal<Local, TxCc>,
    ack8: Signal<Local, Bits<8>>,
    acked: Signal<Local, Bits<8>>,
    c1: Signal<Local, Bits<9>>,
    c2: Signal<Local, Bits<9>>,
    cw: Signal<Local, Bits<8>>,
    ai_hit: Signal<Local, bool>,
    win_end: Signal<Local, Bits<9>>,
    rtt32: Signal<Local, Bits<32>>,
    rtt16: Signal<Local, Bits<16>>,
    qsh: Signal<Local, Bits<24>>,
    q16: Signal<Local, Bits<16>>,
    el32: Signal<Local, Bits<32>>,
    el16: Signal<Local, Bits<16>>,
    k16: Signal<Local, Bits<16>>,
    lhs: Signal<Local, Bits<32>>,
    p: Signal<Local, Bits<32>>,
    r_hi: Signal<Local, Bits<32>>,
    r_lo: Signal<Local, Bits<32>>,
    rhs: Signal<Local, Bits<48>>,
    dec: Signal<Local, bool>,
    acts: Signal<Local, bool>,
    obit: Signal<Local, Bits<MAX_PKTS>>,
    out_id16: Signal<Local, Bits<16>>,
    cf: Signal<Local, crate::ndp::CtrlFields>,

    one_32: Constant<Bits<32>>,
    zero_32: Constant<Bits<32>>,
    zero_8: Constant<Bits<8>>,
    one_8: Constant<Bits<8>>,
    one_9: Constant<Bits<9>>,
    zero_9: Constant<Bits<9>>,
    two_9: Constant<Bits<9>>,
    max_8: Constant<Bits<8>>,
    max_8_16: Constant<Bits<16>>,
    max16_32: Constant<Bits<32>>,
    max16_24: Constant<Bits<24>>,
    one_n: Constant<Bits<N>>,
    zero_n: Constant<Bits<N>>,
    one_bits: Constant<Bits<MAX_PKTS>>,
    flag_data: Constant<Bits<8>>,
    flag_ack: Constant<Bits<8>>,
    flag_nack: Constant<Bits<8>>,
    flag_chop: Constant<Bits<8>>,
    b_src: Constant<Bits<8>>,
    b_inc: Constant<Bits<8>>,
    sh4: Constant<Bits<5>>,
    sh6: Constant<Bits<5>>,
    sh16: Constant<Bits<6>>,
}

impl<const A: usize, const N: usize> BoltProgram<A, N> {
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
            cc: Default::default(),
            seen: Default::default(),
            now: Default::default(),
            s1_v: Default::default(),
            s1: Default::default(),
            s2_v: Default::default(),
            s2: Default::default(),
            s2_cur: Default::default(),
            s2_now: Default::default(),
            s2_ack8: Default::default(),
            s2_rtt16: Default::default(),
            s2_q16: Default::default(),
            s3_v: Default::default(),
            s3: Default::default(),
            s3_cur: Default::default(),
            s3_now: Default::default(),
            s3_ack8: Default::default(),
            s3_acked: Default::default(),
            s3_cw: Default::default(),
            s3_ai_hit: Default::default(),
            s3_cw_dec: Default::default(),
            s3_credit_keep: Default::default(),
            s3_credit_dec: Default::default(),
            s3_lhs: Default::default(),
            s3_p: Default::default(),
            s3_el16: Default::default(),
            ctrl_v: Default::default(),
            ctrl_f: Default::default(),
            dlv_v: Default::default(),
            dlv_id: Default::default(),
            dlv_bits: Default::default(),
            dlv_below: Default::default(),
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
            bflags: Default::default(),
            rbolt: Default::default(),
            rid16: Default::default(),
            s1_id16: Default::default(),
            s3_id16: Default::default(),
            s3_idx: Default::default(),
            cur_last: Default::default(),
            cur_cw: Default::default(),
            cur_acked: Default::default(),
            cur_ai: Default::default(),
            s3_cur_v: Default::default(),
            cw_dec: Default::default(),
            s1_ack: Default::default(),
            rec: Default::default(),
            idx: Default::default(),
            s1_idx: Default::default(),
            fresh: Default::default(),
            cur: Default::default(),
            nxt: Default::default(),
            ack8: Default::default(),
            acked: Default::default(),
            c1: Default::default(),
            c2: Default::default(),
            cw: Default::default(),
            ai_hit: Default::default(),
            win_end: Default::default(),
            rtt32: Default::default(),
            rtt16: Default::default(),
            qsh: Default::default(),
            q16: Default::default(),
            el32: Default::default(),
            el16: Default::default(),
            k16: Default::default(),
            lhs: Default::default(),
            p: Default::default(),
            r_hi: Default::default(),
            r_lo: Default::default(),
            rhs: Default::default(),
            dec: Default::default(),
            acts: Default::default(),
            obit: Default::default(),
            out_id16: Default::default(),
            cf: Default::default(),
            one_32: Constant::new(1.into()),
            zero_32: Constant::new(0.into()),
            zero_8: Constant::new(0.into()),
            one_8: Constant::new(1.into()),
            one_9: Constant::new(1.into()),
            zero_9: Constant::new(0.into()),
            two_9: Constant::new(2.into()),
            max_8: Constant::new(MAX_CWND.into()),
            max_8_16: Constant::new(255.into()),
            max16_32: Constant::new(0xffff.into()),
            max16_24: Constant::new(0xffff.into()),
            one_n: Constant::new(1.into()),
            zero_n: Constant::new(0.into()),
            one_bits: Constant::new(1.into()),
            flag_data: Constant::new(FLAG_DATA.into()),
            flag_ack: Constant::new(FLAG_ACK.into()),
            flag_nack: Constant::new(FLAG_NACK.into()),
            flag_chop: Constant::new(FLAG_CHOP.into()),
            b_src: Constant::new((BOLT_SRC as u64).into()),
            b_inc: Constant::new((BOLT_INC as u64).into()),
            sh4: Constant::new(4.into()),
            sh6: Constant::new(6.into()),
            sh16: Constant::new(16.into()),
        }
    }
}

impl<const A: usize, const N: usize> Default for BoltProgram<A, N> {
    fn default() -> Self {
        Self::new()
    }
}

/// The Bolt program for 16 messages per direction.
pub type BoltProgram16 = BoltProgram<4, 16>;

impl<const A: usize, const N: usize> Logic for BoltProgram<A, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            seen,
            now,
            s1_v,
            s1,
            s2_v,
            s2,
            s2_cur,
            s2_now,
            s2_ack8,
            s2_rtt16,
            s2_q16,
            s3_v,
            s3,
            s3_cur,
            s3_now,
            s3_ack8,
            s3_acked,
            s3_cw,
            s3_ai_hit,
            s3_cw_dec,
            s3_credit_keep,
            s3_credit_dec,
            s3_lhs,
            s3_p,
            s3_el16,
            ctrl_v,
            ctrl_f,
            dlv_v,
            dlv_id,
            dlv_bits,
            dlv_below,
            crd_v,
            crd_id,
            crd_rtx,
            crd_bits,
            crd_set,
            crd_credit,
            cnt_rec,
            cnt_fail,
            cnt_ctrl,
            cnt_dlv,
            cnt_crd
        );
        self.cc.read_clock.next = self.clock.val();
        self.cc.write_clock.next = self.clock.val();
        self.now.d.next = self.now.q.val() + self.one_32.val();

        // Take a record when the last one's events are all out.
        self.info.ready.next = !self.s1_v.q.val()
            & !self.s2_v.q.val()
            & !self.s3_v.q.val()
            & !self.ctrl_v.q.val()
            & !self.dlv_v.q.val()
            & !self.crd_v.q.val()
            & !self.reset.val();
        self.take.next = self.info.valid.val() & self.info.ready.val();
        self.r.next = self.info.info.val();
        self.is_data.next = (self.r.val().flags & self.flag_data.val()) != self.zero_8.val();
        self.intact.next = (self.r.val().flags & self.flag_chop.val()) == self.zero_8.val();
        self.rbolt.next = self.r.val().bolt;
        self.rid16.next = self.r.val().tx_msg_id;
        self.bflags.next = self.rbolt.val().get_bits::<8>(32);
        if self.take.val() {
            self.cnt_rec.d.next = self.cnt_rec.q.val() + self.one_32.val();
        }

        // Receiver: ACK (INC echoed in grant_prio) or NACK.
        self.cf.next.flags = self.flag_nack.val();
        self.cf.next.grant_prio = self.zero_8.val();
        if self.intact.val() {
            self.cf.next.flags = self.flag_ack.val();
            if (self.bflags.val() & self.b_inc.val()) != self.zero_8.val() {
                self.cf.next.grant_prio = self.one_8.val();
            }
        }
        self.cf.next.rx_id = self.r.val().rx_msg_id;
        self.cf.next.dst_ip = self.r.val().src_ip;
        self.cf.next.dst_port = self.r.val().src_port;
        self.cf.next.src_port = self.r.val().dst_port;
        self.cf.next.tx_msg_id = self.r.val().tx_msg_id;
        self.cf.next.msg_len = self.r.val().msg_len;
        self.cf.next.pkt_offset = self.r.val().pkt_offset;
        self.cf.next.pull_grant = bit_cast::<16, 9>(self.r.val().ack_no);
        if self.take.val() & self.is_data.val() {
            if self.r.val().fail {
                self.cnt_fail.d.next = self.cnt_fail.q.val() + self.one_32.val();
            } else {
                self.ctrl_v.d.next = true;
                self.ctrl_f.d.next = self.cf.val();
                self.cnt_ctrl.d.next = self.cnt_ctrl.q.val() + self.one_32.val();
            }
        } else if self.ctrl_v.q.val() & self.ctrl.ready.val() {
            self.ctrl_v.d.next = false;
        }

        // Sender: read the message's state (answers in t+1).
        self.rec.next.tx_msg_id = self.r.val().tx_msg_id;
        self.rec.next.pkt_offset = self.r.val().pkt_offset;
        self.rec.next.ack_no = self.r.val().pull_grant;
        self.rec.next.ack = (self.r.val().flags & self.flag_ack.val()) != self.zero_8.val();
        self.rec.next.nack = (self.r.val().flags & self.flag_nack.val()) != self.zero_8.val();
        self.rec.next.src = (self.r.val().flags == self.zero_8.val())
            & ((self.bflags.val() & self.b_src.val()) != self.zero_8.val());
        self.rec.next.inc = (self.bflags.val() & self.b_inc.val()) != self.zero_8.val();
        self.rec.next.q_size = self.rbolt.val().get_bits::<24>(48);
        self.rec.next.t_tx = self.rbolt.val().get_bits::<32>(0);
        self.idx.next = self.rid16.val().get_bits::<A>(0);
        self.cc.read_address.next = self.idx.val();
        self.s1_v.d.next = self.take.val() & !self.is_data.val();
        self.s1.d.next = self.rec.val();

        // ================= S1: the message's state (the RAM's answer) =================
        self.s1_id16.next = self.s1.q.val().tx_msg_id;
        self.s1_idx.next = self.s1_id16.val().get_bits::<A>(0);
        self.fresh.next = (((self.seen.q.val() >> self.s1_idx.val()) & self.one_n.val())
            != self.one_n.val())
            | (self.cc.read_data.val().tag != self.s1.q.val().tx_msg_id);
        self.cur.next = self.cc.read_data.val();
        if self.fresh.val() {
            self.cur.next.tag = self.s1.q.val().tx_msg_id;
            self.cur.next.cwnd = self.cfg.rtt_pkts.val();
            self.cur.next.acked = self.zero_8.val();
            self.cur.next.ai_seq = self.zero_8.val();
            self.cur.next.last_dec = self.zero_32.val();
        }
        // The record's operands, saturated: ackNo to 8 bits, rtt_src and q_size / 64 to 16.
        self.s1_ack.next = self.s1.q.val().ack_no;
        self.ack8.next = self.s1_ack.val().get_bits::<8>(0);
        if self.s1_ack.val() > self.max_8_16.val() {
            self.ack8.next = self.max_8_16.val().get_bits::<8>(0);
        }
        self.rtt32.next = self.now.q.val() - self.s1.q.val().t_tx;
        self.rtt16.next = self.rtt32.val().get_bits::<16>(0);
        if self.rtt32.val() > self.max16_32.val() {
            self.rtt16.next = self.max16_32.val().get_bits::<16>(0);
        }
        self.qsh.next = self.s1.q.val().q_size >> self.sh6.val();
        self.q16.next = self.qsh.val().get_bits::<16>(0);
        if self.qsh.val() > self.max16_24.val() {
            self.q16.next = self.max16_24.val().get_bits::<16>(0);
        }
        self.s2_v.d.next = self.s1_v.q.val();
        self.s2.d.next = self.s1.q.val();
        self.s2_cur.d.next = self.cur.val();
        self.s2_now.d.next = self.now.q.val();
        self.s2_ack8.d.next = self.ack8.val();
        self.s2_rtt16.d.next = self.rtt16.val();
        self.s2_q16.d.next = self.q16.val();

        // ================= S2: the window, the SRC's first products =================
        self.cur_cw.next = self.s2_cur.q.val().cwnd;
        self.cur_acked.next = self.s2_cur.q.val().acked;
        self.cur_ai.next = self.s2_cur.q.val().ai_seq;
        self.cur_last.next = self.s2_cur.q.val().last_dec;
        // ACK: cumulative ackNo, INC, per-window additive increase (one add of 0, 1 or 2;
        // the sum is at most 257, so it saturates on its bit 8).
        self.acked.next = self.cur_acked.val();
        if self.s2_ack8.q.val() > self.cur_acked.val() {
            self.acked.next = self.s2_ack8.q.val();
        }
        self.ai_hit.next = self.s2.q.val().pkt_offset >= self.cur_ai.val();
        self.c1.next = self.zero_9.val();
        if self.s2.q.val().inc {
            self.c1.next = self.one_9.val();
        }
        if self.ai_hit.val() {
            self.c1.next = self.one_9.val();
            if self.s2.q.val().inc {
                self.c1.next = self.two_9.val();
            }
        }
        self.c2.next = bit_cast::<9, 8>(self.cur_cw.val()) + self.c1.val();
        self.cw.next = self.c2.val().get_bits::<8>(0);
        if self.c2.val().get_bit(8) {
            self.cw.next = self.max_8.val();
        }
        // SRC: rtt_src × 17 × rtt_pkts ≤ ⌊q/64⌋ × cwnd × elapsed, 16-bit saturating.
        self.el32.next = self.s2_now.q.val() - self.cur_last.val();
        self.el16.next = self.el32.val().get_bits::<16>(0);
        if self.el32.val() > self.max16_32.val() {
            self.el16.next = self.max16_32.val().get_bits::<16>(0);
        }
        self.k16.next = (bit_cast::<16, 8>(self.cfg.rtt_pkts.val()) << self.sh4.val())
            + bit_cast::<16, 8>(self.cfg.rtt_pkts.val());
        self.lhs.next = self.s2_rtt16.q.val() * self.k16.val();
        self.p.next = self.s2_q16.q.val() * bit_cast::<16, 8>(self.cur_cw.val());
        self.cw_dec.next = self.cur_cw.val();
        if self.cur_cw.val() > self.one_8.val() {
            self.cw_dec.next = self.cur_cw.val() - self.one_8.val();
        }
        self.s3_v.d.next = self.s2_v.q.val();
        self.s3.d.next = self.s2.q.val();
        self.s3_cur.d.next = self.s2_cur.q.val();
        self.s3_now.d.next = self.s2_now.q.val();
        self.s3_ack8.d.next = self.s2_ack8.q.val();
        self.s3_acked.d.next = self.acked.val();
        self.s3_cw.d.next = self.cw.val();
        self.s3_ai_hit.d.next = self.ai_hit.val();
        self.s3_cw_dec.d.next = self.cw_dec.val();
        self.s3_credit_keep.d.next =
            bit_cast::<16, 8>(self.cur_acked.val()) + bit_cast::<16, 8>(self.cur_cw.val());
        self.s3_credit_dec.d.next =
            bit_cast::<16, 8>(self.cur_acked.val()) + bit_cast::<16, 8>(self.cw_dec.val());
        self.s3_lhs.d.next = self.lhs.val();
        self.s3_p.d.next = self.p.val();
        self.s3_el16.d.next = self.el16.val();

        // ================= S3: the decrement test, the write-back, the events ============
        self.r_hi.next = self.s3_p.q.val().get_bits::<16>(16) * self.s3_el16.q.val();
        self.r_lo.next = self.s3_p.q.val().get_bits::<16>(0) * self.s3_el16.q.val();
        self.rhs.next = (bit_cast::<48, 32>(self.r_hi.val()) << self.sh16.val())
            + bit_cast::<48, 32>(self.r_lo.val());
        self.dec.next = bit_cast::<48, 32>(self.s3_lhs.q.val()) <= self.rhs.val();
        // The window's end (at most 510): an ACK's next `seq_no_at_last_ai` and credit.
        self.win_end.next =
            bit_cast::<9, 8>(self.s3_acked.q.val()) + bit_cast::<9, 8>(self.s3_cw.q.val());
        self.s3_cur_v.next = self.s3_cur.q.val();
        self.nxt.next = self.s3_cur_v.val();
        if self.s3.q.val().ack {
            self.nxt.next.acked = self.s3_acked.q.val();
            self.nxt.next.cwnd = self.s3_cw.q.val();
            if self.s3_ai_hit.q.val() {
                self.nxt.next.ai_seq = self.win_end.val().get_bits::<8>(0);
                if self.win_end.val().get_bit(8) {
                    self.nxt.next.ai_seq = self.max_8.val();
                }
            }
        } else if self.s3.q.val().src & self.dec.val() {
            self.nxt.next.cwnd = self.s3_cw_dec.q.val();
            self.nxt.next.last_dec = self.s3_now.q.val();
        }
        // Only the records the sender acts on touch (and may claim) a message's state.
        self.s3_id16.next = self.s3.q.val().tx_msg_id;
        self.s3_idx.next = self.s3_id16.val().get_bits::<A>(0);
        self.acts.next =
            self.s3_v.q.val() & (self.s3.q.val().ack | self.s3.q.val().nack | self.s3.q.val().src);
        self.cc.write_address.next = self.s3_idx.val();
        self.cc.write_data.next = self.nxt.val();
        self.cc.write_enable.next = self.acts.val();
        if self.acts.val() {
            self.seen.d.next = self.seen.q.val() | (self.one_n.val() << self.s3_idx.val());
        }

        // S3 → events.
        self.obit.next = self.one_bits.val() << self.s3.q.val().pkt_offset;
        if self.s3_v.q.val() {
            self.dlv_id.d.next = self.s3.q.val().tx_msg_id;
            self.dlv_bits.d.next = self.obit.val();
            // This ACK's own ackNo, not the running maximum in the message's state: a
            // forged ACK (dropped later by the packetization module's claim check) must
            // not make a real one acknowledge offsets that were never received.
            self.dlv_below.d.next = self.s3_ack8.q.val();
            self.crd_id.d.next = self.s3.q.val().tx_msg_id;
            self.crd_rtx.d.next = self.s3.q.val().nack;
            self.crd_bits.d.next = self.obit.val();
            self.crd_set.d.next = self.s3.q.val().ack | self.s3.q.val().src;
            // `acked + cwnd` of the state written back.
            self.crd_credit.d.next = self.s3_credit_keep.q.val();
            if self.s3.q.val().ack {
                self.crd_credit.d.next = bit_cast::<16, 9>(self.win_end.val());
            } else if self.s3.q.val().src & self.dec.val() {
                self.crd_credit.d.next = self.s3_credit_dec.q.val();
            }
            if self.s3.q.val().ack {
                self.dlv_v.d.next = true;
                self.cnt_dlv.d.next = self.cnt_dlv.q.val() + self.one_32.val();
            }
            if self.s3.q.val().ack | self.s3.q.val().nack | (self.s3.q.val().src & self.dec.val()) {
                self.crd_v.d.next = true;
                self.cnt_crd.d.next = self.cnt_crd.q.val() + self.one_32.val();
            }
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
        self.delivered.below_flag.next = true;
        self.delivered.below.next = self.dlv_below.q.val();

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
            self.now.d.next = self.zero_32.val();
            self.seen.d.next = self.zero_n.val();
            self.s1_v.d.next = false;
            self.s2_v.d.next = false;
            self.s3_v.d.next = false;
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
