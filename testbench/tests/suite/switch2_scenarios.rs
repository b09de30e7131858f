//! The crosspoint switch's Bolt scenarios (`switch_scenarios.rs`) on the shared-buffer
//! switch (`nt_hdl::switch2`, 4 ports, 64 KiB), driven through the network simulator's
//! engine interface (`SwitchEngine`) with directed frames: one SRC per congested data
//! packet without DEC, PRU and SM tokens step by step, and an SRC's latency. Where the
//! shared switch's timing differs from the crosspoint switch's (its decision comes later
//! after the frame's first word, its supply token grows every cycle rather than at the
//! next packet), the checks say how.
use nt_hdl::mode::SwitchMode;
use nt_hdl::switch::{BOLT_DATA, BOLT_DEC, BOLT_INC, BOLT_SRC};
use nt_hdl::switch2::SharedSwitch4;
use nt_sim::kernel::Kernel;
use nt_sim::switch_sim::SwitchEngine;
use nt_sim::switch_workload::{
    PortIn, PortOut, PortStats, SwitchSetup, SwitchWorkload, TrafficKnobs,
};
use nt_sim::wire::{from_words, Word, BOLT_OFFSET};

use super::switch_scenarios::{
    bolt_flags, bolt_frame, check_src_decision, t_data_tx, BoltStep, BOLT_STEPS, BOLT_STEPS_SM_OFF,
};

fn q_size(f: &[u8]) -> u64 {
    u32::from_be_bytes([0, f[BOLT_OFFSET], f[BOLT_OFFSET + 1], f[BOLT_OFFSET + 2]]) as u64
}

/// The shared switch on the native kernel, fed directed frames; every frame out recorded
/// with the cycle of its first word, every cycle's port counters kept.
struct H {
    e: Kernel<SharedSwitch4>,
    w: SwitchWorkload,
    cur: Vec<Vec<Word>>,
    start: Vec<u64>,
    out: Vec<Vec<(u64, Vec<u8>)>>,
    trace: Vec<Vec<PortStats>>,
}

impl H {
    fn new(s: &SwitchSetup) -> Self {
        let mut e = Kernel::new(SharedSwitch4::new()).unwrap();
        e.setup(s);
        H {
            e,
            w: SwitchWorkload::new(1, 4, TrafficKnobs::default()),
            cur: vec![vec![]; 4],
            start: vec![0; 4],
            out: vec![vec![]; 4],
            trace: vec![],
        }
    }

    fn run(&mut self, n: u64) {
        for _ in 0..n {
            let t = SwitchEngine::cycle(&self.e);
            let inp: Vec<PortIn> = self
                .w
                .next(false)
                .into_iter()
                .map(|x| PortIn {
                    tx_ready: true,
                    ..x
                })
                .collect();
            let mut out = vec![PortOut::default(); 4];
            self.e.eval(&inp, &mut out).unwrap();
            self.trace.push(out.iter().map(|o| o.stat).collect());
            for p in 0..4 {
                let Some(x) = out[p].tx else { continue };
                if self.cur[p].is_empty() {
                    self.start[p] = t;
                }
                self.cur[p].push(x);
                if x.last {
                    let f = from_words(&std::mem::take(&mut self.cur[p]));
                    self.out[p].push((self.start[p], f));
                }
            }
            SwitchEngine::tick(&mut self.e).unwrap();
        }
    }

    fn stat(&self, p: usize) -> PortStats {
        self.trace.last().map(|t| t[p]).unwrap_or_default()
    }
}

fn bolt_setup() -> SwitchSetup {
    let mut s = SwitchSetup::new(4);
    s.mode = SwitchMode::Bolt;
    s.link_rate = 200;
    s
}

