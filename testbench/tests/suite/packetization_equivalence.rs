//! The rust-hdl packetization block, run on the cycle kernel, against the golden
//! scoreboard [`TxModel`] under seeded random traffic from [`TxWorkload`]: messages of
//! 1 B to 38 KiB (and malformed headers), acknowledgements single, several at once and
//! cumulative, NACK retransmission requests of one or several offsets, credit raised and
//! cut below what was already sent, pauses and resumptions, rank changes, lost
//! acknowledgements (so the egress timer retransmits and gives up), events for unknown or
//! freed ids, stale-generation events (for an active slot but an earlier incarnation's
//! `tx_msg_id`) and backpressure on `source` and `status`; for N = 16 and 128.
//!
//! Stale-generation events must occur, be counted in `stat.bad_events` (the model checks
//! the counter every cycle and predicts it without them applied) and never be applied:
//! the model drops them, and most are a cumulative ACK of every offset or a pausing
//! CREDIT, which would free or stall the message at once if the block applied them.
//!
//! Every op the block starts, every ready, every word on `source`, every status event and
//! every counter and free-list level is checked every cycle. After the traffic stops the
//! run drains: every message must end delivered or given up, reported once, and every id
//! and buffer must be free again, with no timer armed.
//!
//! `NT_TX_EQ_SEEDS=k` runs `k` seeds per variant (default 1); `NT_TX_EQ_SEED=s` starts the
//! seeds at `s` instead of each variant's own.
use nt_hdl::packetization::{Packetization, TxProbe, STATUS_REFUSED};
use nt_hdl::pool::BufferConfig;
use nt_sim::arb_workload::TxBeat;
use nt_sim::kernel::Kernel;
use nt_sim::tx_workload::{read_tx_io, TxIo, TxKnobs, TxWorkload};
use nt_testbench::packetization_model::{ModelStats, TxModel, OP_NONE, OP_SEND};
use nt_testbench::stream::StreamMonitor;
use std::time::Instant;

/// One randomized run.
#[derive(Clone)]
struct Run {
    name: &'static str,
    seed: u64,
    /// Cycles with new messages; then the run drains.
    cycles: u64,
    knobs: TxKnobs,
}

#[derive(Debug)]
#[allow(dead_code)]
struct Report {
    cycles: u64,
    model: ModelStats,
    /// Stale-generation events the driver presented, and the block's final `bad_events`.
    stale_presented: u64,
    block_bad_events: u64,
    status_stalls: u64,
    seconds: f64,
}

/// An edit of what the model is shown (to prove the model catches faults).
type Corrupt<'a> = Box<dyn FnMut(&mut TxIo, &mut TxProbe) + 'a>;

use nt_testbench::env_u64;

fn seeds(base: u64) -> Vec<u64> {
    let n = env_u64("NT_TX_EQ_SEEDS").unwrap_or(1);
    let base = env_u64("NT_TX_EQ_SEED").unwrap_or(base);
    (0..n).map(|i| base + i).collect()
}

fn run_model<const A: usize, const N: usize, const C: usize, const BW: usize>(
    r: &Run,
    cfg: &BufferConfig,
    mut corrupt: Option<Corrupt>,
) -> Result<Report, String> {
    let start = Instant::now();
    let mut k = Kernel::new(Packetization::<A, N, C, BW>::new(cfg)).map_err(|e| e.to_string())?;
    let mut w = TxWorkload::with_knobs(r.seed, r.knobs.clone());
    let mut m = TxModel::new(N, cfg);
    let mut src_mon = StreamMonitor::<TxBeat>::new("source");
    let mut st_mon = StreamMonitor::<(u16, u8)>::new("status");
    let drain_cap = r.cycles + 20 * (r.knobs.timeout as u64 + 4 * N as u64) + 100_000;
    let settle_after = r.knobs.timeout as u64 + 4 * N as u64 + 200;
    let mut quiet_since: Option<u64> = None;
    let mut t = 0u64;
    let last_io = loop {
        if t == r.cycles {
            w.generate = false;
        }
        w.drive(t, k.uut_mut());
        k.settle().map_err(|e| e.to_string())?;
        let mut io = read_tx_io(k.uut());
        let mut p = k.uut().probe();
        if let Some(c) = corrupt.as_mut() {
            c(&mut io, &mut p);
        }
        m.cycle(&io, &p)
            .map_err(|e| format!("{e}\n  model's last events:\n  {}", m.recent()))?;
        src_mon.check(t, io.src_valid, io.src_ready, &io.src, false)?;
        st_mon.check(t, io.st_valid, io.st_ready, &(io.st_id, io.st_code), false)?;
        w.observe(k.uut());
        k.tick().map_err(|e| e.to_string())?;
        if t >= r.cycles && m.quiet() && w.idle() {
            let q = *quiet_since.get_or_insert(t);
            if t - q >= settle_after {
                break io;
            }
        } else {
            quiet_since = None;
        }
        if t > drain_cap {
            return Err(format!(
                "not drained by cycle {t}: {} messages alive, driver idle {}\n  model's last events:\n  {}",
                m.alive(),
                w.idle(),
                m.recent()
            ));
        }
        t += 1;
    };
    m.check_end(&last_io)?;
    Ok(Report {
        cycles: t + 1,
        model: m.stats.clone(),
        stale_presented: w.stale_events,
        block_bad_events: last_io.stats.bad_events as u64,
        status_stalls: st_mon.stats.stalls,
        seconds: start.elapsed().as_secs_f64(),
    })
}

