//! Per-block simulation drivers used by the CLI (`ntsim`, `ntsim wave`, `ntsim bench`) and
//! the testbench: a block name, a seed and a cycle count in; a summary (and optionally a
//! waveform and the per-cycle port record) out.
use crate::arb_workload::{drive_arbiter, read_arbiter, ArbWorkload};
use crate::deparser_workload::{DeparserWorkload, EgressCfg};
use crate::kernel::{Kernel, KernelError};
use crate::parser_workload::{HostCfg, ParserWorkload};
use crate::pktgen_workload::PktGenWorkload;
use crate::ports::PortRecorder;
use crate::prisched_workload::{read_prisched, PrioSchedWorkload};
use crate::rx_workload::{RxDriver, RxKnobs, RxSchedule};
use crate::statereg_workload::StateRegWorkload;
use crate::tx_workload::TxWorkload;
use crate::vmodel::Backend;
use crate::wire::Layout;
use crate::workload::{drive_timer, read_timer, TimerInputs, TimerWorkload};
use nt_hdl::arbiter::Arbiter;
use nt_hdl::deparser::Deparser;
use nt_hdl::packetization::Packetization;
use nt_hdl::parser::Parser;
use nt_hdl::pktgen::PacketGen16;
use nt_hdl::prisched::PrioSched;
use nt_hdl::reassembly::{Reassembly, ReassemblyConfig};
use nt_hdl::statereg::StateReg16x32;
use nt_hdl::timer::ScanningTimer;
use std::path::Path;
use std::time::Instant;

/// Blocks the drivers know, by their Verilog module name.
pub const SIM_BLOCKS: &[&str] = &[
    "timer_n16",
    "timer_n128",
    "reassembly_n16",
    "reassembly_n128",
    "packetization_n16",
    "packetization_n128",
    "arbiter",
    "parser_ndp",
    "parser_homa",
    "deparser_ndp",
    "deparser_homa",
    "pktgen_n16",
    "statereg_16x32",
    "prisched_n16",
    "prisched_n128",
    "nic_ndp",
    "nic_homa",
    "nic_bolt",
    "sbuf_p4",
    "sbuf_p16",
    "sadm_p4",
    "sadm_p16",
    "sing_p4",
    "sing_p16",
    "sque_p4",
    "sque_p16",
    "switch2_p4",
    "switch2_p16",
];

/// Resolves a block name or alias (`timer` = `timer_n16`, `reassembly` = `reassembly_n16`).
pub fn resolve_block(name: &str) -> Result<&'static str, String> {
    let n = match name {
        "timer" => "timer_n16",
        "reassembly" => "reassembly_n16",
        "packetization" => "packetization_n16",
        "parser" => "parser_ndp",
        "deparser" => "deparser_ndp",
        "pktgen" => "pktgen_n16",
        "statereg" => "statereg_16x32",
        "prisched" => "prisched_n16",
        "nic" => "nic_ndp",
        "switch" => "switch2_p4",
        other => other,
    };
    SIM_BLOCKS.iter().copied().find(|b| *b == n).ok_or_else(|| {
        format!(
            "unknown block {name:?}; known: timer, reassembly, packetization, parser, deparser, pktgen, statereg, prisched, nic, {}",
            SIM_BLOCKS.join(", ")
        )
    })
}

/// Inactivity timeout the reassembly runs drive on `cfg.timeout` (cycles).
pub const REASSEMBLY_RUN_TIMEOUT: u64 = 3000;

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
    /// Settle passes of our kernel in the run (each visits the hierarchy once, skipping
    /// the blocks nothing can have changed); 0 on the Verilator engine.
    pub passes: u64,
}

