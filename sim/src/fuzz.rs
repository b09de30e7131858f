//! `ntsim fuzz` (issue 37): a seeded fuzz harness for the NIC and switch top blocks on the
//! compiled engine.
//!
//! A run feeds the target's MAC RX a mix of
//! * valid traffic: for a NIC, real messages from a peer NIC (two NICs of the same program
//!   wired back to back, each the other's next hop, both sending), so that they complete;
//!   for a switch, well-formed transport frames from every port to every host (skewed
//!   towards port 0, so that it congests and drops, trims, returns or sends SRCs);
//! * structured mutations of valid frames ([`Class`]): truncated at every interesting
//!   length, too long, IPv4 total length longer or shorter than the frame, bad IPv4
//!   checksum, bad version/IHL, fragments, not IPv4, another IP protocol, another
//!   destination IP or MAC, transport fields out of range (`msg_len` 0 or above 38 KiB,
//!   `pkt_offset` beyond the message, undefined flags), duplicated and late copies of the
//!   peer's frames, forged control packets for a real `tx_msg_id` of the target (from
//!   another source IP, other ports, another `msg_len`, an offset never sent, a Homa GRANT
//!   of priority 255) and a forged DATA with a real message's key and another `msg_len`;
//! * random bytes.
//!
//! An independent checker (its own model of the parser's and the switch's rules, not the
//! simulator's bookkeeping) asserts at the end of the run:
//! * NIC: every frame into the target is classified by [`nic_verdict`]; `rx_frames` =
//!   `rx_passed` + the drop reasons, and each of them equals the checker's count (so no
//!   frame the checker knows is malformed is counted as passed); forged control packets
//!   that claim another peer, ports or `msg_len` are all counted under `tx_ctrl_*`; every
//!   message both NICs sent is delivered exactly once, byte for byte, and its sender reports
//!   it delivered (a message given up is counted, and must not be delivered twice);
//! * switch: frames in + SRCs generated = frames out + `drop_malformed` + `drop_no_route`
//!   + `drop_full` + `drop_header` + `dod_drop`; `drop_no_route` equals the checker's
//!   count and `drop_malformed` its count of malformed frames ([`switch_verdict`]: a frame
//!   shorter than 64 bytes or whose length disagrees with its IPv4 total length is
//!   malformed, never forwarded or trimmed), less those the switch refused before it knew
//!   their length (counted in `drop_full`: the shared-buffer switch, `nt_hdl::switch2`,
//!   finds a length mismatch as it stores the frame, after admission); every
//!   frame out is well-formed, and every frame out that is neither a trimmed header nor an
//!   SRC is a frame that went in (Bolt's 9 bytes aside);
//! * every frame the target sent passes the checker's IPv4 checks and `tshark` flags none
//!   of them (`-o ip.check_checksum:TRUE`, frames with `_ws.malformed`, an expert
//!   warning or error, or a bad IPv4 checksum);
//! * nothing panics: an inconsistency is an `Err` naming the frame.
//!
//! The switch does not verify the IPv4 checksum (it forwards a frame as it came, `nt_hdl::
//! switch`), so bad checksums are a NIC-only class.
use crate::nic_sim::{HostStats, NicConfig, NicDriver, Outcome, VNic};
use crate::pcap::{pcap_bytes, Packet};
use crate::switch_workload::{port_ip, port_mac, PortStats, SwitchSetup};
use crate::vmodel::Backend;
use crate::wire::{
    field, ipv4_checksum, set_field, Frame, Layout, Transport, BOLT_OFFSET, FLAG_ACK, FLAG_CHOP,
    FLAG_DATA, FLAG_NACK, FLAG_PULL_GRANT, HDR_BYTES, PROTO_HOMA, PROTO_NDP,
};
use nt_hdl::mode::SwitchMode;
use nt_hdl::parser::{
    DROP_BAD_CHECKSUM, DROP_BAD_IP, DROP_BAD_LENGTH, DROP_BAD_PROTOCOL, DROP_BAD_TRANSPORT,
    DROP_NAMES, DROP_NOT_FOR_US, DROP_NOT_IPV4, DROP_REASONS, DROP_TOO_LONG, DROP_TRUNCATED,
    MAX_FRAME_BYTES, MAX_MSG_BYTES,
};
use nt_hdl::swif::{BOLT_DATA, BOLT_FIRST, BOLT_INC, BOLT_LAST, BOLT_SRC};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The targets, as `--target` names them: `nic-<program>`, then `switch-<mode>` for every
/// mode of [`nt_hdl::mode::MODES`] in its order.
pub const TARGETS: [&str; 8] = [
    "nic-ndp",
    "nic-homa",
    "nic-homatr",
    "nic-bolt",
    "switch-droptail",
    "switch-trim",
    "switch-tofino-trim",
    "switch-bolt",
];

/// Most frames a run takes (`--frames`).
pub const MAX_FRAMES: u64 = 1_000_000_000;
/// Frames of the target's output written to the capture tshark checks (the first ones);
/// the checker's own IPv4 checks see every frame.
pub const PCAP_FRAMES: u64 = 1_000_000;

/// The fuzz target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Nic(&'static str),
    Switch(SwitchMode),
}

impl Target {
    /// The target named `s` (one of [`TARGETS`]).
    pub fn parse(s: &str) -> Result<Target, String> {
        let unknown = || format!("unknown fuzz target {s:?}; known: {}", TARGETS.join(", "));
        if let Some(m) = s.strip_prefix("switch-") {
            return SwitchMode::parse(m)
                .map(Target::Switch)
                .map_err(|_| unknown());
        }
        Ok(match s {
            "nic-ndp" => Target::Nic("ndp"),
            "nic-homa" => Target::Nic("homa"),
            "nic-homatr" => Target::Nic("homatr"),
            "nic-bolt" => Target::Nic("bolt"),
            _ => return Err(unknown()),
        })
    }

    pub fn name(&self) -> &'static str {
        match *self {
            Target::Nic("ndp") => TARGETS[0],
            Target::Nic("homa") => TARGETS[1],
            Target::Nic("homatr") => TARGETS[2],
            Target::Nic(_) => TARGETS[3],
            Target::Switch(m) => TARGETS[4 + m as usize],
        }
    }
}

/// What a frame into the target is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Valid traffic: the peer NIC's frames, or well-formed frames into a switch.
    Valid,
    /// Cut to 1-13 bytes (no Ethernet header).
    TruncEth,
    /// Cut to 14-33 bytes (no whole IPv4 header).
    TruncIp,
    /// Cut to 34-56 bytes.
    TruncTransport,
    /// Cut to 57-63 bytes (short of the 64 header bytes).
    TruncNear,
    /// One 8-byte word short.
    WordShort,
    /// Longer than 1088 bytes (IPv4 total length matching).
    TooLong,
    /// IPv4 total length above / below the frame's (checksum correct).
    IpLenLonger,
    IpLenShorter,
    /// IPv4 header checksum wrong (NIC targets only).
    BadChecksum,
    /// Version/IHL not 4/5.
    BadVersion,
    /// A fragment (MF or an offset).
    Fragment,
    /// Ethertype not IPv4.
    NotIpv4,
    /// Another IP protocol.
    WrongProtocol,
    /// Another destination IP / MAC.
    WrongDstIp,
    WrongDstMac,
    /// Transport `msg_len` 0, above 38 KiB, `pkt_offset` beyond the message, undefined flags.
    MsgLenZero,
    MsgLenTooBig,
    OffsetBeyond,
    BadFlags,
    /// A copy of a recent peer frame, and of a peer DATA frame up to 8,000 cycles old.
    Duplicate,
    Late,
    /// A real control packet for the target's message with another source IP, other
    /// ports, another `msg_len`, an offset never sent (`pkt_offset` = packet count).
    CtrlWrongIp,
    CtrlWrongPorts,
    CtrlWrongLen,
    CtrlBadOffset,
    /// Homa: a GRANT of priority 255 (NDP, Bolt: a second bad-offset control packet).
    GrantPrio255,
    /// A real DATA packet with another `msg_len` (still parser-valid).
    DataOtherLen,
    /// Random bytes, 1-1200 of them.
    Random,
}

