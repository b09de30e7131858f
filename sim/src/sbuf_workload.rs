//! Seeded random workload of the shared packet buffer ([`nt_hdl::sbuf`]), self-checking:
//! frames of 1 to 140 words with gaps, verdicts that admit, admit trimmed or refuse,
//! frames shorter or longer than their verdict's length, completions taken late and sent to random outputs
//! (the harness stands in for the admission and queueing blocks), backpressure, resets.
//! Every admitted frame of the right length must leave its output whole and in order
//! (a trimmed one as its 8-word header with the rewrites, a returned one with its
//! addresses and ports swapped as well, checked against [`crate::swframe::returned_header`]), no other may, and every cell must come back to the free lists; a break is an error.
//! The equivalence test runs it against the model; `ntsim run sbuf_p4` and co-simulation
//! record it.
use nt_hdl::sbuf::{BufMeta, BufVerdict, SharedBuffer};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// A stored packet, as `cp` and `dq` carry it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Desc {
    pub cell: u32,
    /// Start bank.
    pub s: u8,
    pub words: u16,
    pub empty: u8,
    pub bad: bool,
}

/// A frame's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Vd {
    pub admit: bool,
    pub words: u16,
    pub empty: u8,
    /// Admitted trimmed to its 64-byte header, with this IPv4 checksum.
    pub trim: bool,
    pub csum: u16,
    /// Trimmed and returned to its sender, with the bytes of later words its rewrite takes.
    pub ret: bool,
    /// Trimmed and deflected on drop (only counted).
    pub dod: bool,
    pub rb: u64,
    /// Bolt: a data packet whose flags (word 6 bits 15:8) become `bf`.
    pub bm: bool,
    pub bf: u8,
    /// Bolt: an SRC goes back out of the frame's port, with q_size `q`.
    pub src: bool,
    pub q: u32,
}

/// One input's signals in a cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct InDrive {
    /// `(data, last, empty)` of a word from the MAC.
    pub rx: Option<(u64, bool, u8)>,
    /// The next frame's verdict.
    pub vd: Option<Vd>,
    pub cp_pop: bool,
}

/// One output's signals in a cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct OutDrive {
    pub dq: Option<Desc>,
    pub ready: bool,
}

/// The block's inputs in a cycle.
#[derive(Clone, Debug, Default)]
pub struct Drive {
    pub reset: bool,
    /// Bolt's link rate stamped into SRCs.
    pub link_rate: u8,
    pub inp: Vec<InDrive>,
    pub out: Vec<OutDrive>,
}

/// What an input shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct InView {
    pub cp: Option<Desc>,
    pub ovr: u32,
    /// Frames completed bad.
    pub bad: u32,
    /// Trimmed headers completed good, and of those the returned and deflected ones.
    pub trimmed: u32,
    pub returned: u32,
    pub deflected: u32,
    pub src_sent: u32,
    pub src_drop: u32,
}

/// What an output shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct OutView {
    pub dq_count: u8,
    /// `(data, last, empty)` while `valid`.
    pub tx: Option<(u64, bool, u8)>,
    pub dep: bool,
    pub tx_frames: u32,
}

/// The block's outputs in a cycle.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct View {
    pub inp: Vec<InView>,
    pub out: Vec<OutView>,
    pub free_rows: u32,
}

type Buf<
    const N: usize,
    const CA: usize,
    const CC: usize,
    const N2: usize,
    const R: usize,
    const NR: usize,
    const NRW: usize,
    const NN: usize,
> = SharedBuffer<N, CA, CC, N2, R, NR, NRW, NN>;

/// Sets the block's inputs.
pub fn drive<
    const N: usize,
    const CA: usize,
    const CC: usize,
    const N2: usize,
    const R: usize,
    const NR: usize,
    const NRW: usize,
    const NN: usize,
