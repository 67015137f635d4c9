//! Counterexample minimisation (`mowgli refine IMPL … --minimise DIR`): a client on
//! which the implementation reaches an outcome the specification forbids is shrunk
//! to a smallest client that still does, written as a litmus file whose `expect
//! forbidden` line is that outcome (replayable with `mowgli refine IMPL --clients
//! FILE`, and an expectation `mowgli litmus` confirms under the specification).
//!
//! The shrinking works on the parsed test ([`Litmus`]), one reduction at a time, in
//! a fixed order ([`candidates`]): drop a thread; drop a statement (a call, with the
//! registers only it binds); replace an `if` by one of its branches; drop an element
//! of a set literal (a node of a node set, an iteration of a `for`); simplify an
//! argument of a call (a smaller integer, `_` for a work identifier, a tuple with a
//! component less or smaller); drop an unused location, barrier or ring declaration
//! or a library; a smaller ring size, initial value or tuple size; merge two
//! locations; drop a node (its threads and locations move to another) or move a
//! thread to a smaller node, or renumber a node to a smaller free one; replace an
//! observation (a call whose result a register holds) by another thread's, the thread
//! taking the role it needs, and drop a call on what it observed (a Receive of a
//! message in place of a Read of a location written for the purpose: how issue 17's
//! 7-call client reaches 6 calls); drop a library qualifier. A candidate is kept when `refine` still fails
//! on it, the specification has an execution of it, and its new forbidden outcome is
//! an expectation the specification satisfies ([`check`]); its expectation is then
//! recomputed from the new counterexample. Every kept reduction
//! makes the client smaller in a well-founded order ([`measure`]), so the search
//! ends, and it ends only after a whole pass in which no candidate is kept: the
//! result is 1-minimal (no single reduction of the set keeps it failing).
//!
//! The outcome compared by `refine` is the registers and the final values of the
//! locations the client's conditions name (`refine::observed_locations`): the
//! recomputed expectation names exactly those, so the observed locations stay those
//! of the original client (less those the shrinking removes).

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use mowgli_core::StampOrder;
use serde::Serialize;

use super::refine::{refine_client, ClientReport, ClientVerdict};
use super::syntax::{Block, CallEx, Ex, Rhs, Stmt};
use super::Implementation;
use crate::litmus::print::{self, print};
use crate::litmus::syntax::{self, Cond, Expect, Lit, Litmus, Name, Pos};
use crate::litmus::{check_text, InputError};

/// The size of a client, as reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Size {
    pub threads: usize,
    /// Method calls, as written (a call inside a loop counts once).
    pub calls: usize,
    /// The nodes named by `thread` and `loc` declarations.
    pub nodes: usize,
    pub locations: usize,
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pl = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
        write!(
            f,
            "{}, {}, {}, {}",
            pl(self.threads, "thread"),
            pl(self.calls, "call"),
            pl(self.nodes, "node"),
            pl(self.locations, "location")
        )
    }
}

/// The size of a client.
pub fn size(t: &Litmus) -> Size {
    let mut calls = 0;
    for (_, body) in &t.bodies {
        walk_stmts(body, &mut |s| {
            if matches!(s, Stmt::Call(_) | Stmt::Let { rhs: Rhs::Call(_), .. } | Stmt::Assign { rhs: Rhs::Call(_), .. })
            {
                calls += 1;
            }
        });
    }
    Size { threads: t.threads.len(), calls, nodes: used_nodes(t).len(), locations: t.locs.len() }
}

/// A single reduction of a client: what it does, and the reduced client (its
/// expectations with the atoms naming what it removed dropped).
#[derive(Clone, Debug)]
pub struct Candidate {
    pub what: String,
    pub client: Litmus,
}

/// The result of checking a client.
#[derive(Clone, Debug)]
pub enum Check {
    /// Not a valid client of the implementation (malformed, ill-typed, or it does
    /// not use the implemented library): the message.
    Invalid(String),
    /// Every outcome of the implementation is an outcome of the specification.
    Passes,
    /// The implementation reaches an outcome the specification forbids, but it
    /// cannot be written as an expectation the specification satisfies (a register
    /// no run assigns, a value that is no literal, an outcome with nothing in it),
    /// or the specification has no execution at all on the client: the reason.
    Unexpressible(String),
    /// It fails: the client with its expectation recomputed (`expect forbidden`
    /// the outcome), and the report.
    Fails { client: Box<Litmus>, report: Box<ClientReport> },
}

/// Checks a client with `refine` (screened: the same verdicts, searched up to the
/// first forbidden outcome) and, when it fails, recomputes its expectation from the
/// counterexample and confirms it under the specification (`mowgli litmus`).
pub fn check(imp: &Implementation, order: &StampOrder, t: &Litmus, loop_bound: usize) -> Check {
    let text = print(t);
    let report = match refine_client(imp, order, &t.name, &text, loop_bound, true) {
        Err(e) => return Check::Invalid(e.to_string()),
        Ok(r) if r.verdict == ClientVerdict::Skipped => {
            return Check::Invalid(format!("not a client of `{}`", imp.implements))
        }
        Ok(r) if r.verdict == ClientVerdict::Ok => return Check::Passes,
        Ok(r) => r,
    };
    let Some(cex) = &report.counterexample else {
        return Check::Unexpressible("the failing client has no counterexample".into());
    };
    // a client the specification has no execution of fails on any execution of the
    // implementation (e.g. a write of a tuple of the wrong size): no outcome of it
    // is forbidden for a reason worth keeping
    if report.spec_outcomes == 0 {
        return Check::Unexpressible("the specification has no execution on it".into());
    }
    let mut atoms = Vec::new();
    for (key, value) in &cex.outcome {
        let Some(val) = parse_value(value) else {
            return Check::Unexpressible(format!("`{key}` = `{value}` is no value of a condition"));
        };
        atoms.push(atom(key, val));
    }
    let Some(expect) = forbidden(atoms) else {
        return Check::Unexpressible("the outcome names no register or location".into());
    };
    let mut fixed = t.clone();
    fixed.expects = vec![expect];
    let fixed_text = print(&fixed);
    // a condition names the locations `refine` compares: when they are not those of
    // `t`, the fixed client is a different check and is run again
    let report = if cond_locations(&fixed) == cond_locations(t) {
        report
    } else {
        match refine_client(imp, order, &t.name, &fixed_text, loop_bound, true) {
            Ok(r) if r.verdict == ClientVerdict::Fail => r,
            Ok(_) => return Check::Unexpressible("with its outcome as the expectation it passes".into()),
            Err(e) => return Check::Unexpressible(e.to_string()),
        }
    };
    match check_text(&t.name, &fixed_text, order) {
        Ok(r) if r.expectations.iter().all(|e| e.ok) => {
            Check::Fails { client: Box::new(fixed), report: Box::new(report) }
        }
        Ok(_) => Check::Unexpressible("the specification reaches the outcome as written".into()),
        Err(e) => Check::Unexpressible(e.to_string()),
    }
}

