//! Golden model of the switch (`nt_hdl::switch`), in plain Rust at the packet level: queues
//! of whole packets per (input, output, band) and per return queue, occupancy counters in
//! bytes and packets, and the decisions of the module documentation (admission in input
//! order, drop-tail, ideal trimming with the header band and return to sender, strict
//! priority or WRR over bands, round robin over inputs). It is stepped once per cycle with
//! the same port inputs as the hardware, because its decisions depend on when packets
//! arrive and leave: a frame is decided at its word 4, written 5 cycles after each word
//! arrives (complete when its last word is written), and an output picks a packet in the
//! cycle its previous one ends (or when idle) and sends its first word in the next cycle.
//! Trimmed and returned headers are built from the frame's bytes (IPv4 length 50, the
//! checksum updated by RFC 1624 eq. 3, CHOP set, addresses swapped when returned). Every
//! action of word 4 (forward, trim, return, deflect, or a drop for want of a route or of
//! room) is settled when the frame's last word is written, by the length check: the frame
//! or header is committed and the drop counted under its reason if the frame's length is
//! its IPv4 total length, else it is rolled back and counted as malformed.
//!
//! [`SwitchModel::outputs`] gives every output port for the current cycle (before
//! [`SwitchModel::step`]), to compare with the hardware cycle by cycle.
//!
//! Tofino-style trimming (`cfg.mode` = [`SwitchMode::TofinoTrim`]) follows the switch's module
//! documentation (`nt_hdl::switch`, "Tofino-style trimming") literally: three meters per (pipe, output) in 1/8-cycle units run on every decision and
//! the colour of the output's mode (optimistic, half-pessimistic, pessimistic) trims red
//! data at ingress; green data that does not fit its band is deflected (a record in the
//! input's DoD queue, the trimmed header in the DoD store of (input, output)); one
//! recirculation server per pipe takes a record for its frame's length in cycles, then
//! releases the header to the output (sent after the return queue, before the bands) and
//! signals congestion, which makes the output pessimistic for `t0` cycles and
//! half-pessimistic for `t1` more. The model keeps the meters' times in `u64`; the block keeps
//! them modulo 2^40 (`TAT_BITS`), the same while a meter is updated at least every 2^36
//! cycles. One cycle: outputs, servers, inputs in index order, then
//! departures free their words and the cycle's congestion signals take effect.
use nt_hdl::mode::SwitchMode;
use nt_hdl::switch::{
    BANDS, BOLT_DEC, BOLT_FIRST, BOLT_INC, BOLT_LAST, BOLT_SRC, BYTES_PER_CYCLE, DOD_ENTRIES,
    DOD_WORDS, MAX_PIPES, REGION_WORDS, SM_ELAPSED_CAP, SM_OFFSET,
};
use nt_sim::switch_workload::{PortIn, PortOut, PortStats, SwitchSetup};
use nt_sim::wire::{to_words, Word, FLAG_CHOP, FLAG_DATA, PROTO_HOMA, PROTO_NDP};
use std::collections::VecDeque;

/// Return-queue words per port.
pub const RET_WORDS: u64 = 64;
const DELAY: usize = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    None,
    Fwd,
    Trim,
    Ret,
    /// Tofino-style trimming: deflected, the trimmed header goes to the DoD store.
    Dod,
    /// Dropped at word 4; counted under its reason at the frame's end when its length is
    /// right, else as malformed.
    Drop(Why),
}

/// Why a frame was dropped at its word 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Why {
    NoRoute,
    Full,
    Header,
    /// Tofino-style trimming: no room in the DoD queue or store.
    Dod,
}

