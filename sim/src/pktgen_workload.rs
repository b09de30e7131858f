//! Seeded `CtrlPktEvent`s for the [`PacketGen`]: NDP-style (paced PULLs: ACK|PULL,
//! NACK|PULL, PULL alone, ACK alone) or Homa-style (GRANTs and ACKs, unpaced), for 16
//! receive messages so that PULLs of one message coalesce, with random gaps and output
//! stalls. Each receive message id holds one message at a time (its own destination,
//! port and message id) and now and then a new one; NDP-style, its pull offset starts at
//! `rtt_pkts` and an ACK|PULL or PULL raises it by one (or, as a duplicate would, by
//! none), at about the rate the MTU gap paces PULLs; a NACK repeats it. Each message has
//! its own length (1 to 38 packets), so that some PULLs release a packet (offset within
//! the message) and some release none (offset beyond its last packet: sent without a
//! slot). [`read_pktgen`] snapshots the ports for the model (`nt_testbench::pktgen_model`).
use crate::arb_workload::{read_frame_beat, TxBeat};
use crate::workload::Stalls;
use nt_hdl::pktgen::PacketGen;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One `CtrlPktEvent`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CtrlEvent {
    pub flags: u8,
    pub rx_id: u8,
    pub dst_ip: u32,
    pub dst_port: u16,
    pub src_port: u16,
    pub tx_msg_id: u16,
    pub msg_len: u16,
    pub pkt_offset: u8,
    pub pull_grant: u16,
    pub grant_prio: u8,
}

/// Seeded events.
pub struct PktGenWorkload {
    rng: ChaCha8Rng,
    /// NDP (paced PULLs) or Homa (GRANTs).
    pub ndp: bool,
    pub gap: u16,
    /// NACKs take pacing slots (`cfg.pace_nacks`).
    pub pace_nacks: bool,
    /// The generator's `cfg.rtt_pkts`: every message's pull offset starts there.
    pub rtt_pkts: u8,
    /// Chance per cycle that an event is presented when none is.
    pub p_event: f64,
    cur: Option<CtrlEvent>,
    /// Each receive message id's pull offset beyond `rtt_pkts`.
    raised: [u16; 16],
    /// The message each receive message id holds (its `tx_msg_id`).
    msg_ids: [u16; 16],
    /// Its length in bytes.
    msg_lens: [u16; 16],
    stalls: Stalls,
    pub generate: bool,
    pub events: u64,
}

