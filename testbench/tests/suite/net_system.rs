//! The network simulator (`nt_sim::net`): NICs and switches from a TOML topology, run
//! cycle by cycle; messages checked byte for byte at their receivers; configuration
//! errors; threads; link rates; workloads; link faults (loss, FCS-checked corruption,
//! duplication, reordering, down intervals) under every program.
//!
//! Every run here is on the compiled engine, which gives the native kernel's run frame for
//! frame and cycle for cycle (`engines::` runs NDP and Bolt networks on every engine,
//! `nic_system::*_native_and_compiled_match` every program's NIC pair, `compiled::` the
//! blocks on random inputs) about 100x faster, so that the test command stays short.
use nt_sim::net::{read_cdf, wire_words, NetConfig, Network, RunResult};
use nt_sim::net_scenarios;
use nt_sim::nic_sim::Outcome;

fn build(text: &str) -> Result<Network, String> {
    let cfg = NetConfig::from_toml(text)?;
    Network::build(&cfg, &|f: &str| Err(format!("no file {f} in this test")))
}

/// Builds and runs `text` with every device on the compiled engine.
fn run(text: &str) -> (Network, RunResult) {
    let mut cfg = NetConfig::from_toml(text).expect("topology");
    cfg.engine = Some("compiled".into());
    let mut net = Network::build(&cfg, &|f: &str| Err(format!("no file {f} in this test")))
        .expect("topology");
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
    // The bottleneck queue is in the time series and never beyond its limits: 8 KiB for
    // each band (data in band 1, trimmed headers in band 0), each exceeded by at most 4
    // packets (the admission's bound at 4 ports, docs/switch-design.md).
    let c = r
        .series
        .queue_cols
        .iter()
        .position(|&c| c == (0, 0))
        .expect("port 0 sampled");
    let max = *r.series.queue[c].iter().max().unwrap();
    assert!(
        max > 0 && max <= 2 * 8192 + 4 * (1088 + 64),
        "bottleneck queue max {max}"
    );
    // Every byte of the messages arrived at h0 in the throughput series.
    let rx: u64 = r.series.host_rx[0].iter().sum();
    assert_eq!(rx, 4096 + 6144 + 8192);
    // Every frame's bytes are in its sender's series, in the intervals its words left in:
    // no interval above line rate (8 bytes a cycle), sending or receiving.
    let cap = 8 * net.sample_cycles;
    for h in 0..net.host_names.len() {
        for v in [&r.series.host_tx[h], &r.series.host_rx[h]] {
            assert!(
                v.iter().all(|&b| b <= cap),
                "{h}: {v:?} above {cap} a sample"
            );
        }
    }
    let sent: u64 = r.series.host_tx[1..].iter().flatten().sum();
    assert!(sent > 4096 + 6144 + 8192, "the senders sent {sent} bytes");
    // The slowdowns by size: 4 KiB in (2 KiB, 4 KiB], 6 and 8 KiB in (4 KiB, 8 KiB].
    let bins = nt_sim::net_report::slowdown_bins(&net);
    let got: Vec<_> = bins.iter().map(|b| (b.from, b.to, b.messages)).collect();
    assert_eq!(got, [(2049, 4096, 1), (4097, 8192, 2)]);
    assert!(
        bins.iter()
            .all(|b| 1.0 <= b.p50 && b.p50 <= b.p99 && b.p99 == b.max),
        "{bins:?}"
    );
}

