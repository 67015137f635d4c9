//! The Z3 path of the obligations: per group of plain executions, the negated
//! obligations as a goal over the engine's witness encoding
//! ([`crate::engines::z3`]); each model is confirmed by the explicit checks.

use std::collections::BTreeMap;

use mowgli_core::program::Unfolding;
use mowgli_core::{BitRel, Event, ExecGraph, StampTable};

use super::drive::Shared;
use super::judge::{abstract_events_of, o0_violation, preimage, setup_method_name, Judge};
use super::witsets;
use crate::engines::explicit::{self, Problem, Visited};
use crate::engines::z3::{Cond, Encoding, Separation, Spare, Z3Error};
use crate::lang::maps::{self, MapEntry};

/// Above this many flat clauses of ¬(O2 ∧ O3) (after subsumption), the witness
/// tree is stated instead ([`crate::engines::z3::WitnessTree`]). Measured on
/// `--partition 1/8` (I_SV: 388 programs, I_MSW: 253; Z3 CPU user, one run each,
/// noise about ±20 %): always the tree: I_SV 2.9 s, I_MSW 5.0 s; above 64:
/// 2.8 s, 4.7 s; above 512: 3.0 s, 5.1 s; above 4,096: 3.7 s, 5.6 s; never: 5.4 s,
/// 4.6 s. On the whole of I_MSW 2 × 2 × 2 always the tree took 43.6 s against 32.7 s
/// flat (its programs have few witnesses); above 64 it is flat on nearly all.
pub(super) const TREE_ABOVE: usize = 64;

/// ¬(O1 ∧ O2 ∧ O3) of one abstract execution ([`Judge::negate`]): the goal, the
/// abstract events, the methods they call, and g.
pub(super) type Negation = (Separation, Vec<Event>, Vec<String>, Vec<usize>);

/// The time limit of a Z3 run, and when to use the witness tree.
pub(super) struct Limits<'a> {
    /// True once the time limit has passed.
    pub past: &'a dyn Fn() -> bool,
    /// The time limit, also given to the solver (one `check` can take long).
    pub deadline: Option<std::time::Instant>,
    /// [`TREE_ABOVE`] or the run's option.
    pub tree_above: usize,
    /// Guard the tree by the read-back (else by nothing: `Options::z3_no_read_back`).
    pub read_back: bool,
    /// One query per abstract program over the union of its groups
    /// ([`super::whole`], `Options::z3_whole`).
    pub whole: bool,
}

thread_local! {
    /// The solver [`check_groups`] used last on this thread (popped back to empty),
    /// for the next program: reusing it across programs, not only across the
    /// groups of one, saves building a solver per program. Measured (I_SV and I_MSW
    /// 2 × 2 × 2, `--partition 1/8`, Z3 CPU user, five runs each, alternating, load
    /// average 3 on 2 cores): I_SV 2.85 s mean (2.80 median) against 2.45 s (2.36)
    /// kept; I_MSW 3.82 s (4.17) against 3.06 s (3.02) kept.
    static KEPT: std::cell::RefCell<Option<Spare>> = const { std::cell::RefCell::new(None) };
}

/// What [`check_groups`] returns when the solver stopped at the time limit (the
/// caller marks the run incomplete).
pub(super) const Z3_STOPPED: &str = "Z3 stopped at the time limit";

/// How early Z3's own timeout may fire and still count as the time limit.
pub(super) const LIMIT_SLACK: std::time::Duration = std::time::Duration::from_millis(50);

