//! The rust-hdl priority scheduler against [`PrioSchedModel`] under the seeded
//! [`PrioSchedWorkload`] (idle gaps, fill bursts past the entries and the FIFO, updates,
//! removes of present and absent ids, bad op codes and ids `>= N`, all predicates, rare
//! resets), for 16 and 128 ids: every output (`cmd.ready`, `query.ready`, every `resp`
//! field, every `stat` counter and level) is compared every cycle, and the command stream
//! is checked by the ready/valid monitor. Each run must show every interesting event.
//!
//! `NT_PRISCHED_SEED` and `NT_PRISCHED_CYCLES` replay one seed / change the length.
use nt_hdl::prisched::PrioSched;
use nt_sim::kernel::Kernel;
use nt_sim::prisched_workload::{read_prisched, PrioSchedWorkload, SchedStats};
use nt_testbench::prisched_model::{PrioSchedModel, SchedEvents};
use nt_testbench::stream::{StreamMonitor, StreamStats};

use nt_testbench::env_u64;

struct Run {
    events: SchedEvents,
    /// The largest counter values seen (counters restart at each reset).
    peak: SchedStats,
    /// Sums over the run of each counter's increments (levels: their peaks).
    total: SchedStats,
    stream: StreamStats,
}

fn run<const A: usize, const N: usize>(seed: u64, cycles: u64) -> Result<Run, String> {
    let mut k = Kernel::new(PrioSched::<A, N>::new()).map_err(|e| e.to_string())?;
    let mut w = PrioSchedWorkload::new(seed, N);
    let mut m = PrioSchedModel::new(N);
    let mut mon = StreamMonitor::new("cmd");
    let mut peak = SchedStats::default();
    let mut total = SchedStats::default();
    let mut prev = SchedStats::default();
    for t in 0..cycles {
        let i = w.drive(k.uut_mut());
        k.settle().map_err(|e| e.to_string())?;
        let got = read_prisched(k.uut());
        let want = m.outputs();
        if got != want {
            return Err(format!(
                "cycle {t}: inputs {i:?}\n  block {got:?}\n  model {want:?}"
            ));
        }
        mon.check(
            t,
            i.cmd.is_some(),
            got.cmd_ready,
            &i.cmd.unwrap_or_default(),
            i.reset,
        )?;
        let s = got.stat;
        macro_rules! track {
            ($($f:ident),*) => {$(
                peak.$f = peak.$f.max(s.$f);
                if s.$f >= prev.$f {
                    total.$f += s.$f - prev.$f;
                }
            )*};
        }
        track!(
            upserts,
            removes,
            remove_miss,
            overflowed,
            fifo_drops,
            stale,
            promoted,
            bad_cmds,
            queries
        );
        peak.count = peak.count.max(s.count);
        peak.fifo_level = peak.fifo_level.max(s.fifo_level);
        total.count = peak.count;
        total.fifo_level = peak.fifo_level;
        prev = s;
        w.taken(&i, got.cmd_ready);
        m.step(&i);
        k.tick().map_err(|e| e.to_string())?;
    }
    Ok(Run {
        events: m.events,
        peak,
        total,
        stream: mon.stats,
    })
}

fn seeds(default: &[u64]) -> Vec<u64> {
    match env_u64("NT_PRISCHED_SEED") {
        Some(s) => vec![s],
        None => default.to_vec(),
    }
}

/// Runs every seed, failing with the seed; returns the runs.
fn runs<const A: usize, const N: usize>(default_seeds: &[u64]) -> Vec<Run> {
    let cycles = env_u64("NT_PRISCHED_CYCLES").unwrap_or(200_000);
    seeds(default_seeds)
        .into_iter()
        .map(|seed| {
            let r = run::<A, N>(seed, cycles).unwrap_or_else(|e| {
                panic!("prisched N={N} seed {seed} ({cycles} cycles; replay with NT_PRISCHED_SEED={seed}): {e}")
            });
            println!(
                "prisched N={N} seed {seed}: {cycles} cycles, {} commands ({} stalled cycles), totals {:?}, events {:?}",
                r.stream.transfers, r.stream.stalls, r.total, r.events
            );
            r
        })
        .collect()
}

/// Checks that each predicate both found and missed, and the common events.
fn common_events(n: usize, r: &Run) {
    let e = &r.events;
    for (p, (found, missed)) in e.found.iter().enumerate() {
        assert!(
            *found > 100 && *missed > 100,
            "N={n}: predicate {p} found {found} / missed {missed} times"
        );
    }
    assert!(e.ties > 100, "N={n}: ties {}", e.ties);
    assert!(e.ranked > 100, "N={n}: ranked {}", e.ranked);
    assert!(e.in_place > 100, "N={n}: in-place updates {}", e.in_place);
    assert!(e.full > 100, "N={n}: cycles full {}", e.full);
    assert!(e.resets >= 1, "N={n}: resets {}", e.resets);
    let t = &r.total;
    assert!(t.bad_cmds > 100, "N={n}: bad commands {}", t.bad_cmds);
    assert!(
        t.remove_miss > 100,
        "N={n}: remove misses {}",
        t.remove_miss
    );
    assert!(t.removes > 1000 && t.upserts > 1000, "N={n}: {t:?}");
    assert_eq!(r.peak.count, 16, "N={n}: the entries filled up");
}

#[test]
fn prisched_n16_matches_the_golden_model() {
    for r in runs::<4, 16>(&[1601, 1602]) {
        common_events(16, &r);
        // 16 ids fit in 16 entries: an id without an entry always finds a free one, so the
        // overflow FIFO is never used (pigeonhole).
        let t = &r.total;
        assert_eq!(
            (
                t.overflowed,
                t.fifo_drops,
                t.stale,
                t.promoted,
                r.peak.fifo_level
            ),
            (0, 0, 0, 0, 0)
        );
        assert_eq!(r.stream.stalls, 0, "ready is high without a FIFO");
    }
}

#[test]
fn prisched_n128_matches_the_golden_model() {
    for r in runs::<7, 128>(&[12801, 12802]) {
        common_events(128, &r);
        let (t, e) = (&r.total, &r.events);
        assert!(t.overflowed > 100, "overflowed {}", t.overflowed);
        assert!(t.fifo_drops > 100, "fifo drops {}", t.fifo_drops);
        assert!(t.promoted > 100, "promoted {}", t.promoted);
        assert!(t.stale > 10, "stale {}", t.stale);
        assert_eq!(r.peak.fifo_level, 16, "the FIFO filled up");
        assert!(e.promote_insert > 100, "{e:?}");
        assert!(
            e.promote_update > 10,
            "newer snapshots of a queued id: {e:?}"
        );
        assert!(e.stale_removed > 10, "{e:?}");
        assert!(e.stale_superseded > 0, "{e:?}");
        assert!(e.requeued > 10, "{e:?}");
        assert!(
            r.stream.stalls > 100,
            "cmd stalled by promotions: {:?}",
            r.stream
        );
    }
}
