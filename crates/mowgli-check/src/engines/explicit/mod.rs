//! The explicit engine: enumerate the plain executions of a bounded program
//! (`⟦p̃⟧`, return values drawn from what the libraries can return), stamp them,
//! and search every library's witnesses jointly with a backtracking search that
//! prunes a partial witness as soon as a library's own conditions or the global
//! acyclicity of hb = (ppo ∪ so)⁺ (LOCO Def. 3.6) fail for it. Library conditions
//! are monotone in the witness, so pruning never loses a consistent execution.
//!
//! Since every library predicate is monotone (Def. 3.5), a Λ-consistent execution
//! exists iff one exists with the least hb, (ppo ∪ so)⁺; that is the hb used here.
mod domains;
mod problem;
mod search;
mod whole;

pub use problem::*;
use search::*;
pub use whole::{with_whole_program, WholeFn, WholeProgram};

use std::collections::BTreeSet;
use std::time::Instant;

use rustc_hash::FxHashMap;

use mowgli_core::program::{CallRecord, Unfolding};
use mowgli_core::{BitRel, Event, ExecGraph, Value};

/// The unfoldings of one thread that differ only in the values returned by calls
/// whose return value the library can leave open ([`Library::symbolic_return`]):
/// one search covers them all, and the values the witness gives those calls pick
/// the unfolding (and so the registers) back out.
struct Group {
    /// An unfolding of the group (its calls, with the open values ignored).
    rep: usize,
    /// Open return values, in program order → the unfolding that returned them.
    /// (open return values — a value may be `Value::OneOf` alternatives — , unfolding)
    by_values: Vec<(Vec<Value>, usize)>,
}

fn group_runs(p: &Problem, runs: &[&Unfolding]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    // a run's calls with the open return values left out
    type Key<'r> = Vec<(usize, usize, &'r [Value], Option<&'r Value>, Option<usize>)>;
    let mut index: FxHashMap<Key, usize> = FxHashMap::default();
    for (i, r) in runs.iter().enumerate() {
        let mut key: Key = Vec::with_capacity(r.calls.len());
        let mut open = Vec::new();
        for c in &r.calls {
            let sym = p.libs[c.lib].symbolic_return(c.method);
            if sym {
                open.push(c.ret.clone());
            }
            key.push((c.lib, c.method, &c.args, (!sym).then_some(&c.ret), c.origin));
        }
        let g = *index.entry(key).or_insert_with(|| {
            groups.push(Group { rep: i, by_values: Vec::new() });
            groups.len() - 1
        });
        groups[g].by_values.push((open, i));
    }
    groups
}

/// Computes outcome_Λ(p̃) by explicit enumeration.
pub fn run(p: &Problem, keep_witnesses: bool) -> Result<Results, EngineError> {
    run_goal(p, keep_witnesses, Goal::All, None, None)
}

/// What a run looks for.
#[derive(Clone, Copy)]
enum Goal<'r> {
    /// Every outcome.
    All,
    /// The outcomes whose registers are not in the set ([`run_outside`]); with
    /// `true`, only the first one found ([`first_outside`]).
    Outside(&'r BTreeSet<Regs>, bool),
    /// The outcomes whose registers are in the set ([`run_among_given`]); the
    /// run stops once it has found them all.
    Among(&'r BTreeSet<Regs>),
    /// One consistent execution, any ([`has_execution`]), within a budget of
    /// candidates.
    Any(u64),
    /// Every consistent execution, shown to a visitor ([`for_each_execution`]).
    /// (The visitor itself travels beside the goal.)
    Visit,
}

/// Sees a consistent execution; returns whether to go on.
pub type VisitFn<'v> = dyn FnMut(&Visited) -> bool + 'v;

/// A property of executions that is monotone in the witness (once it holds for a
/// partial witness's so, it holds for every completion: the local-soundness
/// obligations are, in hb), for [`for_each_execution_discharging`]. Each method
/// sees a *partial* witness: its so is a lower bound of the so of every
/// completion, every open return value is already decided (so [`Visited::runs`]
/// is), and [`Visited::relations`] is empty.
pub trait Discharger {
    /// Whether the property holds for every consistent completion of `v`.
    fn holds(&mut self, v: &Visited) -> bool;
    /// A subtree [`Discharger::holds`] accepted contains a consistent execution.
    fn record(&mut self, v: &Visited);
    /// The subevents the property is about: the witness variables that decide
    /// their relations are searched before the others, so that a subtree can be
    /// discharged as soon as they are fixed.
    fn relevant(&mut self, v: &Visited) -> Vec<usize>;
    /// Whether the whole search should stop now (e.g. a time limit), asked at
    /// every discharge test.
    fn stop(&mut self) -> bool {
        false
    }
}

/// A consistent execution of a program: the plain execution's stamped graph (open
/// return values are in [`Visited::runs`]), the witness's so, and, per thread, the
/// unfolding the execution takes (its calls with their return values, and with an
/// implementation the abstract calls, LOCO Def. 3.11).
pub struct Visited<'v> {
    pub g: &'v ExecGraph<'v>,
    /// so = ⋃_L so_L of the witness; hb = (ppo ∪ so)⁺.
    pub so: BitRel,
    pub runs: Vec<&'v Unfolding>,
    /// Named witness relations (rf, mo, nfo, …) for reports.
    pub relations: Vec<(String, BitRel)>,
    /// The outcome of a complete execution (registers of the unfoldings taken and
    /// the final memory the libraries report); `None` for a partial witness.
    pub outcome: Option<Outcome>,
}

