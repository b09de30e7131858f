//! The network simulator (`nt_sim::net`): NICs and switches from a TOML topology, run
//! cycle by cycle; messages checked byte for byte at their receivers; configuration
//! errors; threads; link rates; workloads.
use nt_sim::net::{read_cdf, wire_words, NetConfig, Network, RunResult};
use nt_sim::net_scenarios;
use nt_sim::nic_sim::Outcome;

fn build(text: &str) -> Result<Network, String> {
    let cfg = NetConfig::from_toml(text)?;
    Network::build(&cfg, &|f: &str| Err(format!("no file {f} in this test")))
}

fn run(text: &str) -> (Network, RunResult) {
    let mut net = build(text).expect("topology");
    let r = net.run(&mut |_, _| {}).expect("run");
    (net, r)
}

/// A star: `hosts` NDP hosts on a 4-port trimming switch, links of `delay` cycles, plus
/// `extra` appended (workloads, overrides).
fn star(hosts: usize, program: &str, extra: &str) -> String {
    let mut s = String::from(
        "seed = 3\nmax_cycles = 100000\nsample_cycles = 32\n[[switch]]\nname = \"s0\"\nports = 4\nmode = \"trim\"\nband_by_flags = true\n",
    );
    for h in 0..hosts {
        s.push_str(&format!(
            "[[host]]\nname = \"h{h}\"\nprogram = \"{program}\"\nrtt_pkts = 4\n[[link]]\na = \"h{h}\"\nb = \"s0:{h}\"\ndelay = 60\n"
        ));
    }
    s.push_str(extra);
    s
}

fn all_delivered(net: &Network, r: &RunResult) {
    assert!(r.settled, "the run did not settle in {} cycles", r.cycles);
    assert_eq!(net.corrupt, 0, "payloads differ");
    assert_eq!(net.untagged, 0, "unexpected deliveries");
    for (i, m) in net.msgs.iter().enumerate() {
        assert_eq!(m.outcome, Some(Outcome::Delivered), "message {i}: {m:?}");
        let f = m
            .fct()
            .unwrap_or_else(|| panic!("message {i} never reached its receiver"));
        assert!(
            f >= m.ideal,
            "message {i}: FCT {f} below the ideal {}",
            m.ideal
        );
    }
}

#[test]
fn demo_incast_delivers_every_message_and_trims_at_the_bottleneck() {
    let (net, r) = run(&net_scenarios::demo());
    all_delivered(&net, &r);
    assert_eq!(net.msgs.len(), 3);
    let s = &r.switch_stats[0];
    // 18 KiB meet an 8 KiB buffer at port 0: data is trimmed (counted at the inputs the
    // data came in on), no header is lost.
    let trimmed: u64 = s.iter().map(|p| p.trimmed).sum();
    assert!(trimmed > 0, "no trims at the bottleneck: {s:?}");
    let lost: u64 = s.iter().map(|p| p.drop_header + p.drop_full).sum();
    assert_eq!(lost, 0, "headers or packets dropped: {s:?}");
    // The bottleneck queue is in the time series and never beyond its limit.
    let c = r
        .series
        .queue_cols
        .iter()
        .position(|&c| c == (0, 0))
        .expect("port 0 sampled");
    let max = *r.series.queue[c].iter().max().unwrap();
    assert!(
        max > 0 && max <= 8192 + 4 * 64,
        "bottleneck queue max {max}"
    );
    // Every byte of the messages arrived at h0 in the throughput series.
    let rx: u64 = r.series.host_rx[0].iter().sum();
    assert_eq!(rx, 4096 + 6144 + 8192);
}

