//! The syntactic conditions: LDRF (Def. 7), fenced (Def. 8 / 13), tree-fenced
//! (Def. 9 / 14), each failing pair named with the fence or poll Fig. 5 prescribes.

// relations over event indices: index loops read best here
#![allow(clippy::needless_range_loop)]

use std::collections::{BTreeMap, BTreeSet};

use mowgli_core::program::{unfold_with, CallRecord, Hooks};
use mowgli_core::{Event, Stamp, StampTable, Value};
use mowgli_libs::rdma::{self, Kinds};
use serde::Serialize;

use crate::engines::explicit::{self, Problem};
use crate::lang::ast::{Rhs, Stmt};
use crate::lang::{lower, syntax};

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
    /// Calls the conditions do not cover (`T1 line 16 RCAS`: remote RMWs, which
    /// Defs. 6-14 have no event type for): with any, the conditions show nothing
    /// and only the exact check decides. The verdicts above are over the other
    /// events.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outside: Vec<String>,
}

/// Most violations a report keeps (a large program may have quadratically many).
pub const MAX_VIOLATIONS: usize = 1000;

impl Syntactic {
    pub(super) fn push(&mut self, v: Violation) {
        self.violations_total += 1;
        if self.violations.len() < MAX_VIOLATIONS {
            self.violations.push(v);
        }
    }
}

