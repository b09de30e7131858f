//! Bolt's NIC blocks against their golden models ([`nt_testbench::bolt_model`]), seeded:
//! * the program (`BoltProgram16`) under random records (DATA intact/trimmed, failed or
//!   not, INC or not; ACKs with random offsets, ackNos and INC; NACKs; SRCs with random
//!   queue sizes and reflected TX times far enough back to saturate; records of no kind),
//!   on a few slots and a few message generations per slot (so a slot changes hands and a
//!   new message starts fresh), with idle gaps and random `ready` on every output: every
//!   event accepted is compared, in order, per output, and the outputs are checked by the
//!   ready/valid monitor. A run must show every interesting decision, and a model with
//!   the wrong `rtt_pkts` must be caught.
//! * the TX stamp (`BoltStamp`) under random DATA/ACK/NACK frames with idle gaps and
//!   backpressure: every word out is compared with the stamped frame.
//!
//! `NT_BOLT_SEED` replays one seed, `NT_BOLT_CYCLES` changes the program runs' length.
use nt_hdl::bolt::BoltProgram16;
use nt_hdl::boltstamp::BoltStamp;
use nt_hdl::ingress::PktInfo;
use nt_hdl::nic::CtrlEvent;
use nt_hdl::swif::{BOLT_ACK, BOLT_DATA, BOLT_INC, BOLT_SRC};
use nt_sim::kernel::Kernel;
use nt_testbench::bolt_model::{
    stamp, stamp_flags, BoltCounts, BoltModel, Choices, CreditEv, DeliveredEv,
};
use nt_testbench::stream::{StreamMonitor, StreamStats};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

const DATA: u64 = 0x01;
const ACK: u64 = 0x02;
const NACK: u64 = 0x04;
const PULL: u64 = 0x08;
const CHOP: u64 = 0x10;

use nt_testbench::env_u64;

fn seeds(default: &[u64]) -> Vec<u64> {
    match env_u64("NT_BOLT_SEED") {
        Some(s) => vec![s],
        None => default.to_vec(),
    }
}

// ---------------------------------------------------------------------------------------
// The program.

/// Slot bytes of the `tx_msg_id`s used (`tx_msg_id = gen << 8 | slot`): 17 and 33 share
/// slot 1 (the program keeps 16 states, by the low 4 bits), with other tags.
const SLOTS: [u16; 7] = [0, 1, 2, 3, 6, 17, 33];
const GENS: u16 = 4;

/// Random records.
struct Records {
    rng: ChaCha8Rng,
    /// The generation each slot byte is sending now.
    current: [u16; SLOTS.len()],
}

fn bolt_bits(q_size: u64, link_rate: u64, flags: u8, t_tx: u32) -> Bits<72> {
    let mut b = Bits::<72>::default();
    b.set_bits::<32>(0, (t_tx as u64).into());
    b.set_bits::<8>(32, (flags as u64).into());
    b.set_bits::<8>(40, link_rate.into());
    b.set_bits::<24>(48, q_size.into());
    b
}

