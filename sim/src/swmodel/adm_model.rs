//! Cycle-exact plain-Rust model of the switch's admission ([`nt_hdl::sadm`]), written
//! from its module documentation: holds, a four-stage pipeline per lane, the lanes'
//! admissions summed per (output, band) and per output (S5), counters per
//! (output, band) and per output, thresholds and the free cells less headroom, a cycle old.
//! The policy blocks run beside the lanes: Tofino-style trimming ([`TofModel`]) and Bolt
//! ([`BoltModel`]), which reads the lanes' S1 registers and S2's port bytes and answers in
//! its P3 registers, which S4 puts into the verdict.
use super::sbolt_model::{BoltModel, BoltPick};
use super::tof_model::{Pick, TofModel};
use crate::adm_workload::{Drive, Req, Verdict, View};
use nt_hdl::sadm::BANDS;

#[derive(Clone, Copy, Debug)]
struct S2 {
    i: usize,
    r: Req,
    ok: bool,
    cp: u16,
    cby: u32,
    lp: u16,
    /// The band's byte limit less the frame's bytes, and whether the frame fits it.
    room: u32,
    bok: bool,
    /// The output, all bands: packets, bytes; the port's byte limit less the frame's
    /// bytes, and whether the frame fits it.
    pcp: u16,
    pcby: u32,
    proom: u32,
    pbok: bool,
    /// The header's byte limit less 64, and whether 64 bytes fit it.
    room0: u32,
    ok0: bool,
    thr: u32,
    fit: bool,
    /// Band 0 of the output: packets, bytes (for a trimmed header).
    cp0: u16,
    cby0: u32,
    fit0: bool,
    /// Band 0 of the input's own port: packets, bytes (for a returned header).
    cpr: u16,
    cbyr: u32,
}

/// S3's registers: the request and what its compares found.
#[derive(Clone, Copy, Debug)]
struct S3 {
    i: usize,
    r: Req,
    /// It fits whole.
    fa: bool,
    /// Its header fits band 0 of its output (trimming on, trimmable).
    ft: bool,
    /// Its header fits band 0 of its input's own port (return on as well).
    fr: bool,
    /// Trimmable and well formed, to an existing output.
    tr: bool,
    /// Free cells for a header's 8 words (for a deflection).
    fd: bool,
}

/// The model of `Admission<N, K, ...>`.
pub struct AdmModel {
    n: usize,
    k: usize,
    m: usize,
    h: Vec<Option<Req>>,
    ptr: Vec<usize>,
    s1: Vec<Option<(usize, Req)>>,
    /// S1's pick's pipe (0 without a pick).
    s1p: Vec<u8>,
    s2: Vec<Option<S2>>,
    s3: Vec<Option<S3>>,
    s4: Vec<Option<(usize, u32)>>,
    /// S4 holds a refusal.
    s4r: Vec<bool>,
    /// S4 holds a trim (returned or not).
    s4t: Vec<bool>,
    /// S4 holds a return.
    s4rt: Vec<bool>,
    /// S4 holds a deflection; a trim because the frame was red at its meter.
    s4d: Vec<bool>,
    s4m: Vec<bool>,
    tof: TofModel,
    bolt: BoltModel,
    /// S4 holds an SRC; SRCs counted.
    s4src: Vec<bool>,
    c_src: u32,
    c_met: u32,
    c_dod: u32,
    vd: Vec<Option<Verdict>>,
    /// S5: per (output, band) the packets and bytes admitted in S4, summed over lanes.
    s5: Vec<(u16, u32)>,
    /// ... and per output.
    s5p: Vec<(u16, u32)>,
    occ_p: Vec<u16>,
    occ_b: Vec<u32>,
    pocc_p: Vec<u16>,
    pocc_b: Vec<u32>,
    thr: [u32; BANDS],
    fh: u16,
    c_adm: u32,
    c_ref: u32,
    c_lost: u32,
    c_trim: u32,
    c_ret: u32,
}

impl AdmModel {
    /// `n` ports in `k` lanes.
    pub fn new(n: usize, k: usize) -> Self {
        Self {
            n,
            k,
            m: n / k,
            h: vec![None; n],
            ptr: vec![0; k],
            s1: vec![None; k],
            s1p: vec![0; k],
            s2: vec![None; k],
            s3: vec![None; k],
            s4: vec![None; k],
            s4r: vec![false; k],
            s4t: vec![false; k],
            s4rt: vec![false; k],
            s4d: vec![false; k],
            s4m: vec![false; k],
            tof: TofModel::new(n, k),
            bolt: BoltModel::new(n, k),
            s4src: vec![false; k],
            c_src: 0,
            c_met: 0,
            c_dod: 0,
            vd: vec![None; n],
            s5: vec![(0, 0); n * BANDS],
            s5p: vec![(0, 0); n],
            occ_p: vec![0; n * BANDS],
            occ_b: vec![0; n * BANDS],
            pocc_p: vec![0; n],
            pocc_b: vec![0; n],
            thr: [0; BANDS],
            fh: 0,
            c_adm: 0,
            c_ref: 0,
            c_lost: 0,
            c_trim: 0,
            c_ret: 0,
        }
    }

