//! Seeded receive-side stimulus for the [`Reassembly`] block and a cycle driver that plays
//! the NIC ingress pipeline in front of it.
//!
//! * [`RxSchedule::generate`] makes `M` messages ([`RxMessage`]) from a set of senders and a
//!   packet-arrival schedule ([`Arrival`]): packets of concurrently active messages
//!   interleaved, shuffled within a window, duplicated, lost (retransmitted later or never),
//!   trimmed, with rare pauses, malformed requests and contract-violating frames. The knobs
//!   are in [`RxKnobs`].
//! * [`RxDriver`] replays a schedule cycle by cycle: per packet a `GetRxMsgInfo` request on
//!   `info_req` (`mark_received = 0` for trimmed packets); when the response (exactly two
//!   cycles after acceptance) says `fail = 0`, `is_new_pkt = 1` for a marking request, the
//!   packet's frame is queued for `sink` with the response's `rx_msg_id`, otherwise it is
//!   dropped. Packets arrive no faster than the wire brings their words; a packet whose
//!   request failed may be resent later (the sender's timeout). Frames go out in queue
//!   order with optional idle gaps; `source.ready` is dropped in random bursts. Every cycle
//!   [`RxDriver::observe`] returns what crossed the ports ([`RxCycle`]), which is what a
//!   scoreboard needs.
//!
//! # Frames
//! A frame for packet `k` of a message is [`HDR_WORDS`] header words (a deterministic
//! counter pattern, [`header_word`]) and `ceil(pkt_bytes/8)` payload words, where the packet
//! carries bytes `[k*1024, min(len, (k+1)*1024))`. Payload byte `i` of the packet is in word
//! `HDR_WORDS + i/8`, bits `[63-8*(i%8) -: 8]` (first byte most significant); unused trailing bytes
//! of the last word are 0. The Listing 3.1 metadata is held for the whole frame.
//!
//! Typical use (the checks: `testbench/tests/suite/reassembly_equivalence.rs`):
//! ```
//! use nt_hdl::reassembly::{Reassembly16, ReassemblyConfig};
//! use nt_sim::kernel::Kernel;
//! use nt_sim::rx_workload::{RxDriver, RxKnobs, RxSchedule};
//! let knobs = RxKnobs { messages: 4, ..RxKnobs::default() };
//! let sched = RxSchedule::generate(1, &knobs);
//! let mut drv = RxDriver::new(sched, &knobs, 1, 16, 3000);
//! let mut k = Kernel::new(Reassembly16::new(&ReassemblyConfig::n16())).unwrap();
//! let mut words_out = 0;
//! for _ in 0..3000 {
//!     let now = k.cycle();
//!     drv.drive(now, k.uut_mut());
//!     k.settle().unwrap();
//!     let seen = drv.observe(now, k.uut());
//!     words_out += (seen.out.valid && seen.out.ready) as u64;
//!     k.tick().unwrap();
//! }
//! assert!(words_out > 0);
//! ```
use crate::workload::bits_u64;
use nt_hdl::reassembly::{slot_hashes, Reassembly, HDR_WORDS, MAX_MSG_BYTES, PKT_BYTES};

/// Header words of a packet on the wire (64 bytes), of which the parser passes the last
/// [`HDR_WORDS`] on: what paces packets in [`RxKnobs::wire_paced`] runs.
pub const WIRE_HDR_WORDS: u64 = 8;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::sync::Arc;

/// Mixed into the seed for the driver's own timing decisions (gaps, stalls, violations).
const DRIVER_SALT: u64 = 0xd21e_5eed_0bad_cafe;

/// One message as its sender sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxMessage {
    pub src_ip: u32,
    pub src_port: u16,
    pub tx_msg_id: u16,
    pub local_port: u16,
    /// 1..=38912 bytes.
    pub payload: Vec<u8>,
}

impl RxMessage {
    /// Message length in bytes.
    pub fn len(&self) -> usize {
        self.payload.len()
    }

    /// Whether the payload is empty (never, for generated messages).
    pub fn is_empty(&self) -> bool {
        self.payload.is_empty()
    }

    /// Packets of the message.
    pub fn packets(&self) -> usize {
        packets_of(self.payload.len() as u64) as usize
    }

    /// The payload bytes of packet `k`.
    pub fn packet_bytes(&self, k: usize) -> &[u8] {
        let lo = (k * PKT_BYTES as usize).min(self.payload.len());
        let hi = ((k + 1) * PKT_BYTES as usize).min(self.payload.len());
        &self.payload[lo..hi]
    }

    /// The lookup key `(src_ip, src_port, tx_msg_id)`.
    pub fn key(&self) -> (u32, u16, u16) {
        (self.src_ip, self.src_port, self.tx_msg_id)
    }
}

/// Packets of a message of `len` bytes (`ceil(len/1024)`).
pub fn packets_of(len: u64) -> u64 {
    len.div_ceil(PKT_BYTES)
}

/// Payload bytes of packet `off` of a message of `len` bytes (0 when out of range).
pub fn packet_len(len: u64, off: u64) -> u64 {
    let start = off * PKT_BYTES;
    if start >= len {
        0
    } else {
        (len - start).min(PKT_BYTES)
    }
}

/// Packs payload bytes into 64-bit words, first byte most significant, zero padded.
pub fn pack_words(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(8)
        .map(|c| {
            let mut w = 0u64;
            for (i, b) in c.iter().enumerate() {
                w |= (*b as u64) << (56 - 8 * i);
            }
            w
        })
        .collect()
}

/// Header word `i` of the frame with sequence number `seq`: a counter pattern.
pub fn header_word(seq: u64, i: u64) -> u64 {
    0x4e54_0000_0000_0000 | ((seq & 0xffff_ffff) << 16) | (i & 0xffff)
}

