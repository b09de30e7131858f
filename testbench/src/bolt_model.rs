//! Golden models of Bolt's NIC blocks, written from their documentation (`hdl/src/bolt.rs`,
//! `hdl/src/boltstamp.rs`; thesis Algorithm 8, SPEC §2), in plain integers:
//! * [`BoltModel`]: the Bolt program. Fed every record the block takes with the program's
//!   `now` when the record is applied (the cycle it was taken in: the counter restarts after
//!   the reset cycle and stage 1 applies a record one cycle after taking it), it predicts,
//!   in order and per output, the control-packet events, the delivered events and the
//!   credit events.
//! * [`stamp`]: the TX stamp. Given a frame's words and the NIC time when its word 6
//!   leaves, the frame as the MAC gets it.
//!
//! Where the documentation leaves a field or a choice open the model says so at the place
//! it decides (fields the documentation does not define are left out of the comparison:
//! they are `None` in [`CreditEv`]).
use nt_hdl::ingress::PktInfo;
use nt_hdl::nic::CtrlEvent;
use nt_hdl::swif::{BOLT_ACK, BOLT_DATA, BOLT_FIRST, BOLT_INC, BOLT_LAST, BOLT_SRC};
use std::collections::{HashMap, VecDeque};

const DATA: u8 = 0x01;
const ACK: u8 = 0x02;
const NACK: u8 = 0x04;
const CHOP: u8 = 0x10;

/// The largest window (packets).
const MAX_CWND: u32 = 255;
/// The MTU in 64-byte units (1088 bytes).
const MTU_UNITS: u64 = 17;
/// Offsets with a bit in the delivered / retransmit bitmaps (`packetization::MAX_PKTS`).
const BITMAP_BITS: u32 = nt_hdl::packetization::MAX_PKTS as u32;
/// The saturation value of the decrement test's 16-bit operands.
const SAT16: u64 = 0xffff;

/// The bitmap with `offset`'s bit (empty for an offset past the bitmap).
pub fn offset_bit(offset: u8) -> u64 {
    if (offset as u32) < BITMAP_BITS {
        1u64 << offset
    } else {
        0
    }
}

/// A `DeliveredEvent`: the acknowledged offset's bit and the cumulative ackNo
/// (`below_flag` set: every offset below `below` is delivered).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeliveredEv {
    pub tx_msg_id: u16,
    pub ack_bitmap: u64,
    /// `Some(below)` when `below_flag` is set.
    pub below: Option<u8>,
}

/// A `CreditTxEvent`. Fields that only mean something under their flag are `Some` only
/// when the flag is set (a retransmit bitmap without `rtx_flag`, a credit without
/// `credit_flag` are not defined, so not compared).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CreditEv {
    pub tx_msg_id: u16,
    /// `Some(rtx_bitmap)` when `rtx_flag` is set.
    pub rtx: Option<u64>,
    /// `Some(new_credit)` when `credit_flag` is set.
    pub credit: Option<u16>,
}

/// One sent message's Bolt state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MsgState {
    /// The message's whole `tx_msg_id` (the slot is shared by ids with the same low bits).
    pub tag: u16,
    pub cwnd: u32,
    /// The cumulative ackNo (the largest one received: a cumulative acknowledgement does
    /// not go back when ACKs are reordered).
    pub acked: u32,
    /// `seq_no_at_last_ai`.
    pub ai_seq: u32,
    pub last_dec: u32,
}

/// Counts of the model's decisions, to show a run was not vacuous.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoltCounts {
    pub records: u64,
    pub data_ack: u64,
    pub data_ack_inc: u64,
    pub data_nack: u64,
    pub data_failed: u64,
    pub acks: u64,
    pub nacks: u64,
    pub srcs: u64,
    /// Records of no kind the program acts on (not DATA, ACK, NACK or SRC).
    pub ignored: u64,
    /// Records that found their slot empty or held by another message.
    pub fresh: u64,
    /// ... of which the slot was held by another message (it is replaced).
    pub replaced: u64,
    pub inc_increments: u64,
    pub ai_increments: u64,
    /// ACKs whose window would have passed 255.
    pub cwnd_saturated: u64,
    pub src_decrements: u64,
    pub src_kept: u64,
    /// SRCs whose test passed with a window of 1 (kept at 1).
    pub src_at_floor: u64,
    pub rtt_saturated: u64,
    pub q_saturated: u64,
    pub elapsed_saturated: u64,
}

