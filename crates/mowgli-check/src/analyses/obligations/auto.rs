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
//! A Z3 run is bounded ([`CostModel::z3_budget`]): [`Z3_BUDGET_FACTOR`] times the
//! shape's mean explicit time (at least [`Z3_BUDGET_MIN_MS`]). A program Z3 does not
//! finish in it is checked again by the explicit engine from scratch (what the Z3
//! run recorded is dropped, so the verdict is the explicit engine's, never "verified"
//! by a run that stopped), and its time counts against Z3 on that shape, which
//! then stays explicit. Without the bound one pathological program could cost the
//! run more than Z3 ever saves (I_SV 2 × 2 × 2: abs-sv-4-2430, 36.9 s under Z3
//! against 10 s explicit, before the witness tree).

use std::collections::HashMap;

use serde::Serialize;

use crate::engines::explicit::Backend;

/// A shape's mean explicit time (ms) above which Z3 is tried on it: below, Z3's
/// fixed cost per query (building the encoding, about 5-15 ms on this machine)
/// cannot win.
pub const TRY_Z3_MS: f64 = 40.0;

/// A Z3 run may take this many times its shape's mean explicit time before it is
/// given up and the program checked explicitly.
pub const Z3_BUDGET_FACTOR: f64 = 3.0;

/// The least budget of a Z3 run (ms): Z3's fixed cost per query.
pub const Z3_BUDGET_MIN_MS: f64 = 100.0;

/// How the programs of a run were split between the engines.
#[derive(Clone, Debug, Default, Serialize)]
pub struct EngineSplit {
    pub explicit_programs: usize,
    pub explicit_ms: f64,
    pub z3_programs: usize,
    pub z3_ms: f64,
    /// Programs whose Z3 run exceeded its budget and that were then checked
    /// explicitly (counted in `explicit_programs`; the Z3 time in `z3_ms`).
    pub z3_given_up: usize,
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
}

impl Default for CostModel {
    fn default() -> CostModel {
        CostModel { shapes: HashMap::new(), sizes: HashMap::new(), try_z3_ms: TRY_Z3_MS, split: EngineSplit::default() }
    }
}

/// The size of a shape: its calls in all threads.
fn size(shape: &[Vec<String>]) -> usize {
    shape.iter().map(Vec::len).sum()
}

/// The shape of a generated program: per thread (sorted), its calls' method names.
pub fn shape(text: &str) -> Vec<Vec<String>> {
    let mut threads: Vec<Vec<String>> = Vec::new();
    for line in text.lines() {
        if line.ends_with(':') && !line.starts_with(' ') {
            threads.push(Vec::new());
        } else if let (Some(t), Some(rest)) = (threads.last_mut(), line.strip_prefix("  ")) {
            let call = rest.split_once(" = ").map_or(rest, |(_, c)| c);
            let method = call.split('(').next().unwrap_or("").trim();
            if !method.is_empty() {
                t.push(method.to_string());
            }
        }
    }
    threads.sort();
    threads
}

