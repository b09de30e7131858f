//! External EDA tools: presence checks and the Verilog lint and synthesis steps.
use crate::verilator::which;
use std::path::Path;
use std::process::Command;

/// Lints one emitted Verilog file with `verilator --lint-only -Wall`, allowing only
/// DECLFILENAME (a file holds its block's submodules too). Returns the warnings.
pub fn verilator_lint(file: &Path, top: &str) -> Result<(), String> {
    if which("verilator").is_none() {
        return Err("verilator is not installed: run the README's setup (scripts/setup.sh)".into());
    }
    let out = Command::new("verilator")
        .args(["--lint-only", "-Wall", "-Wno-DECLFILENAME", "--top-module", top])
        .arg(file)
        .output()
        .map_err(|e| format!("cannot run verilator: {e}"))?;
    let text = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    if out.status.success() && !text.contains("%Warning") && !text.contains("%Error") {
        Ok(())
    } else {
        Err(text)
    }
}

/// Resource counts from Yosys.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    pub luts: u64,
    pub ffs: u64,
    /// LUTs used as distributed RAM.
    pub lutram: u64,
    /// Block RAM tiles (RAMB18 counts as 1/2, reported in halves).
    pub bram18: u64,
}

/// Runs Yosys `synth_xilinx` (family `family`, e.g. `xcup`) on `file` with top `top`.
pub fn yosys_synth_xilinx(file: &Path, top: &str, family: &str) -> Result<Resources, String> {
    if which("yosys").is_none() {
        return Err("yosys is not installed: run the README's setup (scripts/setup.sh)".into());
    }
    let script = format!(
        "read_verilog {}; synth_xilinx -family {family} -top {top} -flatten -noiopad; stat",
        file.display()
    );
    let out = Command::new("yosys")
        .args(["-p", &script])
        .output()
        .map_err(|e| format!("cannot run yosys: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    if !out.status.success() {
        return Err(format!("yosys failed:\n{text}{}", String::from_utf8_lossy(&out.stderr)));
    }
    // The final `stat` is the last "Printing statistics" section of the log.
    let last = text.rfind("Printing statistics").map(|i| &text[i..]).unwrap_or(&text);
    Ok(parse_xilinx_stat(last))
}

/// Sums cell counts from Yosys `stat` output for Xilinx primitives.
pub fn parse_xilinx_stat(text: &str) -> Resources {
    let mut r = Resources::default();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let (Some(cell), Some(n)) = (it.next(), it.next()) else { continue };
        let Ok(n) = n.parse::<u64>() else { continue };
        if cell.starts_with("LUT") && cell[3..].chars().all(|c| c.is_ascii_digit()) && cell.len() == 4 {
            r.luts += n;
        } else if matches!(cell, "FDRE" | "FDSE" | "FDCE" | "FDPE" | "FDRE_1" | "FDSE_1" | "FDCE_1" | "FDPE_1") {
            r.ffs += n;
        } else if cell.starts_with("RAM32") || cell.starts_with("RAM64") || cell.starts_with("RAM128")
            || cell.starts_with("RAM256") || cell.starts_with("RAM16") || cell.starts_with("SRL")
        {
            r.lutram += n;
        } else if cell.starts_with("RAMB18") {
            r.bram18 += n;
        } else if cell.starts_with("RAMB36") {
            r.bram18 += 2 * n;
        }
    }
    r
}
