//! The rust-hdl reassembly block, run on the cycle kernel, against the golden scoreboard
//! [`ReassemblyModel`] under seeded random receive traffic from [`RxSchedule`] /
//! [`RxDriver`]: 16+ senders (plus a group whose keys collide in both hash ways), messages
//! of 1 B to 38 KiB interleaved, reordered within a window, duplicated, lost (retransmitted
//! or not, so some time out), trimmed, malformed requests, contract-violating frames and
//! bursts of output back-pressure. Every response, counter, free-list level and output word
//! is checked every cycle; each run ends with a quiet period longer than
//! `timeout + N + margin` after which every completed message must have been delivered
//! exactly once, byte for byte, and every id and buffer must be free again.
//!
//! A failure names the run (N, variant, seed), the cycle, the signal, expected and got, the
//! model's diagnosis and its last events. `NT_RX_EQ_SEEDS=k` runs `k` seeds per variant
//! (default 1); `NT_RX_EQ_SEED=s` starts the seeds at `s` instead of each variant's own.
use nt_hdl::reassembly::{Reassembly, ReassemblyConfig, HDR_WORDS};
use nt_sim::kernel::Kernel;
use nt_sim::rx_workload::{
    Arrival, FrameKind, RxCycle, RxDriver, RxKnobs, RxMessage, RxSchedule, Violation,
};
use nt_testbench::reassembly_model::{Key, ModelStats, ReassemblyModel};
use nt_testbench::stream::StreamMonitor;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

const TIMEOUT: u64 = 3000;

/// One randomized run.
struct Run {
    name: &'static str,
    seed: u64,
    knobs: RxKnobs,
    cfg: ReassemblyConfig,
    timeout: u64,
}

/// What a run did.
#[derive(Debug)]
#[allow(dead_code)]
struct Report {
    cycles: u64,
    messages: usize,
    packets: usize,
    model: ModelStats,
    driver: nt_sim::rx_workload::RxDriverStats,
    source_stalls: u64,
    seconds: f64,
}

fn seeds(base: u64) -> Vec<u64> {
    let n = nt_testbench::env_u64("NT_RX_EQ_SEEDS").unwrap_or(1);
    let base = nt_testbench::env_u64("NT_RX_EQ_SEED").unwrap_or(base);
    (0..n).map(|i| base + i).collect()
}

/// Runs `Reassembly<A, N, C, SA, S, BW>` under `r` against the model; panics on a
/// mismatch.
fn run<
    const A: usize,
    const N: usize,
    const C: usize,
    const SA: usize,
    const S: usize,
    const BW: usize,
>(
    r: &Run,
) -> Report {
    let ctx = format!("reassembly N={N} {} seed {}", r.name, r.seed);
    let sched = RxSchedule::generate(r.seed, &r.knobs);
    println!(
        "{ctx}: {} messages, {} packet arrivals, timeout {}, classes {:?}",
        sched.messages.len(),
        sched.packet_count(),
        r.timeout,
        r.cfg
            .classes
            .iter()
            .map(|c| (c.bytes, c.count))
            .collect::<Vec<_>>()
    );
    match run_schedule::<A, N, C, SA, S, BW>(
        sched,
        &r.knobs,
        r.seed,
        &r.cfg,
        r.timeout,
        Opts::default(),
    ) {
        Ok(rep) => {
            println!("{ctx}: passed: {rep:#?}");
            rep
        }
        Err(e) => panic!("{ctx}: {e}"),
    }
}

/// A per-cycle hook on the driver.
type Hook<'a> = Box<dyn FnMut(u64, &mut RxDriver) + 'a>;
/// An edit of what the model is shown.
type Corrupt<'a> = Box<dyn FnMut(&mut RxCycle) + 'a>;

/// Harness options.
struct Opts<'a> {
    /// Fail as soon as `sink.ready` is low for a frame of `HDR_WORDS+1` words or more,
    /// but for one cycle before its beat `HDR_WORDS` (a check that waited behind a
    /// request or a release: the contract); otherwise only when it stays low for 64
    /// cycles.
    strict_sink_ready: bool,
    /// Called every cycle before the driver sets the inputs (directed tests).
    hook: Option<Hook<'a>>,
    /// Edits what the model is shown (to prove the model catches faults).
    corrupt: Option<Corrupt<'a>>,
}

