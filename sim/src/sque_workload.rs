//! Seeded random workload of the switch's queues and schedulers ([`nt_hdl::sque`]),
//! self-checking. It stands in for the admission (verdicts, admitted or not, at most one
//! per frame time of an input, refused when the output holds `max_queue` packets) and for the
//! shared buffer: each admitted frame gets a head cell of its own, completes a few cycles
//! later in verdict order per input (a completion FIFO of 8 that the block pops), and each
//! output has a descriptor FIFO of 2 and a reader that holds a packet for as many cycles as
//! it has words and then pulses `dep`. Checked every cycle, as errors of the run:
//! * every descriptor the block hands an output is a completed packet for that output,
//!   with its cell and meta, exactly once, and never into a full descriptor FIFO;
//! * packets of one input to one (output, band) leave in the order they completed;
//! * every departure reaches the admission a cycle after `dep`, with the packet's band and
//!   bytes;
//! * by strict priority, no packet leaves while a packet of a higher-priority band for the
//!   same output has been waiting for more than [`SP_SLACK`] cycles since its completion
//!   was popped;
//! * at the end, after a drain, every packet has left.
//!
//! The equivalence test runs it against the model; `ntsim run sque_p4` records it.
use nt_hdl::sbuf::BufMeta;
use nt_hdl::sque::SwitchQueues;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// Cycles a higher-priority packet may wait, after its completion was popped, before a
/// lower band's packet leaves: the stage, the lane's round robin (up to 8), decode,
/// enqueue, pick, and a slot (up to 8), with room to spare.
pub const SP_SLACK: u64 = 32;

/// A stored packet's meta, as the buffer reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Meta {
    pub s: u8,
    pub words: u16,
    pub empty: u8,
    pub bad: bool,
}

/// A verdict from the admission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Vd {
    pub admit: bool,
    pub out: u8,
    pub band: u8,
    pub bytes: u32,
}

/// The block's inputs in a cycle.
#[derive(Clone, Debug, Default)]
pub struct Drive {
    pub reset: bool,
    pub vd: Vec<Option<Vd>>,
    /// Per input: the completion FIFO's head.
    pub cp: Vec<Option<(u32, Meta)>>,
    pub dq_count: Vec<u8>,
    pub dep: Vec<bool>,
    pub wrr: bool,
    pub weight: [u8; 4],
}

/// The block's outputs in a cycle.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct View {
    pub cp_pop: Vec<bool>,
    pub dq: Vec<Option<(u32, Meta)>>,
    pub adm_dep: Vec<Option<(u8, u32)>>,
    pub lost: u32,
}

fn meta_of(m: &BufMeta) -> Meta {
    Meta {
        s: m.s.index() as u8,
        words: m.words.index() as u16,
        empty: m.empty.index() as u8,
        bad: m.bad,
    }
}

fn buf_meta(m: &Meta) -> BufMeta {
    BufMeta {
        s: (m.s as u64).into(),
        words: (m.words as u64).into(),
        empty: (m.empty as u64).into(),
        bad: m.bad,
    }
}

/// Sets the block's inputs.
#[allow(clippy::type_complexity)]
pub fn drive<
    const N: usize,
    const K: usize,
    const M: usize,
    const CA: usize,
    const CC: usize,
    const RP: usize,
    const NB: usize,
    const KNB: usize,
    const KRP: usize,
    const NRP: usize,
    const NK: usize,
    const N4K: usize,
>(
    u: &mut SwitchQueues<N, K, M, CA, CC, RP, NB, KNB, KRP, NRP, NK, N4K>,
    d: &Drive,
) {
    u.reset.next = d.reset;
    for i in 0..N {
        let p = &mut u.inp[i];
        let v = d.vd[i].unwrap_or_default();
        p.vd_valid.next = d.vd[i].is_some();
        p.vd_admit.next = v.admit;
        p.vd_out.next = (v.out as u64).into();
        p.vd_band.next = (v.band as u64).into();
        p.vd_bytes.next = (v.bytes as u64).into();
        let (c, m) = d.cp[i].unwrap_or_default();
        p.cp_valid.next = d.cp[i].is_some();
        p.cp_cell.next = (c as u64).into();
        p.cp_meta.next = buf_meta(&m);
    }
    for o in 0..N {
        u.out[o].dq_count.next = (d.dq_count[o] as u64).into();
        u.out[o].dep.next = d.dep[o];
    }
    u.wrr.next = d.wrr;
    for b in 0..4 {
        u.weight[b].next = (d.weight[b] as u64).into();
    }
}

