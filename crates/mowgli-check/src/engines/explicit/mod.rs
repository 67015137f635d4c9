//! The explicit engine: enumerate the plain executions of a bounded program
//! (`⟦p̃⟧`, return values drawn from what the libraries can return), stamp them,
//! and search every library's witnesses jointly with a backtracking search that
//! prunes a partial witness as soon as a library's own conditions or the global
//! acyclicity of hb = (ppo ∪ so)⁺ (LOCO Def. 3.6) fail for it. Library conditions
//! are monotone in the witness, so pruning never loses a consistent execution.
//!
//! Since every library predicate is monotone (Def. 3.5), a Λ-consistent execution
//! exists iff one exists with the least hb, (ppo ∪ so)⁺; that is the hb used here.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use mowgli_core::library::FinalValue;
use mowgli_core::program::{unfold_with, CallRecord, EvalCtx, Hooks, Prog, UnfoldError, Unfolding};
use mowgli_core::{BitRel, Event, ExecGraph, Library, NodeId, StampTable, Value, ValueDomain, World};

/// An event without its return value and with only its location/identifier arguments.
type Skeleton = (usize, usize, usize, Vec<Value>);

/// A bounded program over a set Λ of libraries.
pub struct Problem<'a> {
    pub world: World,
    pub libs: Vec<&'a dyn Library>,
    /// One body per thread (index = thread id) and its number of registers.
    pub threads: Vec<(Prog, usize)>,
    /// The stamp order `to`.
    pub to: &'a StampTable,
    pub loop_bound: usize,
    /// Values every location may hold (an over-approximation).
    pub domain: ValueDomain,
    /// Prune partial witnesses (the default). Without it every complete
    /// candidate is checked: the naive enumerator, kept to test the pruning.
    pub prune: bool,
    /// Visit every consistent execution. Without it (the default, enough for
    /// outcomes) the search stops at the first consistent choice of the existential
    /// witness variables and skips them for outcomes already found.
    pub all_executions: bool,
    /// The implementation substituted for an abstract library (LOCO §3.5), if any.
    pub inline: Option<Inline<'a>>,
    /// Cells whose every write (over all unfoldings) is a CPU write of one thread:
    /// a symbolic read of such a cell by that thread returns the thread's last
    /// write to it (or the initial value) in any consistent execution — a read may
    /// not miss an own earlier write nor see a later one (RDMA^WAIT: ippo and rb_i
    /// in ib; sv: [aCR]; (po⁻¹ ∩ rb); [aCW] = ∅ and ppo ∪ so acyclic) — so the
    /// unfolding offers only that value.
    pub own_cells: HashMap<mowgli_core::library::Cell, usize>,
    /// Outcomes are the registers only (final memory values are left out): the
    /// witness variables that cannot change a returned value (e.g. coherence
    /// order, see [`mowgli_core::WitnessSearch::affects_returns`]) become
    /// existential. Refinement compares registers only.
    pub regs_only: bool,
    /// Which engine searches the witnesses of each plain execution.
    pub backend: Backend,
}

/// The engine that searches the witnesses of a plain execution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
pub enum Backend {
    /// Backtracking over the witness variables with each library's own check.
    #[default]
    Explicit,
    /// Z3 over each library's predicate as data ([`crate::engines::z3`]); every model is
    /// checked again by the explicit predicates.
    Z3,
}

/// An implementation to substitute while unfolding: calls of library `lib` (an
/// index no library of [`Problem::libs`] has) run the body of their method.
pub struct Inline<'a> {
    pub lib: usize,
    /// Per abstract method: body (calls numbered as in [`Problem::libs`]), registers, name.
    pub methods: Vec<Option<(Prog, usize, String)>>,
    pub ctx: &'a dyn EvalCtx,
}

/// Sees each call an unfolding makes, with its position in the thread.
type Observer<'o> = dyn FnMut(usize, &CallRecord) + 'o;

struct EngineHooks<'p, 'a, 'o> {
    p: &'p Problem<'a>,
    thread: usize,
    observe: Option<&'o mut Observer<'o>>,
}

