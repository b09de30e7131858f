//! Reassembly module (thesis §3.2.3, §3.3.2, Algorithm 1, Listings 3.1, 3.3, 3.4).
//!
//! Receives the packets of incoming messages, possibly out of order, duplicated or lost,
//! stores each into its message's buffer by offset and, once every packet of a message is
//! stored, streams the whole message to the application in order, led by the RX app
//! header. It owns all per-message receive state and frees it on delivery or timeout.
//!
//! ```text
//!                 ┌──────────── op pipeline (one op per cycle, in order) ───────────────┐
//!  info_req ─────►│ S0 arbitrate   S1 table compare,     S2 row read-modify-write,      │──► info_resp
//!  (Listing 3.3)  │ + hash, read   allocate id/buffer,   response, timer command,       │   (Listing 3.4)
//!                 │ table ways     insert, read row      free                           │
//!                 └───▲──────────────▲──────────────────────────┬───────────────────────┘
//!  sink (frame +      │ CHECK/UNRES  │ FREE (delivered/timeout) │ timer cmd
//!  Listing 3.1) ──► data port ──► buffer RAM ──► delivery engine ──► source (app header,
//!                     │  writes by offset           ▲  reads in order      payload words)
//!                     └── complete ─► delivery FIFO ┘
//! ```
//!
//! # Interfaces
//! * `info_req` / `info_resp`: the `GetRxMsgInfo` extern. A request accepted in cycle `t`
//!   (`valid & ready`) is answered by `info_resp.valid` in cycle `t+2`, without
//!   backpressure. `ready` is a register function and drops for a cycle while the data
//!   port (a check that waited, a release) or a timer event needs the op pipeline, for
//!   the cycle after a free (a delivery's or a timer event's) entered it, for the cycle
//!   after that when it was a delivery's, and for the cycle after a request entered it:
//!   so a request never looks up the table in the cycle a free deletes from it or the
//!   previous request's allocation is carried out (stage 2 pops the free lists and
//!   inserts the key), never reads the table of delivered messages in the cycle a free
//!   writes it, and stage 1 reads the table's state from registers only. A delivery's
//!   free waiting for the pipeline does not hold a request back (the free goes after
//!   it). Requests are accepted at most every other cycle; a packet takes at least 8
//!   cycles on the wire, so this never limits line rate.
//!   - lookup key `(src_ip, src_port, tx_msg_id)`, exact match: two senders never alias.
//!   - `mark_received = 0` (trimmed packets) reads the state without setting the bit.
//!   - an unknown key allocates an `rx_msg_id`, a buffer and a table entry
//!     (`is_new_msg = 1`); `fail = 1` when any of them is exhausted (`stat.alloc_fail`),
//!     or when the request is malformed: `msg_len` 0 or above [`MAX_MSG_BYTES`], or
//!     `pkt_offset` not below the message's packet count (`stat.bad_req`). A failed
//!     request changes nothing, except a `msg_len` conflict:
//!   - a request whose key is an active message's but whose `msg_len` differs from the
//!     stored one fails (`stat.len_conflicts`). A key has one `msg_len`: one of the two
//!     claims is a forged frame or a stale entry. If the message has had no request for
//!     `cfg.conflict_idle` cycles, it is expired at once (its timer rescheduled to the
//!     current cycle, so the timer frees it within `N` cycles, unless a request with the
//!     stored length refreshes it first); otherwise nothing changes. The NIC sets
//!     `conflict_idle` to twice the sender's retransmission timeout: a live sender
//!     refreshes its message at least once a timeout (a retransmission or a probe), so
//!     a message whose packets were acknowledged is never expired under it (expiring it
//!     would lose those packets silently: the sender takes them as delivered), while a
//!     bogus entry that blocks a real sender (whose conflicting packets do not refresh
//!     it) is expired on that sender's first retransmission after `conflict_idle`, within
//!     its retry window when `max_retries >= 3`, and the next retransmission allocates
//!     afresh.
//!   - `ack_no` is the smallest offset not yet received after marking (the packet count
//!     when all are received); `is_last_pkt` is "every bit of receivedBitmap is set".
//! * `sink`: the packet that the ingress pipeline passes on, as the parser sends it:
//!   64-bit words, first the [`HDR_WORDS`] words of the transport header's end and its
//!   padding (frame words 5-7, skipped), then the payload, `last` on the final word;
//!   Listing 3.1 metadata beside the first beat (it is read from `sink` in that cycle).
//!   The payload is stored when the message is active, the key and `msg_len` match, the
//!   offset is in range, the extern has marked the offset received and it is not stored
//!   yet; and only if the frame has exactly the expected number of words. Any other
//!   frame is dropped and counted (`stat.bad_data`), including one-beat frames. The
//!   check takes stage 0 in the cycle of the first beat, and is done in time for beat
//!   [`HDR_WORDS`]; when a request accepted in that cycle or the previous frame's release
//!   has stage 0, the check goes a cycle later and `ready` drops for one cycle before
//!   beat [`HDR_WORDS`]. Otherwise `ready` is high for every frame of at least
//!   [`HDR_WORDS`]+1 words; inside shorter frames it drops until their check is done (a
//!   last beat waits for it). Listing 3.1's `is_last_pkt` is not
//!   taken: a message is complete when every one of its packets is *stored*, so a packet
//!   that was marked received but whose frame never arrived (the caller dropped it) makes
//!   the message time out instead of being delivered with a hole. `local_port` is taken
//!   from the frame that completes the message.
//! * Late duplicates. A message freed after delivery is remembered in a table of
//!   [`DONE_ENTRIES`] entries ([`done_index`]: sender address and the low byte of
//!   `tx_msg_id`, the sender's slot) with the cycle it was freed plus `cfg.timeout`
//!   (low 32 bits; an entry counts as young while `now` is before that, in serial
//!   arithmetic, so one freed more than 2^31 cycles ago may look young again; the slot's
//!   next message has a newer generation and is never taken for its duplicate). Our
//!   senders number
//!   messages `tx_msg_id = gen << 8 | slot`, a slot's generation growing by one per
//!   message whatever its context (`crate::packetization`). A request with no active
//!   message whose sender and slot match an entry's, whose generation is not newer than
//!   the entry's (`entry_gen - gen` in `0..128`, serial arithmetic), and which comes
//!   within `cfg.timeout` cycles of that free, is a late duplicate: answered with
//!   `done = 1`, `is_last_pkt = 1`, `ack_no` = the packet count, and nothing changes
//!   (`stat.late_dups`). So a retransmission whose acknowledgements were lost is
//!   acknowledged again instead of being delivered a second time. The rule needs a
//!   sender to start fewer than 128 incarnations of a slot within `cfg.timeout` cycles:
//!   ours wait `rx_timeout / 125` cycles before reusing a released slot. Two senders
//!   sharing an entry evict each other; a late duplicate that finds its entry evicted or
//!   expired allocates a new message, which is delivered again only if every packet of
//!   it is retransmitted. A sender must not reuse a (slot, generation) within
//!   `cfg.timeout` cycles for a new message (a restarted NIC waits that long).
//! * `source`: delivered messages: the RX app header word
//!   `src_ip[63:32] | src_context[31:16] | msg_len[15:0]`, then `ceil(msg_len/8)` payload
//!   words (network byte order, first byte in bits 63:56), `last` on the final word and
//!   the message's `local_port` beside every word. Messages leave in the order they
//!   completed.
//! * `stat`: counters and free-list levels; `freed_*` pulses once per freed message, the
//!   cycle after the free took effect in the op pipeline (its id and buffer return to the
//!   free lists then, and a new request can have them from the cycle after).
//! * `cfg.timeout`: cycles of inactivity after which a message is dropped (Alg. 1's
//!   ingress timer: scheduled on the first packet, rescheduled on each request, cancelled
//!   when the message is freed after delivery; expiry frees everything the message held).
//!   Must be below 2^31. A message is freed by its timer no earlier than `timeout + 1`
//!   cycles after its last request took effect, and `timeout + N + 4` at most while the op
//!   pipeline has nothing else to do (each cycle the event waits behind a data-port op or a
//!   free adds one); never while a frame of it is in the data port (the timer is re-armed)
//!   and never once it is complete. A timer event that raced a request
//!   (the timer fired before the request's reschedule reached it) is recognised from the
//!   expiry stored with the message, and the timer is re-armed instead.
//! * `now`: the free-running cycle counter shared with the rest of the NIC; it must count
//!   up by one a cycle. The block registers it and runs a cycle behind it (every time it
//!   keeps is relative, so nothing changes but that no path starts at a 64-bit add of the
//!   port); its commands reach the timer a cycle after stage 2, from registers.
//!
//! # Latency and throughput (cycles)
//! * `GetRxMsgInfo`: 2.
//! * Last word of a completing packet in (cycle `L`) → app header on `source`: `L+2`;
//!   payload follows without gaps while `source.ready` is high.
//! * Sustains one input word per cycle: back-to-back 65-byte single-packet messages
//!   (9 words in, 2 words out each) never stall the input.
//!
//! # Output backpressure
//! While `source` is stalled, completed messages wait in the delivery FIFO (one entry per
//! message id, so it cannot overflow) holding their ids and buffers. Inputs are never
//! stalled by it: new messages keep being accepted until ids or buffers run out; then
//! their requests fail (`fail = 1`, counted in `stat.alloc_fail`), so the sender's
//! timeout recovers them. Timeouts never free a message that is complete.
//!
//! # Parameters
//! * `A` id bits, `N = 2^A` concurrent messages, `C = A+1`.
//! * `SA` table slot bits, `S = 2^SA` slots in each of the two hash ways (build uses
//!   `SA = A+2`, i.e. 4 slots per message per way), plus a [`CAM_ENTRIES`]-entry CAM.
//! * `BW` buffer word-address bits; the size classes of [`ReassemblyConfig`] must fit in
//!   `2^BW` 64-bit words.
use crate::fifo::Fifo;
use crate::timer::{ScanningTimer, OP_CANCEL, OP_RESCHEDULE, OP_SCHEDULE};
use rust_hdl::prelude::*;

/// Header words leading every frame on `sink`: frame words 5-7 (the rest of the transport
/// header and its padding), since the parser does not send words 0-4
/// ([`crate::parser::SKIP_WORDS`]).
pub const HDR_WORDS: u64 = 8 - crate::parser::SKIP_WORDS;
/// Payload bytes in every packet but a message's last (the MTU payload).
pub const PKT_BYTES: u64 = 1024;
/// Packets per message at most (width of the bitmaps).
pub const MAX_PKTS: usize = 38;
/// Largest message in bytes.
pub const MAX_MSG_BYTES: u64 = MAX_PKTS as u64 * PKT_BYTES;
/// Entries of the overflow CAM beside the two hash ways.
pub const CAM_ENTRIES: usize = 4;
pub use crate::pool::{BufferConfig, SizeClass, MAX_CLASSES};

/// Buffer configuration of a reassembly module (size classes; see [`BufferConfig`]).
pub type ReassemblyConfig = BufferConfig;

impl BufferConfig {
    /// Default for 16 messages: 8 × 256 B, 8 × 2 KiB, 4 × 8 KiB, 4 × 38 KiB (202 KiB).
    pub fn n16() -> Self {
        Self::from_pairs(&[(256, 8), (2048, 8), (8192, 4), (38912, 4)])
    }

    /// Default for 128 messages: 64 × 256 B, 32 × 2 KiB, 32 × 8 KiB, 16 × 38 KiB (944 KiB).
    pub fn n128() -> Self {
        Self::from_pairs(&[(256, 64), (2048, 32), (8192, 32), (38912, 16)])
    }

    /// The FPGA build of 16 messages ([`crate::nic::NicNdpFpga`]): 8 × 256 B, 8 × 2 KiB,
    /// 4 × 8 KiB, 2 × 38 KiB (126 KiB, in 2^14 buffer words): [`Self::n16`] with two
    /// 38 KiB buffers instead of four, so that each direction's buffer RAM is half as deep
    /// and the whole NIC fits the block RAM of an ECP5-85F.
    pub fn fpga16() -> Self {
        Self::from_pairs(&[(256, 8), (2048, 8), (8192, 4), (38912, 2)])
    }
}

/// The two hash-way slot hashes of a key (16 bits each; a way uses the low `SA` bits).
///
/// Way 0 XOR-folds the key; way 1 adds (with carries) `tx_msg_id` to a differently rotated
/// fold of the sender, so that keys colliding in one way rarely collide in the other.
pub fn slot_hashes(src_ip: u32, src_port: u16, tx_msg_id: u16) -> (u16, u16) {
    let hi = (src_ip >> 16) as u16;
    let lo = src_ip as u16;
    let h0 = hi ^ lo ^ src_port ^ tx_msg_id;
    let sender = hi.rotate_left(5) ^ lo ^ src_port.rotate_left(9);
    let h1 = tx_msg_id.wrapping_add(sender);
    (h0, h1)
}

