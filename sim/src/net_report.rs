//! What `ntsim run` writes for a network run ([`crate::net`]): CSV time series, the
//! messages with their completion times and slowdowns, SVG plots, link captures, and a
//! summary table (also printed).
use crate::link::LinkStats;
use crate::net::{End, HostStats, Network, RunResult};
use crate::nic_sim::Outcome;
use crate::pcap::write_pcap;
use crate::DEFAULT_CLOCK_HZ;
use std::fmt::Write as _;
use std::path::Path;

/// Cycles → microseconds at the model's clock.
pub fn us(cycles: u64) -> f64 {
    cycles as f64 / DEFAULT_CLOCK_HZ * 1e6
}

/// The `q`-quantile (0..=1) of `v` (sorted in place), nearest rank.
pub fn quantile(v: &mut [f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
    Some(v[i])
}

/// Slowdowns of the delivered messages.
pub fn slowdowns(net: &Network) -> Vec<f64> {
    net.msgs.iter().filter_map(|m| m.slowdown()).collect()
}

/// Bytes delivered over the span from the first message's start to the last delivery,
/// in Gb/s at the model's clock.
pub fn goodput_gbps(net: &Network) -> Option<f64> {
    let done: Vec<_> = net.msgs.iter().filter(|m| m.done.is_some()).collect();
    let start = done.iter().map(|m| m.start).min()?;
    let end = done.iter().filter_map(|m| m.done).max()?;
    let bytes: u64 = done.iter().map(|m| m.bytes).sum();
    Some(bytes as f64 * 8.0 / ((end - start).max(1) as f64 / DEFAULT_CLOCK_HZ) / 1e9)
}

/// Jain's fairness index of the delivered messages' rates (bytes / FCT): 1 when equal.
pub fn jain(net: &Network) -> Option<f64> {
    let r: Vec<f64> = net
        .msgs
        .iter()
        .filter_map(|m| m.fct().map(|f| m.bytes as f64 / f.max(1) as f64))
        .collect();
    if r.is_empty() {
        return None;
    }
    let s: f64 = r.iter().sum();
    let s2: f64 = r.iter().map(|x| x * x).sum();
    Some(s * s / (r.len() as f64 * s2))
}

/// The throughput plot's lines: each message sender's send rate (its NIC's frames, with
/// the control packets it sends), each message receiver's goodput (payload handed to its
/// application), both over the sample intervals `xs` of `s`, and a reference line at
/// every rate a receiver can take (line rate, or its link's `rate_gbps`). `gbps` turns an
/// interval's bytes into Gb/s.
fn throughput_series(
    net: &Network,
    s: &crate::net::Series,
    xs: &[f64],
    gbps: &dyn Fn(u64) -> f64,
) -> Vec<(String, Vec<(f64, f64)>)> {
    let hosts = |f: fn(&crate::net::MsgRecord) -> usize| {
        let mut v: Vec<usize> = net.msgs.iter().map(f).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let line =
        |v: &[u64]| -> Vec<(f64, f64)> { xs.iter().zip(v).map(|(&x, &b)| (x, gbps(b))).collect() };
    let mut out: Vec<(String, Vec<(f64, f64)>)> = vec![];
    for h in hosts(|m| m.src) {
        if let Some(v) = s.host_tx.get(h).filter(|v| v.iter().any(|&b| b > 0)) {
            out.push((format!("{} tx", net.host_names[h]), line(v)));
        }
    }
    let mut rates: Vec<f64> = vec![];
    for h in hosts(|m| m.dst) {
        if let Some(v) = s.host_rx.get(h).filter(|v| v.iter().any(|&b| b > 0)) {
            out.push((format!("{} goodput", net.host_names[h]), line(v)));
            let r = net.host_rx_gbps(h);
            if !rates.iter().any(|&x| (x - r).abs() < 1e-9) {
                rates.push(r);
            }
        }
    }
    if let (Some(&x0), Some(&x1)) = (xs.first(), xs.last()) {
        for r in rates {
            out.push((format!("{r:.1} Gb/s"), vec![(x0, r), (x1, r)]));
        }
    }
    out
}

/// Delivered messages' slowdowns in one size bin.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeBin {
    /// Sizes `from..=to` bytes: `to` a power of two, `from = to / 2 + 1` (1 for the
    /// first bin).
    pub from: u64,
    pub to: u64,
    pub messages: usize,
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

/// The delivered messages' slowdowns by size, in bins of powers of two (`(2^(k-1), 2^k]`
/// bytes), nearest-rank p50, p99 and max; only bins that hold a message.
pub fn slowdown_bins(net: &Network) -> Vec<SizeBin> {
    let mut by: std::collections::BTreeMap<u32, Vec<f64>> = Default::default();
    for m in &net.msgs {
        if let Some(x) = m.slowdown() {
            let k = m.bytes.max(1).next_power_of_two().trailing_zeros();
            by.entry(k).or_default().push(x);
        }
    }
    by.into_iter()
        .map(|(k, mut v)| SizeBin {
            from: if k == 0 { 1 } else { (1u64 << (k - 1)) + 1 },
            to: 1u64 << k,
            messages: v.len(),
            p50: quantile(&mut v, 0.5).unwrap_or(0.0),
            p99: quantile(&mut v, 0.99).unwrap_or(0.0),
            max: quantile(&mut v, 1.0).unwrap_or(0.0),
        })
        .collect()
}

fn write(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    let p = dir.join(name);
    std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
}

/// Writes plot `name` (`queues.svg`) and, with `png`, the same plot as PNG beside it.
fn write_plot(dir: &Path, name: &str, svg: &str, png: bool) -> Result<(), String> {
    write(dir, name, svg)?;
    if png {
        let p = dir.join(name).with_extension("png");
        std::fs::write(&p, png_of_svg(svg)?)
            .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    }
    Ok(())
}

/// The system's fonts, loaded once per process.
fn fonts() -> Result<std::sync::Arc<resvg::usvg::fontdb::Database>, String> {
    use std::sync::{Arc, OnceLock};
    static DB: OnceLock<Arc<resvg::usvg::fontdb::Database>> = OnceLock::new();
    let db = DB.get_or_init(|| {
        let mut db = resvg::usvg::fontdb::Database::new();
        db.load_system_fonts();
        // The plots ask for `sans-serif`: the first of these the system has, else any font.
        let families: Vec<String> = db
            .faces()
            .flat_map(|f| f.families.iter().map(|(n, _)| n.clone()))
            .collect();
        let pick = [
            "DejaVu Sans",
            "Liberation Sans",
            "Noto Sans",
            "FreeSans",
            "Lato",
        ]
        .iter()
        .map(|s| s.to_string())
        .find(|f| families.contains(f))
        .or_else(|| families.first().cloned());
        if let Some(f) = pick {
            db.set_sans_serif_family(f);
        }
        Arc::new(db)
    });
    if db.is_empty() {
        return Err(
            "PNG plots need a font and this system has none: install one (Debian: apt-get install fonts-dejavu-core)"
                .into(),
        );
    }
    Ok(db.clone())
}

/// An SVG plot rendered to PNG at twice its size (resvg; text in the system's sans-serif).
pub fn png_of_svg(svg: &str) -> Result<Vec<u8>, String> {
    let opts = resvg::usvg::Options {
        fontdb: fonts()?,
        ..Default::default()
    };
    let tree = resvg::usvg::Tree::from_str(svg, &opts).map_err(|e| format!("plot: {e}"))?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(2.0)
        .ok_or("plot: empty")?;
    let mut pm = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).ok_or("plot: empty")?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(2.0, 2.0),
        &mut pm.as_mut(),
    );
    pm.encode_png().map_err(|e| format!("plot: PNG: {e}"))
}

