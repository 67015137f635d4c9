//! Lowering of statements and expressions to the meta-language
//! ([`mowgli_core::program::Prog`]), shared by the two languages whose bodies are
//! statements: implementation files ([`crate::lang::implementation`]) and litmus
//! thread bodies ([`crate::lang::lower`]). Each says what its names mean through a
//! [`Host`].

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap as HashMap;

use mowgli_core::program::{Expr, Op, Prog, RegId};
use mowgli_core::{Library, StampOrder, Value};
use mowgli_diag::Diagnostic;
use mowgli_libs::catalogue::Catalogue;

use crate::lang::ast::{BinOp, Block, CallEx, Ex, Rhs, Stmt};
use crate::lang::lex::Name;
use crate::lang::syntax::Pos;

/// Library `n` under `order`; an unknown name gets the closest known one as help.
pub(crate) fn build_library(n: &Name, order: &StampOrder, cat: &Catalogue) -> Result<Box<dyn Library>, Diagnostic> {
    cat.library(&n.text, order).map_err(|e| match e {
        mowgli_libs::LibError::Unknown(..) => {
            let known = cat.known();
            let d = Diagnostic::unknown(n.pos, &n.text, e.to_string(), known.iter().map(String::as_str));
            if d.help.is_some() {
                return d;
            }
            // a library written as a file is named on the command line or in the project file
            let shipped = std::path::Path::new("specs/libs").join(format!("{}.lib", n.text));
            d.with_help(if shipped.is_file() {
                format!(
                    "`{}` is a library file: run with `--lib {}`, or list it in the project file (`mowgli.toml`: `[libraries] files`)",
                    n.text,
                    shipped.display()
                )
            } else {
                format!(
                    "a library read from a file is named with `--lib FILE` or in the project file (`mowgli.toml`: `[libraries] files`; a file whose first line is `library {}`)",
                    n.text
                )
            })
        }
        e => Diagnostic::new(n.pos, e.to_string()).with_span(n.text.chars().count()),
    })
}

fn op_of(b: BinOp) -> Op {
    match b {
        BinOp::Add => Op::Add,
        BinOp::Sub => Op::Sub,
        BinOp::Mul => Op::Mul,
        BinOp::Div => Op::Div,
        BinOp::Mod => Op::Mod,
        BinOp::Eq => Op::Eq,
        BinOp::Ne => Op::Ne,
        BinOp::Lt => Op::Lt,
        BinOp::Le => Op::Le,
        BinOp::Gt => Op::Gt,
        BinOp::Ge => Op::Ge,
        BinOp::And => Op::And,
        BinOp::Or => Op::Or,
        BinOp::In => Op::In,
    }
}

/// A lowering error: where, and what is wrong.
pub(crate) type LErr = Diagnostic;

pub(crate) type L<T> = Result<T, LErr>;

pub(crate) fn lerr<T>(pos: Pos, msg: impl Into<String>) -> L<T> {
    Err(Diagnostic::new(pos, msg))
}

/// An error about the name `n`: the span covers it, and the help suggests the
/// closest of `known`.
pub(crate) fn unknown<'a, T>(n: &Name, msg: impl Into<String>, known: impl IntoIterator<Item = &'a str>) -> L<T> {
    Err(Diagnostic::unknown(n.pos, &n.text, msg, known))
}

/// What the lowering of statements and expressions asks of the body's context:
/// an implementation's method body (families, context functions, the libraries
/// of `uses`) or a litmus thread body (the test's locations, registers and work
/// identifiers, see `litmus::lower`).
pub(crate) trait Host {
    /// A name that is not a variable in scope (`_` included).
    fn name(&mut self, lw: &mut Lowerer, n: &Name) -> L<Expr>;
    /// The location family called `name`: (index, per abstract object, number of indices).
    fn family(&self, _name: &str) -> Option<(u32, bool, usize)> {
        None
    }
    /// `f(args)` for a function that is neither a family nor an operator function.
    fn function(&mut self, n: &Name, args: Vec<Expr>) -> L<Expr>;
    /// A method call: the host resolves the method (and reports it to
    /// [`Lowerer::mark_call`]) and lowers the arguments.
    fn call(&mut self, lw: &mut Lowerer, c: &CallEx) -> L<Prog>;
    /// Flat registers only: the register that `let`/`var`/`=` binds `name` to.
    fn bind(&mut self, _lw: &mut Lowerer, name: &Name, _rhs: &Rhs) -> L<RegId> {
        lerr(name.pos, format!("`{}` cannot be bound here", name.text))
    }
    /// A variable local to a block (a `for` or comprehension variable) is declared.
    fn local(&mut self, _n: &Name) -> L<()> {
        Ok(())
    }
}