/// A deliberately broken frame, injected just before a packet's real frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Violation {
    /// The frame with another message's id (below N; never the response's id).
    WrongIdKnown,
    /// The frame with an id of N or more.
    WrongIdUnknown,
    /// The first `words` words only (payload scrambled); `words` is below the full length.
    Truncated { words: u16 },
    /// The frame followed by `extra` words (payload scrambled).
    OverLong { extra: u16 },
    /// A correct-looking frame of the same message for an offset never requested here
    /// (the message's offset count when it has one packet: out of range).
    UnrequestedOffset { off: u8 },
}

/// A malformed extra request, sent just before a packet's own request. It never leads to
/// a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadRequest {
    LenZero,
    /// `msg_len` above [`MAX_MSG_BYTES`].
    LenTooBig(u16),
    /// `pkt_offset` at or above the packet count.
    OffsetOutOfRange(u8),
    /// A valid length that differs from the message's.
    LenMismatch(u16),
}

/// One step of the arrival schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Packet `pkt` of message `msg` arrives at the NIC.
    Packet {
        msg: u32,
        pkt: u8,
        /// The switch cut the payload: the request does not mark, no frame follows.
        trimmed: bool,
        /// A broken frame to send before this packet's frame (if it gets one).
        violation: Option<Violation>,
        /// A malformed request to send before this packet's request.
        bad_request: Option<BadRequest>,
    },
    /// No new request for this many cycles, after everything in flight has drained.
    Pause(u64),
}

/// Knobs of the generator and the driver. [`RxKnobs::default`] is a mixed workload.
#[derive(Clone, Debug)]
pub struct RxKnobs {
    /// Messages to generate.
    pub messages: usize,
    /// Ordinary senders (distinct `(src_ip, src_port)`; pairs share an IP).
    pub senders: usize,
    /// Extra senders whose keys hash to the same slots in both ways for equal
    /// `tx_msg_id`s (all senders' `tx_msg_id`s count from the same base). Their messages
    /// come in bursts, one per sender, so they compete for two slots and the CAM.
    pub colliding_senders: usize,
    /// Probability that the next message starts a colliding burst.
    pub p_collide_burst: f64,
    /// Messages whose packets are interleaved at a time.
    pub max_active: usize,
    /// Packets are shuffled within windows of this many arrivals.
    pub window: usize,
    /// Weights of message sizes: 1..=256, 257..=1024, 1025..=8192, 8193..=38912 bytes.
    pub size_weights: [f64; 4],
    /// Probability that a message length is one of [`EDGE_LENGTHS`] instead.
    pub p_edge_len: f64,
    /// Probability that a packet is duplicated (the copy arrives up to `dup_delay`
    /// arrivals later).
    pub p_dup: f64,
    pub dup_delay: usize,
    /// Probability that a packet is lost.
    pub p_loss: f64,
    /// Probability that a lost or trimmed packet is retransmitted, `window..=retx_delay`
    /// arrivals later (otherwise never: the message must time out).
    pub p_retx: f64,
    pub retx_delay: usize,
    /// Probability that a packet is trimmed (request with `mark_received = 0`, no frame).
    pub p_trim: f64,
    /// Driver: probability that the sender resends a packet whose request failed (as its
    /// own timeout would), `resend_delay` cycles later, at most `max_resends` times.
    pub p_resend_failed: f64,
    pub resend_delay: (u64, u64),
    pub max_resends: u8,
    /// Probability of a pause (of `pause_cycles`) before an arrival.
    pub p_pause: f64,
    pub pause_cycles: (u64, u64),
    /// Probability of a malformed extra request before a packet.
    pub p_bad_request: f64,
    /// Probability of a contract-violating frame before a packet's frame.
    pub p_violation: f64,
    /// Truncated violation frames keep at least this many words (1 allows a lone first
    /// beat that is also the last).
    pub min_truncated_words: u16,
    /// Driver: a new request is issued only while fewer frames than this are queued,
    /// being sent or may follow from requests in flight.
    pub max_queued_frames: usize,
    /// Driver: probability of an idle cycle before presenting a request.
    pub p_req_gap: f64,
    /// Driver: packets arrive no faster than the wire brings them: after a packet's
    /// request the next one waits for the packet's words on the wire ([`WIRE_HDR_WORDS`]
    /// and its payload's; the headers alone for a trimmed one) at one word per cycle,
    /// whether or not its frame is passed on.
    pub wire_paced: bool,
    /// Driver: probability of an idle cycle before a beat on `sink` (never inside a stall).
    pub p_beat_gap: f64,
    /// Driver: probability that a `source.ready`-low burst starts in a cycle.
    pub p_stall: f64,
    /// Driver: bursts last 1..=`stall_burst` cycles.
    pub stall_burst: u32,
}

impl Default for RxKnobs {
    fn default() -> Self {
        RxKnobs {
            messages: 300,
            senders: 16,
            colliding_senders: 8,
            p_collide_burst: 0.03,
            max_active: 6,
            window: 6,
            size_weights: [0.35, 0.25, 0.3, 0.1],
            p_edge_len: 0.03,
            p_dup: 0.03,
            dup_delay: 24,
            p_loss: 0.02,
            p_retx: 0.6,
            retx_delay: 40,
            p_trim: 0.02,
            p_resend_failed: 0.5,
            resend_delay: (500, 4000),
            max_resends: 2,
            p_pause: 0.002,
            pause_cycles: (500, 4000),
            p_bad_request: 0.004,
            p_violation: 0.006,
            min_truncated_words: 1,
            max_queued_frames: 2,
            p_req_gap: 0.1,
            wire_paced: true,
            p_beat_gap: 0.01,
            p_stall: 0.005,
            stall_burst: 60,
        }
    }
}

/// Messages and their packet-arrival schedule.
#[derive(Clone, Debug)]
pub struct RxSchedule {
    pub messages: Vec<RxMessage>,
    pub arrivals: Vec<Arrival>,
    /// Senders `(src_ip, src_port)`; the colliding ones last.
    pub senders: Vec<(u32, u16)>,
}

