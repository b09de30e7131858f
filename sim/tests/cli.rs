//! The `ntsim` binary: waveforms checked with an independent VCD parser (wellen), Verilog
//! emission, the default job, and clear errors (never a panic) on bad input.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn ntsim(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ntsim"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run ntsim")
}

fn tmp(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(tag);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// Changes of one VCD variable as (time, bit string), read with wellen.
fn changes(w: &mut wellen::simple::Waveform, scope: &[&str], name: &str) -> Vec<(u64, String)> {
    let h = w.hierarchy();
    let var = h
        .lookup_var(scope, &name)
        .unwrap_or_else(|| panic!("no variable {scope:?}.{name} in the VCD"));
    let sig = h[var].signal_ref();
    w.load_signals(&[sig]);
    let times = w.time_table().to_vec();
    let s = w.get_signal(sig).unwrap();
    s.iter_changes()
        .map(|(ti, v)| (times[ti as usize], v.to_bit_string().unwrap_or_default()))
        .collect()
}

/// Value of a variable at time `t` (its last change at or before `t`).
fn at(ch: &[(u64, String)], t: u64) -> &str {
    let i = ch.partition_point(|(ct, _)| *ct <= t);
    assert!(i > 0, "no value at {t}");
    &ch[i - 1].1
}

#[test]
fn wave_vcd_reads_back_with_an_independent_parser() {
    let d = tmp("wave");
    let vcd = d.join("timer.vcd");
    let cycles = 400u64;
    let o = ntsim(
        &[
            "wave",
            "timer",
            "--cycles",
            "400",
            "--seed",
            "5",
            "--vcd",
            vcd.to_str().unwrap(),
        ],
        &d,
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    // "timer_n16: 400 cycles, seed 5, C commands, E events -> ..."
    let events: u64 = out
        .split(" events")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no event count in {out:?}"));

    let mut w = wellen::simple::read(&vcd).expect("wellen cannot read the VCD");
    let ts = w.hierarchy().timescale().expect("no timescale");
    assert_eq!(
        (ts.factor, ts.unit),
        (1, wellen::TimescaleUnit::FemtoSeconds)
    );
    // The hierarchy has the block's sub-blocks and interfaces as scopes.
    for scope in [
        &["uut", "expiry_mem"][..],
        &["uut", "armed"],
        &["uut", "source"],
        &["uut", "cmd"],
    ] {
        assert!(
            w.hierarchy().lookup_scope(scope).is_some(),
            "no scope {scope:?}"
        );
    }
    let period = 312_500u64; // 3.2 GHz in fs
    let clock = changes(&mut w, &["uut"], "clock");
    for c in 0..cycles {
        assert_eq!(
            at(&clock, c * period),
            "0",
            "clock low at the start of cycle {c}"
        );
        assert_eq!(
            at(&clock, c * period + period / 2),
            "1",
            "clock high after the edge of cycle {c}"
        );
    }
    assert!(
        clock.len() as u64 >= 2 * cycles - 1,
        "clock toggles: {}",
        clock.len()
    );
    // Accepted events counted from the waveform match the simulation's count.
    let valid = changes(&mut w, &["uut", "source"], "valid");
    let ready = changes(&mut w, &["uut", "source"], "ready");
    let seen = (0..cycles)
        .filter(|c| at(&valid, c * period) == "1" && at(&ready, c * period) == "1")
        .count() as u64;
    assert!(events > 0, "the workload produced no events");
    assert_eq!(
        seen, events,
        "events in the waveform vs the simulation's count"
    );
    // The last sample is at the end of the run.
    assert_eq!(*w.time_table().last().unwrap(), cycles * period);
}

#[test]
fn wave_uses_the_configured_clock() {
    let d = tmp("wave-clock");
    let vcd = d.join("t.vcd");
    let o = ntsim(
        &[
            "wave",
            "timer_n128",
            "--cycles",
            "20",
            "--clock-hz",
            "1e9",
            "--vcd",
            vcd.to_str().unwrap(),
        ],
        &d,
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let mut w = wellen::simple::read(&vcd).unwrap();
    let clock = changes(&mut w, &["uut"], "clock");
    assert_eq!(at(&clock, 499_999), "0");
    assert_eq!(at(&clock, 500_000), "1");
    assert_eq!(at(&clock, 1_000_000), "0");
}

#[test]
fn verilog_command_writes_the_committed_files() {
    let d = tmp("verilog");
    let o = ntsim(&["verilog", "--out", d.to_str().unwrap()], &d);
    assert!(o.status.success(), "{:?}", text(&o));
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../verilog-out");
    for b in nt_hdl::registry::blocks() {
        let f = format!("{}.v", b.name);
        let a = std::fs::read_to_string(d.join(&f)).unwrap();
        let c = std::fs::read_to_string(committed.join(&f)).unwrap();
        assert!(a == c, "{f} differs from verilog-out/{f}");
    }
}

#[test]
fn default_job_simulates_writes_waveforms_and_verilog() {
    let d = tmp("default");
    let o = ntsim(&[], &d);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    for f in [
        "out/timer_n16.vcd",
        "out/timer_n128.vcd",
        "out/reassembly_n16.vcd",
        "out/verilog/timer_n16.v",
        "out/verilog/timer_n128.v",
        "out/verilog/reassembly_n16.v",
        "out/verilog/reassembly_n128.v",
    ] {
        let m = std::fs::metadata(d.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(m.len() > 100, "{f} is empty");
    }
    assert!(out.contains("expiry events"), "{out}");
    assert!(out.contains("words delivered"), "{out}");
    assert!(
        out.contains("last word in -> first word out"),
        "budgets not printed: {out}"
    );
    assert!(out.contains("clean"), "lint not reported: {out}");
}

#[test]
fn budget_prints_measured_cycles_next_to_the_limits() {
    let d = tmp("budget");
    let o = ntsim(&["budget"], &d);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    let row = out
        .lines()
        .find(|l| l.starts_with("reassembly_n16") && l.contains("last word in"))
        .unwrap_or_else(|| panic!("no delivery-latency row: {out}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert!(cols.contains(&"2") && cols.contains(&"3"), "{row}");
    assert!(!out.contains("OVER BUDGET"), "{out}");
}

#[test]
fn reassembly_waveform_has_its_ports() {
    let d = tmp("rxwave");
    let vcd = d.join("r.vcd");
    let o = ntsim(
        &[
            "wave",
            "reassembly",
            "--cycles",
            "600",
            "--seed",
            "5",
            "--vcd",
            vcd.to_str().unwrap(),
        ],
        &d,
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let body = std::fs::read_to_string(&vcd).unwrap();
    for scope in ["info_req", "info_resp", "sink", "source", "stat", "timer"] {
        assert!(
            body.contains(&format!("$scope module {scope} $end")),
            "scope {scope} missing from the VCD"
        );
    }
    for var in [" ack_no $end", " delivered $end", " rx_msg_id $end"] {
        assert!(body.contains(var), "{var} missing from the VCD");
    }
}

#[test]
fn blocks_are_listed() {
    let d = tmp("blocks");
    let (out, _) = text(&ntsim(&["blocks"], &d));
    assert!(
        out.contains("timer_n16") && out.contains("reassembly_n128"),
        "{out}"
    );
}

#[test]
fn bad_input_gets_a_clear_error_not_a_panic() {
    let d = tmp("bad");
    let vcd = d.join("x.vcd");
    let v = vcd.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["wave", "nosuch", "--vcd", v], "unknown block"),
        (
            &["wave", "timer", "--cycles", "0", "--vcd", v],
            "out of range",
        ),
        (
            &["wave", "timer", "--clock-hz=-5", "--vcd", v],
            "out of range",
        ),
        (
            &["wave", "timer", "--clock-hz", "nan", "--vcd", v],
            "out of range",
        ),
        (
            &["wave", "timer", "--vcd", "/proc/no/such/dir/x.vcd"],
            "cannot",
        ),
        (
            &["wave", "timer", "--cycles", "many", "--vcd", v],
            "invalid value",
        ),
        (&["bench", "--cycles", "5"], "out of range"),
        (&["frobnicate"], "unrecognized subcommand"),
    ];
    for (args, want) in cases {
        let o = ntsim(args, &d);
        let (out, err) = text(&o);
        assert!(!o.status.success(), "{args:?} succeeded: {out}");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        assert!(err.contains(want), "{args:?}: expected {want:?} in: {err}");
    }
}