>(
    u: &mut Buf<N, CA, CC, N2, R, NR, NRW, NN>,
    d: &Drive,
) {
    u.reset.next = d.reset;
    u.link_rate.next = (d.link_rate as u64).into();
    for (i, x) in d.inp.iter().enumerate() {
        let p = &mut u.inp[i];
        p.valid.next = x.rx.is_some();
        let (data, last, empty) = x.rx.unwrap_or((0, false, 0));
        p.data.next = data.into();
        p.last.next = last;
        p.empty.next = (empty as u64).into();
        p.vd_valid.next = x.vd.is_some();
        let v = x.vd.unwrap_or_default();
        p.vd.next = BufVerdict {
            admit: v.admit,
            words: (v.words as u64).into(),
            empty: (v.empty as u64).into(),
            trim: v.trim,
            csum: (v.csum as u64).into(),
            ret: v.ret,
            dod: v.dod,
            rb: v.rb.into(),
            bm: v.bm,
            bf: (v.bf as u64).into(),
            src: v.src,
            q: (v.q as u64).into(),
        };
        p.cp_pop.next = x.cp_pop;
    }
    for (o, y) in d.out.iter().enumerate() {
        let p = &mut u.out[o];
        p.dq_push.next = y.dq.is_some();
        let q = y.dq.unwrap_or_default();
        p.dq_cell.next = (q.cell as u64).into();
        p.dq_meta.next = BufMeta {
            s: (q.s as u64).into(),
            words: (q.words as u64).into(),
            empty: (q.empty as u64).into(),
            bad: q.bad,
        };
        p.ready.next = y.ready;
    }
}

/// Reads the block's outputs (they depend on registers only).
pub fn read<
    const N: usize,
    const CA: usize,
    const CC: usize,
    const N2: usize,
    const R: usize,
    const NR: usize,
    const NRW: usize,
    const NN: usize,
>(
    u: &Buf<N, CA, CC, N2, R, NR, NRW, NN>,
) -> View {
    View {
        inp: u
            .inp
            .iter()
            .map(|p| {
                let m = p.cp_meta.val();
                InView {
                    cp: p.cp_valid.val().then_some(Desc {
                        cell: p.cp_cell.val().to_u64() as u32,
                        s: m.s.to_u64() as u8,
                        words: m.words.to_u64() as u16,
                        empty: m.empty.to_u64() as u8,
                        bad: m.bad,
                    }),
                    ovr: p.ovr.val().to_u64() as u32,
                    bad: p.bad.val().to_u64() as u32,
                    trimmed: p.trimmed.val().to_u64() as u32,
                    returned: p.returned.val().to_u64() as u32,
                    deflected: p.deflected.val().to_u64() as u32,
                    src_sent: p.src_sent.val().to_u64() as u32,
                    src_drop: p.src_drop.val().to_u64() as u32,
                }
            })
            .collect(),
        out: u
            .out
            .iter()
            .map(|p| OutView {
                dq_count: p.dq_count.val().to_u64() as u8,
                tx: p.valid.val().then_some((
                    p.data.val().to_u64(),
                    p.last.val(),
                    p.empty.val().to_u64() as u8,
                )),
                dep: p.dep.val(),
                tx_frames: p.tx_frames.val().to_u64() as u32,
            })
            .collect(),
        free_rows: u.free_rows.val().to_u64() as u32,
    }
}

/// A frame in flight through the harness.
#[derive(Clone, Debug)]
struct Frame {
    words: Vec<u64>,
    empty: u8,
    admit: bool,
    /// The verdict's length (words, empty): the frame is good when it matches.
    v_words: u16,
    v_empty: u8,
    /// Admitted trimmed (with the header's checksum).
    trim: bool,
    csum: u16,
    /// Trimmed and returned to its sender.
    ret: bool,
    /// Trimmed and deflected on drop (the buffer only counts it).
    dod: bool,
    /// Bolt: new flags for word 6, an SRC with q_size `q`.
    bm: bool,
    bf: u8,
    src: bool,
    q: u32,
}

impl Frame {
    /// Completed good: the verdict's length; trimmed, also 8 words or more (a frame of
    /// exactly 8 must fill its last word).
    fn good(&self) -> bool {
        let n = self.words.len();
        let whole = self.admit && n as u16 == self.v_words && self.empty == self.v_empty;
        if self.trim {
            whole && (n > 8 || (n == 8 && self.empty == 0))
        } else {
            whole
        }
    }

    fn verdict(&self) -> Vd {
        Vd {
            admit: self.admit,
            words: self.v_words,
            empty: self.v_empty,
            trim: self.trim,
            csum: self.csum,
            ret: self.ret,
            dod: self.dod,
            rb: crate::swframe::ret_bytes(&self.words),
            bm: self.bm,
            bf: self.bf,
            src: self.src,
            q: self.q,
        }
    }

    /// The SRC its port sends back, if it has one and 8 words to build it from.
    fn src_out(&self) -> Option<Vec<u64>> {
        (self.src && self.words.len() >= 8).then(|| {
            crate::swframe::src_header(&self.words, self.csum, self.q, LINK_RATE)
                .iter()
                .map(|w| w.0)
                .collect()
        })
    }