#[derive(Clone, Debug)]
struct Input {
    beat: u8,
    hbad: bool,
    hdr: Vec<Word>,
    delay: [Option<Word>; DELAY],
    act: Act,
    o: usize,
    b: usize,
    words: u64,
    empty: u8,
    len: u64,
    wbeat: u64,
    orig: Vec<Word>,
    // Bolt: candidate (word 4), SRC speculatively written, SRC to commit, word 6 to
    // rewrite with `bf`, the output, queued bytes and frame bytes seen at word 4.
    bc: bool,
    sv: bool,
    sgo: bool,
    bmod: bool,
    bf: u8,
    bo: usize,
    q: u64,
    plen: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cur {
    Ret,
    Band(usize, usize),
    /// A released DoD header of input `i`.
    Dod(usize),
}

/// Tofino-style trimming: the recirculation server of one pipe. `cnt` cycles are left of
/// the record of (`i`, `o`) in service; `rr` is the input served last.
#[derive(Clone, Copy, Debug, Default)]
struct Server {
    busy: bool,
    i: usize,
    o: usize,
    cnt: u64,
    rr: usize,
}

#[derive(Clone, Debug)]
struct Output {
    busy: bool,
    cur: Cur,
    pos: usize,
    rr: [usize; BANDS],
    wrr_band: usize,
    wrr_used: u64,
}

/// The switch model. See the module documentation.
pub struct SwitchModel {
    s: SwitchSetup,
    n: usize,
    ins: Vec<Input>,
    outs: Vec<Output>,
    /// Complete packets per region `(i*n+o)*4+b`.
    queues: Vec<VecDeque<Vec<Word>>>,
    /// Words reserved per region (admitted, not yet sent).
    resv: Vec<u64>,
    retq: Vec<VecDeque<Vec<Word>>>,
    ret_resv: Vec<u64>,
    occ_bytes: Vec<u64>,
    occ_pkts: Vec<u64>,
    stats: Vec<PortStats>,
    /// Bolt, per output port: supply token, PRU tokens, last data arrival; and the cycle.
    sm: Vec<i64>,
    pru: Vec<u64>,
    sm_last: Vec<u64>,
    /// Tofino-style trimming: the number of pipes P; the meters' theoretical arrival times
    /// (1/8 cycle) per (pipe `p < MAX_PIPES`, output) `p*n+o`, one per meter k; the cycle of
    /// each output's last congestion signal; per input, the DoD queue of records (output,
    /// words) and whether its newest record's header is still being written; per
    /// (input, output) `i*n+o`, the complete DoD headers (the first `drel` released), the
    /// released count and the reserved words; per output, the DoD round robin; the servers.
    pipes: usize,
    tat: Vec<[u64; 3]>,
    sig: Vec<Option<u64>>,
    dodq: Vec<VecDeque<(usize, u64)>>,
    pending: Vec<bool>,
    dstore: Vec<VecDeque<Vec<Word>>>,
    drel: Vec<u64>,
    dresv: Vec<u64>,
    drr: Vec<usize>,
    srv: Vec<Server>,
    now: u64,
    /// Frames rolled back (length mismatch found by the writer), per input.
    pub rollbacks: Vec<u64>,
    /// Of those, trimmed, returned or deflected headers (their frame's length disagreed
    /// with its IPv4 length), per input.
    pub header_rollbacks: Vec<u64>,
    /// Of those, frames dropped at word 4 (no route, full, header or DoD room), counted as
    /// malformed instead of under that reason, per input.
    pub drop_rollbacks: Vec<u64>,
}

/// RFC 1624 eq. 3 with two end-around folds, as the hardware computes it.
pub fn checksum_update(hc: u16, old: u16, new: u16) -> u16 {
    let sum = (!hc as u64) + (!old as u64) + new as u64;
    let f1 = (sum & 0xffff) + (sum >> 16);
    let f2 = (f1 & 0xffff) + (f1 >> 16);
    !(f2 as u16)
}

/// The 64 header bytes of the first 8 words (the data of each word, whole).
fn header_bytes(words: &[Word]) -> Vec<u8> {
    words[..8]
        .iter()
        .flat_map(|w| w.data.to_be_bytes())
        .collect()
}

/// A trimmed (and, with `ret`, returned: addresses swapped, the new source MAC's group
/// bit cleared) header from a frame's first 8 words.
pub fn trimmed_header(words: &[Word], ret: bool) -> Vec<Word> {
    let mut h = header_bytes(words);
    let old_len = u16::from_be_bytes([h[16], h[17]]);
    let hc = u16::from_be_bytes([h[24], h[25]]);
    h[16..18].copy_from_slice(&50u16.to_be_bytes());
    h[24..26].copy_from_slice(&checksum_update(hc, old_len, 50).to_be_bytes());
    h[34] |= FLAG_CHOP;
    if ret {
        for (a, b, n) in [(0, 6, 6), (26, 30, 4), (35, 37, 2)] {
            for k in 0..n {
                h.swap(a + k, b + k);
            }
        }
        // The new source MAC (the old destination) is never a group address.
        h[6] &= !1;
    }
    to_words(&h)
}

/// Bolt's SRC for a data packet's first 8 words: the header returned to its sender
/// (addresses swapped, IPv4 length 50, checksum updated), transport flags 0, and in the
/// Bolt bytes q_size = `q`, link_rate, flags = SRC; t_data_tx reflected.
pub fn src_header(words: &[Word], q: u64, link_rate: u64) -> Vec<Word> {
    let mut h = header_bytes(&trimmed_header(words, true));
    h[34] = 0;
    let b = nt_sim::wire::BOLT_OFFSET;
    h[b..b + 3].copy_from_slice(&(q as u32).to_be_bytes()[1..]);
    h[b + 3] = link_rate as u8;
    h[b + 4] = BOLT_SRC;
    to_words(&h)
}

impl SwitchModel {
    pub fn new(setup: &SwitchSetup) -> Self {
        let n = setup.ports;
        // cfg.pipes has 3 bits: 0 counts as 1, 5..7 as 4.
        let pipes = ((setup.pipes & 7) as usize).clamp(1, MAX_PIPES);
        SwitchModel {
            s: setup.clone(),
            n,
            ins: vec![
                Input {
                    beat: 0,
                    hbad: false,
                    hdr: vec![],
                    delay: [None; DELAY],
                    act: Act::None,
                    o: 0,
                    b: 0,
                    words: 0,
                    empty: 0,
                    len: 0,
                    wbeat: 0,
                    orig: vec![],
                    bc: false,
                    sv: false,
                    sgo: false,
                    bmod: false,
                    bf: 0,
                    bo: 0,
                    q: 0,
                    plen: 0,
                };
                n
            ],
            outs: vec![
                Output {
                    busy: false,
                    cur: Cur::Band(0, 0),
                    pos: 0,
                    rr: [0; BANDS],
                    wrr_band: 0,
                    wrr_used: 0,
                };
                n
            ],
            queues: vec![VecDeque::new(); n * n * BANDS],
            resv: vec![0; n * n * BANDS],
            retq: vec![VecDeque::new(); n],
            ret_resv: vec![0; n],
            occ_bytes: vec![0; n * BANDS],
            occ_pkts: vec![0; n * BANDS],
            stats: vec![PortStats::default(); n],
            sm: vec![0; n],
            pru: vec![0; n],
            sm_last: vec![0; n],
            pipes,
            tat: vec![[0; 3]; MAX_PIPES * n],
            sig: vec![None; n],
            dodq: vec![VecDeque::new(); n],
            pending: vec![false; n],
            dstore: vec![VecDeque::new(); n * n],
            drel: vec![0; n * n],
            dresv: vec![0; n * n],
            drr: vec![0; n],
            srv: vec![Server::default(); pipes],
            now: 0,
            rollbacks: vec![0; n],
            header_rollbacks: vec![0; n],
            drop_rollbacks: vec![0; n],
        }
    }

    fn region(&self, i: usize, o: usize, b: usize) -> usize {
        (i * self.n + o) * BANDS + b
    }

    fn current(&self, o: usize) -> Option<&Vec<Word>> {
        let out = &self.outs[o];
        if !out.busy {
            return None;
        }
        match out.cur {
            Cur::Ret => self.retq[o].front(),
            Cur::Band(i, b) => self.queues[self.region(i, o, b)].front(),
            Cur::Dod(i) => self.dstore[i * self.n + o].front(),
        }
    }