/// The summary table.
pub fn summary(net: &Network, r: &RunResult) -> String {
    let mut s = String::new();
    let n = &net.msgs;
    let count = |o: Outcome| n.iter().filter(|m| m.outcome == Some(o)).count();
    let delivered = n.iter().filter(|m| m.done.is_some()).count();
    let _ = writeln!(
        s,
        "network {}: {} hosts, {} switches, {} links",
        net.name,
        net.host_names.len(),
        net.switch_names.len(),
        net.links.len()
    );
    let _ = writeln!(
        s,
        "cycles {} ({:.2} us at {:.1} GHz), {}; wall {:.1} s, {:.0} cycles/s",
        r.cycles,
        us(r.cycles),
        DEFAULT_CLOCK_HZ / 1e9,
        if r.settled {
            "settled"
        } else {
            "STOPPED at max_cycles"
        },
        r.wall_secs,
        r.cycles as f64 / r.wall_secs.max(1e-9)
    );
    let _ = writeln!(
        s,
        "messages {}: delivered to the receiver {}, acknowledged {}, gave up {}, refused {}, open {}",
        n.len(),
        delivered,
        count(Outcome::Delivered),
        count(Outcome::GaveUp),
        count(Outcome::Refused),
        net.open_messages()
    );
    if net.corrupt > 0 {
        let _ = writeln!(s, "DELIVERIES WITH A WRONG PAYLOAD: {}", net.corrupt);
    }
    if net.untagged > 0 {
        let _ = writeln!(
            s,
            "deliveries matching no message to their host: {}",
            net.untagged
        );
    }
    let twice = n.iter().filter(|m| m.deliveries > 1).count();
    if twice > 0 {
        let _ = writeln!(s, "MESSAGES DELIVERED MORE THAN ONCE: {twice}");
    }
    let both = n
        .iter()
        .filter(|m| m.done.is_some() && m.outcome == Some(Outcome::GaveUp))
        .count();
    if both > 0 {
        let _ = writeln!(
            s,
            "messages delivered but given up by their senders (their retries ran out before an acknowledgement came through): {both}"
        );
    }
    if let (Some(g), Some(j)) = (goodput_gbps(net), jain(net)) {
        let _ = writeln!(
            s,
            "goodput {g:.1} Gb/s (first start to last delivery), Jain fairness of message rates {j:.3}"
        );
    }
    let mut sd = slowdowns(net);
    if !sd.is_empty() {
        let mean = sd.iter().sum::<f64>() / sd.len() as f64;
        let _ = writeln!(
            s,
            "slowdown: median {:.2}, mean {:.2}, p99 {:.2}, max {:.2}",
            quantile(&mut sd, 0.5).unwrap_or(0.0),
            mean,
            quantile(&mut sd, 0.99).unwrap_or(0.0),
            quantile(&mut sd, 1.0).unwrap_or(0.0)
        );
    }
    for (i, st) in r.switch_stats.iter().enumerate() {
        let sum = |f: &dyn Fn(&crate::switch_workload::PortStats) -> u64| -> u64 {
            st.iter().map(f).sum()
        };
        let _ = writeln!(
            s,
            "switch {}: rx {} tx {} frames; trimmed {}, returned {}, header drops {}, full drops {}, malformed {}, unrouted {}, SRC sent {}, DoD trims {}, DoD drops {}",
            net.switch_names[i],
            sum(&|p| p.rx_frames),
            sum(&|p| p.tx_frames),
            sum(&|p| p.trimmed),
            sum(&|p| p.returned),
            sum(&|p| p.drop_header),
            sum(&|p| p.drop_full),
            sum(&|p| p.drop_malformed),
            sum(&|p| p.drop_no_route),
            sum(&|p| p.src_sent),
            sum(&|p| p.dod_trims),
            sum(&|p| p.dod_drop),
        );
    }
    s.push_str(&link_summary(net));
    if !r.host_stats.is_empty() {
        let sum = |f: &dyn Fn(&HostStats) -> u64| -> u64 { r.host_stats.iter().map(f).sum() };
        let _ = writeln!(
            s,
            "NICs: rx {} DATA ({} trimmed, {} dropped for want of a buffer, {} late duplicates), {} control, {} receive timeouts; tx {} DATA ({} retransmitted, {} probes), {} control",
            sum(&|h| h.rx_data),
            sum(&|h| h.rx_trimmed),
            sum(&|h| h.rx_lookup_fail),
            sum(&|h| h.rx_late_dups),
            sum(&|h| h.rx_ctrl),
            sum(&|h| h.rx_timeouts),
            sum(&|h| h.tx_data),
            sum(&|h| h.tx_retransmitted),
            sum(&|h| h.tx_probes),
            sum(&|h| h.tx_ctrl),
        );
        for (h, st) in r.host_stats.iter().enumerate() {
            if st.rx_lookup_fail > 0 {
                let _ = writeln!(
                    s,
                    "host {}: {} DATA packets found no free receive buffer and were dropped (their senders retransmit after a timeout); the default NIC holds four concurrent messages over 8 KiB, one with `messages = 128` sixteen",
                    net.host_names[h], st.rx_lookup_fail
                );
            }
        }
    }
    for (c, &(sw, port)) in r.series.queue_cols.iter().enumerate() {
        let max = r.series.queue[c].iter().copied().max().unwrap_or(0);
        if max > 0 {
            let _ = writeln!(
                s,
                "queue {}:{port}: max {max} bytes (sampled every {} cycles)",
                net.switch_names[sw], net.sample_cycles
            );
        }
    }
    if n.len() <= 64 {
        let _ = writeln!(
            s,
            "\n| msg | from | to | bytes | start (cycle) | FCT (cycles) | FCT (us) | ideal (cycles) | slowdown | outcome |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|");
        for (i, m) in n.iter().enumerate() {
            let _ = writeln!(
                s,
                "| {i} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                net.host_names[m.src],
                net.host_names[m.dst],
                m.bytes,
                m.start,
                m.fct().map_or("-".into(), |f| f.to_string()),
                m.fct().map_or("-".into(), |f| format!("{:.3}", us(f))),
                m.ideal,
                m.slowdown().map_or("-".into(), |x| format!("{x:.2}")),
                outcome_name(m.outcome)
            );
        }
    }
    s
}