/// Shows every consistent execution of `p` (every witness: rf, mo, nfo, …) to
/// `visit`, until it returns false. Returns the search statistics.
pub fn for_each_execution(p: &Problem, visit: &mut VisitFn) -> Result<Stats, EngineError> {
    Ok(run_goal(p, false, Goal::Visit, Some(visit), None)?.stats)
}

/// [`for_each_execution`] for a property that is monotone in the witness (once it
/// holds for a partial witness's so, it holds for every larger so, as the
/// local-soundness obligations do in hb): the witness variables that decide return
/// values are searched first, then those about the subevents `discharge` names
/// relevant, then the rest. Once the return values are decided, and at every
/// choice after the relevant variables, `discharge` is asked about the partial
/// witness; when the property holds, the subtree is not visited (only checked to
/// contain a consistent execution: [`Stats::discharged`] counts such subtrees).
/// Executions that are visited are those no partial witness discharged.
pub fn for_each_execution_discharging(
    p: &Problem,
    visit: &mut VisitFn,
    discharge: &mut dyn Discharger,
) -> Result<Stats, EngineError> {
    Ok(run_goal(p, false, Goal::Visit, Some(visit), Some(discharge))?.stats)
}

/// Register outcomes (one register vector per thread).
pub type Regs = Vec<Vec<Option<Value>>>;

/// Products of per-thread register sets larger than this are not screened by
/// [`run_outside`] (the search then covers every plain execution).
const MAX_SCREENED: usize = 1 << 16;

/// The outcomes of `p` whose registers are not in `allowed`, by explicit
/// enumeration (exact on those; outcomes in `allowed` are found only by chance).
///
/// Screening: a plain execution's registers are those of the unfoldings it
/// combines, one per thread, so every outcome's registers lie in the product of
/// the per-thread register sets of the terminating unfoldings. Combinations in
/// `allowed` need no search; an unfolding whose registers take part in no other
/// combination is dropped before the witness search. If nothing is left, no
/// execution is searched at all. Outcomes of the kept unfoldings are still all
/// found. During the witness search, once the witness variables that decide the
/// registers are fixed, a register outcome in `allowed` is not completed (its
/// existential variables are not searched).
pub fn run_outside(p: &Problem, keep_witnesses: bool, allowed: &BTreeSet<Regs>) -> Result<Results, EngineError> {
    run_goal(p, keep_witnesses, Goal::Outside(allowed, false), None, None)
}

/// [`run_outside`] that stops at the first outcome outside `allowed` (the result
/// then has at most one outcome, with [`Results::stopped`] set when it has one).
pub fn first_outside(p: &Problem, keep_witnesses: bool, allowed: &BTreeSet<Regs>) -> Result<Results, EngineError> {
    run_goal(p, keep_witnesses, Goal::Outside(allowed, true), None, None)
}

/// Whether `p` has a consistent execution at all (the search stops at the first).
pub fn has_execution(p: &Problem) -> Result<bool, EngineError> {
    Ok(!run_goal(p, false, Goal::Any(u64::MAX), None, None)?.outcomes.is_empty())
}

/// [`has_execution`] with at most `budget` candidates checked: `None` when the
/// budget ran out before an execution was found or the space was exhausted.
pub fn has_execution_within(p: &Problem, budget: u64) -> Result<Option<bool>, EngineError> {
    Ok(found_within(&run_goal(p, false, Goal::Any(budget), None, None)?))
}