    /// What leaves the output: the frame, or its trimmed header.
    fn out(&self) -> (Vec<u64>, u8) {
        let (mut w, e): (Vec<u64>, u8) = if self.ret {
            let h = crate::swframe::returned_header(&self.words, self.csum);
            (h.iter().map(|w| w.0).collect(), 0)
        } else if self.trim {
            let h = crate::swframe::trimmed_header(&self.words, self.csum);
            (h.iter().map(|w| w.0).collect(), 0)
        } else {
            (self.words.clone(), self.empty)
        };
        // Bolt: the data packet's new flags (frame byte 54)
        if self.bm && w.len() > 6 {
            w[6] = (w[6] & !0xff00) | (self.bf as u64) << 8;
        }
        (w, e)
    }
}

/// The workload's knobs.
#[derive(Clone, Debug)]
pub struct Knobs {
    /// Chance of an idle cycle before each word.
    pub p_gap: f64,
    pub p_admit: f64,
    /// Chance an admitted frame is trimmed.
    pub p_trim: f64,
    /// Chance a trimmed frame is returned to its sender.
    pub p_ret: f64,
    /// Chance a frame's length disagrees with its verdict (shorter, longer, other `empty`).
    pub p_bad: f64,
    /// Chance a waiting completion is taken in a cycle.
    pub p_pop: f64,
    pub p_ready: f64,
    /// Extra cycles before a frame's verdict (0..=max) after its 8th word (or its last).
    pub verdict_delay: u64,
    pub p_reset: f64,
    /// Every frame this many bytes, well formed (else random lengths).
    pub len: Option<u16>,
    /// Frames of input `i` go to output `i` (else to a random output).
    pub identity: bool,
    /// Chance a waiting descriptor is pushed when the output has room.
    pub p_push: f64,
    /// Check completions and frames against what was sent (off when verdicts come too
    /// late on purpose: the data FIFO then loses words and frames, by design).
    pub check: bool,
    /// Bolt: chance a frame is a Bolt data packet (its flags rewritten), and that such a
    /// frame has an SRC.
    pub p_bolt: f64,
    pub p_src: f64,
}

/// The link rate the workload configures (stamped into every SRC).
pub const LINK_RATE: u8 = 100;

/// What a run saw.
#[derive(Clone, Copy, Debug)]
pub struct Seen {
    pub frames_in: u64,
    pub frames_out: u64,
    /// Of those, trimmed headers (returned ones included).
    pub trimmed_out: u64,
    /// Of those, headers returned to their sender.
    pub returned_out: u64,
    pub bad: u64,
    /// The least busy output's share of cycles with a word out, over the middle of the run.
    pub min_util: f64,
    /// Words the data FIFOs could not take.
    pub ovr: u32,
    /// Bolt: SRCs that left, and those lost for want of a slot (since the last reset).
    pub src_out: u64,
    pub src_drop: u64,
}

struct InGen {
    frames: VecDeque<Frame>,
    /// Word of the frame at the front being sent.
    at: usize,
    /// Verdicts waiting for their time, in frame order: (release cycle, verdict).
    pending: VecDeque<(u64, Vd)>,
    /// Frames whose first word was sent, not yet completed or known refused.
    sent: VecDeque<Frame>,
}

fn gen_frame(rng: &mut StdRng, tag: u64, k: &Knobs) -> Frame {
    let len: u16 = match k.len {
        Some(l) => l,
        None => match rng.gen_range(0..4) {
            0 => 64,
            1 => rng.gen_range(64..=200),
            2 => 1088,
            _ => rng.gen_range(64..=1088),
        },
    };
    let v_words = len.div_ceil(8);
    let v_empty = (v_words * 8 - len) as u8;
    let mut words = v_words;
    let mut empty = v_empty;
    if k.len.is_none() && rng.gen_bool(k.p_bad) {
        match rng.gen_range(0..3) {
            0 => words = rng.gen_range(1..=v_words.max(2) - 1),
            1 => words = v_words + rng.gen_range(1..=4),
            _ => empty = (empty + rng.gen_range(1..8)) % 8,
        }
    }
    // random high bytes, so that a returned header's swaps move something
    let data = (0..words as u64)
        .map(|w| (rng.gen::<u64>() & !0xff_ffff) | (tag & 0xff) << 16 | w)
        .collect();
    let admit = rng.gen_bool(k.p_admit);
    let trim = admit && rng.gen_bool(k.p_trim);
    let bm = rng.gen_bool(k.p_bolt);
    let ret = trim && rng.gen_bool(k.p_ret);
    Frame {
        bm,
        bf: rng.gen(),
        src: bm && rng.gen_bool(k.p_src),
        q: rng.gen_range(0..1 << 24),
        words: data,
        empty,
        admit,
        v_words,
        v_empty,
        trim,
        csum: rng.gen(),
        ret,
        // from the tag, not the generator: the other draws stay as they were
        dod: trim && !ret && tag % 3 == 0,
    }
}

