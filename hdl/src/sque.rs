//! The new switch's queues and output schedulers (issue 30, fourth slice), with Tofino-style
//! trimming's recirculation path: descriptor
//! queues per (lane, output, band) as linked lists through one descriptor memory per
//! lane, indexed by the packet's head cell, and per output a scheduler (strict priority
//! or weighted round robin over bands, round robin over lanes) that hands descriptors to
//! the shared buffer ([`crate::sbuf`]) and reports departures to the admission
//! ([`crate::sadm`]). Memory grows with the buffer's cells, not with ports squared, and
//! no logic chains over inputs or outputs within a cycle. docs/switch-design.md has the
//! switch this belongs to.
//!
//! ```text
//!  vd[i] (admitted: out, band, bytes) ─► tag FIFO[i] ─┐
//!  cp[i] (head cell, meta) ──────────── pop ──────────┴─► stage[i] ─► lane l = i / M: round
//!     robin over its M stages (L1) ─► decode (L2) ─► enqueue into (l, out, band) (L3):
//!     descriptor RAM[cell] = (meta, bytes), link RAM[tail] = cell
//!  output o: pick (band by SP / WRR, lane by RR) ─► in its slot, read the head's
//!     descriptor and link ─► dq[o] (to the buffer) ─► dep[o] from the buffer ─►
//!     departure (band, bytes) to the admission
//! ```
//!
//! # Inputs
//! * **Verdicts** (`inp[i].vd_*`, from the admission): an admitted verdict's output, band
//!   and bytes go into input `i`'s tag FIFO (16). A verdict that finds it full is lost and
//!   counted (`lost`); the buffer never holds 16 admitted frames of one input that have
//!   not completed, so this does not happen in the switch.
//! * **Completions** (`inp[i].cp_*`, from the buffer, in verdict order): `cp_pop` is a
//!   register. It pops a completion when one is there, the tag FIFO is not empty, the pop
//!   did not happen in the cycle before, and the stage will be free; the completion and
//!   the tag FIFO's head go into the input's stage in that cycle.
//!
//! # Lanes (one enqueue per cycle each)
//! `K` lanes of `M = N/K <= 8` inputs. **L1**: round robin over the lane's full stages (the
//! first at or after the lane's pointer, else the first), which empties the pick's stage.
//! **L2**: the (output, band) decoded one-hot. **L3**: the enqueue into queue `(l, out,
//! band)`: the descriptor (the buffer's meta and the bytes) is written at the cell's
//! address in every replica of the lane's descriptor RAM and, if the queue is not empty,
//! the cell at the queue's tail's address in every replica of the lane's link RAM.
//!
//! # Queues
//! Per (lane, output, band): head cell, tail cell, count, "not empty" (an exact copy, kept
//! a cycle ahead) and "head pending". An enqueue sets the tail; into an empty queue, or
//! one whose only packet leaves in the same cycle, it sets the head too. A dequeue of a
//! queue of two or more packets makes its head pending: the head becomes the link read in
//! the dequeue's cycle, a cycle later (a queue of one packet becomes empty at once).
//!
//! # Outputs: slots, picks and dequeues
//! Each lane's RAMs exist `RP` times (replicas, same writes). Replica `r` serves output `o`
//! in the cycles with `ph == (o - r·S) mod N`, `S = N/RP`, where the phase `ph` counts
//! cycles modulo `N` from 0 in the first cycle after reset (or after power-up, whose
//! first cycle has no slot: the slot flags are registered from the phase a cycle
//! before): each output has a read slot every `S` cycles (4 at 4 ports with one replica, 8 at
//! 16 ports with two), as often as frames of 8 words need.
//! * **Pick**, every cycle into registers: the band, among those with a queue not empty
//!   at this output in any lane: by strict priority the lowest; by WRR (`wrr`) the first
//!   at or after the output's WRR band, else the first. The lane, among those whose queue
//!   of that band is not empty: the first at or after the output's lane pointer, else the
//!   first. And that queue's head cell.
//! * **Dequeue**, in the output's slot, if the pick is valid and the buffer's `dq_count` is
//!   below 2: the head's descriptor and link are read from the lane's replica; a cycle
//!   later the descriptor goes to the buffer (`dq_push`, registered), and the (band,
//!   bytes) into the output's departure FIFO (4). The lane pointer moves past the lane. By
//!   WRR, the band's turn counts the packet: with weight `w` (0 counts as 1), after `w`
//!   packets in a row from one band the turn moves to the next band; a packet from another
//!   band than the turn's starts that band's turn.
//! * **Departures**: when the buffer's `dep[o]` pulses (a packet left), the departure FIFO's
//!   head goes to the admission in the next cycle (`adm_dep_*`, registered).
//!
//! Slots are at least 4 cycles apart, so a pick always sees the state its dequeue will
//! change: a dequeue's pending head and its descriptor are settled before the output's
//! next pick.
//!
//! # Recirculation (Tofino-style trimming's deflect-on-drop, docs/switch-design.md)
//! A verdict with `vd_dod` (a header deflected on drop; `vd_admit` is set too, band 0, 64
//! bytes) carries the frame's whole length in words (`vd_words`, `W`). Its tag holds the
//! flag and `W`; the stage adds the input's pipe (`pipe_of[i]` in the pop's cycle).
//! * **L1** takes a **return** first: if a pipe's return register is valid for this lane,
//!   the lowest such pipe's header is the lane's pick (its cell, meta and output, band 0,
//!   64 bytes, not deflected); the stages wait (none is taken, the pointer stays).
//!   Otherwise the round robin over stages as above.
//! * **L2**: a deflected pick is not enqueued; it goes into the recirculation FIFO of
//!   (lane, its pipe) ([`RECIRC_DEPTH`] entries: cell, meta, output, `W`). Into a full one
//!   it is lost and counted (`lost`); the admission holds a pipe to `lim_dod + 5K - 1`
//!   deflected headers, so the switch keeps `lim_dod <= RECIRC_DEPTH - 5K + 1` and it
//!   does not happen there.
//! * **Servers**, one per pipe ([`MAX_PIPES`]), the pipe's recirculation port at line rate.
//!   A server holds one header for `W` cycles (a count from `W - 1` down to 0; `W` = 0
//!   holds 512). It is *done* at count 0; it *moves* the header into its return register
//!   when done and that register is empty, and is *free* when empty or moving. Free, it
//!   takes the head of one of its FIFOs (the first lane at or after its pointer with one
//!   not empty, else the first; the pointer moves past it) in the same cycle. So a pipe
//!   sends a header every `W` cycles while its lanes take the returns at once.
//! * **Returns**: a lane takes its return register's header in L1 (above), which empties
//!   the register. A cycle later `rel[p]` pulses for that pipe and `cong[o]` for its
//!   output (the admission's release of a deflected header and congestion signal), and a
//!   cycle after that `recirculated` counts them.
//! A deflected header reaches its queue `W + 7` cycles after its completion's pop at the
//! least (stage, L1, L2 into the FIFO, the server's take and its `W` cycles, the return
//! register, L1, L2, L3) and its output's descriptor FIFO `W + 10` (the workload checks
//! it).
//!
//! # Parameters
//! `N` ports, `K` lanes, `M = N/K`, `CA` cell address bits, `CC = CA + 1`, `RP` replicas
//! (`S = N/RP >= 4`), `NB = 4N`, `KNB = K·NB`, `KRP = K·RP`, `NRP = N·RP`, `NK = N·K`,
//! `N4K = 4·N·K`, `KP = 4·K` (recirculation FIFOs, at `l·4 + p`).
use crate::fifo::Fifo;
use crate::sadm::BANDS;
use crate::sbuf::{BufMeta, PackMeta};
use crate::stofino::MAX_PIPES;
use rust_hdl::prelude::*;

/// Entries of a recirculation FIFO (one per lane and pipe).
pub const RECIRC_DEPTH: usize = 64;
const RECIRC_A: usize = 6;

/// The most deflected headers a pipe may be allowed (`lim_dod`) with `lanes` lanes: a
/// pipe's count exceeds its limit by at most `5K - 1`, so this keeps it within a FIFO.
pub const fn recirc_dod_cap(lanes: usize) -> usize {
    RECIRC_DEPTH + 1 - 5 * lanes
}
const RECIRC_C: usize = 7;

/// Per input: verdicts from the admission, completions from the buffer.
#[derive(LogicInterface, Default)]
pub struct QInPort<const CA: usize> {
    pub vd_valid: Signal<In, bool>,
    pub vd_admit: Signal<In, bool>,
    pub vd_out: Signal<In, Bits<8>>,
    pub vd_band: Signal<In, Bits<2>>,
    pub vd_bytes: Signal<In, Bits<32>>,
    /// Deflected on drop: the header goes through its pipe's recirculation path.
    pub vd_dod: Signal<In, bool>,
    /// The frame's whole length in words (a deflected header's time in recirculation).
    pub vd_words: Signal<In, Bits<9>>,
    pub cp_valid: Signal<In, bool>,
    pub cp_cell: Signal<In, Bits<CA>>,
    pub cp_meta: Signal<In, BufMeta>,
    pub cp_pop: Signal<Out, bool>,
}