/// The atom of an outcome key (`T:r`, `x`, `x@n`).
fn atom(key: &str, val: Lit) -> Cond {
    let name = |s: &str| Name { text: s.to_string(), pos: Pos::default() };
    if let Some((t, r)) = key.split_once(':') {
        return Cond::Reg { thread: name(t), reg: name(r), val };
    }
    if let Some((x, n)) = key.split_once('@') {
        if let Ok(n) = n.parse::<i64>() {
            return Cond::Loc { loc: name(x), node: Some((n, Pos::default())), val };
        }
    }
    Cond::Loc { loc: name(key), node: None, val }
}

/// `expect forbidden A1 /\ A2 /\ …` (none without atoms).
fn forbidden(atoms: Vec<Cond>) -> Option<Expect> {
    let cond = atoms.into_iter().reduce(|a, b| Cond::And(Box::new(a), Box::new(b)))?;
    Some(Expect { allowed: false, text: print::cond(&cond), cond, pos: Pos::default() })
}

/// A value as outcomes show it (`1`, `true`, `bot`, `()`, `[1, 2]`), as a literal.
fn parse_value(s: &str) -> Option<Lit> {
    fn value(s: &[u8], i: &mut usize) -> Option<Lit> {
        while s.get(*i) == Some(&b' ') {
            *i += 1;
        }
        let rest = &s[*i..];
        for (w, l) in [("true", Lit::Bool(true)), ("false", Lit::Bool(false)), ("bot", Lit::Bot), ("()", Lit::Unit)] {
            if rest.starts_with(w.as_bytes()) {
                *i += w.len();
                return Some(l);
            }
        }
        if rest.first() == Some(&b'[') {
            *i += 1;
            let mut vs = Vec::new();
            loop {
                while s.get(*i) == Some(&b' ') {
                    *i += 1;
                }
                if s.get(*i) == Some(&b']') && vs.is_empty() {
                    *i += 1;
                    return Some(Lit::Tuple(vs));
                }
                vs.push(value(s, i)?);
                match s.get(*i) {
                    Some(b',') => *i += 1,
                    Some(b']') => {
                        *i += 1;
                        return Some(Lit::Tuple(vs));
                    }
                    _ => return None,
                }
            }
        }
        let neg = rest.first() == Some(&b'-');
        let digits = rest.iter().skip(usize::from(neg)).take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        let len = usize::from(neg) + digits;
        let v: i64 = std::str::from_utf8(&rest[..len]).ok()?.parse().ok()?;
        *i += len;
        Some(Lit::Int(v))
    }
    let b = s.trim().as_bytes();
    let mut i = 0;
    let v = value(b, &mut i)?;
    (i == b.len()).then_some(v)
}

/// The locations (and copies) the conditions of a test name.
fn cond_locations(t: &Litmus) -> BTreeSet<(String, Option<i64>)> {
    fn go(c: &Cond, out: &mut BTreeSet<(String, Option<i64>)>) {
        match c {
            Cond::Loc { loc, node, .. } => {
                out.insert((loc.text.clone(), node.map(|n| n.0)));
            }
            Cond::Not(a) => go(a, out),
            Cond::And(a, b) | Cond::Or(a, b) => {
                go(a, out);
                go(b, out);
            }
            Cond::True | Cond::Reg { .. } => {}
        }
    }
    let mut out = BTreeSet::new();
    for e in &t.expects {
        go(&e.cond, &mut out);
    }
    out
}

// ---------------------------------------------------------------------------
// Walking and editing thread bodies
// ---------------------------------------------------------------------------

/// The blocks directly inside a statement.
fn child_blocks(s: &Stmt) -> Vec<&Block> {
    match s {
        Stmt::If { then, els, .. } => std::iter::once(then).chain(els.as_ref()).collect(),
        Stmt::Loop(b, _) | Stmt::For { body: b, .. } => vec![b],
        Stmt::Let { rhs: Rhs::If(i), .. } | Stmt::Assign { rhs: Rhs::If(i), .. } => child_blocks(i),
        _ => vec![],
    }
}

fn child_blocks_mut(s: &mut Stmt) -> Vec<&mut Block> {
    match s {
        Stmt::If { then, els, .. } => std::iter::once(then).chain(els.as_mut()).collect(),
        Stmt::Loop(b, _) | Stmt::For { body: b, .. } => vec![b],
        Stmt::Let { rhs: Rhs::If(i), .. } | Stmt::Assign { rhs: Rhs::If(i), .. } => child_blocks_mut(i),
        _ => vec![],
    }
}

/// Every statement, in pre-order.
fn walk_stmts(ss: &[Stmt], f: &mut dyn FnMut(&Stmt)) {
    for s in ss {
        f(s);
        for b in child_blocks(s) {
            walk_stmts(&b.stmts, f);
        }
    }
}

/// Every statement list (a body, then the blocks inside it), in pre-order.
fn walk_lists_mut(ss: &mut Vec<Stmt>, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    f(ss);
    for s in ss.iter_mut() {
        for b in child_blocks_mut(s) {
            walk_lists_mut(&mut b.stmts, f);
        }
    }
}