/// A fresh sender key `(ip, port)` hashing exactly like `(ip0, port0)` for every tx id.
fn colliding_sender(
    rng: &mut ChaCha8Rng,
    ip0: u32,
    port0: u16,
    taken: &[(u32, u16)],
) -> (u32, u16) {
    let target = slot_hashes(ip0, port0, 0);
    loop {
        let hi: u16 = rng.gen();
        let start: u16 = rng.gen();
        for d in 0..=u16::MAX {
            let lo = start.wrapping_add(d);
            let port = target.0 ^ hi ^ lo;
            let ip = ((hi as u32) << 16) | lo as u32;
            if port != 0 && slot_hashes(ip, port, 0) == target && !taken.contains(&(ip, port)) {
                return (ip, port);
            }
        }
    }
}

/// Lengths at packet, word and default size-class boundaries.
pub const EDGE_LENGTHS: [usize; 16] = [
    1, 7, 8, 9, 255, 256, 257, 1023, 1024, 1025, 2048, 2049, 8192, 8193, 38911, 38912,
];

/// A message length drawn from the size weights.
fn draw_len(rng: &mut ChaCha8Rng, w: &[f64; 4]) -> usize {
    let total: f64 = w.iter().sum();
    let mut x = rng.gen::<f64>() * total;
    let mut class = 3;
    for (i, wi) in w.iter().enumerate() {
        if x < *wi {
            class = i;
            break;
        }
        x -= wi;
    }
    match class {
        0 => rng.gen_range(1..=256),
        1 => rng.gen_range(257..=1024),
        2 => rng.gen_range(1025..=8192),
        _ => rng.gen_range(8193..=MAX_MSG_BYTES as usize),
    }
}

impl RxSchedule {
    /// Generates the messages and the arrival schedule for `seed`.
    pub fn generate(seed: u64, k: &RxKnobs) -> RxSchedule {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        assert!(k.senders >= 1, "at least one ordinary sender");
        // ---- senders
        let mut senders: Vec<(u32, u16)> = vec![];
        while senders.len() < k.senders {
            let ip = if senders.len() % 2 == 1 {
                senders[senders.len() - 1].0 // pairs share an IP
            } else {
                0x0a00_0000 | rng.gen_range(1..0x00ff_ffffu32)
            };
            let port = rng.gen_range(1024..=u16::MAX);
            if !senders.contains(&(ip, port)) {
                senders.push((ip, port));
            }
        }
        if k.colliding_senders > 0 {
            let ip0 = 0xc0a8_0000 | rng.gen_range(1..0xffffu32);
            let port0 = rng.gen_range(1024..=u16::MAX);
            senders.push((ip0, port0));
            for _ in 1..k.colliding_senders {
                let s = colliding_sender(&mut rng, ip0, port0, &senders);
                senders.push(s);
            }
        }
        let first_colliding = k.senders;
        // Every sender's tx ids count from the same base, so low bits coincide.
        let tx_base: u16 = rng.gen_range(0..0x8000);
        let mut next_tx: Vec<u16> = vec![tx_base; senders.len()];
        let local_ports: Vec<u16> = (0..4).map(|_| rng.gen_range(1..=u16::MAX)).collect();

        // ---- messages
        let mut messages: Vec<RxMessage> = Vec::with_capacity(k.messages);
        // Message indices that start together (colliding bursts) or alone.
        let mut groups: Vec<Vec<usize>> = vec![];
        while messages.len() < k.messages {
            let burst = k.colliding_senders > 1 && rng.gen_bool(k.p_collide_burst);
            let who: Vec<usize> = if burst {
                // Align the colliding senders' counters so the burst shares one tx id.
                let top = (first_colliding..senders.len())
                    .map(|s| next_tx[s])
                    .max()
                    .unwrap_or(0);
                for t in &mut next_tx[first_colliding..] {
                    *t = top;
                }
                (first_colliding..senders.len()).collect()
            } else {
                vec![rng.gen_range(0..senders.len())]
            };
            let mut group = vec![];
            for s in who {
                if messages.len() >= k.messages {
                    break;
                }
                let len = if burst {
                    rng.gen_range(1..=4 * PKT_BYTES as usize)
                } else if rng.gen_bool(k.p_edge_len) {
                    EDGE_LENGTHS[rng.gen_range(0..EDGE_LENGTHS.len())]
                } else {
                    draw_len(&mut rng, &k.size_weights)
                };
                let mut payload = vec![0u8; len];
                rng.fill(&mut payload[..]);
                let (src_ip, src_port) = senders[s];
                let tx_msg_id = next_tx[s];
                next_tx[s] = next_tx[s].wrapping_add(1);
                group.push(messages.len());
                messages.push(RxMessage {
                    src_ip,
                    src_port,
                    tx_msg_id,
                    local_port: local_ports[rng.gen_range(0..local_ports.len())],
                    payload,
                });
            }
            groups.push(group);
        }

        // ---- interleave: packets of the active messages, in order per message
        let mut base: Vec<(u32, u8)> = vec![];
        let mut active: Vec<(usize, usize)> = vec![]; // (msg, next packet)
        let mut next_group = 0;
        while next_group < groups.len() || !active.is_empty() {
            while next_group < groups.len() && active.len() < k.max_active.max(1) {
                for &m in &groups[next_group] {
                    active.push((m, 0));
                }
                next_group += 1;
            }
            let j = rng.gen_range(0..active.len());
            let (m, p) = active[j];
            base.push((m as u32, p as u8));
            if p + 1 == messages[m].packets() {
                active.swap_remove(j);
            } else {
                active[j].1 += 1;
            }
        }
        // ---- shuffle within a window
        let w = k.window.max(1);
        for i in 0..base.len() {
            let j = (i + rng.gen_range(0..w)).min(base.len() - 1);
            base.swap(i, j);
        }

        // ---- loss, retransmission, trimming, duplicates, pauses, violations
        let mut arrivals: Vec<Arrival> = Vec::with_capacity(base.len() * 11 / 10);
        // (due position, msg, pkt)
        let mut deferred: Vec<(usize, u32, u8)> = vec![];
        let mut bi = 0;
        loop {
            let pos = arrivals.len();
            let item = if let Some(d) = deferred
                .iter()
                .enumerate()
                .filter(|(_, d)| d.0 <= pos)
                .min_by_key(|(_, d)| d.0)
                .map(|(i, _)| i)
            {
                let (_, m, p) = deferred.swap_remove(d);
                (m, p)
            } else if bi < base.len() {
                bi += 1;
                base[bi - 1]
            } else if let Some(d) = deferred
                .iter()
                .enumerate()
                .min_by_key(|(_, d)| d.0)
                .map(|(i, _)| i)
            {
                let (_, m, p) = deferred.swap_remove(d);
                (m, p)
            } else {
                break;
            };
            let (m, p) = item;
            let msg = &messages[m as usize];
            if rng.gen_bool(k.p_pause) {
                arrivals.push(Arrival::Pause(
                    rng.gen_range(k.pause_cycles.0..=k.pause_cycles.1.max(k.pause_cycles.0)),
                ));
            }
            let r: f64 = rng.gen();
            let retx = |rng: &mut ChaCha8Rng, deferred: &mut Vec<(usize, u32, u8)>, lo: usize| {
                if rng.gen_bool(k.p_retx) {
                    let d = rng.gen_range(lo..=k.retx_delay.max(lo));
                    deferred.push((pos + d, m, p));
                }
            };
            if r < k.p_loss {
                retx(&mut rng, &mut deferred, w);
                continue;
            }
            let trimmed = r < k.p_loss + k.p_trim;
            if trimmed {
                retx(&mut rng, &mut deferred, 1);
            } else if rng.gen_bool(k.p_dup) {
                deferred.push((pos + rng.gen_range(1..=k.dup_delay.max(1)), m, p));
            }
            let bad_request = if rng.gen_bool(k.p_bad_request) {
                let total = msg.packets() as u64;
                Some(match rng.gen_range(0..4) {
                    0 => BadRequest::LenZero,
                    1 => BadRequest::LenTooBig(rng.gen_range(MAX_MSG_BYTES as u16 + 1..=u16::MAX)),
                    2 => BadRequest::OffsetOutOfRange(
                        rng.gen_range(total..=total + 40).min(255) as u8
                    ),
                    _ => {
                        let mut l = msg.len() as u16;
                        while l == msg.len() as u16 {
                            l = rng.gen_range(1..=MAX_MSG_BYTES as u16);
                        }
                        BadRequest::LenMismatch(l)
                    }
                })
            } else {
                None
            };
            let violation = if !trimmed && rng.gen_bool(k.p_violation) {
                let full = (HDR_WORDS + packet_len(msg.len() as u64, p as u64).div_ceil(8)) as u16;
                Some(match rng.gen_range(0..5) {
                    0 => Violation::WrongIdKnown,
                    1 => Violation::WrongIdUnknown,
                    2 => {
                        let lo = k.min_truncated_words.max(1).min(full - 1);
                        Violation::Truncated {
                            words: rng.gen_range(lo..full),
                        }
                    }
                    3 => Violation::OverLong {
                        extra: rng.gen_range(1..=16),
                    },
                    _ => {
                        let total = msg.packets();
                        let off = if total == 1 {
                            1
                        } else {
                            let mut o = p as usize;
                            while o == p as usize {
                                o = rng.gen_range(0..total);
                            }
                            o
                        };
                        Violation::UnrequestedOffset { off: off as u8 }
                    }
                })
            } else {
                None
            };
            arrivals.push(Arrival::Packet {
                msg: m,
                pkt: p,
                trimmed,
                violation,
                bad_request,
            });
        }
        RxSchedule {
            messages,
            arrivals,
            senders,
        }
    }

