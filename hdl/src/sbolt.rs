//! Bolt's switch logic (thesis Algorithms 7 and 9, SPEC §3) as a policy block of the shared
//! switch's admission ([`crate::sadm`]): per output, the PRU tokens and the supply token
//! (SM), and per data packet the decision Bolt makes at ingress: send a source congestion
//! notification (SRC), set DEC, clear INC or keep it. It runs beside a lane's pipeline as
//! the Tofino policy does ([`crate::stofino`]) and answers in registers that the lane's
//! decision (S4) puts into the verdict. Bolt's decisions do not change admission: a frame
//! is admitted, trimmed or refused as without them. docs/switch-design.md has the switch.
//!
//! ```text
//!  lane's S1 registers (out, bytes, Bolt flags) ─► P2: the output's PRU and SM tokens,
//!     L + MTU ─► P3 (with the lane's S2 read of the output's queued bytes): congested?,
//!     SRC, the new flags, earn / spend a PRU token, spend an SM token ─► src, bm, bf, q
//!  P3 ─► P4 ─► P5: per output the lanes' bytes, tokens and spends summed ─► PRU, SM
//! ```
//!
//! # What a decision sees
//! A request is a **Bolt data packet** when `on`, it is valid, well formed (`q_ok`), to an
//! existing output, and its Bolt flags (`q_bf`, frame byte 54: [`crate::swif::BOLT_DATA`]
//! …) have DATA. Only those move the tokens or change flags; for every other request `bm`
//! is clear, `src` clear and `bf` its flags unchanged.
//!
//! # The decision (P3), thesis Algorithms 7 and 9
//! With `L` the frame's bytes, `Q` the output's queued bytes (all bands, the admission's
//! counter as its S2 read it), `S` the output's supply token and `R` its PRU tokens as P2
//! read them:
//! * **SM** (every Bolt data packet): the token after it is `min(S - L, MTU)`, less an MTU
//!   if it spends one (below).
//! * If `Q >= cc_thresh` (congested): unless the packet has DEC, an SRC (`src`) and the
//!   packet's flags get DEC set and INC cleared (Algorithm 7 line 10 is inside `if not
//!   pkt.dec`); a congested packet with DEC goes on unchanged.
//! * Else if LAST: unless FIRST, one PRU token is earned while `R < pru_cap` (a FIRST and
//!   LAST packet changes no token and keeps INC, Algorithm 7 lines 11-12).
//! * Else if INC: a PRU token is spent if `R > 0`; else an MTU of supply is spent if
//!   `min(S - L, MTU) >= MTU` (that is `S >= L + MTU`) and not `sm_off`; else INC is
//!   cleared.
//!
//! `q` is `Q` (saturated to 24 bits), the SRC's `q_size`.
//!
//! # The tokens
//! Per output `o`, `sm[o]` holds the supply token plus `2^24` (so it is never negative:
//! the token is floored at `-2^24`; the register keeps it with bit 24 inverted, so that its
//! power-up 0 is a token of 0), and `pru[o]` the PRU tokens. A reset, like power-up, sets
//! every supply token to 0 and the PRU tokens to 0.
//! * **Supply, 8 bytes a cycle** (a 64-bit word per cycle is the line rate). In a cycle
//!   with no data packet of `o` in P5, `sm ← min(sm + 8, 2^24 + 2^20)` (the supply an idle
//!   output gathers is capped at 1 MiB, above any `MTU + L` with `L < 2^17` (an IPv4
//!   frame), so the cap never changes a decision's `min(S - L, MTU)`).
//! * **A cycle with data packets of `o` in P5** (their bytes `ΣL`, their SM spends `c`,
//!   their earned PRU tokens `g` and spent ones `s`, summed over the lanes): `sm ←
//!   max(min(sm + 8 - ΣL, 2^24 + MTU + 40) - c·MTU, 0)` and `pru ← min(max(pru + g - s,
//!   0), pru_cap)`.
//!
//! A decision is in P2 in cycle `t` (it reads `sm[o]` and `pru[o]` of cycle `t`) and in
//! P5 in `t + 3`; its update is in the registers from `t + 5`. The cap `MTU + 40` in P5 is
//! `MTU` at `t` plus the 40 bytes of supply from `t` to `t + 5`: **a data packet at an
//! output with no other data packet in the 4 cycles before it (in any lane) sees exactly
//! the thesis's token** `sm = min(sm + 8·(t - t_last) - L, MTU)` with `t` its P2 cycle.
//! A decision misses the updates of the decisions of its output in the 4 cycles before it
//! and of the other lanes' in its own cycle: at most `5K - 1`, as the admission's counters
//! (it may then spend a token another has spent; `pru` floors at 0, `sm` takes both
//! spends). No update is lost: every data packet's bytes and every spend and earned token
//! reach the registers.
//!
//! # Parameters
//! `N` ports, `K` lanes (at most 3: a cycle's `c·MTU` is one of four registered
//! multiples), and the decision's output is compared with each output's index in P5 (8 bits).
use rust_hdl::prelude::*;