/// The expressions directly in a statement (not those of its blocks).
fn stmt_exprs_mut(s: &mut Stmt) -> Vec<&mut Ex> {
    match s {
        Stmt::Let { rhs, .. } | Stmt::Assign { rhs, .. } => match rhs {
            Rhs::Call(c) => c.args.iter_mut().collect(),
            Rhs::Expr(e) => vec![e],
            Rhs::If(i) => stmt_exprs_mut(i),
        },
        Stmt::Call(c) => c.args.iter_mut().collect(),
        Stmt::If { cond, .. } => vec![cond],
        Stmt::For { set, .. } => vec![set],
        Stmt::Break(Some(e), _) | Stmt::Value(e) => vec![e],
        Stmt::Loop(..) | Stmt::Break(None, _) => vec![],
    }
}

/// Every expression and sub-expression of the bodies, in pre-order.
fn walk_exprs_mut(t: &mut Litmus, f: &mut dyn FnMut(&mut Ex)) {
    fn ex(e: &mut Ex, f: &mut dyn FnMut(&mut Ex)) {
        f(e);
        match e {
            Ex::Tuple(es, _) | Ex::Set(es, _) | Ex::App(_, es) => es.iter_mut().for_each(|e| ex(e, f)),
            Ex::Comp { body, set, .. } => {
                ex(body, f);
                ex(set, f);
            }
            Ex::Bin(_, a, b, _) => {
                ex(a, f);
                ex(b, f);
            }
            Ex::Neg(a, _) | Ex::Not(a, _) => ex(a, f),
            Ex::Index(b, ix, _) => {
                ex(b, f);
                ix.iter_mut().for_each(|e| ex(e, f));
            }
            Ex::Int(..) | Ex::Bool(..) | Ex::Bot(_) | Ex::Unit(_) | Ex::Var(_) => {}
        }
    }
    for (_, body) in &mut t.bodies {
        walk_lists_mut(body, &mut |ss| {
            for s in ss.iter_mut() {
                for e in stmt_exprs_mut(s) {
                    ex(e, f);
                }
            }
        });
    }
}

/// Every call of the bodies, with its thread, in pre-order.
fn walk_calls_mut(t: &mut Litmus, f: &mut dyn FnMut(&str, &mut CallEx)) {
    walk_bound_calls_mut(t, &mut |th, _, c| f(th, c));
}

/// [`walk_calls_mut`], with whether the call's result is bound to a register.
fn walk_bound_calls_mut(t: &mut Litmus, f: &mut dyn FnMut(&str, bool, &mut CallEx)) {
    for (th, body) in &mut t.bodies {
        let th = th.text.clone();
        walk_lists_mut(body, &mut |ss| {
            for s in ss.iter_mut() {
                match s {
                    Stmt::Call(c) => f(&th, false, c),
                    Stmt::Let { rhs: Rhs::Call(c), .. } | Stmt::Assign { rhs: Rhs::Call(c), .. } => f(&th, true, c),
                    _ => {}
                }
            }
        });
    }
}

/// `t` without its `k`-th call statement (in the order of [`walk_calls_mut`]).
fn drop_call(t: &mut Litmus, k: usize) {
    let mut left = k;
    let mut done = false;
    for (_, body) in &mut t.bodies {
        walk_lists_mut(body, &mut |ss| {
            if done {
                return;
            }
            for i in 0..ss.len() {
                if short_kind(&ss[i]) != "call" {
                    continue;
                }
                if left == 0 {
                    ss.remove(i);
                    done = true;
                    return;
                }
                left -= 1;
            }
        });
    }
}

/// The names a thread binds: registers (`let`, `var`, `=`) and `for` variables.
fn bound_names(t: &Litmus, thread: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, body) in t.bodies.iter().filter(|(n, _)| n.text == thread) {
        walk_stmts(body, &mut |s| match s {
            Stmt::Let { name, .. } | Stmt::Assign { name, .. } | Stmt::For { var: name, .. } => {
                out.insert(name.text.clone());
            }
            _ => {}
        });
    }
    out
}

/// The names the bodies use as variables (locations, registers, barriers, rings,
/// work identifiers).
fn used_names(t: &Litmus) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut t = t.clone();
    walk_exprs_mut(&mut t, &mut |e| {
        if let Ex::Var(n) = e {
            out.insert(n.text.clone());
        }
    });
    out
}

/// The nodes named by `thread` and `loc` declarations.
fn used_nodes(t: &Litmus) -> BTreeSet<i64> {
    t.threads.iter().map(|(_, n)| *n).chain(t.locs.iter().filter_map(|l| l.node)).collect()
}

/// Context names of the implementation language (no work identifiers).
const CONTEXT: [&str; 5] = ["node", "self", "nodes", "threads", "wids"];

/// The names declared as locations, barriers or rings.
fn declared(t: &Litmus) -> BTreeSet<String> {
    t.locs
        .iter()
        .map(|l| l.name.text.clone())
        .chain(t.barriers.iter().map(|b| b.0.text.clone()))
        .chain(t.rings.iter().map(|r| r.0.text.clone()))
        .collect()
}

/// Drops the condition atoms `keep` rejects (an expectation left without atoms is
/// dropped).
fn prune_expects(t: &mut Litmus, keep: &dyn Fn(&Cond) -> bool) {
    fn prune(c: Cond, keep: &dyn Fn(&Cond) -> bool) -> Option<Cond> {
        match c {
            Cond::And(a, b) => match (prune(*a, keep), prune(*b, keep)) {
                (Some(a), Some(b)) => Some(Cond::And(Box::new(a), Box::new(b))),
                (a, b) => a.or(b),
            },
            Cond::Or(a, b) => match (prune(*a, keep), prune(*b, keep)) {
                (Some(a), Some(b)) => Some(Cond::Or(Box::new(a), Box::new(b))),
                (a, b) => a.or(b),
            },
            Cond::Not(a) => prune(*a, keep).map(|a| Cond::Not(Box::new(a))),
            c => keep(&c).then_some(c),
        }
    }
    let expects = std::mem::take(&mut t.expects);
    for mut e in expects {
        if let Some(c) = prune(e.cond, keep) {
            e.text = print::cond(&c);
            e.cond = c;
            t.expects.push(e);
        }
    }
}

