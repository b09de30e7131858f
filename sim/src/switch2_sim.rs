//! The switch ([`nt_hdl::switch2`]: drop-tail, ideal or Tofino-style trimming, Bolt, on
//! the shared buffer) as a network device: a [`SwitchEngine`] on the native kernel or, as
//! [`VSwitch2`], on its emitted Verilog (Verilator or the compiled engine), which
//! [`crate::switch_sim::SwitchDriver`] runs (frames in per port, frames out stamped with
//! their first word's cycle, paced links). `ntsim run` takes its size from a switch's
//! `shared_kib`.
use crate::adm_workload::LimCfg;
use crate::kernel::Kernel;
use crate::swframe::Route;
use crate::switch2_workload::{Band2, Drive as Drive2};
use crate::switch_sim::{port_stats, SwitchEngine, VLink, STAT_PORTS};
use crate::switch_workload::{PortIn, PortOut, PortStats, SwitchSetup};
use crate::swmodel::switch2_model::Switch2Model;
use crate::vmodel::{Backend, PortRef, VLib, VModel};
use crate::wire::Word;
use nt_hdl::sadm::BANDS;
use nt_hdl::switch2::SharedSwitch;

/// Shared-buffer sizes a simulated switch offers, in KiB, with their cells: the emitted
/// Verilog's 64 KiB, and 1 MiB and 16 MiB for the papers' large buffers.
pub const SHARED_KIB: [u64; 3] = [64, 1024, 16384];

/// The shared switch at 4 ports stores and forwards: on an idle switch a `W`-word frame
/// leaves `W + SHARED_P4_EXTRA.0` to `W + SHARED_P4_EXTRA.1` cycles after its first word
/// came in, by the phases of its input's writes and its output's reads and the state the
/// frames before left (measured and tested:
/// `switch_scenarios::the_shared_switch_stores_and_forwards_in_a_frames_words_plus_a_fixed_latency`;
/// the ideal's is [`crate::net::IDEAL_SWITCH_EXTRA`], 6).
pub const SHARED_P4_EXTRA: (u64, u64) = (31, 37);

/// Cycles in which the shared switch may hold a frame its outputs do not show: after a
/// frame's last word entered, its words pass the input ring, the write arbiter and the
/// admission's pipeline, whose counters run a few cycles stale, before its occupancy
/// shows (7 on an idle 4-port switch, measured with `ntsim switch --quiet-cycles`); a
/// frame taken from its queue leaves the occupancy a few cycles before its first word is
/// read out. 64 leaves room for the rings' waits under load. A driver is idle only after
/// that many cycles with no word in or out
/// ([`crate::switch_sim::SwitchEngine::settle_cycles`]).
pub const SHARED_SETTLE: u64 = 64;

/// 4 ports, 1 MiB: 32,768 cells of 4 words.
pub type SharedSwitch4M1 =
    SharedSwitch<4, 32, 16, 1, 4, 16, 16, 15, 16, 8, 4, 16, 64, 1, 1, 4, 4, 16, 4>;
/// 4 ports, 16 MiB: 524,288 cells of 4 words.
pub type SharedSwitch4M16 =
    SharedSwitch<4, 32, 16, 1, 4, 16, 16, 19, 20, 8, 4, 16, 64, 1, 1, 4, 4, 16, 4>;
/// 16 ports, 1 MiB: 8,192 cells of 16 words.
pub type SharedSwitch16M1 =
    SharedSwitch<16, 128, 256, 2, 8, 64, 128, 13, 14, 32, 4, 64, 1024, 2, 4, 32, 32, 128, 8>;
/// 16 ports, 16 MiB: 131,072 cells of 16 words.
pub type SharedSwitch16M16 =
    SharedSwitch<16, 128, 256, 2, 8, 64, 128, 17, 18, 32, 4, 64, 1024, 2, 4, 32, 32, 128, 8>;

/// The shared switch's port and header limits from a setup, as the admission takes them:
/// `(port_pkts, port_bytes, hdr_pkts, hdr_bytes)`; no port limit is all ones, the header
/// limits default to band 0's.
pub fn port_hdr_limits(s: &SwitchSetup) -> [u64; 4] {
    [
        s.port_pkts.unwrap_or(0xffff).min(0xffff),
        s.port_bytes.unwrap_or(0xffff_ffff).min(0xffff_ffff),
        s.hdr_pkts.unwrap_or(s.limit_pkts[0]).min(0xffff),
        s.hdr_bytes.unwrap_or(s.limit_bytes[0]).min(0xffff_ffff),
    ]
}

