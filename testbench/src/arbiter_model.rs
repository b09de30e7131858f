//! Golden model of the control/data [`Arbiter`](nt_hdl::arbiter::Arbiter), cycle for
//! cycle, written from its contract: at a packet boundary a waiting control packet goes
//! first; a packet once started keeps the output until its last beat is accepted.
use nt_sim::arb_workload::{ArbInputs, ArbOutputs, TxBeat};

/// The model's state: which input owns the output, if a packet is in progress.
#[derive(Clone, Copy, Debug, Default)]
pub struct ArbiterModel {
    /// `Some(true)`: a control packet is in progress; `Some(false)`: a data packet.
    in_progress: Option<bool>,
}

impl ArbiterModel {
    pub fn new() -> Self {
        Self::default()
    }

    /// The outputs in a cycle with inputs `i`.
    pub fn outputs(&self, i: &ArbInputs) -> ArbOutputs {
        let ctrl = self.in_progress.unwrap_or(i.ctrl.is_some());
        let chosen = if ctrl { i.ctrl } else { i.data };
        let go = !i.reset;
        ArbOutputs {
            valid: go && chosen.is_some(),
            beat: chosen.unwrap_or_else(|| {
                // The hardware forwards the selected input's (idle) fields.
                TxBeat::default()
            }),
            ctrl_ready: go && ctrl && i.ready,
            data_ready: go && !ctrl && i.ready,
        }
    }

    /// Advances one clock edge.
    pub fn clock(&mut self, i: &ArbInputs) {
        let o = self.outputs(i);
        if i.reset {
            self.in_progress = None;
        } else if o.valid && i.ready {
            let ctrl = self.in_progress.unwrap_or(i.ctrl.is_some());
            self.in_progress = (!o.beat.last).then_some(ctrl);
        }
    }
}
