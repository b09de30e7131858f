//! Directed switch scenarios, each run on the rust-hdl switch with the golden model
//! compared every cycle: the latency on an idle port (of whole frames and of trimmed and
//! returned headers), bands by the DSCP bits of `tos` (never by ECN), line rate on every
//! port at once (minimum-size frames, permutation traffic), an N:1 incast that fills
//! exactly the destination's queue, a 2:1 incast in trim mode that trims exactly the excess
//! without losing a header, and malformed frames (length disagreeing with the IPv4 length,
//! or short of the 64 header bytes) dropped and counted in every mode, never trimmed.
use nt_hdl::mode::SwitchMode;
use nt_hdl::switch::{Switch, BOLT_DATA, BOLT_DEC, BOLT_FIRST, BOLT_INC, BOLT_LAST, BOLT_SRC};
use nt_sim::kernel::Kernel;
use nt_sim::switch_workload::{
    apply_setup, drive_switch, port_ip, port_mac, read_switch, PortStats, SwitchSetup,
    SwitchWorkload, TrafficKnobs,
};
use nt_sim::wire::{
    from_words, ipv4_checksum, Frame, Layout, Transport, Word, BOLT_OFFSET, FLAG_CHOP, FLAG_DATA,
    PROTO_NDP,
};
use nt_testbench::switch_model::SwitchModel;

/// A DATA frame of `bytes` (64..=1088) from port `src` to port `dst`, in band `band` by
/// `tos` (its DSCP field: `tos = band << 2`, ECN bits 0).
pub(crate) fn data_frame(src: usize, dst: usize, bytes: usize, band: u8, seq: u16) -> Vec<u8> {
    Frame {
        dst_mac: port_mac(dst),
        src_mac: port_mac(src),
        tos: band << 2,
        ip_id: seq,
        ttl: 64,
        protocol: PROTO_NDP,
        src_ip: port_ip(src),
        dst_ip: port_ip(dst),
        t: Transport {
            flags: FLAG_DATA,
            src_port: 1000 + src as u16,
            dst_port: 2000 + dst as u16,
            msg_len: 40000,
            pkt_offset: seq as u8,
            tx_msg_id: seq,
            ..Default::default()
        },
        payload: (0..bytes - 64).map(|i| (i as u8) ^ (seq as u8)).collect(),
    }
    .encode(Layout::Ndp)
}

struct H<
    const N: usize,
    const NN: usize,
    const NB: usize,
    const NNB: usize,
    const NR: usize,
    const NP: usize,
> {
    k: Kernel<Switch<N, NN, NB, NNB, NR, NP>>,
    m: SwitchModel,
    w: SwitchWorkload,
    cur: Vec<Vec<Word>>,
    start: Vec<u64>,
    /// Frames out per port: (cycle of the first word, bytes).
    out: Vec<Vec<(u64, Vec<u8>)>>,
    /// Per port, the cycles in which a word left.
    busy: Vec<Vec<u64>>,
    /// TX ready per port (all ready unless changed).
    ready: Vec<bool>,
    /// Every port's counters, per cycle.
    trace: Vec<Vec<PortStats>>,
}

impl<
        const N: usize,
        const NN: usize,
        const NB: usize,
        const NNB: usize,
        const NR: usize,
        const NP: usize,
    > H<N, NN, NB, NNB, NR, NP>
{
    fn new(setup: &SwitchSetup) -> Self {
        let mut k = Kernel::new(Switch::<N, NN, NB, NNB, NR, NP>::new()).unwrap();
        apply_setup(k.uut_mut(), setup);
        H {
            k,
            m: SwitchModel::new(setup),
            w: SwitchWorkload::new(1, N, TrafficKnobs::default()),
            cur: vec![vec![]; N],
            start: vec![0; N],
            out: vec![vec![]; N],
            busy: vec![vec![]; N],
            ready: vec![true; N],
            trace: vec![],
        }
    }

    fn step(&mut self) {
        let t = self.k.cycle();
        let mut inp = self.w.next(false);
        for (p, x) in inp.iter_mut().enumerate() {
            x.tx_ready = self.ready[p];
        }
        drive_switch(self.k.uut_mut(), &inp);
        self.k.settle().unwrap();
        let got = read_switch(self.k.uut());
        let want = self.m.outputs();
        self.trace.push(got.iter().map(|g| g.stat).collect());
        for p in 0..N {
            assert_eq!(got[p], want[p], "cycle {t} port {p}: block vs model");
            if let (Some(x), true) = (got[p].tx, inp[p].tx_ready) {
                if self.cur[p].is_empty() {
                    self.start[p] = t;
                }
                self.busy[p].push(t);
                self.cur[p].push(x);
                if x.last {
                    let f = from_words(&std::mem::take(&mut self.cur[p]));
                    self.out[p].push((self.start[p], f));
                }
            }
        }
        self.m.step(&inp);
        self.k.tick().unwrap();
    }

    fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }

    fn stat(&self, p: usize) -> PortStats {
        read_switch(self.k.uut())[p].stat
    }

    /// Runs until every queued input word has entered and the switch is empty (at most
    /// `max` cycles); returns the cycles run.
    fn drain(&mut self, max: u64) -> u64 {
        let t0 = self.k.cycle();
        while !(self.w.drained() && self.m.idle()) {
            assert!(self.k.cycle() - t0 < max, "not empty after {max} cycles");
            self.step();
        }
        self.k.cycle() - t0
    }

    /// Every port's counters summed; asserts that they balance: every frame in plus every
    /// SRC generated is a frame out or one drop (call when the switch is empty).
    fn balanced(&self) -> PortStats {
        let mut t = PortStats::default();
        for p in 0..N {
            let s = self.stat(p);
            t.rx_frames += s.rx_frames;
            t.tx_frames += s.tx_frames;
            t.drop_malformed += s.drop_malformed;
            t.drop_no_route += s.drop_no_route;
            t.drop_full += s.drop_full;
            t.trimmed += s.trimmed;
            t.returned += s.returned;
            t.drop_header += s.drop_header;
            t.src_sent += s.src_sent;
            t.dod_trims += s.dod_trims;
            t.dod_drop += s.dod_drop;
        }
        assert_eq!(
            t.rx_frames + t.src_sent,
            t.tx_frames
                + t.drop_malformed
                + t.drop_no_route
                + t.drop_full
                + t.drop_header
                + t.dod_drop,
            "counters balance: {t:?}"
        );
        t
    }
}

