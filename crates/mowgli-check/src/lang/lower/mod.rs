//! Semantic checks of a parsed litmus test and its translation into an engine
//! [`Problem`]: names resolved, methods resolved by library, arguments checked.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap as HashMap;

use mowgli_core::program::{unfold_with, CallRecord, Expr, Hooks, Op, Prog, RegId};
use mowgli_core::{Library, LocInfo, ObjInfo, Param, StampOrder, ThreadInfo, Value, ValueDomain, World};

use super::syntax::{Cond, Lit, Litmus, Name, Pos};
use crate::engines::explicit::{Outcome, Problem};
use crate::lang::ast::{CallEx, Ex, Rhs, Stmt};
use crate::lang::stmts::{build_library, lerr, unknown, Host, LErr, Lowerer, L};
use mowgli_diag::Diagnostic;
use mowgli_libs::catalogue::Catalogue;

/// The unrolling bound of loops that are no spin loops (`Problem::loop_bound`).
pub const LOOP_BOUND: usize = 8;

/// A semantic error (a [`Diagnostic`] whose file is added by the caller).
pub type SemError = Diagnostic;

fn err<T>(pos: Pos, msg: impl Into<String>) -> Result<T, SemError> {
    Err(Diagnostic::new(pos, msg))
}

/// A condition with names resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RCond {
    True,
    Reg(usize, usize, Value),
    Loc(usize, Option<u32>, Value),
    Not(Box<RCond>),
    And(Box<RCond>, Box<RCond>),
    Or(Box<RCond>, Box<RCond>),
}

impl RCond {
    pub fn holds(&self, o: &Outcome) -> bool {
        match self {
            RCond::True => true,
            RCond::Reg(t, r, v) => o.regs[*t].get(*r).and_then(|x| x.as_ref()) == Some(v),
            RCond::Loc(l, n, v) => o.finals.get(&(*l, *n)) == Some(v),
            RCond::Not(c) => !c.holds(o),
            RCond::And(a, b) => a.holds(o) && b.holds(o),
            RCond::Or(a, b) => a.holds(o) || b.holds(o),
        }
    }
    fn locs(&self, out: &mut BTreeSet<(usize, Option<u32>)>) {
        match self {
            RCond::Loc(l, n, _) => {
                out.insert((*l, *n));
            }
            RCond::Not(c) => c.locs(out),
            RCond::And(a, b) | RCond::Or(a, b) => {
                a.locs(out);
                b.locs(out);
            }
            _ => {}
        }
    }
}

pub struct Expectation {
    pub allowed: bool,
    pub cond: RCond,
    pub text: String,
    pub pos: Pos,
}

/// A litmus test ready to run.
pub struct Lowered {
    pub name: String,
    pub world: World,
    pub libs: Vec<Box<dyn Library>>,
    pub lib_names: Vec<String>,
    pub threads: Vec<(Prog, usize)>,
    /// Register names per thread (index = register id).
    pub reg_names: Vec<Vec<String>>,
    pub expects: Vec<Expectation>,
    /// Locations (and copies) named in conditions, shown in outcomes.
    pub shown_locs: Vec<(usize, Option<u32>)>,
    pub domain: ValueDomain,
    /// Why the value domain is incomplete, when a limit stopped its fixpoint:
    /// outcomes found are real, but some may be missing (the run is inconclusive).
    pub domain_cut: Option<String>,
    /// The unrolling bound of loops that are no spin loops (`mowgli litmus
    /// --loop-bound`, default [`LOOP_BOUND`]).
    pub loop_bound: usize,
}

fn lit_value(l: &Lit) -> Value {
    match l {
        Lit::Int(i) => Value::Int(*i),
        Lit::Bool(b) => Value::Bool(*b),
        Lit::Bot => Value::Bot,
        Lit::Top => Value::Top,
        Lit::Unit => Value::Unit,
        Lit::Tuple(vs) => Value::Tuple(vs.iter().map(lit_value).collect()),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Loc,
    Reg,
    Wid,
    Barrier,
    Ring,
}

impl Kind {
    fn article(self) -> &'static str {
        match self {
            Kind::Loc => "a location",
            Kind::Reg => "a register",
            Kind::Wid => "a work identifier",
            Kind::Barrier => "a barrier",
            Kind::Ring => "a ring",
        }
    }
}

