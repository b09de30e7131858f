//! Seeded random workload of the switch's ingress ([`nt_hdl::sing`]), self-checking.
//! Every input sends frames of every kind: well formed and routed (64 to 1,088 bytes,
//! some whose real length disagrees with their IPv4 length), shorter than 8 words, with a
//! gap among their first 8 words or after it, with a bad ethertype, version or length, to
//! an address with no route or a route to a port that does not exist; bands by `tos` or by
//! flags. The forwarding table has invalid entries, duplicates (the lowest wins) and ports
//! out of range. Checked every cycle, as errors of the run:
//! * each word of a frame that must be kept comes out exactly 9 cycles after it came in,
//!   and nothing else comes out;
//! * each kept frame's request comes 8 cycles after its first word, with its output, band,
//!   bytes, words, `empty`, whether it may be trimmed and its trimmed header's checksum,
//!   and there is no other request;
//! * the counters equal the frames decided so far, by reason.
//!
//! The equivalence test runs it against the model; `ntsim run sing_p4` records it.
use crate::swframe::random_frame;
use nt_hdl::sing::SwitchIngress;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

pub use crate::swframe::{IngReq, NotKept, Route, Word};

/// The block's inputs in a cycle.
#[derive(Clone, Debug, Default)]
pub struct Drive {
    pub reset: bool,
    pub rx: Vec<Option<Word>>,
    pub route: Vec<Route>,
    pub band_by_flags: bool,
}

/// An input's counters (the block's `stat[i]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Counts {
    pub rx_frames: u32,
    pub drop_malformed: u32,
    pub drop_no_route: u32,
    pub fwd: u32,
}

impl Counts {
    /// Counts one frame decided: kept (`fwd`) or not, and why (wrapping, as the block's
    /// 32-bit counters).
    pub fn count(&mut self, fate: Result<(), NotKept>) {
        self.rx_frames = self.rx_frames.wrapping_add(1);
        let c = match fate {
            Ok(()) => &mut self.fwd,
            Err(NotKept::Malformed) => &mut self.drop_malformed,
            Err(NotKept::NoRoute) => &mut self.drop_no_route,
        };
        *c = c.wrapping_add(1);
    }
}

/// The block's outputs in a cycle.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct View {
    pub out: Vec<Option<Word>>,
    pub req: Vec<Option<IngReq>>,
    pub stat: Vec<Counts>,
}

/// Sets the block's inputs.
pub fn drive<const N: usize, const N8: usize, const NN: usize>(
    u: &mut SwitchIngress<N, N8, NN>,
    d: &Drive,
) {
    u.reset.next = d.reset;
    for (i, w) in d.rx.iter().enumerate() {
        let (data, last, empty) = w.unwrap_or_default();
        u.rx[i].valid.next = w.is_some();
        u.rx[i].data.next = data.into();
        u.rx[i].last.next = last;
        u.rx[i].empty.next = (empty as u64).into();
    }
    for (k, r) in d.route.iter().enumerate() {
        u.route[k].valid.next = r.valid;
        u.route[k].ip.next = (r.ip as u64).into();
        u.route[k].port.next = (r.port as u64).into();
    }
    u.band_by_flags.next = d.band_by_flags;
}

/// Reads the block's outputs (registers only; `rx.ready` is `!reset` and not read).
pub fn read<const N: usize, const N8: usize, const NN: usize>(
    u: &SwitchIngress<N, N8, NN>,
) -> View {
    View {
        out: u
            .o
            .iter()
            .map(|o| {
                o.valid.val().then(|| {
                    (
                        o.data.val().to_u64(),
                        o.last.val(),
                        o.empty.val().index() as u8,
                    )
                })
            })
            .collect(),
        req: u
            .o
            .iter()
            .map(|o| {
                o.req_valid.val().then(|| IngReq {
                    out: o.req_out.val().index() as u8,
                    band: o.req_band.val().index() as u8,
                    bytes: o.req_bytes.val().index() as u32,
                    words: o.req_words.val().index() as u16,
                    empty: o.req_empty.val().index() as u8,
                    trim: o.req_trim.val(),
                    csum: o.req_csum.val().index() as u16,
                    rb: o.req_rb.val().to_u64(),
                    bf: o.req_bf.val().index() as u8,
                })
            })
            .collect(),
        stat: u
            .stat
            .iter()
            .map(|s| Counts {
                rx_frames: s.rx_frames.val().index() as u32,
                drop_malformed: s.drop_malformed.val().index() as u32,
                drop_no_route: s.drop_no_route.val().index() as u32,
                fwd: s.fwd.val().index() as u32,
            })
            .collect(),
    }
}

