//! Per-cycle recording of a block's top-level ports, for replay on the emitted Verilog.
//!
//! Ports are found generically by walking the block with a rust-hdl probe: every input or
//! output atom directly in the top scope (or in a top-level interface) is a port, named as
//! rust-hdl names it in Verilog (`iface$field`). The clock is left out; the replaying
//! harness drives it. Values are kept as hex strings, most significant digit first.
use rust_hdl::core::prelude::{Atom, AtomKind, Block, Probe, VCDValue};
use std::fmt::Write as _;

/// Direction of a top-level port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    In,
    Out,
}

/// A top-level port of the emitted Verilog module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// Verilog name (`cmd$valid`).
    pub name: String,
    pub width: usize,
    pub dir: Dir,
}

struct Lister<'a> {
    depth: usize,
    prefix: Vec<String>,
    clock: &'a str,
    ports: Vec<Port>,
    err: Option<String>,
}

impl Probe for Lister<'_> {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        self.prefix.push(name.to_string());
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let dir = match signal.kind() {
            AtomKind::InputParameter => Dir::In,
            AtomKind::OutputParameter => Dir::Out,
            AtomKind::InOutParameter => {
                self.err = Some(format!("port {name}: inout ports cannot be replayed"));
                return;
            }
            _ => return,
        };
        let mut full = self.prefix.clone();
        full.push(name.to_string());
        let full = full.join("$");
        if full == self.clock {
            return;
        }
        self.ports.push(Port {
            name: full,
            width: signal.bits(),
            dir,
        });
    }
    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        self.prefix.pop();
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// Lists the top-level ports of `uut` other than `clock`, inputs first then outputs, each
/// group in declaration order.
pub fn list_ports<B: Block>(uut: &B, clock: &str) -> Result<Vec<Port>, String> {
    let mut l = Lister {
        depth: 0,
        prefix: vec![],
        clock,
        ports: vec![],
        err: None,
    };
    uut.accept("uut", &mut l);
    if let Some(e) = l.err {
        return Err(e);
    }
    let mut ports = l.ports;
    ports.sort_by_key(|p| p.dir == Dir::Out); // stable: inputs first
    Ok(ports)
}

/// Flattens a rust-hdl value to bits, least significant first. Struct fields are packed
/// first field lowest, as rust-hdl packs them; X and Z read as 0.
fn push_bits(v: &VCDValue, out: &mut Vec<bool>) {
    match v {
        VCDValue::Single(s) => out.push(matches!(s, vcd::Value::V1)),
        // VCD vectors are most significant first.
        VCDValue::Vector(b) => out.extend(b.iter().rev().map(|s| matches!(s, vcd::Value::V1))),
        VCDValue::String(_) => out.push(false),
        VCDValue::Composite(fields) => {
            for f in fields {
                push_bits(f, out);
            }
        }
    }
}

/// Hex string (most significant digit first, `ceil(width/4)` digits) of bits LSB first.
pub fn bits_to_hex(bits: &[bool], width: usize) -> String {
    let digits = width.div_ceil(4).max(1);
    let mut s = String::with_capacity(digits);
    for d in (0..digits).rev() {
        let mut nib = 0u8;
        for b in 0..4 {
            if bits.get(d * 4 + b).copied().unwrap_or(false) {
                nib |= 1 << b;
            }
        }
        let _ = write!(s, "{nib:x}");
    }
    s
}

struct Sampler<'a> {
    depth: usize,
    prefix: Vec<String>,
    ports: &'a [Port],
    row: Vec<String>,
    scratch: Vec<bool>,
}

impl Probe for Sampler<'_> {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        self.prefix.push(name.to_string());
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 || !signal.kind().is_parameter() {
            return;
        }
        let full = if self.prefix.is_empty() {
            name.to_string()
        } else {
            format!("{}${name}", self.prefix.join("$"))
        };
        if let Some(i) = self.ports.iter().position(|p| p.name == full) {
            self.scratch.clear();
            push_bits(&signal.vcd(), &mut self.scratch);
            self.row[i] = bits_to_hex(&self.scratch, self.ports[i].width);
        }
    }
    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        self.prefix.pop();
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// Port values of every cycle, in [`Port`] order.
pub struct PortRecorder {
    pub ports: Vec<Port>,
    pub rows: Vec<Vec<String>>,
}

impl PortRecorder {
    /// Starts an empty record of `uut`'s ports.
    pub fn new<B: Block>(uut: &B, clock: &str) -> Result<Self, String> {
        Ok(PortRecorder {
            ports: list_ports(uut, clock)?,
            rows: vec![],
        })
    }

    /// Appends the current value of every port.
    pub fn sample<B: Block>(&mut self, uut: &B) {
        let mut s = Sampler {
            depth: 0,
            prefix: vec![],
            ports: &self.ports,
            row: vec![String::new(); self.ports.len()],
            scratch: vec![],
        };
        uut.accept("uut", &mut s);
        self.rows.push(s.row);
    }

    /// The vector file the Verilator harness reads: a `#` header naming the ports, then one
    /// line per cycle of space-separated hex values.
    pub fn to_vector_file(&self) -> String {
        let mut s = String::from("#");
        for p in &self.ports {
            let _ = write!(
                s,
                " {}:{}:{}",
                p.name,
                p.width,
                if p.dir == Dir::In { "in" } else { "out" }
            );
        }
        s.push('\n');
        for r in &self.rows {
            s.push_str(&r.join(" "));
            s.push('\n');
        }
        s
    }
}
