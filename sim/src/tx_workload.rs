//! Seeded random traffic for the [`Packetization`] block, as the application and the
//! ingress pipeline would drive it: messages of 1 B to 38 KiB (mostly small) with random
//! gaps and now and then a malformed header; acknowledgements of the packets that left
//! (single, several at once and cumulative, some of packets not sent yet); NACK-style
//! retransmission requests of one or several offsets; credit changes up and down, often
//! below what is already sent; pauses (`allow_tx` off, resumed later) and rank changes;
//! events for unknown or freed ids; acknowledgements that never come (so the block's own
//! timer retransmits and gives up); and bursts of backpressure on `source` and `status`.
//!
//! Events carry the `tx_msg_id` the packet left with (`gen << 8 | slot`), as a receiver
//! echoes it. Now and then an event for the same slot but an older generation is added
//! (a late ACK or CREDIT of an earlier incarnation of the slot: the tag the slot's
//! previous message left with, or a random older generation); the block must drop it.
//! Most of these would be conspicuous if applied: a cumulative ACK of every offset, or a
//! CREDIT that pauses the message with credit 0.
//!
//! [`read_tx_io`] snapshots every port in a cycle for the golden model
//! (`nt_testbench::packetization_model`), which checks the block against it in
//! `testbench/tests/suite/packetization_equivalence.rs`. `ntsim wave packetization` and the
//! co-simulation test use the default knobs.
use crate::arb_workload::{read_frame_beat, TxBeat};
use crate::workload::Stalls;
use nt_hdl::arbiter::TxFrameSource;
use nt_hdl::packetization::{Packetization, MAX_MSG_BYTES, MAX_PKTS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// The message a control packet claims to be about (`delivered` / `credit`'s `peer_ip`,
/// `peer_port`, `local_port`, `msg_len`): a sent packet's `remote_ip`, `remote_port`,
/// `local_port` and `msg_len`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Claim {
    pub peer_ip: u32,
    pub peer_port: u16,
    pub local_port: u16,
    pub msg_len: u16,
}

impl Claim {
    /// The claim of the packet on `s`.
    pub fn of_source(s: &TxFrameSource) -> Claim {
        Claim {
            peer_ip: s.remote_ip.val().to_u64() as u32,
            peer_port: s.remote_port.val().to_u64() as u16,
            local_port: s.local_port.val().to_u64() as u16,
            msg_len: s.msg_len.val().to_u64() as u16,
        }
    }

    /// The same claim with one field changed (`which` picks it, 0-3).
    pub fn spoofed(self, which: u32) -> Claim {
        let mut c = self;
        match which % 4 {
            0 => c.peer_ip ^= 0x0100_0000,
            1 => c.peer_port = c.peer_port.wrapping_add(1),
            2 => c.local_port = c.local_port.wrapping_add(1),
            _ => c.msg_len = c.msg_len.wrapping_add(1),
        }
        c
    }
}

/// Drives a claim onto `delivered` or `credit`'s claim ports.
#[macro_export]
macro_rules! drive_claim {
    ($port:expr, $c:expr) => {{
        let c: $crate::tx_workload::Claim = $c;
        $port.peer_ip.next = (c.peer_ip as u64).into();
        $port.peer_port.next = (c.peer_port as u64).into();
        $port.local_port.next = (c.local_port as u64).into();
        $port.msg_len.next = (c.msg_len as u64).into();
    }};
}

/// Reads a claim from `delivered` or `credit`'s claim ports.
#[macro_export]
macro_rules! read_claim {
    ($port:expr) => {
        $crate::tx_workload::Claim {
            peer_ip: $port.peer_ip.val().to_u64() as u32,
            peer_port: $port.peer_port.val().to_u64() as u16,
            local_port: $port.local_port.val().to_u64() as u16,
            msg_len: $port.msg_len.val().to_u64() as u16,
        }
    };
}

/// A `DeliveredEvent` (Algorithm 2) on the `delivered` port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DlvIn {
    /// `tx_msg_id`: `gen << 8 | slot`.
    pub id: u16,
    pub bits: u64,
    /// The cumulative form: every offset below this one is delivered.
    pub below: Option<u8>,
    pub claim: Claim,
}