/// What the workload does.
#[derive(Clone, Debug)]
pub struct Knobs {
    /// Chance that an idle input starts a frame in a cycle.
    pub load: f64,
    /// Chance of a gap before a word after the first (half of them among the first 8).
    pub gap_p: f64,
    /// Chance that a frame is of a bad kind (short, bad header, no route, wrong length).
    pub bad_p: f64,
    pub band_by_flags: bool,
    /// Chance of a reset per cycle.
    pub reset_p: f64,
}

/// The default: busy inputs, a frame in five of a bad kind, few gaps.
pub fn knobs() -> Knobs {
    Knobs {
        load: 0.6,
        gap_p: 0.01,
        bad_p: 0.2,
        band_by_flags: false,
        reset_p: 0.0,
    }
}

/// What a run saw.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    pub frames: u64,
    pub kept: u64,
    pub malformed: u64,
    pub no_route: u64,
    pub words_out: u64,
    pub bands: [u64; 4],
}

/// A frame being sent.
struct Tx {
    words: VecDeque<Word>,
    /// Word index of the next word.
    j: usize,
    /// The expected decision: a request, or why the frame is not kept.
    want: Result<IngReq, NotKept>,
    /// Cycle of the first word.
    t0: u64,
    /// The decision is known (its counter is queued).
    decided: bool,
    /// Decided: kept or not.
    kept: Option<bool>,
    /// Words sent before the decision, with the cycle they must come out in if kept.
    sent: Vec<(u64, Word)>,
}

/// The workload. See the module documentation.
pub struct SingWorkload {
    rng: StdRng,
    n: usize,
    k: Knobs,
    routes: Vec<Route>,
    tx: Vec<Option<Tx>>,
    /// Per input: words expected out, with their cycle.
    out_q: Vec<VecDeque<(u64, Word)>>,
    /// Per input: requests expected, with their cycle.
    req_q: Vec<VecDeque<(u64, IngReq)>>,
    /// Per input: counters expected, with the cycle from which they show.
    cnt_q: Vec<VecDeque<(u64, Result<(), NotKept>)>>,
    counts: Vec<Counts>,
    seen: Seen,
}

impl SingWorkload {
    /// `n` ports.
    pub fn new(seed: u64, n: usize, k: Knobs) -> Self {
        let mut rng = StdRng::seed_from_u64(seed);
        // Addresses 10.0.0.x; entry k routes 10.0.0.(k+1) to a port, some invalid, some
        // out of range, and two duplicates (a later entry for an earlier address).
        let routes = (0..n)
            .map(|kk| {
                let dup = kk >= 2 && kk % 5 == 4;
                Route {
                    valid: kk % 7 != 6,
                    ip: if dup {
                        0x0a00_0001 + (kk as u32 - 2)
                    } else {
                        0x0a00_0001 + kk as u32
                    },
                    port: if kk % 6 == 5 {
                        (n + rng.gen_range(0..8)) as u8
                    } else {
                        rng.gen_range(0..n) as u8
                    },
                }
            })
            .collect();
        Self {
            rng,
            n,
            k,
            routes,
            tx: (0..n).map(|_| None).collect(),
            out_q: vec![VecDeque::new(); n],
            req_q: vec![VecDeque::new(); n],
            cnt_q: vec![VecDeque::new(); n],
            counts: vec![Counts::default(); n],
            seen: Seen::default(),
        }
    }

    /// A new frame and its expected decision.
    fn new_frame(&mut self, now: u64) -> Tx {
        let dst: u32 = if self.rng.gen_bool(0.9) {
            0x0a00_0001 + self.rng.gen_range(0..self.n as u32)
        } else {
            self.rng.gen()
        };
        let f = random_frame(
            &mut self.rng,
            dst,
            self.k.bad_p,
            self.k.band_by_flags,
            &self.routes,
            self.n,
        );
        Tx {
            words: f.words,
            j: 0,
            want: f.want,
            t0: now,
            decided: false,
            kept: None,
            sent: Vec::new(),
        }
    }

