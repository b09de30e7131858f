//! The new switch (issue 30), drop-tail, ideal or Tofino-style trimming, Bolt: the ingress
//! ([`crate::sing`]), the admission
//! ([`crate::sadm`]), the shared buffer ([`crate::sbuf`]) and the queues and schedulers
//! ([`crate::sque`]) wired together. Every signal between two of them leaves a register
//! of its sender, so no combinational path crosses two blocks. docs/switch-design.md has
//! the design; each block's module documentation is its exact behaviour.
//!
//! ```text
//!  rx[i] ─► ingress ─ words (9 cycles late) ─────────────► buffer input i ─ completions ─┐
//!              └─ request ─► admission ─ verdict ─┬──────► (admit, words, empty)         │
//!                   ▲                             └──────► queues: tag ◄──────────────────┘
//!                   └──── departures (band, bytes) ◄───── queues ─ descriptors ─► buffer
//!                                                                 output o ─► tx[o]
//! ```
//!
//! # Interfaces
//! * `rx[i]`, `tx[o]`, `route[k]`: as the ingress and the buffer's outputs describe them
//!   (`tx` holds `valid` with `ready` low, frames back to back once started).
//! * `band[b]`: the admission's limits (`lim_pkts`, `lim_bytes`), the dynamic threshold's
//!   exponent `dt_a` and the WRR `weight`.
//! * `cfg`: `band_by_flags` (ingress), `wrr` (schedulers), `dt_on`, `trim`, `ret`,
//!   `headroom`, the output's limits over all bands `port_pkts` and `port_bytes`, and
//!   band 0's limits for headers `hdr_pkts` and `hdr_bytes` (admission). With `trim`, a
//!   frame the admission refuses that may be trimmed (our transport's DATA without CHOP)
//!   is admitted as its 64-byte header into band 0 of its output when that fits (the
//!   header limits, band 0's threshold and 8 words of cells); the buffer
//!   writes the header only, with IPv4 length 50, the checksum the ingress computed and
//!   CHOP set. With `ret` as well, a header that band 0 of its output does not take is
//!   **returned to its sender**: into band 0 of the port it came in on, if that fits,
//!   with its Ethernet and IPv4 addresses and transport ports swapped (paper 002 §2).
//! * `tof`: Tofino-style trimming (paper 002 §3-§5; with `cfg.trim` off): the admission's
//!   policy ([`crate::stofino`]: meters per pipe and output, modes, deflect-on-drop) and
//!   the queues' recirculation path ([`crate::sque`]): a deflected frame's header waits
//!   in its pipe's recirculation FIFO, is held for the frame's length, then goes into
//!   band 0 of its output and signals congestion (`cong[o]`, `rel[p]` from the queues to
//!   the admission, registered). `tof.lim_dod` is held, through a register, to
//!   `RECIRC_DEPTH - 5K + 1`, so a recirculation FIFO never overflows. Outputs `mode[o]`,
//!   `dod[p]` (a pipe's headers not yet back), `metered`, `deflected`, `recirculated`.
//! * `bolt`, `cfg.link_rate`: Bolt (thesis Algorithms 7 and 9): the admission's policy
//!   ([`crate::sbolt`]) decides per data packet (congested without DEC: an SRC, DEC set, INC cleared;
//!   PRU and supply tokens for INC) without changing what is admitted; the buffer
//!   rewrites the packet's Bolt flags and sends its SRC back out of the port it came in
//!   on, from that port's SRC slots, at a packet boundary ahead of every band
//!   ([`crate::sbuf`]). Outputs `pru[o]`, `sm[o]`, `srcs` (verdicts with an SRC),
//!   `stat[p].src_sent` and `src_drop` (no free slot).
//! * `stat[p]`: the ingress's counters of input `p` (`rx_frames`, `drop_malformed`,
//!   `drop_no_route`, `fwd`), `drop_full` (its frames the admission refused), the
//!   buffer's `ovr` (words lost for want of room in its data FIFO: none while verdicts
//!   come in time), `bad` (its frames the buffer completed bad: admitted, but shorter or
//!   longer than their IPv4 length says, or with words lost; freed unsent), `tx_frames`
//!   of output `p`, `trimmed` (its frames sent on as their
//!   header, or back to their sender, or deflected, counted by the buffer once the frame
//!   proved its length: a trimmed frame that completes bad counts in `bad` only),
//!   `returned` (of those, the headers sent back out of port `p`) and `deflected` (of
//!   those, the deflected ones).
//! * `occ_pkts[o*4+b]`, `occ_bytes[o*4+b]`, and per output over all bands `port_pkts[o]`,
//!   `port_bytes[o]`: the admission's occupancy counters: packets
//!   admitted to (output, band) that have not left the buffer.
//! * the admission's decisions `admitted` (whole), `refused`, `trimmed`, `returned`, and `lost` (the admission's lost requests plus the queues' lost
//!   tags: 0 in a working switch, tested).
//!
//! # Latency (store-and-forward)
//! A frame's first word reaches the buffer 9 cycles after it arrived; its request goes to
//! the admission 8 cycles after; the buffer writes it once its verdict is there and
//! completes it at its last word; then the queues enqueue it and the output's scheduler
//! hands it to the reader in the output's next slot. Measured in the tests.
use crate::sadm::{Admission, BANDS};
use crate::sbolt::BoltCfg;
use crate::sbuf::{PackVerdict, SharedBuffer};
use crate::sing::SwitchIngress;
use crate::sque::{recirc_dod_cap, SwitchQueues, RECIRC_DEPTH};
use crate::stofino::{TofinoCfg, MAX_PIPES};
use crate::swif::{RouteCfg, SwitchSink, SwitchSource};
use rust_hdl::prelude::*;

