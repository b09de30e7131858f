//! A point-to-point link between two MAC interfaces: a fixed delay in cycles and seeded
//! random faults (loss, reordering, and trimming of DATA frames to their 64 bytes of
//! headers with CHOP set, as a trimming switch would). Frames are whole: the link takes a
//! frame when its last word left the sender and releases it at its arrival cycle.
use crate::pcap::Packet;
use crate::wire::{ipv4_checksum, set_field, FLAG_CHOP, FLAG_DATA, HDR_BYTES};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A link's delay and fault probabilities.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkCfg {
    /// Cycles from a frame's first word leaving to its first word arriving.
    pub delay: u64,
    /// Probability that a frame is lost.
    pub loss: f64,
    /// Probability that a frame is held back by up to `reorder_cycles` extra cycles.
    pub reorder: f64,
    pub reorder_cycles: u64,
    /// Probability that a DATA frame is trimmed (CHOP).
    pub chop: f64,
}

impl LinkCfg {
    /// A perfect link of `delay` cycles.
    pub fn ideal(delay: u64) -> Self {
        Self {
            delay,
            loss: 0.0,
            reorder: 0.0,
            reorder_cycles: 0,
            chop: 0.0,
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        for (name, p) in [
            ("loss", self.loss),
            ("reorder", self.reorder),
            ("chop", self.chop),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return Err(format!("link {name} probability {p} must be in 0..=1"));
            }
        }
        if self.delay == 0 {
            return Err("link delay must be at least 1 cycle".into());
        }
        Ok(())
    }
}

/// What a link did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub frames: u64,
    pub lost: u64,
    pub reordered: u64,
    pub chopped: u64,
}

/// One direction of a link.
pub struct Link {
    cfg: LinkCfg,
    rng: ChaCha8Rng,
    /// (arrival cycle, sequence) → frame.
    queue: BinaryHeap<Reverse<(u64, u64, Vec<u8>)>>,
    seq: u64,
    pub stats: LinkStats,
}

/// Trims a DATA frame to its headers: IPv4 total length 50, checksum fixed, CHOP set.
pub fn chop_frame(bytes: &mut Vec<u8>) {
    bytes.truncate(HDR_BYTES);
    set_field(bytes, 16, (HDR_BYTES - 14) as u64, 2);
    set_field(bytes, 24, 0, 2);
    let c = ipv4_checksum(&bytes[14..34]);
    set_field(bytes, 24, c as u64, 2);
    bytes[34] |= FLAG_CHOP;
}

impl Link {
    pub fn new(cfg: LinkCfg, seed: u64) -> Result<Self, String> {
        cfg.validate()?;
        Ok(Self {
            cfg,
            rng: ChaCha8Rng::seed_from_u64(seed),
            queue: BinaryHeap::new(),
            seq: 0,
            stats: LinkStats::default(),
        })
    }

    /// Takes a frame that started leaving at `p.cycle`.
    pub fn send(&mut self, p: &Packet) {
        self.stats.frames += 1;
        if self.cfg.loss > 0.0 && self.rng.gen_bool(self.cfg.loss) {
            self.stats.lost += 1;
            return;
        }
        let mut bytes = p.bytes.clone();
        let is_data = bytes.len() > HDR_BYTES && bytes[34] & FLAG_DATA != 0;
        if is_data && self.cfg.chop > 0.0 && self.rng.gen_bool(self.cfg.chop) {
            chop_frame(&mut bytes);
            self.stats.chopped += 1;
        }
        let mut at = p.cycle + self.cfg.delay;
        if self.cfg.reorder > 0.0 && self.rng.gen_bool(self.cfg.reorder) {
            at += self.rng.gen_range(1..=self.cfg.reorder_cycles.max(1));
            self.stats.reordered += 1;
        }
        self.seq += 1;
        self.queue.push(Reverse((at, self.seq, bytes)));
    }

    /// Frames that have arrived by cycle `now`, in arrival order.
    pub fn arrivals(&mut self, now: u64) -> Vec<Packet> {
        let mut out = vec![];
        while self
            .queue
            .peek()
            .is_some_and(|Reverse((at, _, _))| *at <= now)
        {
            let Reverse((at, _, bytes)) = self.queue.pop().expect("peeked");
            out.push(Packet { cycle: at, bytes });
        }
        out
    }

    /// Frames in flight.
    pub fn in_flight(&self) -> usize {
        self.queue.len()
    }
}
