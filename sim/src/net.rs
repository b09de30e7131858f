//! The network simulator: hosts (a NIC top block running a transport program, plus an
//! application workload), switches (the switch block in one of its modes) and links (a
//! propagation delay in cycles and, at a switch's transmitter, a rate), built from a TOML
//! topology ([`NetConfig`]) and run cycle by cycle through the kernel: every device steps
//! once per cycle, frames move between devices over [`Link`]s between cycles.
//!
//! # Topology file
//! ```toml
//! name = "incast"          # optional
//! seed = 1                 # workloads and link faults
//! max_cycles = 2_000_000   # the run stops here (reported) if it has not settled
//! sample_cycles = 320      # time-series interval
//! threads = 1              # devices stepped on 1 or more threads (same result)
//!
//! [[switch]]
//! name = "s0"
//! ports = 16               # 2 to 64 (4 and 16 on the RTL, the other sizes on the model)
//! mode = "trim"            # droptail, trim, tofino-trim, bolt
//! band_by_flags = false    # bands from transport flags instead of IPv4 tos
//! buffer_bytes = 55_000    # per output and band (all inputs), up to 2^32 - 1
//! buffer_pkts = 64         # per output and band, 1..=65535
//! shared_kib = 1024        # the shared buffer: 64 (default), 1024 or 16384 KiB
//! port_bytes = 55_296      #   per output, all bands, for whole frames (default: none)
//! port_pkts = 100          #   likewise in packets
//! hdr_bytes = 16_384       #   band 0's limits for trimmed headers (default: band 0's)
//! hdr_pkts = 256
//! dt_alpha = 0.25          #   dynamic threshold: a band holds up to alpha x the free
//!                          #   buffer (a power of two, 1/16 to 16; default: off)
//! ret = false  wrr = false  cc_thresh = 1088  mtu = 1088  pru_cap = 255  link_rate = 200
//! sm = true                # Bolt: supply matching (false: INC only for PRU tokens)
//! pipes = 4  t0 = 19200  t1 = 19200  meter_burst = 16384
//!
//! [[host]]
//! name = "h0"
//! program = "ndp"          # ndp, homa, homatr, bolt (Bolt wants a switch in mode "bolt")
//! ip = "10.0.0.1"          # optional: 10.0.0.(1+index)
//! rtt_pkts = 10  timeout = 22400  retries = 5  rx_timeout = 156800  pull_gap = 136
//! pace_nacks = true        # NDP: NACKs wait for PULL slots (PULL-clocked retransmissions)
//! messages = 16            # 16 or 128 per direction (128: a receiver of > 4 big messages)
//!
//! [[link]]
//! a = "h0"                 # a host, or a switch port "s0:3"
//! b = "s0:0"
//! delay = 400              # cycles, first word out to first word in
//! rate_gbps = 100.0        # optional: paces the switch ports' transmitters
//! loss = 0.01              # optional faults, each direction on its own (crate::link):
//! corrupt = 0.01           #   bits flipped, caught by the receiver's FCS check
//! duplicate = 0.01         #   the frame sent twice
//! reorder = 0.05           #   held back by 1..=reorder_window cycles
//! reorder_window = 300
//! down = [[10_000, 20_000]]  # [from, to) cycles in which the link carries nothing
//! faults = "both"          # or "a-b", "b-a": the one direction the faults apply to
//!
//! [[workload]]
//! kind = "incast"          # see Workload
//! senders = ["h1", "h2"]
//! receiver = "h0"
//! sizes = [20480, 22528]   # bytes, one message per sender (cycled)
//! start = 100
//!
//! [[route]]                # optional: a forwarding entry set at a cycle
//! switch = "s0"
//! host = "h1"              # frames for h1's IP ...
//! port = 3                 # ... leave s0 by port 3 ...
//! cycle = 50_000           # ... from this cycle on (0, the default: from the start)
//! ```
//!
//! # Routing
//! Every switch gets one forwarding entry per host: the port of the first link on a
//! shortest path (fewest links; ties to the lowest port). The switch's table has one entry
//! per port, so a switch can reach at most as many hosts as it has ports: more is a
//! configuration error.
//!
//! A `[[route]]` overrides a switch's entry for a host: with `cycle = 0` from the start (a
//! static route), else from that cycle on (a route change during the run: the simulator
//! rewrites the switch's `route[k]` configuration input between cycles; frames already
//! queued keep their output port). The port must be on a link, and the routes after each
//! change (changes of one cycle taken together) must still take every switch that reached
//! the host to it: no loop, no other host at the end.
//!
//! # Link faults
//! A link's faults (above) are drawn per direction from a generator seeded by the
//! topology's `seed`, the link's name (`a-b` as written) and the direction
//! ([`link_seed`]), so adding a link changes no other link's faults. Corrupted frames are
//! dropped by the receiving port's Ethernet FCS check ([`crate::link`]), never delivered.
//! Each direction counts what it did ([`crate::link::LinkStats`], `links.csv`).
//!
//! # Timing
//! A link takes a frame when its last word has left and delivers it `delay` cycles after
//! its first word left, or at once when that has passed (so the delay seen is at least the
//! frame's length in words: store and forward on the wire). The receiving device takes its
//! words back to back. A link's `rate_gbps` paces the transmitter of each switch port on
//! it ([`Pacer`]); a NIC always sends at its MAC's rate (64 bits a cycle, 204.8 Gb/s at
//! 3.2 GHz).
use crate::link::{Link, LinkCfg};
use crate::lockstep::lockstep;
use crate::nic_cli::{check_timeouts, parse_host_ip};
use crate::nic_sim::{AppMsg, Delivered, NicConfig, NicDriver, NicEngine, NicSim, Outcome, VNic};
use crate::pcap::Packet;
use crate::switch_sim::{Pacer, SwitchDriver, SwitchEngine};
use crate::switch_workload::{PortStats, SwitchSetup};
use crate::vmodel::Backend;
use crate::DEFAULT_CLOCK_HZ;
use nt_hdl::mode::SwitchMode;
use nt_hdl::nic::{
    NicBolt, NicBolt128, NicHoma, NicHoma128, NicHomaTr, NicHomaTr128, NicNdp, NicNdp128,
};
use nt_hdl::packetization::{HDR_WORDS, MAX_MSG_BYTES, PKT_BYTES};
use nt_hdl::sadm::BANDS;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// Bits a MAC moves per cycle.
pub const WORD_BITS: f64 = 64.0;
/// Line rate in Gb/s: [`WORD_BITS`] a cycle at [`DEFAULT_CLOCK_HZ`] (204.8).
pub const LINE_GBPS: f64 = WORD_BITS * DEFAULT_CLOCK_HZ / 1e9;
/// The ideal's switch ([`Network::ideal`]) stores and forwards: a `W`-word frame's first
/// word leaves `W + IDEAL_SWITCH_EXTRA` cycles after its first word came in. 6 is the
/// retired crosspoint switch's latency; the shared switch takes `W + 31` to `W + 37`
/// ([`crate::switch2_sim::SHARED_P4_EXTRA`]). Kept at 6 so that every slowdown in
/// docs/results.md has the same ideal.
pub const IDEAL_SWITCH_EXTRA: u64 = 6;
/// Payload bytes that tag a message (its index), so a delivery can be matched to its send.
pub const TAG_BYTES: usize = 8;
/// Cycles after which a settled network (every message resolved, nothing in flight, every
/// device idle) ends the run.
pub const QUIET_CYCLES: u64 = 300;

/// The topology file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub seed: u64,
    #[serde(default = "default_max_cycles")]
    pub max_cycles: u64,
    #[serde(default = "default_sample")]
    pub sample_cycles: u64,
    #[serde(default = "default_threads")]
    pub threads: usize,
    #[serde(default)]
    pub host: Vec<HostCfg>,
    #[serde(default)]
    pub switch: Vec<SwitchCfg>,
    #[serde(default)]
    pub link: Vec<LinkSpec>,
    #[serde(default)]
    pub workload: Vec<Workload>,
    #[serde(default)]
    pub output: OutputCfg,
    /// Forwarding entries set by hand, from the start or from a cycle on.
    #[serde(default)]
    pub route: Vec<RouteSpec>,
    /// What steps the devices that do not name their own `engine`: `native` (the
    /// default: our kernel on the rust-hdl blocks), `verilator` (each block's emitted
    /// Verilog, verilated and stepped in this process) or `compiled` (that Verilog compiled
    /// to Rust by `crate::rcomp`, stepped the same way).
    #[serde(default)]
    pub engine: Option<String>,
}

/// What steps a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Our kernel on the rust-hdl block.
    Native,
    /// The block's emitted Verilog under Verilator, through `crate::vmodel`.
    Verilator,
    /// The block's emitted Verilog compiled to Rust by `crate::rcomp` (built with `rustc`,
    /// loaded through `crate::vmodel` like a verilated model).
    Compiled,
}

impl Engine {
    /// Parses `native`, `verilator` or `compiled`.
    pub fn parse(s: &str) -> Result<Self, String> {
        [Engine::Native, Engine::Verilator, Engine::Compiled]
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| format!("engine {s:?}: use native, verilator or compiled"))
    }

    /// The name [`Engine::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Native => "native",
            Engine::Verilator => "verilator",
            Engine::Compiled => "compiled",
        }
    }

    /// What builds the device's library, for the engines that load one.
    pub fn backend(self) -> Option<Backend> {
        match self {
            Engine::Native => None,
            Engine::Verilator => Some(Backend::Verilator),
            Engine::Compiled => Some(Backend::Compiled),
        }
    }

    /// A device's engine: its own `engine` if set, else the network's, else native.
    fn of(device: &Option<String>, net: &Option<String>) -> Result<Self, String> {
        device
            .as_deref()
            .or(net.as_deref())
            .map_or(Ok(Engine::Native), Engine::parse)
    }
}

/// A `[[route]]`: from `cycle` on (0: from the start), switch `switch` sends frames for
/// host `host`'s IP out of `port`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    pub switch: String,
    pub host: String,
    pub port: usize,
    #[serde(default)]
    pub cycle: u64,
}

