//! Bounded refinement (LOCO Def. 3.10, soundness): for a client p̃ over the
//! implemented library L (and possibly other libraries), every outcome of the
//! implementation, outcome_Λ(⟦p̃⟧_I), must be an outcome of the specification,
//! outcome_{Λ⊎{L}}(p̃). Outcomes are the threads' registers (the values the client
//! computed) and the final values of the client's own locations that its `expect`
//! conditions name ([`observed_locations`]); the implementation's own locations are
//! not part of them, and a condition on a location of L that the implementation
//! replaces by locations of its own is rejected.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use mowgli_core::program::{Body, CallRecord, Expr, Prog};
use mowgli_core::{Library, StampOrder, StampTable, Value, ValueDomain};
use serde::Serialize;

mod clients;
mod domain;
pub mod gen;
pub mod minimise;

pub use clients::{decide_clients, section};
use domain::value_domain;
pub use domain::DomainError;

use crate::analyses::draw;
use crate::engines::explicit::{self, Inline, Problem, Stats, Witness};
use crate::lang::implementation::{Implementation, WorldCtx};
use crate::lang::{lower, syntax, InputError};

/// A client on which the implementation shows an outcome the specification forbids.
#[derive(Clone, Debug, Serialize)]
pub struct Counterexample {
    /// The outcome (registers), as `T:r = v`.
    pub outcome: BTreeMap<String, String>,
    /// The implementation execution, events grouped by the abstract call (f) they implement.
    pub execution: String,
    pub dot: String,
    /// The same execution as a graph (`--html`).
    #[serde(skip)]
    pub graph: Option<mowgli_draw::Graph>,
}

/// The verdict on one client (written `ok`, `FAIL`, `skipped` in reports and JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ClientVerdict {
    /// Every implementation outcome is a specification outcome.
    #[serde(rename = "ok")]
    Ok,
    /// The implementation reaches an outcome the specification forbids.
    #[serde(rename = "FAIL")]
    Fail,
    /// The test does not use the implemented library.
    #[serde(rename = "skipped")]
    Skipped,
    /// A limit (a value domain's, the number of unfoldings) cut the check before
    /// it covered the client: [`ClientReport::inconclusive`] says which.
    #[serde(rename = "inconclusive")]
    Inconclusive,
}

impl std::fmt::Display for ClientVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(match self {
            ClientVerdict::Ok => "ok",
            ClientVerdict::Fail => "FAIL",
            ClientVerdict::Skipped => "skipped",
            ClientVerdict::Inconclusive => "INCONCLUSIVE",
        })
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ClientReport {
    pub file: String,
    pub name: String,
    pub verdict: ClientVerdict,
    /// Outcomes of the specification found. With screening, only those among the
    /// outcomes the implementation's unfoldings can combine are looked for.
    pub spec_outcomes: usize,
    /// Whether `spec_outcomes` is the whole outcome set (no screening).
    pub spec_outcomes_complete: bool,
    /// The specification has no execution on this client.
    pub spec_vacuous: bool,
    /// Outcomes of the implementation found (registers, and the final values of the
    /// `observed` locations). With screening (see
    /// [`engine::run_outside`]) only the plain executions that could reach an
    /// outcome outside the specification's are searched, so this counts a subset.
    pub impl_outcomes: usize,
    /// Whether `impl_outcomes` is the whole outcome set (no screening).
    pub impl_outcomes_complete: bool,
    /// Locations whose final values are part of the compared outcomes, beside the
    /// registers (those the client's conditions name: [`observed_locations`]).
    pub observed: Vec<String>,
    /// The implementation has no consistent execution on this client: the check
    /// holds vacuously (with screening, decided by a search for any execution).
    pub vacuous: bool,
    /// With screening: the search for any execution ran out of its budget
    /// ([`VACUITY_BUDGET`] candidates); the verdict stands, vacuity is undecided.
    pub vacuity_unknown: bool,
    /// A loop of the implementation reached the unrolling bound: the verdict is bounded.
    pub bounded: bool,
    /// Unfoldings of the implementation that stopped at an expression error, and the first error.
    pub stuck: u64,
    pub stuck_msg: Option<String>,
    pub counterexample: Option<Counterexample>,
    /// Why the check is inconclusive (verdict [`ClientVerdict::Inconclusive`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inconclusive: Option<String>,
    pub spec_stats: Stats,
    pub impl_stats: Stats,
}

