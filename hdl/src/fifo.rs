//! Synchronous first-word-fall-through FIFO on a single-port-pair RAM.
//!
//! ```text
//!   push,push_data ──► RAM[wp] ─┐                  ┌─► head (valid while nonempty)
//!                               ├─ read rp_next ───┤
//!   pop ──► rp_next = rp + pop ─┘   bypass reg ────┘   (a word pushed into the slot that
//!                                                       is read this cycle)
//! ```
//!
//! # Interface
//! * `push`/`push_data`: write one entry; ignored while the FIFO is full.
//! * `pop`: drop the head; ignored while empty.
//! * `head`: the oldest entry, valid while `nonempty`. It is defined (not X) only while
//!   `nonempty`; gate it before it leaves a top-level block.
//! * `count`: entries held, `0..=2^A`.
//! * `reset`: synchronous, empties the FIFO.
//!
//! # Timing
//! A word pushed in cycle `t` is at `head` in `t+1`; a pop in `t` shows the next word in
//! `t+1`. One push and one pop per cycle, in any combination.
//!
//! # Parameters
//! * `T`: entry type; `A`: address bits (depth `2^A`); `C`: count bits, must be `A+1`.
use rust_hdl::prelude::*;

/// First-word-fall-through FIFO of depth `2^A`.
#[derive(LogicBlock)]
pub struct Fifo<T: Synth, const A: usize, const C: usize> {
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
    bypass_valid: DFF<bool>,
    bypass_data: DFF<T>,
    rp_next: Signal<Local, Bits<A>>,
    push_ok: Signal<Local, bool>,
    pop_ok: Signal<Local, bool>,
    one_a: Constant<Bits<A>>,
    zero_a: Constant<Bits<A>>,
    one_c: Constant<Bits<C>>,
    zero_c: Constant<Bits<C>>,
    depth: Constant<Bits<C>>,
}

impl<T: Synth, const A: usize, const C: usize> Fifo<T, A, C> {
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
            bypass_valid: Default::default(),
            bypass_data: Default::default(),
            rp_next: Default::default(),
            push_ok: Default::default(),
            pop_ok: Default::default(),
            one_a: Constant::new(1.into()),
            zero_a: Constant::new(0.into()),
            one_c: Constant::new(1.into()),
            zero_c: Constant::new(0.into()),
            depth: Constant::new(((1u64) << A).into()),
        }
    }
}

impl<T: Synth, const A: usize, const C: usize> Default for Fifo<T, A, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Synth, const A: usize, const C: usize> Logic for Fifo<T, A, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wp, rp, cnt, bypass_valid, bypass_data);
        self.store.read_clock.next = self.clock.val();
        self.store.write_clock.next = self.clock.val();

        self.push_ok.next = self.push.val() & (self.cnt.q.val() != self.depth.val());
        self.pop_ok.next = self.pop.val() & (self.cnt.q.val() != self.zero_c.val());

        self.rp_next.next = self.rp.q.val();
        if self.pop_ok.val() {
            self.rp_next.next = self.rp.q.val() + self.one_a.val();
        }
        self.rp.d.next = self.rp_next.val();
        self.store.read_address.next = self.rp_next.val();

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

        // The RAM reads before it writes: a word pushed into the slot read this cycle
        // comes from the bypass register next cycle.
        self.bypass_valid.d.next = self.push_ok.val() & (self.wp.q.val() == self.rp_next.val());
        self.bypass_data.d.next = self.push_data.val();

        if self.bypass_valid.q.val() {
            self.head.next = self.bypass_data.q.val();
        } else {
            self.head.next = self.store.read_data.val();
        }
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
