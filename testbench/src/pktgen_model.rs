//! Golden model of the packet generator (`hdl/src/pktgen.rs`; SPEC §6): a cycle-level
//! scoreboard of its rules (a due slot goes to the oldest queued NACK, then to a queued
//! PULL, before an event; an event's PULL and NACK go with it when due, else its PULL is
//! deferred into its message's row, queued once per message, and with `pace_nacks` its
//! NACK waits in a FIFO of 16, or goes at once when that is full; a PULL that releases no
//! packet, its offset beyond the message's `ceil(msg_len / 1024)` packets, is free: it
//! goes with its event whether due or not, takes no slot and is not remembered as the
//! message's last PULL, unless a PULL of its message is queued, which it then joins with
//! the offset of the message's last packet; a queued PULL raises its
//! message's offset by at most one over the last PULL sent for that message, or over
//! `rtt_pkts` for a message with none, and goes back in the queue while more remains; slot
//! packets start `gap` cycles apart; one packet at a time, 9 beats), checking every cycle
//! `event.ready`, every beat and its metadata on `source`, and the counters.
use nt_sim::arb_workload::{TxBeat, TxMeta};
use nt_sim::pktgen_workload::{CtrlEvent, PktGenIo};
use std::collections::VecDeque;

const PULL: u8 = 0x08;
const NACK: u8 = 0x04;
/// NACK FIFO depth of the 16-message generator.
const NACK_DEPTH: usize = 16;
const BEATS: u8 = 9;
/// Payload bytes per data packet.
const PKT_BYTES: u32 = 1024;

/// The packets of a message of `msg_len` bytes: the highest pull offset that releases one.
pub fn msg_pkts(msg_len: u16) -> u16 {
    (msg_len as u32).div_ceil(PKT_BYTES) as u16
}

/// A control packet's metadata.
fn meta(flags: u8, prio: u8, e: &CtrlEvent) -> TxMeta {
    TxMeta {
        remote_ip: e.dst_ip,
        remote_port: e.dst_port,
        msg_len: e.msg_len,
        pkt_offset: e.pkt_offset,
        local_port: e.src_port,
        tx_msg_id: e.tx_msg_id,
        credit: e.pull_grant,
        rank: prio,
        flags,
        is_new_msg: false,
        is_rtx: false,
    }
}

/// A message as the generator tells them apart: destination address, port, message id.
type MsgKey = (u32, u16, u16);

fn key(e: &CtrlEvent) -> MsgKey {
    (e.dst_ip, e.dst_port, e.tx_msg_id)
}

/// The scoreboard.
pub struct PktGenModel {
    pace: bool,
    gap: u16,
    pace_nacks: bool,
    rtt_pkts: u16,
    nacks: VecDeque<CtrlEvent>,
    nack_counts: (u32, u32),
    busy: bool,
    beat: u8,
    cur: TxMeta,
    pace_left: u16,
    queue: VecDeque<u8>,
    pending: [bool; 16],
    rows: [CtrlEvent; 16],
    /// The last PULL sent per receive message, with the message it was for.
    sent: [(MsgKey, u16); 16],
    /// A popped row being read (the cycle after the pop): its message, row and last PULL
    /// sent.
    pull_wait: Option<(u8, CtrlEvent, (MsgKey, u16))>,
    /// The row read last cycle: its PULL goes out this cycle.
    pull_read: Option<(u8, CtrlEvent, (MsgKey, u16))>,
    counters: (u32, u32, u32),
    /// Packets emitted (first beats), and the cycles slot-taking ones (PULL-bearing, and
    /// with `pace_nacks` NACK-bearing) were decided.
    pub packets: u64,
    pub pull_decisions: Vec<u64>,
}

impl PktGenModel {
    pub fn new(pace: bool, gap: u16, pace_nacks: bool, rtt_pkts: u8) -> Self {
        PktGenModel {
            pace,
            gap,
            pace_nacks,
            rtt_pkts: rtt_pkts as u16,
            nacks: VecDeque::new(),
            nack_counts: (0, 0),
            busy: false,
            beat: 0,
            cur: TxMeta::default(),
            pace_left: 0,
            queue: VecDeque::new(),
            pending: [false; 16],
            rows: [CtrlEvent::default(); 16],
            sent: [((0, 0, 0), 0); 16],
            pull_wait: None,
            pull_read: None,
            counters: (0, 0, 0),
            packets: 0,
            pull_decisions: vec![],
        }
    }

    pub fn quiet(&self) -> bool {
        !self.busy
            && self.queue.is_empty()
            && self.nacks.is_empty()
            && self.pull_read.is_none()
            && self.pull_wait.is_none()
    }

