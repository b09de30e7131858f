//! Directed tests of the reassembly module: the latency budgets (GetRxMsgInfo in 2
//! cycles, last word in → app header out in 2), line rate with back-to-back 65-byte
//! packets, out-of-order and duplicate packets, allocation failure, timeouts, malformed
//! input and output backpressure.
use nt_hdl::reassembly::*;
use nt_sim::kernel::Kernel;
use std::collections::VecDeque;

type R16 = Reassembly16;

/// A GetRxMsgInfo request.
#[derive(Clone, Copy, Debug)]
struct Req {
    mark: bool,
    ip: u32,
    port: u16,
    txid: u16,
    len: u16,
    off: u8,
}

/// A GetRxMsgInfo response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Resp {
    fail: bool,
    id: u16,
    new_msg: bool,
    new_pkt: bool,
    last_pkt: bool,
    ack_no: u16,
}

/// One frame for the data port.
#[derive(Clone, Debug)]
struct Frame {
    words: Vec<u64>,
    ip: u32,
    port: u16,
    txid: u16,
    len: u16,
    off: u8,
    id: u16,
    local_port: u16,
}

/// Payload byte `i` of a test message from `seed`.
fn byte(seed: u32, i: usize) -> u8 {
    (seed as usize)
        .wrapping_mul(131)
        .wrapping_add(i * 7 + (i >> 8)) as u8
}

/// The frame of packet `off` of a `len`-byte message with payload from `seed`.
fn frame(seed: u32, ip: u32, port: u16, txid: u16, len: u16, off: u8, id: u16) -> Frame {
    let start = off as usize * 1024;
    let end = (start + 1024).min(len as usize);
    let mut words: Vec<u64> = (0..HDR_WORDS).map(|w| 0xdead_0000 + w).collect();
    for chunk in (start..end).collect::<Vec<_>>().chunks(8) {
        let mut w = 0u64;
        for (k, &i) in chunk.iter().enumerate() {
            w |= (byte(seed, i) as u64) << (56 - 8 * k);
        }
        words.push(w);
    }
    Frame {
        words,
        ip,
        port,
        txid,
        len,
        off,
        id,
        local_port: 0x4000 | txid,
    }
}

/// The words a delivered message should carry.
fn expected_message(seed: u32, ip: u32, port: u16, len: u16) -> Vec<u64> {
    let mut out = vec![((ip as u64) << 32) | ((port as u64) << 16) | len as u64];
    for chunk in (0..len as usize).collect::<Vec<_>>().chunks(8) {
        let mut w = 0u64;
        for (k, &i) in chunk.iter().enumerate() {
            w |= (byte(seed, i) as u64) << (56 - 8 * k);
        }
        out.push(w);
    }
    out
}

/// Test bench: drives requests and frames from queues, records responses and output.
struct Tb {
    k: Kernel<R16>,
    reqs: VecDeque<Req>,
    frames: VecDeque<Frame>,
    frame_pos: usize,
    /// Output ready pattern: ready unless this returns false for the cycle.
    ready: fn(u64) -> bool,
    resps: Vec<(u64, Resp)>,
    /// `info_resp.done` of the last response.
    last_done: bool,
    accepted_reqs: Vec<u64>,
    out_words: Vec<(u64, u64, bool)>,
    sink_stalls: u64,
    last_beats: Vec<u64>,
    freed: Vec<(u64, u16, bool)>,
}

impl Tb {
    fn new(cfg: &ReassemblyConfig, timeout: u64) -> Self {
        let mut k = Kernel::with_clock(R16::new(cfg), |r| &mut r.clock).expect("kernel");
        k.uut_mut().cfg.timeout.next = timeout.into();
        k.uut_mut().cfg.conflict_idle.next = (timeout / 4).into();
        let mut tb = Tb {
            k,
            reqs: VecDeque::new(),
            frames: VecDeque::new(),
            frame_pos: 0,
            ready: |_| true,
            resps: vec![],
            last_done: false,
            accepted_reqs: vec![],
            out_words: vec![],
            sink_stalls: 0,
            last_beats: vec![],
            freed: vec![],
        };
        tb.k.uut_mut().reset.next = true;
        tb.cycle();
        tb.k.uut_mut().reset.next = false;
        tb
    }

    fn now(&self) -> u64 {
        self.k.cycle()
    }

