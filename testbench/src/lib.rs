//! Golden models and shared test helpers.
pub mod arbiter_model;
pub mod bolt_model;
pub mod cosim;
pub mod deparser_model;
pub mod equiv;
pub mod packetization_model;
pub mod parser_model;
pub mod pktgen_model;
pub mod prisched_model;
pub mod program_model;
pub mod reassembly_model;
pub mod repo_cmd;
pub mod statereg_model;
pub mod stream;
pub mod timer_model;

/// The switch's models live in the simulator, which runs them too ([`nt_sim::swmodel`]).
pub use nt_sim::swmodel::{
    adm_model, sbolt_model, sbuf_model, sing_model, sque_model, switch2_model, tof_model,
};

/// The number in the environment variable `name`, if it is set (the tests' knobs for
/// longer runs and other seeds, e.g. `NT_FUZZ_FRAMES`, `NT_TX_EQ_SEEDS`); panics with the
/// name and value when it is not a number.
pub fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number"))
    })
}
