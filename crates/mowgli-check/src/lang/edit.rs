//! Edits of a parsed test ([`Litmus`]) that analyses make before running it: a
//! library renamed, the calls of a body visited or rewritten, statements inserted.
//! The analyses exchange the edited test, not its text; [`super::print::print`]
//! writes it where a file is written.

use super::ast::{Block, CallEx, Ex, Rhs, Stmt};
use super::syntax::{Litmus, Name, Pos};

/// `from` renamed `to` in the test's `libraries` and as the qualifier of its calls
/// (`from.Method(…)`); other names are left alone.
pub fn rename_library(t: &mut Litmus, from: &str, to: &str) {
    for n in t.libraries.iter_mut().filter(|n| n.text == from) {
        n.text = to.to_string();
    }
    for (_, body) in &mut t.bodies {
        for_each_call_mut(body, &mut |c| {
            if let Some(l) = c.lib.as_mut().filter(|l| l.text == from) {
                l.text = to.to_string();
            }
        });
    }
}

/// Whether the test lists library `name`.
pub fn uses_library(t: &Litmus, name: &str) -> bool {
    t.libraries.iter().any(|n| n.text == name)
}

/// Calls `f` on every call of `stmts`, those of nested blocks included.
pub fn for_each_call_mut(stmts: &mut [Stmt], f: &mut dyn FnMut(&mut CallEx)) {
    for s in stmts {
        stmt_calls(s, f);
    }
}

fn stmt_calls(s: &mut Stmt, f: &mut dyn FnMut(&mut CallEx)) {
    match s {
        Stmt::Call(c) => f(c),
        Stmt::Let { rhs, .. } | Stmt::Assign { rhs, .. } => match rhs {
            Rhs::Call(c) => f(c),
            Rhs::If(s) => stmt_calls(s, f),
            Rhs::Expr(_) => {}
        },
        Stmt::If { then, els, .. } => {
            for_each_call_mut(&mut then.stmts, f);
            if let Some(e) = els {
                for_each_call_mut(&mut e.stmts, f);
            }
        }
        Stmt::Loop(b, _) | Stmt::For { body: b, .. } => for_each_call_mut(&mut b.stmts, f),
        Stmt::Break(..) | Stmt::Value(_) => {}
    }
}

/// Each statement of `stmts` replaced by the statements `f` gives for it (`None`:
/// kept), in nested blocks too (`f` sees a statement after its blocks are rewritten).
pub fn expand_stmts(stmts: Vec<Stmt>, f: &mut dyn FnMut(&Stmt) -> Option<Vec<Stmt>>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        let s = expand_nested(s, f);
        match f(&s) {
            Some(v) => out.extend(v),
            None => out.push(s),
        }
    }
    out
}

fn expand_block(b: Block, f: &mut dyn FnMut(&Stmt) -> Option<Vec<Stmt>>) -> Block {
    Block { stmts: expand_stmts(b.stmts, f), pos: b.pos }
}

fn expand_nested(s: Stmt, f: &mut dyn FnMut(&Stmt) -> Option<Vec<Stmt>>) -> Stmt {
    match s {
        Stmt::If { cond, then, els, pos } => {
            Stmt::If { cond, then: expand_block(then, f), els: els.map(|e| expand_block(e, f)), pos }
        }
        Stmt::Loop(b, pos) => Stmt::Loop(expand_block(b, f), pos),
        Stmt::For { var, set, body } => Stmt::For { var, set, body: expand_block(body, f) },
        s => s,
    }
}

/// A name at no position (of an edit, not of the source).
pub fn name(text: &str) -> Name {
    Name { text: text.to_string(), pos: Pos::default() }
}

/// The call `[lib.]method(args)` at no position.
pub fn call(lib: Option<&str>, method: &str, args: Vec<Ex>) -> CallEx {
    CallEx { lib: lib.map(name), method: name(method), args }
}

/// The statement `[lib.]method(args)` at no position.
pub fn call_stmt(lib: Option<&str>, method: &str, args: Vec<Ex>) -> Stmt {
    Stmt::Call(call(lib, method, args))
}

