//! `--engine auto`: per abstract program, the engine the measured costs say is
//! cheaper.
//!
//! The generator's programs come in shapes: the same methods in the same order in
//! each thread, differing in locations, values, nodes and work identifiers (and
//! checked in that order, smallest first). Programs of one shape cost about the
//! same under one engine, so the cost model is measured per shape while the bound
//! is checked: a shape starts under the explicit engine; once its mean explicit
//! time exceeds [`TRY_Z3_MS`], its next program runs under Z3; from then on each of
//! its programs runs under the engine with the smaller mean time measured on that
//! shape (both means are kept up to date by the programs each engine runs).
//! The report says how many programs, and how much time, went to each engine
//! ([`EngineSplit`]).
//!
//! A shape not met yet follows the means of its size (calls in all threads) in
//! the same way, so that Z3 is tried, and chosen, where the shapes are many and
//! their programs few.
//!
//! Every run is bounded, so that no program can hang on the wrong engine
//! ([`portfolio`]): the chosen engine gets [`BUDGET_FACTOR`] times the mean time
//! measured on the program's shape (or size) under that engine (at least
//! [`BUDGET_MIN_MS`] under Z3, [`EXPLICIT_BUDGET_MIN_MS`] under the explicit
//! engine; [`FIRST_BUDGET_MS`] when nothing is measured yet). A run
//! that stops at its budget is discarded (the report and the inferred map entries
//! are restored: a stopped run never counts as verified) and the program is
//! checked from scratch by the other engine with twice the budget, then by the
//! first with twice that, and so on (geometric doubling, alternating), until one
//! finishes or the run's own time limit stops it. A program one engine finishes
//! in t ms then costs at most about 4 t + 3 × the first budget: the attempts
//! before the one that finishes sum to less than twice the last budget. The
//! stopped time counts against the engine on the shape and the size, so the
//! next programs of the shape start under the other. Before this (issue 16),
//! only Z3 runs were bounded, and I_MSW 4 × 2 × 2 with one location spent 587 s
//! on one program (abs-msw-8-23) it had chosen to run explicitly.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::Report;
use crate::engines::explicit::Backend;
use crate::lang::ast::{Rhs, Stmt};
use crate::lang::maps::MapEntry;
use crate::lang::syntax;

/// A shape's mean explicit time (ms) above which Z3 is tried on it: below, Z3's
/// fixed cost per query (building the encoding, about 5-15 ms on this machine)
/// cannot win.
pub const TRY_Z3_MS: f64 = 40.0;

/// A run may take this many times the mean time of its shape under its engine
/// before it is stopped and the program checked by the other engine.
pub const BUDGET_FACTOR: f64 = 3.0;

/// The least budget of a Z3 run (ms): Z3's fixed cost per query.
pub const BUDGET_MIN_MS: f64 = 100.0;

/// The least budget of an explicit run (ms). Explicit times vary within a shape
/// (I_SV 2 × 2 × 2: most programs of abs-sv-4-2430's shape take milliseconds, it
/// takes 10 s), and a switch to Z3 on a program the explicit engine finishes in
/// half a second costs more than it saves: with 100 ms, I_SV 2 × 2 × 2 under
/// `auto` made 34 switches and took 26.4 s (CPU user) against 18.4 s before the
/// portfolio. The hangs the portfolio is for take minutes.
pub const EXPLICIT_BUDGET_MIN_MS: f64 = 1000.0;

/// The budget of a first attempt when neither engine has a time measured on the
/// program's shape or size.
pub const FIRST_BUDGET_MS: f64 = 1000.0;

/// How the programs of a run were split between the engines.
#[derive(Clone, Debug, Default, Serialize)]
pub struct EngineSplit {
    pub explicit_programs: usize,
    pub explicit_ms: f64,
    pub z3_programs: usize,
    pub z3_ms: f64,
    /// Runs stopped at their budget, per engine (their time is in `z3_ms` and
    /// `explicit_ms`; the program is counted under the engine that finished it).
    pub z3_given_up: usize,
    pub explicit_given_up: usize,
    /// Programs that needed more than one run, and the switches of engine they
    /// made in all (a program with k stopped runs made k switches).
    pub switched_programs: usize,
    pub switches: usize,
    /// Shapes (method sequences per thread) seen, and those Z3 ended up cheaper on.
    pub shapes: usize,
    pub z3_shapes: usize,
}

