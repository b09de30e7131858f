//! The new switch's ingress (issue 30, third slice): per input, the header parse, the
//! route lookup, the band, and an 8-word delay line, so that only well-formed, routed
//! frames of at least 8 words reach the shared buffer ([`crate::sbuf`]), each with one
//! request to the admission ([`crate::sadm`]). Inputs share nothing but the forwarding
//! table: there is no logic over inputs. docs/switch-design.md has the switch this belongs
//! to.
//!
//! ```text
//!  rx[i] ─► s0 ─► s1 ─► … ─► s7 ─► (keep?) ─► o[i].valid/data/last/empty  (to the buffer)
//!   │ words 1-4: header fields ─► P1: route compare, checks, length ─► P2: lowest match,
//!   │                                                                   band, words
//!   └ word 7, with word 0 in s6: keep = 8 words back to back ∧ header ok ∧ routed
//!                                ─► o[i].req_* (to the admission), one cycle
//! ```
//!
//! # Interfaces
//! * `rx[i]`: frames from port `i`'s MAC (64-bit words, first byte in bits 63:56, `last`
//!   on the final word with `empty` = unused bytes of it). `ready` is high except in reset
//!   cycles; words with `valid` low are gaps.
//! * `route[k]` (`k < N`): the forwarding table (`valid`, IPv4 destination `ip`, `port`).
//!   The lowest matching valid entry wins; no match, or `port >= N`, is no route.
//! * `band_by_flags`: the band from the transport flags instead of the IPv4 `tos`.
//! * `o[i]`: the frame's words 9 cycles after they arrived (`valid`, `data`, `last`,
//!   `empty`), for frames that are kept, and its request (`req_valid` for one cycle, with
//!   `req_out`, `req_band`, `req_bytes`, `req_words`, `req_empty`, `req_ok` = true), 8
//!   cycles after its first word arrived: one cycle before the word goes out.
//! * `stat[i]`: wrapping counters `rx_frames`, `drop_malformed`, `drop_no_route`, `fwd`.
//!   Every frame whose first word leaves stage 6 is counted once in `rx_frames` and once
//!   in one of the other three.
//!
//! # Frames
//! A word arriving when the previous word of the input was a frame's last (or the first
//! since reset) is a frame's first word. The delay line `s0..s7` shifts every cycle: word
//! `j` of a frame whose first word arrived in cycle `t` is in `s_k` in cycle `t + j + 1 +
//! k`, and goes out (registered, `o[i]`) in cycle `t + j + 9` if its frame is kept.
//!
//! # The decision, in cycle `t + 7`
//! In the cycle in which stage `s6` holds a first word, the frame is decided, and the
//! decision holds for every word of it that leaves `s7` (the next frame's first word
//! cannot reach `s6` before this frame's last word has left `s7`). It is **kept** when:
//! * **eight words back to back**: `s6` to `s0` hold valid words none of which is a last,
//!   and a word arrives in this cycle (word 7). A frame shorter than 8 words, or with a
//!   gap among its first 8, is malformed (`drop_malformed`);
//! * **the header is well formed** (from words 1 to 4, as captured in their cycles of
//!   arrival): ethertype 0x0800, version/IHL 0x45, IPv4 total length in 50..=1074 (frames
//!   of 64..=1088 bytes). Else `drop_malformed`;
//! * **it is routed**: the destination IP (word 3 bits 15:0, word 4 bits 63:48) matches a
//!   valid entry, and the lowest such entry's port is below `N`. Else `drop_no_route`.
//!
//! A kept frame is counted in `fwd` and requests admission with `bytes = IPv4 total length
//! + 14`, `words = ceil(bytes / 8)` and `empty = 8 words - bytes`, `req_trim` when it may
//! be trimmed (IP protocol 154 or 155, a DATA packet without CHOP, whatever
//! `band_by_flags`), and `req_csum`, the IPv4 checksum its header carries once trimmed to
//! total length 50: RFC 1624 eqn. 3, `~(~HC + ~len + 50)` in ones' complement, from the
//! checksum of word 3 bits 63:48 (P1 adds, P2 folds the carries twice and complements),
//! and `req_rb`, the bytes a header returned to its sender takes from later words (the
//! source MAC's last 4 bytes, word 1 bits 63:32, and the destination IP's last 2, word 4
//! bits 63:48, as captured), and `req_bf`, Bolt's flags (word 6 bits 15:8, captured as word 6
//! arrives, the cycle before the decision) for IP protocol 154 or 155, else 0. Its real
//! length is not
//! known yet: the buffer checks it against the verdict (a mismatch completes as bad).
//!
//! # The band
//! By `tos` (word 1 bits 7:0): `min(tos >> 2, 3)`: the DSCP field, so a lower value is a
//! higher priority, as Homa sends `tos = prio << 2`; the ECN bits never select a band. By
//! flags (`band_by_flags`; word 4 bits 47:40): for IP protocol 154 or 155 (word 2 bits
//! 7:0) a DATA packet (flag bit 0) without CHOP (bit 4) is band 1 and every other packet
//! band 0; other protocols band 3.
//!
//! # Timing
//! The fields are captured as their words arrive; the route compare, the checks and the
//! length are registered a cycle after word 4 (P1), the lowest match and the byte and word
//! counts a cycle later (P2), so in cycle `t + 7` the decision reads registers and the
//! arriving word's `valid` only.
use crate::swif::{RouteCfg, SwitchSink};
use rust_hdl::prelude::*;

