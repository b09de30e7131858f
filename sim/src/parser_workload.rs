//! Seeded frames for the ingress [`Parser`], as a MAC would deliver them: valid DATA
//! packets of random messages (1 B to 38 KiB, any offset), trimmed DATA packets, control
//! packets (ACK, NACK, PULL/GRANT), and malformed ones with one or two defects of every
//! kind the parser checks (truncated, too long, not IPv4, bad IPv4 header or fragment,
//! length mismatch, bad checksum, another host's MAC or IP, another protocol, bad transport
//! fields); random gaps between and inside frames, and bursts of output backpressure long
//! enough to fill the parser's ring.
//!
//! [`read_parser`] snapshots the parser's ports for the golden model
//! (`nt_testbench::parser_model`).
use crate::wire::{
    field, ipv4_checksum, set_field, to_words, Frame, Layout, Transport, Word, FLAG_ACK, FLAG_CHOP,
    FLAG_DATA, FLAG_NACK, FLAG_PULL_GRANT, PROTO_HOMA, PROTO_NDP,
};
use crate::workload::Stalls;
use nt_hdl::parser::{Parser, RxHdr, DROP_REASONS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// The parser's host configuration used by the workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostCfg {
    pub mac: u64,
    pub ip: u32,
    pub protocol: u8,
    pub layout: Layout,
}

impl HostCfg {
    pub fn new(layout: Layout) -> Self {
        HostCfg {
            mac: 0x0200_0000_0002,
            ip: 0x0a00_0002,
            protocol: match layout {
                Layout::Ndp => PROTO_NDP,
                Layout::Homa => PROTO_HOMA,
            },
            layout,
        }
    }
}

/// What the driver varies.
#[derive(Clone, Debug)]
pub struct ParserKnobs {
    /// Share of frames with defects.
    pub p_bad: f64,
    /// Per cycle between frames, the chance of an idle cycle; inside a frame, of a gap.
    pub p_idle: f64,
    pub p_gap: f64,
    /// Per cycle, the chance that a stall of `source.ready` starts, and its longest length.
    pub p_stall: f64,
    pub max_stall: u32,
}

impl Default for ParserKnobs {
    fn default() -> Self {
        ParserKnobs {
            p_bad: 0.3,
            p_idle: 0.3,
            p_gap: 0.02,
            p_stall: 0.002,
            max_stall: 600,
        }
    }
}

/// A valid frame to `host` of a random kind, and its bytes.
pub fn valid_frame(rng: &mut ChaCha8Rng, host: &HostCfg) -> Vec<u8> {
    let msg_len: u16 = match rng.gen_range(0..10) {
        0..=5 => rng.gen_range(1..=256),
        6..=8 => rng.gen_range(257..=4096),
        _ => rng.gen_range(4097..=38912),
    };
    let total = (msg_len as usize).div_ceil(1024) as u8;
    let kind = rng.gen_range(0..10);
    let (flags, off, payload) = match kind {
        0..=5 => {
            let off = rng.gen_range(0..total);
            let len = (msg_len as usize - off as usize * 1024).min(1024);
            (FLAG_DATA, off, len)
        }
        6 => (FLAG_DATA | FLAG_CHOP, rng.gen_range(0..total), 0),
        _ => {
            let f = [FLAG_ACK, FLAG_NACK, FLAG_PULL_GRANT][rng.gen_range(0..3)];
            (f, rng.gen_range(0..=total), 1)
        }
    };
    let mut bolt = [0u8; 9];
    rng.fill(&mut bolt[..]);
    let f = Frame {
        dst_mac: host.mac,
        src_mac: 0x0200_0000_0000 | rng.gen_range(0..0x1_0000_0000u64),
        tos: rng.gen_range(0..8),
        ip_id: rng.gen(),
        ttl: 64,
        protocol: host.protocol,
        src_ip: 0x0a00_0000 | rng.gen_range(1..0x100),
        dst_ip: host.ip,
        t: Transport {
            flags,
            src_port: rng.gen(),
            dst_port: rng.gen(),
            msg_len,
            pkt_offset: off,
            pull_grant: rng.gen(),
            grant_prio: if host.layout == Layout::Homa {
                rng.gen_range(0..8)
            } else {
                0
            },
            tx_msg_id: rng.gen(),
            buf_ptr: rng.gen(),
            buf_class: rng.gen_range(0..4),
            bolt,
        },
        payload: (0..payload).map(|_| rng.gen()).collect(),
    };
    f.encode(host.layout)
}

fn fix_checksum(b: &mut [u8]) {
    set_field(b, 24, 0, 2);
    let c = ipv4_checksum(&b[14..34]) as u64;
    set_field(b, 24, c, 2);
}