/// The links' fault counters in the summary: when a link has faults, their sums and a
/// line per faulty direction (at most 32 lines).
pub fn link_summary(net: &Network) -> String {
    let mut s = String::new();
    let faulty: Vec<(usize, usize)> = net
        .links
        .iter()
        .enumerate()
        .flat_map(|(i, l)| {
            (0..2)
                .map(move |d| (i, d))
                .filter(|&(_, d)| !l.dir[d].cfg().is_ideal())
        })
        .collect();
    if faulty.is_empty() {
        return s;
    }
    let line = |st: &LinkStats| {
        format!(
            "offered {}, delivered {}; lost {}, corrupted {} (dropped by the FCS check {}), duplicated {}, reordered {}, dropped while down {}",
            st.offered,
            st.delivered,
            st.lost,
            st.corrupted,
            st.fcs_drops,
            st.duplicated,
            st.reordered,
            st.down_dropped
        )
    };
    let mut all = LinkStats::default();
    for l in &net.links {
        for d in &l.dir {
            all.add(&d.stats);
        }
    }
    let _ = writeln!(s, "links, all frames: {}", line(&all));
    for &(i, d) in faulty.iter().take(32) {
        let l = &net.links[i];
        let _ = writeln!(
            s,
            "link {} {}: {}",
            l.name,
            dir_name(net, i, d),
            line(&l.dir[d].stats)
        );
    }
    if faulty.len() > 32 {
        let _ = writeln!(
            s,
            "({} more faulty link directions in links.csv)",
            faulty.len() - 32
        );
    }
    s
}

