//! The built-in scenarios of `ntsim run NAME`, as topology files ([`crate::net`]):
//! `ntsim run --print NAME` shows one, to copy and change.
//!
//! * `demo`: three NDP senders, one message each (4, 6 and 8 packets), to one receiver
//!   through a 4-port trimming switch; the README's main command.
//! * `incast-<ndp|homa|homatr>-<big|54k>`: thesis §3.4.2, Fig 3.2: ten senders, one
//!   message each of 20, 22, …, 38 MTU packets, to one receiver through a 16-port switch,
//!   every link at line rate (204.8 Gb/s), 525 ns (1,680 cycles) round trip, on the
//!   shared-buffer switch with 1 MiB, the bottleneck either with no limit but the buffer
//!   (`big`) or with 54 KiB for the port, all bands together (`port_bytes`); the receiver is the 128-message NIC (sixteen 38 KiB receive buffers). NDP runs on a
//!   trimming switch with bands by transport flags, Homa on a drop-tail switch with bands
//!   by `tos` (its grant priorities), Homa-Tr on a trimming switch with bands by `tos`.
//! * `incast`: all six, and a comparison table.
//! * `incast3-<ndp|homa|homatr>-<big|4k>` and `incast3`: the same experiment scaled to a
//!   4-port switch (3 senders of two messages each, 4 to 14 packets, `rtt_pkts` 3, 4 KiB
//!   small buffer), which the test suite runs ([`IncastShape::small`]).
//! * `trim-<ideal|tofino>-N`: paper 002 §6: N (1..=15) NDP senders, one 38-packet message
//!   each, into one receiver (128-message NIC) of a 16-port switch with ideal or
//!   Tofino-style trimming, the senders dealt over the switch's 4 pipes as the paper
//!   places the senders of one receiver ([`trim_sender_ports`]);
//!   `trim`: N = 1, 2, 4, 8, 15 in both modes, and a comparison table.
//! * `trimpacked-<ideal|tofino>-N`: the same with the senders on ports 1..=N, so that they
//!   fill the pipes one after another (3 senders in the receiver's pipe, then 4 a pipe).
//! * `trim3-<ideal|tofino>-N` (N = 1..=3) and `trim3` (N = 3, both modes): the same on a
//!   4-port switch, 4 KiB per band ([`TrimShape::small`]), which the tests run.
//! * `bolt-lone`, `bolt-lone-path`: one Bolt flow alone on the dumbbell or on the reroute's
//!   path of two switches, the base round trips of [`BoltShape`] ([`lone_flow_rtt`]).
//! * `bolt-join`, `bolt-complete-<pru|nopru>`: thesis §4.5.1's Bolt
//!   micro-benchmarks on a dumbbell (two senders, one receiver, a 4-port switch in Bolt
//!   mode), scaled to the NIC's largest message (38 packets = one flow): a flow joins a
//!   saturated link; a flow completes and the other ramps up with PRU tokens or without
//!   (`pru_cap = 0`, supply matching only) ([`BoltShape`]).
//! * `bolt-reroute-<sm|nosm>` and `bolt-reroute`: thesis Fig 4.12: two flows share a link
//!   between two Bolt switches until a `[[route]]` moves one to a parallel link; the other
//!   ramps up on supply matching, or with SM off on additive increase
//!   ([`bolt_reroute`]).
//! * `bolt-util-<pru|nopru>-<sm|nosm>` and `bolt-util`: thesis Table 4.1: three staggered
//!   flows into one receiver; the bottleneck's utilization between the first and the last
//!   flow completion with PRU and SM each on or off ([`bolt_util`]). `bolt` runs all nine
//!   Bolt runs.
//! * `loss-<ndp|homa|homatr|bolt>-P` (P = 0..=100) and `loss-sweep`: link faults: three
//!   hosts of one program on a 4-port switch in the program's mode, 36 messages of
//!   100 B to 8 KiB between every pair, every link losing P % of its frames in each
//!   direction, corrupting 1 %, duplicating 1 % and reordering 5 % within 300 cycles
//!   ([`lossy`]); `loss-sweep` runs every program at 0, 1, 5, 10, 20 and 30 % and prints a
//!   table ([`loss_table`]).
use std::collections::HashMap;
use std::fmt::Write as _;

/// Round trip of the incast (thesis: 525 ns) in cycles at 3.2 GHz.
pub const INCAST_RTT: u64 = 1680;
/// One link's delay for that round trip: four link crossings, two switch cut-throughs and
/// about 35 cycles of NIC pipeline.
pub const INCAST_LINK_DELAY: u64 = 405;
/// The NICs' `rtt_pkts`: the bandwidth-delay product in 1088-byte packets (1,680 cycles
/// over 136 words a packet).
pub const INCAST_RTT_PKTS: u8 = 12;

/// Sender counts of the `trim` sweep (a 16-port switch has 15 ports for senders).
pub const TRIM_SENDERS: &[usize] = &[1, 2, 4, 8, 15];
/// Ingress pipes of the trimming runs' switch (Tofino-style trimming; paper 002: 4).
pub const TRIM_PIPES: usize = 4;
/// One MTU (the largest frame, 1088 bytes) on a 64-bit link, in cycles: 136.
pub const MTU_CYCLES: u64 = nt_hdl::parser::MAX_FRAME_BYTES / 8;
/// The trimming runs' pessimistic period T0: paper 002 §6.2's 6 µs, "the time to drain 64
/// packets" at its 100 Gb/s, as 64 of our MTU times (8,704 cycles, 2.72 µs). The paper sizes
/// the period in packets (§6.3: at least ~30 packet times to bridge the gaps between one
/// port's packets in the DoD queue); the switch's default `t0` (19,200 cycles, 6 µs at
/// 3.2 GHz) is 141 of our MTU times, more than twice the paper's period in packets.
pub const TRIM_T0: u64 = 64 * MTU_CYCLES;
/// The half-pessimistic period T1 after T0: paper 002 §6.2's 18 µs, three times T0
/// (26,112 cycles).
pub const TRIM_T1: u64 = 3 * TRIM_T0;

/// The names `ntsim run` knows.
pub fn names() -> Vec<String> {
    let mut v = vec!["demo".to_string(), "incast".to_string()];
    for p in ["ndp", "homa", "homatr"] {
        for b in ["big", "54k"] {
            v.push(format!("incast-{p}-{b}"));
        }
    }
    v.push("incast3".to_string());
    for p in ["ndp", "homa", "homatr"] {
        for b in ["big", "4k"] {
            v.push(format!("incast3-{p}-{b}"));
        }
    }
    v.push("trim".to_string());
    for m in ["ideal", "tofino"] {
        v.push(format!("trim-{m}-N (N = 1..=15)"));
    }
    for m in ["ideal", "tofino"] {
        v.push(format!("trimpacked-{m}-N (N = 1..=15)"));
    }
    v.push("trim3".to_string());
    for m in ["ideal", "tofino"] {
        v.push(format!("trim3-{m}-N (N = 1..=3)"));
    }
    v.push("bolt".to_string());
    v.push("bolt-lone".to_string());
    v.push("bolt-lone-path".to_string());
    v.push("bolt-join".to_string());
    v.push("bolt-complete-pru".to_string());
    v.push("bolt-complete-nopru".to_string());
    v.push("bolt-reroute".to_string());
    v.push("bolt-reroute-sm".to_string());
    v.push("bolt-reroute-nosm".to_string());
    v.push("bolt-util".to_string());
    for pru in [true, false] {
        for sm in [true, false] {
            v.push(bolt_util_name(pru, sm));
        }
    }
    v.push("loss-sweep".to_string());
    for p in LOSS_PROGRAMS {
        v.push(format!("loss-{p}-P (P = 0..=100)"));
    }
    v
}

