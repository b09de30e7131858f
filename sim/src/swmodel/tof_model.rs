//! Cycle-exact plain-Rust model of Tofino-style trimming's policy block
//! ([`nt_hdl::stofino`]), written from its module documentation: the pipes of the inputs,
//! the outputs' modes, three meters per (pipe, output) read in P2, compared in P3, fed in
//! P5, and the deflected headers of each pipe. [`super::adm_model::AdmModel`] runs it
//! beside its lanes.
use crate::adm_workload::TofCfg;
use nt_hdl::stofino::MAX_PIPES;

const M24: u32 = 0xff_ffff;

/// What the policy reads of a lane's S1 registers.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pick {
    pub v: bool,
    pub ok: bool,
    pub out: u8,
    pub pipe: u8,
    pub bytes: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct P2 {
    v: bool,
    hx: Option<usize>,
    vq: [u32; 3],
    room: u32,
    bok: bool,
    by: u32,
    md: u8,
    dc: u16,
    p: u8,
}

#[derive(Clone, Copy, Debug, Default)]
struct P3 {
    red: bool,
    dok: bool,
    g: [bool; 3],
    hx: Option<usize>,
    by: u32,
    p: u8,
}

#[derive(Clone, Copy, Debug, Default)]
struct P4 {
    g: [bool; 3],
    hx: Option<usize>,
    by: u32,
    p: u8,
}

/// The model of `TofinoPolicy<N, K, ...>`.
pub struct TofModel {
    n: usize,
    pp: Vec<u8>,
    np: u8,
    tsum: u32,
    rem: Vec<u32>,
    md: Vec<u8>,
    vq: [Vec<u32>; 3],
    m5: [Vec<u32>; 3],
    dcnt: [u16; MAX_PIPES],
    d5: [u8; MAX_PIPES],
    p2: Vec<P2>,
    p3: Vec<P3>,
    p4: Vec<P4>,
}

impl TofModel {
    /// `n` ports in `k` lanes.
    pub fn new(n: usize, k: usize) -> Self {
        let pn = MAX_PIPES * n;
        Self {
            n,
            pp: vec![0; n],
            np: 0,
            tsum: 0,
            rem: vec![0; n],
            md: vec![0; n],
            vq: std::array::from_fn(|_| vec![0; pn]),
            m5: std::array::from_fn(|_| vec![0; pn]),
            dcnt: [0; MAX_PIPES],
            d5: [0; MAX_PIPES],
            p2: vec![P2::default(); k],
            p3: vec![P3::default(); k],
            p4: vec![P4::default(); k],
        }
    }

    /// Ports.
    pub fn ports(&self) -> usize {
        self.n
    }

    /// Input `i`'s pipe (`pipe_of`).
    pub fn pipe_of(&self, i: usize) -> u8 {
        self.pp[i]
    }

    /// Lane `l`'s P3: red at its mode's meter.
    pub fn red(&self, l: usize) -> bool {
        self.p3[l].red
    }

    /// Lane `l`'s P3: its pipe may deflect.
    pub fn dok(&self, l: usize) -> bool {
        self.p3[l].dok
    }

    /// The outputs' modes.
    pub fn modes(&self) -> Vec<u8> {
        self.md.clone()
    }

    /// The pipes' deflected headers.
    pub fn dod(&self) -> [u16; MAX_PIPES] {
        self.dcnt
    }

