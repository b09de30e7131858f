//! Directed tests of the ingress parser: the latency of a 16-byte message's packet, a frame
//! passing (from its word `SKIP_WORDS` on) with its fields, drops counted by reason, the
//! ring and the verdict queue overflowing while the output is stalled, and a Bolt build passing a switch's SRC (which the golden model
//! does not cover). The randomized equivalence against the golden model is
//! `testbench/tests/suite/parser_equivalence.rs`.
use nt_hdl::parser::*;
use nt_sim::kernel::Kernel;
use nt_sim::wire::{to_words, Frame, Layout, Transport, Word, FLAG_DATA, PROTO_NDP};

const MAC: u64 = 0x0200_0000_0002;
const IP: u32 = 0x0a00_0002;

fn frame(msg_len: u16, seed: u8) -> Vec<u8> {
    Frame {
        dst_mac: MAC,
        src_mac: 0x0200_0000_0001,
        tos: 0,
        ip_id: seed as u16,
        ttl: 64,
        protocol: PROTO_NDP,
        src_ip: 0x0a00_0001,
        dst_ip: IP,
        t: Transport {
            flags: FLAG_DATA,
            src_port: 10,
            dst_port: 20,
            msg_len,
            tx_msg_id: 0x1234,
            ..Default::default()
        },
        payload: (0..msg_len.min(1024)).map(|i| i as u8 ^ seed).collect(),
    }
    .encode(Layout::Ndp)
}

/// The words a passed frame leaves as: from its word [`SKIP_WORDS`] on.
fn sent(bytes: &[u8]) -> Vec<Word> {
    to_words(bytes)[SKIP_WORDS as usize..].to_vec()
}

struct Tb {
    k: Kernel<Parser>,
    /// Words out: (cycle, word), and the header fields beside each.
    out: Vec<(u64, Word)>,
    hdrs: Vec<RxHdr>,
    ready: bool,
}

impl Tb {
    fn new() -> Self {
        Self::with(Parser::new(false))
    }

    fn with(parser: Parser) -> Self {
        let mut k = Kernel::with_clock(parser, |p| &mut p.clock).expect("kernel");
        let u = k.uut_mut();
        u.cfg.mac.next = MAC.into();
        u.cfg.ip.next = (IP as u64).into();
        u.cfg.protocol.next = (PROTO_NDP as u64).into();
        Tb {
            k,
            out: vec![],
            hdrs: vec![],
            ready: true,
        }
    }

    fn cycle(&mut self, w: Option<Word>) {
        let c = self.k.cycle();
        let u = self.k.uut_mut();
        u.sink.valid.next = w.is_some();
        let x = w.unwrap_or_default();
        u.sink.data.next = x.data.into();
        u.sink.last.next = x.last;
        u.sink.empty.next = (x.empty as u64).into();
        u.source.ready.next = self.ready;
        self.k.settle().expect("settle");
        let u = self.k.uut();
        assert!(u.sink.ready.val(), "sink.ready is always high");
        if u.source.valid.val() && self.ready {
            self.out.push((
                c,
                Word {
                    data: u.source.data.val().to_u64(),
                    last: u.source.last.val(),
                    empty: u.source.empty.val().to_u64() as u8,
                },
            ));
            self.hdrs.push(u.source.hdr.val());
        }
        self.k.tick().expect("tick");
    }

    fn send(&mut self, bytes: &[u8]) -> u64 {
        let first = self.k.cycle();
        for w in to_words(bytes) {
            self.cycle(Some(w));
        }
        first
    }

    fn idle(&mut self, n: u64) {
        for _ in 0..n {
            self.cycle(None);
        }
    }

    fn drops(&self) -> [u64; DROP_REASONS] {
        self.k.uut().drop_counts()
    }
}

#[test]
fn a_sixteen_byte_message_packet_leaves_ten_cycles_after_its_first_word() {
    let mut tb = Tb::new();
    tb.idle(3);
    let b = frame(16, 1);
    assert_eq!(b.len(), 80);
    let first_in = tb.send(&b);
    tb.idle(20);
    assert_eq!(tb.out.len(), 10 - SKIP_WORDS as usize);
    let first_out = tb.out[0].0;
    assert_eq!(first_out - first_in, 10, "first word in -> first word out");
    // Back to back, unchanged from word SKIP_WORDS on.
    for (i, (c, _)) in tb.out.iter().enumerate() {
        assert_eq!(*c, first_out + i as u64);
    }
    let words: Vec<Word> = tb.out.iter().map(|x| x.1).collect();
    assert_eq!(words, sent(&b));
    let s = &tb.k.uut().stat;
    assert_eq!((s.frames.val().to_u64(), s.passed.val().to_u64()), (1, 1));
}