struct LoopInfo {
    depth: usize,
    read_only: bool,
    writes_outer: bool,
    /// Registers bound in the body (flat registers).
    bound: BTreeSet<RegId>,
    /// Registers read in the body without being bound earlier in the same iteration.
    stale: BTreeSet<RegId>,
    /// At each `break` of this loop: the registers definitely bound there.
    breaks: Vec<BTreeMap<RegId, usize>>,
}

/// Lowers statements and expressions of one body.
///
/// Two register disciplines: an implementation body's variables are lexically
/// scoped (`let`, `var`, as in `docs/impl-language.md`); a litmus thread body's
/// registers are *flat*: every name bound by `let`, `var` or `=` is one register
/// of the thread (the host numbers them), visible in conditions, and a use must
/// be definitely bound before (tracked here, see [`Lowerer::is_defined`]).
pub(crate) struct Lowerer {
    scopes: Vec<HashMap<String, (RegId, bool)>>,
    pub(crate) nregs: usize,
    loops: Vec<LoopInfo>,
    flat: bool,
    /// Registers definitely bound at this point, each with the number of loops
    /// around its last definite binding (a register bound inside a loop at level l
    /// was bound in the current iteration of the loops 1..=l).
    defined: BTreeMap<RegId, usize>,
    /// The current path has left through a `break`.
    diverged: bool,
    /// At the top of a litmus thread body, a final statement is followed by `()`
    /// (the shape of [`Prog::seq`], which the line-per-call format lowers to).
    unit_tail: bool,
}

impl Lowerer {
    /// A lowerer whose first `nregs` registers are taken (flat: the thread's registers).
    pub(crate) fn new(flat: bool, nregs: usize) -> Lowerer {
        Lowerer {
            scopes: vec![HashMap::default()],
            nregs,
            loops: vec![],
            flat,
            defined: BTreeMap::new(),
            diverged: false,
            unit_tail: false,
        }
    }

    pub(crate) fn new_reg(&mut self, name: &str, mutable: bool) -> RegId {
        let r = self.nregs;
        self.nregs += 1;
        self.scopes.last_mut().expect("a scope").insert(name.to_string(), (r, mutable));
        r
    }

    /// A register no name refers to (e.g. the variable of a comprehension the
    /// host builds).
    pub(crate) fn hidden_reg(&mut self) -> RegId {
        self.nregs += 1;
        self.nregs - 1
    }

    fn lookup(&self, name: &str) -> Option<(RegId, bool, usize)> {
        self.scopes.iter().enumerate().rev().find_map(|(d, s)| s.get(name).map(|&(r, m)| (r, m, d)))
    }

    /// The variables in scope (for suggestions).
    pub(crate) fn visible(&self) -> Vec<String> {
        self.scopes.iter().flat_map(|s| s.keys().cloned()).filter(|n| !n.starts_with('#')).collect()
    }

    /// Whether `name` is a variable of an enclosing block (`for`, comprehension).
    pub(crate) fn is_local(&self, name: &str) -> bool {
        self.lookup(name).is_some()
    }

    /// Flat registers: whether `r` is bound on every path to this point.
    pub(crate) fn is_defined(&self, r: RegId) -> bool {
        self.defined.contains_key(&r)
    }

    /// Flat registers: `r` is read here.
    pub(crate) fn note_read(&mut self, r: RegId) {
        let level = self.defined.get(&r).copied();
        for (i, l) in self.loops.iter_mut().enumerate() {
            if level.is_none_or(|lv| lv < i + 1) {
                l.stale.insert(r);
            }
        }
    }

    fn note_bind(&mut self, r: RegId) {
        self.defined.insert(r, self.loops.len());
        for l in &mut self.loops {
            l.bound.insert(r);
        }
    }

