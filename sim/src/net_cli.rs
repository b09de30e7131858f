//! `ntsim run <scenario.toml | NAME>`: builds a network ([`crate::net`]) from a topology
//! file or a built-in scenario ([`crate::net_scenarios`]), runs it with a progress line on
//! stderr (with an estimate of the time left), and writes its outputs
//! ([`crate::net_report`]) into `--out DIR/<run name>`, with `run.json`: what ran (the
//! resolved topology, seed, engine, ntsim's version and source commit, warnings) and its
//! summary numbers.
use crate::net::{NetConfig, Network, RunResult};
use crate::net_report::{goodput_gbps, jain, quantile, slowdowns, write_outputs};
use crate::net_scenarios;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};

/// Everything `ntsim run` takes.
#[derive(Clone, Debug, clap::Args)]
pub struct RunArgs {
    /// A topology file (TOML) or a built-in scenario's name (`--list`).
    pub scenario: Option<String>,
    /// Output directory; each run writes into DIR/<run name>.
    #[arg(long, default_value = "out/run")]
    pub out: PathBuf,
    /// Threads to step the devices on (overrides the file's `threads`).
    #[arg(long)]
    pub threads: Option<usize>,
    /// What steps the devices that do not name their own: `native` (our kernel on the
    /// rust-hdl blocks), `verilator` (each block's emitted Verilog, verilated once and
    /// cached) or `compiled` (the same Verilog compiled to Rust by our compiler, built once
    /// with rustc and cached); overrides the file's `engine`.
    #[arg(long, value_parser = ["native", "verilator", "compiled"])]
    pub engine: Option<String>,
    /// Overrides the file's `max_cycles`.
    #[arg(long)]
    pub max_cycles: Option<u64>,
    /// Overrides the file's `seed`.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Changes a setting of the topology before it is read (repeatable): `seed=7`,
    /// `host.rtt_pkts=6` (every host), `host[h1].rtt_pkts=6` (the host named h1),
    /// `switch.port_bytes=65536`, `switch.mode=trim` (docs/network.md "Overrides").
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Devices whose signals go to DIR/<run>/<device>.vcd (repeatable; adds to the file's
    /// `[output] vcd`), on the native or the compiled engine.
    #[arg(long = "vcd", value_name = "DEVICE")]
    pub vcd: Vec<String>,
    /// Records only the scopes and signals whose dotted path matches GLOB, such as
    /// `h1.reassembly`, `h1.parser.*` or `*.ready` (repeatable; `*` any characters, `?`
    /// one; replaces the file's `[output] vcd_scope`).
    #[arg(long = "vcd-scope", value_name = "GLOB")]
    pub vcd_scope: Vec<String>,
    /// Records only cycles FROM to TO (`1000..2000`; `5000..` to the end; replaces the
    /// file's `[output] vcd_cycles`).
    #[arg(long = "vcd-cycles", value_name = "FROM..TO")]
    pub vcd_cycles: Option<String>,
    /// The waveforms' format: `vcd` (DIR/<run>/<device>.vcd) or `fst` (<device>.fst, far
    /// smaller; GTKWave and Surfer read both); replaces the file's `[output] wave_format`.
    #[arg(long = "wave-format", value_name = "FORMAT", value_parser = ["vcd", "fst"])]
    pub wave_format: Option<String>,
    /// Every plot also as PNG, rendered from its SVG at twice its size (`queues.png`, ...;
    /// the file's `[output] png = true`).
    #[arg(long)]
    pub png: bool,
    /// Links, named A-B by their ends as written (`h0-s0:0`), whose frames go to
    /// DIR/<run>/link_<A>_to_<B>.pcapng and link_<B>_to_<A>.pcapng, stamped in real time
    /// at 3.2 GHz (repeatable; adds to the file's `[output] pcap`).
    #[arg(long = "pcap")]
    pub pcap: Vec<String>,
    /// Print the scenario's topology file(s) instead of running.
    #[arg(long)]
    pub print: bool,
    /// List the built-in scenarios.
    #[arg(long)]
    pub list: bool,
    /// No progress line.
    #[arg(long)]
    pub quiet: bool,
}

/// The runs of a scenario argument (a file, or a built-in scenario's runs): `(run name,
/// topology text, directory of the file)`.
pub fn load(s: &str) -> Result<Vec<(String, String, PathBuf)>, String> {
    let p = Path::new(s);
    if s.ends_with(".toml") || p.is_file() {
        let text = std::fs::read_to_string(p).map_err(|e| format!("cannot read {s}: {e}"))?;
        let name = p
            .file_stem()
            .map(|x| x.to_string_lossy().into_owned())
            .unwrap_or_else(|| "run".into());
        let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
        return Ok(vec![(name, text, dir)]);
    }
    net_scenarios::runs(s)
        .map(|v| v.into_iter().map(|(n, t)| (n, t, PathBuf::new())).collect())
        .ok_or_else(|| {
            format!(
                "{s:?} is neither a topology file nor a built-in scenario; known: {}",
                net_scenarios::names().join(", ")
            )
        })
}

/// One run: builds, runs and writes its outputs; returns the resolved topology, the
/// network and the result.
pub fn run_one(
    name: &str,
    text: &str,
    dir: &Path,
    a: &RunArgs,
) -> Result<(NetConfig, Network, RunResult), String> {
    let mut cfg = crate::overrides::config(text, &a.set).map_err(|e| format!("{name}: {e}"))?;
    if let Some(t) = a.threads {
        cfg.threads = t;
    }
    if let Some(e) = &a.engine {
        cfg.engine = Some(e.clone());
    }
    cfg.output.png |= a.png;
    if let Some(m) = a.max_cycles {
        cfg.max_cycles = m;
    }
    if let Some(s) = a.seed {
        cfg.seed = s;
    }
    for l in &a.pcap {
        if !cfg.output.pcap.contains(l) {
            cfg.output.pcap.push(l.clone());
        }
    }
    let files = |f: &str| {
        let p = dir.join(f);
        std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))
    };
    let mut net = Network::build(&cfg, &files).map_err(|e| format!("{name}: {e}"))?;
    for w in cfg.mismatches() {
        eprintln!("{name}: warning: {w}");
    }
    for m in cfg.model_switches() {
        eprintln!("{name}: note: {m}");
    }
    let out = a.out.join(name);
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    // The outputs' directory must be writable before the run, not after it.
    crate::pcap::create_output("--out", &out.join("summary.txt"))?;
    let mut wave = crate::vcd::WaveOpts {
        scopes: if a.vcd_scope.is_empty() {
            cfg.output.vcd_scope.clone()
        } else {
            a.vcd_scope.clone()
        },
        ..Default::default()
    };
    let window = a.vcd_cycles.as_deref().unwrap_or(&cfg.output.vcd_cycles);
    let format = a.wave_format.as_deref().unwrap_or(&cfg.output.wave_format);
    let format = match format {
        "" | "vcd" => "vcd",
        "fst" => "fst",
        f => return Err(format!("wave format {f:?}: use vcd or fst")),
    };
    if !window.trim().is_empty() {
        (wave.from, wave.to) = crate::vcd::WaveOpts::parse_window(window)?;
    }
    for d in cfg.output.vcd.iter().chain(a.vcd.iter()) {
        let i = net
            .device_index(d)
            .ok_or_else(|| format!("--vcd {d:?}: no host or switch of that name"))?;
        let p = out.join(format!("{d}.{format}"));
        // and a GTKWave save file that groups the device's handshakes by block
        let mut w = wave.clone();
        w.save_file = Some((out.join(format!("{d}.gtkw")), format!("{d}.{format}")));
        net.record_vcd(i, crate::vcd::WaveFile::create(&p)?, &w)?;
    }
    let quiet = a.quiet;
    let tty = std::io::stderr().is_terminal();
    let mut last_line = std::time::Instant::now();
    let start = std::time::Instant::now();
    let max = cfg.max_cycles;
    let total = net.msgs.len();
    let mut progress = |c: u64, open: usize| {
        // A terminal gets a line rewritten every second, a log a line every 10 s.
        if quiet || (!tty && last_line.elapsed().as_secs() < 10) {
            return;
        }
        last_line = std::time::Instant::now();
        let line = format!(
            "{name}: cycle {c} of at most {max} ({:.1} %), messages open {open} of {total}{}",
            c as f64 * 100.0 / max as f64,
            eta(c, max, start.elapsed().as_secs_f64())
        );
        if tty {
            eprint!("\r{line}   ");
            let _ = std::io::stderr().flush();
        } else {
            eprintln!("{line}");
        }
    };
    let r = net.run(&mut progress)?;
    if !quiet {
        let pad = if tty { " ".repeat(40) } else { String::new() };
        eprintln!(
            "{}{name}: done at cycle {}{pad}",
            if tty { "\r" } else { "" },
            r.cycles
        );
    }
    Ok((cfg, net, r))
}

