//! Fixed part of the NIC's ingress pipeline (thesis §3.2.1, Fig. 3.1): between the parser
//! and a program's match-action stages. It calls the `GetRxMsgInfo` extern of the
//! reassembly module for every DATA packet, hands every packet's header fields and the
//! extern's answer to the program as one [`PktInfo`] record, and passes DATA frames on to
//! the reassembly module's data port with their Listing 3.1 metadata, or drops them.
//!
//! ```text
//!                 ┌─ first beat of DATA: GetRxMsgInfo ─► info_req ... info_resp (2 cycles) ─┐
//!  parser ─► pkt ─┤                                                                          ├─► info FIFO ─► info (program)
//!                 │  first beat of a control packet ───────────────────────────────────────┘
//!                 └─ DATA words ─► word FIFO (16) ──► data (reassembly)  ◄── verdict FIFO
//!                                                       or dropped          (forward?, rx_msg_id)
//! ```
//!
//! # Interfaces
//! * `pkt`: checked frames from the parser ([`crate::parser::ParsedSource`]): 64-bit
//!   words, `last`, the header fields beside every word.
//! * `info_req` / `info_resp`: the reassembly module's `GetRxMsgInfo` extern. One request
//!   per DATA packet, keyed by (src_ip, src_port, tx_msg_id), with `mark_received` clear for
//!   a trimmed (CHOP) packet. A request the extern cannot take at once waits in a register.
//! * `data`: DATA frames to the reassembly module's data port, with the Listing 3.1
//!   metadata beside every word. A frame is passed on when its request did not fail, it
//!   is not trimmed and it is not a late duplicate of a delivered message (`done`);
//!   otherwise its words are drained here and counted (`stat.drop_fail`, `stat.trimmed`,
//!   `stat.late_dups`). A late duplicate's record reaches the program as a duplicate
//!   (`is_new_pkt` 0, `is_last_pkt` 1, `ack_no` = the packet count), so the program
//!   acknowledges the whole message again.
//! * `info`: one [`PktInfo`] per packet, in arrival order: a DATA packet's record when its
//!   extern answer arrives, a control packet's (ACK, NACK, PULL/GRANT) at its first word
//!   (its `fail`, `rx_msg_id` and answer fields are 0).
//!
//! # Timing
//! The extern answers exactly 2 cycles after a request (`s2` holds that request's fields
//! then); its `valid` writes the record and the verdict.
//!
//! A DATA frame's first word leaves `data` 3 cycles after it arrived on `pkt` (the
//! request goes out with the first word, the answer comes 2 cycles later and is registered
//! with the frame's verdict); its record is on `info` in the same cycle. Words flow at one
//! per cycle; `pkt.ready` drops only when a FIFO is full, a request still waits, or (for a
//! control packet's first word) a DATA record is about to be written.
use crate::fifo::Fifo;
use crate::parser::RxHdr;
use rust_hdl::prelude::*;

/// `flags` bits of the transport header.
pub const FLAG_DATA: u64 = 0x01;
pub const FLAG_ACK: u64 = 0x02;
pub const FLAG_NACK: u64 = 0x04;
/// PULL (NDP) / GRANT (Homa).
pub const FLAG_PULL: u64 = 0x08;
/// Trimmed by a switch.
pub const FLAG_CHOP: u64 = 0x10;

/// One packet's header fields and, for DATA, the `GetRxMsgInfo` answer (Listing 3.4).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct PktInfo {
    pub flags: Bits<8>,
    pub tos: Bits<8>,
    pub src_ip: Bits<32>,
    pub src_port: Bits<16>,
    pub dst_port: Bits<16>,
    pub tx_msg_id: Bits<16>,
    pub msg_len: Bits<16>,
    pub pkt_offset: Bits<8>,
    /// NDP pull_offset / Homa grant_offset.
    pub pull_grant: Bits<16>,
    pub grant_prio: Bits<8>,
    /// Bolt's fields (SPEC §2).
    pub bolt: Bits<72>,
    pub fail: bool,
    pub rx_msg_id: Bits<16>,
    pub is_new_msg: bool,
    pub is_new_pkt: bool,
    pub is_last_pkt: bool,
    pub ack_no: Bits<9>,
}

