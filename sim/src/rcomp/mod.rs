//! A compiler from the Verilog `ntsim verilog` emits to Rust: the native fast engine.
//!
//! rust-hdl's simulation re-evaluates every block of the hierarchy until no signal changes
//! (16 passes a cycle on a NIC), through `Signal` objects. This compiler instead takes the
//! block's emitted Verilog and produces one flat Rust model, as Verilator does for C++:
//! 1. [`parse`] the modules (the subset the generator writes; anything else is an error);
//! 2. [`elaborate`] from the top: every instance's signals become fields of one struct,
//!    ports are the parent's signals (no copies), the clock wiring is checked and dropped;
//! 3. schedule: each `always @(*)` is cut into its top-level statements, which are ordered
//!    once by their data dependencies (within a block in program order, across blocks
//!    every writer of a signal before its readers), so one pass settles a cycle; statements
//!    in a dependency cycle (a combinational loop; none in our blocks) are an error that
//!    names a signal of the loop (the Verilator engine iterates such loops);
//! 4. [`generate`] Rust: signals of up to 64 bits are `u64`, wider ones `[u64; K]`, each
//!    operation with Verilog's width rules (unsigned, context-determined widths).
//!
//! The generated source exports the same C ABI as the Verilator wrapper
//! (`crate::vmodel`), so [`crate::vmodel::VLib`] builds it with `rustc` and loads it like a
//! verilated library: every device, testbench and test that runs on the Verilator engine
//! runs on this one (`--engine compiled`).
pub mod parse;
pub mod runtime;

use crate::ports::{Dir, Port};
use parse::{BinOp, Decl, Expr, Kind, LValue, Lit, Module, Stmt, UnOp};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// A signal of the flattened design.
#[derive(Clone, Debug)]
pub struct Sig {
    pub name: String,
    pub width: u32,
    /// Memory depth (a memory is a field of `depth` words).
    pub depth: Option<u32>,
}

/// An expression over flattened signals.
#[derive(Clone, Debug)]
pub enum X {
    Sig(usize),
    Const(Lit),
    Bin(BinOp, Box<X>, Box<X>),
    Un(UnOp, Box<X>),
    Bit(Box<X>, Box<X>),
    Mem(usize, Box<X>),
    Slice(Box<X>, Box<X>, u32),
    Cast(u32, Box<X>),
}

#[derive(Clone, Debug)]
pub enum L {
    Sig(usize),
    Slice(usize, X, u32),
    Mem(usize, X),
}

#[derive(Clone, Debug)]
pub enum S {
    Assign(L, X),
    If(X, Vec<S>, Vec<S>),
}

/// The flattened design.
#[derive(Debug)]
pub struct Design {
    pub top: String,
    pub sigs: Vec<Sig>,
    /// The top's ports: name, signal, direction.
    pub ports: Vec<(String, usize, Dir)>,
    /// The `always @(*)` blocks' statements, one list per block.
    pub comb: Vec<Vec<S>>,
    /// The `always @(posedge clock)` blocks (every one on the top's clock).
    pub seq: Vec<Vec<S>>,
    pub init: Vec<Vec<S>>,
}

enum Name {
    Sig(usize),
    Mem(usize),
    Param(Lit),
}

struct Elab<'a> {
    mods: HashMap<&'a str, &'a Module>,
    d: Design,
    /// Clock signals per seq block, checked after elaboration.
    seq_clocks: Vec<usize>,
}

impl Elab<'_> {
    fn inst(
        &mut self,
        m: &Module,
        path: &str,
        bound: &HashMap<String, usize>,
        depth: usize,
    ) -> Result<(), String> {
        if depth > 64 {
            return Err(format!("{path}: instances nested more than 64 deep"));
        }
        let mut names: HashMap<String, Name> = HashMap::new();
        for (n, l) in &m.params {
            names.insert(n.clone(), Name::Param(l.clone()));
        }
        for (n, decl) in &m.decls {
            let id = match bound.get(n) {
                Some(&id) => {
                    if self.d.sigs[id].width != decl.width || decl.depth.is_some() {
                        return Err(format!(
                            "{path}{n}: port of {} bits bound to a signal of {}",
                            decl.width, self.d.sigs[id].width
                        ));
                    }
                    id
                }
                None => {
                    if decl.kind != Kind::Var && !path.is_empty() {
                        return Err(format!("{path}{n}: port not connected"));
                    }
                    self.d.sigs.push(Sig {
                        name: format!("{path}{n}"),
                        width: decl.width,
                        depth: decl.depth,
                    });
                    self.d.sigs.len() - 1
                }
            };
            let nm = if decl.depth.is_some() {
                Name::Mem(id)
            } else {
                Name::Sig(id)
            };
            if names.insert(n.clone(), nm).is_some() {
                return Err(format!("{path}{n}: declared twice"));
            }
            if path.is_empty() && decl.kind != Kind::Var {
                let dir = if decl.kind == Kind::Input {
                    Dir::In
                } else {
                    Dir::Out
                };
                self.d.ports.push((n.clone(), id, dir));
            }
        }
        for p in &m.ports {
            if !matches!(
                m.decls.iter().find(|(n, _)| n == p),
                Some((_, Decl { kind, .. })) if *kind != Kind::Var
            ) {
                return Err(format!(
                    "{path}{p}: port without an input/output declaration"
                ));
            }
        }
        let cx = |e: &Expr| conv_expr(e, &names, path);
        for b in &m.comb {
            let v = conv_stmts(b, &names, path, false)?;
            self.d.comb.push(v);
        }
        for (clk, b) in &m.seq {
            let c = match names.get(clk) {
                Some(Name::Sig(id)) => *id,
                _ => return Err(format!("{path}{clk}: unknown clock")),
            };
            self.seq_clocks.push(c);
            self.d.seq.push(conv_stmts(b, &names, path, true)?);
        }
        for b in &m.init {
            self.d.init.push(conv_stmts(b, &names, path, false)?);
        }
        for i in &m.insts {
            let child = *self
                .mods
                .get(i.module.as_str())
                .ok_or_else(|| format!("{path}{}: no module {}", i.name, i.module))?;
            let mut b = HashMap::new();
            for (port, e) in &i.conns {
                match cx(e)? {
                    X::Sig(id) => {
                        b.insert(port.clone(), id);
                    }
                    _ => {
                        return Err(format!(
                            "{path}{}.{port}: only a signal can be connected to a port",
                            i.name
                        ))
                    }
                }
            }
            self.inst(child, &format!("{path}{}.", i.name), &b, depth + 1)?;
        }
        Ok(())
    }
}

