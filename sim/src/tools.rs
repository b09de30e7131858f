//! External EDA tools: the Verilator lint step. (Synthesis reports: `fpga/synth.sh`.)
use crate::verilator::which;
use std::path::Path;
use std::process::Command;

/// Lints one emitted Verilog file with `verilator --lint-only -Wall`, allowing only
/// DECLFILENAME (a file holds its block's submodules too) and the partial-width waivers of
/// [`nt_hdl::emit::LINT_WAIVERS`], written next to the file as `lint_waivers.vlt`.
/// Returns the warnings.
pub fn verilator_lint(file: &Path, top: &str) -> Result<(), String> {
    if which("verilator").is_none() {
        return Err("verilator is not installed: run the README's setup (scripts/setup.sh)".into());
    }
    let waivers = file
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("lint_waivers.vlt");
    std::fs::write(&waivers, nt_hdl::emit::LINT_WAIVERS)
        .map_err(|e| format!("cannot write {}: {e}", waivers.display()))?;
    let out = Command::new("verilator")
        .args([
            "--lint-only",
            "-Wall",
            "-Wno-DECLFILENAME",
            "--top-module",
            top,
        ])
        .arg(&waivers)
        .arg(file)
        .output()
        .map_err(|e| format!("cannot run verilator: {e}"))?;
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    if out.status.success() && !text.contains("%Warning") && !text.contains("%Error") {
        Ok(())
    } else {
        Err(text)
    }
}
