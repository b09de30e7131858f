//! `ntsim switch`: the switch (the shared-buffer one, `nt_hdl::switch2`) driven from
//! packet captures, one per input port.
//!
//! * `--in-port K=IN.pcap` (repeatable): Ethernet frames entering port `K`'s MAC RX, in
//!   timestamp order (stable: equal timestamps keep their file order; as `ntsim nic`),
//!   each at its timestamp in cycles (1 ns = 1 cycle, see [`crate::pcap`]) or right after
//!   the frame before it on that port.
//! * `--out DIR` (formerly `--out-dir`, still accepted): `DIR/port<K>.pcap` for every port, each frame stamped with the cycle
//!   of its first word; `DIR/stats.json`, the counters of every port (`drop_malformed`:
//!   frames dropped for a bad header at ingress or, found as they are stored, a length
//!   other than their IPv4 length's; `trimmed` counts a frame when it is decided, so
//!   also those then dropped as malformed). The directory and the files are created
//!   before the run starts.
//! * The forwarding table: `--route A.B.C.D=PORT` (repeatable, at most one per port and
//!   one per address), by default `10.0.0.(1+K) -> K`.
//! * The buffer: `--shared-kib` (64, the emitted Verilog's, 1024 or 16384), the limits
//!   `--buffer-bytes` and `--buffer-pkts` per output and band; `--engine` native (the
//!   default), verilator or compiled, as in `ntsim run`.
//!
//! The run ends when every input frame has entered and the switch has been idle (nothing
//! queued, nothing on TX) for `quiet_cycles` (at least 1), or at `max_cycles` (at least 1),
//! which is reported with the input frames it left unsent.
use crate::net::{shared_switch, Engine, SwitchDev};
use crate::nic_cli::{fmt_ip, parse_ip};
use crate::pcap::{create_output, read_input_pcap, write_pcap_to, Packet};
use crate::switch_workload::SwitchSetup;
use nt_hdl::mode::SwitchMode;
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Everything `ntsim switch` takes.
#[derive(Clone, Debug, clap::Args)]
pub struct SwitchArgs {
    /// Ports, 2 to 64: 4 and 16 run the RTL on `--engine`; the other sizes run the
    /// switch's golden model (engine `model`).
    #[arg(long, default_value_t = 4)]
    pub ports: usize,
    /// A mode of `nt_hdl::mode::MODES`: droptail, trim, tofino-trim or bolt.
    #[arg(long, default_value = "droptail", value_parser = crate::listed::Listed::modes())]
    pub mode: String,
    /// K=IN.pcap, repeatable; frames enter in timestamp order (stable).
    #[arg(long = "in-port")]
    pub inputs: Vec<String>,
    /// A.B.C.D=PORT, repeatable, each address once (default 10.0.0.(1+K) -> K).
    #[arg(long = "route")]
    pub routes: Vec<String>,
    /// Output directory: `port<K>.pcap` per port and `stats.json` (created; `--out-dir`
    /// is an older name of it).
    #[arg(long = "out", alias = "out-dir", value_name = "DIR")]
    pub out_dir: PathBuf,
    /// Return trimmed headers to their sender when the header band is full.
    #[arg(long)]
    pub ret: bool,
    /// Weighted round robin among bands instead of strict priority.
    #[arg(long)]
    pub wrr: bool,
    /// Bands from the transport flags instead of the IPv4 tos.
    #[arg(long)]
    pub band_by_flags: bool,
    /// The shared buffer, KiB: 64 (the emitted Verilog's), 1024 or 16384.
    #[arg(long, default_value_t = 64)]
    pub shared_kib: u64,
    /// Bytes each (output, band) may hold (up to 4294967295).
    #[arg(long, default_value_t = 16 * 1024)]
    pub buffer_bytes: u64,
    /// Packets each (output, band) may hold (1..=65535).
    #[arg(long, default_value_t = 64)]
    pub buffer_pkts: u64,
    /// The engine: native (the rust-hdl block on our kernel), verilator or compiled (its
    /// Verilog verilated, or compiled to Rust; built once and cached).
    #[arg(long, default_value = "native", value_parser = crate::listed::Listed::engines())]
    pub engine: String,
    /// Bolt: CC_THRESH, bytes queued at an output port (0..=1048575).
    #[arg(long, default_value_t = 1088)]
    pub cc_thresh: u64,
    /// Bolt: the MTU in bytes, the SM cap and token size (64..=4095).
    #[arg(long, default_value_t = 1088)]
    pub mtu: u64,
    /// Bolt: the PRU token cap per output port (0..=255).
    #[arg(long, default_value_t = 255)]
    pub pru_cap: u64,
    /// Bolt: the link rate stamped into SRC packets (0..=255, e.g. Gb/s).
    #[arg(long, default_value_t = 200)]
    pub link_rate: u64,
    /// Bolt: supply matching off: an INC-marked data packet keeps INC only where it
    /// spends a PRU token (--pru-cap 0 turns PRU off).
    #[arg(long)]
    pub no_sm: bool,
    /// Tofino-style trimming: ingress pipes (1..=4); input K is in pipe K*pipes/ports.
    #[arg(long, default_value_t = 4)]
    pub pipes: u64,
    /// Tofino-style trimming: pessimistic period after a congestion signal, cycles
    /// (0..=16777215; default 6 µs at 3.2 GHz). --t0 0 --t1 0 turns the control loop off.
    #[arg(long, default_value_t = crate::switch_workload::TOFINO_T_DEFAULT)]
    pub t0: u64,
    /// Tofino-style trimming: the half-pessimistic period that follows, cycles.
    #[arg(long, default_value_t = crate::switch_workload::TOFINO_T_DEFAULT)]
    pub t1: u64,
    /// Tofino-style trimming: the ingress meters' burst (virtual queue), bytes (64..=1048575).
    #[arg(long, default_value_t = 16 * 1024)]
    pub meter_burst: u64,
    /// Idle cycles after the last input that end the run (at least 1).
    #[arg(long, default_value_t = 500)]
    pub quiet_cycles: u64,
    /// Hard limit on the run (at least 1); input stamped later is not sent (reported).
    #[arg(long, default_value_t = 5_000_000)]
    pub max_cycles: u64,
}

