pub mod ast;
#[doc(hidden)]
pub mod atom;
/// Module that supports arbitrary width bit vectors
pub mod bits;
#[doc(hidden)]
pub mod bitvec;
pub mod block;
pub mod check_connected;
pub mod check_error;
pub mod check_logic_loops;
pub mod check_timing;
pub mod check_write_inputs;
pub mod clock;
pub mod code_writer;
pub mod constant;
pub mod constraint;
pub mod direction;
pub mod logic;
pub mod module_defines;
pub mod named_path;
pub mod path_tools;
pub mod prelude;
pub mod probe;
#[doc(hidden)]
pub mod short_bit_vec;
pub mod signal;
pub mod signed;
pub mod simulate;
pub mod synth;
pub mod timing;
pub mod top_wrap;
pub mod type_descriptor;
pub mod vcd_probe;
pub mod verilog_gen;
pub mod verilog_visitor;
pub mod yosys;
