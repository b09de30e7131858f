//! `ntsim fuzz` (issue 37): 25,000 frames per target on the compiled engine (100,000 in
//! `scripts/test-full.sh`, which sets `NT_FUZZ_FRAMES`), checked by the harness's
//! independent checker (`nt_sim::fuzz`); a run that fails any check is `Err`.
use nt_sim::fuzz::{run, Class, FuzzArgs, TARGETS};

/// Frames per target: `NT_FUZZ_FRAMES`, else 25,000 (the test command's share: the eight
/// targets at 100,000 took about 270 s of its CPU on 2026-11-29's host).
fn frames() -> u64 {
    nt_testbench::env_u64("NT_FUZZ_FRAMES").unwrap_or(25_000)
}

fn fuzz(target: &str) {
    let frames = frames();
    let s = run(&FuzzArgs {
        target: target.into(),
        frames,
        seed: 37,
        out: None,
        progress: false,
        open: nt_sim::fuzz::OPEN_MSGS,
    })
    .unwrap_or_else(|e| panic!("{target}: {e}"));
    assert!(s.frames >= frames, "{s}");
    assert!(
        s.count(Class::Valid) > 0 && s.count(Class::Random) > 0,
        "{s}"
    );
    assert_eq!(s.tshark.flagged, 0, "{s}");
    assert_eq!(s.tshark.frames, s.pcap_frames, "{s}");
    if target.starts_with("nic") {
        assert!(s.delivered > 0, "{s}");
        assert_eq!(s.passed_per_class[Class::TruncNear as usize].1, 0, "{s}");
    }
}

#[test]
fn fuzz_every_target_has_a_test() {
    assert_eq!(TARGETS.len(), 8);
}

#[test]
fn fuzz_nic_ndp() {
    fuzz("nic-ndp");
}
#[test]
fn fuzz_nic_homa() {
    fuzz("nic-homa");
}
#[test]
fn fuzz_nic_homatr() {
    fuzz("nic-homatr");
}
#[test]
fn fuzz_nic_bolt() {
    fuzz("nic-bolt");
}
#[test]
fn fuzz_switch_droptail() {
    fuzz("switch-droptail");
}
#[test]
fn fuzz_switch_trim() {
    fuzz("switch-trim");
}
#[test]
fn fuzz_switch_tofino_trim() {
    fuzz("switch-tofino-trim");
}
#[test]
fn fuzz_switch_bolt() {
    fuzz("switch-bolt");
}