/// The runs of a name: `(run name, topology)`. `None` for an unknown name.
pub fn runs(name: &str) -> Option<Vec<(String, String)>> {
    if name == "demo" {
        return Some(vec![("demo".into(), demo())]);
    }
    let b = BoltShape::default();
    match name {
        "bolt" => {
            let mut v = vec![
                ("bolt-join".into(), bolt_join(&b)),
                ("bolt-complete-pru".into(), bolt_complete(&b, true)),
                ("bolt-complete-nopru".into(), bolt_complete(&b, false)),
            ];
            v.extend(runs("bolt-reroute")?);
            v.extend(runs("bolt-util")?);
            return Some(v);
        }
        "bolt-join" => return Some(vec![(name.into(), bolt_join(&b))]),
        "bolt-lone" => return Some(vec![(name.into(), bolt_lone(false))]),
        "bolt-lone-path" => return Some(vec![(name.into(), bolt_lone(true))]),
        "bolt-complete-pru" => return Some(vec![(name.into(), bolt_complete(&b, true))]),
        "bolt-complete-nopru" => return Some(vec![(name.into(), bolt_complete(&b, false))]),
        "bolt-reroute" => {
            let b2 = BoltShape::two_switches();
            return Some(vec![
                ("bolt-reroute-sm".into(), bolt_reroute(&b2, true)),
                ("bolt-reroute-nosm".into(), bolt_reroute(&b2, false)),
            ]);
        }
        "bolt-reroute-sm" | "bolt-reroute-nosm" => {
            return Some(vec![(
                name.into(),
                bolt_reroute(&BoltShape::two_switches(), name.ends_with("-sm")),
            )])
        }
        "bolt-util" => {
            return Some(
                [(true, true), (true, false), (false, true), (false, false)]
                    .iter()
                    .map(|&(pru, sm)| (bolt_util_name(pru, sm), bolt_util(&b, pru, sm)))
                    .collect(),
            )
        }
        _ => {}
    }
    if let Some((pru, sm)) = bolt_util_flags(name) {
        return Some(vec![(name.into(), bolt_util(&b, pru, sm))]);
    }
    if name == "loss-sweep" {
        let mut v = vec![];
        for p in LOSS_PROGRAMS {
            for &pct in LOSS_SWEEP_PCTS {
                v.push((loss_name(p, pct), lossy(p, pct)));
            }
        }
        return Some(v);
    }
    if let Some((p, pct)) = loss_flags(name) {
        return Some(vec![(name.into(), lossy(p, pct))]);
    }
    if name == "trim" {
        let mut v = vec![];
        for &n in TRIM_SENDERS {
            for m in ["ideal", "tofino"] {
                v.push((format!("trim-{m}-{n}"), trimming(m == "tofino", n)));
            }
        }
        return Some(v);
    }
    let small = TrimShape::small();
    if name == small.prefix {
        let mut v = vec![];
        for m in ["ideal", "tofino"] {
            v.push((
                format!("{}-{m}-3", small.prefix),
                trimming_shaped(m == "tofino", 3, &small),
            ));
        }
        return Some(v);
    }
    for shape in [TrimShape::paper(), TrimShape::packed(), small] {
        if let Some(rest) = name.strip_prefix(&format!("{}-", shape.prefix)) {
            let (m, n) = rest.split_once('-')?;
            let n: usize = n.parse().ok()?;
            if !["ideal", "tofino"].contains(&m) || !(1..shape.ports).contains(&n) {
                return None;
            }
            return Some(vec![(
                name.to_string(),
                trimming_shaped(m == "tofino", n, &shape),
            )]);
        }
    }
    for shape in [IncastShape::thesis(), IncastShape::small()] {
        if name == shape.prefix {
            let mut v = vec![];
            for big in [true, false] {
                for p in ["ndp", "homa", "homatr"] {
                    let label = if big { "big" } else { shape.small_label };
                    v.push((
                        format!("{}-{p}-{label}", shape.prefix),
                        incast_shaped(p, big, &shape),
                    ));
                }
            }
            return Some(v);
        }
        if let Some(rest) = name.strip_prefix(&format!("{}-", shape.prefix)) {
            let (p, b) = rest.split_once('-')?;
            if !["ndp", "homa", "homatr"].contains(&p) || ![shape.small_label, "big"].contains(&b) {
                return None;
            }
            return Some(vec![(
                name.to_string(),
                incast_shaped(p, b == "big", &shape),
            )]);
        }
    }
    None
}

/// The `messages` line of host `h`: the receiver (`h0`) of an incast of up to 15
/// messages of 20-38 KiB needs the 128-message NIC, whose receive side has sixteen 38 KiB
/// buffers; the 16-message NIC has four, and a fifth concurrent message would find none
/// (its packets dropped until its sender's retransmission timeout).
fn receiver_messages(h: usize) -> &'static str {
    if h == 0 {
        "messages = 128\n"
    } else {
        ""
    }
}

/// The README's demo: a 3:1 NDP incast on a 4-port trimming switch.
pub fn demo() -> String {
    let mut s = String::from(
        "# 3:1 NDP incast through a 4-port trimming switch (ntsim run demo)\nname = \"demo\"\nseed = 1\nmax_cycles = 200000\nsample_cycles = 64\n\n[[switch]]\nname = \"s0\"\nports = 4\nmode = \"trim\"\nband_by_flags = true\nbuffer_bytes = 8192\n\n",
    );
    for h in 0..4 {
        let _ = write!(
            s,
            "[[host]]\nname = \"h{h}\"\nprogram = \"ndp\"\nrtt_pkts = 4\n\n[[link]]\na = \"h{h}\"\nb = \"s0:{h}\"\ndelay = 100\n\n"
        );
    }
    s.push_str(
        "[[workload]]\nkind = \"incast\"\nsenders = [\"h1\", \"h2\", \"h3\"]\nreceiver = \"h0\"\nsizes = [4096, 6144, 8192]\nstart = 10\n",
    );
    s
}

/// The shape of an incast run: the thesis's ([`IncastShape::thesis`]) or the small one
/// the tests run ([`IncastShape::small`]).
#[derive(Clone, Copy, Debug)]
pub struct IncastShape {
    /// Scenario name prefix (`incast`, `incast3`).
    pub prefix: &'static str,
    pub senders: usize,
    /// Messages per sender, all offered at once.
    pub per_sender: usize,
    /// Switch ports (4 or 16).
    pub ports: usize,
    /// Message sizes in packets: message `k` (sender `k % senders`, its `k / senders`-th)
    /// has `first + step * k` packets (at most 38).
    pub first: u64,
    pub step: u64,
    pub rtt_pkts: u8,
    pub link_delay: u64,
    /// The small buffer's byte limit per output, all bands (`54k` in the thesis runs).
    pub small_bytes: u64,
    /// The small buffer's label in the run name.
    pub small_label: &'static str,
}

impl IncastShape {
    /// Thesis Fig 3.2: 10 senders of 20, 22, …, 38 packets, 525 ns round trip, 54 KiB.
    pub fn thesis() -> Self {
        Self {
            prefix: "incast",
            senders: 10,
            per_sender: 1,
            ports: 16,
            first: 20,
            step: 2,
            rtt_pkts: INCAST_RTT_PKTS,
            link_delay: INCAST_LINK_DELAY,
            small_bytes: 54 * 1024,
            small_label: "54k",
        }
    }

