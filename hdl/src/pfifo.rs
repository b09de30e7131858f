//! A first-word-fall-through FIFO whose RAM read address is a register:
//! [`crate::fifo::Fifo`]'s interface and cycle behaviour, for a consumer whose `pop` is
//! the end of deep logic.
//!
//! ```text
//!   push ──► RAM[wp] (when the head registers are full, or the RAM already holds entries)
//!            RAM[rp] ── read_data ──┐        rp: a register; the read is "issued" (rp
//!   push (direct) ──────────────────┼──► h0 (head), h1      advances) when h0/h1 have
//!                                   └──────────────────     room for what it returns
//! ```
//!
//! [`crate::fifo::Fifo`] reads its RAM at `rp + pop`, so the consumer's `pop` runs into the
//! RAM's address: a LUTRAM's address decode and its output multiplexers (two RAM64M8 and
//! a LUT3 at depth 128 on xcup) follow the consumer's logic before the read register. That
//! path was 9 LUT levels in the NIC's packetization (the S0 decision popping a class's
//! return FIFO). Here the RAM always reads at the register `rp`, and two head registers
//! `h0`, `h1` hold the oldest entries: `pop` chooses what `h0` and `h1` load and whether
//! the read under way is kept (`rp` advances), both a LUT or two before a flip-flop.
//!
//! A read issued in cycle `t` returns in `t+1` and lands in `h0`/`h1` at the end of it, so
//! the read is issued only when, after this cycle's pop, at most one of `h0`/`h1` is full.
//! The invariants (tested through the cycle-for-cycle comparison below): `h0` holds the
//! head whenever the FIFO is nonempty; `h0`, `h1` and the read under way hold
//! `min(count, 2)` entries; the RAM holds the rest, never more than `2^A - 1`.
//!
//! # Interface and timing
//! As [`crate::fifo::Fifo`]: `push`/`push_data` (ignored while full), `pop` (ignored while
//! empty), `head` (valid while `nonempty`), `count` (`0..=2^A`), synchronous `reset`. A
//! word pushed in cycle `t` is at `head` in `t+1`; a pop in `t` shows the next word in
//! `t+1`; one push and one pop per cycle. The two are interchangeable cycle for cycle
//! (tested: `fifo_variants_are_the_fifo_cycle_for_cycle`). `head` is a register and always
//! defined. Cost: two registers of `T`, and the count kept with its neighbours `count ± 1`
//! (three `C`-bit registers) so that a pop chooses a count instead of feeding an adder.
//!
//! # Parameters
//! * `T`: entry type; `A`: address bits (depth `2^A`); `C`: count bits, must be `A+1`.
use rust_hdl::prelude::*;

/// First-word-fall-through FIFO of depth `2^A` whose RAM read address is a register.
#[derive(LogicBlock)]
pub struct PrefetchFifo<T: Synth, const A: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub push: Signal<In, bool>,
    pub push_data: Signal<In, T>,
    pub pop: Signal<In, bool>,
    pub head: Signal<Out, T>,
    pub nonempty: Signal<Out, bool>,
    pub count: Signal<Out, Bits<C>>,
    store: RAM<T, A>,
    wp: DFF<Bits<A>>,
    rp: DFF<Bits<A>>,
    // entries held in all, and that count plus and minus one: a push or a pop picks
    // one of the three, so no adder follows the consumer's `pop`. The neighbours are
    // stored encoded so that the power-on zero means `1` and `-1` (as `Fifo`, the FIFO
    // works without a reset): `cp_x = (cnt + 1) ^ 1`, `cm_n = !(cnt - 1)`.
    cnt: DFF<Bits<C>>,
    cp_x: DFF<Bits<C>>,
    cm_n: DFF<Bits<C>>,
    cnt_p1: Signal<Local, Bits<C>>,
    cnt_m1: Signal<Local, Bits<C>>,
    // the head registers and whether each is full (`v1` implies `v0`)
    h0: DFF<T>,
    h1: DFF<T>,
    v0: DFF<bool>,
    v1: DFF<bool>,
    // a read issued last cycle: `store.read_data` is the entry after `h0`/`h1`
    rd_v: DFF<bool>,
    push_ok: Signal<Local, bool>,
    pop_ok: Signal<Local, bool>,
    ram_empty: Signal<Local, bool>,
    // after this cycle's pop and the landing of the read under way, before a push:
    // at least one, and two, head registers full
    a1: Signal<Local, bool>,
    a2: Signal<Local, bool>,
    // the push goes straight to the head registers; the RAM's next entry is read
    direct: Signal<Local, bool>,
    to_ram: Signal<Local, bool>,
    issue: Signal<Local, bool>,
    one_a: Constant<Bits<A>>,
    zero_a: Constant<Bits<A>>,
    one_c: Constant<Bits<C>>,
    zero_c: Constant<Bits<C>>,
    depth: Constant<Bits<C>>,
}