    fn cycle(&mut self) {
        let now = self.k.cycle();
        let ready = (self.ready)(now);
        let u = self.k.uut_mut();
        u.now.next = now.into();
        u.source.ready.next = ready;
        let req = self.reqs.front().copied();
        u.info_req.valid.next = req.is_some();
        if let Some(r) = req {
            u.info_req.mark_received.next = r.mark;
            u.info_req.src_ip.next = (r.ip as u64).into();
            u.info_req.src_port.next = (r.port as u64).into();
            u.info_req.tx_msg_id.next = (r.txid as u64).into();
            u.info_req.msg_len.next = (r.len as u64).into();
            u.info_req.pkt_offset.next = (r.off as u64).into();
        }
        let beat = self.frames.front().map(|f| {
            (
                f.words[self.frame_pos],
                self.frame_pos + 1 == f.words.len(),
                f.clone(),
            )
        });
        u.sink.valid.next = beat.is_some();
        if let Some((w, last, f)) = &beat {
            u.sink.data.next = (*w).into();
            u.sink.last.next = *last;
            u.sink.remote_ip.next = (f.ip as u64).into();
            u.sink.remote_port.next = (f.port as u64).into();
            u.sink.msg_len.next = (f.len as u64).into();
            u.sink.pkt_offset.next = (f.off as u64).into();
            u.sink.local_port.next = (f.local_port as u64).into();
            u.sink.rx_msg_id.next = (f.id as u64).into();
            u.sink.tx_msg_id.next = (f.txid as u64).into();
        }
        self.k.settle().expect("settle");
        let u = self.k.uut();
        if req.is_some() && u.info_req.ready.val() {
            self.reqs.pop_front();
            self.accepted_reqs.push(now);
        }
        if u.info_resp.valid.val() {
            self.last_done = u.info_resp.done.val();
            self.resps.push((
                now,
                Resp {
                    fail: u.info_resp.fail.val(),
                    id: u.info_resp.rx_msg_id.val().index() as u16,
                    new_msg: u.info_resp.is_new_msg.val(),
                    new_pkt: u.info_resp.is_new_pkt.val(),
                    last_pkt: u.info_resp.is_last_pkt.val(),
                    ack_no: u.info_resp.ack_no.val().index() as u16,
                },
            ));
        }
        if let Some((_, last, _)) = beat {
            if u.sink.ready.val() {
                self.frame_pos += 1;
                if last {
                    self.frames.pop_front();
                    self.frame_pos = 0;
                    self.last_beats.push(now);
                }
            } else {
                self.sink_stalls += 1;
            }
        }
        if u.source.valid.val() && ready {
            self.out_words
                .push((now, u.source.data.val().to_u64(), u.source.last.val()));
        }
        if u.stat.freed_valid.val() {
            self.freed.push((
                now,
                u.stat.freed_id.val().index() as u16,
                u.stat.freed_timeout.val(),
            ));
        }
        self.k.tick().expect("tick");
    }

    fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.cycle();
        }
    }

    /// Issues one request and returns (acceptance cycle, response cycle, response).
    fn request(&mut self, r: Req) -> (u64, u64, Resp) {
        let before = self.resps.len();
        self.reqs.push_back(r);
        let mut n = 0;
        while self.resps.len() == before {
            self.cycle();
            n += 1;
            assert!(n < 50, "no response to {r:?}");
        }
        let acc = *self.accepted_reqs.last().expect("accepted");
        let (c, resp) = self.resps[before];
        (acc, c, resp)
    }

    /// Sends `f` and waits until its last beat is accepted; returns that cycle.
    fn send(&mut self, f: Frame) -> u64 {
        let before = self.last_beats.len();
        self.frames.push_back(f);
        let mut n = 0;
        while self.last_beats.len() == before {
            self.cycle();
            n += 1;
            assert!(n < 10_000, "frame not accepted");
        }
        self.last_beats[before]
    }

    /// Output messages split at `last`, with the cycle of their first word.
    fn messages(&self) -> Vec<(u64, Vec<u64>)> {
        let mut out = vec![];
        let mut cur: Option<(u64, Vec<u64>)> = None;
        for &(c, w, last) in &self.out_words {
            let m = cur.get_or_insert((c, vec![]));
            m.1.push(w);
            if last {
                out.push(cur.take().expect("message"));
            }
        }
        out
    }

    fn stat(&self) -> (u64, u64, u64, u64, u64, u64, u64, u64) {
        let s = &self.k.uut().stat;
        (
            s.delivered.val().to_u64(),
            s.duplicates.val().to_u64(),
            s.alloc_fail.val().to_u64(),
            s.timeouts.val().to_u64(),
            s.bad_req.val().to_u64(),
            s.bad_data.val().to_u64(),
            s.ids_free.val().to_u64(),
            s.bufs_free.val().to_u64(),
        )
    }
}