/// `ntsim switch`: runs and prints a summary line.
pub fn main(a: &SwitchArgs) -> Result<(), String> {
    let r = run_switch_cli(a)?;
    let stop = if r.hit_max_cycles {
        " (stopped at --max-cycles)"
    } else {
        ""
    };
    let late = if r.frames_not_in > 0 {
        format!(
            " ({} frames after --max-cycles {} not sent)",
            r.frames_not_in, a.max_cycles
        )
    } else {
        String::new()
    };
    println!(
        "switch: {} cycles{stop}, {} frames in{late}, frames out per port {:?}; captures in {}",
        r.cycles,
        r.frames_in,
        r.frames_out,
        a.out_dir.display()
    );
    Ok(())
}

/// What a run did.
#[derive(Debug)]
pub struct SwitchReport {
    pub cycles: u64,
    /// Input frames whose first word entered the switch.
    pub frames_in: usize,
    /// Input frames that did not start entering before the run ended (`--max-cycles`).
    pub frames_not_in: usize,
    pub frames_out: Vec<usize>,
    pub hit_max_cycles: bool,
}

fn setup(a: &SwitchArgs) -> Result<SwitchSetup, String> {
    if !(2..=crate::switch2_sim::MAX_PORTS).contains(&a.ports) {
        return Err(format!(
            "--ports {}: a switch has 2 to {} ports",
            a.ports,
            crate::switch2_sim::MAX_PORTS
        ));
    }
    let mut s = SwitchSetup::new(a.ports);
    s.mode = SwitchMode::parse(&a.mode).map_err(|_| {
        format!(
            "unknown --mode {:?}; known: {}",
            a.mode,
            SwitchMode::names()
        )
    })?;
    for (name, v, lo, hi) in [
        ("--cc-thresh", a.cc_thresh, 0, (1 << 20) - 1),
        ("--mtu", a.mtu, 64, 4095),
        ("--pru-cap", a.pru_cap, 0, 255),
        ("--link-rate", a.link_rate, 0, 255),
        ("--pipes", a.pipes, 1, 4),
        ("--t0", a.t0, 0, (1 << 24) - 1),
        ("--t1", a.t1, 0, (1 << 24) - 1),
        ("--meter-burst", a.meter_burst, 64, (1 << 20) - 1),
        ("--buffer-bytes", a.buffer_bytes, 0, u32::MAX as u64),
        ("--buffer-pkts", a.buffer_pkts, 1, u16::MAX as u64),
    ] {
        if !(lo..=hi).contains(&v) {
            return Err(format!("{name} {v}: must be {lo}..={hi}"));
        }
    }
    s.limit_bytes = [a.buffer_bytes; nt_hdl::sadm::BANDS];
    s.limit_pkts = [a.buffer_pkts; nt_hdl::sadm::BANDS];
    s.cc_thresh = a.cc_thresh;
    s.mtu = a.mtu;
    s.pru_cap = a.pru_cap;
    s.link_rate = a.link_rate;
    s.sm = !a.no_sm;
    s.pipes = a.pipes;
    s.t0 = a.t0;
    s.t1 = a.t1;
    s.meter_burst = a.meter_burst;
    s.ret = a.ret;
    s.wrr = a.wrr;
    s.band_by_flags = a.band_by_flags;
    if !a.routes.is_empty() {
        if a.routes.len() > a.ports {
            return Err(format!(
                "{} routes for a {}-port switch: at most one per port",
                a.routes.len(),
                a.ports
            ));
        }
        s.routes = vec![(false, 0, 0); a.ports];
        let mut seen: Vec<(u32, &str)> = vec![];
        for (k, r) in a.routes.iter().enumerate() {
            let (ip, port) = r
                .split_once('=')
                .ok_or_else(|| format!("bad --route {r:?} (want A.B.C.D=PORT)"))?;
            let port: usize = port
                .parse()
                .map_err(|_| format!("bad --route {r:?}: port {port:?} is not a number"))?;
            if port >= a.ports {
                return Err(format!("bad --route {r:?}: port {port} >= {}", a.ports));
            }
            let ip = parse_ip(ip).map_err(|e| format!("bad --route {r:?}: {e}"))?;
            if let Some((_, first)) = seen.iter().find(|(x, _)| *x == ip) {
                return Err(format!(
                    "--route {r:?}: {} is routed twice (first by --route {first:?})",
                    fmt_ip(ip)
                ));
            }
            seen.push((ip, r));
            s.routes[k] = (true, ip, port as u64);
        }
    }
    Ok(s)
}

