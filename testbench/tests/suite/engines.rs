//! The Verilator engine (`engine = "verilator"`, `nt_sim::vmodel`) and the compiled engine
//! (`engine = "compiled"`, `nt_sim::rcomp`): the network simulator runs NICs and switches on
//! their emitted Verilog, verilated or compiled to Rust and stepped in this process, and
//! must give exactly the run the native kernel gives: every frame on every link at the
//! same cycle, every delivery, outcome, counter and time-series sample.
use nt_sim::net::{NetConfig, Network, RunResult};
use nt_sim::vcd::{WaveFile, WaveOpts};
use nt_sim::verilator::which;
use std::sync::{Arc, Mutex};

/// Message sizes for the Poisson workload (bytes, cumulative probability).
const CDF: &str = "64 0.2\n1500 0.5\n9000 0.8\n20000 1.0\n";

fn run(text: &str) -> (Network, RunResult) {
    let cfg = NetConfig::from_toml(text).expect("topology");
    let files = |f: &str| {
        if f == "sizes.txt" {
            Ok(CDF.to_string())
        } else {
            Err(format!("no file {f} in this test"))
        }
    };
    let mut net = Network::build(&cfg, &files).expect("build");
    let r = net.run(&mut |_, _| {}).expect("run");
    (net, r)
}

/// A star of 4 hosts running `program` on a 4-port switch in `mode` with `seed`, every link
/// captured, then `extra` (workloads; `engine` lines go before the first table).
fn star(engine: &str, program: &str, mode: &str, seed: u64, extra: &str) -> String {
    let mut s = format!(
        "seed = {seed}\nmax_cycles = 100000\nsample_cycles = 32\n{engine}\n[[switch]]\nname = \"s0\"\nports = 4\nmode = \"{mode}\"\nband_by_flags = true\nbuffer_bytes = 6144\n"
    );
    if mode == "bolt" {
        // Bolt's parameters as the Bolt scenarios set them (`net_scenarios::BoltShape`).
        s = s.replace(
            "buffer_bytes = 6144\n",
            "buffer_bytes = 1048575\ncc_thresh = 3264\nmtu = 1088\npru_cap = 255\nlink_rate = 200\n",
        );
    }
    let mut pcaps = vec![];
    for h in 0..4 {
        s.push_str(&format!(
            "[[host]]\nname = \"h{h}\"\nprogram = \"{program}\"\nrtt_pkts = 6\n[[link]]\na = \"h{h}\"\nb = \"s0:{h}\"\ndelay = 50\n"
        ));
        pcaps.push(format!("\"h{h}-s0:{h}\""));
    }
    s.push_str(extra);
    s.push_str(&format!("[output]\npcap = [{}]\n", pcaps.join(", ")));
    s
}

/// Everything a run produced, compared field by field so a failure names what differs.
fn assert_same_run(what: &str, (na, ra): &(Network, RunResult), (nb, rb): &(Network, RunResult)) {
    assert!(ra.settled, "{what}: the native run did not settle");
    assert_eq!(ra.cycles, rb.cycles, "{what}: cycles");
    for (la, lb) in na.links.iter().zip(&nb.links) {
        let (ca, cb) = (la.capture.as_ref(), lb.capture.as_ref());
        let (ca, cb) = (ca.expect("captured"), cb.expect("captured"));
        for d in 0..2 {
            assert_eq!(
                ca[d].len(),
                cb[d].len(),
                "{what}: frames on link {} direction {d}",
                la.name
            );
            for (i, (a, b)) in ca[d].iter().zip(&cb[d]).enumerate() {
                assert_eq!(a, b, "{what}: link {} direction {d} frame {i}", la.name);
            }
        }
    }
    assert_eq!(
        na.msgs, nb.msgs,
        "{what}: messages (deliveries, outcomes, times)"
    );
    assert_eq!(na.corrupt + nb.corrupt, 0, "{what}: corrupt deliveries");
    assert_eq!(ra.host_stats, rb.host_stats, "{what}: NIC counters");
    assert_eq!(ra.switch_stats, rb.switch_stats, "{what}: switch counters");
    assert_eq!(ra.series.queue, rb.series.queue, "{what}: queue series");
    assert_eq!(
        ra.series.host_window, rb.series.host_window,
        "{what}: window series"
    );
    assert_eq!(
        ra.series.host_rx, rb.series.host_rx,
        "{what}: receive series"
    );
    assert_eq!(ra.series.host_tx, rb.series.host_tx, "{what}: send series");
}

