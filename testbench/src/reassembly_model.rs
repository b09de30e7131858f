//! Plain-Rust golden model (scoreboard) of the reassembly block (`nt_hdl::reassembly`).
//!
//! It is fed, cycle by cycle, what crossed the block's ports ([`RxCycle`], from
//! `nt_sim::rx_workload::RxDriver::observe`) and predicts, exactly:
//! * every `info_resp`: `fail`, `is_new_msg`, `is_new_pkt`, `is_last_pkt`, `ack_no`, and
//!   `rx_msg_id` of hits. The id of a new message is the block's choice; the model takes
//!   it and checks it is free (allocatable) in its own bookkeeping. Allocation fails when no
//!   id, no buffer (smallest fitting class with a free buffer, larger ones when it is
//!   exhausted) or no table place is free; table places are replicated exactly (way 0 slot,
//!   else way 1 slot, else the lowest free CAM entry; slots from
//!   [`nt_hdl::reassembly::slot_hashes`]);
//! * which frames the data port stores or drops, and so the delivered stream on `source`:
//!   each completed message in completion order, header word then its payload words, word
//!   for word, with `last` and `local_port`;
//! * the counters and the free-list levels, every cycle (`deliv_pending` within the few
//!   messages the delivery engine may have taken).
//!
//! Frees are the block's choice too: the model takes `stat.freed_*` and checks they are
//! legitimate (a delivery free follows the whole message into the output; a timeout free
//! frees an active, incomplete message not held by the data port, strictly more than
//! `timeout` cycles after its last request, and not much later — see [`LATE_SLACK`]).
//!
//! # Ordering (one op pipeline, effects at S2)
//! A request accepted in cycle `t` acts at `t+2`; a frame's data-port check at `b+2`
//! (`b` = cycle of its first beat: S0 takes it from the port in that cycle), or at `b+3`
//! when a request accepted at `b` or a release has S0 then; a free at `f`, the cycle
//! before it shows on
//! `stat.freed_*` (it shows from S3). Events are applied in that order. A free's table
//! deletion is seen by every later op; its id and buffer are allocatable from `f+3` on
//! (they are pushed into the free-list FIFOs in S3, a FIFO's head shows one cycle after
//! the push, and allocation reads them one stage before S2). A frame
//! whose check passed but that turns out malformed at its last beat releases its offset
//! (the block's UNRES op three cycles later; nothing can observe the difference). The
//! UNRES has S0 at `L+1`, so the next frame's check, if its first beat is at `L+1`,
//! waits a cycle. A one-beat frame, whose first beat is its last, gets no check at all
//! and is dropped and counted at its last beat.
use nt_hdl::reassembly::{
    done_index, is_late, slot_hashes, ReassemblyConfig, CAM_ENTRIES, HDR_WORDS, MAX_MSG_BYTES,
    PKT_BYTES,
};
use nt_sim::rx_workload::{AcceptedReq, RxCycle, RxFrame, RxResp};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

/// A lookup key `(src_ip, src_port, tx_msg_id)`.
pub type Key = (u32, u16, u16);

/// Slack of the timeout upper bound: a timeout free at `f` of a message last active at
/// `s` (its last request, or the end of a frame the data port held for it) must satisfy
/// `f <= s + timeout + N + LATE_SLACK + 2 * busy`, where `busy` counts the data-port
/// checks, releases and frees in between (each takes the op pipeline for a cycle and can
/// hold the timer's event back). The timer itself fires within `N` cycles of expiry.
pub const LATE_SLACK: u64 = 16;

/// Depth of the block's output FIFO: words of a message freed after delivery that may
/// still wait for `source.ready`.
pub const OUT_FIFO_WORDS: usize = 4;

/// Where a message's table entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    Way0(usize),
    Way1(usize),
    Cam(usize),
}

/// Why an allocation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocFail {
    NoId,
    NoBuffer,
    NoTableSlot,
}

/// One message instance: from allocation to free.
#[derive(Clone, Debug)]
pub struct Incarnation {
    pub key: Key,
    pub len: u16,
    pub id: u16,
    pub class: usize,
    pub loc: Loc,
    pub received: u64,
    pub stored: u64,
    pub alloc_s2: u64,
    pub last_req_s2: u64,
    /// S2 cycle of the last `msg_len` conflict, which expired the message at once (a
    /// later request with the stored length re-arms it: `last_req_s2` above).
    pub conflict_s2: Option<u64>,
    /// Held by the data port (its check passed, its last beat not yet in).
    pub held: bool,
    /// Last cycle a frame was held for it.
    pub hold_end: u64,
    /// The frame stored for each offset.
    pub frames: Vec<Option<Arc<RxFrame>>>,
    /// Cycle of the last beat that completed it.
    pub completed_at: Option<u64>,
    /// Cycle its last word left `source`.
    pub delivered_at: Option<u64>,
    /// (cycle, by timeout)
    pub freed: Option<(u64, bool)>,
}

impl Incarnation {
    /// When a timeout free of this message may come: after `.0`, and by `.1 + N +`
    /// [`LATE_SLACK`] `+ 2 * busy`. Normally `.0` is the last request's S2 plus `timeout`
    /// and `.1` the last activity (request or data-port hold) plus `timeout`. After a
    /// `msg_len` conflict newer than the last request, the timer was rescheduled to the
    /// conflict's cycle: `.0` is that cycle, and `.1` too, unless the data port held a
    /// frame for the message later (a timer event during a hold re-arms it with
    /// `timeout`).
    fn tmo_window(&self, timeout: u64) -> (u64, u64) {
        match self.conflict_s2 {
            Some(c) if c > self.last_req_s2 => {
                let base = if self.hold_end > c {
                    self.hold_end + timeout
                } else {
                    c
                };
                (c, base)
            }
            _ => (
                self.last_req_s2 + timeout,
                self.last_req_s2.max(self.hold_end) + timeout,
            ),
        }
    }
}

