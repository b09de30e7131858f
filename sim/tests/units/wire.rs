//! Unit tests of `nt_sim::wire`: frame encoding, the IPv4 checksum and MAC stream words.
use nt_sim::wire::*;

fn sample() -> Frame {
    Frame {
        dst_mac: 0x0200_0000_0002,
        src_mac: 0x0200_0000_0001,
        tos: 3,
        ip_id: 7,
        ttl: 64,
        protocol: PROTO_NDP,
        src_ip: 0x0a00_0001,
        dst_ip: 0x0a00_0002,
        t: Transport {
            flags: FLAG_DATA,
            src_port: 1000,
            dst_port: 2000,
            msg_len: 16,
            pkt_offset: 0,
            pull_grant: 9,
            grant_prio: 5,
            tx_msg_id: 0x1234,
            buf_ptr: 0xbeef,
            buf_class: 2,
            bolt: [1, 2, 3, 4, 5, 6, 7, 8, 9],
        },
        payload: (0..16).collect(),
    }
}

#[test]
fn encode_decode_round_trip_with_a_correct_checksum() {
    for layout in [Layout::Ndp, Layout::Homa] {
        let mut f = sample();
        if layout == Layout::Ndp {
            f.t.grant_prio = 0;
        }
        let b = f.encode(layout);
        assert_eq!(b.len(), 80);
        assert_eq!(field(&b, 16, 2), 66, "IPv4 total length");
        assert_eq!(ipv4_checksum(&b[14..34]), 0, "checksum verifies");
        assert_eq!(Frame::decode(&b, layout), Some(f));
        assert_eq!(from_words(&to_words(&b)), b);
    }
}

#[test]
fn a_known_ipv4_header_checksum() {
    // The classic example header (checksum 0xb861).
    let h = [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00,
        0x01, 0xc0, 0xa8, 0x00, 0xc7,
    ];
    assert_eq!(ipv4_checksum(&h), 0xb861);
}

#[test]
fn words_carry_empty_on_the_last() {
    let w = to_words(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert_eq!(w.len(), 2);
    assert_eq!((w[1].last, w[1].empty, w[1].data), (true, 7, 9u64 << 56));
    assert!(to_words(&[]).is_empty());
}
