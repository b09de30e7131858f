//! Packet captures with Ethernet link type: classic libpcap files, whose timestamps are
//! clock cycles, and pcapng files, whose timestamps are real time at the simulated clock.
//!
//! * **Classic pcap: the file's smallest timestamp unit is one clock cycle.**
//!   [`pcap_bytes`] writes nanosecond-resolution files whose time `s.nnnnnnnnn` reads as
//!   `s * 10^9 + n` cycles; [`parse_pcap`] reads nanosecond files the same way and
//!   microsecond files with one cycle per microsecond. The captures of `ntsim nic` and
//!   `ntsim switch` (inputs and outputs) follow it, so a capture goes back in unchanged.
//! * **pcapng: real time.** [`pcapng_bytes`] writes one section with one Ethernet
//!   interface whose `if_tsresol` is 10^-13 s; a frame at cycle `c` is stamped `3125 c`
//!   units, exactly its time at the 3.2 GHz clock ([`crate::DEFAULT_CLOCK_HZ`]: a cycle is
//!   0.3125 ns), and carries the comment `cycle c`. Wireshark's time axis is then the
//!   simulated one. [`parse_pcap`] reads any pcapng file of Ethernet interfaces (either
//!   byte order, several sections and interfaces, `if_tsresol` a power of 10 or of 2,
//!   unknown blocks skipped) and turns its times back into cycles at 3.2 GHz, rounded to
//!   the nearest cycle (exact for our files). `ntsim run`'s link captures are pcapng
//!   (`link_<a>_to_<b>.pcapng`); [`write_pcap`] and [`write_pcap_to`] write pcapng when
//!   the path ends in `.pcapng`, so `ntsim nic --mac-tx x.pcapng` gives real time too.
//!
//! Bad files get an error naming the file and the record or block, never a panic.
//! [`read_input_pcap`] reads the input captures of `ntsim nic` and `ntsim switch` (frames
//! in timestamp order, stably; no empty frame).
use std::path::Path;

/// One captured frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// The cycle at which its first word enters (or left).
    pub cycle: u64,
    /// Ethernet frame bytes (no FCS).
    pub bytes: Vec<u8>,
}

/// Magic number of a pcap file with microsecond timestamps.
pub const MAGIC_US: u32 = 0xa1b2_c3d4;
const MAGIC_NS: u32 = 0xa1b2_3c4d;
const LINKTYPE_ETHERNET: u32 = 1;
/// Largest frame a capture may hold.
pub const SNAPLEN: u32 = 65_535;

/// The bytes of a nanosecond pcap file holding `packets`.
pub fn pcap_bytes(packets: &[Packet]) -> Vec<u8> {
    let mut b = Vec::with_capacity(24 + packets.iter().map(|p| 16 + p.bytes.len()).sum::<usize>());
    b.extend(MAGIC_NS.to_le_bytes());
    b.extend(2u16.to_le_bytes());
    b.extend(4u16.to_le_bytes());
    b.extend(0i32.to_le_bytes());
    b.extend(0u32.to_le_bytes());
    b.extend(SNAPLEN.to_le_bytes());
    b.extend(LINKTYPE_ETHERNET.to_le_bytes());
    for p in packets {
        let secs = (p.cycle / 1_000_000_000) as u32;
        let frac = (p.cycle % 1_000_000_000) as u32;
        b.extend(secs.to_le_bytes());
        b.extend(frac.to_le_bytes());
        b.extend((p.bytes.len() as u32).to_le_bytes());
        b.extend((p.bytes.len() as u32).to_le_bytes());
        b.extend(&p.bytes);
    }
    b
}

/// pcapng timestamp units (10^-13 s, `if_tsresol` 13) in one cycle at
/// [`crate::DEFAULT_CLOCK_HZ`]: 3125 at 3.2 GHz.
pub const PCAPNG_UNITS_PER_CYCLE: u64 = (1e13 / crate::DEFAULT_CLOCK_HZ) as u64;
/// `if_tsresol` of the pcapng files we write: 10^-13 s.
pub const PCAPNG_TSRESOL: u8 = 13;
const PCAPNG_SHB: u32 = 0x0a0d_0d0a;
const PCAPNG_IDB: u32 = 1;
const PCAPNG_SPB: u32 = 3;
const PCAPNG_EPB: u32 = 6;
const PCAPNG_OBSOLETE_PB: u32 = 2;
const PCAPNG_BYTE_ORDER: u32 = 0x1a2b_3c4d;

/// Appends a pcapng option (code, length, value padded to 4 bytes), little-endian.
fn ng_option(b: &mut Vec<u8>, code: u16, value: &[u8]) {
    b.extend(code.to_le_bytes());
    b.extend((value.len() as u16).to_le_bytes());
    b.extend(value);
    b.resize(b.len() + (4 - value.len() % 4) % 4, 0);
}

