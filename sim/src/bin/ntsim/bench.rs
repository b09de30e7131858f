//! `ntsim bench`: cycles per second of the same timer workload under three engines, in one
//! run: our kernel, rust-hdl's threaded `Simulation`, and the emitted Verilog verilated and
//! driven by a plain C++ loop. Every engine replays the same precomputed inputs.
use nt_hdl::timer::ScanningTimer;
use nt_sim::kernel::Kernel;
use nt_sim::runs::timer_stimulus;
use nt_sim::verilator::{which, Harness};
use nt_sim::vmodel::Backend;
use nt_sim::workload::{drive_timer, TimerInputs};
use rust_hdl::prelude::*;
use std::path::Path;
use std::time::Instant;

/// Cycles/s of our kernel.
fn kernel_rate<const A: usize, const N: usize, const M: usize>(
    stim: &[TimerInputs],
) -> Result<f64, String> {
    let mut k = Kernel::new(ScanningTimer::<A, N, M>::new()).map_err(|e| e.to_string())?;
    let t0 = Instant::now();
    for (c, i) in stim.iter().enumerate() {
        drive_timer(k.uut_mut(), c as u64, i);
        k.tick().map_err(|e| e.to_string())?;
    }
    Ok(stim.len() as f64 / t0.elapsed().as_secs_f64())
}

/// Cycles/s of rust-hdl's own `Simulation` (clock closure + a testbench thread).
fn rusthdl_rate<const A: usize, const N: usize, const M: usize>(
    stim: &[TimerInputs],
) -> Result<f64, String> {
    let mut uut = ScanningTimer::<A, N, M>::new();
    uut.connect_all();
    let mut sim = Simulation::<ScanningTimer<A, N, M>>::new();
    sim.add_clock(5, |x: &mut Box<ScanningTimer<A, N, M>>| {
        x.clock.next = !x.clock.val()
    });
    let stim = stim.to_vec();
    let cycles = stim.len() as u64;
    sim.add_testbench(move |mut sim: Sim<ScanningTimer<A, N, M>>| {
        let mut x = sim.init()?;
        for (c, i) in stim.iter().enumerate() {
            drive_timer(&mut x, c as u64, i);
            wait_clock_cycle!(sim, clock, x);
        }
        sim.done(x)
    });
    let t0 = Instant::now();
    sim.run(Box::new(uut), cycles * 10 + 100)
        .map_err(|e| format!("rust-hdl Simulation: {e:?}"))?;
    Ok(cycles as f64 / t0.elapsed().as_secs_f64())
}

/// Cycles/s of the verilated module in a plain C++ loop.
fn verilator_rate(
    block: &str,
    stim_cycles: u64,
    seed: u64,
    work: &Path,
    total: u64,
) -> Result<f64, String> {
    Ok(verilator_replay(block, stim_cycles, seed, work, total)?.0)
}

/// [`verilator_rate`], with the recorded inputs and the Verilog it replayed them on.
fn verilator_replay(
    block: &str,
    stim_cycles: u64,
    seed: u64,
    work: &Path,
    total: u64,
) -> Result<(f64, nt_sim::ports::PortRecorder, String), String> {
    let spec = nt_hdl::registry::block(block).ok_or(format!("no block {block}"))?;
    let dir = work.join(block);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let v = dir.join(format!("{block}.v"));
    let text = (spec.verilog)().map_err(|e| e.to_string())?;
    std::fs::write(&v, &text).map_err(|e| e.to_string())?;
    let opts = nt_sim::runs::RunOptions {
        record_ports: true,
        ..Default::default()
    };
    let (_, rec) = nt_sim::runs::run_block(block, stim_cycles, seed, &opts)?;
    let rec = rec.ok_or("no port record")?;
    let vf = dir.join("vectors.txt");
    std::fs::write(&vf, rec.to_vector_file()).map_err(|e| e.to_string())?;
    let h = Harness::build(&v, block, &rec.ports, &dir.join("build"))?;
    let repeat = (total / stim_cycles).max(1);
    let (cycles, secs) = h.bench(&vf, repeat)?;
    Ok((cycles as f64 / secs, rec, text))
}

