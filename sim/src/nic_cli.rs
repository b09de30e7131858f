//! `ntsim nic`: one NIC driven from packet captures and an application message file.
//!
//! * `IN.pcap`: Ethernet frames, taken in timestamp order (stable: equal timestamps keep
//!   their file order; as `ntsim switch`); each frame starts entering MAC RX at its
//!   timestamp in cycles (1 ns = 1 cycle, see [`crate::pcap`]), or right after the frame
//!   before it.
//! * `MSGS.jsonl`: one message per line, `{"cycle": C, "dst_ip": "10.0.0.2", "dst_port": P,
//!   "src_port": Q, ...}` with exactly one of `"payload_hex": "0a0b…"`, `"payload_text":
//!   "…"` or `"len": N` (bytes `0, 1, 2, …` modulo 256).
//! * `OUT.pcap`: every frame MAC TX sent, stamped with the cycle of its first word.
//! * `OUT.jsonl`: `{"event": "delivered", "cycle", "src_ip", "src_port", "local_port",
//!   "len", "payload_hex"}` per delivered message, and `{"event": "sent", "msg" (line
//!   number in MSGS.jsonl, from 1), "cycle", "outcome": "delivered" | "gave_up" |
//!   "refused"}` per sent message.
//!
//! `OUT.pcap` and `OUT.jsonl` are created before the run, so a bad path fails at once.
//!
//! The run ends when every input frame has entered, every message has an outcome and the
//! NIC has been quiet (nothing on MAC TX or to the application) for `quiet_cycles` (at
//! least 1); or at `max_cycles` (at least 1), which is reported with the input frames
//! stamped too late to be sent. The summary counts the parser's drops by reason and the
//! DATA packets dropped for want of a buffer ([`drops_line`]). Every input check:
//! `docs/reliability.md`, "CLI and input checks".
use crate::net::Engine;
use crate::nic_sim::HostStats;
use crate::nic_sim::{
    AppMsg, NicConfig, NicDriver, NicEngine, NicSim, Outcome, VNic, MAX_RTT_PKTS,
};
use crate::pcap::{create_output, read_input_pcap, write_pcap_to, Packet};
use nt_hdl::nic::{NicBolt, NicHoma, NicHomaTr, NicNdp};
use nt_hdl::packetization::MAX_MSG_BYTES;
use nt_hdl::parser::DROP_NAMES;
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Everything `ntsim nic` takes.
#[derive(Clone, Debug)]
pub struct NicArgs {
    pub program: String,
    pub cfg: NicConfig,
    pub input: Option<PathBuf>,
    pub output: PathBuf,
    pub send: Option<PathBuf>,
    pub delivered: Option<PathBuf>,
    pub quiet_cycles: u64,
    pub max_cycles: u64,
    /// What steps the NIC: our kernel on the rust-hdl block, or its Verilog under
    /// Verilator or compiled to Rust (built once per Verilog text and cached).
    pub engine: Engine,
}

/// The programs `ntsim nic` can run.
pub const PROGRAMS: &[&str] = &["ndp", "homa", "homatr", "bolt"];

/// Parses a dotted IPv4 address, strictly: four decimal parts of 1 to 3 digits, each
/// 0..=255, with no sign, no spaces and no leading zero (`010.0.0.1` is refused: other
/// tools read a leading zero as octal). The one parser of IPv4 addresses of `ntsim nic`,
/// `ntsim switch --route` and `ntsim run`'s topology files.
pub fn parse_ip(s: &str) -> Result<u32, String> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return Err(format!("bad IPv4 address {s:?} (want a.b.c.d)"));
    }
    let mut v = 0u32;
    for p in parts {
        let digits = !p.is_empty() && p.len() <= 3 && p.bytes().all(|c| c.is_ascii_digit());
        if !digits || (p.len() > 1 && p.starts_with('0')) {
            return Err(format!(
                "bad IPv4 address {s:?} (each part 0..=255 in decimal digits, no sign, no leading zero)"
            ));
        }
        let b: u8 = p
            .parse()
            .map_err(|_| format!("bad IPv4 address {s:?} (each part 0..=255)"))?;
        v = v << 8 | b as u32;
    }
    Ok(v)
}

