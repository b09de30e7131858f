//! `verilog-out/` is what the code emits now, every file passes `verilator --lint-only -Wall`
//! (DECLFILENAME aside), and Yosys `synth_xilinx` maps it (through `fpga/synth.sh`; the ECP5
//! flow is in `fpga.rs`).
use nt_sim::tools::verilator_lint;
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
    match std::fs::read_to_string(dir.join("lint_waivers.vlt")) {
        Ok(w) if w == nt_hdl::emit::LINT_WAIVERS => {}
        _ => stale.push("lint_waivers.vlt differs from nt_hdl::emit::LINT_WAIVERS".into()),
    }
    for entry in std::fs::read_dir(&dir).unwrap() {
        let n = entry.unwrap().file_name().to_string_lossy().to_string();
        if n.ends_with(".v") && !names.contains(&n) {
            stale.push(format!("{n} is committed but no block emits it"));
        }
    }
    assert!(
        stale.is_empty(),
        "verilog-out/ is stale; run `cargo run --bin ntsim -- verilog`:\n{}",
        stale.join("\n")
    );
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

/// `fpga/synth.sh` (Yosys `synth_xilinx`, UltraScale+) maps every block and reports its
/// resources and LUT levels, and the NICs next to thesis Table 3.2.
#[test]
fn committed_verilog_synthesizes_for_xilinx() {
    let root = verilog_out_dir().join("..");
    let out = std::process::Command::new("bash")
        .arg("fpga/synth.sh")
        .current_dir(&root)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "fpga/synth.sh failed:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    let (table, published) = text
        .split_once("against thesis Table 3.2")
        .unwrap_or_else(|| panic!("no comparison with thesis Table 3.2:\n{text}"));
    for b in nt_hdl::registry::blocks() {
        let row = table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(b.name))
            .unwrap_or_else(|| panic!("no report row for {}:\n{text}", b.name));
        let n: Vec<u64> = row
            .split_whitespace()
            .skip(1)
            .map(|x| x.parse().unwrap())
            .collect();
        // LUT FF LUTRAM BRAM18 BRAM36 URAM288 levels
        assert_eq!(n.len(), 7, "{row}");
        assert!(
            n[0] > 0 && n[1] > 0,
            "{}: implausible LUT/FF counts: {row}",
            b.name
        );
        let report =
            std::fs::read_to_string(root.join(format!("fpga/reports/{}.xcup.txt", b.name)))
                .unwrap_or_else(|e| panic!("{}: no report: {e}", b.name));
        assert!(
            report.contains("Number of cells") && report.contains("Deepest logic path"),
            "{}: incomplete report",
            b.name
        );
    }
    for (nic, messages) in [("nic_ndp", 16), ("nic_ndp_n128", 128)] {
        let row = published
            .lines()
            .find(|l| l.starts_with(&format!("{nic} ({messages})")))
            .unwrap_or_else(|| panic!("{nic} is not compared with Table 3.2:\n{text}"));
        assert_eq!(row.split_whitespace().count(), 10, "{row}");
    }
}