/// A `CreditTxEvent` (Algorithm 3) on the `credit` port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CrdIn {
    /// `tx_msg_id`: `gen << 8 | slot`.
    pub id: u16,
    pub rtx: Option<u64>,
    pub credit: Option<u16>,
    pub allow: bool,
    pub rank: Option<u8>,
    pub claim: Claim,
}

/// What the driver varies.
#[derive(Clone, Debug)]
pub struct TxKnobs {
    /// `cfg.rtt_pkts`, `cfg.timeout`, `cfg.max_timeouts`, `cfg.reuse_gap`.
    pub rtt_pkts: u8,
    pub timeout: u32,
    pub max_timeouts: u8,
    pub reuse_gap: u32,
    /// Per idle application cycle, the chance that a new message starts.
    pub p_msg: f64,
    /// Per cycle, the chance that the oldest packet seen leaving gets its event.
    pub p_event: f64,
    /// Per cycle, the chance that a stall of `source.ready` (1-40 cycles) starts.
    pub p_source_stall: f64,
    /// Per cycle, the chance that a stall of `status.ready` (1-20 cycles) starts.
    pub p_status_stall: f64,
    /// Use the whole event mix (multi-bit acks and NACKs, pauses, rank changes, lost
    /// acknowledgements); otherwise only single and cumulative acks, single NACKs and
    /// credit changes.
    pub rich: bool,
    /// Per event, the chance that a stale-generation event for the same slot goes first.
    pub p_stale: f64,
    /// Per event, the chance that it is forged instead: a claim with one field wrong, or
    /// an offset never sent (a cumulative ACK of the whole message, or the last
    /// offset's bit), which the block must drop and count.
    pub p_spoof: f64,
    /// Per message, the chance that its header is malformed (length 0 or above the
    /// maximum), which the block must refuse.
    pub p_bad_header: f64,
}

impl Default for TxKnobs {
    fn default() -> Self {
        TxKnobs {
            rtt_pkts: 4,
            timeout: 3000,
            max_timeouts: 3,
            reuse_gap: 300,
            p_msg: 0.05,
            p_event: 0.3,
            p_source_stall: 0.004,
            p_status_stall: 0.0,
            rich: false,
            p_stale: 0.02,
            p_spoof: 0.03,
            p_bad_header: 0.01,
        }
    }
}

/// Seeded driver of a packetization block.
pub struct TxWorkload {
    rng: ChaCha8Rng,
    knobs: TxKnobs,
    app: VecDeque<(u64, bool, u16)>,
    dlv: VecDeque<DlvIn>,
    crd: VecDeque<CrdIn>,
    /// Resumptions of paused messages: (cycle, id).
    resume: VecDeque<(u64, u16)>,
    /// Packets seen leaving: (tx_msg_id, offset, claim).
    sent: VecDeque<(u16, u8, Claim)>,
    /// The claim of each `tx_msg_id` seen leaving (for resumptions).
    claims: std::collections::HashMap<u16, Claim>,
    /// Per slot, the last two distinct `tx_msg_id`s seen leaving (newest first).
    tags: Vec<[Option<u16>; 2]>,
    cur_first: Option<(u16, u8, Claim)>,
    source_stalls: Stalls,
    status_stalls: Stalls,
    msg_seq: u64,
    /// Start new messages (turn off to drain).
    pub generate: bool,
    /// What the driver did.
    pub messages: u64,
    pub packets_out: u64,
    pub statuses: u64,
    /// Stale-generation events presented.
    pub stale_events: u64,
    /// Forged events presented (a wrong claim, an offset never sent).
    pub spoofed_events: u64,
}

/// A 38-bit mask with a few random bits set.
fn sparse(rng: &mut ChaCha8Rng) -> u64 {
    rng.gen::<u64>() & rng.gen::<u64>() & rng.gen::<u64>() & ((1u64 << MAX_PKTS) - 1)
}