/// Every class, in report order.
pub const CLASSES: [Class; 29] = [
    Class::Valid,
    Class::TruncEth,
    Class::TruncIp,
    Class::TruncTransport,
    Class::TruncNear,
    Class::WordShort,
    Class::TooLong,
    Class::IpLenLonger,
    Class::IpLenShorter,
    Class::BadChecksum,
    Class::BadVersion,
    Class::Fragment,
    Class::NotIpv4,
    Class::WrongProtocol,
    Class::WrongDstIp,
    Class::WrongDstMac,
    Class::MsgLenZero,
    Class::MsgLenTooBig,
    Class::OffsetBeyond,
    Class::BadFlags,
    Class::Duplicate,
    Class::Late,
    Class::CtrlWrongIp,
    Class::CtrlWrongPorts,
    Class::CtrlWrongLen,
    Class::CtrlBadOffset,
    Class::GrantPrio255,
    Class::DataOtherLen,
    Class::Random,
];

impl Class {
    pub fn name(&self) -> &'static str {
        match self {
            Class::Valid => "valid",
            Class::TruncEth => "trunc<14",
            Class::TruncIp => "trunc<34",
            Class::TruncTransport => "trunc<57",
            Class::TruncNear => "trunc57-63",
            Class::WordShort => "word_short",
            Class::TooLong => "too_long",
            Class::IpLenLonger => "iplen_longer",
            Class::IpLenShorter => "iplen_shorter",
            Class::BadChecksum => "bad_checksum",
            Class::BadVersion => "bad_version_ihl",
            Class::Fragment => "fragment",
            Class::NotIpv4 => "not_ipv4",
            Class::WrongProtocol => "wrong_protocol",
            Class::WrongDstIp => "wrong_dst_ip",
            Class::WrongDstMac => "wrong_dst_mac",
            Class::MsgLenZero => "msg_len_0",
            Class::MsgLenTooBig => "msg_len_too_big",
            Class::OffsetBeyond => "offset_beyond",
            Class::BadFlags => "bad_flags",
            Class::Duplicate => "duplicate",
            Class::Late => "late",
            Class::CtrlWrongIp => "ctrl_wrong_ip",
            Class::CtrlWrongPorts => "ctrl_wrong_ports",
            Class::CtrlWrongLen => "ctrl_wrong_len",
            Class::CtrlBadOffset => "ctrl_bad_offset",
            Class::GrantPrio255 => "grant_prio255",
            Class::DataOtherLen => "data_other_len",
            Class::Random => "random",
        }
    }

    fn index(&self) -> usize {
        CLASSES.iter().position(|c| c == self).unwrap_or(0)
    }

    /// The parser drop reason a NIC must give a frame of this class, when the class
    /// decides it alone (`None`: it passes, or it depends on the frame).
    pub fn nic_reason(&self) -> Option<usize> {
        Some(match self {
            Class::TruncEth
            | Class::TruncIp
            | Class::TruncTransport
            | Class::TruncNear
            | Class::WordShort => DROP_TRUNCATED,
            Class::TooLong => DROP_TOO_LONG,
            Class::IpLenLonger | Class::IpLenShorter => DROP_BAD_LENGTH,
            Class::BadChecksum => DROP_BAD_CHECKSUM,
            Class::BadVersion | Class::Fragment => DROP_BAD_IP,
            Class::NotIpv4 => DROP_NOT_IPV4,
            Class::WrongProtocol => DROP_BAD_PROTOCOL,
            Class::WrongDstIp | Class::WrongDstMac => DROP_NOT_FOR_US,
            Class::MsgLenZero | Class::MsgLenTooBig | Class::OffsetBeyond | Class::BadFlags => {
                DROP_BAD_TRANSPORT
            }
            _ => return None,
        })
    }

    /// Forged control packets that no sender may believe whatever the state of the message
    /// (another peer, ports or `msg_len`: `tx_ctrl_bad_peer`, or `tx_ctrl_stale` once the
    /// message is gone).
    fn never_believed(&self) -> bool {
        matches!(
            self,
            Class::CtrlWrongIp | Class::CtrlWrongPorts | Class::CtrlWrongLen
        )
    }
}

/// The NIC parser's verdict on a frame, by the parser's documented rules (`nt_hdl::parser`,
/// checks 2-10; the ring overflow is not modelled: the harness paces its input so that
/// the ring never fills, and checks that). `Err(reason)` is a drop.
pub fn nic_verdict(b: &[u8], mac: u64, ip: u32, proto: u8, bolt: bool) -> Result<(), usize> {
    let len = b.len();
    if len as u64 > MAX_FRAME_BYTES {
        return Err(DROP_TOO_LONG);
    }
    if len < HDR_BYTES {
        return Err(DROP_TRUNCATED);
    }
    if field(b, 12, 2) != 0x0800 {
        return Err(DROP_NOT_IPV4);
    }
    if b[14] != 0x45 || field(b, 20, 2) & 0x3fff != 0 {
        return Err(DROP_BAD_IP);
    }
    if field(b, 16, 2) + 14 != len as u64 {
        return Err(DROP_BAD_LENGTH);
    }
    if ipv4_checksum(&b[14..34]) != 0 {
        return Err(DROP_BAD_CHECKSUM);
    }
    if field(b, 0, 6) != mac || field(b, 30, 4) != ip as u64 {
        return Err(DROP_NOT_FOR_US);
    }
    if b[23] != proto {
        return Err(DROP_BAD_PROTOCOL);
    }
    if !transport_ok(b, bolt) {
        return Err(DROP_BAD_TRANSPORT);
    }
    Ok(())
}

/// Check 10 of the parser: flags, `msg_len`, offset and payload length.
fn transport_ok(b: &[u8], bolt: bool) -> bool {
    let flags = b[34];
    let msg_len = field(b, 39, 2);
    let off = b[41] as u64;
    let total = (msg_len >> 10) + (msg_len & 0x3ff != 0) as u64;
    let payload = b.len() as u64 - HDR_BYTES as u64;
    let len_ok = msg_len != 0 && msg_len <= MAX_MSG_BYTES;
    let mut ok = flags & 0xe0 == 0 && flags & 0x0f != 0 && len_ok;
    if flags & FLAG_DATA != 0 {
        let want = if off + 1 == total {
            msg_len.wrapping_sub(off << 10)
        } else {
            1024
        };
        if off >= total {
            ok = false;
        }
        if flags & FLAG_CHOP != 0 {
            ok &= payload == 0;
        } else {
            ok &= payload == want;
        }
    } else if off > total || payload != 1 || flags & FLAG_CHOP != 0 {
        ok = false;
    }
    if bolt
        && flags == 0
        && b[BOLT_OFFSET + 4] & BOLT_SRC != 0
        && len_ok
        && off < total
        && payload == 0
    {
        ok = true;
    }
    ok
}

/// The switch's verdict on a frame before admission: malformed (shorter than the 64
/// header bytes, not IPv4, version/IHL not 4/5, IPv4 total length outside 50..=1074 or
/// disagreeing with the frame's length), no route, or the output port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwitchVerdict {
    Malformed,
    NoRoute,
    Port(usize),
}

/// [`SwitchVerdict`] of `b` with the forwarding table `routes` (valid, ip, port).
pub fn switch_verdict(b: &[u8], routes: &[(bool, u32, u64)]) -> SwitchVerdict {
    if !switch_well_formed(b) {
        return SwitchVerdict::Malformed;
    }
    let dst = field(b, 30, 4) as u32;
    match routes.iter().find(|r| r.0 && r.1 == dst) {
        Some(&(_, _, p)) if (p as usize) < routes.len() => SwitchVerdict::Port(p as usize),
        _ => SwitchVerdict::NoRoute,
    }
}

