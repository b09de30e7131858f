//! Plain-Rust references for the scanning timer (`nt_hdl::timer::ScanningTimer`).
//!
//! * [`TimerModel`] – a cycle-exact golden model of the hardware, written against the
//!   `update` function of the block: the same registers (scan pointer, stage-1 id and
//!   stale flag, the memory's read-data register, the output register) in plain vectors.
//!   Fed the same inputs it must produce the same outputs in every cycle.
//! * [`TimerSpecChecker`] – a checker of the *documented contract* that knows nothing of
//!   the pipeline. It watches each cycle's inputs and outputs and panics (naming the cycle
//!   and the entry) on a premature, cancelled, stale-metadata or duplicate event, an event
//!   withdrawn or changed while back-pressured, or a timer that misses its upper bound.
//!
//! Both take `now` as the cycle number: the tests drive `now` = cycle, one call per cycle.
use crate::stream::{Beat, StreamMonitor};
use nt_sim::workload::{TimerCommand, TimerInputs, TimerOp, TimerOutputs};

fn meta_mask(meta_bits: usize) -> u64 {
    assert!(
        (1..=64).contains(&meta_bits),
        "meta_bits={meta_bits} must be 1..=64"
    );
    if meta_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << meta_bits) - 1
    }
}

fn check_entries(entries: usize) {
    assert!(
        entries.is_power_of_two() && (2..=1 << 16).contains(&entries),
        "entries={entries} must be a power of two in 2..=65536"
    );
}

/// An event on the output stream: `(id, meta)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimerEvent {
    pub id: u32,
    pub meta: u64,
}

/// Cycle-exact model of `ScanningTimer<A, N, M>` with `N = entries`, `M = meta_bits`.
///
/// Per cycle: [`TimerModel::outputs`] gives the outputs of the cycle (they come from
/// registers only, so they do not depend on the cycle's inputs), [`TimerModel::step`] is the
/// rising edge at the end of the cycle.
#[derive(Clone, Debug)]
pub struct TimerModel {
    entries: usize,
    mask: u64,
    // storage
    armed: Vec<bool>,
    expiry_mem: Vec<u64>,
    meta_mem: Vec<u64>,
    /// The memories' synchronous read-data registers (the row addressed last cycle, as it
    /// was before that cycle's write).
    read_expiry: u64,
    read_meta: u64,
    // scanner
    scan_ptr: usize,
    s1_id: usize,
    s1_stale: bool,
    /// The output register: `Some` while `source.valid` is high.
    out: Option<TimerEvent>,
    /// The `id`/`meta` the output register drives: the last loaded event. They are visible
    /// on `source.id`/`source.meta` even while `valid` is low, and compared there too.
    out_data: TimerEvent,
}

impl TimerModel {
    /// A timer with `entries` (a power of two) entries and `meta_bits` (1..=64) of
    /// metadata, in its power-up state: every register and memory row zero.
    pub fn new(entries: usize, meta_bits: usize) -> Self {
        check_entries(entries);
        TimerModel {
            entries,
            mask: meta_mask(meta_bits),
            armed: vec![false; entries],
            expiry_mem: vec![0; entries],
            meta_mem: vec![0; entries],
            read_expiry: 0,
            read_meta: 0,
            scan_ptr: 0,
            s1_id: 0,
            s1_stale: false,
            out: None,
            out_data: TimerEvent::default(),
        }
    }

    /// Number of entries.
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// Whether entry `id` is armed (the register value, i.e. as of the start of this cycle).
    pub fn is_armed(&self, id: u32) -> bool {
        self.armed[id as usize % self.entries]
    }

    /// The event in the output register, if `valid` is high.
    pub fn pending(&self) -> Option<TimerEvent> {
        self.out
    }

    /// The current scan pointer.
    pub fn scan_ptr(&self) -> usize {
        self.scan_ptr
    }

    /// The outputs in the current cycle (before the edge). Registered: `inputs` and `now`
    /// do not affect them, the parameters are there to mirror [`TimerModel::step`].
    pub fn outputs(&self, _inputs: &TimerInputs, _now: u64) -> TimerOutputs {
        TimerOutputs {
            valid: self.out.is_some(),
            id: self.out_data.id,
            meta: self.out_data.meta,
        }
    }

    /// The command as the hardware sees it: `id` cut to `A` bits, `meta` to `M` bits.
    fn cmd(&self, inputs: &TimerInputs) -> Option<TimerCommand> {
        inputs.cmd.map(|c| TimerCommand {
            id: c.id % self.entries as u32,
            meta: c.meta & self.mask,
            ..c
        })
    }

