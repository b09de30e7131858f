//! Golden models and shared test helpers.
