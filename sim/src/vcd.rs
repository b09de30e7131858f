//! Waveforms (VCD or FST) of a rust-hdl block, from the native and the compiled engines.
//!
//! A [`WaveLayout`] is made once from the block's hierarchy: every signal of every
//! sub-block, with the shape a waveform viewer wants:
//! * the top scope is named by the caller (the device: `h1`, `s0`; a block's module name);
//! * one scope per sub-block and per interface; array elements are `name[i]` (rust-hdl
//!   calls them `name$i`);
//! * a register (a sub-block whose only signals are `d`, `q` and `clock`) is one variable,
//!   named as the register, holding its `q`;
//! * only the top's `clock` is kept (every block's clock input is the same wire), and no
//!   constants (they never change);
//! * a struct-typed signal is one variable per field (`name.field`), an enum-typed one a VCD
//!   `string` variable holding the state's name.
//!
//! Values come from the engine that runs the block:
//! * the native kernel ([`crate::kernel::Kernel`]) reads every signal through rust-hdl's
//!   probe ([`WaveRecorder::sample_block`]);
//! * the compiled and Verilator libraries ([`crate::vmodel`]) copy their signals into a
//!   word buffer, and each variable knows where its bits are in it
//!   ([`WaveLayout::bind`], [`WaveRecorder::sample_words`]): the flattened Verilog name of
//!   a signal is derived from its place in the hierarchy (`reassembly.class_fifo$0$head`).
//!
//! Both write through the same writer, so the two engines' files name the same variables
//! and, the engines being cycle-exact, hold the same changes. [`WaveOpts`] restricts a
//! recording to some scopes (globs) and to a window of cycles. The timescale is 1 fs
//! (rust-hdl's own writer fixes 1 ps, which cannot express the 312.5 ps of 3.2 GHz).
//!
//! [`WaveFile`] says where the waveform goes: VCD to any writer, or FST to a file (the
//! `fst-writer` crate, by wellen's author; GTKWave and Surfer read it, and it is some 20 to
//! 50 times smaller than the VCD). FST has no string variables: an enum-typed signal is
//! written as its state's index there.
use rust_hdl::core::prelude::{Atom, AtomKind, Block, Probe, TypeDescriptor, TypeKind, VCDValue};
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};
use vcd::{IdCode, TimescaleUnit, Value, VarType};

/// What a recording holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WaveOpts {
    /// The top scope's name: the device's (`h1`), or the block's module name.
    pub top: String,
    /// Globs over dotted paths (`h1.reassembly.s2_id`, `h1.parser.*`, `*.ready`; `*` any
    /// run of characters, `?` one): a variable is recorded when a glob matches its path or
    /// the path of a scope that holds it. Empty: every variable.
    pub scopes: Vec<String>,
    /// The first cycle recorded.
    pub from: u64,
    /// The cycle after the last one recorded; `None`: to the end of the run.
    pub to: Option<u64>,
    /// Also write a GTKWave save file here ([`gtkw`]) that opens the dump `.1` with the
    /// handshakes grouped by block.
    pub save_file: Option<(std::path::PathBuf, String)>,
}

impl WaveOpts {
    /// Everything, under the top scope `top`.
    pub fn all(top: &str) -> Self {
        WaveOpts {
            top: top.to_string(),
            ..Default::default()
        }
    }

    /// Parses a cycle window `A..B` (`A..` to the end, `..B` from the start).
    pub fn parse_window(s: &str) -> Result<(u64, Option<u64>), String> {
        let err = || format!("cycle window {s:?}: write FROM..TO (e.g. 1000..2000, 1000.., ..500)");
        let (a, b) = s.split_once("..").ok_or_else(err)?;
        let from = if a.trim().is_empty() {
            0
        } else {
            a.trim().parse().map_err(|_| err())?
        };
        let to = if b.trim().is_empty() {
            None
        } else {
            Some(b.trim().parse().map_err(|_| err())?)
        };
        if to.is_some_and(|t| t <= from) {
            return Err(format!("cycle window {s:?}: it ends before it starts"));
        }
        Ok((from, to))
    }

