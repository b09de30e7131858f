//! The rust-hdl scanning timer, run on the cycle kernel, against the plain-Rust golden
//! model [`TimerModel`]: every output compared in every cycle, under seeded random
//! workloads (N = 16 and N = 128, default traffic, heavy back-pressure, no resets, `ready`
//! always high) and under proptest-generated short command sequences. The contract checker
//! [`TimerSpecChecker`] watches the hardware's ports in the same runs, and is itself shown
//! to catch each kind of violation on hand-made traces.
//!
//! A mismatch names the run (N, variant, seed) and the cycle, and lists the last inputs.
use nt_hdl::timer::ScanningTimer;
use nt_sim::kernel::Kernel;
use nt_sim::workload::{
    drive_timer, read_timer, TimerCommand, TimerInputs, TimerOp, TimerOutputs, TimerWorkload,
};
use nt_testbench::timer_model::{SpecStats, TimerModel, TimerSpecChecker};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

const META_BITS: usize = 16;
/// Mixed into the seed for a variant's own input adjustments.
const VARIANT_RNG_SALT: u64 = 0x5eed_0f7a_71a7;

/// How a run's stimulus departs from [`TimerWorkload`]'s defaults.
#[derive(Clone, Copy, Debug)]
enum Variant {
    /// The workload as is (commands half the cycles, 10 % random and bursty back-pressure,
    /// rare resets).
    Default,
    /// Back-pressure bursts ten times as often, and `ready` low in a third of the other
    /// cycles.
    HeavyBackpressure,
    /// No reset after power-up.
    NoReset,
    /// `ready` always high and no reset: the upper bound is checked without slack.
    AlwaysReady,
}

impl Variant {
    fn workload(self, seed: u64, entries: usize) -> TimerWorkload {
        let mut w = TimerWorkload::new(seed, entries, META_BITS);
        match self {
            Variant::Default => {}
            Variant::HeavyBackpressure => w.p_stall = 0.2,
            Variant::NoReset | Variant::AlwaysReady => w.p_reset = 0.0,
        }
        w
    }

    /// Adjusts the workload's inputs (`rng` is the variant's own, seeded from the seed).
    fn adjust(self, i: &mut TimerInputs, rng: &mut ChaCha8Rng) {
        match self {
            Variant::Default | Variant::NoReset => {}
            Variant::HeavyBackpressure => i.ready &= rng.gen_bool(0.67),
            Variant::AlwaysReady => i.ready = true,
        }
    }
}

/// What a run did.
#[derive(Debug)]
struct RunReport {
    cycles: u64,
    commands: u64,
    resets: u64,
    spec: SpecStats,
}

/// Runs `ScanningTimer<A, N, 16>` and the model side by side for `cycles` cycles, checking
/// every output of every cycle and the contract on the hardware's ports.
fn run_equivalence<const A: usize, const N: usize>(
    seed: u64,
    cycles: u64,
    variant: Variant,
) -> RunReport {
    let ctx = format!("timer N={N} {variant:?} seed {seed}");
    println!("{ctx}: {cycles} cycles");
    let mut k = Kernel::new(ScanningTimer::<A, N, META_BITS>::new())
        .unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let mut model = TimerModel::new(N, META_BITS);
    let mut spec = TimerSpecChecker::new(N, META_BITS);
    spec.set_context(ctx.clone());
    let mut w = variant.workload(seed, N);
    let mut vrng = ChaCha8Rng::seed_from_u64(seed ^ VARIANT_RNG_SALT);
    let mut recent: VecDeque<(u64, TimerInputs)> = VecDeque::new();
    let (mut commands, mut resets) = (0, 0);
    for _ in 0..cycles {
        let now = k.cycle();
        let mut i = w.next(now);
        variant.adjust(&mut i, &mut vrng);
        if recent.len() == 8 {
            recent.pop_front();
        }
        recent.push_back((now, i));
        commands += i.cmd.is_some() as u64;
        resets += i.reset as u64;

        drive_timer(k.uut_mut(), now, &i);
        k.settle()
            .unwrap_or_else(|e| panic!("{ctx}: cycle {now}: {e}"));
        let hw = read_timer(k.uut());
        let expected = model.outputs(&i, now);
        if hw != expected {
            panic!(
                "{ctx}: hardware and model differ at cycle {now}: hardware {hw:?}, model {expected:?}\n\
                 last inputs (cycle, inputs):\n{}",
                recent.iter().map(|(c, i)| format!("  {c}: {i:?}")).collect::<Vec<_>>().join("\n")
            );
        }
        spec.check_cycle(now, &i, &hw);
        model.step(&i, now);
        k.tick()
            .unwrap_or_else(|e| panic!("{ctx}: cycle {now}: {e}"));
    }
    let report = RunReport {
        cycles,
        commands,
        resets,
        spec: spec.stats(),
    };
    println!("{ctx}: {report:?}");
    report
}