/// Applies one random defect to a valid frame `b`; returns its name.
pub fn add_defect(rng: &mut ChaCha8Rng, b: &mut Vec<u8>) -> &'static str {
    if b.len() < 64 {
        // Already truncated: shorter still.
        let n = b.len().saturating_sub(1).max(1);
        b.truncate(n);
        return "truncated";
    }
    match rng.gen_range(0..14) {
        0 => {
            let n = rng.gen_range(1..64.min(b.len()));
            b.truncate(n);
            "truncated"
        }
        1 => {
            let extra = rng.gen_range(1..400);
            let n = b.len().max(1088) + extra;
            b.resize(n, 0xa5);
            "too long"
        }
        2 => {
            set_field(b, 12, rng.gen_range(0..0x0800), 2);
            "ethertype"
        }
        3 => {
            b[14] = [0x46, 0x65, 0x44, 0x00][rng.gen_range(0..4)];
            fix_checksum(b);
            "version/ihl"
        }
        4 => {
            let frag = field(b, 20, 2) | [0x2000, 0x0001, 0x1fff][rng.gen_range(0..3)];
            set_field(b, 20, frag, 2);
            fix_checksum(b);
            "fragment"
        }
        5 => {
            let l = field(b, 16, 2) as i64 + [-1i64, 1, -8, 8, 100][rng.gen_range(0..5)];
            set_field(b, 16, l.clamp(0, 0xffff) as u64, 2);
            fix_checksum(b);
            "ip length"
        }
        6 => {
            let i = rng.gen_range(14..34);
            b[i] ^= 1 << rng.gen_range(0..8);
            "header bit (checksum)"
        }
        7 => {
            b[rng.gen_range(0..6)] ^= 0x10;
            "dst mac"
        }
        8 => {
            b[33] ^= 0x01;
            fix_checksum(b);
            "dst ip"
        }
        9 => {
            b[23] = [6u8, 17, 153, 156][rng.gen_range(0..4)];
            fix_checksum(b);
            "protocol"
        }
        10 => {
            b[34] = [0x00, 0x20, 0x80, 0x12, 0xff][rng.gen_range(0..5)];
            "flags"
        }
        11 => {
            let v = [0u64, 38913, 0xffff][rng.gen_range(0..3)];
            set_field(b, 39, v, 2);
            "msg_len"
        }
        12 => {
            b[41] = b[41].wrapping_add(rng.gen_range(1..50));
            "pkt_offset"
        }
        _ => {
            // The payload one byte short or long, with a matching IPv4 length.
            if rng.gen_bool(0.5) && b.len() > 64 {
                b.pop();
            } else {
                b.push(rng.gen());
            }
            let l = (b.len() - 14) as u64;
            set_field(b, 16, l, 2);
            fix_checksum(b);
            "payload length"
        }
    }
}

/// Seeded MAC traffic into a parser.
pub struct ParserWorkload {
    rng: ChaCha8Rng,
    pub host: HostCfg,
    pub knobs: ParserKnobs,
    words: VecDeque<Word>,
    stalls: Stalls,
    /// Frames generated, and how many of them had defects.
    pub frames: u64,
    pub defective: u64,
    /// Start new frames (turn off to drain).
    pub generate: bool,
}

impl ParserWorkload {
    pub fn new(seed: u64, host: HostCfg) -> Self {
        Self::with_knobs(seed, host, ParserKnobs::default())
    }

    pub fn with_knobs(seed: u64, host: HostCfg, knobs: ParserKnobs) -> Self {
        ParserWorkload {
            rng: ChaCha8Rng::seed_from_u64(seed),
            host,
            knobs,
            words: VecDeque::new(),
            stalls: Stalls::default(),
            frames: 0,
            defective: 0,
            generate: true,
        }
    }

    fn next_frame(&mut self) {
        let mut b = valid_frame(&mut self.rng, &self.host);
        if self.rng.gen_bool(self.knobs.p_bad) {
            add_defect(&mut self.rng, &mut b);
            if self.rng.gen_bool(0.2) {
                add_defect(&mut self.rng, &mut b);
            }
            self.defective += 1;
        }
        self.frames += 1;
        self.words.extend(to_words(&b));
    }

    /// No frame in progress or queued.
    pub fn idle(&self) -> bool {
        self.words.is_empty()
    }

