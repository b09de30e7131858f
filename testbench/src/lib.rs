//! Golden models and shared test helpers.
pub mod cosim;
pub mod stream;
pub mod timer_model;