fn req(ip: u32, port: u16, txid: u16, len: u16, off: u8) -> Req {
    Req {
        mark: true,
        ip,
        port,
        txid,
        len,
        off,
    }
}

/// Long enough that no test message times out unless the test waits for it.
const TIMEOUT: u64 = 20_000;

#[test]
fn sixteen_byte_message_meets_the_budgets() {
    let mut tb = Tb::new(&ReassemblyConfig::n16(), TIMEOUT);
    tb.run(3);
    let (acc, at, r) = tb.request(req(0x0a00_0001, 7, 5, 16, 0));
    assert_eq!(at - acc, 2, "GetRxMsgInfo latency");
    assert_eq!(
        r,
        Resp {
            fail: false,
            id: 0,
            new_msg: true,
            new_pkt: true,
            last_pkt: true,
            ack_no: 1
        }
    );
    let last_in = tb.send(frame(1, 0x0a00_0001, 7, 5, 16, 0, r.id));
    tb.run(10);
    let msgs = tb.messages();
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].0 - last_in, 2, "last word in -> first word out");
    assert_eq!(msgs[0].1, expected_message(1, 0x0a00_0001, 7, 16));
    // Header and two payload words leave back to back.
    let cycles: Vec<u64> = tb.out_words.iter().map(|w| w.0).collect();
    assert_eq!(cycles, vec![msgs[0].0, msgs[0].0 + 1, msgs[0].0 + 2]);
    let (delivered, dups, af, to, br, bd, ids, bufs) = tb.stat();
    assert_eq!((delivered, dups, af, to, br, bd), (1, 0, 0, 0, 0, 0));
    assert_eq!((ids, bufs), (16, 24), "everything freed");
    assert_eq!(tb.freed.len(), 1);
}

/// Marks and sends packet `off` of a message; returns the response.
fn deliver_packet(
    tb: &mut Tb,
    seed: u32,
    ip: u32,
    port: u16,
    txid: u16,
    len: u16,
    off: u8,
) -> Resp {
    let (_, _, r) = tb.request(req(ip, port, txid, len, off));
    if !r.fail && r.new_pkt {
        tb.send(frame(seed, ip, port, txid, len, off, r.id));
    }
    r
}

#[test]
fn out_of_order_and_duplicate_packets_are_delivered_once_in_order() {
    let mut tb = Tb::new(&ReassemblyConfig::n16(), TIMEOUT);
    let (ip, port, txid, len) = (0x0a00_0002, 9, 77, 4 * 1024 + 300);
    let order = [3u8, 0, 4, 3, 1, 0, 2];
    let mut acks = vec![];
    for &off in &order {
        let r = deliver_packet(&mut tb, 3, ip, port, txid, len, off);
        acks.push((r.new_pkt, r.ack_no, r.last_pkt));
    }
    // ackNo: smallest missing offset after marking.
    assert_eq!(
        acks,
        vec![
            (true, 0, false),
            (true, 1, false),
            (true, 1, false),
            (false, 1, false),
            (true, 2, false),
            (false, 2, false),
            (true, 5, true)
        ]
    );
    tb.run(700);
    let msgs = tb.messages();
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].1, expected_message(3, ip, port, len));
    let (delivered, dups, _, _, _, _, ids, bufs) = tb.stat();
    assert_eq!((delivered, dups, ids, bufs), (1, 2, 16, 24));
    // A late duplicate after delivery is recognised: acknowledged in full, nothing
    // allocated, nothing delivered again.
    let r = deliver_packet(&mut tb, 3, ip, port, txid, len, 1);
    assert_eq!(
        r,
        Resp {
            fail: false,
            id: 0,
            new_msg: false,
            new_pkt: false,
            last_pkt: true,
            ack_no: 5
        }
    );
    assert!(tb.last_done, "late duplicate flagged done");
    tb.run(700);
    let (delivered, _, _, _, _, _, ids, bufs) = tb.stat();
    assert_eq!((delivered, ids, bufs), (1, 16, 24));
    assert_eq!(tb.k.uut().stat.late_dups.val().to_u64(), 1);
    assert_eq!(tb.messages().len(), 1);
    // An older generation of the same slot is late too; a newer one is a new message.
    let r = deliver_packet(&mut tb, 3, ip, port, txid.wrapping_sub(0x100), len, 0);
    assert!(!r.fail && !r.new_msg && tb.last_done);
    let r = deliver_packet(&mut tb, 3, ip, port, txid.wrapping_add(0x100), len, 0);
    assert!(!r.fail && r.new_msg && !tb.last_done);
    // After `timeout` cycles the entry has expired: the same key is a new message again,
    // which then times out.
    tb.run(TIMEOUT + 64);
    let r = deliver_packet(&mut tb, 3, ip, port, txid, len, 1);
    assert!(r.new_msg && r.new_pkt && !tb.last_done);
    tb.run(TIMEOUT + 64);
    let (delivered, _, _, timeouts, _, _, ids, bufs) = tb.stat();
    assert_eq!((delivered, timeouts, ids, bufs), (1, 2, 16, 24));
    assert_eq!(tb.messages().len(), 1);
}

