//! Scanning timer memory (thesis §3.2.5, §3.3.3).
//!
//! One timer per message, stored in a memory indexed by message id. Each entry holds an
//! *armed* (valid) bit, a 64-bit expiry cycle and a metadata field of `M` bits. A
//! background scanner reads one entry per cycle, round robin, and emits an expiry event
//! for every armed entry whose expiry cycle has passed.
//!
//! ```text
//!             cmd (single-cycle writes, always accepted)
//!   valid ──┐ op[2] id[A] expiry[64] meta[M]
//!           ▼
//!   ┌──────────────┐  read_addr  ┌─────────────┐ exp,meta ┌───────────┐  source
//!   │ scan_ptr (A) ├────────────►│ expiry/meta ├─────────►│ due? ──►  ├──► valid,id,meta
//!   └──────────────┘             │  RAM (sync) │  stage 1 │ out reg   │◄── ready
//!                                └─────────────┘          └───────────┘
//!   armed[N] flip-flops: set by schedule, cleared by cancel and by firing
//! ```
//!
//! # Interface
//! * `now` – the current cycle (the caller's free-running 64-bit cycle counter).
//! * `cmd` – one command per cycle, never back-pressured:
//!   * `OP_SCHEDULE`: arm entry `id` with `expiry` and `meta` (re-arms an armed entry);
//!   * `OP_RESCHEDULE`: if entry `id` is armed, replace its expiry; its meta is kept. A
//!     reschedule of an entry that is not armed is ignored, so it can never revive a
//!     cancelled or already fired timer;
//!   * `OP_CANCEL`: disarm entry `id`.
//!   Each is a single write: the armed bit (a flip-flop) and at most one memory row.
//! * `source` – expiry events `(id, meta)` on a ready/valid stream. `valid` stays high,
//!   with `id`/`meta` stable, until `ready`. A fired timer is disarmed: it fires once per
//!   schedule.
//! * `reset` – synchronous: disarms every entry, empties the output register and restarts
//!   the scan at entry 0.
//!
//! # Timing (all in cycles of `clock`; `now` counting cycles)
//! The scanner points at entry `scan_ptr` in cycle `r`; its row, as of the commands up to
//! cycle `r-1`, is in a register in `r+1`, where the entry is *due* if it is armed and
//! `now >= expiry`. A due entry is loaded into the output register and disarmed, and its
//! event is on `source` from `r+2`. While the output register is full and back-pressured,
//! stage 1 keeps its due entry (its metadata in a register) and the scanner stays on
//! `scan_ptr`, whose row the register keeps (commands for it written in).
//! `now` must never decrease (it counts cycles): a kept entry stays due.
//!
//! Above [`READ_AHEAD_ABOVE`] entries the row register is filled a cycle ahead: the
//! memories read `scan_ptr + 1` in `r-1`, and a command in `r-1` that writes that row is
//! forwarded in place of the memory's old row. So the memories' read address is a
//! register plus one, never the stall decision, and their read data feeds only that
//! register (through one two-way multiplexer), never the 64-bit compare: a block RAM's
//! clock-to-out and the compare's carry chain are in different cycles. Smaller timers use
//! the memories' own read register as the row, reading `scan_ptr` in `r`.
//!
//! For a timer armed by a command in cycle `W` with expiry `E`, and `source.ready` held high,
//! the event first appears on `source.valid` in a cycle `F` with
//!
//! ```text
//!     E + 1  <=  F  <=  max(E, W + 2) + N
//! ```
//!
//! i.e. a timer never fires early and fires at most `N` cycles after it expires (the scan
//! period; it can be missed by one pass when it expires just after its entry was read).
//! Each cycle in which the scanner is stalled by a full, back-pressured output register adds
//! one cycle to the upper bound. The bound is tight and tested.
//!
//! # Collisions between a command and the scanner
//! * A command for the entry the scanner is deciding on in the same cycle (stage 1) wins:
//!   the scanner does not fire it this pass. A cancel therefore takes effect even in the
//!   very cycle the entry would have fired.
//! * A command for the entry the scanner *reads* in the same cycle (stage 0) makes that
//!   read stale (the memory returns the old row); the scanner skips the entry this pass.
//! * Either way the entry is looked at again one scan period later, which the bound above
//!   already covers because it counts from `W + 2`.
//! * An event already on `source` (valid high) is never withdrawn: a cancel in or after
//!   the cycle the event first appears does not retract it. A timer cancelled in cycle `C`
//!   never produces an event that first appears after cycle `C`.
//!
//! # Throughput and cost
//! One command and one scanned entry per cycle. Storage: `N` armed flip-flops plus a
//! `N x (64 + M)` memory with one synchronous read and one write port (LUTRAM/BRAM),
//! `M + 2` flip-flops for a stalled entry and the armed bit, and, above
//! [`READ_AHEAD_ABOVE`] entries, `2 x (64 + M) + 2` for the row register and the forwarded
//! command.
//!
//! # Parameters
//! * `A` – address bits; `N` – entries, must equal `2^A`; `M` – metadata bits.
use rust_hdl::prelude::*;