    /// Whether entry `s1_id` is fired in this cycle by the scanner (stage 1 decision).
    fn due(&self, inputs: &TimerInputs, now: u64) -> bool {
        let cmd_hits_s1 = self
            .cmd(inputs)
            .is_some_and(|c| c.id as usize == self.s1_id);
        self.armed[self.s1_id] && now >= self.read_expiry && !self.s1_stale && !cmd_hits_s1
    }

    /// The rising edge at the end of the cycle with these inputs.
    pub fn step(&mut self, inputs: &TimerInputs, now: u64) {
        let cmd = self.cmd(inputs);
        let armed_before = self.armed.clone();

        // Stage 1: decide on the row read last cycle.
        let due = self.due(inputs, now);
        let out_free = self.out.is_none() || inputs.ready;
        let stall = due && !out_free;

        // Output register.
        if inputs.ready {
            self.out = None;
        }
        if due && out_free {
            let ev = TimerEvent {
                id: self.s1_id as u32,
                meta: self.read_meta,
            };
            self.out = Some(ev);
            self.out_data = ev;
            self.armed[self.s1_id] = false;
        }

        // Stage 0: address the next entry, or re-read the stalled one. The read returns the
        // row as it is before this cycle's write.
        let read_addr = if stall {
            self.s1_id
        } else {
            let a = self.scan_ptr;
            self.scan_ptr = (self.scan_ptr + 1) % self.entries;
            a
        };
        self.s1_id = read_addr;
        self.read_expiry = self.expiry_mem[read_addr];
        self.read_meta = self.meta_mem[read_addr];
        self.s1_stale = cmd.is_some_and(|c| c.id as usize == read_addr);

        // Commands (after the scanner's disarm).
        if let Some(c) = cmd {
            let id = c.id as usize;
            match c.op {
                TimerOp::Schedule => {
                    self.expiry_mem[id] = c.expiry;
                    self.meta_mem[id] = c.meta;
                    self.armed[id] = true;
                }
                TimerOp::Reschedule => {
                    if armed_before[id] {
                        self.expiry_mem[id] = c.expiry;
                    }
                }
                TimerOp::Cancel => self.armed[id] = false,
            }
        }

        if inputs.reset {
            self.armed.iter_mut().for_each(|a| *a = false);
            self.out = None;
            self.scan_ptr = 0;
        }
    }
}

/// Why an entry is not armed, for the checker's messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Disarmed {
    Never,
    Cancelled { at: u64 },
    Reset { at: u64 },
    Fired { at: u64, scheduled_at: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Idle(Disarmed),
    Armed {
        /// Cycle of the latest schedule, or of the latest reschedule that took effect: the
        /// `W` of the bound.
        w: u64,
        /// Cycle of the latest schedule (the one that armed the entry).
        scheduled_at: u64,
        /// The expiry in effect.
        expiry: u64,
        /// The metadata of the latest schedule.
        meta: u64,
        /// Back-pressured cycles before cycle `w`.
        bp_before_w: u64,
    },
}

/// Counters of what a [`TimerSpecChecker`] has checked, to show a run was not vacuous.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpecStats {
    /// Cycles checked.
    pub cycles: u64,
    /// Events first presented (each checked for armed, expired, cancel rule and meta).
    pub events: u64,
    /// Events accepted (valid and ready).
    pub accepted: u64,
    /// Cycles with `valid && !ready` (each checked for a stable event next cycle).
    pub backpressured: u64,
    /// Cycles × armed entries at which the upper bound was evaluated.
    pub bound_checks: u64,
    /// Events that came with no back-pressure between `W` and `F` (the plain bound).
    pub events_unstalled: u64,
    /// Smallest `deadline - F` over all events (`u64::MAX` if none): 0 means the upper
    /// bound was reached exactly.
    pub min_slack: u64,
    /// Smallest `F - (E + 1)` over all events (`u64::MAX` if none): 0 means the lower bound
    /// was reached exactly.
    pub min_early_slack: u64,
}