/// Options of a run.
#[derive(Clone, Default)]
pub struct RunOptions<'a> {
    pub vcd: Option<&'a Path>,
    /// What the VCD holds ([`crate::vcd::WaveOpts`]; its top scope is the block's name
    /// when `top` is empty).
    pub wave: crate::vcd::WaveOpts,
    pub record_ports: bool,
    pub clock_hz: Option<f64>,
    /// Evaluate every block in every settle pass, as rust-hdl's own `Simulation` does,
    /// instead of skipping the blocks nothing can have changed ([`Kernel::set_tracking`]):
    /// the same run, slower (the baseline of `ntsim bench`).
    pub full_eval: bool,
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
    let mut named = opts.clone();
    if named.wave.top.is_empty() {
        named.wave.top = block.to_string();
    }
    let opts = &named;
    match block {
        "timer_n16" => run_timer::<4, 16, 16>(block, cycles, seed, opts).map_err(|e| e.to_string()),
        "timer_n128" => {
            run_timer::<7, 128, 16>(block, cycles, seed, opts).map_err(|e| e.to_string())
        }
        "reassembly_n16" => run_reassembly::<4, 16, 5, 6, 64, 15>(
            block,
            &ReassemblyConfig::n16(),
            cycles,
            seed,
            opts,
        )
        .map_err(|e| e.to_string()),
        "reassembly_n128" => run_reassembly::<7, 128, 8, 9, 512, 17>(
            block,
            &ReassemblyConfig::n128(),
            cycles,
            seed,
            opts,
        )
        .map_err(|e| e.to_string()),
        "packetization_n16" => {
            run_packetization::<4, 16, 5, 15>(block, &ReassemblyConfig::n16(), cycles, seed, opts)
                .map_err(|e| e.to_string())
        }
        "packetization_n128" => {
            run_packetization::<7, 128, 8, 17>(block, &ReassemblyConfig::n128(), cycles, seed, opts)
                .map_err(|e| e.to_string())
        }
        "arbiter" => run_arbiter(block, cycles, seed, opts).map_err(|e| e.to_string()),
        "parser_ndp" => {
            run_parser(block, Layout::Ndp, cycles, seed, opts).map_err(|e| e.to_string())
        }
        "parser_homa" => {
            run_parser(block, Layout::Homa, cycles, seed, opts).map_err(|e| e.to_string())
        }
        "deparser_ndp" => {
            run_deparser(block, Layout::Ndp, cycles, seed, opts).map_err(|e| e.to_string())
        }
        "deparser_homa" => {
            run_deparser(block, Layout::Homa, cycles, seed, opts).map_err(|e| e.to_string())
        }
        "pktgen_n16" => run_pktgen(block, cycles, seed, opts).map_err(|e| e.to_string()),
        "statereg_16x32" => run_statereg(block, cycles, seed, opts).map_err(|e| e.to_string()),
        "prisched_n16" => {
            run_prisched::<4, 16>(block, cycles, seed, opts).map_err(|e| e.to_string())
        }
        "prisched_n128" => {
            run_prisched::<7, 128>(block, cycles, seed, opts).map_err(|e| e.to_string())
        }
        "nic_ndp" => run_nic(nt_hdl::nic::NicNdp::new(), block, cycles, seed, opts),
        "nic_homa" => run_nic(nt_hdl::nic::NicHoma::new(), block, cycles, seed, opts),
        "nic_bolt" => run_nic(nt_hdl::nic::NicBolt::new(), block, cycles, seed, opts),
        "sbuf_p4" => run_sbuf(
            nt_hdl::sbuf::SharedBuffer4::new(),
            4,
            11,
            block,
            cycles,
            seed,
            opts,
        ),
        "sbuf_p16" => run_sbuf(
            nt_hdl::sbuf::SharedBuffer16::new(),
            16,
            9,
            block,
            cycles,
            seed,
            opts,
        ),
        "sadm_p4" => run_sadm(
            nt_hdl::sadm::Admission4::new(),
            4,
            1,
            2048,
            block,
            cycles,
            seed,
            opts,
        ),
        "sadm_p16" => run_sadm(
            nt_hdl::sadm::Admission16::new(),
            16,
            2,
            512,
            block,
            cycles,
            seed,
            opts,
        ),
        "sing_p4" => run_sing(
            nt_hdl::sing::SwitchIngress4::new(),
            4,
            block,
            cycles,
            seed,
            opts,
        ),
        "sing_p16" => run_sing(
            nt_hdl::sing::SwitchIngress16::new(),
            16,
            block,
            cycles,
            seed,
            opts,
        ),
        "sque_p4" => run_sque(
            nt_hdl::sque::SwitchQueues4::new(),
            4,
            11,
            block,
            cycles,
            seed,
            opts,
        ),
        "sque_p16" => run_sque(
            nt_hdl::sque::SwitchQueues16::new(),
            16,
            9,
            block,
            cycles,
            seed,
            opts,
        ),
        "switch2_p4" => run_switch2(
            nt_hdl::switch2::SharedSwitch4::new(),
            4,
            1,
            block,
            cycles,
            seed,
            opts,
        ),
        "switch2_p16" => run_switch2(
            nt_hdl::switch2::SharedSwitch16::new(),
            16,
            2,
            block,
            cycles,
            seed,
            opts,
        ),
        _ => Err(format!("no driver for {block}")),
    }
}

