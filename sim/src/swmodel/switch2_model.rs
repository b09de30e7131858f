//! Cycle-exact plain-Rust model of the new switch ([`nt_hdl::switch2`]): the models of
//! its four blocks, wired as the top wires the blocks. Every signal between two blocks
//! leaves a register of its sender, so each cycle every block's inputs are the other
//! blocks' outputs read at the start of the cycle.
use super::adm_model::AdmModel;
use super::sbuf_model::SbufModel;
use super::sing_model::SingModel;
use super::sque_model::SqueModel;
use crate::adm_workload::{self as aw, BandCfg, Req};
use crate::sbuf_workload::{self as bw, Desc};
use crate::sing_workload as iw;
use crate::sque_workload::{self as qw, Meta, Vd};
use crate::switch2_workload::{Drive, Stats, View};

/// The model of `SharedSwitch<N, ...>`.
pub struct Switch2Model {
    n: usize,
    ing: SingModel,
    adm: AdmModel,
    buf: SbufModel,
    que: SqueModel,
    full: Vec<u32>,
    /// The deflection limit the admission sees (registered, held to the recirculation
    /// FIFOs), and its cap.
    lim_dod: u16,
    dod_cap: u16,
}

impl Switch2Model {
    /// `n` ports, `k` lanes, `ca` cell address bits, `r` row registers, `rp` replicas.
    pub fn new(n: usize, k: usize, ca: usize, r: usize, rp: usize) -> Self {
        Self {
            n,
            ing: SingModel::new(n),
            adm: AdmModel::new(n, k),
            buf: SbufModel::new(n, ca, r),
            que: SqueModel::new(n, k, ca, rp),
            full: vec![0; n],
            lim_dod: 0,
            dod_cap: nt_hdl::sque::recirc_dod_cap(k) as u16,
        }
    }

    /// The outputs in the current cycle.
    pub fn view(&self) -> View {
        let (iv, av, bv, qv) = (
            self.ing.view(),
            self.adm.view(),
            self.buf.view(),
            self.que.view(),
        );
        View {
            tx: bv.out.iter().map(|o| o.tx).collect(),
            stat: (0..self.n)
                .map(|p| {
                    let c = iv.stat[p];
                    Stats {
                        rx_frames: c.rx_frames,
                        drop_malformed: c.drop_malformed,
                        drop_no_route: c.drop_no_route,
                        fwd: c.fwd,
                        drop_full: self.full[p],
                        ovr: bv.inp[p].ovr,
                        bad: bv.inp[p].bad,
                        tx_frames: bv.out[p].tx_frames,
                        trimmed: bv.inp[p].trimmed,
                        returned: bv.inp[p].returned,
                        deflected: bv.inp[p].deflected,
                        src_sent: bv.inp[p].src_sent,
                        src_drop: bv.inp[p].src_drop,
                    }
                })
                .collect(),
            occ_pkts: av.occ_pkts,
            occ_bytes: av.occ_bytes,
            port_pkts: av.port_pkts,
            port_bytes: av.port_bytes,
            admitted: av.admitted,
            refused: av.refused,
            trimmed: av.trimmed,
            returned: av.returned,
            lost: av.lost.wrapping_add(qv.lost),
            mode: av.mode,
            dod: av.dod,
            metered: av.metered,
            deflected: av.deflected,
            recirculated: qv.recirculated,
            pru: av.pru,
            sm: av.sm,
            srcs: av.srcs,
        }
    }

    /// One clock edge with inputs `d`.
    pub fn clock(&mut self, d: &Drive) {
        let n = self.n;
        let (iv, av, bv, qv) = (
            self.ing.view(),
            self.adm.view(),
            self.buf.view(),
            self.que.view(),
        );
        let band: [BandCfg; 4] = std::array::from_fn(|b| BandCfg {
            lim_pkts: d.band[b].lim_pkts,
            lim_bytes: d.band[b].lim_bytes,
            dt_a: d.band[b].dt_a,
        });
        self.ing.clock(&iw::Drive {
            reset: d.reset,
            rx: d.rx.clone(),
            route: d.route.clone(),
            band_by_flags: d.band_by_flags,
        });
        self.adm.clock(&aw::Drive {
            reset: d.reset,
            req: iv
                .req
                .iter()
                .map(|r| {
                    r.map(|q| Req {
                        out: q.out,
                        band: q.band,
                        bytes: q.bytes,
                        words: q.words,
                        empty: q.empty,
                        ok: true,
                        trim: q.trim,
                        csum: q.csum,
                        rb: q.rb,
                        bf: q.bf,
                    })
                })
                .collect(),
            dep: qv.adm_dep.clone(),
            band,
            dt_on: d.dt_on,
            trim_on: d.trim,
            ret_on: d.ret,
            free_rows: bv.free_rows,
            headroom: d.headroom,
            port: d.port,
            hdr: d.hdr,
            tof: aw::TofCfg {
                lim_dod: self.lim_dod,
                ..d.tof
            },
            cong: qv.cong.clone(),
            rel: qv.rel,
            bolt: d.bolt,
        });
        self.lim_dod = d.tof.lim_dod.min(self.dod_cap);
        self.buf.clock(&bw::Drive {
            reset: d.reset,
            link_rate: d.link_rate,
            inp: (0..n)
                .map(|i| bw::InDrive {
                    rx: iv.out[i],
                    vd: av.vd[i].map(|v| bw::Vd {
                        admit: v.admit,
                        words: v.words,
                        empty: v.empty,
                        trim: v.trim,
                        csum: v.csum,
                        ret: v.ret,
                        dod: v.dod,
                        rb: v.rb,
                        bm: v.bm,
                        bf: v.bf,
                        src: v.src,
                        q: v.q,
                    }),
                    cp_pop: qv.cp_pop[i],
                })
                .collect(),
            out: (0..n)
                .map(|o| bw::OutDrive {
                    dq: qv.dq[o].map(|(cell, m)| Desc {
                        cell,
                        s: m.s,
                        words: m.words,
                        empty: m.empty,
                        bad: m.bad,
                    }),
                    ready: d.ready[o],
                })
                .collect(),
        });
        self.que.clock(&qw::Drive {
            reset: d.reset,
            vd: av
                .vd
                .iter()
                .map(|v| {
                    v.map(|v| Vd {
                        admit: v.admit,
                        out: v.out,
                        band: v.band,
                        bytes: v.bytes,
                        dod: v.dod,
                        words: v.words,
                    })
                })
                .collect(),
            cp: bv
                .inp
                .iter()
                .map(|x| {
                    x.cp.map(|c| {
                        (
                            c.cell,
                            Meta {
                                s: c.s,
                                words: c.words,
                                empty: c.empty,
                                bad: c.bad,
                            },
                        )
                    })
                })
                .collect(),
            dq_count: bv.out.iter().map(|o| o.dq_count).collect(),
            dep: bv.out.iter().map(|o| o.dep).collect(),
            wrr: d.wrr,
            weight: std::array::from_fn(|b| d.band[b].weight),
            pipe_of: av.pipe_of.clone(),
        });
        for i in 0..n {
            if av.vd[i].is_some_and(|v| !v.admit) {
                self.full[i] = self.full[i].wrapping_add(1);
            }
            if d.reset {
                self.full[i] = 0;
            }
        }
    }
}