/// An endpoint's name as written in the topology (`h0`, `s0:3`).
fn end_name(net: &Network, e: End) -> String {
    match e {
        End::Host(h) => net.host_names[h].clone(),
        End::Port(sw, p) => format!("{}:{p}", net.switch_names[sw]),
    }
}

/// Direction `d` of link `i`: `from>to`.
fn dir_name(net: &Network, i: usize, d: usize) -> String {
    let e = net.links[i].ends;
    format!("{}>{}", end_name(net, e[d]), end_name(net, e[1 - d]))
}

/// `links.csv`: per link and direction, its delay and its counters.
pub fn links_csv(net: &Network) -> String {
    let cols: Vec<&str> = LinkStats::default().fields().iter().map(|f| f.0).collect();
    let mut t = format!("link,from,to,delay,{}\n", cols.join(","));
    for l in &net.links {
        for d in 0..2 {
            let v: Vec<String> = l.dir[d]
                .stats
                .fields()
                .iter()
                .map(|f| f.1.to_string())
                .collect();
            let _ = writeln!(
                t,
                "{},{},{},{},{}",
                l.name,
                end_name(net, l.ends[d]),
                end_name(net, l.ends[1 - d]),
                l.delay,
                v.join(",")
            );
        }
    }
    t
}

fn outcome_name(o: Option<Outcome>) -> &'static str {
    match o {
        Some(Outcome::Delivered) => "delivered",
        Some(Outcome::GaveUp) => "gave up",
        Some(Outcome::Refused) => "refused",
        None => "open",
    }
}