impl ClientReport {
    /// A test that is not a client of this implementation.
    fn skipped(file: &str, name: &str) -> ClientReport {
        ClientReport {
            file: file.to_string(),
            name: name.to_string(),
            verdict: ClientVerdict::Skipped,
            spec_outcomes: 0,
            spec_outcomes_complete: true,
            spec_vacuous: false,
            impl_outcomes: 0,
            impl_outcomes_complete: true,
            observed: Vec::new(),
            vacuous: false,
            vacuity_unknown: false,
            bounded: false,
            stuck: 0,
            stuck_msg: None,
            counterexample: None,
            inconclusive: None,
            spec_stats: Stats::default(),
            impl_stats: Stats::default(),
        }
    }

    /// A client whose check a limit cut (`why`) before it was covered.
    fn cut(file: &str, name: &str, why: String) -> ClientReport {
        ClientReport {
            verdict: ClientVerdict::Inconclusive,
            inconclusive: Some(why),
            ..ClientReport::skipped(file, name)
        }
    }
}

/// Every location, barrier, ring and work identifier the client passes to `lib`.
fn collect_args(p: &Prog, lib: usize, objects: &mut Vec<Value>, wids: &mut Vec<Value>) {
    match p {
        Prog::Call { lib: l, args, .. } => {
            for a in args {
                if let Expr::Val(v) = a {
                    if matches!(v, Value::Wid(_)) && !wids.contains(v) {
                        wids.push(v.clone());
                    }
                    if *l == lib && matches!(v, Value::Loc(_) | Value::Obj(_) | Value::Wid(_)) && !objects.contains(v) {
                        objects.push(v.clone());
                    }
                }
            }
        }
        Prog::Let { first, rest, .. } => {
            collect_args(first, lib, objects, wids);
            collect_args(rest, lib, objects, wids);
        }
        Prog::Loop(b) | Prog::Spin(b, _) | Prog::Retry(b) | Prog::For { body: b, .. } => {
            collect_args(b, lib, objects, wids)
        }
        Prog::If(_, a, b) => {
            collect_args(a, lib, objects, wids);
            collect_args(b, lib, objects, wids);
        }
        Prog::Ret(_) | Prog::Break(..) => {}
    }
}

/// A client of an implementation, ready to run: the client lowered, and the
/// implemented program's libraries Λ (the client's other libraries and the
/// implementation's `uses`) and bodies.
pub struct Setup {
    pub low: lower::Lowered,
    /// The index of the implemented library among the client's libraries.
    pub lidx: usize,
    pub owned: Vec<Box<dyn Library>>,
    pub names: Vec<String>,
    pub ctx: std::sync::Arc<WorldCtx>,
    methods: Vec<Option<Body>>,
    threads: Vec<(Prog, usize)>,
    phantom: usize,
}

/// A parsed client: ready, or not a client of the implementation.
pub enum Prepared {
    Ready(Box<Setup>),
    /// The test does not use the implemented library (or combines a whole-program
    /// library with others, LOCO App. F.4); its name.
    Skipped(String),
}

/// Parses and lowers a client and prepares its implemented program.
pub fn prepare(imp: &Implementation, order: &StampOrder, file: &str, text: &str) -> Result<Prepared, InputError> {
    let ast = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    prepare_parsed(imp, order, file, &ast, &|| text.to_string())
}

