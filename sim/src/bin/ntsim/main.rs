//! `ntsim`: the nanoTransport hardware model's command line.
use clap::{CommandFactory, Parser, Subcommand};
use nt_sim::runs::{run_block, RunOptions, SIM_BLOCKS};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench;

#[derive(Parser)]
#[command(
    name = "ntsim",
    version,
    about = "Cycle-accurate nanoTransport NIC / switch hardware model",
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// The main job with built-in defaults: simulate the timers and the reassembly module
    /// under seeded random workloads, write their VCDs, measure the budgets, emit every
    /// block's Verilog and lint it when Verilator is there, then run the network demo (a
    /// 3:1 NDP incast through the 4-port trimming switch, `ntsim run demo`).
    Demo {
        /// Output directory.
        #[arg(long, default_value = "out")]
        out: PathBuf,
        /// Cycles of each timer's run (the reassembly and packetization runs take a quarter).
        #[arg(long, default_value_t = 20_000)]
        cycles: u64,
        /// Seed of the random workloads.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Write every block's Verilog (`<name>.v`) into a directory.
    Verilog {
        /// Directory for the files (created; `verilog-out/` is the committed copy).
        #[arg(long, default_value = "verilog-out")]
        out: PathBuf,
    },
    /// Write a block's waveform under seeded random stimulus.
    Wave {
        /// Block name (see `ntsim blocks`).
        block: String,
        /// Cycles to simulate.
        #[arg(long, default_value_t = 1000)]
        cycles: u64,
        /// Seed of the random stimulus.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The VCD file to write (top scope: the block's name).
        #[arg(long)]
        vcd: PathBuf,
        /// Records only the scopes and signals whose dotted path matches GLOB, such as
        /// `timer_n16.cmd` or `*.ready` (repeatable; `*` any characters, `?` one).
        #[arg(long = "vcd-scope", value_name = "GLOB")]
        vcd_scope: Vec<String>,
        /// Records only cycles FROM to TO (`100..200`; `500..` to the end).
        #[arg(long = "vcd-cycles", value_name = "FROM..TO")]
        vcd_cycles: Option<String>,
        /// Clock frequency in Hz for waveform times.
        #[arg(long, default_value_t = nt_sim::DEFAULT_CLOCK_HZ)]
        clock_hz: f64,
    },
    /// Cycles per second of our kernel, rust-hdl's Simulation and Verilator: the timers,
    /// the reassembly and packetization modules, the whole NIC and the switches, a pair
    /// of NICs on one and two threads, an incast scenario on one and two threads and the
    /// cost per cycle against the number of NICs.
    Bench {
        /// Cycles of the timers' runs (1000 ..= 1e9); the modules run at most 200,000, the
        /// whole devices a tenth, 1,000 to 20,000.
        #[arg(long, default_value_t = 200_000)]
        cycles: u64,
        /// Seed of the workloads.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Which tables: all, timers, modules, devices, threads, network, waves
        /// (comma-separated).
        #[arg(long, default_value = "all")]
        only: String,
        /// The network table's incast scenario (`ntsim run --list`; e.g. incast-ndp-54k,
        /// the thesis's, about ten minutes a thread count).
        #[arg(long, default_value = "incast3-ndp-4k")]
        incast: String,
        /// The devices table's devices (comma-separated: nic_ndp, nic_homa, nic_bolt,
        /// switch2_p4, switch2_p16; switch2_p16's Verilator and compiled builds take many
        /// minutes).
        #[arg(long, default_value = "nic_ndp,switch2_p4,switch2_p16")]
        devices: String,
        /// Work directory for the Verilator build.
        #[arg(long, default_value = "target/ntsim-bench")]
        work: PathBuf,
    },
    /// Measure every block's latency and throughput budgets in cycles and print them
    /// next to the published numbers.
    Budget,
    /// List the blocks.
    Blocks,
    /// Run one NIC from packet captures: frames from IN.pcap enter MAC RX at their
    /// timestamps (1 ns = 1 cycle in a classic pcap, real time at 3.2 GHz in a pcapng),
    /// messages from MSGS.jsonl enter the application port;
    /// every transmitted frame goes to OUT.pcap, delivered messages and outcomes to
    /// OUT.jsonl.
    Nic {
        /// Transport program.
        #[arg(long, default_value = "ndp", value_parser = nt_sim::listed::Listed::programs())]
        program: String,
        /// This host's IPv4 address (a.b.c.d, decimal, no leading zeros; unicast).
        #[arg(long)]
        ip: String,
        /// This host's MAC address (aa:bb:cc:dd:ee:ff; unicast).
        #[arg(long)]
        mac: String,
        /// The next hop's (switch's) MAC address.
        #[arg(long, default_value = "02:00:00:00:00:fe")]
        switch_mac: String,
        /// Initial credit of a message in packets (the BDP), 1..=38.
        #[arg(long, default_value_t = 10)]
        rtt_pkts: u8,
        /// Retransmission timeout in cycles (64 up to: timeout x (retries + 2) below 2^31).
        #[arg(long, default_value_t = 22_400)]
        timeout_cycles: u32,
        /// Timeouts without progress before a message is given up (1..=255).
        #[arg(long, default_value_t = 5)]
        retries: u8,
        /// Receive inactivity timeout in cycles, above timeout x (retries + 1) and below 2^31
        /// (default: timeout x (retries + 2)).
        #[arg(long)]
        rx_timeout_cycles: Option<u32>,
        /// Cycles between paced PULLs.
        #[arg(long, default_value_t = 136)]
        pull_gap: u16,
        /// NDP: send each NACK at once instead of in a PULL pacing slot (so the sender
        /// retransmits at once rather than PULL-clocked).
        #[arg(long)]
        unpaced_nacks: bool,
        /// A capture (pcap or pcapng) of the frames into MAC RX, taken in timestamp order
        /// (stable for equal timestamps).
        #[arg(long = "mac-rx", alias = "in", value_name = "IN.pcap")]
        input: Option<PathBuf>,
        /// The capture of the frames MAC TX sent (created before the run starts; pcapng in
        /// real time for a `.pcapng` path).
        #[arg(long = "mac-tx", value_name = "OUT.pcap")]
        output: PathBuf,
        /// Messages to send (JSON lines, in cycle order).
        #[arg(long)]
        send: Option<PathBuf>,
        /// Delivered messages and sent messages' outcomes (created before the run starts).
        #[arg(long)]
        delivered: Option<PathBuf>,
        /// Quiet cycles after the last activity that end the run (at least 1).
        #[arg(long, default_value_t = 2_000)]
        quiet_cycles: u64,
        /// Hard limit on the run (at least 1); input stamped later is not sent (reported).
        #[arg(long, default_value_t = 5_000_000)]
        max_cycles: u64,
        /// What steps the NIC: `native` (our kernel on the rust-hdl block), `verilator`
        /// or `compiled` (its Verilog, built on first use and cached; many times faster).
        #[arg(long, default_value = "native", value_parser = nt_sim::listed::Listed::engines())]
        engine: String,
    },
    /// Run the switch from packet captures: frames from each `--in-port K=IN.pcap` enter
    /// port K at their timestamps (1 ns = 1 cycle; pcapng: real time at 3.2 GHz); every
    /// port's output goes to
    /// DIR/port<K>.pcap (stamped with each frame's first-word cycle), counters to
    /// DIR/stats.json.
    Switch(nt_sim::switch_cli::SwitchArgs),
    /// Run a network of NICs and switches from a topology file (TOML) or a built-in
    /// scenario (`--list`): CSV time series, message completion times and slowdowns, SVG
    /// plots and a summary in OUT/<run>.
    Run(nt_sim::net_cli::RunArgs),
    /// Run a scenario for every combination of settings (`--vary KEY=V1,V2,...`) and seeds
    /// (`--seeds 1..=8`), several at a time (`--jobs`): each run's outputs in
    /// OUT/<run>-<k>, and OUT/sweep.csv with one row per run (docs/network.md "Sweeps").
    Sweep(nt_sim::sweep::SweepArgs),
    /// Fuzz a NIC or the switch on the compiled engine: valid traffic, structured
    /// mutations of it (every malformed class) and random bytes into the target's MAC RX,
    /// checked by an independent checker (counters by reason, messages delivered exactly
    /// once, tshark on the output). docs/reliability.md "Fuzzing".
    Fuzz {
        /// nic-ndp, nic-homa, nic-homatr, nic-bolt, switch-droptail, switch-trim,
        /// switch-tofino-trim or switch-bolt.
        #[arg(long, value_parser = nt_sim::listed::Listed::fuzz_targets())]
        target: String,
        /// Frames into the target (1 ..= 1e9).
        #[arg(long, default_value_t = 100_000)]
        frames: u64,
        /// Seed of the traffic and its mutations.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Directory for the captures of the frames in and out (default: a temporary
        /// directory, removed after the run).
        #[arg(long)]
        out: Option<PathBuf>,
        /// NIC targets: messages each NIC keeps in flight (1 ..= 16).
        #[arg(long, default_value_t = nt_sim::fuzz::OPEN_MSGS)]
        open: usize,
    },
    /// Print a shell completion script for ntsim's commands and flags: `source <(ntsim
    /// completions bash)`, or save it where the shell looks (README's CLI table).
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

/// Stack of the thread that runs a command (address space; pages are touched as used).
/// Simulating or emitting the 16-port switch builds it on the stack: it overflows the main
/// thread's 8 MiB (`ntsim bench` did, in `run_block`).
const MAIN_STACK: usize = 1 << 30;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match std::thread::Builder::new()
        .name("ntsim".into())
        .stack_size(MAIN_STACK)
        .spawn(move || run_cli(cli))
    {
        Ok(t) => t.join().unwrap_or(ExitCode::FAILURE),
        Err(e) => {
            eprintln!("ntsim: cannot start the command thread: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_cli(cli: Cli) -> ExitCode {
    // A bare `ntsim` prints its help (`arg_required_else_help`); the main job is `ntsim demo`.
    let r = match cli.cmd {
        Cmd::Demo { out, cycles, seed } => demo(&out, cycles, seed),
        Cmd::Verilog { out } => write_verilog(&out).map(|files| {
            for f in files {
                println!("wrote {}", f.display());
            }
        }),
        Cmd::Wave {
            block,
            cycles,
            seed,
            vcd,
            vcd_scope,
            vcd_cycles,
            clock_hz,
        } => {
            let window = vcd_cycles
                .as_deref()
                .map(nt_sim::vcd::WaveOpts::parse_window);
            match window.transpose() {
                Ok(win) => {
                    let (from, to) = win.unwrap_or((0, None));
                    let w = nt_sim::vcd::WaveOpts {
                        scopes: vcd_scope,
                        from,
                        to,
                        ..Default::default()
                    };
                    wave(&block, cycles, seed, &vcd, clock_hz, w)
                }
                Err(e) => Err(e),
            }
        }
        Cmd::Bench {
            cycles,
            seed,
            only,
            work,
            incast,
            devices,
        } => bench::bench(cycles, seed, &only, &work, &incast, &devices),
        Cmd::Budget => nt_sim::budget::all_budgets().map(|b| {
            print!("{}", nt_sim::budget::format_budgets(&b));
        }),
        Cmd::Nic {
            program,
            ip,
            mac,
            switch_mac,
            rtt_pkts,
            timeout_cycles,
            retries,
            rx_timeout_cycles,
            pull_gap,
            unpaced_nacks,
            input,
            output,
            send,
            delivered,
            quiet_cycles,
            max_cycles,
            engine,
        } => (|| {
            use nt_sim::nic_cli::{config_of_flags, run, NicArgs, NicFlags};
            let cfg = config_of_flags(&NicFlags {
                ip,
                mac,
                switch_mac,
                rtt_pkts,
                timeout_cycles,
                retries,
                rx_timeout_cycles,
                pull_gap,
                unpaced_nacks,
            })?;
            let s = run(&NicArgs {
                program,
                cfg,
                input,
                output,
                send,
                delivered,
                quiet_cycles,
                max_cycles,
                engine: nt_sim::net::Engine::parse(&engine)
                    .map_err(|e| format!("--engine: {e}"))?,
            })?;
            print!("{s}");
            Ok(())
        })(),
        Cmd::Switch(a) => nt_sim::switch_cli::main(&a),
        Cmd::Run(a) => nt_sim::net_cli::main(&a),
        Cmd::Sweep(a) => nt_sim::sweep::main(&a),
        Cmd::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "ntsim", &mut std::io::stdout());
            Ok(())
        }
        Cmd::Fuzz {
            target,
            frames,
            seed,
            out,
            open,
        } => nt_sim::fuzz::run(&nt_sim::fuzz::FuzzArgs {
            target,
            frames,
            seed,
            out,
            progress: true,
            open,
        })
        .map(|s| print!("{s}")),
        Cmd::Blocks => {
            for b in nt_hdl::registry::blocks() {
                let bench = b.name.starts_with("timer")
                    || b.name.starts_with("reassembly")
                    || b.name.starts_with("packetization");
                let sim = match (SIM_BLOCKS.contains(&b.name), bench) {
                    (true, true) => "wave, bench",
                    (true, false) => "wave",
                    _ => "",
                };
                println!("{:<19} {}  [{sim}]", b.name, b.about);
            }
            Ok(())
        }
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ntsim: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn check_cycles(cycles: u64) -> Result<(), String> {
    if cycles == 0 || cycles > 1_000_000_000 {
        return Err(format!("--cycles {cycles} is out of range (1 ..= 1e9)"));
    }
    Ok(())
}

/// Writes every registered block's Verilog into `out`.
fn write_verilog(out: &Path) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut files = vec![];
    for (name, v) in nt_hdl::registry::emit_all() {
        let v = v.map_err(|e| e.to_string())?;
        let p = out.join(format!("{name}.v"));
        std::fs::write(&p, v).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        files.push(p);
    }
    let w = out.join("lint_waivers.vlt");
    std::fs::write(&w, nt_hdl::emit::LINT_WAIVERS)
        .map_err(|e| format!("cannot write {}: {e}", w.display()))?;
    Ok(files)
}

fn wave(
    block: &str,
    cycles: u64,
    seed: u64,
    vcd: &Path,
    clock_hz: f64,
    w: nt_sim::vcd::WaveOpts,
) -> Result<(), String> {
    check_cycles(cycles)?;
    if let Some(dir) = vcd.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let opts = RunOptions {
        vcd: Some(vcd),
        wave: w,
        clock_hz: Some(clock_hz),
        ..Default::default()
    };
    let (s, _) = run_block(block, cycles, seed, &opts)?;
    println!(
        "{}: {} cycles, seed {}, {} commands, {} events -> {}",
        s.block,
        s.cycles,
        s.seed,
        s.commands,
        s.events,
        vcd.display()
    );
    Ok(())
}

fn demo(out: &Path, cycles: u64, seed: u64) -> Result<(), String> {
    check_cycles(cycles)?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    println!("ntsim demo: blocks under seeded random workloads, waveforms, budgets, Verilog");
    // The reassembly's waveform holds hundreds of signals: a quarter of the cycles keeps
    // its VCD near 50 MB.
    for (block, n, what) in [
        ("timer_n16", cycles, ("commands", "expiry events")),
        ("timer_n128", cycles, ("commands", "expiry events")),
        (
            "reassembly_n16",
            cycles.div_ceil(4),
            ("requests", "words delivered"),
        ),
        (
            "packetization_n16",
            cycles.div_ceil(4),
            ("application words", "words sent"),
        ),
    ] {
        let vcd = out.join(format!("{block}.vcd"));
        let opts = RunOptions {
            vcd: Some(&vcd),
            ..Default::default()
        };
        let (s, _) = run_block(block, n, seed, &opts)?;
        println!(
            "  {:<18} {} cycles (seed {}): {} {}, {} {}, {:.0} cycles/s with VCD -> {}",
            s.block,
            s.cycles,
            s.seed,
            s.commands,
            what.0,
            s.events,
            what.1,
            s.cycles as f64 / s.seconds,
            vcd.display()
        );
    }
    println!("  budgets (cycles, measured now):");
    let b = nt_sim::budget::all_budgets()?;
    for line in nt_sim::budget::format_budgets(&b).lines() {
        println!("    {line}");
    }
    let vdir = out.join("verilog");
    let files = write_verilog(&vdir)?;
    println!("  Verilog: {} modules -> {}", files.len(), vdir.display());
    if nt_sim::verilator::which("verilator").is_some() {
        // One lint per core, the largest files first; results print in file order.
        let mut order: Vec<usize> = (0..files.len()).collect();
        let size = |f: &PathBuf| std::fs::metadata(f).map_or(0, |m| m.len());
        order.sort_by_key(|&i| std::cmp::Reverse(size(&files[i])));
        let next = std::sync::Mutex::new(order.into_iter());
        let results: Vec<std::sync::Mutex<Option<Result<(), String>>>> =
            files.iter().map(|_| std::sync::Mutex::new(None)).collect();
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| loop {
                    let Some(i) = next.lock().expect("lint queue").next() else {
                        break;
                    };
                    let f = &files[i];
                    let top = f.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
                    *results[i].lock().expect("lint result") =
                        Some(nt_sim::tools::verilator_lint(f, top));
                });
            }
        });
        for (f, r) in files.iter().zip(results) {
            match r.into_inner().expect("lint result") {
                Some(Ok(())) => println!("  verilator --lint-only -Wall {}: clean", f.display()),
                Some(Err(e)) => return Err(format!("lint of {} failed:\n{e}", f.display())),
                None => return Err(format!("lint of {} did not run", f.display())),
            }
        }
    } else {
        println!("  (verilator not installed: lint skipped; scripts/setup.sh installs it)");
    }
    // The network: a 3:1 NDP incast through the 4-port trimming switch.
    let args = nt_sim::net_cli::RunArgs {
        scenario: Some("demo".into()),
        out: out.join("run"),
        threads: None,
        engine: None,
        max_cycles: None,
        seed: None,
        set: vec![],
        vcd: vec![],
        vcd_scope: vec![],
        vcd_cycles: None,
        wave_format: None,
        png: true,
        // the receiver's link, both directions
        pcap: vec!["h0-s0:0".into()],
        print: false,
        list: false,
        quiet: false,
    };
    println!("  network (ntsim run demo):");
    nt_sim::net_cli::main(&args)
}