/// Minimum activity a random run must show for its pass to mean something.
fn assert_busy(r: &RunReport, what: &str) {
    assert!(r.commands > r.cycles / 4, "{what}: too few commands: {r:?}");
    assert!(
        r.spec.events > r.cycles / 50,
        "{what}: too few events: {r:?}"
    );
}

/// Cycles per hardware run; `NT_TIMER_EQ_CYCLES` overrides it (e.g. for a longer soak).
fn cycles() -> u64 {
    nt_testbench::env_u64("NT_TIMER_EQ_CYCLES").unwrap_or(CYCLES)
}

const CYCLES: u64 = 100_000;

#[test]
fn timer_n16_matches_model_across_seeds() {
    let mut resets = 0;
    for seed in [1, 2, 3] {
        let r = run_equivalence::<4, 16>(seed, cycles(), Variant::Default);
        resets += r.resets;
        assert_busy(&r, &format!("N=16 seed {seed}"));
        assert!(
            r.spec.backpressured > 0,
            "seed {seed}: no back-pressure: {r:?}"
        );
    }
    // About one reset per 5,000 cycles.
    assert!(resets > 0 || cycles() < 20_000, "no reset in any run");
}

#[test]
fn timer_n128_matches_model_across_seeds() {
    for seed in [101, 102, 103] {
        let r = run_equivalence::<7, 128>(seed, cycles(), Variant::Default);
        assert_busy(&r, &format!("N=128 seed {seed}"));
    }
}

#[test]
fn timer_matches_model_under_heavy_backpressure() {
    let r = run_equivalence::<4, 16>(201, cycles(), Variant::HeavyBackpressure);
    assert_busy(&r, "N=16 heavy back-pressure");
    assert!(
        r.spec.backpressured > r.cycles / 4,
        "not much back-pressure: {r:?}"
    );
    let r = run_equivalence::<7, 128>(202, cycles(), Variant::HeavyBackpressure);
    assert!(
        r.spec.backpressured > r.cycles / 4,
        "not much back-pressure: {r:?}"
    );
}

#[test]
fn timer_matches_model_without_resets() {
    let r = run_equivalence::<4, 16>(301, cycles(), Variant::NoReset);
    assert_busy(&r, "N=16 no reset");
    assert_eq!(r.resets, 0);
    let r = run_equivalence::<7, 128>(302, cycles(), Variant::NoReset);
    assert_eq!(r.resets, 0);
}

/// With `ready` always high the checker applies the documented bound
/// `E + 1 <= F <= max(E, W + 2) + N` to every event; the run must reach both ends of it.
#[test]
fn timer_matches_model_with_ready_always_high_and_the_bound_is_tight() {
    for (seed, r) in [
        (
            401,
            run_equivalence::<4, 16>(401, cycles(), Variant::AlwaysReady),
        ),
        (
            402,
            run_equivalence::<7, 128>(402, cycles(), Variant::AlwaysReady),
        ),
    ] {
        assert_busy(&r, &format!("always ready seed {seed}"));
        assert_eq!(r.spec.backpressured, 0);
        assert_eq!(r.spec.events_unstalled, r.spec.events);
        assert_eq!(
            r.spec.min_slack, 0,
            "seed {seed}: upper bound never reached: {r:?}"
        );
        assert_eq!(
            r.spec.min_early_slack, 0,
            "seed {seed}: lower bound never reached: {r:?}"
        );
    }
}