/// The progress line's rate and estimate: `, N cycles/s, at most T left` once a cycle ran
/// (a run stops when every message is resolved and the network settled, often well before
/// `max`, so the time left is an upper bound).
pub fn eta(cycle: u64, max: u64, secs: f64) -> String {
    if cycle == 0 || secs <= 0.0 {
        return String::new();
    }
    let rate = cycle as f64 / secs;
    let left = max.saturating_sub(cycle) as f64 / rate;
    format!(", {rate:.0} cycles/s, at most {} left", duration(left))
}

/// A time left, in seconds, as `42 s`, `7 min` or `1.5 h`.
pub fn duration(secs: f64) -> String {
    if secs >= 3600.0 {
        format!("{:.1} h", secs / 3600.0)
    } else if secs >= 60.0 {
        format!("{:.0} min", secs / 60.0)
    } else {
        format!("{secs:.0} s")
    }
}

/// The commit of the source tree `ntsim` was built from, as that tree is now: `(HEAD,
/// dirty)`, dirty when tracked files differ from it; `None` when the tree or git is gone.
pub fn source_commit() -> Option<(String, bool)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let head = git(&["rev-parse", "HEAD"])?;
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"])?;
    Some((head, !dirty.is_empty()))
}

/// `run.json`: what ran and what came of it.
fn run_json(
    name: &str,
    scenario: &str,
    cfg: &NetConfig,
    r: &RunResult,
    summary: serde_json::Value,
) -> serde_json::Value {
    let commit = source_commit();
    serde_json::json!({
        "run": name,
        "scenario": scenario,
        "ntsim_version": env!("CARGO_PKG_VERSION"),
        "commit": commit.as_ref().map(|c| c.0.clone()),
        "commit_dirty": commit.as_ref().map(|c| c.1),
        "seed": cfg.seed,
        "engine": cfg.engine.clone().unwrap_or_else(|| "native".into()),
        "max_cycles": cfg.max_cycles,
        "threads": cfg.threads,
        "warnings": cfg.mismatches(),
        "model_switches": cfg.model_switches(),
        "summary": summary,
        "cycles": r.cycles,
        "settled": r.settled,
        "wall_secs": r.wall_secs,
        "topology": cfg,
    })
}

