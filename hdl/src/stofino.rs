//! Tofino-style trimming (paper 002 §3-§5) as a policy block of the shared switch's
//! admission ([`crate::sadm`]): the ingress meters of each pipe, the congestion mode of
//! each output, and the count of deflected headers in each pipe's recirculation path. It
//! runs beside a lane's pipeline and answers, in registers, the two questions the lane's
//! decision (S4) asks of it: is the frame red at the meter of its output's mode (then it
//! is trimmed at ingress), and may it be deflected on drop (its pipe's recirculation path
//! has room). docs/switch-design.md has the switch it belongs to.
//!
//! ```text
//!  lane's S1 registers (out, pipe, bytes) ─► P2: meters of (pipe, out), out's mode,
//!     the pipe's deflected count ─► P3: colours, red at the mode's meter, room ─► red, dok
//!  P3's greens ─► P4 ─► P5: per (pipe, out) the lanes' green bytes summed ─► meters
//!  cong[o] ─► output o's mode        rel[p], the lane's S4 deflection ─► pipe p's count
//! ```
//!
//! # Pipes
//! `pipes` = P ingress pipes (0 counts as 1, more than [`MAX_PIPES`] as 4). Input `i` is
//! in pipe `floor(i·P/N)`: `pipe_of[i]`, registered twice (two cycles after `pipes`
//! changes).
//!
//! # Meters
//! Each pipe has three meters per output, at 100, 50 and 25 % of line rate: virtual queues
//! `vq0`, `vq1`, `vq2` of bytes (at `p·N + o`) that drain by 8, 4 and 2 bytes every cycle
//! (to 0 at the least). A frame of `L` bytes is green at meter `k` when `vq_k + L <=
//! burst` (so `L <= burst`), and each meter it is green at grows by `L`; a red frame leaves
//! it as it is (a token bucket of `burst` bytes; the retired crosspoint switch's theoretical
//! arrival times, divided by `2^k`, are the same queues). Every valid, well-formed request
//! to an existing output runs the three meters of its (pipe, output) while `on`.
//! * **P2** (the lane's S2 cycle) reads the three meters of the pick's (pipe, output) (one
//!   hot, an OR tree), `burst - L` and whether `L <= burst`, the output's mode and the
//!   pipe's deflected count.
//! * **P3** compares: greens, `red` (the mode's meter is not green), and `dok` (the count
//!   is below `lim_dod`). The lane's S4 reads them.
//! * **P4, P5.** The greens wait a stage beside the lane's S4; P5 sums, per (pipe, output)
//!   and meter, the bytes of the lanes' greens, and the meter adds that register as it
//!   drains: `vq_k ← max(vq_k - 8/2^k, 0) + sum`.
//!
//! So a meter, like the admission's counters, misses the greens of the four decisions of
//! its lane before it and those of the other lanes in five cycles: **it passes at most
//! `5K - 1` frames more than its bucket** (tested as a bound on what passes at the meter
//! of each mode). A meter holds at most `burst + (5K - 1)·burst < 5K·2^20` bytes, which
//! its 24 bits hold for `K <= 3` (`new` checks it).
//!
//! One bucket serves the three meters (the paper's two-rate meters have a burst each), so
//! the 25 % meter, too, turns red only when a full bucket is ahead of the frame.
//!
//! # The mode of an output
//! A pulse on `cong[o]` (a deflected header of output `o` left the recirculation path,
//! paper 002 §4: the signal goes to every pipe at once, so one mode per output serves them
//! all, changing in the same cycle for every pipe: the paper's UPDATE/NOTIFY round trip
//! through the recirculation ports is not modelled) sets `rem[o] = t0 + t1` (registered
//! from the configuration; `t1` below is read live); `rem` counts down by one a cycle to 0. The mode is
//! registered from `rem`: pessimistic (2, the 25 % meter) while `rem > t1`, half-pessimistic
//! (1, 50 %) while `0 < rem <= t1`, optimistic (0, 100 %) at 0. A pulse in cycle `c` makes
//! output `o` pessimistic from cycle `c + 2` for `t0` cycles, then half-pessimistic for
//! `t1` cycles; another pulse restarts it. `t0 = t1 = 0` turns the loop off. (The paper's
//! P4 code times T1 from the signal, `t1_reg = now + T1`; its §6 runs read "6 µs, then a
//! further 18 µs", which is this `t1`: after `t0`.)
//!
//! # Deflected headers
//! `dod[p]` counts the headers of pipe `p` deflected on drop and not yet released from the
//! recirculation path: up by the lane's S4 deflections (`d_v`, a register of the lane,
//! summed in P5 as the meters are), down by `rel[p]`. A frame may be deflected while the
//! count read in P2 is below `lim_dod`, so the count exceeds `lim_dod` by at most `5K - 1`:
//! a recirculation queue of `lim_dod + 5K - 1` entries never overflows. (A Tofino's
//! deflect-on-drop queue has no such limit: it overflows and drops; here the frame is
//! refused instead, counted in the admission's `refused`.) A deflection is in the count
//! two cycles after its verdict, so `rel[p]` for it must come no earlier: a release
//! before its deflection wraps the count.
//!
//! # Parameters
//! As the admission's: `N` ports, `K` lanes, `M = N/K`, `PN = 4N` (meters per kind, at
//! `p·N + o`), `KPN = K·PN`.
use rust_hdl::prelude::*;

