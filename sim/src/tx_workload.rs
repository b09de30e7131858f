//! Seeded random traffic for the [`Packetization`] block, as the application and the
//! ingress pipeline would drive it: messages of 1 B to 38 KiB (mostly small) with random
//! gaps, acknowledgements of the packets that left (single, and cumulative), credit
//! changes up and down, NACK-style retransmission requests, events for unknown ids, and
//! bursts of output backpressure. The timeouts come from the block's own timer.
//!
//! Used by `ntsim wave packetization` and the co-simulation test; the packets' contents
//! are checked by `hdl/src/packetization/tests.rs`.
use crate::workload::bits_u64;
use nt_hdl::packetization::{Packetization, MAX_MSG_BYTES};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// One event for the `delivered` or `credit` port.
#[derive(Clone, Copy, Debug)]
enum Event {
    Delivered {
        id: u16,
        bits: u64,
        below: Option<u8>,
    },
    Credit {
        id: u16,
        rtx: Option<u64>,
        credit: Option<u16>,
        allow: bool,
    },
}

/// Seeded driver of a packetization block.
pub struct TxWorkload {
    rng: ChaCha8Rng,
    app: VecDeque<(u64, bool, u16)>,
    dlv: VecDeque<Event>,
    crd: VecDeque<Event>,
    /// Packets seen leaving: (id, offset).
    sent: VecDeque<(u16, u8)>,
    cur_first: Option<(u16, u8)>,
    stall_left: u32,
    msg_seq: u64,
    /// What the driver did.
    pub messages: u64,
    pub packets_out: u64,
    pub statuses: u64,
}

impl TxWorkload {
    pub fn new(seed: u64) -> Self {
        TxWorkload {
            rng: ChaCha8Rng::seed_from_u64(seed),
            app: VecDeque::new(),
            dlv: VecDeque::new(),
            crd: VecDeque::new(),
            sent: VecDeque::new(),
            cur_first: None,
            stall_left: 0,
            msg_seq: 0,
            messages: 0,
            packets_out: 0,
            statuses: 0,
        }
    }

    fn new_message(&mut self) {
        let len: u64 = match self.rng.gen_range(0..10) {
            0..=5 => self.rng.gen_range(1..=256),
            6..=8 => self.rng.gen_range(257..=4096),
            _ => self.rng.gen_range(4097..=MAX_MSG_BYTES),
        };
        // Now and then a malformed header (length 0), which the block refuses.
        let len = if self.rng.gen_bool(0.01) { 0 } else { len };
        let ip: u32 = 0x0a00_0000 | self.rng.gen_range(1..64);
        let hdr = (ip as u64) << 32 | 7000u64 << 16 | len;
        let words = len.div_ceil(8);
        let src = self.rng.gen_range(1..100);
        self.app.push_back((hdr, words == 0, src));
        for i in 0..words {
            self.app
                .push_back((self.msg_seq << 32 | i, i + 1 == words, src));
        }
        self.msg_seq += 1;
        self.messages += 1;
    }

