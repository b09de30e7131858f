//! Directed switch scenarios, each run on the rust-hdl switch with the golden model
//! compared every cycle: the latency on an idle port, line rate on every port at once
//! (minimum-size frames, permutation traffic), an N:1 incast that fills exactly the
//! destination's queue, and a 2:1 incast in trim mode that trims exactly the excess without
//! losing a header.
use nt_hdl::switch::{Switch, MODE_TRIM};
use nt_sim::kernel::Kernel;
use nt_sim::switch_workload::{
    apply_setup, drive_switch, port_ip, port_mac, read_switch, PortStats, SwitchSetup,
    SwitchWorkload, TrafficKnobs,
};
use nt_sim::wire::{
    from_words, ipv4_checksum, Frame, Layout, Transport, Word, FLAG_CHOP, FLAG_DATA, PROTO_NDP,
};
use nt_testbench::switch_model::SwitchModel;

/// A DATA frame of `bytes` (64..=1088) from port `src` to port `dst`, band `tos`.
fn data_frame(src: usize, dst: usize, bytes: usize, tos: u8, seq: u16) -> Vec<u8> {
    Frame {
        dst_mac: port_mac(dst),
        src_mac: port_mac(src),
        tos,
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

struct H<const N: usize, const NN: usize, const NB: usize, const NNB: usize, const NR: usize> {
    k: Kernel<Switch<N, NN, NB, NNB, NR>>,
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
}

impl<const N: usize, const NN: usize, const NB: usize, const NNB: usize, const NR: usize>
    H<N, NN, NB, NNB, NR>
{
    fn new(setup: &SwitchSetup) -> Self {
        let mut k = Kernel::new(Switch::<N, NN, NB, NNB, NR>::new()).unwrap();
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
}

type H4 = H<4, 16, 16, 64, 80>;
type H16 = H<16, 256, 64, 1024, 1088>;

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

/// Every port sends 65-byte frames back to back to port (i+1) mod N: no drops, and every
/// output sends a word in every cycle of the steady state.
fn line_rate<
    const N: usize,
    const NN: usize,
    const NB: usize,
    const NNB: usize,
    const NR: usize,
>(
    frames: usize,
) {
    let mut h = H::<N, NN, NB, NNB, NR>::new(&SwitchSetup::new(N));
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
    line_rate::<4, 16, 16, 64, 80>(200);
}

#[test]
fn line_rate_on_all_16_ports_with_min_size_permutation_traffic() {
    line_rate::<16, 256, 64, 1024, 1088>(40);
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
    s.mode = MODE_TRIM;
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