/// Writes every output of a run into `dir` (created): `summary.txt`, `messages.csv`,
/// `hosts.csv`, `links.csv`, `queues.csv`, `throughput.csv`, `windows.csv`, `queues.svg`,
/// `throughput.svg`, `windows.svg`,
/// `slowdown.svg`, and the captured links' pcaps, one per direction
/// ([`crate::net::capture_file`]).
pub fn write_outputs(
    net: &Network,
    r: &RunResult,
    dir: &Path,
    png: bool,
) -> Result<String, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let sum = summary(net, r);
    write(dir, "summary.txt", &sum)?;
    // Messages.
    let mut m = String::from(
        "msg,src,dst,bytes,start_cycle,done_cycle,fct_cycles,ideal_cycles,slowdown,outcome\n",
    );
    for (i, x) in net.msgs.iter().enumerate() {
        let _ = writeln!(
            m,
            "{i},{},{},{},{},{},{},{},{},{}",
            net.host_names[x.src],
            net.host_names[x.dst],
            x.bytes,
            x.start,
            x.done.map_or(String::new(), |d| d.to_string()),
            x.fct().map_or(String::new(), |d| d.to_string()),
            x.ideal,
            x.slowdown().map_or(String::new(), |d| format!("{d:.4}")),
            outcome_name(x.outcome)
        );
    }
    write(dir, "messages.csv", &m)?;
    // NIC counters per host.
    let cols: Vec<&str> = HostStats::default().fields().iter().map(|f| f.0).collect();
    let mut h = format!("host,{}\n", cols.join(","));
    for (i, st) in r.host_stats.iter().enumerate() {
        let v: Vec<String> = st.fields().iter().map(|f| f.1.to_string()).collect();
        let _ = writeln!(h, "{},{}", net.host_names[i], v.join(","));
    }
    write(dir, "hosts.csv", &h)?;
    write(dir, "links.csv", &links_csv(net))?;
    // Queues.
    let s = &r.series;
    let qnames: Vec<String> = s
        .queue_cols
        .iter()
        .map(|&(sw, p)| format!("{}:{p}", net.switch_names[sw]))
        .collect();
    let mut q = format!("cycle,{}\n", qnames.join(","));
    for (k, c) in s.cycles.iter().enumerate() {
        let row: Vec<String> = s.queue.iter().map(|v| v[k].to_string()).collect();
        let _ = writeln!(q, "{c},{}", row.join(","));
    }
    write(dir, "queues.csv", &q)?;
    // Throughput per host, Gb/s over each interval.
    let gbps =
        |bytes: u64| bytes as f64 * 8.0 / (net.sample_cycles as f64 / DEFAULT_CLOCK_HZ) / 1e9;
    let mut t = String::from("cycle");
    for h in &net.host_names {
        let _ = write!(t, ",{h}_tx_gbps,{h}_rx_gbps");
    }
    t.push('\n');
    for (k, c) in s.cycles.iter().enumerate() {
        let _ = write!(t, "{c}");
        for h in 0..net.host_names.len() {
            let _ = write!(
                t,
                ",{:.3},{:.3}",
                gbps(s.host_tx[h][k]),
                gbps(s.host_rx[h][k])
            );
        }
        t.push('\n');
    }
    write(dir, "throughput.csv", &t)?;
    // Windows per host (packets), at each sample.
    let mut wcsv = String::from("cycle");
    for h in &net.host_names {
        let _ = write!(wcsv, ",{h}_window_pkts");
    }
    wcsv.push('\n');
    for (k, c) in s.cycles.iter().enumerate() {
        let _ = write!(wcsv, "{c}");
        for w in &s.host_window {
            let _ = write!(wcsv, ",{}", w.get(k).copied().unwrap_or(0));
        }
        wcsv.push('\n');
    }
    write(dir, "windows.csv", &wcsv)?;
    // Plots: the queues that ever held anything; the hosts that sent; slowdown by message.
    let xs: Vec<f64> = s.cycles.iter().map(|&c| us(c)).collect();
    let qs: Vec<(String, Vec<(f64, f64)>)> = s
        .queue
        .iter()
        .enumerate()
        .filter(|(_, v)| v.iter().any(|&b| b > 0))
        .map(|(c, v)| {
            (
                qnames[c].clone(),
                xs.iter()
                    .zip(v)
                    .map(|(&x, &b)| (x, b as f64 / 1024.0))
                    .collect(),
            )
        })
        .collect();
    write_plot(
        dir,
        "queues.svg",
        &line_chart(
            &format!("{}: queue occupancy", net.name),
            "time (us)",
            "KiB",
            &qs,
        ),
        png,
    )?;
    let ws: Vec<(String, Vec<(f64, f64)>)> = (0..net.host_names.len())
        .filter(|&h| s.host_window[h].iter().any(|&w| w > 0))
        .map(|h| {
            (
                net.host_names[h].clone(),
                xs.iter()
                    .zip(&s.host_window[h])
                    .map(|(&x, &w)| (x, w as f64))
                    .collect(),
            )
        })
        .collect();
    write_plot(
        dir,
        "windows.svg",
        &line_chart(
            &format!("{}: windows (credit beyond the cumulative ACK)", net.name),
            "time (us)",
            "packets",
            &ws,
        ),
        png,
    )?;
    write_plot(
        dir,
        "throughput.svg",
        &line_chart(
            &format!("{}: senders' throughput, receivers' goodput", net.name),
            "time (us)",
            "Gb/s",
            &throughput_series(net, s, &xs, &gbps),
        ),
        png,
    )?;
    let bins = slowdown_bins(net);
    let mut b = String::from("size_from_bytes,size_to_bytes,messages,p50,p99,max\n");
    for x in &bins {
        let _ = writeln!(
            b,
            "{},{},{},{:.3},{:.3},{:.3}",
            x.from, x.to, x.messages, x.p50, x.p99, x.max
        );
    }
    write(dir, "slowdown_bins.csv", &b)?;
    let pts = |f: fn(&SizeBin) -> f64| -> Vec<(f64, f64)> {
        bins.iter().map(|x| ((x.to as f64).log2(), f(x))).collect()
    };
    let bs = if bins.is_empty() {
        vec![]
    } else {
        vec![
            ("p50".to_string(), pts(|x| x.p50)),
            ("p99".to_string(), pts(|x| x.p99)),
        ]
    };
    write_plot(
        dir,
        "slowdown_bins.svg",
        &line_chart(
            &format!("{}: slowdown by message size", net.name),
            "message size bin, log2 of its largest size in bytes (10: up to 1 KiB)",
            "slowdown",
            &bs,
        ),
        png,
    )?;
    let sd: Vec<(f64, f64)> = net
        .msgs
        .iter()
        .filter_map(|m| m.slowdown().map(|x| (m.bytes as f64 / 1024.0, x)))
        .collect();
    write_plot(
        dir,
        "slowdown.svg",
        &scatter_chart(
            &format!("{}: slowdown per message", net.name),
            "message size (KiB)",
            "slowdown",
            &sd,
        ),
        png,
    )?;
    for l in &net.links {
        if let Some(c) = &l.capture {
            for (d, c) in c.iter().enumerate() {
                let mut c = c.clone();
                c.sort_by_key(|p| p.cycle);
                let f = crate::net::capture_file(&l.end_names[d], &l.end_names[1 - d]);
                write_pcap(&dir.join(f), &c)?;
            }
        }
    }
    Ok(sum)
}