/// The shared buffer under its self-checking workload ([`crate::sbuf_workload`]): events =
/// cycles with a word out, commands = frames in. A frame that comes out wrong is an error.
#[allow(clippy::too_many_arguments)]
fn run_sbuf<
    const N: usize,
    const CA: usize,
    const CC: usize,
    const N2: usize,
    const R: usize,
    const NR: usize,
    const NRW: usize,
    const NN: usize,
>(
    top: nt_hdl::sbuf::SharedBuffer<N, CA, CC, N2, R, NR, NRW, NN>,
    n: usize,
    ca: usize,
    block: &'static str,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), String> {
    use crate::sbuf_workload::{bolt_knobs, drive, read, SbufWorkload};
    let mut k = Kernel::new(top).map_err(|e| e.to_string())?;
    open_outputs(&mut k, opts).map_err(|e| e.to_string())?;
    // every path: trimmed and returned headers, Bolt's flags rewrite and SRCs
    let mut w = SbufWorkload::new(seed, n, ca, cycles, bolt_knobs());
    run_loop(k, block, cycles, seed, |k, now| {
        let (v, d) = checked_step(k, block, seed, now, read, |c, v| w.step(c, v), drive)?;
        let out = v.out.iter().any(|o| o.tx.is_some());
        let cmd = d.inp.iter().any(|i| i.rx.is_some_and(|x| x.1));
        Ok((out, cmd))
    })
    .map_err(|e| e.to_string())
}

/// One cycle of a self-checking workload: reads the block's outputs, lets the workload
/// check them and choose this cycle's inputs (a broken check is an error of the run),
/// drives them and settles. Returns what was read and what was driven.
fn checked_step<B, V, D>(
    k: &mut Kernel<B>,
    block: &str,
    seed: u64,
    now: u64,
    read: impl Fn(&B) -> V,
    step: impl FnOnce(u64, &V) -> Result<D, String>,
    drive: impl Fn(&mut B, &D),
) -> Result<(V, D), KernelError>
where
    B: rust_hdl::prelude::Block + nt_hdl::Clocked,
{
    let v = read(k.uut());
    let d =
        step(now, &v).map_err(|e| KernelError::Workload(format!("{block} seed {seed}: {e}")))?;
    drive(k.uut_mut(), &d);
    k.settle()?;
    Ok((v, d))
}

/// The switch's admission under its self-checking workload ([`crate::adm_workload`]):
/// ideal trimming, then Tofino-style trimming from halfway; events = verdicts, commands =
/// requests. A broken check is an error.
#[allow(clippy::too_many_arguments)]
fn run_sadm<
    const N: usize,
    const K: usize,
    const M: usize,
    const NB: usize,
    const KNB: usize,
    const CC: usize,
>(
    top: nt_hdl::sadm::Admission<N, K, M, NB, KNB, CC>,
    n: usize,
    lanes: usize,
    cells: u32,
    block: &'static str,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), String> {
    use crate::adm_workload::{drive, knobs, read, tofino_knobs, AdmWorkload, Knobs};
    let mut k = Kernel::new(top).map_err(|e| e.to_string())?;
    open_outputs(&mut k, opts).map_err(|e| e.to_string())?;
    // ideal trimming, then Tofino-style trimming after a reset halfway
    let mut tof = Knobs {
        cells,
        ..tofino_knobs()
    };
    tof.tof.pipes = if n > 4 { 4 } else { 2 };
    let mut w = AdmWorkload::new(seed, n, lanes, Knobs { cells, ..knobs() }).then(cycles / 2, tof);
    run_loop(k, block, cycles, seed, |k, now| {
        let (v, d) = checked_step(k, block, seed, now, read, |c, v| w.step(c, v), drive)?;
        let ev = v.vd.iter().any(|x| x.is_some());
        let cmd = d.req.iter().any(|x| x.is_some());
        Ok((ev, cmd))
    })
    .map_err(|e| e.to_string())
}