/// `GetRxMsgInfo` request (Listing 3.3).
#[derive(LogicInterface, Default)]
pub struct RxInfoReq {
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    /// Set the packet's bit in receivedBitmap (0 for trimmed packets).
    pub mark_received: Signal<In, bool>,
    pub src_ip: Signal<In, Bits<32>>,
    pub src_port: Signal<In, Bits<16>>,
    pub tx_msg_id: Signal<In, Bits<16>>,
    pub msg_len: Signal<In, Bits<16>>,
    pub pkt_offset: Signal<In, Bits<8>>,
}

/// `GetRxMsgInfo` response (Listing 3.4), two cycles after the request. All fields are 0
/// while `valid` is low.
#[derive(LogicInterface, Default)]
pub struct RxInfoResp {
    pub valid: Signal<Out, bool>,
    pub fail: Signal<Out, bool>,
    pub rx_msg_id: Signal<Out, Bits<16>>,
    pub is_new_msg: Signal<Out, bool>,
    pub is_new_pkt: Signal<Out, bool>,
    pub is_last_pkt: Signal<Out, bool>,
    pub ack_no: Signal<Out, Bits<9>>,
    /// A late duplicate of a message already delivered (`fail` is 0, `is_last_pkt` 1,
    /// `ack_no` the packet count, `rx_msg_id` 0; nothing changes).
    pub done: Signal<Out, bool>,
}

/// Packet stream from the ingress pipeline with its Listing 3.1 metadata, which is read on
/// the first beat of each frame.
#[derive(LogicInterface, Default)]
pub struct RxPktSink {
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub data: Signal<In, Bits<64>>,
    pub last: Signal<In, bool>,
    pub remote_ip: Signal<In, Bits<32>>,
    pub remote_port: Signal<In, Bits<16>>,
    pub msg_len: Signal<In, Bits<16>>,
    pub pkt_offset: Signal<In, Bits<8>>,
    pub local_port: Signal<In, Bits<16>>,
    pub rx_msg_id: Signal<In, Bits<16>>,
    pub tx_msg_id: Signal<In, Bits<16>>,
}

/// Delivered-message stream to the application. `data`, `last` and `local_port` are 0
/// while `valid` is low.
#[derive(LogicInterface, Default)]
pub struct RxMsgSource {
    pub valid: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
    pub data: Signal<Out, Bits<64>>,
    pub last: Signal<Out, bool>,
    pub local_port: Signal<Out, Bits<16>>,
}

/// Runtime configuration.
#[derive(LogicInterface, Default)]
pub struct ReassemblyCfg {
    /// Inactivity timeout in cycles.
    pub timeout: Signal<In, Bits<32>>,
    /// Cycles without a request after which a `msg_len` conflict expires a message.
    pub conflict_idle: Signal<In, Bits<32>>,
}

/// Counters (wrapping) and free-list levels.
#[derive(LogicInterface, Default)]
pub struct ReassemblyStats {
    /// Messages whose last word left `source`.
    pub delivered: Signal<Out, Bits<32>>,
    /// Marking requests for an offset already received.
    pub duplicates: Signal<Out, Bits<32>>,
    /// Requests that failed because no id, buffer or table entry was free.
    pub alloc_fail: Signal<Out, Bits<32>>,
    /// Messages freed by the ingress timer.
    pub timeouts: Signal<Out, Bits<32>>,
    /// Malformed requests (answered with `fail`).
    pub bad_req: Signal<Out, Bits<32>>,
    /// Requests whose key is an active message's but whose `msg_len` differs (answered
    /// with `fail`; the message's entry is expired at once, see `info_req`).
    pub len_conflicts: Signal<Out, Bits<32>>,
    /// Frames dropped by the data port.
    pub bad_data: Signal<Out, Bits<32>>,
    /// Requests recognised as late duplicates of delivered messages.
    pub late_dups: Signal<Out, Bits<32>>,
    /// Free message ids.
    pub ids_free: Signal<Out, Bits<16>>,
    /// Free buffers over all classes.
    pub bufs_free: Signal<Out, Bits<16>>,
    /// Completed messages waiting for the delivery engine.
    pub deliv_pending: Signal<Out, Bits<16>>,
    /// A message was freed this cycle (pulse).
    pub freed_valid: Signal<Out, bool>,
    pub freed_id: Signal<Out, Bits<16>>,
    /// ... by its timer rather than after delivery.
    pub freed_timeout: Signal<Out, bool>,
}

/// A hash-way slot.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct TableRow {
    pub src_ip: Bits<32>,
    pub src_port: Bits<16>,
    pub tx_msg_id: Bits<16>,
    pub rx_id: Bits<16>,
}

/// Per-message state, indexed by rx_msg_id.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct MsgRow {
    pub received: Bits<MAX_PKTS>,
    pub stored: Bits<MAX_PKTS>,
    pub src_ip: Bits<32>,
    pub src_port: Bits<16>,
    pub tx_msg_id: Bits<16>,
    pub msg_len: Bits<16>,
    pub buf_addr: Bits<24>,
    pub size_class: Bits<2>,
    /// 0: hash way 0, 1: hash way 1, 2: CAM.
    pub loc_kind: Bits<2>,
    pub loc_index: Bits<16>,
    pub gen: Bits<16>,
    /// Low 32 bits of the expiry cycle set by the last request: a timer event that raced
    /// a request (fired before the request's reschedule reached the timer) is recognised.
    pub expiry_lo: Bits<32>,
}

/// A message delivered and freed, remembered so that a late duplicate of it is
/// recognised (see "Late duplicates" in the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct DoneEntry {
    pub used: bool,
    pub src_ip: Bits<32>,
    pub tx_msg_id: Bits<16>,
    /// Low 32 bits of the cycle it was freed plus `cfg.timeout`: a request is its late
    /// duplicate while `now - until_lo` is negative (serial arithmetic).
    pub until_lo: Bits<32>,
}

/// Address bits of the table of delivered messages ([`DONE_ENTRIES`] entries).
pub const DONE_BITS: usize = 8;
/// Entries of the table of delivered messages.
pub const DONE_ENTRIES: usize = 1 << DONE_BITS;

/// The entry of the table of delivered messages that a message uses:
/// `(src_ip << 4 ^ tx_msg_id) & 0xff`, by sender address and slot (`tx_msg_id & 0xff`),
/// not by context: a sender's slot is one sequence of generations whatever the context
/// of each message. One sender's slots never share an entry; senders whose addresses
/// differ in their low nibble never share one while their slots are below 16.
pub fn done_index(src_ip: u32, tx_msg_id: u16) -> usize {
    (((src_ip as u8) << 4) ^ (tx_msg_id as u8)) as usize
}

/// Whether a request for `tx_msg_id` is a late duplicate of the delivered message
/// `done_id` of the same sender and slot: the generations (high bytes) compare in serial
/// arithmetic, `done_gen - gen` in `0..128`.
pub fn is_late(done_id: u16, tx_msg_id: u16) -> bool {
    (done_id as u8 == tx_msg_id as u8)
        && ((done_id >> 8) as u8).wrapping_sub((tx_msg_id >> 8) as u8) < 128
}

/// A completed message waiting for the delivery engine.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct DeliveryEntry {
    pub rx_id: Bits<16>,
    pub src_ip: Bits<32>,
    pub src_port: Bits<16>,
    pub msg_len: Bits<16>,
    pub buf_addr: Bits<24>,
    pub local_port: Bits<16>,
}

/// A word on its way to `source`.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct OutWord {
    pub data: Bits<64>,
    pub last: bool,
    pub local_port: Bits<16>,
}

// The HDL kernel indexes arrays with literal expressions (`3 - i`, `37 - i`); these pin
// the constants they assume.
const _: () = assert!(CAM_ENTRIES == 4 && MAX_CLASSES == 4 && MAX_PKTS == 38);

// Delivery engine states (rust-hdl's enum registers are not width-exact in Verilog).
const ST_IDLE: u64 = 0;
const ST_STREAM: u64 = 1;
const ST_DONE: u64 = 2;

// Op kinds in the pipeline.
const K_NONE: u64 = 0;
const K_REQ: u64 = 1;
const K_CHECK: u64 = 2;
const K_UNRES: u64 = 3;
const K_FREE_DLV: u64 = 4;
const K_FREE_TMO: u64 = 5;

