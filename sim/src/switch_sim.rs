//! Runs the switch block ([`nt_hdl::switch::Switch`]) cycle by cycle with whole frames at
//! its edges: frames queued per input port enter MAC RX back to back from their cycle on;
//! the words each output sends are gathered into frames stamped with their first word's
//! cycle. An output port can be paced below line rate (a slower link): its `tx.ready` is
//! high only while the port has earned a word. Used by `ntsim switch` and the network
//! ([`crate::net`]).
use crate::kernel::Kernel;
use crate::pcap::Packet;
use crate::switch_workload::PortStats;
use crate::switch_workload::{
    apply_setup, drive_switch, read_switch, PortIn, PortOut, SwitchSetup,
};
use crate::vmodel::{Backend, PortRef, VLib, VModel};
use crate::wire::{from_words, to_words, Word};
use nt_hdl::switch::{Switch, BANDS};
use std::collections::VecDeque;
use std::sync::Arc;

/// Paces a transmitter at `num/den` words per cycle (`num <= den`): a word may leave in a
/// cycle when the port has earned one; earnings stop at one word, so an idle port does not
/// save up a burst.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pacer {
    num: u64,
    den: u64,
    acc: u64,
}

impl Pacer {
    /// Line rate: a word every cycle.
    pub fn line() -> Self {
        Self {
            num: 1,
            den: 1,
            acc: 1,
        }
    }

    /// `num/den` words per cycle, `0 < num <= den`.
    pub fn new(num: u64, den: u64) -> Result<Self, String> {
        if num == 0 || den == 0 || num > den {
            return Err(format!(
                "a port's rate {num}/{den} of line rate must be above 0 and at most 1"
            ));
        }
        Ok(Self { num, den, acc: den })
    }

    /// Whether a word may leave this cycle.
    pub fn ready(&self) -> bool {
        self.acc >= self.den
    }

    /// Ends a cycle in which a word left (`sent`) or not.
    pub fn end_cycle(&mut self, sent: bool) {
        if sent {
            self.acc -= self.den;
        }
        self.acc = (self.acc + self.num).min(self.den);
    }
}

/// What steps a switch: the native kernel on the rust-hdl block ([`Kernel`]) or its emitted
/// Verilog under Verilator ([`VSwitch`]).
pub trait SwitchEngine: Send {
    /// Ports of the switch.
    fn ports(&self) -> usize;
    /// Sets the configuration inputs (held from then on).
    fn setup(&mut self, s: &SwitchSetup);
    /// Sets forwarding entry `k` (valid, IPv4 destination, output port).
    fn set_route(&mut self, k: usize, valid: bool, ip: u32, port: u64);
    /// Drives the port inputs, settles and writes this cycle's outputs to `out` (one per
    /// port); [`SwitchEngine::tick`] ends the cycle.
    fn eval(&mut self, inp: &[PortIn], out: &mut [PortOut]) -> Result<(), String>;
    /// The rising edge.
    fn tick(&mut self) -> Result<(), String>;
    fn cycle(&self) -> u64;
    fn record_vcd(&mut self, w: Box<dyn std::io::Write + Send>) -> Result<(), String>;
    /// `native`, `verilator` or `compiled`.
    fn name(&self) -> &'static str;
    /// Cycles after a frame's last word entered in which its place may not show yet in the
    /// port outputs (queue occupancy): [`SwitchDriver::idle`] waits them out. 0 for the
    /// crosspoint switch, which counts a frame as its words enter.
    fn settle_cycles(&self) -> u64 {
        0
    }
}

impl<
        const N: usize,
        const NN: usize,
        const NB: usize,
        const NNB: usize,
        const NR: usize,
        const NP: usize,
    > SwitchEngine for Kernel<Switch<N, NN, NB, NNB, NR, NP>>
{
    fn ports(&self) -> usize {
        N
    }
    fn setup(&mut self, s: &SwitchSetup) {
        apply_setup(self.uut_mut(), s);
    }
    fn set_route(&mut self, k: usize, valid: bool, ip: u32, port: u64) {
        let r = &mut self.uut_mut().route[k];
        r.valid.next = valid;
        r.ip.next = (ip as u64).into();
        r.port.next = port.into();
    }
    fn eval(&mut self, inp: &[PortIn], out: &mut [PortOut]) -> Result<(), String> {
        drive_switch(self.uut_mut(), inp);
        self.settle().map_err(|e| e.to_string())?;
        for (o, r) in out.iter_mut().zip(read_switch(self.uut())) {
            *o = r;
        }
        Ok(())
    }
    fn tick(&mut self) -> Result<(), String> {
        Kernel::tick(self).map_err(|e| e.to_string())
    }
    fn cycle(&self) -> u64 {
        Kernel::cycle(self)
    }
    fn record_vcd(&mut self, w: Box<dyn std::io::Write + Send>) -> Result<(), String> {
        Kernel::record_vcd(self, w).map_err(|e| e.to_string())
    }
    fn name(&self) -> &'static str {
        "native"
    }
}