#[test]
fn an_unloaded_message_completes_close_to_its_ideal_time() {
    let extra = "[[workload]]\nkind = \"messages\"\n[[workload.msg]]\nfrom = \"h1\"\nto = \"h0\"\ncycle = 5\nbytes = 4096\n";
    let (net, r) = run(&star(2, "ndp", extra));
    all_delivered(&net, &r);
    let m = &net.msgs[0];
    // Ideal: the application writes the first packet (a header word and 128 words), the
    // first packet (136 words) crosses two links of 60 cycles (a link delivers whole
    // frames: 136 each) and is stored and forwarded by the switch (136 + 6), the
    // message's 4 packets of 136 words follow, and the receiver hands over the header
    // word and 512 words.
    assert_eq!(wire_words(4096), 4 * 136);
    assert_eq!(m.ideal, 129 + 136 + 136 + 142 + 4 * 136 + 513);
    // What the ideal leaves out: the NICs' pipelines, 15 cycles for NDP.
    let f = m.fct().unwrap();
    assert!(f <= m.ideal + 20, "FCT {f} vs ideal {}", m.ideal);
    // The switch's regions take a lone flow's back-to-back MTU packets: nothing trimmed.
    assert_eq!(r.switch_stats[0].iter().map(|p| p.trimmed).sum::<u64>(), 0);
}

#[test]
fn a_slower_link_paces_the_switch_port() {
    let msg = "[[workload]]\nkind = \"messages\"\n[[workload.msg]]\nfrom = \"h1\"\nto = \"h0\"\ncycle = 5\nbytes = 8192\n";
    let fast = star(2, "ndp", msg);
    let slow = fast.replacen(
        "b = \"s0:0\"\ndelay = 60\n",
        "b = \"s0:0\"\ndelay = 60\nrate_gbps = 51.2\n",
        1,
    );
    assert_ne!(fast, slow);
    let (nf, rf) = run(&fast);
    let (ns, rs) = run(&slow);
    all_delivered(&nf, &rf);
    all_delivered(&ns, &rs);
    let (ff, fs) = (nf.msgs[0].fct().unwrap(), ns.msgs[0].fct().unwrap());
    let w = wire_words(8192);
    // A quarter of line rate: the message's words take 4x as long on the last link.
    assert_eq!(nf.msgs[0].ideal, 129 + 136 + 136 + 142 + w + 1025);
    assert_eq!(ns.msgs[0].ideal, 129 + 136 + 136 + 142 + 4 * w + 1025);
    assert!(fs >= ff + 3 * w - 300, "slow {fs} vs fast {ff}");
    assert!(
        fs <= ns.msgs[0].ideal + 300,
        "slow {fs} vs its ideal {}",
        ns.msgs[0].ideal
    );
}

#[test]
fn two_threads_give_the_same_run_as_one() {
    let one = net_scenarios::demo();
    let two = one.replace("sample_cycles = 64\n", "sample_cycles = 64\nthreads = 2\n");
    assert_ne!(one, two);
    let (n1, r1) = run(&one);
    let (n2, r2) = run(&two);
    assert_eq!(r1.cycles, r2.cycles);
    assert_eq!(n1.msgs, n2.msgs);
    assert_eq!(r1.series.queue, r2.series.queue);
    assert_eq!(r1.switch_stats, r2.switch_stats);
}

#[test]
fn homa_and_homatr_deliver_through_the_switch() {
    for (p, mode) in [("homa", "droptail"), ("homatr", "trim")] {
        let extra = "[[workload]]\nkind = \"incast\"\nsenders = [\"h1\", \"h2\"]\nreceiver = \"h0\"\nsizes = [5000, 3000]\n";
        let t = star(3, p, extra).replace(
            "mode = \"trim\"\nband_by_flags = true\n",
            &format!("mode = \"{mode}\"\n"),
        );
        let (net, r) = run(&t);
        all_delivered(&net, &r);
    }
}