/// A route change during a run: at `cycle`, entry `slot` of switch `switch`'s table (the
/// entry of host `host`) sends to `port`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteChange {
    pub cycle: u64,
    pub switch: usize,
    pub slot: usize,
    pub host: usize,
    pub port: usize,
}

fn default_max_cycles() -> u64 {
    10_000_000
}
fn default_sample() -> u64 {
    320
}
fn default_threads() -> usize {
    1
}
fn default_true() -> bool {
    true
}

/// A host: a NIC running `program`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostCfg {
    pub name: String,
    pub program: String,
    #[serde(default)]
    pub ip: Option<String>,
    #[serde(default)]
    pub rtt_pkts: Option<u8>,
    #[serde(default)]
    pub timeout: Option<u32>,
    #[serde(default)]
    pub retries: Option<u8>,
    #[serde(default)]
    pub rx_timeout: Option<u32>,
    #[serde(default)]
    pub pull_gap: Option<u16>,
    /// NDP: NACKs take the receiver's PULL pacing slots (default true); `false` sends
    /// each NACK at once, so the sender retransmits at once (SPEC §6's first reading).
    #[serde(default)]
    pub pace_nacks: Option<bool>,
    /// Messages per direction: 16 (the default NIC: four 38 KiB buffers per direction) or
    /// 128 (sixteen 38 KiB buffers among 944 KiB). A receiver of more than four concurrent
    /// messages over 8 KiB needs 128: with 16, the fifth finds no buffer, its packets are
    /// dropped (`failed`) and its sender waits for its retransmission timeout.
    #[serde(default)]
    pub messages: Option<u32>,
    /// `native`, `verilator` or `compiled` (default: the network's `engine`).
    #[serde(default)]
    pub engine: Option<String>,
}

/// A switch.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchCfg {
    pub name: String,
    pub ports: usize,
    /// A mode of [`nt_hdl::mode::MODES`], by name.
    pub mode: SwitchMode,
    #[serde(default)]
    pub band_by_flags: bool,
    #[serde(default)]
    pub buffer_bytes: Option<u64>,
    #[serde(default)]
    pub buffer_pkts: Option<u64>,
    #[serde(default)]
    pub ret: bool,
    #[serde(default)]
    pub wrr: bool,
    #[serde(default)]
    pub cc_thresh: Option<u64>,
    #[serde(default)]
    pub mtu: Option<u64>,
    #[serde(default)]
    pub pru_cap: Option<u64>,
    #[serde(default)]
    pub link_rate: Option<u64>,
    /// Bolt: supply matching (default on); `sm = false` sets the switch's `cfg.sm_off`.
    #[serde(default = "default_true")]
    pub sm: bool,
    #[serde(default)]
    pub pipes: Option<u64>,
    #[serde(default)]
    pub t0: Option<u64>,
    #[serde(default)]
    pub t1: Option<u64>,
    #[serde(default)]
    pub meter_burst: Option<u64>,
    /// `native`, `verilator` or `compiled` (default: the network's `engine`), or `model`:
    /// the switch's golden model, which runs every size (the RTL is built at 4 and 16
    /// ports; the other sizes, up to 64, run on the model whatever the engine).
    #[serde(default)]
    pub engine: Option<String>,
    /// `shared`, the only buffer (`nt_hdl::switch2`: every mode on a shared buffer of
    /// `shared_kib` KiB); `crosspoint`, the retired switch's, is an error that says so.
    #[serde(default)]
    pub buffer: Option<String>,
    /// The shared buffer's size: 64 (the emitted Verilog's), 1024 or 16384 KiB.
    #[serde(default)]
    pub shared_kib: Option<u64>,
    /// The shared switch: per output, all bands, the bytes and packets whole frames keep
    /// to (default: no limit).
    #[serde(default)]
    pub port_bytes: Option<u64>,
    #[serde(default)]
    pub port_pkts: Option<u64>,
    /// The shared switch: band 0's limits for trimmed and returned headers (default: band
    /// 0's `buffer_bytes` / `buffer_pkts`).
    #[serde(default)]
    pub hdr_bytes: Option<u64>,
    #[serde(default)]
    pub hdr_pkts: Option<u64>,
    /// The shared switch: the dynamic threshold (Choudhury and Hahne): each band may hold
    /// up to `dt_alpha` times the free buffer; a power of two from 1/16 to 16 (default:
    /// off).
    #[serde(default)]
    pub dt_alpha: Option<f64>,
}

/// A link between two endpoints: a host's name or a switch port `name:K`, with seeded
/// faults ([`crate::link`]): each direction draws its own, with the same probabilities,
/// from a generator seeded by the topology's `seed`, the link's name and the direction.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub a: String,
    pub b: String,
    pub delay: u64,
    #[serde(default)]
    pub rate_gbps: Option<f64>,
    /// Probability that a frame is lost.
    #[serde(default)]
    pub loss: f64,
    /// Probability that a frame's bits are flipped (1 to 3 of them); the receiving
    /// port's FCS check drops it.
    #[serde(default)]
    pub corrupt: f64,
    /// Probability that a frame is sent twice.
    #[serde(default)]
    pub duplicate: f64,
    /// Probability that a frame is held back by 1 to `reorder_window` cycles.
    #[serde(default)]
    pub reorder: f64,
    #[serde(default)]
    pub reorder_window: u64,
    /// Intervals `[from, to)` of cycles in which the link carries nothing.
    #[serde(default)]
    pub down: Vec<[u64; 2]>,
    /// The directions the faults apply to: `both` (the default), `a-b` (frames from `a`
    /// to `b` only) or `b-a`.
    #[serde(default)]
    pub faults: Option<String>,
}

impl LinkSpec {
    /// Its name, `a-b` as written.
    pub fn name(&self) -> String {
        format!("{}-{}", self.a, self.b)
    }

    /// The two directions' configurations (0: `a` to `b`, 1: `b` to `a`), checked.
    pub fn dir_cfgs(&self) -> Result<[LinkCfg; 2], String> {
        let faulty = LinkCfg {
            delay: self.delay,
            loss: self.loss,
            reorder: self.reorder,
            reorder_cycles: self.reorder_window,
            chop: 0.0,
            corrupt: self.corrupt,
            duplicate: self.duplicate,
            down: self.down.iter().map(|&[f, t]| (f, t)).collect(),
        };
        faulty.validate()?;
        let ideal = LinkCfg::ideal(self.delay);
        Ok(match self.faults.as_deref() {
            None | Some("both") => [faulty.clone(), faulty],
            Some("a-b") => [faulty, ideal],
            Some("b-a") => [ideal, faulty],
            Some(f) => {
                return Err(format!(
                    "faults = {f:?}: use \"both\", \"a-b\" (frames from a to b) or \"b-a\""
                ))
            }
        })
    }
}

/// The seed of direction `dir` of the link named `name` in a topology of seed `seed`: a
/// hash of the three, so that adding, removing or reordering other links leaves this
/// link's faults alone (FNV-1a over the name and the direction, then splitmix64).
pub fn link_seed(seed: u64, name: &str, dir: usize) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes().chain([0xff, dir as u8]) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let mut z = seed ^ h;
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// An application workload.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Workload {
    /// Every sender sends one message to `receiver` at `start`; sender `i` sends
    /// `sizes[i % sizes.len()]` bytes.
    Incast {
        senders: Vec<String>,
        receiver: String,
        sizes: Vec<u64>,
        #[serde(default)]
        start: u64,
    },
    /// Messages at given cycles.
    Messages { msg: Vec<MsgSpec> },
    /// Poisson arrivals at every host in `hosts` (all hosts when empty) to a uniformly
    /// chosen other host in `hosts`, sizes drawn from the CDF in `sizes_file` (lines of
    /// `bytes cumulative_probability`, increasing, the last at 1), at `load` of the line rate
    /// per host, from `start` to `stop` cycles. A size outside the NIC's 8..=38,912 bytes
    /// is an error unless `clamp_sizes` is set: then it is clamped into that range (the
    /// published workloads W1 to W5 in `examples/workloads/` need it), and the load is
    /// that of the clamped sizes.
    Poisson {
        #[serde(default)]
        hosts: Vec<String>,
        load: f64,
        sizes_file: String,
        #[serde(default)]
        clamp_sizes: bool,
        #[serde(default)]
        start: u64,
        stop: u64,
    },
}

/// One message of a [`Workload::Messages`].
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MsgSpec {
    pub from: String,
    pub to: String,
    pub cycle: u64,
    pub bytes: u64,
}

/// What to record besides the time series.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OutputCfg {
    /// Devices (hosts or switches) whose signals are written to `<name>.vcd`.
    #[serde(default)]
    pub vcd: Vec<String>,
    /// Globs that restrict those waveforms to some scopes or signals (`h1.reassembly`,
    /// `*.parser.*`; [`crate::vcd::WaveOpts::scopes`]); empty: every signal.
    #[serde(default)]
    pub vcd_scope: Vec<String>,
    /// The cycles those waveforms hold, `FROM..TO` (`1000..2000`, `5000..`); empty: all.
    #[serde(default)]
    pub vcd_cycles: String,
    /// `vcd` (the default) or `fst` (`<name>.fst`).
    #[serde(default)]
    pub wave_format: String,
    /// Every plot also as PNG (`queues.png` beside `queues.svg`, ...).
    #[serde(default)]
    pub png: bool,
    /// Links, `"a-b"` by their endpoints as written, whose frames are written one file
    /// per direction, `link_<a>_to_<b>.pcapng` and `link_<b>_to_<a>.pcapng`
    /// ([`capture_file`]).
    /// `ntsim run --pcap LINK` adds to them.
    #[serde(default)]
    pub pcap: Vec<String>,
}

/// The capture file of a link's direction from `from` to `to` (endpoints as written, such
/// as `h0` and `s0:1`): `link_<from>_to_<to>.pcapng`, every character other than a letter,
/// digit, `-` or `.` written as `_` (`link_h0_to_s0_1.pcapng`). pcapng stamped in real
/// time at 3.2 GHz, each frame's cycle in its comment (`crate::pcap`).
pub fn capture_file(from: &str, to: &str) -> String {
    let plain = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!("link_{}_to_{}.pcapng", plain(from), plain(to))
}

