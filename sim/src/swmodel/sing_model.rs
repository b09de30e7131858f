//! Cycle-exact plain-Rust model of the switch's ingress ([`nt_hdl::sing`]), written from
//! its module documentation: an 8-stage delay line, header fields captured as their words
//! arrive, two registered stages of lookup, the decision when a first word is in stage 6.
use crate::sing_workload::{Counts, Drive, IngReq, NotKept, View, Word};

#[derive(Clone, Copy, Default)]
struct Stage {
    v: bool,
    first: bool,
    w: Word,
}

#[derive(Clone, Copy, Default)]
struct Fields {
    eth: u16,
    vih: u8,
    tos: u8,
    len: u32,
    proto: u8,
    dhi: u16,
    dlo: u16,
    flags: u8,
    csum: u16,
    /// Word 1 bits 63:32 (the source MAC's last 4 bytes).
    smt: u32,
    /// Word 6 bits 15:8 (Bolt's flags).
    bf: u8,
}

#[derive(Clone, Default)]
struct P1 {
    m: Vec<bool>,
    hok: bool,
    by: u32,
    b: u8,
    t: bool,
    our: bool,
    /// ~checksum + ~length + 50, before the end-around carries.
    cs: u32,
}

#[derive(Clone, Copy, Default)]
struct P2 {
    found: bool,
    port: u8,
    hok: bool,
    by: u32,
    w: u16,
    e: u8,
    b: u8,
    t: bool,
    our: bool,
    cs: u16,
}

#[derive(Clone, Default)]
struct Input {
    infr: bool,
    wi: u8,
    s: [Stage; 8],
    f: Fields,
    p1: P1,
    p2: P2,
    keep: bool,
    out: Option<Word>,
    /// The last request's fields (held while `rq_v` is low).
    rq: IngReq,
    rq_v: bool,
    c: Counts,
}

/// The model of `SwitchIngress<N, ..>`.
pub struct SingModel {
    n: usize,
    inp: Vec<Input>,
}

impl SingModel {
    /// `n` ports.
    pub fn new(n: usize) -> Self {
        let i = Input {
            p1: P1 {
                m: vec![false; n],
                ..P1::default()
            },
            ..Input::default()
        };
        Self { n, inp: vec![i; n] }
    }

    /// The outputs in the current cycle.
    pub fn view(&self) -> View {
        View {
            out: self.inp.iter().map(|x| x.out).collect(),
            req: self.inp.iter().map(|x| x.rq_v.then_some(x.rq)).collect(),
            stat: self.inp.iter().map(|x| x.c).collect(),
        }
    }

    /// One clock edge with inputs `d`.
    pub fn clock(&mut self, d: &Drive) {
        let n = self.n;
        for (i, x) in self.inp.iter_mut().enumerate() {
            let old = x.clone();
            let rx = d.rx[i].filter(|_| !d.reset);
            // delay line
            for k in (1..8).rev() {
                x.s[k] = old.s[k - 1];
            }
            x.s[0] = Stage {
                v: rx.is_some(),
                first: rx.is_some() && !old.infr,
                w: rx.unwrap_or_default(),
            };
            if let Some((data, last, _)) = rx {
                x.infr = !last;
                if !old.infr {
                    x.wi = 1;
                } else if old.wi < 8 {
                    x.wi = old.wi + 1;
                }
                if old.infr {
                    match old.wi {
                        1 => {
                            x.f.eth = (data >> 16) as u16;
                            x.f.vih = (data >> 8) as u8;
                            x.f.tos = data as u8;
                            x.f.smt = (data >> 32) as u32;
                        }
                        2 => {
                            x.f.len = (data >> 48) as u32;
                            x.f.proto = data as u8;
                        }
                        3 => {
                            x.f.dhi = data as u16;
                            x.f.csum = (data >> 48) as u16;
                        }
                        4 => {
                            x.f.dlo = (data >> 48) as u16;
                            x.f.flags = (data >> 40) as u8;
                        }
                        6 => x.f.bf = (data >> 8) as u8,
                        _ => {}
                    }
                }
            }
            // P1
            let dst = (old.f.dhi as u32) << 16 | old.f.dlo as u32;
            x.p1.m = d.route.iter().map(|r| r.valid && r.ip == dst).collect();
            x.p1.hok = old.f.eth == 0x0800 && old.f.vih == 0x45 && (50..=1074).contains(&old.f.len);
            x.p1.by = old.f.len.wrapping_add(14);
            x.p1.b = if d.band_by_flags {
                if old.f.proto == 154 || old.f.proto == 155 {
                    u8::from(old.f.flags & 1 != 0 && old.f.flags & 0x10 == 0)
                } else {
                    3
                }
            } else {
                (old.f.tos >> 2).min(3)
            };
            x.p1.our = old.f.proto == 154 || old.f.proto == 155;
            x.p1.t = (old.f.proto == 154 || old.f.proto == 155) && old.f.flags & 0x11 == 0x01;
            x.p1.cs = (!old.f.csum) as u32 + (!(old.f.len as u16)) as u32 + 50;
            // P2
            let cf1 = (old.p1.cs & 0xffff) + (old.p1.cs >> 16);
            let cf2 = (cf1 & 0xffff) + (cf1 >> 16);
            let hit = old.p1.m.iter().position(|&m| m);
            x.p2 = P2 {
                found: hit.is_some(),
                port: hit.map_or(0, |k| d.route[k].port),
                hok: old.p1.hok,
                by: old.p1.by,
                w: (old.p1.by.wrapping_add(7) >> 3) as u16,
                e: (0u32.wrapping_sub(old.p1.by) & 7) as u8,
                b: old.p1.b,
                t: old.p1.t,
                our: old.p1.our,
                cs: !(cf2 as u16),
            };
            // the decision
            x.rq_v = false;
            if old.s[6].v && old.s[6].first {
                let eight = (0..7).all(|k| old.s[k].v && !old.s[k].w.1) && rx.is_some();
                let routed = old.p2.found && (old.p2.port as usize) < n;
                x.keep = eight && old.p2.hok && routed;
                if !(eight && old.p2.hok) {
                    x.c.count(Err(NotKept::Malformed));
                } else if !routed {
                    x.c.count(Err(NotKept::NoRoute));
                } else {
                    x.c.count(Ok(()));
                    x.rq_v = true;
                    x.rq = IngReq {
                        out: old.p2.port,
                        band: old.p2.b,
                        bytes: old.p2.by,
                        words: old.p2.w,
                        empty: old.p2.e,
                        trim: old.p2.t,
                        csum: old.p2.cs,
                        rb: (old.f.smt as u64) << 16 | old.f.dlo as u64,
                        bf: if old.p2.our { old.f.bf } else { 0 },
                    };
                }
            }
            // out of s7
            x.out = (old.s[7].v && old.keep).then_some(old.s[7].w);
            if d.reset {
                x.infr = false;
                x.wi = 0;
                x.keep = false;
                x.out = None;
                x.rq_v = false;
                x.c = Counts::default();
                for s in &mut x.s {
                    s.v = false;
                }
            }
        }
    }
}
