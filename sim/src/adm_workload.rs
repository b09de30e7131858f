//! Seeded random workload of the switch's admission ([`nt_hdl::sadm`]), self-checking.
//! Inputs request frames of 64 to 1,500 bytes at least 8 cycles apart (as an ingress
//! does), to random outputs and bands or mostly to one hot output, some malformed or to
//! an output that does not exist; outputs let admitted packets leave at random, two
//! cycles after their verdict at the earliest (the harness stands in for the buffer and
//! the schedulers), and the free cells follow what is stored. Checked every cycle, as errors of the run:
//! * every request gets exactly one verdict, in order per input, `M + 4` cycles after the
//!   request at the latest, with the request's words, `empty`, output, band and bytes;
//! * only well-formed requests to an existing output are admitted;
//! * the block's counters equal the packets and bytes admitted and not yet left: a
//!   departure a cycle later, an admission two cycles after its verdict;
//! * the guarantee: no (output, band) ever holds more than its packet limit plus `5K - 1`
//!   packets, or its byte limit plus the bytes of `5K - 1` packets, checked at each
//!   admission against the limits that admission was held to (the band's for a whole
//!   frame, the header limits for a trimmed or returned header); and when a whole frame is
//!   admitted, its output (all bands, headers included) holds no more than the output's
//!   limits plus as much.
//!
//! With Tofino-style trimming ([`tofino_knobs`]) it also drives congestion signals and
//! releases from recirculation, and checks: the outputs' modes follow the signals; each
//! pipe's count of deflected headers follows its deflections and releases and exceeds
//! the deflection limit by at most `5K - 1`; only trimmable frames are trimmed or
//! deflected; and an ideal meter fed with the frames that passed at the meter of their
//! output's mode never holds more than the bucket plus `5K - 1` frames.
//!
//! With Bolt ([`bolt_knobs`]: requests carry Bolt's flags, some with DATA) it checks
//! every verdict's Bolt fields: `bm` exactly for Bolt data packets (Bolt on, well formed,
//! to an existing output, DATA); other packets' flags unchanged and no SRC; a data
//! packet's flags changed only by setting DEC and clearing INC, an SRC only for one
//! without DEC; `q` the output's queued bytes as S2 read them; and the decision exactly
//! the one of SPEC §3 for the tokens it read in P2 (the view's `pru` and `sm` three
//! cycles before the verdict). The SRC counter counts the verdicts' SRCs a cycle later;
//! tokens stay within `[0, pru_cap]` and `[-2^24, 2^20]`. With [`Knobs::bolt_ref`] and
//! data packets of an output apart ([`Knobs::bolt_apart`]), the tokens themselves follow
//! an independent reference of the thesis's algorithm, decision by decision and cycle by
//! cycle.
//!
//! The equivalence test runs it against the model; `ntsim wave sadm_p4` and co-simulation
//! record it: the first half of the run with ideal trimming, the second (after a reset)
//! with Tofino-style trimming.
use nt_hdl::sadm::{Admission, BANDS};
use nt_hdl::stofino::MAX_PIPES;
use nt_hdl::swif::{BOLT_DATA, BOLT_DEC, BOLT_FIRST, BOLT_INC, BOLT_LAST};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// The 48 bits of [`Req::rb`].
const RB_MASK: u64 = (1 << 48) - 1;
/// 24 bits: [`Verdict::q`], [`BoltCfgV::cc_thresh`].
const M24: u32 = (1 << 24) - 1;
/// Bolt's supply token is floored at `-2^24`; an idle output gathers at most `2^20`.
const SM_FLOOR: i64 = -(1 << 24);
const SM_IDLE_CAP: i64 = 1 << 20;

/// A frame's request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Req {
    pub out: u8,
    pub band: u8,
    pub bytes: u32,
    pub words: u16,
    pub empty: u8,
    pub ok: bool,
    /// The frame may be trimmed.
    pub trim: bool,
    /// The checksum its trimmed header carries (passed through).
    pub csum: u16,
    /// The bytes its returned header takes from later words (48 bits, passed through).
    pub rb: u64,
    /// Bolt's flags (frame byte 54: [`BOLT_DATA`] ...; 0 for other frames).
    pub bf: u8,
}

/// A band's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BandCfg {
    pub lim_pkts: u16,
    pub lim_bytes: u32,
    pub dt_a: u8,
}

/// Limits of a whole output (all bands), or of band 0 for headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimCfg {
    pub pkts: u16,
    pub bytes: u32,
}

impl LimCfg {
    /// No limit.
    pub const OFF: LimCfg = LimCfg {
        pkts: u16::MAX,
        bytes: u32::MAX,
    };
}

/// Tofino-style trimming ([`nt_hdl::stofino`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TofCfg {
    pub on: bool,
    /// Ingress pipes (0 counts as 1, more than 4 as 4).
    pub pipes: u8,
    /// The meters' bucket, bytes (20 bits).
    pub burst: u32,
    /// Cycles of pessimistic, then half-pessimistic mode after a congestion signal (24 bits).
    pub t0: u32,
    pub t1: u32,
    /// Deflected headers a pipe may hold.
    pub lim_dod: u16,
}

/// Bolt's switch logic ([`nt_hdl::sbolt`]); the default is off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BoltCfgV {
    pub on: bool,
    /// Queued bytes of an output (all bands) at which its data packets are congested (24
    /// bits).
    pub cc_thresh: u32,
    /// The MTU, bytes: the supply token's cap and the cost of an SM token.
    pub mtu: u16,
    /// The most PRU tokens an output holds (0: PRU off).
    pub pru_cap: u8,
    /// Supply matching off.
    pub sm_off: bool,
}

/// Sets a block's Bolt inputs.
pub fn drive_bolt(u: &mut nt_hdl::sbolt::BoltCfg, c: &BoltCfgV) {
    u.on.next = c.on;
    u.cc_thresh.next = (c.cc_thresh as u64 & 0xff_ffff).into();
    u.mtu.next = (c.mtu as u64).into();
    u.pru_cap.next = (c.pru_cap as u64).into();
    u.sm_off.next = c.sm_off;
}

/// Sets a block's Tofino-style trimming inputs.
pub fn drive_tof(u: &mut nt_hdl::stofino::TofinoCfg, c: &TofCfg) {
    u.on.next = c.on;
    u.pipes.next = (c.pipes as u64 & 7).into();
    u.burst.next = (c.burst as u64 & 0xf_ffff).into();
    u.t0.next = (c.t0 as u64 & 0xff_ffff).into();
    u.t1.next = (c.t1 as u64 & 0xff_ffff).into();
    u.lim_dod.next = (c.lim_dod as u64).into();
}

impl TofCfg {
    /// The pipe of input `i` of `n`.
    pub fn pipe_of(&self, i: usize, n: usize) -> usize {
        let p = (self.pipes as usize).clamp(1, MAX_PIPES);
        i * p / n
    }
}

impl Default for LimCfg {
    fn default() -> Self {
        Self::OFF
    }
}