#[derive(Default)]
struct Costs {
    explicit: (f64, usize),
    z3: (f64, usize),
}

impl Costs {
    fn mean(c: (f64, usize)) -> Option<f64> {
        (c.1 > 0).then(|| c.0 / c.1 as f64)
    }
}

/// The measured cost model of one run.
pub struct CostModel {
    shapes: HashMap<Vec<Vec<String>>, Costs>,
    /// The same per program size (calls in all threads), for shapes not met yet:
    /// a large bound has many shapes with few programs each (I_SV 2 × 2 × 3, a
    /// 1/200 sample: 841 shapes in 1,113 programs), where per-shape means alone
    /// never leave the explicit engine.
    sizes: HashMap<usize, Costs>,
    /// A shape's mean explicit time above which Z3 is tried ([`TRY_Z3_MS`]).
    pub try_z3_ms: f64,
    pub split: EngineSplit,
    /// Z3 cannot encode a library in scope (`rdmawait_rmw`'s read-modify-writes):
    /// every program runs explicit, and a run stopped at its budget is retried
    /// explicit with twice the budget.
    pub z3_unavailable: bool,
}

impl Default for CostModel {
    fn default() -> CostModel {
        CostModel {
            shapes: HashMap::new(),
            sizes: HashMap::new(),
            try_z3_ms: TRY_Z3_MS,
            split: EngineSplit::default(),
            z3_unavailable: false,
        }
    }
}

/// The size of a shape: its calls in all threads.
fn size(shape: &[Vec<String>]) -> usize {
    shape.iter().map(Vec::len).sum()
}

/// Per thread (sorted), its calls' method names: what the cost model keys on.
pub type Shape = Vec<Vec<String>>;

/// The shape of a generated program: per thread (sorted), its calls' method
/// names (`lib.Method` when the call names its library).
pub fn shape(t: &syntax::Litmus) -> Shape {
    let mut threads: Vec<Vec<String>> = t
        .bodies
        .iter()
        .map(|(_, body)| {
            body.iter()
                .filter_map(|s| match s {
                    Stmt::Call(c) => Some(c),
                    Stmt::Let { rhs: Rhs::Call(c), .. } | Stmt::Assign { rhs: Rhs::Call(c), .. } => Some(c),
                    _ => None,
                })
                .map(|c| match &c.lib {
                    Some(l) => format!("{}.{}", l.text, c.method.text),
                    None => c.method.text.clone(),
                })
                .collect()
        })
        .collect();
    threads.sort();
    threads
}

impl CostModel {
    /// The engine for a program of shape `sh`.
    pub fn choose(&self, sh: &Shape) -> Backend {
        if self.z3_unavailable {
            return Backend::Explicit;
        }
        let c = match self.shapes.get(sh) {
            Some(c) => c,
            // a shape not met yet: what its size's programs measured
            None => match self.sizes.get(&size(sh)) {
                Some(c) => c,
                None => return Backend::Explicit,
            },
        };
        match (Costs::mean(c.explicit), Costs::mean(c.z3)) {
            (Some(e), _) if e <= self.try_z3_ms => Backend::Explicit,
            (Some(_), None) => Backend::Z3,
            (Some(e), Some(z)) if z < e => Backend::Z3,
            (None, Some(_)) => Backend::Z3,
            _ => Backend::Explicit,
        }
    }

    /// The mean time (ms) of `engine` on the shape `sh`, else on its size.
    fn predicted(&self, sh: &Shape, engine: Backend) -> Option<f64> {
        let of = |c: &Costs| match engine {
            Backend::Explicit => Costs::mean(c.explicit),
            Backend::Z3 => Costs::mean(c.z3),
        };
        self.shapes.get(sh).and_then(of).or_else(|| self.sizes.get(&size(sh)).and_then(of))
    }

    /// How long the first run of a program of shape `sh` under `engine` may take (ms) before it is
    /// stopped: [`BUDGET_FACTOR`] times that engine's predicted time, else the
    /// other engine's, at least `min` (by default [`BUDGET_MIN_MS`] under Z3,
    /// [`EXPLICIT_BUDGET_MIN_MS`] under the explicit engine); [`FIRST_BUDGET_MS`]
    /// (or `min`, if larger) when nothing is measured.
    pub fn budget(&self, sh: &Shape, engine: Backend, min: Option<f64>) -> f64 {
        let min = min.unwrap_or(match engine {
            Backend::Explicit => EXPLICIT_BUDGET_MIN_MS,
            Backend::Z3 => BUDGET_MIN_MS,
        });
        match self.predicted(sh, engine).or_else(|| self.predicted(sh, other(engine))) {
            Some(t) => (BUDGET_FACTOR * t).max(min),
            None => FIRST_BUDGET_MS.max(min),
        }
    }

