//! The loop every block equivalence test runs: the block on the cycle kernel and its
//! plain-Rust model side by side, both outputs compared in every cycle, driven by a
//! self-checking workload that sees the block's outputs and returns the next inputs.
use nt_sim::kernel::Kernel;
use rust_hdl::prelude::Block;
use std::fmt::Debug;

/// What one side of a lockstep run is: its outputs now, and one clock edge with inputs `D`.
pub trait CycleModel<V, D> {
    fn view(&self) -> V;
    fn clock(&mut self, d: &D);
}

/// Runs `kern` (the block) and `model` for `cycles` cycles. Each cycle: the block's
/// outputs (`read`) must equal the model's (a failure names `seed` and the cycle), the
/// workload's `step` checks them and returns the cycle's inputs (its error is a failure
/// too), `drive` sets them on the block, and both take the clock edge. Returns the block's
/// outputs after the last edge.
pub fn lockstep<B, V, D, M>(
    seed: u64,
    cycles: u64,
    kern: &mut Kernel<B>,
    model: &mut M,
    read: impl Fn(&B) -> V,
    mut step: impl FnMut(u64, &V) -> Result<D, String>,
    drive: impl Fn(&mut B, &D),
) -> V
where
    B: Block + nt_hdl::Clocked,
    V: PartialEq + Debug,
    M: CycleModel<V, D>,
{
    for c in 0..cycles {
        let view = read(kern.uut());
        assert_eq!(
            view,
            model.view(),
            "seed {seed} cycle {c}: RTL and model differ"
        );
        let d = step(c, &view).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        drive(kern.uut_mut(), &d);
        kern.settle().expect("settle");
        model.clock(&d);
        kern.tick().expect("tick");
    }
    read(kern.uut())
}

/// [`CycleModel`] from a model's own `view` and `clock`.
macro_rules! cycle_model {
    ($m:ty, $w:ident) => {
        impl CycleModel<nt_sim::$w::View, nt_sim::$w::Drive> for $m {
            fn view(&self) -> nt_sim::$w::View {
                <$m>::view(self)
            }
            fn clock(&mut self, d: &nt_sim::$w::Drive) {
                <$m>::clock(self, d)
            }
        }
    };
}

cycle_model!(crate::adm_model::AdmModel, adm_workload);
cycle_model!(crate::sbuf_model::SbufModel, sbuf_workload);
cycle_model!(crate::sing_model::SingModel, sing_workload);
cycle_model!(crate::sque_model::SqueModel, sque_workload);
cycle_model!(crate::switch2_model::Switch2Model, switch2_workload);
