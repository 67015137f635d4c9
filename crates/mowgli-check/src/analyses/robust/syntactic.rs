//! The syntactic conditions: LDRF (Def. 7), fenced (Def. 8 / 13), tree-fenced
//! (Def. 9 / 14), each failing pair named with the fence or poll Fig. 5 prescribes.

// relations over event indices: index loops read best here
#![allow(clippy::needless_range_loop)]

use std::collections::{BTreeMap, BTreeSet};

use mowgli_core::program::{unfold_with, CallRecord, Hooks};
use mowgli_core::{Event, StampTable, Value};
use mowgli_libs::rdma::{self, Kinds};
use serde::Serialize;

use crate::engines::explicit::{self, Problem};
use crate::lang::ast::{Rhs, Stmt};

use super::*;

/// A pair of instructions (or one instruction) that breaks a condition.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    /// `LDRF` (Def. 7), `fenced` (Def. 8 / 13), `tree-fenced` (Def. 9 / 14).
    pub condition: String,
    pub thread: String,
    /// Where the first event is: `line N` or `call N` (loops and conditionals).
    pub from: String,
    pub to: Option<String>,
    /// The message: what is not guaranteed and the fence or poll that fixes it.
    pub message: String,
    /// Fig. 5's fix: `P` (poll the first), `F` (rfence or poll), `GP` (a get on the
    /// first's queue pair and its poll), `mfence` (TSO), or a structural change.
    pub fix: String,
}

impl Violation {
    pub fn render(&self) -> String {
        match &self.to {
            Some(to) => format!("{} {} → {}: {}", self.thread, self.from, to, self.message),
            None => format!("{} {}: {}", self.thread, self.from, self.message),
        }
    }
}

/// The syntactic conditions of one program under one model.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Syntactic {
    pub ldrf: bool,
    pub fenced: bool,
    pub tree_fenced: bool,
    /// The first [`MAX_VIOLATIONS`] violations (in program order per thread).
    pub violations: Vec<Violation>,
    /// How many violations there are in all (per pre-execution, summed).
    pub violations_total: usize,
}

/// Most violations a report keeps (a large program may have quadratically many).
pub const MAX_VIOLATIONS: usize = 1000;

impl Syntactic {
    fn push(&mut self, v: Violation) {
        self.violations_total += 1;
        if self.violations.len() < MAX_VIOLATIONS {
            self.violations.push(v);
        }
    }
}

impl Syntactic {
    /// Theorem 5 / 17: LDRF ∧ fenced.
    pub fn sufficient(&self) -> bool {
        self.ldrf && self.fenced
    }
}

/// Where an event is, for messages: the thread's name and `line N` / `call N`.
pub struct Places<'a> {
    pub thread_names: Vec<String>,
    /// Per thread, the source line of each call, when the body is straight-line.
    pub lines: Vec<Option<Vec<usize>>>,
    pub loc_names: Vec<String>,
    pub _p: std::marker::PhantomData<&'a ()>,
}

impl Places<'_> {
    pub(super) fn at(&self, e: &PEv) -> String {
        match self.lines.get(e.thread).and_then(|l| l.as_ref()).and_then(|l| l.get(e.call)) {
            Some(l) => format!("line {l}"),
            None => format!("call {}", e.call + 1),
        }
    }
    pub(super) fn loc(&self, e: &PEv) -> String {
        e.loc.and_then(|l| self.loc_names.get(l).cloned()).unwrap_or_else(|| "?".into())
    }
    pub(super) fn what(&self, e: &PEv) -> String {
        let x = self.loc(e);
        match e.ty {
            Ty::LR => format!("read of {x}"),
            Ty::LW => format!("write of {x}"),
            Ty::Cas => format!("CAS of {x}"),
            Ty::NLR => format!("put's local read of {x}"),
            Ty::NRW => format!("put's remote write of {x}"),
            Ty::NRR => format!("get's remote read of {x}"),
            Ty::NLW => format!("get's local write of {x}"),
            Ty::F => "fence".into(),
            Ty::P => "poll".into(),
            Ty::NF => "rfence".into(),
        }
    }
}

