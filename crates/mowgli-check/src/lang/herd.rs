//! Reader of herd7's x86 litmus format (`X86 NAME` and `X86_64 NAME`), see
//! `docs/formats.md`, "herd7 x86 tests".
//!
//! A herd test becomes a test of the project's own format ([`Litmus`]): library
//! `rdmatso`, every thread `Pn` and every location on node 1, `MOV` stores
//! `Write(x, v)`, `MOV` loads `R = Read(x)`, `MFENCE` `Mfence()`. It is then lowered
//! and run by the same code as every other test ([`super::lower::lower`]); only the
//! reading and the herd-style reporting ([`super::herdlog`]) are here. Positions in
//! the built test point into the herd file, so later errors point there too.
//!
//! Supported: the header (`X86`/`X86_64`, name, optional doc string), diy7's
//! metadata lines (`key=value`, skipped; `Hash=` is kept for the log), OCaml
//! comments `(* *)`, the init block, the thread table, `MOV`/`MFENCE` (Intel syntax
//! for `X86`; `mov`/`movl`/`movq`/`mfence` in AT&T syntax for `X86_64`), an optional
//! `locations [...]` line and one final condition `exists`/`~exists`/`forall` over
//! `/\`, `\/`, `=>`, `~`/`not`, `true`, `false` and atoms `N:REG=V`, `x=V`, `[x]=V`.
//! Anything else is refused with its position and source line.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::syntax::{Cond, Diagnostic, Expect, Lit, Litmus, LocDecl, Name, Pos, SyntaxError};
use crate::lang::grammar::{CallEx, Ex, Rhs, Stmt};

type R<T> = Result<T, SyntaxError>;

/// The two x86 dialects of herd7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Arch {
    /// `X86`: Intel syntax, `MOV dst,src`, registers `EAX`…
    X86,
    /// `X86_64`: AT&T syntax, `movl src,dst`, registers `%eax`/`%rax`…
    X86_64,
}

impl Arch {
    pub fn name(self) -> &'static str {
        match self {
            Arch::X86 => "X86",
            Arch::X86_64 => "X86_64",
        }
    }
}

/// The quantifier of a herd condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Quant {
    /// `exists P`: herd says Ok when some final state satisfies P.
    Exists,
    /// `~exists P`: Ok when none does.
    NotExists,
    /// `forall P`: Ok when all do.
    Forall,
}

/// A location of a herd test: a register of a thread, or a memory location.
/// The order is herd's (registers first, by thread then register number; then
/// memory locations by name).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HLoc {
    /// Thread number, register number (herd's order), canonical name.
    Reg(u32, usize, String),
    Global(String),
}

impl HLoc {
    /// How herd7 prints it in states and conditions: `0:EAX`, `[x]`.
    pub fn herd(&self) -> String {
        match self {
            HLoc::Reg(p, _, r) => format!("{p}:{r}"),
            HLoc::Global(x) => format!("[{x}]"),
        }
    }
    /// Its key in Mowgli's outcomes: `P0:EAX`, `x`.
    pub fn key(&self) -> String {
        match self {
            HLoc::Reg(p, _, r) => format!("P{p}:{r}"),
            HLoc::Global(x) => x.clone(),
        }
    }
}

/// A herd proposition, as parsed (herd's binary `/\` and `\/` nodes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prop {
    True,
    False,
    Atom(HLoc, i64),
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
    Implies(Box<Prop>, Box<Prop>),
}

impl Prop {
    /// Whether the proposition holds in a state (values by [`HLoc::key`]).
    pub fn holds(&self, st: &BTreeMap<String, String>) -> bool {
        match self {
            Prop::True => true,
            Prop::False => false,
            Prop::Atom(l, v) => st.get(&l.key()).is_some_and(|x| *x == v.to_string()),
            Prop::Not(p) => !p.holds(st),
            Prop::And(a, b) => a.holds(st) && b.holds(st),
            Prop::Or(a, b) => a.holds(st) || b.holds(st),
            Prop::Implies(a, b) => !a.holds(st) || b.holds(st),
        }
    }

