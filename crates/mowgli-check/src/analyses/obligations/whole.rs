//! The Z3 path of the obligations over a whole abstract program at once
//! (`--z3-whole`): one query for every group of plain executions of the
//! program, where the groups differ in their events (the implementation branches
//! or loops on returned values: ilock, ibal, irbl, the mutants).
//!
//! The encoding is over the union of the groups' events
//! (`engines::explicit::WholeProgram`): per thread one copy of its events per
//! group it takes part in, each guarded by its path condition (a selector: the
//! thread takes this copy; the returned values that select an unfolding of the
//! copy are the same conditions as in a group's query), the libraries' predicates
//! over guarded events (`Encoding::whole`). The goal is the disjunction, over the
//! groups G and their abstract executions A, of "G's copies are taken ∧ the
//! returned values select A ∧ ¬(O1 ∧ O2 ∧ O3) for A" ([`Judge::negate`] on G's own
//! graph, renumbered into the union). Unsatisfiable: every group is discharged by
//! one query. A model names a group; that group is then checked by the per-group
//! path (`symbolic::check_groups`: its models confirmed by the explicit checks,
//! as always) and excluded from the whole query, which is asked again. So a
//! verdict never rests on the whole query's models alone; a model the per-group
//! path does not confirm (on a group without a witness tree, whose goal is
//! exact) is a disagreement of the two encodings, an error.
//!
//! A known gap, why this path is opt-in beyond its speed: the libraries'
//! relational programs come with their static parts already evaluated
//! (`RelExpr::Rel` constants), here over the union. A static composition whose
//! only middle event lies in a copy that is not taken (e.g. same node ; same
//! location, through another copy's event) relates two events the group's own
//! graph does not relate; guarding the constant by its two ends does not remove
//! it. Over-constraining is the unsafe direction (a missed counterexample). No
//! such constant arises in the libraries the agreement tests cover (their static
//! compositions go through po, which stays inside a copy); evaluating the static
//! parts per group, or guarding the middle events, would close it.
//!
//! Groups with an abstract execution the negation does not cover (O0 fails, a map
//! entry to infer, L mentions hb) are left to the per-group path, and so is the
//! whole program when the union alone violates a library's static axioms (a
//! static relation between copies that never coexist) or a variable of the union
//! has no value.

use std::collections::HashSet;

use mowgli_core::program::Unfolding;
use mowgli_core::{Event, ExecGraph, StampTable};

use super::drive::Shared;
use super::judge::Judge;
use super::symbolic::{Limits, LIMIT_SLACK, Z3_STOPPED};
use crate::engines::explicit::{Alternatives, Problem, WholeProgram};
use crate::engines::z3::{Cond, Encoding, Spare, Z3Error};

/// What the whole-program queries did.
#[derive(Default)]
pub(super) struct WholeOut {
    /// Per abstract execution discharged by a whole query: the methods it calls.
    pub discharged: Vec<Vec<String>>,
    pub abstract_seen: HashSet<Vec<Event>>,
    /// Whole queries, those the relation analysis decided, witness trees stated.
    pub queries: u64,
    pub statically: u64,
    pub trees: u64,
    /// Groups a model of a whole query named (each then checked per group).
    pub models: u64,
    /// Programs (with more than one group) left to the per-group path entirely.
    pub fallbacks: u64,
}

/// Per thread, its classes of unfoldings ([`classes`]): (a representative, the members).
type Classes = Vec<Vec<(usize, Vec<usize>)>>;

/// A group whose every abstract execution has its negation: the group, its
/// classes, and per abstract execution (one class per thread) the negation.
type Planned = (usize, Classes, Vec<(Vec<usize>, super::symbolic::Negation)>);

/// The per-group path on one group (`symbolic::check_groups`'s closure).
pub(super) type PerGroup<'a> = dyn FnMut(&ExecGraph, &Alternatives) -> Result<bool, String> + 'a;

