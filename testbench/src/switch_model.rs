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
//! checksum updated by RFC 1624 eq. 3, CHOP set, addresses swapped when returned).
//!
//! [`SwitchModel::outputs`] gives every output port for the current cycle (before
//! [`SwitchModel::step`]), to compare with the hardware cycle by cycle.
use nt_hdl::switch::{
    BANDS, BOLT_DEC, BOLT_FIRST, BOLT_INC, BOLT_LAST, BOLT_SRC, BYTES_PER_CYCLE, MODE_BOLT,
    MODE_TRIM, REGION_WORDS, SM_ELAPSED_CAP, SM_OFFSET,
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
    now: u64,
    /// Packets rolled back (length mismatch found by the writer), per input.
    pub rollbacks: Vec<u64>,
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

/// A trimmed (and, with `ret`, returned) header from a frame's first 8 words.
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
            now: 0,
            rollbacks: vec![0; n],
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
        }
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
                    }
                    self.stats[o].tx_frames += 1;
                    pick = true;
                }
            }
            if pick {
                self.pick(o);
            }
        }
        // ---- inputs, in index order ----
        for (i, x) in inp.iter().enumerate() {
            self.write(i);
            self.ingress(i, x.rx);
        }
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
                }
            }
        }
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
        let (mut done, mut commit, mut rollback) = (false, false, false);
        match x.act {
            Act::Fwd => {
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
            }
            _ => {
                if w.last && x.wbeat < 7 {
                    done = true;
                    rollback = true;
                } else if x.wbeat == 7 {
                    done = true;
                    commit = true;
                }
            }
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
                Act::Trim => self.queues[r].push_back(trimmed_header(&orig, false)),
                Act::Ret => self.retq[i].push_back(trimmed_header(&orig, true)),
                Act::None => unreachable!(),
            }
        }
        if rollback {
            self.stats[i].drop_malformed += 1;
            self.rollbacks[i] += 1;
            if act == Act::Ret {
                self.ret_resv[i] -= 8;
            } else {
                self.resv[r] -= words;
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
        let route = self.s.routes[..self.n]
            .iter()
            .find(|r| r.0 && r.1 == dst_ip)
            .map(|r| r.2);
        let o = match route {
            Some(p) if (p as usize) < self.n => p as usize,
            _ => {
                self.stats[i].drop_no_route += 1;
                return;
            }
        };
        let ours = proto == PROTO_NDP || proto == PROTO_HOMA;
        let data = flags & FLAG_DATA != 0 && flags & FLAG_CHOP == 0;
        let bolt = self.s.mode == MODE_BOLT;
        let b = if self.s.band_by_flags || bolt {
            if !ours {
                3
            } else if data {
                1
            } else {
                0
            }
        } else {
            (tos as usize).min(BANDS - 1)
        };
        let trim_ok = self.s.mode == MODE_TRIM && ours && data;
        let len = ip_len + 14;
        let words = len.div_ceil(8);
        if bolt && ours {
            let y = &mut self.ins[i];
            y.bc = true;
            y.sv = self.ret_resv[i] + 8 <= RET_WORDS;
            y.bo = o;
            y.q = (0..BANDS).map(|b| self.occ_bytes[o * BANDS + b]).sum();
            y.plen = len;
        }
        let x = (i, o, b, len, words);
        if self.fits(i, o, b, len, words) {
            self.admit(x, Act::Fwd);
        } else if trim_ok {
            self.stats[i].trimmed += 1;
            if self.fits(i, o, 0, 64, 8) {
                self.admit((i, o, 0, 64, 8), Act::Trim);
            } else if self.s.ret && self.ret_resv[i] + 8 <= RET_WORDS {
                self.stats[i].returned += 1;
                self.ret_resv[i] += 8;
                let y = &mut self.ins[i];
                y.act = Act::Ret;
            } else {
                self.stats[i].drop_header += 1;
            }
        } else {
            self.stats[i].drop_full += 1;
        }
        let y = &mut self.ins[i];
        y.words = words;
        y.empty = ((8 - len % 8) % 8) as u8;
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
            } else if sm >= mtu {
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
    use nt_sim::wire::{ipv4_checksum, Frame, Layout, Transport};

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
