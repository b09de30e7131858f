//! Per-block simulation drivers used by the CLI (`ntsim`, `ntsim wave`, `ntsim bench`) and
//! the testbench: a block name, a seed and a cycle count in; a summary (and optionally a
//! waveform and the per-cycle port record) out.
use crate::kernel::{Kernel, KernelError};
use crate::ports::PortRecorder;
use crate::workload::{drive_timer, read_timer, TimerInputs, TimerWorkload};
use nt_hdl::timer::ScanningTimer;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// Blocks the drivers know, by their Verilog module name.
pub const SIM_BLOCKS: &[&str] = &["timer_n16", "timer_n128"];

/// Resolves a block name or alias (`timer` = `timer_n16`).
pub fn resolve_block(name: &str) -> Result<&'static str, String> {
    let n = match name {
        "timer" => "timer_n16",
        other => other,
    };
    SIM_BLOCKS.iter().copied().find(|b| *b == n).ok_or_else(|| {
        format!(
            "unknown block {name:?}; known: timer, {}",
            SIM_BLOCKS.join(", ")
        )
    })
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct RunSummary {
    pub block: &'static str,
    pub cycles: u64,
    pub seed: u64,
    /// Output events accepted (valid and ready).
    pub events: u64,
    /// Commands issued.
    pub commands: u64,
    pub seconds: f64,
}

/// Options of a run.
#[derive(Default)]
pub struct RunOptions<'a> {
    pub vcd: Option<&'a Path>,
    pub record_ports: bool,
    pub clock_hz: Option<f64>,
}

/// Runs `block` for `cycles` under its seeded workload. Returns the summary and, when
/// asked, the port record.
pub fn run_block(
    block: &str,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), String> {
    let block = resolve_block(block)?;
    match block {
        "timer_n16" => run_timer::<4, 16, 16>(block, cycles, seed, opts).map_err(|e| e.to_string()),
        "timer_n128" => {
            run_timer::<7, 128, 16>(block, cycles, seed, opts).map_err(|e| e.to_string())
        }
        _ => Err(format!("no driver for {block}")),
    }
}

/// The timer's workload inputs for `cycles` cycles (what every engine replays in `bench`).
pub fn timer_stimulus(
    entries: usize,
    meta_bits: usize,
    cycles: u64,
    seed: u64,
) -> Vec<TimerInputs> {
    let mut w = TimerWorkload::new(seed, entries, meta_bits);
    (0..cycles).map(|c| w.next(c)).collect()
}

fn run_timer<const A: usize, const N: usize, const M: usize>(
    block: &'static str,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), KernelError> {
    let mut k = Kernel::new(ScanningTimer::<A, N, M>::new())?;
    if let Some(hz) = opts.clock_hz {
        k.set_clock_hz(hz)?;
    }
    if let Some(p) = opts.vcd {
        let f = std::fs::File::create(p)?;
        k.record_vcd(Box::new(std::io::BufWriter::new(f)) as Box<dyn Write>)?;
    }
    if opts.record_ports {
        k.record_ports("clock")?;
    }
    let mut w = TimerWorkload::new(seed, N, M);
    let (mut events, mut commands) = (0u64, 0u64);
    let t0 = Instant::now();
    let progress_every = if cycles >= 2_000_000 {
        cycles / 10
    } else {
        u64::MAX
    };
    for _ in 0..cycles {
        if k.cycle() > 0 && k.cycle() % progress_every == 0 {
            eprintln!(
                "  {block}: {}% ({} of {cycles} cycles, {:.0} cycles/s)",
                k.cycle() * 100 / cycles,
                k.cycle(),
                k.cycle() as f64 / t0.elapsed().as_secs_f64()
            );
        }
        let now = k.cycle();
        let i = w.next(now);
        drive_timer(k.uut_mut(), now, &i);
        k.settle()?;
        let o = read_timer(k.uut());
        events += (o.valid && i.ready) as u64;
        commands += i.cmd.is_some() as u64;
        k.tick()?;
    }
    k.finish()?;
    let seconds = t0.elapsed().as_secs_f64();
    let rec = k.take_port_record();
    Ok((
        RunSummary {
            block,
            cycles,
            seed,
            events,
            commands,
            seconds,
        },
        rec,
    ))
}