impl TxWorkload {
    /// The default knobs (the co-simulation and `ntsim wave` workload).
    pub fn new(seed: u64) -> Self {
        Self::with_knobs(seed, TxKnobs::default())
    }

    pub fn with_knobs(seed: u64, knobs: TxKnobs) -> Self {
        TxWorkload {
            rng: ChaCha8Rng::seed_from_u64(seed),
            knobs,
            app: VecDeque::new(),
            dlv: VecDeque::new(),
            crd: VecDeque::new(),
            resume: VecDeque::new(),
            sent: VecDeque::new(),
            claims: Default::default(),
            tags: vec![[None; 2]; 256],
            cur_first: None,
            source_stalls: Stalls::default(),
            status_stalls: Stalls::default(),
            msg_seq: 0,
            generate: true,
            messages: 0,
            packets_out: 0,
            statuses: 0,
            stale_events: 0,
            spoofed_events: 0,
        }
    }

    /// Nothing left to present: no application words, events, pending resumptions or
    /// packets waiting for their event.
    pub fn idle(&self) -> bool {
        self.app.is_empty()
            && self.dlv.is_empty()
            && self.crd.is_empty()
            && self.resume.is_empty()
            && self.sent.is_empty()
    }

    fn new_message(&mut self) {
        let len: u64 = match self.rng.gen_range(0..10) {
            0..=5 => self.rng.gen_range(1..=256),
            6..=8 => self.rng.gen_range(257..=4096),
            _ => self.rng.gen_range(4097..=MAX_MSG_BYTES),
        };
        // Now and then a malformed header (length 0 or too long), which the block refuses.
        let len = if self.rng.gen_bool(self.knobs.p_bad_header) {
            if self.rng.gen_bool(0.5) {
                0
            } else {
                self.rng.gen_range(MAX_MSG_BYTES + 1..=0xffff)
            }
        } else {
            len
        };
        let ip: u32 = 0x0a00_0000 | self.rng.gen_range(1..64);
        let hdr = (ip as u64) << 32 | 7000u64 << 16 | len;
        // A too-long header comes with a short payload (the block discards up to `last`).
        let words = if len > MAX_MSG_BYTES {
            self.rng.gen_range(1..=16)
        } else {
            len.div_ceil(8)
        };
        let src = self.rng.gen_range(1..100);
        self.app.push_back((hdr, words == 0, src));
        for i in 0..words {
            self.app
                .push_back((self.msg_seq << 32 | i, i + 1 == words, src));
        }
        self.msg_seq += 1;
        self.messages += 1;
    }

    /// A late event of an earlier incarnation of the slot of `id` (a `tx_msg_id` seen
    /// leaving): the slot's previous message's id if one was seen, else a random older
    /// generation.
    fn stale_event_for(&mut self, id: u16, off: u8, claim: Claim) {
        let slot = id & 0xff;
        // Older than the newest incarnation of the slot seen leaving.
        let newest = self.tags[slot as usize][0].unwrap_or(id);
        let old = match self.tags[slot as usize] {
            [Some(_), Some(prev)] if self.rng.gen_bool(0.5) => prev,
            _ => {
                let back: u16 = self.rng.gen_range(1..=255);
                (((newest >> 8).wrapping_sub(back)) & 0xff) << 8 | slot
            }
        };
        let one = 1u64 << off;
        let all = (1u64 << MAX_PKTS) - 1;
        match self.rng.gen_range(0..4) {
            0 | 1 => self.dlv.push_back(DlvIn {
                id: old,
                bits: all,
                below: Some(MAX_PKTS as u8),
                claim,
            }),
            2 => self.dlv.push_back(DlvIn {
                id: old,
                bits: one,
                below: None,
                claim,
            }),
            _ => self.crd.push_back(CrdIn {
                id: old,
                rtx: Some(one),
                credit: Some(0),
                allow: false,
                rank: Some(self.rng.gen()),
                claim,
            }),
        }
        self.stale_events += 1;
    }

