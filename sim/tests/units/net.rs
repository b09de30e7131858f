//! Unit tests of `nt_sim::net`: spreading a delivery over the sample intervals.
use nt_sim::net::spread_delivery;

#[test]
fn a_delivery_is_spread_over_the_intervals_its_words_left_in() {
    // 4 intervals of 100 cycles, the last open; 1,600 bytes = 200 words ending at
    // cycle 349: cycles 150..=349, so 50 words in interval 1, 100 in 2, 50 in 3.
    let mut v = vec![0u64; 4];
    spread_delivery(&mut v, 100, 349, 1600);
    assert_eq!(v, vec![0, 400, 800, 400]);
    // A message longer than the run so far: the excess lands in the first interval.
    let mut v = vec![0u64; 2];
    spread_delivery(&mut v, 100, 120, 8000);
    assert_eq!(v.iter().sum::<u64>(), 8000);
    assert_eq!(v[1], 21 * 8);
    // A short message in one interval, and a partial last word.
    let mut v = vec![0u64; 3];
    spread_delivery(&mut v, 100, 250, 13);
    assert_eq!(v, vec![0, 0, 13]);
    // No interval yet: nothing to add to, no panic.
    spread_delivery(&mut [], 100, 5, 64);
}

/// The protocol/switch mismatches `ntsim run` warns about: Homa beside a trimming switch,
/// Bolt with no Bolt switch; none for the matching pairs.
#[test]
fn mismatched_protocols_and_switches_are_named() {
    use nt_sim::net::NetConfig;
    let topo = |program: &str, mode: &str| {
        NetConfig::from_toml(&format!(
            "[[switch]]\nname = \"s0\"\nports = 4\nmode = \"{mode}\"\n\
             [[host]]\nname = \"h0\"\nprogram = \"{program}\"\n\
             [[host]]\nname = \"h1\"\nprogram = \"{program}\"\n"
        ))
        .unwrap()
        .mismatches()
    };
    for (program, mode) in [
        ("ndp", "trim"),
        ("homatr", "trim"),
        ("homatr", "tofino-trim"),
        ("homa", "droptail"),
        ("bolt", "bolt"),
        ("ndp", "bolt"),
    ] {
        assert_eq!(
            topo(program, mode),
            Vec::<String>::new(),
            "{program} on {mode}"
        );
    }
    for mode in ["trim", "tofino-trim"] {
        let w = topo("homa", mode);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("hosts h0, h1 run homa and switch s0 trims")
                && w[0].contains(&format!("(mode {mode})")),
            "{w:?}"
        );
    }
    for mode in ["droptail", "trim"] {
        let w = topo("bolt", mode);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("no switch is in mode bolt"), "{w:?}");
    }
}

/// A link direction's capture file has a plain name: no `:` or other separators.
#[test]
fn capture_files_have_plain_names() {
    use nt_sim::net::capture_file;
    assert_eq!(capture_file("h0", "s0:0"), "link_h0_to_s0_0.pcapng");
    assert_eq!(capture_file("s0:0", "h0"), "link_s0_0_to_h0.pcapng");
    assert_eq!(
        capture_file("sw-a:15", "h 1/x"),
        "link_sw-a_15_to_h_1_x.pcapng"
    );
}