    /// A call of a method that is (or is not) read-only (`Library::read_only`): a
    /// loop making other calls is no spin loop.
    pub(crate) fn mark_call(&mut self, read_only: bool) {
        for l in &mut self.loops {
            l.read_only &= read_only;
        }
    }

    fn meet(a: BTreeMap<RegId, usize>, b: &BTreeMap<RegId, usize>) -> BTreeMap<RegId, usize> {
        a.into_iter().filter_map(|(r, l)| b.get(&r).map(|&m| (r, l.min(m)))).collect()
    }

    pub(crate) fn expr(&mut self, e: &Ex, h: &mut dyn Host) -> L<Expr> {
        Ok(match e {
            Ex::Int(v, _) => Expr::Val(Value::Int(*v)),
            Ex::Bool(b, _) => Expr::Val(Value::Bool(*b)),
            Ex::Bot(_) => Expr::Val(Value::Bot),
            Ex::Unit(_) => Expr::Val(Value::Unit),
            Ex::Var(n) => {
                if let Some((r, _, _)) = self.lookup(&n.text) {
                    if !self.flat {
                        // (flat registers: the thread's lowering notes its reads)
                        self.note_read(r);
                    }
                    return Ok(Expr::Reg(r));
                }
                return h.name(self, n);
            }
            Ex::Tuple(items, _) => Expr::Tuple(items.iter().map(|i| self.expr(i, h)).collect::<L<_>>()?),
            Ex::Set(items, _) => Expr::Op(Op::SetOf, items.iter().map(|i| self.expr(i, h)).collect::<L<_>>()?),
            Ex::Comp { body, var, set, .. } => {
                let set = self.expr(set, h)?;
                h.local(var)?;
                self.scopes.push(HashMap::default());
                let r = self.new_reg(&var.text, false);
                let body = self.expr(body, h);
                self.scopes.pop();
                Expr::Comp { body: Box::new(body?), var: r, set: Box::new(set) }
            }
            Ex::Bin(op, a, b, _) => Expr::Op(op_of(*op), vec![self.expr(a, h)?, self.expr(b, h)?]),
            Ex::Neg(a, _) => Expr::Op(Op::Neg, vec![self.expr(a, h)?]),
            Ex::Not(a, _) => Expr::Op(Op::Not, vec![self.expr(a, h)?]),
            Ex::App(n, args) => self.app(n, args, vec![], h)?,
            Ex::Index(base, ix, pos) => {
                let ixs = ix.iter().map(|i| self.expr(i, h)).collect::<L<Vec<_>>>()?;
                match &**base {
                    Ex::App(n, args) if h.family(&n.text).is_some_and(|f| f.1) => self.app(n, args, ixs, h)?,
                    Ex::Var(n) if self.lookup(&n.text).is_none() && h.family(&n.text).is_some() => {
                        let (f, per, k) = h.family(&n.text).expect("checked");
                        if per {
                            return lerr(
                                n.pos,
                                format!("`{}` derives from an abstract object: `{}(x)[…]`", n.text, n.text),
                            );
                        }
                        if k != ixs.len() {
                            return lerr(*pos, format!("`{}` takes {k} indices, found {}", n.text, ixs.len()));
                        }
                        Expr::Derived { family: f, base: None, index: ixs }
                    }
                    other => {
                        if ixs.len() != 1 {
                            return lerr(*pos, "a tuple component takes one index");
                        }
                        let b = self.expr(other, h)?;
                        Expr::Op(Op::Index, vec![b, ixs.into_iter().next().expect("one index")])
                    }
                }
            }
        })
    }