    fn locs(&self, out: &mut Vec<(HLoc, Pos)>, pos: Pos) {
        match self {
            Prop::Atom(l, _) => out.push((l.clone(), pos)),
            Prop::Not(p) => p.locs(out, pos),
            Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => {
                a.locs(out, pos);
                b.locs(out, pos);
            }
            Prop::True | Prop::False => {}
        }
    }

    /// The proposition as herd7 prints it (`not (…)`, `[x]=1`, parentheses only
    /// where the operators' precedence needs them).
    pub fn herd(&self) -> String {
        self.pp(Op::Top)
    }

    fn pp(&self, above: Op) -> String {
        let paren = |here: Op, s: String| if needs_paren(above, here) { format!("({s})") } else { s };
        match self {
            Prop::True => "true".into(),
            Prop::False => "false".into(),
            Prop::Atom(l, v) => format!("{}={v}", l.herd()),
            Prop::Not(p) => format!("not ({})", p.pp(Op::Top)),
            Prop::And(a, b) => paren(Op::And, format!("{} /\\ {}", a.pp(Op::And), b.pp(Op::And))),
            Prop::Or(a, b) => paren(Op::Or, format!("{} \\/ {}", a.pp(Op::Or), b.pp(Op::Or))),
            Prop::Implies(a, b) => paren(Op::Implies, format!("{} => {}", a.pp(Op::Implies), b.pp(Op::Implies))),
        }
    }

    /// The same proposition as a condition of the project's format.
    fn cond(&self, pos: Pos) -> Cond {
        let n = |text: String| Name { text, pos };
        match self {
            Prop::True => Cond::True,
            Prop::False => Cond::Not(Box::new(Cond::True)),
            Prop::Atom(HLoc::Reg(p, _, r), v) => {
                Cond::Reg { thread: n(format!("P{p}")), reg: n(r.clone()), val: Lit::Int(*v) }
            }
            Prop::Atom(HLoc::Global(x), v) => Cond::Loc { loc: n(x.clone()), node: None, val: Lit::Int(*v) },
            Prop::Not(p) => Cond::Not(Box::new(p.cond(pos))),
            Prop::And(a, b) => Cond::And(Box::new(a.cond(pos)), Box::new(b.cond(pos))),
            Prop::Or(a, b) => Cond::Or(Box::new(a.cond(pos)), Box::new(b.cond(pos))),
            Prop::Implies(a, b) => Cond::Or(Box::new(Cond::Not(Box::new(a.cond(pos)))), Box::new(b.cond(pos))),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Top,
    And,
    Or,
    Implies,
}

fn needs_paren(above: Op, here: Op) -> bool {
    match (above, here) {
        (Op::Top, _) => false,
        (Op::Implies, Op::Implies) => false,
        (Op::Implies, _) => true,
        (Op::And, Op::And) => false,
        (Op::And, _) => true,
        (Op::Or, Op::Implies) => true,
        (Op::Or, _) => false,
    }
}

/// What a herd test adds to the project's test: the condition as herd has it and
/// what herd's log shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HerdInfo {
    pub arch: Arch,
    pub name: String,
    pub quant: Quant,
    pub prop: Prop,
    /// The locations herd shows in a final state: those of the condition and of
    /// the `locations` line, in herd's order.
    pub observed: Vec<HLoc>,
    /// A `Hash=` metadata line, echoed in the log.
    pub hash: Option<String>,
}

impl HerdInfo {
    /// `Allowed` (exists), `Forbidden` (~exists), `Required` (forall).
    pub fn kind(&self) -> &'static str {
        match self.quant {
            Quant::Exists => "Allowed",
            Quant::NotExists => "Forbidden",
            Quant::Forall => "Required",
        }
    }
    /// The condition as herd7 prints it.
    pub fn condition(&self) -> String {
        let q = match self.quant {
            Quant::Exists => "exists",
            Quant::NotExists => "~exists",
            Quant::Forall => "forall",
        };
        format!("{q} ({})", self.prop.herd())
    }
}