/// [`prepare`] for a parsed client; `text` gives its text for error messages.
pub fn prepare_parsed(
    imp: &Implementation,
    order: &StampOrder,
    file: &str,
    ast: &syntax::Litmus,
    text: &dyn Fn() -> String,
) -> Result<Prepared, InputError> {
    let ie = |line, col, msg: String| InputError::new(syntax::Pos { line, col }, msg).in_file(file, &text());
    let mut low = lower::lower_with(ast, order, &imp.catalogue, lower::DomainLimits::default())
        .map_err(|e| e.in_file(file, &text()))?;
    let named = |n: &String| *n == imp.implements || imp.declared.as_ref() == Some(n);
    let Some(lidx) = low.lib_names.iter().position(named) else {
        // not a client of this implementation (e.g. another test of a directory)
        return Ok(Prepared::Skipped(low.name));
    };
    if low.lib_names[lidx] != imp.implements {
        // checked against another specification of the same methods (`--spec`)
        low.libs[lidx] = imp.catalogue.library(&imp.implements, order).map_err(|e| ie(1, 1, e.to_string()))?;
        low.lib_names[lidx] = imp.implements.clone();
    }
    // Λ = the client's other libraries ∪ the implementation's `uses`
    let mut owned: Vec<Box<dyn Library>> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut client_map = vec![usize::MAX; low.libs.len()];
    for (i, n) in low.lib_names.iter().enumerate() {
        if i != lidx {
            client_map[i] = names.len();
            owned.push(imp.catalogue.library(n, order).map_err(|e| ie(1, 1, e.to_string()))?);
            names.push(n.clone());
        }
    }
    let mut uses_map = Vec::new();
    for u in &imp.uses {
        match names.iter().position(|n| n == u) {
            Some(j) => uses_map.push(j),
            None => {
                uses_map.push(names.len());
                owned.push(imp.catalogue.library(u, order).map_err(|e| ie(1, 1, e.to_string()))?);
                names.push(u.clone());
            }
        }
    }
    // LOCO App. F.4: a library that orders its own subevents (RDMA^TSO) does not
    // compose with others, so its implementations take whole programs only
    let whole_only = uses_map.iter().any(|&j| owned[j].own_program_order());
    if whole_only && low.lib_names.len() > 1 {
        return Ok(Prepared::Skipped(low.name));
    }
    let phantom = names.len() + 1000;
    client_map[lidx] = phantom;
    let mut objects = Vec::new();
    let mut wids: Vec<Vec<Value>> = Vec::new();
    for (prog, _) in &low.threads {
        let mut w = Vec::new();
        collect_args(prog, lidx, &mut objects, &mut w);
        wids.push(w);
    }
    let ctx = imp
        .world_ctx(low.world.clone(), wids, &objects)
        .map_err(|m| ie(1, 1, format!("implementation `{}`: {m}", imp.name)))?;
    let abs = &low.libs[lidx];
    let methods = imp.bodies(abs.as_ref(), &uses_map);
    let threads: Vec<(Prog, usize)> = low.threads.iter().map(|(p, n)| (p.map_libs(&|l| client_map[l]), *n)).collect();
    Ok(Prepared::Ready(Box::new(Setup { low, lidx, owned, names, ctx, methods, threads, phantom })))
}

impl Setup {
    /// The specification's problem: the client as it is.
    pub fn spec_problem<'a>(&'a self, to: &'a StampTable, loop_bound: usize) -> Problem<'a> {
        let mut p = lower::problem(&self.low, to);
        p.loop_bound = loop_bound;
        p.count_naive = false;
        p
    }

    /// ⟦p̃⟧_I over Λ, with the value domains and own cells computed.
    pub fn impl_problem<'a>(&'a self, to: &'a StampTable, loop_bound: usize) -> Result<Problem<'a>, String> {
        Ok(self.impl_problem_unfolded(to, loop_bound, None).map_err(|e| e.to_string())?.0)
    }

    /// [`Setup::impl_problem`], with the threads' unfoldings of the problem when the
    /// value-domain fixpoint's last round computed them on the final domain (then
    /// a search need not unfold again: `explicit::run_given` and the like). The
    /// unfoldings stop at `deadline` (a limit: [`DomainError::Cut`]), and the
    /// problem keeps it.
    pub fn impl_problem_unfolded<'a>(
        &'a self,
        to: &'a StampTable,
        loop_bound: usize,
        deadline: Option<std::time::Instant>,
    ) -> Result<(Problem<'a>, Option<Vec<explicit::Unfolded>>), DomainError> {
        let mut prob = Problem {
            world: std::borrow::Cow::Borrowed(&self.ctx.world),
            libs: self.owned.iter().map(|b| b.as_ref()).collect(),
            threads: std::borrow::Cow::Borrowed(&self.threads),
            to,
            loop_bound,
            domain: ValueDomain::default(),
            prune: true,
            all_executions: false,
            inline: Some(Inline { lib: self.phantom, methods: self.methods.clone(), ctx: &*self.ctx }),
            own_cells: HashMap::new(),
            regs_only: true,
            backend: Default::default(),
            count_naive: false,
            narrow_above: explicit::NARROW_ABOVE,
            max_work: u64::MAX,
            deadline,
            unfolded: None,
        };
        let (domain, own, unfolded) = value_domain(&mut prob, &self.low.domain)?;
        prob.domain = domain;
        prob.own_cells = own;
        Ok((prob, unfolded))
    }
}