#[test]
fn an_unloaded_message_completes_close_to_its_ideal_time() {
    let extra = "[[workload]]\nkind = \"messages\"\n[[workload.msg]]\nfrom = \"h1\"\nto = \"h0\"\ncycle = 5\nbytes = 4096\n";
    let (net, r) = run(&star(2, "ndp", extra));
    all_delivered(&net, &r);
    let m = &net.msgs[0];
    // Ideal: the application writes the first packet (a header word and 128 words), the
    // first packet (136 words) crosses two links of 60 cycles (a link delivers whole
    // frames: 136 each) and is stored and forwarded by an ideal switch (136 + 6), the
    // message's 4 packets of 136 words follow, and the receiver hands over the header
    // word and 512 words.
    assert_eq!(wire_words(4096), 4 * 136);
    assert_eq!(m.ideal, 129 + 136 + 136 + 142 + 4 * 136 + 513);
    // What the ideal leaves out: the NICs' pipelines, 15 cycles for NDP, and what the
    // shared switch's store and forward takes beyond the ideal's (25 to 31 cycles).
    let f = m.fct().unwrap();
    let extra = nt_sim::switch2_sim::SHARED_P4_EXTRA.1 - nt_sim::net::IDEAL_SWITCH_EXTRA;
    assert!(f <= m.ideal + 20 + extra, "FCT {f} vs ideal {}", m.ideal);
    // The buffer takes a lone flow's back-to-back MTU packets: nothing trimmed.
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
        (base.replace("ports = 4", "ports = 65"), "ports = 65: a switch has 2 to 64 ports"),
        (
            base.replacen("program = \"ndp\"", "program = \"ndp\"\nmessages = 64", 1),
            "messages = 64: the NIC is built for 16 or 128",
        ),
        (base.replacen("delay = 60", "delay = 0", 1), "delay must be at least 1"),
        (
            base.replacen("delay = 60", "delay = 60\nrate_gbps = 400.0", 1),
            "at most the line rate",
        ),
        (base.replacen("delay = 60", "delay = 60\nrate_gbps = -1.0", 1), "must be above 0"),
        (base.replace("name = \"h1\"", "name = \"h0\""), "used twice"),
        (base.replace("rtt_pkts = 4", "rtt_pkts = 0"), "rtt_pkts 0 must be 1..=38"),
        // Host addresses: one strict parser (as `ntsim nic --ip`), and unicast only.
        (
            base.replacen("rtt_pkts = 4", "rtt_pkts = 4\nip = \"010.0.0.1\"", 1),
            "host \"h0\": ip \"010.0.0.1\": bad IPv4 address \"010.0.0.1\"",
        ),
        (
            base.replacen("rtt_pkts = 4", "rtt_pkts = 4\nip = \"+10.0.0.1\"", 1),
            "bad IPv4 address \"+10.0.0.1\"",
        ),
        (
            base.replacen("rtt_pkts = 4", "rtt_pkts = 4\nip = \"0.0.0.0\"", 1),
            "IPv4 address 0.0.0.0 is in 0.0.0.0/8",
        ),
        (
            base.replacen("rtt_pkts = 4", "rtt_pkts = 4\nip = \"255.255.255.255\"", 1),
            "255.255.255.255 is the broadcast address",
        ),
        // A timeout too large for its default receive timeout: the error names the value
        // given, not the derived receive timeout.
        (
            base.replacen("rtt_pkts = 4", "rtt_pkts = 4\ntimeout = 2147483647", 1),
            "host \"h0\": timeout 2147483647: must be 64..=306783378 cycles with retries 5",
        ),
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

/// Two 4-port drop-tail switches joined by two parallel links (`s0:2-s1:2`, `s0:3-s1:3`),
/// `h0`, `h1` on `s0`, `h2` on `s1`, and `extra` appended.
fn two_paths(extra: &str) -> String {
    format!("max_cycles = 50000\n[[switch]]\nname = \"s0\"\nports = 4\nmode = \"droptail\"\n[[switch]]\nname = \"s1\"\nports = 4\nmode = \"droptail\"\n\
[[host]]\nname = \"h0\"\nprogram = \"ndp\"\n[[host]]\nname = \"h1\"\nprogram = \"ndp\"\n[[host]]\nname = \"h2\"\nprogram = \"ndp\"\n\
[[link]]\na = \"h0\"\nb = \"s0:0\"\ndelay = 20\n[[link]]\na = \"h1\"\nb = \"s0:1\"\ndelay = 20\n[[link]]\na = \"h2\"\nb = \"s1:0\"\ndelay = 20\n\
[[link]]\na = \"s0:2\"\nb = \"s1:2\"\ndelay = 30\n[[link]]\na = \"s0:3\"\nb = \"s1:3\"\ndelay = 30\n{extra}")
}

/// `[[route]]`: with `cycle = 0` a static entry (h0's 8 KiB message to h2 leaves `s0` by
/// port 3 instead of the shortest path's lowest port, 2); with a later cycle the entry
/// changes during the run, between two messages: the first by port 2, the second by 3.
#[test]
fn route_tables_set_a_path_and_change_it_during_a_run() {
    let msg = |cycle: u64| {
        format!("[[workload.msg]]\nfrom = \"h0\"\nto = \"h2\"\ncycle = {cycle}\nbytes = 8192\n")
    };
    let tx = |r: &RunResult, port: usize| r.switch_stats[0][port].tx_frames;
    // Shortest paths: port 2.
    let (net, r) = run(&two_paths(&format!(
        "[[workload]]\nkind = \"messages\"\n{}",
        msg(0)
    )));
    all_delivered(&net, &r);
    assert_eq!((tx(&r, 2), tx(&r, 3)), (8, 0));
    // Static: port 3.
    let route = |cycle: u64| {
        format!("[[route]]\nswitch = \"s0\"\nhost = \"h2\"\nport = 3\ncycle = {cycle}\n")
    };
    let (net, r) = run(&two_paths(&format!(
        "[[workload]]\nkind = \"messages\"\n{}{}",
        msg(0),
        route(0)
    )));
    all_delivered(&net, &r);
    assert_eq!((tx(&r, 2), tx(&r, 3)), (0, 8));
    assert!(net.routes_changed.is_empty(), "a static route is no change");
    // A change at cycle 4,000, between a message at 0 and one at 5,000.
    let (net, r) = run(&two_paths(&format!(
        "[[workload]]\nkind = \"messages\"\n{}{}{}",
        msg(0),
        msg(5_000),
        route(4_000)
    )));
    all_delivered(&net, &r);
    assert!(net.msgs[0].done.unwrap() < 4_000, "{:?}", net.msgs[0]);
    assert_eq!((tx(&r, 2), tx(&r, 3)), (8, 8));
    assert_eq!(net.routes_changed.len(), 1);
    assert_eq!(net.routes_changed[0].port, 3);
}

/// A `[[route]]` that names nothing, a port off the table or off any link, a host the
/// switch cannot reach, a path that would loop or end at another host, or the same entry
/// twice at one cycle is refused with the route's number and keys.
#[test]
fn route_errors_are_clear() {
    let route = |sw: &str, h: &str, port: usize, cycle: u64| {
        format!("[[route]]\nswitch = \"{sw}\"\nhost = \"{h}\"\nport = {port}\ncycle = {cycle}\n")
    };
    let cases: Vec<(String, &str)> = vec![
        (route("s9", "h2", 3, 0), "route 1 (switch \"s9\", host \"h2\", port 3, cycle 0): no switch named \"s9\""),
        (route("s0", "h9", 3, 0), "no host named \"h9\""),
        (route("s0", "h2", 4, 0), "switch \"s0\" has ports 0..4"),
        (route("s1", "h0", 1, 0), "port 1 of switch \"s1\" is on no link"),
        (route("s0", "h2", 1, 5), "frames for host \"h2\" from switch \"s0\" would reach host \"h1\""),
        (
            format!("{}{}", route("s0", "h2", 3, 100), route("s1", "h2", 3, 100)),
            "would loop",
        ),
        (
            format!("{}{}", route("s0", "h2", 3, 100), route("s0", "h2", 2, 100)),
            "route 2 (switch \"s0\", host \"h2\", port 2, cycle 100): route 1 (switch \"s0\", host \"h2\", port 3, cycle 100) sets the same entry at the same cycle",
        ),
        (format!("[[route]]\nswitch = \"s0\"\nhost = \"h2\"\n"), "missing field `port`"),
        (format!("{}via = 1\n", route("s0", "h2", 3, 0)), "unknown field `via`"),
    ];
    for (extra, want) in cases {
        let t = two_paths(&extra);
        match build(&t) {
            Ok(_) => panic!("accepted, wanted an error with {want:?}:\n{extra}"),
            Err(e) => assert!(e.contains(want), "error {e:?} lacks {want:?}"),
        }
    }
    // A host the switch cannot reach: h3 alone on a third switch.
    let island = two_paths(&format!(
        "[[switch]]\nname = \"s2\"\nports = 4\nmode = \"droptail\"\n[[host]]\nname = \"h3\"\nprogram = \"ndp\"\n[[link]]\na = \"h3\"\nb = \"s2:0\"\ndelay = 5\n{}",
        route("s0", "h3", 3, 0)
    ));
    let e = build(&island).err().expect("no path");
    assert!(
        e.contains("switch \"s0\" has no path to host \"h3\""),
        "{e}"
    );
    // Changes at one cycle are taken together: s0 and s1 both moving h2's path to the
    // second link is fine, and so is a change back later.
    build(&two_paths(&format!(
        "{}{}{}",
        route("s0", "h2", 3, 100),
        route("s1", "h0", 3, 100),
        route("s0", "h2", 2, 200)
    )))
    .expect("two changes at one cycle, and one back");
}

/// Two hosts on a direct link (no switch): each NIC sends to its next hop's MAC, which
/// the simulator gives the peer's, as it does the last switch hop's. Messages both ways
/// arrive, at their ideal time plus the NICs' pipelines.
#[test]
fn two_hosts_on_a_direct_link_exchange_messages() {
    let t = "max_cycles = 50000\n[[host]]\nname = \"a\"\nprogram = \"ndp\"\n[[host]]\nname = \"b\"\nprogram = \"ndp\"\n\
[[link]]\na = \"a\"\nb = \"b\"\ndelay = 40\n\
[[workload]]\nkind = \"messages\"\n[[workload.msg]]\nfrom = \"a\"\nto = \"b\"\ncycle = 0\nbytes = 5000\n[[workload.msg]]\nfrom = \"b\"\nto = \"a\"\ncycle = 0\nbytes = 7000\n";
    let (net, r) = run(t);
    all_delivered(&net, &r);
    // Within the NICs' pipelines (about 15 cycles each way) and the other direction's
    // ACKs and PULLs, which share each MAC (9 cycles each, control first): +44 and +71.
    for m in &net.msgs {
        assert!(m.fct().unwrap() <= m.ideal + 100, "{m:?}");
    }
    assert_eq!(
        r.host_stats[0].rx_delivered + r.host_stats[1].rx_delivered,
        2
    );
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

/// Six concurrent 9 KiB messages (each needs a 38 KiB buffer) from two senders to one
/// receiver. The 16-message NIC has four such buffers per direction: the fifth and sixth
/// messages' packets find none, are dropped and counted (`rx_no_buffer`), and wait for
/// their senders' first retransmission timeout. With `messages = 128` (sixteen 38 KiB
/// buffers) the receiver takes all six at once: nothing is dropped and nothing waits for a
/// timeout.
#[test]
fn a_receiver_of_many_big_messages_needs_the_128_message_nic() {
    let mut w = String::from("[[workload]]\nkind = \"messages\"\n");
    for k in 0..6 {
        w.push_str(&format!(
            "[[workload.msg]]\nfrom = \"h{}\"\nto = \"h0\"\ncycle = 0\nbytes = 9216\n",
            1 + k % 2
        ));
    }
    let small = star(3, "ndp", &w);
    let big = small.replacen(
        "name = \"h0\"\nprogram = \"ndp\"\n",
        "name = \"h0\"\nprogram = \"ndp\"\nmessages = 128\n",
        1,
    );
    assert_ne!(small, big);
    let timeout = 22_400; // NicConfig's default
    let (ns, rs) = run(&small);
    all_delivered(&ns, &rs);
    assert!(
        rs.host_stats[0].rx_lookup_fail > 0,
        "the 16-message receiver found a buffer for every message: {:?}",
        rs.host_stats[0]
    );
    let waited = ns
        .msgs
        .iter()
        .filter(|m| m.fct().unwrap() > timeout)
        .count();
    assert!(
        waited >= 2,
        "{waited} messages waited for a timeout: {:?}",
        ns.msgs
    );
    // Their first window, dropped whole, is resent at the first timeout (the timer armed
    // at allocation covers the initial window), not the second.
    for (i, m) in ns.msgs.iter().enumerate() {
        assert!(m.fct().unwrap() < 2 * timeout, "message {i}: {m:?}");
    }
    assert!(rs.host_stats[1].tx_retransmitted + rs.host_stats[2].tx_retransmitted > 0);

    let (nb, rb) = run(&big);
    all_delivered(&nb, &rb);
    assert_eq!(rb.host_stats[0].rx_lookup_fail, 0, "{:?}", rb.host_stats[0]);
    for (i, m) in nb.msgs.iter().enumerate() {
        assert!(m.fct().unwrap() < timeout, "message {i}: {m:?}");
    }
    assert_eq!(rb.host_stats[0].rx_delivered, 6);
    let rtx: u64 = rb.host_stats.iter().map(|h| h.tx_retransmitted).sum();
    let trims: u64 = rb.switch_stats[0].iter().map(|p| p.trimmed).sum();
    // Every retransmission repairs a trimmed packet (NACK), none a timeout.
    assert!(rtx <= trims, "{rtx} retransmissions for {trims} trims");
    let probes: u64 = rb.host_stats.iter().map(|h| h.tx_probes).sum();
    assert_eq!(probes, 0);
}

/// One built-in run by name, on the compiled engine.
fn run_builtin(name: &str) -> (Network, RunResult) {
    let mut v = net_scenarios::runs(name).unwrap_or_else(|| panic!("no scenario {name}"));
    assert_eq!(v.len(), 1, "{name} is one run");
    run(&v.remove(0).1)
}

/// Median slowdown of a run whose every message was delivered.
fn median_slowdown(net: &Network, r: &RunResult) -> f64 {
    all_delivered(net, r);
    let mut s = nt_sim::net_report::slowdowns(net);
    nt_sim::net_report::quantile(&mut s, 0.5).expect("messages")
}

/// Thesis Fig 3.2 (a), scaled to the 4-port incast (`incast3-*-big`): on the shared-buffer
/// switch with 1 MiB, large enough to absorb the incast, nothing is trimmed or dropped, and
/// Homa's SRPT grants finish the short messages first, so its median slowdown is below
/// NDP's, whose PULLs share the link fairly and finish every message late. (On the
/// crosspoint switch, whose regions hold three packets per input, NDP trimmed and Homa
/// lost packets in this run.)
#[test]
fn incast_with_a_large_buffer_homa_beats_ndp() {
    let (nn, rn) = run_builtin("incast3-ndp-big");
    let (nh, rh) = run_builtin("incast3-homa-big");
    for (what, r) in [("NDP", &rn), ("Homa", &rh)] {
        let lost: u64 = r.switch_stats[0]
            .iter()
            .map(|p| p.trimmed + p.drop_full)
            .sum();
        assert_eq!(
            lost, 0,
            "{what}: the large buffer trimmed or dropped packets"
        );
    }
    let (ndp, homa) = (median_slowdown(&nn, &rn), median_slowdown(&nh, &rh));
    println!("incast3, big buffer: median slowdown NDP {ndp:.2}, Homa {homa:.2}");
    assert!(homa < ndp, "median slowdown: Homa {homa:.2}, NDP {ndp:.2}");
}

/// `incast3-ndp-4k` (a trimming shared switch, 1 MiB, 4 KiB a port) with its buffer
/// lines replaced by `switch_lines`, run: every message must be delivered.
fn shared_incast3_ndp(switch_lines: &str) -> (Network, RunResult) {
    let mut v = net_scenarios::runs("incast3-ndp-4k").expect("scenario");
    let lines = "buffer = \"shared\"\nshared_kib = 1024\nbuffer_bytes = 1048575\nbuffer_pkts = 4095\nport_bytes = 4096\n";
    let text = v.remove(0).1;
    assert!(text.contains(lines), "{text}");
    let text = text.replacen(lines, switch_lines, 1);
    assert!(
        text.contains("mode = \"trim\"") && text.contains(switch_lines),
        "{text}"
    );
    let (n, r) = run(&text);
    all_delivered(&n, &r);
    (n, r)
}

/// Ideal trimming on the shared-buffer switch (64 KiB, 4 KiB per band): NDP's incast
/// (`incast3-ndp-4k` with `buffer = "shared"`) overflows band 1, the switch sends the
/// overflow on as trimmed headers, the receiver NACKs each and every message is delivered;
/// no packet is dropped whole.
#[test]
fn ndp_incast_on_a_trimming_shared_buffer_delivers_every_message() {
    let (_, r) =
        shared_incast3_ndp("buffer_bytes = 4096\nbuffer_pkts = 4095\nbuffer = \"shared\"\n");
    let sum = |f: fn(&nt_sim::switch_workload::PortStats) -> u64| -> u64 {
        r.switch_stats[0].iter().map(f).sum()
    };
    let (trims, drops) = (sum(|p| p.trimmed), sum(|p| p.drop_full));
    let nacked: u64 = r.host_stats.iter().map(|h| h.rx_trimmed).sum();
    println!("incast3-ndp on the shared buffer: {trims} trimmed, {drops} dropped, {nacked} trimmed headers received");
    assert!(trims > 0, "nothing trimmed");
    assert_eq!(drops, 0, "packets dropped whole");
    assert_eq!(nacked, trims, "every trimmed header reaches the receiver");
}

/// Return to sender on the shared buffer (paper 002 §2): with room for only 3 packets a
/// band, band 0 of the incast's output cannot take the trimmed headers either, so they
/// go back out of the ports they came in on, into band 0 there. Every trimmed header
/// reaches a host (the receiver, or its sender when returned), and every message is
/// delivered (our NDP program does not read a returned header as a NACK: the sender's
/// timeout resends).
#[test]
fn ndp_incast_on_a_shared_buffer_returns_headers_to_their_senders() {
    let (_, r) = shared_incast3_ndp(
        "buffer_bytes = 4096\nbuffer_pkts = 3\nbuffer = \"shared\"\nret = true\n",
    );
    let sum = |f: fn(&nt_sim::switch_workload::PortStats) -> u64| -> u64 {
        r.switch_stats[0].iter().map(f).sum()
    };
    let (trims, rets) = (sum(|p| p.trimmed), sum(|p| p.returned));
    let got: u64 = r.host_stats.iter().map(|h| h.rx_trimmed).sum();
    println!("incast3-ndp, 3 packets a band, shared, ret: {trims} trimmed, {rets} of them returned, {got} trimmed headers received");
    assert!(rets > 0, "nothing returned");
    assert!(trims > rets, "nothing trimmed toward the receiver");
    assert_eq!(got, trims, "every trimmed header reaches a host");
}

/// Thesis Fig 3.2 (b), scaled (`incast3-*-4k`, the shared switch with 4 KiB a port): with a
/// small buffer, Homa loses packets on its drop-tail switch and waits for timeouts; Homa-Tr's trimmed packets are NACKed and
/// resent at once, and its SRPT grants beat NDP's fair sharing: Homa-Tr's median slowdown
/// is the lowest of the three.
#[test]
fn incast_with_a_small_buffer_homatr_beats_homa_and_ndp() {
    let (nn, rn) = run_builtin("incast3-ndp-4k");
    let (nh, rh) = run_builtin("incast3-homa-4k");
    let (nt, rt) = run_builtin("incast3-homatr-4k");
    let (ndp, homa, homatr) = (
        median_slowdown(&nn, &rn),
        median_slowdown(&nh, &rh),
        median_slowdown(&nt, &rt),
    );
    println!("incast3, 4 KiB: median slowdown NDP {ndp:.2}, Homa {homa:.2}, Homa-Tr {homatr:.2}");
    let drops: u64 = rh.switch_stats[0].iter().map(|p| p.drop_full).sum();
    assert!(drops > 0, "Homa's drop-tail switch dropped nothing");
    let trims: u64 = rt.switch_stats[0].iter().map(|p| p.trimmed).sum();
    assert!(trims > 0, "Homa-Tr's switch trimmed nothing");
    assert!(homatr < homa, "Homa-Tr {homatr:.2} vs Homa {homa:.2}");
    assert!(homatr < ndp, "Homa-Tr {homatr:.2} vs NDP {ndp:.2}");
}

/// Paper 002 §6, scaled (`trim3`): three NDP senders, one per pipe (as the paper places
/// the senders of one receiver), into one port with 4 KiB per band, on the shared-buffer
/// switch. Both modes deliver every message and lose nothing; the Tofino-style one
/// deflects the initial windows' overflow (DoD), trims it in the recirculation path and
/// signals congestion, and trims at most 15 % more packets than ideal trimming with at
/// least 95 % of its goodput (the paper: at most ~10 % more trims, throughput within
/// ~5 %). Measured 2026-11-29: 6 and 6 trims (all deflected and recirculated), 98.1 and
/// 98.1 Gb/s; on the crosspoint switch (2026-11-25) 7 and 7.
#[test]
fn tofino_style_trimming_stays_within_a_bound_of_ideal() {
    tofino_within_a_bound_of_ideal("trim3");
}

fn tofino_within_a_bound_of_ideal(prefix: &str) {
    let (ni, ri) = run_builtin(&format!("{prefix}-ideal-3"));
    let (nt, rt) = run_builtin(&format!("{prefix}-tofino-3"));
    all_delivered(&ni, &ri);
    all_delivered(&nt, &rt);
    let sum = |r: &RunResult, f: fn(&nt_sim::switch_workload::PortStats) -> u64| -> u64 {
        r.switch_stats[0].iter().map(f).sum()
    };
    let ideal = sum(&ri, |p| p.trimmed);
    let (ingress, dod) = (sum(&rt, |p| p.trimmed), sum(&rt, |p| p.dod_trims));
    println!(
        "{prefix}: trims ideal {ideal}, Tofino-style {ingress} at ingress + {dod} after deflection"
    );
    assert!(ideal > 0, "the ideal switch trimmed nothing");
    assert_eq!(sum(&ri, |p| p.dod_trims), 0);
    assert!(
        dod > 0,
        "Tofino-style: nothing deflected ({ingress} ingress trims)"
    );
    let lost = sum(&rt, |p| p.dod_drop + p.drop_header + p.drop_full);
    assert_eq!(lost, 0, "Tofino-style lost packets");
    assert!(
        100 * (ingress + dod) <= 115 * ideal,
        "Tofino-style {} trims vs ideal {ideal}",
        ingress + dod
    );
    let gi = nt_sim::net_report::goodput_gbps(&ni).unwrap();
    let gt = nt_sim::net_report::goodput_gbps(&nt).unwrap();
    println!("{prefix}: goodput ideal {gi:.1} Gb/s, Tofino-style {gt:.1} Gb/s");
    assert!(
        gt >= gi * 0.95,
        "goodput: Tofino-style {gt:.1} vs ideal {gi:.1}"
    );
}

/// The Bolt shapes' base round trips are a lone flow's (`bolt-lone`, `bolt-lone-path`),
/// their BDPs those round trips in full packets, and a lone flow at line rate draws no SRC
/// (`CC_THRESH` is above what it holds in a store-and-forward switch).
#[test]
fn bolt_base_round_trips_are_a_lone_flows_which_draws_no_src() {
    for (name, b) in [
        ("bolt-lone", net_scenarios::BoltShape::default()),
        ("bolt-lone-path", net_scenarios::BoltShape::two_switches()),
    ] {
        let (net, r) = run_builtin(name);
        all_delivered(&net, &r);
        println!(
            "{name}: {}",
            net_scenarios::bolt_report(name, &net, &r).unwrap()
        );
        let (rtt, srcs) = net_scenarios::lone_flow_rtt(&net).expect("measured");
        assert_eq!(rtt, b.base_rtt, "{name}: the shape's base_rtt");
        assert_eq!(
            b.bdp_pkts as u64,
            (rtt + 68) / 136,
            "{name}: the BDP in full packets"
        );
        assert_eq!(srcs, 0, "{name}: a lone flow drew SRCs");
        let sent: u64 = r.switch_stats.iter().flatten().map(|p| p.src_sent).sum();
        assert_eq!(sent, 0, "{name}: the switches sent SRCs");
    }
}

/// Thesis §4.5.1, a flow joins a saturated link: Bolt's SRCs shrink both windows and the
/// queue the joining flow's first window built is drained below `CC_THRESH` within two
/// base round trips of its peak, with no loss and a fair share.
#[test]
fn bolt_drains_the_queue_within_two_rtts_after_a_flow_joins() {
    let (net, r) = run_builtin("bolt-join");
    bolt_join_checks("bolt-join", &net, &r);
}

fn bolt_join_checks(name: &str, net: &Network, r: &RunResult) {
    let (net, r) = (net, r);
    let b = net_scenarios::BoltShape::default();
    all_delivered(net, r);
    let sw = &r.switch_stats[0];
    let srcs: u64 = sw.iter().map(|p| p.src_sent).sum();
    let drops: u64 = sw.iter().map(|p| p.drop_full).sum();
    assert!(srcs > 0, "no SRC: {sw:?}");
    assert_eq!(drops, 0, "Bolt lost packets: {sw:?}");
    let m = net_scenarios::bolt_join_metrics(r, &b).expect("measured");
    assert!(
        m.peak_bytes >= 2 * b.cc_thresh,
        "the joining flow built no queue (peak {} bytes)",
        m.peak_bytes
    );
    // the report knows the run by its built-in name
    println!(
        "{name}: {}",
        net_scenarios::bolt_report("bolt-join", net, r).unwrap()
    );
    let (t_peak, t_drained) = (m.peak_cycle, m.drained_cycle);
    assert!(
        t_drained - t_peak <= 2 * b.base_rtt,
        "drained {} cycles after the peak, more than 2 RTTs ({})",
        t_drained - t_peak,
        2 * b.base_rtt
    );
    // h1 gave up part of its window to h2, and both ended with similar rates.
    assert!(
        m.w1_min < m.w1_before,
        "h1's window {} did not shrink ({})",
        m.w1_before,
        m.w1_min
    );
    let rate = |m: &nt_sim::net::MsgRecord| m.bytes as f64 / m.fct().unwrap() as f64;
    let (r1, r2) = (rate(&net.msgs[0]), rate(&net.msgs[1]));
    assert!(
        r2 > 0.6 * r1,
        "h2's rate {r2:.2} B/cycle far below h1's {r1:.2}"
    );
}

/// Thesis §4.5.1, a flow completes: when h1's flow ends, h2's window reaches the
/// bandwidth-delay product (line rate) within three base round trips, with PRU and
/// without, and no later with PRU. (On the shared switch the two runs are the same: h1's
/// window is down to one packet by its end, so its last window is one LAST packet, which
/// finds the queue at `CC_THRESH` and draws an SRC instead of earning a PRU token,
/// Algorithm 7 testing congestion first; docs/results.md. The token steps are pinned by
/// `switch_scenarios`.)
#[test]
fn bolt_ramps_up_the_remaining_flow_within_three_rtts_with_and_without_pru() {
    let b = net_scenarios::BoltShape::default();
    let ramp = |name: &str| -> (u64, u64) {
        let (net, r) = run_builtin(name);
        all_delivered(&net, &r);
        let (_, ramp) =
            net_scenarios::bolt_ramp_metrics(&r, &b).unwrap_or_else(|e| panic!("{name}: {e}"));
        println!("{}", net_scenarios::bolt_report(name, &net, &r).unwrap());
        let drops: u64 = r.switch_stats.iter().flatten().map(|p| p.drop_full).sum();
        assert_eq!(drops, 0, "{name}: Bolt lost packets");
        (ramp, net.msgs[1].fct().unwrap())
    };
    let (with_pru, fct_pru) = ramp("bolt-complete-pru");
    let (without, fct_nopru) = ramp("bolt-complete-nopru");
    println!(
        "bolt-complete: h2 at the BDP {with_pru} cycles after h1 ended with PRU, {without} without; h2's FCT {fct_pru} vs {fct_nopru}"
    );
    assert!(
        with_pru <= without,
        "PRU {with_pru} cycles, without {without}"
    );
    assert!(without <= 3 * b.base_rtt, "the ramp took {without} cycles");
    assert!(fct_pru <= fct_nopru, "h2 finished later with PRU");
}

/// Thesis §4.5.1, a flow is rerouted (Fig 4.12): when `h2`'s flow leaves the bottleneck
/// with no hint (a route change, no LAST packets), `h1`'s window reaches the BDP sooner
/// with supply matching than on additive increase alone (SM off), and within three base
/// round trips. Neither run loses a packet.
#[test]
fn bolt_ramps_up_after_a_reroute_faster_with_sm() {
    let b = net_scenarios::BoltShape::two_switches();
    let ramp = |name: &str| -> net_scenarios::BoltReroute {
        let (net, r) = run_builtin(name);
        all_delivered(&net, &r);
        assert_eq!(net.routes_changed.len(), 1, "{name}: the reroute");
        let drops: u64 = r.switch_stats.iter().flatten().map(|p| p.drop_full).sum();
        assert_eq!(drops, 0, "{name}: Bolt lost packets");
        println!("{}", net_scenarios::bolt_report(name, &net, &r).unwrap());
        net_scenarios::bolt_reroute_metrics(&r, &b).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let sm = ramp("bolt-reroute-sm");
    let nosm = ramp("bolt-reroute-nosm");
    assert_eq!(sm.w_before, nosm.w_before, "the same run until the reroute");
    assert!(
        sm.w_before < b.bdp_pkts as u64,
        "h1 was already at the BDP ({}) before the reroute",
        sm.w_before
    );
    assert!(
        sm.ramp < nosm.ramp,
        "SM {} cycles, without {}",
        sm.ramp,
        nosm.ramp
    );
    assert!(sm.ramp <= 3 * b.base_rtt, "SM ramp took {} cycles", sm.ramp);
}

/// Thesis §4.5.1, Table 4.1 (scaled: three staggered 38-packet flows into one receiver):
/// in every PRU/SM setting nothing is lost and the bottleneck is busy at least 75 % of the
/// time between the first and the last flow completion. (The thesis's order of the four
/// cells does not hold here: which setting wins moves with the stagger by up to 20 points,
/// docs/results.md. On the crosspoint switch a joining flow's first window overflowed its
/// input's region at some staggers, and a lost packet brought the utilization to 10 %.)
/// The runs stop at cycle 21,000, once every flow's last packet has left the bottleneck,
/// not after the receiver has handed all three messages to its application.
#[test]
fn bolt_keeps_the_bottleneck_busy_between_completions_in_every_pru_sm_setting() {
    for name in [
        "bolt-util-pru-sm",
        "bolt-util-pru-nosm",
        "bolt-util-nopru-sm",
        "bolt-util-nopru-nosm",
    ] {
        let mut v = net_scenarios::runs(name).unwrap();
        let t = v
            .remove(0)
            .1
            .replace("max_cycles = 400000", "max_cycles = 21000");
        let (net, r) = run(&t);
        println!("{}", net_scenarios::bolt_report(name, &net, &r).unwrap());
        let drops: u64 = r.switch_stats.iter().flatten().map(|p| p.drop_full).sum();
        assert_eq!(drops, 0, "{name}: Bolt lost packets");
        let u = net_scenarios::bolt_util_metrics(&net).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            u.last_done < 21_000,
            "{name}: a flow was still sending at the end"
        );
        assert!(
            u.utilization >= 0.75,
            "{name}: utilization {:.3}",
            u.utilization
        );
    }
}

/// What every run over faulty links must show: it ended (settled before `max_cycles`);
/// every message delivered exactly once, byte for byte, with the sender's `Delivered`, or
/// given up by its sender and never delivered, not both; every link direction empty and
/// balanced (`delivered = offered - lost - fcs_drops - down_dropped + duplicated`), every
/// corrupted frame dropped by the receiving port's FCS check, and every frame a device
/// received one that its link delivered. Returns (delivered, given up).
fn check_faulty_run(name: &str, net: &Network, r: &RunResult) -> (usize, usize) {
    assert!(r.settled, "{name}: no end in {} cycles", r.cycles);
    assert_eq!(net.corrupt, 0, "{name}: a delivery with a wrong payload");
    assert_eq!(net.untagged, 0, "{name}: a delivery of no message");
    let (mut delivered, mut gave_up) = (0, 0);
    for (i, m) in net.msgs.iter().enumerate() {
        match (m.done, m.outcome) {
            (Some(_), Some(Outcome::Delivered)) => delivered += 1,
            (None, Some(Outcome::GaveUp)) => gave_up += 1,
            _ => panic!(
                "{name}: message {i} delivered {:?}, sender's outcome {:?}: {m:?}",
                m.done, m.outcome
            ),
        }
        assert_eq!(
            m.deliveries,
            m.done.is_some() as u32,
            "{name}: message {i} handed to its application {} times",
            m.deliveries
        );
    }
    let rx_delivered: u64 = r.host_stats.iter().map(|h| h.rx_delivered).sum();
    assert_eq!(
        rx_delivered as usize, delivered,
        "{name}: the NICs' deliveries"
    );
    let csv = nt_sim::net_report::links_csv(net);
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(
        rows[0],
        "link,from,to,delay,offered,delivered,lost,corrupted,fcs_drops,duplicated,reordered,down_dropped"
    );
    assert_eq!(rows.len(), 1 + 2 * net.links.len());
    for (li, l) in net.links.iter().enumerate() {
        for d in 0..2 {
            let s = l.dir[d].stats;
            assert_eq!(
                l.dir[d].in_flight(),
                0,
                "{name}: link {} still carries frames",
                l.name
            );
            assert!(
                s.balanced(0),
                "{name}: link {} direction {d}: {s:?}",
                l.name
            );
            assert_eq!(
                s.delivered,
                s.offered - s.lost - s.fcs_drops - s.down_dropped + s.duplicated,
                "{name}: link {}",
                l.name
            );
            assert_eq!(
                s.fcs_drops, s.corrupted,
                "{name}: link {}: a corrupted frame passed the FCS check",
                l.name
            );
            // The frames the far end took are the ones its link delivered.
            let took = match l.ends[1 - d] {
                nt_sim::net::End::Host(h) => r.host_stats[h].rx_frames,
                nt_sim::net::End::Port(sw, p) => r.switch_stats[sw][p].rx_frames,
            };
            assert_eq!(
                took, s.delivered,
                "{name}: link {} direction {d}: received {took}, {s:?}",
                l.name
            );
            // links.csv's row: the link, its ends, its delay and the counters.
            let want: Vec<String> = s.fields().iter().map(|f| f.1.to_string()).collect();
            let row = rows[1 + 2 * li + d];
            assert!(
                row.starts_with(&format!("{},", l.name))
                    && row.ends_with(&format!(",{},{}", l.delay, want.join(","))),
                "{name}: links.csv row {row:?} vs {s:?}"
            );
        }
    }
    (delivered, gave_up)
}

/// Issue 37, finding 9: every NIC program over links that lose 0, 1, 5 and 10 % of their
/// frames in each direction, and corrupt 1 %, duplicate 1 % and reorder 5 % within 300
/// cycles (`ntsim run loss-sweep`, 36 messages of 100 B to 8 KiB among three hosts on a
/// switch in the program's mode): each run ends, each message is delivered exactly once and
/// byte for byte or given up by its sender, never both, and every link's counters balance
/// with every corrupted frame caught by the FCS ([`check_faulty_run`]). The faults did
/// happen: at 10 % about a tenth of the frames lost, corrupted frames, duplicates and held
/// frames in every program's runs, retransmissions growing with the loss. None was given
/// up (measured: docs/reliability.md); the check allows it, as a sender that never hears
/// an ACK gives up by design.
#[test]
fn every_program_delivers_exactly_once_over_lossy_corrupting_links() {
    use net_scenarios::{loss_name, loss_row, loss_table, lossy, LOSS_PCTS, LOSS_PROGRAMS};
    let mut rows = vec![];
    for p in LOSS_PROGRAMS {
        for &pct in LOSS_PCTS {
            let name = loss_name(p, pct);
            let (net, r) = run(&lossy(p, pct));
            let (delivered, gave_up) = check_faulty_run(&name, &net, &r);
            assert_eq!(delivered + gave_up, net.msgs.len());
            rows.push(loss_row(&name, &net, &r).expect("a loss run"));
        }
    }
    println!("{}", loss_table(&rows));
    for p in LOSS_PROGRAMS {
        let of = |pct: u32| {
            rows.iter()
                .find(|x| x.program == *p && x.pct == pct)
                .unwrap()
        };
        let l0 = &of(0).links;
        assert_eq!(l0.lost, 0, "{p}: lost frames at 0 %");
        for &pct in LOSS_PCTS {
            let l = &of(pct).links;
            // Loose bounds: ~600 frames a run.
            let share = l.lost as f64 / l.offered as f64;
            assert!(
                share >= pct as f64 / 200.0 && share <= pct as f64 / 50.0,
                "{p} at {pct} %: {} of {} frames lost",
                l.lost,
                l.offered
            );
            assert!(
                l.corrupted > 0 && l.duplicated > 0 && l.reordered > 0,
                "{p} at {pct} %: {l:?}"
            );
        }
        assert!(
            of(10).retransmitted > of(0).retransmitted,
            "{p}: {} retransmissions at 10 %, {} at 0 %",
            of(10).retransmitted,
            of(0).retransmitted
        );
    }
}

/// A host's link goes down twice (`down = [[1000, 6000], [8000, 9000]]`) while its 20 KiB
/// message to `h0` is under way: the frames on the wire then are dropped and counted, the
/// sender recovers after the link is up again (its retransmission timeout), the message
/// arrives once, and the counters balance. `faults = "a-b"` takes only the host's sending
/// direction down (the ACKs and PULLs back still arrive, dropped nowhere).
#[test]
fn a_link_that_goes_down_drops_what_is_on_it_and_the_sender_recovers() {
    let msg = "[[workload]]\nkind = \"messages\"\n[[workload.msg]]\nfrom = \"h1\"\nto = \"h0\"\ncycle = 500\nbytes = 20480\n";
    let base = star(2, "ndp", msg).replace("rtt_pkts = 4\n", "rtt_pkts = 4\ntimeout = 3000\n");
    for (faults, both) in [("", true), ("faults = \"a-b\"\n", false)] {
        let t = base.replacen(
            "b = \"s0:1\"\ndelay = 60\n",
            &format!("b = \"s0:1\"\ndelay = 60\ndown = [[1000, 6000], [8000, 9000]]\n{faults}"),
            1,
        );
        assert_ne!(t, base);
        let (net, r) = run(&t);
        let (delivered, _) = check_faulty_run("down", &net, &r);
        assert_eq!(delivered, 1);
        let l = &net.links[1];
        assert_eq!(l.name, "h1-s0:1");
        let (up, back) = (l.dir[0].stats, l.dir[1].stats);
        println!(
            "down, faults {faults:?}: h1>s0 {up:?}, s0>h1 {back:?}; FCT {:?}",
            net.msgs[0].fct()
        );
        assert!(up.down_dropped > 0, "{up:?}");
        assert_eq!(up.lost + up.corrupted + up.duplicated + up.reordered, 0);
        if !both {
            assert_eq!(back.down_dropped, 0, "{back:?}");
        }
        // The message's first window left at cycle ~500 and reached h0 before 1,000; the
        // rest waited for the link.
        assert!(net.msgs[0].done.unwrap() > 6000, "{:?}", net.msgs[0]);
        assert!(r.host_stats[1].tx_retransmitted > 0);
    }
}

/// Link faults are seeded by the topology's seed, the link's name and the direction: a
/// second run is the same, a new link (with faults of its own) leaves the others' faults
/// and the whole run unchanged, and another seed changes them.
#[test]
fn link_faults_are_seeded_per_link() {
    let faults =
        "loss = 0.05\ncorrupt = 0.05\nduplicate = 0.05\nreorder = 0.1\nreorder_window = 200\n";
    let msgs = "[[workload]]\nkind = \"messages\"\n[[workload.msg]]\nfrom = \"h1\"\nto = \"h0\"\ncycle = 0\nbytes = 9000\n[[workload.msg]]\nfrom = \"h0\"\nto = \"h1\"\ncycle = 0\nbytes = 7000\n";
    let t = star(2, "homa", msgs)
        .replace("delay = 60\n", &format!("delay = 60\n{faults}"))
        .replace("rtt_pkts = 4\n", "rtt_pkts = 4\ntimeout = 3000\n");
    // A third host, first in the file, on a faulty link of its own, idle.
    let more = t.replacen(
        "[[host]]\nname = \"h0\"",
        &format!("[[host]]\nname = \"hz\"\nprogram = \"homa\"\n[[link]]\na = \"hz\"\nb = \"s0:3\"\ndelay = 60\n{faults}[[host]]\nname = \"h0\""),
        1,
    );
    assert_ne!(t, more);
    let stats = |net: &Network, k: usize| [net.links[k].dir[0].stats, net.links[k].dir[1].stats];
    let (n1, r1) = run(&t);
    check_faulty_run("seeded", &n1, &r1);
    let (n2, r2) = run(&t);
    let (n3, r3) = run(&more);
    check_faulty_run("seeded, one more link", &n3, &r3);
    assert_eq!(n3.links[0].name, "hz-s0:3");
    for k in 0..2 {
        assert_eq!(stats(&n1, k), stats(&n2, k));
        assert_eq!(
            stats(&n1, k),
            stats(&n3, k + 1),
            "link {}",
            n1.links[k].name
        );
    }
    assert_eq!(r1.cycles, r2.cycles);
    assert_eq!(r1.cycles, r3.cycles);
    let frames: u64 = (0..2)
        .map(|k| stats(&n1, k).iter().map(|s| s.offered).sum::<u64>())
        .sum();
    let faults_seen: u64 = (0..2)
        .map(|k| {
            stats(&n1, k)
                .iter()
                .map(|s| s.lost + s.corrupted + s.duplicated + s.reordered)
                .sum::<u64>()
        })
        .sum();
    assert!(faults_seen > 0, "{frames} frames, no fault");
    let (n4, _) = run(&t.replace("seed = 3\n", "seed = 4\n"));
    assert_ne!(
        (0..2).map(|k| stats(&n1, k)).collect::<Vec<_>>(),
        (0..2).map(|k| stats(&n4, k)).collect::<Vec<_>>(),
        "another seed, the same faults"
    );
}

/// Every link fault value is checked with a one-line error naming the link, the key and the
/// value; values of the wrong type or shape name the file's line.
#[test]
fn link_fault_errors_are_clear() {
    let base = star(2, "ndp", "");
    let on_h1 = |extra: &str| {
        base.replacen(
            "b = \"s0:1\"\ndelay = 60\n",
            &format!("b = \"s0:1\"\ndelay = 60\n{extra}"),
            1,
        )
    };
    let cases: Vec<(String, &str)> = vec![
        (
            on_h1("loss = 1.5\n"),
            "link h1-s0:1: loss = 1.5: a probability must be in 0..=1",
        ),
        (
            on_h1("corrupt = -0.01\n"),
            "link h1-s0:1: corrupt = -0.01: a probability must be in 0..=1",
        ),
        (
            on_h1("duplicate = nan\n"),
            "link h1-s0:1: duplicate = NaN: a probability must be in 0..=1",
        ),
        (
            on_h1("reorder = 0.1\n"),
            "link h1-s0:1: reorder = 0.1: needs reorder_window",
        ),
        (
            on_h1("reorder = 0.1\nreorder_window = 0\n"),
            "reorder = 0.1: needs reorder_window",
        ),
        (
            on_h1("reorder = 0.1\nreorder_window = 5000000\n"),
            "link h1-s0:1: reorder_window = 5000000: must be 1..=1000000 cycles",
        ),
        (
            on_h1("down = [[500, 100]]\n"),
            "link h1-s0:1: down[0] = [500, 100]: an interval [from, to) needs from below to",
        ),
        (
            on_h1("down = [[100, 500], [400, 900]]\n"),
            "link h1-s0:1: down[1] = [400, 900] starts before down[0] = [100, 500] ends",
        ),
        (
            on_h1("faults = \"up\"\n"),
            "link h1-s0:1: faults = \"up\": use \"both\", \"a-b\" (frames from a to b) or \"b-a\"",
        ),
        (on_h1("down = [[100]]\n"), "line 25"),
        (on_h1("loss = \"high\"\n"), "line 25"),
        (on_h1("down = [[-5, 10]]\n"), "line 25"),
        (on_h1("los = 0.1\n"), "unknown field `los`"),
        (
            base.replacen("delay = 60", "delay = 99999999999999", 1),
            "link h0-s0:0: delay = 99999999999999: the link delay must be at most 2^40",
        ),
    ];
    for (t, want) in cases {
        match build(&t) {
            Ok(_) => panic!("accepted, wanted an error with {want:?}:\n{t}"),
            Err(e) => {
                assert!(e.contains(want), "error {e:?} lacks {want:?}");
                assert!(
                    !e.trim().contains('\n') || e.starts_with("topology:"),
                    "{e:?}"
                );
            }
        }
    }
}

/// The shared buffer in a network: a Homa incast of three 24 KB messages into one port.
/// With 1 MiB and limits out of reach it drops nothing (the retired crosspoint switch, with
/// its 3 packets per input and output, dropped and Homa recovered by timeouts); with a
/// limit per output, or a dynamic threshold on 64 KiB, it drops, and every message still
/// arrives whole.
#[test]
fn a_shared_buffer_absorbs_an_incast_and_its_limits_bind() {
    let extra = "[[workload]]\nkind = \"incast\"\nsenders = [\"h1\", \"h2\", \"h3\"]\nreceiver = \"h0\"\nsizes = [24000, 24000, 24000]\n";
    let base = star(4, "homa", extra).replace(
        "mode = \"trim\"\nband_by_flags = true\n",
        "mode = \"droptail\"\n",
    );
    let dropped =
        |r: &nt_sim::net::RunResult| -> u64 { r.switch_stats[0].iter().map(|p| p.drop_full).sum() };
    let t = base.replace(
        "mode = \"droptail\"\n",
        "mode = \"droptail\"\nbuffer = \"shared\"\nshared_kib = 1024\nbuffer_bytes = 1000000\nbuffer_pkts = 10000\n",
    );
    let (net, r2) = run(&t);
    all_delivered(&net, &r2);
    let s = dropped(&r2);
    println!(
        "incast of 3 x 24 KB: the shared buffer drops {s}, done at cycle {}",
        r2.cycles
    );
    assert_eq!(s, 0, "the shared buffer dropped");
    // the same buffer with 4 KiB for each output, all bands together: the incast's
    // output drops what exceeds it (Homa's bands by tos each stay below their own limits)
    let (net, r3) = run(&t.replace(
        "buffer_pkts = 10000\n",
        "buffer_pkts = 10000\nport_bytes = 4096\n",
    ));
    all_delivered(&net, &r3);
    let p = dropped(&r3);
    println!(
        "... with 4 KiB a port: drops {p}, done at cycle {}",
        r3.cycles
    );
    assert!(p > 0, "the port limit dropped nothing");
    // the dynamic threshold on a 64 KiB buffer: with alpha = 1/16 a band may hold a
    // sixteenth of the free buffer (about 3.5 KiB), and the incast's output drops; without
    // it the same buffer drops nothing
    let t64 = t.replace("shared_kib = 1024\n", "shared_kib = 64\n");
    let (net, r4) = run(&t64);
    all_delivered(&net, &r4);
    let (net, r5) = run(&t64.replace("shared_kib = 64\n", "shared_kib = 64\ndt_alpha = 0.0625\n"));
    all_delivered(&net, &r5);
    let (d4, d5) = (dropped(&r4), dropped(&r5));
    println!("... 64 KiB: drops {d4}; with a dynamic threshold of alpha 1/16: drops {d5}");
    assert_eq!(d4, 0, "the 64 KiB buffer dropped without a threshold");
    assert!(d5 > 0, "the dynamic threshold dropped nothing");
    let bad = |extra: &str| build(&base.replace("mode = \"droptail\"\n", extra)).err();
    assert!(bad("mode = \"droptail\"\nbuffer = \"crosspoint\"\n")
        .is_some_and(|e| e.contains("the crosspoint switch was retired")));
    assert!(bad("mode = \"trim\"\nbuffer = \"shared\"\nhdr_pkts = 0\n")
        .is_some_and(|e| e.contains("hdr_pkts 0: must be 1..=65535")));
    assert!(
        bad("mode = \"droptail\"\nbuffer = \"shared\"\nhdr_pkts = 10\n")
            .is_some_and(|e| e.contains("they need mode = \"trim\""))
    );
    assert!(
        bad("mode = \"droptail\"\nbuffer = \"shared\"\ndt_alpha = 0.3\n")
            .is_some_and(|e| e.contains("dt_alpha 0.3: must be a power of two"))
    );
    assert!(bad(
        "mode = \"droptail\"\nbuffer = \"shared\"\nshared_kib = 100\nengine = \"native\"\n"
    )
    .is_some_and(|e| e.contains("shared_kib = 100")));
    assert!(
        bad("mode = \"droptail\"\nbuffer = \"big\"\n").is_some_and(|e| e.contains("\"shared\""))
    );
}
