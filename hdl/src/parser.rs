//! Ingress parser of the NIC (thesis §3.2.1; SPEC §2): validates every frame from the MAC
//! and extracts its Ethernet, IPv4 and transport header fields; drops and counts what is
//! malformed, unknown or not for this host, so that nothing malformed goes further.
//!
//! ```text
//!  sink (MAC RX) ─┬─► header words 0-6, bytes 56-58 ──────────────────────► fields ──┐
//!                 ├─► checks on the beat of their field ─► registered flags ─┐        │
//!                 │    (beats 0-6: see "Timing")                             ├─► last word: length checks,
//!                 │                                                          │   first failing reason
//!                 │                                      drop counters ◄─────┤   (rewind, count)
//!                 │                                      verdict queue ◄─────┴────────┘ ─┐
//!                 └─► frame ring (words 5 on; 512 words; a dropped frame is rewound) ────┴─► source
//!                                                                               (frame + header fields)
//! ```
//!
//! # Interfaces
//! * `sink`: frames from the MAC as 64-bit words, first byte in bits 63:56, `last` on the
//!   final word with `empty` = unused bytes of it (0-7). `ready` is always high (a MAC
//!   cannot wait): a frame that does not fit the ring is dropped ([`DROP_OVERFLOW`]).
//! * `source`: every accepted frame from its word [`SKIP_WORDS`] on (header words 5-7,
//!   then the payload), with [`RxHdr`] beside every word: words 0-4 (Ethernet, IPv4, the
//!   transport header to byte 39) carry only fields that [`RxHdr`] already has, so they are
//!   neither stored nor sent, and an 80-byte frame leaves as 5 words. Store and forward: a
//!   frame leaves once its last word is in and checked, the cycle after at the earliest.
//! * `cfg`: this host's MAC and IPv4 address, and the transport protocol number of the
//!   program (155 NDP, 154 Homa). `homa` (a build parameter) selects the transport layout.
//!   Each is compared with its frame field as the word holding the field arrives (words
//!   0, 2, 3 and 4): change `cfg` between frames only.
//! * `stat`: frames seen, frames passed, and one drop counter per reason ([`DROP_REASONS`]).
//!
//! # Checks, in order (the first that fails names the drop)
//! 1. [`DROP_OVERFLOW`]: a word to be stored found the ring full, or 64 checked frames
//!    waiting (the consumer is too slow).
//! 2. [`DROP_TOO_LONG`]: more than 1088 bytes.
//! 3. [`DROP_TRUNCATED`]: less than the 64 bytes of headers.
//! 4. [`DROP_NOT_IPV4`]: ethertype is not 0x0800.
//! 5. [`DROP_BAD_IP`]: version/IHL is not 4/5, or the packet is a fragment.
//! 6. [`DROP_BAD_LENGTH`]: the IPv4 total length disagrees with the frame's length.
//! 7. [`DROP_BAD_CHECKSUM`]: the IPv4 header checksum is wrong.
//! 8. [`DROP_NOT_FOR_US`]: destination MAC or IP is not this host's.
//! 9. [`DROP_BAD_PROTOCOL`]: IPv4 protocol is not the program's.
//! 10. [`DROP_BAD_TRANSPORT`]: flags undefined (a bit above CHOP set, no type bit, CHOP
//!     without DATA), `msg_len` 0 or above 38 KiB, or the packet's length inconsistent with
//!     its offset: a DATA packet needs `pkt_offset` below the message's packet count and a
//!     payload of exactly `min(1024, msg_len - 1024 * pkt_offset)` bytes (none when CHOP:
//!     a trimmed packet is its 64 bytes of headers); a control packet (ACK, NACK,
//!     PULL/GRANT) needs `pkt_offset` at most the packet count and its 1-byte dummy payload.
//!     A parser built for Bolt ([`Parser::with_bolt`]) also passes a switch's SRC packet:
//!     transport flags 0 with the Bolt SRC flag (0x20 in frame byte 54), a valid
//!     `msg_len`, `pkt_offset` below the packet count and no payload (64 bytes).
//!
//! # Transport layout (SPEC §2; byte offsets in the frame)
//! 34 flags, 35 src port, 37 dst port, 39 msg_len, 41 pkt_offset, 42 pull/grant offset;
//! NDP: 44 tx_msg_id, 46 buf_ptr, 48 buf_size_class; Homa: 44 grant_prio, 45 tx_msg_id,
//! 47 buf_ptr, 49 buf_size_class. Bolt's 9 bytes (Listing 4.1: q_size 24, link_rate 8,
//! flags 8, t_data_tx 32) are at bytes 50-58 in both layouts (inside the padding).
//!
//! # Timing (one cycle of logic per cycle)
//! Every check whose fields are in the headers is computed on the beat (word index `b`,
//! frame bytes `8b..8b+7`) that brings its last field and kept in a registered flag; the
//! IPv4 header checksum (frame bytes 14-33) is summed as its words arrive, each word's
//! four 16-bit lanes as a tree of adds and the carries folded two beats later.
//!
//! | beat | registered |
//! |---|---|
//! | 0 | destination MAC ≠ `cfg.mac` |
//! | 1 | ethertype, version/IHL |
//! | 2 | fragment bits, protocol ≠ `cfg.protocol`; checksum: the sum of word 2's four lanes |
//! | 3 | destination IP bytes 30-31 ≠ `cfg.ip`; checksum: word 3's four lanes, lane 14-15 + word 2's sum; from the IPv4 total length `T` (`E = T + 14` bytes): the index of the frame's last word `(E - 1) / 8`, its `empty` and the payload length `T - 50` |
//! | 4 | destination IP bytes 32-33; checksum: + word 3's sum + lane 32-33 (20 bits); payload length 0, 1 or 1024 |
//! | 5 | checksum: first fold; transport, first half: packet count, `msg_len` bounds, flags, `pkt_offset + 1`, `msg_len - 1024 * pkt_offset` |
//! | 6 | checksum: second fold, compared with 0xffff; transport, second half (offset against the packet count, payload length against the one the offset wants, Bolt's SRC) |
//!
//! A frame that passes has at least 8 words, so every flag is set before its last word;
//! a shorter frame is dropped as truncated (or overflow) whatever its flags say. The last
//! word only adds what depends on the frame's length (the word count and `empty`:
//! overflow, too long, truncated, and the length check against beat 3's registers) and the
//! priority among the ten reasons, which drives the drop counters, the ring's rewind and
//! the verdict queue. The transport check takes the payload length from the IPv4 total
//! length (`T - 50`): it is the frame's whenever the length check passes, and when that
//! fails the frame is dropped for its length first. The ring's fill level is kept in a
//! register (`used`, `cused`) rather than subtracted from its pointers.
//!
//! # Verdict queue
//! The descriptors of checked frames ([`Verdict`]: last word index, `empty`, [`RxHdr`])
//! wait in a 64-entry queue (a RAM). A frame stores as few as 3 words, so the ring can
//! hold more frames than the queue: while it holds 64 the ring counts as full, and the
//! next frame's stored words drop it as an overflow. The
//! RAM reads before it writes, so in the cycle after a push into the entry being read
//! the head comes from the header registers, which still hold that frame (the next frame
//! writes header word 0 at the end of that cycle at the earliest). The word count that
//! ends a frame on `source` is compared with the previous cycle's head (a frame's first
//! word is never its last), so that no RAM output decides which word is read next.
//!
//! # Latency
//! Last word in at cycle `L` → first word out at `L+1` (a 16-byte message's 80-byte packet,
//! 10 words: first byte in at 0, first byte out at 10). One word per cycle in and out.
use rust_hdl::prelude::*;

