//! Cycle-exact plain-Rust model of Bolt's switch policy ([`nt_hdl::sbolt`]), written from
//! its module documentation: per output the supply token `sm` (26 bits, the token plus
//! `2^24`) and the PRU tokens, the configuration's derived constants in registers, a
//! decision per lane read in P2, decided in P3 (against the lane's S2 read of the output's
//! queued bytes), carried through P4, summed per output in P5 and applied to the tokens.
//! [`super::adm_model::AdmModel`] runs it beside its lanes.
use crate::adm_workload::BoltCfgV;
use nt_hdl::sbolt::{SM_IDLE_CAP, SM_LAG, SM_OFF};
use nt_hdl::swif::{
    BOLT_DATA as F_DATA, BOLT_DEC as F_DEC, BOLT_FIRST as F_FIRST, BOLT_INC as F_INC,
    BOLT_LAST as F_LAST,
};

const M24: u32 = (1 << 24) - 1;
const M26: u32 = (1 << 26) - 1;
const OFF: u32 = SM_OFF as u32;
/// The idle cap of `sm` (the register's value).
const ICAP: u32 = (SM_OFF + SM_IDLE_CAP) as u32;

/// What the policy reads of a lane's S1 registers.
#[derive(Clone, Copy, Debug, Default)]
pub struct BoltPick {
    pub v: bool,
    pub ok: bool,
    pub out: u8,
    pub bytes: u32,
    pub bf: u8,
}

/// P2's registers: a Bolt data packet, its output, the tokens it read, `2^24 + MTU + L`,
/// `L` (26 bits), its flags.
#[derive(Clone, Copy, Debug, Default)]
struct P2 {
    v: bool,
    o: u8,
    s: u32,
    r: u8,
    lm: u32,
    by: u32,
    bf: u8,
}

/// P3's registers: the decision.
#[derive(Clone, Copy, Debug, Default)]
struct P3 {
    v: bool,
    o: u8,
    src: bool,
    bf: u8,
    q: u32,
    by: u32,
    /// A PRU token earned, spent; an SM token spent.
    g: bool,
    s: bool,
    c: bool,
}

/// P4's registers; `w` is the bytes plus the MTU the packet spent, if it spent one.
#[derive(Clone, Copy, Debug, Default)]
struct P4 {
    v: bool,
    o: u8,
    by: u32,
    w: u32,
    g: bool,
    s: bool,
    c: bool,
}

/// P5's sums of one output: a data packet, `ΣL + c·MTU - 8`, `ΣL + 2^24 + MTU + 32`, the
/// cap less `c` MTUs, PRU tokens earned and spent.
#[derive(Clone, Copy, Debug, Default)]
struct B5 {
    v: bool,
    z: u32,
    hi: u32,
    cap: u32,
    g: u8,
    s: u8,
}

/// The model of `BoltPolicy<N, K>`.
pub struct BoltModel {
    n: usize,
    smr: Vec<u32>,
    prur: Vec<u8>,
    k_lm: u32,
    k_mtu: u32,
    k_hi: u32,
    /// `k_cap[c]`: the supply cap less `c` MTUs, `c` = 0 to the lanes (at least 4 entries,
    /// the RTL's, which takes at most 3 lanes; the model takes more, for the simulated
    /// sizes above 24 ports).
    k_cap: Vec<u32>,
    p2: Vec<P2>,
    p3: Vec<P3>,
    p4: Vec<P4>,
    b5: Vec<B5>,
}

impl BoltModel {
    /// `n` ports in `k` lanes. Every register starts at 0 (a DFF's initial value): the
    /// supply tokens at `-2^24` until a reset.
    pub fn new(n: usize, k: usize) -> Self {
        assert!(k >= 1 && (1..=255).contains(&n));
        Self {
            n,
            // power-up: a token of 0 (the RTL keeps bit 24 inverted)
            smr: vec![OFF; n],
            prur: vec![0; n],
            k_lm: 0,
            k_mtu: 0,
            k_hi: 0,
            k_cap: vec![0; (k + 1).max(4)],
            p2: vec![P2::default(); k],
            p3: vec![P3::default(); k],
            p4: vec![P4::default(); k],
            b5: vec![B5::default(); n],
        }
    }

    /// Lane `l`'s P3: a Bolt data packet.
    pub fn bm(&self, l: usize) -> bool {
        self.p3[l].v
    }

    /// Lane `l`'s P3: an SRC.
    pub fn src(&self, l: usize) -> bool {
        self.p3[l].src
    }

    /// Lane `l`'s P3: the new flags (the request's when not a Bolt data packet).
    pub fn bf(&self, l: usize) -> u8 {
        self.p3[l].bf
    }

    /// Lane `l`'s P3: the output's queued bytes, saturated to 24 bits.
    pub fn q(&self, l: usize) -> u32 {
        self.p3[l].q
    }

    /// Per output, its PRU tokens.
    pub fn pru(&self) -> Vec<u8> {
        self.prur.clone()
    }

    /// Per output, its supply token (two's complement, 32 bits).
    pub fn sm(&self) -> Vec<u32> {
        self.smr.iter().map(|&s| s.wrapping_sub(OFF)).collect()
    }

