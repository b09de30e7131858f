//! Golden models and shared test helpers.
pub mod adm_model;
pub mod arbiter_model;
pub mod bolt_model;
pub mod cosim;
pub mod deparser_model;
pub mod packetization_model;
pub mod parser_model;
pub mod pktgen_model;
pub mod prisched_model;
pub mod program_model;
pub mod reassembly_model;
pub mod repo_cmd;
pub mod sbuf_model;
pub mod statereg_model;
pub mod stream;
pub mod switch_model;
pub mod timer_model;