impl Records {
    fn new(seed: u64) -> Self {
        Records {
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0xb017),
            current: [0; SLOTS.len()],
        }
    }

    /// A `tx_msg_id`, and whether it is the shrinking message's.
    fn tx_msg_id(&mut self) -> (u16, bool) {
        let r = &mut self.rng;
        // Slot byte 0 is the long-lived growing message (its window can grow to the top),
        // slot byte 2 the long-lived shrinking one (mostly SRCs: its window goes down to 1).
        let i = match r.gen_range(0..10) {
            0..=2 => 0,
            3 => 2,
            _ => r.gen_range(0..SLOTS.len()),
        };
        let lives = SLOTS[i] == 0 || SLOTS[i] == 2;
        if !lives && r.gen_bool(1.0 / 48.0) {
            self.current[i] = (self.current[i] + 1) % GENS;
        }
        let gen = if !lives && r.gen_bool(0.1) {
            r.gen_range(0..GENS)
        } else {
            self.current[i]
        };
        (gen << 8 | SLOTS[i], SLOTS[i] == 2)
    }

    /// Offsets, past the 38-bit bitmaps now and then, 255 (the top) often.
    fn offset(&mut self) -> u64 {
        match self.rng.gen_range(0..10) {
            0..=6 => self.rng.gen_range(0..48),
            7 | 8 => self.rng.gen_range(0..=255),
            _ => 255,
        }
    }

    /// A record offered when the program's time is `now`.
    fn next(&mut self, now: u32) -> PktInfo {
        let (tx, shrinking) = self.tx_msg_id();
        let r = &mut self.rng;
        let mut i = PktInfo {
            tos: (r.gen::<u8>() as u64).into(),
            src_ip: (r.gen::<u32>() as u64).into(),
            src_port: (r.gen::<u16>() as u64).into(),
            dst_port: (r.gen::<u16>() as u64).into(),
            tx_msg_id: (tx as u64).into(),
            msg_len: (r.gen::<u16>() as u64).into(),
            pull_grant: (r.gen_range(0..=40u64)).into(),
            grant_prio: (r.gen::<u8>() as u64).into(),
            rx_msg_id: (r.gen_range(0..40u64)).into(),
            is_new_msg: r.gen(),
            is_new_pkt: r.gen(),
            is_last_pkt: r.gen(),
            ack_no: (r.gen_range(0..512u64)).into(),
            ..Default::default()
        };
        // Bolt flags other than the ones that matter are noise.
        let noise = r.gen::<u8>() & !(BOLT_SRC | BOLT_INC);
        let inc = if r.gen_bool(if shrinking { 0.1 } else { 0.6 }) {
            BOLT_INC
        } else {
            0
        };
        let q = r.gen_range(0..1u64 << 24);
        let t = r.gen::<u32>();
        let lr = r.gen_range(0..256u64);
        let kind = match r.gen_range(0..100) {
            // The shrinking message: mostly SRCs (short RTTs), a few ACKs and NACKs.
            k if shrinking => [30, 65, 75, 95][k % 4],
            k => k,
        };
        match kind {
            // DATA: intact or trimmed, failed or not, now and then with other flags.
            0..=24 => {
                let mut f = DATA;
                if r.gen_bool(0.3) {
                    f |= CHOP;
                }
                if r.gen_bool(0.1) {
                    f |= [ACK, NACK, PULL][r.gen_range(0..3)];
                }
                i.flags = f.into();
                i.fail = r.gen_bool(0.2);
                i.bolt = bolt_bits(q, lr, noise | inc, t);
            }
            // ACK: random offset, ackNo 0..40, INC or not.
            25..=61 => {
                let f = if r.gen_bool(0.1) { ACK | CHOP } else { ACK };
                i.flags = f.into();
                i.bolt = bolt_bits(q, lr, noise | inc | (r.gen::<u8>() & BOLT_SRC), t);
            }
            62..=69 => {
                let f = if r.gen_bool(0.1) { NACK | PULL } else { NACK };
                i.flags = f.into();
                i.bolt = bolt_bits(q, lr, noise | inc, t);
            }
            // SRC: queue 0..200k (now and then 0 or past 16 bits of 64-byte units), the
            // reflected TX time 0..70000 cycles back (past 16 bits now and then).
            70..=93 => {
                let q = match if shrinking { 19 } else { r.gen_range(0..20) } {
                    0 => 0,
                    1 => r.gen_range(0..2000),
                    2 => r.gen_range(0x40_0000..0x100_0000),
                    _ => r.gen_range(0..200_000),
                };
                let back = match if shrinking { 10 } else { r.gen_range(0..10) } {
                    0..=3 => r.gen_range(0..3000),
                    4..=8 => r.gen_range(0..70_000),
                    9 => r.gen_range(65_000..70_000),
                    _ => r.gen_range(0..200),
                };
                i.bolt = bolt_bits(q, lr, noise | inc | BOLT_SRC, now.wrapping_sub(back));
            }
            // No kind: transport flags the program does not act on (or 0 without SRC).
            _ => {
                let f = [0, PULL, CHOP, 0x20, 0x40, 0x80, PULL | CHOP][r.gen_range(0..7)];
                let b = if f == 0 {
                    noise | inc
                } else {
                    noise | inc | BOLT_SRC
                };
                i.flags = f.into();
                i.bolt = bolt_bits(q, lr, b, t);
            }
        }
        i.pkt_offset = self.offset().into();
        i
    }
}

