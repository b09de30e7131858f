//! Parser of the Verilog subset `ntsim verilog` emits (rust-hdl's generator plus
//! `nt_hdl::emit`'s rewrites): modules with port lists, `input`/`output`/`reg`/`wire`
//! declarations (one memory array per custom RAM block), `localparam`s, named-port
//! instances, `always @(*)` blocks of blocking assignments, `if`/`else` and `case`, `always
//! @(posedge clk)` blocks of non-blocking ones, and `initial` blocks. Anything outside
//! the subset is an error naming the line, never a guess.

/// A sized constant: `width` bits, least significant word first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lit {
    pub width: u32,
    pub words: Vec<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LAnd,
    LOr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Not,
    Neg,
    RedAnd,
    RedOr,
    RedXor,
    LNot,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Ident(String),
    Lit(Lit),
    /// An unsized decimal: a 32-bit integer.
    Int(u64),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Un(UnOp, Box<Expr>),
    /// `x[i]`: a bit of a vector or a word of a memory.
    Index(Box<Expr>, Box<Expr>),
    /// `x[(off)+:(w)]`.
    Slice(Box<Expr>, Box<Expr>, u32),
    /// `N'(e)`.
    Cast(u32, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LValue {
    Ident(String),
    Slice(String, Expr, u32),
    Index(String, Expr),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Assign {
        lhs: LValue,
        rhs: Expr,
        nonblocking: bool,
    },
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Input,
    Output,
    Var,
}

#[derive(Clone, Debug)]
pub struct Decl {
    pub kind: Kind,
    pub width: u32,
    /// `Some(depth)` for a memory `reg [w-1:0] name[depth-1:0]`.
    pub depth: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Inst {
    pub module: String,
    pub name: String,
    pub conns: Vec<(String, Expr)>,
}

#[derive(Clone, Debug, Default)]
pub struct Module {
    pub name: String,
    pub ports: Vec<String>,
    pub decls: Vec<(String, Decl)>,
    pub params: Vec<(String, Lit)>,
    pub insts: Vec<Inst>,
    pub comb: Vec<Vec<Stmt>>,
    /// `(clock, body)` of each `always @(posedge clock)`.
    pub seq: Vec<(String, Vec<Stmt>)>,
    pub init: Vec<Vec<Stmt>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Id(String),
    Lit(Lit),
    Int(u64),
    /// `N'(`: a size cast's prefix (the parenthesis is the next token).
    CastW(u32),
    P(&'static str),
}

const PUNCT: [&str; 30] = [
    "+:", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", "[", "]", ";", ",", ".", "@",
    "*", "=", "<", ">", "+", "-", "&", "|", "^", "~", "!", ":", "#",
];

fn lex(src: &str) -> Result<Vec<(Tok, u32)>, String> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut line = 1u32;
    let mut out = vec![];
    let id_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    'outer: while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if b[i..].starts_with(b"(*") && !b[i..].starts_with(b"(*)") {
            match src[i..].find("*)") {
                Some(e) => {
                    line += src[i..i + e].matches('\n').count() as u32;
                    i += e + 2;
                    continue;
                }
                None => return Err(format!("line {line}: unterminated attribute")),
            }
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let s = i;
            while i < b.len() && id_char(b[i]) {
                i += 1;
            }
            out.push((Tok::Id(src[s..i].to_string()), line));
            continue;
        }
        if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                i += 1;
            }
            let n: u64 = src[s..i]
                .replace('_', "")
                .parse()
                .map_err(|_| format!("line {line}: number {:?} too large", &src[s..i]))?;
            if i < b.len() && b[i] == b'\'' {
                i += 1;
                let width =
                    u32::try_from(n).map_err(|_| format!("line {line}: width {n} too large"))?;
                if width == 0 {
                    return Err(format!("line {line}: zero-width literal"));
                }
                if i < b.len() && b[i] == b'(' {
                    out.push((Tok::CastW(width), line));
                    continue;
                }
                let radix = match b.get(i) {
                    Some(b'h') | Some(b'H') => 16,
                    Some(b'b') | Some(b'B') => 2,
                    Some(b'd') | Some(b'D') => 10,
                    _ => return Err(format!("line {line}: unsupported literal base")),
                };
                i += 1;
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let digits = src[s..i].replace('_', "");
                let words = parse_digits(&digits, radix, width)
                    .ok_or_else(|| format!("line {line}: bad literal digits {digits:?}"))?;
                out.push((Tok::Lit(Lit { width, words }), line));
                continue;
            }
            out.push((Tok::Int(n), line));
            continue;
        }
        for p in PUNCT {
            if b[i..].starts_with(p.as_bytes()) {
                out.push((Tok::P(p), line));
                i += p.len();
                continue 'outer;
            }
        }
        return Err(format!("line {line}: unexpected character {:?}", c as char));
    }
    Ok(out)
}

