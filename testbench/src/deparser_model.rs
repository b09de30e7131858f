//! Golden model of the egress deparser (`hdl/src/deparser.rs`): each packet's 8 header
//! words are those of [`Frame::encode`] (SPEC §2) for the packet's metadata and this host's
//! configuration, with the identification counting packets; payload words pass unchanged;
//! `empty` on the last word is what the metadata's payload length leaves unused. The
//! scoreboard checks every cycle the one-word output register: `sink.ready`,
//! `source.valid` and the word on `source`.
use nt_sim::arb_workload::TxMeta;
use nt_sim::deparser_workload::{payload_len, DeparserIo, EgressCfg};
use nt_sim::wire::{to_words, Frame, Layout, Transport, Word};

/// The 8 header words of a packet with metadata `m`, numbered `ip_id`.
pub fn header_words(m: &TxMeta, cfg: &EgressCfg, layout: Layout, ip_id: u16) -> Vec<Word> {
    let f = Frame {
        dst_mac: cfg.switch_mac,
        src_mac: cfg.mac,
        tos: m.rank.min(63) << 2,
        ip_id,
        ttl: 64,
        protocol: cfg.protocol,
        src_ip: cfg.ip,
        dst_ip: m.remote_ip,
        t: Transport {
            flags: m.flags,
            src_port: m.local_port,
            dst_port: m.remote_port,
            msg_len: m.msg_len,
            pkt_offset: m.pkt_offset,
            pull_grant: m.credit,
            grant_prio: if layout == Layout::Homa { m.rank } else { 0 },
            tx_msg_id: m.tx_msg_id,
            buf_ptr: 0,
            buf_class: 0,
            bolt: [0; 9],
        },
        payload: vec![0; payload_len(m)],
    };
    to_words(&f.encode(layout))[..8].to_vec()
}

/// The cycle-level scoreboard.
pub struct DeparserModel {
    cfg: EgressCfg,
    layout: Layout,
    /// The output register.
    out: Option<Word>,
    beat: usize,
    hdr: Vec<Word>,
    ip_id: u16,
    pub packets: u64,
    pub words: u64,
    pub stalls: u64,
}

impl DeparserModel {
    pub fn new(cfg: EgressCfg, layout: Layout) -> Self {
        DeparserModel {
            cfg,
            layout,
            out: None,
            beat: 0,
            hdr: vec![],
            ip_id: 0,
            packets: 0,
            words: 0,
            stalls: 0,
        }
    }

    pub fn quiet(&self) -> bool {
        self.out.is_none() && self.beat == 0
    }

    pub fn cycle(&mut self, t: u64, io: &DeparserIo) -> Result<(), String> {
        let ready = self.out.is_none() || io.src_ready;
        if io.sink_ready != ready {
            return Err(format!(
                "cycle {t}: sink.ready: expected {ready}, got {}",
                io.sink_ready
            ));
        }
        if io.src_valid != self.out.is_some() {
            return Err(format!(
                "cycle {t}: source.valid: expected {}, got {}",
                self.out.is_some(),
                io.src_valid
            ));
        }
        if let Some(w) = self.out {
            if io.src != w {
                return Err(format!(
                    "cycle {t}: source word: expected {w:x?}, got {:x?}",
                    io.src
                ));
            }
            if io.src_ready {
                self.words += 1;
                self.out = None;
            } else {
                self.stalls += 1;
            }
        }
        if io.packets as u64 != self.packets {
            return Err(format!(
                "cycle {t}: packets: expected {}, got {}",
                self.packets, io.packets
            ));
        }
        if io.sink_valid && ready {
            let b = io.sink;
            if self.beat == 0 {
                self.hdr = header_words(&b.meta, &self.cfg, self.layout, self.ip_id);
            }
            let data = if self.beat < 8 {
                self.hdr[self.beat].data
            } else {
                b.data
            };
            let empty = if b.last {
                ((8 - payload_len(&b.meta) % 8) % 8) as u8
            } else {
                0
            };
            self.out = Some(Word {
                data,
                last: b.last,
                empty,
            });
            self.beat += 1;
            if b.last {
                self.beat = 0;
                self.ip_id = self.ip_id.wrapping_add(1);
                self.packets += 1;
            }
        }
        Ok(())
    }
}