/// Algorithm 7, lines 4-10, as `bolt_sends_one_src_per_data_packet_at_or_above_threshold_
/// without_dec` on the crosspoint switch: ports 0 and 1 each send 18 200-byte data packets
/// to port 3, every third already with DEC. The queue a packet's decision reads is port 3's
/// queued bytes (the admission's counters, all bands) a fixed number of cycles after the
/// packet's first word came in, the same for every packet (the first offset from 8 on
/// that every SRC's q_size agrees with): exactly the packets that find at least CC_THRESH there and have no
/// DEC get one SRC each, back out of their own port, with that queue size, the link rate
/// and their t_data_tx, addresses swapped, a valid checksum; they leave with DEC set and
/// INC cleared, all others unchanged.
#[test]
fn shared_bolt_sends_one_src_per_data_packet_at_or_above_threshold_without_dec() {
    let mut s = bolt_setup();
    s.cc_thresh = 2000;
    let mut h = H::new(&s);
    let per = 18u32;
    h.w.push_idle(1, 4);
    // t_data_tx -> (port, flags, cycle of its first word)
    let mut sent = std::collections::BTreeMap::new();
    for k in 0..per {
        for i in [0usize, 1] {
            let tx = (i as u32) << 16 | k;
            let flags = if k % 3 == 2 {
                BOLT_DEC | BOLT_INC
            } else {
                BOLT_INC
            };
            h.w.push_frame(i, &bolt_frame(i, 3, 200, flags, tx));
            sent.insert(tx, (i, flags, 4 * i as u64 + 25 * k as u64));
        }
    }
    h.run(per as u64 * 25 * 2 + 300);
    let data_out: std::collections::BTreeMap<u32, Vec<u8>> = h.out[3]
        .iter()
        .map(|(_, f)| (t_data_tx(f), f.clone()))
        .collect();
    assert_eq!(data_out.len(), 2 * per as usize, "every data packet leaves");
    let srcs = |i: usize, tx: u32| -> Vec<Vec<u8>> {
        h.out[i]
            .iter()
            .map(|(_, f)| f.clone())
            .filter(|f| t_data_tx(f) == tx)
            .collect()
    };
    let queued = |t: u64| -> u64 { h.trace[t as usize][3].occ_bytes.iter().sum() };
    // the offset of the decision's read after a packet's first word: one that every
    // SRC's q_size agrees with, and not before the request reaches the admission (8
    // cycles after the first word)
    let firsts: Vec<(u64, u64)> = sent
        .iter()
        .filter_map(|(&tx, &(i, _, t0))| srcs(i, tx).first().map(|f| (t0, q_size(f))))
        .collect();
    assert!(firsts.len() > 5, "too few SRCs: {}", firsts.len());
    let fits: Vec<u64> = (8..60u64)
        .filter(|&d| firsts.iter().all(|&(t0, q)| queued(t0 + d) == q))
        .collect();
    let lag = *fits
        .first()
        .unwrap_or_else(|| panic!("no one offset gives every SRC's queue size"));
    let (mut above, mut below, mut above_dec, mut n_src) = (0, 0, 0, 0u64);
    for (&tx, &(i, flags, t0)) in &sent {
        let q = queued(t0 + lag);
        let got = srcs(i, tx);
        let d = &data_out[&tx];
        let dec = flags & BOLT_DEC != 0;
        match (q >= s.cc_thresh, dec) {
            (true, false) => above += 1,
            (true, true) => above_dec += 1,
            _ => below += 1,
        }
        n_src += u64::from(check_src_decision(&got, d, i, flags, tx, q, s.cc_thresh));
    }
    let sent_src: u64 = (0..4).map(|p| h.stat(p).src_sent).sum();
    assert_eq!(sent_src, n_src);
    assert_eq!((0..4).map(|p| h.stat(p).src_drop).sum::<u64>(), 0);
    assert!(
        above > 10 && below > 2 && above_dec > 5,
        "{above} {below} {above_dec}"
    );
    println!(
        "shared switch, Bolt SRC: {} data packets; {above} at/above CC_THRESH without DEC -> {n_src} SRCs; {above_dec} at/above with DEC and {below} below -> none; the decision reads the queue {lag} cycles after a packet's first word (every offset that fits: {fits:?})",
        2 * per
    );
}