impl PktInfo {
    /// The record from its packed bits, as `Bits::from(info)` lays them out (and the
    /// emitted Verilog's `trace$record_info` port carries them): the first field in the
    /// least significant bits. `bits(offset, width)` reads `width` (at most 64) bits.
    pub fn unpack(bits: impl Fn(usize, usize) -> u64) -> PktInfo {
        let d = PktInfo::default();
        let f = |off: usize, w: usize| bits(off, w);
        let mut bolt = Bits::<72>::default();
        let bo = d.get_my_offset_bolt();
        bolt.set_bits::<64>(0, f(bo, 64).into());
        bolt.set_bits::<8>(64, f(bo + 64, 8).into());
        PktInfo {
            flags: f(d.get_my_offset_flags(), 8).into(),
            tos: f(d.get_my_offset_tos(), 8).into(),
            src_ip: f(d.get_my_offset_src_ip(), 32).into(),
            src_port: f(d.get_my_offset_src_port(), 16).into(),
            dst_port: f(d.get_my_offset_dst_port(), 16).into(),
            tx_msg_id: f(d.get_my_offset_tx_msg_id(), 16).into(),
            msg_len: f(d.get_my_offset_msg_len(), 16).into(),
            pkt_offset: f(d.get_my_offset_pkt_offset(), 8).into(),
            pull_grant: f(d.get_my_offset_pull_grant(), 16).into(),
            grant_prio: f(d.get_my_offset_grant_prio(), 8).into(),
            bolt,
            fail: f(d.get_my_offset_fail(), 1) != 0,
            rx_msg_id: f(d.get_my_offset_rx_msg_id(), 16).into(),
            is_new_msg: f(d.get_my_offset_is_new_msg(), 1) != 0,
            is_new_pkt: f(d.get_my_offset_is_new_pkt(), 1) != 0,
            is_last_pkt: f(d.get_my_offset_is_last_pkt(), 1) != 0,
            ack_no: f(d.get_my_offset_ack_no(), 9).into(),
        }
    }
}

/// A DATA frame's fate, decided when its extern answer arrives.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct FwdVerdict {
    pub forward: bool,
    pub rx_msg_id: Bits<16>,
    pub remote_ip: Bits<32>,
    pub remote_port: Bits<16>,
    pub msg_len: Bits<16>,
    pub pkt_offset: Bits<8>,
    pub local_port: Bits<16>,
    pub tx_msg_id: Bits<16>,
}

/// A word of a DATA frame waiting for its verdict.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct FrameWord {
    pub data: Bits<64>,
    pub last: bool,
}

/// Checked frames from the parser (the parser's `source`, mirrored).
#[derive(LogicInterface, Default)]
pub struct ParsedSink {
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub data: Signal<In, Bits<64>>,
    pub last: Signal<In, bool>,
    pub empty: Signal<In, Bits<3>>,
    pub hdr: Signal<In, RxHdr>,
}

/// `GetRxMsgInfo` request (the reassembly module's `info_req`, mirrored).
#[derive(LogicInterface, Default)]
pub struct InfoReqOut {
    pub valid: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
    pub mark_received: Signal<Out, bool>,
    pub src_ip: Signal<Out, Bits<32>>,
    pub src_port: Signal<Out, Bits<16>>,
    pub tx_msg_id: Signal<Out, Bits<16>>,
    pub msg_len: Signal<Out, Bits<16>>,
    pub pkt_offset: Signal<Out, Bits<8>>,
}

/// `GetRxMsgInfo` response (the reassembly module's `info_resp`, mirrored).
#[derive(LogicInterface, Default)]
pub struct InfoRespIn {
    pub valid: Signal<In, bool>,
    pub fail: Signal<In, bool>,
    pub rx_msg_id: Signal<In, Bits<16>>,
    pub is_new_msg: Signal<In, bool>,
    pub is_new_pkt: Signal<In, bool>,
    pub is_last_pkt: Signal<In, bool>,
    pub ack_no: Signal<In, Bits<9>>,
    /// A late duplicate of a message already delivered.
    pub done: Signal<In, bool>,
}