/// The switch's ingress under its self-checking workload ([`crate::sing_workload`]):
/// events = words out, commands = words in. A broken check is an error.
fn run_sing<const N: usize, const N8: usize, const NN: usize>(
    top: nt_hdl::sing::SwitchIngress<N, N8, NN>,
    n: usize,
    block: &'static str,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), String> {
    use crate::sing_workload::{drive, knobs, read, SingWorkload};
    let mut k = Kernel::new(top).map_err(|e| e.to_string())?;
    open_outputs(&mut k, opts).map_err(|e| e.to_string())?;
    let mut w = SingWorkload::new(seed, n, knobs());
    run_loop(k, block, cycles, seed, |k, now| {
        let (v, d) = checked_step(k, block, seed, now, read, |c, v| w.step(c, v), drive)?;
        let ev = v.out.iter().any(|x| x.is_some());
        let cmd = d.rx.iter().any(|x| x.is_some());
        Ok((ev, cmd))
    })
    .map_err(|e| e.to_string())
}

/// The switch's queues and schedulers under their self-checking workload
/// ([`crate::sque_workload`]): events = descriptors out, commands = verdicts in. A broken
/// check is an error; the run ends with a drain and checks that every packet left.
#[allow(clippy::too_many_arguments)]
fn run_sque<
    const N: usize,
    const K: usize,
    const M: usize,
    const CA: usize,
    const CC: usize,
    const RP: usize,
    const NB: usize,
    const KNB: usize,
    const KRP: usize,
    const NRP: usize,
    const NK: usize,
    const N4K: usize,
    const KP: usize,
>(
    top: nt_hdl::sque::SwitchQueues<N, K, M, CA, CC, RP, NB, KNB, KRP, NRP, NK, N4K, KP>,
    n: usize,
    ca: usize,
    block: &'static str,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), String> {
    use crate::sque_workload::{drive, knobs, read, Knobs, SqueWorkload};
    let mut k = Kernel::new(top).map_err(|e| e.to_string())?;
    open_outputs(&mut k, opts).map_err(|e| e.to_string())?;
    let drain = (cycles / 2).min(knobs().drain);
    // a share of deflected headers through two pipes' recirculation paths
    let kn = Knobs {
        drain,
        dod_p: 0.15,
        pipes: 2,
        ..knobs()
    };
    let mut w = SqueWorkload::new(seed, n, 1 << ca, cycles, kn);
    let r = run_loop(k, block, cycles, seed, |k, now| {
        let (v, d) = checked_step(k, block, seed, now, read, |c, v| w.step(c, v), drive)?;
        let ev = v.dq.iter().any(|x| x.is_some());
        let cmd = d.vd.iter().any(|x| x.is_some());
        Ok((ev, cmd))
    })
    .map_err(|e| e.to_string())?;
    w.finish()
        .map_err(|e| format!("{block} seed {seed}: {e}"))?;
    Ok(r)
}