type H4 = H<4, 16, 16, 64, 80, 20>;
type H16 = H<16, 256, 64, 1024, 1088, 272>;

/// First word in at cycle 0 on an idle switch → first word out at W + 6 (store and forward:
/// the last word is written at W + 4, the packet picked at W + 5).
#[test]
fn latency_on_an_idle_port_is_frame_words_plus_6_cycles() {
    for (bytes, words) in [(64usize, 8u64), (65, 9), (80, 10), (1088, 136)] {
        let mut h = H4::new(&SwitchSetup::new(4));
        let f = data_frame(1, 3, bytes, 0, 1);
        h.w.push_frame(1, &f);
        h.run(2 * words + 20);
        assert_eq!(h.out[3].len(), 1, "{bytes} B");
        assert_eq!(h.out[3][0].1, f);
        assert_eq!(
            h.out[3][0].0,
            words + 6,
            "{bytes} B: first word in at 0, out at"
        );
        println!(
            "latency {bytes} B ({words} words): first word in -> first word out {} cycles",
            h.out[3][0].0
        );
    }
}

/// A trimmed header leaves like a whole frame: it is complete when its frame's last word is
/// written (the length check), so on an idle port its first word is out at `W + 6` after
/// the frame's first word came in, whatever it holds; returned headers likewise, out of
/// the arrival port. (Before the length check held them, headers left at 14 whatever `W`:
/// the check costs `W - 8` cycles, 128 for a 1088-byte frame.)
#[test]
fn trimmed_and_returned_headers_leave_w_plus_6_cycles_after_their_frame_came_in() {
    for ret in [false, true] {
        for (bytes, words) in [(64usize, 8u64), (65, 9), (200, 25), (1088, 136)] {
            let mut s = SwitchSetup::new(4);
            s.mode = SwitchMode::Trim;
            s.ret = ret;
            // Band 1 takes nothing, so every DATA packet in it is trimmed; band 0 takes the
            // header, or nothing when it must be returned.
            s.limit_bytes = [if ret { 0 } else { 16_000 }, 0, 16_000, 16_000];
            let mut h = H4::new(&s);
            let f = data_frame(1, 3, bytes, 1, 1);
            h.w.push_frame(1, &f);
            h.drain(2 * words + 40);
            let port = if ret { 1 } else { 3 };
            assert_eq!(h.out[port].len(), 1, "{bytes} B ret {ret}");
            let (c, hdr) = &h.out[port][0];
            assert_eq!(hdr.len(), 64);
            assert_eq!(hdr[34], FLAG_DATA | FLAG_CHOP);
            assert_eq!(ipv4_checksum(&hdr[14..34]), 0);
            assert_eq!(
                *c,
                words + 6,
                "{bytes} B ret {ret}: first word in at 0, out at"
            );
            let st = h.stat(1);
            assert_eq!((st.trimmed, st.returned), (1, ret as u64));
            h.balanced();
        }
    }
}

/// Bands by `tos` are its DSCP field (bits 7:2), saturating at band 3; the ECN bits (1:0)
/// never move a packet: with output 3 stalled, 200-byte frames with every ECN value land in
/// `min(tos >> 2, 3)`; when it runs they leave by strict priority, unchanged (the switch
/// never rewrites `tos`).
#[test]
fn bands_by_tos_follow_the_dscp_bits_never_the_ecn_bits() {
    let mut h = H4::new(&SwitchSetup::new(4));
    h.ready[3] = false;
    let mut sent = vec![];
    for (k, tos) in [0x03u8, 0x0d, 0x02, 0x0a, 0xff, 0x01, 0x07, 0x10, 0x00, 0x0b]
        .into_iter()
        .enumerate()
    {
        let mut f = data_frame(1, 3, 200, 0, k as u16);
        f[15] = tos;
        f[24..26].copy_from_slice(&[0, 0]);
        let c = ipv4_checksum(&f[14..34]);
        f[24..26].copy_from_slice(&c.to_be_bytes());
        h.w.push_frame(1, &f);
        sent.push((((tos >> 2) as usize).min(3), f));
    }
    h.run(10 * 25 + 20);
    let mut want = [0u64; 4];
    for (b, _) in &sent {
        want[*b] += 200;
    }
    assert_eq!(want, [800, 200, 400, 600]);
    assert_eq!(h.stat(3).occ_bytes, want);
    h.ready[3] = true;
    h.drain(2000);
    // Strict priority, and in a band the order of arrival.
    sent.sort_by_key(|(b, _)| *b);
    let out: Vec<&Vec<u8>> = h.out[3].iter().map(|(_, f)| f).collect();
    let want: Vec<&Vec<u8>> = sent.iter().map(|(_, f)| f).collect();
    assert_eq!(out, want);
    h.balanced();
}