/// Formats an IPv4 address.
pub fn fmt_ip(ip: u32) -> String {
    let b = ip.to_be_bytes();
    format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3])
}

/// Parses a MAC address, strictly: six parts of exactly two hex digits separated by `:`
/// (`aa:bb:cc:dd:ee:ff`, either case).
pub fn parse_mac(s: &str) -> Result<u64, String> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != 6 {
        return Err(format!("bad MAC address {s:?} (want aa:bb:cc:dd:ee:ff)"));
    }
    let mut v = 0u64;
    for p in parts {
        if p.len() != 2 || !p.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(format!(
                "bad MAC address {s:?} (each part exactly two hex digits)"
            ));
        }
        let b = u8::from_str_radix(p, 16)
            .map_err(|_| format!("bad MAC address {s:?} (each part two hex digits)"))?;
        v = v << 8 | b as u64;
    }
    Ok(v)
}

/// Formats a MAC address `aa:bb:cc:dd:ee:ff` (its low 48 bits).
pub fn fmt_mac(mac: u64) -> String {
    let b = mac.to_be_bytes();
    format!(
        "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
        b[2], b[3], b[4], b[5], b[6], b[7]
    )
}

/// Checks that `ip` can be a host's own address: not in 0.0.0.0/8 ("this network",
/// 0.0.0.0 is the unspecified address), 127.0.0.0/8 (loopback), 224.0.0.0/4 (multicast)
/// or 240.0.0.0/4 (reserved, with the broadcast address 255.255.255.255).
pub fn check_host_ip(ip: u32) -> Result<(), String> {
    let what = match ip >> 24 {
        0 => "in 0.0.0.0/8 (unspecified, \"this network\")",
        127 => "a loopback address (127.0.0.0/8)",
        224..=239 => "a multicast address (224.0.0.0/4)",
        _ if ip == u32::MAX => "the broadcast address",
        240..=255 => "a reserved address (240.0.0.0/4)",
        _ => return Ok(()),
    };
    Err(format!(
        "IPv4 address {} is {what}: a host's own address must be unicast",
        fmt_ip(ip)
    ))
}

/// Checks that `mac` can be a NIC's own address: 48 bits, not all zeros, and unicast (the
/// group bit, the low bit of the first byte, clear: not multicast, not broadcast).
pub fn check_host_mac(mac: u64) -> Result<(), String> {
    if mac >> 48 != 0 {
        return Err(format!("MAC {mac:#x} is wider than 48 bits"));
    }
    let what = if mac == 0 {
        "all zeros"
    } else if mac == 0xffff_ffff_ffff {
        "the broadcast address"
    } else if mac >> 40 & 1 == 1 {
        "a multicast (group) address (its first byte is odd)"
    } else {
        return Ok(());
    };
    Err(format!(
        "MAC address {} is {what}: a NIC's own address must be unicast",
        fmt_mac(mac)
    ))
}

/// [`parse_ip`] and [`check_host_ip`]: a host's own IPv4 address.
pub fn parse_host_ip(s: &str) -> Result<u32, String> {
    let ip = parse_ip(s)?;
    check_host_ip(ip)?;
    Ok(ip)
}

/// [`parse_mac`] and [`check_host_mac`]: a NIC's own MAC address.
pub fn parse_host_mac(s: &str) -> Result<u64, String> {
    let mac = parse_mac(s)?;
    check_host_mac(mac)?;
    Ok(mac)
}

/// The NIC's timeouts are below 2^31 cycles (the timer's 31-bit arithmetic).
pub const TIMEOUT_MAX: u32 = (1 << 31) - 1;

