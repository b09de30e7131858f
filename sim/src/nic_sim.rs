//! Runs one NIC top block ([`nt_hdl::nic::NicTop`]) cycle by cycle: frames into MAC RX at
//! given cycles, application messages into `app_tx` at given cycles; collects the frames
//! MAC TX sends (stamped with the cycle of their first word), the delivered messages and
//! every sent message's outcome. Used by `ntsim nic`, the system tests and the network.
use crate::kernel::Kernel;
use crate::pcap::Packet;
use crate::vmodel::{Backend, PortRef, VLib, VModel};
use crate::wire::{from_words, to_words, Word};
use nt_hdl::ingress::PktInfo;
use nt_hdl::nic::{CtrlEvent, NicProbe, NicStats, NicTop};
use nt_hdl::packetization::{MAX_MSG_BYTES, STATUS_DELIVERED, STATUS_GAVE_UP, STATUS_REFUSED};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Cycles of reset at the start of a run (inputs idle).
pub const RESET_CYCLES: u64 = 2;

/// Largest initial credit (`rtt_pkts`): a message's packets at most.
pub const MAX_RTT_PKTS: u8 = 38;

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
        crate::nic_cli::check_host_mac(self.mac)?;
        crate::nic_cli::check_host_ip(self.ip)?;
        if self.switch_mac >> 48 != 0 {
            return Err(format!(
                "switch MAC {:#x} is wider than 48 bits",
                self.switch_mac
            ));
        }
        if self.rtt_pkts == 0 || self.rtt_pkts > MAX_RTT_PKTS {
            return Err(format!(
                "rtt_pkts {} must be 1..={MAX_RTT_PKTS}",
                self.rtt_pkts
            ));
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

/// One cycle's inputs of a NIC top block (the clock aside; `cfg` is set once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NicIn {
    pub reset: bool,
    pub mac_rx: Option<Word>,
    /// `app_tx`: data word, last, the sender's context.
    pub app_tx: Option<(u64, bool, u16)>,
    pub app_rx_ready: bool,
    pub status_ready: bool,
    pub mac_tx_ready: bool,
}

/// One cycle's outputs of a NIC top block, read with the clock low after the inputs
/// settled.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NicOut {
    pub app_tx_ready: bool,
    /// `app_tx.alloc`: the id given to the header taken now.
    pub alloc: Option<u16>,
    /// `app_rx`: data word, last, local context (when valid).
    pub app_rx: Option<(u64, bool, u16)>,
    /// `status`: code, `tx_msg_id` (when valid).
    pub status: Option<(u64, u16)>,
    pub mac_tx: Option<Word>,
    /// The stage handshakes. The native engine fills every field; the Verilator engine
    /// only what the top-level ports show (the edges' handshakes and the `trace` events).
    pub probe: NicProbe,
}

/// What steps a NIC: the native kernel on the rust-hdl block ([`Kernel`]) or its emitted
/// Verilog under Verilator ([`VNic`]).
pub trait NicEngine: Send {
    /// Sets the configuration inputs (held from then on).
    fn configure(&mut self, cfg: &NicConfig);
    /// Drives `i`, settles and returns this cycle's outputs; [`NicEngine::tick`] ends the
    /// cycle.
    fn eval(&mut self, i: &NicIn) -> Result<NicOut, String>;
    /// The rising edge.
    fn tick(&mut self) -> Result<(), String>;
    /// Rising edges so far.
    fn cycle(&self) -> u64;
    /// The `stat` outputs now.
    fn stats(&self) -> HostStats;
    /// Records the signals `opts` selects as VCD from now on ([`crate::vcd`]).
    fn record_vcd(
        &mut self,
        w: crate::vcd::WaveFile,
        opts: &crate::vcd::WaveOpts,
    ) -> Result<(), String>;
    /// `native`, `verilator` or `compiled`.
    fn name(&self) -> &'static str;
}