/// One port's MAC streams in a verilated switch (`rx$p$...`, `tx$p$...`), the same in
/// both switches.
pub struct VLink {
    rx: [PortRef; 4],
    tx_ready: PortRef,
    rx_ready: PortRef,
    tx: [PortRef; 4],
}

impl VLink {
    /// Port `p`'s streams in `lib`.
    pub fn new(lib: &VLib, p: usize) -> Result<Self, String> {
        let q = |dir: &str, f: &str| lib.port(&format!("{dir}${p}${f}"));
        Ok(VLink {
            rx: [
                q("rx", "valid")?,
                q("rx", "data")?,
                q("rx", "last")?,
                q("rx", "empty")?,
            ],
            tx_ready: q("tx", "ready")?,
            rx_ready: q("rx", "ready")?,
            tx: [
                q("tx", "valid")?,
                q("tx", "data")?,
                q("tx", "last")?,
                q("tx", "empty")?,
            ],
        })
    }

    /// The ports of `lib`: `rx$p$valid` for `p = 0, 1, ...`; an error if there are none.
    pub fn count(lib: &VLib) -> Result<usize, String> {
        let n = (0..)
            .take_while(|p| lib.port(&format!("rx${p}$valid")).is_ok())
            .count();
        if n == 0 {
            return Err(format!("{} has no switch ports rx$0$...", lib.module));
        }
        Ok(n)
    }

    /// Sets the port's inputs of a cycle.
    pub fn drive(&self, m: &mut VModel, x: &PortIn) {
        let w = x.rx.unwrap_or_default();
        m.set(self.rx[0], x.rx.is_some() as u64);
        m.set(self.rx[1], w.data);
        m.set(self.rx[2], w.last as u64);
        m.set(self.rx[3], w.empty as u64);
        m.set(self.tx_ready, x.tx_ready as u64);
    }

    /// `rx.ready` and the word on `tx`, if valid.
    pub fn read(&self, m: &VModel) -> (bool, Option<Word>) {
        (
            m.get(self.rx_ready) != 0,
            (m.get(self.tx[0]) != 0).then(|| Word {
                data: m.get(self.tx[1]),
                last: m.get(self.tx[2]) != 0,
                empty: m.get(self.tx[3]) as u8,
            }),
        )
    }
}

/// The name of a verilated or compiled switch's engine.
pub fn backend_name(m: &VModel) -> &'static str {
    match m.lib().backend {
        Backend::Verilator => "verilator",
        Backend::Compiled => "compiled",
    }
}

/// The [`SwitchEngine`] methods of a switch on a library engine (a struct with a
/// [`VModel`] `m`, whose `cycle` runs the rising edge, and a cycle count `cycle`): the
/// cycle count, the engine's name, and no waveform.
#[macro_export]
macro_rules! library_engine_steps {
    () => {
        fn tick(&mut self) -> Result<(), String> {
            // `VModel::cycle` ran the rising edge already.
            self.cycle += 1;
            Ok(())
        }
        fn cycle(&self) -> u64 {
            self.cycle
        }
        fn record_vcd(&mut self, _w: Box<dyn std::io::Write + Send>) -> Result<(), String> {
            Err($crate::switch_sim::NO_VCD.into())
        }
        fn name(&self) -> &'static str {
            $crate::switch_sim::backend_name(&self.m)
        }
    };
}

/// What a switch on a library engine answers when asked for a waveform.
pub const NO_VCD: &str =
    "waveforms come from the native engine: run this device with engine = \"native\"";

/// One port of a verilated switch: its streams and `stat` outputs.
struct VPort {
    link: VLink,
    stat: [PortRef; STAT_PORTS.len()],
}

/// The `stat` outputs of a port, in the order [`VSwitch`] reads them into [`PortStats`].
pub const STAT_PORTS: [&str; 20] = [
    "rx_frames",
    "tx_frames",
    "drop_malformed",
    "drop_no_route",
    "drop_full",
    "trimmed",
    "returned",
    "drop_header",
    "occ_bytes0",
    "occ_bytes1",
    "occ_bytes2",
    "occ_bytes3",
    "src_sent",
    "src_drop",
    "pru",
    "sm",
    "dod_trims",
    "dod_drop",
    "dod_q",
    "tmode",
];

