//! Golden model of the stateful register externs (`hdl/src/statereg.rs`): the table of
//! operations in plain Rust, ingress before egress within a cycle, results one cycle
//! later.
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

/// Registers and the responses due next cycle.
pub struct StateRegModel {
    pub regs: Vec<u64>,
    w: u32,
    /// (old, new) of each port's operation of the previous cycle.
    pub due: [Option<(u64, u64)>; 2],
}

impl StateRegModel {
    pub fn new(n: usize, w: u32) -> Self {
        StateRegModel {
            regs: vec![0; n],
            w,
            due: [None, None],
        }
    }

    /// Applies one cycle's operations; returns the responses due this cycle (from the last).
    pub fn cycle(&mut self, ops: [Option<RegOp>; 2]) -> [Option<(u64, u64)>; 2] {
        let out = self.due;
        for (p, o) in ops.iter().enumerate() {
            self.due[p] = o.map(|o| {
                let old = self.regs[o.idx as usize];
                let new = apply(&o, old, self.w);
                self.regs[o.idx as usize] = new;
                (old, new)
            });
        }
        out
    }
}
