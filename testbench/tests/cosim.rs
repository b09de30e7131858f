//! The committed Verilog reproduces the Rust simulation cycle for cycle under Verilator,
//! and the check is shown to catch a mutated copy.
use nt_sim::verilator::Replay;
use nt_testbench::cosim::{committed_verilog, mutate, record, replay, replay_icarus};
use std::path::PathBuf;

const CYCLES: u64 = 12_000;

fn work(tag: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cosim")
        .join(tag)
}

fn cosim_block(block: &str, seed: u64) {
    let rec = record(block, CYCLES, seed).unwrap_or_else(|e| panic!("{block} seed {seed}: {e}"));
    assert_eq!(rec.rows.len() as u64, CYCLES);
    let verilog = committed_verilog(block).unwrap();
    match replay(&verilog, block, &rec, &work(&format!("{block}-{seed}"))).unwrap() {
        Replay::Match { cycles } => assert_eq!(cycles, CYCLES, "{block}: replayed cycle count"),
        Replay::Mismatch { cycle, signal, expected, got } => panic!(
            "{block} seed {seed}: Verilog differs from the Rust simulation at cycle {cycle}, signal {signal}: expected {expected}, got {got}"
        ),
    }
}

#[test]
fn timer_n16_verilog_matches_rust_cycle_for_cycle() {
    cosim_block("timer_n16", 11);
}

#[test]
fn timer_n128_verilog_matches_rust_cycle_for_cycle() {
    cosim_block("timer_n128", 12);
}

/// The check can fail: a timer that fires one cycle late (`>` for `>=` in the expiry
/// compare) must be caught, and the report names a cycle and an output.
#[test]
fn cosim_catches_a_mutated_timer() {
    let block = "timer_n16";
    let rec = record(block, CYCLES, 13).unwrap();
    let good = committed_verilog(block).unwrap();
    let bad = mutate(
        &good,
        "(now >= expiry_mem$read_data)",
        "(now > expiry_mem$read_data)",
    )
    .unwrap();
    match replay(&bad, block, &rec, &work("mutant-timer_n16")).unwrap() {
        Replay::Mismatch {
            cycle,
            signal,
            expected,
            got,
        } => {
            assert!(cycle < CYCLES);
            assert!(signal.starts_with("source$"), "mismatch on {signal}");
            assert_ne!(expected, got);
            eprintln!("mutant caught at cycle {cycle} on {signal}: expected {expected}, got {got}");
        }
        Replay::Match { .. } => panic!("the co-simulation did not catch the mutated Verilog"),
    }
}

/// A second, 4-state simulator: Icarus Verilog replays the same vectors (an X or Z on an
/// output counts as a mismatch), and catches the same mutant.
#[test]
fn timer_verilog_matches_rust_under_icarus_too() {
    for (block, seed) in [("timer_n16", 21), ("timer_n128", 22)] {
        let rec = record(block, CYCLES, seed).unwrap();
        let verilog = committed_verilog(block).unwrap();
        match replay_icarus(&verilog, block, &rec, &work(&format!("icarus-{block}"))).unwrap() {
            Replay::Match { cycles } => assert_eq!(cycles, CYCLES),
            Replay::Mismatch {
                cycle,
                signal,
                expected,
                got,
            } => {
                panic!("{block} seed {seed} under Icarus: cycle {cycle}, {signal}: expected {expected}, got {got}")
            }
        }
    }
    let rec = record("timer_n16", 2_000, 23).unwrap();
    let bad = mutate(
        &committed_verilog("timer_n16").unwrap(),
        "(now >= expiry_mem$read_data)",
        "(now > expiry_mem$read_data)",
    )
    .unwrap();
    assert!(
        matches!(
            replay_icarus(&bad, "timer_n16", &rec, &work("icarus-mutant")).unwrap(),
            Replay::Mismatch { .. }
        ),
        "Icarus did not catch the mutant"
    );
}
