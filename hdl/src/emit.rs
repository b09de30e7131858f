//! Verilog emission: rust-hdl's generator plus the renaming that gives each block its own
//! module names.
//!
//! rust-hdl always names the top module `top` and every submodule `top$path`. Several
//! blocks in one FPGA project would then clash, so the emitted text is renamed to
//! `<name>` and `<name>$path`. The renamed text is what the lint, synthesis and
//! co-simulation checks run on, so the renaming is covered by the same tests.
//!
//! Two of rust-hdl's constructs are not width-exact, which `verilator -Wall` reports as
//! `WIDTH` warnings; [`width_exact`] rewrites them into equivalent width-exact forms:
//! * a cast `bit_cast::<W, _>(x)` is emitted as `((x) & W'hMASK)`, whose width is that of
//!   the wider operand; it becomes the SystemVerilog size cast `W'(x)`;
//! * a constant part-select offset is emitted as a sized literal (`[(64'h8c)+:(16)]`, e.g.
//!   for struct fields); it becomes the unsized `[140+:16]`.
//!
//! rust-hdl emits a block's whole `update` as one `always @(*)` block; [`split_always`]
//! cuts the very long ones (the switch's) into independent blocks that Verilator and Yosys
//! handle in reasonable time (see [`split`]).
//!
//! The NIC tops are emitted with [`emit_verilog_grouped`]: the top's block and those of the
//! sub-blocks that hand shake both ways (parser, ingress stage, program, reassembly, packet
//! generator, arbiter: `hdl/src/registry.rs`) cut into their dependency groups
//! ([`split_groups`]). With one `always @(*)` per block Verilator takes a block's every
//! output to depend on its every input: a ready going one way and a valid the other looked
//! like a cycle (`UNOPTFLAT`, which a lint waiver hid until 2026-11-30). Cut into groups,
//! each output depends on what it reads, and the NIC tops lint clean with no such waiver
//! (`verilog_out::committed_verilog_is_lint_clean`). The other sub-blocks (packetization,
//! deparser, ...) stay whole: cut, they synthesize differently (ABC maps by structure; the
//! packetization module of `nic_bolt` went from 8 LUT levels to 9).
//!
//! The output is therefore SystemVerilog-2012 (size casts): Verilator reads it as is,
//! Yosys with `read_verilog -sv` and Icarus with `-g2012`. The co-simulation tests replay
//! the rewritten text against the Rust simulation, so the rewrite is checked too.
use rust_hdl::prelude::*;

pub mod split;
pub use split::{split_always, split_groups};

