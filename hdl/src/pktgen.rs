//! Packet generator (thesis §3.2.1; SPEC §6): turns the ingress pipeline's `CtrlPktEvent`
//! into control packets (ACK, NACK, PULL, GRANT) for the arbiter's control input, pacing
//! NDP's PULLs at one MTU serialization time apart.
//!
//! ```text
//!  event ─► (slot due?) ──► emitter (9 beats: 8 header slots + the 1-byte dummy payload) ─► source
//!             │ no                     ▲
//!             ├─► NACK FIFO ───────────┤ a due slot: a queued NACK first,
//!             ▼                        │ then a queued PULL (+1 over the last sent)
//!   pull table[rx_id] (latest offset) + FIFO of rx_ids waiting ◄── requeued while more remains
//!   last PULL sent[rx_id] (message, offset)
//! ```
//!
//! # Interfaces
//! * `event`: a `CtrlPktEvent`: the flags to send (ACK 0x02, NACK 0x04, PULL/GRANT 0x08),
//!   the destination (`dst_ip`, `dst_port`), our `src_port`, the sender's `tx_msg_id`,
//!   `msg_len`, `pkt_offset`, `pull_grant` (pull or grant offset), `grant_prio`, and the
//!   receiver's `rx_id` (which message a PULL is for). Accepted (`ready`) when the
//!   emitter is free and no queued NACK or PULL is due.
//! * `source`: control packets with the Listing 3.2 metadata (`credit` = pull/grant
//!   offset, `rank` = grant priority, `flags`), 9 beats each, all data zero (the deparser
//!   writes the headers; the payload is the 1-byte dummy).
//! * `cfg.pace`: pace PULLs (NDP). `cfg.gap`: cycles from one pacing slot to the next (one
//!   MTU serialization time: 136 for 1088-byte frames on the 64-bit interface).
//!   `cfg.pace_nacks`: NACKs take slots too (below). `cfg.rtt_pkts`: the senders' initial
//!   credit, the pull offset of a message no PULL was sent for yet (below).
//! * `stat`: packets, PULLs, coalesced PULLs, NACKs that waited for a slot
//!   (`nacks_paced`) and NACKs sent without one because the NACK queue was full
//!   (`nacks_unpaced`).
//!
//! # Pacing (SPEC §6, and NDP's PULL-clocked retransmissions)
//! With `cfg.pace` set, a packet carrying a releasing PULL (or, with `cfg.pace_nacks`, a
//! NACK) takes a pacing slot: it starts only when `gap` cycles (at least 1) have passed
//! since the previous slot's packet started.
//!
//! A PULL *releases* a packet when its offset is within its message: `pull_grant <=
//! ceil(msg_len / 1024)` (1024 payload bytes per packet). One beyond the message's last
//! packet releases nothing (NDP's receiver PULLs on every intact packet, thesis Algorithm
//! 5 line 19, so the last `rtt_pkts` packets of every message, and every packet of a
//! message no longer than `rtt_pkts`, raise such offsets). Such a *free* PULL needs no
//! slot: it goes with its event at once, due or not (an ACK|PULL as without pacing), does
//! not start or restart a slot, and is neither queued nor recorded as its message's last
//! PULL sent. So 1-packet messages keep line rate, and no PULL is ever queued for a
//! message that is complete (the published ns-3 model sends a PULL only when
//! `pktOffset + initialCredit <= msgLen`). One exception keeps one packet per PULL: when
//! a PULL of its message is queued, a free PULL joins it instead (counted as coalesced)
//! with the offset of the message's last packet, and its ACK goes alone: sent at once,
//! its offset would release every packet the queued PULL still holds back in one burst.
//! (Its offsets rising one per intact packet, a message has asked for that last-packet
//! offset before any free one, so the queued PULL carries it already.)
//!
//! An event whose slot is not due:
//! * sends its ACK alone at once (with its PULL if that is free, above);
//! * leaves its releasing PULL in the message's table row, queued once per message: a
//!   later PULL for the same message only raises the row's offset (PULLs are cumulative), so the
//!   queue never holds more than one entry per message and never overflows;
//! * with `cfg.pace_nacks`, queues its NACK (the packet's fields) in the NACK FIFO of
//!   `2^A` entries, and drops the PULL that came with it: a NACK's PULL repeats its
//!   message's offset (a trimmed packet raises nothing), which a PULL already sent or
//!   queued carries, and the NACK's own slot is the one packet that trimmed arrival
//!   releases. When the FIFO is full the NACK goes out at once, as without `pace_nacks`,
//!   and is counted (`nacks_unpaced`): never dropped. Without `pace_nacks` the NACK goes
//!   out at once (SPEC §6's reading).
//!
//! A due slot goes to the oldest queued NACK (a NACK alone), else to the oldest queued
//! PULL, and only then to the next event. The sender retransmits a NACKed packet as soon
//! as the NACK arrives (Algorithm 3: its offset is below the credit), so pacing NACKs is
//! what makes retransmissions PULL-clocked as in NDP (Handley et al., SIGCOMM 2017: a
//! NACK queues the packet at the sender, the next PULL sends it): a receiver releases one
//! packet, new or retransmitted, per slot, and a burst of trimmed headers waits as NACKs
//! at the receiver instead of returning at once as a burst of retransmissions into the
//! congested queue. Without `cfg.pace`, every event is sent as it is (Homa's GRANTs).
//!
//! # One packet per PULL
//! A queued PULL raises its message's offset by at most one packet over the last PULL sent
//! for that message: it carries `min(row offset, last + 1)`, and when the row's offset is
//! higher the message goes back to the end of the queue (round robin among messages) for
//! the next slot. `last` is kept per receive message id in a RAM of the last PULL sent (a
//! queued one's, or an event's sent in its own slot), tagged with the message (`dst_ip`,
//! `dst_port`, `tx_msg_id`): a message that does not match its id's entry has sent none
//! yet, and its `last` is `cfg.rtt_pkts`, the credit its sender started with. So each
//! slot releases one packet, as NDP's receiver sends one PULL per packet received: a row
//! coalesced while slots went to NACKs no longer releases several packets at once, which
//! the sender would send back to back into the bottleneck. An event sent in its own slot
//! needs no cap: it is taken only when no PULL is queued, so its message's earlier offsets
//! have all been sent and it raises by at most one (NDP's receiver raises by one per
//! intact packet). The row is read in the cycle after the slot is taken and written back
//! (requeued) in that cycle, when no event is taken.
//!
//! # Latency
//! An event accepted in cycle `t` has its packet's first beat on `source` in `t+1`.
use crate::arbiter::TxFrameSource;
use crate::fifo::Fifo;
use rust_hdl::prelude::*;