impl NetConfig {
    /// Parses a topology file's text.
    pub fn from_toml(text: &str) -> Result<Self, String> {
        toml::from_str(text).map_err(|e| format!("topology: {e}"))
    }

    /// The switches that run on the switch's golden model (`engine = "model"`, or a size
    /// the RTL is not built in), one line each; `ntsim run` prints them as notes and keeps
    /// them in `run.json` (`model_switches`).
    pub fn model_switches(&self) -> Vec<String> {
        self.switch
            .iter()
            .filter(|s| s.engine.as_deref() == Some(MODEL_ENGINE) || !matches!(s.ports, 4 | 16))
            .map(|s| {
                format!(
                    "switch {:?} ({} ports) runs on the switch's golden model, cycle-exact to the RTL where the tests compare them (4, 8 and 16 ports)",
                    s.name, s.ports
                )
            })
            .collect()
    }

    /// Protocol and switch combinations that run, but not as a user may expect: a host
    /// running `homa` beside a trimming switch (Homa ignores a trimmed packet, so its
    /// sender's timeout recovers it; `homatr` NACKs it at once), and a host running `bolt`
    /// with no switch in mode `bolt` (no SRC ever reaches it, so only its ACKs move its
    /// window). One line each; `ntsim run` prints them as warnings and keeps them in
    /// `run.json`.
    pub fn mismatches(&self) -> Vec<String> {
        // "host h0 runs P" or "hosts h0, h1 run P", for the hosts running `program`
        let running = |program: &str| -> Option<(String, bool)> {
            let names: Vec<&str> = self
                .host
                .iter()
                .filter(|h| h.program == program)
                .map(|h| h.name.as_str())
                .collect();
            let many = names.len() > 1;
            (!names.is_empty()).then(|| {
                let (h, r) = if many {
                    ("hosts", "run")
                } else {
                    ("host", "runs")
                };
                (format!("{h} {} {r} {program}", names.join(", ")), many)
            })
        };
        let mut w = vec![];
        let trimming = self
            .switch
            .iter()
            .find(|s| matches!(s.mode, SwitchMode::Trim | SwitchMode::TofinoTrim));
        if let (Some(s), Some((who, _))) = (trimming, running("homa")) {
            w.push(format!(
                "{who} and switch {} trims (mode {}): Homa ignores a trimmed packet, so its sender's timeout recovers it (homatr NACKs it at once)",
                s.name, s.mode
            ));
        }
        if let Some((who, many)) = running("bolt") {
            if !self.switch.iter().any(|s| s.mode == SwitchMode::Bolt) {
                w.push(format!(
                    "{who} but no switch is in mode bolt: no SRC reaches {}, so only ACKs move the window",
                    if many { "them" } else { "it" }
                ));
            }
        }
        w
    }
}

/// A link endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    Host(usize),
    Port(usize, usize),
}

/// A message of the run and what became of it.
#[derive(Clone, Debug, PartialEq)]
pub struct MsgRecord {
    pub src: usize,
    pub dst: usize,
    pub bytes: u64,
    /// The cycle the application offers it.
    pub start: u64,
    /// The cycle its last word reached the receiving application.
    pub done: Option<u64>,
    /// The sender's outcome.
    pub outcome: Option<Outcome>,
    /// Completion without any other traffic ([`Network::ideal`]).
    pub ideal: u64,
    /// Times its receiver handed it to the application (byte-exact or not): 1 when
    /// delivered, more if it ever came twice.
    pub deliveries: u32,
}

impl MsgRecord {
    pub fn fct(&self) -> Option<u64> {
        self.done.map(|d| d - self.start)
    }
    /// Delivered and acknowledged, given up, or refused.
    pub fn resolved(&self) -> bool {
        match self.outcome {
            Some(Outcome::GaveUp) | Some(Outcome::Refused) => true,
            Some(Outcome::Delivered) => self.done.is_some(),
            None => false,
        }
    }
    pub fn slowdown(&self) -> Option<f64> {
        self.fct().map(|f| f as f64 / self.ideal.max(1) as f64)
    }
}

/// Words on the wire of a message of `bytes`: full packets of [`PKT_BYTES`] payload and
/// [`HDR_WORDS`] header words, then the rest.
pub fn wire_words(bytes: u64) -> u64 {
    let full = bytes / PKT_BYTES;
    let rest = bytes % PKT_BYTES;
    full * (HDR_WORDS + PKT_BYTES / 8)
        + if rest > 0 {
            HDR_WORDS + rest.div_ceil(8)
        } else {
            0
        }
}

/// A host's NIC, whatever its program.
pub trait HostDev: Send {
    fn step(&mut self) -> Result<(), String>;
    fn push_rx(&mut self, p: Packet);
    fn take_tx(&mut self) -> Vec<Packet>;
    fn take_delivered(&mut self) -> Vec<Delivered>;
    fn send(&mut self, m: AppMsg) -> usize;
    /// `(message index, outcome, cycle)` of outcomes from `from` on.
    fn outcomes_from(&self, from: usize) -> Vec<(usize, Outcome, u64)>;
    fn unresolved(&self) -> usize;
    fn idle(&self) -> bool;
    fn record_vcd(
        &mut self,
        w: crate::vcd::WaveFile,
        opts: &crate::vcd::WaveOpts,
    ) -> Result<(), String>;
    /// The NIC's main counters (`NicStats`).
    fn stats(&self) -> HostStats;
    /// The open messages' windows in packets ([`NicSim::window_pkts`]).
    fn window(&self) -> u64;
}

pub use crate::nic_sim::HostStats;

impl<E: NicEngine> HostDev for NicDriver<E> {
    fn step(&mut self) -> Result<(), String> {
        NicDriver::step(self)
    }
    fn push_rx(&mut self, p: Packet) {
        NicDriver::push_rx(self, p)
    }
    fn take_tx(&mut self) -> Vec<Packet> {
        std::mem::take(&mut self.tx_frames)
    }
    fn take_delivered(&mut self) -> Vec<Delivered> {
        std::mem::take(&mut self.delivered)
    }
    fn send(&mut self, m: AppMsg) -> usize {
        NicDriver::send(self, m)
    }
    fn outcomes_from(&self, from: usize) -> Vec<(usize, Outcome, u64)> {
        self.outcomes[from.min(self.outcomes.len())..]
            .iter()
            .map(|o| (o.msg, o.outcome, o.cycle))
            .collect()
    }
    fn unresolved(&self) -> usize {
        NicDriver::unresolved(self)
    }
    fn idle(&self) -> bool {
        let q = &self.last_probe;
        self.edges_idle() && !(q.mac_rx || q.mac_tx || q.app_rx || q.app_tx)
    }
    fn record_vcd(
        &mut self,
        w: crate::vcd::WaveFile,
        opts: &crate::vcd::WaveOpts,
    ) -> Result<(), String> {
        self.engine_mut().record_vcd(w, opts)
    }
    fn stats(&self) -> HostStats {
        NicDriver::stats(self)
    }
    fn window(&self) -> u64 {
        self.window_pkts()
    }
}

/// A switch, whatever its size.
pub trait SwitchDev: Send {
    fn step(&mut self) -> Result<(), String>;
    fn push_rx(&mut self, port: usize, p: Packet);
    fn take_tx(&mut self) -> Vec<(usize, Packet)>;
    fn stats(&self) -> Vec<PortStats>;
    fn idle(&self) -> bool;
    /// The cycle about to be stepped.
    fn cycle(&self) -> u64;
    /// Frames pushed with [`SwitchDev::push_rx`] that have not started entering yet.
    fn rx_backlog(&self) -> usize;
    fn set_pacer(&mut self, port: usize, p: Pacer) -> Result<(), String>;
    /// Sets forwarding entry `k` (`route[k]`: valid, IPv4 destination, output port) from
    /// the next cycle on.
    fn set_route(&mut self, k: usize, valid: bool, ip: u32, port: u64) -> Result<(), String>;
    fn record_vcd(
        &mut self,
        w: crate::vcd::WaveFile,
        opts: &crate::vcd::WaveOpts,
    ) -> Result<(), String>;
}

impl<E: SwitchEngine> SwitchDev for SwitchDriver<E> {
    fn step(&mut self) -> Result<(), String> {
        SwitchDriver::step(self)
    }
    fn push_rx(&mut self, port: usize, p: Packet) {
        SwitchDriver::push_rx(self, port, p)
    }
    fn take_tx(&mut self) -> Vec<(usize, Packet)> {
        SwitchDriver::take_tx(self)
    }
    fn stats(&self) -> Vec<PortStats> {
        self.last().iter().map(|o| o.stat).collect()
    }
    fn idle(&self) -> bool {
        SwitchDriver::idle(self)
    }
    fn cycle(&self) -> u64 {
        SwitchDriver::cycle(self)
    }
    fn rx_backlog(&self) -> usize {
        SwitchDriver::rx_backlog(self)
    }
    fn set_pacer(&mut self, port: usize, p: Pacer) -> Result<(), String> {
        SwitchDriver::set_pacer(self, port, p)
    }
    fn set_route(&mut self, k: usize, valid: bool, ip: u32, port: u64) -> Result<(), String> {
        SwitchDriver::set_route(self, k, valid, ip, port)
    }
    fn record_vcd(
        &mut self,
        w: crate::vcd::WaveFile,
        opts: &crate::vcd::WaveOpts,
    ) -> Result<(), String> {
        self.engine_mut().record_vcd(w, opts)
    }
}

/// A device of the network.
pub enum Dev {
    Host(Box<dyn HostDev>),
    Switch(Box<dyn SwitchDev>),
}

impl Dev {
    fn step(&mut self) -> Result<(), String> {
        match self {
            Dev::Host(h) => h.step(),
            Dev::Switch(s) => s.step(),
        }
    }
}