/// Per band.
#[derive(LogicInterface, Default)]
pub struct Sw2BandCfg {
    pub lim_pkts: Signal<In, Bits<16>>,
    pub lim_bytes: Signal<In, Bits<32>>,
    pub dt_a: Signal<In, Bits<4>>,
    pub weight: Signal<In, Bits<8>>,
}

/// Switch-wide.
#[derive(LogicInterface, Default)]
pub struct Sw2Cfg {
    pub band_by_flags: Signal<In, bool>,
    pub wrr: Signal<In, bool>,
    pub dt_on: Signal<In, bool>,
    /// Ideal trimming: a DATA packet of our transport that is refused goes on as its
    /// 64-byte header in band 0 of its output, if that fits.
    pub trim: Signal<In, bool>,
    /// With `trim`: a trimmed header that band 0 of its output does not take goes back to
    /// its sender (out of the port it came in on, addresses swapped), if that band 0 takes it.
    pub ret: Signal<In, bool>,
    pub headroom: Signal<In, Bits<16>>,
    /// Per output, all bands: a whole frame is admitted only while its output holds fewer
    /// than `port_pkts` packets and its bytes fit `port_bytes` (the thesis's per-port
    /// buffer; all ones: no limit; 0, as undriven: no whole frame).
    pub port_pkts: Signal<In, Bits<16>>,
    pub port_bytes: Signal<In, Bits<32>>,
    /// Band 0's limits for trimmed and returned headers (whole frames in band 0 keep to
    /// `band[0]`'s); above those, room in band 0 that only headers take.
    pub hdr_pkts: Signal<In, Bits<16>>,
    pub hdr_bytes: Signal<In, Bits<32>>,
    /// Bolt: the link rate stamped into SRCs (frame byte 53).
    pub link_rate: Signal<In, Bits<8>>,
}

/// Per port.
#[derive(LogicInterface, Default)]
pub struct Sw2Stats {
    pub rx_frames: Signal<Out, Bits<32>>,
    pub drop_malformed: Signal<Out, Bits<32>>,
    pub drop_no_route: Signal<Out, Bits<32>>,
    pub fwd: Signal<Out, Bits<32>>,
    pub drop_full: Signal<Out, Bits<32>>,
    pub ovr: Signal<Out, Bits<32>>,
    pub bad: Signal<Out, Bits<32>>,
    pub tx_frames: Signal<Out, Bits<32>>,
    /// Its frames trimmed to their header (returned ones included), counted by the
    /// buffer once the frame proved its length (a trimmed frame that completes bad counts
    /// in `bad` only).
    pub trimmed: Signal<Out, Bits<32>>,
    /// Of those, the headers that went back to their sender.
    pub returned: Signal<Out, Bits<32>>,
    /// Of those, the frames deflected on drop (their header is sent on after
    /// recirculation).
    pub deflected: Signal<Out, Bits<32>>,
    /// Bolt: SRCs for its frames sent back out of port `p`, and those lost for want of
    /// a free SRC slot.
    pub src_sent: Signal<Out, Bits<32>>,
    pub src_drop: Signal<Out, Bits<32>>,
}