/// Ring words (`2^RING_A`).
pub const RING_A: usize = 9;
/// Leading frame words not stored and not sent on `source`: Ethernet, IPv4 and the
/// transport header up to byte 39, whose fields travel in [`RxHdr`] beside every word.
pub const SKIP_WORDS: u64 = 5;
/// Largest frame: 64 bytes of headers and 1024 of payload.
pub const MAX_FRAME_BYTES: u64 = 1088;
/// Header bytes before the payload.
pub const HDR_BYTES: u64 = 64;
/// Largest message.
pub const MAX_MSG_BYTES: u64 = 38 * 1024;

pub const DROP_OVERFLOW: usize = 0;
pub const DROP_TOO_LONG: usize = 1;
pub const DROP_TRUNCATED: usize = 2;
pub const DROP_NOT_IPV4: usize = 3;
pub const DROP_BAD_IP: usize = 4;
pub const DROP_BAD_LENGTH: usize = 5;
pub const DROP_BAD_CHECKSUM: usize = 6;
pub const DROP_NOT_FOR_US: usize = 7;
pub const DROP_BAD_PROTOCOL: usize = 8;
pub const DROP_BAD_TRANSPORT: usize = 9;
/// Number of drop reasons (counters in `stat.drops`).
pub const DROP_REASONS: usize = 10;
/// Names of the drop reasons, by code.
pub const DROP_NAMES: [&str; DROP_REASONS] = [
    "overflow",
    "too_long",
    "truncated",
    "not_ipv4",
    "bad_ip_header",
    "bad_length",
    "bad_checksum",
    "not_for_us",
    "bad_protocol",
    "bad_transport",
];

/// Header fields of a frame that passed.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct RxHdr {
    pub src_mac: Bits<48>,
    pub src_ip: Bits<32>,
    pub dst_ip: Bits<32>,
    pub tos: Bits<8>,
    pub flags: Bits<8>,
    pub src_port: Bits<16>,
    pub dst_port: Bits<16>,
    pub msg_len: Bits<16>,
    pub pkt_offset: Bits<8>,
    /// NDP pull_offset / Homa grant_offset.
    pub pull_grant: Bits<16>,
    /// Homa grant_prio (0 for NDP).
    pub grant_prio: Bits<8>,
    pub tx_msg_id: Bits<16>,
    pub buf_ptr: Bits<16>,
    pub buf_class: Bits<8>,
    /// Bolt's fields, frame bytes 50-58.
    pub bolt: Bits<72>,
    /// Payload bytes (frame bytes after the 64 of headers).
    pub payload_len: Bits<16>,
}

/// A checked frame's descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct Verdict {
    /// Index of the frame's last word (words - 1).
    pub last_beat: Bits<8>,
    pub empty: Bits<3>,
    pub hdr: RxHdr,
}

/// Frames from the MAC.
#[derive(LogicInterface, Default)]
pub struct MacSink {
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub data: Signal<In, Bits<64>>,
    pub last: Signal<In, bool>,
    pub empty: Signal<In, Bits<3>>,
}

/// Checked frames with their header fields.
#[derive(LogicInterface, Default)]
pub struct ParsedSource {
    pub valid: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
    pub data: Signal<Out, Bits<64>>,
    pub last: Signal<Out, bool>,
    pub empty: Signal<Out, Bits<3>>,
    pub hdr: Signal<Out, RxHdr>,
}

/// This host.
#[derive(LogicInterface, Default)]
pub struct ParserCfg {
    pub mac: Signal<In, Bits<48>>,
    pub ip: Signal<In, Bits<32>>,
    pub protocol: Signal<In, Bits<8>>,
}

/// Counters (wrapping): frames seen, passed, and dropped per reason (`drop_<name>` for
/// each of [`DROP_NAMES`]).
#[derive(LogicInterface, Default)]
pub struct ParserStats {
    pub frames: Signal<Out, Bits<32>>,
    pub passed: Signal<Out, Bits<32>>,
    /// Checked frames waiting in the ring (not yet fully out).
    pub queued: Signal<Out, Bits<7>>,
    pub drop_overflow: Signal<Out, Bits<32>>,
    pub drop_too_long: Signal<Out, Bits<32>>,
    pub drop_truncated: Signal<Out, Bits<32>>,
    pub drop_not_ipv4: Signal<Out, Bits<32>>,
    pub drop_bad_ip_header: Signal<Out, Bits<32>>,
    pub drop_bad_length: Signal<Out, Bits<32>>,
    pub drop_bad_checksum: Signal<Out, Bits<32>>,
    pub drop_not_for_us: Signal<Out, Bits<32>>,
    pub drop_bad_protocol: Signal<Out, Bits<32>>,
    pub drop_bad_transport: Signal<Out, Bits<32>>,
}

/// The ingress parser. See the module documentation.
#[derive(LogicBlock)]
pub struct Parser {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub cfg: ParserCfg,
    pub sink: MacSink,
    pub source: ParsedSource,
    pub stat: ParserStats,