impl PktGenWorkload {
    pub fn new(seed: u64, ndp: bool, gap: u16) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let msg_lens = std::array::from_fn(|_| rng.gen_range(1..=38912));
        PktGenWorkload {
            rng,
            ndp,
            gap,
            pace_nacks: true,
            rtt_pkts: 12,
            p_event: 0.1,
            cur: None,
            raised: [0; 16],
            msg_ids: std::array::from_fn(|i| (i as u16) << 8),
            msg_lens,
            stalls: Stalls::default(),
            generate: true,
            events: 0,
        }
    }

    pub fn idle(&self) -> bool {
        self.cur.is_none()
    }

    fn event(&mut self) -> CtrlEvent {
        let r = &mut self.rng;
        let rx = r.gen_range(0..16u8);
        let flags = if self.ndp {
            match r.gen_range(0..20) {
                0..=13 => 0x02 | 0x08,
                14..=16 => 0x04 | 0x08,
                17 => 0x08,
                18 => 0x02,
                _ => 0x00,
            }
        } else if r.gen_bool(0.4) {
            0x08
        } else {
            0x02
        };
        let i = rx as usize;
        // Now and then the id takes a new message, whose offset starts at `rtt_pkts`.
        if r.gen_bool(0.02) {
            self.msg_ids[i] = self.msg_ids[i].wrapping_add(1);
            self.msg_lens[i] = r.gen_range(1..=38912);
            self.raised[i] = 0;
        }
        // PULL offsets only grow per message, by one per intact packet as NDP's receiver
        // counts them (a NACK repeats the offset). NDP: about one raise per MTU gap (the
        // bottleneck's packets), the rest repeat the offset; Homa's grants jump.
        if flags & 0x04 == 0 && flags & 0x08 != 0 {
            let raise = if self.ndp {
                let p = (1.0 / (self.p_event * self.gap.max(1) as f64)).min(1.0);
                r.gen_bool(p) as u16
            } else {
                r.gen_range(0..3)
            };
            self.raised[i] = self.raised[i].wrapping_add(raise);
        }
        CtrlEvent {
            flags,
            rx_id: rx,
            dst_ip: 0x0a00_0000 | rx as u32,
            dst_port: 100 + rx as u16,
            src_port: 7,
            tx_msg_id: self.msg_ids[i],
            msg_len: self.msg_lens[i],
            pkt_offset: r.gen_range(0..38),
            pull_grant: (self.rtt_pkts as u16).wrapping_add(self.raised[i]),
            grant_prio: r.gen_range(0..8),
        }
    }

    /// Sets the generator's inputs.
    pub fn drive<const A: usize, const N: usize, const C: usize>(
        &mut self,
        u: &mut PacketGen<A, N, C>,
    ) {
        if self.cur.is_none() && self.generate && self.rng.gen_bool(self.p_event) {
            self.cur = Some(self.event());
            self.events += 1;
        }
        let ready = self.stalls.ready(&mut self.rng, 0.01, 20);
        u.reset.next = false;
        u.cfg.pace.next = self.ndp;
        u.cfg.gap.next = (self.gap as u64).into();
        u.cfg.pace_nacks.next = self.pace_nacks;
        u.cfg.rtt_pkts.next = (self.rtt_pkts as u64).into();
        u.source.ready.next = ready;
        let e = self.cur.unwrap_or_default();
        let ev = &mut u.event;
        ev.valid.next = self.cur.is_some();
        ev.flags.next = (e.flags as u64).into();
        ev.rx_id.next = (e.rx_id as u64).into();
        ev.dst_ip.next = (e.dst_ip as u64).into();
        ev.dst_port.next = (e.dst_port as u64).into();
        ev.src_port.next = (e.src_port as u64).into();
        ev.tx_msg_id.next = (e.tx_msg_id as u64).into();
        ev.msg_len.next = (e.msg_len as u64).into();
        ev.pkt_offset.next = (e.pkt_offset as u64).into();
        ev.pull_grant.next = (e.pull_grant as u64).into();
        ev.grant_prio.next = (e.grant_prio as u64).into();
    }

    /// Advances past an accepted event.
    pub fn observe<const A: usize, const N: usize, const C: usize>(
        &mut self,
        u: &PacketGen<A, N, C>,
    ) {
        if u.event.valid.val() && u.event.ready.val() {
            self.cur = None;
        }
    }

    /// The event presented this cycle, if any.
    pub fn presented(&self) -> Option<CtrlEvent> {
        self.cur
    }
}

/// The generator's ports in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PktGenIo {
    pub ev_ready: bool,
    pub src_valid: bool,
    pub src_ready: bool,
    pub src: TxBeat,
    pub packets: u32,
    pub pulls: u32,
    pub coalesced: u32,
    pub queued: u32,
    pub nacks_paced: u32,
    pub nacks_unpaced: u32,
}

/// Reads the generator's outputs (after the kernel settled).
pub fn read_pktgen<const A: usize, const N: usize, const C: usize>(
    u: &PacketGen<A, N, C>,
) -> PktGenIo {
    let (src_valid, src) = read_frame_beat(&u.source);
    PktGenIo {
        ev_ready: u.event.ready.val(),
        src_valid,
        src_ready: u.source.ready.val(),
        src,
        packets: u.stat.packets.val().to_u64() as u32,
        pulls: u.stat.pulls.val().to_u64() as u32,
        coalesced: u.stat.coalesced.val().to_u64() as u32,
        queued: u.pulls_queued.val().to_u64() as u32,
        nacks_paced: u.stat.nacks_paced.val().to_u64() as u32,
        nacks_unpaced: u.stat.nacks_unpaced.val().to_u64() as u32,
    }
}
