//! Running the repository's scripts and tools from tests (`fpga/synth.sh`, `yosys`).
use std::path::PathBuf;
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    crate::cosim::verilog_out_dir().join("..")
}

/// Runs `cmd args` in the repository root; panics when it cannot start.
pub fn run(cmd: &str, args: &[&str]) -> Output {
    Command::new(cmd)
        .args(args)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"))
}

/// stdout then stderr of `o`.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}
