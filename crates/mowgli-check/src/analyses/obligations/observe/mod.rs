//! From a refuted obligation to a client (issue 17, issue 30): an obligation of
//! LOCO Def. 3.13 is sufficient for soundness, not necessary, so a refutation only
//! says that the proof method fails on one abstract execution. Whether a *client*
//! can tell the implementation from its specification is a refinement question
//! (Def. 3.10). This module asks it: it takes the abstract program of a refutation
//! (the parsed test) and adds observer calls to it, generated: every method of an
//! observer library, with arguments drawn by parameter role by the client
//! generator ([`Generator::observer_calls`]). The observer libraries are every base
//! library in scope that a client can call ([`observers_of`]): the one the client
//! generator adds for the implemented library, then every library the
//! implementation uses, each kept when its declaration has locations, no barriers
//! or rings, and a method returning a value. The space of one observer library
//! ([`Space`], stated in [`Observation::bound`]):
//!
//! * the abstract program alone (its own returned values may already be an outcome
//!   the specification forbids: a torn read, an O3 refutation);
//! * the program with 1 to [`Space::calls`] observer calls in all: inserted at any
//!   positions of its threads (at least one), and the others, if any, in one new
//!   thread on a node of the program;
//! * the wide part: a new thread of exactly [`Space::wide_thread`] observer calls
//!   and 1 to [`Space::wide_inserted`] calls inserted in the program's threads, only
//!   those in which every observer location used is written in one thread and read
//!   by a call returning a value in another (store buffering is here), searched
//!   when it has at most [`Space::wide_cap`] candidates;
//! * over up to [`Space::locs`] observer locations, each homed (on located memory)
//!   on a node of the program or on one fresh node; values `1..=values` (a compared
//!   value also 0); work identifiers `_` or one of up to [`Space::wids`] per thread,
//!   with the methods that wait for one (by their declaration: a parameter
//!   `Wid { awaited }`): per thread, a call waits for an identifier only when an
//!   earlier observer call of the thread named it since its last wait, every
//!   identifier named is waited for later in the thread (one never waited for
//!   behaves as `_`), and identifiers are numbered in the order of their first use
//!   (with at most 3 observer calls in a thread one identifier covers every use up
//!   to renaming). Their names are a letter from `d` on and the thread's number
//!   (`e1` in the first thread), the letter chosen so that no name of the abstract
//!   program is one of them.
//!
//! Several observer libraries: the union of their spaces, one library per client
//! (the narrow parts level by level across the libraries, then the wide parts). A
//! client calling two observer libraries at once is not in the space: it is
//! cheap and sound to search each on its own (each candidate is still a client
//! `refine` checks), and no shipped implementation has two such libraries in scope
//! except I_BAL's and I_BAL_ALL's (`rdmawait` added by the generator, `sv` used), whose two-library
//! clients are left out; [`Observation::bound`] states the union.
//!
//! The only reduction is by location names (those used are `a`, then `b`, …; an
//! unused one sits on the first node) and by the numbering of work identifiers.
//! Candidates come smallest first (by observer calls; the wide part
//! last), and within a size those whose inserted calls all sit right before or
//! after a call the refutation's reason names (its endpoints) first. Every candidate is a parsed test checked by
//! [`refine_parsed_on`]; the first whose implementation reaches an outcome the
//! specification forbids is the observing client (printed as text only then). The
//! report says how many were tried of how many, and why it stopped.

mod search;

use search::{Cand, Search};

use std::time::{Duration, Instant};

use mowgli_core::StampOrder;
use serde::Serialize;

use crate::analyses::refine::gen::{failing_text, Bounds, Generator};
use crate::analyses::refine::{refine_parsed_on, ClientCheck, ClientVerdict};
use crate::lang::implementation::Implementation;
use crate::lang::print;
use crate::lang::syntax::Litmus;

/// What [`observe`] found for one refutation.
#[derive(Clone, Debug, Serialize)]
pub struct Observation {
    /// The observing client (a litmus text with the forbidden outcome as an
    /// expectation), if one was found.
    pub client: Option<String>,
    /// Its name, and where its observer calls are.
    pub name: Option<String>,
    pub shape: Option<String>,
    /// Candidate clients run through `refine`.
    pub tried: usize,
    /// Candidate clients of the bound (the whole space of [`Space`]).
    pub candidates: usize,
    /// The bound the candidates cover, in words.
    pub bound: String,
    /// Why no client could be built or tried (e.g. a library that composes with no
    /// observer), or why the search stopped early (time budget).
    pub note: Option<String>,
    /// Candidates `refine` could not run, and the first message.
    pub errors: usize,
    pub first_error: Option<String>,
}

