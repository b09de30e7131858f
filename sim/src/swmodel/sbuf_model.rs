//! Cycle-exact plain-Rust model of the shared packet buffer ([`nt_hdl::sbuf`]), written
//! from its module documentation: the same registers, FIFOs (ideal: a push is visible at
//! the head a cycle later, a push into a full FIFO is ignored) and RAMs (registered reads
//! that read before the write of the same edge). Up to 16 ports it is the RTL's; above, as
//! the simulator runs it, its data FIFOs ([`df_depth`]) and bank replicas ([`replicas`])
//! grow with `N`.
use crate::sbuf_workload::{Desc, Drive, InView, OutView, Vd, View};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, Default)]
struct Word {
    data: u64,
    last: bool,
    empty: u8,
    ovr: bool,
}

#[derive(Clone, Default)]
struct Input {
    df: VecDeque<Word>,
    vq: VecDeque<Vd>,
    ring: VecDeque<u32>,
    cq: VecDeque<Desc>,
    /// A completion on its way into `cq` (pushed a cycle after the writer makes it).
    cp: Option<Desc>,
    /// That completion is a trimmed header's, returned, deflected.
    cp_k: (bool, bool, bool),
    i_ovr: bool,
    c_ovr: u32,
    /// Bad completions (counted as they go into `cq`).
    c_bad: u32,
    /// Trimmed headers completed good; of those returned and deflected.
    c_trm: u32,
    c_ret: u32,
    c_dod: u32,
    lastc: u8,
    w_act: bool,
    w_adm: bool,
    w_row: bool,
    w_j: u16,
    w_col: u8,
    w_s: u8,
    w_cur: u32,
    w_head: u32,
    w_words: u16,
    w_emp: u8,
    w_trim: bool,
    /// A trimmed frame past its header (`w_tt`): the rest is popped and counted, and the
    /// header completes at the frame's last word, good only if the whole frame had the
    /// verdict's length (`w_fw` words, `w_fe` empty; `w_fj` words popped so far).
    w_tt: bool,
    w_fw: u16,
    w_fe: u8,
    w_fj: u16,
    w_cs: u16,
    w_ret: bool,
    w_dod: bool,
    w_rb: u64,
    /// The previous word written.
    w_pv: u64,
    wr_en: bool,
    wr_addr: u32,
    wr_data: u64,
    wl_en: bool,
    wl_addr: u32,
    wl_data: u32,
    /// The cell of the row before the current one (with `w_hp`), and the second link's write.
    w_prv: u32,
    w_hp: bool,
    wl2_en: bool,
    wl2_addr: u32,
    /// Bolt: the frame's flags rewrite and q_size; its SRC being built, words popped (to
    /// 8); a captured word, the one before, its index; the slot written (base); counters.
    w_bm: bool,
    w_bf: u8,
    w_q: u32,
    g_src: bool,
    g_j: u8,
    g_v: bool,
    g_w: u64,
    g_pw: u64,
    g_k: u8,
    s_wp: u8,
    c_src: u32,
    c_sdrop: u32,
}

#[derive(Clone, Copy, Default)]
struct Rd {
    en: bool,
    addr: u32,
    rep: u8,
    cap: bool,
    last: bool,
    k: u8,
    n: u8,
    s: u8,
    emp: u8,
    /// The read's link (first row of a packet with a second) and second link are wanted.
    l1: bool,
    l2: bool,
}

#[derive(Clone, Default)]
struct Output {
    dq: VecDeque<Desc>,
    r_act: bool,
    /// The cells of the next rows to read, as known (`v0`, `v1`).
    c0: u32,
    c1: u32,
    v0: bool,
    v1: bool,
    first: bool,
    r_left: u16,
    r_s: u8,
    r_bad: bool,
    r_emp: u8,
    r_wk: u8,
    rd: Rd,
    p: Rd,
    /// The read a cycle after its row came back, as the registered bank data and links
    /// hold its row and links.
    q: Rd,
    dep: bool,
    rw: Vec<Vec<u64>>,
    rv: Vec<bool>,
    rn: Vec<u8>,
    rl: Vec<bool>,
    re: Vec<u8>,
    x_k: u8,
    x_n: u8,
    t_valid: bool,
    t_data: u64,
    t_last: bool,
    t_empty: u8,
    c_tx: u32,
    /// Mid-packet; sending an SRC, its next word.
    x_mid: bool,
    y_act: bool,
    y_n: u8,
}