    /// The same experiment scaled to a 4-port switch, sized for the test suite: 3 senders
    /// of two messages each, 4, 6, …, 14 packets (so that the receiver has six to
    /// schedule), links of 60 cycles, `rtt_pkts` 3, and a small buffer of 4 KiB a port
    /// (about 40 % of the initial window in flight, as the thesis's 54 KiB is of its 10 × 12
    /// packets).
    pub fn small() -> Self {
        Self {
            prefix: "incast3",
            senders: 3,
            per_sender: 2,
            ports: 4,
            first: 4,
            step: 2,
            rtt_pkts: 3,
            link_delay: 60,
            small_bytes: 4 * 1024,
            small_label: "4k",
        }
    }

    /// Message sizes in bytes, message `k` from sender `k % senders`.
    pub fn sizes(&self) -> Vec<u64> {
        (0..(self.senders * self.per_sender) as u64)
            .map(|k| (self.first + self.step * k).min(38) * 1024)
            .collect()
    }
}

/// Thesis Fig 3.2 with `senders` senders (10 in the thesis).
pub fn incast(program: &str, big: bool, senders: usize) -> String {
    incast_shaped(
        program,
        big,
        &IncastShape {
            senders,
            ..IncastShape::thesis()
        },
    )
}

/// An incast of `shape`: NDP on a trimming switch with bands by transport flags, Homa on a
/// drop-tail switch with bands by `tos`, Homa-Tr on a trimming switch with bands by `tos`,
/// each the shared-buffer switch (`nt_hdl::switch2`) with 1 MiB; `big`: no other limit,
/// every message fits (thesis §3.4.2: "a buffer large enough to absorb the incast"); else
/// `shape.small_bytes` for each output, all bands together (the thesis's bottleneck
/// buffer, "reduced by half (54KB)"; trimmed headers are held to band 0's own limit, the
/// whole buffer).
pub fn incast_shaped(program: &str, big: bool, shape: &IncastShape) -> String {
    let (mode, by_flags) = match program {
        "ndp" => ("trim", true),
        "homa" => ("droptail", false),
        _ => ("trim", false),
    };
    let port = if big {
        String::new()
    } else {
        format!("port_bytes = {}\n", shape.small_bytes)
    };
    let label = if big { "big" } else { shape.small_label };
    let senders = shape.senders;
    let prefix = shape.prefix;
    let mut s = format!(
        "# Thesis Fig 3.2: {senders}:1 incast, {program}, bottleneck buffer {} (ntsim run {prefix}-{program}-{label})\nname = \"{prefix}-{program}-{label}\"\nseed = 1\nmax_cycles = 2000000\nsample_cycles = 160\n\n[[switch]]\nname = \"s0\"\nports = {}\nmode = \"{mode}\"\nband_by_flags = {by_flags}\nbuffer = \"shared\"\nshared_kib = 1024\nbuffer_bytes = 1048575\nbuffer_pkts = 4095\n{port}\n",
        if big { "1 MiB, shared".to_string() } else { format!("{} KiB a port, of 1 MiB shared", shape.small_bytes / 1024) },
        shape.ports,
    );
    for h in 0..=senders {
        let _ = write!(
            s,
            "[[host]]\nname = \"h{h}\"\nprogram = \"{program}\"\nrtt_pkts = {}\n{}\n[[link]]\na = \"h{h}\"\nb = \"s0:{h}\"\ndelay = {}\n\n",
            shape.rtt_pkts,
            receiver_messages(h),
            shape.link_delay,
        );
    }
    if shape.per_sender == 1 {
        let senders_list: Vec<String> = (1..=senders).map(|h| format!("\"h{h}\"")).collect();
        let sizes: Vec<String> = shape.sizes().iter().map(|b| b.to_string()).collect();
        let _ = write!(
            s,
            "[[workload]]\nkind = \"incast\"\nsenders = [{}]\nreceiver = \"h0\"\nsizes = [{}]\nstart = 10\n",
            senders_list.join(", "),
            sizes.join(", ")
        );
    } else {
        s.push_str("[[workload]]\nkind = \"messages\"\n");
        for (k, b) in shape.sizes().iter().enumerate() {
            let _ = write!(
                s,
                "[[workload.msg]]\nfrom = \"h{}\"\nto = \"h0\"\ncycle = 10\nbytes = {b}\n",
                1 + k % senders
            );
        }
    }
    s
}

/// Paper 002 §6: `senders` NDP senders, one 38-packet message each, into one receiver of
/// a 16-port switch, ideal trimming or Tofino-style trimming (4 pipes, the control loop's
/// periods as the paper's in packet times); 16 KiB per band at the bottleneck.
pub fn trimming(tofino: bool, senders: usize) -> String {
    trimming_shaped(tofino, senders, &TrimShape::paper())
}

/// The shape of a trimming run: the paper sweep's ([`TrimShape::paper`]) or the small
/// one the tests run ([`TrimShape::small`]).
#[derive(Clone, Copy, Debug)]
pub struct TrimShape {
    /// Scenario name prefix (`trim`, `trim3`).
    pub prefix: &'static str,
    pub ports: usize,
    /// Each sender's message, in packets.
    pub pkts: u64,
    pub rtt_pkts: u8,
    pub link_delay: u64,
    /// The bottleneck's byte limit per band.
    pub buffer_bytes: u64,
    /// Senders dealt over the pipes ([`trim_sender_ports`]), or on ports 1..=N.
    pub spread: bool,
}

impl TrimShape {
    /// 38-packet messages on a 16-port switch, 525 ns round trip, 16 KiB per band.
    pub fn paper() -> Self {
        Self {
            prefix: "trim",
            ports: 16,
            pkts: 38,
            rtt_pkts: INCAST_RTT_PKTS,
            link_delay: INCAST_LINK_DELAY,
            buffer_bytes: 16384,
            spread: true,
        }
    }

    /// As [`TrimShape::paper`], the senders on ports 1..=N (they fill the pipes in turn).
    pub fn packed() -> Self {
        Self {
            prefix: "trimpacked",
            spread: false,
            ..Self::paper()
        }
    }

    /// The test suite's: 38-packet messages on a 4-port switch (up to 3 senders, one per
    /// pipe), links of 60 cycles, `rtt_pkts` 4, 4 KiB per band.
    pub fn small() -> Self {
        Self {
            prefix: "trim3",
            ports: 4,
            pkts: 38,
            rtt_pkts: 4,
            link_delay: 60,
            buffer_bytes: 4096,
            spread: true,
        }
    }
}

/// The switch ports of an incast's `senders` on a switch of `ports` ports in `pipes` pipes
/// (input `i` in pipe `floor(i * pipes / ports)`), the receiver on port 0: dealt round
/// robin over the pipes (the first port of pipes 1, 2, …, then the second port of every
/// pipe, …), so that each pipe carries an equal share of the incast, give or take one
/// sender. Paper 002 §6.2 places the senders of one receiver so (sender `i` on port `i`
/// sends to port `i % 16`, so the senders of a receiver are 16 ports, one pipe, apart):
/// the control loop's rates are per pipe (pessimistic 25 %, half-pessimistic 50 % of the
/// port), made for a port whose load the pipes share. With `ports = pipes` (the 4-port
/// switch), ports 1, 2, 3.
pub fn trim_sender_ports(ports: usize, pipes: usize, senders: usize) -> Vec<usize> {
    assert!(pipes >= 1 && ports % pipes == 0 && senders < ports);
    let per = ports / pipes;
    let order: Vec<usize> = (0..per)
        .flat_map(|slot| (0..pipes).map(move |p| p * per + slot))
        .filter(|&port| port != 0)
        .collect();
    order[..senders].to_vec()
}

