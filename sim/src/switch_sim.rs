//! Runs a switch cycle by cycle with whole frames at its edges ([`SwitchDriver`], on any
//! [`SwitchEngine`]; the switch is [`nt_hdl::switch2`], its engines in
//! [`crate::switch2_sim`]): frames queued per input port enter MAC RX back to back from their cycle on;
//! the words each output sends are gathered into frames stamped with their first word's
//! cycle. An output port can be paced below line rate (a slower link): its `tx.ready` is
//! high only while the port has earned a word. Used by `ntsim switch` and the network
//! ([`crate::net`]).
use crate::pcap::Packet;
use crate::switch_workload::{PortIn, PortOut, PortStats, SwitchSetup};
use crate::vmodel::{PortRef, VLib, VModel};
use crate::wire::{from_words, to_words, Word};
use std::collections::VecDeque;

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

/// What steps a switch: the native kernel on the rust-hdl block ([`crate::kernel::Kernel`]) or its emitted
/// Verilog on a library engine ([`crate::switch2_sim::VSwitch2`]).
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
    /// Records the signals `opts` selects as VCD from now on ([`crate::vcd`]).
    fn record_vcd(
        &mut self,
        w: crate::vcd::WaveFile,
        opts: &crate::vcd::WaveOpts,
    ) -> Result<(), String>;
    /// `native`, `verilator` or `compiled`.
    fn name(&self) -> &'static str;
    /// Cycles in which a switch may hold a frame that its port outputs do not show: after
    /// a frame's last word entered, before its place shows in the queue occupancy, and
    /// after it left its queue, before its first word goes out. [`SwitchDriver::idle`]
    /// waits them out.
    fn settle_cycles(&self) -> u64;
}

/// One port's MAC streams in a verilated switch (`rx$p$...`, `tx$p$...`).
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
    m.lib().backend.name()
}

/// The [`SwitchEngine`] methods of a switch on a library engine (a struct with a
/// [`VModel`] `m`, whose `cycle` runs the rising edge, and a cycle count `cycle`): the
/// cycle count, the engine's name, and its waveform (the compiled engine's; the Verilator
/// engine records none).
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
        fn record_vcd(
            &mut self,
            w: $crate::vcd::WaveFile,
            opts: &$crate::vcd::WaveOpts,
        ) -> Result<(), String> {
            self.m.record_wave(
                w,
                opts,
                $crate::kernel::period_fs($crate::kernel::DEFAULT_CLOCK_HZ)
                    .map_err(|e| e.to_string())?,
            )
        }
        fn name(&self) -> &'static str {
            $crate::switch_sim::backend_name(&self.m)
        }
    };
}

/// The `stat` outputs of a port, in the order [`port_stats`] reads them into
/// [`PortStats`]; [`crate::switch2_sim::VSwitch2`] reads the first seven.
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

/// A switch with frame queues at its ports, on an engine.
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
    /// Cycles since a word last entered or left on any port.
    since_move: u64,
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
            since_move: u64::MAX,
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

    /// Nothing waiting at an input, nothing queued inside, no frame half sent, and no
    /// word in or out in the engine's [`SwitchEngine::settle_cycles`]: a frame's place
    /// shows in the occupancy only some cycles after its words went in, and a frame taken
    /// from its queue leaves the occupancy some cycles before its first word goes out.
    pub fn idle(&self) -> bool {
        self.since_move > self.k.settle_cycles()
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
        self.since_move = if moved {
            0
        } else {
            self.since_move.saturating_add(1)
        };
        self.k.tick()
    }
}
