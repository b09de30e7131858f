//! Golden model of the packetization module (thesis §3.2.4, §3.3.2, Algorithms 2-4,
//! Listing 3.2), written from the specification in plain Rust, as a cycle-level
//! scoreboard.
//!
//! The model keeps its own copy of everything the block decides on: the per-message state
//! of Algorithms 2-4 (deliveredBitmap, txBitmap, the timeout retransmission set, credit,
//! maxTxPktOffset, timeoutCnt, allowTx, rank), the id and buffer free lists, the
//! application writer, the egress timer's armed entries and the send queue. Each
//! cycle it is shown every port of the block ([`TxIo`]) and the first op-pipeline stage's
//! decision ([`TxProbe`]), and it checks:
//!
//! * **Arbitration.** The op the block starts is the one the rules say: DELIVERED before
//!   CREDIT before TIMEOUT before WROTE before SEND before ALLOC; SEND goes to the head of
//!   the send queue (the ids in the order ops left them with a packet to send, each once)
//!   when no op of its message is in flight, and finds nothing to send when the entry went
//!   stale; ALLOC takes the id and the
//!   buffer the free lists offer (the smallest size class that fits and has a buffer).
//!   The only inputs it takes from the block are the descriptor FIFO's level and the
//!   egress timer's offer; a timer event must be for an armed timer, with its metadata,
//!   and not before its expiry. `app.ready`, `delivered.ready` and `credit.ready` must be
//!   what the rules give: backpressure exactly when no id or buffer is free or the
//!   pipeline is busy, never a drop. A header is taken at the earliest in its second
//!   cycle on `app`; an event, timer event or WROTE for the message of the op started
//!   last cycle waits a cycle (two ops of one message are never in consecutive stages).
//! * **Message ids.** A packet's `tx_msg_id` is `gen << 8 | id` (the message's slot and
//!   its allocation number mod 256); a DELIVERED or CREDIT event applies only when slot
//!   `tx_msg_id & 0xff` is alive and `tx_msg_id >> 8` is its message's generation. Any
//!   other event (unknown or freed slot, or an earlier incarnation of a reused slot) is
//!   dropped and counted in `bad_events`; `status` reports the bare slot id. An event of
//!   the live message whose claim (peer address and ports, `msg_len`) is not the
//!   message's is dropped and counted in `bad_peer`; one naming an offset at or above
//!   maxTxPktOffset (an ACK or NACK bit, a cumulative `below` beyond it), in `bad_offset`.
//! * **Algorithms.** Events update the model's state as Algorithms 2-4 say (see
//!   [`Msg`]); a SEND (and an ALLOC, for the message's first packet, when the descriptor
//!   queue holds at most one entry) emits the lowest offset that is (in txBitmap and below the credit,
//!   or queued by a timeout) and not delivered and already being written, with Listing
//!   3.2's metadata (is_rtx = offset below maxTxPktOffset, is_new_msg = offset 0 sent the
//!   first time, credit and rank as of the send).
//! * **Packets.** Every word on `source`, in order: 8 zero header slots then exactly the
//!   message's bytes for that offset, `last` on its final word, metadata on every word.
//! * **Status.** One event per message, in order: delivered when every packet is
//!   delivered, given up after `max_timeouts` timeouts without progress; refused (id
//!   0xffff) for a bad length.
//! * **Counters and free lists.** `stat` matches every cycle (counters four cycles after
//!   the op that moves them, the op pipeline's depth).
//!
//! A mismatch is an `Err` naming the cycle, the signal, expected and got.
use nt_hdl::packetization::{
    TxProbe, HDR_WORDS, MAX_MSG_BYTES, MAX_PKTS, PKT_BYTES, STATUS_DELIVERED, STATUS_GAVE_UP,
    STATUS_REFUSED,
};
use nt_hdl::pool::BufferConfig;
use nt_sim::arb_workload::{TxBeat, TxMeta};
use nt_sim::tx_workload::{Claim, TxIo, TxStats};
use std::collections::VecDeque;

/// Op kinds of [`TxProbe::kind`].
pub const OP_NONE: u8 = 0;
pub const OP_ALLOC: u8 = 1;
pub const OP_WROTE: u8 = 2;
pub const OP_DLV: u8 = 3;
pub const OP_CRD: u8 = 4;
pub const OP_TMO: u8 = 5;
pub const OP_SEND: u8 = 6;

const WORDS_PER_PKT: u64 = PKT_BYTES / 8;
/// The descriptor FIFO level up to which events that may free a message are taken.
const ROOM: u8 = 4;
/// The descriptor FIFO level up to which a packet may be scheduled.
const SEND_ROOM: u8 = 1;

fn ones_until(n: u64) -> u64 {
    if n >= MAX_PKTS as u64 {
        (1 << MAX_PKTS) - 1
    } else {
        (1 << n) - 1
    }
}

/// An event's op carries its slot (the low `A` bits) and its generation (the high byte)
/// into the pipeline.
fn check_event_probe(p: &TxProbe, tx_msg_id: u16, mask: u16) -> Result<(), String> {
    let want = (tx_msg_id & mask, (tx_msg_id >> 8) as u8);
    if (p.id, p.gen) != want {
        return Err(format!(
            "tx_msg_id {tx_msg_id:#x}: expected (slot {}, gen {}), got (slot {}, gen {})",
            want.0, want.1, p.id, p.gen
        ));
    }
    Ok(())
}