/// `senders` NDP senders, one message each, into one receiver, ideal or Tofino-style
/// trimming (4 pipes, the control loop's periods [`TRIM_T0`] and [`TRIM_T1`]), the run's
/// `shape`.
pub fn trimming_shaped(tofino: bool, senders: usize, shape: &TrimShape) -> String {
    let m = if tofino { "tofino" } else { "ideal" };
    let prefix = shape.prefix;
    let mut s = format!(
        "# Paper 002 §6: {senders}:1 incast of NDP messages, {} trimming (ntsim run {prefix}-{m}-{senders})\nname = \"{prefix}-{m}-{senders}\"\nseed = 1\nmax_cycles = 2000000\nsample_cycles = 160\n\n[[switch]]\nname = \"s0\"\nports = {}\nmode = \"{}\"\nband_by_flags = true\nbuffer_bytes = {}\nbuffer_pkts = 4095\npipes = {TRIM_PIPES}\n# paper 002 §6.2: T0 = 6 us (64 packets), T1 = 18 us, as 64 and 192 MTU times\nt0 = {TRIM_T0}\nt1 = {TRIM_T1}\n\n",
        if tofino { "Tofino-style" } else { "ideal" },
        shape.ports,
        if tofino { "tofino-trim" } else { "trim" },
        shape.buffer_bytes,
    );
    let ports: Vec<usize> = if shape.spread {
        trim_sender_ports(shape.ports, TRIM_PIPES, senders)
    } else {
        (1..=senders).collect()
    };
    for h in 0..=senders {
        let port = if h == 0 { 0 } else { ports[h - 1] };
        let _ = write!(
            s,
            "[[host]]\nname = \"h{h}\"\nprogram = \"ndp\"\nrtt_pkts = {}\n{}\n[[link]]\na = \"h{h}\"\nb = \"s0:{port}\"\ndelay = {}\n\n",
            shape.rtt_pkts,
            receiver_messages(h),
            shape.link_delay,
        );
    }
    let list: Vec<String> = (1..=senders).map(|h| format!("\"h{h}\"")).collect();
    let _ = write!(
        s,
        "[[workload]]\nkind = \"incast\"\nsenders = [{}]\nreceiver = \"h0\"\nsizes = [{}]\nstart = 10\n",
        list.join(", "),
        shape.pkts * 1024
    );
    s
}

/// The Bolt dumbbell: hosts `h1` and `h2` send to `h0` through a 4-port switch in Bolt
/// mode; every link at the switch's line rate (204.8 Gb/s: its supply matching counts 8
/// bytes a cycle).
///
/// A flow is one message, so it is at most 38 packets (the NIC's largest). The thesis's
/// dumbbell (100 Gb/s, 8 µs: a BDP of ~90 packets) would hold a whole flow in its first
/// window; ours keeps the ratio of flow to BDP instead: links of `link_delay` cycles give a
/// base round trip of ~`rtt_pkts` packets, so a 38-packet flow lasts about ten RTTs alone.
///
/// `CC_THRESH` is three MTUs of queued bytes: the shared switch counts a packet from its
/// admission (its 8th word) until its last row is read for sending, and it stores and
/// forwards, so a lone flow at line rate holds two full packets there (the one being sent,
/// the one arriving behind it); one more is Bolt's one MTU of queuing. With two MTUs a lone
/// flow drew an SRC for every other packet (measured on `bolt-lone`: 19 for 38).
#[derive(Clone, Copy, Debug)]
pub struct BoltShape {
    /// The hosts' `rtt_pkts`: a message's first window, and the BDP their reaction factor
    /// divides by.
    pub rtt_pkts: u8,
    /// The window at line rate, in packets: the base round trip over a full packet's 136
    /// cycles, to the nearest (the ramp-up measurements wait for it).
    pub bdp_pkts: u8,
    pub link_delay: u64,
    /// The base round trip (first DATA word out to its ACK back at the sender's link), in
    /// cycles, measured by `bolt-lone` ([`lone_flow_rtt`], tested): 685 cycles, ~5 full
    /// packets.
    pub base_rtt: u64,
    pub cc_thresh: u64,
    /// The joining flow's start (`bolt-join`), in cycles.
    pub second_start: u64,
    /// The cycle `h2`'s flow is rerouted (`bolt-reroute-*`).
    pub reroute_at: u64,
    /// The gap between the starts of the `bolt-util-*` flows, in cycles.
    pub stagger: u64,
}

impl Default for BoltShape {
    fn default() -> Self {
        Self {
            rtt_pkts: 5,
            bdp_pkts: 5,
            link_delay: 60,
            base_rtt: 685,
            cc_thresh: 3264,
            second_start: 2000,
            reroute_at: 4000,
            stagger: 1900,
        }
    }
}

impl BoltShape {
    /// The reroute's path, two switches and three links (`bolt_reroute`): base round trip
    /// 1,092 cycles, measured by `bolt-lone-path` ([`lone_flow_rtt`], tested), 8.0 full
    /// packets, so a BDP of 8 and a first window of 8.
    pub fn two_switches() -> Self {
        Self {
            rtt_pkts: 8,
            bdp_pkts: 8,
            base_rtt: 1092,
            ..Self::default()
        }
    }
}

/// Senders of the `bolt-util-*` runs (one per free port of the 4-port switch).
pub const BOLT_UTIL_SENDERS: usize = 3;

/// A Bolt topology's head: name, comment, run limit, sampling.
fn bolt_head(name: &str, about: &str) -> String {
    format!("# {about} (ntsim run {name})\nname = \"{name}\"\nseed = 1\nmax_cycles = 400000\nsample_cycles = 68\n\n")
}

/// A 4-port switch in Bolt mode: PRU on (`pru_cap` 255) or off (0), supply matching on or
/// off, `CC_THRESH` of `b`, buffers as large as the switch allows.
fn bolt_switch(name: &str, pru: bool, sm: bool, b: &BoltShape) -> String {
    format!(
        "[[switch]]\nname = \"{name}\"\nports = 4\nmode = \"bolt\"\ncc_thresh = {}\nmtu = 1088\npru_cap = {}\nsm = {sm}\nlink_rate = 200\nbuffer_bytes = 1048575\nbuffer_pkts = 4095\n\n",
        b.cc_thresh,
        if pru { 255 } else { 0 }
    )
}

/// A Bolt host linked to `port` (`switch:K`).
fn bolt_host(name: &str, port: &str, b: &BoltShape) -> String {
    format!(
        "[[host]]\nname = \"{name}\"\nprogram = \"bolt\"\nrtt_pkts = {}\n\n[[link]]\na = \"{name}\"\nb = \"{port}\"\ndelay = {}\n\n",
        b.rtt_pkts, b.link_delay
    )
}

/// A message workload: `(from, to, cycle, bytes)`.
fn bolt_messages(msgs: &[(&str, &str, u64, u64)]) -> String {
    let mut s = String::from("[[workload]]\nkind = \"messages\"\n");
    for (from, to, cycle, bytes) in msgs {
        let _ = write!(
            s,
            "[[workload.msg]]\nfrom = \"{from}\"\nto = \"{to}\"\ncycle = {cycle}\nbytes = {bytes}\n"
        );
    }
    s
}