    fn app(&mut self, n: &Name, args: &[Ex], index: Vec<Expr>, h: &mut dyn Host) -> L<Expr> {
        let a = args.iter().map(|e| self.expr(e, h)).collect::<L<Vec<_>>>()?;
        let arity = |k: usize| -> L<()> {
            if a.len() != k {
                return lerr(
                    n.pos,
                    format!("`{}` takes {k} argument{}, found {}", n.text, if k == 1 { "" } else { "s" }, a.len()),
                );
            }
            Ok(())
        };
        if let Some((f, per, k)) = h.family(&n.text) {
            if !per {
                return lerr(n.pos, format!("`{}` is a global family: `{}[…]`", n.text, n.text));
            }
            arity(1)?;
            if k != index.len() {
                return lerr(n.pos, format!("`{}(…)` takes {k} indices, found {}", n.text, index.len()));
            }
            let base = a.into_iter().next().expect("one argument");
            return Ok(Expr::Derived { family: f, base: Some(Box::new(base)), index });
        }
        if !index.is_empty() {
            return lerr(n.pos, format!("`{}` is not a location family", n.text));
        }
        let op = match n.text.as_str() {
            "min" => Some(Op::Min),
            "max" => Some(Op::Max),
            "len" => Some(Op::Len),
            "hash" => Some(Op::Hash),
            "range" => Some(Op::Range),
            _ => None,
        };
        if let Some(op) = op {
            match op {
                Op::Len | Op::Hash => arity(1)?,
                Op::Range => arity(2)?,
                _ => {}
            }
            return Ok(Expr::Op(op, a));
        }
        h.function(n, a)
    }

    fn rhs(&mut self, r: &Rhs, h: &mut dyn Host) -> L<Prog> {
        match r {
            Rhs::Call(c) => h.call(self, c),
            Rhs::Expr(e) => Ok(Prog::Ret(self.expr(e, h)?)),
            Rhs::If(s) => self.stmt_prog(s, h),
        }
    }

    /// The program of one statement (its value is the statement's value).
    fn stmt_prog(&mut self, s: &Stmt, h: &mut dyn Host) -> L<Prog> {
        match s {
            Stmt::Call(c) => h.call(self, c),
            Stmt::Value(e) => Ok(Prog::Ret(self.expr(e, h)?)),
            Stmt::If { cond, then, els, .. } => {
                let c = self.expr(cond, h)?;
                let (d0, div0) = (self.defined.clone(), self.diverged);
                self.diverged = false;
                let a = self.block(then, h)?;
                let (d1, v1) = (std::mem::replace(&mut self.defined, d0), self.diverged);
                self.diverged = false;
                let b = match els {
                    Some(b) => self.block(b, h)?,
                    None => Prog::Ret(Expr::Val(Value::Unit)),
                };
                let d2 = std::mem::take(&mut self.defined);
                let v2 = self.diverged;
                self.defined = match (v1, v2) {
                    (true, false) => d2,
                    (false, true) => d1,
                    _ => Self::meet(d1, &d2),
                };
                self.diverged = div0 || (v1 && v2);
                Ok(Prog::If(c, Box::new(a), Box::new(b)))
            }
            Stmt::Loop(b, _) => {
                self.loops.push(LoopInfo {
                    depth: self.scopes.len(),
                    read_only: true,
                    writes_outer: false,
                    bound: BTreeSet::new(),
                    stale: BTreeSet::new(),
                    breaks: vec![],
                });
                let level = self.loops.len();
                let first = self.nregs;
                let (d0, div0) = (self.defined.clone(), self.diverged);
                let body = self.block(b, h)?;
                let locals: Vec<RegId> = (first..self.nregs).collect();
                let info = self.loops.pop().expect("pushed");
                // the loop is left by a `break` only: what every break had bound
                let mut after: Option<BTreeMap<RegId, usize>> = None;
                for d in &info.breaks {
                    after = Some(match after {
                        None => d.clone(),
                        Some(a) => Self::meet(a, d),
                    });
                }
                self.defined = match after {
                    Some(a) => a.into_iter().map(|(r, l)| (r, l.min(level - 1))).collect(),
                    None => d0,
                };
                self.diverged = div0;
                // An iteration that does not break must leave no trace in the one
                // that does, nor after the loop. Flat registers stay visible after
                // the loop, and so do the variables of an implementation declared
                // before it: the body reads no register it binds unless bound before
                // in the same iteration, and every register it binds is bound again
                // before each `break` (see `docs/formats.md`). Otherwise (a body
                // that assigns no variable declared outside it) its variables are
                // its own.
                // (an implementation's variables declared in the body are out of
                // scope after it: only those declared before the loop count)
                let outer: BTreeSet<RegId> = info.bound.iter().copied().filter(|&r| self.flat || r < first).collect();
                let rebinds = info.stale.is_disjoint(&outer)
                    && info.breaks.iter().all(|d| outer.iter().all(|r| d.get(r).is_some_and(|&l| l >= level)));
                let traceless = rebinds || (!self.flat && !info.writes_outer);
                Ok(if traceless && info.read_only {
                    Prog::Spin(Box::new(body), locals)
                } else if traceless {
                    Prog::Retry(Box::new(body))
                } else {
                    Prog::Loop(Box::new(body))
                })
            }
            Stmt::For { var, set, body } => {
                let set = self.expr(set, h)?;
                h.local(var)?;
                self.scopes.push(HashMap::default());
                let r = self.new_reg(&var.text, false);
                let (d0, div0) = (self.defined.clone(), self.diverged);
                let b = self.block(body, h);
                self.scopes.pop();
                // the body may run no time
                self.defined = d0;
                self.diverged = div0;
                Ok(Prog::For { var: r, set, body: Box::new(b?) })
            }
            Stmt::Break(v, pos) => {
                if self.loops.is_empty() {
                    return lerr(*pos, "`break` outside a `loop`");
                }
                let v = match v {
                    Some(e) => self.expr(e, h)?,
                    None => Expr::Val(Value::Unit),
                };
                let d = self.defined.clone();
                self.loops.last_mut().expect("in a loop").breaks.push(d);
                self.diverged = true;
                Ok(Prog::Break(1, v))
            }
            Stmt::Let { .. } | Stmt::Assign { .. } => unreachable!("handled by `stmts`"),
        }
    }