    /// Checks cycle `t` with the event presented `ev`.
    pub fn cycle(&mut self, t: u64, ev: Option<CtrlEvent>, io: &PktGenIo) -> Result<(), String> {
        let (p, l, c) = self.counters;
        if (io.packets, io.pulls, io.coalesced, io.queued) != (p, l, c, self.queue.len() as u32) {
            return Err(format!(
                "cycle {t}: counters (packets, pulls, coalesced, queued): expected {:?}, got {:?}",
                (p, l, c, self.queue.len()),
                (io.packets, io.pulls, io.coalesced, io.queued)
            ));
        }
        if (io.nacks_paced, io.nacks_unpaced) != self.nack_counts {
            return Err(format!(
                "cycle {t}: NACK counters (paced, unpaced): expected {:?}, got {:?}",
                self.nack_counts,
                (io.nacks_paced, io.nacks_unpaced)
            ));
        }
        let last_beat = self.beat == BEATS - 1;
        let free = self.pull_read.is_none()
            && self.pull_wait.is_none()
            && (!self.busy || (io.src_ready && last_beat));
        let due = !self.pace || self.pace_left <= 1;
        let take_nack = free && self.pace && due && !self.nacks.is_empty();
        let take_pull = free && self.pace && due && self.nacks.is_empty() && !self.queue.is_empty();
        let ready = free && !take_pull && !take_nack;
        if io.ev_ready != ready {
            return Err(format!(
                "cycle {t}: event.ready: expected {ready}, got {}",
                io.ev_ready
            ));
        }
        if io.src_valid != self.busy {
            return Err(format!(
                "cycle {t}: source.valid: expected {}, got {}",
                self.busy, io.src_valid
            ));
        }
        if self.busy {
            let want = TxBeat {
                data: 0,
                last: last_beat,
                meta: self.cur,
            };
            if io.src != want {
                return Err(format!(
                    "cycle {t}: source beat {}: expected {want:?}, got {:?}",
                    self.beat, io.src
                ));
            }
        }
        // Next state.
        if self.busy && io.src_ready {
            self.beat += 1;
            if last_beat {
                self.busy = false;
                self.beat = 0;
            }
        }
        self.pace_left = self.pace_left.saturating_sub(1);
        let take_ev = ev.filter(|_| ready);
        let mut start: Option<TxMeta> = None;
        if let Some((rx, e, (k, last))) = self.pull_read.take() {
            // Raise by at most one over the last PULL sent for this message; requeue the
            // rest.
            let last = if k == key(&e) { last } else { self.rtt_pkts };
            let step = last.wrapping_add(1);
            let pull = e.pull_grant.min(step);
            self.sent[rx as usize] = (key(&e), pull);
            if e.pull_grant > step {
                self.pending[rx as usize] = true;
                self.queue.push_back(rx);
            }
            let mut m = meta(PULL, 0, &e);
            m.credit = pull;
            start = Some(m);
        }
        self.pull_read = self.pull_wait.take();
        if let Some(e) = take_ev {
            let wants = e.flags & PULL != 0;
            let send_pull = !self.pace || due;
            let rx = e.rx_id as usize;
            // Free: paced, but releases nothing (beyond the message's last packet).
            let free = self.pace && wants && e.pull_grant > msg_pkts(e.msg_len);
            // A NACK not due waits for a slot (its PULL is dropped), or goes at once when
            // the queue is full.
            let nack_queued = self.pace_nacks
                && !send_pull
                && e.flags & NACK != 0
                && self.nacks.len() < NACK_DEPTH;
            // The PULL goes into the row: a releasing one when not due, a free one when its
            // message already has a PULL queued.
            let to_row = wants && !nack_queued && if free { self.pending[rx] } else { !send_pull };
            let mut flags = if to_row { e.flags & !PULL } else { e.flags };
            if nack_queued {
                self.nacks.push_back(e);
                flags &= !(NACK | PULL);
                self.nack_counts.0 = self.nack_counts.0.wrapping_add(1);
            } else if self.pace_nacks && !send_pull && e.flags & NACK != 0 {
                self.nack_counts.1 = self.nack_counts.1.wrapping_add(1);
            }
            if to_row {
                let mut row = e;
                if free {
                    row.pull_grant = msg_pkts(e.msg_len);
                }
                self.rows[rx] = row;
                if !self.pending[rx] {
                    self.pending[rx] = true;
                    self.queue.push_back(e.rx_id);
                } else {
                    self.counters.2 = self.counters.2.wrapping_add(1);
                }
            }
            if self.pace && flags & PULL != 0 && !free {
                self.sent[rx] = (key(&e), e.pull_grant);
            }
            if flags != 0 {
                start = Some(meta(flags, e.grant_prio, &e));
                if self.pace
                    && ((flags & PULL != 0 && !free)
                        || (self.pace_nacks && send_pull && flags & NACK != 0))
                {
                    self.pace_left = self.gap;
                    self.pull_decisions.push(t);
                }
            }
        }
        if take_nack {
            let e = self.nacks.pop_front().expect("nonempty");
            self.pace_left = self.gap;
            let mut m = meta(NACK, 0, &e);
            m.credit = 0;
            start = Some(m);
            self.pull_decisions.push(t);
        }
        if take_pull {
            let rx = self.queue.pop_front().expect("nonempty");
            self.pending[rx as usize] = false;
            self.pace_left = self.gap;
            self.pull_wait = Some((rx, self.rows[rx as usize], self.sent[rx as usize]));
            self.pull_decisions.push(t);
        }
        if let Some(m) = start {
            self.cur = m;
            self.busy = true;
            self.beat = 0;
            self.packets += 1;
            self.counters.0 = self.counters.0.wrapping_add(1);
            if m.flags & PULL != 0 {
                self.counters.1 = self.counters.1.wrapping_add(1);
            }
        }
        Ok(())
    }
}