/// Verilator configuration applied when linting emitted Verilog (`ntsim verilog` writes it
/// next to the files as `lint_waivers.vlt`).
///
/// It waives exactly one kind of warning for named signals: `UNUSEDSIGNAL` for *some
/// bits* of a value that is kept wider than the slice the block uses, because rust-hdl
/// struct fields cannot have generic widths (e.g. a 24-bit buffer address of which a
/// block with 2^15 words uses 15 bits, a 16-bit hash of which a way uses its slot bits).
/// A signal that is entirely unused, and every other warning, still fails the lint.
pub const LINT_WAIVERS: &str = r#"`verilator_config
// reassembly: 16-bit slot hashes, of which each way uses its SA slot bits
lint_off -rule UNUSEDSIGNAL -file "*" -match "Bits of signal are not used: 'h0'*"
lint_off -rule UNUSEDSIGNAL -file "*" -match "Bits of signal are not used: 'h1'*"
// reassembly: 16-bit message ids in table rows and rows' locations, of which A / SA bits index
lint_off -rule UNUSEDSIGNAL -file "*" -match "Bits of signal are not used: 'hit_id'*"
lint_off -rule UNUSEDSIGNAL -file "*" -match "Bits of signal are not used: 'row_loc_index'*"
// reassembly: serial-arithmetic checks read a difference's sign bit: a timer event is early
// while the 32-bit `now - expiry` is negative, a delivered message's entry is fresh while
// `now - until` is, and a generation is not newer while the 8-bit gap's top bit is clear
lint_off -rule UNUSEDSIGNAL -file "*" -match "Bits of signal are not used: 'late_r'*"
lint_off -rule UNUSEDSIGNAL -file "*" -match "Bits of signal are not used: 'd_age*"
lint_off -rule UNUSEDSIGNAL -file "*" -match "Bits of signal are not used: 'd_gap*"
// packetization: 16-bit message id of a descriptor, of which A bits index the free list
lint_off -rule UNUSEDSIGNAL -file "*" -match "Bits of signal are not used: 'head_id'*"
// packetization: the send queue holds each of the N ids at most once in N entries, so its
// fill level is never needed
lint_off -rule UNUSEDSIGNAL -file "*" -match "Signal is not used: 'sendq$count'*"
// reassembly: 24-bit buffer word addresses, of which the buffer RAM uses BW bits
lint_off -rule UNUSEDSIGNAL -file "*" -match "Bits of signal are not used: 'wr_addr'*"
lint_off -rule UNUSEDSIGNAL -file "*" -match "Bits of signal are not used: 'head_buf'*"
// deparser: Listing 3.2's is_new_msg and is_rtx are for the program, not for the headers
lint_off -rule UNUSEDSIGNAL -file "*" -match "Signal is not used: 'sink$is_new_msg'*"
lint_off -rule UNUSEDSIGNAL -file "*" -match "Signal is not used: 'sink$is_rtx'*"
// NIC tops: the sub-blocks' own counters that the top does not export (the simulation
// reads them; `stat` exports the main ones), the externs' ports a program does not use,
// the parser's `empty` (frames reach the reassembly module whole), and the header and
// record fields a program does not read (a 16-bit id of which A bits index)
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Signal is not used: '*$stat$*"
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Signal is not used: '*_resp$*"
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Signal is not used: 'pkt$empty'*"
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Bits of signal are not used: 'r'*"
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Bits of signal are not used: 'h'*"
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Bits of signal are not used: '*id16'*"
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Bits of signal are not used: 'c'*"
// NIC tops: Bolt's program does not read an SRC's link_rate (reaction_factor = cwnd / rtt_pkts)
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Bits of signal are not used: 'rbolt'*"
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Bits of signal are not used: 'total16'*"
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Bits of signal are not used: 'ack_no9'*"
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Bits of signal are not used: 'fifo_*_id'*"
// NIC tops: NDP needs no `freed` events (its register is initialised by a message's
// first packet); Homa reads the scheduler's answer fields it needs, and its queue of
// freed ids never fills (one entry per message)
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Signal is not used: 'freed$*"
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Signal is not used: 'sched$resp$*"
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Signal is not used: 'sched$query$ready'*"
lint_off -rule UNUSEDSIGNAL -file "*nic_*" -match "Signal is not used: 'freed_q$count'*"
// prisched: 16-bit ids of queued snapshots (a struct field; the FIFO's head and the one
// after it), of which A bits index the entries
lint_off -rule UNUSEDSIGNAL -file "*prisched*" -match "Bits of signal are not used: 'fifo_*_id'*"
// switch: a frame's word count computed at 32 bits, of which 10 count (at most 136 words),
// and the transport flags, of which DATA and CHOP choose the band and trimming
lint_off -rule UNUSEDSIGNAL -file "*switch_*" -match "Bits of signal are not used: 'words32$*"
lint_off -rule UNUSEDSIGNAL -file "*switch_*" -match "Bits of signal are not used: 'flags$*"
// The new switch's parts (sbuf, sing, sque): each waiver is given twice, for the part and
// for the whole switch (`switch2_*`) that holds it.
// shared buffer: FIFOs kept in lockstep with a twin (a cell FIFO and its meta FIFO, the
// verdict's control FIFO and its header FIFO, pushed and popped together), whose state
// the twin's count and flag already give; the verdict FIFO, which its producer never
// overfills (one verdict per frame the data FIFO holds)
lint_off -rule UNUSEDSIGNAL -file "*sbuf_*" -match "Signal is not used: 'cq_meta$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'cq_meta$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*sbuf_*" -match "Signal is not used: 'cq_meta$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'cq_meta$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*sbuf_*" -match "Signal is not used: 'dq_meta$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'dq_meta$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*sbuf_*" -match "Signal is not used: 'dq_meta$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'dq_meta$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*sbuf_*" -match "Signal is not used: 'vq$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'vq$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*sbuf_*" -match "Signal is not used: 'vh$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'vh$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*sbuf_*" -match "Signal is not used: 'vh$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'vh$*$nonempty'*"
// rfifo::RegFifo: the inner FIFO's count (the RegFifo keeps its own, a register that
// counts the head too)
lint_off -rule UNUSEDSIGNAL -file "*" -match "Signal is not used: 'rest$count'*"
// sing: a frame's word count computed at 32 bits, of which 16 are the request's; the
// first-word tag travels the delay line beside its word, and the decision reads stage 6's
lint_off -rule UNUSEDSIGNAL -file "*sing_*" -match "Bits of signal are not used: 'l_w32$*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Bits of signal are not used: 'l_w32$*"
lint_off -rule UNUSEDSIGNAL -file "*sing_*" -match "Signal is not used: 'sf$*$q'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'sf$*$q'*"
// sque: the tag, departure and recirculation records are FIFOs side by side, one per field, pushed and
// popped together, so only the first of each set is asked for its fill level
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'tq_b$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'tq_b$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'tq_b$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'tq_b$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'tq_by$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'tq_by$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'tq_by$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'tq_by$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'dp_b$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'dp_b$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'dp_by$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'dp_by$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'dp_by$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'dp_by$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'tq_d$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'tq_d$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'tq_d$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'tq_d$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'tq_w$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'tq_w$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'tq_w$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'tq_w$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'rc_m$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'rc_m$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'rc_m$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'rc_m$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'rc_o$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'rc_o$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'rc_o$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'rc_o$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'rc_w$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'rc_w$*$count'*"
lint_off -rule UNUSEDSIGNAL -file "*sque_*" -match "Signal is not used: 'rc_w$*$nonempty'*"
lint_off -rule UNUSEDSIGNAL -file "*switch2_*" -match "Signal is not used: 'rc_w$*$nonempty'*"
"#;

