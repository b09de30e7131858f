//! Seeded random workload of the new switch ([`nt_hdl::switch2`]), self-checking end to
//! end. Every input sends frames (most to routed addresses, a share to output 0 as an
//! incast, some broken as [`crate::swframe::random_frame`] breaks them, some to addresses
//! with no route, a few with gaps); every output's link takes words with a chance per
//! cycle. Each frame carries its input and a sequence number in word 6. Checked every
//! cycle, as errors of the run:
//! * every frame that comes out of output `o` is a frame sent to `o`, whose ingress fate
//!   was to be kept and whose real length matched its header, word for word, once; or,
//!   with trimming on, the trimmed 64-byte header of such a frame that may be trimmed
//!   (never of a frame whose length disagreed: a header leaves once its whole frame has
//!   arrived and proved its length), with IPv4 length 50, a
//!   correct checksum and CHOP set ([`crate::swframe::trimmed_header`]); or, with return
//!   to sender on, that header with its addresses and ports swapped, out of the port the
//!   frame came in on ([`crate::swframe::returned_header`]);
//! * frames of one input and band (a trimmed header's band is 0) to one output come out
//!   in the order they were sent;
//! * no (output, band) holds more than its packet limit plus `5K - 1` packets;
//! * nothing is lost inside the switch (`lost` stays 0) and no word overflows a data FIFO;
//! * after a drain: every counter is back to zero occupancy, and per input `fwd` equals
//!   the frames delivered (whole or trimmed) plus those refused plus those the buffer
//!   completed bad (`bad`: at most the frames whose length mismatched; such a frame may
//!   also be refused), and `trimmed` and `returned` equal the trimmed and returned
//!   headers delivered (plus, at most, the mismatched frames).
use crate::adm_workload::{drive_bolt, drive_tof, port_sum, BoltCfgV, LimCfg, TofCfg};
use crate::swframe::{ipv4_csum, random_frame, returned_header, trimmed_header, Route, Word};
use nt_hdl::switch2::SharedSwitch;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, VecDeque};

/// A band's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Band2 {
    pub lim_pkts: u16,
    pub lim_bytes: u32,
    pub dt_a: u8,
    pub weight: u8,
}

/// The switch's inputs in a cycle.
#[derive(Clone, Debug, Default)]
pub struct Drive {
    pub reset: bool,
    pub rx: Vec<Option<Word>>,
    pub ready: Vec<bool>,
    pub route: Vec<Route>,
    pub band: [Band2; 4],
    pub band_by_flags: bool,
    pub wrr: bool,
    pub dt_on: bool,
    pub trim: bool,
    pub ret: bool,
    pub headroom: u16,
    /// Per output, all bands, for whole frames.
    pub port: LimCfg,
    /// Band 0, for trimmed and returned headers.
    pub hdr: LimCfg,
    /// Tofino-style trimming.
    pub tof: TofCfg,
    /// Bolt (admission's policy) and the link rate its SRCs carry.
    pub bolt: BoltCfgV,
    pub link_rate: u8,
}

/// A port's counters (the block's `stat[p]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Stats {
    pub rx_frames: u32,
    pub drop_malformed: u32,
    pub drop_no_route: u32,
    pub fwd: u32,
    pub drop_full: u32,
    pub ovr: u32,
    /// Frames the buffer completed bad (their length not their IPv4 length's): never sent.
    pub bad: u32,
    pub tx_frames: u32,
    pub trimmed: u32,
    pub returned: u32,
    pub deflected: u32,
    pub src_sent: u32,
    pub src_drop: u32,
}

/// The switch's outputs in a cycle.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct View {
    pub tx: Vec<Option<Word>>,
    pub stat: Vec<Stats>,
    pub occ_pkts: Vec<u16>,
    pub occ_bytes: Vec<u32>,
    /// Per output, all bands.
    pub port_pkts: Vec<u16>,
    pub port_bytes: Vec<u32>,
    pub admitted: u32,
    pub refused: u32,
    pub trimmed: u32,
    pub returned: u32,
    pub lost: u32,
    /// Per output, its Tofino mode; per pipe, its deflected headers not yet back.
    pub mode: Vec<u8>,
    pub dod: [u16; 4],
    pub metered: u32,
    pub deflected: u32,
    pub recirculated: u32,
    /// Bolt: per output its PRU and supply tokens; verdicts with an SRC.
    pub pru: Vec<u8>,
    pub sm: Vec<u32>,
    pub srcs: u32,
}

