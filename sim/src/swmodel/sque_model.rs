//! Cycle-exact plain-Rust model of the switch's queues and schedulers ([`nt_hdl::sque`]),
//! written from its module documentation: tag FIFOs and stages per input, a three-stage
//! enqueue per lane, linked-list queues per (lane, output, band), descriptor and link
//! memories read in time-division slots, per output a registered pick, and the
//! recirculation path of deflected headers (a FIFO per (lane, pipe), a server and a
//! return register per pipe).
use crate::sque_workload::{Drive, Meta, View};
use nt_hdl::sque::RECIRC_DEPTH;
use nt_hdl::stofino::MAX_PIPES;
use std::collections::VecDeque;

/// A stage's or L1's entry.
#[derive(Clone, Copy, Debug, Default)]
struct Ent {
    cell: u32,
    meta: Meta,
    out: u8,
    band: u8,
    bytes: u32,
    /// A deflected header, the frame's words (9 bits) and the input's pipe.
    dod: bool,
    words: u16,
    pipe: u8,
}

/// A tag: (out, band, bytes, dod, words).
type Tag = (u8, u8, u32, bool, u16);

/// A deflected header in a recirculation FIFO.
#[derive(Clone, Copy, Debug, Default)]
struct Rec {
    cell: u32,
    meta: Meta,
    out: u8,
    words: u16,
}

/// A pipe's server: the header it holds, its count, and the lane it came from.
#[derive(Clone, Copy, Debug, Default)]
struct Srv {
    count: u16,
    cell: u32,
    meta: Meta,
    out: u8,
    lane: usize,
}

/// A pipe's return register.
#[derive(Clone, Copy, Debug, Default)]
struct Rtn {
    cell: u32,
    meta: Meta,
    out: u8,
    lane: usize,
}

#[derive(Clone, Copy, Debug, Default)]
struct Q {
    hd: u32,
    tl: u32,
    cnt: u32,
    ne: bool,
    p: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Pick {
    lane: usize,
    band: usize,
    cell: u32,
    w: u8,
}

#[derive(Clone, Copy, Debug, Default)]
struct Ret {
    r: usize,
    lane: usize,
    cell: u32,
    band: u8,
}

/// The model of `SwitchQueues<N, K, ...>`.
pub struct SqueModel {
    n: usize,
    k: usize,
    m: usize,
    rp: usize,
    cmask: u32,
    ccmask: u32,
    tq: Vec<VecDeque<Tag>>,
    pp: Vec<bool>,
    st: Vec<Option<Ent>>,
    ptr: Vec<usize>,
    e1: Vec<Option<Ent>>,
    e2: Vec<Option<Ent>>,
    q: Vec<Q>,
    dm: Vec<Vec<Meta>>,
    dby: Vec<Vec<u32>>,
    nx: Vec<Vec<u32>>,
    /// Per (lane, replica): the read data (meta, bytes, link).
    rd: Vec<(Meta, u32, u32)>,
    ph: usize,
    /// A clock edge has passed (the slot flags are registered: none in the first cycle
    /// after power-up).
    started: bool,
    pk: Vec<Option<Pick>>,
    lp: Vec<usize>,
    wb: Vec<u8>,
    wu: Vec<u8>,
    ri: Vec<Option<Ret>>,
    /// The replica of the output's last slot (held whatever was issued).
    ri_r: Vec<Option<usize>>,
    dq: Vec<Option<(u32, Meta)>>,
    dp: Vec<VecDeque<(u8, u32)>>,
    ad: Vec<Option<(u8, u32)>>,
    lost: u32,
    /// Recirculation FIFOs at `l * MAX_PIPES + p`.
    rf: Vec<VecDeque<Rec>>,
    /// Per pipe: the server, the return register, the server's lane pointer.
    sv: [Option<Srv>; MAX_PIPES],
    rt: [Option<Rtn>; MAX_PIPES],
    sp: [usize; MAX_PIPES],
    /// The pulses (a cycle after a return was taken) and their count.
    rel: [bool; MAX_PIPES],
    cong: Vec<bool>,
    recirculated: u32,
}

impl SqueModel {
    /// `n` ports, `k` lanes, `ca` cell address bits, `rp` replicas.
    pub fn new(n: usize, k: usize, ca: usize, rp: usize) -> Self {
        let cells = 1usize << ca;
        Self {
            n,
            k,
            m: n / k,
            rp,
            cmask: (cells - 1) as u32,
            ccmask: (2 * cells - 1) as u32,
            tq: vec![VecDeque::new(); n],
            pp: vec![false; n],
            st: vec![None; n],
            ptr: vec![0; k],
            e1: vec![None; k],
            e2: vec![None; k],
            q: vec![Q::default(); k * n * 4],
            dm: vec![vec![Meta::default(); cells]; k],
            dby: vec![vec![0; cells]; k],
            nx: vec![vec![0; cells]; k],
            rd: vec![(Meta::default(), 0, 0); k * rp],
            ph: 0,
            started: false,
            pk: vec![None; n],
            lp: vec![0; n],
            wb: vec![0; n],
            wu: vec![0; n],
            ri: vec![None; n],
            ri_r: vec![None; n],
            dq: vec![None; n],
            dp: vec![VecDeque::new(); n],
            ad: vec![None; n],
            lost: 0,
            rf: vec![VecDeque::new(); k * MAX_PIPES],
            sv: [None; MAX_PIPES],
            rt: [None; MAX_PIPES],
            sp: [0; MAX_PIPES],
            rel: [false; MAX_PIPES],
            cong: vec![false; n],
            recirculated: 0,
        }
    }