/// Whether `text` is a herd x86 test: its first non-blank line starts with
/// `X86` or `X86_64` and a blank. No file of the project's format does (its
/// first statement is `test NAME`, before which only comments may stand).
pub fn is_herd(text: &str) -> bool {
    let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) else { return false };
    let word: String = first.chars().take_while(|c| !c.is_whitespace()).collect();
    (word == "X86" || word == "X86_64") && first.len() > word.len()
}

// ---------------------------------------------------------------------------
// Lexing
// ---------------------------------------------------------------------------

/// `text` with OCaml comments `(* … *)` (nested) replaced by blanks, new lines
/// kept, so positions are unchanged. A `"…"` string is no comment.
fn blank_comments(text: &str) -> Result<Vec<char>, (usize, String)> {
    let mut cs: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut in_str = false;
    while i < cs.len() {
        if in_str {
            if cs[i] == '"' || cs[i] == '\n' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        if cs[i] == '"' {
            in_str = true;
            i += 1;
            continue;
        }
        if cs[i] == '(' && cs.get(i + 1) == Some(&'*') {
            let start = i;
            let mut depth = 0;
            loop {
                if i >= cs.len() {
                    return Err((start, "this comment `(*` is not closed by `*)`".into()));
                }
                if cs[i] == '(' && cs.get(i + 1) == Some(&'*') {
                    depth += 1;
                    cs[i] = ' ';
                    cs[i + 1] = ' ';
                    i += 2;
                } else if cs[i] == '*' && cs.get(i + 1) == Some(&')') {
                    depth -= 1;
                    cs[i] = ' ';
                    cs[i + 1] = ' ';
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if cs[i] != '\n' {
                        cs[i] = ' ';
                    }
                    i += 1;
                }
            }
            continue;
        }
        i += 1;
    }
    Ok(cs)
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Word(String),
    Int(i64),
    /// `$n`: an immediate.
    Imm(i64),
    /// `%name`: an AT&T register.
    Reg(String),
    Punct(&'static str),
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Int(i) => format!("`{i}`"),
            Tok::Imm(i) => format!("`${i}`"),
            Tok::Reg(r) => format!("`%{r}`"),
            Tok::Punct(p) => format!("`{p}`"),
        }
    }
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    /// Index of its first character in the file.
    at: usize,
}

const PUNCT: [&str; 20] =
    ["<<", "/\\", "\\/", "=>", "==", "!=", "(", ")", "[", "]", "{", "}", ",", ":", ";", "|", "=", "~", "*", "+"];

fn is_word_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// The number starting at `cs[i]` (decimal, or hexadecimal `0x…`, optionally
/// negative) and the index after it.
fn number(cs: &[char], i: usize) -> Option<(Result<i64, String>, usize)> {
    let neg = cs.get(i) == Some(&'-');
    let s = if neg { i + 1 } else { i };
    if !cs.get(s).is_some_and(|c| c.is_ascii_digit()) {
        return None;
    }
    let hex = cs.get(s) == Some(&'0') && matches!(cs.get(s + 1), Some('x' | 'X'));
    let (digits_from, radix) = if hex { (s + 2, 16) } else { (s, 10) };
    let mut j = digits_from;
    while j < cs.len() && cs[j].is_digit(radix) {
        j += 1;
    }
    let text: String = cs[digits_from..j].iter().collect();
    let v = i64::from_str_radix(&text, radix).map(|v| if neg { -v } else { v });
    let shown: String = cs[i..j].iter().collect();
    Some((v.map_err(|_| format!("the number `{shown}` is out of range")), j))
}