type Sw<
    const N: usize,
    const N8: usize,
    const NN: usize,
    const K: usize,
    const M: usize,
    const NB: usize,
    const KNB: usize,
    const CA: usize,
    const CC: usize,
    const N2: usize,
    const R: usize,
    const NR: usize,
    const NRW: usize,
    const RP: usize,
    const KRP: usize,
    const NRP: usize,
    const NK: usize,
    const N4K: usize,
    const KP: usize,
> = SharedSwitch<N, N8, NN, K, M, NB, KNB, CA, CC, N2, R, NR, NRW, RP, KRP, NRP, NK, N4K, KP>;

/// Sets the switch's inputs.
pub fn drive<
    const N: usize,
    const N8: usize,
    const NN: usize,
    const K: usize,
    const M: usize,
    const NB: usize,
    const KNB: usize,
    const CA: usize,
    const CC: usize,
    const N2: usize,
    const R: usize,
    const NR: usize,
    const NRW: usize,
    const RP: usize,
    const KRP: usize,
    const NRP: usize,
    const NK: usize,
    const N4K: usize,
    const KP: usize,
>(
    u: &mut Sw<N, N8, NN, K, M, NB, KNB, CA, CC, N2, R, NR, NRW, RP, KRP, NRP, NK, N4K, KP>,
    d: &Drive,
) {
    u.reset.next = d.reset;
    for i in 0..N {
        let (data, last, empty) = d.rx[i].unwrap_or_default();
        u.rx[i].valid.next = d.rx[i].is_some();
        u.rx[i].data.next = data.into();
        u.rx[i].last.next = last;
        u.rx[i].empty.next = (empty as u64).into();
        u.tx[i].ready.next = d.ready[i];
        let r = d.route[i];
        u.route[i].valid.next = r.valid;
        u.route[i].ip.next = (r.ip as u64).into();
        u.route[i].port.next = (r.port as u64).into();
    }
    for (b, c) in d.band.iter().enumerate() {
        u.band[b].lim_pkts.next = (c.lim_pkts as u64).into();
        u.band[b].lim_bytes.next = (c.lim_bytes as u64).into();
        u.band[b].dt_a.next = (c.dt_a as u64).into();
        u.band[b].weight.next = (c.weight as u64).into();
    }
    u.cfg.band_by_flags.next = d.band_by_flags;
    u.cfg.wrr.next = d.wrr;
    u.cfg.dt_on.next = d.dt_on;
    u.cfg.trim.next = d.trim;
    u.cfg.ret.next = d.ret;
    u.cfg.headroom.next = (d.headroom as u64).into();
    u.cfg.port_pkts.next = (d.port.pkts as u64).into();
    u.cfg.port_bytes.next = (d.port.bytes as u64).into();
    u.cfg.hdr_pkts.next = (d.hdr.pkts as u64).into();
    u.cfg.hdr_bytes.next = (d.hdr.bytes as u64).into();
    u.cfg.link_rate.next = (d.link_rate as u64).into();
    drive_tof(&mut u.tof, &d.tof);
    drive_bolt(&mut u.bolt, &d.bolt);
}

/// Reads the switch's outputs (registers of its blocks).
pub fn read<
    const N: usize,
    const N8: usize,
    const NN: usize,
    const K: usize,
    const M: usize,
    const NB: usize,
    const KNB: usize,
    const CA: usize,
    const CC: usize,
    const N2: usize,
    const R: usize,
    const NR: usize,
    const NRW: usize,
    const RP: usize,
    const KRP: usize,
    const NRP: usize,
    const NK: usize,
    const N4K: usize,
    const KP: usize,