/// Per-message state (Algorithms 2-4).
#[derive(Clone, Debug)]
pub struct Msg {
    /// Index in [`TxModel::messages`] (the order of acceptance).
    pub seq: usize,
    pub id: u16,
    pub gen: u8,
    pub dst_ip: u32,
    pub dst_port: u16,
    pub src_port: u16,
    pub len: u16,
    pub total: u8,
    pub class: usize,
    pub buf: u64,
    /// deliveredBitmap (Alg. 2: `|= ackBitmap`, and every offset below `n` for the
    /// cumulative form).
    pub delivered: u64,
    /// txBitmap (Alg. 3: `|= rtxBitmap`; all packets at allocation).
    pub txb: u64,
    /// Alg. 4 line 10: undelivered offsets below rtx_offset, sent regardless of credit.
    pub rtx: u64,
    /// Alg. 3 line 6 (clamped to 255; an exclusive bound on offsets).
    pub credit: u8,
    /// maxTxPktOffset, exclusive: one more than the highest offset sent.
    pub max_tx: u8,
    /// timeoutCnt (Alg. 4 lines 6-9).
    pub tcnt: u8,
    pub allow: bool,
    pub rank: u8,
    /// Packets the application has started writing.
    pub written: u8,
    /// Payload words the application wrote.
    pub words: Vec<u64>,
    /// The outcome reported (STATUS_*), once it is.
    pub outcome: Option<u8>,
    pub packets_sent: u64,
}

impl Msg {
    fn full(&self) -> u64 {
        ones_until(self.total as u64)
    }

    /// Offsets that may be sent now.
    fn pending(&self) -> u64 {
        ((self.txb & ones_until(self.credit as u64)) | self.rtx)
            & !self.delivered
            & ones_until(self.written as u64)
            & self.full()
    }

    fn sendable(&self) -> bool {
        self.allow && self.pending() != 0
    }
}

/// The armed egress timer of a message.
#[derive(Clone, Copy, Debug)]
struct Armed {
    expiry: u64,
    meta: u16,
    /// Cancelled by the op started in this cycle (the cancel lands three cycles later).
    cancelled_at: Option<u64>,
}

/// A packet the block must emit.
#[derive(Clone, Copy, Debug)]
struct ExpPkt {
    seq: usize,
    offset: u8,
    words: u64,
    meta: TxMeta,
}

/// What the model saw, to show a run was not vacuous.
#[derive(Clone, Debug, Default)]
pub struct ModelStats {
    pub messages: u64,
    pub refused: u64,
    pub delivered: u64,
    pub given_up: u64,
    pub packets: u64,
    pub retransmissions: u64,
    /// Retransmissions of offsets queued by a timeout.
    pub timeout_rtx: u64,
    pub timeouts: u64,
    /// Timeouts that queued a probe (nothing to retransmit, message not done).
    pub probes: u64,
    /// Timeouts of messages with nothing new sent since the timer was armed.
    pub timeouts_no_progress: u64,
    pub delivered_events: u64,
    pub cumulative_events: u64,
    pub credit_events: u64,
    pub nack_events: u64,
    /// Credit set below maxTxPktOffset (below what was already sent).
    pub credit_below_sent: u64,
    pub pauses: u64,
    pub rank_changes: u64,
    pub bad_events: u64,
    /// Bad events for an alive slot but an older generation (a late event of a previous
    /// incarnation of the slot), dropped like the others.
    pub stale_gen_events: u64,
    /// Events of a live message dropped for a claim that is not the message's, and for
    /// offsets never sent.
    pub bad_peer: u64,
    pub bad_offset: u64,
    /// Cycles a header waited for an id or a buffer.
    pub alloc_waits: u64,
    /// Cycles a header waited only because the oldest released slot had not waited out
    /// `cfg.reuse_gap` yet (every never-used slot taken).
    pub reuse_waits: u64,
    pub words_out: u64,
    pub source_stalls: u64,
    /// Latest timer event after its expiry, in cycles.
    pub max_timer_late: u64,
    /// Most messages alive at once.
    pub max_alive: usize,
    /// Messages of more than one packet, and the longest message, in bytes.
    pub multi_packet: u64,
    pub max_len: u16,
    /// SENDs that took a stale send-queue entry (nothing to send), and cycles the queue's
    /// head waited for an op of its message in flight.
    pub stale_sends: u64,
    pub head_waits: u64,
}