#[test]
fn verilator_and_compiled_engines_give_the_native_run_cycle_for_cycle() {
    if which("verilator").is_none() {
        panic!("verilator is not installed: run the README's test command, which installs it");
    }
    // NDP on a trimming switch under seeded Poisson load (trims, NACKs, retransmissions,
    // paced PULLs), and Bolt on a Bolt switch (SRCs, the window trace). The native kernel
    // steps this network at ~300 cycles/s in the test build, so the runs are kept short:
    // 2,500 cycles of arrivals at load 0.9 with seed 12 (11 messages, 9,666 cycles, 10 trims
    // and their retransmissions) and a 3-to-1 incast of 8, 4 and 2 KB (3,922 cycles, 9 SRCs). They
    // were 16,449 and 25,234 cycles, the Bolt one mostly an idle wait for a timeout.
    let ndp_load =
        "[[workload]]\nkind = \"poisson\"\nload = 0.9\nsizes_file = \"sizes.txt\"\nstop = 2500\n";
    let bolt_incast = "[[workload]]\nkind = \"incast\"\nsenders = [\"h1\", \"h2\", \"h3\"]\nreceiver = \"h0\"\nsizes = [8000, 4000, 2000]\n";
    for (program, mode, seed, extra) in [
        ("ndp", "trim", 12, ndp_load),
        ("bolt", "bolt", 11, bolt_incast),
    ] {
        let native = run(&star("", program, mode, seed, extra));
        let verilated = run(&star("engine = \"verilator\"", program, mode, seed, extra));
        assert!(!native.0.msgs.is_empty(), "{program}: no messages");
        assert_same_run(&format!("{program}, all verilated"), &native, &verilated);
        // Engines mix per device: the hosts compiled and the switch verilated below; the
        // hosts compiled and the switch native in
        // `the_shared_switch_on_the_compiled_engine_gives_the_native_run`.
        // The compiled engine (the same Verilog compiled to Rust by `nt_sim::rcomp`).
        let compiled = run(&star("engine = \"compiled\"", program, mode, seed, extra));
        assert_same_run(&format!("{program}, all compiled"), &native, &compiled);
        let mixed = star("engine = \"compiled\"", program, mode, seed, extra)
            .replace("mode = \"", "engine = \"verilator\"\nmode = \"");
        assert_same_run(
            &format!("{program}, compiled hosts, verilated switch"),
            &native,
            &run(&mixed),
        );
        let trims: u64 = native.1.switch_stats[0].iter().map(|p| p.trimmed).sum();
        let srcs: u64 = native.1.switch_stats[0].iter().map(|p| p.src_sent).sum();
        println!(
            "{program}: {} messages, {} cycles, {trims} trims, {srcs} SRCs; native {:.0} cycles/s, verilator {:.0} cycles/s, compiled {:.0} cycles/s",
            native.0.msgs.len(),
            native.1.cycles,
            native.1.cycles as f64 / native.1.wall_secs,
            verilated.1.cycles as f64 / verilated.1.wall_secs,
            compiled.1.cycles as f64 / compiled.1.wall_secs,
        );
        if program == "ndp" {
            assert!(
                trims > 0,
                "the NDP run trimmed nothing: it checks too little"
            );
        } else {
            assert!(srcs > 0, "the Bolt run sent no SRC: it checks too little");
        }
    }
}