/// Tofino-style trimming's inputs (`tof$<name>`) from a setup: on in mode `tofino-trim`;
/// `lim_dod` all ones, which the switch holds to what its recirculation FIFOs take.
pub fn tofino_cfg(s: &SwitchSetup) -> [(&'static str, u64); 6] {
    [
        (
            "on",
            (s.mode == nt_hdl::mode::SwitchMode::TofinoTrim) as u64,
        ),
        ("pipes", s.pipes.clamp(1, 4)),
        ("burst", s.meter_burst.min(0xf_ffff)),
        ("t0", s.t0.min(0xff_ffff)),
        ("t1", s.t1.min(0xff_ffff)),
        ("lim_dod", 0xffff),
    ]
}

/// Bolt's inputs (`bolt$<name>`) from a setup: on in mode `bolt`, the thresholds held
/// to their widths (a queue report of 24 bits, an MTU of 16, a PRU cap of 8).
pub fn bolt_cfg(s: &SwitchSetup) -> [(&'static str, u64); 5] {
    [
        ("on", (s.mode == nt_hdl::mode::SwitchMode::Bolt) as u64),
        ("cc_thresh", s.cc_thresh.min(0xff_ffff)),
        ("mtu", s.mtu.min(0xffff)),
        ("pru_cap", s.pru_cap.min(0xff)),
        ("sm_off", (!s.sm) as u64),
    ]
}

/// The admission's headroom for a buffer of `n` ports: the cells the inputs' rings and data
/// FIFOs may hold before admission counts them (4 + 64 / N per input, rounded up), plus
/// `5K - 1` frames of the largest size for `K` lanes: the decisions a decision's free count
/// may not show yet (the admission's bound, docs/switch-design.md).
pub fn headroom(n: usize) -> u64 {
    let lanes = n.div_ceil(8) as u64;
    let per_input = 4 + (64u64).div_ceil(n as u64);
    let largest = (136u64).div_ceil(n as u64);
    n as u64 * per_input + (5 * lanes - 1) * largest
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
    > SwitchEngine
    for Kernel<
        SharedSwitch<N, N8, NN, K, M, NB, KNB, CA, CC, N2, R, NR, NRW, RP, KRP, NRP, NK, N4K, KP>,
    >
{
    fn ports(&self) -> usize {
        N
    }
    fn setup(&mut self, s: &SwitchSetup) {
        let u = self.uut_mut();
        u.cfg.band_by_flags.next = s.band_by_flags;
        u.cfg.wrr.next = s.wrr;
        u.cfg.dt_on.next = s.dt_a.is_some();
        u.cfg.trim.next = s.mode == nt_hdl::mode::SwitchMode::Trim;
        u.cfg.ret.next = s.ret;
        u.cfg.headroom.next = headroom(N).into();
        let [pp, pb, hp, hb] = port_hdr_limits(s);
        u.cfg.port_pkts.next = pp.into();
        u.cfg.port_bytes.next = pb.into();
        u.cfg.hdr_pkts.next = hp.into();
        u.cfg.hdr_bytes.next = hb.into();
        for (f, v) in tofino_cfg(s) {
            let t = &mut u.tof;
            match f {
                "on" => t.on.next = v != 0,
                "pipes" => t.pipes.next = v.into(),
                "burst" => t.burst.next = v.into(),
                "t0" => t.t0.next = v.into(),
                "t1" => t.t1.next = v.into(),
                _ => t.lim_dod.next = v.into(),
            }
        }
        for (f, v) in bolt_cfg(s) {
            let b = &mut u.bolt;
            match f {
                "on" => b.on.next = v != 0,
                "cc_thresh" => b.cc_thresh.next = v.into(),
                "mtu" => b.mtu.next = v.into(),
                "pru_cap" => b.pru_cap.next = v.into(),
                _ => b.sm_off.next = v != 0,
            }
        }
        u.cfg.link_rate.next = s.link_rate.min(0xff).into();
        for b in 0..BANDS {
            u.band[b].lim_pkts.next = s.limit_pkts[b].min(0xffff).into();
            u.band[b].lim_bytes.next = s.limit_bytes[b].min(0xffff_ffff).into();
            u.band[b].dt_a.next = (s.dt_a.unwrap_or(4) as u64).into();
            u.band[b].weight.next = s.weight[b].min(255).into();
        }
        for k in 0..N {
            let (v, ip, port) = s.routes.get(k).copied().unwrap_or((false, 0, 0));
            u.route[k].valid.next = v;
            u.route[k].ip.next = (ip as u64).into();
            u.route[k].port.next = port.min(255).into();
        }
        u.reset.next = false;
    }
    fn set_route(&mut self, k: usize, valid: bool, ip: u32, port: u64) {
        let r = &mut self.uut_mut().route[k];
        r.valid.next = valid;
        r.ip.next = (ip as u64).into();
        r.port.next = port.min(255).into();
    }
    fn eval(&mut self, inp: &[PortIn], out: &mut [PortOut]) -> Result<(), String> {
        {
            let u = self.uut_mut();
            for (p, x) in inp.iter().enumerate().take(N) {
                let w = x.rx.unwrap_or_default();
                u.rx[p].valid.next = x.rx.is_some();
                u.rx[p].data.next = w.data.into();
                u.rx[p].last.next = w.last;
                u.rx[p].empty.next = (w.empty as u64).into();
                u.tx[p].ready.next = x.tx_ready;
            }
        }
        self.settle().map_err(|e| e.to_string())?;
        let u = self.uut();
        for (p, o) in out.iter_mut().enumerate().take(N) {
            let s = &u.stat[p];
            let t = &u.tx[p];
            *o = PortOut {
                rx_ready: u.rx[p].ready.val(),
                tx: t.valid.val().then(|| Word {
                    data: t.data.val().to_u64(),
                    last: t.last.val(),
                    empty: t.empty.val().to_u64() as u8,
                }),
                stat: PortStats {
                    rx_frames: s.rx_frames.val().to_u64(),
                    tx_frames: s.tx_frames.val().to_u64(),
                    // the ingress's (bad headers) and the buffer's (bad lengths)
                    drop_malformed: s.drop_malformed.val().to_u64() + s.bad.val().to_u64(),
                    drop_no_route: s.drop_no_route.val().to_u64(),
                    drop_full: s.drop_full.val().to_u64(),
                    // deflected headers count in the switch's `trimmed`; PortStats
                    // has them apart, in `dod_trims`
                    trimmed: s
                        .trimmed
                        .val()
                        .to_u64()
                        .wrapping_sub(s.deflected.val().to_u64())
                        & 0xffff_ffff,
                    returned: s.returned.val().to_u64(),
                    dod_trims: s.deflected.val().to_u64(),
                    tmode: u.mode[p].val().to_u64(),
                    src_sent: s.src_sent.val().to_u64(),
                    src_drop: s.src_drop.val().to_u64(),
                    pru: u.pru[p].val().to_u64(),
                    sm: u.sm[p].val().to_u64() as u32 as i32 as i64,
                    occ_bytes: std::array::from_fn(|b| u.occ_bytes[p * BANDS + b].val().to_u64()),
                    ..PortStats::default()
                },
            };
        }
        Ok(())
    }
    fn tick(&mut self) -> Result<(), String> {
        Kernel::tick(self).map_err(|e| e.to_string())
    }
    fn cycle(&self) -> u64 {
        Kernel::cycle(self)
    }
    fn record_vcd(
        &mut self,
        w: crate::vcd::WaveFile,
        opts: &crate::vcd::WaveOpts,
    ) -> Result<(), String> {
        Kernel::record_wave(self, w, opts).map_err(|e| e.to_string())
    }
    fn name(&self) -> &'static str {
        "native"
    }
    fn settle_cycles(&self) -> u64 {
        SHARED_SETTLE
    }
}

/// Per port, the `stat` outputs [`VSwitch2`] reads: the first seven of [`STAT_PORTS`]
/// (the others are read from the switch's own outputs, or it has none).
const STAT2: usize = 7;

/// The new switch's emitted Verilog on a library engine ([`crate::vmodel`]): Verilator, or
/// our compiler's Rust. Any size: the Verilog is emitted from the block asked for (the
/// 1 MiB and 16 MiB buffers too) and cached like every other model.
pub struct VSwitch2 {
    m: VModel,
    links: Vec<VLink>,
    stat: Vec<[PortRef; STAT2]>,
    occ: Vec<PortRef>,
    /// Per port: `stat$p$deflected`, `mode$p`, `stat$p$src_sent`, `stat$p$src_drop`,
    /// `pru$p`, `sm$p`, `stat$p$bad`.
    more: Vec<[PortRef; 7]>,
    cycle: u64,
}

impl VSwitch2 {
    /// Switch block `make` emitted as module `module`, built by `backend`.
    pub fn of_with<B: rust_hdl::core::prelude::Block>(
        backend: Backend,
        module: &str,
        make: impl Fn() -> B,
    ) -> Result<Self, String> {
        let lib = VLib::of_block_with(backend, module, make)?;
        let n = VLink::count(&lib)?;
        let links = (0..n)
            .map(|p| VLink::new(&lib, p))
            .collect::<Result<Vec<_>, _>>()?;
        let stat = (0..n)
            .map(|p| {
                STAT_PORTS[..STAT2]
                    .iter()
                    .map(|f| lib.port(&format!("stat${p}${f}")))
                    .collect::<Result<Vec<_>, String>>()?
                    .try_into()
                    .map_err(|_| "stat ports".to_string())
            })
            .collect::<Result<Vec<_>, String>>()?;
        let occ = (0..n * BANDS)
            .map(|x| lib.port(&format!("occ_bytes${x}")))
            .collect::<Result<Vec<_>, _>>()?;
        let more = (0..n)
            .map(|p| {
                Ok([
                    lib.port(&format!("stat${p}$deflected"))?,
                    lib.port(&format!("mode${p}"))?,
                    lib.port(&format!("stat${p}$src_sent"))?,
                    lib.port(&format!("stat${p}$src_drop"))?,
                    lib.port(&format!("pru${p}"))?,
                    lib.port(&format!("sm${p}"))?,
                    lib.port(&format!("stat${p}$bad"))?,
                ])
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(VSwitch2 {
            m: VModel::new(lib),
            links,
            stat,
            occ,
            more,
            cycle: 0,
        })
    }

    /// Sets input `name`; an input the Verilog lacks is an error of the model, named.
    fn set(&mut self, name: &str, v: u64) -> Result<(), String> {
        let r = self.m.lib().port(name)?;
        self.m.set(r, v);
        Ok(())
    }

    fn try_setup(&mut self, s: &SwitchSetup) -> Result<(), String> {
        let n = self.links.len();
        self.set("cfg$band_by_flags", s.band_by_flags as u64)?;
        self.set("cfg$wrr", s.wrr as u64)?;
        self.set("cfg$dt_on", s.dt_a.is_some() as u64)?;
        self.set(
            "cfg$trim",
            (s.mode == nt_hdl::mode::SwitchMode::Trim) as u64,
        )?;
        self.set("cfg$ret", s.ret as u64)?;
        self.set("cfg$headroom", headroom(n))?;
        let lim = port_hdr_limits(s);
        for (f, v) in ["port_pkts", "port_bytes", "hdr_pkts", "hdr_bytes"]
            .iter()
            .zip(lim)
        {
            self.set(&format!("cfg${f}"), v)?;
        }
        for (f, v) in tofino_cfg(s) {
            self.set(&format!("tof${f}"), v)?;
        }
        for (f, v) in bolt_cfg(s) {
            self.set(&format!("bolt${f}"), v)?;
        }
        self.set("cfg$link_rate", s.link_rate.min(0xff))?;
        for b in 0..BANDS {
            self.set(&format!("band${b}$lim_pkts"), s.limit_pkts[b].min(0xffff))?;
            self.set(
                &format!("band${b}$lim_bytes"),
                s.limit_bytes[b].min(0xffff_ffff),
            )?;
            self.set(&format!("band${b}$dt_a"), s.dt_a.unwrap_or(4) as u64)?;
            self.set(&format!("band${b}$weight"), s.weight[b].min(255))?;
        }
        for k in 0..n {
            let (v, ip, port) = s.routes.get(k).copied().unwrap_or((false, 0, 0));
            self.set_route(k, v, ip, port);
        }
        self.set("reset", 0)
    }
}

impl SwitchEngine for VSwitch2 {
    fn ports(&self) -> usize {
        self.links.len()
    }
    fn setup(&mut self, s: &SwitchSetup) {
        // every input was found when the model was built from this block's Verilog
        self.try_setup(s)
            .expect("the shared switch's Verilog has its configuration inputs");
    }
    fn set_route(&mut self, k: usize, valid: bool, ip: u32, port: u64) {
        for (f, v) in [
            ("valid", valid as u64),
            ("ip", ip as u64),
            ("port", port.min(255)),
        ] {
            // a route the Verilog lacks (k >= N) is not set: the switch has no such entry
            let _ = self.set(&format!("route${k}${f}"), v);
        }
    }
    fn eval(&mut self, inp: &[PortIn], out: &mut [PortOut]) -> Result<(), String> {
        for (l, x) in self.links.iter().zip(inp) {
            l.drive(&mut self.m, x);
        }
        self.m.cycle();
        let m = &self.m;
        for (p, o) in out.iter_mut().enumerate().take(self.links.len()) {
            let (rx_ready, tx) = self.links[p].read(m);
            let s: [u64; STAT2] = std::array::from_fn(|k| m.get(self.stat[p][k]));
            let [dod, mode, src_sent, src_drop, pru, sm, bad] = self.more[p].map(|r| m.get(r));
            let st = port_stats(&s);
            *o = PortOut {
                rx_ready,
                tx,
                stat: PortStats {
                    occ_bytes: std::array::from_fn(|b| m.get(self.occ[p * BANDS + b])),
                    drop_malformed: st.drop_malformed + bad,
                    trimmed: st.trimmed.wrapping_sub(dod) & 0xffff_ffff,
                    dod_trims: dod,
                    tmode: mode,
                    src_sent,
                    src_drop,
                    pru,
                    sm: sm as u32 as i32 as i64,
                    ..st
                },
            };
        }
        Ok(())
    }
    fn settle_cycles(&self) -> u64 {
        SHARED_SETTLE
    }
    crate::library_engine_steps!();
}

/// The most ports a simulated switch takes (paper 002 §6.2 runs up to 64 senders).
pub const MAX_PORTS: usize = 64;

/// The size of the switch a [`ModelSwitch`] of `ports` ports builds: the smallest of 4, 8,
/// 16, 32 and 64 ports that holds them, `K = N/8` lanes (one up to 8 ports), as many
/// replicas (each output reads its queue every `N/RP` cycles: 4 up to 4 ports, else 8, as
/// the 16-port RTL), 4 row registers, and `kib` KiB in cells of `N` words (`2^CA` cells).
/// `(N, K, CA, R, RP)`; an error for a size the switch does not come in.
pub fn model_size(ports: usize, kib: u64) -> Result<(usize, usize, usize, usize, usize), String> {
    if !(2..=MAX_PORTS).contains(&ports) {
        return Err(format!(
            "ports = {ports}: a switch has 2 to {MAX_PORTS} ports"
        ));
    }
    if !SHARED_KIB.contains(&kib) {
        return Err(format!(
            "shared_kib = {kib}: the shared buffer comes in {SHARED_KIB:?} KiB"
        ));
    }
    let n = ports.max(4).next_power_of_two();
    let k = n.div_ceil(8);
    let cells = kib * 1024 / (8 * n as u64);
    Ok((n, k, cells.trailing_zeros() as usize, 4, k))
}

/// The switch's golden model ([`Switch2Model`], cycle-exact to the RTL at 4 and 16 ports,
/// where the tests hold it to it) as a network device, for the sizes the RTL is not built
/// in: `ports` of the ports of a switch of [`model_size`] (the others idle). Its engine is
/// `model`; it records no waveform.
pub struct ModelSwitch {
    m: Switch2Model,
    ports: usize,
    d: Drive2,
    cycle: u64,
}

impl ModelSwitch {
    /// A switch of `ports` ports and `kib` KiB of shared buffer.
    pub fn new(ports: usize, kib: u64) -> Result<Self, String> {
        let (n, k, ca, r, rp) = model_size(ports, kib)?;
        Ok(Self {
            m: Switch2Model::new(n, k, ca, r, rp),
            ports,
            d: Drive2 {
                rx: vec![None; n],
                ready: vec![true; n],
                route: vec![Route::default(); n],
                ..Drive2::default()
            },
            cycle: 0,
        })
    }

    /// Ports of the switch the model is (at least [`SwitchEngine::ports`]).
    pub fn built_ports(&self) -> usize {
        self.d.rx.len()
    }
}

impl SwitchEngine for ModelSwitch {
    fn ports(&self) -> usize {
        self.ports
    }
    fn setup(&mut self, s: &SwitchSetup) {
        let n = self.built_ports();
        let d = &mut self.d;
        d.reset = false;
        d.band_by_flags = s.band_by_flags;
        d.wrr = s.wrr;
        d.dt_on = s.dt_a.is_some();
        d.trim = s.mode == nt_hdl::mode::SwitchMode::Trim;
        d.ret = s.ret;
        d.headroom = headroom(n).min(0xffff) as u16;
        let [pp, pb, hp, hb] = port_hdr_limits(s);
        d.port = LimCfg {
            pkts: pp as u16,
            bytes: pb as u32,
        };
        d.hdr = LimCfg {
            pkts: hp as u16,
            bytes: hb as u32,
        };
        for (f, v) in tofino_cfg(s) {
            let t = &mut d.tof;
            match f {
                "on" => t.on = v != 0,
                "pipes" => t.pipes = v as u8,
                "burst" => t.burst = v as u32,
                "t0" => t.t0 = v as u32,
                "t1" => t.t1 = v as u32,
                _ => t.lim_dod = v as u16,
            }
        }
        for (f, v) in bolt_cfg(s) {
            let b = &mut d.bolt;
            match f {
                "on" => b.on = v != 0,
                "cc_thresh" => b.cc_thresh = v as u32,
                "mtu" => b.mtu = v as u16,
                "pru_cap" => b.pru_cap = v as u8,
                _ => b.sm_off = v != 0,
            }
        }
        d.link_rate = s.link_rate.min(0xff) as u8;
        for b in 0..BANDS {
            d.band[b] = Band2 {
                lim_pkts: s.limit_pkts[b].min(0xffff) as u16,
                lim_bytes: s.limit_bytes[b].min(0xffff_ffff) as u32,
                dt_a: s.dt_a.unwrap_or(4),
                weight: s.weight[b].min(255) as u8,
            };
        }
        for k in 0..self.ports {
            let (v, ip, port) = s.routes.get(k).copied().unwrap_or((false, 0, 0));
            self.set_route(k, v, ip, port);
        }
    }
    fn set_route(&mut self, k: usize, valid: bool, ip: u32, port: u64) {
        // a route beyond the switch's ports is not set: the switch has no such entry
        if k < self.ports {
            self.d.route[k] = Route {
                valid,
                ip,
                port: port.min(255) as u8,
            };
        }
    }
    fn eval(&mut self, inp: &[PortIn], out: &mut [PortOut]) -> Result<(), String> {
        for (p, x) in inp.iter().enumerate().take(self.ports) {
            self.d.rx[p] = x.rx.map(|w| (w.data, w.last, w.empty));
            self.d.ready[p] = x.tx_ready;
        }
        let v = self.m.view();
        for (p, o) in out.iter_mut().enumerate().take(self.ports) {
            let s = &v.stat[p];
            *o = PortOut {
                rx_ready: true,
                tx: v.tx[p].map(|(data, last, empty)| Word { data, last, empty }),
                stat: PortStats {
                    rx_frames: s.rx_frames as u64,
                    tx_frames: s.tx_frames as u64,
                    drop_malformed: s.drop_malformed as u64 + s.bad as u64,
                    drop_no_route: s.drop_no_route as u64,
                    drop_full: s.drop_full as u64,
                    trimmed: s.trimmed.wrapping_sub(s.deflected) as u64,
                    returned: s.returned as u64,
                    dod_trims: s.deflected as u64,
                    tmode: v.mode[p] as u64,
                    src_sent: s.src_sent as u64,
                    src_drop: s.src_drop as u64,
                    pru: v.pru[p] as u64,
                    sm: v.sm[p] as i32 as i64,
                    occ_bytes: std::array::from_fn(|b| v.occ_bytes[p * BANDS + b] as u64),
                    ..PortStats::default()
                },
            };
        }
        Ok(())
    }
    fn tick(&mut self) -> Result<(), String> {
        self.m.clock(&self.d);
        self.cycle += 1;
        Ok(())
    }
    fn cycle(&self) -> u64 {
        self.cycle
    }
    fn record_vcd(
        &mut self,
        _w: crate::vcd::WaveFile,
        _o: &crate::vcd::WaveOpts,
    ) -> Result<(), String> {
        Err(format!(
            "a {}-port switch runs on its golden model, which records no waveform: waveforms come from the 4- and 16-port RTL",
            self.ports
        ))
    }
    fn name(&self) -> &'static str {
        "model"
    }
    fn settle_cycles(&self) -> u64 {
        SHARED_SETTLE
    }
}
