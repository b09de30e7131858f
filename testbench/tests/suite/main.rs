//! The testbench's integration tests, one module per subject, built as one test binary:
//! the blocks' generic code is compiled and linked once instead of once per file, and
//! libtest spreads the long tests of every subject over the cores together.
//! Run one subject with `cargo test -p nt-testbench --test suite <module>::`.

mod adm_equivalence;
mod arbiter_equivalence;
mod bolt_equivalence;
mod budgets;
mod compiled;
mod cosim;
mod deparser_equivalence;
mod engines;
mod fpga;
mod fuzz;
mod net_system;
mod nic_system;
mod packetization_equivalence;
mod parser_equivalence;
mod pktgen_equivalence;
mod prisched_equivalence;
mod program_checks;
mod reassembly_equivalence;
mod sbuf_equivalence;
mod sing_equivalence;
mod sque_equivalence;
mod statereg_equivalence;
mod switch2_equivalence;
mod switch_scenarios;
mod timer_equivalence;
mod tx_path;
mod verilog_out;