    /// Tofino-style trimming: the pipe of input `i`, `floor(i*P/N)`.
    fn pipe(&self, i: usize) -> usize {
        i * self.pipes / self.n
    }

    /// Tofino-style trimming: output `o`'s mode in the current cycle (0 optimistic, 1
    /// half-pessimistic, 2 pessimistic), from its last congestion signal and `t0`, `t1`.
    pub fn tmode(&self, o: usize) -> u64 {
        let (t0, t1) = (self.s.t0 & 0xff_ffff, self.s.t1 & 0xff_ffff);
        match self.sig[o] {
            Some(t) if self.now - t <= t0 => 2,
            Some(t) if self.now - t <= t0 + t1 => 1,
            _ => 0,
        }
    }

    /// Tofino-style trimming: records of pipe `p` (its inputs' DoD queues, pending ones
    /// included) plus the one in recirculation.
    pub fn recirc_queue(&self, p: usize) -> usize {
        if p >= self.pipes {
            return 0;
        }
        let q: usize = (0..self.n)
            .filter(|&i| self.pipe(i) == p)
            .map(|i| self.dodq[i].len())
            .sum();
        q + self.srv[p].busy as usize
    }

    /// Tofino-style trimming: input `i`'s DoD queue plus its record in recirculation (the
    /// `dod_q` counter).
    fn dod_q(&self, i: usize) -> u64 {
        let busy = self.srv.iter().any(|v| v.busy && v.i == i);
        self.dodq[i].len() as u64 + busy as u64
    }

    /// Tofino-style trimming: released DoD headers of (`i`, `o`) not yet sent completely,
    /// complete headers in the store, and reserved words.
    pub fn dod_store(&self, i: usize, o: usize) -> (u64, usize, u64) {
        let d = i * self.n + o;
        (self.drel[d], self.dstore[d].len(), self.dresv[d])
    }

    /// Every output port in the current cycle.
    pub fn outputs(&self) -> Vec<PortOut> {
        (0..self.n)
            .map(|o| {
                let tx = self.current(o).map(|p| {
                    let w = p[self.outs[o].pos];
                    Word {
                        data: w.data,
                        last: w.last,
                        empty: if w.last { w.empty } else { 0 },
                    }
                });
                let mut stat = self.stats[o];
                for b in 0..BANDS {
                    stat.occ_bytes[b] = self.occ_bytes[o * BANDS + b];
                }
                stat.pru = self.pru[o];
                stat.sm = self.sm[o];
                stat.dod_q = self.dod_q(o);
                stat.tmode = self.tmode(o);
                PortOut {
                    rx_ready: true,
                    tx,
                    stat,
                }
            })
            .collect()
    }

    /// Counters of port `p`.
    pub fn stats(&self, p: usize) -> PortStats {
        self.outputs()[p].stat
    }

    /// True when nothing is in the switch: no frame being received or written, nothing
    /// queued (bands, return queues, DoD queues and stores), no recirculation, no output
    /// sending.
    pub fn idle(&self) -> bool {
        self.ins.iter().all(|x| {
            x.beat == 0 && x.act == Act::None && !x.sv && x.delay.iter().all(|w| w.is_none())
        }) && self.outs.iter().all(|o| !o.busy)
            && self.queues.iter().all(|q| q.is_empty())
            && self.resv.iter().all(|&r| r == 0)
            && self.retq.iter().all(|q| q.is_empty())
            && self.ret_resv.iter().all(|&r| r == 0)
            && self.dodq.iter().all(|q| q.is_empty())
            && self.dstore.iter().all(|q| q.is_empty())
            && self.srv.iter().all(|v| !v.busy)
    }

    /// Packets (complete or not) admitted to output `o`'s band `b` and not yet sent.
    pub fn occupancy(&self, o: usize, b: usize) -> (u64, u64) {
        (self.occ_bytes[o * BANDS + b], self.occ_pkts[o * BANDS + b])
    }

    /// Advances one cycle with `inp` (one entry per port).
    pub fn step(&mut self, inp: &[PortIn]) {
        assert_eq!(inp.len(), self.n);
        let n = self.n;
        // ---- outputs: send, and pick with the state at the start of the cycle ----
        let mut dep: Vec<Option<(Cur, u64, bool)>> = vec![None; n];
        for o in 0..n {
            let mut pick = !self.outs[o].busy;
            if self.outs[o].busy && inp[o].tx_ready {
                let w = self.current(o).expect("busy")[self.outs[o].pos];
                let bytes = if w.last { 8 - w.empty as u64 } else { 8 };
                let cur = self.outs[o].cur;
                dep[o] = Some((cur, bytes, w.last));
                self.outs[o].pos += 1;
                if w.last {
                    match cur {
                        Cur::Ret => {
                            self.retq[o].pop_front();
                        }
                        Cur::Band(i, b) => {
                            let r = self.region(i, o, b);
                            self.queues[r].pop_front();
                        }
                        Cur::Dod(i) => {
                            self.dstore[i * n + o].pop_front();
                            self.drel[i * n + o] -= 1;
                        }
                    }
                    self.stats[o].tx_frames += 1;
                    pick = true;
                }
            }
            if pick {
                self.pick(o);
            }
        }
        // ---- recirculation servers, with the DoD queues at the start of the cycle ----
        let mut sigs = vec![];
        for p in 0..self.srv.len() {
            if let Some(o) = self.serve(p) {
                sigs.push(o);
            }
        }
        // ---- inputs, in index order ----
        for (i, x) in inp.iter().enumerate() {
            self.write(i);
            self.ingress(i, x.rx);
        }
        let c = self.now;
        self.now += 1;
        // ---- departures free their words and bytes at the end of the cycle ----
        for (o, d) in dep.iter().enumerate() {
            if let Some((cur, bytes, last)) = *d {
                match cur {
                    Cur::Ret => self.ret_resv[o] -= 1,
                    Cur::Band(i, b) => {
                        let r = self.region(i, o, b);
                        self.resv[r] -= 1;
                        self.occ_bytes[o * BANDS + b] -= bytes;
                        if last {
                            self.occ_pkts[o * BANDS + b] -= 1;
                        }
                    }
                    Cur::Dod(i) => self.dresv[i * n + o] -= 1,
                }
            }
        }
        // ---- congestion signals of this cycle: its decisions saw the old ones ----
        for o in sigs {
            self.sig[o] = Some(c);
        }
    }

