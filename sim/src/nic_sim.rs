//! Runs one NIC top block ([`nt_hdl::nic::NicTop`]) cycle by cycle: frames into MAC RX at
//! given cycles, application messages into `app_tx` at given cycles; collects the frames
//! MAC TX sends (stamped with the cycle of their first word), the delivered messages and
//! every sent message's outcome. Used by `ntsim nic`, the system tests and the network.
use crate::kernel::Kernel;
use crate::pcap::Packet;
use crate::wire::{from_words, to_words, Word};
use nt_hdl::nic::{NicProbe, NicTop};
use nt_hdl::packetization::{MAX_MSG_BYTES, STATUS_DELIVERED, STATUS_GAVE_UP, STATUS_REFUSED};
use std::collections::{HashMap, VecDeque};

/// Cycles of reset at the start of a run (inputs idle).
pub const RESET_CYCLES: u64 = 2;

/// A NIC's runtime configuration (the top block's `cfg`).
#[derive(Clone, Debug, PartialEq)]
pub struct NicConfig {
    pub mac: u64,
    pub ip: u32,
    pub switch_mac: u64,
    pub rtt_pkts: u8,
    pub timeout: u32,
    pub max_retries: u8,
    pub rx_timeout: u32,
    pub pull_gap: u16,
    /// NDP: NACKs take PULL pacing slots (PULL-clocked retransmissions; default on).
    pub pace_nacks: bool,
}

impl NicConfig {
    /// Defaults for a host: BDP 10 packets, 7 µs timeout (22,400 cycles), 5 retries, the
    /// receive timeout covering the sender's retry window, PULLs one 1088-byte frame apart.
    pub fn new(mac: u64, ip: u32) -> Self {
        let timeout = 22_400;
        let max_retries = 5;
        Self {
            mac,
            ip,
            switch_mac: 0x02_00_00_00_00_fe,
            rtt_pkts: 10,
            timeout,
            max_retries,
            rx_timeout: timeout * (max_retries as u32 + 2),
            pull_gap: 136,
            pace_nacks: true,
        }
    }

    /// Checks the values against the hardware's limits.
    pub fn validate(&self) -> Result<(), String> {
        if self.mac >> 48 != 0 {
            return Err(format!("MAC {:#x} is wider than 48 bits", self.mac));
        }
        if self.rtt_pkts == 0 || self.rtt_pkts > 38 {
            return Err(format!("rtt_pkts {} must be 1..=38", self.rtt_pkts));
        }
        if self.timeout < 64 || self.timeout >= 1 << 31 {
            return Err(format!(
                "timeout {} cycles must be 64..2^31 (the timer scans 16 entries)",
                self.timeout
            ));
        }
        if self.max_retries == 0 {
            return Err("the retry limit must be at least 1".into());
        }
        let window = self.timeout as u64 * (self.max_retries as u64 + 1);
        if (self.rx_timeout as u64) <= window || self.rx_timeout >= 1 << 31 {
            return Err(format!(
                "rx_timeout {} must exceed the sender's retry window timeout x (retries + 1) = {window} and be below 2^31",
                self.rx_timeout
            ));
        }
        if self.pull_gap == 0 {
            return Err("pull_gap must be at least 1 cycle".into());
        }
        Ok(())
    }
}

/// A message the application sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppMsg {
    /// The cycle from which it is offered to `app_tx`.
    pub cycle: u64,
    pub dst_ip: u32,
    pub dst_port: u16,
    pub src_port: u16,
    pub payload: Vec<u8>,
}

/// A message delivered to the application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivered {
    /// The cycle its last word left `app_rx`.
    pub cycle: u64,
    pub src_ip: u32,
    pub src_port: u16,
    pub local_port: u16,
    pub payload: Vec<u8>,
}

/// What became of a sent message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Delivered,
    GaveUp,
    Refused,
}