impl Syntactic {
    /// Theorem 5 / 17: LDRF ∧ fenced.
    pub fn sufficient(&self) -> bool {
        self.outside.is_empty() && self.ldrf && self.fenced
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

// ---------------------------------------------------------------------------
// The violations' messages (shared with the reference check)
// ---------------------------------------------------------------------------

/// Def. 7: `a` then `b`, same location, one a write, not in gb.
pub(super) fn v_ldrf(model: Model, places: &Places, thread: String, a: &PEv, b: &PEv) -> Violation {
    let (fix, how) = fig5_fix(model, a, b);
    Violation {
        condition: "LDRF".into(),
        thread,
        from: places.at(a),
        to: Some(places.at(b)),
        message: format!(
            "not in gb ({} then {}: a data race within the thread, Def. 7): {how}",
            places.what(a),
            places.what(b)
        ),
        fix: fix.into(),
    }
}

/// Def. 8 / 13: `a` then `b` of public locations on connected nodes, not in gb.
pub(super) fn v_fenced(
    model: Model,
    places: &Places,
    thread: String,
    a: &PEv,
    b: &PEv,
    (na, nb): (u32, u32),
) -> Violation {
    let (fix, how) = fig5_fix(model, a, b);
    let via = if na == nb {
        format!("both on node {na}")
    } else {
        format!("nodes {na} and {nb} communicate through other threads' queue pairs")
    };
    Violation {
        condition: "fenced".into(),
        thread,
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
    }
}

/// Def. 9 (1): the local location of an RDMA operation is public.
pub(super) fn v_private(places: &Places, thread: String, e: &PEv) -> Violation {
    Violation {
        condition: "tree-fenced".into(),
        thread,
        from: places.at(e),
        to: None,
        message: format!(
            "the {} is public (Def. 9 (1): local locations of RDMA operations must be private): copy through a \
             location only this thread uses",
            places.what(e)
        ),
        fix: "private copy".into(),
    }
}

/// Def. 9 (2): the get `a` is neither rfenced nor polled before `b`.
pub(super) fn v_get_fence(places: &Places, thread: String, a: &PEv, b: &PEv) -> Violation {
    let n = a.rnode.unwrap_or(0);
    Violation {
        condition: "tree-fenced".into(),
        thread,
        from: places.at(a),
        to: Some(places.at(b)),
        message: format!(
            "the get is not followed by rfence({n}) (nor polled) before the next remote operation towards node {n} \
             (Def. 9 (2))"
        ),
        fix: "F".into(),
    }
}

/// Def. 14 (2): a public CPU write then a public CPU read with no fence between.
pub(super) fn v_mfence(places: &Places, thread: String, a: &PEv, b: &PEv) -> Violation {
    Violation {
        condition: "tree-fenced".into(),
        thread,
        from: places.at(a),
        to: Some(places.at(b)),
        message: format!(
            "{} then {} of public locations with no Mfence or CAS between (Def. 14 (2))",
            places.what(a),
            places.what(b)
        ),
        fix: "mfence".into(),
    }
}

/// Def. 9 (3): a single communication path between any two nodes (over the queue
/// pairs, a small set: quadratic in it).
pub(super) fn network(pe: &PreExec, tname: &dyn Fn(usize) -> String, out: &mut Syntactic) {
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
}

// ---------------------------------------------------------------------------
// The conditions in O(n · C · log n) per thread (C: the thread's classes)
// ---------------------------------------------------------------------------

/// The positions in `list` (sorted) strictly between `lo` and `hi`.
fn between(list: &[usize], lo: i64, hi: usize) -> &[usize] {
    let a = list.partition_point(|&x| (x as i64) <= lo);
    let b = list.partition_point(|&x| x < hi);
    if a < b {
        &list[a..b]
    } else {
        &[]
    }
}

/// Checks LDRF, fenced and tree-fenced (with their TSO versions for `Model::Tso`) on
/// one pre-execution. `oppo` is the model's (gb or gb_tso for fenced); LDRF always
/// uses gb with RDMA^sc's `oppo_sc` (App. B.2: "our notion of local data-race freedom
/// (Def. 7) remains unchanged under TSO and does not use the new definition of
/// gb_tso").
///
/// Not pair by pair: gb is [`PreExec::gb_last`] (per event and class, the last
/// gb-predecessor), so the pairs (i, j) not in gb are, per class, the events of the
/// class after that last one; they are counted by binary search in the positions of
/// the class per location (LDRF) and per node component (fenced), and only the first
/// [`MAX_VIOLATIONS`] are named. Same verdicts and counts as
/// [`conditions_reference`] (checked in `tests/robust.rs`); past the cap, the named
/// violations may be other ones.
pub fn conditions(pe: &PreExec, model: Model, oppo_sc: &StampTable, oppo: &StampTable, places: &Places) -> Syntactic {
    let public = pe.public();
    let is_pub = |e: &PEv| e.loc.is_some_and(|l| public[l]);
    let mut out = Syntactic { ldrf: true, fenced: true, tree_fenced: true, ..Default::default() };
    let tname = |t: usize| places.thread_names.get(t).cloned().unwrap_or_else(|| format!("T{}", t + 1));
    for &(t, call) in &pe.outside {
        let at = places.lines.get(t).and_then(|l| l.as_ref()).and_then(|l| l.get(call));
        out.outside.push(match at {
            Some(l) => format!("{} line {l}", tname(t)),
            None => format!("{} call {}", tname(t), call + 1),
        });
    }
    let full = |out: &Syntactic| out.violations.len() >= MAX_VIOLATIONS;
    let pub_qps = pe.qps(&is_pub);
    for (t, evs) in pe.threads.iter().enumerate() {
        let n = evs.len();
        let gb = pe.gb_last(t, oppo);
        let gb_sc = if model == Model::Sc { None } else { Some(pe.gb_last(t, oppo_sc)) };
        let gb_sc = gb_sc.as_ref().unwrap_or(&gb);
        // ⇝* over E^pub \ t: node → its component (a node of no queue pair: itself)
        let qps: BTreeSet<(usize, u32)> = pub_qps.iter().filter(|(u, _)| *u != t).copied().collect();
        let comp = pe.components(&qps);
        let comp_of = |node: u32| comp.get(&node).copied().unwrap_or(node);
        let loc_node = |e: &PEv| e.loc.and_then(|l| pe.loc_nodes[l]);
        // positions per (class, location) and, of public events, per (class, component)
        let mut by_loc: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
        let mut by_comp: BTreeMap<(usize, u32), Vec<usize>> = BTreeMap::new();
        for (i, e) in evs.iter().enumerate() {
            if let Some(l) = e.loc {
                by_loc.entry((gb.class[i], l)).or_default().push(i);
                if let (true, Some(m)) = (is_pub(e), loc_node(e)) {
                    by_comp.entry((gb.class[i], comp_of(m))).or_default().push(i);
                }
            }
        }
        let empty: Vec<usize> = Vec::new();
        for j in 0..n {
            let b = &evs[j];
            let Some(lj) = b.loc else { continue };
            let nb = loc_node(b).filter(|_| is_pub(b));
            for c in 0..gb.classes.len() {
                let write = gb.classes[c].0.is_write() || b.ty.is_write();
                let (last_sc, last) = (gb_sc.last(j, c), gb.last(j, c));
                let same_loc = by_loc.get(&(c, lj)).unwrap_or(&empty);
                // Def. 7: locally conflicting, not in gb (with RDMA^sc's oppo)
                let races = if write { between(same_loc, last_sc, j) } else { &[] };
                if !races.is_empty() {
                    out.ldrf = false;
                    out.violations_total += races.len();
                    for &i in races {
                        if full(&out) {
                            break;
                        }
                        out.violations.push(v_ldrf(model, places, tname(t), &evs[i], b));
                    }
                }
                // Def. 8 / 13: public, connected nodes, not in gb; the races above are
                // reported as races only
                let Some(nb) = nb else { continue };
                let cands = between(by_comp.get(&(c, comp_of(nb))).unwrap_or(&empty), last, j);
                let raced = if write { between(same_loc, last.max(last_sc), j).len() } else { 0 };
                if cands.len() > raced {
                    out.fenced = false;
                    out.violations_total += cands.len() - raced;
                    for &i in cands {
                        if full(&out) {
                            break;
                        }
                        let a = &evs[i];
                        if write && a.loc == Some(lj) && (i as i64) > last_sc {
                            continue;
                        }
                        let na = loc_node(a).unwrap_or(nb);
                        out.violations.push(v_fenced(model, places, tname(t), a, b, (na, nb)));
                    }
                }
            }
        }
        // Def. 9 (1): local locations of RDMA operations are private
        for e in evs {
            if matches!(e.ty, Ty::NLR | Ty::NLW) && is_pub(e) {
                out.tree_fenced = false;
                out.push(v_private(places, tname(t), e));
            }
        }
        // Def. 9 (2): each get followed by an rfence (or polled) before the next remote
        // operation on its queue pair; backwards: the next remote operation per node
        let mut next_remote: BTreeMap<u32, usize> = BTreeMap::new();
        let mut next_of = vec![None; n];
        for i in (0..n).rev() {
            if let (Some(m), true) = (evs[i].rnode, matches!(evs[i].ty, Ty::NRR | Ty::NRW)) {
                next_of[i] = next_remote.get(&m).copied();
                next_remote.insert(m, i);
            }
        }
        let mut rfences: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, e) in evs.iter().enumerate() {
            if let (Ty::NF, Some(m)) = (e.ty, e.rnode) {
                rfences.entry(m).or_default().push(i);
            }
        }
        for i in 0..n {
            let (Ty::NRR, Some(m), Some(j)) = (evs[i].ty, evs[i].rnode, next_of[i]) else { continue };
            let fenced = !between(rfences.get(&m).unwrap_or(&empty), i as i64, j).is_empty();
            let polled = i + 1 < n && evs[i + 1].ty == Ty::NLW && pe.pf[t][i + 1].is_some_and(|p| p < j);
            if !fenced && !polled {
                out.tree_fenced = false;
                out.push(v_get_fence(places, tname(t), &evs[i], &evs[j]));
            }
        }
        // Def. 14 (2): a fence between a public CPU write and a later public CPU read
        if model == Model::Tso {
            let writes: Vec<usize> = (0..n).filter(|&i| evs[i].ty == Ty::LW && is_pub(&evs[i])).collect();
            let mut fence: i64 = -1;
            for j in 0..n {
                if matches!(evs[j].ty, Ty::F | Ty::Cas) {
                    fence = j as i64;
                }
                if evs[j].ty != Ty::LR || !is_pub(&evs[j]) {
                    continue;
                }
                let ws = between(&writes, fence, j);
                if !ws.is_empty() {
                    out.tree_fenced = false;
                    out.violations_total += ws.len();
                    for &i in ws {
                        if full(&out) {
                            break;
                        }
                        out.violations.push(v_mfence(places, tname(t), &evs[i], &evs[j]));
                    }
                }
            }
        }
    }
    network(pe, &tname, &mut out);
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

/// The source line of each call per thread (`None`: the thread has control flow),
/// and the places for messages.
pub(super) fn lines_and_places<'a>(
    ast: &syntax::Litmus,
    low: &lower::Lowered,
) -> (Vec<Option<Vec<usize>>>, Places<'a>) {
    let mut lines: Vec<Option<Vec<usize>>> = vec![Some(Vec::new()); low.world.threads.len()];
    for (name, body) in &ast.bodies {
        if let Some(t) = low.world.threads.iter().position(|th| th.name == name.text) {
            lines[t] = match (lines[t].take(), call_lines(body)) {
                (Some(mut a), Some(b)) => {
                    a.extend(b);
                    Some(a)
                }
                _ => None,
            };
        }
    }
    let places = Places {
        thread_names: low.world.threads.iter().map(|t| t.name.clone()).collect(),
        lines: lines.clone(),
        loc_names: low.world.locs.iter().map(|l| l.name.clone()).collect(),
        _p: std::marker::PhantomData,
    };
    (lines, places)
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
    let mut out = Syntactic { ldrf: true, fenced: true, tree_fenced: true, ..Default::default() };
    let bound_hit = for_each_pre_execution(prob, k, lines, &mut |pe| {
        let s = conditions(pe, model, oppo_sc, oppo, places);
        out.ldrf &= s.ldrf;
        out.fenced &= s.fenced;
        out.tree_fenced &= s.tree_fenced;
        out.violations_total += s.violations_total;
        for o in s.outside {
            if !out.outside.contains(&o) {
                out.outside.push(o);
            }
        }
        for v in s.violations {
            if out.violations.len() < MAX_VIOLATIONS && !out.violations.contains(&v) {
                out.violations.push(v);
            }
        }
    })?;
    Ok((out, bound_hit))
}

/// Calls `f` on every pre-execution of the program (per combination of the threads'
/// unfoldings; a straight-line thread's CPU reads return one value only, as their
/// values change no event); returns whether a loop reached the unrolling bound.
pub(super) fn for_each_pre_execution(
    prob: &Problem,
    k: &Kinds,
    lines: &[Option<Vec<usize>>],
    f: &mut dyn FnMut(&PreExec),
) -> Result<bool, explicit::EngineError> {
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
    if per_thread.iter().any(|s| s.is_empty()) {
        return Ok(bound_hit);
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
        let stamps: Vec<Vec<Stamp>> = events.iter().map(|e| prob.libs[e.lib].stamps(&prob.world, e)).collect();
        f(&PreExec::of_events(&prob.world, &events, &stamps, k));
        let mut t = 0;
        loop {
            if t == choice.len() {
                return Ok(bound_hit);
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