/// A star of `hosts` Bolt hosts, `h0` to `h{hosts-1}` on ports 0.., around one 4-port
/// Bolt switch `s0`.
fn bolt_star(name: &str, about: &str, hosts: usize, pru: bool, sm: bool, b: &BoltShape) -> String {
    let mut s = bolt_head(name, about) + &bolt_switch("s0", pru, sm, b);
    for h in 0..hosts {
        s += &bolt_host(&format!("h{h}"), &format!("s0:{h}"), b);
    }
    s
}

fn bolt_dumbbell(name: &str, about: &str, pru: bool, b: &BoltShape) -> String {
    bolt_star(name, about, 3, pru, true, b)
}

/// Thesis §4.5.1, "a flow joins": `h1`'s 38-packet flow saturates the bottleneck; `h2`'s
/// joins at `second_start` with its first window at line rate.
pub fn bolt_join(b: &BoltShape) -> String {
    bolt_dumbbell(
        "bolt-join",
        "Thesis §4.5.1: a Bolt flow joins a saturated link",
        true,
        b,
    ) + &bolt_messages(&[("h1", "h0", 10, 38912), ("h2", "h0", b.second_start, 38912)])
}

/// Thesis §4.5.1, "a flow completes": `h1`'s 16-packet flow and `h2`'s 38-packet flow
/// share the bottleneck; when `h1`'s ends, `h2` ramps up with PRU tokens (`pru`) or on
/// supply matching alone (`pru_cap = 0`).
pub fn bolt_complete(b: &BoltShape, pru: bool) -> String {
    let name = if pru {
        "bolt-complete-pru"
    } else {
        "bolt-complete-nopru"
    };
    bolt_dumbbell(
        name,
        &format!(
            "Thesis §4.5.1: a Bolt flow completes, PRU {}",
            if pru { "on" } else { "off" }
        ),
        pru,
        b,
    ) + &bolt_messages(&[("h1", "h0", 10, 16384), ("h2", "h0", 10, 38912)])
}

/// Thesis §4.5.1, "a flow is rerouted" (Fig 4.12), supply matching on (`sm`) or off: two
/// 4-port Bolt switches, `s0` with senders `h1` (port 0) and `h2` (port 1), `s1` with
/// receivers `r1` (port 0) and `r2` (port 1), and two parallel links `s0:2`-`s1:2` and
/// `s0:3`-`s1:3`. Shortest paths (ties to the lowest port) put both 38-packet flows,
/// `h1 → r1` and `h2 → r2`, on `s0:2`, the bottleneck; at `reroute_at` a `[[route]]` sends
/// `r2`'s frames out of `s0:3`, so `h1`'s flow is alone on `s0:2` with no LAST packet to
/// hint it (no PRU token): supply matching, or without it additive increase (one packet a
/// window), must ramp it up. PRU stays on, as in the thesis.
pub fn bolt_reroute(b: &BoltShape, sm: bool) -> String {
    let name = if sm {
        "bolt-reroute-sm"
    } else {
        "bolt-reroute-nosm"
    };
    let mut s = bolt_path(
        name,
        &format!(
            "Thesis §4.5.1, Fig 4.12: a Bolt flow is rerouted, SM {}",
            if sm { "on" } else { "off" }
        ),
        sm,
        b,
    );
    s += &bolt_messages(&[("h1", "r1", 10, 38912), ("h2", "r2", 10, 38912)]);
    let _ = write!(
        s,
        "\n[[route]]\nswitch = \"s0\"\nhost = \"r2\"\nport = 3\ncycle = {}\n",
        b.reroute_at
    );
    s
}

/// The reroute's topology ([`bolt_reroute`]): `h1`, `h2` on Bolt switch `s0`, `r1`, `r2`
/// on `s1`, two parallel links `s0:2-s1:2` and `s0:3-s1:3`; no workload.
fn bolt_path(name: &str, about: &str, sm: bool, b: &BoltShape) -> String {
    let mut s = bolt_head(name, about);
    s += &bolt_switch("s0", true, sm, b);
    s += &bolt_switch("s1", true, sm, b);
    for (h, port) in [
        ("h1", "s0:0"),
        ("h2", "s0:1"),
        ("r1", "s1:0"),
        ("r2", "s1:1"),
    ] {
        s += &bolt_host(h, port, b);
    }
    for p in [2, 3] {
        let _ = write!(
            s,
            "[[link]]\na = \"s0:{p}\"\nb = \"s1:{p}\"\ndelay = {}\n\n",
            b.link_delay
        );
    }
    s
}

/// One 38-packet Bolt flow alone, from which the shapes' base round trips are measured
/// ([`lone_flow_rtt`]): `h1 → h0` on the dumbbell (`bolt-lone`, [`BoltShape::default`])
/// or `h1 → r1` on the reroute's path of two switches (`bolt-lone-path`,
/// [`BoltShape::two_switches`]); `h1`'s link is captured.
pub fn bolt_lone(path: bool) -> String {
    let (mut s, link) = if path {
        let b = BoltShape::two_switches();
        let s = bolt_path(
            "bolt-lone-path",
            "A lone Bolt flow over two switches: the reroute path's base round trip",
            true,
            &b,
        ) + &bolt_messages(&[("h1", "r1", 10, 38912)]);
        (s, "h1-s0:0")
    } else {
        let b = BoltShape::default();
        let s = bolt_dumbbell(
            "bolt-lone",
            "A lone Bolt flow on the dumbbell: its base round trip",
            true,
            &b,
        ) + &bolt_messages(&[("h1", "h0", 10, 38912)]);
        (s, "h1-s0:1")
    };
    let _ = write!(s, "\n[output]\npcap = [\"{link}\"]\n");
    s
}

/// The base round trip of `h1`'s flow in a [`bolt_lone`] run: from its first DATA frame's
/// first word on `h1`'s link to the first ACK's (a frame to `h1` that is not an SRC) on
/// that link, in cycles; and the SRCs `h1` received.
pub fn lone_flow_rtt(net: &crate::net::Network) -> Result<(u64, usize), String> {
    let l = net
        .links
        .iter()
        .find(|l| l.name.starts_with("h1-"))
        .ok_or("no link of h1: not a bolt-lone run")?;
    let frames = l.frames().ok_or("h1's link was not captured")?;
    let h1 = net
        .host_names
        .iter()
        .position(|n| n == "h1")
        .map(|i| net.host_ips[i].to_be_bytes())
        .ok_or("no host h1")?;
    let flags = crate::wire::BOLT_OFFSET + 4;
    let is_src = |b: &[u8]| b.len() > flags && b[flags] & nt_hdl::swif::BOLT_SRC != 0;
    let first_out = frames
        .iter()
        .find(|p| p.bytes.len() >= 34 && p.bytes[26..30] == h1)
        .ok_or("h1 sent nothing")?
        .cycle;
    let back: Vec<&crate::pcap::Packet> = frames
        .iter()
        .filter(|p| p.bytes.len() >= 34 && p.bytes[30..34] == h1)
        .collect();
    let srcs = back.iter().filter(|p| is_src(&p.bytes)).count();
    let ack = back
        .iter()
        .find(|p| p.cycle > first_out && !is_src(&p.bytes))
        .ok_or("no ACK came back to h1")?;
    Ok((ack.cycle - first_out, srcs))
}

