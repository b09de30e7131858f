//! Splitting of long `always @(*)` blocks.
//!
//! rust-hdl emits a block's whole `update` as one `always @(*)` block. For the 16-port
//! switch that block is 140,000 lines, and Verilator's per-block passes (latch detection
//! in `V3Active`, statement reordering in `V3Split`) are superlinear in its size:
//! `verilator --lint-only` had not finished after 10 minutes of CPU. [`split_always`]
//! cuts such a block into blocks of about [`CHUNK_LINES`] lines, which Verilator and Yosys
//! take one at a time (the same switch then lints in about 30 s).
//!
//! The cut keeps the logic. A block's body is a list of top-level statements (an
//! assignment, or an `if` with its `else` branches). Statements that assign the same
//! variable stay together, in their order, as a *group*; every variable is then assigned
//! in exactly one block, as in the original. A group that reads a variable of another
//! group is placed after it. The groups are emitted in that order (ties in program
//! order), cut into consecutive blocks; since every dependency points forward, no two
//! blocks depend on each other and the blocks add no combinational cycle. Where rust-hdl's
//! `update` read a value before assigning it later in the same pass (which its simulator
//! settles by repeating the pass), the split blocks read the settled value as well.
//! Before grouping, a statement `if (c) begin a = x; b = y; ... end` made only of
//! assignments, none of them to a variable of `c`, is taken as one statement per
//! assignment (`if (c) begin a = x; end`, ...): the reset branch at the end of every
//! `update` assigns every register and would otherwise tie everything into one group.
//!
//! A block is left as it is when it has a construct other than rust-hdl's (assignments,
//! `if (...) begin`, `else begin`, `else if (...) begin`, `end`), or when its groups depend
//! on each other in a cycle. A block that reads nothing but constants would never be
//! triggered under Icarus (`@*` with no sensitivity), so such a piece is merged into its
//! neighbour.
//!
//! The co-simulation tests run split Verilog against the Rust simulation cycle for cycle:
//! in the test command, the priority scheduler split into small blocks, under Verilator
//! and Icarus; on demand, the 16-port switch (`switch2_p16_verilog_matches_rust_...`).
use regex::Regex;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

/// `always @(*)` blocks with more body lines than this are split: the 16-port switch's
/// (140 k lines), not the 4-port switch's (13 k), which Verilator lints in seconds and which
/// Yosys maps 2.8 times faster unsplit (78 s against 215 s of CPU, in CI).
pub const SPLIT_ABOVE: usize = 20_000;
/// Lines per block after splitting (a group longer than this stays whole).
pub const CHUNK_LINES: usize = 2000;

/// The line that opens a combinational block in rust-hdl's Verilog.
pub const OPEN: &str = "    always @(*) begin";
/// The line that closes it.
pub const CLOSE: &str = "    end";
const KEYWORDS: [&str; 5] = ["if", "else", "begin", "end", "case"];

/// Splits every `always @(*)` block of more than [`SPLIT_ABOVE`] lines (see the module
/// documentation).
pub fn split_always(verilog: &str) -> String {
    split_blocks(verilog, SPLIT_ABOVE, CHUNK_LINES)
}

struct Patterns {
    assign: Regex,
    ident: Regex,
    literal: Regex,
}

/// One top-level statement of a block body.
struct Stmt<'a> {
    lines: Vec<&'a str>,
    writes: HashSet<&'a str>,
    reads: HashSet<&'a str>,
}

/// Cuts the `always @(*)` block of every module `split(module)` names into its groups, one
/// block per group (a piece that reads only constants joins its neighbour), whatever its
/// length; other modules' blocks as [`split_always`] does. Verilator then sees which outputs
/// of such a block depend on which inputs, not the whole block as one node: the NIC tops,
/// whose sub-blocks hand shake in both directions, lint without `UNOPTFLAT` so
/// (`crate::emit` module documentation).
pub fn split_groups(verilog: &str, split: &dyn Fn(&str) -> bool) -> String {
    split_where(verilog, &|m: &str| {
        if split(m) {
            (0, 1)
        } else {
            (SPLIT_ABOVE, CHUNK_LINES)
        }
    })
}

/// [`split_always`] with the thresholds as parameters (the unit tests use small ones).
pub fn split_blocks(verilog: &str, above: usize, chunk: usize) -> String {
    split_where(verilog, &|_: &str| (above, chunk))
}

