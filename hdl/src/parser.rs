//! Ingress parser of the NIC (thesis §3.2.1; SPEC §2): validates every frame from the MAC
//! and extracts its Ethernet, IPv4 and transport header fields; drops and counts what is
//! malformed, unknown or not for this host, so that nothing malformed goes further.
//!
//! ```text
//!  sink (MAC RX) ─► header shift register (8 words) ─► checks at the last word ─► verdict FIFO ─┐
//!       │                                                                                       ├─► source
//!       └──────────► frame ring (512 words; a dropped frame is rewound) ───────────────────────┘   (frame +
//!                                                                                                 header fields)
//! ```
//!
//! # Interfaces
//! * `sink`: frames from the MAC as 64-bit words, first byte in bits 63:56, `last` on the
//!   final word with `empty` = unused bytes of it (0-7). `ready` is always high (a MAC
//!   cannot wait): a frame that does not fit the ring is dropped ([`DROP_OVERFLOW`]).
//! * `source`: every accepted frame, whole (its 8 header words, then the payload), with
//!   [`RxHdr`] beside every word. Store and forward: a frame leaves once its last word is
//!   in and checked, the cycle after at the earliest.
//! * `cfg`: this host's MAC and IPv4 address, and the transport protocol number of the
//!   program (155 NDP, 154 Homa). `homa` (a build parameter) selects the transport layout.
//! * `stat`: frames seen, frames passed, and one drop counter per reason ([`DROP_REASONS`]).
//!
//! # Checks, in order (the first that fails names the drop)
//! 1. [`DROP_OVERFLOW`]: a word found the ring full (the consumer is too slow).
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
//! # Latency
//! Last word in at cycle `L` → first word out at `L+1` (a 16-byte message's 80-byte packet,
//! 10 words: first byte in at 0, first byte out at 10). One word per cycle in and out.
use crate::fifo::Fifo;
use rust_hdl::prelude::*;

/// Ring words (`2^RING_A`).
pub const RING_A: usize = 9;
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
    pub words: Bits<8>,
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
    verdicts: Fifo<Verdict, 6, 7>,
    hdr: DFF<Bits<512>>,
    beats: DFF<Bits<8>>,
    ovf: DFF<bool>,
    wp: DFF<Bits<10>>,
    cwp: DFF<Bits<10>>,
    rp: DFF<Bits<10>>,
    taken: DFF<Bits<8>>,
    cnt_frames: DFF<Bits<32>>,
    cnt_passed: DFF<Bits<32>>,
    cnt_drop: [DFF<Bits<32>>; DROP_REASONS],

    // locals
    word_in: Signal<Local, bool>,
    frame_end: Signal<Local, bool>,
    full: Signal<Local, bool>,
    store: Signal<Local, bool>,
    wp_next: Signal<Local, Bits<10>>,
    rp_next: Signal<Local, Bits<10>>,
    h: Signal<Local, Bits<512>>,
    nbeats: Signal<Local, Bits<16>>,
    frame_len: Signal<Local, Bits<16>>,
    ip_len: Signal<Local, Bits<16>>,
    csum: Signal<Local, Bits<20>>,
    fold1: Signal<Local, Bits<20>>,
    fold2: Signal<Local, Bits<20>>,
    msg_len: Signal<Local, Bits<16>>,
    off: Signal<Local, Bits<8>>,
    flags: Signal<Local, Bits<8>>,
    total: Signal<Local, Bits<8>>,
    want_len: Signal<Local, Bits<16>>,
    payload_len: Signal<Local, Bits<16>>,
    transport_ok: Signal<Local, bool>,
    reason: Signal<Local, Bits<4>>,
    bad: Signal<Local, bool>,
    vh: Signal<Local, RxHdr>,
    v: Signal<Local, Verdict>,
    avail: Signal<Local, bool>,
    out_last: Signal<Local, bool>,
    pop_word: Signal<Local, bool>,

    codes: [Constant<Bits<4>>; DROP_REASONS],
    homa: Constant<bool>,
    /// Bolt build: accept the switches' SRC packets (see the module documentation).
    bolt: Constant<bool>,
    bolt_src: Constant<Bits<8>>,
    zero_hdr: Constant<RxHdr>,
    ring_words: Constant<Bits<10>>,
    one_10: Constant<Bits<10>>,
    zero_10: Constant<Bits<10>>,
    zero_low10: Constant<Bits<10>>,
    one_8: Constant<Bits<8>>,
    zero_8: Constant<Bits<8>>,
    c8_8: Constant<Bits<8>>,
    c137_8: Constant<Bits<8>>,
    c255_8: Constant<Bits<8>>,
    c45_8: Constant<Bits<8>>,
    one_16: Constant<Bits<16>>,
    zero_16: Constant<Bits<16>>,
    c14_16: Constant<Bits<16>>,
    c64_16: Constant<Bits<16>>,
    c136_16: Constant<Bits<16>>,
    c1024_16: Constant<Bits<16>>,
    max_msg_16: Constant<Bits<16>>,
    ethertype_ipv4: Constant<Bits<16>>,
    zero_14: Constant<Bits<14>>,
    ones_20: Constant<Bits<20>>,
    zero_3: Constant<Bits<3>>,
    zero_4: Constant<Bits<4>>,
    zero_32: Constant<Bits<32>>,
    one_32: Constant<Bits<32>>,
    zero_64: Constant<Bits<64>>,
    sh3: Constant<Bits<5>>,
    sh10: Constant<Bits<5>>,
    sh16: Constant<Bits<5>>,
    sh64: Constant<Bits<7>>,
}

