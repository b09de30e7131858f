//! `ntsim switch` end to end: frames from two input captures come out of the right output
//! ports byte-exact, stamped W + 31 to W + 37 cycles after they entered on an idle switch
//! (the shared switch stores and forwards); trimmed headers come out in trim mode; a frame
//! whose length disagrees with its IPv4 length is dropped and counted, never trimmed; bad
//! input gets a clear error, never a panic.
use nt_sim::pcap::{read_pcap, write_pcap, Packet};
use nt_sim::switch2_sim::SHARED_P4_EXTRA;
use nt_sim::switch_workload::{port_ip, port_mac};
use nt_sim::wire::{Frame, Layout, Transport, FLAG_CHOP, FLAG_DATA, PROTO_NDP};
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
        .join("switch_cli")
        .join(tag);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Checks that `got` is the one frame `bytes`, which entered at cycle `at`, and that it left
/// as the idle shared switch forwards: `W + SHARED_P4_EXTRA` cycles after `at`, for the
/// `W` words of the `sent` bytes that entered (the whole frame, for a trimmed header).
fn left_idle(got: &[Packet], bytes: &[u8], sent: usize, at: u64) {
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].bytes, bytes);
    let w = sent.div_ceil(8) as u64;
    let (lo, hi) = SHARED_P4_EXTRA;
    assert!(
        (at + w + lo..=at + w + hi).contains(&got[0].cycle),
        "left at {}, entered at {at}, {w} words",
        got[0].cycle
    );
}

/// An NDP DATA frame in band `band` by `tos` (its DSCP field: `tos = band << 2`).
fn frame(src: usize, dst: usize, payload: usize, band: u8) -> Vec<u8> {
    Frame {
        dst_mac: port_mac(dst),
        src_mac: port_mac(src),
        tos: band << 2,
        ip_id: 1,
        ttl: 64,
        protocol: PROTO_NDP,
        src_ip: port_ip(src),
        dst_ip: port_ip(dst),
        t: Transport {
            flags: FLAG_DATA,
            msg_len: 9000,
            ..Default::default()
        },
        payload: vec![0x5a; payload],
    }
    .encode(Layout::Ndp)
}