/// What a [`Goal::Any`] run says: found one, found none, or ran out of budget.
fn found_within(r: &Results) -> Option<bool> {
    if !r.outcomes.is_empty() {
        Some(true)
    } else if r.stopped {
        None
    } else {
        Some(false)
    }
}

/// The threads' unfoldings of a problem, computed once (e.g. by the last round
/// of a value-domain fixpoint, with the problem's final domain) and searched by
/// several runs ([`run_given`], [`first_outside_given`],
/// [`has_execution_within_given`]). They must be what [`unfold_thread`] gives
/// for the problem searched.
pub type Unfolded = mowgli_core::program::Unfolded;

/// [`run`] on unfoldings computed before.
pub fn run_given(p: &Problem, given: &[Unfolded], keep_witnesses: bool) -> Result<Results, EngineError> {
    run_goal_given(p, Some(given), keep_witnesses, Goal::All, None, None)
}

/// [`first_outside`] on unfoldings computed before.
pub fn first_outside_given(
    p: &Problem,
    given: &[Unfolded],
    keep_witnesses: bool,
    allowed: &BTreeSet<Regs>,
) -> Result<Results, EngineError> {
    run_goal_given(p, Some(given), keep_witnesses, Goal::Outside(allowed, true), None, None)
}

/// [`has_execution_within`] on unfoldings computed before.
pub fn has_execution_within_given(p: &Problem, given: &[Unfolded], budget: u64) -> Result<Option<bool>, EngineError> {
    Ok(found_within(&run_goal_given(p, Some(given), false, Goal::Any(budget), None, None)?))
}

/// The outcomes of `p` whose registers are in `wanted`, by explicit enumeration
/// on unfoldings computed before (exact on those; other outcomes are found only
/// by chance). Screened like [`run_outside`], with the combinations in `wanted`
/// as the targets; the run stops once every combination of `wanted` is found.
pub fn run_among_given(p: &Problem, given: &[Unfolded], wanted: &BTreeSet<Regs>) -> Result<Results, EngineError> {
    run_goal_given(p, Some(given), false, Goal::Among(wanted), None, None)
}

/// Every register outcome the threads' terminating unfoldings can combine (the
/// product of the per-thread register sets): a superset of the outcomes of
/// `p`; `None` when it has more than [`MAX_SCREENED`] combinations.
pub fn register_combinations(given: &[Unfolded]) -> Option<BTreeSet<Regs>> {
    let envs: Vec<Vec<&Vec<Option<Value>>>> = given
        .iter()
        .map(|u| {
            let s: BTreeSet<&Vec<Option<Value>>> = u.runs.iter().filter(|r| r.breaks == 0).map(|r| &r.env).collect();
            s.into_iter().collect()
        })
        .collect();
    envs.iter().try_fold(1usize, |acc, e| acc.checked_mul(e.len()).filter(|&n| n <= MAX_SCREENED))?;
    let mut out: BTreeSet<Regs> = BTreeSet::new();
    if envs.iter().any(|e| e.is_empty()) {
        return Some(out);
    }
    let mut idx = vec![0usize; envs.len()];
    loop {
        out.insert(idx.iter().enumerate().map(|(t, &i)| envs[t][i].clone()).collect());
        let mut t = 0;
        loop {
            if t == idx.len() {
                return Some(out);
            }
            idx[t] += 1;
            if idx[t] < envs[t].len() {
                break;
            }
            idx[t] = 0;
            t += 1;
        }
    }
}

/// Most register combinations outside the allowed set that partial-outcome
/// pruning tracks (beyond that it is off; the search stays exact).
const MAX_TARGETS: usize = 4096;

/// The register combinations a [`Goal::Outside`] search is after, by index: per
/// thread, the distinct register vectors of its unfoldings and each kept
/// unfolding's index among them; the combinations outside the allowed set.
struct Targets {
    env_of_run: Vec<Vec<usize>>,
    n_envs: Vec<usize>,
    combos: Vec<Vec<usize>>,
}

