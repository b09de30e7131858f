//! External EDA tools: the Verilator lint step. (Synthesis reports: `fpga/synth.sh`.)
use crate::verilator::which;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Lints one emitted Verilog file with `verilator --lint-only -Wall`, allowing only
/// DECLFILENAME (a file holds its block's submodules too) and the partial-width waivers of
/// [`nt_hdl::emit::LINT_WAIVERS`], written next to the file as `lint_waivers.vlt`.
/// Returns the warnings.
///
/// A clean result is remembered in the cache ([`crate::vmodel::cache_root`]`/lint`), keyed
/// by a hash of the Verilog text, the top module, the waivers and `verilator --version`:
/// the same text is linted once (the main job and the tests lint the same emitted
/// Verilog). A text with warnings is never cached, so it is reported every time.
pub fn verilator_lint(file: &Path, top: &str) -> Result<(), String> {
    if which("verilator").is_none() {
        return Err("verilator is not installed: run the README's setup (scripts/setup.sh)".into());
    }
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let mark = lint_mark(&text, top)?;
    if mark.is_file() {
        return Ok(());
    }
    lint_uncached(file, top)?;
    // A failure to remember a clean result only costs a lint next time.
    if let Some(dir) = mark.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(&mark, top);
    Ok(())
}

/// The cache file that says `text` (top `top`) linted clean with this Verilator.
fn lint_mark(text: &str, top: &str) -> Result<PathBuf, String> {
    let out = Command::new("verilator")
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run verilator: {e}"))?;
    let mut h = DefaultHasher::new();
    (
        text,
        top,
        nt_hdl::emit::LINT_WAIVERS,
        String::from_utf8_lossy(&out.stdout).trim(),
        "--lint-only -Wall -Wno-DECLFILENAME",
    )
        .hash(&mut h);
    Ok(crate::vmodel::cache_root()
        .join("lint")
        .join(format!("{top}-{:016x}.clean", h.finish())))
}

fn lint_uncached(file: &Path, top: &str) -> Result<(), String> {
    let waivers = file
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("lint_waivers.vlt");
    // Written only when it differs, so that lints of files in one directory can run at once.
    if std::fs::read_to_string(&waivers).ok().as_deref() != Some(nt_hdl::emit::LINT_WAIVERS) {
        std::fs::write(&waivers, nt_hdl::emit::LINT_WAIVERS)
            .map_err(|e| format!("cannot write {}: {e}", waivers.display()))?;
    }
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
