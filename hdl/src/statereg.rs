//! Stateful register externs of the PISA pipelines (thesis §3.2.2): an array of `N`
//! registers of `W` bits with two ports, one for the ingress pipeline and one for the
//! egress pipeline (the multi-ported register shared between them, like Homa's `msgPrio`),
//! each doing one operation per cycle:
//!
//! | op | name | new value |
//! |---|---|---|
//! | [`OP_READ`] | RW (read) | `old` |
//! | [`OP_WRITE`] | RW (write) | `a` |
//! | [`OP_RAW`] | read-add-write | `old + a` |
//! | [`OP_PRAW`] | predicated RAW | `pred ? old + a : old` |
//! | [`OP_IF_ELSE_RAW`] | ifElseRAW | `pred ? a : old + b` (Alg. 5: initialise or add) |
//!
//! Other op codes read. Additions wrap at `W` bits.
//!
//! # Structure
//! The registers live in RAM (LUTRAM on an FPGA), not in flip-flops: two write ports and
//! two read ports are built from four one-read, one-write RAMs and a live-value table.
//!
//! ```text
//!  cycle t (stage 0)                    t+1 (stage 1)                      t+2
//!  ingress ─┬─ idx ──► bank_ii ─┐ RAM   ┌───────────────────────────┐
//!           │          bank_ei ─┤ read  │ old = the source chosen   │    ┌──────────┐
//!           │                   └──────►│ in stage 0 (bank, last    ├─┬─►│ resp old │
//!           ├─ op/pred/a/b → (add?, k)  │ cycle's result, or 0)     │ │  │ resp new ├─►
//!           ├─ idx vs stage 1 ops: hit  │ new = add? ? old + k : k  │ │  └──────────┘
//!           └─ idx → LVT: written? bank │ → both banks of its port  │ │  (also the values
//!  egress  ── the same at its idx, with │   (write), LVT, response  │ │   forwarded to the
//!             bank_ie / bank_ee, and    └───────────────────────────┘ │   ops of t+1)
//!             the ingress op composed when both hit one register      │
//! ```
//!
//! * **Banks.** `bank_<w><r>` is written by port `w` and read at port `r`'s index, so each
//!   port reads both writers' banks in one cycle. The live-value table (`written`,
//!   `in_egress`: one bit each per register, flip-flops) says whether a register has been
//!   written since reset (else it reads 0) and which port wrote it last.
//! * **Read-modify-write, pipelined.** Stage 0 (the operation's cycle) presents the index
//!   to the RAMs (registered read), decodes the operation into "add or not" and an operand
//!   `k` (every operation is `new = old + k` or `new = k`), and looks up the table. Stage 1
//!   (the next cycle) takes `old` from the source stage 0 chose, computes `new` with one
//!   adder, writes it and registers the response.
//! * **Hazards by forwarding** (as in corundum's schedulers' queue RAMs): an operation in
//!   stage 1 writes at the end of that cycle, after the RAM has been read for the
//!   operation behind it. Stage 0 compares its index with the two indices in stage 1 and,
//!   on a match, takes `old` from that operation's registered `new` instead of the RAM
//!   (the egress one when both match, as it applied last). Any operation two or more
//!   cycles older is in the RAM.
//! * **Both ports on one register in one cycle.** The egress operation applies to the
//!   ingress result. Stage 0 composes the two (`old + k_i + k_e`, or a constant), so that
//!   stage 1 still has one adder per port; the egress `old` is the ingress `new`.
//!
//! # Interface
//! * `ingress`, `egress` ([`RegOpIn`]): `valid`, `op`, `idx`, `a`, `b`, `pred`. Both ports
//!   take an operation every cycle (no backpressure).
//! * `ingress_resp`, `egress_resp` ([`RegRespOut`]): `valid`, `old`, `new`, from
//!   registers (no combinational path from an input).
//! * `reset`: synchronous; every register reads 0 afterwards, and the operations presented
//!   in the reset cycle and the cycle before are dropped (no response, no effect).
//!
//! # Timing
//! An operation presented in cycle `t` returns `old` and `new` in `t+2` (`resp.valid`;
//! [`RESP_LATENCY`]) and is seen by every operation from `t+1` on (forwarded). Operations
//! of both ports in the same cycle on the same register apply in port order: ingress
//! first, then egress, which sees the ingress result. Throughput: one operation per port
//! per cycle, in any pattern of indices.
//!
//! # Parameters
//! * `A`: index bits, `1..=8`; `N = 2^A` registers.
//! * `W`: register width in bits, `1..=64`.
//!
//! Cost (16 × 32, xcup): `fpga/reports/statereg_16x32.xcup.txt` and `docs/fpga.md`.
use rust_hdl::prelude::*;