/// Drops the atoms naming threads, registers or locations the client no longer has.
fn fix_expects(t: &mut Litmus) {
    let threads: BTreeSet<String> = t.threads.iter().map(|(n, _)| n.text.clone()).collect();
    let regs: Vec<(String, BTreeSet<String>)> = threads.iter().map(|th| (th.clone(), bound_names(t, th))).collect();
    let locs: BTreeSet<String> = t.locs.iter().map(|l| l.name.text.clone()).collect();
    let nodes = used_nodes(t);
    prune_expects(t, &|c| match c {
        Cond::Reg { thread, reg, .. } => regs.iter().any(|(th, rs)| *th == thread.text && rs.contains(&reg.text)),
        Cond::Loc { loc, node, .. } => locs.contains(&loc.text) && node.is_none_or(|(n, _)| nodes.contains(&n)),
        _ => true,
    });
}

fn short(s: &Stmt) -> String {
    let t = Litmus {
        name: String::new(),
        description: None,
        libraries: vec![],
        libraries_pos: None,
        threads: vec![],
        locs: vec![],
        barriers: vec![],
        rings: vec![],
        bodies: vec![(Name { text: "T".into(), pos: Pos::default() }, vec![s.clone()])],
        expects: vec![],
        herd: None,
    };
    let text = print(&t);
    let first = text.lines().nth(2).unwrap_or("").trim();
    if text.lines().count() > 3 {
        format!("{first} …")
    } else {
        first.to_string()
    }
}

// ---------------------------------------------------------------------------
// The reductions
// ---------------------------------------------------------------------------

/// Values to try in place of a non-negative integer `v`: 0, 1, 2 and v − 1 (those
/// below `v`).
fn smaller(v: i64) -> Vec<i64> {
    let mut out: Vec<i64> = (0..3).filter(|w| *w < v).collect();
    if v > 3 {
        out.push(v - 1);
    }
    if v < 0 {
        out.push(0);
    }
    out
}