/// The block's inputs in a cycle.
#[derive(Clone, Debug, Default)]
pub struct Drive {
    pub reset: bool,
    pub req: Vec<Option<Req>>,
    /// Per output: a packet of `(band, bytes)` left.
    pub dep: Vec<Option<(u8, u32)>>,
    pub band: [BandCfg; BANDS],
    pub dt_on: bool,
    pub trim_on: bool,
    pub ret_on: bool,
    pub free_rows: u32,
    pub headroom: u16,
    /// Per output, all bands, for whole frames.
    pub port: LimCfg,
    /// Band 0, for trimmed and returned headers.
    pub hdr: LimCfg,
    pub tof: TofCfg,
    /// Per output: a congestion signal.
    pub cong: Vec<bool>,
    /// Per pipe: a deflected header left recirculation.
    pub rel: [bool; MAX_PIPES],
    pub bolt: BoltCfgV,
}

/// A verdict, with the request's output, band and bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Verdict {
    pub admit: bool,
    pub words: u16,
    pub empty: u8,
    pub out: u8,
    pub band: u8,
    pub bytes: u32,
    /// Trimmed to its header (then `admit`, band 0 and 64 bytes).
    pub trim: bool,
    pub csum: u16,
    /// Returned to its sender (then `trim` too, and `out` is the input's own port).
    pub ret: bool,
    pub rb: u64,
    /// Deflected on drop (then `trim` too, band 0, 64 bytes, the frame's output).
    pub dod: bool,
    /// Bolt: a Bolt data packet; an SRC for it; its new flags (the request's when not
    /// `bm`); its output's queued bytes as S2 read them (24 bits, saturated).
    pub bm: bool,
    pub src: bool,
    pub bf: u8,
    pub q: u32,
}

/// The block's outputs in a cycle.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct View {
    /// Per input, while `vd_valid`.
    pub vd: Vec<Option<Verdict>>,
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
    /// Per output, its Tofino mode (0 optimistic, 1 half-pessimistic, 2 pessimistic).
    pub mode: Vec<u8>,
    /// Per pipe, deflected headers not yet released.
    pub dod: [u16; MAX_PIPES],
    pub metered: u32,
    pub deflected: u32,
    /// Per input, its pipe.
    pub pipe_of: Vec<u8>,
    /// Bolt: per output its PRU tokens and supply token (two's complement); SRCs decided.
    pub pru: Vec<u8>,
    pub sm: Vec<u32>,
    pub srcs: u32,
}

/// Sets the block's inputs.
pub fn drive<
    const N: usize,
    const K: usize,
    const M: usize,
    const NB: usize,
    const KNB: usize,
    const CC: usize,
>(
    u: &mut Admission<N, K, M, NB, KNB, CC>,
    d: &Drive,
) {
    u.reset.next = d.reset;
    for (i, r) in d.req.iter().enumerate() {
        let p = &mut u.inp[i];
        let q = r.unwrap_or_default();
        p.req_valid.next = r.is_some();
        p.req_out.next = (q.out as u64).into();
        p.req_band.next = (q.band as u64).into();
        p.req_bytes.next = (q.bytes as u64).into();
        p.req_words.next = (q.words as u64).into();
        p.req_empty.next = (q.empty as u64).into();
        p.req_ok.next = q.ok;
        p.req_trim.next = q.trim;
        p.req_csum.next = (q.csum as u64).into();
        p.req_rb.next = q.rb.into();
        p.req_bf.next = (q.bf as u64).into();
    }
    for (o, x) in d.dep.iter().enumerate() {
        let (band, bytes) = x.unwrap_or((0, 0));
        u.dep[o].valid.next = x.is_some();
        u.dep[o].band.next = (band as u64).into();
        u.dep[o].bytes.next = (bytes as u64).into();
    }
    for (b, c) in d.band.iter().enumerate() {
        u.band[b].lim_pkts.next = (c.lim_pkts as u64).into();
        u.band[b].lim_bytes.next = (c.lim_bytes as u64).into();
        u.band[b].dt_a.next = (c.dt_a as u64).into();
    }
    u.dt_on.next = d.dt_on;
    u.trim_on.next = d.trim_on;
    u.ret_on.next = d.ret_on;
    u.free_rows.next = (d.free_rows as u64).into();
    u.headroom.next = (d.headroom as u64).into();
    u.lim_port_pkts.next = (d.port.pkts as u64).into();
    u.lim_port_bytes.next = (d.port.bytes as u64).into();
    u.lim_hdr_pkts.next = (d.hdr.pkts as u64).into();
    u.lim_hdr_bytes.next = (d.hdr.bytes as u64).into();
    drive_tof(&mut u.tof, &d.tof);
    for (o, c) in u.cong.iter_mut().enumerate() {
        c.next = d.cong.get(o).copied().unwrap_or(false);
    }
    for (p, r) in u.rel.iter_mut().enumerate() {
        r.next = d.rel[p];
    }
    drive_bolt(&mut u.bolt, &d.bolt);
}

/// Reads the block's outputs (they depend on registers only).
pub fn read<
    const N: usize,
    const K: usize,
    const M: usize,
    const NB: usize,
    const KNB: usize,
    const CC: usize,