/// Beats of a control packet: 8 header slots and one payload word.
pub const CTRL_BEATS: u64 = 9;
/// `flags` bit of PULL (NDP) / GRANT (Homa).
pub const FLAG_PULL: u64 = 0x08;
/// `flags` bit of NACK.
pub const FLAG_NACK: u64 = 0x04;

/// A `CtrlPktEvent` from the ingress pipeline.
#[derive(LogicInterface, Default)]
pub struct CtrlEventIn<const A: usize> {
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub flags: Signal<In, Bits<8>>,
    pub rx_id: Signal<In, Bits<A>>,
    pub dst_ip: Signal<In, Bits<32>>,
    pub dst_port: Signal<In, Bits<16>>,
    pub src_port: Signal<In, Bits<16>>,
    pub tx_msg_id: Signal<In, Bits<16>>,
    pub msg_len: Signal<In, Bits<16>>,
    pub pkt_offset: Signal<In, Bits<8>>,
    pub pull_grant: Signal<In, Bits<16>>,
    pub grant_prio: Signal<In, Bits<8>>,
}

/// Runtime configuration.
#[derive(LogicInterface, Default)]
pub struct PktGenCfg {
    pub pace: Signal<In, bool>,
    pub gap: Signal<In, Bits<16>>,
    /// With `pace`: NACKs take pacing slots too (NDP's PULL-clocked retransmissions).
    pub pace_nacks: Signal<In, bool>,
    /// With `pace`: the sender's initial credit (a new message's pull offset before its
    /// first PULL), from which a message's first paced PULL raises by at most one.
    pub rtt_pkts: Signal<In, Bits<8>>,
}

/// Counters (wrapping).
#[derive(LogicInterface, Default)]
pub struct PktGenStats {
    /// Control packets sent.
    pub packets: Signal<Out, Bits<32>>,
    /// PULLs sent (alone or with an ACK/NACK).
    pub pulls: Signal<Out, Bits<32>>,
    /// PULLs merged into a queued one for the same message.
    pub coalesced: Signal<Out, Bits<32>>,
    /// NACKs that waited in the NACK queue for a pacing slot.
    pub nacks_paced: Signal<Out, Bits<32>>,
    /// NACKs sent at once, without a slot, because the NACK queue was full.
    pub nacks_unpaced: Signal<Out, Bits<32>>,
}

/// A control packet's addressing fields (a queued NACK is just these).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct CtrlAddr {
    pub dst_ip: Bits<32>,
    pub dst_port: Bits<16>,
    pub src_port: Bits<16>,
    pub tx_msg_id: Bits<16>,
    pub msg_len: Bits<16>,
    pub pkt_offset: Bits<8>,
}