/// Every single reduction of `t`, in the fixed order of the module documentation.
pub fn candidates(t: &Litmus) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut push = |what: String, mut c: Litmus| {
        fix_expects(&mut c);
        out.push(Candidate { what, client: c });
    };
    // drop a thread (with the barrier and ring roles it has)
    for (th, _) in &t.threads {
        let mut c = t.clone();
        c.threads.retain(|(n, _)| n.text != th.text);
        c.bodies.retain(|(n, _)| n.text != th.text);
        for (_, ts) in &mut c.barriers {
            ts.retain(|n| n.text != th.text);
        }
        c.barriers.retain(|(_, ts)| !ts.is_empty());
        c.rings.retain(|(_, w, _, _)| w.text != th.text);
        for (_, _, rs, _) in &mut c.rings {
            rs.retain(|n| n.text != th.text);
        }
        if c.rings.iter().any(|(_, _, rs, _)| rs.is_empty()) || c.threads.is_empty() {
            continue;
        }
        push(format!("drop thread {}", th.text), c);
    }
    // drop a statement
    let statements: usize = t.bodies.iter().map(|(_, b)| count_stmts(b)).sum();
    for k in 0..statements {
        let mut c = t.clone();
        let mut left = k;
        let mut removed = None;
        for (th, body) in &mut c.bodies {
            walk_lists_mut(body, &mut |ss| {
                if removed.is_some() {
                    return;
                }
                // the statements of this list only (their blocks are lists of their own)
                let here = ss.len();
                if left < here {
                    removed = Some((th.text.clone(), ss.remove(left)));
                } else {
                    left -= here;
                }
            });
        }
        if let Some((th, s)) = removed {
            let kind = if matches!(short_kind(&s), "call") { "call" } else { "statement" };
            push(format!("drop {kind} `{}` of {th}", short(&s)), c);
        }
    }
    // replace an `if` by its `then` or its `else` branch
    let ifs: usize = t.bodies.iter().map(|(_, b)| count_where(b, &|s| matches!(s, Stmt::If { .. }))).sum();
    for k in 0..ifs {
        for branch in [true, false] {
            let mut c = t.clone();
            let mut left = k;
            let mut done = None;
            for (th, body) in &mut c.bodies {
                let th = th.text.clone();
                walk_lists_mut(body, &mut |ss| {
                    if done.is_some() {
                        return;
                    }
                    for i in 0..ss.len() {
                        if !matches!(ss[i], Stmt::If { .. }) {
                            continue;
                        }
                        if left > 0 {
                            left -= 1;
                            continue;
                        }
                        let Stmt::If { then, els, .. } = ss[i].clone() else { return };
                        let what = short(&ss[i]);
                        match if branch { Some(then) } else { els } {
                            Some(b) => {
                                ss.splice(i..=i, b.stmts);
                                done = Some(Some((th.clone(), what)));
                            }
                            // no `else`: dropping the statement is a reduction of its own
                            None => done = Some(None),
                        }
                        return;
                    }
                });
            }
            if let Some(Some((th, what))) = done {
                let b = if branch { "its `then` branch" } else { "its `else` branch" };
                push(format!("replace `{what}` of {th} by {b}"), c);
            }
        }
    }
    // drop an element of a set literal (a node of a node set, an iteration of a `for`)
    let mut sets = Vec::new();
    walk_exprs_mut(&mut t.clone(), &mut |e| {
        if let Ex::Set(es, _) = e {
            sets.push(es.len());
        }
    });
    for (k, &n) in sets.iter().enumerate() {
        for j in 0..n {
            let mut c = t.clone();
            let mut seen = 0;
            let mut what = String::new();
            walk_exprs_mut(&mut c, &mut |e| {
                if let Ex::Set(es, _) = e {
                    if seen == k {
                        what = format!(
                            "drop `{}` from `{}`",
                            print::expr(&es[j]),
                            print::expr(&Ex::Set(es.clone(), Pos::default()))
                        );
                        es.remove(j);
                    }
                    seen += 1;
                }
            });
            push(what, c);
        }
    }
    // simplify an argument of a call
    let mut calls = Vec::new();
    walk_calls_mut(&mut t.clone(), &mut |th, c| calls.push((th.to_string(), c.clone())));
    let decl = declared(t);
    for (k, (th, call)) in calls.iter().enumerate() {
        let bound = bound_names(t, th);
        for (ai, a) in call.args.iter().enumerate() {
            for (what, simpler) in simpler_args(a, &|n: &str| is_wid(n, &decl, &bound)) {
                let mut c = t.clone();
                let mut seen = 0;
                walk_calls_mut(&mut c, &mut |_, cc| {
                    if seen == k {
                        cc.args[ai] = simpler.clone();
                    }
                    seen += 1;
                });
                push(format!("{what} in `{}` of {th}", print::call(call)), c);
            }
        }
    }
    // declarations: unused locations, barriers, rings; libraries
    let used = used_names(t);
    for (i, l) in t.locs.iter().enumerate() {
        if !used.contains(&l.name.text) {
            let mut c = t.clone();
            c.locs.remove(i);
            push(format!("drop unused location {}", l.name.text), c);
        }
    }
    for (i, (z, _)) in t.barriers.iter().enumerate() {
        if !used.contains(&z.text) {
            let mut c = t.clone();
            c.barriers.remove(i);
            push(format!("drop unused barrier {}", z.text), c);
        }
    }
    for (i, (q, ..)) in t.rings.iter().enumerate() {
        if !used.contains(&q.text) {
            let mut c = t.clone();
            c.rings.remove(i);
            push(format!("drop unused ring {}", q.text), c);
        }
    }
    if t.libraries.len() > 1 {
        for (i, l) in t.libraries.iter().enumerate() {
            let mut c = t.clone();
            c.libraries.remove(i);
            push(format!("drop library {}", l.text), c);
        }
    }
    // smaller sizes and initial values
    for (i, (q, _, _, size)) in t.rings.iter().enumerate() {
        for s in smaller(size.unwrap_or(4)).into_iter().filter(|s| *s >= 1) {
            let mut c = t.clone();
            c.rings[i].3 = Some(s);
            push(format!("ring {} of size {s}", q.text), c);
        }
    }
    for (i, l) in t.locs.iter().enumerate() {
        if let Some(Lit::Int(v)) = l.init {
            let mut c = t.clone();
            c.locs[i].init = None;
            push(format!("location {} initially 0 (no initial value)", l.name.text), c);
            for w in smaller(v).into_iter().filter(|w| *w != 0) {
                let mut c = t.clone();
                c.locs[i].init = Some(Lit::Int(w));
                push(format!("location {} initially {w}", l.name.text), c);
            }
        }
        if let Some(k) = l.size {
            for s in smaller(k).into_iter().filter(|s| *s >= 1) {
                let mut c = t.clone();
                c.locs[i].size = Some(s);
                push(format!("location {} of size {s}", l.name.text), c);
            }
        }
    }
    // merge two locations: the second's uses become the first's
    for i in 0..t.locs.len() {
        for j in i + 1..t.locs.len() {
            let (keep, gone) = (t.locs[i].name.text.clone(), t.locs[j].name.text.clone());
            let mut c = t.clone();
            c.locs.remove(j);
            walk_exprs_mut(&mut c, &mut |e| {
                if let Ex::Var(n) = e {
                    if n.text == gone {
                        n.text = keep.clone();
                    }
                }
            });
            push(format!("merge location {gone} into {keep}"), c);
        }
    }
    // nodes: drop a node (its threads and locations move to another), move a
    // thread to a smaller node, renumber a node to a smaller free one
    let nodes = used_nodes(t);
    for &n in &nodes {
        for &m in nodes.iter().filter(|m| **m != n) {
            push(format!("drop node {n} (its threads and locations move to node {m})"), renode(t, n, m));
        }
    }
    for (i, (th, n)) in t.threads.iter().enumerate() {
        for &m in nodes.iter().filter(|m| *m < n) {
            let mut c = t.clone();
            c.threads[i].1 = m;
            push(format!("move thread {} to node {m}", th.text), c);
        }
    }
    for &n in &nodes {
        for m in (1..n).filter(|m| !nodes.contains(m)) {
            push(format!("renumber node {n} as {m}"), renode(t, n, m));
        }
    }
    // replace an observation (a call whose result a register holds) by a copy of
    // another thread's observation, the thread taking the role that call needs (a
    // reader of its ring, a participant of its barrier), and drop a call on what it
    // observed: the observed value then comes from elsewhere (e.g. a Receive of the
    // message a Submit sends, in place of a Read of a location written for the purpose)
    let mut bound_calls = Vec::new();
    walk_bound_calls_mut(&mut t.clone(), &mut |th, b, _| bound_calls.push((th.to_string(), b)));
    for (ci, (cth, call)) in calls.iter().enumerate() {
        if !bound_calls[ci].1 {
            continue;
        }
        let mut shown: BTreeSet<String> = BTreeSet::new();
        for (di, (dth, other)) in calls.iter().enumerate() {
            let text = print::call(other);
            if !bound_calls[di].1 || dth == cth || text == print::call(call) || !shown.insert(text.clone()) {
                continue;
            }
            let mut base = t.clone();
            let mut seen = 0;
            walk_calls_mut(&mut base, &mut |_, cc| {
                if seen == ci {
                    *cc = other.clone();
                }
                seen += 1;
            });
            let mut roles = Vec::new();
            for a in &other.args {
                let Ex::Var(n) = a else { continue };
                let me = Name { text: cth.clone(), pos: Pos::default() };
                for (q, w, rs, _) in &mut base.rings {
                    if q.text == n.text && w.text != *cth && !rs.iter().any(|r| r.text == *cth) {
                        rs.push(me.clone());
                        roles.push(format!("{cth} reads ring {}", q.text));
                    }
                }
                for (z, ts) in &mut base.barriers {
                    if z.text == n.text && !ts.iter().any(|r| r.text == *cth) {
                        ts.push(me.clone());
                        roles.push(format!("{cth} takes part in barrier {}", z.text));
                    }
                }
            }
            let roles = if roles.is_empty() { String::new() } else { format!(" ({})", roles.join(", ")) };
            // the calls on what the replaced observation observed (e.g. the write of
            // the location it read), which it no longer observes
            let observed: BTreeSet<&str> = call
                .args
                .iter()
                .filter_map(|a| match a {
                    Ex::Var(n) if n.text != "_" => Some(n.text.as_str()),
                    _ => None,
                })
                .collect();
            for (ei, (eth, dropped)) in calls.iter().enumerate() {
                let on_observed =
                    dropped.args.iter().any(|a| matches!(a, Ex::Var(n) if observed.contains(n.text.as_str())));
                if ei == ci || !on_observed {
                    continue;
                }
                let mut c = base.clone();
                drop_call(&mut c, ei);
                push(
                    format!(
                        "replace `{}` of {cth} by `{text}`{roles} and drop call `{}` of {eth}",
                        print::call(call),
                        print::call(dropped)
                    ),
                    c,
                );
            }
        }
    }
    // drop a library qualifier
    for (k, (th, call)) in calls.iter().enumerate() {
        if call.lib.is_some() {
            let mut c = t.clone();
            let mut seen = 0;
            walk_calls_mut(&mut c, &mut |_, cc| {
                if seen == k {
                    cc.lib = None;
                }
                seen += 1;
            });
            push(format!("unqualify `{}` of {th}", print::call(call)), c);
        }
    }
    out
}

