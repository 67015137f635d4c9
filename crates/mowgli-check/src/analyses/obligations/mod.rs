//! Local-soundness proof obligations (LOCO Def. 3.13), checked up to a bound by
//! explicit enumeration or by Z3.
//!
//! For an implementation I of L over Λ, every abstract plain execution ⟨E', po'⟩
//! over L up to the bound (the plain executions of the generated abstract
//! programs, `impls::gen`), and every Λ-consistent execution 𝒢 of an unfolding
//! that f abstracts to it (Def. 3.11), the obligations are:
//!
//! * **O0** the abstraction conditions of Def. 3.11 hold for f;
//! * **W** I is well defined (Def. 3.9): checked when the file is loaded and on
//!   every unfolding;
//! * **O1** the concretisation g (declared in the file or inferred) maps every
//!   abstract subevent ⟨e', a'⟩ into f⁻¹(e'), and keeps the stamp promises of `to`
//!   in both directions through hb*, with the intermediate subevents ⟨e1, a1⟩,
//!   ⟨e2, a2⟩ found by search in f⁻¹(e');
//! * **O2** some L-witness of the abstract execution has g(so') ⊆ hb;
//! * **O3** with that witness, ⟨E', po', stmp', so', hb'⟩ ∈ L.C for every
//!   admissible hb'.
//!
//! Which hb' O3 ranges over. The admissible hb' are the transitive relations
//! with (ppo' ∪ so')⁺ ⊆ hb' and g(hb') ⊆ hb. The largest is g⁻¹(hb) =
//! {(s1', s2') | (g(s1'), g(s2')) ∈ hb}: it is transitive because hb is, and
//! irreflexive because hb is. When O1 holds, g(ppo') ⊆ hb (for (s1', s2') ∈ ppo'
//! with stamps a1', a2', O1's entry point ⟨e1, a1⟩ of s2' for a0 = a1' and the exit
//! point ⟨e2, a2⟩ of s1' for a0 = a1 give g(s1') hb* ⟨e2, a2⟩ ppo ⟨e1, a1⟩ hb*
//! g(s2')), and with O2 also g(so') ⊆ hb, so g⁻¹(hb) is admissible. Every
//! specification here is monotone (Def. 3.5: consistency with hb' implies
//! consistency with any smaller transitive hb'' ⊇ (ppo' ∪ so')⁺ — the predicates
//! either ignore hb or, like `rbl_weak`'s hb⁻¹ ∩ fb = ∅, only forbid hb edges),
//! so O3 holds for every admissible hb' iff it holds for g⁻¹(hb): that is the one
//! checked. (The D obligation — monotonicity and decomposability of the
//! specifications — is checked by [`spec`] and the property tests in
//! `tests/props.rs`.)
//!
//! Because every obligation is monotone in hb, the explicit engine settles a whole
//! class of executions at once when a partial witness's so already satisfies them
//! (`Discharge`, `engine::for_each_execution_discharging`); the Z3 engine
//! (`--engine z3`) states their negation per group of plain executions
//! (`Judge::negate`).
//!
//! The abstract witness (rf', mo', nfo', …) is not read back through g as the
//! hand proofs do (App. G.1: rf' = g⁻¹(rf)); instead every L-witness of the
//! abstract execution is enumerated and O2/O3 ask for one that works, so a
//! reported counterexample is confirmed against all of them.

use crate::lang::maps;
pub mod observe;
pub mod spec;

use std::collections::BTreeMap;

use mowgli_core::{BitRel, Event, ExecGraph, Stamp, StampTable, WitnessSearch};
use serde::Serialize;

use crate::analyses::refine::{prepare, Prepared, Setup};
use crate::engines::explicit::{self, Visited};
use crate::lang::implementation::Implementation;
use maps::{ConcMap, MapEntry};
use mowgli_core::program::Unfolding;

/// The obligations, in table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Obligation {
    W,
    O0,
    O1,
    O2,
    O3,
}

impl Obligation {
    pub const ALL: [Obligation; 5] = [Obligation::W, Obligation::O0, Obligation::O1, Obligation::O2, Obligation::O3];

    pub fn name(self) -> &'static str {
        match self {
            Obligation::W => "W",
            Obligation::O0 => "O0",
            Obligation::O1 => "O1",
            Obligation::O2 => "O2",
            Obligation::O3 => "O3",
        }
    }

    pub fn what(self) -> &'static str {
        match self {
            Obligation::W => "well-defined (Def. 3.9)",
            Obligation::O0 => "f abstracts (Def. 3.11)",
            Obligation::O1 => "g keeps to's promises (Def. 3.13, 1st)",
            Obligation::O2 => "g(so') ⊆ hb (Def. 3.13, 2nd)",
            Obligation::O3 => "L-consistent for all hb' (Def. 3.13, 3rd)",
        }
    }
}

/// A refuted obligation: where, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    pub obligation: Obligation,
    /// The abstract methods it is charged to.
    pub methods: Vec<String>,
    /// One line: which subevent, promise or edge, and what is missing.
    pub reason: String,
    /// The abstract program (a litmus text) whose execution refutes it.
    pub client: String,
    /// The abstract execution, the implementation execution grouped by abstract
    /// call, and g between them.
    pub execution: String,
    pub dot: String,
    /// The abstract subevents' (method, stamp kind) pairs whose images the failure
    /// involves, with the alternative map entries this execution offers for each
    /// (used to search a map when entries are not declared).
    #[serde(skip)]
    pub involved: Vec<((String, String), Vec<MapEntry>)>,
}

/// The verdict for one (method, obligation) cell.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CellStatus {
    /// Executions on which the obligation was checked for this method.
    pub checked: u64,
    /// Index into [`Report::failures`] of the first counterexample.
    pub failure: Option<usize>,
}

/// The result of an obligations run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub implementation: String,
    pub implements: String,
    pub uses: Vec<String>,
    pub methods: Vec<String>,
    /// (method, obligation) → status.
    pub cells: BTreeMap<String, BTreeMap<Obligation, CellStatus>>,
    pub failures: Vec<Failure>,
    /// The concretisation map used: declared entries, and inferred ones.
    pub map: Vec<MapEntry>,
    pub inferred: Vec<MapEntry>,
    pub clients: usize,
    pub abstract_executions: u64,
    /// Implementation executions checked: one by one, or a class at a time (below).
    pub executions: u64,
    /// Of `executions`, the classes: executions sharing a partial witness under
    /// which every obligation already holds (so for all of them, by monotonicity
    /// in hb), each known to contain at least one consistent execution; the
    /// explicit engine checks such a class once (`engine::for_each_execution_discharging`).
    pub classes: u64,
    /// With the Z3 engine: abstract executions (of a group of plain executions
    /// that differ only in returned values) on which every obligation was
    /// discharged by one unsatisfiable query for the group (their executions are
    /// not counted in `executions`, which then counts the counterexamples and the
    /// executions Z3 enumerated).
    pub plain_discharged: u64,
    pub bounded: bool,
    pub complete: bool,
    pub millis: f64,
    /// Obligation D (Def. 3.5) for L and each library of Λ, when asked for
    /// ([`spec::check_library`]).
    pub specs: Vec<spec::SpecReport>,
    /// Per failure (same index), the client that observes it, or what was tried
    /// ([`observe::observe_all`]).
    pub observations: Vec<observe::Observation>,
    /// Milliseconds from the start of the run to its first final refutation.
    pub first_failure_ms: Option<f64>,
    /// What each abstract program checked added to the counts, in the order checked
    /// (`mowgli merge` replays the shards of a `--partition` run from these).
    pub programs: Vec<ProgramRecord>,
}

/// What one abstract program added to a [`Report`].
#[derive(Clone, Debug, Serialize)]
pub struct ProgramRecord {
    /// Its position in the list of abstract programs checked (the caller may
    /// renumber it, e.g. to the position in the whole bound of a partition).
    pub index: usize,
    pub name: String,
    pub abstract_executions: u64,
    pub executions: u64,
    pub classes: u64,
    pub plain_discharged: u64,
    /// `(method, obligation, n)`: the cells whose `checked` grew by n.
    pub checked: Vec<(String, Obligation, u64)>,
    /// Indices into [`Report::failures`] of the failures recorded on it.
    pub failures: Vec<usize>,
}