/// Digits in `radix` as `width` bits (higher bits dropped, as Verilog truncates).
#[doc(hidden)]
pub fn parse_digits(d: &str, radix: u32, width: u32) -> Option<Vec<u64>> {
    if d.is_empty() {
        return None;
    }
    let nw = width.div_ceil(64) as usize;
    let mut w = vec![0u64; nw + 1];
    for ch in d.chars() {
        let v = ch.to_digit(radix)? as u64;
        // w = w * radix + v
        let mut carry = v as u128;
        for x in w.iter_mut() {
            let t = (*x as u128) * radix as u128 + carry;
            *x = t as u64;
            carry = t >> 64;
        }
    }
    w.truncate(nw);
    let top = width % 64;
    if top != 0 {
        w[nw - 1] &= (1u64 << top) - 1;
    }
    Some(w)
}

struct P {
    t: Vec<(Tok, u32)>,
    i: usize,
}

impl P {
    fn line(&self) -> u32 {
        self.t
            .get(self.i)
            .or(self.t.last())
            .map(|x| x.1)
            .unwrap_or(0)
    }
    fn err<T>(&self, m: impl std::fmt::Display) -> Result<T, String> {
        Err(format!("line {}: {m}", self.line()))
    }
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i).map(|x| &x.0)
    }
    fn peek2(&self) -> Option<&Tok> {
        self.t.get(self.i + 1).map(|x| &x.0)
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::P(q)) if *q == p)
    }
    fn is_id(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Id(q)) if q == s)
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) || self.is_id(p) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, p: &str) -> Result<(), String> {
        if self.eat(p) {
            Ok(())
        } else {
            self.err(format!("expected {p:?}, found {:?}", self.peek()))
        }
    }
    fn id(&mut self) -> Result<String, String> {
        match self.peek() {
            Some(Tok::Id(s)) => {
                let s = s.clone();
                self.i += 1;
                Ok(s)
            }
            t => self.err(format!("expected a name, found {t:?}")),
        }
    }
    fn int(&mut self) -> Result<u64, String> {
        match self.peek() {
            Some(Tok::Int(n)) => {
                let n = *n;
                self.i += 1;
                Ok(n)
            }
            t => self.err(format!("expected a number, found {t:?}")),
        }
    }

    /// `[hi:0]` as a width (1 when absent).
    fn range(&mut self) -> Result<u32, String> {
        if !self.eat("[") {
            return Ok(1);
        }
        let hi = self.int()?;
        self.expect(":")?;
        let lo = self.int()?;
        self.expect("]")?;
        if lo != 0 || hi >= u32::MAX as u64 {
            return self.err("only [n:0] ranges are supported");
        }
        Ok(hi as u32 + 1)
    }

    fn module(&mut self) -> Result<Module, String> {
        self.expect("module")?;
        let mut m = Module {
            name: self.id()?,
            ..Default::default()
        };
        self.expect("(")?;
        while !self.eat(")") {
            m.ports.push(self.id()?);
            self.eat(",");
        }
        self.expect(";")?;
        loop {
            if self.eat("endmodule") {
                return Ok(m);
            }
            if self.eat("input") || self.is_id("output") {
                let kind = if self.t[self.i - 1].0 == Tok::Id("input".into()) {
                    Kind::Input
                } else {
                    self.i += 1;
                    Kind::Output
                };
                if !self.eat("wire") {
                    self.eat("reg");
                }
                let width = self.range()?;
                let name = self.id()?;
                self.expect(";")?;
                m.decls.push((
                    name,
                    Decl {
                        kind,
                        width,
                        depth: None,
                    },
                ));
            } else if self.eat("reg") || self.eat("wire") {
                let width = self.range()?;
                let name = self.id()?;
                let mut depth = None;
                if self.eat("[") {
                    let hi = self.int()?;
                    self.expect(":")?;
                    let lo = self.int()?;
                    self.expect("]")?;
                    if lo != 0 || hi >= 1 << 30 {
                        return self.err("only [n:0] memories are supported");
                    }
                    depth = Some(hi as u32 + 1);
                }
                self.expect(";")?;
                m.decls.push((
                    name,
                    Decl {
                        kind: Kind::Var,
                        width,
                        depth,
                    },
                ));
            } else if self.eat("localparam") {
                let name = self.id()?;
                self.expect("=")?;
                let v = match self.peek().cloned() {
                    Some(Tok::Lit(l)) => l,
                    Some(Tok::Int(n)) => Lit {
                        width: 32,
                        words: vec![n & 0xffff_ffff],
                    },
                    t => return self.err(format!("localparam {name}: unsupported value {t:?}")),
                };
                self.i += 1;
                self.expect(";")?;
                m.params.push((name, v));
            } else if self.eat("initial") {
                m.init.push(self.block()?);
            } else if self.eat("always") {
                self.expect("@")?;
                self.expect("(")?;
                if self.eat("*") {
                    self.expect(")")?;
                    m.comb.push(self.block()?);
                } else {
                    self.expect("posedge")?;
                    let clk = self.id()?;
                    self.expect(")")?;
                    m.seq.push((clk, self.block()?));
                }
            } else if matches!(self.peek(), Some(Tok::Id(_)))
                && matches!(self.peek2(), Some(Tok::Id(_)))
            {
                let module = self.id()?;
                let name = self.id()?;
                self.expect("(")?;
                let mut conns = vec![];
                while !self.eat(")") {
                    self.expect(".")?;
                    let port = self.id()?;
                    self.expect("(")?;
                    let e = self.expr()?;
                    self.expect(")")?;
                    conns.push((port, e));
                    self.eat(",");
                }
                self.expect(";")?;
                m.insts.push(Inst {
                    module,
                    name,
                    conns,
                });
            } else {
                return self.err(format!(
                    "module {}: unsupported item at {:?}",
                    m.name,
                    self.peek()
                ));
            }
        }
    }

    /// A statement or a `begin ... end` block, as a list.
    fn block(&mut self) -> Result<Vec<Stmt>, String> {
        if self.eat("begin") {
            let mut v = vec![];
            while !self.eat("end") {
                if self.peek().is_none() {
                    return self.err("missing end");
                }
                v.push(self.stmt()?);
            }
            Ok(v)
        } else {
            Ok(vec![self.stmt()?])
        }
    }

    fn stmt(&mut self) -> Result<Stmt, String> {
        if self.eat("case") {
            return self.case();
        }
        if self.eat("if") {
            self.expect("(")?;
            let cond = self.expr()?;
            self.expect(")")?;
            let then = self.block()?;
            let els = if self.eat("else") {
                self.block()?
            } else {
                vec![]
            };
            return Ok(Stmt::If { cond, then, els });
        }
        let name = self.id()?;
        let lhs = if self.eat("[") {
            let off = self.expr()?;
            if self.eat("+:") {
                let w = self.width_after_plus_colon()?;
                self.expect("]")?;
                LValue::Slice(name, off, w)
            } else {
                self.expect("]")?;
                LValue::Index(name, off)
            }
        } else {
            LValue::Ident(name)
        };
        let nonblocking = if self.eat("<=") {
            true
        } else {
            self.expect("=")?;
            false
        };
        let rhs = self.expr()?;
        self.expect(";")?;
        Ok(Stmt::Assign {
            lhs,
            rhs,
            nonblocking,
        })
    }

    /// `case (test) label[, label]: stmt ... [default: stmt] endcase` (what rust-hdl writes
    /// for a `match`), as the equivalent `if` / `else if` chain: with two-state values,
    /// the case equality of each label is `==` at the wider width.
    fn case(&mut self) -> Result<Stmt, String> {
        self.expect("(")?;
        let test = self.expr()?;
        self.expect(")")?;
        let mut arms: Vec<(Vec<Expr>, Vec<Stmt>)> = vec![];
        let mut default = vec![];
        loop {
            if self.eat("endcase") {
                break;
            }
            if self.peek().is_none() {
                return self.err("missing endcase");
            }
            if self.eat("default") {
                self.eat(":");
                default = self.block()?;
                continue;
            }
            let mut labels = vec![self.expr()?];
            while self.eat(",") {
                labels.push(self.expr()?);
            }
            self.expect(":")?;
            arms.push((labels, self.block()?));
        }
        let mut els = default;
        for (labels, then) in arms.into_iter().rev() {
            let mut cond: Option<Expr> = None;
            for l in labels {
                let eq = Expr::Bin(BinOp::Eq, Box::new(test.clone()), Box::new(l));
                cond = Some(match cond {
                    None => eq,
                    Some(c) => Expr::Bin(BinOp::LOr, Box::new(c), Box::new(eq)),
                });
            }
            let cond = cond.expect("a case arm has a label");
            els = vec![Stmt::If { cond, then, els }];
        }
        Ok(match els.len() {
            1 => els.remove(0),
            // Only a default (or nothing): always taken.
            _ => Stmt::If {
                cond: Expr::Int(1),
                then: els,
                els: vec![],
            },
        })
    }

    fn expr(&mut self) -> Result<Expr, String> {
        self.binary(0)
    }

    fn binary(&mut self, min: u8) -> Result<Expr, String> {
        let mut l = self.unary()?;
        loop {
            let (op, prec) = match self.peek() {
                Some(Tok::P(p)) => match *p {
                    "||" => (BinOp::LOr, 1),
                    "&&" => (BinOp::LAnd, 2),
                    "|" => (BinOp::Or, 3),
                    "^" => (BinOp::Xor, 4),
                    "&" => (BinOp::And, 5),
                    "==" => (BinOp::Eq, 6),
                    "!=" => (BinOp::Ne, 6),
                    "<" => (BinOp::Lt, 7),
                    "<=" => (BinOp::Le, 7),
                    ">" => (BinOp::Gt, 7),
                    ">=" => (BinOp::Ge, 7),
                    "<<" => (BinOp::Shl, 8),
                    ">>" => (BinOp::Shr, 8),
                    "+" => (BinOp::Add, 9),
                    "-" => (BinOp::Sub, 9),
                    "*" => (BinOp::Mul, 10),
                    _ => return Ok(l),
                },
                _ => return Ok(l),
            };
            if prec < min {
                return Ok(l);
            }
            self.i += 1;
            let r = self.binary(prec + 1)?;
            l = Expr::Bin(op, Box::new(l), Box::new(r));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        let op = match self.peek() {
            Some(Tok::P("~")) => Some(UnOp::Not),
            Some(Tok::P("-")) => Some(UnOp::Neg),
            Some(Tok::P("&")) => Some(UnOp::RedAnd),
            Some(Tok::P("|")) => Some(UnOp::RedOr),
            Some(Tok::P("^")) => Some(UnOp::RedXor),
            Some(Tok::P("!")) => Some(UnOp::LNot),
            _ => None,
        };
        if let Some(op) = op {
            self.i += 1;
            return Ok(Expr::Un(op, Box::new(self.unary()?)));
        }
        let mut e = self.primary()?;
        while self.eat("[") {
            let off = self.expr()?;
            if self.eat("+:") {
                let w = self.width_after_plus_colon()?;
                self.expect("]")?;
                e = Expr::Slice(Box::new(e), Box::new(off), w);
            } else {
                self.expect("]")?;
                e = Expr::Index(Box::new(e), Box::new(off));
            }
        }
        Ok(e)
    }

    /// The width of a part-select `[off+:w]`, `w` a number, possibly parenthesised.
    fn width_after_plus_colon(&mut self) -> Result<u32, String> {
        let w = if self.eat("(") {
            let w = self.int()?;
            self.expect(")")?;
            w
        } else {
            self.int()?
        };
        if w == 0 || w > 1 << 20 {
            return self.err(format!("part-select width {w}"));
        }
        Ok(w as u32)
    }

    fn primary(&mut self) -> Result<Expr, String> {
        match self.peek().cloned() {
            Some(Tok::Id(s)) => {
                self.i += 1;
                Ok(Expr::Ident(s))
            }
            Some(Tok::Lit(l)) => {
                self.i += 1;
                Ok(Expr::Lit(l))
            }
            Some(Tok::Int(n)) => {
                self.i += 1;
                Ok(Expr::Int(n))
            }
            Some(Tok::CastW(w)) => {
                self.i += 1;
                self.expect("(")?;
                let e = self.expr()?;
                self.expect(")")?;
                Ok(Expr::Cast(w, Box::new(e)))
            }
            Some(Tok::P("(")) => {
                self.i += 1;
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            t => self.err(format!("unexpected {t:?} in an expression")),
        }
    }
}

/// Every module of `src`.
pub fn parse(src: &str) -> Result<Vec<Module>, String> {
    let mut p = P { t: lex(src)?, i: 0 };
    let mut v = vec![];
    while p.peek().is_some() {
        v.push(p.module()?);
    }
    Ok(v)
}