/// Per input, toward the buffer and the admission.
#[derive(LogicInterface, Default)]
pub struct IngOut {
    pub valid: Signal<Out, bool>,
    pub data: Signal<Out, Bits<64>>,
    pub last: Signal<Out, bool>,
    pub empty: Signal<Out, Bits<3>>,
    pub req_valid: Signal<Out, bool>,
    pub req_out: Signal<Out, Bits<8>>,
    pub req_band: Signal<Out, Bits<2>>,
    pub req_bytes: Signal<Out, Bits<32>>,
    pub req_words: Signal<Out, Bits<16>>,
    pub req_empty: Signal<Out, Bits<3>>,
    pub req_ok: Signal<Out, bool>,
    /// Our transport's DATA without CHOP: the switch may trim it.
    pub req_trim: Signal<Out, bool>,
    /// The IPv4 header checksum of the frame trimmed to 64 bytes (total length 50).
    pub req_csum: Signal<Out, Bits<16>>,
    /// For a header returned to its sender, the bytes its rewrite takes from a later
    /// word: the source MAC's last 4 bytes (word 1 bits 63:32) in bits 47:16, the
    /// destination IP's last 2 (word 4 bits 63:48) in bits 15:0.
    pub req_rb: Signal<Out, Bits<48>>,
    /// Bolt's flags (frame byte 54, word 6 bits 15:8) of our transport's packets (IP
    /// protocol 154 or 155), 0 for every other frame.
    pub req_bf: Signal<Out, Bits<8>>,
}

/// Per input: wrapping counters.
#[derive(LogicInterface, Default)]
pub struct IngStats {
    pub rx_frames: Signal<Out, Bits<32>>,
    pub drop_malformed: Signal<Out, Bits<32>>,
    pub drop_no_route: Signal<Out, Bits<32>>,
    pub fwd: Signal<Out, Bits<32>>,
}

type L<T> = Signal<Local, T>;

