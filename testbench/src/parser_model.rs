//! Golden model of the ingress parser (`hdl/src/parser.rs`), in plain Rust.
//!
//! [`check_frame`] is the frame-level specification: the verdict of SPEC §2's wire format
//! and issue 5's checks on a frame's bytes, the first failing check naming the drop.
//! [`ParserModel`] is the cycle-level scoreboard around it: it mirrors the ring's
//! occupancy (a frame's words from [`SKIP_WORDS`] on are stored; one that finds 2^9 words
//! not yet read or 64 checked frames waiting, or that follows one that did, is not stored
//! and the frame is dropped as overflow), and checks in every cycle `ready`, `valid` on
//! `source` (a frame can leave the cycle after its last word is in), every word (a passed
//! frame's from [`SKIP_WORDS`] on), `last`, `empty` and header field on `source`, and
//! every counter.
use nt_hdl::parser::{
    DROP_BAD_CHECKSUM, DROP_BAD_IP, DROP_BAD_LENGTH, DROP_BAD_PROTOCOL, DROP_BAD_TRANSPORT,
    DROP_NAMES, DROP_NOT_FOR_US, DROP_NOT_IPV4, DROP_OVERFLOW, DROP_REASONS, DROP_TOO_LONG,
    DROP_TRUNCATED, MAX_FRAME_BYTES, MAX_MSG_BYTES, RING_A, SKIP_WORDS,
};
use nt_sim::parser_workload::{Hdr, HostCfg, ParserIo};
use nt_sim::wire::{
    field, from_words, ipv4_checksum, to_words, Frame, Word, ETHERTYPE_IPV4, FLAG_CHOP, FLAG_DATA,
    HDR_BYTES,
};
use std::collections::VecDeque;

/// The verdict on a whole frame: its header fields, or the drop reason.
pub fn check_frame(b: &[u8], host: &HostCfg) -> Result<Hdr, usize> {
    let len = b.len();
    if len as u64 > MAX_FRAME_BYTES {
        return Err(DROP_TOO_LONG);
    }
    if len < HDR_BYTES {
        return Err(DROP_TRUNCATED);
    }
    if field(b, 12, 2) != ETHERTYPE_IPV4 as u64 {
        return Err(DROP_NOT_IPV4);
    }
    if b[14] != 0x45 || field(b, 20, 2) & 0x3fff != 0 {
        return Err(DROP_BAD_IP);
    }
    if field(b, 16, 2) as usize + 14 != len {
        return Err(DROP_BAD_LENGTH);
    }
    if ipv4_checksum(&b[14..34]) != 0 {
        return Err(DROP_BAD_CHECKSUM);
    }
    if field(b, 0, 6) != host.mac || field(b, 30, 4) != host.ip as u64 {
        return Err(DROP_NOT_FOR_US);
    }
    if b[23] != host.protocol {
        return Err(DROP_BAD_PROTOCOL);
    }
    let f = Frame::decode(b, host.layout).expect("64 bytes or more");
    let t = &f.t;
    let payload = len - HDR_BYTES;
    let total = (t.msg_len as usize).div_ceil(1024);
    let off = t.pkt_offset as usize;
    let flags_ok = t.flags & 0xe0 == 0 && t.flags & 0x0f != 0;
    let len_ok = t.msg_len != 0 && t.msg_len as u64 <= MAX_MSG_BYTES;
    let shape_ok = if t.flags & FLAG_DATA != 0 {
        let want = if t.flags & FLAG_CHOP != 0 {
            0
        } else if off + 1 == total {
            t.msg_len as usize - off * 1024
        } else {
            1024
        };
        off < total && payload == want
    } else {
        off <= total && payload == 1 && t.flags & FLAG_CHOP == 0
    };
    if !(flags_ok && len_ok && shape_ok) {
        return Err(DROP_BAD_TRANSPORT);
    }
    Ok(Hdr::of(&f, payload))
}

/// What the model saw.
#[derive(Clone, Debug, Default)]
pub struct ParserStats {
    pub frames: u64,
    pub passed: u64,
    pub drops: [u64; DROP_REASONS],
    pub words_out: u64,
    pub stalls: u64,
    /// Frames passed per kind: DATA, trimmed DATA, control.
    pub data: u64,
    pub trimmed: u64,
    pub control: u64,
}

struct Queued {
    words: Vec<Word>,
    hdr: Hdr,
    /// Cycle of its last word in.
    end: u64,
}

/// The cycle-level scoreboard. Feed it every cycle with [`ParserModel::cycle`].
pub struct ParserModel {
    host: HostCfg,
    cur: Vec<Word>,
    /// The current frame found the ring full.
    cur_ovf: bool,
    /// Words in the ring (stored, not yet read), including the current frame's.
    used: u64,
    cur_stored: u64,
    queue: VecDeque<Queued>,
    beat: usize,
    /// Counters as of the end of the previous cycle (the block's registers).
    counters: (u32, u32, [u32; DROP_REASONS]),
    pub stats: ParserStats,
}