/// Readings of `hdl/src/bolt.rs`'s documentation that a model could take. The
/// documented (and built) behaviour is [`Choices::hardware`]: ignored records change
/// nothing, an SRC at a window of 1 still restarts the decrement interval, and
/// `seq_no_at_last_ai` saturates at 255. The equivalence test checks that each other
/// reading is caught.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Choices {
    /// A non-DATA record of no kind the sender acts on (not ACK, NACK or SRC) takes its
    /// slot: a message that does not hold the slot takes it with the initial state (the
    /// message that held it loses its window), as a NACK or a kept SRC of a new message
    /// does, without an event. The documentation gives such a record no effect.
    pub ignored_records_take_slots: bool,
    /// An SRC whose test passes at a window of 1 does nothing: no `last_dec_time = now`
    /// and no credit event. The documentation ("shrinks by one when …, and never below 1;
    /// then last_dec_time = now and CreditTxEvent") updates the time and raises the event
    /// (with an unchanged credit) whenever the test passes, as Bolt's Algorithm does.
    pub floor_src_does_nothing: bool,
    /// `seq_no_at_last_ai` is kept in 8 bits, saturated at 255, so an ACK for offset 255
    /// reaches it when `acked + cwnd > 255`. The documentation makes it `acked + cwnd`.
    pub ai_seq_saturates: bool,
}

impl Choices {
    /// What `hdl/src/bolt.rs` does.
    pub fn hardware() -> Self {
        Choices {
            ignored_records_take_slots: false,
            floor_src_does_nothing: false,
            ai_seq_saturates: true,
        }
    }
}

/// The Bolt program's golden model. See the module documentation.
pub struct BoltModel {
    rtt_pkts: u8,
    slots: usize,
    state: HashMap<usize, MsgState>,
    choices: Choices,
    pub ctrl: VecDeque<CtrlEvent>,
    pub delivered: VecDeque<DeliveredEv>,
    pub credit: VecDeque<CreditEv>,
    pub counts: BoltCounts,
}

impl BoltModel {
    /// A program whose messages start with a window of `rtt_pkts`, with `slots` (a power of
    /// two) message states indexed by the low bits of `tx_msg_id`.
    pub fn new(rtt_pkts: u8, slots: usize) -> Self {
        assert!(
            slots.is_power_of_two(),
            "slots={slots} must be a power of two"
        );
        BoltModel {
            rtt_pkts,
            slots,
            state: HashMap::new(),
            choices: Choices::default(),
            ctrl: VecDeque::new(),
            delivered: VecDeque::new(),
            credit: VecDeque::new(),
            counts: BoltCounts::default(),
        }
    }

    /// The model with these [`Choices`] (by default the documentation's reading).
    pub fn with_choices(mut self, choices: Choices) -> Self {
        self.choices = choices;
        self
    }

    /// A reset: every slot forgotten, nothing pending.
    pub fn reset(&mut self) {
        self.state.clear();
        self.ctrl.clear();
        self.delivered.clear();
        self.credit.clear();
    }

    /// Events predicted and not yet matched, per output (ctrl, delivered, credit).
    pub fn pending(&self) -> (usize, usize, usize) {
        (self.ctrl.len(), self.delivered.len(), self.credit.len())
    }

    /// The state held for `tx_msg_id`'s slot, if it is that message's.
    pub fn message(&self, tx_msg_id: u16) -> Option<MsgState> {
        self.state
            .get(&self.slot(tx_msg_id))
            .copied()
            .filter(|s| s.tag == tx_msg_id)
    }

    fn slot(&self, tx_msg_id: u16) -> usize {
        tx_msg_id as usize & (self.slots - 1)
    }