impl Observation {
    /// An observation with no client and no candidate, only `note`: why nothing
    /// was searched.
    fn note_only(note: String) -> Observation {
        Observation {
            client: None,
            name: None,
            shape: None,
            tried: 0,
            candidates: 0,
            bound: String::new(),
            note: Some(note),
            errors: 0,
            first_error: None,
        }
    }
}

/// The space of candidate clients of one refutation (see the module comment).
#[derive(Clone, Copy, Debug)]
pub struct Space {
    /// Observer calls in all (at most).
    pub calls: usize,
    /// Observer locations (at most).
    pub locs: usize,
    /// Values `1..=values`.
    pub values: usize,
    /// Observer calls may also go to one new thread.
    pub new_thread: bool,
    /// Observer locations may be homed on one fresh node (located memory).
    pub fresh_node: bool,
    /// The wide part: a new thread of exactly `wide_thread` observer calls and 1
    /// to `wide_inserted` calls inserted in the program's threads, every observer
    /// location written in one thread and read by a call returning a value in
    /// another (0: no wide part).
    pub wide_thread: usize,
    pub wide_inserted: usize,
    /// The wide part is searched only when it has at most this many candidates.
    pub wide_cap: usize,
    /// Work identifiers per thread besides `_` (at most), each named only when a
    /// later observer call of the same thread waits for it.
    pub wids: usize,
}

impl Default for Space {
    /// The space `mowgli obligations` searches.
    fn default() -> Space {
        Space {
            calls: 3,
            locs: 2,
            values: 1,
            new_thread: true,
            fresh_node: true,
            wide_thread: 3,
            wide_inserted: 2,
            wide_cap: 200_000,
            wids: 1,
        }
    }
}

/// The observers of the clients built for implementation `imp`, each as a
/// generator whose bounds are `space`'s: the library the client generator adds
/// for its library, then every library the implementation uses, each kept when the
/// generator accepts it as an observer (by its declaration: locations, no barriers
/// or rings) and it has a method returning a value.
fn observers_of(imp: &Implementation, order: &StampOrder, space: &Space) -> Result<Vec<Generator>, String> {
    let default = Bounds::in_catalogue(&imp.implements, &imp.catalogue, 1, 1, 1).observer;
    let mut out: Vec<Generator> = Vec::new();
    for cand in default.iter().chain(imp.uses.iter()) {
        if *cand == imp.implements || out.iter().any(|g| g.observer() == Some(cand.as_str())) {
            continue;
        }
        let mut b = Bounds::in_catalogue(&imp.implements, &imp.catalogue, 1, 1, 1);
        b.observer = Some(cand.clone());
        b.observer_locs = space.locs;
        b.values = space.values;
        b.observer_wids = space.wids;
        let Ok(g) = Generator::in_catalogue(&imp.implements, order, &imp.catalogue, &b) else { continue };
        let homes: Vec<i64> = vec![1; space.locs];
        if g.observer_calls(&[1], 1, &homes).iter().any(|c| c.returns) {
            out.push(g);
        }
    }
    if out.is_empty() {
        return Err(format!(
            "`{}` uses {}, none of which has locations and a method that returns a value (by their declarations; LOCO App. F.4): a client of it cannot add observer calls",
            imp.name,
            imp.uses.join(", ")
        ));
    }
    Ok(out)
}