    /// Checks the view of cycle `now` and returns the inputs of that cycle.
    pub fn step(&mut self, now: u64, v: &View) -> Result<Drive, String> {
        let n = self.n;
        for i in 0..n {
            let want = match self.out_q[i].front() {
                Some(&(t, w)) if t == now => {
                    self.out_q[i].pop_front();
                    Some(w)
                }
                _ => None,
            };
            if v.out[i] != want {
                return Err(format!(
                    "cycle {now}: input {i}: out {:?}, expected {want:?}",
                    v.out[i]
                ));
            }
            if want.is_some() {
                self.seen.words_out += 1;
            }
            let want = match self.req_q[i].front() {
                Some(&(t, r)) if t == now => {
                    self.req_q[i].pop_front();
                    Some(r)
                }
                _ => None,
            };
            if v.req[i] != want {
                return Err(format!(
                    "cycle {now}: input {i}: request {:?}, expected {want:?}",
                    v.req[i]
                ));
            }
            while let Some(&(t, c)) = self.cnt_q[i].front() {
                if t > now {
                    break;
                }
                self.cnt_q[i].pop_front();
                self.counts[i].count(c);
            }
            if v.stat[i] != self.counts[i] {
                return Err(format!(
                    "cycle {now}: input {i}: counters {:?}, expected {:?}",
                    v.stat[i], self.counts[i]
                ));
            }
        }
        let mut d = Drive {
            reset: false,
            rx: vec![None; n],
            route: self.routes.clone(),
            band_by_flags: self.k.band_by_flags,
        };
        if self.k.reset_p > 0.0 && self.rng.gen_bool(self.k.reset_p) {
            d.reset = true;
            for i in 0..n {
                self.tx[i] = None;
                self.out_q[i].clear();
                self.req_q[i].clear();
                self.cnt_q[i].clear();
                self.counts[i] = Counts::default();
            }
            return Ok(d);
        }
        for i in 0..n {
            if self.tx[i].is_none() && self.rng.gen_bool(self.k.load) {
                self.tx[i] = Some(self.new_frame(now));
            }
            let gap = self.rng.gen_bool(self.k.gap_p);
            let Some(f) = self.tx[i].as_mut() else {
                continue;
            };
            if f.j > 0 && gap {
                if f.j < 8 && !f.decided {
                    // the block decides when the first word is in stage 6: malformed
                    Self::decide(
                        &mut self.seen,
                        &mut self.cnt_q[i],
                        &mut self.req_q[i],
                        f,
                        Err(NotKept::Malformed),
                    );
                }
                continue;
            }
            let w = f.words.pop_front().expect("a frame has words left");
            if f.j == 0 {
                f.t0 = now;
            }
            d.rx[i] = Some(w);
            let short = f.j < 7 && w.1;
            let at7 = f.j == 7;
            f.j += 1;
            match f.kept {
                Some(true) => self.out_q[i].push_back((now + 9, w)),
                Some(false) => {}
                None => f.sent.push((now + 9, w)),
            }
            if !f.decided && (at7 || short) {
                let fate = if short {
                    Err(NotKept::Malformed)
                } else {
                    f.want
                };
                Self::decide(
                    &mut self.seen,
                    &mut self.cnt_q[i],
                    &mut self.req_q[i],
                    f,
                    fate,
                );
                if f.kept == Some(true) {
                    self.out_q[i].extend(f.sent.drain(..));
                }
            }
            if w.1 {
                self.tx[i] = None;
            }
        }
        Ok(d)
    }

    /// Records frame `f`'s fate: its counter (and request) 8 cycles after its first word.
    fn decide(
        seen: &mut Seen,
        cnt_q: &mut VecDeque<(u64, Result<(), NotKept>)>,
        req_q: &mut VecDeque<(u64, IngReq)>,
        f: &mut Tx,
        fate: Result<IngReq, NotKept>,
    ) {
        f.decided = true;
        let c = match fate {
            Ok(r) => {
                req_q.push_back((f.t0 + 8, r));
                seen.kept += 1;
                seen.bands[r.band as usize] += 1;
                f.kept = Some(true);
                Ok(())
            }
            Err(why) => {
                match why {
                    NotKept::Malformed => seen.malformed += 1,
                    NotKept::NoRoute => seen.no_route += 1,
                }
                f.kept = Some(false);
                Err(why)
            }
        };
        seen.frames += 1;
        cnt_q.push_back((f.t0 + 8, c));
    }

    /// What the run saw.
    pub fn finish(self) -> Box<Seen> {
        Box::new(self.seen)
    }
}