fn lex(cs: &[char], from: usize) -> Result<Vec<Token>, (usize, String)> {
    let mut out = Vec::new();
    let mut i = from;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if let Some((v, j)) = number(cs, i) {
            out.push(Token { tok: Tok::Int(v.map_err(|m| (i, m))?), at: i });
            i = j;
            continue;
        }
        if c == '$' {
            match number(cs, i + 1) {
                Some((v, j)) => {
                    out.push(Token { tok: Tok::Imm(v.map_err(|m| (i, m))?), at: i });
                    i = j;
                    continue;
                }
                None => return Err((i, "expected a number after `$`".into())),
            }
        }
        if c == '%' && cs.get(i + 1).is_some_and(|&d| is_word_start(d)) {
            let mut j = i + 1;
            while j < cs.len() && is_word_char(cs[j]) {
                j += 1;
            }
            out.push(Token { tok: Tok::Reg(cs[i + 1..j].iter().collect()), at: i });
            i = j;
            continue;
        }
        if is_word_start(c) {
            let mut j = i;
            while j < cs.len() && is_word_char(cs[j]) {
                j += 1;
            }
            out.push(Token { tok: Tok::Word(cs[i..j].iter().collect()), at: i });
            i = j;
            continue;
        }
        let two: String = cs[i..(i + 2).min(cs.len())].iter().collect();
        if let Some(p) = PUNCT.iter().find(|p| p.len() == 2 && two == **p) {
            out.push(Token { tok: Tok::Punct(p), at: i });
            i += 2;
            continue;
        }
        if let Some(p) = PUNCT.iter().find(|p| p.len() == 1 && p.starts_with(c)) {
            out.push(Token { tok: Tok::Punct(p), at: i });
            i += 1;
            continue;
        }
        return Err((i, format!("unexpected character `{c}`")));
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Registers
// ---------------------------------------------------------------------------

const X86_REGS: [&str; 8] = ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP"];
const X86_64_REGS: [&str; 16] =
    ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"];
const X86_64_REGS32: [&str; 16] = [
    "eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d",
    "r15d",
];
const X86_64_NARROW: [&str; 36] = [
    "ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w", "r15w", "al",
    "bl", "cl", "dl", "sil", "dil", "bpl", "spl", "r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "r15b", "ah",
    "bh", "ch", "dh",
];

/// A register by name: (herd's register number, canonical name); `Err` says why not.
fn register(arch: Arch, name: &str) -> Result<(usize, String), String> {
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
enum Operand {
    Imm(i64),
    Reg(usize, String),
    Mem(String),
}

#[derive(Clone, Debug)]
enum Instr {
    /// `x := src`
    Store(String, Operand),
    /// `r := [x]`
    Load(usize, String, String),
    /// `r := imm` or `r := s`
    Set(usize, String, Operand),
    Mfence,
}

struct Parsed {
    arch: Arch,
    name: String,
    name_pos: Pos,
    hash: Option<String>,
    init: Vec<(HLoc, i64, Pos)>,
    procs: Vec<(u32, Pos)>,
    code: Vec<Vec<(Instr, Pos)>>,
    locations: Vec<(HLoc, Pos)>,
    quant: Quant,
    prop: Prop,
    cond_pos: Pos,
}

struct Src {
    cs: Vec<char>,
    line_starts: Vec<usize>,
}

impl Src {
    fn pos(&self, at: usize) -> Pos {
        let line = self.line_starts.partition_point(|&s| s <= at).max(1);
        Pos { line, col: at - self.line_starts[line - 1] + 1 }
    }
    /// An error at character `at` (the renderer shows its source line and a caret).
    fn err<T>(&self, at: usize, msg: impl Into<String>) -> R<T> {
        Err(Diagnostic::new(self.pos(at), msg))
    }
}

struct P<'s> {
    src: &'s Src,
    toks: Vec<Token>,
    i: usize,
    /// Where the input ends (for messages about a missing token).
    end: usize,
    arch: Arch,
}

impl P<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }
    fn at(&self) -> usize {
        self.toks.get(self.i).map(|t| t.at).unwrap_or(self.end)
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }
    fn eat(&mut self, p: &str) -> bool {
        let yes = self.is(p);
        if yes {
            self.i += 1;
        }
        yes
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x == w)
    }
    fn fail<T>(&self, what: &str) -> R<T> {
        let found = self.peek().map(Tok::describe).unwrap_or_else(|| "the end of the test".into());
        Err(Diagnostic::expected_found(self.src.pos(self.at()), what, &found, 1))
    }
    fn expect(&mut self, p: &str) -> R<()> {
        if self.eat(p) {
            Ok(())
        } else {
            self.fail(&format!("`{p}`"))
        }
    }
    fn int(&mut self, what: &str) -> R<i64> {
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
    fn location(&mut self) -> R<HLoc> {
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
    fn init(&mut self) -> R<Vec<(HLoc, i64, Pos)>> {
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
    fn operand(&mut self) -> R<Operand> {
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
    fn instr(&mut self, end: usize) -> R<Option<Instr>> {
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
    fn prop_or(&mut self) -> R<Prop> {
        let mut p = self.prop_and()?;
        while self.eat("\\/") {
            p = Prop::Or(Box::new(p), Box::new(self.prop_and()?));
        }
        Ok(p)
    }
    fn prop_and(&mut self) -> R<Prop> {
        let mut p = self.prop_imp()?;
        while self.eat("/\\") {
            p = Prop::And(Box::new(p), Box::new(self.prop_imp()?));
        }
        Ok(p)
    }
    fn prop_imp(&mut self) -> R<Prop> {
        let p = self.prop_unary()?;
        if self.eat("=>") {
            return Ok(Prop::Implies(Box::new(p), Box::new(self.prop_imp()?)));
        }
        Ok(p)
    }
    fn prop_unary(&mut self) -> R<Prop> {
        if self.eat("~") || (self.is_word("not") && !self.next_is_eq()) {
            if self.is_word("not") {
                self.i += 1;
            }
            return Ok(Prop::Not(Box::new(self.prop_unary()?)));
        }
        if self.eat("(") {
            let p = self.prop_or()?;
            self.expect(")")?;
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
    fn next_is_eq(&self) -> bool {
        matches!(self.toks.get(self.i + 1).map(|t| &t.tok), Some(Tok::Punct("=" | "==" | "!=")))
    }
}

/// Whether token `k` starts the constraint part (herd's splitter stops the
/// program at these words).
fn starts_constraint(toks: &[Token], k: usize) -> bool {
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

fn parse_herd(raw: &str) -> R<Parsed> {
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
    let mut p = P { src: &src, toks, i: 1, end: cs.len(), arch };
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

fn line_starts(raw: &str) -> Vec<usize> {
    let mut v = vec![0];
    for (i, c) in raw.chars().enumerate() {
        if c == '\n' {
            v.push(i + 1);
        }
    }
    v
}

// ---------------------------------------------------------------------------
// Into the project's format
// ---------------------------------------------------------------------------

/// Parses a herd x86 test into a test of the project's format (with its
/// [`HerdInfo`]): library `rdmatso`, threads `P0 … @ 1`, locations `@ 1`.
pub fn parse(text: &str) -> R<Litmus> {
    let h = parse_herd(text)?;
    let at = |pos: Pos, text: String| Name { text, pos };
    let err = |pos: Pos, msg: String| Err(Diagnostic::new(pos, msg));
    // memory locations, in order of first appearance
    let mut globals: Vec<(String, Pos)> = Vec::new();
    let mut add_global = |x: &str, pos: Pos| {
        if !globals.iter().any(|(y, _)| y == x) {
            globals.push((x.to_string(), pos));
        }
    };
    let mut init_mem: BTreeMap<String, i64> = BTreeMap::new();
    let mut init_reg: BTreeMap<(u32, usize), i64> = BTreeMap::new();
    for (l, v, pos) in &h.init {
        match l {
            HLoc::Global(x) => {
                add_global(x, *pos);
                init_mem.insert(x.clone(), *v);
            }
            HLoc::Reg(p, k, _) => {
                if !h.procs.iter().any(|(q, _)| q == p) {
                    return err(*pos, format!("the init block names thread {p}, which the test does not have"));
                }
                init_reg.insert((*p, *k), *v);
            }
        }
    }
    for (i, pos) in h.code.iter().flatten() {
        if let Instr::Store(x, _) | Instr::Load(_, _, x) = i {
            add_global(x, *pos);
        }
    }
    let mut cond_locs = Vec::new();
    h.prop.locs(&mut cond_locs, h.cond_pos);
    let mut observed: BTreeSet<HLoc> = BTreeSet::new();
    for (l, pos) in h.locations.iter().chain(&cond_locs) {
        match l {
            HLoc::Global(x) => add_global(x, *pos),
            HLoc::Reg(p, _, _) => {
                if !h.procs.iter().any(|(q, _)| q == p) {
                    return err(*pos, format!("`{}` names thread {p}, which the test does not have", l.herd()));
                }
            }
        }
        observed.insert(l.clone());
    }
    let locs: Vec<LocDecl> = globals
        .iter()
        .map(|(x, pos)| LocDecl {
            name: at(*pos, x.clone()),
            node: Some(1),
            init: init_mem.get(x).map(|v| Lit::Int(*v)),
            size: None,
        })
        .collect();
    // thread bodies
    let mut bodies = Vec::new();
    let mut threads = Vec::new();
    for ((p, ppos), ins) in h.procs.iter().zip(&h.code) {
        let tname = at(*ppos, format!("P{p}"));
        threads.push((tname.clone(), 1));
        let mut stmts = Vec::new();
        // registers read before they are written get their initial value first
        let mut written: BTreeSet<usize> = BTreeSet::new();
        let mut needs: BTreeMap<usize, Name> = BTreeMap::new();
        let mut read = |k: usize, n: Name, written: &BTreeSet<usize>| {
            if !written.contains(&k) {
                needs.entry(k).or_insert(n);
            }
        };
        let value = |o: &Operand, pos: Pos| match o {
            Operand::Imm(v) => Ex::Int(*v, pos),
            Operand::Reg(_, r) => Ex::Var(at(pos, r.clone())),
            Operand::Mem(x) => Ex::Var(at(pos, x.clone())),
        };
        for (i, pos) in ins {
            let call = |m: &str, args: Vec<Ex>| CallEx { lib: None, method: at(*pos, m.to_string()), args };
            match i {
                Instr::Store(x, src) => {
                    if let Operand::Reg(k, r) = src {
                        read(*k, at(*pos, r.clone()), &written);
                    }
                    stmts.push(Stmt::Call(call("Write", vec![Ex::Var(at(*pos, x.clone())), value(src, *pos)])));
                }
                Instr::Load(k, r, x) => {
                    written.insert(*k);
                    let rhs = Rhs::Call(call("Read", vec![Ex::Var(at(*pos, x.clone()))]));
                    stmts.push(Stmt::Assign { name: at(*pos, r.clone()), rhs });
                }
                Instr::Set(k, r, src) => {
                    if let Operand::Reg(k2, r2) = src {
                        read(*k2, at(*pos, r2.clone()), &written);
                    }
                    written.insert(*k);
                    stmts.push(Stmt::Assign { name: at(*pos, r.clone()), rhs: Rhs::Expr(value(src, *pos)) });
                }
                Instr::Mfence => stmts.push(Stmt::Call(call("Mfence", vec![]))),
            }
        }
        for l in &observed {
            if let HLoc::Reg(q, k, r) = l {
                if q == p {
                    read(*k, at(*ppos, r.clone()), &written);
                }
            }
        }
        let mut first: Vec<Stmt> = needs
            .into_iter()
            .map(|(k, n)| {
                let v = init_reg.get(&(*p, k)).copied().unwrap_or(0);
                let pos = n.pos;
                Stmt::Assign { name: n, rhs: Rhs::Expr(Ex::Int(v, pos)) }
            })
            .collect();
        first.extend(stmts);
        bodies.push((tname, first));
    }
    let info = HerdInfo {
        arch: h.arch,
        name: h.name.clone(),
        quant: h.quant,
        prop: h.prop.clone(),
        observed: observed.into_iter().collect(),
        hash: h.hash.clone(),
    };
    // a herd `exists` is an observation; `~exists P` and `forall P` are claims
    let expects = match h.quant {
        Quant::Exists => vec![],
        Quant::NotExists => {
            vec![Expect { allowed: false, cond: h.prop.cond(h.cond_pos), text: info.condition(), pos: h.cond_pos }]
        }
        Quant::Forall => vec![Expect {
            allowed: false,
            cond: Cond::Not(Box::new(h.prop.cond(h.cond_pos))),
            text: info.condition(),
            pos: h.cond_pos,
        }],
    };
    Ok(Litmus {
        name: h.name,
        description: None,
        libraries: vec![at(h.name_pos, "rdmatso".into())],
        libraries_pos: Some(h.name_pos),
        threads,
        locs,
        barriers: vec![],
        rings: vec![],
        bodies,
        expects,
        herd: Some(Box::new(info)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SB: &str = "X86 SB\n\"Fre PodWR Fre PodWR\"\nCycle=Fre PodWR Fre PodWR\nHash=abc\n{ x=0; y=0; }\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";

    #[test]
    fn reads_the_classic_shape() {
        assert!(is_herd(SB));
        assert!(!is_herd("test X86\n"));
        let t = parse(SB).unwrap();
        assert_eq!(t.name, "SB");
        assert_eq!(t.threads.len(), 2);
        assert_eq!(t.locs.len(), 2);
        assert_eq!(t.bodies[0].1.len(), 2);
        let h = t.herd.unwrap();
        assert_eq!(h.hash.as_deref(), Some("abc"));
        assert_eq!(h.condition(), "exists (0:EAX=0 /\\ 1:EAX=0)");
        assert_eq!(h.observed.len(), 2);
    }

    #[test]
    fn prints_conditions_as_herd() {
        let p = |c: &str| {
            let t = format!("X86 T\n{{}}\n P0 ;\n MOV EAX,[x] ;\nexists {c}\n");
            parse(&t).unwrap().herd.unwrap().condition()
        };
        assert_eq!(p("(0:EAX=1 /\\ (x=1 /\\ x=2))"), "exists (0:EAX=1 /\\ [x]=1 /\\ [x]=2)");
        assert_eq!(p("(0:EAX=1 \\/ x=1 /\\ x=2)"), "exists (0:EAX=1 \\/ [x]=1 /\\ [x]=2)");
        assert_eq!(p("((0:EAX=1 \\/ x=1) /\\ ~x=2)"), "exists ((0:EAX=1 \\/ [x]=1) /\\ not ([x]=2))");
        assert_eq!(p("(0:EAX!=1 => true)"), "exists (not (0:EAX=1) => true)");
    }

    #[test]
    fn refuses_with_the_source_line() {
        let e = parse("X86 T\n{}\n P0 | P1 ;\n MOV [x],$1 | XCHG [y],EAX ;\nexists (1:EAX=0)\n").unwrap_err();
        assert_eq!((e.line, e.col), (4, 15));
        assert!(e.msg.contains("`XCHG`"), "{}", e.msg);
        let text = "X86 T\n{}\n P0 | P1 ;\n MOV [x],$1 | XCHG [y],EAX ;\nexists (1:EAX=0)\n";
        let shown = e.in_file("t.litmus", text).to_string();
        assert!(shown.contains(" 4 |  MOV [x],$1 | XCHG [y],EAX ;\n   |               ^^|^"), "{shown}");
        let e = parse("X86 T\n{}\n P0 ;\n MFNCE ;\nexists (1:EAX=0)\n").unwrap_err();
        assert_eq!(e.help.as_deref(), Some("did you mean `MFENCE`?"), "{e}");
        let e = parse("X86 T\n{}\n P0 ;\n MOV [x],$1 (* open\n").unwrap_err();
        assert_eq!(e.line, 4);
        let e = parse("X86 T\n{}\n P0 | P1 ;\n MOV [x],$1 ;\nexists (x=1)\n").unwrap_err();
        assert!(e.msg.contains("1 columns"), "{}", e.msg);
    }
}
