//! Packetization module (thesis §3.2.4, §3.3.2, Algorithms 2-4, Listing 3.2).
//!
//! Takes whole messages from the application, stores them in size-class buffers, cuts
//! them into packets of at most 1024 payload bytes and sends each packet when the
//! message's credit allows it, with the egress metadata of Listing 3.2 beside its words.
//! The ingress pipeline drives the per-message state through `DeliveredEvent` (Alg. 2) and
//! `CreditTxEvent` (Alg. 3); an egress timer drives `TimeoutEvent` (Alg. 4). A message is
//! freed when every packet is delivered, or given up after `cfg.max_timeouts` timeouts in
//! a row without progress; either way the application gets a status event.
//!
//! ```text
//!  app (header, payload) ─► writer ──► buffer RAM ─────────────┐
//!        │ ALLOC / WROTE                                       ▼
//!  delivered ─► ┌─ op pipeline (S0 arbitrate/allocate, ──► descriptors ─► streamer ─► source
//!  credit    ─► │  S1 read row, S2 update row, pick the       (FIFO)     (8 header slots,
//!  timer     ─► └─ packet to send)                                        payload words)
//!  send queue (FIFO of the ids that became sendable, in order) ─► SEND ops
//! ```
//!
//! # Message ids
//! A message lives in one of `N = 2^A` slots (`A <= 8`); slots are reused. Each slot
//! counts its incarnations in an 8-bit generation (wrapping): a never-used slot starts
//! at 0, each reuse takes the next value. On the wire (`source.tx_msg_id`, which the
//! receiver echoes in its ACK/NACK/PULL/GRANT packets) a message is `gen << 8 | id`, so
//! successive incarnations of a slot look different to the receiver (its reassembly key
//! is `(src_ip, src_port, tx_msg_id)`) and to this block: `delivered` and `credit` events
//! carry that 16-bit value and are applied only when slot `tx_msg_id & 0xff` is active
//! and `tx_msg_id >> 8` is its current generation. Anything else (an unknown slot, a
//! freed one, or a late event of an earlier incarnation of a reused slot) is dropped and
//! counted in `stat.bad_events`. Only an event 256 incarnations of its slot old can match
//! again. `status` and the allocation the application sees use the bare slot id
//! (`0..N-1`).
//!
//! Never-used slots are taken first, then released ones, oldest release first (a FIFO).
//! A released slot waits `cfg.reuse_gap` cycles before its next incarnation (the NIC
//! top sets about `rx_timeout / 125`), so 128 incarnations of a slot span more than a
//! receiver's `rx_timeout`: the receiver's late-duplicate table (`crate::reassembly`)
//! tells a slot's generations apart by serial arithmetic over a window of 128 within
//! that timeout. The wait binds only when messages complete faster than that (a slot
//! reused sooner than that: 1,256 cycles at the defaults, so with 16 slots at most one
//! message per 79 cycles for messages that complete faster).
//!
//! # Control packets are checked, not believed
//! An event of the current incarnation is applied only when it is about this message and
//! names only what was sent:
//! * its claim (`peer_ip`, `peer_port`, `local_port`, `msg_len`: the control packet's
//!   source address and context, destination context and `msg_len`) equals the message's
//!   destination address and context, source context and length; otherwise it is
//!   dropped and counted in `stat.bad_peer`;
//! * every offset it names is below `maxTxPktOffset`: the bits of `ack_bitmap` and, with
//!   `rtx_flag`, of `rtx_bitmap`, and a cumulative `below` (at most `maxTxPktOffset`);
//!   otherwise it is dropped whole and counted in `stat.bad_offset`. So no ACK can free a
//!   message before every packet of it was sent at least once.
//!
//! `new_credit` needs no check: it is an exclusive bound on the offsets that may be sent
//! (saturated at 255), and a message never sends beyond its last packet. The NIC top
//! (`crate::nic`) feeds the claim from the record the program took.
//!
//! # Interfaces
//! * `app`: a message is the TX app header word `dst_ip[63:32] | dst_context[31:16] |
//!   msg_len[15:0]` then `ceil(msg_len/8)` payload words (first byte in bits 63:56), `last`
//!   on the final word; `src_port` (the local context) beside the header word. The header
//!   is accepted only when a message id and a buffer of a fitting class are free; until
//!   then `app.ready` stays low (backpressure, never a drop). A header is taken at the
//!   earliest in the cycle after it first shows on `app` (its length checks are made in
//!   that first cycle and registered); like any stream word it stays until taken. A header with `msg_len` 0 or
//!   above [`MAX_MSG_BYTES`] is consumed with its payload and reported on `status` with
//!   [`STATUS_REFUSED`] (its `tx_msg_id` is 0xffff).
//! * `delivered` (Alg. 2), for `tx_msg_id = gen << 8 | id` (see above): marks
//!   `ack_bitmap`, and all offsets below `below` when `below_flag`, as delivered. When
//!   every packet is delivered the message is freed and [`STATUS_DELIVERED`] is reported.
//! * `credit` (Alg. 3), same `tx_msg_id`: `rtx_flag` queues `rtx_bitmap` for
//!   (re)transmission within credit; `credit_flag` sets `credit = new_credit` (an
//!   exclusive bound on `pkt_offset`, may go down); `allow_tx` enables or pauses the
//!   message's transmission; `rank_flag` sets the rank its later packets carry.
//! * Egress timer (Alg. 4): armed at allocation with `cfg.timeout` and `rtx_offset` =
//!   the initial credit (`cfg.rtt_pkts`: the window the message sends at once; Algorithm 4
//!   arms it with the `maxTxPktOffset` of that time, 0, so a first window lost whole, as
//!   when the receiver has no free buffer or a drop-tail queue overflows, would be
//!   retransmitted only at the second timeout), re-armed on expiry with the message's
//!   `maxTxPktOffset`. On expiry: if `timeoutCnt >= cfg.max_timeouts` the
//!   message is given up ([`STATUS_GAVE_UP`]; Algorithm 4 line 3's `timeoutCnt >
//!   threshold` with threshold `max_timeouts - 1`); else `timeoutCnt` is reset when
//!   `maxTxPktOffset` grew beyond the armed `rtx_offset` and incremented otherwise, every
//!   undelivered offset below the armed `rtx_offset` is retransmitted regardless of
//!   credit, and the timer is re-armed. When there is none (every packet sent is
//!   delivered) but the message is not done, the credit that should have let it go on
//!   was lost (a PULL or GRANT dropped by the network): the first packet not yet sent,
//!   offset `maxTxPktOffset`, is queued as a probe regardless of credit
//!   (`stat.probes`). Its acknowledgement brings new credit. A probe grows
//!   `maxTxPktOffset`, which counts as progress, so a message whose receiver is gone is
//!   given up after at most `total + max_timeouts` timeouts.
//! * `source`: packets as 64-bit words: [`HDR_WORDS`] header slots (zero; the egress
//!   pipeline writes the headers there) then the payload words, `last` on the final word,
//!   Listing 3.2 metadata beside every word (`tx_msg_id = gen << 8 | id`; `credit` and
//!   `rank` as of the send; `flags` DATA).
//! * `status`: one event per message: delivered, given up, or refused; its `tx_msg_id`
//!   is the bare slot id (`0..N-1`, the id the application's message got), not the wire
//!   id.
//!
//! `maxTxPktOffset` is kept as an exclusive bound: one more than the highest offset sent.
//!
//! # Sending
//! A packet may be sent when it is queued for retransmission by a timeout, or when its bit
//! in txBitmap is set and `offset < credit`; never when it is delivered, and never before
//! the application has started writing it (the streamer waits, word by word, for the
//! packet being written, so a message's first packet can leave while its payload still
//! arrives). Among a message's sendable packets the lowest offset goes first; messages take
//! turns (round robin, in the order they became sendable). A new message's first packet goes out with its ALLOC op when the
//! descriptor queue holds at most one entry, and a word skips the output FIFO when it is
//! empty. So a 16-byte message's first word leaves 7 cycles after its header shows (6 after
//! it is taken).
//!
//! # The op pipeline
//! S0 arbitrates and allocates; S1 reads the row (a RAM with a registered read); S2 checks
//! the event against the row and applies it, and computes from the masks of the offsets
//! below the credit, the packets written and maxTxPktOffset the packets that may go
//! (`s3_pending`); S3 picks the lowest pending offset,
//! writes the row back, queues the descriptor, updates the active flags and the send queue and
//! commands the timer. Two ops of one message are never in consecutive stages (an event,
//! timer event or WROTE for the message of the op in S1 waits a cycle; a SEND never goes
//! to a message with an op in flight), so S2 reads either the RAM or the row the op two
//! ahead wrote (held in S4), never one still being computed. The streamer takes a
//! descriptor from the queue's head and computes the packet's buffer address and length
//! there.
//!
//! # The send queue
//! Messages take turns through a FIFO of slot ids (`N` deep) rather than a scan of the `N`
//! eligible flags, so that choosing the next SEND is O(1) logic at any `N`. S3 pushes its
//! message's id when the op leaves the message eligible (a packet may go: allowed, and one
//! pending) and the id is not already queued (the push is registered: the id may be the
//! head two cycles after S3); a SEND pops the head. A SEND goes to the head
//! when no op of that message is in flight (else the head waits; the other ops go first),
//! so a message that stays eligible after its SEND is pushed again behind the others. An
//! entry can go stale (its message was acknowledged, freed or refused credit after it was
//! queued): its SEND finds nothing to send at S3 and is a no-op (no packet, no counter),
//! and its message is queued again when an op makes it eligible.
//!
//! The FIFOs S0 pops (this send queue, the released-id FIFO and the size classes' buffer
//! return FIFOs) are [`crate::pfifo::PrefetchFifo`]s: the same cycles as
//! [`crate::fifo::Fifo`], but their RAMs read at a register, so S0's decision ends in
//! their head registers and read pointers, not in a RAM's address.
use crate::arbiter::TxFrameSource;
use crate::fifo::Fifo;
use crate::pfifo::PrefetchFifo;
use crate::pool::{BufferConfig, MAX_CLASSES};
use crate::timer::{ScanningTimer, OP_CANCEL, OP_SCHEDULE};
use rust_hdl::prelude::*;

/// Header slots before the payload of every packet.
pub const HDR_WORDS: u64 = 8;
/// Payload bytes per packet (all but a message's last carry this many).
pub const PKT_BYTES: u64 = 1024;
/// Packets per message at most.
pub const MAX_PKTS: usize = 38;
/// Largest message.
pub const MAX_MSG_BYTES: u64 = MAX_PKTS as u64 * PKT_BYTES;
/// `status.code`: every packet was delivered.
pub const STATUS_DELIVERED: u64 = 1;
/// `status.code`: given up after `cfg.max_timeouts` timeouts without progress.
pub const STATUS_GAVE_UP: u64 = 2;
/// `status.code`: the message's length was invalid; nothing was sent.
pub const STATUS_REFUSED: u64 = 3;
/// `flags` of a data packet.
pub const FLAG_DATA: u64 = 0x01;

/// Application message stream in.
#[derive(LogicInterface, Default)]
pub struct TxAppSink {
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub data: Signal<In, Bits<64>>,
    pub last: Signal<In, bool>,
    /// The sender's context (port), read with the header word.
    pub src_port: Signal<In, Bits<16>>,
    /// High in the cycle a header word is taken and given a message id: `id` is that id,
    /// the one the message's `status` event carries. Low when the header is refused.
    pub alloc: Signal<Out, bool>,
    pub id: Signal<Out, Bits<16>>,
}

/// `DeliveredEvent` (Algorithm 2), bitmap and cumulative forms.
#[derive(LogicInterface, Default)]
pub struct DeliveredIn {
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub tx_msg_id: Signal<In, Bits<16>>,
    pub ack_bitmap: Signal<In, Bits<MAX_PKTS>>,
    pub below_flag: Signal<In, bool>,
    pub below: Signal<In, Bits<8>>,
    /// The message the control packet claims to be about, checked against the row:
    /// the packet's source address and context (our message's destination), its
    /// destination context (our message's source context) and its `msg_len`.
    pub peer_ip: Signal<In, Bits<32>>,
    pub peer_port: Signal<In, Bits<16>>,
    pub local_port: Signal<In, Bits<16>>,
    pub msg_len: Signal<In, Bits<16>>,
}