#[test]
fn senders_with_equal_ids_never_alias() {
    let mut tb = Tb::new(&ReassemblyConfig::n16(), TIMEOUT);
    // 16 senders, all using tx_msg_id 1: 16 distinct messages.
    let mut ids = std::collections::BTreeSet::new();
    for s in 0..16u32 {
        let (_, _, r) = tb.request(req(0x0a00_0000 + s, 1000, 1, 2048, 0));
        assert!(!r.fail && r.new_msg, "sender {s}: {r:?}");
        ids.insert(r.id);
    }
    assert_eq!(ids.len(), 16);
    // A 17th message finds no id: fail, counted, nothing changes.
    let (_, _, r) = tb.request(req(0x0b00_0000, 1000, 1, 100, 0));
    assert!(r.fail);
    assert_eq!(tb.stat().2, 1, "alloc_fail");
    // Second packets complete each sender's own message.
    for s in 0..16u32 {
        let (_, _, r0) = tb.request(Req {
            mark: false,
            ..req(0x0a00_0000 + s, 1000, 1, 2048, 0)
        });
        assert!(
            !r0.new_msg && !r0.new_pkt,
            "read-only call sees the mark: sender {s} {r0:?}"
        );
        tb.send(frame(s, 0x0a00_0000 + s, 1000, 1, 2048, 0, r0.id));
        let r1 = deliver_packet(&mut tb, s, 0x0a00_0000 + s, 1000, 1, 2048, 1);
        assert!(r1.last_pkt && r1.id == r0.id);
    }
    tb.run(400);
    let msgs = tb.messages();
    assert_eq!(msgs.len(), 16);
    for (s, m) in msgs.iter().enumerate() {
        assert_eq!(
            m.1,
            expected_message(s as u32, 0x0a00_0000 + s as u32, 1000, 2048)
        );
    }
    assert_eq!(tb.stat().6, 16);
}