/// The reassembly module. See the module documentation.
#[derive(LogicBlock)]
pub struct Reassembly<
    const A: usize,
    const N: usize,
    const C: usize,
    const SA: usize,
    const S: usize,
    const BW: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub now: Signal<In, Bits<64>>,
    pub cfg: ReassemblyCfg,
    pub info_req: RxInfoReq,
    pub info_resp: RxInfoResp,
    pub sink: RxPktSink,
    pub source: RxMsgSource,
    pub stat: ReassemblyStats,

    // ---- storage
    way0: RAM<TableRow, SA>,
    way1: RAM<TableRow, SA>,
    used0: DFF<Bits<S>>,
    used1: DFF<Bits<S>>,
    cam_used: DFF<Bits<CAM_ENTRIES>>,
    cam_ip: [DFF<Bits<32>>; CAM_ENTRIES],
    cam_port: [DFF<Bits<16>>; CAM_ENTRIES],
    cam_txid: [DFF<Bits<16>>; CAM_ENTRIES],
    cam_id: [DFF<Bits<16>>; CAM_ENTRIES],
    rows: RAM<MsgRow, A>,
    done_tab: RAM<DoneEntry, DONE_BITS>,
    s1_didx: DFF<Bits<DONE_BITS>>,
    s2_done: DFF<bool>,
    cnt_late: DFF<Bits<32>>,
    cnt_conflict: DFF<Bits<32>>,
    /// The late-duplicate check on the table's entry (no request is in S0 while a
    /// delivery's free writes the table in S2, so the RAM's entry is never stale).
    d_txid: Signal<Local, Bits<16>>,
    d_gap: Signal<Local, Bits<8>>,
    d_age: Signal<Local, Bits<32>>,
    d_hit: Signal<Local, bool>,
    dwr_ip: Signal<Local, Bits<32>>,
    dwr_txid: Signal<Local, Bits<16>>,
    sh4: Constant<Bits<4>>,
    active: DFF<Bits<N>>,
    delivering: DFF<Bits<N>>,
    buffer: RAM<Bits<64>, BW>,
    timer: ScanningTimer<A, N, 16>,
    id_fifo: Fifo<Bits<A>, A, C>,
    id_fresh: DFF<Bits<C>>,
    class_fifo: [Fifo<Bits<24>, A, C>; MAX_CLASSES],
    class_fresh_off: [DFF<Bits<24>>; MAX_CLASSES],
    class_taken: [DFF<Bits<C>>; MAX_CLASSES],
    /// A request's checks made in S0 from its own fields, for S1: it fits size class `i`;
    /// it is well formed (`msg_len` in `1..=MAX_MSG_BYTES`, `pkt_offset` below its count).
    s1_fits: [DFF<bool>; MAX_CLASSES],
    s1_vreq: DFF<bool>,
    s1_voff: DFF<bool>,
    s0_off_bytes: Signal<Local, Bits<16>>,
    sh10: Constant<Bits<5>>,
    zero_2: Constant<Bits<2>>,
    class_bytes: [Constant<Bits<16>>; MAX_CLASSES],
    class_base: [Constant<Bits<24>>; MAX_CLASSES],
    class_words: [Constant<Bits<24>>; MAX_CLASSES],
    class_count: [Constant<Bits<C>>; MAX_CLASSES],
    class_code: [Constant<Bits<2>>; MAX_CLASSES],
    gen: DFF<Bits<16>>,
    /// `now` one cycle late, and `now + cfg.timeout` made from it a cycle early: the
    /// block's clock. Every time it keeps (expiries, free times) is relative, so running a
    /// cycle behind changes nothing, and no path starts at a 64-bit add of the port.
    now_d: DFF<Bits<64>>,
    expiry_d: DFF<Bits<64>>,
    /// The allocation choices of S1 that S2 carries out (a REQ never follows a REQ
    /// directly, so S1 always sees them done): the id and the buffer come from the free
    /// FIFO's head (else the never-used counter).
    s2_id_fifo: DFF<bool>,
    s2_buf_fifo: DFF<bool>,
    /// The table insert of the REQ now in S3, forwarded to S1 (its way RAM write was a
    /// cycle too late for the read S0 issued).
    s3_ins: DFF<bool>,
    s3_loc_kind: DFF<Bits<2>>,
    s3_loc_index: DFF<Bits<SA>>,
    s3_ip: DFF<Bits<32>>,
    s3_port: DFF<Bits<16>>,
    s3_txid: DFF<Bits<16>>,
    /// A free, registered for its FIFO pushes and `stat.freed_*` a cycle later (S3).
    fr_v: DFF<bool>,
    /// S2's command to the timer, registered.
    tc_valid: DFF<bool>,
    tc_op: DFF<Bits<2>>,
    tc_id: DFF<Bits<A>>,
    tc_expiry: DFF<Bits<64>>,
    tc_meta: DFF<Bits<16>>,
    fr_tmo: DFF<bool>,
    fr_id: DFF<Bits<A>>,
    fr_class: DFF<Bits<2>>,
    fr_buf: DFF<Bits<24>>,
    /// The frame's payload words: `ceil(msg_len / 8)` registered on the first beat, then
    /// the packet's share `min(that - 128 * offset, 128)`, then its last beat's index.
    dp_cw: DFF<Bits<16>>,
    dp_last_at: DFF<Bits<16>>,

    // ---- S0 → S1
    s1_kind: DFF<Bits<3>>,
    s1_ip: DFF<Bits<32>>,
    s1_port: DFF<Bits<16>>,
    s1_txid: DFF<Bits<16>>,
    s1_len: DFF<Bits<16>>,
    s1_off: DFF<Bits<8>>,
    s1_mark: DFF<bool>,
    s1_id: DFF<Bits<A>>,
    s1_gen: DFF<Bits<16>>,
    s1_slot0: DFF<Bits<SA>>,
    s1_slot1: DFF<Bits<SA>>,
    // ---- S1 → S2
    s2_kind: DFF<Bits<3>>,
    s2_id: DFF<Bits<A>>,
    /// A valid request that missed the table (`s2_miss`), whether an id, a buffer and a
    /// place were free for it (`s2_room`), and whether it is a late duplicate (`s2_dup`):
    /// S2 combines them into `s2_new` and `s2_fail_alloc` (one LUT), so that S1's key
    /// compares and the late-duplicate test do not meet in one cone.
    s2_miss: DFF<bool>,
    s2_room: DFF<bool>,
    s2_dup: DFF<bool>,
    s2_new: Signal<Local, bool>,
    s2_fail_alloc: Signal<Local, bool>,
    s2_fail_bad: DFF<bool>,
    s2_ip: DFF<Bits<32>>,
    s2_port: DFF<Bits<16>>,
    s2_txid: DFF<Bits<16>>,
    s2_len: DFF<Bits<16>>,
    s2_off: DFF<Bits<8>>,
    /// The request's packet mask (bit `i` set for `i < ceil(msg_len / 1024)`) and its
    /// offset's bit, made in S1 so that S2 starts from registers. S2 uses them only where
    /// the request's `msg_len` is the row's (a new message, a matching request or CHECK).
    s2_full: DFF<Bits<MAX_PKTS>>,
    /// ceil(msg_len / 1024) of the request, from S1.
    s2_total: DFF<Bits<6>>,
    s2_pkt_bit: DFF<Bits<MAX_PKTS>>,
    s2_mark: DFF<bool>,
    s2_gen: DFF<Bits<16>>,
    s2_buf: DFF<Bits<24>>,
    s2_class: DFF<Bits<2>>,
    s2_loc_kind: DFF<Bits<2>>,
    s2_loc_index: DFF<Bits<16>>,
    // ---- S2 → S3 (row forwarding)
    s3_valid: DFF<bool>,
    s3_id: DFF<Bits<A>>,
    s3_row: DFF<MsgRow>,

    // ---- data port
    dp_beats: DFF<Bits<16>>,
    dp_id: DFF<Bits<16>>,
    dp_id_ok: DFF<bool>,
    dp_ip: DFF<Bits<32>>,
    dp_port: DFF<Bits<16>>,
    dp_txid: DFF<Bits<16>>,
    dp_len: DFF<Bits<16>>,
    dp_off: DFF<Bits<8>>,
    dp_local_port: DFF<Bits<16>>,
    dp_words: DFF<Bits<16>>,
    dp_check_pend: DFF<bool>,
    dp_outstanding: DFF<bool>,
    dp_unres_pend: DFF<bool>,
    dp_hold: DFF<bool>,
    v_ok: DFF<bool>,
    v_complete: DFF<bool>,
    v_buf: DFF<Bits<24>>,
    // ---- delivery
    deliv_fifo: Fifo<DeliveryEntry, A, C>,
    out_fifo: Fifo<OutWord, 2, 3>,
    eng_state: DFF<Bits<2>>,
    eng_id: DFF<Bits<16>>,
    eng_addr: DFF<Bits<24>>,
    eng_left: DFF<Bits<16>>,
    eng_local_port: DFF<Bits<16>>,
    eng_inflight: DFF<bool>,
    eng_inflight_last: DFF<bool>,
    free_pend: DFF<bool>,
    free_pend_id: DFF<Bits<A>>,
    // ---- counters
    cnt_delivered: DFF<Bits<32>>,
    cnt_duplicates: DFF<Bits<32>>,
    cnt_alloc_fail: DFF<Bits<32>>,
    cnt_timeouts: DFF<Bits<32>>,
    cnt_bad_req: DFF<Bits<32>>,
    cnt_bad_data: DFF<Bits<32>>,

    // ---- combinational locals
    s0_kind: Signal<Local, Bits<3>>,
    h0: Signal<Local, Bits<16>>,
    h1: Signal<Local, Bits<16>>,
    ip_hi: Signal<Local, Bits<16>>,
    ip_lo: Signal<Local, Bits<16>>,
    s1_total: Signal<Local, Bits<6>>,
    s1_valid_req: Signal<Local, bool>,
    /// Way `w`'s slot is the one the request in S3 inserted (`fwd_w`); the key matches
    /// the RAM's entry (`m_w`, forwarded: `m_s3`); the entry's id (`id_w`). The compares
    /// are made on both sources side by side and the forward picks a bit, not a row.
    fwd0: Signal<Local, bool>,
    fwd1: Signal<Local, bool>,
    m_s3: Signal<Local, bool>,
    m0: Signal<Local, bool>,
    m1: Signal<Local, bool>,
    id0: Signal<Local, Bits<16>>,
    id1: Signal<Local, Bits<16>>,
    used0_now: Signal<Local, bool>,
    s1_free: Signal<Local, bool>,
    used1_now: Signal<Local, bool>,
    cam_used_now: Signal<Local, Bits<CAM_ENTRIES>>,
    hit: Signal<Local, bool>,
    hit_id: Signal<Local, Bits<16>>,
    cam_free_any: Signal<Local, bool>,
    cam_free_idx: Signal<Local, Bits<2>>,
    id_avail: Signal<Local, bool>,
    new_id: Signal<Local, Bits<A>>,
    class_found: Signal<Local, bool>,
    class_sel: Signal<Local, Bits<2>>,
    class_buf: Signal<Local, Bits<24>>,
    s1_miss: Signal<Local, bool>,
    s1_room: Signal<Local, bool>,
    s1_req: Signal<Local, bool>,
    s1_writes: Signal<Local, bool>,
    class_from_fifo: Signal<Local, bool>,
    s2_alloc: Signal<Local, bool>,
    ins_slot: Signal<Local, Bits<SA>>,
    dp_share: Signal<Local, Bits<16>>,
    row_id: Signal<Local, Bits<A>>,
    ins_mask0: Signal<Local, Bits<S>>,
    ins_mask1: Signal<Local, Bits<S>>,
    cam_ins_mask: Signal<Local, Bits<CAM_ENTRIES>>,
    row: Signal<Local, MsgRow>,
    row_new: Signal<Local, MsgRow>,
    len_th: Signal<Local, Bits<MAX_PKTS>>,
    full: Signal<Local, Bits<MAX_PKTS>>,
    pkt_bit: Signal<Local, Bits<MAX_PKTS>>,
    received_next: Signal<Local, Bits<MAX_PKTS>>,
    stored_next: Signal<Local, Bits<MAX_PKTS>>,
    ack_no: Signal<Local, Bits<9>>,
    s2_active: Signal<Local, bool>,
    s2_delivering: Signal<Local, bool>,
    do_free: Signal<Local, bool>,
    del_mask0: Signal<Local, Bits<S>>,
    del_mask1: Signal<Local, Bits<S>>,
    cam_del_mask: Signal<Local, Bits<CAM_ENTRIES>>,
    del0_now: Signal<Local, bool>,
    del1_now: Signal<Local, bool>,
    del_slot: Signal<Local, Bits<SA>>,
    active_set: Signal<Local, Bits<N>>,
    active_clr: Signal<Local, Bits<N>>,
    deliv_set: Signal<Local, Bits<N>>,
    expiry: Signal<Local, Bits<64>>,
    dp_first: Signal<Local, bool>,
    /// A frame's first beat is accepted that needs a check (more beats follow), and S0
    /// takes the check in this cycle from `sink`'s fields.
    dp_start: Signal<Local, bool>,
    s0_direct: Signal<Local, bool>,
    s2_free_dlv: Signal<Local, bool>,
    dp_accept: Signal<Local, bool>,
    dp_end: Signal<Local, bool>,
    dp_payload_idx: Signal<Local, Bits<16>>,
    dp_good: Signal<Local, bool>,
    out_room: Signal<Local, bool>,
    msg_words: Signal<Local, Bits<16>>,
    tmo_live: Signal<Local, bool>,
    tmo_rearm: Signal<Local, bool>,
    /// The op in S2 takes its row from S3 (written last cycle) rather than the RAM.
    fwd: Signal<Local, bool>,
    /// The row's checks made on both candidate rows before the forwarding mux (so that the
    /// subtracts and compares run beside the id compare that picks one): generation match,
    /// timer event early (expiry still ahead), idle for `cfg.conflict_idle`.
    gen_ok_r: Signal<Local, bool>,
    late_r: Signal<Local, Bits<32>>,
    early_r: Signal<Local, bool>,
    idle_r: Signal<Local, bool>,
    idle_f: Signal<Local, bool>,
    tmo_early: Signal<Local, bool>,
    expiry_lo: Signal<Local, Bits<32>>,
    idle_long: Signal<Local, bool>,
    now_lo: Signal<Local, Bits<32>>,
    ids_free_c: Signal<Local, Bits<C>>,
    class_free: [Signal<Local, Bits<C>>; MAX_CLASSES],
    wr_addr: Signal<Local, Bits<24>>,
    row_loc_index: Signal<Local, Bits<16>>,
    head_buf: Signal<Local, Bits<24>>,
    ack_scan: Signal<Local, Bits<MAX_PKTS>>,

    // ---- constants
    k_none: Constant<Bits<3>>,
    k_req: Constant<Bits<3>>,
    k_check: Constant<Bits<3>>,
    k_unres: Constant<Bits<3>>,
    k_free_dlv: Constant<Bits<3>>,
    k_free_tmo: Constant<Bits<3>>,
    op_schedule: Constant<Bits<2>>,
    op_reschedule: Constant<Bits<2>>,
    op_cancel: Constant<Bits<2>>,
    loc_way0: Constant<Bits<2>>,
    loc_way1: Constant<Bits<2>>,
    loc_cam: Constant<Bits<2>>,
    cam_code: [Constant<Bits<2>>; CAM_ENTRIES],
    ack_code: [Constant<Bits<9>>; MAX_PKTS],
    st_idle: Constant<Bits<2>>,
    st_stream: Constant<Bits<2>>,
    st_done: Constant<Bits<2>>,
    one_c: Constant<Bits<C>>,
    zero_c: Constant<Bits<C>>,
    n_ids: Constant<Bits<C>>,
    one_n: Constant<Bits<N>>,
    zero_n: Constant<Bits<N>>,
    one_s: Constant<Bits<S>>,
    zero_s: Constant<Bits<S>>,
    one_cam: Constant<Bits<CAM_ENTRIES>>,
    zero_cam: Constant<Bits<CAM_ENTRIES>>,
    one_p: Constant<Bits<MAX_PKTS>>,
    ones_p: Constant<Bits<MAX_PKTS>>,
    zero_p: Constant<Bits<MAX_PKTS>>,
    sh1: Constant<Bits<5>>,
    one_8: Constant<Bits<16>>,
    max_8: Constant<Bits<16>>,
    hdr_words: Constant<Bits<16>>,
    one_16: Constant<Bits<16>>,
    zero_16: Constant<Bits<16>>,
    c7: Constant<Bits<16>>,
    pkt_words_c: Constant<Bits<16>>,
    hdr_last: Constant<Bits<16>>,
    max_len: Constant<Bits<16>>,
    sh3: Constant<Bits<5>>,
    sh5: Constant<Bits<5>>,
    sh7: Constant<Bits<5>>,
    sh9: Constant<Bits<5>>,
    sh11: Constant<Bits<5>>,
    sh16: Constant<Bits<7>>,
    sh32: Constant<Bits<7>>,
    one_24: Constant<Bits<24>>,
    one_32: Constant<Bits<32>>,
    two_3: Constant<Bits<3>>,
    one_6: Constant<Bits<6>>,
    zero_8: Constant<Bits<16>>,
    zero_10: Constant<Bits<10>>,
    zero_24: Constant<Bits<24>>,
    zero_32: Constant<Bits<32>>,
    zero_64: Constant<Bits<64>>,
}

