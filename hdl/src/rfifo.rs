//! A first-word-fall-through FIFO whose `head` is a register: [`crate::fifo::Fifo`]'s
//! interface and cycle behaviour, for a consumer with deep logic after the head.
//!
//! ```text
//!   push,push_data ──► RAM[wp] ─┐
//!                               ├─ read rp_next + 1 ──► (bypass) ──┐
//!   pop ──► rp_next = rp + pop ─┘                                  ├─► h ──► head
//!   push_data (into an empty FIFO, or one emptied by this pop) ────┘
//! ```
//!
//! [`crate::fifo::Fifo`]'s head is its RAM's read port (or a bypass register), so the
//! consumer's logic follows a block RAM's clock-to-out and its routing: on ECP5 that was
//! the shared buffer's critical path (a data FIFO's read port through the header rewrite
//! to the bank's write data). Here the RAM reads the entry *after* the head (address
//! `rp_next + 1`), and the head register `h` takes it when the head is popped, so a
//! block RAM's read port drives one multiplexer into a register and nothing else.
//!
//! # Interface and timing
//! As [`crate::fifo::Fifo`]: `push`/`push_data` (ignored while full), `pop` (ignored while
//! empty), `head` (valid while `nonempty`), `count` (`0..=2^A`), synchronous `reset`. A
//! word pushed in cycle `t` is at `head` in `t+1`; a pop in `t` shows the next word in
//! `t+1`; one push and one pop per cycle. The two are interchangeable cycle for cycle
//! (tested: `reg_fifo_is_fifo_cycle_for_cycle`). `head` is defined only while
//! `nonempty`.
//!
//! # Parameters
//! * `T`: entry type; `A`: address bits (depth `2^A`); `C`: count bits, must be `A+1`.
use rust_hdl::prelude::*;

/// First-word-fall-through FIFO of depth `2^A` with a registered head.
#[derive(LogicBlock)]
pub struct RegFifo<T: Synth, const A: usize, const C: usize> {
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
    cnt: DFF<Bits<C>>,
    // the head
    h: DFF<T>,
    // the entry after the head, pushed into the slot read in the cycle before
    bypass_valid: DFF<bool>,
    bypass_data: DFF<T>,
    rp_next: Signal<Local, Bits<A>>,
    // the RAM's read address: the entry after the next cycle's head
    ra: Signal<Local, Bits<A>>,
    // the entry after the head, this cycle
    after: Signal<Local, T>,
    push_ok: Signal<Local, bool>,
    pop_ok: Signal<Local, bool>,
    one_a: Constant<Bits<A>>,
    two_a: Constant<Bits<A>>,
    zero_a: Constant<Bits<A>>,
    one_c: Constant<Bits<C>>,
    zero_c: Constant<Bits<C>>,
    depth: Constant<Bits<C>>,
}

impl<T: Synth, const A: usize, const C: usize> RegFifo<T, A, C> {
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
            h: Default::default(),
            bypass_valid: Default::default(),
            bypass_data: Default::default(),
            rp_next: Default::default(),
            ra: Default::default(),
            after: Default::default(),
            push_ok: Default::default(),
            pop_ok: Default::default(),
            one_a: Constant::new(1.into()),
            // 2 modulo the depth (0 for a FIFO of 2)
            two_a: Constant::new((2u64 & ((1u64 << A) - 1)).into()),
            zero_a: Constant::new(0.into()),
            one_c: Constant::new(1.into()),
            zero_c: Constant::new(0.into()),
            depth: Constant::new(((1u64) << A).into()),
        }
    }
}

impl<T: Synth, const A: usize, const C: usize> Default for RegFifo<T, A, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Synth, const A: usize, const C: usize> Logic for RegFifo<T, A, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wp, rp, cnt, h, bypass_valid, bypass_data);
        self.store.read_clock.next = self.clock.val();
        self.store.write_clock.next = self.clock.val();

        self.push_ok.next = self.push.val() & (self.cnt.q.val() != self.depth.val());
        self.pop_ok.next = self.pop.val() & (self.cnt.q.val() != self.zero_c.val());

        self.rp_next.next = self.rp.q.val();
        self.ra.next = self.rp.q.val() + self.one_a.val();
        if self.pop_ok.val() {
            self.rp_next.next = self.rp.q.val() + self.one_a.val();
            self.ra.next = self.rp.q.val() + self.two_a.val();
        }
        self.rp.d.next = self.rp_next.val();
        self.store.read_address.next = self.ra.val();

        self.store.write_address.next = self.wp.q.val();
        self.store.write_data.next = self.push_data.val();
        self.store.write_enable.next = self.push_ok.val();
        if self.push_ok.val() {
            self.wp.d.next = self.wp.q.val() + self.one_a.val();
        }

        if self.push_ok.val() & !self.pop_ok.val() {
            self.cnt.d.next = self.cnt.q.val() + self.one_c.val();
        }
        if self.pop_ok.val() & !self.push_ok.val() {
            self.cnt.d.next = self.cnt.q.val() - self.one_c.val();
        }

        // The RAM reads before it writes: a word pushed into the slot read this cycle is
        // the entry after the head from the bypass register next cycle.
        self.bypass_valid.d.next = self.push_ok.val() & (self.wp.q.val() == self.ra.val());
        self.bypass_data.d.next = self.push_data.val();
        self.after.next = self.store.read_data.val();
        if self.bypass_valid.q.val() {
            self.after.next = self.bypass_data.q.val();
        }

        // The next head: the entry after this one on a pop (with two or more held), the
        // word pushed now into a FIFO that is empty or that this pop empties.
        if self.pop_ok.val() {
            if self.cnt.q.val() == self.one_c.val() {
                self.h.d.next = self.push_data.val();
            } else {
                self.h.d.next = self.after.val();
            }
        }
        if self.cnt.q.val() == self.zero_c.val() {
            self.h.d.next = self.push_data.val();
        }
        self.head.next = self.h.q.val();
        self.nonempty.next = self.cnt.q.val() != self.zero_c.val();
        self.count.next = self.cnt.q.val();

        if self.reset.val() {
            self.wp.d.next = self.zero_a.val();
            self.rp.d.next = self.zero_a.val();
            self.cnt.d.next = self.zero_c.val();
            self.bypass_valid.d.next = false;
        }
    }
}