    /// Applies one record the program took; `now` is the program's time when it applies
    /// it (cycles since reset).
    pub fn record(&mut self, r: &PktInfo, now: u32) {
        self.counts.records += 1;
        let flags = r.flags.to_u64() as u8;
        let bolt = r.bolt;
        let bflags = bolt.get_bits::<8>(32).to_u64() as u8;
        let inc = bflags & BOLT_INC != 0;
        let tx_msg_id = r.tx_msg_id.to_u64() as u16;
        let pkt_offset = r.pkt_offset.to_u64() as u8;

        if flags & DATA != 0 {
            // Receiver. (A record with DATA and other flags is a DATA record.)
            if r.fail {
                self.counts.data_failed += 1;
                return;
            }
            let intact = flags & CHOP == 0;
            let (f, prio) = if intact {
                self.counts.data_ack += 1;
                self.counts.data_ack_inc += inc as u64;
                (ACK, inc as u8)
            } else {
                self.counts.data_nack += 1;
                (NACK, 0)
            };
            self.ctrl.push_back(CtrlEvent {
                flags: f,
                // The event's `rx_id` port has the slot width.
                rx_id: r.rx_msg_id.to_u64() as u16 & (self.slots as u16 - 1),
                dst_ip: r.src_ip.to_u64() as u32,
                dst_port: r.src_port.to_u64() as u16,
                src_port: r.dst_port.to_u64() as u16,
                tx_msg_id,
                msg_len: r.msg_len.to_u64() as u16,
                pkt_offset,
                // pull_offset = ackNo. A NACK's is not documented; the model gives it the
                // same (the NDP layout's control packets all carry pull_offset).
                pull_grant: r.ack_no.to_u64() as u16,
                grant_prio: prio,
            });
            return;
        }

        let ack = flags & ACK != 0;
        let nack = flags & NACK != 0;
        let src = flags == 0 && bflags & BOLT_SRC != 0;
        assert!(
            !(ack && nack),
            "ACK|NACK records are not documented; the workload must not make them"
        );
        if !(ack || nack || src) {
            // Not a record the sender acts on: no event, and (by default) no state touched.
            self.counts.ignored += 1;
            if !self.choices.ignored_records_take_slots {
                return;
            }
        }

        // Sender: the message's state, or the initial one for a new message.
        let slot = self.slot(tx_msg_id);
        let mut m = match self.state.get(&slot) {
            Some(s) if s.tag == tx_msg_id => *s,
            held => {
                self.counts.fresh += 1;
                self.counts.replaced += held.is_some() as u64;
                // The documentation gives only `cwnd = rtt_pkts`; nothing acknowledged, no
                // AI point yet (the first ACK increases) and no decrease since reset.
                MsgState {
                    tag: tx_msg_id,
                    cwnd: self.rtt_pkts as u32,
                    acked: 0,
                    ai_seq: 0,
                    last_dec: 0,
                }
            }
        };

        if ack {
            self.counts.acks += 1;
            let ack_no = r.pull_grant.to_u64() as u32;
            m.acked = m.acked.max(ack_no);
            // The event names this ACK's own ackNo, not the state's running maximum: a
            // forged ACK that the packetization module later drops (its claim is wrong)
            // must not make a later real one acknowledge offsets never received.
            self.delivered.push_back(DeliveredEv {
                tx_msg_id,
                ack_bitmap: offset_bit(pkt_offset),
                below: Some(ack_no.min(255) as u8),
            });
            let mut cw = m.cwnd;
            if inc {
                cw += 1;
                self.counts.inc_increments += 1;
            }
            let ai = pkt_offset as u32 >= m.ai_seq;
            if ai {
                cw += 1;
                self.counts.ai_increments += 1;
            }
            if cw > MAX_CWND {
                self.counts.cwnd_saturated += 1;
            }
            m.cwnd = cw.min(MAX_CWND);
            if ai {
                m.ai_seq = m.acked + m.cwnd;
                if self.choices.ai_seq_saturates {
                    m.ai_seq = m.ai_seq.min(255);
                }
            }
            self.credit.push_back(CreditEv {
                tx_msg_id,
                rtx: None,
                credit: Some((m.acked + m.cwnd) as u16),
            });
        } else if !(nack || src) {
            // A record of no kind taking its slot (`Choices::ignored_records_take_slots`).
        } else if nack {
            self.counts.nacks += 1;
            self.credit.push_back(CreditEv {
                tx_msg_id,
                rtx: Some(offset_bit(pkt_offset)),
                credit: None,
            });
        } else {
            self.counts.srcs += 1;
            let t_tx = bolt.get_bits::<32>(0).to_u64() as u32;
            let q_size = bolt.get_bits::<24>(48).to_u64();
            let rtt_src = now.wrapping_sub(t_tx) as u64;
            let elapsed = now.wrapping_sub(m.last_dec) as u64;
            let q_units = q_size / 64;
            self.counts.rtt_saturated += (rtt_src > SAT16) as u64;
            self.counts.q_saturated += (q_units > SAT16) as u64;
            self.counts.elapsed_saturated += (elapsed > SAT16) as u64;
            // rtt_src / target_q <= now - last_dec_time, target_q = q/MTU * cwnd/rtt_pkts,
            // multiplied out, with 16-bit saturating operands.
            let lhs = rtt_src.min(SAT16) * MTU_UNITS * self.rtt_pkts as u64;
            let rhs = q_units.min(SAT16) * m.cwnd as u64 * elapsed.min(SAT16);
            if lhs <= rhs && m.cwnd == 1 && self.choices.floor_src_does_nothing {
                self.counts.src_at_floor += 1;
            } else if lhs <= rhs {
                if m.cwnd > 1 {
                    m.cwnd -= 1;
                    self.counts.src_decrements += 1;
                } else {
                    self.counts.src_at_floor += 1;
                }
                m.last_dec = now;
                self.credit.push_back(CreditEv {
                    tx_msg_id,
                    rtx: None,
                    credit: Some((m.acked + m.cwnd) as u16),
                });
            } else {
                self.counts.src_kept += 1;
            }
        }
        self.state.insert(slot, m);
    }
}

