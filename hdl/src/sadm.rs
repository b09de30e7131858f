//! The new switch's admission (issue 30, second slice): `K` lanes, each deciding one
//! frame per cycle for its `M = N/K <= 8` inputs, against occupancy counters per (output,
//! band) and per output (all bands) with static limits, band 0's limits for trimmed
//! headers, a dynamic threshold in the style of Choudhury and Hahne, and headroom in free
//! cells. There is no logic that chains over inputs or lanes within a
//! cycle: a lane picks among at most 8 requests, and decides against copies of the
//! counters a cycle old. docs/switch-design.md has the switch this belongs to; the verdicts
//! go to the shared buffer ([`crate::sbuf`]).
//!
//! ```text
//!  req[i] ─► hold[i] ─► lane l = i / M: round robin over its M holds (S1)
//!            ─► counters of (out, band) and of out, limits, threshold (S2) ─► compare (S3)
//!            ─► decide (S4) ─► vd[i] (admit, words, empty) ─► per (out, band) and per
//!               out the lanes' admissions summed (S5) ─► counters += (packets, bytes)
//!  dep[o] (band, bytes) ─► counters of (o, band) and of o -= (1 packet, bytes)
//! ```
//!
//! # Requests
//! Input `i` raises `req_valid` for one cycle per frame with its output `req_out`, band
//! `req_band` (0 to 3), length in bytes `req_bytes` and words `req_words` (`ceil(bytes /
//! 8)`), the last word's `req_empty`, and `req_ok` (false: malformed, refused without
//! counting). The request is held in `hold[i]` from the next cycle. A frame is at least 8
//! words and its request comes at its 8th word or later, so requests of one input are at
//! least 8 cycles apart; a lane serves each hold within `M <= 8` cycles, so a hold is free
//! again before the next request. A request that finds its hold still full (an ingress
//! that broke that rule) replaces the held one; `lost` counts the cycles with such a loss.
//!
//! # A lane's pipeline (one frame per cycle)
//! * **S1, pick.** Round robin over the lane's holds: the first full hold at or after the
//!   lane's pointer, else the first full one; the pointer moves past the pick. The pick's
//!   hold is emptied (a request arriving in the same cycle fills it again).
//! * **S2, read.** The pick's counters `occ_pkts` and `occ_bytes` of (out, band), the
//!   band's packet limit and threshold, its byte limit less the frame's bytes (`room =
//!   lim_bytes[band] - bytes`, and whether `bytes <= lim_bytes[band]`), the output's
//!   counters of all bands `port_pkts` and `port_bytes` with `lim_port_bytes - bytes`
//!   (and whether `bytes <= lim_port_bytes`), the header's byte limit less 64
//!   (`lim_hdr_bytes - 64`, and whether it is at least 64), and `fit`: the free cells,
//!   less the headroom, are at least the frame's cells (`ceil(words / N)`). (The subtraction sits
//!   beside the counters' multiplexer: `occ_bytes + bytes` after it was ECP5's critical
//!   path.)
//! * **S3, compare.** Registers, with the request, three facts: the frame fits whole
//!   (`req_ok`, `out < N`, `occ_pkts < lim_pkts[band]`, `bytes <= lim_bytes[band]` and
//!   `occ_bytes <= room` (that is, `occ_bytes + bytes <= lim_bytes[band]`), `fit`, the
//!   same three for the output (`port_pkts < lim_port_pkts`, read in S3, `bytes <=
//!   lim_port_bytes` and `port_bytes <= lim_port_bytes - bytes`), and, with `dt_on`,
//!   `occ_bytes < thr[band]`); its header fits band 0 of its output; its
//!   header fits band 0 of its input's own port (both below). (Deciding in the cycle of
//!   the compares, the decisions' fan-out into the verdicts was ECP5's critical path.)
//! * **S4, decide.** Admit a frame that fits whole. The verdict is in `vd` of the input
//!   from the next cycle, for one cycle, with the request's output, band and bytes
//!   (`vd_out`, `vd_band`, `vd_bytes`). `admitted` and `refused` count the decisions at
//!   the edge after.
//! * **Trimming** (`trim_on`). A frame not admitted whole whose request may be trimmed
//!   (`req_trim`: our transport's DATA without CHOP, from the ingress) is admitted as its
//!   64-byte header into band 0 of the same output when band 0 takes a header:
//!   `occ_pkts(o, 0) < lim_hdr_pkts`, `occ_bytes(o, 0) + 64 <= lim_hdr_bytes` (as `64 <=
//!   lim_hdr_bytes` and `occ_bytes(o, 0) <= lim_hdr_bytes - 64`, from S2), the free cells
//!   less headroom cover 8 words, and, with `dt_on`, `occ_bytes(o, 0) < thr[0]` (band 0's
//!   counters are read in S2 beside the pick's, the header's packet limit and band 0's
//!   threshold in S3, which compares; S4 decides). A header is held to band 0's header
//!   limits only, not to the output's: `lim_hdr_*` above `band[0]`'s keep room in band 0
//!   that whole frames cannot take, NDP's separate header queue. The verdict then
//!   has `vd_admit` and `vd_trim` set, `vd_band` 0 and `vd_bytes` 64 (`vd_words` and
//!   `vd_empty` stay the frame's, for the buffer's length check) and counts in band 0;
//!   `trimmed` counts it (not `admitted`). `req_csum`, the trimmed header's IPv4 checksum,
//!   is passed through to `vd_csum`. Otherwise, with `ret_on` as well, the header is
//!   **returned to its sender** (paper 002 §2) when band 0 of the input's own port `i`
//!   takes it (the same four conditions on `occ(i, 0)`; S2 reads band 0 of the pick's
//!   input beside the output's, an `M`-way choice within the lane): the verdict has
//!   `vd_admit`, `vd_trim` and `vd_ret` set, `vd_out` = `i`, `vd_band` 0, `vd_bytes` 64,
//!   and `req_rb` (the bytes the buffer's rewrite takes from a later word) passed through
//!   to `vd_rb`; it counts in band 0 of output `i`, in `trimmed` and in `returned`.
//!   Otherwise the frame is refused (`refused`).
//! * **Tofino-style trimming** (`tof.on`, paper 002 §3-§5; the policy block
//!   [`crate::stofino`] has the meters, the outputs' modes and the pipes' counts of
//!   deflected headers; S1 registers the pick's pipe, the block reads the lane's S1
//!   registers and answers in its own P3 registers, which S4 reads). A frame that may be
//!   trimmed (`req_trim`, well formed, to an existing output) and is **red at the meter of
//!   its output's mode** is trimmed at ingress: its header goes band 0's way or back to
//!   its sender as above (with `trim_on` off as well), else the frame is refused; it
//!   counts in `trimmed` (and `returned`) and in `metered`. Otherwise a frame that fits
//!   whole is admitted. Otherwise a frame that may be trimmed is **deflected on drop**
//!   when its pipe's recirculation path has room (`dod[p] < tof.lim_dod` as read in P2)
//!   and the free cells less headroom cover its header's 8 words (as for a trim):
//!   the verdict has `vd_admit`, `vd_trim` and `vd_dod` set, the frame's output, band 0
//!   and 64 bytes; it counts in band 0 of its output (held to the deflection limit, not
//!   to band 0's) and in `deflected`, and the policy's count of its pipe. Otherwise it is
//!   refused. There is no ideal trimming with `tof.on`: a Tofino switch cannot trim at
//!   the queue. `cong[o]` (a deflected header of output `o` left recirculation) and
//!   `rel[p]` (one of pipe `p`'s did) come from the queues.
//! * **Bolt** (`bolt.on`, thesis Algorithms 7 and 9; the policy block [`crate::sbolt`] has
//!   the tokens of each output and decides, from the lane's S1 registers, the request's
//!   Bolt flags `req_bf` and the output's bytes as S2 read them, in its P3 registers,
//!   which S4 reads). Every verdict carries `vd_bm` (a Bolt data packet), `vd_bf` (its new
//!   flags; the request's when not `vd_bm`), `vd_src` (an SRC goes back to its sender) and
//!   `vd_q` (the output's queued bytes, for the SRC): whatever the decision, which Bolt
//!   does not change. `srcs` counts the verdicts with `vd_src`, at the edge after.
//! * **S5, sum.** Per (output, band), the packets and bytes the lanes admitted in S4,
//!   summed into `s5_p` / `s5_b`, and per output (any band) into `s5_pp` / `s5_pb`; the
//!   counters add them at the next edge. An admitted
//!   frame is in its counters two edges after its verdict's. (Adding the lanes' bytes,
//!   the counter and the departure in one cycle was three carry chains, 9 LUT levels at
//!   16 ports.)
//!
//! # Counters and the guarantee
//! `occ_pkts` / `occ_bytes` per (output, band), at `o * 4 + b`, and `port_pkts` /
//! `port_bytes` per output (all bands, headers included) move up two cycles after an
//! admitting verdict (through S5) and down by the caller's `dep` (a packet of that band
//! and length has left output `o`). A decision in S4 sees the counters as they were at the
//! start of S2, so it misses the admissions of the four decisions its lane made just
//! before it, those of the other lanes in the same four cycles, and those the other lanes
//! make in its own cycle: **a packet limit is exceeded by at most `5K - 1` packets (4 at
//! one lane, 9 at two), and a byte limit by at most the bytes of `5K - 1` packets**
//! (tested): a band's limits when a whole frame is admitted, the header limits when a
//! header is, the output's when a whole frame is (headers admitted after it may add to the
//! output, up to band 0's header limits). Each
//! counter wraps below zero if `dep` reports a packet that was never admitted, and for a
//! cycle if it reports one in the cycle after its verdict (before S5 has added it): a
//! caller's fault, not a state the switch reaches (it reads a packet out tens of cycles
//! after its verdict).
//!
//! # Dynamic threshold
//! `thr[b] = (free_rows · 8N · 2^a_b) / 16`, from `free_rows` a cycle old, with `a_b =
//! min(dt_a[b], 8)`: a band may hold `α_b = 2^(a_b - 4)` (1/16 to 16) times the free
//! buffer (Choudhury and Hahne, "Dynamic queue length thresholds for shared-memory packet
//! switches", 1998).
//!
//! # Parameters
//! `N` ports (4 to 64), `K` lanes (`N/K <= 8`), `M = N/K`, `NB = 4N`, `KNB = K·NB`, `CC` the width of
//! `free_rows` (the buffer's cell count bits plus one).
use crate::sbolt::{BoltCfg, BoltPolicy};
use crate::stofino::{TofinoCfg, TofinoPolicy, MAX_PIPES};
use rust_hdl::prelude::*;