/// Screening, in one pass over the product of the per-thread register sets:
/// keeps, per thread, the unfoldings whose registers take part in a combination
/// outside `allowed`, and returns how many were dropped with the targets of
/// partial-outcome pruning (`None` when there are more than [`MAX_TARGETS`]).
/// Returns `None` when the product is too large to screen.
fn screen(per_thread: &mut [Vec<&Unfolding>], target: &dyn Fn(&Regs) -> bool) -> Option<(usize, Option<Targets>)> {
    let envs: Vec<Vec<Vec<Option<Value>>>> = per_thread
        .iter()
        .map(|runs| {
            let s: BTreeSet<&Vec<Option<Value>>> = runs.iter().map(|r| &r.env).collect();
            s.into_iter().cloned().collect()
        })
        .collect();
    let total = envs.iter().try_fold(1usize, |acc, e| acc.checked_mul(e.len()).filter(|&n| n <= MAX_SCREENED))?;
    let mut needed: Vec<Vec<bool>> = envs.iter().map(|e| vec![false; e.len()]).collect();
    let mut combos: Option<Vec<Vec<usize>>> = Some(Vec::new());
    let mut idx = vec![0usize; envs.len()];
    let mut combo: Regs = envs.iter().map(|e| e[0].clone()).collect();
    for _ in 0..total {
        if target(&combo) {
            for (t, &i) in idx.iter().enumerate() {
                needed[t][i] = true;
            }
            if let Some(cs) = &mut combos {
                if cs.len() == MAX_TARGETS {
                    combos = None;
                } else {
                    cs.push(idx.clone());
                }
            }
        }
        for t in 0..idx.len() {
            idx[t] += 1;
            if idx[t] < envs[t].len() {
                combo[t] = envs[t][idx[t]].clone();
                break;
            }
            idx[t] = 0;
            combo[t] = envs[t][0].clone();
        }
    }
    let mut screened = 0;
    let mut env_of_run = Vec::with_capacity(per_thread.len());
    for (t, runs) in per_thread.iter_mut().enumerate() {
        let before = runs.len();
        runs.retain(|r| envs[t].binary_search(&r.env).is_ok_and(|i| needed[t][i]));
        screened += before - runs.len();
        env_of_run.push(runs.iter().map(|r| envs[t].binary_search(&r.env).unwrap_or(0)).collect());
    }
    let targets = combos.map(|combos| Targets { env_of_run, n_envs: envs.iter().map(|e| e.len()).collect(), combos });
    Some((screened, targets))
}

