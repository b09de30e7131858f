//! Unit tests of `nt_sim::budget`: the routed ECP5 clock from the committed reports.
use nt_sim::budget::*;

#[test]
fn the_routed_clock_comes_from_the_report() {
    let r = "device utilisation:\nFmax clock: 107.34 MHz (target 100 MHz)\ncritical path";
    assert_eq!(fmax_of(r), Some(107.34));
    assert_eq!(fmax_of("Fmax estimate after placement: 6.48 MHz"), None);
    // The committed parser report routes; an unknown block has no clock.
    assert!(ecp5_mhz("parser_ndp").is_some_and(|m| m > 10.0));
    assert_eq!(ecp5_mhz("no_such_block"), None);
}