struct Names {
    kinds: HashMap<String, Kind>,
}

impl Names {
    fn claim(&mut self, n: &Name, k: Kind) -> Result<(), SemError> {
        match self.kinds.get(&n.text) {
            Some(k0) if *k0 != k => err(
                n.pos,
                format!(
                    "`{}` is already {}; it cannot also be {} (one namespace per test)",
                    n.text,
                    k0.article(),
                    k.article()
                ),
            ),
            Some(_) => Ok(()),
            None => {
                self.kinds.insert(n.text.clone(), k);
                Ok(())
            }
        }
    }
}

/// Checks `t` and builds the program, with the libraries of `cat` built under `order`.
///
/// A value domain cut by its limit ([`Lowered::domain_cut`]) is an error here:
/// the analyses that lower with this function have no inconclusive outcome for
/// a test, and must not run on a domain that may miss values (`mowgli litmus`
/// and `mowgli refine` use [`lower_with`] and report the test inconclusive).
pub fn lower(t: &Litmus, order: &StampOrder, cat: &Catalogue) -> Result<Lowered, SemError> {
    lower_complete(t, order, cat, DomainLimits::default())
}

/// [`lower`] under other limits (`mowgli robust --loop-bound`): a value domain cut
/// by its limit is an error.
pub fn lower_complete(
    t: &Litmus,
    order: &StampOrder,
    cat: &Catalogue,
    limits: DomainLimits,
) -> Result<Lowered, SemError> {
    let low = lower_with(t, order, cat, limits)?;
    match &low.domain_cut {
        Some(why) => Err(Diagnostic::limit(
            Pos { line: 1, col: 1 },
            format!(
                "test `{}`: {why} (a limit, not a malformed test: this command cannot go on with values \
                 missing; `mowgli litmus --max-values N` runs the test with a larger domain)",
                t.name
            ),
        )),
        None => Ok(low),
    }
}