/// The ingress. See the module documentation.
#[derive(LogicBlock)]
pub struct SwitchIngress<const N: usize, const N8: usize, const NN: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub rx: [SwitchSink; N],
    pub route: [RouteCfg; N],
    pub band_by_flags: Signal<In, bool>,
    pub o: [IngOut; N],
    pub stat: [IngStats; N],

    // frame tracking: in a frame (the last word was not a last), word index (saturating)
    infr: [DFF<bool>; N],
    wi: [DFF<Bits<4>>; N],
    // delay line: data, and tags valid / first / last / empty
    sd: [DFF<Bits<64>>; N8],
    sv: [DFF<bool>; N8],
    sf: [DFF<bool>; N8],
    sl: [DFF<bool>; N8],
    se: [DFF<Bits<3>>; N8],
    // header fields, captured as their words arrive
    f_eth: [DFF<Bits<16>>; N],
    f_vih: [DFF<Bits<8>>; N],
    f_tos: [DFF<Bits<8>>; N],
    f_len: [DFF<Bits<32>>; N],
    f_proto: [DFF<Bits<8>>; N],
    f_dhi: [DFF<Bits<16>>; N],
    f_dlo: [DFF<Bits<16>>; N],
    f_flags: [DFF<Bits<8>>; N],
    f_bf: [DFF<Bits<8>>; N],
    f_csum: [DFF<Bits<16>>; N],
    f_smt: [DFF<Bits<32>>; N],
    // P1
    p1_m: [DFF<bool>; NN],
    p1_hok: [DFF<bool>; N],
    p1_by: [DFF<Bits<32>>; N],
    p1_b: [DFF<Bits<2>>; N],
    p1_t: [DFF<bool>; N],
    p1_our: [DFF<bool>; N],
    // ~checksum + ~length + 50, before the end-around carries
    p1_cs: [DFF<Bits<32>>; N],
    // P2
    p2_found: [DFF<bool>; N],
    p2_port: [DFF<Bits<8>>; N],
    p2_hok: [DFF<bool>; N],
    p2_by: [DFF<Bits<32>>; N],
    p2_w: [DFF<Bits<16>>; N],
    p2_e: [DFF<Bits<3>>; N],
    p2_b: [DFF<Bits<2>>; N],
    p2_t: [DFF<bool>; N],
    p2_our: [DFF<bool>; N],
    p2_cs: [DFF<Bits<16>>; N],
    // the current frame is kept
    keep: [DFF<bool>; N],
    // outputs
    ov: [DFF<bool>; N],
    od: [DFF<Bits<64>>; N],
    ol: [DFF<bool>; N],
    oe: [DFF<Bits<3>>; N],
    rq_v: [DFF<bool>; N],
    rq_o: [DFF<Bits<8>>; N],
    rq_b: [DFF<Bits<2>>; N],
    rq_by: [DFF<Bits<32>>; N],
    rq_w: [DFF<Bits<16>>; N],
    rq_e: [DFF<Bits<3>>; N],
    rq_t: [DFF<bool>; N],
    rq_bf: [DFF<Bits<8>>; N],
    rq_cs: [DFF<Bits<16>>; N],
    rq_rb: [DFF<Bits<48>>; N],
    c_rx: [DFF<Bits<32>>; N],
    c_mal: [DFF<Bits<32>>; N],
    c_nr: [DFF<Bits<32>>; N],
    c_fwd: [DFF<Bits<32>>; N],

    // combinational
    l_in: [L<bool>; N],
    l_eight: [L<bool>; N],
    l_dec: [L<bool>; N],
    l_routed: [L<bool>; N],
    l_pre: [L<bool>; N],
    l_port: [L<Bits<8>>; N],
    l_w32: [L<Bits<32>>; N],
    l_cf1: [L<Bits<32>>; N],
    l_ncs: [L<Bits<16>>; N],
    l_nlen: [L<Bits<16>>; N],
    l_cf2: [L<Bits<16>>; N],

    k_w1: Constant<Bits<4>>,
    k_w2: Constant<Bits<4>>,
    k_w3: Constant<Bits<4>>,
    k_w4: Constant<Bits<4>>,
    k_w6: Constant<Bits<4>>,
    k_n8: Constant<Bits<8>>,
    k_eth: Constant<Bits<16>>,
    k_vih: Constant<Bits<8>>,
    k_len_lo: Constant<Bits<32>>,
    k_len_hi: Constant<Bits<32>>,
    k14: Constant<Bits<32>>,
    k7: Constant<Bits<32>>,
    k3_8: Constant<Bits<8>>,
    k15_8: Constant<Bits<8>>,
    k154: Constant<Bits<8>>,
    k155: Constant<Bits<8>>,
    k16_8: Constant<Bits<8>>,
    k1_4: Constant<Bits<4>>,
    k8_4: Constant<Bits<4>>,
    k0_2: Constant<Bits<2>>,
    k1_2: Constant<Bits<2>>,
    k3_2: Constant<Bits<2>>,
    k0_3: Constant<Bits<3>>,
    k0_4: Constant<Bits<4>>,
    k0_8: Constant<Bits<8>>,
    k0_32: Constant<Bits<32>>,
    k0_64: Constant<Bits<64>>,
    k1_32: Constant<Bits<32>>,
    k50_32: Constant<Bits<32>>,
}

/// 4 ports.
pub type SwitchIngress4 = SwitchIngress<4, 32, 16>;
/// 16 ports.
pub type SwitchIngress16 = SwitchIngress<16, 128, 256>;

fn arr<T: Default, const X: usize>() -> [T; X] {
    std::array::from_fn(|_| T::default())
}