/// Candidates the vacuity search of a screened client may check (about a second).
pub const VACUITY_BUDGET: u64 = 100_000;

/// How one client is checked.
#[derive(Clone, Copy, Debug)]
pub struct ClientCheck {
    /// Iterations each loop is unrolled to (`--loop-bound`).
    pub loop_bound: usize,
    /// Screen the implementation's unfoldings against the specification's
    /// outcomes before searching witnesses (`--screen`).
    pub screen: bool,
    /// The engine that searches the implementation's executions (`--engine`).
    pub engine: explicit::Backend,
    /// Past this instant the check stops, inconclusive (a run's time limit).
    pub deadline: Option<std::time::Instant>,
}

impl ClientCheck {
    /// The explicit engine, no deadline.
    pub fn new(loop_bound: usize, screen: bool) -> ClientCheck {
        ClientCheck { loop_bound, screen, engine: explicit::Backend::Explicit, deadline: None }
    }
}

/// Checks one client given as litmus text, the implementation's executions found by
/// the explicit engine ([`refine_client_on`] for another engine).
pub fn refine_client(
    imp: &Implementation,
    order: &StampOrder,
    file: &str,
    text: &str,
    loop_bound: usize,
    screen: bool,
) -> Result<ClientReport, InputError> {
    refine_client_on(imp, order, file, text, &ClientCheck::new(loop_bound, screen))
}

/// Checks one client given as litmus text; `engine` searches the implementation's
/// executions (`mowgli refine --engine`): the explicit engine, or Z3 (each plain
/// execution's witnesses found by Z3 over the libraries' predicates as data, every
/// model confirmed by the explicit checks). The specification's outcomes, the
/// oracle, stay explicit.
pub fn refine_client_on(
    imp: &Implementation,
    order: &StampOrder,
    file: &str,
    text: &str,
    how: &ClientCheck,
) -> Result<ClientReport, InputError> {
    let ast = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    refine_parsed_on(imp, order, file, &ast, &|| text.to_string(), how)
}

/// [`refine_client_on`] for a parsed client (a generated client is built as a
/// test, without text); `text` gives its text for error messages. A limit of the
/// engine (its deadline among them) makes the client inconclusive.
pub fn refine_parsed_on(
    imp: &Implementation,
    order: &StampOrder,
    file: &str,
    ast: &syntax::Litmus,
    text: &dyn Fn() -> String,
    how: &ClientCheck,
) -> Result<ClientReport, InputError> {
    match check_parsed(imp, order, file, ast, text, how) {
        Err(d) if d.limit => Ok(ClientReport::cut(file, &ast.name, d.msg.clone())),
        r => r,
    }
}

