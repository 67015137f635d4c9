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
//! Static parts: the libraries' relational programs come with their static parts already evaluated
//! (`RelExpr::Rel` constants), here over the union. A static composition whose
//! only middle event lies in a copy that is not taken (e.g. same node ; same
//! location, through another copy's event) relates two events the group's own
//! graph does not relate; guarding the constant by its two ends does not remove
//! it. Over-constraining is the unsafe direction (a missed counterexample). So
//! each group's own predicate (its `RelSpec`, built anyway for its relation
//! analysis) is compared with the union's restricted to the group's subevents
//! ([`same_on`]: every constant set and relation, every declared witness's pairs
//! and candidates, every read's candidate writes); a group where they differ is
//! left to the per-group path.
//!
//! Groups with an abstract execution the negation does not cover (O0 fails, a map
//! entry to infer, L mentions hb) are left to the per-group path, and so is the
//! whole program when the union alone violates a library's static axioms (a
//! static relation between copies that never coexist) or a variable of the union
//! has no value.

use std::collections::HashSet;

use mowgli_core::program::Unfolding;
use mowgli_core::symbolic::{RelExpr, RelSpec, SymAxiomKind, SymWitness};
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
    /// Groups whose own predicate differs from the union's on their subevents
    /// ([`same_on`]), left to the per-group path.
    pub differing: u64,
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
        if !specs.iter().zip(&specs_g).all(|(u, o)| same_on(u, o, &w.sub_map[gi])) {
            out.differing += 1;
            alone.push(gi);
            continue;
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

/// Whether the union's predicate `u` restricted to a group's subevents (`map`: the
/// group's subevent → the union's) is the group's own `own`: the same constants
/// (sets, relations) at the same places of the same relational program, the same
/// declared witnesses' pairs and candidates, the same candidate writes per read.
/// (The union's extra members all involve another copy's subevents, which the
/// guards remove when the group is taken.)
fn same_on(u: &RelSpec, own: &RelSpec, map: &[usize]) -> bool {
    let inside: std::collections::HashSet<usize> = map.iter().copied().collect();
    let (um, om) = (&u.mem, &own.mem);
    // every read's candidates (write subevents; None: the initial value)
    let reads_agree = om.reads.iter().enumerate().all(|(r, rd)| {
        let Some(ur) = um.reads.iter().position(|x| x.sub == map[rd.sub]) else { return false };
        let mut mine: Vec<Option<usize>> = om.candidates(r).iter().map(|c| c.map(|w| map[om.writes[w].sub])).collect();
        let mut theirs: Vec<Option<usize>> = um
            .candidates(ur)
            .iter()
            .map(|c| c.map(|w| um.writes[w].sub))
            .filter(|c| c.is_none_or(|s| inside.contains(&s)))
            .collect();
        mine.sort_unstable();
        theirs.sort_unstable();
        mine == theirs
    });
    let writes_agree = om.writes.iter().all(|w| um.writes.iter().any(|x| x.sub == map[w.sub]))
        && um.writes.iter().filter(|w| inside.contains(&w.sub)).count() == om.writes.len()
        && um.reads.iter().filter(|r| inside.contains(&r.sub)).count() == om.reads.len();
    let (up, op) = (&u.program, &own.program);
    let witnesses_agree = up.witnesses.len() == op.witnesses.len()
        && up.witnesses.iter().zip(&op.witnesses).all(|(a, b)| match (a, b) {
            (SymWitness::Orients(x), SymWitness::Orients(y)) => {
                let mut mine: Vec<(usize, usize)> = y.iter().map(|&(p, q)| (map[p], map[q])).collect();
                let mut theirs: Vec<(usize, usize)> =
                    x.iter().copied().filter(|(p, q)| inside.contains(p) && inside.contains(q)).collect();
                mine.sort_unstable();
                theirs.sort_unstable();
                mine == theirs
            }
            (SymWitness::Picks(x), SymWitness::Picks(y)) => y.iter().all(|(b, cands)| {
                x.iter().find(|(t, _)| *t == map[*b]).is_some_and(|(_, theirs)| {
                    let mut mine: Vec<usize> = cands.iter().map(|&c| map[c]).collect();
                    let mut theirs: Vec<usize> = theirs.iter().copied().filter(|c| inside.contains(c)).collect();
                    mine.sort_unstable();
                    theirs.sort_unstable();
                    mine == theirs
                })
            }),
            _ => false,
        });
    let exprs = |a: &[RelExpr], b: &[RelExpr]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_expr(x, y, map));
    let axioms = |a: &[(String, SymAxiomKind, RelExpr)], b: &[(String, SymAxiomKind, RelExpr)]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.0 == y.0 && x.1 == y.1 && same_expr(&x.2, &y.2, map))
    };
    reads_agree
        && writes_agree
        && witnesses_agree
        && exprs(&up.lets, &op.lets)
        && exprs(&up.so, &op.so)
        && axioms(&up.axioms, &op.axioms)
        && axioms(&up.hb_axioms, &op.hb_axioms)
}

