//! Co-simulation: the emitted Verilog must reproduce the Rust simulation cycle for cycle.
//!
//! Generic over blocks: [`record`] runs a block's seeded workload on the kernel and records
//! every top-level port every cycle; [`replay`] runs a Verilog text under Verilator (the
//! in-process engine's model, [`nt_sim::vmodel::replay`]: verilated once per Verilog text
//! and cached on disk, so every replay of a block's committed Verilog shares one build) or
//! Icarus (a generated Verilog testbench), drives the recorded inputs and compares every
//! output, stopping at the first mismatch with its cycle and signal.
use nt_sim::ports::PortRecorder;
use nt_sim::runs::{run_block, RunOptions};
use nt_sim::verilator::Replay;
use std::path::{Path, PathBuf};

/// Runs `block` for `cycles` with `seed` and returns its port record.
pub fn record(block: &str, cycles: u64, seed: u64) -> Result<PortRecorder, String> {
    let opts = RunOptions {
        record_ports: true,
        ..Default::default()
    };
    let (_, rec) = run_block(block, cycles, seed, &opts)?;
    rec.ok_or_else(|| "the run returned no port record".to_string())
}

/// The simulator that replays the vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simulator {
    /// Verilator, the model stepped in this process (2-state).
    Verilator,
    /// Icarus Verilog with a generated Verilog testbench (4-state: X/Z on an output fails).
    Icarus,
}

/// Replays `rec`'s vectors on `verilog` under `sim`. Icarus works in `dir` (the Verilog, the
/// vector file, the testbench); Verilator builds its model in the shared cache
/// ([`nt_sim::vmodel::cache_root`]) and leaves `dir` alone.
pub fn replay(
    sim: Simulator,
    verilog: &str,
    module: &str,
    rec: &PortRecorder,
    dir: &Path,
) -> Result<Replay, String> {
    match sim {
        Simulator::Verilator => nt_sim::vmodel::replay(verilog, module, rec),
        Simulator::Icarus => {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            let v = dir.join(format!("{module}.v"));
            std::fs::write(&v, verilog).map_err(|e| e.to_string())?;
            let vectors = dir.join("vectors.txt");
            std::fs::write(&vectors, rec.to_vector_file()).map_err(|e| e.to_string())?;
            nt_sim::icarus::replay(&v, module, &rec.ports, &vectors, dir)
        }
    }
}

/// The committed Verilog of a block (`verilog-out/<name>.v`).
pub fn committed_verilog(name: &str) -> Result<String, String> {
    let p = verilog_out_dir().join(format!("{name}.v"));
    std::fs::read_to_string(&p)
        .map_err(|e| format!("cannot read {}: {e} (run `ntsim verilog`)", p.display()))
}

/// `verilog-out/` at the workspace root.
pub fn verilog_out_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("verilog-out")
}

/// Applies a textual mutation to exactly the first occurrence of `find`; errors if absent,
/// so a mutation test can never pass vacuously.
pub fn mutate(verilog: &str, find: &str, replace: &str) -> Result<String, String> {
    if !verilog.contains(find) {
        return Err(format!("mutation target {find:?} is not in the Verilog"));
    }
    Ok(verilog.replacen(find, replace, 1))
}