/// DATA frames to the reassembly module's data port (its `sink`, mirrored).
#[derive(LogicInterface, Default)]
pub struct RxPktOut {
    pub valid: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
    pub data: Signal<Out, Bits<64>>,
    pub last: Signal<Out, bool>,
    pub remote_ip: Signal<Out, Bits<32>>,
    pub remote_port: Signal<Out, Bits<16>>,
    pub msg_len: Signal<Out, Bits<16>>,
    pub pkt_offset: Signal<Out, Bits<8>>,
    pub local_port: Signal<Out, Bits<16>>,
    pub rx_msg_id: Signal<Out, Bits<16>>,
    pub tx_msg_id: Signal<Out, Bits<16>>,
}

/// Per-packet records to the program.
#[derive(LogicInterface, Default)]
pub struct PktInfoSource {
    pub valid: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
    pub info: Signal<Out, PktInfo>,
}

/// Per-packet records into a program (a [`PktInfoSource`], mirrored).
#[derive(LogicInterface, Default)]
pub struct PktInfoSink {
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub info: Signal<In, PktInfo>,
}

/// Counters (wrapping).
#[derive(LogicInterface, Default)]
pub struct IngressStats {
    pub data_pkts: Signal<Out, Bits<32>>,
    pub ctrl_pkts: Signal<Out, Bits<32>>,
    /// DATA frames passed to the reassembly module.
    pub forwarded: Signal<Out, Bits<32>>,
    /// DATA frames dropped because `GetRxMsgInfo` failed.
    pub drop_fail: Signal<Out, Bits<32>>,
    /// Trimmed DATA packets (headers only; never stored).
    pub trimmed: Signal<Out, Bits<32>>,
    /// DATA packets of messages already delivered (late duplicates; acknowledged by
    /// the program, never stored).
    pub late_dups: Signal<Out, Bits<32>>,
}

/// The fixed ingress stage. See the module documentation.
#[derive(LogicBlock)]
pub struct IngressCore {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub pkt: ParsedSink,
    pub info_req: InfoReqOut,
    pub info_resp: InfoRespIn,
    pub data: RxPktOut,
    pub info: PktInfoSource,
    pub stat: IngressStats,

    words: Fifo<FrameWord, 4, 5>,
    verdicts: Fifo<FwdVerdict, 3, 4>,
    infos: Fifo<PktInfo, 3, 4>,
    in_frame: DFF<bool>,
    cur_data: DFF<bool>,
    out_in_frame: DFF<bool>,
    rq_v: DFF<bool>,
    rq: DFF<PktInfo>,
    s1_v: DFF<bool>,
    s1: DFF<PktInfo>,
    s2_v: DFF<bool>,
    s2: DFF<PktInfo>,
    cnt_data: DFF<Bits<32>>,
    cnt_ctrl: DFF<Bits<32>>,
    cnt_fwd: DFF<Bits<32>>,
    cnt_fail: DFF<Bits<32>>,
    cnt_trim: DFF<Bits<32>>,
    cnt_late: DFF<Bits<32>>,

    h: Signal<Local, RxHdr>,
    hi: Signal<Local, PktInfo>,
    req: Signal<Local, PktInfo>,
    rec: Signal<Local, PktInfo>,
    v: Signal<Local, FwdVerdict>,
    vh: Signal<Local, FwdVerdict>,
    wh: Signal<Local, FrameWord>,
    first: Signal<Local, bool>,
    is_data: Signal<Local, bool>,
    is_chop: Signal<Local, bool>,
    s2_chop: Signal<Local, bool>,
    first_ok: Signal<Local, bool>,
    beat: Signal<Local, bool>,
    new_req: Signal<Local, bool>,
    req_go: Signal<Local, bool>,
    can_out: Signal<Local, bool>,
    pop_word: Signal<Local, bool>,