fn conv_expr(e: &Expr, names: &HashMap<String, Name>, path: &str) -> Result<X, String> {
    let c = |e: &Expr| conv_expr(e, names, path).map(Box::new);
    Ok(match e {
        Expr::Ident(n) => match names.get(n) {
            Some(Name::Sig(id)) => X::Sig(*id),
            Some(Name::Param(l)) => X::Const(l.clone()),
            Some(Name::Mem(_)) => return Err(format!("{path}{n}: a memory used without an index")),
            None => return Err(format!("{path}{n}: not declared")),
        },
        Expr::Lit(l) => X::Const(l.clone()),
        Expr::Int(n) => X::Const(Lit {
            width: 32,
            words: vec![*n & 0xffff_ffff],
        }),
        Expr::Bin(op, a, b) => X::Bin(*op, c(a)?, c(b)?),
        Expr::Un(op, a) => X::Un(*op, c(a)?),
        Expr::Index(a, i) => match a.as_ref() {
            Expr::Ident(n) if matches!(names.get(n), Some(Name::Mem(_))) => {
                let Some(Name::Mem(id)) = names.get(n) else {
                    unreachable!()
                };
                X::Mem(*id, c(i)?)
            }
            _ => X::Bit(c(a)?, c(i)?),
        },
        Expr::Slice(a, off, w) => X::Slice(c(a)?, c(off)?, *w),
        Expr::Cast(w, a) => X::Cast(*w, c(a)?),
    })
}

fn conv_stmts(
    b: &[Stmt],
    names: &HashMap<String, Name>,
    path: &str,
    seq: bool,
) -> Result<Vec<S>, String> {
    let mut v = vec![];
    for s in b {
        v.push(match s {
            Stmt::If { cond, then, els } => S::If(
                conv_expr(cond, names, path)?,
                conv_stmts(then, names, path, seq)?,
                conv_stmts(els, names, path, seq)?,
            ),
            Stmt::Assign {
                lhs,
                rhs,
                nonblocking,
            } => {
                if *nonblocking != seq {
                    return Err(format!(
                        "{path}: {} assignment in {} block",
                        if *nonblocking {
                            "non-blocking"
                        } else {
                            "blocking"
                        },
                        if seq { "a clocked" } else { "a combinational" }
                    ));
                }
                let sig = |n: &str| match names.get(n) {
                    Some(Name::Sig(id)) => Ok(*id),
                    _ => Err(format!("{path}{n}: assigned but not a declared signal")),
                };
                let mem = |n: &str| match names.get(n) {
                    Some(Name::Mem(id)) => Ok(*id),
                    _ => Err(format!("{path}{n}: bit assignment is not supported")),
                };
                let l = match lhs {
                    LValue::Ident(n) => L::Sig(sig(n)?),
                    LValue::Slice(n, off, w) => L::Slice(sig(n)?, conv_expr(off, names, path)?, *w),
                    LValue::Index(n, i) => L::Mem(mem(n)?, conv_expr(i, names, path)?),
                };
                S::Assign(l, conv_expr(rhs, names, path)?)
            }
        });
    }
    Ok(v)
}

/// Parses `src` and flattens the hierarchy under module `top`.
pub fn elaborate(src: &str, top: &str) -> Result<Design, String> {
    let mods = parse::parse(src)?;
    let mut map = HashMap::new();
    for m in &mods {
        if map.insert(m.name.as_str(), m).is_some() {
            return Err(format!("module {} defined twice", m.name));
        }
    }
    let t = *map
        .get(top)
        .ok_or_else(|| format!("no module {top} in the Verilog"))?;
    let mut e = Elab {
        mods: map,
        d: Design {
            top: top.to_string(),
            sigs: vec![],
            ports: vec![],
            comb: vec![],
            seq: vec![],
            init: vec![],
        },
        seq_clocks: vec![],
    };
    e.inst(t, "", &HashMap::new(), 0)?;
    let mut d = e.d;
    check_clocks(&mut d, &e.seq_clocks)?;
    Ok(d)
}

/// Drops the clock wiring (`x$clock = clock;`) and checks that every clocked block runs on
/// the top's `clock`.
fn check_clocks(d: &mut Design, seq_clocks: &[usize]) -> Result<(), String> {
    let top_clock = d
        .ports
        .iter()
        .find(|(n, _, dir)| n == "clock" && *dir == Dir::In)
        .map(|p| p.1)
        .ok_or("the top module has no input named clock")?;
    let mut clocks: HashSet<usize> = [top_clock].into();
    loop {
        let mut grew = false;
        for b in d.comb.iter_mut() {
            b.retain(|s| match s {
                S::Assign(L::Sig(l), X::Sig(r)) if clocks.contains(r) => {
                    grew |= clocks.insert(*l);
                    false
                }
                _ => true,
            });
        }
        if !grew {
            break;
        }
    }
    for &c in seq_clocks {
        if !clocks.contains(&c) {
            return Err(format!(
                "{}: a clocked block on a clock other than the top's clock",
                d.sigs[c].name
            ));
        }
    }
    // Nothing else may read a clock.
    let mut reads = HashSet::new();
    for b in d.comb.iter().chain(d.seq.iter()) {
        for s in b {
            stmt_reads(s, &mut reads);
        }
    }
    if let Some(c) = clocks.iter().find(|c| reads.contains(c)) {
        return Err(format!("{}: a clock used as data", d.sigs[*c].name));
    }
    Ok(())
}