    /// One clock edge: the configuration, congestion signals per output, releases per
    /// pipe, the lanes' S1 picks and S4 deflections.
    pub fn clock(
        &mut self,
        c: &TofCfg,
        cong: &[bool],
        rel: &[bool; MAX_PIPES],
        q: &[Pick],
        dv: &[bool],
        reset: bool,
    ) {
        let n = self.n;
        // pipes
        let pipes = (c.pipes & 7).clamp(1, 4);
        let pp: Vec<u8> = (0..n)
            .map(|i| {
                if (1..=4).contains(&self.np) {
                    (i * self.np as usize / n) as u8
                } else {
                    0
                }
            })
            .collect();
        // modes
        let (t0, t1) = (c.t0 & M24, c.t1 & M24);
        let tsum = t0 + t1;
        let rem: Vec<u32> = (0..n)
            .map(|o| {
                if cong.get(o).copied().unwrap_or(false) {
                    self.tsum
                } else {
                    self.rem[o].saturating_sub(1)
                }
            })
            .collect();
        let md: Vec<u8> = self
            .rem
            .iter()
            .map(|&r| {
                if r > t1 {
                    2
                } else if r != 0 {
                    1
                } else {
                    0
                }
            })
            .collect();
        // P2, P3, P4
        let burst = c.burst & 0xf_ffff;
        let p2: Vec<P2> = q
            .iter()
            .map(|x| {
                let (o, p) = (x.out as usize, x.pipe as usize);
                let hx = (o < n).then_some(p * n + o);
                P2 {
                    v: c.on && x.v && x.ok && o < n,
                    hx,
                    vq: std::array::from_fn(|k| hx.map_or(0, |h| self.vq[k][h])),
                    room: burst.wrapping_sub(x.bytes) & M24,
                    bok: x.bytes <= burst,
                    by: x.bytes & M24,
                    md: if o < n { self.md[o] } else { 0 },
                    dc: self.dcnt[p],
                    p: x.pipe,
                }
            })
            .collect();
        let p3: Vec<P3> = self
            .p2
            .iter()
            .map(|x| {
                let g: [bool; 3] = std::array::from_fn(|k| x.bok && x.vq[k] <= x.room);
                let sel = match x.md {
                    1 => 1,
                    2 => 2,
                    _ => 0,
                };
                P3 {
                    red: x.v && !g[sel],
                    dok: x.v && x.dc < c.lim_dod,
                    g: g.map(|b| x.v && b),
                    hx: x.hx,
                    by: x.by,
                    p: x.p,
                }
            })
            .collect();
        let p4: Vec<P4> = self
            .p3
            .iter()
            .map(|x| P4 {
                g: x.g,
                hx: x.hx,
                by: x.by,
                p: x.p,
            })
            .collect();
        // P5: the lanes' green bytes per (pipe, output) and meter; the meters drain and add
        let pn = MAX_PIPES * n;
        let mut m5: [Vec<u32>; 3] = std::array::from_fn(|_| vec![0; pn]);
        for x in &self.p4 {
            for (m, &g) in m5.iter_mut().zip(&x.g) {
                if let (true, Some(h)) = (g, x.hx) {
                    m[h] = (m[h] + x.by) & M24;
                }
            }
        }
        let vq: [Vec<u32>; 3] = std::array::from_fn(|k| {
            let d = 8u32 >> k;
            (0..pn)
                .map(|h| (self.vq[k][h].saturating_sub(d) + self.m5[k][h]) & M24)
                .collect()
        });
        let mut d5 = [0u8; MAX_PIPES];
        for (l, x) in self.p4.iter().enumerate() {
            if dv[l] {
                d5[x.p as usize] = d5[x.p as usize].wrapping_add(1);
            }
        }
        let dcnt: [u16; MAX_PIPES] = std::array::from_fn(|p| {
            self.dcnt[p]
                .wrapping_add(self.d5[p] as u16)
                .wrapping_sub(rel[p] as u16)
        });
        self.pp = pp;
        self.np = pipes;
        self.tsum = tsum;
        self.rem = rem;
        self.md = md;
        self.p2 = p2;
        self.p3 = p3;
        self.p4 = p4;
        self.m5 = m5;
        self.vq = vq;
        self.d5 = d5;
        self.dcnt = dcnt;
        if reset {
            self.rem.iter_mut().for_each(|x| *x = 0);
            self.md.iter_mut().for_each(|x| *x = 0);
            for k in 0..3 {
                self.vq[k].iter_mut().for_each(|x| *x = 0);
                self.m5[k].iter_mut().for_each(|x| *x = 0);
            }
            self.dcnt = [0; MAX_PIPES];
            self.d5 = [0; MAX_PIPES];
            for l in 0..self.p2.len() {
                self.p2[l].v = false;
                self.p3[l].red = false;
                self.p3[l].dok = false;
                self.p3[l].g = [false; 3];
                self.p4[l].g = [false; 3];
            }
        }
    }
}
