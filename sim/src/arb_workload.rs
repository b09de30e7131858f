//! Seeded random packet traffic for the [`Arbiter`]: packets of 1 to 140 beats on both
//! inputs with random idle gaps, random output backpressure and rare resets. A `valid`
//! once raised stays up, with its beat unchanged, until the beat is taken.
use nt_hdl::arbiter::{Arbiter, TxFrameSink, TxFrameSource};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Listing 3.2 egress metadata of a packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxMeta {
    pub remote_ip: u32,
    pub remote_port: u16,
    pub msg_len: u16,
    pub pkt_offset: u8,
    pub local_port: u16,
    pub tx_msg_id: u16,
    pub credit: u16,
    pub rank: u8,
    pub flags: u8,
    pub is_new_msg: bool,
    pub is_rtx: bool,
}

/// One beat of a packet stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxBeat {
    pub data: u64,
    pub last: bool,
    pub meta: TxMeta,
}

/// The arbiter's inputs in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArbInputs {
    pub reset: bool,
    pub ctrl: Option<TxBeat>,
    pub data: Option<TxBeat>,
    pub ready: bool,
}

/// The arbiter's outputs in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArbOutputs {
    pub valid: bool,
    pub beat: TxBeat,
    pub ctrl_ready: bool,
    pub data_ready: bool,
}

/// One input's packet source.
struct Side {
    beat: u32,
    len: u32,
    meta: TxMeta,
    presenting: bool,
    seq: u64,
}

/// Seeded traffic on both inputs.
pub struct ArbWorkload {
    rng: ChaCha8Rng,
    sides: [Side; 2],
    /// Probability of an idle cycle on an input (when not presenting).
    pub p_gap: f64,
    /// Probability that `source.ready` is low.
    pub p_stall: f64,
    /// Probability of a reset cycle.
    pub p_reset: f64,
}

impl ArbWorkload {
    pub fn new(seed: u64) -> Self {
        let side = |tag: u64| Side {
            beat: 0,
            len: 0,
            meta: TxMeta::default(),
            presenting: false,
            seq: tag,
        };
        ArbWorkload {
            rng: ChaCha8Rng::seed_from_u64(seed),
            sides: [side(0), side(1 << 40)],
            p_gap: 0.3,
            p_stall: 0.15,
            p_reset: 0.0005,
        }
    }

    fn new_packet(rng: &mut ChaCha8Rng, s: &mut Side, ctrl: bool) {
        s.len = if ctrl { 9 } else { rng.gen_range(1..=140) };
        s.beat = 0;
        s.seq += 1;
        s.meta = TxMeta {
            remote_ip: rng.gen(),
            remote_port: rng.gen(),
            msg_len: rng.gen(),
            pkt_offset: rng.gen(),
            local_port: rng.gen(),
            tx_msg_id: rng.gen(),
            credit: rng.gen(),
            rank: rng.gen(),
            flags: if ctrl { 0x02 } else { 0x01 },
            is_new_msg: rng.gen(),
            is_rtx: rng.gen(),
        };
    }

    /// The inputs of cycle `now`.
    pub fn next(&mut self, _now: u64) -> ArbInputs {
        let reset = self.rng.gen_bool(self.p_reset);
        let mut beats = [None, None];
        for (i, b) in beats.iter_mut().enumerate() {
            let s = &mut self.sides[i];
            if !s.presenting {
                if s.len == 0 {
                    Self::new_packet(&mut self.rng, s, i == 0);
                }
                s.presenting = !self.rng.gen_bool(self.p_gap);
            }
            if s.presenting {
                *b = Some(TxBeat {
                    data: s.seq << 8 | s.beat as u64,
                    last: s.beat + 1 == s.len,
                    meta: s.meta,
                });
            }
        }
        ArbInputs {
            reset,
            ctrl: beats[0],
            data: beats[1],
            ready: !self.rng.gen_bool(self.p_stall),
        }
    }

    /// Advances the inputs whose beat was taken in this cycle (`valid & ready`).
    pub fn taken(&mut self, ctrl: bool, data: bool) {
        for (i, t) in [ctrl, data].into_iter().enumerate() {
            let s = &mut self.sides[i];
            if t {
                s.presenting = false;
                s.beat += 1;
                if s.beat == s.len {
                    s.len = 0;
                }
            }
        }
    }
}

/// Presents beat `b` (or nothing) on a packet-stream input.
pub fn drive_frame_sink(p: &mut TxFrameSink, b: Option<TxBeat>) {
    let x = b.unwrap_or_default();
    p.valid.next = b.is_some();
    p.data.next = x.data.into();
    p.last.next = x.last;
    p.remote_ip.next = (x.meta.remote_ip as u64).into();
    p.remote_port.next = (x.meta.remote_port as u64).into();
    p.msg_len.next = (x.meta.msg_len as u64).into();
    p.pkt_offset.next = (x.meta.pkt_offset as u64).into();
    p.local_port.next = (x.meta.local_port as u64).into();
    p.tx_msg_id.next = (x.meta.tx_msg_id as u64).into();
    p.credit.next = (x.meta.credit as u64).into();
    p.rank.next = (x.meta.rank as u64).into();
    p.flags.next = (x.meta.flags as u64).into();
    p.is_new_msg.next = x.meta.is_new_msg;
    p.is_rtx.next = x.meta.is_rtx;
}

/// Sets the arbiter's inputs.
pub fn drive_arbiter(u: &mut Arbiter, i: &ArbInputs) {
    u.reset.next = i.reset;
    u.source.ready.next = i.ready;
    drive_frame_sink(&mut u.ctrl, i.ctrl);
    drive_frame_sink(&mut u.data, i.data);
}

/// Reads a packet stream's `valid` and beat (after the kernel settled).
pub fn read_frame_beat(s: &TxFrameSource) -> (bool, TxBeat) {
    (
        s.valid.val(),
        TxBeat {
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
    )
}

/// Reads the arbiter's outputs (after the kernel settled).
pub fn read_arbiter(u: &Arbiter) -> ArbOutputs {
    let (valid, beat) = read_frame_beat(&u.source);
    ArbOutputs {
        valid,
        beat,
        ctrl_ready: u.ctrl.ready.val(),
        data_ready: u.data.ready.val(),
    }
}
