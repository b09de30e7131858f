//! A first-word-fall-through FIFO whose `head` is a register: [`crate::fifo::Fifo`]'s
//! interface and cycle behaviour, for a consumer with deep logic after the head.
//!
//! ```text
//!                          ┌────────── (into an empty FIFO, or one this pop empties) ──┐
//!   push,push_data ────────┴──► inner Fifo (the entries after the head) ── head ──► h ──► head
//!   pop ──► inner pop (when it holds any)                                   (h takes the
//!                                                                            inner head)
//! ```
//!
//! [`crate::fifo::Fifo`]'s head is its RAM's read port (or a bypass register), so the
//! consumer's logic follows a block RAM's clock-to-out and its routing: on ECP5 that was
//! the shared buffer's critical path (a data FIFO's read port through the header rewrite
//! to the bank's write data). Here the head is a register `h` and an inner
//! [`crate::fifo::Fifo`] holds the entries after it; `h` takes the inner head when the
//! head is popped, so a block RAM's read port drives one multiplexer into a register and
//! nothing else.
//!
//! # Interface and timing
//! As [`crate::fifo::Fifo`]: `push`/`push_data` (ignored while full), `pop` (ignored while
//! empty), `head` (valid while `nonempty`), `count` (`0..=2^A`), synchronous `reset`. A
//! word pushed in cycle `t` is at `head` in `t+1`; a pop in `t` shows the next word in
//! `t+1`; one push and one pop per cycle. The two are interchangeable cycle for cycle
//! (tested: `fifo_variants_are_the_fifo_cycle_for_cycle`). `head` is defined only while
//! `nonempty`. The inner FIFO has `2^A` slots and never holds more than `2^A - 1`.
//!
//! # Parameters
//! * `T`: entry type; `A`: address bits (depth `2^A`); `C`: count bits, must be `A+1`.
use crate::fifo::Fifo;
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
    // the entries after the head
    rest: Fifo<T, A, C>,
    // the head and whether it holds one
    h: DFF<T>,
    hv: DFF<bool>,
    // entries held, the head's included (a register: callers compare it)
    cnt: DFF<Bits<C>>,
    push_ok: Signal<Local, bool>,
    pop_ok: Signal<Local, bool>,
    // a word pushed now goes to the head register, not the inner FIFO
    to_h: Signal<Local, bool>,
    one_c: Constant<Bits<C>>,
    zero_c: Constant<Bits<C>>,
    depth: Constant<Bits<C>>,
}

impl<T: Synth, const A: usize, const C: usize> RegFifo<T, A, C> {
    /// Builds an empty FIFO. Panics unless `1 <= A <= 16` and `C == A + 1`.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            pop: Default::default(),
            head: Default::default(),
            nonempty: Default::default(),
            count: Default::default(),
            // checks A and C
            rest: Fifo::new(),
            h: Default::default(),
            hv: Default::default(),
            cnt: Default::default(),
            push_ok: Default::default(),
            pop_ok: Default::default(),
            to_h: Default::default(),
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
        dff_setup!(self, clock, h, hv, cnt);
        self.rest.clock.next = self.clock.val();
        self.rest.reset.next = self.reset.val();

        self.push_ok.next = self.push.val() & (self.cnt.q.val() != self.depth.val());
        self.pop_ok.next = self.pop.val() & self.hv.q.val();
        // an empty FIFO, or one whose last entry this pop takes
        self.to_h.next = !self.hv.q.val() | (self.pop_ok.val() & !self.rest.nonempty.val());

        self.rest.push.next = self.push_ok.val() & !self.to_h.val();
        self.rest.push_data.next = self.push_data.val();
        self.rest.pop.next = self.pop_ok.val() & self.rest.nonempty.val();
        if self.pop_ok.val() & self.rest.nonempty.val() {
            self.h.d.next = self.rest.head.val();
        }
        if self.to_h.val() {
            self.h.d.next = self.push_data.val();
            self.hv.d.next = self.push_ok.val();
        }

        if self.push_ok.val() & !self.pop_ok.val() {
            self.cnt.d.next = self.cnt.q.val() + self.one_c.val();
        }
        if self.pop_ok.val() & !self.push_ok.val() {
            self.cnt.d.next = self.cnt.q.val() - self.one_c.val();
        }
        self.head.next = self.h.q.val();
        self.nonempty.next = self.hv.q.val();
        self.count.next = self.cnt.q.val();

        if self.reset.val() {
            self.hv.d.next = false;
            self.cnt.d.next = self.zero_c.val();
        }
    }
}