fn run<const A: usize, const N: usize, const C: usize, const BW: usize>(
    r: &Run,
    cfg: &BufferConfig,
) -> Report {
    let ctx = format!("packetization N={N} {} seed {}", r.name, r.seed);
    match run_model::<A, N, C, BW>(r, cfg, None) {
        Ok(rep) => {
            println!("{ctx}: passed: {rep:#?}");
            // Every dropped event, stale generations included, is in the block's counter.
            assert_eq!(rep.block_bad_events, rep.model.bad_events, "{ctx}");
            assert!(rep.model.stale_gen_events <= rep.model.bad_events, "{ctx}");
            assert!(
                rep.model.stale_gen_events > 0,
                "{ctx}: no stale-generation event"
            );
            println!(
                "{ctx}: {} stale-generation events presented, {} seen by the model for an alive slot (all dropped), {} bad events in all",
                rep.stale_presented, rep.model.stale_gen_events, rep.block_bad_events
            );
            rep
        }
        Err(e) => panic!("{ctx}: {e}"),
    }
}

fn rich(rtt_pkts: u8, timeout: u32, max_timeouts: u8) -> TxKnobs {
    TxKnobs {
        rtt_pkts,
        timeout,
        max_timeouts,
        p_status_stall: 0.01,
        rich: true,
        ..TxKnobs::default()
    }
}

/// The runs are not vacuous: across them (one run by default), every kind of event and
/// outcome happened.
fn assert_covered(runs: &[Report], what: &str) {
    type Get = fn(&Report) -> u64;
    let checks: [(&str, Get); 21] = [
        ("messages", |r| r.model.messages),
        ("refused headers", |r| r.model.refused),
        ("delivered messages", |r| r.model.delivered),
        ("given-up messages", |r| r.model.given_up),
        ("retransmissions", |r| r.model.retransmissions),
        ("timeout retransmissions", |r| r.model.timeout_rtx),
        ("timeouts without progress", |r| {
            r.model.timeouts_no_progress
        }),
        ("probes (timeouts with nothing to retransmit)", |r| {
            r.model.probes
        }),
        ("cumulative acks", |r| r.model.cumulative_events),
        ("NACKs", |r| r.model.nack_events),
        ("credit cut below what was sent", |r| {
            r.model.credit_below_sent
        }),
        ("pauses", |r| r.model.pauses),
        ("rank changes", |r| r.model.rank_changes),
        ("bad events", |r| r.model.bad_events),
        ("stale-generation events", |r| r.model.stale_gen_events),
        ("source stalls", |r| r.model.source_stalls),
        ("status stalls", |r| r.status_stalls),
        ("waits for an id or a buffer", |r| r.model.alloc_waits),
        ("SENDs of stale send-queue entries", |r| r.model.stale_sends),
        ("send-queue heads waiting for an op in flight", |r| {
            r.model.head_waits
        }),
        ("messages over 32 KiB", |r| {
            (r.model.max_len > 32 * 1024) as u64
        }),
    ];
    for (name, get) in checks {
        let n: u64 = runs.iter().map(get).sum();
        assert!(n > 0, "{what}: no {name} happened: {runs:#?}");
    }
}

#[test]
fn packetization_n16_matches_the_golden_model() {
    let mut runs = vec![];
    for seed in seeds(4100) {
        let r = Run {
            name: "rich",
            seed,
            cycles: 100_000,
            knobs: TxKnobs {
                p_msg: 0.3,
                ..rich(4, 1500, 2)
            },
        };
        runs.push(run::<4, 16, 5, 15>(&r, &BufferConfig::n16()));
    }
    assert_covered(&runs, "N=16");
    // With 16 slots, headers also waited for a released slot's `cfg.reuse_gap`.
    assert!(runs.iter().any(|r| r.model.reuse_waits > 0), "{runs:#?}");
}