/// The switch. See the module documentation; the parameters are the blocks'.
#[derive(LogicBlock)]
pub struct SharedSwitch<
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
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub rx: [SwitchSink; N],
    pub tx: [SwitchSource; N],
    pub route: [RouteCfg; N],
    pub band: [Sw2BandCfg; BANDS],
    pub cfg: Sw2Cfg,
    pub stat: [Sw2Stats; N],
    pub occ_pkts: [Signal<Out, Bits<16>>; NB],
    pub occ_bytes: [Signal<Out, Bits<32>>; NB],
    pub port_pkts: [Signal<Out, Bits<16>>; N],
    pub port_bytes: [Signal<Out, Bits<32>>; N],
    /// The admission's decisions (before any frame proved its length): admitted whole,
    /// refused, trimmed (returned ones included) and returned.
    pub admitted: Signal<Out, Bits<32>>,
    pub refused: Signal<Out, Bits<32>>,
    pub trimmed: Signal<Out, Bits<32>>,
    pub returned: Signal<Out, Bits<32>>,
    pub lost: Signal<Out, Bits<32>>,
    /// Tofino-style trimming (the admission's policy and the queues' recirculation path);
    /// `lim_dod` is held to the recirculation FIFOs' `RECIRC_DEPTH - 5K + 1`.
    pub tof: TofinoCfg,
    /// Per output, its Tofino mode (0 optimistic, 1 half-pessimistic, 2 pessimistic).
    pub mode: [Signal<Out, Bits<2>>; N],
    /// Per pipe, its deflected headers not yet back from recirculation.
    pub dod: [Signal<Out, Bits<16>>; MAX_PIPES],
    /// Frames trimmed at a red meter, deflected on drop, and deflected headers back from
    /// recirculation.
    pub metered: Signal<Out, Bits<32>>,
    pub deflected: Signal<Out, Bits<32>>,
    pub recirculated: Signal<Out, Bits<32>>,
    /// Bolt's switch logic (the admission's policy block [`crate::sbolt`]).
    pub bolt: BoltCfg,
    /// Bolt: per output, its PRU tokens and supply token (bytes, two's complement); SRCs
    /// decided.
    pub pru: [Signal<Out, Bits<8>>; N],
    pub sm: [Signal<Out, Bits<32>>; N],
    pub srcs: Signal<Out, Bits<32>>,

    ing: SwitchIngress<N, N8, NN>,
    adm: Admission<N, K, M, NB, KNB, CC>,
    sb: SharedBuffer<N, CA, CC, N2, R, NR, NRW, NN>,
    que: SwitchQueues<N, K, M, CA, CC, RP, NB, KNB, KRP, NRP, NK, N4K, KP>,
    pv: [PackVerdict; N],
    c_full: [DFF<Bits<32>>; N],
    k1_32: Constant<Bits<32>>,
    k0_32: Constant<Bits<32>>,
    lim_dod: DFF<Bits<16>>,
    k_dodcap: Constant<Bits<16>>,
}

/// 4 ports: 2048 cells of 4 words (64 KiB), one lane, one replica.
pub type SharedSwitch4 =
    SharedSwitch<4, 32, 16, 1, 4, 16, 16, 11, 12, 8, 4, 16, 64, 1, 1, 4, 4, 16, 4>;
/// 16 ports: 512 cells of 16 words (64 KiB), two lanes, two replicas.
pub type SharedSwitch16 =
    SharedSwitch<16, 128, 256, 2, 8, 64, 128, 9, 10, 32, 4, 64, 1024, 2, 4, 32, 32, 128, 8>;

