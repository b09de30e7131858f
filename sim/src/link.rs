//! One direction of a point-to-point link between two MAC interfaces: a fixed delay in
//! cycles and seeded random faults: loss, bit corruption caught by the Ethernet FCS,
//! duplication, reordering within a window, intervals in which the link is down, and
//! trimming of DATA frames to their 64 bytes of headers with CHOP set, as a trimming
//! switch would (the NIC-pair harness's). Frames are whole: the link takes a frame when
//! its last word left the sender and releases it at its arrival cycle.
//!
//! # The frame check sequence
//! The frames of the simulator carry no FCS (the MACs of the blocks neither append nor
//! check one), so the link models the two ends of the wire: [`Link::send`] computes the
//! CRC-32 of IEEE 802.3 over the frame and appends it (least significant byte first, as
//! Ethernet sends it); a corrupting link then flips 1 to 3 distinct random bits anywhere in
//! the frame or its FCS; [`Link::arrivals`], the receiving port, recomputes the CRC over
//! what arrived, drops the frame when it differs from the FCS that arrived with it
//! (`fcs_drops`) and strips the FCS from the frames it delivers. CRC-32 has Hamming
//! distance 4 for frames up to 11,454 bytes, so every 1-to-3-bit error in our frames (at
//! most 1,088 bytes) is caught; the check is the comparison, not a record of which
//! frames were hit (`corrupted` counts those, and a test checks the two agree).
//!
//! # Order of the faults
//! A frame offered to the link ([`LinkStats::offered`]) is dropped if the wire is down at
//! any cycle from its first word out to its first word in (`down_dropped`); else lost with
//! probability `loss` (`lost`); else sent twice with probability `duplicate`
//! (`duplicated`: the copy follows the original). Each copy is then, independently,
//! trimmed (`chop`, DATA frames only), given its FCS, corrupted with probability
//! `corrupt` (`corrupted`), and held back with probability `reorder` by 1 to
//! `reorder_cycles` extra cycles (`reordered`), so that frames sent up to that many cycles
//! after it can overtake it. A link with every probability 0 draws no random number, and
//! one with only `loss`, `reorder` and `chop` draws exactly what it drew before
//! duplication, corruption and down intervals existed. Once nothing is in flight,
//! `delivered = offered - lost - fcs_drops - down_dropped + duplicated`
//! ([`LinkStats::balanced`]).
use crate::pcap::Packet;
use crate::wire::{ipv4_checksum, set_field, FLAG_CHOP, FLAG_DATA, HDR_BYTES};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The longest reordering window a link takes, in cycles.
pub const MAX_REORDER_CYCLES: u64 = 1_000_000;
/// The longest link delay, in cycles (2^40: about 344 s at 3.2 GHz).
pub const MAX_DELAY: u64 = 1 << 40;
/// Bytes of the Ethernet frame check sequence.
pub const FCS_BYTES: usize = 4;
/// At most this many bits are flipped in a corrupted frame (at least one).
pub const MAX_FLIPPED_BITS: usize = 3;