/// Rewrites a frame's IPv4 total length (and its checksum).
fn with_ip_len(mut f: Vec<u8>, ip_len: u16) -> Vec<u8> {
    f[16..18].copy_from_slice(&ip_len.to_be_bytes());
    f[24..26].copy_from_slice(&[0, 0]);
    let c = ipv4_checksum(&f[14..34]);
    f[24..26].copy_from_slice(&c.to_be_bytes());
    f
}

/// Issue 37 finding 3: DATA frames of band 1 from port 1 to port 3 whose length disagrees
/// with their IPv4 total length: longer (by many words, or by bytes of its last word),
/// shorter (by many words, or one), cut to 57..=63 bytes (short of the 64 header bytes a
/// trimmed header takes), or 64 bytes of an 1088-byte packet.
fn length_mismatches() -> Vec<(&'static str, Vec<u8>)> {
    let full = data_frame(1, 3, 1088, 1, 1);
    vec![
        (
            "1088 B, IPv4 says 500",
            with_ip_len(data_frame(1, 3, 1088, 1, 2), 486),
        ),
        (
            "504 B, IPv4 says 500",
            with_ip_len(data_frame(1, 3, 504, 1, 3), 486),
        ),
        ("500 B, IPv4 says 1088", full[..500].to_vec()),
        ("1080 B, IPv4 says 1088", full[..1080].to_vec()),
        ("57 B, IPv4 says 1088", full[..57].to_vec()),
        ("60 B, IPv4 says 1088", full[..60].to_vec()),
        ("63 B, IPv4 says 1088", full[..63].to_vec()),
        (
            "63 B, IPv4 says 64",
            data_frame(1, 3, 64, 1, 4)[..63].to_vec(),
        ),
        ("64 B, IPv4 says 1088", full[..64].to_vec()),
    ]
}

/// Where a well-formed DATA frame of band 1 from port 1 to port 3 goes in a setup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    /// Forwarded whole.
    Whole,
    /// Trimmed into band 0 (at ingress in Tofino mode).
    Trimmed,
    /// Trimmed and returned to port 1.
    Returned,
    /// Trimmed, and the header dropped for want of room (at word 4).
    HeaderDropped,
    /// Deflected, trimmed after recirculation.
    Deflected,
    /// Dropped at word 4: its band is full (drop-tail), or no route.
    Full,
    NoRoute,
}

/// The malformed frames of [`length_mismatches`] are dropped and counted in
/// `drop_malformed` in every mode and whatever a well-formed frame would have met (sent
/// whole, trimmed into band 0, returned, deflected to recirculation, its header dropped for
/// want of room, dropped for a full band or for want of a route): no output port sends a
/// byte of them, no header is made of them, no other counter counts them (`trimmed`,
/// `returned`, `dod_trims`, `drop_header`, `drop_full`, `drop_no_route` count only the
/// well-formed frame sent after them), every queue is empty after, and the counters balance. The length is
/// checked when the frame's last word (or the word past its IPv4 length) leaves the delay
/// line; a frame dropped at word 4 is counted under its reason only then, if its length
/// was right.
#[test]
fn frames_whose_length_disagrees_with_ipv4_are_dropped_as_malformed_in_every_mode() {
    let setups: Vec<(&str, SwitchSetup, Fate)> = {
        let base = SwitchSetup::new(4);
        let mut droptail = base.clone();
        droptail.mode = SwitchMode::DropTail;
        let mut full = droptail.clone();
        full.limit_bytes[1] = 0;
        let mut noroute = droptail.clone();
        noroute.routes[3].0 = false;
        let mut trim = base.clone();
        trim.mode = SwitchMode::Trim;
        trim.limit_bytes[1] = 0;
        let mut ret = trim.clone();
        ret.limit_bytes[0] = 0;
        ret.ret = true;
        let mut hdr = ret.clone();
        hdr.ret = false;
        let mut tofino_red = base.clone();
        tofino_red.mode = SwitchMode::TofinoTrim;
        tofino_red.meter_burst = 64;
        let mut tofino_dod = base.clone();
        tofino_dod.mode = SwitchMode::TofinoTrim;
        tofino_dod.limit_bytes[1] = 0;
        tofino_dod.meter_burst = (1 << 20) - 1;
        let mut bolt = base.clone();
        bolt.mode = SwitchMode::Bolt;
        bolt.cc_thresh = (1 << 20) - 1;
        vec![
            ("droptail", droptail, Fate::Whole),
            ("droptail, band full", full, Fate::Full),
            ("no route", noroute, Fate::NoRoute),
            ("trim", trim, Fate::Trimmed),
            ("trim, return to sender", ret, Fate::Returned),
            ("trim, header band full", hdr, Fate::HeaderDropped),
            ("tofino-trim, red meter", tofino_red, Fate::Trimmed),
            ("tofino-trim, deflected", tofino_dod, Fate::Deflected),
            ("bolt", bolt, Fate::Whole),
        ]
    };
    let bad = length_mismatches();
    let good = data_frame(1, 3, 1088, 1, 9);
    for (name, s, fate) in setups {
        let mut h = H4::new(&s);
        for (_, f) in &bad {
            h.w.push_frame(1, f);
            h.w.push_idle(1, 3);
        }
        h.w.push_frame(1, &good);
        h.drain(5000);
        let n = bad.len() as u64;
        let st = h.stat(1);
        let t = h.balanced();
        assert_eq!(st.drop_malformed, n, "{name}: {st:?}");
        assert_eq!(st.rx_frames, n + 1, "{name}");
        let want = |f: Fate| (fate == f) as u64;
        assert_eq!(
            (
                st.trimmed,
                st.returned,
                st.dod_trims,
                st.drop_header,
                st.drop_full,
                st.drop_no_route
            ),
            (
                want(Fate::Trimmed) + want(Fate::Returned),
                want(Fate::Returned),
                want(Fate::Deflected),
                want(Fate::HeaderDropped),
                want(Fate::Full),
                want(Fate::NoRoute),
            ),
            "{name}: only the well-formed frame counts there: {st:?}"
        );
        // Nothing of the malformed frames leaves any port; the good one leaves as its fate
        // says.
        let frames: Vec<(usize, &Vec<u8>)> = (0..4)
            .flat_map(|p| h.out[p].iter().map(move |(_, f)| (p, f)))
            .collect();
        let expect: Vec<(usize, usize)> = match fate {
            Fate::Whole => vec![(3, 1088)],
            Fate::Trimmed | Fate::Deflected => vec![(3, 64)],
            Fate::Returned => vec![(1, 64)],
            Fate::HeaderDropped | Fate::Full | Fate::NoRoute => vec![],
        };
        let got: Vec<(usize, usize)> = frames.iter().map(|(p, f)| (*p, f.len())).collect();
        assert_eq!(got, expect, "{name}: frames out (port, bytes)");
        for (_, f) in frames {
            assert_eq!(f[18..20], good[18..20], "{name}: IPv4 id of the good frame");
            if f.len() == 64 {
                assert_eq!(ipv4_checksum(&f[14..34]), 0);
            }
        }
        assert_eq!(t.tx_frames, expect.len() as u64, "{name}");
        for p in 0..4 {
            assert_eq!(h.stat(p).occ_bytes, [0; 4], "{name}: port {p}");
        }
        println!(
            "{name}: {n} length mismatches -> drop_malformed {}, the good frame -> {fate:?}",
            st.drop_malformed
        );
    }
}

