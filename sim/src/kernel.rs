//! The cycle kernel: steps any rust-hdl [`Block`] one clock cycle at a time from our own
//! loop, instead of rust-hdl's threaded `Simulation`.
//!
//! # A cycle
//! Cycle `c` spans `[c·T, (c+1)·T)` with the clock low in its first half and rising at
//! `c·T + T/2`:
//! 1. the caller sets the inputs for cycle `c` through [`Kernel::uut_mut`];
//! 2. [`Kernel::settle`] (called by [`Kernel::tick`] when needed) drives the clock low and
//!    propagates the inputs until nothing changes; outputs read now are cycle `c`'s
//!    (including combinational paths from inputs);
//! 3. [`Kernel::tick`] samples the VCD and the port recorder at `c·T`, raises the clock,
//!    settles the registers' new values, samples the VCD at `c·T + T/2` and moves to
//!    cycle `c + 1`.
//!
//! Setting the inputs and lowering the clock share one settle, so a cycle costs two settles.
//! No block here acts on the falling edge; a block that did would still see it.
use crate::ports::PortRecorder;
use crate::vcd::{WaveFile, WaveLayout, WaveOpts, WaveRecorder};
use nt_hdl::Clocked;
use rust_hdl::core::block::Tracker;
use rust_hdl::prelude::*;
use std::io::Write;

/// Default clock: 3.2 GHz (thesis §3.3).
pub const DEFAULT_CLOCK_HZ: f64 = 3.2e9;

/// Errors the kernel reports instead of panicking.
#[derive(Debug)]
pub enum KernelError {
    /// rust-hdl's structural check failed (unconnected signal, latch, ...).
    Check(String),
    /// The combinational logic did not settle (a loop) within the pass limit.
    NoConvergence { cycle: u64, passes: usize },
    /// Writing the waveform failed.
    Io(std::io::Error),
    /// A bad configuration value.
    Config(String),
    /// A self-checking workload saw the block do something wrong.
    Workload(String),
}

impl std::fmt::Display for KernelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KernelError::Check(s) => write!(f, "block check failed: {s}"),
            KernelError::NoConvergence { cycle, passes } => write!(
                f,
                "combinational logic did not settle after {passes} passes in cycle {cycle} (a combinational loop?)"
            ),
            KernelError::Io(e) => write!(f, "waveform output failed: {e}"),
            KernelError::Config(s) => write!(f, "bad kernel configuration: {s}"),
            KernelError::Workload(s) => write!(f, "workload check failed: {s}"),
        }
    }
}
impl std::error::Error for KernelError {}
impl From<std::io::Error> for KernelError {
    fn from(e: std::io::Error) -> Self {
        KernelError::Io(e)
    }
}

/// How the kernel reaches a block's clock input.
pub type ClockFn<B> = fn(&mut B) -> &mut Signal<In, Clock>;

/// Steps a clocked block cycle by cycle.
pub struct Kernel<B: Block> {
    uut: B,
    clock: ClockFn<B>,
    cycle: u64,
    period_fs: u64,
    max_passes: usize,
    passes: u64,
    dirty: bool,
    /// Settle passes skip the blocks nothing can have changed (rust-hdl-core's `Tracker`,
    /// patched in: see vendor/README.md); `None` evaluates everything every pass.
    tracker: Option<Tracker>,
    vcd: Option<WaveRecorder>,
    ports: Option<PortRecorder>,
}

impl<B: Block + Clocked> Kernel<B> {
    /// Connects `uut`, runs rust-hdl's `check_all` once and settles the initial state.
    pub fn new(uut: B) -> Result<Self, KernelError> {
        Kernel::with_clock(uut, |b| b.clock_input())
    }
}

impl<B: Block> Kernel<B> {
    /// As [`Kernel::new`], for a block that does not implement [`Clocked`]: `clock` returns
    /// its clock input.
    pub fn with_clock(mut uut: B, clock: ClockFn<B>) -> Result<Self, KernelError> {
        uut.connect_all();
        check_all(&uut).map_err(|e| KernelError::Check(format!("{e:?}")))?;
        let mut k = Kernel {
            uut,
            clock,
            cycle: 0,
            period_fs: period_fs(DEFAULT_CLOCK_HZ)?,
            max_passes: 10_000,
            passes: 0,
            dirty: true,
            tracker: Some(Tracker::new()),
            vcd: None,
            ports: None,
        };
        k.settle()?;
        Ok(k)
    }

    /// Sets the clock frequency used for waveform times (default 3.2 GHz).
    pub fn set_clock_hz(&mut self, hz: f64) -> Result<(), KernelError> {
        self.period_fs = period_fs(hz)?;
        Ok(())
    }

    /// Clock period in femtoseconds.
    pub fn period_fs(&self) -> u64 {
        self.period_fs
    }

    /// Records every signal of the hierarchy to `w` as VCD from now on, under the top
    /// scope `top` ([`crate::vcd`]).
    pub fn record_vcd(&mut self, w: Box<dyn Write + Send>, top: &str) -> Result<(), KernelError> {
        self.record_wave(WaveFile::Vcd(w), &WaveOpts::all(top))
    }

