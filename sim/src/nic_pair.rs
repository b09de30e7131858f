//! Two NICs connected by a [`Link`] in each direction, stepped in lockstep.
use crate::link::Link;
use crate::nic_sim::NicSim;
use nt_hdl::nic::{NicProbe, NicTop};

/// Cycles without a word on any MAC or application port that end a run: a message whose
/// sender has its status may still be on its way to the receiver's application.
pub const QUIET_CYCLES: u64 = 300;

/// Two NICs, `a` and `b`, and the links `a → b` and `b → a`.
pub struct NicPair<A: NicTop, B: NicTop> {
    pub a: NicSim<A>,
    pub b: NicSim<B>,
    pub ab: Link,
    pub ba: Link,
    a_seen: usize,
    b_seen: usize,
}

impl<A: NicTop, B: NicTop> NicPair<A, B> {
    pub fn new(a: NicSim<A>, b: NicSim<B>, ab: Link, ba: Link) -> Self {
        Self {
            a,
            b,
            ab,
            ba,
            a_seen: 0,
            b_seen: 0,
        }
    }

    /// One cycle of both NICs; frames that left either NIC enter its link, frames that
    /// arrive are queued at the other NIC.
    pub fn step(&mut self) -> Result<(), String> {
        let now = self.a.cycle();
        for p in self.ab.arrivals(now) {
            self.b.push_rx(p);
        }
        for p in self.ba.arrivals(now) {
            self.a.push_rx(p);
        }
        self.a.step()?;
        self.b.step()?;
        while self.a_seen < self.a.tx_frames.len() {
            self.ab.send(&self.a.tx_frames[self.a_seen]);
            self.a_seen += 1;
        }
        while self.b_seen < self.b.tx_frames.len() {
            self.ba.send(&self.b.tx_frames[self.b_seen]);
            self.b_seen += 1;
        }
        Ok(())
    }

    /// Steps until every sent message has an outcome, nothing is in flight and no port has
    /// moved a word for [`QUIET_CYCLES`], or
    /// `max_cycles` more cycles have passed (an error naming what is still pending).
    pub fn run_until_settled(&mut self, max_cycles: u64) -> Result<u64, String> {
        self.run_until_settled_with(max_cycles, |_, _| Ok(()))
    }

    /// [`NicPair::run_until_settled`], calling `observe` with both NICs' probes after
    /// every cycle; its error stops the run.
    pub fn run_until_settled_with<F>(
        &mut self,
        max_cycles: u64,
        mut observe: F,
    ) -> Result<u64, String>
    where
        F: FnMut(&NicProbe, &NicProbe) -> Result<(), String>,
    {
        let start = self.a.cycle();
        let mut quiet = 0u64;
        loop {
            let busy = |p: &NicProbe| p.mac_rx || p.mac_tx || p.app_rx || p.app_tx;
            quiet = if busy(&self.a.last_probe) || busy(&self.b.last_probe) {
                0
            } else {
                quiet + 1
            };
            let done = quiet >= QUIET_CYCLES
                && self.a.unresolved() == 0
                && self.b.unresolved() == 0
                && self.a.edges_idle()
                && self.b.edges_idle()
                && self.ab.in_flight() == 0
                && self.ba.in_flight() == 0;
            if done {
                return Ok(self.a.cycle() - start);
            }
            if self.a.cycle() - start >= max_cycles {
                return Err(format!(
                    "not settled after {max_cycles} cycles: a has {} messages unresolved ({} queued), b has {} ({} queued)",
                    self.a.unresolved(),
                    self.a.app_backlog(),
                    self.b.unresolved(),
                    self.b.app_backlog()
                ));
            }
            self.step()?;
            let c = self.a.cycle() - 1;
            observe(&self.a.last_probe, &self.b.last_probe)
                .map_err(|e| format!("cycle {c}: {e}"))?;
        }
    }
}