/// Bands per output.
pub const BANDS: usize = 4;

/// Per input.
#[derive(LogicInterface, Default)]
pub struct AdmInPort {
    pub req_valid: Signal<In, bool>,
    pub req_out: Signal<In, Bits<8>>,
    pub req_band: Signal<In, Bits<2>>,
    pub req_bytes: Signal<In, Bits<32>>,
    pub req_words: Signal<In, Bits<16>>,
    pub req_empty: Signal<In, Bits<3>>,
    pub req_ok: Signal<In, bool>,
    /// The frame may be trimmed (our transport's DATA without CHOP).
    pub req_trim: Signal<In, bool>,
    /// The IPv4 header checksum its trimmed header carries (passed on to the verdict).
    pub req_csum: Signal<In, Bits<16>>,
    /// The bytes a returned header takes from the word after the one it rewrites (the
    /// source MAC's last 4 bytes, the destination IP's last 2; passed on to the verdict).
    pub req_rb: Signal<In, Bits<48>>,
    /// Bolt's flags (frame byte 54) of our transport's packets, 0 for others.
    pub req_bf: Signal<In, Bits<8>>,
    pub vd_valid: Signal<Out, bool>,
    pub vd_admit: Signal<Out, bool>,
    pub vd_words: Signal<Out, Bits<9>>,
    pub vd_empty: Signal<Out, Bits<3>>,
    /// The request's output, band and bytes, with the verdict (for the queues).
    pub vd_out: Signal<Out, Bits<8>>,
    pub vd_band: Signal<Out, Bits<2>>,
    pub vd_bytes: Signal<Out, Bits<32>>,
    /// The frame is trimmed to its 64-byte header (then `vd_admit` is set, `vd_band` is 0
    /// and `vd_bytes` 64); `vd_words` and `vd_empty` stay the whole frame's.
    pub vd_trim: Signal<Out, bool>,
    pub vd_csum: Signal<Out, Bits<16>>,
    /// The trimmed header goes back to its sender (then `vd_trim` is set too, and
    /// `vd_out` is this input's own port).
    pub vd_ret: Signal<Out, bool>,
    pub vd_rb: Signal<Out, Bits<48>>,
    /// Tofino-style trimming: the frame is deflected on drop, its header (then `vd_trim`
    /// is set too) into the recirculation path of this input's pipe; `vd_out` stays the
    /// frame's output.
    pub vd_dod: Signal<Out, bool>,
    /// Bolt ([`crate::sbolt`]): a Bolt data packet, whose flags become `vd_bf`; an SRC
    /// goes back to its sender for it, stamped with `vd_q` (the output's queued bytes).
    /// Set whatever the admission decided (Bolt decides at ingress, before the queue).
    pub vd_bm: Signal<Out, bool>,
    pub vd_src: Signal<Out, bool>,
    pub vd_bf: Signal<Out, Bits<8>>,
    pub vd_q: Signal<Out, Bits<24>>,
}

/// Per output: a packet left.
#[derive(LogicInterface, Default)]
pub struct AdmDepPort {
    pub valid: Signal<In, bool>,
    pub band: Signal<In, Bits<2>>,
    pub bytes: Signal<In, Bits<32>>,
}

/// Per band: limits and the threshold's exponent.
#[derive(LogicInterface, Default)]
pub struct AdmBandCfg {
    pub lim_pkts: Signal<In, Bits<16>>,
    pub lim_bytes: Signal<In, Bits<32>>,
    pub dt_a: Signal<In, Bits<4>>,
}

type L<T> = Signal<Local, T>;

