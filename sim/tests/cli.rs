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

/// The main job (`ntsim` alone is `ntsim demo` with its defaults, parsed from that
/// command line), short: 400 cycles per
/// block instead of 20,000; every step still runs (waveforms, budgets, Verilog, lint, the
/// network demo). Its lint results are cached, so the suite's lint of the same text
/// (`verilog_out::committed_verilog_is_lint_clean`) does not repeat it.
#[test]
fn default_job_simulates_writes_waveforms_and_verilog() {
    let d = tmp("default");
    let o = ntsim(&["demo", "--cycles", "400"], &d);
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
    for b in nt_hdl::registry::blocks() {
        assert!(
            out.contains(&format!("out/verilog/{}.v: clean", b.name)),
            "{} not linted: {out}",
            b.name
        );
    }
    assert!(
        out.contains("network demo") && out.contains("delivered to the receiver 3"),
        "the network demo did not run: {out}"
    );
    assert!(out.contains("400 cycles (seed 1)"), "{out}");
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
        (
            &["bench", "--only", "timers,warp"],
            "unknown table \"warp\"",
        ),
        (&["bench", "--only", ""], "unknown table"),
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

/// `ntsim nic` end to end: host A sends three messages (no input capture, so nobody
/// answers and they are given up); A's capture is host B's input, and B delivers each
/// message exactly as sent (and, since A retransmitted, again per retransmitted copy
/// that completes: B cannot know A never heard its ACKs). B's capture (its ACKs) and
/// A's dissect cleanly with tshark, IPv4 checksums validated.
#[test]
fn nic_runs_from_captures_and_message_files() {
    let d = tmp("nic");
    std::fs::write(
        d.join("msgs.jsonl"),
        concat!(
            "{\"cycle\": 0, \"dst_ip\": \"10.0.0.2\", \"dst_port\": 80, \"src_port\": 1000, \"payload_text\": \"hello nanoTransport\"}\n",
            "{\"cycle\": 100, \"dst_ip\": \"10.0.0.2\", \"dst_port\": 81, \"src_port\": 1001, \"len\": 3000}\n",
            "\n",
            "{\"cycle\": 200, \"dst_ip\": \"10.0.0.2\", \"dst_port\": 82, \"src_port\": 1002, \"payload_hex\": \"00ff10\"}\n",
        ),
    )
    .unwrap();
    let common = ["--timeout-cycles", "3000", "--retries", "2"];
    for program in ["ndp", "homa", "homatr", "bolt"] {
        let mut a = vec![
            "nic",
            "--program",
            program,
            "--ip",
            "10.0.0.1",
            "--mac",
            "02:00:00:00:00:0a",
        ];
        a.extend([
            "--switch-mac",
            "02:00:00:00:00:0b",
            "--send",
            "msgs.jsonl",
            "--out",
            "a.pcap",
            "--delivered",
            "a.jsonl",
        ]);
        a.extend(common);
        let o = ntsim(&a, &d);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{program} A: {out}{err}");
        assert!(
            out.contains("3 of 3 sent messages resolved (0 delivered, 3 given up"),
            "{out}"
        );
        let aj = std::fs::read_to_string(d.join("a.jsonl")).unwrap();
        assert_eq!(aj.matches("\"outcome\":\"gave_up\"").count(), 3, "{aj}");
        if program == "bolt" {
            // Every DATA frame carries Bolt's DATA and INC flags (frame byte 54) and FIRST
            // in the first window; the TX times (bytes 55-58) increase.
            let frames = nt_sim::pcap::read_pcap(&d.join("a.pcap")).unwrap();
            let data: Vec<_> = frames.iter().filter(|p| p.bytes[34] & 1 != 0).collect();
            assert!(!data.is_empty());
            let mut last_t = 0u32;
            for p in &data {
                assert_eq!(p.bytes[54] & 0x84, 0x84, "Bolt flags {:#x}", p.bytes[54]);
                if p.bytes[41] == 0 {
                    assert_ne!(p.bytes[54] & 0x08, 0, "FIRST on offset 0");
                }
                let t = u32::from_be_bytes(p.bytes[55..59].try_into().unwrap());
                assert!(t >= last_t, "t_data_tx went back");
                last_t = t;
            }
        }

        let mut b = vec![
            "nic",
            "--program",
            program,
            "--ip",
            "10.0.0.2",
            "--mac",
            "02:00:00:00:00:0b",
        ];
        b.extend([
            "--switch-mac",
            "02:00:00:00:00:0a",
            "--in",
            "a.pcap",
            "--out",
            "b.pcap",
            "--delivered",
            "b.jsonl",
        ]);
        b.extend(common);
        let o = ntsim(&b, &d);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{program} B: {out}{err}");
        let bj = std::fs::read_to_string(d.join("b.jsonl")).unwrap();
        let hello = "\"payload_hex\":\"68656c6c6f206e616e6f5472616e73706f7274\"";
        assert!(bj.contains(hello), "{program}: {bj}");
        assert!(bj.contains("\"len\":3000") && bj.contains("\"payload_hex\":\"00ff10\""));
        assert!(bj.lines().all(|l| l.contains("\"src_ip\":\"10.0.0.1\"")));

        let tshark = nt_sim::verilator::which("tshark")
            .expect("tshark is not installed: run scripts/setup.sh");
        for cap in ["a.pcap", "b.pcap"] {
            let t = Command::new(&tshark)
                .args(["-n", "-o", "ip.check_checksum:TRUE", "-V", "-r", cap])
                .current_dir(&d)
                .output()
                .expect("tshark");
            let s = String::from_utf8_lossy(&t.stdout);
            assert!(t.status.success(), "tshark on {cap}");
            assert!(
                s.contains("[Header checksum status: Good]"),
                "{program} {cap}"
            );
            for bad in ["Malformed", "[Bad", "incorrect", "Expert Info (Error"] {
                assert!(!s.contains(bad), "{program} {cap}: tshark reports {bad:?}");
            }
        }
    }
}

#[test]
fn nic_bad_input_gets_a_clear_error_not_a_panic() {
    let d = tmp("nic-bad");
    std::fs::write(d.join("junk.pcap"), b"this is not a capture").unwrap();
    std::fs::write(
        d.join("bad.jsonl"),
        "{\"cycle\": 0, \"dst_ip\": \"10.0.0.2\"}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("both.jsonl"),
        "{\"cycle\": 0, \"dst_ip\": \"10.0.0.2\", \"dst_port\": 1, \"src_port\": 2, \"len\": 5, \"payload_text\": \"x\"}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("big.jsonl"),
        "{\"cycle\": 0, \"dst_ip\": \"10.0.0.2\", \"dst_port\": 1, \"src_port\": 2, \"len\": 40000}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("ip.jsonl"),
        "{\"cycle\": 0, \"dst_ip\": \"10.0.0.300\", \"dst_port\": 1, \"src_port\": 2, \"len\": 4}\n",
    )
    .unwrap();
    let base = [
        "nic",
        "--ip",
        "10.0.0.1",
        "--mac",
        "02:00:00:00:00:0a",
        "--out",
        "o.pcap",
    ];
    let cases: &[(&[&str], &str)] = &[
        (&["--program", "tcp"], "unknown program"),
        (&["--in", "missing.pcap"], "missing.pcap"),
        (&["--in", "junk.pcap"], "junk.pcap"),
        (&["--send", "bad.jsonl"], "bad.jsonl:1"),
        (&["--send", "both.jsonl"], "exactly one of"),
        (&["--send", "big.jsonl"], "length must be"),
        (&["--send", "ip.jsonl"], "bad IPv4 address"),
        (&["--rtt-pkts", "0"], "rtt_pkts"),
        (&["--timeout-cycles", "10"], "timeout"),
        (&["--rx-timeout-cycles", "100"], "rx_timeout"),
        (&["--switch-mac", "zz"], "bad MAC address"),
        (&["--max-cycles", "0"], "--max-cycles"),
    ];
    for (extra, want) in cases {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        let o = ntsim(&args, &d);
        let (out, err) = text(&o);
        assert!(!o.status.success(), "{args:?} succeeded: {out}");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        assert!(err.contains(want), "{args:?}: expected {want:?} in: {err}");
    }
    let o = ntsim(
        &[
            "nic",
            "--ip",
            "1.2.3",
            "--mac",
            "02:00:00:00:00:0a",
            "--out",
            "o.pcap",
        ],
        &d,
    );
    assert!(text(&o).1.contains("bad IPv4 address"));
}