/// Thesis §4.5.1, Table 4.1: `BOLT_UTIL_SENDERS` senders `h1`.. of one 38-packet message
/// each to `h0` through a 4-port Bolt switch, started `stagger` cycles apart so that they
/// complete at different times; PRU on (`pru_cap` 255) or off (0), supply matching on or
/// off. The bottleneck link `h0-s0:0` is captured: the utilization between the first
/// flow's completion and the last one's is measured on its frames ([`bolt_util_metrics`]).
pub fn bolt_util(b: &BoltShape, pru: bool, sm: bool) -> String {
    let name = bolt_util_name(pru, sm);
    let n = BOLT_UTIL_SENDERS;
    let mut s = bolt_star(
        &name,
        &format!(
            "Thesis §4.5.1, Table 4.1: {n} staggered Bolt flows into one receiver, PRU {}, SM {}",
            if pru { "on" } else { "off" },
            if sm { "on" } else { "off" }
        ),
        n + 1,
        pru,
        sm,
        b,
    );
    let names: Vec<String> = (1..=n).map(|h| format!("h{h}")).collect();
    let msgs: Vec<(&str, &str, u64, u64)> = names
        .iter()
        .enumerate()
        .map(|(k, h)| (h.as_str(), "h0", 10 + k as u64 * b.stagger, 38912))
        .collect();
    s += &bolt_messages(&msgs);
    s.push_str("\n[output]\npcap = [\"h0-s0:0\"]\n");
    s
}

/// `bolt-util-<pru|nopru>-<sm|nosm>`.
pub fn bolt_util_name(pru: bool, sm: bool) -> String {
    format!(
        "bolt-util-{}-{}",
        if pru { "pru" } else { "nopru" },
        if sm { "sm" } else { "nosm" }
    )
}

/// What the Bolt "flow joins" run shows: the bottleneck queue's peak after the second flow
/// started, when it fell below `CC_THRESH` again, and the first flow's window before the
/// join and at its smallest until then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoltJoin {
    pub peak_cycle: u64,
    pub peak_bytes: u64,
    pub drained_cycle: u64,
    pub w1_before: u64,
    pub w1_min: u64,
}

/// The samples of a Bolt run: `(cycle, window of host a, window of host b, bytes queued at
/// switch port q)`.
fn bolt_samples(
    r: &crate::net::RunResult,
    (a, b): (usize, usize),
    q: (usize, usize),
) -> Result<Vec<(u64, u64, u64, u64)>, String> {
    let s = &r.series;
    let qc = s
        .queue_cols
        .iter()
        .position(|&c| c == q)
        .ok_or("no sampled queue at the bottleneck: not a built-in Bolt run")?;
    if s.host_window.len() <= a.max(b) {
        return Err("too few hosts: not a built-in Bolt run".into());
    }
    Ok((0..s.cycles.len())
        .map(|k| {
            (
                s.cycles[k],
                s.host_window[a][k],
                s.host_window[b][k],
                s.queue[qc][k],
            )
        })
        .collect())
}

/// The dumbbell's samples: `h1`, `h2` and the queue at `s0:0`.
fn dumbbell_samples(r: &crate::net::RunResult) -> Result<Vec<(u64, u64, u64, u64)>, String> {
    bolt_samples(r, (1, 2), (0, 0))
}

/// Measures a [`bolt_join`] run of shape `b`.
pub fn bolt_join_metrics(r: &crate::net::RunResult, b: &BoltShape) -> Result<BoltJoin, String> {
    let s = dumbbell_samples(r)?;
    let w1_before = s
        .iter()
        .filter(|x| x.0 < b.second_start)
        .map(|x| x.1)
        .max()
        .ok_or("no sample before the join")?;
    let (peak_cycle, peak_bytes) = s
        .iter()
        .filter(|x| x.0 >= b.second_start && x.0 <= b.second_start + 4 * b.base_rtt)
        .map(|x| (x.0, x.3))
        .max_by_key(|x| (x.1, std::cmp::Reverse(x.0)))
        .ok_or("no sample after the join")?;
    let drained_cycle = s
        .iter()
        .find(|x| x.0 > peak_cycle && x.3 < b.cc_thresh)
        .map(|x| x.0)
        .ok_or("the queue never fell below CC_THRESH after the join")?;
    let w1_min = s
        .iter()
        .filter(|x| x.0 > peak_cycle && x.0 <= drained_cycle)
        .map(|x| x.1)
        .min()
        .unwrap_or(w1_before);
    Ok(BoltJoin {
        peak_cycle,
        peak_bytes,
        drained_cycle,
        w1_before,
        w1_min,
    })
}

/// Measures a [`bolt_complete`] run of shape `b`: `(the last sample with h1's window
/// open, cycles from then until h2's window first reaches the BDP)`.
pub fn bolt_ramp_metrics(r: &crate::net::RunResult, b: &BoltShape) -> Result<(u64, u64), String> {
    let s = dumbbell_samples(r)?;
    let done = s
        .iter()
        .filter(|x| x.1 > 0)
        .map(|x| x.0)
        .max()
        .ok_or("h1 never had a window")?;
    let full = s
        .iter()
        .find(|x| x.0 > done && x.2 >= b.bdp_pkts as u64)
        .map(|x| x.0)
        .ok_or("h2's window never reached the BDP after h1 ended")?;
    Ok((done, full - done))
}

/// What a [`bolt_reroute`] run shows about `h1`, the flow left alone on the bottleneck.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoltReroute {
    /// `h1`'s window at the last sample before the reroute.
    pub w_before: u64,
    /// Cycles from the reroute until `h1`'s window first reached the BDP (`bdp_pkts`).
    pub ramp: u64,
    /// `h1`'s largest window after the reroute.
    pub w_max_after: u64,
}

/// Measures a [`bolt_reroute`] run of shape `b` (from [`BoltShape::two_switches`]).
pub fn bolt_reroute_metrics(
    r: &crate::net::RunResult,
    b: &BoltShape,
) -> Result<BoltReroute, String> {
    let s = bolt_samples(r, (0, 1), (0, 2))?;
    let w_before = s
        .iter()
        .filter(|x| x.0 <= b.reroute_at)
        .last()
        .map(|x| x.1)
        .ok_or("no sample before the reroute")?;
    if w_before == 0 {
        return Err("h1's flow had ended before the reroute".into());
    }
    let full = s
        .iter()
        .find(|x| x.0 > b.reroute_at && x.1 >= b.bdp_pkts as u64)
        .map(|x| x.0)
        .ok_or("h1's window never reached the BDP after the reroute")?;
    Ok(BoltReroute {
        w_before,
        ramp: full - b.reroute_at,
        w_max_after: s
            .iter()
            .filter(|x| x.0 > b.reroute_at)
            .map(|x| x.1)
            .max()
            .unwrap_or(0),
    })
}

/// What a [`bolt_util`] run shows: the cycles the first and the last flow's last packet
/// left the bottleneck port (its last word), the cycles the port was sending in between,
/// and that as a share of the interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoltUtil {
    pub first_done: u64,
    pub last_done: u64,
    pub busy: u64,
    pub utilization: f64,
}