// Constant array indices must be literals (see docs/rust-hdl-guide.md).
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
            verdicts: Fifo::new(),
            hdr: Default::default(),
            beats: Default::default(),
            ovf: Default::default(),
            wp: Default::default(),
            cwp: Default::default(),
            rp: Default::default(),
            taken: Default::default(),
            cnt_frames: Default::default(),
            cnt_passed: Default::default(),
            cnt_drop: Default::default(),
            word_in: Default::default(),
            frame_end: Default::default(),
            full: Default::default(),
            store: Default::default(),
            wp_next: Default::default(),
            rp_next: Default::default(),
            h: Default::default(),
            nbeats: Default::default(),
            frame_len: Default::default(),
            ip_len: Default::default(),
            csum: Default::default(),
            fold1: Default::default(),
            fold2: Default::default(),
            msg_len: Default::default(),
            off: Default::default(),
            flags: Default::default(),
            total: Default::default(),
            want_len: Default::default(),
            payload_len: Default::default(),
            transport_ok: Default::default(),
            reason: Default::default(),
            bad: Default::default(),
            vh: Default::default(),
            v: Default::default(),
            avail: Default::default(),
            out_last: Default::default(),
            pop_word: Default::default(),
            codes: std::array::from_fn(|i| Constant::new((i as u64).into())),
            homa: Constant::new(homa),
            bolt: Constant::new(bolt),
            bolt_src: Constant::new((crate::switch::BOLT_SRC as u64).into()),
            zero_hdr: Constant::new(RxHdr::default()),
            ring_words: Constant::new((1u64 << RING_A).into()),
            one_10: Constant::new(1.into()),
            zero_10: Constant::new(0.into()),
            zero_low10: Constant::new(0.into()),
            one_8: Constant::new(1.into()),
            zero_8: Constant::new(0.into()),
            c8_8: Constant::new(8.into()),
            c137_8: Constant::new(137.into()),
            c255_8: Constant::new(255.into()),
            c45_8: Constant::new(0x45.into()),
            one_16: Constant::new(1.into()),
            zero_16: Constant::new(0.into()),
            c14_16: Constant::new(14.into()),
            c64_16: Constant::new(HDR_BYTES.into()),
            c136_16: Constant::new((MAX_FRAME_BYTES / 8).into()),
            c1024_16: Constant::new(1024.into()),
            max_msg_16: Constant::new(MAX_MSG_BYTES.into()),
            ethertype_ipv4: Constant::new(0x0800.into()),
            zero_14: Constant::new(0.into()),
            ones_20: Constant::new(0xffff.into()),
            zero_3: Constant::new(0.into()),
            zero_4: Constant::new(0.into()),
            zero_32: Constant::new(0.into()),
            one_32: Constant::new(1.into()),
            zero_64: Constant::new(0.into()),
            sh3: Constant::new(3.into()),
            sh10: Constant::new(10.into()),
            sh16: Constant::new(16.into()),
            sh64: Constant::new(64.into()),
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
        dff_setup!(self, clock, hdr, beats, ovf, wp, cwp, rp, taken, cnt_frames, cnt_passed);
        for i in 0..DROP_REASONS {
            self.cnt_drop[i].clock.next = self.clock.val();
            self.cnt_drop[i].d.next = self.cnt_drop[i].q.val();
        }
        self.ring.read_clock.next = self.clock.val();
        self.ring.write_clock.next = self.clock.val();
        self.verdicts.clock.next = self.clock.val();
        self.verdicts.reset.next = self.reset.val();

        // ================= write side =================
        self.sink.ready.next = !self.reset.val();
        self.word_in.next = self.sink.valid.val() & !self.reset.val();
        self.frame_end.next = self.word_in.val() & self.sink.last.val();
        // The ring is full when it holds 2^RING_A words not yet read.
        self.full.next = (self.wp.q.val() - self.rp.q.val()) == self.ring_words.val();
        self.store.next = self.word_in.val()
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
            if !self.store.val() & (self.beats.q.val() < self.c137_8.val()) {
                self.ovf.d.next = true;
            }
        }
        // The header: the first 8 words, shifted in (word 0 ends up in bits 511:448).
        self.h.next = self.hdr.q.val();
        if self.word_in.val() & (self.beats.q.val() < self.c8_8.val()) {
            self.h.next =
                (self.hdr.q.val() << self.sh64.val()) | bit_cast::<512, 64>(self.sink.data.val());
        }
        self.hdr.d.next = self.h.val();

        // ================= checks (at the last word) =================
        // Byte b of the header is h[504 - 8b +: 8].
        self.nbeats.next = bit_cast::<16, 8>(self.beats.q.val()) + self.one_16.val();
        self.frame_len.next =
            (self.nbeats.val() << self.sh3.val()) - bit_cast::<16, 3>(self.sink.empty.val());
        self.ip_len.next = self.h.val().get_bits::<16>(368);
        self.payload_len.next = self.frame_len.val() - self.c64_16.val();
        // IPv4 header checksum over frame bytes 14..34 (one's complement sum).
        self.csum.next = bit_cast::<20, 16>(self.h.val().get_bits::<16>(384))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(368))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(352))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(336))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(320))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(304))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(288))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(272))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(256))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(240));
        self.fold1.next = bit_cast::<20, 16>(self.csum.val().get_bits::<16>(0))
            + (self.csum.val() >> self.sh16.val());
        self.fold2.next = bit_cast::<20, 16>(self.fold1.val().get_bits::<16>(0))
            + (self.fold1.val() >> self.sh16.val());
        // Transport.
        self.flags.next = self.h.val().get_bits::<8>(232);
        self.msg_len.next = self.h.val().get_bits::<16>(184);
        self.off.next = self.h.val().get_bits::<8>(176);
        self.total.next = bit_cast::<8, 6>(self.msg_len.val().get_bits::<6>(10));
        if self.msg_len.val().get_bits::<10>(0) != self.zero_low10.val() {
            self.total.next =
                bit_cast::<8, 6>(self.msg_len.val().get_bits::<6>(10)) + self.one_8.val();
        }
        self.want_len.next = self.c1024_16.val();
        if (self.off.val() + self.one_8.val()) == self.total.val() {
            self.want_len.next =
                self.msg_len.val() - (bit_cast::<16, 8>(self.off.val()) << self.sh10.val());
        }
        self.transport_ok.next = (self.flags.val().get_bits::<3>(5) == self.zero_3.val())
            & (self.flags.val().get_bits::<4>(0) != self.zero_4.val())
            & (self.msg_len.val() != self.zero_16.val())
            & (self.msg_len.val() <= self.max_msg_16.val());
        if self.flags.val().get_bit(0) {
            // DATA: a payload of its offset's size, or none when trimmed.
            if self.off.val() >= self.total.val() {
                self.transport_ok.next = false;
            }
            if self.flags.val().get_bit(4) {
                if self.payload_len.val() != self.zero_16.val() {
                    self.transport_ok.next = false;
                }
            } else if self.payload_len.val() != self.want_len.val() {
                self.transport_ok.next = false;
            }
        } else {
            // Control: the 1-byte dummy payload; CHOP only on DATA.
            if (self.off.val() > self.total.val())
                | (self.payload_len.val() != self.one_16.val())
                | self.flags.val().get_bit(4)
            {
                self.transport_ok.next = false;
            }
        }
        // Bolt's SRC (a switch's reflection of a DATA header): transport flags 0, Bolt
        // flags (frame byte 54) with SRC, headers only.
        if self.bolt.val()
            & (self.flags.val() == self.zero_8.val())
            & ((self.h.val().get_bits::<8>(72) & self.bolt_src.val()) != self.zero_8.val())
            & (self.msg_len.val() != self.zero_16.val())
            & (self.msg_len.val() <= self.max_msg_16.val())
            & (self.off.val() < self.total.val())
            & (self.payload_len.val() == self.zero_16.val())
        {
            self.transport_ok.next = true;
        }
        // The first failing check names the drop (checked in reverse, the last wins).
        self.bad.next = true;
        self.reason.next = self.codes[9].val();
        if self.transport_ok.val() {
            self.bad.next = false;
        }
        if self.h.val().get_bits::<8>(320) != self.cfg.protocol.val() {
            self.bad.next = true;
            self.reason.next = self.codes[8].val();
        }
        if (self.h.val().get_bits::<48>(464) != self.cfg.mac.val())
            | (self.h.val().get_bits::<32>(240) != self.cfg.ip.val())
        {
            self.bad.next = true;
            self.reason.next = self.codes[7].val();
        }
        if self.fold2.val() != self.ones_20.val() {
            self.bad.next = true;
            self.reason.next = self.codes[6].val();
        }
        if (self.ip_len.val() + self.c14_16.val()) != self.frame_len.val() {
            self.bad.next = true;
            self.reason.next = self.codes[5].val();
        }
        if (self.h.val().get_bits::<8>(392) != self.c45_8.val())
            | (self.h.val().get_bits::<14>(336) != self.zero_14.val())
        {
            self.bad.next = true;
            self.reason.next = self.codes[4].val();
        }
        if self.h.val().get_bits::<16>(400) != self.ethertype_ipv4.val() {
            self.bad.next = true;
            self.reason.next = self.codes[3].val();
        }
        if self.frame_len.val() < self.c64_16.val() {
            self.bad.next = true;
            self.reason.next = self.codes[2].val();
        }
        if self.nbeats.val() > self.c136_16.val() {
            self.bad.next = true;
            self.reason.next = self.codes[1].val();
        }
        if self.ovf.q.val() | (!self.store.val() & (self.beats.q.val() < self.c137_8.val())) {
            self.bad.next = true;
            self.reason.next = self.codes[0].val();
        }

        // The descriptor of a frame that passed.
        self.vh.next.src_mac = self.h.val().get_bits::<48>(416);
        self.vh.next.src_ip = self.h.val().get_bits::<32>(272);
        self.vh.next.dst_ip = self.h.val().get_bits::<32>(240);
        self.vh.next.tos = self.h.val().get_bits::<8>(384);
        self.vh.next.flags = self.flags.val();
        self.vh.next.src_port = self.h.val().get_bits::<16>(216);
        self.vh.next.dst_port = self.h.val().get_bits::<16>(200);
        self.vh.next.msg_len = self.msg_len.val();
        self.vh.next.pkt_offset = self.off.val();
        self.vh.next.pull_grant = self.h.val().get_bits::<16>(160);
        if self.homa.val() {
            self.vh.next.grant_prio = self.h.val().get_bits::<8>(152);
            self.vh.next.tx_msg_id = self.h.val().get_bits::<16>(136);
            self.vh.next.buf_ptr = self.h.val().get_bits::<16>(120);
            self.vh.next.buf_class = self.h.val().get_bits::<8>(112);
        } else {
            self.vh.next.grant_prio = self.zero_8.val();
            self.vh.next.tx_msg_id = self.h.val().get_bits::<16>(144);
            self.vh.next.buf_ptr = self.h.val().get_bits::<16>(128);
            self.vh.next.buf_class = self.h.val().get_bits::<8>(120);
        }
        self.vh.next.bolt = self.h.val().get_bits::<72>(40);
        self.vh.next.payload_len = self.payload_len.val();
        self.v.next.words = self.nbeats.val().get_bits::<8>(0);
        self.v.next.empty = self.sink.empty.val();
        self.v.next.hdr = self.vh.val();
        self.verdicts.push_data.next = self.v.val();
        self.verdicts.push.next = self.frame_end.val() & !self.bad.val();

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
        // The RAM reads `rp_next` every cycle, so its output is the word at `rp`.
        self.avail.next = (self.cwp.q.val() != self.rp.q.val()) & self.verdicts.nonempty.val();
        self.out_last.next =
            (self.taken.q.val() + self.one_8.val()) == self.verdicts.head.val().words;
        self.source.valid.next = self.avail.val();
        self.source.data.next = self.zero_64.val();
        self.source.last.next = false;
        self.source.empty.next = self.zero_3.val();
        self.source.hdr.next = self.zero_hdr.val();
        if self.avail.val() {
            self.source.data.next = self.ring.read_data.val();
            self.source.last.next = self.out_last.val();
            self.source.hdr.next = self.verdicts.head.val().hdr;
            if self.out_last.val() {
                self.source.empty.next = self.verdicts.head.val().empty;
            }
        }
        self.pop_word.next = self.avail.val() & self.source.ready.val();
        self.rp_next.next = self.rp.q.val();
        self.verdicts.pop.next = false;
        if self.pop_word.val() {
            self.rp_next.next = self.rp.q.val() + self.one_10.val();
            self.taken.d.next = self.taken.q.val() + self.one_8.val();
            if self.out_last.val() {
                self.taken.d.next = self.zero_8.val();
                self.verdicts.pop.next = true;
            }
        }
        self.rp.d.next = self.rp_next.val();
        self.ring.read_address.next = self.rp_next.val().get_bits::<RING_A>(0);

        self.stat.frames.next = self.cnt_frames.q.val();
        self.stat.passed.next = self.cnt_passed.q.val();
        self.stat.queued.next = self.verdicts.count.val();
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
            self.taken.d.next = self.zero_8.val();
            self.cnt_frames.d.next = self.zero_32.val();
            self.cnt_passed.d.next = self.zero_32.val();
            for i in 0..DROP_REASONS {
                self.cnt_drop[i].d.next = self.zero_32.val();
            }
        }
    }
}

#[cfg(test)]
mod tests;