/// Random traffic, every case: gaps, refusals, bad lengths, late completions,
/// backpressure.
pub fn knobs() -> Knobs {
    Knobs {
        p_gap: 0.1,
        p_admit: 0.8,
        p_trim: 0.15,
        p_ret: 0.5,
        p_bad: 0.05,
        p_pop: 0.6,
        p_ready: 0.85,
        verdict_delay: 6,
        p_reset: 0.0,
        len: None,
        identity: false,
        p_push: 0.7,
        check: true,
        p_bolt: 0.0,
        p_src: 0.0,
    }
}

/// [`knobs`] with Bolt: 40% of frames are Bolt data packets (flags rewritten), half of
/// those with an SRC.
pub fn bolt_knobs() -> Knobs {
    Knobs {
        p_bolt: 0.4,
        p_src: 0.5,
        ..knobs()
    }
}

/// Frames of `len` bytes back to back on every input, each input to its own output,
/// nothing refused, no backpressure.
pub fn line_rate(len: u16) -> Knobs {
    Knobs {
        p_gap: 0.0,
        p_admit: 1.0,
        p_trim: 0.0,
        p_ret: 0.0,
        p_bad: 0.0,
        p_pop: 1.0,
        p_ready: 1.0,
        verdict_delay: 0,
        p_reset: 0.0,
        len: Some(len),
        identity: true,
        p_push: 1.0,
        check: true,
        p_bolt: 0.0,
        p_src: 0.0,
    }
}

/// The workload: generates the inputs of each cycle from the outputs it sees, and checks
/// what comes out.
pub struct SbufWorkload {
    n: usize,
    cells: u32,
    cycles: u64,
    k: Knobs,
    rng: StdRng,
    gens: Vec<InGen>,
    /// Per output: descriptors waiting to be pushed, frames expected out, the frame
    /// coming out.
    outq: Vec<VecDeque<Desc>>,
    expect: Vec<VecDeque<Frame>>,
    cur_out: Vec<Vec<u64>>,
    /// Per port: the SRCs of its input's frames in frame order (`None`: too short to
    /// build), and since the last reset the frames with `src`, those too short and the
    /// SRCs that left.
    srcq: Vec<VecDeque<Option<Vec<u64>>>>,
    src_total: Vec<u64>,
    src_short: Vec<u64>,
    src_seen: Vec<u64>,
    /// Per input since the last reset: bad completions; good trimmed ones, of those the
    /// returned and deflected ones.
    bad_seen: Vec<u64>,
    trim_seen: Vec<[u64; 3]>,
    tag: u64,
    seen: Seen,
    busy: Vec<u64>,
    drain: u64,
}

/// Cycles at the end of a run with no new frames, so that everything drains (a quarter
/// of a shorter run).
pub const DRAIN: u64 = 3000;

impl SbufWorkload {
    /// `n` ports, `2^ca` cells, a run of `cycles` cycles (the last `min(DRAIN, cycles / 4)`
    /// drain).
    pub fn new(seed: u64, n: usize, ca: usize, cycles: u64, k: Knobs) -> Self {
        Self {
            n,
            cells: 1 << ca,
            cycles,
            k,
            rng: StdRng::seed_from_u64(seed),
            gens: (0..n)
                .map(|_| InGen {
                    frames: VecDeque::new(),
                    at: 0,
                    pending: VecDeque::new(),
                    sent: VecDeque::new(),
                })
                .collect(),
            outq: vec![VecDeque::new(); n],
            expect: vec![VecDeque::new(); n],
            cur_out: vec![Vec::new(); n],
            srcq: vec![VecDeque::new(); n],
            src_total: vec![0; n],
            src_short: vec![0; n],
            src_seen: vec![0; n],
            bad_seen: vec![0; n],
            trim_seen: vec![[0; 3]; n],
            tag: 0,
            seen: Seen {
                frames_in: 0,
                frames_out: 0,
                trimmed_out: 0,
                returned_out: 0,
                bad: 0,
                min_util: 0.0,
                ovr: 0,
                src_out: 0,
                src_drop: 0,
            },
            busy: vec![0; n],
            drain: DRAIN.min(cycles / 4),
        }
    }