/// Reads the `K=IN.pcap` arguments into per-port frame lists.
fn inputs(a: &SwitchArgs) -> Result<Vec<Vec<Packet>>, String> {
    let mut per = vec![vec![]; a.ports];
    let mut seen = vec![false; a.ports];
    for spec in &a.inputs {
        let (k, path) = spec
            .split_once('=')
            .ok_or_else(|| format!("bad --in-port {spec:?} (want K=IN.pcap)"))?;
        let k: usize = k
            .parse()
            .map_err(|_| format!("bad --in-port {spec:?}: port {k:?} is not a number"))?;
        if k >= a.ports {
            return Err(format!("bad --in-port {spec:?}: port {k} >= {}", a.ports));
        }
        if seen[k] {
            return Err(format!("--in-port {k} given twice"));
        }
        seen[k] = true;
        per[k] = read_input_pcap(Path::new(path))?;
    }
    Ok(per)
}

/// Runs `ntsim switch`.
pub fn run_switch_cli(a: &SwitchArgs) -> Result<SwitchReport, String> {
    for (name, v) in [
        ("--quiet-cycles", a.quiet_cycles),
        ("--max-cycles", a.max_cycles),
    ] {
        if v == 0 {
            return Err(format!(
                "{name} 0: must be at least 1 cycle (0 would end the run before any input entered)"
            ));
        }
    }
    let s = setup(a)?;
    let engine = Engine::parse(&a.engine).map_err(|e| format!("--engine: {e}"))?;
    if !crate::switch2_sim::SHARED_KIB.contains(&a.shared_kib) {
        return Err(format!(
            "--shared-kib {}: the shared buffer comes in {:?} KiB",
            a.shared_kib,
            crate::switch2_sim::SHARED_KIB
        ));
    }
    let per = inputs(a)?;
    // The outputs exist before the run: a bad directory fails now, not after it.
    std::fs::create_dir_all(&a.out_dir)
        .map_err(|e| format!("--out {}: cannot create: {e}", a.out_dir.display()))?;
    let files = (0..a.ports)
        .map(|p| {
            let path = a.out_dir.join(format!("port{p}.pcap"));
            Ok((create_output("--out", &path)?, path))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let stats = a.out_dir.join("stats.json");
    let stats = (create_output("--out", &stats)?, stats);
    let sim = shared_switch(a.ports, a.shared_kib, &s, engine)?;
    run(sim, per, a, files, stats)
}

fn run(
    mut sim: Box<dyn SwitchDev>,
    per: Vec<Vec<Packet>>,
    a: &SwitchArgs,
    mut files: Vec<(File, PathBuf)>,
    mut stats_file: (File, PathBuf),
) -> Result<SwitchReport, String> {
    let frames_total: usize = per.iter().map(|p| p.len()).sum();
    for (p, frames) in per.into_iter().enumerate() {
        for f in frames {
            sim.push_rx(p, f);
        }
    }
    let mut out: Vec<Vec<Packet>> = vec![vec![]; a.ports];
    let mut quiet = 0u64;
    let mut hit_max = true;
    for _ in 0..a.max_cycles {
        sim.step()?;
        for (p, f) in sim.take_tx() {
            out[p].push(f);
        }
        quiet = if sim.idle() { quiet + 1 } else { 0 };
        if quiet >= a.quiet_cycles {
            hit_max = false;
            break;
        }
    }
    let stats = sim.stats();
    for ((f, path), frames) in files.iter_mut().zip(&out) {
        write_pcap_to(f, path, frames)?;
    }
    let json: Vec<String> = stats
        .iter()
        .enumerate()
        .map(|(p, s)| {
            format!(
                "{{\"port\": {p}, \"rx_frames\": {}, \"tx_frames\": {}, \"drop_malformed\": {}, \"drop_no_route\": {}, \"drop_full\": {}, \"trimmed\": {}, \"returned\": {}, \"drop_header\": {}, \"src_sent\": {}, \"src_drop\": {}, \"pru_tokens\": {}, \"sm_bytes\": {}, \"dod_trims\": {}, \"dod_drop\": {}}}",
                s.rx_frames, s.tx_frames, s.drop_malformed, s.drop_no_route, s.drop_full, s.trimmed, s.returned, s.drop_header, s.src_sent, s.src_drop, s.pru, s.sm, s.dod_trims, s.dod_drop
            )
        })
        .collect();
    let (f, path) = &mut stats_file;
    f.write_all(format!("[\n  {}\n]\n", json.join(",\n  ")).as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let not_in = sim.rx_backlog();
    Ok(SwitchReport {
        cycles: sim.cycle(),
        frames_in: frames_total - not_in,
        frames_not_in: not_in,
        frames_out: out.iter().map(|o| o.len()).collect(),
        hit_max_cycles: hit_max,
    })
}
