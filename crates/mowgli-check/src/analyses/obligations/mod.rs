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

pub mod auto;
mod drive;
mod judge;
pub mod observe;
mod render;
pub use render::sections;
pub mod spec;
mod symbolic;
mod whole;
mod witsets;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analyses::refine::{prepare_parsed, Prepared};
use crate::engines::explicit;
use crate::lang::implementation::Implementation;
use crate::lang::maps::{ConcMap, MapEntry};
use crate::lang::syntax;
use drive::check_one;

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
    /// Its name, and its (threads, most calls in a thread, nodes, calls) (see
    /// [`dimensions`]).
    #[serde(skip)]
    pub program: (String, (usize, usize, usize, usize)),
    /// The abstract program as the parsed test that was checked (what
    /// [`observe::observe_all`] adds observer calls to).
    #[serde(skip)]
    pub test: Option<syntax::Litmus>,
    /// The abstract execution, the implementation execution grouped by abstract
    /// call, and g between them.
    pub execution: String,
    pub dot: String,
    /// The same as a graph (`--html`), the refuted edge highlighted.
    #[serde(skip)]
    pub graph: Option<mowgli_draw::Graph>,
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
#[derive(Clone, Debug, Default, Serialize)]
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
    /// With the Z3 engine: the groups of plain executions (one query each), and
    /// those whose goal the relation analysis of the encoding already decided
    /// (unsatisfiable before any solver call: the must edges of hb make every
    /// obligation hold).
    pub z3_queries: u64,
    pub z3_static: u64,
    /// With the Z3 engine: abstract executions whose ¬(O2 ∧ O3) was stated as a
    /// witness tree selected by the read-back through g (more than
    /// [`Options::z3_tree_above`] flat clauses), and the models of those trees the
    /// explicit check did not confirm (each refined by the clause of the witness it
    /// found).
    pub z3_trees: u64,
    pub z3_refined: u64,
    /// With `--z3-whole`: whole-program queries (one per program with more than
    /// one group of plain executions), the groups their models named (each then
    /// checked by the per-group path), and the programs left to the per-group path
    /// entirely (`whole`'s module comment).
    pub z3_whole_queries: u64,
    pub z3_whole_models: u64,
    pub z3_whole_fallbacks: u64,
    /// With `--z3-whole`: groups whose own predicate differs from the union's on
    /// their subevents (`whole::same_on`), checked per group.
    pub z3_whole_differing: u64,
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
    /// With `--engine auto`: how the programs were split between the engines.
    pub split: Option<auto::EngineSplit>,
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
    /// The engine that checked it, and how long it took.
    pub engine: &'static str,
    pub millis: f64,
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
    /// `--engine auto`: per abstract program, the engine the costs measured on its
    /// shape say is cheaper ([`auto`]); `backend` is then ignored.
    pub auto: bool,
    /// `auto`: a shape's mean explicit time (ms) above which Z3 is tried on it
    /// (default [`auto::TRY_Z3_MS`]).
    pub auto_try_z3_ms: Option<f64>,
    /// `auto`: the least budget of a run (ms; default [`auto::BUDGET_MIN_MS`] under
    /// Z3, [`auto::EXPLICIT_BUDGET_MIN_MS`] under the explicit engine);
    /// small values force the portfolio to switch engines (tests).
    pub auto_budget_min_ms: Option<f64>,
    /// Z3: state ¬(O2 ∧ O3) as a witness tree when it has more than this many
    /// flat clauses (default [`symbolic::TREE_ABOVE`]; 0: always).
    pub z3_tree_above: Option<usize>,
    /// Z3: guard the witness tree by nothing instead of the read-back through g
    /// (every model of the tree is then refined lazily; to test the refinement).
    pub z3_no_read_back: bool,
    /// Z3: one query per abstract program over the union of its groups of plain
    /// executions, each event guarded by its path condition ([`whole`]), instead
    /// of one query per group.
    pub z3_whole: bool,
    /// Told each refutation the moment it is final (it does not depend on a map
    /// entry still being searched), with the milliseconds since the run started.
    pub on_failure: Option<OnFailure>,
}

/// A refutation's identity across map-repair rounds: obligation, methods, program.
type FailureKey = (Obligation, Vec<String>, String);

/// See [`Options::on_failure`].
pub type OnFailure = std::sync::Arc<dyn Fn(&Failure, f64) + Send + Sync>;