/// Every port sends 65-byte frames back to back to port (i+1) mod N: no drops, and every
/// output sends a word in every cycle of the steady state.
fn line_rate<
    const N: usize,
    const NN: usize,
    const NB: usize,
    const NNB: usize,
    const NR: usize,
    const NP: usize,
>(
    frames: usize,
) {
    let mut h = H::<N, NN, NB, NNB, NR, NP>::new(&SwitchSetup::new(N));
    for i in 0..N {
        for s in 0..frames {
            h.w.push_frame(i, &data_frame(i, (i + 1) % N, 65, (s % 4) as u8, s as u16));
        }
    }
    let total = frames as u64 * 9;
    h.run(total + 40);
    // Steady state: from the first word out (cycle 15) to the last (15 + total - 1).
    for p in 0..N {
        assert_eq!(h.out[p].len(), frames, "port {p}: every frame out");
        let b = &h.busy[p];
        assert_eq!(b.len() as u64, total);
        assert_eq!(b[0], 15);
        assert_eq!(
            *b.last().unwrap(),
            15 + total - 1,
            "port {p}: one word per cycle, no bubble between frames"
        );
        let s = h.stat(p);
        assert_eq!(
            (
                s.drop_full,
                s.drop_malformed,
                s.trimmed,
                s.rx_frames,
                s.tx_frames
            ),
            (0, 0, 0, frames as u64, frames as u64),
            "port {p}"
        );
        for (k, (_, f)) in h.out[p].iter().enumerate() {
            let src = (p + N - 1) % N;
            assert_eq!(*f, data_frame(src, p, 65, (k % 4) as u8, k as u16));
        }
    }
    println!(
        "line rate, N={N}: {} frames of 65 B per port, {} words out per port in {} cycles (1 word/cycle)",
        frames, total, total
    );
}

#[test]
fn line_rate_on_all_4_ports_with_min_size_permutation_traffic() {
    line_rate::<4, 16, 16, 64, 80, 20>(200);
}

#[test]
fn line_rate_on_all_16_ports_with_min_size_permutation_traffic() {
    line_rate::<16, 256, 64, 1024, 1088, 272>(40);
}

/// Ports 1..N send 200-byte frames to port 0, whose link is stalled: band 1 of port 0
/// takes exactly `limit_bytes / 200` packets; everything else is dropped (`drop_full`),
/// no other queue holds anything; when the link runs, exactly those packets leave.
#[test]
fn n_to_1_incast_fills_exactly_the_destination_queue() {
    let mut s = SwitchSetup::new(16);
    s.limit_bytes = [16_000, 3000, 16_000, 16_000];
    let mut h = H16::new(&s);
    h.ready = vec![true; 16];
    h.ready[0] = false;
    let per = 4;
    for i in 1..16 {
        for k in 0..per {
            h.w.push_frame(i, &data_frame(i, 0, 200, 1, (i * 10 + k) as u16));
        }
    }
    h.run(per as u64 * 25 + 20);
    let admitted = 3000 / 200;
    assert_eq!(h.stat(0).occ_bytes, [0, admitted * 200, 0, 0]);
    for p in 1..16 {
        assert_eq!(h.stat(p).occ_bytes, [0; 4], "port {p} holds nothing");
    }
    let drops: u64 = (0..16).map(|p| h.stat(p).drop_full).sum();
    assert_eq!(drops, 15 * per as u64 - admitted);
    h.ready[0] = true;
    h.run(admitted * 25 + 20);
    assert_eq!(h.out[0].len() as u64, admitted);
    assert!((1..16).all(|p| h.out[p].is_empty()));
    assert_eq!(h.stat(0).occ_bytes, [0; 4]);
}