/// Checks a NIC's retransmission timeout, retry limit and receive timeout as a user gave
/// them, and returns the receive timeout (by default `timeout x (retries + 2)`, which
/// covers the sender's retry window `timeout x (retries + 1)`). `names` are the user's
/// names of the three (`--timeout-cycles`, `--retries`, `--rx-timeout-cycles`, or a
/// topology file's keys); every error names the value given and the range it may take.
pub fn check_timeouts(
    timeout: u32,
    retries: u8,
    rx_timeout: Option<u32>,
    names: [&str; 3],
) -> Result<u32, String> {
    let [tn, rn, xn] = names;
    if retries == 0 {
        return Err(format!("{rn} 0: must be 1..=255"));
    }
    let r = retries as u64;
    let (tmax, why) = match rx_timeout {
        None => (
            TIMEOUT_MAX as u64 / (r + 2),
            format!(
                "with {rn} {retries}: the default {xn}, {tn} x ({rn} + 2), must stay below 2^31; or give {xn}"
            ),
        ),
        Some(_) => (
            (TIMEOUT_MAX as u64 - 1) / (r + 1),
            format!(
                "with {rn} {retries}: the retry window, {tn} x ({rn} + 1), must stay below {xn}, itself below 2^31"
            ),
        ),
    };
    if (timeout as u64) < 64 || timeout as u64 > tmax {
        return Err(format!("{tn} {timeout}: must be 64..={tmax} cycles {why}"));
    }
    let window = timeout as u64 * (r + 1);
    match rx_timeout {
        None => Ok((timeout as u64 * (r + 2)) as u32),
        Some(x) if x as u64 > window && x <= TIMEOUT_MAX => Ok(x),
        Some(x) => Err(format!(
            "{xn} {x}: must be {}..={TIMEOUT_MAX} cycles (above the retry window {tn} x ({rn} + 1) = {window})",
            window + 1
        )),
    }
}

/// `ntsim nic`'s NIC configuration flags, as given.
#[derive(Clone, Debug)]
pub struct NicFlags {
    pub ip: String,
    pub mac: String,
    pub switch_mac: String,
    pub rtt_pkts: u8,
    pub timeout_cycles: u32,
    pub retries: u8,
    pub rx_timeout_cycles: Option<u32>,
    pub pull_gap: u16,
    pub unpaced_nacks: bool,
}

/// The NIC configuration of `ntsim nic`'s flags; every error names the flag and the value
/// given.
pub fn config_of_flags(f: &NicFlags) -> Result<NicConfig, String> {
    let ip = parse_host_ip(&f.ip).map_err(|e| format!("--ip: {e}"))?;
    let mac = parse_host_mac(&f.mac).map_err(|e| format!("--mac: {e}"))?;
    let mut cfg = NicConfig::new(mac, ip);
    cfg.switch_mac = parse_mac(&f.switch_mac).map_err(|e| format!("--switch-mac: {e}"))?;
    if !(1..=MAX_RTT_PKTS).contains(&f.rtt_pkts) {
        return Err(format!(
            "--rtt-pkts {}: must be 1..={MAX_RTT_PKTS} packets",
            f.rtt_pkts
        ));
    }
    cfg.rtt_pkts = f.rtt_pkts;
    cfg.rx_timeout = check_timeouts(
        f.timeout_cycles,
        f.retries,
        f.rx_timeout_cycles,
        ["--timeout-cycles", "--retries", "--rx-timeout-cycles"],
    )?;
    cfg.timeout = f.timeout_cycles;
    cfg.max_retries = f.retries;
    if f.pull_gap == 0 {
        return Err("--pull-gap 0: must be 1..=65535 cycles".into());
    }
    cfg.pull_gap = f.pull_gap;
    cfg.pace_nacks = !f.unpaced_nacks;
    cfg.validate()?;
    Ok(cfg)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MsgLine {
    cycle: u64,
    dst_ip: String,
    dst_port: u16,
    src_port: u16,
    payload_hex: Option<String>,
    payload_text: Option<String>,
    len: Option<usize>,
}

fn hex_bytes(s: &str) -> Result<Vec<u8>, String> {
    if !s.is_ascii() {
        return Err("payload_hex must be hex digits".into());
    }
    if !s.len().is_multiple_of(2) {
        return Err("payload_hex has an odd number of digits".into());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&s[i..i + 2], 16)
                .map_err(|_| format!("payload_hex: {:?} is not hex", &s[i..i + 2]))
        })
        .collect()
}