/// Counters as the block keeps them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub delivered: u32,
    pub duplicates: u32,
    pub alloc_fail: u32,
    pub timeouts: u32,
    pub bad_req: u32,
    pub len_conflicts: u32,
    pub bad_data: u32,
    pub late_dups: u32,
}

/// Coverage: what the run exercised.
#[derive(Clone, Debug, Default)]
pub struct ModelStats {
    pub requests: u64,
    pub trimmed: u64,
    pub hits: u64,
    pub new_msgs: u64,
    pub fail_bad: u64,
    pub fail_len_mismatch: u64,
    /// `msg_len` conflicts that expired an idle message.
    pub conflict_expiries: u64,
    pub fail_no_id: u64,
    pub fail_no_buffer: u64,
    pub fail_no_slot: u64,
    pub way1_inserts: u64,
    pub cam_inserts: u64,
    /// Allocations in a larger class than the smallest fitting one.
    pub class_fallbacks: u64,
    pub checks: u64,
    pub checks_ok: u64,
    pub frames_good: u64,
    pub frames_bad: u64,
    pub completed: u64,
    pub delivered: u64,
    pub words_out: u64,
    pub frees_dlv: u64,
    pub frees_tmo: u64,
    /// Requests answered as late duplicates of delivered messages.
    pub late_dups: u64,
    pub max_ids_in_use: usize,
    /// min over timeout frees of `f - (s + timeout)` (must be > 0).
    pub min_tmo_slack: Option<u64>,
    /// max over timeout frees of `f - (s + timeout)`.
    pub max_tmo_late: u64,
    /// Frees whose message had been held by the data port after its last request.
    pub tmo_after_hold: u64,
    /// Frames stored below an offset already stored for their message (reordering).
    pub ooo_stores: u64,
    /// Frames stored for a message other than the previous stored frame's, while that
    /// one was still incomplete (interleaving).
    pub interleaved_stores: u64,
    /// Most words of a message (and older ones) still waiting for `source.ready` when
    /// the block freed it after delivery (its output FIFO holds them).
    pub max_words_left_at_dlv_free: usize,
}

#[derive(Clone, Debug)]
struct FrameState {
    frame: Arc<RxFrame>,
    first: u64,
    checked: bool,
    ok: bool,
    complete: bool,
    inc: Option<usize>,
    ended: bool,
}

#[derive(Clone, Debug)]
enum Op {
    Req(AcceptedReq, u64),
    Check(u64),
}

#[derive(Clone, Debug)]
struct Delivery {
    inc: usize,
    words: Vec<(u64, bool, u16)>,
    next: usize,
    /// The original payload, when known, to compare byte for byte.
    payload: Option<Arc<Vec<u8>>>,
}

/// The scoreboard. See the module documentation.
pub struct ReassemblyModel {
    n: usize,
    slots: usize,
    classes: Vec<(u64, usize)>,
    total_bufs: usize,
    timeout: u64,
    conflict_idle: u64,
    // ---- state
    way0: Vec<Option<(Key, u16)>>,
    way1: Vec<Option<(Key, u16)>>,
    cam: [Option<(Key, u16)>; CAM_ENTRIES],
    ids: Vec<Option<usize>>,
    /// Not allocated and not pending.
    ids_idle: usize,
    class_idle: Vec<usize>,
    /// (allocatable from S2 cycle, id, class)
    pending: VecDeque<(u64, u16, usize)>,
    pub incs: Vec<Incarnation>,
    ops: BTreeMap<u64, Op>,
    frames: VecDeque<FrameState>,
    deliveries: VecDeque<Delivery>,
    /// Completed messages not yet freed, in completion order.
    dlv_order: VecDeque<usize>,
    busy: Vec<u64>,
    /// S2 cycle of the last op the model put there (a free must not share it).
    last_op_s2: Option<u64>,
    /// The cycle a release (UNRES) of a frame that failed at its last beat has S0.
    unres_s0: Option<u64>,
    /// The request in S2 this cycle allocated.
    alloc_now: bool,
    counters: Counters,
    payloads: HashMap<Key, Arc<Vec<u8>>>,
    trace: VecDeque<String>,
    cycle: u64,
    /// The table of delivered messages: entry → (key, S2 cycle of its free).
    done: HashMap<usize, (Key, u64)>,
    /// The incarnation of the last stored frame.
    last_stored: Option<usize>,
    /// Print every model event.
    pub verbose: bool,
    pub stats: ModelStats,
}

fn total_pkts(len: u64) -> u64 {
    len.div_ceil(PKT_BYTES)
}

fn full_mask(len: u64) -> u64 {
    let t = total_pkts(len).min(64);
    if t >= 64 {
        u64::MAX
    } else {
        (1u64 << t) - 1
    }
}

/// Payload words of packet `off` of a `len`-byte message, as the data port counts them
/// from the frame's metadata.
fn pkt_words(len: u64, off: u64) -> u64 {
    let total = total_pkts(len);
    let bytes = if total > 0 && off == total - 1 {
        len - off * PKT_BYTES
    } else {
        PKT_BYTES
    };
    bytes.div_ceil(8)
}

fn ack_no(received: u64, len: u64) -> u16 {
    let total = total_pkts(len);
    let scan = received | !full_mask(len);
    for i in 0..total {
        if scan & (1 << i) == 0 {
            return i as u16;
        }
    }
    total as u16
}