/// A sent message's outcome, from the `status` stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxOutcome {
    pub cycle: u64,
    /// Index of the message in the order [`NicSim::send`] was called.
    pub msg: usize,
    pub outcome: Outcome,
}

/// The message `app_tx` is taking: its index, header and payload words, context, and the
/// next word.
struct AppCur {
    idx: usize,
    words: Vec<u64>,
    src_port: u16,
    pos: usize,
}

/// One NIC on the kernel with its queues.
pub struct NicSim<T: NicTop> {
    k: Kernel<T>,
    cfg: NicConfig,
    rx: VecDeque<Packet>,
    rx_cur: Option<(Vec<Word>, usize)>,
    app: VecDeque<(usize, AppMsg)>,
    app_cur: Option<AppCur>,
    sent: usize,
    /// Messages per slot id, oldest first: a slot can be allocated again before the
    /// status of its previous message has been read (statuses of a slot come in order).
    id_of: HashMap<u16, VecDeque<usize>>,
    refused: VecDeque<usize>,
    tx_words: Vec<Word>,
    tx_start: u64,
    rx_words: Vec<u64>,
    /// Frames MAC TX sent.
    pub tx_frames: Vec<Packet>,
    pub delivered: Vec<Delivered>,
    pub outcomes: Vec<TxOutcome>,
    /// `app_rx.ready` pattern: the application stalls in cycles where this returns false.
    pub app_rx_ready: Option<Box<dyn FnMut(u64) -> bool + Send>>,
    /// The stage handshakes of the last cycle run.
    pub last_probe: NicProbe,
    /// Per sent message still open (by `tx_msg_id`): the credit its program last set and
    /// the offsets below which everything is acknowledged (cumulative ACKs).
    windows: HashMap<u16, (u16, u8)>,
}

impl<T: NicTop> NicSim<T> {
    pub fn new(top: T, cfg: NicConfig) -> Result<Self, String> {
        cfg.validate()?;
        let k = Kernel::new(top).map_err(|e| e.to_string())?;
        Ok(Self {
            k,
            cfg,
            rx: VecDeque::new(),
            rx_cur: None,
            app: VecDeque::new(),
            app_cur: None,
            sent: 0,
            id_of: HashMap::new(),
            refused: VecDeque::new(),
            tx_words: vec![],
            tx_start: 0,
            rx_words: vec![],
            tx_frames: vec![],
            delivered: vec![],
            outcomes: vec![],
            app_rx_ready: None,
            last_probe: NicProbe::default(),
            windows: HashMap::new(),
        })
    }

    pub fn config(&self) -> &NicConfig {
        &self.cfg
    }

    pub fn kernel(&self) -> &Kernel<T> {
        &self.k
    }

    pub fn kernel_mut(&mut self) -> &mut Kernel<T> {
        &mut self.k
    }

    /// The current cycle.
    pub fn cycle(&self) -> u64 {
        self.k.cycle()
    }

    /// Queues a frame for MAC RX. It starts entering at `p.cycle` or, when an earlier frame
    /// is still entering, right after it. Frames are taken in the order queued.
    pub fn push_rx(&mut self, p: Packet) {
        self.rx.push_back(p);
    }

    /// Queues a message for the application; returns its index for [`TxOutcome::msg`].
    /// Messages are offered in the order queued, each from its cycle on.
    pub fn send(&mut self, m: AppMsg) -> usize {
        let i = self.sent;
        self.sent += 1;
        self.app.push_back((i, m));
        i
    }

    /// Messages queued or being written that `app_tx` has not fully taken.
    pub fn app_backlog(&self) -> usize {
        self.app.len() + self.app_cur.is_some() as usize
    }

    /// Sent messages without an outcome yet.
    pub fn unresolved(&self) -> usize {
        self.sent - self.outcomes.len()
    }