/// The golden model. Feed it every cycle with [`TxModel::cycle`].
pub struct TxModel {
    n: usize,
    classes: BufferConfig,
    /// Every message accepted, in order.
    pub messages: Vec<Msg>,
    /// The message of each id, while it is alive.
    live: Vec<Option<usize>>,
    timers: Vec<Option<Armed>>,
    /// Released slots, oldest first: (id, the released incarnation's generation, the
    /// first cycle it may be allocated again).
    ret_ids: VecDeque<(u16, u8, u64)>,
    /// The head of `ret_ids` may be taken this cycle (it was the head last cycle, was
    /// not taken, and was ready).
    ret_ok: bool,
    fresh_ids: u16,
    ret_bufs: Vec<VecDeque<u64>>,
    taken_bufs: Vec<u64>,
    /// The send queue (slot ids, oldest first), which ids are in it, and the pushes to
    /// come: (S3's cycle, id, the message has a packet to send after the op).
    sendq: VecDeque<u16>,
    queued: Vec<bool>,
    sq_due: VecDeque<(u64, u16, bool)>,
    /// Pushes decided (S3's cycle, id), not in the queue yet.
    sq_in: VecDeque<(u64, u16)>,
    // writer
    w_active: bool,
    w_refuse: bool,
    w_seq: usize,
    w_left: u64,
    w_in_pkt: u64,
    w_pkts: u8,
    wrote_pend: Option<(u16, u8, u8)>,
    refuse_pend: bool,
    /// The header on `app` was there last cycle too, not taken (the block takes a header
    /// from its second cycle on, with its checks registered).
    h_seen: bool,
    refusals_due: u64,
    // ops of the last three cycles (ids in S1, S2 and S3)
    inflight: [Option<u16>; 3],
    exp_pkts: VecDeque<ExpPkt>,
    beat: u64,
    exp_status: VecDeque<(u16, u8, usize)>,
    prev_status: (bool, bool),
    counters: TxStats,
    /// Counters after the ops of the last cycles (newest last).
    history: VecDeque<TxStats>,
    pub stats: ModelStats,
    /// The last events, for a failure's context.
    log: VecDeque<String>,
}

impl TxModel {
    pub fn new(n: usize, classes: &BufferConfig) -> Self {
        let k = classes.classes.len();
        TxModel {
            n,
            classes: classes.clone(),
            messages: vec![],
            live: vec![None; n],
            timers: vec![None; n],
            ret_ids: VecDeque::new(),
            ret_ok: false,
            fresh_ids: 0,
            ret_bufs: vec![VecDeque::new(); k],
            taken_bufs: vec![0; k],
            sendq: VecDeque::new(),
            queued: vec![false; n],
            sq_due: VecDeque::new(),
            sq_in: VecDeque::new(),
            w_active: false,
            w_refuse: false,
            w_seq: 0,
            w_left: 0,
            w_in_pkt: 0,
            w_pkts: 0,
            wrote_pend: None,
            refuse_pend: false,
            h_seen: false,
            refusals_due: 0,
            inflight: [None; 3],
            exp_pkts: VecDeque::new(),
            beat: 0,
            exp_status: VecDeque::new(),
            prev_status: (false, false),
            counters: TxStats::default(),
            history: VecDeque::new(),
            stats: ModelStats::default(),
            log: VecDeque::new(),
        }
    }

    fn note(&mut self, s: String) {
        if self.log.len() == 24 {
            self.log.pop_front();
        }
        self.log.push_back(s);
    }

    /// The model's last events (for failure messages).
    pub fn recent(&self) -> String {
        self.log.iter().cloned().collect::<Vec<_>>().join("\n  ")
    }

    fn ids_free(&self) -> u16 {
        self.ret_ids.len() as u16 + (self.n as u16 - self.fresh_ids)
    }

    fn bufs_free_of(&self, c: usize) -> u64 {
        self.ret_bufs[c].len() as u64 + self.classes.count_of(c) - self.taken_bufs[c]
    }

    fn bufs_free(&self) -> u16 {
        (0..self.classes.classes.len())
            .map(|c| self.bufs_free_of(c))
            .sum::<u64>() as u16
    }

    /// Messages alive (allocated, not yet released).
    pub fn alive(&self) -> usize {
        self.live.iter().filter(|m| m.is_some()).count()
    }

    /// Nothing in flight: no message alive, every packet and status out, the writer idle.
    pub fn quiet(&self) -> bool {
        self.alive() == 0
            && self.exp_pkts.is_empty()
            && self.exp_status.is_empty()
            && !self.w_active
            && !self.w_refuse
            && !self.refuse_pend
            && self.refusals_due == 0
            && self.wrote_pend.is_none()
    }

    /// Final checks after a quiet period: every message has its one outcome, every id and
    /// buffer is free and no timer is armed.
    pub fn check_end(&self, io: &TxIo) -> Result<(), String> {
        if !self.quiet() {
            return Err(format!(
                "not quiet at the end: {} messages alive, {} packets and {} statuses due",
                self.alive(),
                self.exp_pkts.len(),
                self.exp_status.len()
            ));
        }
        if let Some(m) = self.messages.iter().find(|m| m.outcome.is_none()) {
            return Err(format!("message {} (id {}) has no outcome", m.seq, m.id));
        }
        if let Some(i) = self.timers.iter().position(|t| t.is_some()) {
            return Err(format!("the timer of id {i} is still armed"));
        }
        let want = (self.n as u16, self.classes.total_buffers() as u16);
        let got = (io.stats.ids_free, io.stats.bufs_free);
        if want != got {
            return Err(format!(
                "free (ids, buffers) at the end: expected {want:?}, got {got:?}"
            ));
        }
        Ok(())
    }

    /// Checks cycle `io.now`: `io` is every port after the kernel settled, `probe` the S0
    /// decision. Call once per cycle, before the clock edge.
    pub fn cycle(&mut self, io: &TxIo, probe: &TxProbe) -> Result<(), String> {
        if io.reset {
            return Err("the model does not follow resets".into());
        }
        self.status(io)?;
        self.check_stats(io)?;
        self.arbitrate(io, probe)?;
        self.source(io)?;
        Ok(())
    }