fn switch_well_formed(b: &[u8]) -> bool {
    let len = b.len() as u64;
    if len < HDR_BYTES as u64 || field(b, 12, 2) != 0x0800 || b[14] != 0x45 {
        return false;
    }
    let total = field(b, 16, 2);
    (50..=1074).contains(&total) && total + 14 == len
}

/// The checker's IPv4 checks of a frame a target sent: IPv4, 4/5, total length equal to
/// the frame's, checksum correct, 64..=1088 bytes. `Err` says what is wrong.
pub fn check_output(b: &[u8]) -> Result<(), String> {
    if b.len() < HDR_BYTES || b.len() as u64 > MAX_FRAME_BYTES {
        return Err(format!("{} bytes (64..=1088)", b.len()));
    }
    if field(b, 12, 2) != 0x0800 || b[14] != 0x45 {
        return Err("not IPv4 with a 20-byte header".into());
    }
    if field(b, 16, 2) + 14 != b.len() as u64 {
        return Err(format!(
            "IPv4 total length {} for a frame of {} bytes",
            field(b, 16, 2),
            b.len()
        ));
    }
    if ipv4_checksum(&b[14..34]) != 0 {
        return Err("bad IPv4 header checksum".into());
    }
    Ok(())
}

/// Sets the IPv4 checksum of `b` (at least 34 bytes) right for its header.
pub fn fix_checksum(b: &mut [u8]) {
    if b.len() >= 34 {
        set_field(b, 24, 0, 2);
        let c = ipv4_checksum(&b[14..34]) as u64;
        set_field(b, 24, c, 2);
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

fn hash(b: &[u8]) -> u64 {
    // FNV-1a, 64 bits.
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ x as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// A fuzz run's arguments.
#[derive(Clone, Debug)]
pub struct FuzzArgs {
    pub target: String,
    pub frames: u64,
    pub seed: u64,
    /// Where the captures go (`<target>-in.pcap`, `<target>-out.pcap`); a temporary
    /// directory (removed after) when `None`.
    pub out: Option<PathBuf>,
    /// A progress line to stderr every few seconds.
    pub progress: bool,
    /// NIC targets: messages each NIC keeps unresolved (1 ..= 16).
    pub open: usize,
}

/// What the checker expects of a NIC's counters: frames in by the parser's verdict, and
/// forged control packets that must not be believed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NicExpect {
    pub frames: u64,
    pub passed: u64,
    pub drops: [u64; DROP_REASONS],
    pub forged_unbelievable: u64,
}

/// Checks a NIC's counters against the checker's expectation.
pub fn check_nic_counts(e: &NicExpect, s: &HostStats) -> Result<(), String> {
    let drops = [
        s.rx_drop_overflow,
        s.rx_drop_too_long,
        s.rx_drop_truncated,
        s.rx_drop_not_ipv4,
        s.rx_drop_bad_ip_header,
        s.rx_drop_bad_length,
        s.rx_drop_bad_checksum,
        s.rx_drop_not_for_us,
        s.rx_drop_bad_protocol,
        s.rx_drop_bad_transport,
    ];
    let mut err = vec![];
    if s.rx_frames != s.rx_passed + drops.iter().sum::<u64>() {
        err.push(format!(
            "rx_frames {} != rx_passed {} + drops {}",
            s.rx_frames,
            s.rx_passed,
            drops.iter().sum::<u64>()
        ));
    }
    if s.rx_frames != e.frames {
        err.push(format!(
            "rx_frames {} but {} frames went in",
            s.rx_frames, e.frames
        ));
    }
    if s.rx_passed != e.passed {
        err.push(format!(
            "rx_passed {} but the checker passed {}",
            s.rx_passed, e.passed
        ));
    }
    for r in 0..DROP_REASONS {
        if drops[r] != e.drops[r] {
            err.push(format!(
                "rx_drop_{} {} but the checker dropped {} for it",
                DROP_NAMES[r], drops[r], e.drops[r]
            ));
        }
    }
    let believed_not = s.tx_ctrl_stale + s.tx_ctrl_bad_peer + s.tx_ctrl_bad_offset;
    if believed_not < e.forged_unbelievable {
        err.push(format!(
            "{} forged control packets (other peer, ports or msg_len) but tx_ctrl_stale + tx_ctrl_bad_peer + tx_ctrl_bad_offset = {believed_not}",
            e.forged_unbelievable
        ));
    }
    if err.is_empty() {
        Ok(())
    } else {
        Err(err.join("; "))
    }
}

/// What the checker counted of a switch run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwitchExpect {
    pub frames_in: u64,
    pub frames_out: u64,
    pub malformed: u64,
    pub no_route: u64,
}

/// The switch's counters summed over its ports.
pub fn sum_ports(stats: &[PortStats]) -> PortStats {
    let mut t = PortStats::default();
    for s in stats {
        t.rx_frames += s.rx_frames;
        t.tx_frames += s.tx_frames;
        t.drop_malformed += s.drop_malformed;
        t.drop_no_route += s.drop_no_route;
        t.drop_full += s.drop_full;
        t.trimmed += s.trimmed;
        t.returned += s.returned;
        t.drop_header += s.drop_header;
        t.src_sent += s.src_sent;
        t.src_drop += s.src_drop;
        t.dod_trims += s.dod_trims;
        t.dod_drop += s.dod_drop;
    }
    t
}

/// Checks a switch's summed counters against the checker's counts and the balance
/// in + generated = out + drops.
pub fn check_switch_counts(e: &SwitchExpect, t: &PortStats) -> Result<(), String> {
    let mut err = vec![];
    if t.rx_frames != e.frames_in {
        err.push(format!(
            "rx_frames {} but {} frames went in",
            t.rx_frames, e.frames_in
        ));
    }
    if t.tx_frames != e.frames_out {
        err.push(format!(
            "tx_frames {} but {} frames came out",
            t.tx_frames, e.frames_out
        ));
    }
    // The shared switch finds a length that disagrees with IPv4 as it stores the frame,
    // after its admission: such a frame that was refused is counted in `drop_full`.
    if t.drop_malformed > e.malformed || t.drop_malformed + t.drop_full < e.malformed {
        err.push(format!(
            "drop_malformed {} (drop_full {}) but the checker found {} malformed frames",
            t.drop_malformed, t.drop_full, e.malformed
        ));
    }
    if t.drop_no_route != e.no_route {
        err.push(format!(
            "drop_no_route {} but the checker found {} frames without a route",
            t.drop_no_route, e.no_route
        ));
    }
    let lhs = t.rx_frames + t.src_sent;
    let rhs =
        t.tx_frames + t.drop_malformed + t.drop_no_route + t.drop_full + t.drop_header + t.dod_drop;
    if lhs != rhs {
        err.push(format!(
            "in {} + SRCs {} != out {} + malformed {} + no_route {} + full {} + header {} + dod_drop {}",
            t.rx_frames,
            t.src_sent,
            t.tx_frames,
            t.drop_malformed,
            t.drop_no_route,
            t.drop_full,
            t.drop_header,
            t.dod_drop
        ));
    }
    if err.is_empty() {
        Ok(())
    } else {
        Err(err.join("; "))
    }
}

/// tshark's verdict on a capture: frames read, and frames flagged (malformed, an expert
/// warning or error, or a bad IPv4 checksum) with their numbers (the first few).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TsharkResult {
    pub frames: u64,
    pub flagged: u64,
    pub first_flagged: Vec<u64>,
}