/// Bolt flag bits of frame byte 54 (as [`crate::swif::BOLT_DATA`] …); `update` reads
/// them by number (a named constant there would be emitted as an undeclared Verilog
/// name): DATA 7, LAST 4, FIRST 3, INC 2, DEC 1.
const F_INC: usize = 2;
const F_DEC: usize = 1;

/// The supply token's offset: `sm` registers hold the token plus this.
pub const SM_OFF: u64 = 1 << 24;
/// The supply an idle output gathers is capped at this (bytes).
pub const SM_IDLE_CAP: u64 = 1 << 20;
/// Cycles from a decision's P2 to its update in the registers.
pub const SM_LAG: u64 = 5;

/// The policy's configuration.
#[derive(LogicInterface, Default)]
pub struct BoltCfg {
    /// Bolt on.
    pub on: Signal<In, bool>,
    /// Queued bytes of an output (all bands) at which its data packets are congested.
    pub cc_thresh: Signal<In, Bits<24>>,
    /// The MTU in bytes: the supply token's cap and what one SM token costs.
    pub mtu: Signal<In, Bits<16>>,
    /// The most PRU tokens an output holds (0: PRU off).
    pub pru_cap: Signal<In, Bits<8>>,
    /// Supply matching off: the supply token is kept, never spent.
    pub sm_off: Signal<In, bool>,
}

type L<T> = Signal<Local, T>;