#[test]
fn configuration_errors_are_clear() {
    let base = star(2, "ndp", "");
    let cases: Vec<(String, &str)> = vec![
        (base.replace("b = \"s0:1\"", "b = \"s0:9\""), "has ports 0..4"),
        (base.replace("b = \"s0:1\"", "b = \"s0:0\""), "is already on link"),
        (base.replace("b = \"s0:1\"", "b = \"s7:1\""), "no switch named \"s7\""),
        (base.replace("a = \"h1\"", "a = \"hx\""), "no host of that name"),
        (base.replacen("program = \"ndp\"", "program = \"tcp\"", 1), "unknown program \"tcp\""),
        (base.replace("mode = \"trim\"", "mode = \"red\""), "unknown mode \"red\""),
        (base.replace("ports = 4", "ports = 8"), "built for 4 or 16"),
        (base.replacen("delay = 60", "delay = 0", 1), "delay must be at least 1"),
        (
            base.replacen("delay = 60", "delay = 60\nrate_gbps = 400.0", 1),
            "at most the line rate",
        ),
        (base.replacen("delay = 60", "delay = 60\nrate_gbps = -1.0", 1), "must be above 0"),
        (base.replace("name = \"h1\"", "name = \"h0\""), "used twice"),
        (base.replace("rtt_pkts = 4", "rtt_pkts = 0"), "rtt_pkts 0 must be 1..=38"),
        (base.replace("max_cycles = 100000", "max_cycles = 0"), "max_cycles must be at least 1"),
        (format!("{base}bogus = 1\n"), "unknown field"),
        (base.replace("[[link]]\na = \"h1\"\nb = \"s0:1\"\ndelay = 60\n", ""), "host \"h1\" is on no link"),
        (
            format!("{base}[[workload]]\nkind = \"messages\"\n[[workload.msg]]\nfrom = \"h1\"\nto = \"h1\"\ncycle = 0\nbytes = 100\n"),
            "to itself",
        ),
        (
            format!("{base}[[workload]]\nkind = \"messages\"\n[[workload.msg]]\nfrom = \"h1\"\nto = \"h0\"\ncycle = 0\nbytes = 4\n"),
            "sizes must be 8..=38912",
        ),
        (
            format!("{base}[[workload]]\nkind = \"incast\"\nsenders = [\"h1\"]\nreceiver = \"h9\"\nsizes = [100]\n"),
            "no host named \"h9\"",
        ),
        (
            format!("{base}[[workload]]\nkind = \"flood\"\n"),
            "unknown variant `flood`",
        ),
        (
            format!("{base}[[workload]]\nkind = \"poisson\"\nload = 0.5\nsizes_file = \"x.cdf\"\nstop = 100\n"),
            "no file x.cdf",
        ),
        (format!("{base}[output]\npcap = [\"h0-s9:0\"]\n"), "no link of that name"),
        ("name = \"x\"\n".to_string(), "no [[host]]"),
        ("[[host]\n".to_string(), "topology:"),
    ];
    for (t, want) in cases {
        match build(&t) {
            Ok(_) => panic!("accepted, wanted an error with {want:?}:\n{t}"),
            Err(e) => assert!(e.contains(want), "error {e:?} lacks {want:?}"),
        }
    }
    // Five hosts need five routes; a 4-port switch holds four. A second switch gives the
    // fifth a path but the first switch still needs a route to each of the five.
    let mut five = star(4, "ndp", "");
    five.push_str("[[switch]]\nname = \"s1\"\nports = 4\nmode = \"droptail\"\n[[host]]\nname = \"h4\"\nprogram = \"ndp\"\n[[link]]\na = \"h4\"\nb = \"s1:0\"\ndelay = 5\n[[link]]\na = \"s0:3\"\nb = \"s1:1\"\ndelay = 5\n");
    let five = five.replacen("[[link]]\na = \"h3\"\nb = \"s0:3\"\ndelay = 60\n", "", 1);
    let five = five.replacen(
        "[[host]]\nname = \"h3\"\nprogram = \"ndp\"\nrtt_pkts = 4\n",
        "",
        1,
    );
    // Four hosts now: h0-h2 on s0, h4 on s1: fits. Add two more on s1 to overflow s0.
    build(&five).expect("four hosts over two switches");
    let six = format!("{five}[[host]]\nname = \"h5\"\nprogram = \"ndp\"\n[[link]]\na = \"h5\"\nb = \"s1:2\"\ndelay = 5\n[[host]]\nname = \"h6\"\nprogram = \"ndp\"\n[[link]]\na = \"h6\"\nb = \"s1:3\"\ndelay = 5\n");
    let e = build(&six).err().expect("six hosts through a 4-port table");
    assert!(e.contains("forwarding table has one entry per port"), "{e}");
    // A message between disconnected hosts.
    let island = format!("{base}[[host]]\nname = \"h9\"\nprogram = \"ndp\"\n[[host]]\nname = \"h8\"\nprogram = \"ndp\"\n[[link]]\na = \"h9\"\nb = \"h8\"\ndelay = 5\n[[workload]]\nkind = \"messages\"\n[[workload.msg]]\nfrom = \"h1\"\nto = \"h9\"\ncycle = 0\nbytes = 100\n");
    let e = build(&island).err().expect("no path");
    assert!(e.contains("no path from host \"h1\" to host \"h9\""), "{e}");
}