    /// Sets the block's inputs for `cycle`.
    pub fn drive<const A: usize, const N: usize, const C: usize, const BW: usize>(
        &mut self,
        cycle: u64,
        u: &mut Packetization<A, N, C, BW>,
    ) {
        if self.app.is_empty() && self.rng.gen_bool(0.05) {
            self.new_message();
        }
        // Acknowledge what left, mostly one by one, sometimes cumulatively; ask for
        // retransmissions and change credit now and then; a few events for unknown ids.
        if let Some(&(id, off)) = self.sent.front() {
            if self.rng.gen_bool(0.3) {
                self.sent.pop_front();
                let r = self.rng.gen_range(0..100);
                let ev = if r < 75 {
                    Event::Delivered {
                        id,
                        bits: 1 << off,
                        below: None,
                    }
                } else if r < 85 {
                    Event::Delivered {
                        id,
                        bits: 0,
                        below: Some(off + 1),
                    }
                } else if r < 92 {
                    Event::Credit {
                        id,
                        rtx: Some(1 << off),
                        credit: None,
                        allow: true,
                    }
                } else {
                    Event::Credit {
                        id,
                        rtx: None,
                        credit: Some(self.rng.gen_range(0..48)),
                        allow: true,
                    }
                };
                match ev {
                    Event::Delivered { .. } => self.dlv.push_back(ev),
                    Event::Credit { .. } => self.crd.push_back(ev),
                }
            }
        }
        if self.rng.gen_bool(0.001) {
            self.dlv.push_back(Event::Delivered {
                id: 0x7fff,
                bits: 1,
                below: None,
            });
        }
        if self.stall_left == 0 && self.rng.gen_bool(0.004) {
            self.stall_left = self.rng.gen_range(1..=40);
        }
        let ready = if self.stall_left > 0 {
            self.stall_left -= 1;
            false
        } else {
            true
        };
        u.now.next = cycle.into();
        u.reset.next = false;
        u.cfg.rtt_pkts.next = 4u64.into();
        u.cfg.timeout.next = 3000u64.into();
        u.cfg.max_timeouts.next = 3u64.into();
        u.source.ready.next = ready;
        u.status.ready.next = true;
        let a = self.app.front().copied();
        u.app.valid.next = a.is_some();
        let (w, last, src) = a.unwrap_or_default();
        u.app.data.next = w.into();
        u.app.last.next = last;
        u.app.src_port.next = (src as u64).into();
        let d = self.dlv.front().copied();
        u.delivered.valid.next = d.is_some();
        if let Some(Event::Delivered { id, bits, below }) = d {
            u.delivered.tx_msg_id.next = (id as u64).into();
            u.delivered.ack_bitmap.next = bits.into();
            u.delivered.below_flag.next = below.is_some();
            u.delivered.below.next = (below.unwrap_or(0) as u64).into();
        }
        let c = self.crd.front().copied();
        u.credit.valid.next = c.is_some();
        if let Some(Event::Credit {
            id,
            rtx,
            credit,
            allow,
        }) = c
        {
            u.credit.tx_msg_id.next = (id as u64).into();
            u.credit.rtx_flag.next = rtx.is_some();
            u.credit.rtx_bitmap.next = rtx.unwrap_or(0).into();
            u.credit.credit_flag.next = credit.is_some();
            u.credit.new_credit.next = (credit.unwrap_or(0) as u64).into();
            u.credit.allow_tx.next = allow;
            u.credit.rank_flag.next = false;
            u.credit.new_rank.next = 0u64.into();
        }
    }

    /// Reads the outputs of the cycle (after the kernel settled) and advances. Returns
    /// (a word left on `source`, an application word was taken).
    pub fn observe<const A: usize, const N: usize, const C: usize, const BW: usize>(
        &mut self,
        u: &Packetization<A, N, C, BW>,
    ) -> (bool, bool) {
        let app_taken = !self.app.is_empty() && u.app.ready.val();
        if app_taken {
            self.app.pop_front();
        }
        if !self.dlv.is_empty() && u.delivered.ready.val() {
            self.dlv.pop_front();
        }
        if !self.crd.is_empty() && u.credit.ready.val() {
            self.crd.pop_front();
        }
        self.statuses += u.status.valid.val() as u64;
        let s = &u.source;
        let word = s.valid.val() && u.source.ready.val();
        if word {
            let here = (
                bits_u64(s.tx_msg_id.val()) as u16,
                bits_u64(s.pkt_offset.val()) as u8,
            );
            self.cur_first.get_or_insert(here);
            if s.last.val() {
                if let Some(p) = self.cur_first.take() {
                    self.sent.push_back(p);
                    self.packets_out += 1;
                }
            }
        }
        (word, app_taken)
    }
}