fn to_hex(b: &[u8]) -> String {
    b.iter()
        .fold(String::with_capacity(b.len() * 2), |mut s, x| {
            let _ = write!(s, "{x:02x}");
            s
        })
}

/// Reads an application message file (see the module documentation).
pub fn read_msgs(path: &Path) -> Result<Vec<AppMsg>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut out = vec![];
    let mut last_cycle = 0;
    for (n, line) in text.lines().enumerate() {
        let at = || format!("{}:{}", path.display(), n + 1);
        if line.trim().is_empty() {
            continue;
        }
        let m: MsgLine =
            serde_json::from_str(line).map_err(|e| format!("{}: bad message line: {e}", at()))?;
        // The length is checked before a payload is built: `"len": 18446744073709551615`
        // must not allocate.
        let len = match (&m.payload_hex, &m.payload_text, m.len) {
            (Some(h), None, None) => h.len().div_ceil(2),
            (None, Some(t), None) => t.len(),
            (None, None, Some(l)) => l,
            _ => {
                return Err(format!(
                    "{}: give exactly one of payload_hex, payload_text and len",
                    at()
                ))
            }
        };
        if len == 0 || len as u64 > MAX_MSG_BYTES {
            let what = if m.len.is_some() {
                format!("len {len}")
            } else {
                format!("a payload of {len} bytes")
            };
            return Err(format!(
                "{}: {what}: message length must be 1..={MAX_MSG_BYTES} bytes (the NIC's largest message)",
                at()
            ));
        }
        let payload = match (&m.payload_hex, &m.payload_text, m.len) {
            (Some(h), None, None) => hex_bytes(h).map_err(|e| format!("{}: {e}", at()))?,
            (None, Some(t), None) => t.as_bytes().to_vec(),
            _ => (0..len).map(|i| i as u8).collect(),
        };
        let m = AppMsg {
            cycle: m.cycle,
            dst_ip: parse_ip(&m.dst_ip).map_err(|e| format!("{}: {e}", at()))?,
            dst_port: m.dst_port,
            src_port: m.src_port,
            payload,
        };
        crate::nic_sim::check_msg(&m).map_err(|e| format!("{}: {e}", at()))?;
        if m.cycle < last_cycle {
            return Err(format!(
                "{}: cycle {} is before the previous message's {last_cycle} (keep the file in cycle order)",
                at(),
                m.cycle
            ));
        }
        last_cycle = m.cycle;
        out.push(m);
    }
    Ok(out)
}

/// The drops lines of the summary, from the NIC's `stat` outputs: the parser's drops in
/// total and by reason (those that happened), the DATA packets whose receive-message lookup
/// failed, by reason (no free message, buffer or table entry; malformed; `msg_len`
/// conflicting with an active message), late duplicates, messages the receive timer
/// dropped; and the control packets the sender did not believe, by reason.
pub fn drops_line(st: &HostStats) -> String {
    let parser = [
        st.rx_drop_overflow,
        st.rx_drop_too_long,
        st.rx_drop_truncated,
        st.rx_drop_not_ipv4,
        st.rx_drop_bad_ip_header,
        st.rx_drop_bad_length,
        st.rx_drop_bad_checksum,
        st.rx_drop_not_for_us,
        st.rx_drop_bad_protocol,
        st.rx_drop_bad_transport,
    ];
    let total: u64 = parser.iter().sum();
    let reasons: Vec<String> = DROP_NAMES
        .iter()
        .zip(parser)
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    let by = if reasons.is_empty() {
        String::new()
    } else {
        format!(" ({})", reasons.join(", "))
    };
    format!(
        "  rx drops: parser {total}{by}; DATA dropped for want of a buffer {} (no free message or buffer {}, malformed request {}, msg_len conflict {}); late duplicates {}; receive timeouts {}\n  tx: control packets not believed {} (no such message {}, wrong peer, ports or msg_len {}, offsets never sent {})\n",
        st.rx_lookup_fail,
        st.rx_no_buffer,
        st.rx_bad_request,
        st.rx_len_conflicts,
        st.rx_late_dups,
        st.rx_timeouts,
        st.tx_ctrl_stale + st.tx_ctrl_bad_peer + st.tx_ctrl_bad_offset,
        st.tx_ctrl_stale,
        st.tx_ctrl_bad_peer,
        st.tx_ctrl_bad_offset,
    )
}