/// One link: its ends and a [`Link`] per direction (0: `a → b`, 1: `b → a`).
pub struct NetLink {
    pub name: String,
    pub ends: [End; 2],
    /// The ends as written (`h0`, `s0:1`).
    pub end_names: [String; 2],
    pub dir: [Link; 2],
    /// Cycles from first word out to first word in.
    pub delay: u64,
    /// Rate of the switch transmitters on it, a fraction of line rate.
    pub rate: f64,
    /// Bytes that entered each direction in the current sample interval.
    pub bytes: [u64; 2],
    /// Frames of each direction (0: from `ends[0]`), kept when the link's pcap was asked
    /// for.
    pub capture: Option<[Vec<Packet>; 2]>,
}

impl NetLink {
    /// Both directions' captured frames in the order they entered the link (by cycle;
    /// direction 0 first within a cycle), when the link was captured.
    pub fn frames(&self) -> Option<Vec<Packet>> {
        let [a, b] = self.capture.as_ref()?;
        let mut v: Vec<Packet> = a.iter().chain(b).cloned().collect();
        v.sort_by_key(|p| p.cycle);
        Some(v)
    }
}

/// The built network.
pub struct Network {
    pub name: String,
    pub host_names: Vec<String>,
    pub host_ips: Vec<u32>,
    pub host_macs: Vec<u64>,
    pub switch_names: Vec<String>,
    /// Device `i < hosts` is host `i`, then the switches.
    devs: Vec<Mutex<Dev>>,
    pub links: Vec<NetLink>,
    /// Link and direction a host sends on.
    host_link: Vec<(usize, usize)>,
    /// Per switch, per port: link and the direction the port sends on.
    port_link: Vec<Vec<Option<(usize, usize)>>>,
    /// Per switch: host → output port.
    routes: Vec<HashMap<usize, usize>>,
    /// `[[route]]` changes still to come, by cycle.
    route_changes: VecDeque<RouteChange>,
    /// Route changes applied so far.
    pub routes_changed: Vec<RouteChange>,
    /// Messages not yet offered, by start cycle, per host.
    pending: Vec<VecDeque<(usize, AppMsg)>>,
    pub msgs: Vec<MsgRecord>,
    /// Per host: message index by the NIC's send index.
    sent_idx: Vec<Vec<usize>>,
    outcomes_seen: Vec<usize>,
    pub max_cycles: u64,
    pub sample_cycles: u64,
    threads: usize,
    now: u64,
    /// Deliveries whose tag names no message to that host (counted; a second delivery
    /// of a message counts in its [`MsgRecord::deliveries`]).
    pub untagged: u64,
    /// Deliveries whose payload differs from their message's (counted; a defect).
    pub corrupt: u64,
}

/// Time series sampled every `sample_cycles`.
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub cycles: Vec<u64>,
    /// Per switch port on a link, `(switch, port)` → bytes queued (all bands).
    pub queue_cols: Vec<(usize, usize)>,
    pub queue: Vec<Vec<u64>>,
    /// Per host: bytes its NIC sent in the interval, counted in the cycles their words
    /// left its MAC (8 bytes a cycle, [`spread_delivery`]).
    pub host_tx: Vec<Vec<u64>>,
    /// Per host: message payload bytes its NIC handed to its application in the interval
    /// (its goodput), counted in the cycles their words left `app_rx`.
    pub host_rx: Vec<Vec<u64>>,
    /// Per host: its open messages' windows in packets at the sample ([`HostDev::window`]).
    pub host_window: Vec<Vec<u64>>,
}

/// What a run did.
#[derive(Debug)]
pub struct RunResult {
    pub cycles: u64,
    pub settled: bool,
    pub series: Series,
    pub switch_stats: Vec<Vec<PortStats>>,
    /// Per host: its NIC's counters at the end.
    pub host_stats: Vec<HostStats>,
    pub wall_secs: f64,
}

fn parse_end(
    s: &str,
    hosts: &HashMap<&str, usize>,
    switches: &HashMap<&str, usize>,
    ports: &[usize],
) -> Result<End, String> {
    if let Some((sw, port)) = s.split_once(':') {
        let i = *switches
            .get(sw)
            .ok_or_else(|| format!("link end {s:?}: no switch named {sw:?}"))?;
        let p: usize = port
            .parse()
            .map_err(|_| format!("link end {s:?}: port {port:?} is not a number"))?;
        if p >= ports[i] {
            return Err(format!(
                "link end {s:?}: switch {sw:?} has ports 0..{}",
                ports[i]
            ));
        }
        Ok(End::Port(i, p))
    } else {
        hosts.get(s).map(|&h| End::Host(h)).ok_or_else(|| {
            format!("link end {s:?}: no host of that name (a switch port is written NAME:PORT)")
        })
    }
}

/// The admission's threshold exponent `a` for `alpha = 2^(a - 4)`: `alpha` a power of two
/// from 1/16 to 16.
fn dt_exponent(alpha: f64) -> Result<u8, String> {
    (0u8..=8)
        .find(|&a| alpha == 2f64.powi(a as i32 - 4))
        .ok_or_else(|| {
            format!("dt_alpha {alpha}: must be a power of two from 1/16 to 16 (0.0625, 0.125, 0.25, 0.5, 1, 2, 4, 8 or 16)")
        })
}

fn check_range(what: &str, v: u64, lo: u64, hi: u64) -> Result<u64, String> {
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{what} {v}: must be {lo}..={hi}"))
    }
}

/// Reads a message-size CDF: lines of `bytes probability` (blank lines and `#` comments
/// skipped), sizes and probabilities non-decreasing, the last probability 1, every size
/// one the NIC carries (8..=38,912 bytes).
pub fn read_cdf(text: &str, name: &str) -> Result<Vec<(u64, f64)>, String> {
    read_cdf_clamped(text, name, false)
}

/// [`read_cdf`], with every size clamped into 8..=38,912 bytes when `clamp` is set (any
/// size from 1 byte is then taken).
pub fn read_cdf_clamped(text: &str, name: &str, clamp: bool) -> Result<Vec<(u64, f64)>, String> {
    let mut cdf: Vec<(u64, f64)> = vec![];
    for (n, line) in text.lines().enumerate() {
        let l = line.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        let mut it = l.split_whitespace();
        let (Some(b), Some(p), None) = (it.next(), it.next(), it.next()) else {
            return Err(format!("{name}:{}: want `bytes probability`", n + 1));
        };
        let b: u64 = b
            .parse()
            .map_err(|_| format!("{name}:{}: size {b:?} is not a whole number", n + 1))?;
        let p: f64 = p
            .parse()
            .map_err(|_| format!("{name}:{}: probability {p:?} is not a number", n + 1))?;
        if !(0.0..=1.0).contains(&p) {
            return Err(format!("{name}:{}: probability {p} is not in 0..=1", n + 1));
        }
        let b = if clamp && b > 0 {
            b.clamp(TAG_BYTES as u64, MAX_MSG_BYTES)
        } else if b < TAG_BYTES as u64 || b > MAX_MSG_BYTES {
            return Err(format!(
                "{name}:{}: size {b} must be {TAG_BYTES}..={MAX_MSG_BYTES} bytes{}",
                n + 1,
                if clamp || b == 0 {
                    ""
                } else {
                    " (the workload's `clamp_sizes = true` clamps sizes into that range)"
                }
            ));
        } else {
            b
        };
        if let Some(&(pb, pp)) = cdf.last() {
            if b < pb || p < pp {
                return Err(format!(
                    "{name}:{}: sizes and probabilities must not decrease",
                    n + 1
                ));
            }
        }
        cdf.push((b, p));
    }
    match cdf.last() {
        None => Err(format!("{name}: no sizes")),
        Some(&(_, p)) if (p - 1.0).abs() > 1e-9 => {
            Err(format!("{name}: the last probability is {p}, not 1"))
        }
        _ => Ok(cdf),
    }
}

fn sample_cdf(cdf: &[(u64, f64)], rng: &mut ChaCha8Rng) -> u64 {
    let u: f64 = rng.gen();
    cdf.iter()
        .find(|&&(_, p)| u <= p)
        .map_or(cdf[cdf.len() - 1].0, |&(b, _)| b)
}

/// Checks the `[[route]]` tables and applies the static ones (`cycle = 0`) to `routes`;
/// returns the changes during the run, by cycle, with their table slots (a switch's table
/// lists its hosts in index order). Each change must name a switch, a host the switch
/// reaches and a port on a link; after the changes of each cycle, every switch whose entry
/// changed must still reach the host (no loop, no other host at the end of the path).
#[allow(clippy::too_many_arguments)]
fn route_overrides(
    cfg: &NetConfig,
    hosts: &HashMap<&str, usize>,
    swmap: &HashMap<&str, usize>,
    ports: &[usize],
    links: &[NetLink],
    port_link: &[Vec<Option<(usize, usize)>>],
    routes: &mut [HashMap<usize, usize>],
) -> Result<Vec<RouteChange>, String> {
    let mut all: Vec<(RouteChange, String)> = vec![];
    for (ri, r) in cfg.route.iter().enumerate() {
        let what = format!(
            "route {} (switch {:?}, host {:?}, port {}, cycle {})",
            ri + 1,
            r.switch,
            r.host,
            r.port,
            r.cycle
        );
        let s = *swmap
            .get(r.switch.as_str())
            .ok_or_else(|| format!("{what}: no switch named {:?}", r.switch))?;
        let h = *hosts
            .get(r.host.as_str())
            .ok_or_else(|| format!("{what}: no host named {:?}", r.host))?;
        if r.port >= ports[s] {
            return Err(format!(
                "{what}: switch {:?} has ports 0..{}",
                r.switch, ports[s]
            ));
        }
        if port_link[s][r.port].is_none() {
            return Err(format!(
                "{what}: port {} of switch {:?} is on no link",
                r.port, r.switch
            ));
        }
        if !routes[s].contains_key(&h) {
            return Err(format!(
                "{what}: switch {:?} has no path to host {:?}",
                r.switch, r.host
            ));
        }
        if let Some((_, o)) = all
            .iter()
            .find(|(c, _)| (c.switch, c.host, c.cycle) == (s, h, r.cycle))
        {
            return Err(format!("{what}: {o} sets the same entry at the same cycle"));
        }
        let mut keys: Vec<usize> = routes[s].keys().copied().collect();
        keys.sort();
        let slot = keys.iter().position(|&k| k == h).expect("a key");
        all.push((
            RouteChange {
                cycle: r.cycle,
                switch: s,
                slot,
                host: h,
                port: r.port,
            },
            what,
        ));
    }
    all.sort_by_key(|(c, _)| c.cycle);
    let walk = |routes: &[HashMap<usize, usize>], from: usize, h: usize| -> Result<(), String> {
        let mut s = from;
        for _ in 0..=routes.len() {
            let p = routes[s][&h];
            let (li, d) = port_link[s][p].expect("checked: on a link");
            match links[li].ends[1 - d] {
                End::Host(x) if x == h => return Ok(()),
                End::Host(x) => {
                    return Err(format!(
                        "frames for host {:?} from switch {:?} would reach host {:?}",
                        cfg.host[h].name, cfg.switch[from].name, cfg.host[x].name
                    ))
                }
                End::Port(s2, _) => s = s2,
            }
        }
        Err(format!(
            "frames for host {:?} from switch {:?} would loop",
            cfg.host[h].name, cfg.switch[from].name
        ))
    };
    let mut cur = routes.to_vec();
    let mut changes = vec![];
    let mut i = 0;
    while i < all.len() {
        let cycle = all[i].0.cycle;
        let group: Vec<&(RouteChange, String)> = all[i..]
            .iter()
            .take_while(|(c, _)| c.cycle == cycle)
            .collect();
        for (c, _) in &group {
            cur[c.switch].insert(c.host, c.port);
        }
        for (c, what) in &group {
            walk(&cur, c.switch, c.host).map_err(|e| format!("{what}: {e}"))?;
        }
        if cycle == 0 {
            routes.clone_from_slice(&cur);
        } else {
            changes.extend(group.iter().map(|(c, _)| *c));
        }
        i += group.len();
    }
    Ok(changes)
}

