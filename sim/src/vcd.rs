//! VCD recording of a whole rust-hdl hierarchy at the kernel's clock.
//!
//! rust-hdl's own VCD writer fixes the timescale at 1 ps, which cannot express the
//! 312.5 ps period of the 3.2 GHz reference clock. This writer uses 1 fs. Scopes follow
//! the block hierarchy (`uut`, then one scope per sub-block or interface); each signal is a
//! `wire` of its width; enum-typed state is written as a VCD `string` variable holding the
//! state name.
use rust_hdl::core::prelude::{Atom, Block, Probe, TypeDescriptor, TypeKind, VCDValue};
use std::io::Write;
use std::sync::{Arc, Mutex};
use vcd::{IdCode, TimescaleUnit, Value, VarType};

enum Code {
    /// A VCD variable: its id, whether it is a string (enum) variable, and the slot of its
    /// last written value.
    Leaf(IdCode, bool, usize),
    Composite(Vec<Code>),
}

/// A writer shared between the `vcd` crate's writer (which cannot hand its writer back)
/// and the recorder, so the recorder can flush it.
struct Shared<W: Write>(Arc<Mutex<W>>);

impl<W: Write> Write for Shared<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned VCD writer"))?
            .write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned VCD writer"))?
            .flush()
    }
}

/// Writes value changes of every signal in a block hierarchy.
pub struct VcdRecorder<W: Write> {
    w: vcd::Writer<Shared<W>>,
    inner: Arc<Mutex<W>>,
    /// (atom id, code) in the order `accept` visits the atoms, which is the same in every
    /// sample: a sample walks this list with `cursor` instead of hashing ids.
    codes: Vec<(usize, Code)>,
    cursor: usize,
    /// Last written value per leaf slot.
    last: Vec<Option<VCDValue>>,
    last_time: Option<u64>,
    err: Option<std::io::Error>,
}

fn declare<W: Write>(
    w: &mut vcd::Writer<W>,
    name: &str,
    d: &TypeDescriptor,
    slots: &mut usize,
) -> std::io::Result<Code> {
    let mut leaf = |id: IdCode, string: bool| {
        *slots += 1;
        Code::Leaf(id, string, *slots - 1)
    };
    Ok(match &d.kind {
        TypeKind::Bits(n) | TypeKind::Signed(n) => leaf(
            w.add_var(VarType::Wire, (*n).max(1) as u32, name, None)?,
            false,
        ),
        TypeKind::Enum(_) => leaf(w.add_var(VarType::String, 1, name, None)?, true),
        TypeKind::Composite(fields) => {
            let mut v = vec![];
            for f in fields {
                v.push(declare(
                    w,
                    &format!("{name}.{}", f.fieldname),
                    &f.kind,
                    slots,
                )?);
            }
            Code::Composite(v)
        }
    })
}

struct Header<'a, W: Write> {
    w: &'a mut vcd::Writer<W>,
    codes: &'a mut Vec<(usize, Code)>,
    slots: usize,
    err: Option<std::io::Error>,
}

impl<W: Write> Header<'_, W> {
    fn run<F: FnOnce(&mut vcd::Writer<W>) -> std::io::Result<()>>(&mut self, f: F) {
        if self.err.is_none() {
            if let Err(e) = f(self.w) {
                self.err = Some(e);
            }
        }
    }
}

impl<W: Write> Probe for Header<'_, W> {
    fn visit_start_scope(&mut self, name: &str, _node: &dyn Block) {
        self.run(|w| w.add_module(name));
    }
    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        self.run(|w| w.add_module(name));
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.err.is_some() {
            return;
        }
        match declare(self.w, name, &signal.descriptor(), &mut self.slots) {
            Ok(c) => {
                self.codes.push((signal.id(), c));
            }
            Err(e) => self.err = Some(e),
        }
    }
    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        self.run(|w| w.upscope());
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.run(|w| w.upscope());
    }
}

impl<W: Write> VcdRecorder<W> {
    /// Writes the header (timescale 1 fs, one scope per block) for `uut`.
    pub fn new<B: Block>(writer: W, uut: &B) -> std::io::Result<Self> {
        let inner = Arc::new(Mutex::new(writer));
        let mut w = vcd::Writer::new(Shared(inner.clone()));
        w.timescale(1, TimescaleUnit::FS)?;
        let mut codes = Vec::new();
        let mut h = Header {
            w: &mut w,
            codes: &mut codes,
            slots: 0,
            err: None,
        };
        uut.accept("uut", &mut h);
        if let Some(e) = h.err {
            return Err(e);
        }
        let slots = h.slots;
        w.enddefinitions()?;
        Ok(VcdRecorder {
            w,
            inner,
            codes,
            cursor: 0,
            last: vec![None; slots],
            last_time: None,
            err: None,
        })
    }

    /// Writes the changes since the last sample at time `t_fs` (femtoseconds).
    pub fn sample<B: Block>(&mut self, t_fs: u64, uut: &B) -> std::io::Result<()> {
        if self.last_time.is_some_and(|t| t >= t_fs) {
            return Ok(()); // already sampled at this time
        }
        self.w.timestamp(t_fs)?;
        self.last_time = Some(t_fs);
        self.cursor = 0;
        uut.accept("uut", self);
        match self.err.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> std::io::Result<()> {
        Shared(self.inner.clone()).flush()
    }
}

/// Writes the parts of `v` that differ from the last values written for `code`.
fn change<W: Write>(
    w: &mut vcd::Writer<W>,
    last: &mut [Option<VCDValue>],
    code: &Code,
    v: &VCDValue,
) -> std::io::Result<()> {
    match (code, v) {
        (Code::Composite(codes), VCDValue::Composite(vals)) => {
            for (c, v) in codes.iter().zip(vals.iter()) {
                change(w, last, c, v)?;
            }
            Ok(())
        }
        (Code::Leaf(id, is_string, slot), v) => {
            if last[*slot].as_ref() == Some(v) {
                return Ok(());
            }
            match v {
                VCDValue::Single(s) => w.change_vector(*id, &[*s])?,
                VCDValue::Vector(bits) => w.change_vector(*id, bits)?,
                VCDValue::String(s) if *is_string => w.change_string(*id, s)?,
                VCDValue::String(_) => w.change_vector(*id, &[Value::X])?,
                VCDValue::Composite(_) => w.change_vector(*id, &[Value::X])?,
            }
            last[*slot] = Some(v.clone());
            Ok(())
        }
        (Code::Composite(_), _) => Ok(()),
    }
}

impl<W: Write> Probe for VcdRecorder<W> {
    fn visit_atom(&mut self, _name: &str, signal: &dyn Atom) {
        if self.err.is_some() {
            return;
        }
        let i = self.cursor;
        self.cursor += 1;
        match self.codes.get(i) {
            Some((atom, code)) if *atom == signal.id() => {
                if let Err(e) = change(&mut self.w, &mut self.last, code, &signal.vcd()) {
                    self.err = Some(e);
                }
            }
            _ => {
                self.err = Some(std::io::Error::other(
                    "VCD: the block's signals were visited in a different order than at the header",
                ))
            }
        }
    }
}