    /// The event for packet `off` of message `id` (which left).
    fn event_for(&mut self, cycle: u64, id: u16, off: u8, claim: Claim) {
        let r = self.rng.gen_range(0..100);
        let one = 1u64 << off;
        if self.rng.gen_bool(self.knobs.p_spoof) {
            self.spoofed_events += 1;
            let last = 1u64 << (MAX_PKTS - 1);
            match self.rng.gen_range(0..6) {
                0 => self.dlv.push_back(DlvIn {
                    id,
                    bits: one,
                    below: None,
                    claim: claim.spoofed(self.rng.gen()),
                }),
                1 => self.crd.push_back(CrdIn {
                    id,
                    rtx: Some(one),
                    credit: Some(MAX_PKTS as u16),
                    allow: true,
                    rank: None,
                    claim: claim.spoofed(self.rng.gen()),
                }),
                2 => self.dlv.push_back(DlvIn {
                    id,
                    bits: 0,
                    below: Some(MAX_PKTS as u8),
                    claim,
                }),
                3 => self.dlv.push_back(DlvIn {
                    id,
                    bits: last,
                    below: None,
                    claim,
                }),
                4 => self.crd.push_back(CrdIn {
                    id,
                    rtx: Some(last),
                    credit: None,
                    allow: true,
                    rank: None,
                    claim,
                }),
                _ => self.dlv.push_back(DlvIn {
                    id,
                    bits: one,
                    below: Some(self.rng.gen()),
                    claim,
                }),
            }
            return;
        }
        let crd = |rtx, credit, allow, rank| CrdIn {
            id,
            rtx,
            credit,
            allow,
            rank,
            claim,
        };
        if !self.knobs.rich {
            match r {
                0..=74 => self.dlv.push_back(DlvIn {
                    id,
                    bits: one,
                    below: None,
                    claim,
                }),
                75..=84 => self.dlv.push_back(DlvIn {
                    id,
                    bits: 0,
                    below: Some(off + 1),
                    claim,
                }),
                85..=91 => self.crd.push_back(crd(Some(one), None, true, None)),
                _ => {
                    let c = self.rng.gen_range(0..48);
                    self.crd.push_back(crd(None, Some(c), true, None))
                }
            }
            return;
        }
        match r {
            0..=61 => self.dlv.push_back(DlvIn {
                id,
                bits: one,
                below: None,
                claim,
            }),
            62..=69 => self.dlv.push_back(DlvIn {
                id,
                bits: 0,
                below: Some(off + 1),
                claim,
            }),
            70..=73 => {
                // Offsets up to this one: all sent (a message sends in offset order).
                let bits = (one | sparse(&mut self.rng)) & ((one << 1) - 1);
                self.dlv.push_back(DlvIn {
                    id,
                    bits,
                    below: None,
                    claim,
                })
            }
            74..=81 => self.crd.push_back(crd(Some(one), None, true, None)),
            82..=84 => {
                let bits = (one | sparse(&mut self.rng)) & ((one << 1) - 1);
                self.crd.push_back(crd(Some(bits), None, true, None))
            }
            85..=91 => {
                // Up or down, often below the offsets already sent.
                let c = if self.rng.gen_bool(0.8) {
                    self.rng.gen_range(0..48)
                } else {
                    self.rng.gen_range(0..=0xffff)
                };
                self.crd.push_back(crd(None, Some(c), true, None))
            }
            92..=94 => {
                self.crd.push_back(crd(None, None, false, None));
                let at = cycle + self.rng.gen_range(20..2000);
                let pos = self.resume.partition_point(|&(c, _)| c <= at);
                self.resume.insert(pos, (at, id));
            }
            95..=97 => {
                let rank = self.rng.gen();
                self.crd.push_back(crd(None, None, true, Some(rank)))
            }
            // The acknowledgement is lost.
            _ => {}
        }
    }