/// The crosspoint switch's token steps (`bolt_pru_and_sm_tokens_follow_algorithms_7_and_9_
/// step_by_step`, MTU 1088, PRU cap 2) on the shared switch, from port 0 to port 2. The
/// shared switch's supply grows every cycle and its update lands a few cycles after the
/// decision's read: the value an update shows (`stat.sm` in the first cycle it differs
/// from the idle growth of 8 a cycle) is the thesis's token after the packet plus the 40
/// bytes of supply between read and update (docs/switch-design.md, *Bolt*). Its decision
/// comes later after the frame's first word than the crosspoint switch's (cycle 6), so the
/// first two steps, before the token is first capped, carry the same extra supply `8 x
/// (its offset - 6)`; from the third the tokens equal the crosspoint switch's table.
fn shared_token_steps(sm: bool, steps: &[BoltStep]) {
    let mut s = bolt_setup();
    s.cc_thresh = 1_000_000;
    s.pru_cap = 2;
    s.sm = sm;
    let mut h = H::new(&s);
    let mut t = 0;
    for (k, &(start, bytes, flags, ..)) in steps.iter().enumerate() {
        h.w.push_idle(0, (start - t) as usize);
        h.w.push_frame(0, &bolt_frame(0, 2, bytes, flags, k as u32));
        t = start + bytes.div_ceil(8) as u64;
    }
    h.run(t + 300);
    // the cycles in which port 2's tokens show an update (not the idle growth)
    let tr = &h.trace;
    let updates: Vec<usize> = (1..tr.len())
        .filter(|&c| tr[c][2].sm != tr[c - 1][2].sm + 8 || tr[c][2].pru != tr[c - 1][2].pru)
        .collect();
    assert_eq!(
        updates.len(),
        steps.len(),
        "one update per packet: {updates:?}"
    );
    let mut shift = None;
    for (k, (&(_, _, _, sm_want, pru_want, inc), &c)) in steps.iter().zip(&updates).enumerate() {
        let (sm_got, pru_got) = (tr[c][2].sm - 40, tr[c][2].pru);
        assert_eq!(pru_got, pru_want, "step {k}: PRU after (cycle {c})");
        if k < 2 {
            let d = sm_got - sm_want;
            assert!(
                d >= 0 && d % 8 == 0,
                "step {k}: SM {sm_got}, crosspoint {sm_want}"
            );
            assert!(shift.is_none_or(|x| x == d), "steps 0 and 1: one shift");
            shift = Some(d);
        } else {
            assert_eq!(sm_got, sm_want, "step {k}: SM after (cycle {c})");
        }
        let (_, f) = h.out[2]
            .iter()
            .find(|(_, f)| t_data_tx(f) == k as u32)
            .expect("every packet leaves");
        assert_eq!(bolt_flags(f) & BOLT_INC != 0, inc, "step {k}: INC out");
        assert_eq!(bolt_flags(f) & BOLT_DEC, 0);
    }
    assert_eq!((0..4).map(|p| h.stat(p).src_sent).sum::<u64>(), 0);
    println!(
        "shared switch, Bolt tokens (SM {}): {} steps as the crosspoint switch's table, the first two with {} bytes more supply (a later decision)",
        if sm { "on" } else { "off" },
        steps.len(),
        shift.unwrap_or(0)
    );
}

#[test]
fn shared_bolt_pru_and_sm_tokens_follow_algorithms_7_and_9_step_by_step() {
    shared_token_steps(true, &BOLT_STEPS);
}

#[test]
fn shared_bolt_with_sm_off_keeps_inc_only_for_pru_tokens() {
    shared_token_steps(false, &BOLT_STEPS_SM_OFF);
}