/// Measures a [`bolt_util`] run from the capture of its bottleneck link `h0-s0:0`: each
/// frame toward `h0` occupies the link one cycle per word from its first word's cycle.
pub fn bolt_util_metrics(net: &crate::net::Network) -> Result<BoltUtil, String> {
    let l = net
        .links
        .iter()
        .find(|l| l.name == "h0-s0:0")
        .ok_or("no link h0-s0:0: not a bolt-util run")?;
    let frames = l.frames().ok_or("link h0-s0:0 was not captured")?;
    let h0 = net.host_ips[0].to_be_bytes();
    // (first word, words, source IP) of every frame toward h0.
    let down: Vec<(u64, u64, [u8; 4])> = frames
        .iter()
        .filter(|p| p.bytes.len() >= 34 && p.bytes[30..34] == h0)
        .map(|p| {
            (
                p.cycle,
                (p.bytes.len() as u64).div_ceil(8),
                p.bytes[26..30].try_into().expect("4 bytes"),
            )
        })
        .collect();
    let mut ends: HashMap<[u8; 4], u64> = HashMap::new();
    for &(c, w, src) in &down {
        let e = ends.entry(src).or_insert(0);
        *e = (*e).max(c + w);
    }
    if ends.len() < 2 {
        return Err(format!("{} flows reached h0, want at least 2", ends.len()));
    }
    let first_done = *ends.values().min().expect("flows");
    let last_done = *ends.values().max().expect("flows");
    let busy: u64 = down
        .iter()
        .map(|&(c, w, _)| (c + w).min(last_done).saturating_sub(c.max(first_done)))
        .sum();
    Ok(BoltUtil {
        first_done,
        last_done,
        busy,
        utilization: busy as f64 / (last_done - first_done).max(1) as f64,
    })
}

/// The 2×2 table of the `bolt-util-*` runs (thesis Table 4.1): utilization in %, `-` for a
/// run not given. `rows`: `(pru, sm, utilization)`.
pub fn bolt_util_table(rows: &[(bool, bool, f64)]) -> String {
    let cell = |pru: bool, sm: bool| {
        rows.iter()
            .find(|r| (r.0, r.1) == (pru, sm))
            .map_or("-".to_string(), |r| format!("{:.2}", 100.0 * r.2))
    };
    format!(
        "| utilization (%) | PRU off | PRU on |\n|---|---|---|\n| SM off | {} | {} |\n| SM on | {} | {} |\n",
        cell(false, false),
        cell(true, false),
        cell(false, true),
        cell(true, true)
    )
}

/// `(pru, sm)` of a `bolt-util-*` run name.
pub fn bolt_util_flags(name: &str) -> Option<(bool, bool)> {
    let rest = name.strip_prefix("bolt-util-")?;
    let (p, m) = rest.split_once('-')?;
    let pru = match p {
        "pru" => true,
        "nopru" => false,
        _ => return None,
    };
    let sm = match m {
        "sm" => true,
        "nosm" => false,
        _ => return None,
    };
    Some((pru, sm))
}

/// The Bolt measurement line of a built-in Bolt run (`None` for other runs).
pub fn bolt_report(
    name: &str,
    net: &crate::net::Network,
    r: &crate::net::RunResult,
) -> Option<String> {
    let b = BoltShape::default();
    let rtt = |c: u64, b: &BoltShape| c as f64 / b.base_rtt as f64;
    let us = |c: u64| c as f64 / crate::DEFAULT_CLOCK_HZ * 1e6;
    if let Some((pru, sm)) = bolt_util_flags(name) {
        let onoff = |x: bool| if x { "on" } else { "off" };
        return Some(match bolt_util_metrics(net) {
            Ok(u) => format!(
                "Bolt, Table 4.1 (PRU {}, SM {}): bottleneck h0-s0:0 busy {} of the {} cycles from the first flow's end (cycle {}) to the last one's (cycle {}): utilization {:.2} %",
                onoff(pru),
                onoff(sm),
                u.busy,
                u.last_done - u.first_done,
                u.first_done,
                u.last_done,
                100.0 * u.utilization
            ),
            Err(e) => format!("Bolt, Table 4.1: not measured: {e}"),
        });
    }
    match name {
        "bolt-lone" | "bolt-lone-path" => Some(match lone_flow_rtt(net) {
            Ok((rtt, srcs)) => format!(
                "Bolt, a lone flow: base round trip {rtt} cycles = {:.2} full packets (the shape's base_rtt: {}); {srcs} SRCs",
                rtt as f64 / 136.0,
                if name == "bolt-lone" {
                    b.base_rtt
                } else {
                    BoltShape::two_switches().base_rtt
                }
            ),
            Err(e) => format!("Bolt, a lone flow: not measured: {e}"),
        }),
        "bolt-join" => Some(match bolt_join_metrics(r, &b) {
            Ok(m) => format!(
                "Bolt, a flow joins: queue peak {} B at cycle {}, below CC_THRESH ({} B) at cycle {}: {} cycles = {:.2} base RTTs after the peak (thesis: < 2 RTT); h1's window {} -> {}",
                m.peak_bytes,
                m.peak_cycle,
                b.cc_thresh,
                m.drained_cycle,
                m.drained_cycle - m.peak_cycle,
                rtt(m.drained_cycle - m.peak_cycle, &b),
                m.w1_before,
                m.w1_min
            ),
            Err(e) => format!("Bolt, a flow joins: not measured: {e}"),
        }),
        "bolt-complete-pru" | "bolt-complete-nopru" => Some(match bolt_ramp_metrics(r, &b) {
            Ok((done, ramp)) => format!(
                "Bolt, a flow completes ({}): h1's last window at cycle {done}; h2's window at the BDP ({} packets) {ramp} cycles later = {:.2} base RTTs = {:.2} us",
                if name.ends_with("nopru") { "PRU off" } else { "PRU on" },
                b.bdp_pkts,
                rtt(ramp, &b),
                us(ramp)
            ),
            Err(e) => format!("Bolt, a flow completes: not measured: {e}"),
        }),
        "bolt-reroute-sm" | "bolt-reroute-nosm" => {
            let b = BoltShape::two_switches();
            Some(match bolt_reroute_metrics(r, &b) {
                Ok(m) => format!(
                    "Bolt, a flow is rerouted ({}): h2 moved off the bottleneck at cycle {}; h1's window {} -> the BDP ({} packets) {} cycles later = {:.2} base RTTs ({} cycles) = {:.2} us (thesis: ~23 us with SM, > 33 RTT without)",
                    if name.ends_with("nosm") { "SM off" } else { "SM on" },
                    b.reroute_at,
                    m.w_before,
                    b.bdp_pkts,
                    m.ramp,
                    rtt(m.ramp, &b),
                    b.base_rtt,
                    us(m.ramp)
                ),
                Err(e) => format!("Bolt, a flow is rerouted: not measured: {e}"),
            })
        }
        _ => None,
    }
}

/// Programs of the loss sweep.
pub const LOSS_PROGRAMS: &[&str] = &["ndp", "homa", "homatr", "bolt"];
/// Loss rates of the test's sweep, in % of the frames of each link direction.
pub const LOSS_PCTS: &[u32] = &[0, 1, 5, 10];
/// Loss rates of `ntsim run loss-sweep`: the test's and two beyond, where a sender may
/// give up a message its receiver has (docs/reliability.md).
pub const LOSS_SWEEP_PCTS: &[u32] = &[0, 1, 5, 10, 20, 30];
/// Faults on every link of a loss run beside its loss: probabilities of corruption,
/// duplication and reordering, and the reordering window in cycles.
pub const LOSS_CORRUPT: f64 = 0.01;
pub const LOSS_DUPLICATE: f64 = 0.01;
pub const LOSS_REORDER: f64 = 0.05;
pub const LOSS_REORDER_WINDOW: u64 = 300;
/// The loss runs' retransmission timeout (cycles) and retry limit: the timeout a few
/// round trips of a 4-packet window on links of 60 cycles (about 700 cycles), the retries
/// enough that at 10 % loss a sender is not expected to give up a message whose receiver
/// has it.
pub const LOSS_TIMEOUT: u32 = 4000;
pub const LOSS_RETRIES: u8 = 10;
/// Message sizes of a loss run (message `k` has `LOSS_SIZES[k % 7]` bytes).
pub const LOSS_SIZES: &[u64] = &[100, 1500, 3000, 6000, 700, 4096, 8192];
/// Rounds of a loss run, [`LOSS_GAP`] cycles apart: six messages each, one from every
/// host to each other host.
pub const LOSS_ROUNDS: usize = 6;
pub const LOSS_GAP: u64 = 1500;