    /// Sets the block's inputs for `cycle`.
    pub fn drive<const A: usize, const N: usize, const C: usize, const BW: usize>(
        &mut self,
        cycle: u64,
        u: &mut Packetization<A, N, C, BW>,
    ) {
        if self.generate && self.app.is_empty() && self.rng.gen_bool(self.knobs.p_msg) {
            self.new_message();
        }
        // Acknowledge what left, ask for retransmissions, change credit, ...
        if let Some(&(id, off, claim)) = self.sent.front() {
            if self.rng.gen_bool(self.knobs.p_event) {
                self.sent.pop_front();
                if self.rng.gen_bool(self.knobs.p_stale) {
                    self.stale_event_for(id, off, claim);
                }
                self.event_for(cycle, id, off, claim);
            }
        }
        while let Some(&(at, id)) = self.resume.front() {
            if at > cycle {
                break;
            }
            self.resume.pop_front();
            let claim = self.claims.get(&id).copied().unwrap_or_default();
            self.crd.push_back(CrdIn {
                id,
                allow: true,
                claim,
                ..Default::default()
            });
        }
        if self.rng.gen_bool(0.001) {
            self.dlv.push_back(DlvIn {
                id: 0x7fff,
                bits: 1,
                below: None,
                claim: Claim::default(),
            });
        }
        let ready = self
            .source_stalls
            .ready(&mut self.rng, self.knobs.p_source_stall, 40);
        let status_ready = self
            .status_stalls
            .ready(&mut self.rng, self.knobs.p_status_stall, 20);
        u.now.next = cycle.into();
        u.reset.next = false;
        u.cfg.rtt_pkts.next = (self.knobs.rtt_pkts as u64).into();
        u.cfg.timeout.next = (self.knobs.timeout as u64).into();
        u.cfg.max_timeouts.next = (self.knobs.max_timeouts as u64).into();
        u.cfg.reuse_gap.next = (self.knobs.reuse_gap as u64).into();
        u.source.ready.next = ready;
        u.status.ready.next = status_ready;
        let a = self.app.front().copied();
        u.app.valid.next = a.is_some();
        let (w, last, src) = a.unwrap_or_default();
        u.app.data.next = w.into();
        u.app.last.next = last;
        u.app.src_port.next = (src as u64).into();
        let d = self.dlv.front().copied();
        u.delivered.valid.next = d.is_some();
        let d = d.unwrap_or_default();
        u.delivered.tx_msg_id.next = (d.id as u64).into();
        u.delivered.ack_bitmap.next = d.bits.into();
        u.delivered.below_flag.next = d.below.is_some();
        u.delivered.below.next = (d.below.unwrap_or(0) as u64).into();
        drive_claim!(u.delivered, d.claim);
        let c = self.crd.front().copied();
        u.credit.valid.next = c.is_some();
        let c = c.unwrap_or_default();
        u.credit.tx_msg_id.next = (c.id as u64).into();
        u.credit.rtx_flag.next = c.rtx.is_some();
        u.credit.rtx_bitmap.next = c.rtx.unwrap_or(0).into();
        u.credit.credit_flag.next = c.credit.is_some();
        u.credit.new_credit.next = (c.credit.unwrap_or(0) as u64).into();
        u.credit.allow_tx.next = c.allow;
        u.credit.rank_flag.next = c.rank.is_some();
        u.credit.new_rank.next = (c.rank.unwrap_or(0) as u64).into();
        drive_claim!(u.credit, c.claim);
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
        self.statuses += (u.status.valid.val() && u.status.ready.val()) as u64;
        let s = &u.source;
        let word = s.valid.val() && u.source.ready.val();
        if word {
            let here = (
                s.tx_msg_id.val().to_u64() as u16,
                s.pkt_offset.val().to_u64() as u8,
                Claim::of_source(s),
            );
            self.cur_first.get_or_insert(here);
            if s.last.val() {
                if let Some(p) = self.cur_first.take() {
                    self.sent.push_back(p);
                    self.packets_out += 1;
                    self.claims.insert(p.0, p.2);
                    let t = &mut self.tags[(p.0 & 0xff) as usize];
                    if t[0] != Some(p.0) {
                        *t = [Some(p.0), t[0]];
                    }
                }
            }
        }
        (word, app_taken)
    }
}