/// An SRC's latency on an idle switch: it is built as the writer takes the data packet's
/// first 8 words (once the verdict is in), so it leaves the arrival port the same number
/// of cycles after the data packet's first word came in whatever the packet's size; the
/// data packet leaves on its store-and-forward latency.
#[test]
fn shared_bolt_src_leaves_the_arrival_port_at_a_fixed_latency() {
    let mut lat = vec![];
    for bytes in [64usize, 200, 1088] {
        let mut s = bolt_setup();
        s.cc_thresh = 0;
        let mut h = H::new(&s);
        h.w.push_frame(1, &bolt_frame(1, 3, bytes, 0, 7));
        h.run(bytes as u64 / 4 + 80);
        assert_eq!(h.out[1].len(), 1, "{bytes} B: one SRC");
        assert_eq!(bolt_flags(&h.out[1][0].1), BOLT_SRC);
        assert_eq!(h.out[3].len(), 1, "{bytes} B: the data packet");
        assert_eq!(bolt_flags(&h.out[3][0].1), BOLT_DATA | BOLT_DEC);
        lat.push((bytes, h.out[1][0].0, h.out[3][0].0));
    }
    assert!(
        lat.iter().all(|l| l.1 == lat[0].1),
        "SRC latency varies: {lat:?}"
    );
    for (bytes, src, data) in &lat {
        println!("shared switch, Bolt: {bytes} B data packet in at 0: SRC out of its port at {src}, the packet out at {data}");
    }
}

/// Store and forward on an idle switch: a frame's first word leaves its output
/// `W + SHARED_P4_EXTRA.0` to `W + SHARED_P4_EXTRA.1` cycles after its first word came in
/// (31 to 37 more than its length `W` in words: the phases of its input's writes and its
/// output's reads, and the state the frames before left; the crosspoint switch's was
/// `W + 6`), for every pair of ports, arrival phase and length, one frame at a time
/// through one switch. (A sweep of every pair, phase and length from 64 to 216 bytes
/// and 1,000 and 1,088, 1,056 frames, gave 31, 32, 33 and 34 cycles 255 to 264 times each
/// and 35, 36 and 37 nine times each, the same in drop-tail, trim and Bolt modes; it took
/// 160 s, so the test runs a subset.)
#[test]
fn the_shared_switch_stores_and_forwards_in_a_frames_words_plus_a_fixed_latency() {
    use nt_sim::switch2_sim::SHARED_P4_EXTRA;
    let s = SwitchSetup::new(4);
    let mut h = H::new(&s);
    let (mut now, mut len) = (0u64, [0u64; 4]);
    let mut sent = vec![];
    for i in 0..4 {
        for o in (0..4).filter(|&o| o != i) {
            for t in 0..4u64 {
                for bytes in [64usize, 72, 80, 88, 1088] {
                    // in at a cycle `t` mod 4, once the frame before has long left
                    let at = (now + 4 - now % 4) + t;
                    h.w.push_idle(i, (at - len[i]) as usize);
                    h.w.push_frame(i, &bolt_frame(i, o, bytes, 0, 7));
                    let words = bytes.div_ceil(8) as u64;
                    len[i] = at + words;
                    now = at + words + 120;
                    sent.push((at, i, o, words));
                }
            }
        }
    }
    // the last frame's last word out
    h.run(now + 200);
    let mut next = [0usize; 4];
    let mut seen = std::collections::BTreeMap::new();
    for &(at, i, o, words) in &sent {
        let (c, _) = *h.out[o]
            .get(next[o])
            .unwrap_or_else(|| panic!("{i} -> {o}, {words} words in at {at}: not out"));
        next[o] += 1;
        let x = c - at - words;
        assert!(
            (SHARED_P4_EXTRA.0..=SHARED_P4_EXTRA.1).contains(&x),
            "{i} -> {o}, {words} words in at {at}: out at W + {x}"
        );
        *seen.entry(x).or_insert(0) += 1;
    }
    assert_eq!(seen.keys().next(), Some(&SHARED_P4_EXTRA.0), "{seen:?}");
    println!("shared switch, store and forward on an idle switch: W + cycles: count {seen:?}");
}