impl<
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
    > SharedSwitch<N, N8, NN, K, M, NB, KNB, CA, CC, N2, R, NR, NRW, RP, KRP, NRP, NK, N4K, KP>
{
    /// Builds the switch. Panics where a block's parameters are inconsistent.
    pub fn new() -> Self {
        assert!(
            5 * K <= RECIRC_DEPTH,
            "a pipe may be 5K - 1 headers over lim_dod: K={K} lanes need RECIRC_DEPTH >= 5K"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx: std::array::from_fn(|_| Default::default()),
            tx: std::array::from_fn(|_| Default::default()),
            route: std::array::from_fn(|_| Default::default()),
            band: std::array::from_fn(|_| Default::default()),
            cfg: Default::default(),
            stat: std::array::from_fn(|_| Default::default()),
            occ_pkts: std::array::from_fn(|_| Default::default()),
            occ_bytes: std::array::from_fn(|_| Default::default()),
            port_pkts: std::array::from_fn(|_| Default::default()),
            port_bytes: std::array::from_fn(|_| Default::default()),
            admitted: Default::default(),
            refused: Default::default(),
            trimmed: Default::default(),
            returned: Default::default(),
            lost: Default::default(),
            tof: Default::default(),
            mode: std::array::from_fn(|_| Default::default()),
            dod: std::array::from_fn(|_| Default::default()),
            metered: Default::default(),
            deflected: Default::default(),
            recirculated: Default::default(),
            bolt: Default::default(),
            pru: std::array::from_fn(|_| Default::default()),
            sm: std::array::from_fn(|_| Default::default()),
            srcs: Default::default(),
            ing: SwitchIngress::new(),
            adm: Admission::new(),
            sb: SharedBuffer::new(),
            que: SwitchQueues::new(),
            pv: std::array::from_fn(|_| Default::default()),
            c_full: std::array::from_fn(|_| Default::default()),
            k1_32: Constant::new(1.into()),
            k0_32: Constant::new(0.into()),
            lim_dod: Default::default(),
            k_dodcap: Constant::new((recirc_dod_cap(K) as u64).into()),
        }
    }
}

