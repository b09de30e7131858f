//! Golden model of the priority scheduler (`hdl/src/prisched.rs`), written from its
//! contract in plain Rust: the 16 entries are a map from id to `(prio, a, b)` (no entry
//! numbers: which register holds an id is not observable), the overflow FIFO a
//! `VecDeque` of snapshots, the bitmaps `Vec<bool>`s, a query's answer a sort of the
//! matching entries, and the response a two-cycle delay line.
//!
//! Cycle contract, per cycle: the outputs ([`PrioSchedModel::outputs`]) depend on the
//! state only; then [`PrioSchedModel::step`] applies the cycle's inputs at the clock edge:
//! the query is answered against the state before this cycle's command; the FIFO head is
//! popped (and `cmd.ready` is low) when the FIFO is not empty and an entry is free, or the
//! head's id has an entry, or the head is outdated; otherwise a presented command is
//! accepted. A reset empties everything, in-flight responses included.
use nt_sim::prisched_workload::{
    SchedCmd, SchedInputs, SchedOutputs, SchedQuery, SchedResp, SchedStats,
};
use std::collections::{BTreeMap, VecDeque};

/// Register entries.
pub const ENTRIES: usize = 16;
/// Overflow FIFO places.
pub const FIFO_DEPTH: usize = 16;

/// Things that happened, to show a run was not vacuous (not outputs of the block).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedEvents {
    /// Commands accepted.
    pub accepted: u64,
    /// Cycles with a command presented and `ready` low.
    pub stalled: u64,
    /// Promotions into a free entry.
    pub promote_insert: u64,
    /// Promotions that updated the entry of their id (a newer snapshot).
    pub promote_update: u64,
    /// Heads discarded because their id was removed.
    pub stale_removed: u64,
    /// Heads discarded because a command updated their id's entry in place.
    pub stale_superseded: u64,
    /// UPSERT commands that updated an entry in place.
    pub in_place: u64,
    /// UPSERT commands of an id that already had a snapshot queued.
    pub requeued: u64,
    /// Cycles with all 16 entries valid.
    pub full: u64,
    /// Responses by predicate: (found, not found).
    pub found: [(u64, u64); 4],
    /// Found responses whose winner shares its priority with another entry.
    pub ties: u64,
    /// Found responses with a nonzero rank.
    pub ranked: u64,
    /// Resets.
    pub resets: u64,
}

/// The scheduler over `n` ids.
pub struct PrioSchedModel {
    n: usize,
    /// id -> (prio, a, b).
    entries: BTreeMap<u16, (u16, u16, u16)>,
    fifo: VecDeque<SchedCmd>,
    live: Vec<bool>,
    newer: Vec<bool>,
    /// Responses in flight: `pipe[0]` leaves next cycle, `pipe[1]` is on `resp` now.
    pipe: [SchedResp; 2],
    stat: SchedStats,
    pub events: SchedEvents,
}

impl PrioSchedModel {
    pub fn new(n: usize) -> Self {
        PrioSchedModel {
            n,
            entries: BTreeMap::new(),
            fifo: VecDeque::new(),
            live: vec![false; n],
            newer: vec![false; n],
            pipe: [SchedResp::default(); 2],
            stat: SchedStats::default(),
            events: SchedEvents::default(),
        }
    }

    /// Whether the FIFO head is outdated: its id removed, or updated in place since.
    fn head_outdated(&self, h: &SchedCmd) -> bool {
        !self.live[h.id as usize] || self.newer[h.id as usize]
    }

    /// Whether the FIFO head is popped this cycle.
    fn pops(&self) -> bool {
        self.fifo.front().is_some_and(|h| {
            self.entries.len() < ENTRIES
                || self.entries.contains_key(&h.id)
                || self.head_outdated(h)
        })
    }

    /// This cycle's outputs (before the edge).
    pub fn outputs(&self) -> SchedOutputs {
        let mut stat = self.stat;
        stat.count = self.entries.len() as u8;
        stat.fifo_level = self.fifo.len() as u8;
        SchedOutputs {
            cmd_ready: !self.pops(),
            query_ready: true,
            resp: self.pipe[1],
            stat,
        }
    }