impl<const N: usize, const N8: usize, const NN: usize> SwitchIngress<N, N8, NN> {
    /// Builds the block. Panics unless `N` is a power of two in 4..=64.
    pub fn new() -> Self {
        assert!(
            N.is_power_of_two() && (4..=64).contains(&N),
            "ports N={N} must be a power of two in 4..=64"
        );
        assert_eq!(N8, 8 * N, "N8 must be 8N");
        assert_eq!(NN, N * N, "NN must be N*N");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx: arr(),
            route: arr(),
            band_by_flags: Default::default(),
            o: arr(),
            stat: arr(),
            infr: arr(),
            wi: arr(),
            sd: arr(),
            sv: arr(),
            sf: arr(),
            sl: arr(),
            se: arr(),
            f_eth: arr(),
            f_vih: arr(),
            f_tos: arr(),
            f_len: arr(),
            f_proto: arr(),
            f_dhi: arr(),
            f_dlo: arr(),
            f_flags: arr(),
            f_bf: arr(),
            f_csum: arr(),
            f_smt: arr(),
            p1_m: arr(),
            p1_hok: arr(),
            p1_by: arr(),
            p1_b: arr(),
            p1_t: arr(),
            p1_our: arr(),
            p1_cs: arr(),
            p2_found: arr(),
            p2_port: arr(),
            p2_hok: arr(),
            p2_by: arr(),
            p2_w: arr(),
            p2_e: arr(),
            p2_b: arr(),
            p2_t: arr(),
            p2_our: arr(),
            p2_cs: arr(),
            keep: arr(),
            ov: arr(),
            od: arr(),
            ol: arr(),
            oe: arr(),
            rq_v: arr(),
            rq_o: arr(),
            rq_b: arr(),
            rq_by: arr(),
            rq_w: arr(),
            rq_e: arr(),
            rq_t: arr(),
            rq_bf: arr(),
            rq_cs: arr(),
            rq_rb: arr(),
            c_rx: arr(),
            c_mal: arr(),
            c_nr: arr(),
            c_fwd: arr(),
            l_in: arr(),
            l_eight: arr(),
            l_dec: arr(),
            l_routed: arr(),
            l_pre: arr(),
            l_port: arr(),
            l_w32: arr(),
            l_cf1: arr(),
            l_ncs: arr(),
            l_nlen: arr(),
            l_cf2: arr(),
            k_w1: Constant::new(1.into()),
            k_w2: Constant::new(2.into()),
            k_w3: Constant::new(3.into()),
            k_w4: Constant::new(4.into()),
            k_w6: Constant::new(6.into()),
            k_n8: Constant::new((N as u64).into()),
            k_eth: Constant::new(0x0800.into()),
            k_vih: Constant::new(0x45.into()),
            k_len_lo: Constant::new(50.into()),
            k_len_hi: Constant::new(1074.into()),
            k14: Constant::new(14.into()),
            k7: Constant::new(7.into()),
            k3_8: Constant::new(3.into()),
            k15_8: Constant::new(15.into()),
            k154: Constant::new(154.into()),
            k155: Constant::new(155.into()),
            k16_8: Constant::new(16.into()),
            k1_4: Constant::new(1.into()),
            k8_4: Constant::new(8.into()),
            k0_2: Constant::new(0.into()),
            k1_2: Constant::new(1.into()),
            k3_2: Constant::new(3.into()),
            k0_3: Constant::new(0.into()),
            k0_4: Constant::new(0.into()),
            k0_8: Constant::new(0.into()),
            k0_32: Constant::new(0.into()),
            k0_64: Constant::new(0.into()),
            k1_32: Constant::new(1.into()),
            k50_32: Constant::new(50.into()),
        }
    }
}