/// Per output: descriptors to the buffer, departures to the admission.
#[derive(LogicInterface, Default)]
pub struct QOutPort<const CA: usize> {
    pub dq_push: Signal<Out, bool>,
    pub dq_cell: Signal<Out, Bits<CA>>,
    pub dq_meta: Signal<Out, BufMeta>,
    pub dq_count: Signal<In, Bits<2>>,
    pub dep: Signal<In, bool>,
    pub adm_dep_valid: Signal<Out, bool>,
    pub adm_dep_band: Signal<Out, Bits<2>>,
    pub adm_dep_bytes: Signal<Out, Bits<32>>,
}

type L<T> = Signal<Local, T>;

/// The queues and schedulers. See the module documentation.
#[derive(LogicBlock)]
pub struct SwitchQueues<
    const N: usize,
    const K: usize,
    const M: usize,
    const CA: usize,
    const CC: usize,
    const RP: usize,
    const NB: usize,
    const KNB: usize,
    const KRP: usize,
    const NRP: usize,
    const NK: usize,
    const N4K: usize,
    const KP: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub inp: [QInPort<CA>; N],
    pub out: [QOutPort<CA>; N],
    /// Weighted round robin over bands instead of strict priority.
    pub wrr: Signal<In, bool>,
    /// Per band: WRR packets per turn (0 counts as 1).
    pub weight: [Signal<In, Bits<8>>; BANDS],
    /// Cycles in which an admitted verdict found its tag FIFO full or a deflected header
    /// its recirculation FIFO full (wrapping).
    pub lost: Signal<Out, Bits<32>>,
    /// Per input: its pipe (Tofino-style trimming, from the admission).
    pub pipe_of: [Signal<In, Bits<2>>; N],
    /// Per output: a deflected header for it left recirculation (a pulse: the congestion
    /// signal).
    pub cong: [Signal<Out, bool>; N],
    /// Per pipe: a deflected header left its recirculation path (a pulse).
    pub rel: [Signal<Out, bool>; MAX_PIPES],
    /// Deflected headers recirculated (wrapping).
    pub recirculated: Signal<Out, Bits<32>>,

    // ---- per input ----
    tq_o: [Fifo<Bits<8>, 4, 5>; N],
    tq_b: [Fifo<Bits<2>, 4, 5>; N],
    tq_by: [Fifo<Bits<32>, 4, 5>; N],
    tq_d: [Fifo<bool, 4, 5>; N],
    tq_w: [Fifo<Bits<9>, 4, 5>; N],
    pp: [DFF<bool>; N],
    st_v: [DFF<bool>; N],
    st_c: [DFF<Bits<CA>>; N],
    st_m: [DFF<BufMeta>; N],
    st_o: [DFF<Bits<8>>; N],
    st_b: [DFF<Bits<2>>; N],
    st_by: [DFF<Bits<32>>; N],
    st_d: [DFF<bool>; N],
    st_w: [DFF<Bits<9>>; N],
    st_p: [DFF<Bits<2>>; N],
    // the lane's round-robin pointer as a mask: pm[i] is "i's place in its lane >= pointer"
    pm: [DFF<bool>; N],
    c_lost: DFF<Bits<32>>,
    // ---- lanes ----
    e1_v: [DFF<bool>; K],
    e1_c: [DFF<Bits<CA>>; K],
    e1_m: [DFF<BufMeta>; K],
    e1_o: [DFF<Bits<8>>; K],
    e1_b: [DFF<Bits<2>>; K],
    e1_by: [DFF<Bits<32>>; K],
    e1_d: [DFF<bool>; K],
    e1_w: [DFF<Bits<9>>; K],
    e1_p: [DFF<Bits<2>>; K],
    // a return was picked, and its meta (muxed into e2 in L2: the packed stage meta is
    // registered as it is, so the pack block's output is read in one place)
    e1_r: [DFF<bool>; K],
    e1_rm: [DFF<BufMeta>; K],
    e2_v: [DFF<bool>; K],
    e2_c: [DFF<Bits<CA>>; K],
    e2_m: [DFF<BufMeta>; K],
    e2_by: [DFF<Bits<32>>; K],
    // one-hot (output, band) of the enqueue, at l * NB + o * 4 + b
    e2_hx: [DFF<bool>; KNB],
    // ---- queues, at l * NB + o * 4 + b ----
    q_hd: [DFF<Bits<CA>>; KNB],
    q_tl: [DFF<Bits<CA>>; KNB],
    q_cnt: [DFF<Bits<CC>>; KNB],
    q_ne: [DFF<bool>; KNB],
    q_p: [DFF<bool>; KNB],
    // ---- memories, lane l replica r at l * RP + r ----
    dm: [RAM<BufMeta, CA>; KRP],
    dby: [RAM<Bits<32>, CA>; KRP],
    nx: [RAM<Bits<CA>, CA>; KRP],
    // the phase (cycles modulo N), and "output o has replica r's slot in this cycle" at
    // o * RP + r, registered from the phase a cycle before
    ph: DFF<Bits<8>>,
    sl: [DFF<bool>; NRP],
    // ---- per output: pick ----
    pk_v: [DFF<bool>; N],
    // one-hot queue of the pick, at o * 4K + b * K + l
    pk_hx: [DFF<bool>; N4K],
    pk_lh: [DFF<bool>; NK],
    pk_b: [DFF<Bits<2>>; N],
    pk_c: [DFF<Bits<CA>>; N],
    pk_w: [DFF<Bits<8>>; N],
    // lane pointer mask (o * K + l) and WRR turn
    lp: [DFF<bool>; NK],
    wb: [DFF<Bits<2>>; N],
    wu: [DFF<Bits<8>>; N],
    // ---- per output: the read returning ----
    ri: [DFF<bool>; N],
    ri_rh: [DFF<bool>; NRP],
    ri_lh: [DFF<bool>; NK],
    ri_c: [DFF<Bits<CA>>; N],
    ri_b: [DFF<Bits<2>>; N],
    dq_v: [DFF<bool>; N],
    dq_c: [DFF<Bits<CA>>; N],
    dq_m: [DFF<BufMeta>; N],
    dp_b: [Fifo<Bits<2>, 2, 3>; N],
    dp_by: [Fifo<Bits<32>, 2, 3>; N],
    ad_v: [DFF<bool>; N],
    ad_b: [DFF<Bits<2>>; N],
    ad_by: [DFF<Bits<32>>; N],
    // ---- recirculation: FIFOs at l * 4 + p; per pipe a server and a return register ----
    rc_c: [Fifo<Bits<CA>, RECIRC_A, RECIRC_C>; KP],
    rc_m: [Fifo<BufMeta, RECIRC_A, RECIRC_C>; KP],
    rc_o: [Fifo<Bits<8>, RECIRC_A, RECIRC_C>; KP],
    rc_w: [Fifo<Bits<9>, RECIRC_A, RECIRC_C>; KP],
    sv_v: [DFF<bool>; MAX_PIPES],
    sv_n: [DFF<Bits<9>>; MAX_PIPES],
    sv_c: [DFF<Bits<CA>>; MAX_PIPES],
    sv_m: [DFF<BufMeta>; MAX_PIPES],
    sv_o: [DFF<Bits<8>>; MAX_PIPES],
    // the header's lane one-hot, and the pipe's lane pointer as a mask, at l * 4 + p
    sv_lh: [DFF<bool>; KP],
    sp: [DFF<bool>; KP],
    rt_v: [DFF<bool>; MAX_PIPES],
    rt_c: [DFF<Bits<CA>>; MAX_PIPES],
    rt_m: [DFF<BufMeta>; MAX_PIPES],
    rt_o: [DFF<Bits<8>>; MAX_PIPES],
    rt_lh: [DFF<bool>; KP],
    rl: [DFF<bool>; MAX_PIPES],
    cg: [DFF<bool>; N],
    c_rc: DFF<Bits<32>>,

    // ---- combinational ----
    um: [crate::sbuf::UnpackMeta; N],
    pkm: [PackMeta; K],
    l_s: [L<Bits<8>>; K],
    l_w: [L<Bits<9>>; K],
    l_e: [L<Bits<3>>; K],
    l_bad: [L<bool>; K],
    l_fa: [L<bool>; K],
    l_fb: [L<bool>; K],
    l_sa: [L<bool>; N],
    l_sb: [L<bool>; N],
    l_sel: [L<bool>; N],
    l_pre: [L<bool>; K],
    l_taken: [L<bool>; N],
    l_c: [L<Bits<CA>>; K],
    l_o: [L<Bits<8>>; K],
    l_b: [L<Bits<2>>; K],
    l_by: [L<Bits<32>>; K],
    l_tl: [L<Bits<CA>>; K],
    l_qne: [L<bool>; K],
    l_enq: [L<bool>; KNB],
    l_deq: [L<bool>; KNB],
    l_one: [L<bool>; KNB],
    l_nxd: [L<Bits<CA>>; KNB],
    l_ra: [L<Bits<CA>>; KRP],
    // pick
    l_any: [L<bool>; NB],
    l_bs: [L<bool>; NB],
    l_bfa: [L<bool>; N],
    l_bfb: [L<bool>; N],
    l_bsa: [L<bool>; NB],
    l_bsb: [L<bool>; NB],
    l_wm: [L<bool>; NB],
    l_wpre: [L<bool>; N],
    l_le: [L<bool>; NK],
    l_lfa: [L<bool>; N],
    l_lfb: [L<bool>; N],
    l_lsa: [L<bool>; NK],
    l_lsb: [L<bool>; NK],
    l_ls: [L<bool>; NK],
    l_lpre: [L<bool>; N],
    l_pb: [L<Bits<2>>; N],
    l_pw: [L<Bits<8>>; N],
    l_pc: [L<Bits<CA>>; N],
    l_iss: [L<bool>; N],
    l_nu: [L<Bits<8>>; N],
    l_wt: [L<Bits<8>>; N],
    l_rby: [L<Bits<32>>; N],
    // recirculation
    l_dd: [L<bool>; K],
    l_dw: [L<Bits<9>>; K],
    l_dp: [L<Bits<2>>; K],
    l_rv: [L<bool>; K],
    l_rg: [L<bool>; KP],
    l_rp: [L<bool>; KP],
    l_gr: [L<bool>; MAX_PIPES],
    l_rc: [L<Bits<CA>>; K],
    l_rm: [L<BufMeta>; K],
    l_ro: [L<Bits<8>>; K],
    l_tlost: L<bool>,
    l_dn: [L<bool>; MAX_PIPES],
    l_mv: [L<bool>; MAX_PIPES],
    l_fr: [L<bool>; MAX_PIPES],
    l_qa: [L<bool>; KP],
    l_qb: [L<bool>; KP],
    l_qs: [L<bool>; KP],
    l_qfa: [L<bool>; MAX_PIPES],
    l_qfb: [L<bool>; MAX_PIPES],
    l_qpre: [L<bool>; MAX_PIPES],
    l_rcn: L<Bits<3>>,

    k_idx8: [Constant<Bits<8>>; N],
    k_b2: [Constant<Bits<2>>; BANDS],
    k_sl0: [Constant<bool>; NRP],
    // the phase in the cycle before o's slot on replica r: (o - r*S - 1) mod N
    k_slp: [Constant<Bits<8>>; NRP],
    k_nm1: Constant<Bits<8>>,
    k1_2: Constant<Bits<2>>,
    k0_2: Constant<Bits<2>>,
    k0_9: Constant<Bits<9>>,
    k2_2: Constant<Bits<2>>,
    k16_5: Constant<Bits<5>>,
    k0_3: Constant<Bits<3>>,
    k0_ca: Constant<Bits<CA>>,
    k0_cc: Constant<Bits<CC>>,
    k1_cc: Constant<Bits<CC>>,
    k0_8: Constant<Bits<8>>,
    k1_8: Constant<Bits<8>>,
    k0_32: Constant<Bits<32>>,
    k1_32: Constant<Bits<32>>,
    k64_32: Constant<Bits<32>>,
    k1_9: Constant<Bits<9>>,
    k1_3: Constant<Bits<3>>,
    k_rfull: Constant<Bits<RECIRC_C>>,
}