/// [`lower`] with the bounds of a computed value domain.
pub fn lower_with(t: &Litmus, order: &StampOrder, cat: &Catalogue, limits: DomainLimits) -> Result<Lowered, SemError> {
    // libraries
    let Some(lpos) = t.libraries_pos else {
        return err(Pos { line: 1, col: 1 }, format!("test `{}` has no `libraries` statement", t.name));
    };
    let mut libs: Vec<Box<dyn Library>> = Vec::new();
    let mut lib_names = Vec::new();
    for n in &t.libraries {
        if lib_names.contains(&n.text) {
            return err(n.pos, format!("library `{}` is listed twice", n.text));
        }
        let l = build_library(n, order, cat)?;
        lib_names.push(n.text.clone());
        libs.push(l);
    }
    let _ = lpos;
    // threads
    let mut world = World::default();
    let mut tids = HashMap::default();
    let mut nodes = BTreeSet::new();
    for (n, node) in &t.threads {
        if tids.contains_key(&n.text) {
            return err(n.pos, format!("thread `{}` is declared twice", n.text));
        }
        tids.insert(n.text.clone(), world.threads.len());
        world.threads.push(ThreadInfo { name: n.text.clone(), node: *node as u32 });
        nodes.insert(*node as u32);
    }
    let mut names = Names { kinds: HashMap::default() };
    let mut lids = HashMap::default();
    for d in &t.locs {
        if lids.contains_key(&d.name.text) {
            return err(d.name.pos, format!("location `{}` is declared twice", d.name.text));
        }
        names.claim(&d.name, Kind::Loc)?;
        lids.insert(d.name.text.clone(), world.locs.len());
        if let Some(n) = d.node {
            nodes.insert(n as u32);
        }
        let init = match (&d.init, d.size) {
            (Some(l), _) => lit_value(l),
            (None, Some(k)) => Value::Tuple(vec![Value::Int(0); k as usize]),
            (None, None) => Value::Int(0),
        };
        world.locs.push(LocInfo {
            name: d.name.text.clone(),
            home: d.node.map(|n| n as u32),
            init,
            size: d.size.map(|k| k as usize),
            implicit: false,
        });
    }
    world.nodes = nodes.into_iter().collect();
    let mut objs = HashMap::default();
    for (n, ts) in &t.barriers {
        names.claim(n, Kind::Barrier)?;
        for th in ts {
            if !tids.contains_key(&th.text) {
                let known = t.threads.iter().map(|(n, _)| n.text.as_str());
                return Err(Diagnostic::unknown(
                    th.pos,
                    &th.text,
                    format!("undeclared thread `{}` in barrier `{}`", th.text, n.text),
                    known,
                ));
            }
        }
        objs.insert(n.text.clone(), world.objs.len());
        let threads = ts.iter().map(|th| tids[&th.text]).collect();
        world.objs.push(ObjInfo { name: n.text.clone(), threads, writer: None, size: None });
    }
    for (n, w, rs, size) in &t.rings {
        names.claim(n, Kind::Ring)?;
        for th in std::iter::once(w).chain(rs) {
            if !tids.contains_key(&th.text) {
                let known = t.threads.iter().map(|(n, _)| n.text.as_str());
                return Err(Diagnostic::unknown(
                    th.pos,
                    &th.text,
                    format!("undeclared thread `{}` in ring `{}`", th.text, n.text),
                    known,
                ));
            }
        }
        objs.insert(n.text.clone(), world.objs.len());
        world.objs.push(ObjInfo {
            name: n.text.clone(),
            threads: rs.iter().map(|th| tids[&th.text]).collect(),
            writer: Some(tids[&w.text]),
            size: Some(size.unwrap_or(4) as usize),
        });
    }
    // bodies
    let mut bodies: Vec<Option<&Vec<Stmt>>> = vec![None; world.threads.len()];
    for (n, instrs) in &t.bodies {
        let Some(&tid) = tids.get(&n.text) else {
            return Err(Diagnostic::unknown(
                n.pos,
                &n.text,
                format!("body for undeclared thread `{}` (declare it with `thread {} @ N`)", n.text, n.text),
                t.threads.iter().map(|(n, _)| n.text.as_str()),
            ));
        };
        if bodies[tid].is_some() {
            return err(n.pos, format!("thread `{}` has two bodies", n.text));
        }
        bodies[tid] = Some(instrs);
    }
    for (i, b) in bodies.iter().enumerate() {
        if b.is_none() {
            let pos = t.threads[i].0.pos;
            return err(
                pos,
                format!(
                    "thread `{}` has no body (add `{}:`, possibly empty)",
                    world.threads[i].name, world.threads[i].name
                ),
            );
        }
    }
    let mut wids: HashMap<String, u32> = HashMap::default();
    let mut literals: BTreeSet<Value> = BTreeSet::new();
    literals.insert(Value::Int(0));
    for l in &world.locs {
        literals.insert(l.init.clone());
    }
    let mut threads = Vec::new();
    let mut reg_names = Vec::new();
    // whether some value written may be no literal of the program
    let mut computed = false;
    for (tid, body) in bodies.iter().enumerate() {
        let body = body.expect("checked above");
        let mut regs: Vec<String> = Vec::new();
        collect_registers(body, &mut regs);
        let reg_ids: HashMap<String, RegId> = regs.iter().enumerate().map(|(i, r)| (r.clone(), i)).collect();
        let mut host = ThreadHost {
            tid,
            world: &mut world,
            lids: &lids,
            names: &mut names,
            wids: &mut wids,
            objs: &objs,
            literals: &mut literals,
            libs: &libs,
            lib_names: &lib_names,
            regs: &reg_ids,
            computed: false,
        };
        let mut lw = Lowerer::new(true, regs.len());
        let prog = lw.thread_body(body, &mut host)?;
        computed |= host.computed;
        threads.push((prog, lw.nregs));
        reg_names.push(regs);
    }
    // expectations
    let mut expects = Vec::new();
    let mut shown = BTreeSet::new();
    for e in &t.expects {
        let c = lower_cond(&e.cond, &world, &tids, &lids, &reg_names)?;
        c.locs(&mut shown);
        expects.push(Expectation { allowed: e.allowed, cond: c, text: e.text.clone(), pos: e.pos });
    }
    // the libraries' own literals are constants of the program too
    literals.extend(libs.iter().flat_map(|l| l.constants()));
    let computes = libs.iter().any(|l| l.computes_values());
    let (domain, domain_cut) = if computed || computes || threads.iter().any(|(p, _)| sends_other_messages(p, &libs)) {
        let starts: Vec<Pos> = bodies_pos(t, &tids, world.threads.len());
        computed_domain(&world, &libs, &threads, &literals, &starts, limits)?
    } else {
        (domain_of(literals, world.locs.len()), None)
    };
    Ok(Lowered {
        name: t.name.clone(),
        world,
        libs,
        lib_names,
        threads,
        reg_names,
        expects,
        shown_locs: shown.into_iter().collect(),
        domain,
        domain_cut,
        loop_bound: limits.loop_bound,
    })
}