/// The model of `SharedBuffer<N, CA, ..., R, ...>`.
pub struct SbufModel {
    n: usize,
    r: usize,
    /// The data FIFO's words ([`df_depth`]).
    df: usize,
    /// Replicas of the banks and link RAMs ([`replicas`]), and the cells each one's free
    /// list starts with.
    rb: usize,
    half: u32,
    ph: u8,
    fl: Vec<VecDeque<u32>>,
    fresh: Vec<u32>,
    c_free: u32,
    inp: Vec<Input>,
    out: Vec<Output>,
    bank: Vec<Vec<u64>>,
    link: Vec<Vec<u32>>,
    link2: Vec<Vec<u32>>,
    /// Registered read data of replica r, bank b: `bank_rd[r * N + b]`.
    bank_rd: Vec<u64>,
    link_rd: Vec<u32>,
    link2_rd: Vec<u32>,
    /// The banks' and link RAMs' read data, registered.
    bank_r: Vec<u64>,
    lk_r: Vec<u32>,
    lk2_r: Vec<u32>,
    /// Per port: the SRC slots (4 of 8 words), their registered read data, the slot sent
    /// (base), the slots committed.
    srm: Vec<[u64; 32]>,
    srm_rd: Vec<u64>,
    s_rp: Vec<u8>,
    s_c: Vec<u8>,
}

/// The data FIFO's words at `n` ports: the RTL's 64 (`nt_hdl::sbuf::DF_A`) up to 32
/// ports. A row starts when the FIFO holds `n` words, which a 64-word FIFO that pushes up
/// to 63 does not at 64 ports: there the model's FIFO holds `2n` (the RTL would need
/// `DF_A = 7`), with the same rules at its top (a word pushed while it holds at most
/// depth - 2, a last word at depth - 1).
pub fn df_depth(n: usize) -> usize {
    (1usize << nt_hdl::sbuf::DF_A).max(if n > 16 { 4 * n } else { 0 })
}

/// Replicas of the banks and link RAMs at `n` ports, each with its free list: the RTL's 2
/// up to 16 ports. Each replica gives every input a cell and every output a row read once
/// in `n` cycles, and a frame of 8 words takes a cell of its own, so at line rate an
/// input needs a cell, and an output a row, every 8 cycles: above 16 ports the model has
/// `n / 8` replicas (the RTL is built at 4 and 16 ports).
pub fn replicas(n: usize) -> usize {
    2.max(n / 8)
}
const VQ_DEPTH: usize = 64;
const CQ_DEPTH: usize = 8;

/// Word `k` (0 to 4) of a header returned to its sender, from the frame's word `d`, the
/// word before it `pw`, the verdict's later bytes `rb` and checksum `cs`: addresses and
/// ports swapped, IPv4 length 50; word 4's transport flags 0 (the writer ORs in the
/// frame's with CHOP, an SRC keeps 0).
fn returned_word(k: u8, d: u64, pw: u64, rb: u64, cs: u16) -> u64 {
    match k {
        0 => (d & 0xffff) << 48 | (rb & 0xffff_ffff_0000) | (d >> 48) & 0xfeff,
        1 => (pw >> 16) << 32 | (d & 0xffff_ffff),
        2 => (d & ((1 << 48) - 1)) | (50 << 48),
        3 => (cs as u64) << 48 | (d & 0xffff) << 32 | (rb & 0xffff) << 16 | (d >> 32) & 0xffff,
        _ => {
            ((pw >> 16) & 0xffff) << 48
                | (d & 0xff)
                | ((d >> 8) & 0xffff) << 24
                | ((d >> 24) & 0xffff) << 8
        }
    }
}