/// A run's summary numbers (`run.json`'s `summary`, a row of `ntsim run`'s table and of
/// `ntsim sweep`'s CSV).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Summary {
    pub messages: usize,
    pub delivered: usize,
    pub median_slowdown: Option<f64>,
    pub max_slowdown: Option<f64>,
    /// Trimmed headers, Tofino's deflect-on-drop trims included, over every switch port.
    pub trimmed: u64,
    /// Frames dropped for a full buffer or header queue, and Tofino's deflections dropped.
    pub dropped: u64,
    pub goodput_gbps: Option<f64>,
    pub jain_fairness: Option<f64>,
    pub cycles: u64,
    /// Simulated cycles per second of wall-clock time (not a result: it varies by machine).
    pub cycles_per_sec: f64,
}

/// Writes a finished run's outputs into `out` (`net_report`, `bolt.txt` for the Bolt
/// runs, `run.json`) and returns its numbers and the text `ntsim run` prints for it.
pub fn finish(
    n: &str,
    scenario: &str,
    cfg: &NetConfig,
    net: &Network,
    r: &RunResult,
    out: &Path,
) -> Result<(Summary, String), String> {
    let sum = write_outputs(net, r, out, cfg.output.png)?;
    let mut text = format!("{sum}outputs in {}\n\n", out.display());
    if let Some(line) = net_scenarios::bolt_report(n, net, r) {
        text.push_str(&format!("{line}\n\n"));
        let p = out.join("bolt.txt");
        std::fs::write(&p, format!("{line}\n"))
            .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    }
    let mut sd = slowdowns(net);
    let trimmed: u64 = r
        .switch_stats
        .iter()
        .flatten()
        .map(|p| p.trimmed + p.dod_trims)
        .sum();
    let dropped: u64 = r
        .switch_stats
        .iter()
        .flatten()
        .map(|p| p.drop_full + p.drop_header + p.dod_drop)
        .sum();
    let summary = Summary {
        messages: net.msgs.len(),
        delivered: net.msgs.iter().filter(|m| m.done.is_some()).count(),
        median_slowdown: quantile(&mut sd, 0.5),
        max_slowdown: quantile(&mut sd, 1.0),
        trimmed,
        dropped,
        goodput_gbps: goodput_gbps(net),
        jain_fairness: jain(net),
        cycles: r.cycles,
        cycles_per_sec: r.cycles as f64 / r.wall_secs.max(1e-9),
    };
    let j = run_json(
        n,
        scenario,
        cfg,
        r,
        serde_json::to_value(&summary).expect("a summary serializes"),
    );
    let p = out.join("run.json");
    std::fs::write(
        &p,
        format!("{}\n", serde_json::to_string_pretty(&j).expect("JSON")),
    )
    .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    Ok((summary, text))
}

