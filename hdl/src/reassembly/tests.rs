//! Directed tests of the reassembly module: the latency budgets (GetRxMsgInfo in 2
//! cycles, last word in → app header out in 2), line rate with back-to-back 65-byte
//! packets, out-of-order and duplicate packets, allocation failure, timeouts, malformed
//! input and output backpressure.
use super::*;
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
        let mut tb = Tb {
            k,
            reqs: VecDeque::new(),
            frames: VecDeque::new(),
            frame_pos: 0,
            ready: |_| true,
            resps: vec![],
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

const TIMEOUT: u64 = 2000;

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