fn ctrl_of(u: &BoltProgram16) -> CtrlEvent {
    CtrlEvent::of(&u.ctrl)
}

/// The delivered port's raw fields (for the stream monitor) and the event they make.
fn delivered_of(u: &BoltProgram16) -> ((u16, u64, bool, u8), DeliveredEv) {
    let d = &u.delivered;
    let raw = (
        d.tx_msg_id.val().to_u64() as u16,
        d.ack_bitmap.val().to_u64(),
        d.below_flag.val(),
        d.below.val().to_u64() as u8,
    );
    let ev = DeliveredEv {
        tx_msg_id: raw.0,
        ack_bitmap: raw.1,
        below: raw.2.then_some(raw.3),
    };
    (raw, ev)
}

type CreditRaw = (u16, bool, u64, bool, u16, bool, bool, u8);

/// The credit port's raw fields and the event they make. `allow_tx`, `rank_flag` and
/// `new_rank` are checked on the raw fields: Bolt always allows, never ranks.
fn credit_of(u: &BoltProgram16) -> (CreditRaw, CreditEv) {
    let c = &u.credit;
    let raw = (
        c.tx_msg_id.val().to_u64() as u16,
        c.rtx_flag.val(),
        c.rtx_bitmap.val().to_u64(),
        c.credit_flag.val(),
        c.new_credit.val().to_u64() as u16,
        c.allow_tx.val(),
        c.rank_flag.val(),
        c.new_rank.val().to_u64() as u8,
    );
    let ev = CreditEv {
        tx_msg_id: raw.0,
        rtx: raw.1.then_some(raw.2),
        credit: raw.3.then_some(raw.4),
    };
    (raw, ev)
}

/// Compares an accepted event with the next one predicted.
fn expect<T: PartialEq + std::fmt::Debug>(
    cycle: u64,
    port: &str,
    got: T,
    want: Option<T>,
) -> Result<(), String> {
    match want {
        Some(w) if w == got => Ok(()),
        Some(w) => Err(format!(
            "cycle {cycle}: {port} event\n  block {got:?}\n  model {w:?}"
        )),
        None => Err(format!(
            "cycle {cycle}: {port} event {got:?}, the model predicted none"
        )),
    }
}

#[derive(Debug)]
struct ProgRun {
    rtt_pkts: u8,
    counts: BoltCounts,
    events: (u64, u64, u64),
    streams: [StreamStats; 3],
    offered_stalls: u64,
}