/// `ntsim run`.
pub fn main(a: &RunArgs) -> Result<(), String> {
    if a.list {
        for n in net_scenarios::names() {
            println!("{n}");
        }
        return Ok(());
    }
    let s = a
        .scenario
        .as_deref()
        .ok_or("ntsim run: give a topology file or a scenario name (--list shows them)")?;
    let runs = load(s)?;
    if a.print {
        for (n, t, _) in &runs {
            println!("# ---- {n} ----\n{t}");
        }
        return Ok(());
    }
    let mut table = String::from(
        "| run | messages | delivered | median slowdown | max slowdown | trimmed | dropped | goodput (Gb/s) | Jain fairness | cycles | cycles/s |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    // Bolt Table 4.1: (pru, sm, utilization) of the bolt-util-* runs.
    let mut util_rows = vec![];
    // The loss-* runs' rows.
    let mut loss_rows = vec![];
    for (n, t, dir) in &runs {
        let (cfg, net, r) = run_one(n, t, dir, a)?;
        let out = a.out.join(n);
        let (sum, text) = finish(n, s, &cfg, &net, &r, &out)?;
        print!("{text}");
        if let (Some((pru, sm)), Ok(u)) = (
            net_scenarios::bolt_util_flags(n),
            net_scenarios::bolt_util_metrics(&net),
        ) {
            util_rows.push((pru, sm, u.utilization));
        }
        if let Some(row) = net_scenarios::loss_row(n, &net, &r) {
            loss_rows.push(row);
        }
        let Summary {
            messages,
            delivered,
            median_slowdown: median,
            max_slowdown: max,
            trimmed,
            dropped,
            goodput_gbps: goodput,
            jain_fairness: fairness,
            cycles_per_sec: rate,
            ..
        } = sum;
        let _ = writeln!(
            table,
            "| {n} | {messages} | {delivered} | {} | {} | {trimmed} | {dropped} | {} | {} | {} | {rate:.0} |",
            median.map_or("-".into(), |x| format!("{x:.2}")),
            max.map_or("-".into(), |x| format!("{x:.2}")),
            goodput.map_or("-".into(), |x| format!("{x:.1}")),
            fairness.map_or("-".into(), |x| format!("{x:.3}")),
            r.cycles,
        );
    }
    if util_rows.len() > 1 {
        let t = net_scenarios::bolt_util_table(&util_rows);
        let p = a.out.join("bolt-util-table.md");
        std::fs::write(&p, &t).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        println!("Bolt, thesis Table 4.1: bottleneck utilization between the first and the last flow completion\n{t}\n(table in {})\n", p.display());
    }
    if loss_rows.len() > 1 {
        let t = net_scenarios::loss_table(&loss_rows);
        let p = a.out.join("loss-sweep-table.md");
        std::fs::write(&p, &t).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        println!(
            "Link faults: every link loses the given share of its frames in each direction, and corrupts {} %, duplicates {} %, reorders {} % within {} cycles\n{t}\n(table in {})\n",
            net_scenarios::LOSS_CORRUPT * 100.0,
            net_scenarios::LOSS_DUPLICATE * 100.0,
            net_scenarios::LOSS_REORDER * 100.0,
            net_scenarios::LOSS_REORDER_WINDOW,
            p.display()
        );
    }
    if runs.len() > 1 {
        let p = a.out.join(format!("{s}.md"));
        std::fs::write(&p, &table).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        println!("{table}\n(table in {})", p.display());
    }
    Ok(())
}