impl<const N: usize, const N8: usize, const NN: usize> Default for SwitchIngress<N, N8, NN> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const N8: usize, const NN: usize> Logic for SwitchIngress<N, N8, NN> {
    #[hdl_gen]
    fn update(&mut self) {
        // `nn` is N: array indices may use loop variables and literals only.
        for nn in N..(N + 1) {
            for i in 0..N {
                // ---------------- clocks, defaults ----------------
                self.infr[i].clock.next = self.clock.val();
                self.infr[i].d.next = self.infr[i].q.val();
                self.wi[i].clock.next = self.clock.val();
                self.wi[i].d.next = self.wi[i].q.val();
                for k in 0..8 {
                    self.sd[i * 8 + k].clock.next = self.clock.val();
                    self.sv[i * 8 + k].clock.next = self.clock.val();
                    self.sf[i * 8 + k].clock.next = self.clock.val();
                    self.sl[i * 8 + k].clock.next = self.clock.val();
                    self.se[i * 8 + k].clock.next = self.clock.val();
                }
                self.f_eth[i].clock.next = self.clock.val();
                self.f_eth[i].d.next = self.f_eth[i].q.val();
                self.f_vih[i].clock.next = self.clock.val();
                self.f_vih[i].d.next = self.f_vih[i].q.val();
                self.f_tos[i].clock.next = self.clock.val();
                self.f_tos[i].d.next = self.f_tos[i].q.val();
                self.f_len[i].clock.next = self.clock.val();
                self.f_len[i].d.next = self.f_len[i].q.val();
                self.f_proto[i].clock.next = self.clock.val();
                self.f_proto[i].d.next = self.f_proto[i].q.val();
                self.f_dhi[i].clock.next = self.clock.val();
                self.f_dhi[i].d.next = self.f_dhi[i].q.val();
                self.f_dlo[i].clock.next = self.clock.val();
                self.f_dlo[i].d.next = self.f_dlo[i].q.val();
                self.f_flags[i].clock.next = self.clock.val();
                self.f_flags[i].d.next = self.f_flags[i].q.val();
                self.f_bf[i].clock.next = self.clock.val();
                self.f_bf[i].d.next = self.f_bf[i].q.val();
                self.f_csum[i].clock.next = self.clock.val();
                self.f_csum[i].d.next = self.f_csum[i].q.val();
                self.f_smt[i].clock.next = self.clock.val();
                self.f_smt[i].d.next = self.f_smt[i].q.val();
                for k in 0..N {
                    self.p1_m[i * nn + k].clock.next = self.clock.val();
                }
                self.p1_hok[i].clock.next = self.clock.val();
                self.p1_by[i].clock.next = self.clock.val();
                self.p1_b[i].clock.next = self.clock.val();
                self.p1_t[i].clock.next = self.clock.val();
                self.p1_our[i].clock.next = self.clock.val();
                self.p1_cs[i].clock.next = self.clock.val();
                self.p2_found[i].clock.next = self.clock.val();
                self.p2_port[i].clock.next = self.clock.val();
                self.p2_hok[i].clock.next = self.clock.val();
                self.p2_by[i].clock.next = self.clock.val();
                self.p2_w[i].clock.next = self.clock.val();
                self.p2_e[i].clock.next = self.clock.val();
                self.p2_b[i].clock.next = self.clock.val();
                self.p2_t[i].clock.next = self.clock.val();
                self.p2_our[i].clock.next = self.clock.val();
                self.p2_cs[i].clock.next = self.clock.val();
                self.keep[i].clock.next = self.clock.val();
                self.keep[i].d.next = self.keep[i].q.val();
                self.ov[i].clock.next = self.clock.val();
                self.od[i].clock.next = self.clock.val();
                self.ol[i].clock.next = self.clock.val();
                self.oe[i].clock.next = self.clock.val();
                self.rq_v[i].clock.next = self.clock.val();
                self.rq_o[i].clock.next = self.clock.val();
                self.rq_o[i].d.next = self.rq_o[i].q.val();
                self.rq_b[i].clock.next = self.clock.val();
                self.rq_b[i].d.next = self.rq_b[i].q.val();
                self.rq_by[i].clock.next = self.clock.val();
                self.rq_by[i].d.next = self.rq_by[i].q.val();
                self.rq_w[i].clock.next = self.clock.val();
                self.rq_w[i].d.next = self.rq_w[i].q.val();
                self.rq_e[i].clock.next = self.clock.val();
                self.rq_e[i].d.next = self.rq_e[i].q.val();
                self.rq_t[i].clock.next = self.clock.val();
                self.rq_t[i].d.next = self.rq_t[i].q.val();
                self.rq_bf[i].clock.next = self.clock.val();
                self.rq_bf[i].d.next = self.rq_bf[i].q.val();
                self.rq_cs[i].clock.next = self.clock.val();
                self.rq_cs[i].d.next = self.rq_cs[i].q.val();
                self.rq_rb[i].clock.next = self.clock.val();
                self.rq_rb[i].d.next = self.rq_rb[i].q.val();
                self.c_rx[i].clock.next = self.clock.val();
                self.c_rx[i].d.next = self.c_rx[i].q.val();
                self.c_mal[i].clock.next = self.clock.val();
                self.c_mal[i].d.next = self.c_mal[i].q.val();
                self.c_nr[i].clock.next = self.clock.val();
                self.c_nr[i].d.next = self.c_nr[i].q.val();
                self.c_fwd[i].clock.next = self.clock.val();
                self.c_fwd[i].d.next = self.c_fwd[i].q.val();

                // ---------------- arrival: delay line, frame tracking, fields ----------------
                self.rx[i].ready.next = !self.reset.val();
                self.l_in[i].next = self.rx[i].valid.val() & !self.reset.val();
                self.sv[i * 8 + 0].d.next = self.l_in[i].val();
                self.sf[i * 8 + 0].d.next = self.l_in[i].val() & !self.infr[i].q.val();
                self.sl[i * 8 + 0].d.next = self.l_in[i].val() & self.rx[i].last.val();
                self.sd[i * 8 + 0].d.next = self.k0_64.val();
                self.se[i * 8 + 0].d.next = self.k0_3.val();
                if self.l_in[i].val() {
                    self.sd[i * 8 + 0].d.next = self.rx[i].data.val();
                    self.se[i * 8 + 0].d.next = self.rx[i].empty.val();
                }
                for k in 1..8 {
                    self.sd[i * 8 + k].d.next = self.sd[i * 8 + k - 1].q.val();
                    self.sv[i * 8 + k].d.next = self.sv[i * 8 + k - 1].q.val();
                    self.sf[i * 8 + k].d.next = self.sf[i * 8 + k - 1].q.val();
                    self.sl[i * 8 + k].d.next = self.sl[i * 8 + k - 1].q.val();
                    self.se[i * 8 + k].d.next = self.se[i * 8 + k - 1].q.val();
                }
                if self.l_in[i].val() {
                    self.infr[i].d.next = !self.rx[i].last.val();
                    if !self.infr[i].q.val() {
                        // a first word: its index is 0, the next word's 1
                        self.wi[i].d.next = self.k1_4.val();
                    } else if self.wi[i].q.val() < self.k8_4.val() {
                        self.wi[i].d.next = self.wi[i].q.val() + self.k1_4.val();
                    }
                    if self.infr[i].q.val() & (self.wi[i].q.val() == self.k_w1.val()) {
                        self.f_eth[i].d.next = self.rx[i].data.val().get_bits::<16>(16);
                        self.f_vih[i].d.next = self.rx[i].data.val().get_bits::<8>(8);
                        self.f_tos[i].d.next = self.rx[i].data.val().get_bits::<8>(0);
                        self.f_smt[i].d.next = self.rx[i].data.val().get_bits::<32>(32);
                    }
                    if self.infr[i].q.val() & (self.wi[i].q.val() == self.k_w2.val()) {
                        self.f_len[i].d.next =
                            self.rx[i].data.val().get_bits::<32>(32) >> self.k16_8.val();
                        self.f_proto[i].d.next = self.rx[i].data.val().get_bits::<8>(0);
                    }
                    if self.infr[i].q.val() & (self.wi[i].q.val() == self.k_w3.val()) {
                        self.f_dhi[i].d.next = self.rx[i].data.val().get_bits::<16>(0);
                        self.f_csum[i].d.next = self.rx[i].data.val().get_bits::<16>(48);
                    }
                    if self.infr[i].q.val() & (self.wi[i].q.val() == self.k_w4.val()) {
                        self.f_dlo[i].d.next = self.rx[i].data.val().get_bits::<16>(48);
                        self.f_flags[i].d.next = self.rx[i].data.val().get_bits::<8>(40);
                    }
                    if self.infr[i].q.val() & (self.wi[i].q.val() == self.k_w6.val()) {
                        self.f_bf[i].d.next = self.rx[i].data.val().get_bits::<8>(8);
                    }
                }

                // ---------------- P1: route compare, checks, length, band ----------------
                for k in 0..N {
                    self.p1_m[i * nn + k].d.next = self.route[k].valid.val()
                        & (self.route[k].ip.val().get_bits::<16>(16) == self.f_dhi[i].q.val())
                        & (self.route[k].ip.val().get_bits::<16>(0) == self.f_dlo[i].q.val());
                }
                self.p1_hok[i].d.next = (self.f_eth[i].q.val() == self.k_eth.val())
                    & (self.f_vih[i].q.val() == self.k_vih.val())
                    & (self.f_len[i].q.val() >= self.k_len_lo.val())
                    & (self.f_len[i].q.val() <= self.k_len_hi.val());
                self.p1_by[i].d.next = self.f_len[i].q.val() + self.k14.val();
                self.p1_b[i].d.next = self.f_tos[i].q.val().get_bits::<2>(2);
                self.p1_our[i].d.next = (self.f_proto[i].q.val() == self.k154.val())
                    | (self.f_proto[i].q.val() == self.k155.val());
                self.p1_t[i].d.next = ((self.f_proto[i].q.val() == self.k154.val())
                    | (self.f_proto[i].q.val() == self.k155.val()))
                    & self.f_flags[i].q.val().get_bit(0)
                    & !self.f_flags[i].q.val().get_bit(4);
                // RFC 1624 eqn. 3, the length field becoming 50: ~(~HC + ~m + m')
                // (the complements in 16-bit signals: a cast of `~x` would widen `x` first)
                self.l_ncs[i].next = !self.f_csum[i].q.val();
                self.l_nlen[i].next = !self.f_len[i].q.val().get_bits::<16>(0);
                self.p1_cs[i].d.next = bit_cast::<32, 16>(self.l_ncs[i].val())
                    + bit_cast::<32, 16>(self.l_nlen[i].val())
                    + self.k50_32.val();
                if self.band_by_flags.val() {
                    if (self.f_proto[i].q.val() == self.k154.val())
                        | (self.f_proto[i].q.val() == self.k155.val())
                    {
                        if self.f_flags[i].q.val().get_bit(0) & !self.f_flags[i].q.val().get_bit(4)
                        {
                            self.p1_b[i].d.next = self.k1_2.val();
                        } else {
                            self.p1_b[i].d.next = self.k0_2.val();
                        }
                    } else {
                        self.p1_b[i].d.next = self.k3_2.val();
                    }
                } else if self.f_tos[i].q.val() > self.k15_8.val() {
                    self.p1_b[i].d.next = self.k3_2.val();
                }

                // ---------------- P2: the lowest match, words ----------------
                self.l_pre[i].next = false;
                self.l_port[i].next = self.k0_8.val();
                for k in 0..N {
                    if self.p1_m[i * nn + k].q.val() & !self.l_pre[i].val() {
                        self.l_port[i].next = self.l_port[i].val() | self.route[k].port.val();
                    }
                    self.l_pre[i].next = self.l_pre[i].val() | self.p1_m[i * nn + k].q.val();
                }
                self.p2_port[i].d.next = self.l_port[i].val();
                self.p2_found[i].d.next = self.l_pre[i].val();
                self.p2_hok[i].d.next = self.p1_hok[i].q.val();
                self.p2_by[i].d.next = self.p1_by[i].q.val();
                self.l_w32[i].next = (self.p1_by[i].q.val() + self.k7.val()) >> self.k3_8.val();
                self.p2_w[i].d.next = self.l_w32[i].val().get_bits::<16>(0);
                self.p2_e[i].d.next = self.k0_3.val() - self.p1_by[i].q.val().get_bits::<3>(0);
                self.p2_b[i].d.next = self.p1_b[i].q.val();
                self.p2_t[i].d.next = self.p1_t[i].q.val();
                self.p2_our[i].d.next = self.p1_our[i].q.val();
                // two end-around carries, then the complement
                self.l_cf1[i].next = bit_cast::<32, 16>(self.p1_cs[i].q.val().get_bits::<16>(0))
                    + (self.p1_cs[i].q.val() >> self.k16_8.val());
                // the first fold is at most 0x1_0001: this sum fits 16 bits
                self.l_cf2[i].next =
                    self.l_cf1[i].val().get_bits::<16>(0) + self.l_cf1[i].val().get_bits::<16>(16);
                self.p2_cs[i].d.next = !self.l_cf2[i].val();

                // ---------------- the decision (s6 holds a first word) ----------------
                self.l_eight[i].next = self.sv[i * 8 + 6].q.val()
                    & !self.sl[i * 8 + 6].q.val()
                    & self.sv[i * 8 + 5].q.val()
                    & !self.sl[i * 8 + 5].q.val()
                    & self.sv[i * 8 + 4].q.val()
                    & !self.sl[i * 8 + 4].q.val()
                    & self.sv[i * 8 + 3].q.val()
                    & !self.sl[i * 8 + 3].q.val()
                    & self.sv[i * 8 + 2].q.val()
                    & !self.sl[i * 8 + 2].q.val()
                    & self.sv[i * 8 + 1].q.val()
                    & !self.sl[i * 8 + 1].q.val()
                    & self.sv[i * 8 + 0].q.val()
                    & !self.sl[i * 8 + 0].q.val()
                    & self.l_in[i].val();
                self.l_routed[i].next =
                    self.p2_found[i].q.val() & (self.p2_port[i].q.val() < self.k_n8.val());
                self.l_dec[i].next = self.sv[i * 8 + 6].q.val() & self.sf[i * 8 + 6].q.val();
                self.rq_v[i].d.next = false;
                if self.l_dec[i].val() {
                    self.c_rx[i].d.next = self.c_rx[i].q.val() + self.k1_32.val();
                    self.keep[i].d.next =
                        self.l_eight[i].val() & self.p2_hok[i].q.val() & self.l_routed[i].val();
                    if !(self.l_eight[i].val() & self.p2_hok[i].q.val()) {
                        self.c_mal[i].d.next = self.c_mal[i].q.val() + self.k1_32.val();
                    } else if !self.l_routed[i].val() {
                        self.c_nr[i].d.next = self.c_nr[i].q.val() + self.k1_32.val();
                    } else {
                        self.c_fwd[i].d.next = self.c_fwd[i].q.val() + self.k1_32.val();
                        self.rq_v[i].d.next = true;
                        self.rq_o[i].d.next = self.p2_port[i].q.val();
                        self.rq_b[i].d.next = self.p2_b[i].q.val();
                        self.rq_by[i].d.next = self.p2_by[i].q.val();
                        self.rq_w[i].d.next = self.p2_w[i].q.val();
                        self.rq_e[i].d.next = self.p2_e[i].q.val();
                        self.rq_t[i].d.next = self.p2_t[i].q.val();
                        // word 6 arrived in the cycle before this one
                        self.rq_bf[i].d.next = self.k0_8.val();
                        if self.p2_our[i].q.val() {
                            self.rq_bf[i].d.next = self.f_bf[i].q.val();
                        }
                        self.rq_cs[i].d.next = self.p2_cs[i].q.val();
                        // words 1 and 4 of a frame of 8 or more words: the next frame's
                        // cannot have arrived yet
                        self.rq_rb[i].d.next = (bit_cast::<48, 32>(self.f_smt[i].q.val())
                            << self.k16_8.val())
                            | bit_cast::<48, 16>(self.f_dlo[i].q.val());
                    }
                }

                // ---------------- out of s7 ----------------
                self.ov[i].d.next = self.sv[i * 8 + 7].q.val() & self.keep[i].q.val();
                self.od[i].d.next = self.k0_64.val();
                self.ol[i].d.next = false;
                self.oe[i].d.next = self.k0_3.val();
                if self.sv[i * 8 + 7].q.val() & self.keep[i].q.val() {
                    self.od[i].d.next = self.sd[i * 8 + 7].q.val();
                    self.ol[i].d.next = self.sl[i * 8 + 7].q.val();
                    self.oe[i].d.next = self.se[i * 8 + 7].q.val();
                }
                self.o[i].valid.next = self.ov[i].q.val();
                self.o[i].data.next = self.od[i].q.val();
                self.o[i].last.next = self.ol[i].q.val();
                self.o[i].empty.next = self.oe[i].q.val();
                self.o[i].req_valid.next = self.rq_v[i].q.val();
                self.o[i].req_out.next = self.rq_o[i].q.val();
                self.o[i].req_band.next = self.rq_b[i].q.val();
                self.o[i].req_bytes.next = self.rq_by[i].q.val();
                self.o[i].req_words.next = self.rq_w[i].q.val();
                self.o[i].req_empty.next = self.rq_e[i].q.val();
                self.o[i].req_ok.next = true;
                self.o[i].req_trim.next = self.rq_t[i].q.val();
                self.o[i].req_csum.next = self.rq_cs[i].q.val();
                self.o[i].req_rb.next = self.rq_rb[i].q.val();
                self.o[i].req_bf.next = self.rq_bf[i].q.val();
                self.stat[i].rx_frames.next = self.c_rx[i].q.val();
                self.stat[i].drop_malformed.next = self.c_mal[i].q.val();
                self.stat[i].drop_no_route.next = self.c_nr[i].q.val();
                self.stat[i].fwd.next = self.c_fwd[i].q.val();

                // ---------------- reset ----------------
                if self.reset.val() {
                    self.infr[i].d.next = false;
                    self.wi[i].d.next = self.k0_4.val();
                    self.keep[i].d.next = false;
                    self.ov[i].d.next = false;
                    self.rq_v[i].d.next = false;
                    self.c_rx[i].d.next = self.k0_32.val();
                    self.c_mal[i].d.next = self.k0_32.val();
                    self.c_nr[i].d.next = self.k0_32.val();
                    self.c_fwd[i].d.next = self.k0_32.val();
                    for k in 0..8 {
                        self.sv[i * 8 + k].d.next = false;
                    }
                }
            }
        }
    }
}