    fn busy_window(&self) -> (u64, u64) {
        (self.cycles / 4, self.cycles - self.drain)
    }

    /// The inputs of cycle `c`, given the outputs `view` of that cycle; an error when an
    /// output breaks the checks.
    pub fn step(&mut self, c: u64, view: &View) -> Result<Drive, String> {
        let n = self.n;
        let draining = c + self.drain > self.cycles;
        let reset = c < 3 || (!draining && self.rng.gen_bool(self.k.p_reset));
        let mut d = Drive {
            reset,
            link_rate: LINK_RATE,
            inp: vec![InDrive::default(); n],
            out: vec![OutDrive::default(); n],
        };
        let (from, to) = self.busy_window();
        if (from..to).contains(&c) {
            for o in 0..n {
                self.busy[o] += view.out[o].tx.is_some() as u64;
            }
        }
        if reset {
            // a reset empties the buffer: start over
            for g in &mut self.gens {
                g.frames.clear();
                g.at = 0;
                g.pending.clear();
                g.sent.clear();
            }
            for o in 0..n {
                self.outq[o].clear();
                self.expect[o].clear();
                self.cur_out[o].clear();
                self.srcq[o].clear();
                self.src_total[o] = 0;
                self.src_short[o] = 0;
                self.src_seen[o] = 0;
                self.bad_seen[o] = 0;
                self.trim_seen[o] = [0; 3];
            }
            return Ok(d);
        }
        for i in 0..n {
            let g = &mut self.gens[i];
            if g.frames.is_empty() && !draining {
                self.tag += 1;
                let f = gen_frame(&mut self.rng, self.tag, &self.k);
                g.frames.push_back(f);
            }
            if let Some(f) = g.frames.front() {
                if !self.rng.gen_bool(self.k.p_gap) {
                    let w = f.words[g.at];
                    let last = g.at + 1 == f.words.len();
                    d.inp[i].rx = Some((w, last, if last { f.empty } else { 0 }));
                    if g.at == 0 {
                        g.sent.push_back(f.clone());
                        if f.src {
                            let h = f.src_out();
                            self.src_total[i] += 1;
                            self.src_short[i] += u64::from(h.is_none());
                            self.srcq[i].push_back(h);
                        }
                    }
                    if g.at == f.words.len().min(8) - 1 {
                        let delay = self.rng.gen_range(0..=self.k.verdict_delay);
                        g.pending.push_back((c + delay, f.verdict()));
                    }
                    g.at += 1;
                    if last {
                        g.frames.pop_front();
                        g.at = 0;
                        self.seen.frames_in += 1;
                    }
                }
            }
            if let Some(&(t, v)) = g.pending.front() {
                if t <= c {
                    d.inp[i].vd = Some(v);
                    g.pending.pop_front();
                }
            }
            let Some(cp) = view.inp[i].cp else { continue };
            if !self.rng.gen_bool(self.k.p_pop) {
                continue;
            }
            d.inp[i].cp_pop = true;
            let o = if self.k.identity {
                i
            } else {
                self.rng.gen_range(0..n)
            };
            self.outq[o].push_back(cp);
            if !self.k.check {
                continue;
            }
            // refused frames before it left no completion
            let f = loop {
                match g.sent.pop_front() {
                    Some(f) if f.admit => break f,
                    Some(_) => {}
                    None => {
                        return Err(format!(
                            "cycle {c}: input {i}: a completion without a frame"
                        ))
                    }
                }
            };
            let want_words = (f.words.len() as u16).min(if f.trim { 8 } else { f.v_words });
            if cp.words != want_words || cp.bad == f.good() {
                return Err(format!(
                    "cycle {c}: input {i}: completion {cp:?}, for a frame of {} words (empty {}) with verdict {} words (empty {})",
                    f.words.len(), f.empty, f.v_words, f.v_empty
                ));
            }
            self.seen.bad += cp.bad as u64;
            self.bad_seen[i] += cp.bad as u64;
            if !cp.bad {
                if f.trim {
                    let t = &mut self.trim_seen[i];
                    t[0] += 1;
                    t[1] += u64::from(f.ret);
                    t[2] += u64::from(f.dod);
                }
                self.expect[o].push_back(f);
            }
        }
        for o in 0..n {
            if view.out[o].dq_count < 2 && self.rng.gen_bool(self.k.p_push) {
                d.out[o].dq = self.outq[o].pop_front();
            }
            d.out[o].ready = self.rng.gen_bool(self.k.p_ready);
            let Some((data, last, empty)) = view.out[o].tx else {
                continue;
            };
            if !d.out[o].ready || !self.k.check {
                continue;
            }
            self.cur_out[o].push(data);
            if last {
                // an SRC of this port's input (in frame order; those before it were
                // lost for want of a slot or too short), unless it is the next frame
                let is_data = self.expect[o]
                    .front()
                    .is_some_and(|f| f.out() == (self.cur_out[o].clone(), empty));
                if !is_data && empty == 0 && self.cur_out[o].len() == 8 {
                    let mut found = false;
                    while let Some(h) = self.srcq[o].pop_front() {
                        if h.as_ref() == Some(&self.cur_out[o]) {
                            found = true;
                            break;
                        }
                    }
                    if found {
                        self.cur_out[o].clear();
                        self.src_seen[o] += 1;
                        self.seen.src_out += 1;
                        continue;
                    }
                    return Err(format!(
                        "cycle {c}: output {o}: an 8-word frame that is neither the next frame nor an SRC of port {o}, first word {data:#x}"
                    ));
                }
                let Some(f) = self.expect[o].pop_front() else {
                    return Err(format!("cycle {c}: output {o}: a frame nobody sent"));
                };
                let (want, want_empty) = f.out();
                if self.cur_out[o] != want || empty != want_empty {
                    return Err(format!(
                        "cycle {c}: output {o}: frame of {} words (empty {empty}), expected {} words (empty {want_empty}, trimmed {}), first word {:#x}",
                        self.cur_out[o].len(), want.len(), f.trim, want[0]
                    ));
                }
                self.cur_out[o].clear();
                self.seen.frames_out += 1;
                self.seen.trimmed_out += u64::from(f.trim);
                self.seen.returned_out += u64::from(f.ret);
            }
        }
        Ok(d)
    }