/// Checks the documented contract of the scanning timer from its ports alone.
///
/// Feed it every cycle, in order, with [`TimerSpecChecker::check_cycle`]. The rules, with
/// `F` the cycle an event first appears (valid high, and the cycle before did not hold a
/// back-pressured event; the cycle after a reset never holds one):
///
/// 1. **Armed.** The entry was armed by a schedule at some cycle `S < F` and neither
///    cancelled nor reset in any cycle `S..=F-1`, and has not been presented since `S`
///    (once per schedule; a second event is reported as "fired twice"). Commands in cycle
///    `F` itself and later cannot retract an event: they count after the event.
/// 2. **Expired.** `E < F`, `E` being the expiry in effect after the commands of cycle
///    `F-1` (the schedule's, or that of a later reschedule; a reschedule of an entry that is
///    not armed is ignored, as in the contract).
/// 3. **Meta.** The event carries the meta of that schedule; `id < N`.
/// 4. **Stable.** After a cycle with `valid && !ready` (and no reset), the next cycle has
///    `valid` high and the same `id` and `meta`.
/// 5. **Upper bound.** An armed entry with window start `W` (its latest schedule, or the
///    latest reschedule that took effect: a reschedule rewrites the row, so it moves both
///    `E` and `W`) must be presented by `max(E, W+2) + N + S`, `S` being the number of
///    back-pressured cycles (`valid && !ready`) from `W` through the cycle checked. Each
///    stall of the scanner is such a cycle, so this is the documented "one cycle per stall"
///    bound, loosened only by back-pressured cycles in which the scanner happened not to
///    stall; with `ready` always high `S = 0` and the bound is the exact documented one.
///    Checked in every cycle `c` for every armed entry not presented by `c`: a violation is
///    `c >= max(E, W+2) + N + S(W..=c)`. (If the contract's `F <= max(E, W+2) + N + S(W..=F-1)`
///    holds, no such `c` exists: `F <= deadline(c) + (F-1-c)` would give `F <= c`.) A
///    reset disarms every entry, so windows never span a reset.
///
/// Inputs are interpreted as the hardware does: `id` modulo `N`, `meta` cut to `M` bits.
#[derive(Clone, Debug)]
pub struct TimerSpecChecker {
    entries: usize,
    mask: u64,
    slots: Vec<Slot>,
    /// The ready/valid protocol of `source`.
    stream: StreamMonitor<(u32, u64)>,
    /// Back-pressured cycles so far (before the current cycle).
    bp: u64,
    next_cycle: Option<u64>,
    context: String,
    stats: SpecStats,
}

impl TimerSpecChecker {
    /// A checker for a timer with `entries` entries and `meta_bits` of metadata, starting
    /// at power-up (nothing armed, output empty).
    pub fn new(entries: usize, meta_bits: usize) -> Self {
        check_entries(entries);
        TimerSpecChecker {
            entries,
            mask: meta_mask(meta_bits),
            slots: vec![Slot::Idle(Disarmed::Never); entries],
            stream: StreamMonitor::new("timer source"),
            bp: 0,
            next_cycle: None,
            context: String::new(),
            stats: SpecStats {
                min_slack: u64::MAX,
                min_early_slack: u64::MAX,
                ..Default::default()
            },
        }
    }

    /// Text put at the front of every violation message (e.g. the seed of the run).
    pub fn set_context(&mut self, context: impl Into<String>) {
        self.context = context.into();
    }

    /// What has been checked so far.
    pub fn stats(&self) -> SpecStats {
        self.stats
    }

    fn fail(&self, now: u64, id: Option<u32>, msg: String) -> ! {
        let ctx = if self.context.is_empty() {
            String::new()
        } else {
            format!("{}: ", self.context)
        };
        match id {
            Some(id) => panic!("{ctx}timer spec violation at cycle {now}, id {id}: {msg}"),
            None => panic!("{ctx}timer spec violation at cycle {now}: {msg}"),
        }
    }

    fn deadline(&self, w: u64, expiry: u64, bp_before_w: u64, bp_through_now: u64) -> u64 {
        expiry
            .max(w.saturating_add(2))
            .saturating_add(self.entries as u64)
            .saturating_add(bp_through_now - bp_before_w)
    }

