//! Golden models and shared test helpers.
pub mod cosim;
