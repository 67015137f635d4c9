//! Semantic checks of a parsed litmus test and its translation into an engine
//! [`Problem`]: names resolved, methods resolved by library, arguments checked.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use mowgli_core::program::{unfold_with, CallRecord, Expr, Hooks, Op, Prog, RegId};
use mowgli_core::{Library, LocInfo, ObjInfo, Param, StampOrder, ThreadInfo, Value, ValueDomain, World};

use super::syntax::{Cond, Lit, Litmus, Name, Pos};
use crate::engines::explicit::{Outcome, Problem};
use crate::lang::grammar::{CallEx, Ex, Rhs, Stmt};
use crate::lang::stmts::{build_library, lerr, unknown, Host, LErr, Lowerer, L};
use mowgli_diag::Diagnostic;

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
}

fn lit_value(l: &Lit) -> Value {
    match l {
        Lit::Int(i) => Value::Int(*i),
        Lit::Bool(b) => Value::Bool(*b),
        Lit::Bot => Value::Bot,
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
            _ => {
                self.kinds.insert(n.text.clone(), k);
                Ok(())
            }
        }
    }
}

/// Checks `t` and builds the program, with libraries built under `order`.
pub fn lower(t: &Litmus, order: &StampOrder) -> Result<Lowered, SemError> {
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
        let l = build_library(n, order)?;
        lib_names.push(n.text.clone());
        libs.push(l);
    }
    let _ = lpos;
    // threads
    let mut world = World::default();
    let mut tids = HashMap::new();
    let mut nodes = BTreeSet::new();
    for (n, node) in &t.threads {
        if tids.contains_key(&n.text) {
            return err(n.pos, format!("thread `{}` is declared twice", n.text));
        }
        tids.insert(n.text.clone(), world.threads.len());
        world.threads.push(ThreadInfo { name: n.text.clone(), node: *node as u32 });
        nodes.insert(*node as u32);
    }
    let mut names = Names { kinds: HashMap::new() };
    let mut lids = HashMap::new();
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
    let mut objs = HashMap::new();
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
    let mut wids: HashMap<String, u32> = HashMap::new();
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
    let domain = if computed {
        let starts: Vec<Pos> = bodies_pos(t, &tids, world.threads.len());
        computed_domain(&world, &libs, &threads, &literals, &starts)?
    } else {
        domain_of(literals, world.locs.len())
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
    let found: Vec<(usize, usize)> =
        libs.iter().enumerate().filter_map(|(li, l)| l.method_id(&m.text).map(|mi| (li, mi))).collect();
    match found.len() {
        1 => Ok(found[0]),
        0 => {
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
        _ => {
            let ls: Vec<&str> = found.iter().map(|(li, _)| names[*li].as_str()).collect();
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

fn domain_of(values: BTreeSet<Value>, nlocs: usize) -> ValueDomain {
    let all: Vec<Value> = values.into_iter().filter(|v| !matches!(v, Value::Unit)).collect();
    let messages = all.iter().filter(|v| matches!(v, Value::Tuple(_))).cloned().collect();
    ValueDomain { per_loc: vec![all; nlocs], messages }
}

/// Unfolding hooks that record the calls a thread makes.
struct DomainHooks<'a> {
    world: &'a World,
    libs: &'a [Box<dyn Library>],
    thread: usize,
    dom: &'a ValueDomain,
    constants: &'a BTreeSet<Value>,
    calls: Vec<CallRecord>,
    /// Positions (in the thread's calls) of calls writing a value that is no constant.
    dependent: BTreeSet<usize>,
}

impl Hooks for DomainHooks<'_> {
    fn returns(&mut self, lib: usize, method: usize, args: &[Value], history: &[CallRecord]) -> Vec<Value> {
        self.libs[lib].returns_after(self.world, self.thread, lib, history, method, args, self.dom)
    }
    fn check(&mut self, lib: usize, method: usize, args: &[Value]) -> Result<(), String> {
        // the engine's checks (`engine::EngineHooks::check`): argument kinds, then the library's
        let l = &self.libs[lib];
        for (a, k) in args.iter().zip(&l.methods()[method].params) {
            let ok = match k {
                Param::Loc | Param::Src => matches!(a, Value::Loc(x) if *x < self.world.locs.len()),
                Param::Wid => matches!(a, Value::Wid(_)),
                Param::Node => matches!(a, Value::Node(n) if self.world.nodes.contains(n)),
                Param::Nodes => matches!(a, Value::Nodes(_)),
                Param::Obj => matches!(a, Value::Obj(_)),
                Param::Val => true,
            };
            if !ok {
                return Err(format!("argument {} is not a {k:?}", self.world.show(a)));
            }
        }
        l.check_call(self.world, self.thread, method, args)
    }
    fn observe(&mut self, position: usize, call: &CallRecord) {
        let sig = &self.libs[call.lib].methods()[call.method];
        if call.args.iter().zip(&sig.params).any(|(a, k)| *k == Param::Val && !self.constants.contains(a)) {
            self.dependent.insert(position);
        }
        self.calls.push(call.clone());
    }
}

/// Most rounds of [`computed_domain`], and most values a location may hold.
const MAX_ROUNDS: usize = 32;
const MAX_VALUES: usize = 64;

fn domain_of_sets(dom: &[BTreeSet<Value>], loose: &BTreeSet<Value>) -> ValueDomain {
    let per_loc: Vec<Vec<Value>> =
        dom.iter().map(|d| d.iter().filter(|v| !matches!(v, Value::Unit)).cloned().collect()).collect();
    let messages: BTreeSet<Value> =
        dom.iter().flatten().chain(loose).filter(|v| matches!(v, Value::Tuple(_))).cloned().collect();
    ValueDomain { per_loc, messages: messages.into_iter().collect() }
}

/// The values locations may hold when a program computes values (`Write(x, a +
/// 1)`): per location, the literals of the program and every value a call naming
/// the location writes (a call naming two locations, a put or a get, may copy
/// either's values to the other) when reads return values of the domain so far,
/// to a fixpoint; values of calls naming no location (a ring's messages) are
/// messages. Every value read is the initial value of a location or a value
/// written, and a written value that is no literal is computed from values read
/// before it in its execution: its derivation passes through writes of such values
/// only, so after as many rounds as an execution has such writes, every value
/// written is in the domain (as in `mowgli refine`'s value domain).
fn computed_domain(
    world: &World,
    libs: &[Box<dyn Library>],
    threads: &[(Prog, usize)],
    literals: &BTreeSet<Value>,
    starts: &[Pos],
) -> Result<ValueDomain, SemError> {
    let nlocs = world.locs.len();
    let mut dom: Vec<BTreeSet<Value>> = vec![literals.clone(); nlocs];
    let mut loose: BTreeSet<Value> = BTreeSet::new();
    let first = starts.first().copied().unwrap_or(Pos { line: 1, col: 1 });
    for round in 0..MAX_ROUNDS {
        let vd = domain_of_sets(&dom, &loose);
        let before = (dom.clone(), loose.clone());
        let mut max_writes = 0;
        for (t, (prog, nregs)) in threads.iter().enumerate() {
            let mut h = DomainHooks {
                world,
                libs,
                thread: t,
                dom: &vd,
                constants: literals,
                calls: Vec::new(),
                dependent: BTreeSet::new(),
            };
            unfold_with(prog, t, *nregs, LOOP_BOUND, &mut h)
                .map_err(|e| Diagnostic::new(starts[t], format!("thread `{}`: {e}", world.threads[t].name)))?;
            max_writes += h.dependent.len();
            for c in &h.calls {
                let sig = &libs[c.lib].methods()[c.method];
                let mut locs = Vec::new();
                let mut vals: BTreeSet<Value> = BTreeSet::new();
                for (a, k) in c.args.iter().zip(&sig.params) {
                    match (k, a) {
                        (Param::Loc | Param::Src, Value::Loc(l)) => locs.push(*l),
                        (Param::Val, v) => {
                            vals.insert(v.clone());
                        }
                        _ => {}
                    }
                }
                if locs.is_empty() {
                    loose.extend(vals);
                    continue;
                }
                if locs.len() > 1 {
                    for &l in &locs {
                        vals.extend(dom[l].iter().cloned());
                    }
                }
                for &l in &locs {
                    dom[l].extend(vals.iter().cloned());
                }
            }
        }
        if (dom.clone(), loose.clone()) == before || round > max_writes {
            return Ok(domain_of_sets(&dom, &loose));
        }
        if let Some((l, d)) = dom.iter().enumerate().find(|(_, d)| d.len() > MAX_VALUES) {
            return err(
                first,
                format!(
                    "location `{}` may hold more than {MAX_VALUES} values ({} after {} rounds of the values \
                     the program computes): make the loops shorter or the arithmetic bounded",
                    world.locs[l].name,
                    d.len(),
                    round + 1
                ),
            );
        }
    }
    err(first, format!("the values the program computes do not settle within {MAX_ROUNDS} rounds"))
}

/// An integer literal (`-1` is one).
fn int_literal(e: &Ex) -> Option<i64> {
    match e {
        Ex::Int(v, _) => Some(*v),
        Ex::Neg(b, _) => match &**b {
            Ex::Int(v, _) => v.checked_neg(),
            _ => None,
        },
        _ => None,
    }
}

/// The context of one thread body's lowering: the test's names.
struct ThreadHost<'a> {
    tid: usize,
    world: &'a mut World,
    lids: &'a HashMap<String, usize>,
    names: &'a mut Names,
    wids: &'a mut HashMap<String, u32>,
    objs: &'a HashMap<String, usize>,
    literals: &'a mut BTreeSet<Value>,
    libs: &'a [Box<dyn Library>],
    lib_names: &'a [String],
    /// The thread's registers.
    regs: &'a HashMap<String, RegId>,
    /// Some value written may be no literal (a register's, or an expression's).
    computed: bool,
}

impl ThreadHost<'_> {
    /// A value argument. The base format's forms (literals, registers, tuples of
    /// them) keep their lowering; other expressions compute a value.
    fn value(&mut self, lw: &mut Lowerer, a: &Ex) -> L<Expr> {
        if let Some(v) = int_literal(a) {
            self.literals.insert(Value::Int(v));
            return Ok(Expr::Val(Value::Int(v)));
        }
        match a {
            Ex::Bool(b, _) => {
                self.literals.insert(Value::Bool(*b));
                Ok(Expr::Val(Value::Bool(*b)))
            }
            // the base format has no `bot`: there it is a register's name
            Ex::Bot(p) if self.regs.contains_key("bot") => {
                self.value(lw, &Ex::Var(Name { text: "bot".into(), pos: *p }))
            }
            Ex::Bot(_) => {
                self.literals.insert(Value::Bot);
                Ok(Expr::Val(Value::Bot))
            }
            Ex::Tuple(items, _) => {
                let es = items.iter().map(|i| self.value(lw, i)).collect::<L<Vec<_>>>()?;
                let consts: Option<Vec<Value>> = es
                    .iter()
                    .map(|e| match e {
                        Expr::Val(v) => Some(v.clone()),
                        _ => None,
                    })
                    .collect();
                match consts {
                    Some(vs) => {
                        self.literals.insert(Value::Tuple(vs));
                    }
                    None => self.computed = true,
                }
                Ok(Expr::Tuple(es))
            }
            Ex::Var(_) => {
                // a register may hold a value no location holds (an identifier a put
                // returned, a ring's `true`, a computed value): the fixpoint finds it
                self.computed = true;
                lw.expr(a, self)
            }
            e => {
                self.computed = true;
                lw.expr(e, self)
            }
        }
    }

    /// A node computed by `e` (an integer or a node): `[⊥, 1, 2, …][e]`, since the
    /// engine wants nodes, and integers and nodes are different values.
    fn to_node(&self, e: Expr) -> Expr {
        let max = self.world.nodes.iter().copied().max().unwrap_or(0);
        if max > 4096 {
            return e;
        }
        let table =
            (0..=max).map(|k| if self.world.nodes.contains(&k) { Value::Node(k) } else { Value::Bot }).collect();
        Expr::Op(Op::Index, vec![Expr::Val(Value::Tuple(table)), e])
    }

    fn kind_of(&self, n: &str) -> Option<Kind> {
        self.names.kinds.get(n).copied()
    }

    fn location(&self, n: &Name, what: &str) -> L<Expr> {
        match self.lids.get(&n.text) {
            Some(&l) => Ok(Expr::Val(Value::Loc(l))),
            None => match self.kind_of(&n.text) {
                Some(k) => lerr(n.pos, format!("expected {what}, but `{}` is {}", n.text, k.article())),
                None => unknown(
                    n,
                    format!("undeclared location `{}` (declare it with `loc {} @ N`)", n.text, n.text),
                    self.lids.keys().map(String::as_str),
                ),
            },
        }
    }

    fn arg(&mut self, lw: &mut Lowerer, a: &Ex, p: Param) -> L<Expr> {
        let what = match p {
            Param::Loc => "a location",
            Param::Src => "a local location or an integer",
            Param::Val => "a value or a register",
            Param::Wid => "a work identifier",
            Param::Node => "a node",
            Param::Nodes => "a set of nodes `{1, 2}`",
            Param::Obj => "a barrier or ring",
        };
        let fresh = matches!(a, Ex::Var(n) if n.text == "_");
        match (p, a) {
            (Param::Wid, Ex::Var(n)) if fresh => {
                let _ = n;
                let id = self.world.wids.len() as u32;
                self.world.wids.push(format!("_{id}"));
                // fresh names cannot collide with user names (they start with `_` and a digit)
                self.wids.insert(format!("_{id}"), id);
                Ok(Expr::Val(Value::Wid(id)))
            }
            (_, _) if fresh => lerr(a.pos(), format!("expected {what}")),
            (Param::Loc | Param::Src, Ex::Var(n)) => self.location(n, what),
            (Param::Src, a) if int_literal(a).is_some() => {
                let v = int_literal(a).expect("checked");
                let node = self.world.threads[self.tid].node;
                let l = self.world.locs.len();
                self.world.locs.push(LocInfo {
                    name: format!("{v}"),
                    home: Some(node),
                    init: Value::Int(v),
                    size: None,
                    implicit: true,
                });
                self.literals.insert(Value::Int(v));
                Ok(Expr::Val(Value::Loc(l)))
            }
            (Param::Val, a) => self.value(lw, a),
            (Param::Wid, Ex::Var(n)) => {
                self.names.claim(n, Kind::Wid)?;
                let next = self.wids.len() as u32;
                let id = *self.wids.entry(n.text.clone()).or_insert(next);
                if id == next {
                    self.world.wids.push(n.text.clone());
                }
                Ok(Expr::Val(Value::Wid(id)))
            }
            (Param::Node, a) if int_literal(a).is_some() => {
                let v = int_literal(a).expect("checked");
                if v < 1 || v > u32::MAX as i64 || !self.world.nodes.contains(&(v as u32)) {
                    return lerr(
                        a.start(),
                        format!("node {v} is not a node of this test (nodes: {:?})", self.world.nodes),
                    );
                }
                Ok(Expr::Val(Value::Node(v as u32)))
            }
            (Param::Node, a) => {
                let e = lw.expr(a, self)?;
                Ok(self.to_node(e))
            }
            (Param::Nodes, Ex::Set(items, pos))
                if items.iter().all(|i| int_literal(i).is_some() || self.names_no_value(lw, i)) =>
            {
                let mut v = Vec::new();
                for i in items {
                    match int_literal(i) {
                        Some(n) if (1..=u32::MAX as i64).contains(&n) => v.push(n as u32),
                        Some(n) => {
                            return lerr(i.start(), format!("expected a node (a positive integer), found `{n}`"))
                        }
                        None => {
                            let shown = match i {
                                Ex::Var(n) => format!("`{}`", n.text),
                                _ => "an expression".into(),
                            };
                            return lerr(i.start(), format!("expected a node (a positive integer), found {shown}"));
                        }
                    }
                }
                v.sort();
                v.dedup();
                if let Some(bad) = v.iter().find(|n| !self.world.nodes.contains(n)) {
                    return lerr(
                        *pos,
                        format!("node {bad} is not a node of this test (nodes: {:?})", self.world.nodes),
                    );
                }
                Ok(Expr::Val(Value::Nodes(v)))
            }
            (Param::Nodes, a) => {
                let set = lw.expr(a, self)?;
                let var = lw.hidden_reg();
                Ok(Expr::Comp { body: Box::new(self.to_node(Expr::Reg(var))), var, set: Box::new(set) })
            }
            (Param::Obj, Ex::Var(n)) => match self.objs.get(&n.text) {
                Some(&o) => Ok(Expr::Val(Value::Obj(o as u32))),
                None => {
                    unknown(n, format!("undeclared barrier or ring `{}`", n.text), self.objs.keys().map(String::as_str))
                }
            },
            (_, a) => lerr(a.start(), format!("expected {what}")),
        }
    }

    /// Whether `e` is a name that denotes no value here (no loop variable, no
    /// register bound before): in a node set `{…}` it is reported as the base
    /// format does.
    fn names_no_value(&self, lw: &Lowerer, e: &Ex) -> bool {
        match e {
            Ex::Var(n) => {
                !lw.is_local(&n.text)
                    && !self.regs.get(&n.text).is_some_and(|&r| lw.is_defined(r))
                    && !matches!(n.text.as_str(), "node" | "nodes")
            }
            _ => false,
        }
    }

    fn method(&self, c: &CallEx) -> L<(usize, usize)> {
        resolve(self.libs, self.lib_names, c.lib.as_ref(), &c.method)
    }
}