/// The block. See the module documentation.
#[derive(LogicBlock)]
pub struct BoltPolicy<const N: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub cfg: BoltCfg,
    /// Per lane, the lane's S1 registers: a pick, well formed, its output, bytes (the low
    /// 26 bits: a well-formed frame has fewer than 2^17), Bolt flags.
    pub q_v: [Signal<In, bool>; K],
    pub q_ok: [Signal<In, bool>; K],
    pub q_o: [Signal<In, Bits<8>>; K],
    pub q_by: [Signal<In, Bits<26>>; K],
    pub q_bf: [Signal<In, Bits<8>>; K],
    /// Per lane, the lane's S2 register: the pick's output's queued bytes (read in P3).
    pub q_pb: [Signal<In, Bits<32>>; K],
    /// Per lane, P3's registers: a Bolt data packet (`bm`), an SRC for it, its new flags
    /// (the request's flags when not `bm`), the queued bytes for the SRC.
    pub bm: [Signal<Out, bool>; K],
    pub src: [Signal<Out, bool>; K],
    pub bf: [Signal<Out, Bits<8>>; K],
    pub q: [Signal<Out, Bits<24>>; K],
    /// Per output: its PRU tokens, and its supply token (bytes, two's complement).
    pub pru: [Signal<Out, Bits<8>>; N],
    pub sm: [Signal<Out, Bits<32>>; N],

    // the supply token plus 2^24, stored with bit 24 inverted (so that the registers'
    // power-up 0 is a token of 0, as a reset makes it): `l_smv` reads it, `l_smd` writes it
    smr: [DFF<Bits<26>>; N],
    prur: [DFF<Bits<8>>; N],
    // the configuration's derived constants, registered
    k_lm: DFF<Bits<26>>,
    k_cap: [DFF<Bits<26>>; 4],
    k_mtu: DFF<Bits<26>>,
    k_hi: DFF<Bits<26>>,
    // P2
    p2_v: [DFF<bool>; K],
    p2_o: [DFF<Bits<8>>; K],
    p2_s: [DFF<Bits<26>>; K],
    p2_r: [DFF<Bits<8>>; K],
    p2_lm: [DFF<Bits<26>>; K],
    p2_by: [DFF<Bits<26>>; K],
    p2_bf: [DFF<Bits<8>>; K],
    // P3
    p3_v: [DFF<bool>; K],
    p3_o: [DFF<Bits<8>>; K],
    p3_src: [DFF<bool>; K],
    p3_bf: [DFF<Bits<8>>; K],
    p3_q: [DFF<Bits<24>>; K],
    p3_by: [DFF<Bits<26>>; K],
    p3_g: [DFF<bool>; K],
    p3_s: [DFF<bool>; K],
    p3_c: [DFF<bool>; K],
    // P4
    p4_v: [DFF<bool>; K],
    p4_o: [DFF<Bits<8>>; K],
    p4_by: [DFF<Bits<26>>; K],
    // the bytes plus the MTU it spent, if it spent one
    p4_w: [DFF<Bits<26>>; K],
    p4_g: [DFF<bool>; K],
    p4_s: [DFF<bool>; K],
    p4_c: [DFF<bool>; K],
    // P5 sums per output
    b5_v: [DFF<bool>; N],
    b5_z: [DFF<Bits<26>>; N],
    b5_hi: [DFF<Bits<26>>; N],
    b5_cap: [DFF<Bits<26>>; N],
    b5_g: [DFF<Bits<2>>; N],
    b5_s: [DFF<Bits<2>>; N],

    l_hit: [L<bool>; N],
    l_smv: [L<Bits<26>>; N],
    l_smd: [L<Bits<26>>; N],
    l_h5: [L<bool>; K],
    l_s: [L<Bits<26>>; K],
    l_r: [L<Bits<8>>; K],
    l_cong: [L<bool>; K],
    l_bf: [L<Bits<8>>; K],
    l_src: [L<bool>; K],
    l_g: [L<bool>; K],
    l_sp: [L<bool>; K],
    l_c: [L<bool>; K],
    l_a: [L<Bits<26>>; N],
    l_b: [L<Bits<26>>; N],
    l_nc: [L<Bits<2>>; N],
    l_ng: [L<Bits<2>>; N],
    l_ns: [L<Bits<2>>; N],
    l_pg: [L<Bits<9>>; N],
    l_pn: [L<Bits<9>>; N],

    k_idx: [Constant<Bits<8>>; N],
    k_n8: Constant<Bits<8>>,
    k_off: Constant<Bits<26>>,
    k_icap: Constant<Bits<26>>,
    k_icap8: Constant<Bits<26>>,
    k_lag: Constant<Bits<26>>,
    k0_2: Constant<Bits<2>>,
    k1_2: Constant<Bits<2>>,
    k0_8: Constant<Bits<8>>,
    k_dec: Constant<Bits<8>>,
    k_ninc: Constant<Bits<8>>,
    k2_2: Constant<Bits<2>>,
    k3_2: Constant<Bits<2>>,
    k8_26: Constant<Bits<26>>,
    k0_26: Constant<Bits<26>>,
    k_sat24: Constant<Bits<32>>,
    k_ones24: Constant<Bits<24>>,
    k_off32: Constant<Bits<32>>,
}

fn arr<T: Default, const X: usize>() -> [T; X] {
    std::array::from_fn(|_| T::default())
}