    /// A status event new in this cycle returned its id and buffer at the last edge.
    fn status(&mut self, io: &TxIo) -> Result<(), String> {
        let t = io.now;
        let (pv, pr) = self.prev_status;
        self.prev_status = (io.st_valid, io.st_ready);
        if !io.st_valid || (pv && !pr) {
            return Ok(());
        }
        if io.st_code as u64 == STATUS_REFUSED {
            if self.refusals_due == 0 || io.st_id != 0xffff {
                return Err(format!(
                    "cycle {t}: status (id {:#x}, refused) but no refusal due",
                    io.st_id
                ));
            }
            self.refusals_due -= 1;
            self.note(format!("{t}: status refused"));
            return Ok(());
        }
        let Some((id, code, seq)) = self.exp_status.pop_front() else {
            return Err(format!(
                "cycle {t}: status (id {}, code {}) but none due",
                io.st_id, io.st_code
            ));
        };
        if (io.st_id, io.st_code) != (id, code) {
            return Err(format!(
                "cycle {t}: status: expected (id {id}, code {code}), got (id {}, code {})",
                io.st_id, io.st_code
            ));
        }
        self.note(format!("{t}: status id {id} code {code} (message {seq})"));
        let m = &self.messages[seq];
        let (class, buf) = (m.class, m.buf);
        // Returned at the last edge, ready `cfg.reuse_gap` cycles after it.
        self.ret_ids
            .push_back((id, m.gen, t - 1 + io.reuse_gap as u64));
        self.ret_bufs[class].push_back(buf);
        Ok(())
    }

    fn check_stats(&mut self, io: &TxIo) -> Result<(), String> {
        let t = io.now;
        let mut want = if self.history.len() >= 4 {
            self.history[self.history.len() - 4]
        } else {
            TxStats::default()
        };
        want.ids_free = self.ids_free();
        want.bufs_free = self.bufs_free();
        if io.stats != want {
            return Err(format!(
                "cycle {t}: stat: expected {want:?}, got {:?}",
                io.stats
            ));
        }
        Ok(())
    }

    /// The id and buffer an ALLOC would take now: ((id, generation), (class, buffer word
    /// address)). Never-used slots first, then the oldest released one once ready.
    fn offer(&self, len: u64) -> (Option<(u16, u8)>, Option<(usize, u64)>) {
        let id = if self.fresh_ids < self.n as u16 {
            Some((self.fresh_ids, 0))
        } else if self.ret_ok {
            self.ret_ids
                .front()
                .map(|&(id, gen, _)| (id, gen.wrapping_add(1)))
        } else {
            None
        };
        let cls = (0..self.classes.classes.len())
            .find(|&c| len <= self.classes.bytes_of(c) && self.bufs_free_of(c) > 0)
            .map(|c| {
                let addr = self.ret_bufs[c].front().copied().unwrap_or_else(|| {
                    self.classes.base_of(c) + self.taken_bufs[c] * self.classes.words_of(c)
                });
                (c, addr)
            });
        (id, cls)
    }

    /// The message a SEND goes to: the send queue's head, unless an op of it is in flight.
    fn pick(&self) -> Option<u16> {
        self.sendq
            .front()
            .copied()
            .filter(|&h| !self.inflight.contains(&Some(h)))
    }