fn check_parsed(
    imp: &Implementation,
    order: &StampOrder,
    file: &str,
    ast: &syntax::Litmus,
    text: &dyn Fn() -> String,
    how: &ClientCheck,
) -> Result<ClientReport, InputError> {
    let ClientCheck { loop_bound, screen, engine, deadline } = *how;
    let ie = |line, col, msg: String| InputError::new(syntax::Pos { line, col }, msg).in_file(file, &text());
    let setup = match prepare_parsed(imp, order, file, ast, text)? {
        Prepared::Ready(s) => s,
        Prepared::Skipped(name) => return Ok(ClientReport::skipped(file, &name)),
    };
    let low = &setup.low;
    let to = order.table("to").ok_or_else(|| ie(1, 1, "the stamp order has no table `to`".into()))?;
    // the compared outcome: the registers, and the final values of the client's own
    // locations its `expect` conditions name (rejected for the implemented library's)
    // a limit that cuts the client's or the implementation's value domain, or an
    // unfolding, leaves the check inconclusive (outcomes may be missing on either side)
    if let Some(why) = &low.domain_cut {
        return Ok(ClientReport::cut(file, &low.name, format!("the client's {why}")));
    }
    let (mut prob, unfolded) = match setup.impl_problem_unfolded(to, loop_bound, deadline) {
        Ok(x) => x,
        Err(DomainError::Cut(why)) => {
            return Ok(ClientReport::cut(file, &low.name, format!("the implementation's {}", at_method(imp, why))))
        }
        Err(DomainError::Input(m)) => return Err(ie(1, 1, m)),
    };
    prob.backend = engine;
    let observed = observed_locations(imp, &setup, &prob).map_err(|e| e.in_file(file, &text()))?;
    let observe = !observed.is_empty();
    let key = |o: &explicit::Outcome| -> Observed {
        (o.regs.clone(), observed.iter().map(|k| o.finals.get(k).cloned()).collect())
    };
    // the specification: with screening, only its outcomes among those the
    // implementation's unfoldings can combine (the only ones the comparison asks
    // about), otherwise all of them
    let mut spec_p = setup.spec_problem(to, loop_bound);
    spec_p.deadline = deadline;
    spec_p.regs_only = !observe;
    let candidates = match (&unfolded, screen && !observe) {
        (Some(u), true) => explicit::register_combinations(u),
        _ => None,
    };
    // a limit of the engine makes the client's check inconclusive, not an error
    let engine_err = |e: explicit::EngineError, msg: String| {
        let mut d = ie(1, 1, msg);
        d.limit = e.is_limit();
        d
    };
    let spec_err = |e: explicit::EngineError| {
        let msg = e.to_string();
        engine_err(e, msg)
    };
    let (spec, spec_vacuous) = match &candidates {
        Some(wanted) => {
            let su = (0..spec_p.threads.len())
                .map(|t| explicit::unfold_thread(&spec_p, t))
                .collect::<Result<Vec<_>, _>>()
                .map_err(spec_err)?;
            let spec = explicit::run_among_given(&spec_p, &su, wanted).map_err(spec_err)?;
            // none among them: whether the specification has an execution at all
            let vacuous = spec.outcomes.is_empty()
                && explicit::has_execution_within_given(&spec_p, &su, VACUITY_BUDGET).map_err(spec_err)? == Some(false);
            (spec, vacuous)
        }
        None => {
            let spec = explicit::run(&spec_p, false).map_err(spec_err)?;
            let vacuous = spec.outcomes.is_empty();
            (spec, vacuous)
        }
    };
    let spec_keys: BTreeSet<Observed> = spec.outcomes.keys().map(key).collect();
    let spec_regs: BTreeSet<explicit::Regs> = spec_keys.iter().map(|k| k.0.clone()).collect();
    // the implementation (screening compares registers only: not when locations are observed)
    let screen = screen && !observe;
    prob.regs_only = !observe;
    let res = match (&unfolded, screen) {
        (Some(u), true) => explicit::first_outside_given(&prob, u, true, &spec_regs),
        (Some(u), false) => explicit::run_given(&prob, u, true),
        (None, true) => explicit::first_outside(&prob, true, &spec_regs),
        (None, false) => explicit::run(&prob, true),
    }
    .map_err(|e| {
        let msg = format!("implementation `{}`: {e}", imp.name);
        engine_err(e, msg)
    })?;
    let mut cex = None;
    for (o, w) in &res.outcomes {
        if !spec_keys.contains(&key(o)) {
            let outcome = if observe { lower::show_outcome(low, o) } else { show_regs(low, &o.regs) };
            let (execution, graph) = match w {
                Some(w) => {
                    let mut g =
                        graph_grouped(low, &prob, imp, w, format!("{}: implementation `{}`", low.name, imp.name));
                    let shown: Vec<String> = outcome.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    g.notes.push(format!("outcome (not one of the specification's): {}", shown.join("; ")));
                    (render_grouped(low, &prob, imp, w), Some(g))
                }
                None => (String::new(), None),
            };
            let dot = graph.as_ref().map(|g| mowgli_draw::dot::dot(g, "implementation")).unwrap_or_default();
            cex = Some(Counterexample { outcome, execution, dot, graph });
            break;
        }
    }
    let impl_regs: BTreeSet<Observed> = res.outcomes.keys().map(key).collect();
    // vacuity: without screening the outcomes say it; with screening a search for
    // any execution decides it, within a budget (a client where it runs out is
    // counted as undecided, not as vacuous)
    let (vacuous, vacuity_unknown) = if !impl_regs.is_empty() {
        (false, false)
    } else if !screen {
        (true, false)
    } else {
        match match &unfolded {
            Some(u) => explicit::has_execution_within_given(&prob, u, VACUITY_BUDGET),
            None => explicit::has_execution_within(&prob, VACUITY_BUDGET),
        }
        .map_err(|e| {
            let msg = format!("implementation `{}`: {e}", imp.name);
            engine_err(e, msg)
        })? {
            Some(has) => (!has, false),
            None => (false, true),
        }
    };
    let (verdict, inconclusive) = verdict_within_bound(cex.is_some(), res.bound_hit, spec.bound_hit);
    // an outcome the specification may reach beyond the bound is no counterexample
    let cex = if verdict == ClientVerdict::Inconclusive { None } else { cex };
    Ok(ClientReport {
        file: file.to_string(),
        name: low.name.clone(),
        verdict,
        spec_outcomes: spec_keys.len(),
        spec_outcomes_complete: candidates.is_none(),
        spec_vacuous,
        impl_outcomes: impl_regs.len(),
        impl_outcomes_complete: !screen,
        observed: observed
            .iter()
            .map(|&(l, n)| match n {
                Some(n) => format!("{}@{n}", low.world.locs[l].name),
                None => low.world.locs[l].name.clone(),
            })
            .collect(),
        vacuous,
        vacuity_unknown,
        bounded: res.bound_hit || spec.bound_hit,
        stuck: res.stats.stuck,
        stuck_msg: res.stuck_msg.clone(),
        counterexample: cex,
        inconclusive,
        spec_stats: spec.stats,
        impl_stats: res.stats,
    })
}