/// Timers of more entries than this read each row a cycle ahead into a register (module
/// documentation, "Timing"): their memories are block RAM on the FPGA targets, whose
/// clock-to-out is too slow to precede the 64-bit compare in one cycle. Smaller timers'
/// memories are LUTRAM and are read in the cycle before the decision, as the row register
/// would be, so their row register and forwarding are left unused (and synthesis removes
/// them). Both behave the same, cycle for cycle.
pub const READ_AHEAD_ABOVE: usize = 32;

/// `cmd.op` code: arm an entry with a new expiry and metadata.
pub const OP_SCHEDULE: u8 = 1;
/// `cmd.op` code: move the expiry of an armed entry; ignored when not armed.
pub const OP_RESCHEDULE: u8 = 2;
/// `cmd.op` code: disarm an entry.
pub const OP_CANCEL: u8 = 3;

/// Command port of the timer: one single-cycle write per cycle, never back-pressured.
#[derive(LogicInterface, Default)]
pub struct TimerCmd<const A: usize, const M: usize> {
    /// A command is present this cycle.
    pub valid: Signal<In, bool>,
    /// `OP_SCHEDULE`, `OP_RESCHEDULE` or `OP_CANCEL` (0 is a no-op).
    pub op: Signal<In, Bits<2>>,
    /// Entry (message id) the command is for.
    pub id: Signal<In, Bits<A>>,
    /// Absolute expiry cycle (schedule, reschedule).
    pub expiry: Signal<In, Bits<64>>,
    /// Metadata returned with the event (schedule only).
    pub meta: Signal<In, Bits<M>>,
}

/// Expiry event stream (ready/valid).
#[derive(LogicInterface, Default)]
pub struct TimerEvents<const A: usize, const M: usize> {
    pub valid: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
    /// Entry that expired.
    pub id: Signal<Out, Bits<A>>,
    /// Its metadata as of its last schedule.
    pub meta: Signal<Out, Bits<M>>,
}