/// Streams `n` single-packet messages of `len` bytes at line rate, in the NIC's phases:
/// packet `k`'s request is presented a packet's wire time (8 header words and its
/// payload's) after packet `k-1`'s, as the ingress stage issues it with the parser's first
/// word, and its frame ([`HDR_WORDS`] words and the payload) starts 3 cycles after the
/// request, as the ingress stage passes it on. Asserts that every request is taken in the
/// cycle it is presented, that the input never stalls, that every message is delivered
/// intact and that each is delivered the same number of cycles after its request.
fn line_rate(len: u16, n: u32) {
    let mut tb = Tb::new(&ReassemblyConfig::n16(), TIMEOUT);
    let payload_words = (len as u64).div_ceil(8);
    let wire_words = 8 + payload_words;
    let key = |k: u32| (0x0a00_0100 + (k % 20), 4000u16, (k / 20) as u16);
    let t0 = tb.now() + 2;
    let req_at = |k: u32| t0 + k as u64 * wire_words;
    let mut issued = 0u32;
    let mut sent = 0u32;
    while sent < n {
        let now = tb.now();
        if issued < n && now == req_at(issued) {
            assert!(tb.reqs.is_empty(), "request {} not taken", issued - 1);
            let (ip, port, txid) = key(issued);
            tb.reqs.push_back(req(ip, port, txid, len, 0));
            issued += 1;
        }
        if now == req_at(sent) + 3 {
            let r = tb.resps[sent as usize].1;
            assert!(!r.fail, "message {sent}: {r:?}");
            let (ip, port, txid) = key(sent);
            tb.frames
                .push_back(frame(sent, ip, port, txid, len, 0, r.id));
            sent += 1;
        }
        tb.cycle();
    }
    tb.run(wire_words + 50);
    assert!(tb.frames.is_empty());
    for k in 0..n {
        assert_eq!(
            tb.accepted_reqs[k as usize],
            req_at(k),
            "request {k} taken when presented"
        );
    }
    assert_eq!(tb.sink_stalls, 0, "the input never stalls");
    let msgs = tb.messages();
    assert_eq!(msgs.len(), n as usize);
    let lag = msgs[0].0 - req_at(0);
    for (k, m) in msgs.iter().enumerate() {
        let (ip, port, _) = key(k as u32);
        assert_eq!(m.1, expected_message(k as u32, ip, port, len));
        assert_eq!(
            m.0 - req_at(k as u32),
            lag,
            "message {k}: request -> delivery"
        );
    }
    // The request at the parser's first word, the frame 3 cycles later, its last word
    // HDR_WORDS + payload - 1 after that, the app header 2 cycles later.
    assert_eq!(lag, 3 + HDR_WORDS + payload_words - 1 + 2);
    let s = tb.stat();
    assert_eq!((s.0, s.6, s.7), (n as u64, 16, 24));
}

#[test]
fn back_to_back_65_byte_packets_run_at_line_rate() {
    // 1-byte messages: 65-byte packets, 9 words each on the wire (the thesis' worst case).
    line_rate(1, 300);
}

#[test]
fn back_to_back_65_byte_messages_run_at_line_rate() {
    // 65-byte messages: 129-byte packets, 17 words each on the wire.
    line_rate(65, 200);
}

#[test]
fn smallest_fitting_class_then_larger_then_fail() {
    // Two small buffers, one large: a third small message takes the large buffer,
    // a fourth fails and is counted.
    let cfg = ReassemblyConfig::from_pairs(&[(512, 2), (38912, 1)]);
    let mut tb = Tb::new(&cfg, TIMEOUT);
    for t in 0..3u16 {
        let (_, _, r) = tb.request(req(1, 1, t, 100, 0));
        assert!(!r.fail && r.new_msg);
    }
    let u = tb.k.uut();
    assert_eq!(u.stat.bufs_free.val().to_u64(), 0);
    let (_, _, r) = tb.request(req(1, 1, 3, 100, 0));
    assert!(r.fail);
    let (_, _, r) = tb.request(req(1, 1, 4, 20_000, 3));
    assert!(r.fail);
    assert_eq!(tb.stat().2, 2, "alloc_fail");
    // Malformed requests: fail, counted apart, nothing allocated.
    for bad in [
        req(2, 2, 0, 0, 0),
        req(2, 2, 1, 38_913, 0),
        req(2, 2, 2, 1024, 1),
    ] {
        let (_, _, r) = tb.request(bad);
        assert!(r.fail, "{bad:?}");
    }
    let s = tb.stat();
    assert_eq!((s.2, s.4, s.6), (2, 3, 13));
    assert_eq!(tb.k.uut().stat.len_conflicts.val().to_u64(), 0);
}