    fn stmts(&mut self, ss: &[Stmt], h: &mut dyn Host) -> L<Prog> {
        let tail = std::mem::take(&mut self.unit_tail);
        let Some((first, rest)) = ss.split_first() else { return Ok(Prog::Ret(Expr::Val(Value::Unit))) };
        match first {
            Stmt::Let { name, rhs, .. } | Stmt::Assign { name, rhs } if self.flat => {
                let p = self.rhs(rhs, h)?;
                if self.lookup(&name.text).is_some() {
                    return lerr(
                        name.pos,
                        format!("`{}` is a loop variable here; a register needs another name", name.text),
                    );
                }
                let r = h.bind(self, name, rhs)?;
                self.note_bind(r);
                self.unit_tail = tail;
                let rest = self.stmts(rest, h)?;
                Ok(Prog::Let { first: Box::new(p), bind: Some(r), rest: Box::new(rest) })
            }
            Stmt::Let { name, rhs, mutable } => {
                let p = self.rhs(rhs, h)?;
                let r = self.new_reg(&name.text, *mutable);
                self.note_bind(r);
                let rest = self.stmts(rest, h)?;
                Ok(Prog::Let { first: Box::new(p), bind: Some(r), rest: Box::new(rest) })
            }
            Stmt::Assign { name, rhs } => {
                let Some((r, mutable, depth)) = self.lookup(&name.text) else {
                    let known = self.visible();
                    return unknown(
                        name,
                        format!("undeclared variable `{}` (declare it with `var`)", name.text),
                        known.iter().map(String::as_str),
                    );
                };
                if !mutable {
                    return lerr(
                        name.pos,
                        format!("`{}` is bound by `let`; declare it with `var` to assign it", name.text),
                    );
                }
                for l in &mut self.loops {
                    if depth < l.depth {
                        l.writes_outer = true;
                    }
                }
                let p = self.rhs(rhs, h)?;
                self.note_bind(r);
                let rest = self.stmts(rest, h)?;
                Ok(Prog::Let { first: Box::new(p), bind: Some(r), rest: Box::new(rest) })
            }
            s => {
                let p = self.stmt_prog(s, h)?;
                if rest.is_empty() && !tail {
                    return Ok(p);
                }
                self.unit_tail = tail;
                let rest = self.stmts(rest, h)?;
                Ok(Prog::Let { first: Box::new(p), bind: None, rest: Box::new(rest) })
            }
        }
    }

    pub(crate) fn block(&mut self, b: &Block, h: &mut dyn Host) -> L<Prog> {
        self.scopes.push(HashMap::default());
        let p = self.stmts(&b.stmts, h);
        self.scopes.pop();
        p
    }

    /// A litmus thread body: its statements, ending with `()`.
    pub(crate) fn thread_body(&mut self, ss: &[Stmt], h: &mut dyn Host) -> L<Prog> {
        self.unit_tail = true;
        self.stmts(ss, h)
    }
}