#[test]
fn packetization_n16_with_a_large_window_matches_the_golden_model() {
    // Credit above every message's packet count, long timeouts, the plain event mix.
    for seed in seeds(4200) {
        let r = Run {
            name: "window-64",
            seed,
            cycles: 60_000,
            knobs: TxKnobs {
                rtt_pkts: 64,
                timeout: 4000,
                max_timeouts: 3,
                ..TxKnobs::default()
            },
        };
        let rep = run::<4, 16, 5, 15>(&r, &BufferConfig::n16());
        assert!(rep.model.delivered > 10, "{rep:#?}");
    }
}

#[test]
fn packetization_n128_matches_the_golden_model() {
    let mut runs = vec![];
    for seed in seeds(4302) {
        let r = Run {
            name: "rich",
            seed,
            cycles: 120_000,
            knobs: TxKnobs {
                p_msg: 0.3,
                // Few messages get through (two 38 KiB buffers): more of them malformed.
                p_bad_header: 0.03,
                ..rich(8, 2000, 2)
            },
        };
        // The default classes but two 38 KiB buffers, so that long messages wait for one.
        let cfg = BufferConfig::from_pairs(&[(256, 64), (2048, 32), (8192, 32), (38912, 2)]);
        runs.push(run::<7, 128, 8, 17>(&r, &cfg));
    }
    assert_covered(&runs, "N=128");
    assert!(runs.iter().any(|r| r.model.max_alive > 16), "{runs:#?}");
}

/// The model is not blind: each corruption of what it is shown is caught.
#[test]
fn the_model_catches_corrupted_outputs() {
    let r = Run {
        name: "fault",
        seed: 4400,
        cycles: 20_000,
        knobs: rich(4, 1500, 2),
    };
    type Fault = (&'static str, fn(u64, &mut TxIo, &mut TxProbe) -> bool);
    let faults: [Fault; 10] = [
        ("payload bit", |n, io, _| {
            let hit = io.src_valid && io.src_ready && n > 40;
            if hit {
                io.src.data ^= 1 << 17;
            }
            hit
        }),
        ("offset", |n, io, _| {
            let hit = io.src_valid && io.src_ready && n > 40;
            if hit {
                io.src.meta.pkt_offset ^= 1;
            }
            hit
        }),
        ("is_rtx", |_, io, _| {
            let hit = io.src_valid && io.src_ready && io.src.meta.is_rtx;
            if hit {
                io.src.meta.is_rtx = false;
            }
            hit
        }),
        ("credit metadata", |n, io, _| {
            let hit = io.src_valid && io.src_ready && n > 40;
            if hit {
                io.src.meta.credit += 1;
            }
            hit
        }),
        ("status code", |_, io, _| {
            let hit = io.st_valid && io.st_code != STATUS_REFUSED as u8;
            if hit {
                io.st_code ^= 3;
            }
            hit
        }),
        ("sent counter", |n, io, _| {
            let hit = n > 2000;
            if hit {
                io.stats.sent += 1;
            }
            hit
        }),
        ("ids free", |n, io, _| {
            let hit = n > 2000;
            if hit {
                io.stats.ids_free -= 1;
            }
            hit
        }),
        ("app ready", |_, io, _| {
            let hit = io.app_valid && !io.app_ready;
            if hit {
                io.app_ready = true;
            }
            hit
        }),
        ("op kind", |_, _, p| {
            let hit = p.kind == OP_SEND;
            if hit {
                p.kind = OP_NONE;
            }
            hit
        }),
        ("send pick", |_, _, p| {
            let hit = p.kind == OP_SEND;
            if hit {
                p.id ^= 1;
            }
            hit
        }),
    ];
    for (name, f) in faults {
        // The first seed whose run gives the fault a place to strike (the application
        // stalled, a retransmission, ...): there it must be caught.
        let mut injected = false;
        for seed in r.seed..r.seed + 8 {
            let hits = std::cell::Cell::new(0u64);
            let mut n = 0u64;
            let c: Corrupt = Box::new(|io: &mut TxIo, p: &mut TxProbe| {
                n += 1;
                if hits.get() == 0 && f(n, io, p) {
                    hits.set(1);
                }
            });
            let run = Run { seed, ..r.clone() };
            let res = run_model::<4, 16, 5, 15>(&run, &BufferConfig::n16(), Some(c));
            if hits.get() == 0 {
                assert!(
                    res.is_ok(),
                    "seed {seed}: a run without the fault failed: {res:?}"
                );
                continue;
            }
            injected = true;
            let err = res
                .err()
                .unwrap_or_else(|| panic!("fault {name:?} (seed {seed}) was not caught"));
            println!(
                "fault {name:?} (seed {seed}) caught: {}",
                err.lines().next().unwrap_or("")
            );
            break;
        }
        assert!(
            injected,
            "fault {name:?} found no place to strike in 8 seeds"
        );
    }
}