>(
    u: &Admission<N, K, M, NB, KNB, CC>,
) -> View {
    View {
        vd: u
            .inp
            .iter()
            .map(|p| {
                p.vd_valid.val().then(|| Verdict {
                    admit: p.vd_admit.val(),
                    words: p.vd_words.val().index() as u16,
                    empty: p.vd_empty.val().index() as u8,
                    out: p.vd_out.val().index() as u8,
                    band: p.vd_band.val().index() as u8,
                    bytes: p.vd_bytes.val().index() as u32,
                    trim: p.vd_trim.val(),
                    csum: p.vd_csum.val().index() as u16,
                    ret: p.vd_ret.val(),
                    rb: p.vd_rb.val().to_u64(),
                    dod: p.vd_dod.val(),
                    bm: p.vd_bm.val(),
                    src: p.vd_src.val(),
                    bf: p.vd_bf.val().index() as u8,
                    q: p.vd_q.val().index() as u32,
                })
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
        admitted: u.admitted.val().index() as u32,
        refused: u.refused.val().index() as u32,
        trimmed: u.trimmed.val().index() as u32,
        returned: u.returned.val().index() as u32,
        lost: u.lost.val().index() as u32,
        mode: u.mode.iter().map(|x| x.val().index() as u8).collect(),
        dod: std::array::from_fn(|p| u.dod[p].val().index() as u16),
        pipe_of: u.pipe_of.iter().map(|x| x.val().index() as u8).collect(),
        metered: u.metered.val().index() as u32,
        deflected: u.deflected.val().index() as u32,
        pru: u.pru.iter().map(|x| x.val().index() as u8).collect(),
        sm: u.sm.iter().map(|x| x.val().index() as u32).collect(),
        srcs: u.srcs.val().index() as u32,
    }
}

/// Output `o`'s packets and bytes over all bands, from counters per (output, band).
pub fn port_sum(p: &[i64], b: &[i64], o: usize) -> (i64, i64) {
    let r = o * BANDS..(o + 1) * BANDS;
    (p[r.clone()].iter().sum(), b[r].iter().sum())
}

/// How far `pkts` / `bytes` are over the limits `lp` / `lb`; an error past the bound:
/// `slack` packets, or the bytes of `slack` frames of at most 1,500 bytes.
fn over(pkts: i64, bytes: i64, lp: u16, lb: u32, slack: i64) -> Result<(i64, i64), String> {
    let (op, ob) = (pkts - lp as i64, bytes - lb as i64);
    if op > slack || ob > slack * 1500 {
        return Err(format!(
            "holds {pkts} packets / {bytes} bytes, over its limits {lp} / {lb} by more than {slack} packets"
        ));
    }
    Ok((op, ob))
}

/// What the workload does.
#[derive(Clone, Debug)]
pub struct Knobs {
    /// Chance of a request in a cycle an input may send one.
    pub load: f64,
    /// Chance per cycle that an output with stored packets lets its oldest leave.
    pub dep_p: f64,
    /// Chance that a request is malformed (half of those to an output that does not exist).
    pub bad_p: f64,
    /// Share of requests to output 0.
    pub hot: f64,
    /// Requests go to bands `0..bands`.
    pub bands: u8,
    pub band: [BandCfg; BANDS],
    /// Per output, all bands, for whole frames.
    pub port: LimCfg,
    /// Band 0, for trimmed and returned headers.
    pub hdr: LimCfg,
    pub dt_on: bool,
    /// Trim what does not fit, when it may be trimmed.
    pub trim_on: bool,
    /// Return a trimmed header to its sender when its output's band 0 does not take it.
    pub ret_on: bool,
    /// Chance that a request may be trimmed.
    pub trim_p: f64,
    pub headroom: u16,
    /// Cells of the buffer the free count is taken from.
    pub cells: u32,
    /// Chance of a reset per cycle.
    pub reset_p: f64,
    /// Cycles from one request of an input to its next (an ingress keeps 8 or more).
    pub gap: u64,
    /// Check verdicts, counters and limits (off: requests closer than a lane serves them
    /// are lost and their frames get no verdict, so only the model can check the run).
    pub check: bool,
    /// Tofino-style trimming.
    pub tof: TofCfg,
    /// Chance per cycle of a congestion signal for an output (none within 3 cycles of the
    /// last one).
    pub cong_p: f64,
    /// Chance per cycle that a pipe's oldest deflected header leaves recirculation.
    pub rel_p: f64,
    /// Bolt's switch logic.
    pub bolt: BoltCfgV,
    /// Chance that a request carries Bolt's DATA flag, with random LAST, FIRST, INC and
    /// DEC; the others carry random flags without DATA. 0: every request's flags are 0
    /// (and the random sequence is the one without Bolt).
    pub data_p: f64,
    /// Requests with DATA to one output at least this many cycles apart (over all
    /// inputs; a request that would break it goes without DATA). `M + 4` keeps the Bolt
    /// data packets of an output at least 5 cycles apart in P2 (a request waits up to
    /// `M - 1` cycles in its hold). 0: no constraint.
    pub bolt_apart: u64,
    /// Check every Bolt decision, and the outputs' tokens, against a reference of the
    /// thesis's algorithm (SPEC §3, `sm = min(sm + 8 (t - t_last) - L, MTU)` per output):
    /// exact when the Bolt data packets of an output are at least 5 cycles apart in P2
    /// (an error otherwise). Needs `reset_first`.
    pub bolt_ref: bool,
    /// Reset the block in cycle 0 (the tokens start from a reset's values).
    pub reset_first: bool,
}

/// The default: an incast-like load on output 0 with small limits, so that limits bind.
pub fn knobs() -> Knobs {
    Knobs {
        load: 0.5,
        dep_p: 0.05,
        bad_p: 0.05,
        hot: 0.6,
        bands: BANDS as u8,
        band: [
            BandCfg {
                lim_pkts: 6,
                lim_bytes: 1 << 20,
                dt_a: 4,
            },
            BandCfg {
                lim_pkts: 1000,
                lim_bytes: 6_000,
                dt_a: 4,
            },
            BandCfg {
                lim_pkts: 1000,
                lim_bytes: 1 << 20,
                dt_a: 2,
            },
            BandCfg {
                lim_pkts: 40,
                lim_bytes: 40_000,
                dt_a: 6,
            },
        ],
        port: LimCfg {
            pkts: 30,
            bytes: 24_000,
        },
        hdr: LimCfg {
            pkts: 10,
            bytes: 1 << 20,
        },
        dt_on: false,
        trim_on: true,
        ret_on: true,
        trim_p: 0.3,
        headroom: 8,
        cells: 2048,
        reset_p: 0.0,
        gap: 8,
        check: true,
        tof: TofCfg::default(),
        cong_p: 0.0,
        rel_p: 0.0,
        bolt: BoltCfgV::default(),
        data_p: 0.0,
        bolt_apart: 0,
        bolt_ref: false,
        reset_first: false,
    }
}

/// Tofino-style trimming on an incast: 2 pipes (of 4 ports; 4 of more), meters of a few
/// packets, short modes, a deflection limit of 6 per pipe; no ideal trimming.
pub fn tofino_knobs() -> Knobs {
    Knobs {
        trim_on: false,
        trim_p: 0.6,
        tof: TofCfg {
            on: true,
            pipes: 2,
            burst: 4_000,
            t0: 150,
            t1: 300,
            lim_dod: 6,
        },
        cong_p: 0.003,
        rel_p: 0.012,
        ..knobs()
    }
}

/// Bolt on an incast like [`knobs`]'s (half the requests to output 0), with packets
/// leaving three times as fast: a threshold of 3,000 queued bytes congests the hot output
/// most of the time and the others seldom; an MTU of 1,500 bytes, 2 PRU tokens; 15 % of
/// the requests are data packets, so that an output's supply (8 bytes a cycle) now and
/// then builds up to an SM token. A reset first: the supply tokens start at 0.
pub fn bolt_knobs() -> Knobs {
    Knobs {
        bolt: BoltCfgV {
            on: true,
            cc_thresh: 3_000,
            mtu: 1_500,
            pru_cap: 2,
            sm_off: false,
        },
        data_p: 0.15,
        dep_p: 0.15,
        hot: 0.5,
        reset_first: true,
        ..knobs()
    }
}

/// What Bolt's switch logic decides for a data packet with flags `bf` and `l` bytes at an
/// output with `q` queued bytes, `r` PRU tokens and supply token `s` (SPEC §3, thesis
/// Algorithms 7 and 9): whether it sends an SRC, its new flags, which branch it took.
pub fn bolt_decide(c: &BoltCfgV, bf: u8, l: u32, q: u32, r: u8, s: i64) -> (bool, u8, BoltAct) {
    if q >= c.cc_thresh & M24 {
        let act = if bf & BOLT_DEC == 0 {
            BoltAct::Src
        } else {
            BoltAct::DecKept
        };
        // Algorithm 7 line 10 is inside `if not pkt.dec`: with DEC the packet is unchanged
        let nbf = if act == BoltAct::Src {
            (bf | BOLT_DEC) & !BOLT_INC
        } else {
            bf
        };
        (act == BoltAct::Src, nbf, act)
    } else if bf & BOLT_LAST != 0 {
        let act = if bf & BOLT_FIRST != 0 {
            BoltAct::FirstLast
        } else if r < c.pru_cap {
            BoltAct::Earn
        } else {
            BoltAct::AtCap
        };
        (false, bf, act)
    } else if bf & BOLT_INC != 0 {
        if r > 0 {
            (false, bf, BoltAct::PruSpend)
        } else if !c.sm_off && s - l as i64 >= c.mtu as i64 {
            (false, bf, BoltAct::SmSpend)
        } else {
            (false, bf & !BOLT_INC, BoltAct::IncClear)
        }
    } else {
        (false, bf, BoltAct::Plain)
    }
}

/// The branch of a Bolt decision ([`bolt_decide`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoltAct {
    /// Congested: an SRC (DEC set, INC cleared); congested with DEC already set: no SRC,
    /// flags unchanged.
    Src,
    DecKept,
    /// LAST without FIRST: a PRU token earned, or not at the cap; FIRST and LAST.
    Earn,
    AtCap,
    FirstLast,
    /// INC: a PRU token spent, else an SM token, else INC cleared.
    PruSpend,
    SmSpend,
    IncClear,
    /// Neither congested, LAST nor INC.
    Plain,
}

/// Counts of Bolt decisions by branch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoltSeen {
    pub data: u64,
    pub src: u64,
    pub dec_kept: u64,
    pub earn: u64,
    pub at_cap: u64,
    pub first_last: u64,
    pub pru_spend: u64,
    pub sm_spend: u64,
    pub inc_clear: u64,
    pub plain: u64,
}