fn resolve(
    libs: &[Box<dyn Library>],
    names: &[String],
    lib: Option<&Name>,
    m: &Name,
) -> Result<(usize, usize), SemError> {
    if let Some(l) = lib {
        let Some(li) = names.iter().position(|n| *n == l.text) else {
            return Err(Diagnostic::unknown(
                l.pos,
                &l.text,
                format!("library `{}` is not listed in `libraries` ({})", l.text, names.join(", ")),
                names.iter().map(String::as_str),
            ));
        };
        return match libs[li].method_id(&m.text) {
            Some(mi) => Ok((li, mi)),
            None => {
                let known: Vec<&str> =
                    libs[li].methods().iter().map(|s| s.name).filter(|n| !n.starts_with('#')).collect();
                Err(Diagnostic::unknown(
                    m.pos,
                    &m.text,
                    format!("library `{}` has no method `{}` (its methods: {})", l.text, m.text, known.join(", ")),
                    known.iter().copied(),
                ))
            }
        };
    }
    let mut found = libs.iter().enumerate().filter_map(|(li, l)| l.method_id(&m.text).map(|mi| (li, mi)));
    match (found.next(), found.next()) {
        (Some(one), None) => Ok(one),
        (None, _) => {
            let all: BTreeSet<&str> =
                libs.iter().flat_map(|l| l.methods().iter().map(|s| s.name)).filter(|n| !n.starts_with('#')).collect();
            Err(Diagnostic::unknown(
                m.pos,
                &m.text,
                format!(
                    "unknown method `{}`: no library of {} has it (methods: {})",
                    m.text,
                    names.join(", "),
                    all.iter().copied().collect::<Vec<_>>().join(", ")
                ),
                all.iter().copied(),
            ))
        }
        (Some(first), Some(second)) => {
            let ls: Vec<&str> = [first, second].into_iter().chain(found).map(|(li, _)| names[li].as_str()).collect();
            err(
                m.pos,
                format!(
                    "ambiguous method `{}`: it belongs to {}; qualify it, e.g. `{}.{}`",
                    m.text,
                    ls.join(" and "),
                    ls[0],
                    m.text
                ),
            )
        }
    }
}

/// The registers of a thread body: every name bound by `let`, `var` or `=`, in
/// the order of their first binding.
fn collect_registers(ss: &[Stmt], out: &mut Vec<String>) {
    let add = |n: &Name, out: &mut Vec<String>| {
        if !out.contains(&n.text) {
            out.push(n.text.clone());
        }
    };
    for s in ss {
        match s {
            Stmt::Let { name, rhs, .. } | Stmt::Assign { name, rhs } => {
                add(name, out);
                if let Rhs::If(s) = rhs {
                    collect_registers(std::slice::from_ref(&**s), out);
                }
            }
            Stmt::If { then, els, .. } => {
                collect_registers(&then.stmts, out);
                if let Some(e) = els {
                    collect_registers(&e.stmts, out);
                }
            }
            Stmt::Loop(b, _) | Stmt::For { body: b, .. } => collect_registers(&b.stmts, out),
            Stmt::Call(_) | Stmt::Break(..) | Stmt::Value(_) => {}
        }
    }
}

/// Where each thread's (first) body starts, for messages about a whole thread.
fn bodies_pos(t: &Litmus, tids: &HashMap<String, usize>, n: usize) -> Vec<Pos> {
    let mut out = vec![Pos { line: 1, col: 1 }; n];
    for (name, _) in t.bodies.iter().rev() {
        if let Some(&i) = tids.get(&name.text) {
            out[i] = name.pos;
        }
    }
    out
}

mod domain;
mod thread;

use domain::*;
pub use domain::{DomainLimits, MAX_ROUNDS, MAX_VALUES, MAX_WORK};
use thread::ThreadHost;