/// Counters and free-list levels (`stat`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxStats {
    pub sent: u32,
    pub retransmitted: u32,
    pub probes: u32,
    pub given_up: u32,
    pub completed: u32,
    pub bad_events: u32,
    pub bad_peer: u32,
    pub bad_offset: u32,
    pub ids_free: u16,
    pub bufs_free: u16,
}

/// Every port of a packetization block in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxIo {
    pub now: u64,
    pub reset: bool,
    pub rtt_pkts: u8,
    pub timeout: u32,
    pub max_timeouts: u8,
    pub reuse_gap: u32,
    pub app_valid: bool,
    pub app_ready: bool,
    pub app_data: u64,
    pub app_last: bool,
    pub app_src_port: u16,
    /// The event presented on `delivered` / `credit`, if `valid`.
    pub dlv: Option<DlvIn>,
    pub dlv_ready: bool,
    pub crd: Option<CrdIn>,
    pub crd_ready: bool,
    pub src_valid: bool,
    pub src_ready: bool,
    pub src: TxBeat,
    pub st_valid: bool,
    pub st_ready: bool,
    pub st_id: u16,
    pub st_code: u8,
    pub stats: TxStats,
}

/// Reads every port (after the kernel settled).
pub fn read_tx_io<const A: usize, const N: usize, const C: usize, const BW: usize>(
    u: &Packetization<A, N, C, BW>,
) -> TxIo {
    let (src_valid, src) = read_frame_beat(&u.source);
    let d = &u.delivered;
    let c = &u.credit;
    let s = &u.stat;
    TxIo {
        now: u.now.val().to_u64(),
        reset: u.reset.val(),
        rtt_pkts: u.cfg.rtt_pkts.val().to_u64() as u8,
        timeout: u.cfg.timeout.val().to_u64() as u32,
        max_timeouts: u.cfg.max_timeouts.val().to_u64() as u8,
        reuse_gap: u.cfg.reuse_gap.val().to_u64() as u32,
        app_valid: u.app.valid.val(),
        app_ready: u.app.ready.val(),
        app_data: u.app.data.val().to_u64(),
        app_last: u.app.last.val(),
        app_src_port: u.app.src_port.val().to_u64() as u16,
        dlv: d.valid.val().then(|| DlvIn {
            id: d.tx_msg_id.val().to_u64() as u16,
            bits: d.ack_bitmap.val().to_u64(),
            below: d.below_flag.val().then(|| d.below.val().to_u64() as u8),
            claim: read_claim!(d),
        }),
        dlv_ready: d.ready.val(),
        crd: c.valid.val().then(|| CrdIn {
            id: c.tx_msg_id.val().to_u64() as u16,
            rtx: c.rtx_flag.val().then(|| c.rtx_bitmap.val().to_u64()),
            credit: c
                .credit_flag
                .val()
                .then(|| c.new_credit.val().to_u64() as u16),
            allow: c.allow_tx.val(),
            rank: c.rank_flag.val().then(|| c.new_rank.val().to_u64() as u8),
            claim: read_claim!(c),
        }),
        crd_ready: c.ready.val(),
        src_valid,
        src_ready: u.source.ready.val(),
        src,
        st_valid: u.status.valid.val(),
        st_ready: u.status.ready.val(),
        st_id: u.status.tx_msg_id.val().to_u64() as u16,
        st_code: u.status.code.val().to_u64() as u8,
        stats: TxStats {
            sent: s.sent.val().to_u64() as u32,
            retransmitted: s.retransmitted.val().to_u64() as u32,
            probes: s.probes.val().to_u64() as u32,
            given_up: s.given_up.val().to_u64() as u32,
            completed: s.completed.val().to_u64() as u32,
            bad_events: s.bad_events.val().to_u64() as u32,
            bad_peer: s.bad_peer.val().to_u64() as u32,
            bad_offset: s.bad_offset.val().to_u64() as u32,
            ids_free: s.ids_free.val().to_u64() as u16,
            bufs_free: s.bufs_free.val().to_u64() as u16,
        },
    }
}
