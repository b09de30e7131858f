//! Seeded traffic for the [`Switch`]: per port, frames of 64 to 1088 bytes (NDP and Homa
//! DATA, CHOP, ACK/NACK/PULL packets, other IP protocols, a random `tos`: DSCP 0..=5, the
//! switch's band by `tos` saturating at 3, and random ECN bits, which must not change it)
//! to random destinations with a configurable hot spot (so queues fill, packets are
//! trimmed, returned and dropped), malformed frames (too short, not IPv4, a bad IHL, an
//! IPv4 length out of range or disagreeing with the frame: longer, shorter, or cut to
//! 57-63 bytes, short of the 64 header bytes; a gap among the header words), unrouted
//! destinations, idle gaps between frames, gaps inside frames after the header, and TX
//! backpressure per port. [`drive_switch`] / [`read_switch`] move one cycle's port values
//! in and out for the golden model (`nt_testbench::switch_model`).
use crate::wire::{
    to_words, Frame, Layout, Transport, Word, FLAG_ACK, FLAG_CHOP, FLAG_DATA, FLAG_NACK,
    FLAG_PULL_GRANT, PROTO_HOMA, PROTO_NDP,
};
pub use nt_hdl::mode::SwitchMode;
use nt_hdl::switch::{Switch, BANDS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// A port's IPv4 address in the default table (10.0.0.1 + port).
pub fn port_ip(port: usize) -> u32 {
    0x0a00_0001 + port as u32
}

/// A port's MAC address in generated traffic.
pub fn port_mac(port: usize) -> u64 {
    0x0200_0000_0100 + port as u64
}

/// The default pessimistic and half-pessimistic periods: 6 µs at 3.2 GHz (paper 002 §4).
pub const TOFINO_T_DEFAULT: u64 = 19_200;

/// The switch's configuration inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchSetup {
    pub ports: usize,
    /// The mode (the crosspoint switch's `cfg.mode` is its [`SwitchMode::cfg`]).
    pub mode: SwitchMode,
    pub band_by_flags: bool,
    pub wrr: bool,
    pub ret: bool,
    pub limit_bytes: [u64; BANDS],
    pub limit_pkts: [u64; BANDS],
    pub weight: [u64; BANDS],
    /// Forwarding table, one entry per port index: (valid, ip, port).
    pub routes: Vec<(bool, u32, u64)>,
    /// Bolt: CC_THRESH (bytes queued at the output port), MTU (bytes), PRU token cap, and
    /// the link rate stamped into SRC packets.
    pub cc_thresh: u64,
    pub mtu: u64,
    pub pru_cap: u64,
    pub link_rate: u64,
    /// Bolt: supply matching on (`cfg.sm_off` low; the default). Off, an INC that finds
    /// no PRU token is cleared whatever the supply token holds.
    pub sm: bool,
    /// Tofino-style trimming: ingress pipes (1..=4), the pessimistic and half-pessimistic
    /// periods in cycles, and the meters' burst (their virtual queue) in bytes.
    pub pipes: u64,
    pub t0: u64,
    pub t1: u64,
    pub meter_burst: u64,
    /// The shared switch only: per output, all bands, the limits whole frames keep to
    /// (None: no limit), and band 0's limits for trimmed and returned headers (None: band
    /// 0's own).
    pub port_bytes: Option<u64>,
    pub port_pkts: Option<u64>,
    pub hdr_bytes: Option<u64>,
    pub hdr_pkts: Option<u64>,
    /// The shared switch only: the dynamic threshold's exponent `a` for every band (a band
    /// may hold `2^(a - 4)` times the free buffer, Choudhury and Hahne), or None: off.
    pub dt_a: Option<u8>,
}

impl SwitchSetup {
    /// `ports` ports, drop-tail, bands by `tos`, strict priority, generous limits, and the
    /// table `port_ip(k) -> k`.
    pub fn new(ports: usize) -> Self {
        SwitchSetup {
            ports,
            mode: SwitchMode::DropTail,
            band_by_flags: false,
            wrr: false,
            ret: false,
            limit_bytes: [16 * 1024; BANDS],
            limit_pkts: [64; BANDS],
            weight: [1; BANDS],
            routes: (0..ports).map(|k| (true, port_ip(k), k as u64)).collect(),
            cc_thresh: 1088,
            mtu: 1088,
            pru_cap: 255,
            link_rate: 200,
            sm: true,
            pipes: 4,
            t0: TOFINO_T_DEFAULT,
            t1: TOFINO_T_DEFAULT,
            meter_burst: 16 * 1024,
            port_bytes: None,
            port_pkts: None,
            hdr_bytes: None,
            hdr_pkts: None,
            dt_a: None,
        }
    }
}

