//! The rust-hdl egress deparser against the golden model [`DeparserModel`] (headers from
//! `wire::Frame::encode`) under seeded arbiter-side traffic, for both layouts: every ready,
//! valid and output word every cycle. Every frame it emits is then fed to the golden
//! parser's checks (`parser_model::check_frame`) at the receiving host, which must accept
//! it with the same fields: what our egress builds, our ingress takes.
use nt_hdl::deparser::Deparser;
use nt_sim::deparser_workload::{read_deparser, DeparserWorkload, EgressCfg};
use nt_sim::kernel::Kernel;
use nt_sim::parser_workload::HostCfg;
use nt_sim::pcap::{read_pcap, write_pcap, Packet};
use nt_sim::verilator::which;
use nt_sim::wire::{from_words, Layout, Word, PROTO_HOMA, PROTO_NDP};
use nt_testbench::deparser_model::DeparserModel;
use nt_testbench::parser_model::check_frame;
use nt_testbench::stream::StreamMonitor;

/// Runs the deparser; returns (packets, packets the parser's checks accepted, the frames
/// with the cycle their first word left).
fn run(layout: Layout, seed: u64, cycles: u64) -> Result<(u64, u64, Vec<Packet>), String> {
    let cfg = EgressCfg {
        mac: 0x0200_0000_0001,
        ip: 0x0a00_0001,
        switch_mac: 0x0200_0000_00fe,
        protocol: match layout {
            Layout::Ndp => PROTO_NDP,
            Layout::Homa => PROTO_HOMA,
        },
    };
    let mut k = Kernel::new(Deparser::new(layout == Layout::Homa)).map_err(|e| e.to_string())?;
    let mut w = DeparserWorkload::new(seed, cfg);
    let mut m = DeparserModel::new(cfg, layout);
    let mut mon = StreamMonitor::new("source");
    let mut frame: Vec<Word> = vec![];
    let mut first = 0u64;
    let mut frames = vec![];
    let mut accepted = 0u64;
    let mut t = 0u64;
    loop {
        if t == cycles {
            w.generate = false;
        }
        w.drive(k.uut_mut());
        k.settle().map_err(|e| e.to_string())?;
        let io = read_deparser(k.uut());
        m.cycle(t, &io)?;
        mon.check(t, io.src_valid, io.src_ready, &io.src, false)?;
        if io.src_valid && io.src_ready {
            if frame.is_empty() {
                first = t;
            }
            frame.push(io.src);
            if io.src.last {
                let bytes = from_words(&std::mem::take(&mut frame));
                let dst = u32::from_be_bytes([bytes[30], bytes[31], bytes[32], bytes[33]]);
                let rx = HostCfg {
                    mac: cfg.switch_mac,
                    ip: dst,
                    protocol: cfg.protocol,
                    layout,
                };
                check_frame(&bytes, &rx)
                    .map_err(|r| format!("cycle {t}: the parser rejects our frame: reason {r}"))?;
                accepted += 1;
                frames.push(Packet {
                    cycle: first,
                    bytes,
                });
            }
        }
        w.observe(k.uut());
        k.tick().map_err(|e| e.to_string())?;
        t += 1;
        if t > cycles && w.idle() && m.quiet() {
            break;
        }
        if t > cycles + 10_000 {
            return Err("not drained".into());
        }
    }
    Ok((m.packets, accepted, frames))
}

#[test]
fn deparser_matches_the_golden_model_and_the_parser_accepts_its_frames() {
    for (layout, seed) in [(Layout::Ndp, 5300), (Layout::Homa, 5400)] {
        let (packets, accepted, _) = run(layout, seed, 60_000)
            .unwrap_or_else(|e| panic!("deparser {layout:?} seed {seed}: {e}"));
        println!("deparser {layout:?} seed {seed}: {packets} packets, all accepted by the parser");
        assert!(packets > 200);
        assert_eq!(packets, accepted);
    }
}

/// The deparser's frames, written as a capture, dissect cleanly with tshark with IPv4
/// checksum validation on: no malformed packet, no bad checksum, no expert error.
#[test]
fn tshark_dissects_the_deparsers_frames_cleanly() {
    let tshark = which("tshark").expect("tshark is not installed: run scripts/setup.sh");
    let dir = std::env::temp_dir().join(format!("nt-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (layout, seed) in [(Layout::Ndp, 5500), (Layout::Homa, 5600)] {
        let (_, _, frames) = run(layout, seed, 5_000).expect("run");
        assert!(frames.len() > 20);
        let path = dir.join(format!("{layout:?}.pcap"));
        write_pcap(&path, &frames).expect("write");
        assert_eq!(read_pcap(&path).expect("read back"), frames);
        let out = std::process::Command::new(&tshark)
            .args(["-n", "-o", "ip.check_checksum:TRUE", "-V", "-r"])
            .arg(&path)
            .output()
            .expect("run tshark");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "tshark failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let frames_seen = text.matches("\nFrame ").count() + text.starts_with("Frame ") as usize;
        assert_eq!(frames_seen, frames.len(), "tshark saw every frame");
        for bad in ["Malformed", "[Bad", "incorrect", "Expert Info (Error"] {
            assert!(!text.contains(bad), "{layout:?}: tshark reports {bad:?}");
        }
        assert!(
            text.contains("[Header checksum status: Good]"),
            "{layout:?}: the checksum was validated: {}",
            &text[..text.len().min(3000)]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