/// 4 ports, one lane, 2048 cells, one replica (a slot every 4 cycles).
pub type SwitchQueues4 = SwitchQueues<4, 1, 4, 11, 12, 1, 16, 16, 1, 4, 4, 16, 4>;
/// 16 ports, two lanes, 512 cells, two replicas (a slot every 8 cycles).
pub type SwitchQueues16 = SwitchQueues<16, 2, 8, 9, 10, 2, 64, 128, 4, 32, 32, 128, 8>;

fn arr<T: Default, const X: usize>() -> [T; X] {
    std::array::from_fn(|_| T::default())
}

impl<
        const N: usize,
        const K: usize,
        const M: usize,
        const CA: usize,
        const CC: usize,
        const RP: usize,
        const NB: usize,
        const KNB: usize,
        const KRP: usize,
        const NRP: usize,
        const NK: usize,
        const N4K: usize,
        const KP: usize,
    > SwitchQueues<N, K, M, CA, CC, RP, NB, KNB, KRP, NRP, NK, N4K, KP>
{
    /// Builds the block. Panics unless the parameters are consistent (module docs).
    pub fn new() -> Self {
        assert!(
            N.is_power_of_two() && (4..=64).contains(&N),
            "ports N={N} must be a power of two in 4..=64"
        );
        assert!(
            K >= 1 && N % K == 0 && M == N / K && M <= 8,
            "lanes: M={M} must be N/K <= 8 (N={N}, K={K})"
        );
        assert_eq!(CC, CA + 1, "CC must be CA + 1");
        assert!(
            RP >= 1 && N % RP == 0 && N / RP >= 4,
            "replicas RP={RP}: N/RP must be a whole number >= 4"
        );
        assert_eq!(NB, 4 * N);
        assert_eq!(KNB, K * NB);
        assert_eq!(KRP, K * RP);
        assert_eq!(NRP, N * RP);
        assert_eq!(NK, N * K);
        assert_eq!(N4K, 4 * N * K);
        assert_eq!(KP, MAX_PIPES * K);
        assert_eq!(BANDS, MAX_PIPES, "k_b2 numbers the pipes too");
        let s = N / RP;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inp: arr(),
            out: arr(),
            wrr: Default::default(),
            weight: arr(),
            lost: Default::default(),
            tq_o: arr(),
            tq_b: arr(),
            tq_by: arr(),
            tq_d: arr(),
            tq_w: arr(),
            pp: arr(),
            st_v: arr(),
            st_c: arr(),
            st_m: arr(),
            st_o: arr(),
            st_b: arr(),
            st_by: arr(),
            st_d: arr(),
            st_w: arr(),
            st_p: arr(),
            pm: arr(),
            c_lost: Default::default(),
            e1_v: arr(),
            e1_c: arr(),
            e1_m: arr(),
            e1_o: arr(),
            e1_b: arr(),
            e1_by: arr(),
            e1_d: arr(),
            e1_w: arr(),
            e1_p: arr(),
            e1_r: arr(),
            e1_rm: arr(),
            e2_v: arr(),
            e2_c: arr(),
            e2_m: arr(),
            e2_by: arr(),
            e2_hx: arr(),
            q_hd: arr(),
            q_tl: arr(),
            q_cnt: arr(),
            q_ne: arr(),
            q_p: arr(),
            dm: arr(),
            dby: arr(),
            nx: arr(),
            ph: Default::default(),
            sl: arr(),
            pk_v: arr(),
            pk_hx: arr(),
            pk_lh: arr(),
            pk_b: arr(),
            pk_c: arr(),
            pk_w: arr(),
            lp: arr(),
            wb: arr(),
            wu: arr(),
            ri: arr(),
            ri_rh: arr(),
            ri_lh: arr(),
            ri_c: arr(),
            ri_b: arr(),
            dq_v: arr(),
            dq_c: arr(),
            dq_m: arr(),
            dp_b: arr(),
            dp_by: arr(),
            ad_v: arr(),
            ad_b: arr(),
            ad_by: arr(),
            rc_c: arr(),
            rc_m: arr(),
            rc_o: arr(),
            rc_w: arr(),
            sv_v: arr(),
            sv_n: arr(),
            sv_c: arr(),
            sv_m: arr(),
            sv_o: arr(),
            sv_lh: arr(),
            sp: arr(),
            rt_v: arr(),
            rt_c: arr(),
            rt_m: arr(),
            rt_o: arr(),
            rt_lh: arr(),
            rl: arr(),
            cg: arr(),
            c_rc: Default::default(),
            pipe_of: arr(),
            cong: arr(),
            rel: arr(),
            recirculated: Default::default(),
            um: arr(),
            pkm: arr(),
            l_s: arr(),
            l_w: arr(),
            l_e: arr(),
            l_bad: arr(),
            l_fa: arr(),
            l_fb: arr(),
            l_sa: arr(),
            l_sb: arr(),
            l_sel: arr(),
            l_pre: arr(),
            l_taken: arr(),
            l_c: arr(),
            l_o: arr(),
            l_b: arr(),
            l_by: arr(),
            l_tl: arr(),
            l_qne: arr(),
            l_enq: arr(),
            l_deq: arr(),
            l_one: arr(),
            l_nxd: arr(),
            l_ra: arr(),
            l_any: arr(),
            l_bs: arr(),
            l_bfa: arr(),
            l_bfb: arr(),
            l_bsa: arr(),
            l_bsb: arr(),
            l_wm: arr(),
            l_wpre: arr(),
            l_le: arr(),
            l_lfa: arr(),
            l_lfb: arr(),
            l_lsa: arr(),
            l_lsb: arr(),
            l_ls: arr(),
            l_lpre: arr(),
            l_pb: arr(),
            l_pw: arr(),
            l_pc: arr(),
            l_iss: arr(),
            l_nu: arr(),
            l_wt: arr(),
            l_rby: arr(),
            l_dd: arr(),
            l_dw: arr(),
            l_dp: arr(),
            l_rv: arr(),
            l_rg: arr(),
            l_rp: arr(),
            l_gr: arr(),
            l_rc: arr(),
            l_rm: arr(),
            l_ro: arr(),
            l_tlost: Default::default(),
            l_dn: arr(),
            l_mv: arr(),
            l_fr: arr(),
            l_qa: arr(),
            l_qb: arr(),
            l_qs: arr(),
            l_qfa: arr(),
            l_qfb: arr(),
            l_qpre: arr(),
            l_rcn: Default::default(),
            k_idx8: std::array::from_fn(|o| Constant::new((o as u64).into())),
            k_b2: std::array::from_fn(|b| Constant::new((b as u64).into())),
            k_sl0: std::array::from_fn(|x| Constant::new(x / RP == (x % RP) * s)),
            k_slp: std::array::from_fn(|x| {
                Constant::new(((((x / RP) + N * RP - (x % RP) * s - 1) % N) as u64).into())
            }),
            k_nm1: Constant::new(((N - 1) as u64).into()),
            k1_2: Constant::new(1.into()),
            k0_2: Constant::new(0.into()),
            k0_9: Constant::new(0.into()),
            k2_2: Constant::new(2.into()),
            k16_5: Constant::new(16.into()),
            k0_3: Constant::new(0.into()),
            k0_ca: Constant::new(0.into()),
            k0_cc: Constant::new(0.into()),
            k1_cc: Constant::new(1.into()),
            k0_8: Constant::new(0.into()),
            k1_8: Constant::new(1.into()),
            k0_32: Constant::new(0.into()),
            k1_32: Constant::new(1.into()),
            k64_32: Constant::new(64.into()),
            k1_9: Constant::new(1.into()),
            k1_3: Constant::new(1.into()),
            k_rfull: Constant::new((RECIRC_DEPTH as u64).into()),
        }
    }
}