fn short_kind(s: &Stmt) -> &'static str {
    match s {
        Stmt::Call(_) | Stmt::Let { rhs: Rhs::Call(_), .. } | Stmt::Assign { rhs: Rhs::Call(_), .. } => "call",
        _ => "statement",
    }
}

fn count_stmts(ss: &[Stmt]) -> usize {
    count_where(ss, &|_| true)
}

fn count_where(ss: &[Stmt], p: &dyn Fn(&Stmt) -> bool) -> usize {
    let mut n = 0;
    walk_stmts(ss, &mut |s| n += usize::from(p(s)));
    n
}

/// Whether a name passed to a call is a work identifier (no location, barrier, ring,
/// bound name or context name).
fn is_wid(n: &str, declared: &BTreeSet<String>, bound: &BTreeSet<String>) -> bool {
    n != "_" && !declared.contains(n) && !bound.contains(n) && !CONTEXT.contains(&n)
}

/// Simpler forms of an argument: `_` for a work identifier, a smaller integer, a
/// tuple with a component dropped or simpler.
fn simpler_args(a: &Ex, wid: &dyn Fn(&str) -> bool) -> Vec<(String, Ex)> {
    let p = Pos::default();
    match a {
        Ex::Var(n) if wid(&n.text) => {
            vec![(format!("`_` for `{}`", n.text), Ex::Var(Name { text: "_".into(), pos: p }))]
        }
        Ex::Int(v, _) => smaller(*v).into_iter().map(|w| (format!("`{w}` for `{v}`"), Ex::Int(w, p))).collect(),
        Ex::Tuple(es, _) => {
            let mut out = Vec::new();
            let shown = print::expr(a);
            for j in 0..es.len() {
                let mut fewer = es.clone();
                fewer.remove(j);
                let f = Ex::Tuple(fewer, p);
                out.push((format!("`{}` for `{shown}`", print::expr(&f)), f));
            }
            for (j, e) in es.iter().enumerate() {
                for (_, s) in simpler_args(e, wid) {
                    let mut es2 = es.clone();
                    es2[j] = s;
                    let f = Ex::Tuple(es2, p);
                    out.push((format!("`{}` for `{shown}`", print::expr(&f)), f));
                }
            }
            out
        }
        _ => vec![],
    }
}

/// `t` with node `n` renamed `m`: in `thread` and `loc` declarations and in the
/// node sets passed to calls (duplicates dropped).
fn renode(t: &Litmus, n: i64, m: i64) -> Litmus {
    let mut c = t.clone();
    for (_, node) in &mut c.threads {
        if *node == n {
            *node = m;
        }
    }
    for l in &mut c.locs {
        if l.node == Some(n) {
            l.node = Some(m);
        }
    }
    walk_calls_mut(&mut c, &mut |_, call| {
        for a in &mut call.args {
            if let Ex::Set(es, _) = a {
                let mut seen = BTreeSet::new();
                for e in es.iter_mut() {
                    if matches!(e, Ex::Int(v, _) if *v == n) {
                        *e = Ex::Int(m, Pos::default());
                    }
                }
                es.retain(|e| match e {
                    Ex::Int(v, _) => seen.insert(*v),
                    _ => true,
                });
            }
        }
    });
    c
}

