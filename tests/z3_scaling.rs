//! Issue 16's scaling of the Z3 path of the obligations.
//!
//! The whole-program encoding (`--z3-whole`: one query per abstract
//! program over the union of its groups of plain executions, each event guarded
//! by its path condition) against the explicit engine and the per-group
//! encoding, on implementations whose unfoldings differ in their events (the
//! ring buffer's Receive branches on what it reads): per abstract program, the
//! same verdict and the same refuted (method, obligation) cells. The engine's own
//! cross-check runs too: a model of the whole query names a group, which the
//! per-group path must then refute (else the run is an error).

use mowgli_libs::catalogue::Catalogue;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mowgli_check::analyses::obligations::{self, Options, Report};
use mowgli_check::analyses::refine::gen::Bounds;
use mowgli_check::engines::explicit::Backend;
use mowgli_check::lang::implementation::Implementation;
use mowgli_libs::orders::default_order;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The refuted cells of a report: (method, obligation).
fn refuted(r: &Report) -> BTreeSet<(String, &'static str)> {
    r.failures.iter().flat_map(|f| f.methods.iter().map(move |m| (m.clone(), f.obligation.name()))).collect()
}

/// Per abstract program of `imp` at `b`: explicit, Z3 per group, Z3 whole; the
/// same refuted cells under all three. Returns (programs, whole queries, groups
/// their models named, abstract executions discharged by whole queries) summed.
fn agree_per_program(imp: &str, b: &Bounds) -> (usize, u64, u64, u64) {
    let order = default_order();
    let i = Implementation::load(&root().join(imp), &order, &Catalogue::builtins()).unwrap_or_else(|e| panic!("{e}"));
    let clients = obligations::abstract_programs(&i, &order, b).unwrap_or_else(|e| panic!("{e}"));
    let run = |client: &obligations::Program, backend: Backend, z3_whole: bool| {
        let opts = Options { loop_bound: 4, backend, z3_whole, ..Default::default() };
        let r = obligations::check_clients(&i, &order, std::slice::from_ref(client), &i.map, &opts)
            .unwrap_or_else(|e| panic!("{imp} on {}: {e}", client.0));
        assert!(r.complete, "{imp} on {}: incomplete", client.0);
        r
    };
    let (mut queries, mut models, mut discharged) = (0, 0, 0);
    for c in &clients {
        let e = run(c, Backend::Explicit, false);
        let z = run(c, Backend::Z3, false);
        let w = run(c, Backend::Z3, true);
        assert_eq!(refuted(&e), refuted(&z), "{imp} on {}: explicit against Z3 per group", c.0);
        assert_eq!(refuted(&e), refuted(&w), "{imp} on {}: explicit against Z3 whole-program", c.0);
        queries += w.z3_whole_queries;
        models += w.z3_whole_models;
        if w.z3_whole_queries > 0 {
            discharged += w.plain_discharged;
        }
    }
    (clients.len(), queries, models, discharged)
}

fn bounds(lib: &str, threads: usize, nodes: usize, calls: usize) -> Bounds {
    Bounds::new(lib, threads, nodes, calls)
}

/// I_RBL (refutes O2 on one-thread programs, docs/obligations.md), I_RBL with a
/// fence (verified) and the mutant without the wait (refutes O2 and O3), at 2
/// threads × 2 nodes × 2 calls: programs with several groups are checked by
/// whole queries, some discharged by them alone, and where something is refuted
/// the whole query's models name the groups the per-group path refutes.
#[test]
fn whole_program_queries_agree_per_program() {
    for (imp, refutes) in [
        ("specs/impls/irbl.impl", true),
        ("specs/impls/irbl_fence.impl", false),
        ("specs/impls/mutants/irbl_nowait.impl", true),
    ] {
        let (programs, queries, models, discharged) = agree_per_program(imp, &bounds("rbl", 2, 2, 2));
        assert!(programs >= 30, "{imp}: {programs} programs");
        assert!(queries > 0, "{imp}: no program with several groups");
        assert!(discharged > 0, "{imp}: nothing discharged by a whole query");
        assert_eq!(models > 0, refutes, "{imp}: {models} groups named by whole queries' models");
    }
}

/// `--engine auto` as a portfolio with budgets far too small (Z3 tried on every
/// shape, a least budget of 0.1 ms: many runs stop and the program goes to the other engine with
/// twice the budget, alternating): every program still finishes, stopped runs
/// leave nothing behind, and the refuted cells are the explicit engine's.
#[test]
fn the_auto_portfolio_switches_engines_and_agrees() {
    let order = default_order();
    // (whether a run fits its budget depends on the machine: the switches are
    // counted over all three)
    let mut switches = 0;
    for (imp, b) in [
        ("specs/impls/isv.impl", bounds("sv", 2, 2, 1)),
        ("specs/impls/mutants/isv_gf_puts.impl", bounds("sv", 1, 2, 2)),
        ("specs/impls/mutants/irbl_nowait.impl", bounds("rbl", 2, 2, 2)),
    ] {
        let i =
            Implementation::load(&root().join(imp), &order, &Catalogue::builtins()).unwrap_or_else(|e| panic!("{e}"));
        let clients = obligations::abstract_programs(&i, &order, &b).unwrap_or_else(|e| panic!("{e}"));
        let run = |opts: &Options| {
            obligations::check_clients(&i, &order, &clients, &i.map, opts).unwrap_or_else(|e| panic!("{imp}: {e}"))
        };
        let e = run(&Options { loop_bound: 4, ..Default::default() });
        let a = run(&Options {
            loop_bound: 4,
            auto: true,
            auto_try_z3_ms: Some(0.0),
            auto_budget_min_ms: Some(0.1),
            ..Default::default()
        });
        assert!(a.complete, "{imp}: auto incomplete");
        assert_eq!(refuted(&e), refuted(&a), "{imp}: refuted cells under auto");
        let split = a.split.clone().expect("auto reports its split");
        assert_eq!(split.explicit_programs + split.z3_programs, a.programs.len(), "{imp}: split {split:?}");
        switches += split.switches;
        assert_eq!(
            split.switches,
            split.explicit_given_up + split.z3_given_up,
            "{imp}: one switch per stopped run: {split:?}"
        );
    }
    assert!(switches > 0, "no run stopped at a 0.1 ms budget");
}