    fn arbitrate(&mut self, io: &TxIo, p: &TxProbe) -> Result<(), String> {
        let t = io.now;
        // S3 (cycle `c`) pushes a message left with a packet to send into the send queue,
        // unless it is queued, and marks it queued at once; the push is registered, so the
        // entry is in the queue from `c + 2`.
        while self.sq_due.front().is_some_and(|&(c, _, _)| c < t) {
            let (c, id, sendable) = self.sq_due.pop_front().expect("front");
            if sendable && !self.queued[id as usize] {
                self.queued[id as usize] = true;
                self.sq_in.push_back((c, id));
            }
        }
        while self.sq_in.front().is_some_and(|&(c, _)| c + 1 < t) {
            let (_, id) = self.sq_in.pop_front().expect("front");
            self.sendq.push_back(id);
        }
        // A cancel lands at S3, three cycles after its op.
        for a in self.timers.iter_mut() {
            if a.is_some_and(|a| a.cancelled_at.is_some_and(|c| c + 3 < t)) {
                *a = None;
            }
        }
        let room = p.desc_count <= ROOM;
        // Two ops of one message never run in consecutive stages: an event, a timer event
        // or a WROTE for the message of the op in S1 waits.
        let mask = self.n as u16 - 1;
        let in_s1 = |id: u16| self.inflight[0] == Some(id & mask);
        let dlv_conf = io.dlv.is_some_and(|e| in_s1(e.id));
        let crd_conf = io.crd.is_some_and(|e| in_s1(e.id));
        let dlv_go = io.dlv.is_some() && room && !dlv_conf;
        let crd_go = !dlv_go && io.crd.is_some() && !crd_conf;
        let tmo_go = !dlv_go && !crd_go && p.timer_valid && room && !in_s1(p.timer_id);
        let wrote_go =
            !dlv_go && !crd_go && !tmo_go && self.wrote_pend.is_some_and(|(id, _, _)| !in_s1(id));
        let pick = self.pick();
        if pick.is_none() && !self.sendq.is_empty() {
            self.stats.head_waits += 1;
        }
        let send_go = !dlv_go
            && !crd_go
            && !tmo_go
            && !wrote_go
            && pick.is_some()
            && p.desc_count <= SEND_ROOM;
        let writer_free = !self.w_active && !self.w_refuse;
        let hdr_len = io.app_data & 0xffff;
        let hdr_ok = hdr_len != 0 && hdr_len <= MAX_MSG_BYTES;
        let fresh_before = self.fresh_ids < self.n as u16;
        let (offer_id, offer_buf) = self.offer(hdr_len);
        let header = io.app_valid && writer_free && hdr_ok && self.h_seen;
        let alloc_go = header
            && !dlv_go
            && !crd_go
            && !tmo_go
            && !wrote_go
            && !send_go
            && self.wrote_pend.is_none()
            && offer_id.is_some()
            && offer_buf.is_some();
        if header && (offer_id.is_none() || offer_buf.is_none()) {
            self.stats.alloc_waits += 1;
            if offer_id.is_none() && !self.ret_ids.is_empty() {
                self.stats.reuse_waits += 1;
            }
        }
        let refuse_go = io.app_valid && writer_free && !hdr_ok && !self.refuse_pend && self.h_seen;
        self.h_seen = io.app_valid && writer_free && !alloc_go && !refuse_go;
        let kind = if dlv_go {
            OP_DLV
        } else if crd_go {
            OP_CRD
        } else if tmo_go {
            OP_TMO
        } else if wrote_go {
            OP_WROTE
        } else if send_go {
            OP_SEND
        } else if alloc_go {
            OP_ALLOC
        } else {
            OP_NONE
        };
        let app_ready = alloc_go || refuse_go || self.w_active || self.w_refuse;
        let ctx = || {
            format!(
                "cycle {t} (desc level {}, timer {})",
                p.desc_count, p.timer_valid
            )
        };
        if p.kind != kind {
            return Err(format!(
                "{}: op: expected kind {kind}, got {} (probe {p:?})",
                ctx(),
                p.kind
            ));
        }
        let readies = (app_ready, room && !dlv_conf, !dlv_go && !crd_conf);
        if (io.app_ready, io.dlv_ready, io.crd_ready) != readies {
            return Err(format!(
                "{}: ready (app, delivered, credit): expected {:?}, got {:?}",
                ctx(),
                readies,
                (io.app_ready, io.dlv_ready, io.crd_ready)
            ));
        }
        let mut op_id = None;
        match kind {
            OP_DLV => {
                let e = io.dlv.expect("dlv_go needs an event");
                check_event_probe(p, e.id, mask)
                    .map_err(|e| format!("{}: DELIVERED: {e}", ctx()))?;
                op_id = Some(e.id & mask);
                self.delivered(t, e.id, e.bits, e.below, e.claim);
            }
            OP_CRD => {
                let e = io.crd.expect("crd_go needs an event");
                check_event_probe(p, e.id, mask).map_err(|e| format!("{}: CREDIT: {e}", ctx()))?;
                op_id = Some(e.id & mask);
                self.credit(t, e.id, e.rtx, e.credit, e.allow, e.rank, e.claim);
            }
            OP_TMO => {
                op_id = Some(p.timer_id);
                self.timeout(t, p.timer_id, p.timer_meta, io.max_timeouts, io.timeout)?;
            }
            OP_WROTE => {
                let (id, gen, n) = self.wrote_pend.take().expect("wrote_go");
                if (p.id, p.gen, p.n) != (id, gen, n) {
                    return Err(format!(
                        "{}: WROTE: expected (id {id}, gen {gen}, n {n}), got (id {}, gen {}, n {})",
                        ctx(),
                        p.id,
                        p.gen,
                        p.n
                    ));
                }
                op_id = Some(id);
                if let Some(s) = self.live[id as usize] {
                    if self.messages[s].gen == gen {
                        self.messages[s].written = n;
                    }
                }
            }
            OP_SEND => {
                let id = pick.expect("send_go needs a pick");
                if p.id != id {
                    return Err(format!(
                        "{}: SEND: the send queue's head is id {id} (queue {:?}), got id {}",
                        ctx(),
                        self.sendq,
                        p.id
                    ));
                }
                op_id = Some(id);
                self.sendq.pop_front();
                self.queued[id as usize] = false;
                // A stale entry (its message freed, or left nothing to send) sends nothing.
                if self.live[id as usize].is_some_and(|s| self.messages[s].sendable()) {
                    self.send(t, id);
                } else {
                    self.stats.stale_sends += 1;
                }
            }
            OP_ALLOC => {
                let (id, gen) = offer_id.expect("alloc_go needs an id");
                let (class, buf) = offer_buf.expect("alloc_go needs a buffer");
                if (p.id, p.gen, p.class as usize, p.buf as u64) != (id, gen, class, buf) {
                    return Err(format!(
                        "{}: ALLOC: expected (id {id}, gen {gen}, class {class}, buffer {buf:#x}), got (id {}, gen {}, class {}, buffer {:#x})",
                        ctx(),
                        p.id,
                        p.gen,
                        p.class,
                        p.buf
                    ));
                }
                op_id = Some(id);
                let seq = self.alloc(io, id, gen, class, buf);
                // The first packet leaves with the ALLOC when the descriptor queue is
                // short, as a SEND would (the send queue is not touched).
                if p.desc_count <= SEND_ROOM && self.messages[seq].sendable() {
                    self.send(t, id);
                }
            }
            _ => {}
        }
        if refuse_go {
            self.refuse_pend = true;
            self.w_refuse = !io.app_last;
            self.stats.refused += 1;
            self.note(format!("{t}: refused a header of {hdr_len} bytes"));
        } else if self.refuse_pend && (!io.st_valid || io.st_ready) {
            self.refuse_pend = false;
            self.refusals_due += 1;
        }
        // The writer takes the application's data words.
        if io.app_valid && io.app_ready && !alloc_go && !refuse_go {
            if self.w_refuse {
                if io.app_last {
                    self.w_refuse = false;
                }
            } else if self.w_active {
                self.write_word(io.app_data);
                if io.app_last {
                    self.w_active = false;
                }
            }
        }
        // The head of the released slots may be taken next cycle when it stays the head
        // and is ready now.
        self.ret_ok = !(alloc_go && !fresh_before)
            && self
                .ret_ids
                .front()
                .is_some_and(|&(_, _, ready)| t >= ready);
        if let Some(id) = op_id {
            let sendable = self.live[id as usize].is_some_and(|s| self.messages[s].sendable());
            self.sq_due.push_back((t + 3, id, sendable));
        }
        self.inflight = [op_id, self.inflight[0], self.inflight[1]];
        self.history.push_back(self.counters);
        if self.history.len() > 5 {
            self.history.pop_front();
        }
        self.stats.max_alive = self.stats.max_alive.max(self.alive());
        Ok(())
    }

