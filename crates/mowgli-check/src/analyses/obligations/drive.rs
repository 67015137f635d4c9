//! Checking one abstract program: every execution of its implementation, by the
//! explicit engine (classes of executions settled under a partial witness) or by
//! Z3 ([`super::symbolic`]), with the refutations recorded in the report.

use std::collections::BTreeMap;

use mowgli_core::{Event, StampTable};

use super::judge::{abstract_events, universe, Judge, Judgement};
use super::render::{graph, render, Refuted};
use super::{symbolic, Failure, Obligation, Options, Report};
use crate::analyses::refine::Setup;
use crate::engines::explicit::{self, Visited};
use crate::lang::implementation::Implementation;
use crate::lang::maps::{ConcMap, MapEntry};

#[allow(clippy::too_many_arguments)]
pub(super) fn check_one(
    imp: &Implementation,
    setup: &Setup,
    to: &StampTable,
    name: &str,
    text: &str,
    map: &ConcMap,
    inferred: &mut BTreeMap<(String, String), MapEntry>,
    opts: &Options,
    deadline: Option<std::time::Instant>,
    rep: &mut Report,
) -> Result<(), String> {
    // the value domain's rounds search too: they keep the time limit
    let over = || deadline.is_some_and(|d| std::time::Instant::now() >= d);
    let mut p = match setup.impl_problem_unfolded(to, opts.loop_bound, deadline) {
        Ok((mut p, unfolded)) => {
            // the search's unfoldings: the value domain's last round's when it ran
            // on the final domain, else unfolded once here; a loop cut at the
            // unrolling bound: the verdict says so
            let unfolded = match unfolded {
                Some(us) => Ok(us),
                None => (0..p.threads.len()).map(|t| explicit::unfold_thread(&p, t)).collect(),
            };
            match unfolded {
                Ok(us) => {
                    rep.bounded |= us.iter().any(|u| u.bound_hit);
                    p.unfolded = Some(std::sync::Arc::new(us));
                }
                // the time limit passed while unfolding: the run is incomplete
                Err(_) if over() => {
                    rep.complete = false;
                    return Ok(());
                }
                // a size limit says `unfolding was cut` (inconclusive), others are errors
                Err(e) => return Err(crate::analyses::refine::DomainError::from(e).to_string()),
            }
            p
        }
        Err(_) if over() => {
            rep.complete = false;
            return Ok(());
        }
        Err(e) => return Err(e.to_string()),
    };
    p.all_executions = true;
    p.regs_only = false;
    // the engine keeps the time limit between and inside plain executions too
    p.deadline = deadline;
    p.backend = opts.backend;
    let abs_lib = &setup.low.libs[setup.lidx];
    let abs_world = &setup.low.world;
    let universe = universe(to, &abs_world.nodes);
    let seen_abstract: std::collections::HashSet<Vec<Event>> = std::collections::HashSet::new();
    let abs_before = rep.abstract_executions;
    let mut err: Option<String> = None;
    // refutations recorded by `visit` (the Z3 path asks whether its model was one)
    let refuted = std::cell::Cell::new(0u64);
    // the time limit, also inside one abstract program (whose executions can be many)
    let late = std::cell::Cell::new(false);
    let past = || {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            late.set(true);
        }
        late.get()
    };
    let judge = Judge { setup, to, map, universe: &universe, abs_lib: abs_lib.as_ref(), abs_world };
    // shared by the visitor and the discharge test
    let state: Shared = std::cell::RefCell::new((rep, inferred, seen_abstract));
    let mut visit = |v: &Visited| -> bool {
        if past() {
            return false;
        }
        let mut guard = state.borrow_mut();
        let (rep, inferred, seen_abstract) = &mut *guard;
        rep.executions += 1;
        let abs = abstract_events(v);
        if seen_abstract.insert(abs.clone()) {
            rep.abstract_executions += 1;
        }
        let abs_g = judge.abstract_graph(&abs);
        let verdict = judge.judge(v, &abs, &abs_g, inferred, false);
        let all_methods = judge.methods(&abs);
        let (o, methods, why, gmap, subs) = match verdict {
            Judgement::Pass | Judgement::Open => {
                for o in Obligation::ALL {
                    rep.pass(o, &all_methods);
                }
                return true;
            }
            Judgement::Fail { o, methods, why, gmap, subs } => (o, methods, why, gmap, subs),
        };
        for &before in Obligation::ALL.iter().take_while(|&&b| b != o) {
            // an O3 refutation found a witness for L's conditions but none at all
            // under hb': O2 is not established either way
            if !(o == Obligation::O3 && before == Obligation::O2) {
                rep.pass(before, &all_methods);
            }
        }
        refuted.set(refuted.get() + 1);
        for m in &methods {
            if let Some(c) = rep.cells.get_mut(m).and_then(|c| c.get_mut(&o)) {
                c.checked += 1;
                if c.failure.is_none() {
                    c.failure = Some(rep.failures.len());
                }
            }
        }
        let first_for_cell = methods.iter().any(|m| rep.cells[m][&o].failure == Some(rep.failures.len()));
        if first_for_cell {
            let gmap = gmap.as_deref();
            let refuted = match (o, subs.as_slice()) {
                (Obligation::O2, &[a, b]) => Refuted::So(a, b),
                (Obligation::O1, &[s]) => Refuted::Image(s),
                _ => Refuted::None,
            };
            let mut picture = graph(setup, v, &abs_g, gmap, to, refuted);
            picture.notes.push(format!("{} refuted: {why}", o.name()));
            rep.failures.push(Failure {
                obligation: o,
                methods,
                reason: why,
                client: format!("# {name}\n{text}"),
                program: Default::default(),
                test: None,
                execution: render(setup, v, &abs_g, gmap, to),
                dot: mowgli_draw::dot::dot(&picture, "obligations"),
                graph: Some(picture),
                involved: judge.involved(v, &abs, &abs_g, &subs),
            });
        }
        !opts.first_fail
    };
    // a partial witness whose so already makes every obligation hold: they hold for
    // every completion (each obligation is monotone in hb, and L's predicate does
    // not mention hb), so its executions need not be visited one by one
    let mut discharge = Discharge { judge: &judge, state: &state, past: &past };
    let res = if opts.backend == explicit::Backend::Z3 {
        let tree_above = opts.z3_tree_above.unwrap_or(symbolic::TREE_ABOVE);
        let limits = symbolic::Limits {
            past: &past,
            deadline,
            tree_above,
            read_back: !opts.z3_no_read_back,
            whole: opts.z3_whole,
        };
        symbolic::check_groups(&p, to, &judge, &state, name, &refuted, &limits, &mut visit, abs_before)
    } else if opts.every_execution {
        explicit::for_each_execution(&p, &mut visit).map(|_| ()).map_err(|e| e.to_string())
    } else {
        explicit::for_each_execution_discharging(&p, &mut visit, &mut discharge).map(|_| ()).map_err(|e| e.to_string())
    };
    let (rep, _, _) = state.into_inner();
    let over = deadline.is_some_and(|d| std::time::Instant::now() >= d);
    match res {
        Err(e) if e == symbolic::Z3_STOPPED => late.set(true),
        // stopped by the engine at the time limit: not a failure of W
        Err(_) if over => late.set(true),
        // Z3 cannot take a library in scope: no obligation is refuted by that
        Err(e) if crate::engines::z3::Z3Error::is_unsupported(&e) => {
            return Err(format!("implementation `{}` on {name}: {e}", imp.name))
        }
        Err(e) => err = Some(format!("implementation `{}` on {name}: {e}", imp.name)),
        Ok(()) => {}
    }
    if late.get() {
        rep.complete = false;
    }
    if let Some(e) = err {
        // Def. 3.9 (2)/(3) and expression errors surface here: W fails
        let ms: Vec<String> = rep.methods.clone();
        for m in &ms {
            if let Some(c) = rep.cells.get_mut(m).and_then(|c| c.get_mut(&Obligation::W)) {
                if c.failure.is_none() {
                    c.failure = Some(rep.failures.len());
                }
            }
        }
        rep.failures.push(Failure {
            obligation: Obligation::W,
            methods: ms,
            reason: e,
            client: format!("# {name}\n{text}"),
            program: Default::default(),
            test: None,
            execution: String::new(),
            dot: String::new(),
            graph: None,
            involved: vec![],
        });
    }
    Ok(())
}