/// Reads the block's outputs (registers only).
pub fn read<
    const N: usize,
    const K: usize,
    const M: usize,
    const CA: usize,
    const CC: usize,
    const RP: usize,
    const NB: usize,
    const KNB: usize,
    const KRP: usize,
    const NRP: usize,
    const NK: usize,
    const N4K: usize,
>(
    u: &SwitchQueues<N, K, M, CA, CC, RP, NB, KNB, KRP, NRP, NK, N4K>,
) -> View {
    View {
        cp_pop: u.inp.iter().map(|p| p.cp_pop.val()).collect(),
        dq: u
            .out
            .iter()
            .map(|o| {
                o.dq_push
                    .val()
                    .then(|| (o.dq_cell.val().index() as u32, meta_of(&o.dq_meta.val())))
            })
            .collect(),
        adm_dep: u
            .out
            .iter()
            .map(|o| {
                o.adm_dep_valid.val().then(|| {
                    (
                        o.adm_dep_band.val().index() as u8,
                        o.adm_dep_bytes.val().index() as u32,
                    )
                })
            })
            .collect(),
        lost: u.lost.val().index() as u32,
    }
}

/// What the workload does.
#[derive(Clone, Debug)]
pub struct Knobs {
    /// Chance of a verdict in a cycle an input may send one (at most one per 8 cycles).
    pub load: f64,
    /// Chance that a verdict refuses.
    pub refuse_p: f64,
    /// Share of packets to output 0.
    pub hot: f64,
    /// Every input sends to its own output (a permutation; `hot` is then ignored).
    pub own: bool,
    /// Packets go to bands `0..bands`.
    pub bands: u8,
    /// Words per packet: `min..=max`.
    pub words: (u16, u16),
    /// Chance per cycle that a busy reader stalls a cycle (link backpressure).
    pub stall_p: f64,
    pub wrr: bool,
    pub weight: [u8; 4],
    /// Chance of a reset per cycle.
    pub reset_p: f64,
    /// Cycles at the end with no new verdicts.
    pub drain: u64,
    /// Packets an output may hold (waiting, in its descriptor FIFO or being read) before
    /// verdicts to it refuse: the admission's limit, as this workload stands in for it.
    pub max_queue: usize,
    /// Check the strict-priority rule (off under WRR, or when the hot output is
    /// overloaded on purpose it still holds; off only where a test says so).
    pub check_sp: bool,
}

/// The default: busy inputs, an incast-like share on output 0, every band.
pub fn knobs() -> Knobs {
    Knobs {
        load: 0.5,
        refuse_p: 0.1,
        hot: 0.3,
        own: false,
        bands: 4,
        words: (8, 40),
        stall_p: 0.05,
        wrr: false,
        weight: [3, 2, 1, 0],
        reset_p: 0.0,
        drain: 3_000,
        max_queue: 24,
        check_sp: true,
    }
}

/// What a run saw.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    pub admitted: u64,
    pub left: u64,
    /// Per output: cycles its reader was busy, and cycles it had a packet waiting
    /// anywhere (queued, in the descriptor FIFO or reading).
    pub busy: Vec<u64>,
    pub backlogged: Vec<u64>,
    /// Packets left per band.
    pub bands: [u64; 4],
}

#[derive(Clone, Copy, Debug)]
struct Pkt {
    inp: usize,
    out: u8,
    band: u8,
    bytes: u32,
    cell: u32,
    meta: Meta,
    /// Cycle its completion was popped.
    popped: u64,
}

/// The workload. See the module documentation.
pub struct SqueWorkload {
    rng: StdRng,
    n: usize,
    k: Knobs,
    cycles: u64,
    cells: u32,
    free: Vec<u32>,
    next_vd: Vec<u64>,
    /// Per input: admitted, completion not yet in the FIFO (with the cycle it may enter).
    inflight: Vec<VecDeque<(u64, Pkt)>>,
    /// Per input: completion FIFO (8).
    cq: Vec<VecDeque<Pkt>>,
    /// Per output: popped, not yet handed out.
    waiting: Vec<Vec<Pkt>>,
    /// Per output: descriptor FIFO (2), the reader (packet, cycles left), the departure
    /// announced this cycle (to come to the admission next cycle).
    dq: Vec<VecDeque<Pkt>>,
    reader: Vec<Option<(Pkt, u64)>>,
    dep_due: Vec<Option<Pkt>>,
    dep_now: Vec<Option<Pkt>>,
    seen: Seen,
}