    /// Packet arrivals (not pauses) in the schedule.
    pub fn packet_count(&self) -> usize {
        self.arrivals
            .iter()
            .filter(|a| matches!(a, Arrival::Packet { .. }))
            .count()
    }
}

/// A `GetRxMsgInfo` request as driven on `info_req`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RxReq {
    pub mark_received: bool,
    pub src_ip: u32,
    pub src_port: u16,
    pub tx_msg_id: u16,
    pub msg_len: u16,
    pub pkt_offset: u8,
}

/// `info_resp` as read in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RxResp {
    pub valid: bool,
    pub fail: bool,
    pub rx_msg_id: u16,
    pub is_new_msg: bool,
    pub is_new_pkt: bool,
    pub is_last_pkt: bool,
    pub ack_no: u16,
    /// A late duplicate of a delivered message.
    pub done: bool,
}

/// Listing 3.1 metadata of a frame on `sink`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FrameMeta {
    pub remote_ip: u32,
    pub remote_port: u16,
    pub msg_len: u16,
    pub pkt_offset: u8,
    pub local_port: u16,
    pub rx_msg_id: u16,
    pub tx_msg_id: u16,
    /// From the response (not a port of the block; kept for traces).
    pub is_last_pkt: bool,
}

/// What a frame is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// The frame of a packet whose request succeeded.
    Normal,
    /// An injected contract violation.
    Violation(Violation),
}

/// A frame for `sink`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxFrame {
    /// Sequence number of the frame in the run (also in its header words).
    pub seq: u64,
    /// Index of the message in the schedule.
    pub msg: usize,
    pub meta: FrameMeta,
    /// Header and payload words as sent.
    pub words: Vec<u64>,
    pub kind: FrameKind,
}

/// `source` in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RxOut {
    pub valid: bool,
    pub ready: bool,
    pub data: u64,
    pub last: bool,
    pub local_port: u16,
}

/// `stat` in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RxStat {
    pub delivered: u32,
    pub duplicates: u32,
    pub alloc_fail: u32,
    pub timeouts: u32,
    pub bad_req: u32,
    pub len_conflicts: u32,
    pub bad_data: u32,
    pub late_dups: u32,
    pub ids_free: u16,
    pub bufs_free: u16,
    pub deliv_pending: u16,
    pub freed_valid: bool,
    pub freed_id: u16,
    pub freed_timeout: bool,
}