#[test]
fn a_msg_len_conflict_fails_and_expires_only_an_idle_entry_so_the_real_message_gets_through() {
    // Issue 37 finding 6: a DATA frame with a message's key but another msg_len arrives
    // first (forged, or a stale entry of a sender that gave up and reused its id).
    // `cfg.conflict_idle` is TIMEOUT / 4 here.
    let mut tb = Tb::new(&ReassemblyConfig::n16(), TIMEOUT);
    let (_, _, r) = tb.request(req(1, 1, 0, 100, 0));
    assert!(!r.fail && r.new_msg, "the forged first packet allocates");
    // The real message's first packet conflicts at once: failed, counted apart, and the
    // entry stays (it could be a real message whose packets were acknowledged).
    let (_, _, r) = tb.request(req(1, 1, 0, 3000, 1));
    assert!(r.fail);
    assert_eq!(tb.k.uut().stat.len_conflicts.val().to_u64(), 1);
    tb.run(16 + 8);
    let s = tb.stat();
    assert_eq!((s.3, s.4), (0, 0), "no timeout, not malformed");
    // The real sender's retransmission after the entry has been idle for conflict_idle:
    // it fails too, and expires the entry at once instead of after the timeout.
    tb.run(TIMEOUT / 4);
    let (_, _, r) = tb.request(req(1, 1, 0, 3000, 1));
    assert!(r.fail);
    assert_eq!(tb.k.uut().stat.len_conflicts.val().to_u64(), 2);
    // The scanning timer frees it within N = 16 cycles (plus the pipeline).
    tb.run(16 + 8);
    let s = tb.stat();
    assert_eq!(
        s.3, 1,
        "freed by its timer, long before TIMEOUT = {TIMEOUT}"
    );
    assert_eq!(s.6, 16, "its id is free again");
    // The next retransmission allocates the real message.
    let (_, _, r) = tb.request(req(1, 1, 0, 3000, 1));
    assert!(!r.fail && r.new_msg);
    // A request with the stored length refreshes the entry as before: no conflict.
    let (_, _, r) = tb.request(req(1, 1, 0, 3000, 2));
    assert!(!r.fail && !r.new_msg);
    assert_eq!(tb.k.uut().stat.len_conflicts.val().to_u64(), 2);
    // Now a forged conflicting packet against the live message: failed, and the message
    // is untouched (its next packet is no new message, and nothing times out).
    tb.run(TIMEOUT / 8);
    let (_, _, r) = tb.request(req(1, 1, 0, 100, 0));
    assert!(r.fail);
    assert_eq!(tb.k.uut().stat.len_conflicts.val().to_u64(), 3);
    tb.run(16 + 8);
    let (_, _, r) = tb.request(req(1, 1, 0, 3000, 0));
    assert!(!r.fail && !r.new_msg);
    assert_eq!(tb.stat().3, 1, "no further timeout");
}

#[test]
fn timeout_frees_everything_and_activity_postpones_it() {
    let timeout = 400;
    let mut tb = Tb::new(&ReassemblyConfig::n16(), timeout);
    let (ip, port, len) = (0x0a00_0009, 5, 3000);
    let r = deliver_packet(&mut tb, 9, ip, port, 1, len, 0);
    assert!(r.new_msg);
    let t0 = tb.now();
    // Activity every 200 cycles keeps the message alive.
    for _ in 0..3 {
        tb.run(200);
        let (_, _, r) = tb.request(Req {
            mark: false,
            ..req(ip, port, 1, len, 1)
        });
        assert!(
            !r.new_msg && !r.fail,
            "{r:?} at {} freed {:?}",
            tb.now(),
            tb.freed
        );
    }
    assert!(tb.freed.is_empty(), "freed while active");
    let last_activity = tb.now();
    tb.run(timeout + 16 + 40);
    assert_eq!(tb.freed.len(), 1);
    let (at, id, by_timer) = tb.freed[0];
    assert!(by_timer && id == r.id);
    assert!(
        at > last_activity + timeout - 4,
        "not early: {at} vs {last_activity}"
    );
    assert!(at <= last_activity + timeout + 16 + 8, "not late: {at}");
    assert!(at > t0 + 600);
    let s = tb.stat();
    assert_eq!((s.0, s.3, s.6, s.7), (0, 1, 16, 24));
    // A packet after the timeout starts over.
    let r = deliver_packet(&mut tb, 9, ip, port, 1, len, 2);
    assert!(r.new_msg && r.ack_no == 0);
}

