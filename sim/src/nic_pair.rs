//! Two NICs connected by a [`Link`] in each direction, stepped in lockstep, each on any
//! engine ([`NicEngine`]: the native kernel, Verilator or the compiled engine).
use crate::link::Link;
use crate::lockstep::lockstep;
use crate::nic_sim::{NicDriver, NicEngine};
use nt_hdl::nic::NicProbe;
use std::sync::Mutex;

/// Cycles without a word on any MAC or application port that end a run: a message whose
/// sender has its status may still be on its way to the receiver's application.
pub const QUIET_CYCLES: u64 = 300;

/// Two NICs, `a` and `b`, and the links `a → b` and `b → a`.
pub struct NicPair<A: NicEngine, B: NicEngine> {
    pub a: NicDriver<A>,
    pub b: NicDriver<B>,
    pub ab: Link,
    pub ba: Link,
    a_seen: usize,
    b_seen: usize,
    threads: usize,
}

impl<A: NicEngine, B: NicEngine> NicPair<A, B> {
    pub fn new(a: NicDriver<A>, b: NicDriver<B>, ab: Link, ba: Link) -> Self {
        Self {
            a,
            b,
            ab,
            ba,
            a_seen: 0,
            b_seen: 0,
            threads: 1,
        }
    }

    /// Threads [`NicPair::run_until_settled`] steps the two NICs on: 1 (the default) or 2
    /// ([`crate::lockstep`]; the result is the same, cycle for cycle).
    pub fn set_threads(&mut self, threads: usize) -> Result<(), String> {
        if !(1..=2).contains(&threads) {
            return Err(format!("a NIC pair runs on 1 or 2 threads, not {threads}"));
        }
        self.threads = threads;
        Ok(())
    }

    /// One cycle of both NICs; frames that left either NIC enter its link, frames that
    /// arrive are queued at the other NIC.
    pub fn step(&mut self) -> Result<(), String> {
        deliver(&mut self.a, &mut self.b, &mut self.ab, &mut self.ba);
        self.a.step()?;
        self.b.step()?;
        collect(
            &self.a,
            &self.b,
            &mut self.ab,
            &mut self.ba,
            &mut self.a_seen,
            &mut self.b_seen,
        );
        Ok(())
    }

    /// Steps until every sent message has an outcome, nothing is in flight and no port has
    /// moved a word for [`QUIET_CYCLES`], or
    /// `max_cycles` more cycles have passed (an error naming what is still pending).
    pub fn run_until_settled(&mut self, max_cycles: u64) -> Result<u64, String> {
        self.run_until_settled_with(max_cycles, |_, _| Ok(()))
    }

    /// [`NicPair::run_until_settled`], calling `observe` with both NICs' probes after
    /// every cycle; its error stops the run. With two threads ([`NicPair::set_threads`])
    /// the NICs step at once and everything else runs between cycles.
    pub fn run_until_settled_with<F>(
        &mut self,
        max_cycles: u64,
        mut observe: F,
    ) -> Result<u64, String>
    where
        F: FnMut(&NicProbe, &NicProbe) -> Result<(), String>,
    {
        let start = self.a.cycle();
        let threads = self.threads;
        let mut quiet = 0u64;
        let mut first = true;
        let mut result = Ok(0);
        let NicPair {
            a,
            b,
            ab,
            ba,
            a_seen,
            b_seen,
            ..
        } = self;
        // `step` takes one NIC, `between` both: each NIC sits in a mutex that the two
        // phases of a round never hold at once.
        let (a, b) = (Mutex::new(a), Mutex::new(b));
        lockstep(
            2,
            threads,
            |i| {
                if i == 0 {
                    a.lock().map_err(poisoned_lock)?.step()
                } else {
                    b.lock().map_err(poisoned_lock)?.step()
                }
            },
            || {
                let mut a = a.lock().map_err(poisoned_lock)?;
                let mut b = b.lock().map_err(poisoned_lock)?;
                let (a, b) = (&mut **a, &mut **b);
                if !first {
                    collect(a, b, ab, ba, a_seen, b_seen);
                    let c = a.cycle() - 1;
                    observe(&a.last_probe, &b.last_probe).map_err(|e| format!("cycle {c}: {e}"))?;
                }
                first = false;
                let busy = |q: &NicProbe| q.mac_rx || q.mac_tx || q.app_rx || q.app_tx;
                quiet = if busy(&a.last_probe) || busy(&b.last_probe) {
                    0
                } else {
                    quiet + 1
                };
                let settled = quiet >= QUIET_CYCLES
                    && a.unresolved() == 0
                    && b.unresolved() == 0
                    && a.edges_idle()
                    && b.edges_idle()
                    && ab.in_flight() == 0
                    && ba.in_flight() == 0;
                if settled {
                    result = Ok(a.cycle() - start);
                    return Ok(false);
                }
                if a.cycle() - start >= max_cycles {
                    return Err(format!(
                        "not settled after {max_cycles} cycles: a has {} messages unresolved ({} queued), b has {} ({} queued)",
                        a.unresolved(),
                        a.app_backlog(),
                        b.unresolved(),
                        b.app_backlog()
                    ));
                }
                deliver(a, b, ab, ba);
                Ok(true)
            },
        )?;
        result
    }
}

fn poisoned_lock<T>(_: T) -> String {
    "NIC lock poisoned".to_string()
}

/// Frames that arrive at the current cycle enter the NIC at the link's end.
fn deliver<A: NicEngine, B: NicEngine>(
    a: &mut NicDriver<A>,
    b: &mut NicDriver<B>,
    ab: &mut Link,
    ba: &mut Link,
) {
    let now = a.cycle();
    for p in ab.arrivals(now) {
        b.push_rx(p);
    }
    for p in ba.arrivals(now) {
        a.push_rx(p);
    }
}

/// Frames that left either NIC since the last call enter its link.
fn collect<A: NicEngine, B: NicEngine>(
    a: &NicDriver<A>,
    b: &NicDriver<B>,
    ab: &mut Link,
    ba: &mut Link,
    a_seen: &mut usize,
    b_seen: &mut usize,
) {
    for p in &a.tx_frames[*a_seen..] {
        ab.send(p);
    }
    *a_seen = a.tx_frames.len();
    for p in &b.tx_frames[*b_seen..] {
        ba.send(p);
    }
    *b_seen = b.tx_frames.len();
}
