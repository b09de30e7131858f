//! Golden models of the transport programs' receive decisions (SPEC §6), written from the
//! specification: given the records a program takes (header fields and the
//! `GetRxMsgInfo` answer) and the receive messages freed, in the order they reach it, they
//! predict every control-packet event (ACK, NACK, PULL, GRANT) in order. A system test
//! feeds them what crossed the program's boundary ([`nt_hdl::nic::NicProbe`]) and
//! compares event by event.
use nt_hdl::homa::OVERCOMMIT;
use nt_hdl::ingress::PktInfo;
use nt_hdl::nic::CtrlEvent;
use std::collections::{HashMap, VecDeque};

const DATA: u8 = 0x01;
const ACK: u8 = 0x02;
const NACK: u8 = 0x04;
const PULL: u8 = 0x08;
const CHOP: u8 = 0x10;

/// The record's fields as plain integers.
#[derive(Clone, Copy, Debug)]
struct Rec {
    flags: u8,
    src_ip: u32,
    src_port: u16,
    dst_port: u16,
    tx_msg_id: u16,
    msg_len: u16,
    pkt_offset: u8,
    fail: bool,
    id: u16,
    new_msg: bool,
    new_pkt: bool,
    last_pkt: bool,
    ack_no: u8,
    /// The Bolt INC flag (Bolt fields' flags byte, bit 2).
    bolt_inc: bool,
}

impl Rec {
    fn of(r: &PktInfo) -> Self {
        Self {
            flags: r.flags.to_u64() as u8,
            src_ip: r.src_ip.to_u64() as u32,
            src_port: r.src_port.to_u64() as u16,
            dst_port: r.dst_port.to_u64() as u16,
            tx_msg_id: r.tx_msg_id.to_u64() as u16,
            msg_len: r.msg_len.to_u64() as u16,
            pkt_offset: r.pkt_offset.to_u64() as u8,
            fail: r.fail,
            id: r.rx_msg_id.to_u64() as u16,
            new_msg: r.is_new_msg,
            new_pkt: r.is_new_pkt,
            last_pkt: r.is_last_pkt,
            ack_no: r.ack_no.to_u64() as u8,
            bolt_inc: (r.bolt.get_bits::<8>(32).to_u64() as u8) & nt_hdl::swif::BOLT_INC != 0,
        }
    }

    fn event(&self, flags: u8, pkt_offset: u8, pull_grant: u16, grant_prio: u8) -> CtrlEvent {
        CtrlEvent {
            flags,
            rx_id: self.id,
            dst_ip: self.src_ip,
            dst_port: self.src_port,
            src_port: self.dst_port,
            tx_msg_id: self.tx_msg_id,
            msg_len: self.msg_len,
            pkt_offset,
            pull_grant,
            grant_prio,
        }
    }

    fn total(&self) -> u8 {
        (self.msg_len as u32).div_ceil(1024) as u8
    }
}

/// Which program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    Ndp,
    Homa,
    HomaTr,
    Bolt,
}

impl Program {
    pub fn of(name: &str) -> Self {
        match name {
            "ndp" => Program::Ndp,
            "homa" => Program::Homa,
            "homatr" => Program::HomaTr,
            "bolt" => Program::Bolt,
            other => panic!("no model for program {other}"),
        }
    }
}

/// A program's receive side, event by event.
pub struct ProgramModel {
    program: Program,
    rtt: u8,
    /// NDP: pull_offset per message.
    pull: HashMap<u16, u16>,
    /// Homa: intact packets received and grant per message.
    received: HashMap<u16, u8>,
    granted: HashMap<u16, u8>,
    /// Homa: the record kept for a message's GRANT (its latest).
    ginfo: HashMap<u16, Rec>,
    /// Homa: scheduler entries id → (prio, a, b).
    sched: HashMap<u16, (u16, u16, u16)>,
    expected: VecDeque<CtrlEvent>,
    /// GRANTs predicted (and so checked), by rank + 1 (sized for any overcommitment up to
    /// the scheduler's 16 entries, so that a wrong `OVERCOMMIT` is reported, not a panic).
    pub grants_by_prio: [u64; 17],
    /// Refusals, by rank: a DATA packet after which the best grantable message (one whose
    /// grant would grow) was not granted because its rank was `>= OVERCOMMIT`, i.e. that
    /// many better-ranked messages were already granted all they could have.
    pub refusals_by_rank: [u64; 17],
    pub events: u64,
}

impl ProgramModel {
    pub fn new(program: Program, rtt_pkts: u8) -> Self {
        Self {
            program,
            rtt: rtt_pkts,
            pull: HashMap::new(),
            received: HashMap::new(),
            granted: HashMap::new(),
            ginfo: HashMap::new(),
            sched: HashMap::new(),
            expected: VecDeque::new(),
            grants_by_prio: [0; 17],
            refusals_by_rank: [0; 17],
            events: 0,
        }
    }