/// Appends a pcapng block of type `ty` around `body` (its two length fields).
fn ng_block(b: &mut Vec<u8>, ty: u32, body: &[u8]) {
    let len = (12 + body.len()) as u32;
    b.extend(ty.to_le_bytes());
    b.extend(len.to_le_bytes());
    b.extend(body);
    b.extend(len.to_le_bytes());
}

/// The bytes of a pcapng file holding `packets` (little-endian; one section, one Ethernet
/// interface named `name`, `if_tsresol` 10^-13 s): a frame at cycle `c` is stamped
/// `3125 c` units, its time at 3.2 GHz, with the comment `cycle c`. Errors when a cycle's
/// time does not fit the format's 64 bits (beyond cycle 5.9 * 10^15, 68 days simulated).
pub fn pcapng_bytes(name: &str, packets: &[Packet]) -> Result<Vec<u8>, String> {
    let mut b = Vec::with_capacity(200 + packets.iter().map(|p| 64 + p.bytes.len()).sum::<usize>());
    let mut body = vec![];
    body.extend(PCAPNG_BYTE_ORDER.to_le_bytes());
    body.extend(1u16.to_le_bytes());
    body.extend(0u16.to_le_bytes());
    body.extend((-1i64).to_le_bytes());
    ng_option(
        &mut body,
        4,
        format!("ntsim {}", env!("CARGO_PKG_VERSION")).as_bytes(),
    );
    ng_option(&mut body, 0, &[]);
    ng_block(&mut b, PCAPNG_SHB, &body);
    let mut body = vec![];
    body.extend((LINKTYPE_ETHERNET as u16).to_le_bytes());
    body.extend(0u16.to_le_bytes());
    body.extend(SNAPLEN.to_le_bytes());
    ng_option(&mut body, 2, name.as_bytes());
    ng_option(
        &mut body,
        3,
        b"64-bit words at 3.2 GHz (204.8 Gb/s); one cycle is 3125 units of 0.1 ps",
    );
    ng_option(&mut body, 9, &[PCAPNG_TSRESOL]);
    ng_option(&mut body, 0, &[]);
    ng_block(&mut b, PCAPNG_IDB, &body);
    for p in packets {
        let ts = p.cycle.checked_mul(PCAPNG_UNITS_PER_CYCLE).ok_or_else(|| {
            format!(
                "{name}: cycle {} does not fit a pcapng timestamp (at most {} cycles)",
                p.cycle,
                u64::MAX / PCAPNG_UNITS_PER_CYCLE
            )
        })?;
        let mut body = Vec::with_capacity(48 + p.bytes.len());
        body.extend(0u32.to_le_bytes());
        body.extend(((ts >> 32) as u32).to_le_bytes());
        body.extend((ts as u32).to_le_bytes());
        body.extend((p.bytes.len() as u32).to_le_bytes());
        body.extend((p.bytes.len() as u32).to_le_bytes());
        body.extend(&p.bytes);
        body.resize(body.len() + (4 - p.bytes.len() % 4) % 4, 0);
        ng_option(&mut body, 1, format!("cycle {}", p.cycle).as_bytes());
        ng_option(&mut body, 0, &[]);
        ng_block(&mut b, PCAPNG_EPB, &body);
    }
    Ok(b)
}

/// Whether `path` names a pcapng file (it ends in `.pcapng`, in any case).
pub fn is_pcapng(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pcapng"))
}

/// The bytes of the capture `path` names: pcapng when it ends in `.pcapng`, else classic
/// nanosecond pcap (one cycle per nanosecond).
pub fn capture_bytes(path: &Path, packets: &[Packet]) -> Result<Vec<u8>, String> {
    if is_pcapng(path) {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        pcapng_bytes(&name, packets)
    } else {
        Ok(pcap_bytes(packets))
    }
}

