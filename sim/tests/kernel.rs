//! The cycle kernel on small blocks: register timing, the cycle counter, clock periods, and
//! errors instead of panics for a failed structural check or logic that never settles.
use nt_sim::kernel::{period_fs, Kernel, KernelError};
use rust_hdl::prelude::*;

/// An 8-bit counter with enable, and a combinational output `next_count`.
#[derive(LogicBlock, Default)]
struct Counter {
    clock: Signal<In, Clock>,
    enable: Signal<In, bool>,
    count: Signal<Out, Bits<8>>,
    next_count: Signal<Out, Bits<8>>,
    state: DFF<Bits<8>>,
}

impl Logic for Counter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        self.count.next = self.state.q.val();
        self.next_count.next = self.state.q.val();
        if self.enable.val() {
            self.next_count.next = self.state.q.val() + 1;
        }
        self.state.d.next = self.next_count.val();
    }
}

#[test]
fn registers_move_on_the_edge_and_combinational_outputs_follow_inputs() {
    let mut k = Kernel::with_clock(Counter::default(), |c| &mut c.clock).unwrap();
    assert_eq!(k.cycle(), 0);
    for c in 0..300u64 {
        let en = c % 3 != 0;
        k.uut_mut().enable.next = en;
        k.settle().unwrap();
        let count = k.uut().count.val().index() as u64;
        // Mealy output within the same cycle.
        assert_eq!(
            k.uut().next_count.val().index() as u64,
            (count + en as u64) % 256
        );
        k.tick().unwrap();
        assert_eq!(k.cycle(), c + 1);
    }
    // 300 cycles, enabled in 200 of them.
    k.settle().unwrap();
    assert_eq!(k.uut().count.val().index(), 200 % 256);
}

#[test]
fn run_drives_inputs_each_cycle() {
    let mut k = Kernel::with_clock(Counter::default(), |c| &mut c.clock).unwrap();
    k.run(10, |c, u| u.enable.next = c >= 5).unwrap();
    k.settle().unwrap();
    assert_eq!(k.uut().count.val().index(), 5);
}

/// A sub-block whose input nobody drives.
#[derive(LogicBlock, Default)]
struct Unconnected {
    clock: Signal<In, Clock>,
    state: DFF<Bits<4>>,
}

impl Logic for Unconnected {
    #[hdl_gen]
    fn update(&mut self) {
        self.state.clock.next = self.clock.val();
    }
}

#[test]
fn a_failed_structural_check_is_an_error() {
    match Kernel::with_clock(Unconnected::default(), |c| &mut c.clock) {
        Err(KernelError::Check(msg)) => assert!(!msg.is_empty()),
        Err(e) => panic!("wrong error {e}"),
        Ok(_) => panic!("check_all passed an unconnected input"),
    }
}

/// Logic that toggles on every evaluation (no Verilog, so rust-hdl's loop check cannot see
/// it): it never settles.
#[derive(LogicBlock, Default)]
struct Oscillator {
    clock: Signal<In, Clock>,
    out: Signal<Out, bool>,
}

impl Logic for Oscillator {
    fn update(&mut self) {
        self.out.next = !self.out.val();
    }
    fn connect(&mut self) {
        self.out.connect();
    }
}

#[test]
fn logic_that_never_settles_is_an_error_not_a_hang() {
    match Kernel::with_clock(Oscillator::default(), |c| &mut c.clock) {
        Err(KernelError::NoConvergence { cycle: 0, passes }) => assert!(passes > 0),
        Err(e) => panic!("wrong error {e}"),
        Ok(_) => panic!("an oscillator settled"),
    }
}

#[test]
fn clock_periods() {
    assert_eq!(period_fs(3.2e9).unwrap(), 312_500);
    assert_eq!(period_fs(1e9).unwrap(), 1_000_000);
    assert_eq!(period_fs(322.265625e6).unwrap(), 3_103_030);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e16] {
        assert!(period_fs(bad).is_err(), "{bad}");
    }
}

/// The kernel's settle passes skip the blocks nothing can have changed and let a block's
/// new inputs reach it in the same pass (rust-hdl-core's `Tracker`, vendor/README.md);
/// rust-hdl's own order evaluates every block every pass. Both must give every signal of
/// the hierarchy the same value at every sample: the whole VCDs of the NIC (four levels of
/// blocks) and two of its modules under their seeded workloads, byte for byte. (The
/// switch's self-checking workload needs thousands of cycles, too long for a VCD here; its
/// co-simulation and equivalence tests run on the tracked kernel.)
#[test]
fn skipping_unchanged_blocks_gives_every_signal_the_full_evaluation_value() {
    use nt_sim::runs::{run_block, RunOptions};
    let dir = std::env::temp_dir().join(format!("nt-kernel-track-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (block, cycles) in [
        ("nic_ndp", 1500),
        ("reassembly_n16", 600),
        ("packetization_n16", 600),
    ] {
        let mut vcds = vec![];
        let mut passes = vec![];
        for full_eval in [false, true] {
            let vcd = dir.join(format!("{block}-{full_eval}.vcd"));
            let opts = RunOptions {
                vcd: Some(&vcd),
                full_eval,
                ..Default::default()
            };
            let (s, _) = run_block(block, cycles, 1, &opts).unwrap();
            assert!(
                s.events + s.commands > 0,
                "{block}: the workload did nothing"
            );
            passes.push(s.passes);
            vcds.push(std::fs::read(&vcd).unwrap());
        }
        assert!(vcds[0].len() > 10_000, "{block}: a near-empty VCD");
        assert!(
            vcds[0] == vcds[1],
            "{block}: the tracked and the full-evaluation VCDs differ"
        );
        assert!(
            passes[0] < passes[1],
            "{block}: {} tracked passes against {} full ones: the same-pass inputs buy nothing",
            passes[0],
            passes[1]
        );
        println!(
            "{block}: {cycles} cycles, {} passes tracked, {} full",
            passes[0], passes[1]
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