/// A NIC on an engine chosen at run time (the system tests run one program on the native
/// kernel and on the compiled engine through the same code).
impl NicEngine for Box<dyn NicEngine> {
    fn configure(&mut self, cfg: &NicConfig) {
        (**self).configure(cfg)
    }
    fn eval(&mut self, i: &NicIn) -> Result<NicOut, String> {
        (**self).eval(i)
    }
    fn tick(&mut self) -> Result<(), String> {
        (**self).tick()
    }
    fn cycle(&self) -> u64 {
        (**self).cycle()
    }
    fn stats(&self) -> HostStats {
        (**self).stats()
    }
    fn record_vcd(
        &mut self,
        w: crate::vcd::WaveFile,
        opts: &crate::vcd::WaveOpts,
    ) -> Result<(), String> {
        (**self).record_vcd(w, opts)
    }
    fn name(&self) -> &'static str {
        (**self).name()
    }
}

/// Declares [`HostStats`] from one table: field (= the NIC's `stat` output), its
/// `hosts.csv` column, and its doc.
macro_rules! host_stats {
    ($( $(#[$doc:meta])* $field:ident => $csv:literal, )*) => {
        /// A host NIC's counters at the end of a run (the NIC block's `stat` outputs).
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct HostStats {
            $( $(#[$doc])* pub $field: u64, )*
        }

        impl HostStats {
            /// How many counters.
            pub const COUNT: usize = [$(stringify!($field)),*].len();
            /// The `stat` output of each counter, in the order of [`HostStats::fields`].
            pub const PORTS: [&'static str; Self::COUNT] = [$(stringify!($field)),*];

            /// The counters as `(name, value)`, in `hosts.csv`'s column order.
            pub fn fields(&self) -> [(&'static str, u64); Self::COUNT] {
                [$(($csv, self.$field)),*]
            }

            fn from_array(v: [u64; Self::COUNT]) -> Self {
                let [$($field),*] = v;
                HostStats { $($field),* }
            }

            /// The counters of a NIC block (native kernel).
            fn of_nic(t: &NicStats) -> Self {
                HostStats { $($field: t.$field.val().to_u64()),* }
            }
        }
    };
}

host_stats! {
    rx_frames => "rx_frames",
    /// Frames that passed the parser's checks.
    rx_passed => "rx_passed",
    /// Frames the parser dropped, by reason (`crate`-level docs of `nt_hdl::parser`): its
    /// ring full, longer than a frame may be, cut short, not IPv4, a bad IPv4 header, IPv4
    /// length disagreeing with the frame, bad header checksum, not for this NIC, another
    /// IP protocol, a bad transport header.
    rx_drop_overflow => "rx_drop_overflow",
    rx_drop_too_long => "rx_drop_too_long",
    rx_drop_truncated => "rx_drop_truncated",
    rx_drop_not_ipv4 => "rx_drop_not_ipv4",
    rx_drop_bad_ip_header => "rx_drop_bad_ip_header",
    rx_drop_bad_length => "rx_drop_bad_length",
    rx_drop_bad_checksum => "rx_drop_bad_checksum",
    rx_drop_not_for_us => "rx_drop_not_for_us",
    rx_drop_bad_protocol => "rx_drop_bad_protocol",
    rx_drop_bad_transport => "rx_drop_bad_transport",
    rx_data => "rx_data",
    rx_ctrl => "rx_ctrl",
    rx_trimmed => "rx_trimmed",
    /// DATA packets dropped because their receive-message lookup (`GetRxMsgInfo`) failed.
    rx_lookup_fail => "rx_lookup_fail",
    /// Failed lookups by reason (of DATA packets, trimmed ones included): no receive
    /// message id, buffer or table entry free; malformed (`msg_len` 0 or too long, offset
    /// beyond the message); `msg_len` differing from the active message of the same key
    /// (which is then expired).
    rx_no_buffer => "rx_no_buffer",
    rx_bad_request => "rx_bad_request",
    rx_len_conflicts => "rx_len_conflicts",
    rx_late_dups => "rx_late_dups",
    rx_delivered => "rx_delivered",
    rx_timeouts => "rx_timeouts",
    tx_data => "tx_data",
    tx_retransmitted => "tx_retransmitted",
    tx_probes => "tx_probes",
    tx_ctrl => "tx_ctrl",
    tx_completed => "tx_completed",
    tx_given_up => "tx_given_up",
    /// NDP: NACKs that waited for a PULL slot, and sent at once with the NACK queue full.
    tx_nacks_paced => "tx_nacks_paced",
    tx_nacks_unpaced => "tx_nacks_unpaced",
    /// Control-packet events dropped by the sender: for no active message (unknown,
    /// freed or an older incarnation), a claim (peer, ports, msg_len) that is not the
    /// message's, offsets never sent.
    tx_ctrl_stale => "tx_ctrl_stale",
    tx_ctrl_bad_peer => "tx_ctrl_bad_peer",
    tx_ctrl_bad_offset => "tx_ctrl_bad_offset",
}

impl<T: NicTop> NicEngine for Kernel<T> {
    fn configure(&mut self, cfg: &NicConfig) {
        let p = self.uut_mut().ports();
        p.cfg.mac.next = cfg.mac.into();
        p.cfg.ip.next = (cfg.ip as u64).into();
        p.cfg.switch_mac.next = cfg.switch_mac.into();
        p.cfg.rtt_pkts.next = (cfg.rtt_pkts as u64).into();
        p.cfg.timeout.next = (cfg.timeout as u64).into();
        p.cfg.max_retries.next = (cfg.max_retries as u64).into();
        p.cfg.rx_timeout.next = (cfg.rx_timeout as u64).into();
        p.cfg.pull_gap.next = (cfg.pull_gap as u64).into();
        p.cfg.pace_nacks.next = cfg.pace_nacks;
    }

    fn eval(&mut self, i: &NicIn) -> Result<NicOut, String> {
        {
            let p = self.uut_mut().ports();
            p.reset.next = i.reset;
            p.mac_rx.valid.next = i.mac_rx.is_some();
            let w = i.mac_rx.unwrap_or_default();
            p.mac_rx.data.next = w.data.into();
            p.mac_rx.last.next = w.last;
            p.mac_rx.empty.next = (w.empty as u64).into();
            let (d, l, sp) = i.app_tx.unwrap_or_default();
            p.app_tx.valid.next = i.app_tx.is_some();
            p.app_tx.data.next = d.into();
            p.app_tx.last.next = l;
            p.app_tx.src_port.next = (sp as u64).into();
            p.app_rx.ready.next = i.app_rx_ready;
            p.status.ready.next = i.status_ready;
            p.mac_tx.ready.next = i.mac_tx_ready;
        }
        self.settle().map_err(|e| e.to_string())?;
        let u = self.uut();
        let ar = u.app_rx();
        let st = u.status();
        let mt = u.mac_tx();
        Ok(NicOut {
            app_tx_ready: u.app_tx().ready.val(),
            alloc: u.tx_alloc(),
            app_rx: ar.valid.val().then(|| {
                (
                    ar.data.val().to_u64(),
                    ar.last.val(),
                    ar.local_port.val().to_u64() as u16,
                )
            }),
            status: st
                .valid
                .val()
                .then(|| (st.code.val().to_u64(), st.tx_msg_id.val().to_u64() as u16)),
            mac_tx: mt.valid.val().then(|| Word {
                data: mt.data.val().to_u64(),
                last: mt.last.val(),
                empty: mt.empty.val().to_u64() as u8,
            }),
            probe: u.probe(),
        })
    }

    fn tick(&mut self) -> Result<(), String> {
        Kernel::tick(self).map_err(|e| e.to_string())
    }

    fn cycle(&self) -> u64 {
        Kernel::cycle(self)
    }

    fn stats(&self) -> HostStats {
        HostStats::of_nic(self.uut().stat())
    }

    fn record_vcd(
        &mut self,
        w: crate::vcd::WaveFile,
        opts: &crate::vcd::WaveOpts,
    ) -> Result<(), String> {
        Kernel::record_wave(self, w, opts).map_err(|e| e.to_string())
    }

    fn name(&self) -> &'static str {
        "native"
    }
}

/// The ports [`VNic`] drives and reads, resolved once.
struct VNicPorts {
    cfg: [PortRef; 9],
    reset: PortRef,
    rx_valid: PortRef,
    rx_data: PortRef,
    rx_last: PortRef,
    rx_empty: PortRef,
    atx_valid: PortRef,
    atx_data: PortRef,
    atx_last: PortRef,
    atx_src: PortRef,
    arx_ready: PortRef,
    st_ready: PortRef,
    mtx_ready: PortRef,
    atx_ready: PortRef,
    atx_alloc: PortRef,
    atx_id: PortRef,
    arx_valid: PortRef,
    arx_data: PortRef,
    arx_last: PortRef,
    arx_port: PortRef,
    st_valid: PortRef,
    st_code: PortRef,
    st_id: PortRef,
    mtx_valid: PortRef,
    mtx_data: PortRef,
    mtx_last: PortRef,
    mtx_empty: PortRef,
    mrx_ready: PortRef,
    tr: [PortRef; 6],
    /// `trace$record`, `trace$record_info` (the packed `PktInfo`), `trace$freed`,
    /// `trace$freed_id`.
    rec: PortRef,
    rec_info: PortRef,
    freed: PortRef,
    freed_id: PortRef,
    /// `trace$ctrl` and its fields, in [`CTRL_TRACE`] order.
    ctrl: [PortRef; 11],
    stat: [PortRef; HostStats::COUNT],
}

/// The `trace$ctrl*` ports, in the order [`VNic`] reads them into a [`CtrlEvent`].
const CTRL_TRACE: [&str; 11] = [
    "ctrl",
    "ctrl_flags",
    "ctrl_rx_id",
    "ctrl_dst_ip",
    "ctrl_dst_port",
    "ctrl_src_port",
    "ctrl_tx_msg_id",
    "ctrl_msg_len",
    "ctrl_pkt_offset",
    "ctrl_pull_grant",
    "ctrl_grant_prio",
];

impl VNicPorts {
    fn of(l: &VLib) -> Result<Self, String> {
        let p = |n: &str| l.port(n);
        let arr = |names: &[&str], pre: &str| -> Result<Vec<PortRef>, String> {
            names.iter().map(|n| l.port(&format!("{pre}{n}"))).collect()
        };
        let cfg = arr(
            &[
                "mac",
                "ip",
                "switch_mac",
                "rtt_pkts",
                "timeout",
                "max_retries",
                "rx_timeout",
                "pull_gap",
                "pace_nacks",
            ],
            "cfg$",
        )?;
        let tr = arr(
            &[
                "credit_set",
                "credit_id",
                "credit",
                "acked",
                "acked_id",
                "acked_below",
            ],
            "trace$",
        )?;
        let stat = arr(&HostStats::PORTS, "stat$")?;
        Ok(VNicPorts {
            cfg: cfg.try_into().expect("9 cfg ports"),
            reset: p("reset")?,
            rx_valid: p("mac_rx$valid")?,
            rx_data: p("mac_rx$data")?,
            rx_last: p("mac_rx$last")?,
            rx_empty: p("mac_rx$empty")?,
            atx_valid: p("app_tx$valid")?,
            atx_data: p("app_tx$data")?,
            atx_last: p("app_tx$last")?,
            atx_src: p("app_tx$src_port")?,
            arx_ready: p("app_rx$ready")?,
            st_ready: p("status$ready")?,
            mtx_ready: p("mac_tx$ready")?,
            atx_ready: p("app_tx$ready")?,
            atx_alloc: p("app_tx$alloc")?,
            atx_id: p("app_tx$id")?,
            arx_valid: p("app_rx$valid")?,
            arx_data: p("app_rx$data")?,
            arx_last: p("app_rx$last")?,
            arx_port: p("app_rx$local_port")?,
            st_valid: p("status$valid")?,
            st_code: p("status$code")?,
            st_id: p("status$tx_msg_id")?,
            mtx_valid: p("mac_tx$valid")?,
            mtx_data: p("mac_tx$data")?,
            mtx_last: p("mac_tx$last")?,
            mtx_empty: p("mac_tx$empty")?,
            mrx_ready: p("mac_rx$ready")?,
            tr: tr.try_into().expect("6 trace ports"),
            rec: p("trace$record")?,
            rec_info: p("trace$record_info")?,
            freed: p("trace$freed")?,
            freed_id: p("trace$freed_id")?,
            ctrl: arr(&CTRL_TRACE, "trace$")?
                .try_into()
                .expect("11 ctrl trace ports"),
            stat: stat.try_into().expect("one port per counter"),
        })
    }
}

/// A NIC top block's emitted Verilog, verilated and stepped in this process
/// ([`crate::vmodel`]): the Verilator engine.
pub struct VNic {
    m: VModel,
    p: VNicPorts,
    cycle: u64,
}

impl VNic {
    /// An instance of `lib` (a NIC top's library, e.g. from [`VLib::of_block`]).
    pub fn new(lib: Arc<VLib>) -> Result<Self, String> {
        let p = VNicPorts::of(&lib)?;
        Ok(VNic {
            m: VModel::new(lib),
            p,
            cycle: 0,
        })
    }

    /// A verilated instance of NIC top `T`, emitted as module `module`.
    pub fn of<T: NicTop>(module: &str, make: impl Fn() -> T) -> Result<Self, String> {
        VNic::new(VLib::of_block(module, make)?)
    }

    /// [`VNic::of`] built by `backend` (Verilator, or the compiled engine's `rustc`).
    pub fn of_with<T: NicTop>(
        backend: Backend,
        module: &str,
        make: impl Fn() -> T,
    ) -> Result<Self, String> {
        VNic::new(VLib::of_block_with(backend, module, make)?)
    }

    /// The NIC of `program` (`ndp`, `homa`, `homatr`, `bolt`) with 16 messages, or 128
    /// with `big`, built by `backend` from module `nic_<program>[_n128]`.
    pub fn of_program(backend: Backend, program: &str, big: bool) -> Result<Self, String> {
        use nt_hdl::nic::*;
        let name = format!("nic_{program}{}", if big { "_n128" } else { "" });
        let b = backend;
        match (program, big) {
            ("ndp", false) => VNic::of_with(b, &name, NicNdp::new),
            ("homa", false) => VNic::of_with(b, &name, NicHoma::new),
            ("homatr", false) => VNic::of_with(b, &name, NicHomaTr::new),
            ("bolt", false) => VNic::of_with(b, &name, NicBolt::new),
            ("ndp", true) => VNic::of_with(b, &name, NicNdp128::new),
            ("homa", true) => VNic::of_with(b, &name, NicHoma128::new),
            ("homatr", true) => VNic::of_with(b, &name, NicHomaTr128::new),
            ("bolt", true) => VNic::of_with(b, &name, NicBolt128::new),
            (p, _) => Err(format!(
                "unknown program {p:?}; known: ndp, homa, homatr, bolt"
            )),
        }
    }
}

impl NicEngine for VNic {
    fn configure(&mut self, cfg: &NicConfig) {
        let v = [
            cfg.mac,
            cfg.ip as u64,
            cfg.switch_mac,
            cfg.rtt_pkts as u64,
            cfg.timeout as u64,
            cfg.max_retries as u64,
            cfg.rx_timeout as u64,
            cfg.pull_gap as u64,
            cfg.pace_nacks as u64,
        ];
        for (r, v) in self.p.cfg.iter().zip(v) {
            self.m.set(*r, v);
        }
    }

    fn eval(&mut self, i: &NicIn) -> Result<NicOut, String> {
        let (p, m) = (&self.p, &mut self.m);
        m.set(p.reset, i.reset as u64);
        let w = i.mac_rx.unwrap_or_default();
        m.set(p.rx_valid, i.mac_rx.is_some() as u64);
        m.set(p.rx_data, w.data);
        m.set(p.rx_last, w.last as u64);
        m.set(p.rx_empty, w.empty as u64);
        let (d, l, sp) = i.app_tx.unwrap_or_default();
        m.set(p.atx_valid, i.app_tx.is_some() as u64);
        m.set(p.atx_data, d);
        m.set(p.atx_last, l as u64);
        m.set(p.atx_src, sp as u64);
        m.set(p.arx_ready, i.app_rx_ready as u64);
        m.set(p.st_ready, i.status_ready as u64);
        m.set(p.mtx_ready, i.mac_tx_ready as u64);
        m.cycle();
        let b = |r: PortRef| m.get(r) != 0;
        let app_tx_ready = b(p.atx_ready);
        let app_rx =
            b(p.arx_valid).then(|| (m.get(p.arx_data), b(p.arx_last), m.get(p.arx_port) as u16));
        let mac_tx = b(p.mtx_valid).then(|| Word {
            data: m.get(p.mtx_data),
            last: b(p.mtx_last),
            empty: m.get(p.mtx_empty) as u8,
        });
        let t = &p.tr;
        let c = &p.ctrl;
        let words = m.output_words();
        let info_off = p.rec_info.off;
        let record = b(p.rec).then(|| {
            PktInfo::unpack(|off, w| {
                (0..w).fold(0u64, |v, i| {
                    let bit = off + i;
                    let word = words[info_off + bit / 32];
                    v | (((word >> (bit % 32)) & 1) as u64) << i
                })
            })
        });
        let ctrl = b(c[0]).then(|| CtrlEvent {
            flags: m.get(c[1]) as u8,
            rx_id: m.get(c[2]) as u16,
            dst_ip: m.get(c[3]) as u32,
            dst_port: m.get(c[4]) as u16,
            src_port: m.get(c[5]) as u16,
            tx_msg_id: m.get(c[6]) as u16,
            msg_len: m.get(c[7]) as u16,
            pkt_offset: m.get(c[8]) as u8,
            pull_grant: m.get(c[9]) as u16,
            grant_prio: m.get(c[10]) as u8,
        });
        Ok(NicOut {
            app_tx_ready,
            alloc: b(p.atx_alloc).then(|| m.get(p.atx_id) as u16),
            app_rx,
            status: b(p.st_valid).then(|| (m.get(p.st_code), m.get(p.st_id) as u16)),
            mac_tx,
            probe: NicProbe {
                record,
                ctrl_event: ctrl.is_some(),
                ctrl,
                freed: b(p.freed).then(|| m.get(p.freed_id) as u16),
                credit_set: b(t[0]).then(|| (m.get(t[1]) as u16, m.get(t[2]) as u16)),
                acked_below: b(t[3]).then(|| (m.get(t[4]) as u16, m.get(t[5]) as u8)),
                mac_rx: i.mac_rx.is_some() && b(p.mrx_ready),
                app_rx: app_rx.is_some() && i.app_rx_ready,
                app_tx: i.app_tx.is_some() && app_tx_ready,
                mac_tx: mac_tx.is_some() && i.mac_tx_ready,
                ..Default::default()
            },
        })
    }

    fn tick(&mut self) -> Result<(), String> {
        // `VModel::cycle` ran the rising edge already.
        self.cycle += 1;
        Ok(())
    }

    fn cycle(&self) -> u64 {
        self.cycle
    }

    fn stats(&self) -> HostStats {
        // The counters after the last rising edge, as the native kernel reads them.
        let o = self.m.snapshot();
        HostStats::from_array(self.p.stat.map(|r| o.get(r)))
    }

    fn record_vcd(
        &mut self,
        w: crate::vcd::WaveFile,
        opts: &crate::vcd::WaveOpts,
    ) -> Result<(), String> {
        self.m.record_wave(
            w,
            opts,
            crate::kernel::period_fs(crate::kernel::DEFAULT_CLOCK_HZ).map_err(|e| e.to_string())?,
        )
    }

    fn name(&self) -> &'static str {
        self.m.lib().backend.name()
    }
}

/// One NIC with its queues, on an engine: [`NicSim`] is the native one.
pub struct NicDriver<E: NicEngine> {
    k: E,
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
    /// The last cycle run offered a word (a header: its first) on `app_tx`.
    pub last_app_offered: bool,
    /// Per sent message still open (by `tx_msg_id`): the credit its program last set and
    /// the offsets below which everything is acknowledged (cumulative ACKs).
    windows: HashMap<u16, (u16, u8)>,
}

/// One NIC on the native kernel with its queues.
pub type NicSim<T> = NicDriver<Kernel<T>>;

impl<T: NicTop> NicDriver<Kernel<T>> {
    pub fn new(top: T, cfg: NicConfig) -> Result<Self, String> {
        let k = Kernel::new(top).map_err(|e| e.to_string())?;
        NicDriver::with_engine(k, cfg)
    }

    pub fn kernel(&self) -> &Kernel<T> {
        &self.k
    }

    pub fn kernel_mut(&mut self) -> &mut Kernel<T> {
        &mut self.k
    }
}

impl<E: NicEngine> NicDriver<E> {
    /// A NIC on engine `k` (fresh: no cycle run yet).
    pub fn with_engine(mut k: E, cfg: NicConfig) -> Result<Self, String> {
        cfg.validate()?;
        k.configure(&cfg);
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
            last_app_offered: false,
            windows: HashMap::new(),
        })
    }

    /// The engine.
    pub fn engine(&self) -> &E {
        &self.k
    }

    pub fn engine_mut(&mut self) -> &mut E {
        &mut self.k
    }

    pub fn config(&self) -> &NicConfig {
        &self.cfg
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

    /// Frames queued for MAC RX whose first word has not entered yet.
    pub fn rx_backlog(&self) -> usize {
        self.rx.len()
    }

    /// A frame is entering MAC RX: some of its words are in, some not.
    pub fn rx_entering(&self) -> bool {
        self.rx_cur.is_some()
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
        let inp = NicIn {
            reset: in_reset,
            mac_rx: self.rx_cur.as_ref().map(|(w, i)| w[*i]),
            app_tx: self
                .app_cur
                .as_ref()
                .map(|a| (a.words[a.pos], a.pos + 1 == a.words.len(), a.src_port)),
            app_rx_ready: app_ready && !in_reset,
            status_ready: !in_reset,
            mac_tx_ready: true,
        };
        self.last_app_offered = inp.app_tx.is_some();
        let out = self.k.eval(&inp)?;
        self.last_probe = out.probe;
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
            if out.app_tx_ready {
                if a.pos == 0 {
                    match out.alloc {
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
        if let Some((data, last, local_port)) = out.app_rx {
            if app_ready && !in_reset {
                self.rx_words.push(data);
                if last {
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
                        local_port,
                        payload,
                    });
                    self.rx_words.clear();
                }
            }
        }
        // status
        if let Some((code, id)) = out.status {
            if !in_reset {
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
        }
        // MAC TX
        if let Some(w) = out.mac_tx {
            if self.tx_words.is_empty() {
                self.tx_start = now;
            }
            self.tx_words.push(w);
            if w.last {
                self.tx_frames.push(Packet {
                    cycle: self.tx_start,
                    bytes: from_words(&self.tx_words),
                });
                self.tx_words.clear();
            }
        }
        self.k.tick()
    }

    /// The NIC's `stat` counters now.
    pub fn stats(&self) -> HostStats {
        self.k.stats()
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