/// Cycles/s of `verilog`'s model built by `backend`, stepped from Rust through
/// `nt_sim::vmodel` on the recorded inputs `rec` (what the plain C++ loop replays), for at
/// least `total` cycles: the cost of driving the model from Rust, without a workload.
fn replay_rate(
    backend: Backend,
    block: &str,
    verilog: &str,
    rec: &nt_sim::ports::PortRecorder,
    total: u64,
) -> Result<f64, String> {
    let lib = nt_sim::vmodel::VLib::get_with(backend, verilog, block, &rec.ports)?;
    let mut m = nt_sim::vmodel::VModel::new(lib);
    let refs = m.port_refs();
    let nin = m.input_words().len();
    // Every recorded row's inputs as the packed words `ntv_cycle` takes.
    let mut rows = vec![0u32; nin * rec.rows.len()];
    for (c, row) in rec.rows.iter().enumerate() {
        for (p, hex) in rec.ports.iter().zip(row) {
            if p.dir != nt_sim::ports::Dir::In {
                continue;
            }
            let r = refs
                .iter()
                .find(|(n, _)| *n == p.name)
                .ok_or_else(|| format!("{block}: no port {}", p.name))?
                .1;
            let digits: Vec<u32> = hex
                .chars()
                .rev()
                .map(|ch| ch.to_digit(16).ok_or(format!("{block}: bad hex {hex:?}")))
                .collect::<Result<_, _>>()?;
            for (k, d) in digits.iter().enumerate() {
                let w = k / 8;
                if w < r.width.div_ceil(32) {
                    rows[c * nin + r.off + w] |= d << (4 * (k % 8));
                }
            }
        }
    }
    let n = rec.rows.len().max(1);
    let repeat = (total as usize).div_ceil(n);
    let t0 = Instant::now();
    for _ in 0..repeat {
        for c in 0..rec.rows.len() {
            m.input_words()
                .copy_from_slice(&rows[c * nin..(c + 1) * nin]);
            m.cycle();
        }
    }
    Ok((repeat * rec.rows.len()) as f64 / t0.elapsed().as_secs_f64())
}

/// The tables of `ntsim bench`, in the order they print.
const PARTS: [&str; 6] = [
    "timers", "modules", "devices", "threads", "network", "waves",
];

/// `--only`: a comma-separated list of [`PARTS`] or `all`.
fn parse_only(only: &str) -> Result<Vec<&'static str>, String> {
    let mut want = vec![];
    for p in only.split(',').map(str::trim) {
        if p == "all" {
            return Ok(PARTS.to_vec());
        }
        match PARTS.iter().find(|q| **q == p) {
            Some(q) => want.push(*q),
            None => {
                return Err(format!(
                    "--only: unknown table {p:?}; known: all, {}",
                    PARTS.join(", ")
                ))
            }
        }
    }
    Ok(want)
}

pub fn bench(
    cycles: u64,
    seed: u64,
    only: &str,
    work: &Path,
    incast: &str,
    devices: &str,
) -> Result<(), String> {
    if !(1000..=1_000_000_000).contains(&cycles) {
        return Err(format!("--cycles {cycles} is out of range (1000 ..= 1e9)"));
    }
    let parts = parse_only(only)?;
    if parts.contains(&"timers") {
        timer_bench(cycles, seed, work)?;
    }
    if parts.contains(&"modules") {
        let c = cycles.min(200_000);
        driver_table(
            "reassembly and packetization, seeded workloads",
            &[
                ("reassembly_n16", c, c.min(50_000), 1_000_000),
                ("reassembly_n128", c, c.min(50_000), 1_000_000),
                ("packetization_n16", c, c.min(50_000), 1_000_000),
                ("packetization_n128", c, c.min(50_000), 1_000_000),
            ],
            seed,
            work,
        )?;
    }
    if parts.contains(&"devices") {
        // The whole devices: fewer cycles (a NIC cycle costs ~10x a module's).
        let d = (cycles / 10).clamp(1000, 20_000);
        let all = [
            ("nic_ndp", d, d, 200_000),
            ("nic_homa", d, d, 200_000),
            ("nic_bolt", d, d, 200_000),
            ("switch2_p4", d, d, 200_000),
            ("switch2_p16", d / 4, d / 4, 50_000),
        ];
        let mut rows = vec![];
        for name in devices.split(',').map(str::trim) {
            match all.iter().find(|r| r.0 == name) {
                Some(r) => rows.push(*r),
                None => {
                    return Err(format!(
                        "--devices: unknown device {name:?}; known: nic_ndp, nic_homa, nic_bolt, switch2_p4, switch2_p16"
                    ))
                }
            }
        }
        driver_table(
            "the full NIC (a NIC looped through a trimming link) and the switch (its self-checking workload: ideal trimming, then Tofino-style trimming)",
            &rows,
            seed,
            work,
        )?;
    }
    if parts.contains(&"threads") {
        pair_bench((cycles / 10_000).clamp(4, 40) as usize, seed)?;
    }
    if parts.contains(&"network") {
        incast_bench(incast)?;
        scaling_bench((cycles / 40).clamp(1000, 20_000))?;
    }
    if parts.contains(&"waves") {
        wave_bench((cycles / 100).clamp(1000, 20_000), work)?;
    }
    Ok(())
}