/// Why a request was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReqOrigin {
    /// Arrival `arrival` of the schedule (packet `pkt` of message `msg`).
    Packet { arrival: usize, msg: usize, pkt: u8 },
    /// A malformed extra request before arrival `arrival`.
    Bad {
        arrival: usize,
        msg: usize,
        kind: BadRequest,
    },
}

/// An accepted request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AcceptedReq {
    pub req: RxReq,
    pub origin: ReqOrigin,
}

/// What crossed the block's ports in one cycle (read after the cycle's inputs settled).
#[derive(Clone, Debug, Default)]
pub struct RxCycle {
    pub cycle: u64,
    /// `reset` was high this cycle.
    pub reset: bool,
    /// A request was accepted (`valid & ready`).
    pub req: Option<AcceptedReq>,
    /// `info_req.valid` and `info_req.ready`.
    pub req_valid: bool,
    pub req_ready: bool,
    pub resp: RxResp,
    /// The first beat of this frame was accepted.
    pub frame_first: Option<Arc<RxFrame>>,
    /// The last beat of this frame was accepted (with all its words).
    pub frame_last: Option<Arc<RxFrame>>,
    /// `sink.valid` and `sink.ready`.
    pub sink_valid: bool,
    pub sink_ready: bool,
    pub out: RxOut,
    pub stat: RxStat,
}

/// Counts of what the driver did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxDriverStats {
    pub requests: u64,
    pub trimmed_requests: u64,
    pub bad_requests: u64,
    /// Responses with `fail = 1`.
    pub failed: u64,
    /// Packets resent after a failed request.
    pub resends: u64,
    /// Marking requests answered with `is_new_pkt = 0`.
    pub not_new: u64,
    pub frames: u64,
    pub violation_frames: u64,
    /// Cycles a frame of at least `HDR_WORDS + 1` words waited on `sink.ready`.
    pub long_frame_stalls: u64,
    /// Cycles any frame waited on `sink.ready`.
    pub sink_stalls: u64,
    /// Cycles with `source.ready` low.
    pub source_stall_cycles: u64,
    /// Cycles a request waited on `info_req.ready`.
    pub req_waits: u64,
    /// Cycles paused by the schedule.
    pub pause_cycles: u64,
    /// Responses that did not come two cycles after acceptance (or came unasked).
    pub missing_responses: u64,
}

#[derive(Clone, Copy, Debug)]
struct PendingReq {
    req: RxReq,
    origin: ReqOrigin,
    /// A marking request for a packet: a frame follows a fresh success.
    frame: bool,
    violation: Option<Violation>,
    /// Times this packet was resent after a failure.
    resends: u8,
}

/// Plays the NIC ingress pipeline in front of a [`Reassembly`] block. See the module doc.
pub struct RxDriver {
    sched: Arc<RxSchedule>,
    k: RxKnobs,
    rng: ChaCha8Rng,
    n_ids: u16,
    timeout: u64,
    /// Cycles of reset at the start.
    pub reset_cycles: u64,
    next_arrival: usize,
    /// A bad request to send before the arrival `next_arrival` (already generated).
    bad_sent_for: Option<usize>,
    cur_req: Option<PendingReq>,
    presenting_req: bool,
    inflight: VecDeque<(u64, PendingReq)>,
    /// (due cycle, arrival, resends so far)
    resend: Vec<(u64, usize, u8)>,
    pause_until: u64,
    /// The wire is busy with the previous packet until this cycle.
    wire_free_at: u64,
    frames: VecDeque<Arc<RxFrame>>,
    cur_frame: Option<(Arc<RxFrame>, usize)>,
    presenting_beat: bool,
    sink_stalled: bool,
    stall_left: u32,
    source_ready: bool,
    frame_seq: u64,
    last_activity: u64,
    in_reset: bool,
    pub stats: RxDriverStats,
}

impl RxDriver {
    /// A driver for a block with `n_ids` message ids and inactivity timeout `timeout`
    /// (driven on `cfg.timeout`). `seed` seeds the driver's own timing decisions.
    pub fn new(sched: RxSchedule, k: &RxKnobs, seed: u64, n_ids: usize, timeout: u64) -> Self {
        RxDriver {
            sched: Arc::new(sched),
            k: k.clone(),
            rng: ChaCha8Rng::seed_from_u64(seed ^ DRIVER_SALT),
            n_ids: n_ids as u16,
            timeout,
            reset_cycles: 2,
            next_arrival: 0,
            bad_sent_for: None,
            cur_req: None,
            presenting_req: false,
            inflight: VecDeque::new(),
            resend: vec![],
            pause_until: 0,
            wire_free_at: 0,
            frames: VecDeque::new(),
            cur_frame: None,
            presenting_beat: false,
            sink_stalled: false,
            stall_left: 0,
            source_ready: true,
            frame_seq: 0,
            last_activity: 0,
            in_reset: false,
            stats: RxDriverStats::default(),
        }
    }

    /// The schedule being played.
    pub fn schedule(&self) -> &RxSchedule {
        &self.sched
    }

    /// The timeout driven on `cfg.timeout`.
    pub fn timeout(&self) -> u64 {
        self.timeout
    }

    /// The idle time driven on `cfg.conflict_idle`: half the timeout, so that `msg_len`
    /// conflicts meet both fresh messages (left alone) and idle ones (expired).
    pub fn conflict_idle(&self) -> u64 {
        self.timeout.min(u32::MAX as u64) / 2
    }

    /// Every arrival has been requested, answered and its frames sent.
    pub fn done(&self) -> bool {
        self.next_arrival >= self.sched.arrivals.len()
            && self.resend.is_empty()
            && self.cur_req.is_none()
            && self.inflight.is_empty()
            && self.frames.is_empty()
            && self.cur_frame.is_none()
    }