    /// After the last cycle: every frame out, every cell back but those waiting in the
    /// inputs' rings (4 each). What the run saw, or what broke.
    pub fn finish(&mut self, view: &View) -> Result<&Seen, String> {
        for o in 0..self.n {
            if self.k.check && !self.expect[o].is_empty() {
                return Err(format!(
                    "output {o} still owes {} frames",
                    self.expect[o].len()
                ));
            }
        }
        let free = view.free_rows;
        if self.k.check && (free + 4 * self.n as u32) < self.cells || free > self.cells {
            return Err(format!(
                "{free} cells free of {} after draining",
                self.cells
            ));
        }
        let (from, to) = self.busy_window();
        let span = to.saturating_sub(from).max(1) as f64;
        self.seen.min_util = self
            .busy
            .iter()
            .map(|&b| b as f64 / span)
            .fold(1.0, f64::min);
        self.seen.ovr = view.inp.iter().map(|x| x.ovr).sum();
        for (i, x) in view.inp.iter().enumerate() {
            if self.k.check && x.bad as u64 != self.bad_seen[i] {
                return Err(format!(
                    "input {i}: {} bad completions counted, {} seen since the last reset",
                    x.bad, self.bad_seen[i]
                ));
            }
            let counted = [x.trimmed, x.returned, x.deflected].map(u64::from);
            if self.k.check && counted != self.trim_seen[i] {
                return Err(format!(
                    "input {i}: trimmed, returned, deflected headers counted {counted:?}, completed good since the last reset {:?}",
                    self.trim_seen[i]
                ));
            }
        }
        self.seen.src_drop = view.inp.iter().map(|x| x.src_drop as u64).sum();
        for i in 0..self.n {
            let v = &view.inp[i];
            if self.k.check
                && (v.src_sent as u64 != self.src_seen[i]
                    || (v.src_sent + v.src_drop) as u64 + self.src_short[i] != self.src_total[i])
            {
                return Err(format!(
                    "port {i}: {} SRCs left and {} counted sent, {} lost, {} too short, of {} frames with an SRC",
                    self.src_seen[i], v.src_sent, v.src_drop, self.src_short[i], self.src_total[i]
                ));
            }
        }
        Ok(&self.seen)
    }
}