/// An argument of an inserted call: an integer, or a name (a location or `_`).
pub fn arg(text: &str) -> Ex {
    match text.parse::<i64>() {
        Ok(v) => Ex::Int(v, Pos::default()),
        Err(_) => Ex::Var(name(text)),
    }
}

/// The call of statement `s`, if it is one (`[r =] [LIB.]Method(…)`).
pub fn call_of(s: &Stmt) -> Option<&CallEx> {
    match s {
        Stmt::Call(c) | Stmt::Let { rhs: Rhs::Call(c), .. } | Stmt::Assign { rhs: Rhs::Call(c), .. } => Some(c),
        _ => None,
    }
}

/// The call of statement `s`, mutably.
pub fn call_of_mut(s: &mut Stmt) -> Option<&mut CallEx> {
    match s {
        Stmt::Call(c) | Stmt::Let { rhs: Rhs::Call(c), .. } | Stmt::Assign { rhs: Rhs::Call(c), .. } => Some(c),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::print::{normalised, print};
    use super::super::syntax::parse;
    use super::*;

    fn parsed(text: &str) -> Litmus {
        parse(text).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// The printed test parses back to itself.
    fn round_trips(t: &Litmus) -> String {
        let p = print(t);
        assert_eq!(normalised(&parsed(&p)), normalised(t), "\n{p}");
        p
    }

    #[test]
    fn renaming_touches_the_libraries_and_qualifiers_only() {
        let mut t = parsed(
            "test R\nlibraries rdmatso, rdmawait\nthread T1 @ 1\nloc x @ 2\nloc y @ 1\nT1:\n  rdmatso.Put(x, y)\n  \
             r = rdmawait.Read(y)\n  if r == 1 { rdmatso.Poll(2) }\n  rdmatso_x = Read(y)\n",
        );
        rename_library(&mut t, "rdmatso", "rdmatso_nopcie");
        assert!(uses_library(&t, "rdmatso_nopcie") && uses_library(&t, "rdmawait") && !uses_library(&t, "rdmatso"));
        let p = round_trips(&t);
        assert!(p.contains("rdmatso_nopcie.Put(x, y)") && p.contains("rdmatso_nopcie.Poll(2)"), "{p}");
        assert!(p.contains("rdmawait.Read(y)") && p.contains("rdmatso_x = Read(y)"), "{p}");
    }

    #[test]
    fn expanding_replaces_calls_in_nested_blocks() {
        let t = parsed(
            "test E\nlibraries corerma\nthread T1 @ 1\nloc x @ 2\nT1:\n  Flush(2)\n  loop { Flush(2); break }\n",
        );
        let mut t2 = t.clone();
        let (_, body) = &mut t2.bodies[0];
        *body = expand_stmts(std::mem::take(body), &mut |s| {
            let c = call_of(s)?;
            (c.method.text == "Flush")
                .then(|| vec![call_stmt(None, "Rfence", c.args.clone()), call_stmt(None, "Mfence", vec![])])
        });
        let p = round_trips(&t2);
        assert_eq!(p.matches("Rfence(2)").count(), 2, "{p}");
        assert_eq!(p.matches("Mfence()").count(), 2, "{p}");
        assert!(!p.contains("Flush"), "{p}");
    }

    #[test]
    fn built_calls_print_as_written() {
        let mut t = parsed("test B\nlibraries rdmasc\nthread T1 @ 1\nloc x @ 2\nloc f @ 1\nT1:\n  Put(x, f)\n");
        t.bodies[0].1.push(call_stmt(None, "Get", vec![arg("f"), arg("x")]));
        t.bodies[0].1.push(call_stmt(Some("rdmasc"), "Poll", vec![arg("2")]));
        let p = round_trips(&t);
        assert!(p.ends_with("  Put(x, f)\n  Get(f, x)\n  rdmasc.Poll(2)\n"), "{p}");
    }
}