/// Most ingress pipes.
pub const MAX_PIPES: usize = 4;

/// The policy's configuration.
#[derive(LogicInterface, Default)]
pub struct TofinoCfg {
    /// Tofino-style trimming on (the admission then trims red frames and deflects).
    pub on: Signal<In, bool>,
    /// Ingress pipes, 1 to 4 (0 counts as 1, more as 4).
    pub pipes: Signal<In, Bits<3>>,
    /// The meters' bucket, bytes.
    pub burst: Signal<In, Bits<20>>,
    /// Cycles of pessimistic, then of half-pessimistic mode after a congestion signal.
    pub t0: Signal<In, Bits<24>>,
    pub t1: Signal<In, Bits<24>>,
    /// A frame is deflected only while its pipe has fewer deflected headers than this.
    pub lim_dod: Signal<In, Bits<16>>,
}

type L<T> = Signal<Local, T>;

/// The block. See the module documentation.
#[derive(LogicBlock)]
pub struct TofinoPolicy<
    const N: usize,
    const K: usize,
    const M: usize,
    const PN: usize,
    const KPN: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub cfg: TofinoCfg,
    /// Per output: a congestion signal (one cycle).
    pub cong: [Signal<In, bool>; N],
    /// Per pipe: a deflected header left the recirculation path (one cycle).
    pub rel: [Signal<In, bool>; MAX_PIPES],
    /// Per lane, the lane's S1 registers: a pick, well formed, its output, pipe, bytes.
    pub q_v: [Signal<In, bool>; K],
    pub q_ok: [Signal<In, bool>; K],
    pub q_o: [Signal<In, Bits<8>>; K],
    pub q_p: [Signal<In, Bits<2>>; K],
    pub q_by: [Signal<In, Bits<32>>; K],
    /// Per lane, the lane's S4 register: S4 deflected its frame.
    pub d_v: [Signal<In, bool>; K],
    /// Per input, its pipe.
    pub pipe_of: [Signal<Out, Bits<2>>; N],
    /// Per lane, P3's registers: red at the mode's meter; the pipe may deflect.
    pub red: [Signal<Out, bool>; K],
    pub dok: [Signal<Out, bool>; K],
    /// Per output, its mode: 0 optimistic, 1 half-pessimistic, 2 pessimistic.
    pub mode: [Signal<Out, Bits<2>>; N],
    /// Per pipe, its deflected headers not yet released.
    pub dod: [Signal<Out, Bits<16>>; MAX_PIPES],

    pp: [DFF<Bits<2>>; N],
    np: DFF<Bits<3>>,
    tsum: DFF<Bits<25>>,
    rem: [DFF<Bits<25>>; N],
    md: [DFF<Bits<2>>; N],
    vq0: [DFF<Bits<24>>; PN],
    vq1: [DFF<Bits<24>>; PN],
    vq2: [DFF<Bits<24>>; PN],
    m50: [DFF<Bits<24>>; PN],
    m51: [DFF<Bits<24>>; PN],
    m52: [DFF<Bits<24>>; PN],
    dcnt: [DFF<Bits<16>>; MAX_PIPES],
    d5: [DFF<Bits<8>>; MAX_PIPES],
    // P2
    p2_v: [DFF<bool>; K],
    p2_hx: [DFF<bool>; KPN],
    p2_v0: [DFF<Bits<24>>; K],
    p2_v1: [DFF<Bits<24>>; K],
    p2_v2: [DFF<Bits<24>>; K],
    p2_room: [DFF<Bits<24>>; K],
    p2_bok: [DFF<bool>; K],
    p2_by: [DFF<Bits<24>>; K],
    p2_md: [DFF<Bits<2>>; K],
    p2_dc: [DFF<Bits<16>>; K],
    p2_p: [DFF<Bits<2>>; K],
    // P3
    p3_red: [DFF<bool>; K],
    p3_dok: [DFF<bool>; K],
    p3_g0: [DFF<bool>; K],
    p3_g1: [DFF<bool>; K],
    p3_g2: [DFF<bool>; K],
    p3_hx: [DFF<bool>; KPN],
    p3_by: [DFF<Bits<24>>; K],
    p3_p: [DFF<Bits<2>>; K],
    // P4
    p4_g0: [DFF<bool>; K],
    p4_g1: [DFF<bool>; K],
    p4_g2: [DFF<bool>; K],
    p4_hx: [DFF<bool>; KPN],
    p4_by: [DFF<Bits<24>>; K],
    p4_p: [DFF<Bits<2>>; K],

    l_np: L<Bits<3>>,
    l_burst: L<Bits<32>>,
    l_burst24: L<Bits<24>>,
    l_room: [L<Bits<24>>; K],
    l_hit: [L<bool>; KPN],
    l_v0: [L<Bits<24>>; K],
    l_v1: [L<Bits<24>>; K],
    l_v2: [L<Bits<24>>; K],
    l_md: [L<Bits<2>>; K],
    l_dc: [L<Bits<16>>; K],
    l_g0: [L<bool>; K],
    l_g1: [L<bool>; K],
    l_g2: [L<bool>; K],
    l_red: [L<bool>; K],
    l_s0: [L<Bits<24>>; PN],
    l_s1: [L<Bits<24>>; PN],
    l_s2: [L<Bits<24>>; PN],
    l_d: [L<Bits<8>>; MAX_PIPES],
    l_dr0: [L<Bits<24>>; PN],
    l_dr1: [L<Bits<24>>; PN],
    l_dr2: [L<Bits<24>>; PN],

    k_pt: [Constant<Bits<2>>; PN],
    k_pix: [Constant<Bits<2>>; MAX_PIPES],
    k_np: [Constant<Bits<3>>; MAX_PIPES],
    k_idx: [Constant<Bits<8>>; N],
    k_n8: Constant<Bits<8>>,
    k0_3: Constant<Bits<3>>,
    k1_3: Constant<Bits<3>>,
    k4_3: Constant<Bits<3>>,
    k0_2: Constant<Bits<2>>,
    k1_2: Constant<Bits<2>>,
    k2_2: Constant<Bits<2>>,
    k0_8: Constant<Bits<8>>,
    k1_8: Constant<Bits<8>>,
    k0_16: Constant<Bits<16>>,
    k1_16: Constant<Bits<16>>,
    k0_24: Constant<Bits<24>>,
    k0_25: Constant<Bits<25>>,
    k1_25: Constant<Bits<25>>,
    k8_24: Constant<Bits<24>>,
    k4_24: Constant<Bits<24>>,
    k2_24: Constant<Bits<24>>,
}