    fn write_word(&mut self, w: u64) {
        if self.w_left == 0 {
            return;
        }
        let seq = self.w_seq;
        self.messages[seq].words.push(w);
        self.w_left -= 1;
        self.w_in_pkt += 1;
        let m = &self.messages[seq];
        if self.w_in_pkt == WORDS_PER_PKT && self.w_pkts != m.total {
            self.w_in_pkt = 0;
            self.w_pkts += 1;
            self.wrote_pend = Some((m.id, m.gen, self.w_pkts));
        }
    }

    fn alloc(&mut self, io: &TxIo, id: u16, gen: u8, class: usize, buf: u64) -> usize {
        let t = io.now;
        if self.fresh_ids < self.n as u16 {
            self.fresh_ids += 1;
        } else {
            self.ret_ids.pop_front();
        }
        if self.ret_bufs[class].front() == Some(&buf) {
            self.ret_bufs[class].pop_front();
        } else {
            self.taken_bufs[class] += 1;
        }
        let len = (io.app_data & 0xffff) as u16;
        let total = (len as u64).div_ceil(PKT_BYTES) as u8;
        let seq = self.messages.len();
        self.messages.push(Msg {
            seq,
            id,
            gen,
            dst_ip: (io.app_data >> 32) as u32,
            dst_port: (io.app_data >> 16) as u16,
            src_port: io.app_src_port,
            len,
            total,
            class,
            buf,
            delivered: 0,
            txb: ones_until(total as u64),
            rtx: 0,
            credit: io.rtt_pkts,
            max_tx: 0,
            tcnt: 0,
            allow: true,
            rank: 0,
            written: 1,
            words: vec![],
            outcome: None,
            packets_sent: 0,
        });
        self.live[id as usize] = Some(seq);
        // The timer is armed when the op reaches S3, three cycles from now, with the
        // initial window as its rtx_offset.
        self.timers[id as usize] = Some(Armed {
            expiry: t + 3 + io.timeout as u64,
            meta: ((self.messages[seq].gen as u16) << 8) | io.rtt_pkts as u16,
            cancelled_at: None,
        });
        self.w_active = !io.app_last;
        self.w_seq = seq;
        self.w_left = (len as u64).div_ceil(8);
        self.w_in_pkt = 0;
        self.w_pkts = 1;
        self.stats.messages += 1;
        self.stats.multi_packet += (total > 1) as u64;
        self.stats.max_len = self.stats.max_len.max(len);
        self.note(format!(
            "{t}: ALLOC message {seq}: id {id}, {len} B ({total} packets), class {class}, buffer {buf:#x}"
        ));
        seq
    }

    /// Frees message `seq` (Alg. 2 line 4 / Alg. 4 line 4): cancels its timer and reports
    /// `code` once the descriptors before the release have been streamed.
    fn free(&mut self, t: u64, seq: usize, code: u8) {
        let id = self.messages[seq].id;
        self.live[id as usize] = None;
        if let Some(a) = self.timers[id as usize].as_mut() {
            a.cancelled_at = Some(t);
        }
        self.messages[seq].outcome = Some(code);
        self.exp_status.push_back((id, code, seq));
        if code as u64 == STATUS_DELIVERED {
            self.counters.completed = self.counters.completed.wrapping_add(1);
            self.stats.delivered += 1;
        } else {
            self.counters.given_up = self.counters.given_up.wrapping_add(1);
            self.stats.given_up += 1;
        }
        self.note(format!("{t}: free message {seq} (id {id}) code {code}"));
    }

    /// The alive message an event's `tx_msg_id` (`gen << 8 | slot`) is for: its slot must
    /// be alive and `gen` its message's generation.
    fn live_msg(&self, tx_msg_id: u16) -> Option<usize> {
        let slot = (tx_msg_id & 0xff) as usize;
        let s = if slot < self.n { self.live[slot] } else { None }?;
        (self.messages[s].gen == (tx_msg_id >> 8) as u8).then_some(s)
    }