    ring: RAM<Bits<64>, RING_A>,
    /// The verdict queue (see "Verdict queue"): descriptors of checked frames, oldest
    /// first, with its pointers, count, and the descriptor pushed in the previous cycle.
    vq: RAM<Verdict, 6>,
    vq_wp: DFF<Bits<6>>,
    vq_rp: DFF<Bits<6>>,
    vq_cnt: DFF<Bits<7>>,
    vq_fresh: DFF<bool>,
    /// A clock edge has passed: the verdict RAM's output register holds an entry (before
    /// the first edge it is undefined in a Verilog simulator).
    vq_out_ok: DFF<bool>,
    vq_last_beat: DFF<Bits<8>>,
    vq_empty: DFF<Bits<3>>,
    /// Words of the current frame received so far (saturates at 255).
    beats: DFF<Bits<8>>,
    ovf: DFF<bool>,
    wp: DFF<Bits<10>>,
    cwp: DFF<Bits<10>>,
    rp: DFF<Bits<10>>,
    /// Words in the ring not yet read (`wp - rp`, at most `2^RING_A`), and those of them
    /// that belong to checked frames (`cwp - rp`).
    used: DFF<Bits<10>>,
    cused: DFF<Bits<10>>,
    /// Words of the head frame already sent, and the head's last word index as of the
    /// previous cycle.
    taken: DFF<Bits<8>>,
    head_last: DFF<Bits<8>>,
    cnt_frames: DFF<Bits<32>>,
    cnt_passed: DFF<Bits<32>>,
    cnt_drop: [DFF<Bits<32>>; DROP_REASONS],

    /// Header words 0-6 of the current frame, each written on its beat; bytes 56-58.
    hw0: DFF<Bits<64>>,
    hw1: DFF<Bits<64>>,
    hw2: DFF<Bits<64>>,
    hw3: DFF<Bits<64>>,
    hw4: DFF<Bits<64>>,
    hw5: DFF<Bits<64>>,
    hw6: DFF<Bits<64>>,
    hw7: DFF<Bits<24>>,
    /// Failed checks, registered on the beat of their field (see "Timing").
    f_mac: DFF<bool>,
    f_ethertype: DFF<bool>,
    f_version: DFF<bool>,
    f_frag: DFF<bool>,
    f_proto: DFF<bool>,
    f_ip_hi: DFF<bool>,
    f_ip_lo: DFF<bool>,
    f_csum: DFF<bool>,
    f_transport: DFF<bool>,
    /// The IPv4 header checksum as it is summed: the sum of the four 16-bit lanes of
    /// word 2 (beat 2), then of word 3 (beat 3); the sum of lane 14-15 and word 2's (beat
    /// 3), + word 3's and lane 32-33 (beat 4), folded once (beat 5).
    cs_quad: DFF<Bits<18>>,
    cs_acc: DFF<Bits<20>>,
    /// From the IPv4 total length (beat 3): index of the last word and its `empty` that
    /// agree with it, and the payload length (`total - 50`).
    exp_last: DFF<Bits<13>>,
    exp_empty: DFF<Bits<3>>,
    ip_pay: DFF<Bits<16>>,
    /// Transport, first half (beat 5).
    t_total: DFF<Bits<8>>,
    t_off1: DFF<Bits<8>>,
    t_rem: DFF<Bits<16>>,
    t_len_ok: DFF<bool>,
    t_flags_ok: DFF<bool>,
    t_flags_zero: DFF<bool>,
    t_pay0: DFF<bool>,
    t_pay1: DFF<bool>,
    t_pay1024: DFF<bool>,

    // locals
    word_in: Signal<Local, bool>,
    kept: Signal<Local, bool>,
    frame_end: Signal<Local, bool>,
    full: Signal<Local, bool>,
    store: Signal<Local, bool>,
    wp_next: Signal<Local, Bits<10>>,
    rp_next: Signal<Local, Bits<10>>,
    used_next: Signal<Local, Bits<10>>,
    cused_next: Signal<Local, Bits<10>>,
    pair_hi: Signal<Local, Bits<17>>,
    pair_lo: Signal<Local, Bits<17>>,
    quad: Signal<Local, Bits<18>>,
    fold1: Signal<Local, Bits<17>>,
    fold2: Signal<Local, Bits<17>>,
    ip_len: Signal<Local, Bits<16>>,
    ip_len13: Signal<Local, Bits<16>>,
    msg_len_in: Signal<Local, Bits<16>>,
    off_in: Signal<Local, Bits<8>>,
    total_in: Signal<Local, Bits<8>>,
    flags: Signal<Local, Bits<8>>,
    off: Signal<Local, Bits<8>>,
    transport_ok: Signal<Local, bool>,
    c_ovf: Signal<Local, bool>,
    c_long: Signal<Local, bool>,
    c_trunc: Signal<Local, bool>,
    c_len: Signal<Local, bool>,
    reason: Signal<Local, Bits<4>>,
    bad: Signal<Local, bool>,
    w7: Signal<Local, Bits<24>>,
    vh: Signal<Local, RxHdr>,
    v: Signal<Local, Verdict>,
    vq_push: Signal<Local, bool>,
    vq_pop: Signal<Local, bool>,
    vq_rp_next: Signal<Local, Bits<6>>,
    head: Signal<Local, Verdict>,
    avail: Signal<Local, bool>,
    out_last: Signal<Local, bool>,
    pop_word: Signal<Local, bool>,