/// Waveforms of the `demo` network (four NDP NICs, a 4-port trimming switch), its
/// receiver `h0` and the switch `s0` recorded whole, on the native and the compiled engine,
/// as VCD and FST (files in `work`): wall time, cycles/s, bytes, and the speed-up against
/// the native VCD run; the compiled engine's VCDs must be the native ones, byte for byte.
fn wave_bench(cycles: u64, work: &Path) -> Result<(), String> {
    let (_, toml) = nt_sim::net_scenarios::runs("demo")
        .and_then(|mut r| (!r.is_empty()).then(|| r.remove(0)))
        .ok_or("no demo scenario")?;
    std::fs::create_dir_all(work).map_err(|e| format!("{}: {e}", work.display()))?;
    println!();
    println!(
        "waveforms: ntsim run demo, h0 and s0 recorded whole, {cycles} cycles, one thread (files in {})",
        work.display()
    );
    println!(
        "{:<10} {:>6} {:>10} {:>12} {:>14} {:>10}",
        "engine", "format", "wall s", "cycles/s", "bytes", "speed-up"
    );
    let mut native = (0.0, vec![]);
    for (engine, fmt) in [("native", "vcd"), ("compiled", "vcd"), ("compiled", "fst")] {
        let mut cfg = nt_sim::net::NetConfig::from_toml(&toml)?;
        cfg.threads = 1;
        cfg.max_cycles = cycles;
        cfg.engine = Some(engine.to_string());
        let build = || {
            nt_sim::net::Network::build(&cfg, &|f: &str| {
                Err(format!("{f}: the demo reads no files"))
            })
        };
        if engine != "native" {
            build()?.run(&mut |_, _| {})?; // the libraries are built outside the timing
        }
        let mut net = build()?;
        let mut files = vec![];
        for d in ["h0", "s0"] {
            let i = net.device_index(d).ok_or("no device")?;
            let p = work.join(format!("bench-wave-{engine}-{d}.{fmt}"));
            let opts = nt_sim::vcd::WaveOpts::default();
            net.record_vcd(i, nt_sim::vcd::WaveFile::create(&p)?, &opts)?;
            files.push(p);
        }
        let r = net.run(&mut |_, _| {})?;
        drop(net); // writes out the files
        let mut bytes = 0;
        let mut texts = vec![];
        for p in &files {
            let b = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
            bytes += b.len();
            texts.push(b);
        }
        if engine == "native" {
            native = (r.wall_secs, texts);
        } else if fmt == "vcd" && texts != native.1 {
            return Err("the compiled engine's VCDs differ from the native ones".into());
        }
        println!(
            "{:<10} {:>6} {:>10.2} {:>12.0} {:>14} {:>10.2}",
            engine,
            fmt,
            r.wall_secs,
            r.cycles as f64 / r.wall_secs,
            bytes,
            native.0 / r.wall_secs
        );
    }
    Ok(())
}

/// The header of a one-thread / two-thread table.
fn thread_header() {
    println!(
        "{:<8} {:>10} {:>10} {:>12} {:>10}",
        "threads", "cycles", "wall s", "cycles/s", "speed-up"
    );
}