/// Z3: per group of plain executions (those that differ only in open return
/// values), a model of Λ-consistency ∧ ⋁_A (the values select A ∧ ¬(O1 ∧ O2 ∧ O3)
/// for A), over the abstract executions A of the group, is a candidate
/// counterexample, confirmed by `visit`; no model discharges every execution of the
/// group at once. `refuted` counts the refutations `visit` records.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_groups(
    p: &Problem,
    to: &StampTable,
    judge: &Judge,
    state: &Shared,
    name: &str,
    refuted: &std::cell::Cell<u64>,
    limits: &Limits,
    visit: &mut dyn FnMut(&Visited) -> bool,
    abs_before: u64,
) -> Result<(), String> {
    // Z3: per group of plain executions (those that differ only in open return
    // values), a model of Λ-consistency ∧ ⋁_A (the values select A ∧ ¬(O1 ∧ O2 ∧
    // O3) for A), over the abstract executions A of the group, is a candidate
    // counterexample, confirmed by `visit`; no model discharges every execution
    // of the group at once
    let mut discharged: Vec<Vec<String>> = Vec::new();
    let mut abstract_seen: std::collections::HashSet<Vec<Event>> = std::collections::HashSet::new();
    // the solver of the previous program (on this thread), for this one's first group
    let mut spare: Option<Spare> = KEPT.with(|k| k.borrow_mut().take());
    // groups (one query each), and those the relation analysis settled
    let (mut queries, mut statically) = (0u64, 0u64);
    // models of the witness trees the explicit check did not confirm (refined)
    let mut spurious = 0u64;
    let (past, deadline) = (limits.past, limits.deadline);
    let mut trees = 0u64;
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
            specs.push(s.relspec().ok_or_else(|| Z3Error::Unsupported(p.libs[l].name().to_string()).to_string())?);
        }
        let mut enc = match spare.take() {
            Some(solver) => Encoding::in_solver(solver, g, &specs),
            None => Encoding::new(g, &specs),
        };
        // the abstract executions of the group: per thread, its unfoldings by the
        // abstract calls they make (with return values), each selected by the
        // open return values of any of them
        let mut classes: Vec<Vec<(usize, Cond)>> = Vec::with_capacity(alts.len());
        for (t, thread_alts) in alts.iter().enumerate() {
            let sym_events: Vec<usize> =
                (0..g.events.len()).filter(|&e| g.sym_ret[e] && g.events[e].thread == t).collect();
            let mut mine: Vec<(usize, Vec<Cond>)> = Vec::new();
            for (k, (pat, run)) in thread_alts.iter().enumerate() {
                let conds: Vec<Cond> = sym_events
                    .iter()
                    .zip(pat.iter())
                    .map(|(&e, v)| enc.returns(g, e, v))
                    .collect::<Option<_>>()
                    .ok_or("the Z3 encoding has no read for an open return value")?;
                let cond = Cond::all(&conds);
                match mine.iter_mut().find(|(rep, _)| thread_alts[*rep].1.abstract_calls == run.abstract_calls) {
                    Some((_, cs)) => cs.push(cond),
                    None => mine.push((k, vec![cond])),
                }
            }
            classes.push(mine.into_iter().map(|(rep, cs)| (rep, Cond::any(&cs))).collect());
        }
        // every combination of one class per thread: an abstract execution
        struct Combo {
            runs: Vec<usize>,
            select: Cond,
            /// ¬(O1 ∧ O2 ∧ O3) was stated (else its executions are enumerated)
            negated: bool,
            methods: Vec<String>,
            refuted: bool,
            /// ¬(O2 ∧ O3) stated as a witness tree: its guard (constrained by the
            /// clause of each witness a spurious model shows) and g
            tree: Option<(Cond, Vec<usize>)>,
        }
        let mut combos: Vec<Combo> = Vec::new();
        let mut pick = vec![0usize; classes.len()];
        let mut disjuncts: Vec<Cond> = Vec::new();
        'combos: loop {
            let runs: Vec<&Unfolding> = pick.iter().enumerate().map(|(t, &c)| alts[t][classes[t][c].0].1).collect();
            let select = Cond::all(&pick.iter().enumerate().map(|(t, &c)| classes[t][c].1.clone()).collect::<Vec<_>>());
            let inferred = state.borrow().1.clone();
            let negated = judge.negate(g, &inferred, &runs, &|x, y| enc.path_fact(x, y), limits);
            if past() {
                // (the witness enumeration of `negate` stopped at the time limit)
                return Ok(false);
            }
            let (disjunct, negated, methods, tree) = match negated {
                Some((mut goal, abs, methods, gmap)) => {
                    abstract_seen.insert(abs);
                    let tree = match goal.tree.as_mut() {
                        Some(t) => {
                            trees += 1;
                            let guard = enc.fresh("refine");
                            t.guard = Some(guard.clone());
                            Some((guard, gmap))
                        }
                        None => None,
                    };
                    let neg = enc.separation(&goal);
                    (Cond::all(&[select.clone(), neg]), true, methods, tree)
                }
                None => (select.clone(), false, Vec::new(), None),
            };
            disjuncts.push(disjunct);
            combos.push(Combo {
                runs: pick.iter().enumerate().map(|(t, &c)| classes[t][c].0).collect(),
                select,
                negated,
                methods,
                refuted: false,
                tree,
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
        let goal = Cond::any(&disjuncts);
        queries += 1;
        if goal.constant() == Some(false) {
            // the relation analysis decided every disjunct: no solver call
            statically += 1;
            discharged.extend(combos.into_iter().filter(|c| c.negated).map(|c| c.methods));
            spare = Some(enc.release());
            return Ok(true);
        }
        enc.require(&goal);
        loop {
            // the time limit also between the models of one group (a group with
            // many abstract executions can take minutes)
            if past() {
                return Ok(false);
            }
            // (a kept solver may carry an earlier program's limit: always set one)
            let left =
                deadline.map_or(std::time::Duration::MAX, |d| d.saturating_duration_since(std::time::Instant::now()));
            enc.set_timeout(left);
            let next = match enc.next() {
                Ok(n) => n,
                // the solver stopped at the time limit: not a verdict
                Err(_) if deadline.is_some_and(|d| d <= std::time::Instant::now() + LIMIT_SLACK) => {
                    return Err(Z3_STOPPED.into())
                }
                Err(e) => return Err(e.to_string()),
            };
            let Some(vals) = next else {
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
                        "the Z3 and explicit engines disagree: a Z3 model's return values select no unfolding".into()
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
            let v = Visited { g, so, runs, relations, outcome: None };
            let before = refuted.get();
            let go_on = visit(&v);
            if !go_on {
                return Ok(false);
            }
            if combos[ci].negated {
                if refuted.get() == before {
                    if let Some((guard, gmap)) = &combos[ci].tree {
                        // a spurious model of the over-approximating witness tree: the
                        // clause of the witness the explicit check found excludes it
                        let Some(pairs) = judge.covering_pairs(&v, gmap) else {
                            return Err(format!(
                                "the explicit check discharges an execution of {name} but finds no witness covering it"
                            ));
                        };
                        let clause = enc.some_no_path(&pairs);
                        enc.require(&guard.implies(&clause));
                        spurious += 1;
                        continue;
                    }
                    return Err(format!(
                        "the Z3 and explicit engines disagree: Z3 refutes an obligation on an execution of {name} \
                         that the explicit check discharges"
                    ));
                }
                // one confirmed counterexample per abstract execution of the group
                combos[ci].refuted = true;
                enc.require(&combos[ci].select.not());
            } else {
                // no symbolic negation here (see `Judge::negate`): every execution
                // is enumerated by Z3 and checked by `visit`
                enc.block(&vals, &vars);
            }
        }
    };
    let mut whole = super::whole::WholeOut::default();
    let r = if limits.whole {
        explicit::with_whole_program(p, &mut |w| {
            super::whole::check_whole(w, p, to, judge, state, limits, refuted, &mut plain, &mut whole)
        })
    } else {
        explicit::for_each_plain_group(p, &mut plain)
    };
    let r = r.map_err(|e| e.to_string());
    KEPT.with(|k| *k.borrow_mut() = spare.take());
    statically += whole.statically;
    trees += whole.trees;
    discharged.extend(whole.discharged);
    abstract_seen.extend(whole.abstract_seen);
    let mut guard = state.borrow_mut();
    let (rep, _, seen_abstract) = &mut *guard;
    seen_abstract.extend(abstract_seen);
    rep.abstract_executions = abs_before + seen_abstract.len() as u64;
    rep.plain_discharged += discharged.len() as u64;
    rep.z3_queries += queries;
    rep.z3_static += statically;
    rep.z3_trees += trees;
    rep.z3_refined += spurious;
    rep.z3_whole_queries += whole.queries;
    rep.z3_whole_models += whole.models;
    rep.z3_whole_fallbacks += whole.fallbacks;
    rep.z3_whole_differing += whole.differing;
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
}

impl Judge<'_> {
    /// ¬(O1 ∧ O2 ∧ O3) for the executions of the plain execution `g` (made of
    /// `runs`), as a [`Separation`] over its hb, with the abstract events and the
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
    ///   is not in hb (one clause per w, pruned by the relation analysis: `witsets`).
    ///
    /// g is given by the declared map, then by the entries inferred so far
    /// (`inferred`), then by the same stamp. `None` when the execution is not of
    /// that shape: O0 fails, the map leaves a subevent without an image (the
    /// explicit path would infer one: once it has, later groups use the entry), or
    /// L's predicate mentions hb; the caller then enumerates executions instead.
    pub(super) fn negate(
        &self,
        g: &ExecGraph,
        inferred: &BTreeMap<(String, String), MapEntry>,
        runs: &[&Unfolding],
        fact: &dyn Fn(usize, usize) -> Option<bool>,
        limits: &Limits,
    ) -> Option<Negation> {
        let to = self.to;
        let abs = abstract_events_of(runs);
        let stmp = |e: &Event| self.abs_lib.stamps(self.abs_world, e);
        let abs_g = ExecGraph::new(self.abs_world, abs.clone(), &stmp, to);
        let probe = Visited { g, so: BitRel::new(g.len()), runs: runs.to_vec(), relations: vec![], outcome: None };
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
        let some_path_missing = reqs;
        // the L-witnesses of the abstract execution, by their so'
        let mut search = self.abs_lib.search(&abs_g, to, 0);
        if search.needs_hb() {
            return None;
        }
        // O1 fails in every execution (the relation analysis finds an alternative no
        // path of may edges can join): no need for O2 and O3's clauses
        let no_path = |xs: &[usize], ys: &[usize]| xs.iter().all(|&x| ys.iter().all(|&y| fact(x, y) == Some(false)));
        if some_path_missing.iter().any(|(xs, ys)| no_path(xs, ys)) {
            let goal = Separation { some_path_missing, every_set: vec![Vec::new()], tree: None };
            return Some((goal, abs, methods, gmap));
        }
        // the enumeration stops at the time limit (its clauses then mean nothing:
        // the caller asks `past` and gives no verdict)
        let stop: Option<&dyn Fn() -> bool> = Some(limits.past);
        // O2 ∧ O3 fail: every witness has an so' edge whose image is not in hb;
        // one clause per witness, pruned by the relation analysis (`witsets`), or
        // the witnesses as a tree selected by the read-back (`WitnessTree`)
        let (minimal, tree) =
            match witsets::clauses_up_to(search.as_mut(), &abs_g, &gmap, fact, limits.tree_above, stop) {
                Some(flat) => (flat, None),
                None => match witsets::tree(search.as_mut(), &abs_g, &gmap, fact, limits.read_back, stop) {
                    Ok(t) => (Vec::new(), Some(t)),
                    Err(flat) => (flat, None),
                },
            };
        // no witness at all: O3 fails whatever hb is (every_set empty: true); a
        // witness whose so' images must-hb already orders: O2 and O3 hold (an empty
        // set: false)
        let goal = Separation { some_path_missing, every_set: minimal, tree };
        Some((goal, abs, methods, gmap))
    }
}