    /// Recirculation server `p` in one cycle: a release (returned: the output to signal),
    /// then a pick among its pipe's inputs with a complete record at their queue's head.
    /// Each server reads only its own pipe's queues, which only it pops, so running the
    /// servers one after the other sees the state at the start of the cycle.
    fn serve(&mut self, p: usize) -> Option<usize> {
        let n = self.n;
        let v = self.srv[p];
        let rel = v.busy && v.cnt == 1;
        let mut sig = None;
        if v.busy {
            self.srv[p].cnt -= 1;
        }
        if rel {
            self.srv[p].busy = false;
            let d = v.i * n + v.o;
            debug_assert!((self.drel[d] as usize) < self.dstore[d].len());
            self.drel[d] += 1;
            self.stats[v.i].dod_trims += 1;
            sig = Some(v.o);
        }
        if !v.busy || rel {
            let elig =
                |i: usize| self.pipe(i) == p && self.dodq[i].len() > self.pending[i] as usize;
            if let Some(i) = (v.rr + 1..n)
                .find(|&i| elig(i))
                .or_else(|| (0..n).find(|&i| elig(i)))
            {
                let (o, w) = self.dodq[i].pop_front().expect("eligible");
                self.srv[p] = Server {
                    busy: true,
                    i,
                    o,
                    cnt: w,
                    rr: i,
                };
            }
        }
        sig
    }

    fn pick(&mut self, o: usize) {
        let n = self.n;
        let out = &mut self.outs[o];
        out.pos = 0;
        if !self.retq[o].is_empty() {
            out.busy = true;
            out.cur = Cur::Ret;
            return;
        }
        let rel = |i: usize| self.drel[i * n + o] > 0;
        let last = self.drr[o];
        if let Some(i) = (last + 1..n)
            .find(|&i| rel(i))
            .or_else(|| (0..n).find(|&i| rel(i)))
        {
            self.drr[o] = i;
            out.busy = true;
            out.cur = Cur::Dod(i);
            return;
        }
        let elig = |i: usize, b: usize| !self.queues[(i * n + o) * BANDS + b].is_empty();
        let bel: Vec<bool> = (0..BANDS).map(|b| (0..n).any(|i| elig(i, b))).collect();
        if !bel.iter().any(|&x| x) {
            out.busy = false;
            return;
        }
        let band = if self.s.wrr {
            let cur = out.wrr_band;
            let w = self.s.weight[cur].max(1);
            if bel[cur] && out.wrr_used < w {
                out.wrr_used += 1;
                cur
            } else {
                let b = (1..=BANDS)
                    .map(|d| (cur + d) % BANDS)
                    .find(|&b| bel[b])
                    .expect("some band");
                out.wrr_band = b;
                out.wrr_used = 1;
                b
            }
        } else {
            (0..BANDS).find(|&b| bel[b]).expect("some band")
        };
        let last = out.rr[band];
        let input = (last + 1..n)
            .find(|&i| elig(i, band))
            .or_else(|| (0..n).find(|&i| elig(i, band)))
            .expect("some input");
        out.rr[band] = input;
        out.busy = true;
        out.cur = Cur::Band(input, band);
    }

    /// The writer of input `i` on the word leaving its delay line.
    fn write(&mut self, i: usize) {
        let Some(w) = self.ins[i].delay[DELAY - 1] else {
            return;
        };
        let x = &mut self.ins[i];
        if x.act == Act::None && !x.sv {
            return;
        }
        x.orig.push(w);
        let next = x.wbeat + 1;
        // Bolt's SRC: written beside the frame, committed at beat 7 if it was sent.
        if x.sv {
            if x.wbeat == 7 {
                x.sv = false;
                if x.sgo {
                    let src = src_header(&x.orig, x.q, self.s.link_rate);
                    self.retq[i].push_back(src);
                }
            } else if w.last {
                x.sv = false;
            }
        }
        let x = &mut self.ins[i];
        if x.act == Act::None {
            x.wbeat = next;
            return;
        }
        // Every action, a header too, commits only at the frame's last word and only when
        // the frame's length is its IPv4 length; a word past that length rolls it back.
        let (mut done, mut commit, mut rollback) = (false, false, false);
        if w.last {
            done = true;
            if next == x.words && w.empty == x.empty {
                commit = true;
            } else {
                rollback = true;
            }
        } else if next == x.words {
            done = true;
            rollback = true;
        }
        x.wbeat = next;
        if !done {
            return;
        }
        let (act, o, b, words, len) = (x.act, x.o, x.b, x.words, x.len);
        let (bmod, bf) = (x.bmod, x.bf);
        let orig = std::mem::take(&mut x.orig);
        x.act = Act::None;
        let r = self.region(i, o, b);
        if commit {
            match act {
                Act::Fwd => {
                    let mut p = orig;
                    if bmod {
                        p[6].data = (p[6].data & !0xff00) | (bf as u64) << 8;
                    }
                    self.queues[r].push_back(p)
                }
                Act::Trim => {
                    self.stats[i].trimmed += 1;
                    self.queues[r].push_back(trimmed_header(&orig, false))
                }
                Act::Ret => {
                    self.stats[i].trimmed += 1;
                    self.stats[i].returned += 1;
                    self.retq[i].push_back(trimmed_header(&orig, true))
                }
                Act::Dod => {
                    self.dstore[i * self.n + o].push_back(trimmed_header(&orig, false));
                    self.pending[i] = false;
                }
                Act::Drop(why) => {
                    let st = &mut self.stats[i];
                    match why {
                        Why::NoRoute => st.drop_no_route += 1,
                        Why::Full => st.drop_full += 1,
                        Why::Header => st.drop_header += 1,
                        Why::Dod => st.dod_drop += 1,
                    }
                }
                Act::None => unreachable!(),
            }
        }
        if rollback {
            self.stats[i].drop_malformed += 1;
            self.rollbacks[i] += 1;
            if matches!(act, Act::Trim | Act::Ret | Act::Dod) {
                self.header_rollbacks[i] += 1;
            }
            if let Act::Drop(_) = act {
                // Nothing was reserved.
                self.drop_rollbacks[i] += 1;
            } else if act == Act::Ret {
                self.ret_resv[i] -= 8;
            } else if act == Act::Dod {
                // The pending record is the newest one: a server never takes it.
                self.dodq[i].pop_back();
                self.pending[i] = false;
                self.dresv[i * self.n + o] -= 8;
            } else {
                // A trimmed header reserved its 8 words, a whole frame all of them.
                self.resv[r] -= if act == Act::Trim { 8 } else { words };
                self.occ_bytes[o * BANDS + b] -= len;
                self.occ_pkts[o * BANDS + b] -= 1;
            }
        }
    }