/// One cycle's inputs of one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortIn {
    pub rx: Option<Word>,
    pub tx_ready: bool,
}

/// One port's counters and output occupancy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortStats {
    pub rx_frames: u64,
    pub tx_frames: u64,
    pub drop_malformed: u64,
    pub drop_no_route: u64,
    pub drop_full: u64,
    pub trimmed: u64,
    pub returned: u64,
    pub drop_header: u64,
    pub occ_bytes: [u64; BANDS],
    /// Bolt: SRCs generated for data arriving on this port, and SRCs lost for want of room
    /// in this port's return queue.
    pub src_sent: u64,
    pub src_drop: u64,
    /// Bolt: this output port's PRU tokens and supply token (bytes).
    pub pru: u64,
    pub sm: i64,
    /// Tofino-style trimming: headers trimmed in the recirculation path (deflected packets
    /// that arrived on this port), deflections lost for want of room, this port's
    /// deflected packets waiting or in recirculation, and this output port's mode
    /// (0 optimistic, 1 half-pessimistic, 2 pessimistic).
    pub dod_trims: u64,
    pub dod_drop: u64,
    pub dod_q: u64,
    pub tmode: u64,
}

/// One cycle's outputs of one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortOut {
    pub rx_ready: bool,
    /// `tx` when valid.
    pub tx: Option<Word>,
    pub stat: PortStats,
}

/// Sets the configuration inputs.
pub fn apply_setup<
    const N: usize,
    const NN: usize,
    const NB: usize,
    const NNB: usize,
    const NR: usize,
    const NP: usize,
>(
    u: &mut Switch<N, NN, NB, NNB, NR, NP>,
    s: &SwitchSetup,
) {
    assert_eq!(
        s.ports, N,
        "setup for {} ports on a {N}-port switch",
        s.ports
    );
    u.cfg.mode.next = s.mode.cfg().into();
    u.cfg.band_by_flags.next = s.band_by_flags;
    u.cfg.wrr.next = s.wrr;
    u.cfg.ret.next = s.ret;
    u.cfg.cc_thresh.next = s.cc_thresh.into();
    u.cfg.mtu.next = s.mtu.into();
    u.cfg.pru_cap.next = s.pru_cap.into();
    u.cfg.link_rate.next = s.link_rate.into();
    u.cfg.sm_off.next = !s.sm;
    u.cfg.pipes.next = s.pipes.into();
    u.cfg.t0.next = s.t0.into();
    u.cfg.t1.next = s.t1.into();
    u.cfg.meter_burst.next = s.meter_burst.into();
    for b in 0..BANDS {
        u.band[b].limit_bytes.next = s.limit_bytes[b].into();
        u.band[b].limit_pkts.next = s.limit_pkts[b].into();
        u.band[b].weight.next = s.weight[b].into();
    }
    for k in 0..N {
        let (v, ip, port) = s.routes.get(k).copied().unwrap_or((false, 0, 0));
        u.route[k].valid.next = v;
        u.route[k].ip.next = (ip as u64).into();
        u.route[k].port.next = port.into();
    }
    u.reset.next = false;
}

/// Drives one cycle's port inputs.
pub fn drive_switch<
    const N: usize,
    const NN: usize,
    const NB: usize,
    const NNB: usize,
    const NR: usize,
    const NP: usize,
>(
    u: &mut Switch<N, NN, NB, NNB, NR, NP>,
    inputs: &[PortIn],
) {
    for (p, x) in inputs.iter().enumerate().take(N) {
        let w = x.rx;
        u.rx[p].valid.next = w.is_some();
        let w = w.unwrap_or_default();
        u.rx[p].data.next = w.data.into();
        u.rx[p].last.next = w.last;
        u.rx[p].empty.next = (w.empty as u64).into();
        u.tx[p].ready.next = x.tx_ready;
    }
}

/// Reads every output port (after the kernel settled).
pub fn read_switch<
    const N: usize,
    const NN: usize,
    const NB: usize,
    const NNB: usize,
    const NR: usize,
    const NP: usize,