/// A link's delay and fault probabilities (each direction draws its own faults).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkCfg {
    /// Cycles from a frame's first word leaving to its first word arriving.
    pub delay: u64,
    /// Probability that a frame is lost.
    pub loss: f64,
    /// Probability that a frame is held back by up to `reorder_cycles` extra cycles.
    pub reorder: f64,
    /// The reordering window: a held frame arrives 1 to this many cycles late.
    pub reorder_cycles: u64,
    /// Probability that a DATA frame is trimmed (CHOP).
    pub chop: f64,
    /// Probability that a frame arrives with 1 to [`MAX_FLIPPED_BITS`] bits flipped (the
    /// receiver's FCS check drops it).
    pub corrupt: f64,
    /// Probability that a frame is sent twice.
    pub duplicate: f64,
    /// Intervals `[from, to)` of cycles in which the link carries nothing, in order and
    /// without overlap.
    pub down: Vec<(u64, u64)>,
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
            corrupt: 0.0,
            duplicate: 0.0,
            down: vec![],
        }
    }

    /// Does this link ever fault?
    pub fn is_ideal(&self) -> bool {
        self.loss == 0.0
            && self.reorder == 0.0
            && self.chop == 0.0
            && self.corrupt == 0.0
            && self.duplicate == 0.0
            && self.down.is_empty()
    }

    /// Checks every value; an error names the topology file's key and the value
    /// (`reorder_window` is `reorder_cycles`).
    pub fn validate(&self) -> Result<(), String> {
        for (name, p) in [
            ("loss", self.loss),
            ("reorder", self.reorder),
            ("chop", self.chop),
            ("corrupt", self.corrupt),
            ("duplicate", self.duplicate),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return Err(format!("{name} = {p}: a probability must be in 0..=1"));
            }
        }
        if self.delay == 0 {
            return Err("delay = 0: the link delay must be at least 1 cycle".into());
        }
        if self.delay > MAX_DELAY {
            return Err(format!(
                "delay = {}: the link delay must be at most 2^40 = {MAX_DELAY} cycles",
                self.delay
            ));
        }
        if self.reorder_cycles > MAX_REORDER_CYCLES {
            return Err(format!(
                "reorder_window = {}: must be 1..={MAX_REORDER_CYCLES} cycles",
                self.reorder_cycles
            ));
        }
        if self.reorder > 0.0 && self.reorder_cycles == 0 {
            return Err(format!(
                "reorder = {}: needs reorder_window, the cycles a held frame may arrive late (1..={MAX_REORDER_CYCLES})",
                self.reorder
            ));
        }
        let mut prev: Option<(u64, u64)> = None;
        for (i, &(from, to)) in self.down.iter().enumerate() {
            if from >= to {
                return Err(format!(
                    "down[{i}] = [{from}, {to}]: an interval [from, to) needs from below to"
                ));
            }
            if let Some((pf, pt)) = prev {
                if from < pt {
                    return Err(format!(
                        "down[{i}] = [{from}, {to}] starts before down[{}] = [{pf}, {pt}] ends: list the intervals in order, without overlap",
                        i - 1
                    ));
                }
            }
            prev = Some((from, to));
        }
        Ok(())
    }

    /// Is the wire down at some cycle of `[from, to]`?
    pub fn down_during(&self, from: u64, to: u64) -> bool {
        // The intervals are ordered: the first that ends after `from` decides.
        let i = self.down.partition_point(|&(_, end)| end <= from);
        self.down.get(i).is_some_and(|&(start, _)| start <= to)
    }
}

/// What one direction of a link did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Frames the sender put on the link.
    pub offered: u64,
    /// Frames the receiving port took (FCS good), duplicates included.
    pub delivered: u64,
    /// Frames lost (`loss`).
    pub lost: u64,
    /// Frames whose bits the link flipped (`corrupt`).
    pub corrupted: u64,
    /// Frames the receiving port dropped because their FCS did not match.
    pub fcs_drops: u64,
    /// Extra copies sent (`duplicate`).
    pub duplicated: u64,
    /// Frames held back by 1 to `reorder_cycles` cycles (`reorder`).
    pub reordered: u64,
    /// Frames dropped because the link was down while they were on it.
    pub down_dropped: u64,
    /// DATA frames trimmed (`chop`).
    pub chopped: u64,
}

impl LinkStats {
    /// `delivered + in_flight = offered - lost - fcs_drops - down_dropped + duplicated`.
    pub fn balanced(&self, in_flight: u64) -> bool {
        self.delivered + in_flight + self.lost + self.fcs_drops + self.down_dropped
            == self.offered + self.duplicated
    }

    /// Adds another direction's counts.
    pub fn add(&mut self, o: &LinkStats) {
        self.offered += o.offered;
        self.delivered += o.delivered;
        self.lost += o.lost;
        self.corrupted += o.corrupted;
        self.fcs_drops += o.fcs_drops;
        self.duplicated += o.duplicated;
        self.reordered += o.reordered;
        self.down_dropped += o.down_dropped;
        self.chopped += o.chopped;
    }