    /// One clock edge: the configuration, the lanes' S1 registers and S2's read of the
    /// pick's output's queued bytes (all bands), reset.
    pub fn clock(&mut self, c: &BoltCfgV, q: &[BoltPick], pb: &[u32], reset: bool) {
        let n = self.n;
        let mtu = c.mtu as u32;
        let thresh = c.cc_thresh & M24;
        // the configuration's constants, a registered cascade
        let k_mtu = mtu;
        let k_lm = (OFF + mtu) & M26;
        let k_cap: Vec<u32> = (0..self.k_cap.len())
            .map(|x| match x {
                0 => (self.k_lm + 8 * SM_LAG as u32) & M26,
                _ => self.k_cap[x - 1].wrapping_sub(self.k_mtu) & M26,
            })
            .collect();
        let k_hi = self.k_cap[0].wrapping_sub(8) & M26;
        // P2: read the output's tokens
        let p2: Vec<P2> = q
            .iter()
            .map(|x| {
                let o = x.out as usize;
                let hit = o < n;
                let by = x.bytes & M26;
                P2 {
                    v: c.on && x.v && x.ok && hit && x.bf & F_DATA != 0,
                    o: x.out,
                    s: if hit { self.smr[o] } else { 0 },
                    r: if hit { self.prur[o] } else { 0 },
                    lm: (self.k_lm + by) & M26,
                    by,
                    bf: x.bf,
                }
            })
            .collect();
        // P3: decide
        let p3: Vec<P3> = self
            .p2
            .iter()
            .zip(pb)
            .map(|(x, &qb)| {
                let cong = qb >= thresh;
                let (mut bf, mut src, mut g, mut sp, mut cs) = (x.bf, false, false, false, false);
                if cong {
                    src = x.bf & F_DEC == 0;
                    if src {
                        bf = (x.bf | F_DEC) & !F_INC;
                    }
                } else if x.bf & F_LAST != 0 {
                    g = x.bf & F_FIRST == 0 && x.r < c.pru_cap;
                } else if x.bf & F_INC != 0 {
                    if x.r != 0 {
                        sp = true;
                    } else if !c.sm_off && x.s >= x.lm {
                        cs = true;
                    } else {
                        bf = x.bf & !F_INC;
                    }
                }
                P3 {
                    v: x.v,
                    o: x.o,
                    src: x.v && src,
                    bf: if x.v { bf } else { x.bf },
                    q: qb.min(M24),
                    by: x.by,
                    g: x.v && g,
                    s: x.v && sp,
                    c: x.v && cs,
                }
            })
            .collect();
        // P4
        let p4: Vec<P4> = self
            .p3
            .iter()
            .map(|x| P4 {
                v: x.v,
                o: x.o,
                by: x.by,
                w: if x.c { (x.by + self.k_mtu) & M26 } else { x.by },
                g: x.g,
                s: x.s,
                c: x.c,
            })
            .collect();
        // P5: per output the lanes' bytes, spends and tokens summed
        let b5: Vec<B5> = (0..n)
            .map(|o| {
                let (mut v, mut a, mut b, mut nc, mut ng, mut ns) = (false, 0u32, 0u32, 0, 0, 0);
                for x in self.p4.iter().filter(|x| x.v && x.o as usize == o) {
                    v = true;
                    a = (a + x.by) & M26;
                    b = (b + x.w) & M26;
                    nc += x.c as usize;
                    ng += x.g as u8;
                    ns += x.s as u8;
                }
                B5 {
                    v,
                    z: b.wrapping_sub(8) & M26,
                    hi: (a + self.k_hi) & M26,
                    cap: self.k_cap[nc],
                    g: ng,
                    s: ns,
                }
            })
            .collect();
        // the tokens: supply 8 bytes a cycle, less what P5 took; PRU tokens earned, spent
        let smr: Vec<u32> = (0..n)
            .map(|o| {
                let (s, x) = (self.smr[o], self.b5[o]);
                if !x.v {
                    (s + 8).min(ICAP)
                } else if s > x.hi {
                    x.cap
                } else {
                    s.saturating_sub(x.z)
                }
            })
            .collect();
        let prur: Vec<u8> = (0..n)
            .map(|o| {
                let x = self.b5[o];
                let t = self.prur[o] as i32 + x.g as i32 - x.s as i32;
                t.clamp(0, c.pru_cap as i32) as u8
            })
            .collect();
        self.k_mtu = k_mtu;
        self.k_lm = k_lm;
        self.k_cap = k_cap;
        self.k_hi = k_hi;
        self.p2 = p2;
        self.p3 = p3;
        self.p4 = p4;
        self.b5 = b5;
        self.smr = smr;
        self.prur = prur;
        if reset {
            self.smr.iter_mut().for_each(|x| *x = OFF);
            self.prur.iter_mut().for_each(|x| *x = 0);
            self.b5.iter_mut().for_each(|x| x.v = false);
            for x in &mut self.p2 {
                x.v = false;
            }
            for x in &mut self.p3 {
                (x.v, x.src, x.g, x.s, x.c) = (false, false, false, false, false);
            }
            for x in &mut self.p4 {
                (x.v, x.g, x.s, x.c) = (false, false, false, false);
            }
        }
    }
}