/// The order in which clients shrink, compared lexicographically: threads, calls,
/// statements, set elements, declarations (locations, barriers, rings, libraries),
/// nodes, the sum of the node numbers of the declarations, the argument weight (integer values, named
/// work identifiers and tuple components in call arguments; ring sizes, initial
/// values, tuple sizes), library qualifiers. Every reduction of [`candidates`]
/// makes it smaller, and [`minimise`] keeps only candidates that do, so it ends.
pub fn measure(t: &Litmus) -> [u64; 9] {
    let sz = size(t);
    let statements: usize = t.bodies.iter().map(|(_, b)| count_stmts(b)).sum();
    let mut set_elems = 0u64;
    walk_exprs_mut(&mut t.clone(), &mut |e| {
        if let Ex::Set(es, _) = e {
            set_elems += es.len() as u64;
        }
    });
    let decl = declared(t);
    let mut weight = 0u64;
    let mut qualifiers = 0u64;
    let mut c = t.clone();
    let bound: Vec<(String, BTreeSet<String>)> =
        t.threads.iter().map(|(n, _)| (n.text.clone(), bound_names(t, &n.text))).collect();
    walk_calls_mut(&mut c, &mut |th, call| {
        qualifiers += u64::from(call.lib.is_some());
        let b = bound.iter().find(|(n, _)| n == th).map(|(_, b)| b.clone()).unwrap_or_default();
        for a in &call.args {
            weight = weight.saturating_add(arg_weight(a, &|n: &str| is_wid(n, &decl, &b)));
        }
    });
    for (_, _, _, s) in &t.rings {
        weight = weight.saturating_add(s.unwrap_or(4).unsigned_abs());
    }
    for l in &t.locs {
        if let Some(Lit::Int(v)) = l.init {
            weight = weight.saturating_add(v.unsigned_abs()).saturating_add(1);
        }
        weight = weight.saturating_add(l.size.unwrap_or(0).unsigned_abs());
    }
    let nodes = used_nodes(t);
    [
        sz.threads as u64,
        sz.calls as u64,
        statements as u64,
        set_elems,
        (t.locs.len() + t.barriers.len() + t.rings.len() + t.libraries.len()) as u64,
        nodes.len() as u64,
        t.threads.iter().map(|(_, n)| *n).chain(t.locs.iter().filter_map(|l| l.node)).map(i64::unsigned_abs).sum(),
        weight,
        qualifiers,
    ]
}

fn arg_weight(a: &Ex, wid: &dyn Fn(&str) -> bool) -> u64 {
    match a {
        Ex::Var(n) => u64::from(wid(&n.text)),
        Ex::Int(v, _) => v.unsigned_abs().saturating_add(u64::from(*v < 0)),
        Ex::Tuple(es, _) => es.iter().fold(0u64, |w, e| w.saturating_add(arg_weight(e, wid)).saturating_add(1)),
        _ => 0,
    }
}

// ---------------------------------------------------------------------------
// Minimising
// ---------------------------------------------------------------------------

/// A minimised client.
#[derive(Clone, Debug)]
pub struct Minimised {
    /// The original client's test name.
    pub name: String,
    pub before: Size,
    pub after: Size,
    /// The reductions kept, in order.
    pub reductions: Vec<String>,
    /// Clients checked with `refine` (the original included).
    pub checks: usize,
    pub millis: f64,
    /// The minimised client (named `NAME-min`), its expectation the forbidden outcome.
    pub client: Litmus,
    pub report: ClientReport,
}

/// Why a client is not minimised.
#[derive(Clone, Debug, thiserror::Error)]
pub enum MinimiseError {
    #[error("{0}")]
    Input(InputError),
    #[error("`{0}` is not a client of the implemented library: nothing to minimise")]
    NotAClient(String),
    #[error("`{0}` does not fail: every outcome of the implementation is an outcome of the specification, nothing to minimise")]
    DoesNotFail(String),
    #[error("`{0}` fails, but its counterexample cannot be written as an expectation: {1}")]
    Unexpressible(String, String),
}

/// Shrinks a failing client (litmus text) to a 1-minimal one that still fails.
pub fn minimise(
    imp: &Implementation,
    order: &StampOrder,
    file: &str,
    text: &str,
    loop_bound: usize,
) -> Result<Minimised, MinimiseError> {
    let start = Instant::now();
    let ast = syntax::parse(text).map_err(|e| {
        MinimiseError::Input(InputError { file: file.to_string(), line: e.pos.line, col: e.pos.col, msg: e.msg })
    })?;
    let name = ast.name.clone();
    let before = size(&ast);
    // the original, as given (its own expectations decide the observed locations)
    let mut checks = 1;
    let (mut cur, mut report) = match check(imp, order, &ast, loop_bound) {
        Check::Fails { client, report } => (*client, *report),
        Check::Passes => return Err(MinimiseError::DoesNotFail(name)),
        Check::Unexpressible(why) => return Err(MinimiseError::Unexpressible(name, why)),
        Check::Invalid(msg) => {
            // the printed test is the parsed one: an error here is the input's
            return match refine_client(imp, order, file, text, loop_bound, true) {
                Err(e) => Err(MinimiseError::Input(e)),
                Ok(_) if msg.starts_with("not a client") => Err(MinimiseError::NotAClient(name)),
                Ok(_) => Err(MinimiseError::Input(InputError { file: file.to_string(), line: 1, col: 1, msg })),
            };
        }
    };
    let mut reductions = Vec::new();
    loop {
        let mut changed = false;
        let mut i = 0;
        let mut cands = candidates(&cur);
        while i < cands.len() {
            let c = &cands[i];
            if measure(&c.client) >= measure(&cur) {
                i += 1;
                continue;
            }
            checks += 1;
            match check(imp, order, &c.client, loop_bound) {
                Check::Fails { client, report: r } => {
                    reductions.push(c.what.clone());
                    cur = *client;
                    report = *r;
                    changed = true;
                    // the candidates of the smaller client, from the same place on
                    cands = candidates(&cur);
                }
                _ => i += 1,
            }
        }
        if !changed {
            break;
        }
    }
    cur.name = format!("{name}-min");
    cur.description = None;
    Ok(Minimised {
        name,
        before,
        after: size(&cur),
        reductions,
        checks,
        millis: start.elapsed().as_secs_f64() * 1000.0,
        client: cur,
        report,
    })
}