/// A row of that table.
fn thread_row(threads: usize, cycles: u64, secs: f64, speedup: f64) {
    println!(
        "{:<8} {:>10} {:>10.2} {:>12.0} {:>10.2}",
        threads,
        cycles,
        secs,
        cycles as f64 / secs,
        speedup
    );
}

/// Runs a network topology on `threads` threads: (run result, messages).
fn run_net(
    toml: &str,
    threads: usize,
    engine: &str,
) -> Result<(nt_sim::net::RunResult, Vec<nt_sim::net::MsgRecord>), String> {
    let mut cfg = nt_sim::net::NetConfig::from_toml(toml)?;
    cfg.threads = threads;
    cfg.engine = Some(engine.to_string());
    let mut net = nt_sim::net::Network::build(&cfg, &|f: &str| {
        Err(format!("{f}: the bench's topologies read no files"))
    })?;
    let r = net.run(&mut |_, _| {})?;
    Ok((r, net.msgs.clone()))
}

/// Repeated runs of a fast engine: at least this many...
const MIN_REPEATS: usize = 3;
/// ...and at least this much wall time of runs in all (the library engines finish the
/// 4-port incast in about a tenth of a second, shorter than this machine's noise).
const MIN_TIMED_SECS: f64 = 2.0;
/// At most this many runs.
const MAX_REPEATS: usize = 50;

/// Runs `run` until [`MIN_REPEATS`] runs and [`MIN_TIMED_SECS`] of wall time in all (or
/// [`MAX_REPEATS`] runs) and returns the fastest run and the number of runs: the least
/// disturbed measurement on a shared machine. Every run must succeed.
fn best_run(
    run: impl FnMut() -> Result<nt_sim::net::RunResult, String>,
) -> Result<(nt_sim::net::RunResult, usize), String> {
    fastest_of(run, |r| r.wall_secs)
}

/// [`best_run`] for any result whose wall time `secs` gives.
fn fastest_of<R>(
    mut run: impl FnMut() -> Result<R, String>,
    secs: impl Fn(&R) -> f64,
) -> Result<(R, usize), String> {
    let mut best: Option<R> = None;
    let (mut runs, mut total) = (0usize, 0.0f64);
    while runs < MAX_REPEATS && (runs < MIN_REPEATS || total < MIN_TIMED_SECS) {
        let r = run()?;
        runs += 1;
        total += secs(&r);
        if best.as_ref().map_or(true, |b| secs(&r) < secs(b)) {
            best = Some(r);
        }
    }
    Ok((best.expect("at least one run"), runs))
}

/// A built-in incast scenario (`ntsim run NAME`) on one and two threads: wall time,
/// cycles/s, speed-up; both runs must give the same messages, cycles and switch counters.
fn incast_bench(name: &str) -> Result<(), String> {
    let mut runs = nt_sim::net_scenarios::runs(name)
        .ok_or_else(|| format!("--incast {name:?}: no such scenario (ntsim run --list)"))?;
    if runs.len() != 1 {
        return Err(format!(
            "--incast {name:?}: names {} runs; give one",
            runs.len()
        ));
    }
    let (run_name, toml) = runs.remove(0);
    println!();
    println!("network scenario {run_name} (ntsim run {run_name}) to completion on one and two threads (nt_sim::lockstep)");
    thread_header();
    let (r1, m1) = run_net(&toml, 1, "native")?;
    thread_row(1, r1.cycles, r1.wall_secs, 1.0);
    let (r2, m2) = run_net(&toml, 2, "native")?;
    let same = |r: &nt_sim::net::RunResult, m: &[nt_sim::net::MsgRecord], what: &str| {
        if r1.cycles != r.cycles || m1 != m || r1.switch_stats != r.switch_stats {
            return Err(format!(
                "{run_name}: {what} differs from one native thread ({} cycles against {})",
                r.cycles, r1.cycles
            ));
        }
        Ok(())
    };
    same(&r2, &m2, "two threads")?;
    thread_row(2, r2.cycles, r2.wall_secs, r1.wall_secs / r2.wall_secs);
    let mut engines = vec![];
    if which("verilator").is_some() {
        engines.push((
            "verilator",
            "the Verilator engine (every device verilated, nt_sim::vmodel)",
        ));
    }
    engines.push((
        "compiled",
        "the compiled engine (every device's Verilog compiled to Rust, nt_sim::rcomp)",
    ));
    for (engine, what) in engines {
        // The libraries are built first, outside the timing.
        run_net(&toml, 1, engine)?;
        println!(
            "the same on {what}; speed-up against one native thread; the best of repeated runs (at least {MIN_REPEATS}, at least {MIN_TIMED_SECS} s of runs per thread count)"
        );
        let mut one = 0.0;
        for t in [1, 2] {
            let (rv, runs) = best_run(|| {
                let (rv, mv) = run_net(&toml, t, engine)?;
                same(&rv, &mv, &format!("the {engine} engine on {t} thread(s)"))?;
                Ok(rv)
            })?;
            thread_row(t, rv.cycles, rv.wall_secs, r1.wall_secs / rv.wall_secs);
            if t == 1 {
                one = rv.wall_secs;
            } else {
                println!(
                    "(two threads against one on the {engine} engine: {:.2}x; best of {runs} runs each)",
                    one / rv.wall_secs
                );
            }
        }
    }
    Ok(())
}