/// Runs tshark on `pcap` with IPv4 checksum checking on: a frame is flagged for a bad IPv4
/// checksum, or, when it is not IPv4 or carries NDP or Homa, for any malformation or
/// expert warning.
pub fn tshark_check(pcap: &Path) -> Result<TsharkResult, String> {
    let run = |filter: Option<&str>| -> Result<Vec<u64>, String> {
        let mut c = std::process::Command::new("tshark");
        c.arg("-n")
            .arg("-r")
            .arg(pcap)
            .args(["-o", "ip.check_checksum:TRUE"]);
        if let Some(f) = filter {
            c.args(["-Y", f]);
        }
        c.args(["-T", "fields", "-e", "frame.number"]);
        let out = c
            .output()
            .map_err(|e| format!("cannot run tshark (scripts/setup.sh installs it): {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "tshark -r {} failed: {}",
                pcap.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect())
    };
    let all = run(None)?;
    // The outer IPv4 header of every frame (`#1`: the first layer); beyond it, only our
    // transports' frames (154, 155): a switch forwards any well-formed IPv4 frame, and
    // tshark dissects the random payload of another protocol (IGMP, UDP-Lite, IP in IP)
    // as that protocol and flags it.
    let flagged = run(Some(
        "ip.checksum.status#1 == \"Bad\" || ((!ip || ip.proto#1 == 154 || ip.proto#1 == 155) && (_ws.malformed || _ws.expert.severity >= \"Warning\"))",
    ))?;
    Ok(TsharkResult {
        frames: all.len() as u64,
        flagged: flagged.len() as u64,
        first_flagged: flagged.into_iter().take(10).collect(),
    })
}

/// A capture written as the run goes, holding at most [`PCAP_FRAMES`] frames.
struct PcapOut {
    path: PathBuf,
    f: std::io::BufWriter<std::fs::File>,
    n: u64,
}

impl PcapOut {
    fn create(path: PathBuf) -> Result<Self, String> {
        let f = std::fs::File::create(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let mut f = std::io::BufWriter::new(f);
        f.write_all(&pcap_bytes(&[]))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(Self { path, f, n: 0 })
    }

    fn push(&mut self, p: &Packet) -> Result<(), String> {
        if self.n >= PCAP_FRAMES {
            return Ok(());
        }
        self.n += 1;
        let b = pcap_bytes(std::slice::from_ref(p));
        self.f
            .write_all(&b[24..])
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }

    fn finish(mut self) -> Result<(PathBuf, u64), String> {
        self.f
            .flush()
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))?;
        Ok((self.path, self.n))
    }
}

/// A run's result.
#[derive(Clone, Debug, Default)]
pub struct FuzzSummary {
    pub target: String,
    pub seed: u64,
    /// Frames into the target, per class.
    pub per_class: Vec<(Class, u64)>,
    /// Frames into the target.
    pub frames: u64,
    /// The checker's verdicts: `(reason, count)` (NIC: `passed` and the parser's drop
    /// reasons; switch: `forwarded`, `malformed`, `no_route`).
    pub verdicts: Vec<(String, u64)>,
    /// Per class, how many the checker found passed / forwarded.
    pub passed_per_class: Vec<(Class, u64)>,
    /// The target's counters, `(name, value)`.
    pub counters: Vec<(String, u64)>,
    /// NIC: messages sent by both NICs, delivered exactly once, given up by their sender
    /// (and delivered or not).
    pub messages: u64,
    pub delivered: u64,
    pub given_up: u64,
    pub given_up_delivered: u64,
    pub frames_out: u64,
    pub pcap_frames: u64,
    pub tshark: TsharkResult,
    pub cycles: u64,
    pub seconds: f64,
}

impl FuzzSummary {
    pub fn frames_per_second(&self) -> f64 {
        self.frames as f64 / self.seconds.max(1e-9)
    }

    /// Frames in of class `c`.
    pub fn count(&self, c: Class) -> u64 {
        self.per_class.iter().find(|x| x.0 == c).map_or(0, |x| x.1)
    }

    /// The counter `name`.
    pub fn counter(&self, name: &str) -> Option<u64> {
        self.counters.iter().find(|x| x.0 == name).map(|x| x.1)
    }
}

impl std::fmt::Display for FuzzSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "fuzz {} seed {}: {} frames in, {} cycles, {:.1} s, {:.0} frames/s: checks passed",
            self.target,
            self.seed,
            self.frames,
            self.cycles,
            self.seconds,
            self.frames_per_second()
        )?;
        writeln!(f, "  frames in by class (in / passed or forwarded):")?;
        for ((c, n), (_, p)) in self.per_class.iter().zip(&self.passed_per_class) {
            if *n > 0 {
                writeln!(f, "    {:<17} {n:>10} / {p}", c.name())?;
            }
        }
        let v: Vec<String> = self
            .verdicts
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        writeln!(f, "  checker's verdicts: {}", v.join(", "))?;
        let c: Vec<String> = self
            .counters
            .iter()
            .filter(|x| x.1 != 0)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        writeln!(f, "  target's counters (non-zero): {}", c.join(", "))?;
        if self.messages > 0 {
            writeln!(
                f,
                "  messages: {} sent, {} delivered exactly once byte-exact, {} given up by their sender ({} of them delivered)",
                self.messages, self.delivered, self.given_up, self.given_up_delivered
            )?;
        }
        writeln!(
            f,
            "  frames out: {} (all pass the checker's IPv4 checks); tshark read {} of them, flagged {}",
            self.frames_out, self.tshark.frames, self.tshark.flagged
        )
    }
}