impl Report {
    /// Counts one more execution on which obligation `o` holds for `methods`.
    fn pass(&mut self, o: Obligation, methods: &[String]) {
        for m in methods {
            if let Some(c) = self.cells.get_mut(m).and_then(|c| c.get_mut(&o)) {
                c.checked += 1;
            }
        }
    }
}

/// Told the number of abstract programs checked so far in the current pass.
pub type Progress = std::sync::Arc<dyn Fn(usize) + Send + Sync>;

/// Options of a run.
#[derive(Clone, Default)]
pub struct Options {
    pub loop_bound: usize,
    /// Stop after this long (the report is then incomplete).
    pub time_limit: Option<std::time::Duration>,
    /// Stop at the first refuted obligation.
    pub first_fail: bool,
    pub progress: Option<Progress>,
    /// The engine that enumerates the implementation's executions.
    pub backend: explicit::Backend,
    /// Explicit engine: check every execution on its own, never a class of them
    /// under a partial witness (`engine::for_each_execution_discharging`); slower,
    /// to cross-check the discharge.
    pub every_execution: bool,
    /// Told each refutation the moment it is final (it does not depend on a map
    /// entry still being searched), with the milliseconds since the run started.
    pub on_failure: Option<OnFailure>,
}

/// A refutation's identity across map-repair rounds: obligation, methods, program.
type FailureKey = (Obligation, Vec<String>, String);

/// See [`Options::on_failure`].
pub type OnFailure = std::sync::Arc<dyn Fn(&Failure, f64) + Send + Sync>;

/// The subevents of 𝒢 that implement abstract event `e'` (thread t, index i): f⁻¹(e').
fn preimage(g: &ExecGraph, t: usize, i: usize) -> Vec<usize> {
    (0..g.len()).filter(|&s| g.event_of(s).thread == t && g.event_of(s).origin == Some(i)).collect()
}

/// Every stamp a subevent of this world can carry: single stamps, and family
/// members for every node plus one node no event uses (so that "another node"
/// is represented even in a one-node world).
fn universe(to: &StampTable, nodes: &[u32]) -> Vec<Stamp> {
    let mut out = Vec::new();
    let fresh = nodes.iter().max().copied().unwrap_or(0) + 1;
    for k in 0..to.kinds.len() {
        if to.family[k] {
            for &n in nodes.iter().chain(std::iter::once(&fresh)) {
                out.push(Stamp { kind: k as u8, node: Some(n) });
            }
        } else {
            out.push(Stamp { kind: k as u8, node: None });
        }
    }
    out
}

/// O1 for one abstract subevent with stamp `a'` mapped to `target`: the first
/// promise that fails, as text.
fn o1_violation(
    to: &StampTable,
    universe: &[Stamp],
    g: &ExecGraph,
    hb_star: &BitRel,
    pre: &[usize],
    a: Stamp,
    target: usize,
) -> Option<String> {
    for &a0 in universe {
        if to.ordered(a0, a) {
            // an entry point ⟨e1, a1⟩ ∈ f⁻¹(e') with (a0, a1) ∈ to and ⟨e1, a1⟩ hb* g(s')
            let ok = pre.iter().any(|&s1| to.ordered(a0, g.subs[s1].stamp) && hb_star.contains(s1, target));
            if !ok {
                return Some(format!(
                    "({}, {}) ∈ to, but no subevent of the implementation with a stamp a1 such that ({}, a1) ∈ to happens (hb*) before g = {}",
                    to.stamp_name(a0),
                    to.stamp_name(a),
                    to.stamp_name(a0),
                    to.stamp_name(g.subs[target].stamp)
                ));
            }
        }
        if to.ordered(a, a0) {
            let ok = pre.iter().any(|&s2| to.ordered(g.subs[s2].stamp, a0) && hb_star.contains(target, s2));
            if !ok {
                return Some(format!(
                    "({}, {}) ∈ to, but no subevent of the implementation with a stamp a2 such that (a2, {}) ∈ to happens (hb*) after g = {}",
                    to.stamp_name(a),
                    to.stamp_name(a0),
                    to.stamp_name(a0),
                    to.stamp_name(g.subs[target].stamp)
                ));
            }
        }
    }
    None
}

/// The abstract plain execution ⟨E', po'⟩ of a consistent implementation execution.
fn abstract_events(v: &Visited) -> Vec<Event> {
    abstract_events_of(&v.runs)
}

/// The abstract events of the unfoldings `runs` (one per thread).
fn abstract_events_of(runs: &[&Unfolding]) -> Vec<Event> {
    let mut out = Vec::new();
    for (t, run) in runs.iter().enumerate() {
        for (i, c) in run.abstract_calls.iter().enumerate() {
            out.push(Event {
                thread: t,
                index: i,
                lib: 0,
                method: c.method,
                args: c.args.clone(),
                ret: c.ret.clone(),
                origin: None,
            });
        }
    }
    out
}

/// Checks O0 (Def. 3.11) on one execution: every implementation event implements
/// an abstract call of its thread, f is monotone along po and po' is reflected (the
/// abstract index never decreases in program order), and f is onto every abstract
/// call that has subevents. The third condition (each f⁻¹(e') is a run of e''s
/// body with e''s return value) holds by construction of the unfolding.
fn o0_violation(v: &Visited, abs: &[Event], abs_g: &ExecGraph) -> Option<(usize, String)> {
    let g = v.g;
    for (ei, e) in g.events.iter().enumerate() {
        let Some(o) = e.origin else {
            return Some((usize::MAX, format!("event {ei} of thread {} implements no abstract call", e.thread)));
        };
        for e2 in g.events.iter().filter(|e2| e2.thread == e.thread && e2.index > e.index) {
            if e2.origin.is_some_and(|o2| o2 < o) {
                return Some((
                    o,
                    format!("thread {}: f(po) ⊄ po'* (call {} after call {})", e.thread, e2.index, e.index),
                ));
            }
        }
    }
    for (ai, a) in abs.iter().enumerate() {
        if !abs_g.subs_of[ai].is_empty() && !g.events.iter().any(|e| e.thread == a.thread && e.origin == Some(a.index))
        {
            return Some((
                ai,
                format!("abstract call {} of thread {} has no implementation event (f not onto)", a.index, a.thread),
            ));
        }
    }
    None
}

/// The per-execution verdict of O2/O3 over all L-witnesses of the abstract execution.
enum WitnessVerdict {
    Ok,
    /// Some witness is L-consistent under g⁻¹(hb), but none has g(so') ⊆ hb: the
    /// first such witness's missing edge (and its abstract subevents).
    O2(String, usize, usize),
    /// No witness is L-consistent (for the admissible hb').
    O3(String),
}

fn check_witnesses(
    search: &mut dyn WitnessSearch,
    abs_g: &ExecGraph,
    gmap: &[usize],
    hb: &BitRel,
    to: &StampTable,
    impl_g: &ExecGraph,
) -> WitnessVerdict {
    let n = abs_g.len();
    // g⁻¹(hb): the largest admissible hb'
    let back = BitRel::from_fn(n, |a, b| hb.contains(gmap[a], gmap[b]));
    let vars: Vec<usize> = {
        let mut v: Vec<usize> = (0..search.num_vars()).collect();
        v.sort_by_key(|&v| search.domain(v));
        v
    };
    if vars.iter().any(|&v| search.domain(v) == 0) {
        return WitnessVerdict::O3(
            "no witness: some abstract read has no write (nor the initial value) to read from".into(),
        );
    }
    // fast path: a witness with L's conditions, g(so') ⊆ hb and hb's conditions,
    // pruning partial witnesses on all three (so' only grows as variables are fixed)
    if dfs_witness(search, abs_g, &back, &vars, 0, true).is_some() {
        return WitnessVerdict::Ok;
    }
    // refuted: classify with a search that does not require O2
    match dfs_witness(search, abs_g, &back, &vars, 0, false) {
        Some(so) => {
            let (a, b) = so.pairs().find(|&(a, b)| !back.contains(a, b)).unwrap_or((0, 0));
            let msg = format!(
                "so' edge {} → {} of the abstract execution (in every witness L allows here; this one is the first found): its image {} → {} is not in hb",
                sub_name(abs_g, to, a),
                sub_name(abs_g, to, b),
                impl_sub(impl_g, to, gmap[a]),
                impl_sub(impl_g, to, gmap[b]),
            );
            WitnessVerdict::O2(msg, a, b)
        }
        None => WitnessVerdict::O3(
            "the abstract execution has no L-consistent witness under hb' = g⁻¹(hb): the implementation shows behaviour L forbids"
                .into(),
        ),
    }
}

