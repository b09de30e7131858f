//! `ntsim nic`: one NIC driven from packet captures and an application message file.
//!
//! * `IN.pcap`: Ethernet frames; each frame starts entering MAC RX at its timestamp in
//!   cycles (1 ns = 1 cycle, see [`crate::pcap`]), or right after the frame before it.
//! * `MSGS.jsonl`: one message per line, `{"cycle": C, "dst_ip": "10.0.0.2", "dst_port": P,
//!   "src_port": Q, ...}` with exactly one of `"payload_hex": "0a0b…"`, `"payload_text":
//!   "…"` or `"len": N` (bytes `0, 1, 2, …` modulo 256).
//! * `OUT.pcap`: every frame MAC TX sent, stamped with the cycle of its first word.
//! * `OUT.jsonl`: `{"event": "delivered", "cycle", "src_ip", "src_port", "local_port",
//!   "len", "payload_hex"}` per delivered message, and `{"event": "sent", "msg" (line
//!   number in MSGS.jsonl, from 1), "cycle", "outcome": "delivered" | "gave_up" |
//!   "refused"}` per sent message.
//!
//! The run ends when every input frame has entered, every message has an outcome and the
//! NIC has been quiet (nothing on MAC TX or to the application) for `quiet_cycles`; or at
//! `max_cycles`, which is reported.
use crate::nic_sim::{AppMsg, NicConfig, NicSim, Outcome};
use crate::pcap::{read_pcap, write_pcap, Packet};
use nt_hdl::nic::{NicHoma, NicHomaTr, NicNdp, NicTop};
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
}

/// The programs `ntsim nic` can run.
pub const PROGRAMS: &[&str] = &["ndp", "homa", "homatr", "bolt"];

/// Parses a dotted IPv4 address.
pub fn parse_ip(s: &str) -> Result<u32, String> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return Err(format!("bad IPv4 address {s:?} (want a.b.c.d)"));
    }
    let mut v = 0u32;
    for p in parts {
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

/// Parses a MAC address `aa:bb:cc:dd:ee:ff`.
pub fn parse_mac(s: &str) -> Result<u64, String> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != 6 {
        return Err(format!("bad MAC address {s:?} (want aa:bb:cc:dd:ee:ff)"));
    }
    let mut v = 0u64;
    for p in parts {
        let b = u8::from_str_radix(p, 16)
            .map_err(|_| format!("bad MAC address {s:?} (each part two hex digits)"))?;
        v = v << 8 | b as u64;
    }
    Ok(v)
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
        let payload = match (&m.payload_hex, &m.payload_text, m.len) {
            (Some(h), None, None) => hex_bytes(h).map_err(|e| format!("{}: {e}", at()))?,
            (None, Some(t), None) => t.as_bytes().to_vec(),
            (None, None, Some(l)) => (0..l).map(|i| i as u8).collect(),
            _ => {
                return Err(format!(
                    "{}: give exactly one of payload_hex, payload_text and len",
                    at()
                ))
            }
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

/// Runs `ntsim nic`; returns the summary printed on success.
pub fn run(args: &NicArgs) -> Result<String, String> {
    args.cfg.validate()?;
    if args.max_cycles == 0 {
        return Err("--max-cycles must be at least 1".into());
    }
    let frames = match &args.input {
        Some(p) => read_pcap(p)?,
        None => vec![],
    };
    let msgs = match &args.send {
        Some(p) => read_msgs(p)?,
        None => vec![],
    };
    let args = args.clone();
    // The NIC top is a large value: build and run it on a thread with room for it.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || match args.program.as_str() {
            "ndp" => run_with(NicNdp::new(), &args, frames, msgs),
            "homa" => run_with(NicHoma::new(), &args, frames, msgs),
            "homatr" => run_with(NicHomaTr::new(), &args, frames, msgs),
            "bolt" => run_with(nt_hdl::nic::NicBolt::new(), &args, frames, msgs),
            other => Err(format!(
                "unknown program {other:?}; known: {}",
                PROGRAMS.join(", ")
            )),
        })
        .map_err(|e| format!("cannot start the simulation thread: {e}"))?
        .join()
        .map_err(|_| "the simulation thread panicked".to_string())?
}

fn run_with<T: NicTop>(
    top: T,
    args: &NicArgs,
    frames: Vec<Packet>,
    msgs: Vec<AppMsg>,
) -> Result<String, String> {
    let mut nic = NicSim::new(top, args.cfg.clone())?;
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
    write_pcap(&args.output, &nic.tx_frames)?;
    if let Some(p) = &args.delivered {
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
        std::fs::write(p, s).map_err(|e| format!("{}: cannot write: {e}", p.display()))?;
    }
    let st = nic.kernel().uut().stat();
    let secs = t0.elapsed().as_secs_f64();
    let mut out = format!(
        "ntsim nic ({}): {} cycles in {secs:.1} s ({:.0} cycles/s)\n  in:  {n_frames} frames, {} passed the parser, {} DATA, {} control, {} trimmed\n  out: {} frames ({} DATA incl. {} retransmitted, {} control) -> {}\n  app: {} messages delivered; {} of {n_msgs} sent messages resolved ({} delivered, {} given up, {} refused)\n",
        T::PROGRAM,
        nic.cycle(),
        nic.cycle() as f64 / secs.max(1e-9),
        st.rx_passed.val().to_u64(),
        st.rx_data.val().to_u64(),
        st.rx_ctrl.val().to_u64(),
        st.rx_trimmed.val().to_u64(),
        nic.tx_frames.len(),
        st.tx_data.val().to_u64(),
        st.tx_retransmitted.val().to_u64(),
        st.tx_ctrl.val().to_u64(),
        args.output.display(),
        nic.delivered.len(),
        nic.outcomes.len(),
        nic.outcomes.iter().filter(|o| o.outcome == Outcome::Delivered).count(),
        nic.outcomes.iter().filter(|o| o.outcome == Outcome::GaveUp).count(),
        nic.outcomes.iter().filter(|o| o.outcome == Outcome::Refused).count(),
    );
    if capped {
        out.push_str(&format!(
            "  stopped at --max-cycles {} with {} messages unresolved\n",
            args.max_cycles,
            nic.unresolved()
        ));
    }
    Ok(out)
}
