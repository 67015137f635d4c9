//! Obligation D: each specification is a library in the sense of LOCO Def. 3.5,
//! i.e. its consistency predicate C is
//!
//! * **monotone**: if ⟨E, po, stmp, so, hb⟩ ∈ C and (ppo ∪ so)⁺ ⊆ hb' ⊆ hb then
//!   ⟨E, po, stmp, so, hb'⟩ ∈ C; and
//! * **decomposable**: if ⟨E1 ⊎ E2, po, stmp, so, hb⟩ ∈ C and loc(E1) ∩ loc(E2) = ∅
//!   then ⟨E1, po|E1, stmp|E1, so|E1, hb|E1⟩ ∈ C,
//!
//! checked up to a bound on the library's own programs (the generator of
//! `mowgli refine`, every program of the bound over that library alone).
//!
//! A library's C is presented as a witness search: C holds of ⟨E, po, stmp, so, hb⟩
//! iff some witness (rf, mo, …) passes the library's conditions, produces exactly
//! that so, and passes the conditions that mention hb (`check_hb`) for hb. So:
//!
//! * monotonicity is checked on every complete witness that passes the library's
//!   own conditions with ppo ∪ so acyclic: if it passes `check_hb` for some larger
//!   strict order hb — every one-pair extension (hb0 ∪ {(a, b)})⁺ of hb0 =
//!   (ppo ∪ so)⁺ is tried — it must pass for hb0. (A predicate without hb
//!   conditions is monotone by construction: that is reported, not searched.) This
//!   is a bounded test of the implication, not a proof: larger extensions are
//!   not enumerated;
//! * decomposability is checked on every consistent execution (witness with hb0)
//!   and every split of its events E1 ⊎ E2 with disjoint locations (events
//!   without locations — fences, waits — go to either side): the restricted graph
//!   must have a witness whose so is exactly so|E1 and which passes `check_hb` for
//!   hb0|E1.
//!
//! **Finding: RDMA^WAIT is not decomposable with so as an equation.** Def. F.2
//! defines so = iso ∪ rf_e ∪ pfg ∪ nfo ∪ rb ∪ mo ∪ ([Inst]; ib) with ib a
//! transitive closure, so an ib path from an instantaneous subevent through events
//! of other locations becomes an so edge between the endpoints; restricted to E1 the
//! path is gone and no witness of E1 generates the edge. The check finds it at
//! 2 threads × 2 calls: `T1: r0 = Read(x); Mfence()  T2: Mfence(); Write(x, 1)` with
//! r0 = 1 has (T2's aMF, T1's aMF) ∈ [Inst]; ib (aMF ippo aCW rf aCR ippo aMF), and
//! the two fences alone (no location: E1 = {both Mfences}) have no witness with that
//! so. The paper states decomposability of Def. F.2 without proof ("we can easily
//! check"). Read as an inclusion — so contains what the witness generates, which
//! changes no behaviour, since extra so edges only enlarge hb and every predicate
//! here is monotone — decomposability holds: the restriction of the witness
//! generates a subset of so|E1. The check therefore runs in both readings and
//! reports each (`not_decomposable`: the equation; `not_decomposable_sup`: the
//! inclusion). The inclusion reading is the one Thm. 3.14's proof (App. E, where
//! the client's events are cut away) needs.

use mowgli_core::{BitRel, Event, ExecGraph, Library, StampOrder, WitnessSearch};
use mowgli_libs::catalogue::Catalogue;
use serde::Serialize;

use crate::analyses::refine::gen::{Bounds, Generator};
use crate::engines::explicit;
use crate::lang::lower;

