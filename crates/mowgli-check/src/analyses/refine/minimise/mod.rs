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

mod body;
mod reduce;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use mowgli_core::StampOrder;
use serde::Serialize;

use super::Implementation;
use super::{refine_client_on, refine_parsed_on, ClientCheck, ClientReport, ClientVerdict};
use crate::analyses::litmus::check_parsed;
use crate::engines::explicit::Backend;
use crate::lang::ast::{Rhs, Stmt};
use crate::lang::print::{self, print};
use crate::lang::syntax::{self, Cond, Expect, Lit, Litmus, Name, Pos};
use crate::lang::InputError;

use body::{used_nodes, walk_stmts};
pub use reduce::{candidates, measure, Candidate};

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
    check_on(imp, order, t, loop_bound, Backend::Explicit)
}

/// [`check`] with `engine` searching the implementation's executions.
pub fn check_on(imp: &Implementation, order: &StampOrder, t: &Litmus, loop_bound: usize, engine: Backend) -> Check {
    // the parsed test is checked as it is; its text is printed only for a diagnostic
    let how = ClientCheck { engine, ..ClientCheck::new(loop_bound, true) };
    let report = match refine_parsed_on(imp, order, &t.name, t, &|| print(t), &how) {
        Err(e) => return Check::Invalid(e.headline()),
        Ok(r) if r.verdict == ClientVerdict::Skipped => {
            return Check::Invalid(format!("not a client of `{}`", imp.implements))
        }
        Ok(r) if r.verdict == ClientVerdict::Ok => return Check::Passes,
        // a loop cut on the specification's side: the outcome may be one it has
        Ok(r) if r.verdict == ClientVerdict::Inconclusive => {
            return Check::Unexpressible(r.inconclusive.unwrap_or_else(|| "the check was cut".into()))
        }
        Ok(r) => r,
    };
    let Some(cex) = &report.counterexample else {
        return Check::Unexpressible("the failing client has no counterexample".into());
    };
    // a client the specification has no execution of fails on any execution of the
    // implementation (e.g. a write of a tuple of the wrong size): no outcome of it
    // is forbidden for a reason worth keeping
    if report.spec_vacuous {
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
    // a condition names the locations `refine` compares: when they are not those of
    // `t`, the fixed client is a different check and is run again
    let report = if cond_locations(&fixed) == cond_locations(t) {
        report
    } else {
        match refine_parsed_on(imp, order, &t.name, &fixed, &|| print(&fixed), &how) {
            Ok(r) if r.verdict == ClientVerdict::Fail => r,
            Ok(_) => return Check::Unexpressible("with its outcome as the expectation it passes".into()),
            Err(e) => return Check::Unexpressible(e.headline()),
        }
    };
    match check_parsed(&t.name, &print(&fixed), &fixed, order, &imp.catalogue) {
        Ok(r) if r.expectations.iter().all(|e| e.ok) => {
            Check::Fails { client: Box::new(fixed), report: Box::new(report) }
        }
        Ok(_) => Check::Unexpressible("the specification reaches the outcome as written".into()),
        Err(e) => Check::Unexpressible(e.headline()),
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
    minimise_on(imp, order, file, text, loop_bound, Backend::Explicit)
}

/// [`minimise`] with `engine` searching the implementation's executions.
pub fn minimise_on(
    imp: &Implementation,
    order: &StampOrder,
    file: &str,
    text: &str,
    loop_bound: usize,
    engine: Backend,
) -> Result<Minimised, MinimiseError> {
    let start = Instant::now();
    let ast = syntax::parse(text).map_err(|e| MinimiseError::Input(e.in_file(file, text)))?;
    let name = ast.name.clone();
    let before = size(&ast);
    // the original, as given (its own expectations decide the observed locations)
    let mut checks = 1;
    let (mut cur, mut report) = match check_on(imp, order, &ast, loop_bound, engine) {
        Check::Fails { client, report } => (*client, *report),
        Check::Passes => return Err(MinimiseError::DoesNotFail(name)),
        Check::Unexpressible(why) => return Err(MinimiseError::Unexpressible(name, why)),
        Check::Invalid(msg) => {
            // the printed test is the parsed one: an error here is the input's
            return match refine_client_on(
                imp,
                order,
                file,
                text,
                &ClientCheck { engine, ..ClientCheck::new(loop_bound, true) },
            ) {
                Err(e) => Err(MinimiseError::Input(e)),
                Ok(_) if msg.starts_with("not a client") => Err(MinimiseError::NotAClient(name)),
                Ok(_) => Err(MinimiseError::Input(InputError::whole_file(file, msg))),
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
            match check_on(imp, order, &c.client, loop_bound, engine) {
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
                "minimised: {p} ({} → {} calls, {} → {} threads; {} reductions, {} checks, {:.0} ms)",
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
) -> Result<Written, InputError> {
    minimise_to_on(imp, order, file, text, loop_bound, dir, Backend::Explicit)
}

/// [`minimise_to`] with `engine` searching the implementation's executions.
pub fn minimise_to_on(
    imp: &Implementation,
    order: &StampOrder,
    file: &str,
    text: &str,
    loop_bound: usize,
    dir: &Path,
    engine: Backend,
) -> Result<Written, InputError> {
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
    match minimise_on(imp, order, file, text, loop_bound, engine) {
        Ok(m) => {
            let path = dir.join(format!("{}.litmus", m.client.name));
            std::fs::create_dir_all(dir)
                .and_then(|_| std::fs::write(&path, render(imp, file, &m)))
                .map_err(|e| InputError::whole_file(path.display().to_string(), format!("cannot write: {e}")))?;
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
            w.note = Some(match &e {
                MinimiseError::Input(d) => d.headline(),
                e => e.to_string(),
            });
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
}