/// Depth-first search for an L-witness of the abstract execution that is
/// consistent with hb' = g⁻¹(hb) ∪ (ppo' ∪ so')⁺ (and, with `o2`, has so' ⊆
/// g⁻¹(hb)); returns its so'.
fn dfs_witness(
    search: &mut dyn WitnessSearch,
    abs_g: &ExecGraph,
    back: &BitRel,
    vars: &[usize],
    i: usize,
    o2: bool,
) -> Option<BitRel> {
    let mut so = BitRel::new(abs_g.len());
    if !search.check(&abs_g.ppo, &mut so) {
        return None;
    }
    if o2 && so.pairs().any(|(a, b)| !back.contains(a, b)) {
        return None;
    }
    let mut least = so.clone();
    least.union_with(&abs_g.ppo);
    if !least.is_acyclic() {
        return None;
    }
    if i == vars.len() {
        if search.needs_hb() {
            let mut hb_prime = back.clone();
            hb_prime.union_with(&least);
            hb_prime.close_transitively();
            if !search.check_hb(&hb_prime) {
                return None;
            }
        }
        return Some(so);
    }
    let v = vars[i];
    let mut found = None;
    for val in 0..search.domain(v) {
        search.assign(v, Some(val));
        found = dfs_witness(search, abs_g, back, vars, i + 1, o2);
        if found.is_some() {
            break;
        }
    }
    search.assign(v, None);
    found
}

/// An abstract subevent: thread, call number in the thread, stamp.
fn sub_name(g: &ExecGraph, to: &StampTable, s: usize) -> String {
    let e = g.event_of(s);
    format!("T{}#{}.{}", e.thread + 1, e.index, to.stamp_name(g.subs[s].stamp))
}

/// An implementation subevent: its number (as listed under its abstract call) and stamp.
fn impl_sub(g: &ExecGraph, to: &StampTable, s: usize) -> String {
    format!("s{s}.{}", to.stamp_name(g.subs[s].stamp))
}

/// Checks the obligations of `imp` on the abstract programs given as litmus texts
/// (`(name, text)`), with the concretisation map `map` (missing entries: the same
/// stamp if the implementation has one, else inferred per execution — see
/// [`maps::resolve`]).
/// Every abstract program over L = `imp.implements` up to `bounds` (L's calls
/// only, with or without registers), smallest first, as `(name, litmus text)`:
/// their plain executions are the abstract plain executions ⟨E', po'⟩ the
/// obligations range over.
///
/// The order is the one a counterexample should be found in (smallest bound
/// first): by threads, then calls per thread, then nodes, then total calls, the
/// generator's order within that. A bug that shows at one thread is refuted before
/// any two-thread program is checked.
pub fn abstract_programs(
    imp: &Implementation,
    order: &mowgli_core::StampOrder,
    bounds: &crate::analyses::refine::gen::Bounds,
) -> Result<Vec<(String, String)>, String> {
    let mut out = spec::programs(&imp.implements, order, bounds, "abs")?;
    out.sort_by_cached_key(|(_, text)| dimensions(text));
    Ok(out)
}

/// (threads, most calls in one thread, nodes, total calls) of a generated program.
pub fn dimensions(text: &str) -> (usize, usize, usize, usize) {
    let mut nodes: Vec<&str> = Vec::new();
    let mut threads = 0;
    let (mut most, mut total, mut current) = (0, 0, 0);
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("thread ") {
            threads += 1;
            let node = rest.split('@').nth(1).unwrap_or("").trim();
            if !nodes.contains(&node) {
                nodes.push(node);
            }
        } else if line.starts_with("  ") && !line.trim().is_empty() {
            current += 1;
            total += 1;
            most = most.max(current);
        } else if line.ends_with(':') {
            current = 0;
        }
    }
    (threads, most, nodes.len(), total)
}

/// Most combinations of alternative entries one repair tries.
const MAX_COMBINATIONS: usize = 256;

/// Most map repairs [`check_clients`] tries before it reports a refutation.
const MAX_REPAIRS: usize = 16;

/// Checks the obligations of `imp` on the abstract programs `clients`
/// (`(name, litmus text)`), with the declared map `map`. Entries the map does not
/// declare are searched: when an obligation fails and the abstract subevents it
/// involves have undeclared entries, the alternatives the failing execution
/// offers for them (every `first`/`last` (method, stamp) pair of their f⁻¹) are
/// tried on that abstract program; the first combination that discharges it is
/// pinned and the whole bound is checked again. The pinned entries are reported
/// in [`Report::inferred`].
pub fn check_clients(
    imp: &Implementation,
    order: &mowgli_core::StampOrder,
    clients: &[(String, String)],
    map: &ConcMap,
    opts: &Options,
) -> Result<Report, String> {
    let start = std::time::Instant::now();
    // LOCO App. F.4: a library that orders its own subevents (RDMA^TSO) has no so/hb
    // presentation to compose with, and Thm. 3.14 does not apply to its implementations
    for u in &imp.uses {
        if mowgli_libs::registry::library(u, order).is_ok_and(|l| l.own_program_order()) {
            return Err(format!(
                "`{}` uses `{u}`, which orders its own subevents (a whole-program model): local soundness (Def. 3.13) does not apply to it (LOCO App. F.4); check it with `mowgli refine`",
                imp.name
            ));
        }
    }
    let mut pinned: Vec<MapEntry> = Vec::new();
    let mut repairs = 0;
    // a refutation involving an undeclared entry may be repaired by another choice
    // of that entry; only the others are final
    let repairable = |f: &Failure| {
        matches!(f.obligation, Obligation::O1 | Obligation::O2 | Obligation::O3)
            && f.involved.iter().any(|((m, k), _)| map.get(m, k).is_none())
    };
    // each final refutation is told once, however many rounds find it again
    let told: std::sync::Mutex<(Vec<FailureKey>, Option<f64>)> = std::sync::Mutex::new((Vec::new(), None));
    let tell = |f: &Failure| {
        let Ok(mut t) = told.lock() else { return };
        let key = (f.obligation, f.methods.clone(), f.client.clone());
        if t.0.contains(&key) {
            return;
        }
        t.0.push(key);
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        t.1.get_or_insert(ms);
        if let Some(cb) = &opts.on_failure {
            cb(f, ms);
        }
    };
    // a repair round stops at its first repairable refutation (the bound is checked
    // whole once the map no longer changes); after a repair that found nothing,
    // one last round checks the whole bound with the refutation as final
    let mut last_round = false;
    loop {
        let mut current = map.clone();
        current.entries.extend(pinned.iter().cloned());
        // the time limit covers the whole check, repairs included
        let left = Options { time_limit: opts.time_limit.map(|t| t.saturating_sub(start.elapsed())), ..opts.clone() };
        let opts = &left;
        let stop: Option<&dyn Fn(&Failure) -> bool> = if last_round { None } else { Some(&repairable) };
        let mut rep = run(imp, order, &mut clients.iter().cloned(), &current, opts, stop, &|f: &Failure| {
            if last_round || !repairable(f) {
                tell(f)
            }
        })?;
        let repair = rep.failures.iter().find(|f| repairable(f));
        let Some(f) = repair.filter(|_| repairs < MAX_REPAIRS && !last_round) else {
            if !last_round && repair.is_some() {
                // out of repairs: the whole bound once more, every refutation final
                last_round = true;
                continue;
            }
            for e in pinned {
                if !rep.inferred.contains(&e) {
                    rep.inferred.push(e);
                }
            }
            rep.map = map.entries.clone();
            rep.millis = start.elapsed().as_secs_f64() * 1000.0;
            rep.first_failure_ms = told.lock().ok().and_then(|t| t.1);
            return Ok(rep);
        };
        repairs += 1;
        let client = clients.iter().find(|(n, _)| f.client.starts_with(&format!("# {n}\n"))).cloned();
        let open: Vec<&((String, String), Vec<MapEntry>)> =
            f.involved.iter().filter(|((m, k), _)| map.get(m, k).is_none()).collect();
        let mut found: Option<Vec<MapEntry>> = None;
        let mut progress_choice: Option<Vec<MapEntry>> = None;
        if let Some(client) = client {
            let total: usize = open.iter().map(|(_, alts)| alts.len().max(1)).product();
            for i in 0..total.min(MAX_COMBINATIONS) {
                let mut k = i;
                let mut choice = Vec::new();
                for (_, alts) in &open {
                    if alts.is_empty() {
                        continue;
                    }
                    choice.push(alts[k % alts.len()].clone());
                    k /= alts.len();
                }
                let mut trial = map.clone();
                trial.entries.extend(choice.iter().cloned());
                trial.entries.extend(
                    pinned
                        .iter()
                        .filter(|p| !choice.iter().any(|c| c.method == p.method && c.stamp == p.stamp))
                        .cloned(),
                );
                let one = run(imp, order, &mut std::iter::once(client.clone()), &trial, opts, None, &|_| {})?;
                // progress: this program discharged, or its first refutation now
                // involves other entries (repaired in the next round)
                let keys = |f: &Failure| f.involved.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
                match one.failures.first() {
                    None => {
                        found = Some(choice);
                        break;
                    }
                    Some(g) => {
                        if progress_choice.is_none()
                            && keys(g) != keys(f)
                            && g.involved.iter().any(|((m, k), _)| map.get(m, k).is_none())
                        {
                            progress_choice = Some(choice);
                        }
                    }
                }
            }
        }
        match found.or(progress_choice) {
            Some(choice) => {
                pinned.retain(|p| !choice.iter().any(|c| c.method == p.method && c.stamp == p.stamp));
                pinned.extend(choice);
            }
            // no choice of the entries discharges it: the refutation is final
            None => last_round = true,
        }
    }
}