/// Ports 1 and 2 each send 12 full-size DATA frames back to back to port 0 (band 1): the
/// output drains one word per cycle, so about half of them cannot be queued and are trimmed
/// to headers that go ahead in band 0. Nothing is lost: every packet leaves whole or as its
/// header (CHOP set, valid checksum), and the full ones are exactly those the queue could
/// take.
#[test]
fn two_to_1_incast_trims_exactly_the_excess_and_loses_no_header() {
    let mut s = SwitchSetup::new(4);
    s.mode = SwitchMode::Trim;
    s.limit_bytes = [4096, 3 * 1088, 16_000, 16_000];
    let mut h = H4::new(&s);
    let per = 12;
    for i in [1, 2] {
        for k in 0..per {
            h.w.push_frame(i, &data_frame(i, 0, 1088, 1, (i * 100 + k) as u16));
        }
    }
    h.run(2 * per as u64 * 136 + 100);
    let out = &h.out[0];
    assert_eq!(out.len(), 2 * per, "every packet leaves, whole or trimmed");
    let full: Vec<_> = out.iter().filter(|(_, f)| f.len() == 1088).collect();
    let hdrs: Vec<_> = out.iter().filter(|(_, f)| f.len() == 64).collect();
    assert_eq!(full.len() + hdrs.len(), 2 * per);
    for (_, f) in &hdrs {
        assert_eq!(f[34], FLAG_DATA | FLAG_CHOP);
        assert_eq!(ipv4_checksum(&f[14..34]), 0);
    }
    let t1 = h.stat(1);
    let t2 = h.stat(2);
    assert_eq!(t1.trimmed + t2.trimmed, hdrs.len() as u64);
    assert_eq!(
        t1.drop_header + t2.drop_header + t1.returned + t2.returned,
        0
    );
    assert_eq!(t1.drop_full + t2.drop_full, 0);
    // The excess: 24 packets arrive over 12 frame times; the port sends 12 of them in that
    // time plus the queued ones (at most 3 per band limit, one per input region).
    assert!(
        (12..=15).contains(&full.len()),
        "full packets {} (trimmed {})",
        full.len(),
        hdrs.len()
    );
    println!(
        "2:1 incast of {} packets: {} forwarded whole, {} trimmed, 0 headers lost",
        2 * per,
        full.len(),
        hdrs.len()
    );
}

/// A Bolt DATA frame: `flags` (Listing 4.1; the data flag is added) and `t_data_tx` in the
/// Bolt bytes.
pub(crate) fn bolt_frame(
    src: usize,
    dst: usize,
    bytes: usize,
    flags: u8,
    t_data_tx: u32,
) -> Vec<u8> {
    let mut f = data_frame(src, dst, bytes, 1, t_data_tx as u16);
    let b = BOLT_OFFSET;
    f[b + 4] = BOLT_DATA | flags;
    f[b + 5..b + 9].copy_from_slice(&t_data_tx.to_be_bytes());
    f
}

/// A returned header answers from a unicast source MAC: a data packet sent to a group
/// (multicast) MAC gets an SRC whose source MAC is that MAC with its group bit cleared
/// (issue 37's fuzz finding: tshark flags a group source MAC); the data packet itself goes
/// on with its destination MAC unchanged.
#[test]
fn a_bolt_src_never_carries_a_group_source_mac() {
    let mut s = SwitchSetup::new(4);
    s.mode = SwitchMode::Bolt;
    s.cc_thresh = 0;
    let mut h = H4::new(&s);
    let mut f = bolt_frame(1, 3, 200, 0, 7);
    f[0] |= 1;
    let (dst_mac, src_mac) = (f[0..6].to_vec(), f[6..12].to_vec());
    h.w.push_frame(1, &f);
    h.run(200 / 4 + 40);
    assert_eq!(h.out[1].len(), 1, "one SRC");
    let src = &h.out[1][0].1;
    assert_eq!(bolt_flags(src), BOLT_SRC);
    assert_eq!(src[0..6], src_mac[..], "the SRC goes back to the sender");
    let mut unicast = dst_mac.clone();
    unicast[0] &= !1;
    assert_eq!(
        src[6..12],
        unicast[..],
        "from the old destination, group bit cleared"
    );
    assert_eq!(h.out[3].len(), 1, "the data packet is forwarded");
    assert_eq!(h.out[3][0].1[0..6], dst_mac[..]);
}

/// Checks that `f` is the SRC for data frame `orig`: 64 bytes, the SRC flag, transport
/// flags 0, q_size `q`, `link_rate`, a valid IPv4 checksum, MACs, IPs and contexts swapped.
/// One data packet's Bolt decision (Algorithm 7, lines 4-10) against what left: at or
/// above `cc_thresh` without DEC, exactly one SRC (`srcs`, checked against the packet) and
/// the packet out with DEC set and INC cleared; else no SRC, and a packet at or above the
/// threshold that had DEC already out unchanged. Returns whether it drew its SRC.
pub(crate) fn check_src_decision<F: AsRef<[u8]>>(
    srcs: &[F],
    data_out: &[u8],
    i: usize,
    flags: u8,
    tx: u32,
    q: u64,
    cc_thresh: u64,
) -> bool {
    if q >= cc_thresh && flags & BOLT_DEC == 0 {
        assert_eq!(srcs.len(), 1, "packet {tx:#x} (q {q}): one SRC");
        check_src(srcs[0].as_ref(), &bolt_frame(i, 3, 200, flags, tx), q, 200);
        assert_eq!(
            bolt_flags(data_out),
            BOLT_DATA | BOLT_DEC,
            "DEC set, INC cleared"
        );
        true
    } else {
        assert!(
            srcs.is_empty(),
            "packet {tx:#x} (q {q}, flags {flags:#x}): no SRC"
        );
        if q >= cc_thresh {
            assert_eq!(
                bolt_flags(data_out),
                BOLT_DATA | flags,
                "already DEC: unchanged"
            );
        }
        false
    }
}