impl<
        const N: usize,
        const K: usize,
        const M: usize,
        const CA: usize,
        const CC: usize,
        const RP: usize,
        const NB: usize,
        const KNB: usize,
        const KRP: usize,
        const NRP: usize,
        const NK: usize,
        const N4K: usize,
        const KP: usize,
    > Default for SwitchQueues<N, K, M, CA, CC, RP, NB, KNB, KRP, NRP, NK, N4K, KP>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<
        const N: usize,
        const K: usize,
        const M: usize,
        const CA: usize,
        const CC: usize,
        const RP: usize,
        const NB: usize,
        const KNB: usize,
        const KRP: usize,
        const NRP: usize,
        const NK: usize,
        const N4K: usize,
        const KP: usize,
    > Logic for SwitchQueues<N, K, M, CA, CC, RP, NB, KNB, KRP, NRP, NK, N4K, KP>
{
    #[hdl_gen]
    fn update(&mut self) {
        // `mm` is M, `nb` NB, `kk` K, `rp` RP: array indices may use loop variables and
        // literals only.
        for mm in M..(M + 1) {
            for nb in NB..(NB + 1) {
                for kk in K..(K + 1) {
                    for rp in RP..(RP + 1) {
                        // ================= clocks, defaults =================
                        self.c_lost.clock.next = self.clock.val();
                        self.c_lost.d.next = self.c_lost.q.val();
                        for i in 0..N {
                            self.tq_o[i].clock.next = self.clock.val();
                            self.tq_o[i].reset.next = self.reset.val();
                            self.tq_b[i].clock.next = self.clock.val();
                            self.tq_b[i].reset.next = self.reset.val();
                            self.tq_by[i].clock.next = self.clock.val();
                            self.tq_by[i].reset.next = self.reset.val();
                            self.tq_d[i].clock.next = self.clock.val();
                            self.tq_d[i].reset.next = self.reset.val();
                            self.tq_w[i].clock.next = self.clock.val();
                            self.tq_w[i].reset.next = self.reset.val();
                            self.st_d[i].clock.next = self.clock.val();
                            self.st_d[i].d.next = self.st_d[i].q.val();
                            self.st_w[i].clock.next = self.clock.val();
                            self.st_w[i].d.next = self.st_w[i].q.val();
                            self.st_p[i].clock.next = self.clock.val();
                            self.st_p[i].d.next = self.st_p[i].q.val();
                            self.pp[i].clock.next = self.clock.val();
                            self.st_v[i].clock.next = self.clock.val();
                            self.st_v[i].d.next = self.st_v[i].q.val();
                            self.st_c[i].clock.next = self.clock.val();
                            self.st_c[i].d.next = self.st_c[i].q.val();
                            self.st_m[i].clock.next = self.clock.val();
                            self.st_m[i].d.next = self.st_m[i].q.val();
                            self.st_o[i].clock.next = self.clock.val();
                            self.st_o[i].d.next = self.st_o[i].q.val();
                            self.st_b[i].clock.next = self.clock.val();
                            self.st_b[i].d.next = self.st_b[i].q.val();
                            self.st_by[i].clock.next = self.clock.val();
                            self.st_by[i].d.next = self.st_by[i].q.val();
                            self.pm[i].clock.next = self.clock.val();
                            self.pm[i].d.next = self.pm[i].q.val();
                            self.um[i].a.next = self.st_m[i].q.val();
                        }
                        for l in 0..K {
                            self.e1_v[l].clock.next = self.clock.val();
                            self.e1_c[l].clock.next = self.clock.val();
                            self.e1_m[l].clock.next = self.clock.val();
                            self.e1_o[l].clock.next = self.clock.val();
                            self.e1_b[l].clock.next = self.clock.val();
                            self.e1_by[l].clock.next = self.clock.val();
                            self.e1_d[l].clock.next = self.clock.val();
                            self.e1_w[l].clock.next = self.clock.val();
                            self.e1_p[l].clock.next = self.clock.val();
                            self.e1_r[l].clock.next = self.clock.val();
                            self.e1_rm[l].clock.next = self.clock.val();
                            self.e2_v[l].clock.next = self.clock.val();
                            self.e2_c[l].clock.next = self.clock.val();
                            self.e2_m[l].clock.next = self.clock.val();
                            self.e2_by[l].clock.next = self.clock.val();
                        }
                        for x in 0..KNB {
                            self.e2_hx[x].clock.next = self.clock.val();
                            self.q_hd[x].clock.next = self.clock.val();
                            self.q_hd[x].d.next = self.q_hd[x].q.val();
                            self.q_tl[x].clock.next = self.clock.val();
                            self.q_tl[x].d.next = self.q_tl[x].q.val();
                            self.q_cnt[x].clock.next = self.clock.val();
                            self.q_cnt[x].d.next = self.q_cnt[x].q.val();
                            self.q_ne[x].clock.next = self.clock.val();
                            self.q_ne[x].d.next = self.q_ne[x].q.val();
                            self.q_p[x].clock.next = self.clock.val();
                        }
                        for x in 0..KRP {
                            self.dm[x].read_clock.next = self.clock.val();
                            self.dm[x].write_clock.next = self.clock.val();
                            self.dby[x].read_clock.next = self.clock.val();
                            self.dby[x].write_clock.next = self.clock.val();
                            self.nx[x].read_clock.next = self.clock.val();
                            self.nx[x].write_clock.next = self.clock.val();
                        }
                        for x in 0..KP {
                            self.rc_c[x].clock.next = self.clock.val();
                            self.rc_c[x].reset.next = self.reset.val();
                            self.rc_m[x].clock.next = self.clock.val();
                            self.rc_m[x].reset.next = self.reset.val();
                            self.rc_o[x].clock.next = self.clock.val();
                            self.rc_o[x].reset.next = self.reset.val();
                            self.rc_w[x].clock.next = self.clock.val();
                            self.rc_w[x].reset.next = self.reset.val();
                            self.rc_c[x].pop.next = false;
                            self.rc_m[x].pop.next = false;
                            self.rc_o[x].pop.next = false;
                            self.rc_w[x].pop.next = false;
                            self.sv_lh[x].clock.next = self.clock.val();
                            self.sv_lh[x].d.next = self.sv_lh[x].q.val();
                            self.sp[x].clock.next = self.clock.val();
                            self.sp[x].d.next = self.sp[x].q.val();
                            self.rt_lh[x].clock.next = self.clock.val();
                            self.rt_lh[x].d.next = self.rt_lh[x].q.val();
                        }
                        for p in 0..MAX_PIPES {
                            self.sv_v[p].clock.next = self.clock.val();
                            self.sv_v[p].d.next = self.sv_v[p].q.val();
                            self.sv_n[p].clock.next = self.clock.val();
                            self.sv_n[p].d.next = self.sv_n[p].q.val();
                            self.sv_c[p].clock.next = self.clock.val();
                            self.sv_c[p].d.next = self.sv_c[p].q.val();
                            self.sv_m[p].clock.next = self.clock.val();
                            self.sv_m[p].d.next = self.sv_m[p].q.val();
                            self.sv_o[p].clock.next = self.clock.val();
                            self.sv_o[p].d.next = self.sv_o[p].q.val();
                            self.rt_v[p].clock.next = self.clock.val();
                            self.rt_v[p].d.next = self.rt_v[p].q.val();
                            self.rt_c[p].clock.next = self.clock.val();
                            self.rt_c[p].d.next = self.rt_c[p].q.val();
                            self.rt_m[p].clock.next = self.clock.val();
                            self.rt_m[p].d.next = self.rt_m[p].q.val();
                            self.rt_o[p].clock.next = self.clock.val();
                            self.rt_o[p].d.next = self.rt_o[p].q.val();
                            self.rl[p].clock.next = self.clock.val();
                        }
                        self.c_rc.clock.next = self.clock.val();
                        for x in 0..NRP {
                            self.sl[x].clock.next = self.clock.val();
                            self.ri_rh[x].clock.next = self.clock.val();
                        }
                        for x in 0..N4K {
                            self.pk_hx[x].clock.next = self.clock.val();
                        }
                        for x in 0..NK {
                            self.pk_lh[x].clock.next = self.clock.val();
                            self.lp[x].clock.next = self.clock.val();
                            self.lp[x].d.next = self.lp[x].q.val();
                            self.ri_lh[x].clock.next = self.clock.val();
                        }
                        for o in 0..N {
                            self.pk_v[o].clock.next = self.clock.val();
                            self.pk_b[o].clock.next = self.clock.val();
                            self.pk_c[o].clock.next = self.clock.val();
                            self.pk_w[o].clock.next = self.clock.val();
                            self.wb[o].clock.next = self.clock.val();
                            self.wb[o].d.next = self.wb[o].q.val();
                            self.wu[o].clock.next = self.clock.val();
                            self.wu[o].d.next = self.wu[o].q.val();
                            self.ri[o].clock.next = self.clock.val();
                            self.ri_c[o].clock.next = self.clock.val();
                            self.ri_b[o].clock.next = self.clock.val();
                            self.dq_v[o].clock.next = self.clock.val();
                            self.dq_c[o].clock.next = self.clock.val();
                            self.dq_c[o].d.next = self.dq_c[o].q.val();
                            self.dq_m[o].clock.next = self.clock.val();
                            self.dq_m[o].d.next = self.dq_m[o].q.val();
                            self.dp_b[o].clock.next = self.clock.val();
                            self.dp_b[o].reset.next = self.reset.val();
                            self.dp_by[o].clock.next = self.clock.val();
                            self.dp_by[o].reset.next = self.reset.val();
                            self.ad_v[o].clock.next = self.clock.val();
                            self.ad_b[o].clock.next = self.clock.val();
                            self.ad_b[o].d.next = self.ad_b[o].q.val();
                            self.ad_by[o].clock.next = self.clock.val();
                            self.ad_by[o].d.next = self.ad_by[o].q.val();
                            self.cg[o].clock.next = self.clock.val();
                        }

                        // ================= inputs: tags, completion pops =================
                        self.l_tlost.next = false;
                        for i in 0..N {
                            self.tq_o[i].push.next =
                                self.inp[i].vd_valid.val() & self.inp[i].vd_admit.val();
                            self.tq_o[i].push_data.next = self.inp[i].vd_out.val();
                            self.tq_b[i].push.next =
                                self.inp[i].vd_valid.val() & self.inp[i].vd_admit.val();
                            self.tq_b[i].push_data.next = self.inp[i].vd_band.val();
                            self.tq_by[i].push.next =
                                self.inp[i].vd_valid.val() & self.inp[i].vd_admit.val();
                            self.tq_by[i].push_data.next = self.inp[i].vd_bytes.val();
                            self.tq_d[i].push.next =
                                self.inp[i].vd_valid.val() & self.inp[i].vd_admit.val();
                            self.tq_d[i].push_data.next = self.inp[i].vd_dod.val();
                            self.tq_w[i].push.next =
                                self.inp[i].vd_valid.val() & self.inp[i].vd_admit.val();
                            self.tq_w[i].push_data.next = self.inp[i].vd_words.val();
                            if self.inp[i].vd_valid.val()
                                & self.inp[i].vd_admit.val()
                                & (self.tq_o[i].count.val() == self.k16_5.val())
                            {
                                self.l_tlost.next = true;
                            }
                            self.inp[i].cp_pop.next = self.pp[i].q.val();
                            self.tq_o[i].pop.next = self.pp[i].q.val();
                            self.tq_b[i].pop.next = self.pp[i].q.val();
                            self.tq_by[i].pop.next = self.pp[i].q.val();
                            self.tq_d[i].pop.next = self.pp[i].q.val();
                            self.tq_w[i].pop.next = self.pp[i].q.val();
                            if self.pp[i].q.val() {
                                self.st_d[i].d.next = self.tq_d[i].head.val();
                                self.st_w[i].d.next = self.tq_w[i].head.val();
                                self.st_p[i].d.next = self.pipe_of[i].val();
                                self.st_v[i].d.next = true;
                                self.st_c[i].d.next = self.inp[i].cp_cell.val();
                                self.st_m[i].d.next = self.inp[i].cp_meta.val();
                                self.st_o[i].d.next = self.tq_o[i].head.val();
                                self.st_b[i].d.next = self.tq_b[i].head.val();
                                self.st_by[i].d.next = self.tq_by[i].head.val();
                            }
                        }

                        // ================= lanes =================
                        for i in 0..N {
                            self.l_taken[i].next = false;
                        }
                        for p in 0..MAX_PIPES {
                            self.l_gr[p].next = false;
                        }
                        for l in 0..K {
                            // L1: a return first, the lowest pipe's (fixed priority)
                            self.l_rv[l].next = false;
                            self.l_rc[l].next = self.k0_ca.val();
                            self.l_rm[l].next = self.rt_m[0].q.val();
                            self.l_ro[l].next = self.k0_8.val();
                            for p in 0..MAX_PIPES {
                                self.l_rg[l * 4 + p].next = self.rt_v[p].q.val()
                                    & self.rt_lh[l * 4 + p].q.val()
                                    & !self.l_rv[l].val();
                                self.l_rv[l].next = self.l_rv[l].val()
                                    | (self.rt_v[p].q.val() & self.rt_lh[l * 4 + p].q.val());
                                if self.l_rg[l * 4 + p].val() {
                                    self.l_rc[l].next = self.l_rc[l].val() | self.rt_c[p].q.val();
                                    self.l_rm[l].next = self.rt_m[p].q.val();
                                    self.l_ro[l].next = self.l_ro[l].val() | self.rt_o[p].q.val();
                                }
                                self.l_gr[p].next = self.l_gr[p].val() | self.l_rg[l * 4 + p].val();
                            }
                            // else: round robin over the lane's stages (one-hot, OR trees)
                            self.l_fa[l].next = false;
                            self.l_fb[l].next = false;
                            for m in 0..M {
                                self.l_sa[l * mm + m].next = self.st_v[l * mm + m].q.val()
                                    & self.pm[l * mm + m].q.val()
                                    & !self.l_fa[l].val();
                                self.l_fa[l].next = self.l_fa[l].val()
                                    | (self.st_v[l * mm + m].q.val() & self.pm[l * mm + m].q.val());
                                self.l_sb[l * mm + m].next =
                                    self.st_v[l * mm + m].q.val() & !self.l_fb[l].val();
                                self.l_fb[l].next =
                                    self.l_fb[l].val() | self.st_v[l * mm + m].q.val();
                            }
                            self.l_c[l].next = self.k0_ca.val();
                            self.l_o[l].next = self.k0_8.val();
                            self.l_b[l].next = self.k0_2.val();
                            self.l_by[l].next = self.k0_32.val();
                            self.l_s[l].next = self.k0_8.val();
                            self.l_w[l].next = self.k0_9.val();
                            self.l_e[l].next = self.k0_3.val();
                            self.l_bad[l].next = false;
                            self.l_dd[l].next = false;
                            self.l_dw[l].next = self.k0_9.val();
                            self.l_dp[l].next = self.k0_2.val();
                            for m in 0..M {
                                self.l_sel[l * mm + m].next = self.l_sb[l * mm + m].val();
                                if self.l_fa[l].val() {
                                    self.l_sel[l * mm + m].next = self.l_sa[l * mm + m].val();
                                }
                                if self.l_sel[l * mm + m].val() {
                                    self.l_c[l].next =
                                        self.l_c[l].val() | self.st_c[l * mm + m].q.val();
                                    self.l_o[l].next =
                                        self.l_o[l].val() | self.st_o[l * mm + m].q.val();
                                    self.l_b[l].next =
                                        self.l_b[l].val() | self.st_b[l * mm + m].q.val();
                                    self.l_by[l].next =
                                        self.l_by[l].val() | self.st_by[l * mm + m].q.val();
                                    self.l_s[l].next =
                                        self.l_s[l].val() | self.um[l * mm + m].s.val();
                                    self.l_w[l].next =
                                        self.l_w[l].val() | self.um[l * mm + m].words.val();
                                    self.l_e[l].next =
                                        self.l_e[l].val() | self.um[l * mm + m].empty.val();
                                    self.l_bad[l].next =
                                        self.l_bad[l].val() | self.um[l * mm + m].bad.val();
                                    self.l_dd[l].next =
                                        self.l_dd[l].val() | self.st_d[l * mm + m].q.val();
                                    self.l_dw[l].next =
                                        self.l_dw[l].val() | self.st_w[l * mm + m].q.val();
                                    self.l_dp[l].next =
                                        self.l_dp[l].val() | self.st_p[l * mm + m].q.val();
                                }
                                if self.l_sel[l * mm + m].val() & !self.l_rv[l].val() {
                                    self.st_v[l * mm + m].d.next = false;
                                    self.l_taken[l * mm + m].next = true;
                                }
                            }
                            self.pkm[l].s.next = self.l_s[l].val();
                            self.pkm[l].words.next = self.l_w[l].val();
                            self.pkm[l].empty.next = self.l_e[l].val();
                            self.pkm[l].bad.next = self.l_bad[l].val();
                            self.e1_v[l].d.next = self.l_fb[l].val() | self.l_rv[l].val();
                            self.e1_w[l].d.next = self.l_dw[l].val();
                            self.e1_p[l].d.next = self.l_dp[l].val();
                            self.e1_m[l].d.next = self.pkm[l].y.val();
                            self.e1_r[l].d.next = self.l_rv[l].val();
                            self.e1_rm[l].d.next = self.l_rm[l].val();
                            if self.l_rv[l].val() {
                                self.e1_c[l].d.next = self.l_rc[l].val();
                                self.e1_o[l].d.next = self.l_ro[l].val();
                                self.e1_b[l].d.next = self.k0_2.val();
                                self.e1_by[l].d.next = self.k64_32.val();
                                self.e1_d[l].d.next = false;
                            } else {
                                self.e1_c[l].d.next = self.l_c[l].val();
                                self.e1_o[l].d.next = self.l_o[l].val();
                                self.e1_b[l].d.next = self.l_b[l].val();
                                self.e1_by[l].d.next = self.l_by[l].val();
                                self.e1_d[l].d.next = self.l_dd[l].val();
                            }
                            self.l_pre[l].next = false;
                            for m in 0..M {
                                if self.l_fb[l].val() & !self.l_rv[l].val() {
                                    self.pm[l * mm + m].d.next =
                                        self.l_pre[l].val() | self.l_sel[l * mm + mm - 1].val();
                                }
                                self.l_pre[l].next =
                                    self.l_pre[l].val() | self.l_sel[l * mm + m].val();
                            }
                            // L2: decode
                            self.e2_v[l].d.next = self.e1_v[l].q.val() & !self.e1_d[l].q.val();
                            self.e2_c[l].d.next = self.e1_c[l].q.val();
                            self.e2_m[l].d.next = self.e1_m[l].q.val();
                            if self.e1_r[l].q.val() {
                                self.e2_m[l].d.next = self.e1_rm[l].q.val();
                            }
                            self.e2_by[l].d.next = self.e1_by[l].q.val();
                            for o in 0..N {
                                for b in 0..BANDS {
                                    self.e2_hx[l * nb + o * 4 + b].d.next = self.e1_v[l].q.val()
                                        & !self.e1_d[l].q.val()
                                        & (self.e1_o[l].q.val() == self.k_idx8[o].val())
                                        & (self.e1_b[l].q.val() == self.k_b2[b].val());
                                }
                            }
                            // L2: a deflected header into its pipe's recirculation FIFO
                            for p in 0..MAX_PIPES {
                                self.l_rp[l * 4 + p].next = self.e1_v[l].q.val()
                                    & self.e1_d[l].q.val()
                                    & (self.e1_p[l].q.val() == self.k_b2[p].val());
                                self.rc_c[l * 4 + p].push.next = self.l_rp[l * 4 + p].val();
                                self.rc_m[l * 4 + p].push.next = self.l_rp[l * 4 + p].val();
                                self.rc_o[l * 4 + p].push.next = self.l_rp[l * 4 + p].val();
                                self.rc_w[l * 4 + p].push.next = self.l_rp[l * 4 + p].val();
                                self.rc_c[l * 4 + p].push_data.next = self.e1_c[l].q.val();
                                self.rc_m[l * 4 + p].push_data.next = self.e1_m[l].q.val();
                                self.rc_o[l * 4 + p].push_data.next = self.e1_o[l].q.val();
                                self.rc_w[l * 4 + p].push_data.next = self.e1_w[l].q.val();
                                if self.l_rp[l * 4 + p].val()
                                    & (self.rc_c[l * 4 + p].count.val() == self.k_rfull.val())
                                {
                                    self.l_tlost.next = true;
                                }
                            }
                            // L3: the enqueue's tail, and whether its queue is not empty
                            self.l_tl[l].next = self.k0_ca.val();
                            self.l_qne[l].next = false;
                            for x in 0..NB {
                                if self.e2_hx[l * nb + x].q.val() {
                                    self.l_tl[l].next =
                                        self.l_tl[l].val() | self.q_tl[l * nb + x].q.val();
                                    self.l_qne[l].next =
                                        self.l_qne[l].val() | self.q_ne[l * nb + x].q.val();
                                }
                            }
                            for r in 0..RP {
                                self.dm[l * rp + r].write_address.next = self.e2_c[l].q.val();
                                self.dm[l * rp + r].write_data.next = self.e2_m[l].q.val();
                                self.dm[l * rp + r].write_enable.next = self.e2_v[l].q.val();
                                self.dby[l * rp + r].write_address.next = self.e2_c[l].q.val();
                                self.dby[l * rp + r].write_data.next = self.e2_by[l].q.val();
                                self.dby[l * rp + r].write_enable.next = self.e2_v[l].q.val();
                                self.nx[l * rp + r].write_address.next = self.l_tl[l].val();
                                self.nx[l * rp + r].write_data.next = self.e2_c[l].q.val();
                                self.nx[l * rp + r].write_enable.next =
                                    self.e2_v[l].q.val() & self.l_qne[l].val();
                            }
                        }

                        if self.l_tlost.val() {
                            self.c_lost.d.next = self.c_lost.q.val() + self.k1_32.val();
                        }

                        // ================= recirculation servers =================
                        for p in 0..MAX_PIPES {
                            // done at count 0; moves into an empty return register; free
                            // when empty or moving
                            self.l_dn[p].next =
                                self.sv_v[p].q.val() & (self.sv_n[p].q.val() == self.k0_9.val());
                            self.l_mv[p].next = self.l_dn[p].val() & !self.rt_v[p].q.val();
                            self.l_fr[p].next = !self.sv_v[p].q.val() | self.l_mv[p].val();
                            // the lane: round robin over the pipe's FIFOs not empty
                            self.l_qfa[p].next = false;
                            self.l_qfb[p].next = false;
                            for l in 0..K {
                                self.l_qa[l * 4 + p].next = self.rc_c[l * 4 + p].nonempty.val()
                                    & self.sp[l * 4 + p].q.val()
                                    & !self.l_qfa[p].val();
                                self.l_qfa[p].next = self.l_qfa[p].val()
                                    | (self.rc_c[l * 4 + p].nonempty.val()
                                        & self.sp[l * 4 + p].q.val());
                                self.l_qb[l * 4 + p].next =
                                    self.rc_c[l * 4 + p].nonempty.val() & !self.l_qfb[p].val();
                                self.l_qfb[p].next =
                                    self.l_qfb[p].val() | self.rc_c[l * 4 + p].nonempty.val();
                            }
                            if self.sv_v[p].q.val() & !self.l_dn[p].val() {
                                self.sv_n[p].d.next = self.sv_n[p].q.val() - self.k1_9.val();
                            }
                            if self.l_mv[p].val() {
                                self.sv_v[p].d.next = false;
                                self.rt_v[p].d.next = true;
                                self.rt_c[p].d.next = self.sv_c[p].q.val();
                                self.rt_m[p].d.next = self.sv_m[p].q.val();
                                self.rt_o[p].d.next = self.sv_o[p].q.val();
                                for l in 0..K {
                                    self.rt_lh[l * 4 + p].d.next = self.sv_lh[l * 4 + p].q.val();
                                }
                            } else if self.l_gr[p].val() {
                                self.rt_v[p].d.next = false;
                            }
                            for l in 0..K {
                                self.l_qs[l * 4 + p].next = self.l_qb[l * 4 + p].val();
                                if self.l_qfa[p].val() {
                                    self.l_qs[l * 4 + p].next = self.l_qa[l * 4 + p].val();
                                }
                            }
                            self.l_qpre[p].next = false;
                            for l in 0..K {
                                if self.l_fr[p].val() & self.l_qfb[p].val() {
                                    self.sv_v[p].d.next = true;
                                    self.sv_lh[l * 4 + p].d.next = self.l_qs[l * 4 + p].val();
                                    self.sp[l * 4 + p].d.next =
                                        self.l_qpre[p].val() | self.l_qs[(kk - 1) * 4 + p].val();
                                    if self.l_qs[l * 4 + p].val() {
                                        self.rc_c[l * 4 + p].pop.next = true;
                                        self.rc_m[l * 4 + p].pop.next = true;
                                        self.rc_o[l * 4 + p].pop.next = true;
                                        self.rc_w[l * 4 + p].pop.next = true;
                                        self.sv_n[p].d.next =
                                            self.rc_w[l * 4 + p].head.val() - self.k1_9.val();
                                        self.sv_c[p].d.next = self.rc_c[l * 4 + p].head.val();
                                        self.sv_m[p].d.next = self.rc_m[l * 4 + p].head.val();
                                        self.sv_o[p].d.next = self.rc_o[l * 4 + p].head.val();
                                    }
                                }
                                self.l_qpre[p].next =
                                    self.l_qpre[p].val() | self.l_qs[l * 4 + p].val();
                            }
                            // a return taken: the release and the congestion signal
                            self.rl[p].d.next = self.l_gr[p].val();
                            self.rel[p].next = self.rl[p].q.val();
                        }
                        self.l_rcn.next = self.k0_3.val();
                        for p in 0..MAX_PIPES {
                            if self.rl[p].q.val() {
                                self.l_rcn.next = self.l_rcn.val() + self.k1_3.val();
                            }
                        }
                        self.c_rc.d.next = self.c_rc.q.val() + bit_cast::<32, 3>(self.l_rcn.val());
                        self.recirculated.next = self.c_rc.q.val();
                        for o in 0..N {
                            self.cg[o].d.next = false;
                            for p in 0..MAX_PIPES {
                                if self.l_gr[p].val()
                                    & (self.rt_o[p].q.val() == self.k_idx8[o].val())
                                {
                                    self.cg[o].d.next = true;
                                }
                            }
                            self.cong[o].next = self.cg[o].q.val();
                        }

                        // ================= slots, issue =================
                        self.ph.clock.next = self.clock.val();
                        self.ph.d.next = self.ph.q.val() + self.k1_8.val();
                        if self.ph.q.val() == self.k_nm1.val() {
                            self.ph.d.next = self.k0_8.val();
                        }
                        for x in 0..NRP {
                            self.sl[x].d.next = self.ph.q.val() == self.k_slp[x].val();
                        }
                        for o in 0..N {
                            self.l_iss[o].next = false;
                            for r in 0..RP {
                                self.l_iss[o].next =
                                    self.l_iss[o].val() | self.sl[o * rp + r].q.val();
                            }
                            self.l_iss[o].next = self.l_iss[o].val()
                                & self.pk_v[o].q.val()
                                & (self.out[o].dq_count.val() < self.k2_2.val());
                        }
                        // read addresses: the slot owner's pick, per lane and replica
                        for l in 0..K {
                            for r in 0..RP {
                                self.l_ra[l * rp + r].next = self.k0_ca.val();
                                for o in 0..N {
                                    if self.sl[o * rp + r].q.val() & self.pk_lh[o * kk + l].q.val()
                                    {
                                        self.l_ra[l * rp + r].next =
                                            self.l_ra[l * rp + r].val() | self.pk_c[o].q.val();
                                    }
                                }
                                self.dm[l * rp + r].read_address.next = self.l_ra[l * rp + r].val();
                                self.dby[l * rp + r].read_address.next =
                                    self.l_ra[l * rp + r].val();
                                self.nx[l * rp + r].read_address.next = self.l_ra[l * rp + r].val();
                            }
                        }

                        // ================= queues =================
                        for l in 0..K {
                            for o in 0..N {
                                for b in 0..BANDS {
                                    self.l_enq[l * nb + o * 4 + b].next = self.e2_v[l].q.val()
                                        & self.e2_hx[l * nb + o * 4 + b].q.val();
                                    self.l_deq[l * nb + o * 4 + b].next = self.l_iss[o].val()
                                        & self.pk_hx[o * kk * 4 + b * kk + l].q.val();
                                    self.l_one[l * nb + o * 4 + b].next =
                                        self.q_cnt[l * nb + o * 4 + b].q.val() == self.k1_cc.val();
                                    // the link read for output o's last dequeue
                                    self.l_nxd[l * nb + o * 4 + b].next = self.k0_ca.val();
                                    for r in 0..RP {
                                        if self.ri_rh[o * rp + r].q.val() {
                                            self.l_nxd[l * nb + o * 4 + b].next =
                                                self.l_nxd[l * nb + o * 4 + b].val()
                                                    | self.nx[l * rp + r].read_data.val();
                                        }
                                    }
                                }
                            }
                        }
                        for l in 0..K {
                            for x in 0..NB {
                                // count, not empty (exact copy), pending
                                if self.l_enq[l * nb + x].val() & !self.l_deq[l * nb + x].val() {
                                    self.q_cnt[l * nb + x].d.next =
                                        self.q_cnt[l * nb + x].q.val() + self.k1_cc.val();
                                }
                                if self.l_deq[l * nb + x].val() & !self.l_enq[l * nb + x].val() {
                                    self.q_cnt[l * nb + x].d.next =
                                        self.q_cnt[l * nb + x].q.val() - self.k1_cc.val();
                                }
                                self.q_ne[l * nb + x].d.next = self.l_enq[l * nb + x].val()
                                    | (self.q_ne[l * nb + x].q.val()
                                        & !(self.l_deq[l * nb + x].val()
                                            & self.l_one[l * nb + x].val()));
                                self.q_p[l * nb + x].d.next = self.l_deq[l * nb + x].val()
                                    & self.q_ne[l * nb + x].q.val()
                                    & !self.l_one[l * nb + x].val();
                                if self.l_enq[l * nb + x].val() {
                                    self.q_tl[l * nb + x].d.next = self.e2_c[l].q.val();
                                }
                                if self.q_p[l * nb + x].q.val() {
                                    self.q_hd[l * nb + x].d.next = self.l_nxd[l * nb + x].val();
                                } else if self.l_enq[l * nb + x].val()
                                    & (!self.q_ne[l * nb + x].q.val()
                                        | (self.l_deq[l * nb + x].val()
                                            & self.l_one[l * nb + x].val()))
                                {
                                    self.q_hd[l * nb + x].d.next = self.e2_c[l].q.val();
                                }
                            }
                        }

                        // ================= picks =================
                        for o in 0..N {
                            // bands with a queue not empty in any lane
                            for b in 0..BANDS {
                                self.l_any[o * 4 + b].next = false;
                                for l in 0..K {
                                    self.l_any[o * 4 + b].next = self.l_any[o * 4 + b].val()
                                        | self.q_ne[l * nb + o * 4 + b].q.val();
                                }
                            }
                            // the band: SP the first; WRR the first at or after the turn's
                            self.l_bfa[o].next = false;
                            self.l_bfb[o].next = false;
                            self.l_wpre[o].next = false;
                            for b in 0..BANDS {
                                // l_wm: b is at or after the turn's band
                                self.l_wm[o * 4 + b].next = self.l_wpre[o].val()
                                    | (self.wb[o].q.val() == self.k_b2[b].val());
                                self.l_wpre[o].next = self.l_wm[o * 4 + b].val();
                                self.l_bsa[o * 4 + b].next = self.l_any[o * 4 + b].val()
                                    & self.l_wm[o * 4 + b].val()
                                    & !self.l_bfa[o].val();
                                self.l_bfa[o].next = self.l_bfa[o].val()
                                    | (self.l_any[o * 4 + b].val() & self.l_wm[o * 4 + b].val());
                                self.l_bsb[o * 4 + b].next =
                                    self.l_any[o * 4 + b].val() & !self.l_bfb[o].val();
                                self.l_bfb[o].next =
                                    self.l_bfb[o].val() | self.l_any[o * 4 + b].val();
                            }
                            self.l_pb[o].next = self.k0_2.val();
                            self.l_pw[o].next = self.k0_8.val();
                            for b in 0..BANDS {
                                self.l_bs[o * 4 + b].next = self.l_bsb[o * 4 + b].val();
                                if self.wrr.val() & self.l_bfa[o].val() {
                                    self.l_bs[o * 4 + b].next = self.l_bsa[o * 4 + b].val();
                                }
                                if self.l_bs[o * 4 + b].val() {
                                    self.l_pb[o].next = self.l_pb[o].val() | self.k_b2[b].val();
                                    self.l_pw[o].next = self.l_pw[o].val() | self.weight[b].val();
                                }
                            }
                            // the lane: the first at or after the pointer whose queue of
                            // that band is not empty, else the first
                            for l in 0..K {
                                self.l_le[o * kk + l].next = false;
                                for b in 0..BANDS {
                                    self.l_le[o * kk + l].next = self.l_le[o * kk + l].val()
                                        | (self.l_bs[o * 4 + b].val()
                                            & self.q_ne[l * nb + o * 4 + b].q.val());
                                }
                            }
                            self.l_lfa[o].next = false;
                            self.l_lfb[o].next = false;
                            for l in 0..K {
                                self.l_lsa[o * kk + l].next = self.l_le[o * kk + l].val()
                                    & self.lp[o * kk + l].q.val()
                                    & !self.l_lfa[o].val();
                                self.l_lfa[o].next = self.l_lfa[o].val()
                                    | (self.l_le[o * kk + l].val() & self.lp[o * kk + l].q.val());
                                self.l_lsb[o * kk + l].next =
                                    self.l_le[o * kk + l].val() & !self.l_lfb[o].val();
                                self.l_lfb[o].next =
                                    self.l_lfb[o].val() | self.l_le[o * kk + l].val();
                            }
                            self.l_pc[o].next = self.k0_ca.val();
                            for l in 0..K {
                                self.l_ls[o * kk + l].next = self.l_lsb[o * kk + l].val();
                                if self.l_lfa[o].val() {
                                    self.l_ls[o * kk + l].next = self.l_lsa[o * kk + l].val();
                                }
                                self.pk_lh[o * kk + l].d.next = self.l_ls[o * kk + l].val();
                                for b in 0..BANDS {
                                    self.pk_hx[o * kk * 4 + b * kk + l].d.next =
                                        self.l_ls[o * kk + l].val() & self.l_bs[o * 4 + b].val();
                                    if self.l_ls[o * kk + l].val() & self.l_bs[o * 4 + b].val() {
                                        self.l_pc[o].next = self.l_pc[o].val()
                                            | self.q_hd[l * nb + o * 4 + b].q.val();
                                    }
                                }
                            }
                            self.pk_v[o].d.next = self.l_bfb[o].val();
                            self.pk_b[o].d.next = self.l_pb[o].val();
                            self.pk_w[o].d.next = self.l_pw[o].val();
                            self.pk_c[o].d.next = self.l_pc[o].val();

                            // ---- at a dequeue: lane pointer, WRR turn, the read ----
                            self.l_wt[o].next = self.pk_w[o].q.val();
                            if self.pk_w[o].q.val() == self.k0_8.val() {
                                self.l_wt[o].next = self.k1_8.val();
                            }
                            self.l_nu[o].next = self.k1_8.val();
                            if self.pk_b[o].q.val() == self.wb[o].q.val() {
                                self.l_nu[o].next = self.wu[o].q.val() + self.k1_8.val();
                            }
                            // assigned on every path before any read (an `if`/`else`
                            // that assigns and reads it reads as a latch to rcomp)
                            self.l_lpre[o].next = false;
                            if self.l_iss[o].val() {
                                for l in 0..K {
                                    self.lp[o * kk + l].d.next =
                                        self.l_lpre[o].val() | self.pk_lh[o * kk + kk - 1].q.val();
                                    self.l_lpre[o].next =
                                        self.l_lpre[o].val() | self.pk_lh[o * kk + l].q.val();
                                }
                                if self.l_nu[o].val() >= self.l_wt[o].val() {
                                    self.wb[o].d.next = self.pk_b[o].q.val() + self.k1_2.val();
                                    self.wu[o].d.next = self.k0_8.val();
                                } else {
                                    self.wb[o].d.next = self.pk_b[o].q.val();
                                    self.wu[o].d.next = self.l_nu[o].val();
                                }
                            }
                            self.ri[o].d.next = self.l_iss[o].val();
                            for r in 0..RP {
                                self.ri_rh[o * rp + r].d.next = self.sl[o * rp + r].q.val();
                            }
                            for l in 0..K {
                                self.ri_lh[o * kk + l].d.next = self.pk_lh[o * kk + l].q.val();
                            }
                            self.ri_c[o].d.next = self.pk_c[o].q.val();
                            self.ri_b[o].d.next = self.pk_b[o].q.val();

                            // ---- the read returns: descriptor out, departure record ----
                            self.dq_v[o].d.next = self.ri[o].q.val();
                            self.l_rby[o].next = self.k0_32.val();
                            if self.ri[o].q.val() {
                                self.dq_c[o].d.next = self.ri_c[o].q.val();
                                for l in 0..K {
                                    for r in 0..RP {
                                        if self.ri_lh[o * kk + l].q.val()
                                            & self.ri_rh[o * rp + r].q.val()
                                        {
                                            self.dq_m[o].d.next =
                                                self.dm[l * rp + r].read_data.val();
                                            self.l_rby[o].next = self.l_rby[o].val()
                                                | self.dby[l * rp + r].read_data.val();
                                        }
                                    }
                                }
                            }
                            self.dp_b[o].push.next = self.ri[o].q.val();
                            self.dp_b[o].push_data.next = self.ri_b[o].q.val();
                            self.dp_by[o].push.next = self.ri[o].q.val();
                            self.dp_by[o].push_data.next = self.l_rby[o].val();
                            self.out[o].dq_push.next = self.dq_v[o].q.val();
                            self.out[o].dq_cell.next = self.dq_c[o].q.val();
                            self.out[o].dq_meta.next = self.dq_m[o].q.val();

                            // ---- departures ----
                            self.dp_b[o].pop.next = self.out[o].dep.val();
                            self.dp_by[o].pop.next = self.out[o].dep.val();
                            self.ad_v[o].d.next =
                                self.out[o].dep.val() & self.dp_b[o].nonempty.val();
                            if self.out[o].dep.val() {
                                self.ad_b[o].d.next = self.dp_b[o].head.val();
                                self.ad_by[o].d.next = self.dp_by[o].head.val();
                            }
                            self.out[o].adm_dep_valid.next = self.ad_v[o].q.val();
                            self.out[o].adm_dep_band.next = self.ad_b[o].q.val();
                            self.out[o].adm_dep_bytes.next = self.ad_by[o].q.val();
                        }

                        // completion pops: the stage is free next cycle
                        for i in 0..N {
                            self.pp[i].d.next = self.inp[i].cp_valid.val()
                                & self.tq_o[i].nonempty.val()
                                & !self.pp[i].q.val()
                                & (!self.st_v[i].q.val() | self.l_taken[i].val());
                        }
                        self.lost.next = self.c_lost.q.val();

                        // ================= reset =================
                        if self.reset.val() {
                            self.c_lost.d.next = self.k0_32.val();
                            self.c_rc.d.next = self.k0_32.val();
                            for p in 0..MAX_PIPES {
                                self.sv_v[p].d.next = false;
                                self.rt_v[p].d.next = false;
                                self.rl[p].d.next = false;
                            }
                            for x in 0..KP {
                                self.sp[x].d.next = true;
                            }
                            for o in 0..N {
                                self.cg[o].d.next = false;
                            }
                            for i in 0..N {
                                self.pp[i].d.next = false;
                                self.st_v[i].d.next = false;
                                self.pm[i].d.next = true;
                            }
                            for l in 0..K {
                                self.e1_v[l].d.next = false;
                                self.e2_v[l].d.next = false;
                            }
                            for x in 0..KNB {
                                self.e2_hx[x].d.next = false;
                                self.q_cnt[x].d.next = self.k0_cc.val();
                                self.q_ne[x].d.next = false;
                                self.q_p[x].d.next = false;
                            }
                            self.ph.d.next = self.k0_8.val();
                            for x in 0..NRP {
                                self.sl[x].d.next = self.k_sl0[x].val();
                            }
                            for x in 0..NK {
                                self.lp[x].d.next = true;
                            }
                            for o in 0..N {
                                self.pk_v[o].d.next = false;
                                self.wb[o].d.next = self.k0_2.val();
                                self.wu[o].d.next = self.k0_8.val();
                                self.ri[o].d.next = false;
                                self.dq_v[o].d.next = false;
                                self.ad_v[o].d.next = false;
                            }
                        }
                    }
                }
            }
        }
    }
}