/// Checks the programs `clients` in order. `stop`: the run stops after a program
/// with a refutation it accepts (the rest of the bound unchecked); `found` is told
/// each refutation as it is recorded.
fn run(
    imp: &Implementation,
    order: &mowgli_core::StampOrder,
    clients: &mut dyn Iterator<Item = (String, String)>,
    map: &ConcMap,
    opts: &Options,
    stop: Option<&dyn Fn(&Failure) -> bool>,
    found: &dyn Fn(&Failure),
) -> Result<Report, String> {
    let start = std::time::Instant::now();
    let to = order.table("to").ok_or("the stamp order has no table `to`")?;
    let lib = mowgli_libs::registry::library(&imp.implements, order).map_err(|e| e.to_string())?;
    // hidden methods (`#CAS`: RDMA^WAIT's that msw inherits but does not offer) have no row
    let methods: Vec<String> =
        lib.methods().iter().map(|m| m.name.to_string()).filter(|m| !m.starts_with('#')).collect();
    let mut rep = Report {
        implementation: imp.name.clone(),
        implements: imp.implements.clone(),
        uses: imp.uses.clone(),
        methods: methods.clone(),
        cells: methods
            .iter()
            .map(|m| (m.clone(), Obligation::ALL.iter().map(|&o| (o, CellStatus::default())).collect()))
            .collect(),
        failures: Vec::new(),
        map: map.entries.clone(),
        inferred: Vec::new(),
        clients: 0,
        abstract_executions: 0,
        executions: 0,
        classes: 0,
        plain_discharged: 0,
        bounded: false,
        complete: true,
        millis: 0.0,
        specs: Vec::new(),
        observations: Vec::new(),
        first_failure_ms: None,
        programs: Vec::new(),
    };
    let mut inferred: BTreeMap<(String, String), MapEntry> = BTreeMap::new();
    for (index, (name, text)) in clients.enumerate() {
        let stopped = stop.is_some_and(|s| rep.failures.iter().any(s));
        if opts.time_limit.is_some_and(|t| start.elapsed() >= t)
            || (opts.first_fail && !rep.failures.is_empty())
            || stopped
        {
            rep.complete = false;
            break;
        }
        let setup = match prepare(imp, order, &name, &text).map_err(|e| e.to_string())? {
            Prepared::Ready(s) => s,
            Prepared::Skipped(_) => continue,
        };
        rep.clients += 1;
        if let Some(p) = &opts.progress {
            p(rep.clients);
        }
        let deadline = opts.time_limit.map(|t| start + t);
        let before = (rep.abstract_executions, rep.executions, rep.classes, rep.plain_discharged, rep.failures.len());
        let cells_before = rep.cells.clone();
        check_one(imp, &setup, to, &name, &text, map, &mut inferred, opts, deadline, &mut rep)?;
        for f in &rep.failures[before.4..] {
            found(f);
        }
        let mut checked = Vec::new();
        for (m, row) in &rep.cells {
            for (o, c) in row {
                let was = cells_before.get(m).and_then(|r| r.get(o)).map_or(0, |c| c.checked);
                if c.checked > was {
                    checked.push((m.clone(), *o, c.checked - was));
                }
            }
        }
        rep.programs.push(ProgramRecord {
            index,
            name,
            abstract_executions: rep.abstract_executions - before.0,
            executions: rep.executions - before.1,
            classes: rep.classes - before.2,
            plain_discharged: rep.plain_discharged - before.3,
            checked,
            failures: (before.4..rep.failures.len()).collect(),
        });
    }
    rep.inferred = inferred.into_values().collect();
    rep.millis = start.elapsed().as_secs_f64() * 1000.0;
    Ok(rep)
}