pub(crate) fn check_src(f: &[u8], orig: &[u8], q: u64, link_rate: u8) {
    assert_eq!(f.len(), 64);
    assert_eq!(bolt_flags(f), BOLT_SRC);
    assert_eq!(f[34], 0, "transport flags of an SRC");
    let qs = u32::from_be_bytes([0, f[BOLT_OFFSET], f[BOLT_OFFSET + 1], f[BOLT_OFFSET + 2]]);
    assert_eq!(qs as u64, q, "q_size of an SRC");
    assert_eq!(f[BOLT_OFFSET + 3], link_rate, "link rate");
    assert_eq!(ipv4_checksum(&f[14..34]), 0);
    assert_eq!(f[0..6], orig[6..12], "MACs swapped");
    assert_eq!(f[6..12], orig[0..6]);
    assert_eq!(f[26..30], orig[30..34], "IPs swapped");
    assert_eq!(f[30..34], orig[26..30]);
    assert_eq!(f[35..37], orig[37..39], "contexts swapped");
    assert_eq!(f[37..39], orig[35..37]);
}

pub(crate) fn bolt_flags(f: &[u8]) -> u8 {
    f[BOLT_OFFSET + 4]
}

pub(crate) fn t_data_tx(f: &[u8]) -> u32 {
    u32::from_be_bytes(f[BOLT_OFFSET + 5..BOLT_OFFSET + 9].try_into().unwrap())
}

/// Bolt SRC generation (Algorithm 7, lines 4-10): ports 0 and 1 each send 18 200-byte
/// data packets to port 3 (a 2:1 incast, word 4 of the two inputs 4 cycles apart, so the
/// queue each packet finds is port 3's occupancy in that cycle); every third packet
/// already carries DEC. Exactly the packets that find >= CC_THRESH bytes queued and have no
/// DEC get one SRC each, back out of the port they came in on, carrying the queue size,
/// the link rate and their t_data_tx, addresses swapped, with a valid checksum; those data
/// packets leave with DEC set and INC cleared, all others unchanged.
#[test]
fn bolt_sends_one_src_per_data_packet_at_or_above_threshold_without_dec() {
    let mut s = SwitchSetup::new(4);
    s.mode = SwitchMode::Bolt;
    s.cc_thresh = 2000;
    s.link_rate = 200;
    s.limit_bytes = [16_000, 12_000, 16_000, 16_000];
    let mut h = H4::new(&s);
    let per = 18u32;
    h.w.push_idle(1, 4);
    // (port, t_data_tx) -> (flags, cycle of word 4)
    let mut sent = std::collections::BTreeMap::new();
    for k in 0..per {
        for i in [0usize, 1] {
            let tx = (i as u32) << 16 | k;
            let flags = if k % 3 == 2 {
                BOLT_DEC | BOLT_INC
            } else {
                BOLT_INC
            };
            h.w.push_frame(i, &bolt_frame(i, 3, 200, flags, tx));
            let w4 = 4 * i as u64 + 25 * k as u64 + 4;
            sent.insert(tx, (i, flags, w4));
        }
    }
    h.run(per as u64 * 25 * 2 + 200);
    let mut expect_src = 0;
    let (mut above, mut below, mut above_dec) = (0, 0, 0);
    let data_out: std::collections::BTreeMap<u32, Vec<u8>> = h.out[3]
        .iter()
        .map(|(_, f)| (t_data_tx(f), f.clone()))
        .collect();
    for (&tx, &(i, flags, w4)) in &sent {
        let q: u64 = h.trace[w4 as usize][3].occ_bytes.iter().sum();
        let src_due = q >= s.cc_thresh && flags & BOLT_DEC == 0;
        let srcs: Vec<&Vec<u8>> = h.out[i]
            .iter()
            .map(|(_, f)| f)
            .filter(|f| t_data_tx(f) == tx)
            .collect();
        match (q >= s.cc_thresh, flags & BOLT_DEC != 0) {
            (true, false) => above += 1,
            (true, true) => above_dec += 1,
            _ => below += 1,
        }
        let d = data_out.get(&tx).expect("every data packet leaves");
        expect_src += u64::from(check_src_decision(&srcs, d, i, flags, tx, q, s.cc_thresh));
        assert_eq!(src_due, srcs.len() == 1);
    }
    let sent_src: u64 = (0..4).map(|p| h.stat(p).src_sent).sum();
    assert_eq!(sent_src, expect_src);
    assert_eq!((0..4).map(|p| h.stat(p).src_drop).sum::<u64>(), 0);
    assert!(
        above > 10 && below > 2 && above_dec > 5,
        "{above} {below} {above_dec}"
    );
    println!(
        "Bolt SRC: {} data packets; {above} at/above CC_THRESH without DEC -> {expect_src} SRCs; {above_dec} at/above with DEC and {below} below -> none",
        2 * per
    );
}

/// PRU and SM tokens step by step (Algorithms 7 and 9) on one output: packets from port 0
/// to port 2 at chosen cycles with chosen flags, the queue never at CC_THRESH. After each
/// packet's word 6 (its decision) the port's supply token and PRU tokens, and the INC flag
/// it leaves with, are the values worked out by hand below (8 bytes of supply per cycle,
/// MTU 1088, PRU cap 2).
#[test]
fn bolt_pru_and_sm_tokens_follow_algorithms_7_and_9_step_by_step() {
    bolt_token_steps(true, &BOLT_STEPS);
}

