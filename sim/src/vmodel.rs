//! A verilated block in this process: the emitted Verilog built by Verilator into a shared
//! library with a small C ABI, loaded with `dlopen`, and stepped from Rust.
//!
//! [`VLib::get`] builds (or finds in its cache) one library per Verilog text; every
//! [`VModel`] is one instance of it with its own Verilator context, so several devices of
//! one kind share a library and step independently (also on different threads).
//!
//! # The C ABI (generated per module by [`wrapper_cpp`])
//! * `ntv_new()` / `ntv_free(h)`: an instance with every register at 0 (`--x-initial 0`)
//!   and the clock low.
//! * `ntv_cycle(h, in, out)`: one clock cycle, as the native kernel runs it: drive the
//!   inputs with the clock low, evaluate, copy the outputs (this cycle's, combinational
//!   paths from the inputs included), raise the clock, evaluate.
//! * `ntv_read(h, out)`: the outputs now (after the last rising edge: the registers' new
//!   values, e.g. counters at the end of a run).
//! * `ntv_ports()`: the port list the library was built for, checked on load.
//!
//! Inputs and outputs are packed into `u32` words, each port at its own word offset
//! (`ceil(width / 32)` words, least significant word first), inputs and outputs in
//! separate buffers in [`crate::ports::list_ports`] order.
//!
//! # Build and cache
//! The library is built with Verilator's own make rules (`--cc --exe --build`, `-O3`,
//! 2-state with X as 0, the wrapper as the "executable" linked `-shared`, `-fPIC`), in the
//! user's cache directory ([`cache_root`]: `$NTSIM_VERILATOR_CACHE` if set, else
//! `$XDG_CACHE_HOME/ntsim`, else `$HOME/.cache/ntsim`; `<temp dir>/ntsim-verilated` only
//! without a home), in a directory named by a hash of the Verilog, the wrapper and
//! `verilator --version`. A build goes to a private directory that is renamed into place
//! when complete, so concurrent processes never load a half-built library. Delete the
//! directory to rebuild; nothing else is cached.
//!
//! # Replaying recorded ports
//! [`replay`] runs a [`PortRecorder`]'s vectors through a model of a Verilog text and
//! compares every output every cycle, as the C++ harness of [`crate::verilator`] does (the
//! same sampling point: outputs read after the inputs are driven with the clock low, before
//! the rising edge), but through the cached library: each Verilog text is verilated once,
//! not once per replay. The co-simulation tests use it.
use crate::ports::{list_ports, Dir, Port, PortRecorder};
use crate::verilator::{mangle, which, Replay};
use rust_hdl::core::prelude::Block;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *const c_char;
}
const RTLD_NOW: c_int = 2;

type NewFn = unsafe extern "C" fn() -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type CycleFn = unsafe extern "C" fn(*mut c_void, *const u32, *mut u32);
type ReadFn = unsafe extern "C" fn(*mut c_void, *mut u32);
type PortsFn = unsafe extern "C" fn() -> *const c_char;
type SigWordsFn = unsafe extern "C" fn() -> usize;
type TraceFn = unsafe extern "C" fn(*mut c_void, *const u32, *mut u32, *mut u64, *mut u64);

/// A library's waveform interface (the compiled engine's): its signals as (flattened
/// Verilog name, width), each `ceil(width / 64)` words of the buffer `trace` fills.
pub struct Tracing {
    pub signals: Vec<(String, u32)>,
    pub words: usize,
    trace: TraceFn,
}

/// Where a port sits in the packed buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortRef {
    pub dir: Dir,
    /// Word offset in the input or output buffer.
    pub off: usize,
    pub width: usize,
}

/// A loaded library of one verilated module.
pub struct VLib {
    pub module: String,
    /// What built it.
    pub backend: Backend,
    pub ports: Vec<Port>,
    /// The library file.
    pub path: PathBuf,
    refs: HashMap<String, PortRef>,
    in_words: usize,
    out_words: usize,
    new: NewFn,
    free: FreeFn,
    cycle: CycleFn,
    read: ReadFn,
    /// Present in the compiled engine's libraries (`ntv_sigs`, `ntv_trace`).
    pub tracing: Option<Tracing>,
    /// The waveform layout of the block the library was built from
    /// ([`VLib::of_block_with`]), made when first asked for.
    pub wave: OnceLock<Arc<crate::vcd::WaveLayout>>,
}

// SAFETY: the function pointers are plain C functions of a library that stays loaded for
// the life of the process (never `dlclose`d); instances carry their own state.
unsafe impl Send for VLib {}
unsafe impl Sync for VLib {}

/// Word offsets of `ports` of direction `dir` and the buffer's length in words.
#[doc(hidden)]
pub fn layout(ports: &[Port], dir: Dir) -> (Vec<(String, PortRef)>, usize) {
    let mut off = 0;
    let mut v = vec![];
    for p in ports.iter().filter(|p| p.dir == dir) {
        v.push((
            p.name.clone(),
            PortRef {
                dir,
                off,
                width: p.width,
            },
        ));
        off += p.width.div_ceil(32);
    }
    (v, off)
}

