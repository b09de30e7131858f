//! Seeded commands and queries for the [`PrioSched`] priority scheduler, in phases of 20 to
//! 400 cycles: idle gaps (queries only), fill bursts of new ids (with 128 ids: past the 16
//! entries into the overflow FIFO and past its 16 places, so snapshots are dropped),
//! churn (updates of present ids, new ids, removes of present and absent ids, bad op codes,
//! ids `>= N`), drains (removes until the entries and the FIFO empty), and bursts of
//! updates of few ids (several snapshots of one id queued). Priorities are often drawn from
//! a few values (ties broken by id), `a`/`b` from a few values (so each predicate both finds
//! and misses), `q` sometimes 0 (`a < q` finds nothing). A rare reset. A command is held,
//! unchanged, until the block accepts it. [`read_prisched`] snapshots the ports for the
//! model (`nt_testbench::prisched_model`).
use nt_hdl::prisched::PrioSched;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::Bits;

/// One command on `cmd`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedCmd {
    pub op: u8,
    pub id: u16,
    pub prio: u16,
    pub a: u16,
    pub b: u16,
}

/// One query on `query`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedQuery {
    pub pred: u8,
    pub q: u16,
}

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedInputs {
    pub reset: bool,
    pub cmd: Option<SchedCmd>,
    pub query: Option<SchedQuery>,
}

/// The `resp` port's fields (all of them, whether `valid` or not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedResp {
    pub valid: bool,
    pub found: bool,
    pub id: u16,
    pub prio: u16,
    pub a: u16,
    pub b: u16,
    pub rank: u8,
    pub count: u8,
}

/// The `stat` port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedStats {
    pub upserts: u32,
    pub removes: u32,
    pub remove_miss: u32,
    pub overflowed: u32,
    pub fifo_drops: u32,
    pub stale: u32,
    pub promoted: u32,
    pub bad_cmds: u32,
    pub queries: u32,
    pub count: u8,
    pub fifo_level: u8,
}

/// Every output port in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedOutputs {
    pub cmd_ready: bool,
    pub query_ready: bool,
    pub resp: SchedResp,
    pub stat: SchedStats,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Fill,
    Churn,
    Drain,
    HotUpdates,
}

/// Seeded inputs for a scheduler over `n` ids.
pub struct PrioSchedWorkload {
    rng: ChaCha8Rng,
    n: usize,
    phase: Phase,
    left: u32,
    /// `a`/`b` drawn from 0..4 (true) or from the whole range.
    narrow_ab: bool,
    /// Ids upserted (accepted) and not removed since, as far as the workload knows.
    upserted: Vec<u16>,
    /// The command presented and not yet accepted.
    pending: Option<SchedCmd>,
    /// Chance per cycle of a reset.
    pub p_reset: f64,
}

impl PrioSchedWorkload {
    pub fn new(seed: u64, n: usize) -> Self {
        PrioSchedWorkload {
            rng: ChaCha8Rng::seed_from_u64(seed),
            n,
            phase: Phase::Fill,
            left: 100,
            narrow_ab: true,
            upserted: vec![],
            pending: None,
            p_reset: 1.0 / 10_000.0,
        }
    }

    fn next_phase(&mut self) {
        let r = &mut self.rng;
        (self.phase, self.left) = match r.gen_range(0..10) {
            0 | 1 => (Phase::Idle, r.gen_range(20..200)),
            2 | 3 => (Phase::Fill, r.gen_range(20..100)),
            4..=6 => (Phase::Churn, r.gen_range(50..400)),
            7 | 8 => (Phase::Drain, r.gen_range(50..400)),
            _ => (Phase::HotUpdates, r.gen_range(20..200)),
        };
        self.narrow_ab = r.gen_bool(0.7);
    }