#[test]
fn bad_frames_are_dropped_and_counted_by_reason() {
    let mut tb = Tb::new();
    let good = frame(100, 2);
    let mut bad_sum = good.clone();
    bad_sum[25] ^= 1;
    tb.send(&bad_sum);
    tb.send(&good[..40]);
    tb.send(&good);
    tb.idle(30);
    let d = tb.drops();
    assert_eq!(d[DROP_BAD_CHECKSUM], 1);
    assert_eq!(d[DROP_TRUNCATED], 1);
    assert_eq!(d.iter().sum::<u64>(), 2);
    let words: Vec<Word> = tb.out.iter().map(|x| x.1).collect();
    assert_eq!(words, sent(&good), "only the good frame leaves");
}

#[test]
fn a_stalled_output_overflows_the_ring_and_drops_whole_frames() {
    let mut tb = Tb::new();
    tb.ready = false;
    // 1088-byte frames store 131 words: three fit in 512 with room to spare, the fourth
    // does not.
    let big: Vec<Vec<u8>> = (0..5).map(|i| frame(4096, i)).collect();
    for b in &big {
        assert_eq!(b.len(), 1088);
        tb.send(b);
    }
    tb.ready = true;
    tb.idle(800);
    let d = tb.drops();
    assert_eq!(d[DROP_OVERFLOW], 2, "{d:?}");
    let words: Vec<Word> = tb.out.iter().map(|x| x.1).collect();
    let want: Vec<Word> = big[..3].iter().flat_map(|b| sent(b)).collect();
    assert_eq!(words, want);
}

/// 80-byte frames store 5 words: 64 of them leave the ring two-thirds empty, but the
/// verdict queue holds 64 descriptors, so the next frame is dropped as an overflow (and
/// one after the output drained a frame is taken again).
#[test]
fn a_stalled_output_with_64_frames_waiting_drops_the_next_as_overflow() {
    let mut tb = Tb::new();
    tb.ready = false;
    let small: Vec<Vec<u8>> = (0..66).map(|i| frame(16, i)).collect();
    for b in &small[..65] {
        tb.send(b);
    }
    tb.idle(2);
    assert_eq!(tb.k.uut().stat.queued.val().to_u64(), 64);
    assert_eq!(tb.drops()[DROP_OVERFLOW], 1);
    tb.ready = true;
    tb.idle(10);
    tb.send(&small[65]);
    tb.idle(400);
    let d = tb.drops();
    assert_eq!(d[DROP_OVERFLOW], 1, "{d:?}");
    assert_eq!(d.iter().sum::<u64>(), 1, "{d:?}");
    let words: Vec<Word> = tb.out.iter().map(|x| x.1).collect();
    let want: Vec<Word> = small[..64]
        .iter()
        .chain(&small[65..])
        .flat_map(|b| sent(b))
        .collect();
    assert_eq!(words, want);
}

/// A switch's SRC (transport flags 0, Bolt's SRC flag in frame byte 54, headers only)
/// passes a parser built for Bolt with its fields, and is a bad transport for the others;
/// without the SRC flag, or with a payload, it is a bad transport for both.
#[test]
fn a_bolt_parser_passes_a_switch_src_and_the_others_drop_it() {
    use nt_sim::wire::ipv4_checksum;
    let src = |bolt_flags: u8, extra: usize| {
        let mut b = frame(3000, 7);
        b.truncate(64);
        b.extend(std::iter::repeat_n(0x5a, extra));
        b[34] = 0; // transport flags
        b[41] = 1; // pkt_offset: below the message's 3 packets
        b[54] = bolt_flags;
        let total = (b.len() - 14) as u16;
        b[16..18].copy_from_slice(&total.to_be_bytes());
        b[24..26].copy_from_slice(&[0, 0]);
        let c = ipv4_checksum(&b[14..34]);
        b[24..26].copy_from_slice(&c.to_be_bytes());
        b
    };
    let sw_src = nt_hdl::swif::BOLT_SRC;
    for bolt in [true, false] {
        let mut tb = Tb::with(Parser::with_bolt(false, bolt));
        let good = src(sw_src | 0x01, 0);
        tb.send(&good);
        tb.send(&src(0x01, 0));
        tb.send(&src(sw_src, 8));
        tb.idle(20);
        let d = tb.drops();
        let words: Vec<Word> = tb.out.iter().map(|x| x.1).collect();
        if bolt {
            assert_eq!(d[DROP_BAD_TRANSPORT], 2, "{d:?}");
            assert_eq!(words, sent(&good));
            let h = tb.hdrs[0];
            assert!(
                tb.hdrs.iter().all(|x| *x == h),
                "the same fields beside every word"
            );
            assert_eq!(h.flags.to_u64(), 0);
            assert_eq!(h.msg_len.to_u64(), 3000);
            assert_eq!(h.pkt_offset.to_u64(), 1);
            assert_eq!(h.payload_len.to_u64(), 0);
            assert_eq!(h.tx_msg_id.to_u64(), 0x1234);
            // Bolt's bytes 50-58: byte 54 is the fifth.
            assert_eq!((h.bolt.to_u128() >> 32) & 0xff, (sw_src | 0x01) as u128);
        } else {
            assert_eq!(d[DROP_BAD_TRANSPORT], 3, "{d:?}");
            assert!(words.is_empty());
        }
        assert_eq!(d.iter().sum::<u64>(), if bolt { 2 } else { 3 });
    }
}
