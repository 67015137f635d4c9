//! The witness search of one group of plain executions: backtracking over the
//! libraries' witness variables with each library's own check on partial
//! witnesses (or Z3, [`crate::engines::z3`]), the discharge of goals, and the
//! outcome of a complete witness.

use super::domains::Domains;
use super::*;

use std::collections::{BTreeMap, BTreeSet};

use mowgli_core::library::FinalValue;
use mowgli_core::program::Unfolding;
use mowgli_core::{BitRel, Event, ExecGraph, StampTable, Value};

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
pub(super) struct Env<'e, 'q> {
    pub(super) runs: &'e [Vec<&'e Unfolding>],
    pub(super) groups: &'e [&'e Group],
    pub(super) keep: bool,
    pub(super) goal: Goal<'q>,
    pub(super) targets: Option<&'e Targets>,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn search_plain<'d>(
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
    if let Some(why) = p.libs.iter().enumerate().find_map(|(i, l)| l.limit(&g, i)) {
        res.limit = Some(why);
        return;
    }
    // without the naive statistic (which counts every plain execution's
    // candidates), a library that sees at once that a read has no source ends
    // the search before the others are built (the empty domain below)
    let mut searches: Vec<_> = if p.count_naive {
        p.libs.iter().enumerate().map(|(i, l)| l.search(&g, p.to, i)).collect()
    } else {
        match p.libs.iter().enumerate().map(|(i, l)| l.viable_search(&g, p.to, i)).collect::<Option<Vec<_>>>() {
            Some(s) => s,
            None => return,
        }
    };
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
    if p.count_naive {
        let skeleton: Vec<_> =
            g.events.iter().map(|e| (e.thread, e.lib, e.method, e.args.iter().map(shape).collect())).collect();
        if res.skeletons.insert(skeleton) {
            res.stats.naive += searches.iter().map(|s| s.naive_count()).product::<f64>();
        }
    }
    // a read whose value no write (nor the initial value) can supply: this plain
    // execution has no witness at all, and a naive rf-first enumerator never builds it
    if vars.iter().any(|&(l, v)| searches[l].domain(v) == 0) {
        return;
    }
    let mut discharge = discharge;
    let mut dom = Domains::full(&searches);
    if p.prune && p.backend != Backend::Z3 && p.narrow_above.is_finite() && dom.candidates() >= p.narrow_above {
        let mut checks = 0;
        let deadline = p.deadline;
        // narrowing's checks count towards the work bound as the search's do: a
        // plain execution of a thousand subevents can spend a minute narrowing
        let (done, per_check, max_work) = (res.work, work_of_check(g.len()), p.max_work);
        let over = |checks: u64| done.saturating_add(checks.saturating_mul(per_check)) > max_work;
        let mut stop = |checks: u64| {
            over(checks)
                || deadline.is_some_and(|d| std::time::Instant::now() >= d)
                || discharge.as_deref_mut().is_some_and(|d| d.stop())
        };
        let viable = dom.narrow(&g, &mut searches, &mut stop, &mut checks);
        res.stats.candidates += checks;
        res.work = res.work.saturating_add(checks.saturating_mul(per_check));
        if over(checks) {
            res.limit = Some(over_work(max_work));
            res.stopped = true;
            return;
        }
        if !viable {
            return;
        }
    }
    let dom = dom;
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
    vars.sort_by_key(|&(l, v)| (existential(l, v), dom.len((l, v))));
    let boundary = vars.iter().position(|&(l, v)| existential(l, v)).unwrap_or(vars.len());
    // with a discharge test: first the variables with a single value consistent on
    // their own (forced, e.g. by ppo: no branching, and their edges prune the rest),
    // then those that can change a returned value (the test needs the plain
    // execution decided) or are about a subevent the test names relevant, then the
    // others — a subtree is discharged as soon as the first two parts are fixed
    let mut relevant_end = vars.len();
    let deciding: f64 =
        vars.iter().filter(|&&(l, v)| searches[l].affects_returns(v)).map(|&(l, v)| dom.len((l, v)) as f64).product();
    if let Some(d) = discharge.as_deref_mut().filter(|_| deciding <= MAX_DECIDING) {
        let mut relevant = vec![false; g.len()];
        // the relevant subevents of every unfolding of the group (each thread's
        // images depend on its own unfolding only)
        for t in 0..groups.len() {
            for (_, r) in &groups[t].by_values {
                let runs_t: Vec<&Unfolding> =
                    (0..groups.len()).map(|u| runs[u][if u == t { *r } else { groups[u].rep }]).collect();
                let v = Visited { g: &g, so: BitRel::new(g.len()), runs: runs_t, relations: Vec::new(), outcome: None };
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
            // this pass checks every value of every variable: a large execution
            // takes long, and a time limit is kept here too
            if d.stop() {
                res.stopped = true;
                return;
            }
            // after narrowing, every value left passed a check under at least
            // the assignments of this one (none), so each passes alone too
            // (monotonicity): forced is then exactly one value left
            let forced =
                dom.len((l, v)) < 2 || (!dom.is_narrowed() && at_most_one_alone(&g, &mut searches, &dom, (l, v), res));
            let early = forced || searches[l].affects_returns(v) || about_relevant(searches[l].var_subevents(v));
            keyed.push(((!forced, !early, dom.len((l, v))), (l, v)));
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
            max_work: p.max_work,
            deadline: p.deadline,
            goal,
            targets: None,
            visit,
            discharge: None,
            decided,
            reordered: None,
            dom: &dom,
        };
        z3_search(&mut st, &mut searches, &vars, p);
        return;
    }
    // subtree[i]: complete candidates below a node where variables 0..i are assigned
    let mut subtree = vec![1f64; vars.len() + 1];
    for i in (0..vars.len()).rev() {
        let (l, v) = vars[i];
        subtree[i] = subtree[i + 1] * dom.len((l, v)) as f64;
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
        max_work: p.max_work,
        deadline: p.deadline,
        goal,
        targets,
        visit,
        discharge,
        decided,
        reordered: Some(relevant_end.max(decided)),
        dom: &dom,
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
    runs: &'s [Vec<&'s Unfolding>],
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
    /// [`Problem::max_work`].
    max_work: u64,
    /// [`Problem::deadline`].
    deadline: Option<std::time::Instant>,
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
    /// The values to try per variable ([`Domains::narrow`]).
    dom: &'s Domains,
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

/// Why a search stopped at [`Problem::deadline`].
pub const TIME_LIMIT: &str = "the time limit was reached during the search";

/// How many candidates (consistency checks) apart [`Discharger::stop`] is asked
/// besides at the discharge tests.
const STOP_EVERY: u64 = 1024;

/// Nor more [`work_of_check`] units apart (about a tenth of a second: the checks
/// of a large execution are slow, and a time limit must still be kept).
const STOP_EVERY_WORK: u64 = 100_000_000;

/// Whether at most one value of variable `(l, v)` gives a consistent partial
/// witness with every other variable unassigned.
fn at_most_one_alone(
    g: &ExecGraph,
    searches: &mut [Box<dyn mowgli_core::WitnessSearch + '_>],
    dom: &Domains,
    (l, v): (usize, usize),
    res: &mut Results,
) -> bool {
    let mut ok = 0;
    for &val in dom.values((l, v)) {
        searches[l].assign(v, Some(val));
        res.work = res.work.saturating_add(work_of_check(g.len()));
        if check_all(g, searches) {
            ok += 1;
        }
    }
    searches[l].assign(v, None);
    ok <= 1
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
    let after_choice = i > 0 && { st.dom.len(vars[i - 1]) > 1 };
    let at_boundary = i == st.boundary && i < vars.len();
    if (after_choice && st.prune && (st.subtree[i] >= CHECK_MIN_SUBTREE || at_boundary)) || i == vars.len() {
        st.res.stats.candidates += 1;
        st.res.work = st.res.work.saturating_add(work_of_check(st.g.len()));
        if st.res.work > st.max_work {
            st.res.limit = Some(over_work(st.max_work));
            st.res.stopped = true;
            return false;
        }
        if let Goal::Any(budget) = st.goal {
            if st.res.stats.candidates > budget {
                st.res.stopped = true;
                return false;
            }
        }
        if i == vars.len() {
            st.res.stats.complete += 1;
        }
        // the time limit between discharge tests too (a subtree none of whose
        // partial witnesses reaches a test can take minutes)
        if st.res.stats.candidates.is_multiple_of(STOP_EVERY) || st.res.work >= st.res.next_stop {
            st.res.next_stop = st.res.work.saturating_add(STOP_EVERY_WORK);
            if st.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                st.res.limit = Some(TIME_LIMIT.to_string());
                st.res.stopped = true;
                return false;
            }
            if let Some(d) = st.discharge.as_deref_mut() {
                if d.stop() {
                    st.res.stopped = true;
                    return false;
                }
            }
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
            Some((o, _)) if !st.res.outcomes.contains_key(&o) => match st.goal {
                Goal::Outside(allowed, _) if allowed.contains(&o.regs) => return false,
                Goal::Among(wanted) if !wanted.contains(&o.regs) => return false,
                _ => {}
            },
            _ => return false,
        }
    }
    let (l, v) = vars[i];
    let mut found = false;
    let dom = st.dom;
    for &val in dom.values((l, v)) {
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
    let runs: Vec<&Unfolding> = chosen.iter().enumerate().map(|(t, &r)| st.runs[t][r]).collect();
    Some(Visited { g: st.g, so, runs, relations: Vec::new(), outcome: None })
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
    // the time limit first: a partial witness's consistency check below is as
    // costly as a candidate's, and many nodes can fail it without one being counted
    if st.discharge.as_deref_mut()?.stop() {
        st.res.stopped = true;
        return Some(false);
    }
    st.res.work = st.res.work.saturating_add(work_of_check(st.g.len()));
    let v = partial(st, searches)?;
    let discharge = st.discharge.as_deref_mut()?;
    if !discharge.holds(&v) {
        return None;
    }
    // the time limit inside this search too (a partial witness of a large
    // execution whose completions are rare can take seconds)
    let mut stopped = false;
    let found = exists_completion(st.g, st.dom, searches, vars, i, &mut || discharge.stop(), &mut stopped);
    if stopped {
        st.res.stopped = true;
        return Some(false);
    }
    if found {
        st.res.stats.discharged += 1;
        discharge.record(&v);
    }
    Some(found)
}

/// Whether the current partial witness has a consistent completion (a plain
/// backtracking search that stops at the first). `stop` is asked at every node;
/// once it says stop, `stopped` is set and the answer is `false` (the caller
/// must not take it as one).
fn exists_completion(
    g: &ExecGraph,
    dom: &Domains,
    searches: &mut [Box<dyn mowgli_core::WitnessSearch + '_>],
    vars: &[(usize, usize)],
    i: usize,
    stop: &mut dyn FnMut() -> bool,
    stopped: &mut bool,
) -> bool {
    if *stopped || stop() {
        *stopped = true;
        return false;
    }
    if !check_all(g, searches) {
        return false;
    }
    if i == vars.len() {
        return true;
    }
    let (l, v) = vars[i];
    let mut found = false;
    for &val in dom.values((l, v)) {
        searches[l].assign(v, Some(val));
        if exists_completion(g, dom, searches, vars, i + 1, stop, stopped) {
            found = true;
            break;
        }
        if *stopped {
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
    let fm = final_memory(g.world, finals);
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
        let runs: Vec<&Unfolding> = chosen.iter().enumerate().map(|(t, &r)| st.runs[t][r]).collect();
        let v = Visited { g: st.g, so, runs, relations, outcome: Some(o) };
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
        if let Goal::Among(wanted) = st.goal {
            // (outcomes with final values may share their registers)
            let found: BTreeSet<&Regs> =
                st.res.outcomes.keys().map(|o| &o.regs).filter(|r| wanted.contains(*r)).collect();
            if found.len() == wanted.len() {
                st.res.stopped = true;
            }
        }
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

/// Why a search stopped at the work bound `max_work`.
fn over_work(max_work: u64) -> String {
    format!("the witness search did more than {max_work} units of work (`mowgli litmus --max-work` sets the bound)")
}
