//! Walking and editing the thread bodies of a parsed client.

use std::collections::BTreeSet;

use crate::lang::ast::{Block, CallEx, Ex, Rhs, Stmt};
use crate::lang::print::{self, print};
use crate::lang::syntax::{Cond, Litmus, Name, Pos};

/// The blocks directly inside a statement.
pub(super) fn child_blocks(s: &Stmt) -> Vec<&Block> {
    match s {
        Stmt::If { then, els, .. } => std::iter::once(then).chain(els.as_ref()).collect(),
        Stmt::Loop(b, _) | Stmt::For { body: b, .. } => vec![b],
        Stmt::Let { rhs: Rhs::If(i), .. } | Stmt::Assign { rhs: Rhs::If(i), .. } => child_blocks(i),
        _ => vec![],
    }
}

pub(super) fn child_blocks_mut(s: &mut Stmt) -> Vec<&mut Block> {
    match s {
        Stmt::If { then, els, .. } => std::iter::once(then).chain(els.as_mut()).collect(),
        Stmt::Loop(b, _) | Stmt::For { body: b, .. } => vec![b],
        Stmt::Let { rhs: Rhs::If(i), .. } | Stmt::Assign { rhs: Rhs::If(i), .. } => child_blocks_mut(i),
        _ => vec![],
    }
}

/// Every statement, in pre-order.
pub(super) fn walk_stmts(ss: &[Stmt], f: &mut dyn FnMut(&Stmt)) {
    for s in ss {
        f(s);
        for b in child_blocks(s) {
            walk_stmts(&b.stmts, f);
        }
    }
}

/// Every statement list (a body, then the blocks inside it), in pre-order.
pub(super) fn walk_lists_mut(ss: &mut Vec<Stmt>, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    f(ss);
    for s in ss.iter_mut() {
        for b in child_blocks_mut(s) {
            walk_lists_mut(&mut b.stmts, f);
        }
    }
}

/// The expressions directly in a statement (not those of its blocks).
pub(super) fn stmt_exprs_mut(s: &mut Stmt) -> Vec<&mut Ex> {
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
pub(super) fn walk_exprs_mut(t: &mut Litmus, f: &mut dyn FnMut(&mut Ex)) {
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
pub(super) fn walk_calls_mut(t: &mut Litmus, f: &mut dyn FnMut(&str, &mut CallEx)) {
    walk_bound_calls_mut(t, &mut |th, _, c| f(th, c));
}

/// [`walk_calls_mut`], with whether the call's result is bound to a register.
pub(super) fn walk_bound_calls_mut(t: &mut Litmus, f: &mut dyn FnMut(&str, bool, &mut CallEx)) {
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
pub(super) fn drop_call(t: &mut Litmus, k: usize) {
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
pub(super) fn bound_names(t: &Litmus, thread: &str) -> BTreeSet<String> {
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
pub(super) fn used_names(t: &Litmus) -> BTreeSet<String> {
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
pub(super) fn used_nodes(t: &Litmus) -> BTreeSet<i64> {
    t.threads.iter().map(|(_, n)| *n).chain(t.locs.iter().filter_map(|l| l.node)).collect()
}

/// Context names of the implementation language (no work identifiers).
pub(super) const CONTEXT: [&str; 5] = ["node", "self", "nodes", "threads", "wids"];

/// The names declared as locations, barriers or rings.
pub(super) fn declared(t: &Litmus) -> BTreeSet<String> {
    t.locs
        .iter()
        .map(|l| l.name.text.clone())
        .chain(t.barriers.iter().map(|b| b.0.text.clone()))
        .chain(t.rings.iter().map(|r| r.0.text.clone()))
        .collect()
}

/// Drops the condition atoms `keep` rejects (an expectation left without atoms is
/// dropped).
pub(super) fn prune_expects(t: &mut Litmus, keep: &dyn Fn(&Cond) -> bool) {
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
pub(super) fn fix_expects(t: &mut Litmus) {
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

pub(super) fn short(s: &Stmt) -> String {
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

/// Whether a statement is a call (bound to a register or not).
pub(super) fn short_kind(s: &Stmt) -> &'static str {
    match s {
        Stmt::Call(_) | Stmt::Let { rhs: Rhs::Call(_), .. } | Stmt::Assign { rhs: Rhs::Call(_), .. } => "call",
        _ => "statement",
    }
}
