//! Wire formats (SPEC §2): Ethernet, IPv4 (with its header checksum) and the 30-byte
//! nanoTransport header in its NDP and Homa layouts, built into and read from bytes; and
//! frames as the 64-bit word streams of the MAC interfaces (first byte in bits 63:56, `empty`
//! = unused bytes of the last word).
//!
//! Byte offsets in a frame: Ethernet 0-13, IPv4 14-33, transport 34-63, payload from 64.
//! Transport: 34 flags, 35 src port, 37 dst port, 39 msg_len, 41 pkt_offset, 42
//! pull/grant offset; NDP: 44 tx_msg_id, 46 buf_ptr, 48 buf_size_class; Homa: 44
//! grant_prio, 45 tx_msg_id, 47 buf_ptr, 49 buf_size_class; Bolt (Listing 4.1) at 50-58
//! in both.

/// Ethertype of IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// IP protocol numbers (artifact).
pub const PROTO_NDP: u8 = 155;
pub const PROTO_HOMA: u8 = 154;
/// Transport flags.
pub const FLAG_DATA: u8 = 0x01;
pub const FLAG_ACK: u8 = 0x02;
pub const FLAG_NACK: u8 = 0x04;
pub const FLAG_PULL_GRANT: u8 = 0x08;
pub const FLAG_CHOP: u8 = 0x10;
/// Header bytes (Ethernet + IPv4 + transport).
pub const HDR_BYTES: usize = 64;
/// Frame byte where Bolt's 9 bytes start.
pub const BOLT_OFFSET: usize = 50;

/// Transport header layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Ndp,
    Homa,
}

/// The transport header's fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Transport {
    pub flags: u8,
    pub src_port: u16,
    pub dst_port: u16,
    pub msg_len: u16,
    pub pkt_offset: u8,
    /// NDP pull_offset / Homa grant_offset.
    pub pull_grant: u16,
    /// Homa only.
    pub grant_prio: u8,
    pub tx_msg_id: u16,
    pub buf_ptr: u16,
    pub buf_class: u8,
    /// Bolt's fields (q_size 24, link_rate 8, flags 8, t_data_tx 32), big-endian.
    pub bolt: [u8; 9],
}

/// A nanoTransport frame's header fields and payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub dst_mac: u64,
    pub src_mac: u64,
    pub tos: u8,
    pub ip_id: u16,
    pub ttl: u8,
    pub protocol: u8,
    pub src_ip: u32,
    pub dst_ip: u32,
    pub t: Transport,
    pub payload: Vec<u8>,
}

fn put(b: &mut [u8], at: usize, v: u64, n: usize) {
    for i in 0..n {
        b[at + i] = (v >> (8 * (n - 1 - i))) as u8;
    }
}

fn get(b: &[u8], at: usize, n: usize) -> u64 {
    (0..n).fold(0, |v, i| v << 8 | b[at + i] as u64)
}