/// Runs `ntsim nic`; returns the summary printed on success.
pub fn run(args: &NicArgs) -> Result<String, String> {
    args.cfg.validate()?;
    if args.max_cycles == 0 {
        return Err("--max-cycles 0: must be at least 1 cycle".into());
    }
    if args.quiet_cycles == 0 {
        return Err(
            "--quiet-cycles 0: must be at least 1 cycle (the run would end before the NIC answered its last input)"
                .into(),
        );
    }
    if !PROGRAMS.contains(&args.program.as_str()) {
        return Err(format!(
            "unknown program {:?}; known: {}",
            args.program,
            PROGRAMS.join(", ")
        ));
    }
    let frames = match &args.input {
        Some(p) => read_input_pcap(p)?,
        None => vec![],
    };
    let msgs = match &args.send {
        Some(p) => read_msgs(p)?,
        None => vec![],
    };
    // The outputs exist before the run: a bad path fails now, not after it.
    let out = create_output("--mac-tx", &args.output)?;
    let delivered = match &args.delivered {
        Some(p) => {
            // `--mac-tx` exists now: `--delivered` is the same file if it resolves to it.
            let same = std::fs::canonicalize(p)
                .ok()
                .is_some_and(|d| std::fs::canonicalize(&args.output).is_ok_and(|o| o == d));
            if same {
                return Err(format!(
                    "--delivered {}: the same file as --mac-tx",
                    p.display()
                ));
            }
            Some(create_output("--delivered", p)?)
        }
        None => None,
    };
    let files = OutFiles { out, delivered };
    let args = args.clone();
    if let Some(b) = args.engine.backend() {
        let v = VNic::of_program(b, &args.program, false)?;
        let nic = NicDriver::with_engine(v, args.cfg.clone())?;
        return run_with(nic, &args, frames, msgs, files);
    }
    // The NIC top is a large value: build and run it on a thread with room for it.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let cfg = args.cfg.clone();
            macro_rules! on_kernel {
                ($top:expr) => {
                    run_with(NicSim::new($top, cfg)?, &args, frames, msgs, files)
                };
            }
            match args.program.as_str() {
                "ndp" => on_kernel!(NicNdp::new()),
                "homa" => on_kernel!(NicHoma::new()),
                "homatr" => on_kernel!(NicHomaTr::new()),
                "bolt" => on_kernel!(NicBolt::new()),
                other => Err(format!(
                    "unknown program {other:?}; known: {}",
                    PROGRAMS.join(", ")
                )),
            }
        })
        .map_err(|e| format!("cannot start the simulation thread: {e}"))?
        .join()
        .map_err(|_| "the simulation thread panicked".to_string())?
}

/// The output files, created before the run.
struct OutFiles {
    out: std::fs::File,
    delivered: Option<std::fs::File>,
}