    codes: [Constant<Bits<4>>; DROP_REASONS],
    /// Beat numbers 0-7.
    beat: [Constant<Bits<8>>; 8],
    skip_8: Constant<Bits<8>>,
    homa: Constant<bool>,
    /// Bolt build: accept the switches' SRC packets (see the module documentation).
    bolt: Constant<bool>,
    bolt_src: Constant<Bits<8>>,
    one_6: Constant<Bits<6>>,
    zero_hdr: Constant<RxHdr>,
    zero_6: Constant<Bits<6>>,
    one_7: Constant<Bits<7>>,
    zero_7: Constant<Bits<7>>,
    one_10: Constant<Bits<10>>,
    zero_10: Constant<Bits<10>>,
    zero_low10: Constant<Bits<10>>,
    one_8: Constant<Bits<8>>,
    zero_8: Constant<Bits<8>>,
    c135_8: Constant<Bits<8>>,
    c137_8: Constant<Bits<8>>,
    c255_8: Constant<Bits<8>>,
    c45_8: Constant<Bits<8>>,
    one_16: Constant<Bits<16>>,
    zero_16: Constant<Bits<16>>,
    c13_16: Constant<Bits<16>>,
    c50_16: Constant<Bits<16>>,
    c1024_16: Constant<Bits<16>>,
    max_msg_16: Constant<Bits<16>>,
    ethertype_ipv4: Constant<Bits<16>>,
    zero_14: Constant<Bits<14>>,
    ones_17: Constant<Bits<17>>,
    zero_3: Constant<Bits<3>>,
    zero_4: Constant<Bits<4>>,
    zero_32: Constant<Bits<32>>,
    one_32: Constant<Bits<32>>,
    zero_64: Constant<Bits<64>>,
    sh8: Constant<Bits<5>>,
    sh10: Constant<Bits<5>>,
    sh16: Constant<Bits<5>>,
    sh24: Constant<Bits<5>>,
    sh32: Constant<Bits<6>>,
}

// Constant array indices must be literals (see docs/rust-hdl-guide.md), and `full` is bit 9
// of `used`.
const _: () = assert!(
    DROP_OVERFLOW == 0
        && DROP_TOO_LONG == 1
        && DROP_TRUNCATED == 2
        && DROP_NOT_IPV4 == 3
        && DROP_BAD_IP == 4
        && DROP_BAD_LENGTH == 5
        && DROP_BAD_CHECKSUM == 6
        && DROP_NOT_FOR_US == 7
        && DROP_BAD_PROTOCOL == 8
        && DROP_BAD_TRANSPORT == 9
        && RING_A == 9
);

impl Parser {
    /// A parser for the NDP (`homa = false`) or the Homa transport layout.
    pub fn new(homa: bool) -> Self {
        Self::with_bolt(homa, false)
    }

    /// A parser that, when `bolt`, also accepts Bolt's SRC packets (transport flags 0,
    /// the Bolt SRC flag, 64 bytes of headers and no payload).
    pub fn with_bolt(homa: bool, bolt: bool) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            stat: Default::default(),
            ring: Default::default(),
            // Initialised (the Verilog gets an `initial` block): `source.hdr` shows the
            // head entry whether or not it is valid, so an unwritten one must not be X in
            // simulation.
            vq: RAM::new(
                (0..64u64)
                    .map(|i| (Bits::<6>::from(i), Verdict::default()))
                    .collect(),
            ),
            vq_wp: Default::default(),
            vq_rp: Default::default(),
            vq_cnt: Default::default(),
            vq_fresh: Default::default(),
            vq_out_ok: Default::default(),
            vq_last_beat: Default::default(),
            vq_empty: Default::default(),
            beats: Default::default(),
            ovf: Default::default(),
            wp: Default::default(),
            cwp: Default::default(),
            rp: Default::default(),
            used: Default::default(),
            cused: Default::default(),
            taken: Default::default(),
            head_last: Default::default(),
            cnt_frames: Default::default(),
            cnt_passed: Default::default(),
            cnt_drop: Default::default(),
            hw0: Default::default(),
            hw1: Default::default(),
            hw2: Default::default(),
            hw3: Default::default(),
            hw4: Default::default(),
            hw5: Default::default(),
            hw6: Default::default(),
            hw7: Default::default(),
            f_mac: Default::default(),
            f_ethertype: Default::default(),
            f_version: Default::default(),
            f_frag: Default::default(),
            f_proto: Default::default(),
            f_ip_hi: Default::default(),
            f_ip_lo: Default::default(),
            f_csum: Default::default(),
            f_transport: Default::default(),
            cs_quad: Default::default(),
            cs_acc: Default::default(),
            exp_last: Default::default(),
            exp_empty: Default::default(),
            ip_pay: Default::default(),
            t_total: Default::default(),
            t_off1: Default::default(),
            t_rem: Default::default(),
            t_len_ok: Default::default(),
            t_flags_ok: Default::default(),
            t_flags_zero: Default::default(),
            t_pay0: Default::default(),
            t_pay1: Default::default(),
            t_pay1024: Default::default(),
            word_in: Default::default(),
            kept: Default::default(),
            frame_end: Default::default(),
            full: Default::default(),
            store: Default::default(),
            wp_next: Default::default(),
            rp_next: Default::default(),
            used_next: Default::default(),
            cused_next: Default::default(),
            pair_hi: Default::default(),
            pair_lo: Default::default(),
            quad: Default::default(),
            fold1: Default::default(),
            fold2: Default::default(),
            ip_len: Default::default(),
            ip_len13: Default::default(),
            msg_len_in: Default::default(),
            off_in: Default::default(),
            total_in: Default::default(),
            flags: Default::default(),
            off: Default::default(),
            transport_ok: Default::default(),
            c_ovf: Default::default(),
            c_long: Default::default(),
            c_trunc: Default::default(),
            c_len: Default::default(),
            reason: Default::default(),
            bad: Default::default(),
            w7: Default::default(),
            vh: Default::default(),
            v: Default::default(),
            vq_push: Default::default(),
            vq_pop: Default::default(),
            vq_rp_next: Default::default(),
            head: Default::default(),
            avail: Default::default(),
            out_last: Default::default(),
            pop_word: Default::default(),
            codes: std::array::from_fn(|i| Constant::new((i as u64).into())),
            beat: std::array::from_fn(|i| Constant::new((i as u64).into())),
            skip_8: Constant::new(SKIP_WORDS.into()),
            homa: Constant::new(homa),
            bolt: Constant::new(bolt),
            bolt_src: Constant::new((crate::swif::BOLT_SRC as u64).into()),
            one_6: Constant::new(1.into()),
            zero_hdr: Constant::new(RxHdr::default()),
            zero_6: Constant::new(0.into()),
            one_7: Constant::new(1.into()),
            zero_7: Constant::new(0.into()),
            one_10: Constant::new(1.into()),
            zero_10: Constant::new(0.into()),
            zero_low10: Constant::new(0.into()),
            one_8: Constant::new(1.into()),
            zero_8: Constant::new(0.into()),
            c135_8: Constant::new((MAX_FRAME_BYTES / 8 - 1).into()),
            c137_8: Constant::new(137.into()),
            c255_8: Constant::new(255.into()),
            c45_8: Constant::new(0x45.into()),
            one_16: Constant::new(1.into()),
            zero_16: Constant::new(0.into()),
            c13_16: Constant::new(13.into()),
            c50_16: Constant::new((HDR_BYTES - 14).into()),
            c1024_16: Constant::new(1024.into()),
            max_msg_16: Constant::new(MAX_MSG_BYTES.into()),
            ethertype_ipv4: Constant::new(0x0800.into()),
            zero_14: Constant::new(0.into()),
            ones_17: Constant::new(0xffff.into()),
            zero_3: Constant::new(0.into()),
            zero_4: Constant::new(0.into()),
            zero_32: Constant::new(0.into()),
            one_32: Constant::new(1.into()),
            zero_64: Constant::new(0.into()),
            sh8: Constant::new(8.into()),
            sh10: Constant::new(10.into()),
            sh16: Constant::new(16.into()),
            sh24: Constant::new(24.into()),
            sh32: Constant::new(32.into()),
        }
    }
}

