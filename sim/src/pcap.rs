//! Packet captures (classic libpcap format, Ethernet link type) with timestamps in cycles.
//!
//! Convention: **the file's smallest timestamp unit is one clock cycle.** [`write_pcap`]
//! writes nanosecond-resolution files whose time `s.nnnnnnnnn` reads as `s * 10^9 + n`
//! cycles; [`read_pcap`] reads nanosecond files the same way and microsecond files with one
//! cycle per microsecond. Either byte order is read. Bad files get an error naming the file
//! and the record, never a panic. [`read_input_pcap`] reads the input captures of `ntsim nic`
//! and `ntsim switch` (frames in timestamp order, stably; no empty frame).
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

/// Writes `packets` to `path` (nanosecond pcap, one cycle per nanosecond).
pub fn write_pcap(path: &Path, packets: &[Packet]) -> Result<(), String> {
    std::fs::write(path, pcap_bytes(packets))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Writes `packets` into `f`, a file created before the run ([`create_output`]); `path`
/// names it in errors.
pub fn write_pcap_to(f: &mut std::fs::File, path: &Path, packets: &[Packet]) -> Result<(), String> {
    use std::io::Write;
    f.write_all(&pcap_bytes(packets))
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

/// Parses a pcap file's bytes; `name` is used in errors.
pub fn parse_pcap(name: &str, b: &[u8]) -> Result<Vec<Packet>, String> {
    if b.len() < 24 {
        return Err(format!(
            "{name}: not a pcap file ({} bytes, the header alone is 24)",
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
                "{name}: not a pcap file (magic {magic_le:#010x}; pcapng is not supported, convert with `editcap -F pcap`)"
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

/// Reads a pcap file.
pub fn read_pcap(path: &Path) -> Result<Vec<Packet>, String> {
    let b = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_pcap(&path.display().to_string(), &b)
}