    /// A dropped event for `tx_msg_id`, which [`Self::live_msg`] refused.
    fn bad(&mut self, t: u64, what: &str, tx_msg_id: u16) {
        self.counters.bad_events = self.counters.bad_events.wrapping_add(1);
        self.stats.bad_events += 1;
        let slot = (tx_msg_id & 0xff) as usize;
        match self.live.get(slot).copied().flatten() {
            Some(s) => {
                self.stats.stale_gen_events += 1;
                let gen = self.messages[s].gen;
                self.note(format!(
                    "{t}: {what} for {tx_msg_id:#x}: slot {slot} is at generation {gen}: stale, dropped"
                ));
            }
            None => self.note(format!(
                "{t}: {what} for {tx_msg_id:#x}, slot not alive: dropped"
            )),
        }
    }

    /// Whether an event of the live message `s` is about it and names only sent
    /// offsets (`bits`, and a cumulative `below`): otherwise it is counted and dropped.
    fn believed(
        &mut self,
        t: u64,
        what: &str,
        s: usize,
        claim: Claim,
        bits: u64,
        below: Option<u8>,
    ) -> bool {
        let m = &self.messages[s];
        let mine = Claim {
            peer_ip: m.dst_ip,
            peer_port: m.dst_port,
            local_port: m.src_port,
            msg_len: m.len,
        };
        let sent = ones_until(m.max_tx as u64);
        let id = m.id;
        if claim != mine {
            self.counters.bad_peer = self.counters.bad_peer.wrapping_add(1);
            self.stats.bad_peer += 1;
            self.note(format!(
                "{t}: {what} for id {id} claims {claim:?}, the message is {mine:?}: dropped"
            ));
            return false;
        }
        if bits & !sent != 0 || below.is_some_and(|n| n > m.max_tx) {
            self.counters.bad_offset = self.counters.bad_offset.wrapping_add(1);
            self.stats.bad_offset += 1;
            let mt = m.max_tx;
            self.note(format!("{t}: {what} for id {id} names offsets {bits:#x} below {below:?}, sent below {mt}: dropped"));
            return false;
        }
        true
    }

    /// Algorithm 2.
    fn delivered(&mut self, t: u64, id: u16, bits: u64, below: Option<u8>, claim: Claim) {
        self.stats.delivered_events += 1;
        let Some(s) = self.live_msg(id) else {
            return self.bad(t, "DELIVERED", id);
        };
        if !self.believed(t, "DELIVERED", s, claim, bits, below) {
            return;
        }
        let m = &mut self.messages[s];
        let mut ack = bits;
        if let Some(n) = below {
            ack |= ones_until(n as u64);
            self.stats.cumulative_events += 1;
        }
        m.delivered = (m.delivered | ack) & m.full();
        let done = m.delivered == m.full();
        let d = m.delivered;
        self.note(format!(
            "{t}: DELIVERED id {id} bits {bits:#x} below {below:?}: delivered {d:#x}"
        ));
        if done {
            self.free(t, s, STATUS_DELIVERED as u8);
        }
    }

    /// Algorithm 3 (allowTx kept as the message's state: it pauses or resumes sending).
    fn credit(
        &mut self,
        t: u64,
        id: u16,
        rtx: Option<u64>,
        credit: Option<u16>,
        allow: bool,
        rank: Option<u8>,
        claim: Claim,
    ) {
        self.stats.credit_events += 1;
        let Some(s) = self.live_msg(id) else {
            return self.bad(t, "CREDIT", id);
        };
        if !self.believed(t, "CREDIT", s, claim, rtx.unwrap_or(0), None) {
            return;
        }
        let m = &mut self.messages[s];
        if let Some(b) = rtx {
            m.txb |= b & m.full();
            self.stats.nack_events += 1;
        }
        if let Some(c) = credit {
            m.credit = c.min(255) as u8;
            if m.credit < m.max_tx {
                self.stats.credit_below_sent += 1;
            }
        }
        if let Some(r) = rank {
            m.rank = r;
            self.stats.rank_changes += 1;
        }
        if !allow {
            self.stats.pauses += 1;
        }
        m.allow = allow;
        let (txb, cr) = (m.txb, m.credit);
        self.note(format!(
            "{t}: CREDIT id {id} rtx {rtx:?} credit {credit:?} allow {allow} rank {rank:?}: txb {txb:#x} credit {cr}"
        ));
    }