/// Drives the program for `cycles` cycles (then drains with every `ready` high), the
/// model built with `rtt_pkts + model_rtt_skew` and `choices`.
fn run_program(
    seed: u64,
    cycles: u64,
    model_rtt_skew: u8,
    choices: Choices,
) -> Result<ProgRun, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rtt: u8 = rng.gen_range(1..=60);
    let p_offer = rng.gen_range(0.3..1.0);
    let p_ready: [f64; 3] = [
        rng.gen_range(0.3..1.0),
        rng.gen_range(0.3..1.0),
        rng.gen_range(0.3..1.0),
    ];
    let mut recs = Records::new(seed);
    let mut k =
        Kernel::with_clock(BoltProgram16::new(), |p| &mut p.clock).map_err(|e| e.to_string())?;
    let mut m = BoltModel::new(rtt.wrapping_add(model_rtt_skew), 16).with_choices(choices);
    let mut mon_c = StreamMonitor::new("ctrl");
    let mut mon_d = StreamMonitor::new("delivered");
    let mut mon_k = StreamMonitor::new("credit");
    let mut offered: Option<PktInfo> = None;
    let mut events = (0u64, 0u64, 0u64);
    let mut taken = 0u64;
    let mut offered_stalls = 0u64;
    let drain = 16;
    // NT_BOLT_TRACE=<slot> prints every record taken for that slot.
    let trace = env_u64("NT_BOLT_TRACE");
    for c in 0..cycles + drain {
        let draining = c >= cycles;
        let now = (c as u32).wrapping_sub(1);
        if offered.is_none() && c >= 1 && !draining && rng.gen_bool(p_offer) {
            offered = Some(recs.next(now));
        }
        let ready: [bool; 3] = std::array::from_fn(|i| draining || rng.gen_bool(p_ready[i]));
        let u = k.uut_mut();
        u.reset.next = c == 0;
        u.cfg.rtt_pkts.next = (rtt as u64).into();
        u.freed.valid.next = false;
        u.freed.id.next = 0.into();
        u.info.valid.next = offered.is_some();
        u.info.info.next = offered.unwrap_or_default();
        u.ctrl.ready.next = ready[0];
        u.delivered.ready.next = ready[1];
        u.credit.ready.next = ready[2];
        k.settle().map_err(|e| e.to_string())?;
        let u = k.uut();

        let cv = u.ctrl.valid.val();
        let ce = ctrl_of(u);
        mon_c.check(c, cv, ready[0], &ce, c == 0)?;
        if cv && ready[0] {
            events.0 += 1;
            expect(c, "ctrl", ce, m.ctrl.pop_front())?;
        }
        let dv = u.delivered.valid.val();
        let (draw, de) = delivered_of(u);
        mon_d.check(c, dv, ready[1], &draw, c == 0)?;
        if dv && ready[1] {
            events.1 += 1;
            expect(c, "delivered", de, m.delivered.pop_front())?;
        }
        let kv = u.credit.valid.val();
        let (kraw, ke) = credit_of(u);
        mon_k.check(c, kv, ready[2], &kraw, c == 0)?;
        if kv && !(kraw.5 && !kraw.6 && kraw.7 == 0) {
            return Err(format!(
                "cycle {c}: credit event {kraw:?}: allow_tx must be set, rank_flag clear, new_rank 0"
            ));
        }
        if kv && ready[2] {
            events.2 += 1;
            expect(c, "credit", ke, m.credit.pop_front())?;
        }

        if u.info.valid.val() {
            if u.info.ready.val() {
                taken += 1;
                let r = offered.as_ref().unwrap();
                let id = r.tx_msg_id.to_u64() as u16;
                if trace == Some(id as u64 & 15) {
                    println!(
                        "cycle {c}: take flags {:#04x} bolt flags {:#04x} tx_msg_id {id} offset {} ackNo {} q {} t_tx {}; before: {:?}",
                        r.flags.to_u64(),
                        r.bolt.get_bits::<8>(32).to_u64(),
                        r.pkt_offset.to_u64(),
                        r.pull_grant.to_u64(),
                        r.bolt.get_bits::<24>(48).to_u64(),
                        r.bolt.get_bits::<32>(0).to_u64(),
                        m.message(id)
                    );
                }
                // Stage 1 applies it next cycle, when `now` is this cycle's number.
                m.record(&offered.take().unwrap(), c as u32);
            } else {
                offered_stalls += 1;
            }
        }
        k.tick().map_err(|e| e.to_string())?;
    }
    if m.pending() != (0, 0, 0) {
        return Err(format!(
            "after draining, the model still expects (ctrl, delivered, credit) {:?}: {:?} {:?} {:?}",
            m.pending(),
            m.ctrl.front(),
            m.delivered.front(),
            m.credit.front()
        ));
    }
    // The counters count what was raised.
    let u = k.uut();
    let stat = (
        u.stat.records.val().to_u64(),
        u.stat.failed.val().to_u64(),
        u.stat.ctrl_events.val().to_u64(),
        u.stat.delivered_events.val().to_u64(),
        u.stat.credit_events.val().to_u64(),
    );
    let want = (taken, m.counts.data_failed, events.0, events.1, events.2);
    if stat != want {
        return Err(format!(
            "stat (records, failed, ctrl, delivered, credit) {stat:?}, expected {want:?}"
        ));
    }
    Ok(ProgRun {
        rtt_pkts: rtt,
        counts: m.counts,
        events,
        streams: [mon_c.stats, mon_d.stats, mon_k.stats],
        offered_stalls,
    })
}