/// Cost per simulated cycle against the number of NICs: `n / 2` pairs of NDP NICs, each
/// pair on a direct 40-cycle link, each NIC sending its peer four 38 KiB messages at once,
/// run for `cycles` cycles on one and two threads.
fn scaling_bench(cycles: u64) -> Result<(), String> {
    println!();
    println!("cost per simulated cycle against the number of NICs: NDP NIC pairs on direct links, four 38 KiB messages each way, {cycles} cycles (the lone NIC: `--only devices`)");
    println!("(the compiled engine: the best of repeated runs, as in the incast table)");
    println!(
        "{:<6} {:>14} {:>16} {:>14} {:>16} {:>10} {:>16} {:>16} {:>16} {:>10}",
        "NICs",
        "1 thread us/c",
        "us per NIC-cycle",
        "2 threads us/c",
        "us per NIC-cycle",
        "speed-up",
        "compiled us/c",
        "us per NIC-cycle",
        "compiled 2 thr.",
        "speed-up"
    );
    for n in [2usize, 4, 16, 64] {
        let mut t = format!("name = \"scale{n}\"\nmax_cycles = {cycles}\nsample_cycles = 1000\n");
        for h in 0..n {
            t.push_str(&format!("[[host]]\nname = \"h{h}\"\nprogram = \"ndp\"\n"));
        }
        for p in 0..n / 2 {
            t.push_str(&format!(
                "[[link]]\na = \"h{}\"\nb = \"h{}\"\ndelay = 40\n",
                2 * p,
                2 * p + 1
            ));
        }
        t.push_str("[[workload]]\nkind = \"messages\"\n");
        for h in 0..n {
            for _ in 0..4 {
                t.push_str(&format!(
                    "[[workload.msg]]\nfrom = \"h{h}\"\nto = \"h{}\"\ncycle = 0\nbytes = 38912\n",
                    h ^ 1
                ));
            }
        }
        let us = |r: &nt_sim::net::RunResult| r.wall_secs * 1e6 / r.cycles as f64;
        let (r1, _) = run_net(&t, 1, "native")?;
        let (r2, _) = run_net(&t, 2, "native")?;
        // The model is built (and loaded) once before the timing.
        run_net(&t, 1, "compiled")?;
        let compiled = |threads: usize| {
            best_run(|| {
                let (rc, _) = run_net(&t, threads, "compiled")?;
                if (rc.cycles, &rc.host_stats) != (r1.cycles, &r1.host_stats) {
                    return Err(format!(
                        "scale{n}: the compiled engine's run on {threads} thread(s) differs from the native one"
                    ));
                }
                Ok(rc)
            })
        };
        let (rc, _) = compiled(1)?;
        let (rc2, _) = compiled(2)?;
        println!(
            "{:<6} {:>14.1} {:>16.2} {:>14.1} {:>16.2} {:>10.2} {:>16.2} {:>16.3} {:>16.2} {:>10.2}",
            n,
            us(&r1),
            us(&r1) / n as f64,
            us(&r2),
            us(&r2) / n as f64,
            us(&r1) / us(&r2),
            us(&rc),
            us(&rc) / n as f64,
            us(&rc2),
            us(&rc) / us(&rc2)
        );
    }
    Ok(())
}

