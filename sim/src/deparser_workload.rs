//! Seeded packets for the egress [`Deparser`], as the arbiter would deliver them: DATA
//! packets of random messages (any offset, payload words of random content) and control
//! packets (ACK, NACK, PULL/GRANT with their 1-byte dummy payload), random metadata
//! (destination, ports, credit, rank, ids), random garbage in the 8 header slots (which
//! the deparser must overwrite), gaps inside and between packets, and output
//! backpressure. [`read_deparser`] snapshots the ports for the golden model
//! (`nt_testbench::deparser_model`).
use crate::arb_workload::{drive_frame_sink, TxBeat, TxMeta};
use crate::wire::{Word, FLAG_ACK, FLAG_DATA, FLAG_NACK, FLAG_PULL_GRANT};
use crate::workload::Stalls;
use nt_hdl::deparser::Deparser;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// This host and its next hop, as the workloads configure the deparser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EgressCfg {
    pub mac: u64,
    pub ip: u32,
    pub switch_mac: u64,
    pub protocol: u8,
}

/// Payload bytes of a packet by its metadata: DATA `min(1024, msg_len - 1024 * offset)`,
/// control 1.
pub fn payload_len(m: &TxMeta) -> usize {
    if m.flags & FLAG_DATA != 0 {
        (m.msg_len as usize)
            .saturating_sub(m.pkt_offset as usize * 1024)
            .min(1024)
    } else {
        1
    }
}

/// Seeded arbiter-side traffic.
pub struct DeparserWorkload {
    rng: ChaCha8Rng,
    pub cfg: EgressCfg,
    beats: VecDeque<TxBeat>,
    stalls: Stalls,
    pub packets: u64,
    pub generate: bool,
}

impl DeparserWorkload {
    pub fn new(seed: u64, cfg: EgressCfg) -> Self {
        DeparserWorkload {
            rng: ChaCha8Rng::seed_from_u64(seed),
            cfg,
            beats: VecDeque::new(),
            stalls: Stalls::default(),
            packets: 0,
            generate: true,
        }
    }

    pub fn idle(&self) -> bool {
        self.beats.is_empty()
    }

    fn next_packet(&mut self) {
        let r = &mut self.rng;
        let msg_len: u16 = match r.gen_range(0..10) {
            0..=5 => r.gen_range(1..=256),
            6..=8 => r.gen_range(257..=4096),
            _ => r.gen_range(4097..=38912),
        };
        let total = (msg_len as usize).div_ceil(1024) as u8;
        let data = r.gen_bool(0.7);
        let meta = TxMeta {
            remote_ip: 0x0a00_0000 | r.gen_range(1..0x100),
            remote_port: r.gen(),
            msg_len,
            pkt_offset: if data {
                r.gen_range(0..total)
            } else {
                r.gen_range(0..=total)
            },
            local_port: r.gen(),
            tx_msg_id: r.gen(),
            credit: r.gen(),
            rank: r.gen_range(0..8),
            flags: if data {
                FLAG_DATA
            } else {
                [FLAG_ACK, FLAG_NACK, FLAG_PULL_GRANT][r.gen_range(0..3)]
            },
            is_new_msg: r.gen(),
            is_rtx: r.gen(),
        };
        let words = 8 + payload_len(&meta).div_ceil(8);
        for i in 0..words {
            self.beats.push_back(TxBeat {
                data: r.gen(),
                last: i + 1 == words,
                meta,
            });
        }
        self.packets += 1;
    }

    /// Sets the deparser's inputs for this cycle.
    pub fn drive(&mut self, u: &mut Deparser) {
        if self.beats.is_empty() && self.generate && self.rng.gen_bool(0.7) {
            self.next_packet();
        }
        let gap = self.rng.gen_bool(0.05);
        let ready = self.stalls.ready(&mut self.rng, 0.01, 30);
        u.reset.next = false;
        u.cfg.mac.next = self.cfg.mac.into();
        u.cfg.ip.next = (self.cfg.ip as u64).into();
        u.cfg.switch_mac.next = self.cfg.switch_mac.into();
        u.cfg.protocol.next = (self.cfg.protocol as u64).into();
        u.source.ready.next = ready;
        let b = if gap {
            None
        } else {
            self.beats.front().copied()
        };
        drive_frame_sink(&mut u.sink, b);
    }

    /// Advances past the beat the deparser took.
    pub fn observe(&mut self, u: &Deparser) {
        if u.sink.valid.val() && u.sink.ready.val() {
            self.beats.pop_front();
        }
    }
}

/// The deparser's ports in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeparserIo {
    pub sink_valid: bool,
    pub sink_ready: bool,
    pub sink: TxBeat,
    pub src_valid: bool,
    pub src_ready: bool,
    pub src: Word,
    pub packets: u32,
}

/// Reads the deparser's ports (after the kernel settled).
pub fn read_deparser(u: &Deparser) -> DeparserIo {
    let s = &u.sink;
    DeparserIo {
        sink_valid: s.valid.val(),
        sink_ready: s.ready.val(),
        sink: TxBeat {
            data: s.data.val().to_u64(),
            last: s.last.val(),
            meta: TxMeta {
                remote_ip: s.remote_ip.val().to_u64() as u32,
                remote_port: s.remote_port.val().to_u64() as u16,
                msg_len: s.msg_len.val().to_u64() as u16,
                pkt_offset: s.pkt_offset.val().to_u64() as u8,
                local_port: s.local_port.val().to_u64() as u16,
                tx_msg_id: s.tx_msg_id.val().to_u64() as u16,
                credit: s.credit.val().to_u64() as u16,
                rank: s.rank.val().to_u64() as u8,
                flags: s.flags.val().to_u64() as u8,
                is_new_msg: s.is_new_msg.val(),
                is_rtx: s.is_rtx.val(),
            },
        },
        src_valid: u.source.valid.val(),
        src_ready: u.source.ready.val(),
        src: Word {
            data: u.source.data.val().to_u64(),
            last: u.source.last.val(),
            empty: u.source.empty.val().to_u64() as u8,
        },
        packets: u.packets.val().to_u64() as u32,
    }
}