/// Checks the program `w` (module comment). Returns whether to go on.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_whole(
    w: &WholeProgram,
    p: &Problem,
    to: &StampTable,
    judge: &Judge,
    state: &Shared,
    limits: &Limits,
    refuted: &std::cell::Cell<u64>,
    per_group: &mut PerGroup,
    out: &mut WholeOut,
) -> Result<bool, String> {
    let past = limits.past;
    let each = |gs: &mut dyn Iterator<Item = usize>, per_group: &mut PerGroup| -> Result<bool, String> {
        for gi in gs {
            let (g, alts, _) = &w.groups[gi];
            if !per_group(g, alts)? {
                return Ok(false);
            }
        }
        Ok(true)
    };
    if w.groups.len() <= 1 {
        return each(&mut (0..w.groups.len()), per_group);
    }
    let searches: Vec<_> = p.libs.iter().enumerate().map(|(i, l)| l.search(&w.union, to, i)).collect();
    let mut specs = Vec::with_capacity(searches.len());
    for (l, s) in searches.iter().enumerate() {
        specs.push(s.relspec().ok_or_else(|| Z3Error::Unsupported(p.libs[l].name().to_string()).to_string())?);
    }
    let empty = searches.iter().any(|s| (0..s.num_vars()).any(|v| s.domain(v) == 0));
    if empty || specs.iter().any(|s| !s.possible) {
        out.fallbacks += 1;
        return each(&mut (0..w.groups.len()), per_group);
    }
    // the negations first, on each group's own graph with the relation analysis
    // of the group's own encoding (built, not solved: a pair in must-hb of G, or
    // in no may-hb of G, is so in the union whenever G's copies are taken, and
    // each group's disjunct requires that), so that a program none of whose
    // groups is covered builds no union encoding
    let mut planned: Vec<Planned> = Vec::new();
    let mut alone: Vec<usize> = Vec::new();
    let mut spare: Option<Spare> = None;
    for (gi, (g, alts, _)) in w.groups.iter().enumerate() {
        let classes = classes(alts);
        let searches: Vec<_> = p.libs.iter().enumerate().map(|(i, l)| l.search(g, to, i)).collect();
        if searches.iter().any(|s| (0..s.num_vars()).any(|v| s.domain(v) == 0)) {
            continue; // no witness at all: no execution (as per group)
        }
        let mut specs_g = Vec::with_capacity(searches.len());
        for (l, s) in searches.iter().enumerate() {
            specs_g.push(s.relspec().ok_or_else(|| Z3Error::Unsupported(p.libs[l].name().to_string()).to_string())?);
        }
        let own = match spare.take() {
            Some(solver) => Encoding::in_solver(solver, g, &specs_g),
            None => Encoding::new(g, &specs_g),
        };
        let mut combos = Vec::new();
        let mut pick = vec![0usize; classes.len()];
        let covered = 'combos: loop {
            let runs: Vec<&Unfolding> = pick.iter().enumerate().map(|(t, &c)| alts[t][classes[t][c].0].1).collect();
            let inferred = state.borrow().1.clone();
            let negated = judge.negate(g, &inferred, &runs, &|x, y| own.path_fact(x, y), limits);
            if past() {
                return Ok(false);
            }
            let Some(neg) = negated else { break 'combos false };
            combos.push((pick.clone(), neg));
            let mut t = 0;
            loop {
                if t == pick.len() {
                    break 'combos true;
                }
                pick[t] += 1;
                if pick[t] < classes[t].len() {
                    break;
                }
                pick[t] = 0;
                t += 1;
            }
        };
        spare = Some(own.release());
        if covered {
            planned.push((gi, classes, combos));
        } else {
            alone.push(gi);
        }
    }
    if planned.is_empty() {
        out.fallbacks += 1;
        return each(&mut alone.into_iter(), per_group);
    }
    let (mut enc, sel) = Encoding::whole(&w.union, &specs, &w.copy_of, &w.copies);
    // per group in the whole query: (group, its selector, the methods of each
    // abstract execution, whether one is a witness tree)
    let mut inside: Vec<(usize, Cond, Vec<Vec<String>>, bool)> = Vec::new();
    let mut disjuncts: Vec<Cond> = Vec::new();
    for (gi, classes, combos) in planned {
        let (g, alts, choice) = &w.groups[gi];
        let taken = Cond::all(&choice.iter().enumerate().map(|(t, &k)| sel[t][k].clone()).collect::<Vec<_>>());
        let conds = conditions(&mut enc, w, gi, g, alts, &classes)?;
        let (mut methods, mut tree) = (Vec::new(), false);
        for (pick, (goal, abs, ms, _)) in combos {
            out.abstract_seen.insert(abs);
            if goal.tree.is_some() {
                tree = true;
                out.trees += 1;
            }
            let select = Cond::all(&pick.iter().enumerate().map(|(t, &c)| conds[t][c].clone()).collect::<Vec<_>>());
            let neg = enc.separation(&goal.mapped(&w.sub_map[gi]));
            disjuncts.push(Cond::all(&[taken.clone(), select, neg]));
            methods.push(ms);
        }
        inside.push((gi, taken, methods, tree));
    }
    out.queries += 1;
    let goal = Cond::any(&disjuncts);
    let mut open = vec![true; inside.len()];
    if goal.constant() == Some(false) {
        out.statically += 1;
    } else {
        enc.require(&goal);
        loop {
            if past() {
                return Ok(false);
            }
            if let Some(d) = limits.deadline {
                enc.set_timeout(d.saturating_duration_since(std::time::Instant::now()));
            }
            let next = match enc.next() {
                Ok(n) => n,
                Err(_) if limits.deadline.is_some_and(|d| d <= std::time::Instant::now() + LIMIT_SLACK) => {
                    return Err(Z3_STOPPED.into())
                }
                Err(e) => return Err(e.to_string()),
            };
            if next.is_none() {
                break;
            }
            let Some(i) = (0..inside.len()).find(|&i| open[i] && enc.holds(&inside[i].1)) else {
                return Err("the whole-program query's model takes no group".into());
            };
            open[i] = false;
            out.models += 1;
            let (gi, taken, _, tree) = &inside[i];
            let before = refuted.get();
            let (g, alts, _) = &w.groups[*gi];
            if !per_group(g, alts)? {
                return Ok(false);
            }
            if refuted.get() == before && !tree {
                return Err(format!(
                    "the whole-program and per-group Z3 encodings disagree: a model of the whole query takes \
                     group {gi}, where the per-group query finds no counterexample"
                ));
            }
            enc.require(&taken.not());
        }
    }
    for (i, (_, _, methods, _)) in inside.into_iter().enumerate() {
        if open[i] {
            out.discharged.extend(methods);
        }
    }
    each(&mut alone.into_iter(), per_group)
}