>(
    u: &Sw<N, N8, NN, K, M, NB, KNB, CA, CC, N2, R, NR, NRW, RP, KRP, NRP, NK, N4K, KP>,
) -> View {
    let v = |s: &rust_hdl::prelude::Signal<rust_hdl::prelude::Out, rust_hdl::prelude::Bits<32>>| {
        s.val().index() as u32
    };
    View {
        tx: u
            .tx
            .iter()
            .map(|t| {
                t.valid.val().then(|| {
                    (
                        t.data.val().to_u64(),
                        t.last.val(),
                        t.empty.val().index() as u8,
                    )
                })
            })
            .collect(),
        stat: u
            .stat
            .iter()
            .map(|s| Stats {
                rx_frames: v(&s.rx_frames),
                drop_malformed: v(&s.drop_malformed),
                drop_no_route: v(&s.drop_no_route),
                fwd: v(&s.fwd),
                drop_full: v(&s.drop_full),
                ovr: v(&s.ovr),
                bad: v(&s.bad),
                tx_frames: v(&s.tx_frames),
                trimmed: v(&s.trimmed),
                returned: v(&s.returned),
                deflected: v(&s.deflected),
                src_sent: v(&s.src_sent),
                src_drop: v(&s.src_drop),
            })
            .collect(),
        occ_pkts: u.occ_pkts.iter().map(|x| x.val().index() as u16).collect(),
        occ_bytes: u.occ_bytes.iter().map(|x| x.val().index() as u32).collect(),
        port_pkts: u.port_pkts.iter().map(|x| x.val().index() as u16).collect(),
        port_bytes: u
            .port_bytes
            .iter()
            .map(|x| x.val().index() as u32)
            .collect(),
        admitted: v(&u.admitted),
        refused: v(&u.refused),
        trimmed: v(&u.trimmed),
        returned: v(&u.returned),
        lost: v(&u.lost),
        mode: u.mode.iter().map(|x| x.val().index() as u8).collect(),
        dod: std::array::from_fn(|p| u.dod[p].val().index() as u16),
        metered: v(&u.metered),
        deflected: v(&u.deflected),
        recirculated: v(&u.recirculated),
        pru: u.pru.iter().map(|x| x.val().index() as u8).collect(),
        sm: u.sm.iter().map(|x| x.val().index() as u32).collect(),
        srcs: v(&u.srcs),
    }
}

/// What the workload does.
#[derive(Clone, Debug)]
pub struct Knobs {
    /// Chance that an idle input starts a frame in a cycle.
    pub load: f64,
    pub bad_p: f64,
    /// Chance of a destination without a route.
    pub noroute_p: f64,
    /// Share of frames to output 0.
    pub hot: f64,
    /// Chance that a link takes a word in a cycle.
    pub ready_p: f64,
    /// Chance of a gap before a word after the first.
    pub gap_p: f64,
    pub band: [Band2; 4],
    pub band_by_flags: bool,
    pub wrr: bool,
    pub dt_on: bool,
    /// Trim our transport's DATA packets that do not fit.
    pub trim: bool,
    /// Return a trimmed header to its sender when band 0 of its output is full.
    pub ret: bool,
    pub headroom: u16,
    /// Per output, all bands, for whole frames.
    pub port: LimCfg,
    /// Band 0, for trimmed and returned headers.
    pub hdr: LimCfg,
    /// Tofino-style trimming (with `trim` off: headers trimmed at a red meter or
    /// deflected on drop and recirculated).
    pub tof: TofCfg,
    /// Bolt (SRC, PRU, SM): the admission's policy and the buffer's rewrite and SRCs.
    pub bolt: BoltCfgV,
    /// Cycles at the end with no new frames.
    pub drain: u64,
}

/// The link rate the workload stamps into SRCs.
pub const LINK_RATE: u8 = 100;

/// The default: an incast share on output 0 with limits that bind.
pub fn knobs() -> Knobs {
    Knobs {
        load: 0.5,
        bad_p: 0.05,
        noroute_p: 0.03,
        hot: 0.5,
        ready_p: 0.9,
        gap_p: 0.005,
        band: [
            Band2 {
                lim_pkts: 1,
                lim_bytes: 1 << 20,
                dt_a: 4,
                weight: 4,
            },
            Band2 {
                lim_pkts: 1000,
                lim_bytes: 8_000,
                dt_a: 4,
                weight: 2,
            },
            Band2 {
                lim_pkts: 1000,
                lim_bytes: 1 << 20,
                dt_a: 4,
                weight: 1,
            },
            Band2 {
                lim_pkts: 30,
                lim_bytes: 30_000,
                dt_a: 4,
                weight: 1,
            },
        ],
        band_by_flags: false,
        wrr: false,
        dt_on: false,
        trim: true,
        ret: true,
        headroom: 64,
        port: LimCfg {
            pkts: 20,
            bytes: 20_000,
        },
        // band 0's own: headers find band 0 full, and go back to their senders
        hdr: LimCfg {
            pkts: 1,
            bytes: 1 << 20,
        },
        tof: TofCfg::default(),
        bolt: BoltCfgV::default(),
        drain: 4_000,
    }
}