impl ParserModel {
    pub fn new(host: HostCfg) -> Self {
        ParserModel {
            host,
            cur: vec![],
            cur_ovf: false,
            used: 0,
            cur_stored: 0,
            queue: VecDeque::new(),
            beat: 0,
            counters: (0, 0, [0; DROP_REASONS]),
            stats: ParserStats::default(),
        }
    }

    /// No frame half in, none waiting to leave.
    pub fn quiet(&self) -> bool {
        self.cur.is_empty() && self.queue.is_empty()
    }

    /// Checks cycle `t`.
    pub fn cycle(&mut self, t: u64, io: &ParserIo) -> Result<(), String> {
        // Counters and the queue level, as registered at the last edge.
        let (frames, passed, drops) = self.counters;
        if (io.frames, io.passed, io.drops) != (frames, passed, drops) {
            return Err(format!(
                "cycle {t}: counters (frames, passed, drops): expected {:?}, got {:?}",
                (frames, passed, drops),
                (io.frames, io.passed, io.drops)
            ));
        }
        let committed = self.queue.iter().filter(|q| q.end < t).count();
        if io.queued as usize != committed {
            return Err(format!(
                "cycle {t}: queued frames: expected {committed}, got {}",
                io.queued
            ));
        }
        if !io.sink_ready {
            return Err(format!("cycle {t}: sink.ready low (a MAC cannot wait)"));
        }
        // Output.
        let valid = self.queue.front().is_some_and(|q| q.end < t);
        if io.src_valid != valid {
            return Err(format!(
                "cycle {t}: source.valid: expected {valid}, got {}",
                io.src_valid
            ));
        }
        let mut popped = 0;
        if valid {
            let q = self.queue.front().expect("valid");
            let want = q.words[self.beat];
            if io.src != want || io.hdr != q.hdr {
                return Err(format!(
                    "cycle {t}: source word {} of {}:\n  expected {want:?} {:?}\n  got      {:?} {:?}",
                    self.beat,
                    q.words.len(),
                    q.hdr,
                    io.src,
                    io.hdr
                ));
            }
            if io.src_ready {
                self.stats.words_out += 1;
                self.beat += 1;
                popped = 1;
                if self.beat == q.words.len() {
                    self.beat = 0;
                    self.queue.pop_front();
                }
            } else {
                self.stats.stalls += 1;
            }
        }
        // Input.
        if io.sink_valid {
            let w = io.sink;
            let full = self.used == 1 << RING_A || committed == 64;
            let kept = self.cur.len() as u64 >= SKIP_WORDS && self.cur.len() < 137;
            let store = kept && !full && !self.cur_ovf;
            if kept && !store {
                self.cur_ovf = true;
            }
            if store {
                self.used += 1;
                self.cur_stored += 1;
            }
            self.cur.push(w);
            if w.last {
                self.end_frame(t, w)?;
            }
        }
        self.used -= popped;
        Ok(())
    }

    fn end_frame(&mut self, t: u64, w: Word) -> Result<(), String> {
        let words = std::mem::take(&mut self.cur);
        let ovf = std::mem::replace(&mut self.cur_ovf, false);
        let stored = std::mem::replace(&mut self.cur_stored, 0);
        let bytes = from_words(&words);
        if w.empty > 7 {
            return Err(format!("cycle {t}: driver error: empty {}", w.empty));
        }
        let verdict = if ovf {
            Err(DROP_OVERFLOW)
        } else {
            check_frame(&bytes, &self.host)
        };
        self.stats.frames += 1;
        self.counters.0 = self.counters.0.wrapping_add(1);
        match verdict {
            Ok(hdr) => {
                self.stats.passed += 1;
                self.counters.1 = self.counters.1.wrapping_add(1);
                match (hdr.flags & FLAG_DATA != 0, hdr.flags & FLAG_CHOP != 0) {
                    (true, false) => self.stats.data += 1,
                    (true, true) => self.stats.trimmed += 1,
                    _ => self.stats.control += 1,
                }
                // The words as they will leave: the frame re-cut (same bytes, same words).
                debug_assert_eq!(to_words(&bytes), words);
                let words = words[SKIP_WORDS as usize..].to_vec();
                self.queue.push_back(Queued { words, hdr, end: t });
            }
            Err(r) => {
                self.stats.drops[r] += 1;
                self.counters.2[r] = self.counters.2[r].wrapping_add(1);
                self.used -= stored;
            }
        }
        Ok(())
    }

    /// The drop counts by name, for reports.
    pub fn drops_by_name(&self) -> Vec<(&'static str, u64)> {
        DROP_NAMES
            .iter()
            .zip(self.stats.drops)
            .map(|(n, c)| (*n, c))
            .collect()
    }
}