    /// Nothing queued, nothing in flight at the edges (the NIC itself may still hold
    /// messages: see [`NicSim::unresolved`]).
    pub fn edges_idle(&self) -> bool {
        self.rx.is_empty()
            && self.rx_cur.is_none()
            && self.app.is_empty()
            && self.app_cur.is_none()
            && self.tx_words.is_empty()
            && self.rx_words.is_empty()
    }

    /// The open messages' windows in packets: credit minus the cumulatively acknowledged
    /// offsets, summed (Bolt: the sum of the messages' `cwnd`; NDP and Homa acknowledge
    /// selectively, so for them it is the pull or grant offsets set so far).
    pub fn window_pkts(&self) -> u64 {
        self.windows
            .values()
            .map(|&(c, b)| c.saturating_sub(b as u16) as u64)
            .sum()
    }

    /// Runs one cycle.
    pub fn step(&mut self) -> Result<(), String> {
        let now = self.k.cycle();
        let in_reset = now < RESET_CYCLES;
        // Start the next frame / message when due.
        if !in_reset && self.rx_cur.is_none() && self.rx.front().is_some_and(|p| p.cycle <= now) {
            let p = self.rx.pop_front().expect("front");
            let w = to_words(&p.bytes);
            if !w.is_empty() {
                self.rx_cur = Some((w, 0));
            }
        }
        if !in_reset && self.app_cur.is_none() && self.app.front().is_some_and(|m| m.1.cycle <= now)
        {
            let (i, m) = self.app.pop_front().expect("front");
            let len = m.payload.len() as u64;
            let mut words =
                vec![(m.dst_ip as u64) << 32 | (m.dst_port as u64) << 16 | (len & 0xffff)];
            for c in m.payload.chunks(8) {
                words.push(
                    c.iter()
                        .enumerate()
                        .fold(0u64, |v, (j, &x)| v | (x as u64) << (56 - 8 * j)),
                );
            }
            self.app_cur = Some(AppCur {
                idx: i,
                words,
                src_port: m.src_port,
                pos: 0,
            });
        }
        let app_ready = match self.app_rx_ready.as_mut() {
            Some(f) => f(now),
            None => true,
        };
        let cfg = self.cfg.clone();
        {
            let u = self.k.uut_mut();
            let p = u.ports();
            p.reset.next = in_reset;
            p.cfg.mac.next = cfg.mac.into();
            p.cfg.ip.next = (cfg.ip as u64).into();
            p.cfg.switch_mac.next = cfg.switch_mac.into();
            p.cfg.rtt_pkts.next = (cfg.rtt_pkts as u64).into();
            p.cfg.timeout.next = (cfg.timeout as u64).into();
            p.cfg.max_retries.next = (cfg.max_retries as u64).into();
            p.cfg.rx_timeout.next = (cfg.rx_timeout as u64).into();
            p.cfg.pull_gap.next = (cfg.pull_gap as u64).into();
            p.cfg.pace_nacks.next = cfg.pace_nacks;
            let w = self.rx_cur.as_ref().map(|(w, i)| w[*i]);
            p.mac_rx.valid.next = w.is_some();
            let w = w.unwrap_or_default();
            p.mac_rx.data.next = w.data.into();
            p.mac_rx.last.next = w.last;
            p.mac_rx.empty.next = (w.empty as u64).into();
            match &self.app_cur {
                Some(a) => {
                    p.app_tx.valid.next = true;
                    p.app_tx.data.next = a.words[a.pos].into();
                    p.app_tx.last.next = a.pos + 1 == a.words.len();
                    p.app_tx.src_port.next = (a.src_port as u64).into();
                }
                None => {
                    p.app_tx.valid.next = false;
                    p.app_tx.data.next = 0.into();
                    p.app_tx.last.next = false;
                    p.app_tx.src_port.next = 0.into();
                }
            }
            p.app_rx.ready.next = app_ready && !in_reset;
            p.status.ready.next = !in_reset;
            p.mac_tx.ready.next = true;
        }
        self.k.settle().map_err(|e| e.to_string())?;
        let u = self.k.uut();
        self.last_probe = u.probe();
        if let Some((id, c)) = self.last_probe.credit_set {
            self.windows.entry(id).or_default().0 = c;
        }
        if let Some((id, b)) = self.last_probe.acked_below {
            let w = self.windows.entry(id).or_default();
            w.1 = w.1.max(b);
        }
        // MAC RX
        if let Some((w, i)) = self.rx_cur.as_mut() {
            if !in_reset {
                *i += 1;
                if *i == w.len() {
                    self.rx_cur = None;
                }
            }
        }
        // app_tx
        if let Some(a) = self.app_cur.as_mut() {
            if u.app_tx().ready.val() {
                if a.pos == 0 {
                    match u.tx_alloc() {
                        Some(id) => {
                            self.id_of.entry(id).or_default().push_back(a.idx);
                        }
                        None => self.refused.push_back(a.idx),
                    }
                }
                a.pos += 1;
                if a.pos == a.words.len() {
                    self.app_cur = None;
                }
            }
        }
        // app_rx
        let ar = u.app_rx();
        if ar.valid.val() && app_ready && !in_reset {
            self.rx_words.push(ar.data.val().to_u64());
            if ar.last.val() {
                let h = self.rx_words[0];
                let len = (h & 0xffff) as usize;
                let mut payload = vec![];
                for w in &self.rx_words[1..] {
                    payload.extend(w.to_be_bytes());
                }
                payload.truncate(len);
                self.delivered.push(Delivered {
                    cycle: now,
                    src_ip: (h >> 32) as u32,
                    src_port: (h >> 16) as u16,
                    local_port: ar.local_port.val().to_u64() as u16,
                    payload,
                });
                self.rx_words.clear();
            }
        }
        // status
        let st = u.status();
        if st.valid.val() && !in_reset {
            let code = st.code.val().to_u64();
            let id = st.tx_msg_id.val().to_u64() as u16;
            let (msg, outcome) = match code {
                STATUS_REFUSED => (self.refused.pop_front(), Outcome::Refused),
                STATUS_DELIVERED => (
                    self.id_of.get_mut(&id).and_then(|q| q.pop_front()),
                    Outcome::Delivered,
                ),
                STATUS_GAVE_UP => (
                    self.id_of.get_mut(&id).and_then(|q| q.pop_front()),
                    Outcome::GaveUp,
                ),
                _ => (None, Outcome::Refused),
            };
            self.windows.remove(&id);
            let msg = msg.ok_or_else(|| {
                format!("cycle {now}: status code {code} for id {id} of no message sent")
            })?;
            self.outcomes.push(TxOutcome {
                cycle: now,
                msg,
                outcome,
            });
        }
        // MAC TX
        let mt = u.mac_tx();
        if mt.valid.val() {
            if self.tx_words.is_empty() {
                self.tx_start = now;
            }
            let w = Word {
                data: mt.data.val().to_u64(),
                last: mt.last.val(),
                empty: mt.empty.val().to_u64() as u8,
            };
            self.tx_words.push(w);
            if w.last {
                self.tx_frames.push(Packet {
                    cycle: self.tx_start,
                    bytes: from_words(&self.tx_words),
                });
                self.tx_words.clear();
            }
        }
        self.k.tick().map_err(|e| e.to_string())
    }
}

/// Checks an application message before it is queued: the hardware refuses lengths of 0
/// or above [`MAX_MSG_BYTES`] (reported as refused), which callers usually want to know.
pub fn check_msg(m: &AppMsg) -> Result<(), String> {
    if m.payload.is_empty() || m.payload.len() as u64 > MAX_MSG_BYTES {
        return Err(format!(
            "message of {} bytes: length must be 1..={MAX_MSG_BYTES}",
            m.payload.len()
        ));
    }
    Ok(())
}