    fn prio(&mut self) -> u16 {
        let r = &mut self.rng;
        match r.gen_range(0..10) {
            0..=3 => r.gen_range(0..6),
            4..=7 => r.gen_range(0..1000),
            8 => [0, u16::MAX][r.gen_range(0..2)],
            _ => r.gen(),
        }
    }

    fn ab(&mut self) -> u16 {
        if self.narrow_ab {
            self.rng.gen_range(0..4)
        } else {
            self.rng.gen()
        }
    }

    fn any_id(&mut self) -> u16 {
        self.rng.gen_range(0..self.n) as u16
    }

    fn upserted_id(&mut self) -> Option<u16> {
        if self.upserted.is_empty() {
            None
        } else {
            let i = self.rng.gen_range(0..self.upserted.len());
            Some(self.upserted[i])
        }
    }

    /// An id not upserted, if a few tries find one.
    fn new_id(&mut self) -> u16 {
        for _ in 0..8 {
            let id = self.any_id();
            if !self.upserted.contains(&id) {
                return id;
            }
        }
        self.any_id()
    }

    fn upsert(&mut self, id: u16) -> SchedCmd {
        SchedCmd {
            op: 1,
            id,
            prio: self.prio(),
            a: self.ab(),
            b: self.ab(),
        }
    }

    fn remove(&mut self, id: u16) -> SchedCmd {
        // Stray operand values on a remove must not matter.
        SchedCmd {
            op: 2,
            id,
            prio: self.rng.gen(),
            a: self.rng.gen(),
            b: self.rng.gen(),
        }
    }

    fn new_cmd(&mut self) -> Option<SchedCmd> {
        let p_cmd = match self.phase {
            Phase::Idle => 0.0,
            Phase::Fill => 0.9,
            Phase::Churn => 0.7,
            Phase::Drain => 0.8,
            Phase::HotUpdates => 0.8,
        };
        if !self.rng.gen_bool(p_cmd) {
            return None;
        }
        let c = match self.phase {
            Phase::Idle => return None,
            Phase::Fill => {
                let id = self.new_id();
                self.upsert(id)
            }
            Phase::Churn => match self.rng.gen_range(0..100) {
                0..=34 => match self.upserted_id() {
                    Some(id) => self.upsert(id),
                    None => {
                        let id = self.new_id();
                        self.upsert(id)
                    }
                },
                35..=54 => {
                    let id = self.new_id();
                    self.upsert(id)
                }
                55..=79 => match self.upserted_id() {
                    Some(id) => self.remove(id),
                    None => {
                        let id = self.any_id();
                        self.remove(id)
                    }
                },
                80..=87 => {
                    let id = self.new_id();
                    self.remove(id)
                }
                88..=94 => {
                    // Bad op code (0 or 3) on a legal id.
                    let mut c = self.upsert(0);
                    c.op = [0, 3][self.rng.gen_range(0..2)];
                    c.id = self.any_id();
                    c
                }
                _ => {
                    // An id >= N, with a legal op.
                    let n = self.n as u16;
                    let id = if self.rng.gen_bool(0.3) {
                        n
                    } else {
                        self.rng.gen_range(n..=u16::MAX)
                    };
                    let mut c = self.upsert(id);
                    c.op = self.rng.gen_range(1..=2);
                    c
                }
            },
            Phase::Drain => match self.upserted_id() {
                Some(id) if self.rng.gen_bool(0.9) => self.remove(id),
                _ => {
                    let id = self.any_id();
                    self.remove(id)
                }
            },
            Phase::HotUpdates => {
                // Updates of a few ids (the first upserted ones), some new ones.
                let k = self.upserted.len().min(3);
                if k > 0 && self.rng.gen_bool(0.8) {
                    let id = self.upserted[self.rng.gen_range(0..k)];
                    self.upsert(id)
                } else {
                    let id = self.new_id();
                    self.upsert(id)
                }
            }
        };
        Some(c)
    }