impl Parser {
    /// The drop counters (after the kernel settled), by reason code.
    pub fn drop_counts(&self) -> [u64; DROP_REASONS] {
        let s = &self.stat;
        [
            &s.drop_overflow,
            &s.drop_too_long,
            &s.drop_truncated,
            &s.drop_not_ipv4,
            &s.drop_bad_ip_header,
            &s.drop_bad_length,
            &s.drop_bad_checksum,
            &s.drop_not_for_us,
            &s.drop_bad_protocol,
            &s.drop_bad_transport,
        ]
        .map(|x| x.val().to_u64())
    }
}

impl Logic for Parser {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            beats,
            ovf,
            wp,
            cwp,
            rp,
            used,
            cused,
            taken,
            head_last,
            cnt_frames,
            cnt_passed,
            vq_wp,
            vq_rp,
            vq_cnt,
            vq_fresh,
            vq_out_ok,
            vq_last_beat,
            vq_empty,
            hw0,
            hw1,
            hw2,
            hw3,
            hw4,
            hw5,
            hw6,
            hw7,
            f_mac,
            f_ethertype,
            f_version,
            f_frag,
            f_proto,
            f_ip_hi,
            f_ip_lo,
            f_csum,
            f_transport,
            cs_quad,
            cs_acc,
            exp_last,
            exp_empty,
            ip_pay,
            t_total,
            t_off1,
            t_rem,
            t_len_ok,
            t_flags_ok,
            t_flags_zero,
            t_pay0,
            t_pay1,
            t_pay1024
        );
        for i in 0..DROP_REASONS {
            self.cnt_drop[i].clock.next = self.clock.val();
            self.cnt_drop[i].d.next = self.cnt_drop[i].q.val();
        }
        self.ring.read_clock.next = self.clock.val();
        self.ring.write_clock.next = self.clock.val();
        self.vq.read_clock.next = self.clock.val();
        self.vq.write_clock.next = self.clock.val();

        // ================= write side =================
        self.sink.ready.next = !self.reset.val();
        self.word_in.next = self.sink.valid.val() & !self.reset.val();
        self.frame_end.next = self.word_in.val() & self.sink.last.val();
        // The ring is full when it holds 2^RING_A words not yet read (`used` never exceeds
        // it), or when 64 checked frames wait (the verdict queue is full).
        self.full.next = self.used.q.val().get_bit(9) | self.vq_cnt.q.val().get_bit(6);
        // Words 0 to SKIP_WORDS-1 are not stored (their fields leave in `hdr`).
        self.kept.next = self.beats.q.val() >= self.skip_8.val();
        self.store.next = self.word_in.val()
            & self.kept.val()
            & !self.full.val()
            & !self.ovf.q.val()
            & (self.beats.q.val() < self.c137_8.val());
        self.ring.write_enable.next = self.store.val();
        self.ring.write_address.next = self.wp.q.val().get_bits::<RING_A>(0);
        self.ring.write_data.next = self.sink.data.val();
        self.wp_next.next = self.wp.q.val();
        if self.store.val() {
            self.wp_next.next = self.wp.q.val() + self.one_10.val();
        }
        self.wp.d.next = self.wp_next.val();
        if self.word_in.val() {
            if self.beats.q.val() != self.c255_8.val() {
                self.beats.d.next = self.beats.q.val() + self.one_8.val();
            }
            // A word that should be stored but finds the ring full drops the frame.
            if !self.store.val() & self.kept.val() & (self.beats.q.val() < self.c137_8.val()) {
                self.ovf.d.next = true;
            }
        }

        // ================= checks, beat by beat (see "Timing") =================
        // Values of the incoming word and of registered header words, each registered
        // only on its beat. Byte j of a word is its bits 63-8j..56-8j.
        // The checksum: the four 16-bit lanes of a word as a tree.
        self.pair_hi.next = bit_cast::<17, 16>(self.sink.data.val().get_bits::<16>(48))
            + bit_cast::<17, 16>(self.sink.data.val().get_bits::<16>(32));
        self.pair_lo.next = bit_cast::<17, 16>(self.sink.data.val().get_bits::<16>(16))
            + bit_cast::<17, 16>(self.sink.data.val().get_bits::<16>(0));
        self.quad.next =
            bit_cast::<18, 17>(self.pair_hi.val()) + bit_cast::<18, 17>(self.pair_lo.val());
        // The sum of ten lanes is at most 10 * 0xffff: the first fold is at most 0xffff + 9,
        // so the second adds its bit 16.
        self.fold1.next = bit_cast::<17, 16>(self.cs_acc.q.val().get_bits::<16>(0))
            + bit_cast::<17, 4>(self.cs_acc.q.val().get_bits::<4>(16));
        self.fold2.next = bit_cast::<17, 16>(self.cs_acc.q.val().get_bits::<16>(0))
            + bit_cast::<17, 1>(self.cs_acc.q.val().get_bits::<1>(16));
        self.ip_len.next = self.hw2.q.val().get_bits::<16>(48);
        self.ip_len13.next = self.ip_len.val() + self.c13_16.val();
        self.msg_len_in.next = (bit_cast::<16, 8>(self.hw4.q.val().get_bits::<8>(0))
            << self.sh8.val())
            | bit_cast::<16, 8>(self.sink.data.val().get_bits::<8>(56));
        self.off_in.next = self.sink.data.val().get_bits::<8>(48);
        self.total_in.next = bit_cast::<8, 6>(self.msg_len_in.val().get_bits::<6>(10));
        if self.msg_len_in.val().get_bits::<10>(0) != self.zero_low10.val() {
            self.total_in.next =
                bit_cast::<8, 6>(self.msg_len_in.val().get_bits::<6>(10)) + self.one_8.val();
        }
        self.flags.next = self.hw4.q.val().get_bits::<8>(40);
        self.off.next = self.hw5.q.val().get_bits::<8>(48);
        // Transport (beat 6, from the registers of beat 5). The payload length is the IPv4
        // total length's (`ip_pay`): see "Timing".
        self.transport_ok.next = self.t_flags_ok.q.val() & self.t_len_ok.q.val();
        if self.flags.val().get_bit(0) {
            // DATA: a payload of its offset's size, or none when trimmed.
            if self.off.val() >= self.t_total.q.val() {
                self.transport_ok.next = false;
            }
            if self.flags.val().get_bit(4) {
                if !self.t_pay0.q.val() {
                    self.transport_ok.next = false;
                }
            } else if self.t_off1.q.val() == self.t_total.q.val() {
                if self.ip_pay.q.val() != self.t_rem.q.val() {
                    self.transport_ok.next = false;
                }
            } else if !self.t_pay1024.q.val() {
                self.transport_ok.next = false;
            }
        } else {
            // Control: the 1-byte dummy payload; CHOP only on DATA.
            if (self.off.val() > self.t_total.q.val())
                | !self.t_pay1.q.val()
                | self.flags.val().get_bit(4)
            {
                self.transport_ok.next = false;
            }
        }
        // Bolt's SRC (a switch's reflection of a DATA header): transport flags 0, Bolt
        // flags (frame byte 54, in this beat's word) with SRC, headers only.
        if self.bolt.val()
            & self.t_flags_zero.q.val()
            & ((self.sink.data.val().get_bits::<8>(8) & self.bolt_src.val()) != self.zero_8.val())
            & self.t_len_ok.q.val()
            & (self.off.val() < self.t_total.q.val())
            & self.t_pay0.q.val()
        {
            self.transport_ok.next = true;
        }

        if self.word_in.val() {
            // Header word b is written on beat b (of word 7, bytes 56-58 only).
            if self.beats.q.val() == self.beat[0].val() {
                self.hw0.d.next = self.sink.data.val();
                self.f_mac.d.next = self.sink.data.val().get_bits::<48>(16) != self.cfg.mac.val();
            }
            if self.beats.q.val() == self.beat[1].val() {
                self.hw1.d.next = self.sink.data.val();
                self.f_ethertype.d.next =
                    self.sink.data.val().get_bits::<16>(16) != self.ethertype_ipv4.val();
                self.f_version.d.next = self.sink.data.val().get_bits::<8>(8) != self.c45_8.val();
            }
            if self.beats.q.val() == self.beat[2].val() {
                self.hw2.d.next = self.sink.data.val();
                self.f_frag.d.next = self.sink.data.val().get_bits::<14>(16) != self.zero_14.val();
                self.f_proto.d.next =
                    self.sink.data.val().get_bits::<8>(0) != self.cfg.protocol.val();
                self.cs_quad.d.next = self.quad.val();
            }
            if self.beats.q.val() == self.beat[3].val() {
                self.hw3.d.next = self.sink.data.val();
                self.f_ip_hi.d.next =
                    self.sink.data.val().get_bits::<16>(0) != self.cfg.ip.val().get_bits::<16>(16);
                self.cs_quad.d.next = self.quad.val();
                self.cs_acc.d.next = bit_cast::<20, 18>(self.cs_quad.q.val())
                    + bit_cast::<20, 16>(self.hw1.q.val().get_bits::<16>(0));
                self.exp_last.d.next = self.ip_len13.val().get_bits::<13>(3);
                self.exp_empty.d.next = !self.ip_len13.val().get_bits::<3>(0);
                self.ip_pay.d.next = self.ip_len.val() - self.c50_16.val();
            }
            if self.beats.q.val() == self.beat[4].val() {
                self.hw4.d.next = self.sink.data.val();
                self.f_ip_lo.d.next =
                    self.sink.data.val().get_bits::<16>(48) != self.cfg.ip.val().get_bits::<16>(0);
                self.cs_acc.d.next = self.cs_acc.q.val()
                    + bit_cast::<20, 18>(self.cs_quad.q.val())
                    + bit_cast::<20, 16>(self.sink.data.val().get_bits::<16>(48));
                self.t_pay0.d.next = self.ip_pay.q.val() == self.zero_16.val();
                self.t_pay1.d.next = self.ip_pay.q.val() == self.one_16.val();
                self.t_pay1024.d.next = self.ip_pay.q.val() == self.c1024_16.val();
            }
            if self.beats.q.val() == self.beat[5].val() {
                self.hw5.d.next = self.sink.data.val();
                self.cs_acc.d.next = bit_cast::<20, 17>(self.fold1.val());
                self.t_total.d.next = self.total_in.val();
                self.t_off1.d.next = self.off_in.val() + self.one_8.val();
                self.t_rem.d.next = self.msg_len_in.val()
                    - (bit_cast::<16, 8>(self.off_in.val()) << self.sh10.val());
                self.t_len_ok.d.next = (self.msg_len_in.val() != self.zero_16.val())
                    & (self.msg_len_in.val() <= self.max_msg_16.val());
                self.t_flags_ok.d.next = (self.flags.val().get_bits::<3>(5) == self.zero_3.val())
                    & (self.flags.val().get_bits::<4>(0) != self.zero_4.val());
                self.t_flags_zero.d.next = self.flags.val() == self.zero_8.val();
            }
            if self.beats.q.val() == self.beat[6].val() {
                self.hw6.d.next = self.sink.data.val();
                self.f_csum.d.next = self.fold2.val() != self.ones_17.val();
                self.f_transport.d.next = !self.transport_ok.val();
            }
            if self.beats.q.val() == self.beat[7].val() {
                self.hw7.d.next = self.sink.data.val().get_bits::<24>(40);
            }
        }

        // ================= verdict (at the last word) =================
        // What depends on the frame's length, then the registered flags; the first
        // failing check names the drop (checked in reverse, the last wins).
        self.c_ovf.next = self.ovf.q.val()
            | (self.full.val() & self.kept.val() & (self.beats.q.val() < self.c137_8.val()));
        self.c_long.next = self.beats.q.val() > self.c135_8.val();
        self.c_trunc.next = (self.beats.q.val() < self.beat[7].val())
            | ((self.beats.q.val() == self.beat[7].val())
                & (self.sink.empty.val() != self.zero_3.val()));
        self.c_len.next = (bit_cast::<13, 8>(self.beats.q.val()) != self.exp_last.q.val())
            | (self.sink.empty.val() != self.exp_empty.q.val());
        self.bad.next = true;
        self.reason.next = self.codes[9].val();
        if !self.f_transport.q.val() {
            self.bad.next = false;
        }
        if self.f_proto.q.val() {
            self.bad.next = true;
            self.reason.next = self.codes[8].val();
        }
        if self.f_mac.q.val() | self.f_ip_hi.q.val() | self.f_ip_lo.q.val() {
            self.bad.next = true;
            self.reason.next = self.codes[7].val();
        }
        if self.f_csum.q.val() {
            self.bad.next = true;
            self.reason.next = self.codes[6].val();
        }
        if self.c_len.val() {
            self.bad.next = true;
            self.reason.next = self.codes[5].val();
        }
        if self.f_version.q.val() | self.f_frag.q.val() {
            self.bad.next = true;
            self.reason.next = self.codes[4].val();
        }
        if self.f_ethertype.q.val() {
            self.bad.next = true;
            self.reason.next = self.codes[3].val();
        }
        if self.c_trunc.val() {
            self.bad.next = true;
            self.reason.next = self.codes[2].val();
        }
        if self.c_long.val() {
            self.bad.next = true;
            self.reason.next = self.codes[1].val();
        }
        if self.c_ovf.val() {
            self.bad.next = true;
            self.reason.next = self.codes[0].val();
        }

        // The descriptor of a frame that passed: fields of the header words (bytes 56-58
        // from this word when it is word 7). They stay in the registers for the next cycle.
        self.w7.next = self.hw7.q.val();
        if self.beats.q.val() == self.beat[7].val() {
            self.w7.next = self.sink.data.val().get_bits::<24>(40);
        }
        self.vh.next.src_mac = (bit_cast::<48, 16>(self.hw0.q.val().get_bits::<16>(0))
            << self.sh32.val())
            | bit_cast::<48, 32>(self.hw1.q.val().get_bits::<32>(32));
        self.vh.next.src_ip = self.hw3.q.val().get_bits::<32>(16);
        self.vh.next.dst_ip = (bit_cast::<32, 16>(self.hw3.q.val().get_bits::<16>(0))
            << self.sh16.val())
            | bit_cast::<32, 16>(self.hw4.q.val().get_bits::<16>(48));
        self.vh.next.tos = self.hw1.q.val().get_bits::<8>(0);
        self.vh.next.flags = self.hw4.q.val().get_bits::<8>(40);
        self.vh.next.src_port = self.hw4.q.val().get_bits::<16>(24);
        self.vh.next.dst_port = self.hw4.q.val().get_bits::<16>(8);
        self.vh.next.msg_len = (bit_cast::<16, 8>(self.hw4.q.val().get_bits::<8>(0))
            << self.sh8.val())
            | bit_cast::<16, 8>(self.hw5.q.val().get_bits::<8>(56));
        self.vh.next.pkt_offset = self.hw5.q.val().get_bits::<8>(48);
        self.vh.next.pull_grant = self.hw5.q.val().get_bits::<16>(32);
        if self.homa.val() {
            self.vh.next.grant_prio = self.hw5.q.val().get_bits::<8>(24);
            self.vh.next.tx_msg_id = self.hw5.q.val().get_bits::<16>(8);
            self.vh.next.buf_ptr = (bit_cast::<16, 8>(self.hw5.q.val().get_bits::<8>(0))
                << self.sh8.val())
                | bit_cast::<16, 8>(self.hw6.q.val().get_bits::<8>(56));
            self.vh.next.buf_class = self.hw6.q.val().get_bits::<8>(48);
        } else {
            self.vh.next.grant_prio = self.zero_8.val();
            self.vh.next.tx_msg_id = self.hw5.q.val().get_bits::<16>(16);
            self.vh.next.buf_ptr = self.hw5.q.val().get_bits::<16>(0);
            self.vh.next.buf_class = self.hw6.q.val().get_bits::<8>(56);
        }
        self.vh.next.bolt = (bit_cast::<72, 48>(self.hw6.q.val().get_bits::<48>(0))
            << self.sh24.val())
            | bit_cast::<72, 24>(self.w7.val());
        self.vh.next.payload_len = self.ip_pay.q.val();
        self.v.next.last_beat = self.beats.q.val() - self.skip_8.val();
        self.v.next.empty = self.sink.empty.val();
        self.v.next.hdr = self.vh.val();
        // Into the verdict queue (never full: a frame that ends while 64 wait is an overflow).
        self.vq_push.next =
            self.frame_end.val() & !self.bad.val() & !self.vq_cnt.q.val().get_bit(6);
        self.vq.write_enable.next = self.vq_push.val();
        self.vq.write_address.next = self.vq_wp.q.val();
        self.vq.write_data.next = self.v.val();
        if self.vq_push.val() {
            self.vq_wp.d.next = self.vq_wp.q.val() + self.one_6.val();
        }
        self.vq_last_beat.d.next = self.beats.q.val() - self.skip_8.val();
        self.vq_empty.d.next = self.sink.empty.val();

        if self.frame_end.val() {
            self.beats.d.next = self.zero_8.val();
            self.ovf.d.next = false;
            self.cnt_frames.d.next = self.cnt_frames.q.val() + self.one_32.val();
            if self.bad.val() {
                // Rewind: the frame's words are forgotten.
                self.wp.d.next = self.cwp.q.val();
                for i in 0..DROP_REASONS {
                    if self.reason.val() == self.codes[i].val() {
                        self.cnt_drop[i].d.next = self.cnt_drop[i].q.val() + self.one_32.val();
                    }
                }
            } else {
                self.cwp.d.next = self.wp_next.val();
                self.cnt_passed.d.next = self.cnt_passed.q.val() + self.one_32.val();
            }
        }

        // ================= read side =================
        // The verdict queue's head: the RAM reads `vq_rp_next` every cycle, so its output
        // is the entry at `vq_rp`, except in the cycle after that entry was pushed (the RAM
        // reads before it writes): then the descriptor is still in the header registers.
        self.head.next = self.vq.read_data.val();
        if self.vq_fresh.q.val() {
            self.head.next.last_beat = self.vq_last_beat.q.val();
            self.head.next.empty = self.vq_empty.q.val();
            self.head.next.hdr = self.vh.val();
        }
        // The ring RAM reads `rp_next` every cycle, so its output is the word at `rp`.
        self.avail.next =
            (self.cused.q.val() != self.zero_10.val()) & (self.vq_cnt.q.val() != self.zero_7.val());
        // A frame leaves at least 3 words, so its first word is never its last; from its second
        // word on it has been the head for a cycle, and `head_last` is its last word index
        // (so the block RAM's output does not decide what is read next).
        self.head_last.d.next = self.head.val().last_beat;
        self.out_last.next = (self.taken.q.val() != self.zero_8.val())
            & (self.taken.q.val() == self.head_last.q.val());
        self.source.valid.next = self.avail.val();
        self.source.data.next = self.zero_64.val();
        self.source.last.next = false;
        self.source.empty.next = self.zero_3.val();
        // The header fields are the head's whether or not a word is available (they are
        // defined only with `valid`): no gate between the verdict queue and the consumer
        // but the one that keeps the first cycle's (an uninitialised RAM output) at zero.
        self.vq_out_ok.d.next = true;
        self.source.hdr.next = self.zero_hdr.val();
        if self.vq_out_ok.q.val() {
            self.source.hdr.next = self.head.val().hdr;
        }
        if self.avail.val() {
            self.source.data.next = self.ring.read_data.val();
            self.source.last.next = self.out_last.val();
            if self.out_last.val() {
                self.source.empty.next = self.head.val().empty;
            }
        }
        self.pop_word.next = self.avail.val() & self.source.ready.val();
        self.rp_next.next = self.rp.q.val();
        self.vq_pop.next = false;
        if self.pop_word.val() {
            self.rp_next.next = self.rp.q.val() + self.one_10.val();
            self.taken.d.next = self.taken.q.val() + self.one_8.val();
            if self.out_last.val() {
                self.taken.d.next = self.zero_8.val();
                self.vq_pop.next = true;
            }
        }
        self.rp.d.next = self.rp_next.val();
        self.ring.read_address.next = self.rp_next.val().get_bits::<RING_A>(0);
        self.vq_rp_next.next = self.vq_rp.q.val();
        if self.vq_pop.val() {
            self.vq_rp_next.next = self.vq_rp.q.val() + self.one_6.val();
        }
        self.vq_rp.d.next = self.vq_rp_next.val();
        self.vq.read_address.next = self.vq_rp_next.val();
        self.vq_fresh.d.next = self.vq_push.val() & (self.vq_wp.q.val() == self.vq_rp_next.val());
        if self.vq_push.val() & !self.vq_pop.val() {
            self.vq_cnt.d.next = self.vq_cnt.q.val() + self.one_7.val();
        }
        if !self.vq_push.val() & self.vq_pop.val() {
            self.vq_cnt.d.next = self.vq_cnt.q.val() - self.one_7.val();
        }

        // Ring occupancy: `used = wp - rp`, `cused = cwp - rp`, kept by increments.
        self.used_next.next = self.used.q.val();
        if self.store.val() & !self.pop_word.val() {
            self.used_next.next = self.used.q.val() + self.one_10.val();
        }
        if !self.store.val() & self.pop_word.val() {
            self.used_next.next = self.used.q.val() - self.one_10.val();
        }
        self.cused_next.next = self.cused.q.val();
        if self.pop_word.val() {
            self.cused_next.next = self.cused.q.val() - self.one_10.val();
        }
        self.used.d.next = self.used_next.val();
        self.cused.d.next = self.cused_next.val();
        if self.frame_end.val() {
            if self.bad.val() {
                self.used.d.next = self.cused_next.val();
            } else {
                self.cused.d.next = self.used_next.val();
            }
        }

        self.stat.frames.next = self.cnt_frames.q.val();
        self.stat.passed.next = self.cnt_passed.q.val();
        self.stat.queued.next = self.vq_cnt.q.val();
        self.stat.drop_overflow.next = self.cnt_drop[0].q.val();
        self.stat.drop_too_long.next = self.cnt_drop[1].q.val();
        self.stat.drop_truncated.next = self.cnt_drop[2].q.val();
        self.stat.drop_not_ipv4.next = self.cnt_drop[3].q.val();
        self.stat.drop_bad_ip_header.next = self.cnt_drop[4].q.val();
        self.stat.drop_bad_length.next = self.cnt_drop[5].q.val();
        self.stat.drop_bad_checksum.next = self.cnt_drop[6].q.val();
        self.stat.drop_not_for_us.next = self.cnt_drop[7].q.val();
        self.stat.drop_bad_protocol.next = self.cnt_drop[8].q.val();
        self.stat.drop_bad_transport.next = self.cnt_drop[9].q.val();

        if self.reset.val() {
            self.beats.d.next = self.zero_8.val();
            self.ovf.d.next = false;
            self.wp.d.next = self.zero_10.val();
            self.cwp.d.next = self.zero_10.val();
            self.rp.d.next = self.zero_10.val();
            self.used.d.next = self.zero_10.val();
            self.cused.d.next = self.zero_10.val();
            self.taken.d.next = self.zero_8.val();
            self.vq_wp.d.next = self.zero_6.val();
            self.vq_rp.d.next = self.zero_6.val();
            self.vq_cnt.d.next = self.zero_7.val();
            self.vq_fresh.d.next = false;
            self.cnt_frames.d.next = self.zero_32.val();
            self.cnt_passed.d.next = self.zero_32.val();
            for i in 0..DROP_REASONS {
                self.cnt_drop[i].d.next = self.zero_32.val();
            }
        }
    }
}