pub const OP_READ: u64 = 0;
pub const OP_WRITE: u64 = 1;
pub const OP_RAW: u64 = 2;
pub const OP_PRAW: u64 = 3;
pub const OP_IF_ELSE_RAW: u64 = 4;
/// Cycles from an operation to its response.
pub const RESP_LATENCY: u64 = 2;

/// One port's operation.
#[derive(LogicInterface, Default)]
pub struct RegOpIn<const A: usize, const W: usize> {
    pub valid: Signal<In, bool>,
    pub op: Signal<In, Bits<3>>,
    pub idx: Signal<In, Bits<A>>,
    pub a: Signal<In, Bits<W>>,
    pub b: Signal<In, Bits<W>>,
    pub pred: Signal<In, bool>,
}

/// One port's result, [`RESP_LATENCY`] cycles after its operation.
#[derive(LogicInterface, Default)]
pub struct RegRespOut<const W: usize> {
    pub valid: Signal<Out, bool>,
    pub old: Signal<Out, Bits<W>>,
    pub new: Signal<Out, Bits<W>>,
}

/// `N = 2^A` registers of `W` bits, two ports. See the module documentation.
#[derive(LogicBlock)]
pub struct StateReg<const A: usize, const N: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ingress: RegOpIn<A, W>,
    pub egress: RegOpIn<A, W>,
    pub ingress_resp: RegRespOut<W>,
    pub egress_resp: RegRespOut<W>,

    /// `bank_<writer><reader>`: written by the ingress (`i`) or egress (`e`) port, read at
    /// the ingress or egress index.
    bank_ii: RAM<Bits<W>, A>,
    bank_ie: RAM<Bits<W>, A>,
    bank_ei: RAM<Bits<W>, A>,
    bank_ee: RAM<Bits<W>, A>,
    /// Live-value table: written since reset; last written by the egress port.
    written: DFF<Bits<N>>,
    in_egress: DFF<Bits<N>>,

    // Stage 1: the operations of the last cycle.
    s_valid_i: DFF<bool>,
    s_idx_i: DFF<Bits<A>>,
    s_add_i: DFF<bool>,
    s_k_i: DFF<Bits<W>>,
    s_in_e_i: DFF<bool>,
    s_fwd_i_i: DFF<bool>,
    s_fwd_e_i: DFF<bool>,
    s_live_i: DFF<bool>,
    s_valid_e: DFF<bool>,
    s_idx_e: DFF<Bits<A>>,
    s_add_e: DFF<bool>,
    s_k_e: DFF<Bits<W>>,
    s_in_e_e: DFF<bool>,
    s_fwd_i_e: DFF<bool>,
    s_fwd_e_e: DFF<bool>,
    s_live_e: DFF<bool>,
    /// Both ports on one register: the egress `old` is the ingress `new`.
    s_same: DFF<bool>,

    // Responses (and the values forwarded to the next operations).
    r_valid_i: DFF<bool>,
    r_old_i: DFF<Bits<W>>,
    r_new_i: DFF<Bits<W>>,
    r_valid_e: DFF<bool>,
    r_old_e: DFF<Bits<W>>,
    r_new_e: DFF<Bits<W>>,

    add_i: Signal<Local, bool>,
    k_i: Signal<Local, Bits<W>>,
    add_e: Signal<Local, bool>,
    k_e: Signal<Local, Bits<W>>,
    same: Signal<Local, bool>,
    k_sum: Signal<Local, Bits<W>>,
    x_i: Signal<Local, Bits<W>>,
    x_e: Signal<Local, Bits<W>>,
    xa_i: Signal<Local, Bits<W>>,
    xa_e: Signal<Local, Bits<W>>,
    new_i: Signal<Local, Bits<W>>,
    new_e: Signal<Local, Bits<W>>,
    old_e: Signal<Local, Bits<W>>,
    written_n: Signal<Local, Bits<N>>,
    in_egress_n: Signal<Local, Bits<N>>,

    one_n: Constant<Bits<N>>,
    zero_n: Constant<Bits<N>>,
    /// Op codes 1 to 4 (WRITE, RAW, PRAW, IF_ELSE_RAW).
    ops: [Constant<Bits<3>>; 4],
    zero_w: Constant<Bits<W>>,
}