impl Hooks for EngineHooks<'_, '_, '_> {
    fn observe(&mut self, position: usize, call: &CallRecord) {
        if let Some(o) = &mut self.observe {
            o(position, call);
        }
    }
    fn symbolic(&self, lib: usize, method: usize) -> bool {
        self.p.libs.get(lib).is_some_and(|l| l.symbolic_return(method))
    }
    fn returns(&mut self, lib: usize, method: usize, args: &[Value], history: &[CallRecord]) -> Vec<Value> {
        let l = self.p.libs[lib];
        if !self.p.own_cells.is_empty() && l.symbolic_return(method) {
            if let Some(c) = l.read_cell(&self.p.world, self.thread, method, args) {
                if self.p.own_cells.get(&c) == Some(&self.thread) {
                    for h in history.iter().rev() {
                        let hl = self.p.libs[h.lib];
                        if let Some((_, Some(v))) = hl
                            .written_cells(&self.p.world, self.thread, h.method, &h.args)
                            .into_iter()
                            .find(|(hc, _)| *hc == c)
                        {
                            return vec![v];
                        }
                    }
                    return vec![self.p.world.locs[c.0].init.clone()];
                }
            }
        }
        l.returns_after(&self.p.world, self.thread, lib, history, method, args, &self.p.domain)
    }
    fn implement(&mut self, lib: usize, method: usize, _args: &[Value]) -> Option<(Prog, usize, String)> {
        let i = self.p.inline.as_ref()?;
        if lib != i.lib {
            return None;
        }
        i.methods.get(method).cloned().flatten()
    }
    fn ctx(&self) -> &dyn EvalCtx {
        match &self.p.inline {
            Some(i) => i.ctx,
            None => &mowgli_core::program::NoCtx,
        }
    }
    fn check(&mut self, lib: usize, method: usize, args: &[Value]) -> Result<(), String> {
        let l = self.p.libs.get(lib).ok_or_else(|| format!("call of an unknown library #{lib}"))?;
        if method >= l.methods().len() {
            return Err(format!("library `{}` has no method #{method}", l.name()));
        }
        // argument kinds, then the library's own checks (nodes, sizes)
        for (a, k) in args.iter().zip(&l.methods()[method].params) {
            let ok = match k {
                mowgli_core::Param::Loc | mowgli_core::Param::Src => {
                    matches!(a, Value::Loc(x) if *x < self.p.world.locs.len())
                }
                mowgli_core::Param::Wid => matches!(a, Value::Wid(_)),
                mowgli_core::Param::Node => matches!(a, Value::Node(n) if self.p.world.nodes.contains(n)),
                mowgli_core::Param::Nodes => matches!(a, Value::Nodes(_)),
                mowgli_core::Param::Obj => matches!(a, Value::Obj(_)),
                mowgli_core::Param::Val => true,
            };
            if !ok {
                return Err(format!(
                    "`{}.{}`: argument {} is not a {k:?}",
                    l.name(),
                    l.methods()[method].name,
                    self.p.world.show(a)
                ));
            }
        }
        l.check_call(&self.p.world, self.thread, method, args)
            .map_err(|m| format!("`{}.{}`: {m}", l.name(), l.methods()[method].name))
    }
}

/// `⟦p_t⟧_t` (with the implementation substituted, if any).
pub fn unfold_thread(p: &Problem, t: usize) -> Result<mowgli_core::program::Unfolded, EngineError> {
    let (prog, nregs) = &p.threads[t];
    let mut h = EngineHooks { p, thread: t, observe: None };
    Ok(unfold_with(prog, t, *nregs, p.loop_bound, &mut h)?)
}

/// [`unfold_thread`], showing every call made while unfolding (with its position
/// in the thread), including those of runs that are dropped later.
pub fn unfold_thread_observing(
    p: &Problem,
    t: usize,
    observe: &mut dyn FnMut(usize, &CallRecord),
) -> Result<mowgli_core::program::Unfolded, EngineError> {
    let (prog, nregs) = &p.threads[t];
    let mut h = EngineHooks { p, thread: t, observe: Some(observe) };
    Ok(unfold_with(prog, t, *nregs, p.loop_bound, &mut h)?)
}

/// An outcome: every thread's registers and every touched memory cell's final value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Outcome {
    pub regs: Vec<Vec<Option<Value>>>,
    /// (location, copy node for replicated locations) → final value.
    pub finals: BTreeMap<(usize, Option<NodeId>), Value>,
}

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Stats {
    /// Plain executions covered (each search covers the plain executions that
    /// differ only in open return values, see [`Library::symbolic_return`]).
    pub plain: u64,
    /// Witness searches run (one per group of plain executions).
    pub searches: u64,
    /// Candidates checked for consistency: partial witnesses (pruning points) and
    /// complete ones.
    pub candidates: u64,
    /// Of those, complete witnesses.
    pub complete: u64,
    /// Unfoldings that stopped at an expression error (no execution; see
    /// `Unfolded::stuck`).
    pub stuck: u64,
    /// Complete candidates a naive enumeration (every rf × mo × nfo product of
    /// every plain execution) would check.
    pub naive: f64,
    /// Consistent executions visited (all of them with
    /// [`Problem::all_executions`]; otherwise at least one per outcome).
    pub consistent: u64,
    /// Unfoldings dropped before the search because every outcome they take part
    /// in is already allowed ([`run_outside`]).
    pub screened: u64,
    /// Partial witnesses dropped because every outcome they can still reach is
    /// allowed ([`run_outside`]).
    pub pruned_by_target: u64,
    /// Subtrees of the witness search cut by a discharge test
    /// ([`for_each_execution_discharging`]): partial witnesses under which the
    /// visitor's property already holds for every completion, each with at least
    /// one consistent completion.
    pub discharged: u64,
    pub micros: u128,
}