/// The name of a loss run.
pub fn loss_name(program: &str, pct: u32) -> String {
    format!("loss-{program}-{pct}")
}

/// `(program, loss %)` of a `loss-*` run name.
pub fn loss_flags(name: &str) -> Option<(&'static str, u32)> {
    let rest = name.strip_prefix("loss-")?;
    let (p, pct) = rest.split_once('-')?;
    let p = LOSS_PROGRAMS.iter().find(|&&x| x == p)?;
    let pct: u32 = pct.parse().ok()?;
    (pct <= 100).then_some((*p, pct))
}

/// A loss run: hosts `h0`, `h1`, `h2` running `program` on a 4-port switch `s0` in the
/// program's mode (NDP: trimming, bands by transport flags; Homa: drop-tail; Homa-Tr:
/// trimming; Bolt: Bolt with [`BoltShape`]'s `cc_thresh`), links of 60 cycles, each losing
/// `pct` % of its frames in each direction and corrupting, duplicating and reordering
/// some ([`LOSS_CORRUPT`], …); [`LOSS_ROUNDS`] rounds of six messages, one from every
/// host to each other host, of 100 B to 8 KiB ([`LOSS_SIZES`]), [`LOSS_GAP`] cycles
/// apart.
pub fn lossy(program: &str, pct: u32) -> String {
    let name = loss_name(program, pct);
    let mut s = format!(
        "# Link faults: {program} with {pct} % loss, {}% corruption, {}% duplication, {}% reordering within {LOSS_REORDER_WINDOW} cycles on every link (ntsim run {name})\nname = \"{name}\"\nseed = 1\nmax_cycles = 2000000\nsample_cycles = 200\n\n",
        LOSS_CORRUPT * 100.0,
        LOSS_DUPLICATE * 100.0,
        LOSS_REORDER * 100.0
    );
    s += &match program {
        "ndp" => "[[switch]]\nname = \"s0\"\nports = 4\nmode = \"trim\"\nband_by_flags = true\n\n"
            .to_string(),
        "homa" => "[[switch]]\nname = \"s0\"\nports = 4\nmode = \"droptail\"\n\n".to_string(),
        "homatr" => "[[switch]]\nname = \"s0\"\nports = 4\nmode = \"trim\"\n\n".to_string(),
        _ => bolt_switch("s0", true, true, &BoltShape::default()),
    };
    for h in 0..3 {
        let _ = write!(
            s,
            "[[host]]\nname = \"h{h}\"\nprogram = \"{program}\"\nrtt_pkts = 4\ntimeout = {LOSS_TIMEOUT}\nretries = {LOSS_RETRIES}\n\n[[link]]\na = \"h{h}\"\nb = \"s0:{h}\"\ndelay = 60\nloss = {}\ncorrupt = {LOSS_CORRUPT}\nduplicate = {LOSS_DUPLICATE}\nreorder = {LOSS_REORDER}\nreorder_window = {LOSS_REORDER_WINDOW}\n\n",
            pct as f64 / 100.0
        );
    }
    s.push_str("[[workload]]\nkind = \"messages\"\n");
    for k in 0..6 * LOSS_ROUNDS {
        let from = k % 3;
        let to = (from + 1 + (k / 3) % 2) % 3;
        let _ = write!(
            s,
            "[[workload.msg]]\nfrom = \"h{from}\"\nto = \"h{to}\"\ncycle = {}\nbytes = {}\n",
            10 + (k / 6) as u64 * LOSS_GAP,
            LOSS_SIZES[k % LOSS_SIZES.len()]
        );
    }
    s
}

/// One row of the loss table: what became of a run's messages and what its links did.
#[derive(Clone, Debug, PartialEq)]
pub struct LossRow {
    pub program: String,
    pub pct: u32,
    pub messages: usize,
    /// Messages that reached their receiver's application.
    pub delivered: usize,
    /// Messages their senders gave up.
    pub gave_up: usize,
    /// Messages delivered and given up (the sender never heard of the delivery).
    pub both: usize,
    /// Messages handed to their application more than once, and deliveries with a wrong
    /// payload.
    pub twice: usize,
    pub corrupt: u64,
    /// Median FCT (cycles) and slowdown of the delivered messages.
    pub median_fct: Option<u64>,
    pub median_slowdown: Option<f64>,
    /// Every link's counters, both directions added.
    pub links: crate::link::LinkStats,
    /// DATA packets the senders retransmitted.
    pub retransmitted: u64,
    pub cycles: u64,
    pub settled: bool,
}

/// The row of a loss run (`None` for another run).
pub fn loss_row(
    name: &str,
    net: &crate::net::Network,
    r: &crate::net::RunResult,
) -> Option<LossRow> {
    let (program, pct) = loss_flags(name)?;
    let m = &net.msgs;
    let mut fcts: Vec<f64> = m.iter().filter_map(|x| x.fct()).map(|f| f as f64).collect();
    let mut sd = crate::net_report::slowdowns(net);
    let mut links = crate::link::LinkStats::default();
    for l in &net.links {
        for d in &l.dir {
            links.add(&d.stats);
        }
    }
    Some(LossRow {
        program: program.to_string(),
        pct,
        messages: m.len(),
        delivered: m.iter().filter(|x| x.done.is_some()).count(),
        gave_up: m
            .iter()
            .filter(|x| x.outcome == Some(crate::nic_sim::Outcome::GaveUp))
            .count(),
        both: m
            .iter()
            .filter(|x| x.done.is_some() && x.outcome == Some(crate::nic_sim::Outcome::GaveUp))
            .count(),
        twice: m.iter().filter(|x| x.deliveries > 1).count(),
        corrupt: net.corrupt,
        median_fct: crate::net_report::quantile(&mut fcts, 0.5).map(|f| f as u64),
        median_slowdown: crate::net_report::quantile(&mut sd, 0.5),
        links,
        retransmitted: r.host_stats.iter().map(|h| h.tx_retransmitted).sum(),
        cycles: r.cycles,
        settled: r.settled,
    })
}

/// The loss table of some loss runs' rows (markdown).
pub fn loss_table(rows: &[LossRow]) -> String {
    let mut t = String::from(
        "| program | loss % | messages | delivered | given up | delivered and given up | delivered twice or wrong | median FCT (cycles) | median slowdown | frames offered | lost | corrupted / FCS drops | duplicated | reordered | retransmitted DATA | cycles |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let l = &r.links;
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} | {} | {} | {}{} |",
            r.program,
            r.pct,
            r.messages,
            r.delivered,
            r.gave_up,
            r.both,
            r.twice as u64 + r.corrupt,
            r.median_fct.map_or("-".into(), |f| f.to_string()),
            r.median_slowdown.map_or("-".into(), |x| format!("{x:.2}")),
            l.offered,
            l.lost,
            l.corrupted,
            l.fcs_drops,
            l.duplicated,
            l.reordered,
            r.retransmitted,
            r.cycles,
            if r.settled { "" } else { " (stopped)" }
        );
    }
    t
}