/// The IPv4 header checksum of `hdr` (20 bytes, its checksum field taken as is): the
/// value to store when the field is 0, and 0 when the header is correct.
pub fn ipv4_checksum(hdr: &[u8]) -> u16 {
    let mut sum: u32 = hdr
        .chunks(2)
        .map(|c| (c[0] as u32) << 8 | *c.get(1).unwrap_or(&0) as u32)
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

impl Frame {
    /// The frame's bytes, with IPv4 total length and header checksum filled in.
    pub fn encode(&self, layout: Layout) -> Vec<u8> {
        let mut b = vec![0u8; HDR_BYTES + self.payload.len()];
        put(&mut b, 0, self.dst_mac, 6);
        put(&mut b, 6, self.src_mac, 6);
        put(&mut b, 12, ETHERTYPE_IPV4 as u64, 2);
        b[14] = 0x45;
        b[15] = self.tos;
        let ip_len = (b.len() - 14) as u64;
        put(&mut b, 16, ip_len, 2);
        put(&mut b, 18, self.ip_id as u64, 2);
        put(&mut b, 20, 0x4000, 2); // don't fragment
        b[22] = self.ttl;
        b[23] = self.protocol;
        put(&mut b, 26, self.src_ip as u64, 4);
        put(&mut b, 30, self.dst_ip as u64, 4);
        let c = ipv4_checksum(&b[14..34]) as u64;
        put(&mut b, 24, c, 2);
        let t = &self.t;
        b[34] = t.flags;
        put(&mut b, 35, t.src_port as u64, 2);
        put(&mut b, 37, t.dst_port as u64, 2);
        put(&mut b, 39, t.msg_len as u64, 2);
        b[41] = t.pkt_offset;
        put(&mut b, 42, t.pull_grant as u64, 2);
        match layout {
            Layout::Ndp => {
                put(&mut b, 44, t.tx_msg_id as u64, 2);
                put(&mut b, 46, t.buf_ptr as u64, 2);
                b[48] = t.buf_class;
            }
            Layout::Homa => {
                b[44] = t.grant_prio;
                put(&mut b, 45, t.tx_msg_id as u64, 2);
                put(&mut b, 47, t.buf_ptr as u64, 2);
                b[49] = t.buf_class;
            }
        }
        b[BOLT_OFFSET..BOLT_OFFSET + 9].copy_from_slice(&t.bolt);
        b[HDR_BYTES..].copy_from_slice(&self.payload);
        b
    }

    /// Reads the fields of `bytes` (at least [`HDR_BYTES`] long) without checking them.
    pub fn decode(bytes: &[u8], layout: Layout) -> Option<Frame> {
        if bytes.len() < HDR_BYTES {
            return None;
        }
        let b = bytes;
        let mut bolt = [0u8; 9];
        bolt.copy_from_slice(&b[BOLT_OFFSET..BOLT_OFFSET + 9]);
        let (grant_prio, tx_msg_id, buf_ptr, buf_class) = match layout {
            Layout::Ndp => (0, get(b, 44, 2), get(b, 46, 2), b[48]),
            Layout::Homa => (b[44], get(b, 45, 2), get(b, 47, 2), b[49]),
        };
        Some(Frame {
            dst_mac: get(b, 0, 6),
            src_mac: get(b, 6, 6),
            tos: b[15],
            ip_id: get(b, 18, 2) as u16,
            ttl: b[22],
            protocol: b[23],
            src_ip: get(b, 26, 4) as u32,
            dst_ip: get(b, 30, 4) as u32,
            t: Transport {
                flags: b[34],
                src_port: get(b, 35, 2) as u16,
                dst_port: get(b, 37, 2) as u16,
                msg_len: get(b, 39, 2) as u16,
                pkt_offset: b[41],
                pull_grant: get(b, 42, 2) as u16,
                grant_prio,
                tx_msg_id: tx_msg_id as u16,
                buf_ptr: buf_ptr as u16,
                buf_class,
                bolt,
            },
            payload: b[HDR_BYTES..].to_vec(),
        })
    }
}

/// The SRC packet a Bolt switch returns for the DATA frame `data` (SPEC §6): the 64-byte
/// header with MACs, IPs and contexts swapped (the new source MAC's group bit cleared),
/// transport flags 0, the Bolt SRC flag,
/// `q_size`, `link_rate` and the DATA packet's `t_data_tx` reflected. `None` when `data`
/// is not a DATA frame with the Bolt DATA flag.
pub fn bolt_src_of(data: &[u8], q_size: u32, link_rate: u8) -> Option<Vec<u8>> {
    if data.len() < HDR_BYTES
        || data[34] & FLAG_DATA == 0
        || data[BOLT_OFFSET + 4] & nt_hdl::swif::BOLT_DATA == 0
    {
        return None;
    }
    let f = Frame::decode(data, Layout::Ndp)?;
    let mut t = f.t;
    t.flags = 0;
    std::mem::swap(&mut t.src_port, &mut t.dst_port);
    t.bolt[0..3].copy_from_slice(&q_size.min(0xff_ffff).to_be_bytes()[1..]);
    t.bolt[3] = link_rate;
    t.bolt[4] = nt_hdl::swif::BOLT_SRC;
    // The new source MAC (the old destination) is never a group address.
    // (the I/G bit, the low bit of the first octet: bit 40 of the 48-bit value).
    let src_mac = f.dst_mac & !(1u64 << 40);
    Some(
        Frame {
            dst_mac: f.src_mac,
            src_mac,
            src_ip: f.dst_ip,
            dst_ip: f.src_ip,
            t,
            payload: vec![],
            ..f
        }
        .encode(Layout::Ndp),
    )
}

/// Reads the big-endian field of `n` bytes at `at`.
pub fn field(bytes: &[u8], at: usize, n: usize) -> u64 {
    get(bytes, at, n)
}

/// Writes the big-endian field of `n` bytes at `at`.
pub fn set_field(bytes: &mut [u8], at: usize, v: u64, n: usize) {
    put(bytes, at, v, n)
}

/// One 64-bit word of a frame on a MAC interface.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Word {
    pub data: u64,
    pub last: bool,
    /// Unused bytes of the last word (0 on the others).
    pub empty: u8,
}

/// `bytes` as MAC words (an empty frame gives no words).
pub fn to_words(bytes: &[u8]) -> Vec<Word> {
    let n = bytes.len().div_ceil(8);
    (0..n)
        .map(|i| {
            let chunk = &bytes[i * 8..bytes.len().min(i * 8 + 8)];
            let data = chunk
                .iter()
                .enumerate()
                .fold(0u64, |v, (j, &x)| v | (x as u64) << (56 - 8 * j));
            let last = i + 1 == n;
            Word {
                data,
                last,
                empty: if last { (8 - chunk.len()) as u8 } else { 0 },
            }
        })
        .collect()
}

/// The bytes of a frame's words.
pub fn from_words(words: &[Word]) -> Vec<u8> {
    let mut b = vec![];
    for w in words {
        let n = if w.last { 8 - w.empty as usize } else { 8 };
        b.extend((0..n).map(|j| (w.data >> (56 - 8 * j)) as u8));
    }
    b
}
