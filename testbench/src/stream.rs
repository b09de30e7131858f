//! A reusable ready/valid stream-protocol monitor for integration tests.
//!
//! Attach one per stream and feed it every cycle. It enforces the handshake rules every
//! block boundary here follows:
//! * once `valid` is high and `ready` low (a stall), `valid` stays high in the next cycle;
//! * while stalled, the payload does not change;
//! * a beat is transferred exactly in the cycles with `valid && ready`.
//!
//! A synchronous reset (flush) in a cycle releases the stream from the first two rules at the
//! following edge. Violations are returned as errors naming the stream and the cycle, so the
//! caller can add its own context (the seed) before failing.
use std::fmt::Debug;

/// What the stream did in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beat {
    /// `valid` low.
    Idle,
    /// A payload presented for the first time (not held over from a stall).
    New,
    /// The payload held over from a stalled previous cycle.
    Held,
}

/// Counts of what a monitor saw, to show a run was not vacuous.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamStats {
    pub cycles: u64,
    /// Beats transferred (`valid && ready`).
    pub transfers: u64,
    /// Cycles with `valid && !ready`.
    pub stalls: u64,
}

/// Monitors one ready/valid stream with payload `T`.
#[derive(Clone, Debug)]
pub struct StreamMonitor<T> {
    name: String,
    prev: Option<(bool, bool, bool, T)>,
    pub stats: StreamStats,
}

impl<T: PartialEq + Debug + Clone> StreamMonitor<T> {
    /// A monitor for the stream called `name` (used in messages).
    pub fn new(name: &str) -> Self {
        StreamMonitor {
            name: name.to_string(),
            prev: None,
            stats: StreamStats::default(),
        }
    }

    /// The payload the previous cycle stalled on (which must be presented again now).
    pub fn stalled_payload(&self) -> Option<&T> {
        match &self.prev {
            Some((true, false, false, p)) => Some(p),
            _ => None,
        }
    }

    /// Checks one cycle: the stream's `valid`, `ready` and payload, and whether a reset is
    /// applied in this cycle (taking effect at its edge).
    pub fn check(
        &mut self,
        cycle: u64,
        valid: bool,
        ready: bool,
        payload: &T,
        reset: bool,
    ) -> Result<Beat, String> {
        self.stats.cycles += 1;
        self.stats.transfers += (valid && ready) as u64;
        self.stats.stalls += (valid && !ready) as u64;
        let held = match &self.prev {
            Some((pv, pr, preset, pp)) if *pv && !*pr && !*preset => {
                if !valid {
                    return Err(format!(
                        "{}: cycle {cycle}: valid dropped while stalled (cycle {} had valid && !ready, payload {pp:?})",
                        self.name,
                        cycle.wrapping_sub(1)
                    ));
                }
                if payload != pp {
                    return Err(format!(
                        "{}: cycle {cycle}: payload changed while stalled: {pp:?} became {payload:?}",
                        self.name
                    ));
                }
                true
            }
            _ => false,
        };
        self.prev = Some((valid, ready, reset, payload.clone()));
        Ok(match (valid, held) {
            (false, _) => Beat::Idle,
            (true, true) => Beat::Held,
            (true, false) => Beat::New,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_handshake_passes() {
        let mut m = StreamMonitor::new("s");
        assert_eq!(m.check(0, true, false, &1, false), Ok(Beat::New));
        assert_eq!(m.check(1, true, false, &1, false), Ok(Beat::Held));
        assert_eq!(m.check(2, true, true, &1, false), Ok(Beat::Held));
        assert_eq!(m.check(3, true, true, &2, false), Ok(Beat::New));
        assert_eq!(m.check(4, false, true, &9, false), Ok(Beat::Idle));
        assert_eq!(
            m.stats,
            StreamStats {
                cycles: 5,
                transfers: 2,
                stalls: 2
            }
        );
    }

    #[test]
    fn dropping_valid_or_changing_payload_while_stalled_fails() {
        let mut m = StreamMonitor::new("s");
        m.check(0, true, false, &1, false).unwrap();
        assert!(m
            .check(1, false, false, &1, false)
            .unwrap_err()
            .contains("valid dropped"));
        let mut m = StreamMonitor::new("s");
        m.check(0, true, false, &1, false).unwrap();
        assert!(m
            .check(1, true, true, &2, false)
            .unwrap_err()
            .contains("payload changed"));
    }

    #[test]
    fn a_reset_releases_a_stalled_beat() {
        let mut m = StreamMonitor::new("s");
        m.check(0, true, false, &1, true).unwrap();
        assert_eq!(m.check(1, false, false, &0, false), Ok(Beat::Idle));
    }
}