    /// Input `i`'s parse stage and decision on this cycle's word.
    fn ingress(&mut self, i: usize, word: Option<Word>) {
        let beat = self.ins[i].beat;
        let hbad = self.ins[i].hbad;
        match word {
            None => {
                if (1..5).contains(&beat) && !hbad {
                    self.stats[i].drop_malformed += 1;
                    self.ins[i].hbad = true;
                }
            }
            Some(w) => {
                if beat == 0 {
                    self.stats[i].rx_frames += 1;
                    self.ins[i].hdr.clear();
                }
                if beat < 5 {
                    self.ins[i].hdr.push(w);
                }
                if w.last && beat < 4 && !hbad {
                    self.stats[i].drop_malformed += 1;
                }
                if beat == 0 {
                    self.ins[i].bc = false;
                }
                if beat == 4 && !hbad {
                    self.decide(i, w);
                }
                if beat == 6 {
                    if self.ins[i].bc && !w.last && w.data & 0x8000 != 0 {
                        self.bolt(i, w);
                    }
                    self.ins[i].bc = false;
                }
                let x = &mut self.ins[i];
                if w.last {
                    x.beat = 0;
                    x.hbad = false;
                } else if beat < 7 {
                    x.beat += 1;
                }
            }
        }
        let x = &mut self.ins[i];
        x.delay.rotate_right(1);
        x.delay[0] = word;
    }

    fn fits(&self, i: usize, o: usize, b: usize, len: u64, words: u64) -> bool {
        self.occ_bytes[o * BANDS + b] + len <= self.s.limit_bytes[b]
            && self.occ_pkts[o * BANDS + b] < self.s.limit_pkts[b]
            && self.resv[self.region(i, o, b)] + words <= REGION_WORDS
    }

    fn decide(&mut self, i: usize, w4: Word) {
        let h = &self.ins[i].hdr;
        let (w1, w2, w3) = (h[1].data, h[2].data, h[3].data);
        self.ins[i].act = Act::None;
        self.ins[i].wbeat = 0;
        self.ins[i].orig.clear();
        self.ins[i].bc = false;
        self.ins[i].sv = false;
        self.ins[i].sgo = false;
        self.ins[i].bmod = false;
        let ethertype = (w1 >> 16) & 0xffff;
        let verihl = (w1 >> 8) & 0xff;
        let tos = w1 & 0xff;
        let ip_len = w2 >> 48;
        let proto = (w2 & 0xff) as u8;
        let dst_ip = ((w3 & 0xffff) << 16 | w4.data >> 48) as u32;
        let flags = ((w4.data >> 40) & 0xff) as u8;
        if ethertype != 0x0800 || verihl != 0x45 || !(50..=1074).contains(&ip_len) || w4.last {
            self.stats[i].drop_malformed += 1;
            return;
        }
        let len = ip_len + 14;
        let words = len.div_ceil(8);
        let y = &mut self.ins[i];
        y.words = words;
        y.empty = ((8 - len % 8) % 8) as u8;
        let route = self.s.routes[..self.n]
            .iter()
            .find(|r| r.0 && r.1 == dst_ip)
            .map(|r| r.2);
        let o = match route {
            Some(p) if (p as usize) < self.n => p as usize,
            _ => {
                self.ins[i].act = Act::Drop(Why::NoRoute);
                return;
            }
        };
        let ours = proto == PROTO_NDP || proto == PROTO_HOMA;
        let data = flags & FLAG_DATA != 0 && flags & FLAG_CHOP == 0;
        let bolt = self.s.mode == SwitchMode::Bolt;
        let b = if self.s.band_by_flags || bolt {
            if !ours {
                3
            } else if data {
                1
            } else {
                0
            }
        } else {
            // The DSCP field (tos bits 7:2), saturating; the ECN bits never pick a band.
            ((tos >> 2) as usize).min(BANDS - 1)
        };
        let tofino = self.s.mode == SwitchMode::TofinoTrim;
        let trim_ok = (self.s.mode == SwitchMode::Trim || tofino) && ours && data;
        if bolt && ours {
            let y = &mut self.ins[i];
            y.bc = true;
            y.sv = self.ret_resv[i] + 8 <= RET_WORDS;
            y.bo = o;
            y.q = (0..BANDS).map(|b| self.occ_bytes[o * BANDS + b]).sum();
            y.plen = len;
        }
        // Tofino-style trimming: the meters see every well-formed, routed packet.
        let red = tofino && self.meter(i, o, len);
        let x = (i, o, b, len, words);
        if trim_ok && red {
            self.trim(i, o);
        } else if self.fits(i, o, b, len, words) {
            self.admit(x, Act::Fwd);
        } else if trim_ok && tofino {
            self.deflect(i, o, words);
        } else if trim_ok {
            self.trim(i, o);
        } else {
            self.ins[i].act = Act::Drop(Why::Full);
        }
    }