impl<const A: usize, const N: usize, const W: usize> StateReg<A, N, W> {
    /// Every register 0. Panics unless `1 <= A <= 8`, `N == 2^A` and `1 <= W <= 64`.
    pub fn new() -> Self {
        assert!(
            (1..=8).contains(&A),
            "register index bits A={A} must be 1..=8"
        );
        assert_eq!(N, 1 << A, "N={N} must be 2^A");
        assert!((1..=64).contains(&W), "register width W={W} must be 1..=64");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ingress: Default::default(),
            egress: Default::default(),
            ingress_resp: Default::default(),
            egress_resp: Default::default(),
            bank_ii: Default::default(),
            bank_ie: Default::default(),
            bank_ei: Default::default(),
            bank_ee: Default::default(),
            written: Default::default(),
            in_egress: Default::default(),
            s_valid_i: Default::default(),
            s_idx_i: Default::default(),
            s_add_i: Default::default(),
            s_k_i: Default::default(),
            s_in_e_i: Default::default(),
            s_fwd_i_i: Default::default(),
            s_fwd_e_i: Default::default(),
            s_live_i: Default::default(),
            s_valid_e: Default::default(),
            s_idx_e: Default::default(),
            s_add_e: Default::default(),
            s_k_e: Default::default(),
            s_in_e_e: Default::default(),
            s_fwd_i_e: Default::default(),
            s_fwd_e_e: Default::default(),
            s_live_e: Default::default(),
            s_same: Default::default(),
            r_valid_i: Default::default(),
            r_old_i: Default::default(),
            r_new_i: Default::default(),
            r_valid_e: Default::default(),
            r_old_e: Default::default(),
            r_new_e: Default::default(),
            add_i: Default::default(),
            k_i: Default::default(),
            add_e: Default::default(),
            k_e: Default::default(),
            same: Default::default(),
            k_sum: Default::default(),
            x_i: Default::default(),
            x_e: Default::default(),
            xa_i: Default::default(),
            xa_e: Default::default(),
            new_i: Default::default(),
            new_e: Default::default(),
            old_e: Default::default(),
            written_n: Default::default(),
            in_egress_n: Default::default(),
            one_n: Constant::new(1.into()),
            zero_n: Constant::new(0.into()),
            ops: std::array::from_fn(|i| Constant::new((i as u64 + 1).into())),
            zero_w: Constant::new(0.into()),
        }
    }
}

impl<const A: usize, const N: usize, const W: usize> Default for StateReg<A, N, W> {
    fn default() -> Self {
        Self::new()
    }
}

/// 16 registers of 32 bits (e.g. NDP's per-message credit, Homa's per-message priority).
pub type StateReg16x32 = StateReg<4, 16, 32>;