/// The new switch under its self-checking workload ([`crate::switch2_workload`]):
/// events = words out, commands = words in. A broken check is an error; the run ends with
/// a drain and checks that everything left and every frame is accounted for.
#[allow(clippy::too_many_arguments)]
fn run_switch2<
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
>(
    top: nt_hdl::switch2::SharedSwitch<
        N,
        N8,
        NN,
        K,
        M,
        NB,
        KNB,
        CA,
        CC,
        N2,
        R,
        NR,
        NRW,
        RP,
        KRP,
        NRP,
        NK,
        N4K,
        KP,
    >,
    n: usize,
    lanes: usize,
    block: &'static str,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), String> {
    use crate::switch2_workload::{drive, knobs, read, tofino_knobs, Knobs, Switch2Workload};
    let mut k = Kernel::new(top).map_err(|e| e.to_string())?;
    open_outputs(&mut k, opts).map_err(|e| e.to_string())?;
    let drain = (cycles / 2).min(knobs().drain);
    // ideal trimming, then Tofino-style trimming from a third of the way
    let mut w = Switch2Workload::new(seed, n, lanes, cycles, Knobs { drain, ..knobs() }).then(
        cycles / 3,
        Knobs {
            drain,
            ..tofino_knobs()
        },
    );
    let mut last = None;
    let r = run_loop(k, block, cycles, seed, |k, now| {
        let (v, d) = checked_step(k, block, seed, now, read, |c, v| w.step(c, v), drive)?;
        let ev = v.tx.iter().any(|x| x.is_some());
        let cmd = d.rx.iter().any(|x| x.is_some());
        last = Some(v);
        Ok((ev, cmd))
    })
    .map_err(|e| e.to_string())?;
    if let Some(v) = last {
        w.finish(&v)
            .map_err(|e| format!("{block} seed {seed}: {e}"))?;
    }
    Ok(r)
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

/// Opens the run's kernel outputs (clock, VCD, port record) as `opts` asks.
fn open_outputs<B: rust_hdl::prelude::Block + nt_hdl::Clocked>(
    k: &mut Kernel<B>,
    opts: &RunOptions,
) -> Result<(), KernelError> {
    if let Some(hz) = opts.clock_hz {
        k.set_clock_hz(hz)?;
    }
    k.set_tracking(!opts.full_eval);
    if let Some(p) = opts.vcd {
        let mut w = opts.wave.clone();
        if w.top.is_empty() {
            w.top = "top".into();
        }
        // a GTKWave save file beside it, naming it
        if w.save_file.is_none() {
            let name = p.file_name().map(|n| n.to_string_lossy().to_string());
            w.save_file = name.map(|n| (p.with_extension("gtkw"), n));
        }
        let f = crate::vcd::WaveFile::create(p).map_err(KernelError::Config)?;
        k.record_wave(f, &w)?;
    }
    if opts.record_ports {
        k.record_ports("clock")?;
    }
    Ok(())
}

/// Prints progress on long runs (every 10 % from 2 M cycles on).
fn progress(block: &str, now: u64, cycles: u64, t0: Instant) {
    if cycles >= 2_000_000 && now > 0 && now.is_multiple_of(cycles / 10) {
        eprintln!(
            "  {block}: {}% ({now} of {cycles} cycles, {:.0} cycles/s)",
            now * 100 / cycles,
            now as f64 / t0.elapsed().as_secs_f64()
        );
    }
}

/// The reassembly module under [`RxDriver`] playing a seeded [`RxSchedule`]: interleaved,
/// reordered, duplicated, lost and trimmed packets of messages from 16+ senders, with
/// output backpressure. Events = message words delivered; commands = requests accepted.
fn run_reassembly<
    const A: usize,
    const N: usize,
    const C: usize,
    const SA: usize,
    const S: usize,
    const BW: usize,
>(
    block: &'static str,
    cfg: &ReassemblyConfig,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), KernelError> {
    let mut k = Kernel::new(Reassembly::<A, N, C, SA, S, BW>::new(cfg))?;
    open_outputs(&mut k, opts)?;
    let knobs = RxKnobs {
        messages: (cycles / 150).clamp(8, 100_000) as usize,
        ..RxKnobs::default()
    };
    let sched = RxSchedule::generate(seed, &knobs);
    let mut d = RxDriver::new(sched, &knobs, seed, N, REASSEMBLY_RUN_TIMEOUT);
    run_loop(k, block, cycles, seed, |k, now| {
        d.drive(now, k.uut_mut());
        k.settle()?;
        let seen = d.observe(now, k.uut());
        Ok((seen.out.valid && seen.out.ready, seen.req.is_some()))
    })
}

/// Runs `cycles` cycles of `k`: `step` sets the cycle's inputs, settles and reads the
/// outputs, returning (an output event happened, a command was issued); then the clock
/// ticks. Prints progress on long runs and returns the summary and the port record.
fn run_loop<B, F>(
    mut k: Kernel<B>,
    block: &'static str,
    cycles: u64,
    seed: u64,
    mut step: F,
) -> Result<(RunSummary, Option<PortRecorder>), KernelError>
where
    B: rust_hdl::prelude::Block + nt_hdl::Clocked,
    F: FnMut(&mut Kernel<B>, u64) -> Result<(bool, bool), KernelError>,
{
    let (mut events, mut commands) = (0u64, 0u64);
    let passes0 = k.passes();
    let t0 = Instant::now();
    for _ in 0..cycles {
        let now = k.cycle();
        progress(block, now, cycles, t0);
        let (event, command) = step(&mut k, now)?;
        events += event as u64;
        commands += command as u64;
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
            passes: k.passes() - passes0,
        },
        rec,
    ))
}