/// Tofino-style trimming on the default load: 2 pipes, meters that bind on the hot
/// output, congestion signals that hold for a few hundred cycles.
pub fn tofino_knobs() -> Knobs {
    Knobs {
        load: 0.7,
        hot: 0.7,
        trim: false,
        ret: true,
        tof: TofCfg {
            on: true,
            pipes: 2,
            burst: 1_500,
            t0: 200,
            t1: 400,
            lim_dod: 6,
        },
        ..knobs()
    }
}

/// What a run saw.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    pub sent: u64,
    pub delivered: u64,
    pub max_over_pkts: i64,
    /// Most packets an output (all bands) held above its port limit.
    pub max_over_port_pkts: i64,
    /// Cycles from a frame's first word in to its first word out: least and most.
    pub min_latency: u64,
    pub max_latency: u64,
    /// Delivered per band (a trimmed header in band 0).
    pub bands: [u64; 4],
    /// Delivered as trimmed headers (returned ones included).
    pub trimmed: u64,
    /// Delivered as headers returned to their sender.
    pub returned: u64,
    /// Tofino-style trimming: the switch's counters at the end, and the most deflected
    /// headers a pipe held.
    pub metered: u64,
    pub deflected: u64,
    pub recirculated: u64,
    pub max_dod: u16,
    /// Bolt: SRCs out, each checked against the frame it answers.
    pub srcs: u64,
}

#[derive(Clone, Debug)]
struct Sent {
    words: Vec<Word>,
    band: u8,
    t0: u64,
    /// Its real length matched its header.
    len_ok: bool,
    /// It may be trimmed: its trimmed header's checksum.
    trim: Option<u16>,
}

struct Tx {
    words: VecDeque<Word>,
    j: usize,
    gapped: bool,
    key: (usize, u64),
    keep: Option<(u8, u8, bool, Option<u16>)>,
    all: Vec<Word>,
    t0: u64,
}

/// The workload. See the module documentation.
pub struct Switch2Workload {
    rng: StdRng,
    n: usize,
    lanes: usize,
    k: Knobs,
    cycles: u64,
    routes: Vec<Route>,
    tx: Vec<Option<Tx>>,
    seq: Vec<u64>,
    /// Frames that may come out: by (input, seq).
    expect: HashMap<(usize, u64), (u8, Sent)>,
    /// Per (output, input, band): the last sequence number delivered.
    last_seq: HashMap<(u8, usize, u8), u64>,
    /// Per output: words of the frame coming out, and its first word's cycle.
    rx_out: Vec<Vec<Word>>,
    t_out: Vec<u64>,
    /// Per input: delivered frames (whole or trimmed), and kept frames whose length
    /// mismatched.
    delivered: Vec<u64>,
    bad: Vec<u64>,
    seen: Seen,
    /// From a cycle on, other knobs (no reset: frames in flight go on).
    next: Option<(u64, Knobs)>,
    /// Bolt: per input, its frames' first 8 words and trimmed checksum by word 7.
    src_from: Vec<HashMap<u64, (Vec<u64>, u16)>>,
}

impl Knobs {
    /// Headers may come out (ideal or Tofino-style trimming).
    fn hdrs(&self) -> bool {
        self.trim || self.tof.on
    }

    /// With Tofino-style trimming, the most deflected headers band 0 of an output may
    /// hold beyond its limits: every pipe's, each `lim_dod` (as the switch holds it to
    /// its recirculation FIFOs) plus `slack`.
    fn dod_room(&self, lanes: usize, slack: i64) -> i64 {
        if !self.tof.on {
            return 0;
        }
        let cap = nt_hdl::sque::recirc_dod_cap(lanes) as i64;
        let pipes = (self.tof.pipes as i64).clamp(1, 4);
        pipes * ((self.tof.lim_dod as i64).min(cap) + slack)
    }
}

/// [`knobs`] with Bolt on (trimming off, as `mode = "bolt"`): congested at two MTUs queued.
pub fn bolt_knobs() -> Knobs {
    Knobs {
        trim: false,
        ret: false,
        bolt: BoltCfgV {
            on: true,
            cc_thresh: 2 * 1088,
            mtu: 1088,
            pru_cap: 8,
            sm_off: false,
        },
        ..knobs()
    }
}

/// The tag in word 6 of a frame: a marker, the input and the sequence number; bits 15:0
/// (`low`) are the frame's Bolt flags (frame byte 54) and one byte more, which Bolt may
/// rewrite.
fn tag(i: usize, seq: u64, low: u16) -> u64 {
    0xa500_0000_0000_0000 | (i as u64) << 40 | (seq & 0xff_ffff) << 16 | low as u64
}