/// A client's verdict when a loop may have reached the unrolling bound on the
/// implementation's side (`impl_cut`) or the specification's (`spec_cut`, the
/// client's own loops): runs that stay in a loop longer were not explored, so
/// either side may lack outcomes. An implementation outcome the specification
/// lacks refutes only when the specification's outcomes are complete; no such
/// outcome shows refinement only when the implementation's are.
fn verdict_within_bound(found: bool, impl_cut: bool, spec_cut: bool) -> (ClientVerdict, Option<String>) {
    const MORE: &str = "runs that stay in the loop longer were not explored (raise --loop-bound)";
    match (found, impl_cut, spec_cut) {
        (true, _, false) => (ClientVerdict::Fail, None),
        (true, _, true) => (
            ClientVerdict::Inconclusive,
            Some(format!(
                "the implementation reaches an outcome the specification did not reach within the unrolling \
                 bound of the client's loops: {MORE}"
            )),
        ),
        (false, true, _) => (
            ClientVerdict::Inconclusive,
            Some(format!("a loop of the implementation reached the unrolling bound: {MORE}")),
        ),
        (false, false, _) => (ClientVerdict::Ok, None),
    }
}

/// A compared outcome: the registers, and the final values of the observed locations.
type Observed = (explicit::Regs, Vec<Option<Value>>);