impl SqueWorkload {
    /// `n` ports, `cells` cells, a run of `cycles` (the last `k.drain` without new
    /// verdicts).
    pub fn new(seed: u64, n: usize, cells: u32, cycles: u64, k: Knobs) -> Self {
        Self {
            rng: StdRng::seed_from_u64(seed),
            n,
            k,
            cycles,
            cells,
            free: (0..cells).rev().collect(),
            next_vd: vec![0; n],
            inflight: vec![VecDeque::new(); n],
            cq: vec![VecDeque::new(); n],
            waiting: vec![Vec::new(); n],
            dq: vec![VecDeque::new(); n],
            reader: vec![None; n],
            dep_due: vec![None; n],
            dep_now: vec![None; n],
            seen: Seen {
                busy: vec![0; n],
                backlogged: vec![0; n],
                ..Seen::default()
            },
        }
    }

    fn reset_state(&mut self) {
        let n = self.n;
        self.free = (0..self.cells).rev().collect();
        for i in 0..n {
            self.inflight[i].clear();
            self.cq[i].clear();
            self.waiting[i].clear();
            self.dq[i].clear();
            self.reader[i] = None;
            self.dep_due[i] = None;
            self.dep_now[i] = None;
        }
    }

    /// Checks the view of cycle `now` and returns the inputs of that cycle.
    pub fn step(&mut self, now: u64, v: &View) -> Result<Drive, String> {
        let n = self.n;
        if v.lost != 0 {
            return Err(format!("cycle {now}: {} verdicts lost", v.lost));
        }
        // departures reported to the admission
        for o in 0..n {
            let want = self.dep_now[o].take().map(|p| (p.band, p.bytes));
            if v.adm_dep[o] != want {
                return Err(format!(
                    "cycle {now}: output {o}: departure {:?}, expected {want:?}",
                    v.adm_dep[o]
                ));
            }
        }
        // descriptors handed out
        for o in 0..n {
            let Some((cell, meta)) = v.dq[o] else {
                continue;
            };
            if self.dq[o].len() >= 2 {
                return Err(format!(
                    "cycle {now}: output {o}: a descriptor into a full FIFO"
                ));
            }
            let Some(x) = self.waiting[o].iter().position(|p| p.cell == cell) else {
                return Err(format!(
                    "cycle {now}: output {o}: descriptor of cell {cell}, not a packet waiting there"
                ));
            };
            let p = self.waiting[o][x];
            if p.meta != meta {
                return Err(format!(
                    "cycle {now}: output {o}: cell {cell} with meta {meta:?}, expected {:?}",
                    p.meta
                ));
            }
            if let Some(q) = self.waiting[o][..x]
                .iter()
                .find(|q| q.inp == p.inp && q.band == p.band)
            {
                return Err(format!(
                    "cycle {now}: output {o}: cell {cell} of input {} band {} overtook cell {}",
                    p.inp, p.band, q.cell
                ));
            }
            if self.k.check_sp && !self.k.wrr {
                if let Some(q) = self.waiting[o]
                    .iter()
                    .find(|q| q.band < p.band && q.popped + SP_SLACK < now)
                {
                    return Err(format!(
                        "cycle {now}: output {o}: band {} left while cell {} of band {} waited since cycle {}",
                        p.band, q.cell, q.band, q.popped
                    ));
                }
            }
            self.waiting[o].remove(x);
            self.seen.left += 1;
            self.seen.bands[p.band as usize] += 1;
            self.dq[o].push_back(p);
        }
        let mut d = Drive {
            reset: false,
            vd: vec![None; n],
            cp: vec![None; n],
            dq_count: vec![0; n],
            dep: vec![false; n],
            wrr: self.k.wrr,
            weight: self.k.weight,
        };
        if self.k.reset_p > 0.0 && self.rng.gen_bool(self.k.reset_p) {
            self.reset_state();
            d.reset = true;
            return Ok(d);
        }
        // readers: a departure a cycle after the last word, then the next descriptor
        for o in 0..n {
            if let Some(p) = self.dep_due[o].take() {
                d.dep[o] = true;
                self.dep_now[o] = Some(p);
                self.free.push(p.cell);
            }
            if self.reader[o].is_none() {
                if let Some(p) = self.dq[o].pop_front() {
                    self.reader[o] = Some((p, p.meta.words.max(1) as u64));
                }
            }
            if let Some((p, left)) = self.reader[o].as_mut() {
                self.seen.busy[o] += 1;
                if !self.rng.gen_bool(self.k.stall_p) {
                    *left -= 1;
                }
                if *left == 0 {
                    self.dep_due[o] = Some(*p);
                    self.reader[o] = None;
                }
            }
            if !self.waiting[o].is_empty() || !self.dq[o].is_empty() || self.reader[o].is_some() {
                self.seen.backlogged[o] += 1;
            }
            d.dq_count[o] = self.dq[o].len() as u8;
        }
        // the completion FIFOs: the head shown in this cycle is the one a pop in this
        // cycle takes (at the cycle's end); then the completions that arrive
        for i in 0..n {
            d.cp[i] = self.cq[i].front().map(|p| (p.cell, p.meta));
            if v.cp_pop[i] {
                let Some(mut p) = self.cq[i].pop_front() else {
                    return Err(format!(
                        "cycle {now}: input {i}: popped an empty completion FIFO"
                    ));
                };
                p.popped = now;
                self.waiting[p.out as usize].push(p);
            }
            while self.cq[i].len() < 8 && self.inflight[i].front().is_some_and(|(t, _)| *t < now) {
                let (_, p) = self.inflight[i].pop_front().expect("checked");
                self.cq[i].push_back(p);
            }
        }
        // verdicts
        if now + self.k.drain < self.cycles {
            for i in 0..n {
                if now < self.next_vd[i] || !self.rng.gen_bool(self.k.load) {
                    continue;
                }
                let out = if self.k.own {
                    i as u8
                } else if self.rng.gen_bool(self.k.hot) {
                    0
                } else {
                    self.rng.gen_range(0..n) as u8
                };
                let band = self.rng.gen_range(0..self.k.bands.max(1));
                let words = self.rng.gen_range(self.k.words.0..=self.k.words.1);
                // a frame takes as many cycles to arrive as it has words
                self.next_vd[i] = now + (words as u64).max(8);
                let bytes = words as u32 * 8 - self.rng.gen_range(0..8);
                let o = out as usize;
                let held = self.waiting[o].len()
                    + self.dq[o].len()
                    + usize::from(self.reader[o].is_some())
                    + (0..n)
                        .map(|j| {
                            self.inflight[j]
                                .iter()
                                .filter(|(_, p)| p.out == out)
                                .count()
                                + self.cq[j].iter().filter(|p| p.out == out).count()
                        })
                        .sum::<usize>();
                let admit = !self.rng.gen_bool(self.k.refuse_p)
                    && held < self.k.max_queue
                    && self.inflight[i].len() + self.cq[i].len() < 12
                    && !self.free.is_empty();
                d.vd[i] = Some(Vd {
                    admit,
                    out,
                    band,
                    bytes,
                });
                if admit {
                    let cell = self.free.pop().expect("checked");
                    let meta = Meta {
                        s: self.rng.gen_range(0..n) as u8,
                        words,
                        empty: (words as u32 * 8 - bytes) as u8,
                        bad: self.rng.gen_bool(0.05),
                    };
                    let t = now + self.rng.gen_range(2..=words as u64 + 4);
                    let t = t.max(self.inflight[i].back().map_or(0, |(t, _)| *t));
                    self.inflight[i].push_back((
                        t,
                        Pkt {
                            inp: i,
                            out,
                            band,
                            bytes,
                            cell,
                            meta,
                            popped: 0,
                        },
                    ));
                    self.seen.admitted += 1;
                }
            }
        }
        Ok(d)
    }

    /// Checks that everything left (call after the drain).
    pub fn finish(self) -> Result<Box<Seen>, String> {
        for o in 0..self.n {
            if !self.waiting[o].is_empty() || !self.dq[o].is_empty() || self.reader[o].is_some() {
                return Err(format!(
                    "output {o}: {} packets still waiting after the drain",
                    self.waiting[o].len() + self.dq[o].len()
                ));
            }
        }
        for i in 0..self.n {
            if !self.cq[i].is_empty() || !self.inflight[i].is_empty() {
                return Err(format!("input {i}: completions never popped"));
            }
        }
        Ok(Box::new(self.seen))
    }
}
