//! `ntsim bench`: cycles per second of the same timer workload under three engines, in one
//! run: our kernel, rust-hdl's threaded `Simulation`, and the emitted Verilog verilated and
//! driven by a plain C++ loop. Every engine replays the same precomputed inputs.
use nt_hdl::timer::ScanningTimer;
use nt_sim::kernel::Kernel;
use nt_sim::runs::timer_stimulus;
use nt_sim::verilator::{which, Harness};
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
    let spec = nt_hdl::registry::block(block).ok_or(format!("no block {block}"))?;
    let dir = work.join(block);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let v = dir.join(format!("{block}.v"));
    std::fs::write(&v, (spec.verilog)().map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
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
    Ok(cycles as f64 / secs)
}

pub fn bench(cycles: u64, seed: u64, work: &Path) -> Result<(), String> {
    if !(1000..=1_000_000_000).contains(&cycles) {
        return Err(format!("--cycles {cycles} is out of range (1000 ..= 1e9)"));
    }
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
    reassembly_bench(cycles, seed, work)
}

/// The reassembly and packetization modules: our kernel with their seeded drivers in the
/// loop, against the verilated module replaying the inputs that run recorded.
fn reassembly_bench(cycles: u64, seed: u64, work: &Path) -> Result<(), String> {
    let cycles = cycles.min(200_000);
    println!();
    println!("reassembly and packetization, seeded workloads (seed {seed}); the kernel runs the Rust driver in the loop, Verilator replays its recorded inputs");
    println!(
        "{:<19} {:>22} {:>16} {:>16}",
        "block", "kernel+driver cyc/s", "Verilator cyc/s", "kernel/Verilator"
    );
    for block in [
        "reassembly_n16",
        "reassembly_n128",
        "packetization_n16",
        "packetization_n128",
    ] {
        let (s, _) = nt_sim::runs::run_block(block, cycles, seed, &Default::default())?;
        let k = s.cycles as f64 / s.seconds;
        let v = if which("verilator").is_some() {
            Some(verilator_rate(
                block,
                cycles.min(50_000),
                seed,
                work,
                1_000_000,
            )?)
        } else {
            None
        };
        println!(
            "{:<19} {:>22.0} {:>16} {:>16}",
            block,
            k,
            v.map(|v| format!("{v:.0}"))
                .unwrap_or_else(|| "(no verilator)".into()),
            v.map(|v| format!("{:.4}", k / v))
                .unwrap_or_else(|| "-".into())
        );
    }
    Ok(())
}