/// An abstract program: its name and the test the generator built (text only
/// where it is shown: a refutation's program, `--observe-out`).
pub type Program = (String, syntax::Litmus);

/// Every abstract program over L = `imp.implements` up to `bounds` (L's calls
/// only, with or without registers), smallest first, as parsed tests:
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
) -> Result<Vec<Program>, String> {
    Ok(abstract_programs_until(imp, order, bounds, None)?.0)
}

/// [`abstract_programs`], stopped when `deadline` passes (a run's time limit):
/// the programs generated by then, and whether they are all of the bound's.
pub fn abstract_programs_until(
    imp: &Implementation,
    order: &mowgli_core::StampOrder,
    bounds: &crate::analyses::refine::gen::Bounds,
    deadline: Option<std::time::Instant>,
) -> Result<(Vec<Program>, bool), String> {
    let (mut out, whole) = spec::programs_until(&imp.implements, order, &imp.catalogue, bounds, "abs", deadline)?;
    out.sort_by_cached_key(|(_, t)| dimensions(t));
    Ok((out, whole))
}

/// (threads, most statements in one thread, nodes, total statements) of a
/// program (a generated program's statements are its calls).
pub fn dimensions(t: &syntax::Litmus) -> (usize, usize, usize, usize) {
    let nodes: std::collections::BTreeSet<i64> = t.threads.iter().map(|(_, n)| *n).collect();
    let mut calls: BTreeMap<&str, usize> = BTreeMap::new();
    for (thread, body) in &t.bodies {
        *calls.entry(thread.text.as_str()).or_default() += body.len();
    }
    let most = calls.values().copied().max().unwrap_or(0);
    (t.threads.len(), most, nodes.len(), calls.values().sum())
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
    clients: &[Program],
    map: &ConcMap,
    opts: &Options,
) -> Result<Report, String> {
    let start = std::time::Instant::now();
    // LOCO App. F.4: a library that orders its own subevents (RDMA^TSO) has no so/hb
    // presentation to compose with, and Thm. 3.14 does not apply to its implementations
    for u in &imp.uses {
        if imp.catalogue.library(u, order).is_ok_and(|l| l.own_program_order()) {
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
    // the report of a run: the entries pinned by repairs are inferred ones
    let finish = |mut rep: Report, pinned: &[MapEntry]| -> Report {
        for e in pinned {
            if !rep.inferred.contains(e) {
                rep.inferred.push(e.clone());
            }
        }
        rep.map = map.entries.clone();
        rep.millis = start.elapsed().as_secs_f64() * 1000.0;
        rep.first_failure_ms = told.lock().ok().and_then(|t| t.1);
        rep
    };
    // a repair round stops at its first repairable refutation (the bound is checked
    // whole once the map no longer changes); after a repair that found nothing,
    // one last round checks the whole bound with the refutation as final
    let mut last_round = false;
    // the report of the last round that stopped at a repairable refutation: how
    // far the run got, should the time limit pass during its repair
    let mut repaired: Option<Report> = None;
    loop {
        if opts.time_limit.is_some_and(|t| start.elapsed() >= t) {
            if let Some(mut rep) = repaired.take() {
                drop_failures(&mut rep, &repairable);
                rep.complete = false;
                return Ok(finish(rep, &pinned));
            }
        }
        let mut current = map.clone();
        current.entries.extend(pinned.iter().cloned());
        // the time limit covers the whole check, repairs included
        let outer = opts;
        let left = Options { time_limit: opts.time_limit.map(|t| t.saturating_sub(start.elapsed())), ..opts.clone() };
        let opts = &left;
        let stop: Option<&dyn Fn(&Failure) -> bool> = if last_round { None } else { Some(&repairable) };
        let rep = run(imp, order, &mut clients.iter().cloned(), &current, opts, stop, &|f: &Failure| {
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
            return Ok(finish(rep, &pinned));
        };
        // the refutation to repair is kept, the round's report moved (not copied)
        let f = f.clone();
        repaired = Some(rep);
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
                // each trial within what is left of the run's time limit (not
                // the round's: the trials of one round are many)
                let remaining = outer.time_limit.map(|t| t.saturating_sub(start.elapsed()));
                if remaining.is_some_and(|r| r.is_zero()) {
                    break;
                }
                let trial_opts = Options { time_limit: remaining, ..opts.clone() };
                let one = run(imp, order, &mut std::iter::once(client.clone()), &trial, &trial_opts, None, &|_| {})?;
                // progress: this program discharged, or its first refutation now
                // involves other entries (repaired in the next round); a trial
                // stopped by the time limit tells neither
                let keys = |f: &Failure| f.involved.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
                match one.failures.first() {
                    None if !one.complete => break,
                    None => {
                        found = Some(choice);
                        break;
                    }
                    Some(g) => {
                        if progress_choice.is_none()
                            && keys(g) != keys(&f)
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

/// Drops from `rep` the failures `drop` says are not final (a repair would have
/// tried another map entry), with the cells' and programs' references to them.
fn drop_failures(rep: &mut Report, drop: &dyn Fn(&Failure) -> bool) {
    let mut new_index = Vec::with_capacity(rep.failures.len());
    let mut kept = 0;
    for f in &rep.failures {
        new_index.push((!drop(f)).then(|| {
            kept += 1;
            kept - 1
        }));
    }
    rep.failures.retain(|f| !drop(f));
    for row in rep.cells.values_mut() {
        for c in row.values_mut() {
            c.failure = c.failure.and_then(|i| new_index.get(i).copied().flatten());
        }
    }
    for p in &mut rep.programs {
        p.failures = p.failures.iter().filter_map(|&i| new_index.get(i).copied().flatten()).collect();
    }
}

/// Checks the programs `clients` in order. `stop`: the run stops after a program
/// with a refutation it accepts (the rest of the bound unchecked); `found` is told
/// each refutation as it is recorded.
fn run(
    imp: &Implementation,
    order: &mowgli_core::StampOrder,
    clients: &mut dyn Iterator<Item = Program>,
    map: &ConcMap,
    opts: &Options,
    stop: Option<&dyn Fn(&Failure) -> bool>,
    found: &dyn Fn(&Failure),
) -> Result<Report, String> {
    let start = std::time::Instant::now();
    let to = order.table("to").ok_or("the stamp order has no table `to`")?;
    let lib = imp.catalogue.library(&imp.implements, order).map_err(|e| e.to_string())?;
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
        map: map.entries.clone(),
        complete: true,
        ..Report::default()
    };
    let mut costs = auto::CostModel::default();
    if let Some(ms) = opts.auto_try_z3_ms {
        costs.try_z3_ms = ms;
    }
    let mut inferred: BTreeMap<(String, String), MapEntry> = BTreeMap::new();
    for (index, (name, test)) in clients.enumerate() {
        let stopped = stop.is_some_and(|s| rep.failures.iter().any(s));
        if opts.time_limit.is_some_and(|t| start.elapsed() >= t)
            || (opts.first_fail && !rep.failures.is_empty())
            || stopped
        {
            rep.complete = false;
            break;
        }
        // the program's text, for its refutations' reports only
        let text = crate::lang::print::print(&test);
        let setup = match prepare_parsed(imp, order, &name, &test, &|| text.clone()).map_err(|e| e.to_string())? {
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
        let t0 = std::time::Instant::now();
        let engine = if opts.auto {
            // a portfolio: every run bounded, the other engine on expiry (`auto`)
            let min = opts.auto_budget_min_ms;
            let mut attempt = |backend, until, rep: &mut Report, inferred: &mut BTreeMap<_, _>| {
                let chosen = Options { backend, ..opts.clone() };
                check_one(imp, &setup, to, &name, &text, map, inferred, &chosen, until, rep)
            };
            auto::portfolio(&mut costs, &auto::shape(&test), deadline, min, &mut rep, &mut inferred, &mut attempt)?
        } else {
            check_one(imp, &setup, to, &name, &text, map, &mut inferred, opts, deadline, &mut rep)?;
            opts.backend
        };
        let ms = t0.elapsed().as_secs_f64() * 1000.0;
        for f in &mut rep.failures[before.4..] {
            f.program = (name.clone(), dimensions(&test));
            f.test = Some(test.clone());
        }
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
            engine: if engine == explicit::Backend::Z3 { "z3" } else { "explicit" },
            millis: ms,
            checked,
            failures: (before.4..rep.failures.len()).collect(),
        });
    }
    rep.inferred = inferred.into_values().collect();
    if opts.auto {
        rep.split = Some(costs.split);
    }
    rep.millis = start.elapsed().as_secs_f64() * 1000.0;
    Ok(rep)
}
