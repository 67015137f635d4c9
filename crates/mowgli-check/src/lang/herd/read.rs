//! The herd7 x86 test as written: header, init block, thread table of MOV and
//! MFENCE instructions, final condition.

use super::lex::*;
use super::*;

// ---------------------------------------------------------------------------
// Registers
// ---------------------------------------------------------------------------

pub(super) const X86_REGS: [&str; 8] = ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP"];
pub(super) const X86_64_REGS: [&str; 16] =
    ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"];
pub(super) const X86_64_REGS32: [&str; 16] = [
    "eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d",
    "r15d",
];
pub(super) const X86_64_NARROW: [&str; 36] = [
    "ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w", "r15w", "al",
    "bl", "cl", "dl", "sil", "dil", "bpl", "spl", "r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "r15b", "ah",
    "bh", "ch", "dh",
];

/// A register by name: (herd's register number, canonical name); `Err` says why not.
pub(super) fn register(arch: Arch, name: &str) -> Result<(usize, String), String> {
    match arch {
        Arch::X86 => match X86_REGS.iter().position(|r| *r == name) {
            Some(i) => Ok((i, X86_REGS[i].to_string())),
            None if matches!(name, "EIP" | "ZF" | "SF" | "CF") => {
                Err(format!("register `{name}` (the program counter or a flag) is not supported"))
            }
            None => Err(format!("`{name}` is no X86 register (registers: {})", X86_REGS.join(", "))),
        },
        Arch::X86_64 => {
            let l = name.to_ascii_lowercase();
            if let Some(i) = X86_64_REGS.iter().position(|r| *r == l).or(X86_64_REGS32.iter().position(|r| *r == l)) {
                Ok((i, X86_64_REGS[i].to_string()))
            } else if X86_64_NARROW.contains(&l.as_str()) {
                Err(format!("register `{name}` is 8 or 16 bits wide: mixed-size accesses are not supported"))
            } else {
                Err(format!("`{name}` is no X86_64 general-purpose register (32- or 64-bit: %eax/%rax … %r15d/%r15)"))
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The parsed test
// ---------------------------------------------------------------------------

#[derive(Clone, Debug)]
pub(super) enum Operand {
    Imm(i64),
    Reg(usize, String),
    Mem(String),
}

#[derive(Clone, Debug)]
pub(super) enum Instr {
    /// `x := src`
    Store(String, Operand),
    /// `r := [x]`
    Load(usize, String, String),
    /// `r := imm` or `r := s`
    Set(usize, String, Operand),
    Mfence,
}

pub(super) struct Parsed {
    pub(super) arch: Arch,
    pub(super) name: String,
    pub(super) name_pos: Pos,
    pub(super) hash: Option<String>,
    pub(super) init: Vec<(HLoc, i64, Pos)>,
    pub(super) procs: Vec<(u32, Pos)>,
    pub(super) code: Vec<Vec<(Instr, Pos)>>,
    pub(super) locations: Vec<(HLoc, Pos)>,
    pub(super) quant: Quant,
    pub(super) prop: Prop,
    pub(super) cond_pos: Pos,
}

pub(super) struct Src {
    pub(super) cs: Vec<char>,
    pub(super) line_starts: Vec<usize>,
}

impl Src {
    pub(super) fn pos(&self, at: usize) -> Pos {
        let line = self.line_starts.partition_point(|&s| s <= at).max(1);
        Pos { line, col: at - self.line_starts[line - 1] + 1 }
    }
    /// An error at character `at` (the renderer shows its source line and a caret).
    pub(super) fn err<T>(&self, at: usize, msg: impl Into<String>) -> R<T> {
        Err(Diagnostic::new(self.pos(at), msg))
    }
}

pub(super) struct P<'s> {
    pub(super) src: &'s Src,
    pub(super) toks: Vec<Token>,
    pub(super) i: usize,
    /// Where the input ends (for messages about a missing token).
    pub(super) end: usize,
    pub(super) arch: Arch,
    /// Levels of the condition the parser is in (see [`P::enter`]).
    pub(super) depth: usize,
}

impl P<'_> {
    /// One level deeper in the condition (`~`, `(`, a connective of a chain) at the
    /// current token: an error past [`mowgli_diag::MAX_NESTING`].
    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        self.check_depth(0)
    }
    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
    /// A tree `depth` deep below the levels the parser is in, built at the current token.
    fn check_depth(&self, depth: usize) -> R<()> {
        if self.depth + depth > mowgli_diag::MAX_NESTING {
            return Err(Diagnostic::too_deep(self.src.pos(self.at())));
        }
        Ok(())
    }
    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }
    pub(super) fn at(&self) -> usize {
        self.toks.get(self.i).map(|t| t.at).unwrap_or(self.end)
    }
    pub(super) fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }
    pub(super) fn eat(&mut self, p: &str) -> bool {
        let yes = self.is(p);
        if yes {
            self.i += 1;
        }
        yes
    }
    pub(super) fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x == w)
    }
    pub(super) fn fail<T>(&self, what: &str) -> R<T> {
        let found = self.peek().map(Tok::describe).unwrap_or_else(|| "the end of the test".into());
        Err(Diagnostic::expected_found(self.src.pos(self.at()), what, &found, 1))
    }
    pub(super) fn expect(&mut self, p: &str) -> R<()> {
        if self.eat(p) {
            Ok(())
        } else {
            self.fail(&format!("`{p}`"))
        }
    }
    pub(super) fn int(&mut self, what: &str) -> R<i64> {
        match self.peek() {
            Some(Tok::Int(v)) | Some(Tok::Imm(v)) => {
                let v = *v;
                self.i += 1;
                Ok(v)
            }
            _ => self.fail(what),
        }
    }

    /// A location of the init block, the `locations` line or a condition:
    /// `N:REG`, `x` or `[x]`.
    pub(super) fn location(&mut self) -> R<HLoc> {
        let at = self.at();
        match self.peek().cloned() {
            Some(Tok::Int(p)) if matches!(self.toks.get(self.i + 1).map(|t| &t.tok), Some(Tok::Punct(":"))) => {
                self.i += 2;
                let rat = self.at();
                let name = match self.peek().cloned() {
                    Some(Tok::Word(w)) | Some(Tok::Reg(w)) => w,
                    _ => return self.fail("a register after `N:`"),
                };
                self.i += 1;
                if p < 0 || p > u32::MAX as i64 {
                    return self.src.err(at, format!("`{p}` is no thread number"));
                }
                let (k, canon) = register(self.arch, &name).or_else(|m| self.src.err(rat, m))?;
                Ok(HLoc::Reg(p as u32, k, canon))
            }
            Some(Tok::Word(w)) => {
                self.i += 1;
                Ok(HLoc::Global(w))
            }
            Some(Tok::Punct("[")) => {
                self.i += 1;
                let w = match self.peek().cloned() {
                    Some(Tok::Word(w)) => w,
                    _ => return self.fail("a location name inside `[…]`"),
                };
                self.i += 1;
                self.expect("]")?;
                Ok(HLoc::Global(w))
            }
            _ => self.fail("a location (`N:REG`, `x` or `[x]`)"),
        }
    }

    /// The init block, after `{`, up to and with `}`.
    pub(super) fn init(&mut self) -> R<Vec<(HLoc, i64, Pos)>> {
        let mut out = Vec::new();
        loop {
            if self.eat("}") {
                return Ok(out);
            }
            if self.eat(";") {
                continue;
            }
            if self.peek().is_none() {
                return self.fail("`}` closing the init block");
            }
            // an optional type: `int x = 0;`, `uint64_t 1:X1;`
            if let (Some(Tok::Word(_)), Some(next)) = (self.peek(), self.toks.get(self.i + 1).map(|t| &t.tok)) {
                let typed = matches!(next, Tok::Word(_) | Tok::Punct("[") | Tok::Punct("*"))
                    || (matches!(next, Tok::Int(_))
                        && matches!(self.toks.get(self.i + 2).map(|t| &t.tok), Some(Tok::Punct(":"))));
                if typed {
                    self.i += 1;
                }
            }
            if self.is("*") {
                return self.src.err(self.at(), "pointers in the init block are not supported");
            }
            if self.is("{") {
                return self.src.err(self.at(), "arrays and nested braces in the init block are not supported");
            }
            let at = self.at();
            let loc = self.location()?;
            let v = if self.eat("=") {
                match self.peek().cloned() {
                    Some(Tok::Word(w)) => {
                        return self.src.err(
                            self.at(),
                            format!(
                                "`{}` holds the address of `{w}`: indirect addressing is not supported",
                                loc.herd()
                            ),
                        )
                    }
                    _ => self.int("an integer value")?,
                }
            } else {
                0
            };
            out.push((loc, v, self.src.pos(at)));
            if !self.eat(";") && !self.is("}") {
                return self.fail("`;` or `}`");
            }
        }
    }

    /// One operand of an instruction.
    pub(super) fn operand(&mut self) -> R<Operand> {
        let at = self.at();
        let mem_close = |open: &str| if open == "(" { ")" } else { "]" };
        match self.peek().cloned() {
            Some(Tok::Imm(v)) => {
                self.i += 1;
                Ok(Operand::Imm(v))
            }
            Some(Tok::Int(v)) => {
                if matches!(self.toks.get(self.i + 1).map(|t| &t.tok), Some(Tok::Punct("(" | "["))) {
                    return self.src.err(at, "an address with a displacement (`k(…)`) is not supported");
                }
                self.i += 1;
                Ok(Operand::Imm(v))
            }
            Some(Tok::Reg(r)) if self.arch == Arch::X86_64 => {
                self.i += 1;
                let (k, c) = register(self.arch, &r).or_else(|m| self.src.err(at, m))?;
                Ok(Operand::Reg(k, c))
            }
            Some(Tok::Reg(r)) => self.src.err(at, format!("`%{r}`: X86 registers are written without `%` (EAX, …)")),
            Some(Tok::Word(w)) => match register(self.arch, &w) {
                Ok((k, c)) => {
                    self.i += 1;
                    Ok(Operand::Reg(k, c))
                }
                Err(m) if m.contains("not supported") => self.src.err(at, m),
                Err(_) => self.src.err(
                    at,
                    match self.arch {
                        Arch::X86 => format!("expected a register, `[location]` or `$value`, found `{w}`"),
                        Arch::X86_64 => format!("expected `%register`, `(location)` or `$value`, found `{w}`"),
                    },
                ),
            },
            Some(Tok::Punct(open @ ("(" | "["))) => {
                self.i += 1;
                let inner = self.at();
                let name =
                    match self.peek().cloned() {
                        Some(Tok::Word(w)) if register(self.arch, &w).is_err() => w,
                        Some(Tok::Word(_)) | Some(Tok::Reg(_)) => return self.src.err(
                            inner,
                            "an address held in a register (indirect addressing) is not supported: name the location",
                        ),
                        Some(Tok::Int(_)) => {
                            return self.src.err(inner, "an absolute address is not supported: name the location")
                        }
                        _ => return self.fail("a location name"),
                    };
                self.i += 1;
                if self.is(",") {
                    return self.src.err(self.at(), "scaled addressing is not supported");
                }
                self.expect(mem_close(open))?;
                Ok(Operand::Mem(name))
            }
            _ => self.fail("an operand"),
        }
    }

    /// One cell of the thread table (tokens `self.i..end`).
    pub(super) fn instr(&mut self, end: usize) -> R<Option<Instr>> {
        if self.i == end {
            return Ok(None);
        }
        let at = self.at();
        let m = match self.peek().cloned() {
            Some(Tok::Word(m)) => m,
            _ => return self.fail("an instruction"),
        };
        if matches!(self.toks.get(self.i + 1).map(|t| &t.tok), Some(Tok::Punct(":"))) {
            return self.src.err(at, format!("label `{m}:`: labels and jumps are not supported"));
        }
        self.i += 1;
        let lower = m.to_ascii_lowercase();
        let supported = match self.arch {
            Arch::X86 => "MOV between a register and a location or an immediate, and MFENCE",
            Arch::X86_64 => "mov/movl/movq between a register and a location or an immediate, and mfence",
        };
        let ins = match (self.arch, lower.as_str()) {
            (_, "mfence") => Instr::Mfence,
            (Arch::X86, "mov") | (Arch::X86_64, "mov" | "movl" | "movq") => {
                let a = self.operand()?;
                self.expect(",")?;
                let b = self.operand()?;
                let (dst, src) = if self.arch == Arch::X86 { (a, b) } else { (b, a) };
                match (dst, src) {
                    (Operand::Mem(x), s @ (Operand::Imm(_) | Operand::Reg(..))) => Instr::Store(x, s),
                    (Operand::Reg(k, r), Operand::Mem(x)) => Instr::Load(k, r, x),
                    (Operand::Reg(k, r), s) => Instr::Set(k, r, s),
                    (Operand::Mem(_), Operand::Mem(_)) => {
                        return self.src.err(at, format!("`{m}` from memory to memory is no x86 instruction"))
                    }
                    (Operand::Imm(_), _) => {
                        return self.src.err(at, format!("`{m}` cannot write to an immediate value"));
                    }
                }
            }
            (Arch::X86_64, "movb" | "movw") => {
                return Err(Diagnostic::new(
                    self.src.pos(at),
                    format!("unsupported X86_64 instruction `{m}`: mixed-size accesses are not supported (Mowgli reads {supported})"),
                )
                .with_span(m.chars().count()))
            }
            _ => {
                let known: &[&str] = match self.arch {
                    Arch::X86 => &["MOV", "MFENCE"],
                    Arch::X86_64 => &["mov", "movl", "movq", "mfence"],
                };
                return Err(Diagnostic::unknown(
                    self.src.pos(at),
                    &m,
                    format!("unsupported {} instruction `{m}` (Mowgli reads {supported})", self.arch.name()),
                    known.iter().copied(),
                ));
            }
        };
        if self.i != end {
            return self.fail("the end of the instruction (`|` or `;`)");
        }
        Ok(Some(ins))
    }

    /// herd's propositions: `\/` below `/\` below `=>` below `~`/`not`.
    pub(super) fn prop_or(&mut self) -> R<Prop> {
        let mut p = self.prop_and()?;
        let mut d = p.depth();
        while self.is("\\/") {
            let at = self.i;
            self.i += 1;
            let q = self.prop_and()?;
            // each connective of a chain is a level of the tree it builds
            d = d.max(q.depth()) + 1;
            self.check_depth_at(d, at)?;
            p = Prop::Or(Box::new(p), Box::new(q));
        }
        Ok(p)
    }
    pub(super) fn prop_and(&mut self) -> R<Prop> {
        let mut p = self.prop_imp()?;
        let mut d = p.depth();
        while self.is("/\\") {
            let at = self.i;
            self.i += 1;
            let q = self.prop_imp()?;
            d = d.max(q.depth()) + 1;
            self.check_depth_at(d, at)?;
            p = Prop::And(Box::new(p), Box::new(q));
        }
        Ok(p)
    }
    /// [`P::check_depth`] at token `at` (a connective already read).
    fn check_depth_at(&mut self, depth: usize, at: usize) -> R<()> {
        let here = self.i;
        self.i = at;
        let r = self.check_depth(depth);
        self.i = here;
        r
    }
    pub(super) fn prop_imp(&mut self) -> R<Prop> {
        let p = self.prop_unary()?;
        if self.is("=>") {
            self.enter()?;
            self.i += 1;
            let q = self.prop_imp()?;
            self.leave();
            return Ok(Prop::Implies(Box::new(p), Box::new(q)));
        }
        Ok(p)
    }
    pub(super) fn prop_unary(&mut self) -> R<Prop> {
        if self.is("~") || (self.is_word("not") && !self.next_is_eq()) {
            self.enter()?;
            self.i += 1;
            let p = self.prop_unary()?;
            self.leave();
            return Ok(Prop::Not(Box::new(p)));
        }
        if self.is("(") {
            self.enter()?;
            self.i += 1;
            let p = self.prop_or()?;
            self.expect(")")?;
            self.leave();
            return Ok(p);
        }
        for (w, p) in [("true", Prop::True), ("false", Prop::False)] {
            if self.is_word(w) && !self.next_is_eq() {
                self.i += 1;
                return Ok(p);
            }
        }
        let loc = self.location()?;
        let negate = if self.eat("!=") {
            true
        } else if self.eat("=") || self.eat("==") {
            false
        } else {
            return self.fail("`=`");
        };
        if let Some(Tok::Word(w)) = self.peek() {
            let w = w.clone();
            return self.src.err(self.at(), format!("`{w}`: only integer values are supported in conditions"));
        }
        let v = self.int("an integer value")?;
        let a = Prop::Atom(loc, v);
        Ok(if negate { Prop::Not(Box::new(a)) } else { a })
    }
    pub(super) fn next_is_eq(&self) -> bool {
        matches!(self.toks.get(self.i + 1).map(|t| &t.tok), Some(Tok::Punct("=" | "==" | "!=")))
    }
}