#[allow(clippy::too_many_arguments)]
fn check_one(
    imp: &Implementation,
    setup: &Setup,
    to: &StampTable,
    name: &str,
    text: &str,
    map: &ConcMap,
    inferred: &mut BTreeMap<(String, String), MapEntry>,
    opts: &Options,
    deadline: Option<std::time::Instant>,
    rep: &mut Report,
) -> Result<(), String> {
    let mut p = setup.impl_problem(to, opts.loop_bound)?;
    p.all_executions = true;
    p.regs_only = false;
    p.backend = opts.backend;
    let abs_lib = &setup.low.libs[setup.lidx];
    let abs_world = &setup.low.world;
    let universe = universe(to, &abs_world.nodes);
    let seen_abstract: std::collections::HashSet<Vec<Event>> = std::collections::HashSet::new();
    let abs_before = rep.abstract_executions;
    let mut err: Option<String> = None;
    // refutations recorded by `visit` (the Z3 path asks whether its model was one)
    let refuted = std::cell::Cell::new(0u64);
    // the time limit, also inside one abstract program (whose executions can be many)
    let late = std::cell::Cell::new(false);
    let past = || {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            late.set(true);
        }
        late.get()
    };
    let judge = Judge { setup, to, map, universe: &universe, abs_lib: abs_lib.as_ref(), abs_world };
    // shared by the visitor and the discharge test
    let state: Shared = std::cell::RefCell::new((rep, inferred, seen_abstract));
    let mut visit = |v: &Visited| -> bool {
        if past() {
            return false;
        }
        let mut guard = state.borrow_mut();
        let (rep, inferred, seen_abstract) = &mut *guard;
        rep.executions += 1;
        let abs = abstract_events(v);
        if seen_abstract.insert(abs.clone()) {
            rep.abstract_executions += 1;
        }
        let abs_g = judge.abstract_graph(&abs);
        let verdict = judge.judge(v, &abs, &abs_g, inferred, false);
        let all_methods = judge.methods(&abs);
        let (o, methods, why, gmap, subs) = match verdict {
            Judgement::Pass | Judgement::Open => {
                for o in Obligation::ALL {
                    rep.pass(o, &all_methods);
                }
                return true;
            }
            Judgement::Fail { o, methods, why, gmap, subs } => (o, methods, why, gmap, subs),
        };
        for &before in Obligation::ALL.iter().take_while(|&&b| b != o) {
            // an O3 refutation found a witness for L's conditions but none at all
            // under hb': O2 is not established either way
            if !(o == Obligation::O3 && before == Obligation::O2) {
                rep.pass(before, &all_methods);
            }
        }
        refuted.set(refuted.get() + 1);
        for m in &methods {
            if let Some(c) = rep.cells.get_mut(m).and_then(|c| c.get_mut(&o)) {
                c.checked += 1;
                if c.failure.is_none() {
                    c.failure = Some(rep.failures.len());
                }
            }
        }
        let first_for_cell = methods.iter().any(|m| rep.cells[m][&o].failure == Some(rep.failures.len()));
        if first_for_cell {
            let gmap = gmap.as_deref();
            rep.failures.push(Failure {
                obligation: o,
                methods,
                reason: why,
                client: format!("# {name}\n{text}"),
                execution: render(setup, v, &abs_g, gmap, to),
                dot: dot(setup, v, &abs_g, gmap, to),
                involved: judge.involved(v, &abs, &abs_g, &subs),
            });
        }
        !opts.first_fail
    };
    // a partial witness whose so already makes every obligation hold: they hold for
    // every completion (each obligation is monotone in hb, and L's predicate does
    // not mention hb), so its executions need not be visited one by one
    let mut discharge = Discharge { judge: &judge, state: &state, past: &past };
    let res = if opts.backend == explicit::Backend::Z3 {
        // Z3: per group of plain executions (those that differ only in open return
        // values), a model of Λ-consistency ∧ ⋁_A (the values select A ∧ ¬(O1 ∧ O2 ∧
        // O3) for A), over the abstract executions A of the group, is a candidate
        // counterexample, confirmed by `visit`; no model discharges every execution
        // of the group at once
        let mut discharged: Vec<Vec<String>> = Vec::new();
        let mut abstract_seen: std::collections::HashSet<Vec<Event>> = std::collections::HashSet::new();
        let mut spare: Option<z3::Solver> = None;
        let mut plain = |g: &ExecGraph, alts: &explicit::Alternatives| -> Result<bool, String> {
            if past() {
                return Ok(false);
            }
            let mut searches: Vec<_> = p.libs.iter().enumerate().map(|(i, l)| l.search(g, to, i)).collect();
            let vars: Vec<(usize, usize)> =
                searches.iter().enumerate().flat_map(|(l, s)| (0..s.num_vars()).map(move |v| (l, v))).collect();
            if vars.iter().any(|&(l, v)| searches[l].domain(v) == 0) {
                return Ok(true); // no witness at all
            }
            let mut specs = Vec::with_capacity(searches.len());
            for (l, s) in searches.iter().enumerate() {
                specs.push(s.relspec().ok_or_else(|| {
                    crate::engines::z3::Z3Error::Unsupported(p.libs[l].name().to_string()).to_string()
                })?);
            }
            let mut enc = match spare.take() {
                Some(solver) => crate::engines::z3::Encoding::in_solver(solver, g, &specs),
                None => crate::engines::z3::Encoding::new(g, &specs),
            };
            // the abstract executions of the group: per thread, its unfoldings by the
            // abstract calls they make (with return values), each selected by the
            // open return values of any of them
            let mut classes: Vec<Vec<(usize, z3::ast::Bool)>> = Vec::with_capacity(alts.len());
            for (t, thread_alts) in alts.iter().enumerate() {
                let sym_events: Vec<usize> =
                    (0..g.events.len()).filter(|&e| g.sym_ret[e] && g.events[e].thread == t).collect();
                let mut mine: Vec<(usize, Vec<z3::ast::Bool>)> = Vec::new();
                for (k, (pat, run)) in thread_alts.iter().enumerate() {
                    let conds: Vec<z3::ast::Bool> = sym_events
                        .iter()
                        .zip(pat.iter())
                        .map(|(&e, v)| enc.returns(g, e, v))
                        .collect::<Option<_>>()
                        .ok_or("the Z3 encoding has no read for an open return value")?;
                    let cond = z3::ast::Bool::and(&conds);
                    match mine.iter_mut().find(|(rep, _)| thread_alts[*rep].1.abstract_calls == run.abstract_calls) {
                        Some((_, cs)) => cs.push(cond),
                        None => mine.push((k, vec![cond])),
                    }
                }
                classes.push(mine.into_iter().map(|(rep, cs)| (rep, z3::ast::Bool::or(&cs))).collect());
            }
            // every combination of one class per thread: an abstract execution
            struct Combo {
                runs: Vec<usize>,
                select: z3::ast::Bool,
                /// ¬(O1 ∧ O2 ∧ O3) was stated (else its executions are enumerated)
                negated: bool,
                methods: Vec<String>,
                refuted: bool,
            }
            let mut combos: Vec<Combo> = Vec::new();
            let mut pick = vec![0usize; classes.len()];
            let mut disjuncts: Vec<z3::ast::Bool> = Vec::new();
            'combos: loop {
                let runs: Vec<&Unfolding> = pick.iter().enumerate().map(|(t, &c)| alts[t][classes[t][c].0].1).collect();
                let select = z3::ast::Bool::and(
                    &pick.iter().enumerate().map(|(t, &c)| classes[t][c].1.clone()).collect::<Vec<_>>(),
                );
                let inferred = state.borrow().1.clone();
                let negated = judge.negate(&mut enc, g, &inferred, &runs);
                let (disjunct, negated, methods) = match negated {
                    Some((neg, abs, methods)) => {
                        abstract_seen.insert(abs);
                        (z3::ast::Bool::and(&[select.clone(), neg]), true, methods)
                    }
                    None => (select.clone(), false, Vec::new()),
                };
                disjuncts.push(disjunct);
                combos.push(Combo {
                    runs: pick.iter().enumerate().map(|(t, &c)| classes[t][c].0).collect(),
                    select,
                    negated,
                    methods,
                    refuted: false,
                });
                let mut t = 0;
                loop {
                    if t == pick.len() {
                        break 'combos;
                    }
                    pick[t] += 1;
                    if pick[t] < classes[t].len() {
                        break;
                    }
                    pick[t] = 0;
                    t += 1;
                }
            }
            enc.assert(&z3::ast::Bool::or(&disjuncts));
            loop {
                let Some(vals) = enc.next().map_err(|e| e.to_string())? else {
                    for c in combos.into_iter().filter(|c| c.negated && !c.refuted) {
                        discharged.push(c.methods);
                    }
                    spare = Some(enc.release());
                    return Ok(true);
                };
                for &(l, v) in &vars {
                    searches[l].assign(v, Some(vals[l][v]));
                }
                let Some(so) = mowgli_core::library::lambda_consistent(g, &mut searches) else {
                    return Err("the Z3 and explicit engines disagree: a Z3 model is not Λ-consistent".into());
                };
                // the unfolding each thread takes: the one its open return values select
                let mut runs: Vec<&Unfolding> = Vec::with_capacity(alts.len());
                for (t, thread_alts) in alts.iter().enumerate() {
                    let values: Vec<Option<mowgli_core::Value>> = (0..g.events.len())
                        .filter(|&e| g.sym_ret[e] && g.events[e].thread == t)
                        .map(|e| searches[g.events[e].lib].returned(e))
                        .collect();
                    let Some((_, run)) = thread_alts.iter().find(|(pat, _)| {
                        pat.len() == values.len()
                            && pat.iter().zip(&values).all(|(p, v)| v.as_ref().is_some_and(|v| p.admits(v)))
                    }) else {
                        return Err(
                            "the Z3 and explicit engines disagree: a Z3 model's return values select no unfolding"
                                .into(),
                        );
                    };
                    runs.push(run);
                }
                let Some(ci) = combos.iter().position(|c| {
                    c.runs.iter().enumerate().all(|(t, &r)| alts[t][r].1.abstract_calls == runs[t].abstract_calls)
                }) else {
                    return Err("the Z3 and explicit engines disagree: a Z3 model selects no abstract execution".into());
                };
                let mut relations: Vec<(String, BitRel)> = Vec::new();
                for s in &searches {
                    for (rn, r) in s.relations() {
                        match relations.iter_mut().find(|(x, _)| *x == rn) {
                            Some(e) => e.1.union_with(&r),
                            None => relations.push((rn, r)),
                        }
                    }
                }
                let v = Visited { g, so, runs, relations };
                let before = refuted.get();
                let go_on = visit(&v);
                if !go_on {
                    return Ok(false);
                }
                if combos[ci].negated {
                    if refuted.get() == before {
                        return Err(format!(
                            "the Z3 and explicit engines disagree: Z3 refutes an obligation on an execution of {name} \
                             that the explicit check discharges"
                        ));
                    }
                    // one confirmed counterexample per abstract execution of the group
                    combos[ci].refuted = true;
                    enc.assert(&combos[ci].select.not());
                } else {
                    // no symbolic negation here (see `Judge::negate`): every execution
                    // is enumerated by Z3 and checked by `visit`
                    enc.block(&vals, &vars);
                }
            }
        };
        let r = explicit::for_each_plain_group(&p, &mut plain).map(|_| ());
        let mut guard = state.borrow_mut();
        let (rep, _, seen_abstract) = &mut *guard;
        seen_abstract.extend(abstract_seen);
        rep.abstract_executions = abs_before + seen_abstract.len() as u64;
        rep.plain_discharged += discharged.len() as u64;
        for methods in discharged {
            for m in &methods {
                if let Some(cells) = rep.cells.get_mut(m) {
                    for c in cells.values_mut() {
                        c.checked += 1;
                    }
                }
            }
        }
        r
    } else {
        if opts.every_execution {
            explicit::for_each_execution(&p, &mut visit).map(|_| ())
        } else {
            explicit::for_each_execution_discharging(&p, &mut visit, &mut discharge).map(|_| ())
        }
    };
    let (rep, _, _) = state.into_inner();
    if let Err(e) = res {
        err = Some(format!("implementation `{}` on {name}: {e}", imp.name));
    }
    if late.get() {
        rep.complete = false;
    }
    if let Some(e) = err {
        // Def. 3.9 (2)/(3) and expression errors surface here: W fails
        let ms: Vec<String> = rep.methods.clone();
        for m in &ms {
            if let Some(c) = rep.cells.get_mut(m).and_then(|c| c.get_mut(&Obligation::W)) {
                if c.failure.is_none() {
                    c.failure = Some(rep.failures.len());
                }
            }
        }
        rep.failures.push(Failure {
            obligation: Obligation::W,
            methods: ms,
            reason: e,
            client: format!("# {name}\n{text}"),
            execution: String::new(),
            dot: String::new(),
            involved: vec![],
        });
    }
    Ok(())
}