/// The token steps with supply matching on: `(start cycle, bytes, flags, sm after, pru
/// after, INC out)`, worked out by hand (8 bytes of supply per cycle, MTU 1088, PRU cap 2).
#[rustfmt::skip]
pub(crate) const BOLT_STEPS: [BoltStep; 12] = [
    // elapsed 6: 0 + 48 - 1088; LAST with FIRST: no PRU token
    (0, 1088, BOLT_LAST | BOLT_FIRST, -1040, 0, false),
    // elapsed 300: -1040 + 2400 - 1088; LAST without FIRST: +1
    (300, 1088, BOLT_LAST, 272, 1, false),
    // elapsed 136: 272 + 1088 - 64 capped at the MTU
    (436, 64, BOLT_LAST, 1088, 2, false),
    // +64 - 64; PRU at its cap
    (444, 64, BOLT_LAST, 1088, 2, false),
    // INC: a PRU token is consumed, INC kept
    (452, 64, BOLT_INC, 1088, 1, true),
    (460, 64, BOLT_INC, 1088, 0, true),
    // INC, no PRU token, SM >= MTU: an SM token is consumed, INC kept
    (468, 64, BOLT_INC, 0, 0, true),
    // INC, no token of either kind: INC cleared
    (476, 64, BOLT_INC, 0, 0, false),
    // idle: elapsed 1524, 0 + 12192 - 64 capped at 1088; INC takes an SM token
    (2000, 64, BOLT_INC, 0, 0, true),
    // elapsed 8: 0 + 64 - 64 = 0 < MTU: INC cleared
    (2008, 64, BOLT_INC, 0, 0, false),
    // no flag: the token only accrues
    (2016, 64, 0, 0, 0, false),
    // LAST before INC (else-if): FIRST set, so nothing; SM capped at MTU
    (4000, 1088, BOLT_LAST | BOLT_FIRST | BOLT_INC, 1088, 0, true),
];

/// The same packets with supply matching off (`cfg.sm_off`): PRU tokens are spent as
/// before, but an INC that finds none is cleared although the supply token is at the MTU,
/// and the token, still kept up to date, is never spent.
#[test]
fn bolt_with_sm_off_keeps_inc_only_for_pru_tokens() {
    bolt_token_steps(false, &BOLT_STEPS_SM_OFF);
}

/// The same packets with supply matching off.
#[rustfmt::skip]
pub(crate) const BOLT_STEPS_SM_OFF: [BoltStep; 12] = [
    (0, 1088, BOLT_LAST | BOLT_FIRST, -1040, 0, false),
    (300, 1088, BOLT_LAST, 272, 1, false),
    (436, 64, BOLT_LAST, 1088, 2, false),
    (444, 64, BOLT_LAST, 1088, 2, false),
    // PRU tokens: INC kept
    (452, 64, BOLT_INC, 1088, 1, true),
    (460, 64, BOLT_INC, 1088, 0, true),
    // no PRU token, SM at the MTU but off: INC cleared, the token kept
    (468, 64, BOLT_INC, 1088, 0, false),
    (476, 64, BOLT_INC, 1088, 0, false),
    (2000, 64, BOLT_INC, 1088, 0, false),
    (2008, 64, BOLT_INC, 1088, 0, false),
    (2016, 64, 0, 1088, 0, false),
    // LAST (else-if) leaves INC alone
    (4000, 1088, BOLT_LAST | BOLT_FIRST | BOLT_INC, 1088, 0, true),
];

/// `(start cycle, bytes, flags, sm after, pru after, INC out)`.
pub(crate) type BoltStep = (u64, usize, u8, i64, u64, bool);

/// Sends `steps` from port 0 to port 2 of a Bolt switch (PRU cap 2, supply matching `sm`)
/// and checks each packet's tokens after its word 6 and its INC flag out.
fn bolt_token_steps(sm: bool, steps: &[BoltStep]) {
    let mut s = SwitchSetup::new(4);
    s.mode = SwitchMode::Bolt;
    s.cc_thresh = 1_000_000;
    s.pru_cap = 2;
    s.sm = sm;
    let mut h = H4::new(&s);
    let mut t = 0;
    for (k, &(start, bytes, flags, ..)) in steps.iter().enumerate() {
        h.w.push_idle(0, (start - t) as usize);
        h.w.push_frame(0, &bolt_frame(0, 2, bytes, flags, k as u32));
        t = start + bytes.div_ceil(8) as u64;
    }
    h.run(t + 200);
    for (k, &(start, _, _, sm, pru, inc)) in steps.iter().enumerate() {
        let after = &h.trace[start as usize + 7][2];
        assert_eq!(
            (after.sm, after.pru),
            (sm, pru),
            "step {k}: (SM, PRU) after word 6"
        );
        let (_, f) = h.out[2]
            .iter()
            .find(|(_, f)| t_data_tx(f) == k as u32)
            .expect("every packet leaves");
        assert_eq!(bolt_flags(f) & BOLT_INC != 0, inc, "step {k}: INC out");
        assert_eq!(bolt_flags(f) & BOLT_DEC, 0);
    }
    assert_eq!((0..4).map(|p| h.stat(p).src_sent).sum::<u64>(), 0);
}

/// An SRC's latency: a data packet whose first word enters at cycle 0 makes an SRC that is
/// complete when the packet's word 7 is written (cycle 12) and leaves the idle arrival port
/// from cycle 14, whatever the packet's size; the data packet itself keeps its `W + 6`.
#[test]
fn bolt_src_leaves_the_arrival_port_14_cycles_after_the_data_packet_entered() {
    for bytes in [64usize, 200, 1088] {
        let mut s = SwitchSetup::new(4);
        s.mode = SwitchMode::Bolt;
        s.cc_thresh = 0;
        let mut h = H4::new(&s);
        h.w.push_frame(1, &bolt_frame(1, 3, bytes, 0, 7));
        h.run(bytes as u64 / 4 + 40);
        assert_eq!(h.out[1].len(), 1, "{bytes} B: one SRC");
        assert_eq!(h.out[1][0].0, 14, "{bytes} B: SRC first word out");
        assert_eq!(bolt_flags(&h.out[1][0].1), BOLT_SRC);
        assert_eq!(
            h.out[3].len(),
            1,
            "{bytes} B: {:?} {:?} {:?}",
            h.stat(1),
            h.stat(3),
            h.out.iter().map(|o| o.len()).collect::<Vec<_>>()
        );
        assert_eq!(h.out[3][0].0, bytes.div_ceil(8) as u64 + 6);
        assert_eq!(bolt_flags(&h.out[3][0].1), BOLT_DATA | BOLT_DEC);
    }
}

