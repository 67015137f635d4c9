//! The explicit engine: enumerate the plain executions of a bounded program
//! (`⟦p̃⟧`, return values drawn from what the libraries can return), stamp them,
//! and search every library's witnesses jointly with a backtracking search that
//! prunes a partial witness as soon as a library's own conditions or the global
//! acyclicity of hb = (ppo ∪ so)⁺ (LOCO Def. 3.6) fail for it. Library conditions
//! are monotone in the witness, so pruning never loses a consistent execution.
//!
//! Since every library predicate is monotone (Def. 3.5), a Λ-consistent execution
//! exists iff one exists with the least hb, (ppo ∪ so)⁺; that is the hb used here.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use mowgli_core::library::FinalValue;
use mowgli_core::program::{unfold, CallRecord, Prog, UnfoldError};
use mowgli_core::{Event, ExecGraph, Library, NodeId, StampTable, Value, ValueDomain, World};

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
    /// Plain executions enumerated.
    pub plain: u64,
    /// Witness-search nodes visited (partial and complete candidates checked).
    pub candidates: u64,
    /// Complete candidates a naive enumeration (every rf × mo × nfo product of
    /// every plain execution) would check.
    pub naive: f64,
    /// Consistent executions.
    pub consistent: u64,
    pub micros: u128,
}

/// A consistent execution, kept as an example for an outcome.
#[derive(Clone, Debug)]
pub struct Witness {
    pub events: Vec<Event>,
    pub relations: Vec<(String, Vec<(usize, usize)>)>,
    pub subevents: Vec<(usize, String)>,
}

#[derive(Clone, Debug, Default)]
pub struct Results {
    pub outcomes: BTreeMap<Outcome, Option<Witness>>,
    pub stats: Stats,
    /// Some loop hit the unrolling bound: the result is bounded.
    pub bound_hit: bool,
    skeletons: std::collections::HashSet<Vec<Skeleton>>,
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Unfold(#[from] UnfoldError),
}

/// Computes outcome_Λ(p̃) by explicit enumeration.
pub fn run(p: &Problem, keep_witnesses: bool) -> Result<Results, EngineError> {
    let start = Instant::now();
    let mut res = Results::default();
    // ⟦p_t⟧_t for every thread
    let mut per_thread = Vec::new();
    for (t, (prog, nregs)) in p.threads.iter().enumerate() {
        let mut returns =
            |lib: usize, method: usize, args: &[Value]| p.libs[lib].returns(&p.world, t, method, args, &p.domain);
        let u = unfold(prog, *nregs, p.loop_bound, &mut returns)?;
        res.bound_hit |= u.bound_hit;
        // only properly terminating runs (break number 0)
        per_thread.push(u.runs.into_iter().filter(|r| r.breaks == 0).collect::<Vec<_>>());
    }
    let mut choice = vec![0usize; per_thread.len()];
    if per_thread.iter().any(|r| r.is_empty()) {
        res.stats.micros = start.elapsed().as_micros();
        return Ok(res);
    }
    loop {
        // build the plain execution for this combination
        let mut events = Vec::new();
        for (t, runs) in per_thread.iter().enumerate() {
            for (i, c) in runs[choice[t]].calls.iter().enumerate() {
                let CallRecord { lib, method, args, ret } = c.clone();
                events.push(Event { thread: t, index: i, lib, method, args, ret });
            }
        }
        let regs: Vec<Vec<Option<Value>>> =
            per_thread.iter().enumerate().map(|(t, r)| r[choice[t]].env.clone()).collect();
        res.stats.plain += 1;
        search_plain(p, events, &regs, keep_witnesses, &mut res);
        // next combination
        let mut t = 0;
        loop {
            if t == choice.len() {
                res.stats.micros = start.elapsed().as_micros();
                return Ok(res);
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
    let mut per_thread = Vec::new();
    for (t, (prog, nregs)) in p.threads.iter().enumerate() {
        let mut returns =
            |lib: usize, method: usize, args: &[Value]| p.libs[lib].returns(&p.world, t, method, args, &p.domain);
        let u = unfold(prog, *nregs, p.loop_bound, &mut returns)?;
        per_thread.push(u.runs.into_iter().filter(|r| r.breaks == 0).collect::<Vec<_>>());
    }
    if per_thread.iter().any(|r| r.is_empty()) {
        return Ok(());
    }
    let mut choice = vec![0usize; per_thread.len()];
    loop {
        let mut events = Vec::new();
        for (t, runs) in per_thread.iter().enumerate() {
            for (i, c) in runs[choice[t]].calls.iter().enumerate() {
                let CallRecord { lib, method, args, ret } = c.clone();
                events.push(Event { thread: t, index: i, lib, method, args, ret });
            }
        }
        f(&graph(p, events));
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

fn search_plain(p: &Problem, events: Vec<Event>, regs: &[Vec<Option<Value>>], keep: bool, res: &mut Results) {
    let g = graph(p, events);
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
    // a read whose value no write (nor the initial value) can supply: this plain
    // execution has no witness at all, and a naive rf-first enumerator never builds it
    if vars.iter().any(|&(l, v)| searches[l].domain(v) == 0) {
        return;
    }
    let mut st = SearchState { g: &g, to: p.to, regs, keep, res, prune: p.prune };
    dfs(&mut st, &mut searches, &vars, 0);
}

struct SearchState<'s, 'g> {
    g: &'s ExecGraph<'g>,
    regs: &'s [Vec<Option<Value>>],
    keep: bool,
    res: &'s mut Results,
    to: &'s StampTable,
    prune: bool,
}

/// Λ-consistency of the current partial witness (LOCO Def. 3.6).
fn check_all(g: &ExecGraph, searches: &mut [Box<dyn mowgli_core::WitnessSearch + '_>]) -> bool {
    mowgli_core::library::lambda_consistent(g, searches).is_some()
}

fn dfs(
    st: &mut SearchState,
    searches: &mut [Box<dyn mowgli_core::WitnessSearch + '_>],
    vars: &[(usize, usize)],
    i: usize,
) {
    // one consistency check per node that follows a real choice (a variable with
    // a single value is forced, so its check is left to the next choice), and at
    // every leaf
    let after_choice = i > 0 && {
        let (l, v) = vars[i - 1];
        searches[l].domain(v) > 1
    };
    if (after_choice && st.prune) || i == vars.len() {
        st.res.stats.candidates += 1;
        if !check_all(st.g, searches) {
            return;
        }
    }
    if i == vars.len() {
        st.res.stats.consistent += 1;
        let mut finals = Vec::<FinalValue>::new();
        for s in searches.iter() {
            s.finals(&mut finals);
        }
        let mut fm = BTreeMap::new();
        for (l, li) in st.g.world.locs.iter().enumerate() {
            if li.implicit {
                continue;
            }
            match li.home {
                Some(_) => {
                    fm.insert((l, None), li.init.clone());
                }
                None => {
                    for &n in &st.g.world.nodes {
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
        let o = Outcome { regs: st.regs.to_vec(), finals: fm };
        if !st.res.outcomes.contains_key(&o) {
            let w = if st.keep { Some(witness(st.g, st.to, searches)) } else { None };
            st.res.outcomes.insert(o, w);
        }
        return;
    }
    let (l, v) = vars[i];
    for val in 0..searches[l].domain(v) {
        searches[l].assign(v, Some(val));
        dfs(st, searches, vars, i + 1);
    }
    searches[l].assign(v, None);
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
        relations,
        subevents: g.subs.iter().map(|s| (s.event, to.stamp_name(s.stamp))).collect(),
    }
}

/// Wall-clock helper for reports.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
