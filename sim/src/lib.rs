//! The simulation side of the nanoTransport model: the cycle [`kernel`], [`vcd`] waveforms,
//! per-cycle port recording ([`ports`]) and replay on the emitted Verilog under Verilator
//! ([`verilator`]), external tool checks ([`tools`]), seeded workloads ([`workload`]), the
//! per-block drivers behind the `ntsim` CLI ([`runs`]) and the fuzz harness ([`fuzz`]).
pub mod adm_workload;
pub mod arb_workload;
pub mod budget;
pub mod deparser_workload;
pub mod fuzz;
pub mod icarus;
pub mod kernel;
pub mod link;
pub mod listed;
pub mod lockstep;
pub mod net;
pub mod net_cli;
pub mod net_report;
pub mod net_scenarios;
pub mod nic_cli;
pub mod nic_pair;
pub mod nic_sim;
pub mod overrides;
pub mod parser_workload;
pub mod pcap;
pub mod pktgen_workload;
pub mod ports;
pub mod prisched_workload;
pub mod rcomp;
pub mod runs;
pub mod rx_workload;
pub mod sbuf_workload;
pub mod sing_workload;
pub mod sque_workload;
pub mod statereg_workload;
pub mod sweep;
pub mod swframe;
pub mod switch2_sim;
pub mod switch2_workload;
pub mod switch_cli;
pub mod switch_sim;
pub mod switch_workload;
pub mod swmodel;
pub mod tools;
pub mod tx_workload;
pub mod vcd;
pub mod verilator;
pub mod vmodel;
pub mod wire;
pub mod workload;

pub use kernel::{Kernel, KernelError, DEFAULT_CLOCK_HZ};