/// Splits the blocks of each module by its `(above, chunk)` thresholds.
fn split_where(verilog: &str, limits: &dyn Fn(&str) -> (usize, usize)) -> String {
    let module = Regex::new(r"^module ([A-Za-z0-9_$]+)\(").expect("static regex");
    let pats = Patterns {
        assign: Regex::new(r"^\s*([A-Za-z_][A-Za-z0-9_$]*)\s*(\[[^\]]*\])?\s*=[^=]")
            .expect("static regex"),
        ident: Regex::new(r"[A-Za-z_][A-Za-z0-9_$]*").expect("static regex"),
        literal: Regex::new(r"\d+'[hbdoHBDO][0-9a-fA-F_xzXZ]+").expect("static regex"),
    };
    let param = Regex::new(r"^\s*localparam\s+(?:\[[^\]]*\]\s*)?([A-Za-z_][A-Za-z0-9_$]*)\s*=")
        .expect("static regex");
    let lines: Vec<&str> = verilog.split('\n').collect();
    // Constants of every module: a piece reading only these (and literals) is dead under
    // Icarus. Taking all modules' names is conservative: it can only merge more.
    let consts: HashSet<&str> = lines
        .iter()
        .filter_map(|l| param.captures(l).and_then(|c| c.get(1)).map(|m| m.as_str()))
        .collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len() + 64);
    let mut i = 0;
    let (mut above, mut chunk) = limits("");
    while i < lines.len() {
        if let Some(m) = module.captures(lines[i]) {
            (above, chunk) = limits(&m[1]);
        }
        if lines[i] == OPEN {
            if let Some(len) = lines[i + 1..].iter().position(|l| *l == CLOSE) {
                let body = &lines[i + 1..i + 1 + len];
                match (body.len() > above)
                    .then(|| split_body(body, chunk, &pats, &consts))
                    .flatten()
                {
                    Some(pieces) => {
                        for p in pieces {
                            out.push(OPEN.to_string());
                            out.extend(p.into_iter().map(str::to_string));
                            out.push(CLOSE.to_string());
                        }
                    }
                    None => out.extend(lines[i..=i + len + 1].iter().map(|l| l.to_string())),
                }
                i += len + 2;
                continue;
            }
        }
        out.push(lines[i].to_string());
        i += 1;
    }
    out.join("\n")
}

/// Whether `line` (trimmed) opens a branch (`if`, `else`, `else if`) or closes one.
fn shape(t: &str) -> Option<i32> {
    let is_if = |s: &str| s.starts_with("if (") && s.ends_with(") begin");
    if is_if(t) || t == "else begin" || t.strip_prefix("else ").is_some_and(is_if) {
        Some(1)
    } else if t == "end" {
        Some(-1)
    } else {
        None
    }
}

/// The body's statements, or `None` for a construct this does not know.
fn statements<'a>(body: &[&'a str], pats: &Patterns) -> Option<Vec<Vec<&'a str>>> {
    let mut stmts: Vec<Vec<&'a str>> = Vec::new();
    let mut depth = 0i32;
    for &l in body {
        let t = l.trim();
        if t.is_empty() {
            continue;
        }
        if !l.starts_with("        ") {
            return None;
        }
        let d = match shape(t) {
            Some(d) => d,
            None if pats.assign.is_match(l) && t.ends_with(';') => 0,
            None => return None,
        };
        let top = !l.starts_with("         ");
        if depth == 0 && !t.starts_with("else") {
            if !top || d < 0 {
                return None;
            }
            stmts.push(Vec::new());
        } else if depth == 0 && !top {
            return None;
        }
        stmts.last_mut()?.push(l);
        depth += d;
        if depth < 0 {
            return None;
        }
    }
    (depth == 0).then_some(stmts)
}

/// `if (c) begin <assignments> end` whose assignments do not touch `c`, as one statement
/// per assignment.
fn explode<'a>(stmts: Vec<Vec<&'a str>>, pats: &Patterns) -> Vec<Vec<&'a str>> {
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        let n = s.len();
        let head = s[0].trim();
        let plain = n > 3
            && head.starts_with("if (")
            && s[n - 1].trim() == "end"
            && s[1..n - 1].iter().all(|l| shape(l.trim()).is_none());
        if plain {
            let cond: HashSet<&str> = pats.ident.find_iter(head).map(|m| m.as_str()).collect();
            let touches = s[1..n - 1].iter().any(|l| {
                pats.assign
                    .captures(l)
                    .is_some_and(|c| cond.contains(c.get(1).map_or("", |m| m.as_str())))
            });
            if !touches {
                for &l in &s[1..n - 1] {
                    out.push(vec![s[0], l, s[n - 1]]);
                }
                continue;
            }
        }
        out.push(s);
    }
    out
}

