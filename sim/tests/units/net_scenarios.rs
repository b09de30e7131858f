//! Unit tests of `nt_sim::net_scenarios`: the built-in scenarios and trimming senders.
use nt_sim::net::NetConfig;
use nt_sim::net_scenarios::*;

#[test]
fn trimming_senders_are_dealt_over_the_pipes() {
    assert_eq!(trim_sender_ports(16, 4, 8), vec![4, 8, 12, 1, 5, 9, 13, 2]);
    assert_eq!(trim_sender_ports(4, 4, 3), vec![1, 2, 3]);
    let all = trim_sender_ports(16, 4, 15);
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(sorted, (1..16).collect::<Vec<_>>());
    // Every prefix keeps the pipes' shares within one sender of each other.
    for n in 1..16 {
        let mut per_pipe = [0; 4];
        for p in trim_sender_ports(16, 4, n) {
            per_pipe[p / 4] += 1;
        }
        let (lo, hi) = (per_pipe.iter().min(), per_pipe.iter().max());
        assert!(hi.unwrap() - lo.unwrap() <= 1, "{n}: {per_pipe:?}");
    }
    let t = &runs("trim-tofino-8").unwrap()[0].1;
    assert!(t.contains("a = \"h1\"\nb = \"s0:4\""), "{t}");
    let t = &runs("trimpacked-tofino-8").unwrap()[0].1;
    assert!(t.contains("a = \"h1\"\nb = \"s0:1\""), "{t}");
    let sw = &NetConfig::from_toml(t).unwrap().switch[0];
    assert_eq!((sw.t0, sw.t1), (Some(8704), Some(26112)));
}

#[test]
fn every_builtin_parses() {
    for n in names() {
        let n = n
            .replace("N (N = 1..=15)", "7")
            .replace("N (N = 1..=3)", "2")
            .replace("P (P = 0..=100)", "5");
        for (r, t) in runs(&n).unwrap() {
            NetConfig::from_toml(&t).unwrap_or_else(|e| panic!("{r}: {e}"));
        }
    }
    assert!(runs("nope").is_none());
    assert!(runs("incast-tcp-big").is_none());
    assert_eq!(runs("incast").unwrap().len(), 6);
    assert_eq!(runs("incast3").unwrap().len(), 6);
    assert!(runs("incast3-homa-54k").is_none());
    assert!(runs("incast-homa-4k").is_none());
    assert!(runs("incast3-homatr-4k").is_some());
    assert_eq!(runs("trim").unwrap().len(), 2 * TRIM_SENDERS.len());
    assert!(runs("trim-ideal-16").is_none());
    assert!(runs("trim-tofino-3").is_some());
    assert!(runs("trim3-tofino-3").is_some());
    assert!(runs("trim3-tofino-4").is_none());
    assert!(runs("trimpacked-tofino-15").is_some());
    assert!(runs("trimpacked-tofino-16").is_none());
    assert_eq!(runs("trim3").unwrap().len(), 2);
    assert_eq!(runs("bolt").unwrap().len(), 9);
    assert_eq!(runs("bolt-reroute").unwrap().len(), 2);
    assert_eq!(runs("bolt-util").unwrap().len(), 4);
    assert!(runs("bolt-util-pru").is_none());
    assert!(runs("bolt-util-pru-xsm").is_none());
    assert_eq!(runs("loss-sweep").unwrap().len(), 4 * LOSS_SWEEP_PCTS.len());
    assert!(runs("loss-bolt-100").is_some() && runs("loss-bolt-101").is_none());
    assert!(runs("loss-tcp-5").is_none() && runs("loss-ndp-x").is_none());
    let l = NetConfig::from_toml(&runs("loss-homa-5").unwrap()[0].1).unwrap();
    assert_eq!(l.link.len(), 3);
    assert!(l
        .link
        .iter()
        .all(|k| k.loss == 0.05 && k.corrupt == LOSS_CORRUPT));
    assert_eq!(l.workload.len(), 1);
    let rr = &runs("bolt-reroute-nosm").unwrap()[0].1;
    assert!(rr.contains("sm = false") && !rr.contains("sm = true"));
    let cfg = NetConfig::from_toml(rr).unwrap();
    assert_eq!(cfg.route.len(), 1);
    assert_eq!(
        (
            cfg.route[0].switch.as_str(),
            cfg.route[0].host.as_str(),
            cfg.route[0].port
        ),
        ("s0", "r2", 3)
    );
    assert_eq!(cfg.route[0].cycle, BoltShape::two_switches().reroute_at);
    assert!(runs("bolt-reroute-sm").unwrap()[0].1.contains("sm = true"));
    for (n, t) in runs("bolt-util").unwrap() {
        let (pru, sm) = bolt_util_flags(&n).unwrap();
        assert!(t.contains(&format!("sm = {sm}")), "{n}");
        assert!(
            t.contains(if pru { "pru_cap = 255" } else { "pru_cap = 0" }),
            "{n}"
        );
        let cfg = NetConfig::from_toml(&t).unwrap();
        assert_eq!(cfg.output.pcap, vec!["h0-s0:0".to_string()], "{n}");
    }
    assert!(bolt_util_table(&[(true, true, 0.5)]).contains("| SM on | - | 50.00 |"));
    assert!(runs("bolt-complete-pru").unwrap()[0]
        .1
        .contains("pru_cap = 255"));
    assert!(runs("bolt-complete-nopru").unwrap()[0]
        .1
        .contains("pru_cap = 0"));
}