/// The timers under the three engines.
fn timer_bench(cycles: u64, seed: u64, work: &Path) -> Result<(), String> {
    // rust-hdl's Simulation is ~100x slower: give it a tenth of the cycles (at least 2000).
    let slow_cycles = (cycles / 10).max(2000).min(cycles);
    println!("ntsim bench: scanning timer, seeded random workload (seed {seed}), same inputs for every engine");
    println!(
        "{:<11} {:>16} {:>18} {:>16} {:>12} {:>14}",
        "block",
        "kernel cyc/s",
        "rust-hdl Sim cyc/s",
        "Verilator cyc/s",
        "kernel/Sim",
        "kernel/Verilator"
    );
    for block in ["timer_n16", "timer_n128"] {
        let stim = timer_stimulus(
            if block == "timer_n16" { 16 } else { 128 },
            16,
            cycles,
            seed,
        );
        let (k, s) = if block == "timer_n16" {
            (
                kernel_rate::<4, 16, 16>(&stim)?,
                rusthdl_rate::<4, 16, 16>(&stim[..slow_cycles as usize])?,
            )
        } else {
            (
                kernel_rate::<7, 128, 16>(&stim)?,
                rusthdl_rate::<7, 128, 16>(&stim[..slow_cycles as usize])?,
            )
        };
        let v = if which("verilator").is_some() {
            Some(verilator_rate(
                block,
                cycles.min(100_000),
                seed,
                work,
                cycles.max(2_000_000),
            )?)
        } else {
            None
        };
        let vs = v
            .map(|v| format!("{v:.0}"))
            .unwrap_or_else(|| "(no verilator)".into());
        let kv = v
            .map(|v| format!("{:.4}", k / v))
            .unwrap_or_else(|| "-".into());
        println!(
            "{:<11} {:>16.0} {:>18.0} {:>16} {:>12.2} {:>14}",
            block,
            k,
            s,
            vs,
            k / s,
            kv
        );
    }
    println!("(kernel: {cycles} cycles; rust-hdl Simulation: {slow_cycles} cycles; Verilator: the first {} cycles' inputs replayed to >= 2e6 cycles)", cycles.min(100_000));
    Ok(())
}

