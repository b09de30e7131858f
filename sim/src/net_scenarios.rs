//! The built-in scenarios of `ntsim run NAME`, as topology files ([`crate::net`]):
//! `ntsim run --print NAME` shows one, to copy and change.
//!
//! * `demo`: three NDP senders, one message each (4, 6 and 8 packets), to one receiver
//!   through a 4-port trimming switch; the README's main command.
//! * `incast-<ndp|homa|homatr>-<big|54k>`: thesis §3.4.2, Fig 3.2: ten senders, one
//!   message each of 20, 22, …, 38 MTU packets, to one receiver through a 16-port switch,
//!   every link at line rate (204.8 Gb/s), 525 ns (1,680 cycles) round trip, the
//!   bottleneck's buffer limit either as large as the switch allows or 54 KiB per band.
//!   NDP runs on a trimming switch with bands by transport flags, Homa on a drop-tail
//!   switch with bands by `tos` (its grant priorities), Homa-Tr on a trimming switch with
//!   bands by `tos`.
//! * `incast`: all six, and a comparison table.
//! * `trim-<ideal|tofino>-N`: paper 002 §6: N (1..=15) NDP senders, one 38-packet message
//!   each, into one receiver of a 16-port switch with ideal or Tofino-style trimming;
//!   `trim`: N = 1, 2, 4, 8, 15 in both modes, and a comparison table.
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

/// The names `ntsim run` knows.
pub fn names() -> Vec<String> {
    let mut v = vec!["demo".to_string(), "incast".to_string()];
    for p in ["ndp", "homa", "homatr"] {
        for b in ["big", "54k"] {
            v.push(format!("incast-{p}-{b}"));
        }
    }
    v.push("trim".to_string());
    for m in ["ideal", "tofino"] {
        v.push(format!("trim-{m}-N (N = 1..=15)"));
    }
    v
}

/// The runs of a name: `(run name, topology)`. `None` for an unknown name.
pub fn runs(name: &str) -> Option<Vec<(String, String)>> {
    if name == "demo" {
        return Some(vec![("demo".into(), demo())]);
    }
    if name == "incast" {
        let mut v = vec![];
        for b in ["big", "54k"] {
            for p in ["ndp", "homa", "homatr"] {
                let n = format!("incast-{p}-{b}");
                v.push((n.clone(), incast(p, b == "big", 10)));
            }
        }
        return Some(v);
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
    if let Some(rest) = name.strip_prefix("trim-") {
        let (m, n) = rest.split_once('-')?;
        let n: usize = n.parse().ok()?;
        if !["ideal", "tofino"].contains(&m) || !(1..=15).contains(&n) {
            return None;
        }
        return Some(vec![(name.to_string(), trimming(m == "tofino", n))]);
    }
    let rest = name.strip_prefix("incast-")?;
    let (p, b) = rest.split_once('-')?;
    if !["ndp", "homa", "homatr"].contains(&p) || !["big", "54k"].contains(&b) {
        return None;
    }
    Some(vec![(name.to_string(), incast(p, b == "big", 10))])
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

/// Thesis Fig 3.2 with `senders` senders (10 in the thesis).
pub fn incast(program: &str, big: bool, senders: usize) -> String {
    let (mode, by_flags) = match program {
        "ndp" => ("trim", true),
        "homa" => ("droptail", false),
        _ => ("trim", false),
    };
    let (bytes, pkts) = if big {
        (1_048_575, 4095)
    } else {
        (54 * 1024, 4095)
    };
    let mut s = format!(
        "# Thesis Fig 3.2: {senders}:1 incast, {program}, bottleneck buffer {} (ntsim run incast-{program}-{})\nname = \"incast-{program}-{}\"\nseed = 1\nmax_cycles = 2000000\nsample_cycles = 160\n\n[[switch]]\nname = \"s0\"\nports = 16\nmode = \"{mode}\"\nband_by_flags = {by_flags}\nbuffer_bytes = {bytes}\nbuffer_pkts = {pkts}\n\n",
        if big { "as large as the switch allows" } else { "54 KiB per band" },
        if big { "big" } else { "54k" },
        if big { "big" } else { "54k" },
    );
    for h in 0..=senders {
        let _ = write!(
            s,
            "[[host]]\nname = \"h{h}\"\nprogram = \"{program}\"\nrtt_pkts = {INCAST_RTT_PKTS}\n\n[[link]]\na = \"h{h}\"\nb = \"s0:{h}\"\ndelay = {INCAST_LINK_DELAY}\n\n"
        );
    }
    let senders_list: Vec<String> = (1..=senders).map(|h| format!("\"h{h}\"")).collect();
    let sizes: Vec<String> = (0..senders)
        .map(|i| ((20 + 2 * i as u64).min(38) * 1024).to_string())
        .collect();
    let _ = write!(
        s,
        "[[workload]]\nkind = \"incast\"\nsenders = [{}]\nreceiver = \"h0\"\nsizes = [{}]\nstart = 10\n",
        senders_list.join(", "),
        sizes.join(", ")
    );
    s
}

/// Paper 002 §6: `senders` NDP senders, one 38-packet message each, into one receiver of
/// a 16-port switch, ideal trimming or Tofino-style trimming (4 pipes, the control loop at
/// its 6 µs defaults); 16 KiB per band at the bottleneck.
pub fn trimming(tofino: bool, senders: usize) -> String {
    let m = if tofino { "tofino" } else { "ideal" };
    let mut s = format!(
        "# Paper 002 §6: {senders}:1 incast of NDP messages, {} trimming (ntsim run trim-{m}-{senders})\nname = \"trim-{m}-{senders}\"\nseed = 1\nmax_cycles = 2000000\nsample_cycles = 160\n\n[[switch]]\nname = \"s0\"\nports = 16\nmode = \"{}\"\nband_by_flags = true\nbuffer_bytes = 16384\nbuffer_pkts = 4095\npipes = 4\n\n",
        if tofino { "Tofino-style" } else { "ideal" },
        if tofino { "tofino-trim" } else { "trim" },
    );
    for h in 0..=senders {
        let _ = write!(
            s,
            "[[host]]\nname = \"h{h}\"\nprogram = \"ndp\"\nrtt_pkts = {INCAST_RTT_PKTS}\n\n[[link]]\na = \"h{h}\"\nb = \"s0:{h}\"\ndelay = {INCAST_LINK_DELAY}\n\n"
        );
    }
    let list: Vec<String> = (1..=senders).map(|h| format!("\"h{h}\"")).collect();
    let _ = write!(
        s,
        "[[workload]]\nkind = \"incast\"\nsenders = [{}]\nreceiver = \"h0\"\nsizes = [38912]\nstart = 10\n",
        list.join(", ")
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::NetConfig;

    #[test]
    fn every_builtin_parses() {
        for n in names() {
            for (r, t) in runs(&n.replace("N (N = 1..=15)", "7")).unwrap() {
                NetConfig::from_toml(&t).unwrap_or_else(|e| panic!("{r}: {e}"));
            }
        }
        assert!(runs("nope").is_none());
        assert!(runs("incast-tcp-big").is_none());
        assert_eq!(runs("incast").unwrap().len(), 6);
        assert_eq!(runs("trim").unwrap().len(), 2 * TRIM_SENDERS.len());
        assert!(runs("trim-ideal-16").is_none());
        assert!(runs("trim-tofino-3").is_some());
    }
}