/// The model alone (which the tests above tie to the hardware cycle for cycle) meets the
/// contract over many more cycles than the hardware simulation can afford.
#[test]
fn model_meets_the_contract_over_long_runs() {
    fn run(entries: usize, seed: u64, cycles: u64, variant: Variant) -> SpecStats {
        let ctx = format!("model N={entries} {variant:?} seed {seed}");
        let mut model = TimerModel::new(entries, META_BITS);
        let mut spec = TimerSpecChecker::new(entries, META_BITS);
        spec.set_context(ctx.clone());
        let mut w = variant.workload(seed, entries);
        let mut vrng = ChaCha8Rng::seed_from_u64(seed ^ VARIANT_RNG_SALT);
        for now in 0..cycles {
            let mut i = w.next(now);
            variant.adjust(&mut i, &mut vrng);
            spec.check_cycle(now, &i, &model.outputs(&i, now));
            model.step(&i, now);
        }
        let s = spec.stats();
        println!("{ctx}: {cycles} cycles: {s:?}");
        s
    }
    for v in [
        Variant::Default,
        Variant::HeavyBackpressure,
        Variant::AlwaysReady,
    ] {
        run(16, 7, 300_000, v);
        run(128, 8, 150_000, v);
    }
}

// ---------------------------------------------------------------------------------------
// Proptest: short random sequences, commands concentrated on few entries and near-term
// expiries so that commands collide with the scanner's stages often.

#[derive(Clone, Copy, Debug)]
struct Step {
    reset: bool,
    /// (op, id, expiry relative to now, meta)
    cmd: Option<(u8, u32, i64, u64)>,
    ready: bool,
}

fn step_strategy() -> impl Strategy<Value = Step> {
    let cmd = (
        1u8..=3,
        prop_oneof![3 => 0u32..4, 1 => 0u32..16],
        -8i64..40,
        any::<u16>(),
    )
        .prop_map(|(op, id, rel, meta)| (op, id, rel, meta as u64));
    (
        prop::bool::weighted(0.01),
        prop::option::weighted(0.6, cmd),
        prop::bool::weighted(0.75),
    )
        .prop_map(|(reset, cmd, ready)| Step { reset, cmd, ready })
}

fn to_inputs(s: &Step, now: u64) -> TimerInputs {
    TimerInputs {
        reset: s.reset,
        cmd: s.cmd.map(|(op, id, rel, meta)| TimerCommand {
            op: match op {
                1 => TimerOp::Schedule,
                2 => TimerOp::Reschedule,
                _ => TimerOp::Cancel,
            },
            id,
            expiry: now.saturating_add_signed(rel),
            meta,
        }),
        ready: s.ready,
    }
}

/// Proptest's seed unless `PROPTEST_RNG_SEED` gives another: the runs are reproducible.
const PROPTEST_SEED: u64 = 0x7133_5eed;

fn proptest_seed() -> String {
    std::env::var("PROPTEST_RNG_SEED").unwrap_or_else(|_| PROPTEST_SEED.to_string())
}

fn proptest_config() -> ProptestConfig {
    // No failure persistence: a failing case is reported (shrunk) but not written to
    // `proptest-regressions/`.
    let mut c = ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        c.rng_seed = proptest::test_runner::RngSeed::Fixed(PROPTEST_SEED);
    }
    c
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn timer_n16_matches_model_on_random_sequences(steps in prop::collection::vec(step_strategy(), 1..300)) {
        let mut k = Kernel::new(ScanningTimer::<4, 16, META_BITS>::new()).unwrap();
        let mut model = TimerModel::new(16, META_BITS);
        let mut spec = TimerSpecChecker::new(16, META_BITS);
        let ctx = format!("proptest N=16 seed {}", proptest_seed());
        spec.set_context(ctx.clone());
        for s in &steps {
            let now = k.cycle();
            let i = to_inputs(s, now);
            drive_timer(k.uut_mut(), now, &i);
            k.settle().unwrap();
            let hw: TimerOutputs = read_timer(k.uut());
            let expected = model.outputs(&i, now);
            prop_assert_eq!(hw, expected, "{}: hardware and model differ at cycle {}", ctx, now);
            spec.check_cycle(now, &i, &hw);
            model.step(&i, now);
            k.tick().unwrap();
        }
    }
}