/// What D came to for one library.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SpecReport {
    pub library: String,
    /// Programs of the bound over the library.
    pub programs: usize,
    /// Complete witnesses examined for monotonicity (library conditions, ppo ∪ so acyclic).
    pub witnesses: u64,
    /// Of those, consistent executions (also `check_hb` for the least hb) examined for decomposability.
    pub executions: u64,
    /// One-pair hb extensions tried (0 when the predicate does not mention hb).
    pub extensions: u64,
    /// Splits E1 ⊎ E2 tried.
    pub splits: u64,
    /// Whether the predicate mentions hb at all (`WitnessSearch::needs_hb`) on some execution.
    pub mentions_hb: bool,
    /// A counterexample to monotonicity.
    pub not_monotone: Option<String>,
    /// A counterexample to decomposability as Def. 3.5 states it (the restricted
    /// execution's so must be exactly so|E1).
    pub not_decomposable: Option<String>,
    /// A counterexample to decomposability even when C is read as "so contains
    /// what the witness generates" (see the module comment).
    pub not_decomposable_sup: Option<String>,
    /// Whether the bound was covered (no time limit hit).
    pub complete: bool,
    pub millis: f64,
}

/// Every program over `lib` alone up to `bounds` (calls of `lib` only, with or
/// without registers), smallest first, as parsed tests, named
/// `PREFIX-LIB-SIZE-I`.
pub fn programs(
    lib: &str,
    order: &StampOrder,
    cat: &Catalogue,
    bounds: &Bounds,
    prefix: &str,
) -> Result<Vec<super::Program>, String> {
    let (out, _) = programs_until(lib, order, cat, bounds, prefix, None)?;
    Ok(out)
}

/// [`programs`], stopped when `deadline` passes: the programs of the size
/// classes generated whole by then, and whether every class was.
pub fn programs_until(
    lib: &str,
    order: &StampOrder,
    cat: &Catalogue,
    bounds: &Bounds,
    prefix: &str,
    deadline: Option<std::time::Instant>,
) -> Result<(Vec<super::Program>, bool), String> {
    let mut b = bounds.clone();
    b.observer = None;
    b.need_register = false;
    let mut g = Generator::in_catalogue(lib, order, cat, &b)?;
    g.deadline = deadline;
    let mut out = Vec::new();
    for size in 1..=g.max_size() {
        let class = g.class(size);
        if class.cut {
            return Ok((out, false));
        }
        for i in 0..class.distinct() {
            let name = format!("{prefix}-{lib}-{size}-{i}");
            out.push((name.clone(), g.litmus(&class, i, &name)));
        }
    }
    Ok((out, true))
}

/// D for library `lib` on its programs up to `bounds`, within `time_limit`.
pub fn check_library(
    lib: &str,
    order: &StampOrder,
    cat: &Catalogue,
    bounds: &Bounds,
    time_limit: Option<std::time::Duration>,
) -> Result<SpecReport, String> {
    let start = std::time::Instant::now();
    let to = order.table("to").ok_or("the stamp order has no table `to`")?;
    let mut rep = SpecReport { library: lib.to_string(), complete: true, ..Default::default() };
    // the user's bound, with the defaults of this library for what it does not set
    let mut b = Bounds::in_catalogue(lib, cat, bounds.threads, bounds.nodes, bounds.calls);
    b.values = bounds.values;
    b.wids = bounds.wids;
    b.tuple_size = bounds.tuple_size;
    b.self_ring = bounds.self_ring;
    b.self_reading_writers = bounds.self_reading_writers;
    for (name, ast) in programs(lib, order, cat, &b, "d")? {
        if time_limit.is_some_and(|t| start.elapsed() >= t) {
            rep.complete = false;
            break;
        }
        if rep.not_monotone.is_some() && rep.not_decomposable.is_some() {
            break;
        }
        rep.programs += 1;
        let low = lower::lower(&ast, order, cat).map_err(|e| format!("{name}: {}", e.msg))?;
        let p = lower::problem(&low, to);
        let mut visit = |g: &ExecGraph| {
            let mut searches: Vec<_> = p.libs.iter().enumerate().map(|(i, l)| l.search(g, to, i)).collect();
            let vars: Vec<(usize, usize)> =
                searches.iter().enumerate().flat_map(|(l, s)| (0..s.num_vars()).map(move |v| (l, v))).collect();
            if vars.iter().any(|&(l, v)| searches[l].domain(v) == 0) {
                return;
            }
            let mut leaf = |searches: &mut [Box<dyn WitnessSearch + '_>], so: &BitRel| {
                examine(&p, g, searches, so, &|| crate::lang::print::print(&ast), &mut rep);
            };
            witnesses(g, &mut searches, &vars, 0, &mut leaf);
        };
        explicit::for_each_graph(&p, &mut visit).map_err(|e| format!("{name}: {e}"))?;
    }
    rep.millis = start.elapsed().as_secs_f64() * 1000.0;
    Ok(rep)
}