impl BoltSeen {
    fn add(&mut self, a: BoltAct) {
        self.data += 1;
        *match a {
            BoltAct::Src => &mut self.src,
            BoltAct::DecKept => &mut self.dec_kept,
            BoltAct::Earn => &mut self.earn,
            BoltAct::AtCap => &mut self.at_cap,
            BoltAct::FirstLast => &mut self.first_last,
            BoltAct::PruSpend => &mut self.pru_spend,
            BoltAct::SmSpend => &mut self.sm_spend,
            BoltAct::IncClear => &mut self.inc_clear,
            BoltAct::Plain => &mut self.plain,
        } += 1;
    }
}

/// What a run saw.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    pub reqs: u64,
    pub admitted: u64,
    pub refused: u64,
    /// Trimmed to their header (not in `admitted` or `refused`), returned ones included.
    pub trimmed: u64,
    /// Of `trimmed`, returned to their sender.
    pub returned: u64,
    /// Refusals of well-formed requests to an existing output.
    pub refused_ok: u64,
    /// Most packets above its packet limit any (output, band) held.
    pub max_over_pkts: i64,
    /// Most bytes above its byte limit any (output, band) held.
    pub max_over_bytes: i64,
    /// At a whole frame's admission, most packets and bytes above the port's limits its
    /// output held.
    pub max_over_port_pkts: i64,
    pub max_over_port_bytes: i64,
    /// Well-formed refusals while the output (all bands) was at or above a port limit.
    pub at_port_limit: u64,
    /// Trimmed or returned headers admitted to a band 0 at or above band 0's own limits
    /// (the room only headers take).
    pub hdr_over_band: u64,
    /// Verdicts refused while the (output, band) was at or above a limit.
    pub at_limit: u64,
    pub max_latency: u64,
    /// Most bytes any (output, band) held.
    pub max_queue_bytes: i64,
    /// Most cells the admitted packets held at once.
    pub max_used_cells: u32,
    /// Tofino-style trimming: deflected frames; of `trimmed`, those trimmed because red
    /// at their meter (all trims, with Tofino-style trimming on).
    pub deflected: u64,
    pub metered: u64,
    /// At a deflection, most headers above the deflection limit its pipe held.
    pub max_over_dod: i64,
    /// Well-formed trimmable refusals while the pipe was at its deflection limit.
    pub at_dod_limit: u64,
    /// Most bytes above the bucket of an ideal meter fed only with the frames that
    /// passed at that meter (its mode's), over (pipe, output, meter).
    pub max_over_meter: i64,
    /// Cycles of each mode, summed over outputs.
    pub mode_cycles: [u64; 3],
    /// Bolt: the decisions by branch, as checked against the tokens each read.
    pub bolt: BoltSeen,
    /// Bolt with [`Knobs::bolt_ref`]: the decisions checked against the thesis's
    /// reference, by branch; (output, cycle) pairs whose `pru` and `sm` were checked
    /// against it; decisions whose token the reference floored at `-2^24` (not exact).
    pub bolt_ref: BoltSeen,
    pub bolt_ref_tokens: u64,
    pub bolt_ref_floored: u64,
    /// Of those: token checks at the idle cap (`2^20`), and decisions that read it.
    pub bolt_ref_idle_cap: u64,
    pub bolt_ref_read_idle_cap: u64,
    /// Bolt: PRU spends that read a token a decision of the 4 cycles before (or of another
    /// lane in the same cycle) had already spent (the token floors at 0), and SM spends
    /// that read a supply another SM spend had already taken (it takes both).
    pub bolt_pru_stale: u64,
    pub bolt_sm_stale: u64,
    /// A hash of every verdict's admission (cycle, input, admit, trim, return,
    /// deflection, output, band, bytes), in order: Bolt must not change it.
    pub verdict_hash: u64,
}

/// The workload. See the module documentation.
pub struct AdmWorkload {
    rng: StdRng,
    n: usize,
    lanes: usize,
    k: Knobs,
    pending: Vec<VecDeque<(Req, u64)>>,
    next_ok: Vec<u64>,
    /// Per output, the admitted packets (band, bytes, cells, verdict cycle) in order.
    queues: Vec<VecDeque<(u8, u32, u32, u64)>>,
    occ_p: Vec<i64>,
    occ_b: Vec<i64>,
    used_cells: u32,
    /// The counters the view must show next cycle (None right after a reset).
    expect: Option<(Vec<i64>, Vec<i64>)>,
    seen: Seen,
    /// Tofino: per pipe the verdict cycles of deflected headers not yet released, the
    /// deflections seen and those seen in the last step, and the releases driven.
    dod_q: Vec<VecDeque<u64>>,
    dod_seen: [i64; MAX_PIPES],
    dod_last: [i64; MAX_PIPES],
    rel_driven: [i64; MAX_PIPES],
    /// Per output its last two congestion signals.
    cong_hist: Vec<[Option<u64>; 2]>,
    /// The modes of the last four cycles' views, newest last.
    modes: VecDeque<Vec<u8>>,
    /// Ideal meters per (pipe, output, meter), at `(p * n + o) * 3 + k`.
    meter: Vec<i64>,
    /// Metered trims and deflections since the last reset (the block's counters).
    met_rst: u64,
    dod_rst: u64,
    /// A second phase: from this cycle on, after a reset, these knobs.
    next: Option<(u64, Knobs)>,
    /// Bolt: the last 4 views' PRU tokens, supply tokens and port bytes, newest last
    /// (a verdict's decision read those of 3 cycles before it).
    hist: VecDeque<(Vec<u8>, Vec<u32>, Vec<u32>)>,
    /// SRCs since the last reset (the block's counter).
    src_rst: u64,
    /// Per output, the cycle of its last request with DATA (for `bolt_apart`).
    data_last: Vec<Option<u64>>,
    /// Per output, the P2 cycles of its last PRU and SM spends (PRU: true).
    spends: Vec<VecDeque<(u64, bool)>>,
    /// The thesis's reference per output: its supply token after its last update, the
    /// update's cycle (a decision's P2 cycle, or the first cycle after a reset: then
    /// `false`), its PRU tokens. None before the first reset.
    bref: Vec<Option<(i64, u64, bool, u8)>>,
}