/// The admission block. See the module documentation.
#[derive(LogicBlock)]
pub struct Admission<
    const N: usize,
    const K: usize,
    const M: usize,
    const NB: usize,
    const KNB: usize,
    const CC: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub inp: [AdmInPort; N],
    pub dep: [AdmDepPort; N],
    pub band: [AdmBandCfg; BANDS],
    pub dt_on: Signal<In, bool>,
    /// Trim a frame that does not fit, when it may be trimmed and its header fits band 0.
    pub trim_on: Signal<In, bool>,
    /// With `trim_on`: return a trimmed header that band 0 of its output does not take to
    /// its sender, when band 0 of the input's own port takes it.
    pub ret_on: Signal<In, bool>,
    /// Cells free in the buffer (its `free_rows`).
    pub free_rows: Signal<In, Bits<CC>>,
    /// Cells kept free: a frame is admitted only if `free_rows - headroom` covers it.
    pub headroom: Signal<In, Bits<16>>,
    /// Per output, all bands together: a whole frame is admitted only while the output
    /// holds fewer than `lim_port_pkts` packets and its bytes fit `lim_port_bytes`. All
    /// ones for no limit (0 admits no whole frame). The packet counters are 16 bits, as
    /// the per-band ones: a buffer that can hold 65,536 packets of one output needs a
    /// packet limit that keeps them below it.
    pub lim_port_pkts: Signal<In, Bits<16>>,
    pub lim_port_bytes: Signal<In, Bits<32>>,
    /// Band 0's limits for a trimmed or returned header (a whole frame in band 0 is held to
    /// `band[0]`'s): above `band[0]`'s, they keep room in band 0 that only headers take.
    pub lim_hdr_pkts: Signal<In, Bits<16>>,
    pub lim_hdr_bytes: Signal<In, Bits<32>>,
    /// Tofino-style trimming ([`crate::stofino`]): on, pipes, meters' bucket, the modes'
    /// periods, the deflected headers a pipe may hold.
    pub tof: TofinoCfg,
    /// Per output: a congestion signal (a deflected header of it left recirculation).
    pub cong: [Signal<In, bool>; N],
    /// Per pipe: a deflected header left its recirculation path.
    pub rel: [Signal<In, bool>; MAX_PIPES],
    /// Per output, its Tofino mode (0 optimistic, 1 half-pessimistic, 2 pessimistic).
    pub mode: [Signal<Out, Bits<2>>; N],
    /// Per pipe, its deflected headers not yet released.
    pub dod: [Signal<Out, Bits<16>>; MAX_PIPES],
    /// Per input, its pipe (registered; for the queues' recirculation path).
    pub pipe_of: [Signal<Out, Bits<2>>; N],
    /// Bolt ([`crate::sbolt`]): on, the congestion threshold, the MTU, the PRU tokens'
    /// cap, supply matching off.
    pub bolt: BoltCfg,
    /// Bolt: per output, its PRU tokens and supply token (bytes, two's complement).
    pub pru: [Signal<Out, Bits<8>>; N],
    pub sm: [Signal<Out, Bits<32>>; N],
    /// Bolt: SRCs decided.
    pub srcs: Signal<Out, Bits<32>>,
    /// Of `trimmed`, the frames trimmed because they were red at their meter.
    pub metered: Signal<Out, Bits<32>>,
    /// Frames deflected on drop.
    pub deflected: Signal<Out, Bits<32>>,
    /// Occupancy per (output, band), at `o * 4 + b`.
    pub occ_pkts: [Signal<Out, Bits<16>>; NB],
    pub occ_bytes: [Signal<Out, Bits<32>>; NB],
    /// Occupancy per output, all bands.
    pub port_pkts: [Signal<Out, Bits<16>>; N],
    pub port_bytes: [Signal<Out, Bits<32>>; N],
    pub admitted: Signal<Out, Bits<32>>,
    pub refused: Signal<Out, Bits<32>>,
    pub trimmed: Signal<Out, Bits<32>>,
    /// Of `trimmed`, the headers returned to their sender.
    pub returned: Signal<Out, Bits<32>>,
    pub lost: Signal<Out, Bits<32>>,

    // holds
    h_v: [DFF<bool>; N],
    h_o: [DFF<Bits<8>>; N],
    h_b: [DFF<Bits<2>>; N],
    h_by: [DFF<Bits<32>>; N],
    h_w: [DFF<Bits<16>>; N],
    h_e: [DFF<Bits<3>>; N],
    h_ok: [DFF<bool>; N],
    h_t: [DFF<bool>; N],
    h_cs: [DFF<Bits<16>>; N],
    h_rb: [DFF<Bits<48>>; N],
    // the lane's round-robin pointer, as a mask: pm[i] is "i's place in its lane >= pointer"
    pm: [DFF<bool>; N],
    // S1 -> S2
    s1_v: [DFF<bool>; K],
    s1_i: [DFF<Bits<8>>; K],
    s1_o: [DFF<Bits<8>>; K],
    s1_b: [DFF<Bits<2>>; K],
    s1_by: [DFF<Bits<32>>; K],
    s1_w: [DFF<Bits<16>>; K],
    s1_e: [DFF<Bits<3>>; K],
    s1_ok: [DFF<bool>; K],
    s1_t: [DFF<bool>; K],
    s1_cs: [DFF<Bits<16>>; K],
    s1_rb: [DFF<Bits<48>>; K],
    // S2 -> S3
    s2_v: [DFF<bool>; K],
    s2_i: [DFF<Bits<8>>; K],
    s2_by: [DFF<Bits<32>>; K],
    s2_o: [DFF<Bits<8>>; K],
    s2_b: [DFF<Bits<2>>; K],
    s2_w: [DFF<Bits<9>>; K],
    s2_e: [DFF<Bits<3>>; K],
    s2_ok: [DFF<bool>; K],
    s2_cp: [DFF<Bits<16>>; K],
    s2_cby: [DFF<Bits<32>>; K],
    // the band's byte limit less the frame's bytes, and "the frame alone fits the limit"
    // (compared with the counter in S3: an add after the counter's multiplexer was
    // ECP5's critical path)
    s2_room: [DFF<Bits<32>>; K],
    s2_bok: [DFF<bool>; K],
    s2_lp: [DFF<Bits<16>>; K],
    s2_thr: [DFF<Bits<32>>; K],
    s2_fit: [DFF<bool>; K],
    s2_t: [DFF<bool>; K],
    s2_cs: [DFF<Bits<16>>; K],
    // trimming: band 0 of the pick's output (packets, bytes; band 0's byte limit less 64;
    // cells for 8 words)
    s2_cp0: [DFF<Bits<16>>; K],
    s2_cby0: [DFF<Bits<32>>; K],
    // band 0's byte limit less 64, and "64 bytes fit it"
    s2_room0: [DFF<Bits<32>>; K],
    s2_ok0: [DFF<bool>; K],
    s2_fit0: [DFF<bool>; K],
    // return to sender: band 0 of the pick's input's own port (packets, bytes)
    s2_cpr: [DFF<Bits<16>>; K],
    s2_cbyr: [DFF<Bits<32>>; K],
    s2_rb: [DFF<Bits<48>>; K],
    // the pick's output, all bands (packets, bytes; the port's byte limit less the frame's
    // bytes, and "the frame alone fits it")
    s2_pcp: [DFF<Bits<16>>; K],
    s2_pcby: [DFF<Bits<32>>; K],
    s2_proom: [DFF<Bits<32>>; K],
    s2_pbok: [DFF<bool>; K],
    // S3 -> S4: the request, and what S3's compares found: it fits whole (`fa`), its header
    // fits band 0 of its output (`ft`), or band 0 of its input's own port (`fr`)
    s3_v: [DFF<bool>; K],
    s3_i: [DFF<Bits<8>>; K],
    s3_o: [DFF<Bits<8>>; K],
    s3_b: [DFF<Bits<2>>; K],
    s3_by: [DFF<Bits<32>>; K],
    s3_w: [DFF<Bits<9>>; K],
    s3_e: [DFF<Bits<3>>; K],
    s3_cs: [DFF<Bits<16>>; K],
    s3_rb: [DFF<Bits<48>>; K],
    s3_fa: [DFF<bool>; K],
    s3_ft: [DFF<bool>; K],
    s3_fr: [DFF<bool>; K],
    s3_hx: [DFF<bool>; KNB],
    // S4: counter updates
    s4_v: [DFF<bool>; K],
    // one-hot (lane, output, band) of the pick in S2 and S3, and of an admitted frame in S4, at
    // l * NB + o * 4 + b
    s2_hx: [DFF<bool>; KNB],
    s4_hx: [DFF<bool>; KNB],
    s4_by: [DFF<Bits<32>>; K],
    s4_r: [DFF<bool>; K],
    s4_t: [DFF<bool>; K],
    s4_rt: [DFF<bool>; K],
    // verdicts
    vd_v: [DFF<bool>; N],
    vd_a: [DFF<bool>; N],
    vd_w: [DFF<Bits<9>>; N],
    vd_e: [DFF<Bits<3>>; N],
    vd_o: [DFF<Bits<8>>; N],
    vd_b: [DFF<Bits<2>>; N],
    vd_by: [DFF<Bits<32>>; N],
    vd_t: [DFF<bool>; N],
    vd_cs: [DFF<Bits<16>>; N],
    vd_rt: [DFF<bool>; N],
    vd_rb: [DFF<Bits<48>>; N],
    // S5: the admitted packets and bytes of each (output, band), summed over the lanes
    s5_p: [DFF<Bits<16>>; NB],
    s5_b: [DFF<Bits<32>>; NB],
    // ... and per output, all bands
    s5_pp: [DFF<Bits<16>>; N],
    s5_pb: [DFF<Bits<32>>; N],
    // counters, thresholds, free cells less headroom
    occ_p: [DFF<Bits<16>>; NB],
    occ_b: [DFF<Bits<32>>; NB],
    pocc_p: [DFF<Bits<16>>; N],
    pocc_b: [DFF<Bits<32>>; N],
    thr: [DFF<Bits<32>>; BANDS],
    fh: DFF<Bits<16>>,
    c_adm: DFF<Bits<32>>,
    c_ref: DFF<Bits<32>>,
    c_lost: DFF<Bits<32>>,
    c_trim: DFF<Bits<32>>,
    c_ret: DFF<Bits<32>>,
    c_met: DFF<Bits<32>>,
    c_dod: DFF<Bits<32>>,
    // Tofino-style trimming: the policy block, the pick's pipe (S1), "trimmable and well
    // formed" (S3), S4's deflection and metered trim, the verdicts' deflection
    tp: TofinoPolicy<N, K, M, NB, KNB>,
    s1_p: [DFF<Bits<2>>; K],
    s3_tr: [DFF<bool>; K],
    // S3: free cells (less headroom) for a header's 8 words, for a deflection
    s3_fd: [DFF<bool>; K],
    s4_d: [DFF<bool>; K],
    s4_m: [DFF<bool>; K],
    vd_dd: [DFF<bool>; N],
    // Bolt: the policy block, the requests' flags (hold, S1), the verdicts' fields, S4's SRC
    bp: BoltPolicy<N, K>,
    h_bf: [DFF<Bits<8>>; N],
    s1_bf: [DFF<Bits<8>>; K],
    vd_bm: [DFF<bool>; N],
    vd_src: [DFF<bool>; N],
    vd_bf: [DFF<Bits<8>>; N],
    vd_q: [DFF<Bits<24>>; N],
    s4_src: [DFF<bool>; K],
    c_src: DFF<Bits<32>>,
    l_nsrc: L<Bits<8>>,

    // combinational
    l_p: [L<Bits<2>>; K],
    l_mt: [L<bool>; K],
    l_ht: [L<bool>; K],
    l_dod: [L<bool>; K],
    l_hok: L<bool>,
    l_nmet: L<Bits<8>>,
    l_ndod: L<Bits<8>>,
    l_fa: [L<bool>; K],
    l_fb: [L<bool>; K],
    l_sa: [L<bool>; N],
    l_sb: [L<bool>; N],
    l_sel: [L<bool>; N],
    l_pre: [L<bool>; K],
    l_i: [L<Bits<8>>; K],
    l_o: [L<Bits<8>>; K],
    l_b: [L<Bits<2>>; K],
    l_by: [L<Bits<32>>; K],
    l_w: [L<Bits<16>>; K],
    l_e: [L<Bits<3>>; K],
    l_ok: [L<bool>; K],
    l_anylost: L<bool>,
    l_taken: [L<bool>; N],
    l_cp: [L<Bits<16>>; K],
    l_cby: [L<Bits<32>>; K],
    l_cells: [L<Bits<16>>; K],
    l_adm: [L<bool>; K],
    l_trim: [L<bool>; K],
    l_cp0: [L<Bits<16>>; K],
    l_cby0: [L<Bits<32>>; K],
    l_lby: [L<Bits<32>>; K],
    l_ret: [L<bool>; K],
    l_cpr: [L<Bits<16>>; K],
    l_cbyr: [L<Bits<32>>; K],
    l_pcp: [L<Bits<16>>; K],
    l_pcby: [L<Bits<32>>; K],
    l_a: [L<Bits<4>>; BANDS],
    l_fb32: L<Bits<32>>,
    l_f16: L<Bits<16>>,
    l_nadm: L<Bits<8>>,
    l_nref: L<Bits<8>>,
    l_ntrim: L<Bits<8>>,
    l_nret: L<Bits<8>>,
    l_ip: [L<Bits<16>>; NB],
    l_ib2: [L<Bits<32>>; NB],
    l_pp: [L<Bits<16>>; N],
    l_pb2: [L<Bits<32>>; N],

    k_idx: [Constant<Bits<8>>; N],
    k_bidx: [Constant<Bits<2>>; BANDS],
    k_n8: Constant<Bits<8>>,
    k_cellsh: Constant<Bits<8>>,
    k_lgn: Constant<Bits<8>>,
    k_nm1_16: Constant<Bits<16>>,
    k_a_max: Constant<Bits<4>>,
    k_tcells: Constant<Bits<16>>,
    k64_32: Constant<Bits<32>>,
    k4_8: Constant<Bits<8>>,
    k1_8: Constant<Bits<8>>,
    k0_8: Constant<Bits<8>>,
    k1_16: Constant<Bits<16>>,
    k0_16: Constant<Bits<16>>,
    k0_32: Constant<Bits<32>>,
    k0_48: Constant<Bits<48>>,
    k1_32: Constant<Bits<32>>,
    k0_2: Constant<Bits<2>>,
    k0_3: Constant<Bits<3>>,
}

/// 4 ports, one lane.
pub type Admission4 = Admission<4, 1, 4, 16, 16, 12>;
/// 16 ports, two lanes of 8 inputs.
pub type Admission16 = Admission<16, 2, 8, 64, 128, 10>;

fn arr<T: Default, const X: usize>() -> [T; X] {
    std::array::from_fn(|_| T::default())
}

fn c8(v: usize) -> Constant<Bits<8>> {
    Constant::new((v as u64).into())
}

