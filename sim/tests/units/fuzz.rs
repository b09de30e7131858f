//! Unit tests of `nt_sim::fuzz`: its targets, the checker's parser model, the count checks.
use nt_hdl::parser::{DROP_BAD_CHECKSUM, DROP_BAD_LENGTH, DROP_BAD_TRANSPORT, DROP_TRUNCATED};
use nt_sim::fuzz::*;
use nt_sim::nic_sim::HostStats;
use nt_sim::switch_workload::{PortStats, SwitchSetup};
use nt_sim::wire::{set_field, Frame, Layout, Transport, FLAG_DATA, PROTO_NDP};

#[test]
fn the_switch_targets_are_the_mode_table() {
    for (i, m) in nt_hdl::mode::MODES.iter().enumerate() {
        assert_eq!(TARGETS[4 + i], format!("switch-{}", m.name));
        assert_eq!(Target::parse(TARGETS[4 + i]), Ok(Target::Switch(m.mode)));
        assert_eq!(Target::Switch(m.mode).name(), TARGETS[4 + i]);
    }
    assert_eq!(TARGETS.len(), 4 + nt_hdl::mode::MODES.len());
}

fn valid_data() -> Vec<u8> {
    Frame {
        dst_mac: MAC_B,
        src_mac: MAC_A,
        tos: 0,
        ip_id: 1,
        ttl: 64,
        protocol: PROTO_NDP,
        src_ip: IP_A,
        dst_ip: IP_B,
        t: Transport {
            flags: FLAG_DATA,
            msg_len: 100,
            ..Default::default()
        },
        payload: vec![7; 100],
    }
    .encode(Layout::Ndp)
}

#[test]
fn the_checker_model_of_the_parser_rules() {
    let v = |b: &[u8]| nic_verdict(b, MAC_B, IP_B, PROTO_NDP, false);
    let good = valid_data();
    assert_eq!(v(&good), Ok(()));
    assert_eq!(v(&good[..63]), Err(DROP_TRUNCATED));
    let mut b = good.clone();
    b[25] ^= 1;
    assert_eq!(v(&b), Err(DROP_BAD_CHECKSUM));
    let mut b = good.clone();
    set_field(&mut b, 16, 151, 2);
    fix_checksum(&mut b);
    assert_eq!(v(&b), Err(DROP_BAD_LENGTH));
    let mut b = good.clone();
    set_field(&mut b, 39, 0, 2);
    assert_eq!(v(&b), Err(DROP_BAD_TRANSPORT));
    // One payload byte too many for the message.
    let mut b = good.clone();
    b.push(0);
    let ip_len = b.len() as u64 - 14;
    set_field(&mut b, 16, ip_len, 2);
    fix_checksum(&mut b);
    assert_eq!(v(&b), Err(DROP_BAD_TRANSPORT));
    assert_eq!(
        switch_verdict(&good[..63], &SwitchSetup::new(4).routes),
        SwitchVerdict::Malformed
    );
}

#[test]
fn a_broken_nic_count_is_caught() {
    // A forged frame the checker dropped (bad transport), counted as passed.
    let e = NicExpect {
        frames: 10,
        passed: 7,
        drops: [0, 0, 1, 0, 0, 0, 0, 0, 0, 2],
        forged_unbelievable: 2,
    };
    let ok = HostStats {
        rx_frames: 10,
        rx_passed: 7,
        rx_drop_truncated: 1,
        rx_drop_bad_transport: 2,
        tx_ctrl_bad_peer: 2,
        ..Default::default()
    };
    assert_eq!(check_nic_counts(&e, &ok), Ok(()));
    let bad = HostStats {
        rx_passed: 8,
        rx_drop_bad_transport: 1,
        ..ok
    };
    let err = check_nic_counts(&e, &bad).unwrap_err();
    assert!(err.contains("rx_passed 8"), "{err}");
    assert!(err.contains("rx_drop_bad_transport 1"), "{err}");
    // A forged control packet believed.
    let bad = HostStats {
        tx_ctrl_bad_peer: 1,
        ..ok
    };
    assert!(check_nic_counts(&e, &bad).is_err());
}

#[test]
fn a_broken_switch_count_is_caught() {
    let e = SwitchExpect {
        frames_in: 10,
        frames_out: 7,
        malformed: 2,
        no_route: 1,
    };
    let ok = PortStats {
        rx_frames: 10,
        tx_frames: 7,
        drop_malformed: 2,
        drop_no_route: 1,
        ..Default::default()
    };
    assert_eq!(check_switch_counts(&e, &ok), Ok(()));
    // A malformed frame trimmed and forwarded instead of dropped.
    let bad = PortStats {
        tx_frames: 8,
        drop_malformed: 1,
        trimmed: 1,
        ..ok
    };
    assert!(check_switch_counts(&e, &bad).is_err());
}

#[test]
fn bad_arguments_are_one_line_errors() {
    let a = |t: &str, n| FuzzArgs {
        target: t.into(),
        frames: n,
        seed: 1,
        out: None,
        progress: false,
        open: OPEN_MSGS,
    };
    let e = run(&a("nic-foo", 10)).unwrap_err();
    assert!(e.contains("\"nic-foo\"") && !e.contains('\n'), "{e}");
    let e = run(&a("nic-ndp", 0)).unwrap_err();
    assert!(e.contains("--frames 0"), "{e}");
    let e = run(&FuzzArgs {
        open: 0,
        ..a("nic-ndp", 10)
    })
    .unwrap_err();
    assert!(e.contains("--open 0") && !e.contains('\n'), "{e}");
}
