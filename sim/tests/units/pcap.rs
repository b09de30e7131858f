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
    let p = vec![
        Packet {
            cycle: 0,
            bytes: vec![1, 2, 3],
        },
        Packet {
            cycle: 3_000_000_123,
            bytes: (0..200).map(|i| i as u8).collect(),
        },
    ];
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