    /// `(column, value)` in the order of `links.csv`.
    pub fn fields(&self) -> [(&'static str, u64); 8] {
        [
            ("offered", self.offered),
            ("delivered", self.delivered),
            ("lost", self.lost),
            ("corrupted", self.corrupted),
            ("fcs_drops", self.fcs_drops),
            ("duplicated", self.duplicated),
            ("reordered", self.reordered),
            ("down_dropped", self.down_dropped),
        ]
    }
}

/// The CRC-32 of IEEE 802.3 (reflected polynomial 0xEDB88320, initial value and final
/// XOR all ones), as the Ethernet FCS.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c = CRC_TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// Appends the frame's FCS.
pub fn append_fcs(bytes: &mut Vec<u8>) {
    let c = crc32(bytes);
    bytes.extend_from_slice(&c.to_le_bytes());
}

/// The receiving port's check: the frame without its FCS when the FCS matches.
pub fn check_fcs(mut bytes: Vec<u8>) -> Option<Vec<u8>> {
    let n = bytes.len().checked_sub(FCS_BYTES)?;
    let fcs = u32::from_le_bytes(bytes[n..].try_into().ok()?);
    if crc32(&bytes[..n]) != fcs {
        return None;
    }
    bytes.truncate(n);
    Some(bytes)
}

/// One direction of a link.
pub struct Link {
    cfg: LinkCfg,
    rng: ChaCha8Rng,
    /// (arrival cycle, sequence) → frame with its FCS.
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

    /// The link's configuration.
    pub fn cfg(&self) -> &LinkCfg {
        &self.cfg
    }

    /// Takes a frame that started leaving at `p.cycle`.
    pub fn send(&mut self, p: &Packet) {
        self.stats.offered += 1;
        let at = p.cycle.saturating_add(self.cfg.delay);
        if self.cfg.down_during(p.cycle, at) {
            self.stats.down_dropped += 1;
            return;
        }
        if self.cfg.loss > 0.0 && self.rng.gen_bool(self.cfg.loss) {
            self.stats.lost += 1;
            return;
        }
        let copies = if self.cfg.duplicate > 0.0 && self.rng.gen_bool(self.cfg.duplicate) {
            self.stats.duplicated += 1;
            2
        } else {
            1
        };
        for _ in 0..copies {
            let mut bytes = p.bytes.clone();
            let is_data = bytes.len() > HDR_BYTES && bytes[34] & FLAG_DATA != 0;
            if is_data && self.cfg.chop > 0.0 && self.rng.gen_bool(self.cfg.chop) {
                chop_frame(&mut bytes);
                self.stats.chopped += 1;
            }
            append_fcs(&mut bytes);
            if self.cfg.corrupt > 0.0 && self.rng.gen_bool(self.cfg.corrupt) {
                self.flip_bits(&mut bytes);
                self.stats.corrupted += 1;
            }
            let mut at = at;
            if self.cfg.reorder > 0.0 && self.rng.gen_bool(self.cfg.reorder) {
                at = at.saturating_add(self.rng.gen_range(1..=self.cfg.reorder_cycles.max(1)));
                self.stats.reordered += 1;
            }
            self.seq += 1;
            self.queue.push(Reverse((at, self.seq, bytes)));
        }
    }

    /// Flips 1 to [`MAX_FLIPPED_BITS`] distinct bits of the frame and its FCS.
    fn flip_bits(&mut self, bytes: &mut [u8]) {
        let bits = bytes.len() * 8;
        let n = self.rng.gen_range(1..=MAX_FLIPPED_BITS.min(bits));
        let mut done: Vec<usize> = Vec::with_capacity(n);
        while done.len() < n {
            let b = self.rng.gen_range(0..bits);
            if !done.contains(&b) {
                bytes[b / 8] ^= 1 << (b % 8);
                done.push(b);
            }
        }
    }

    /// Frames that have arrived by cycle `now`, in arrival order, through the receiving
    /// port's FCS check (frames that fail it are dropped and counted).
    pub fn arrivals(&mut self, now: u64) -> Vec<Packet> {
        let mut out = vec![];
        while self
            .queue
            .peek()
            .is_some_and(|Reverse((at, _, _))| *at <= now)
        {
            let Some(Reverse((at, _, bytes))) = self.queue.pop() else {
                break;
            };
            match check_fcs(bytes) {
                Some(bytes) => {
                    self.stats.delivered += 1;
                    out.push(Packet { cycle: at, bytes });
                }
                None => self.stats.fcs_drops += 1,
            }
        }
        out
    }

    /// Frames in flight.
    pub fn in_flight(&self) -> usize {
        self.queue.len()
    }
}