/// Which message a pull offset belongs to (the receiver's view of the sender's message:
/// its address, context and message id).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct MsgKey {
    pub dst_ip: Bits<32>,
    pub dst_port: Bits<16>,
    pub tx_msg_id: Bits<16>,
}

/// The last PULL sent for a receive message, tagged with the message it was for.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct SentPull {
    pub key: MsgKey,
    pub pull: Bits<16>,
}

/// A queued PULL's packet fields.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct PullRow {
    pub addr: CtrlAddr,
    pub pull: Bits<16>,
}

/// The packet being emitted.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct CtrlPkt {
    pub flags: Bits<8>,
    pub prio: Bits<8>,
    pub addr: CtrlAddr,
    pub pull: Bits<16>,
}

/// The packet generator for `N = 2^A` receive messages (`C = A + 1`).
#[derive(LogicBlock)]
pub struct PacketGen<const A: usize, const N: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub cfg: PktGenCfg,
    pub event: CtrlEventIn<A>,
    pub source: TxFrameSource,
    pub stat: PktGenStats,
    /// Messages with a PULL waiting.
    pub pulls_queued: Signal<Out, Bits<C>>,

    rows: RAM<PullRow, A>,
    /// The last PULL sent per receive message, tagged with its message.
    sent: RAM<SentPull, A>,
    queue: Fifo<Bits<A>, A, C>,
    /// NACKs waiting for a pacing slot.
    nacks: Fifo<CtrlAddr, A, C>,
    pending: DFF<Bits<N>>,
    pace_left: DFF<Bits<16>>,
    /// `pace_left > 1`, kept beside it (so that `due` is a register, not a compare).
    pace_gt1: DFF<bool>,
    busy: DFF<bool>,
    beat: DFF<Bits<4>>,
    cur: DFF<CtrlPkt>,
    /// A queued PULL was popped; its row arrives from the RAM this cycle.
    pull_read: DFF<bool>,
    /// The receive message of the row being read.
    read_id: DFF<Bits<A>>,
    /// The row read last cycle, with the last PULL sent for its message (`rtt_pkts` for
    /// none) decided then: its PULL goes out this cycle.
    pull_go: DFF<bool>,
    go_addr: DFF<CtrlAddr>,
    go_pull: DFF<Bits<16>>,
    /// One above the last PULL sent: the most this PULL may carry.
    go_step: DFF<Bits<16>>,
    cnt_pkts: DFF<Bits<32>>,
    cnt_pulls: DFF<Bits<32>>,
    cnt_coal: DFF<Bits<32>>,
    cnt_npaced: DFF<Bits<32>>,
    cnt_nunpaced: DFF<Bits<32>>,

    free: Signal<Local, bool>,
    due: Signal<Local, bool>,
    take_pull: Signal<Local, bool>,
    take_ev: Signal<Local, bool>,
    take_nack: Signal<Local, bool>,
    wants_nack: Signal<Local, bool>,
    nack_room: Signal<Local, bool>,
    nack_early: Signal<Local, bool>,
    defer_nack: Signal<Local, bool>,
    wants_pull: Signal<Local, bool>,
    send_pull: Signal<Local, bool>,
    ev_flags: Signal<Local, Bits<8>>,
    /// The event's packet carries a PULL (`ev_flags` has the PULL bit).
    ev_pull: Signal<Local, bool>,
    /// The event's message length in whole 1024-byte packets (`ceil(msg_len / 1024)`).
    ev_hi: Signal<Local, Bits<6>>,
    ev_lo: Signal<Local, Bits<10>>,
    ev_pkts: Signal<Local, Bits<16>>,
    /// `pull_grant`'s low 7 bits minus `ev_hi`, in 8 bits (bit 7: negative), and
    /// `pull_grant`'s high 9 bits.
    ev_ahead: Signal<Local, Bits<8>>,
    pg_lo7: Signal<Local, Bits<7>>,
    pg_hi9: Signal<Local, Bits<9>>,
    /// `cfg.gap > 1`: the `pace_gt1` a slot taken now leaves.
    gap_gt1: Signal<Local, bool>,
    /// The event's flags other than NACK and PULL are not all zero.
    ev_other: Signal<Local, bool>,
    /// The event's packet carries a NACK (`ev_flags` has the NACK bit).
    ev_nack: Signal<Local, bool>,
    /// The event's PULL releases no packet (its offset is beyond the message's last
    /// packet): it goes with the event, without a slot.
    pull_free: Signal<Local, bool>,
    /// A PULL of the event's receive message is queued.
    pull_held: Signal<Local, bool>,
    /// The event's PULL goes into its message's row (not sent with the event).
    defer_pull: Signal<Local, bool>,
    ev_row: Signal<Local, PullRow>,
    ev_addr: Signal<Local, CtrlAddr>,
    cur_addr: Signal<Local, CtrlAddr>,
    ev_key: Signal<Local, MsgKey>,
    row_addr: Signal<Local, CtrlAddr>,
    row_key: Signal<Local, MsgKey>,
    go_row: Signal<Local, CtrlAddr>,
    go_key: Signal<Local, MsgKey>,
    sent_key: Signal<Local, MsgKey>,
    same_msg: Signal<Local, bool>,
    last_pull: Signal<Local, Bits<16>>,
    step_pull: Signal<Local, Bits<16>>,
    emit_pull: Signal<Local, Bits<16>>,
    more: Signal<Local, bool>,
    sent_wr: Signal<Local, SentPull>,
    id_mask: Signal<Local, Bits<N>>,
    start: Signal<Local, bool>,
    last_beat: Signal<Local, bool>,
    nc: Signal<Local, CtrlPkt>,
    pull_bit: Constant<Bits<8>>,
    no_pull: Constant<Bits<8>>,
    nack_bit: Constant<Bits<8>>,
    no_nack_pull: Constant<Bits<8>>,
    depth_c: Constant<Bits<C>>,
    zero_8: Constant<Bits<8>>,
    zero_10: Constant<Bits<10>>,
    one_n: Constant<Bits<N>>,
    zero_n: Constant<Bits<N>>,
    zero_16: Constant<Bits<16>>,
    one_16: Constant<Bits<16>>,
    two_16: Constant<Bits<16>>,
    zero_9: Constant<Bits<9>>,
    zero_6: Constant<Bits<6>>,
    one_4: Constant<Bits<4>>,
    zero_4: Constant<Bits<4>>,
    last_4: Constant<Bits<4>>,
    one_32: Constant<Bits<32>>,
    zero_32: Constant<Bits<32>>,
    zero_64: Constant<Bits<64>>,
}