    /// Checks one cycle: `now` (the cycle number, consecutive from call to call), the
    /// inputs driven in it and the outputs read in it (before the edge).
    pub fn check_cycle(&mut self, now: u64, inputs: &TimerInputs, out: &TimerOutputs) {
        if let Some(expected) = self.next_cycle {
            if now != expected {
                self.fail(
                    now,
                    None,
                    format!("checker fed cycle {now}, expected cycle {expected}"),
                );
            }
        }
        self.next_cycle = Some(now + 1);
        self.stats.cycles += 1;

        // Rule 4: an event held by back-pressure stays, unchanged (the stream protocol).
        let stalled_id = self.stream.stalled_payload().map(|p| p.0);
        let beat = self.stream.check(
            now,
            out.valid,
            inputs.ready,
            &(out.id, out.meta),
            inputs.reset,
        );
        let held = match beat {
            Ok(b) => b == Beat::Held,
            Err(msg) => self.fail(now, stalled_id.or(Some(out.id)), msg),
        };

        let bp_now = out.valid && !inputs.ready;
        let bp_through_now = self.bp + bp_now as u64;

        // Rules 1-3 for an event first presented in this cycle.
        if out.valid && !held {
            self.stats.events += 1;
            let id = out.id;
            if id as usize >= self.entries {
                self.fail(
                    now,
                    Some(id),
                    format!("event id out of range (N = {})", self.entries),
                );
            }
            match self.slots[id as usize] {
                Slot::Idle(why) => {
                    let msg = match why {
                        Disarmed::Never => "event for a timer that was never scheduled".to_string(),
                        Disarmed::Cancelled { at } => {
                            format!("event for a timer cancelled in cycle {at} (and not scheduled since)")
                        }
                        Disarmed::Reset { at } => {
                            format!("event for a timer disarmed by the reset in cycle {at} (and not scheduled since)")
                        }
                        Disarmed::Fired { at, scheduled_at } => format!(
                            "timer fired twice for one schedule (scheduled in cycle {scheduled_at}, already presented in cycle {at})"
                        ),
                    };
                    self.fail(now, Some(id), msg);
                }
                Slot::Armed {
                    w,
                    scheduled_at,
                    expiry,
                    meta,
                    bp_before_w,
                } => {
                    if expiry >= now {
                        self.fail(
                            now,
                            Some(id),
                            format!("event before its expiry: expiry {expiry}, first presented in cycle {now} (must be > expiry)"),
                        );
                    }
                    if out.meta != meta {
                        self.fail(
                            now,
                            Some(id),
                            format!("event meta {:#x}, but the schedule in cycle {scheduled_at} set {meta:#x}", out.meta),
                        );
                    }
                    let deadline = self.deadline(w, expiry, bp_before_w, self.bp);
                    if now > deadline {
                        // Normally caught by the per-cycle check below in an earlier cycle.
                        self.fail(
                            now,
                            Some(id),
                            format!("event after its deadline {deadline} (W {w}, E {expiry})"),
                        );
                    }
                    self.stats.min_slack = self.stats.min_slack.min(deadline - now);
                    self.stats.min_early_slack = self.stats.min_early_slack.min(now - expiry - 1);
                    if self.bp == bp_before_w {
                        self.stats.events_unstalled += 1;
                    }
                    self.slots[id as usize] = Slot::Idle(Disarmed::Fired {
                        at: now,
                        scheduled_at,
                    });
                }
            }
        }

        // Rule 5: every entry still armed must not be past its deadline.
        for (id, slot) in self.slots.iter().enumerate() {
            if let Slot::Armed {
                w,
                expiry,
                bp_before_w,
                ..
            } = *slot
            {
                self.stats.bound_checks += 1;
                let deadline = self.deadline(w, expiry, bp_before_w, bp_through_now);
                if now >= deadline {
                    self.fail(
                        now,
                        Some(id as u32),
                        format!(
                            "armed timer not presented by its deadline {deadline} = max(E {expiry}, W {w} + 2) + N {} + {} back-pressured cycles",
                            self.entries,
                            bp_through_now - bp_before_w
                        ),
                    );
                }
            }
        }

        // This cycle's command, after the event: a cancel in the cycle an event first
        // appears does not retract it, a reschedule then is ignored.
        if let Some(c) = inputs.cmd {
            let id = c.id as usize % self.entries;
            match c.op {
                TimerOp::Schedule => {
                    self.slots[id] = Slot::Armed {
                        w: now,
                        scheduled_at: now,
                        expiry: c.expiry,
                        meta: c.meta & self.mask,
                        bp_before_w: self.bp,
                    }
                }
                TimerOp::Reschedule => {
                    if let Slot::Armed {
                        scheduled_at, meta, ..
                    } = self.slots[id]
                    {
                        self.slots[id] = Slot::Armed {
                            w: now,
                            scheduled_at,
                            expiry: c.expiry,
                            meta,
                            bp_before_w: self.bp,
                        };
                    }
                }
                TimerOp::Cancel => {
                    // An entry that is not armed keeps its reason (e.g. "fired").
                    if let Slot::Armed { .. } = self.slots[id] {
                        self.slots[id] = Slot::Idle(Disarmed::Cancelled { at: now });
                    }
                }
            }
        }
        if inputs.reset {
            self.slots
                .iter_mut()
                .for_each(|s| *s = Slot::Idle(Disarmed::Reset { at: now }));
        }

        if out.valid && inputs.ready {
            self.stats.accepted += 1;
        }
        if bp_now {
            self.stats.backpressured += 1;
        }
        self.bp = bp_through_now;
    }
}