/// The Bolt flags a switch may change: DEC set, INC cleared.
const BOLT_MAY: u64 = (nt_hdl::swif::BOLT_INC | nt_hdl::swif::BOLT_DEC) as u64;

/// Whether `got` is `sent`'s word 6 with Bolt's flags rewritten as Bolt may: INC kept or
/// cleared, DEC kept or set, every other bit as sent.
fn bolt_flags_ok(sent: u64, got: u64) -> bool {
    let (fs, fg) = ((sent >> 8) & 0xff, (got >> 8) & 0xff);
    let inc = nt_hdl::swif::BOLT_INC as u64;
    let dec = nt_hdl::swif::BOLT_DEC as u64;
    (sent ^ got) & !0xff00 == 0
        && (fs & !BOLT_MAY) == (fg & !BOLT_MAY)
        && (fg & inc == 0 || fs & inc != 0)
        && (fs & dec == 0 || fg & dec != 0)
}

impl Switch2Workload {
    /// `n` ports in `lanes` lanes, a run of `cycles` (the last `k.drain` without new
    /// frames).
    pub fn new(seed: u64, n: usize, lanes: usize, cycles: u64, k: Knobs) -> Self {
        let routes = (0..n)
            .map(|o| Route {
                valid: true,
                ip: 0x0a00_0001 + o as u32,
                port: o as u8,
            })
            .collect();
        Self {
            rng: StdRng::seed_from_u64(seed),
            n,
            lanes,
            k,
            cycles,
            routes,
            tx: (0..n).map(|_| None).collect(),
            seq: vec![0; n],
            expect: HashMap::new(),
            last_seq: HashMap::new(),
            rx_out: vec![Vec::new(); n],
            t_out: vec![0; n],
            delivered: vec![0; n],
            bad: vec![0; n],
            seen: Seen {
                min_latency: u64::MAX,
                // below any occupancy less its limit: >= 0 says a limit was reached
                max_over_pkts: i64::MIN,
                max_over_port_pkts: i64::MIN,
                ..Seen::default()
            },
            next: None,
            src_from: vec![HashMap::new(); n],
        }
    }

    /// From cycle `at` on, the workload runs with `k` (the switch's configuration changes
    /// live; frames in flight keep their fates).
    pub fn then(mut self, at: u64, k: Knobs) -> Self {
        self.next = Some((at, k));
        self
    }