    /// Trimming of input `i`'s data packet to output `o`: the header to band 0, else
    /// returned, else dropped (`drop_header`). `trimmed` and `returned` count when the
    /// writer commits the header, at the frame's end.
    fn trim(&mut self, i: usize, o: usize) {
        if self.fits(i, o, 0, 64, 8) {
            self.admit((i, o, 0, 64, 8), Act::Trim);
        } else if self.s.ret && self.ret_resv[i] + 8 <= RET_WORDS {
            self.ret_resv[i] += 8;
            let y = &mut self.ins[i];
            y.act = Act::Ret;
        } else {
            self.ins[i].act = Act::Drop(Why::Header);
        }
    }

    /// Tofino-style trimming: the three meters of (pipe of `i`, `o`) on a packet of `len`
    /// bytes, in 1/8-cycle units (meter k drains 8 >> k bytes per cycle, so a byte costs
    /// 2^k units); a green packet moves the meter, a red one leaves it. Returns whether the
    /// packet is red for the meter of `o`'s mode.
    fn meter(&mut self, i: usize, o: usize, len: u64) -> bool {
        let now8 = 8 * self.now;
        let burst = self.s.meter_burst & 0xf_ffff;
        let mode = self.tmode(o) as usize;
        let m = self.pipe(i) * self.n + o;
        let t = &mut self.tat[m];
        let mut green = [false; 3];
        for (k, g) in green.iter_mut().enumerate() {
            let cost = len << k;
            *g = t[k].saturating_sub(now8) + cost <= burst << k;
            if *g {
                t[k] = t[k].max(now8) + cost;
            }
        }
        !green[mode]
    }

    /// Tofino-style trimming: input `i`'s data packet to output `o` (`words` long) did not
    /// fit its band: a record in the input's DoD queue and the header to the DoD store, if
    /// both have room (the room sees this cycle's pop by the server and commit or rollback
    /// by the writer); else it is lost (`dod_drop`).
    fn deflect(&mut self, i: usize, o: usize, words: u64) {
        let d = i * self.n + o;
        if (self.dodq[i].len() as u64) < DOD_ENTRIES && self.dresv[d] + 8 <= DOD_WORDS {
            debug_assert!(!self.pending[i]);
            self.dodq[i].push_back((o, words));
            self.pending[i] = true;
            self.dresv[d] += 8;
            let y = &mut self.ins[i];
            y.act = Act::Dod;
            y.o = o;
        } else {
            self.ins[i].act = Act::Drop(Why::Dod);
        }
    }

    /// Bolt at word 6 (thesis Algorithms 7 and 9, SPEC §6) for input `i`'s data packet.
    fn bolt(&mut self, i: usize, w6: Word) {
        let (o, q, plen, sv) = {
            let x = &self.ins[i];
            (x.bo, x.q, x.plen, x.sv)
        };
        let f = ((w6.data >> 8) & 0xff) as u8;
        let mtu = self.s.mtu as i64;
        // Supply token (Algorithm 9).
        let elapsed = (self.now.wrapping_sub(self.sm_last[o]) & 0xffff_ffff).min(SM_ELAPSED_CAP);
        self.sm_last[o] = self.now;
        let sm = (self.sm[o] + (BYTES_PER_CYCLE * elapsed) as i64 - plen as i64)
            .max(-(SM_OFFSET as i64))
            .min(mtu);
        self.sm[o] = sm;
        let mut nf = f;
        if q >= self.s.cc_thresh {
            if f & BOLT_DEC == 0 {
                if sv {
                    self.ins[i].sgo = true;
                    self.ret_resv[i] += 8;
                    self.stats[i].src_sent += 1;
                } else {
                    self.stats[i].src_drop += 1;
                }
                nf = (f | BOLT_DEC) & !BOLT_INC;
            }
        } else if f & BOLT_LAST != 0 {
            if f & BOLT_FIRST == 0 && self.pru[o] < self.s.pru_cap {
                self.pru[o] += 1;
            }
        } else if f & BOLT_INC != 0 {
            if self.pru[o] > 0 {
                self.pru[o] -= 1;
            } else if sm >= mtu && self.s.sm {
                self.sm[o] = sm - mtu;
            } else {
                nf = f & !BOLT_INC;
            }
        }
        let x = &mut self.ins[i];
        x.bmod = true;
        x.bf = nf;
    }