/// A switch's `engine` that runs its golden model
/// ([`crate::switch2_sim::ModelSwitch`]) at any size.
pub const MODEL_ENGINE: &str = "model";

/// Switch `c` with forwarding table `routes` on `engine`, or on its golden model (`None`).
fn build_switch(
    c: &SwitchCfg,
    routes: Vec<(bool, u32, u64)>,
    engine: Option<Engine>,
) -> Result<Box<dyn SwitchDev>, String> {
    let w = |what: &str| format!("switch {:?}: {what}", c.name);
    match c.buffer.as_deref() {
        None | Some("shared") => {}
        Some("crosspoint") => {
            return Err(w(
                "buffer = \"crosspoint\": the crosspoint switch was retired (2026-11-29); the switch has one buffer, shared (leave `buffer` out)",
            ))
        }
        Some(x) => return Err(w(&format!("buffer = {x:?}: the switch's buffer is \"shared\""))),
    }
    let mut s = SwitchSetup::new(c.ports);
    s.mode = c.mode;
    s.band_by_flags = c.band_by_flags;
    s.ret = c.ret;
    s.wrr = c.wrr;
    let r = |what: &str, v: Option<u64>, d: u64, lo: u64, hi: u64| {
        check_range(what, v.unwrap_or(d), lo, hi).map_err(|e| w(&e))
    };
    // the switch's limits are 32 bits of bytes and 16 of packets
    let (max_b, max_p) = (u32::MAX as u64, u16::MAX as u64);
    let lb = r("buffer_bytes", c.buffer_bytes, s.limit_bytes[0], 0, max_b)?;
    let lp = r("buffer_pkts", c.buffer_pkts, s.limit_pkts[0], 1, max_p)?;
    s.limit_bytes = [lb; BANDS];
    s.limit_pkts = [lp; BANDS];
    let opt = |what: &str, v: Option<u64>, lo: u64, hi: u64| {
        v.map(|x| r(what, Some(x), x, lo, hi)).transpose()
    };
    s.port_bytes = opt("port_bytes", c.port_bytes, 64, max_b)?;
    s.port_pkts = opt("port_pkts", c.port_pkts, 1, max_p)?;
    s.hdr_bytes = opt("hdr_bytes", c.hdr_bytes, 64, max_b)?;
    s.hdr_pkts = opt("hdr_pkts", c.hdr_pkts, 1, max_p)?;
    if (c.hdr_bytes.is_some() || c.hdr_pkts.is_some())
        && !matches!(c.mode, SwitchMode::Trim | SwitchMode::TofinoTrim)
    {
        return Err(w(
            "hdr_bytes and hdr_pkts limit trimmed headers: they need mode = \"trim\" or \"tofino-trim\"",
        ));
    }
    s.dt_a = c.dt_alpha.map(dt_exponent).transpose().map_err(|e| w(&e))?;
    s.cc_thresh = r("cc_thresh", c.cc_thresh, s.cc_thresh, 0, (1 << 20) - 1)?;
    s.mtu = r("mtu", c.mtu, s.mtu, 64, 4095)?;
    s.pru_cap = r("pru_cap", c.pru_cap, s.pru_cap, 0, 255)?;
    s.link_rate = r("link_rate", c.link_rate, s.link_rate, 0, 255)?;
    s.sm = c.sm;
    s.pipes = r("pipes", c.pipes, s.pipes, 1, 4)?;
    s.t0 = r("t0", c.t0, s.t0, 0, (1 << 24) - 1)?;
    s.t1 = r("t1", c.t1, s.t1, 0, (1 << 24) - 1)?;
    s.meter_burst = r(
        "meter_burst",
        c.meter_burst,
        s.meter_burst,
        64,
        (1 << 20) - 1,
    )?;
    s.routes = routes;
    let kib = c.shared_kib.unwrap_or(64);
    match engine {
        Some(e) => shared_switch(c.ports, kib, &s, e),
        None => model_switch(c.ports, kib, &s),
    }
    .map_err(|e| w(&e))
}

/// The shared switch's golden model ([`crate::switch2_sim::ModelSwitch`]) of `ports`
/// ports (2 to [`crate::switch2_sim::MAX_PORTS`]) and `kib` KiB, configured by `s`.
pub fn model_switch(ports: usize, kib: u64, s: &SwitchSetup) -> Result<Box<dyn SwitchDev>, String> {
    let m = crate::switch2_sim::ModelSwitch::new(ports, kib)?;
    Ok(Box::new(SwitchDriver::with_engine(m, s)?))
}

/// The shared-buffer switch (`nt_hdl::switch2`) of `ports` ports and `kib` KiB (one of
/// [`crate::switch2_sim::SHARED_KIB`]) in the mode and configuration of `s`: at 4 and 16
/// ports its RTL on `engine`; at the other sizes up to
/// [`crate::switch2_sim::MAX_PORTS`], its golden model
/// ([`crate::switch2_sim::ModelSwitch`], engine `model`, whatever `engine` is). Used by
/// `ntsim run` and `ntsim switch`.
pub fn shared_switch(
    ports: usize,
    kib: u64,
    s: &SwitchSetup,
    engine: Engine,
) -> Result<Box<dyn SwitchDev>, String> {
    use crate::switch2_sim::{
        SharedSwitch16M1, SharedSwitch16M16, SharedSwitch4M1, SharedSwitch4M16, SHARED_KIB,
    };
    use nt_hdl::switch2::{SharedSwitch16, SharedSwitch4};
    if ports != 4 && ports != 16 {
        return model_switch(ports, kib, s);
    }
    match (ports == 4, kib) {
        (true, 64) => shared_dev(engine, "switch2_p4", SharedSwitch4::new, s),
        (true, 1024) => shared_dev(engine, "switch2_p4_m1", SharedSwitch4M1::new, s),
        (true, 16384) => shared_dev(engine, "switch2_p4_m16", SharedSwitch4M16::new, s),
        (false, 64) => shared_dev(engine, "switch2_p16", SharedSwitch16::new, s),
        (false, 1024) => shared_dev(engine, "switch2_p16_m1", SharedSwitch16M1::new, s),
        (false, 16384) => shared_dev(engine, "switch2_p16_m16", SharedSwitch16M16::new, s),
        _ => Err(format!(
            "shared_kib = {kib}: the shared buffer comes in {SHARED_KIB:?} KiB"
        )),
    }
}

/// A shared switch `make` on `engine`: the native kernel, or its Verilog emitted as
/// `module` (verilated or compiled, cached).
fn shared_dev<B>(
    engine: Engine,
    module: &str,
    make: fn() -> B,
    s: &SwitchSetup,
) -> Result<Box<dyn SwitchDev>, String>
where
    B: rust_hdl::core::prelude::Block + nt_hdl::Clocked,
    crate::kernel::Kernel<B>: SwitchEngine + 'static,
{
    Ok(match engine.backend() {
        None => Box::new(SwitchDriver::with_engine(
            crate::kernel::Kernel::new(make()).map_err(|x| x.to_string())?,
            s,
        )?),
        Some(b) => Box::new(SwitchDriver::with_engine(
            crate::switch2_sim::VSwitch2::of_with(b, module, make)?,
            s,
        )?),
    })
}

