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

/// The NDP NIC does not fit the 85F; its budgets are converted at the routed clock of its
/// FPGA build (the same cycles, smaller buffers), and the table says so.
#[test]
fn a_block_too_large_for_the_85f_is_timed_at_its_fpga_build() {
    assert_eq!(ecp5_mhz("nic_ndp"), None);
    let fpga = ecp5_mhz("nic_ndp_fpga").expect("nic_ndp_fpga routes");
    assert_eq!(ecp5_clock_of("nic_ndp"), Some((fpga, true)));
    assert_eq!(
        ecp5_clock_of("parser_ndp"),
        ecp5_mhz("parser_ndp").map(|m| (m, false))
    );
    assert_eq!(ecp5_clock_of("nic_homa"), None);
    let b = Budget {
        block: "nic_ndp",
        what: "RX path",
        cycles: 24.0,
        reference: None,
        limit: None,
    };
    let table = format_budgets(&[b]);
    let ns = format!("{:.1} @{fpga:.0}M (fpga)", 24.0 * 1e3 / fpga);
    assert!(table.contains(&ns), "{table}");
}