    fn selects(&self, scope: &[String], name: &str) -> bool {
        if self.scopes.is_empty() {
            return true;
        }
        let mut p = self.top.clone();
        if self.scopes.iter().any(|g| glob(g, &p)) {
            return true;
        }
        for s in scope.iter().map(String::as_str).chain([name]) {
            p.push('.');
            p.push_str(s);
            if self.scopes.iter().any(|g| glob(g, &p)) {
                return true;
            }
        }
        false
    }

    fn in_window(&self, cycle: u64) -> bool {
        cycle >= self.from && self.to.is_none_or(|t| cycle < t)
    }
}

/// A GTKWave save file for a dump of `vars` under top scope `top`: one group per block
/// (each sub-block of the top, in the hierarchy's order; the top's clock and ports first),
/// each holding the `valid`, `ready` and `last` of the block's own interfaces (not those
/// of the blocks inside it), so that a frame's way
/// through the stages reads from top to bottom. GTKWave opens it with
/// `gtkwave h1.gtkw` (the dump is named inside); Surfer ignores it.
pub fn gtkw(dumpfile: &str, top: &str, vars: &[WaveVar]) -> String {
    let mut o = format!(
        "[*] GTKWave save file written by ntsim: the handshakes of {top}, grouped by block\n[dumpfile] \"{dumpfile}\"\n[size] 1600 1000\n[sst_expanded] 1\n"
    );
    let mut groups: Vec<(String, Vec<String>)> = vec![];
    for v in vars {
        let handshake = matches!(v.name.as_str(), "valid" | "ready" | "last");
        let own = v.scope.is_empty() && v.clock;
        if !(own || (handshake && v.width == 1 && (1..=2).contains(&v.scope.len()))) {
            continue;
        }
        let group = if v.scope.len() <= 1 {
            top.to_string()
        } else {
            v.scope[0].clone()
        };
        let path = std::iter::once(top)
            .chain(v.scope.iter().map(String::as_str))
            .chain([v.name.as_str()])
            .collect::<Vec<_>>()
            .join(".");
        match groups.iter_mut().find(|g| g.0 == group) {
            Some(g) => g.1.push(path),
            None => groups.push((group, vec![path])),
        }
    }
    for (g, sigs) in groups {
        o.push_str(&format!("@800200\n-{g}\n@28\n"));
        for s in sigs {
            o.push_str(&s);
            o.push('\n');
        }
        o.push_str(&format!("@1000200\n-{g}\n"));
    }
    o
}