#[test]
fn switch_forwards_captures_per_port() {
    let d = tmp("fwd");
    let a = frame(0, 2, 1, 0);
    let b = frame(1, 3, 100, 0);
    write_pcap(
        &d.join("a.pcap"),
        &[Packet {
            cycle: 10,
            bytes: a.clone(),
        }],
    )
    .unwrap();
    write_pcap(
        &d.join("b.pcap"),
        &[Packet {
            cycle: 0,
            bytes: b.clone(),
        }],
    )
    .unwrap();
    let o = ntsim(
        &[
            "switch",
            "--ports",
            "4",
            "--mode",
            "droptail",
            "--in-port",
            "0=a.pcap",
            "--in-port",
            "1=b.pcap",
            "--out",
            "out",
        ],
        &d,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let p2 = read_pcap(&d.join("out/port2.pcap")).unwrap();
    let p3 = read_pcap(&d.join("out/port3.pcap")).unwrap();
    left_idle(&p2, &a, a.len(), 10);
    left_idle(&p3, &b, b.len(), 0);
    assert!(read_pcap(&d.join("out/port0.pcap")).unwrap().is_empty());
    let stats = std::fs::read_to_string(d.join("out/stats.json")).unwrap();
    assert!(
        stats.contains("\"port\": 2, \"rx_frames\": 0, \"tx_frames\": 1"),
        "{stats}"
    );
}

#[test]
fn switch_trims_in_trim_mode() {
    let d = tmp("trim");
    // Twelve full-size frames back to back from each of two ports into band 1 of port 3,
    // with routes given explicitly: port 3 drains one frame while two arrive, so its band 1
    // fills to its limit of 8 full-size frames, and the frames that find it full are
    // trimmed, their headers queued in band 0.
    let f = frame(0, 3, 1024, 1);
    let pk: Vec<Packet> = (0..12)
        .map(|k| Packet {
            cycle: 136 * k,
            bytes: f.clone(),
        })
        .collect();
    let p3 = ports_0_and_1_to_3(&d, &pk, &["--mode", "trim", "--buffer-bytes", "8704"]);
    assert_eq!(p3.len(), 24, "every frame leaves, whole or trimmed");
    let hdrs = chop_headers(&p3);
    assert!(hdrs > 0);
    let stats = std::fs::read_to_string(d.join("out/stats.json")).unwrap();
    assert_eq!(stat_sum(&stats, "trimmed"), hdrs as u64, "{stats}");
    assert_eq!(stat_sum(&stats, "drop_full"), 0, "{stats}");
}

/// The sum over ports of the counter `key` of a `stats.json`.
fn stat_sum(stats: &str, key: &str) -> u64 {
    stats
        .match_indices(&format!("\"{key}\": "))
        .map(|(at, m)| {
            let rest = &stats[at + m.len()..];
            let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap();
            rest[..end].parse::<u64>().unwrap()
        })
        .sum()
}

/// Runs `ntsim switch` with `pk` entering ports 0 and 1, all routed to port 3, and `args`;
/// returns port 3's frames.
fn ports_0_and_1_to_3(d: &Path, pk: &[Packet], args: &[&str]) -> Vec<Packet> {
    write_pcap(&d.join("a.pcap"), pk).unwrap();
    write_pcap(&d.join("b.pcap"), pk).unwrap();
    let mut all = vec!["switch"];
    all.extend_from_slice(args);
    all.extend_from_slice(&[
        "--in-port",
        "0=a.pcap",
        "--in-port",
        "1=b.pcap",
        "--route",
        "10.0.0.4=3",
        "--out",
        "out",
    ]);
    let o = ntsim(&all, d);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    read_pcap(&d.join("out/port3.pcap")).unwrap()
}

/// The 64-byte frames of `frames`, each checked to be a trimmed DATA header (CHOP set).
fn chop_headers(frames: &[Packet]) -> usize {
    let hdrs: Vec<_> = frames.iter().filter(|p| p.bytes.len() == 64).collect();
    for h in &hdrs {
        assert_eq!(h.bytes[34], FLAG_DATA | FLAG_CHOP);
    }
    hdrs.len()
}

/// Bolt mode: two ports send back to back to port 3 with the Bolt data flag; once port 3
/// has CC_THRESH bytes queued, each further data packet makes an SRC that comes back out of
/// the port it came in on (64 bytes, SRC flag, q_size >= CC_THRESH, its t_data_tx), and the
/// data packet leaves with DEC set; stats.json counts the SRCs.
#[test]
fn switch_sends_src_packets_in_bolt_mode() {
    let d = tmp("bolt");
    let mut pk = vec![];
    for k in 0..8u32 {
        let mut f = frame(0, 3, 136, 1);
        f[nt_sim::wire::BOLT_OFFSET + 4] = 0x80;
        f[nt_sim::wire::BOLT_OFFSET + 5..nt_sim::wire::BOLT_OFFSET + 9]
            .copy_from_slice(&k.to_be_bytes());
        pk.push(Packet {
            cycle: k as u64 * 25,
            bytes: f,
        });
    }
    let p3 = ports_0_and_1_to_3(&d, &pk, &["--mode", "bolt", "--cc-thresh", "600"]);
    assert_eq!(p3.len(), 16, "every data packet leaves");
    let b = nt_sim::wire::BOLT_OFFSET;
    let decs = p3.iter().filter(|p| p.bytes[b + 4] & 0x02 != 0).count();
    let mut srcs = 0;
    for port in [0, 1] {
        for p in read_pcap(&d.join(format!("out/port{port}.pcap"))).unwrap() {
            assert_eq!(p.bytes.len(), 64);
            assert_eq!(p.bytes[b + 4], 0x20, "SRC flag");
            let q = u32::from_be_bytes([0, p.bytes[b], p.bytes[b + 1], p.bytes[b + 2]]);
            assert!(q >= 600, "q_size {q}");
            assert_eq!(p.bytes[b + 3], 200, "link rate");
            srcs += 1;
        }
    }
    assert!(srcs > 4, "SRCs {srcs}");
    assert_eq!(decs, srcs, "one DEC-marked data packet per SRC");
    let stats = std::fs::read_to_string(d.join("out/stats.json")).unwrap();
    assert!(stats.contains("\"src_sent\""), "{stats}");
}

/// Tofino-style trimming: ports 0 and 1 (pipes 0 and 1) each send 12 back-to-back data
/// frames to port 3 at line rate; its band 1 holds 4 full-size frames. Each pipe's
/// optimistic meter passes its own line rate, so port 3's queue overflows and packets are deflected; once a deflected header comes out of
/// recirculation the pipes turn pessimistic and trim at ingress. Every frame leaves port 3,
/// whole or as a CHOP header, and stats.json counts both kinds of trim.
#[test]
fn switch_trims_at_ingress_and_after_deflection_in_tofino_mode() {
    let d = tmp("tofino");
    let pk: Vec<Packet> = (0..12)
        .map(|k| Packet {
            cycle: k * 136,
            bytes: frame(0, 3, 1024, 1),
        })
        .collect();
    let p3 = ports_0_and_1_to_3(
        &d,
        &pk,
        &[
            "--mode",
            "tofino-trim",
            "--meter-burst",
            "4352",
            "--buffer-bytes",
            "4352",
        ],
    );
    assert_eq!(p3.len(), 24, "every frame leaves, whole or trimmed");
    let hdrs = chop_headers(&p3);
    let stats = std::fs::read_to_string(d.join("out/stats.json")).unwrap();
    let count = |key: &str| stat_sum(&stats, key);
    let (ingress, dod) = (count("trimmed"), count("dod_trims"));
    assert!(dod >= 1, "DoD trims {dod}: {stats}");
    assert!(ingress >= 1, "ingress trims {ingress}: {stats}");
    assert_eq!(ingress + dod, hdrs as u64, "{stats}");
    assert_eq!(count("dod_drop"), 0);
}

/// Issue 37 finding 3, as found: in Tofino mode with a meter burst of 64 bytes every DATA
/// frame over 64 bytes is red and trimmed at ingress. Frames cut to 57, 60 and 63 bytes, a
/// 1088-byte frame cut to 500, and a 1088-byte frame whose IPv4 length says 500 used to
/// leave port 3 as valid-looking 64-byte CHOP headers; they are dropped and counted in
/// `drop_malformed`, and only the well-formed frame sent after them leaves, trimmed. (The
/// shared switch decides to trim a frame before its length is known; it checks the length
/// as the frame is stored, frees a bad one unsent, and counts a header in `trimmed` only
/// once its frame proved its length: one here.)
#[test]
fn switch_drops_frames_whose_length_disagrees_with_ipv4_instead_of_trimming_them() {
    let d = tmp("malformed");
    let full = frame(0, 3, 1024, 1);
    let mut longer = frame(0, 3, 1024, 1);
    longer[16..18].copy_from_slice(&486u16.to_be_bytes());
    let bad = [
        full[..57].to_vec(),
        full[..60].to_vec(),
        full[..63].to_vec(),
        full[..500].to_vec(),
        longer,
    ];
    let mut pk: Vec<Packet> = bad
        .iter()
        .enumerate()
        .map(|(k, b)| Packet {
            cycle: 200 * k as u64,
            bytes: b.clone(),
        })
        .collect();
    pk.push(Packet {
        cycle: 1000,
        bytes: full.clone(),
    });
    write_pcap(&d.join("a.pcap"), &pk).unwrap();
    let o = ntsim(
        &[
            "switch",
            "--mode",
            "tofino-trim",
            "--meter-burst",
            "64",
            "--in-port",
            "0=a.pcap",
            "--out",
            "out",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let p3 = read_pcap(&d.join("out/port3.pcap")).unwrap();
    assert_eq!(p3.len(), 1, "only the well-formed frame leaves: {p3:?}");
    assert_eq!(chop_headers(&p3), 1);
    assert_eq!(p3[0].bytes[..14], full[..14]);
    // Its header leaves once the whole frame is in and its length checked: as the whole
    // frame would leave.
    left_idle(&p3, &p3[0].bytes, full.len(), 1000);
    for port in [0, 1, 2] {
        assert!(read_pcap(&d.join(format!("out/port{port}.pcap")))
            .unwrap()
            .is_empty());
    }
    let stats = std::fs::read_to_string(d.join("out/stats.json")).unwrap();
    assert!(
        stats.contains(
            "\"port\": 0, \"rx_frames\": 6, \"tx_frames\": 0, \"drop_malformed\": 5, \"drop_no_route\": 0, \"drop_full\": 0, \"trimmed\": 1, \"returned\": 0, \"drop_header\": 0"
        ),
        "{stats}"
    );
}

#[test]
fn switch_bad_input_gets_a_clear_error_not_a_panic() {
    let d = tmp("bad");
    write_pcap(&d.join("a.pcap"), &[]).unwrap();
    std::fs::write(d.join("junk.pcap"), b"not a capture").unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["switch", "--ports", "65", "--out", "o"],
            "--ports 65: a switch has 2 to 64 ports",
        ),
        (
            &[
                "switch",
                "--mode",
                "tofino-trim",
                "--pipes",
                "0",
                "--out",
                "o",
            ],
            "--pipes 0: must be 1..=4",
        ),
        (
            &["switch", "--t0", "20000000", "--out", "o"],
            "--t0 20000000: must be 0..=16777215",
        ),
        (
            &["switch", "--meter-burst", "10", "--out", "o"],
            "--meter-burst 10",
        ),
        (
            &["switch", "--mode", "bolt", "--mtu", "5000", "--out", "o"],
            "--mtu 5000: must be 64..=4095",
        ),
        (
            &["switch", "--cc-thresh", "2000000", "--out", "o"],
            "--cc-thresh 2000000",
        ),
        (
            &["switch", "--mode", "fast", "--out", "o"],
            "unknown --mode",
        ),
        (&["switch", "--in-port", "9=a.pcap", "--out", "o"], ">= 4"),
        (
            &["switch", "--in-port", "a.pcap", "--out", "o"],
            "want K=IN.pcap",
        ),
        (
            &[
                "switch",
                "--in-port",
                "0=a.pcap",
                "--in-port",
                "0=a.pcap",
                "--out",
                "o",
            ],
            "given twice",
        ),
        (
            &["switch", "--in-port", "0=nosuch.pcap", "--out", "o"],
            "nosuch.pcap",
        ),
        (
            &["switch", "--in-port", "0=junk.pcap", "--out", "o"],
            "junk.pcap",
        ),
        (
            &["switch", "--route", "10.0.0.1", "--out", "o"],
            "A.B.C.D=PORT",
        ),
        (
            &["switch", "--route", "10.0.0.300=1", "--out", "o"],
            "bad IPv4",
        ),
        (&["switch", "--route", "10.0.0.1=7", "--out", "o"], ">= 4"),
        (
            &["switch", "--quiet-cycles", "0", "--out", "o"],
            "--quiet-cycles 0: must be at least 1 cycle",
        ),
        (
            &["switch", "--max-cycles", "0", "--out", "o"],
            "--max-cycles 0: must be at least 1 cycle",
        ),
        (
            &[
                "switch",
                "--route",
                "10.0.0.1=1",
                "--route",
                "10.0.0.1=2",
                "--out",
                "o",
            ],
            "--route \"10.0.0.1=2\": 10.0.0.1 is routed twice (first by --route \"10.0.0.1=1\")",
        ),
        (
            &["switch", "--route", "010.0.0.1=1", "--out", "o"],
            "bad IPv4 address \"010.0.0.1\"",
        ),
        (
            &["switch", "--route", "10.0.0.+1=1", "--out", "o"],
            "bad IPv4 address \"10.0.0.+1\"",
        ),
    ];
    for (args, want) in cases {
        let o = ntsim(args, &d);
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded: {out}");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        assert!(err.contains(want), "{args:?}: expected {want:?} in: {err}");
    }
}

/// `--quiet-cycles 0` used to end the run after one cycle with every input frame dropped
/// unseen ("1 cycles, 3 frames in, frames out [0, 0, 0, 0]", exit 0); `--quiet-cycles 1`
/// forwards them all.
#[test]
fn switch_quiet_cycles_cannot_end_a_run_before_its_input() {
    let d = tmp("quiet");
    let pk: Vec<Packet> = (0..3)
        .map(|k| Packet {
            cycle: 50 * k,
            bytes: frame(0, 2, 8, 0),
        })
        .collect();
    write_pcap(&d.join("a.pcap"), &pk).unwrap();
    let o = ntsim(
        &[
            "switch",
            "--in-port",
            "0=a.pcap",
            "--quiet-cycles",
            "1",
            "--out",
            "out",
        ],
        &d,
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        out.contains("3 frames in, frames out per port [0, 0, 3, 0]"),
        "{out}"
    );
    assert_eq!(read_pcap(&d.join("out/port2.pcap")).unwrap().len(), 3);
}

/// Frames stamped after `--max-cycles` are not counted as in but reported as not sent.
#[test]
fn switch_reports_frames_after_max_cycles_as_not_sent() {
    let d = tmp("late");
    let pk = [
        Packet {
            cycle: 10,
            bytes: frame(0, 2, 8, 0),
        },
        Packet {
            cycle: 100_000,
            bytes: frame(0, 2, 8, 0),
        },
    ];
    write_pcap(&d.join("a.pcap"), &pk).unwrap();
    let o = ntsim(
        &[
            "switch",
            "--in-port",
            "0=a.pcap",
            "--max-cycles",
            "300",
            "--out",
            "out",
        ],
        &d,
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        out.contains("switch: 300 cycles (stopped at --max-cycles), 1 frames in (1 frames after --max-cycles 300 not sent), frames out per port [0, 0, 1, 0]"),
        "{out}"
    );
}

/// A capture whose records are out of time order enters in timestamp order (as in
/// `ntsim nic`): the frame stamped 0 but written second leaves first, W + 31 to W + 37
/// cycles after 0.
#[test]
fn switch_takes_input_frames_in_timestamp_order() {
    let d = tmp("order");
    let x = frame(0, 2, 1, 0);
    let y = frame(0, 3, 100, 0);
    write_pcap(
        &d.join("a.pcap"),
        &[
            Packet {
                cycle: 500,
                bytes: x.clone(),
            },
            Packet {
                cycle: 0,
                bytes: y.clone(),
            },
        ],
    )
    .unwrap();
    let o = ntsim(&["switch", "--in-port", "0=a.pcap", "--out", "out"], &d);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    left_idle(
        &read_pcap(&d.join("out/port3.pcap")).unwrap(),
        &y,
        y.len(),
        0,
    );
    left_idle(
        &read_pcap(&d.join("out/port2.pcap")).unwrap(),
        &x,
        x.len(),
        500,
    );
}

/// The output files are created before the run: an output that cannot be created fails
/// at once (`port2.pcap` is a directory), before anything is simulated or written.
#[test]
fn switch_output_paths_are_checked_before_the_run() {
    let d = tmp("outpaths");
    write_pcap(
        &d.join("a.pcap"),
        &[Packet {
            cycle: 0,
            bytes: frame(0, 1, 8, 0),
        }],
    )
    .unwrap();
    std::fs::create_dir_all(d.join("out/port2.pcap")).unwrap();
    let o = ntsim(&["switch", "--in-port", "0=a.pcap", "--out", "out"], &d);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{out}");
    assert_eq!(
        err.trim(),
        "ntsim: error: --out out/port2.pcap: is a directory"
    );
    // Nothing ran: port 1's capture (which would hold the frame) is empty, not written.
    let p1 = std::fs::metadata(d.join("out/port1.pcap")).map_or(0, |m| m.len());
    assert_eq!(p1, 0);
    assert!(!d.join("out/stats.json").exists());
}