impl AdmWorkload {
    /// `n` ports in `lanes` lanes.
    pub fn new(seed: u64, n: usize, lanes: usize, k: Knobs) -> Self {
        assert!(
            !k.bolt_ref || k.reset_first,
            "Bolt's reference starts from a reset"
        );
        Self {
            rng: StdRng::seed_from_u64(seed),
            n,
            lanes,
            k,
            pending: vec![VecDeque::new(); n],
            next_ok: vec![0; n],
            queues: vec![VecDeque::new(); n],
            occ_p: vec![0; n * BANDS],
            occ_b: vec![0; n * BANDS],
            used_cells: 0,
            expect: None,
            // below any occupancy less its limit: >= 0 says a limit was reached
            seen: Seen {
                max_over_port_pkts: i64::MIN,
                max_over_port_bytes: i64::MIN,
                max_over_dod: i64::MIN,
                max_over_meter: i64::MIN,
                ..Seen::default()
            },
            dod_q: vec![VecDeque::new(); MAX_PIPES],
            dod_seen: [0; MAX_PIPES],
            dod_last: [0; MAX_PIPES],
            rel_driven: [0; MAX_PIPES],
            cong_hist: vec![[None; 2]; n],
            modes: VecDeque::new(),
            meter: vec![0; MAX_PIPES * n * 3],
            next: None,
            met_rst: 0,
            dod_rst: 0,
            hist: VecDeque::new(),
            src_rst: 0,
            data_last: vec![None; n],
            spends: vec![VecDeque::new(); n],
            bref: vec![None; n],
        }
    }

    /// From cycle `at` on, the workload resets the block and runs with `k`.
    pub fn then(mut self, at: u64, k: Knobs) -> Self {
        self.next = Some((at, k));
        self
    }

    /// The mode output `o` must show in cycle `now`: pessimistic from 2 cycles after a
    /// congestion signal for `t0` cycles, then half-pessimistic for `t1`.
    fn expected_mode(&self, o: usize, now: u64) -> u8 {
        let [prev, last] = self.cong_hist[o];
        let c = match (prev, last) {
            (_, Some(c)) if now >= c + 2 => Some(c),
            (p, _) => p,
        };
        let Some(c) = c else { return 0 };
        let d = now - c - 2;
        let (t0, t1) = (self.k.tof.t0 as u64, self.k.tof.t1 as u64);
        if d < t0 {
            2
        } else if d < t0 + t1 {
            1
        } else {
            0
        }
    }

    /// Tofino's checks of the view of cycle `now`: the modes follow the congestion
    /// signals, the deflection counts follow deflections and releases; the ideal meters
    /// drain.
    fn check_tofino(&mut self, now: u64, v: &View) -> Result<(), String> {
        for o in 0..self.n {
            let e = self.expected_mode(o, now);
            if v.mode[o] != e {
                return Err(format!(
                    "cycle {now}: output {o} is in mode {}, expected {e} (signals {:?})",
                    v.mode[o], self.cong_hist[o]
                ));
            }
            self.seen.mode_cycles[e as usize] += 1;
        }
        for p in 0..MAX_PIPES {
            let e = self.dod_seen[p] - self.dod_last[p] - self.rel_driven[p];
            if v.dod[p] as i64 != e {
                return Err(format!(
                    "cycle {now}: pipe {p} holds {} deflected headers, expected {e}",
                    v.dod[p]
                ));
            }
            self.dod_last[p] = 0;
        }
        // the block's counters count a verdict a cycle after it
        if v.metered as u64 != self.met_rst || v.deflected as u64 != self.dod_rst {
            return Err(format!(
                "cycle {now}: counters metered {} / deflected {}, expected {} / {}",
                v.metered, v.deflected, self.met_rst, self.dod_rst
            ));
        }
        self.modes.push_back(v.mode.clone());
        if self.modes.len() > 4 {
            self.modes.pop_front();
        }
        for (x, w) in self.meter.iter_mut().enumerate() {
            let d = 8 >> (x % 3);
            *w = (*w - d).max(0);
        }
        Ok(())
    }

    /// Bolt's checks of the view of cycle `now` (before its verdicts): the SRC counter
    /// counts the verdicts before this cycle's; the tokens are in range, and with the
    /// reference, an output's tokens equal the reference's once its last decision's update
    /// is in the registers (5 cycles after its P2). Keeps the view's tokens and port bytes
    /// for the verdicts' checks.
    fn check_bolt_view(&mut self, now: u64, v: &View) -> Result<(), String> {
        if v.srcs as u64 != self.src_rst {
            return Err(format!(
                "cycle {now}: the SRC counter is {}, expected {}",
                v.srcs, self.src_rst
            ));
        }
        for o in 0..self.n {
            let (r, s) = (v.pru[o], v.sm[o] as i32 as i64);
            if r > self.k.bolt.pru_cap || !(SM_FLOOR..=SM_IDLE_CAP).contains(&s) {
                return Err(format!(
                    "cycle {now}: output {o} holds {r} PRU tokens (cap {}) and a supply token of {s}",
                    self.k.bolt.pru_cap
                ));
            }
            if let (true, Some((rs, rt, dec, rr))) = (self.k.bolt_ref, self.bref[o]) {
                if now >= rt + if dec { 5 } else { 0 } {
                    let es = (rs + 8 * (now - rt) as i64).min(SM_IDLE_CAP);
                    if (r, s) != (rr, es) {
                        return Err(format!(
                            "cycle {now}: output {o} holds {r} PRU tokens and a supply token of {s}, the thesis's reference {rr} and {es} (last update at {rt})"
                        ));
                    }
                    self.seen.bolt_ref_tokens += 1;
                    self.seen.bolt_ref_idle_cap += (es == SM_IDLE_CAP) as u64;
                }
            }
        }
        self.hist
            .push_back((v.pru.clone(), v.sm.clone(), v.port_bytes.clone()));
        if self.hist.len() > 4 {
            self.hist.pop_front();
        }
        Ok(())
    }

