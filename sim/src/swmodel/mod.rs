//! The switch's golden models: cycle-exact plain-Rust models of its blocks (the ingress
//! [`sing_model`], the admission [`adm_model`] with its Tofino [`tof_model`] and Bolt
//! [`sbolt_model`] policies, the shared buffer [`sbuf_model`], the queues [`sque_model`])
//! and of the whole switch wired from them ([`switch2_model`]). The tests hold each to
//! its RTL block cycle for cycle (`testbench/tests/suite/*_equivalence.rs`); the network
//! simulator runs the whole-switch model for the sizes the RTL is not built in
//! ([`crate::switch2_sim::ModelSwitch`]).
pub mod adm_model;
pub mod sbolt_model;
pub mod sbuf_model;
pub mod sing_model;
pub mod sque_model;
pub mod switch2_model;
pub mod tof_model;