impl ReassemblyModel {
    /// A model of a block with `n` message ids, `2^slot_bits` slots per hash way, buffer
    /// classes `cfg` and inactivity timeout `timeout`.
    /// `conflict_idle` is the `cfg.conflict_idle` driven; at most `timeout`.
    pub fn new(
        n: usize,
        slot_bits: usize,
        cfg: &ReassemblyConfig,
        timeout: u64,
        conflict_idle: u64,
    ) -> Self {
        let slots = 1usize << slot_bits;
        let classes: Vec<(u64, usize)> = cfg
            .classes
            .iter()
            .map(|c| (c.bytes as u64, c.count as usize))
            .collect();
        let total_bufs = classes.iter().map(|c| c.1).sum();
        ReassemblyModel {
            n,
            slots,
            class_idle: classes.iter().map(|c| c.1).collect(),
            classes,
            total_bufs,
            timeout,
            conflict_idle,
            way0: vec![None; slots],
            way1: vec![None; slots],
            cam: [None; CAM_ENTRIES],
            ids: vec![None; n],
            ids_idle: n,
            pending: VecDeque::new(),
            incs: vec![],
            ops: BTreeMap::new(),
            frames: VecDeque::new(),
            deliveries: VecDeque::new(),
            dlv_order: VecDeque::new(),
            busy: vec![],
            last_op_s2: None,
            unres_s0: None,
            alloc_now: false,
            counters: Counters::default(),
            payloads: HashMap::new(),
            trace: VecDeque::new(),
            cycle: 0,
            last_stored: None,
            done: HashMap::new(),
            verbose: false,
            stats: ModelStats::default(),
        }
    }

    /// Original payloads by key: every delivered message is also compared with them.
    pub fn set_payloads(&mut self, p: HashMap<Key, Arc<Vec<u8>>>) {
        self.payloads = p;
    }

    /// The model's counters (as the block should show them one cycle later).
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Ids allocated now.
    pub fn ids_in_use(&self) -> usize {
        self.ids.iter().filter(|x| x.is_some()).count()
    }

    /// Total buffers over all classes.
    pub fn total_buffers(&self) -> usize {
        self.total_bufs
    }

    /// Completed messages whose words have not all left `source`.
    pub fn undelivered(&self) -> usize {
        self.deliveries.len()
    }

    fn log(&mut self, s: String) {
        if self.verbose {
            println!("model: {s}");
        }
        if self.trace.len() == 40 {
            self.trace.pop_front();
        }
        self.trace.push_back(s);
    }