    /// The frame being sent on `sink` and the index of its next beat.
    pub fn current_frame(&self) -> Option<(&RxFrame, usize)> {
        self.cur_frame.as_ref().map(|(f, i)| (&**f, *i))
    }

    /// A shared handle on the schedule.
    pub fn schedule_arc(&self) -> Arc<RxSchedule> {
        self.sched.clone()
    }

    /// The last cycle in which a request or a beat was accepted.
    pub fn last_activity(&self) -> u64 {
        self.last_activity
    }

    /// Frames queued or being sent, plus requests that may still add one.
    fn frame_load(&self) -> usize {
        self.frames.len()
            + self.cur_frame.is_some() as usize
            + self.inflight.iter().filter(|(_, p)| p.frame).count()
            + self.cur_req.map_or(0, |p| p.frame as usize)
    }

    fn drained(&self) -> bool {
        self.cur_req.is_none()
            && self.inflight.is_empty()
            && self.frames.is_empty()
            && self.cur_frame.is_none()
    }

    /// The next request to present, if one may be issued now.
    fn next_request(&mut self, cycle: u64) -> Option<PendingReq> {
        if cycle < self.pause_until {
            self.stats.pause_cycles += 1;
            return None;
        }
        if cycle < self.wire_free_at {
            return None;
        }
        // A sender's resend of a packet whose request failed, when due.
        if let Some(i) = (0..self.resend.len())
            .filter(|&i| self.resend[i].0 <= cycle)
            .min_by_key(|&i| self.resend[i].0)
        {
            if self.frame_load() >= self.k.max_queued_frames.max(1)
                || self.rng.gen_bool(self.k.p_req_gap)
            {
                return None;
            }
            let (_, arrival, resends) = self.resend.swap_remove(i);
            let Arrival::Packet { msg, pkt, .. } = self.sched.arrivals[arrival] else {
                unreachable!("only packets are resent")
            };
            let m = &self.sched.messages[msg as usize];
            self.stats.resends += 1;
            return Some(PendingReq {
                req: RxReq {
                    mark_received: true,
                    src_ip: m.src_ip,
                    src_port: m.src_port,
                    tx_msg_id: m.tx_msg_id,
                    msg_len: m.len() as u16,
                    pkt_offset: pkt,
                },
                origin: ReqOrigin::Packet {
                    arrival,
                    msg: msg as usize,
                    pkt,
                },
                frame: true,
                violation: None,
                resends,
            });
        }
        let a = *self.sched.arrivals.get(self.next_arrival)?;
        let (msg, pkt, trimmed, violation, bad_request) = match a {
            Arrival::Pause(n) => {
                if self.drained() {
                    self.pause_until = cycle + n;
                    self.next_arrival += 1;
                }
                return None;
            }
            Arrival::Packet {
                msg,
                pkt,
                trimmed,
                violation,
                bad_request,
            } => (msg, pkt, trimmed, violation, bad_request),
        };
        if !trimmed && self.frame_load() >= self.k.max_queued_frames.max(1) {
            return None;
        }
        if self.rng.gen_bool(self.k.p_req_gap) {
            return None;
        }
        let m = &self.sched.messages[msg as usize];
        let base = RxReq {
            mark_received: !trimmed,
            src_ip: m.src_ip,
            src_port: m.src_port,
            tx_msg_id: m.tx_msg_id,
            msg_len: m.len() as u16,
            pkt_offset: pkt,
        };
        if let (Some(kind), false) = (bad_request, self.bad_sent_for == Some(self.next_arrival)) {
            // The malformed extra request goes first.
            self.bad_sent_for = Some(self.next_arrival);
            let mut req = base;
            req.mark_received = true;
            match kind {
                BadRequest::LenZero => req.msg_len = 0,
                BadRequest::LenTooBig(l) | BadRequest::LenMismatch(l) => req.msg_len = l,
                BadRequest::OffsetOutOfRange(o) => req.pkt_offset = o,
            }
            return Some(PendingReq {
                req,
                origin: ReqOrigin::Bad {
                    arrival: self.next_arrival,
                    msg: msg as usize,
                    kind,
                },
                frame: false,
                violation: None,
                resends: 0,
            });
        }
        let p = PendingReq {
            req: base,
            origin: ReqOrigin::Packet {
                arrival: self.next_arrival,
                msg: msg as usize,
                pkt,
            },
            frame: !trimmed,
            violation,
            resends: 0,
        };
        self.next_arrival += 1;
        Some(p)
    }