/// Shared by the visitor of executions and [`Discharge`]: the report, the
/// inferred map entries, the abstract executions seen.
type Shared<'r> = std::cell::RefCell<(
    &'r mut Report,
    &'r mut BTreeMap<(String, String), MapEntry>,
    std::collections::HashSet<Vec<Event>>,
)>;

/// The discharge test of the explicit engine
/// (`engine::for_each_execution_discharging`): a partial witness whose so already
/// makes every obligation hold settles all its completions. Sound because each
/// obligation is monotone in hb (O1 and O2 ask for hb paths; O3 with g⁻¹(hb) only
/// for specifications that do not mention hb, see the module comment) and the so
/// of a partial witness is contained in the so of each completion. Partial
/// witnesses where g would have to infer an image, or where L mentions hb
/// (`rbl_weak`), are not discharged: their executions are visited one by one.
struct Discharge<'j, 'a, 'r> {
    judge: &'j Judge<'a>,
    state: &'j Shared<'r>,
    /// The time limit: true once it has passed.
    past: &'j dyn Fn() -> bool,
}

impl explicit::Discharger for Discharge<'_, '_, '_> {
    fn holds(&mut self, v: &Visited) -> bool {
        let mut guard = self.state.borrow_mut();
        let (_, inferred, _) = &mut *guard;
        let abs = abstract_events(v);
        let abs_g = self.judge.abstract_graph(&abs);
        matches!(self.judge.judge(v, &abs, &abs_g, inferred, true), Judgement::Pass)
    }

    fn record(&mut self, v: &Visited) {
        let mut guard = self.state.borrow_mut();
        let (rep, _, seen_abstract) = &mut *guard;
        let abs = abstract_events(v);
        rep.executions += 1;
        rep.classes += 1;
        if seen_abstract.insert(abs.clone()) {
            rep.abstract_executions += 1;
        }
        let all_methods = self.judge.methods(&abs);
        for o in Obligation::ALL {
            rep.pass(o, &all_methods);
        }
    }

    /// The images of g (declared or same-stamp entries; those to be inferred are
    /// left out).
    fn relevant(&mut self, v: &Visited) -> Vec<usize> {
        let guard = self.state.borrow();
        let (_, inferred, _) = &*guard;
        let abs = abstract_events(v);
        let abs_g = self.judge.abstract_graph(&abs);
        (0..abs_g.len()).filter_map(|s| self.judge.image(v, &abs, &abs_g, s, inferred)).collect()
    }

    fn stop(&mut self) -> bool {
        (self.past)()
    }
}

/// What the obligations of one execution (or of every completion of a partial
/// witness) come to.
enum Judgement {
    /// Every obligation holds.
    Pass,
    /// Obligation `o` fails for `methods`: why, g as far as it was built, and the
    /// abstract subevents involved (for map inference).
    Fail { o: Obligation, methods: Vec<String>, why: String, gmap: Option<Vec<usize>>, subs: Vec<usize> },
    /// A dry run ([`Judge::judge`] with `dry`) met an abstract subevent whose image g
    /// would have to infer: decided per execution.
    Open,
}

/// What deciding the obligations of an execution needs: the implementation, the
/// stamp order, the declared map, the stamps O1 ranges over, and L.
struct Judge<'a> {
    setup: &'a Setup,
    to: &'a StampTable,
    map: &'a ConcMap,
    universe: &'a [Stamp],
    abs_lib: &'a dyn mowgli_core::Library,
    abs_world: &'a mowgli_core::World,
}