/// The packetization module under [`TxWorkload`]: events = words out, commands =
/// application words taken.
fn run_packetization<const A: usize, const N: usize, const C: usize, const BW: usize>(
    block: &'static str,
    cfg: &ReassemblyConfig,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), KernelError> {
    let mut k = Kernel::new(Packetization::<A, N, C, BW>::new(cfg))?;
    open_outputs(&mut k, opts)?;
    let mut w = TxWorkload::new(seed);
    run_loop(k, block, cycles, seed, |k, now| {
        w.drive(now, k.uut_mut());
        k.settle()?;
        Ok(w.observe(k.uut()))
    })
}

/// The ingress parser under [`ParserWorkload`]: events = words out, commands = words in.
fn run_parser(
    block: &'static str,
    layout: Layout,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), KernelError> {
    let mut k = Kernel::new(Parser::new(layout == Layout::Homa))?;
    open_outputs(&mut k, opts)?;
    let mut w = ParserWorkload::new(seed, HostCfg::new(layout));
    run_loop(k, block, cycles, seed, |k, _now| {
        let word = w.drive(k.uut_mut());
        k.settle()?;
        let u = k.uut();
        Ok((u.source.valid.val() && u.source.ready.val(), word.is_some()))
    })
}

/// The egress deparser under [`DeparserWorkload`]: events = words out, commands = words
/// in.
fn run_deparser(
    block: &'static str,
    layout: Layout,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), KernelError> {
    let mut k = Kernel::new(Deparser::new(layout == Layout::Homa))?;
    open_outputs(&mut k, opts)?;
    let cfg = EgressCfg {
        mac: 0x0200_0000_0001,
        ip: 0x0a00_0001,
        switch_mac: 0x0200_0000_00fe,
        protocol: HostCfg::new(layout).protocol,
    };
    let mut w = DeparserWorkload::new(seed, cfg);
    run_loop(k, block, cycles, seed, |k, _now| {
        w.drive(k.uut_mut());
        k.settle()?;
        let u = k.uut();
        let r = (
            u.source.valid.val() && u.source.ready.val(),
            u.sink.valid.val() && u.sink.ready.val(),
        );
        w.observe(u);
        Ok(r)
    })
}

/// The packet generator under [`PktGenWorkload`] (NDP: paced PULLs every 136 cycles):
/// events = beats out, commands = events taken.
fn run_pktgen(
    block: &'static str,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), KernelError> {
    let mut k = Kernel::new(PacketGen16::new())?;
    open_outputs(&mut k, opts)?;
    let mut w = PktGenWorkload::new(seed, true, 136);
    run_loop(k, block, cycles, seed, |k, _now| {
        w.drive(k.uut_mut());
        k.settle()?;
        let u = k.uut();
        let r = (
            u.source.valid.val() && u.source.ready.val(),
            u.event.valid.val() && u.event.ready.val(),
        );
        w.observe(u);
        Ok(r)
    })
}

/// The stateful registers under [`StateRegWorkload`]: events = responses, commands =
/// operations.
fn run_statereg(
    block: &'static str,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), KernelError> {
    let mut k = Kernel::new(StateReg16x32::new())?;
    open_outputs(&mut k, opts)?;
    let mut w = StateRegWorkload::new(seed, 16);
    run_loop(k, block, cycles, seed, |k, _now| {
        let (i, e) = w.drive(k.uut_mut());
        k.settle()?;
        let u = k.uut();
        Ok((
            u.ingress_resp.valid.val() || u.egress_resp.valid.val(),
            i.is_some() || e.is_some(),
        ))
    })
}