fn build_host(c: &HostCfg, ip: u32, mac: u64, engine: Engine) -> Result<Box<dyn HostDev>, String> {
    let mut n = NicConfig::new(mac, ip);
    if let Some(v) = c.rtt_pkts {
        n.rtt_pkts = v;
    }
    if let Some(v) = c.timeout {
        n.timeout = v;
    }
    if let Some(v) = c.retries {
        n.max_retries = v;
    }
    let e = |x: String| format!("host {:?}: {x}", c.name);
    n.rx_timeout = check_timeouts(
        n.timeout,
        n.max_retries,
        c.rx_timeout,
        ["timeout", "retries", "rx_timeout"],
    )
    .map_err(e)?;
    if let Some(v) = c.pull_gap {
        n.pull_gap = v;
    }
    if let Some(v) = c.pace_nacks {
        n.pace_nacks = v;
    }
    let big = match c.messages.unwrap_or(16) {
        16 => false,
        128 => true,
        m => return Err(e(format!("messages = {m}: the NIC is built for 16 or 128"))),
    };
    if let Some(b) = engine.backend() {
        let v = VNic::of_program(b, &c.program, big).map_err(e)?;
        return Ok(Box::new(NicDriver::with_engine(v, n).map_err(e)?));
    }
    Ok(match (c.program.as_str(), big) {
        ("ndp", false) => Box::new(NicSim::new(NicNdp::new(), n).map_err(e)?),
        ("homa", false) => Box::new(NicSim::new(NicHoma::new(), n).map_err(e)?),
        ("homatr", false) => Box::new(NicSim::new(NicHomaTr::new(), n).map_err(e)?),
        ("ndp", true) => Box::new(NicSim::new(NicNdp128::new(), n).map_err(e)?),
        ("homa", true) => Box::new(NicSim::new(NicHoma128::new(), n).map_err(e)?),
        ("homatr", true) => Box::new(NicSim::new(NicHomaTr128::new(), n).map_err(e)?),
        ("bolt", false) => Box::new(NicSim::new(NicBolt::new(), n).map_err(e)?),
        ("bolt", true) => Box::new(NicSim::new(NicBolt128::new(), n).map_err(e)?),
        (p, _) => {
            return Err(e(format!(
                "unknown program {p:?}; known: ndp, homa, homatr, bolt"
            )))
        }
    })
}

/// The payload of message `id`: its index in the first [`TAG_BYTES`], then a pattern of
/// the index, so a delivery is matched to its message and checked byte for byte.
pub fn payload_of(id: usize, bytes: u64) -> Vec<u8> {
    let mut payload = vec![0u8; bytes as usize];
    payload[..TAG_BYTES].copy_from_slice(&(id as u64).to_be_bytes());
    for (j, b) in payload[TAG_BYTES..].iter_mut().enumerate() {
        *b = (j as u8).wrapping_mul(31).wrapping_add(id as u8);
    }
    payload
}

/// Host `i`'s MAC address.
pub fn host_mac(i: usize) -> u64 {
    0x0200_0000_0100 + i as u64
}

/// A link rate in Gb/s as a fraction of line rate, checked.
fn rate_fraction(g: Option<f64>) -> Result<f64, String> {
    let line = LINE_GBPS;
    match g {
        None => Ok(1.0),
        Some(g) if g > 0.0 && g <= line + 1e-9 => Ok((g / line).min(1.0)),
        Some(g) => Err(format!(
            "rate_gbps {g} must be above 0 and at most the line rate, {line} Gb/s (64 bits a cycle at 3.2 GHz)"
        )),
    }
}

fn pacer_of(rate: f64) -> Result<Pacer, String> {
    if rate >= 1.0 {
        return Ok(Pacer::line());
    }
    let num = (rate * 1_000_000.0).round().max(1.0) as u64;
    Pacer::new(num, 1_000_000)
}

impl Network {
    /// The rate in Gb/s at which host `h` can receive: its link's switch transmitter's
    /// (`rate_gbps`, line rate when not set).
    pub fn host_rx_gbps(&self, h: usize) -> f64 {
        self.host_link
            .get(h)
            .map(|&(li, _)| self.links[li].rate * LINE_GBPS)
            .unwrap_or(LINE_GBPS)
    }