    /// Sets the parser's inputs for this cycle; returns the word presented, if any.
    pub fn drive(&mut self, u: &mut Parser) -> Option<Word> {
        let between = self.words.is_empty();
        if between && self.generate && !self.rng.gen_bool(self.knobs.p_idle) {
            self.next_frame();
        }
        let gap = !between && self.rng.gen_bool(self.knobs.p_gap);
        let w = if gap { None } else { self.words.pop_front() };
        let ready = self
            .stalls
            .ready(&mut self.rng, self.knobs.p_stall, self.knobs.max_stall);
        u.reset.next = false;
        u.cfg.mac.next = self.host.mac.into();
        u.cfg.ip.next = (self.host.ip as u64).into();
        u.cfg.protocol.next = (self.host.protocol as u64).into();
        u.source.ready.next = ready;
        u.sink.valid.next = w.is_some();
        let x = w.unwrap_or_default();
        u.sink.data.next = x.data.into();
        u.sink.last.next = x.last;
        u.sink.empty.next = (x.empty as u64).into();
        w
    }
}

/// [`RxHdr`] as plain numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hdr {
    pub src_mac: u64,
    pub src_ip: u32,
    pub dst_ip: u32,
    pub tos: u8,
    pub flags: u8,
    pub src_port: u16,
    pub dst_port: u16,
    pub msg_len: u16,
    pub pkt_offset: u8,
    pub pull_grant: u16,
    pub grant_prio: u8,
    pub tx_msg_id: u16,
    pub buf_ptr: u16,
    pub buf_class: u8,
    pub bolt: [u8; 9],
    pub payload_len: u16,
}

impl Hdr {
    /// The fields of a frame as the parser reports them.
    pub fn of(f: &Frame, payload_len: usize) -> Hdr {
        Hdr {
            src_mac: f.src_mac,
            src_ip: f.src_ip,
            dst_ip: f.dst_ip,
            tos: f.tos,
            flags: f.t.flags,
            src_port: f.t.src_port,
            dst_port: f.t.dst_port,
            msg_len: f.t.msg_len,
            pkt_offset: f.t.pkt_offset,
            pull_grant: f.t.pull_grant,
            grant_prio: f.t.grant_prio,
            tx_msg_id: f.t.tx_msg_id,
            buf_ptr: f.t.buf_ptr,
            buf_class: f.t.buf_class,
            bolt: f.t.bolt,
            payload_len: payload_len as u16,
        }
    }

    fn read(h: &RxHdr) -> Hdr {
        let hi = h.bolt.get_bits::<64>(8).to_u64();
        let lo = h.bolt.get_bits::<8>(0).to_u64() as u8;
        let mut bolt = [0u8; 9];
        bolt[..8].copy_from_slice(&hi.to_be_bytes());
        bolt[8] = lo;
        Hdr {
            src_mac: h.src_mac.to_u64(),
            src_ip: h.src_ip.to_u64() as u32,
            dst_ip: h.dst_ip.to_u64() as u32,
            tos: h.tos.to_u64() as u8,
            flags: h.flags.to_u64() as u8,
            src_port: h.src_port.to_u64() as u16,
            dst_port: h.dst_port.to_u64() as u16,
            msg_len: h.msg_len.to_u64() as u16,
            pkt_offset: h.pkt_offset.to_u64() as u8,
            pull_grant: h.pull_grant.to_u64() as u16,
            grant_prio: h.grant_prio.to_u64() as u8,
            tx_msg_id: h.tx_msg_id.to_u64() as u16,
            buf_ptr: h.buf_ptr.to_u64() as u16,
            buf_class: h.buf_class.to_u64() as u8,
            bolt,
            payload_len: h.payload_len.to_u64() as u16,
        }
    }
}

/// The parser's ports in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParserIo {
    pub sink_valid: bool,
    pub sink_ready: bool,
    pub sink: Word,
    pub src_valid: bool,
    pub src_ready: bool,
    pub src: Word,
    pub hdr: Hdr,
    pub frames: u32,
    pub passed: u32,
    pub queued: u8,
    pub drops: [u32; DROP_REASONS],
}

/// Reads the parser's ports (after the kernel settled).
pub fn read_parser(u: &Parser) -> ParserIo {
    let s = &u.stat;
    ParserIo {
        sink_valid: u.sink.valid.val(),
        sink_ready: u.sink.ready.val(),
        sink: Word {
            data: u.sink.data.val().to_u64(),
            last: u.sink.last.val(),
            empty: u.sink.empty.val().to_u64() as u8,
        },
        src_valid: u.source.valid.val(),
        src_ready: u.source.ready.val(),
        src: Word {
            data: u.source.data.val().to_u64(),
            last: u.source.last.val(),
            empty: u.source.empty.val().to_u64() as u8,
        },
        hdr: Hdr::read(&u.source.hdr.val()),
        frames: s.frames.val().to_u64() as u32,
        passed: s.passed.val().to_u64() as u32,
        queued: s.queued.val().to_u64() as u8,
        drops: u.drop_counts().map(|x| x as u32),
    }
}