    /// The outputs in the current cycle.
    pub fn view(&self) -> View {
        View {
            cp_pop: self.pp.clone(),
            dq: self.dq.clone(),
            adm_dep: self.ad.clone(),
            lost: self.lost,
            cong: self.cong.clone(),
            rel: self.rel,
            recirculated: self.recirculated,
        }
    }

    fn qx(&self, l: usize, o: usize, b: usize) -> usize {
        l * self.n * 4 + o * 4 + b
    }

    /// The output whose slot replica `r` serves in phase `ph`.
    fn owner(&self, r: usize) -> usize {
        (self.ph + r * (self.n / self.rp)) % self.n
    }

    /// One clock edge with inputs `d`.
    pub fn clock(&mut self, d: &Drive) {
        let (n, k, m, rp) = (self.n, self.k, self.m, self.rp);
        // a tag or a deflected header lost in this cycle (counted once per cycle)
        let mut lose = false;
        // ---- inputs: tags and stages ----
        let mut st = self.st.clone();
        let mut tq = self.tq.clone();
        for i in 0..n {
            if self.pp[i] {
                let (cell, meta) = d.cp[i].unwrap_or_default();
                let (out, band, bytes, dod, words) = tq[i].pop_front().unwrap_or_default();
                st[i] = Some(Ent {
                    cell: cell & self.cmask,
                    meta,
                    out,
                    band,
                    bytes,
                    dod,
                    words,
                    pipe: d.pipe_of.get(i).copied().unwrap_or(0) & 3,
                });
            }
            if let Some(v) = d.vd[i] {
                if v.admit {
                    if self.tq[i].len() == 16 {
                        lose = true;
                    } else {
                        tq[i].push_back((v.out, v.band & 3, v.bytes, v.dod, v.words & 0x1ff));
                    }
                }
            }
        }
        // ---- lanes: L1 pick (a return first), L2 (deflected headers to recirculation),
        // L3 enqueue ----
        let mut taken = vec![false; n];
        let mut e1 = vec![None; k];
        let mut ptr = self.ptr.clone();
        // per pipe: its return register taken by its lane in this cycle
        let mut granted = [false; MAX_PIPES];
        for l in 0..k {
            let ret = (0..MAX_PIPES).find(|&p| self.rt[p].is_some_and(|r| r.lane == l));
            if let Some(p) = ret {
                // the return is the lane's pick; the stages wait
                let r = self.rt[p].expect("found");
                granted[p] = true;
                e1[l] = Some(Ent {
                    cell: r.cell,
                    meta: r.meta,
                    out: r.out,
                    band: 0,
                    bytes: 64,
                    dod: false,
                    words: 0,
                    pipe: 0,
                });
                continue;
            }
            let valid = |x: usize| self.st[l * m + x].is_some();
            let first = (0..m).find(|&x| valid(x));
            let from = (0..m).find(|&x| valid(x) && x >= self.ptr[l]);
            if let Some(f) = first {
                let pick = from.unwrap_or(f);
                e1[l] = self.st[l * m + pick];
                st[l * m + pick] = None;
                taken[l * m + pick] = true;
                ptr[l] = if pick == m - 1 { 0 } else { pick + 1 };
            }
        }
        // L2: a deflected header goes into its (lane, pipe)'s recirculation FIFO, visible
        // from the next cycle; the others on to the enqueue
        let mut e2 = vec![None; k];
        let mut rf = self.rf.clone();
        for (l, (e1, e2)) in self.e1.iter().zip(e2.iter_mut()).enumerate() {
            match *e1 {
                Some(e) if e.dod => {
                    let x = l * MAX_PIPES + e.pipe as usize;
                    if self.rf[x].len() == RECIRC_DEPTH {
                        lose = true;
                    } else {
                        rf[x].push_back(Rec {
                            cell: e.cell,
                            meta: e.meta,
                            out: e.out,
                            words: e.words,
                        });
                    }
                }
                e => *e2 = e,
            }
        }
        // ---- servers (one per pipe) and return registers ----
        let mut sv = self.sv;
        let mut rt = self.rt;
        let mut sp = self.sp;
        for p in 0..MAX_PIPES {
            let done = self.sv[p].is_some_and(|s| s.count == 0);
            let moving = done && self.rt[p].is_none();
            let free = self.sv[p].is_none() || moving;
            if moving {
                let s = self.sv[p].expect("done");
                rt[p] = Some(Rtn {
                    cell: s.cell,
                    meta: s.meta,
                    out: s.out,
                    lane: s.lane,
                });
            }
            let ne = |l: usize| !self.rf[l * MAX_PIPES + p].is_empty();
            let first = (0..k).find(|&l| ne(l));
            if let (true, Some(f)) = (free, first) {
                let lane = (0..k).find(|&l| ne(l) && l >= self.sp[p]).unwrap_or(f);
                let h = rf[lane * MAX_PIPES + p].pop_front().expect("not empty");
                sv[p] = Some(Srv {
                    count: h.words.wrapping_sub(1) & 0x1ff,
                    cell: h.cell,
                    meta: h.meta,
                    out: h.out,
                    lane,
                });
                sp[p] = if lane == k - 1 { 0 } else { lane + 1 };
            } else if moving {
                sv[p] = None;
            } else if let Some(s) = sv[p].as_mut() {
                if s.count != 0 {
                    s.count -= 1;
                }
            }
            if granted[p] {
                rt[p] = None;
            }
        }
        let rel = granted;
        let mut cong = vec![false; n];
        for (&g, r) in granted.iter().zip(self.rt) {
            if let (true, Some(r)) = (g, r) {
                if (r.out as usize) < n {
                    cong[r.out as usize] = true;
                }
            }
        }
        let recirculated = self
            .recirculated
            .wrapping_add(self.rel.iter().filter(|&&x| x).count() as u32);
        if lose {
            self.lost = self.lost.wrapping_add(1);
        }
        // the enqueues (from e2), as (queue, cell)
        let mut enq: Vec<Option<(usize, u32)>> = vec![None; k];
        let mut nx_w: Vec<Option<(u32, u32)>> = vec![None; k];
        let mut dm_w: Vec<Option<(u32, Meta, u32)>> = vec![None; k];
        for l in 0..k {
            if let Some(e) = self.e2[l] {
                dm_w[l] = Some((e.cell, e.meta, e.bytes));
                if (e.out as usize) < n {
                    let x = self.qx(l, e.out as usize, e.band as usize);
                    enq[l] = Some((x, e.cell));
                    if self.q[x].ne {
                        nx_w[l] = Some((self.q[x].tl, e.cell));
                    }
                }
            }
        }
        // ---- slots and issues ----
        let mut slot: Vec<Option<usize>> = vec![None; n];
        if self.started {
            for r in 0..rp {
                slot[self.owner(r)] = Some(r);
            }
        }
        let iss: Vec<bool> = (0..n)
            .map(|o| slot[o].is_some() && self.pk[o].is_some() && d.dq_count[o] < 2)
            .collect();
        // reads (before this edge's writes)
        let mut rd = self.rd.clone();
        for l in 0..k {
            for r in 0..rp {
                let o = self.owner(r);
                let a = match self.pk[o] {
                    Some(p) if p.lane == l => p.cell,
                    _ => 0,
                } as usize;
                rd[l * rp + r] = (self.dm[l][a], self.dby[l][a], self.nx[l][a]);
            }
        }
        // ---- queues ----
        let mut q = self.q.clone();
        for l in 0..k {
            for o in 0..n {
                for b in 0..4 {
                    let x = self.qx(l, o, b);
                    let old = self.q[x];
                    let e = enq[l].filter(|(y, _)| *y == x).map(|(_, c)| c);
                    let dq = iss[o] && self.pk[o].is_some_and(|p| p.lane == l && p.band == b);
                    let one = old.cnt == 1;
                    let mut nq = old;
                    match (e.is_some(), dq) {
                        (true, false) => nq.cnt = (old.cnt + 1) & self.ccmask,
                        (false, true) => nq.cnt = old.cnt.wrapping_sub(1) & self.ccmask,
                        _ => {}
                    }
                    nq.ne = e.is_some() || (old.ne && !(dq && one));
                    nq.p = dq && old.ne && !one;
                    if let Some(c) = e {
                        nq.tl = c;
                    }
                    if old.p {
                        nq.hd = match self.ri_r[o] {
                            Some(r) => self.rd[l * rp + r].2,
                            None => 0,
                        };
                    } else if let Some(c) = e {
                        if !old.ne || (dq && one) {
                            nq.hd = c;
                        }
                    }
                    q[x] = nq;
                }
            }
        }
        // ---- picks, and what a dequeue moves ----
        let mut pk = vec![None; n];
        let mut lp = self.lp.clone();
        let mut wb = self.wb.clone();
        let mut wu = self.wu.clone();
        let mut ri = vec![None; n];
        let mut ri_r = self.ri_r.clone();
        for o in 0..n {
            let any: Vec<bool> = (0..4)
                .map(|b| (0..k).any(|l| self.q[self.qx(l, o, b)].ne))
                .collect();
            let bsb = (0..4).find(|&b| any[b]);
            let bsa = (0..4).find(|&b| any[b] && b as u8 >= self.wb[o]);
            let band = if d.wrr && bsa.is_some() { bsa } else { bsb };
            if let Some(b) = band {
                let le = |l: usize| self.q[self.qx(l, o, b)].ne;
                let first = (0..k).find(|&l| le(l)).expect("a band with a queue");
                let lane = (0..k).find(|&l| le(l) && l >= self.lp[o]).unwrap_or(first);
                pk[o] = Some(Pick {
                    lane,
                    band: b,
                    cell: self.q[self.qx(lane, o, b)].hd,
                    w: d.weight[b],
                });
            }
            ri_r[o] = slot[o];
            if iss[o] {
                let p = self.pk[o].expect("issued");
                lp[o] = if p.lane == k - 1 { 0 } else { p.lane + 1 };
                let wt = p.w.max(1);
                let nu = if p.band as u8 == self.wb[o] {
                    self.wu[o].wrapping_add(1)
                } else {
                    1
                };
                if nu >= wt {
                    wb[o] = (p.band as u8 + 1) & 3;
                    wu[o] = 0;
                } else {
                    wb[o] = p.band as u8;
                    wu[o] = nu;
                }
                ri[o] = Some(Ret {
                    r: slot[o].expect("a slot"),
                    lane: p.lane,
                    cell: p.cell,
                    band: p.band as u8,
                });
            }
        }
        // ---- the reads return; departures ----
        let mut dq = vec![None; n];
        let mut dp = self.dp.clone();
        let mut ad = vec![None; n];
        for o in 0..n {
            if d.dep[o] {
                if let Some(h) = dp[o].pop_front() {
                    ad[o] = Some(h);
                }
            }
            if let Some(x) = self.ri[o] {
                let (meta, by, _) = self.rd[x.lane * rp + x.r];
                dq[o] = Some((x.cell, meta));
                if self.dp[o].len() < 4 {
                    dp[o].push_back((x.band, by));
                }
            }
        }
        // completion pops
        let pp: Vec<bool> = (0..n)
            .map(|i| {
                d.cp[i].is_some()
                    && !self.tq[i].is_empty()
                    && !self.pp[i]
                    && (self.st[i].is_none() || taken[i])
            })
            .collect();
        // ---- memory writes ----
        for l in 0..k {
            if let Some((c, meta, by)) = dm_w[l] {
                self.dm[l][c as usize] = meta;
                self.dby[l][c as usize] = by;
            }
            if let Some((a, c)) = nx_w[l] {
                self.nx[l][a as usize] = c;
            }
        }
        self.st = st;
        self.tq = tq;
        self.ptr = ptr;
        self.e1 = e1;
        self.e2 = e2;
        self.q = q;
        self.rd = rd;
        self.pk = pk;
        self.lp = lp;
        self.wb = wb;
        self.wu = wu;
        self.ri = ri;
        self.ri_r = ri_r;
        self.dq = dq;
        self.dp = dp;
        self.ad = ad;
        self.pp = pp;
        self.rf = rf;
        self.sv = sv;
        self.rt = rt;
        self.sp = sp;
        self.rel = rel;
        self.cong = cong;
        self.recirculated = recirculated;
        self.ph = (self.ph + 1) % n;
        self.started = true;
        if d.reset {
            self.lost = 0;
            self.pp.iter_mut().for_each(|x| *x = false);
            self.st.iter_mut().for_each(|x| *x = None);
            self.ptr.iter_mut().for_each(|x| *x = 0);
            self.tq.iter_mut().for_each(VecDeque::clear);
            self.dp.iter_mut().for_each(VecDeque::clear);
            self.e1.iter_mut().for_each(|x| *x = None);
            self.e2.iter_mut().for_each(|x| *x = None);
            for x in &mut self.q {
                x.cnt = 0;
                x.ne = false;
                x.p = false;
            }
            self.ph = 0;
            self.lp.iter_mut().for_each(|x| *x = 0);
            self.pk.iter_mut().for_each(|x| *x = None);
            self.wb.iter_mut().for_each(|x| *x = 0);
            self.wu.iter_mut().for_each(|x| *x = 0);
            self.ri.iter_mut().for_each(|x| *x = None);
            self.dq.iter_mut().for_each(|x| *x = None);
            self.ad.iter_mut().for_each(|x| *x = None);
            self.rf.iter_mut().for_each(VecDeque::clear);
            self.sv = [None; MAX_PIPES];
            self.rt = [None; MAX_PIPES];
            self.sp = [0; MAX_PIPES];
            self.rel = [false; MAX_PIPES];
            self.cong.iter_mut().for_each(|x| *x = false);
            self.recirculated = 0;
        }
    }
}