impl<'a> Judge<'a> {
    /// The stamped abstract execution graph of `abs`.
    fn abstract_graph(&self, abs: &[Event]) -> ExecGraph<'a> {
        let stmp = |e: &Event| self.abs_lib.stamps(self.abs_world, e);
        ExecGraph::new(self.abs_world, abs.to_vec(), &stmp, self.to)
    }

    fn method_of(&self, abs: &[Event], ai: usize) -> String {
        setup_method_name(self.abs_lib, &abs[ai])
    }

    /// The methods the abstract events call, sorted, once each.
    fn methods(&self, abs: &[Event]) -> Vec<String> {
        let mut ms: Vec<String> = (0..abs.len()).map(|ai| self.method_of(abs, ai)).collect();
        ms.sort();
        ms.dedup();
        ms
    }

    /// The alternatives f⁻¹ offers for the images of the abstract subevents `subs`
    /// (keyed by method and stamp kind).
    fn involved(
        &self,
        v: &Visited,
        abs: &[Event],
        abs_g: &ExecGraph,
        subs: &[usize],
    ) -> Vec<((String, String), Vec<MapEntry>)> {
        let mut out: Vec<((String, String), Vec<MapEntry>)> = Vec::new();
        for &s in subs {
            let ae = abs_g.subs[s].event;
            let key = (self.method_of(abs, ae), self.to.kinds[abs_g.subs[s].stamp.kind as usize].clone());
            if out.iter().any(|(k, _)| *k == key) {
                continue;
            }
            let pre = preimage(v.g, abs[ae].thread, abs[ae].index);
            out.push((key.clone(), maps::alternatives(&key.0, &key.1, v.g, &self.setup.owned, &pre, self.to)));
        }
        out
    }

    /// g(s) for abstract subevent `s` by a declared (or already inferred) entry or
    /// the same stamp; `None` when it would have to be inferred or has no image.
    fn image(
        &self,
        v: &Visited,
        abs: &[Event],
        abs_g: &ExecGraph,
        s: usize,
        inferred: &BTreeMap<(String, String), MapEntry>,
    ) -> Option<usize> {
        let ae = abs_g.subs[s].event;
        let a = abs_g.subs[s].stamp;
        let pre = preimage(v.g, abs[ae].thread, abs[ae].index);
        let m = self.method_of(abs, ae);
        let kind = self.to.kinds[a.kind as usize].clone();
        match self.map.get(&m, &kind).or_else(|| inferred.get(&(m, kind))) {
            Some(r) => maps::apply(r, v.g, &self.setup.owned, &pre, a, self.to),
            None => maps::same_stamp(v.g, &pre, a),
        }
    }

    /// The obligations of the execution `v` (abstracted to `abs`), with hb =
    /// (ppo ∪ so)⁺; images g must infer are inferred and added to `inferred`. With
    /// `dry` (a partial witness), no image is inferred — a subevent that would need
    /// one makes it [`Judgement::Open`], as does an L whose predicate mentions hb —
    /// and `inferred` is only read.
    fn judge(
        &self,
        v: &Visited,
        abs: &[Event],
        abs_g: &ExecGraph,
        inferred: &mut BTreeMap<(String, String), MapEntry>,
        dry: bool,
    ) -> Judgement {
        let to = self.to;
        let g = v.g;
        // L's witness search (O2/O3); a partial witness is not judged when L's
        // predicate mentions hb (O3 is then not monotone in hb)
        let mut search = self.abs_lib.search(abs_g, to, 0);
        if dry && search.needs_hb() {
            return Judgement::Open;
        }
        let mut hb = v.so.clone();
        hb.union_with(&g.ppo);
        hb.close_transitively();
        let mut hb_star = hb.clone();
        for s in 0..g.len() {
            hb_star.add(s, s);
        }
        let all_methods = self.methods(abs);
        let fail = |o, methods, why, gmap: Option<&[usize]>, subs| Judgement::Fail {
            o,
            methods,
            why,
            gmap: gmap.map(<[usize]>::to_vec),
            subs,
        };
        // O0
        if let Some((ai, why)) = o0_violation(v, abs, abs_g) {
            let ms = if ai < abs.len() { vec![self.method_of(abs, ai)] } else { all_methods };
            return fail(Obligation::O0, ms, why, None, vec![]);
        }
        // g, and O1 per abstract subevent
        let mut gmap = vec![usize::MAX; abs_g.len()];
        for s in 0..abs_g.len() {
            let ae = abs_g.subs[s].event;
            let a = abs_g.subs[s].stamp;
            let pre = preimage(g, abs[ae].thread, abs[ae].index);
            let m = self.method_of(abs, ae);
            let kind = to.kinds[a.kind as usize].clone();
            let rule = self.map.get(&m, &kind).or_else(|| inferred.get(&(m.clone(), kind.clone()))).cloned();
            let chosen = match &rule {
                Some(r) => maps::apply(r, g, &self.setup.owned, &pre, a, to),
                // default: the same stamp; else infer a rule that keeps to's promises here
                None => match maps::same_stamp(g, &pre, a) {
                    Some(s) => Some(s),
                    None if dry => return Judgement::Open,
                    None => match maps::infer(&m, &kind, g, &self.setup.owned, &pre, a, to, &|target| {
                        o1_violation(to, self.universe, g, &hb_star, &pre, a, target).is_none()
                    }) {
                        Some(entry) => {
                            let s = maps::apply(&entry, g, &self.setup.owned, &pre, a, to);
                            inferred.insert((m.clone(), kind.clone()), entry);
                            s
                        }
                        None => None,
                    },
                },
            };
            let Some(target) = chosen else {
                let why = match &rule {
                    Some(r) => format!(
                        "g({}) by `{}`: f⁻¹ of this call has no such subevent",
                        sub_name(abs_g, to, s),
                        r.render()
                    ),
                    None => format!(
                        "g({}): no subevent of the call's implementation keeps to's promises (no map entry declared, none inferred)",
                        sub_name(abs_g, to, s)
                    ),
                };
                return fail(Obligation::O1, vec![m], why, None, vec![s]);
            };
            gmap[s] = target;
            if let Some(why) = o1_violation(to, self.universe, g, &hb_star, &pre, a, target) {
                let why = format!("g({}) = {}: {why}", sub_name(abs_g, to, s), impl_sub(g, to, target));
                return fail(Obligation::O1, vec![m], why, Some(&gmap), vec![s]);
            }
        }
        // O2 / O3 over every L-witness of the abstract execution
        match check_witnesses(search.as_mut(), abs_g, &gmap, &hb, to, g) {
            WitnessVerdict::Ok => Judgement::Pass,
            WitnessVerdict::O2(why, a, b) => fail(Obligation::O2, all_methods, why, Some(&gmap), vec![a, b]),
            WitnessVerdict::O3(why) => {
                let every: Vec<usize> = (0..abs_g.len()).collect();
                fail(Obligation::O3, all_methods, why, Some(&gmap), every)
            }
        }
    }
}

impl Judge<'_> {
    /// ¬(O1 ∧ O2 ∧ O3) for the executions of the plain execution `g` (made of
    /// `runs`), as a formula over `enc`'s witness, with the abstract events and the
    /// methods they call. The abstract execution, f and g are fixed by the plain
    /// execution (g by the declared map or the same stamp; the L-witnesses of the
    /// abstract execution are enumerated here, they do not depend on the
    /// implementation's witness), so only hb varies:
    ///
    /// * O1 fails iff for some abstract subevent and stamp promise the required
    ///   entry (exit) points all lack an hb* path to (from) g's image: a closed
    ///   set (`Encoding::closed_set`) separating them;
    /// * O2 ∧ O3 hold iff some L-witness w (L's own conditions, ppo' ∪ so'
    ///   acyclic) has g(so'(w)) ⊆ hb — then hb' = g⁻¹(hb) is admissible and L is
    ///   not hb-dependent — so they fail iff every w has an so' edge whose image
    ///   is not in hb (one closed set per w).
    ///
    /// g is given by the declared map, then by the entries inferred so far
    /// (`inferred`), then by the same stamp. `None` when the execution is not of
    /// that shape: O0 fails, the map leaves a subevent without an image (the
    /// explicit path would infer one: once it has, later groups use the entry), or
    /// L's predicate mentions hb; the caller then enumerates executions instead.
    fn negate(
        &self,
        enc: &mut crate::engines::z3::Encoding,
        g: &ExecGraph,
        inferred: &BTreeMap<(String, String), MapEntry>,
        runs: &[&Unfolding],
    ) -> Option<(z3::ast::Bool, Vec<Event>, Vec<String>)> {
        use z3::ast::Bool;
        let to = self.to;
        let abs = abstract_events_of(runs);
        let stmp = |e: &Event| self.abs_lib.stamps(self.abs_world, e);
        let abs_g = ExecGraph::new(self.abs_world, abs.clone(), &stmp, to);
        let probe = Visited { g, so: BitRel::new(g.len()), runs: runs.to_vec(), relations: vec![] };
        if o0_violation(&probe, &abs, &abs_g).is_some() {
            return None;
        }
        let method_of = |ai: usize| setup_method_name(self.abs_lib, &abs[ai]);
        let mut methods: Vec<String> = (0..abs.len()).map(method_of).collect();
        methods.sort();
        methods.dedup();
        // g, and O1's requirements: (sources, sinks) with no hb* path allowed
        let mut gmap = vec![usize::MAX; abs_g.len()];
        let mut reqs: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
        for (s, image) in gmap.iter_mut().enumerate() {
            let ae = abs_g.subs[s].event;
            let a = abs_g.subs[s].stamp;
            let pre = preimage(g, abs[ae].thread, abs[ae].index);
            let kind = to.kinds[a.kind as usize].clone();
            let m = method_of(ae);
            let target = match self.map.get(&m, &kind).or_else(|| inferred.get(&(m.clone(), kind.clone()))) {
                Some(r) => maps::apply(r, g, &self.setup.owned, &pre, a, to),
                None => maps::same_stamp(g, &pre, a),
            }?;
            *image = target;
            for &a0 in self.universe {
                if to.ordered(a0, a) {
                    let entries = pre.iter().copied().filter(|&s1| to.ordered(a0, g.subs[s1].stamp)).collect();
                    reqs.push((entries, vec![target]));
                }
                if to.ordered(a, a0) {
                    let exits = pre.iter().copied().filter(|&s2| to.ordered(g.subs[s2].stamp, a0)).collect();
                    reqs.push((vec![target], exits));
                }
            }
        }
        let mut alts: Vec<Bool> = Vec::new();
        if !reqs.is_empty() {
            let cut = enc.closed_set();
            for (xs, ys) in &reqs {
                let sel = enc.fresh_bool("o1");
                let mut body: Vec<Bool> = xs.iter().map(|&x| cut[x].clone()).collect();
                body.extend(ys.iter().map(|&y| cut[y].not()));
                enc.assert(&sel.implies(Bool::and(&body)));
                alts.push(sel);
            }
        }
        // the L-witnesses of the abstract execution, by their so'
        let mut search = self.abs_lib.search(&abs_g, to, 0);
        if search.needs_hb() {
            return None;
        }
        let mut sos: Vec<Vec<(usize, usize)>> = Vec::new();
        let nv = search.num_vars();
        if (0..nv).all(|v| search.domain(v) > 0) {
            every_witness(search.as_mut(), &abs_g, 0, nv, &mut sos);
        }
        // O2 ∧ O3 fail: every witness has an so' edge whose image is not in hb. Per
        // witness, the images of its so' edges, less those ppo⁺ already orders (in
        // hb whatever the witness); a witness whose set contains another's adds
        // nothing (its clause follows), so only the ⊆-minimal sets are kept
        let ppo_plus = g.ppo.transitive_closure();
        let mut sets: Vec<Vec<(usize, usize)>> = sos
            .iter()
            .map(|so| {
                let mut e: Vec<(usize, usize)> = so
                    .iter()
                    .map(|&(a, b)| (gmap[a], gmap[b]))
                    .filter(|&(x, y)| x != y && !ppo_plus.contains(x, y))
                    .collect();
                e.sort();
                e.dedup();
                e
            })
            .collect();
        sets.sort_by_key(Vec::len);
        sets.dedup();
        let mut minimal: Vec<Vec<(usize, usize)>> = Vec::new();
        for s in sets {
            if !minimal.iter().any(|m| m.iter().all(|e| s.binary_search(e).is_ok())) {
                minimal.push(s);
            }
        }
        let mut every: Vec<Bool> = Vec::new();
        if !minimal.is_empty() && minimal.iter().all(|m| !m.is_empty()) {
            let mut distinct: Vec<(usize, usize)> = minimal.iter().flatten().copied().collect();
            distinct.sort();
            distinct.dedup();
            if minimal.len() <= distinct.len() {
                // one closed set per witness, one missing edge chosen in it
                for edges in &minimal {
                    let cut = enc.closed_set();
                    let mut some = Vec::new();
                    for &(x, y) in edges {
                        let sel = enc.fresh_bool("o2");
                        enc.assert(&sel.implies(Bool::and(&[cut[x].clone(), cut[y].not()])));
                        some.push(sel);
                    }
                    every.push(Bool::or(&some));
                }
            } else {
                // one closed set per distinct edge ("no hb path x → y"), shared
                for edges in &minimal {
                    let some: Vec<Bool> = edges.iter().map(|&(x, y)| enc.no_path(x, y)).collect();
                    every.push(Bool::or(&some));
                }
            }
        } else {
            // no witness at all (O3 fails whatever hb is), or one whose so' images
            // ppo already orders (O2 and O3 hold whatever the witness)
            every.push(Bool::from_bool(minimal.is_empty()));
        }
        alts.push(Bool::and(&every));
        Some((Bool::or(&alts), abs, methods))
    }
}

