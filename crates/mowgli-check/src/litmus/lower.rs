//! Semantic checks of a parsed litmus test and its translation into an engine
//! [`Problem`]: names resolved, methods resolved by library, arguments checked.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use mowgli_core::program::{Expr, Prog};
use mowgli_core::{Library, LocInfo, ObjInfo, Param, StampOrder, ThreadInfo, Value, ValueDomain, World};
use mowgli_libs::registry;

use super::syntax::{Arg, Cond, Lit, Litmus, Name, Pos};
use crate::engine::{Outcome, Problem};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SemError {
    pub pos: Pos,
    pub msg: String,
}

fn err<T>(pos: Pos, msg: impl Into<String>) -> Result<T, SemError> {
    Err(SemError { pos, msg: msg.into() })
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
        let l = registry::library(&n.text, order).map_err(|e| SemError { pos: n.pos, msg: e.to_string() })?;
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
                return err(th.pos, format!("undeclared thread `{}` in barrier `{}`", th.text, n.text));
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
                return err(th.pos, format!("undeclared thread `{}` in ring `{}`", th.text, n.text));
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
    let mut bodies: Vec<Option<&Vec<super::syntax::Instr>>> = vec![None; world.threads.len()];
    for (n, instrs) in &t.bodies {
        let Some(&tid) = tids.get(&n.text) else {
            return err(
                n.pos,
                format!("body for undeclared thread `{}` (declare it with `thread {} @ N`)", n.text, n.text),
            );
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
    for (tid, body) in bodies.iter().enumerate() {
        let body = body.expect("checked above");
        let mut regs: Vec<String> = Vec::new();
        let mut steps = Vec::new();
        for ins in body.iter() {
            // resolve the method
            let (li, mi) = resolve(&libs, &lib_names, ins.lib.as_ref(), &ins.method)?;
            let sig = &libs[li].methods()[mi];
            if ins.args.len() != sig.params.len() {
                return err(
                    ins.method.pos,
                    format!(
                        "`{}` takes {} argument{}, found {}",
                        sig.name,
                        sig.params.len(),
                        if sig.params.len() == 1 { "" } else { "s" },
                        ins.args.len()
                    ),
                );
            }
            let mut args = Vec::new();
            let mut static_args = Vec::new();
            for (a, p) in ins.args.iter().zip(&sig.params) {
                let e = lower_arg(a, *p, tid, &mut world, &lids, &regs, &mut names, &mut wids, &objs, &mut literals)?;
                static_args.push(match &e {
                    Expr::Val(v) => v.clone(),
                    _ => Value::Unit,
                });
                args.push(e);
            }
            libs[li]
                .check_call(&world, tid, mi, &static_args)
                .map_err(|m| SemError { pos: ins.method.pos, msg: format!("`{}`: {m}", sig.name) })?;
            let bind = match &ins.dest {
                None => None,
                Some(d) => {
                    if !sig.returns {
                        return err(d.pos, format!("`{}` returns no value; drop `{} =`", sig.name, d.text));
                    }
                    names.claim(d, Kind::Reg)?;
                    let r = match regs.iter().position(|r| *r == d.text) {
                        Some(r) => r,
                        None => {
                            regs.push(d.text.clone());
                            regs.len() - 1
                        }
                    };
                    Some(r)
                }
            };
            steps.push((bind, Prog::Call { lib: li, method: mi, args }));
        }
        threads.push((Prog::seq(steps), regs.len()));
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
    let all: Vec<Value> = literals.into_iter().filter(|v| !matches!(v, Value::Unit)).collect();
    let messages = all.iter().filter(|v| matches!(v, Value::Tuple(_))).cloned().collect();
    let domain = ValueDomain { per_loc: vec![all; world.locs.len()], messages };
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
            return err(l.pos, format!("library `{}` is not listed in `libraries` ({})", l.text, names.join(", ")));
        };
        return match libs[li].method_id(&m.text) {
            Some(mi) => Ok((li, mi)),
            None => err(
                m.pos,
                format!(
                    "library `{}` has no method `{}` (its methods: {})",
                    l.text,
                    m.text,
                    libs[li]
                        .methods()
                        .iter()
                        .map(|s| s.name)
                        .filter(|n| !n.starts_with('#'))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        };
    }
    let found: Vec<(usize, usize)> =
        libs.iter().enumerate().filter_map(|(li, l)| l.method_id(&m.text).map(|mi| (li, mi))).collect();
    match found.len() {
        1 => Ok(found[0]),
        0 => {
            let all: BTreeSet<&str> =
                libs.iter().flat_map(|l| l.methods().iter().map(|s| s.name)).filter(|n| !n.starts_with('#')).collect();
            err(
                m.pos,
                format!(
                    "unknown method `{}`: no library of {} has it (methods: {})",
                    m.text,
                    names.join(", "),
                    all.into_iter().collect::<Vec<_>>().join(", ")
                ),
            )
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

#[allow(clippy::too_many_arguments)]
fn lower_arg(
    a: &Arg,
    p: Param,
    tid: usize,
    world: &mut World,
    lids: &HashMap<String, usize>,
    regs: &[String],
    names: &mut Names,
    wids: &mut HashMap<String, u32>,
    objs: &HashMap<String, usize>,
    literals: &mut BTreeSet<Value>,
) -> Result<Expr, SemError> {
    let what = match p {
        Param::Loc => "a location",
        Param::Src => "a local location or an integer",
        Param::Val => "a value or a register",
        Param::Wid => "a work identifier",
        Param::Node => "a node",
        Param::Nodes => "a set of nodes `{1, 2}`",
        Param::Obj => "a barrier or ring",
    };
    let kind_of = |n: &str| names.kinds.get(n).copied();
    match (p, a) {
        (Param::Loc | Param::Src, Arg::Name(n)) => match lids.get(&n.text) {
            Some(&l) => Ok(Expr::Val(Value::Loc(l))),
            None => match kind_of(&n.text) {
                Some(k) => err(n.pos, format!("expected {what}, but `{}` is {}", n.text, k.article())),
                None => err(n.pos, format!("undeclared location `{}` (declare it with `loc {} @ N`)", n.text, n.text)),
            },
        },
        (Param::Src, Arg::Int(v, _)) => {
            let node = world.threads[tid].node;
            let l = world.locs.len();
            world.locs.push(LocInfo {
                name: format!("{v}"),
                home: Some(node),
                init: Value::Int(*v),
                size: None,
                implicit: true,
            });
            literals.insert(Value::Int(*v));
            Ok(Expr::Val(Value::Loc(l)))
        }
        (Param::Val, Arg::Int(v, _)) => {
            literals.insert(Value::Int(*v));
            Ok(Expr::Val(Value::Int(*v)))
        }
        (Param::Val, Arg::Bool(b, _)) => {
            literals.insert(Value::Bool(*b));
            Ok(Expr::Val(Value::Bool(*b)))
        }
        (Param::Val, Arg::Tuple(items, _)) => {
            let es = items
                .iter()
                .map(|i| lower_arg(i, Param::Val, tid, world, lids, regs, names, wids, objs, literals))
                .collect::<Result<Vec<_>, _>>()?;
            let consts: Option<Vec<Value>> = es
                .iter()
                .map(|e| match e {
                    Expr::Val(v) => Some(v.clone()),
                    _ => None,
                })
                .collect();
            if let Some(vs) = consts {
                literals.insert(Value::Tuple(vs));
            }
            Ok(Expr::Tuple(es))
        }
        (Param::Val, Arg::Name(n)) => match regs.iter().position(|r| *r == n.text) {
            Some(r) => Ok(Expr::Reg(r)),
            None => match kind_of(&n.text) {
                Some(Kind::Reg) | None => {
                    err(n.pos, format!("register `{}` is not bound earlier in this thread", n.text))
                }
                Some(k) => err(n.pos, format!("expected {what}, but `{}` is {}", n.text, k.article())),
            },
        },
        (Param::Wid, Arg::Name(n)) => {
            names.claim(n, Kind::Wid)?;
            let next = wids.len() as u32;
            let id = *wids.entry(n.text.clone()).or_insert(next);
            if id == next {
                world.wids.push(n.text.clone());
            }
            Ok(Expr::Val(Value::Wid(id)))
        }
        (Param::Wid, Arg::Fresh(_)) => {
            let id = world.wids.len() as u32;
            world.wids.push(format!("_{id}"));
            // fresh names cannot collide with user names (they start with `_` and a digit)
            wids.insert(format!("_{id}"), id);
            Ok(Expr::Val(Value::Wid(id)))
        }
        (Param::Node, Arg::Int(v, pos)) => {
            if *v < 1 || !world.nodes.contains(&(*v as u32)) {
                return err(*pos, format!("node {v} is not a node of this test (nodes: {:?})", world.nodes));
            }
            Ok(Expr::Val(Value::Node(*v as u32)))
        }
        (Param::Nodes, Arg::Nodes(ns, pos)) => {
            let mut v: Vec<u32> = ns.iter().map(|n| *n as u32).collect();
            v.sort();
            v.dedup();
            if let Some(bad) = v.iter().find(|n| !world.nodes.contains(n)) {
                return err(*pos, format!("node {bad} is not a node of this test (nodes: {:?})", world.nodes));
            }
            Ok(Expr::Val(Value::Nodes(v)))
        }
        (Param::Obj, Arg::Name(n)) => match objs.get(&n.text) {
            Some(&o) => Ok(Expr::Val(Value::Obj(o as u32))),
            None => err(n.pos, format!("undeclared barrier or ring `{}`", n.text)),
        },
        (_, a) => err(a.pos(), format!("expected {what}")),
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
                return err(thread.pos, format!("undeclared thread `{}`", thread.text));
            };
            let Some(r) = regs[t].iter().position(|r| *r == reg.text) else {
                return err(reg.pos, format!("thread `{}` binds no register `{}`", thread.text, reg.text));
            };
            RCond::Reg(t, r, lit_value(val))
        }
        Cond::Loc { loc, node, val } => {
            let Some(&l) = lids.get(&loc.text) else {
                return err(loc.pos, format!("undeclared location `{}`", loc.text));
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
        loop_bound: 8,
        domain: l.domain.clone(),
        prune: true,
        all_executions: false,
        inline: None,
        own_cells: Default::default(),
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