impl<
        const N: usize,
        const K: usize,
        const M: usize,
        const NB: usize,
        const KNB: usize,
        const CC: usize,
    > Admission<N, K, M, NB, KNB, CC>
{
    /// Builds the block. Panics unless the parameters are consistent (module docs).
    pub fn new() -> Self {
        assert!(
            N.is_power_of_two() && (4..=64).contains(&N),
            "ports N={N} must be a power of two in 4..=64"
        );
        assert!(
            K >= 1 && N % K == 0 && M == N / K,
            "M={M} must be N/K (N={N}, K={K})"
        );
        assert!(M <= 8, "a lane serves at most 8 inputs (M={M})");
        assert_eq!(NB, N * BANDS, "NB must be 4N");
        assert_eq!(KNB, K * NB, "KNB must be K * NB");
        assert!(
            (2..=17).contains(&CC),
            "free_rows bits CC={CC} must be 2..=17"
        );
        let lgn = N.trailing_zeros() as usize;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inp: arr(),
            dep: arr(),
            band: arr(),
            dt_on: Default::default(),
            trim_on: Default::default(),
            ret_on: Default::default(),
            free_rows: Default::default(),
            headroom: Default::default(),
            lim_port_pkts: Default::default(),
            lim_port_bytes: Default::default(),
            lim_hdr_pkts: Default::default(),
            lim_hdr_bytes: Default::default(),
            tof: Default::default(),
            cong: arr(),
            rel: arr(),
            mode: arr(),
            dod: arr(),
            pipe_of: arr(),
            bolt: Default::default(),
            pru: arr(),
            sm: arr(),
            srcs: Default::default(),
            metered: Default::default(),
            deflected: Default::default(),
            occ_pkts: arr(),
            occ_bytes: arr(),
            port_pkts: arr(),
            port_bytes: arr(),
            admitted: Default::default(),
            refused: Default::default(),
            trimmed: Default::default(),
            returned: Default::default(),
            lost: Default::default(),
            h_v: arr(),
            h_o: arr(),
            h_b: arr(),
            h_by: arr(),
            h_w: arr(),
            h_e: arr(),
            h_ok: arr(),
            h_t: arr(),
            h_cs: arr(),
            h_rb: arr(),
            pm: arr(),
            s1_v: arr(),
            s1_i: arr(),
            s1_o: arr(),
            s1_b: arr(),
            s1_by: arr(),
            s1_w: arr(),
            s1_e: arr(),
            s1_ok: arr(),
            s1_t: arr(),
            s1_cs: arr(),
            s1_rb: arr(),
            s2_v: arr(),
            s2_i: arr(),
            s2_by: arr(),
            s2_o: arr(),
            s2_b: arr(),
            s2_w: arr(),
            s2_e: arr(),
            s2_ok: arr(),
            s2_cp: arr(),
            s2_cby: arr(),
            s2_room: arr(),
            s2_bok: arr(),
            s2_lp: arr(),
            s2_thr: arr(),
            s2_fit: arr(),
            s2_t: arr(),
            s2_cs: arr(),
            s2_cp0: arr(),
            s2_cby0: arr(),
            s2_room0: arr(),
            s2_ok0: arr(),
            s2_fit0: arr(),
            s2_cpr: arr(),
            s2_cbyr: arr(),
            s2_rb: arr(),
            s2_pcp: arr(),
            s2_pcby: arr(),
            s2_proom: arr(),
            s2_pbok: arr(),
            s3_v: arr(),
            s3_i: arr(),
            s3_o: arr(),
            s3_b: arr(),
            s3_by: arr(),
            s3_w: arr(),
            s3_e: arr(),
            s3_cs: arr(),
            s3_rb: arr(),
            s3_fa: arr(),
            s3_ft: arr(),
            s3_fr: arr(),
            s3_hx: arr(),
            s4_v: arr(),
            s2_hx: arr(),
            s4_hx: arr(),
            s4_by: arr(),
            s4_r: arr(),
            s4_t: arr(),
            s4_rt: arr(),
            vd_v: arr(),
            vd_a: arr(),
            vd_w: arr(),
            vd_e: arr(),
            vd_o: arr(),
            vd_b: arr(),
            vd_by: arr(),
            vd_t: arr(),
            vd_cs: arr(),
            vd_rt: arr(),
            vd_rb: arr(),
            s5_p: arr(),
            s5_b: arr(),
            s5_pp: arr(),
            s5_pb: arr(),
            occ_p: arr(),
            occ_b: arr(),
            pocc_p: arr(),
            pocc_b: arr(),
            thr: arr(),
            fh: Default::default(),
            c_adm: Default::default(),
            c_ref: Default::default(),
            c_lost: Default::default(),
            c_trim: Default::default(),
            c_ret: Default::default(),
            c_met: Default::default(),
            c_dod: Default::default(),
            tp: TofinoPolicy::new(),
            s1_p: arr(),
            s3_tr: arr(),
            s3_fd: arr(),
            s4_d: arr(),
            s4_m: arr(),
            vd_dd: arr(),
            bp: BoltPolicy::new(),
            h_bf: arr(),
            s1_bf: arr(),
            vd_bm: arr(),
            vd_src: arr(),
            vd_bf: arr(),
            vd_q: arr(),
            s4_src: arr(),
            c_src: Default::default(),
            l_nsrc: Default::default(),
            l_p: arr(),
            l_mt: arr(),
            l_ht: arr(),
            l_dod: arr(),
            l_hok: Default::default(),
            l_nmet: Default::default(),
            l_ndod: Default::default(),
            l_fa: arr(),
            l_fb: arr(),
            l_sa: arr(),
            l_sb: arr(),
            l_sel: arr(),
            l_pre: arr(),
            l_i: arr(),
            l_o: arr(),
            l_b: arr(),
            l_by: arr(),
            l_w: arr(),
            l_e: arr(),
            l_ok: arr(),
            l_anylost: Default::default(),
            l_taken: arr(),
            l_cp: arr(),
            l_cby: arr(),
            l_cells: arr(),
            l_adm: arr(),
            l_trim: arr(),
            l_cp0: arr(),
            l_cby0: arr(),
            l_lby: arr(),
            l_ret: arr(),
            l_cpr: arr(),
            l_cbyr: arr(),
            l_pcp: arr(),
            l_pcby: arr(),
            l_a: arr(),
            l_fb32: Default::default(),
            l_f16: Default::default(),
            l_nadm: Default::default(),
            l_nref: Default::default(),
            l_ntrim: Default::default(),
            l_nret: Default::default(),
            l_ip: arr(),
            l_ib2: arr(),
            l_pp: arr(),
            l_pb2: arr(),
            k_idx: std::array::from_fn(c8),
            k_bidx: std::array::from_fn(|b| Constant::new((b as u64).into())),
            k_n8: c8(N),
            k_cellsh: c8(3 + lgn),
            k_lgn: c8(lgn),
            k_nm1_16: Constant::new(((N - 1) as u64).into()),
            k_a_max: Constant::new(8.into()),
            k_tcells: Constant::new((8usize.div_ceil(N) as u64).into()),
            k64_32: Constant::new(64.into()),
            k4_8: c8(4),
            k1_8: c8(1),
            k0_8: c8(0),
            k1_16: Constant::new(1.into()),
            k0_16: Constant::new(0.into()),
            k0_32: Constant::new(0.into()),
            k0_48: Constant::new(0.into()),
            k1_32: Constant::new(1.into()),
            k0_2: Constant::new(0.into()),
            k0_3: Constant::new(0.into()),
        }
    }
}