/// Every complete L-witness of `abs_g` with L's own conditions and ppo' ∪ so'
/// acyclic: its so' as pairs.
fn every_witness(
    search: &mut dyn WitnessSearch,
    abs_g: &ExecGraph,
    i: usize,
    n: usize,
    out: &mut Vec<Vec<(usize, usize)>>,
) {
    let mut so = BitRel::new(abs_g.len());
    if !search.check(&abs_g.ppo, &mut so) {
        return;
    }
    let mut least = so.clone();
    least.union_with(&abs_g.ppo);
    if !least.is_acyclic() {
        return;
    }
    if i == n {
        out.push(so.pairs().collect());
        return;
    }
    for val in 0..search.domain(i) {
        search.assign(i, Some(val));
        every_witness(search, abs_g, i + 1, n, out);
    }
    search.assign(i, None);
}

fn setup_method_name(lib: &dyn mowgli_core::Library, e: &Event) -> String {
    lib.methods().get(e.method).map(|m| m.name.to_string()).unwrap_or_else(|| format!("#{}", e.method))
}

/// The abstract execution, the implementation execution grouped by abstract call,
/// and g, as text.
fn render(setup: &Setup, v: &Visited, abs_g: &ExecGraph, gmap: Option<&[usize]>, to: &StampTable) -> String {
    use std::fmt::Write;
    let g = v.g;
    let abs_lib = &setup.low.libs[setup.lidx];
    let w = &setup.ctx.world;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "abstract execution (L = {}), each call with its implementation f⁻¹ (subevent numbers):",
        abs_lib.name()
    );
    for (ai, e) in abs_g.events.iter().enumerate() {
        let stamps: Vec<String> = abs_g.subs_of[ai].iter().map(|&s| to.stamp_name(abs_g.subs[s].stamp)).collect();
        let _ = writeln!(
            out,
            "  T{}#{} {}({}) = {}   [{}]",
            e.thread + 1,
            e.index,
            setup_method_name(abs_lib.as_ref(), e),
            e.args.iter().map(|a| w.show(a)).collect::<Vec<_>>().join(", "),
            w.show(&e.ret),
            stamps.join(", ")
        );
        for (ei, ce) in g.events.iter().enumerate() {
            if ce.thread != e.thread || ce.origin != Some(e.index) {
                continue;
            }
            let lib = setup.owned[ce.lib].as_ref();
            let ret = &v.runs[ce.thread].calls[ce.index].ret;
            let subs: Vec<String> = g.subs_of[ei].iter().map(|&s| impl_sub(g, to, s)).collect();
            let _ = writeln!(
                out,
                "      {}.{}({}) = {}   [{}]",
                lib.name(),
                setup_method_name(lib, ce),
                ce.args.iter().map(|a| w.show(a)).collect::<Vec<_>>().join(", "),
                w.show(ret),
                subs.join(", ")
            );
        }
    }
    if let Some(gm) = gmap {
        let _ = writeln!(out, "g:");
        for (s, &t) in gm.iter().enumerate() {
            if t != usize::MAX {
                let _ = writeln!(out, "  {} ↦ {}", sub_name(abs_g, to, s), impl_sub(g, to, t));
            }
        }
    }
    for (name, r) in &v.relations {
        if r.is_empty() {
            continue;
        }
        let pairs: Vec<String> =
            r.pairs().map(|(a, b)| format!("{} → {}", impl_sub(g, to, a), impl_sub(g, to, b))).collect();
        let _ = writeln!(out, "{name}: {}", pairs.join(", "));
    }
    out
}

/// The same as a DOT graph: abstract subevents on the left, implementation
/// subevents clustered by abstract call on the right, g as dashed edges, hb
/// (ppo ∪ so) inside the implementation.
fn dot(setup: &Setup, v: &Visited, abs_g: &ExecGraph, gmap: Option<&[usize]>, to: &StampTable) -> String {
    use std::fmt::Write;
    let g = v.g;
    let abs_lib = &setup.low.libs[setup.lidx];
    let mut out = String::from("digraph obligations {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n");
    let _ = writeln!(out, "  subgraph cluster_abstract {{ label=\"abstract ({})\";", abs_lib.name());
    for s in 0..abs_g.len() {
        let _ = writeln!(out, "    a{s} [label=\"{}\"];", sub_name(abs_g, to, s));
    }
    out.push_str("  }\n");
    for (ai, e) in abs_g.events.iter().enumerate() {
        let _ = writeln!(
            out,
            "  subgraph cluster_call{ai} {{ label=\"f⁻¹(T{}#{} {})\"; style=dashed;",
            e.thread + 1,
            e.index,
            setup_method_name(abs_lib.as_ref(), e)
        );
        for s in 0..g.len() {
            let ce = g.event_of(s);
            if ce.thread == e.thread && ce.origin == Some(e.index) {
                let _ = writeln!(out, "    c{s} [label=\"{}\"];", impl_sub(g, to, s));
            }
        }
        out.push_str("  }\n");
    }
    for (a, b) in v.so.pairs() {
        let _ = writeln!(out, "  c{a} -> c{b} [label=\"so\", color=blue];");
    }
    for (a, b) in g.ppo.pairs() {
        let _ = writeln!(out, "  c{a} -> c{b} [label=\"ppo\", color=gray];");
    }
    if let Some(gm) = gmap {
        for (s, &t) in gm.iter().enumerate() {
            if t != usize::MAX {
                let _ = writeln!(out, "  a{s} -> c{t} [style=dashed, color=darkgreen, label=\"g\"];");
            }
        }
    }
    out.push_str("}\n");
    out
}