    /// Algorithm 4, for the timer event `(id, meta)` the block took.
    fn timeout(
        &mut self,
        t: u64,
        id: u16,
        meta: u16,
        max_timeouts: u8,
        timeout: u32,
    ) -> Result<(), String> {
        let Some(a) = self.timers.get(id as usize).copied().flatten() else {
            return Err(format!(
                "cycle {t}: timer event for id {id}, which has no timer armed"
            ));
        };
        if let Some(c) = a.cancelled_at {
            // The cancel is still on its way down the pipeline: the event is dropped at S2.
            if c + 3 < t {
                return Err(format!(
                    "cycle {t}: timer event for id {id}, cancelled by the op of cycle {c}"
                ));
            }
        }
        if meta != a.meta {
            return Err(format!(
                "cycle {t}: timer event for id {id}: expected meta {:#x}, got {meta:#x}",
                a.meta
            ));
        }
        if t <= a.expiry {
            return Err(format!(
                "cycle {t}: timer event for id {id} before its expiry {}",
                a.expiry
            ));
        }
        self.stats.max_timer_late = self.stats.max_timer_late.max(t - a.expiry);
        self.timers[id as usize] = None;
        if a.cancelled_at.is_some() {
            return Ok(());
        }
        let Some(s) = self.live[id as usize] else {
            return Err(format!("cycle {t}: armed timer of id {id}, not alive"));
        };
        self.stats.timeouts += 1;
        let m = &mut self.messages[s];
        let rtx_offset = (meta & 0xff) as u8;
        if m.tcnt >= max_timeouts {
            let tc = m.tcnt;
            self.note(format!("{t}: TIMEOUT id {id}: gave up after {tc} timeouts"));
            self.free(t, s, STATUS_GAVE_UP as u8);
            return Ok(());
        }
        if m.max_tx > rtx_offset {
            m.tcnt = 0;
        } else {
            m.tcnt = m.tcnt.saturating_add(1);
            self.stats.timeouts_no_progress += 1;
        }
        let rtx = !m.delivered & ones_until(rtx_offset as u64) & m.full();
        m.rtx |= rtx;
        // Nothing to retransmit, message not done: probe with the first unsent packet.
        let probe = rtx == 0 && m.max_tx < m.total;
        if probe {
            m.rtx |= 1u64 << m.max_tx;
        }
        let (tc, rt, mx, gen) = (m.tcnt, m.rtx, m.max_tx, m.gen);
        if probe {
            self.counters.probes = self.counters.probes.wrapping_add(1);
            self.stats.probes += 1;
        }
        self.timers[id as usize] = Some(Armed {
            expiry: t + 3 + timeout as u64,
            meta: (gen as u16) << 8 | mx as u16,
            cancelled_at: None,
        });
        self.note(format!(
            "{t}: TIMEOUT id {id} rtx_offset {rtx_offset}: tcnt {tc}, queued {rt:#x}"
        ));
        Ok(())
    }

    /// Sends the lowest pending offset of message `id`.
    fn send(&mut self, t: u64, id: u16) {
        let s = self.live[id as usize].expect("picked ids are alive");
        let m = &mut self.messages[s];
        let off = m.pending().trailing_zeros() as u8;
        let bit = 1u64 << off;
        let is_rtx = off < m.max_tx;
        let from_timeout = m.rtx & bit != 0;
        m.txb &= !bit;
        m.rtx &= !bit;
        if !is_rtx {
            m.max_tx = off + 1;
        }
        m.packets_sent += 1;
        let words = if off + 1 == m.total {
            (m.len as u64 - off as u64 * PKT_BYTES).div_ceil(8)
        } else {
            WORDS_PER_PKT
        };
        let meta = TxMeta {
            remote_ip: m.dst_ip,
            remote_port: m.dst_port,
            msg_len: m.len,
            pkt_offset: off,
            local_port: m.src_port,
            tx_msg_id: (m.gen as u16) << 8 | id,
            credit: m.credit as u16,
            rank: m.rank,
            flags: nt_hdl::packetization::FLAG_DATA as u8,
            is_new_msg: off == 0 && !is_rtx,
            is_rtx,
        };
        self.exp_pkts.push_back(ExpPkt {
            seq: s,
            offset: off,
            words,
            meta,
        });
        self.counters.sent = self.counters.sent.wrapping_add(1);
        self.stats.packets += 1;
        if is_rtx {
            self.counters.retransmitted = self.counters.retransmitted.wrapping_add(1);
            self.stats.retransmissions += 1;
        }
        if from_timeout {
            self.stats.timeout_rtx += 1;
        }
        self.note(format!(
            "{t}: SEND message {s} (id {id}) offset {off}{}",
            if is_rtx { " (rtx)" } else { "" }
        ));
    }

    /// Checks the word on `source`, if one is taken.
    fn source(&mut self, io: &TxIo) -> Result<(), String> {
        let t = io.now;
        if io.src_valid && !io.src_ready {
            self.stats.source_stalls += 1;
        }
        if !(io.src_valid && io.src_ready) {
            return Ok(());
        }
        let Some(e) = self.exp_pkts.front().copied() else {
            return Err(format!(
                "cycle {t}: a word on source, but no packet was sent"
            ));
        };
        let total = HDR_WORDS + e.words;
        let b = self.beat;
        let m = &self.messages[e.seq];
        let data = if b < HDR_WORDS {
            0
        } else {
            let i = (e.offset as u64 * WORDS_PER_PKT + b - HDR_WORDS) as usize;
            match m.words.get(i) {
                Some(&w) => w,
                None => {
                    return Err(format!(
                        "cycle {t}: word {b} of message {} offset {} left before the application wrote it",
                        e.seq, e.offset
                    ))
                }
            }
        };
        let want = TxBeat {
            data,
            last: b + 1 == total,
            meta: e.meta,
        };
        if io.src != want {
            return Err(format!(
                "cycle {t}: source word {b} of {total} of message {} (id {}) offset {}:\n  expected {want:?}\n  got      {:?}",
                e.seq, m.id, e.offset, io.src
            ));
        }
        self.stats.words_out += 1;
        self.beat += 1;
        if b + 1 == total {
            self.beat = 0;
            self.exp_pkts.pop_front();
        }
        Ok(())
    }
}
