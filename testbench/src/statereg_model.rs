//! Golden model of the stateful register externs (`hdl/src/statereg.rs`): the table of
//! operations in plain Rust, applied in order (ingress before egress within a cycle, each
//! cycle's operations seeing every earlier one), results
//! [`RESP_LATENCY`](nt_hdl::statereg::RESP_LATENCY) = 2 cycles later; a reset clears
//! every register and drops the operations of its cycle and the cycle before.
use nt_sim::statereg_workload::RegOp;

/// The new value of a register holding `old` under `o` (`W`-bit wrapping).
pub fn apply(o: &RegOp, old: u64, w: u32) -> u64 {
    let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
    let add = |x: u64, y: u64| x.wrapping_add(y) & mask;
    match o.op {
        1 => o.a & mask,
        2 => add(old, o.a),
        3 if o.pred => add(old, o.a),
        4 if o.pred => o.a & mask,
        4 => add(old, o.b),
        _ => old,
    }
}

/// One cycle's responses, (old, new) per port.
pub type Resp = [Option<(u64, u64)>; 2];

/// Registers and the responses not yet due.
pub struct StateRegModel {
    pub regs: Vec<u64>,
    w: u32,
    /// The responses of the last two cycles' operations, oldest first.
    pub due: [Resp; 2],
}

impl StateRegModel {
    pub fn new(n: usize, w: u32) -> Self {
        StateRegModel {
            regs: vec![0; n],
            w,
            due: [[None, None]; 2],
        }
    }

    /// Applies one cycle's operations; returns the responses due this cycle (those of the
    /// operations two cycles ago).
    pub fn cycle(&mut self, ops: [Option<RegOp>; 2]) -> Resp {
        let out = self.due[0];
        self.due[0] = self.due[1];
        for (p, o) in ops.iter().enumerate() {
            self.due[1][p] = o.map(|o| {
                let old = self.regs[o.idx as usize];
                let new = apply(&o, old, self.w);
                self.regs[o.idx as usize] = new;
                (old, new)
            });
        }
        out
    }

    /// A reset cycle (its operations are dropped); returns the responses due this cycle.
    pub fn reset(&mut self) -> Resp {
        let out = self.due[0];
        self.due = [[None, None]; 2];
        self.regs.iter_mut().for_each(|r| *r = 0);
        out
    }
}