/// The priority scheduler under [`PrioSchedWorkload`]: events = responses, commands =
/// commands accepted.
fn run_prisched<const A: usize, const N: usize>(
    block: &'static str,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), KernelError> {
    let mut k = Kernel::new(PrioSched::<A, N>::new())?;
    open_outputs(&mut k, opts)?;
    let mut w = PrioSchedWorkload::new(seed, N);
    run_loop(k, block, cycles, seed, |k, _now| {
        let i = w.drive(k.uut_mut());
        k.settle()?;
        let o = read_prisched(k.uut());
        w.taken(&i, o.cmd_ready);
        Ok((o.resp.valid, i.cmd.is_some() && o.cmd_ready))
    })
}

/// The arbiter under [`ArbWorkload`]: events = beats out, commands = packets out.
fn run_arbiter(
    block: &'static str,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), KernelError> {
    let mut k = Kernel::new(Arbiter::new())?;
    open_outputs(&mut k, opts)?;
    let mut w = ArbWorkload::new(seed);
    run_loop(k, block, cycles, seed, |k, now| {
        let i = w.next(now);
        drive_arbiter(k.uut_mut(), &i);
        k.settle()?;
        let o = read_arbiter(k.uut());
        w.taken(
            i.ctrl.is_some() && o.ctrl_ready,
            i.data.is_some() && o.data_ready,
        );
        let out = o.valid && i.ready && !i.reset;
        Ok((out, out && o.beat.last))
    })
}

fn run_timer<const A: usize, const N: usize, const M: usize>(
    block: &'static str,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), KernelError> {
    let mut k = Kernel::new(ScanningTimer::<A, N, M>::new())?;
    open_outputs(&mut k, opts)?;
    let mut w = TimerWorkload::new(seed, N, M);
    run_loop(k, block, cycles, seed, |k, now| {
        let i = w.next(now);
        drive_timer(k.uut_mut(), now, &i);
        k.settle()?;
        let o = read_timer(k.uut());
        Ok((o.valid && i.ready, i.cmd.is_some()))
    })
}

/// A NIC talking to itself through a link that trims 5 % of its DATA frames: seeded
/// random messages (1 B to 38 KiB) to its own address, so both directions of every block
/// work. Events = messages delivered; commands = messages sent.
fn run_nic<T: nt_hdl::nic::NicTop>(
    top: T,
    block: &'static str,
    cycles: u64,
    seed: u64,
    opts: &RunOptions,
) -> Result<(RunSummary, Option<PortRecorder>), String> {
    use crate::nic_sim::NicSim;
    let mut nic = NicSim::new(top, nic_run_config(T::PROGRAM))?;
    open_outputs(nic.kernel_mut(), opts).map_err(|e| e.to_string())?;
    let passes0 = nic.kernel_mut().passes();
    let mut summary = nic_loop(&mut nic, T::PROGRAM, block, cycles, seed)?;
    let k = nic.kernel_mut();
    summary.passes = k.passes() - passes0;
    k.finish().map_err(|e| e.to_string())?;
    Ok((summary, k.take_port_record()))
}

/// The NIC's configuration in [`run_block`]'s runs.
fn nic_run_config(program: &str) -> crate::nic_sim::NicConfig {
    let mut cfg = crate::nic_sim::NicConfig::new(0x0200_0000_000a, 0x0a00_0001);
    cfg.switch_mac = cfg.mac;
    cfg.timeout = 4000;
    cfg.rx_timeout = 4000 * 8;
    if program == "bolt" {
        // Small first windows, so that Bolt's windows decide when packets leave.
        cfg.rtt_pkts = 2;
    }
    cfg
}

