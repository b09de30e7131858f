//! `verilog-out/` is what the code emits now, every file passes `verilator --lint-only -Wall`
//! (DECLFILENAME aside), Yosys `synth_xilinx` maps it, and Yosys `synth_ecp5` with
//! nextpnr-ecp5 maps and places a small block and the 16-message NIC on an LFE5U-85F (both
//! through `fpga/synth.sh`; `fpga.rs` tests the level count and the script's arguments).
//! `switch_p16` is too large for a full synthesis in CI (see [`FULL_SYNTHESIS_ONLY`]): it is
//! linted like every block and elaborated by Yosys here, and `fpga/synth.sh switch_p16`
//! gives its resources (`docs/fpga.md`).
//! The ECP5 run is here, not in `fpga.rs`, so that it shares the two cores with the Xilinx
//! run instead of leaving one idle while its NIC synthesizes; the full ECP5 table (every
//! block) is the script's job (`docs/fpga.md`): this test keeps to two blocks to keep CI
//! short.
use nt_sim::tools::verilator_lint;
use nt_testbench::cosim::verilog_out_dir;
use nt_testbench::repo_cmd::{root, run, text};

/// Blocks whose Yosys `synth_xilinx` run takes too long for CI (switch_p16: see
/// `docs/fpga.md` for its time); `fpga/synth.sh <block>` synthesizes them on demand.
const FULL_SYNTHESIS_ONLY: [&str; 1] = ["switch_p16"];

#[test]
fn committed_verilog_is_up_to_date() {
    let dir = verilog_out_dir();
    let mut stale = vec![];
    let mut names = vec![];
    for (name, now) in nt_hdl::registry::emit_all() {
        let now = now.unwrap();
        names.push(format!("{name}.v"));
        let path = dir.join(format!("{name}.v"));
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

/// No part-select of a part-select (`x[3+:16][0+:4]`: a slice of a struct field or of an
/// expression in `hdl_gen`). Verilator accepts it, Yosys rejects it, and the synthesis
/// test would only say so at the end of a long run (`docs/rust-hdl-guide.md`).
#[test]
fn committed_verilog_has_no_slice_of_a_slice() {
    let mut bad = vec![];
    for b in nt_hdl::registry::blocks() {
        let path = verilog_out_dir().join(format!("{}.v", b.name));
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.contains("][") {
                bad.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "slices of slices:\n{}", bad.join("\n"));
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
    let root = root();
    let blocks: Vec<_> = nt_hdl::registry::blocks()
        .into_iter()
        .filter(|b| !FULL_SYNTHESIS_ONLY.contains(&b.name))
        .collect();
    let out = std::process::Command::new("bash")
        .arg("fpga/synth.sh")
        .args(blocks.iter().map(|b| b.name))
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
    for b in &blocks {
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

/// The blocks left out of the CI synthesis still go through Yosys's front end: read,
/// hierarchy, `proc` (every process to logic, no latch) and `check -assert` (no multiple or
/// missing drivers, no combinational loop).
#[test]
fn full_synthesis_only_blocks_elaborate_in_yosys() {
    for top in FULL_SYNTHESIS_ONLY {
        let file = format!("verilog-out/{top}.v");
        let script = format!(
            "read_verilog -sv {file}; hierarchy -check -top {top}; proc; check -assert; select -assert-none t:$dlatch t:$sr t:$dlatchsr"
        );
        let o = run("yosys", &["-q", "-p", &script]);
        assert!(o.status.success(), "yosys on {file}:\n{}", text(&o));
    }
}

/// One row of the ECP5 table.
#[derive(Debug)]
struct Ecp5Row {
    comb: u64,
    ff: u64,
    dp16kd: u64,
    fmax: Option<f64>,
    levels: u64,
    /// `None` when it fits, else the overflowing resources `(name, used, available)`.
    overflow: Option<Vec<(String, u64, u64)>>,
}

fn ecp5_row(table: &str, block: &str) -> Ecp5Row {
    let row = table
        .lines()
        .skip_while(|l| !l.starts_with("ecp5:"))
        .find(|l| l.split_whitespace().next() == Some(block))
        .unwrap_or_else(|| panic!("no ECP5 row for {block}:\n{table}"));
    let f: Vec<&str> = row.split_whitespace().collect();
    assert!(f.len() >= 9, "{row}");
    let n = |i: usize| -> u64 {
        f[i].parse()
            .unwrap_or_else(|_| panic!("column {i} of {row}"))
    };
    let fit = f[8..].join(" ");
    let overflow = if fit == "fits" {
        None
    } else {
        let list = fit
            .strip_prefix("does not fit: ")
            .unwrap_or_else(|| panic!("fit column of {row}"));
        Some(
            list.split(", ")
                .map(|r| {
                    let (name, ua) = r.split_once(' ').expect(row);
                    let (u, a) = ua.split_once('/').expect(row);
                    (
                        name.to_string(),
                        u.parse().expect(row),
                        a.parse().expect(row),
                    )
                })
                .collect(),
        )
    };
    Ecp5Row {
        comb: n(1),
        ff: n(2),
        dp16kd: n(4),
        fmax: (f[6] != "-").then(|| f[6].parse().expect(row)),
        levels: n(7),
        overflow,
    }
}

/// Yosys `synth_ecp5` and nextpnr-ecp5 run on `timer_n16` and `nic_ndp`; each gets a
/// row and a report. The timer (155 LUTs on UltraScale+) fits the 85F and has an Fmax; the
/// NIC either fits with an Fmax or is reported as not fitting with the resource that
/// overflows (used above available), never dropped.
#[test]
fn ecp5_flow_places_a_small_block_and_reports_the_nic() {
    let o = run(
        "bash",
        &["fpga/synth.sh", "--family", "ecp5", "timer_n16", "nic_ndp"],
    );
    let out = text(&o);
    assert!(
        o.status.success(),
        "fpga/synth.sh --family ecp5 failed:\n{out}"
    );
    eprintln!("{out}");
    for block in ["timer_n16", "nic_ndp"] {
        let r = ecp5_row(&out, block);
        assert!(r.comb > 0 && r.ff > 0 && r.levels > 0, "{block}: {r:?}");
        let report = std::fs::read_to_string(root().join(format!("fpga/reports/{block}.ecp5.txt")))
            .unwrap_or_else(|e| panic!("{block}: no ECP5 report: {e}"));
        for part in [
            "Number of cells",
            "Deepest logic path",
            "nextpnr-ecp5 --85k --package CABGA381",
            "TRELLIS_COMB",
        ] {
            assert!(
                report.contains(part),
                "{block}: report lacks {part}:\n{report}"
            );
        }
        match &r.overflow {
            None => {
                let fmax = r
                    .fmax
                    .unwrap_or_else(|| panic!("{block} fits but has no Fmax"));
                assert!(fmax > 1.0, "{block}: Fmax {fmax}");
                assert!(report.contains("Fmax clock:") && report.contains("critical path"));
            }
            Some(over) => {
                assert!(!over.is_empty() && r.fmax.is_none(), "{block}: {r:?}");
                for (name, used, avail) in over {
                    assert!(
                        used > avail,
                        "{block}: {name} {used}/{avail} is no overflow"
                    );
                    assert!(report.contains(name.as_str()) && report.contains("OVER"));
                }
                if over.iter().any(|(n, _, _)| n == "DP16KD") {
                    assert!(r.dp16kd > 208, "{r:?}");
                }
            }
        }
    }
    let timer = ecp5_row(&out, "timer_n16");
    assert!(
        timer.overflow.is_none(),
        "timer_n16 must fit an 85F: {timer:?}"
    );
}