/// `CreditTxEvent` (Algorithm 3).
#[derive(LogicInterface, Default)]
pub struct CreditIn {
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub tx_msg_id: Signal<In, Bits<16>>,
    pub rtx_flag: Signal<In, bool>,
    pub rtx_bitmap: Signal<In, Bits<MAX_PKTS>>,
    pub credit_flag: Signal<In, bool>,
    pub new_credit: Signal<In, Bits<16>>,
    pub allow_tx: Signal<In, bool>,
    pub rank_flag: Signal<In, bool>,
    pub new_rank: Signal<In, Bits<8>>,
    /// As on `delivered`: the message the control packet claims to be about, checked against the row:
    /// the packet's source address and context (our message's destination), its
    /// destination context (our message's source context) and its `msg_len`.
    pub peer_ip: Signal<In, Bits<32>>,
    pub peer_port: Signal<In, Bits<16>>,
    pub local_port: Signal<In, Bits<16>>,
    pub msg_len: Signal<In, Bits<16>>,
}

/// Per-message outcome for the application. `tx_msg_id` is the bare slot id (`0..N-1`;
/// 0xffff for a refused header), not the wire id `gen << 8 | id`.
#[derive(LogicInterface, Default)]
pub struct TxStatusOut {
    pub valid: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
    pub tx_msg_id: Signal<Out, Bits<16>>,
    pub code: Signal<Out, Bits<2>>,
}

/// Runtime configuration.
#[derive(LogicInterface, Default)]
pub struct PacketizationCfg {
    /// Initial credit of a message, in packets (the BDP).
    pub rtt_pkts: Signal<In, Bits<8>>,
    /// Retransmission timeout in cycles (below 2^31).
    pub timeout: Signal<In, Bits<32>>,
    /// Timeouts without progress before a message is given up.
    pub max_timeouts: Signal<In, Bits<8>>,
    /// Cycles a released slot waits before its next incarnation (see "Message ids").
    pub reuse_gap: Signal<In, Bits<32>>,
}

/// Counters (wrapping) and free-list levels.
#[derive(LogicInterface, Default)]
pub struct PacketizationStats {
    /// Packets sent, first transmissions and retransmissions.
    pub sent: Signal<Out, Bits<32>>,
    /// Packets sent again (offset below maxTxPktOffset).
    pub retransmitted: Signal<Out, Bits<32>>,
    /// Timeouts that found nothing to retransmit and queued a probe (see "Egress timer").
    pub probes: Signal<Out, Bits<32>>,
    /// Messages given up.
    pub given_up: Signal<Out, Bits<32>>,
    /// Messages fully delivered.
    pub completed: Signal<Out, Bits<32>>,
    /// Events for a `tx_msg_id` that is not an active message's current incarnation
    /// (unknown or freed slot, or an older generation of the slot): dropped.
    pub bad_events: Signal<Out, Bits<32>>,
    /// Events of an active message whose claim (peer address and ports, `msg_len`)
    /// differs from the message's: dropped.
    pub bad_peer: Signal<Out, Bits<32>>,
    /// Events of an active message, claim matching, naming offsets never sent (an ACK or
    /// NACK bit, or a cumulative `below`, at or above `maxTxPktOffset`): dropped.
    pub bad_offset: Signal<Out, Bits<32>>,
    pub ids_free: Signal<Out, Bits<16>>,
    pub bufs_free: Signal<Out, Bits<16>>,
}

/// Per-message state: 277 bits (35 bytes); 45 bytes with the active and queued flags
/// and the timer entry, of the 100 allowed (`docs/budgets.md`).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct TxRow {
    pub delivered: Bits<MAX_PKTS>,
    pub txb: Bits<MAX_PKTS>,
    /// Queued for retransmission by a timeout (sent regardless of credit).
    pub rtxf: Bits<MAX_PKTS>,
    pub credit: Bits<8>,
    pub max_tx: Bits<8>,
    pub tcnt: Bits<8>,
    pub total: Bits<8>,
    /// Packets the application has started writing.
    pub written: Bits<8>,
    pub allow: bool,
    pub rank: Bits<8>,
    pub dst_ip: Bits<32>,
    pub dst_port: Bits<16>,
    pub src_port: Bits<16>,
    pub msg_len: Bits<16>,
    pub buf_addr: Bits<24>,
    pub size_class: Bits<2>,
    /// Generation (allocation number): the high byte of the message's wire `tx_msg_id`.
    pub gen: Bits<8>,
}

/// A released slot on its way back to the allocator.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct RetId {
    /// The wire id of the incarnation released, `gen << 8 | id`.
    pub tag: Bits<16>,
    /// The first cycle (`now`) from which the slot may be allocated again.
    pub ready: Bits<64>,
}

/// A packet to stream, or a message to release.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct TxDesc {
    /// Release the message's id and buffer and report `code`, instead of a packet.
    pub release: bool,
    pub code: Bits<2>,
    /// The message's wire id, `gen << 8 | id`.
    pub id: Bits<16>,
    pub offset: Bits<8>,
    /// The message's buffer (first word); the streamer adds the packet's offset.
    pub buf: Bits<24>,
    /// The message's last packet (shorter than the others unless the length is a
    /// multiple of [`PKT_BYTES`]).
    pub last: bool,
    pub dst_ip: Bits<32>,
    pub dst_port: Bits<16>,
    pub src_port: Bits<16>,
    pub msg_len: Bits<16>,
    pub credit: Bits<8>,
    pub rank: Bits<8>,
    pub is_new: bool,
    pub is_rtx: bool,
    pub size_class: Bits<2>,
}

/// A word on its way to `source`, with its packet's metadata.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct TxWord {
    pub data: Bits<64>,
    pub last: bool,
    pub dst_ip: Bits<32>,
    pub dst_port: Bits<16>,
    pub src_port: Bits<16>,
    pub msg_len: Bits<16>,
    pub offset: Bits<8>,
    pub id: Bits<16>,
    pub credit: Bits<8>,
    pub rank: Bits<8>,
    pub is_new: bool,
    pub is_rtx: bool,
}

// Op kinds in the pipeline are the indices of the `kinds` constants: 0 none, 1 ALLOC
// (app header), 2 WROTE (a packet's first word written), 3 DELIVERED, 4 CREDIT,
// 5 TIMEOUT, 6 SEND.
// The HDL kernel indexes arrays with literal expressions (`37 - i`, `3 - i`).
const _: () = assert!(MAX_PKTS == 38 && MAX_CLASSES == 4);