impl Host for ThreadHost<'_> {
    fn name(&mut self, lw: &mut Lowerer, n: &Name) -> L<Expr> {
        if let Some(&r) = self.regs.get(&n.text) {
            if lw.is_defined(r) {
                lw.note_read(r);
                return Ok(Expr::Reg(r));
            }
        }
        match self.kind_of(&n.text) {
            None if n.text == "node" => Ok(Expr::Val(Value::Node(self.world.threads[self.tid].node))),
            None if n.text == "nodes" => Ok(Expr::Val(Value::Nodes(self.world.nodes.clone()))),
            Some(Kind::Reg) if self.regs.contains_key(&n.text) => {
                lerr(n.pos, format!("register `{}` is not bound earlier in this thread", n.text))
            }
            Some(Kind::Reg) | None => {
                // no register of this thread: a close name (a register, a loop
                // variable, a location in a value position) may be meant
                let vars = lw.visible();
                let known = self
                    .regs
                    .keys()
                    .map(String::as_str)
                    .chain(vars.iter().map(String::as_str))
                    .chain(self.lids.keys().map(String::as_str));
                unknown(n, format!("register `{}` is not bound earlier in this thread", n.text), known)
            }
            Some(k) => lerr(n.pos, format!("expected a value or a register, but `{}` is {}", n.text, k.article())),
        }
    }

    fn function(&mut self, n: &Name, _args: Vec<Expr>) -> L<Expr> {
        unknown(
            n,
            format!("unknown function `{}` (functions: min, max, len, hash, range)", n.text),
            crate::lang::grammar::OPERATOR_FUNCTIONS,
        )
    }

    fn call(&mut self, lw: &mut Lowerer, c: &CallEx) -> L<Prog> {
        let (li, mi) = self.method(c)?;
        let sig = &self.libs[li].methods()[mi];
        if c.args.len() != sig.params.len() {
            return lerr(
                c.method.pos,
                format!(
                    "`{}` takes {} argument{}, found {}",
                    sig.name,
                    sig.params.len(),
                    if sig.params.len() == 1 { "" } else { "s" },
                    c.args.len()
                ),
            );
        }
        lw.mark_call(self.libs[li].read_only(mi));
        let mut args = Vec::new();
        let mut static_args = Vec::new();
        for (a, p) in c.args.iter().zip(&sig.params) {
            let e = self.arg(lw, a, *p)?;
            static_args.push(match &e {
                Expr::Val(v) => v.clone(),
                _ => Value::Unit,
            });
            args.push(e);
        }
        self.libs[li].check_call(self.world, self.tid, mi, &static_args).map_err(|m| {
            LErr::new(c.method.pos, format!("`{}`: {m}", sig.name)).with_span(c.method.text.chars().count())
        })?;
        Ok(Prog::Call { lib: li, method: mi, args })
    }

    fn bind(&mut self, _lw: &mut Lowerer, name: &Name, rhs: &Rhs) -> L<RegId> {
        match rhs {
            Rhs::Call(c) => {
                let (li, mi) = self.method(c)?;
                let sig = &self.libs[li].methods()[mi];
                if !sig.returns {
                    return lerr(name.pos, format!("`{}` returns no value; drop `{} =`", sig.name, name.text));
                }
            }
            _ => self.computed = true,
        }
        self.names.claim(name, Kind::Reg)?;
        Ok(self.regs[&name.text])
    }

    fn local(&mut self, n: &Name) -> L<()> {
        if self.regs.contains_key(&n.text) {
            return lerr(
                n.pos,
                format!("`{}` is a register of this thread; a loop variable needs another name", n.text),
            );
        }
        self.names.claim(n, Kind::Reg)
    }
}

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
        world: l.world.clone(),
        libs: l.libs.iter().map(|b| b.as_ref()).collect(),
        threads: l.threads.clone(),
        to,
        loop_bound: LOOP_BOUND,
        domain: l.domain.clone(),
        prune: true,
        all_executions: false,
        inline: None,
        own_cells: Default::default(),
        regs_only: false,
        backend: Default::default(),
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