impl<const A: usize, const N: usize, const C: usize> PacketGen<A, N, C> {
    pub fn new() -> Self {
        assert!(
            (1..=8).contains(&A),
            "packet generator id bits A={A} must be 1..=8"
        );
        assert_eq!(N, 1 << A, "N={N} must be 2^A");
        assert_eq!(C, A + 1, "C={C} must be A+1");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            event: Default::default(),
            source: Default::default(),
            stat: Default::default(),
            pulls_queued: Default::default(),
            rows: Default::default(),
            sent: Default::default(),
            queue: Fifo::new(),
            nacks: Fifo::new(),
            pending: Default::default(),
            pace_left: Default::default(),
            pace_gt1: Default::default(),
            busy: Default::default(),
            beat: Default::default(),
            cur: Default::default(),
            pull_read: Default::default(),
            read_id: Default::default(),
            pull_go: Default::default(),
            go_addr: Default::default(),
            go_pull: Default::default(),
            go_step: Default::default(),
            cnt_pkts: Default::default(),
            cnt_pulls: Default::default(),
            cnt_coal: Default::default(),
            cnt_npaced: Default::default(),
            cnt_nunpaced: Default::default(),
            free: Default::default(),
            due: Default::default(),
            take_pull: Default::default(),
            take_ev: Default::default(),
            take_nack: Default::default(),
            wants_nack: Default::default(),
            nack_room: Default::default(),
            nack_early: Default::default(),
            defer_nack: Default::default(),
            wants_pull: Default::default(),
            send_pull: Default::default(),
            ev_flags: Default::default(),
            ev_pull: Default::default(),
            ev_hi: Default::default(),
            ev_lo: Default::default(),
            ev_pkts: Default::default(),
            ev_ahead: Default::default(),
            pg_lo7: Default::default(),
            pg_hi9: Default::default(),
            gap_gt1: Default::default(),
            ev_other: Default::default(),
            ev_nack: Default::default(),
            pull_free: Default::default(),
            pull_held: Default::default(),
            defer_pull: Default::default(),
            ev_row: Default::default(),
            ev_addr: Default::default(),
            cur_addr: Default::default(),
            ev_key: Default::default(),
            row_addr: Default::default(),
            row_key: Default::default(),
            go_row: Default::default(),
            go_key: Default::default(),
            sent_key: Default::default(),
            same_msg: Default::default(),
            last_pull: Default::default(),
            step_pull: Default::default(),
            emit_pull: Default::default(),
            more: Default::default(),
            sent_wr: Default::default(),
            id_mask: Default::default(),
            start: Default::default(),
            last_beat: Default::default(),
            nc: Default::default(),
            pull_bit: Constant::new(FLAG_PULL.into()),
            no_pull: Constant::new((0xff & !FLAG_PULL).into()),
            nack_bit: Constant::new(FLAG_NACK.into()),
            no_nack_pull: Constant::new((0xff & !(FLAG_PULL | FLAG_NACK)).into()),
            depth_c: Constant::new((1u64 << A).into()),
            zero_8: Constant::new(0.into()),
            zero_10: Constant::new(0.into()),
            one_n: Constant::new(1.into()),
            zero_n: Constant::new(0.into()),
            zero_16: Constant::new(0.into()),
            one_16: Constant::new(1.into()),
            two_16: Constant::new(2.into()),
            zero_9: Constant::new(0.into()),
            zero_6: Constant::new(0.into()),
            one_4: Constant::new(1.into()),
            zero_4: Constant::new(0.into()),
            last_4: Constant::new((CTRL_BEATS - 1).into()),
            one_32: Constant::new(1.into()),
            zero_32: Constant::new(0.into()),
            zero_64: Constant::new(0.into()),
        }
    }
}