/// A consistent execution, kept as an example for an outcome.
#[derive(Clone, Debug)]
pub struct Witness {
    pub events: Vec<Event>,
    /// Per thread, the abstract calls the events implement (`Event::origin` indexes
    /// them), when the program is an implementation.
    pub abstract_calls: Vec<Vec<CallRecord>>,
    pub relations: Vec<(String, Vec<(usize, usize)>)>,
    pub subevents: Vec<(usize, String)>,
}

#[derive(Clone, Debug, Default)]
pub struct Results {
    pub outcomes: BTreeMap<Outcome, Option<Witness>>,
    /// Consistent executions found per outcome: all of them with
    /// [`Problem::all_executions`] (herd7's Positive/Negative counts), otherwise
    /// at least one per outcome.
    pub executions: BTreeMap<Outcome, u64>,
    pub stats: Stats,
    /// Some loop hit the unrolling bound: the result is bounded.
    pub bound_hit: bool,
    /// The first expression error that stopped an unfolding.
    pub stuck_msg: Option<String>,
    /// The search stopped early: a visitor asked to ([`for_each_execution`]), a
    /// budget ran out ([`has_execution_within`]) or a first outcome was found
    /// ([`first_outside`]).
    pub stopped: bool,
    /// The Z3 engine could not take the problem, or found a model the explicit
    /// predicates reject.
    backend_error: Option<String>,
    skeletons: std::collections::HashSet<Vec<Skeleton>>,
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Unfold(#[from] UnfoldError),
    #[error("{0}")]
    Backend(String),
}

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

fn group_runs(p: &Problem, runs: &[Unfolding]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut index: HashMap<Vec<CallRecord>, usize> = HashMap::new();
    for (i, r) in runs.iter().enumerate() {
        let mut key = r.calls.clone();
        let mut open = Vec::new();
        for c in &mut key {
            if p.libs[c.lib].symbolic_return(c.method) {
                open.push(std::mem::replace(&mut c.ret, Value::Unit));
            }
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
    let r = run_goal(p, false, Goal::Any(budget), None, None)?;
    Ok(if !r.outcomes.is_empty() {
        Some(true)
    } else if r.stopped {
        None
    } else {
        Some(false)
    })
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
fn screen(per_thread: &mut [Vec<Unfolding>], allowed: &BTreeSet<Regs>) -> Option<(usize, Option<Targets>)> {
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
        if !allowed.contains(&combo) {
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
    mut visit: Option<&mut VisitFn>,
    mut discharge: Option<&mut (dyn Discharger + 'd)>,
) -> Result<Results, EngineError> {
    let start = Instant::now();
    let mut res = Results::default();
    // ⟦p_t⟧_t for every thread
    let mut per_thread = Vec::new();
    for t in 0..p.threads.len() {
        let u = unfold_thread(p, t)?;
        res.bound_hit |= u.bound_hit;
        res.stats.stuck += u.stuck as u64;
        if res.stuck_msg.is_none() {
            res.stuck_msg = u.stuck_msg;
        }
        // only properly terminating runs (break number 0)
        per_thread.push(u.runs.into_iter().filter(|r| r.breaks == 0).collect::<Vec<_>>());
    }
    if per_thread.iter().any(|r| r.is_empty()) {
        res.stats.micros = start.elapsed().as_micros();
        return Ok(res);
    }
    let mut targets = None;
    if let Goal::Outside(allowed, _) = goal {
        if let Some((n, t)) = screen(&mut per_thread, allowed) {
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
        res.stats.plain += chosen.iter().map(|g| g.by_values.len() as u64).product::<u64>();
        res.stats.searches += 1;
        let env = Env { runs: &per_thread, groups: chosen, keep: keep_witnesses, goal, targets: targets.as_ref() };
        search_plain(p, events, sym, sym_vals, &env, visit.as_deref_mut(), discharge.as_deref_mut(), &mut res);
        let found_one = matches!(goal, Goal::Any(_)) && !res.outcomes.is_empty();
        res.backend_error.is_none() && !found_one && !res.stopped
    });
    if let Some(e) = res.backend_error.take() {
        return Err(EngineError::Backend(e));
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
fn each_group(per_thread: &[Vec<Unfolding>], groups: &[Vec<Group>], p: &Problem, f: &mut GroupVisit) {
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
    let Some(per_thread) = terminating_runs(p)? else { return Ok(()) };
    let groups: Vec<Vec<Group>> = per_thread.iter().map(|runs| group_runs(p, runs)).collect();
    let mut err = None;
    each_group(&per_thread, &groups, p, &mut |events, sym, sym_vals, chosen| {
        let mut g = graph(p, events);
        g.sym_ret = sym;
        g.sym_vals = sym_vals;
        let alts: Alternatives = chosen
            .iter()
            .enumerate()
            .map(|(t, grp)| grp.by_values.iter().map(|(pat, r)| (pat.as_slice(), &per_thread[t][*r])).collect())
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

/// Per thread, its terminating unfoldings; `None` when a thread has none (the
/// program has no plain execution).
fn terminating_runs(p: &Problem) -> Result<Option<Vec<Vec<Unfolding>>>, EngineError> {
    let mut per_thread = Vec::new();
    for t in 0..p.threads.len() {
        let u = unfold_thread(p, t)?;
        per_thread.push(u.runs.into_iter().filter(|r| r.breaks == 0).collect::<Vec<_>>());
    }
    Ok((!per_thread.iter().any(|r| r.is_empty())).then_some(per_thread))
}

type CombinationFn<'f> = dyn FnMut(Vec<Event>, &[&Unfolding]) -> Result<bool, String> + 'f;

/// Every combination of the threads' terminating unfoldings, as its events (in
/// thread and program order) and the unfoldings, until `f` returns `Ok(false)`.
fn each_combination(p: &Problem, f: &mut CombinationFn) -> Result<(), EngineError> {
    let Some(per_thread) = terminating_runs(p)? else { return Ok(()) };
    let mut choice = vec![0usize; per_thread.len()];
    loop {
        let mut events = Vec::new();
        for (t, runs) in per_thread.iter().enumerate() {
            for (i, c) in runs[choice[t]].calls.iter().enumerate() {
                let CallRecord { lib, method, args, ret, origin } = c.clone();
                events.push(Event { thread: t, index: i, lib, method, args, ret, origin });
            }
        }
        let runs: Vec<&Unfolding> = per_thread.iter().zip(&choice).map(|(r, &c)| &r[c]).collect();
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

/// A search node is checked for consistency after a real choice only when the
/// subtree below it still has at least this many complete candidates: checking
/// smaller subtrees costs more checks than it can save.
const CHECK_MIN_SUBTREE: f64 = 4.0;

/// With a discharge test, the variables that can change a returned value are
/// searched first only when they have at most this many combinations: beyond that,
/// fixing them all before the others (whose choices prune theirs) costs more than
/// discharging can save, and the usual order is kept (the test is then asked once
/// they are all fixed, wherever the order puts the last one).
const MAX_DECIDING: f64 = 65536.0;

/// What a witness search needs to know of the plain executions it covers.
struct Env<'e, 'q> {
    runs: &'e [Vec<Unfolding>],
    groups: &'e [&'e Group],
    keep: bool,
    goal: Goal<'q>,
    targets: Option<&'e Targets>,
}

#[allow(clippy::too_many_arguments)]
fn search_plain<'d>(
    p: &Problem,
    events: Vec<Event>,
    sym: Vec<bool>,
    sym_vals: Vec<Option<Vec<Value>>>,
    env: &Env,
    visit: Option<&mut VisitFn>,
    discharge: Option<&mut (dyn Discharger + 'd)>,
    res: &mut Results,
) {
    let Env { runs, groups, keep, goal, targets } = *env;
    let mut g = graph(p, events);
    g.sym_ret = sym;
    g.sym_vals = sym_vals;
    let g = g;
    let mut searches: Vec<_> = p.libs.iter().enumerate().map(|(i, l)| l.search(&g, p.to, i)).collect();
    let mut vars = Vec::new();
    for (li, s) in searches.iter().enumerate() {
        for v in 0..s.num_vars() {
            vars.push((li, v));
        }
    }
    // the naive enumerator derives values from rf (as herd does), so it meets each
    // event skeleton once, not once per plain execution
    let shape = |v: &Value| match v {
        Value::Loc(_) | Value::Node(_) | Value::Nodes(_) | Value::Wid(_) | Value::Obj(_) => v.clone(),
        _ => Value::Unit,
    };
    let skeleton: Vec<_> =
        g.events.iter().map(|e| (e.thread, e.lib, e.method, e.args.iter().map(shape).collect())).collect();
    if res.skeletons.insert(skeleton) {
        res.stats.naive += searches.iter().map(|s| s.naive_count()).product::<f64>();
    }
    // smallest domains first: binary choices (nfo orientations, the second write of a
    // cell) are often decided by the fixed part of the order (e.g. ippo), and checking
    // them near the root prunes the largest subtrees
    // existential variables (consistency only, see `WitnessSearch::existential`) come
    // last: once the others are fixed the outcome is known, and unless every
    // execution is wanted one consistent completion of it is enough
    let existential = |l: usize, v: usize| {
        if p.regs_only {
            !searches[l].affects_returns(v)
        } else {
            searches[l].existential(v)
        }
    };
    vars.sort_by_key(|&(l, v)| (existential(l, v), searches[l].domain(v)));
    let boundary = vars.iter().position(|&(l, v)| existential(l, v)).unwrap_or(vars.len());
    // a read whose value no write (nor the initial value) can supply: this plain
    // execution has no witness at all, and a naive rf-first enumerator never builds it
    if vars.iter().any(|&(l, v)| searches[l].domain(v) == 0) {
        return;
    }
    // with a discharge test: first the variables with a single value consistent on
    // their own (forced, e.g. by ppo: no branching, and their edges prune the rest),
    // then those that can change a returned value (the test needs the plain
    // execution decided) or are about a subevent the test names relevant, then the
    // others — a subtree is discharged as soon as the first two parts are fixed
    let mut relevant_end = vars.len();
    let mut discharge = discharge;
    let deciding: f64 = vars
        .iter()
        .filter(|&&(l, v)| searches[l].affects_returns(v))
        .map(|&(l, v)| searches[l].domain(v) as f64)
        .product();
    if let Some(d) = discharge.as_deref_mut().filter(|_| deciding <= MAX_DECIDING) {
        let mut relevant = vec![false; g.len()];
        // the relevant subevents of every unfolding of the group (each thread's
        // images depend on its own unfolding only)
        for t in 0..groups.len() {
            for (_, r) in &groups[t].by_values {
                let runs_t: Vec<&Unfolding> =
                    (0..groups.len()).map(|u| &runs[u][if u == t { *r } else { groups[u].rep }]).collect();
                let v = Visited { g: &g, so: BitRel::new(g.len()), runs: runs_t, relations: Vec::new() };
                for s in d.relevant(&v) {
                    if s < relevant.len() && g.event_of(s).thread == t {
                        relevant[s] = true;
                    }
                }
            }
        }
        let about_relevant =
            |subs: Vec<usize>| !subs.is_empty() && subs.iter().all(|&s| relevant.get(s).copied().unwrap_or(false));
        // ((not forced, late, domain), variable)
        type Keyed = ((bool, bool, usize), (usize, usize));
        let mut keyed: Vec<Keyed> = Vec::with_capacity(vars.len());
        for &(l, v) in &vars {
            let forced = searches[l].domain(v) < 2 || {
                let mut ok = 0;
                for val in 0..searches[l].domain(v) {
                    searches[l].assign(v, Some(val));
                    if check_all(&g, &mut searches) {
                        ok += 1;
                    }
                }
                searches[l].assign(v, None);
                ok <= 1
            };
            let early = forced || searches[l].affects_returns(v) || about_relevant(searches[l].var_subevents(v));
            keyed.push(((!forced, !early, searches[l].domain(v)), (l, v)));
        }
        keyed.sort_by_key(|k| k.0);
        relevant_end = keyed.iter().position(|k| k.0 .1).unwrap_or(keyed.len());
        vars = keyed.into_iter().map(|k| k.1).collect();
    }
    let decided = vars.iter().rposition(|&(l, v)| searches[l].affects_returns(v)).map_or(0, |k| k + 1);
    if p.backend == Backend::Z3 {
        let boundary = if p.all_executions || matches!(goal, Goal::Visit) { vars.len() } else { boundary };
        let mut st = SearchState {
            g: &g,
            to: p.to,
            runs,
            groups,
            keep,
            res,
            prune: p.prune,
            subtree: vec![],
            boundary,
            regs_only: p.regs_only,
            goal,
            targets: None,
            visit,
            discharge: None,
            decided,
            reordered: None,
        };
        z3_search(&mut st, &mut searches, &vars, p);
        return;
    }
    // subtree[i]: complete candidates below a node where variables 0..i are assigned
    let mut subtree = vec![1f64; vars.len() + 1];
    for i in (0..vars.len()).rev() {
        let (l, v) = vars[i];
        subtree[i] = subtree[i + 1] * searches[l].domain(v) as f64;
    }
    let boundary = if p.all_executions || !p.prune || matches!(goal, Goal::Visit) { vars.len() } else { boundary };
    let boundary = if matches!(goal, Goal::Any(_)) { 0 } else { boundary };
    let mut st = SearchState {
        g: &g,
        to: p.to,
        runs,
        groups,
        keep,
        res,
        prune: p.prune,
        subtree,
        boundary,
        regs_only: p.regs_only,
        goal,
        targets,
        visit,
        discharge,
        decided,
        reordered: Some(relevant_end.max(decided)),
    };
    dfs(&mut st, &mut searches, &vars, 0);
}

/// The witnesses of one plain execution found by Z3 ([`crate::engines::z3`]): each model is
/// assigned to the explicit searches, checked by them (a model they reject is a
/// disagreement, reported as an error) and recorded like a leaf of [`dfs`]; then
/// its values of the variables before the boundary are blocked.
fn z3_search(
    st: &mut SearchState,
    searches: &mut [Box<dyn mowgli_core::WitnessSearch + '_>],
    vars: &[(usize, usize)],
    p: &Problem,
) {
    let mut specs = Vec::with_capacity(searches.len());
    for (l, s) in searches.iter().enumerate() {
        match s.relspec() {
            Some(r) => specs.push(r),
            None => {
                st.res.backend_error =
                    Some(crate::engines::z3::Z3Error::Unsupported(p.libs[l].name().into()).to_string());
                return;
            }
        }
    }
    let enc = crate::engines::z3::Encoding::new(st.g, &specs);
    let which = &vars[..st.boundary];
    loop {
        let vals = match enc.next() {
            Ok(Some(v)) => v,
            Ok(None) => return,
            Err(e) => {
                st.res.backend_error = Some(e.to_string());
                return;
            }
        };
        for &(l, v) in vars {
            searches[l].assign(v, Some(vals[l][v]));
        }
        st.res.stats.candidates += 1;
        st.res.stats.complete += 1;
        if !check_all(st.g, searches) {
            st.res.backend_error = Some(format!(
                "the Z3 engine and the explicit engine disagree: a Z3 model (witness variables {vals:?}) is \
                 not consistent for the explicit predicates"
            ));
            return;
        }
        leaf(st, searches);
        if st.res.stopped || (matches!(st.goal, Goal::Any(_)) && !st.res.outcomes.is_empty()) {
            return;
        }
        enc.block(&vals, which);
    }
}

struct SearchState<'s, 'g, 'q, 'v, 'd> {
    g: &'s ExecGraph<'g>,
    runs: &'s [Vec<Unfolding>],
    groups: &'s [&'s Group],
    keep: bool,
    res: &'s mut Results,
    to: &'s StampTable,
    prune: bool,
    subtree: Vec<f64>,
    /// Variables from this index on are existential.
    boundary: usize,
    /// Outcomes without final memory values ([`Problem::regs_only`]).
    regs_only: bool,
    goal: Goal<'q>,
    targets: Option<&'s Targets>,
    visit: Option<&'s mut VisitFn<'v>>,
    /// The discharge test of [`for_each_execution_discharging`].
    discharge: Option<&'s mut (dyn Discharger + 'd)>,
    /// Variables from this index on cannot change a return value.
    decided: usize,
    /// With a discharge test: the variables from this index on are neither forced,
    /// nor able to change a returned value, nor about a relevant subevent; the
    /// test is asked at every choice from here on (and at [`SearchState::decided`]).
    reordered: Option<usize>,
}

/// Partial-outcome pruning for [`Goal::Outside`]: the return values the partial
/// witness already decides leave, per thread, some unfoldings of the group
/// searched; if every register combination they can still make is allowed, no
/// completion of the witness can give a wanted outcome.
fn may_reach_target(st: &SearchState, searches: &[Box<dyn mowgli_core::WitnessSearch + '_>]) -> bool {
    let Some(tg) = st.targets else { return true };
    let g = st.g;
    let mut values: Vec<Vec<Option<Value>>> = vec![Vec::new(); st.groups.len()];
    for (ei, e) in g.events.iter().enumerate() {
        if g.sym_ret[ei] {
            values[e.thread].push(searches[e.lib].returned(ei));
        }
    }
    let mut compat: Vec<Vec<bool>> = tg.n_envs.iter().map(|&n| vec![false; n]).collect();
    for (t, grp) in st.groups.iter().enumerate() {
        for (pat, r) in &grp.by_values {
            let fits = pat.len() == values[t].len()
                && pat.iter().zip(&values[t]).all(|(p, v)| v.as_ref().is_none_or(|v| p.admits(v)));
            if fits {
                compat[t][tg.env_of_run[t][*r]] = true;
            }
        }
    }
    tg.combos.iter().any(|c| c.iter().enumerate().all(|(t, &e)| compat[t][e]))
}

/// Λ-consistency of the current partial witness (LOCO Def. 3.6).
fn check_all(g: &ExecGraph, searches: &mut [Box<dyn mowgli_core::WitnessSearch + '_>]) -> bool {
    mowgli_core::library::lambda_consistent(g, searches).is_some()
}

/// Returns whether a consistent complete witness was found below this node.
fn dfs(
    st: &mut SearchState,
    searches: &mut [Box<dyn mowgli_core::WitnessSearch + '_>],
    vars: &[(usize, usize)],
    i: usize,
) -> bool {
    // one consistency check per node that follows a real choice (a variable with a
    // single value is forced, so its check is left to the next choice) and roots a
    // subtree big enough for pruning to pay, and at every leaf
    let after_choice = i > 0 && {
        let (l, v) = vars[i - 1];
        searches[l].domain(v) > 1
    };
    let at_boundary = i == st.boundary && i < vars.len();
    if (after_choice && st.prune && (st.subtree[i] >= CHECK_MIN_SUBTREE || at_boundary)) || i == vars.len() {
        st.res.stats.candidates += 1;
        if let Goal::Any(budget) = st.goal {
            if st.res.stats.candidates > budget {
                st.res.stopped = true;
                return false;
            }
        }
        if i == vars.len() {
            st.res.stats.complete += 1;
        }
        if !check_all(st.g, searches) {
            return false;
        }
        if i <= st.boundary && !may_reach_target(st, searches) {
            st.res.stats.pruned_by_target += 1;
            return false;
        }
    }
    if i == vars.len() {
        return leaf(st, searches);
    }
    let past_relevant = st.reordered.is_some_and(|r| i >= r);
    if st.discharge.is_some()
        && i >= st.decided
        && (i == st.decided || (after_choice && past_relevant))
        && st.subtree[i] >= 2.0
    {
        if let Some(found) = try_discharge(st, searches, vars, i) {
            return found;
        }
    }
    if at_boundary && !matches!(st.goal, Goal::Any(_)) {
        // the outcome is fixed from here on: nothing new below if it is already
        // known (or, looking for outcomes outside a set, if it is in the set)
        match outcome_of(st, searches) {
            Some((o, _)) if !st.res.outcomes.contains_key(&o) => {
                if let Goal::Outside(allowed, _) = st.goal {
                    if allowed.contains(&o.regs) {
                        return false;
                    }
                }
            }
            _ => return false,
        }
    }
    let (l, v) = vars[i];
    let mut found = false;
    for val in 0..searches[l].domain(v) {
        searches[l].assign(v, Some(val));
        found |= dfs(st, searches, vars, i + 1);
        if st.res.stopped {
            break;
        }
        if found && i >= st.boundary {
            break; // existential variables: one consistent completion is enough
        }
    }
    searches[l].assign(v, None);
    found
}

/// The partial witness at a node once return values are decided, as the
/// discharge test sees it (`None` when it is inconsistent or its values match no
/// unfolding searched).
fn partial<'s>(
    st: &SearchState<'s, '_, '_, '_, '_>,
    searches: &mut [Box<dyn mowgli_core::WitnessSearch + '_>],
) -> Option<Visited<'s>> {
    let so = mowgli_core::library::lambda_consistent(st.g, searches)?;
    let chosen = chosen_runs(st, searches)?;
    let runs: Vec<&Unfolding> = chosen.iter().enumerate().map(|(t, &r)| &st.runs[t][r]).collect();
    Some(Visited { g: st.g, so, runs, relations: Vec::new() })
}

/// The discharge test at a node below [`SearchState::decided`]: `Some(found)` when
/// the subtree is settled (discharged, and whether it has a consistent
/// completion), `None` when it must be searched.
fn try_discharge(
    st: &mut SearchState,
    searches: &mut [Box<dyn mowgli_core::WitnessSearch + '_>],
    vars: &[(usize, usize)],
    i: usize,
) -> Option<bool> {
    let v = partial(st, searches)?;
    let discharge = st.discharge.as_deref_mut()?;
    if discharge.stop() {
        st.res.stopped = true;
        return Some(false);
    }
    if !discharge.holds(&v) {
        return None;
    }
    let found = exists_completion(st.g, searches, vars, i);
    if found {
        st.res.stats.discharged += 1;
        discharge.record(&v);
    }
    Some(found)
}

/// Whether the current partial witness has a consistent completion (a plain
/// backtracking search that stops at the first).
fn exists_completion(
    g: &ExecGraph,
    searches: &mut [Box<dyn mowgli_core::WitnessSearch + '_>],
    vars: &[(usize, usize)],
    i: usize,
) -> bool {
    if !check_all(g, searches) {
        return false;
    }
    if i == vars.len() {
        return true;
    }
    let (l, v) = vars[i];
    let mut found = false;
    for val in 0..searches[l].domain(v) {
        searches[l].assign(v, Some(val));
        if exists_completion(g, searches, vars, i + 1) {
            found = true;
            break;
        }
    }
    searches[l].assign(v, None);
    found
}

/// The unfolding each thread takes under the current assignment, once every open
/// return value is decided; `None` when one is not, or when the values match no
/// unfolding of the groups searched.
fn chosen_runs(st: &SearchState, searches: &[Box<dyn mowgli_core::WitnessSearch + '_>]) -> Option<Vec<usize>> {
    let g = st.g;
    let mut values: Vec<Vec<Value>> = vec![Vec::new(); st.groups.len()];
    for (ei, e) in g.events.iter().enumerate() {
        if g.sym_ret[ei] {
            values[e.thread].push(searches[e.lib].returned(ei)?);
        }
    }
    st.groups
        .iter()
        .enumerate()
        .map(|(t, grp)| {
            grp.by_values
                .iter()
                .find(|(pat, _)| pat.len() == values[t].len() && pat.iter().zip(&values[t]).all(|(p, v)| p.admits(v)))
                .map(|(_, r)| *r)
        })
        .collect()
}

/// The outcome of the current (complete, or complete up to existential variables)
/// assignment, and the unfolding chosen in each thread; `None` when the open
/// return values match no unfolding of the groups searched.
fn outcome_of(
    st: &SearchState,
    searches: &[Box<dyn mowgli_core::WitnessSearch + '_>],
) -> Option<(Outcome, Vec<usize>)> {
    let g = st.g;
    // values no unfolding of a group returns belong to another group's plain execution
    let chosen = chosen_runs(st, searches)?;
    let regs: Vec<_> = chosen.iter().enumerate().map(|(t, &r)| st.runs[t][r].env.clone()).collect();
    if st.regs_only {
        return Some((Outcome { regs, finals: BTreeMap::new() }, chosen));
    }
    let mut finals = Vec::<FinalValue>::new();
    for s in searches.iter() {
        s.finals(&mut finals);
    }
    let mut fm = BTreeMap::new();
    for (l, li) in g.world.locs.iter().enumerate() {
        if li.implicit {
            continue;
        }
        match li.home {
            Some(_) => {
                fm.insert((l, None), li.init.clone());
            }
            None => {
                for &n in &g.world.nodes {
                    fm.insert((l, Some(n)), li.init.clone());
                }
            }
        }
    }
    for f in finals {
        if let Some(slot) = fm.get_mut(&(f.loc, f.node)) {
            *slot = f.value;
        }
    }
    Some((Outcome { regs, finals: fm }, chosen))
}

/// A consistent complete witness: read the open return values off it, find the
/// unfolding of each thread that returned them, and record the outcome. Returns
/// whether the witness belongs to the plain executions searched.
fn leaf(st: &mut SearchState, searches: &mut [Box<dyn mowgli_core::WitnessSearch + '_>]) -> bool {
    let Some((o, chosen)) = outcome_of(st, searches) else { return false };
    st.res.stats.consistent += 1;
    match st.res.executions.get_mut(&o) {
        Some(n) => *n += 1,
        None => {
            st.res.executions.insert(o.clone(), 1);
        }
    }
    if let Some(visit) = st.visit.as_deref_mut() {
        let Some(so) = mowgli_core::library::lambda_consistent(st.g, searches) else { return false };
        let mut relations: Vec<(String, BitRel)> = Vec::new();
        for s in searches.iter() {
            for (name, r) in s.relations() {
                match relations.iter_mut().find(|(n, _)| *n == name) {
                    Some(e) => e.1.union_with(&r),
                    None => relations.push((name, r)),
                }
            }
        }
        let runs: Vec<&Unfolding> = chosen.iter().enumerate().map(|(t, &r)| &st.runs[t][r]).collect();
        let v = Visited { g: st.g, so, runs, relations };
        let go_on = visit(&v);
        if !go_on {
            st.res.stopped = true;
        }
        return true;
    }
    if !st.res.outcomes.contains_key(&o) {
        let w = if st.keep {
            let mut w = witness(st.g, st.to, searches);
            // the events as the plain execution has them, return values included
            for (ei, e) in w.events.iter_mut().enumerate() {
                e.ret = st.runs[e.thread][chosen[e.thread]].calls[e.index].ret.clone();
                if matches!(e.ret, Value::OneOf(_)) {
                    e.ret = searches[e.lib].returned(ei).unwrap_or(Value::Bot);
                }
            }
            w.abstract_calls = chosen.iter().enumerate().map(|(t, &r)| st.runs[t][r].abstract_calls.clone()).collect();
            Some(w)
        } else {
            None
        };
        if let Goal::Outside(allowed, true) = st.goal {
            if !allowed.contains(&o.regs) {
                st.res.stopped = true;
            }
        }
        st.res.outcomes.insert(o, w);
    }
    true
}

fn witness(g: &ExecGraph, to: &StampTable, searches: &[Box<dyn mowgli_core::WitnessSearch + '_>]) -> Witness {
    let mut relations: Vec<(String, Vec<(usize, usize)>)> = Vec::new();
    for s in searches {
        for (name, r) in s.relations() {
            if let Some(e) = relations.iter_mut().find(|(n, _)| *n == name) {
                let set: BTreeSet<_> = e.1.iter().copied().chain(r.pairs()).collect();
                e.1 = set.into_iter().collect();
            } else {
                relations.push((name, r.pairs().collect()));
            }
        }
    }
    relations.push(("ppo".into(), g.ppo.pairs().collect()));
    Witness {
        events: g.events.clone(),
        abstract_calls: vec![],
        relations,
        subevents: g.subs.iter().map(|s| (s.event, to.stamp_name(s.stamp))).collect(),
    }
}

/// Wall-clock helper for reports.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
