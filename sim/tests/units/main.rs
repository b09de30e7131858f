//! The `nt-sim` library's unit tests, one module per library module. They live in this
//! integration test rather than in `#[cfg(test)]` modules of the library, so that
//! `cargo test` does not compile the library a second time as a test harness (the `[lib]`
//! section of `sim/Cargo.toml` has `test = false`); library items they need that are not
//! otherwise public are `pub` and `#[doc(hidden)]`.
mod budget;
mod examples;
mod fuzz;
mod link;
mod lockstep;
mod net;
mod net_report;
mod net_scenarios;
mod nic_cli;
mod overrides;
mod pcap;
mod ports;
mod rcomp;
mod switch_model;
mod switch_sim;
mod vmodel;
mod wire;
mod wireshark;