    /// Bolt's checks of input `i`'s verdict `x` in cycle `now` for request `r`. Its
    /// decision read the output's tokens in P2 and its queued bytes in S2, in the same
    /// cycle (the lane's S1 registers hold the pick): the view of `now - 3`.
    fn check_bolt_verdict(
        &mut self,
        now: u64,
        i: usize,
        r: &Req,
        x: &Verdict,
    ) -> Result<(), String> {
        let n = self.n;
        let c = self.k.bolt;
        let o = r.out as usize;
        let bm = c.on && r.ok && o < n && r.bf & BOLT_DATA != 0;
        let at = |back: usize| {
            self.hist
                .len()
                .checked_sub(1 + back)
                .and_then(|j| self.hist.get(j))
                .ok_or_else(|| format!("cycle {now}: input {i}: a verdict too early"))
        };
        let p2 = at(3)?;
        let q = if o < n { p2.2[o] } else { 0 };
        let e = |what: &str| {
            format!(
                "cycle {now}: input {i}: Bolt {what}: verdict bm {} src {} flags {:#04x} q {}, request flags {:#04x} to output {o} (ok {}), {q} bytes queued",
                x.bm, x.src, x.bf, x.q, r.bf, r.ok
            )
        };
        if x.q != q.min(M24) {
            return Err(e("stamps other queued bytes than S2 read"));
        }
        if x.bm != bm {
            return Err(e("data packet flag wrong"));
        }
        if x.src {
            self.src_rst += 1;
        }
        if !bm {
            if x.bf != r.bf || x.src {
                return Err(e("changed a packet that is not a Bolt data packet"));
            }
            return Ok(());
        }
        // DEC may be set and INC cleared, nothing else; an SRC for a packet without DEC
        let (set, cleared) = (x.bf & !r.bf, r.bf & !x.bf);
        if set & !BOLT_DEC != 0 || cleared & !BOLT_INC != 0 {
            return Err(e("changed flags other than setting DEC and clearing INC"));
        }
        if x.src && (r.bf & BOLT_DEC != 0 || x.bf & BOLT_DEC == 0 || x.bf & BOLT_INC != 0) {
            return Err(e(
                "an SRC for a packet with DEC, or without DEC set and INC cleared",
            ));
        }
        // exactly the decision of the tokens it read
        let l = r.bytes & ((1 << 26) - 1);
        let (tr, ts) = (p2.0[o], p2.1[o] as i32 as i64);
        let (src, bf, act) = bolt_decide(&c, r.bf, l, q, tr, ts);
        if (x.src, x.bf) != (src, bf) {
            return Err(e(&format!(
                "decided other than {act:?} (src {src}, flags {bf:#04x}) with the {tr} PRU tokens and supply token {ts} it read"
            )));
        }
        self.seen.bolt.add(act);
        // spends of what a decision in flight has spent already
        if matches!(act, BoltAct::PruSpend | BoltAct::SmSpend) {
            let t = now - 3;
            let pru = act == BoltAct::PruSpend;
            let q = &mut self.spends[o];
            q.retain(|&(u, _)| u + 5 > t);
            let before = q.iter().filter(|&&(_, p)| p == pru).count() as u64;
            if pru && before >= tr as u64 {
                self.seen.bolt_pru_stale += 1;
            }
            if !pru && before > 0 {
                self.seen.bolt_sm_stale += 1;
            }
            q.push_back((t, pru));
        }
        // the thesis's reference: the output's tokens from its decisions alone
        if self.k.bolt_ref {
            let t = now - 3;
            let Some((rs, rt, dec, rr)) = self.bref[o] else {
                return Err(e("decided before a reset"));
            };
            if dec && t < rt + 5 {
                return Err(e(&format!(
                    "data packets of the output not apart (P2 in cycles {rt} and {t}): the reference does not hold"
                )));
            }
            let s = (rs + 8 * (t - rt) as i64).min(SM_IDLE_CAP);
            self.seen.bolt_ref_read_idle_cap += (s == SM_IDLE_CAP) as u64;
            if (tr, ts) != (rr, s) {
                return Err(e(&format!(
                    "read {tr} PRU tokens and supply token {ts}, the thesis's reference {rr} and {s}"
                )));
            }
            let (src, bf, act) = bolt_decide(&c, r.bf, l, q, rr, s);
            if (x.src, x.bf) != (src, bf) {
                return Err(e(&format!(
                    "decided other than the thesis's reference: {act:?} (src {src}, flags {bf:#04x})"
                )));
            }
            let mut ns = (s - l as i64).min(c.mtu as i64);
            let mut nr = rr;
            match act {
                BoltAct::SmSpend => ns -= c.mtu as i64,
                BoltAct::Earn => nr += 1,
                BoltAct::PruSpend => nr -= 1,
                _ => {}
            }
            if ns < SM_FLOOR {
                ns = SM_FLOOR;
                self.seen.bolt_ref_floored += 1;
            }
            self.bref[o] = Some((ns, t, true, nr));
            self.seen.bolt_ref.add(act);
        }
        Ok(())
    }

    /// Bolt's flags for a request: DATA with random LAST, FIRST, INC and DEC with chance
    /// `data_p`, else random flags without DATA (none at all when `data_p` is 0).
    fn bolt_flags(&mut self) -> u8 {
        if self.k.data_p <= 0.0 {
            return 0;
        }
        if self.rng.gen_bool(self.k.data_p) {
            let m = BOLT_LAST | BOLT_FIRST | BOLT_INC | BOLT_DEC;
            BOLT_DATA | (self.rng.gen::<u8>() & m)
        } else {
            self.rng.gen::<u8>() & !BOLT_DATA
        }
    }

    fn latency_bound(&self) -> u64 {
        (self.n / self.lanes) as u64 + 4
    }