fn expr_reads(x: &X, r: &mut HashSet<usize>) {
    match x {
        X::Sig(i) => {
            r.insert(*i);
        }
        X::Const(_) => {}
        X::Bin(_, a, b) | X::Bit(a, b) | X::Slice(a, b, _) => {
            expr_reads(a, r);
            expr_reads(b, r);
        }
        X::Un(_, a) | X::Cast(_, a) => expr_reads(a, r),
        X::Mem(m, i) => {
            r.insert(*m);
            expr_reads(i, r);
        }
    }
}

fn stmt_reads(s: &S, r: &mut HashSet<usize>) {
    match s {
        S::Assign(l, x) => {
            expr_reads(x, r);
            match l {
                L::Sig(_) => {}
                // A part-select assignment keeps the target's other bits; a block assembles
                // a value field by field, so this is not counted as a read (`schedule`
                // checks that the fields cover the value before it is read).
                L::Slice(_, o, _) => expr_reads(o, r),
                L::Mem(_, i) => expr_reads(i, r),
            }
        }
        S::If(c, a, b) => {
            expr_reads(c, r);
            a.iter().chain(b).for_each(|s| stmt_reads(s, r));
        }
    }
}

fn stmt_writes(s: &S, w: &mut HashSet<usize>) {
    match s {
        S::Assign(L::Sig(t) | L::Slice(t, _, _) | L::Mem(t, _), _) => {
            w.insert(*t);
        }
        S::If(_, a, b) => a.iter().chain(b).for_each(|s| stmt_writes(s, w)),
    }
}

/// Marks in `bits` the bits of `t` that `s` assigns on every path.
fn stmt_cover(s: &S, t: usize, bits: &mut [bool]) {
    match s {
        S::Assign(L::Sig(x), _) if *x == t => bits.iter_mut().for_each(|b| *b = true),
        S::Assign(L::Slice(x, X::Const(off), w), _) if *x == t => {
            let lo = off.words[0].min(bits.len() as u64) as usize;
            let hi = (lo + *w as usize).min(bits.len());
            bits[lo..hi].iter_mut().for_each(|b| *b = true);
        }
        S::Assign(..) => {}
        S::If(_, a, b) => {
            let mut x = vec![false; bits.len()];
            let mut y = vec![false; bits.len()];
            a.iter().for_each(|s| stmt_cover(s, t, &mut x));
            b.iter().for_each(|s| stmt_cover(s, t, &mut y));
            for (o, (p, q)) in bits.iter_mut().zip(x.into_iter().zip(y)) {
                *o |= p && q;
            }
        }
    }
}

/// A top-level statement of a combinational block, the unit of scheduling.
struct Chunk {
    block: usize,
    reads: Vec<usize>,
    writes: Vec<usize>,
}

/// The order in which the combinational chunks run: groups in order, each a list of
/// `(block, statement)`; a group of more than one chunk (or one that reads its own
/// result) is a dependency cycle.
pub struct Schedule {
    pub groups: Vec<Vec<(usize, usize)>>,
    /// Whether each group is a dependency cycle (several statements, or one that reads
    /// what it writes before writing it).
    pub cyclic: Vec<bool>,
    /// Signals whose value carries from one evaluation to the next without a clock (read
    /// before their block writes them, or written only on some paths with no default).
    pub latches: Vec<usize>,
}