/// The packetization module. See the module documentation.
#[derive(LogicBlock)]
pub struct Packetization<const A: usize, const N: usize, const C: usize, const BW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub now: Signal<In, Bits<64>>,
    pub cfg: PacketizationCfg,
    pub app: TxAppSink,
    pub delivered: DeliveredIn,
    pub credit: CreditIn,
    pub source: TxFrameSource,
    pub status: TxStatusOut,
    pub stat: PacketizationStats,

    rows: RAM<TxRow, A>,
    buffer: RAM<Bits<64>, BW>,
    timer: ScanningTimer<A, N, 16>,
    // free lists (never-used entries from counters, returned ones from FIFOs)
    id_ret: PrefetchFifo<RetId, A, C>,
    /// The head of `id_ret` was there last cycle, was not taken, and was ready.
    ret_ok: DFF<bool>,
    id_fresh: DFF<Bits<C>>,
    cls_ret: [PrefetchFifo<Bits<24>, A, C>; MAX_CLASSES],
    cls_off: [DFF<Bits<24>>; MAX_CLASSES],
    cls_taken: [DFF<Bits<C>>; MAX_CLASSES],
    cls_bytes: [Constant<Bits<16>>; MAX_CLASSES],
    cls_base: [Constant<Bits<24>>; MAX_CLASSES],
    cls_words: [Constant<Bits<24>>; MAX_CLASSES],
    cls_count: [Constant<Bits<C>>; MAX_CLASSES],
    cls_code: [Constant<Bits<2>>; MAX_CLASSES],
    alive: DFF<Bits<N>>,
    /// The send queue: ids that became eligible, oldest first (each at most once).
    sendq: PrefetchFifo<Bits<A>, A, C>,
    /// Ids in `sendq`.
    queued: DFF<Bits<N>>,
    // writer
    w_active: DFF<bool>,
    w_refuse: DFF<bool>,
    w_id: DFF<Bits<A>>,
    w_gen: DFF<Bits<8>>,
    w_addr: DFF<Bits<24>>,
    w_left: DFF<Bits<16>>,
    w_in_pkt: DFF<Bits<8>>,
    w_pkts: DFF<Bits<8>>,
    w_total: DFF<Bits<8>>,
    wrote_pend: DFF<bool>,
    wrote_id: DFF<Bits<A>>,
    wrote_gen: DFF<Bits<8>>,
    wrote_n: DFF<Bits<8>>,
    refuse_pend: DFF<bool>,
    /// The header word on `app` was there last cycle too (not taken): its checks below,
    /// made from it then, hold now (a stream's data stays until it is taken).
    h_seen: DFF<bool>,
    h_ok: DFF<bool>,
    h_total: DFF<Bits<8>>,
    h_words: DFF<Bits<16>>,
    /// The header's length fits size class `i`.
    h_fit: [DFF<bool>; MAX_CLASSES],
    // S1 / S2 / S3
    s1_kind: DFF<Bits<3>>,
    s1_id: DFF<Bits<A>>,
    s1_id_ok: DFF<bool>,
    s1_bits: DFF<Bits<MAX_PKTS>>,
    s1_f1: DFF<bool>,
    s1_f2: DFF<bool>,
    s1_f3: DFF<bool>,
    s1_allow: DFF<bool>,
    s1_n: DFF<Bits<8>>,
    s1_rank: DFF<Bits<8>>,
    s1_gen: DFF<Bits<8>>,
    s1_ip: DFF<Bits<32>>,
    s1_dport: DFF<Bits<16>>,
    s1_sport: DFF<Bits<16>>,
    s1_len: DFF<Bits<16>>,
    s1_buf: DFF<Bits<24>>,
    s1_class: DFF<Bits<2>>,
    s1_total: DFF<Bits<8>>,
    s2_kind: DFF<Bits<3>>,
    s2_id: DFF<Bits<A>>,
    s2_id_ok: DFF<bool>,
    s2_bits: DFF<Bits<MAX_PKTS>>,
    s2_f1: DFF<bool>,
    s2_f2: DFF<bool>,
    s2_f3: DFF<bool>,
    s2_allow: DFF<bool>,
    s2_n: DFF<Bits<8>>,
    s2_rank: DFF<Bits<8>>,
    s2_gen: DFF<Bits<8>>,
    s2_ip: DFF<Bits<32>>,
    s2_dport: DFF<Bits<16>>,
    s2_sport: DFF<Bits<16>>,
    s2_len: DFF<Bits<16>>,
    s2_buf: DFF<Bits<24>>,
    s2_class: DFF<Bits<2>>,
    s2_total: DFF<Bits<8>>,
    /// S2 reads the row S4 holds (written by the op two ahead; the RAM read missed it).
    s2_fwd: DFF<bool>,
    /// Offsets below `s1_n` (cumulative ACK, timeout's rtx_offset).
    s2_bn: DFF<Bits<MAX_PKTS>>,
    s3_kind: DFF<Bits<3>>,
    s3_id: DFF<Bits<A>>,
    /// The row after the event, before the send.
    s3_nr: DFF<TxRow>,
    /// The packets that may go now (S2 computes them from the row after the event, so
    /// that S3's pick starts from a register), the offsets of the message, and those sent.
    s3_pending: DFF<Bits<MAX_PKTS>>,
    s3_full: DFF<Bits<MAX_PKTS>>,
    s3_sent: DFF<Bits<MAX_PKTS>>,
    s3_alive: DFF<bool>,
    /// S3's message is in the send queue (read at S2: no other op of it can change that
    /// in between, and a SEND never takes a message with an op in flight).
    s3_queued: DFF<bool>,
    /// The send queue's push, a cycle after S3 decides it (`queued` is set at once).
    sq_push_r: DFF<bool>,
    sq_id_r: DFF<Bits<A>>,
    s3_send_req: DFF<bool>,
    s3_dlv_all: DFF<bool>,
    s3_give_up: DFF<bool>,
    s3_rearm: DFF<bool>,
    s3_probe: DFF<bool>,
    s3_bad: DFF<bool>,
    s3_peer: DFF<bool>,
    s3_offset: DFF<bool>,
    s4_valid: DFF<bool>,
    s4_id: DFF<Bits<A>>,
    s4_row: DFF<TxRow>,
    // transmit path
    desc: Fifo<TxDesc, 3, 4>,
    st_busy: DFF<bool>,
    st_cur: DFF<TxDesc>,
    st_beat: DFF<Bits<16>>,
    /// Buffer word of the next payload beat, beats left, the next beat is payload / the
    /// packet's last, and the packet is of the message the writer is writing.
    st_addr: DFF<Bits<24>>,
    st_left: DFF<Bits<16>>,
    st_pay: DFF<bool>,
    st_last: DFF<bool>,
    st_same: DFF<bool>,
    b_valid: DFF<bool>,
    b_payload: DFF<bool>,
    b_last: DFF<bool>,
    b_cur: DFF<TxDesc>,
    out: Fifo<TxWord, 2, 3>,
    st_valid: DFF<bool>,
    st_id: DFF<Bits<16>>,
    st_code: DFF<Bits<2>>,
    // counters
    cnt_sent: DFF<Bits<32>>,
    cnt_rtx: DFF<Bits<32>>,
    cnt_probe: DFF<Bits<32>>,
    rtx_set: Signal<Local, Bits<MAX_PKTS>>,
    cnt_gave_up: DFF<Bits<32>>,
    cnt_completed: DFF<Bits<32>>,
    cnt_bad: DFF<Bits<32>>,
    cnt_peer: DFF<Bits<32>>,
    cnt_offset: DFF<Bits<32>>,

    // locals
    hdr_len: Signal<Local, Bits<16>>,
    hdr_ok_len: Signal<Local, bool>,
    id_ok: Signal<Local, bool>,
    fresh_ok: Signal<Local, bool>,
    /// `id_fresh`'s top bit (`id_fresh & N`).
    fresh_top: Signal<Local, Bits<C>>,
    new_id: Signal<Local, Bits<A>>,
    new_gen: Signal<Local, Bits<8>>,
    /// `id_ret.head.tag` (a field cannot be sliced in place in the emitted Verilog).
    ret_tag: Signal<Local, Bits<16>>,
    cls_ok: Signal<Local, bool>,
    cls_sel: Signal<Local, Bits<2>>,
    cls_addr: Signal<Local, Bits<24>>,
    room: Signal<Local, bool>,
    send_room: Signal<Local, bool>,
    dlv_go: Signal<Local, bool>,
    crd_go: Signal<Local, bool>,
    tmo_go: Signal<Local, bool>,
    wrote_go: Signal<Local, bool>,
    alloc_go: Signal<Local, bool>,
    refuse_go: Signal<Local, bool>,
    send_go: Signal<Local, bool>,
    s0_kind: Signal<Local, Bits<3>>,
    /// The send queue's head, and whether a SEND may go to it now.
    pick: Signal<Local, Bits<A>>,
    pick_any: Signal<Local, bool>,
    /// Push S3's message into the send queue.
    sq_push: Signal<Local, bool>,
    /// `queued` without the id a SEND takes now.
    q_popped: Signal<Local, Bits<N>>,
    hdr_total: Signal<Local, Bits<8>>,
    hdr_words: Signal<Local, Bits<16>>,
    ev_id: Signal<Local, Bits<16>>,
    /// The event's slot byte (`tx_msg_id & 0xff`).
    ev_lo: Signal<Local, Bits<16>>,
    row: Signal<Local, TxRow>,
    nr: Signal<Local, TxRow>,
    full: Signal<Local, Bits<MAX_PKTS>>,
    below_credit: Signal<Local, Bits<MAX_PKTS>>,
    below_written: Signal<Local, Bits<MAX_PKTS>>,
    pending: Signal<Local, Bits<MAX_PKTS>>,
    send_off: Signal<Local, Bits<8>>,
    s2_alive: Signal<Local, bool>,
    /// S2 holds a DELIVERED or CREDIT event.
    s2_ev: Signal<Local, bool>,
    /// ... for the slot's current incarnation (or S2 holds another op on an active slot).
    s2_gen_ok: Signal<Local, bool>,
    /// The event's claim matches the row; its offsets were sent.
    claim_ok: Signal<Local, bool>,
    range_ok: Signal<Local, bool>,
    /// Offsets below `maxTxPktOffset`.
    sent_mask: Signal<Local, Bits<MAX_PKTS>>,
    /// The checks of S2 on the RAM's row and on the forwarded row (`s4_row`).
    gen_ram: Signal<Local, bool>,
    gen_fwd: Signal<Local, bool>,
    gen_eq: Signal<Local, bool>,
    claim_ram: Signal<Local, bool>,
    claim_fwd: Signal<Local, bool>,
    sent_ram: Signal<Local, Bits<MAX_PKTS>>,
    sent_fwd: Signal<Local, Bits<MAX_PKTS>>,
    range_ram: Signal<Local, bool>,
    range_fwd: Signal<Local, bool>,
    /// A cumulative DELIVERED (`below` in `s2_n`).
    s2_cum: Signal<Local, bool>,
    free_now: Signal<Local, bool>,
    free_code: Signal<Local, Bits<2>>,
    elig_bit: Signal<Local, bool>,
    id_mask: Signal<Local, Bits<N>>,
    expiry: Signal<Local, Bits<64>>,
    out_room: Signal<Local, bool>,
    can_issue: Signal<Local, bool>,
    issue_last: Signal<Local, bool>,
    take_desc: Signal<Local, bool>,
    status_free: Signal<Local, bool>,
    ids_free_c: Signal<Local, Bits<C>>,
    cls_free: [Signal<Local, Bits<C>>; MAX_CLASSES],
    sending: Signal<Local, bool>,
    wr: Signal<Local, TxRow>,
    meta_gen: Signal<Local, Bits<16>>,
    meta_max: Signal<Local, Bits<16>>,
    row_wr: Signal<Local, bool>,
    head_id: Signal<Local, Bits<16>>,
    /// The wire `tx_msg_id` (`gen << 8 | id`) of S2's message and of the writer's.
    id_tag: Signal<Local, Bits<16>>,
    w_tag: Signal<Local, Bits<16>>,
    /// The descriptor S2 queues.
    pd: Signal<Local, TxDesc>,
    /// The lowest pending offset (one-hot), offset + 1, and what is left after it.
    onehot: Signal<Local, Bits<MAX_PKTS>>,
    off1: Signal<Local, Bits<8>>,
    has_more: Signal<Local, bool>,
    /// Some packet below the one being looked at is pending (the scan for `has_more`).
    seen_one: Signal<Local, bool>,
    is_rtx: Signal<Local, bool>,
    /// S0: the event / timer event / WROTE is for the message of the op in S1 (it waits:
    /// two ops of one message are never in consecutive stages).
    dlv_conf: Signal<Local, bool>,
    crd_conf: Signal<Local, bool>,
    tmo_conf: Signal<Local, bool>,
    wrote_conf: Signal<Local, bool>,
    s1_busy: Signal<Local, bool>,
    /// S2: every packet delivered; the timeout gives up; it is for the armed incarnation;
    /// it queues a probe.
    all_dlv: Signal<Local, bool>,
    give_up: Signal<Local, bool>,
    tmo_ok: Signal<Local, bool>,
    probe_q: Signal<Local, bool>,
    /// `max_tx < total` and `tcnt >= max_timeouts` of the RAM's row and of the forwarded
    /// one, side by side (the forward picks a bit: no multiplexer before the compares).
    lt_ram: Signal<Local, bool>,
    lt_fwd: Signal<Local, bool>,
    lt_total: Signal<Local, bool>,
    ge_ram: Signal<Local, bool>,
    ge_fwd: Signal<Local, bool>,
    tcnt_out: Signal<Local, bool>,
    /// The first offset not yet sent (one-hot), a timeout's probe.
    probe_bit: Signal<Local, Bits<MAX_PKTS>>,
    /// S1: offsets below `s1_n`.
    bn_s1: Signal<Local, Bits<MAX_PKTS>>,
    /// The streamer takes a packet descriptor; its first buffer word and beats.
    take_pkt: Signal<Local, bool>,
    d_addr: Signal<Local, Bits<24>>,
    d_left: Signal<Local, Bits<16>>,
    w_stall: Signal<Local, bool>,
    /// The word stage B produces, and the word on `source`.
    b_word: Signal<Local, TxWord>,
    src_word: Signal<Local, TxWord>,
    /// `source` shows stage B's word directly (the output FIFO is empty).
    out_through: Signal<Local, bool>,

    // constants
    kinds: [Constant<Bits<3>>; 7],
    off_code: [Constant<Bits<8>>; MAX_PKTS],
    off1_code: [Constant<Bits<8>>; MAX_PKTS],
    /// `1 << i`.
    bit_p: [Constant<Bits<MAX_PKTS>>; MAX_PKTS],
    one_n: Constant<Bits<N>>,
    zero_n: Constant<Bits<N>>,
    one_c: Constant<Bits<C>>,
    zero_c: Constant<Bits<C>>,
    n_ids: Constant<Bits<C>>,
    one_p: Constant<Bits<MAX_PKTS>>,
    zero_p: Constant<Bits<MAX_PKTS>>,
    one_8: Constant<Bits<8>>,
    zero_8: Constant<Bits<8>>,
    max_8: Constant<Bits<8>>,
    c127: Constant<Bits<8>>,
    zero_10: Constant<Bits<10>>,
    zero_16: Constant<Bits<16>>,
    one_16: Constant<Bits<16>>,
    c7: Constant<Bits<16>>,
    max_len: Constant<Bits<16>>,
    all_16: Constant<Bits<16>>,
    lo8_16: Constant<Bits<16>>,
    sh1: Constant<Bits<5>>,
    sh3: Constant<Bits<5>>,
    sh7: Constant<Bits<5>>,
    sh8: Constant<Bits<5>>,
    one_24: Constant<Bits<24>>,
    zero_24: Constant<Bits<24>>,
    one_32: Constant<Bits<32>>,
    zero_32: Constant<Bits<32>>,
    zero_64: Constant<Bits<64>>,
    two_3: Constant<Bits<3>>,
    c4_4: Constant<Bits<4>>,
    /// Beats of a full packet (8 header slots + 128 words); header slots + 7 bytes.
    c136_16: Constant<Bits<16>>,
    c71_16: Constant<Bits<16>>,
    two_16: Constant<Bits<16>>,
    one_4: Constant<Bits<4>>,
    op_schedule: Constant<Bits<2>>,
    op_cancel: Constant<Bits<2>>,
    st_delivered: Constant<Bits<2>>,
    st_gave_up: Constant<Bits<2>>,
    st_refused: Constant<Bits<2>>,
    flag_data: Constant<Bits<8>>,
    zero_2: Constant<Bits<2>>,
}