    /// Sets the block's inputs for `cycle` (`now = cycle`).
    pub fn drive<
        const A: usize,
        const N: usize,
        const C: usize,
        const SA: usize,
        const S: usize,
        const BW: usize,
    >(
        &mut self,
        cycle: u64,
        u: &mut Reassembly<A, N, C, SA, S, BW>,
    ) {
        self.in_reset = cycle < self.reset_cycles;
        u.reset.next = self.in_reset;
        u.now.next = cycle.into();
        u.cfg.timeout.next = (self.timeout.min(u32::MAX as u64)).into();
        u.cfg.conflict_idle.next = self.conflict_idle().into();

        // ---- info_req
        if !self.in_reset && self.cur_req.is_none() {
            self.cur_req = self.next_request(cycle);
        }
        self.presenting_req = !self.in_reset && self.cur_req.is_some();
        let r = self.cur_req.map(|p| p.req).unwrap_or_default();
        u.info_req.valid.next = self.presenting_req;
        u.info_req.mark_received.next = r.mark_received;
        u.info_req.src_ip.next = (r.src_ip as u64).into();
        u.info_req.src_port.next = (r.src_port as u64).into();
        u.info_req.tx_msg_id.next = (r.tx_msg_id as u64).into();
        u.info_req.msg_len.next = (r.msg_len as u64).into();
        u.info_req.pkt_offset.next = (r.pkt_offset as u64).into();

        // ---- sink: a stalled beat is presented again; otherwise an optional idle gap
        self.presenting_beat = false;
        if !self.in_reset {
            if self.sink_stalled {
                self.presenting_beat = true;
            } else {
                if self.cur_frame.is_none() {
                    self.cur_frame = self.frames.pop_front().map(|f| (f, 0));
                }
                self.presenting_beat =
                    self.cur_frame.is_some() && !self.rng.gen_bool(self.k.p_beat_gap);
            }
        }
        match (&self.cur_frame, self.presenting_beat) {
            (Some((f, i)), true) => {
                let m = &f.meta;
                u.sink.valid.next = true;
                u.sink.data.next = f.words[*i].into();
                u.sink.last.next = *i + 1 == f.words.len();
                u.sink.remote_ip.next = (m.remote_ip as u64).into();
                u.sink.remote_port.next = (m.remote_port as u64).into();
                u.sink.msg_len.next = (m.msg_len as u64).into();
                u.sink.pkt_offset.next = (m.pkt_offset as u64).into();
                u.sink.local_port.next = (m.local_port as u64).into();
                u.sink.rx_msg_id.next = (m.rx_msg_id as u64).into();
                u.sink.tx_msg_id.next = (m.tx_msg_id as u64).into();
            }
            _ => {
                u.sink.valid.next = false;
                u.sink.data.next = 0.into();
                u.sink.last.next = false;
            }
        }

        // ---- source.ready: bursts of back-pressure while the schedule runs
        if self.stall_left == 0
            && self.next_arrival < self.sched.arrivals.len()
            && self.rng.gen_bool(self.k.p_stall)
        {
            self.stall_left = self.rng.gen_range(1..=self.k.stall_burst.max(1));
        }
        self.source_ready = if self.stall_left > 0 {
            self.stall_left -= 1;
            false
        } else {
            true
        };
        u.source.ready.next = self.source_ready;
    }

    /// Reads what crossed the ports in `cycle` (after the kernel settled the inputs set by
    /// [`RxDriver::drive`]) and advances the driver.
    pub fn observe<
        const A: usize,
        const N: usize,
        const C: usize,
        const SA: usize,
        const S: usize,
        const BW: usize,
    >(
        &mut self,
        cycle: u64,
        u: &Reassembly<A, N, C, SA, S, BW>,
    ) -> RxCycle {
        let mut o = RxCycle {
            cycle,
            reset: self.in_reset,
            ..Default::default()
        };
        // ---- info_req
        o.req_valid = self.presenting_req;
        o.req_ready = u.info_req.ready.val();
        if self.presenting_req {
            if o.req_ready {
                let p = self
                    .cur_req
                    .take()
                    .expect("a presented request is held in cur_req");
                self.stats.requests += 1;
                self.stats.trimmed_requests += !p.req.mark_received as u64;
                self.stats.bad_requests += matches!(p.origin, ReqOrigin::Bad { .. }) as u64;
                o.req = Some(AcceptedReq {
                    req: p.req,
                    origin: p.origin,
                });
                if let (ReqOrigin::Packet { msg, pkt, .. }, true) = (p.origin, self.k.wire_paced) {
                    let bytes = if p.req.mark_received {
                        packet_len(self.sched.messages[msg].len() as u64, pkt as u64)
                    } else {
                        0
                    };
                    self.wire_free_at = cycle + WIRE_HDR_WORDS + bytes.div_ceil(8);
                }
                self.inflight.push_back((cycle, p));
                self.last_activity = cycle;
            } else {
                self.stats.req_waits += 1;
            }
        }
        // ---- info_resp
        o.resp = RxResp {
            valid: u.info_resp.valid.val(),
            fail: u.info_resp.fail.val(),
            rx_msg_id: u.info_resp.rx_msg_id.val().to_u64() as u16,
            is_new_msg: u.info_resp.is_new_msg.val(),
            is_new_pkt: u.info_resp.is_new_pkt.val(),
            is_last_pkt: u.info_resp.is_last_pkt.val(),
            ack_no: u.info_resp.ack_no.val().to_u64() as u16,
            done: u.info_resp.done.val(),
        };
        let due = matches!(self.inflight.front(), Some((t, _)) if t + 2 == cycle);
        if due {
            let (_, p) = self.inflight.pop_front().expect("`due` saw a front entry");
            let resp = o.resp;
            if !resp.valid {
                self.stats.missing_responses += 1;
            }
            let ok = resp.valid && !resp.fail;
            self.stats.failed += (resp.valid && resp.fail) as u64;
            self.stats.not_new += (ok && p.req.mark_received && !resp.is_new_pkt) as u64;
            if resp.valid
                && resp.fail
                && p.frame
                && p.resends < self.k.max_resends
                && self.rng.gen_bool(self.k.p_resend_failed)
            {
                if let ReqOrigin::Packet { arrival, .. } = p.origin {
                    let (lo, hi) = self.k.resend_delay;
                    let due = cycle + self.rng.gen_range(lo..=hi.max(lo));
                    self.resend.push((due, arrival, p.resends + 1));
                }
            }
            if p.frame && ok && resp.is_new_pkt {
                if let ReqOrigin::Packet { msg, pkt, .. } = p.origin {
                    self.queue_frames(msg, pkt, resp, p.violation);
                }
            }
        } else if o.resp.valid {
            self.stats.missing_responses += 1;
        }
        // ---- sink
        o.sink_valid = self.presenting_beat;
        o.sink_ready = u.sink.ready.val();
        self.sink_stalled = false;
        if self.presenting_beat {
            let (f, i) = self
                .cur_frame
                .clone()
                .expect("a presented beat has its frame");
            if o.sink_ready {
                self.last_activity = cycle;
                if i == 0 {
                    o.frame_first = Some(f.clone());
                }
                if i + 1 == f.words.len() {
                    o.frame_last = Some(f.clone());
                    self.cur_frame = None;
                } else {
                    self.cur_frame = Some((f, i + 1));
                }
            } else {
                self.sink_stalled = true;
                self.stats.sink_stalls += 1;
                if f.words.len() as u64 > HDR_WORDS {
                    self.stats.long_frame_stalls += 1;
                }
            }
        }
        // ---- source
        o.out = RxOut {
            valid: u.source.valid.val(),
            ready: self.source_ready,
            data: bits_u64(u.source.data.val()),
            last: u.source.last.val(),
            local_port: u.source.local_port.val().to_u64() as u16,
        };
        self.stats.source_stall_cycles += !self.source_ready as u64;
        // ---- stat
        let s = &u.stat;
        o.stat = RxStat {
            delivered: s.delivered.val().to_u64() as u32,
            duplicates: s.duplicates.val().to_u64() as u32,
            alloc_fail: s.alloc_fail.val().to_u64() as u32,
            timeouts: s.timeouts.val().to_u64() as u32,
            bad_req: s.bad_req.val().to_u64() as u32,
            len_conflicts: s.len_conflicts.val().to_u64() as u32,
            bad_data: s.bad_data.val().to_u64() as u32,
            late_dups: s.late_dups.val().to_u64() as u32,
            ids_free: s.ids_free.val().to_u64() as u16,
            bufs_free: s.bufs_free.val().to_u64() as u16,
            deliv_pending: s.deliv_pending.val().to_u64() as u16,
            freed_valid: s.freed_valid.val(),
            freed_id: s.freed_id.val().to_u64() as u16,
            freed_timeout: s.freed_timeout.val(),
        };
        o
    }