/// One row per block: our kernel with the block's seeded Rust driver in the loop
/// ([`nt_sim::runs::run_block`], `kernel_cycles` cycles) against the verilated module
/// replaying the inputs that run recorded (its first `replay_cycles` cycles, repeated to
/// at least `verilator_total` cycles). For the NICs, also the Verilator and compiled
/// engines: the same Rust driver stepping the model in this process
/// ([`nt_sim::runs::run_on`]), whose run must end with the native run's events; for the
/// NICs and the switch, the recorded inputs replayed on both engines.
fn driver_table(
    title: &str,
    blocks: &[(&str, u64, u64, u64)],
    seed: u64,
    work: &Path,
) -> Result<(), String> {
    println!();
    println!("{title} (seed {seed}); the kernel, the Verilator engine and the compiled engine run the Rust driver in the loop, plain Verilator replays its recorded inputs in a C++ loop; passes/cyc and us/pass: the kernel's settle passes per cycle and the wall time of one; full-eval: the kernel evaluating every block in every pass, as rust-hdl's Simulation does (kernel/full: what skipping the blocks nothing can have changed gains; the runs must agree); compiled: the same Verilog compiled to Rust by nt_sim::rcomp");
    println!(
        "{:<19} {:>8} {:>14} {:>11} {:>10} {:>16} {:>12} {:>14} {:>14} {:>14} {:>12} {:>14} {:>15}",
        "block",
        "cycles",
        "kernel cyc/s",
        "passes/cyc",
        "us/pass",
        "full-eval cyc/s",
        "kernel/full",
        "engine cyc/s",
        "compiled cyc/s",
        "plain cyc/s",
        "kernel/plain",
        "plain/engine",
        "compiled/plain"
    );
    let have = which("verilator").is_some();
    let mut replays = vec![];
    for &(block, cycles, replay_cycles, verilator_total) in blocks {
        let (s, _) = nt_sim::runs::run_block(block, cycles, seed, &Default::default())?;
        let k = s.cycles as f64 / s.seconds;
        let full = nt_sim::runs::RunOptions {
            full_eval: true,
            ..Default::default()
        };
        let (sf, _) = nt_sim::runs::run_block(block, cycles, seed, &full)?;
        if (sf.events, sf.commands) != (s.events, s.commands) {
            return Err(format!(
                "{block}: the full-evaluation run ended with {} events, {} commands; the kernel's with {}, {}",
                sf.events, sf.commands, s.events, s.commands
            ));
        }
        let kf = sf.cycles as f64 / sf.seconds;
        // A NIC runs its Rust driver on every engine (`run_on`); a switch's self-checking
        // workload reads its internals, so its engines replay the native run's ports.
        let driven = block.starts_with("nic_");
        let device = driven || block.starts_with("switch2_");
        // The engine's run must end where the native run ends; repeated until it took a
        // second, so that it is long enough to time.
        let timed = |backend: Backend| -> Result<f64, String> {
            let e = nt_sim::runs::run_on(backend, block, cycles, seed)?;
            if (e.events, e.commands) != (s.events, s.commands) {
                return Err(format!(
                    "{block}: the {backend:?} engine's run ended with {} events, {} commands; the native run's with {}, {}",
                    e.events, e.commands, s.events, s.commands
                ));
            }
            let mut total = (e.cycles, e.seconds);
            while total.1 < 1.0 {
                let r = nt_sim::runs::run_on(backend, block, cycles, seed)?;
                total = (total.0 + r.cycles, total.1 + r.seconds);
            }
            Ok(total.0 as f64 / total.1)
        };
        let engine = if have && driven {
            Some(timed(Backend::Verilator)?)
        } else {
            None
        };
        let compiled = if driven {
            Some(timed(Backend::Compiled)?)
        } else {
            None
        };
        let v = if have {
            eprintln!("bench: verilating {block}");
            let (rate, rec, text) =
                verilator_replay(block, replay_cycles, seed, work, verilator_total)?;
            if device {
                let e = replay_rate(Backend::Verilator, block, &text, &rec, verilator_total)?;
                let c = replay_rate(Backend::Compiled, block, &text, &rec, verilator_total)?;
                replays.push((block, rec.rows.len(), rate, e, c));
            }
            Some(rate)
        } else {
            None
        };
        let f = |x: Option<f64>| x.map(|v| format!("{v:.0}")).unwrap_or_else(|| "-".into());
        println!(
            "{:<19} {:>8} {:>14.0} {:>11.2} {:>10.2} {:>16.0} {:>12.2} {:>14} {:>14} {:>14} {:>12} {:>14} {:>15}",
            block,
            cycles,
            k,
            s.passes as f64 / s.cycles as f64,
            s.seconds * 1e6 / s.passes.max(1) as f64,
            kf,
            k / kf,
            f(engine),
            f(compiled),
            v.map(|v| format!("{v:.0}"))
                .unwrap_or_else(|| "(no verilator)".into()),
            v.map(|v| format!("{:.4}", k / v))
                .unwrap_or_else(|| "-".into()),
            v.zip(engine)
                .map(|(v, e)| format!("{:.3}", v / e))
                .unwrap_or_else(|| "-".into()),
            v.zip(compiled)
                .map(|(v, c)| format!("{:.3}", c / v))
                .unwrap_or_else(|| "-".into())
        );
    }
    if !replays.is_empty() {
        println!();
        println!("the same recorded inputs replayed (no workload): the plain C++ loop, and the model stepped from Rust through nt_sim::vmodel (verilated, and compiled by nt_sim::rcomp); plain/engine: what driving the verilated model from Rust costs over the C++ loop");
        println!(
            "{:<19} {:>8} {:>14} {:>16} {:>16} {:>13} {:>15}",
            "block",
            "rows",
            "plain cyc/s",
            "Rust->Verilator",
            "Rust->compiled",
            "plain/engine",
            "compiled/plain"
        );
        for (block, rows, plain, e, c) in replays {
            println!(
                "{:<19} {:>8} {:>14.0} {:>16.0} {:>16.0} {:>13.3} {:>15.3}",
                block,
                rows,
                plain,
                e,
                c,
                plain / e,
                c / plain
            );
        }
    }
    Ok(())
}