/// The calls a refutation's reason names: (thread index, call index) pairs, from
/// its `T<k>#<i>` subevent names.
fn endpoints(reason: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let b = reason.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'T' {
            let num = |mut j: usize| -> (Option<usize>, usize) {
                let start = j;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                (reason[start..j].parse().ok(), j)
            };
            let (t, j) = num(i + 1);
            if let (Some(t), Some(b'#')) = (t, b.get(j)) {
                let (c, k) = num(j + 1);
                if let (Some(c), true) = (c, t > 0) {
                    if !out.contains(&(t - 1, c)) {
                        out.push((t - 1, c));
                    }
                    i = k;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// One search per observer library (a client calls one of them), each ending by
/// `deadline`, and the libraries no search could be made for, with the reason.
fn searches_of(
    imp: &Implementation,
    order: &StampOrder,
    program: &Litmus,
    reason: &str,
    space: &Space,
    deadline: Option<Instant>,
) -> Result<(Vec<Search>, Vec<String>), String> {
    let gens = observers_of(imp, order, space)?;
    let mut searches = Vec::new();
    let mut skipped = Vec::new();
    for g in &gens {
        let name = g.observer().unwrap_or_default().to_string();
        match Search::new(imp, order, g, program, reason, space) {
            Ok(mut s) => {
                s.deadline = deadline;
                searches.push(s)
            }
            Err(e) => skipped.push(format!("`{name}`: {e}")),
        }
    }
    if searches.is_empty() {
        return Err(skipped.join("; "));
    }
    Ok((searches, skipped))
}

/// The candidates of a space, counted, and the bound they cover in words.
pub struct Counted {
    pub candidates: usize,
    pub bound: String,
    /// Per search: whether its wide part is searched (within the cap).
    wide: Vec<bool>,
}

/// Counts the candidates of `searches`; `None` when a search's deadline passed
/// first.
fn count(searches: &[Search], skipped: &[String], space: &Space, deadline: Option<Instant>) -> Option<Counted> {
    let mut total = 1;
    let mut parts = Vec::new();
    let mut wide = Vec::new();
    for search in searches {
        let mut part = search.bound();
        for n in 1..=space.calls {
            // the visit stops only at the deadline
            let counted = search.visit_narrow(n, &mut |_| {
                total += 1;
                true
            });
            if !counted {
                return None;
            }
        }
        let wide_n = search.count_wide(space.wide_cap);
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        let w = wide_n <= space.wide_cap;
        if w {
            total += wide_n;
        }
        wide.push(w);
        if space.wide_thread > 0 {
            part += &if w {
                format!(
                    "; and with a new thread of {} such calls on a node of the program and 1 to {} inserted in its threads, \
                     every observer location written in one thread and read by a call returning a value in another ({wide_n} candidates)",
                    space.wide_thread, space.wide_inserted
                )
            } else {
                format!(
                    "; not its wide part (a new thread of {} calls and 1 to {} inserted): more than {} candidates",
                    space.wide_thread, space.wide_inserted, space.wide_cap
                )
            };
        }
        parts.push(part);
    }
    let mut bound = format!("the abstract program alone, and with {}", parts.join("; or with "));
    if searches.len() > 1 {
        bound += " (one observer library per client: the searches of each library, smallest first across them)";
    }
    if !skipped.is_empty() {
        bound += &format!("; not drawn from {}", skipped.join(", "));
    }
    Some(Counted { candidates: total, bound, wide })
}

/// The candidates [`observe_in`] would try for this refutation over `space`,
/// counted without a time limit and without running any.
pub fn count_in(
    imp: &Implementation,
    order: &StampOrder,
    program: &Litmus,
    reason: &str,
    space: &Space,
) -> Result<Counted, String> {
    let (searches, skipped) = searches_of(imp, order, program, reason, space, None)?;
    count(&searches, &skipped, space, None).ok_or_else(|| "no deadline, yet the count stopped".to_string())
}

/// Tries to observe the refutation whose abstract program is `program` and whose
/// reason is `reason`, within `budget`, over the default [`Space`].
pub fn observe(
    imp: &Implementation,
    order: &StampOrder,
    program: &Litmus,
    reason: &str,
    loop_bound: usize,
    budget: Duration,
) -> Observation {
    observe_in(imp, order, program, reason, loop_bound, budget, &Space::default())
}

/// [`observe`] over the candidates of `space`.
pub fn observe_in(
    imp: &Implementation,
    order: &StampOrder,
    program: &Litmus,
    reason: &str,
    loop_bound: usize,
    budget: Duration,
    space: &Space,
) -> Observation {
    let start = Instant::now();
    let deadline = start + budget;
    let (searches, skipped) = match searches_of(imp, order, program, reason, space, Some(deadline)) {
        Ok(s) => s,
        Err(e) => return Observation::note_only(e),
    };
    let counted = match count(&searches, &skipped, space, Some(deadline)) {
        Some(c) => c,
        None => {
            return Observation::note_only(format!(
                "the time budget ({:.0} s) ran out while counting the candidates",
                budget.as_secs_f64()
            ))
        }
    };
    let wide = counted.wide;
    let mut obs = Observation {
        candidates: counted.candidates,
        bound: counted.bound,
        note: None,
        ..Observation::note_only(String::new())
    };
    let mut how = ClientCheck::new(loop_bound, true);
    how.deadline = Some(deadline);
    let try_one = |lit: &Litmus, what: &dyn Fn() -> (String, String), obs: &mut Observation| -> bool {
        if start.elapsed() >= budget {
            obs.note = Some(format!("the time budget ({:.0} s) ran out", budget.as_secs_f64()));
            return false;
        }
        obs.tried += 1;
        let r = match refine_parsed_on(imp, order, "observe", lit, &|| print::print(lit), &how) {
            Ok(r) => r,
            Err(e) => {
                obs.errors += 1;
                obs.first_error.get_or_insert_with(|| e.to_string());
                return true;
            }
        };
        if r.verdict != ClientVerdict::Fail {
            return true;
        }
        let (kind, shape) = what();
        let name = format!("observe-{}-{kind}", imp.name);
        let mut named = lit.clone();
        named.name = name.clone();
        obs.client = Some(failing_text(&print::print(&named), imp, &r));
        obs.name = Some(name);
        obs.shape = Some(shape);
        false
    };
    // the abstract program itself first
    let bare = searches[0].build(&Cand { config: 0, slots: &[], calls: &[], extra: None }, "observe-0");
    if !try_one(&bare, &|| ("abstract".into(), "the abstract program alone".into()), &mut obs) {
        return obs;
    }
    let visit = |search: &Search, c: &Cand, obs: &mut Observation| {
        let lit = search.build(c, &format!("observe-{}", obs.tried));
        try_one(&lit, &|| (format!("{}calls", c.size()), search.describe(c)), obs)
    };
    // the narrow parts level by level across the libraries, then the wide parts
    for n in 1..=space.calls {
        for search in &searches {
            if !search.visit_narrow(n, &mut |c| visit(search, c, &mut obs)) {
                return obs;
            }
        }
    }
    for (search, &w) in searches.iter().zip(&wide) {
        if w && !search.visit_wide(&mut |c| visit(search, c, &mut obs)) {
            return obs;
        }
    }
    obs
}

/// Fills `rep.observations`, one per failure: failures of the same abstract program
/// and reason share one search. Each search has `budget`.
pub fn observe_all(
    imp: &Implementation,
    order: &StampOrder,
    rep: &mut super::Report,
    loop_bound: usize,
    budget: Duration,
) {
    observe_all_until(imp, order, rep, loop_bound, budget, None)
}

/// [`observe_all`], every search ending by `until` too (a run's time limit): the
/// searches after it are not made, and say so.
pub fn observe_all_until(
    imp: &Implementation,
    order: &StampOrder,
    rep: &mut super::Report,
    loop_bound: usize,
    budget: Duration,
    until: Option<Instant>,
) {
    let mut seen: Vec<(String, String, usize)> = Vec::new();
    rep.observations.clear();
    for f in &rep.failures {
        let left = until.map(|u| u.saturating_duration_since(Instant::now()));
        let budget = left.map_or(budget, |l| l.min(budget));
        let prior = seen.iter().find(|(p, r, _)| *p == f.client && *r == f.reason).map(|x| x.2);
        let o = match prior {
            Some(i) => rep.observations[i].clone(),
            None => {
                // the parsed test that was checked; a failure made elsewhere (none
                // today) is read back from its text
                let parsed = match &f.test {
                    Some(t) => Ok(t.clone()),
                    None => crate::lang::syntax::parse(&f.client).map_err(|e| e.to_string()),
                };
                let mut o = match parsed {
                    _ if budget.is_zero() => {
                        Observation::note_only("the run's time limit was reached before this search".into())
                    }
                    Ok(program) => observe(imp, order, &program, &f.reason, loop_bound, budget),
                    Err(e) => Observation::note_only(format!("the abstract program could not be read back: {e}")),
                };
                // one file per refutation: the failure's number in the name
                if let (Some(name), Some(text)) = (&o.name, &o.client) {
                    let numbered = name.replacen(
                        &format!("observe-{}-", imp.name),
                        &format!("observe-{}-{}-", imp.name, rep.observations.len() + 1),
                        1,
                    );
                    o.client = Some(text.replacen(&format!("test {name}\n"), &format!("test {numbered}\n"), 1));
                    o.name = Some(numbered);
                }
                o
            }
        };
        seen.push((f.client.clone(), f.reason.clone(), rep.observations.len()));
        rep.observations.push(o);
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_read_from_subevent_names() {
        let r = "so' edge T1#0.aCW → T2#1.aCR of the abstract execution: its image s5.aCW → s7.aCR is not in hb";
        assert_eq!(endpoints(r), vec![(0, 0), (1, 1)]);
        assert_eq!(endpoints("no names here"), vec![]);
    }
}
