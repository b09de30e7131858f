//! The switch's configuration ([`SwitchSetup`]), one cycle of a port's values ([`PortIn`],
//! [`PortOut`], [`PortStats`]) as every engine and driver of the switch exchanges them
//! ([`crate::switch_sim`], [`crate::switch2_sim`]), the default addresses of generated
//! traffic ([`port_ip`], [`port_mac`]), and directed traffic for scenario tests
//! ([`SwitchWorkload`]).
use crate::wire::{to_words, Word};
pub use nt_hdl::mode::SwitchMode;
use nt_hdl::sadm::BANDS;
use std::collections::VecDeque;

/// A port's IPv4 address in the default table (10.0.0.1 + port).
pub fn port_ip(port: usize) -> u32 {
    0x0a00_0001 + port as u32
}

/// A port's MAC address in generated traffic.
pub fn port_mac(port: usize) -> u64 {
    0x0200_0000_0100 + port as u64
}

/// The default pessimistic and half-pessimistic periods: 6 µs at 3.2 GHz (paper 002 §4).
pub const TOFINO_T_DEFAULT: u64 = 19_200;

/// The switch's configuration inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchSetup {
    pub ports: usize,
    /// The mode: the admission's policy.
    pub mode: SwitchMode,
    pub band_by_flags: bool,
    pub wrr: bool,
    pub ret: bool,
    pub limit_bytes: [u64; BANDS],
    pub limit_pkts: [u64; BANDS],
    pub weight: [u64; BANDS],
    /// Forwarding table, one entry per port index: (valid, ip, port).
    pub routes: Vec<(bool, u32, u64)>,
    /// Bolt: CC_THRESH (bytes queued at the output port), MTU (bytes), PRU token cap, and
    /// the link rate stamped into SRC packets.
    pub cc_thresh: u64,
    pub mtu: u64,
    pub pru_cap: u64,
    pub link_rate: u64,
    /// Bolt: supply matching on (`cfg.sm_off` low; the default). Off, an INC that finds
    /// no PRU token is cleared whatever the supply token holds.
    pub sm: bool,
    /// Tofino-style trimming: ingress pipes (1..=4), the pessimistic and half-pessimistic
    /// periods in cycles, and the meters' burst (their virtual queue) in bytes.
    pub pipes: u64,
    pub t0: u64,
    pub t1: u64,
    pub meter_burst: u64,
    /// Per output, all bands, the limits whole frames keep to
    /// (None: no limit), and band 0's limits for trimmed and returned headers (None: band
    /// 0's own).
    pub port_bytes: Option<u64>,
    pub port_pkts: Option<u64>,
    pub hdr_bytes: Option<u64>,
    pub hdr_pkts: Option<u64>,
    /// The dynamic threshold's exponent `a` for every band (a band
    /// may hold `2^(a - 4)` times the free buffer, Choudhury and Hahne), or None: off.
    pub dt_a: Option<u8>,
}

impl SwitchSetup {
    /// `ports` ports, drop-tail, bands by `tos`, strict priority, generous limits, and the
    /// table `port_ip(k) -> k`.
    pub fn new(ports: usize) -> Self {
        SwitchSetup {
            ports,
            mode: SwitchMode::DropTail,
            band_by_flags: false,
            wrr: false,
            ret: false,
            limit_bytes: [16 * 1024; BANDS],
            limit_pkts: [64; BANDS],
            weight: [1; BANDS],
            routes: (0..ports).map(|k| (true, port_ip(k), k as u64)).collect(),
            cc_thresh: 1088,
            mtu: 1088,
            pru_cap: 255,
            link_rate: 200,
            sm: true,
            pipes: 4,
            t0: TOFINO_T_DEFAULT,
            t1: TOFINO_T_DEFAULT,
            meter_burst: 16 * 1024,
            port_bytes: None,
            port_pkts: None,
            hdr_bytes: None,
            hdr_pkts: None,
            dt_a: None,
        }
    }
}

/// One cycle's inputs of one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortIn {
    pub rx: Option<Word>,
    pub tx_ready: bool,
}

/// One port's counters and output occupancy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortStats {
    pub rx_frames: u64,
    pub tx_frames: u64,
    pub drop_malformed: u64,
    pub drop_no_route: u64,
    pub drop_full: u64,
    pub trimmed: u64,
    pub returned: u64,
    pub drop_header: u64,
    pub occ_bytes: [u64; BANDS],
    /// Bolt: SRCs generated for data arriving on this port, and SRCs lost for want of room
    /// in this port's return queue.
    pub src_sent: u64,
    pub src_drop: u64,
    /// Bolt: this output port's PRU tokens and supply token (bytes).
    pub pru: u64,
    pub sm: i64,
    /// Tofino-style trimming: headers trimmed in the recirculation path (deflected packets
    /// that arrived on this port), deflections lost for want of room, this port's
    /// deflected packets waiting or in recirculation, and this output port's mode
    /// (0 optimistic, 1 half-pessimistic, 2 pessimistic).
    pub dod_trims: u64,
    pub dod_drop: u64,
    pub dod_q: u64,
    pub tmode: u64,
}

/// One cycle's outputs of one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortOut {
    pub rx_ready: bool,
    /// `tx` when valid.
    pub tx: Option<Word>,
    pub stat: PortStats,
}

/// Directed traffic: frames and idle cycles queued per input port, entering back to back.
pub struct SwitchWorkload {
    queue: Vec<VecDeque<Option<Word>>>,
    /// Frames queued per port.
    pub frames: Vec<u64>,
}

impl SwitchWorkload {
    pub fn new(ports: usize) -> Self {
        SwitchWorkload {
            queue: vec![VecDeque::new(); ports],
            frames: vec![0; ports],
        }
    }

    /// Queues `bytes` on port `src`.
    pub fn push_frame(&mut self, src: usize, bytes: &[u8]) {
        self.queue[src].extend(to_words(bytes).into_iter().map(Some));
        self.frames[src] += 1;
    }

    /// Queues `n` idle cycles on port `src`.
    pub fn push_idle(&mut self, src: usize, n: usize) {
        self.queue[src].extend((0..n).map(|_| None));
    }

    /// True when every queued word has been sent.
    pub fn drained(&self) -> bool {
        self.queue.iter().all(|q| q.is_empty())
    }

    /// The next cycle's inputs: each port's next queued word, every output ready.
    pub fn next(&mut self) -> Vec<PortIn> {
        self.queue
            .iter_mut()
            .map(|q| PortIn {
                rx: q.pop_front().flatten(),
                tx_ready: true,
            })
            .collect()
    }
}