/// Reassembly for 16 messages (4 × 2 × 64 table slots, 2^15 buffer words = 256 KiB).
pub type Reassembly16 = Reassembly<4, 16, 5, 6, 64, 15>;
/// Reassembly for 128 messages (2 × 512 table slots, 2^17 buffer words = 1 MiB).
pub type Reassembly128 = Reassembly<7, 128, 8, 9, 512, 17>;
/// Reassembly for 16 messages with 2^14 buffer words (128 KiB; [`BufferConfig::fpga16`]).
pub type Reassembly16Fpga = Reassembly<4, 16, 5, 6, 64, 14>;

impl<
        const A: usize,
        const N: usize,
        const C: usize,
        const SA: usize,
        const S: usize,
        const BW: usize,
    > Reassembly<A, N, C, SA, S, BW>
{
    /// Builds the block for `cfg`. Panics when the parameters are inconsistent or `cfg` is
    /// invalid for them (see [`ReassemblyConfig::validate`]).
    pub fn new(cfg: &ReassemblyConfig) -> Self {
        assert!(
            (1..=8).contains(&A),
            "reassembly id bits A={A} must be 1..=8"
        );
        assert_eq!(N, 1 << A, "reassembly messages N={N} must be 2^A");
        assert_eq!(C, A + 1, "reassembly count bits C={C} must be A+1");
        assert!(
            (A..=16).contains(&SA),
            "table slot bits SA={SA} must be A..=16"
        );
        assert_eq!(S, 1 << SA, "table slots S={S} must be 2^SA");
        assert!(
            (4..=24).contains(&BW),
            "buffer word-address bits BW={BW} must be 4..=24"
        );
        if let Err(e) = cfg.validate(N, MAX_MSG_BYTES, BW) {
            panic!("invalid reassembly configuration: {e}");
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            now: Default::default(),
            cfg: Default::default(),
            info_req: Default::default(),
            info_resp: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            stat: Default::default(),
            way0: Default::default(),
            way1: Default::default(),
            used0: Default::default(),
            used1: Default::default(),
            cam_used: Default::default(),
            cam_ip: Default::default(),
            cam_port: Default::default(),
            cam_txid: Default::default(),
            cam_id: Default::default(),
            rows: Default::default(),
            // Initialised (the Verilog gets an `initial` block): no X in simulation.
            done_tab: RAM::new(
                (0..DONE_ENTRIES)
                    .map(|i| (Bits::<DONE_BITS>::from(i as u64), DoneEntry::default()))
                    .collect(),
            ),
            s1_didx: Default::default(),
            s2_done: Default::default(),
            cnt_late: Default::default(),
            cnt_conflict: Default::default(),
            d_txid: Default::default(),
            d_gap: Default::default(),
            d_age: Default::default(),
            d_hit: Default::default(),
            dwr_ip: Default::default(),
            dwr_txid: Default::default(),
            sh4: Constant::new(4.into()),
            active: Default::default(),
            delivering: Default::default(),
            buffer: Default::default(),
            timer: ScanningTimer::new(),
            id_fifo: Fifo::new(),
            id_fresh: Default::default(),
            class_fifo: std::array::from_fn(|_| Fifo::new()),
            class_fresh_off: Default::default(),
            class_taken: Default::default(),
            s1_fits: Default::default(),
            s1_vreq: Default::default(),
            s1_voff: Default::default(),
            s0_off_bytes: Default::default(),
            sh10: Constant::new(10.into()),
            zero_2: Constant::new(0.into()),
            class_bytes: std::array::from_fn(|i| Constant::new(cfg.bytes_of(i).into())),
            class_base: std::array::from_fn(|i| Constant::new(cfg.base_of(i).into())),
            class_words: std::array::from_fn(|i| Constant::new(cfg.words_of(i).into())),
            class_count: std::array::from_fn(|i| Constant::new(cfg.count_of(i).into())),
            class_code: std::array::from_fn(|i| Constant::new((i as u64).into())),
            gen: Default::default(),
            now_d: Default::default(),
            expiry_d: Default::default(),
            s2_id_fifo: Default::default(),
            s2_buf_fifo: Default::default(),
            s3_ins: Default::default(),
            s3_loc_kind: Default::default(),
            s3_loc_index: Default::default(),
            s3_ip: Default::default(),
            s3_port: Default::default(),
            s3_txid: Default::default(),
            fr_v: Default::default(),
            tc_valid: Default::default(),
            tc_op: Default::default(),
            tc_id: Default::default(),
            tc_expiry: Default::default(),
            tc_meta: Default::default(),
            fr_tmo: Default::default(),
            fr_id: Default::default(),
            fr_class: Default::default(),
            fr_buf: Default::default(),
            dp_cw: Default::default(),
            dp_last_at: Default::default(),
            s1_kind: Default::default(),
            s1_ip: Default::default(),
            s1_port: Default::default(),
            s1_txid: Default::default(),
            s1_len: Default::default(),
            s1_off: Default::default(),
            s1_mark: Default::default(),
            s1_id: Default::default(),
            s1_gen: Default::default(),
            s1_slot0: Default::default(),
            s1_slot1: Default::default(),
            s2_kind: Default::default(),
            s2_id: Default::default(),
            s2_new: Default::default(),
            s2_fail_alloc: Default::default(),
            s2_miss: Default::default(),
            s2_room: Default::default(),
            s2_dup: Default::default(),
            s2_fail_bad: Default::default(),
            s2_ip: Default::default(),
            s2_port: Default::default(),
            s2_txid: Default::default(),
            s2_len: Default::default(),
            s2_off: Default::default(),
            s2_full: Default::default(),
            s2_total: Default::default(),
            s2_pkt_bit: Default::default(),
            s2_mark: Default::default(),
            s2_gen: Default::default(),
            s2_buf: Default::default(),
            s2_class: Default::default(),
            s2_loc_kind: Default::default(),
            s2_loc_index: Default::default(),
            s3_valid: Default::default(),
            s3_id: Default::default(),
            s3_row: Default::default(),
            dp_beats: Default::default(),
            dp_id: Default::default(),
            dp_id_ok: Default::default(),
            dp_ip: Default::default(),
            dp_port: Default::default(),
            dp_txid: Default::default(),
            dp_len: Default::default(),
            dp_off: Default::default(),
            dp_local_port: Default::default(),
            dp_words: Default::default(),
            dp_check_pend: Default::default(),
            dp_outstanding: Default::default(),
            dp_unres_pend: Default::default(),
            dp_hold: Default::default(),
            v_ok: Default::default(),
            v_complete: Default::default(),
            v_buf: Default::default(),
            deliv_fifo: Fifo::new(),
            out_fifo: Fifo::new(),
            eng_state: Default::default(),
            eng_id: Default::default(),
            eng_addr: Default::default(),
            eng_left: Default::default(),
            eng_local_port: Default::default(),
            eng_inflight: Default::default(),
            eng_inflight_last: Default::default(),
            free_pend: Default::default(),
            free_pend_id: Default::default(),
            cnt_delivered: Default::default(),
            cnt_duplicates: Default::default(),
            cnt_alloc_fail: Default::default(),
            cnt_timeouts: Default::default(),
            cnt_bad_req: Default::default(),
            cnt_bad_data: Default::default(),
            s0_kind: Default::default(),
            h0: Default::default(),
            h1: Default::default(),
            ip_hi: Default::default(),
            ip_lo: Default::default(),
            s1_total: Default::default(),
            s1_valid_req: Default::default(),
            fwd0: Default::default(),
            fwd1: Default::default(),
            m_s3: Default::default(),
            m0: Default::default(),
            m1: Default::default(),
            id0: Default::default(),
            id1: Default::default(),
            used0_now: Default::default(),
            s1_free: Default::default(),
            used1_now: Default::default(),
            cam_used_now: Default::default(),
            hit: Default::default(),
            hit_id: Default::default(),
            cam_free_any: Default::default(),
            cam_free_idx: Default::default(),
            id_avail: Default::default(),
            new_id: Default::default(),
            class_found: Default::default(),
            class_sel: Default::default(),
            class_buf: Default::default(),
            s1_miss: Default::default(),
            s1_room: Default::default(),
            s1_req: Default::default(),
            s1_writes: Default::default(),
            class_from_fifo: Default::default(),
            s2_alloc: Default::default(),
            ins_slot: Default::default(),
            dp_share: Default::default(),
            row_id: Default::default(),
            ins_mask0: Default::default(),
            ins_mask1: Default::default(),
            cam_ins_mask: Default::default(),
            row: Default::default(),
            row_new: Default::default(),
            len_th: Default::default(),
            full: Default::default(),
            pkt_bit: Default::default(),
            received_next: Default::default(),
            stored_next: Default::default(),
            ack_no: Default::default(),
            s2_active: Default::default(),
            s2_delivering: Default::default(),
            do_free: Default::default(),
            del_mask0: Default::default(),
            del_mask1: Default::default(),
            cam_del_mask: Default::default(),
            del0_now: Default::default(),
            del1_now: Default::default(),
            del_slot: Default::default(),
            active_set: Default::default(),
            active_clr: Default::default(),
            deliv_set: Default::default(),
            expiry: Default::default(),
            dp_first: Default::default(),
            dp_start: Default::default(),
            s0_direct: Default::default(),
            s2_free_dlv: Default::default(),
            dp_accept: Default::default(),
            dp_end: Default::default(),
            dp_payload_idx: Default::default(),
            dp_good: Default::default(),
            out_room: Default::default(),
            msg_words: Default::default(),
            tmo_live: Default::default(),
            tmo_rearm: Default::default(),
            fwd: Default::default(),
            gen_ok_r: Default::default(),
            late_r: Default::default(),
            early_r: Default::default(),
            idle_r: Default::default(),
            idle_f: Default::default(),
            tmo_early: Default::default(),
            expiry_lo: Default::default(),
            idle_long: Default::default(),
            now_lo: Default::default(),
            ids_free_c: Default::default(),
            class_free: Default::default(),
            wr_addr: Default::default(),
            row_loc_index: Default::default(),
            head_buf: Default::default(),
            ack_scan: Default::default(),
            k_none: Constant::new(K_NONE.into()),
            k_req: Constant::new(K_REQ.into()),
            k_check: Constant::new(K_CHECK.into()),
            k_unres: Constant::new(K_UNRES.into()),
            k_free_dlv: Constant::new(K_FREE_DLV.into()),
            k_free_tmo: Constant::new(K_FREE_TMO.into()),
            op_schedule: Constant::new((OP_SCHEDULE as u64).into()),
            op_reschedule: Constant::new((OP_RESCHEDULE as u64).into()),
            op_cancel: Constant::new((OP_CANCEL as u64).into()),
            loc_way0: Constant::new(0.into()),
            loc_way1: Constant::new(1.into()),
            loc_cam: Constant::new(2.into()),
            cam_code: std::array::from_fn(|i| Constant::new((i as u64).into())),
            ack_code: std::array::from_fn(|i| Constant::new((i as u64).into())),
            st_idle: Constant::new(ST_IDLE.into()),
            st_stream: Constant::new(ST_STREAM.into()),
            st_done: Constant::new(ST_DONE.into()),
            one_c: Constant::new(1.into()),
            zero_c: Constant::new(0.into()),
            n_ids: Constant::new((N as u64).into()),
            one_n: Constant::new(1.into()),
            zero_n: Constant::new(0.into()),
            one_s: Constant::new(1.into()),
            zero_s: Constant::new(0.into()),
            one_cam: Constant::new(1.into()),
            zero_cam: Constant::new(0.into()),
            one_p: Constant::new(1.into()),
            ones_p: Constant::new(Bits::<MAX_PKTS>::mask()),
            zero_p: Constant::new(0.into()),
            sh1: Constant::new(1.into()),
            one_8: Constant::new(1.into()),
            max_8: Constant::new(0xffff.into()),
            hdr_words: Constant::new(HDR_WORDS.into()),
            one_16: Constant::new(1.into()),
            zero_16: Constant::new(0.into()),
            c7: Constant::new(7.into()),
            pkt_words_c: Constant::new((PKT_BYTES / 8).into()),
            hdr_last: Constant::new((HDR_WORDS - 1).into()),
            max_len: Constant::new(MAX_MSG_BYTES.into()),
            sh3: Constant::new(3.into()),
            sh5: Constant::new(5.into()),
            sh7: Constant::new(7.into()),
            sh9: Constant::new(9.into()),
            sh11: Constant::new(11.into()),
            sh16: Constant::new(16.into()),
            sh32: Constant::new(32.into()),
            one_24: Constant::new(1.into()),
            one_32: Constant::new(1.into()),
            two_3: Constant::new(2.into()),
            one_6: Constant::new(1.into()),
            zero_8: Constant::new(0.into()),
            zero_10: Constant::new(0.into()),
            zero_24: Constant::new(0.into()),
            zero_32: Constant::new(0.into()),
            zero_64: Constant::new(0.into()),
        }
    }

    /// Concurrent messages.
    pub const MESSAGES: usize = N;
}

