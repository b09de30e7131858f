//! The registered-head FIFO and the prefetching FIFO (its RAM read address a register) are
//! the FIFO, cycle for cycle: all three driven with the same random pushes, pops and
//! resets, at depths 2, 4, 16 and 128.
use nt_hdl::fifo::Fifo;
use nt_hdl::pfifo::PrefetchFifo;
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
    p: PrefetchFifo<Bits<12>, A, C>,
}

impl<const A: usize, const C: usize> Logic for Pair<A, C> {
    #[hdl_gen]
    fn update(&mut self) {
        self.a.clock.next = self.clock.val();
        self.b.clock.next = self.clock.val();
        self.p.clock.next = self.clock.val();
        self.a.reset.next = self.reset.val();
        self.b.reset.next = self.reset.val();
        self.p.reset.next = self.reset.val();
        self.a.push.next = self.push.val();
        self.b.push.next = self.push.val();
        self.p.push.next = self.push.val();
        self.a.push_data.next = self.push_data.val();
        self.b.push_data.next = self.push_data.val();
        self.p.push_data.next = self.push_data.val();
        self.a.pop.next = self.pop.val();
        self.b.pop.next = self.pop.val();
        self.p.pop.next = self.pop.val();
    }
}

fn run<const A: usize, const C: usize>(seed: u64, cycles: u64, phase_len: u64) -> (u64, u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut k = Kernel::with_clock(Pair::<A, C>::default(), |t| &mut t.clock).expect("kernel");
    let (mut pops, mut full) = (0, 0);
    // phases that fill, drain and churn the FIFO
    for c in 0..cycles {
        let phase = (c / phase_len) % 3;
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
        for (name, count, nonempty, head) in [
            (
                "RegFifo",
                t.b.count.val(),
                t.b.nonempty.val(),
                t.b.head.val(),
            ),
            (
                "PrefetchFifo",
                t.p.count.val(),
                t.p.nonempty.val(),
                t.p.head.val(),
            ),
        ] {
            assert_eq!(
                t.a.count.val(),
                count,
                "{name}, seed {seed}, cycle {c}: count"
            );
            assert_eq!(
                t.a.nonempty.val(),
                nonempty,
                "{name}, seed {seed}, cycle {c}: nonempty"
            );
            if t.a.nonempty.val() {
                assert_eq!(t.a.head.val(), head, "{name}, seed {seed}, cycle {c}: head");
            }
        }
        if t.a.nonempty.val() {
            pops += t.pop.val() as u64;
        }
        full += (t.a.count.val().index() == 1 << A) as u64;
        k.tick().expect("tick");
    }
    (pops, full)
}

#[test]
fn fifo_variants_are_the_fifo_cycle_for_cycle() {
    for seed in 0..3 {
        let (p2, f2) = run::<1, 2>(seed, 5_000, 200);
        let (p4, f4) = run::<2, 3>(seed, 5_000, 200);
        let (p16, f16) = run::<4, 5>(seed, 5_000, 200);
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
    // depth 128 (packetization's return FIFOs at 128 messages): long fill phases reach full
    let (p128, f128) = run::<7, 8>(7, 20_000, 600);
    assert!(p128 > 5_000 && f128 > 10, "{p128} pops, {f128} cycles full");
}
