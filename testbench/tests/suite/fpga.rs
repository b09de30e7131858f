//! The FPGA flow's tools beyond the synthesis runs (`verilog_out.rs` checks the committed
//! reports' keys and runs `fpga/synth.sh` on the blocks whose key changed): the LUT-level
//! count of `fpga/levels.py` on hand-made netlists, the script's errors on bad input and its
//! `--key`, and the messages of `scripts/setup.sh` (old tools, no root). The full tables
//! (every block, both families) are `scripts/test-full.sh`'s job (`docs/fpga.md`).
use nt_testbench::repo_cmd::{root, run, text};
use std::process::Output;

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
    // fpga/synth.sh's list of modes (`mode_value`) is the mode table's.
    assert_eq!(
        nt_hdl::mode::SwitchMode::names(),
        "droptail, trim, tofino-trim, bolt"
    );
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
        (
            &["--router", "router3"][..],
            "--router needs router1 or router2, got 'router3'",
        ),
        (
            &["switch2_p4@fast"][..],
            "switch2_p4@fast: unknown mode 'fast' (droptail, trim, tofino-trim, bolt)",
        ),
        (
            &["timer_n16@bolt"][..],
            "timer_n16@bolt: only the switch has modes",
        ),
        (&["switch_p9@trim"][..], "no verilog-out/switch_p9.v"),
        (
            &["--pnr-minutes", "0"][..],
            "--pnr-minutes needs a positive number of minutes, got '0'",
        ),
        (
            &["--pnr-minutes", "soon"][..],
            "--pnr-minutes needs a positive number of minutes, got 'soon'",
        ),
        (&["--reports", ""][..], "--reports needs a directory"),
        (&["--reports"][..], "--reports needs a directory"),
        (&["--work", ""][..], "--work needs a directory"),
        (
            &["--work", "/tmp/a b"][..],
            "no spaces, quotes or ';' in --reports / --work",
        ),
        (
            &["--key", "no_such_block"][..],
            "no verilog-out/no_such_block.v",
        ),
    ] {
        let mut a = vec!["fpga/synth.sh"];
        a.extend_from_slice(args);
        let o = run("bash", &a);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(msg), "{args:?}: {}", text(&o));
    }
}

/// `fpga/synth.sh --key` prints `BLOCK KEY FLOW` for each row without synthesizing: two
/// sha256s, the same on every call, different for another row or another Yosys script
/// (`--uram`), and the same flow with `--reports`/`--work` elsewhere (the work paths are not
/// part of the key).
#[test]
fn synth_sh_prints_report_keys() {
    let keys = |args: &[&str]| -> Vec<Vec<String>> {
        let mut a = vec!["fpga/synth.sh", "--key"];
        a.extend_from_slice(args);
        let o = run("bash", &a);
        assert!(o.status.success(), "{args:?}: {}", text(&o));
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| l.split_whitespace().map(String::from).collect())
            .collect()
    };
    let k = keys(&["timer_n16", "switch2_p4@bolt"]);
    assert_eq!(k.len(), 2, "{k:?}");
    for (row, name) in k.iter().zip(["timer_n16", "switch2_p4@bolt"]) {
        assert_eq!(row.len(), 3, "{row:?}");
        assert_eq!(row[0], name);
        for h in &row[1..] {
            assert!(
                h.len() == 64 && h.chars().all(|c| c.is_ascii_hexdigit()),
                "{row:?}"
            );
        }
    }
    assert_ne!(k[0][2], k[1][2]);
    assert_eq!(keys(&["timer_n16"])[0], k[0]);
    let elsewhere = keys(&["--reports", "/tmp/nt-r", "--work", "/tmp/nt-w", "timer_n16"]);
    assert_eq!(elsewhere[0], k[0]);
    assert_ne!(keys(&["--uram", "timer_n16"])[0][2], k[0][2]);
}

