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
use crate::lang::ast::{CallEx, Ex, Rhs, Stmt};

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
    /// How deep the tree is (an atom: 1; the parser keeps it within the nesting limit).
    pub fn depth(&self) -> usize {
        match self {
            Prop::Not(p) => 1 + p.depth(),
            Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => 1 + a.depth().max(b.depth()),
            Prop::True | Prop::False | Prop::Atom(..) => 1,
        }
    }

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

mod lex;
mod read;

use read::{parse_herd, Instr, Operand};

// ---------------------------------------------------------------------------
// Into the project's format
// ---------------------------------------------------------------------------

/// Parses a herd x86 test into a test of the project's format (with its
/// [`HerdInfo`]): library `rdmatso`, threads `P0 … @ 1`, locations `@ 1`.
///
/// Not a name test: herd7's x86 is a fixed foreign language whose `MOV`s and
/// `MFENCE` are, by definition, RDMA^TSO's CPU reads, writes and fence, so the
/// translation names that library and its methods.
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