impl<
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
    > Default
    for SharedSwitch<N, N8, NN, K, M, NB, KNB, CA, CC, N2, R, NR, NRW, RP, KRP, NRP, NK, N4K, KP>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<
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
    > Logic
    for SharedSwitch<N, N8, NN, K, M, NB, KNB, CA, CC, N2, R, NR, NRW, RP, KRP, NRP, NK, N4K, KP>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.ing.clock.next = self.clock.val();
        self.ing.reset.next = self.reset.val();
        self.adm.clock.next = self.clock.val();
        self.adm.reset.next = self.reset.val();
        self.sb.clock.next = self.clock.val();
        self.sb.reset.next = self.reset.val();
        self.que.clock.next = self.clock.val();
        self.que.reset.next = self.reset.val();
        self.ing.band_by_flags.next = self.cfg.band_by_flags.val();
        self.que.wrr.next = self.cfg.wrr.val();
        self.adm.dt_on.next = self.cfg.dt_on.val();
        self.adm.trim_on.next = self.cfg.trim.val();
        self.adm.ret_on.next = self.cfg.ret.val();
        self.adm.headroom.next = self.cfg.headroom.val();
        self.adm.lim_port_pkts.next = self.cfg.port_pkts.val();
        self.adm.lim_port_bytes.next = self.cfg.port_bytes.val();
        self.adm.lim_hdr_pkts.next = self.cfg.hdr_pkts.val();
        self.adm.lim_hdr_bytes.next = self.cfg.hdr_bytes.val();
        // Tofino-style trimming: the deflection limit held to what a recirculation FIFO
        // takes (registered)
        self.adm.bolt.on.next = self.bolt.on.val();
        self.adm.bolt.cc_thresh.next = self.bolt.cc_thresh.val();
        self.adm.bolt.mtu.next = self.bolt.mtu.val();
        self.adm.bolt.pru_cap.next = self.bolt.pru_cap.val();
        self.adm.bolt.sm_off.next = self.bolt.sm_off.val();
        self.adm.tof.on.next = self.tof.on.val();
        self.adm.tof.pipes.next = self.tof.pipes.val();
        self.adm.tof.burst.next = self.tof.burst.val();
        self.adm.tof.t0.next = self.tof.t0.val();
        self.adm.tof.t1.next = self.tof.t1.val();
        self.lim_dod.clock.next = self.clock.val();
        self.lim_dod.d.next = self.tof.lim_dod.val();
        if self.tof.lim_dod.val() > self.k_dodcap.val() {
            self.lim_dod.d.next = self.k_dodcap.val();
        }
        self.adm.tof.lim_dod.next = self.lim_dod.q.val();
        for p in 0..MAX_PIPES {
            self.adm.rel[p].next = self.que.rel[p].val();
            self.dod[p].next = self.adm.dod[p].val();
        }
        self.adm.free_rows.next = self.sb.free_rows.val();
        self.sb.link_rate.next = self.cfg.link_rate.val();
        for b in 0..BANDS {
            self.adm.band[b].lim_pkts.next = self.band[b].lim_pkts.val();
            self.adm.band[b].lim_bytes.next = self.band[b].lim_bytes.val();
            self.adm.band[b].dt_a.next = self.band[b].dt_a.val();
            self.que.weight[b].next = self.band[b].weight.val();
        }
        for k in 0..N {
            self.ing.route[k].valid.next = self.route[k].valid.val();
            self.ing.route[k].ip.next = self.route[k].ip.val();
            self.ing.route[k].port.next = self.route[k].port.val();
        }
        for i in 0..N {
            // MAC -> ingress
            self.ing.rx[i].valid.next = self.rx[i].valid.val();
            self.ing.rx[i].data.next = self.rx[i].data.val();
            self.ing.rx[i].last.next = self.rx[i].last.val();
            self.ing.rx[i].empty.next = self.rx[i].empty.val();
            self.rx[i].ready.next = self.ing.rx[i].ready.val();
            // ingress -> buffer, admission
            self.sb.inp[i].valid.next = self.ing.o[i].valid.val();
            self.sb.inp[i].data.next = self.ing.o[i].data.val();
            self.sb.inp[i].last.next = self.ing.o[i].last.val();
            self.sb.inp[i].empty.next = self.ing.o[i].empty.val();
            self.adm.inp[i].req_valid.next = self.ing.o[i].req_valid.val();
            self.adm.cong[i].next = self.que.cong[i].val();
            self.que.pipe_of[i].next = self.adm.pipe_of[i].val();
            self.adm.inp[i].req_out.next = self.ing.o[i].req_out.val();
            self.adm.inp[i].req_band.next = self.ing.o[i].req_band.val();
            self.adm.inp[i].req_bytes.next = self.ing.o[i].req_bytes.val();
            self.adm.inp[i].req_words.next = self.ing.o[i].req_words.val();
            self.adm.inp[i].req_empty.next = self.ing.o[i].req_empty.val();
            self.adm.inp[i].req_ok.next = self.ing.o[i].req_ok.val();
            self.adm.inp[i].req_trim.next = self.ing.o[i].req_trim.val();
            self.adm.inp[i].req_csum.next = self.ing.o[i].req_csum.val();
            self.adm.inp[i].req_rb.next = self.ing.o[i].req_rb.val();
            self.adm.inp[i].req_bf.next = self.ing.o[i].req_bf.val();
            // admission -> buffer, queues
            self.pv[i].admit.next = self.adm.inp[i].vd_admit.val();
            self.pv[i].words.next = self.adm.inp[i].vd_words.val();
            self.pv[i].empty.next = self.adm.inp[i].vd_empty.val();
            self.pv[i].trim.next = self.adm.inp[i].vd_trim.val();
            self.pv[i].csum.next = self.adm.inp[i].vd_csum.val();
            self.pv[i].ret.next = self.adm.inp[i].vd_ret.val();
            self.pv[i].dod.next = self.adm.inp[i].vd_dod.val();
            self.pv[i].rb.next = self.adm.inp[i].vd_rb.val();
            self.pv[i].bm.next = self.adm.inp[i].vd_bm.val();
            self.pv[i].bf.next = self.adm.inp[i].vd_bf.val();
            self.pv[i].src.next = self.adm.inp[i].vd_src.val();
            self.pv[i].q.next = self.adm.inp[i].vd_q.val();
            self.sb.inp[i].vd_valid.next = self.adm.inp[i].vd_valid.val();
            self.sb.inp[i].vd.next = self.pv[i].y.val();
            self.que.inp[i].vd_valid.next = self.adm.inp[i].vd_valid.val();
            self.que.inp[i].vd_admit.next = self.adm.inp[i].vd_admit.val();
            self.que.inp[i].vd_out.next = self.adm.inp[i].vd_out.val();
            self.que.inp[i].vd_band.next = self.adm.inp[i].vd_band.val();
            self.que.inp[i].vd_bytes.next = self.adm.inp[i].vd_bytes.val();
            self.que.inp[i].vd_dod.next = self.adm.inp[i].vd_dod.val();
            self.que.inp[i].vd_words.next = self.adm.inp[i].vd_words.val();
            // buffer completions <-> queues
            self.que.inp[i].cp_valid.next = self.sb.inp[i].cp_valid.val();
            self.que.inp[i].cp_cell.next = self.sb.inp[i].cp_cell.val();
            self.que.inp[i].cp_meta.next = self.sb.inp[i].cp_meta.val();
            self.sb.inp[i].cp_pop.next = self.que.inp[i].cp_pop.val();
            // refusals
            self.c_full[i].clock.next = self.clock.val();
            self.c_full[i].d.next = self.c_full[i].q.val();
            if self.adm.inp[i].vd_valid.val() & !self.adm.inp[i].vd_admit.val() {
                self.c_full[i].d.next = self.c_full[i].q.val() + self.k1_32.val();
            }
            if self.reset.val() {
                self.c_full[i].d.next = self.k0_32.val();
            }
        }
        for o in 0..N {
            // queues <-> buffer outputs, departures to the admission
            self.sb.out[o].dq_push.next = self.que.out[o].dq_push.val();
            self.sb.out[o].dq_cell.next = self.que.out[o].dq_cell.val();
            self.sb.out[o].dq_meta.next = self.que.out[o].dq_meta.val();
            self.que.out[o].dq_count.next = self.sb.out[o].dq_count.val();
            self.que.out[o].dep.next = self.sb.out[o].dep.val();
            self.adm.dep[o].valid.next = self.que.out[o].adm_dep_valid.val();
            self.adm.dep[o].band.next = self.que.out[o].adm_dep_band.val();
            self.adm.dep[o].bytes.next = self.que.out[o].adm_dep_bytes.val();
            // buffer -> MAC
            self.tx[o].valid.next = self.sb.out[o].valid.val();
            self.tx[o].data.next = self.sb.out[o].data.val();
            self.tx[o].last.next = self.sb.out[o].last.val();
            self.tx[o].empty.next = self.sb.out[o].empty.val();
            self.sb.out[o].ready.next = self.tx[o].ready.val();
        }
        for p in 0..N {
            self.stat[p].rx_frames.next = self.ing.stat[p].rx_frames.val();
            self.stat[p].drop_malformed.next = self.ing.stat[p].drop_malformed.val();
            self.stat[p].drop_no_route.next = self.ing.stat[p].drop_no_route.val();
            self.stat[p].fwd.next = self.ing.stat[p].fwd.val();
            self.stat[p].drop_full.next = self.c_full[p].q.val();
            self.stat[p].ovr.next = self.sb.inp[p].ovr.val();
            self.stat[p].bad.next = self.sb.inp[p].bad.val();
            self.stat[p].tx_frames.next = self.sb.out[p].tx_frames.val();
            self.stat[p].trimmed.next = self.sb.inp[p].trimmed.val();
            self.stat[p].returned.next = self.sb.inp[p].returned.val();
            self.stat[p].deflected.next = self.sb.inp[p].deflected.val();
            self.stat[p].src_sent.next = self.sb.inp[p].src_sent.val();
            self.stat[p].src_drop.next = self.sb.inp[p].src_drop.val();
        }
        for x in 0..NB {
            self.occ_pkts[x].next = self.adm.occ_pkts[x].val();
            self.occ_bytes[x].next = self.adm.occ_bytes[x].val();
        }
        for o in 0..N {
            self.mode[o].next = self.adm.mode[o].val();
            self.port_pkts[o].next = self.adm.port_pkts[o].val();
            self.port_bytes[o].next = self.adm.port_bytes[o].val();
            self.pru[o].next = self.adm.pru[o].val();
            self.sm[o].next = self.adm.sm[o].val();
        }
        self.srcs.next = self.adm.srcs.val();
        self.admitted.next = self.adm.admitted.val();
        self.refused.next = self.adm.refused.val();
        self.trimmed.next = self.adm.trimmed.val();
        self.returned.next = self.adm.returned.val();
        self.metered.next = self.adm.metered.val();
        self.deflected.next = self.adm.deflected.val();
        self.recirculated.next = self.que.recirculated.val();
        self.lost.next = self.adm.lost.val() + self.que.lost.val();
    }
}