#[test]
fn two_switches_route_between_them() {
    // h0, h1 on s0; h2 on s1; s0:3 - s1:3. h2 → h0 crosses both switches.
    let t = "max_cycles = 50000\n[[switch]]\nname = \"s0\"\nports = 4\nmode = \"droptail\"\n[[switch]]\nname = \"s1\"\nports = 4\nmode = \"droptail\"\n\
[[host]]\nname = \"h0\"\nprogram = \"ndp\"\n[[host]]\nname = \"h1\"\nprogram = \"ndp\"\n[[host]]\nname = \"h2\"\nprogram = \"ndp\"\n\
[[link]]\na = \"h0\"\nb = \"s0:0\"\ndelay = 20\n[[link]]\na = \"h1\"\nb = \"s0:1\"\ndelay = 20\n[[link]]\na = \"h2\"\nb = \"s1:0\"\ndelay = 20\n[[link]]\na = \"s0:3\"\nb = \"s1:3\"\ndelay = 30\n\
[[workload]]\nkind = \"messages\"\n[[workload.msg]]\nfrom = \"h2\"\nto = \"h0\"\ncycle = 0\nbytes = 2000\n[[workload.msg]]\nfrom = \"h1\"\nto = \"h2\"\ncycle = 0\nbytes = 3000\n";
    let (net, r) = run(t);
    all_delivered(&net, &r);
    // 2000 bytes: packets of 136 and 130 words; the first crosses three links and two
    // switches.
    assert_eq!(wire_words(2000), 136 + 130);
    assert_eq!(net.msgs[0].ideal, 129 + 3 * 136 + 2 * 142 + 266 + 251);
}

#[test]
fn size_distributions_and_poisson_arrivals() {
    let cdf = read_cdf("# bytes p\n100 0.5\n\n2000 0.9  # big\n30000 1\n", "w.cdf").unwrap();
    assert_eq!(cdf, vec![(100, 0.5), (2000, 0.9), (30000, 1.0)]);
    for (t, want) in [
        ("100 0.5\n50 1\n", "must not decrease"),
        ("100 0.5\n", "not 1"),
        ("", "no sizes"),
        ("100\n", "want `bytes probability`"),
        ("x 1\n", "not a whole number"),
        ("100 2\n", "not in 0..=1"),
        ("4 1\n", "must be 8..=38912"),
    ] {
        let e = read_cdf(t, "w.cdf")
            .err()
            .unwrap_or_else(|| panic!("{t:?} accepted"));
        assert!(e.contains(want), "{e} lacks {want}");
    }
    let text = format!(
        "{}[[workload]]\nkind = \"poisson\"\nload = 0.5\nsizes_file = \"w.cdf\"\nstart = 1000\nstop = 200000\n",
        star(3, "ndp", "")
    );
    let cfg = NetConfig::from_toml(&text).unwrap();
    let net = Network::build(&cfg, &|f: &str| {
        assert_eq!(f, "w.cdf");
        Ok("100 0.5\n2000 0.9\n30000 1\n".to_string())
    })
    .unwrap();
    // Mean message: 0.5*21 + 0.4*266 + 0.1*3782 words ≈ 495; at half load a host starts
    // one every ~990 cycles: ~200 per host over 199,000 cycles.
    let n = net.msgs.len();
    assert!((450..=750).contains(&n), "{n} messages");
    for m in &net.msgs {
        assert!((1000..200000).contains(&m.start));
        assert!([100, 2000, 30000].contains(&m.bytes));
        assert_ne!(m.src, m.dst);
    }
    // Same seed, same arrivals.
    let again = Network::build(&cfg, &|_: &str| {
        Ok("100 0.5\n2000 0.9\n30000 1\n".to_string())
    })
    .unwrap();
    assert_eq!(net.msgs, again.msgs);
}
