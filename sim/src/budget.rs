//! Latency and throughput budgets, measured in cycles on the simulated blocks (`ntsim
//! budget` prints them; the testbench asserts them against the thesis' Table 3.1).
//!
//! Every number comes from running the block on the kernel with a directed stimulus:
//! nothing here is computed from the design's documentation.
use crate::drive_claim;
use crate::kernel::Kernel;
use crate::tx_workload::Claim;
use nt_hdl::reassembly::{Reassembly, ReassemblyConfig, HDR_WORDS, PKT_BYTES};
use std::collections::VecDeque;

/// One measured budget.
#[derive(Clone, Debug)]
pub struct Budget {
    pub block: &'static str,
    pub what: &'static str,
    /// Measured value.
    pub cycles: f64,
    /// The published value it is compared with, and where it comes from.
    pub reference: Option<(f64, &'static str)>,
    /// The requirement (an upper bound), if any.
    pub limit: Option<f64>,
}

/// A packet for the reassembly's ports: the key, length, offset and payload words.
#[derive(Clone, Debug)]
struct Packet {
    ip: u32,
    port: u16,
    txid: u16,
    len: u16,
    off: u8,
}

impl Packet {
    fn words(&self) -> u64 {
        let start = self.off as u64 * PKT_BYTES;
        let bytes = (self.len as u64 - start).min(PKT_BYTES);
        HDR_WORDS + bytes.div_ceil(8)
    }
}

/// What one cycle of the reassembly harness saw.
#[derive(Default, Clone, Copy)]
struct Seen {
    req_accepted: bool,
    resp: Option<(bool, u16)>,
    last_beat_accepted: bool,
    out_word: bool,
    out_last: bool,
}

/// Drives a reassembly block like the ingress pipeline does: a request per packet, then
/// its frame once the response allowed it.
struct RxHarness<
    const A: usize,
    const N: usize,
    const C: usize,
    const SA: usize,
    const S: usize,
    const BW: usize,
> {
    k: Kernel<Reassembly<A, N, C, SA, S, BW>>,
    reqs: VecDeque<Packet>,
    frames: VecDeque<(Packet, u16)>,
    pos: u64,
}

impl<
        const A: usize,
        const N: usize,
        const C: usize,
        const SA: usize,
        const S: usize,
        const BW: usize,
    > RxHarness<A, N, C, SA, S, BW>
{
    fn new(cfg: &ReassemblyConfig) -> Result<Self, String> {
        let mut k = Kernel::new(Reassembly::new(cfg)).map_err(|e| e.to_string())?;
        k.uut_mut().cfg.timeout.next = 1_000_000u64.into();
        k.uut_mut().reset.next = true;
        k.tick().map_err(|e| e.to_string())?;
        k.uut_mut().reset.next = false;
        Ok(Self {
            k,
            reqs: VecDeque::new(),
            frames: VecDeque::new(),
            pos: 0,
        })
    }

    fn cycle(&mut self) -> Result<Seen, String> {
        let now = self.k.cycle();
        let u = self.k.uut_mut();
        u.now.next = now.into();
        u.source.ready.next = true;
        u.info_req.valid.next = !self.reqs.is_empty();
        if let Some(p) = self.reqs.front() {
            u.info_req.mark_received.next = true;
            u.info_req.src_ip.next = (p.ip as u64).into();
            u.info_req.src_port.next = (p.port as u64).into();
            u.info_req.tx_msg_id.next = (p.txid as u64).into();
            u.info_req.msg_len.next = (p.len as u64).into();
            u.info_req.pkt_offset.next = (p.off as u64).into();
        }
        u.sink.valid.next = !self.frames.is_empty();
        let mut last = false;
        if let Some((p, id)) = self.frames.front() {
            last = self.pos + 1 == p.words();
            u.sink.data.next = (self.pos * 0x0101_0101).into();
            u.sink.last.next = last;
            u.sink.remote_ip.next = (p.ip as u64).into();
            u.sink.remote_port.next = (p.port as u64).into();
            u.sink.msg_len.next = (p.len as u64).into();
            u.sink.pkt_offset.next = (p.off as u64).into();
            u.sink.local_port.next = 1u64.into();
            u.sink.rx_msg_id.next = (*id as u64).into();
            u.sink.tx_msg_id.next = (p.txid as u64).into();
        }
        self.k.settle().map_err(|e| e.to_string())?;
        let u = self.k.uut();
        let mut seen = Seen {
            req_accepted: !self.reqs.is_empty() && u.info_req.ready.val(),
            ..Default::default()
        };
        if u.info_resp.valid.val() {
            let ok = !u.info_resp.fail.val() && u.info_resp.is_new_pkt.val();
            seen.resp = Some((ok, u.info_resp.rx_msg_id.val().index() as u16));
        }
        if !self.frames.is_empty() {
            if u.sink.ready.val() {
                self.pos += 1;
                if last {
                    self.frames.pop_front();
                    self.pos = 0;
                    seen.last_beat_accepted = true;
                }
            }
        }
        seen.out_word = u.source.valid.val();
        seen.out_last = u.source.last.val();
        if seen.req_accepted {
            self.reqs.pop_front();
        }
        self.k.tick().map_err(|e| e.to_string())?;
        Ok(seen)
    }
}

/// Cycles from a GetRxMsgInfo request's acceptance to its response, and from the last
/// word of a 16-byte single-packet message in to the first word of the message out.
fn reassembly_latencies<
    const A: usize,
    const N: usize,
    const C: usize,
    const SA: usize,
    const S: usize,
    const BW: usize,
>(
    cfg: &ReassemblyConfig,
) -> Result<(u64, u64), String> {
    let mut h = RxHarness::<A, N, C, SA, S, BW>::new(cfg)?;
    let p = Packet {
        ip: 0x0a00_0001,
        port: 1,
        txid: 1,
        len: 16,
        off: 0,
    };
    h.reqs.push_back(p.clone());
    let (mut accepted, mut info, mut last_in, mut first_out) = (None, None, None, None);
    for _ in 0..200 {
        let c = h.k.cycle();
        let s = h.cycle()?;
        if s.req_accepted {
            accepted = Some(c);
        }
        if let Some((ok, id)) = s.resp {
            if !ok {
                return Err("the request failed".into());
            }
            info = Some(c - accepted.unwrap_or(c));
            h.frames.push_back((p.clone(), id));
        }
        if s.last_beat_accepted {
            last_in = Some(c);
        }
        if s.out_word && first_out.is_none() {
            first_out = Some(c);
        }
    }
    match (info, last_in, first_out) {
        (Some(i), Some(l), Some(f)) => Ok((i, f - l)),
        _ => Err("the 16-byte message was not delivered within 200 cycles".into()),
    }
}

/// Streams `n` single-packet messages of `len` bytes back to back, issuing each request
/// while the previous frame streams and each frame as soon as its answer is in (faster
/// than the wire brings them: a frame here is its [`HDR_WORDS`] and payload words, on
/// the wire 8 header words and the payload). Returns (input cycles per message, messages
/// delivered). A frame whose first beat comes with an accepted
/// request waits a cycle before its beat `HDR_WORDS` (the block's contract); those
/// cycles are in the cycles per message.
fn reassembly_line_rate<
    const A: usize,
    const N: usize,
    const C: usize,
    const SA: usize,
    const S: usize,
    const BW: usize,
>(
    cfg: &ReassemblyConfig,
    len: u16,
    n: u32,
) -> Result<(f64, u64), String> {
    let mut h = RxHarness::<A, N, C, SA, S, BW>::new(cfg)?;
    let pkt = |k: u32| Packet {
        ip: 0x0a00_0100 + (k % 20),
        port: 4000,
        txid: (k / 20) as u16,
        len,
        off: 0,
    };
    let (mut issued, mut answered, mut done, mut delivered) = (0u32, 0u32, 0u32, 0);
    let (mut first, mut last) = (None, 0);
    let mut guard = 0u64;
    while done < n {
        guard += 1;
        if guard > 200 * n as u64 + 1000 {
            return Err(format!("line-rate run stuck after {done} of {n} messages"));
        }
        if issued < n && issued <= done + 2 && h.reqs.is_empty() {
            h.reqs.push_back(pkt(issued));
            issued += 1;
        }
        if first.is_none() && !h.frames.is_empty() {
            first = Some(h.k.cycle());
        }
        let c = h.k.cycle();
        let s = h.cycle()?;
        if let Some((ok, id)) = s.resp {
            if !ok {
                let st = &h.k.uut().stat;
                return Err(format!("message {answered} failed: alloc_fail {} bad_req {} ids_free {} bufs_free {} delivered {} bad_data {}", st.alloc_fail.val().index(), st.bad_req.val().index(), st.ids_free.val().index(), st.bufs_free.val().index(), st.delivered.val().index(), st.bad_data.val().index()));
            }
            h.frames.push_back((pkt(answered), id));
            answered += 1;
        }
        if s.last_beat_accepted {
            done += 1;
            last = c;
        }
        delivered += (s.out_word && s.out_last) as u64;
    }
    for _ in 0..100 {
        let s = h.cycle()?;
        delivered += (s.out_word && s.out_last) as u64;
    }
    let span = last + 1 - first.unwrap_or(0);
    Ok((span as f64 / n as f64, delivered))
}

/// Measures every budget of the reassembly module (N = 16 and 128).
pub fn reassembly_budgets() -> Result<Vec<Budget>, String> {
    let mut out = vec![];
    let c16 = ReassemblyConfig::n16();
    let c128 = ReassemblyConfig::n128();
    for (block, (info, deliver)) in [
        (
            "reassembly_n16",
            reassembly_latencies::<4, 16, 5, 6, 64, 15>(&c16)?,
        ),
        (
            "reassembly_n128",
            reassembly_latencies::<7, 128, 8, 9, 512, 17>(&c128)?,
        ),
    ] {
        out.push(Budget {
            block,
            what: "GetRxMsgInfo request -> response",
            cycles: info as f64,
            reference: None,
            limit: Some(2.0),
        });
        out.push(Budget {
            block,
            what: "16 B message: last word in -> first word out",
            cycles: deliver as f64,
            reference: Some((3.0, "thesis Table 3.1 (0.94 ns)")),
            limit: Some(3.0),
        });
    }
    for (len, what, words) in [
        (1u16, "1 B messages (65 B packets): cycles per packet", 9.0),
        (
            65u16,
            "65 B messages (129 B packets): cycles per packet",
            17.0,
        ),
    ] {
        for (block, (per, delivered)) in [
            (
                "reassembly_n16",
                reassembly_line_rate::<4, 16, 5, 6, 64, 15>(&c16, len, 400)?,
            ),
            (
                "reassembly_n128",
                reassembly_line_rate::<7, 128, 8, 9, 512, 17>(&c128, len, 400)?,
            ),
        ] {
            // Stalls are counted in `per` (see `reassembly_line_rate`); in the NIC's phases
            // there are none (`hdl/tests/blocks/reassembly.rs::line_rate`).
            if delivered != 400 {
                return Err(format!("{block}: {what}: {delivered} of 400 delivered"));
            }
            out.push(Budget {
                block,
                what,
                cycles: per,
                reference: Some((words, "one 64-bit word per cycle (line rate)")),
                limit: Some(words),
            });
        }
    }
    Ok(out)
}

/// Every block's budgets.
pub fn all_budgets() -> Result<Vec<Budget>, String> {
    let mut b = parser_budgets()?;
    b.extend(reassembly_budgets()?);
    b.extend(packetization_budgets()?);
    b.extend(deparser_budgets()?);
    b.extend(pktgen_budgets()?);
    b.extend(nic_budgets()?);
    Ok(b)
}

/// The line-rate row: back-to-back 1-byte messages (65-byte packets, 9 words) at `per`
/// cycles per packet, against one word per cycle.
fn one_byte_line_rate(block: &'static str, per: f64) -> Budget {
    Budget {
        block,
        what: "1 B messages (65 B packets): cycles per packet",
        cycles: per,
        reference: Some((9.0, "one 64-bit word per cycle (line rate)")),
        limit: Some(9.0),
    }
}

/// The ingress parser (both layouts): a 16-byte message's 80-byte packet from its first
/// word in to its first word out, and back-to-back 65-byte packets (1-byte messages) in
/// cycles per packet out.
pub fn parser_budgets() -> Result<Vec<Budget>, String> {
    use crate::parser_workload::HostCfg;
    use crate::wire::{to_words, Frame, Layout, Transport, FLAG_DATA};
    use nt_hdl::parser::Parser;
    let mut out = vec![];
    for (block, layout, reference) in [
        (
            "parser_ndp",
            Layout::Ndp,
            (16.0, "the whole NDP ingress, thesis Table 3.1"),
        ),
        (
            "parser_homa",
            Layout::Homa,
            (20.0, "the whole Homa ingress, thesis Table 3.1"),
        ),
    ] {
        let host = HostCfg::new(layout);
        let frame = |msg_len: u16, id: u16| {
            Frame {
                dst_mac: host.mac,
                src_mac: 0x0200_0000_0001,
                tos: 0,
                ip_id: id,
                ttl: 64,
                protocol: host.protocol,
                src_ip: 0x0a00_0001,
                dst_ip: host.ip,
                t: Transport {
                    flags: FLAG_DATA,
                    msg_len,
                    tx_msg_id: id,
                    ..Default::default()
                },
                payload: vec![id as u8; msg_len as usize],
            }
            .encode(layout)
        };
        let mut words = to_words(&frame(16, 0));
        let n = 200u16;
        for i in 0..n {
            words.extend(to_words(&frame(1, i + 1)));
        }
        let mut k = Kernel::new(Parser::new(layout == Layout::Homa)).map_err(|e| e.to_string())?;
        let mut outs: Vec<(u64, bool)> = vec![];
        let total = words.len();
        for c in 0..(total as u64 + 100) {
            let u = k.uut_mut();
            u.cfg.mac.next = host.mac.into();
            u.cfg.ip.next = (host.ip as u64).into();
            u.cfg.protocol.next = (host.protocol as u64).into();
            u.source.ready.next = true;
            let w = words.get(c as usize).copied();
            u.sink.valid.next = w.is_some();
            let x = w.unwrap_or_default();
            u.sink.data.next = x.data.into();
            u.sink.last.next = x.last;
            u.sink.empty.next = (x.empty as u64).into();
            k.settle().map_err(|e| e.to_string())?;
            let u = k.uut();
            if u.source.valid.val() {
                outs.push((c, u.source.last.val()));
            }
            k.tick().map_err(|e| e.to_string())?;
        }
        // Every frame leaves from its word SKIP_WORDS on.
        let want = total - (n as usize + 1) * nt_hdl::parser::SKIP_WORDS as usize;
        if outs.len() != want {
            return Err(format!(
                "{block}: {} words out of {want} ({total} in)",
                outs.len()
            ));
        }
        // Packets start after each `last`; the first at index 0.
        let starts: Vec<u64> = std::iter::once(outs[0].0)
            .chain(outs.windows(2).filter(|p| p[0].1).map(|p| p[1].0))
            .collect();
        let per = (starts[starts.len() - 1] - starts[1]) as f64 / (starts.len() - 2) as f64;
        out.push(Budget {
            block,
            what: "80 B packet: first word in -> first word out",
            cycles: starts[0] as f64,
            reference: Some(reference),
            limit: None,
        });
        out.push(one_byte_line_rate(block, per));
    }
    Ok(out)
}

/// The committed ECP5-85F place-and-route reports (`fpga/synth.sh --family ecp5`), by
/// block: the clock a budget in cycles is converted at.
const ECP5_REPORTS: &[(&str, &str)] = &[
    (
        "parser_ndp",
        include_str!("../../fpga/reports/parser_ndp.ecp5.txt"),
    ),
    (
        "parser_homa",
        include_str!("../../fpga/reports/parser_homa.ecp5.txt"),
    ),
    (
        "reassembly_n16",
        include_str!("../../fpga/reports/reassembly_n16.ecp5.txt"),
    ),
    (
        "reassembly_n128",
        include_str!("../../fpga/reports/reassembly_n128.ecp5.txt"),
    ),
    (
        "packetization_n16",
        include_str!("../../fpga/reports/packetization_n16.ecp5.txt"),
    ),
    (
        "packetization_n128",
        include_str!("../../fpga/reports/packetization_n128.ecp5.txt"),
    ),
    (
        "deparser_ndp",
        include_str!("../../fpga/reports/deparser_ndp.ecp5.txt"),
    ),
    (
        "deparser_homa",
        include_str!("../../fpga/reports/deparser_homa.ecp5.txt"),
    ),
    (
        "pktgen_n16",
        include_str!("../../fpga/reports/pktgen_n16.ecp5.txt"),
    ),
    (
        "nic_ndp",
        include_str!("../../fpga/reports/nic_ndp.ecp5.txt"),
    ),
    (
        "nic_homa",
        include_str!("../../fpga/reports/nic_homa.ecp5.txt"),
    ),
    (
        "nic_bolt",
        include_str!("../../fpga/reports/nic_bolt.ecp5.txt"),
    ),
    (
        "nic_ndp_n128",
        include_str!("../../fpga/reports/nic_ndp_n128.ecp5.txt"),
    ),
    (
        "nic_ndp_fpga",
        include_str!("../../fpga/reports/nic_ndp_fpga.ecp5.txt"),
    ),
];

/// Blocks too large for the 85F, and their FPGA build: the same block with smaller
/// buffers, which takes the same cycles (`nt_hdl::nic::NicNdpFpga`). A budget of the block
/// is converted at its FPGA build's routed clock, marked `(fpga)`.
const ECP5_FPGA_BUILDS: &[(&str, &str)] = &[("nic_ndp", "nic_ndp_fpga")];

/// The routed ECP5 clock a budget of `block` is converted at, in MHz, and whether it is
/// its FPGA build's ([`ECP5_FPGA_BUILDS`]).
pub fn ecp5_clock_of(block: &str) -> Option<(f64, bool)> {
    if let Some(mhz) = ecp5_mhz(block) {
        return Some((mhz, false));
    }
    let (_, build) = ECP5_FPGA_BUILDS.iter().find(|(b, _)| *b == block)?;
    ecp5_mhz(build).map(|mhz| (mhz, true))
}

/// The clock of the theses' ASIC comparison point (Table 3.1's nanoseconds are at 3.2 GHz).
pub const ASIC_GHZ: f64 = 3.2;

/// The routed ECP5-85F clock of `block` in MHz, from its committed report; `None` when the
/// block has no report or did not place and route (the report then has no `Fmax clock`).
pub fn ecp5_mhz(block: &str) -> Option<f64> {
    let (_, text) = ECP5_REPORTS.iter().find(|(b, _)| *b == block)?;
    fmax_of(text)
}

/// The `Fmax clock: X MHz` of a nextpnr report.
pub fn fmax_of(report: &str) -> Option<f64> {
    report.lines().find_map(|l| {
        l.trim()
            .strip_prefix("Fmax clock: ")?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    })
}

/// Formats budgets as a table: cycles, then the same in nanoseconds at the block's routed
/// ECP5 clock ([`ecp5_clock_of`]: its FPGA build's, marked `(fpga)`, for a block too large
/// for the 85F; `-` where neither routes) and at 3.2 GHz.
pub fn format_budgets(b: &[Budget]) -> String {
    let mut s = format!(
        "{:<19} {:<52} {:>9} {:>7} {:>17} {:>10}  {}\n",
        "block", "budget", "measured", "limit", "ns at ECP5 clock", "ns at 3.2G", "reference"
    );
    for x in b {
        let ecp5 = ecp5_clock_of(x.block)
            .map(|(mhz, fpga)| {
                let at = format!("{:.1} @{mhz:.0}M", x.cycles * 1e3 / mhz);
                if fpga {
                    at + " (fpga)"
                } else {
                    at
                }
            })
            .unwrap_or_else(|| "-".into());
        let asic = format!("{:.2}", x.cycles / ASIC_GHZ);
        let lim = x
            .limit
            .map(|l| format!("{l}"))
            .unwrap_or_else(|| "-".into());
        let r = x
            .reference
            .map(|(v, w)| format!("{v} ({w})"))
            .unwrap_or_else(|| "-".into());
        let ok = x.limit.map(|l| x.cycles <= l).unwrap_or(true);
        // Whole cycles as integers; averages to two decimals.
        let measured = if x.cycles.fract() == 0.0 {
            format!("{}", x.cycles)
        } else {
            format!("{:.2}", x.cycles)
        };
        s += &format!(
            "{:<19} {:<52} {:>9} {:>7} {:>17} {:>10}  {}{}\n",
            x.block,
            x.what,
            measured,
            lim,
            ecp5,
            asic,
            r,
            if ok { "" } else { "  OVER BUDGET" }
        );
    }
    s
}

/// Cycles from a 16-byte message's app header to the first word of its packet, and the
/// cycles per packet for `n` back-to-back 1-byte messages acknowledged as they leave.
fn packetization_numbers<const A: usize, const N: usize, const C: usize, const BW: usize>(
    cfg: &ReassemblyConfig,
    n: u64,
) -> Result<(u64, f64), String> {
    use nt_hdl::packetization::Packetization;
    let mut k = Kernel::new(Packetization::<A, N, C, BW>::new(cfg)).map_err(|e| e.to_string())?;
    {
        let u = k.uut_mut();
        u.cfg.rtt_pkts.next = 4u64.into();
        u.cfg.timeout.next = 1_000_000u64.into();
        u.cfg.max_timeouts.next = 3u64.into();
        u.reset.next = true;
    }
    k.tick().map_err(|e| e.to_string())?;
    k.uut_mut().reset.next = false;
    // Application words: one 16-byte message, then `n` 1-byte messages.
    let mut app: VecDeque<(u64, bool)> = VecDeque::new();
    app.push_back((0x0a00_0001u64 << 32 | 1 << 16 | 16, false));
    app.push_back((1, false));
    app.push_back((2, true));
    for m in 0..n {
        app.push_back(((0x0a00_0100 + m) << 32 | 1 << 16 | 1, false));
        app.push_back((m, true));
    }
    let (mut header_in, mut first_out) = (None, None);
    let mut acks: VecDeque<(u64, Claim)> = VecDeque::new();
    let mut pkt_first: Vec<u64> = vec![];
    let mut in_pkt = false;
    let mut cur_id = 0;
    let mut cur_claim = Claim::default();
    for _ in 0..(n * 20 + 1000) {
        let c = k.cycle();
        let u = k.uut_mut();
        u.now.next = c.into();
        u.source.ready.next = true;
        u.status.ready.next = true;
        let a = app.front().copied();
        u.app.valid.next = a.is_some();
        let (w, last) = a.unwrap_or_default();
        u.app.data.next = w.into();
        u.app.last.next = last;
        u.delivered.valid.next = !acks.is_empty();
        u.delivered.tx_msg_id.next = acks.front().map(|a| a.0).unwrap_or(0).into();
        u.delivered.ack_bitmap.next = 1u64.into();
        u.delivered.below_flag.next = false;
        drive_claim!(u.delivered, acks.front().map(|a| a.1).unwrap_or_default());
        u.credit.valid.next = false;
        k.settle().map_err(|e| e.to_string())?;
        let u = k.uut();
        // From the cycle the header shows (it is taken a cycle later: the block registers
        // its checks).
        if a.is_some() && header_in.is_none() {
            header_in = Some(c);
        }
        if a.is_some() && u.app.ready.val() {
            app.pop_front();
        }
        if !acks.is_empty() && u.delivered.ready.val() {
            acks.pop_front();
        }
        if u.source.valid.val() {
            if first_out.is_none() {
                first_out = Some(c);
            }
            if !in_pkt {
                pkt_first.push(c);
                cur_id = u.source.tx_msg_id.val().to_u64();
                cur_claim = Claim::of_source(&u.source);
            }
            in_pkt = !u.source.last.val();
            if u.source.last.val() {
                acks.push_back((cur_id, cur_claim));
            }
        }
        k.tick().map_err(|e| e.to_string())?;
    }
    let (Some(h), Some(f)) = (header_in, first_out) else {
        return Err("the 16-byte message did not leave".into());
    };
    if pkt_first.len() as u64 != n + 1 {
        return Err(format!("{} of {} packets left", pkt_first.len(), n + 1));
    }
    // Line rate over the 1-byte messages (skip the first packet).
    let span = pkt_first[n as usize] + 9 - pkt_first[1];
    Ok((f - h, span as f64 / n as f64))
}

/// Measures the packetization module's budgets (N = 16 and 128).
pub fn packetization_budgets() -> Result<Vec<Budget>, String> {
    let mut out = vec![];
    for (block, (lat, per)) in [
        (
            "packetization_n16",
            packetization_numbers::<4, 16, 5, 15>(&ReassemblyConfig::n16(), 300)?,
        ),
        (
            "packetization_n128",
            packetization_numbers::<7, 128, 8, 17>(&ReassemblyConfig::n128(), 300)?,
        ),
    ] {
        out.push(Budget {
            block,
            what: "16 B message: app header shown -> first word out",
            cycles: lat as f64,
            reference: Some((9.0, "thesis Table 3.1 (2.81 ns)")),
            limit: Some(9.0),
        });
        out.push(one_byte_line_rate(block, per));
    }
    Ok(out)
}

/// The egress deparser (both layouts): a 16-byte message's packet from its first word in
/// (from the arbiter) to its first word out (to the MAC), and back-to-back 65-byte packets
/// in cycles per packet.
pub fn deparser_budgets() -> Result<Vec<Budget>, String> {
    use crate::arb_workload::TxMeta;
    use crate::deparser_workload::payload_len;
    use crate::wire::FLAG_DATA;
    use nt_hdl::deparser::Deparser;
    let mut out = vec![];
    for (block, homa, reference) in [
        ("deparser_ndp", false, (1.0, "NDP egress, thesis Table 3.1")),
        (
            "deparser_homa",
            true,
            (3.0, "Homa egress, thesis Table 3.1"),
        ),
    ] {
        // One 16-byte message, then 200 1-byte messages, back to back.
        let mut beats: Vec<(TxMeta, bool)> = vec![];
        for i in 0..201u16 {
            let meta = TxMeta {
                remote_ip: 0x0a00_0002,
                msg_len: if i == 0 { 16 } else { 1 },
                tx_msg_id: i,
                flags: FLAG_DATA,
                ..Default::default()
            };
            let n = 8 + payload_len(&meta).div_ceil(8);
            beats.extend((0..n).map(|j| (meta, j + 1 == n)));
        }
        let mut k = Kernel::new(Deparser::new(homa)).map_err(|e| e.to_string())?;
        let mut starts = vec![];
        let mut in_pkt = false;
        let mut next = 0usize;
        for c in 0..(beats.len() as u64 + 50) {
            let u = k.uut_mut();
            u.source.ready.next = true;
            let b = beats.get(next).copied();
            u.sink.valid.next = b.is_some();
            let (m, last) = b.unwrap_or_default();
            u.sink.last.next = last;
            u.sink.msg_len.next = (m.msg_len as u64).into();
            u.sink.flags.next = (m.flags as u64).into();
            u.sink.remote_ip.next = (m.remote_ip as u64).into();
            k.settle().map_err(|e| e.to_string())?;
            let u = k.uut();
            if u.sink.valid.val() && u.sink.ready.val() {
                next += 1;
            }
            if u.source.valid.val() && u.source.ready.val() {
                if !in_pkt {
                    starts.push(c);
                }
                in_pkt = !u.source.last.val();
            }
            k.tick().map_err(|e| e.to_string())?;
        }
        if starts.len() != 201 {
            return Err(format!("{block}: {} packets out of 201", starts.len()));
        }
        let per = (starts[200] - starts[1]) as f64 / 199.0;
        out.push(Budget {
            block,
            what: "16 B message: first word in -> first word out",
            cycles: starts[0] as f64,
            reference: Some(reference),
            limit: Some(reference.0),
        });
        out.push(one_byte_line_rate(block, per));
    }
    Ok(out)
}

/// The packet generator: a `CtrlPktEvent` (an ACK with a due PULL) accepted → the first
/// beat of its packet on `source`; and back-to-back ACKs (no PULL) in cycles per packet.
/// (A PULL taken from the queue costs one idle cycle: its row is read from RAM first.)
pub fn pktgen_budgets() -> Result<Vec<Budget>, String> {
    use nt_hdl::pktgen::PacketGen16;
    let block = "pktgen_n16";
    let mut k = Kernel::new(PacketGen16::new()).map_err(|e| e.to_string())?;
    let (mut accepted, mut firsts) = (vec![], vec![]);
    let mut in_pkt = false;
    for c in 0..400u64 {
        let u = k.uut_mut();
        u.cfg.pace.next = true;
        u.cfg.gap.next = 136u64.into();
        u.source.ready.next = true;
        u.event.valid.next = c >= 2 && accepted.len() < 30;
        // The first event is ACK|PULL (the PULL is due), the rest ACKs.
        let flags: u64 = if accepted.is_empty() { 0x0a } else { 0x02 };
        u.event.flags.next = flags.into();
        u.event.rx_id.next = ((accepted.len() % 16) as u64).into();
        k.settle().map_err(|e| e.to_string())?;
        let u = k.uut();
        if u.event.valid.val() && u.event.ready.val() {
            accepted.push(c);
        }
        if u.source.valid.val() && u.source.ready.val() {
            if !in_pkt {
                firsts.push(c);
            }
            in_pkt = !u.source.last.val();
        }
        k.tick().map_err(|e| e.to_string())?;
    }
    if accepted.len() < 30 || firsts.len() < 30 {
        return Err(format!(
            "{block}: {} events, {} packets",
            accepted.len(),
            firsts.len()
        ));
    }
    let per = (firsts[20] - firsts[10]) as f64 / 10.0;
    Ok(vec![
        Budget {
            block,
            what: "CtrlPktEvent accepted -> first beat out",
            cycles: (firsts[0] - accepted[0]) as f64,
            reference: None,
            limit: None,
        },
        Budget {
            block,
            what: "back-to-back ACKs: cycles per packet",
            cycles: per,
            reference: Some((9.0, "9 beats per control packet")),
            limit: Some(9.0),
        },
    ])
}

/// A NIC's stage latencies for one 16-byte message (80-byte packet), each from the
/// stage's first word in to its first word out: ingress (MAC RX → reassembly), reassembly
/// (its last word in → the application's first word out, as for the block alone),
/// packetize (the application's header → the packet's first word) and egress (the
/// deparser's first word in → MAC TX). Also the whole RX path (MAC RX first word → the
/// application's first word) and TX path (header → MAC TX first word).
pub fn nic_latencies<T: nt_hdl::nic::NicTop>(top: T, homa: bool) -> Result<NicLatency, String> {
    use crate::nic_sim::{AppMsg, NicConfig, NicSim};
    use crate::pcap::Packet;
    use crate::wire::{Frame, Layout, Transport, FLAG_DATA, PROTO_HOMA, PROTO_NDP};
    let cfg = NicConfig::new(0x0200_0000_000a, 0x0a00_0001);
    let layout = if homa { Layout::Homa } else { Layout::Ndp };
    let frame = Frame {
        dst_mac: cfg.mac,
        src_mac: 0x0200_0000_000b,
        tos: 0,
        ip_id: 1,
        ttl: 64,
        protocol: if homa { PROTO_HOMA } else { PROTO_NDP },
        src_ip: 0x0a00_0002,
        dst_ip: cfg.ip,
        t: Transport {
            flags: FLAG_DATA,
            src_port: 7,
            dst_port: 9,
            msg_len: 16,
            tx_msg_id: 3,
            ..Default::default()
        },
        payload: (0..16u8).collect(),
    }
    .encode(layout);
    let mut nic = NicSim::new(top, cfg)?;
    let (rx_at, tx_at) = (20u64, 200u64);
    nic.push_rx(Packet {
        cycle: rx_at,
        bytes: frame,
    });
    nic.send(AppMsg {
        cycle: tx_at,
        dst_ip: 0x0a00_0002,
        dst_port: 9,
        src_port: 7,
        payload: (0..16u8).collect(),
    });
    let first = |seen: &mut Option<u64>, hit: bool, c: u64| {
        if hit && seen.is_none() {
            *seen = Some(c);
        }
    };
    let (mut rx_in, mut ing_out, mut ing_last, mut app_rx) = (None, None, None, None);
    let mut ctrl = None;
    let (mut app_tx, mut pk_out, mut eg_in, mut mac_tx) = (None, None, None, None);
    for _ in 0..400 {
        let c = nic.cycle();
        nic.step()?;
        let p = nic.last_probe;
        first(&mut rx_in, p.mac_rx, c);
        first(&mut ing_out, p.ingress_out, c);
        first(&mut ing_last, p.ingress_out_last, c);
        first(&mut app_rx, p.app_rx, c);
        first(&mut ctrl, p.ctrl_event, c);
        if c >= tx_at {
            // From the cycle the header shows on `app_tx` (it is taken a cycle later:
            // packetization registers its checks).
            first(&mut app_tx, nic.last_app_offered, c);
            first(&mut pk_out, p.packetize_out, c);
            first(&mut eg_in, p.egress_in && pk_out.is_some(), c);
            first(&mut mac_tx, p.mac_tx && eg_in.is_some(), c);
        }
    }
    let get = |x: Option<u64>, what: &str| x.ok_or_else(|| format!("NIC budget: no {what}"));
    let (rx_in, ing_out, ing_last, app_rx) = (
        get(rx_in, "MAC RX word")?,
        get(ing_out, "ingress word")?,
        get(ing_last, "ingress last word")?,
        get(app_rx, "delivered word")?,
    );
    let ctrl = get(ctrl, "control-packet event")?;
    let (app_tx, pk_out, eg_in, mac_tx) = (
        get(app_tx, "app header")?,
        get(pk_out, "packetized word")?,
        get(eg_in, "egress word")?,
        get(mac_tx, "MAC TX word")?,
    );
    Ok(NicLatency {
        ingress: ing_out - rx_in,
        decision: ctrl - rx_in,
        reassembly: app_rx - ing_last,
        rx_total: app_rx - rx_in,
        packetize: pk_out - app_tx,
        egress: mac_tx - eg_in,
        tx_total: mac_tx - app_tx,
    })
}

/// Stage latencies of a NIC in cycles (see [`nic_latencies`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NicLatency {
    pub ingress: u64,
    /// MAC RX first word → the program's control-packet event (ACK/PULL/GRANT) accepted.
    pub decision: u64,
    pub reassembly: u64,
    pub rx_total: u64,
    pub packetize: u64,
    pub egress: u64,
    pub tx_total: u64,
}