/// Paper 002's worst case for Tofino-style trimming (§3, §6.1 Fig. 5c), on the 16-port
/// switch with 4 pipes of 4 ports (pipe = port / 4): four parallel 4:1 incasts, each with one
/// sender in every pipe (inputs k, 4+k, 8+k, 12+k send 1088-byte DATA frames back to back
/// to port (k+1) mod 4). Every pipe's optimistic meter sees exactly one line rate per
/// output, so nothing is trimmed at ingress, each output gets 4 line rates and 3/4 of the
/// packets overflow its queue: every pipe deflects 3 line rates into a recirculation port
/// that drains 1. Returns, per pipe, the most records its DoD queues held, the occupancy
/// trace of pipe 0 every 500 cycles, and the counters summed over ports.
fn parallel_incasts(t0: u64, t1: u64, cycles: u64) -> (Vec<u64>, Vec<u64>, PortStats, usize) {
    let mut s = SwitchSetup::new(16);
    s.mode = SwitchMode::TofinoTrim;
    s.pipes = 4;
    s.t0 = t0;
    s.t1 = t1;
    s.limit_bytes = [16_000, 8 * 1088, 16_000, 16_000];
    s.meter_burst = 8 * 1088;
    let mut h = H16::new(&s);
    let per = (cycles / 136) as usize;
    for k in 0..4 {
        for pipe in 0..4 {
            let i = 4 * pipe + k;
            for q in 0..per {
                h.w.push_frame(i, &data_frame(i, (k + 1) % 4, 1088, 1, q as u16));
            }
        }
    }
    let mut most = vec![0u64; 4];
    let mut trace = vec![];
    for c in 0..cycles + 3000 {
        h.step();
        let st = h.trace.last().unwrap();
        for (pipe, m) in most.iter_mut().enumerate() {
            let q: u64 = (0..4).map(|j| st[4 * pipe + j].dod_q).sum();
            *m = (*m).max(q);
            if pipe == 0 && c % 500 == 0 {
                trace.push(q);
            }
        }
    }
    let mut sum = PortStats::default();
    for p in 0..16 {
        let x = h.stat(p);
        sum.rx_frames += x.rx_frames;
        sum.trimmed += x.trimmed;
        sum.dod_trims += x.dod_trims;
        sum.dod_drop += x.dod_drop;
        sum.drop_full += x.drop_full;
        sum.drop_header += x.drop_header;
        sum.dod_q += x.dod_q;
    }
    let out: usize = (0..4).map(|p| h.out[p].len()).sum();
    (most, trace, sum, out)
}

#[test]
fn tofino_parallel_incasts_keep_recirculation_bounded_with_the_control_loop_only() {
    let cycles = 8000;
    // Control loop off (T0 = T1 = 0): the pipes stay optimistic, the recirculation queues
    // grow by about 2 records per frame time per pipe until every DoD queue is full (16
    // records per input, 64 per pipe), and deflected packets are then lost.
    let (most, trace, off, out_off) = parallel_incasts(0, 0, cycles);
    println!(
        "loop off: most records per pipe {most:?}, pipe 0 every 500 cycles {trace:?}, {off:?}"
    );
    assert!(
        most.iter().all(|&m| m == 64),
        "every pipe's DoD queues fill: {most:?}"
    );
    assert!(off.dod_drop > 0 && off.trimmed == 0, "{off:?}");
    // The 512-word regions absorb each input's first three packets, so deflection starts
    // a little later; then about 2 records per frame time (136 cycles) join.
    assert!(trace[9] >= 50, "2 records per frame time: {trace:?}");
    assert!(
        trace[9] - trace[2] >= 2 * 3500 / 136 - 8,
        "2 records per frame time: {trace:?}"
    );
    let rising = trace
        .windows(2)
        .take_while(|w| w[1] < 62)
        .all(|w| w[1] > w[0] || w[0] == 0);
    assert!(
        rising,
        "the queue only grows until (nearly) full: {trace:?}"
    );
    // Control loop on (T0 = T1 = 2000 cycles): each header out of recirculation makes every
    // pipe pessimistic for its port (25 % each, 100 % together), so nothing is lost: every
    // packet leaves whole or trimmed.
    let (most, trace, on, out_on) = parallel_incasts(2000, 2000, cycles);
    println!("loop on: most records per pipe {most:?}, pipe 0 every 500 cycles {trace:?}, {on:?}");
    // It peaks at 15 to 28 records per pipe (under half the 64 a pipe holds) while the four
    // ports' first signals come out of recirculation one by one, then drains while the
    // incast goes on: empty (at most one record) over the incast's last 2000 cycles.
    assert!(most.iter().all(|&m| m <= 32), "bounded: {most:?}");
    assert!(
        trace[12..=16].iter().all(|&q| q <= 1),
        "drained while the incast goes on: {trace:?}"
    );
    assert_eq!(
        (on.dod_drop, on.drop_full, on.drop_header),
        (0, 0, 0),
        "{on:?}"
    );
    assert!(on.trimmed > 0 && on.dod_trims > 0, "{on:?}");
    assert_eq!(on.dod_q, 0, "recirculation drained");
    assert_eq!(
        out_on as u64, on.rx_frames,
        "every packet leaves, whole or trimmed"
    );
    assert!(out_off < out_on);
}