fn arr<T: Default, const X: usize>() -> [T; X] {
    std::array::from_fn(|_| T::default())
}

impl<const N: usize, const K: usize, const M: usize, const PN: usize, const KPN: usize>
    TofinoPolicy<N, K, M, PN, KPN>
{
    /// Builds the block. Panics unless the parameters are consistent (module docs).
    pub fn new() -> Self {
        assert!(
            K >= 1 && N.is_multiple_of(K) && M == N / K,
            "M={M} must be N/K (N={N}, K={K})"
        );
        assert_eq!(PN, MAX_PIPES * N, "PN must be 4N");
        assert_eq!(KPN, K * PN, "KPN must be K * PN");
        assert!(
            K <= 3,
            "the meters' 24 bits hold a bucket plus 5K - 1 frames of it for K <= 3 lanes (K={K})"
        );
        let c = |v: usize, bits: usize| -> u64 {
            assert!(v < 1 << bits);
            v as u64
        };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            cong: arr(),
            rel: arr(),
            q_v: arr(),
            q_ok: arr(),
            q_o: arr(),
            q_p: arr(),
            q_by: arr(),
            d_v: arr(),
            pipe_of: arr(),
            red: arr(),
            dok: arr(),
            mode: arr(),
            dod: arr(),
            pp: arr(),
            np: Default::default(),
            tsum: Default::default(),
            rem: arr(),
            md: arr(),
            vq0: arr(),
            vq1: arr(),
            vq2: arr(),
            m50: arr(),
            m51: arr(),
            m52: arr(),
            dcnt: arr(),
            d5: arr(),
            p2_v: arr(),
            p2_hx: arr(),
            p2_v0: arr(),
            p2_v1: arr(),
            p2_v2: arr(),
            p2_room: arr(),
            p2_bok: arr(),
            p2_by: arr(),
            p2_md: arr(),
            p2_dc: arr(),
            p2_p: arr(),
            p3_red: arr(),
            p3_dok: arr(),
            p3_g0: arr(),
            p3_g1: arr(),
            p3_g2: arr(),
            p3_hx: arr(),
            p3_by: arr(),
            p3_p: arr(),
            p4_g0: arr(),
            p4_g1: arr(),
            p4_g2: arr(),
            p4_hx: arr(),
            p4_by: arr(),
            p4_p: arr(),
            l_np: Default::default(),
            l_burst: Default::default(),
            l_burst24: Default::default(),
            l_room: arr(),
            l_hit: arr(),
            l_v0: arr(),
            l_v1: arr(),
            l_v2: arr(),
            l_md: arr(),
            l_dc: arr(),
            l_g0: arr(),
            l_g1: arr(),
            l_g2: arr(),
            l_red: arr(),
            l_s0: arr(),
            l_s1: arr(),
            l_s2: arr(),
            l_d: arr(),
            l_dr0: arr(),
            l_dr1: arr(),
            l_dr2: arr(),
            // pipe of input i with P pipes, at (P - 1) * N + i
            k_pt: std::array::from_fn(|x| {
                let (p, i) = (x / N + 1, x % N);
                Constant::new(c(i * p / N, 2).into())
            }),
            k_pix: std::array::from_fn(|p| Constant::new(c(p, 2).into())),
            k_np: std::array::from_fn(|p| Constant::new(c(p + 1, 3).into())),
            k_idx: std::array::from_fn(|i| Constant::new(c(i, 8).into())),
            k_n8: Constant::new(c(N, 8).into()),
            k0_3: Constant::new(0.into()),
            k1_3: Constant::new(1.into()),
            k4_3: Constant::new(4.into()),
            k0_2: Constant::new(0.into()),
            k1_2: Constant::new(1.into()),
            k2_2: Constant::new(2.into()),
            k0_8: Constant::new(0.into()),
            k1_8: Constant::new(1.into()),
            k0_16: Constant::new(0.into()),
            k1_16: Constant::new(1.into()),
            k0_24: Constant::new(0.into()),
            k0_25: Constant::new(0.into()),
            k1_25: Constant::new(1.into()),
            k8_24: Constant::new(8.into()),
            k4_24: Constant::new(4.into()),
            k2_24: Constant::new(2.into()),
        }
    }
}