impl<
        const N: usize,
        const K: usize,
        const M: usize,
        const NB: usize,
        const KNB: usize,
        const CC: usize,
    > Default for Admission<N, K, M, NB, KNB, CC>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<
        const N: usize,
        const K: usize,
        const M: usize,
        const NB: usize,
        const KNB: usize,
        const CC: usize,
    > Logic for Admission<N, K, M, NB, KNB, CC>
{
    #[hdl_gen]
    fn update(&mut self) {
        // `mm` is M: array indices may use loop variables and literals only.
        for mm in M..(M + 1) {
            for nb in NB..(NB + 1) {
                // ---------------- clocks, defaults ----------------
                self.fh.clock.next = self.clock.val();
                self.c_adm.clock.next = self.clock.val();
                self.c_ref.clock.next = self.clock.val();
                self.c_lost.clock.next = self.clock.val();
                self.c_trim.clock.next = self.clock.val();
                self.c_ret.clock.next = self.clock.val();
                self.c_met.clock.next = self.clock.val();
                self.c_dod.clock.next = self.clock.val();
                // the policy block: it sees the lanes' S1 registers and S4's deflections
                self.tp.clock.next = self.clock.val();
                self.tp.reset.next = self.reset.val();
                self.tp.cfg.on.next = self.tof.on.val();
                self.tp.cfg.pipes.next = self.tof.pipes.val();
                self.tp.cfg.burst.next = self.tof.burst.val();
                self.tp.cfg.t0.next = self.tof.t0.val();
                self.tp.cfg.t1.next = self.tof.t1.val();
                self.tp.cfg.lim_dod.next = self.tof.lim_dod.val();
                for o in 0..N {
                    self.tp.cong[o].next = self.cong[o].val();
                    self.mode[o].next = self.tp.mode[o].val();
                    self.pipe_of[o].next = self.tp.pipe_of[o].val();
                }
                for p in 0..MAX_PIPES {
                    self.tp.rel[p].next = self.rel[p].val();
                    self.dod[p].next = self.tp.dod[p].val();
                }
                for l in 0..K {
                    self.tp.q_v[l].next = self.s1_v[l].q.val();
                    self.tp.q_ok[l].next = self.s1_ok[l].q.val();
                    self.tp.q_o[l].next = self.s1_o[l].q.val();
                    self.tp.q_p[l].next = self.s1_p[l].q.val();
                    self.tp.q_by[l].next = self.s1_by[l].q.val();
                    self.tp.d_v[l].next = self.s4_d[l].q.val();
                    self.bp.q_v[l].next = self.s1_v[l].q.val();
                    self.bp.q_ok[l].next = self.s1_ok[l].q.val();
                    self.bp.q_o[l].next = self.s1_o[l].q.val();
                    self.bp.q_by[l].next = self.s1_by[l].q.val().get_bits::<26>(0);
                    self.bp.q_bf[l].next = self.s1_bf[l].q.val();
                    self.bp.q_pb[l].next = self.s2_pcby[l].q.val();
                    self.s1_bf[l].clock.next = self.clock.val();
                    self.s4_src[l].clock.next = self.clock.val();
                    self.s1_p[l].clock.next = self.clock.val();
                    self.s3_tr[l].clock.next = self.clock.val();
                    self.s3_fd[l].clock.next = self.clock.val();
                    self.s4_d[l].clock.next = self.clock.val();
                    self.s4_m[l].clock.next = self.clock.val();
                }
                // Bolt's policy block: it sees the lanes' S1 registers and S2's port bytes
                self.bp.clock.next = self.clock.val();
                self.bp.reset.next = self.reset.val();
                self.bp.cfg.on.next = self.bolt.on.val();
                self.bp.cfg.cc_thresh.next = self.bolt.cc_thresh.val();
                self.bp.cfg.mtu.next = self.bolt.mtu.val();
                self.bp.cfg.pru_cap.next = self.bolt.pru_cap.val();
                self.bp.cfg.sm_off.next = self.bolt.sm_off.val();
                self.c_src.clock.next = self.clock.val();
                for o in 0..N {
                    self.pru[o].next = self.bp.pru[o].val();
                    self.sm[o].next = self.bp.sm[o].val();
                }
                for i in 0..N {
                    self.vd_dd[i].clock.next = self.clock.val();
                    self.vd_dd[i].d.next = self.vd_dd[i].q.val();
                    self.h_bf[i].clock.next = self.clock.val();
                    self.h_bf[i].d.next = self.h_bf[i].q.val();
                    self.vd_bm[i].clock.next = self.clock.val();
                    self.vd_bm[i].d.next = self.vd_bm[i].q.val();
                    self.vd_src[i].clock.next = self.clock.val();
                    self.vd_src[i].d.next = self.vd_src[i].q.val();
                    self.vd_bf[i].clock.next = self.clock.val();
                    self.vd_bf[i].d.next = self.vd_bf[i].q.val();
                    self.vd_q[i].clock.next = self.clock.val();
                    self.vd_q[i].d.next = self.vd_q[i].q.val();
                    self.h_v[i].clock.next = self.clock.val();
                    self.h_v[i].d.next = self.h_v[i].q.val();
                    self.h_o[i].clock.next = self.clock.val();
                    self.h_o[i].d.next = self.h_o[i].q.val();
                    self.h_b[i].clock.next = self.clock.val();
                    self.h_b[i].d.next = self.h_b[i].q.val();
                    self.h_by[i].clock.next = self.clock.val();
                    self.h_by[i].d.next = self.h_by[i].q.val();
                    self.h_w[i].clock.next = self.clock.val();
                    self.h_w[i].d.next = self.h_w[i].q.val();
                    self.h_e[i].clock.next = self.clock.val();
                    self.h_e[i].d.next = self.h_e[i].q.val();
                    self.h_ok[i].clock.next = self.clock.val();
                    self.h_ok[i].d.next = self.h_ok[i].q.val();
                    self.h_t[i].clock.next = self.clock.val();
                    self.h_t[i].d.next = self.h_t[i].q.val();
                    self.h_cs[i].clock.next = self.clock.val();
                    self.h_cs[i].d.next = self.h_cs[i].q.val();
                    self.h_rb[i].clock.next = self.clock.val();
                    self.h_rb[i].d.next = self.h_rb[i].q.val();
                    self.pm[i].clock.next = self.clock.val();
                    self.pm[i].d.next = self.pm[i].q.val();
                    self.vd_v[i].clock.next = self.clock.val();
                    self.vd_v[i].d.next = false;
                    self.vd_a[i].clock.next = self.clock.val();
                    self.vd_a[i].d.next = self.vd_a[i].q.val();
                    self.vd_w[i].clock.next = self.clock.val();
                    self.vd_w[i].d.next = self.vd_w[i].q.val();
                    self.vd_e[i].clock.next = self.clock.val();
                    self.vd_e[i].d.next = self.vd_e[i].q.val();
                    self.vd_o[i].clock.next = self.clock.val();
                    self.vd_o[i].d.next = self.vd_o[i].q.val();
                    self.vd_b[i].clock.next = self.clock.val();
                    self.vd_b[i].d.next = self.vd_b[i].q.val();
                    self.vd_by[i].clock.next = self.clock.val();
                    self.vd_by[i].d.next = self.vd_by[i].q.val();
                    self.vd_t[i].clock.next = self.clock.val();
                    self.vd_t[i].d.next = self.vd_t[i].q.val();
                    self.vd_cs[i].clock.next = self.clock.val();
                    self.vd_cs[i].d.next = self.vd_cs[i].q.val();
                    self.vd_rt[i].clock.next = self.clock.val();
                    self.vd_rt[i].d.next = self.vd_rt[i].q.val();
                    self.vd_rb[i].clock.next = self.clock.val();
                    self.vd_rb[i].d.next = self.vd_rb[i].q.val();
                }
                for l in 0..K {
                    self.s1_v[l].clock.next = self.clock.val();
                    self.s1_i[l].clock.next = self.clock.val();
                    self.s1_o[l].clock.next = self.clock.val();
                    self.s1_b[l].clock.next = self.clock.val();
                    self.s1_by[l].clock.next = self.clock.val();
                    self.s1_w[l].clock.next = self.clock.val();
                    self.s1_e[l].clock.next = self.clock.val();
                    self.s1_ok[l].clock.next = self.clock.val();
                    self.s1_t[l].clock.next = self.clock.val();
                    self.s1_cs[l].clock.next = self.clock.val();
                    self.s1_rb[l].clock.next = self.clock.val();
                    self.s2_cpr[l].clock.next = self.clock.val();
                    self.s2_cbyr[l].clock.next = self.clock.val();
                    self.s2_rb[l].clock.next = self.clock.val();
                    self.s2_pcp[l].clock.next = self.clock.val();
                    self.s2_pcby[l].clock.next = self.clock.val();
                    self.s2_proom[l].clock.next = self.clock.val();
                    self.s2_pbok[l].clock.next = self.clock.val();
                    self.s4_rt[l].clock.next = self.clock.val();
                    self.s2_t[l].clock.next = self.clock.val();
                    self.s2_cs[l].clock.next = self.clock.val();
                    self.s2_cp0[l].clock.next = self.clock.val();
                    self.s2_cby0[l].clock.next = self.clock.val();
                    self.s2_room0[l].clock.next = self.clock.val();
                    self.s2_ok0[l].clock.next = self.clock.val();
                    self.s2_fit0[l].clock.next = self.clock.val();
                    self.s4_t[l].clock.next = self.clock.val();
                    self.s2_v[l].clock.next = self.clock.val();
                    self.s2_i[l].clock.next = self.clock.val();
                    self.s2_by[l].clock.next = self.clock.val();
                    self.s2_o[l].clock.next = self.clock.val();
                    self.s2_b[l].clock.next = self.clock.val();
                    self.s2_w[l].clock.next = self.clock.val();
                    self.s2_e[l].clock.next = self.clock.val();
                    self.s2_ok[l].clock.next = self.clock.val();
                    self.s2_cp[l].clock.next = self.clock.val();
                    self.s2_cby[l].clock.next = self.clock.val();
                    self.s2_room[l].clock.next = self.clock.val();
                    self.s2_bok[l].clock.next = self.clock.val();
                    self.s2_lp[l].clock.next = self.clock.val();
                    self.s2_thr[l].clock.next = self.clock.val();
                    self.s2_fit[l].clock.next = self.clock.val();
                    self.s4_v[l].clock.next = self.clock.val();

                    self.s4_by[l].clock.next = self.clock.val();
                    self.s4_r[l].clock.next = self.clock.val();
                    self.s3_v[l].clock.next = self.clock.val();
                    self.s3_i[l].clock.next = self.clock.val();
                    self.s3_o[l].clock.next = self.clock.val();
                    self.s3_b[l].clock.next = self.clock.val();
                    self.s3_by[l].clock.next = self.clock.val();
                    self.s3_w[l].clock.next = self.clock.val();
                    self.s3_e[l].clock.next = self.clock.val();
                    self.s3_cs[l].clock.next = self.clock.val();
                    self.s3_rb[l].clock.next = self.clock.val();
                    self.s3_fa[l].clock.next = self.clock.val();
                    self.s3_ft[l].clock.next = self.clock.val();
                    self.s3_fr[l].clock.next = self.clock.val();
                }
                for x in 0..KNB {
                    self.s2_hx[x].clock.next = self.clock.val();
                    self.s3_hx[x].clock.next = self.clock.val();
                    self.s3_hx[x].d.next = self.s2_hx[x].q.val();
                    self.s4_hx[x].clock.next = self.clock.val();
                }
                for x in 0..NB {
                    self.s5_p[x].clock.next = self.clock.val();
                    self.s5_b[x].clock.next = self.clock.val();
                    self.occ_p[x].clock.next = self.clock.val();
                    self.occ_b[x].clock.next = self.clock.val();
                }
                for o in 0..N {
                    self.s5_pp[o].clock.next = self.clock.val();
                    self.s5_pb[o].clock.next = self.clock.val();
                    self.pocc_p[o].clock.next = self.clock.val();
                    self.pocc_b[o].clock.next = self.clock.val();
                }
                for b in 0..BANDS {
                    self.thr[b].clock.next = self.clock.val();
                }

                // ---------------- free cells and thresholds (a cycle old) ----------------
                self.l_f16.next = bit_cast::<16, CC>(self.free_rows.val());
                self.fh.d.next = self.k0_16.val();
                if self.l_f16.val() > self.headroom.val() {
                    self.fh.d.next = self.l_f16.val() - self.headroom.val();
                }
                self.l_fb32.next = bit_cast::<32, CC>(self.free_rows.val()) << self.k_cellsh.val();
                for b in 0..BANDS {
                    self.l_a[b].next = self.band[b].dt_a.val();
                    if self.band[b].dt_a.val() > self.k_a_max.val() {
                        self.l_a[b].next = self.k_a_max.val();
                    }
                    self.thr[b].d.next =
                        (self.l_fb32.val() << self.l_a[b].val()) >> self.k4_8.val();
                }

                // ---------------- lanes ----------------
                for i in 0..N {
                    self.l_taken[i].next = false;
                }
                self.l_nadm.next = self.k0_8.val();
                self.l_nref.next = self.k0_8.val();
                self.l_ntrim.next = self.k0_8.val();
                self.l_nret.next = self.k0_8.val();
                self.l_nmet.next = self.k0_8.val();
                self.l_nsrc.next = self.k0_8.val();
                self.l_ndod.next = self.k0_8.val();
                // a header may be trimmed with trimming on, ideal or Tofino-style
                self.l_hok.next = self.trim_on.val() | self.tof.on.val();
                for l in 0..K {
                    // S1: round robin over the lane's holds, as one-hot selects and OR trees:
                    // the first full hold at or after the pointer (`pm`), else the first full one
                    self.l_fa[l].next = false;
                    self.l_fb[l].next = false;
                    for m in 0..M {
                        self.l_sa[l * mm + m].next = self.h_v[l * mm + m].q.val()
                            & self.pm[l * mm + m].q.val()
                            & !self.l_fa[l].val();
                        self.l_fa[l].next = self.l_fa[l].val()
                            | (self.h_v[l * mm + m].q.val() & self.pm[l * mm + m].q.val());
                        self.l_sb[l * mm + m].next =
                            self.h_v[l * mm + m].q.val() & !self.l_fb[l].val();
                        self.l_fb[l].next = self.l_fb[l].val() | self.h_v[l * mm + m].q.val();
                    }
                    self.l_i[l].next = self.k0_8.val();
                    self.l_o[l].next = self.k0_8.val();
                    self.l_b[l].next = self.k0_2.val();
                    self.l_by[l].next = self.k0_32.val();
                    self.l_w[l].next = self.k0_16.val();
                    self.l_e[l].next = self.k0_3.val();
                    self.l_ok[l].next = false;
                    self.l_trim[l].next = false;
                    self.l_cp0[l].next = self.k0_16.val();
                    self.l_cby0[l].next = self.k0_32.val();
                    self.s1_t[l].d.next = false;
                    self.s1_cs[l].d.next = self.k0_16.val();
                    self.s1_rb[l].d.next = self.k0_48.val();
                    self.s1_bf[l].d.next = self.k0_8.val();
                    self.l_p[l].next = self.k0_2.val();
                    for m in 0..M {
                        self.l_sel[l * mm + m].next = self.l_sb[l * mm + m].val();
                        if self.l_fa[l].val() {
                            self.l_sel[l * mm + m].next = self.l_sa[l * mm + m].val();
                        }
                        if self.l_sel[l * mm + m].val() {
                            self.l_i[l].next = self.l_i[l].val() | self.k_idx[l * mm + m].val();
                            self.l_o[l].next = self.l_o[l].val() | self.h_o[l * mm + m].q.val();
                            self.l_b[l].next = self.l_b[l].val() | self.h_b[l * mm + m].q.val();
                            self.l_by[l].next = self.l_by[l].val() | self.h_by[l * mm + m].q.val();
                            self.l_w[l].next = self.l_w[l].val() | self.h_w[l * mm + m].q.val();
                            self.l_e[l].next = self.l_e[l].val() | self.h_e[l * mm + m].q.val();
                            self.l_ok[l].next = self.l_ok[l].val() | self.h_ok[l * mm + m].q.val();
                            self.l_p[l].next =
                                self.l_p[l].val() | self.tp.pipe_of[l * mm + m].val();
                            self.s1_t[l].d.next = self.h_t[l * mm + m].q.val();
                            self.s1_cs[l].d.next = self.h_cs[l * mm + m].q.val();
                            self.s1_rb[l].d.next = self.h_rb[l * mm + m].q.val();
                            self.s1_bf[l].d.next = self.h_bf[l * mm + m].q.val();
                            self.h_v[l * mm + m].d.next = false;
                            self.l_taken[l * mm + m].next = true;
                        }
                    }
                    self.s1_v[l].d.next = self.l_fb[l].val();
                    self.s1_i[l].d.next = self.l_i[l].val();
                    self.s1_o[l].d.next = self.l_o[l].val();
                    self.s1_b[l].d.next = self.l_b[l].val();
                    self.s1_by[l].d.next = self.l_by[l].val();
                    self.s1_w[l].d.next = self.l_w[l].val();
                    self.s1_e[l].d.next = self.l_e[l].val();
                    self.s1_ok[l].d.next = self.l_ok[l].val();
                    self.s1_p[l].d.next = self.l_p[l].val();
                    // the pointer moves past the pick (to 0 after the last: every position)
                    self.l_pre[l].next = false;
                    for m in 0..M {
                        if self.l_fb[l].val() {
                            self.pm[l * mm + m].d.next =
                                self.l_pre[l].val() | self.l_sel[l * mm + mm - 1].val();
                        }
                        self.l_pre[l].next = self.l_pre[l].val() | self.l_sel[l * mm + m].val();
                    }

                    // S2: the counters of (out, band), the band's limits, the cells' fit
                    self.l_cp[l].next = self.k0_16.val();
                    self.l_cby[l].next = self.k0_32.val();
                    // return to sender: band 0 of the pick's own port, one of the lane's M
                    self.l_cpr[l].next = self.k0_16.val();
                    self.l_cbyr[l].next = self.k0_32.val();
                    self.l_pcp[l].next = self.k0_16.val();
                    self.l_pcby[l].next = self.k0_32.val();
                    for m in 0..M {
                        if self.s1_i[l].q.val() == self.k_idx[l * mm + m].val() {
                            self.l_cpr[l].next =
                                self.l_cpr[l].val() | self.occ_p[(l * mm + m) * 4].q.val();
                            self.l_cbyr[l].next =
                                self.l_cbyr[l].val() | self.occ_b[(l * mm + m) * 4].q.val();
                        }
                    }
                    for o in 0..N {
                        if self.s1_o[l].q.val() == self.k_idx[o].val() {
                            self.l_cp0[l].next = self.l_cp0[l].val() | self.occ_p[o * 4].q.val();
                            self.l_cby0[l].next = self.l_cby0[l].val() | self.occ_b[o * 4].q.val();
                            self.l_pcp[l].next = self.l_pcp[l].val() | self.pocc_p[o].q.val();
                            self.l_pcby[l].next = self.l_pcby[l].val() | self.pocc_b[o].q.val();
                        }
                        for b in 0..BANDS {
                            self.s2_hx[l * nb + o * 4 + b].d.next = (self.s1_o[l].q.val()
                                == self.k_idx[o].val())
                                & (self.s1_b[l].q.val() == self.k_bidx[b].val());
                            if (self.s1_o[l].q.val() == self.k_idx[o].val())
                                & (self.s1_b[l].q.val() == self.k_bidx[b].val())
                            {
                                self.l_cp[l].next =
                                    self.l_cp[l].val() | self.occ_p[o * 4 + b].q.val();
                                self.l_cby[l].next =
                                    self.l_cby[l].val() | self.occ_b[o * 4 + b].q.val();
                            }
                        }
                    }
                    self.s2_v[l].d.next = self.s1_v[l].q.val();
                    self.s2_i[l].d.next = self.s1_i[l].q.val();
                    self.s2_by[l].d.next = self.s1_by[l].q.val();
                    self.s2_o[l].d.next = self.s1_o[l].q.val();
                    self.s2_b[l].d.next = self.s1_b[l].q.val();
                    self.s2_w[l].d.next = self.s1_w[l].q.val().get_bits::<9>(0);
                    self.s2_e[l].d.next = self.s1_e[l].q.val();
                    self.s2_ok[l].d.next =
                        self.s1_ok[l].q.val() & (self.s1_o[l].q.val() < self.k_n8.val());
                    self.s2_cp[l].d.next = self.l_cp[l].val();
                    self.s2_cby[l].d.next = self.l_cby[l].val();
                    self.s2_lp[l].d.next = self.k0_16.val();
                    self.l_lby[l].next = self.k0_32.val();
                    self.s2_thr[l].d.next = self.k0_32.val();
                    for b in 0..BANDS {
                        if self.s1_b[l].q.val() == self.k_bidx[b].val() {
                            self.s2_lp[l].d.next = self.band[b].lim_pkts.val();
                            self.l_lby[l].next = self.band[b].lim_bytes.val();
                            self.s2_thr[l].d.next = self.thr[b].q.val();
                        }
                    }
                    self.s2_room[l].d.next = self.l_lby[l].val() - self.s1_by[l].q.val();
                    self.s2_bok[l].d.next = self.s1_by[l].q.val() <= self.l_lby[l].val();
                    self.s2_pcp[l].d.next = self.l_pcp[l].val();
                    self.s2_pcby[l].d.next = self.l_pcby[l].val();
                    self.s2_proom[l].d.next = self.lim_port_bytes.val() - self.s1_by[l].q.val();
                    self.s2_pbok[l].d.next = self.s1_by[l].q.val() <= self.lim_port_bytes.val();
                    self.s2_room0[l].d.next = self.lim_hdr_bytes.val() - self.k64_32.val();
                    self.s2_ok0[l].d.next = self.lim_hdr_bytes.val() >= self.k64_32.val();
                    self.l_cells[l].next =
                        (self.s1_w[l].q.val() + self.k_nm1_16.val()) >> self.k_lgn.val();
                    self.s2_fit[l].d.next = self.fh.q.val() >= self.l_cells[l].val();
                    self.s2_t[l].d.next = self.s1_t[l].q.val();
                    self.s2_cs[l].d.next = self.s1_cs[l].q.val();
                    self.s2_cp0[l].d.next = self.l_cp0[l].val();
                    self.s2_cby0[l].d.next = self.l_cby0[l].val();
                    self.s2_fit0[l].d.next = self.fh.q.val() >= self.k_tcells.val();
                    self.s2_cpr[l].d.next = self.l_cpr[l].val();
                    self.s2_cbyr[l].d.next = self.l_cbyr[l].val();
                    self.s2_rb[l].d.next = self.s1_rb[l].q.val();

                    // S3: compare (registered, so that S4's decisions fan out from registers)
                    self.s3_v[l].d.next = self.s2_v[l].q.val();
                    self.s3_i[l].d.next = self.s2_i[l].q.val();
                    self.s3_o[l].d.next = self.s2_o[l].q.val();
                    self.s3_b[l].d.next = self.s2_b[l].q.val();
                    self.s3_by[l].d.next = self.s2_by[l].q.val();
                    self.s3_w[l].d.next = self.s2_w[l].q.val();
                    self.s3_e[l].d.next = self.s2_e[l].q.val();
                    self.s3_cs[l].d.next = self.s2_cs[l].q.val();
                    self.s3_rb[l].d.next = self.s2_rb[l].q.val();
                    self.s3_fa[l].d.next = self.s2_ok[l].q.val()
                        & (self.s2_cp[l].q.val() < self.s2_lp[l].q.val())
                        & self.s2_bok[l].q.val()
                        & (self.s2_cby[l].q.val() <= self.s2_room[l].q.val())
                        & self.s2_fit[l].q.val()
                        & (self.s2_pcp[l].q.val() < self.lim_port_pkts.val())
                        & self.s2_pbok[l].q.val()
                        & (self.s2_pcby[l].q.val() <= self.s2_proom[l].q.val())
                        & (!self.dt_on.val() | (self.s2_cby[l].q.val() < self.s2_thr[l].q.val()));
                    self.s3_tr[l].d.next = self.s2_t[l].q.val() & self.s2_ok[l].q.val();
                    self.s3_fd[l].d.next = self.s2_fit0[l].q.val();
                    // its 64-byte header fits band 0 of its output
                    self.s3_ft[l].d.next = self.l_hok.val()
                        & self.s2_t[l].q.val()
                        & self.s2_ok[l].q.val()
                        & (self.s2_cp0[l].q.val() < self.lim_hdr_pkts.val())
                        & self.s2_ok0[l].q.val()
                        & (self.s2_cby0[l].q.val() <= self.s2_room0[l].q.val())
                        & self.s2_fit0[l].q.val()
                        & (!self.dt_on.val() | (self.s2_cby0[l].q.val() < self.thr[0].q.val()));
                    // ... or band 0 of the input's own port, to go back to its sender
                    self.s3_fr[l].d.next = self.l_hok.val()
                        & self.ret_on.val()
                        & self.s2_t[l].q.val()
                        & self.s2_ok[l].q.val()
                        & (self.s2_cpr[l].q.val() < self.lim_hdr_pkts.val())
                        & self.s2_ok0[l].q.val()
                        & (self.s2_cbyr[l].q.val() <= self.s2_room0[l].q.val())
                        & self.s2_fit0[l].q.val()
                        & (!self.dt_on.val() | (self.s2_cbyr[l].q.val() < self.thr[0].q.val()));

                    // S4: decide. Tofino-style: a trimmable frame red at its meter goes
                    // the header's way (`l_mt`); else whole; else deflected on drop. Ideal
                    // trimming: whole, else the header's way. The header's way: band 0 of the
                    // output, else back to the sender, else refused.
                    self.l_mt[l].next =
                        self.tof.on.val() & self.s3_tr[l].q.val() & self.tp.red[l].val();
                    self.l_adm[l].next = self.s3_fa[l].q.val() & !self.l_mt[l].val();
                    self.l_ht[l].next =
                        self.l_mt[l].val() | (!self.tof.on.val() & !self.s3_fa[l].q.val());
                    self.l_trim[l].next = self.l_ht[l].val() & self.s3_ft[l].q.val();
                    self.l_ret[l].next =
                        self.l_ht[l].val() & !self.s3_ft[l].q.val() & self.s3_fr[l].q.val();
                    self.l_dod[l].next = self.tof.on.val()
                        & !self.l_mt[l].val()
                        & !self.s3_fa[l].q.val()
                        & self.s3_tr[l].q.val()
                        & self.s3_fd[l].q.val()
                        & self.tp.dok[l].val();
                    for m in 0..M {
                        if self.s3_v[l].q.val()
                            & (self.s3_i[l].q.val() == self.k_idx[l * mm + m].val())
                        {
                            self.vd_v[l * mm + m].d.next = true;
                            self.vd_a[l * mm + m].d.next = self.l_adm[l].val();
                            self.vd_w[l * mm + m].d.next = self.s3_w[l].q.val();
                            self.vd_e[l * mm + m].d.next = self.s3_e[l].q.val();
                            self.vd_o[l * mm + m].d.next = self.s3_o[l].q.val();
                            self.vd_b[l * mm + m].d.next = self.s3_b[l].q.val();
                            self.vd_by[l * mm + m].d.next = self.s3_by[l].q.val();
                            self.vd_t[l * mm + m].d.next = self.l_trim[l].val();
                            self.vd_cs[l * mm + m].d.next = self.s3_cs[l].q.val();
                            self.vd_rt[l * mm + m].d.next = self.l_ret[l].val();
                            self.vd_rb[l * mm + m].d.next = self.s3_rb[l].q.val();
                            self.vd_dd[l * mm + m].d.next = self.l_dod[l].val();
                            self.vd_bm[l * mm + m].d.next = self.bp.bm[l].val();
                            self.vd_src[l * mm + m].d.next = self.bp.src[l].val();
                            self.vd_bf[l * mm + m].d.next = self.bp.bf[l].val();
                            self.vd_q[l * mm + m].d.next = self.bp.q[l].val();
                            if self.l_trim[l].val() | self.l_ret[l].val() | self.l_dod[l].val() {
                                self.vd_a[l * mm + m].d.next = true;
                                self.vd_t[l * mm + m].d.next = true;
                                self.vd_b[l * mm + m].d.next = self.k0_2.val();
                                self.vd_by[l * mm + m].d.next = self.k64_32.val();
                            }
                            if self.l_ret[l].val() {
                                self.vd_o[l * mm + m].d.next = self.k_idx[l * mm + m].val();
                            }
                        }
                    }
                    self.s4_v[l].d.next = self.s3_v[l].q.val()
                        & (self.l_adm[l].val()
                            | self.l_trim[l].val()
                            | self.l_ret[l].val()
                            | self.l_dod[l].val());
                    for o in 0..N {
                        // a trimmed or deflected header counts in band 0 of the same output,
                        // a returned one in band 0 of the input's own port
                        self.s4_hx[l * nb + o * 4].d.next = self.s3_v[l].q.val()
                            & ((self.l_adm[l].val() & self.s3_hx[l * nb + o * 4].q.val())
                                | ((self.l_trim[l].val() | self.l_dod[l].val())
                                    & (self.s3_hx[l * nb + o * 4].q.val()
                                        | self.s3_hx[l * nb + o * 4 + 1].q.val()
                                        | self.s3_hx[l * nb + o * 4 + 2].q.val()
                                        | self.s3_hx[l * nb + o * 4 + 3].q.val()))
                                | (self.l_ret[l].val()
                                    & (self.s3_i[l].q.val() == self.k_idx[o].val())));
                        for b in 1..BANDS {
                            self.s4_hx[l * nb + o * 4 + b].d.next =
                                self.s3_hx[l * nb + o * 4 + b].q.val()
                                    & self.s3_v[l].q.val()
                                    & self.l_adm[l].val();
                        }
                    }
                    self.s4_by[l].d.next = self.s3_by[l].q.val();
                    if self.l_trim[l].val() | self.l_ret[l].val() | self.l_dod[l].val() {
                        self.s4_by[l].d.next = self.k64_32.val();
                    }
                    self.s4_r[l].d.next = self.s3_v[l].q.val()
                        & !self.l_adm[l].val()
                        & !self.l_trim[l].val()
                        & !self.l_ret[l].val()
                        & !self.l_dod[l].val();
                    self.s4_d[l].d.next = self.s3_v[l].q.val() & self.l_dod[l].val();
                    self.s4_src[l].d.next = self.s3_v[l].q.val() & self.bp.src[l].val();
                    self.s4_m[l].d.next = self.s3_v[l].q.val()
                        & self.l_mt[l].val()
                        & (self.l_trim[l].val() | self.l_ret[l].val());
                    self.s4_t[l].d.next =
                        self.s3_v[l].q.val() & (self.l_trim[l].val() | self.l_ret[l].val());
                    self.s4_rt[l].d.next = self.s3_v[l].q.val() & self.l_ret[l].val();
                    // the statistics count the decisions in S4's registers
                    if self.s4_v[l].q.val() & !self.s4_t[l].q.val() & !self.s4_d[l].q.val() {
                        self.l_nadm.next = self.l_nadm.val() + self.k1_8.val();
                    }
                    if self.s4_r[l].q.val() {
                        self.l_nref.next = self.l_nref.val() + self.k1_8.val();
                    }
                    if self.s4_t[l].q.val() {
                        self.l_ntrim.next = self.l_ntrim.val() + self.k1_8.val();
                    }
                    if self.s4_rt[l].q.val() {
                        self.l_nret.next = self.l_nret.val() + self.k1_8.val();
                    }
                    if self.s4_m[l].q.val() {
                        self.l_nmet.next = self.l_nmet.val() + self.k1_8.val();
                    }
                    if self.s4_d[l].q.val() {
                        self.l_ndod.next = self.l_ndod.val() + self.k1_8.val();
                    }
                    if self.s4_src[l].q.val() {
                        self.l_nsrc.next = self.l_nsrc.val() + self.k1_8.val();
                    }
                }

                // ---------------- requests into holds (after the picks: a new one wins) -----
                self.l_anylost.next = false;
                for i in 0..N {
                    if self.inp[i].req_valid.val() {
                        if self.h_v[i].q.val() & !self.l_taken[i].val() {
                            self.l_anylost.next = true;
                        }
                        self.h_v[i].d.next = true;
                        self.h_o[i].d.next = self.inp[i].req_out.val();
                        self.h_b[i].d.next = self.inp[i].req_band.val();
                        self.h_by[i].d.next = self.inp[i].req_bytes.val();
                        self.h_w[i].d.next = self.inp[i].req_words.val();
                        self.h_e[i].d.next = self.inp[i].req_empty.val();
                        self.h_ok[i].d.next = self.inp[i].req_ok.val();
                        self.h_t[i].d.next = self.inp[i].req_trim.val();
                        self.h_cs[i].d.next = self.inp[i].req_csum.val();
                        self.h_rb[i].d.next = self.inp[i].req_rb.val();
                        self.h_bf[i].d.next = self.inp[i].req_bf.val();
                    }
                    self.inp[i].vd_valid.next = self.vd_v[i].q.val();
                    self.inp[i].vd_admit.next = self.vd_a[i].q.val();
                    self.inp[i].vd_words.next = self.vd_w[i].q.val();
                    self.inp[i].vd_empty.next = self.vd_e[i].q.val();
                    self.inp[i].vd_out.next = self.vd_o[i].q.val();
                    self.inp[i].vd_band.next = self.vd_b[i].q.val();
                    self.inp[i].vd_bytes.next = self.vd_by[i].q.val();
                    self.inp[i].vd_trim.next = self.vd_t[i].q.val();
                    self.inp[i].vd_csum.next = self.vd_cs[i].q.val();
                    self.inp[i].vd_ret.next = self.vd_rt[i].q.val();
                    self.inp[i].vd_rb.next = self.vd_rb[i].q.val();
                    self.inp[i].vd_dod.next = self.vd_dd[i].q.val();
                    self.inp[i].vd_bm.next = self.vd_bm[i].q.val();
                    self.inp[i].vd_src.next = self.vd_src[i].q.val();
                    self.inp[i].vd_bf.next = self.vd_bf[i].q.val();
                    self.inp[i].vd_q.next = self.vd_q[i].q.val();
                }

                // ---------------- counters ----------------
                for o in 0..N {
                    for b in 0..BANDS {
                        self.l_ip[o * 4 + b].next = self.k0_16.val();
                        self.l_ib2[o * 4 + b].next = self.k0_32.val();
                        for l in 0..K {
                            if self.s4_v[l].q.val() & self.s4_hx[l * nb + o * 4 + b].q.val() {
                                self.l_ip[o * 4 + b].next =
                                    self.l_ip[o * 4 + b].val() + self.k1_16.val();
                                self.l_ib2[o * 4 + b].next =
                                    self.l_ib2[o * 4 + b].val() + self.s4_by[l].q.val();
                            }
                        }
                        // S5 registers the sums: a counter adds one registered term
                        self.s5_p[o * 4 + b].d.next = self.l_ip[o * 4 + b].val();
                        self.s5_b[o * 4 + b].d.next = self.l_ib2[o * 4 + b].val();
                        self.occ_p[o * 4 + b].d.next =
                            self.occ_p[o * 4 + b].q.val() + self.s5_p[o * 4 + b].q.val();
                        self.occ_b[o * 4 + b].d.next =
                            self.occ_b[o * 4 + b].q.val() + self.s5_b[o * 4 + b].q.val();
                        if self.dep[o].valid.val()
                            & (self.dep[o].band.val() == self.k_bidx[b].val())
                        {
                            self.occ_p[o * 4 + b].d.next = self.occ_p[o * 4 + b].q.val()
                                + self.s5_p[o * 4 + b].q.val()
                                - self.k1_16.val();
                            self.occ_b[o * 4 + b].d.next = self.occ_b[o * 4 + b].q.val()
                                + self.s5_b[o * 4 + b].q.val()
                                - self.dep[o].bytes.val();
                        }
                        self.occ_pkts[o * 4 + b].next = self.occ_p[o * 4 + b].q.val();
                        self.occ_bytes[o * 4 + b].next = self.occ_b[o * 4 + b].q.val();
                    }
                    // the output, all bands: the same, with the lanes' admissions to any band
                    self.l_pp[o].next = self.k0_16.val();
                    self.l_pb2[o].next = self.k0_32.val();
                    for l in 0..K {
                        if self.s4_v[l].q.val()
                            & (self.s4_hx[l * nb + o * 4].q.val()
                                | self.s4_hx[l * nb + o * 4 + 1].q.val()
                                | self.s4_hx[l * nb + o * 4 + 2].q.val()
                                | self.s4_hx[l * nb + o * 4 + 3].q.val())
                        {
                            self.l_pp[o].next = self.l_pp[o].val() + self.k1_16.val();
                            self.l_pb2[o].next = self.l_pb2[o].val() + self.s4_by[l].q.val();
                        }
                    }
                    self.s5_pp[o].d.next = self.l_pp[o].val();
                    self.s5_pb[o].d.next = self.l_pb2[o].val();
                    self.pocc_p[o].d.next = self.pocc_p[o].q.val() + self.s5_pp[o].q.val();
                    self.pocc_b[o].d.next = self.pocc_b[o].q.val() + self.s5_pb[o].q.val();
                    if self.dep[o].valid.val() {
                        self.pocc_p[o].d.next =
                            self.pocc_p[o].q.val() + self.s5_pp[o].q.val() - self.k1_16.val();
                        self.pocc_b[o].d.next = self.pocc_b[o].q.val() + self.s5_pb[o].q.val()
                            - self.dep[o].bytes.val();
                    }
                    self.port_pkts[o].next = self.pocc_p[o].q.val();
                    self.port_bytes[o].next = self.pocc_b[o].q.val();
                }
                self.c_adm.d.next = self.c_adm.q.val() + bit_cast::<32, 8>(self.l_nadm.val());
                self.c_ref.d.next = self.c_ref.q.val() + bit_cast::<32, 8>(self.l_nref.val());
                if self.l_anylost.val() {
                    self.c_lost.d.next = self.c_lost.q.val() + self.k1_32.val();
                } else {
                    self.c_lost.d.next = self.c_lost.q.val();
                }
                self.c_trim.d.next = self.c_trim.q.val() + bit_cast::<32, 8>(self.l_ntrim.val());
                self.admitted.next = self.c_adm.q.val();
                self.c_ret.d.next = self.c_ret.q.val() + bit_cast::<32, 8>(self.l_nret.val());
                self.trimmed.next = self.c_trim.q.val();
                self.returned.next = self.c_ret.q.val();
                self.c_met.d.next = self.c_met.q.val() + bit_cast::<32, 8>(self.l_nmet.val());
                self.c_dod.d.next = self.c_dod.q.val() + bit_cast::<32, 8>(self.l_ndod.val());
                self.metered.next = self.c_met.q.val();
                self.deflected.next = self.c_dod.q.val();
                self.c_src.d.next = self.c_src.q.val() + bit_cast::<32, 8>(self.l_nsrc.val());
                self.srcs.next = self.c_src.q.val();
                self.refused.next = self.c_ref.q.val();
                self.lost.next = self.c_lost.q.val();

                // ---------------- reset ----------------
                if self.reset.val() {
                    for i in 0..N {
                        self.h_v[i].d.next = false;
                        self.pm[i].d.next = true;
                        self.vd_v[i].d.next = false;
                    }
                    for l in 0..K {
                        self.s1_v[l].d.next = false;
                        self.s2_v[l].d.next = false;
                        self.s3_v[l].d.next = false;
                        self.s4_v[l].d.next = false;
                        self.s4_r[l].d.next = false;
                        self.s4_t[l].d.next = false;
                        self.s4_rt[l].d.next = false;
                        self.s4_d[l].d.next = false;
                        self.s4_m[l].d.next = false;
                        self.s4_src[l].d.next = false;
                    }
                    for x in 0..NB {
                        self.s5_p[x].d.next = self.k0_16.val();
                        self.s5_b[x].d.next = self.k0_32.val();
                        self.occ_p[x].d.next = self.k0_16.val();
                        self.occ_b[x].d.next = self.k0_32.val();
                    }
                    for o in 0..N {
                        self.s5_pp[o].d.next = self.k0_16.val();
                        self.s5_pb[o].d.next = self.k0_32.val();
                        self.pocc_p[o].d.next = self.k0_16.val();
                        self.pocc_b[o].d.next = self.k0_32.val();
                    }
                    self.c_adm.d.next = self.k0_32.val();
                    self.c_ref.d.next = self.k0_32.val();
                    self.c_lost.d.next = self.k0_32.val();
                    self.c_trim.d.next = self.k0_32.val();
                    self.c_ret.d.next = self.k0_32.val();
                    self.c_met.d.next = self.k0_32.val();
                    self.c_dod.d.next = self.k0_32.val();
                    self.c_src.d.next = self.k0_32.val();
                }
            }
        }
    }
}