fn run_goal<'q, 'd>(
    p: &Problem,
    keep_witnesses: bool,
    goal: Goal<'q>,
    visit: Option<&mut VisitFn>,
    discharge: Option<&mut (dyn Discharger + 'd)>,
) -> Result<Results, EngineError> {
    run_goal_given(p, None, keep_witnesses, goal, visit, discharge)
}

/// [`run_goal`] on the threads' unfoldings `given` (computed for `p` before), or
/// on its own when `None`.
fn run_goal_given<'q, 'd>(
    p: &Problem,
    given: Option<&[Unfolded]>,
    keep_witnesses: bool,
    goal: Goal<'q>,
    mut visit: Option<&mut VisitFn>,
    mut discharge: Option<&mut (dyn Discharger + 'd)>,
) -> Result<Results, EngineError> {
    let start = Instant::now();
    let mut res = Results::default();
    // ⟦p_t⟧_t for every thread
    // (the threads `given` does not cover are unfolded here)
    let given = given.or(p.unfolded.as_deref().map(Vec::as_slice));
    let covered = given.map_or(0, <[Unfolded]>::len).min(p.threads.len());
    let own: Vec<Unfolded> = (covered..p.threads.len()).map(|t| unfold_thread(p, t)).collect::<Result<_, _>>()?;
    let mut per_thread: Vec<Vec<&Unfolding>> = Vec::new();
    for t in 0..p.threads.len() {
        let u = match given.and_then(|g| g.get(t)) {
            Some(u) => u,
            None => &own[t - covered],
        };
        res.bound_hit |= u.bound_hit;
        res.stats.stuck += u.stuck as u64;
        if res.stuck_msg.is_none() {
            res.stuck_msg = u.stuck_msg.clone();
        }
        // only properly terminating runs (break number 0)
        per_thread.push(u.runs.iter().filter(|r| r.breaks == 0).collect::<Vec<_>>());
    }
    if per_thread.iter().any(|r| r.is_empty()) {
        res.stats.micros = start.elapsed().as_micros();
        return Ok(res);
    }
    let mut targets = None;
    let target: Option<&dyn Fn(&Regs) -> bool> = match goal {
        Goal::Outside(allowed, _) => Some(&|c| !allowed.contains(c)),
        Goal::Among(wanted) => Some(&|c| wanted.contains(c)),
        _ => None,
    };
    if let Some(target) = target {
        if let Some((n, t)) = screen(&mut per_thread, target) {
            res.stats.screened = n as u64;
            targets = t;
            if per_thread.iter().any(|r| r.is_empty()) {
                res.stats.micros = start.elapsed().as_micros();
                return Ok(res);
            }
        }
    }
    let groups: Vec<Vec<Group>> = per_thread.iter().map(|runs| group_runs(p, runs)).collect();
    each_group(&per_thread, &groups, p, &mut |events, sym, sym_vals, chosen| {
        if p.deadline.is_some_and(|d| Instant::now() >= d) {
            res.limit = Some(search::TIME_LIMIT.to_string());
            return false;
        }
        res.stats.plain += chosen.iter().map(|g| g.by_values.len() as u64).product::<u64>();
        res.stats.searches += 1;
        let env = Env { runs: &per_thread, groups: chosen, keep: keep_witnesses, goal, targets: targets.as_ref() };
        search_plain(p, events, sym, sym_vals, &env, visit.as_deref_mut(), discharge.as_deref_mut(), &mut res);
        let found_one = matches!(goal, Goal::Any(_)) && !res.outcomes.is_empty();
        res.backend_error.is_none() && res.limit.is_none() && !found_one && !res.stopped
    });
    if let Some(e) = res.backend_error.take() {
        return Err(EngineError::Backend(e));
    }
    if let Some(why) = res.limit.take() {
        return Err(EngineError::Limit(why));
    }
    res.stats.micros = start.elapsed().as_micros();
    Ok(res)
}

/// Sees one combination of the threads' groups: its events (open return values as
/// `Unit`), which of them have open return values, the values each may take, and
/// the groups; returns whether to go on.
type GroupVisit<'f> = dyn FnMut(Vec<Event>, Vec<bool>, Vec<Option<Vec<Value>>>, &[&Group]) -> bool + 'f;

/// Every combination of one group per thread (the plain executions that differ
/// only in open return values, searched together), until `f` returns false.
fn each_group(per_thread: &[Vec<&Unfolding>], groups: &[Vec<Group>], p: &Problem, f: &mut GroupVisit) {
    let mut choice = vec![0usize; per_thread.len()];
    loop {
        let mut events = Vec::new();
        let mut sym = Vec::new();
        for (t, runs) in per_thread.iter().enumerate() {
            for (i, c) in runs[groups[t][choice[t]].rep].calls.iter().enumerate() {
                let CallRecord { lib, method, args, ret, origin } = c.clone();
                let open = p.libs[lib].symbolic_return(method);
                sym.push(open);
                let ret = if open { Value::Unit } else { ret };
                events.push(Event { thread: t, index: i, lib, method, args, ret, origin });
            }
        }
        let chosen: Vec<&Group> = groups.iter().zip(&choice).map(|(g, &c)| &g[c]).collect();
        // the values each open return value may take in the group (union over its unfoldings)
        let mut sym_vals: Vec<Option<Vec<Value>>> = Vec::with_capacity(sym.len());
        for (t, grp) in chosen.iter().enumerate() {
            let mut k = 0;
            for c in &per_thread[t][grp.rep].calls {
                if p.libs.get(c.lib).is_some_and(|l| l.symbolic_return(c.method)) {
                    let mut vs: BTreeSet<Value> = BTreeSet::new();
                    for (pat, _) in &grp.by_values {
                        match &pat[k] {
                            Value::OneOf(alts) => vs.extend(alts.iter().cloned()),
                            v => {
                                vs.insert(v.clone());
                            }
                        }
                    }
                    sym_vals.push(Some(vs.into_iter().collect()));
                    k += 1;
                } else {
                    sym_vals.push(None);
                }
            }
        }
        if !f(events, sym, sym_vals, &chosen) {
            return;
        }
        // next combination
        let mut t = 0;
        loop {
            if t == choice.len() {
                return;
            }
            choice[t] += 1;
            if choice[t] < groups[t].len() {
                break;
            }
            choice[t] = 0;
            t += 1;
        }
    }
}

/// Per thread, the unfoldings of a group with the open return values that pick
/// each out (in program order; a value may be `Value::OneOf` alternatives).
pub type Alternatives<'u> = Vec<Vec<(&'u [Value], &'u Unfolding)>>;

/// Sees a group of plain executions and its alternatives; returns whether to go on.
pub type PlainGroupFn<'f> = dyn FnMut(&ExecGraph, &Alternatives) -> Result<bool, String> + 'f;

/// Calls `f` on every group of plain executions of `p` that differ only in open
/// return values ([`Library::symbolic_return`]): the stamped graph with those
/// values left open (`ExecGraph::sym_ret`, `ExecGraph::sym_vals`), and per thread
/// the unfoldings with the values that select them. Until `f` returns `Ok(false)`
/// or an error.
pub fn for_each_plain_group(p: &Problem, f: &mut PlainGroupFn) -> Result<(), EngineError> {
    let all = unfold_threads(p)?;
    let Some(per_thread) = terminating(&all) else { return Ok(()) };
    let groups: Vec<Vec<Group>> = per_thread.iter().map(|runs| group_runs(p, runs)).collect();
    let mut err = None;
    each_group(&per_thread, &groups, p, &mut |events, sym, sym_vals, chosen| {
        let mut g = graph(p, events);
        g.sym_ret = sym;
        g.sym_vals = sym_vals;
        let alts: Alternatives = chosen
            .iter()
            .enumerate()
            .map(|(t, grp)| grp.by_values.iter().map(|(pat, r)| (pat.as_slice(), per_thread[t][*r])).collect())
            .collect();
        match f(&g, &alts) {
            Ok(go_on) => go_on,
            Err(e) => {
                err = Some(e);
                false
            }
        }
    });
    match err {
        Some(e) => Err(EngineError::Backend(e)),
        None => Ok(()),
    }
}

/// The stamped execution graph of a plain execution: subevents from each library's
/// stamping function, ppo from `to` (not between two subevents of a library that
/// orders its own subevents, see [`Library::own_program_order`]).
pub fn graph<'w>(p: &'w Problem, events: Vec<Event>) -> ExecGraph<'w> {
    let stmp = |e: &Event| p.libs[e.lib].stamps(&p.world, e);
    let mut g = ExecGraph::new(&p.world, events, &stmp, p.to);
    let own: Vec<bool> = p.libs.iter().map(|l| l.own_program_order()).collect();
    if own.iter().any(|o| *o) {
        let lib_of: Vec<usize> = g.subs.iter().map(|s| g.events[s.event].lib).collect();
        g.ppo = g.ppo.filter(|a, b| !(lib_of[a] == lib_of[b] && own[lib_of[a]]));
    }
    g
}