    /// Builds the network of a topology. `files` reads a workload's file by name (relative
    /// to the topology's directory, say).
    pub fn build(
        cfg: &NetConfig,
        files: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<Self, String> {
        if cfg.host.is_empty() {
            return Err("topology: no [[host]]".into());
        }
        if cfg.sample_cycles == 0 {
            return Err("sample_cycles must be at least 1".into());
        }
        if cfg.max_cycles == 0 {
            return Err("max_cycles must be at least 1".into());
        }
        if cfg.threads == 0 || cfg.threads > 64 {
            return Err(format!("threads = {}: must be 1..=64", cfg.threads));
        }
        let mut names: HashMap<&str, &str> = HashMap::new();
        for (n, kind) in cfg
            .host
            .iter()
            .map(|h| (h.name.as_str(), "host"))
            .chain(cfg.switch.iter().map(|s| (s.name.as_str(), "switch")))
        {
            if n.is_empty() || n.contains(':') || n.contains('-') {
                return Err(format!(
                    "{kind} name {n:?}: names must be non-empty, without ':' or '-'"
                ));
            }
            if let Some(k) = names.insert(n, kind) {
                return Err(format!("the name {n:?} is used twice ({k} and {kind})"));
            }
        }
        let hosts: HashMap<&str, usize> = cfg
            .host
            .iter()
            .enumerate()
            .map(|(i, h)| (h.name.as_str(), i))
            .collect();
        let swmap: HashMap<&str, usize> = cfg
            .switch
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.as_str(), i))
            .collect();
        for s in &cfg.switch {
            crate::switch2_sim::model_size(s.ports, s.shared_kib.unwrap_or(64))
                .map_err(|e| format!("switch {:?}: {e}", s.name))?;
        }
        let ports: Vec<usize> = cfg.switch.iter().map(|s| s.ports).collect();
        let nh = cfg.host.len();
        // Host addresses.
        let mut host_ips = vec![];
        let mut seen_ip = HashMap::new();
        for (i, h) in cfg.host.iter().enumerate() {
            let ip = match &h.ip {
                Some(s) => {
                    parse_host_ip(s).map_err(|e| format!("host {:?}: ip {s:?}: {e}", h.name))?
                }
                None => 0x0a00_0001 + i as u32,
            };
            if let Some(o) = seen_ip.insert(ip, i) {
                return Err(format!(
                    "hosts {:?} and {:?} have the same IP",
                    cfg.host[o].name, h.name
                ));
            }
            host_ips.push(ip);
        }
        // Links.
        let mut used: HashMap<End, usize> = HashMap::new();
        let mut links = vec![];
        let mut host_link = vec![None; nh];
        let mut port_link: Vec<Vec<Option<(usize, usize)>>> =
            ports.iter().map(|&n| vec![None; n]).collect();
        for (li, l) in cfg.link.iter().enumerate() {
            let name = l.name();
            let ctx = |e: String| format!("link {name}: {e}");
            let a = parse_end(&l.a, &hosts, &swmap, &ports).map_err(ctx)?;
            let b = parse_end(&l.b, &hosts, &swmap, &ports).map_err(ctx)?;
            if a == b {
                return Err(format!("link {name}: both ends are the same"));
            }
            for e in [a, b] {
                if let Some(o) = used.insert(e, li) {
                    return Err(format!(
                        "link {name}: {} is already on link {}-{}",
                        match e {
                            End::Host(h) => format!("host {:?}", cfg.host[h].name),
                            End::Port(s, p) => format!("{}:{p}", cfg.switch[s].name),
                        },
                        cfg.link[o].a,
                        cfg.link[o].b
                    ));
                }
            }
            let [c0, c1] = l.dir_cfgs().map_err(ctx)?;
            let dir = [
                Link::new(c0, link_seed(cfg.seed, &name, 0)).map_err(ctx)?,
                Link::new(c1, link_seed(cfg.seed, &name, 1)).map_err(ctx)?,
            ];
            let rate = rate_fraction(l.rate_gbps).map_err(ctx)?;
            for (d, e) in [(0usize, a), (1, b)] {
                match e {
                    End::Host(h) => host_link[h] = Some((li, d)),
                    End::Port(s, p) => port_link[s][p] = Some((li, d)),
                }
            }
            let capture = cfg
                .output
                .pcap
                .contains(&name)
                .then(|| [Vec::new(), Vec::new()]);
            links.push(NetLink {
                name,
                ends: [a, b],
                end_names: [l.a.clone(), l.b.clone()],
                dir,
                delay: l.delay,
                rate,
                bytes: [0, 0],
                capture,
            });
        }
        for p in &cfg.output.pcap {
            if !links.iter().any(|l| &l.name == p) {
                return Err(format!(
                    "output.pcap {p:?}: no link of that name (a link is named A-B by its ends as written)"
                ));
            }
        }
        let host_link: Vec<(usize, usize)> = host_link
            .into_iter()
            .enumerate()
            .map(|(h, l)| l.ok_or_else(|| format!("host {:?} is on no link", cfg.host[h].name)))
            .collect::<Result<_, _>>()?;
        // Routes: breadth first from every host; a switch first reached over link `li`
        // sends toward the host on its port of that link.
        let mut routes: Vec<HashMap<usize, usize>> = vec![HashMap::new(); cfg.switch.len()];
        for h in 0..nh {
            let mut q = VecDeque::new();
            let (li, d) = host_link[h];
            if let End::Port(s, p) = links[li].ends[1 - d] {
                routes[s].insert(h, p);
                q.push_back(s);
            }
            while let Some(s) = q.pop_front() {
                for p in 0..ports[s] {
                    let Some((li, d)) = port_link[s][p] else {
                        continue;
                    };
                    if let End::Port(s2, p2) = links[li].ends[1 - d] {
                        if let std::collections::hash_map::Entry::Vacant(e) = routes[s2].entry(h) {
                            e.insert(p2);
                            q.push_back(s2);
                        }
                    }
                }
            }
        }
        let route_changes =
            route_overrides(cfg, &hosts, &swmap, &ports, &links, &port_link, &mut routes)?;
        // Devices.
        let mut devs = vec![];
        for (i, h) in cfg.host.iter().enumerate() {
            let engine = Engine::of(&h.engine, &cfg.engine)
                .map_err(|e| format!("host {:?}: {e}", h.name))?;
            devs.push(Dev::Host(build_host(h, host_ips[i], host_mac(i), engine)?));
        }
        for (s, c) in cfg.switch.iter().enumerate() {
            if routes[s].len() > ports[s] {
                return Err(format!(
                    "switch {:?} reaches {} hosts, but its forwarding table has one entry per port ({})",
                    c.name,
                    routes[s].len(),
                    ports[s]
                ));
            }
            let mut table: Vec<(bool, u32, u64)> = {
                let mut r: Vec<_> = routes[s].iter().collect();
                r.sort();
                r.into_iter()
                    .map(|(&h, &p)| (true, host_ips[h], p as u64))
                    .collect()
            };
            table.resize(ports[s], (false, 0, 0));
            // `model`: the switch's golden model, a switch's own choice only
            let engine =
                match c.engine.as_deref() {
                    Some(MODEL_ENGINE) => None,
                    _ => Some(Engine::of(&c.engine, &cfg.engine).map_err(|e| {
                        format!("switch {:?}: {e} (or, for a switch, model)", c.name)
                    })?),
                };
            let mut d = build_switch(c, table, engine)?;
            for p in 0..ports[s] {
                if let Some((li, _)) = port_link[s][p] {
                    d.set_pacer(p, pacer_of(links[li].rate)?)?;
                }
            }
            devs.push(Dev::Switch(d));
        }
        for name in &cfg.output.vcd {
            let i = match (hosts.get(name.as_str()), swmap.get(name.as_str())) {
                (Some(&h), _) => h,
                (_, Some(&s)) => nh + s,
                _ => {
                    return Err(format!(
                        "output.vcd {name:?}: no host or switch of that name"
                    ))
                }
            };
            let _ = i; // opened by `record_vcds`, which knows the output directory
        }
        let mut net = Network {
            name: cfg.name.clone().unwrap_or_else(|| "network".into()),
            host_names: cfg.host.iter().map(|h| h.name.clone()).collect(),
            host_ips,
            host_macs: (0..nh).map(host_mac).collect(),
            switch_names: cfg.switch.iter().map(|s| s.name.clone()).collect(),
            devs: devs.into_iter().map(Mutex::new).collect(),
            links,
            host_link,
            port_link,
            routes,
            route_changes: route_changes.into(),
            routes_changed: vec![],
            pending: vec![VecDeque::new(); nh],
            msgs: vec![],
            sent_idx: vec![vec![]; nh],
            outcomes_seen: vec![0; nh],
            max_cycles: cfg.max_cycles,
            sample_cycles: cfg.sample_cycles,
            threads: cfg.threads,
            now: 0,
            untagged: 0,
            corrupt: 0,
        };
        // Workloads.
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let host = |n: &str, what: &str| {
            hosts
                .get(n)
                .copied()
                .ok_or_else(|| format!("workload {what}: no host named {n:?}"))
        };
        let mut wanted: Vec<(usize, usize, u64, u64)> = vec![];
        for (wi, w) in cfg.workload.iter().enumerate() {
            let what = format!("{}", wi + 1);
            match w {
                Workload::Incast {
                    senders,
                    receiver,
                    sizes,
                    start,
                } => {
                    let r = host(receiver, &what)?;
                    if senders.is_empty() || sizes.is_empty() {
                        return Err(format!("workload {what} (incast): needs senders and sizes"));
                    }
                    for (i, s) in senders.iter().enumerate() {
                        let s = host(s, &what)?;
                        wanted.push((s, r, *start, sizes[i % sizes.len()]));
                    }
                }
                Workload::Messages { msg } => {
                    for m in msg {
                        wanted.push((host(&m.from, &what)?, host(&m.to, &what)?, m.cycle, m.bytes));
                    }
                }
                Workload::Poisson {
                    hosts: hs,
                    load,
                    sizes_file,
                    clamp_sizes,
                    start,
                    stop,
                } => {
                    let hs: Vec<usize> = if hs.is_empty() {
                        (0..nh).collect()
                    } else {
                        hs.iter()
                            .map(|h| host(h, &what))
                            .collect::<Result<_, _>>()?
                    };
                    if hs.len() < 2 {
                        return Err(format!("workload {what} (poisson): needs at least 2 hosts"));
                    }
                    if !(*load > 0.0 && *load <= 1.0) {
                        return Err(format!(
                            "workload {what} (poisson): load {load} must be in (0, 1]"
                        ));
                    }
                    if stop <= start {
                        return Err(format!(
                            "workload {what} (poisson): stop {stop} must be after start {start}"
                        ));
                    }
                    let cdf = read_cdf_clamped(&files(sizes_file)?, sizes_file, *clamp_sizes)?;
                    // Mean words per message → mean gap between arrivals at `load`.
                    let mut prev = 0.0;
                    let mut mean = 0.0;
                    for &(b, p) in &cdf {
                        mean += (p - prev) * wire_words(b) as f64;
                        prev = p;
                    }
                    let gap = mean / load;
                    for &h in &hs {
                        let mut t = *start as f64;
                        loop {
                            let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
                            t += -u.ln() * gap;
                            if t >= *stop as f64 {
                                break;
                            }
                            let others: Vec<usize> =
                                hs.iter().copied().filter(|&o| o != h).collect();
                            let d = others[rng.gen_range(0..others.len())];
                            wanted.push((h, d, t as u64, sample_cdf(&cdf, &mut rng)));
                        }
                    }
                }
            }
        }
        for (s, d, c, b) in wanted {
            net.add_message(s, d, c, b)?;
        }
        Ok(net)
    }

    /// The index of a device by name: hosts first, then switches.
    pub fn device_index(&self, name: &str) -> Option<usize> {
        self.host_names
            .iter()
            .chain(self.switch_names.iter())
            .position(|n| n == name)
    }

    /// Records the signals of device `i` ([`Network::device_index`]) that `opts` selects to
    /// `w` from now on ([`crate::vcd`]; `opts.top` is the device's name when empty).
    pub fn record_vcd(
        &mut self,
        i: usize,
        w: crate::vcd::WaveFile,
        opts: &crate::vcd::WaveOpts,
    ) -> Result<(), String> {
        let mut opts = opts.clone();
        if opts.top.is_empty() {
            opts.top = self
                .host_names
                .iter()
                .chain(self.switch_names.iter())
                .nth(i)
                .cloned()
                .unwrap_or_else(|| format!("dev{i}"));
        }
        let d = self
            .devs
            .get_mut(i)
            .ok_or_else(|| format!("no device {i}"))?
            .get_mut()
            .map_err(|_| "device lock poisoned".to_string())?;
        match d {
            Dev::Host(h) => h.record_vcd(w, &opts),
            Dev::Switch(s) => s.record_vcd(w, &opts),
        }
    }

    /// Queues a message of `bytes` from host `src` to host `dst`, offered from `cycle`.
    pub fn add_message(
        &mut self,
        src: usize,
        dst: usize,
        cycle: u64,
        bytes: u64,
    ) -> Result<usize, String> {
        let nh = self.host_names.len();
        if src >= nh || dst >= nh {
            return Err(format!("a message between hosts {src} and {dst} of {nh}"));
        }
        if src == dst {
            return Err(format!(
                "a message from host {:?} to itself",
                self.host_names[src]
            ));
        }
        if bytes < TAG_BYTES as u64 || bytes > MAX_MSG_BYTES {
            return Err(format!(
                "a message of {bytes} bytes: sizes must be {TAG_BYTES}..={MAX_MSG_BYTES} (its first {TAG_BYTES} bytes tag it)"
            ));
        }
        let ideal = self.ideal(src, dst, bytes).ok_or_else(|| {
            format!(
                "no path from host {:?} to host {:?}",
                self.host_names[src], self.host_names[dst]
            )
        })?;
        let id = self.msgs.len();
        let payload = payload_of(id, bytes);
        self.msgs.push(MsgRecord {
            src,
            dst,
            bytes,
            start: cycle,
            done: None,
            outcome: None,
            ideal,
            deliveries: 0,
        });
        let m = AppMsg {
            cycle,
            dst_ip: self.host_ips[dst],
            dst_port: 1,
            src_port: 1,
            payload,
        };
        // Each host's queue in start order: the NIC offers messages in queue order.
        let q = &mut self.pending[src];
        let at = q.partition_point(|(_, x)| x.cycle <= cycle);
        q.insert(at, (id, m));
        Ok(id)
    }

    /// Ideal completion of a message alone in the network: the application writes the
    /// first packet's payload into the NIC (a header word and 8 bytes a cycle; later
    /// packets are written while earlier ones are sent); the first packet (`W` words)
    /// crosses every link (`max(delay, W)`: a link delivers whole frames) and is stored and
    /// forwarded by every switch (`W + 6`); the message's words follow at the slowest link
    /// of the path; then the receiving NIC hands the message to its application (a header
    /// word and 8 bytes a cycle). It leaves out the NICs' pipelines (15 cycles in all for
    /// NDP), so an unloaded message's slowdown is slightly above 1. `None` without a path.
    pub fn ideal(&self, src: usize, dst: usize, bytes: u64) -> Option<u64> {
        let w1 = wire_words(bytes.min(PKT_BYTES));
        let copy_in = 1 + bytes.min(PKT_BYTES).div_ceil(8);
        let copy_out = 1 + bytes.div_ceil(8);
        let (mut li, mut d) = self.host_link[src];
        let mut delay = 0u64;
        let mut slow = 1.0f64;
        let mut hops = 0u64;
        for _ in 0..=self.port_link.len() {
            delay += self.links[li].delay.max(w1);
            match self.links[li].ends[1 - d] {
                End::Host(h) => {
                    if h != dst {
                        return None;
                    }
                    let w = wire_words(bytes) as f64 / slow;
                    return Some(
                        copy_in
                            + delay
                            + hops * (w1 + IDEAL_SWITCH_EXTRA)
                            + w.ceil() as u64
                            + copy_out,
                    );
                }
                End::Port(s, _) => {
                    hops += 1;
                    let p = *self.routes[s].get(&dst)?;
                    let (l2, d2) = self.port_link[s][p]?;
                    slow = slow.min(self.links[l2].rate);
                    li = l2;
                    d = d2;
                }
            }
        }
        None
    }

    /// The current cycle.
    pub fn cycle(&self) -> u64 {
        self.now
    }

    /// Messages with no delivery and no final outcome yet.
    pub fn open_messages(&self) -> usize {
        self.msgs.iter().filter(|m| !m.resolved()).count()
    }

    /// Applies the `[[route]]` changes due by now to their switches' tables.
    fn apply_routes(&mut self, devs: &mut [&mut Dev]) -> Result<(), String> {
        let nh = self.host_names.len();
        while self
            .route_changes
            .front()
            .is_some_and(|c| c.cycle <= self.now)
        {
            let c = self.route_changes.pop_front().expect("front");
            if let Dev::Switch(x) = &mut *devs[nh + c.switch] {
                x.set_route(c.slot, true, self.host_ips[c.host], c.port as u64)?;
            }
            self.routes[c.switch].insert(c.host, c.port);
            self.routes_changed.push(c);
        }
        Ok(())
    }

    /// Moves what is due between cycles: messages to their NICs, frames that arrived to
    /// their devices.
    fn deliver(&mut self, devs: &mut [&mut Dev]) {
        let now = self.now;
        for (h, q) in self.pending.iter_mut().enumerate() {
            while q.front().is_some_and(|(_, m)| m.cycle <= now) {
                let (id, m) = q.pop_front().expect("front");
                if let Dev::Host(d) = &mut *devs[h] {
                    d.send(m);
                    self.sent_idx[h].push(id);
                }
            }
        }
        let nh = self.host_names.len();
        for l in &mut self.links {
            for d in 0..2 {
                for mut p in l.dir[d].arrivals(now) {
                    match (
                        l.ends[1 - d],
                        &mut *devs[match l.ends[1 - d] {
                            End::Host(h) => h,
                            End::Port(s, _) => nh + s,
                        }],
                    ) {
                        (End::Host(h), Dev::Host(x)) => {
                            // The last hop's router rewrites the Ethernet destination
                            // (the switch block forwards by IP and keeps Ethernet
                            // headers; a NIC takes only frames to its own MAC); on a
                            // host-to-host link the sender's next hop is its peer, whose
                            // MAC goes there too.
                            if p.bytes.len() >= 6 {
                                p.bytes[..6].copy_from_slice(&self.host_macs[h].to_be_bytes()[2..]);
                            }
                            x.push_rx(p)
                        }
                        (End::Port(_, port), Dev::Switch(x)) => x.push_rx(port, p),
                        _ => {}
                    }
                }
            }
        }
    }

    /// Gathers what the devices did in the cycle just run: frames into links, deliveries
    /// and outcomes into the message records.
    fn collect(&mut self, devs: &mut [&mut Dev], series: &mut Series) {
        let now = self.now;
        let nh = self.host_names.len();
        for (i, dev) in devs.iter_mut().enumerate() {
            match &mut **dev {
                Dev::Host(h) => {
                    let (li, d) = self.host_link[i];
                    for p in h.take_tx() {
                        put(&mut self.links[li], d, &p);
                        if let Some(v) = series.host_tx.get_mut(i) {
                            // Over the cycles its words left the MAC, 8 bytes a cycle
                            // (its last word left in this cycle at the latest), so that
                            // no interval counts more than line rate.
                            let len = p.bytes.len() as u64;
                            let last = (p.cycle + len.div_ceil(8)).saturating_sub(1).min(now);
                            spread_delivery(v, self.sample_cycles, last, len);
                        }
                    }
                    for dl in h.take_delivered() {
                        if let Some(v) = series.host_rx.get_mut(i) {
                            spread_delivery(
                                v,
                                self.sample_cycles,
                                dl.cycle,
                                dl.payload.len() as u64,
                            );
                        }
                        let id = (dl.payload.len() >= TAG_BYTES).then(|| {
                            u64::from_be_bytes(dl.payload[..TAG_BYTES].try_into().expect("8"))
                                as usize
                        });
                        match id.and_then(|id| self.msgs.get_mut(id).map(|m| (id, m))) {
                            Some((id, m)) if m.dst == i => {
                                m.deliveries += 1;
                                if dl.payload != payload_of(id, m.bytes) {
                                    self.corrupt += 1
                                } else if m.done.is_none() {
                                    m.done = Some(dl.cycle)
                                }
                            }
                            _ => self.untagged += 1,
                        }
                    }
                    let seen = self.outcomes_seen[i];
                    let new = h.outcomes_from(seen);
                    self.outcomes_seen[i] += new.len();
                    for (k, o, _) in new {
                        if let Some(&id) = self.sent_idx[i].get(k) {
                            self.msgs[id].outcome = Some(o);
                        }
                    }
                }
                Dev::Switch(s) => {
                    let si = i - nh;
                    for (port, p) in s.take_tx() {
                        if let Some((li, d)) = self.port_link[si][port] {
                            put(&mut self.links[li], d, &p);
                        }
                    }
                }
            }
        }
        let _ = now;
    }

    /// Runs until every message is resolved (delivered and acknowledged, or given up, or
    /// refused), nothing is in flight and every device has been idle for [`QUIET_CYCLES`],
    /// or `max_cycles`. `progress` is called about once a second of wall time with the
    /// cycle and the open messages.
    pub fn run(&mut self, progress: &mut dyn FnMut(u64, usize)) -> Result<RunResult, String> {
        let t0 = std::time::Instant::now();
        let mut last_progress = t0;
        let nh = self.host_names.len();
        let mut series = Series::default();
        // Queue columns: every switch port on a link.
        for (s, pl) in self.port_link.iter().enumerate() {
            for (p, l) in pl.iter().enumerate() {
                if l.is_some() {
                    series.queue_cols.push((s, p));
                }
            }
        }
        series.queue = vec![vec![]; series.queue_cols.len()];
        // The last bucket is the interval in progress.
        series.host_tx = vec![vec![0]; nh];
        series.host_rx = vec![vec![0]; nh];
        series.host_window = vec![vec![]; nh];
        let threads = self.threads;
        let n = self.devs.len();
        let mut quiet = 0u64;
        let mut settled = false;
        let mut first = true;
        let devs = std::mem::take(&mut self.devs);
        let result = {
            let me = &mut *self;
            let devs_ref = &devs;
            lockstep(
                n,
                threads,
                |i| {
                    devs_ref[i]
                        .lock()
                        .map_err(|_| "device lock poisoned".to_string())?
                        .step()
                },
                || {
                    let mut guards: Vec<_> = devs_ref
                        .iter()
                        .map(|d| d.lock().map_err(|_| "device lock poisoned".to_string()))
                        .collect::<Result<_, _>>()?;
                    let mut ds: Vec<&mut Dev> = guards.iter_mut().map(|g| &mut **g).collect();
                    if !first {
                        me.collect(&mut ds, &mut series);
                        me.now += 1;
                        let idle = ds.iter().all(|d| match d {
                            Dev::Host(h) => h.idle(),
                            Dev::Switch(s) => s.idle(),
                        });
                        quiet = if idle { quiet + 1 } else { 0 };
                        if me.now % me.sample_cycles == 0 {
                            sample(me, &ds, &mut series);
                        }
                    }
                    first = false;
                    let in_flight: usize = me
                        .links
                        .iter()
                        .map(|l| l.dir[0].in_flight() + l.dir[1].in_flight())
                        .sum();
                    let unresolved: usize = ds
                        .iter()
                        .map(|d| match d {
                            Dev::Host(h) => h.unresolved(),
                            _ => 0,
                        })
                        .sum();
                    let pending: usize = me.pending.iter().map(|q| q.len()).sum();
                    if quiet >= QUIET_CYCLES && in_flight == 0 && unresolved == 0 && pending == 0 {
                        settled = true;
                        return Ok(false);
                    }
                    if me.now >= me.max_cycles {
                        return Ok(false);
                    }
                    if last_progress.elapsed().as_secs_f64() >= 1.0 {
                        last_progress = std::time::Instant::now();
                        progress(me.now, me.open_messages());
                    }
                    me.apply_routes(&mut ds)?;
                    me.deliver(&mut ds);
                    Ok(true)
                },
            )
        };
        self.devs = devs;
        result?;
        // Every device's counters: the hosts come first, then the switches.
        let (mut host_stats, mut switch_stats) = (vec![], vec![]);
        for d in &self.devs {
            match &*d.lock().expect("lock") {
                Dev::Host(h) => host_stats.push(h.stats()),
                Dev::Switch(s) => switch_stats.push(s.stats()),
            }
        }
        Ok(RunResult {
            cycles: self.now,
            settled,
            series,
            switch_stats,
            host_stats,
            wall_secs: t0.elapsed().as_secs_f64(),
        })
    }
}

