//! The rust-hdl egress deparser against the golden model [`DeparserModel`] (headers from
//! `wire::Frame::encode`) under seeded arbiter-side traffic, for both layouts: every ready,
//! valid and output word every cycle. Every frame it emits is then fed to the golden
//! parser's checks (`parser_model::check_frame`) at the receiving host, which must accept
//! it with the same fields: what our egress builds, our ingress takes.
use nt_hdl::deparser::Deparser;
use nt_sim::deparser_workload::{read_deparser, DeparserWorkload, EgressCfg};
use nt_sim::kernel::Kernel;
use nt_sim::parser_workload::HostCfg;
use nt_sim::wire::{from_words, Layout, Word, PROTO_HOMA, PROTO_NDP};
use nt_testbench::deparser_model::DeparserModel;
use nt_testbench::parser_model::check_frame;
use nt_testbench::stream::StreamMonitor;

fn run(layout: Layout, seed: u64, cycles: u64) -> Result<(u64, u64), String> {
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
    Ok((m.packets, accepted))
}

#[test]
fn deparser_matches_the_golden_model_and_the_parser_accepts_its_frames() {
    for (layout, seed) in [(Layout::Ndp, 5300), (Layout::Homa, 5400)] {
        let (packets, accepted) = run(layout, seed, 60_000)
            .unwrap_or_else(|e| panic!("deparser {layout:?} seed {seed}: {e}"));
        println!("deparser {layout:?} seed {seed}: {packets} packets, all accepted by the parser");
        assert!(packets > 200);
        assert_eq!(packets, accepted);
    }
}