    /// A new frame carrying packet `pkt` of message `msg` with `meta` (numbered; not
    /// queued). Directed tests edit it and queue it with [`RxDriver::frames_mut`].
    pub fn make_frame(&mut self, msg: usize, pkt: u8, meta: FrameMeta, kind: FrameKind) -> RxFrame {
        self.build_frame(msg, pkt, meta, kind)
    }

    /// The frames queued for `sink` (not including the one being sent).
    pub fn frames_mut(&mut self) -> &mut VecDeque<Arc<RxFrame>> {
        &mut self.frames
    }

    /// The frame of packet `pkt` of message `msg` with `meta`.
    fn build_frame(&mut self, msg: usize, pkt: u8, meta: FrameMeta, kind: FrameKind) -> RxFrame {
        let m = &self.sched.messages[msg];
        let seq = self.frame_seq;
        self.frame_seq += 1;
        let mut words: Vec<u64> = (0..HDR_WORDS).map(|i| header_word(seq, i)).collect();
        words.extend(pack_words(m.packet_bytes(pkt as usize)));
        RxFrame {
            seq,
            msg,
            meta,
            words,
            kind,
        }
    }

    /// Queues the frame of a packet whose request succeeded, after its violation frame.
    fn queue_frames(&mut self, msg: usize, pkt: u8, resp: RxResp, violation: Option<Violation>) {
        let m = &self.sched.messages[msg];
        let meta = FrameMeta {
            remote_ip: m.src_ip,
            remote_port: m.src_port,
            msg_len: m.len() as u16,
            pkt_offset: pkt,
            local_port: m.local_port,
            rx_msg_id: resp.rx_msg_id,
            tx_msg_id: m.tx_msg_id,
            is_last_pkt: resp.is_last_pkt,
        };
        if let Some(v) = violation {
            let kind = FrameKind::Violation(v);
            let scramble = |w: &mut [u64], seq: u64| {
                for (i, x) in w.iter_mut().enumerate() {
                    *x = !*x ^ (seq << 20) ^ i as u64;
                }
            };
            let f = match v {
                Violation::WrongIdKnown => {
                    let mut mt = meta;
                    let n = self.n_ids.max(2);
                    mt.rx_msg_id = (resp.rx_msg_id + self.rng.gen_range(1..n)) % n;
                    self.build_frame(msg, pkt, mt, kind)
                }
                Violation::WrongIdUnknown => {
                    let mut mt = meta;
                    mt.rx_msg_id = self.rng.gen_range(self.n_ids..=u16::MAX);
                    self.build_frame(msg, pkt, mt, kind)
                }
                Violation::Truncated { words } => {
                    let mut f = self.build_frame(msg, pkt, meta, kind);
                    f.words.truncate(words.max(1) as usize);
                    let seq = f.seq;
                    scramble(&mut f.words[HDR_WORDS.min(words as u64) as usize..], seq);
                    f
                }
                Violation::OverLong { extra } => {
                    let mut f = self.build_frame(msg, pkt, meta, kind);
                    let seq = f.seq;
                    for i in 0..extra as u64 {
                        f.words.push(0x0ee0_0000_0000_0000 ^ (seq << 16) ^ i);
                    }
                    scramble(&mut f.words[HDR_WORDS as usize..], seq);
                    f
                }
                Violation::UnrequestedOffset { off } => {
                    let mut mt = meta;
                    mt.pkt_offset = off;
                    self.build_frame(msg, off, mt, kind)
                }
            };
            self.stats.violation_frames += 1;
            self.frames.push_back(Arc::new(f));
        }
        let f = self.build_frame(msg, pkt, meta, FrameKind::Normal);
        self.stats.frames += 1;
        self.frames.push_back(Arc::new(f));
    }
}

/// Runs `cycles` cycles of `drv` on the kernel `k` (reset first, as the driver does),
/// handing each cycle's observations to `each`. The loop behind `ntsim wave`-style runs.
pub fn run_driver<
    const A: usize,
    const N: usize,
    const C: usize,
    const SA: usize,
    const S: usize,
    const BW: usize,
>(
    k: &mut crate::kernel::Kernel<Reassembly<A, N, C, SA, S, BW>>,
    drv: &mut RxDriver,
    cycles: u64,
    mut each: impl FnMut(&RxCycle),
) -> Result<(), crate::kernel::KernelError> {
    for _ in 0..cycles {
        let c = k.cycle();
        drv.drive(c, k.uut_mut());
        k.settle()?;
        let o = drv.observe(c, k.uut());
        each(&o);
        k.tick()?;
    }
    Ok(())
}
