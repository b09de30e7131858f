//! The rust-hdl ingress parser on the cycle kernel against the golden model
//! [`ParserModel`] / [`check_frame`] under seeded MAC traffic from [`ParserWorkload`]:
//! valid DATA, trimmed and control packets of random messages, and malformed frames with
//! one or two defects of every kind, random gaps, and output stalls long enough to
//! overflow the ring; for the NDP and the Homa layouts. Every output word, header field,
//! `valid`, `ready` and counter is checked every cycle; every drop reason must occur.
//!
//! `NT_PARSER_EQ_SEEDS=k` runs `k` seeds per layout (default 1); `NT_PARSER_EQ_SEED=s`
//! starts at `s`.
use nt_hdl::parser::{Parser, DROP_NAMES};
use nt_sim::kernel::Kernel;
use nt_sim::parser_workload::{read_parser, HostCfg, ParserWorkload};
use nt_sim::wire::Layout;
use nt_testbench::parser_model::{check_frame, ParserModel, ParserStats};
use nt_testbench::stream::StreamMonitor;

use nt_testbench::env_u64;

fn run(layout: Layout, seed: u64, cycles: u64) -> Result<ParserStats, String> {
    let host = HostCfg::new(layout);
    let mut k = Kernel::new(Parser::new(layout == Layout::Homa)).map_err(|e| e.to_string())?;
    let mut w = ParserWorkload::new(seed, host);
    let mut m = ParserModel::new(host);
    let mut mon = StreamMonitor::new("source");
    let mut t = 0u64;
    loop {
        if t == cycles {
            w.generate = false;
        }
        w.drive(k.uut_mut());
        k.settle().map_err(|e| e.to_string())?;
        let io = read_parser(k.uut());
        m.cycle(t, &io)?;
        mon.check(t, io.src_valid, io.src_ready, &(io.src, io.hdr), false)?;
        k.tick().map_err(|e| e.to_string())?;
        t += 1;
        if t > cycles && w.idle() && m.quiet() {
            break;
        }
        if t > cycles + 100_000 {
            return Err(format!("not drained by cycle {t}"));
        }
    }
    Ok(m.stats)
}

#[test]
fn parser_matches_the_golden_model() {
    let n = env_u64("NT_PARSER_EQ_SEEDS").unwrap_or(1);
    for layout in [Layout::Ndp, Layout::Homa] {
        let base = env_u64("NT_PARSER_EQ_SEED").unwrap_or(match layout {
            Layout::Ndp => 5100,
            Layout::Homa => 5200,
        });
        for seed in base..base + n {
            let s = run(layout, seed, 150_000)
                .unwrap_or_else(|e| panic!("parser {layout:?} seed {seed}: {e}"));
            println!("parser {layout:?} seed {seed}: passed: {s:#?}");
            for (i, name) in DROP_NAMES.iter().enumerate() {
                assert!(
                    s.drops[i] > 0,
                    "{layout:?} seed {seed}: no {name} drop: {s:#?}"
                );
            }
            assert!(s.data > 50 && s.trimmed > 5 && s.control > 10, "{s:#?}");
        }
    }
}

/// The frame-level checks on hand-made frames, one defect each, in the documented order.
#[test]
fn each_check_names_its_drop() {
    use nt_hdl::parser::*;
    use nt_sim::wire::{set_field, Frame, Transport, FLAG_ACK, FLAG_DATA};
    let host = HostCfg::new(Layout::Ndp);
    let base = Frame {
        dst_mac: host.mac,
        src_mac: 0x0200_0000_0009,
        tos: 0,
        ip_id: 1,
        ttl: 64,
        protocol: host.protocol,
        src_ip: 0x0a00_0009,
        dst_ip: host.ip,
        t: Transport {
            flags: FLAG_DATA,
            msg_len: 2000,
            pkt_offset: 1,
            ..Default::default()
        },
        payload: vec![7; 976],
    };
    let ok = base.encode(Layout::Ndp);
    assert!(check_frame(&ok, &host).is_ok());
    let with = |f: &dyn Fn(&mut Frame)| {
        let mut x = base.clone();
        f(&mut x);
        x.encode(Layout::Ndp)
    };
    let cases: Vec<(Vec<u8>, usize)> = vec![
        (ok[..63].to_vec(), DROP_TRUNCATED),
        ([ok.clone(), vec![0; 200]].concat(), DROP_TOO_LONG),
        (
            {
                let mut b = ok.clone();
                set_field(&mut b, 12, 0x86dd, 2);
                b
            },
            DROP_NOT_IPV4,
        ),
        (
            {
                let mut b = ok.clone();
                b[24] ^= 1;
                b
            },
            DROP_BAD_CHECKSUM,
        ),
        (with(&|f| f.dst_ip = 0x0a00_0003), DROP_NOT_FOR_US),
        (with(&|f| f.dst_mac = 0x0200_0000_0003), DROP_NOT_FOR_US),
        (with(&|f| f.protocol = 17), DROP_BAD_PROTOCOL),
        (with(&|f| f.t.pkt_offset = 2), DROP_BAD_TRANSPORT),
        (
            with(&|f| f.payload.pop().map(|_| ()).unwrap_or(())),
            DROP_BAD_TRANSPORT,
        ),
        (with(&|f| f.t.msg_len = 0), DROP_BAD_TRANSPORT),
        (
            with(&|f| {
                f.t.flags = FLAG_ACK;
                f.payload = vec![0];
                f.t.pkt_offset = 2;
            }),
            DROP_OK_SENTINEL,
        ),
        (
            with(&|f| {
                f.t.flags = FLAG_ACK;
                f.payload = vec![0];
                f.t.pkt_offset = 3;
            }),
            DROP_BAD_TRANSPORT,
        ),
    ];
    for (i, (b, want)) in cases.into_iter().enumerate() {
        let got = check_frame(&b, &host);
        if want == DROP_OK_SENTINEL {
            assert!(got.is_ok(), "case {i}: {got:?}");
        } else {
            assert_eq!(got.err(), Some(want), "case {i}");
        }
    }
}

/// Marks a hand-made case that must pass.
const DROP_OK_SENTINEL: usize = usize::MAX;