impl<
        const A: usize,
        const N: usize,
        const C: usize,
        const SA: usize,
        const S: usize,
        const BW: usize,
    > Logic for Reassembly<A, N, C, SA, S, BW>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            used0,
            used1,
            cam_used,
            active,
            delivering,
            id_fresh,
            gen,
            s1_kind,
            s1_ip,
            s1_port,
            s1_txid,
            s1_len,
            s1_off,
            s1_mark,
            s1_id,
            s1_vreq,
            s1_voff,
            s1_gen,
            s1_slot0,
            s1_slot1,
            s2_kind,
            s2_id,
            s2_miss,
            s2_room,
            s2_dup,
            s2_fail_bad,
            s1_didx,
            s2_done,
            cnt_late,
            cnt_conflict,
            s2_ip,
            s2_port,
            s2_txid,
            s2_len,
            s2_off,
            s2_full,
            s2_total,
            s2_pkt_bit,
            s2_mark,
            s2_gen,
            s2_buf,
            s2_class,
            s2_loc_kind,
            s2_loc_index,
            s3_valid,
            s3_id,
            s3_row,
            dp_beats,
            dp_id,
            dp_id_ok,
            dp_ip,
            dp_port,
            dp_txid,
            dp_len,
            dp_off,
            dp_local_port,
            dp_words,
            dp_check_pend,
            dp_outstanding,
            dp_unres_pend,
            dp_hold,
            v_ok,
            v_complete,
            v_buf,
            eng_state,
            eng_id,
            eng_addr,
            eng_left,
            eng_local_port,
            eng_inflight,
            eng_inflight_last,
            free_pend,
            free_pend_id,
            cnt_delivered,
            cnt_duplicates,
            cnt_alloc_fail,
            cnt_timeouts,
            cnt_bad_req,
            cnt_bad_data,
            now_d,
            expiry_d,
            s2_id_fifo,
            s2_buf_fifo,
            s3_ins,
            s3_loc_kind,
            s3_loc_index,
            s3_ip,
            s3_port,
            s3_txid,
            fr_v,
            tc_valid,
            tc_op,
            tc_id,
            tc_expiry,
            tc_meta,
            fr_tmo,
            fr_id,
            fr_class,
            fr_buf,
            dp_cw,
            dp_last_at
        );
        for i in 0..CAM_ENTRIES {
            self.cam_ip[i].clock.next = self.clock.val();
            self.cam_port[i].clock.next = self.clock.val();
            self.cam_txid[i].clock.next = self.clock.val();
            self.cam_id[i].clock.next = self.clock.val();
            self.cam_ip[i].d.next = self.cam_ip[i].q.val();
            self.cam_port[i].d.next = self.cam_port[i].q.val();
            self.cam_txid[i].d.next = self.cam_txid[i].q.val();
            self.cam_id[i].d.next = self.cam_id[i].q.val();
        }
        for i in 0..MAX_CLASSES {
            self.class_fifo[i].clock.next = self.clock.val();
            self.class_fifo[i].reset.next = self.reset.val();
            self.class_fifo[i].pop.next = false;
            self.class_fifo[i].push.next =
                self.fr_v.q.val() & (self.fr_class.q.val() == self.class_code[i].val());
            self.class_fifo[i].push_data.next = self.fr_buf.q.val();
            self.class_fresh_off[i].clock.next = self.clock.val();
            self.class_taken[i].clock.next = self.clock.val();
            self.s1_fits[i].clock.next = self.clock.val();
            self.s1_fits[i].d.next = self.info_req.msg_len.val() <= self.class_bytes[i].val();
            self.class_fresh_off[i].d.next = self.class_fresh_off[i].q.val();
            self.class_taken[i].d.next = self.class_taken[i].q.val();
        }
        self.way0.read_clock.next = self.clock.val();
        self.way0.write_clock.next = self.clock.val();
        self.way1.read_clock.next = self.clock.val();
        self.way1.write_clock.next = self.clock.val();
        self.rows.read_clock.next = self.clock.val();
        self.done_tab.read_clock.next = self.clock.val();
        self.done_tab.write_clock.next = self.clock.val();
        self.rows.write_clock.next = self.clock.val();
        self.buffer.read_clock.next = self.clock.val();
        self.buffer.write_clock.next = self.clock.val();
        self.timer.clock.next = self.clock.val();
        self.timer.reset.next = self.reset.val();
        self.timer.now.next = self.now_d.q.val();
        // S2's timer command reaches the timer a cycle later, from registers.
        self.timer.cmd.valid.next = self.tc_valid.q.val();
        self.timer.cmd.op.next = self.tc_op.q.val();
        self.timer.cmd.id.next = self.tc_id.q.val();
        self.timer.cmd.expiry.next = self.tc_expiry.q.val();
        self.timer.cmd.meta.next = self.tc_meta.q.val();
        self.id_fifo.clock.next = self.clock.val();
        self.id_fifo.reset.next = self.reset.val();
        self.deliv_fifo.clock.next = self.clock.val();
        self.deliv_fifo.reset.next = self.reset.val();
        self.out_fifo.clock.next = self.clock.val();
        self.out_fifo.reset.next = self.reset.val();

        self.now_d.d.next = self.now.val();
        self.expiry_d.d.next = self.now.val() + bit_cast::<64, 32>(self.cfg.timeout.val());
        self.expiry.next = self.expiry_d.q.val();
        self.expiry_lo.next = self.expiry_d.q.val().get_bits::<32>(0);
        self.now_lo.next = self.now_d.q.val().get_bits::<32>(0);

        // ================= S0: arbitrate, hash, read the table ways =================
        // A free op in S1 is in S2 next cycle, where it deletes from the table: no request
        // follows it directly (stage 1 reads the table's state from registers only). Nor
        // does a request follow a request: S2 carries out the allocation S1 chose.
        self.s1_free.next = (self.s1_kind.q.val() == self.k_free_dlv.val())
            | (self.s1_kind.q.val() == self.k_free_tmo.val());
        self.s1_req.next = self.s1_kind.q.val() == self.k_req.val();
        self.s1_writes.next = self.s1_req.val()
            | (self.s1_kind.q.val() == self.k_check.val())
            | (self.s1_kind.q.val() == self.k_unres.val());
        // Nor does a request enter while a delivery's free is in S2, where it writes the
        // table of delivered messages: the request's read of that table is never stale.
        self.s2_free_dlv.next = self.s2_kind.q.val() == self.k_free_dlv.val();
        self.info_req.ready.next = !(self.dp_unres_pend.q.val()
            | self.s1_free.val()
            | self.s1_req.val()
            | self.dp_check_pend.q.val()
            | self.s2_free_dlv.val()
            | self.timer.source.valid.val()
            | self.reset.val());
        // S0's priority: a release, a check that waited, a request, the check of a frame
        // whose first beat is in this cycle (its fields straight from `sink`), a
        // delivery's free, a timer event. (A request never waits for a free: at line rate
        // the free would otherwise push the next packet's request back.)
        self.dp_first.next = self.dp_beats.q.val() == self.zero_8.val();
        // (`sink.ready` at a first beat, written out: the Verilog is one combinational
        // block, which must not read the port it drives.)
        self.dp_start.next = self.sink.valid.val()
            & !self.sink.last.val()
            & self.dp_first.val()
            & !self.dp_outstanding.q.val()
            & !self.reset.val();
        self.timer.source.ready.next = false;
        self.s0_kind.next = self.k_none.val();
        self.s0_direct.next = false;
        if self.dp_unres_pend.q.val() {
            self.s0_kind.next = self.k_unres.val();
        } else if self.dp_check_pend.q.val() {
            self.s0_kind.next = self.k_check.val();
        } else if self.info_req.valid.val() & self.info_req.ready.val() {
            self.s0_kind.next = self.k_req.val();
        } else if self.dp_start.val() {
            self.s0_kind.next = self.k_check.val();
            self.s0_direct.next = true;
        } else if self.free_pend.q.val() {
            self.s0_kind.next = self.k_free_dlv.val();
        } else if self.timer.source.valid.val() {
            // Not behind an op that writes its row: a timer event's checks in S2 read the
            // row from the RAM alone (nothing in S3 to forward).
            if !self.s1_writes.val() {
                self.s0_kind.next = self.k_free_tmo.val();
                self.timer.source.ready.next = true;
            }
        }
        self.ip_hi.next = self.info_req.src_ip.val().get_bits::<16>(16);
        self.ip_lo.next = self.info_req.src_ip.val().get_bits::<16>(0);
        self.h0.next = self.ip_hi.val()
            ^ self.ip_lo.val()
            ^ self.info_req.src_port.val()
            ^ self.info_req.tx_msg_id.val();
        self.h1.next = self.info_req.tx_msg_id.val()
            + (((self.ip_hi.val() << self.sh5.val()) | (self.ip_hi.val() >> self.sh11.val()))
                ^ self.ip_lo.val()
                ^ ((self.info_req.src_port.val() << self.sh9.val())
                    | (self.info_req.src_port.val() >> self.sh7.val())));
        self.way0.read_address.next = self.h0.val().get_bits::<SA>(0);
        self.way1.read_address.next = self.h1.val().get_bits::<SA>(0);
        // The table of delivered messages, at the key's entry.
        self.s1_didx.d.next = (self.info_req.src_ip.val().get_bits::<DONE_BITS>(0)
            << self.sh4.val())
            ^ self.info_req.tx_msg_id.val().get_bits::<DONE_BITS>(0);
        self.done_tab.read_address.next = self.s1_didx.d.val();
        self.s1_kind.d.next = self.s0_kind.val();
        self.s1_ip.d.next = self.info_req.src_ip.val();
        self.s1_port.d.next = self.info_req.src_port.val();
        self.s1_txid.d.next = self.info_req.tx_msg_id.val();
        self.s1_len.d.next = self.info_req.msg_len.val();
        // `pkt_offset < ceil(msg_len / 1024)` as `1024 * pkt_offset < msg_len`: one compare.
        self.s0_off_bytes.next =
            bit_cast::<16, 6>(self.info_req.pkt_offset.val().get_bits::<6>(0)) << self.sh10.val();
        // (Two registers, ANDed in S1: fewer levels after the request's port.)
        self.s1_vreq.d.next = (self.info_req.msg_len.val() != self.zero_16.val())
            & (self.info_req.msg_len.val() <= self.max_len.val());
        self.s1_voff.d.next = (self.info_req.pkt_offset.val().get_bits::<2>(6)
            == self.zero_2.val())
            & (self.s0_off_bytes.val() < self.info_req.msg_len.val());
        self.s1_off.d.next = self.info_req.pkt_offset.val();
        self.s1_mark.d.next = self.info_req.mark_received.val();
        self.s1_slot0.d.next = self.h0.val().get_bits::<SA>(0);
        self.s1_slot1.d.next = self.h1.val().get_bits::<SA>(0);
        self.s1_gen.d.next = self.timer.source.meta.val();
        self.s1_id.d.next = self.dp_id.q.val().get_bits::<A>(0);
        if self.s0_kind.val() == self.k_free_dlv.val() {
            self.s1_id.d.next = self.free_pend_id.q.val();
        }
        if self.s0_kind.val() == self.k_free_tmo.val() {
            self.s1_id.d.next = self.timer.source.id.val();
        }
        if (self.s0_kind.val() == self.k_unres.val()) | (self.s0_kind.val() == self.k_check.val()) {
            self.s1_ip.d.next = self.dp_ip.q.val();
            self.s1_port.d.next = self.dp_port.q.val();
            self.s1_txid.d.next = self.dp_txid.q.val();
            self.s1_len.d.next = self.dp_len.q.val();
            self.s1_off.d.next = self.dp_off.q.val();
        }
        if self.s0_direct.val() {
            self.s1_id.d.next = self.sink.rx_msg_id.val().get_bits::<A>(0);
            self.s1_ip.d.next = self.sink.remote_ip.val();
            self.s1_port.d.next = self.sink.remote_port.val();
            self.s1_txid.d.next = self.sink.tx_msg_id.val();
            self.s1_len.d.next = self.sink.msg_len.val();
            self.s1_off.d.next = self.sink.pkt_offset.val();
        }

        // ================= S2 decisions needed by S1 (frees this cycle) =================
        // The row of the op in S2: the RAM's, or the one written last cycle.
        self.fwd.next = self.s3_valid.q.val() & (self.s3_id.q.val() == self.s2_id.q.val());
        if self.fwd.val() {
            self.row.next = self.s3_row.q.val();
        } else {
            self.row.next = self.rows.read_data.val();
        }
        // A timer event is early while `now - expiry` is negative (mod 2^32); the message
        // has been idle for `expiry_lo(now) - expiry_lo(row) = now - its last request`.
        // A timer event never follows an op that writes its row (S0), so its checks take
        // the row from the RAM alone.
        self.gen_ok_r.next = self.rows.read_data.val().gen == self.s2_gen.q.val();
        self.late_r.next = self.now_lo.val() - self.rows.read_data.val().expiry_lo;
        self.early_r.next = self.late_r.val().get_bit(31);
        self.idle_r.next = (self.expiry_lo.val() - self.rows.read_data.val().expiry_lo)
            >= self.cfg.conflict_idle.val();
        self.idle_f.next =
            (self.expiry_lo.val() - self.s3_row.q.val().expiry_lo) >= self.cfg.conflict_idle.val();
        self.tmo_early.next = self.early_r.val();
        self.idle_long.next = self.idle_r.val();
        if self.fwd.val() {
            self.idle_long.next = self.idle_f.val();
        }
        self.s2_active.next = self.active.q.val().get_bit(self.s2_id.q.val().index());
        self.s2_delivering.next = self.delivering.q.val().get_bit(self.s2_id.q.val().index());
        self.do_free.next = false;
        if self.s2_kind.q.val() == self.k_free_dlv.val() {
            self.do_free.next = self.s2_active.val();
        }
        // A timeout is for this message (same allocation) while it is still receiving. It
        // frees the message only if no request has moved the expiry since the timer fired
        // and no frame of it is in the data port; otherwise the timer is re-armed.
        self.tmo_live.next = (self.s2_kind.q.val() == self.k_free_tmo.val())
            & self.s2_active.val()
            & !self.s2_delivering.val()
            & self.gen_ok_r.val();
        self.tmo_rearm.next = self.tmo_live.val()
            & (self.tmo_early.val()
                | (self.dp_hold.q.val()
                    & (self.dp_id.q.val() == bit_cast::<16, A>(self.s2_id.q.val()))));
        if self.tmo_live.val() & !self.tmo_rearm.val() {
            self.do_free.next = true;
        }
        self.row_loc_index.next = self.row.val().loc_index;
        self.del_slot.next = self.row_loc_index.val().get_bits::<SA>(0);
        self.del0_now.next = self.do_free.val() & (self.row.val().loc_kind == self.loc_way0.val());
        self.del1_now.next = self.do_free.val() & (self.row.val().loc_kind == self.loc_way1.val());
        self.del_mask0.next = self.zero_s.val();
        self.del_mask1.next = self.zero_s.val();
        self.cam_del_mask.next = self.zero_cam.val();
        if self.del0_now.val() {
            self.del_mask0.next = self.one_s.val() << self.del_slot.val();
        }
        if self.del1_now.val() {
            self.del_mask1.next = self.one_s.val() << self.del_slot.val();
        }
        // A message freed after delivery is remembered in the table of delivered messages.
        self.dwr_ip.next = self.row.val().src_ip;
        self.dwr_txid.next = self.row.val().tx_msg_id;
        self.done_tab.write_enable.next =
            self.do_free.val() & (self.s2_kind.q.val() == self.k_free_dlv.val());
        self.done_tab.write_address.next = (self.dwr_ip.val().get_bits::<DONE_BITS>(0)
            << self.sh4.val())
            ^ self.dwr_txid.val().get_bits::<DONE_BITS>(0);
        self.done_tab.write_data.next.used = true;
        self.done_tab.write_data.next.src_ip = self.dwr_ip.val();
        self.done_tab.write_data.next.tx_msg_id = self.dwr_txid.val();
        self.done_tab.write_data.next.until_lo = self.expiry_lo.val();
        if self.do_free.val() & (self.row.val().loc_kind == self.loc_cam.val()) {
            self.cam_del_mask.next =
                self.one_cam.val() << self.row_loc_index.val().get_bits::<2>(0);
        }

        // ================= S1: compare, allocate, insert, read the row =================
        self.s1_total.next = self.s1_len.q.val().get_bits::<6>(10);
        if self.s1_len.q.val().get_bits::<10>(0) != self.zero_10.val() {
            self.s1_total.next = self.s1_len.q.val().get_bits::<6>(10) + self.one_6.val();
        }
        // (Only a request reads it: then S0 made it from this op's msg_len and offset.)
        self.s1_valid_req.next = self.s1_vreq.q.val() & self.s1_voff.q.val();
        // Ways: a slot written by the request now in S3 is forwarded (S2 wrote it in the
        // cycle S0 read it for this op). No request is in S2 while one is in S1.
        self.fwd0.next = self.s3_ins.q.val()
            & (self.s3_loc_kind.q.val() == self.loc_way0.val())
            & (self.s3_loc_index.q.val() == self.s1_slot0.q.val());
        self.fwd1.next = self.s3_ins.q.val()
            & (self.s3_loc_kind.q.val() == self.loc_way1.val())
            & (self.s3_loc_index.q.val() == self.s1_slot1.q.val());
        self.m_s3.next = (self.s3_ip.q.val() == self.s1_ip.q.val())
            & (self.s3_port.q.val() == self.s1_port.q.val())
            & (self.s3_txid.q.val() == self.s1_txid.q.val());
        self.m0.next = (self.way0.read_data.val().src_ip == self.s1_ip.q.val())
            & (self.way0.read_data.val().src_port == self.s1_port.q.val())
            & (self.way0.read_data.val().tx_msg_id == self.s1_txid.q.val());
        self.id0.next = self.way0.read_data.val().rx_id;
        if self.fwd0.val() {
            self.m0.next = self.m_s3.val();
            self.id0.next = bit_cast::<16, A>(self.s3_id.q.val());
        }
        self.m1.next = (self.way1.read_data.val().src_ip == self.s1_ip.q.val())
            & (self.way1.read_data.val().src_port == self.s1_port.q.val())
            & (self.way1.read_data.val().tx_msg_id == self.s1_txid.q.val());
        self.id1.next = self.way1.read_data.val().rx_id;
        if self.fwd1.val() {
            self.m1.next = self.m_s3.val();
            self.id1.next = bit_cast::<16, A>(self.s3_id.q.val());
        }
        // No request is in S1 while a free or a request is in S2 (S0), so the table's
        // registers are current.
        self.used0_now.next = self.used0.q.val().get_bit(self.s1_slot0.q.val().index());
        self.used1_now.next = self.used1.q.val().get_bit(self.s1_slot1.q.val().index());
        self.cam_used_now.next = self.cam_used.q.val();

        // A key is in the table at most once (a request inserts it only when it missed),
        // so at most one place matches: the id is the OR of the matching places' ids, a
        // tree rather than a chain of priority multiplexers before the row's address.
        self.hit.next = false;
        self.hit_id.next = self.zero_16.val();
        for i in 0..CAM_ENTRIES {
            if self.cam_used_now.val().get_bit(i)
                & (self.cam_ip[i].q.val() == self.s1_ip.q.val())
                & (self.cam_port[i].q.val() == self.s1_port.q.val())
                & (self.cam_txid[i].q.val() == self.s1_txid.q.val())
            {
                self.hit.next = true;
                self.hit_id.next = self.hit_id.val() | self.cam_id[i].q.val();
            }
        }
        if self.used1_now.val() & self.m1.val() {
            self.hit.next = true;
            self.hit_id.next = self.hit_id.val() | self.id1.val();
        }
        if self.used0_now.val() & self.m0.val() {
            self.hit.next = true;
            self.hit_id.next = self.hit_id.val() | self.id0.val();
        }
        // Free CAM entry: the lowest.
        self.cam_free_any.next = false;
        self.cam_free_idx.next = self.cam_code[0].val();
        for i in 0..CAM_ENTRIES {
            if !self.cam_used_now.val().get_bit(3 - i) {
                self.cam_free_any.next = true;
                self.cam_free_idx.next = self.cam_code[3 - i].val();
            }
        }
        // Free id: returned ones first, then never-used ones.
        self.id_avail.next =
            self.id_fifo.nonempty.val() | (self.id_fresh.q.val() != self.n_ids.val());
        if self.id_fifo.nonempty.val() {
            self.new_id.next = self.id_fifo.head.val();
        } else {
            self.new_id.next = self.id_fresh.q.val().get_bits::<A>(0);
        }
        // Smallest class that fits and has a buffer.
        self.class_found.next = false;
        self.class_from_fifo.next = false;
        self.class_sel.next = self.class_code[0].val();
        self.class_buf.next = self.class_base[0].val() + self.class_fresh_off[0].q.val();
        for i in 0..MAX_CLASSES {
            if self.s1_fits[3 - i].q.val()
                & (self.class_fifo[3 - i].nonempty.val()
                    | (self.class_taken[3 - i].q.val() != self.class_count[3 - i].val()))
            {
                self.class_found.next = true;
                self.class_sel.next = self.class_code[3 - i].val();
                self.class_from_fifo.next = self.class_fifo[3 - i].nonempty.val();
                if self.class_fifo[3 - i].nonempty.val() {
                    self.class_buf.next = self.class_fifo[3 - i].head.val();
                } else {
                    self.class_buf.next =
                        self.class_base[3 - i].val() + self.class_fresh_off[3 - i].q.val();
                }
            }
        }
        // A late duplicate: same sender and slot as a delivered message, and a generation
        // not newer (serial arithmetic), within `cfg.timeout` of its free. The table's
        // entry is current: a delivery's free writes it in S2, and no request is in S0 or
        // S1 while the free is in S2 (`info_req.ready`).
        self.d_txid.next = self.done_tab.read_data.val().tx_msg_id;
        self.d_gap.next =
            self.d_txid.val().get_bits::<8>(8) - self.s1_txid.q.val().get_bits::<8>(8);
        self.d_age.next = self.now_lo.val() - self.done_tab.read_data.val().until_lo;
        self.d_hit.next = self.done_tab.read_data.val().used
            & (self.done_tab.read_data.val().src_ip == self.s1_ip.q.val())
            & (self.d_txid.val().get_bits::<8>(0) == self.s1_txid.q.val().get_bits::<8>(0))
            & !self.d_gap.val().get_bit(7)
            & self.d_age.val().get_bit(31);
        // A valid request that missed allocates when an id, a buffer and a place are free
        // and it is not a late duplicate; S2 makes that decision from the three registers.
        self.s1_miss.next =
            (self.s1_kind.q.val() == self.k_req.val()) & self.s1_valid_req.val() & !self.hit.val();
        self.s1_room.next = self.id_avail.val()
            & self.class_found.val()
            & (!self.used0_now.val() | !self.used1_now.val() | self.cam_free_any.val());

        self.s2_kind.d.next = self.s1_kind.q.val();
        self.s2_miss.d.next = self.s1_miss.val();
        self.s2_room.d.next = self.s1_room.val();
        self.s2_dup.d.next = self.d_hit.val();
        self.s2_fail_bad.d.next =
            (self.s1_kind.q.val() == self.k_req.val()) & !self.s1_valid_req.val();
        self.s2_done.d.next = (self.s1_kind.q.val() == self.k_req.val())
            & self.s1_valid_req.val()
            & !self.hit.val()
            & self.d_hit.val();
        self.s2_ip.d.next = self.s1_ip.q.val();
        self.s2_port.d.next = self.s1_port.q.val();
        self.s2_txid.d.next = self.s1_txid.q.val();
        self.s2_len.d.next = self.s1_len.q.val();
        self.s2_off.d.next = self.s1_off.q.val();
        // ceil(len / 1024) low bits set: len[15:10] of them, one more when len[9:0] != 0.
        self.len_th.next = !(self.ones_p.val() << self.s1_len.q.val().get_bits::<6>(10));
        self.s2_full.d.next = self.len_th.val();
        if self.s1_len.q.val().get_bits::<10>(0) != self.zero_10.val() {
            self.s2_full.d.next = (self.len_th.val() << self.sh1.val()) | self.one_p.val();
        }
        self.s2_pkt_bit.d.next = self.one_p.val() << self.s1_off.q.val();
        self.s2_total.d.next = self.s1_total.val();
        self.s2_mark.d.next = self.s1_mark.q.val();
        self.s2_gen.d.next = self.s1_gen.q.val();
        self.s2_buf.d.next = self.class_buf.val();
        self.s2_class.d.next = self.class_sel.val();
        self.s2_buf_fifo.d.next = self.class_from_fifo.val();
        self.s2_id_fifo.d.next = self.id_fifo.nonempty.val();
        self.s2_loc_kind.d.next = self.loc_cam.val();
        self.s2_loc_index.d.next = bit_cast::<16, 2>(self.cam_free_idx.val());
        if !self.used1_now.val() {
            self.s2_loc_kind.d.next = self.loc_way1.val();
            self.s2_loc_index.d.next = bit_cast::<16, SA>(self.s1_slot1.q.val());
        }
        if !self.used0_now.val() {
            self.s2_loc_kind.d.next = self.loc_way0.val();
            self.s2_loc_index.d.next = bit_cast::<16, SA>(self.s1_slot0.q.val());
        }

        self.row_id.next = self.s1_id.q.val();
        if self.s1_kind.q.val() == self.k_req.val() {
            if self.hit.val() {
                self.row_id.next = self.hit_id.val().get_bits::<A>(0);
            } else {
                self.row_id.next = self.new_id.val();
            }
        }
        self.s2_id.d.next = self.row_id.val();
        // The row is read at the hit's id for a request (0 on a miss: a new message's row
        // is written whole in S2, a failed request's is not used), so the allocation's
        // choice is not before the row RAM's address.
        self.rows.read_address.next = self.s1_id.q.val();
        if self.s1_kind.q.val() == self.k_req.val() {
            self.rows.read_address.next = self.hit_id.val().get_bits::<A>(0);
        }

        // The allocation S1 chose (its three parts registered, combined here by one LUT),
        // carried out in S2: the id and the buffer leave their free lists, the key enters
        // the table. (`s2_new` is set only by a request's allocation; stale side effects in
        // the first reset cycle are undone by the reset.)
        self.s2_new.next = self.s2_miss.q.val() & !self.s2_dup.q.val() & self.s2_room.q.val();
        self.s2_fail_alloc.next =
            self.s2_miss.q.val() & !self.s2_dup.q.val() & !self.s2_room.q.val();
        self.s2_alloc.next = self.s2_new.val();
        self.id_fifo.pop.next = false;
        self.ins_mask0.next = self.zero_s.val();
        self.ins_mask1.next = self.zero_s.val();
        self.cam_ins_mask.next = self.zero_cam.val();
        self.ins_slot.next = self.s2_loc_index.q.val().get_bits::<SA>(0);
        self.way0.write_enable.next = false;
        self.way1.write_enable.next = false;
        self.way0.write_address.next = self.ins_slot.val();
        self.way1.write_address.next = self.ins_slot.val();
        self.way0.write_data.next.src_ip = self.s2_ip.q.val();
        self.way0.write_data.next.src_port = self.s2_port.q.val();
        self.way0.write_data.next.tx_msg_id = self.s2_txid.q.val();
        self.way0.write_data.next.rx_id = bit_cast::<16, A>(self.s2_id.q.val());
        self.way1.write_data.next = self.way0.write_data.val();
        if self.s2_alloc.val() {
            self.gen.d.next = self.gen.q.val() + self.one_16.val();
            if self.s2_id_fifo.q.val() {
                self.id_fifo.pop.next = true;
            } else {
                self.id_fresh.d.next = self.id_fresh.q.val() + self.one_c.val();
            }
            for i in 0..MAX_CLASSES {
                if self.s2_class.q.val() == self.class_code[i].val() {
                    if self.s2_buf_fifo.q.val() {
                        self.class_fifo[i].pop.next = true;
                    } else {
                        self.class_fresh_off[i].d.next =
                            self.class_fresh_off[i].q.val() + self.class_words[i].val();
                        self.class_taken[i].d.next = self.class_taken[i].q.val() + self.one_c.val();
                    }
                }
            }
            if self.s2_loc_kind.q.val() == self.loc_way0.val() {
                self.way0.write_enable.next = true;
                self.ins_mask0.next = self.one_s.val() << self.ins_slot.val();
            } else if self.s2_loc_kind.q.val() == self.loc_way1.val() {
                self.way1.write_enable.next = true;
                self.ins_mask1.next = self.one_s.val() << self.ins_slot.val();
            } else {
                self.cam_ins_mask.next =
                    self.one_cam.val() << self.s2_loc_index.q.val().get_bits::<2>(0);
                for i in 0..CAM_ENTRIES {
                    if self.s2_loc_index.q.val().get_bits::<2>(0) == self.cam_code[i].val() {
                        self.cam_ip[i].d.next = self.s2_ip.q.val();
                        self.cam_port[i].d.next = self.s2_port.q.val();
                        self.cam_txid[i].d.next = self.s2_txid.q.val();
                        self.cam_id[i].d.next = bit_cast::<16, A>(self.s2_id.q.val());
                    }
                }
            }
        }
        self.s3_ins.d.next = self.s2_alloc.val();
        self.s3_loc_kind.d.next = self.s2_loc_kind.q.val();
        self.s3_loc_index.d.next = self.ins_slot.val();
        self.s3_ip.d.next = self.s2_ip.q.val();
        self.s3_port.d.next = self.s2_port.q.val();
        self.s3_txid.d.next = self.s2_txid.q.val();
        self.used0.d.next = (self.used0.q.val() & !self.del_mask0.val()) | self.ins_mask0.val();
        self.used1.d.next = (self.used1.q.val() & !self.del_mask1.val()) | self.ins_mask1.val();
        self.cam_used.d.next =
            (self.cam_used.q.val() & !self.cam_del_mask.val()) | self.cam_ins_mask.val();

        // ================= S2: row read-modify-write, response, timer, free =================
        self.row_new.next = self.row.val();
        if self.s2_new.val() {
            self.row_new.next.received = self.zero_p.val();
            self.row_new.next.stored = self.zero_p.val();
            self.row_new.next.src_ip = self.s2_ip.q.val();
            self.row_new.next.src_port = self.s2_port.q.val();
            self.row_new.next.tx_msg_id = self.s2_txid.q.val();
            self.row_new.next.msg_len = self.s2_len.q.val();
            self.row_new.next.buf_addr = self.s2_buf.q.val();
            self.row_new.next.size_class = self.s2_class.q.val();
            self.row_new.next.loc_kind = self.s2_loc_kind.q.val();
            self.row_new.next.loc_index = self.s2_loc_index.q.val();
            self.row_new.next.gen = self.gen.q.val();
        }
        self.full.next = self.s2_full.q.val();
        self.pkt_bit.next = self.s2_pkt_bit.q.val();
        self.received_next.next = self.row_new.val().received;
        if self.s2_mark.q.val() {
            self.received_next.next = self.row_new.val().received | self.pkt_bit.val();
        }
        // Smallest offset not received: the lowest zero of received | ~full.
        self.ack_scan.next = self.received_next.val() | !self.full.val();
        self.ack_no.next = bit_cast::<9, 6>(self.s2_total.q.val());
        for i in 0..MAX_PKTS {
            if !self.ack_scan.val().get_bit(37 - i) {
                self.ack_no.next = self.ack_code[37 - i].val();
            }
        }
        self.stored_next.next = self.row_new.val().stored | self.pkt_bit.val();
        if self.s2_kind.q.val() == self.k_unres.val() {
            self.stored_next.next = self.row_new.val().stored & !self.pkt_bit.val();
        }

        self.info_resp.valid.next = false;
        self.info_resp.fail.next = false;
        self.info_resp.rx_msg_id.next = self.zero_16.val();
        self.info_resp.is_new_msg.next = false;
        self.info_resp.is_new_pkt.next = false;
        self.info_resp.is_last_pkt.next = false;
        self.info_resp.ack_no.next = self.ack_code[0].val();
        self.info_resp.done.next = false;
        self.rows.write_enable.next = false;
        self.rows.write_address.next = self.s2_id.q.val();
        self.rows.write_data.next = self.row_new.val();
        self.tc_valid.d.next = false;
        self.tc_op.d.next = self.op_schedule.val();
        self.tc_id.d.next = self.s2_id.q.val();
        self.tc_expiry.d.next = self.expiry.val();
        self.tc_meta.d.next = self.row_new.val().gen;
        self.active_set.next = self.zero_n.val();
        self.active_clr.next = self.zero_n.val();
        // A free's id and buffer return to their free lists in S3, from registers.
        self.id_fifo.push.next = self.fr_v.q.val();
        self.id_fifo.push_data.next = self.fr_id.q.val();
        self.fr_v.d.next = self.do_free.val();
        self.fr_tmo.d.next = self.s2_kind.q.val() == self.k_free_tmo.val();
        self.fr_id.d.next = self.s2_id.q.val();
        self.fr_class.d.next = self.row.val().size_class;
        self.fr_buf.d.next = self.row.val().buf_addr;

        if self.s2_kind.q.val() == self.k_req.val() {
            self.info_resp.valid.next = true;
            if self.s2_fail_bad.q.val() {
                self.info_resp.fail.next = true;
                self.cnt_bad_req.d.next = self.cnt_bad_req.q.val() + self.one_32.val();
            } else if !self.s2_new.val()
                & !self.s2_fail_alloc.val()
                & !self.s2_done.q.val()
                & (self.row.val().msg_len != self.s2_len.q.val())
            {
                // msg_len conflict on an active key: fail. A message idle for
                // `cfg.conflict_idle` cycles is expired now, so that a real sender blocked by
                // a bogus entry gets through on its next retransmission; a live one (whose
                // sender refreshes it) is left alone: its packets may already be ACKed.
                self.info_resp.fail.next = true;
                self.cnt_conflict.d.next = self.cnt_conflict.q.val() + self.one_32.val();
                if self.idle_long.val() {
                    self.rows.write_enable.next = true;
                    self.rows.write_data.next.expiry_lo = self.now_lo.val();
                    self.tc_valid.d.next = true;
                    self.tc_op.d.next = self.op_reschedule.val();
                    self.tc_expiry.d.next = self.now_d.q.val();
                }
            } else if self.s2_fail_alloc.val() {
                self.info_resp.fail.next = true;
                self.cnt_alloc_fail.d.next = self.cnt_alloc_fail.q.val() + self.one_32.val();
            } else if self.s2_done.q.val() {
                self.info_resp.done.next = true;
                self.info_resp.is_last_pkt.next = true;
                self.info_resp.ack_no.next = bit_cast::<9, 6>(self.s2_total.q.val());
                self.cnt_late.d.next = self.cnt_late.q.val() + self.one_32.val();
            } else {
                self.info_resp.rx_msg_id.next = bit_cast::<16, A>(self.s2_id.q.val());
                self.info_resp.is_new_msg.next = self.s2_new.val();
                self.info_resp.is_new_pkt.next =
                    (self.row_new.val().received & self.pkt_bit.val()) == self.zero_p.val();
                self.info_resp.is_last_pkt.next =
                    (self.received_next.val() & self.full.val()) == self.full.val();
                self.info_resp.ack_no.next = self.ack_no.val();
                if self.s2_mark.q.val()
                    & ((self.row_new.val().received & self.pkt_bit.val()) != self.zero_p.val())
                {
                    self.cnt_duplicates.d.next = self.cnt_duplicates.q.val() + self.one_32.val();
                }
                self.rows.write_enable.next = true;
                self.rows.write_data.next.received = self.received_next.val();
                self.rows.write_data.next.expiry_lo = self.expiry_lo.val();
                self.tc_valid.d.next = true;
                if self.s2_new.val() {
                    self.active_set.next = self.one_n.val() << self.s2_id.q.val();
                } else {
                    self.tc_op.d.next = self.op_reschedule.val();
                }
            }
        }

        // CHECK: may this frame's payload be stored?
        if self.s2_kind.q.val() == self.k_check.val() {
            self.dp_outstanding.d.next = false;
            self.v_ok.d.next = false;
            self.v_complete.d.next = (self.stored_next.val() & self.full.val()) == self.full.val();
            self.v_buf.d.next = self.row.val().buf_addr;
            if self.dp_id_ok.q.val()
                & self.s2_active.val()
                & !self.s2_delivering.val()
                & (self.row.val().src_ip == self.s2_ip.q.val())
                & (self.row.val().src_port == self.s2_port.q.val())
                & (self.row.val().tx_msg_id == self.s2_txid.q.val())
                & (self.row.val().msg_len == self.s2_len.q.val())
                & (self.s2_off.q.val() < bit_cast::<8, 6>(self.s2_total.q.val()))
                & ((self.row.val().received & self.pkt_bit.val()) != self.zero_p.val())
                & ((self.row.val().stored & self.pkt_bit.val()) == self.zero_p.val())
            {
                self.v_ok.d.next = true;
                self.dp_hold.d.next = true;
                self.rows.write_enable.next = true;
                self.rows.write_data.next.stored = self.stored_next.val();
            }
        }
        if self.s2_kind.q.val() == self.k_unres.val() {
            self.dp_hold.d.next = false;
            self.rows.write_enable.next = true;
            self.rows.write_data.next.stored = self.stored_next.val();
        }

        // A timeout that raced a request, or whose message has a frame in the data port:
        // re-arm (a schedule keeps the allocation number as metadata).
        if self.tmo_rearm.val() {
            self.tc_valid.d.next = true;
        }
        self.stat.freed_valid.next = self.fr_v.q.val();
        self.stat.freed_id.next = self.zero_16.val();
        self.stat.freed_timeout.next = false;
        if self.fr_v.q.val() {
            self.stat.freed_id.next = bit_cast::<16, A>(self.fr_id.q.val());
            self.stat.freed_timeout.next = self.fr_tmo.q.val();
            if self.fr_tmo.q.val() {
                self.cnt_timeouts.d.next = self.cnt_timeouts.q.val() + self.one_32.val();
            }
        }
        if self.do_free.val() {
            self.active_clr.next = self.one_n.val() << self.s2_id.q.val();
            self.tc_valid.d.next = true;
            self.tc_op.d.next = self.op_cancel.val();
        }
        self.s3_valid.d.next = self.rows.write_enable.val();
        self.s3_id.d.next = self.s2_id.q.val();
        self.s3_row.d.next = self.rows.write_data.val();

        // ================= data port =================
        // While a check is outstanding, the header beats after the first are taken (the
        // check needs no more than their time when S0 took it with the first beat).
        self.sink.ready.next = !self.reset.val()
            & (!self.dp_outstanding.q.val()
                | (!self.dp_first.val()
                    & (self.dp_beats.q.val() < self.hdr_words.val())
                    & !self.sink.last.val()));
        self.dp_accept.next = self.sink.valid.val() & self.sink.ready.val();
        // The packet's payload words, from the first beat's registers over two cycles
        // (`dp_words` from the third cycle, `dp_last_at` from the fourth: used from beat
        // HDR_WORDS = 3, which comes at least 3 cycles after the first; an earlier last
        // beat is held by `sink.ready` until the check is done, by when `dp_last_at`, at
        // least 3, is this frame's):
        // ceil(msg_len / 8) - 128 * offset, at most 128 (the offset's packet is the last one
        // exactly when that is at most 128; for an offset past the end the value is unused,
        // as the check fails).
        self.dp_share.next =
            self.dp_cw.q.val() - (bit_cast::<16, 8>(self.dp_off.q.val()) << self.sh7.val());
        self.dp_words.d.next = self.pkt_words_c.val();
        if self.dp_share.val() <= self.pkt_words_c.val() {
            self.dp_words.d.next = self.dp_share.val();
        }
        self.dp_last_at.d.next = self.dp_words.q.val() + self.hdr_last.val();
        self.deliv_set.next = self.zero_n.val();
        // A pending data-port op waits until S0 takes it.
        self.dp_check_pend.d.next =
            self.dp_check_pend.q.val() & (self.s0_kind.val() != self.k_check.val());
        self.dp_unres_pend.d.next =
            self.dp_unres_pend.q.val() & (self.s0_kind.val() != self.k_unres.val());
        self.dp_payload_idx.next = self.dp_beats.q.val() - self.hdr_words.val();
        self.dp_good.next = self.v_ok.q.val()
            & !self.dp_first.val()
            & (self.dp_beats.q.val() == self.dp_last_at.q.val());
        self.buffer.write_enable.next = false;
        self.wr_addr.next = self.v_buf.q.val()
            + (bit_cast::<24, 8>(self.dp_off.q.val()) << self.sh7.val())
            + bit_cast::<24, 16>(self.dp_payload_idx.val());
        self.buffer.write_address.next = self.wr_addr.val().get_bits::<BW>(0);
        self.buffer.write_data.next = self.sink.data.val();
        self.deliv_fifo.push.next = false;
        self.deliv_fifo.push_data.next.rx_id = self.dp_id.q.val();
        self.deliv_fifo.push_data.next.src_ip = self.dp_ip.q.val();
        self.deliv_fifo.push_data.next.src_port = self.dp_port.q.val();
        self.deliv_fifo.push_data.next.msg_len = self.dp_len.q.val();
        self.deliv_fifo.push_data.next.buf_addr = self.v_buf.q.val();
        self.deliv_fifo.push_data.next.local_port = self.dp_local_port.q.val();
        if self.dp_accept.val() {
            if self.dp_beats.q.val() != self.max_8.val() {
                self.dp_beats.d.next = self.dp_beats.q.val() + self.one_8.val();
            }
            if self.dp_first.val() {
                self.dp_id.d.next = self.sink.rx_msg_id.val();
                self.dp_id_ok.d.next =
                    self.sink.rx_msg_id.val() < bit_cast::<16, C>(self.n_ids.val());
                self.dp_ip.d.next = self.sink.remote_ip.val();
                self.dp_port.d.next = self.sink.remote_port.val();
                self.dp_txid.d.next = self.sink.tx_msg_id.val();
                self.dp_len.d.next = self.sink.msg_len.val();
                self.dp_off.d.next = self.sink.pkt_offset.val();
                self.dp_local_port.d.next = self.sink.local_port.val();
                self.dp_cw.d.next = (self.sink.msg_len.val() + self.c7.val()) >> self.sh3.val();
                self.v_ok.d.next = false;
                // A one-beat frame cannot carry a payload: no check, just dropped below. The
                // check waits a cycle when S0 had an op of higher priority.
                if !self.sink.last.val() {
                    self.dp_check_pend.d.next = !self.s0_direct.val();
                    self.dp_outstanding.d.next = true;
                }
            }
            if self.v_ok.q.val()
                & !self.dp_first.val()
                & (self.dp_beats.q.val() >= self.hdr_words.val())
                & (self.dp_payload_idx.val() < self.dp_words.q.val())
            {
                self.buffer.write_enable.next = true;
            }
        }
        // A last beat is accepted exactly when nothing is outstanding (`sink.ready`), so
        // its decisions do not wait for the ready's compares.
        self.dp_end.next = self.sink.valid.val()
            & self.sink.last.val()
            & !self.reset.val()
            & !self.dp_outstanding.q.val();
        if self.dp_end.val() {
            self.dp_beats.d.next = self.zero_8.val();
            if self.dp_good.val() {
                self.dp_hold.d.next = false;
                if self.v_complete.q.val() {
                    self.deliv_fifo.push.next = true;
                    self.deliv_set.next = self.one_n.val() << self.dp_id.q.val().get_bits::<A>(0);
                }
            } else {
                self.cnt_bad_data.d.next = self.cnt_bad_data.q.val() + self.one_32.val();
                if self.v_ok.q.val() & !self.dp_first.val() {
                    self.dp_unres_pend.d.next = true;
                }
            }
        }
        self.active.d.next = (self.active.q.val() | self.active_set.val()) & !self.active_clr.val();
        self.delivering.d.next =
            (self.delivering.q.val() | self.deliv_set.val()) & !self.active_clr.val();

        // ================= delivery engine =================
        if self.eng_inflight.q.val() {
            self.out_room.next = self.out_fifo.count.val() < self.two_3.val();
        } else {
            self.out_room.next = self.out_fifo.count.val() <= self.two_3.val();
        }
        self.msg_words.next =
            (self.deliv_fifo.head.val().msg_len + self.c7.val()) >> self.sh3.val();
        self.deliv_fifo.pop.next = false;
        self.head_buf.next = self.deliv_fifo.head.val().buf_addr;
        self.buffer.read_address.next = self.eng_addr.q.val().get_bits::<BW>(0);
        self.out_fifo.push.next = self.eng_inflight.q.val();
        self.out_fifo.push_data.next.data = self.buffer.read_data.val();
        self.out_fifo.push_data.next.last = self.eng_inflight_last.q.val();
        self.out_fifo.push_data.next.local_port = self.eng_local_port.q.val();
        self.eng_inflight.d.next = false;
        if self.eng_state.q.val() == self.st_idle.val() {
            if self.deliv_fifo.nonempty.val() & self.out_room.val() {
                self.deliv_fifo.pop.next = true;
                self.out_fifo.push.next = true;
                self.out_fifo.push_data.next.data =
                    (bit_cast::<64, 32>(self.deliv_fifo.head.val().src_ip) << self.sh32.val())
                        | (bit_cast::<64, 16>(self.deliv_fifo.head.val().src_port)
                            << self.sh16.val())
                        | bit_cast::<64, 16>(self.deliv_fifo.head.val().msg_len);
                self.out_fifo.push_data.next.last = false;
                self.out_fifo.push_data.next.local_port = self.deliv_fifo.head.val().local_port;
                self.buffer.read_address.next = self.head_buf.val().get_bits::<BW>(0);
                self.eng_inflight.d.next = true;
                self.eng_inflight_last.d.next = self.msg_words.val() == self.one_16.val();
                self.eng_id.d.next = self.deliv_fifo.head.val().rx_id;
                self.eng_addr.d.next = self.deliv_fifo.head.val().buf_addr + self.one_24.val();
                self.eng_left.d.next = self.msg_words.val() - self.one_16.val();
                self.eng_local_port.d.next = self.deliv_fifo.head.val().local_port;
                if self.msg_words.val() == self.one_16.val() {
                    self.eng_state.d.next = self.st_done.val();
                } else {
                    self.eng_state.d.next = self.st_stream.val();
                }
            }
        } else if self.eng_state.q.val() == self.st_stream.val() {
            if self.out_room.val() {
                self.eng_inflight.d.next = true;
                self.eng_inflight_last.d.next = self.eng_left.q.val() == self.one_16.val();
                self.eng_addr.d.next = self.eng_addr.q.val() + self.one_24.val();
                self.eng_left.d.next = self.eng_left.q.val() - self.one_16.val();
                if self.eng_left.q.val() == self.one_16.val() {
                    self.eng_state.d.next = self.st_done.val();
                }
            }
        } else if !self.free_pend.q.val() {
            // Done: hand the message's resources to the op pipeline.
            self.free_pend.d.next = true;
            self.free_pend_id.d.next = self.eng_id.q.val().get_bits::<A>(0);
            self.eng_state.d.next = self.st_idle.val();
        }
        if self.s0_kind.val() == self.k_free_dlv.val() {
            self.free_pend.d.next = false;
        }

        // ================= output =================
        self.out_fifo.pop.next = self.source.ready.val();
        self.source.valid.next = self.out_fifo.nonempty.val();
        self.source.data.next = self.zero_64.val();
        self.source.last.next = false;
        self.source.local_port.next = self.zero_16.val();
        if self.out_fifo.nonempty.val() {
            self.source.data.next = self.out_fifo.head.val().data;
            self.source.last.next = self.out_fifo.head.val().last;
            self.source.local_port.next = self.out_fifo.head.val().local_port;
            if self.source.ready.val() & self.out_fifo.head.val().last {
                self.cnt_delivered.d.next = self.cnt_delivered.q.val() + self.one_32.val();
            }
        }

        // ================= stats and reset =================
        self.stat.delivered.next = self.cnt_delivered.q.val();
        self.stat.duplicates.next = self.cnt_duplicates.q.val();
        self.stat.alloc_fail.next = self.cnt_alloc_fail.q.val();
        self.stat.timeouts.next = self.cnt_timeouts.q.val();
        self.stat.bad_req.next = self.cnt_bad_req.q.val();
        self.stat.bad_data.next = self.cnt_bad_data.q.val();
        self.stat.late_dups.next = self.cnt_late.q.val();
        self.stat.len_conflicts.next = self.cnt_conflict.q.val();
        self.ids_free_c.next =
            self.id_fifo.count.val() + (self.n_ids.val() - self.id_fresh.q.val());
        self.stat.ids_free.next = bit_cast::<16, C>(self.ids_free_c.val());
        for i in 0..MAX_CLASSES {
            self.class_free[i].next = self.class_fifo[i].count.val()
                + (self.class_count[i].val() - self.class_taken[i].q.val());
        }
        self.stat.deliv_pending.next = bit_cast::<16, C>(self.deliv_fifo.count.val());
        self.stat.bufs_free.next = bit_cast::<16, C>(self.class_free[0].val())
            + bit_cast::<16, C>(self.class_free[1].val())
            + bit_cast::<16, C>(self.class_free[2].val())
            + bit_cast::<16, C>(self.class_free[3].val());

        if self.reset.val() {
            self.used0.d.next = self.zero_s.val();
            self.used1.d.next = self.zero_s.val();
            self.cam_used.d.next = self.zero_cam.val();
            self.active.d.next = self.zero_n.val();
            self.delivering.d.next = self.zero_n.val();
            self.id_fresh.d.next = self.zero_c.val();
            for i in 0..MAX_CLASSES {
                self.class_fresh_off[i].d.next = self.zero_24.val();
                self.class_taken[i].d.next = self.zero_c.val();
            }
            self.s1_kind.d.next = self.k_none.val();
            self.s2_kind.d.next = self.k_none.val();
            self.s3_valid.d.next = false;
            self.dp_beats.d.next = self.zero_8.val();
            self.dp_check_pend.d.next = false;
            self.dp_outstanding.d.next = false;
            self.dp_unres_pend.d.next = false;
            self.dp_hold.d.next = false;
            self.v_ok.d.next = false;
            self.eng_state.d.next = self.st_idle.val();
            self.eng_inflight.d.next = false;
            self.free_pend.d.next = false;
            self.cnt_delivered.d.next = self.zero_32.val();
            self.cnt_duplicates.d.next = self.zero_32.val();
            self.cnt_alloc_fail.d.next = self.zero_32.val();
            self.cnt_timeouts.d.next = self.zero_32.val();
            self.cnt_bad_req.d.next = self.zero_32.val();
            self.cnt_bad_data.d.next = self.zero_32.val();
            self.cnt_late.d.next = self.zero_32.val();
            self.s2_done.d.next = false;
            self.s3_ins.d.next = false;
            self.fr_v.d.next = false;
            self.tc_valid.d.next = false;
        }
    }
}