/// Sees a complete witness (the searches, assigned) and its so.
type LeafFn<'f, 's> = dyn FnMut(&mut [Box<dyn WitnessSearch + 's>], &BitRel) + 'f;

/// Every complete witness passing the libraries' own conditions with ppo ∪ so
/// acyclic (pruned on partial witnesses), with its so.
fn witnesses<'s>(
    g: &ExecGraph,
    searches: &mut [Box<dyn WitnessSearch + 's>],
    vars: &[(usize, usize)],
    i: usize,
    leaf: &mut LeafFn<'_, 's>,
) {
    let mut so = BitRel::new(g.len());
    if !searches.iter_mut().all(|s| s.check(&g.ppo, &mut so)) {
        return;
    }
    if !so.union(&g.ppo).is_acyclic() {
        return;
    }
    if i == vars.len() {
        leaf(searches, &so);
        return;
    }
    let (l, v) = vars[i];
    for val in 0..searches[l].domain(v) {
        searches[l].assign(v, Some(val));
        witnesses(g, searches, vars, i + 1, leaf);
    }
    searches[l].assign(v, None);
}

/// Monotonicity and decomposability at one complete witness of `g`.
fn examine(
    p: &explicit::Problem,
    g: &ExecGraph,
    searches: &mut [Box<dyn WitnessSearch + '_>],
    so: &BitRel,
    text: &dyn Fn() -> String,
    rep: &mut SpecReport,
) {
    rep.witnesses += 1;
    let mut hb0 = so.union(&g.ppo);
    hb0.close_transitively();
    let mentions_hb = searches.iter().any(|s| s.needs_hb());
    rep.mentions_hb |= mentions_hb;
    let at_least = searches.iter().all(|s| s.check_hb(&hb0));
    if mentions_hb && rep.not_monotone.is_none() {
        for a in 0..g.len() {
            for b in 0..g.len() {
                if a == b || hb0.contains(a, b) {
                    continue;
                }
                let mut hb1 = hb0.clone();
                hb1.add(a, b);
                hb1.close_transitively();
                if !hb1.is_irreflexive() {
                    continue;
                }
                rep.extensions += 1;
                if !at_least && searches.iter().all(|s| s.check_hb(&hb1)) {
                    rep.not_monotone = Some(format!(
                        "a witness is consistent with hb = (ppo ∪ so)⁺ ∪ {{({a}, {b})}} but not with (ppo ∪ so)⁺ itself, on\n{}",
                        text()
                    ));
                }
            }
        }
    }
    if !at_least || (rep.not_decomposable.is_some() && rep.not_decomposable_sup.is_some()) {
        return;
    }
    rep.executions += 1;
    let n = g.events.len();
    if !(2..=16).contains(&n) {
        return;
    }
    let locs: Vec<Vec<usize>> = g.events.iter().map(|e| p.libs[e.lib].locs(e)).collect();
    for mask in 1u32..(1u32 << n) - 1 {
        let in1 = |e: usize| mask & (1 << e) != 0;
        let disjoint = (0..n)
            .filter(|&e| in1(e))
            .all(|e| (0..n).filter(|&f| !in1(f)).all(|f| locs[e].iter().all(|l| !locs[f].contains(l))));
        if !disjoint {
            continue;
        }
        rep.splits += 1;
        for exact in [true, false] {
            let slot = if exact { &mut rep.not_decomposable } else { &mut rep.not_decomposable_sup };
            if slot.is_none() {
                if let Some(why) = restriction_fails(p, g, so, &hb0, &|e| in1(e), exact) {
                    *slot = Some(format!("{why}, on\n{}", text()));
                }
            }
        }
    }
}

/// Whether ⟨E1, po|E1, stmp|E1, so|E1, hb|E1⟩ fails to be consistent, E1 = the
/// events `keep` selects: `Some(what)` when no witness of the restricted graph
/// gives exactly (with `exact`; else at most) so|E1 and passes the hb conditions
/// for hb|E1.
fn restriction_fails(
    p: &explicit::Problem,
    g: &ExecGraph,
    so: &BitRel,
    hb: &BitRel,
    keep: &dyn Fn(usize) -> bool,
    exact: bool,
) -> Option<String> {
    let events: Vec<Event> = (0..g.events.len()).filter(|&e| keep(e)).map(|e| g.events[e].clone()).collect();
    // subevent s of g ↦ its index in the restricted graph (same events, same order)
    let mut old: Vec<usize> = Vec::new();
    for (e, subs) in g.subs_of.iter().enumerate() {
        if keep(e) {
            old.extend(subs.iter().copied());
        }
    }
    let g1 = explicit::graph(p, events);
    if g1.len() != old.len() {
        return Some("the restricted events have other subevents (stamps depend on other events)".into());
    }
    let target = BitRel::from_fn(g1.len(), |a, b| so.contains(old[a], old[b]));
    let hb1 = BitRel::from_fn(g1.len(), |a, b| hb.contains(old[a], old[b]));
    let mut searches: Vec<_> = p.libs.iter().enumerate().map(|(i, l)| l.search(&g1, p.to, i)).collect();
    let vars: Vec<(usize, usize)> =
        searches.iter().enumerate().flat_map(|(l, s)| (0..s.num_vars()).map(move |v| (l, v))).collect();
    let found = vars.iter().all(|&(l, v)| searches[l].domain(v) > 0)
        && witness_within(&g1, &mut searches, &vars, 0, &target, &hb1, exact);
    if found {
        return None;
    }
    let kept: Vec<String> = g
        .events
        .iter()
        .enumerate()
        .filter(|&(e, _)| keep(e))
        .map(|(_, e)| format!("T{}#{}", e.thread + 1, e.index))
        .collect();
    let lost: Vec<String> = target.pairs().map(|(a, b)| format!("({}, {})", old[a], old[b])).collect();
    Some(format!(
        "the execution restricted to the events {{{}}} (locations disjoint from the others') has no witness with so {} so|E1 = {{{}}} (subevents of the whole execution)",
        kept.join(", "),
        if exact { "=" } else { "⊆" },
        lost.join(", ")
    ))
}

/// A witness of `g` whose so is contained in `target` (pruned as soon as a partial
/// so leaves it: so only grows), equal to it with `exact`, and that passes the hb
/// conditions for `hb`.
fn witness_within(
    g: &ExecGraph,
    searches: &mut [Box<dyn WitnessSearch + '_>],
    vars: &[(usize, usize)],
    i: usize,
    target: &BitRel,
    hb: &BitRel,
    exact: bool,
) -> bool {
    let mut so = BitRel::new(g.len());
    if !searches.iter_mut().all(|s| s.check(&g.ppo, &mut so)) {
        return false;
    }
    if so.pairs().any(|(a, b)| !target.contains(a, b)) {
        return false;
    }
    if i == vars.len() {
        return (!exact || so == *target) && searches.iter().all(|s| s.check_hb(hb));
    }
    let (l, v) = vars[i];
    let mut found = false;
    for val in 0..searches[l].domain(v) {
        searches[l].assign(v, Some(val));
        if witness_within(g, searches, vars, i + 1, target, hb, exact) {
            found = true;
            break;
        }
    }
    searches[l].assign(v, None);
    found
}

/// The libraries D is about for an implementation: L, then each library of Λ.
pub fn libraries_of(implements: &str, uses: &[String]) -> Vec<String> {
    let mut out = vec![implements.to_string()];
    out.extend(uses.iter().filter(|u| *u != implements).cloned());
    out
}

/// Whether `lib` is one D applies to: libraries that order their own subevents
/// (RDMA^TSO) have no so/hb presentation (LOCO App. F.4).
pub fn applies(lib: &dyn Library) -> bool {
    !lib.own_program_order()
}