    /// Records that a run of a program of shape `sh` under `engine` was stopped at its budget after
    /// `ms`: the time counts against `engine` on its shape and size (the run that
    /// finishes the program is recorded on its own).
    pub fn record_given_up(&mut self, sh: &Shape, engine: Backend, ms: f64) {
        for c in [self.sizes.entry(size(sh)).or_default(), self.shapes.entry(sh.clone()).or_default()] {
            let slot = match engine {
                Backend::Explicit => &mut c.explicit,
                Backend::Z3 => &mut c.z3,
            };
            slot.0 += ms;
            slot.1 += 1;
        }
        match engine {
            Backend::Explicit => {
                self.split.explicit_ms += ms;
                self.split.explicit_given_up += 1;
            }
            Backend::Z3 => {
                self.split.z3_ms += ms;
                self.split.z3_given_up += 1;
            }
        }
        self.split.shapes = self.shapes.len();
    }

    /// Records that a program of shape `sh` took `ms` under `engine`.
    pub fn record(&mut self, sh: &Shape, engine: Backend, ms: f64) {
        let by_size = self.sizes.entry(size(sh)).or_default();
        match engine {
            Backend::Explicit => by_size.explicit = (by_size.explicit.0 + ms, by_size.explicit.1 + 1),
            Backend::Z3 => by_size.z3 = (by_size.z3.0 + ms, by_size.z3.1 + 1),
        }
        let c = self.shapes.entry(sh.clone()).or_default();
        let slot = match engine {
            Backend::Explicit => {
                self.split.explicit_programs += 1;
                self.split.explicit_ms += ms;
                &mut c.explicit
            }
            Backend::Z3 => {
                self.split.z3_programs += 1;
                self.split.z3_ms += ms;
                &mut c.z3
            }
        };
        slot.0 += ms;
        slot.1 += 1;
        self.split.shapes = self.shapes.len();
        self.split.z3_shapes = self
            .shapes
            .values()
            .filter(|c| matches!((Costs::mean(c.explicit), Costs::mean(c.z3)), (Some(e), Some(z)) if z < e))
            .count();
    }
}

/// The engine a portfolio switches to from `engine`.
fn other(engine: Backend) -> Backend {
    match engine {
        Backend::Explicit => Backend::Z3,
        Backend::Z3 => Backend::Explicit,
    }
}

/// What [`portfolio`] runs: one attempt at the program under the engine, with the
/// time limit (the attempt's budget, or the run's limit if earlier), recording
/// into the report and the inferred map entries.
pub(super) type Attempt<'a> = dyn FnMut(Backend, Option<Instant>, &mut Report, &mut BTreeMap<(String, String), MapEntry>) -> Result<(), String>
    + 'a;