    fn new_query(&mut self) -> Option<SchedQuery> {
        let p = match self.phase {
            Phase::Idle => 0.3,
            _ => 0.6,
        };
        if !self.rng.gen_bool(p) {
            return None;
        }
        let r = &mut self.rng;
        let q = match r.gen_range(0..10) {
            0 => 0,
            1 => u16::MAX,
            2..=6 => r.gen_range(0..5),
            _ => r.gen(),
        };
        Some(SchedQuery {
            pred: r.gen_range(0..4),
            q,
        })
    }

    /// Draws this cycle's inputs (the pending command again if it was not accepted) and
    /// sets them on the block.
    pub fn drive<const A: usize, const N: usize>(
        &mut self,
        u: &mut PrioSched<A, N>,
    ) -> SchedInputs {
        if self.left == 0 {
            self.next_phase();
        }
        self.left -= 1;
        if self.pending.is_none() {
            self.pending = self.new_cmd();
        }
        let i = SchedInputs {
            reset: self.rng.gen_bool(self.p_reset),
            cmd: self.pending,
            query: self.new_query(),
        };
        set_inputs(u, &i);
        i
    }

    /// Tells the workload whether the command presented this cycle was accepted
    /// (`cmd.ready`), and whether the cycle was a reset.
    pub fn taken(&mut self, inputs: &SchedInputs, ready: bool) {
        if inputs.reset {
            self.upserted.clear();
        }
        let Some(c) = inputs.cmd.filter(|_| ready) else {
            return;
        };
        self.pending = None;
        if inputs.reset {
            return;
        }
        match c.op {
            1 if (c.id as usize) < self.n && !self.upserted.contains(&c.id) => {
                self.upserted.push(c.id)
            }
            2 => self.upserted.retain(|x| *x != c.id),
            _ => {}
        }
    }
}

/// Sets one cycle's inputs on the block (fields of absent commands and queries 0).
pub fn set_inputs<const A: usize, const N: usize>(u: &mut PrioSched<A, N>, i: &SchedInputs) {
    let c = i.cmd.unwrap_or_default();
    let q = i.query.unwrap_or_default();
    u.reset.next = i.reset;
    u.cmd.valid.next = i.cmd.is_some();
    u.cmd.op.next = (c.op as u64).into();
    u.cmd.id.next = (c.id as u64).into();
    u.cmd.prio.next = (c.prio as u64).into();
    u.cmd.a.next = (c.a as u64).into();
    u.cmd.b.next = (c.b as u64).into();
    u.query.valid.next = i.query.is_some();
    u.query.pred.next = (q.pred as u64).into();
    u.query.q.next = (q.q as u64).into();
}

/// Reads every output port.
pub fn read_prisched<const A: usize, const N: usize>(u: &PrioSched<A, N>) -> SchedOutputs {
    let r = &u.resp;
    let s = &u.stat;
    let w32 = |b: Bits<32>| b.to_u64() as u32;
    SchedOutputs {
        cmd_ready: u.cmd.ready.val(),
        query_ready: u.query.ready.val(),
        resp: SchedResp {
            valid: r.valid.val(),
            found: r.found.val(),
            id: r.id.val().to_u64() as u16,
            prio: r.prio.val().to_u64() as u16,
            a: r.a.val().to_u64() as u16,
            b: r.b.val().to_u64() as u16,
            rank: r.rank.val().to_u64() as u8,
            count: r.count.val().to_u64() as u8,
        },
        stat: SchedStats {
            upserts: w32(s.upserts.val()),
            removes: w32(s.removes.val()),
            remove_miss: w32(s.remove_miss.val()),
            overflowed: w32(s.overflowed.val()),
            fifo_drops: w32(s.fifo_drops.val()),
            stale: w32(s.stale.val()),
            promoted: w32(s.promoted.val()),
            bad_cmds: w32(s.bad_cmds.val()),
            queries: w32(s.queries.val()),
            count: s.count.val().to_u64() as u8,
            fifo_level: s.fifo_level.val().to_u64() as u8,
        },
    }
}
