//! Golden models and shared test helpers.
pub mod cosim;
pub mod timer_model;