const COLORS: &[&str] = &[
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];
const W: f64 = 720.0;
const H: f64 = 400.0;
const ML: f64 = 70.0;
const MR: f64 = 150.0;
const MT: f64 = 40.0;
const MB: f64 = 50.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A "nice" step for about 5 ticks over `span`.
#[doc(hidden)]
pub fn tick_step(span: f64) -> f64 {
    let raw = (span / 5.0).max(1e-12);
    let mag = 10f64.powf(raw.log10().floor());
    let n = raw / mag;
    mag * if n < 1.5 {
        1.0
    } else if n < 3.5 {
        2.0
    } else if n < 7.5 {
        5.0
    } else {
        10.0
    }
}

/// Frame, axes, ticks and labels; returns the SVG so far and the mapping to pixels.
fn axes(
    title: &str,
    xl: &str,
    yl: &str,
    pts: &mut dyn Iterator<Item = (f64, f64)>,
) -> (String, impl Fn(f64, f64) -> (f64, f64)) {
    let (mut x0, mut x1, mut y1) = (f64::MAX, f64::MIN, 0f64);
    for (x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if y1 <= 0.0 {
        y1 = 1.0;
    }
    let (xs, ys) = (tick_step(x1 - x0), tick_step(y1));
    let x0 = (x0 / xs).floor() * xs;
    let x1 = (x1 / xs).ceil() * xs;
    let y1 = (y1 / ys).ceil() * ys;
    let pw = W - ML - MR;
    let ph = H - MT - MB;
    let map = move |x: f64, y: f64| (ML + (x - x0) / (x1 - x0) * pw, MT + ph - y / y1 * ph);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
        ML + pw / 2.0,
        esc(title)
    );
    let mut t = x0;
    while t <= x1 + xs * 1e-6 {
        let (px, _) = map(t, 0.0);
        let _ = writeln!(
            s,
            "<line x1=\"{px:.1}\" y1=\"{:.1}\" x2=\"{px:.1}\" y2=\"{MT}\" stroke=\"#ddd\"/><text x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            MT + ph,
            MT + ph + 16.0,
            fmt_tick(t)
        );
        t += xs;
    }
    let mut t = 0.0;
    while t <= y1 + ys * 1e-6 {
        let (_, py) = map(x0, t);
        let _ = writeln!(
            s,
            "<line x1=\"{ML}\" y1=\"{py:.1}\" x2=\"{:.1}\" y2=\"{py:.1}\" stroke=\"#ddd\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            ML + pw,
            ML - 6.0,
            py + 4.0,
            fmt_tick(t)
        );
        t += ys;
    }
    let _ = writeln!(
        s,
        "<rect x=\"{ML}\" y=\"{MT}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"black\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\n<text x=\"16\" y=\"{:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {:.1})\">{}</text>",
        ML + pw / 2.0,
        H - 12.0,
        esc(xl),
        MT + ph / 2.0,
        MT + ph / 2.0,
        esc(yl)
    );
    (s, map)
}