>(
    u: &Switch<N, NN, NB, NNB, NR, NP>,
) -> Vec<PortOut> {
    (0..N)
        .map(|p| {
            let s = &u.stat[p];
            let t = &u.tx[p];
            PortOut {
                rx_ready: u.rx[p].ready.val(),
                tx: t.valid.val().then(|| Word {
                    data: t.data.val().to_u64(),
                    last: t.last.val(),
                    empty: t.empty.val().to_u64() as u8,
                }),
                stat: PortStats {
                    rx_frames: s.rx_frames.val().to_u64(),
                    tx_frames: s.tx_frames.val().to_u64(),
                    drop_malformed: s.drop_malformed.val().to_u64(),
                    drop_no_route: s.drop_no_route.val().to_u64(),
                    drop_full: s.drop_full.val().to_u64(),
                    trimmed: s.trimmed.val().to_u64(),
                    returned: s.returned.val().to_u64(),
                    drop_header: s.drop_header.val().to_u64(),
                    occ_bytes: [
                        s.occ_bytes0.val().to_u64(),
                        s.occ_bytes1.val().to_u64(),
                        s.occ_bytes2.val().to_u64(),
                        s.occ_bytes3.val().to_u64(),
                    ],
                    src_sent: s.src_sent.val().to_u64(),
                    src_drop: s.src_drop.val().to_u64(),
                    pru: s.pru.val().to_u64(),
                    sm: s.sm.val().to_u64() as u32 as i32 as i64,
                    dod_trims: s.dod_trims.val().to_u64(),
                    dod_drop: s.dod_drop.val().to_u64(),
                    dod_q: s.dod_q.val().to_u64(),
                    tmode: s.tmode.val().to_u64(),
                },
            }
        })
        .collect()
}

/// Knobs of the random traffic.
#[derive(Clone, Debug)]
pub struct TrafficKnobs {
    /// Probability that an idle input starts a frame in a cycle.
    pub load: f64,
    /// Probability that a frame goes to the hot-spot port (else uniform).
    pub hot: f64,
    pub hot_port: usize,
    /// Probability of a malformed frame.
    pub malformed: f64,
    /// Probability of a frame to an address not in the table.
    pub unrouted: f64,
    /// Probability of a one-cycle gap after each word past the header.
    pub inner_gap: f64,
    /// Probability that a TX port is ready in a cycle.
    pub tx_ready: f64,
}

impl Default for TrafficKnobs {
    fn default() -> Self {
        TrafficKnobs {
            load: 0.3,
            hot: 0.4,
            hot_port: 0,
            malformed: 0.03,
            unrouted: 0.02,
            inner_gap: 0.02,
            tx_ready: 0.85,
        }
    }
}

/// A random nanoTransport frame from `src` to `dst` (any size 64..=1088).
pub fn random_frame(rng: &mut ChaCha8Rng, src: usize, dst_ip: u32, seq: u16) -> Vec<u8> {
    let (protocol, layout) = match rng.gen_range(0..10) {
        0..=4 => (PROTO_NDP, Layout::Ndp),
        5..=8 => (PROTO_HOMA, Layout::Homa),
        _ => (17, Layout::Ndp),
    };
    let flags = match rng.gen_range(0..20) {
        0..=12 => FLAG_DATA,
        13 => FLAG_DATA | FLAG_CHOP,
        14..=15 => FLAG_ACK,
        16 => FLAG_NACK,
        17 => FLAG_PULL_GRANT,
        _ => FLAG_ACK | FLAG_PULL_GRANT,
    };
    let payload = match rng.gen_range(0..4) {
        0 => rng.gen_range(0..=64),
        1 => 1024,
        _ => rng.gen_range(0..=1024),
    };
    Frame {
        dst_mac: 0x0200_0000_0fff,
        src_mac: port_mac(src),
        tos: rng.gen_range(0..6u8) << 2 | rng.gen_range(0..4u8),
        ip_id: seq,
        ttl: 64,
        protocol,
        src_ip: port_ip(src),
        dst_ip,
        t: Transport {
            flags,
            src_port: rng.gen(),
            dst_port: rng.gen(),
            msg_len: rng.gen_range(1..40000),
            pkt_offset: rng.gen(),
            pull_grant: rng.gen(),
            grant_prio: if layout == Layout::Homa { rng.gen() } else { 0 },
            tx_msg_id: rng.gen(),
            buf_ptr: rng.gen(),
            buf_class: rng.gen(),
            bolt: rng.gen(),
        },
        payload: (0..payload).map(|_| rng.gen()).collect(),
    }
    .encode(layout)
}