fn analyse<'a>(lines: Vec<&'a str>, pats: &Patterns) -> Stmt<'a> {
    let mut writes = HashSet::new();
    let mut reads = HashSet::new();
    for &l in &lines {
        let rest = match pats.assign.captures(l) {
            Some(c) => {
                let name = c.get(1).expect("group 1");
                writes.insert(name.as_str());
                // the part-select's index is read too
                &l[name.end()..]
            }
            None => l,
        };
        let mut from = 0;
        for lit in pats.literal.find_iter(rest) {
            reads.extend(
                pats.ident
                    .find_iter(&rest[from..lit.start()])
                    .map(|m| m.as_str()),
            );
            from = lit.end();
        }
        reads.extend(pats.ident.find_iter(&rest[from..]).map(|m| m.as_str()));
    }
    Stmt {
        lines,
        writes,
        reads,
    }
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// The body cut into pieces, or `None` to keep it whole.
fn split_body<'a>(
    body: &[&'a str],
    chunk: usize,
    pats: &Patterns,
    consts: &HashSet<&str>,
) -> Option<Vec<Vec<&'a str>>> {
    let stmts: Vec<Stmt<'a>> = explode(statements(body, pats)?, pats)
        .into_iter()
        .map(|s| analyse(s, pats))
        .collect();
    // Groups: statements that assign a common variable.
    let mut parent: Vec<usize> = (0..stmts.len()).collect();
    let mut first_writer: HashMap<&str, usize> = HashMap::new();
    for (k, s) in stmts.iter().enumerate() {
        for &v in &s.writes {
            match first_writer.get(v) {
                Some(&w) => {
                    let (a, b) = (find(&mut parent, k), find(&mut parent, w));
                    parent[a] = b;
                }
                None => {
                    first_writer.insert(v, k);
                }
            }
        }
    }
    let mut group_of = vec![0usize; stmts.len()];
    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut index: HashMap<usize, usize> = HashMap::new();
    for k in 0..stmts.len() {
        let root = find(&mut parent, k);
        let g = *index.entry(root).or_insert_with(|| {
            members.push(Vec::new());
            members.len() - 1
        });
        group_of[k] = g;
        members[g].push(k);
    }
    let writer: HashMap<&str, usize> = first_writer
        .iter()
        .map(|(&v, &k)| (v, group_of[k]))
        .collect();
    // Dependencies between groups, then a topological order (ties in program order).
    let mut succ: Vec<HashSet<usize>> = vec![HashSet::new(); members.len()];
    let mut indeg = vec![0usize; members.len()];
    for (k, s) in stmts.iter().enumerate() {
        let g = group_of[k];
        for v in &s.reads {
            if let Some(&h) = writer.get(v) {
                if h != g && succ[h].insert(g) {
                    indeg[g] += 1;
                }
            }
        }
    }
    let mut ready: BinaryHeap<Reverse<(usize, usize)>> = (0..members.len())
        .filter(|&g| indeg[g] == 0)
        .map(|g| Reverse((members[g][0], g)))
        .collect();
    let mut order = Vec::with_capacity(members.len());
    while let Some(Reverse((_, g))) = ready.pop() {
        order.push(g);
        for &h in &succ[g] {
            indeg[h] -= 1;
            if indeg[h] == 0 {
                ready.push(Reverse((members[h][0], h)));
            }
        }
    }
    if order.len() != members.len() {
        return None; // the groups depend on each other in a cycle
    }
    // Consecutive groups into pieces of about `chunk` lines.
    let mut pieces: Vec<(Vec<&'a str>, bool)> = vec![(Vec::new(), false)];
    for g in order {
        let size: usize = members[g].iter().map(|&k| stmts[k].lines.len()).sum();
        let cur_len = pieces.last().map_or(0, |p| p.0.len());
        if cur_len > 0 && cur_len + size > chunk {
            pieces.push((Vec::new(), false));
        }
        let cur = pieces.last_mut().expect("one piece");
        for &k in &members[g] {
            cur.0.extend(&stmts[k].lines);
            cur.1 |= stmts[k]
                .reads
                .iter()
                .any(|v| !consts.contains(v) && !KEYWORDS.contains(v));
        }
    }
    // A piece that reads only constants joins its neighbour (Icarus would never run it).
    let mut merged: Vec<(Vec<&'a str>, bool)> = Vec::with_capacity(pieces.len());
    for p in pieces {
        match merged.last_mut() {
            Some(last) if !p.1 || !last.1 => {
                last.0.extend(p.0);
                last.1 |= p.1;
            }
            _ => merged.push(p),
        }
    }
    Some(merged.into_iter().map(|p| p.0).collect())
}
