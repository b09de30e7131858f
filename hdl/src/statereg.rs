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
//! # Timing
//! An operation presented in cycle `t` returns `old` and `new` in `t+1` (`resp.valid`)
//! and is seen by every operation from `t+1` on. Operations of both ports in the same
//! cycle on the same register apply in port order: ingress first, then egress, which sees
//! the ingress result. Both ports take an operation every cycle (no backpressure).
use rust_hdl::prelude::*;

pub const OP_READ: u64 = 0;
pub const OP_WRITE: u64 = 1;
pub const OP_RAW: u64 = 2;
pub const OP_PRAW: u64 = 3;
pub const OP_IF_ELSE_RAW: u64 = 4;

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

/// One port's result, the cycle after its operation.
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

    regs: [DFF<Bits<W>>; N],
    r0_valid: DFF<bool>,
    r0_old: DFF<Bits<W>>,
    r0_new: DFF<Bits<W>>,
    r1_valid: DFF<bool>,
    r1_old: DFF<Bits<W>>,
    r1_new: DFF<Bits<W>>,

    old0: Signal<Local, Bits<W>>,
    new0: Signal<Local, Bits<W>>,
    old1: Signal<Local, Bits<W>>,
    new1: Signal<Local, Bits<W>>,
    idx: [Constant<Bits<A>>; N],
    /// Op codes 1 to 4 (WRITE, RAW, PRAW, IF_ELSE_RAW).
    ops: [Constant<Bits<3>>; 4],
    zero_w: Constant<Bits<W>>,
}

impl<const A: usize, const N: usize, const W: usize> StateReg<A, N, W> {
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
            regs: std::array::from_fn(|_| Default::default()),
            r0_valid: Default::default(),
            r0_old: Default::default(),
            r0_new: Default::default(),
            r1_valid: Default::default(),
            r1_old: Default::default(),
            r1_new: Default::default(),
            old0: Default::default(),
            new0: Default::default(),
            old1: Default::default(),
            new1: Default::default(),
            idx: std::array::from_fn(|i| Constant::new((i as u64).into())),
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
        dff_setup!(self, clock, r0_valid, r0_old, r0_new, r1_valid, r1_old, r1_new);
        for i in 0..N {
            self.regs[i].clock.next = self.clock.val();
            self.regs[i].d.next = self.regs[i].q.val();
        }
        // Ingress first.
        self.old0.next = self.zero_w.val();
        for i in 0..N {
            // An OR of the one matching register: a balanced tree, not a priority chain.
            if self.ingress.idx.val() == self.idx[i].val() {
                self.old0.next = self.old0.val() | self.regs[i].q.val();
            }
        }
        self.new0.next = self.old0.val();
        if self.ingress.op.val() == self.ops[0].val() {
            self.new0.next = self.ingress.a.val();
        }
        if self.ingress.op.val() == self.ops[1].val() {
            self.new0.next = self.old0.val() + self.ingress.a.val();
        }
        if (self.ingress.op.val() == self.ops[2].val()) & self.ingress.pred.val() {
            self.new0.next = self.old0.val() + self.ingress.a.val();
        }
        if self.ingress.op.val() == self.ops[3].val() {
            if self.ingress.pred.val() {
                self.new0.next = self.ingress.a.val();
            } else {
                self.new0.next = self.old0.val() + self.ingress.b.val();
            }
        }
        // Then egress, which sees the ingress result on the same register.
        self.old1.next = self.zero_w.val();
        for i in 0..N {
            // An OR of the one matching register: a balanced tree, not a priority chain.
            if self.egress.idx.val() == self.idx[i].val() {
                self.old1.next = self.old1.val() | self.regs[i].q.val();
            }
        }
        if self.ingress.valid.val() & (self.ingress.idx.val() == self.egress.idx.val()) {
            self.old1.next = self.new0.val();
        }
        self.new1.next = self.old1.val();
        if self.egress.op.val() == self.ops[0].val() {
            self.new1.next = self.egress.a.val();
        }
        if self.egress.op.val() == self.ops[1].val() {
            self.new1.next = self.old1.val() + self.egress.a.val();
        }
        if (self.egress.op.val() == self.ops[2].val()) & self.egress.pred.val() {
            self.new1.next = self.old1.val() + self.egress.a.val();
        }
        if self.egress.op.val() == self.ops[3].val() {
            if self.egress.pred.val() {
                self.new1.next = self.egress.a.val();
            } else {
                self.new1.next = self.old1.val() + self.egress.b.val();
            }
        }
        for i in 0..N {
            if self.ingress.valid.val() & (self.ingress.idx.val() == self.idx[i].val()) {
                self.regs[i].d.next = self.new0.val();
            }
            if self.egress.valid.val() & (self.egress.idx.val() == self.idx[i].val()) {
                self.regs[i].d.next = self.new1.val();
            }
        }
        self.r0_valid.d.next = self.ingress.valid.val();
        self.r0_old.d.next = self.old0.val();
        self.r0_new.d.next = self.new0.val();
        self.r1_valid.d.next = self.egress.valid.val();
        self.r1_old.d.next = self.old1.val();
        self.r1_new.d.next = self.new1.val();
        self.ingress_resp.valid.next = self.r0_valid.q.val();
        self.ingress_resp.old.next = self.r0_old.q.val();
        self.ingress_resp.new.next = self.r0_new.q.val();
        self.egress_resp.valid.next = self.r1_valid.q.val();
        self.egress_resp.old.next = self.r1_old.q.val();
        self.egress_resp.new.next = self.r1_new.q.val();
        if self.reset.val() {
            for i in 0..N {
                self.regs[i].d.next = self.zero_w.val();
            }
            self.r0_valid.d.next = false;
            self.r1_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nt_sim::kernel::Kernel;

    /// Both ports on one register in one cycle: ingress adds, egress sees its result and
    /// adds too; the responses come the next cycle.
    #[test]
    fn ingress_goes_first_on_a_shared_register() {
        let mut k = Kernel::with_clock(StateReg16x32::new(), |b| &mut b.clock).expect("kernel");
        let u = k.uut_mut();
        for (p, a) in [(&mut u.ingress, 5u64), (&mut u.egress, 7u64)] {
            p.valid.next = true;
            p.op.next = OP_RAW.into();
            p.idx.next = 3u64.into();
            p.a.next = a.into();
        }
        k.settle().expect("settle");
        assert!(!k.uut().ingress_resp.valid.val());
        k.tick().expect("tick");
        let u = k.uut_mut();
        u.ingress.valid.next = false;
        u.egress.op.next = OP_READ.into();
        k.settle().expect("settle");
        let u = k.uut();
        assert_eq!(
            (
                u.ingress_resp.old.val().to_u64(),
                u.ingress_resp.new.val().to_u64()
            ),
            (0, 5)
        );
        assert_eq!(
            (
                u.egress_resp.old.val().to_u64(),
                u.egress_resp.new.val().to_u64()
            ),
            (5, 12)
        );
        k.tick().expect("tick");
        k.settle().expect("settle");
        assert_eq!(k.uut().egress_resp.new.val().to_u64(), 12, "read back");
    }
}