/// The client's locations whose final values are compared, beside the registers:
/// those its `expect` conditions name (as `mowgli litmus` shows them). A location of
/// the client's other libraries is client state: only the client's own events
/// access it (loc(I) ∩ loc(p̃) = ∅, Def. 3.10), ⟦p̃⟧_I keeps those events, and the
/// proof that local soundness implies soundness (LOCO Thm. E.3) keeps them with
/// their so, so a sound implementation leaves its final value as the
/// specification can. A location the client passes to the implemented library L
/// is, in general, no memory in ⟦p̃⟧_I (the implementation keeps it in locations
/// of its own, e.g. I_SV's `copy(x)[n]`): it has no final value there, and naming
/// it is an error that says how to observe it. The exception is an implementation
/// that keeps L's location as the location of the same name of a library it uses
/// (I_W: an RDMA^WAIT location is the RDMA^TSO location, LOCO App. F): some call
/// the implementation makes in ⟦p̃⟧_I names it, so it is memory on both sides and
/// its final value is compared (LOCO Fig. 3's outcomes are such final values).
fn observed_locations(
    imp: &Implementation,
    setup: &Setup,
    prob: &Problem,
) -> Result<Vec<(usize, Option<u32>)>, InputError> {
    let low = &setup.low;
    if low.shown_locs.is_empty() {
        return Ok(Vec::new());
    }
    let mut abstract_objects = Vec::new();
    let mut wids = Vec::new();
    for (prog, _) in &low.threads {
        collect_args(prog, setup.lidx, &mut abstract_objects, &mut wids);
    }
    // the client's locations that calls made by the implementation name
    let mut kept: BTreeSet<usize> = BTreeSet::new();
    for t in 0..prob.threads.len() {
        explicit::unfold_thread_observing(prob, t, &mut |_, c| {
            if c.origin.is_some() {
                kept.extend(c.args.iter().filter_map(|a| match a {
                    Value::Loc(l) => Some(*l),
                    _ => None,
                }));
            }
        })
        .map_err(|e| InputError::new(syntax::Pos { line: 1, col: 1 }, e.to_string()))?;
    }
    let unobservable = |l: usize| abstract_objects.contains(&Value::Loc(l)) && !kept.contains(&l);
    for e in &low.expects {
        let mut named = BTreeSet::new();
        cond_locs(&e.cond, &mut named);
        if let Some(&(l, node)) = named.iter().find(|(l, _)| unobservable(*l)) {
            let name = &low.world.locs[l].name;
            let shown = match node {
                Some(n) => format!("{name}@{n}"),
                None => name.clone(),
            };
            return Err(InputError::new(
                e.pos,
                format!(
                    "`{shown}` is a location of `{lib}`, the library `{imp}` implements: in the implemented program it is no memory of its own (`{imp}` keeps it in its own locations), so it has no final value to compare with the specification's (LOCO Def. 3.10 compares the client's outcomes); observe it through a register instead: read it at the end of a thread (e.g. `r = Read({name})`) and name the register in the condition (`T:r = v`)",
                    lib = imp.implements,
                    imp = imp.name,
                ),
            ));
        }
    }
    Ok(low.shown_locs.clone())
}

/// The locations (and copies) a condition names.
fn cond_locs(c: &lower::RCond, out: &mut BTreeSet<(usize, Option<u32>)>) {
    match c {
        lower::RCond::Loc(l, n, _) => {
            out.insert((*l, *n));
        }
        lower::RCond::Not(c) => cond_locs(c, out),
        lower::RCond::And(a, b) | lower::RCond::Or(a, b) => {
            cond_locs(a, out);
            cond_locs(b, out);
        }
        lower::RCond::True | lower::RCond::Reg(..) => {}
    }
}

fn show_regs(low: &lower::Lowered, regs: &[Vec<Option<Value>>]) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for (t, names) in low.reg_names.iter().enumerate() {
        for (r, name) in names.iter().enumerate() {
            let v = regs[t].get(r).cloned().flatten().map(|v| low.world.show(&v)).unwrap_or_else(|| "?".into());
            m.insert(format!("{}:{}", low.world.threads[t].name, name), v);
        }
    }
    m
}

fn call_label(p: &Problem, lib: &str, name: &str, c: &CallRecord) -> String {
    let args: Vec<String> = c.args.iter().map(|a| p.world.show(a)).collect();
    let ret = if c.ret == Value::Unit { String::new() } else { format!(" = {}", p.world.show(&c.ret)) };
    format!("{lib}.{name}({}){ret}", args.join(", "))
}