/// Fig. 5's prescription for a po pair not in gb: (code, text).
pub(super) fn fig5_fix(model: Model, a: &PEv, b: &PEv) -> (&'static str, String) {
    let same = PreExec::sqp(a, b);
    let n = a.rnode.map(|n| n.to_string()).unwrap_or_else(|| "?".into());
    match a.ty {
        Ty::NLR => ("P", format!("poll the put (poll({n}) after it, before the later instruction; Fig. 5 B1-B5)")),
        Ty::NRW => {
            ("GP", format!("insert a get towards node {n} and poll it before the later instruction (Fig. 5 C1-C6)"))
        }
        Ty::NRR if same && b.ty != Ty::NLW => {
            ("F", format!("insert rfence({n}) between them, or poll the get (Fig. 5 D6-D8)"))
        }
        Ty::NRR => ("P", format!("poll the get (poll({n}) before the later instruction; Fig. 5 D1-D5)")),
        Ty::NLW if same && matches!(b.ty, Ty::NLR | Ty::NRW) => {
            ("F", format!("insert rfence({n}) between them, or poll the get (Fig. 5 E6-E7)"))
        }
        Ty::NLW => ("P", format!("poll the get (poll({n}) before the later instruction; Fig. 5 E1-E5, E8)")),
        _ if model == Model::Tso && a.ty == Ty::LW => {
            ("mfence", "insert an Mfence (or a CAS) between them (App. B.1: TSO store buffering)".to_string())
        }
        _ => ("?", "no fence of Fig. 5 applies".to_string()),
    }
}