    one_32: Constant<Bits<32>>,
    zero_32: Constant<Bits<32>>,
    zero_8: Constant<Bits<8>>,
    zero_64: Constant<Bits<64>>,
    full_words: Constant<Bits<5>>,
    room_4: Constant<Bits<4>>,
    flag_data: Constant<Bits<8>>,
    flag_chop: Constant<Bits<8>>,
    zero_info: Constant<PktInfo>,
    zero_verdict: Constant<FwdVerdict>,
}

impl IngressCore {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            pkt: Default::default(),
            info_req: Default::default(),
            info_resp: Default::default(),
            data: Default::default(),
            info: Default::default(),
            stat: Default::default(),
            words: Fifo::new(),
            verdicts: Fifo::new(),
            infos: Fifo::new(),
            in_frame: Default::default(),
            cur_data: Default::default(),
            out_in_frame: Default::default(),
            rq_v: Default::default(),
            rq: Default::default(),
            s1_v: Default::default(),
            s1: Default::default(),
            s2_v: Default::default(),
            s2: Default::default(),
            cnt_data: Default::default(),
            cnt_ctrl: Default::default(),
            cnt_fwd: Default::default(),
            cnt_fail: Default::default(),
            cnt_trim: Default::default(),
            cnt_late: Default::default(),
            h: Default::default(),
            hi: Default::default(),
            req: Default::default(),
            rec: Default::default(),
            v: Default::default(),
            vh: Default::default(),
            wh: Default::default(),
            first: Default::default(),
            is_data: Default::default(),
            is_chop: Default::default(),
            s2_chop: Default::default(),
            first_ok: Default::default(),
            beat: Default::default(),
            new_req: Default::default(),
            req_go: Default::default(),
            can_out: Default::default(),
            pop_word: Default::default(),
            one_32: Constant::new(1.into()),
            zero_32: Constant::new(0.into()),
            zero_8: Constant::new(0.into()),
            zero_64: Constant::new(0.into()),
            full_words: Constant::new(16.into()),
            room_4: Constant::new(4.into()),
            flag_data: Constant::new(FLAG_DATA.into()),
            flag_chop: Constant::new(FLAG_CHOP.into()),
            zero_info: Constant::new(PktInfo::default()),
            zero_verdict: Constant::new(FwdVerdict::default()),
        }
    }
}