    /// The answer to `q` in the current state.
    fn answer(&mut self, q: &SchedQuery) -> SchedResp {
        let pass = |a: u16, b: u16| match q.pred {
            0 => true,
            1 => a > b,
            2 => a != b,
            _ => a < q.q,
        };
        let best = self
            .entries
            .iter()
            .filter(|(_, &(_, a, b))| pass(a, b))
            .map(|(&id, &(prio, a, b))| (prio, id, a, b))
            .min();
        let count = self.entries.len() as u8;
        let p = q.pred as usize & 3;
        match best {
            None => {
                self.events.found[p].1 += 1;
                SchedResp {
                    valid: true,
                    count,
                    ..SchedResp::default()
                }
            }
            Some((prio, id, a, b)) => {
                self.events.found[p].0 += 1;
                let rank = self
                    .entries
                    .iter()
                    .filter(|(&i, &(p, _, _))| (p, i) < (prio, id))
                    .count() as u8;
                let ties = self
                    .entries
                    .iter()
                    .filter(|(&i, &(p, _, _))| p == prio && i != id)
                    .count();
                self.events.ties += (ties > 0) as u64;
                self.events.ranked += (rank > 0) as u64;
                SchedResp {
                    valid: true,
                    found: true,
                    id,
                    prio,
                    a,
                    b,
                    rank,
                    count,
                }
            }
        }
    }

    /// Applies one cycle's inputs at the clock edge.
    pub fn step(&mut self, i: &SchedInputs) {
        if i.reset {
            let events = self.events;
            *self = PrioSchedModel::new(self.n);
            self.events = events;
            self.events.resets += 1;
            return;
        }
        self.events.full += (self.entries.len() == ENTRIES) as u64;
        let resp = match &i.query {
            Some(q) => {
                self.stat.queries = self.stat.queries.wrapping_add(1);
                self.answer(q)
            }
            None => SchedResp::default(),
        };
        self.pipe = [resp, self.pipe[0]];
        if self.pops() {
            self.events.stalled += i.cmd.is_some() as u64;
            let h = self.fifo.pop_front().expect("nonempty");
            if self.head_outdated(&h) {
                self.stat.stale = self.stat.stale.wrapping_add(1);
                if self.live[h.id as usize] {
                    self.events.stale_superseded += 1;
                } else {
                    self.events.stale_removed += 1;
                }
            } else {
                self.stat.promoted = self.stat.promoted.wrapping_add(1);
                if self.entries.contains_key(&h.id) {
                    self.events.promote_update += 1;
                } else {
                    self.events.promote_insert += 1;
                }
                self.entries.insert(h.id, (h.prio, h.a, h.b));
            }
            return;
        }
        let Some(c) = i.cmd else { return };
        self.events.accepted += 1;
        let legal = (c.id as usize) < self.n && (c.op == 1 || c.op == 2);
        if !legal {
            self.stat.bad_cmds = self.stat.bad_cmds.wrapping_add(1);
            return;
        }
        let id = c.id as usize;
        if c.op == 1 {
            self.stat.upserts = self.stat.upserts.wrapping_add(1);
            self.live[id] = true;
            if let Some(e) = self.entries.get_mut(&c.id) {
                *e = (c.prio, c.a, c.b);
                self.newer[id] = true;
                self.events.in_place += 1;
            } else if self.entries.len() < ENTRIES {
                self.entries.insert(c.id, (c.prio, c.a, c.b));
            } else {
                self.events.requeued += self.fifo.iter().any(|s| s.id == c.id) as u64;
                if self.fifo.len() < FIFO_DEPTH {
                    self.fifo.push_back(c);
                    self.stat.overflowed = self.stat.overflowed.wrapping_add(1);
                } else {
                    self.stat.fifo_drops = self.stat.fifo_drops.wrapping_add(1);
                }
            }
        } else {
            self.stat.removes = self.stat.removes.wrapping_add(1);
            if self.entries.remove(&c.id).is_none() {
                self.stat.remove_miss = self.stat.remove_miss.wrapping_add(1);
            }
            self.live[id] = false;
            self.newer[id] = false;
        }
    }
}
