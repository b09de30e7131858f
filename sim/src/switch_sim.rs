//! Runs the switch block ([`nt_hdl::switch::Switch`]) cycle by cycle with whole frames at
//! its edges: frames queued per input port enter MAC RX back to back from their cycle on;
//! the words each output sends are gathered into frames stamped with their first word's
//! cycle. An output port can be paced below line rate (a slower link): its `tx.ready` is
//! high only while the port has earned a word. Used by `ntsim switch` and the network
//! ([`crate::net`]).
use crate::kernel::Kernel;
use crate::pcap::Packet;
use crate::switch_workload::{
    apply_setup, drive_switch, read_switch, PortIn, PortOut, SwitchSetup,
};
use crate::wire::{from_words, to_words, Word};
use nt_hdl::switch::Switch;
use std::collections::VecDeque;

/// Paces a transmitter at `num/den` words per cycle (`num <= den`): a word may leave in a
/// cycle when the port has earned one; earnings stop at one word, so an idle port does not
/// save up a burst.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pacer {
    num: u64,
    den: u64,
    acc: u64,
}

impl Pacer {
    /// Line rate: a word every cycle.
    pub fn line() -> Self {
        Self {
            num: 1,
            den: 1,
            acc: 1,
        }
    }

    /// `num/den` words per cycle, `0 < num <= den`.
    pub fn new(num: u64, den: u64) -> Result<Self, String> {
        if num == 0 || den == 0 || num > den {
            return Err(format!(
                "a port's rate {num}/{den} of line rate must be above 0 and at most 1"
            ));
        }
        Ok(Self { num, den, acc: den })
    }

    /// Whether a word may leave this cycle.
    pub fn ready(&self) -> bool {
        self.acc >= self.den
    }

    /// Ends a cycle in which a word left (`sent`) or not.
    pub fn end_cycle(&mut self, sent: bool) {
        if sent {
            self.acc -= self.den;
        }
        self.acc = (self.acc + self.num).min(self.den);
    }
}

/// The switch on the kernel with frame queues at its ports.
pub struct SwitchSim<
    const N: usize,
    const NN: usize,
    const NB: usize,
    const NNB: usize,
    const NR: usize,
    const NP: usize,
> {
    k: Kernel<Switch<N, NN, NB, NNB, NR, NP>>,
    rx: Vec<VecDeque<Packet>>,
    words: Vec<VecDeque<Word>>,
    cur: Vec<Vec<Word>>,
    start: Vec<u64>,
    pace: Vec<Pacer>,
    /// Frames sent, `(port, frame)`, since the last [`SwitchSim::take_tx`].
    out: Vec<(usize, Packet)>,
    last: Vec<PortOut>,
    /// Whether the last cycle moved a word on any port.
    moved: bool,
}