    /// The outputs in the current cycle.
    pub fn view(&self) -> View {
        View {
            vd: self.vd.clone(),
            occ_pkts: self.occ_p.clone(),
            occ_bytes: self.occ_b.clone(),
            port_pkts: self.pocc_p.clone(),
            port_bytes: self.pocc_b.clone(),
            admitted: self.c_adm,
            refused: self.c_ref,
            trimmed: self.c_trim,
            returned: self.c_ret,
            lost: self.c_lost,
            mode: self.tof.modes(),
            dod: self.tof.dod(),
            metered: self.c_met,
            deflected: self.c_dod,
            pipe_of: (0..self.tof.ports()).map(|i| self.tof.pipe_of(i)).collect(),
            pru: self.bolt.pru(),
            sm: self.bolt.sm(),
            srcs: self.c_src,
        }
    }

    /// One clock edge with inputs `d`.
    pub fn clock(&mut self, d: &Drive) {
        let (n, m) = (self.n, self.m);
        let lgn = n.trailing_zeros();
        // free cells less headroom, thresholds
        let f16 = (d.free_rows & 0xffff) as u16;
        let fh = f16.saturating_sub(d.headroom);
        let fb32 = ((d.free_rows as u64) << (3 + lgn)) & 0xffff_ffff;
        let thr: [u32; BANDS] = std::array::from_fn(|b| {
            let a = d.band[b].dt_a.min(8) as u32;
            (((fb32 << a) & 0xffff_ffff) >> 4) as u32
        });
        let mut h = self.h.clone();
        let mut taken = vec![false; n];
        let mut ptr = self.ptr.clone();
        let mut s1 = vec![None; self.k];
        let mut s2 = vec![None; self.k];
        let mut s3 = vec![None; self.k];
        let mut s4 = vec![None; self.k];
        let mut s4r = vec![false; self.k];
        let mut s4t = vec![false; self.k];
        let mut s4rt = vec![false; self.k];
        let mut s4d = vec![false; self.k];
        let mut s4m = vec![false; self.k];
        let mut s4src = vec![false; self.k];
        let mut s1p = vec![0u8; self.k];
        // the statistics count the decisions in S4's registers
        for l in 0..self.k {
            if self.s4t[l] {
                self.c_trim = self.c_trim.wrapping_add(1);
            } else if self.s4[l].is_some() && !self.s4d[l] {
                self.c_adm = self.c_adm.wrapping_add(1);
            }
            if self.s4d[l] {
                self.c_dod = self.c_dod.wrapping_add(1);
            }
            if self.s4m[l] {
                self.c_met = self.c_met.wrapping_add(1);
            }
            if self.s4r[l] {
                self.c_ref = self.c_ref.wrapping_add(1);
            }
            if self.s4rt[l] {
                self.c_ret = self.c_ret.wrapping_add(1);
            }
            if self.s4src[l] {
                self.c_src = self.c_src.wrapping_add(1);
            }
        }
        let mut vd = vec![None; n];
        for l in 0..self.k {
            // S1
            let valid = |x: usize| self.h[l * m + x].is_some();
            let first = (0..m).find(|&x| valid(x));
            let from_ptr = (0..m).find(|&x| valid(x) && x >= self.ptr[l]);
            if let Some(fb) = first {
                let pick = from_ptr.unwrap_or(fb);
                let i = l * m + pick;
                s1[l] = Some((i, self.h[i].expect("valid")));
                s1p[l] = self.tof.pipe_of(i);
                h[i] = None;
                taken[i] = true;
                ptr[l] = if pick == m - 1 { 0 } else { pick + 1 };
            }
            // S2
            if let Some((i, r)) = self.s1[l] {
                let (o, b) = (r.out as usize, r.band as usize);
                let (cp, cby, cp0, cby0, pcp, pcby) = if o < n {
                    (
                        self.occ_p[o * BANDS + b],
                        self.occ_b[o * BANDS + b],
                        self.occ_p[o * BANDS],
                        self.occ_b[o * BANDS],
                        self.pocc_p[o],
                        self.pocc_b[o],
                    )
                } else {
                    (0, 0, 0, 0, 0, 0)
                };
                let cells = (r.words.wrapping_add((n - 1) as u16)) >> lgn;
                s2[l] = Some(S2 {
                    i,
                    r,
                    ok: r.ok && o < n,
                    cp,
                    cby,
                    lp: d.band[b].lim_pkts,
                    room: d.band[b].lim_bytes.wrapping_sub(r.bytes),
                    bok: r.bytes <= d.band[b].lim_bytes,
                    pcp,
                    pcby,
                    proom: d.port.bytes.wrapping_sub(r.bytes),
                    pbok: r.bytes <= d.port.bytes,
                    room0: d.hdr.bytes.wrapping_sub(64),
                    ok0: d.hdr.bytes >= 64,
                    thr: self.thr[b],
                    fit: self.fh >= cells,
                    cp0,
                    cby0,
                    fit0: self.fh >= 8u16.div_ceil(n as u16),
                    cpr: self.occ_p[i * BANDS],
                    cbyr: self.occ_b[i * BANDS],
                });
            }
            // S3: compare
            if let Some(x) = self.s2[l] {
                let fa = x.ok
                    && x.cp < x.lp
                    && x.bok
                    && x.cby <= x.room
                    && x.fit
                    && x.pcp < d.port.pkts
                    && x.pbok
                    && x.pcby <= x.proom
                    && (!d.dt_on || x.cby < x.thr);
                // band 0 of an output with these counters takes a 64-byte header
                let band0_takes = |cp: u16, cby: u32| {
                    cp < d.hdr.pkts
                        && x.ok0
                        && cby <= x.room0
                        && x.fit0
                        && (!d.dt_on || cby < self.thr[0])
                };
                let hdr_ok = (d.trim_on || d.tof.on) && x.r.trim && x.ok;
                s3[l] = Some(S3 {
                    i: x.i,
                    r: x.r,
                    fa,
                    ft: hdr_ok && band0_takes(x.cp0, x.cby0),
                    fr: hdr_ok && d.ret_on && band0_takes(x.cpr, x.cbyr),
                    tr: x.r.trim && x.ok,
                    fd: x.fit0,
                });
            }
            // S4: decide: whole, else its header into band 0 of the output, else back to
            // the sender into band 0 of the input's own port, else refused
            if let Some(x) = self.s3[l] {
                // Tofino-style: red at its meter, the header's way; else whole; else
                // deflected. Ideal: whole, else the header's way.
                let tof = d.tof.on;
                let mt = tof && x.tr && self.tof.red(l);
                let adm = x.fa && !mt;
                let ht = mt || (!tof && !x.fa);
                let trim = ht && x.ft;
                let ret = ht && !x.ft && x.fr;
                let dod = tof && !mt && !x.fa && x.tr && x.fd && self.tof.dok(l);
                let hdr = trim || ret || dod;
                let (band, bytes) = if hdr { (0, 64) } else { (x.r.band, x.r.bytes) };
                let out = if ret { x.i as u8 } else { x.r.out };
                vd[x.i] = Some(Verdict {
                    admit: adm || hdr,
                    words: x.r.words & 0x1ff,
                    empty: x.r.empty,
                    out,
                    band,
                    bytes,
                    trim: hdr,
                    csum: x.r.csum,
                    ret,
                    rb: x.r.rb,
                    dod,
                    bm: self.bolt.bm(l),
                    src: self.bolt.src(l),
                    bf: self.bolt.bf(l),
                    q: self.bolt.q(l),
                });
                s4src[l] = self.bolt.src(l);
                if adm || hdr {
                    s4[l] = Some((out as usize * BANDS + band as usize, bytes));
                    s4t[l] = trim || ret;
                    s4rt[l] = ret;
                    s4d[l] = dod;
                    s4m[l] = mt && (trim || ret);
                } else {
                    s4r[l] = true;
                }
            }
        }
        let mut lost = false;
        for i in 0..n {
            if let Some(r) = d.req[i] {
                lost |= self.h[i].is_some() && !taken[i];
                h[i] = Some(r);
            }
        }
        if lost {
            self.c_lost = self.c_lost.wrapping_add(1);
        }
        // counters
        let mut s5 = vec![(0u16, 0u32); n * BANDS];
        for (x, by) in self.s4.iter().flatten() {
            s5[*x].0 = s5[*x].0.wrapping_add(1);
            s5[*x].1 = s5[*x].1.wrapping_add(*by);
        }
        let mut s5p = vec![(0u16, 0u32); n];
        for (x, by) in self.s4.iter().flatten() {
            s5p[*x / BANDS].0 = s5p[*x / BANDS].0.wrapping_add(1);
            s5p[*x / BANDS].1 = s5p[*x / BANDS].1.wrapping_add(*by);
        }
        let mut occ_p = self.occ_p.clone();
        let mut occ_b = self.occ_b.clone();
        let mut pocc_p = self.pocc_p.clone();
        let mut pocc_b = self.pocc_b.clone();
        for (x, &(p, by)) in self.s5.iter().enumerate() {
            occ_p[x] = occ_p[x].wrapping_add(p);
            occ_b[x] = occ_b[x].wrapping_add(by);
        }
        for (o, &(p, by)) in self.s5p.iter().enumerate() {
            pocc_p[o] = pocc_p[o].wrapping_add(p);
            pocc_b[o] = pocc_b[o].wrapping_add(by);
        }
        for (o, dep) in d.dep.iter().enumerate() {
            if let Some((b, by)) = dep {
                let x = o * BANDS + *b as usize;
                occ_p[x] = occ_p[x].wrapping_sub(1);
                occ_b[x] = occ_b[x].wrapping_sub(*by);
                pocc_p[o] = pocc_p[o].wrapping_sub(1);
                pocc_b[o] = pocc_b[o].wrapping_sub(*by);
            }
        }
        // the policy block, from the lanes' S1 and S4 registers before this edge
        let picks: Vec<Pick> = (0..self.k)
            .map(|l| match self.s1[l] {
                Some((_, r)) => Pick {
                    v: true,
                    ok: r.ok,
                    out: r.out,
                    pipe: self.s1p[l],
                    bytes: r.bytes,
                },
                None => Pick::default(),
            })
            .collect();
        self.tof
            .clock(&d.tof, &d.cong, &d.rel, &picks, &self.s4d, d.reset);
        let bpicks: Vec<BoltPick> = self
            .s1
            .iter()
            .map(|x| match x {
                Some((_, r)) => BoltPick {
                    v: true,
                    ok: r.ok,
                    out: r.out,
                    bytes: r.bytes,
                    bf: r.bf,
                },
                None => BoltPick::default(),
            })
            .collect();
        // S2's read of the pick's output's bytes (without a pick: not seen in a verdict)
        let pb: Vec<u32> = self.s2.iter().map(|x| x.map_or(0, |x| x.pcby)).collect();
        self.bolt.clock(&d.bolt, &bpicks, &pb, d.reset);
        self.s4src = s4src;
        self.s1p = s1p;
        self.s4d = s4d;
        self.s4m = s4m;
        self.h = h;
        self.ptr = ptr;
        self.s1 = s1;
        self.s2 = s2;
        self.s3 = s3;
        self.s4 = s4;
        self.s4r = s4r;
        self.s4t = s4t;
        self.s4rt = s4rt;
        self.vd = vd;
        self.s5 = s5;
        self.s5p = s5p;
        self.occ_p = occ_p;
        self.occ_b = occ_b;
        self.pocc_p = pocc_p;
        self.pocc_b = pocc_b;
        self.thr = thr;
        self.fh = fh;
        if d.reset {
            self.h.iter_mut().for_each(|x| *x = None);
            self.vd.iter_mut().for_each(|x| *x = None);
            self.ptr.iter_mut().for_each(|x| *x = 0);
            self.s1.iter_mut().for_each(|x| *x = None);
            self.s2.iter_mut().for_each(|x| *x = None);
            self.s3.iter_mut().for_each(|x| *x = None);
            self.s4.iter_mut().for_each(|x| *x = None);
            self.s4r.iter_mut().for_each(|x| *x = false);
            self.s4t.iter_mut().for_each(|x| *x = false);
            self.s4rt.iter_mut().for_each(|x| *x = false);
            self.s4d.iter_mut().for_each(|x| *x = false);
            self.s4m.iter_mut().for_each(|x| *x = false);
            self.c_met = 0;
            self.c_dod = 0;
            self.c_src = 0;
            self.s4src.iter_mut().for_each(|x| *x = false);
            self.s5.iter_mut().for_each(|x| *x = (0, 0));
            self.occ_p.iter_mut().for_each(|x| *x = 0);
            self.occ_b.iter_mut().for_each(|x| *x = 0);
            self.s5p.iter_mut().for_each(|x| *x = (0, 0));
            self.pocc_p.iter_mut().for_each(|x| *x = 0);
            self.pocc_b.iter_mut().for_each(|x| *x = 0);
            self.c_adm = 0;
            self.c_ref = 0;
            self.c_lost = 0;
            self.c_trim = 0;
            self.c_ret = 0;
        }
    }
}