#[test]
fn bolt_program_matches_the_golden_model() {
    let cycles = env_u64("NT_BOLT_CYCLES").unwrap_or(80_000);
    let mut total = BoltCounts::default();
    for seed in seeds(&[2001, 2002, 2003, 2004]) {
        let r = run_program(seed, cycles, 0, Choices::hardware()).unwrap_or_else(|e| {
            panic!(
                "bolt program seed {seed} ({cycles} cycles; replay with NT_BOLT_SEED={seed}): {e}"
            )
        });
        println!(
            "bolt program seed {seed}: rtt_pkts {}, {cycles} cycles, events (ctrl, delivered, credit) {:?}, offers stalled {}, streams {:?}, {:?}",
            r.rtt_pkts, r.events, r.offered_stalls, r.streams, r.counts
        );
        let c = &r.counts;
        assert!(
            r.events.0 > 100 && r.events.1 > 100 && r.events.2 > 100,
            "seed {seed}: {r:?}"
        );
        assert!(
            r.streams.iter().all(|s| s.stalls > 10),
            "seed {seed}: outputs stalled {r:?}"
        );
        assert!(r.offered_stalls > 100, "seed {seed}: records waited {r:?}");
        assert!(
            c.src_decrements > 20 && c.src_kept > 20,
            "seed {seed}: SRC decisions {c:?}"
        );
        assert!(
            c.inc_increments > 100 && c.ai_increments > 20,
            "seed {seed}: increments {c:?}"
        );
        assert!(
            c.data_ack_inc > 10 && c.data_nack > 10 && c.data_failed > 10,
            "seed {seed}: {c:?}"
        );
        assert!(c.nacks > 10 && c.ignored > 10, "seed {seed}: {c:?}");
        assert!(c.fresh > 20 && c.replaced > 10, "seed {seed}: {c:?}");
        assert!(c.rtt_saturated > 5, "seed {seed}: {c:?}");
        macro_rules! add {
            ($($x:ident),*) => {$( total.$x += c.$x; )*};
        }
        add!(
            cwnd_saturated,
            src_at_floor,
            q_saturated,
            elapsed_saturated,
            src_decrements,
            inc_increments
        );
    }
    if env_u64("NT_BOLT_SEED").is_none() {
        assert!(total.cwnd_saturated > 5, "windows reached 255: {total:?}");
        assert!(total.src_at_floor > 5, "SRCs at a window of 1: {total:?}");
        assert!(total.q_saturated > 5, "queue operand saturated: {total:?}");
        if cycles > 70_000 {
            assert!(
                total.elapsed_saturated > 5,
                "elapsed operand saturated: {total:?}"
            );
        }
    }
}

/// The comparison is not vacuous: a model whose messages start one packet off is caught.
#[test]
fn bolt_program_comparison_catches_a_wrong_model() {
    for seed in seeds(&[2001, 2002]) {
        let e = run_program(seed, 20_000, 1, Choices::hardware())
            .expect_err("a model with rtt_pkts + 1 passed");
        println!("bolt program seed {seed} with rtt_pkts + 1: {e}");
        assert!(e.contains("credit event"), "{e}");
    }
}