fn run_with<E: NicEngine>(
    mut nic: NicDriver<E>,
    args: &NicArgs,
    frames: Vec<Packet>,
    msgs: Vec<AppMsg>,
    mut files: OutFiles,
) -> Result<String, String> {
    let n_frames = frames.len();
    let n_msgs = msgs.len();
    for f in frames {
        nic.push_rx(f);
    }
    for m in msgs {
        nic.send(m);
    }
    let t0 = std::time::Instant::now();
    let mut quiet = 0u64;
    let mut capped = false;
    let (mut tx_seen, mut rx_seen) = (0usize, 0usize);
    loop {
        let now = nic.cycle();
        if now >= args.max_cycles {
            capped = true;
            break;
        }
        if now > 0 && now % 1_000_000 == 0 {
            eprintln!(
                "  ntsim nic: cycle {now}, {} frames out, {} delivered, {} of {n_msgs} messages resolved ({:.0} cycles/s)",
                nic.tx_frames.len(),
                nic.delivered.len(),
                nic.outcomes.len(),
                now as f64 / t0.elapsed().as_secs_f64()
            );
        }
        nic.step()?;
        let p = nic.last_probe;
        let moved = p.mac_tx || p.app_rx || p.mac_rx || p.app_tx;
        let (t, r) = (nic.tx_frames.len(), nic.delivered.len());
        quiet = if moved || t != tx_seen || r != rx_seen {
            0
        } else {
            quiet + 1
        };
        (tx_seen, rx_seen) = (t, r);
        if nic.edges_idle() && nic.unresolved() == 0 && quiet >= args.quiet_cycles {
            break;
        }
    }
    write_pcap_to(&mut files.out, &args.output, &nic.tx_frames)?;
    if let (Some(p), Some(f)) = (&args.delivered, files.delivered.as_mut()) {
        let mut s = String::new();
        for d in &nic.delivered {
            let v = serde_json::json!({
                "event": "delivered",
                "cycle": d.cycle,
                "src_ip": fmt_ip(d.src_ip),
                "src_port": d.src_port,
                "local_port": d.local_port,
                "len": d.payload.len(),
                "payload_hex": to_hex(&d.payload),
            });
            s.push_str(&v.to_string());
            s.push('\n');
        }
        for o in &nic.outcomes {
            let v = serde_json::json!({
                "event": "sent",
                "msg": o.msg + 1,
                "cycle": o.cycle,
                "outcome": match o.outcome {
                    Outcome::Delivered => "delivered",
                    Outcome::GaveUp => "gave_up",
                    Outcome::Refused => "refused",
                },
            });
            s.push_str(&v.to_string());
            s.push('\n');
        }
        std::io::Write::write_all(f, s.as_bytes())
            .map_err(|e| format!("{}: cannot write: {e}", p.display()))?;
    }
    let st = nic.stats();
    let secs = t0.elapsed().as_secs_f64();
    // Frames whose first word entered MAC RX; the others were stamped too late for the run.
    let not_in = nic.rx_backlog();
    let cut = if nic.rx_entering() {
        ", the last cut off by --max-cycles"
    } else {
        ""
    };
    let mut out = format!(
        "ntsim nic ({}, {}): {} cycles in {secs:.1} s ({:.0} cycles/s)\n  in:  {} frames{cut}, {} passed the parser, {} DATA, {} control, {} trimmed\n",
        args.program,
        args.engine.name(),
        nic.cycle(),
        nic.cycle() as f64 / secs.max(1e-9),
        n_frames - not_in,
        st.rx_passed,
        st.rx_data,
        st.rx_ctrl,
        st.rx_trimmed,
    );
    if not_in > 0 {
        out.push_str(&format!(
            "  not in: {not_in} frames after --max-cycles {} not sent (stamped too late for the run)\n",
            args.max_cycles
        ));
    }
    out.push_str(&drops_line(&st));
    out.push_str(&format!(
        "  out: {} frames ({} DATA incl. {} retransmitted, {} control) -> {}\n  app: {} messages delivered; {} of {n_msgs} sent messages resolved ({} delivered, {} given up, {} refused)\n",
        nic.tx_frames.len(),
        st.tx_data,
        st.tx_retransmitted,
        st.tx_ctrl,
        args.output.display(),
        nic.delivered.len(),
        nic.outcomes.len(),
        nic.outcomes.iter().filter(|o| o.outcome == Outcome::Delivered).count(),
        nic.outcomes.iter().filter(|o| o.outcome == Outcome::GaveUp).count(),
        nic.outcomes.iter().filter(|o| o.outcome == Outcome::Refused).count(),
    ));
    if capped {
        out.push_str(&format!(
            "  stopped at --max-cycles {} with {} messages unresolved ({} of them not yet taken by app_tx)\n",
            args.max_cycles,
            nic.unresolved(),
            nic.app_backlog()
        ));
    }
    Ok(out)
}