/// Checks LDRF, fenced and tree-fenced (with their TSO versions for `Model::Tso`) on
/// one pre-execution. `oppo` is the model's (gb or gb_tso for fenced); LDRF always
/// uses gb with RDMA^sc's `oppo_sc` (App. B.2: "our notion of local data-race freedom
/// (Def. 7) remains unchanged under TSO and does not use the new definition of
/// gb_tso").
pub fn conditions(pe: &PreExec, model: Model, oppo_sc: &StampTable, oppo: &StampTable, places: &Places) -> Syntactic {
    let public = pe.public();
    let is_pub = |e: &PEv| e.loc.is_some_and(|l| public[l]);
    let mut out = Syntactic { ldrf: true, fenced: true, tree_fenced: true, ..Default::default() };
    let tname = |t: usize| places.thread_names.get(t).cloned().unwrap_or_else(|| format!("T{}", t + 1));
    for (t, evs) in pe.threads.iter().enumerate() {
        let gb = pe.gb(t, oppo);
        let gb_sc = if model == Model::Sc { gb.clone() } else { pe.gb(t, oppo_sc) };
        // ⇝* over E^pub \ t
        let qps = pe.qps(&|e: &PEv| e.thread != t && is_pub(e));
        let comp = pe.components(&qps);
        let connected = |n1: u32, n2: u32| n1 == n2 || (comp.contains_key(&n1) && comp.get(&n1) == comp.get(&n2));
        for i in 0..evs.len() {
            for j in i + 1..evs.len() {
                let (a, b) = (&evs[i], &evs[j]);
                // Def. 7: locally conflicting
                if !gb_sc.contains(i, j) && a.loc.is_some() && a.loc == b.loc && (a.ty.is_write() || b.ty.is_write()) {
                    out.ldrf = false;
                    let (fix, how) = fig5_fix(model, a, b);
                    out.push(Violation {
                        condition: "LDRF".into(),
                        thread: tname(t),
                        from: places.at(a),
                        to: Some(places.at(b)),
                        message: format!(
                            "not in gb ({} then {}: a data race within the thread, Def. 7): {how}",
                            places.what(a),
                            places.what(b)
                        ),
                        fix: fix.into(),
                    });
                    continue;
                }
                // Def. 8 / 13
                if !gb.contains(i, j) && is_pub(a) && is_pub(b) {
                    let (na, nb) = (a.loc.and_then(|l| pe.loc_nodes[l]), b.loc.and_then(|l| pe.loc_nodes[l]));
                    if let (Some(na), Some(nb)) = (na, nb) {
                        if connected(na, nb) {
                            out.fenced = false;
                            let (fix, how) = fig5_fix(model, a, b);
                            let via = if na == nb {
                                format!("both on node {na}")
                            } else {
                                format!("nodes {na} and {nb} communicate through other threads' queue pairs")
                            };
                            out.push(Violation {
                                condition: "fenced".into(),
                                thread: tname(t),
                                from: places.at(a),
                                to: Some(places.at(b)),
                                message: format!(
                                    "not in {} ({} then {} of public locations, {via}; Def. {}): {how}",
                                    if model == Model::Tso { "gb_tso" } else { "gb" },
                                    places.what(a),
                                    places.what(b),
                                    if model == Model::Tso { "13" } else { "8" }
                                ),
                                fix: fix.into(),
                            });
                        }
                    }
                }
            }
        }
        // Def. 9 (1): local locations of RDMA operations are private
        for e in evs {
            if matches!(e.ty, Ty::NLR | Ty::NLW) && is_pub(e) {
                out.tree_fenced = false;
                out.push(Violation {
                    condition: "tree-fenced".into(),
                    thread: tname(t),
                    from: places.at(e),
                    to: None,
                    message: format!(
                        "the {} is public (Def. 9 (1): local locations of RDMA operations must be private): copy \
                         through a location only this thread uses",
                        places.what(e)
                    ),
                    fix: "private copy".into(),
                });
            }
        }
        // Def. 9 (2): each get followed by an rfence (or polled) before the next remote
        // operation on its queue pair
        for i in 0..evs.len() {
            if evs[i].ty != Ty::NRR {
                continue;
            }
            for j in i + 1..evs.len() {
                let (a, b) = (&evs[i], &evs[j]);
                if !matches!(b.ty, Ty::NRR | Ty::NRW) || !PreExec::sqp(a, b) {
                    continue;
                }
                let fenced = (i + 1..j).any(|f| evs[f].ty == Ty::NF && PreExec::sqp(a, &evs[f]));
                let polled = i + 1 < evs.len() && evs[i + 1].ty == Ty::NLW && pe.pf[t][i + 1].is_some_and(|p| p < j);
                if !fenced && !polled {
                    out.tree_fenced = false;
                    let n = a.rnode.unwrap_or(0);
                    out.push(Violation {
                        condition: "tree-fenced".into(),
                        thread: tname(t),
                        from: places.at(a),
                        to: Some(places.at(b)),
                        message: format!(
                            "the get is not followed by rfence({n}) (nor polled) before the next remote operation \
                             towards node {n} (Def. 9 (2))"
                        ),
                        fix: "F".into(),
                    });
                }
                break;
            }
        }
        // Def. 14 (2): a fence between a public CPU write and a later public CPU read
        if model == Model::Tso {
            for i in 0..evs.len() {
                for j in i + 1..evs.len() {
                    let (a, b) = (&evs[i], &evs[j]);
                    if a.ty == Ty::LW && b.ty == Ty::LR && is_pub(a) && is_pub(b) {
                        let f = (i + 1..j).any(|f| matches!(evs[f].ty, Ty::F | Ty::Cas));
                        if !f {
                            out.tree_fenced = false;
                            out.push(Violation {
                                condition: "tree-fenced".into(),
                                thread: tname(t),
                                from: places.at(a),
                                to: Some(places.at(b)),
                                message: format!(
                                    "{} then {} of public locations with no Mfence or CAS between (Def. 14 (2))",
                                    places.what(a),
                                    places.what(b)
                                ),
                                fix: "mfence".into(),
                            });
                        }
                    }
                }
            }
        }
    }
    // Def. 9 (3): a single communication path between any two nodes
    let all = pe.qps(&|_| true);
    let mut edges: BTreeSet<(u32, u32)> = BTreeSet::new();
    for &(t, n) in &all {
        let m = pe.thread_nodes[t];
        edges.insert((m.min(n), m.max(n)));
    }
    let mut parent: BTreeMap<u32, u32> = BTreeMap::new();
    fn find(p: &mut BTreeMap<u32, u32>, x: u32) -> u32 {
        let mut r = x;
        while let Some(&q) = p.get(&r) {
            if q == r {
                break;
            }
            r = q;
        }
        r
    }
    for &(a, b) in &edges {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra == rb {
            out.tree_fenced = false;
            out.push(Violation {
                condition: "tree-fenced".into(),
                thread: "network".into(),
                from: format!("nodes {a} and {b}"),
                to: None,
                message: format!(
                    "the link {a}—{b} closes a cycle of communicating nodes (Def. 9 (3a)): two paths between them"
                ),
                fix: "tree topology".into(),
            });
        } else {
            parent.insert(ra, rb);
        }
    }
    for &(t1, n1) in &all {
        for &(t2, n2) in &all {
            if t1 < t2 && n1 == pe.thread_nodes[t2] && n2 == pe.thread_nodes[t1] {
                out.tree_fenced = false;
                out.push(Violation {
                    condition: "tree-fenced".into(),
                    thread: tname(t1),
                    from: format!("and {}", tname(t2)),
                    to: None,
                    message: format!(
                        "queue pairs in both directions between nodes {} and {} (Def. 9 (3b))",
                        pe.thread_nodes[t1], pe.thread_nodes[t2]
                    ),
                    fix: "tree topology".into(),
                });
            }
            if t1 < t2 && n1 == n2 && pe.thread_nodes[t1] == pe.thread_nodes[t2] {
                out.tree_fenced = false;
                out.push(Violation {
                    condition: "tree-fenced".into(),
                    thread: tname(t1),
                    from: format!("and {}", tname(t2)),
                    to: None,
                    message: format!(
                        "two threads of node {} have queue pairs towards node {n1} (Def. 9 (3c))",
                        pe.thread_nodes[t1]
                    ),
                    fix: "tree topology".into(),
                });
            }
        }
    }
    out.violations.sort();
    out.violations.dedup();
    out
}

