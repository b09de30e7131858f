//! The registered-head FIFO is the FIFO, cycle for cycle: both driven with the same random
//! pushes, pops and resets, at depths 2, 4 and 16.
use nt_hdl::fifo::Fifo;
use nt_hdl::rfifo::RegFifo;
use nt_sim::kernel::Kernel;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
struct Pair<const A: usize, const C: usize> {
    clock: Signal<In, Clock>,
    reset: Signal<In, bool>,
    push: Signal<In, bool>,
    push_data: Signal<In, Bits<12>>,
    pop: Signal<In, bool>,
    a: Fifo<Bits<12>, A, C>,
    b: RegFifo<Bits<12>, A, C>,
}

impl<const A: usize, const C: usize> Logic for Pair<A, C> {
    #[hdl_gen]
    fn update(&mut self) {
        self.a.clock.next = self.clock.val();
        self.b.clock.next = self.clock.val();
        self.a.reset.next = self.reset.val();
        self.b.reset.next = self.reset.val();
        self.a.push.next = self.push.val();
        self.b.push.next = self.push.val();
        self.a.push_data.next = self.push_data.val();
        self.b.push_data.next = self.push_data.val();
        self.a.pop.next = self.pop.val();
        self.b.pop.next = self.pop.val();
    }
}

fn run<const A: usize, const C: usize>(seed: u64, cycles: u64) -> (u64, u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut k = Kernel::with_clock(Pair::<A, C>::default(), |t| &mut t.clock).expect("kernel");
    let (mut pops, mut full) = (0, 0);
    // phases that fill, drain and churn the FIFO
    for c in 0..cycles {
        let phase = (c / 200) % 3;
        let (pp, qp) = match phase {
            0 => (0.8, 0.3),
            1 => (0.3, 0.8),
            _ => (0.5, 0.5),
        };
        let t = k.uut_mut();
        t.reset.next = rng.gen_bool(0.002);
        t.push.next = rng.gen_bool(pp);
        t.push_data.next = (rng.gen::<u64>() & 0xfff).into();
        t.pop.next = rng.gen_bool(qp);
        k.settle().expect("settle");
        let t = k.uut();
        assert_eq!(
            t.a.count.val(),
            t.b.count.val(),
            "seed {seed}, cycle {c}: count"
        );
        assert_eq!(
            t.a.nonempty.val(),
            t.b.nonempty.val(),
            "seed {seed}, cycle {c}: nonempty"
        );
        if t.a.nonempty.val() {
            assert_eq!(
                t.a.head.val(),
                t.b.head.val(),
                "seed {seed}, cycle {c}: head"
            );
            pops += t.pop.val() as u64;
        }
        full += (t.a.count.val().index() == 1 << A) as u64;
        k.tick().expect("tick");
    }
    (pops, full)
}

#[test]
fn reg_fifo_is_fifo_cycle_for_cycle() {
    for seed in 0..3 {
        let (p2, f2) = run::<1, 2>(seed, 5_000);
        let (p4, f4) = run::<2, 3>(seed, 5_000);
        let (p16, f16) = run::<4, 5>(seed, 5_000);
        // the runs pop through full and empty FIFOs
        assert!(
            p2 > 1_000 && p4 > 1_000 && p16 > 1_000,
            "{p2} {p4} {p16} pops"
        );
        assert!(
            f2 > 100 && f4 > 100 && f16 > 10,
            "{f2} {f4} {f16} cycles full"
        );
    }
}