/// Whether token `k` starts the constraint part (herd's splitter stops the
/// program at these words).
pub(super) fn starts_constraint(toks: &[Token], k: usize) -> bool {
    match &toks[k].tok {
        Tok::Word(w) => {
            matches!(
                w.as_str(),
                "exists" | "forall" | "final" | "locations" | "filter" | "observed" | "Observed" | "cases"
            )
        }
        Tok::Punct("~") => matches!(toks.get(k + 1).map(|t| &t.tok), Some(Tok::Word(w)) if w == "exists"),
        _ => false,
    }
}

pub(super) fn parse_herd(raw: &str) -> R<Parsed> {
    let cs = blank_comments(raw).map_err(|(at, msg)| {
        let s = Src { cs: raw.chars().collect(), line_starts: line_starts(raw) };
        s.err::<()>(at, msg).unwrap_err()
    })?;
    let src = Src { cs, line_starts: line_starts(raw) };
    let cs = &src.cs;
    // the header line
    let mut i = 0;
    while i < cs.len() && cs[i].is_whitespace() {
        i += 1;
    }
    let arch_at = i;
    while i < cs.len() && !cs[i].is_whitespace() {
        i += 1;
    }
    let arch = match cs[arch_at..i].iter().collect::<String>().as_str() {
        "X86" => Arch::X86,
        "X86_64" => Arch::X86_64,
        other => return src.err(arch_at, format!("expected `X86` or `X86_64`, found `{other}`")),
    };
    while i < cs.len() && (cs[i] == ' ' || cs[i] == '\t') {
        i += 1;
    }
    let name_at = i;
    while i < cs.len() && !cs[i].is_whitespace() && cs[i] != '"' && cs[i] != '(' {
        i += 1;
    }
    let name: String = cs[name_at..i].iter().collect();
    let name_ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '.' | '-' | '+' | '[' | ']' | ':'));
    if !name_ok {
        return src.err(name_at, "expected a test name after the architecture");
    }
    // up to the init block: the doc string, `key=value` lines (diy7's metadata:
    // Generator, Prefetch, Com, Orig, Cycle, Relax, Safe, Hash, …), other text
    let mut hash = None;
    let mut in_str = false;
    let mut line_start = i;
    let brace = loop {
        if i >= cs.len() {
            return src.err(cs.len(), "expected the init block `{ … }`");
        }
        let c = cs[i];
        if in_str {
            in_str = c != '"';
        } else if c == '"' {
            in_str = true;
        } else if c == '{' {
            break i;
        } else if c == '\n' {
            let line: String = cs[line_start..i].iter().collect();
            if let Some((k, v)) = line.split_once('=') {
                if k.trim().eq_ignore_ascii_case("hash") {
                    hash = Some(v.trim().to_string());
                }
            }
            line_start = i + 1;
        }
        i += 1;
    };
    let toks = lex(cs, brace).or_else(|(at, m)| src.err(at, m))?;
    let mut p = P { src: &src, toks, i: 1, end: cs.len(), arch, depth: 0 };
    let init = p.init()?;
    // the program, up to the constraint
    let prog_end = (p.i..p.toks.len()).find(|&k| starts_constraint(&p.toks, k)).unwrap_or(p.toks.len());
    p.eat(";");
    // header row: P0 | P1 | … ;
    let mut procs: Vec<(u32, Pos)> = Vec::new();
    loop {
        let at = p.at();
        match p.peek().cloned() {
            Some(Tok::Word(w)) if p.i < prog_end => {
                let n = w.strip_prefix('P').and_then(|n| n.parse::<u32>().ok());
                let Some(n) = n else { return p.fail("a thread `P0`, `P1`, …") };
                if procs.iter().any(|(m, _)| *m == n) {
                    return src.err(at, format!("thread P{n} appears twice"));
                }
                if procs.len() >= crate::lang::limits::MAX_THREADS {
                    return Err(Diagnostic::too_many(src.pos(at), "threads", crate::lang::limits::MAX_THREADS));
                }
                procs.push((n, src.pos(at)));
                p.i += 1;
            }
            _ => return p.fail("a thread `P0`, `P1`, … (the header row of the thread table)"),
        }
        if p.eat(";") {
            break;
        }
        if !p.eat("|") {
            return p.fail("`|` or `;`");
        }
    }
    let mut code: Vec<Vec<(Instr, Pos)>> = vec![Vec::new(); procs.len()];
    while p.i < prog_end {
        let row_at = p.at();
        let mut col = 0;
        loop {
            let end = (p.i..prog_end).find(|&k| matches!(p.toks[k].tok, Tok::Punct("|" | ";"))).unwrap_or(prog_end);
            let at = p.at();
            let ins = p.instr(end)?;
            if let Some(ins) = ins {
                if col >= procs.len() {
                    return src.err(at, format!("this row has more columns than the {} threads", procs.len()));
                }
                if code[col].len() >= crate::lang::grammar::MAX_STATEMENTS {
                    let max = crate::lang::grammar::MAX_STATEMENTS;
                    return Err(Diagnostic::too_many(src.pos(at), "instructions in one thread", max));
                }
                code[col].push((ins, src.pos(at)));
            }
            col += 1;
            if p.i >= prog_end {
                return src.err(p.at(), "expected `;` at the end of this row of the thread table");
            }
            if p.eat(";") {
                break;
            }
            p.expect("|")?;
        }
        if col != procs.len() {
            return src.err(row_at, format!("this row has {col} columns, the thread table {}", procs.len()));
        }
    }
    // the constraint
    let mut locations = Vec::new();
    if p.is_word("locations") {
        p.i += 1;
        p.expect("[")?;
        while !p.eat("]") {
            let at = p.at();
            let l = p.location()?;
            locations.push((l, src.pos(at)));
            if !p.eat(";") && !p.is("]") {
                return p.fail("`;` or `]`");
            }
        }
    }
    for w in ["filter", "final", "observed", "Observed", "cases"] {
        if p.is_word(w) {
            return src.err(p.at(), format!("`{w}` is not supported (Mowgli reads exists, ~exists and forall)"));
        }
    }
    let cond_at = p.at();
    let quant = if p.is_word("exists") {
        p.i += 1;
        Some(Quant::Exists)
    } else if p.is("~") && matches!(p.toks.get(p.i + 1).map(|t| &t.tok), Some(Tok::Word(w)) if w == "exists") {
        p.i += 2;
        Some(Quant::NotExists)
    } else if p.is_word("forall") {
        p.i += 1;
        Some(Quant::Forall)
    } else {
        None
    };
    let (quant, prop) = match quant {
        Some(q) => (q, p.prop_or()?),
        // no condition: herd's `forall true`
        None if p.peek().is_none() || p.is("<<") => (Quant::Forall, Prop::True),
        None => return p.fail("`exists`, `~exists` or `forall`"),
    };
    p.eat(";");
    if p.is_word("with") {
        return src.err(p.at(), "`with` (kinds) is not supported");
    }
    if p.peek().is_some() && !p.is("<<") {
        return p.fail("the end of the condition");
    }
    Ok(Parsed {
        arch,
        name,
        name_pos: src.pos(name_at),
        hash,
        init,
        procs,
        code,
        locations,
        quant,
        prop,
        cond_pos: src.pos(cond_at),
    })
}

pub(super) fn line_starts(raw: &str) -> Vec<usize> {
    let mut v = vec![0];
    for (i, c) in raw.chars().enumerate() {
        if c == '\n' {
            v.push(i + 1);
        }
    }
    v
}