fn push_fifo<T>(q: &mut VecDeque<T>, depth: usize, pre_len: usize, v: T) {
    if pre_len < depth {
        q.push_back(v);
    }
}

impl SbufModel {
    /// `n` ports, `2^ca` cells, `r` row registers per output.
    pub fn new(n: usize, ca: usize, r: usize) -> Self {
        let cells = 1usize << ca;
        let out = Output {
            rw: vec![vec![0; n]; r],
            rv: vec![false; r],
            rn: vec![0; r],
            rl: vec![false; r],
            re: vec![0; r],
            ..Default::default()
        };
        Self {
            n,
            r,
            df: df_depth(n),
            rb: replicas(n),
            half: (cells / replicas(n)) as u32,
            ph: 0,
            fl: vec![VecDeque::new(); replicas(n)],
            fresh: vec![0; replicas(n)],
            c_free: 0,
            inp: vec![Input::default(); n],
            out: vec![out; n],
            bank: vec![vec![0; cells]; n],
            link: vec![vec![0; cells]; n],
            link2: vec![vec![0; cells]; n],
            bank_rd: vec![0; replicas(n) * n],
            link_rd: vec![0; replicas(n) * n],
            link2_rd: vec![0; replicas(n) * n],
            bank_r: vec![0; replicas(n) * n],
            lk_r: vec![0; replicas(n) * n],
            lk2_r: vec![0; replicas(n) * n],
            srm: vec![[0; 32]; n],
            srm_rd: vec![0; n],
            s_rp: vec![0; n],
            s_c: vec![0; n],
        }
    }

    /// The outputs in the current cycle (they depend on registers only).
    pub fn view(&self) -> View {
        View {
            inp: self
                .inp
                .iter()
                .map(|x| InView {
                    cp: x.cq.front().copied(),
                    ovr: x.c_ovr,
                    bad: x.c_bad,
                    trimmed: x.c_trm,
                    returned: x.c_ret,
                    deflected: x.c_dod,
                    src_sent: x.c_src,
                    src_drop: x.c_sdrop,
                })
                .collect(),
            out: self
                .out
                .iter()
                .map(|y| OutView {
                    dq_count: y.dq.len() as u8,
                    tx: y.t_valid.then_some((y.t_data, y.t_last, y.t_empty)),
                    dep: y.dep,
                    tx_frames: y.c_tx,
                })
                .collect(),
            free_rows: self.c_free,
        }
    }