impl<const A: usize, const N: usize, const C: usize, const BW: usize> Packetization<A, N, C, BW> {
    /// Builds the block for `cfg`. Panics when the parameters are inconsistent or `cfg` is
    /// invalid for them (see [`BufferConfig::validate`]).
    pub fn new(cfg: &BufferConfig) -> Self {
        // The slot id is the low byte of the wire `tx_msg_id` (`gen << 8 | id`).
        assert!(
            (1..=8).contains(&A),
            "packetization id bits A={A} must be 1..=8 (the id is tx_msg_id's low byte)"
        );
        assert_eq!(N, 1 << A, "packetization messages N={N} must be 2^A");
        assert_eq!(C, A + 1, "packetization count bits C={C} must be A+1");
        assert!(
            (4..=24).contains(&BW),
            "buffer word-address bits BW={BW} must be 4..=24"
        );
        if let Err(e) = cfg.validate(N, MAX_MSG_BYTES, BW) {
            panic!("invalid packetization configuration: {e}");
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            now: Default::default(),
            cfg: Default::default(),
            app: Default::default(),
            delivered: Default::default(),
            credit: Default::default(),
            source: Default::default(),
            status: Default::default(),
            stat: Default::default(),
            rows: Default::default(),
            buffer: Default::default(),
            timer: ScanningTimer::new(),
            id_ret: PrefetchFifo::new(),
            ret_ok: Default::default(),
            id_fresh: Default::default(),
            cls_ret: std::array::from_fn(|_| PrefetchFifo::new()),
            cls_off: Default::default(),
            cls_taken: Default::default(),
            cls_bytes: std::array::from_fn(|i| Constant::new(cfg.bytes_of(i).into())),
            cls_base: std::array::from_fn(|i| Constant::new(cfg.base_of(i).into())),
            cls_words: std::array::from_fn(|i| Constant::new(cfg.words_of(i).into())),
            cls_count: std::array::from_fn(|i| Constant::new(cfg.count_of(i).into())),
            cls_code: std::array::from_fn(|i| Constant::new((i as u64).into())),
            alive: Default::default(),
            sendq: PrefetchFifo::new(),
            queued: Default::default(),
            w_active: Default::default(),
            w_refuse: Default::default(),
            w_id: Default::default(),
            w_gen: Default::default(),
            w_addr: Default::default(),
            w_left: Default::default(),
            w_in_pkt: Default::default(),
            w_pkts: Default::default(),
            w_total: Default::default(),
            wrote_pend: Default::default(),
            wrote_id: Default::default(),
            wrote_gen: Default::default(),
            wrote_n: Default::default(),
            refuse_pend: Default::default(),
            h_seen: Default::default(),
            h_ok: Default::default(),
            h_total: Default::default(),
            h_words: Default::default(),
            h_fit: Default::default(),
            s1_kind: Default::default(),
            s1_id: Default::default(),
            s1_id_ok: Default::default(),
            s1_bits: Default::default(),
            s1_f1: Default::default(),
            s1_f2: Default::default(),
            s1_f3: Default::default(),
            s1_allow: Default::default(),
            s1_n: Default::default(),
            s1_rank: Default::default(),
            s1_gen: Default::default(),
            s1_ip: Default::default(),
            s1_dport: Default::default(),
            s1_sport: Default::default(),
            s1_len: Default::default(),
            s1_buf: Default::default(),
            s1_class: Default::default(),
            s1_total: Default::default(),
            s2_kind: Default::default(),
            s2_id: Default::default(),
            s2_id_ok: Default::default(),
            s2_bits: Default::default(),
            s2_f1: Default::default(),
            s2_f2: Default::default(),
            s2_f3: Default::default(),
            s2_allow: Default::default(),
            s2_n: Default::default(),
            s2_rank: Default::default(),
            s2_gen: Default::default(),
            s2_ip: Default::default(),
            s2_dport: Default::default(),
            s2_sport: Default::default(),
            s2_len: Default::default(),
            s2_buf: Default::default(),
            s2_class: Default::default(),
            s2_total: Default::default(),
            s2_fwd: Default::default(),
            s2_bn: Default::default(),
            s3_kind: Default::default(),
            s3_id: Default::default(),
            s3_nr: Default::default(),
            s3_pending: Default::default(),
            s3_full: Default::default(),
            s3_sent: Default::default(),
            s3_alive: Default::default(),
            s3_queued: Default::default(),
            sq_push_r: Default::default(),
            sq_id_r: Default::default(),
            s3_send_req: Default::default(),
            s3_dlv_all: Default::default(),
            s3_give_up: Default::default(),
            s3_rearm: Default::default(),
            s3_probe: Default::default(),
            s3_bad: Default::default(),
            s3_peer: Default::default(),
            s3_offset: Default::default(),
            s4_valid: Default::default(),
            s4_id: Default::default(),
            s4_row: Default::default(),
            desc: Fifo::new(),
            st_busy: Default::default(),
            st_cur: Default::default(),
            st_beat: Default::default(),
            st_addr: Default::default(),
            st_left: Default::default(),
            st_pay: Default::default(),
            st_last: Default::default(),
            st_same: Default::default(),
            b_valid: Default::default(),
            b_payload: Default::default(),
            b_last: Default::default(),
            b_cur: Default::default(),
            out: Fifo::new(),
            st_valid: Default::default(),
            st_id: Default::default(),
            st_code: Default::default(),
            cnt_sent: Default::default(),
            cnt_rtx: Default::default(),
            cnt_probe: Default::default(),
            rtx_set: Default::default(),
            cnt_gave_up: Default::default(),
            cnt_completed: Default::default(),
            cnt_bad: Default::default(),
            cnt_peer: Default::default(),
            cnt_offset: Default::default(),
            s2_ev: Default::default(),
            s2_gen_ok: Default::default(),
            claim_ok: Default::default(),
            range_ok: Default::default(),
            sent_mask: Default::default(),
            gen_ram: Default::default(),
            gen_fwd: Default::default(),
            gen_eq: Default::default(),
            claim_ram: Default::default(),
            claim_fwd: Default::default(),
            sent_ram: Default::default(),
            sent_fwd: Default::default(),
            range_ram: Default::default(),
            range_fwd: Default::default(),
            s2_cum: Default::default(),
            hdr_len: Default::default(),
            hdr_ok_len: Default::default(),
            id_ok: Default::default(),
            fresh_ok: Default::default(),
            fresh_top: Default::default(),
            new_gen: Default::default(),
            ret_tag: Default::default(),
            new_id: Default::default(),
            cls_ok: Default::default(),
            cls_sel: Default::default(),
            cls_addr: Default::default(),
            room: Default::default(),
            send_room: Default::default(),
            dlv_go: Default::default(),
            crd_go: Default::default(),
            tmo_go: Default::default(),
            wrote_go: Default::default(),
            alloc_go: Default::default(),
            refuse_go: Default::default(),
            send_go: Default::default(),
            s0_kind: Default::default(),
            pick: Default::default(),
            pick_any: Default::default(),
            sq_push: Default::default(),
            q_popped: Default::default(),
            hdr_total: Default::default(),
            hdr_words: Default::default(),
            ev_id: Default::default(),
            ev_lo: Default::default(),
            row: Default::default(),
            nr: Default::default(),
            full: Default::default(),
            below_credit: Default::default(),
            below_written: Default::default(),
            pending: Default::default(),
            send_off: Default::default(),
            s2_alive: Default::default(),
            free_now: Default::default(),
            free_code: Default::default(),
            elig_bit: Default::default(),
            id_mask: Default::default(),
            expiry: Default::default(),
            onehot: Default::default(),
            off1: Default::default(),
            has_more: Default::default(),
            seen_one: Default::default(),
            is_rtx: Default::default(),
            dlv_conf: Default::default(),
            crd_conf: Default::default(),
            tmo_conf: Default::default(),
            wrote_conf: Default::default(),
            s1_busy: Default::default(),
            all_dlv: Default::default(),
            give_up: Default::default(),
            tmo_ok: Default::default(),
            probe_q: Default::default(),
            lt_ram: Default::default(),
            lt_fwd: Default::default(),
            lt_total: Default::default(),
            ge_ram: Default::default(),
            ge_fwd: Default::default(),
            tcnt_out: Default::default(),
            probe_bit: Default::default(),
            bn_s1: Default::default(),
            take_pkt: Default::default(),
            d_addr: Default::default(),
            d_left: Default::default(),
            w_stall: Default::default(),
            out_room: Default::default(),
            can_issue: Default::default(),
            issue_last: Default::default(),
            take_desc: Default::default(),
            status_free: Default::default(),
            ids_free_c: Default::default(),
            cls_free: Default::default(),
            sending: Default::default(),
            wr: Default::default(),
            meta_gen: Default::default(),
            meta_max: Default::default(),
            row_wr: Default::default(),
            head_id: Default::default(),
            id_tag: Default::default(),
            w_tag: Default::default(),
            pd: Default::default(),
            b_word: Default::default(),
            src_word: Default::default(),
            out_through: Default::default(),
            kinds: std::array::from_fn(|i| Constant::new((i as u64).into())),
            off_code: std::array::from_fn(|i| Constant::new((i as u64).into())),
            off1_code: std::array::from_fn(|i| Constant::new((i as u64 + 1).into())),
            bit_p: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            one_n: Constant::new(1.into()),
            zero_n: Constant::new(0.into()),
            one_c: Constant::new(1.into()),
            zero_c: Constant::new(0.into()),
            n_ids: Constant::new((N as u64).into()),
            one_p: Constant::new(1.into()),
            zero_p: Constant::new(0.into()),
            one_8: Constant::new(1.into()),
            zero_8: Constant::new(0.into()),
            max_8: Constant::new(255.into()),
            c127: Constant::new(127.into()),
            zero_10: Constant::new(0.into()),
            zero_16: Constant::new(0.into()),
            one_16: Constant::new(1.into()),
            c7: Constant::new(7.into()),
            max_len: Constant::new(MAX_MSG_BYTES.into()),
            all_16: Constant::new(0xffff.into()),
            lo8_16: Constant::new(0xff.into()),
            sh1: Constant::new(1.into()),
            sh3: Constant::new(3.into()),
            sh7: Constant::new(7.into()),
            sh8: Constant::new(8.into()),
            one_24: Constant::new(1.into()),
            zero_24: Constant::new(0.into()),
            one_32: Constant::new(1.into()),
            zero_32: Constant::new(0.into()),
            zero_64: Constant::new(0.into()),
            two_3: Constant::new(2.into()),
            c4_4: Constant::new(4.into()),
            c136_16: Constant::new((HDR_WORDS + PKT_BYTES / 8).into()),
            c71_16: Constant::new((HDR_WORDS * 8 + 7).into()),
            two_16: Constant::new(2.into()),
            one_4: Constant::new(1.into()),
            op_schedule: Constant::new((OP_SCHEDULE as u64).into()),
            op_cancel: Constant::new((OP_CANCEL as u64).into()),
            st_delivered: Constant::new(STATUS_DELIVERED.into()),
            st_gave_up: Constant::new(STATUS_GAVE_UP.into()),
            st_refused: Constant::new(STATUS_REFUSED.into()),
            flag_data: Constant::new(FLAG_DATA.into()),
            zero_2: Constant::new(0.into()),
        }
    }

    /// Concurrent messages.
    pub const MESSAGES: usize = N;
}

/// What the op pipeline's first stage (S0) decided in the current cycle, and the inputs
/// of that decision that come from other blocks, for the golden model's scoreboard. Read
/// after the kernel settled; only the Rust simulation has it (it is not a port).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TxProbe {
    /// Op kind entering S1: 0 none, 1 ALLOC, 2 WROTE, 3 DELIVERED, 4 CREDIT, 5 TIMEOUT,
    /// 6 SEND.
    pub kind: u8,
    /// The op's message slot (the low `A` bits of an event's `tx_msg_id`).
    pub id: u16,
    /// ALLOC: generation, class and first buffer word; WROTE: generation and packets
    /// started; DELIVERED and CREDIT: the event's generation (`tx_msg_id >> 8`).
    pub gen: u8,
    pub n: u8,
    pub class: u8,
    pub buf: u32,
    /// Descriptor FIFO level (gates DELIVERED, TIMEOUT and SEND).
    pub desc_count: u8,
    /// The egress timer's expiry event offered this cycle: id and metadata
    /// (`gen << 8 | maxTxPktOffset`).
    pub timer_valid: bool,
    pub timer_id: u16,
    pub timer_meta: u16,
}

impl<const A: usize, const N: usize, const C: usize, const BW: usize> Packetization<A, N, C, BW> {
    /// The S0 decision of the current (settled) cycle. See [`TxProbe`].
    pub fn probe(&self) -> TxProbe {
        TxProbe {
            kind: self.s0_kind.val().to_u64() as u8,
            id: self.s1_id.d.val().to_u64() as u16,
            gen: self.s1_gen.d.val().to_u64() as u8,
            n: self.s1_n.d.val().to_u64() as u8,
            class: self.s1_class.d.val().to_u64() as u8,
            buf: self.s1_buf.d.val().to_u64() as u32,
            desc_count: self.desc.count.val().to_u64() as u8,
            timer_valid: self.timer.source.valid.val(),
            timer_id: self.timer.source.id.val().to_u64() as u16,
            timer_meta: self.timer.source.meta.val().to_u64() as u16,
        }
    }
}

/// Packetization for 16 messages (2^15 buffer words).
pub type Packetization16 = Packetization<4, 16, 5, 15>;
/// Packetization for 128 messages (2^17 buffer words).
pub type Packetization128 = Packetization<7, 128, 8, 17>;
/// Packetization for 16 messages with 2^14 buffer words ([`BufferConfig::fpga16`]).
pub type Packetization16Fpga = Packetization<4, 16, 5, 14>;