    /// Checks the view of cycle `now` and returns the inputs of that cycle.
    pub fn step(&mut self, now: u64, v: &View) -> Result<Drive, String> {
        let n = self.n;
        if !self.k.check {
            return Ok(self.loose(now));
        }
        if v.lost != 0 {
            return Err(format!(
                "cycle {now}: {} cycles with a lost request",
                v.lost
            ));
        }
        if let Some((p, b)) = &self.expect {
            for x in 0..n * BANDS {
                if v.occ_pkts[x] as i64 != p[x] || v.occ_bytes[x] as i64 != b[x] {
                    return Err(format!(
                        "cycle {now}: counters of (output {}, band {}) are {} packets / {} bytes, expected {} / {}",
                        x / BANDS, x % BANDS, v.occ_pkts[x], v.occ_bytes[x], p[x], b[x]
                    ));
                }
            }
            for o in 0..n {
                let (ep, eb) = port_sum(p, b, o);
                if v.port_pkts[o] as i64 != ep || v.port_bytes[o] as i64 != eb {
                    return Err(format!(
                        "cycle {now}: counters of output {o} are {} packets / {} bytes, expected {ep} / {eb}",
                        v.port_pkts[o], v.port_bytes[o]
                    ));
                }
            }
        }
        if self.k.tof.on {
            self.check_tofino(now, v)?;
        }
        self.check_bolt_view(now, v)?;
        // verdicts
        let mut fresh = vec![];
        for i in 0..n {
            let Some(
                vx @ Verdict {
                    admit: adm,
                    words,
                    empty,
                    out,
                    band,
                    bytes,
                    trim,
                    csum,
                    ret,
                    rb,
                    dod,
                    ..
                },
            ) = v.vd[i]
            else {
                continue;
            };
            let Some((r, t)) = self.pending[i].pop_front() else {
                return Err(format!(
                    "cycle {now}: input {i}: a verdict without a request"
                ));
            };
            self.check_bolt_verdict(now, i, &r, &vx)?;
            for w in [
                now,
                i as u64,
                adm as u64 | (trim as u64) << 1 | (ret as u64) << 2 | (dod as u64) << 3,
                (out as u64) << 8 | band as u64,
                bytes as u64,
            ] {
                self.seen.verdict_hash = (self.seen.verdict_hash ^ w).wrapping_mul(0x100_0000_01b3);
            }
            // a trimmed frame is its 64-byte header in band 0, of the input's own port
            // when returned
            let (eband, ebytes) = if trim { (0, 64) } else { (r.band, r.bytes) };
            let eout = if ret { i as u8 } else { r.out };
            if words != r.words & 0x1ff
                || empty != r.empty
                || (out, band, bytes) != (eout, eband, ebytes)
                || csum != r.csum
                || rb != r.rb
            {
                return Err(format!(
                    "cycle {now}: input {i}: verdict for {words} words / empty {empty} / output {out} / band {band} / {bytes} bytes / trim {trim} / return {ret} / checksum {csum:#x} / rb {rb:#x}, request was {r:?}"
                ));
            }
            if ret && (!trim || !self.k.ret_on) {
                return Err(format!(
                    "cycle {now}: input {i}: returned (trim {trim}) with return to sender {}",
                    self.k.ret_on
                ));
            }
            if trim && (!adm || !r.trim || !(self.k.trim_on || self.k.tof.on)) {
                return Err(format!(
                    "cycle {now}: input {i}: trimmed (admit {adm}) a request that may not be: {r:?}, trimming {}",
                    self.k.trim_on
                ));
            }
            if dod && (!trim || ret || !self.k.tof.on) {
                return Err(format!(
                    "cycle {now}: input {i}: deflected (trim {trim}, return {ret}) with Tofino-style trimming {}",
                    self.k.tof.on
                ));
            }
            let pipe = self.k.tof.pipe_of(i, n);
            if self.k.tof.on && r.trim && r.ok && (r.out as usize) < n && (!trim || dod) {
                // admitted whole or deflected: green at the meter of the mode its decision
                // read (P2, 3 cycles before the verdict). (Refused frames may have been
                // green too, and non-trimmable ones are metered as well: this ideal meter
                // sees a subset of the real one's frames, so it bounds it from below.)
                if adm {
                    let mode = self.modes.front().map(|m| m[r.out as usize]).unwrap_or(0) as usize;
                    let x = (pipe * n + r.out as usize) * 3 + mode;
                    if self.modes.len() == 4 {
                        self.meter[x] += r.bytes as i64;
                        let over = self.meter[x] - self.k.tof.burst as i64;
                        let slack = (5 * self.lanes as i64 - 1) * 1500;
                        if over > slack {
                            return Err(format!(
                                "cycle {now}: meter {mode} of (pipe {pipe}, output {}) passed {} bytes over its bucket",
                                r.out, over
                            ));
                        }
                        self.seen.max_over_meter = self.seen.max_over_meter.max(over);
                    }
                }
            }
            if dod {
                self.seen.deflected += 1;
                self.dod_rst += 1;
                self.dod_seen[pipe] += 1;
                self.dod_last[pipe] += 1;
                self.dod_q[pipe].push_back(now);
                let held = self.dod_q[pipe].len() as i64;
                let over = held - self.k.tof.lim_dod as i64;
                if over > 5 * self.lanes as i64 - 1 {
                    return Err(format!(
                        "cycle {now}: pipe {pipe} holds {held} deflected headers, limit {}",
                        self.k.tof.lim_dod
                    ));
                }
                self.seen.max_over_dod = self.seen.max_over_dod.max(over);
            } else if trim && self.k.tof.on {
                self.seen.metered += 1;
                self.met_rst += 1;
            }
            if !adm
                && self.k.tof.on
                && r.trim
                && r.ok
                && (r.out as usize) < n
                && self.dod_q[pipe].len() >= self.k.tof.lim_dod as usize
            {
                self.seen.at_dod_limit += 1;
            }
            self.seen.max_latency = self.seen.max_latency.max(now - t);
            if adm {
                if !r.ok || r.out as usize >= n {
                    return Err(format!(
                        "cycle {now}: input {i}: admitted a malformed request {r:?}"
                    ));
                }
                if trim && !dod {
                    self.seen.trimmed += 1;
                    self.seen.returned += ret as u64;
                } else {
                    self.seen.admitted += 1;
                }
                let x = out as usize * BANDS + band as usize;
                self.occ_p[x] += 1;
                self.occ_b[x] += bytes as i64;
                fresh.push((x, bytes as i64));
                let cells = if trim { 8 } else { r.words as u32 }.div_ceil(n as u32);
                self.used_cells += cells;
                self.seen.max_used_cells = self.seen.max_used_cells.max(self.used_cells);
                self.queues[out as usize].push_back((band, bytes, cells, now));
                // the limits this admission was held to
                let c = self.k.band[band as usize];
                let (lp, lb) = if trim {
                    (self.k.hdr.pkts, self.k.hdr.bytes)
                } else {
                    (c.lim_pkts, c.lim_bytes)
                };
                if trim
                    && !dod
                    && (self.occ_p[x] > c.lim_pkts as i64 || self.occ_b[x] > c.lim_bytes as i64)
                {
                    self.seen.hdr_over_band += 1;
                }
                let slack = 5 * self.lanes as i64 - 1;
                if !trim {
                    let (pp, pb) = port_sum(&self.occ_p, &self.occ_b, out as usize);
                    let (op, ob) = over(pp, pb, self.k.port.pkts, self.k.port.bytes, slack)
                        .map_err(|e| format!("cycle {now}: output {out} {e}"))?;
                    self.seen.max_over_port_pkts = self.seen.max_over_port_pkts.max(op);
                    self.seen.max_over_port_bytes = self.seen.max_over_port_bytes.max(ob);
                }
                // a deflected header is held to its pipe's deflection limit, not to band 0's
                if !dod {
                    let (op, ob) = over(self.occ_p[x], self.occ_b[x], lp, lb, slack)
                        .map_err(|e| format!("cycle {now}: (output {out}, band {band}) {e}"))?;
                    self.seen.max_over_pkts = self.seen.max_over_pkts.max(op);
                    self.seen.max_over_bytes = self.seen.max_over_bytes.max(ob);
                }
                self.seen.max_queue_bytes = self.seen.max_queue_bytes.max(self.occ_b[x]);
            } else {
                self.seen.refused += 1;
                if r.ok && (r.out as usize) < n {
                    self.seen.refused_ok += 1;
                    let x = r.out as usize * BANDS + r.band as usize;
                    let c = self.k.band[r.band as usize];
                    if self.occ_p[x] >= c.lim_pkts as i64
                        || self.occ_b[x] + r.bytes as i64 > c.lim_bytes as i64
                    {
                        self.seen.at_limit += 1;
                    }
                    let (pp, pb) = port_sum(&self.occ_p, &self.occ_b, r.out as usize);
                    if pp >= self.k.port.pkts as i64
                        || pb + r.bytes as i64 > self.k.port.bytes as i64
                    {
                        self.seen.at_port_limit += 1;
                    }
                }
            }
        }
        let bound = self.latency_bound();
        for i in 0..n {
            if let Some((_, t)) = self.pending[i].front() {
                if now - t >= bound {
                    return Err(format!(
                        "cycle {now}: input {i}: no verdict {bound} cycles after the request of cycle {t}"
                    ));
                }
            }
        }
        let phase = matches!(&self.next, Some((at, _)) if now == *at);
        if phase {
            self.k = self.next.take().expect("next phase").1;
        }
        let mut d = self.idle_drive(0);
        if phase
            || (now == 0 && self.k.reset_first)
            || (self.k.reset_p > 0.0 && self.rng.gen_bool(self.k.reset_p))
        {
            d.reset = true;
            self.src_rst = 0;
            self.data_last.iter_mut().for_each(|x| *x = None);
            self.spends.iter_mut().for_each(|q| q.clear());
            // the tokens from the first cycle after the reset: no supply, no PRU token
            self.bref
                .iter_mut()
                .for_each(|x| *x = Some((0, now + 1, false, 0)));
            for q in &mut self.pending {
                q.clear();
            }
            for q in &mut self.queues {
                q.clear();
            }
            self.occ_p.iter_mut().for_each(|x| *x = 0);
            self.occ_b.iter_mut().for_each(|x| *x = 0);
            self.used_cells = 0;
            self.next_ok.iter_mut().for_each(|x| *x = now + 1);
            self.dod_q.iter_mut().for_each(|q| q.clear());
            self.dod_seen = [0; MAX_PIPES];
            self.dod_last = [0; MAX_PIPES];
            self.rel_driven = [0; MAX_PIPES];
            self.cong_hist.iter_mut().for_each(|h| *h = [None; 2]);
            self.meter.iter_mut().for_each(|w| *w = 0);
            self.met_rst = 0;
            self.dod_rst = 0;
            d.free_rows = self.k.cells;
            self.expect = Some((self.occ_p.clone(), self.occ_b.clone()));
            return Ok(d);
        }
        // departures
        for o in 0..n {
            // A packet leaves two cycles after its verdict at the earliest, when its
            // admission is in the counters (in the switch it is stored, queued and read
            // out first: tens of cycles).
            let ready = matches!(self.queues[o].front(), Some(&(_, _, _, t)) if now >= t + 2);
            if ready && self.rng.gen_bool(self.k.dep_p) {
                let (b, bytes, cells, _) = self.queues[o].pop_front().expect("nonempty");
                d.dep[o] = Some((b, bytes));
                let x = o * BANDS + b as usize;
                self.occ_p[x] -= 1;
                self.occ_b[x] -= bytes as i64;
                self.used_cells -= cells;
            }
        }
        d.free_rows = self.k.cells.saturating_sub(self.used_cells);
        if self.k.tof.on {
            // congestion signals, at least 3 cycles apart per output
            for o in 0..n {
                let quiet = self.cong_hist[o][1].is_none_or(|c| now >= c + 3);
                if quiet && self.rng.gen_bool(self.k.cong_p) {
                    d.cong[o] = true;
                    self.cong_hist[o] = [self.cong_hist[o][1], Some(now)];
                }
            }
            // releases from recirculation, two cycles after the deflection at the earliest
            for p in 0..MAX_PIPES {
                let ready = matches!(self.dod_q[p].front(), Some(&t) if now >= t + 2);
                if ready && self.rng.gen_bool(self.k.rel_p) {
                    self.dod_q[p].pop_front();
                    d.rel[p] = true;
                    self.rel_driven[p] += 1;
                }
            }
        }
        // requests, at least 8 cycles apart per input
        for i in 0..n {
            if now < self.next_ok[i] || !self.rng.gen_bool(self.k.load) {
                continue;
            }
            let (bytes, words, empty) = self.random_length();
            let bad = self.rng.gen_bool(self.k.bad_p);
            let out = if bad && self.rng.gen_bool(0.5) {
                self.rng.gen_range(n..256) as u8
            } else if self.rng.gen_bool(self.k.hot) {
                0
            } else {
                self.rng.gen_range(0..n) as u8
            };
            let mut r = Req {
                out,
                band: self.rng.gen_range(0..self.k.bands.max(1)),
                bytes,
                words,
                empty,
                ok: !bad || out as usize >= n,
                trim: self.rng.gen_bool(self.k.trim_p),
                csum: self.rng.gen(),
                rb: self.rng.gen::<u64>() & RB_MASK,
                bf: self.bolt_flags(),
            };
            // Bolt data packets of an output apart
            if r.bf & BOLT_DATA != 0 && (r.out as usize) < n && self.k.bolt_apart > 0 {
                let o = r.out as usize;
                if matches!(self.data_last[o], Some(t) if now < t + self.k.bolt_apart) {
                    r.bf &= !BOLT_DATA;
                } else {
                    self.data_last[o] = Some(now);
                }
            }
            self.seen.reqs += 1;
            d.req[i] = Some(r);
            self.pending[i].push_back((r, now));
            self.next_ok[i] = now + self.k.gap;
        }
        // next cycle the counters show this cycle's departures, not yet its admissions
        let (mut p, mut b) = (self.occ_p.clone(), self.occ_b.clone());
        for (x, by) in fresh {
            p[x] -= 1;
            b[x] -= by;
        }
        self.expect = Some((p, b));
        Ok(d)
    }