impl<T: Synth, const A: usize, const C: usize> PrefetchFifo<T, A, C> {
    /// Builds an empty FIFO. Panics unless `1 <= A <= 16` and `C == A + 1`.
    pub fn new() -> Self {
        assert!(
            (1..=16).contains(&A),
            "FIFO address bits A={A} must be 1..=16"
        );
        assert_eq!(C, A + 1, "FIFO count bits C={C} must be A+1");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            pop: Default::default(),
            head: Default::default(),
            nonempty: Default::default(),
            count: Default::default(),
            store: Default::default(),
            wp: Default::default(),
            rp: Default::default(),
            cnt: Default::default(),
            cp_x: Default::default(),
            cm_n: Default::default(),
            cnt_p1: Default::default(),
            cnt_m1: Default::default(),
            h0: Default::default(),
            h1: Default::default(),
            v0: Default::default(),
            v1: Default::default(),
            rd_v: Default::default(),
            push_ok: Default::default(),
            pop_ok: Default::default(),
            ram_empty: Default::default(),
            a1: Default::default(),
            a2: Default::default(),
            direct: Default::default(),
            to_ram: Default::default(),
            issue: Default::default(),
            one_a: Constant::new(1.into()),
            zero_a: Constant::new(0.into()),
            one_c: Constant::new(1.into()),
            zero_c: Constant::new(0.into()),
            depth: Constant::new(((1u64) << A).into()),
        }
    }
}

impl<T: Synth, const A: usize, const C: usize> Default for PrefetchFifo<T, A, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Synth, const A: usize, const C: usize> Logic for PrefetchFifo<T, A, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wp, rp, cnt, cp_x, cm_n, h0, h1, v0, v1, rd_v);
        self.store.read_clock.next = self.clock.val();
        self.store.write_clock.next = self.clock.val();

        self.push_ok.next = self.push.val() & (self.cnt.q.val() != self.depth.val());
        self.pop_ok.next = self.pop.val() & self.v0.q.val();
        // The RAM holds `wp - rp` entries, never `2^A` (the head registers hold two when
        // the FIFO is full), so equal pointers mean it is empty.
        self.ram_empty.next = self.wp.q.val() == self.rp.q.val();

        // The head registers and the read under way hold (v0, v1, rd_v) in {000, 100,
        // 110, 101}: after the pop and the landing there are two when h1 or the read held
        // one and nothing was popped, at least one unless only h0 held one and it left.
        self.a2.next = (self.v1.q.val() | self.rd_v.q.val()) & !self.pop_ok.val();
        self.a1.next = self.v1.q.val() | self.rd_v.q.val() | (self.v0.q.val() & !self.pop_ok.val());
        // A push joins the head registers only behind everything older (the RAM empty)
        // and only where there is room; otherwise it goes to the RAM.
        self.direct.next = self.push_ok.val() & self.ram_empty.val() & !self.a2.val();
        self.to_ram.next = self.push_ok.val() & !self.direct.val();
        // With the RAM nonempty nothing goes direct, so a read is issued when at most
        // one head register will be full: what it returns lands next cycle.
        self.issue.next = !self.ram_empty.val() & !self.a2.val();

        // The head: unchanged without a pop (or the push into an empty FIFO); after a
        // pop, h1, else the read returning, else the push.
        if !self.pop_ok.val() {
            if !self.v0.q.val() {
                self.h0.d.next = self.push_data.val();
            }
        } else if self.v1.q.val() {
            self.h0.d.next = self.h1.q.val();
        } else if self.rd_v.q.val() {
            self.h0.d.next = self.store.read_data.val();
        } else {
            self.h0.d.next = self.push_data.val();
        }
        // The second: the entry after the new head.
        if !self.pop_ok.val() & self.v1.q.val() {
            self.h1.d.next = self.h1.q.val();
        } else if !self.pop_ok.val() & self.rd_v.q.val() {
            self.h1.d.next = self.store.read_data.val();
        } else {
            self.h1.d.next = self.push_data.val();
        }
        self.v0.d.next = self.a1.val() | self.direct.val();
        self.v1.d.next = self.a2.val() | (self.a1.val() & self.direct.val());
        self.rd_v.d.next = self.issue.val();

        self.store.read_address.next = self.rp.q.val();
        if self.issue.val() {
            self.rp.d.next = self.rp.q.val() + self.one_a.val();
        }
        self.store.write_address.next = self.wp.q.val();
        self.store.write_data.next = self.push_data.val();
        self.store.write_enable.next = self.to_ram.val();
        if self.to_ram.val() {
            self.wp.d.next = self.wp.q.val() + self.one_a.val();
        }

        // `count ± 1` step from their own registers (one adder each, computed before the
        // pop is known); the pop only chooses among registered values.
        // (`!(x - 1) == !x + 1`, so `cm_n` counts up as the count goes down.)
        self.cnt_p1.next = self.cp_x.q.val() ^ self.one_c.val();
        self.cnt_m1.next = !self.cm_n.q.val();
        if self.push_ok.val() & !self.pop_ok.val() {
            self.cnt.d.next = self.cnt_p1.val();
            self.cp_x.d.next = (self.cnt_p1.val() + self.one_c.val()) ^ self.one_c.val();
            self.cm_n.d.next = !self.cnt.q.val();
        }
        if self.pop_ok.val() & !self.push_ok.val() {
            self.cnt.d.next = self.cnt_m1.val();
            self.cp_x.d.next = self.cnt.q.val() ^ self.one_c.val();
            self.cm_n.d.next = self.cm_n.q.val() + self.one_c.val();
        }

        self.head.next = self.h0.q.val();
        self.nonempty.next = self.v0.q.val();
        self.count.next = self.cnt.q.val();

        if self.reset.val() {
            self.wp.d.next = self.zero_a.val();
            self.rp.d.next = self.zero_a.val();
            self.cnt.d.next = self.zero_c.val();
            self.cp_x.d.next = self.zero_c.val();
            self.cm_n.d.next = self.zero_c.val();
            self.v0.d.next = false;
            self.v1.d.next = false;
            self.rd_v.d.next = false;
        }
    }
}