    /// Checks the view of cycle `now` and returns the inputs of that cycle.
    pub fn step(&mut self, now: u64, v: &View) -> Result<Drive, String> {
        let n = self.n;
        if self.next.as_ref().is_some_and(|(at, _)| now >= *at) {
            self.k = self.next.take().expect("checked").1;
        }
        let ready: Vec<bool> = (0..n).map(|_| self.rng.gen_bool(self.k.ready_p)).collect();
        if v.lost != 0 {
            return Err(format!("cycle {now}: {} requests or tags lost", v.lost));
        }
        for i in 0..n {
            if v.stat[i].ovr != 0 {
                return Err(format!(
                    "cycle {now}: input {i}: {} words overflowed",
                    v.stat[i].ovr
                ));
            }
        }
        let slack = 5 * self.lanes as i64 - 1;
        for x in 0..n * 4 {
            // band 0 takes headers up to the header limit
            let mut lim = self.k.band[x % 4].lim_pkts as i64;
            if x % 4 == 0 && self.k.hdrs() {
                lim = lim.max(self.k.hdr.pkts as i64) + self.k.dod_room(self.lanes, slack);
            }
            let over = v.occ_pkts[x] as i64 - lim;
            self.seen.max_over_pkts = self.seen.max_over_pkts.max(over);
            if over > slack {
                return Err(format!(
                    "cycle {now}: (output {}, band {}) holds {} packets, limit {lim}",
                    x / 4,
                    x % 4,
                    v.occ_pkts[x],
                ));
            }
        }
        let p: Vec<i64> = v.occ_pkts.iter().map(|&x| x as i64).collect();
        let b: Vec<i64> = v.occ_bytes.iter().map(|&x| x as i64).collect();
        for o in 0..n {
            // whole frames keep to the port's limit; headers may add up to band 0's
            let (held, bytes) = port_sum(&p, &b, o);
            if (held, bytes) != (v.port_pkts[o] as i64, v.port_bytes[o] as i64) {
                return Err(format!(
                    "cycle {now}: output {o}'s counters are {} packets / {} bytes, its bands' {held} / {bytes}",
                    v.port_pkts[o], v.port_bytes[o]
                ));
            }
            let hdrs = if self.k.hdrs() {
                self.k.hdr.pkts as i64 + slack + self.k.dod_room(self.lanes, slack)
            } else {
                0
            };
            let over = held - self.k.port.pkts as i64;
            self.seen.max_over_port_pkts = self.seen.max_over_port_pkts.max(over);
            if over > slack + hdrs {
                return Err(format!(
                    "cycle {now}: output {o} holds {held} packets, port limit {}",
                    self.k.port.pkts
                ));
            }
        }
        if self.k.tof.on {
            if let Some(o) = v.mode.iter().position(|&m| m > 2) {
                return Err(format!("cycle {now}: output {o} in mode {}", v.mode[o]));
            }
            let cap = self.k.dod_room(self.lanes, slack) / (self.k.tof.pipes as i64).clamp(1, 4);
            for (p, &h) in v.dod.iter().enumerate() {
                self.seen.max_dod = self.seen.max_dod.max(h);
                if h as i64 > cap {
                    return Err(format!(
                        "cycle {now}: pipe {p} holds {h} deflected headers, at most {cap} expected"
                    ));
                }
            }
        }
        // words out (taken: the link is ready in this cycle)
        for o in 0..n {
            let Some(w) = v.tx[o] else { continue };
            if !ready[o] {
                continue;
            }
            if self.rx_out[o].is_empty() {
                self.t_out[o] = now;
            }
            self.rx_out[o].push(w);
            if w.1 {
                let got = std::mem::take(&mut self.rx_out[o]);
                self.check_frame(now, o, got)?;
            }
        }
        let mut d = Drive {
            reset: false,
            rx: vec![None; n],
            ready,
            route: self.routes.clone(),
            band: self.k.band,
            band_by_flags: self.k.band_by_flags,
            wrr: self.k.wrr,
            dt_on: self.k.dt_on,
            trim: self.k.trim,
            ret: self.k.ret,
            headroom: self.k.headroom,
            port: self.k.port,
            hdr: self.k.hdr,
            tof: self.k.tof,
            bolt: self.k.bolt,
            link_rate: LINK_RATE,
        };
        let sending = now + self.k.drain < self.cycles;
        for i in 0..n {
            if self.tx[i].is_none() && sending && self.rng.gen_bool(self.k.load) {
                let r = &mut self.rng;
                let dst = if r.gen_bool(self.k.noroute_p) {
                    0x0b00_0000 | r.gen_range(0..1 << 16)
                } else if r.gen_bool(self.k.hot) {
                    0x0a00_0001
                } else {
                    0x0a00_0001 + r.gen_range(0..n as u32)
                };
                let mut f =
                    random_frame(r, dst, self.k.bad_p, self.k.band_by_flags, &self.routes, n);
                let seq = self.seq[i];
                self.seq[i] += 1;
                // with Bolt, random flags (so that decisions vary), else the sequence
                let low = if self.k.bolt.on {
                    self.rng.gen()
                } else {
                    seq as u16
                };
                if f.words.len() > 6 {
                    f.words[6].0 = tag(i, seq, low);
                }
                // what an SRC for it would be built from: its first 8 words and the
                // trimmed header's checksum, found by its word 7 (random bytes)
                if let (true, Ok(q), true) = (self.k.bolt.on, &f.want, f.words.len() >= 8) {
                    let w: Vec<u64> = f.words.iter().take(8).map(|w| w.0).collect();
                    self.src_from[i].insert(w[7], (w, q.csum));
                }
                let keep = f
                    .want
                    .ok()
                    .map(|q| (q.out, q.band, f.len_ok, q.trim.then_some(q.csum)));
                self.tx[i] = Some(Tx {
                    all: f.words.iter().copied().collect(),
                    words: f.words,
                    j: 0,
                    gapped: false,
                    key: (i, seq),
                    keep,
                    t0: now,
                });
                self.seen.sent += 1;
            }
            let gap = self.rng.gen_bool(self.k.gap_p);
            let Some(f) = self.tx[i].as_mut() else {
                continue;
            };
            if f.j > 0 && gap {
                f.gapped |= f.j < 8;
                continue;
            }
            let w = f.words.pop_front().expect("words left");
            if f.j == 0 {
                f.t0 = now;
            }
            f.j += 1;
            d.rx[i] = Some(w);
            // once its first 8 words are in, back to back, a kept frame's fate is known:
            // whole or trimmed, it comes out only if its real length matched its header
            if f.j == 8 && !f.gapped {
                if let Some((out, band, len_ok, trim)) = f.keep {
                    if !len_ok {
                        self.bad[i] += 1;
                    }
                    if len_ok {
                        self.expect.insert(
                            f.key,
                            (
                                out,
                                Sent {
                                    words: f.all.clone(),
                                    band,
                                    t0: f.t0,
                                    len_ok,
                                    trim,
                                },
                            ),
                        );
                    }
                }
            }
            if w.1 {
                self.tx[i] = None;
            }
        }
        Ok(d)
    }