    /// Records the signals `opts` selects, in its window of cycles, to `w` (VCD or FST).
    pub fn record_wave(&mut self, w: WaveFile, opts: &WaveOpts) -> Result<(), KernelError> {
        let layout = WaveLayout::of_block(&self.uut);
        self.vcd = Some(WaveRecorder::new(w, &layout, opts)?);
        Ok(())
    }

    /// Records the top-level ports every cycle (for co-simulation) from now on.
    pub fn record_ports(&mut self, clock_name: &str) -> Result<(), KernelError> {
        self.ports = Some(PortRecorder::new(&self.uut, clock_name).map_err(KernelError::Config)?);
        Ok(())
    }

    /// The recorded port vectors, if [`Kernel::record_ports`] was called.
    pub fn take_port_record(&mut self) -> Option<PortRecorder> {
        self.ports.take()
    }

    /// The current cycle: the number of rising edges so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Read access to the block, e.g. its outputs.
    pub fn uut(&self) -> &B {
        &self.uut
    }

    /// Write access to the block, e.g. to set `input.next`. Marks the state as needing a
    /// settle, whose first pass evaluates the whole hierarchy (a write may reach any signal).
    pub fn uut_mut(&mut self) -> &mut B {
        self.dirty = true;
        if let Some(t) = self.tracker.as_mut() {
            t.force_full();
        }
        &mut self.uut
    }

    /// Whether settle passes skip the blocks nothing can have changed (the default) or
    /// evaluate every block every pass, as rust-hdl's own `Simulation` does. The results
    /// are the same cycle for cycle; the difference is speed (`ntsim bench`).
    pub fn set_tracking(&mut self, on: bool) {
        self.tracker = on.then(Tracker::new);
    }

    /// Propagates input changes with the clock low. Does nothing when nothing was touched.
    pub fn settle(&mut self) -> Result<(), KernelError> {
        if self.dirty {
            (self.clock)(&mut self.uut).next = Clock { clk: false };
            self.converge()?;
            self.dirty = false;
        }
        Ok(())
    }

    /// Completes the current cycle: settles, samples, rising edge, settles.
    pub fn tick(&mut self) -> Result<(), KernelError> {
        self.settle()?;
        let t0 = self.cycle * self.period_fs;
        if let Some(p) = self.ports.as_mut() {
            p.sample(&self.uut);
        }
        let rec = self.vcd.as_ref().is_some_and(|v| v.records(self.cycle));
        if let Some(v) = self.vcd.as_mut().filter(|_| rec) {
            v.sample_block(t0, &self.uut)?;
        }
        (self.clock)(&mut self.uut).next = Clock { clk: true };
        self.converge()?;
        if let Some(v) = self.vcd.as_mut().filter(|_| rec) {
            v.sample_block(t0 + self.period_fs / 2, &self.uut)?;
        }
        self.cycle += 1;
        self.dirty = true; // the clock must fall before the next sample
        Ok(())
    }

    /// Runs `n` cycles, calling `drive(cycle, uut)` to set each cycle's inputs.
    pub fn run<F: FnMut(u64, &mut B)>(&mut self, n: u64, mut drive: F) -> Result<(), KernelError> {
        for _ in 0..n {
            let c = self.cycle;
            drive(c, self.uut_mut());
            self.tick()?;
        }
        Ok(())
    }

    /// Flushes the waveform, if any.
    pub fn finish(&mut self) -> Result<(), KernelError> {
        let rec = self
            .vcd
            .as_ref()
            .is_some_and(|v| v.records(self.cycle.saturating_sub(1)));
        if let Some(v) = self.vcd.as_mut() {
            if rec {
                v.sample_block(self.cycle * self.period_fs, &self.uut)?;
            }
            v.flush()?;
        }
        Ok(())
    }

    /// Gives the block back.
    pub fn into_inner(self) -> B {
        self.uut
    }

    /// Settle passes run so far (each visits the hierarchy once, skipping what cannot have
    /// changed unless tracking is off).
    pub fn passes(&self) -> u64 {
        self.passes
    }

    fn converge(&mut self) -> Result<(), KernelError> {
        for _ in 0..self.max_passes {
            let changed = match self.tracker.as_mut() {
                Some(t) => t.pass(&mut self.uut),
                None => {
                    self.uut.update_all();
                    self.uut.has_changed()
                }
            };
            self.passes += 1;
            if !changed {
                return Ok(());
            }
        }
        Err(KernelError::NoConvergence {
            cycle: self.cycle,
            passes: self.max_passes,
        })
    }
}

/// Clock period in femtoseconds for a frequency in Hz (must be 1 kHz .. 1 PHz).
pub fn period_fs(hz: f64) -> Result<u64, KernelError> {
    if !hz.is_finite() || !(1e3..=1e15).contains(&hz) {
        return Err(KernelError::Config(format!(
            "clock frequency {hz} Hz is out of range (1 kHz .. 1 PHz)"
        )));
    }
    let p = (1e15 / hz).round() as u64;
    if p < 2 {
        return Err(KernelError::Config(format!(
            "clock frequency {hz} Hz is too high"
        )));
    }
    Ok(p)
}
