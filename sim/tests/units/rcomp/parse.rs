//! Unit tests of `nt_sim::rcomp::parse`: the parser of the emitted Verilog subset.
use nt_sim::rcomp::parse::*;

#[test]
fn literals_keep_their_width_and_truncate() {
    assert_eq!(parse_digits("1ff", 16, 8), Some(vec![0xff]));
    assert_eq!(parse_digits("10000000000000000", 16, 65), Some(vec![0, 1]));
    assert_eq!(parse_digits("101", 2, 3), Some(vec![5]));
    assert_eq!(parse_digits("12", 10, 32), Some(vec![12]));
    assert_eq!(parse_digits("g", 16, 8), None);
}

#[test]
fn a_small_module_parses() {
    let m = parse(
        "module m(clock,a,q);\n input wire clock;\n input wire [7:0] a;\n output reg [7:0] q;\n \
         localparam one = 8'h1;\n reg [7:0] mem[3:0];\n reg [7:0] t;\n \
         always @(*) begin t = a + one; if (a[0]) begin t[(0)+:(4)] = 4'(a >> 2); end else begin t = ~t; end end\n \
         always @(posedge clock) begin q <= mem[a[1+:2]]; end\nendmodule // m\n",
    )
    .unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].decls.len(), 5);
    assert_eq!(m[0].comb[0].len(), 2);
    assert_eq!(m[0].seq[0].0, "clock");
    assert!(parse("module m(a); input wire [7:1] a; endmodule").is_err());
    assert!(parse("module m(a); always @(*) a = 1 ? 2 : 3; endmodule").is_err());
}