/// The workload reaches every corner where a reading of the documentation could differ
/// ([`Choices`]): each alternative reading alone fails against the block.
#[test]
fn bolt_program_workload_tells_every_alternative_reading_apart() {
    let hw = Choices::hardware();
    let readings = [
        (
            "ignored_records_take_slots",
            Choices {
                ignored_records_take_slots: !hw.ignored_records_take_slots,
                ..hw
            },
        ),
        (
            "floor_src_does_nothing",
            Choices {
                floor_src_does_nothing: !hw.floor_src_does_nothing,
                ..hw
            },
        ),
        (
            "ai_seq_saturates",
            Choices {
                ai_seq_saturates: !hw.ai_seq_saturates,
                ..hw
            },
        ),
    ];
    for (name, c) in readings {
        let e = run_program(2001, 80_000, 0, c)
            .expect_err(&format!("the alternative reading of {name} passed"));
        println!("bolt program seed 2001, alternative reading of {name}: {e}");
    }
}

// ---------------------------------------------------------------------------------------
// The stamp.

/// A random frame: DATA, ACK or NACK (now and then another flags byte), random tos,
/// msg_len, offset, credit (often near the message's packet count), 8..136 words.
fn random_frame(r: &mut ChaCha8Rng) -> Vec<u64> {
    let words = match r.gen_range(0..4) {
        0 => 8,
        1 => r.gen_range(8..12),
        _ => r.gen_range(8..=136),
    };
    let mut b: Vec<u8> = (0..words * 8).map(|_| r.gen()).collect();
    b[15] = r.gen();
    b[34] = match r.gen_range(0..10) {
        0..=3 => DATA as u8,
        4..=6 => ACK as u8,
        7 | 8 => NACK as u8,
        _ => r.gen(),
    };
    let msg_len: u16 = match r.gen_range(0..4) {
        0 => r.gen_range(0..4) * 1024,
        1 => r.gen_range(0..40_000),
        _ => r.gen(),
    };
    b[39..41].copy_from_slice(&msg_len.to_be_bytes());
    b[41] = r.gen_range(0..72);
    let pkts = (msg_len as u32).div_ceil(1024) as i32;
    let credit: u16 = if r.gen_bool(0.7) {
        (pkts + r.gen_range(-3..=3)).max(0) as u16
    } else {
        r.gen()
    };
    b[42..44].copy_from_slice(&credit.to_be_bytes());
    b.chunks(8)
        .map(|c| u64::from_be_bytes(c.try_into().unwrap()))
        .collect()
}

#[derive(Debug, Default)]
struct StampRun {
    frames: u64,
    words: u64,
    /// Bolt flag bytes written, by value.
    flag_values: std::collections::BTreeMap<u8, u64>,
    /// Cycles word 6 was offered and not taken (its time is the cycle it leaves).
    word6_stalls: u64,
    stalls: u64,
    gaps: u64,
}