impl<const A: usize, const N: usize, const C: usize, const BW: usize> Logic
    for Packetization<A, N, C, BW>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            id_fresh,
            alive,
            queued,
            ret_ok,
            w_active,
            w_refuse,
            w_id,
            w_gen,
            w_addr,
            w_left,
            w_in_pkt,
            w_pkts,
            w_total,
            wrote_pend,
            wrote_id,
            wrote_gen,
            wrote_n,
            refuse_pend,
            h_seen,
            h_ok,
            h_total,
            h_words,
            s1_kind,
            s1_id,
            s1_id_ok,
            s1_bits,
            s1_f1,
            s1_f2,
            s1_f3,
            s1_allow,
            s1_n,
            s1_rank,
            s1_gen,
            s1_ip,
            s1_dport,
            s1_sport,
            s1_len,
            s1_buf,
            s1_class,
            s1_total,
            s2_kind,
            s2_id,
            s2_id_ok,
            s2_bits,
            s2_f1,
            s2_f2,
            s2_f3,
            s2_allow,
            s2_n,
            s2_rank,
            s2_gen,
            s2_ip,
            s2_dport,
            s2_sport,
            s2_len,
            s2_buf,
            s2_class,
            s2_total,
            s2_fwd,
            s2_bn,
            s3_kind,
            s3_id,
            s3_nr,
            s3_pending,
            s3_full,
            s3_sent,
            s3_alive,
            s3_queued,
            sq_push_r,
            sq_id_r,
            s3_send_req,
            s3_dlv_all,
            s3_give_up,
            s3_rearm,
            s3_probe,
            s3_bad,
            s3_peer,
            s3_offset,
            s4_valid,
            s4_id,
            s4_row,
            st_busy,
            st_cur,
            st_beat,
            st_addr,
            st_left,
            st_pay,
            st_last,
            st_same,
            b_valid,
            b_payload,
            b_last,
            b_cur,
            st_valid,
            st_id,
            st_code,
            cnt_sent,
            cnt_rtx,
            cnt_probe,
            cnt_gave_up,
            cnt_completed,
            cnt_bad,
            cnt_peer,
            cnt_offset
        );
        self.rows.read_clock.next = self.clock.val();
        self.rows.write_clock.next = self.clock.val();
        self.buffer.read_clock.next = self.clock.val();
        self.buffer.write_clock.next = self.clock.val();
        self.timer.clock.next = self.clock.val();
        self.timer.reset.next = self.reset.val();
        self.timer.now.next = self.now.val();
        self.id_ret.clock.next = self.clock.val();
        self.id_ret.reset.next = self.reset.val();
        self.sendq.clock.next = self.clock.val();
        self.sendq.reset.next = self.reset.val();
        self.desc.clock.next = self.clock.val();
        self.desc.reset.next = self.reset.val();
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();
        for i in 0..MAX_CLASSES {
            self.cls_ret[i].clock.next = self.clock.val();
            self.cls_ret[i].reset.next = self.reset.val();
            self.cls_ret[i].push.next = false;
            self.cls_ret[i].pop.next = false;
            self.cls_ret[i].push_data.next = self.desc.head.val().buf;
            self.cls_off[i].clock.next = self.clock.val();
            self.cls_taken[i].clock.next = self.clock.val();
            self.cls_off[i].d.next = self.cls_off[i].q.val();
            self.cls_taken[i].d.next = self.cls_taken[i].q.val();
            self.h_fit[i].clock.next = self.clock.val();
        }
        self.expiry.next = self.now.val() + bit_cast::<64, 32>(self.cfg.timeout.val());

        // ================= S0: free lists' offers for the app header =================
        self.hdr_len.next = self.app.data.val().get_bits::<16>(0);
        self.hdr_ok_len.next =
            (self.hdr_len.val() != self.zero_16.val()) & (self.hdr_len.val() <= self.max_len.val());
        self.hdr_total.next = bit_cast::<8, 6>(self.hdr_len.val().get_bits::<6>(10));
        if self.hdr_len.val().get_bits::<10>(0) != self.zero_10.val() {
            self.hdr_total.next =
                bit_cast::<8, 6>(self.hdr_len.val().get_bits::<6>(10)) + self.one_8.val();
        }
        self.hdr_words.next = (self.hdr_len.val() + self.c7.val()) >> self.sh3.val();
        // A header is checked in the cycle it first shows and taken from the next one on,
        // with the checks registered (they are deep: a length compare per size class).
        self.h_ok.d.next = self.hdr_ok_len.val();
        self.h_total.d.next = self.hdr_total.val();
        self.h_words.d.next = self.hdr_words.val();
        for i in 0..MAX_CLASSES {
            self.h_fit[i].d.next = self.hdr_len.val() <= self.cls_bytes[i].val();
        }
        // Never-used slots first (generation 0), then the oldest released one, once it
        // has waited out `cfg.reuse_gap`, with its next generation.
        // `id_fresh != N`: it counts up to N = 2^A and stops, so its top bit says it.
        self.fresh_top.next = self.id_fresh.q.val() & self.n_ids.val();
        self.fresh_ok.next = self.fresh_top.val() == self.zero_c.val();
        self.id_ok.next = self.fresh_ok.val() | self.ret_ok.q.val();
        self.new_id.next = self.id_fresh.q.val().get_bits::<A>(0);
        self.new_gen.next = self.zero_8.val();
        self.ret_tag.next = self.id_ret.head.val().tag;
        if !self.fresh_ok.val() {
            self.new_id.next = self.ret_tag.val().get_bits::<A>(0);
            self.new_gen.next = self.ret_tag.val().get_bits::<8>(8) + self.one_8.val();
        }
        self.cls_ok.next = false;
        self.cls_sel.next = self.cls_code[0].val();
        self.cls_addr.next = self.cls_base[0].val() + self.cls_off[0].q.val();
        for i in 0..MAX_CLASSES {
            if self.h_fit[3 - i].q.val()
                & (self.cls_ret[3 - i].nonempty.val()
                    | (self.cls_taken[3 - i].q.val() != self.cls_count[3 - i].val()))
            {
                self.cls_ok.next = true;
                self.cls_sel.next = self.cls_code[3 - i].val();
                if self.cls_ret[3 - i].nonempty.val() {
                    self.cls_addr.next = self.cls_ret[3 - i].head.val();
                } else {
                    self.cls_addr.next = self.cls_base[3 - i].val() + self.cls_off[3 - i].q.val();
                }
            }
        }

        // ================= S0: the send queue's head =================
        // A SEND goes to the head unless an op of its message is in flight.
        self.pick.next = self.sendq.head.val();
        self.pick_any.next = self.sendq.nonempty.val()
            & !((self.s1_kind.q.val() != self.kinds[0].val())
                & (self.s1_id.q.val() == self.pick.val()))
            & !((self.s2_kind.q.val() != self.kinds[0].val())
                & (self.s2_id.q.val() == self.pick.val()))
            & !((self.s3_kind.q.val() != self.kinds[0].val())
                & (self.s3_id.q.val() == self.pick.val()));

        // ================= S0: arbitration =================
        // Ops that may queue a descriptor need room for it and the three before them.
        self.room.next = self.desc.count.val() <= self.c4_4.val();
        // Sends keep the queue short, so that a release (which frees an id and a buffer)
        // never waits behind many packets.
        self.send_room.next = self.desc.count.val() <= self.one_4.val();
        // Two ops of one message are never in consecutive stages (S2 reads the row the op
        // two ahead wrote, never the one still in S3): an event, a timer event or a WROTE
        // for the message of the op in S1 waits a cycle. (SENDs skip every message with an
        // op in flight; an ALLOC's slot has none.)
        self.s1_busy.next = self.s1_kind.q.val() != self.kinds[0].val();
        self.dlv_conf.next = self.delivered.valid.val()
            & self.s1_busy.val()
            & (self.delivered.tx_msg_id.val().get_bits::<A>(0) == self.s1_id.q.val());
        self.crd_conf.next = self.credit.valid.val()
            & self.s1_busy.val()
            & (self.credit.tx_msg_id.val().get_bits::<A>(0) == self.s1_id.q.val());
        self.tmo_conf.next =
            self.s1_busy.val() & (self.timer.source.id.val() == self.s1_id.q.val());
        self.wrote_conf.next = self.s1_busy.val() & (self.wrote_id.q.val() == self.s1_id.q.val());
        self.dlv_go.next =
            self.delivered.valid.val() & self.room.val() & !self.dlv_conf.val() & !self.reset.val();
        self.crd_go.next =
            !self.dlv_go.val() & self.credit.valid.val() & !self.crd_conf.val() & !self.reset.val();
        self.tmo_go.next = !self.dlv_go.val()
            & !self.crd_go.val()
            & self.timer.source.valid.val()
            & self.room.val()
            & !self.tmo_conf.val()
            & !self.reset.val();
        self.wrote_go.next = !self.dlv_go.val()
            & !self.crd_go.val()
            & !self.tmo_go.val()
            & self.wrote_pend.q.val()
            & !self.wrote_conf.val()
            & !self.reset.val();
        // SEND goes before a new message: a packet that may leave leaves first.
        self.send_go.next = !self.dlv_go.val()
            & !self.crd_go.val()
            & !self.tmo_go.val()
            & !self.wrote_go.val()
            & self.pick_any.val()
            & self.send_room.val()
            & !self.reset.val();
        // A header: a new message when nothing else needs the pipeline, the writer is
        // free and nothing of the previous message is still pending.
        self.alloc_go.next = !self.dlv_go.val()
            & !self.crd_go.val()
            & !self.tmo_go.val()
            & !self.wrote_go.val()
            & !self.send_go.val()
            & !self.wrote_pend.q.val()
            & !self.w_active.q.val()
            & !self.w_refuse.q.val()
            & self.app.valid.val()
            & self.h_seen.q.val()
            & self.h_ok.q.val()
            & self.id_ok.val()
            & self.cls_ok.val()
            & !self.reset.val();
        self.refuse_go.next = !self.w_active.q.val()
            & !self.w_refuse.q.val()
            & !self.refuse_pend.q.val()
            & self.app.valid.val()
            & self.h_seen.q.val()
            & !self.h_ok.q.val()
            & !self.reset.val();
        self.h_seen.d.next = self.app.valid.val()
            & !self.w_active.q.val()
            & !self.w_refuse.q.val()
            & !self.alloc_go.val()
            & !self.refuse_go.val()
            & !self.reset.val();
        self.delivered.ready.next = self.room.val() & !self.dlv_conf.val() & !self.reset.val();
        self.credit.ready.next = !self.dlv_go.val() & !self.crd_conf.val() & !self.reset.val();
        self.timer.source.ready.next = self.tmo_go.val();
        self.s0_kind.next = self.kinds[0].val();
        if self.send_go.val() {
            self.s0_kind.next = self.kinds[6].val();
        }
        if self.alloc_go.val() {
            self.s0_kind.next = self.kinds[1].val();
        }
        if self.wrote_go.val() {
            self.s0_kind.next = self.kinds[2].val();
        }
        if self.tmo_go.val() {
            self.s0_kind.next = self.kinds[5].val();
        }
        if self.crd_go.val() {
            self.s0_kind.next = self.kinds[4].val();
        }
        if self.dlv_go.val() {
            self.s0_kind.next = self.kinds[3].val();
        }

        // S0 → S1 registers.
        self.ev_id.next = self.credit.tx_msg_id.val();
        if self.dlv_go.val() {
            self.ev_id.next = self.delivered.tx_msg_id.val();
        }
        self.s1_kind.d.next = self.s0_kind.val();
        // An event's `tx_msg_id` is `gen << 8 | id`: the slot is its low byte.
        self.ev_lo.next = self.ev_id.val() & self.lo8_16.val();
        self.s1_id.d.next = self.ev_id.val().get_bits::<A>(0);
        self.s1_id_ok.d.next = self.ev_lo.val() < bit_cast::<16, C>(self.n_ids.val());
        self.s1_bits.d.next = self.credit.rtx_bitmap.val();
        self.s1_f1.d.next = self.credit.rtx_flag.val();
        self.s1_f2.d.next = self.credit.credit_flag.val();
        self.s1_f3.d.next = self.credit.rank_flag.val();
        self.s1_allow.d.next = self.credit.allow_tx.val();
        self.s1_n.d.next = self.credit.new_credit.val().get_bits::<8>(0);
        if self.credit.new_credit.val() > bit_cast::<16, 8>(self.max_8.val()) {
            self.s1_n.d.next = self.max_8.val();
        }
        self.s1_rank.d.next = self.credit.new_rank.val();
        self.s1_gen.d.next = self.timer.source.meta.val().get_bits::<8>(8);
        if self.dlv_go.val() | self.crd_go.val() {
            // The incarnation the event is for (compared with the row's at S2).
            self.s1_gen.d.next = self.ev_id.val().get_bits::<8>(8);
        }
        self.s1_ip.d.next = self.app.data.val().get_bits::<32>(32);
        self.s1_dport.d.next = self.app.data.val().get_bits::<16>(16);
        self.s1_sport.d.next = self.app.src_port.val();
        self.s1_len.d.next = self.hdr_len.val();
        self.s1_buf.d.next = self.cls_addr.val();
        self.s1_class.d.next = self.cls_sel.val();
        self.s1_total.d.next = self.h_total.q.val();
        // An event's claim travels in the header registers (an ALLOC's fields otherwise).
        if self.crd_go.val() {
            self.s1_ip.d.next = self.credit.peer_ip.val();
            self.s1_dport.d.next = self.credit.peer_port.val();
            self.s1_sport.d.next = self.credit.local_port.val();
            self.s1_len.d.next = self.credit.msg_len.val();
        }
        if self.dlv_go.val() {
            self.s1_ip.d.next = self.delivered.peer_ip.val();
            self.s1_dport.d.next = self.delivered.peer_port.val();
            self.s1_sport.d.next = self.delivered.local_port.val();
            self.s1_len.d.next = self.delivered.msg_len.val();
            self.s1_bits.d.next = self.delivered.ack_bitmap.val();
            self.s1_f1.d.next = self.delivered.below_flag.val();
            self.s1_n.d.next = self.delivered.below.val();
        }
        if self.tmo_go.val() {
            self.s1_id.d.next = self.timer.source.id.val();
            self.s1_id_ok.d.next = true;
            // The timer's metadata: allocation number, maxTxPktOffset when armed.
            self.s1_n.d.next = self.timer.source.meta.val().get_bits::<8>(0);
        }
        if self.wrote_go.val() {
            self.s1_id.d.next = self.wrote_id.q.val();
            self.s1_id_ok.d.next = true;
            self.s1_gen.d.next = self.wrote_gen.q.val();
            self.s1_n.d.next = self.wrote_n.q.val();
            self.wrote_pend.d.next = false;
        }
        if self.alloc_go.val() {
            self.s1_id.d.next = self.new_id.val();
            self.s1_id_ok.d.next = true;
            // The new message's first packet leaves with the ALLOC itself when the
            // descriptor queue is short (as a SEND would).
            self.s1_f1.d.next = self.send_room.val();
            self.s1_gen.d.next = self.new_gen.val();
        }
        if self.send_go.val() {
            self.s1_id.d.next = self.pick.val();
            self.s1_id_ok.d.next = true;
        }

        // Allocation at S0: take the offered id and buffer.
        self.id_ret.pop.next = false;
        if self.alloc_go.val() {
            if self.fresh_ok.val() {
                self.id_fresh.d.next = self.id_fresh.q.val() + self.one_c.val();
            } else {
                self.id_ret.pop.next = true;
            }
            for i in 0..MAX_CLASSES {
                if self.cls_sel.val() == self.cls_code[i].val() {
                    if self.cls_ret[i].nonempty.val() {
                        self.cls_ret[i].pop.next = true;
                    } else {
                        self.cls_off[i].d.next = self.cls_off[i].q.val() + self.cls_words[i].val();
                        self.cls_taken[i].d.next = self.cls_taken[i].q.val() + self.one_c.val();
                    }
                }
            }
        }
        // The head may be taken from the next cycle when it stays the head and is ready.
        self.ret_ok.d.next = self.id_ret.nonempty.val()
            & (self.fresh_ok.val() | !self.alloc_go.val())
            & (self.now.val() >= self.id_ret.head.val().ready)
            // Always true for entries this block wrote; it keeps a corrupted entry from
            // aliasing a live slot, and it reads the tag's slot bits above `A`.
            & (bit_cast::<16, 8>(self.ret_tag.val().get_bits::<8>(0))
                < bit_cast::<16, C>(self.n_ids.val()))
            & !self.reset.val();

        // ================= writer (application payload into the buffer) =================
        self.app.alloc.next = self.alloc_go.val();
        self.app.id.next = bit_cast::<16, A>(self.new_id.val());
        self.app.ready.next = !self.reset.val()
            & (self.alloc_go.val()
                | self.refuse_go.val()
                | self.w_active.q.val()
                | self.w_refuse.q.val());
        self.buffer.write_enable.next = false;
        self.buffer.write_address.next = self.w_addr.q.val().get_bits::<BW>(0);
        self.buffer.write_data.next = self.app.data.val();
        if self.alloc_go.val() {
            self.w_active.d.next = !self.app.last.val();
            self.w_id.d.next = self.new_id.val();
            self.w_gen.d.next = self.new_gen.val();
            self.w_addr.d.next = self.cls_addr.val();
            self.w_left.d.next = self.h_words.q.val();
            self.w_in_pkt.d.next = self.zero_8.val();
            self.w_pkts.d.next = self.one_8.val();
            self.w_total.d.next = self.h_total.q.val();
        }
        if self.refuse_go.val() {
            self.w_refuse.d.next = !self.app.last.val();
            self.refuse_pend.d.next = true;
        }
        if self.w_refuse.q.val() & self.app.valid.val() & self.app.last.val() {
            self.w_refuse.d.next = false;
        }
        if self.w_active.q.val() & self.app.valid.val() {
            if self.w_left.q.val() != self.zero_16.val() {
                self.buffer.write_enable.next = true;
                self.w_addr.d.next = self.w_addr.q.val() + self.one_24.val();
                self.w_left.d.next = self.w_left.q.val() - self.one_16.val();
                self.w_in_pkt.d.next = self.w_in_pkt.q.val() + self.one_8.val();
                // The first word of the next packet: that packet may now be sent.
                if (self.w_in_pkt.q.val() == self.c127.val())
                    & (self.w_pkts.q.val() != self.w_total.q.val())
                {
                    self.w_in_pkt.d.next = self.zero_8.val();
                    self.w_pkts.d.next = self.w_pkts.q.val() + self.one_8.val();
                    self.wrote_pend.d.next = true;
                    self.wrote_id.d.next = self.w_id.q.val();
                    self.wrote_gen.d.next = self.w_gen.q.val();
                    self.wrote_n.d.next = self.w_pkts.q.val() + self.one_8.val();
                }
            }
            if self.app.last.val() {
                self.w_active.d.next = false;
            }
        }

        // ================= S1: read the row =================
        self.rows.read_address.next = self.s1_id.q.val();
        self.s2_kind.d.next = self.s1_kind.q.val();
        self.s2_id.d.next = self.s1_id.q.val();
        self.s2_id_ok.d.next = self.s1_id_ok.q.val();
        self.s2_bits.d.next = self.s1_bits.q.val();
        self.s2_f1.d.next = self.s1_f1.q.val();
        self.s2_f2.d.next = self.s1_f2.q.val();
        self.s2_f3.d.next = self.s1_f3.q.val();
        self.s2_allow.d.next = self.s1_allow.q.val();
        self.s2_n.d.next = self.s1_n.q.val();
        self.s2_rank.d.next = self.s1_rank.q.val();
        self.s2_gen.d.next = self.s1_gen.q.val();
        self.s2_ip.d.next = self.s1_ip.q.val();
        self.s2_dport.d.next = self.s1_dport.q.val();
        self.s2_sport.d.next = self.s1_sport.q.val();
        self.s2_len.d.next = self.s1_len.q.val();
        self.s2_buf.d.next = self.s1_buf.q.val();
        self.s2_class.d.next = self.s1_class.q.val();
        self.s2_total.d.next = self.s1_total.q.val();
        self.bn_s1.next = self.zero_p.val();
        for i in 0..MAX_PKTS {
            if self.s1_n.q.val() > self.off_code[i].val() {
                self.bn_s1.next = self.bn_s1.val() | self.bit_p[i].val();
            }
        }
        self.s2_bn.d.next = self.bn_s1.val();

        // ================= S2: the row, and the event applied to it =================
        // The row the RAM read, or the one the op two ahead wrote (the read missed it).
        if self.s2_fwd.q.val() {
            self.row.next = self.s4_row.q.val();
        } else {
            self.row.next = self.rows.read_data.val();
        }
        // A DELIVERED or CREDIT event counts only for the slot's current incarnation: a
        // late event of a freed message whose slot was reused is dropped (a bad event).
        // It must also be about this message: the claim (the control packet's peer
        // address and ports, msg_len) matches the row, and every offset it names was sent
        // (below maxTxPktOffset). Anything else is dropped and counted by reason.
        self.s2_ev.next = (self.s2_kind.q.val() == self.kinds[3].val())
            | (self.s2_kind.q.val() == self.kinds[4].val());
        // The checks below are made on both rows S2 may use (the RAM's and the one the op
        // two ahead wrote), and the result is chosen by `s2_fwd`: the choice of the row
        // is then not in front of the compares (as `lt_ram` / `lt_fwd` below).
        self.gen_ram.next = self.rows.read_data.val().gen == self.s2_gen.q.val();
        self.gen_fwd.next = self.s4_row.q.val().gen == self.s2_gen.q.val();
        self.claim_ram.next = (self.rows.read_data.val().dst_ip == self.s2_ip.q.val())
            & (self.rows.read_data.val().dst_port == self.s2_dport.q.val())
            & (self.rows.read_data.val().src_port == self.s2_sport.q.val())
            & (self.rows.read_data.val().msg_len == self.s2_len.q.val());
        self.claim_fwd.next = (self.s4_row.q.val().dst_ip == self.s2_ip.q.val())
            & (self.s4_row.q.val().dst_port == self.s2_dport.q.val())
            & (self.s4_row.q.val().src_port == self.s2_sport.q.val())
            & (self.s4_row.q.val().msg_len == self.s2_len.q.val());
        // Masks of offsets below a count are compared bit by bit (a shift is deeper).
        self.sent_ram.next = self.zero_p.val();
        self.sent_fwd.next = self.zero_p.val();
        for i in 0..MAX_PKTS {
            if self.rows.read_data.val().max_tx > self.off_code[i].val() {
                self.sent_ram.next = self.sent_ram.val() | self.bit_p[i].val();
            }
            if self.s4_row.q.val().max_tx > self.off_code[i].val() {
                self.sent_fwd.next = self.sent_fwd.val() | self.bit_p[i].val();
            }
        }
        // ACK / NACK bits (`s2_bits`) within the sent offsets; a cumulative ACK's `below`
        // (`s2_n`, when `s2_f1` on a DELIVERED) at most maxTxPktOffset.
        self.s2_cum.next = (self.s2_kind.q.val() == self.kinds[3].val()) & self.s2_f1.q.val();
        self.range_ram.next = ((self.s2_bits.q.val() & !self.sent_ram.val()) == self.zero_p.val())
            & !(self.s2_cum.val() & (self.s2_n.q.val() > self.rows.read_data.val().max_tx));
        self.range_fwd.next = ((self.s2_bits.q.val() & !self.sent_fwd.val()) == self.zero_p.val())
            & !(self.s2_cum.val() & (self.s2_n.q.val() > self.s4_row.q.val().max_tx));
        self.gen_eq.next = self.gen_ram.val();
        self.claim_ok.next = self.claim_ram.val();
        self.range_ok.next = self.range_ram.val();
        self.sent_mask.next = self.sent_ram.val();
        if self.s2_fwd.q.val() {
            self.gen_eq.next = self.gen_fwd.val();
            self.claim_ok.next = self.claim_fwd.val();
            self.range_ok.next = self.range_fwd.val();
            self.sent_mask.next = self.sent_fwd.val();
        }
        if (self.s2_kind.q.val() == self.kinds[4].val()) & !self.s2_f1.q.val() {
            // No retransmission asked: the bitmap is not looked at.
            self.range_ok.next = true;
        }
        self.s2_gen_ok.next = self.s2_id_ok.q.val()
            & self.alive.q.val().get_bit(self.s2_id.q.val().index())
            & (!self.s2_ev.val() | self.gen_eq.val());
        self.s2_alive.next = self.s2_gen_ok.val()
            & (!self.s2_ev.val() | (self.claim_ok.val() & self.range_ok.val()));
        self.nr.next = self.row.val();
        if self.s2_kind.q.val() == self.kinds[1].val() {
            self.nr.next.delivered = self.zero_p.val();
            self.nr.next.rtxf = self.zero_p.val();
            self.nr.next.credit = self.cfg.rtt_pkts.val();
            self.nr.next.max_tx = self.zero_8.val();
            self.nr.next.tcnt = self.zero_8.val();
            self.nr.next.total = self.s2_total.q.val();
            self.nr.next.written = self.one_8.val();
            self.nr.next.allow = true;
            self.nr.next.rank = self.zero_8.val();
            self.nr.next.dst_ip = self.s2_ip.q.val();
            self.nr.next.dst_port = self.s2_dport.q.val();
            self.nr.next.src_port = self.s2_sport.q.val();
            self.nr.next.msg_len = self.s2_len.q.val();
            self.nr.next.buf_addr = self.s2_buf.q.val();
            self.nr.next.size_class = self.s2_class.q.val();
            self.nr.next.gen = self.s2_gen.q.val();
        }
        self.full.next = self.zero_p.val();
        for i in 0..MAX_PKTS {
            if self.nr.val().total > self.off_code[i].val() {
                self.full.next = self.full.val() | self.bit_p[i].val();
            }
        }
        if self.s2_kind.q.val() == self.kinds[1].val() {
            self.nr.next.txb = self.full.val();
        }

        // Event effects on the row (Algorithms 2-4); frees are decided in S3.
        self.all_dlv.next = false;
        if (self.s2_kind.q.val() == self.kinds[2].val())
            & (self.row.val().gen == self.s2_gen.q.val())
        {
            self.nr.next.written = self.s2_n.q.val();
        }
        if self.s2_kind.q.val() == self.kinds[3].val() {
            if self.s2_f1.q.val() {
                self.nr.next.delivered =
                    (self.row.val().delivered | self.s2_bits.q.val() | self.s2_bn.q.val())
                        & self.full.val();
            } else {
                self.nr.next.delivered =
                    (self.row.val().delivered | self.s2_bits.q.val()) & self.full.val();
            }
            self.all_dlv.next = self.nr.val().delivered == self.full.val();
        }
        if self.s2_kind.q.val() == self.kinds[4].val() {
            if self.s2_f1.q.val() {
                self.nr.next.txb = self.row.val().txb | (self.s2_bits.q.val() & self.full.val());
            }
            if self.s2_f2.q.val() {
                self.nr.next.credit = self.s2_n.q.val();
            }
            if self.s2_f3.q.val() {
                self.nr.next.rank = self.s2_rank.q.val();
            }
            self.nr.next.allow = self.s2_allow.q.val();
        }
        // TIMEOUT (for the armed incarnation): give up, or retransmit what is undelivered
        // below the armed maxTxPktOffset.
        self.tmo_ok.next = (self.s2_kind.q.val() == self.kinds[5].val())
            & (self.row.val().gen == self.s2_gen.q.val());
        self.lt_ram.next = self.rows.read_data.val().max_tx < self.rows.read_data.val().total;
        self.lt_fwd.next = self.s4_row.q.val().max_tx < self.s4_row.q.val().total;
        self.ge_ram.next = self.rows.read_data.val().tcnt >= self.cfg.max_timeouts.val();
        self.ge_fwd.next = self.s4_row.q.val().tcnt >= self.cfg.max_timeouts.val();
        self.lt_total.next = self.lt_ram.val();
        self.tcnt_out.next = self.ge_ram.val();
        if self.s2_fwd.q.val() {
            self.lt_total.next = self.lt_fwd.val();
            self.tcnt_out.next = self.ge_fwd.val();
        }
        self.give_up.next = self.tmo_ok.val() & self.tcnt_out.val();
        self.rtx_set.next = !self.row.val().delivered & self.s2_bn.q.val() & self.full.val();
        // Nothing to retransmit but the message is not done: the credit that would let it
        // go on was lost. Probe with the first packet not yet sent.
        self.probe_bit.next = self.zero_p.val();
        for i in 0..MAX_PKTS {
            if self.row.val().max_tx == self.off_code[i].val() {
                self.probe_bit.next = self.probe_bit.val() | self.bit_p[i].val();
            }
        }
        self.probe_q.next = (self.rtx_set.val() == self.zero_p.val()) & self.lt_total.val();
        if self.tmo_ok.val() & !self.give_up.val() {
            if self.row.val().max_tx > self.s2_n.q.val() {
                self.nr.next.tcnt = self.zero_8.val();
            } else if self.row.val().tcnt != self.max_8.val() {
                self.nr.next.tcnt = self.row.val().tcnt + self.one_8.val();
            }
            self.nr.next.rtxf = self.row.val().rtxf | self.rtx_set.val();
            if self.probe_q.val() {
                self.nr.next.rtxf = self.row.val().rtxf | self.probe_bit.val();
            }
        }
        // The masks S3 selects with.
        self.below_credit.next = self.zero_p.val();
        for i in 0..MAX_PKTS {
            if self.nr.val().credit > self.off_code[i].val() {
                self.below_credit.next = self.below_credit.val() | self.bit_p[i].val();
            }
        }
        self.below_written.next = self.zero_p.val();
        for i in 0..MAX_PKTS {
            if self.nr.val().written > self.off_code[i].val() {
                self.below_written.next = self.below_written.val() | self.bit_p[i].val();
            }
        }
        self.s3_kind.d.next = self.s2_kind.q.val();
        self.s3_id.d.next = self.s2_id.q.val();
        self.s3_nr.d.next = self.nr.val();
        // Packets that may go after the op: in txBitmap and below the credit, or queued by
        // a timeout; not delivered; written; of the message.
        self.s3_pending.d.next = ((self.nr.val().txb & self.below_credit.val())
            | self.nr.val().rtxf)
            & !self.nr.val().delivered
            & self.below_written.val()
            & self.full.val();
        self.s3_full.d.next = self.full.val();
        self.s3_sent.d.next = self.sent_mask.val();
        if self.s2_kind.q.val() == self.kinds[1].val() {
            self.s3_sent.d.next = self.zero_p.val();
        }
        self.s3_alive.d.next = self.s2_alive.val();
        // `queued` takes S3's push a cycle later (from `sq_push_r`), so the push decided
        // last cycle is forwarded.
        self.s3_queued.d.next = self.queued.q.val().get_bit(self.s2_id.q.val().index())
            | (self.sq_push_r.q.val() & (self.sq_id_r.q.val() == self.s2_id.q.val()));
        // SEND (or an ALLOC with a short descriptor queue): the lowest pending packet.
        self.s3_send_req.d.next = ((self.s2_kind.q.val() == self.kinds[6].val())
            & self.s2_alive.val())
            | ((self.s2_kind.q.val() == self.kinds[1].val()) & self.s2_f1.q.val());
        self.s3_dlv_all.d.next = self.all_dlv.val();
        self.s3_give_up.d.next = self.give_up.val();
        self.s3_rearm.d.next = self.tmo_ok.val() & !self.give_up.val();
        self.s3_probe.d.next = self.tmo_ok.val() & !self.give_up.val() & self.probe_q.val();
        // Bad events, by reason.
        self.s3_bad.d.next = self.s2_ev.val() & !self.s2_gen_ok.val();
        self.s3_peer.d.next = self.s2_ev.val() & self.s2_gen_ok.val() & !self.claim_ok.val();
        self.s3_offset.d.next =
            self.s2_ev.val() & self.s2_gen_ok.val() & self.claim_ok.val() & !self.range_ok.val();

        // ================= S3: free, send, write the row back =================
        self.free_now.next =
            self.s3_alive.q.val() & (self.s3_dlv_all.q.val() | self.s3_give_up.q.val());
        self.free_code.next = self.st_delivered.val();
        if self.s3_give_up.q.val() {
            self.free_code.next = self.st_gave_up.val();
        }
        // Packets that may go now (from S2), and the lowest of them.
        self.pending.next = self.s3_pending.q.val();
        self.onehot.next = self.pending.val() & (!self.pending.val() + self.one_p.val());
        self.send_off.next = self.zero_8.val();
        self.off1.next = self.zero_8.val();
        for i in 0..MAX_PKTS {
            if self.onehot.val().get_bit(i) {
                self.send_off.next = self.send_off.val() | self.off_code[i].val();
                self.off1.next = self.off1.val() | self.off1_code[i].val();
            }
        }
        // Below maxTxPktOffset: a retransmission (the sent offsets are a prefix).
        self.is_rtx.next = (self.pending.val() & self.s3_sent.q.val()) != self.zero_p.val();
        // At least two pending packets: plain logic, not the carry chain of `onehot`, so
        // that the path into the eligibility and the send queue maps onto a tree of LUTs.
        self.seen_one.next = false;
        self.has_more.next = false;
        for i in 0..MAX_PKTS {
            if self.pending.val().get_bit(i) {
                if self.seen_one.val() {
                    self.has_more.next = true;
                }
                self.seen_one.next = true;
            }
        }
        self.sending.next = self.s3_send_req.q.val()
            & self.s3_nr.q.val().allow
            & (self.pending.val() != self.zero_p.val());
        self.desc.push.next = false;
        self.meta_gen.next = bit_cast::<16, 8>(self.s3_nr.q.val().gen);
        self.id_tag.next =
            (self.meta_gen.val() << self.sh8.val()) | bit_cast::<16, A>(self.s3_id.q.val());
        self.pd.next.release = false;
        self.pd.next.code = self.free_code.val();
        // Descriptors carry the wire id (`gen << 8 | id`); `status` reports the low byte.
        self.pd.next.id = self.id_tag.val();
        self.pd.next.offset = self.send_off.val();
        self.pd.next.buf = self.s3_nr.q.val().buf_addr;
        // The message's last packet: the top bit of `full`. `pending` is within `full`, a
        // prefix, so its lowest packet is the last one exactly when none of it is below the
        // top bit (checked on `pending`, not on `onehot`: no carry chain in front).
        self.pd.next.last = ((self.pending.val() & (self.s3_full.q.val() >> self.sh1.val()))
            == self.zero_p.val())
            & (self.pending.val() != self.zero_p.val());
        self.pd.next.dst_ip = self.s3_nr.q.val().dst_ip;
        self.pd.next.dst_port = self.s3_nr.q.val().dst_port;
        self.pd.next.src_port = self.s3_nr.q.val().src_port;
        self.pd.next.msg_len = self.s3_nr.q.val().msg_len;
        self.pd.next.credit = self.s3_nr.q.val().credit;
        self.pd.next.rank = self.s3_nr.q.val().rank;
        self.pd.next.is_rtx = self.is_rtx.val();
        // (`onehot` bit 0 is `pending` bit 0; taken from `pending`, past the carry chain.)
        self.pd.next.is_new = self.pending.val().get_bit(0) & !self.is_rtx.val();
        self.pd.next.size_class = self.s3_nr.q.val().size_class;
        // `wr` is the row to write back.
        self.wr.next = self.s3_nr.q.val();
        if self.sending.val() {
            self.desc.push.next = true;
            self.wr.next.txb = self.s3_nr.q.val().txb & !self.onehot.val();
            self.wr.next.rtxf = self.s3_nr.q.val().rtxf & !self.onehot.val();
            if !self.is_rtx.val() {
                self.wr.next.max_tx = self.off1.val();
            }
            self.cnt_sent.d.next = self.cnt_sent.q.val() + self.one_32.val();
            if self.is_rtx.val() {
                self.cnt_rtx.d.next = self.cnt_rtx.q.val() + self.one_32.val();
            }
        }
        self.id_mask.next = self.one_n.val() << self.s3_id.q.val();
        if self.s3_bad.q.val() {
            self.cnt_bad.d.next = self.cnt_bad.q.val() + self.one_32.val();
        }
        if self.s3_peer.q.val() {
            self.cnt_peer.d.next = self.cnt_peer.q.val() + self.one_32.val();
        }
        if self.s3_offset.q.val() {
            self.cnt_offset.d.next = self.cnt_offset.q.val() + self.one_32.val();
        }
        if self.s3_alive.q.val() & self.s3_probe.q.val() {
            self.cnt_probe.d.next = self.cnt_probe.q.val() + self.one_32.val();
        }

        // Row write, timer, eligibility.
        self.rows.write_address.next = self.s3_id.q.val();
        self.rows.write_data.next = self.wr.val();
        self.timer.cmd.valid.next = false;
        self.timer.cmd.op.next = self.op_schedule.val();
        self.timer.cmd.id.next = self.s3_id.q.val();
        self.timer.cmd.expiry.next = self.expiry.val();
        // rtx_offset: maxTxPktOffset when re-armed; at allocation the initial window
        // (`credit = rtt_pkts`), which the message sends at once, so that a first window
        // lost whole is retransmitted at the first timeout, not the second.
        self.meta_max.next = bit_cast::<16, 8>(self.s3_nr.q.val().max_tx);
        if self.s3_kind.q.val() == self.kinds[1].val() {
            self.meta_max.next = bit_cast::<16, 8>(self.s3_nr.q.val().credit);
        }
        self.timer.cmd.meta.next = (self.meta_gen.val() << self.sh8.val()) | self.meta_max.val();
        self.alive.d.next = self.alive.q.val();
        if self.s3_kind.q.val() == self.kinds[1].val() {
            self.alive.d.next = self.alive.q.val() | self.id_mask.val();
            self.timer.cmd.valid.next = true;
        }
        if self.s3_alive.q.val() & self.s3_rearm.q.val() {
            self.timer.cmd.valid.next = true;
        }
        self.row_wr.next = (self.s3_kind.q.val() != self.kinds[0].val())
            & (self.s3_alive.q.val() | (self.s3_kind.q.val() == self.kinds[1].val()))
            & !self.free_now.val();
        self.rows.write_enable.next = self.row_wr.val();
        // Eligible after the op: a packet still pending (besides the one sent).
        self.elig_bit.next = self.row_wr.val() & self.s3_nr.q.val().allow;
        if self.sending.val() {
            self.elig_bit.next = self.elig_bit.val() & self.has_more.val();
        } else {
            self.elig_bit.next = self.elig_bit.val() & (self.pending.val() != self.zero_p.val());
        }
        // The send queue: the message goes in when the op leaves it eligible, unless it is
        // queued already (marked, and in the queue, from the next cycle); a SEND (S0)
        // takes the head out. (The two are different messages: a SEND never goes to a
        // message with an op in flight.)
        self.sq_push.next = self.elig_bit.val() & !self.s3_queued.q.val();
        self.sq_push_r.d.next = self.sq_push.val();
        self.sq_id_r.d.next = self.s3_id.q.val();
        self.sendq.push.next = self.sq_push_r.q.val();
        self.sendq.push_data.next = self.sq_id_r.q.val();
        self.sendq.pop.next = self.send_go.val();
        self.q_popped.next = self.queued.q.val();
        if self.send_go.val() {
            self.q_popped.next = self.queued.q.val() & !(self.one_n.val() << self.pick.val());
        }
        // S3's push marks its id a cycle later, from registers (the id is not in the queue
        // and a SEND cannot take it before then; S2 sees the mark through forwarding).
        self.queued.d.next = self.q_popped.val();
        if self.sq_push_r.q.val() {
            self.queued.d.next = self.q_popped.val() | (self.one_n.val() << self.sq_id_r.q.val());
        }
        if self.free_now.val() {
            self.alive.d.next = self.alive.q.val() & !self.id_mask.val();
            self.timer.cmd.valid.next = true;
            self.timer.cmd.op.next = self.op_cancel.val();
            self.desc.push.next = true;
            self.pd.next.release = true;
            if self.free_code.val() == self.st_gave_up.val() {
                self.cnt_gave_up.d.next = self.cnt_gave_up.q.val() + self.one_32.val();
            } else {
                self.cnt_completed.d.next = self.cnt_completed.q.val() + self.one_32.val();
            }
        }
        self.desc.push_data.next = self.pd.val();
        self.s4_valid.d.next = self.row_wr.val();
        self.s4_id.d.next = self.s3_id.q.val();
        self.s4_row.d.next = self.wr.val();
        // The op now in S1 reads, in S2, the row this op writes (its RAM read misses it).
        self.s2_fwd.d.next = self.row_wr.val() & (self.s3_id.q.val() == self.s1_id.q.val());

        // ================= streamer: descriptors to words =================
        // Stage A issues one beat per cycle (a header slot, or a buffer read); stage B
        // pushes it into the output FIFO the next cycle, with the RAM's data.
        if self.b_valid.q.val() {
            self.out_room.next = self.out.count.val() < self.two_3.val();
        } else {
            self.out_room.next = self.out.count.val() <= self.two_3.val();
        }
        // A payload word can be read once the application has written it.
        self.w_tag.next = (bit_cast::<16, 8>(self.w_gen.q.val()) << self.sh8.val())
            | bit_cast::<16, A>(self.w_id.q.val());
        self.w_stall.next = self.st_pay.q.val()
            & self.st_same.q.val()
            & (self.st_addr.q.val() >= self.w_addr.q.val());
        self.can_issue.next = self.st_busy.q.val() & self.out_room.val() & !self.w_stall.val();
        self.issue_last.next = self.can_issue.val() & self.st_last.q.val();
        self.buffer.read_address.next = self.st_addr.q.val().get_bits::<BW>(0);
        self.b_valid.d.next = self.can_issue.val();
        self.b_payload.d.next = self.st_pay.q.val();
        self.b_last.d.next = self.issue_last.val();
        self.b_cur.d.next = self.st_cur.q.val();
        if self.can_issue.val() {
            self.st_beat.d.next = self.st_beat.q.val() + self.one_16.val();
            self.st_left.d.next = self.st_left.q.val() - self.one_16.val();
            self.st_last.d.next = self.st_left.q.val() == self.two_16.val();
            if self.st_pay.q.val() {
                self.st_addr.d.next = self.st_addr.q.val() + self.one_24.val();
            }
            if self.st_beat.q.val() == self.c7.val() {
                self.st_pay.d.next = true;
            }
        }
        if self.issue_last.val() {
            self.st_busy.d.next = false;
        }
        // Next descriptor: a packet starts, or a message is released.
        self.status_free.next = !self.st_valid.q.val() | self.status.ready.val();
        // A release is taken as soon as the status output is free, even mid-packet, unless
        // the packet being streamed belongs to the message (its buffer is still read).
        if self.desc.head.val().release {
            self.take_desc.next = self.desc.nonempty.val()
                & self.status_free.val()
                & !self.refuse_pend.q.val()
                & !(self.st_busy.q.val() & (self.st_cur.q.val().id == self.desc.head.val().id));
        } else {
            self.take_desc.next =
                self.desc.nonempty.val() & (!self.st_busy.q.val() | self.issue_last.val());
        }
        self.desc.pop.next = self.take_desc.val();
        self.take_pkt.next = self.take_desc.val() & !self.desc.head.val().release;
        // The packet's first buffer word, and its beats: 8 header slots and 128 payload
        // words, or for the last packet what is left of the message.
        self.d_addr.next = self.desc.head.val().buf
            + (bit_cast::<24, 8>(self.desc.head.val().offset) << self.sh7.val());
        self.d_left.next = self.c136_16.val();
        if self.desc.head.val().last {
            self.d_left.next = ((self.desc.head.val().msg_len + self.c71_16.val())
                >> self.sh3.val())
                - (bit_cast::<16, 8>(self.desc.head.val().offset) << self.sh7.val());
        }
        self.st_same.d.next = self.w_active.q.val() & (self.w_tag.val() == self.st_cur.q.val().id);
        if self.take_pkt.val() {
            self.st_same.d.next =
                self.w_active.q.val() & (self.w_tag.val() == self.desc.head.val().id);
        }
        self.id_ret.push.next = false;
        self.head_id.next = self.desc.head.val().id;
        self.id_ret.push_data.next.tag = self.head_id.val();
        self.id_ret.push_data.next.ready =
            self.now.val() + bit_cast::<64, 32>(self.cfg.reuse_gap.val());
        if self.take_desc.val() {
            if self.desc.head.val().release {
                self.id_ret.push.next = true;
                for i in 0..MAX_CLASSES {
                    if self.desc.head.val().size_class == self.cls_code[i].val() {
                        self.cls_ret[i].push.next = true;
                    }
                }
            }
        }
        if self.take_pkt.val() {
            self.st_busy.d.next = true;
            self.st_cur.d.next = self.desc.head.val();
            self.st_beat.d.next = self.zero_16.val();
            self.st_addr.d.next = self.d_addr.val();
            self.st_left.d.next = self.d_left.val();
            self.st_pay.d.next = false;
            self.st_last.d.next = false;
        }
        self.b_word.next.data = self.zero_64.val();
        if self.b_payload.q.val() {
            self.b_word.next.data = self.buffer.read_data.val();
        }
        self.b_word.next.last = self.b_last.q.val();
        self.b_word.next.dst_ip = self.b_cur.q.val().dst_ip;
        self.b_word.next.dst_port = self.b_cur.q.val().dst_port;
        self.b_word.next.src_port = self.b_cur.q.val().src_port;
        self.b_word.next.msg_len = self.b_cur.q.val().msg_len;
        self.b_word.next.offset = self.b_cur.q.val().offset;
        self.b_word.next.id = self.b_cur.q.val().id;
        self.b_word.next.credit = self.b_cur.q.val().credit;
        self.b_word.next.rank = self.b_cur.q.val().rank;
        self.b_word.next.is_new = self.b_cur.q.val().is_new;
        self.b_word.next.is_rtx = self.b_cur.q.val().is_rtx;
        self.out.push_data.next = self.b_word.val();

        // ================= source =================
        // The output FIFO's head, or stage B's word straight through when it is empty
        // (queued only if `source` does not take it).
        self.out_through.next = !self.out.nonempty.val() & self.b_valid.q.val();
        self.out.push.next =
            self.b_valid.q.val() & !(self.out_through.val() & self.source.ready.val());
        self.out.pop.next = self.source.ready.val() & self.out.nonempty.val();
        if self.out.nonempty.val() {
            self.src_word.next = self.out.head.val();
        } else {
            self.src_word.next = self.b_word.val();
        }
        self.source.valid.next = self.out.nonempty.val() | self.b_valid.q.val();
        self.source.data.next = self.zero_64.val();
        self.source.last.next = false;
        self.source.remote_ip.next = self.zero_32.val();
        self.source.remote_port.next = self.zero_16.val();
        self.source.msg_len.next = self.zero_16.val();
        self.source.pkt_offset.next = self.zero_8.val();
        self.source.local_port.next = self.zero_16.val();
        self.source.tx_msg_id.next = self.zero_16.val();
        self.source.credit.next = self.zero_16.val();
        self.source.rank.next = self.zero_8.val();
        self.source.flags.next = self.zero_8.val();
        self.source.is_new_msg.next = false;
        self.source.is_rtx.next = false;
        if self.out.nonempty.val() | self.b_valid.q.val() {
            self.source.data.next = self.src_word.val().data;
            self.source.last.next = self.src_word.val().last;
            self.source.remote_ip.next = self.src_word.val().dst_ip;
            self.source.remote_port.next = self.src_word.val().dst_port;
            self.source.msg_len.next = self.src_word.val().msg_len;
            self.source.pkt_offset.next = self.src_word.val().offset;
            self.source.local_port.next = self.src_word.val().src_port;
            self.source.tx_msg_id.next = self.src_word.val().id;
            self.source.credit.next = bit_cast::<16, 8>(self.src_word.val().credit);
            self.source.rank.next = self.src_word.val().rank;
            self.source.flags.next = self.flag_data.val();
            self.source.is_new_msg.next = self.src_word.val().is_new;
            self.source.is_rtx.next = self.src_word.val().is_rtx;
        }

        // ================= status =================
        if self.status.ready.val() {
            self.st_valid.d.next = false;
        }
        if self.refuse_pend.q.val() & self.status_free.val() {
            self.st_valid.d.next = true;
            self.st_id.d.next = self.all_16.val();
            self.st_code.d.next = self.st_refused.val();
            self.refuse_pend.d.next = false;
        }
        if self.take_desc.val() & self.desc.head.val().release {
            self.st_valid.d.next = true;
            self.st_id.d.next = self.head_id.val() & self.lo8_16.val();
            self.st_code.d.next = self.desc.head.val().code;
        }
        self.status.valid.next = self.st_valid.q.val();
        self.status.tx_msg_id.next = self.zero_16.val();
        self.status.code.next = self.zero_2.val();
        if self.st_valid.q.val() {
            self.status.tx_msg_id.next = self.st_id.q.val();
            self.status.code.next = self.st_code.q.val();
        }

        // ================= stats and reset =================
        self.stat.sent.next = self.cnt_sent.q.val();
        self.stat.retransmitted.next = self.cnt_rtx.q.val();
        self.stat.probes.next = self.cnt_probe.q.val();
        self.stat.given_up.next = self.cnt_gave_up.q.val();
        self.stat.completed.next = self.cnt_completed.q.val();
        self.stat.bad_events.next = self.cnt_bad.q.val();
        self.stat.bad_peer.next = self.cnt_peer.q.val();
        self.stat.bad_offset.next = self.cnt_offset.q.val();
        self.ids_free_c.next = self.id_ret.count.val() + (self.n_ids.val() - self.id_fresh.q.val());
        self.stat.ids_free.next = bit_cast::<16, C>(self.ids_free_c.val());
        for i in 0..MAX_CLASSES {
            self.cls_free[i].next =
                self.cls_ret[i].count.val() + (self.cls_count[i].val() - self.cls_taken[i].q.val());
        }
        self.stat.bufs_free.next = bit_cast::<16, C>(self.cls_free[0].val())
            + bit_cast::<16, C>(self.cls_free[1].val())
            + bit_cast::<16, C>(self.cls_free[2].val())
            + bit_cast::<16, C>(self.cls_free[3].val());

        if self.reset.val() {
            self.id_fresh.d.next = self.zero_c.val();
            for i in 0..MAX_CLASSES {
                self.cls_off[i].d.next = self.zero_24.val();
                self.cls_taken[i].d.next = self.zero_c.val();
            }
            self.alive.d.next = self.zero_n.val();
            self.queued.d.next = self.zero_n.val();
            self.sq_push_r.d.next = false;
            self.w_active.d.next = false;
            self.w_refuse.d.next = false;
            self.wrote_pend.d.next = false;
            self.refuse_pend.d.next = false;
            self.s1_kind.d.next = self.kinds[0].val();
            self.s2_kind.d.next = self.kinds[0].val();
            self.s3_kind.d.next = self.kinds[0].val();
            self.s4_valid.d.next = false;
            self.s2_fwd.d.next = false;
            self.st_busy.d.next = false;
            self.b_valid.d.next = false;
            self.st_valid.d.next = false;
            self.cnt_sent.d.next = self.zero_32.val();
            self.cnt_rtx.d.next = self.zero_32.val();
            self.cnt_probe.d.next = self.zero_32.val();
            self.cnt_gave_up.d.next = self.zero_32.val();
            self.cnt_completed.d.next = self.zero_32.val();
            self.cnt_bad.d.next = self.zero_32.val();
            self.cnt_peer.d.next = self.zero_32.val();
            self.cnt_offset.d.next = self.zero_32.val();
        }
    }
}