/// `ports` in the order the libraries lay them out: inputs, then outputs, each by name.
/// Callers list a block's ports in different orders (a port record in declaration order,
/// [`crate::rcomp::top_ports`] in the Verilog's); one order means one build per Verilog
/// text. Callers address ports by name ([`VLib::port`], [`VModel::port_refs`]).
fn canonical(ports: &[Port]) -> Vec<Port> {
    let mut v = ports.to_vec();
    v.sort_by(|a, b| (a.dir != Dir::In, &a.name).cmp(&(b.dir != Dir::In, &b.name)));
    v
}

/// The port list as the library reports it (`name:width:in|out` separated by spaces).
fn port_signature(ports: &[Port]) -> String {
    ports
        .iter()
        .map(|p| {
            format!(
                "{}:{}:{}",
                p.name,
                p.width,
                if p.dir == Dir::In { "in" } else { "out" }
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The C++ wrapper of module `module` with `ports` (clock named `clock`).
pub fn wrapper_cpp(module: &str, ports: &[Port]) -> String {
    let (ins, in_words) = layout(ports, Dir::In);
    let (outs, out_words) = layout(ports, Dir::Out);
    let mut c = String::new();
    let _ = writeln!(
        c,
        "// Generated by nt-sim (vmodel.rs) for module {module}. Do not edit."
    );
    c.push_str("#include <verilated.h>\n#include <cstdint>\n");
    let _ = writeln!(c, "#include \"V{module}.h\"");
    let _ = writeln!(
        c,
        "static const char* PORTS = \"{}\";",
        port_signature(ports)
    );
    let _ = writeln!(
        c,
        "struct Inst {{ VerilatedContext ctx; V{module}* top; }};"
    );
    c.push_str("extern \"C\" {\n");
    c.push_str("const char* ntv_ports() { return PORTS; }\n");
    let _ = writeln!(
        c,
        "void* ntv_new() {{ Inst* i = new Inst; i->top = new V{module}(&i->ctx); i->top->clock = 0; return i; }}"
    );
    c.push_str("void ntv_free(void* h) { Inst* i = (Inst*)h; delete i->top; delete i; }\n");
    let _ = writeln!(
        c,
        "static inline void read_outs(V{module}& top, uint32_t* out) {{"
    );
    for (name, r) in &outs {
        c.push_str(&copy_port(name, r, false, "out"));
    }
    c.push_str("}\n");
    c.push_str("void ntv_cycle(void* h, const uint32_t* in, uint32_t* out) {\n");
    let _ = writeln!(c, "    V{module}& top = *((Inst*)h)->top;");
    for (name, r) in &ins {
        c.push_str(&copy_port(name, r, true, "in"));
    }
    c.push_str("    top.clock = 0; top.eval();\n    read_outs(top, out);\n    top.clock = 1; top.eval();\n}\n");
    c.push_str("void ntv_read(void* h, uint32_t* out) { read_outs(*((Inst*)h)->top, out); }\n");
    c.push_str("}\n");
    let _ = writeln!(c, "// {in_words} input words, {out_words} output words");
    c
}

/// C++ lines copying port `name` between the model (`top`) and word buffer `buf` at the
/// port's offset: into the model when `to_model`, out of it otherwise.
fn copy_port(name: &str, r: &PortRef, to_model: bool, buf: &str) -> String {
    let m = mangle(name);
    let o = r.off;
    if r.width <= 32 {
        return if to_model {
            format!("    top.{m} = {buf}[{o}];\n")
        } else {
            format!("    {buf}[{o}] = (uint32_t)top.{m};\n")
        };
    }
    if r.width <= 64 {
        let o1 = o + 1;
        return if to_model {
            format!("    top.{m} = (uint64_t){buf}[{o}] | ((uint64_t){buf}[{o1}] << 32);\n")
        } else {
            format!("    {buf}[{o}] = (uint32_t)top.{m}; {buf}[{o1}] = (uint32_t)((uint64_t)top.{m} >> 32);\n")
        };
    }
    (0..r.width.div_ceil(32))
        .map(|w| {
            if to_model {
                format!("    top.{m}[{w}] = {buf}[{}];\n", o + w)
            } else {
                format!("    {buf}[{}] = top.{m}[{w}];\n", o + w)
            }
        })
        .collect()
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The cache's root directory: `$NTSIM_VERILATOR_CACHE` if set, else `$XDG_CACHE_HOME/ntsim`,
/// else `$HOME/.cache/ntsim`; the temp dir (`<temp dir>/ntsim-verilated`) only without a
/// home directory.
pub fn cache_root() -> PathBuf {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = var("NTSIM_VERILATOR_CACHE") {
        return d;
    }
    // The XDG spec says to ignore a relative $XDG_CACHE_HOME.
    if let Some(d) = var("XDG_CACHE_HOME").filter(|d| d.is_absolute()) {
        return d.join("ntsim");
    }
    if let Some(h) = var("HOME") {
        return h.join(".cache").join("ntsim");
    }
    std::env::temp_dir().join("ntsim-verilated")
}

fn verilator_version() -> Result<String, String> {
    let out = Command::new("verilator")
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run verilator: {e}"))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The C++ flags of every Verilator model (the runtime objects are shared between models
/// built with the same flags, [`runtime_key`]).
const VERILATOR_CFLAGS: &str = "-fPIC";

/// The optimisation of the model's own C++ (make's `OPT_FAST`, `OPT_SLOW`; the runtime keeps
/// Verilator's `-Os`). Measured on 2026-11-27 (gcc 12, Verilator 5.006): `-O1` compiles
/// the retired crosspoint switch_p4 in 57 s of CPU and nic_ndp_n128 in 28 s, against 86 s and 38 s at Verilator's
/// `-Os`, and runs the 4-port NDP incast (`incast3-ndp-big`) as fast (5,500-6,500 cycles/s
/// for both); `-O0` compiles in half the time but runs 5 times slower.
const VERILATOR_OPT: &str = "-O1";

/// Builds the library of `verilog` (top module `module`) into `dir` (which must not exist).
///
/// Verilator's runtime (`verilated.cpp`, `verilated_threads.cpp`: some 8 s of C++ per
/// build, a fifth of a large NIC's) is the same for every model built with the same flags,
/// so it is compiled once and kept in the cache (`verilator-runtime-<hash>/`); each build
/// verilates, drops those objects into its make directory, and lets make build the rest.
fn build(verilog: &str, module: &str, cpp: &str, dir: &Path) -> Result<(), String> {
    let tmp = fresh_tmp(dir)?;
    let v = tmp.join(format!("{module}.v"));
    std::fs::write(&v, verilog).map_err(|e| format!("{}: {e}", v.display()))?;
    let w = tmp.join("ntv_wrapper.cpp");
    std::fs::write(&w, cpp).map_err(|e| format!("{}: {e}", w.display()))?;
    let jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .to_string();
    let obj = tmp.join("obj");
    run(Command::new("verilator")
        .args(["--cc", "--exe", "-O3"])
        .args(["--x-assign", "0", "--x-initial", "0"])
        .args(["-Wno-fatal", "-Wno-lint", "-Wno-style"])
        .args(["-CFLAGS", VERILATOR_CFLAGS, "-LDFLAGS", "-shared"])
        .args(["--top-module", module, "--Mdir"])
        .arg(&obj)
        .args(["-o", "libntv.so"])
        .arg(&v)
        .arg(&w))?;
    let runtime = cache_root().join(format!(
        "verilator-runtime-{:016x}",
        runtime_key(&obj, module)?
    ));
    let seeded = seed_runtime(&runtime, &obj);
    let mut make = Command::new("make");
    make.arg("-C")
        .arg(&obj)
        .args(["-f", &format!("V{module}.mk"), "-j", &jobs])
        .arg(format!("OPT_FAST={VERILATOR_OPT}"))
        .arg(format!("OPT_SLOW={VERILATOR_OPT}"));
    if let Some(pch) = precompiled_header(&obj, module) {
        // Searched before the make directory's `-I.`: see `precompiled_header`.
        make.arg(format!("CXXFLAGS=-I{}", pch.display()));
    }
    run(&mut make)?;
    if !seeded {
        save_runtime(&obj, &runtime);
    }
    // Keep the library and its sources; the objects are rebuilt if ever needed.
    let lib = obj.join("libntv.so");
    std::fs::rename(&lib, tmp.join("libntv.so")).map_err(|e| format!("{}: {e}", lib.display()))?;
    let _ = std::fs::remove_dir_all(&obj);
    move_into_place(&tmp, dir)
}

/// What Verilator's runtime objects depend on: Verilator's version, the C++ flags and the
/// generated makefiles' global settings (`VM_TRACE`, `VM_COVERAGE`, `VM_C11`, ...; not the
/// model's own names and classes).
fn runtime_key(obj: &Path, module: &str) -> Result<u64, String> {
    let mut h = DefaultHasher::new();
    verilator_version()?.hash(&mut h);
    VERILATOR_CFLAGS.hash(&mut h);
    for f in [format!("V{module}.mk"), format!("V{module}_classes.mk")] {
        let p = obj.join(&f);
        let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        for line in text.lines() {
            let global = line.starts_with("VERILATOR_ROOT =")
                || (line.starts_with("VM_")
                    && line.contains(" = ")
                    && !line.starts_with("VM_PREFIX")
                    && !line.starts_with("VM_MODPREFIX")
                    && !line.starts_with("VM_PARALLEL_BUILDS"));
            if global {
                line.hash(&mut h);
            }
        }
    }
    Ok(h.finish())
}

/// A directory holding `verilated.h` precompiled with the exact flags of the model's C++
/// in `obj` (as `make -n` prints them), built once per cache
/// (`verilator-pch-<hash of the flags and the compiler>/`); `None` when it cannot be had, and
/// the build then parses the headers itself.
///
/// Every generated `.cpp` begins with `#include "verilated.h"`, whose headers took about
/// 1.2 s of g++ per file: most of the compile of a small model, and 7 of the 18 s of CPU of
/// `nic_ndp`'s 12 files (measured 2026-11-27, gcc 12, Verilator 5.006: 17.7 s -> 10.4 s).
/// With `-I<dir>` first on the command line, g++ finds `<dir>/verilated.h.gch` for that first
/// include and uses it when the flags match (else it silently reads the header). The
/// directory also holds a copy of `verilated.h`: g++ resolves the model header's second
/// include of it there, where the include guard (already defined) skips it.
fn precompiled_header(obj: &Path, module: &str) -> Option<PathBuf> {
    let out = Command::new("make")
        .arg("-C")
        .arg(obj)
        .args(["-s", "-n", "-f", &format!("V{module}.mk")])
        .arg(format!("OPT_FAST={VERILATOR_OPT}"))
        .arg(format!("OPT_SLOW={VERILATOR_OPT}"))
        .arg(format!("V{module}.o"))
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains(&format!("V{module}.cpp")))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let (cxx, rest) = words.split_first()?;
    // The compile line minus its input, output and dependency file.
    let mut flags = vec![];
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            "-c" | "-MMD" | "-MP" => {}
            "-o" => i += 1,
            w if w.ends_with(".cpp") => {}
            w => flags.push(w.to_string()),
        }
        i += 1;
    }
    let header = flags
        .iter()
        .filter_map(|f| f.strip_prefix("-I"))
        .map(|d| Path::new(d).join("verilated.h"))
        .find(|h| h.is_absolute() && h.is_file())?;
    let version = Command::new(cxx).arg("--version").output().ok()?;
    let mut h = DefaultHasher::new();
    (cxx, &flags, &header, &version.stdout).hash(&mut h);
    let dir = cache_root().join(format!("verilator-pch-{:016x}", h.finish()));
    if dir.join("verilated.h.gch").is_file() {
        return Some(dir);
    }
    let tmp = fresh_tmp(&dir).ok()?;
    let built = Command::new(cxx)
        .current_dir(obj)
        .args(&flags)
        .args(["-x", "c++-header"])
        .arg(&header)
        .arg("-o")
        .arg(tmp.join("verilated.h.gch"))
        .output()
        .is_ok_and(|o| o.status.success())
        && std::fs::copy(&header, tmp.join("verilated.h")).is_ok();
    if !built || (std::fs::rename(&tmp, &dir).is_err() && !dir.join("verilated.h.gch").is_file()) {
        let _ = std::fs::remove_dir_all(&tmp);
        return None;
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Some(dir)
}

/// Copies the cached runtime objects (if any) into the make directory `obj`, newer than
/// its makefiles, so that make keeps them; true if it did.
fn seed_runtime(runtime: &Path, obj: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(runtime) else {
        return false;
    };
    let mut any = false;
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "o") {
            if std::fs::copy(&p, obj.join(e.file_name())).is_err() {
                // No partial object: make compiles the missing ones itself.
                let _ = std::fs::remove_file(obj.join(e.file_name()));
                return false;
            }
            any = true;
        }
    }
    any
}

/// Keeps the runtime objects make built in `obj` (`verilated*.o`) for later builds; a
/// failure only means the next build compiles them again.
fn save_runtime(obj: &Path, runtime: &Path) {
    let Ok(tmp) = fresh_tmp(runtime) else {
        return;
    };
    let mut any = false;
    for e in std::fs::read_dir(obj).into_iter().flatten().flatten() {
        let name = e.file_name();
        let n = name.to_string_lossy();
        if n.starts_with("verilated") && n.ends_with(".o") {
            any |= std::fs::copy(e.path(), tmp.join(&name)).is_ok();
        }
    }
    if !any || std::fs::rename(&tmp, runtime).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
}

/// A fresh private build directory beside `dir` (named by this process and call).
fn fresh_tmp(dir: &Path) -> Result<PathBuf, String> {
    // Unique per process and per call: threads of one process build concurrently.
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.with_extension(format!("tmp{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    Ok(tmp)
}

/// Renames the finished build `tmp` to `dir`, so that no process loads a half-built library.
fn move_into_place(tmp: &Path, dir: &Path) -> Result<(), String> {
    match std::fs::rename(tmp, dir) {
        Ok(()) => Ok(()),
        // Another process finished the same build first: use its library.
        Err(_) if dir.join("libntv.so").is_file() => {
            let _ = std::fs::remove_dir_all(tmp);
            Ok(())
        }
        Err(e) => Err(format!("cannot move {} into place: {e}", tmp.display())),
    }
}

unsafe fn sym<T: Copy>(h: *mut c_void, name: &str) -> Result<T, String> {
    let n = CString::new(name).expect("symbol name");
    let p = dlsym(h, n.as_ptr());
    if p.is_null() {
        return Err(format!("symbol {name} missing"));
    }
    Ok(std::mem::transmute_copy(&p))
}

/// The waveform interface of library `h`, if it has one.
unsafe fn tracing(h: *mut c_void) -> Option<Tracing> {
    let sigs: PortsFn = sym(h, "ntv_sigs").ok()?;
    let words: SigWordsFn = sym(h, "ntv_sig_words").ok()?;
    let list = CStr::from_ptr(sigs()).to_string_lossy().to_string();
    let signals = list
        .split_whitespace()
        .map(|t| {
            let (n, w) = t.rsplit_once(':')?;
            Some((n.to_string(), w.parse().ok()?))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Tracing {
        signals,
        words: words(),
        trace: sym(h, "ntv_trace").ok()?,
    })
}

fn load(path: &Path, module: &str, ports: &[Port], backend: Backend) -> Result<VLib, String> {
    let c = CString::new(path.as_os_str().to_string_lossy().as_bytes())
        .map_err(|_| format!("{}: NUL in path", path.display()))?;
    // SAFETY: dlopen/dlsym with valid C strings; the symbols have the types the wrapper
    // defines (checked by their names and by the port signature below).
    unsafe {
        let h = dlopen(c.as_ptr(), RTLD_NOW);
        if h.is_null() {
            let e = dlerror();
            let msg = if e.is_null() {
                "unknown error".into()
            } else {
                CStr::from_ptr(e).to_string_lossy().to_string()
            };
            return Err(format!("cannot load {}: {msg}", path.display()));
        }
        let ports_fn: PortsFn = sym(h, "ntv_ports")?;
        let sig = CStr::from_ptr(ports_fn()).to_string_lossy().to_string();
        if sig != port_signature(ports) {
            return Err(format!(
                "{} was built for other ports than {module}'s; delete it to rebuild",
                path.display()
            ));
        }
        let (ins, in_words) = layout(ports, Dir::In);
        let (outs, out_words) = layout(ports, Dir::Out);
        Ok(VLib {
            module: module.to_string(),
            backend,
            ports: ports.to_vec(),
            path: path.to_path_buf(),
            refs: ins.into_iter().chain(outs).collect(),
            in_words,
            out_words,
            new: sym(h, "ntv_new")?,
            free: sym(h, "ntv_free")?,
            cycle: sym(h, "ntv_cycle")?,
            read: sym(h, "ntv_read")?,
            tracing: tracing(h),
            wave: OnceLock::new(),
        })
    }
}

/// One slot per library directory, filled once loaded.
type Slot = Arc<Mutex<Option<Arc<VLib>>>>;

fn loaded() -> &'static Mutex<HashMap<PathBuf, Slot>> {
    static L: OnceLock<Mutex<HashMap<PathBuf, Slot>>> = OnceLock::new();
    L.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The library in `dir`: loaded already in this process, found in the cache, or built now
/// by `build` (a line on stderr says so). Threads asking for one library wait for a single
/// build; different libraries build concurrently (e.g. parallel tests).
fn cached(
    dir: &Path,
    module: &str,
    ports: &[Port],
    backend: Backend,
    build: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<Arc<VLib>, String> {
    let slot = loaded()
        .lock()
        .map_err(|_| "library cache poisoned")?
        .entry(dir.to_path_buf())
        .or_default()
        .clone();
    let mut slot = slot.lock().map_err(|_| "library cache poisoned")?;
    if let Some(l) = slot.as_ref() {
        return Ok(l.clone());
    }
    let path = dir.join("libntv.so");
    if !path.is_file() {
        std::fs::create_dir_all(cache_root())
            .map_err(|e| format!("cannot create {}: {e}", cache_root().display()))?;
        let what = match backend {
            Backend::Verilator => "verilating it for the Verilator engine",
            Backend::Compiled => "compiling it to Rust for the compiled engine",
        };
        eprintln!(
            "ntsim: {module}: {what} (once; cached in {})",
            dir.display()
        );
        build(dir)?;
    }
    let lib = Arc::new(load(&path, module, ports, backend)?);
    *slot = Some(lib.clone());
    Ok(lib)
}

/// What builds a block's library: Verilator, or our own compiler of the Verilog to Rust
/// ([`crate::rcomp`], built with `rustc`). Both export the same C ABI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Verilator,
    Compiled,
}

impl Backend {
    /// `verilator` or `compiled`, as the CLI names the engine.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Verilator => "verilator",
            Backend::Compiled => "compiled",
        }
    }
}

fn rustc_version() -> Result<String, String> {
    let out = Command::new("rustc").arg("-V").output().map_err(|e| {
        format!("cannot run rustc (the compiled engine builds its models with it): {e}")
    })?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Builds the compiled model `source` into `dir` (which must not exist), as [`build`] does
/// for Verilator.
fn build_rust(source: &str, dir: &Path) -> Result<(), String> {
    let tmp = fresh_tmp(dir)?;
    let src = tmp.join("model.rs");
    std::fs::write(&src, source).map_err(|e| format!("{}: {e}", src.display()))?;
    run(Command::new("rustc")
        .args([
            "--edition",
            "2021",
            "--crate-type",
            "cdylib",
            "--crate-name",
            "ntmodel",
        ])
        .args([
            "-C",
            "opt-level=3",
            "-C",
            "debuginfo=0",
            "-C",
            "panic=abort",
        ])
        .arg("-o")
        .arg(tmp.join("libntv.so"))
        .arg(&src))?;
    move_into_place(&tmp, dir)
}

impl VLib {
    /// [`VLib::get`] with `backend` building the library.
    pub fn get_with(
        backend: Backend,
        verilog: &str,
        module: &str,
        ports: &[Port],
    ) -> Result<Arc<VLib>, String> {
        if backend == Backend::Verilator {
            return VLib::get(verilog, module, ports);
        }
        let ports = &canonical(ports);
        // Devices of one block share its model: compile the Verilog once per process.
        let mut k = DefaultHasher::new();
        (verilog, module, port_signature(ports)).hash(&mut k);
        static BY_SOURCE: OnceLock<Mutex<HashMap<u64, Arc<VLib>>>> = OnceLock::new();
        let by_source = BY_SOURCE.get_or_init(|| Mutex::new(HashMap::new()));
        if let Some(l) = by_source
            .lock()
            .map_err(|_| "library cache poisoned")?
            .get(&k.finish())
        {
            return Ok(l.clone());
        }
        let design = crate::rcomp::elaborate(verilog, module)
            .map_err(|e| format!("compiling {module}: {e}"))?;
        let source = crate::rcomp::generate(&design, ports)
            .map_err(|e| format!("compiling {module}: {e}"))?;
        let mut h = DefaultHasher::new();
        source.hash(&mut h);
        rustc_version()?.hash(&mut h);
        let dir = cache_root().join(format!("{module}-rs-{:016x}", h.finish()));
        let lib = cached(&dir, module, ports, Backend::Compiled, |d| {
            build_rust(&source, d)
        })?;
        by_source
            .lock()
            .map_err(|_| "library cache poisoned")?
            .insert(k.finish(), lib.clone());
        Ok(lib)
    }

    /// [`VLib::of_block`] with `backend` building the library.
    pub fn of_block_with<B: Block>(
        backend: Backend,
        module: &str,
        make: impl Fn() -> B,
    ) -> Result<Arc<VLib>, String> {
        let ports = list_ports(&make(), "clock")?;
        let uut = make();
        let verilog = nt_hdl::emit::emit_verilog(module, make()).map_err(|e| e.to_string())?;
        let lib = VLib::get_with(backend, &verilog, module, &ports)?;
        lib.wave
            .get_or_init(|| Arc::new(crate::vcd::WaveLayout::of_block(&uut)));
        Ok(lib)
    }

    /// The library of `verilog` (top module `module`, ports `ports`, clock `clock`):
    /// loaded already in this process, found in the cache, or built now (minutes for a
    /// large block; a line on stderr says so).
    pub fn get(verilog: &str, module: &str, ports: &[Port]) -> Result<Arc<VLib>, String> {
        if which("verilator").is_none() {
            return Err(
                "the Verilator engine needs verilator: run the README's test command, which installs it"
                    .into(),
            );
        }
        let ports = &canonical(ports);
        let cpp = wrapper_cpp(module, ports);
        let mut h = DefaultHasher::new();
        verilog.hash(&mut h);
        cpp.hash(&mut h);
        verilator_version()?.hash(&mut h);
        let dir = cache_root().join(format!("{module}-{:016x}", h.finish()));
        cached(&dir, module, ports, Backend::Verilator, |d| {
            build(verilog, module, &cpp, d)
        })
    }

    /// The library of a rust-hdl block: its Verilog emitted as module `module`.
    pub fn of_block<B: Block>(module: &str, make: impl Fn() -> B) -> Result<Arc<VLib>, String> {
        VLib::of_block_with(Backend::Verilator, module, make)
    }

    /// Where port `name` sits; an error names the module and port.
    pub fn port(&self, name: &str) -> Result<PortRef, String> {
        self.refs
            .get(name)
            .copied()
            .ok_or_else(|| format!("{} has no port {name:?}", self.module))
    }
}

/// One instance of a verilated module.
pub struct VModel {
    lib: Arc<VLib>,
    h: *mut c_void,
    inp: Vec<u32>,
    out: Vec<u32>,
    /// Cycles run so far.
    cycles: u64,
    wave: Option<Wave>,
}

/// A waveform being recorded from a library's signal buffer.
struct Wave {
    rec: crate::vcd::WaveRecorder,
    pre: Vec<u64>,
    post: Vec<u64>,
    period_fs: u64,
}

// SAFETY: an instance's state is only touched through `&mut self` (or `&self` for a read
// of its outputs), never shared; Verilator models carry no thread affinity.
unsafe impl Send for VModel {}

impl VModel {
    pub fn new(lib: Arc<VLib>) -> Self {
        // SAFETY: `new` is the library's `ntv_new`.
        let h = unsafe { (lib.new)() };
        let (i, o) = (lib.in_words.max(1), lib.out_words.max(1));
        VModel {
            lib,
            h,
            inp: vec![0; i],
            out: vec![0; o],
            cycles: 0,
            wave: None,
        }
    }

    /// Records the signals `opts` selects to `w` (VCD or FST) from the next cycle on, at a clock
    /// period of `period_fs` ([`crate::vcd`]: the same variables as the native kernel's
    /// waveform of the block). Only the compiled engine's libraries can; a variable whose
    /// signal the Verilog lacks is written as `x`.
    pub fn record_wave(
        &mut self,
        w: crate::vcd::WaveFile,
        opts: &crate::vcd::WaveOpts,
        period_fs: u64,
    ) -> Result<(), String> {
        let t = self.lib.tracing.as_ref().ok_or_else(|| {
            format!(
                "{}: the {} engine records no waveform: use the compiled or the native engine",
                self.lib.module,
                self.lib.backend.name()
            )
        })?;
        let layout = self.lib.wave.get().ok_or_else(|| {
            format!(
                "{}: no waveform layout (the library was not built from a block)",
                self.lib.module
            )
        })?;
        let mut rec = crate::vcd::WaveRecorder::new(w, layout, opts)
            .map_err(|e| format!("{}: waveform: {e}", self.lib.module))?;
        rec.bind(layout, &t.signals);
        self.wave = Some(Wave {
            rec,
            pre: vec![0; t.words],
            post: vec![0; t.words],
            period_fs,
        });
        Ok(())
    }

    pub fn lib(&self) -> &VLib {
        &self.lib
    }

    /// Sets input `p` (≤ 64 bits) for the next cycles; bits above its width are dropped.
    pub fn set(&mut self, p: PortRef, v: u64) {
        debug_assert!(p.dir == Dir::In && p.width <= 64);
        let v = if p.width < 64 {
            v & ((1u64 << p.width) - 1)
        } else {
            v
        };
        self.inp[p.off] = v as u32;
        if p.width > 32 {
            self.inp[p.off + 1] = (v >> 32) as u32;
        }
    }

    /// The packed input words (see the module documentation), for drivers that set ports
    /// of any width; bits above a port's width must stay 0.
    pub fn input_words(&mut self) -> &mut [u32] {
        &mut self.inp
    }

    /// The packed output words of the last [`VModel::cycle`].
    pub fn output_words(&self) -> &[u32] {
        &self.out
    }

    /// Where each port sits: `(name, ref)` in the library's port order.
    pub fn port_refs(&self) -> Vec<(String, PortRef)> {
        let (ins, _) = layout(&self.lib.ports, Dir::In);
        let (outs, _) = layout(&self.lib.ports, Dir::Out);
        ins.into_iter().chain(outs).collect()
    }

    /// Output `p` (≤ 64 bits) of the last [`VModel::cycle`].
    pub fn get(&self, p: PortRef) -> u64 {
        word_get(&self.out, p)
    }

    /// One clock cycle (see the module documentation); the outputs read are this cycle's.
    pub fn cycle(&mut self) {
        let c = self.cycles;
        self.cycles += 1;
        if let (Some(w), Some(t)) = (self.wave.as_mut(), self.lib.tracing.as_ref()) {
            if w.rec.records(c) {
                // SAFETY: as below, and `pre`/`post` have the library's `ntv_sig_words`.
                unsafe {
                    (t.trace)(
                        self.h,
                        self.inp.as_ptr(),
                        self.out.as_mut_ptr(),
                        w.pre.as_mut_ptr(),
                        w.post.as_mut_ptr(),
                    )
                };
                let t0 = c * w.period_fs;
                let r = w
                    .rec
                    .sample_words(t0, &w.pre, false)
                    .and_then(|_| w.rec.sample_words(t0 + w.period_fs / 2, &w.post, true));
                if let Err(e) = r {
                    eprintln!("ntsim: {}: waveform stopped: {e}", self.lib.module);
                    self.wave = None;
                }
                return;
            }
        }
        // SAFETY: the buffers have the library's input and output lengths.
        unsafe { (self.lib.cycle)(self.h, self.inp.as_ptr(), self.out.as_mut_ptr()) }
    }

    /// Flushes the waveform being recorded, if any.
    pub fn flush_wave(&mut self) -> Result<(), String> {
        match self.wave.as_mut() {
            Some(w) => w.rec.flush().map_err(|e| e.to_string()),
            None => Ok(()),
        }
    }

    /// The outputs as they are now (after the last rising edge), apart from the last
    /// cycle's.
    pub fn snapshot(&self) -> Outputs {
        let mut o = vec![0; self.out.len()];
        // SAFETY: as in `cycle`; `ntv_read` only reads the model.
        unsafe { (self.lib.read)(self.h, o.as_mut_ptr()) };
        Outputs(o)
    }
}

/// Output values read by [`VModel::snapshot`].
pub struct Outputs(Vec<u32>);

impl Outputs {
    /// The packed words.
    pub fn words(&self) -> &[u32] {
        &self.0
    }

    pub fn get(&self, p: PortRef) -> u64 {
        word_get(&self.0, p)
    }
}

fn word_get(buf: &[u32], p: PortRef) -> u64 {
    debug_assert!(p.dir == Dir::Out && p.width <= 64);
    let lo = buf[p.off] as u64;
    if p.width > 32 {
        lo | (buf[p.off + 1] as u64) << 32
    } else {
        lo
    }
}

/// Parses the hex string `tok` (most significant digit first) into `w`, least significant
/// word first, as the C++ harness does; `None` on a character that is not a hex digit.
#[doc(hidden)]
pub fn parse_hex(tok: &str, w: &mut [u32]) -> Option<()> {
    w.fill(0);
    for (i, ch) in tok.bytes().rev().enumerate() {
        let v = (ch as char).to_digit(16)?;
        let bit = i * 4;
        if let Some(x) = w.get_mut(bit / 32) {
            *x |= v << (bit % 32);
        }
    }
    Some(())
}

/// Hex string (most significant digit first, `ceil(width / 4)` digits) of words `w`.
#[doc(hidden)]
pub fn to_hex(w: &[u32], width: usize) -> String {
    (0..width.div_ceil(4).max(1))
        .rev()
        .map(|d| {
            let v = (w[d * 4 / 32] >> (d * 4 % 32)) & 0xf;
            char::from_digit(v, 16).expect("a nibble")
        })
        .collect()
}

/// Replays `rec` on `verilog` (top module `module`, clock `clock`) through a [`VModel`] of
/// the cached library ([`VLib::get`]): each cycle drives the recorded inputs, steps the
/// model ([`VModel::cycle`]: inputs with the clock low, evaluate, read the outputs, rising
/// edge) and compares every output, masked to its width, with the recorded value. Stops at
/// the first mismatch with its cycle and signal, as [`crate::verilator::Harness::check`]
/// reports it.
pub fn replay(verilog: &str, module: &str, rec: &PortRecorder) -> Result<Replay, String> {
    let lib = VLib::get(verilog, module, &rec.ports)?;
    let mut m = VModel::new(lib);
    let refs = rec
        .ports
        .iter()
        .map(|p| m.lib().port(&p.name))
        .collect::<Result<Vec<_>, _>>()?;
    let mut want = vec![0u32; m.output_words().len()];
    for (c, row) in rec.rows.iter().enumerate() {
        if row.len() != rec.ports.len() {
            return Err(format!(
                "cycle {c}: {} values for {} ports",
                row.len(),
                rec.ports.len()
            ));
        }
        let bad = |i: usize| format!("bad vector line {c}, port {}", rec.ports[i].name);
        let inp = m.input_words();
        for (i, r) in refs.iter().enumerate().filter(|(_, r)| r.dir == Dir::In) {
            parse_hex(&row[i], &mut inp[r.off..r.off + r.width.div_ceil(32)])
                .ok_or_else(|| bad(i))?;
        }
        m.cycle();
        let out = m.output_words();
        for (i, r) in refs.iter().enumerate().filter(|(_, r)| r.dir == Dir::Out) {
            let nw = r.width.div_ceil(32);
            let want = &mut want[..nw];
            parse_hex(&row[i], want).ok_or_else(|| bad(i))?;
            let top = match r.width % 32 {
                0 => u32::MAX,
                b => (1u32 << b) - 1,
            };
            let got = |k: usize| out[r.off + k] & if k + 1 == nw { top } else { u32::MAX };
            if (0..nw).any(|k| got(k) != want[k]) {
                let got: Vec<u32> = (0..nw).map(got).collect();
                return Ok(Replay::Mismatch {
                    cycle: c as u64,
                    signal: rec.ports[i].name.clone(),
                    expected: to_hex(want, r.width),
                    got: to_hex(&got, r.width),
                });
            }
        }
    }
    Ok(Replay::Match {
        cycles: rec.rows.len() as u64,
    })
}

impl Drop for VModel {
    fn drop(&mut self) {
        // SAFETY: `h` came from this library's `ntv_new` and is freed once.
        unsafe { (self.lib.free)(self.h) }
    }
}