/// The NIC run of [`run_block`] on any engine: seeded messages to itself through a link
/// that chops 5 % of frames (Bolt: and plays a congested switch).
fn nic_loop<E: crate::nic_sim::NicEngine>(
    nic: &mut crate::nic_sim::NicDriver<E>,
    program: &str,
    block: &'static str,
    cycles: u64,
    seed: u64,
) -> Result<RunSummary, String> {
    use crate::link::{Link, LinkCfg};
    use crate::nic_sim::AppMsg;
    use rand::{Rng, SeedableRng};
    let ip = nic.config().ip;
    let mut link = Link::new(
        LinkCfg {
            chop: 0.05,
            ..LinkCfg::ideal(40)
        },
        seed,
    )?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut t = 0u64;
    while t < cycles {
        let len = match rng.gen_range(0..3) {
            0 => rng.gen_range(1..=64),
            1 => rng.gen_range(65..=4096),
            _ => rng.gen_range(4097..=38912),
        };
        nic.send(AppMsg {
            cycle: t,
            dst_ip: ip,
            dst_port: rng.gen_range(1..100),
            src_port: rng.gen_range(1000..1100),
            payload: (0..len).map(|_| rng.gen()).collect(),
        });
        t += rng.gen_range(10..(len as u64 / 4).max(20));
    }
    let t0 = Instant::now();
    let mut seen = 0;
    for _ in 0..cycles {
        let now = nic.cycle();
        progress(block, now, cycles, t0);
        for p in link.arrivals(now) {
            nic.push_rx(p);
        }
        nic.step()?;
        while seen < nic.tx_frames.len() {
            let mut f = nic.tx_frames[seen].clone();
            // Bolt: play the congested switch of Algorithm 7. One DATA packet in three
            // draws an SRC (queue 0-8 KiB, so that the decrement test goes both ways) and
            // half lose their INC flag (no token), so that windows shrink as well as grow
            // and the credit they set decides what the NIC sends.
            if program == "bolt" {
                let data = f.bytes.len() >= crate::wire::HDR_BYTES
                    && f.bytes[34] & crate::wire::FLAG_DATA != 0;
                if data && rng.gen_range(0..3) == 0 {
                    if let Some(src) =
                        crate::wire::bolt_src_of(&f.bytes, rng.gen_range(0..8192), 100)
                    {
                        link.send(&crate::pcap::Packet {
                            cycle: f.cycle,
                            bytes: src,
                        });
                    }
                }
                if data && rng.gen_bool(0.5) {
                    f.bytes[crate::wire::BOLT_OFFSET + 4] &= !nt_hdl::swif::BOLT_INC;
                }
            }
            link.send(&f);
            seen += 1;
        }
    }
    Ok(RunSummary {
        block,
        cycles,
        seed,
        events: nic.delivered.len() as u64,
        commands: nic.outcomes.len() as u64,
        seconds: t0.elapsed().as_secs_f64(),
        passes: 0,
    })
}

/// [`run_block`]'s run of `nic_ndp`, `nic_homa` or `nic_bolt`
/// on the Verilator engine ([`crate::vmodel`]): the same seeded workload, the device's
/// emitted Verilog stepped in this process. Its events and commands equal the native
/// run's when the engines agree.
pub fn run_verilated(block: &str, cycles: u64, seed: u64) -> Result<RunSummary, String> {
    run_on(Backend::Verilator, block, cycles, seed)
}

/// [`run_verilated`]'s run with the library built by `backend` (the Verilator engine, or
/// the compiled engine: the same Verilog compiled to Rust by [`crate::rcomp`]).
pub fn run_on(backend: Backend, block: &str, cycles: u64, seed: u64) -> Result<RunSummary, String> {
    use crate::nic_sim::{NicDriver, VNic};
    use nt_hdl::nic::NicTop;
    let block = resolve_block(block)?;
    let nic = |v: VNic, program: &str| -> Result<RunSummary, String> {
        let mut d = NicDriver::with_engine(v, nic_run_config(program))?;
        nic_loop(&mut d, program, block, cycles, seed)
    };
    match block {
        "nic_ndp" => nic(
            VNic::of_with(backend, block, nt_hdl::nic::NicNdp::new)?,
            nt_hdl::nic::NicNdp::PROGRAM,
        ),
        "nic_homa" => nic(
            VNic::of_with(backend, block, nt_hdl::nic::NicHoma::new)?,
            nt_hdl::nic::NicHoma::PROGRAM,
        ),
        "nic_bolt" => nic(
            VNic::of_with(backend, block, nt_hdl::nic::NicBolt::new)?,
            nt_hdl::nic::NicBolt::PROGRAM,
        ),
        _ => Err(format!(
            "no {backend:?}-engine run of {block}: nic_ndp, nic_homa, nic_bolt (a block's Verilog is co-simulated by replaying its native run's recorded ports)"
        )),
    }
}