    /// This cycle's inputs with no request, departure or reset.
    fn idle_drive(&self, free_rows: u32) -> Drive {
        Drive {
            reset: false,
            req: vec![None; self.n],
            dep: vec![None; self.n],
            band: self.k.band,
            dt_on: self.k.dt_on,
            trim_on: self.k.trim_on,
            ret_on: self.k.ret_on,
            free_rows,
            headroom: self.k.headroom,
            port: self.k.port,
            hdr: self.k.hdr,
            tof: self.k.tof,
            cong: vec![false; self.n],
            rel: [false; MAX_PIPES],
            bolt: self.k.bolt,
        }
    }

    /// A frame of 64 to 1,500 bytes: `(bytes, words, empty)`.
    fn random_length(&mut self) -> (u32, u16, u8) {
        let bytes: u32 = self.rng.gen_range(64..=1500);
        let words = bytes.div_ceil(8) as u16;
        (bytes, words, (words as u32 * 8 - bytes) as u8)
    }

    /// Requests every `gap` cycles with nothing checked; departures of what was admitted.
    fn loose(&mut self, now: u64) -> Drive {
        let n = self.n;
        let mut d = self.idle_drive(self.k.cells);
        for i in 0..n {
            if now >= self.next_ok[i] && self.rng.gen_bool(self.k.load) {
                let (bytes, words, empty) = self.random_length();
                d.req[i] = Some(Req {
                    out: self.rng.gen_range(0..n) as u8,
                    band: self.rng.gen_range(0..BANDS) as u8,
                    bytes,
                    words,
                    empty,
                    ok: true,
                    trim: self.rng.gen_bool(self.k.trim_p),
                    csum: self.rng.gen(),
                    rb: self.rng.gen::<u64>() & RB_MASK,
                    bf: self.bolt_flags(),
                });
                self.seen.reqs += 1;
                self.next_ok[i] = now + self.k.gap;
            }
        }
        d
    }

    /// What the run saw.
    pub fn finish(self) -> Box<Seen> {
        Box::new(self.seen)
    }
}