impl<const A: usize, const N: usize, const W: usize> Logic for StateReg<A, N, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, written, in_egress, s_valid_i, s_idx_i, s_add_i, s_k_i, s_in_e_i,
            s_fwd_i_i, s_fwd_e_i, s_live_i, s_valid_e, s_idx_e, s_add_e, s_k_e, s_in_e_e,
            s_fwd_i_e, s_fwd_e_e, s_live_e, s_same, r_valid_i, r_old_i, r_new_i, r_valid_e,
            r_old_e, r_new_e
        );
        self.bank_ii.read_clock.next = self.clock.val();
        self.bank_ii.write_clock.next = self.clock.val();
        self.bank_ie.read_clock.next = self.clock.val();
        self.bank_ie.write_clock.next = self.clock.val();
        self.bank_ei.read_clock.next = self.clock.val();
        self.bank_ei.write_clock.next = self.clock.val();
        self.bank_ee.read_clock.next = self.clock.val();
        self.bank_ee.write_clock.next = self.clock.val();

        // ---- Stage 0: read the banks, decode, look up the table and the hazards.
        self.bank_ii.read_address.next = self.ingress.idx.val();
        self.bank_ei.read_address.next = self.ingress.idx.val();
        self.bank_ie.read_address.next = self.egress.idx.val();
        self.bank_ee.read_address.next = self.egress.idx.val();

        // Every operation is `old + k` (add) or `k`.
        self.add_i.next = true;
        self.k_i.next = self.zero_w.val();
        if self.ingress.op.val() == self.ops[0].val() {
            self.add_i.next = false;
            self.k_i.next = self.ingress.a.val();
        }
        if self.ingress.op.val() == self.ops[1].val() {
            self.k_i.next = self.ingress.a.val();
        }
        if (self.ingress.op.val() == self.ops[2].val()) & self.ingress.pred.val() {
            self.k_i.next = self.ingress.a.val();
        }
        if self.ingress.op.val() == self.ops[3].val() {
            if self.ingress.pred.val() {
                self.add_i.next = false;
                self.k_i.next = self.ingress.a.val();
            } else {
                self.k_i.next = self.ingress.b.val();
            }
        }
        self.add_e.next = true;
        self.k_e.next = self.zero_w.val();
        if self.egress.op.val() == self.ops[0].val() {
            self.add_e.next = false;
            self.k_e.next = self.egress.a.val();
        }
        if self.egress.op.val() == self.ops[1].val() {
            self.k_e.next = self.egress.a.val();
        }
        if (self.egress.op.val() == self.ops[2].val()) & self.egress.pred.val() {
            self.k_e.next = self.egress.a.val();
        }
        if self.egress.op.val() == self.ops[3].val() {
            if self.egress.pred.val() {
                self.add_e.next = false;
                self.k_e.next = self.egress.a.val();
            } else {
                self.k_e.next = self.egress.b.val();
            }
        }

        // Both ports on one register: egress ∘ ingress is `old + k_i + k_e` when both add,
        // `k_i + k_e` when only the egress adds, `k_e` when the egress does not add.
        self.same.next =
            self.ingress.valid.val() & (self.ingress.idx.val() == self.egress.idx.val());
        self.k_sum.next = self.k_i.val() + self.k_e.val();
        self.s_add_i.d.next = self.add_i.val();
        self.s_k_i.d.next = self.k_i.val();
        self.s_add_e.d.next = self.add_e.val();
        self.s_k_e.d.next = self.k_e.val();
        if self.same.val() & self.add_e.val() {
            self.s_add_e.d.next = self.add_i.val();
            self.s_k_e.d.next = self.k_sum.val();
        }
        self.s_same.d.next = self.same.val();

        // Where `old` comes from: the bank the table names (0 if never written: a RAM
        // word is never read before it is written), or the result of an operation now in
        // stage 1 on the same register (egress last).
        self.s_in_e_i.d.next = self
            .in_egress
            .q
            .val()
            .get_bit(self.ingress.idx.val().index());
        self.s_live_i.d.next = self.written.q.val().get_bit(self.ingress.idx.val().index());
        self.s_fwd_i_i.d.next =
            self.s_valid_i.q.val() & (self.s_idx_i.q.val() == self.ingress.idx.val());
        self.s_fwd_e_i.d.next =
            self.s_valid_e.q.val() & (self.s_idx_e.q.val() == self.ingress.idx.val());
        self.s_in_e_e.d.next = self
            .in_egress
            .q
            .val()
            .get_bit(self.egress.idx.val().index());
        self.s_live_e.d.next = self.written.q.val().get_bit(self.egress.idx.val().index());
        self.s_fwd_i_e.d.next =
            self.s_valid_i.q.val() & (self.s_idx_i.q.val() == self.egress.idx.val());
        self.s_fwd_e_e.d.next =
            self.s_valid_e.q.val() & (self.s_idx_e.q.val() == self.egress.idx.val());
        self.s_valid_i.d.next = self.ingress.valid.val();
        self.s_idx_i.d.next = self.ingress.idx.val();
        self.s_valid_e.d.next = self.egress.valid.val();
        self.s_idx_e.d.next = self.egress.idx.val();

        // ---- Stage 1: old, new, write back, respond.
        self.x_i.next = self.zero_w.val();
        if self.s_live_i.q.val() {
            if self.s_in_e_i.q.val() {
                self.x_i.next = self.bank_ei.read_data.val();
            } else {
                self.x_i.next = self.bank_ii.read_data.val();
            }
        }
        if self.s_fwd_i_i.q.val() {
            self.x_i.next = self.r_new_i.q.val();
        }
        if self.s_fwd_e_i.q.val() {
            self.x_i.next = self.r_new_e.q.val();
        }
        self.x_e.next = self.zero_w.val();
        if self.s_live_e.q.val() {
            if self.s_in_e_e.q.val() {
                self.x_e.next = self.bank_ee.read_data.val();
            } else {
                self.x_e.next = self.bank_ie.read_data.val();
            }
        }
        if self.s_fwd_i_e.q.val() {
            self.x_e.next = self.r_new_i.q.val();
        }
        if self.s_fwd_e_e.q.val() {
            self.x_e.next = self.r_new_e.q.val();
        }
        self.xa_i.next = self.zero_w.val();
        if self.s_add_i.q.val() {
            self.xa_i.next = self.x_i.val();
        }
        self.xa_e.next = self.zero_w.val();
        if self.s_add_e.q.val() {
            self.xa_e.next = self.x_e.val();
        }
        self.new_i.next = self.xa_i.val() + self.s_k_i.q.val();
        self.new_e.next = self.xa_e.val() + self.s_k_e.q.val();
        self.old_e.next = self.x_e.val();
        if self.s_same.q.val() {
            self.old_e.next = self.new_i.val();
        }

        self.bank_ii.write_address.next = self.s_idx_i.q.val();
        self.bank_ii.write_data.next = self.new_i.val();
        self.bank_ii.write_enable.next = self.s_valid_i.q.val();
        self.bank_ie.write_address.next = self.s_idx_i.q.val();
        self.bank_ie.write_data.next = self.new_i.val();
        self.bank_ie.write_enable.next = self.s_valid_i.q.val();
        self.bank_ei.write_address.next = self.s_idx_e.q.val();
        self.bank_ei.write_data.next = self.new_e.val();
        self.bank_ei.write_enable.next = self.s_valid_e.q.val();
        self.bank_ee.write_address.next = self.s_idx_e.q.val();
        self.bank_ee.write_data.next = self.new_e.val();
        self.bank_ee.write_enable.next = self.s_valid_e.q.val();

        self.written_n.next = self.written.q.val();
        self.in_egress_n.next = self.in_egress.q.val();
        if self.s_valid_i.q.val() {
            self.written_n.next = self.written_n.val() | (self.one_n.val() << self.s_idx_i.q.val());
            self.in_egress_n.next =
                self.in_egress_n.val() & !(self.one_n.val() << self.s_idx_i.q.val());
        }
        if self.s_valid_e.q.val() {
            self.written_n.next = self.written_n.val() | (self.one_n.val() << self.s_idx_e.q.val());
            self.in_egress_n.next =
                self.in_egress_n.val() | (self.one_n.val() << self.s_idx_e.q.val());
        }
        self.written.d.next = self.written_n.val();
        self.in_egress.d.next = self.in_egress_n.val();

        self.r_valid_i.d.next = self.s_valid_i.q.val();
        self.r_old_i.d.next = self.x_i.val();
        self.r_new_i.d.next = self.new_i.val();
        self.r_valid_e.d.next = self.s_valid_e.q.val();
        self.r_old_e.d.next = self.old_e.val();
        self.r_new_e.d.next = self.new_e.val();
        self.ingress_resp.valid.next = self.r_valid_i.q.val();
        self.ingress_resp.old.next = self.r_old_i.q.val();
        self.ingress_resp.new.next = self.r_new_i.q.val();
        self.egress_resp.valid.next = self.r_valid_e.q.val();
        self.egress_resp.old.next = self.r_old_e.q.val();
        self.egress_resp.new.next = self.r_new_e.q.val();

        if self.reset.val() {
            self.written.d.next = self.zero_n.val();
            self.s_valid_i.d.next = false;
            self.s_valid_e.d.next = false;
            self.r_valid_i.d.next = false;
            self.r_valid_e.d.next = false;
        }
    }
}