    /// One clock edge with inputs `d`.
    pub fn clock(&mut self, d: &Drive) {
        let n = self.n;
        let nmask = (n - 1) as u8;
        let rmask = (self.r - 1) as u8;
        let ph = self.ph;
        // what the RAMs show this cycle (read in the last one)
        let cur_bank_r = std::mem::replace(&mut self.bank_r, self.bank_rd.clone());
        let cur_link_rd = self.link_rd.clone();
        let cur_link2_rd = self.link2_rd.clone();
        let cur_lk_r = std::mem::replace(&mut self.lk_r, cur_link_rd);
        let cur_lk2_r = std::mem::replace(&mut self.lk2_r, cur_link2_rd);
        // free lists: what each offers
        let rb = self.rb;
        let fok: Vec<bool> = (0..rb)
            .map(|r| self.fresh[r] < self.half || !self.fl[r].is_empty())
            .collect();
        let fcell: Vec<u32> = (0..rb)
            .map(|r| {
                if self.fresh[r] < self.half {
                    self.fresh[r] | (r as u32 * self.half)
                } else {
                    self.fl[r].front().copied().unwrap_or(0)
                }
            })
            .collect();
        let mut ftake = vec![false; rb];

        // ---------------- inputs ----------------
        let mut next_in = self.inp.clone();
        for i in 0..n {
            let x = &self.inp[i];
            let nx = &mut next_in[i];
            let di = d.inp[i];
            let df_len = x.df.len();
            // data FIFO push
            let push = match di.rx {
                Some((_, last, _)) => {
                    (df_len < self.df - 1 && !x.i_ovr) || (last && df_len < self.df)
                }
                None => false,
            };
            if let Some((_, last, _)) = di.rx {
                if !push {
                    nx.c_ovr = x.c_ovr.wrapping_add(1);
                    nx.i_ovr = !last;
                }
                if last {
                    nx.i_ovr = false;
                }
            }
            // writer
            let hw = x.df.front().copied().unwrap_or_default();
            let hv = x.vq.front().copied().unwrap_or_default();
            let bnext = (ph.wrapping_add(((1 + i) % n) as u8)) & nmask;
            let mut pop = false;
            let mut vq_pop = false;
            let mut ring_pop = false;
            let mut cq_push = false;
            nx.cp = None;
            nx.wr_en = false;
            nx.wl_en = false;
            nx.wl2_en = false;
            // an idle writer takes the next verdict and may write the first word at once
            let take = !x.w_act && !x.df.is_empty() && !x.vq.is_empty() && x.cq.len() < 4;
            let (mut act, mut adm, mut words, mut emp, mut j, mut row) =
                (x.w_act, x.w_adm, x.w_words, x.w_emp, x.w_j, x.w_row);
            if take {
                vq_pop = true;
                // trimmed: 8 words, the last full
                let (vw, ve) = if hv.trim {
                    (8, 0)
                } else {
                    (hv.words, hv.empty)
                };
                (act, adm, words, emp, j, row) = (true, hv.admit, vw, ve, 0, false);
                nx.w_act = true;
                nx.w_adm = hv.admit;
                nx.w_words = vw;
                nx.w_emp = ve;
                nx.w_trim = hv.trim;
                nx.w_tt = false;
                nx.w_fw = hv.words;
                nx.w_fe = hv.empty;
                nx.w_cs = hv.csum;
                nx.w_ret = hv.ret;
                nx.w_dod = hv.dod;
                nx.w_rb = hv.rb;
                nx.w_bm = hv.bm;
                nx.w_bf = hv.bf;
                nx.w_q = hv.q;
                nx.w_row = false;
                nx.w_j = 0;
                nx.w_col = 0;
            }
            let j0 = j == 0;
            let j1 = (j + 1) & 0x1ff;
            let ring_head = x.ring.front().copied().unwrap_or(0);
            let heff = if j0 { ring_head } else { x.w_head };
            let seff = if j0 { bnext } else { x.w_s };
            let mut cpe = hw.empty;
            let mut cpb = hw.ovr || j1 != words || hw.empty != emp;
            // the whole frame against its verdict (a trimmed frame's check)
            let (trim, fw, fe, fj, tt) = if take {
                (hv.trim, hv.words, hv.empty, 0, false)
            } else {
                (x.w_trim, x.w_fw, x.w_fe, x.w_fj, x.w_tt)
            };
            let fj1 = (fj + 1) & 0x1ff;
            let whole_bad = hw.ovr || fj1 != fw || hw.empty != fe;
            let mut cpw = j1;
            if act && !adm && !x.df.is_empty() {
                pop = true;
                if hw.last {
                    nx.w_act = false;
                }
                // a trimmed frame's tail: its header completes at the frame's last word
                // (or, longer than its verdict, at the verdict's last as bad)
                if tt && (hw.last || fj1 == fw) {
                    cq_push = true;
                    cpw = 8;
                    cpe = 0;
                    cpb = !hw.last || whole_bad;
                    nx.w_tt = false;
                }
            }
            if act && adm {
                let start = !row
                    && !x.df.is_empty()
                    && !x.ring.is_empty()
                    && (df_len >= n || x.lastc != 0)
                    && (j0 || bnext == x.w_s);
                let go = row || start;
                let addr = if start { ring_head } else { x.w_cur };
                if go {
                    pop = true;
                    nx.wr_en = true;
                    nx.wr_addr = addr;
                    // a trimmed header: IPv4 length 50, its checksum, CHOP set; returned,
                    // MACs, IPs and ports swapped (later bytes from `rb`, earlier ones from
                    // the previous word)
                    let d = hw.data;
                    let (ret, rb) = if take {
                        (hv.ret, hv.rb)
                    } else {
                        (x.w_trim && x.w_ret, x.w_rb)
                    };
                    let rw = |k| returned_word(k, d, x.w_pv, rb, x.w_cs);
                    nx.wr_data = match (x.w_trim && !take, j) {
                        _ if take && ret => rw(0),
                        (true, 0 | 1 | 3) if ret => rw(j as u8),
                        (true, 2) => rw(2),
                        (true, 3) => (d & ((1 << 48) - 1)) | ((x.w_cs as u64) << 48),
                        // the flags kept, CHOP set
                        (true, 4) if ret => rw(4) | (d & (0xff << 40)) | (0x10 << 40),
                        (true, 4) => d | (0x10 << 40),
                        // Bolt: a data packet's new flags
                        (_, 6) if x.w_bm && !take => (d & !0xff00) | (x.w_bf as u64) << 8,
                        _ => d,
                    };
                    nx.w_pv = d;
                    nx.w_j = j1;
                    nx.w_col = if j0 { 1 } else { (x.w_col + 1) & nmask };
                    if start {
                        ring_pop = true;
                        nx.w_cur = ring_head;
                        if j0 {
                            nx.w_s = bnext;
                            nx.w_head = ring_head;
                            nx.w_hp = false;
                        } else {
                            nx.wl_en = true;
                            nx.wl_addr = x.w_cur;
                            nx.wl_data = ring_head;
                            nx.wl2_en = x.w_hp;
                            nx.wl2_addr = x.w_prv;
                            nx.w_prv = x.w_cur;
                            nx.w_hp = true;
                        }
                    }
                    if hw.last {
                        cq_push = true;
                        cpb = cpb || (trim && whole_bad);
                        nx.w_act = false;
                        nx.w_row = false;
                    } else if j1 == words {
                        if x.w_trim && !take {
                            // a trimmed frame's header is written: the rest is checked
                            nx.w_tt = true;
                        } else {
                            cq_push = true;
                            cpe = emp;
                            cpb = true;
                        }
                        nx.w_adm = false;
                        nx.w_row = false;
                    } else {
                        nx.w_row = j0 || x.w_col != nmask;
                    }
                }
            }
            // Bolt: the SRC's words, captured as popped; a cycle later rewritten into the
            // port's slot (below), committed at word 7
            let (gj, gsrc) = if take {
                (0, hv.src && self.s_c[i] < 3)
            } else {
                (x.g_j, x.g_src)
            };
            if take {
                nx.g_src = gsrc;
                nx.g_j = 0;
                if hv.src && self.s_c[i] >= 3 {
                    nx.c_sdrop = x.c_sdrop.wrapping_add(1);
                }
            }
            nx.g_v = false;
            if pop && gj < 8 {
                nx.g_j = gj + 1;
                if gsrc {
                    nx.g_v = true;
                    nx.g_w = hw.data;
                    nx.g_pw = x.g_w;
                    nx.g_k = gj;
                }
            }
            if x.g_v && x.g_k == 7 {
                nx.s_wp = (x.s_wp + 8) & 31;
                nx.c_src = x.c_src.wrapping_add(1);
            }
            // lastc
            let push_last = push && di.rx.map(|w| w.1).unwrap_or(false);
            let pop_last = pop && hw.last;
            if push_last && !pop_last {
                nx.lastc = x.lastc + 1;
            } else if pop_last && !push_last {
                nx.lastc = x.lastc.wrapping_sub(1);
            }
            // ring refill
            let ring_len = x.ring.len();
            let mut ring_push = None;
            for r in 0..rb {
                if ph as usize == (i + n - r * n / rb) % n && ring_len < 4 && fok[r] {
                    ring_push = Some(fcell[r]);
                    ftake[r] = true;
                }
            }
            // FIFO edges
            let vq_len = x.vq.len();
            let cq_len = x.cq.len();
            if pop && !nx.df.is_empty() {
                nx.df.pop_front();
            }
            if pop {
                nx.w_fj = fj1;
            } else if take {
                nx.w_fj = 0;
            }
            if push {
                let (data, last, empty) = di.rx.expect("pushed word");
                push_fifo(
                    &mut nx.df,
                    self.df,
                    df_len,
                    Word {
                        data,
                        last,
                        empty,
                        ovr: x.i_ovr,
                    },
                );
            }
            if vq_pop && !nx.vq.is_empty() {
                nx.vq.pop_front();
            }
            if let Some(v) = di.vd {
                push_fifo(&mut nx.vq, VQ_DEPTH, vq_len, v);
            }
            if ring_pop && !nx.ring.is_empty() {
                nx.ring.pop_front();
            }
            if let Some(c) = ring_push {
                push_fifo(&mut nx.ring, 4, ring_len, c);
            }
            if di.cp_pop && !nx.cq.is_empty() {
                nx.cq.pop_front();
            }
            if let Some(dsc) = x.cp {
                push_fifo(&mut nx.cq, CQ_DEPTH, cq_len, dsc);
                if dsc.bad {
                    nx.c_bad = x.c_bad.wrapping_add(1);
                }
                // a trimmed header counts once its frame proved its length
                let (t, r, dd) = x.cp_k;
                if !dsc.bad && t {
                    nx.c_trm = x.c_trm.wrapping_add(1);
                    nx.c_ret = x.c_ret.wrapping_add(u32::from(r));
                    nx.c_dod = x.c_dod.wrapping_add(u32::from(dd));
                }
            }
            if cq_push {
                nx.cp_k = if take {
                    (hv.trim, hv.ret, hv.dod)
                } else {
                    (x.w_trim, x.w_ret, x.w_dod)
                };
                nx.cp = Some(Desc {
                    cell: heff,
                    s: seff,
                    words: cpw,
                    empty: cpe,
                    bad: cpb,
                });
            }
        }

        // ---------------- Bolt: SRC slot reads (before the writes), writes ----------------
        let cur_srm_rd = self.srm_rd.clone();
        for o in 0..n {
            let y = &self.out[o];
            let can = !y.t_valid || d.out[o].ready;
            let ya = match (y.y_act, can) {
                (false, _) => 0,
                (true, false) => y.y_n,
                (true, true) => (y.y_n + 1) & 7,
            };
            self.srm_rd[o] = self.srm[o][(self.s_rp[o] | ya) as usize];
        }
        let mut sinc = vec![false; n];
        for i in 0..n {
            let x = &self.inp[i];
            if !x.g_v {
                continue;
            }
            let (w, pw, rb) = (x.g_w, x.g_pw, x.w_rb);
            let sw = match x.g_k {
                // the returned header's words, transport flags 0
                0..=4 => returned_word(x.g_k, w, pw, rb, x.w_cs),
                6 => {
                    (w & 0xffff_0000_0000_00ff)
                        | (x.w_q as u64 & 0xff_ffff) << 24
                        | (d.link_rate as u64) << 16
                        | 0x20 << 8
                }
                _ => w,
            };
            self.srm[i][(x.s_wp | x.g_k) as usize] = sw;
            sinc[i] = x.g_k == 7;
        }

        // ---------------- banks: writes, reads, frees ----------------
        // reads first (read before write)
        let mut ra = vec![0u32; rb];
        let mut ren = vec![false; rb];
        for r in 0..rb {
            let o = (ph as usize + r * n / rb) % n;
            ra[r] = self.out[o].rd.addr;
            ren[r] = self.out[o].rd.en;
            for b in 0..n {
                self.bank_rd[r * n + b] = self.bank[b][ra[r] as usize];
                self.link_rd[r * n + b] = self.link[b][ra[r] as usize];
                self.link2_rd[r * n + b] = self.link2[b][ra[r] as usize];
            }
        }
        for i in 0..n {
            let x = &self.inp[i];
            let b = (ph as usize + i) % n;
            if x.wr_en {
                self.bank[b][x.wr_addr as usize] = x.wr_data;
            }
            if x.wl_en {
                self.link[b][x.wl_addr as usize] = x.wl_data;
            }
            if x.wl2_en {
                self.link2[b][x.wl2_addr as usize] = x.wl_data;
            }
        }
        let c_free_next = (0..rb)
            .map(|r| self.fl[r].len() as u32 + (self.half - self.fresh[r]))
            .sum::<u32>();
        for r in 0..rb {
            if ftake[r] {
                if self.fresh[r] < self.half {
                    self.fresh[r] += 1;
                } else {
                    self.fl[r].pop_front();
                }
            }
            if ren[r] {
                self.fl[r].push_back(ra[r]);
            }
        }
        self.c_free = c_free_next;

        // ---------------- outputs ----------------
        let mut next_out = self.out.clone();
        for o in 0..n {
            let y = &self.out[o];
            let ny = &mut next_out[o];
            let dy = d.out[o];
            let dq_len = y.dq.len();
            let mut dq_pop = false;
            // a read a cycle after it returned: its row and links, registered
            let rep = y.q.rep as usize;
            let qx = rep * n + y.q.s as usize;
            let (lka, lkb) = (cur_lk_r[qx], cur_lk2_r[qx]);
            if y.q.en && y.q.cap {
                let k = y.q.k as usize;
                if k < self.r {
                    ny.rv[k] = true;
                    ny.rn[k] = y.q.n;
                    ny.rl[k] = y.q.last;
                    ny.re[k] = y.q.emp;
                    for w in 0..n {
                        let c = (y.q.s as usize + w) % n;
                        ny.rw[k][w] = cur_bank_r[rep * n + c];
                    }
                }
            }
            // reader
            // replica r's slot: its read of the cycle after serves output o
            let slot = (0..rb).find(|&r| ph as usize == (o + 2 * n - r * n / rb - 1) % n);
            let free = !y.rv[y.r_wk as usize];
            let issue = y.r_act && slot.is_some() && y.v0 && (y.r_bad || free);
            // the known cells: an issue takes the first, a returned read adds its links
            let mut mv0 = y.v0;
            if issue {
                mv0 = y.v1;
                ny.c0 = y.c1;
                ny.v0 = y.v1;
                ny.v1 = false;
            }
            let (q_l1, q_l2) = (y.q.en && y.q.l1, y.q.en && y.q.l2);
            if q_l1 {
                ny.c0 = lka;
                ny.v0 = true;
                ny.c1 = lkb;
                ny.v1 = q_l2;
            } else if q_l2 {
                if mv0 {
                    ny.c1 = lkb;
                    ny.v1 = true;
                } else {
                    ny.c0 = lkb;
                    ny.v0 = true;
                }
            }
            ny.rd.en = false;
            ny.rd.l1 = false;
            ny.rd.l2 = false;
            if !y.r_act {
                if let Some(h) = y.dq.front() {
                    dq_pop = true;
                    ny.r_act = true;
                    ny.c0 = h.cell;
                    ny.v0 = true;
                    ny.v1 = false;
                    ny.first = true;
                    ny.r_left = h.words;
                    ny.r_s = h.s;
                    ny.r_bad = h.bad;
                    ny.r_emp = h.empty;
                }
            } else if issue {
                ny.rd.en = true;
                ny.rd.addr = y.c0;
                ny.rd.l1 = y.first && y.r_left > n as u16;
                ny.rd.l2 = y.r_left > 2 * n as u16;
                ny.first = false;
                ny.rd.rep = slot.unwrap_or(0) as u8;
                ny.rd.cap = !y.r_bad;
                ny.rd.k = y.r_wk;
                ny.rd.s = y.r_s;
                ny.rd.emp = y.r_emp;
                ny.r_left = y.r_left.wrapping_sub(n as u16) & 0x1ff;
                if y.r_left <= n as u16 {
                    ny.rd.last = true;
                    ny.rd.n = y.r_left as u8;
                    ny.r_act = false;
                } else {
                    ny.rd.last = false;
                    ny.rd.n = n as u8;
                }
                if !y.r_bad {
                    ny.r_wk = (y.r_wk + 1) & rmask;
                }
            }
            ny.p = y.rd;
            ny.q = y.p;
            ny.dep = y.rd.en && y.rd.last;
            // serializer
            let can = !y.t_valid || dy.ready;
            let k = y.x_k as usize;
            let (lrv, lrn, lrl, lre) = if k < self.r {
                (y.rv[k], y.rn[k], y.rl[k], y.re[k])
            } else {
                (false, 0, false, 0)
            };
            let word = if k < self.r && (y.x_n as usize) < n {
                y.rw[k][y.x_n as usize]
            } else {
                0
            };
            let rowend = y.x_n.wrapping_add(1) == lrn;
            // Bolt: a committed SRC goes at a packet boundary (a cycle to read its word 0)
            let ys = can && !y.y_act && !y.x_mid && self.s_c[o] != 0;
            let cr = can && !y.y_act && !ys;
            let mut sdec = false;
            if ys {
                ny.t_valid = false;
                ny.t_last = false;
                ny.y_act = true;
                ny.y_n = 0;
            }
            if y.y_act && can {
                ny.t_valid = true;
                ny.t_data = cur_srm_rd[o];
                ny.t_last = false;
                ny.t_empty = 0;
                ny.y_n = y.y_n + 1;
                if y.y_n == 7 {
                    ny.t_last = true;
                    ny.y_act = false;
                    self.s_rp[o] = (self.s_rp[o] + 8) & 31;
                    sdec = true;
                }
            }
            match (sinc[o], sdec) {
                (true, false) => self.s_c[o] += 1,
                (false, true) => self.s_c[o] -= 1,
                _ => {}
            }
            if cr {
                ny.t_valid = lrv;
                ny.t_data = 0;
                ny.t_last = false;
                ny.t_empty = 0;
                if lrv {
                    ny.t_data = word;
                    ny.x_mid = !(rowend && lrl);
                    ny.x_n = y.x_n.wrapping_add(1);
                    if rowend {
                        ny.x_n = 0;
                        ny.x_k = (y.x_k + 1) & rmask;
                        ny.rv[k] = false;
                        if lrl {
                            ny.t_last = true;
                            ny.t_empty = lre;
                        }
                    }
                }
            }
            if y.t_valid && dy.ready && y.t_last {
                ny.c_tx = y.c_tx.wrapping_add(1);
            }
            // FIFO edges
            if dq_pop {
                ny.dq.pop_front();
            }
            if let Some(dsc) = dy.dq {
                push_fifo(&mut ny.dq, 2, dq_len, dsc);
            }
        }
        self.inp = next_in;
        self.out = next_out;
        self.ph = (ph + 1) & nmask;

        if d.reset {
            self.ph = 0;
            self.c_free = 0;
            self.fresh.iter_mut().for_each(|f| *f = 0);
            self.fl.iter_mut().for_each(|f| f.clear());
            for x in &mut self.inp {
                x.i_ovr = false;
                x.c_ovr = 0;
                x.lastc = 0;
                x.w_act = false;
                x.w_adm = false;
                x.w_row = false;
                x.w_j = 0;
                x.w_col = 0;
                x.wr_en = false;
                x.wl_en = false;
                x.wl2_en = false;
                x.df.clear();
                x.vq.clear();
                x.ring.clear();
                x.cq.clear();
                x.cp = None;
                x.c_bad = 0;
                x.c_trm = 0;
                x.c_ret = 0;
                x.c_dod = 0;
                x.g_src = false;
                x.g_j = 0;
                x.g_v = false;
                x.s_wp = 0;
                x.c_src = 0;
                x.c_sdrop = 0;
                x.w_bm = false;
            }
            self.s_rp.iter_mut().for_each(|v| *v = 0);
            self.s_c.iter_mut().for_each(|v| *v = 0);
            for y in &mut self.out {
                y.r_act = false;
                y.v0 = false;
                y.v1 = false;
                y.r_wk = 0;
                y.rd.en = false;
                y.p.en = false;
                y.q.en = false;
                y.dep = false;
                y.x_k = 0;
                y.x_n = 0;
                y.t_valid = false;
                y.t_last = false;
                y.c_tx = 0;
                y.x_mid = false;
                y.y_act = false;
                y.y_n = 0;
                y.rv.iter_mut().for_each(|v| *v = false);
                y.dq.clear();
            }
        }
    }
}