/// The NIC budget rows for a program: the limits and thesis Table 3.1 (`limits`:
/// ingress, reassembly, packetize, egress; the RX and TX paths are held to the sums of
/// their stages' limits, issue 31).
pub fn nic_budget_rows(block: &'static str, l: NicLatency, limits: [f64; 4]) -> Vec<Budget> {
    let r = "thesis Table 3.1";
    vec![
        Budget {
            block,
            what: "ingress: MAC RX first word -> reassembly first word",
            cycles: l.ingress as f64,
            reference: Some((limits[0], r)),
            limit: Some(limits[0]),
        },
        Budget {
            block,
            what: "ingress decision: MAC RX first word -> control-packet event",
            cycles: l.decision as f64,
            reference: Some((limits[0], r)),
            limit: Some(limits[0]),
        },
        Budget {
            block,
            what: "reassembly: last word in -> application first word",
            cycles: l.reassembly as f64,
            reference: Some((limits[1], r)),
            limit: Some(limits[1]),
        },
        Budget {
            block,
            what: "packetize: app header shown -> first word of the packet",
            cycles: l.packetize as f64,
            reference: Some((limits[2], r)),
            limit: Some(limits[2]),
        },
        Budget {
            block,
            what: "egress: deparser first word in -> MAC TX first word",
            cycles: l.egress as f64,
            reference: Some((limits[3], r)),
            limit: Some(limits[3]),
        },
        Budget {
            block,
            what: "stage sum (ingress + reassembly + packetize + egress)",
            cycles: (l.ingress + l.reassembly + l.packetize + l.egress) as f64,
            reference: Some((limits.iter().sum(), r)),
            limit: Some(limits.iter().sum()),
        },
        Budget {
            block,
            what: "RX path: MAC RX first word -> application first word",
            cycles: l.rx_total as f64,
            reference: Some((
                limits[0] + limits[1],
                "thesis Table 3.1 ingress + reassembly",
            )),
            limit: Some(limits[0] + limits[1]),
        },
        Budget {
            block,
            what: "TX path: application header shown -> MAC TX first word",
            cycles: l.tx_total as f64,
            reference: Some((limits[2] + limits[3], "thesis Table 3.1 packetize + egress")),
            limit: Some(limits[2] + limits[3]),
        },
    ]
}

/// The NICs' budgets.
pub fn nic_budgets() -> Result<Vec<Budget>, String> {
    use nt_hdl::nic::{NicHoma, NicHomaTr, NicNdp};
    let mut b = nic_budget_rows(
        "nic_ndp",
        nic_latencies(NicNdp::new(), false)?,
        [16.0, 3.0, 9.0, 1.0],
    );
    let homa = [20.0, 3.0, 9.0, 3.0];
    b.extend(nic_budget_rows(
        "nic_homa",
        nic_latencies(NicHoma::new(), true)?,
        homa,
    ));
    b.extend(nic_budget_rows(
        "nic_homatr",
        nic_latencies(NicHomaTr::new(), true)?,
        homa,
    ));
    // Bolt runs on the NDP layout; the thesis budgets NDP's pipeline.
    b.extend(nic_budget_rows(
        "nic_bolt",
        nic_latencies(nt_hdl::nic::NicBolt::new(), false)?,
        [16.0, 3.0, 9.0, 1.0],
    ));
    Ok(b)
}