/// A directory of fake commands for `scripts/setup.sh`: each `(name, shell script body)`.
fn fake_bin(name: &str, tools: &[(&str, &str)]) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("nt-setup-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (tool, body) in tools {
        let f = dir.join(tool);
        std::fs::write(&f, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

fn setup_with_path(path: &str) -> Output {
    std::process::Command::new("/bin/bash")
        .arg(root().join("scripts/setup.sh"))
        .env("PATH", path)
        .output()
        .unwrap()
}

/// `scripts/setup.sh` refuses a Verilator older than 5.0 and a Yosys older than 0.23 with
/// one line each (fake tools first on PATH; `apt-get` and `sudo` are fakes that fail, so
/// nothing can be installed whatever the machine lacks).
#[test]
fn setup_rejects_old_verilator_and_yosys() {
    let path = std::env::var("PATH").unwrap();
    let no_install = [("apt-get", "exit 1"), ("sudo", "exit 1")];
    let dir = fake_bin(
        "old-verilator",
        &[
            no_install[0],
            no_install[1],
            (
                "verilator",
                "echo 'Verilator 4.038 2020-07-11 rev v4.036-114-g0cd4a57ad'",
            ),
        ],
    );
    let o = setup_with_path(&format!("{}:{path}", dir.display()));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert_eq!(t.lines().count(), 1, "{t}");
    assert!(
        t.contains("setup: Verilator 4.038 is too old") && t.contains("need 5.0 or later"),
        "{t}"
    );
    let dir = fake_bin(
        "old-yosys",
        &[
            no_install[0],
            no_install[1],
            (
                "verilator",
                "echo 'Verilator 5.006 2023-01-22 rev (Debian 5.006-3)'",
            ),
            ("yosys", "echo 'Yosys 0.9 (git sha1 1979e0b)'"),
        ],
    );
    let o = setup_with_path(&format!("{}:{path}", dir.display()));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert_eq!(t.lines().count(), 1, "{t}");
    assert!(
        t.contains("setup: Yosys 0.9 is too old") && t.contains("need 0.23 or later"),
        "{t}"
    );
    for d in ["old-verilator", "old-yosys"] {
        let _ = std::fs::remove_dir_all(
            std::env::temp_dir().join(format!("nt-setup-{d}-{}", std::process::id())),
        );
    }
}

/// A user who is not root and has no password-less sudo gets one line naming what to
/// install, and exit 1: no prompt, no hang (PATH holds only fakes: no verilator, `id -u`
/// 1000, `sudo` failing as `sudo -n` does without a password).
#[test]
fn setup_without_root_names_what_to_install() {
    let ok = "exit 0";
    let dir = fake_bin(
        "no-root",
        &[
            ("id", "echo 1000"),
            ("sudo", "echo 'sudo: a password is required' >&2; exit 1"),
            ("apt-get", "echo apt-get must not run >&2; exit 3"),
            ("yosys", ok),
            ("iverilog", ok),
            ("tshark", ok),
            ("python3", ok),
            ("make", ok),
            ("g++", ok),
        ],
    );
    let o = setup_with_path(dir.to_str().unwrap());
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert_eq!(
        t.trim_end(),
        "setup: need root or password-less sudo to install verilator; run: sudo apt-get install verilator"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `fpga/pnr.py --stopped`: a nextpnr run that `synth.sh --pnr-minutes` stopped during
/// routing gives the utilisation and the Fmax estimated after placement (in parentheses),
/// and the router's last iteration; stopped before placement, no Fmax; a bad limit is
/// a usage error.
#[test]
fn pnr_reports_a_run_stopped_at_its_time_limit() {
    let dir = std::env::temp_dir().join(format!("nt-pnr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let util = "Info: Device utilisation:\n\
                Info: \t          TRELLIS_FF:   10161/  83640    12%\n\
                Info: \t        TRELLIS_COMB:   64911/  83640    77%\n\
                Info: \t        TRELLIS_RAMW:      28/  10455     0%\n\
                Info: \t              DP16KD:     120/    208    57%\n";
    let placed = format!(
        "{util}Info: SA placement time 2409.50s\n\
         Info: Max frequency for clock 'clock': 5.52 MHz (FAIL at 100.00 MHz)\n\
         Info:     iter=1 wires=801824 overused=74266 overuse=93403 archfail=NA\n\
         Info:     iter=3 wires=850958 overused=41073 overuse=43663 archfail=NA\n"
    );
    let pnr = root().join("fpga/pnr.py");
    let pnr = pnr.to_str().unwrap();
    let log = dir.join("placed.log");
    std::fs::write(&log, placed).unwrap();
    let o = run("python3", &[pnr, "--stopped", "40", log.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let out = text(&o);
    assert_eq!(
        out.lines().next(),
        Some("64911 10161 28 120 0 (5.5) stopped:40"),
        "{out}"
    );
    assert!(
        out.contains("Fmax estimate after placement: 5.52 MHz"),
        "{out}"
    );
    assert!(out.contains("iter=3 wires=850958 overused=41073"), "{out}");
    let log = dir.join("packed.log");
    std::fs::write(&log, util).unwrap();
    let o = run("python3", &[pnr, "--stopped", "5", log.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        text(&o).lines().next(),
        Some("64911 10161 28 120 0 - stopped:5"),
        "{}",
        text(&o)
    );
    let o = run("python3", &[pnr, "--stopped", "x", log.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}
