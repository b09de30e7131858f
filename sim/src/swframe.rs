//! Test frames for the new switch's blocks ([`crate::sing_workload`],
//! [`crate::switch2_workload`]): an Ethernet / IPv4 frame of our transport or another
//! protocol, well formed or broken in one of the ways the ingress must catch, with what
//! the ingress must decide for it.
use rand::rngs::StdRng;
use rand::Rng;
use std::collections::VecDeque;

/// A word on a MAC stream: `(data, last, empty)`.
pub type Word = (u64, bool, u8);

/// A request to the admission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct IngReq {
    pub out: u8,
    pub band: u8,
    pub bytes: u32,
    pub words: u16,
    pub empty: u8,
    /// Our transport's DATA without CHOP (IP protocol 154 or 155, flag bit 0 set, bit 4
    /// clear): the switch may trim it.
    pub trim: bool,
    /// The IPv4 header checksum of the frame trimmed to 64 bytes ([`trimmed_csum`]).
    pub csum: u16,
    /// The bytes a header returned to its sender takes from later words ([`ret_bytes`]).
    pub rb: u64,
    /// Bolt's flags (frame byte 54, word 6 bits 15:8) for IP protocol 154 or 155, else 0.
    pub bf: u8,
}

/// The 48 bits the ingress passes on for a returned header's rewrite: the source MAC's
/// last 4 bytes (bytes 8-11, word 1 bits 63:32) in bits 47:16 and the destination IP's
/// last 2 (bytes 32-33, word 4 bits 63:48) in bits 15:0.
pub fn ret_bytes(words: &[u64]) -> u64 {
    let w = |j: usize| words.get(j).copied().unwrap_or(0);
    (w(1) >> 32) << 16 | w(4) >> 48
}

/// The IPv4 header checksum once the total length `len` becomes 50 (a trimmed header),
/// by RFC 1624 eqn. 3: `~(~HC + ~m + m')` in ones' complement.
pub fn trimmed_csum(hc: u16, len: u16) -> u16 {
    let mut s = (!hc) as u32 + (!len) as u32 + 50;
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    !(s as u16)
}

/// The 64-byte header a trimmed frame leaves as: its first 8 words, with IPv4 total
/// length 50 (word 2 bits 63:48), checksum `csum` (word 3 bits 63:48) and CHOP (0x10)
/// set in the transport flags (word 4 bits 47:40); the last word is word 7.
pub fn trimmed_header(words: &[u64], csum: u16) -> Vec<Word> {
    (0..8)
        .map(|j| {
            let w = words.get(j).copied().unwrap_or(0);
            let d = match j {
                2 => (w & !(0xffff << 48)) | (50 << 48),
                3 => (w & !(0xffff << 48)) | ((csum as u64) << 48),
                4 => w | (0x10 << 40),
                _ => w,
            };
            (d, j == 7, 0)
        })
        .collect()
}

/// The 64-byte header a trimmed frame goes back to its sender as (paper 002 §2): the
/// trimmed header of [`trimmed_header`] with the Ethernet addresses (bytes 0-5 and
/// 6-11), the IPv4 addresses (26-29 and 30-33) and the transport ports (35-36 and 37-38)
/// swapped, and the group bit of the new source MAC (bit 0 of byte 6) cleared. Written
/// from the bytes, not the words, so that it checks the buffer's word-wise rewrite.
pub fn returned_header(words: &[u64], csum: u16) -> Vec<Word> {
    let mut b: Vec<u8> = trimmed_header(words, csum)
        .iter()
        .flat_map(|w| w.0.to_be_bytes())
        .collect();
    let swap = |b: &mut Vec<u8>, x: usize, y: usize, n: usize| {
        for k in 0..n {
            b.swap(x + k, y + k);
        }
    };
    swap(&mut b, 0, 6, 6);
    swap(&mut b, 26, 30, 4);
    swap(&mut b, 35, 37, 2);
    b[6] &= !1;
    (0..8)
        .map(|j| {
            let d = u64::from_be_bytes(b[j * 8..j * 8 + 8].try_into().expect("8"));
            (d, j == 7, 0)
        })
        .collect()
}

/// Bolt's SRC for a data frame's words (thesis Listing 4.1, SPEC §6) as the shared
/// switch builds it: the header returned to its sender ([`returned_header`]) with transport
/// flags 0 and, in frame bytes 50-54, `q_size` = `q`, `link_rate` and the SRC flag;
/// t_data_tx (bytes 55-58) reflected.
pub fn src_header(words: &[u64], csum: u16, q: u32, link_rate: u8) -> Vec<Word> {
    let mut b: Vec<u8> = returned_header(words, csum)
        .iter()
        .flat_map(|w| w.0.to_be_bytes())
        .collect();
    b[34] = 0;
    let o = crate::wire::BOLT_OFFSET;
    b[o..o + 3].copy_from_slice(&q.to_be_bytes()[1..]);
    b[o + 3] = link_rate;
    b[o + 4] = nt_hdl::swif::BOLT_SRC;
    (0..8)
        .map(|j| {
            let d = u64::from_be_bytes(b[j * 8..j * 8 + 8].try_into().expect("8"));
            (d, j == 7, 0)
        })
        .collect()
}