// ---------------------------------------------------------------------------------------
// The checker catches each kind of violation (hand-made traces, N = 16).

fn sched(id: u32, expiry: u64, meta: u64) -> Option<TimerCommand> {
    Some(TimerCommand {
        op: TimerOp::Schedule,
        id,
        expiry,
        meta,
    })
}
fn resched(id: u32, expiry: u64) -> Option<TimerCommand> {
    Some(TimerCommand {
        op: TimerOp::Reschedule,
        id,
        expiry,
        meta: 0,
    })
}
fn cancel(id: u32) -> Option<TimerCommand> {
    Some(TimerCommand {
        op: TimerOp::Cancel,
        id,
        expiry: 0,
        meta: 0,
    })
}
const IDLE: TimerOutputs = TimerOutputs {
    valid: false,
    id: 0,
    meta: 0,
};
fn ev(id: u32, meta: u64) -> TimerOutputs {
    TimerOutputs {
        valid: true,
        id,
        meta,
    }
}

/// Feeds `trace` (per cycle: command, ready, outputs) from cycle 0 and returns the checker.
fn feed(trace: &[(Option<TimerCommand>, bool, TimerOutputs)]) -> TimerSpecChecker {
    let mut c = TimerSpecChecker::new(16, META_BITS);
    for (now, (cmd, ready, out)) in trace.iter().enumerate() {
        c.check_cycle(
            now as u64,
            &TimerInputs {
                reset: false,
                cmd: *cmd,
                ready: *ready,
            },
            out,
        );
    }
    c
}

/// A trace with schedule(id 3, expiry `e`) in cycle 0, idle outputs until the event `(3,
/// 0xab)` in cycle `f`, `ready` high, and `extra(cycle)` as the command of cycles 1.. .
fn fire_trace(
    e: u64,
    f: usize,
    extra: impl Fn(usize) -> Option<TimerCommand>,
) -> Vec<(Option<TimerCommand>, bool, TimerOutputs)> {
    (0..=f)
        .map(|c| {
            let cmd = if c == 0 { sched(3, e, 0xab) } else { extra(c) };
            (cmd, true, if c == f { ev(3, 0xab) } else { IDLE })
        })
        .collect()
}

#[test]
fn checker_accepts_events_at_both_ends_of_the_bound() {
    feed(&fire_trace(5, 6, |_| None)); // F = E + 1
    feed(&fire_trace(5, 21, |_| None)); // F = max(E, W + 2) + N
    feed(&fire_trace(0, 18, |_| None)); // F = W + 2 + N
                                        // A cancel in the cycle the event first appears does not retract it.
    feed(&fire_trace(5, 6, |c| if c == 6 { cancel(3) } else { None }));
}

#[test]
#[should_panic(expected = "cycle 5, id 3: event before its expiry")]
fn checker_catches_an_early_event() {
    feed(&fire_trace(5, 5, |_| None));
}

#[test]
#[should_panic(expected = "cycle 21, id 3: armed timer not presented by its deadline 21")]
fn checker_catches_a_late_event() {
    feed(&fire_trace(5, 22, |_| None));
}

#[test]
#[should_panic(expected = "cycle 9, id 3: event for a timer cancelled in cycle 8")]
fn checker_catches_an_event_after_a_cancel_the_cycle_before() {
    feed(&fire_trace(5, 9, |c| if c == 8 { cancel(3) } else { None }));
}