    fn check_frame(&mut self, now: u64, o: usize, got: Vec<Word>) -> Result<(), String> {
        if self.is_src(o, &got) {
            self.seen.srcs += 1;
            return Ok(());
        }
        let t = got.get(6).map_or(0, |w| w.0);
        if t >> 56 != 0xa5 {
            return Err(format!(
                "cycle {now}: output {o}: a frame of {} words without a tag",
                got.len()
            ));
        }
        let key = (((t >> 40) & 0xffff) as usize, (t >> 16) & 0xff_ffff);
        let Some((out, s)) = self.expect.remove(&key) else {
            return Err(format!(
                "cycle {now}: output {o}: frame {key:?} was not expected (never sent whole, not kept, or out twice)"
            ));
        };
        // whole, or its trimmed header (which needs 8 words, the 8th full, if it is the
        // last), out of its output or, returned, out of the port it came in on
        // with Bolt, word 6's flags may be rewritten (DEC set, INC cleared)
        let same = |a: &[Word], b: &[Word]| {
            a.len() == b.len()
                && a.iter().zip(b).enumerate().all(|(j, (x, y))| {
                    x == y
                        || (self.k.bolt.on
                            && j == 6
                            && x.1 == y.1
                            && x.2 == y.2
                            && bolt_flags_ok(x.0, y.0))
                })
        };
        let whole = out as usize == o && s.len_ok && same(&s.words, &got);
        let hdr = |want: fn(&[u64], u16) -> Vec<Word>| match s.trim {
            Some(csum) if self.k.hdrs() => {
                let data: Vec<u64> = s.words.iter().map(|w| w.0).collect();
                let long = s.words.len() > 8 || (s.words.len() == 8 && s.words[7].2 == 0);
                // the header's IPv4 checksum, summed from scratch, must hold
                let bytes: Vec<u8> = got.iter().flat_map(|w| w.0.to_be_bytes()).collect();
                long && got == want(&data, csum) && ipv4_csum(&bytes[14..34]) == 0
            }
            _ => false,
        };
        let trimmed = out as usize == o && hdr(trimmed_header);
        let returned = self.k.ret && key.0 == o && hdr(returned_header);
        if !(whole || trimmed || returned) {
            return Err(format!(
                "cycle {now}: output {o}: frame {key:?} differs from what input {} sent to output {out} ({} words sent, {} out, may be trimmed: {}, returned: {})",
                key.0,
                s.words.len(),
                got.len(),
                s.trim.is_some() && self.k.hdrs(),
                s.trim.is_some() && self.k.hdrs() && self.k.ret
            ));
        }
        let band = if whole { s.band } else { 0 };
        // a deflected header comes back from recirculation behind later headers: with
        // Tofino-style trimming, headers keep no order
        if whole || !self.k.tof.on {
            let k = (o as u8, key.0, band);
            if let Some(&p) = self.last_seq.get(&k) {
                if p > key.1 {
                    return Err(format!(
                        "cycle {now}: output {o}: frame {key:?} after frame {p} of the same input and band"
                    ));
                }
            }
            self.last_seq.insert(k, key.1);
        }
        let lat = self.t_out[o] - s.t0;
        self.seen.min_latency = self.seen.min_latency.min(lat);
        self.seen.max_latency = self.seen.max_latency.max(lat);
        self.seen.delivered += 1;
        self.seen.bands[band as usize] += 1;
        self.seen.trimmed += u64::from(!whole);
        self.seen.returned += u64::from(!whole && !trimmed);
        self.delivered[key.0] += 1;
        Ok(())
    }