/// Error from elaborating a block before emission.
#[derive(Debug)]
pub struct EmitError(pub String);

impl std::fmt::Display for EmitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for EmitError {}

/// Connects `uut`, runs rust-hdl's structural checks and returns its Verilog with the top
/// module named `name`.
pub fn emit_verilog<B: Block>(name: &str, uut: B) -> Result<String, EmitError> {
    emit_with(name, uut, &split_always)
}

/// [`emit_verilog`] with the `always @(*)` blocks of the top and of its sub-blocks
/// `grouped` cut into their dependency groups ([`split_groups`]): the sub-blocks that hand
/// shake with their neighbours in both directions (the NIC tops; module documentation).
/// The others are emitted as [`emit_verilog`] emits them, so that their synthesis does
/// not change.
pub fn emit_verilog_grouped<B: Block>(
    name: &str,
    uut: B,
    grouped: &[&str],
) -> Result<String, EmitError> {
    emit_with(name, uut, &|v: &str| {
        split_groups(v, &|m: &str| {
            m == "top"
                || m.strip_prefix("top$")
                    .is_some_and(|sub| grouped.contains(&sub))
        })
    })
}

fn emit_with<B: Block>(
    name: &str,
    mut uut: B,
    split: &dyn Fn(&str) -> String,
) -> Result<String, EmitError> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(EmitError(format!(
            "bad module name {name:?}: use [A-Za-z0-9_]"
        )));
    }
    uut.connect_all();
    check_all(&uut).map_err(|e| EmitError(format!("{name}: rust-hdl check failed: {e:?}")))?;
    Ok(rename_top(
        &split(&width_exact(&generate_verilog(&uut))),
        name,
    ))
}

/// Rewrites rust-hdl's masking casts into size casts and its sized constant part-select
/// offsets into unsized ones (see the module documentation).
pub fn width_exact(verilog: &str) -> String {
    let index =
        regex::Regex::new(r"\[\((\d+)'h([0-9a-fA-F]+)\)\+:\((\d+)\)\]").expect("static regex");
    let text = index.replace_all(verilog, |c: &regex::Captures| {
        let off = u128::from_str_radix(&c[2], 16).unwrap_or(0);
        format!("[{off}+:{}]", &c[3])
    });
    rewrite_casts(&text)
}

/// Replaces every `((x) & W'hMASK)` whose mask is `W` ones by `W'(x)`.
fn rewrite_casts(text: &str) -> String {
    let tail = regex::Regex::new(r"\) & (\d+)'h([0-9a-fA-F]+)\)").expect("static regex");
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for m in tail.captures_iter(text) {
        let whole = m.get(0).expect("match");
        let width: u32 = m[1].parse().unwrap_or(0);
        let ones = mask_is_ones(&m[2], width);
        if !ones || whole.start() < copied {
            continue;
        }
        // Find the `(` matching the `)` that starts the tail, then require `((` there.
        let close = whole.start();
        let mut depth = 0i32;
        let mut open = None;
        for i in (copied..=close).rev() {
            match bytes[i] {
                b')' => depth += 1,
                b'(' => {
                    depth -= 1;
                    if depth == 0 {
                        open = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        if open == 0 || bytes[open - 1] != b'(' || open - 1 < copied {
            continue;
        }
        out.push_str(&text[copied..open - 1]);
        out.push_str(&format!("{width}'("));
        out.push_str(&text[open + 1..close]);
        out.push(')');
        copied = whole.end();
    }
    out.push_str(&text[copied..]);
    out
}

/// True when hex `digits` is exactly `width` one bits.
fn mask_is_ones(digits: &str, width: u32) -> bool {
    let full = width / 4;
    let rest = width % 4;
    let expect_len = full + u32::from(rest > 0);
    if digits.len() as u32 != expect_len {
        return false;
    }
    let lead = digits.chars().next().unwrap_or('0');
    let lead_ok = if rest == 0 {
        lead.eq_ignore_ascii_case(&'f')
    } else {
        lead.to_digit(16) == Some((1 << rest) - 1)
    };
    lead_ok && digits.chars().skip(1).all(|c| c.eq_ignore_ascii_case(&'f'))
}

/// Renames module `top` to `name` and submodules `top$x` to `name$x`.
pub fn rename_top(verilog: &str, name: &str) -> String {
    let sub = regex::Regex::new(r"\btop\$").expect("static regex");
    let text = sub.replace_all(verilog, format!("{name}$$"));
    let decl = regex::Regex::new(r"(?m)^module top\(").expect("static regex");
    let text = decl.replace_all(&text, format!("module {name}("));
    let end = regex::Regex::new(r"(?m)^endmodule // top$").expect("static regex");
    let text = end.replace_all(&text, format!("endmodule // {name}"));
    format!(
        "// {name}: generated by `ntsim verilog` from the rust-hdl sources in hdl/. Do not edit.\n{}",
        text.trim_start()
    )
}
