//! Unit tests of `nt_sim::nic_cli`: address and flag parsing and the message file.
use nt_hdl::packetization::MAX_MSG_BYTES;
use nt_sim::nic_cli::*;
use nt_sim::nic_sim::NicConfig;
use std::path::PathBuf;

#[test]
fn ip_addresses_parse_strictly() {
    assert_eq!(parse_ip("10.0.0.1"), Ok(0x0a00_0001));
    assert_eq!(parse_ip("0.0.0.0"), Ok(0));
    assert_eq!(parse_ip("255.255.255.255"), Ok(u32::MAX));
    assert_eq!(parse_ip("192.168.100.9"), Ok(0xc0a8_6409));
    for bad in [
        "010.0.0.1",
        "10.00.0.1",
        "10.0.0.01",
        "+10.+0.+0.+1",
        "10.0.0.+1",
        "-1.0.0.1",
        " 10.0.0.1",
        "10.0.0.1 ",
        "10.0.0.256",
        "10.0.0.1000",
        "10.0.0",
        "10.0.0.1.2",
        "10..0.1",
        "",
        "0x0a.0.0.1",
        "１0.0.0.1",
    ] {
        let e = parse_ip(bad).expect_err(bad);
        assert!(
            e.starts_with("bad IPv4 address") && e.contains(&format!("{bad:?}")),
            "{bad:?}: {e}"
        );
    }
}

#[test]
fn mac_addresses_parse_strictly() {
    assert_eq!(parse_mac("02:00:00:00:00:0a"), Ok(0x0200_0000_000a));
    assert_eq!(parse_mac("AA:bb:Cc:00:11:ff"), Ok(0xaabb_cc00_11ff));
    for bad in [
        "2:0:0:0:0:2",
        "02:00:00:00:00:2",
        "002:00:00:00:00:02",
        "02:00:00:00:00:+2",
        "02:00:00:00:00:0g",
        "02:00:00:00:00",
        "02:00:00:00:00:00:00",
        "02-00-00-00-00-02",
        " 02:00:00:00:00:02",
        "",
    ] {
        let e = parse_mac(bad).expect_err(bad);
        assert!(
            e.starts_with("bad MAC address") && e.contains(&format!("{bad:?}")),
            "{bad:?}: {e}"
        );
    }
    assert_eq!(fmt_mac(0x0200_0000_000a), "02:00:00:00:00:0a");
}