/// Runs a fuzz campaign; `Err` on bad arguments or any check that fails.
pub fn run(a: &FuzzArgs) -> Result<FuzzSummary, String> {
    let target = Target::parse(&a.target)?;
    if !(1..=16).contains(&a.open) {
        return Err(format!("--open {} is out of range (1 ..= 16)", a.open));
    }
    if a.frames == 0 || a.frames > MAX_FRAMES {
        return Err(format!(
            "--frames {} is out of range (1 ..= {MAX_FRAMES})",
            a.frames
        ));
    }
    let (dir, temp) = match &a.out {
        Some(d) => {
            std::fs::create_dir_all(d)
                .map_err(|e| format!("cannot create --out {}: {e}", d.display()))?;
            (d.clone(), false)
        }
        None => {
            let d = std::env::temp_dir().join(format!(
                "ntsim-fuzz-{}-{}-{}",
                target.name(),
                a.seed,
                std::process::id()
            ));
            std::fs::create_dir_all(&d)
                .map_err(|e| format!("cannot create {}: {e}", d.display()))?;
            (d, true)
        }
    };
    let r = match target {
        Target::Nic(p) => run_nic(p, a, &dir),
        Target::Switch(mode) => run_switch(mode, a, &dir),
    };
    if temp {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let mut s = r?;
    s.target = target.name().to_string();
    s.seed = a.seed;
    Ok(s)
}

/// Prints a progress line every few seconds.
struct Progress {
    on: bool,
    start: Instant,
    last: Instant,
}

impl Progress {
    fn new(on: bool) -> Self {
        let now = Instant::now();
        Self {
            on,
            start: now,
            last: now,
        }
    }

    fn tick(&mut self, what: &str, frames: u64, total: u64, cycle: u64) {
        if !self.on || self.last.elapsed().as_secs_f64() < 3.0 {
            return;
        }
        self.last = Instant::now();
        let s = self.start.elapsed().as_secs_f64();
        eprintln!(
            "ntsim fuzz {what}: {frames}/{total} frames ({:.1} %), cycle {cycle}, {:.0} frames/s",
            100.0 * frames as f64 / total as f64,
            frames as f64 / s.max(1e-9)
        );
    }
}

/// MAC and IPv4 addresses of the fuzzed NIC's two hosts, A and B.
pub const MAC_A: u64 = 0x02_00_00_00_00_0a;
pub const MAC_B: u64 = 0x02_00_00_00_00_0b;
pub const IP_A: u32 = 0x0a00_0001;
pub const IP_B: u32 = 0x0a00_0002;
/// Messages each NIC keeps unresolved, by default.
pub const OPEN_MSGS: usize = 4;
/// Cycles after the last frame in for the run to settle.
const SETTLE_CYCLES: u64 = 20_000_000;
/// Cycles without a frame into the target that stop a run (the pair hangs).
const STALL_CYCLES: u64 = 2_000_000;
/// A late duplicate is at most this old: within the receiver's memory of freed messages
/// (`cfg.timeout`, 22,400 cycles), so that it is recognised as a late duplicate.
const LATE_CYCLES: u64 = 8_000;

/// A message in the checker's book: its key and what became of it.
struct Sent {
    key: (u16, u16, u64, usize),
    delivered: bool,
    outcome: Option<Outcome>,
}

/// A NIC's nonzero counters, `name value, ...` (for failure messages).
fn nonzero(s: &HostStats) -> String {
    s.fields()
        .iter()
        .filter(|x| x.1 != 0)
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The NIC checker's books: per side (0 = a, 1 = b), messages sent and still undelivered.
#[derive(Default)]
struct Books {
    sent: [Vec<Sent>; 2],
    /// (src_port, dst_port, payload hash, len) -> indices of sent messages not delivered yet.
    pending: [HashMap<(u16, u16, u64, usize), VecDeque<usize>>; 2],
    delivered: u64,
    resolved: [usize; 2],
}

impl Books {
    fn send(&mut self, side: usize, src_port: u16, dst_port: u16, payload: &[u8]) {
        let key = (src_port, dst_port, hash(payload), payload.len());
        let i = self.sent[side].len();
        self.sent[side].push(Sent {
            key,
            delivered: false,
            outcome: None,
        });
        self.pending[side].entry(key).or_default().push_back(i);
    }

    /// A message delivered by the NIC on side `1 - side`, sent by `side`.
    fn deliver(
        &mut self,
        side: usize,
        src_ip: u32,
        src_port: u16,
        local_port: u16,
        payload: &[u8],
    ) -> Result<(), String> {
        let want_ip = if side == 0 { IP_A } else { IP_B };
        if src_ip != want_ip {
            return Err(format!(
                "a message delivered from {src_ip:#x}, not from the peer {want_ip:#x} ({} bytes)",
                payload.len()
            ));
        }
        let key = (src_port, local_port, hash(payload), payload.len());
        let i = self.pending[side]
            .get_mut(&key)
            .and_then(|q| q.pop_front())
            .ok_or_else(|| {
                format!(
                    "a message of {} bytes from port {src_port} to {local_port} delivered that was not sent or was delivered before: {}",
                    payload.len(),
                    hex(&payload[..payload.len().min(64)])
                )
            })?;
        self.sent[side][i].delivered = true;
        self.delivered += 1;
        Ok(())
    }

    /// Messages of side `side` without an outcome yet (the drivers' own count,
    /// `NicDriver::unresolved`, counts the outcomes the harness takes away).
    fn open(&self, side: usize) -> usize {
        self.sent[side].len() - self.resolved[side]
    }

    fn outcome(&mut self, side: usize, msg: usize, o: Outcome) -> Result<(), String> {
        let s = self.sent[side]
            .get_mut(msg)
            .ok_or_else(|| format!("an outcome for message {msg} that was never sent"))?;
        if s.outcome.is_some() {
            return Err(format!("two outcomes for message {msg}"));
        }
        s.outcome = Some(o);
        self.resolved[side] += 1;
        Ok(())
    }
}

/// The generator's memory of the peer's and the target's recent frames.
#[derive(Default)]
struct Recent {
    /// The peer's frames (cycle, bytes), newest last.
    peer: VecDeque<(u64, Vec<u8>)>,
    /// The peer's DATA frames.
    peer_data: VecDeque<(u64, Vec<u8>)>,
    /// The peer's control frames (its answers to the target's DATA).
    peer_ctrl: VecDeque<Vec<u8>>,
}

const RECENT: usize = 64;

fn remember<T>(q: &mut VecDeque<T>, x: T) {
    if q.len() == RECENT {
        q.pop_front();
    }
    q.push_back(x);
}

/// A random payload length, log-uniform over 1..=`max`.
fn msg_len(rng: &mut ChaCha8Rng, max: usize) -> usize {
    let x: f64 = rng.gen_range(0.0..(max as f64).ln());
    (x.exp() as usize).clamp(1, max)
}

fn run_nic(program: &'static str, a: &FuzzArgs, dir: &Path) -> Result<FuzzSummary, String> {
    let start = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(a.seed);
    let (layout, proto) = match program {
        "homa" | "homatr" => (Layout::Homa, PROTO_HOMA),
        _ => (Layout::Ndp, PROTO_NDP),
    };
    let bolt = program == "bolt";
    let mut ca = NicConfig::new(MAC_A, IP_A);
    ca.switch_mac = MAC_B;
    let mut cb = ca.clone();
    cb.mac = MAC_B;
    cb.ip = IP_B;
    cb.switch_mac = MAC_A;
    let mut na = NicDriver::with_engine(VNic::of_program(Backend::Compiled, program, false)?, ca)?;
    let mut nb = NicDriver::with_engine(VNic::of_program(Backend::Compiled, program, false)?, cb)?;
    let name = format!("nic-{program}");
    let mut pin = PcapOut::create(dir.join(format!("{name}-in.pcap")))?;
    let mut pout = PcapOut::create(dir.join(format!("{name}-out.pcap")))?;
    let mut books = Books::default();
    let mut recent = Recent::default();
    let mut per_class = [0u64; CLASSES.len()];
    let mut passed_class = [0u64; CLASSES.len()];
    let mut expect = NicExpect::default();
    let mut frames_out = 0u64;
    let mut peer_frames = 0u64;
    let mut injected = 0u64;
    let mut gap = 0u64;
    let mut quiet = 0u64;
    let mut progress = Progress::new(a.progress);
    let mut stop_cycle = None;
    let mut last_frames = (0u64, 0u64);
    let open_msgs = a.open;
    // The target's frame to classify: counts the checker's verdict.
    let take = |b: &[u8],
                class: Class,
                expect: &mut NicExpect,
                per_class: &mut [u64],
                passed_class: &mut [u64]|
     -> Result<(), String> {
        per_class[class.index()] += 1;
        expect.frames += 1;
        let v = nic_verdict(b, MAC_B, IP_B, proto, bolt);
        match v {
            Ok(()) => {
                expect.passed += 1;
                passed_class[class.index()] += 1;
            }
            Err(r) => expect.drops[r] += 1,
        }
        // The generator's own check: a structured class gets its drop.
        if let Some(r) = class.nic_reason() {
            if v != Err(r) {
                return Err(format!(
                    "generator: a {} frame got {:?} from the checker, not drop {}: {}",
                    class.name(),
                    v.map_err(|r| DROP_NAMES[r]),
                    DROP_NAMES[r],
                    hex(b)
                ));
            }
        }
        if class == Class::Valid && v.is_err() {
            return Err(format!(
                "the peer NIC sent a frame the checker drops ({:?}): {}",
                v.map_err(|r| DROP_NAMES[r]),
                hex(b)
            ));
        }
        if class.never_believed() && v.is_ok() {
            expect.forged_unbelievable += 1;
        }
        Ok(())
    };
    loop {
        let now = nb.cycle();
        let frames_in = expect.frames;
        if stop_cycle.is_none() && frames_in >= a.frames {
            stop_cycle = Some(now);
        }
        let stopping = stop_cycle.is_some();
        // Messages.
        if !stopping {
            for side in 0..2 {
                let n = if side == 0 { &mut na } else { &mut nb };
                while books.open(side) < open_msgs {
                    let len = msg_len(&mut rng, MAX_MSG_BYTES as usize);
                    let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                    let m = crate::nic_sim::AppMsg {
                        cycle: now,
                        dst_ip: if side == 0 { IP_B } else { IP_A },
                        dst_port: rng.gen_range(1..100),
                        src_port: rng.gen_range(1000..1100),
                        payload,
                    };
                    books.send(side, m.src_port, m.dst_port, &m.payload);
                    n.send(m);
                }
            }
        }
        // Frames between the NICs.
        for p in std::mem::take(&mut na.tx_frames) {
            peer_frames += 1;
            take(
                &p.bytes,
                Class::Valid,
                &mut expect,
                &mut per_class,
                &mut passed_class,
            )?;
            pin.push(&Packet {
                cycle: now,
                bytes: p.bytes.clone(),
            })?;
            if p.bytes.len() >= HDR_BYTES {
                if p.bytes[34] & FLAG_DATA != 0 {
                    remember(&mut recent.peer_data, (now, p.bytes.clone()));
                } else {
                    remember(&mut recent.peer_ctrl, p.bytes.clone());
                }
            }
            remember(&mut recent.peer, (now, p.bytes.clone()));
            nb.push_rx(Packet {
                cycle: now,
                bytes: p.bytes,
            });
        }
        for p in std::mem::take(&mut nb.tx_frames) {
            frames_out += 1;
            check_output(&p.bytes).map_err(|e| {
                format!(
                    "cycle {}: the target sent a bad frame ({e}): {}",
                    p.cycle,
                    hex(&p.bytes)
                )
            })?;
            if field(&p.bytes, 0, 6) != MAC_A || field(&p.bytes, 30, 4) != IP_A as u64 {
                return Err(format!(
                    "cycle {}: the target sent a frame not to its peer: {}",
                    p.cycle,
                    hex(&p.bytes)
                ));
            }
            pout.push(&p)?;
            na.push_rx(Packet {
                cycle: now,
                bytes: p.bytes,
            });
        }
        // A fuzz frame, when the target's MAC RX is free and the mix wants one.
        if !stopping && nb.rx_backlog() == 0 && !nb.rx_entering() {
            if gap > 0 {
                gap -= 1;
            } else if injected <= peer_frames + 32 {
                let (class, bytes) = mutate(&mut rng, &recent, now, layout, proto, true);
                take(
                    &bytes,
                    class,
                    &mut expect,
                    &mut per_class,
                    &mut passed_class,
                )?;
                pin.push(&Packet {
                    cycle: now,
                    bytes: bytes.clone(),
                })?;
                nb.push_rx(Packet { cycle: now, bytes });
                injected += 1;
                gap = rng.gen_range(0..4);
            }
        }
        na.step()?;
        nb.step()?;
        // The checker's books.
        for (side, n) in [(1usize, &mut na), (0, &mut nb)] {
            for d in std::mem::take(&mut n.delivered) {
                books.deliver(side, d.src_ip, d.src_port, d.local_port, &d.payload)?;
            }
        }
        for (side, n) in [(0usize, &mut na), (1, &mut nb)] {
            for o in std::mem::take(&mut n.outcomes) {
                books.outcome(side, o.msg, o.outcome)?;
            }
        }
        progress.tick(&name, expect.frames, a.frames, now);
        if expect.frames != last_frames.0 {
            last_frames = (expect.frames, now);
        } else if !stopping && now - last_frames.1 > STALL_CYCLES {
            return Err(format!(
                "no frame into the target for {STALL_CYCLES} cycles (cycle {now}, {} frames in; {} and {} messages unresolved); peer: {}; target: {}",
                expect.frames,
                books.open(0),
                books.open(1),
                nonzero(&na.stats()),
                nonzero(&nb.stats())
            ));
        }
        if let Some(s) = stop_cycle {
            let busy = |q: &nt_hdl::nic::NicProbe| q.mac_rx || q.mac_tx || q.app_rx || q.app_tx;
            quiet = if busy(&na.last_probe) || busy(&nb.last_probe) {
                0
            } else {
                quiet + 1
            };
            if quiet >= 300
                && books.open(0) == 0
                && books.open(1) == 0
                && na.edges_idle()
                && nb.edges_idle()
                && na.tx_frames.is_empty()
                && nb.tx_frames.is_empty()
            {
                break;
            }
            if nb.cycle() - s > SETTLE_CYCLES {
                return Err(format!(
                    "not settled {SETTLE_CYCLES} cycles after the last frame: {} and {} messages unresolved",
                    books.open(0),
                    books.open(1)
                ));
            }
        }
    }
    let cycles = nb.cycle();
    let stats = nb.stats();
    // Messages: each delivered exactly once (checked as they came), each with an outcome.
    let mut messages = 0;
    let mut given_up = 0;
    let mut given_up_delivered = 0;
    let mut lost = vec![];
    for side in 0..2 {
        for (i, s) in books.sent[side].iter().enumerate() {
            messages += 1;
            match s.outcome {
                Some(Outcome::Delivered) if s.delivered => {}
                Some(Outcome::GaveUp) => {
                    given_up += 1;
                    given_up_delivered += s.delivered as u64;
                }
                o => lost.push(format!(
                    "{} message {i} ({} bytes, ports {} -> {}): outcome {o:?}, delivered {}",
                    if side == 0 { "peer" } else { "target" },
                    s.key.3,
                    s.key.0,
                    s.key.1,
                    s.delivered
                )),
            }
        }
    }
    if !lost.is_empty() {
        return Err(format!(
            "{} messages not delivered exactly once: {}; peer: {}; target: {}",
            lost.len(),
            lost.iter().take(5).cloned().collect::<Vec<_>>().join("; "),
            nonzero(&na.stats()),
            nonzero(&stats)
        ));
    }
    check_nic_counts(&expect, &stats)?;
    let (out_path, pcap_frames) = pout.finish()?;
    pin.finish()?;
    let tshark = tshark_check(&out_path)?;
    if tshark.frames != pcap_frames || tshark.flagged != 0 {
        return Err(format!(
            "tshark read {} of the {pcap_frames} frames of {} and flagged {} (frames {:?})",
            tshark.frames,
            out_path.display(),
            tshark.flagged,
            tshark.first_flagged
        ));
    }
    let mut verdicts = vec![("passed".to_string(), expect.passed)];
    for r in 0..DROP_REASONS {
        verdicts.push((DROP_NAMES[r].to_string(), expect.drops[r]));
    }
    Ok(FuzzSummary {
        per_class: CLASSES.iter().copied().zip(per_class).collect(),
        passed_per_class: CLASSES.iter().copied().zip(passed_class).collect(),
        frames: expect.frames,
        verdicts,
        counters: stats
            .fields()
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect(),
        messages,
        delivered: books.delivered,
        given_up,
        given_up_delivered,
        frames_out,
        pcap_frames,
        tshark,
        cycles,
        seconds: start.elapsed().as_secs_f64(),
        ..Default::default()
    })
}

/// A fuzz frame: its class and bytes. `recent` holds the valid frames it mutates; `nic`
/// selects the NIC classes (the bad checksum, forged control and DATA packets).
fn mutate(
    rng: &mut ChaCha8Rng,
    recent: &Recent,
    now: u64,
    layout: Layout,
    proto: u8,
    nic: bool,
) -> (Class, Vec<u8>) {
    let pick = |rng: &mut ChaCha8Rng, q: &VecDeque<(u64, Vec<u8>)>| -> Option<Vec<u8>> {
        (!q.is_empty()).then(|| q[rng.gen_range(0..q.len())].1.clone())
    };
    let base = pick(rng, &recent.peer);
    let Some(mut b) = base else {
        return (Class::Random, random_frame(rng));
    };
    let class = CLASSES[rng.gen_range(1..CLASSES.len())];
    let hdr = b.len() >= HDR_BYTES;
    match class {
        Class::TruncEth => b.truncate(rng.gen_range(1..14)),
        Class::TruncIp => b.truncate(rng.gen_range(14..34)),
        Class::TruncTransport => b.truncate(rng.gen_range(34..57)),
        Class::TruncNear => b.truncate(rng.gen_range(57..64)),
        Class::WordShort => {
            // One word short of the 64 header bytes (the IPv4 length still the frame's).
            b.truncate(56);
            set_field(&mut b, 16, 42, 2);
            fix_checksum(&mut b);
        }
        Class::TooLong => {
            let n = rng.gen_range(MAX_FRAME_BYTES as usize + 1..=1200);
            while b.len() < n {
                b.push(rng.gen());
            }
            set_field(&mut b, 16, n as u64 - 14, 2);
            fix_checksum(&mut b);
        }
        Class::IpLenLonger | Class::IpLenShorter if hdr => {
            let l = field(&b, 16, 2);
            let d = rng.gen_range(1..=16u64);
            let v = if class == Class::IpLenLonger {
                l + d
            } else {
                l - d
            };
            set_field(&mut b, 16, v, 2);
            fix_checksum(&mut b);
        }
        Class::BadChecksum if nic && hdr => {
            let c = field(&b, 24, 2) ^ rng.gen_range(1..=0xffffu64);
            set_field(&mut b, 24, c, 2);
        }
        Class::BadVersion if hdr => {
            let mut v = rng.gen::<u8>();
            if v == 0x45 {
                v = 0x46;
            }
            b[14] = v;
            fix_checksum(&mut b);
        }
        Class::Fragment if hdr => {
            let f = if rng.gen() {
                0x2000
            } else {
                rng.gen_range(1..0x2000)
            };
            set_field(&mut b, 20, f, 2);
            fix_checksum(&mut b);
        }
        Class::NotIpv4 => {
            let mut t = rng.gen::<u16>() as u64;
            if t == 0x0800 {
                t = 0x86dd;
            }
            set_field(&mut b, 12, t, 2);
        }
        Class::WrongProtocol if hdr => {
            let mut p = rng.gen::<u8>();
            if p == proto {
                p = 17;
            }
            b[23] = p;
            fix_checksum(&mut b);
        }
        Class::WrongDstIp if hdr => {
            // Not the target's, and (for a switch) in no route: 10.1.x.y.
            set_field(&mut b, 30, 0x0a01_0000 | rng.gen::<u16>() as u64, 4);
            fix_checksum(&mut b);
        }
        Class::WrongDstMac if hdr => {
            let mut m = rng.gen::<u64>() & 0xffff_ffff_ffff;
            if m == MAC_B {
                m ^= 1;
            }
            set_field(&mut b, 0, m, 6);
        }
        Class::MsgLenZero if hdr => set_field(&mut b, 39, 0, 2),
        Class::MsgLenTooBig if hdr => {
            set_field(&mut b, 39, rng.gen_range(MAX_MSG_BYTES + 1..=0xffff), 2)
        }
        Class::OffsetBeyond if hdr => {
            let l = field(&b, 39, 2);
            let total = (l >> 10) + (l & 0x3ff != 0) as u64;
            // DATA: at or past the packet count; control: past it.
            let lo = total + (b[34] & FLAG_DATA == 0) as u64;
            if lo <= 255 {
                b[41] = rng.gen_range(lo..=255) as u8;
            } else {
                set_field(&mut b, 39, 0, 2);
            }
        }
        Class::BadFlags if hdr => {
            b[34] = match rng.gen_range(0..3) {
                0 => rng.gen_range(1..8u8) << 5 | (b[34] & 0x1f),
                1 => FLAG_CHOP,
                _ => 0,
            };
            // Flags 0 with the Bolt SRC flag is a valid SRC for a Bolt NIC: clear it.
            b[BOLT_OFFSET + 4] &= !BOLT_SRC;
        }
        Class::Duplicate => {}
        Class::Late => {
            let old: Vec<&(u64, Vec<u8>)> = recent
                .peer_data
                .iter()
                .filter(|(c, _)| now - c <= LATE_CYCLES)
                .collect();
            if old.is_empty() {
                return (Class::Duplicate, b);
            }
            b = old[rng.gen_range(0..old.len())].1.clone();
        }
        Class::CtrlWrongIp
        | Class::CtrlWrongPorts
        | Class::CtrlWrongLen
        | Class::CtrlBadOffset
        | Class::GrantPrio255
            if nic =>
        {
            if recent.peer_ctrl.is_empty() {
                return (Class::Duplicate, b);
            }
            b = recent.peer_ctrl[rng.gen_range(0..recent.peer_ctrl.len())].clone();
            let l = field(&b, 39, 2);
            let total = (l >> 10) + (l & 0x3ff != 0) as u64;
            match class {
                Class::CtrlWrongIp => {
                    set_field(&mut b, 26, 0x0a02_0000 | rng.gen::<u16>() as u64, 4);
                    fix_checksum(&mut b);
                }
                Class::CtrlWrongPorts => {
                    let at = if rng.gen() { 35 } else { 37 };
                    let p = field(&b, at, 2) ^ rng.gen_range(1..=0xffffu64);
                    set_field(&mut b, at, p, 2);
                }
                Class::CtrlWrongLen => {
                    // Another valid msg_len whose packet count still covers the offset.
                    let mut n = rng.gen_range(1..=MAX_MSG_BYTES);
                    if n == l {
                        n = if l == MAX_MSG_BYTES { l - 1 } else { l + 1 };
                    }
                    let nt = (n >> 10) + (n & 0x3ff != 0) as u64;
                    if (b[41] as u64) > nt {
                        b[41] = nt as u8;
                    }
                    set_field(&mut b, 39, n, 2);
                }
                Class::GrantPrio255 if layout == Layout::Homa => {
                    b[34] = FLAG_PULL_GRANT;
                    b[44] = 255;
                }
                _ => {
                    // An ACK or NACK of offset = packet count: no packet there was sent.
                    // Homa's ACK is cumulative (every offset below it), so there an ACK of
                    // the packet count is a real one once every packet was sent: a NACK.
                    b[34] = if layout == Layout::Ndp && rng.gen() {
                        FLAG_ACK
                    } else {
                        FLAG_NACK
                    };
                    b[41] = total as u8;
                }
            }
        }
        Class::DataOtherLen if nic => {
            // A DATA packet that is not its message's last (1,024 bytes of payload) with
            // a msg_len that leaves it valid and still not the last: a conflict, never a
            // message of its own.
            let cands: Vec<&(u64, Vec<u8>)> = recent
                .peer_data
                .iter()
                .filter(|(_, d)| {
                    d.len() == HDR_BYTES + 1024
                        && d[34] & FLAG_CHOP == 0
                        && (d[41] as u64 + 2) * 1024 <= MAX_MSG_BYTES
                })
                .collect();
            if cands.is_empty() {
                return (Class::Duplicate, b);
            }
            b = cands[rng.gen_range(0..cands.len())].1.clone();
            let l = field(&b, 39, 2);
            let lo = (b[41] as u64 + 1) * 1024 + 1;
            let mut n = rng.gen_range(lo..=MAX_MSG_BYTES);
            if n == l {
                n = if n == MAX_MSG_BYTES { n - 1 } else { n + 1 };
            }
            if n < lo {
                return (Class::Duplicate, recent.peer_data[0].1.clone());
            }
            set_field(&mut b, 39, n, 2);
        }
        Class::Random => return (Class::Random, random_frame(rng)),
        _ => {
            // A class that does not apply to this frame or target: random bytes.
            return (Class::Random, random_frame(rng));
        }
    }
    (class, b)
}

fn random_frame(rng: &mut ChaCha8Rng) -> Vec<u8> {
    let n = rng.gen_range(1..=1200);
    (0..n).map(|_| rng.gen()).collect()
}

/// A well-formed frame into switch port `from` to host `to` (`to` = 4..: an address no
/// route knows): a DATA packet of 0-1024 payload bytes or a control packet, Bolt flags on
/// DATA in Bolt mode.
fn switch_frame(rng: &mut ChaCha8Rng, from: usize, to: usize, bolt: bool) -> Vec<u8> {
    let data = rng.gen_ratio(4, 5);
    let payload_len = if data { rng.gen_range(0..=1024) } else { 1 };
    let mut t = Transport {
        flags: if data { FLAG_DATA } else { FLAG_ACK },
        src_port: rng.gen_range(1000..1100),
        dst_port: rng.gen_range(1..100),
        msg_len: rng.gen_range(1..=MAX_MSG_BYTES as u16),
        pkt_offset: rng.gen_range(0..38),
        tx_msg_id: rng.gen(),
        ..Default::default()
    };
    if bolt && data {
        let mut f = BOLT_DATA;
        if rng.gen_ratio(1, 4) {
            f |= BOLT_FIRST;
        }
        if rng.gen_ratio(1, 4) {
            f |= BOLT_LAST;
        }
        if rng.gen_ratio(1, 3) {
            f |= BOLT_INC;
        }
        t.bolt[4] = f;
        t.bolt[5..9].copy_from_slice(&rng.gen::<u32>().to_be_bytes());
    }
    Frame {
        dst_mac: port_mac(to),
        src_mac: port_mac(from),
        tos: rng.gen_range(0..4),
        ip_id: rng.gen(),
        ttl: 64,
        protocol: if rng.gen_ratio(9, 10) {
            PROTO_NDP
        } else {
            PROTO_HOMA
        },
        src_ip: port_ip(from),
        dst_ip: port_ip(to),
        t,
        payload: (0..payload_len).map(|_| rng.gen()).collect(),
    }
    .encode(Layout::Ndp)
}

/// Bolt rewrites its 9 bytes (INC/DEC), so frames are matched without them there.
fn out_key(b: &[u8], bolt: bool) -> u64 {
    if bolt && b.len() >= HDR_BYTES {
        let mut c = b.to_vec();
        c[BOLT_OFFSET..BOLT_OFFSET + 9].fill(0);
        hash(&c)
    } else {
        hash(b)
    }
}

fn run_switch(mode: SwitchMode, a: &FuzzArgs, dir: &Path) -> Result<FuzzSummary, String> {
    let start = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(a.seed);
    let bolt = mode == SwitchMode::Bolt;
    let mut setup = SwitchSetup::new(4);
    setup.mode = mode;
    setup.ret = matches!(mode, SwitchMode::Trim | SwitchMode::TofinoTrim);
    setup.band_by_flags = mode != SwitchMode::DropTail;
    let routes = setup.routes.clone();
    // the shared-buffer switch, 64 KiB (the emitted Verilog's), compiled
    let mut sw = crate::net::shared_switch(4, 64, &setup, crate::net::Engine::Compiled)?;
    let name = Target::Switch(mode).name();
    let mut pin = PcapOut::create(dir.join(format!("{name}-in.pcap")))?;
    let mut pout = PcapOut::create(dir.join(format!("{name}-out.pcap")))?;
    let mut per_class = [0u64; CLASSES.len()];
    let mut fwd_class = [0u64; CLASSES.len()];
    let mut e = SwitchExpect::default();
    // Frames in that may come out as they went in: hash -> count.
    let mut may_out: HashMap<u64, u64> = HashMap::new();
    let mut recent = Recent::default();
    let mut progress = Progress::new(a.progress);
    let mut generated_out = 0u64;
    let mut stop = None;
    let mut idle = 0u64;
    loop {
        let now = sw.cycle();
        if stop.is_none() && e.frames_in >= a.frames {
            stop = Some(now);
        }
        if stop.is_none() && sw.rx_backlog() < 8 {
            let from = rng.gen_range(0..4);
            // Valid traffic half the time, skewed to port 0 (congestion).
            let (class, bytes) = if recent.peer.is_empty() || rng.gen() {
                let to = match rng.gen_range(0..10) {
                    0..=4 => 0,
                    k => k % 4,
                };
                (Class::Valid, switch_frame(&mut rng, from, to, bolt))
            } else {
                mutate(&mut rng, &recent, now, Layout::Ndp, PROTO_NDP, false)
            };
            per_class[class.index()] += 1;
            e.frames_in += 1;
            match switch_verdict(&bytes, &routes) {
                SwitchVerdict::Malformed => e.malformed += 1,
                SwitchVerdict::NoRoute => e.no_route += 1,
                SwitchVerdict::Port(_) => {
                    fwd_class[class.index()] += 1;
                    *may_out.entry(out_key(&bytes, bolt)).or_default() += 1;
                }
            }
            if class == Class::Valid {
                remember(&mut recent.peer, (now, bytes.clone()));
                if bytes[34] & FLAG_DATA != 0 {
                    remember(&mut recent.peer_data, (now, bytes.clone()));
                }
            }
            pin.push(&Packet {
                cycle: now,
                bytes: bytes.clone(),
            })?;
            sw.push_rx(from, Packet { cycle: now, bytes });
        }
        sw.step()?;
        for (port, p) in sw.take_tx() {
            e.frames_out += 1;
            check_output(&p.bytes).map_err(|er| {
                format!(
                    "cycle {}: port {port} sent a bad frame ({er}): {}",
                    p.cycle,
                    hex(&p.bytes)
                )
            })?;
            let b = &p.bytes;
            let trimmed = b.len() == HDR_BYTES && b[34] & FLAG_CHOP != 0;
            let src = bolt && b[34] == 0 && b[BOLT_OFFSET + 4] & BOLT_SRC != 0;
            let k = out_key(b, bolt);
            match may_out.get_mut(&k) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    if *n == 0 {
                        may_out.remove(&k);
                    }
                }
                _ if trimmed || src => generated_out += 1,
                _ => {
                    return Err(format!(
                        "cycle {}: port {port} sent a frame that never went in: {}",
                        p.cycle,
                        hex(b)
                    ))
                }
            }
            pout.push(&p)?;
        }
        progress.tick(name, e.frames_in, a.frames, now);
        if let Some(s) = stop {
            idle = if sw.idle() { idle + 1 } else { 0 };
            if idle >= 64 {
                break;
            }
            if now - s > SETTLE_CYCLES {
                return Err(format!(
                    "the switch is not idle {SETTLE_CYCLES} cycles after the last frame"
                ));
            }
        }
    }
    let t = sum_ports(&sw.stats());
    check_switch_counts(&e, &t)?;
    let (out_path, pcap_frames) = pout.finish()?;
    pin.finish()?;
    let tshark = tshark_check(&out_path)?;
    if tshark.frames != pcap_frames || tshark.flagged != 0 {
        return Err(format!(
            "tshark read {} of the {pcap_frames} frames of {} and flagged {} (frames {:?})",
            tshark.frames,
            out_path.display(),
            tshark.flagged,
            tshark.first_flagged
        ));
    }
    let fwd = e.frames_in - e.malformed - e.no_route;
    Ok(FuzzSummary {
        per_class: CLASSES.iter().copied().zip(per_class).collect(),
        passed_per_class: CLASSES.iter().copied().zip(fwd_class).collect(),
        frames: e.frames_in,
        verdicts: vec![
            ("routed".into(), fwd),
            ("malformed".into(), e.malformed),
            ("no_route".into(), e.no_route),
            ("trimmed_or_src_out".into(), generated_out),
        ],
        counters: vec![
            ("rx_frames".into(), t.rx_frames),
            ("tx_frames".into(), t.tx_frames),
            ("drop_malformed".into(), t.drop_malformed),
            ("drop_no_route".into(), t.drop_no_route),
            ("drop_full".into(), t.drop_full),
            ("trimmed".into(), t.trimmed),
            ("returned".into(), t.returned),
            ("drop_header".into(), t.drop_header),
            ("src_sent".into(), t.src_sent),
            ("src_drop".into(), t.src_drop),
            ("dod_trims".into(), t.dod_trims),
            ("dod_drop".into(), t.dod_drop),
        ],
        frames_out: e.frames_out,
        pcap_frames,
        tshark,
        cycles: sw.cycle(),
        seconds: start.elapsed().as_secs_f64(),
        ..Default::default()
    })
}