    fn admit(&mut self, (i, o, b, len, words): (usize, usize, usize, u64, u64), act: Act) {
        let r = self.region(i, o, b);
        self.resv[r] += words;
        self.occ_bytes[o * BANDS + b] += len;
        self.occ_pkts[o * BANDS + b] += 1;
        let y = &mut self.ins[i];
        y.act = act;
        y.o = o;
        y.b = b;
        y.len = len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nt_sim::switch_workload::port_ip;
    use nt_sim::wire::{ipv4_checksum, Frame, Layout, Transport};

    /// An NDP DATA frame of `bytes` bytes from port `src` to port `dst`.
    fn ndp(src: usize, dst: usize, bytes: usize, seq: u16) -> Vec<Word> {
        to_words(
            &Frame {
                dst_mac: 1,
                src_mac: 2,
                tos: 0,
                ip_id: seq,
                ttl: 64,
                protocol: PROTO_NDP,
                src_ip: port_ip(src),
                dst_ip: port_ip(dst),
                t: Transport {
                    flags: FLAG_DATA,
                    ..Default::default()
                },
                payload: vec![seq as u8; bytes - 64],
            }
            .encode(Layout::Ndp),
        )
    }

    /// Drives the model: words (or gaps) queued per input port, TX ready per port, and the
    /// words sent per output with their cycle.
    struct Tb {
        m: SwitchModel,
        feed: Vec<VecDeque<Option<Word>>>,
        ready: Vec<bool>,
        sent: Vec<Vec<(u64, Word)>>,
        now: u64,
    }

    impl Tb {
        fn new(s: &SwitchSetup) -> Self {
            Tb {
                m: SwitchModel::new(s),
                feed: vec![VecDeque::new(); s.ports],
                ready: vec![true; s.ports],
                sent: vec![vec![]; s.ports],
                now: 0,
            }
        }
        fn send(&mut self, i: usize, f: &[Word]) {
            self.feed[i].extend(f.iter().map(|&w| Some(w)));
        }
        fn gap(&mut self, i: usize, k: usize) {
            self.feed[i].extend(std::iter::repeat_n(None, k));
        }
        /// One cycle; returns the port outputs of the cycle (before the step).
        fn step(&mut self) -> Vec<PortOut> {
            let out = self.m.outputs();
            let inp: Vec<PortIn> = (0..self.feed.len())
                .map(|p| PortIn {
                    rx: self.feed[p].pop_front().flatten(),
                    tx_ready: self.ready[p],
                })
                .collect();
            for (p, x) in out.iter().enumerate() {
                if let (Some(w), true) = (x.tx, self.ready[p]) {
                    self.sent[p].push((self.now, w));
                }
            }
            self.m.step(&inp);
            self.now += 1;
            out
        }
        fn run_to(&mut self, c: u64) {
            while self.now < c {
                self.step();
            }
        }
    }

    fn tofino(ports: usize) -> SwitchSetup {
        let mut s = SwitchSetup::new(ports);
        s.mode = SwitchMode::TofinoTrim;
        s
    }

    /// Inputs 0 and 2 send 30 back-to-back 1088-byte DATA frames each to output 3, in step.
    /// Round j decides at cycle 136j+4 (now8 = 1088j+32), input 0 first. With one pipe both
    /// share the optimistic meter (B = 16384, t0 = t1 = 0 so the mode stays optimistic):
    /// while both are green the backlog before round j is 2*1088*j - 1088*j = 1088j; input
    /// 0 is green iff 1088j + 1088 <= 16384 (j <= 14), input 2 iff 1088j + 2176 <= 16384
    /// (j <= 13). From round 14 on the backlog before the round is 15232: input 0 green
    /// (16320), input 2 red. So input 2 has 30 - 14 = 16 ingress trims, input 0 none. With
    /// two pipes (pipe(0) = 0, pipe(2) = 1) each meter sees one line rate: no trims. A trim
    /// counts when its header is committed, at its frame's last word: round 14's at cycle
    /// 136*14 + 135 + 5 = 2044.
    #[test]
    fn tofino_meter_lets_one_line_rate_through() {
        for (pipes, want) in [(1, 16), (2, 0)] {
            let mut s = tofino(4);
            s.pipes = pipes;
            s.t0 = 0;
            s.t1 = 0;
            let mut tb = Tb::new(&s);
            for j in 0..30 {
                tb.send(0, &ndp(0, 3, 1088, j));
                tb.send(2, &ndp(2, 3, 1088, j));
            }
            // Round 13 (decided at 1772) both green, round 14 (1908) input 2 red; its
            // header is committed at 2044.
            tb.run_to(2044);
            assert_eq!(tb.m.stats(2).trimmed, 0);
            tb.run_to(2045);
            assert_eq!(tb.m.stats(2).trimmed, if pipes == 1 { 1 } else { 0 });
            tb.run_to(30 * 136 + 2000);
            assert_eq!(tb.m.stats(0).trimmed, 0, "pipes {pipes}");
            assert_eq!(tb.m.stats(2).trimmed, want, "pipes {pipes}");
            for p in 0..4 {
                assert_eq!(tb.m.stats(p).tmode, 0);
            }
        }
    }

    /// One 1088-byte DATA frame (W = 136) from input 0 to output 1 at cycle 0; band 0 takes
    /// only 1000 bytes, the meters (B = 1100) are green: deflected at its word 4 (cycle 4),
    /// header committed by the writer with the frame's last word (word 135 + 5 = cycle
    /// 140), record picked by the server at 141, released at 141 + 136 = 277 (dod_trims,
    /// signal), picked by output 1 at 278, words out at 279..=286. Mode of output 1: signal
    /// t = 277, pessimistic for 278..=327 (el <= t0 = 50), half for 328..=357 (el <= 80),
    /// then optimistic. A second frame at 284 decides at 288 in pessimistic mode: meter 2
    /// has tat = 32 + 4*1088 = 4384, backlog 4384 - 2304 = 2080, 2080 + 4352 > 4*1100: red,
    /// so it is trimmed at ingress (meter 0 would be green: tat 1120 < 2304) into band 0;
    /// its header is committed with its last word at 284 + 140 = 424 (`trimmed` from 425),
    /// picked at 425 and sent at 426..=433.
    #[test]
    fn tofino_deflection_and_recirculation_timing() {
        let mut s = tofino(2);
        s.limit_bytes[0] = 1000;
        s.meter_burst = 1100;
        s.t0 = 50;
        s.t1 = 30;
        let mut tb = Tb::new(&s);
        let f1 = ndp(0, 1, 1088, 1);
        let f2 = ndp(0, 1, 1088, 2);
        tb.send(0, &f1);
        tb.gap(0, 148);
        tb.send(0, &f2);
        while tb.now < 600 {
            let c = tb.now;
            let out = tb.step();
            let (st0, st1) = (out[0].stat, out[1].stat);
            let dq = if (5..=277).contains(&c) { 1 } else { 0 };
            assert_eq!(st0.dod_q, dq, "cycle {c}");
            assert_eq!(st0.dod_trims, (c >= 278) as u64, "cycle {c}");
            let mode = match c {
                278..=327 => 2,
                328..=357 => 1,
                _ => 0,
            };
            assert_eq!(st1.tmode, mode, "cycle {c}");
            assert_eq!(st0.tmode, 0, "cycle {c}");
            assert_eq!(st0.trimmed, (c >= 425) as u64, "cycle {c}");
            if c == 14 || c == 150 {
                // The header is complete only once its frame has ended.
                assert_eq!(tb.m.recirc_queue(0), 1);
                assert_eq!(tb.m.dod_store(0, 1), (0, (c == 150) as usize, 8));
            }
        }
        let st0 = tb.m.stats(0);
        assert_eq!((st0.dod_drop, st0.drop_full, st0.drop_header), (0, 0, 0));
        assert_eq!(tb.m.stats(1).tx_frames, 2);
        assert_eq!(tb.m.dod_store(0, 1), (0, 0, 0));
        let cycles: Vec<u64> = tb.sent[1].iter().map(|x| x.0).collect();
        let want: Vec<u64> = (279..=286).chain(426..=433).collect();
        assert_eq!(cycles, want);
        let words: Vec<Word> = tb.sent[1].iter().map(|x| x.1).collect();
        assert_eq!(words[..8], trimmed_header(&f1, false)[..]);
        assert_eq!(words[8..], trimmed_header(&f2, false)[..]);
    }

    /// 20 back-to-back 64-byte DATA frames from input 0 to output 1 (band 0 takes nothing,
    /// meters green), output 1 not ready. Frame j decides at 8j+4 and its header is released
    /// at 8j+21 (the server keeps up), but none leaves, so the DoD store of (0, 1) holds 8j
    /// words at frame j's decision: frames 0..=15 are deflected, 16..=19 lost (dod_drop 4;
    /// the first decided at cycle 132 counts when its last word leaves the delay line, at
    /// 135 + 5 = 140). Once output 1 is ready (cycle 300) the 16 headers leave back to back
    /// in 128 cycles.
    #[test]
    fn tofino_dod_store_full_drops() {
        let mut s = tofino(2);
        s.limit_bytes[0] = 0;
        let mut tb = Tb::new(&s);
        for j in 0..20 {
            tb.send(0, &ndp(0, 1, 64, j));
        }
        tb.ready[1] = false;
        tb.run_to(140);
        assert_eq!(tb.m.stats(0).dod_drop, 0);
        tb.step();
        assert_eq!(tb.m.stats(0).dod_drop, 1);
        tb.run_to(300);
        let st = tb.m.stats(0);
        assert_eq!((st.dod_drop, st.dod_trims, st.trimmed), (4, 16, 0));
        assert_eq!(tb.m.dod_store(0, 1), (16, 16, 128));
        tb.ready[1] = true;
        tb.run_to(427);
        assert_eq!(tb.m.stats(1).tx_frames, 15);
        tb.step();
        assert_eq!(tb.m.stats(1).tx_frames, 16);
        assert_eq!(tb.m.dod_store(0, 1), (0, 0, 0));
        assert_eq!(tb.sent[1].len(), 128);
    }

    /// One pipe, t0 = t1 = 0, band 0 takes nothing. Input 0: 3 frames of 1088 bytes to
    /// output 4; input 1: 38 frames of 64 bytes alternately to outputs 2 and 3 (so its DoD
    /// stores stay small and the DoD queue of 16 entries is the limit), all back to back from
    /// cycle 0. A record can be served once its header is committed with its frame's last
    /// word: input 1's frame j at 8j+12, input 0's frame k at 136k+140. The server (rr = 0)
    /// takes input 1's records one by one at 13, 21, ..., 133 (as fast as they come), input
    /// 0's first at 141 (136 cycles, released 277), input 1 at 277, input 0 at 285 (released
    /// 421), input 1 at 421. Input 1's frame j decides at 8j+4: up to j = 17 (cycle 140) its
    /// queue holds one record, then it grows by one per frame: 18..=31 fit, 32..=34 are lost
    /// (the first decided at cycle 260 counts at its end, 263 + 5 = 268), 35 fits after the
    /// pop at 277, 36 and 37 are lost: dod_drop 5, 33 deflected.
    #[test]
    fn tofino_dod_queue_full_drops() {
        let mut s = tofino(5);
        s.pipes = 1;
        s.t0 = 0;
        s.t1 = 0;
        s.limit_bytes[0] = 0;
        let mut tb = Tb::new(&s);
        for j in 0..3 {
            tb.send(0, &ndp(0, 4, 1088, j));
        }
        for j in 0..38 {
            tb.send(1, &ndp(1, 2 + j as usize % 2, 64, j));
        }
        tb.run_to(268);
        assert_eq!(tb.m.stats(1).dod_drop, 0);
        tb.step();
        assert_eq!(tb.m.stats(1).dod_drop, 1);
        assert_eq!(tb.m.stats(1).dod_q, 16);
        // Input 1's 16 records, input 0's pending one, input 0's in recirculation.
        assert_eq!(tb.m.recirc_queue(0), 18);
        tb.run_to(285);
        assert_eq!(tb.m.stats(1).dod_drop, 3);
        tb.run_to(1500);
        let (a, b) = (tb.m.stats(0), tb.m.stats(1));
        assert_eq!((a.dod_drop, a.dod_trims), (0, 3));
        assert_eq!((b.dod_drop, b.dod_trims), (5, 33));
        assert_eq!(tb.m.recirc_queue(0), 0);
        assert_eq!(tb.m.stats(2).tx_frames + tb.m.stats(3).tx_frames, 33);
        assert_eq!(tb.m.stats(4).tx_frames, 3);
    }

    #[test]
    fn trimmed_headers_carry_a_valid_checksum() {
        for payload in [0usize, 1, 500, 1024] {
            let f = Frame {
                dst_mac: 1,
                src_mac: 2,
                tos: 0,
                ip_id: 99,
                ttl: 64,
                protocol: PROTO_NDP,
                src_ip: 0x0a00_0001,
                dst_ip: 0x0a00_0002,
                t: Transport {
                    flags: FLAG_DATA,
                    ..Default::default()
                },
                payload: vec![7; payload],
            }
            .encode(Layout::Ndp);
            for ret in [false, true] {
                let h = trimmed_header(&to_words(&f), ret);
                let b: Vec<u8> = h.iter().flat_map(|w| w.data.to_be_bytes()).collect();
                assert_eq!(ipv4_checksum(&b[14..34]), 0, "payload {payload} ret {ret}");
                assert_eq!(b[34], FLAG_DATA | FLAG_CHOP);
            }
        }
    }
}