impl<const A: usize, const N: usize, const C: usize> Default for PacketGen<A, N, C> {
    fn default() -> Self {
        Self::new()
    }
}

/// The packet generator for 16 receive messages.
pub type PacketGen16 = PacketGen<4, 16, 5>;

impl<const A: usize, const N: usize, const C: usize> Logic for PacketGen<A, N, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            pending,
            pace_left,
            pace_gt1,
            busy,
            beat,
            cur,
            pull_read,
            read_id,
            pull_go,
            go_addr,
            go_pull,
            go_step,
            cnt_pkts,
            cnt_pulls,
            cnt_coal,
            cnt_npaced,
            cnt_nunpaced
        );
        self.rows.read_clock.next = self.clock.val();
        self.rows.write_clock.next = self.clock.val();
        self.sent.read_clock.next = self.clock.val();
        self.sent.write_clock.next = self.clock.val();
        self.queue.clock.next = self.clock.val();
        self.queue.reset.next = self.reset.val();
        self.nacks.clock.next = self.clock.val();
        self.nacks.reset.next = self.reset.val();

        // The emitter: one packet at a time, 9 beats.
        self.last_beat.next = self.beat.q.val() == self.last_4.val();
        if self.busy.q.val() & self.source.ready.val() {
            self.beat.d.next = self.beat.q.val() + self.one_4.val();
            if self.last_beat.val() {
                self.busy.d.next = false;
                self.beat.d.next = self.zero_4.val();
            }
        }
        // Free for a new packet next cycle: idle, or its last beat leaves now.
        self.free.next = !self.pull_read.q.val()
            & !self.pull_go.q.val()
            & (!self.busy.q.val() | (self.source.ready.val() & self.last_beat.val()));
        if self.pace_left.q.val() != self.zero_16.val() {
            self.pace_left.d.next = self.pace_left.q.val() - self.one_16.val();
        }
        // `pace_gt1` follows `pace_left > 1`: counting down, `pace_left - 1 > 1`; where a
        // slot is taken below (`pace_left = gap`), `gap > 1`.
        self.pace_gt1.d.next = self.pace_left.q.val() > self.two_16.val();
        self.gap_gt1.next = self.cfg.gap.val() > self.one_16.val();
        // A PULL may start `gap` cycles after the previous one started.
        self.due.next = !self.cfg.pace.val() | !self.pace_gt1.q.val();

        // A due slot goes to a queued NACK, else a queued PULL; else an event.
        self.take_nack.next = self.free.val()
            & self.cfg.pace.val()
            & self.due.val()
            & self.nacks.nonempty.val()
            & !self.reset.val();
        self.take_pull.next = self.free.val()
            & self.cfg.pace.val()
            & self.due.val()
            & !self.nacks.nonempty.val()
            & self.queue.nonempty.val()
            & !self.reset.val();
        self.event.ready.next =
            self.free.val() & !self.take_pull.val() & !self.take_nack.val() & !self.reset.val();
        self.take_ev.next = self.event.valid.val() & self.event.ready.val();

        self.ev_addr.next.dst_ip = self.event.dst_ip.val();
        self.ev_addr.next.dst_port = self.event.dst_port.val();
        self.ev_addr.next.src_port = self.event.src_port.val();
        self.ev_addr.next.tx_msg_id = self.event.tx_msg_id.val();
        self.ev_addr.next.msg_len = self.event.msg_len.val();
        self.ev_addr.next.pkt_offset = self.event.pkt_offset.val();
        self.ev_key.next.dst_ip = self.event.dst_ip.val();
        self.ev_key.next.dst_port = self.event.dst_port.val();
        self.ev_key.next.tx_msg_id = self.event.tx_msg_id.val();
        self.wants_pull.next = (self.event.flags.val() & self.pull_bit.val()) != self.zero_8.val();
        // A PULL releases a packet only when its offset is within the message
        // (`pull_grant <= ceil(msg_len / 1024)`); one beyond it needs no slot.
        self.ev_hi.next = self.event.msg_len.val().get_bits::<6>(10);
        self.ev_lo.next = self.event.msg_len.val().get_bits::<10>(0);
        self.ev_pkts.next = bit_cast::<16, 6>(self.ev_hi.val());
        if self.ev_lo.val() != self.zero_10.val() {
            self.ev_pkts.next = bit_cast::<16, 6>(self.ev_hi.val()) + self.one_16.val();
        }
        // `pull_grant > ev_pkts` (`ev_pkts <= 64`): `pull_grant` at 128 or above, or its
        // low 7 bits minus `ev_hi` above 0 (above 1 when `msg_len` has a partial last
        // packet): one 8-bit subtract, no add before the compare.
        self.pg_lo7.next = self.event.pull_grant.val().get_bits::<7>(0);
        self.pg_hi9.next = self.event.pull_grant.val().get_bits::<9>(7);
        self.ev_ahead.next =
            bit_cast::<8, 7>(self.pg_lo7.val()) - bit_cast::<8, 6>(self.ev_hi.val());
        self.pull_free.next = self.cfg.pace.val()
            & self.wants_pull.val()
            & ((self.pg_hi9.val() != self.zero_9.val())
                | (!self.ev_ahead.val().get_bit(7)
                    & ((self.ev_ahead.val().get_bits::<6>(1) != self.zero_6.val())
                        | ((self.ev_lo.val() == self.zero_10.val())
                            & self.ev_ahead.val().get_bit(0)))));
        self.id_mask.next = self.one_n.val() << self.event.rx_id.val();
        self.pull_held.next = (self.pending.q.val() & self.id_mask.val()) != self.zero_n.val();
        // The row keeps the event's offset; a free PULL merged into a queued one (below)
        // brings the offset that releases the message's last packet.
        self.ev_row.next.addr = self.ev_addr.val();
        self.ev_row.next.pull = self.event.pull_grant.val();
        if self.pull_free.val() {
            self.ev_row.next.pull = self.ev_pkts.val();
        }
        self.wants_nack.next = (self.event.flags.val() & self.nack_bit.val()) != self.zero_8.val();
        self.nack_room.next = self.nacks.count.val() != self.depth_c.val();
        // The event's PULL (and NACK) goes with it when pacing allows; an accepted event
        // finds both queues empty whenever a slot is due (a due slot serves them first).
        self.send_pull.next = !self.cfg.pace.val() | self.due.val();
        // A NACK not due waits in the NACK queue (sent at once when the queue is full).
        self.nack_early.next =
            self.cfg.pace_nacks.val() & !self.send_pull.val() & self.wants_nack.val();
        self.defer_nack.next = self.nack_early.val() & self.nack_room.val();
        // A releasing PULL not due waits in its message's row; a free one goes with the
        // event unless a PULL of its message is queued, which it joins. (With a NACK that
        // waits for a slot, the PULL is dropped instead: below.)
        self.defer_pull.next = self.wants_pull.val()
            & !self.defer_nack.val()
            & ((!self.send_pull.val() & !self.pull_free.val())
                | (self.pull_free.val() & self.pull_held.val()));
        self.ev_flags.next = self.event.flags.val();
        if self.defer_pull.val() {
            self.ev_flags.next = self.event.flags.val() & self.no_pull.val();
        }
        if self.defer_nack.val() {
            self.ev_flags.next = self.event.flags.val() & self.no_nack_pull.val();
        }
        // `ev_flags`' NACK and PULL bits, and whether any bit is left, from the decisions
        // directly (not through the masked flags: fewer levels to `start`).
        self.ev_nack.next = self.wants_nack.val() & !self.defer_nack.val();
        self.ev_pull.next = self.wants_pull.val() & !self.defer_pull.val() & !self.defer_nack.val();
        self.ev_other.next =
            (self.event.flags.val() & self.no_nack_pull.val()) != self.zero_8.val();
        self.nacks.push.next = self.take_ev.val() & self.defer_nack.val();
        self.nacks.push_data.next = self.ev_addr.val();
        self.nacks.pop.next = self.take_nack.val();
        if self.nacks.push.val() {
            self.cnt_npaced.d.next = self.cnt_npaced.q.val() + self.one_32.val();
        }
        if self.take_ev.val() & self.nack_early.val() & !self.nack_room.val() {
            self.cnt_nunpaced.d.next = self.cnt_nunpaced.q.val() + self.one_32.val();
        }

        // The pull table: an event's deferred PULL updates its message's row.
        self.rows.write_enable.next = false;
        self.rows.write_address.next = self.event.rx_id.val();
        self.rows.write_data.next = self.ev_row.val();
        self.queue.push.next = false;
        self.queue.push_data.next = self.event.rx_id.val();
        self.queue.pop.next = false;
        self.rows.read_address.next = self.queue.head.val();
        // (A queued NACK's PULL is dropped: it repeats the message's offset, which a PULL
        // already sent or queued carries; the NACK's own slot stands for it.)
        if self.take_ev.val() & self.defer_pull.val() {
            self.rows.write_enable.next = true;
            if (self.pending.q.val() & self.id_mask.val()) == self.zero_n.val() {
                self.queue.push.next = true;
                self.pending.d.next = self.pending.q.val() | self.id_mask.val();
            } else {
                self.cnt_coal.d.next = self.cnt_coal.q.val() + self.one_32.val();
            }
        }
        self.pull_read.d.next = false;
        if self.take_pull.val() {
            // Pop the message; its row (and its last PULL sent) is read this cycle,
            // compared the next and emitted the one after.
            self.queue.pop.next = true;
            self.pull_read.d.next = true;
            self.read_id.d.next = self.queue.head.val();
            self.pending.d.next =
                self.pending.q.val() & !(self.one_n.val() << self.queue.head.val());
            self.pace_left.d.next = self.cfg.gap.val();
            self.pace_gt1.d.next = self.gap_gt1.val();
        }

        // A queued PULL raises its message's offset by at most one over the last PULL sent
        // for that message (over `cfg.rtt_pkts` when none was: the sender's initial
        // credit), as NDP's one PULL per packet; the row goes back in the queue while more
        // remains. The row and the last PULL are read in the cycle after the pop, compared
        // (is the last PULL for this message?) and registered; the PULL goes out the cycle
        // after. (No event is taken in either cycle, so the queue and the pending bits are
        // free for the requeue.)
        self.sent.read_address.next = self.queue.head.val();
        self.row_addr.next = self.rows.read_data.val().addr;
        self.row_key.next.dst_ip = self.row_addr.val().dst_ip;
        self.row_key.next.dst_port = self.row_addr.val().dst_port;
        self.row_key.next.tx_msg_id = self.row_addr.val().tx_msg_id;
        self.sent_key.next = self.sent.read_data.val().key;
        self.same_msg.next = (self.sent_key.val().dst_ip == self.row_key.val().dst_ip)
            & (self.sent_key.val().dst_port == self.row_key.val().dst_port)
            & (self.sent_key.val().tx_msg_id == self.row_key.val().tx_msg_id);
        self.last_pull.next = bit_cast::<16, 8>(self.cfg.rtt_pkts.val());
        if self.same_msg.val() {
            self.last_pull.next = self.sent.read_data.val().pull;
        }
        self.pull_go.d.next = self.pull_read.q.val();
        self.go_addr.d.next = self.row_addr.val();
        self.go_pull.d.next = self.rows.read_data.val().pull;
        self.go_step.d.next = self.last_pull.val() + self.one_16.val();
        self.go_row.next = self.go_addr.q.val();
        self.go_key.next.dst_ip = self.go_row.val().dst_ip;
        self.go_key.next.dst_port = self.go_row.val().dst_port;
        self.go_key.next.tx_msg_id = self.go_row.val().tx_msg_id;
        self.step_pull.next = self.go_step.q.val();
        self.emit_pull.next = self.go_pull.q.val();
        self.more.next = false;
        if self.go_pull.q.val() > self.step_pull.val() {
            self.emit_pull.next = self.step_pull.val();
            self.more.next = self.pull_go.q.val();
        }
        if self.more.val() {
            self.queue.push.next = true;
            self.queue.push_data.next = self.read_id.q.val();
            self.pending.d.next = self.pending.q.val() | (self.one_n.val() << self.read_id.q.val());
        }
        // The last PULL sent per message: a queued one's, or an event's sent in its slot.
        self.sent.write_enable.next = false;
        self.sent.write_address.next = self.event.rx_id.val();
        self.sent_wr.next.key = self.ev_key.val();
        self.sent_wr.next.pull = self.event.pull_grant.val();
        // (A free PULL is not recorded: it releases nothing, and its message's later
        // PULLs are free too.)
        if self.take_ev.val() & self.cfg.pace.val() & self.ev_pull.val() & !self.pull_free.val() {
            self.sent.write_enable.next = true;
        }
        if self.pull_go.q.val() {
            self.sent.write_enable.next = true;
            self.sent.write_address.next = self.read_id.q.val();
            self.sent_wr.next.key = self.go_key.val();
            self.sent_wr.next.pull = self.emit_pull.val();
        }
        self.sent.write_data.next = self.sent_wr.val();

        // Start a packet.
        self.start.next = self.pull_go.q.val()
            | self.take_nack.val()
            | (self.take_ev.val()
                & (self.ev_other.val() | self.ev_nack.val() | self.ev_pull.val()));
        self.nc.next.flags = self.ev_flags.val();
        self.nc.next.prio = self.event.grant_prio.val();
        self.nc.next.addr = self.ev_addr.val();
        self.nc.next.pull = self.event.pull_grant.val();
        if self.pull_go.q.val() {
            self.nc.next.flags = self.pull_bit.val();
            self.nc.next.prio = self.zero_8.val();
            self.nc.next.addr = self.go_row.val();
            self.nc.next.pull = self.emit_pull.val();
        } else if self.take_nack.val() {
            self.nc.next.flags = self.nack_bit.val();
            self.nc.next.prio = self.zero_8.val();
            self.nc.next.addr = self.nacks.head.val();
            self.nc.next.pull = self.zero_16.val();
            self.pace_left.d.next = self.cfg.gap.val();
            self.pace_gt1.d.next = self.gap_gt1.val();
        } else if self.take_ev.val() {
            // A packet carrying a releasing PULL takes the slot; with `pace_nacks`, so does
            // a NACK sent in a due slot (not one sent early because the NACK queue was
            // full). A free PULL takes none.
            if self.cfg.pace.val()
                & ((self.ev_pull.val() & !self.pull_free.val())
                    | (self.cfg.pace_nacks.val() & self.send_pull.val() & self.ev_nack.val()))
            {
                self.pace_left.d.next = self.cfg.gap.val();
                self.pace_gt1.d.next = self.gap_gt1.val();
            }
        }
        if self.start.val() {
            self.cur.d.next = self.nc.val();
            self.busy.d.next = true;
            self.beat.d.next = self.zero_4.val();
            self.cnt_pkts.d.next = self.cnt_pkts.q.val() + self.one_32.val();
            if self.pull_go.q.val() | (self.take_ev.val() & self.ev_pull.val()) {
                self.cnt_pulls.d.next = self.cnt_pulls.q.val() + self.one_32.val();
            }
        }

        self.source.valid.next = self.busy.q.val();
        self.source.data.next = self.zero_64.val();
        self.source.last.next = self.busy.q.val() & self.last_beat.val();
        // (through a local: a part-select of a struct field's part-select is not Verilog)
        self.cur_addr.next = self.cur.q.val().addr;
        self.source.remote_ip.next = self.cur_addr.val().dst_ip;
        self.source.remote_port.next = self.cur_addr.val().dst_port;
        self.source.msg_len.next = self.cur_addr.val().msg_len;
        self.source.pkt_offset.next = self.cur_addr.val().pkt_offset;
        self.source.local_port.next = self.cur_addr.val().src_port;
        self.source.tx_msg_id.next = self.cur_addr.val().tx_msg_id;
        self.source.credit.next = self.cur.q.val().pull;
        self.source.rank.next = self.cur.q.val().prio;
        self.source.flags.next = self.cur.q.val().flags;
        self.source.is_new_msg.next = false;
        self.source.is_rtx.next = false;

        self.stat.packets.next = self.cnt_pkts.q.val();
        self.stat.pulls.next = self.cnt_pulls.q.val();
        self.stat.coalesced.next = self.cnt_coal.q.val();
        self.stat.nacks_paced.next = self.cnt_npaced.q.val();
        self.stat.nacks_unpaced.next = self.cnt_nunpaced.q.val();
        self.pulls_queued.next = self.queue.count.val();

        if self.reset.val() {
            self.pending.d.next = self.zero_n.val();
            self.pace_left.d.next = self.zero_16.val();
            self.pace_gt1.d.next = false;
            self.busy.d.next = false;
            self.beat.d.next = self.zero_4.val();
            self.pull_read.d.next = false;
            self.pull_go.d.next = false;
            self.cnt_pkts.d.next = self.zero_32.val();
            self.cnt_pulls.d.next = self.zero_32.val();
            self.cnt_coal.d.next = self.zero_32.val();
            self.cnt_npaced.d.next = self.zero_32.val();
            self.cnt_nunpaced.d.next = self.zero_32.val();
        }
    }
}
