//! The compiled engine (`engine = "compiled"`, `nt_sim::rcomp`): our compiler of the
//! emitted Verilog to Rust must give what Verilator gives on the same Verilog, output word
//! for output word every cycle, under seeded random inputs (every port, reset included).
//! The network-level check (the compiled engine gives the native run cycle for cycle) is in
//! `engines.rs`.
use nt_sim::ports::Dir;
use nt_sim::rcomp;
use nt_sim::verilator::which;
use nt_sim::vmodel::{Backend, VLib, VModel};
use nt_testbench::cosim::verilog_out_dir;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Every corner of the Verilog subset in one module, in the generator's style: widths set
/// by context (a carry kept, `~` of a narrow value widened), shifts past the width, dynamic
/// part-selects read and written, 200-bit arithmetic, shifts and compares, reductions,
/// size casts, a multiply, fields assembled across an `if`, a `case` (rust-hdl's `match`),
/// DFF and memory submodules on
/// the clock wired through the parent, and a memory read and written in the same cycle.
const TORTURE: &str = r#"
module torture(clock,reset,a,b,c,w,v,sh,addr,we,y_add,y_not,y_shl,y_shr,y_cmp,y_red,y_slice,y_set,y_wide,y_wsh,y_wcmp,y_mem,y_cast,y_bit,y_mul,y_sub,y_fields,y_case,q);
    input wire  clock;
    input wire  reset;
    input wire  [7:0] a;
    input wire  [7:0] b;
    input wire  [15:0] c;
    input wire  [199:0] w;
    input wire  [199:0] v;
    input wire  [8:0] sh;
    input wire  [2:0] addr;
    input wire  we;
    output reg  [8:0] y_add;
    output reg  [11:0] y_not;
    output reg  [15:0] y_shl;
    output reg  [7:0] y_shr;
    output reg  [5:0] y_cmp;
    output reg  [2:0] y_red;
    output reg  [4:0] y_slice;
    output reg  [15:0] y_set;
    output reg  [199:0] y_wide;
    output reg  [199:0] y_wsh;
    output reg  [3:0] y_wcmp;
    output reg  [199:0] y_mem;
    output reg  [7:0] y_cast;
    output reg  y_bit;
    output reg  [15:0] y_mul;
    output reg  [7:0] y_sub;
    output reg  [71:0] y_fields;
    output reg  [7:0] y_case;
    output reg  [7:0] q;
    localparam  one_8 = 8'h1;
    localparam  big = 200'h80000000000000000000000000000000000000000000000001;
    reg  r$clock;
    reg  [7:0] r$d;
    wire  [7:0] r$q;
    reg  [2:0] m$read_address;
    reg  m$read_clock;
    wire  [199:0] m$read_data;
    reg  [2:0] m$write_address;
    reg  m$write_clock;
    reg  [199:0] m$write_data;
    reg  m$write_enable;
    reg  [15:0] t;
    torture$r r(
        .d(r$d),
        .q(r$q),
        .clock(r$clock)
    );
    torture$m m(
        .read_address(m$read_address),
        .read_clock(m$read_clock),
        .read_data(m$read_data),
        .write_address(m$write_address),
        .write_clock(m$write_clock),
        .write_data(m$write_data),
        .write_enable(m$write_enable)
    );
    always @(*) begin
        r$clock = clock;
        m$read_clock = clock;
        m$write_clock = clock;
        y_add = a + b;
        y_not = ~a;
        y_shl = a << sh;
        y_shr = c >> sh;
        y_cmp[0+:1] = a < b;
        y_cmp[1+:1] = a <= b;
        y_cmp[2+:1] = a > b;
        y_cmp[3+:1] = a >= b;
        y_cmp[4+:1] = (a == b) || (c != 16'h0);
        y_cmp[5+:1] = (a != b) && !(c == 16'h0);
        y_red[0+:1] = &a;
        y_red[1+:1] = |b;
        y_red[2+:1] = ^c;
        y_slice = c[(a[0+:3])+:(5)];
        t = c;
        t[(b[0+:3])+:(9)] = a + one_8;
        y_set = t;
        y_wide = (w + 200'(c)) ^ ~v;
        if (a[0+:1]) begin
            y_wide = (w - v) | big;
        end
        y_wsh = (w << sh) | (v >> sh);
        y_wcmp[0+:1] = w < v;
        y_wcmp[1+:1] = w >= v;
        y_wcmp[2+:1] = w == v;
        y_wcmp[3+:1] = (w[(a[0+:7])+:(64)] == v[64+:64]) | |w;
        y_cast = 8'(c + 16'(a));
        y_bit = w[(a[0+:7])];
        y_mul = 16'(a) * 16'(b);
        y_sub = -(a - b);
        y_fields[0+:8] = a;
        if (b[7+:1]) begin
            y_fields[8+:64] = w[136+:64];
        end
        else begin
            y_fields[8+:64] = v[0+:64];
        end
        case (a[0+:2])
            2'h0:
                begin
                    y_case = b;
                end
            2'h2, 2'h3:
                begin
                    y_case = c[0+:8];
                end
            default:
                begin
                    y_case = 8'h7;
                end
        endcase
        r$d = r$q + one_8;
        if (reset) begin
            r$d = 8'h0;
        end
        q = r$q;
        m$read_address = addr;
        m$write_address = a[0+:3];
        m$write_data = w;
        m$write_enable = we;
        y_mem = m$read_data;
    end
endmodule // torture

module torture$r(d,q,clock);
    input wire  [7:0] d;
    output reg  [7:0] q;
    input wire  clock;
    initial begin
       q = 8'h5;
    end
    always @(posedge clock) begin
       q <= d;
    end
endmodule // torture$r

module torture$m(read_address,read_clock,read_data,write_address,write_clock,write_data,write_enable);
    input wire  [2:0] read_address;
    input wire  read_clock;
    output reg  [199:0] read_data;
    input wire  [2:0] write_address;
    input wire  write_clock;
    input wire  [199:0] write_data;
    input wire  write_enable;
    reg[199:0] mem[7:0];
    initial begin
        mem[3'h2] = 200'h1234;
    end
    always @(posedge read_clock) begin
       read_data <= mem[read_address];
    end
    always @(posedge write_clock) begin
       if (write_enable) begin
          mem[write_address] <= write_data;
       end
    end
endmodule // torture$m
"#;

/// Runs `module` of `verilog` on both backends for `cycles` cycles of seeded random inputs
/// and fails at the first output word that differs, naming the port and the cycle.
fn compare(verilog: &str, module: &str, cycles: u64, seed: u64) {
    let ports = rcomp::top_ports(verilog, module).unwrap();
    let vl = VLib::get_with(Backend::Verilator, verilog, module, &ports).unwrap();
    let cl = VLib::get_with(Backend::Compiled, verilog, module, &ports).unwrap();
    let (mut v, mut c) = (VModel::new(vl), VModel::new(cl));
    let refs = v.port_refs();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut ins = vec![0u32; v.input_words().len()];
    for cycle in 0..cycles {
        // Bursts of quiet inputs let pipelines drain; reset now and then.
        let quiet = (cycle / 64) % 4 == 3;
        for (name, r) in refs.iter().filter(|(_, r)| r.dir == Dir::In) {
            let nw = r.width.div_ceil(32);
            for k in 0..nw {
                let mut x: u32 = rng.gen();
                let top = r.width - 32 * k;
                if top < 32 {
                    x &= (1u32 << top) - 1;
                }
                ins[r.off + k] = x;
            }
            if name == "reset" {
                ins[r.off] = (cycle < 3 || rng.gen_ratio(1, 500)) as u32;
            } else if quiet && name.ends_with("valid") {
                ins[r.off] = 0;
            }
        }
        v.input_words().copy_from_slice(&ins);
        c.input_words().copy_from_slice(&ins);
        v.cycle();
        c.cycle();
        if v.output_words() != c.output_words() {
            for (name, r) in refs.iter().filter(|(_, r)| r.dir == Dir::Out) {
                let n = r.width.div_ceil(32);
                let (a, b) = (
                    &v.output_words()[r.off..r.off + n],
                    &c.output_words()[r.off..r.off + n],
                );
                assert_eq!(
                    a, b,
                    "{module}: output {name} differs at cycle {cycle} (Verilator, compiled; 32-bit words, least significant first)"
                );
            }
        }
    }
    assert_eq!(
        v.snapshot().words(),
        c.snapshot().words(),
        "{module}: outputs after the last edge differ"
    );
}

fn need_verilator() {
    if which("verilator").is_none() {
        panic!("verilator is not installed: run the README's test command, which installs it");
    }
}

#[test]
fn compiled_torture_module_matches_verilator() {
    need_verilator();
    for seed in 1..=3 {
        compare(TORTURE, "torture", 5_000, seed);
    }
}

/// A committed block: the compiled model equals the verilated one under `cycles` random
/// inputs, and the compiler scheduled it in one pass (no combinational loop).
fn block_matches_verilator(name: &str, cycles: u64) {
    need_verilator();
    let path = verilog_out_dir().join(format!("{name}.v"));
    let text = std::fs::read_to_string(&path).unwrap();
    compare(&text, name, cycles, 7);
    let d = rcomp::elaborate(&text, name).unwrap();
    let s = rcomp::stats(&d).unwrap();
    println!(
        "{name}: {cycles} random cycles equal; {} signals, {} statements scheduled in one pass",
        s.signals, s.chunks
    );
    assert_eq!(s.cyclic_groups, 0, "{name}: a combinational loop");
}

/// Every committed block of the NIC (the full 16-message NDP NIC included), one test each
/// so that they run in parallel: the compiled model equals the verilated one under random
/// inputs. The switches run in `engines.rs`'s network scenarios on the compiled engine.
#[test]
fn compiled_small_blocks_match_verilator_on_random_inputs() {
    for name in ["timer_n16", "arbiter", "statereg_16x32", "pktgen_n16"] {
        block_matches_verilator(name, 20_000);
    }
}

#[test]
fn compiled_parser_and_deparser_match_verilator_on_random_inputs() {
    for name in ["parser_ndp", "deparser_ndp"] {
        block_matches_verilator(name, 20_000);
    }
}

#[test]
fn compiled_prisched_matches_verilator_on_random_inputs() {
    block_matches_verilator("prisched_n16", 20_000);
}

#[test]
fn compiled_packetization_matches_verilator_on_random_inputs() {
    block_matches_verilator("packetization_n16", 20_000);
}

#[test]
fn compiled_reassembly_matches_verilator_on_random_inputs() {
    block_matches_verilator("reassembly_n16", 20_000);
}

#[test]
fn compiled_nic_ndp_matches_verilator_on_random_inputs() {
    block_matches_verilator("nic_ndp", 20_000);
}

#[test]
fn compiler_errors_are_clear() {
    let err = |src: &str, top: &str| {
        let ports = rcomp::top_ports(src, top).unwrap_or_default();
        match rcomp::elaborate(src, top).and_then(|d| rcomp::generate(&d, &ports)) {
            Ok(_) => panic!("{top}: compiled, expected an error"),
            Err(e) => e,
        }
    };
    let e = err("module m(a); input wire [7:1] a; endmodule", "m");
    assert!(e.contains("line 1") && e.contains("[n:0]"), "{e}");
    let e = err("module m(clock,a,y); input wire clock; input wire a; output reg y; always @(*) begin y = a ? 1 : 0; end endmodule", "m");
    assert!(e.contains("unexpected character '?'"), "{e}");
    let e = err(
        "module m(clock,a); input wire clock; input wire a; endmodule",
        "top",
    );
    assert!(e.contains("no module top"), "{e}");
    let e = err(
        "module m(clock,a,y); input wire clock; input wire a; output reg y; reg t; always @(*) begin t = y & a; y = t; end endmodule",
        "m",
    );
    assert!(e.contains("combinational loop"), "{e}");
    let e = err(
        "module m(clock,a,y); input wire clock; input wire a; output reg y; always @(*) begin y = a; end always @(*) begin y = ~a; end endmodule",
        "m",
    );
    assert!(e.contains("two always blocks"), "{e}");
    let e = err(
        "module m(clock,a,y); input wire clock; input wire a; output reg y; always @(posedge a) begin y <= a; end endmodule",
        "m",
    );
    assert!(e.contains("clock other than"), "{e}");
    let e = err(
        "module m(clock,a,y); input wire clock; input wire a; output reg y; always @(*) begin y = b; end endmodule",
        "m",
    );
    assert!(e.contains("b: not declared"), "{e}");
    let e = err(
        "module m(clock,a,y); input wire clock; input wire a; output reg y; always @(*) begin y = a;",
        "m",
    );
    assert!(e.contains("missing end") || e.contains("expected"), "{e}");
}
