//! Unit tests of `nt_sim::link`: the FCS, link faults and their counters, and the link settings.
use nt_sim::link::*;
use nt_sim::pcap::Packet;

#[test]
fn crc32_is_ieee_802_3() {
    // The check value of CRC-32/ISO-HDLC.
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    assert_eq!(crc32(b""), 0);
    let mut f = b"a frame".to_vec();
    append_fcs(&mut f);
    assert_eq!(check_fcs(f.clone()), Some(b"a frame".to_vec()));
    // The residue of a frame with its FCS (least significant byte first).
    assert_eq!(!crc32(&f), 0xDEBB_20E3);
    f[2] ^= 0x10;
    assert_eq!(check_fcs(f), None);
    assert_eq!(check_fcs(vec![1, 2, 3]), None);
}

fn frame(i: u64, len: usize) -> Packet {
    Packet {
        cycle: i * 200,
        bytes: (0..len).map(|k| (k as u64 * 7 + i) as u8).collect(),
    }
}

/// Every fault at once: the counters balance once the link is empty, every corrupted
/// frame is caught by the FCS and nothing corrupted is delivered, duplicates arrive,
/// nothing is delivered that was on the wire while it was down, and a reordered frame
/// arrives after a frame sent after it.
#[test]
fn faults_are_counted_and_balance() {
    let cfg = LinkCfg {
        loss: 0.1,
        corrupt: 0.2,
        duplicate: 0.1,
        reorder: 0.2,
        reorder_cycles: 1000,
        down: vec![(40_000, 60_000), (100_000, 100_001)],
        ..LinkCfg::ideal(100)
    };
    let mut l = Link::new(cfg, 7).unwrap();
    let sent: Vec<Packet> = (0..2000)
        .map(|i| frame(i, 64 + (i as usize % 1000)))
        .collect();
    let mut got = vec![];
    for (i, p) in sent.iter().enumerate() {
        l.send(p);
        for a in l.arrivals(p.cycle) {
            got.push(a);
        }
        assert!(
            l.stats.balanced(l.in_flight() as u64),
            "frame {i}: {:?}",
            l.stats
        );
    }
    got.extend(l.arrivals(u64::MAX));
    let s = l.stats;
    assert_eq!(l.in_flight(), 0);
    assert!(s.balanced(0), "{s:?}");
    assert_eq!(s.delivered as usize, got.len());
    assert!(
        s.lost > 100 && s.duplicated > 100 && s.reordered > 200,
        "{s:?}"
    );
    assert!(s.corrupted > 300, "{s:?}");
    assert_eq!(s.fcs_drops, s.corrupted, "{s:?}");
    // [40,000, 60,000): frames 200..300 are on the wire then (frame 300 leaves at
    // 60,000: up again); [100,000, 100,001) catches frame 500, sent at 100,000, and
    // not frame 499, on the wire from 99,800 to 99,900.
    assert_eq!(s.down_dropped, 100 + 1, "{s:?}");
    let mut seen = vec![0u32; sent.len()];
    let mut late = 0;
    let mut last_sent = 0;
    for a in &got {
        // Every delivery is one of the frames byte for byte.
        let i = sent
            .iter()
            .position(|p| p.bytes == a.bytes)
            .expect("a delivered frame equals a sent one");
        assert!(a.cycle >= sent[i].cycle + 100);
        assert!(
            !(200..300).contains(&i) && i != 500,
            "frame {i} crossed a down link"
        );
        seen[i] += 1;
        if sent[i].cycle < last_sent {
            late += 1;
        }
        last_sent = last_sent.max(sent[i].cycle);
    }
    assert!(seen.contains(&2));
    assert!(late > 50, "{late} frames arrived after a later one");
}

/// A link without faults delivers every frame, unchanged, in order, at its delay.
#[test]
fn an_ideal_link_delivers_everything_in_order() {
    let mut l = Link::new(LinkCfg::ideal(30), 1).unwrap();
    for i in 0..100 {
        l.send(&frame(i, 100));
    }
    let got = l.arrivals(u64::MAX);
    assert_eq!(got.len(), 100);
    for (i, p) in got.iter().enumerate() {
        assert_eq!(p.bytes, frame(i as u64, 100).bytes);
        assert_eq!(p.cycle, i as u64 * 200 + 30);
    }
    assert!(l.stats.balanced(0));
}

#[test]
fn values_are_checked_with_their_key() {
    let bad = |c: LinkCfg, want: &str| {
        let e = c.validate().expect_err(want);
        assert!(e.contains(want), "{e:?} lacks {want:?}");
    };
    let i = LinkCfg::ideal(10);
    bad(
        LinkCfg {
            loss: 1.5,
            ..i.clone()
        },
        "loss = 1.5: a probability must be in 0..=1",
    );
    bad(
        LinkCfg {
            corrupt: -0.1,
            ..i.clone()
        },
        "corrupt = -0.1",
    );
    bad(
        LinkCfg {
            duplicate: f64::NAN,
            ..i.clone()
        },
        "duplicate = NaN",
    );
    bad(
        LinkCfg {
            reorder: 0.1,
            ..i.clone()
        },
        "reorder = 0.1: needs reorder_window",
    );
    bad(
        LinkCfg {
            reorder_cycles: 2_000_000,
            ..i.clone()
        },
        "reorder_window = 2000000: must be 1..=1000000",
    );
    bad(
        LinkCfg {
            down: vec![(5, 5)],
            ..i.clone()
        },
        "down[0] = [5, 5]: an interval [from, to) needs from below to",
    );
    bad(
        LinkCfg {
            down: vec![(10, 20), (15, 30)],
            ..i.clone()
        },
        "down[1] = [15, 30] starts before down[0] = [10, 20] ends",
    );
    bad(LinkCfg::ideal(0), "delay = 0");
    bad(
        LinkCfg::ideal(u64::MAX),
        "delay = 18446744073709551615: the link delay must be at most 2^40",
    );
    LinkCfg {
        down: vec![(10, 20), (20, 30)],
        reorder: 0.5,
        reorder_cycles: 1,
        ..i
    }
    .validate()
    .expect("adjacent intervals and a window of one cycle");
}

#[test]
fn down_intervals_cover_the_wire_time() {
    let c = LinkCfg {
        down: vec![(100, 200), (300, 301)],
        ..LinkCfg::ideal(10)
    };
    assert!(!c.down_during(0, 99));
    assert!(c.down_during(0, 100));
    assert!(c.down_during(199, 250));
    assert!(!c.down_during(200, 299));
    assert!(c.down_during(300, 300));
    assert!(!c.down_during(301, 1000));
}