pub fn schedule(d: &Design) -> Result<Schedule, String> {
    let mut chunks = vec![];
    let mut index = vec![];
    for (b, blk) in d.comb.iter().enumerate() {
        for (k, s) in blk.iter().enumerate() {
            let (mut r, mut w) = (HashSet::new(), HashSet::new());
            stmt_reads(s, &mut r);
            stmt_writes(s, &mut w);
            let mut r: Vec<usize> = r.into_iter().collect();
            let mut w: Vec<usize> = w.into_iter().collect();
            r.sort_unstable();
            w.sort_unstable();
            chunks.push(Chunk {
                block: b,
                reads: r,
                writes: w,
            });
            index.push((b, k));
        }
    }
    let n = chunks.len();
    // One writer block per signal; no block writes what a clocked block writes.
    let mut owner: HashMap<usize, usize> = HashMap::new();
    let mut writers: HashMap<usize, Vec<usize>> = HashMap::new();
    for (c, ch) in chunks.iter().enumerate() {
        for &s in &ch.writes {
            if let Some(&b) = owner.get(&s) {
                if b != ch.block {
                    return Err(format!("{}: assigned in two always blocks", d.sigs[s].name));
                }
            }
            owner.insert(s, ch.block);
            writers.entry(s).or_default().push(c);
        }
    }
    let mut seq_w = HashSet::new();
    for b in &d.seq {
        b.iter().for_each(|s| stmt_writes(s, &mut seq_w));
    }
    for (&s, _) in owner.iter() {
        if seq_w.contains(&s) {
            return Err(format!(
                "{}: assigned by a clocked and a combinational block",
                d.sigs[s].name
            ));
        }
        if d.ports.iter().any(|p| p.1 == s && p.2 == Dir::In) {
            return Err(format!(
                "{}: an input assigned inside the design",
                d.sigs[s].name
            ));
        }
    }
    let mut succ: Vec<Vec<usize>> = vec![vec![]; n];
    let mut latches = HashSet::new();
    // Within a block: program order for every conflict (RAW, WAW, WAR).
    let mut start = 0;
    while start < n {
        let b = chunks[start].block;
        let mut end = start;
        while end < n && chunks[end].block == b {
            end += 1;
        }
        let mut last_w: HashMap<usize, usize> = HashMap::new();
        let mut readers: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut complete: HashSet<usize> = HashSet::new();
        let mut cover: HashMap<usize, Vec<bool>> = HashMap::new();
        for c in start..end {
            for &s in &chunks[c].reads {
                if owner.get(&s) == Some(&b) {
                    if let Some(&p) = last_w.get(&s) {
                        succ[p].push(c);
                    }
                    if !complete.contains(&s) {
                        // Read before this block has assigned all of it: the last
                        // evaluation's value.
                        latches.insert(s);
                    }
                    readers.entry(s).or_default().push(c);
                }
            }
            for &s in &chunks[c].writes {
                if let Some(&p) = last_w.get(&s) {
                    succ[p].push(c);
                }
                if let Some(rs) = readers.get_mut(&s) {
                    for &r in rs.iter() {
                        if r != c {
                            succ[r].push(c);
                        }
                    }
                    rs.clear();
                }
                last_w.insert(s, c);
            }
            // Assigned whole, or field by field at constant offsets, on every path.
            let st = &d.comb[b][c - start];
            for &t in &chunks[c].writes {
                let tw = d.sigs[t].width as usize;
                if complete.contains(&t) || d.sigs[t].depth.is_some() {
                    continue;
                }
                let e = cover.entry(t).or_insert_with(|| vec![false; tw]);
                let mut now = vec![false; tw];
                stmt_cover(st, t, &mut now);
                e.iter_mut().zip(now).for_each(|(a, b)| *a |= b);
                if e.iter().all(|&b| b) {
                    complete.insert(t);
                }
            }
        }
        // Assigned only on some paths, never by default: holds its value (a latch).
        for (&s, _) in last_w.iter() {
            if !complete.contains(&s) && d.sigs[s].depth.is_none() {
                latches.insert(s);
            }
        }
        start = end;
    }
    // Across blocks: every writer of a signal before each reader in another block.
    for (c, ch) in chunks.iter().enumerate() {
        for &s in &ch.reads {
            if let Some(&ob) = owner.get(&s) {
                if ob != ch.block {
                    for &w in &writers[&s] {
                        succ[w].push(c);
                    }
                }
            }
        }
    }
    // A latch's readers depend on its writers in the same block (the value loops round).
    for &s in &latches {
        if let Some(ws) = writers.get(&s) {
            for c in 0..n {
                if chunks[c].reads.binary_search(&s).is_ok() {
                    for &w in ws {
                        if w >= c && chunks[w].block == chunks[c].block {
                            succ[w].push(c);
                        }
                    }
                }
            }
        }
    }
    for s in succ.iter_mut() {
        s.sort_unstable();
        s.dedup();
    }
    let sccs = tarjan(&succ);
    let mut groups = vec![];
    let mut cyclic = vec![];
    for mut comp in sccs {
        comp.sort_unstable();
        cyclic.push(comp.len() > 1 || succ[comp[0]].contains(&comp[0]));
        groups.push(comp.iter().map(|&c| index[c]).collect::<Vec<_>>());
    }
    let mut latches: Vec<usize> = latches.into_iter().collect();
    latches.sort_unstable();
    Ok(Schedule {
        groups,
        cyclic,
        latches,
    })
}

/// Strongly connected components of the graph `succ`, in topological order (iterative
/// Tarjan; ties broken by node index, so the order is deterministic).
fn tarjan(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succ.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on = vec![false; n];
    let mut stack = vec![];
    let mut out = vec![];
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on[root] = true;
        while let Some(&mut (v, ref mut k)) = call.last_mut() {
            if *k < succ[v].len() {
                let w = succ[v][*k];
                *k += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    call.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p] = low[p].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = vec![];
                    loop {
                        let w = stack.pop().expect("tarjan stack");
                        on[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    out.push(comp);
                }
            }
        }
    }
    // Tarjan emits components in reverse topological order.
    out.reverse();
    // Among independent components keep program order where possible: a stable
    // topological sort of the condensation by smallest member.
    let mut comp_of = vec![0; n];
    for (i, c) in out.iter().enumerate() {
        for &v in c {
            comp_of[v] = i;
        }
    }
    let m = out.len();
    let mut indeg = vec![0usize; m];
    let mut csucc: Vec<Vec<usize>> = vec![vec![]; m];
    for v in 0..n {
        for &w in &succ[v] {
            let (a, b) = (comp_of[v], comp_of[w]);
            if a != b {
                csucc[a].push(b);
            }
        }
    }
    for s in csucc.iter_mut() {
        s.sort_unstable();
        s.dedup();
        for &b in s.iter() {
            indeg[b] += 1;
        }
    }
    let key: Vec<usize> = out.iter().map(|c| *c.iter().min().unwrap()).collect();
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(usize, usize)>> = (0..m)
        .filter(|&c| indeg[c] == 0)
        .map(|c| std::cmp::Reverse((key[c], c)))
        .collect();
    let mut order = vec![];
    while let Some(std::cmp::Reverse((_, c))) = heap.pop() {
        order.push(c);
        for &b in &csucc[c] {
            indeg[b] -= 1;
            if indeg[b] == 0 {
                heap.push(std::cmp::Reverse((key[b], b)));
            }
        }
    }
    let mut slots: Vec<Option<Vec<usize>>> = out.into_iter().map(Some).collect();
    order
        .into_iter()
        .map(|c| slots[c].take().expect("component once"))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Code generation

fn words(w: u32) -> usize {
    w.div_ceil(64) as usize
}