#[test]
fn malformed_frames_are_dropped_and_counted() {
    let mut tb = Tb::new(&ReassemblyConfig::n16(), TIMEOUT);
    let (ip, port, txid, len) = (0x0a00_0003, 3, 3, 2000);
    let (_, _, r0) = tb.request(req(ip, port, txid, len, 0));
    let good0 = frame(4, ip, port, txid, len, 0, r0.id);
    // Unknown id, wrong key, offset not marked, truncated, too long, too short for a
    // header: all dropped.
    let mut bad = vec![];
    bad.push(Frame {
        id: 9,
        ..good0.clone()
    });
    bad.push(Frame {
        id: 99,
        ..good0.clone()
    });
    bad.push(Frame {
        txid: 4,
        ..good0.clone()
    });
    bad.push(frame(4, ip, port, txid, len, 1, r0.id));
    let mut short = good0.clone();
    short.words.pop();
    bad.push(short);
    let mut long = good0.clone();
    long.words.push(0);
    bad.push(long);
    let mut tiny = good0.clone();
    tiny.words.truncate(2);
    bad.push(tiny);
    let n_bad = bad.len() as u64;
    for f in bad {
        tb.send(f);
    }
    tb.run(10);
    assert_eq!(tb.stat().5, n_bad, "bad_data");
    // The real packets still complete the message, byte for byte.
    tb.send(good0);
    let r1 = deliver_packet(&mut tb, 4, ip, port, txid, len, 1);
    assert!(r1.last_pkt);
    tb.run(400);
    let msgs = tb.messages();
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].1, expected_message(4, ip, port, len));
    assert_eq!(tb.stat().0, 1);
}

#[test]
fn output_backpressure_holds_messages_and_never_stalls_inputs() {
    let mut tb = Tb::new(&ReassemblyConfig::n16(), TIMEOUT);
    tb.ready = |c| c > 12_000 && c % 3 != 0;
    // 20 two-packet messages while the output is stalled: 16 complete and wait, the
    // other 4 fail allocation (no id is free), counted.
    let mut fails = 0;
    for t in 0..20u16 {
        let r = deliver_packet(&mut tb, t as u32, 7, 7, t, 1500, 0);
        if r.fail {
            fails += 1;
            continue;
        }
        deliver_packet(&mut tb, t as u32, 7, 7, t, 1500, 1);
    }
    assert_eq!(fails, 4);
    assert_eq!(tb.sink_stalls, 0);
    assert!(tb.now() < 12_000);
    assert_eq!(tb.k.uut().stat.deliv_pending.val().to_u64(), 15);
    tb.run(12_000 - tb.now() + 6000);
    let msgs = tb.messages();
    assert_eq!(msgs.len(), 16);
    for (t, m) in msgs.iter().enumerate() {
        assert_eq!(m.1, expected_message(t as u32, 7, 7, 1500));
    }
    let s = tb.stat();
    assert_eq!((s.0, s.2, s.6, s.7), (16, 4, 16, 24));
}

#[test]
fn bad_configurations_are_refused_with_a_reason() {
    let cases: &[(&[(u32, u32)], &str)] = &[
        (&[], "size classes given"),
        (
            &[(1, 1), (2, 1), (3, 1), (4, 1), (5, 1)],
            "size classes given",
        ),
        (&[(0, 1)], "must be 1..="),
        (&[(40_000, 1)], "must be 1..="),
        (&[(1024, 17)], "one per message id"),
        (&[(2048, 2), (1024, 2)], "strictly ascending"),
        (&[(38_912, 16), (38_913, 1)], "must be 1..="),
    ];
    for (pairs, want) in cases {
        let e = ReassemblyConfig::from_pairs(pairs)
            .validate(16, MAX_MSG_BYTES, 15)
            .expect_err("refused");
        assert!(e.contains(want), "{pairs:?}: {e}");
    }
    // 16 × 38 KiB does not fit 2^15 words.
    let e = ReassemblyConfig::from_pairs(&[(38_912, 16)])
        .validate(16, MAX_MSG_BYTES, 15)
        .expect_err("too big");
    assert!(e.contains("buffer words"), "{e}");
    assert!(ReassemblyConfig::n16()
        .validate(16, MAX_MSG_BYTES, 15)
        .is_ok());
    assert!(ReassemblyConfig::n128()
        .validate(128, MAX_MSG_BYTES, 17)
        .is_ok());
}

#[test]
#[should_panic(expected = "invalid reassembly configuration")]
fn building_with_a_bad_configuration_panics() {
    let _ = R16::new(&ReassemblyConfig::from_pairs(&[(38_912, 16)]));
}
