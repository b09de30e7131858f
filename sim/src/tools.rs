//! External EDA tools: the Verilator lint step. (Synthesis reports: `fpga/synth.sh`.)
use crate::verilator::which;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Lints one emitted Verilog file with `verilator --lint-only -Wall`, allowing only
/// DECLFILENAME (a file holds its block's submodules too) and the partial-width waivers of
/// [`nt_hdl::emit::LINT_WAIVERS`] (a copy in the cache, so that linting never writes
/// beside the file: `verilog-out/lint_waivers.vlt` is tracked). Returns the warnings.
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

/// The waivers as a file in the cache, named by a hash of their text (written once, by a
/// rename, so that lints can run at once).
fn waivers_file() -> Result<PathBuf, String> {
    let mut h = DefaultHasher::new();
    nt_hdl::emit::LINT_WAIVERS.hash(&mut h);
    let dir = crate::vmodel::cache_root().join("lint");
    let path = dir.join(format!("waivers-{:016x}.vlt", h.finish()));
    if std::fs::read_to_string(&path).ok().as_deref() != Some(nt_hdl::emit::LINT_WAIVERS) {
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!("waivers.tmp{}-{n}", std::process::id()));
        std::fs::write(&tmp, nt_hdl::emit::LINT_WAIVERS)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(path)
}

fn lint_uncached(file: &Path, top: &str) -> Result<(), String> {
    let waivers = waivers_file()?;
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