fn mask_lit(w: u32) -> String {
    if w >= 64 {
        "u64::MAX".into()
    } else {
        format!("0x{:x}u64", (1u64 << w) - 1)
    }
}

/// The type of a value of `w` bits.
fn ty(w: u32) -> String {
    if w <= 64 {
        "u64".into()
    } else {
        format!("[u64; {}]", words(w))
    }
}

/// Converts `v`, a value of `from` bits (upper bits 0), to `to` bits.
fn conv(v: String, from: u32, to: u32) -> String {
    if from == to {
        return v;
    }
    match (from <= 64, to <= 64) {
        (true, true) => {
            if to > from {
                v
            } else {
                format!("({v} & {})", mask_lit(to))
            }
        }
        (true, false) => format!("wfrom::<{}>({v})", words(to)),
        (false, true) => format!("({v}[0] & {})", mask_lit(to)),
        (false, false) => {
            let r = format!("wresize::<{}, {}>({v})", words(from), words(to));
            if to < from && !to.is_multiple_of(64) {
                format!("wmask({r}, {to})")
            } else {
                r
            }
        }
    }
}

struct Gen<'a> {
    d: &'a Design,
}

impl Gen<'_> {
    /// Verilog's self-determined width.
    fn sw(&self, x: &X) -> u32 {
        match x {
            X::Sig(i) => self.d.sigs[*i].width,
            X::Const(l) => l.width,
            X::Bin(op, a, b) => match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor => {
                    self.sw(a).max(self.sw(b))
                }
                BinOp::Shl | BinOp::Shr => self.sw(a),
                _ => 1,
            },
            X::Un(op, a) => match op {
                UnOp::Not | UnOp::Neg => self.sw(a),
                _ => 1,
            },
            X::Bit(..) => 1,
            X::Mem(m, _) => self.d.sigs[*m].width,
            X::Slice(_, _, w) => *w,
            X::Cast(w, _) => *w,
        }
    }

    /// A shift amount or index as a `u64` expression.
    fn amount(&self, x: &X) -> String {
        let w = self.sw(x);
        let v = self.gx(x, w);
        if w <= 64 {
            v
        } else {
            format!("wsat({v})")
        }
    }

    fn truth(&self, x: &X) -> String {
        let w = self.sw(x);
        let v = self.gx(x, w);
        if w <= 64 {
            format!("({v} != 0)")
        } else {
            format!("wany({v})")
        }
    }

    /// `x` evaluated at width `ew` (>= its self-determined width, Verilog's context width).
    fn gx(&self, x: &X, ew: u32) -> String {
        let ew = ew.max(self.sw(x));
        let narrow = ew <= 64;
        match x {
            X::Sig(i) => {
                let s = &self.d.sigs[*i];
                conv(format!("self.s{i}"), s.width, ew)
            }
            X::Const(l) => {
                if narrow {
                    format!("0x{:x}u64", l.words[0])
                } else {
                    let mut w = l.words.clone();
                    w.resize(words(ew), 0);
                    format!(
                        "[{}]",
                        w.iter()
                            .map(|v| format!("0x{v:x}u64"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            }
            X::Bin(op, a, b) => match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor => {
                    let (a, b) = (self.gx(a, ew), self.gx(b, ew));
                    if narrow {
                        let m = mask_lit(ew);
                        match op {
                            BinOp::Add => format!("({a}.wrapping_add({b}) & {m})"),
                            BinOp::Sub => format!("({a}.wrapping_sub({b}) & {m})"),
                            BinOp::Mul => format!("({a}.wrapping_mul({b}) & {m})"),
                            BinOp::And => format!("({a} & {b})"),
                            BinOp::Or => format!("({a} | {b})"),
                            _ => format!("({a} ^ {b})"),
                        }
                    } else {
                        match op {
                            BinOp::Add => format!("wmask(wadd({a}, {b}), {ew})"),
                            BinOp::Sub => format!("wmask(wsub({a}, {b}), {ew})"),
                            BinOp::Mul => format!("wmask(wmul({a}, {b}), {ew})"),
                            BinOp::And => format!("wand({a}, {b})"),
                            BinOp::Or => format!("wor({a}, {b})"),
                            _ => format!("wxor({a}, {b})"),
                        }
                    }
                }
                BinOp::Shl | BinOp::Shr => {
                    let v = self.gx(a, ew);
                    let n = self.amount(b);
                    match (op, narrow) {
                        (BinOp::Shl, true) => format!("(nshl({v}, {n}) & {})", mask_lit(ew)),
                        (BinOp::Shl, false) => format!("wmask(wshl({v}, {n}), {ew})"),
                        (_, true) => format!("nshr({v}, {n})"),
                        (_, false) => format!("wshr({v}, {n})"),
                    }
                }
                BinOp::LAnd | BinOp::LOr => {
                    let o = if *op == BinOp::LAnd { "&&" } else { "||" };
                    let r = format!("(({} {o} {}) as u64)", self.truth(a), self.truth(b));
                    conv(r, 1, ew)
                }
                _ => {
                    let cw = self.sw(a).max(self.sw(b));
                    let (va, vb) = (self.gx(a, cw), self.gx(b, cw));
                    let r = if cw <= 64 {
                        let o = match op {
                            BinOp::Eq => "==",
                            BinOp::Ne => "!=",
                            BinOp::Lt => "<",
                            BinOp::Le => "<=",
                            BinOp::Gt => ">",
                            _ => ">=",
                        };
                        format!("(({va} {o} {vb}) as u64)")
                    } else {
                        match op {
                            BinOp::Eq => format!("(({va} == {vb}) as u64)"),
                            BinOp::Ne => format!("(({va} != {vb}) as u64)"),
                            BinOp::Lt => format!("(wlt({va}, {vb}) as u64)"),
                            BinOp::Le => format!("((!wlt({vb}, {va})) as u64)"),
                            BinOp::Gt => format!("(wlt({vb}, {va}) as u64)"),
                            _ => format!("((!wlt({va}, {vb})) as u64)"),
                        }
                    };
                    conv(r, 1, ew)
                }
            },
            X::Un(op, a) => match op {
                UnOp::Not | UnOp::Neg => {
                    let v = self.gx(a, ew);
                    match (op, narrow) {
                        (UnOp::Not, true) => format!("(!{v} & {})", mask_lit(ew)),
                        (UnOp::Not, false) => format!("wmask(wnot({v}), {ew})"),
                        (_, true) => format!("({v}.wrapping_neg() & {})", mask_lit(ew)),
                        (_, false) => format!("wmask(wneg({v}), {ew})"),
                    }
                }
                _ => {
                    let w = self.sw(a);
                    let v = self.gx(a, w);
                    let r = match (op, w <= 64) {
                        (UnOp::RedAnd, true) => format!("(({v} == {}) as u64)", mask_lit(w)),
                        (UnOp::RedAnd, false) => format!("(wall({v}, {w}) as u64)"),
                        (UnOp::RedOr, true) => format!("(({v} != 0) as u64)"),
                        (UnOp::RedOr, false) => format!("(wany({v}) as u64)"),
                        (UnOp::RedXor, true) => format!("(({v}.count_ones() & 1) as u64)"),
                        (UnOp::RedXor, false) => format!("(wpar({v}) as u64)"),
                        (_, true) => format!("(({v} == 0) as u64)"),
                        (_, false) => format!("((!wany({v})) as u64)"),
                    };
                    conv(r, 1, ew)
                }
            },
            X::Bit(b, i) => {
                let bw = self.sw(b);
                let v = self.gx(b, bw);
                let n = self.amount(i);
                let r = if bw <= 64 {
                    format!("(nshr({v}, {n}) & 1)")
                } else {
                    format!("wbit({v}, {n})")
                };
                conv(r, 1, ew)
            }
            X::Mem(m, i) => {
                let w = self.d.sigs[*m].width;
                let n = self.amount(i);
                conv(
                    format!("self.m{m}.get({n} as usize).copied().unwrap_or_default()"),
                    w,
                    ew,
                )
            }
            X::Slice(b, off, w) => {
                let bw = self.sw(b);
                let v = self.gx(b, bw);
                let n = self.amount(off);
                let r = match (bw <= 64, *w <= 64) {
                    (true, true) => format!("nget({v}, {n}, {w})"),
                    (true, false) => format!("wfrom::<{}>(nshr({v}, {n}))", words(*w)),
                    (false, true) => format!("wget({v}, {n}, {w})"),
                    (false, false) => format!(
                        "wmask(wgetw::<{}, {}>({v}, {n}), {w})",
                        words(bw),
                        words(*w)
                    ),
                };
                conv(r, *w, ew)
            }
            X::Cast(w, a) => {
                let iw = (*w).max(self.sw(a));
                let v = self.gx(a, iw);
                conv(conv(v, iw, *w), *w, ew)
            }
        }
    }

    fn stmts(&self, v: &[S], out: &mut String, ind: usize) {
        for s in v {
            self.stmt(s, out, ind);
        }
    }

    fn stmt(&self, s: &S, out: &mut String, ind: usize) {
        let pad = " ".repeat(ind);
        match s {
            S::If(c, a, b) => {
                let _ = writeln!(out, "{pad}if {} {{", self.truth(c));
                self.stmts(a, out, ind + 4);
                if b.is_empty() {
                    let _ = writeln!(out, "{pad}}}");
                } else {
                    let _ = writeln!(out, "{pad}}} else {{");
                    self.stmts(b, out, ind + 4);
                    let _ = writeln!(out, "{pad}}}");
                }
            }
            S::Assign(L::Sig(t), x) => {
                let w = self.d.sigs[*t].width;
                let ew = w.max(self.sw(x));
                let _ = writeln!(out, "{pad}self.s{t} = {};", conv(self.gx(x, ew), ew, w));
            }
            S::Assign(L::Slice(t, off, w), x) => {
                let tw = self.d.sigs[*t].width;
                let ew = (*w).max(self.sw(x));
                let v = conv(self.gx(x, ew), ew, *w);
                let n = self.amount(off);
                let r = match (tw <= 64, *w <= 64) {
                    (true, _) => format!("nset(self.s{t}, {n}, {w}, {v}) & {}", mask_lit(tw)),
                    (false, true) => format!("wmask(wset(self.s{t}, {n}, {w}, {v}), {tw})"),
                    (false, false) => {
                        format!("wmask(wsetw(self.s{t}, {n}, {w}, {v}), {tw})")
                    }
                };
                let _ = writeln!(out, "{pad}self.s{t} = {r};");
            }
            S::Assign(L::Mem(m, i), x) => {
                let w = self.d.sigs[*m].width;
                let ew = w.max(self.sw(x));
                let v = conv(self.gx(x, ew), ew, w);
                let n = self.amount(i);
                let _ = writeln!(
                    out,
                    "{pad}{{ let v = {v}; if let Some(x) = self.m{m}.get_mut({n} as usize) {{ *x = v; }} }}"
                );
            }
        }
    }
}

/// The order of the clocked blocks: a block that reads what another writes runs first
/// (non-blocking assignments read the values from before the edge).
fn seq_order(d: &Design) -> Result<Vec<usize>, String> {
    let n = d.seq.len();
    let mut r = vec![HashSet::new(); n];
    let mut w = vec![HashSet::new(); n];
    for (i, b) in d.seq.iter().enumerate() {
        b.iter().for_each(|s| stmt_reads(s, &mut r[i]));
        b.iter().for_each(|s| stmt_writes(s, &mut w[i]));
        // `if (we) mem[a] <= d` style blocks never read what they assign; one that did
        // would need the value from before the edge, which this order does not keep.
        if let Some(s) = r[i].intersection(&w[i]).next() {
            return Err(format!(
                "{}: a clocked block reads a signal it assigns",
                d.sigs[*s].name
            ));
        }
    }
    // A block that reads a signal runs before every block that assigns it.
    let mut writers_of: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, ws) in w.iter().enumerate() {
        for &s in ws {
            writers_of.entry(s).or_default().push(i);
        }
    }
    let mut succ = vec![vec![]; n];
    for (i, rs) in r.iter().enumerate() {
        for s in rs {
            if let Some(ws) = writers_of.get(s) {
                for &wb in ws {
                    succ[i].push(wb);
                }
            }
        }
    }
    let comps = tarjan(&succ);
    let mut order = vec![];
    for c in comps {
        if c.len() > 1 {
            return Err(format!(
                "clocked blocks read each other's results ({} ...)",
                d.sigs[*w[c[0]].iter().next().unwrap_or(&0)].name
            ));
        }
        order.push(c[0]);
    }
    Ok(order)
}

/// The Rust source of `d`'s model with the C ABI of `crate::vmodel` for `ports` (the
/// block's port list; every port must be a top-level port of the same width).
pub fn generate(d: &Design, ports: &[Port]) -> Result<String, String> {
    let sch = schedule(d)?;
    let seq = seq_order(d)?;
    let g = Gen { d };
    let mut o = String::new();
    let _ = writeln!(
        o,
        "// Model of {} compiled by nt-sim (rcomp) from its Verilog. Do not edit.",
        d.top
    );
    o.push_str("#![allow(unused_parens, clippy::all, dead_code, non_snake_case)]\n");
    o.push_str(
        include_str!("runtime.rs")
            .replace("#![allow(dead_code)]", "")
            .as_str(),
    );
    // The signals first, each in `ceil(width / 64)` words (`repr(C)`: one run of `u64`s,
    // which `ntv_trace` copies whole for waveforms), then the memories.
    o.push_str("\n#[repr(C)]\npub struct M {\n");
    let mut sig_words = 0;
    let mut sig_list = vec![];
    for (i, s) in d.sigs.iter().enumerate() {
        if s.depth.is_none() {
            let _ = writeln!(o, "    s{i}: {}, // {}", ty(s.width), s.name);
            sig_words += words(s.width).max(1);
            sig_list.push(format!("{}:{}", s.name, s.width));
        }
    }
    for (i, s) in d.sigs.iter().enumerate() {
        if s.depth.is_some() {
            let _ = writeln!(o, "    m{i}: Vec<{}>, // {}", ty(s.width), s.name);
        }
    }
    o.push_str("    stale: bool,\n}\n\nimpl M {\n");
    o.push_str("    fn new() -> Box<M> {\n        let mut m = Box::new(M {\n");
    for (i, s) in d.sigs.iter().enumerate() {
        match s.depth {
            Some(dep) => {
                let z = if s.width <= 64 {
                    "0u64".to_string()
                } else {
                    format!("[0u64; {}]", words(s.width))
                };
                let _ = writeln!(o, "            m{i}: vec![{z}; {dep}],");
            }
            None => {
                let z = if s.width <= 64 {
                    "0".to_string()
                } else {
                    format!("[0; {}]", words(s.width))
                };
                let _ = writeln!(o, "            s{i}: {z},");
            }
        }
    }
    o.push_str("            stale: true,\n        });\n");
    o.push_str("        m.init();\n        m\n    }\n\n    fn init(&mut self) {\n");
    for b in &d.init {
        g.stmts(b, &mut o, 8);
    }
    o.push_str("    }\n\n");
    // Combinational chunks, in functions of bounded size (rustc's time grows with them).
    let mut fns = vec![];
    let mut cur = String::new();
    let mut cur_len = 0;
    for (grp, &cyclic) in sch.groups.iter().zip(&sch.cyclic) {
        if cyclic {
            let (b, k) = grp[0];
            let mut w = HashSet::new();
            stmt_writes(&d.comb[b][k], &mut w);
            let names: Vec<&str> = w.iter().map(|s| d.sigs[*s].name.as_str()).collect();
            return Err(format!(
                "a combinational loop through {} statements (one assigns {}): the compiled engine needs loop-free logic; run this block on the Verilator engine",
                grp.len(),
                names.join(", ")
            ));
        }
        let mut body = String::new();
        let (b, k) = grp[0];
        g.stmt(&d.comb[b][k], &mut body, 8);
        cur_len += body.lines().count();
        cur.push_str(&body);
        if cur_len > 400 {
            fns.push(std::mem::take(&mut cur));
            cur_len = 0;
        }
    }
    if !cur.is_empty() {
        fns.push(cur);
    }
    for (i, f) in fns.iter().enumerate() {
        let _ = writeln!(
            o,
            "    #[inline(never)]\n    fn comb{i}(&mut self) {{\n{f}    }}\n"
        );
    }
    o.push_str("    fn comb(&mut self) {\n");
    for i in 0..fns.len() {
        let _ = writeln!(o, "        self.comb{i}();");
    }
    o.push_str("        self.stale = false;\n    }\n\n    fn posedge(&mut self) {\n");
    for &i in &seq {
        g.stmts(&d.seq[i], &mut o, 8);
    }
    o.push_str("        self.stale = true;\n    }\n");
    // Ports.
    let mut sig_of: HashMap<&str, (usize, Dir)> = HashMap::new();
    for (n, id, dir) in &d.ports {
        sig_of.insert(n.as_str(), (*id, *dir));
    }
    let mut sig = vec![];
    let (mut ins, mut outs) = (String::new(), String::new());
    let (mut ioff, mut ooff) = (0usize, 0usize);
    for p in ports {
        let (id, dir) = *sig_of
            .get(p.name.as_str())
            .ok_or_else(|| format!("{}: no top-level port {}", d.top, p.name))?;
        if dir != p.dir || d.sigs[id].width as usize != p.width {
            return Err(format!(
                "{}: port {} differs in direction or width from the block's",
                d.top, p.name
            ));
        }
        sig.push(format!(
            "{}:{}:{}",
            p.name,
            p.width,
            if p.dir == Dir::In { "in" } else { "out" }
        ));
        let w = p.width as u32;
        let nw = p.width.div_ceil(32);
        if p.dir == Dir::In {
            if w <= 64 {
                let hi = if nw > 1 {
                    format!(" | ((*inp.add({}) as u64) << 32)", ioff + 1)
                } else {
                    String::new()
                };
                let _ = writeln!(
                    ins,
                    "        self.s{id} = ((*inp.add({ioff}) as u64){hi}) & {};",
                    mask_lit(w)
                );
            } else {
                for k in 0..nw {
                    let _ = writeln!(
                        ins,
                        "        self.s{id}[{}] = (self.s{id}[{}] & !(0xffff_ffffu64 << {})) | ((*inp.add({}) as u64) << {});",
                        k / 2,
                        k / 2,
                        32 * (k % 2),
                        ioff + k,
                        32 * (k % 2)
                    );
                }
                let _ = writeln!(ins, "        self.s{id} = wmask(self.s{id}, {w});");
            }
            ioff += nw;
        } else {
            for k in 0..nw {
                let v = if w <= 64 {
                    format!("(self.s{id} >> {})", 32 * k)
                } else {
                    format!("(self.s{id}[{}] >> {})", k / 2, 32 * (k % 2))
                };
                let _ = writeln!(outs, "        *out.add({}) = {v} as u32;", ooff + k);
            }
            ooff += nw;
        }
    }
    let _ = writeln!(
        o,
        "\n    unsafe fn set_inputs(&mut self, inp: *const u32) {{\n{ins}    }}\n\n    unsafe fn get_outputs(&self, out: *mut u32) {{\n{outs}    }}\n}}\n"
    );
    let _ = writeln!(o, "static PORTS: &[u8] = b\"{}\\0\";", sig.join(" "));
    let _ = writeln!(o, "static SIGS: &[u8] = b\"{}\\0\";", sig_list.join(" "));
    let _ = writeln!(o, "const SIG_WORDS: usize = {sig_words};");
    // With latches (values carried between evaluations) every evaluation Verilator makes is
    // made; without, the one after the edge is deferred to the next cycle or `ntv_read`.
    let _ = writeln!(o, "const EAGER: bool = {};", !sch.latches.is_empty());
    o.push_str(
        r#"
#[no_mangle]
pub extern "C" fn ntv_ports() -> *const u8 { PORTS.as_ptr() }
#[no_mangle]
pub extern "C" fn ntv_new() -> *mut M { Box::into_raw(M::new()) }
#[no_mangle]
pub unsafe extern "C" fn ntv_free(h: *mut M) { drop(Box::from_raw(h)); }
#[no_mangle]
pub unsafe extern "C" fn ntv_cycle(h: *mut M, inp: *const u32, out: *mut u32) {
    let m = &mut *h;
    m.set_inputs(inp);
    m.comb();
    m.get_outputs(out);
    m.posedge();
    if EAGER { m.comb(); }
}
#[no_mangle]
pub extern "C" fn ntv_sigs() -> *const u8 { SIGS.as_ptr() }
#[no_mangle]
pub extern "C" fn ntv_sig_words() -> usize { SIG_WORDS }
/// `ntv_cycle`, copying every signal (`ntv_sigs`' order, `SIG_WORDS` words) before the
/// rising edge into `pre` and after it (settled with the same inputs) into `post`.
#[no_mangle]
pub unsafe extern "C" fn ntv_trace(h: *mut M, inp: *const u32, out: *mut u32, pre: *mut u64, post: *mut u64) {
    let m = &mut *h;
    m.set_inputs(inp);
    m.comb();
    m.get_outputs(out);
    std::ptr::copy_nonoverlapping(h as *const u64, pre, SIG_WORDS);
    m.posedge();
    m.comb();
    std::ptr::copy_nonoverlapping(h as *const u64, post, SIG_WORDS);
}
#[no_mangle]
pub unsafe extern "C" fn ntv_read(h: *mut M, out: *mut u32) {
    let m = &mut *h;
    if m.stale { m.comb(); }
    m.get_outputs(out);
}
"#,
    );
    Ok(o)
}

/// The top module's ports as a block's port list (the clock left out, as
/// [`crate::ports::list_ports`] leaves it out), in declaration order.
pub fn top_ports(verilog: &str, top: &str) -> Result<Vec<Port>, String> {
    Ok(elaborate(verilog, top)?.block_ports())
}

impl Design {
    /// The top module's ports as a block's port list (the clock left out).
    pub fn block_ports(&self) -> Vec<Port> {
        self.ports
            .iter()
            .filter(|(n, _, _)| n != "clock")
            .map(|(n, id, dir)| Port {
                name: n.clone(),
                width: self.sigs[*id].width as usize,
                dir: *dir,
            })
            .collect()
    }
}

/// Statistics of a compiled design, for `ntsim compile` and the docs.
pub struct Stats {
    pub signals: usize,
    pub chunks: usize,
    pub cyclic_groups: usize,
    pub latches: usize,
}

pub fn stats(d: &Design) -> Result<Stats, String> {
    let s = schedule(d)?;
    Ok(Stats {
        signals: d.sigs.len(),
        chunks: s.groups.iter().map(|g| g.len()).sum(),
        cyclic_groups: s.cyclic.iter().filter(|&&c| c).count(),
        latches: s.latches.len(),
    })
}