/// The file of a minimised client: a comment header (the implementation, the
/// original client, the reductions kept, the sizes before and after), then the
/// client with its `expect forbidden` outcome.
pub fn render(imp: &Implementation, original: &str, m: &Minimised) -> String {
    let mut s = format!(
        "# Minimised by `mowgli refine --minimise`: implementation `{}` ({}) reaches the outcome\n\
         # of the `expect forbidden` line, which the specification forbids.\n\
         # Original client: {} ({original}): {}.\n\
         # Minimised: {}; {} reductions kept, {} clients checked, {:.0} ms.\n",
        imp.name,
        imp.file,
        m.name,
        m.before,
        m.after,
        m.reductions.len(),
        m.checks,
        m.millis
    );
    for r in &m.reductions {
        s += &format!("#   {r}\n");
    }
    s += &print(&m.client);
    s
}

/// What `--minimise DIR` did for one failing client.
#[derive(Clone, Debug, Serialize)]
pub struct Written {
    /// The failing client's name and file.
    pub client: String,
    pub file: String,
    /// The minimised client's file, when one was written.
    pub path: Option<String>,
    pub before: Option<Size>,
    pub after: Option<Size>,
    pub reductions: Vec<String>,
    pub checks: usize,
    pub millis: f64,
    /// Why no minimised client was written (the client could not be minimised).
    pub note: Option<String>,
}

impl Written {
    /// One line for the human output.
    pub fn line(&self) -> String {
        match (&self.path, &self.before, &self.after) {
            (Some(p), Some(b), Some(a)) => format!(
                "minimised: {p} ({} calls → {}, {} threads → {}; {} reductions, {} checks, {:.0} ms)",
                b.calls,
                a.calls,
                b.threads,
                a.threads,
                self.reductions.len(),
                self.checks,
                self.millis
            ),
            _ => format!("not minimised: {}", self.note.as_deref().unwrap_or("?")),
        }
    }
}

/// Minimises a failing client and writes it as `DIR/NAME-min.litmus`. A client that
/// cannot be minimised is reported in [`Written::note`]; `Err` is an output that
/// cannot be written.
pub fn minimise_to(
    imp: &Implementation,
    order: &StampOrder,
    file: &str,
    text: &str,
    loop_bound: usize,
    dir: &Path,
) -> Result<Written, String> {
    let mut w = Written {
        client: String::new(),
        file: file.to_string(),
        path: None,
        before: None,
        after: None,
        reductions: vec![],
        checks: 0,
        millis: 0.0,
        note: None,
    };
    match minimise(imp, order, file, text, loop_bound) {
        Ok(m) => {
            let path = dir.join(format!("{}.litmus", m.client.name));
            std::fs::create_dir_all(dir)
                .and_then(|_| std::fs::write(&path, render(imp, file, &m)))
                .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            w.client = m.name;
            w.path = Some(path.display().to_string());
            w.before = Some(m.before);
            w.after = Some(m.after);
            w.reductions = m.reductions;
            w.checks = m.checks;
            w.millis = m.millis;
        }
        Err(e) => {
            w.client = match &e {
                MinimiseError::NotAClient(n) | MinimiseError::DoesNotFail(n) | MinimiseError::Unexpressible(n, _) => {
                    n.clone()
                }
                MinimiseError::Input(_) => file.to_string(),
            };
            w.note = Some(e.to_string());
        }
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_values_read_back_as_literals() {
        assert_eq!(parse_value("1"), Some(Lit::Int(1)));
        assert_eq!(parse_value("-3"), Some(Lit::Int(-3)));
        assert_eq!(
            parse_value("[1, [true, bot], ()]"),
            Some(Lit::Tuple(vec![Lit::Int(1), Lit::Tuple(vec![Lit::Bool(true), Lit::Bot]), Lit::Unit]))
        );
        assert_eq!(parse_value("[]"), Some(Lit::Tuple(vec![])));
        for bad in ["?", "one of {0, 1}", "x", "[1,", "1 2", ""] {
            assert_eq!(parse_value(bad), None, "{bad}");
        }
    }

    #[test]
    fn candidates_shrink_the_measure() {
        let t = syntax::parse(
            "test C\nlibraries sv, rdmawait\nthread T1 @ 1\nthread T2 @ 3\nloc x\nloc y\nloc a @ 3 = 2\n\
             T1:\n  sv.Write(x, 3)\n  r = sv.Read(y)\n  if r == 1 { Put(a, 1, d) } else { Wait(d) }\n  \
             for i in {1, 2} { sv.GF({1, 3}) }\nT2:\n  s = sv.Read(x)\n\
             expect forbidden T1:r = 0 /\\ T2:s = 0 /\\ a = 2\n",
        )
        .expect("parses");
        let cands = candidates(&t);
        let m = measure(&t);
        for c in &cands {
            assert!(measure(&c.client) < m, "{}: {:?} vs {m:?}", c.what, measure(&c.client));
        }
        let whats: Vec<&str> = cands.iter().map(|c| c.what.as_str()).collect();
        for w in [
            "drop thread T2",
            "drop call `r = sv.Read(y)` of T1",
            "replace `if r == 1 { …` of T1 by its `else` branch",
            "drop `1` from `{1, 2}`",
            "`_` for `d` in `Put(a, 1, d)` of T1",
            "`2` for `3` in `sv.Write(x, 3)` of T1",
            "location a initially 1",
            "merge location y into x",
            "drop node 3 (its threads and locations move to node 1)",
            "renumber node 3 as 2",
            "unqualify `sv.GF({1, 3})` of T1",
        ] {
            assert!(whats.contains(&w), "{w} not in {whats:#?}");
        }
        // dropping T2 drops its atom; dropping the read drops T1:r
        let c = cands.iter().find(|c| c.what == "drop thread T2").expect("found");
        assert_eq!(c.client.expects[0].text, "T1:r = 0 /\\ a = 2");
        let c = cands.iter().find(|c| c.what == "drop call `r = sv.Read(y)` of T1").expect("found");
        assert_eq!(c.client.expects[0].text, "T2:s = 0 /\\ a = 2");
        // node 3 dropped into 1: the set {1, 3} becomes {1}
        let c = cands.iter().find(|c| c.what.starts_with("drop node 3")).expect("found");
        assert!(print(&c.client).contains("sv.GF({1})"), "{}", print(&c.client));
    }
}
