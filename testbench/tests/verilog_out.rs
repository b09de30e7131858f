//! `verilog-out/` is what the code emits now, every file passes `verilator --lint-only -Wall`
//! (DECLFILENAME aside), and Yosys `synth_xilinx` maps it.
use nt_sim::tools::{verilator_lint, yosys_synth_xilinx};
use nt_testbench::cosim::verilog_out_dir;

#[test]
fn committed_verilog_is_up_to_date() {
    let dir = verilog_out_dir();
    let mut stale = vec![];
    let mut names = vec![];
    for b in nt_hdl::registry::blocks() {
        names.push(format!("{}.v", b.name));
        let now = (b.verilog)().unwrap();
        let path = dir.join(format!("{}.v", b.name));
        match std::fs::read_to_string(&path) {
            Ok(committed) if committed == now => {}
            Ok(_) => stale.push(format!("{} differs", path.display())),
            Err(e) => stale.push(format!("{}: {e}", path.display())),
        }
    }
    for entry in std::fs::read_dir(&dir).unwrap() {
        let n = entry.unwrap().file_name().to_string_lossy().to_string();
        if n.ends_with(".v") && !names.contains(&n) {
            stale.push(format!("{n} is committed but no block emits it"));
        }
    }
    assert!(stale.is_empty(), "verilog-out/ is stale; run `cargo run --bin ntsim -- verilog`:\n{}", stale.join("\n"));
}

#[test]
fn committed_verilog_is_lint_clean() {
    for b in nt_hdl::registry::blocks() {
        let path = verilog_out_dir().join(format!("{}.v", b.name));
        if let Err(e) = verilator_lint(&path, b.name) {
            panic!("verilator --lint-only -Wall {}:\n{e}", path.display());
        }
    }
}

#[test]
fn committed_verilog_synthesizes_for_xilinx() {
    for b in nt_hdl::registry::blocks() {
        let path = verilog_out_dir().join(format!("{}.v", b.name));
        let r = yosys_synth_xilinx(&path, b.name, "xcup").unwrap_or_else(|e| panic!("{}: {e}", b.name));
        eprintln!("{}: {r:?}", b.name);
        assert!(r.luts > 0 && r.ffs > 0, "{}: implausible resources {r:?}", b.name);
    }
}