impl Default for Opts<'_> {
    fn default() -> Self {
        Opts {
            strict_sink_ready: true,
            hook: None,
            corrupt: None,
        }
    }
}

/// Runs a schedule through the block and the model. Returns the first mismatch as
/// "cycle C: signal: expected E, got G" with the model's diagnosis.
fn run_schedule<
    const A: usize,
    const N: usize,
    const C: usize,
    const SA: usize,
    const S: usize,
    const BW: usize,
>(
    sched: RxSchedule,
    knobs: &RxKnobs,
    seed: u64,
    cfg: &ReassemblyConfig,
    timeout: u64,
    mut opts: Opts,
) -> Result<Report, String> {
    let t0 = Instant::now();
    let (messages, packets) = (sched.messages.len(), sched.packet_count());
    let payloads: HashMap<Key, Arc<Vec<u8>>> = sched
        .messages
        .iter()
        .map(|m| (m.key(), Arc::new(m.payload.clone())))
        .collect();
    if payloads.len() != messages {
        return Err("the schedule has two messages with one key".into());
    }
    let mut drv = RxDriver::new(sched, knobs, seed, N, timeout);
    let mut k =
        Kernel::new(Reassembly::<A, N, C, SA, S, BW>::new(cfg)).map_err(|e| e.to_string())?;
    let mut model = ReassemblyModel::new(N, SA, cfg, timeout, drv.conflict_idle());
    model.set_payloads(payloads);
    model.verbose = std::env::var("NT_RX_EQ_VERBOSE").is_ok();
    let mut mon_src = StreamMonitor::new("source");
    let mut mon_sink = StreamMonitor::new("sink");
    let quiet = timeout + N as u64 + 512;
    let mut sink_wait = 0u64;
    let mut last_out = 0u64;
    loop {
        let c = k.cycle();
        if let Some(h) = opts.hook.as_mut() {
            h(c, &mut drv);
        }
        drv.drive(c, k.uut_mut());
        k.settle().map_err(|e| format!("cycle {c}: {e}"))?;
        #[allow(unused_mut)]
        let mut o = drv.observe(c, k.uut());
        if let Some(f) = opts.corrupt.as_mut() {
            f(&mut o);
        }
        let out = (o.out.data, o.out.last, o.out.local_port);
        mon_src.check(c, o.out.valid, o.out.ready, &out, o.reset)?;
        mon_sink.check(c, o.sink_valid, o.sink_ready, &(), o.reset)?;
        model.step(&o)?;
        // sink.ready: never low for a frame of HDR_WORDS+1 words or more (but for one
        // cycle before beat HDR_WORDS), never for long.
        if o.sink_valid && !o.sink_ready {
            sink_wait += 1;
            let (f, i) = drv.current_frame().expect("a frame is being sent");
            let late_check = i as u64 == HDR_WORDS && sink_wait == 1;
            if (opts.strict_sink_ready && f.words.len() as u64 > HDR_WORDS && !late_check)
                || sink_wait > 64
            {
                return Err(format!(
                    "cycle {c}: sink.ready: expected 1, got 0 (since cycle {}) at beat {i} of frame #{} ({} words, {:?}, id {} off {})\n  diagnosis: the data port stalls a frame of {} words{}\n  recent model events (oldest first):\n{}",
                    c + 1 - sink_wait,
                    f.seq,
                    f.words.len(),
                    f.kind,
                    f.meta.rx_msg_id,
                    f.meta.pkt_offset,
                    f.words.len(),
                    if sink_wait > 64 { "; it looks stuck" } else { "; the contract keeps ready high for frames of at least HDR_WORDS+1 words, but for a cycle before beat HDR_WORDS" },
                    model.recent()
                ));
            }
        } else {
            sink_wait = 0;
        }
        k.tick().map_err(|e| format!("cycle {c}: {e}"))?;
        if o.out.valid && o.out.ready {
            last_out = c;
        }
        // The end: the driver is done, a quiet period longer than timeout + N has passed
        // and the block holds nothing, or has put out nothing for a while.
        if drv.done()
            && c > drv.last_activity() + quiet
            && !o.stat.freed_valid
            && ((model.undelivered() == 0 && model.ids_in_use() == 0) || c > last_out + 512)
        {
            model
                .finish(&o)
                .map_err(|e| format!("at the end (cycle {c}): {e}"))?;
            break;
        }
        if c > drv.last_activity() + 4 * quiet + 20_000 {
            return Err(format!(
                "cycle {c}: no progress since cycle {} (driver done {}, {} completed messages not delivered)",
                drv.last_activity(),
                drv.done(),
                model.undelivered()
            ));
        }
    }
    if drv.stats.missing_responses != 0 {
        return Err(format!("{} responses missing", drv.stats.missing_responses));
    }
    Ok(Report {
        cycles: k.cycle(),
        messages,
        packets,
        model: model.stats.clone(),
        driver: drv.stats,
        source_stalls: mon_src.stats.stalls,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// The run must have exercised what it is for.
fn assert_covers(r: &Report, what: &str) {
    let m = &r.model;
    assert!(m.delivered > 0, "{what}: nothing delivered: {r:?}");
    assert!(m.hits > 0 && m.new_msgs > 0, "{what}: {r:?}");
    assert!(m.frames_bad > 0, "{what}: no malformed frame: {r:?}");
    assert!(
        m.fail_bad + m.fail_len_mismatch > 0,
        "{what}: no malformed request: {r:?}"
    );
    assert!(m.frees_tmo > 0, "{what}: no timeout: {r:?}");
    assert!(m.trimmed > 0, "{what}: no trimmed request: {r:?}");
    assert!(r.driver.not_new > 0, "{what}: no duplicate: {r:?}");
    assert!(
        r.source_stalls > 0,
        "{what}: no output back-pressure: {r:?}"
    );
    assert!(m.ooo_stores > 0, "{what}: no reordering: {r:?}");
    assert!(m.interleaved_stores > 0, "{what}: no interleaving: {r:?}");
    assert!(
        m.fail_no_id + m.fail_no_buffer + m.fail_no_slot > 0,
        "{what}: no allocation failure: {r:?}"
    );
}

fn n16(r: &Run) -> Report {
    run::<4, 16, 5, 6, 64, 15>(r)
}

fn n128(r: &Run) -> Report {
    run::<7, 128, 8, 9, 512, 17>(r)
}

#[test]
fn reassembly_n16_matches_model() {
    for seed in seeds(1) {
        let r = n16(&Run {
            name: "default",
            seed,
            knobs: RxKnobs {
                messages: 400,
                max_active: 5,
                ..RxKnobs::default()
            },
            cfg: ReassemblyConfig::n16(),
            timeout: TIMEOUT,
        });
        assert_covers(&r, "n16 default");
        assert!(
            r.model.late_dups > 0,
            "no late duplicate of a delivered message: {r:?}"
        );
        assert!(r.model.cam_inserts > 0, "no CAM insert: {r:?}");
    }
}

/// Buffers for messages of up to 1 KiB, 8 KiB and 38 KiB: two, two and one.
fn small_buffers() -> ReassemblyConfig {
    ReassemblyConfig::from_pairs(&[(1024, 2), (8192, 2), (38912, 1)])
}

#[test]
fn reassembly_n16_small_buffers_matches_model() {
    for seed in seeds(11) {
        let r = n16(&Run {
            name: "small-buffers",
            seed,
            knobs: RxKnobs {
                messages: 300,
                max_active: 3,
                p_loss: 0.01,
                p_trim: 0.01,
                p_retx: 0.9,
                p_violation: 0.03,
                p_stall: 0.01,
                ..RxKnobs::default()
            },
            cfg: small_buffers(),
            timeout: TIMEOUT,
        });
        assert_covers(&r, "n16 small buffers");
        assert!(r.model.fail_no_buffer > 0, "no buffer exhaustion: {r:?}");
        assert!(
            r.model.class_fallbacks > 0,
            "no larger-class fallback: {r:?}"
        );
    }
}

#[test]
fn reassembly_n128_matches_model() {
    for seed in seeds(21) {
        let r = n128(&Run {
            name: "default",
            seed,
            knobs: RxKnobs {
                messages: 350,
                senders: 24,
                colliding_senders: 10,
                max_active: 10,
                window: 10,
                p_collide_burst: 0.05,
                ..RxKnobs::default()
            },
            cfg: ReassemblyConfig::n128(),
            timeout: 2 * TIMEOUT,
        });
        assert_covers(&r, "n128 default");
        assert!(
            r.model.late_dups > 0,
            "no late duplicate of a delivered message: {r:?}"
        );
        assert!(r.model.cam_inserts > 0, "no CAM insert: {r:?}");
        assert!(r.model.fail_no_slot > 0, "no table-full failure: {r:?}");
    }
}

/// Many trimmed first packets that are never retransmitted and long output stalls: ids run
/// out (N = 128) and the delivery FIFO fills while inputs keep flowing.
#[test]
fn reassembly_n128_id_exhaustion_and_backpressure_matches_model() {
    for seed in seeds(31) {
        let r = n128(&Run {
            name: "id-exhaustion",
            seed,
            knobs: RxKnobs {
                messages: 1400,
                senders: 20,
                p_collide_burst: 0.01,
                max_active: 40,
                window: 16,
                size_weights: [0.75, 0.2, 0.05, 0.0],
                p_edge_len: 0.0,
                p_trim: 0.6,
                p_retx: 0.3,
                p_stall: 0.02,
                stall_burst: 400,
                max_queued_frames: 3,
                ..RxKnobs::default()
            },
            cfg: ReassemblyConfig::from_pairs(&[(256, 128), (2048, 64), (8192, 16)]),
            timeout: 2 * TIMEOUT,
        });
        assert_covers(&r, "n128 id exhaustion");
        assert!(r.model.fail_no_id > 0, "no id exhaustion: {r:?}");
        assert_eq!(r.model.max_ids_in_use, 128, "{r:?}");
    }
}

// ---------------------------------------------------------------- directed runs

/// A message with a deterministic payload.
fn message(ip: u32, port: u16, txid: u16, len: usize) -> RxMessage {
    RxMessage {
        src_ip: ip,
        src_port: port,
        tx_msg_id: txid,
        local_port: 77,
        payload: (0..len)
            .map(|i| (i as u8).wrapping_mul(31) ^ (txid as u8))
            .collect(),
    }
}

fn packet(msg: u32, pkt: u8) -> Arrival {
    Arrival::Packet {
        msg,
        pkt,
        trimmed: false,
        violation: None,
        bad_request: None,
    }
}

/// Knobs for directed runs: no random gaps, stalls or extras.
fn calm() -> RxKnobs {
    RxKnobs {
        p_req_gap: 0.0,
        p_beat_gap: 0.0,
        p_stall: 0.0,
        ..RxKnobs::default()
    }
}

fn directed(messages: Vec<RxMessage>, arrivals: Vec<Arrival>) -> RxSchedule {
    RxSchedule {
        messages,
        arrivals,
        senders: vec![],
    }
}

/// A frame of one beat (its first beat is its last) must be dropped and counted like any
/// other malformed frame, whatever frame came before it; the frames after it must be
/// handled as usual (contract: "Any other frame is dropped and counted"; "ready is high for
/// every frame of at least HDR_WORDS+1 words").
#[test]
fn one_beat_frames_are_dropped_and_counted() {
    // (a) after a stored frame; (b) after a frame the data port dropped at its check.
    let mut failures = vec![];
    for case in ["after a stored frame", "after a dropped frame"] {
        let msgs = vec![message(0x0a00_0001, 4000, 7, 3000)];
        let mut arrivals = vec![packet(0, 0), packet(0, 1), packet(0, 2)];
        if case == "after a stored frame" {
            arrivals[1] = Arrival::Packet {
                msg: 0,
                pkt: 1,
                trimmed: false,
                violation: Some(Violation::Truncated { words: 1 }),
                bad_request: None,
            };
        }
        let mut injected = false;
        let opts = Opts {
            strict_sink_ready: true,
            corrupt: None,
            hook: Some(Box::new(move |_c, d: &mut RxDriver| {
                if case != "after a dropped frame" || injected {
                    return;
                }
                // When packet 1's frame is queued: put a frame with an unknown id and a
                // one-beat frame for packet 1 in front of it.
                let Some(real) = d
                    .frames_mut()
                    .iter()
                    .find(|f| f.meta.pkt_offset == 1)
                    .cloned()
                else {
                    return;
                };
                let mut bad = real.meta;
                bad.rx_msg_id = 999;
                let dropped =
                    d.make_frame(0, 1, bad, FrameKind::Violation(Violation::WrongIdUnknown));
                let mut one = d.make_frame(
                    0,
                    1,
                    real.meta,
                    FrameKind::Violation(Violation::Truncated { words: 1 }),
                );
                one.words.truncate(1);
                d.frames_mut().push_front(Arc::new(one));
                d.frames_mut().push_front(Arc::new(dropped));
                injected = true;
            })),
        };
        let sched = directed(msgs, arrivals);
        match run_schedule::<4, 16, 5, 6, 64, 15>(
            sched,
            &calm(),
            0,
            &ReassemblyConfig::n16(),
            400,
            opts,
        ) {
            Ok(r) => {
                assert_eq!(r.model.delivered, 1, "{case}: {r:?}");
                assert_eq!(
                    r.model.frames_bad,
                    1 + (case == "after a dropped frame") as u64,
                    "{case}: {r:?}"
                );
            }
            Err(e) => failures.push(format!("one-beat frame {case}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "DUT bug(s):\n{}",
        failures.join("\n\n")
    );
}

/// A request that hits a message just as its timer expires: the block must either free
/// the message before the request (which then allocates anew) or keep it for another
/// `timeout` cycles. It must not answer the request as a hit and then free the message
/// by that old expiry (the model: a timeout free at `f` needs `f > s + timeout` for the
/// last hit at S2 `s`). Sweeps the request's arrival over the whole window in which the
/// timer can fire.
#[test]
fn a_request_racing_the_timer_never_sees_an_early_free() {
    let timeout = 40u64;
    let mut failures = vec![];
    let mut failing = vec![];
    let mut tried = 0;
    for trimmed in [false, true] {
        for pause in 0..(timeout + 16 + 24) {
            let msgs = vec![message(0x0a00_0002, 4001, 9, 2048)];
            let arrivals = vec![
                packet(0, 0),
                Arrival::Pause(pause),
                Arrival::Packet {
                    msg: 0,
                    pkt: 1,
                    trimmed,
                    violation: None,
                    bad_request: None,
                },
            ];
            tried += 1;
            if let Err(e) = run_schedule::<4, 16, 5, 6, 64, 15>(
                directed(msgs, arrivals),
                &calm(),
                0,
                &ReassemblyConfig::n16(),
                timeout,
                Opts::default(),
            ) {
                failures.push(format!(
                    "request (trimmed {trimmed}) after a pause of {pause} cycles: {e}"
                ));
                failing.push(format!(
                    "trimmed {trimmed} pause {pause}: {}",
                    e.lines().next().unwrap_or("")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "DUT bug: {} of {tried} timings fail:\n  {}\nthe first in full:\n{}\n  RTL: \
         info_req.ready only looks at timer.source.valid in the acceptance cycle t, but the \
         timer decides to fire in t or t+1, before the request's OP_RESCHEDULE reaches it at \
         S2 = t+2. The request hits (fail=0, is_new_pkt=1, received bit set), and the expiry \
         event, out at t+1 or t+2 with the same gen (a reschedule keeps the meta), becomes a \
         FREE_TMO whose S2 (t+3 or t+4) still finds the message active, not delivering, not \
         held: it is freed 1-2 cycles after the hit, the packet just acknowledged is lost and \
         its frame dropped as bad_data. FREE_TMO would need to re-check the expiry in S2 (e.g. \
         a per-row last-activity time, or an activity count in the timer meta).",
        failures.len(),
        failing.join("\n  "),
        failures[0]
    );
}

/// The model is not vacuous: a short random run passes as is and fails, naming the right
/// signal, when one thing the block shows is altered.
#[test]
fn the_model_catches_injected_faults() {
    type Fault = (
        &'static str,
        &'static str,
        fn(&RxCycle) -> bool,
        fn(&mut RxCycle),
    );
    let knobs = RxKnobs {
        messages: 60,
        p_violation: 0.05,
        p_bad_request: 0.02,
        ..RxKnobs::default()
    };
    let go = |corrupt: Option<Corrupt>| {
        run_schedule::<4, 16, 5, 6, 64, 15>(
            RxSchedule::generate(5, &knobs),
            &knobs,
            5,
            &ReassemblyConfig::n16(),
            600,
            Opts {
                corrupt,
                ..Opts::default()
            },
        )
    };
    let clean = go(None).unwrap_or_else(|e| panic!("the clean run fails: {e}"));
    assert!(
        clean.model.frees_tmo > 0 && clean.model.delivered > 10,
        "{clean:?}"
    );
    // Each fault alters the 3rd cycle that matches.
    let faults: Vec<Fault> = vec![
        (
            "a flipped output data bit",
            "source",
            |o| o.out.valid && o.out.ready,
            |o| o.out.data ^= 1 << 17,
        ),
        (
            "a wrong local_port",
            "source",
            |o| o.out.valid && o.out.ready,
            |o| o.out.local_port ^= 1,
        ),
        (
            "a lost `last`",
            "source",
            |o| o.out.valid && o.out.ready && o.out.last,
            |o| o.out.last = false,
        ),
        (
            "a wrong ack_no",
            "info_resp",
            |o| o.resp.valid && !o.resp.fail,
            |o| o.resp.ack_no += 1,
        ),
        (
            "is_new_pkt flipped",
            "info_resp",
            |o| o.resp.valid && !o.resp.fail,
            |o| o.resp.is_new_pkt ^= true,
        ),
        (
            "is_last_pkt flipped",
            "info_resp",
            |o| o.resp.valid && !o.resp.fail,
            |o| o.resp.is_last_pkt ^= true,
        ),
        (
            "a hit answered with another id",
            "info_resp",
            |o| o.resp.valid && !o.resp.fail && !o.resp.is_new_msg,
            |o| o.resp.rx_msg_id ^= 1,
        ),
        (
            "a failure reported as success",
            "info_resp",
            |o| o.resp.valid && o.resp.fail,
            |o| o.resp.fail = false,
        ),
        (
            "a bad_data count off by one",
            "stat counters",
            |_| true,
            |o| o.stat.bad_data += 1,
        ),
        (
            "an ids_free level off by one",
            "stat.ids_free",
            |_| true,
            |o| o.stat.ids_free -= 1,
        ),
        (
            "a lost free",
            "stat.ids_free",
            |o| o.stat.freed_valid,
            |o| {
                o.stat.freed_valid = false;
                o.stat.freed_id = 0;
                o.stat.freed_timeout = false;
            },
        ),
        (
            "a delivery free shown as a timeout",
            "stat.freed_timeout",
            |o| o.stat.freed_valid && !o.stat.freed_timeout,
            |o| o.stat.freed_timeout = true,
        ),
    ];
    for (what, signal, matches, apply) in faults {
        let mut n = 3u32;
        let r = go(Some(Box::new(move |o: &mut RxCycle| {
            if n > 0 && !o.reset && matches(o) {
                n -= 1;
                if n == 0 {
                    apply(o);
                }
            }
        })));
        match r {
            Ok(rep) => panic!("{what}: not caught ({rep:?})"),
            Err(e) => assert!(
                e.lines().next().unwrap_or("").contains(signal),
                "{what}: caught, but not as a {signal} mismatch: {e}"
            ),
        }
    }
}