/// Shared by the visitor of executions and [`Discharge`]: the report, the
/// inferred map entries, the abstract executions seen.
pub(super) type Shared<'r> = std::cell::RefCell<(
    &'r mut Report,
    &'r mut BTreeMap<(String, String), MapEntry>,
    std::collections::HashSet<Vec<Event>>,
)>;

/// The discharge test of the explicit engine
/// (`engine::for_each_execution_discharging`): a partial witness whose so already
/// makes every obligation hold settles all its completions. Sound because each
/// obligation is monotone in hb (O1 and O2 ask for hb paths; O3 with g⁻¹(hb) only
/// for specifications that do not mention hb, see the module comment) and the so
/// of a partial witness is contained in the so of each completion. Partial
/// witnesses where g would have to infer an image, or where L mentions hb
/// (`rbl_weak`), are not discharged: their executions are visited one by one.
struct Discharge<'j, 'a, 'r> {
    judge: &'j Judge<'a>,
    state: &'j Shared<'r>,
    /// The time limit: true once it has passed.
    past: &'j dyn Fn() -> bool,
}

impl explicit::Discharger for Discharge<'_, '_, '_> {
    fn holds(&mut self, v: &Visited) -> bool {
        let mut guard = self.state.borrow_mut();
        let (_, inferred, _) = &mut *guard;
        let abs = abstract_events(v);
        let abs_g = self.judge.abstract_graph(&abs);
        matches!(self.judge.judge(v, &abs, &abs_g, inferred, true), Judgement::Pass)
    }

    fn record(&mut self, v: &Visited) {
        let mut guard = self.state.borrow_mut();
        let (rep, _, seen_abstract) = &mut *guard;
        let abs = abstract_events(v);
        rep.executions += 1;
        rep.classes += 1;
        if seen_abstract.insert(abs.clone()) {
            rep.abstract_executions += 1;
        }
        let all_methods = self.judge.methods(&abs);
        for o in Obligation::ALL {
            rep.pass(o, &all_methods);
        }
    }

    /// The images of g (declared or same-stamp entries; those to be inferred are
    /// left out).
    fn relevant(&mut self, v: &Visited) -> Vec<usize> {
        let guard = self.state.borrow();
        let (_, inferred, _) = &*guard;
        let abs = abstract_events(v);
        let abs_g = self.judge.abstract_graph(&abs);
        (0..abs_g.len()).filter_map(|s| self.judge.image(v, &abs, &abs_g, s, inferred)).collect()
    }

    fn stop(&mut self) -> bool {
        (self.past)()
    }
}
