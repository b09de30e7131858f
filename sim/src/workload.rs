//! Seeded random workloads for block-level simulation.
use nt_hdl::timer::{ScanningTimer, OP_CANCEL, OP_RESCHEDULE, OP_SCHEDULE};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A timer command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerOp {
    Schedule,
    Reschedule,
    Cancel,
}

impl TimerOp {
    /// The `cmd.op` code.
    pub fn code(self) -> u8 {
        match self {
            TimerOp::Schedule => OP_SCHEDULE,
            TimerOp::Reschedule => OP_RESCHEDULE,
            TimerOp::Cancel => OP_CANCEL,
        }
    }
}

/// One command on the timer's `cmd` port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerCommand {
    pub op: TimerOp,
    pub id: u32,
    pub expiry: u64,
    pub meta: u64,
}

/// The timer's inputs in one cycle (besides `now`, which is the cycle number).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimerInputs {
    pub reset: bool,
    pub cmd: Option<TimerCommand>,
    pub ready: bool,
}

/// Random timer traffic: schedules, reschedules and cancels on random entries with
/// expiries from "already past" to a few scan periods away, bursts of output
/// back-pressure, and a rare synchronous reset.
pub struct TimerWorkload {
    rng: ChaCha8Rng,
    entries: u32,
    meta_mask: u64,
    stall_left: u32,
    /// Probability of a command in a cycle.
    pub p_cmd: f64,
    /// Probability that a back-pressure burst starts in a cycle.
    pub p_stall: f64,
    /// Probability of a reset in a cycle.
    pub p_reset: f64,
}

impl TimerWorkload {
    /// A workload for a timer with `entries` entries and `meta_bits` of metadata.
    pub fn new(seed: u64, entries: usize, meta_bits: usize) -> Self {
        TimerWorkload {
            rng: ChaCha8Rng::seed_from_u64(seed),
            entries: entries as u32,
            meta_mask: if meta_bits >= 64 {
                u64::MAX
            } else {
                (1u64 << meta_bits) - 1
            },
            stall_left: 0,
            p_cmd: 0.5,
            p_stall: 0.02,
            p_reset: 0.0002,
        }
    }

    /// The inputs for the cycle whose `now` is `now`.
    pub fn next(&mut self, now: u64) -> TimerInputs {
        let r = &mut self.rng;
        let n = self.entries as u64;
        let reset = r.gen_bool(self.p_reset);
        let cmd = if r.gen_bool(self.p_cmd) {
            let op = match r.gen_range(0..100) {
                0..=54 => TimerOp::Schedule,
                55..=79 => TimerOp::Reschedule,
                _ => TimerOp::Cancel,
            };
            let expiry = match r.gen_range(0..10) {
                0 => now.saturating_sub(r.gen_range(0..4 * n)), // already expired
                1 => now + r.gen_range(0..20 * n),
                _ => now + r.gen_range(0..3 * n),
            };
            Some(TimerCommand {
                op,
                id: r.gen_range(0..self.entries),
                expiry,
                meta: r.gen::<u64>() & self.meta_mask,
            })
        } else {
            None
        };
        if self.stall_left == 0 && r.gen_bool(self.p_stall) {
            self.stall_left = r.gen_range(1..(2 * self.entries).max(2));
        }
        let ready = if self.stall_left > 0 {
            self.stall_left -= 1;
            false
        } else {
            r.gen_bool(0.9)
        };
        TimerInputs { reset, cmd, ready }
    }
}

/// Sets a timer's inputs for one cycle.
pub fn drive_timer<const A: usize, const N: usize, const M: usize>(
    t: &mut ScanningTimer<A, N, M>,
    now: u64,
    i: &TimerInputs,
) {
    t.now.next = now.into();
    t.reset.next = i.reset;
    t.source.ready.next = i.ready;
    match i.cmd {
        Some(c) => {
            t.cmd.valid.next = true;
            t.cmd.op.next = (c.op.code() as u64).into();
            t.cmd.id.next = (c.id as u64).into();
            t.cmd.expiry.next = c.expiry.into();
            t.cmd.meta.next = c.meta.into();
        }
        None => {
            t.cmd.valid.next = false;
            t.cmd.op.next = 0.into();
        }
    }
}

/// A timer's outputs in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimerOutputs {
    pub valid: bool,
    pub id: u32,
    pub meta: u64,
}

/// Reads a timer's outputs (after the kernel settled the cycle's inputs).
pub fn read_timer<const A: usize, const N: usize, const M: usize>(
    t: &ScanningTimer<A, N, M>,
) -> TimerOutputs {
    TimerOutputs {
        valid: t.source.valid.val(),
        id: t.source.id.val().index() as u32,
        meta: bits_u64(t.source.meta.val()),
    }
}

/// A `Bits<M>` (M ≤ 64) as u64.
pub fn bits_u64<const M: usize>(b: rust_hdl::prelude::Bits<M>) -> u64 {
    let mut v = 0u64;
    for i in 0..M.min(64) {
        if b.get_bit(i) {
            v |= 1 << i;
        }
    }
    v
}

/// Random bursts of backpressure on a `ready` input: in each cycle outside a burst, one
/// starts with probability `p` and lasts 1 to `max` cycles.
#[derive(Clone, Debug, Default)]
pub struct Stalls {
    left: u32,
}

impl Stalls {
    /// `ready` for this cycle.
    pub fn ready<R: rand::Rng>(&mut self, rng: &mut R, p: f64, max: u32) -> bool {
        if self.left == 0 && rng.gen_bool(p) {
            self.left = rng.gen_range(1..=max.max(1));
        }
        if self.left > 0 {
            self.left -= 1;
            false
        } else {
            true
        }
    }
}