/// `*` matches any run of characters (dots included), `?` one character.
pub fn glob(pat: &str, s: &str) -> bool {
    let (p, s): (Vec<char>, Vec<char>) = (pat.chars().collect(), s.chars().collect());
    let (mut i, mut j) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while j < s.len() {
        if i < p.len() && (p[i] == '?' || p[i] == s[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(st) = star {
            i = st + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    while i < p.len() && p[i] == '*' {
        i += 1;
    }
    i == p.len()
}

/// One variable of a waveform.
#[derive(Clone, Debug)]
pub struct WaveVar {
    /// Scopes below the top (`["reassembly", "class_fifo[0]"]`).
    pub scope: Vec<String>,
    pub name: String,
    pub width: u32,
    /// The state names of an enum-typed variable (its value is their index).
    pub states: Option<Vec<String>>,
    /// The top's clock: low in a cycle's first half, high in its second.
    pub clock: bool,
    /// The signal it reads, in probe order ([`WaveLayout::atoms`]).
    pub atom: usize,
    /// Its place in the signal's value: field indices into a struct-typed signal (empty for
    /// a plain one), and the bit offset of those bits (a struct's first field is at bit 0).
    pub field: Vec<usize>,
    pub offset: u32,
}

/// A signal of the hierarchy, as the probe visits it.
#[derive(Clone, Debug)]
pub struct WaveAtom {
    /// Names the flattened Verilog may give it, most likely first.
    pub verilog: [String; 2],
    pub width: u32,
}

/// The variables of a block's waveform, made once per block ([`WaveLayout::of_block`]).
#[derive(Clone, Debug)]
pub struct WaveLayout {
    pub vars: Vec<WaveVar>,
    /// Every signal in probe order (constants and clocks included, so a sample can walk
    /// the probe with a cursor).
    pub atoms: Vec<WaveAtom>,
}

enum Node {
    Scope {
        name: String,
        block: bool,
        kids: Vec<Node>,
    },
    Atom {
        name: String,
        index: usize,
        desc: TypeDescriptor,
        clock: bool,
        constant: bool,
    },
}

/// The probe that builds the raw tree.
#[derive(Default)]
struct Walk {
    stack: Vec<(String, bool, Vec<Node>)>,
    atoms: Vec<WaveAtom>,
    root: Option<Node>,
}

impl Walk {
    fn open(&mut self, name: &str, block: bool) {
        self.stack.push((name.to_string(), block, vec![]));
    }
    fn close(&mut self) {
        if let Some((name, block, kids)) = self.stack.pop() {
            let n = Node::Scope { name, block, kids };
            match self.stack.last_mut() {
                Some(p) => p.2.push(n),
                None => self.root = Some(n),
            }
        }
    }
    /// The flattened Verilog names of signal `name` at the current place: within the
    /// innermost block's module (`a.b.ns$x`), or, for that block's port, the parent's stub
    /// (`a.b$ns$x`). The root (the top module) adds nothing.
    fn verilog_names(&self, name: &str) -> [String; 2] {
        let mut local = String::new();
        let mut last_dot = None;
        for (n, block, _) in self.stack.iter().skip(1) {
            local.push_str(n);
            if *block {
                last_dot = Some(local.len());
                local.push('.');
            } else {
                local.push('$');
            }
        }
        local.push_str(name);
        let mut port = local.clone();
        if let Some(i) = last_dot {
            port.replace_range(i..i + 1, "$");
        }
        [local, port]
    }
}

impl Probe for Walk {
    fn visit_start_scope(&mut self, name: &str, _node: &dyn Block) {
        self.open(name, true);
    }
    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        self.open(name, false);
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        let desc = signal.descriptor();
        let index = self.atoms.len();
        self.atoms.push(WaveAtom {
            verilog: self.verilog_names(name),
            width: signal.bits() as u32,
        });
        let n = Node::Atom {
            name: name.to_string(),
            index,
            clock: desc.name == "clock",
            constant: signal.kind() == AtomKind::Constant,
            desc,
        };
        if let Some(p) = self.stack.last_mut() {
            p.2.push(n);
        }
    }
    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        self.close();
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.close();
    }
}

/// `rx$10` → `rx[10]`; `m$2$3` → `m[2][3]`.
fn display_name(n: &str) -> String {
    let mut parts = n.split('$');
    let mut s = parts.next().unwrap_or_default().to_string();
    for p in parts {
        if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) {
            s.push_str(&format!("[{p}]"));
        } else {
            s.push('$');
            s.push_str(p);
        }
    }
    s
}

fn type_width(d: &TypeDescriptor) -> u32 {
    match &d.kind {
        TypeKind::Bits(n) | TypeKind::Signed(n) => *n as u32,
        TypeKind::Enum(v) => {
            let mut w = 0;
            while (1usize << w) < v.len() {
                w += 1;
            }
            w
        }
        TypeKind::Composite(f) => f.iter().map(|f| type_width(&f.kind)).sum(),
    }
}

impl WaveLayout {
    /// The layout of `uut`'s hierarchy.
    pub fn of_block(uut: &dyn Block) -> WaveLayout {
        let mut w = Walk::default();
        uut.accept("top", &mut w);
        let mut vars = vec![];
        if let Some(Node::Scope { kids, .. }) = &w.root {
            for k in kids {
                add(k, &[], true, &mut vars);
            }
        }
        WaveLayout {
            vars,
            atoms: w.atoms,
        }
    }
}

fn leaves(
    scope: &[String],
    name: String,
    desc: &TypeDescriptor,
    atom: usize,
    field: Vec<usize>,
    offset: u32,
    vars: &mut Vec<WaveVar>,
) {
    match &desc.kind {
        TypeKind::Composite(fields) => {
            let mut off = offset;
            for (i, f) in fields.iter().enumerate() {
                let mut fi = field.clone();
                fi.push(i);
                leaves(
                    scope,
                    format!("{name}.{}", f.fieldname),
                    &f.kind,
                    atom,
                    fi,
                    off,
                    vars,
                );
                off += type_width(&f.kind);
            }
        }
        kind => vars.push(WaveVar {
            scope: scope.to_vec(),
            name,
            width: type_width(desc).max(1),
            states: match kind {
                TypeKind::Enum(v) => Some(v.clone()),
                _ => None,
            },
            clock: false,
            atom,
            field,
            offset,
        }),
    }
}

fn add(n: &Node, scope: &[String], top: bool, vars: &mut Vec<WaveVar>) {
    match n {
        Node::Atom {
            name,
            index,
            desc,
            clock,
            constant,
        } => {
            if *constant || (*clock && !(top && name == "clock")) {
                return;
            }
            let before = vars.len();
            leaves(scope, display_name(name), desc, *index, vec![], 0, vars);
            if *clock {
                for v in &mut vars[before..] {
                    v.clock = true;
                }
            }
        }
        Node::Scope { name, block, kids } => {
            let name = display_name(name);
            // A register: exactly `d`, `q` and `clock`.
            if *block && kids.len() == 3 {
                let atom = |n: &str| {
                    kids.iter().find_map(|k| match k {
                        Node::Atom {
                            name, index, desc, ..
                        } if name == n => Some((*index, desc)),
                        _ => None,
                    })
                };
                if let (Some(_), Some((q, qd)), Some(_)) = (atom("d"), atom("q"), atom("clock")) {
                    leaves(scope, name, qd, q, vec![], 0, vars);
                    return;
                }
            }
            let mut s = scope.to_vec();
            s.push(name);
            for k in kids {
                add(k, &s, false, vars);
            }
        }
    }
}

/// Where a waveform goes.
pub enum WaveFile {
    /// VCD, to any writer.
    Vcd(Box<dyn Write + Send>),
    /// FST, to this file (created).
    Fst(std::path::PathBuf),
}

impl WaveFile {
    /// The file at `path`: FST when its extension is `fst`, else VCD.
    pub fn create(path: &std::path::Path) -> Result<WaveFile, String> {
        if path.extension().is_some_and(|e| e == "fst") {
            return Ok(WaveFile::Fst(path.to_path_buf()));
        }
        let f = std::fs::File::create(path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(WaveFile::Vcd(Box::new(std::io::BufWriter::new(f))))
    }
}

impl From<Box<dyn Write + Send>> for WaveFile {
    fn from(w: Box<dyn Write + Send>) -> Self {
        WaveFile::Vcd(w)
    }
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

type FstBody = fst_writer::FstBodyWriter<std::io::BufWriter<std::fs::File>>;
type FstHeader = fst_writer::FstHeaderWriter<std::io::BufWriter<std::fs::File>>;

/// The value changes of FST are kept in memory until flushed: a block at this size.
const FST_FLUSH_BYTES: usize = 32 << 20;

enum Sink {
    Vcd {
        w: vcd::Writer<Shared<Box<dyn Write + Send>>>,
        inner: Arc<Mutex<Box<dyn Write + Send>>>,
        ids: Vec<IdCode>,
    },
    FstHead(Option<FstHeader>, Vec<fst_writer::FstSignalId>),
    Fst(Option<FstBody>, Vec<fst_writer::FstSignalId>),
}

fn fst_err(e: fst_writer::FstWriteError) -> std::io::Error {
    std::io::Error::other(format!("FST: {e}"))
}

impl Sink {
    fn open(f: WaveFile) -> std::io::Result<Sink> {
        Ok(match f {
            WaveFile::Vcd(w) => {
                let inner = Arc::new(Mutex::new(w));
                let mut w = vcd::Writer::new(Shared(inner.clone()));
                w.timescale(1, TimescaleUnit::FS)?;
                Sink::Vcd {
                    w,
                    inner,
                    ids: vec![],
                }
            }
            WaveFile::Fst(p) => {
                let info = fst_writer::FstInfo {
                    start_time: 0,
                    timescale_exponent: -15,
                    version: format!("ntsim {}", env!("CARGO_PKG_VERSION")),
                    date: String::new(),
                    file_type: fst_writer::FstFileType::Verilog,
                };
                let h = fst_writer::open_fst(&p, &info)
                    .map_err(|e| std::io::Error::other(format!("{}: {e}", p.display())))?;
                Sink::FstHead(Some(h), vec![])
            }
        })
    }
    fn scope(&mut self, name: &str) -> std::io::Result<()> {
        match self {
            Sink::Vcd { w, .. } => w.add_module(name),
            Sink::FstHead(Some(h), _) => h
                .scope(name, "", fst_writer::FstScopeType::Module)
                .map_err(fst_err),
            _ => Ok(()),
        }
    }
    fn upscope(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Vcd { w, .. } => w.upscope(),
            Sink::FstHead(Some(h), _) => h.up_scope().map_err(fst_err),
            _ => Ok(()),
        }
    }
    fn var(&mut self, name: &str, width: u32, string: bool) -> std::io::Result<()> {
        match self {
            Sink::Vcd { w, ids, .. } => {
                let id = if string {
                    w.add_var(VarType::String, 1, name, None)?
                } else {
                    w.add_var(VarType::Wire, width, name, None)?
                };
                ids.push(id);
            }
            Sink::FstHead(Some(h), ids) => ids.push(
                h.var(
                    name,
                    fst_writer::FstSignalType::bit_vec(width),
                    fst_writer::FstVarType::Wire,
                    fst_writer::FstVarDirection::Implicit,
                    None,
                )
                .map_err(fst_err)?,
            ),
            _ => {}
        }
        Ok(())
    }
    fn end_header(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Vcd { w, .. } => w.enddefinitions(),
            Sink::FstHead(h, ids) => {
                let body = h.take().map(|h| h.finish()).transpose().map_err(fst_err)?;
                *self = Sink::Fst(body, std::mem::take(ids));
                Ok(())
            }
            Sink::Fst(..) => Ok(()),
        }
    }
    fn time(&mut self, t: u64) -> std::io::Result<()> {
        match self {
            Sink::Vcd { w, .. } => w.timestamp(t),
            Sink::Fst(Some(b), _) => {
                if b.size() >= FST_FLUSH_BYTES {
                    b.flush().map_err(fst_err)?;
                }
                b.time_change(t).map_err(fst_err)
            }
            _ => Ok(()),
        }
    }
    /// Variable `i` takes `bits` (MSB first) or, for a string variable in a VCD, `text`.
    fn change(&mut self, i: usize, bits: &[Value], text: Option<&str>) -> std::io::Result<()> {
        match self {
            Sink::Vcd { w, ids, .. } => match text {
                Some(t) => w.change_string(ids[i], t),
                None => w.change_vector(ids[i], bits),
            },
            Sink::Fst(Some(b), ids) => {
                let v: Vec<u8> = bits
                    .iter()
                    .map(|b| match b {
                        Value::V0 => b'0',
                        Value::V1 => b'1',
                        Value::Z => b'z',
                        Value::X => b'x',
                    })
                    .collect();
                b.signal_change(ids[i], &v).map_err(fst_err)
            }
            _ => Ok(()),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Vcd { inner, .. } => Shared(inner.clone()).flush(),
            // An FST is written whole when it is finished (`Drop`).
            _ => Ok(()),
        }
    }
    fn is_vcd(&self) -> bool {
        matches!(self, Sink::Vcd { .. })
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if let Sink::Fst(b, _) = self {
            if let Some(b) = b.take() {
                if let Err(e) = b.finish() {
                    eprintln!("ntsim: the FST waveform could not be finished: {e}");
                }
            }
        }
    }
}

/// Where a variable's bits are in an engine's signal buffer.
#[derive(Clone, Copy, Debug)]
struct Bound {
    /// First word of the signal; `None`: the Verilog has no such signal (written as x).
    word: Option<usize>,
}

/// A recording in progress: the header written, values written as they change.
pub struct WaveRecorder {
    out: Sink,
    opts: WaveOpts,
    /// The recorded variables.
    vars: Vec<WaveVar>,
    /// Per recorded variable, its last value (words) and whether one was written.
    last: Vec<Vec<u64>>,
    written: Vec<bool>,
    /// For engines with a signal buffer: per recorded variable, where its signal is.
    bound: Vec<Bound>,
    /// Native sampling: the atoms the recorded variables read (by probe index), filled by
    /// the probe walk of a sample.
    needed: Vec<bool>,
    values: Vec<Option<VCDValue>>,
    cursor: usize,
    last_time: Option<u64>,
    err: Option<std::io::Error>,
    scratch: Vec<u64>,
}

fn words(width: u32) -> usize {
    (width as usize).div_ceil(64).max(1)
}

impl WaveRecorder {
    /// Writes the header (timescale 1 fs, the variables `opts` selects) for `layout`.
    pub fn new(file: WaveFile, layout: &WaveLayout, opts: &WaveOpts) -> std::io::Result<Self> {
        let mut w = Sink::open(file)?;
        w.scope(&opts.top)?;
        let mut open: Vec<String> = vec![];
        let mut vars = vec![];
        for v in layout
            .vars
            .iter()
            .filter(|v| opts.selects(&v.scope, &v.name))
        {
            let common = open
                .iter()
                .zip(&v.scope)
                .take_while(|(a, b)| a == b)
                .count();
            for _ in common..open.len() {
                w.upscope()?;
            }
            open.truncate(common);
            for s in &v.scope[common..] {
                w.scope(s)?;
                open.push(s.clone());
            }
            // FST has no strings: an enum is its state's index there.
            let string = v.states.is_some() && w.is_vcd();
            w.var(&v.name, v.width, string)?;
            vars.push(v.clone());
        }
        for _ in 0..open.len() {
            w.upscope()?;
        }
        w.upscope()?;
        w.end_header()?;
        let mut needed = vec![false; layout.atoms.len()];
        for v in &vars {
            needed[v.atom] = true;
        }
        if let Some((path, dump)) = &opts.save_file {
            std::fs::write(path, gtkw(dump, &opts.top, &vars))
                .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
        }
        let n = vars.len();
        Ok(WaveRecorder {
            out: w,
            opts: opts.clone(),
            last: vars.iter().map(|v| vec![0; words(v.width)]).collect(),
            written: vec![false; n],
            bound: vec![],
            vars,
            needed,
            values: vec![None; layout.atoms.len()],
            cursor: 0,
            last_time: None,
            err: None,
            scratch: vec![],
        })
    }

    /// The number of variables recorded.
    pub fn len(&self) -> usize {
        self.vars.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// Whether cycle `cycle` is in the recorded window.
    pub fn records(&self, cycle: u64) -> bool {
        self.opts.in_window(cycle)
    }

    /// Binds the variables to an engine's signal buffer: `signals` lists its signals as
    /// (flattened Verilog name, width), each taking `ceil(width / 64)` words in order. A
    /// variable whose signal is missing is written as `x`; the count of those is returned.
    pub fn bind(&mut self, layout: &WaveLayout, signals: &[(String, u32)]) -> usize {
        let mut at = HashMap::new();
        let mut off = 0;
        for (n, w) in signals {
            at.insert(n.as_str(), off);
            off += words(*w);
        }
        self.scratch = vec![0; off];
        let mut missing = 0;
        self.bound = self
            .vars
            .iter()
            .map(|v| {
                let a = &layout.atoms[v.atom];
                let word = a.verilog.iter().find_map(|n| at.get(n.as_str()).copied());
                missing += (word.is_none() && !v.clock) as usize;
                Bound { word }
            })
            .collect();
        missing
    }

    fn start(&mut self, t_fs: u64) -> std::io::Result<bool> {
        if self.last_time.is_some_and(|t| t >= t_fs) {
            return Ok(false); // already sampled at this time
        }
        self.out.time(t_fs)?;
        self.last_time = Some(t_fs);
        Ok(true)
    }

    /// Writes the changes at time `t_fs` of a native block (read through the probe; the
    /// block's own clock signal says the clock's level).
    pub fn sample_block(&mut self, t_fs: u64, uut: &dyn Block) -> std::io::Result<()> {
        if !self.start(t_fs)? {
            return Ok(());
        }
        self.cursor = 0;
        uut.accept("top", self);
        if let Some(e) = self.err.take() {
            return Err(e);
        }
        let mut buf = vec![];
        for i in 0..self.vars.len() {
            let v = &self.vars[i];
            buf.clear();
            buf.resize(words(v.width), 0);
            if let Some(x) = self.values[v.atom].as_ref() {
                native_value(x, &v.field, v.states.as_deref(), &mut buf);
            }
            self.put(i, &buf)?;
        }
        Ok(())
    }

    /// Writes the changes at time `t_fs` from an engine's signal buffer (laid out as given
    /// to [`WaveRecorder::bind`]); `high`: the clock's level.
    pub fn sample_words(&mut self, t_fs: u64, buf: &[u64], high: bool) -> std::io::Result<()> {
        if !self.start(t_fs)? {
            return Ok(());
        }
        let mut v = std::mem::take(&mut self.scratch);
        for i in 0..self.vars.len() {
            let (var, b) = (&self.vars[i], self.bound[i]);
            let n = words(var.width);
            v.clear();
            v.resize(n, 0);
            if var.clock {
                v[0] = high as u64;
            } else if let Some(w0) = b.word {
                for (k, o) in v.iter_mut().enumerate() {
                    *o = bits_at(
                        buf,
                        w0,
                        var.offset as usize + 64 * k,
                        var.width as usize - 64 * k,
                    );
                }
            } else {
                v[0] = u64::MAX; // no signal: x
            }
            self.put(i, &v)?;
        }
        self.scratch = v;
        Ok(())
    }

    /// Writes variable `i`'s value if it changed.
    fn put(&mut self, i: usize, v: &[u64]) -> std::io::Result<()> {
        if self.written[i] && self.last[i] == v {
            return Ok(());
        }
        let var = &self.vars[i];
        if self
            .bound
            .get(i)
            .is_some_and(|b| b.word.is_none() && !var.clock)
        {
            let x = vec![Value::X; var.width as usize];
            self.out.change(i, &x, None)?;
        } else {
            let width = var.width as usize;
            let bits: Vec<Value> = (0..width)
                .rev()
                .map(|b| {
                    if (v[b / 64] >> (b % 64)) & 1 == 1 {
                        Value::V1
                    } else {
                        Value::V0
                    }
                })
                .collect();
            let text = match &var.states {
                Some(st) if self.out.is_vcd() => {
                    Some(st.get(v[0] as usize).map(String::as_str).unwrap_or("?"))
                }
                _ => None,
            };
            self.out.change(i, &bits, text)?;
        }
        self.last[i].copy_from_slice(v);
        self.written[i] = true;
        Ok(())
    }

    /// Flushes the underlying writer (an FST is written when the recorder is dropped).
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Up to 64 bits of `buf` from word `w0`, bit `off` on (at most `n` of them).
fn bits_at(buf: &[u64], w0: usize, off: usize, n: usize) -> u64 {
    let n = n.min(64);
    let (w, b) = (w0 + off / 64, off % 64);
    let lo = buf.get(w).copied().unwrap_or(0) >> b;
    let hi = if b > 0 {
        buf.get(w + 1).copied().unwrap_or(0) << (64 - b)
    } else {
        0
    };
    let v = lo | hi;
    if n == 64 {
        v
    } else {
        v & ((1u64 << n) - 1)
    }
}

/// The words of field `field` of a native value.
fn native_value(x: &VCDValue, field: &[usize], states: Option<&[String]>, out: &mut [u64]) {
    let mut x = x;
    for &f in field {
        match x {
            VCDValue::Composite(v) if f < v.len() => x = &v[f],
            _ => return,
        }
    }
    match x {
        VCDValue::Single(v) => out[0] = (*v == Value::V1) as u64,
        VCDValue::Vector(bits) => {
            for (i, b) in bits.iter().rev().enumerate() {
                if *b == Value::V1 {
                    out[i / 64] |= 1 << (i % 64);
                }
            }
        }
        VCDValue::String(s) => {
            out[0] = states
                .and_then(|st| st.iter().position(|n| n == s))
                .unwrap_or(usize::MAX) as u64
        }
        VCDValue::Composite(_) => {}
    }
}

impl Probe for WaveRecorder {
    fn visit_atom(&mut self, _name: &str, signal: &dyn Atom) {
        let i = self.cursor;
        self.cursor += 1;
        match self.needed.get(i) {
            Some(true) => self.values[i] = Some(signal.vcd()),
            Some(false) => {}
            None => {
                self.err = Some(std::io::Error::other(
                    "VCD: the block has more signals than when its waveform began",
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_dotted_paths() {
        assert!(glob("h1.parser.*", "h1.parser.sink.valid"));
        assert!(glob("*.ready", "s0.rx[3].ready"));
        assert!(glob("h?.vq", "h1.vq"));
        assert!(!glob("h1.vq", "h1.vq2"));
        assert!(!glob("*.ready", "s0.ready_n"));
        assert!(glob("*", ""));
        let o = WaveOpts {
            top: "h1".into(),
            scopes: vec!["h1.parser".into()],
            ..Default::default()
        };
        assert!(o.selects(&["parser".into(), "sink".into()], "valid"));
        assert!(!o.selects(&["ingress".into()], "parser"));
    }

    #[test]
    fn windows_parse_or_say_why_not() {
        assert_eq!(WaveOpts::parse_window("10..20"), Ok((10, Some(20))));
        assert_eq!(WaveOpts::parse_window("10.."), Ok((10, None)));
        assert_eq!(WaveOpts::parse_window("..20"), Ok((0, Some(20))));
        for bad in ["20..10", "5..5", "a..b", "12", ""] {
            let e = WaveOpts::parse_window(bad).expect_err(bad);
            assert!(e.starts_with("cycle window"), "{e}");
        }
    }

    #[test]
    fn array_elements_read_as_indices() {
        assert_eq!(display_name("rx$10"), "rx[10]");
        assert_eq!(display_name("m$2$3"), "m[2][3]");
        assert_eq!(display_name("plain"), "plain");
    }

    #[test]
    fn bits_cross_word_boundaries() {
        let buf = [0xffff_0000_0000_0000u64, 0x0000_0000_0000_00abu64];
        assert_eq!(bits_at(&buf, 0, 48, 24), 0xab_ffff);
        assert_eq!(bits_at(&buf, 1, 0, 8), 0xab);
        assert_eq!(bits_at(&buf, 0, 0, 64), 0xffff_0000_0000_0000);
    }
}