#[test]
#[should_panic(expected = "cycle 9, id 3: event for a timer disarmed by the reset in cycle 4")]
fn checker_catches_an_event_after_a_reset() {
    let mut c = TimerSpecChecker::new(16, META_BITS);
    for now in 0..10u64 {
        let cmd = if now == 0 { sched(3, 5, 0xab) } else { None };
        let out = if now == 9 { ev(3, 0xab) } else { IDLE };
        c.check_cycle(
            now,
            &TimerInputs {
                reset: now == 4,
                cmd,
                ready: true,
            },
            &out,
        );
    }
}

#[test]
#[should_panic(expected = "cycle 8, id 3: event before its expiry: expiry 30")]
fn checker_uses_the_rescheduled_expiry() {
    feed(&fire_trace(5, 8, |c| {
        if c == 7 {
            resched(3, 30)
        } else {
            None
        }
    }));
}

#[test]
fn checker_moves_the_deadline_with_a_reschedule_and_ignores_one_after_firing() {
    // Rescheduled in cycle 10 to expiry 12: deadline max(12, 12) + 16 = 28.
    feed(&fire_trace(5, 28, |c| {
        if c == 10 {
            resched(3, 12)
        } else {
            None
        }
    }));
    // A reschedule in the firing cycle is ignored: a second event is still a double fire.
    let r = std::panic::catch_unwind(|| {
        let mut t = fire_trace(5, 6, |c| if c == 6 { resched(3, 9) } else { None });
        t.extend([(None, true, IDLE), (None, true, ev(3, 0xab))]);
        feed(&t);
    });
    let msg = *r
        .expect_err("double fire not caught")
        .downcast::<String>()
        .unwrap();
    assert!(
        msg.contains("cycle 8, id 3: timer fired twice for one schedule"),
        "{msg}"
    );
}

#[test]
#[should_panic(expected = "cycle 6, id 3: event meta 0xac, but the schedule in cycle 0 set 0xab")]
fn checker_catches_wrong_meta() {
    let mut t = fire_trace(5, 6, |_| None);
    t[6].2.meta = 0xac;
    feed(&t);
}

#[test]
#[should_panic(expected = "cycle 8, id 3: timer fired twice for one schedule")]
fn checker_catches_a_double_fire() {
    let mut t = fire_trace(5, 6, |_| None);
    t.extend([(None, true, IDLE), (None, true, ev(3, 0xab))]);
    feed(&t);
}

#[test]
#[should_panic(expected = "cycle 8, id 3: timer source: cycle 8: valid dropped while stalled")]
fn checker_catches_a_withdrawn_event() {
    let mut t = fire_trace(5, 6, |_| None);
    t[6].1 = false;
    t.extend([(None, false, ev(3, 0xab)), (None, true, IDLE)]);
    feed(&t);
}

#[test]
#[should_panic(expected = "cycle 7, id 3: timer source: cycle 7: payload changed while stalled")]
fn checker_catches_an_event_changed_while_stalled() {
    let mut t = fire_trace(5, 6, |_| None);
    t[6].1 = false;
    t.push((None, true, ev(3, 0xac)));
    feed(&t);
}

#[test]
fn checker_extends_the_deadline_by_backpressured_cycles() {
    // Timer 3 (E 5, deadline 21) waits behind an event of timer 4 held for 4 cycles.
    let mut t: Vec<_> = (0..=25)
        .map(|c| {
            let cmd = match c {
                0 => sched(3, 5, 0xab),
                1 => sched(4, 0, 0xcd),
                _ => None,
            };
            let out = match c {
                10..=14 => ev(4, 0xcd),
                25 => ev(3, 0xab),
                _ => IDLE,
            };
            (cmd, !(10..14).contains(&c), out)
        })
        .collect();
    feed(&t); // 25 = 21 + 4
    t[25].2 = IDLE;
    t.push((None, true, ev(3, 0xab)));
    let r = std::panic::catch_unwind(|| feed(&t));
    let msg = *r
        .expect_err("late event not caught")
        .downcast::<String>()
        .unwrap();
    assert!(
        msg.contains("cycle 25, id 3: armed timer not presented by its deadline 25"),
        "{msg}"
    );
}
