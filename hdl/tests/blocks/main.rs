//! Directed tests of the blocks, one module per block (they were unit tests beside each
//! block; as one integration test the crate is compiled once for the tests, not twice).
//! The randomized equivalence against each block's golden model and the co-simulations are
//! in `testbench/tests/suite`.
mod arbiter;
mod bits_patch;
mod boltstamp;
mod deparser;
mod emit_split;
mod emit_width;
mod homa;
mod ingress;
mod mode;
mod packetization;
mod parser;
mod prisched;
mod reassembly;
mod rfifo;
mod statereg;
mod timer;