/// Per thread, its unfoldings (alternatives) by the abstract calls they make (with
/// return values): (a representative, the members), as `symbolic::check_groups`
/// has them per group.
fn classes(alts: &Alternatives) -> Classes {
    alts.iter()
        .map(|thread_alts| {
            let mut mine: Vec<(usize, Vec<usize>)> = Vec::new();
            for (k, (_, run)) in thread_alts.iter().enumerate() {
                match mine.iter_mut().find(|(rep, _)| thread_alts[*rep].1.abstract_calls == run.abstract_calls) {
                    Some((_, ks)) => ks.push(k),
                    None => mine.push((k, vec![k])),
                }
            }
            mine
        })
        .collect()
}

/// Per thread of group `gi`, per class of [`classes`], the condition over the
/// union's returned values that selects it.
fn conditions(
    enc: &mut Encoding,
    w: &WholeProgram,
    gi: usize,
    g: &ExecGraph,
    alts: &Alternatives,
    classes: &[Vec<(usize, Vec<usize>)>],
) -> Result<Vec<Vec<Cond>>, String> {
    let mut out = Vec::with_capacity(classes.len());
    for (t, thread_classes) in classes.iter().enumerate() {
        let sym_events: Vec<usize> = (0..g.events.len()).filter(|&e| g.sym_ret[e] && g.events[e].thread == t).collect();
        let mut mine = Vec::with_capacity(thread_classes.len());
        for (_, members) in thread_classes {
            let mut cs = Vec::with_capacity(members.len());
            for &k in members {
                let conds: Vec<Cond> = sym_events
                    .iter()
                    .zip(alts[t][k].0.iter())
                    .map(|(&e, v)| enc.returns(&w.union, w.event_map[gi][e], v))
                    .collect::<Option<_>>()
                    .ok_or("the Z3 encoding has no read for an open return value")?;
                cs.push(Cond::all(&conds));
            }
            mine.push(Cond::any(&cs));
        }
        out.push(mine);
    }
    Ok(out)
}