/// Checks one program under `--engine auto`: the engine [`CostModel::choose`]
/// picks, with the budget [`CostModel::budget`] gives, then, each time a run stops
/// at its budget, the other engine with twice the budget, from scratch (the
/// module comment). Stops when a run finishes, or when the run's limit
/// (`deadline`) has passed (the report is then incomplete). Returns the engine
/// of the last run.
pub(super) fn portfolio(
    costs: &mut CostModel,
    sh: &Shape,
    deadline: Option<Instant>,
    min_budget: Option<f64>,
    rep: &mut Report,
    inferred: &mut BTreeMap<(String, String), MapEntry>,
    attempt: &mut Attempt,
) -> Result<Backend, String> {
    let mut engine = costs.choose(sh);
    let mut budget = costs.budget(sh, engine, min_budget);
    let mut switches = 0;
    loop {
        let programs = std::mem::take(&mut rep.programs);
        let (snapshot, inferred_before) = (rep.clone(), inferred.clone());
        let t0 = Instant::now();
        let until = t0 + Duration::from_secs_f64(budget / 1000.0);
        match attempt(engine, Some(deadline.map_or(until, |d| d.min(until))), rep, inferred) {
            Err(e) if engine == Backend::Z3 && crate::engines::z3::Z3Error::is_unsupported(&e) => {
                // not a verdict: the program again, explicit, and no Z3 from now on
                costs.z3_unavailable = true;
                *rep = snapshot;
                *inferred = inferred_before;
                rep.programs = programs;
                engine = Backend::Explicit;
                continue;
            }
            r => r?,
        }
        let ms = t0.elapsed().as_secs_f64() * 1000.0;
        let overall = deadline.is_some_and(|d| Instant::now() >= d);
        if rep.complete || !snapshot.complete || overall {
            rep.programs = programs;
            if rep.complete || !snapshot.complete {
                costs.record(sh, engine, ms);
            }
            if switches > 0 {
                costs.split.switched_programs += 1;
                costs.split.switches += switches;
            }
            return Ok(engine);
        }
        // stopped at its budget: not a verdict; drop what it recorded
        costs.record_given_up(sh, engine, ms);
        *rep = snapshot;
        *inferred = inferred_before;
        rep.programs = programs;
        switches += 1;
        if !costs.z3_unavailable {
            engine = other(engine);
        }
        budget *= 2.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shape from each thread's method names.
    fn sh(threads: &[&[&str]]) -> Shape {
        let mut s: Shape = threads.iter().map(|t| t.iter().map(|m| m.to_string()).collect()).collect();
        s.sort();
        s
    }

    #[test]
    fn shapes_ignore_arguments_registers_and_thread_order() {
        let test = |body: &str| {
            let text =
                format!("test t\nlibraries bal\nthread T1 @ 1\nthread T2 @ 2\nloc x @ 1\nloc y @ 2\nloc z @ 1\n{body}");
            syntax::parse(&text).unwrap_or_else(|e| panic!("{e}"))
        };
        let a = test("T1:\n  r0 = Read(x)\n  Bcast(y, 1)\nT2:\n  GF({1})\n");
        let b = test("T1:\n  GF({2})\nT2:\n  r3 = Read(z)\n  Bcast(x, 2)\n");
        assert_eq!(shape(&a), shape(&b));
        assert_eq!(shape(&a), vec![vec!["GF".to_string()], vec!["Read".to_string(), "Bcast".to_string()]]);
    }

    #[test]
    fn a_shape_moves_to_z3_only_when_z3_measured_cheaper() {
        let p = sh(&[&["Bcast"]]);
        let mut m = CostModel::default();
        assert_eq!(m.choose(&p), Backend::Explicit);
        m.record(&p, Backend::Explicit, 5.0);
        assert_eq!(m.choose(&p), Backend::Explicit, "cheap under explicit: Z3 not tried");
        m.record(&p, Backend::Explicit, 500.0);
        assert_eq!(m.choose(&p), Backend::Z3, "expensive: Z3 tried");
        m.record(&p, Backend::Z3, 1000.0);
        assert_eq!(m.choose(&p), Backend::Explicit, "Z3 measured dearer");
        m.record(&p, Backend::Z3, 1.0);
        m.record(&p, Backend::Z3, 1.0);
        assert_eq!(m.choose(&p), Backend::Explicit, "Z3's mean 334 ms, explicit's 252.5 ms");
        for _ in 0..3 {
            m.record(&p, Backend::Z3, 1.0);
        }
        assert_eq!(m.choose(&p), Backend::Z3, "Z3's mean 167.5 ms, explicit's 252.5 ms");
        assert_eq!((m.split.explicit_programs, m.split.z3_programs, m.split.z3_shapes), (2, 6, 1));
    }

    #[test]
    fn a_new_shape_follows_its_size() {
        let (a, b, c) = (sh(&[&["Bcast"]]), sh(&[&["Wait"]]), sh(&[&["GF"]]));
        let mut m = CostModel::default();
        m.record(&a, Backend::Explicit, 500.0);
        assert_eq!(m.choose(&b), Backend::Z3, "size 1 is expensive explicitly: Z3 tried on a new shape");
        assert_eq!(m.budget(&b, Backend::Z3, None), 1500.0, "no Z3 time: 3 × the explicit time");
        m.record(&b, Backend::Z3, 10.0);
        assert_eq!(m.choose(&c), Backend::Z3, "Z3 measured cheaper on size 1");
        m.record_given_up(&c, Backend::Z3, 3000.0);
        assert_eq!(m.choose(&sh(&[&["Read"]])), Backend::Explicit, "Z3's 1505 ms against 500 ms");
        assert_eq!(m.choose(&sh(&[&["Read", "Read"]])), Backend::Explicit, "size 2: nothing measured");
    }

    #[test]
    fn a_given_up_run_counts_against_its_engine() {
        let p = sh(&[&["Bcast"]]);
        let mut m = CostModel::default();
        assert_eq!(m.budget(&p, Backend::Explicit, None), FIRST_BUDGET_MS, "nothing measured");
        m.record(&p, Backend::Explicit, 50.0);
        m.record(&p, Backend::Explicit, 70.0);
        assert_eq!(m.budget(&p, Backend::Z3, None), 180.0, "3 × the mean explicit time");
        assert_eq!(m.choose(&p), Backend::Z3);
        m.record_given_up(&p, Backend::Z3, 180.0);
        assert_eq!(m.choose(&p), Backend::Explicit, "Z3's 180 ms against 60 ms");
        assert_eq!((m.split.z3_programs, m.split.z3_given_up, m.split.z3_ms), (0, 1, 180.0));
        assert_eq!(m.budget(&p, Backend::Z3, None), 540.0, "3 × Z3's own mean");
        // an explicit run stopped: against the explicit engine
        m.record_given_up(&p, Backend::Explicit, 900.0);
        assert_eq!(m.choose(&p), Backend::Z3, "explicit's mean 340 ms against Z3's 180 ms");
        assert_eq!((m.split.explicit_given_up, m.split.explicit_ms), (1, 1020.0));
        let q = sh(&[&["Wait"]]);
        m.record(&q, Backend::Explicit, 1.0);
        assert_eq!(m.budget(&q, Backend::Explicit, None), EXPLICIT_BUDGET_MIN_MS, "at least the least budget");
        assert_eq!(m.budget(&q, Backend::Z3, None), 540.0, "a new shape: 3 × Z3's mean on its size");
        let r = sh(&[&["Wait", "Wait"]]);
        m.record(&r, Backend::Z3, 1.0);
        assert_eq!(m.budget(&r, Backend::Z3, None), BUDGET_MIN_MS, "at least Z3's fixed cost");
        assert_eq!(m.budget(&q, Backend::Explicit, Some(0.5)), 3.0, "3 × 1 ms");
    }

    /// The portfolio on a stand-in for the two engines: an attempt finishes when
    /// its budget covers the engine's cost, else it stops there (an incomplete
    /// report, and a refutation that must not survive).
    #[test]
    fn the_portfolio_alternates_with_doubling_budgets_and_drops_stopped_runs() {
        let p = sh(&[&["Bcast"]]);
        let mut m = CostModel::default();
        m.record(&p, Backend::Explicit, 40.0);
        m.record(&p, Backend::Z3, 400.0);
        let mut rep = Report { complete: true, ..Report::default() };
        let mut inferred = BTreeMap::new();
        // explicit would need 5,000 ms, Z3 3,000 ms: explicit first (predicted 40
        // ms), budgets 1,000 (explicit, the least), 2,000 (Z3), 4,000 (explicit),
        // 8,000 (Z3: finishes)
        let mut log: Vec<(Backend, u64)> = Vec::new();
        let mut attempt = |e: Backend, until: Option<Instant>, rep: &mut Report, _: &mut BTreeMap<_, _>| {
            let budget = until.map_or(u64::MAX, |u| u.saturating_duration_since(Instant::now()).as_millis() as u64 + 1);
            log.push((e, budget));
            let need = if e == Backend::Explicit { 5000 } else { 3000 };
            if budget < need {
                rep.complete = false;
                rep.clients += 1;
            }
            Ok(())
        };
        let last = portfolio(&mut m, &p, None, None, &mut rep, &mut inferred, &mut attempt).unwrap();
        assert_eq!(last, Backend::Z3);
        let engines: Vec<Backend> = log.iter().map(|x| x.0).collect();
        assert_eq!(engines, [Backend::Explicit, Backend::Z3, Backend::Explicit, Backend::Z3]);
        let budgets: Vec<u64> = log.iter().map(|x| x.1).collect();
        for (b, want) in budgets.iter().zip([1000, 2000, 4000, 8000]) {
            // (the attempt sees its budget less the time since it was set)
            assert!(*b <= want + 1 && b + 50 >= want, "budgets {budgets:?}");
        }
        assert!(rep.complete && rep.clients == 0, "the stopped runs' records are dropped");
        assert_eq!((m.split.switched_programs, m.split.switches), (1, 3));
        assert_eq!((m.split.explicit_given_up, m.split.z3_given_up, m.split.z3_programs), (2, 1, 2));
    }
}
