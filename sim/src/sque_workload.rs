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
//! With `dod_p` it also deflects headers on drop (Tofino-style trimming), as the
//! admission does: a deflected verdict (band 0, 64 bytes, the frame's words `W`, which
//! the block's server holds it for; 0 holds 512) while its pipe holds fewer than
//! `lim_dod` deflected headers (from the verdict to its `rel` pulse); its completion is
//! the header's (8 words). Checked, as errors of the run:
//! * a deflected header is handed out only to its output, in band 0 with 64 bytes (its
//!   departure says so), never before `W` + [`RECIRC_MIN`] cycles after its completion
//!   was popped, and after a `rel` pulse of its pipe and a `cong` pulse of its output
//!   that both came after the pop (and at least [`REL_TO_DQ`] cycles before);
//! * per pipe, a `rel` pulse only for a deflected header that could have been released
//!   by then (popped at least `W` + [`POP_TO_REL`] cycles before) and not yet
//!   released, and never more hand-outs than `rel` pulses [`REL_TO_DQ`] cycles before;
//!   per output likewise for `cong` pulses; `cong` pulses only in cycles with `rel` ones;
//! * `recirculated` is, in every cycle, the `rel` pulses of the cycles before (since the
//!   last reset), and at the end every pipe has released every header it deflected.
//!
//! Deflected headers are left out of the order check (they take another path) and do
//! not count as waiting in the strict-priority check.
//!
//! The equivalence test runs it against the model; `ntsim run sque_p4` records it.
use nt_hdl::sbuf::BufMeta;
use nt_hdl::sque::SwitchQueues;
use nt_hdl::stofino::MAX_PIPES;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// Cycles a higher-priority packet may wait, after its completion was popped, before a
/// lower band's packet leaves: the stage, the lane's round robin (up to 8), decode,
/// enqueue, pick, and a slot (up to 8), with room to spare.
pub const SP_SLACK: u64 = 32;

/// The fewest cycles, beyond its `W`, from a deflected header's pop to its `rel` pulse:
/// the stage, L1, L2 into the FIFO, the server taking it, its `W` cycles (in the last it
/// moves into the return register), and L1 taking the return (the pulse is registered).
pub const POP_TO_REL: u64 = 5;

/// The fewest cycles from a `rel` (and `cong`) pulse to its header's descriptor: the
/// pulse is a cycle after L1, then L2, the enqueue, the pick, the slot's read and the
/// descriptor's register.
pub const REL_TO_DQ: u64 = 5;

/// The fewest cycles, beyond its `W`, from a deflected header's pop to its descriptor
/// (seen in the tests: the bound is met).
pub const RECIRC_MIN: u64 = POP_TO_REL + REL_TO_DQ;

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
    /// A header deflected on drop (`admit` set too, band 0, 64 bytes).
    pub dod: bool,
    /// The frame's whole length in words (sent with every verdict; 9 bits).
    pub words: u16,
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
    /// Per input: its pipe.
    pub pipe_of: Vec<u8>,
}

/// The block's outputs in a cycle.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct View {
    pub cp_pop: Vec<bool>,
    pub dq: Vec<Option<(u32, Meta)>>,
    pub adm_dep: Vec<Option<(u8, u32)>>,
    pub lost: u32,
    /// Per output: a returned deflected header's congestion signal.
    pub cong: Vec<bool>,
    /// Per pipe: a deflected header released.
    pub rel: [bool; MAX_PIPES],
    /// `rel` pulses counted (wrapping).
    pub recirculated: u32,
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
    const KP: usize,
