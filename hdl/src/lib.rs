//! Synthesizable rust-hdl blocks of the nanoTransport NIC and the switch it works with.
//!
//! One block per file; its directed tests are `hdl/tests/blocks/<block>.rs`. [`registry`] lists every block that is
//! emitted as Verilog, under the module name it gets in `verilog-out/`.
pub mod arbiter;
pub mod bolt;
pub mod boltstamp;
pub mod deparser;
pub mod emit;
pub mod fifo;
pub mod homa;
pub mod ingress;
pub mod mode;
pub mod ndp;
pub mod nic;
pub mod packetization;
pub mod parser;
pub mod pfifo;
pub mod pktgen;
pub mod pool;
pub mod prisched;
pub mod program;
pub mod reassembly;
pub mod registry;
pub mod rfifo;
pub mod sadm;
pub mod sbolt;
pub mod sbuf;
pub mod sing;
pub mod sque;
pub mod statereg;
pub mod stofino;
pub mod swif;
pub mod switch2;
pub mod timer;

use rust_hdl::prelude::{Clock, In, Signal};

/// A top-level block with one clock input that the simulation kernel drives.
pub trait Clocked {
    /// The block's clock input.
    fn clock_input(&mut self) -> &mut Signal<In, Clock>;
}

impl<const A: usize, const N: usize, const M: usize> Clocked for timer::ScanningTimer<A, N, M> {
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl<
        const A: usize,
        const N: usize,
        const C: usize,
        const SA: usize,
        const S: usize,
        const BW: usize,
    > Clocked for reassembly::Reassembly<A, N, C, SA, S, BW>
{
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl Clocked for arbiter::Arbiter {
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl<const A: usize, const N: usize, const C: usize, const BW: usize> Clocked
    for packetization::Packetization<A, N, C, BW>
{
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl Clocked for parser::Parser {
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl Clocked for deparser::Deparser {
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl<const A: usize, const N: usize, const C: usize> Clocked for pktgen::PacketGen<A, N, C> {
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl<const A: usize, const N: usize, const W: usize> Clocked for statereg::StateReg<A, N, W> {
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl<const A: usize, const N: usize> Clocked for prisched::PrioSched<A, N> {
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl<
        const N: usize,
        const CA: usize,
        const CC: usize,
        const N2: usize,
        const R: usize,
        const NR: usize,
        const NRW: usize,
        const NN: usize,
    > Clocked for sbuf::SharedBuffer<N, CA, CC, N2, R, NR, NRW, NN>
{
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl<
        const N: usize,
        const K: usize,
        const M: usize,
        const NB: usize,
        const KNB: usize,
        const CC: usize,
    > Clocked for sadm::Admission<N, K, M, NB, KNB, CC>
{
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl<const N: usize, const N8: usize, const NN: usize> Clocked for sing::SwitchIngress<N, N8, NN> {
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl<
        const N: usize,
        const K: usize,
        const M: usize,
        const CA: usize,
        const CC: usize,
        const RP: usize,
        const NB: usize,
        const KNB: usize,
        const KRP: usize,
        const NRP: usize,
        const NK: usize,
        const N4K: usize,
        const KP: usize,
    > Clocked for sque::SwitchQueues<N, K, M, CA, CC, RP, NB, KNB, KRP, NRP, NK, N4K, KP>
{
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl<
        const N: usize,
        const N8: usize,
        const NN: usize,
        const K: usize,
        const M: usize,
        const NB: usize,
        const KNB: usize,
        const CA: usize,
        const CC: usize,
        const N2: usize,
        const R: usize,
        const NR: usize,
        const NRW: usize,
        const RP: usize,
        const KRP: usize,
        const NRP: usize,
        const NK: usize,
        const N4K: usize,
        const KP: usize,
    > Clocked
    for switch2::SharedSwitch<
        N,
        N8,
        NN,
        K,
        M,
        NB,
        KNB,
        CA,
        CC,
        N2,
        R,
        NR,
        NRW,
        RP,
        KRP,
        NRP,
        NK,
        N4K,
        KP,
    >
{
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