#[test]
fn engine_errors_are_clear() {
    let t = star("engine = \"iverilog\"", "ndp", "trim", 11, "");
    let cfg = NetConfig::from_toml(&t).expect("parses");
    let e = Network::build(&cfg, &|_| Err("none".into()))
        .err()
        .expect("an unknown engine fails");
    assert!(
        e.contains("engine \"iverilog\": use native, verilator or compiled"),
        "{e}"
    );
    // A verilated device has no waveform: asking for one fails with the reason.
    let t = star("engine = \"verilator\"", "ndp", "trim", 11, "");
    let cfg = NetConfig::from_toml(&t).expect("parses");
    let mut net = Network::build(&cfg, &|_| Err("none".into())).expect("builds");
    let i = net.device_index("h0").expect("h0");
    let e = net
        .record_vcd(
            i,
            WaveFile::Vcd(Box::new(std::io::sink())),
            &WaveOpts::default(),
        )
        .expect_err("a waveform of a verilated device fails");
    assert!(
        e.contains("verilator engine records no waveform: use the compiled or the native engine"),
        "{e}"
    );
}

/// A VCD written into memory, readable after the run.
#[derive(Clone, Default)]
struct Mem(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Mem {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The compiled engine's waveforms are the native kernel's, byte for byte: the same
/// variables (the device's name as the top scope, `[i]` indices, registers as one
/// variable) and the same changes, for a NIC (every signal, 2,000 cycles) and the
/// shared-buffer switch (its buffer, `sb`, and the ready signals, cycles 500 to 1,500).
/// They are read back with wellen, an independent parser.
#[test]
fn the_compiled_engine_records_the_native_waveforms() {
    let load =
        "[[workload]]\nkind = \"poisson\"\nload = 0.9\nsizes_file = \"sizes.txt\"\nstop = 1500\n";
    let mut files = vec![];
    for engine in ["native", "compiled"] {
        let t = star(&format!("engine = \"{engine}\""), "ndp", "trim", 5, load)
            .replace("max_cycles = 100000", "max_cycles = 2000");
        let cfg = NetConfig::from_toml(&t).expect("topology");
        let mut net = Network::build(&cfg, &|_| Ok(CDF.to_string())).expect("build");
        let (h, s) = (Mem::default(), Mem::default());
        let all = WaveOpts::default();
        let some = WaveOpts {
            scopes: vec!["s0.sb".into(), "*.ready".into()],
            from: 500,
            to: Some(1500),
            ..Default::default()
        };
        let (hi, si) = (
            net.device_index("h1").unwrap(),
            net.device_index("s0").unwrap(),
        );
        net.record_vcd(hi, WaveFile::Vcd(Box::new(h.clone())), &all)
            .expect("NIC waveform");
        net.record_vcd(si, WaveFile::Vcd(Box::new(s.clone())), &some)
            .expect("switch waveform");
        net.run(&mut |_, _| {}).expect("run");
        drop(net); // flushes the writers
        let h = h.0.lock().unwrap().clone();
        let s = s.0.lock().unwrap().clone();
        files.push((h, s));
    }
    let ((hn, sn), (hc, sc)) = (&files[0], &files[1]);
    for (what, n, c) in [("NIC h1", hn, hc), ("switch s0", sn, sc)] {
        assert!(n.len() > 10_000, "{what}: a waveform of {} bytes", n.len());
        assert!(
            n == c,
            "{what}: the compiled engine's VCD differs from the native one"
        );
    }
    let dir = std::env::temp_dir().join(format!("nt-wave-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (hp, sp) = (dir.join("h1.vcd"), dir.join("s0.vcd"));
    std::fs::write(&hp, hc).unwrap();
    std::fs::write(&sp, sc).unwrap();
    let hw = wellen::simple::read(&hp).expect("wellen reads the NIC's VCD");
    let sw = wellen::simple::read(&sp).expect("wellen reads the switch's VCD");
    let _ = std::fs::remove_dir_all(&dir);
    let hh = hw.hierarchy();
    let tops: Vec<&str> = hh.scopes().map(|s| hh[s].name(hh)).collect();
    assert_eq!(tops, ["h1"], "the device's name is the top scope");
    assert!(hh.lookup_scope(&["h1", "reasm"]).is_some());
    // `cnt_drop[0]` (wellen, as Surfer, makes an array element of a vector a scope `cnt_drop`
    // holding `[0]`)
    let hnames: Vec<String> = hh.all_vars().map(|v| hh[v].full_name(hh)).collect();
    assert!(
        hnames
            .iter()
            .any(|n| n.starts_with("h1.parser.cnt_drop") && n.ends_with("[0]")),
        "array element [0]: {:?}",
        &hnames[..20]
    );
    assert!(
        hh.lookup_scope(&["h1", "reasm", "s2_id"]).is_none(),
        "a register as a scope"
    );
    assert!(
        hh.lookup_var(&["h1", "reasm"], "s2_id").is_some(),
        "the register s2_id"
    );
    let sh = sw.hierarchy();
    let names: Vec<String> = sh.all_vars().map(|v| sh[v].full_name(sh)).collect();
    assert!(names.len() > 50, "{} switch variables", names.len());
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("s0.sb.") || n.ends_with(".ready")),
        "a variable outside the globs: {names:?}"
    );
    let period = 312_500u64;
    assert_eq!(sw.time_table().first(), Some(&(500 * period)));
    assert_eq!(sw.time_table().last(), Some(&(1499 * period + period / 2)));
}

/// The shared-buffer switch (`buffer = "shared"`, `nt_hdl::switch2`) on the compiled engine
/// (its Verilog emitted from the block, compiled to Rust, cached) gives the native switch's
/// run cycle for cycle: NDP under the Poisson load above on a trimming 4-port switch with
/// 6 KiB and 4 packets per band and return to sender, so that it trims and returns. The hosts run compiled in both runs; only the switch's
/// engine differs. (The Verilator engine steps the same `VSwitch2`; `ntsim run` with
/// `engine = "verilator"` on the switch gave the native run of `incast3-homa-big`, 11,220
/// cycles, at 15,077 cycles/s against 98: docs/switch-design.md.)
#[test]
fn the_shared_switch_on_the_compiled_engine_gives_the_native_run() {
    let ndp_load =
        "[[workload]]\nkind = \"poisson\"\nload = 0.9\nsizes_file = \"sizes.txt\"\nstop = 2500\n";
    let shared = |engine: &str| {
        // a retransmission timeout of 4,000 cycles, as the loss runs': with the default the
        // run waited ~30,000 cycles for its last loss (48,033 cycles at 760 cycles/s)
        star("engine = \"compiled\"", "ndp", "trim", 12, ndp_load)
            .replace(
                "buffer_bytes = 6144\n",
                &format!(
                    "buffer_bytes = 6144\nbuffer_pkts = 4\nret = true\nbuffer = \"shared\"\nengine = \"{engine}\"\n"
                ),
            )
            .replace("rtt_pkts = 6\n", "rtt_pkts = 6\ntimeout = 4000\n")
    };
    let native = run(&shared("native"));
    let compiled = run(&shared("compiled"));
    assert!(!native.0.msgs.is_empty(), "no messages");
    assert_same_run("NDP, shared switch compiled", &native, &compiled);
    let trims: u64 = native.1.switch_stats[0].iter().map(|p| p.trimmed).sum();
    let rets: u64 = native.1.switch_stats[0].iter().map(|p| p.returned).sum();
    println!(
        "shared switch: {} messages, {} cycles, {trims} trims ({rets} returned); switch native {:.0} cycles/s, compiled {:.0} cycles/s",
        native.0.msgs.len(),
        native.1.cycles,
        native.1.cycles as f64 / native.1.wall_secs,
        compiled.1.cycles as f64 / compiled.1.wall_secs,
    );
    assert!(trims > 0, "the run trimmed nothing: it checks too little");
    assert!(rets > 0, "the run returned nothing: it checks too little");
}