>(
    u: &mut SwitchQueues<N, K, M, CA, CC, RP, NB, KNB, KRP, NRP, NK, N4K, KP>,
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
        p.vd_dod.next = v.dod;
        p.vd_words.next = (v.words as u64).into();
        let (c, m) = d.cp[i].unwrap_or_default();
        p.cp_valid.next = d.cp[i].is_some();
        p.cp_cell.next = (c as u64).into();
        p.cp_meta.next = buf_meta(&m);
        u.pipe_of[i].next = (d.pipe_of.get(i).copied().unwrap_or(0) as u64).into();
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
    const KP: usize,
>(
    u: &SwitchQueues<N, K, M, CA, CC, RP, NB, KNB, KRP, NRP, NK, N4K, KP>,
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
        cong: u.cong.iter().map(|c| c.val()).collect(),
        rel: std::array::from_fn(|p| u.rel[p].val()),
        recirculated: u.recirculated.val().index() as u32,
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
    /// Ingress pipes (1..=4): input `i` is in pipe `i * pipes / n`.
    pub pipes: u8,
    /// Chance that an admitted verdict is a header deflected on drop.
    pub dod_p: f64,
    /// Deflected headers a pipe may hold (from the verdict to its `rel` pulse) before
    /// the workload, as the admission, deflects no more there.
    pub lim_dod: usize,
    /// `W` of deflected verdicts drawn from this range instead of the frame's words (a
    /// test of the servers with holds shorter than a frame can be; 0 holds 512).
    pub dod_words: Option<(u16, u16)>,
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
        pipes: 1,
        dod_p: 0.0,
        lim_dod: 12,
        dod_words: None,
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
    /// Headers deflected (verdicts), and `rel` pulses.
    pub deflected: u64,
    pub recirculated: u64,
    /// The most cycles from a deflected header's pop to its descriptor, and the fewest
    /// beyond its server's hold (`W`).
    pub max_recirc_wait: u64,
    pub min_recirc_over_words: Option<u64>,
    /// The most deflected headers a pipe held (verdict to `rel`).
    pub max_dod_held: usize,
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
    /// A deflected header: the cycles its server holds it (`W`, 0 as 512) and its
    /// input's pipe.
    dod: bool,
    hold: u64,
    pipe: u8,
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
    // ---- deflected headers (since the last reset) ----
    /// Per input: its pipe.
    pipe_of: Vec<u8>,
    /// Per pipe: deflected verdicts not yet released (the admission's count).
    dod_held: [usize; MAX_PIPES],
    /// Per pipe: deflected verdicts, and `rel` pulses.
    dod_n: [u64; MAX_PIPES],
    rel_n: [u64; MAX_PIPES],
    /// Per pipe and per output: popped deflected headers not yet releasable (the cycle
    /// they may be), and how many are releasable.
    rel_due: Vec<Vec<u64>>,
    rel_ok: [u64; MAX_PIPES],
    cong_due: Vec<Vec<u64>>,
    cong_ok: Vec<u64>,
    /// Per pipe and per output: the cycles of their pulses.
    rel_at: Vec<Vec<u64>>,
    cong_at: Vec<Vec<u64>>,
    /// Per pipe: deflected headers handed out.
    dod_out: [u64; MAX_PIPES],
    /// `rel` pulses of the cycles before (what `recirculated` must show).
    rel_sum: u32,
}

impl SqueWorkload {
    /// `n` ports, `cells` cells, a run of `cycles` (the last `k.drain` without new
    /// verdicts).
    pub fn new(seed: u64, n: usize, cells: u32, cycles: u64, k: Knobs) -> Self {
        let pipes = k.pipes.clamp(1, MAX_PIPES as u8) as usize;
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
            pipe_of: (0..n).map(|i| (i * pipes / n) as u8).collect(),
            dod_held: [0; MAX_PIPES],
            dod_n: [0; MAX_PIPES],
            rel_n: [0; MAX_PIPES],
            rel_due: vec![Vec::new(); MAX_PIPES],
            rel_ok: [0; MAX_PIPES],
            cong_due: vec![Vec::new(); n],
            cong_ok: vec![0; n],
            rel_at: vec![Vec::new(); MAX_PIPES],
            cong_at: vec![Vec::new(); n],
            dod_out: [0; MAX_PIPES],
            rel_sum: 0,
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
        self.dod_held = [0; MAX_PIPES];
        self.dod_n = [0; MAX_PIPES];
        self.rel_n = [0; MAX_PIPES];
        self.rel_due.iter_mut().for_each(Vec::clear);
        self.rel_ok = [0; MAX_PIPES];
        self.cong_due.iter_mut().for_each(Vec::clear);
        self.cong_ok.iter_mut().for_each(|x| *x = 0);
        self.rel_at.iter_mut().for_each(Vec::clear);
        self.cong_at.iter_mut().for_each(Vec::clear);
        self.dod_out = [0; MAX_PIPES];
        self.rel_sum = 0;
    }

    /// Whether a pulse in `at` (sorted) came after cycle `after` and at or before
    /// `until`.
    fn pulse_within(at: &[u64], after: u64, until: u64) -> bool {
        let x = at.partition_point(|&c| c <= after);
        x < at.len() && at[x] <= until
    }

    /// Checks the recirculation's pulses of cycle `now`.
    fn check_pulses(&mut self, now: u64, v: &View) -> Result<(), String> {
        let n = self.n;
        if v.recirculated != self.rel_sum {
            return Err(format!(
                "cycle {now}: recirculated {}, expected {} (the rel pulses before)",
                v.recirculated, self.rel_sum
            ));
        }
        // deflected headers that may have been released by now
        for p in 0..MAX_PIPES {
            let due = &mut self.rel_due[p];
            let before = due.len();
            due.retain(|&t| t > now);
            self.rel_ok[p] += (before - due.len()) as u64;
        }
        for o in 0..n {
            let due = &mut self.cong_due[o];
            let before = due.len();
            due.retain(|&t| t > now);
            self.cong_ok[o] += (before - due.len()) as u64;
        }
        for p in 0..MAX_PIPES {
            if !v.rel[p] {
                continue;
            }
            self.rel_n[p] += 1;
            self.rel_at[p].push(now);
            self.seen.recirculated += 1;
            self.rel_sum = self.rel_sum.wrapping_add(1);
            if self.rel_n[p] > self.rel_ok[p] {
                return Err(format!(
                    "cycle {now}: pipe {p}: rel pulse {} with {} deflected headers releasable",
                    self.rel_n[p], self.rel_ok[p]
                ));
            }
            // the admission's count (a verdict precedes its release, so it is not 0)
            self.dod_held[p] -= 1;
        }
        let rels = v.rel.iter().filter(|&&x| x).count();
        let congs = v.cong.iter().filter(|&&x| x).count();
        if congs > rels {
            return Err(format!(
                "cycle {now}: {congs} cong pulses with {rels} rel pulses"
            ));
        }
        for o in 0..n {
            if !v.cong[o] {
                continue;
            }
            self.cong_at[o].push(now);
            if self.cong_at[o].len() as u64 > self.cong_ok[o] {
                return Err(format!(
                    "cycle {now}: output {o}: cong pulse {} with {} deflected headers releasable",
                    self.cong_at[o].len(),
                    self.cong_ok[o]
                ));
            }
        }
        Ok(())
    }

    /// Checks a deflected header `p` handed out at cycle `now`.
    fn check_deflected_out(&mut self, now: u64, o: usize, p: &Pkt) -> Result<(), String> {
        let pipe = p.pipe as usize;
        let cell = p.cell;
        let earliest = p.popped + p.hold + RECIRC_MIN;
        if now < earliest {
            return Err(format!(
                "cycle {now}: output {o}: deflected cell {cell} (held {}) popped at cycle {} out before cycle {earliest}",
                p.hold, p.popped
            ));
        }
        let until = now - REL_TO_DQ;
        if !Self::pulse_within(&self.rel_at[pipe], p.popped, until) {
            return Err(format!(
                "cycle {now}: output {o}: deflected cell {cell} popped at cycle {} out with no rel pulse of pipe {pipe} since, up to cycle {until}",
                p.popped
            ));
        }
        if !Self::pulse_within(&self.cong_at[o], p.popped, until) {
            return Err(format!(
                "cycle {now}: output {o}: deflected cell {cell} popped at cycle {} out with no cong pulse of its output since, up to cycle {until}",
                p.popped
            ));
        }
        self.dod_out[pipe] += 1;
        let released = self.rel_at[pipe].partition_point(|&c| c <= until) as u64;
        if self.dod_out[pipe] > released {
            return Err(format!(
                "cycle {now}: pipe {pipe}: {} deflected headers out, {released} released by cycle {until}",
                self.dod_out[pipe]
            ));
        }
        let wait = now - p.popped;
        self.seen.max_recirc_wait = self.seen.max_recirc_wait.max(wait);
        let over = wait - p.hold;
        self.seen.min_recirc_over_words = Some(
            self.seen
                .min_recirc_over_words
                .map_or(over, |m| m.min(over)),
        );
        Ok(())
    }

    /// Checks the view of cycle `now` and returns the inputs of that cycle.
    pub fn step(&mut self, now: u64, v: &View) -> Result<Drive, String> {
        let n = self.n;
        if v.lost != 0 {
            return Err(format!("cycle {now}: {} verdicts lost", v.lost));
        }
        self.check_pulses(now, v)?;
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
            if p.dod {
                self.check_deflected_out(now, o, &p)?;
            }
            if p.meta != meta {
                return Err(format!(
                    "cycle {now}: output {o}: cell {cell} with meta {meta:?}, expected {:?}",
                    p.meta
                ));
            }
            if let Some(q) = self.waiting[o][..x]
                .iter()
                .find(|q| !p.dod && !q.dod && q.inp == p.inp && q.band == p.band)
            {
                return Err(format!(
                    "cycle {now}: output {o}: cell {cell} of input {} band {} overtook cell {}",
                    p.inp, p.band, q.cell
                ));
            }
            if self.k.check_sp && !self.k.wrr {
                if let Some(q) = self.waiting[o]
                    .iter()
                    .find(|q| !q.dod && q.band < p.band && q.popped + SP_SLACK < now)
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
            pipe_of: self.pipe_of.clone(),
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
                if p.dod {
                    let t = now + p.hold + POP_TO_REL;
                    self.rel_due[p.pipe as usize].push(t);
                    self.cong_due[p.out as usize].push(t);
                }
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
                // a deflected header: band 0, 64 bytes, while its pipe holds fewer than
                // `lim_dod` (no draw when deflection is off, so the runs without it are
                // the same)
                let pipe = self.pipe_of[i];
                let dod = admit
                    && self.k.dod_p > 0.0
                    && self.rng.gen_bool(self.k.dod_p)
                    && self.dod_held[pipe as usize] < self.k.lim_dod;
                let (band, bytes) = if dod { (0, 64) } else { (band, bytes) };
                let vw = match self.k.dod_words {
                    Some((lo, hi)) if dod => self.rng.gen_range(lo..=hi) & 0x1ff,
                    _ => words,
                };
                d.vd[i] = Some(Vd {
                    admit,
                    out,
                    band,
                    bytes,
                    dod,
                    words: vw,
                });
                if admit {
                    let cell = self.free.pop().expect("checked");
                    // the buffer stores a deflected frame's header only (8 words)
                    let hw = if dod { 8 } else { words };
                    let meta = Meta {
                        s: self.rng.gen_range(0..n) as u8,
                        words: hw,
                        empty: if dod {
                            0
                        } else {
                            (words as u32 * 8 - bytes) as u8
                        },
                        bad: self.rng.gen_bool(0.05),
                    };
                    if dod {
                        let p = pipe as usize;
                        self.dod_held[p] += 1;
                        self.dod_n[p] += 1;
                        self.seen.deflected += 1;
                        self.seen.max_dod_held = self.seen.max_dod_held.max(self.dod_held[p]);
                    }
                    let t = now + self.rng.gen_range(2..=hw as u64 + 4);
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
                            dod,
                            hold: if vw == 0 { 512 } else { vw as u64 },
                            pipe,
                        },
                    ));
                    self.seen.admitted += 1;
                }
            }
        }
        Ok(d)
    }

    /// Checks that everything left and every deflected header was released (call after
    /// the drain; `recirculated` was checked in every cycle).
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
        for p in 0..MAX_PIPES {
            if self.rel_n[p] != self.dod_n[p] || self.dod_held[p] != 0 {
                return Err(format!(
                    "pipe {p}: {} deflected headers, {} rel pulses",
                    self.dod_n[p], self.rel_n[p]
                ));
            }
        }
        Ok(Box::new(self.seen))
    }
}