/// Calls `f` on the stamped graph of every plain execution of `p` (every
/// combination of the threads' unfoldings), without searching witnesses.
pub fn for_each_graph(p: &Problem, f: &mut dyn FnMut(&ExecGraph)) -> Result<(), EngineError> {
    each_combination(p, &mut |events, _| {
        f(&graph(p, events));
        Ok(true)
    })
}

/// Per thread, its terminating unfoldings among `all`; `None` when a thread has
/// none (the program has no plain execution).
fn terminating(all: &[Unfolded]) -> Option<Vec<Vec<&Unfolding>>> {
    let per_thread: Vec<Vec<&Unfolding>> =
        all.iter().map(|u| u.runs.iter().filter(|r| r.breaks == 0).collect()).collect();
    (!per_thread.iter().any(|r| r.is_empty())).then_some(per_thread)
}

type CombinationFn<'f> = dyn FnMut(Vec<Event>, &[&Unfolding]) -> Result<bool, String> + 'f;

/// Every combination of the threads' terminating unfoldings, as its events (in
/// thread and program order) and the unfoldings, until `f` returns `Ok(false)`.
fn each_combination(p: &Problem, f: &mut CombinationFn) -> Result<(), EngineError> {
    let all = unfold_threads(p)?;
    let Some(per_thread) = terminating(&all) else { return Ok(()) };
    let mut choice = vec![0usize; per_thread.len()];
    loop {
        let mut events = Vec::new();
        for (t, runs) in per_thread.iter().enumerate() {
            for (i, c) in runs[choice[t]].calls.iter().enumerate() {
                let CallRecord { lib, method, args, ret, origin } = c.clone();
                events.push(Event { thread: t, index: i, lib, method, args, ret, origin });
            }
        }
        let runs: Vec<&Unfolding> = per_thread.iter().zip(&choice).map(|(r, &c)| r[c]).collect();
        if !f(events, &runs).map_err(EngineError::Backend)? {
            return Ok(());
        }
        let mut t = 0;
        loop {
            if t == choice.len() {
                return Ok(());
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