impl<const N: usize, const K: usize> BoltPolicy<N, K> {
    /// Builds the block. Panics unless the parameters are consistent (module docs).
    pub fn new() -> Self {
        assert!(
            (1..=3).contains(&K),
            "Bolt's policy takes 1 to 3 lanes (K={K})"
        );
        assert!(N >= 1 && N <= 255, "N={N}");
        let c = |v: u64| -> Bits<26> {
            assert!(v < 1 << 26);
            v.into()
        };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            q_v: arr(),
            q_ok: arr(),
            q_o: arr(),
            q_by: arr(),
            q_bf: arr(),
            q_pb: arr(),
            bm: arr(),
            src: arr(),
            bf: arr(),
            q: arr(),
            pru: arr(),
            sm: arr(),
            smr: arr(),
            l_smv: arr(),
            l_smd: arr(),
            prur: arr(),
            k_lm: Default::default(),
            k_cap: arr(),
            k_mtu: Default::default(),
            k_hi: Default::default(),
            p2_v: arr(),
            p2_o: arr(),
            p2_s: arr(),
            p2_r: arr(),
            p2_lm: arr(),
            p2_by: arr(),
            p2_bf: arr(),
            p3_v: arr(),
            p3_o: arr(),
            p3_src: arr(),
            p3_bf: arr(),
            p3_q: arr(),
            p3_by: arr(),
            p3_g: arr(),
            p3_s: arr(),
            p3_c: arr(),
            p4_v: arr(),
            p4_o: arr(),
            p4_by: arr(),
            p4_w: arr(),
            p4_g: arr(),
            p4_s: arr(),
            p4_c: arr(),
            b5_v: arr(),
            b5_z: arr(),
            b5_hi: arr(),
            b5_cap: arr(),
            b5_g: arr(),
            b5_s: arr(),
            l_hit: arr(),
            l_h5: arr(),
            l_s: arr(),
            l_r: arr(),
            l_cong: arr(),
            l_bf: arr(),
            l_src: arr(),
            l_g: arr(),
            l_sp: arr(),
            l_c: arr(),
            l_a: arr(),
            l_b: arr(),
            l_nc: arr(),
            l_ng: arr(),
            l_ns: arr(),
            l_pg: arr(),
            l_pn: arr(),
            k_idx: std::array::from_fn(|i| Constant::new((i as u64).into())),
            k_n8: Constant::new((N as u64).into()),
            k_off: Constant::new(c(SM_OFF)),
            k_icap: Constant::new(c(SM_OFF + SM_IDLE_CAP)),
            k_icap8: Constant::new(c(SM_OFF + SM_IDLE_CAP - 8)),
            k_lag: Constant::new(c(8 * SM_LAG)),
            k0_2: Constant::new(0.into()),
            k1_2: Constant::new(1.into()),
            k0_8: Constant::new(0.into()),
            k_dec: Constant::new((1u64 << F_DEC).into()),
            k_ninc: Constant::new((0xffu64 & !(1u64 << F_INC)).into()),
            k2_2: Constant::new(2.into()),
            k3_2: Constant::new(3.into()),
            k8_26: Constant::new(8.into()),
            k0_26: Constant::new(0.into()),
            k_sat24: Constant::new(0xff_ffff.into()),
            k_ones24: Constant::new(0xff_ffff.into()),
            k_off32: Constant::new(SM_OFF.into()),
        }
    }
}