/// [`same_on`] for one expression: the same operators, and constants that agree
/// on the group's subevents.
fn same_expr(u: &RelExpr, own: &RelExpr, map: &[usize]) -> bool {
    use RelExpr as E;
    match (u, own) {
        (E::Set(a), E::Set(b)) => b.iter().enumerate().all(|(x, &m)| a.get(map[x]).copied().unwrap_or(false) == m),
        (E::Rel(a), E::Rel(b)) => {
            (0..map.len()).all(|x| (0..map.len()).all(|y| a.contains(map[x], map[y]) == b.contains(x, y)))
        }
        (E::Rf, E::Rf) | (E::Mo, E::Mo) | (E::Rb, E::Rb) | (E::Hb, E::Hb) => true,
        (E::Wit(i), E::Wit(j)) | (E::Let(i), E::Let(j)) => i == j,
        (E::Ident(a), E::Ident(b))
        | (E::Domain(a), E::Domain(b))
        | (E::Range(a), E::Range(b))
        | (E::Inv(a), E::Inv(b))
        | (E::Plus(a), E::Plus(b)) => same_expr(a, b, map),
        (E::Prod(a, b), E::Prod(c, d))
        | (E::Seq(a, b), E::Seq(c, d))
        | (E::Union(a, b), E::Union(c, d))
        | (E::Inter(a, b), E::Inter(c, d))
        | (E::Diff(a, b), E::Diff(c, d)) => same_expr(a, c, map) && same_expr(b, d, map),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mowgli_core::memory::RfMo;
    use mowgli_core::symbolic::RelProgram;
    use mowgli_core::BitRel;

    /// A predicate over `n` subevents whose one axiom is `acyclic r` for the
    /// constant r.
    fn spec(n: usize, r: BitRel) -> RelSpec {
        let program = RelProgram {
            witnesses: vec![],
            lets: vec![],
            axioms: vec![(
                "a".into(),
                SymAxiomKind::Acyclic,
                RelExpr::Seq(Box::new(RelExpr::Rel(r)), Box::new(RelExpr::Rf)),
            )],
            hb_axioms: vec![],
            so: vec![],
        };
        RelSpec { possible: true, mem: RfMo::new(n, vec![], vec![], vec![]), program }
    }

    /// A union of 4 subevents, the group being its subevents 1 and 3: a constant
    /// that agrees there (whatever it says about 0 and 2) passes; one that relates
    /// 1 and 3 where the group does not (a composition through another copy) fails.
    #[test]
    fn constants_are_compared_on_the_group_only() {
        let mut own = BitRel::new(2);
        own.add(0, 1);
        let mut union = BitRel::new(4);
        union.add(1, 3);
        union.add(0, 2);
        let map = [1, 3];
        assert!(same_on(&spec(4, union.clone()), &spec(2, own.clone()), &map));
        union.add(3, 1);
        assert!(!same_on(&spec(4, union), &spec(2, own), &map), "an extra pair between the group's subevents");
    }
}