    /// Whether `got`, out of port `o`, is Bolt's SRC for a frame that came in on port `o`:
    /// [`crate::swframe::src_header`] of that frame with the q_size it carries, its IPv4
    /// checksum right.
    fn is_src(&self, o: usize, got: &[Word]) -> bool {
        let w6 = got.get(6).map_or(0, |w| w.0);
        if !self.k.bolt.on
            || got.len() != 8
            || (w6 >> 8) & 0xff != nt_hdl::swif::BOLT_SRC as u64
            || (w6 >> 16) & 0xff != LINK_RATE as u64
        {
            return false;
        }
        let Some((words, csum)) = self.src_from[o].get(&got[7].0) else {
            return false;
        };
        let q = ((w6 >> 24) & 0xff_ffff) as u32;
        let bytes: Vec<u8> = got.iter().flat_map(|w| w.0.to_be_bytes()).collect();
        crate::swframe::src_header(words, *csum, q, LINK_RATE) == got
            && ipv4_csum(&bytes[14..34]) == 0
    }

    /// Checks the end state (call after the drain) and returns what the run saw.
    pub fn finish(self, v: &View) -> Result<Box<Seen>, String> {
        let sent: u64 = v.stat.iter().map(|s| s.src_sent as u64).sum();
        let lost: u64 = v.stat.iter().map(|s| s.src_drop as u64).sum();
        if sent != self.seen.srcs || sent + lost > v.srcs as u64 || (!self.k.bolt.on && v.srcs != 0)
        {
            return Err(format!(
                "Bolt: {} SRCs out, {sent} counted sent and {lost} lost, of {} decided",
                self.seen.srcs, v.srcs
            ));
        }
        if v.occ_pkts.iter().any(|&x| x != 0) || v.occ_bytes.iter().any(|&x| x != 0) {
            return Err(format!(
                "after the drain the counters hold {:?} packets",
                v.occ_pkts
            ));
        }
        // A port counts a trimmed (returned, deflected) header once its frame proved its
        // length, so exactly the headers delivered; the admission counts its decisions,
        // which include the trimmed frames that then completed bad.
        let bad: u64 = v.stat.iter().map(|s| s.bad as u64).sum();
        let trimmed: u64 = v.stat.iter().map(|s| s.trimmed as u64).sum();
        // a port's `trimmed` counts its deflected frames too, the admission's does not
        let decided = v.trimmed as u64 + v.deflected as u64;
        if trimmed != self.seen.trimmed || decided < trimmed || decided > trimmed + bad {
            return Err(format!(
                "trimmed: {trimmed} by port, {decided} by the admission (deflected included), {} trimmed headers delivered, {bad} completed bad",
                self.seen.trimmed
            ));
        }
        let returned: u64 = v.stat.iter().map(|s| s.returned as u64).sum();
        if returned != self.seen.returned
            || (v.returned as u64) < returned
            || v.returned as u64 > returned + bad
            || (!self.k.ret && v.returned != 0)
        {
            return Err(format!(
                "returned: {returned} by port, {} by the admission, {} returned headers delivered, {bad} completed bad",
                v.returned, self.seen.returned
            ));
        }
        for i in 0..self.n {
            let (fwd, full) = (v.stat[i].fwd as u64, v.stat[i].drop_full as u64);
            let bad = v.stat[i].bad as u64;
            if fwd != self.delivered[i] + full + bad || bad > self.bad[i] {
                return Err(format!(
                    "input {i}: fwd {fwd}, delivered {} + refused {full} + completed bad {bad} (of {} mismatched)",
                    self.delivered[i], self.bad[i]
                ));
            }
        }
        let by_port: u64 = v.stat.iter().map(|s| s.deflected as u64).sum();
        if by_port > v.deflected as u64 || v.deflected as u64 > by_port + bad {
            return Err(format!(
                "deflected: {by_port} by port, {} by the admission, {bad} completed bad",
                v.deflected
            ));
        }
        if v.deflected != v.recirculated || v.dod.iter().any(|&h| h != 0) {
            return Err(format!(
                "after the drain: {} deflected, {} recirculated, pipes hold {:?}",
                v.deflected, v.recirculated, v.dod
            ));
        }
        if !self.k.tof.on && (v.deflected != 0 || v.metered != 0) {
            return Err(format!(
                "Tofino-style trimming off, yet {} metered and {} deflected",
                v.metered, v.deflected
            ));
        }
        if v.metered > v.trimmed {
            return Err(format!(
                "{} trimmed at a meter of {} trimmed",
                v.metered, v.trimmed
            ));
        }
        let mut seen = self.seen;
        seen.metered = v.metered as u64;
        seen.deflected = v.deflected as u64;
        seen.recirculated = v.recirculated as u64;
        Ok(Box::new(seen))
    }
}