impl<const N: usize, const K: usize> Default for BoltPolicy<N, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const K: usize> Logic for BoltPolicy<N, K> {
    #[hdl_gen]
    fn update(&mut self) {
        // ---------------- clocks ----------------
        self.k_lm.clock.next = self.clock.val();
        self.k_mtu.clock.next = self.clock.val();
        self.k_hi.clock.next = self.clock.val();
        for x in 0..4 {
            self.k_cap[x].clock.next = self.clock.val();
        }
        for o in 0..N {
            self.smr[o].clock.next = self.clock.val();
            self.prur[o].clock.next = self.clock.val();
            self.b5_v[o].clock.next = self.clock.val();
            self.b5_z[o].clock.next = self.clock.val();
            self.b5_hi[o].clock.next = self.clock.val();
            self.b5_cap[o].clock.next = self.clock.val();
            self.b5_g[o].clock.next = self.clock.val();
            self.b5_s[o].clock.next = self.clock.val();
        }
        for l in 0..K {
            self.p2_v[l].clock.next = self.clock.val();
            self.p2_o[l].clock.next = self.clock.val();
            self.p3_o[l].clock.next = self.clock.val();
            self.p4_o[l].clock.next = self.clock.val();
            self.p4_v[l].clock.next = self.clock.val();
            self.p2_s[l].clock.next = self.clock.val();
            self.p2_r[l].clock.next = self.clock.val();
            self.p2_lm[l].clock.next = self.clock.val();
            self.p2_by[l].clock.next = self.clock.val();
            self.p2_bf[l].clock.next = self.clock.val();
            self.p3_v[l].clock.next = self.clock.val();
            self.p3_src[l].clock.next = self.clock.val();
            self.p3_bf[l].clock.next = self.clock.val();
            self.p3_q[l].clock.next = self.clock.val();
            self.p3_by[l].clock.next = self.clock.val();
            self.p3_g[l].clock.next = self.clock.val();
            self.p3_s[l].clock.next = self.clock.val();
            self.p3_c[l].clock.next = self.clock.val();
            self.p4_by[l].clock.next = self.clock.val();
            self.p4_w[l].clock.next = self.clock.val();
            self.p4_g[l].clock.next = self.clock.val();
            self.p4_s[l].clock.next = self.clock.val();
            self.p4_c[l].clock.next = self.clock.val();
        }

        // ---------------- the configuration's constants ----------------
        // MTU + 2^24 (P2 adds L); the P5 cap less 0, 1, 2, 3 MTUs
        self.k_mtu.d.next = bit_cast::<26, 16>(self.cfg.mtu.val());
        self.k_lm.d.next = self.k_off.val() + bit_cast::<26, 16>(self.cfg.mtu.val());
        self.k_cap[0].d.next = self.k_lm.q.val() + self.k_lag.val();
        self.k_hi.d.next = self.k_cap[0].q.val() - self.k8_26.val();
        for x in 1..4 {
            self.k_cap[x].d.next = self.k_cap[x - 1].q.val() - self.k_mtu.q.val();
        }

        for o in 0..N {
            self.l_smv[o].next = self.smr[o].q.val() ^ self.k_off.val();
        }
        // ---------------- per lane: P2 reads, P3 decides, P4 waits ----------------
        for l in 0..K {
            self.l_s[l].next = self.k0_26.val();
            self.l_r[l].next = self.k0_8.val();
            for o in 0..N {
                self.l_hit[o].next = self.q_o[l].val() == self.k_idx[o].val();
                if self.l_hit[o].val() {
                    self.l_s[l].next = self.l_s[l].val() | self.l_smv[o].val();
                    self.l_r[l].next = self.l_r[l].val() | self.prur[o].q.val();
                }
            }
            self.p2_v[l].d.next = self.cfg.on.val()
                & self.q_v[l].val()
                & self.q_ok[l].val()
                & (self.q_o[l].val() < self.k_n8.val())
                & self.q_bf[l].val().get_bit(7);
            self.p2_o[l].d.next = self.q_o[l].val();
            self.p2_s[l].d.next = self.l_s[l].val();
            self.p2_r[l].d.next = self.l_r[l].val();
            self.p2_by[l].d.next = self.q_by[l].val();
            self.p2_lm[l].d.next = self.k_lm.q.val() + self.q_by[l].val();
            self.p2_bf[l].d.next = self.q_bf[l].val();

            // P3
            self.l_cong[l].next =
                self.q_pb[l].val() >= bit_cast::<32, 24>(self.cfg.cc_thresh.val());
            self.l_bf[l].next = self.p2_bf[l].q.val();
            self.l_src[l].next = false;
            self.l_g[l].next = false;
            self.l_sp[l].next = false;
            self.l_c[l].next = false;
            if self.l_cong[l].val() {
                // thesis Algorithm 7 lines 5-10: DEC set and INC cleared with the SRC; a
                // packet that already has DEC goes on unchanged
                self.l_src[l].next = !self.p2_bf[l].q.val().get_bit(1);
                if self.l_src[l].val() {
                    self.l_bf[l].next =
                        (self.p2_bf[l].q.val() | self.k_dec.val()) & self.k_ninc.val();
                }
            } else if self.p2_bf[l].q.val().get_bit(4) {
                self.l_g[l].next = !self.p2_bf[l].q.val().get_bit(3)
                    & (self.p2_r[l].q.val() < self.cfg.pru_cap.val());
            } else if self.p2_bf[l].q.val().get_bit(2) {
                if self.p2_r[l].q.val() != self.k0_8.val() {
                    self.l_sp[l].next = true;
                } else if !self.cfg.sm_off.val() & (self.p2_s[l].q.val() >= self.p2_lm[l].q.val()) {
                    self.l_c[l].next = true;
                } else {
                    self.l_bf[l].next = self.p2_bf[l].q.val() & self.k_ninc.val();
                }
            }
            self.p3_v[l].d.next = self.p2_v[l].q.val();
            self.p3_o[l].d.next = self.p2_o[l].q.val();
            self.p3_src[l].d.next = self.p2_v[l].q.val() & self.l_src[l].val();
            self.p3_bf[l].d.next = self.p2_bf[l].q.val();
            if self.p2_v[l].q.val() {
                self.p3_bf[l].d.next = self.l_bf[l].val();
            }
            self.p3_q[l].d.next = self.q_pb[l].val().get_bits::<24>(0);
            if self.q_pb[l].val() > self.k_sat24.val() {
                self.p3_q[l].d.next = self.k_ones24.val();
            }
            self.p3_by[l].d.next = self.p2_by[l].q.val();
            self.p3_g[l].d.next = self.p2_v[l].q.val() & self.l_g[l].val();
            self.p3_s[l].d.next = self.p2_v[l].q.val() & self.l_sp[l].val();
            self.p3_c[l].d.next = self.p2_v[l].q.val() & self.l_c[l].val();
            self.bm[l].next = self.p3_v[l].q.val();
            self.src[l].next = self.p3_src[l].q.val();
            self.bf[l].next = self.p3_bf[l].q.val();
            self.q[l].next = self.p3_q[l].q.val();

            // P4
            self.p4_v[l].d.next = self.p3_v[l].q.val();
            self.p4_o[l].d.next = self.p3_o[l].q.val();
            self.p4_by[l].d.next = self.p3_by[l].q.val();
            self.p4_w[l].d.next = self.p3_by[l].q.val();
            if self.p3_c[l].q.val() {
                self.p4_w[l].d.next = self.p3_by[l].q.val() + self.k_mtu.q.val();
            }
            self.p4_g[l].d.next = self.p3_g[l].q.val();
            self.p4_s[l].d.next = self.p3_s[l].q.val();
            self.p4_c[l].d.next = self.p3_c[l].q.val();
        }

        // ---------------- P5: sums per output; the tokens ----------------
        for o in 0..N {
            self.l_a[o].next = self.k0_26.val();
            self.l_b[o].next = self.k0_26.val();
            self.l_nc[o].next = self.k0_2.val();
            self.l_ng[o].next = self.k0_2.val();
            self.l_ns[o].next = self.k0_2.val();
            self.b5_v[o].d.next = false;
            for l in 0..K {
                self.l_h5[l].next =
                    self.p4_v[l].q.val() & (self.p4_o[l].q.val() == self.k_idx[o].val());
                if self.l_h5[l].val() {
                    self.b5_v[o].d.next = true;
                    self.l_a[o].next = self.l_a[o].val() + self.p4_by[l].q.val();
                    self.l_b[o].next = self.l_b[o].val() + self.p4_w[l].q.val();
                    if self.p4_c[l].q.val() {
                        self.l_nc[o].next = self.l_nc[o].val() + self.k1_2.val();
                    }
                    if self.p4_g[l].q.val() {
                        self.l_ng[o].next = self.l_ng[o].val() + self.k1_2.val();
                    }
                    if self.p4_s[l].q.val() {
                        self.l_ns[o].next = self.l_ns[o].val() + self.k1_2.val();
                    }
                }
            }
            // sm - (ΣL + c·MTU - 8), floored, capped at cap - c·MTU: the cap compared
            // before the subtraction, as sm > ΣL - 8 + cap (one carry chain each)
            self.b5_z[o].d.next = self.l_b[o].val() - self.k8_26.val();
            self.b5_hi[o].d.next = self.l_a[o].val() + self.k_hi.q.val();
            self.b5_cap[o].d.next = self.k_cap[0].q.val();
            if self.l_nc[o].val() == self.k1_2.val() {
                self.b5_cap[o].d.next = self.k_cap[1].q.val();
            }
            if self.l_nc[o].val() == self.k2_2.val() {
                self.b5_cap[o].d.next = self.k_cap[2].q.val();
            }
            if self.l_nc[o].val() == self.k3_2.val() {
                self.b5_cap[o].d.next = self.k_cap[3].q.val();
            }
            self.b5_g[o].d.next = self.l_ng[o].val();
            self.b5_s[o].d.next = self.l_ns[o].val();

            // the supply token
            self.l_smd[o].next = self.l_smv[o].val() + self.k8_26.val();
            if self.l_smv[o].val() >= self.k_icap8.val() {
                self.l_smd[o].next = self.k_icap.val();
            }
            if self.b5_v[o].q.val() {
                self.l_smd[o].next = self.l_smv[o].val() - self.b5_z[o].q.val();
                if self.l_smv[o].val() < self.b5_z[o].q.val() {
                    self.l_smd[o].next = self.k0_26.val();
                }
                if self.l_smv[o].val() > self.b5_hi[o].q.val() {
                    self.l_smd[o].next = self.b5_cap[o].q.val();
                }
            }
            self.smr[o].d.next = self.l_smd[o].val() ^ self.k_off.val();
            // the PRU tokens
            self.l_pg[o].next =
                bit_cast::<9, 8>(self.prur[o].q.val()) + bit_cast::<9, 2>(self.b5_g[o].q.val());
            self.l_pn[o].next = self.l_pg[o].val() - bit_cast::<9, 2>(self.b5_s[o].q.val());
            // floored at 0 (two decisions may spend one token), then capped (a stale read may
            // earn one over the cap)
            if self.l_pg[o].val() < bit_cast::<9, 2>(self.b5_s[o].q.val()) {
                self.prur[o].d.next = self.k0_8.val();
            } else if self.l_pn[o].val() > bit_cast::<9, 8>(self.cfg.pru_cap.val()) {
                self.prur[o].d.next = self.cfg.pru_cap.val();
            } else {
                self.prur[o].d.next = self.l_pn[o].val().get_bits::<8>(0);
            }
            self.pru[o].next = self.prur[o].q.val();
            self.sm[o].next = bit_cast::<32, 26>(self.l_smv[o].val()) - self.k_off32.val();
        }

        // ---------------- reset ----------------
        if self.reset.val() {
            for o in 0..N {
                self.smr[o].d.next = self.k0_26.val();
                self.prur[o].d.next = self.k0_8.val();
                self.b5_v[o].d.next = false;
            }
            for l in 0..K {
                self.p2_v[l].d.next = false;
                self.p3_v[l].d.next = false;
                self.p3_src[l].d.next = false;
                self.p3_g[l].d.next = false;
                self.p3_s[l].d.next = false;
                self.p3_c[l].d.next = false;
                self.p4_g[l].d.next = false;
                self.p4_s[l].d.next = false;
                self.p4_c[l].d.next = false;
                self.p4_v[l].d.next = false;
            }
        }
    }
}