    /// The last model events, for a failure message.
    pub fn recent(&self) -> String {
        self.trace
            .iter()
            .map(|s| format!("    {s}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn err(&self, signal: &str, expected: String, got: String, diagnosis: String) -> String {
        format!(
            "cycle {}: {signal}: expected {expected}, got {got}\n  diagnosis: {diagnosis}\n  recent model events (oldest first):\n{}",
            self.cycle,
            self.recent()
        )
    }

    fn slot0(&self, k: Key) -> usize {
        slot_hashes(k.0, k.1, k.2).0 as usize & (self.slots - 1)
    }

    fn slot1(&self, k: Key) -> usize {
        slot_hashes(k.0, k.1, k.2).1 as usize & (self.slots - 1)
    }

    fn lookup(&self, k: Key) -> Option<u16> {
        if let Some((kk, id)) = self.way0[self.slot0(k)] {
            if kk == k {
                return Some(id);
            }
        }
        if let Some((kk, id)) = self.way1[self.slot1(k)] {
            if kk == k {
                return Some(id);
            }
        }
        self.cam.iter().flatten().find(|e| e.0 == k).map(|e| e.1)
    }

    fn free_place(&self, k: Key) -> Option<Loc> {
        let s0 = self.slot0(k);
        if self.way0[s0].is_none() {
            return Some(Loc::Way0(s0));
        }
        let s1 = self.slot1(k);
        if self.way1[s1].is_none() {
            return Some(Loc::Way1(s1));
        }
        self.cam.iter().position(|e| e.is_none()).map(Loc::Cam)
    }

    fn release_pending(&mut self, s2: u64) {
        while let Some(&(at, _, class)) = self.pending.front() {
            if at > s2 {
                break;
            }
            self.pending.pop_front();
            self.ids_idle += 1;
            self.class_idle[class] += 1;
        }
    }

    fn pending_id(&self, id: u16) -> bool {
        self.pending.iter().any(|p| p.1 == id)
    }

    /// The class a new `len`-byte message gets, if any.
    fn class_for(&self, len: u64) -> Option<usize> {
        (0..self.classes.len()).find(|&c| self.classes[c].0 >= len && self.class_idle[c] > 0)
    }

    /// Processes one cycle of observations. Call it for every cycle, in order.
    pub fn step(&mut self, o: &RxCycle) -> Result<(), String> {
        self.cycle = o.cycle;
        let c = o.cycle;
        if o.reset {
            return Ok(());
        }
        // ---- counters: the registers show every event up to the previous cycle
        let got = Counters {
            delivered: o.stat.delivered,
            duplicates: o.stat.duplicates,
            alloc_fail: o.stat.alloc_fail,
            timeouts: o.stat.timeouts,
            bad_req: o.stat.bad_req,
            len_conflicts: o.stat.len_conflicts,
            bad_data: o.stat.bad_data,
            late_dups: o.stat.late_dups,
        };
        if got != self.counters {
            return Err(self.err(
                "stat counters",
                format!("{:?}", self.counters),
                format!("{got:?}"),
                "a counter differs from the events seen so far (counters show an event the cycle after it)".into(),
            ));
        }

        // ---- delivery FIFO level: every completed message not yet out, but the few the
        // engine has taken (one being read, the rest in the 4-word output FIFO)
        let waiting = self.deliveries.len();
        let dp = o.stat.deliv_pending as usize;
        if dp > waiting || dp + 4 < waiting {
            return Err(self.err(
                "stat.deliv_pending",
                format!("{}..={waiting}", waiting.saturating_sub(4)),
                dp.to_string(),
                format!("{waiting} completed messages have words not yet out"),
            ));
        }

        // ---- schedule this cycle's arrivals into the op pipeline
        if let Some(r) = o.req {
            self.schedule(c + 2, Op::Req(r, c))?;
        }
        if let Some(f) = &o.frame_first {
            self.frames.push_back(FrameState {
                frame: f.clone(),
                first: c,
                checked: false,
                ok: false,
                complete: false,
                inc: None,
                ended: false,
            });
            // A one-beat frame (first beat is also last) gets no check. The check has S0
            // in the cycle of the first beat unless a request accepted in it or a release
            // has S0 then; it waits a cycle behind them.
            if f.words.len() > 1 {
                let behind = o.req.is_some() || self.unres_s0 == Some(c);
                self.schedule(c + if behind { 3 } else { 2 }, Op::Check(f.seq))?;
            }
        }

        // ---- a free shows on `stat.freed_*` in S3: it was the op in S2 last cycle, before
        // this cycle's
        if o.stat.freed_valid {
            if self.last_op_s2 == Some(c - 1) {
                return Err(self.err(
                    "stat.freed_valid",
                    "no free (the model had another op in S2 last cycle)".into(),
                    format!("free of id {} (timeout {})", o.stat.freed_id, o.stat.freed_timeout),
                    "two ops in S2 in one cycle: the model's timing of requests/checks disagrees with the block".into(),
                ));
            }
            self.free(c - 1, o.stat.freed_id, o.stat.freed_timeout)?;
        }

        // ---- S2 of this cycle
        self.alloc_now = false;
        let op = self.ops.remove(&c);
        if op.is_some() {
            self.last_op_s2 = Some(c);
        }
        match op {
            Some(Op::Req(r, t)) => self.request(c, t, r, &o.resp)?,
            Some(Op::Check(seq)) => {
                self.check(c, seq)?;
                self.expect_no_resp(o)?;
            }
            None => self.expect_no_resp(o)?,
        }

        // ---- data port: the last beat of a frame
        if let Some(f) = &o.frame_last {
            self.last_beat(c, f)?;
        }

        // ---- source
        self.output(o)?;

        // ---- free-list levels (a free shows one cycle after `stat.freed_*`, an allocation
        // one cycle after its S2)
        let freed_now = o.stat.freed_valid as usize;
        let alloc_now = self.alloc_now as usize;
        let in_use = self.ids_in_use();
        self.stats.max_ids_in_use = self.stats.max_ids_in_use.max(in_use);
        let exp_ids = self.n - in_use - freed_now + alloc_now;
        if o.stat.ids_free as usize != exp_ids {
            return Err(self.err(
                "stat.ids_free",
                exp_ids.to_string(),
                o.stat.ids_free.to_string(),
                format!("{in_use} ids in use per the model, {freed_now} freed and {alloc_now} allocated this cycle"),
            ));
        }
        let bufs_in_use = in_use; // one buffer per message
        let exp_bufs = self.total_bufs - bufs_in_use - freed_now + alloc_now;
        if o.stat.bufs_free as usize != exp_bufs {
            return Err(self.err(
                "stat.bufs_free",
                exp_bufs.to_string(),
                o.stat.bufs_free.to_string(),
                format!("{bufs_in_use} buffers in use per the model, {freed_now} freed and {alloc_now} allocated this cycle"),
            ));
        }
        if c.is_multiple_of(64) {
            self.check_overdue(c)?;
        }
        Ok(())
    }

    fn schedule(&mut self, s2: u64, op: Op) -> Result<(), String> {
        if let Some(prev) = self.ops.get(&s2) {
            return Err(self.err(
                "op pipeline",
                format!("one op in S2 at cycle {s2}"),
                format!("{prev:?} and {op:?}"),
                "two ops would reach S2 in the same cycle: a request was accepted while the data port needed the pipeline".into(),
            ));
        }
        self.ops.insert(s2, op);
        Ok(())
    }

    fn expect_no_resp(&self, o: &RxCycle) -> Result<(), String> {
        let r = o.resp;
        if r != RxResp::default() {
            return Err(self.err(
                "info_resp",
                "valid = 0 and every field 0 (no request accepted 2 cycles ago)".into(),
                format!("{r:?}"),
                "a response without a request, or fields not zeroed while valid is low".into(),
            ));
        }
        Ok(())
    }

    fn request(&mut self, s: u64, t: u64, a: AcceptedReq, got: &RxResp) -> Result<(), String> {
        self.release_pending(s);
        let r = a.req;
        self.stats.requests += 1;
        self.stats.trimmed += !r.mark_received as u64;
        let key: Key = (r.src_ip, r.src_port, r.tx_msg_id);
        let len = r.msg_len as u64;
        let total = total_pkts(len);
        let valid = len != 0 && len <= MAX_MSG_BYTES && (r.pkt_offset as u64) < total;
        let hit = self.lookup(key);
        let mut exp = RxResp {
            valid: true,
            ..Default::default()
        };
        let what: String;
        let ctx = format!(
            "request accepted at {t} ({:?}): key {:08x}:{}:{} len {} off {} mark {}",
            a.origin,
            r.src_ip,
            r.src_port,
            r.tx_msg_id,
            r.msg_len,
            r.pkt_offset,
            r.mark_received as u8
        );
        if !valid {
            exp.fail = true;
            self.counters.bad_req += 1;
            self.stats.fail_bad += 1;
            what = "malformed: fail".into();
        } else if let Some(id) = hit {
            let ii = self.ids[id as usize].ok_or_else(|| {
                self.err(
                    "model",
                    "table entry of an active id".into(),
                    format!("id {id}"),
                    "model bookkeeping broken".into(),
                )
            })?;
            if self.incs[ii].len != r.msg_len {
                exp.fail = true;
                self.counters.len_conflicts += 1;
                self.stats.fail_len_mismatch += 1;
                // Expired only when idle for `conflict_idle` cycles (no request since).
                let idle = (s - self.incs[ii].last_req_s2) as u32;
                let expire = idle >= self.conflict_idle as u32;
                if expire {
                    self.incs[ii].conflict_s2 = Some(s);
                    self.stats.conflict_expiries += 1;
                }
                what = format!(
                    "hit id {id} with msg_len {} != stored {}: fail, idle {idle}, expire {expire}",
                    r.msg_len, self.incs[ii].len
                );
            } else {
                self.stats.hits += 1;
                let v = self.mark(ii, s, r.pkt_offset as u64, r.mark_received);
                exp = RxResp { rx_msg_id: id, ..v };
                what = format!("hit id {id}");
            }
        } else if let Some(f) = self.late_dup_of(key, s) {
            exp.is_last_pkt = true;
            exp.ack_no = total as u16;
            exp.done = true;
            self.counters.late_dups += 1;
            self.stats.late_dups += 1;
            what = format!("late duplicate of the message freed at S2 {f}: done");
        } else {
            // allocation
            let class = self.class_for(len);
            let place = self.free_place(key);
            let fail = if self.ids_idle == 0 {
                Some(AllocFail::NoId)
            } else if class.is_none() {
                Some(AllocFail::NoBuffer)
            } else if place.is_none() {
                Some(AllocFail::NoTableSlot)
            } else {
                None
            };
            if let Some(why) = fail {
                exp.fail = true;
                self.counters.alloc_fail += 1;
                match why {
                    AllocFail::NoId => self.stats.fail_no_id += 1,
                    AllocFail::NoBuffer => self.stats.fail_no_buffer += 1,
                    AllocFail::NoTableSlot => self.stats.fail_no_slot += 1,
                }
                what = format!(
                    "miss, allocation fails ({why:?}; idle ids {}, idle buffers per class {:?}, pending {})",
                    self.ids_idle,
                    self.class_idle,
                    self.pending.len()
                );
            } else {
                // The id is the block's choice: it must be idle in the model.
                let id = got.rx_msg_id;
                if !got.valid || got.fail || !got.is_new_msg {
                    let e = self.err(
                        "info_resp",
                        format!("a new message (is_new_msg = 1, fail = 0) [{ctx}]"),
                        format!("{got:?}"),
                        format!(
                            "the key is not in the table and an id (idle {}), a buffer of class {:?} (idle per class {:?}) and a table place {:?} are free",
                            self.ids_idle, class, self.class_idle, place
                        ),
                    );
                    return Err(e);
                }
                if id as usize >= self.n || self.ids[id as usize].is_some() || self.pending_id(id) {
                    let state = if id as usize >= self.n {
                        "out of range".to_string()
                    } else if let Some(ii) = self.ids[id as usize] {
                        format!(
                            "in use by key {:x?} since S2 {}",
                            self.incs[ii].key, self.incs[ii].alloc_s2
                        )
                    } else {
                        "freed less than 3 cycles before this S2".to_string()
                    };
                    return Err(self.err(
                        "info_resp.rx_msg_id",
                        "an idle id".into(),
                        format!("{id} ({state})"),
                        format!("[{ctx}] the block allocated an id that is not free"),
                    ));
                }
                let class = class.expect("a possible allocation has a class");
                let place = place.expect("a possible allocation has a table place");
                let smallest = (0..self.classes.len()).find(|&c| self.classes[c].0 >= len);
                if smallest != Some(class) {
                    self.stats.class_fallbacks += 1;
                }
                self.ids_idle -= 1;
                self.alloc_now = true;
                self.class_idle[class] -= 1;
                match place {
                    Loc::Way0(i) => self.way0[i] = Some((key, id)),
                    Loc::Way1(i) => {
                        self.way1[i] = Some((key, id));
                        self.stats.way1_inserts += 1;
                    }
                    Loc::Cam(i) => {
                        self.cam[i] = Some((key, id));
                        self.stats.cam_inserts += 1;
                    }
                }
                let ii = self.incs.len();
                self.incs.push(Incarnation {
                    key,
                    len: r.msg_len,
                    id,
                    class,
                    loc: place,
                    received: 0,
                    stored: 0,
                    alloc_s2: s,
                    last_req_s2: s,
                    conflict_s2: None,
                    held: false,
                    hold_end: 0,
                    frames: vec![None; total as usize],
                    completed_at: None,
                    delivered_at: None,
                    freed: None,
                });
                self.ids[id as usize] = Some(ii);
                self.stats.new_msgs += 1;
                let v = self.mark(ii, s, r.pkt_offset as u64, r.mark_received);
                exp = RxResp {
                    rx_msg_id: id,
                    is_new_msg: true,
                    ..v
                };
                what = format!("new id {id} class {class} at {place:?}");
            }
        }
        self.log(format!("S2 {s}: {ctx} -> {what}"));
        if *got != exp {
            return Err(self.err(
                "info_resp",
                format!("{exp:?}"),
                format!("{got:?}"),
                format!("[{ctx}] model: {what}"),
            ));
        }
        Ok(())
    }

    /// The free cycle of the delivered message that a request for `key` in S2 cycle `s`
    /// is a late duplicate of (its S1, `s - 1`, within `timeout` of the free): same
    /// sender and slot, whatever the context.
    fn late_dup_of(&self, key: Key, s: u64) -> Option<u64> {
        let (ip, _, txid) = key;
        let &((dip, _, did), f) = self.done.get(&done_index(ip, txid))?;
        // The block stores `freed + timeout` and takes the sign of `now - that` (32 bits):
        // the same as `age < timeout` for ages below 2^31.
        let fresh = ((s - 1).wrapping_sub(f).wrapping_sub(self.timeout) as u32) >= 1 << 31;
        (dip == ip && is_late(did, txid) && fresh).then_some(f)
    }

    /// Marks offset `off` of incarnation `ii` for a successful request in S2 cycle `s`.
    fn mark(&mut self, ii: usize, s: u64, off: u64, mark: bool) -> RxResp {
        let inc = &mut self.incs[ii];
        let bit = 1u64 << off;
        let was = inc.received & bit != 0;
        if mark {
            inc.received |= bit;
            if was {
                self.counters.duplicates += 1;
            }
        }
        inc.last_req_s2 = s;
        let full = full_mask(inc.len as u64);
        RxResp {
            valid: true,
            fail: false,
            rx_msg_id: 0,
            is_new_msg: false,
            is_new_pkt: !was,
            is_last_pkt: inc.received & full == full,
            ack_no: ack_no(inc.received, inc.len as u64),
            done: false,
        }
    }

    fn check(&mut self, c: u64, seq: u64) -> Result<(), String> {
        let Some(fi) = self.frames.iter().position(|f| f.frame.seq == seq) else {
            return Ok(()); // frame already gone (ended before its check)
        };
        self.stats.checks += 1;
        self.add_busy(c);
        let st = &self.frames[fi];
        if st.ended {
            // Ended before its check (a one-word frame): dropped, nothing else.
            self.frames.remove(fi);
            return Ok(());
        }
        let m = st.frame.meta;
        let key: Key = (m.remote_ip, m.remote_port, m.tx_msg_id);
        let off = m.pkt_offset as u64;
        let mut why = String::new();
        let inc = if (m.rx_msg_id as usize) < self.n {
            self.ids[m.rx_msg_id as usize]
        } else {
            why = "id out of range".into();
            None
        };
        let mut ok = false;
        let mut complete = false;
        if let Some(ii) = inc {
            let x = &self.incs[ii];
            let total = total_pkts(x.len as u64);
            if x.completed_at.is_some() {
                why = "message complete".into();
            } else if x.key != key || x.len != m.msg_len {
                why = "key or length mismatch".into();
            } else if off >= total {
                why = "offset out of range".into();
            } else if x.received & (1 << off) == 0 {
                why = "offset not marked received".into();
            } else if x.stored & (1 << off) != 0 {
                why = "offset already stored".into();
            } else {
                ok = true;
                let full = full_mask(x.len as u64);
                complete = (x.stored | (1 << off)) & full == full;
            }
        } else if why.is_empty() {
            why = "id not in use".into();
        }
        if ok {
            let ii = inc.expect("a passed check belongs to an incarnation");
            self.incs[ii].stored |= 1 << off;
            self.incs[ii].held = true;
            self.stats.checks_ok += 1;
        }
        let st = &mut self.frames[fi];
        st.checked = true;
        st.ok = ok;
        st.complete = complete;
        st.inc = inc;
        let first = st.first;
        self.log(format!(
            "S2 {c}: check frame #{seq} (first beat {first}) id {} off {off} {:?}: {}",
            m.rx_msg_id,
            self.frames[fi].frame.kind,
            if ok {
                format!("ok{}", if complete { ", completes" } else { "" })
            } else {
                format!("drop ({why})")
            }
        ));
        Ok(())
    }

    fn last_beat(&mut self, c: u64, f: &Arc<RxFrame>) -> Result<(), String> {
        let Some(fi) = self.frames.iter().position(|s| s.frame.seq == f.seq) else {
            return Err(self.err(
                "model",
                format!("frame #{} known", f.seq),
                "unknown".into(),
                "model bookkeeping broken".into(),
            ));
        };
        let m = f.meta;
        let off = m.pkt_offset as u64;
        let expected = HDR_WORDS + pkt_words(m.msg_len as u64, off);
        let st = self.frames[fi].clone();
        if !st.checked {
            // Only a one-word frame gets here (it has no check). It is dropped.
            self.frames[fi].ended = true;
            self.counters.bad_data += 1;
            self.stats.frames_bad += 1;
            self.log(format!(
                "L {c}: frame #{} ends before its check ({} words): dropped",
                f.seq,
                f.words.len()
            ));
            return Ok(());
        }
        self.frames.remove(fi);
        let good = st.ok && f.words.len() as u64 == expected;
        if let Some(ii) = st.inc.filter(|_| st.ok) {
            self.incs[ii].held = false;
            self.incs[ii].hold_end = c;
        }
        if good {
            self.stats.frames_good += 1;
            let ii = st.inc.expect("a checked frame belongs to an incarnation");
            if self.incs[ii].stored >> (off + 1) != 0 {
                self.stats.ooo_stores += 1;
            }
            if let Some(prev) = self.last_stored {
                if prev != ii
                    && self.incs[prev].completed_at.is_none()
                    && self.incs[prev].freed.is_none()
                {
                    self.stats.interleaved_stores += 1;
                }
            }
            self.last_stored = Some(ii);
            self.incs[ii].frames[off as usize] = Some(f.clone());
            if st.complete {
                self.incs[ii].completed_at = Some(c);
                self.stats.completed += 1;
                let x = &self.incs[ii];
                let mut words = vec![(
                    ((x.key.0 as u64) << 32) | ((x.key.1 as u64) << 16) | x.len as u64,
                    false,
                    m.local_port,
                )];
                for (k, fr) in x.frames.iter().enumerate() {
                    let fr = fr.as_ref().expect("complete message has every frame");
                    let n = pkt_words(x.len as u64, k as u64) as usize;
                    for w in &fr.words[HDR_WORDS as usize..HDR_WORDS as usize + n] {
                        words.push((*w, false, m.local_port));
                    }
                }
                words.last_mut().expect("a message has its header word").1 = true;
                let payload = self.payloads.get(&x.key).cloned();
                self.deliveries.push_back(Delivery {
                    inc: ii,
                    words,
                    next: 0,
                    payload,
                });
                self.dlv_order.push_back(ii);
            }
            self.log(format!(
                "L {c}: frame #{} stored (id {} off {off}){}",
                f.seq,
                m.rx_msg_id,
                if st.complete {
                    ", message complete"
                } else {
                    ""
                }
            ));
        } else {
            self.counters.bad_data += 1;
            self.stats.frames_bad += 1;
            if st.ok {
                let ii = st.inc.expect("a checked frame belongs to an incarnation");
                self.incs[ii].stored &= !(1 << off);
                self.incs[ii].hold_end = c + 3;
                self.add_busy(c + 3);
                self.unres_s0 = Some(c + 1);
            }
            self.log(format!(
                "L {c}: frame #{} dropped ({} words, {} expected, check {})",
                f.seq,
                f.words.len(),
                expected,
                if st.ok {
                    "ok: offset released"
                } else {
                    "failed"
                }
            ));
        }
        Ok(())
    }

    fn free(&mut self, f: u64, id: u16, timeout: bool) -> Result<(), String> {
        self.add_busy(f);
        let got = format!("free of id {id} (timeout {})", timeout as u8);
        let Some(ii) = self.ids.get(id as usize).copied().flatten() else {
            return Err(self.err(
                "stat.freed_id",
                "an id in use".into(),
                got,
                "the id is not allocated".into(),
            ));
        };
        let x = self.incs[ii].clone();
        if timeout {
            if x.completed_at.is_some() {
                return Err(self.err(
                    "stat.freed_timeout",
                    "no timeout free of a complete message".into(),
                    got,
                    format!("message {:x?} completed at {:?}", x.key, x.completed_at),
                ));
            }
            if x.held {
                return Err(self.err(
                    "stat.freed_timeout",
                    "no timeout free while the data port holds a frame for the message".into(),
                    got,
                    format!("message {:x?}", x.key),
                ));
            }
            let s = x.last_req_s2;
            let (lo, base) = x.tmo_window(self.timeout);
            if f <= lo {
                return Err(self.err(
                    "stat.freed_timeout",
                    format!("a timeout free after cycle {lo} (last request hit it at S2 {s}, timeout {}, msg_len conflict at {:?})", self.timeout, x.conflict_s2),
                    format!("{got} at cycle {f}, {} cycles early", lo + 1 - f),
                    format!(
                        "early timeout of message {:x?} (allocated at S2 {}): the timer's event was already on its way when the request at S2 {s} rescheduled it, or the reschedule was lost",
                        x.key, x.alloc_s2
                    ),
                ));
            }
            let slack = f.saturating_sub(lo);
            self.stats.min_tmo_slack =
                Some(self.stats.min_tmo_slack.map_or(slack, |m| m.min(slack)));
            if x.hold_end > s {
                self.stats.tmo_after_hold += 1;
            }
            let late = f.saturating_sub(base);
            self.stats.max_tmo_late = self.stats.max_tmo_late.max(late);
            let busy = self.busy_between(base, f);
            let bound = self.n as u64 + LATE_SLACK + 2 * busy;
            if late > bound {
                return Err(self.err(
                    "stat.freed_timeout",
                    format!("a timeout free by cycle {} (last activity + timeout {} = {base}, + N {} + {LATE_SLACK} + 2*{busy} busy; msg_len conflict at {:?})", base + bound, self.timeout, self.n, x.conflict_s2),
                    format!("{got} at cycle {f}"),
                    format!("late timeout of message {:x?}", x.key),
                ));
            }
            self.counters.timeouts += 1;
            self.stats.frees_tmo += 1;
        } else {
            if x.completed_at.is_none() {
                return Err(self.err(
                    "stat.freed_timeout",
                    "a timeout free (the message is not complete)".into(),
                    got,
                    format!("delivery free of incomplete message {:x?}", x.key),
                ));
            }
            if self.dlv_order.front() != Some(&ii) {
                return Err(self.err(
                    "stat.freed_id",
                    format!(
                        "delivery free of the oldest completed message {:?}",
                        self.dlv_order.front().map(|&i| self.incs[i].id)
                    ),
                    got,
                    "delivery frees out of completion order".into(),
                ));
            }
            // All its words must have been read into the output FIFO.
            let mut left = 0;
            if let Some(pos) = self.deliveries.iter().position(|d| d.inc == ii) {
                for d in self.deliveries.iter().take(pos + 1) {
                    left += d.words.len() - d.next;
                }
            }
            if left > OUT_FIFO_WORDS {
                return Err(self.err(
                    "stat.freed_id",
                    format!("the delivery free after the message's words are read (at most {OUT_FIFO_WORDS} waiting)"),
                    format!("{got} with {left} words of it and older messages not yet out"),
                    "buffer freed before delivery read it".into(),
                ));
            }
            self.stats.max_words_left_at_dlv_free = self.stats.max_words_left_at_dlv_free.max(left);
            self.dlv_order.pop_front();
            self.stats.frees_dlv += 1;
            // Remembered for late duplicates from the next op on.
            let (ip, _, txid) = x.key;
            self.done.insert(done_index(ip, txid), (x.key, f));
        }
        // table deletion: seen by the next op
        let ok = match x.loc {
            Loc::Way0(i) => self.way0[i].take().map(|e| e.0 == x.key),
            Loc::Way1(i) => self.way1[i].take().map(|e| e.0 == x.key),
            Loc::Cam(i) => self.cam[i].take().map(|e| e.0 == x.key),
        };
        if ok != Some(true) {
            return Err(self.err(
                "model",
                "table entry of the freed message".into(),
                format!("{ok:?}"),
                "model bookkeeping broken".into(),
            ));
        }
        self.ids[id as usize] = None;
        // Its id and buffer are pushed in S3 and show at the FIFO heads a cycle later, where
        // S1 may choose them for an op in S2 at `f + 3`.
        self.pending.push_back((f + 3, id, x.class));
        self.incs[ii].freed = Some((f, timeout));
        self.log(format!(
            "S2 {f}: free id {id} {:x?} ({})",
            x.key,
            if timeout { "timeout" } else { "delivered" }
        ));
        Ok(())
    }

    fn busy_between(&self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return 0;
        }
        (self.busy.partition_point(|&b| b <= hi) - self.busy.partition_point(|&b| b <= lo)) as u64
    }

    fn add_busy(&mut self, c: u64) {
        let i = self.busy.partition_point(|&b| b <= c);
        self.busy.insert(i, c);
    }

    fn output(&mut self, o: &RxCycle) -> Result<(), String> {
        let out = o.out;
        if !out.valid {
            if out.data != 0 || out.last || out.local_port != 0 {
                return Err(self.err(
                    "source",
                    "data, last, local_port 0 while valid is low".into(),
                    format!("{out:?}"),
                    "outputs not gated".into(),
                ));
            }
            return Ok(());
        }
        if !out.ready {
            return Ok(());
        }
        let Some(d) = self.deliveries.front_mut() else {
            return Err(self.err(
                "source",
                "no word (no completed message waiting)".into(),
                format!("{out:?}"),
                "an unexpected word on source".into(),
            ));
        };
        let (w, last, port) = d.words[d.next];
        let idx = d.next;
        let ii = d.inc;
        if (out.data, out.last, out.local_port) != (w, last, port) {
            let key = self.incs[ii].key;
            let id = self.incs[ii].id;
            return Err(self.err(
                "source",
                format!("word {idx} of message id {id} {key:x?}: data {w:016x} last {last} local_port {port}"),
                format!("data {:016x} last {} local_port {}", out.data, out.last, out.local_port),
                if idx == 0 { "wrong header or wrong message order".into() } else { format!("payload word {} of the message (packet {}, word {} in it)", idx - 1, (idx - 1) / 128, (idx - 1) % 128) },
            ));
        }
        d.next += 1;
        self.stats.words_out += 1;
        if last {
            let d = self
                .deliveries
                .pop_front()
                .expect("a last word follows a delivery");
            if let Some(p) = &d.payload {
                let mut bytes = vec![];
                for (w, _, _) in &d.words[1..] {
                    bytes.extend_from_slice(&w.to_be_bytes());
                }
                bytes.truncate(p.len());
                if bytes != **p {
                    let at = bytes
                        .iter()
                        .zip(p.iter())
                        .position(|(a, b)| a != b)
                        .unwrap_or(0);
                    return Err(self.err(
                        "source payload",
                        format!("the sender's payload of {:x?}", self.incs[ii].key),
                        format!("byte {at} differs"),
                        "the stored frames do not carry the sender's bytes (test bench fault?)"
                            .into(),
                    ));
                }
            }
            self.incs[ii].delivered_at = Some(o.cycle);
            self.counters.delivered += 1;
            self.stats.delivered += 1;
            self.log(format!(
                "{}: delivered id {} {:x?}",
                o.cycle, self.incs[ii].id, self.incs[ii].key
            ));
        }
        Ok(())
    }

    fn check_overdue(&self, c: u64) -> Result<(), String> {
        for ii in self.ids.iter().flatten() {
            let x = &self.incs[*ii];
            if x.completed_at.is_some() || x.held {
                continue;
            }
            let (_, base) = x.tmo_window(self.timeout);
            let r = x.last_req_s2.max(x.hold_end);
            let limit = base + self.timeout + self.n as u64 + 1000 + 2 * self.busy_between(base, c);
            if c > limit {
                return Err(self.err(
                    "stat.freed_valid",
                    format!(
                        "a timeout free of id {} {:x?} (last activity {r}, timeout {})",
                        x.id, x.key, self.timeout
                    ),
                    format!("none by cycle {c}"),
                    "the message was never freed by its timer".into(),
                ));
            }
        }
        Ok(())
    }

    /// End-of-run checks: nothing in flight, every completed message delivered and freed,
    /// every other message freed by its timer, all ids and buffers free.
    pub fn finish(&self, last: &RxCycle) -> Result<(), String> {
        if let Some((s2, op)) = self.ops.iter().next() {
            return Err(format!("end: op {op:?} still due at S2 {s2}"));
        }
        if !self.deliveries.is_empty() {
            let d = &self.deliveries[0];
            return Err(format!(
                "end: {} completed messages not delivered; the first, id {} {:x?} completed at {:?}, has {} of {} words out",
                self.deliveries.len(),
                self.incs[d.inc].id,
                self.incs[d.inc].key,
                self.incs[d.inc].completed_at,
                d.next,
                d.words.len()
            ));
        }
        for x in &self.incs {
            if x.freed.is_none() {
                return Err(format!(
                    "end: message id {} {:x?} (allocated at S2 {}, last request S2 {}, complete {:?}) never freed (leak)",
                    x.id, x.key, x.alloc_s2, x.last_req_s2, x.completed_at
                ));
            }
            if x.completed_at.is_some() && x.delivered_at.is_none() {
                return Err(format!(
                    "end: message {:x?} completed but not delivered",
                    x.key
                ));
            }
        }
        if last.stat.ids_free as usize != self.n || last.stat.bufs_free as usize != self.total_bufs
        {
            return Err(format!(
                "end: stat.ids_free {} (expected {}), stat.bufs_free {} (expected {})",
                last.stat.ids_free, self.n, last.stat.bufs_free, self.total_bufs
            ));
        }
        Ok(())
    }
}
