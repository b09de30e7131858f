//! Seeded operations for the [`StateReg`] externs: both ports busy most cycles, all five
//! operations with random operands and predicates, indices drawn from a few registers so
//! that both ports often hit the same one in the same cycle.
use nt_hdl::statereg::{RegOpIn, StateReg};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One port's operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegOp {
    pub op: u8,
    pub idx: u8,
    pub a: u64,
    pub b: u64,
    pub pred: bool,
}

/// Seeded operations on both ports.
pub struct StateRegWorkload {
    rng: ChaCha8Rng,
    n: usize,
}

impl StateRegWorkload {
    pub fn new(seed: u64, n: usize) -> Self {
        StateRegWorkload {
            rng: ChaCha8Rng::seed_from_u64(seed),
            n,
        }
    }

    fn op(&mut self) -> Option<RegOp> {
        let r = &mut self.rng;
        if r.gen_bool(0.2) {
            return None;
        }
        // Mostly a few hot registers, sometimes any.
        let idx = if r.gen_bool(0.7) {
            r.gen_range(0..3)
        } else {
            r.gen_range(0..self.n) as u8
        };
        let big = |r: &mut ChaCha8Rng| {
            if r.gen_bool(0.1) {
                u32::MAX as u64 - r.gen_range(0..4)
            } else {
                r.gen_range(0..1000)
            }
        };
        Some(RegOp {
            op: r.gen_range(0..6),
            idx,
            a: big(r),
            b: big(r),
            pred: r.gen(),
        })
    }

    /// Draws this cycle's operations (ingress, egress) and sets them on the block.
    pub fn drive<const A: usize, const N: usize, const W: usize>(
        &mut self,
        u: &mut StateReg<A, N, W>,
    ) -> (Option<RegOp>, Option<RegOp>) {
        let (i, e) = (self.op(), self.op());
        u.reset.next = false;
        set(&mut u.ingress, i);
        set(&mut u.egress, e);
        (i, e)
    }
}

fn set<const A: usize, const W: usize>(p: &mut RegOpIn<A, W>, o: Option<RegOp>) {
    let x = o.unwrap_or_default();
    p.valid.next = o.is_some();
    p.op.next = (x.op as u64).into();
    p.idx.next = (x.idx as u64).into();
    p.a.next = x.a.into();
    p.b.next = x.b.into();
    p.pred.next = x.pred;
}