#[test]
fn a_host_address_must_be_unicast() {
    for ok in ["10.0.0.1", "1.0.0.0", "126.255.255.255", "223.255.255.254"] {
        assert!(parse_host_ip(ok).is_ok(), "{ok}");
    }
    for (bad, why) in [
        ("0.0.0.0", "0.0.0.0/8"),
        ("0.1.2.3", "0.0.0.0/8"),
        ("127.0.0.1", "loopback"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.255", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "broadcast"),
    ] {
        let e = parse_host_ip(bad).expect_err(bad);
        assert!(e.contains(bad) && e.contains(why), "{bad}: {e}");
    }
    assert!(parse_host_mac("02:00:00:00:00:0a").is_ok());
    assert!(parse_host_mac("00:11:22:33:44:55").is_ok());
    for (bad, why) in [
        ("ff:ff:ff:ff:ff:ff", "broadcast"),
        ("01:00:5e:00:00:01", "multicast"),
        ("33:33:00:00:00:01", "multicast"),
        ("00:00:00:00:00:00", "all zeros"),
    ] {
        let e = parse_host_mac(bad).expect_err(bad);
        assert!(e.contains(bad) && e.contains(why), "{bad}: {e}");
    }
    // The configuration itself refuses them too (the topology-file path).
    let cfg = NicConfig::new(0xffff_ffff_ffff, 0x0a00_0001);
    assert!(cfg.validate().unwrap_err().contains("broadcast"));
    let cfg = NicConfig::new(0x0200_0000_000a, 0);
    assert!(cfg.validate().unwrap_err().contains("0.0.0.0"));
}

fn flags() -> NicFlags {
    NicFlags {
        ip: "10.0.0.1".into(),
        mac: "02:00:00:00:00:0a".into(),
        switch_mac: "02:00:00:00:00:fe".into(),
        rtt_pkts: 10,
        timeout_cycles: 22_400,
        retries: 5,
        rx_timeout_cycles: None,
        pull_gap: 136,
        unpaced_nacks: false,
    }
}

#[test]
fn timeout_errors_name_the_value_given_and_its_range() {
    let cfg = config_of_flags(&flags()).unwrap();
    assert_eq!(cfg, NicConfig::new(0x0200_0000_000a, 0x0a00_0001));
    // The largest timeout whose default receive timeout, x (5 + 2), is below 2^31.
    let top = TIMEOUT_MAX / 7;
    let f = NicFlags {
        timeout_cycles: top,
        ..flags()
    };
    assert_eq!(config_of_flags(&f).unwrap().rx_timeout, top * 7);
    for t in [top + 1, 2_147_483_647, 63] {
        let f = NicFlags {
            timeout_cycles: t,
            ..flags()
        };
        let e = config_of_flags(&f).unwrap_err();
        assert!(
            e.starts_with(&format!("--timeout-cycles {t}: must be 64..={top} cycles")),
            "{e}"
        );
        assert!(!e.contains("4294967295"), "{e}");
    }
    // With --rx-timeout-cycles given, the timeout may be larger; the receive timeout
    // must cover the retry window.
    let f = NicFlags {
        timeout_cycles: 100_000,
        rx_timeout_cycles: Some(600_000),
        ..flags()
    };
    let e = config_of_flags(&f).unwrap_err();
    assert!(
        e.starts_with("--rx-timeout-cycles 600000: must be 600001..=2147483647 cycles"),
        "{e}"
    );
    let f = NicFlags {
        timeout_cycles: 100_000,
        rx_timeout_cycles: Some(600_001),
        ..flags()
    };
    assert_eq!(config_of_flags(&f).unwrap().rx_timeout, 600_001);
    let f = NicFlags {
        retries: 0,
        ..flags()
    };
    assert_eq!(
        config_of_flags(&f).unwrap_err(),
        "--retries 0: must be 1..=255"
    );
    let f = NicFlags {
        rtt_pkts: 39,
        ..flags()
    };
    assert_eq!(
        config_of_flags(&f).unwrap_err(),
        "--rtt-pkts 39: must be 1..=38 packets"
    );
    // Topology-file names.
    let e =
        check_timeouts(2_147_483_647, 5, None, ["timeout", "retries", "rx_timeout"]).unwrap_err();
    assert!(e.starts_with("timeout 2147483647: must be 64..="), "{e}");
}

fn msgs_file(tag: &str, line: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nt-sim-nic-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(format!("{tag}.jsonl"));
    std::fs::write(&p, line).unwrap();
    p
}

/// A `len` is checked against the NIC's largest message before any payload is built
/// (a `len` of 2^64 - 1 used to panic with "capacity overflow"; 10^11 to abort).
#[test]
fn a_huge_len_is_refused_before_anything_is_built() {
    for (len, tag) in [
        ("18446744073709551615", "max"),
        ("100000000000", "1e11"),
        ("2000000000", "2e9"),
        ("38913", "over"),
        ("0", "zero"),
    ] {
        let p = msgs_file(
            tag,
            &format!("{{\"cycle\": 0, \"dst_ip\": \"10.0.0.2\", \"dst_port\": 1, \"src_port\": 2, \"len\": {len}}}\n"),
        );
        let e = read_msgs(&p).unwrap_err();
        assert!(
            e.ends_with(&format!(
                ":1: len {len}: message length must be 1..={MAX_MSG_BYTES} bytes (the NIC's largest message)"
            )),
            "{e}"
        );
    }
    let p = msgs_file(
        "ok",
        "{\"cycle\": 0, \"dst_ip\": \"10.0.0.2\", \"dst_port\": 1, \"src_port\": 2, \"len\": 38912}\n",
    );
    let m = read_msgs(&p).unwrap();
    assert_eq!(m[0].payload.len(), 38912);
    assert_eq!(m[0].payload[257], 1);
    let _ = std::fs::remove_dir_all(p.parent().unwrap());
}