/// Writes `packets` to `path`: pcapng in real time when the path ends in `.pcapng`, else
/// nanosecond pcap with one cycle per nanosecond.
pub fn write_pcap(path: &Path, packets: &[Packet]) -> Result<(), String> {
    std::fs::write(path, capture_bytes(path, packets)?)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Writes `packets` into `f`, a file created before the run ([`create_output`]), in the
/// format [`write_pcap`] picks; `path` names it in errors.
pub fn write_pcap_to(f: &mut std::fs::File, path: &Path, packets: &[Packet]) -> Result<(), String> {
    use std::io::Write;
    f.write_all(&capture_bytes(path, packets)?)
        .and_then(|()| f.flush())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Creates (or truncates) an output file before a run starts, so that a path in a missing
/// or read-only directory fails at once, with a one-line error, not after the run.
pub fn create_output(flag: &str, path: &Path) -> Result<std::fs::File, String> {
    if path.is_dir() {
        return Err(format!("{flag} {}: is a directory", path.display()));
    }
    std::fs::File::create(path)
        .map_err(|e| format!("{flag} {}: cannot create: {e}", path.display()))
}

/// Reads an input capture of `ntsim nic` or `ntsim switch`: its frames sorted by timestamp,
/// stably (frames with equal timestamps keep their file order), so a capture whose records
/// are out of time order (e.g. merged by hand) enters at its timestamps either way. An
/// empty frame is an error (a MAC never delivers one).
pub fn read_input_pcap(path: &Path) -> Result<Vec<Packet>, String> {
    let mut pk = read_pcap(path)?;
    if let Some((i, p)) = pk.iter().enumerate().find(|(_, p)| p.bytes.is_empty()) {
        return Err(format!(
            "{}: record {} (cycle {}) is an empty frame",
            path.display(),
            i + 1,
            p.cycle
        ));
    }
    pk.sort_by_key(|p| p.cycle);
    Ok(pk)
}

/// Parses a capture's bytes, classic pcap or pcapng (module documentation); `name` is used
/// in errors.
pub fn parse_pcap(name: &str, b: &[u8]) -> Result<Vec<Packet>, String> {
    if b.len() >= 4 && u32::from_le_bytes([b[0], b[1], b[2], b[3]]) == PCAPNG_SHB {
        return parse_pcapng(name, b);
    }
    if b.len() < 24 {
        return Err(format!(
            "{name}: not a pcap or pcapng file ({} bytes, a pcap header alone is 24)",
            b.len()
        ));
    }
    let magic_le = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let magic_be = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let (le, ns) = match (magic_le, magic_be) {
        (MAGIC_US, _) => (true, false),
        (MAGIC_NS, _) => (true, true),
        (_, MAGIC_US) => (false, false),
        (_, MAGIC_NS) => (false, true),
        _ => {
            return Err(format!(
                "{name}: not a pcap or pcapng file (magic {magic_le:#010x})"
            ))
        }
    };
    let u32_at = |i: usize| {
        let x = [b[i], b[i + 1], b[i + 2], b[i + 3]];
        if le {
            u32::from_le_bytes(x)
        } else {
            u32::from_be_bytes(x)
        }
    };
    let link = u32_at(20);
    if link != LINKTYPE_ETHERNET {
        return Err(format!(
            "{name}: link type {link}; only Ethernet (1) is supported"
        ));
    }
    let scale = if ns { 1_000_000_000u64 } else { 1_000_000 };
    let mut out = vec![];
    let mut i = 24;
    while i < b.len() {
        let n = out.len() + 1;
        if i + 16 > b.len() {
            return Err(format!("{name}: record {n} is truncated (header)"));
        }
        let secs = u32_at(i) as u64;
        let frac = u32_at(i + 4) as u64;
        let incl = u32_at(i + 8) as usize;
        let orig = u32_at(i + 12) as usize;
        if frac >= scale {
            return Err(format!(
                "{name}: record {n}: fractional timestamp {frac} out of range"
            ));
        }
        if incl > SNAPLEN as usize {
            return Err(format!("{name}: record {n}: length {incl} above {SNAPLEN}"));
        }
        if incl != orig {
            return Err(format!(
                "{name}: record {n} was cut by the capture ({incl} of {orig} bytes)"
            ));
        }
        if i + 16 + incl > b.len() {
            return Err(format!("{name}: record {n} is truncated (data)"));
        }
        out.push(Packet {
            cycle: secs * scale + frac,
            bytes: b[i + 16..i + 16 + incl].to_vec(),
        });
        i += 16 + incl;
    }
    Ok(out)
}

/// Cycles at 3.2 GHz of a pcapng timestamp of `ts` units of `if_tsresol` `res` (10^-n s,
/// or 2^-n s when its top bit is set), to the nearest cycle; `None` when the resolution is
/// beyond what 128 bits compute (10^-30 s or 2^-100 s) or the time beyond 2^64 cycles.
fn ng_cycles(ts: u64, res: u8) -> Option<u64> {
    let n = (res & 0x7f) as u32;
    let hz = crate::DEFAULT_CLOCK_HZ as u128;
    let num = ts as u128 * hz;
    let den: u128 = if res & 0x80 == 0 {
        if n > 30 {
            return None;
        }
        10u128.pow(n)
    } else {
        if n > 100 {
            return None;
        }
        1u128 << n
    };
    u64::try_from((num + den / 2) / den).ok()
}

/// Parses a pcapng file (module documentation).
fn parse_pcapng(name: &str, b: &[u8]) -> Result<Vec<Packet>, String> {
    let mut out = vec![];
    // `if_tsresol` of the current section's interfaces, by interface id.
    let mut ifaces: Vec<u8> = vec![];
    let mut le = true;
    let mut i = 0;
    let mut blk = 0;
    while i < b.len() {
        blk += 1;
        let at = |k: usize, le: bool| {
            let x = [b[k], b[k + 1], b[k + 2], b[k + 3]];
            if le {
                u32::from_le_bytes(x)
            } else {
                u32::from_be_bytes(x)
            }
        };
        if i + 12 > b.len() {
            return Err(format!("{name}: pcapng block {blk} is truncated (header)"));
        }
        let ty_raw = u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        if ty_raw == PCAPNG_SHB {
            le = match at(i + 8, true) {
                PCAPNG_BYTE_ORDER => true,
                x if x.swap_bytes() == PCAPNG_BYTE_ORDER => false,
                x => {
                    return Err(format!(
                        "{name}: pcapng block {blk}: byte-order magic {x:#010x}, not 0x1a2b3c4d"
                    ))
                }
            };
            ifaces.clear();
        }
        let ty = at(i, le);
        let len = at(i + 4, le) as usize;
        if len < 12 || len % 4 != 0 {
            return Err(format!("{name}: pcapng block {blk}: bad length {len}"));
        }
        if i + len > b.len() {
            return Err(format!(
                "{name}: pcapng block {blk} is truncated ({len} bytes)"
            ));
        }
        if at(i + len - 4, le) as usize != len {
            return Err(format!(
                "{name}: pcapng block {blk}: its two lengths differ ({len} and {})",
                at(i + len - 4, le)
            ));
        }
        let body = &b[i + 8..i + len - 4];
        let u16_at = |k: usize| {
            let x = [body[k], body[k + 1]];
            if le {
                u16::from_le_bytes(x)
            } else {
                u16::from_be_bytes(x)
            }
        };
        match ty {
            PCAPNG_IDB => {
                if body.len() < 8 {
                    return Err(format!(
                        "{name}: pcapng block {blk}: interface block too short"
                    ));
                }
                let link = u16_at(0) as u32;
                if link != LINKTYPE_ETHERNET {
                    return Err(format!(
                        "{name}: pcapng interface {} has link type {link}; only Ethernet (1) is supported",
                        ifaces.len()
                    ));
                }
                let mut res = 6; // microseconds when no if_tsresol
                let mut k = 8;
                while k + 4 <= body.len() {
                    let (code, olen) = (u16_at(k), u16_at(k + 2) as usize);
                    if code == 0 {
                        break;
                    }
                    if k + 4 + olen > body.len() {
                        return Err(format!(
                            "{name}: pcapng block {blk}: option {code} is truncated"
                        ));
                    }
                    if code == 9 && olen == 1 {
                        res = body[k + 4];
                    }
                    k += 4 + olen.div_ceil(4) * 4;
                }
                ifaces.push(res);
            }
            PCAPNG_EPB => {
                let n = out.len() + 1;
                if body.len() < 20 {
                    return Err(format!(
                        "{name}: record {n} (pcapng block {blk}) is too short"
                    ));
                }
                let ifc = at(i + 8, le) as usize;
                let res = *ifaces.get(ifc).ok_or_else(|| {
                    format!("{name}: record {n}: interface {ifc} was not described before it")
                })?;
                let ts = (at(i + 12, le) as u64) << 32 | at(i + 16, le) as u64;
                let (incl, orig) = (at(i + 20, le) as usize, at(i + 24, le) as usize);
                if incl > SNAPLEN as usize {
                    return Err(format!("{name}: record {n}: length {incl} above {SNAPLEN}"));
                }
                if incl != orig {
                    return Err(format!(
                        "{name}: record {n} was cut by the capture ({incl} of {orig} bytes)"
                    ));
                }
                if 20 + incl > body.len() {
                    return Err(format!("{name}: record {n} is truncated (data)"));
                }
                let cycle = ng_cycles(ts, res).ok_or_else(|| {
                    format!("{name}: record {n}: timestamp {ts} at if_tsresol {res:#04x} is out of range")
                })?;
                out.push(Packet {
                    cycle,
                    bytes: body[20..20 + incl].to_vec(),
                });
            }
            PCAPNG_SPB | PCAPNG_OBSOLETE_PB => {
                return Err(format!(
                    "{name}: pcapng block {blk}: a {} packet block; only enhanced packet blocks (with timestamps) are read",
                    if ty == PCAPNG_SPB { "simple" } else { "obsolete" }
                ));
            }
            _ => {}
        }
        i += len;
    }
    Ok(out)
}

/// Reads a capture, classic pcap or pcapng.
pub fn read_pcap(path: &Path) -> Result<Vec<Packet>, String> {
    let b = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_pcap(&path.display().to_string(), &b)
}