/// The source line of each call of a straight-line body (`None` with control flow).
pub(super) fn call_lines(body: &[Stmt]) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for s in body {
        match s {
            Stmt::Call(c) => out.push(c.method.pos.line),
            Stmt::Let { rhs: Rhs::Call(c), .. } | Stmt::Assign { rhs: Rhs::Call(c), .. } => out.push(c.method.pos.line),
            Stmt::Let { rhs: Rhs::Expr(_), .. } | Stmt::Assign { rhs: Rhs::Expr(_), .. } | Stmt::Value(_) => {}
            _ => return None,
        }
    }
    Some(out)
}

/// Unfolding hooks for pre-executions: calls return what the library returns, except
/// that a straight-line thread's CPU reads (whose values change no event of the
/// pre-execution there) return one value only.
pub(super) struct PreHooks<'p, 'a> {
    p: &'p Problem<'a>,
    thread: usize,
    collapse: bool,
}

impl Hooks for PreHooks<'_, '_> {
    fn returns(&mut self, lib: usize, method: usize, args: &[Value], history: &[CallRecord]) -> Vec<Value> {
        let l = self.p.libs[lib];
        let mut vs = l.returns_after(&self.p.world, self.thread, lib, history, method, args, &self.p.domain);
        if self.collapse && l.symbolic_return(method) {
            vs.truncate(1);
        }
        vs
    }
}

/// The syntactic conditions over every pre-execution of the program (they must hold
/// of each; the violations of all are reported).
pub(super) fn syntactic_of(
    prob: &Problem,
    k: &Kinds,
    model: Model,
    (oppo_sc, oppo): (&StampTable, &StampTable),
    places: &Places,
    lines: &[Option<Vec<usize>>],
) -> Result<(Syntactic, bool), explicit::EngineError> {
    let mut per_thread: Vec<Vec<Vec<CallRecord>>> = Vec::new();
    let mut bound_hit = false;
    for t in 0..prob.threads.len() {
        let (body, nregs) = &prob.threads[t];
        let mut h = PreHooks { p: prob, thread: t, collapse: lines[t].is_some() };
        let u = unfold_with(body, t, *nregs, prob.loop_bound, &mut h)?;
        bound_hit |= u.bound_hit;
        let mut skels: Vec<Vec<CallRecord>> = Vec::new();
        for r in u.runs.into_iter().filter(|r| r.breaks == 0) {
            // the skeleton: calls up to read values (a CAS keeps whether it succeeds)
            let mut calls = r.calls;
            for c in &mut calls {
                if c.method == rdma::READ {
                    c.ret = Value::Unit;
                }
            }
            if !skels.contains(&calls) {
                skels.push(calls);
            }
        }
        per_thread.push(skels);
    }
    let mut out = Syntactic { ldrf: true, fenced: true, tree_fenced: true, ..Default::default() };
    if per_thread.iter().any(|s| s.is_empty()) {
        return Ok((out, bound_hit));
    }
    let mut choice = vec![0usize; per_thread.len()];
    loop {
        let mut events = Vec::new();
        for (t, skels) in per_thread.iter().enumerate() {
            for (i, c) in skels[choice[t]].iter().enumerate() {
                let CallRecord { lib, method, args, ret, origin } = c.clone();
                events.push(Event { thread: t, index: i, lib, method, args, ret, origin });
            }
        }
        let g = explicit::graph(prob, events);
        let pe = PreExec::of_graph(&g, k);
        let s = conditions(&pe, model, oppo_sc, oppo, places);
        out.ldrf &= s.ldrf;
        out.fenced &= s.fenced;
        out.tree_fenced &= s.tree_fenced;
        out.violations_total += s.violations_total;
        for v in s.violations {
            if out.violations.len() < MAX_VIOLATIONS && !out.violations.contains(&v) {
                out.violations.push(v);
            }
        }
        let mut t = 0;
        loop {
            if t == choice.len() {
                return Ok((out, bound_hit));
            }
            choice[t] += 1;
            if choice[t] < per_thread[t].len() {
                break;
            }
            choice[t] = 0;
            t += 1;
        }
    }
}