/// The number of packets of a `msg_len`-byte message (1024-byte payloads).
pub fn packets(msg_len: u16) -> u16 {
    (msg_len as u32).div_ceil(1024) as u16
}

/// The Bolt flags byte the stamp writes into a frame with these header fields.
pub fn stamp_flags(
    flags: u8,
    tos: u8,
    msg_len: u16,
    pkt_offset: u8,
    credit: u16,
    rtt_pkts: u8,
) -> u8 {
    if flags & DATA != 0 {
        let mut b = BOLT_DATA | BOLT_INC;
        if pkt_offset < rtt_pkts {
            b |= BOLT_FIRST;
        }
        if credit >= packets(msg_len) {
            b |= BOLT_LAST;
        }
        b
    } else if flags & ACK != 0 {
        if tos & 4 != 0 {
            BOLT_ACK | BOLT_INC
        } else {
            BOLT_ACK
        }
    } else {
        0
    }
}

/// The frame `words` (first byte in bits 63:56 of word 0, at least 8 words) as the stamp
/// sends it, when its word 6 leaves at NIC time `now6` and the NIC's first window is
/// `rtt_pkts`: bytes 50-53 zero, byte 54 the flags ([`stamp_flags`]), bytes 55-58
/// `now6` (big-endian); every other byte unchanged.
pub fn stamp(words: &[u64], now6: u32, rtt_pkts: u8) -> Vec<u64> {
    assert!(
        words.len() >= 8,
        "a frame of {} words has no Bolt bytes",
        words.len()
    );
    let mut b: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    let tos = b[15];
    let flags = b[34];
    let msg_len = u16::from_be_bytes([b[39], b[40]]);
    let pkt_offset = b[41];
    let credit = u16::from_be_bytes([b[42], b[43]]);
    b[50..54].fill(0);
    b[54] = stamp_flags(flags, tos, msg_len, pkt_offset, credit, rtt_pkts);
    b[55..59].copy_from_slice(&now6.to_be_bytes());
    b.chunks(8)
        .map(|c| u64::from_be_bytes(c.try_into().unwrap()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamp_writes_bytes_50_to_58_only() {
        let mut f = vec![0x1111_1111_1111_1111u64; 9];
        f[4] = 0x0000_0100_0000_0c00; // flags DATA, msg_len high byte 0x0c
        f[5] = 0x0001_0004_0000_0000; // msg_len low 0x00 (3072 bytes: 3 packets), off 1, credit 4
        let out = stamp(&f, 0x0102_0304, 2);
        assert_eq!(
            out[6],
            0x1111_0000_0000_0000
                | ((BOLT_DATA | BOLT_INC | BOLT_FIRST | BOLT_LAST) as u64) << 8
                | 0x01
        );
        assert_eq!(out[7], 0x0203_0411_1111_1111);
        assert_eq!(out[..6], f[..6]);
        assert_eq!(out[8], f[8]);
    }

    #[test]
    fn packets_round_up() {
        assert_eq!(packets(0), 0);
        assert_eq!(packets(1), 1);
        assert_eq!(packets(1024), 1);
        assert_eq!(packets(1025), 2);
        assert_eq!(packets(65535), 64);
    }
}