/// The implementation execution, each thread's events grouped under the abstract
/// call they implement (the abstraction f), then the witness relations.
fn render_grouped(low: &lower::Lowered, p: &Problem, imp: &Implementation, w: &Witness) -> String {
    let mut s = String::new();
    let sub = |i: usize| format!("e{}.{}", w.subevents[i].0, w.subevents[i].1);
    let abs_names: Vec<&str> = registry_method_names(low, imp);
    for (t, th) in p.world.threads.iter().enumerate() {
        s += &format!("{} @ node {}:\n", th.name, th.node);
        let abs = w.abstract_calls.get(t).cloned().unwrap_or_default();
        let mut shown_origin: Option<Option<usize>> = None;
        for (ei, e) in w.events.iter().enumerate().filter(|(_, e)| e.thread == t) {
            if shown_origin != Some(e.origin) {
                match e.origin {
                    Some(k) => {
                        let a = &abs[k];
                        let name = abs_names.get(a.method).copied().unwrap_or("?");
                        s += &format!(
                            "  {}  (abstract call {k}, implemented by:)\n",
                            call_label(p, &imp.implements, name, a)
                        );
                    }
                    None => s += "  (client calls of other libraries:)\n",
                }
                shown_origin = Some(e.origin);
            }
            let l = p.libs[e.lib];
            let c =
                CallRecord { lib: e.lib, method: e.method, args: e.args.clone(), ret: e.ret.clone(), origin: e.origin };
            let subs: Vec<String> = (0..w.subevents.len()).filter(|&i| w.subevents[i].0 == ei).map(sub).collect();
            s += &format!(
                "      e{ei}: {}   [{}]\n",
                call_label(p, l.name(), l.methods()[e.method].name, &c),
                subs.join(", ")
            );
        }
    }
    for (name, pairs) in &w.relations {
        if name == "ppo" || pairs.is_empty() {
            continue;
        }
        let edges: Vec<String> = pairs.iter().map(|&(a, b)| format!("{} -> {}", sub(a), sub(b))).collect();
        s += &format!("{name}: {}\n", edges.join(", "));
    }
    s
}

fn registry_method_names<'a>(low: &'a lower::Lowered, imp: &Implementation) -> Vec<&'a str> {
    low.lib_names
        .iter()
        .position(|n| *n == imp.implements)
        .map(|i| low.libs[i].methods().iter().map(|m| m.name).collect())
        .unwrap_or_default()
}

/// DOT: a cluster per thread, inside it a cluster per abstract call (f), a node per subevent.
/// The implementation execution as a graph: threads as columns, each abstract
/// call's implementing events in a box labelled by the call (the abstraction f),
/// every node with its call and stamp, and the witness relations.
fn graph_grouped(
    low: &lower::Lowered,
    p: &Problem,
    imp: &Implementation,
    w: &Witness,
    title: String,
) -> mowgli_draw::Graph {
    let abs_names: Vec<&str> = registry_method_names(low, imp);
    let group = |e: &mowgli_core::Event| {
        let k = e.origin?;
        let a = w.abstract_calls.get(e.thread)?.get(k)?;
        let name = abs_names.get(a.method).copied().unwrap_or("?");
        Some(format!("{} (abstract call {k})", call_label(p, &imp.implements, name, a)))
    };
    let label = |_: usize, e: &mowgli_core::Event| {
        let l = p.libs[e.lib];
        let c = CallRecord { lib: e.lib, method: e.method, args: e.args.clone(), ret: e.ret.clone(), origin: e.origin };
        call_label(p, l.name(), l.methods()[e.method].name, &c)
    };
    let x = draw::Exec { events: &w.events, subevents: &w.subevents, relations: &w.relations };
    draw::execution(&p.world, title, x, &label, draw::Grouping::By(&group), &["ppo"])
}

/// A limit's message with the position of the implementation method it names
/// (`FILE:LINE:COL`, the method's declaration), when it names one.
pub fn at_method(imp: &Implementation, why: String) -> String {
    let d = imp.error(why.clone());
    if why.contains("while unfolding `") && d.line > 0 {
        format!("{why} (at {}:{}:{})", d.file, d.line, d.col)
    } else {
        why
    }
}

#[cfg(test)]
mod tests {
    use super::{verdict_within_bound as v, ClientVerdict::*};

    /// A found outcome refutes unless the specification's side was cut; nothing
    /// found verifies unless the implementation's side was cut.
    #[test]
    fn a_loop_cut_decides_only_what_it_found() {
        let got: Vec<_> = [(true, false, false), (true, true, false), (true, false, true), (false, true, false)]
            .into_iter()
            .chain([(false, false, true), (false, false, false)])
            .map(|(f, i, s)| v(f, i, s).0)
            .collect();
        assert_eq!(got, [Fail, Fail, Inconclusive, Inconclusive, Ok, Ok]);
    }
}