fn fmt_tick(v: f64) -> String {
    if v.abs() >= 100.0 || v == v.round() {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A line chart of named series of `(x, y)` points (y from 0).
pub fn line_chart(title: &str, xl: &str, yl: &str, series: &[(String, Vec<(f64, f64)>)]) -> String {
    let (mut s, map) = axes(
        title,
        xl,
        yl,
        &mut series.iter().flat_map(|(_, v)| v.iter().copied()),
    );
    for (i, (name, pts)) in series.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        let path: Vec<String> = pts
            .iter()
            .map(|&(x, y)| {
                let (px, py) = map(x, y);
                format!("{px:.1},{py:.1}")
            })
            .collect();
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"1.5\" points=\"{}\"/>",
            path.join(" ")
        );
        if i < 24 {
            let ly = MT + 14.0 * i as f64 + 8.0;
            let _ = writeln!(
                s,
                "<line x1=\"{:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\" stroke=\"{c}\" stroke-width=\"3\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                W - MR + 10.0,
                W - MR + 28.0,
                W - MR + 32.0,
                ly + 4.0,
                esc(name)
            );
        }
    }
    if series.is_empty() {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">(no data)</text>",
            ML + (W - ML - MR) / 2.0,
            MT + (H - MT - MB) / 2.0
        );
    }
    s.push_str("</svg>\n");
    s
}

/// A scatter chart of `(x, y)` points (y from 0).
pub fn scatter_chart(title: &str, xl: &str, yl: &str, pts: &[(f64, f64)]) -> String {
    let (mut s, map) = axes(title, xl, yl, &mut pts.iter().copied());
    for &(x, y) in pts {
        let (px, py) = map(x, y);
        let _ = writeln!(
            s,
            "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"3.5\" fill=\"{}\"/>",
            COLORS[0]
        );
    }
    s.push_str("</svg>\n");
    s
}