/// A frame into one direction of a link.
fn put(l: &mut NetLink, d: usize, p: &Packet) {
    l.bytes[d] += p.bytes.len() as u64;
    if let Some(c) = l.capture.as_mut() {
        c[d].push(p.clone());
    }
    l.dir[d].send(p);
}

/// Adds a delivered message's `bytes` to the receive series `v` (one element per sample
/// interval of `period` cycles, the last still open) in the intervals of the cycles its
/// words left `app_rx`: 8 bytes a cycle, the last word at cycle `last` (the application
/// interface hands a message over word by word, so a 38 KiB message spans 4,864 cycles,
/// not the one it completes in). The send series counts a frame the same way, over the
/// cycles its words left the MAC.
#[doc(hidden)]
pub fn spread_delivery(v: &mut [u64], period: u64, last: u64, bytes: u64) {
    let Some(top) = v.len().checked_sub(1) else {
        return;
    };
    let first = last.saturating_sub(bytes.div_ceil(8).saturating_sub(1));
    let mut left = bytes;
    let mut cyc = last;
    while left > 0 {
        let j = ((cyc / period.max(1)) as usize).min(top);
        let start = j as u64 * period;
        let span = cyc - start.max(first).min(cyc) + 1;
        let b = left.min(span * 8);
        v[j] += b;
        left -= b;
        if j == 0 || start <= first {
            v[j] += left;
            break;
        }
        cyc = start - 1;
    }
}

/// One sample of the time series.
fn sample(net: &Network, devs: &[&mut Dev], s: &mut Series) {
    let nh = net.host_names.len();
    s.cycles.push(net.now);
    for (c, &(sw, port)) in s.queue_cols.iter().enumerate() {
        let q = match &*devs[nh + sw] {
            Dev::Switch(x) => x.stats()[port].occ_bytes.iter().sum(),
            _ => 0,
        };
        s.queue[c].push(q);
    }
    for v in s.host_tx.iter_mut().chain(s.host_rx.iter_mut()) {
        v.push(0);
    }
    for (h, v) in s.host_window.iter_mut().enumerate() {
        v.push(match &*devs[h] {
            Dev::Host(x) => x.window(),
            _ => 0,
        });
    }
}