/// Seeded per-port traffic and TX readiness.
pub struct SwitchWorkload {
    rng: ChaCha8Rng,
    ports: usize,
    pub knobs: TrafficKnobs,
    queue: Vec<VecDeque<Option<Word>>>,
    seq: u16,
    /// Frames started per port (including malformed ones).
    pub frames: Vec<u64>,
}

impl SwitchWorkload {
    pub fn new(seed: u64, ports: usize, knobs: TrafficKnobs) -> Self {
        SwitchWorkload {
            rng: ChaCha8Rng::seed_from_u64(seed),
            ports,
            knobs,
            queue: vec![VecDeque::new(); ports],
            seq: 0,
            frames: vec![0; ports],
        }
    }

    fn new_frame(&mut self, src: usize) {
        let k = &self.knobs;
        let rng = &mut self.rng;
        let dst = if rng.gen_bool(k.hot) {
            k.hot_port
        } else {
            rng.gen_range(0..self.ports)
        };
        let dst_ip = if rng.gen_bool(k.unrouted) {
            0x0b00_0000 | rng.gen_range(0..1000)
        } else {
            port_ip(dst)
        };
        self.seq = self.seq.wrapping_add(1);
        let mut f = random_frame(rng, src, dst_ip, self.seq);
        let mut header_gap = false;
        if rng.gen_bool(k.malformed) {
            match rng.gen_range(0..8) {
                0 => f.truncate(rng.gen_range(1..40)),
                1 => f[12] = 0x86,
                2 => f[14] = 0x46,
                3 => {
                    // IPv4 length below 50 or above 1074.
                    let v: u16 = if rng.gen() {
                        rng.gen_range(0..50)
                    } else {
                        1075
                    };
                    f[16..18].copy_from_slice(&v.to_be_bytes());
                }
                4 => {
                    // The frame is longer or shorter than its IPv4 length says.
                    let n = f.len();
                    if rng.gen() && n > 65 {
                        f.truncate(rng.gen_range(41..n));
                    } else {
                        f.extend((0..rng.gen_range(1..20)).map(|_| rng.gen::<u8>()));
                    }
                }
                5 => header_gap = true,
                6 => {
                    // Cut inside word 7: short of the 64 header bytes a trimmed header
                    // would take.
                    f.truncate(rng.gen_range(57..64));
                }
                _ => {
                    // Last word not matching: a few bytes cut from a full frame.
                    let n = f.len();
                    f.truncate(n - rng.gen_range(1..4).min(n - 1));
                }
            }
        }
        let words = to_words(&f);
        let gap_at = rng.gen_range(1..5);
        for (j, w) in words.into_iter().enumerate() {
            if (header_gap && j == gap_at) || (j >= 5 && self.rng.gen_bool(self.knobs.inner_gap)) {
                self.queue[src].push_back(None);
            }
            self.queue[src].push_back(Some(w));
        }
        self.frames[src] += 1;
    }

    /// Queues `bytes` on port `src` (for directed traffic).
    pub fn push_frame(&mut self, src: usize, bytes: &[u8]) {
        self.queue[src].extend(to_words(bytes).into_iter().map(Some));
        self.frames[src] += 1;
    }

    /// Queues `n` idle cycles on port `src`.
    pub fn push_idle(&mut self, src: usize, n: usize) {
        self.queue[src].extend((0..n).map(|_| None));
    }

    /// True when every queued word has been sent.
    pub fn drained(&self) -> bool {
        self.queue.iter().all(|q| q.is_empty())
    }

    /// The next cycle's inputs. With `random` false, only queued (directed) words are sent.
    pub fn next(&mut self, random: bool) -> Vec<PortIn> {
        (0..self.ports)
            .map(|p| {
                if random && self.queue[p].is_empty() && self.rng.gen_bool(self.knobs.load) {
                    self.new_frame(p);
                }
                PortIn {
                    rx: self.queue[p].pop_front().flatten(),
                    tx_ready: self.rng.gen_bool(self.knobs.tx_ready),
                }
            })
            .collect()
    }
}