/// A port's counters from the values of the first `s.len()` of [`STAT_PORTS`] (the rest 0).
pub fn port_stats(s: &[u64]) -> PortStats {
    let v = |k: usize| s.get(k).copied().unwrap_or(0);
    PortStats {
        rx_frames: v(0),
        tx_frames: v(1),
        drop_malformed: v(2),
        drop_no_route: v(3),
        drop_full: v(4),
        trimmed: v(5),
        returned: v(6),
        drop_header: v(7),
        occ_bytes: [v(8), v(9), v(10), v(11)],
        src_sent: v(12),
        src_drop: v(13),
        pru: v(14),
        sm: v(15) as u32 as i32 as i64,
        dod_trims: v(16),
        dod_drop: v(17),
        dod_q: v(18),
        tmode: v(19),
    }
}

/// The `cfg` inputs, in the order [`VSwitch`] sets them.
const CFG_PORTS: [&str; 13] = [
    "mode",
    "band_by_flags",
    "wrr",
    "ret",
    "cc_thresh",
    "mtu",
    "pru_cap",
    "link_rate",
    "sm_off",
    "pipes",
    "t0",
    "t1",
    "meter_burst",
];

/// The switch's emitted Verilog, verilated and stepped in this process
/// ([`crate::vmodel`]): the Verilator engine.
pub struct VSwitch {
    m: VModel,
    ports: Vec<VPort>,
    cycle: u64,
}

