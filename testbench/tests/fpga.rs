//! The FPGA flow beyond the Xilinx synthesis of every block (`verilog_out.rs`): Yosys
//! `synth_ecp5` and nextpnr-ecp5 on an LFE5U-85F for a small block and the 16-message NIC
//! through `fpga/synth.sh --family ecp5`, the LUT-level count of `fpga/levels.py`, and the
//! script's errors on bad input. The full tables (every block, both families) are the
//! script's job (`docs/fpga.md`); this test keeps to two blocks to keep CI short.
use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    nt_testbench::cosim::verilog_out_dir().join("..")
}

fn run(cmd: &str, args: &[&str]) -> Output {
    Command::new(cmd)
        .args(args)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
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

fn levels(name: &str, netlist: &str) -> Output {
    let dir = std::env::temp_dir().join(format!("nt-levels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(format!("{name}.json"));
    std::fs::write(&f, netlist).unwrap();
    let root = root();
    run(
        "python3",
        &[
            root.join("fpga/levels.py").to_str().unwrap(),
            f.to_str().unwrap(),
        ],
    )
}

fn cell(ty: &str, conns: &[(&str, &str, &str)]) -> String {
    let dirs: Vec<String> = conns
        .iter()
        .map(|(p, d, _)| format!("\"{p}\": \"{d}\""))
        .collect();
    let c: Vec<String> = conns
        .iter()
        .map(|(p, _, b)| format!("\"{p}\": [{b}]"))
        .collect();
    format!(
        "{{\"type\": \"{ty}\", \"port_directions\": {{{}}}, \"connections\": {{{}}}}}",
        dirs.join(", "),
        c.join(", ")
    )
}

fn netlist(cells: &[(&str, String)]) -> String {
    let c: Vec<String> = cells.iter().map(|(n, c)| format!("\"{n}\": {c}")).collect();
    format!(
        "{{\"modules\": {{\"t\": {{\"attributes\": {{\"top\": \"1\"}}, \"cells\": {{{}}}, \
         \"netnames\": {{\"q\": {{\"hide_name\": 0, \"bits\": [2]}}, \"d\": {{\"hide_name\": 0, \"bits\": [9]}}}}}}}}}}",
        c.join(", ")
    )
}

/// FF -> LUT4 -> two-cell carry chain (the second cell fed by the FF too) -> LUT4 + PFUMX
/// (a LUT5) -> LUT4 -> FF is four levels: the chain counts once however long, the PFUMX
/// zero (Yosys `ltp` would say six).
#[test]
fn levels_count_luts_and_carry_chains_once() {
    let n = netlist(&[
        (
            "ff",
            cell(
                "TRELLIS_FF",
                &[
                    ("CLK", "input", "10"),
                    ("DI", "input", "9"),
                    ("Q", "output", "2"),
                ],
            ),
        ),
        (
            "l1",
            cell("LUT4", &[("A", "input", "2"), ("Z", "output", "3")]),
        ),
        (
            "c1",
            cell(
                "CCU2C",
                &[
                    ("A0", "input", "3"),
                    ("CIN", "input", "\"0\""),
                    ("COUT", "output", "4"),
                    ("S0", "output", "11"),
                ],
            ),
        ),
        (
            "c2",
            cell(
                "CCU2C",
                &[
                    ("A0", "input", "2"),
                    ("CIN", "input", "4"),
                    ("COUT", "output", "12"),
                    ("S0", "output", "5"),
                ],
            ),
        ),
        (
            "la",
            cell("LUT4", &[("A", "input", "5"), ("Z", "output", "6")]),
        ),
        (
            "lb",
            cell("LUT4", &[("A", "input", "2"), ("Z", "output", "7")]),
        ),
        (
            "m",
            cell(
                "PFUMX",
                &[
                    ("ALUT", "input", "6"),
                    ("BLUT", "input", "7"),
                    ("C0", "input", "2"),
                    ("Z", "output", "8"),
                ],
            ),
        ),
        (
            "l3",
            cell("LUT4", &[("A", "input", "8"), ("Z", "output", "9")]),
        ),
    ]);
    let o = levels("chain", &n);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert_eq!(out.lines().next(), Some("levels 4"), "{out}");
    assert!(out.contains("from q") && out.contains("to   d"), "{out}");
    for c in ["l1", "c1", "c2", "la", "m", "l3"] {
        assert!(
            out.lines().any(|l| l.ends_with(&format!(" {c}"))),
            "{c} not on the path:\n{out}"
        );
    }
}

#[test]
fn levels_reject_a_loop_and_a_bad_file() {
    let n = netlist(&[
        (
            "a",
            cell("LUT4", &[("A", "input", "3"), ("Z", "output", "4")]),
        ),
        (
            "b",
            cell("LUT4", &[("A", "input", "4"), ("Z", "output", "3")]),
        ),
    ]);
    let o = levels("loop", &n);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("combinational loop"), "{}", text(&o));
    let o = levels("bad", "not json");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).contains("not a Yosys JSON netlist"),
        "{}",
        text(&o)
    );
}

#[test]
fn synth_sh_rejects_bad_arguments() {
    for (args, msg) in [
        (&["--family", "ice40"][..], "unsupported family 'ice40'"),
        (&["no_such_block"][..], "no verilog-out/no_such_block.v"),
        (&["-j", "0"][..], "-j needs a positive number"),
        (
            &["--family", "ecp5", "--freq", "fast"][..],
            "--freq needs a frequency in MHz",
        ),
        (
            &["--family", "ecp5", "--uram"][..],
            "--uram needs --family xcup",
        ),
        (&["--bogus"][..], "unknown option --bogus"),
    ] {
        let mut a = vec!["fpga/synth.sh"];
        a.extend_from_slice(args);
        let o = run("bash", &a);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(msg), "{args:?}: {}", text(&o));
    }
}