/// The IPv4 header checksum of header bytes `h` (20 bytes, its checksum field as zero);
/// over a header with its checksum in place, 0 when that checksum is right.
pub fn ipv4_csum(h: &[u8]) -> u16 {
    let mut s: u32 = h
        .chunks(2)
        .map(|c| u32::from(c[0]) << 8 | u32::from(*c.get(1).unwrap_or(&0)))
        .sum();
    while s >> 16 != 0 {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

/// A forwarding-table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Route {
    pub valid: bool,
    pub ip: u32,
    pub port: u8,
}

/// The port of `ip` by `routes` (the lowest valid matching entry), if below `n`.
pub fn lookup(routes: &[Route], n: usize, ip: u32) -> Option<u8> {
    let r = routes.iter().find(|r| r.valid && r.ip == ip)?;
    ((r.port as usize) < n).then_some(r.port)
}

/// Why the ingress does not keep a frame (the counter it goes to).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotKept {
    /// `drop_malformed`.
    Malformed,
    /// `drop_no_route`.
    NoRoute,
}

/// A frame and its fate at the ingress.
#[derive(Clone, Debug)]
pub struct Frame {
    pub words: VecDeque<Word>,
    /// The request, or why the frame is not kept. A frame shorter than 8 words is
    /// malformed here already; a gap among its first 8 words makes any frame malformed (the
    /// sender decides that).
    pub want: Result<IngReq, NotKept>,
    /// Its real length is what its IPv4 header says (else the buffer completes it as bad).
    pub len_ok: bool,
}

/// A random frame to `dst`: IPv4 length 50 (a 64-byte frame) in three of ten, else up to
/// 1074; `tos`, protocol (154, 155, 6 or 17) and flags random. With chance `bad_p` it is
/// broken: shorter than 64 bytes (malformed if shorter than 8 words), a bad ethertype,
/// version/IHL or IPv4 length, or a real length that disagrees with its header.
pub fn random_frame(
    r: &mut StdRng,
    dst: u32,
    bad_p: f64,
    band_by_flags: bool,
    routes: &[Route],
    n: usize,
) -> Frame {
    let ip_len: u32 = if r.gen_bool(0.3) {
        50
    } else {
        r.gen_range(50..=1074)
    };
    let mut len = ip_len + 14;
    let tos: u8 = r.gen();
    let proto: u8 = *[154u8, 155, 6, 17]
        .get(r.gen_range(0..4))
        .expect("in range");
    let flags: u8 = r.gen();
    let mut eth: u16 = 0x0800;
    let mut vih: u8 = 0x45;
    let mut hdr_len = ip_len;
    let mut malformed = false;
    if r.gen_bool(bad_p) {
        match r.gen_range(0..6) {
            // shorter than 64 bytes: malformed below 8 words (56 bytes or fewer), else
            // kept with a length that disagrees with its header
            0 => {
                len = r.gen_range(1..=63);
                malformed = len <= 56;
            }
            1 => {
                eth = r.gen();
                malformed = eth != 0x0800;
            }
            2 => {
                vih = r.gen();
                malformed = vih != 0x45;
            }
            3 => {
                hdr_len = if r.gen_bool(0.5) {
                    r.gen_range(0..50)
                } else {
                    r.gen_range(1075..=65535)
                };
                malformed = true;
            }
            // a real length that disagrees with the header (kept: the buffer checks)
            _ => len = r.gen_range(64..=1200),
        }
    }
    let words_n = len.div_ceil(8) as usize;
    let mut bytes: Vec<u8> = (0..words_n * 8).map(|_| r.gen()).collect();
    let put = |b: &mut Vec<u8>, at: usize, v: &[u8]| {
        for (x, y) in v.iter().enumerate() {
            if at + x < b.len() {
                b[at + x] = *y;
            }
        }
    };
    put(&mut bytes, 12, &eth.to_be_bytes());
    put(&mut bytes, 14, &[vih, tos]);
    put(&mut bytes, 16, &(hdr_len as u16).to_be_bytes());
    put(&mut bytes, 23, &[proto]);
    put(&mut bytes, 30, &dst.to_be_bytes());
    put(&mut bytes, 34, &[flags]);
    // a correct IPv4 checksum, so that a trimmed header's can be checked
    let csum = if bytes.len() >= 34 {
        let mut h = bytes[14..34].to_vec();
        h[10] = 0;
        h[11] = 0;
        ipv4_csum(&h)
    } else {
        0
    };
    put(&mut bytes, 24, &csum.to_be_bytes());
    let empty = (words_n * 8) as u32 - len;
    let words: VecDeque<Word> = (0..words_n)
        .map(|j| {
            let d = u64::from_be_bytes(bytes[j * 8..j * 8 + 8].try_into().expect("8"));
            let last = j + 1 == words_n;
            (d, last, if last { empty as u8 } else { 0 })
        })
        .collect();
    let band = if band_by_flags {
        if proto == 154 || proto == 155 {
            u8::from(flags & 1 != 0 && flags & 0x10 == 0)
        } else {
            3
        }
    } else {
        (tos >> 2).min(3)
    };
    let want = if malformed {
        Err(NotKept::Malformed)
    } else {
        match lookup(routes, n, dst) {
            None => Err(NotKept::NoRoute),
            Some(out) => {
                let b = hdr_len + 14;
                let w = b.div_ceil(8);
                Ok(IngReq {
                    out,
                    band,
                    bytes: b,
                    words: w as u16,
                    empty: (w * 8 - b) as u8,
                    trim: (proto == 154 || proto == 155) && flags & 0x11 == 0x01,
                    csum: trimmed_csum(csum, hdr_len as u16),
                    rb: ret_bytes(&words.iter().map(|w| w.0).collect::<Vec<_>>()),
                    bf: if proto == 154 || proto == 155 {
                        (words.get(6).map_or(0, |w| w.0) >> 8) as u8
                    } else {
                        0
                    },
                })
            }
        }
    };
    Frame {
        words,
        want,
        len_ok: len == hdr_len + 14,
    }
}