    /// One cycle's view: the record taken, the message freed (after the record, as in
    /// the hardware) and the event raised, which must be the next one predicted.
    pub fn cycle(
        &mut self,
        record: Option<&PktInfo>,
        freed: Option<u16>,
        ev: Option<CtrlEvent>,
    ) -> Result<(), String> {
        if let Some(r) = record {
            self.record(Rec::of(r));
        }
        if let Some(id) = freed {
            self.sched.remove(&id);
        }
        if let Some(e) = ev {
            self.events += 1;
            match self.expected.pop_front() {
                Some(want) if want == e => {}
                Some(want) => {
                    return Err(format!("control event {e:?}, the model expected {want:?}"))
                }
                None => return Err(format!("control event {e:?}, the model expected none")),
            }
        }
        Ok(())
    }

    /// Events predicted but not raised yet.
    pub fn pending(&self) -> usize {
        self.expected.len()
    }

    fn record(&mut self, r: Rec) {
        if r.flags & DATA == 0 || r.fail {
            return;
        }
        let intact = r.flags & CHOP == 0;
        match self.program {
            Program::Bolt => {
                // ACK with the cumulative ackNo and the INC echo; NACK for a trimmed packet.
                let (flags, prio) = if intact {
                    (ACK, r.bolt_inc as u8)
                } else {
                    (NACK, 0)
                };
                self.expected
                    .push_back(r.event(flags, r.pkt_offset, r.ack_no as u16, prio));
            }
            Program::Ndp => {
                let inc = (intact && r.new_pkt) as u16;
                let p = if r.new_msg {
                    self.rtt as u16 + inc
                } else {
                    self.pull.get(&r.id).copied().unwrap_or(0) + inc
                };
                self.pull.insert(r.id, p);
                // Thesis Algorithm 5, lines 5-11 and 19: a trimmed packet sets genNACK, an
                // intact one genACK, and every DATA packet that reaches line 19 raises
                // `CtrlPktEvent(genACK, genNACK, pull_offset)`: the event always carries the
                // pull offset, whether or not the packet completed its message (§3.4.2:
                // "the NDP client PULLs a data packet every time it receives one"; SPEC §6:
                // "each intact DATA packet → ACK ..., with PULL").
                let flags = if intact { ACK | PULL } else { NACK | PULL };
                self.expected.push_back(r.event(flags, r.pkt_offset, p, 0));
            }
            Program::Homa | Program::HomaTr => {
                let inc = (intact && r.new_pkt) as u8;
                let rcv = if r.new_msg {
                    inc
                } else {
                    self.received
                        .get(&r.id)
                        .copied()
                        .unwrap_or(0)
                        .wrapping_add(inc)
                };
                self.received.insert(r.id, rcv);
                if r.new_msg {
                    self.granted.insert(r.id, self.rtt);
                }
                let grt = self.granted.get(&r.id).copied().unwrap_or(0);
                if !intact {
                    if self.program == Program::HomaTr {
                        self.expected.push_back(r.event(NACK, r.pkt_offset, 0, 0));
                    }
                    return;
                }
                self.ginfo.insert(r.id, r);
                let total = r.total();
                let ack = r.event(ACK, r.ack_no, 0, 0);
                if total <= self.rtt || !r.new_pkt {
                    self.expected.push_back(ack);
                    return;
                }
                if rcv >= total || grt >= total {
                    self.sched.remove(&r.id);
                } else {
                    let want = (rcv + self.rtt).min(total);
                    self.sched
                        .insert(r.id, ((total - rcv) as u16, want as u16, grt as u16));
                }
                // The best grantable message and its rank among all entries.
                let best = self
                    .sched
                    .iter()
                    .filter(|(_, (_, a, b))| a > b)
                    .map(|(id, (p, a, _))| (*p, *id, *a))
                    .min();
                match best {
                    Some((p, g, a)) => {
                        let rank = self
                            .sched
                            .iter()
                            .filter(|(id, (q, _, _))| (*q, **id) < (p, g))
                            .count();
                        if (rank as u64) < OVERCOMMIT {
                            let gi = self.ginfo[&g];
                            let mut e = gi.event(PULL, gi.ack_no, a, rank as u8 + 1);
                            e.rx_id = g;
                            self.expected.push_back(e);
                            self.grants_by_prio[rank + 1] += 1;
                            self.granted.insert(g, a as u8);
                            self.sched.insert(g, (p, a, a));
                            if g != r.id && r.last_pkt {
                                self.expected.push_back(ack);
                            }
                        } else {
                            self.refusals_by_rank[rank.min(16)] += 1;
                            self.expected.push_back(ack);
                        }
                    }
                    None => self.expected.push_back(ack),
                }
            }
        }
    }
}
