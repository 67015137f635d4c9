//! The engine's input and output: a bounded program over libraries
//! ([`Problem`]), how a call is unfolded, and what a run finds ([`Results`]:
//! outcomes, witnesses, statistics).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use mowgli_core::program::retry::Footprint;
use mowgli_core::program::{unfold_with, CallRecord, EvalCtx, Hooks, Prog, UnfoldError};
use mowgli_core::{Event, Library, NodeId, StampTable, Value, ValueDomain, World};

/// An event without its return value and with only its location/identifier arguments.
pub(super) type Skeleton = (usize, usize, usize, Vec<Value>);

/// A bounded program over a set Λ of libraries.
#[derive(Clone)]
pub struct Problem<'a> {
    /// The world (borrowed from the lowered test when it is the test's own).
    pub world: Cow<'a, World>,
    pub libs: Vec<&'a dyn Library>,
    /// One body per thread (index = thread id) and its number of registers
    /// (borrowed when a problem runs a program kept elsewhere).
    pub threads: Cow<'a, [(Prog, usize)]>,
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
    /// Narrow the variables' domains at the root of a plain execution's search
    /// (`domains::Domains::narrow`) when it has at least this many complete
    /// candidates: [`NARROW_ABOVE`] by default, 0.0 always (tests compare that
    /// against the naive enumerator), `f64::INFINITY` never (nor any value that
    /// is not finite).
    pub narrow_above: f64,
    /// Count the candidates a naive enumeration would check ([`Stats::naive`],
    /// `mowgli litmus --stats`); refinement, which does not show them, leaves it off.
    pub count_naive: bool,
    /// Most work the witness search may do, in [`work_of_check`] units (`u64::MAX`:
    /// no bound); past it the run stops with [`EngineError::Limit`].
    pub max_work: u64,
    /// The instant past which the search stops with [`EngineError::Limit`] (a
    /// time limit of the run; checked about every tenth of a second of search).
    pub deadline: Option<std::time::Instant>,
    /// The threads' unfoldings when computed before for this very problem (the
    /// last round of a value-domain fixpoint ran on its final domain): every run
    /// searches them instead of unfolding again ([`unfold_threads`]). They must be
    /// what [`unfold_thread`] gives for the problem.
    pub unfolded: Option<std::sync::Arc<Vec<mowgli_core::program::Unfolded>>>,
}

/// [`Problem::narrow_above`] by default. Below about this many complete
/// candidates the search prunes well enough on its own, and narrowing's checks
/// (every value of every variable, again after each forced one) cost more than
/// they save: measured on `obligations imsw.impl` at its default bound, 1.13×
/// slower with narrowing from 512 candidates on, not slower from 10^6 on, while
/// the RCAS lock's obligations gain as much either way (`docs/design.md`).
pub const NARROW_ABOVE: f64 = 1e6;

/// The work of one consistency check of a partial witness over `n` subevents,
/// in the units of [`Problem::max_work`]: its few transitive closures take
/// about n³/64 word operations each, and a check costs a few thousand besides.
/// A unit is at most about a nanosecond on a current machine (measured on checks
/// of 100 and 400 subevents).
pub fn work_of_check(n: usize) -> u64 {
    let n = n as u64;
    4096 + n * n * n / 16
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
#[derive(Clone)]
pub struct Inline<'a> {
    pub lib: usize,
    /// Per abstract method: body (calls numbered as in [`Problem::libs`]), registers, name.
    pub methods: Vec<Option<mowgli_core::program::Body>>,
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
    fn observing(&self) -> bool {
        self.observe.is_some()
    }
    fn symbolic(&self, lib: usize, method: usize) -> bool {
        self.p.libs.get(lib).is_some_and(|l| l.symbolic_return(method))
    }
    fn read_only_call(&self, lib: usize, method: usize, args: &[Value], ret: &Value) -> bool {
        self.p.libs.get(lib).is_some_and(|l| l.read_only_as_made(method, args, ret))
    }
    fn footprint(&self, lib: usize, method: usize, args: &[Value]) -> Option<Footprint> {
        self.p.libs.get(lib).and_then(|l| l.footprint(method, args))
    }
    fn stopped(&self) -> bool {
        self.p.deadline.is_some_and(|d| std::time::Instant::now() >= d)
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
    fn implement(&mut self, lib: usize, method: usize, _args: &[Value]) -> Option<mowgli_core::program::Body> {
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

/// Every thread's unfoldings: [`Problem::unfolded`] when set, else computed.
pub fn unfold_threads<'p>(p: &'p Problem) -> Result<Cow<'p, [mowgli_core::program::Unfolded]>, EngineError> {
    match &p.unfolded {
        Some(u) if u.len() == p.threads.len() => Ok(Cow::Borrowed(&u[..])),
        _ => Ok(Cow::Owned((0..p.threads.len()).map(|t| unfold_thread(p, t)).collect::<Result<_, _>>()?)),
    }
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
    /// every plain execution) would check; 0 unless [`Problem::count_naive`].
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
    pub(super) backend_error: Option<String>,
    /// A library's own limit, or [`Problem::max_work`], stopped the search.
    pub(super) limit: Option<String>,
    /// Work done so far ([`work_of_check`] units).
    pub(super) work: u64,
    /// The work at which the search next asks whether to stop (a time limit).
    pub(super) next_stop: u64,
    pub(super) skeletons: std::collections::HashSet<Vec<Skeleton>>,
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Unfold(#[from] UnfoldError),
    #[error("{0}")]
    Backend(String),
    /// A limit of a library's search (e.g. coreRMA's bound on the actions of an
    /// execution): the run is cut, the input is not wrong.
    #[error("{0}")]
    Limit(String),
}

impl EngineError {
    /// Whether a limit of the tool stopped the run (the run is inconclusive), rather
    /// than the input being wrong.
    pub fn is_limit(&self) -> bool {
        match self {
            EngineError::Limit(_) => true,
            EngineError::Unfold(e) => e.is_limit(),
            EngineError::Backend(_) => false,
        }
    }
}

/// Wall-clock helper for reports.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The final memory of an outcome: every declared location (each copy of a
/// replicated one) with its initial value, unless `finals` says what was written.
pub fn final_memory(
    world: &World,
    finals: Vec<mowgli_core::library::FinalValue>,
) -> BTreeMap<(usize, Option<NodeId>), Value> {
    let mut fm = BTreeMap::new();
    for (l, li) in world.locs.iter().enumerate() {
        if li.implicit {
            continue;
        }
        match li.home {
            Some(_) => {
                fm.insert((l, None), li.init.clone());
            }
            None => {
                for &n in &world.nodes {
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
    fm
}