fn lower_cond(
    c: &Cond,
    world: &World,
    tids: &HashMap<String, usize>,
    lids: &HashMap<String, usize>,
    regs: &[Vec<String>],
) -> Result<RCond, SemError> {
    Ok(match c {
        Cond::True => RCond::True,
        Cond::Not(c) => RCond::Not(Box::new(lower_cond(c, world, tids, lids, regs)?)),
        Cond::And(a, b) => RCond::And(
            Box::new(lower_cond(a, world, tids, lids, regs)?),
            Box::new(lower_cond(b, world, tids, lids, regs)?),
        ),
        Cond::Or(a, b) => RCond::Or(
            Box::new(lower_cond(a, world, tids, lids, regs)?),
            Box::new(lower_cond(b, world, tids, lids, regs)?),
        ),
        Cond::Reg { thread, reg, val } => {
            let Some(&t) = tids.get(&thread.text) else {
                return Err(Diagnostic::unknown(
                    thread.pos,
                    &thread.text,
                    format!("undeclared thread `{}`", thread.text),
                    world.threads.iter().map(|th| th.name.as_str()),
                ));
            };
            let Some(r) = regs[t].iter().position(|r| *r == reg.text) else {
                return Err(Diagnostic::unknown(
                    reg.pos,
                    &reg.text,
                    format!("thread `{}` binds no register `{}`", thread.text, reg.text),
                    regs[t].iter().map(String::as_str),
                ));
            };
            RCond::Reg(t, r, lit_value(val))
        }
        Cond::Loc { loc, node, val } => {
            let Some(&l) = lids.get(&loc.text) else {
                return Err(Diagnostic::unknown(
                    loc.pos,
                    &loc.text,
                    format!("undeclared location `{}`", loc.text),
                    world.locs.iter().filter(|l| !l.implicit).map(|l| l.name.as_str()),
                ));
            };
            match (world.locs[l].home, node) {
                (Some(_), None) => RCond::Loc(l, None, lit_value(val)),
                (Some(h), Some((_, p))) => {
                    return err(*p, format!("`{}` lives on node {h} only; write `{} = V`", loc.text, loc.text))
                }
                (None, None) => {
                    return err(
                        loc.pos,
                        format!(
                            "`{}` is replicated: name a copy, e.g. `{}@{} = V`",
                            loc.text,
                            loc.text,
                            world.nodes.first().copied().unwrap_or(1)
                        ),
                    )
                }
                (None, Some((n, p))) => {
                    if !world.nodes.contains(&(*n as u32)) {
                        return err(*p, format!("node {n} is not a node of this test"));
                    }
                    RCond::Loc(l, Some(*n as u32), lit_value(val))
                }
            }
        }
    })
}

/// Builds the engine problem of a lowered test.
pub fn problem<'a>(l: &'a Lowered, to: &'a mowgli_core::StampTable) -> Problem<'a> {
    Problem {
        world: std::borrow::Cow::Borrowed(&l.world),
        libs: l.libs.iter().map(|b| b.as_ref()).collect(),
        threads: std::borrow::Cow::Borrowed(&l.threads),
        to,
        loop_bound: l.loop_bound,
        domain: l.domain.clone(),
        prune: true,
        all_executions: false,
        inline: None,
        own_cells: Default::default(),
        regs_only: false,
        backend: Default::default(),
        count_naive: true,
        narrow_above: crate::engines::explicit::NARROW_ABOVE,
        // a test read from a file: its search is bounded (a limit, see `EngineError::Limit`)
        max_work: MAX_WORK,
        deadline: None,
        unfolded: None,
    }
}

/// The shown part of an outcome: every register, then the locations named in conditions.
pub fn show_outcome(l: &Lowered, o: &Outcome) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for (t, regs) in l.reg_names.iter().enumerate() {
        for (r, name) in regs.iter().enumerate() {
            let v = o.regs[t].get(r).cloned().flatten().map(|v| l.world.show(&v)).unwrap_or_else(|| "?".into());
            m.insert(format!("{}:{}", l.world.threads[t].name, name), v);
        }
    }
    for &(loc, node) in &l.shown_locs {
        let key = match node {
            Some(n) => format!("{}@{}", l.world.locs[loc].name, n),
            None => l.world.locs[loc].name.clone(),
        };
        let v = o.finals.get(&(loc, node)).map(|v| l.world.show(v)).unwrap_or_else(|| "?".into());
        m.insert(key, v);
    }
    m
}