impl<const N: usize, const K: usize, const M: usize, const PN: usize, const KPN: usize> Default
    for TofinoPolicy<N, K, M, PN, KPN>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const K: usize, const M: usize, const PN: usize, const KPN: usize> Logic
    for TofinoPolicy<N, K, M, PN, KPN>
{
    #[hdl_gen]
    fn update(&mut self) {
        // `nn` is N, `pn` is PN: array indices may use loop variables and literals only.
        for nn in N..(N + 1) {
            for pn in PN..(PN + 1) {
                // ---------------- clocks ----------------
                self.np.clock.next = self.clock.val();
                self.tsum.clock.next = self.clock.val();
                for i in 0..N {
                    self.pp[i].clock.next = self.clock.val();
                    self.rem[i].clock.next = self.clock.val();
                    self.md[i].clock.next = self.clock.val();
                }
                for x in 0..PN {
                    self.vq0[x].clock.next = self.clock.val();
                    self.vq1[x].clock.next = self.clock.val();
                    self.vq2[x].clock.next = self.clock.val();
                    self.m50[x].clock.next = self.clock.val();
                    self.m51[x].clock.next = self.clock.val();
                    self.m52[x].clock.next = self.clock.val();
                }
                for p in 0..MAX_PIPES {
                    self.dcnt[p].clock.next = self.clock.val();
                    self.d5[p].clock.next = self.clock.val();
                }
                for l in 0..K {
                    self.p2_v[l].clock.next = self.clock.val();
                    self.p2_v0[l].clock.next = self.clock.val();
                    self.p2_v1[l].clock.next = self.clock.val();
                    self.p2_v2[l].clock.next = self.clock.val();
                    self.p2_room[l].clock.next = self.clock.val();
                    self.p2_bok[l].clock.next = self.clock.val();
                    self.p2_by[l].clock.next = self.clock.val();
                    self.p2_md[l].clock.next = self.clock.val();
                    self.p2_dc[l].clock.next = self.clock.val();
                    self.p2_p[l].clock.next = self.clock.val();
                    self.p3_red[l].clock.next = self.clock.val();
                    self.p3_dok[l].clock.next = self.clock.val();
                    self.p3_g0[l].clock.next = self.clock.val();
                    self.p3_g1[l].clock.next = self.clock.val();
                    self.p3_g2[l].clock.next = self.clock.val();
                    self.p3_by[l].clock.next = self.clock.val();
                    self.p3_p[l].clock.next = self.clock.val();
                    self.p4_g0[l].clock.next = self.clock.val();
                    self.p4_g1[l].clock.next = self.clock.val();
                    self.p4_g2[l].clock.next = self.clock.val();
                    self.p4_by[l].clock.next = self.clock.val();
                    self.p4_p[l].clock.next = self.clock.val();
                }
                for x in 0..KPN {
                    self.p2_hx[x].clock.next = self.clock.val();
                    self.p3_hx[x].clock.next = self.clock.val();
                    self.p4_hx[x].clock.next = self.clock.val();
                    self.p3_hx[x].d.next = self.p2_hx[x].q.val();
                    self.p4_hx[x].d.next = self.p3_hx[x].q.val();
                }

                // ---------------- pipes ----------------
                self.l_np.next = self.cfg.pipes.val();
                if self.cfg.pipes.val() == self.k0_3.val() {
                    self.l_np.next = self.k1_3.val();
                }
                if self.cfg.pipes.val() > self.k4_3.val() {
                    self.l_np.next = self.k4_3.val();
                }
                self.np.d.next = self.l_np.val();
                for i in 0..N {
                    self.pp[i].d.next = self.k0_2.val();
                    for p in 0..MAX_PIPES {
                        if self.np.q.val() == self.k_np[p].val() {
                            self.pp[i].d.next = self.k_pt[p * nn + i].val();
                        }
                    }
                    self.pipe_of[i].next = self.pp[i].q.val();
                }

                // ---------------- the outputs' modes ----------------
                self.tsum.d.next =
                    bit_cast::<25, 24>(self.cfg.t0.val()) + bit_cast::<25, 24>(self.cfg.t1.val());
                for o in 0..N {
                    self.rem[o].d.next = self.rem[o].q.val();
                    if self.rem[o].q.val() != self.k0_25.val() {
                        self.rem[o].d.next = self.rem[o].q.val() - self.k1_25.val();
                    }
                    if self.cong[o].val() {
                        self.rem[o].d.next = self.tsum.q.val();
                    }
                    self.md[o].d.next = self.k0_2.val();
                    if self.rem[o].q.val() != self.k0_25.val() {
                        self.md[o].d.next = self.k1_2.val();
                    }
                    if self.rem[o].q.val() > bit_cast::<25, 24>(self.cfg.t1.val()) {
                        self.md[o].d.next = self.k2_2.val();
                    }
                    self.mode[o].next = self.md[o].q.val();
                }

                // ---------------- per lane: P2 reads, P3 compares, P4 waits ----------------
                self.l_burst.next = bit_cast::<32, 20>(self.cfg.burst.val());
                self.l_burst24.next = bit_cast::<24, 20>(self.cfg.burst.val());
                for l in 0..K {
                    self.l_v0[l].next = self.k0_24.val();
                    self.l_v1[l].next = self.k0_24.val();
                    self.l_v2[l].next = self.k0_24.val();
                    for p in 0..MAX_PIPES {
                        for o in 0..N {
                            self.l_hit[l * pn + p * nn + o].next = (self.q_p[l].val()
                                == self.k_pix[p].val())
                                & (self.q_o[l].val() == self.k_idx[o].val());
                            self.p2_hx[l * pn + p * nn + o].d.next =
                                self.l_hit[l * pn + p * nn + o].val();
                            if self.l_hit[l * pn + p * nn + o].val() {
                                self.l_v0[l].next =
                                    self.l_v0[l].val() | self.vq0[p * nn + o].q.val();
                                self.l_v1[l].next =
                                    self.l_v1[l].val() | self.vq1[p * nn + o].q.val();
                                self.l_v2[l].next =
                                    self.l_v2[l].val() | self.vq2[p * nn + o].q.val();
                            }
                        }
                    }
                    self.l_md[l].next = self.k0_2.val();
                    for o in 0..N {
                        if self.q_o[l].val() == self.k_idx[o].val() {
                            self.l_md[l].next = self.l_md[l].val() | self.md[o].q.val();
                        }
                    }
                    self.l_dc[l].next = self.k0_16.val();
                    for p in 0..MAX_PIPES {
                        if self.q_p[l].val() == self.k_pix[p].val() {
                            self.l_dc[l].next = self.l_dc[l].val() | self.dcnt[p].q.val();
                        }
                    }
                    self.p2_v[l].d.next = self.cfg.on.val()
                        & self.q_v[l].val()
                        & self.q_ok[l].val()
                        & (self.q_o[l].val() < self.k_n8.val());
                    self.p2_v0[l].d.next = self.l_v0[l].val();
                    self.p2_v1[l].d.next = self.l_v1[l].val();
                    self.p2_v2[l].d.next = self.l_v2[l].val();
                    // burst - L, exact in 24 bits whenever L <= burst (bok); else bok refuses
                    self.l_room[l].next =
                        self.l_burst24.val() - self.q_by[l].val().get_bits::<24>(0);
                    self.p2_room[l].d.next = self.l_room[l].val();
                    self.p2_bok[l].d.next = self.q_by[l].val() <= self.l_burst.val();
                    self.p2_by[l].d.next = self.q_by[l].val().get_bits::<24>(0);
                    self.p2_md[l].d.next = self.l_md[l].val();
                    self.p2_dc[l].d.next = self.l_dc[l].val();
                    self.p2_p[l].d.next = self.q_p[l].val();

                    // P3
                    self.l_g0[l].next =
                        self.p2_bok[l].q.val() & (self.p2_v0[l].q.val() <= self.p2_room[l].q.val());
                    self.l_g1[l].next =
                        self.p2_bok[l].q.val() & (self.p2_v1[l].q.val() <= self.p2_room[l].q.val());
                    self.l_g2[l].next =
                        self.p2_bok[l].q.val() & (self.p2_v2[l].q.val() <= self.p2_room[l].q.val());
                    self.l_red[l].next = !self.l_g0[l].val();
                    if self.p2_md[l].q.val() == self.k1_2.val() {
                        self.l_red[l].next = !self.l_g1[l].val();
                    }
                    if self.p2_md[l].q.val() == self.k2_2.val() {
                        self.l_red[l].next = !self.l_g2[l].val();
                    }
                    self.p3_red[l].d.next = self.p2_v[l].q.val() & self.l_red[l].val();
                    self.p3_dok[l].d.next =
                        self.p2_v[l].q.val() & (self.p2_dc[l].q.val() < self.cfg.lim_dod.val());
                    self.p3_g0[l].d.next = self.p2_v[l].q.val() & self.l_g0[l].val();
                    self.p3_g1[l].d.next = self.p2_v[l].q.val() & self.l_g1[l].val();
                    self.p3_g2[l].d.next = self.p2_v[l].q.val() & self.l_g2[l].val();
                    self.p3_by[l].d.next = self.p2_by[l].q.val();
                    self.p3_p[l].d.next = self.p2_p[l].q.val();
                    self.red[l].next = self.p3_red[l].q.val();
                    self.dok[l].next = self.p3_dok[l].q.val();

                    // P4
                    self.p4_g0[l].d.next = self.p3_g0[l].q.val();
                    self.p4_g1[l].d.next = self.p3_g1[l].q.val();
                    self.p4_g2[l].d.next = self.p3_g2[l].q.val();
                    self.p4_by[l].d.next = self.p3_by[l].q.val();
                    self.p4_p[l].d.next = self.p3_p[l].q.val();
                }

                // ---------------- P5: sums; the meters drain and add ----------------
                for x in 0..PN {
                    self.l_s0[x].next = self.k0_24.val();
                    self.l_s1[x].next = self.k0_24.val();
                    self.l_s2[x].next = self.k0_24.val();
                    for l in 0..K {
                        if self.p4_hx[l * pn + x].q.val() & self.p4_g0[l].q.val() {
                            self.l_s0[x].next = self.l_s0[x].val() + self.p4_by[l].q.val();
                        }
                        if self.p4_hx[l * pn + x].q.val() & self.p4_g1[l].q.val() {
                            self.l_s1[x].next = self.l_s1[x].val() + self.p4_by[l].q.val();
                        }
                        if self.p4_hx[l * pn + x].q.val() & self.p4_g2[l].q.val() {
                            self.l_s2[x].next = self.l_s2[x].val() + self.p4_by[l].q.val();
                        }
                    }
                    self.m50[x].d.next = self.l_s0[x].val();
                    self.m51[x].d.next = self.l_s1[x].val();
                    self.m52[x].d.next = self.l_s2[x].val();
                    self.l_dr0[x].next = self.k0_24.val();
                    if self.vq0[x].q.val() > self.k8_24.val() {
                        self.l_dr0[x].next = self.vq0[x].q.val() - self.k8_24.val();
                    }
                    self.l_dr1[x].next = self.k0_24.val();
                    if self.vq1[x].q.val() > self.k4_24.val() {
                        self.l_dr1[x].next = self.vq1[x].q.val() - self.k4_24.val();
                    }
                    self.l_dr2[x].next = self.k0_24.val();
                    if self.vq2[x].q.val() > self.k2_24.val() {
                        self.l_dr2[x].next = self.vq2[x].q.val() - self.k2_24.val();
                    }
                    self.vq0[x].d.next = self.l_dr0[x].val() + self.m50[x].q.val();
                    self.vq1[x].d.next = self.l_dr1[x].val() + self.m51[x].q.val();
                    self.vq2[x].d.next = self.l_dr2[x].val() + self.m52[x].q.val();
                }
                for p in 0..MAX_PIPES {
                    self.l_d[p].next = self.k0_8.val();
                    for l in 0..K {
                        if self.d_v[l].val() & (self.p4_p[l].q.val() == self.k_pix[p].val()) {
                            self.l_d[p].next = self.l_d[p].val() + self.k1_8.val();
                        }
                    }
                    self.d5[p].d.next = self.l_d[p].val();
                    self.dcnt[p].d.next =
                        self.dcnt[p].q.val() + bit_cast::<16, 8>(self.d5[p].q.val());
                    if self.rel[p].val() {
                        self.dcnt[p].d.next = self.dcnt[p].q.val()
                            + bit_cast::<16, 8>(self.d5[p].q.val())
                            - self.k1_16.val();
                    }
                    self.dod[p].next = self.dcnt[p].q.val();
                }

                // ---------------- reset ----------------
                if self.reset.val() {
                    for o in 0..N {
                        self.rem[o].d.next = self.k0_25.val();
                        self.md[o].d.next = self.k0_2.val();
                    }
                    for x in 0..PN {
                        self.vq0[x].d.next = self.k0_24.val();
                        self.vq1[x].d.next = self.k0_24.val();
                        self.vq2[x].d.next = self.k0_24.val();
                        self.m50[x].d.next = self.k0_24.val();
                        self.m51[x].d.next = self.k0_24.val();
                        self.m52[x].d.next = self.k0_24.val();
                    }
                    for p in 0..MAX_PIPES {
                        self.dcnt[p].d.next = self.k0_16.val();
                        self.d5[p].d.next = self.k0_8.val();
                    }
                    for l in 0..K {
                        self.p2_v[l].d.next = false;
                        self.p3_red[l].d.next = false;
                        self.p3_dok[l].d.next = false;
                        self.p3_g0[l].d.next = false;
                        self.p3_g1[l].d.next = false;
                        self.p3_g2[l].d.next = false;
                        self.p4_g0[l].d.next = false;
                        self.p4_g1[l].d.next = false;
                        self.p4_g2[l].d.next = false;
                    }
                }
            }
        }
    }
}