impl Default for IngressCore {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for IngressCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_frame,
            cur_data,
            out_in_frame,
            rq_v,
            rq,
            s1_v,
            s1,
            s2_v,
            s2,
            cnt_data,
            cnt_ctrl,
            cnt_fwd,
            cnt_fail,
            cnt_trim,
            cnt_late
        );
        self.words.clock.next = self.clock.val();
        self.words.reset.next = self.reset.val();
        self.verdicts.clock.next = self.clock.val();
        self.verdicts.reset.next = self.reset.val();
        self.infos.clock.next = self.clock.val();
        self.infos.reset.next = self.reset.val();

        // The arriving beat's header fields as a record without an answer.
        self.h.next = self.pkt.hdr.val();
        self.hi.next = self.zero_info.val();
        self.hi.next.flags = self.h.val().flags;
        self.hi.next.tos = self.h.val().tos;
        self.hi.next.src_ip = self.h.val().src_ip;
        self.hi.next.src_port = self.h.val().src_port;
        self.hi.next.dst_port = self.h.val().dst_port;
        self.hi.next.tx_msg_id = self.h.val().tx_msg_id;
        self.hi.next.msg_len = self.h.val().msg_len;
        self.hi.next.pkt_offset = self.h.val().pkt_offset;
        self.hi.next.pull_grant = self.h.val().pull_grant;
        self.hi.next.grant_prio = self.h.val().grant_prio;
        self.hi.next.bolt = self.h.val().bolt;
        self.is_data.next = (self.h.val().flags & self.flag_data.val()) != self.zero_8.val();
        self.first.next = !self.in_frame.q.val();

        // Ready: a first word needs room for its record (and, for DATA, its words, its
        // verdict and a free request register); a control packet's first word also waits
        // until no DATA record is in flight, so records stay in arrival order.
        self.first_ok.next = false;
        if self.is_data.val() {
            self.first_ok.next = !self.rq_v.q.val()
                & (self.infos.count.val() < self.room_4.val())
                & (self.verdicts.count.val() < self.room_4.val())
                & (self.words.count.val() != self.full_words.val());
        } else {
            self.first_ok.next = !self.rq_v.q.val()
                & !self.s1_v.q.val()
                & !self.s2_v.q.val()
                & (self.infos.count.val() < self.room_4.val());
        }
        if self.first.val() {
            self.pkt.ready.next = self.first_ok.val() & !self.reset.val();
        } else {
            self.pkt.ready.next = (!self.cur_data.q.val()
                | (self.words.count.val() != self.full_words.val()))
                & !self.reset.val();
        }
        self.beat.next = self.pkt.valid.val() & self.pkt.ready.val();
        if self.beat.val() {
            self.in_frame.d.next = !self.pkt.last.val();
            if self.first.val() {
                self.cur_data.d.next = self.is_data.val();
            }
        }

        // Word FIFO: every word of a DATA frame.
        self.words.push.next = false;
        self.words.push_data.next.data = self.pkt.data.val();
        self.words.push_data.next.last = self.pkt.last.val();
        if self.beat.val() {
            if self.first.val() {
                self.words.push.next = self.is_data.val();
            } else {
                self.words.push.next = self.cur_data.q.val();
            }
        }

        // GetRxMsgInfo: the waiting request, else the one of this first DATA word.
        self.new_req.next = self.beat.val() & self.first.val() & self.is_data.val();
        if self.rq_v.q.val() {
            self.req.next = self.rq.q.val();
        } else {
            self.req.next = self.hi.val();
        }
        self.info_req.valid.next = self.rq_v.q.val() | self.new_req.val();
        self.is_chop.next = (self.req.val().flags & self.flag_chop.val()) != self.zero_8.val();
        self.info_req.mark_received.next = !self.is_chop.val();
        self.info_req.src_ip.next = self.req.val().src_ip;
        self.info_req.src_port.next = self.req.val().src_port;
        self.info_req.tx_msg_id.next = self.req.val().tx_msg_id;
        self.info_req.msg_len.next = self.req.val().msg_len;
        self.info_req.pkt_offset.next = self.req.val().pkt_offset;
        self.req_go.next = self.info_req.valid.val() & self.info_req.ready.val();
        if self.req_go.val() {
            self.rq_v.d.next = false;
        } else if self.new_req.val() {
            self.rq_v.d.next = true;
            self.rq.d.next = self.hi.val();
        }
        self.s1_v.d.next = self.req_go.val();
        self.s1.d.next = self.req.val();
        self.s2_v.d.next = self.s1_v.q.val();
        self.s2.d.next = self.s1.q.val();

        // The answer arrives with s2: the record and the frame's verdict.
        self.rec.next = self.s2.q.val();
        self.rec.next.fail = self.info_resp.fail.val();
        self.rec.next.rx_msg_id = self.info_resp.rx_msg_id.val();
        self.rec.next.is_new_msg = self.info_resp.is_new_msg.val();
        self.rec.next.is_new_pkt = self.info_resp.is_new_pkt.val();
        self.rec.next.is_last_pkt = self.info_resp.is_last_pkt.val();
        self.rec.next.ack_no = self.info_resp.ack_no.val();
        self.s2_chop.next = (self.s2.q.val().flags & self.flag_chop.val()) != self.zero_8.val();
        self.v.next.forward =
            !self.info_resp.fail.val() & !self.s2_chop.val() & !self.info_resp.done.val();
        self.v.next.rx_msg_id = self.info_resp.rx_msg_id.val();
        self.v.next.remote_ip = self.s2.q.val().src_ip;
        self.v.next.remote_port = self.s2.q.val().src_port;
        self.v.next.msg_len = self.s2.q.val().msg_len;
        self.v.next.pkt_offset = self.s2.q.val().pkt_offset;
        self.v.next.local_port = self.s2.q.val().dst_port;
        self.v.next.tx_msg_id = self.s2.q.val().tx_msg_id;
        self.verdicts.push.next = self.info_resp.valid.val();
        self.verdicts.push_data.next = self.v.val();

        self.infos.push.next = false;
        self.infos.push_data.next = self.rec.val();
        if self.info_resp.valid.val() {
            self.infos.push.next = true;
            self.cnt_data.d.next = self.cnt_data.q.val() + self.one_32.val();
            if self.s2_chop.val() {
                self.cnt_trim.d.next = self.cnt_trim.q.val() + self.one_32.val();
            } else if self.info_resp.fail.val() {
                self.cnt_fail.d.next = self.cnt_fail.q.val() + self.one_32.val();
            } else if self.info_resp.done.val() {
                self.cnt_late.d.next = self.cnt_late.q.val() + self.one_32.val();
            }
        } else if self.beat.val() & self.first.val() & !self.is_data.val() {
            self.infos.push.next = true;
            self.infos.push_data.next = self.hi.val();
            self.cnt_ctrl.d.next = self.cnt_ctrl.q.val() + self.one_32.val();
        }

        // Records to the program.
        self.info.valid.next = self.infos.nonempty.val() & !self.reset.val();
        self.info.info.next = self.zero_info.val();
        if self.infos.nonempty.val() {
            self.info.info.next = self.infos.head.val();
        }
        self.infos.pop.next = self.infos.nonempty.val() & self.info.ready.val();

        // Frames out: the head frame goes on (or is drained) once its verdict is known.
        self.can_out.next = self.words.nonempty.val() & self.verdicts.nonempty.val();
        self.vh.next = self.zero_verdict.val();
        self.wh.next.data = self.zero_64.val();
        self.wh.next.last = false;
        if self.can_out.val() {
            self.vh.next = self.verdicts.head.val();
            self.wh.next = self.words.head.val();
        }
        self.data.valid.next = self.can_out.val() & self.vh.val().forward & !self.reset.val();
        self.data.data.next = self.wh.val().data;
        self.data.last.next = self.wh.val().last;
        self.data.remote_ip.next = self.vh.val().remote_ip;
        self.data.remote_port.next = self.vh.val().remote_port;
        self.data.msg_len.next = self.vh.val().msg_len;
        self.data.pkt_offset.next = self.vh.val().pkt_offset;
        self.data.local_port.next = self.vh.val().local_port;
        self.data.rx_msg_id.next = self.vh.val().rx_msg_id;
        self.data.tx_msg_id.next = self.vh.val().tx_msg_id;
        self.pop_word.next = false;
        if self.can_out.val() {
            if self.vh.val().forward {
                self.pop_word.next = self.data.ready.val();
            } else {
                self.pop_word.next = true;
            }
        }
        self.words.pop.next = self.pop_word.val();
        self.verdicts.pop.next = self.pop_word.val() & self.wh.val().last;
        if self.pop_word.val() {
            self.out_in_frame.d.next = !self.wh.val().last;
            if !self.out_in_frame.q.val() & self.vh.val().forward {
                self.cnt_fwd.d.next = self.cnt_fwd.q.val() + self.one_32.val();
            }
        }

        self.stat.data_pkts.next = self.cnt_data.q.val();
        self.stat.ctrl_pkts.next = self.cnt_ctrl.q.val();
        self.stat.forwarded.next = self.cnt_fwd.q.val();
        self.stat.drop_fail.next = self.cnt_fail.q.val();
        self.stat.trimmed.next = self.cnt_trim.q.val();
        self.stat.late_dups.next = self.cnt_late.q.val();

        if self.reset.val() {
            self.in_frame.d.next = false;
            self.cur_data.d.next = false;
            self.out_in_frame.d.next = false;
            self.rq_v.d.next = false;
            self.s1_v.d.next = false;
            self.s2_v.d.next = false;
            self.cnt_data.d.next = self.zero_32.val();
            self.cnt_ctrl.d.next = self.zero_32.val();
            self.cnt_fwd.d.next = self.zero_32.val();
            self.cnt_fail.d.next = self.zero_32.val();
            self.cnt_trim.d.next = self.zero_32.val();
            self.cnt_late.d.next = self.zero_32.val();
        }
    }
}