/// The scanning timer memory. See the module documentation for the contract.
#[derive(LogicBlock)]
pub struct ScanningTimer<const A: usize, const N: usize, const M: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub now: Signal<In, Bits<64>>,
    pub cmd: TimerCmd<A, M>,
    pub source: TimerEvents<A, M>,
    // storage
    expiry_mem: RAM<Bits<64>, A>,
    meta_mem: RAM<Bits<M>, A>,
    armed: DFF<Bits<N>>,
    // scanner
    scan_ptr: DFF<Bits<A>>,
    s1_id: DFF<Bits<A>>,
    s1_stale: DFF<bool>,
    // stage 1 holds the entry it stalled on: the row register then keeps the row of
    // `scan_ptr`, and the held entry's metadata comes from `held_meta`
    held: DFF<bool>,
    held_meta: DFF<Bits<M>>,
    // the armed bit of `scan_ptr`'s entry, a cycle before stage 1 decides on it
    scan_armed: DFF<bool>,
    // the row register: the row of the entry stage 1 decides on next (`scan_ptr` a cycle
    // ago), read a cycle ahead from the memories (address `scan_ptr + 1`) so that the
    // memories' read data only ever feeds a register, never the compare
    row_exp: DFF<Bits<64>>,
    row_meta: DFF<Bits<M>>,
    // the command of last cycle, when it wrote the row being read then (forwarded into
    // the row register in place of the memories' old row)
    fwd_exp_we: DFF<bool>,
    fwd_meta_we: DFF<bool>,
    fwd_exp: DFF<Bits<64>>,
    fwd_meta: DFF<Bits<M>>,
    // a command for `scan_ptr` in the cycle a stall began (its values in `fwd_*`)
    pend_exp_we: DFF<bool>,
    pend_meta_we: DFF<bool>,
    // the row register takes `alt_*` rather than the memories' read data
    use_alt_exp: DFF<bool>,
    use_alt_meta: DFF<bool>,
    // output register
    out_valid: DFF<bool>,
    out_id: DFF<Bits<A>>,
    out_meta: DFF<Bits<M>>,
    // combinational locals
    s1_meta: Signal<Local, Bits<M>>,
    due: Signal<Local, bool>,
    out_free: Signal<Local, bool>,
    stall: Signal<Local, bool>,
    armed_after_fire: Signal<Local, Bits<N>>,
    read_ptr: Signal<Local, Bits<A>>,
    exp_we: Signal<Local, bool>,
    meta_we: Signal<Local, bool>,
    cmd_at_scan: Signal<Local, bool>,
    cmd_at_read: Signal<Local, bool>,
    alt_exp: Signal<Local, Bits<64>>,
    alt_meta: Signal<Local, Bits<M>>,
    row_e: Signal<Local, Bits<64>>,
    row_m: Signal<Local, Bits<M>>,
    // constants
    ahead: Constant<bool>,
    one: Constant<Bits<A>>,
    zero_a: Constant<Bits<A>>,
    one_n: Constant<Bits<N>>,
    zero_n: Constant<Bits<N>>,
    op_schedule: Constant<Bits<2>>,
    op_reschedule: Constant<Bits<2>>,
    op_cancel: Constant<Bits<2>>,
}

impl<const A: usize, const N: usize, const M: usize> ScanningTimer<A, N, M> {
    /// Builds a timer with `N = 2^A` entries and `M`-bit metadata.
    ///
    /// Panics when `N != 2^A`, `A` is 0 or above 16, or `M` is 0 or above 64.
    pub fn new() -> Self {
        assert!(
            (1..=16).contains(&A),
            "timer address bits A={A} must be 1..=16"
        );
        assert_eq!(
            N,
            1usize << A,
            "timer entries N={N} must equal 2^A = {}",
            1usize << A
        );
        assert!(
            (1..=64).contains(&M),
            "timer metadata bits M={M} must be 1..=64"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            now: Default::default(),
            cmd: Default::default(),
            source: Default::default(),
            expiry_mem: Default::default(),
            meta_mem: Default::default(),
            armed: Default::default(),
            scan_ptr: Default::default(),
            s1_id: Default::default(),
            s1_stale: Default::default(),
            held: Default::default(),
            held_meta: Default::default(),
            scan_armed: Default::default(),
            row_exp: Default::default(),
            row_meta: Default::default(),
            fwd_exp_we: Default::default(),
            fwd_meta_we: Default::default(),
            fwd_exp: Default::default(),
            fwd_meta: Default::default(),
            pend_exp_we: Default::default(),
            pend_meta_we: Default::default(),
            use_alt_exp: Default::default(),
            use_alt_meta: Default::default(),
            out_valid: Default::default(),
            out_id: Default::default(),
            out_meta: Default::default(),
            s1_meta: Default::default(),
            due: Default::default(),
            out_free: Default::default(),
            stall: Default::default(),
            armed_after_fire: Default::default(),
            read_ptr: Default::default(),
            exp_we: Default::default(),
            meta_we: Default::default(),
            cmd_at_scan: Default::default(),
            cmd_at_read: Default::default(),
            alt_exp: Default::default(),
            alt_meta: Default::default(),
            row_e: Default::default(),
            row_m: Default::default(),
            ahead: Constant::new(N > READ_AHEAD_ABOVE),
            one: Constant::new(1.into()),
            zero_a: Constant::new(0.into()),
            one_n: Constant::new(1.into()),
            zero_n: Constant::new(0.into()),
            op_schedule: Constant::new((OP_SCHEDULE as u64).into()),
            op_reschedule: Constant::new((OP_RESCHEDULE as u64).into()),
            op_cancel: Constant::new((OP_CANCEL as u64).into()),
        }
    }

    /// Number of entries.
    pub const ENTRIES: usize = N;
}