impl VSwitch {
    /// An instance of `lib` (a switch's library, e.g. from [`VLib::of_block`]).
    pub fn new(lib: Arc<VLib>) -> Result<Self, String> {
        let n = VLink::count(&lib)?;
        // Every configuration input `setup` and `set_route` drive must exist.
        let mut cfg: Vec<String> = CFG_PORTS.iter().map(|f| format!("cfg${f}")).collect();
        for b in 0..BANDS {
            for f in ["limit_bytes", "limit_pkts", "weight"] {
                cfg.push(format!("band${b}${f}"));
            }
        }
        for k in 0..n {
            for f in ["valid", "ip", "port"] {
                cfg.push(format!("route${k}${f}"));
            }
        }
        cfg.push("reset".into());
        for c in &cfg {
            lib.port(c)?;
        }
        let ports = (0..n)
            .map(|p| {
                let q = |dir: &str, f: &str| lib.port(&format!("{dir}${p}${f}"));
                Ok(VPort {
                    link: VLink::new(&lib, p)?,
                    stat: STAT_PORTS
                        .iter()
                        .map(|f| q("stat", f))
                        .collect::<Result<Vec<_>, String>>()?
                        .try_into()
                        .map_err(|_| "stat ports".to_string())?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(VSwitch {
            m: VModel::new(lib),
            ports,
            cycle: 0,
        })
    }

    /// A verilated instance of switch block `S`, emitted as module `module`.
    pub fn of<B: rust_hdl::core::prelude::Block>(
        module: &str,
        make: impl Fn() -> B,
    ) -> Result<Self, String> {
        VSwitch::new(VLib::of_block(module, make)?)
    }

    /// [`VSwitch::of`] built by `backend` (Verilator, or the compiled engine's `rustc`).
    pub fn of_with<B: rust_hdl::core::prelude::Block>(
        backend: Backend,
        module: &str,
        make: impl Fn() -> B,
    ) -> Result<Self, String> {
        VSwitch::new(VLib::of_block_with(backend, module, make)?)
    }

    /// Sets a configuration input (its existence was checked in [`VSwitch::new`]).
    fn set(&mut self, name: &str, v: u64) {
        if let Ok(r) = self.m.lib().port(name) {
            self.m.set(r, v);
        }
    }
}

impl SwitchEngine for VSwitch {
    fn ports(&self) -> usize {
        self.ports.len()
    }
    fn setup(&mut self, s: &SwitchSetup) {
        let c: [(&str, u64); CFG_PORTS.len()] = [
            ("mode", s.mode.cfg()),
            ("band_by_flags", s.band_by_flags as u64),
            ("wrr", s.wrr as u64),
            ("ret", s.ret as u64),
            ("cc_thresh", s.cc_thresh),
            ("mtu", s.mtu),
            ("pru_cap", s.pru_cap),
            ("link_rate", s.link_rate),
            ("sm_off", !s.sm as u64),
            ("pipes", s.pipes),
            ("t0", s.t0),
            ("t1", s.t1),
            ("meter_burst", s.meter_burst),
        ];
        for (f, v) in c {
            self.set(&format!("cfg${f}"), v);
        }
        for b in 0..BANDS {
            self.set(&format!("band${b}$limit_bytes"), s.limit_bytes[b]);
            self.set(&format!("band${b}$limit_pkts"), s.limit_pkts[b]);
            self.set(&format!("band${b}$weight"), s.weight[b]);
        }
        for k in 0..self.ports.len() {
            let (v, ip, port) = s.routes.get(k).copied().unwrap_or((false, 0, 0));
            self.set_route(k, v, ip, port);
        }
        self.set("reset", 0);
    }
    fn set_route(&mut self, k: usize, valid: bool, ip: u32, port: u64) {
        self.set(&format!("route${k}$valid"), valid as u64);
        self.set(&format!("route${k}$ip"), ip as u64);
        self.set(&format!("route${k}$port"), port);
    }
    fn eval(&mut self, inp: &[PortIn], out: &mut [PortOut]) -> Result<(), String> {
        for (vp, x) in self.ports.iter().zip(inp) {
            vp.link.drive(&mut self.m, x);
        }
        self.m.cycle();
        let m = &self.m;
        for (vp, o) in self.ports.iter().zip(out.iter_mut()) {
            let s: [u64; STAT_PORTS.len()] = std::array::from_fn(|k| m.get(vp.stat[k]));
            let (rx_ready, tx) = vp.link.read(m);
            *o = PortOut {
                rx_ready,
                tx,
                stat: port_stats(&s),
            };
        }
        Ok(())
    }
    library_engine_steps!();
}

/// A switch with frame queues at its ports, on an engine: [`SwitchSim`] is the native one.
pub struct SwitchDriver<E: SwitchEngine> {
    k: E,
    n: usize,
    rx: Vec<VecDeque<Packet>>,
    words: Vec<VecDeque<Word>>,
    cur: Vec<Vec<Word>>,
    start: Vec<u64>,
    pace: Vec<Pacer>,
    /// Frames sent, `(port, frame)`, since the last [`SwitchDriver::take_tx`].
    out: Vec<(usize, Packet)>,
    inp: Vec<PortIn>,
    last: Vec<PortOut>,
    /// Whether the last cycle moved a word on any port.
    moved: bool,
    /// Cycles since a word last entered on any port.
    since_rx: u64,
}

/// The switch on the native kernel with frame queues at its ports.
pub type SwitchSim<
    const N: usize,
    const NN: usize,
    const NB: usize,
    const NNB: usize,
    const NR: usize,
    const NP: usize,
> = SwitchDriver<Kernel<Switch<N, NN, NB, NNB, NR, NP>>>;

impl<
        const N: usize,
        const NN: usize,
        const NB: usize,
        const NNB: usize,
        const NR: usize,
        const NP: usize,
    > SwitchDriver<Kernel<Switch<N, NN, NB, NNB, NR, NP>>>
{
    pub fn new(sw: Switch<N, NN, NB, NNB, NR, NP>, setup: &SwitchSetup) -> Result<Self, String> {
        let k = Kernel::new(sw).map_err(|e| e.to_string())?;
        SwitchDriver::with_engine(k, setup)
    }

    pub fn kernel_mut(&mut self) -> &mut Kernel<Switch<N, NN, NB, NNB, NR, NP>> {
        &mut self.k
    }
}

impl<E: SwitchEngine> SwitchDriver<E> {
    /// A switch on engine `k` (fresh: no cycle run yet) configured by `setup`.
    pub fn with_engine(mut k: E, setup: &SwitchSetup) -> Result<Self, String> {
        let n = k.ports();
        if setup.ports != n {
            return Err(format!(
                "a setup for {} ports on a {n}-port switch",
                setup.ports
            ));
        }
        k.setup(setup);
        Ok(Self {
            k,
            n,
            rx: vec![VecDeque::new(); n],
            words: vec![VecDeque::new(); n],
            cur: vec![vec![]; n],
            start: vec![0; n],
            pace: vec![Pacer::line(); n],
            out: vec![],
            inp: vec![PortIn::default(); n],
            last: vec![PortOut::default(); n],
            moved: false,
            since_rx: u64::MAX,
        })
    }

    pub fn engine_mut(&mut self) -> &mut E {
        &mut self.k
    }

    /// Paces output `port`.
    pub fn set_pacer(&mut self, port: usize, p: Pacer) -> Result<(), String> {
        if port >= self.n {
            return Err(format!("port {port} of a {}-port switch", self.n));
        }
        self.pace[port] = p;
        Ok(())
    }

    /// Sets forwarding entry `k` (the `route[k]` configuration input: valid, IPv4
    /// destination, output port) from the next cycle on: a route change during a run.
    pub fn set_route(&mut self, k: usize, valid: bool, ip: u32, port: u64) -> Result<(), String> {
        let n = self.n;
        if k >= n {
            return Err(format!("route entry {k} of a {n}-port switch (0..{n})"));
        }
        self.k.set_route(k, valid, ip, port);
        Ok(())
    }

    /// Queues a frame for input `port`; it enters from `p.cycle` on, after the frames
    /// queued before it. Empty frames are ignored (a MAC has nothing to deliver).
    pub fn push_rx(&mut self, port: usize, p: Packet) {
        if port < self.n && !p.bytes.is_empty() {
            self.rx[port].push_back(p);
        }
    }

    /// Frames sent since the last call, `(output port, frame)`, in the order they ended.
    pub fn take_tx(&mut self) -> Vec<(usize, Packet)> {
        std::mem::take(&mut self.out)
    }

    /// The port outputs (counters and occupancy) of the last cycle.
    pub fn last(&self) -> &[PortOut] {
        &self.last
    }

    pub fn cycle(&self) -> u64 {
        self.k.cycle()
    }

    /// Nothing waiting at an input, nothing queued inside, no frame half sent, no word
    /// moved in the last cycle, and none entered in the engine's
    /// [`SwitchEngine::settle_cycles`].
    pub fn idle(&self) -> bool {
        !self.moved
            && self.since_rx > self.k.settle_cycles()
            && self.rx.iter().all(|q| q.is_empty())
            && self.words.iter().all(|w| w.is_empty())
            && self.cur.iter().all(|c| c.is_empty())
            && self
                .last
                .iter()
                .all(|o| o.stat.occ_bytes.iter().all(|&b| b == 0) && o.stat.dod_q == 0)
    }

    /// Frames waiting at inputs (not yet entering).
    pub fn rx_backlog(&self) -> usize {
        self.rx.iter().map(|q| q.len()).sum()
    }

    /// Runs one cycle.
    pub fn step(&mut self) -> Result<(), String> {
        let now = self.k.cycle();
        for p in 0..self.n {
            if self.words[p].is_empty() && self.rx[p].front().is_some_and(|f| f.cycle <= now) {
                let f = self.rx[p].pop_front().expect("front");
                self.words[p].extend(to_words(&f.bytes));
            }
            self.inp[p] = PortIn {
                rx: self.words[p].pop_front(),
                tx_ready: self.pace[p].ready(),
            };
        }
        self.k.eval(&self.inp, &mut self.last)?;
        let mut moved = self.inp.iter().any(|i| i.rx.is_some());
        self.since_rx = if moved {
            0
        } else {
            self.since_rx.saturating_add(1)
        };
        for p in 0..self.n {
            let sent = match self.last[p].tx {
                Some(w) if self.inp[p].tx_ready => {
                    moved = true;
                    if self.cur[p].is_empty() {
                        self.start[p] = now;
                    }
                    self.cur[p].push(w);
                    if w.last {
                        let bytes = from_words(&std::mem::take(&mut self.cur[p]));
                        self.out.push((
                            p,
                            Packet {
                                cycle: self.start[p],
                                bytes,
                            },
                        ));
                    }
                    true
                }
                _ => false,
            };
            self.pace[p].end_cycle(sent);
        }
        self.moved = moved;
        self.k.tick()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacer_sends_at_its_rate_and_saves_no_burst() {
        let mut p = Pacer::new(1, 2).unwrap();
        let mut sent = 0;
        for _ in 0..100 {
            let s = p.ready();
            sent += s as u32;
            p.end_cycle(s);
        }
        assert_eq!(sent, 50);
        // Idle for a while, then at most one word at once.
        let mut p = Pacer::new(1, 4).unwrap();
        for _ in 0..20 {
            p.end_cycle(false);
        }
        assert!(p.ready());
        p.end_cycle(true);
        assert!(!p.ready());
        assert!(Pacer::new(0, 1).is_err());
        assert!(Pacer::new(3, 2).is_err());
        let mut l = Pacer::line();
        for _ in 0..5 {
            assert!(l.ready());
            l.end_cycle(true);
        }
    }
}
