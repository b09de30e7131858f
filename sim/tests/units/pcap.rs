//! Unit tests of `nt_sim::pcap`: reading and writing packet captures.
use nt_sim::pcap::*;

#[test]
fn input_captures_are_taken_in_timestamp_order_stably() {
    let d = std::env::temp_dir().join(format!("nt-sim-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = |cycle, b: u8| Packet {
        cycle,
        bytes: vec![b; 60],
    };
    let f = d.join("order.pcap");
    write_pcap(&f, &[p(300, 1), p(100, 2), p(300, 3), p(100, 4), p(0, 5)]).unwrap();
    let got: Vec<u8> = read_input_pcap(&f)
        .unwrap()
        .iter()
        .map(|x| x.bytes[0])
        .collect();
    assert_eq!(got, [5, 2, 4, 1, 3]);
    let f = d.join("empty.pcap");
    write_pcap(
        &f,
        &[
            p(0, 1),
            Packet {
                cycle: 7,
                bytes: vec![],
            },
        ],
    )
    .unwrap();
    let e = read_input_pcap(&f).unwrap_err();
    assert!(
        e.ends_with("empty.pcap: record 2 (cycle 7) is an empty frame"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn round_trip_keeps_cycles_and_bytes() {
    let p = frames();
    assert_eq!(parse_pcap("x", &pcap_bytes(&p)), Ok(p));
}

#[test]
fn bad_files_get_clear_errors() {
    assert!(parse_pcap("x", &[0; 10])
        .unwrap_err()
        .contains("not a pcap"));
    let mut b = pcap_bytes(&[Packet {
        cycle: 5,
        bytes: vec![9; 100],
    }]);
    b.truncate(b.len() - 1);
    assert!(parse_pcap("x", &b).unwrap_err().contains("truncated"));
    let mut b = pcap_bytes(&[]);
    b[0] = 0;
    assert!(parse_pcap("x", &b).unwrap_err().contains("magic"));
    let mut b = pcap_bytes(&[]);
    b[20] = 101;
    assert!(parse_pcap("x", &b).unwrap_err().contains("link type"));
}

#[test]
fn big_endian_microsecond_files_are_read_too() {
    let mut b = vec![];
    b.extend(MAGIC_US.to_be_bytes());
    b.extend(2u16.to_be_bytes());
    b.extend(4u16.to_be_bytes());
    b.extend([0u8; 8]);
    b.extend(SNAPLEN.to_be_bytes());
    b.extend(1u32.to_be_bytes());
    b.extend(2u32.to_be_bytes());
    b.extend(7u32.to_be_bytes());
    b.extend(1u32.to_be_bytes());
    b.extend(1u32.to_be_bytes());
    b.push(0xab);
    let p = parse_pcap("x", &b).expect("parses");
    assert_eq!(
        p,
        vec![Packet {
            cycle: 2_000_007,
            bytes: vec![0xab]
        }]
    );
}

fn frames() -> Vec<Packet> {
    vec![
        Packet {
            cycle: 0,
            bytes: vec![1, 2, 3],
        },
        Packet {
            cycle: 3_200,
            bytes: (0..61).map(|i| i as u8).collect(),
        },
        Packet {
            cycle: 5_000_000_000_017,
            bytes: vec![7; 1088],
        },
    ]
}

#[test]
fn pcapng_round_trip_keeps_cycles_and_bytes_and_stamps_real_time() {
    let p = frames();
    let b = pcapng_bytes("link_h0_to_s0_0", &p).unwrap();
    assert_eq!(parse_pcap("x", &b), Ok(p.clone()));
    // The third frame's enhanced packet block: its timestamp is 3125 units of 10^-13 s a
    // cycle (0.3125 ns at 3.2 GHz), and its comment names the cycle.
    let needle = b"cycle 5000000000017";
    assert!(b.windows(needle.len()).any(|w| w == needle));
    let ts = 5_000_000_000_017u64 * PCAPNG_UNITS_PER_CYCLE;
    let mut stamp = ((ts >> 32) as u32).to_le_bytes().to_vec();
    stamp.extend((ts as u32).to_le_bytes());
    assert!(b.windows(8).any(|w| w == stamp.as_slice()));
    // write_pcap picks the format by the extension, and read_pcap reads both.
    let d = std::env::temp_dir().join(format!("nt-sim-pcapng-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    for name in ["a.pcapng", "b.PCAPNG", "c.pcap"] {
        let f = d.join(name);
        write_pcap(&f, &p).unwrap();
        let raw = std::fs::read(&f).unwrap();
        assert_eq!(
            raw[..4] == [0x0a, 0x0d, 0x0d, 0x0a],
            name != "c.pcap",
            "{name}"
        );
        assert_eq!(read_pcap(&f), Ok(p.clone()), "{name}");
    }
    let _ = std::fs::remove_dir_all(&d);
    // A cycle whose time does not fit 64 bits is an error, not a wrapped stamp.
    let big = [Packet {
        cycle: u64::MAX / PCAPNG_UNITS_PER_CYCLE + 1,
        bytes: vec![0; 60],
    }];
    let e = pcapng_bytes("l", &big).unwrap_err();
    assert!(e.contains("does not fit a pcapng timestamp"), "{e}");
}

/// A pcapng block of type `ty` in byte order `le` around `body`.
fn block(le: bool, ty: u32, body: &[u8]) -> Vec<u8> {
    let w = |x: u32| if le { x.to_le_bytes() } else { x.to_be_bytes() };
    let len = 12 + body.len() as u32;
    let mut b = w(ty).to_vec();
    b.extend(w(len));
    b.extend(body);
    b.extend(w(len));
    b
}

/// A section header block in byte order `le`.
fn shb(le: bool) -> Vec<u8> {
    let mut body = if le {
        0x1a2b_3c4du32.to_le_bytes()
    } else {
        0x1a2b_3c4du32.to_be_bytes()
    }
    .to_vec();
    body.extend(if le { [1, 0, 0, 0] } else { [0, 1, 0, 0] });
    body.extend([0xff; 8]);
    block(le, 0x0a0d_0d0a, &body)
}

/// An enhanced packet block of interface 0 in byte order `le`.
fn epb(le: bool, ts: u64, bytes: &[u8]) -> Vec<u8> {
    let w32 = |x: u32| if le { x.to_le_bytes() } else { x.to_be_bytes() };
    let mut body = w32(0).to_vec();
    body.extend(w32((ts >> 32) as u32));
    body.extend(w32(ts as u32));
    body.extend(w32(bytes.len() as u32));
    body.extend(w32(bytes.len() as u32));
    body.extend(bytes);
    body.resize(body.len() + (4 - bytes.len() % 4) % 4, 0);
    block(le, 6, &body)
}

/// A section header, an Ethernet interface with `if_tsresol` `res` (none when `None`),
/// and one enhanced packet block per `(ts, bytes)`, in byte order `le`.
fn ng_file(le: bool, res: Option<u8>, frames: &[(u64, Vec<u8>)]) -> Vec<u8> {
    let w32 = |x: u32| if le { x.to_le_bytes() } else { x.to_be_bytes() };
    let w16 = |x: u16| if le { x.to_le_bytes() } else { x.to_be_bytes() };
    let mut f = shb(le);
    let mut idb = w16(1).to_vec();
    idb.extend(w16(0));
    idb.extend(w32(65_535));
    if let Some(r) = res {
        idb.extend(w16(9));
        idb.extend(w16(1));
        idb.extend([r, 0, 0, 0]);
        idb.extend([0; 4]);
    }
    f.extend(block(le, 1, &idb));
    // An interface statistics block (type 5) and a block of a type nobody knows: skipped.
    f.extend(block(le, 5, &[0; 12]));
    f.extend(block(le, 0x0bad, &[]));
    for (ts, bytes) in frames {
        f.extend(epb(le, *ts, bytes));
    }
    f
}

#[test]
fn pcapng_files_of_other_writers_are_read_in_real_time() {
    // Big-endian, no if_tsresol (microseconds): 1 us is 3,200 cycles.
    let f = ng_file(false, None, &[(1, vec![0xab]), (2_000_000, vec![1, 2])]);
    let p = parse_pcap("x", &f).expect("parses");
    assert_eq!(p[0].cycle, 3_200);
    assert_eq!(p[0].bytes, vec![0xab]);
    assert_eq!(p[1].cycle, 6_400_000_000);
    // Nanoseconds (as Wireshark writes): 1 ns is 3.2 cycles, to the nearest.
    let f = ng_file(true, Some(9), &[(1, vec![1]), (10, vec![2]), (5, vec![3])]);
    let c: Vec<u64> = parse_pcap("x", &f)
        .unwrap()
        .iter()
        .map(|p| p.cycle)
        .collect();
    assert_eq!(c, [3, 32, 16]);
    // A power-of-two resolution, 2^-10 s: 1024 units are 3.2e9 cycles.
    let f = ng_file(true, Some(0x8a), &[(1024, vec![1])]);
    assert_eq!(parse_pcap("x", &f).unwrap()[0].cycle, 3_200_000_000);
    // A resolution 128 bits cannot compute is a clear error.
    let f = ng_file(true, Some(60), &[(1, vec![1])]);
    let e = parse_pcap("x", &f).unwrap_err();
    assert!(
        e.contains("record 1: timestamp 1 at if_tsresol 0x3c is out of range"),
        "{e}"
    );
}

#[test]
fn bad_pcapng_files_get_clear_errors() {
    let good = pcapng_bytes("l", &frames()).unwrap();
    let err = |b: &[u8]| parse_pcap("f.pcapng", b).unwrap_err();
    // Cut anywhere inside: truncated, never a panic.
    for cut in [1, 4, 13, 40, good.len() - 12] {
        let e = err(&good[..good.len() - cut]);
        assert!(
            e.starts_with("f.pcapng: ") && e.contains("truncated"),
            "{cut}: {e}"
        );
    }
    // The two lengths of a block disagree.
    let mut b = good.clone();
    let n = b.len();
    b[n - 4] ^= 4;
    assert!(err(&b).contains("its two lengths differ"), "{}", err(&b));
    // A bad byte-order magic.
    let mut b = good.clone();
    b[8] = 0;
    assert!(err(&b).contains("byte-order magic"), "{}", err(&b));
    // A packet before any interface.
    let mut b = shb(true);
    b.extend(epb(true, 5, &[1]));
    let e = err(&b);
    assert!(
        e.contains("record 1: interface 0 was not described before it"),
        "{e}"
    );
    // Not Ethernet.
    let mut b = ng_file(true, None, &[]);
    let n = shb(true).len();
    b[n + 8] = 105;
    assert!(
        err(&b).contains("link type 105; only Ethernet"),
        "{}",
        err(&b)
    );
    // A simple packet block has no timestamp.
    let mut b = ng_file(true, None, &[]);
    b.extend(block(true, 3, &[4, 0, 0, 0, 1, 2, 3, 4]));
    assert!(err(&b).contains("a simple packet block"), "{}", err(&b));
    // A file that starts with another block.
    let e = err(&block(true, 1, &[0; 8]));
    assert!(e.contains("not a pcap or pcapng file"), "{e}");
}