impl CostModel {
    /// The engine for the program `text`.
    pub fn choose(&self, text: &str) -> Backend {
        let sh = shape(text);
        let c = match self.shapes.get(&sh) {
            Some(c) => c,
            // a shape not met yet: what its size's programs measured
            None => match self.sizes.get(&size(&sh)) {
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

    /// How long a Z3 run of `text` may take (ms) before it is given up: `None` when
    /// neither its shape nor its size has an explicit time measured (Z3 is not
    /// chosen then).
    pub fn z3_budget(&self, text: &str) -> Option<f64> {
        let sh = shape(text);
        let e = self
            .shapes
            .get(&sh)
            .and_then(|c| Costs::mean(c.explicit))
            .or_else(|| self.sizes.get(&size(&sh)).and_then(|c| Costs::mean(c.explicit)))?;
        Some((Z3_BUDGET_FACTOR * e).max(Z3_BUDGET_MIN_MS))
    }

    /// Records that a Z3 run of `text` was given up after `ms`: the time counts
    /// against Z3 on its shape (the explicit run that follows is recorded on its
    /// own).
    pub fn record_given_up(&mut self, text: &str, ms: f64) {
        let sh = shape(text);
        for c in [self.sizes.entry(size(&sh)).or_default(), self.shapes.entry(sh).or_default()] {
            c.z3.0 += ms;
            c.z3.1 += 1;
        }
        self.split.z3_ms += ms;
        self.split.z3_given_up += 1;
    }

    /// Records that `text` took `ms` under `engine`.
    pub fn record(&mut self, text: &str, engine: Backend, ms: f64) {
        let sh = shape(text);
        let by_size = self.sizes.entry(size(&sh)).or_default();
        match engine {
            Backend::Explicit => by_size.explicit = (by_size.explicit.0 + ms, by_size.explicit.1 + 1),
            Backend::Z3 => by_size.z3 = (by_size.z3.0 + ms, by_size.z3.1 + 1),
        }
        let c = self.shapes.entry(sh).or_default();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_ignore_arguments_registers_and_thread_order() {
        let a = "thread T1 @ 1\nT1:\n  r0 = Read(x)\n  Bcast(y, 1)\nT2:\n  GF({1})\n";
        let b = "thread T1 @ 2\nT1:\n  GF({2})\nT2:\n  r3 = Read(z)\n  Bcast(x, 2)\n";
        assert_eq!(shape(a), shape(b));
        assert_eq!(shape(a), vec![vec!["GF".to_string()], vec!["Read".to_string(), "Bcast".to_string()]]);
    }

    #[test]
    fn a_shape_moves_to_z3_only_when_z3_measured_cheaper() {
        let p = "T1:\n  Bcast(x, 1)\n";
        let mut m = CostModel::default();
        assert_eq!(m.choose(p), Backend::Explicit);
        m.record(p, Backend::Explicit, 5.0);
        assert_eq!(m.choose(p), Backend::Explicit, "cheap under explicit: Z3 not tried");
        m.record(p, Backend::Explicit, 500.0);
        assert_eq!(m.choose(p), Backend::Z3, "expensive: Z3 tried");
        m.record(p, Backend::Z3, 1000.0);
        assert_eq!(m.choose(p), Backend::Explicit, "Z3 measured dearer");
        m.record(p, Backend::Z3, 1.0);
        m.record(p, Backend::Z3, 1.0);
        assert_eq!(m.choose(p), Backend::Explicit, "Z3's mean 334 ms, explicit's 252.5 ms");
        for _ in 0..3 {
            m.record(p, Backend::Z3, 1.0);
        }
        assert_eq!(m.choose(p), Backend::Z3, "Z3's mean 167.5 ms, explicit's 252.5 ms");
        assert_eq!((m.split.explicit_programs, m.split.z3_programs, m.split.z3_shapes), (2, 6, 1));
    }

    #[test]
    fn a_new_shape_follows_its_size() {
        let (a, b, c) = ("T1:\n  Bcast(x, 1)\n", "T1:\n  Wait(1)\n", "T1:\n  GF({1})\n");
        let mut m = CostModel::default();
        m.record(a, Backend::Explicit, 500.0);
        assert_eq!(m.choose(b), Backend::Z3, "size 1 is expensive explicitly: Z3 tried on a new shape");
        assert_eq!(m.z3_budget(b), Some(1500.0));
        m.record(b, Backend::Z3, 10.0);
        assert_eq!(m.choose(c), Backend::Z3, "Z3 measured cheaper on size 1");
        m.record_given_up(c, 3000.0);
        assert_eq!(m.choose("T1:\n  Read(x)\n"), Backend::Explicit, "Z3's 1505 ms against 500 ms");
        assert_eq!(m.choose("T1:\n  Read(x)\n  Read(x)\n"), Backend::Explicit, "size 2: nothing measured");
    }

    #[test]
    fn a_given_up_z3_run_counts_against_z3() {
        let p = "T1:\n  Bcast(x, 1)\n";
        let mut m = CostModel::default();
        assert_eq!(m.z3_budget(p), None, "no explicit time measured");
        m.record(p, Backend::Explicit, 50.0);
        m.record(p, Backend::Explicit, 70.0);
        assert_eq!(m.z3_budget(p), Some(180.0), "3 × the mean explicit time");
        assert_eq!(m.choose(p), Backend::Z3);
        m.record_given_up(p, 180.0);
        assert_eq!(m.choose(p), Backend::Explicit, "Z3's 180 ms against 60 ms");
        assert_eq!((m.split.z3_programs, m.split.z3_given_up, m.split.z3_ms), (0, 1, 180.0));
        let q = "T1:\n  Wait(1)\n";
        m.record(q, Backend::Explicit, 1.0);
        assert_eq!(m.z3_budget(q), Some(Z3_BUDGET_MIN_MS), "at least the fixed cost");
    }
}