impl<
        const N: usize,
        const NN: usize,
        const NB: usize,
        const NNB: usize,
        const NR: usize,
        const NP: usize,
    > SwitchSim<N, NN, NB, NNB, NR, NP>
{
    pub fn new(sw: Switch<N, NN, NB, NNB, NR, NP>, setup: &SwitchSetup) -> Result<Self, String> {
        if setup.ports != N {
            return Err(format!(
                "a setup for {} ports on a {N}-port switch",
                setup.ports
            ));
        }
        let mut k = Kernel::new(sw).map_err(|e| e.to_string())?;
        apply_setup(k.uut_mut(), setup);
        Ok(Self {
            k,
            rx: vec![VecDeque::new(); N],
            words: vec![VecDeque::new(); N],
            cur: vec![vec![]; N],
            start: vec![0; N],
            pace: vec![Pacer::line(); N],
            out: vec![],
            last: vec![PortOut::default(); N],
            moved: false,
        })
    }

    pub fn kernel_mut(&mut self) -> &mut Kernel<Switch<N, NN, NB, NNB, NR, NP>> {
        &mut self.k
    }

    /// Paces output `port`.
    pub fn set_pacer(&mut self, port: usize, p: Pacer) -> Result<(), String> {
        if port >= N {
            return Err(format!("port {port} of a {N}-port switch"));
        }
        self.pace[port] = p;
        Ok(())
    }

    /// Sets forwarding entry `k` (the `route[k]` configuration input: valid, IPv4
    /// destination, output port) from the next cycle on: a route change during a run.
    pub fn set_route(&mut self, k: usize, valid: bool, ip: u32, port: u64) -> Result<(), String> {
        if k >= N {
            return Err(format!("route entry {k} of a {N}-port switch (0..{N})"));
        }
        let r = &mut self.k.uut_mut().route[k];
        r.valid.next = valid;
        r.ip.next = (ip as u64).into();
        r.port.next = port.into();
        Ok(())
    }

    /// Queues a frame for input `port`; it enters from `p.cycle` on, after the frames
    /// queued before it. Empty frames are ignored (a MAC has nothing to deliver).
    pub fn push_rx(&mut self, port: usize, p: Packet) {
        if port < N && !p.bytes.is_empty() {
            self.rx[port].push_back(p);
        }
    }

    /// Frames sent since the last call, `(output port, frame)`, in the order they ended.
    pub fn take_tx(&mut self) -> Vec<(usize, Packet)> {
        std::mem::take(&mut self.out)
    }

    /// The port outputs (counters and occupancy) of the last cycle.
    pub fn last(&self) -> &[PortOut] {
        &self.last
    }

    pub fn cycle(&self) -> u64 {
        self.k.cycle()
    }

    /// Nothing waiting at an input, nothing queued inside, no frame half sent, and no word
    /// moved in the last cycle.
    pub fn idle(&self) -> bool {
        !self.moved
            && self.rx.iter().all(|q| q.is_empty())
            && self.words.iter().all(|w| w.is_empty())
            && self.cur.iter().all(|c| c.is_empty())
            && self
                .last
                .iter()
                .all(|o| o.stat.occ_bytes.iter().all(|&b| b == 0) && o.stat.dod_q == 0)
    }

    /// Frames waiting at inputs (not yet entering).
    pub fn rx_backlog(&self) -> usize {
        self.rx.iter().map(|q| q.len()).sum()
    }

    /// Runs one cycle.
    pub fn step(&mut self) -> Result<(), String> {
        let now = self.k.cycle();
        let mut inp = [PortIn::default(); N];
        for p in 0..N {
            if self.words[p].is_empty() && self.rx[p].front().is_some_and(|f| f.cycle <= now) {
                let f = self.rx[p].pop_front().expect("front");
                self.words[p].extend(to_words(&f.bytes));
            }
            inp[p] = PortIn {
                rx: self.words[p].pop_front(),
                tx_ready: self.pace[p].ready(),
            };
        }
        drive_switch(self.k.uut_mut(), &inp);
        self.k.settle().map_err(|e| e.to_string())?;
        self.last = read_switch(self.k.uut());
        let mut moved = inp.iter().any(|i| i.rx.is_some());
        for p in 0..N {
            let sent = match self.last[p].tx {
                Some(w) if inp[p].tx_ready => {
                    moved = true;
                    if self.cur[p].is_empty() {
                        self.start[p] = now;
                    }
                    self.cur[p].push(w);
                    if w.last {
                        let bytes = from_words(&std::mem::take(&mut self.cur[p]));
                        self.out.push((
                            p,
                            Packet {
                                cycle: self.start[p],
                                bytes,
                            },
                        ));
                    }
                    true
                }
                _ => false,
            };
            self.pace[p].end_cycle(sent);
        }
        self.moved = moved;
        self.k.tick().map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacer_sends_at_its_rate_and_saves_no_burst() {
        let mut p = Pacer::new(1, 2).unwrap();
        let mut sent = 0;
        for _ in 0..100 {
            let s = p.ready();
            sent += s as u32;
            p.end_cycle(s);
        }
        assert_eq!(sent, 50);
        // Idle for a while, then at most one word at once.
        let mut p = Pacer::new(1, 4).unwrap();
        for _ in 0..20 {
            p.end_cycle(false);
        }
        assert!(p.ready());
        p.end_cycle(true);
        assert!(!p.ready());
        assert!(Pacer::new(0, 1).is_err());
        assert!(Pacer::new(3, 2).is_err());
        let mut l = Pacer::line();
        for _ in 0..5 {
            assert!(l.ready());
            l.end_cycle(true);
        }
    }
}