impl<const A: usize, const N: usize, const M: usize> Default for ScanningTimer<A, N, M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const A: usize, const N: usize, const M: usize> Logic for ScanningTimer<A, N, M> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            armed,
            scan_ptr,
            s1_id,
            s1_stale,
            held,
            held_meta,
            scan_armed,
            row_exp,
            row_meta,
            fwd_exp_we,
            fwd_meta_we,
            fwd_exp,
            fwd_meta,
            pend_exp_we,
            pend_meta_we,
            use_alt_exp,
            use_alt_meta,
            out_valid,
            out_id,
            out_meta
        );
        self.expiry_mem.read_clock.next = self.clock.val();
        self.expiry_mem.write_clock.next = self.clock.val();
        self.meta_mem.read_clock.next = self.clock.val();
        self.meta_mem.write_clock.next = self.clock.val();

        // Stage 1: decide on the row register's entry, or on the entry held since a stall.
        // A held entry was due then and still is: `now` never decreases, and no command
        // wrote it (a command for it makes it not due, so it could not have stalled).
        self.row_e.next = self.expiry_mem.read_data.val();
        self.row_m.next = self.meta_mem.read_data.val();
        if self.ahead.val() {
            self.row_e.next = self.row_exp.q.val();
            self.row_m.next = self.row_meta.q.val();
        }
        self.s1_meta.next = self.row_m.val();
        if self.held.q.val() {
            self.s1_meta.next = self.held_meta.q.val();
        }
        self.held_meta.d.next = self.s1_meta.val();
        // Armed: a held entry was (it was due), else `scan_armed` is its armed bit of a
        // cycle ago, which only a command then could have changed, and such a command
        // makes the entry stale.
        self.due.next = (self.held.q.val()
            | (self.scan_armed.q.val() & (self.now.val() >= self.row_e.val())))
            & !self.s1_stale.q.val()
            & !(self.cmd.valid.val() & (self.cmd.id.val() == self.s1_id.q.val()));
        self.out_free.next = !self.out_valid.q.val() | self.source.ready.val();
        self.stall.next = self.due.val() & !self.out_free.val();

        // Output register.
        self.source.valid.next = self.out_valid.q.val();
        self.source.id.next = self.out_id.q.val();
        self.source.meta.next = self.out_meta.q.val();
        if self.source.ready.val() {
            self.out_valid.d.next = false;
        }
        self.armed_after_fire.next = self.armed.q.val();
        if self.due.val() & self.out_free.val() {
            self.out_valid.d.next = true;
            self.out_id.d.next = self.s1_id.q.val();
            self.out_meta.d.next = self.s1_meta.val();
            self.armed_after_fire.next =
                self.armed.q.val() & !(self.one_n.val() << self.s1_id.q.val());
        }
        self.armed.d.next = self.armed_after_fire.val();

        // Commands: one write port.
        self.exp_we.next = false;
        self.meta_we.next = false;
        if self.cmd.valid.val() {
            if self.cmd.op.val() == self.op_schedule.val() {
                self.exp_we.next = true;
                self.meta_we.next = true;
                self.armed.d.next =
                    self.armed_after_fire.val() | (self.one_n.val() << self.cmd.id.val());
            }
            if (self.cmd.op.val() == self.op_reschedule.val())
                & self.armed.q.val().get_bit(self.cmd.id.val().index())
            {
                self.exp_we.next = true;
            }
            if self.cmd.op.val() == self.op_cancel.val() {
                self.armed.d.next =
                    self.armed_after_fire.val() & !(self.one_n.val() << self.cmd.id.val());
            }
        }

        // Stage 0: the row register takes the row of `scan_ptr`, the entry stage 1 decides
        // on next: kept through a stall (the row was loaded the cycle the stall began),
        // else the memories' row read last cycle at `scan_ptr` (then `scan_ptr + 1`), or
        // last cycle's command's values where it wrote that row. The memories read the
        // row after it, so their address is a register plus one, never the stall
        // decision, and their data only feeds this register.
        self.read_ptr.next = self.scan_ptr.q.val() + self.one.val();
        self.cmd_at_scan.next = self.cmd.id.val() == self.scan_ptr.q.val();
        self.expiry_mem.read_address.next = self.scan_ptr.q.val();
        self.meta_mem.read_address.next = self.scan_ptr.q.val();
        if self.ahead.val() {
            self.expiry_mem.read_address.next = self.read_ptr.val();
            self.meta_mem.read_address.next = self.read_ptr.val();
        }
        // The memories' read data passes one two-way multiplexer whose choice is a
        // register (`use_alt_*`: held, or a forwarded write) and whose other value comes
        // from registers and the command. A command for `scan_ptr` is written in when the
        // row is held; in the cycle a stall begins it is taken from the forwarding
        // registers next cycle (`pend_*`); when the scanner moves on, that row is stale.
        self.alt_exp.next = self.fwd_exp.q.val();
        self.alt_meta.next = self.fwd_meta.q.val();
        if self.held.q.val() {
            self.alt_exp.next = self.row_exp.q.val();
            self.alt_meta.next = self.row_meta.q.val();
            if self.pend_exp_we.q.val() {
                self.alt_exp.next = self.fwd_exp.q.val();
            }
            if self.pend_meta_we.q.val() {
                self.alt_meta.next = self.fwd_meta.q.val();
            }
            if self.cmd_at_scan.val() & self.exp_we.val() {
                self.alt_exp.next = self.cmd.expiry.val();
            }
            if self.cmd_at_scan.val() & self.meta_we.val() {
                self.alt_meta.next = self.cmd.meta.val();
            }
        }
        self.row_exp.d.next = self.expiry_mem.read_data.val();
        if self.use_alt_exp.q.val() {
            self.row_exp.d.next = self.alt_exp.val();
        }
        self.row_meta.d.next = self.meta_mem.read_data.val();
        if self.use_alt_meta.q.val() {
            self.row_meta.d.next = self.alt_meta.val();
        }
        self.pend_exp_we.d.next = self.cmd_at_scan.val() & self.exp_we.val() & !self.held.q.val();
        self.pend_meta_we.d.next = self.cmd_at_scan.val() & self.meta_we.val() & !self.held.q.val();
        self.held.d.next = self.stall.val();
        self.scan_armed.d.next = self.armed.q.val().get_bit(self.scan_ptr.q.val().index());
        if self.stall.val() {
            self.s1_stale.d.next = self.cmd.valid.val() & (self.cmd.id.val() == self.s1_id.q.val());
        } else {
            self.s1_id.d.next = self.scan_ptr.q.val();
            self.scan_ptr.d.next = self.read_ptr.val();
            self.s1_stale.d.next = self.cmd.valid.val() & self.cmd_at_scan.val();
        }

        // The commands' writes.
        self.expiry_mem.write_address.next = self.cmd.id.val();
        self.expiry_mem.write_data.next = self.cmd.expiry.val();
        self.expiry_mem.write_enable.next = self.exp_we.val();
        self.meta_mem.write_address.next = self.cmd.id.val();
        self.meta_mem.write_data.next = self.cmd.meta.val();
        self.meta_mem.write_enable.next = self.meta_we.val();
        // ... forwarded to the row register next cycle when it is for the row the
        // memories read now (above: into it now when it is for `scan_ptr`).
        self.cmd_at_read.next = self.cmd.id.val() == self.read_ptr.val();
        self.fwd_exp_we.d.next = self.exp_we.val() & self.cmd_at_read.val();
        self.fwd_meta_we.d.next = self.meta_we.val() & self.cmd_at_read.val();
        self.fwd_exp.d.next = self.cmd.expiry.val();
        self.fwd_meta.d.next = self.cmd.meta.val();
        // Next cycle's choice: the row is held, or a forwarded write replaces the memories'.
        self.use_alt_exp.d.next =
            (self.stall.val() & !self.reset.val()) | (self.exp_we.val() & self.cmd_at_read.val());
        self.use_alt_meta.d.next =
            (self.stall.val() & !self.reset.val()) | (self.meta_we.val() & self.cmd_at_read.val());

        if self.reset.val() {
            self.armed.d.next = self.zero_n.val();
            self.held.d.next = false;
            self.scan_armed.d.next = false;
            self.out_valid.d.next = false;
            self.scan_ptr.d.next = self.zero_a.val();
        }
    }
}

/// 16 timers, 16-bit metadata (the reference NIC configuration).
pub type Timer16 = ScanningTimer<4, 16, 16>;
/// 128 timers, 16-bit metadata.
pub type Timer128 = ScanningTimer<7, 128, 16>;