/// Two NDP NICs exchanging seeded random messages (1 B to 38 KiB, both ways) over 40-cycle
/// links, run to completion on one thread and on two ([`nt_sim::lockstep`]): wall time,
/// cycles/s and the speed-up. Both runs must end on the same cycle with the same frames.
fn pair_bench(msgs: usize, seed: u64) -> Result<(), String> {
    use nt_hdl::nic::NicNdp;
    use nt_sim::link::{Link, LinkCfg};
    use nt_sim::nic_pair::NicPair;
    use nt_sim::nic_sim::{AppMsg, NicConfig, NicSim};
    use rand::{Rng, SeedableRng};
    let run = |threads: usize| -> Result<(u64, f64, usize), String> {
        let mut ca = NicConfig::new(0x0200_0000_000a, 0x0a00_0001);
        ca.switch_mac = 0x0200_0000_000b;
        let mut cb = ca.clone();
        (cb.mac, cb.ip, cb.switch_mac) = (0x0200_0000_000b, 0x0a00_0002, ca.mac);
        let mut pair = NicPair::new(
            NicSim::new(NicNdp::new(), ca.clone())?,
            NicSim::new(NicNdp::new(), cb.clone())?,
            Link::new(LinkCfg::ideal(40), seed)?,
            Link::new(LinkCfg::ideal(40), seed + 1)?,
        );
        pair.set_threads(threads)?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut t = 0;
        for _ in 0..msgs {
            for to_b in [true, false] {
                let len = rng.gen_range(1..=38_912);
                let m = AppMsg {
                    cycle: t,
                    dst_ip: if to_b { cb.ip } else { ca.ip },
                    dst_port: 7,
                    src_port: 9,
                    payload: (0..len).map(|_| rng.gen()).collect(),
                };
                if to_b {
                    pair.a.send(m);
                } else {
                    pair.b.send(m);
                }
            }
            t += rng.gen_range(100..2000);
        }
        let t0 = Instant::now();
        let cycles = pair.run_until_settled(50_000_000)?;
        let secs = t0.elapsed().as_secs_f64();
        Ok((
            cycles,
            secs,
            pair.a.tx_frames.len() + pair.b.tx_frames.len(),
        ))
    };
    println!();
    println!("two NDP NICs, {msgs} random messages each way (seed {seed}), run to completion; the NICs step in parallel between cycles (nt_sim::lockstep)");
    thread_header();
    let (c1, s1, f1) = run(1)?;
    thread_row(1, c1, s1, 1.0);
    let (c2, s2, f2) = run(2)?;
    if (c1, f1) != (c2, f2) {
        return Err(format!(
            "two threads differ from one: {c2} cycles and {f2} frames against {c1} and {f1}"
        ));
    }
    thread_row(2, c2, s2, s1 / s2);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fastest_of_enough_runs_is_kept() {
        // Short runs: repeated until MIN_TIMED_SECS of them; the fastest is kept.
        let times = [0.9, 0.5, 0.7, 0.6, 0.8];
        let mut i = 0;
        let (best, runs) = fastest_of(
            || {
                i += 1;
                Ok(times[(i - 1) % times.len()])
            },
            |t| *t,
        )
        .unwrap();
        assert_eq!((best, runs), (0.5, 3));
        // Long runs: MIN_REPEATS all the same.
        let (best, runs) = fastest_of(|| Ok(5.0), |t| *t).unwrap();
        assert_eq!((best, runs), (5.0, MIN_REPEATS));
        // Instant runs stop at MAX_REPEATS.
        let (_, runs) = fastest_of(|| Ok(0.0), |t| *t).unwrap();
        assert_eq!(runs, MAX_REPEATS);
        // An error stops at once.
        let mut n = 0;
        let r = fastest_of(
            || {
                n += 1;
                if n == 2 {
                    Err("run 2 differs".to_string())
                } else {
                    Ok(1.0)
                }
            },
            |t| *t,
        );
        assert_eq!(r.unwrap_err(), "run 2 differs");
    }
}