fn run_stamp(seed: u64, frames: u64, enable: bool) -> Result<StampRun, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rtt: u8 = rng.gen_range(1..=60);
    let p_valid = rng.gen_range(0.4..1.0);
    let p_ready = rng.gen_range(0.4..1.0);
    let mut k = Kernel::new(BoltStamp::new(enable)).map_err(|e| e.to_string())?;
    let mut run = StampRun::default();
    let mut frame = random_frame(&mut rng);
    let mut empty: u64 = rng.gen_range(0..8);
    let mut idx = 0usize;
    let mut holding = false;
    let mut out: Vec<(u64, u64, bool, u64)> = vec![]; // (cycle, data, last, empty)
    let mut now6 = 0u32;
    let mut c = 0u64;
    while run.frames < frames {
        let valid = c >= 1 && (holding || rng.gen_bool(p_valid));
        let ready = rng.gen_bool(p_ready);
        let last = idx == frame.len() - 1;
        let u = k.uut_mut();
        u.reset.next = c == 0;
        u.rtt_pkts.next = (rtt as u64).into();
        u.source.ready.next = ready;
        u.sink.valid.next = valid;
        u.sink.data.next = if valid { frame[idx] } else { rng.gen() }.into();
        u.sink.last.next = valid && last;
        u.sink.empty.next = if valid && last { empty } else { 0 }.into();
        k.settle().map_err(|e| e.to_string())?;
        let u = k.uut();
        if u.sink.ready.val() != ready || u.source.valid.val() != valid {
            return Err(format!(
                "cycle {c}: sink.ready {} / source.valid {} are not source.ready {ready} / sink.valid {valid}",
                u.sink.ready.val(),
                u.source.valid.val()
            ));
        }
        run.gaps += (!valid && c >= 1) as u64;
        if valid && !ready {
            run.stalls += 1;
            run.word6_stalls += (idx == 6) as u64;
        }
        holding = valid && !ready;
        if valid && ready {
            if idx == 6 {
                now6 = (c - 1) as u32;
            }
            out.push((
                c,
                u.source.data.val().to_u64(),
                u.source.last.val(),
                u.source.empty.val().to_u64(),
            ));
            run.words += 1;
            idx += 1;
            if last {
                let want = if enable {
                    stamp(&frame, now6, rtt)
                } else {
                    frame.clone()
                };
                for (i, (w, &(cyc, got, glast, gempty))) in want.iter().zip(&out).enumerate() {
                    let wlast = i == frame.len() - 1;
                    let wempty = if wlast { empty } else { 0 };
                    if got != *w || glast != wlast || gempty != wempty {
                        return Err(format!(
                            "cycle {cyc}: frame {} ({} words, word 6 left at now {now6}, rtt_pkts {rtt}) word {i}:\n  block {got:016x} last {glast} empty {gempty}\n  model {w:016x} last {wlast} empty {wempty}\n  frame in {frame:016x?}",
                            run.frames,
                            frame.len()
                        ));
                    }
                }
                if enable {
                    let f = frame[4].to_be_bytes()[2];
                    let tos = frame[1].to_be_bytes()[7];
                    let b: Vec<u8> = frame.iter().flat_map(|w| w.to_be_bytes()).collect();
                    let bf = stamp_flags(
                        f,
                        tos,
                        u16::from_be_bytes([b[39], b[40]]),
                        b[41],
                        u16::from_be_bytes([b[42], b[43]]),
                        rtt,
                    );
                    *run.flag_values.entry(bf).or_default() += 1;
                }
                run.frames += 1;
                frame = random_frame(&mut rng);
                empty = rng.gen_range(0..8);
                idx = 0;
                out.clear();
            }
        }
        k.tick().map_err(|e| e.to_string())?;
        c += 1;
    }
    Ok(run)
}

#[test]
fn bolt_stamp_matches_the_golden_model() {
    for seed in seeds(&[3001, 3002, 3003]) {
        let r = run_stamp(seed, 600, true).unwrap_or_else(|e| {
            panic!("bolt stamp seed {seed} (replay with NT_BOLT_SEED={seed}): {e}")
        });
        println!("bolt stamp seed {seed}: {r:?}");
        assert!(
            r.word6_stalls > 20 && r.stalls > 1000 && r.gaps > 1000,
            "seed {seed}: {r:?}"
        );
        use nt_hdl::swif::{BOLT_FIRST, BOLT_LAST};
        let v = |b: u8| r.flag_values.get(&b).copied().unwrap_or(0);
        let di = BOLT_DATA | BOLT_INC;
        for b in [
            di,
            di | BOLT_FIRST,
            di | BOLT_LAST,
            di | BOLT_FIRST | BOLT_LAST,
            BOLT_ACK,
            BOLT_ACK | BOLT_INC,
            0,
        ] {
            assert!(
                v(b) > 5,
                "seed {seed}: flags {b:#04x} written {} times: {r:?}",
                v(b)
            );
        }
    }
}

#[test]
fn bolt_stamp_disabled_passes_every_word() {
    for seed in seeds(&[3101]) {
        let r = run_stamp(seed, 200, false).unwrap_or_else(|e| {
            panic!("disabled bolt stamp seed {seed} (replay with NT_BOLT_SEED={seed}): {e}")
        });
        assert!(r.frames == 200 && r.word6_stalls > 5, "{r:?}");
    }
}
